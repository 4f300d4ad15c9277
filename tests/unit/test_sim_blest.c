// SPDX-License-Identifier: MIT
/*
 * blest on the simulated link (tests/unit/support/simlink.h), real BBR per path:
 *
 *   greedy --> [sched queue] --> blest --+--> fast: 20 Mbit/s, RTT 20 ms --+--> rx
 *                                        +--> slow: 20 Mbit/s, RTT 80 ms --+
 *
 * With the default window (ReorderBuffer's 1024 packets) the slow path's data does not
 * block the fast path and both carry: goodput near the sum of the rates. With a window
 * of 150 packets, what the fast path sends during one slow RTT (eq. 1: about 5 x its
 * window) does not fit beside the slow path's data: BLEST holds for the fast path and
 * the session runs at the fast path's rate (BLEST sec. III).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "simlink.h"

#define MS MPT_NSEC_PER_MSEC
#define SEC MPT_NSEC_PER_SEC
#define RATE ((uint64_t)(20e6 / 8))

static struct sim_path_cfg path(const char *name, uint64_t owd)
{
	uint64_t bdp = (uint64_t)((double)RATE * 2 * (double)owd / SEC);

	return (struct sim_path_cfg){ .name = name, .cc = "bbr",
		.link = { .rate = RATE, .delay_ns = owd, .queue_bytes = 2 * bdp } };
}

static double sched_stat(struct sim_session *s, const char *name)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	for (size_t k = 0; k < ops->nstats; k++)
		if (!strcmp(ops->stats[k].name, name))
			return mpt_stat_read(&ops->stats[k], sim_session_sched_priv(s), 0);
	fail_msg("no stat %s", name);
	return 0;
}

/* Goodput of both paths over 10 s after 5 s of warm-up; slow path's share. */
static double run(const char *window, double *slow_share, double *blocked)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "blest", .seed = 5 };
	struct sim_session *s;
	double g0, g1;

	cfg.paths[0] = path("fast", 10 * MS);
	cfg.paths[1] = path("slow", 40 * MS);
	s = sim_session_new(&cfg);
	assert_non_null(s);
	if (window)
		assert_int_equal(sim_session_set_param(s, -1, "window_pkts", window), 0);
	sim_session_run_until(s, 5 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 15 * SEC);
	g0 = sim_path_goodput(s, 0);
	g1 = sim_path_goodput(s, 1);
	*slow_share = g1 / (g0 + g1);
	*blocked = sched_stat(s, "blocked");
	print_message("blest window %s: goodput %.1f + %.1f Mbit/s, blocked %.0f\n",
		      window ? window : "default", g0 * 8 / 1e6, g1 * 8 / 1e6, *blocked);
	sim_session_free(s);
	return g0 + g1;
}

static void test_blest_window(void **state)
{
	double share, blocked, put;

	put = run(NULL, &share, &blocked);
	assert_true(put >= 0.9 * 2 * RATE);
	assert_true(share >= 0.4);

	put = run("150", &share, &blocked);
	assert_true(put <= 1.05 * RATE && put >= 0.9 * RATE);
	assert_true(share < 0.05);
	assert_true(blocked > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blest_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
