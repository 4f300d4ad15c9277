// SPDX-License-Identifier: MIT
/*
 * exp3 learns on the simulated link (tests/unit/support/simlink.h): one greedy flow,
 * real BBR per path, no configured capacities (equal initial weights), so the flow
 * must find the fast path from its own rewards (TCPPathChanger sec. 2.2, Figure 2).
 *
 *   greedy flow --> [sched queue] --> exp3 --+--> slow: 20 Mbit/s, 10 ms --+--> rx
 *                                            +--> fast: 100 Mbit/s, 10 ms -+
 *
 * Buffers are 2 BDP. The flow starts on either path (tie: random); it must end on the
 * fast one with a weight share above 0.9 in most seeds, and the session's goodput in
 * the last 5 s must be close to the fast path's rate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "simlink.h"

#define MS MPT_NSEC_PER_MSEC
#define SEC MPT_NSEC_PER_SEC
#define MBIT(x) ((uint64_t)((x) * 1e6 / 8))	/* Mbit/s -> bytes/s */
#define OWD (10 * MS)
#define RUN (60 * SEC)
#define SEEDS 10

static struct sim_path_cfg path(const char *name, uint64_t rate)
{
	uint64_t bdp = (uint64_t)((double)rate * 2 * (double)OWD / SEC);

	return (struct sim_path_cfg){ .name = name, .cc = "bbr",
		.link = { .rate = rate, .delay_ns = OWD, .queue_bytes = 2 * bdp } };
}

static double sched_stat(struct sim_session *s, const char *name, unsigned p)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	for (size_t k = 0; k < ops->nstats; k++)
		if (!strcmp(ops->stats[k].name, name))
			return mpt_stat_read(&ops->stats[k], sim_session_sched_priv(s), p);
	fail_msg("scheduler %s has no stat '%s'", ops->name, name);
	return 0;
}

/* Convergence, sampled every 100 ms: since when the fast path's weight share has
 * stayed above 0.9, and the time the flow spent pinned to it. */
struct conv {
	uint64_t since, on_fast_ns;
	bool above;
};

static void conv_hook(struct sim_session *s, void *arg)
{
	struct conv *c = arg;
	bool above = sched_stat(s, "weight", 1) > 0.9;

	if (above && !c->above)
		c->since = sim_now(s);
	c->above = above;
	if (sched_stat(s, "flows_on", 1) == 1)
		c->on_fast_ns += 100 * MS;
}

static void test_lone_flow_finds_fast_path(void **state)
{
	unsigned good = 0;
	double conv_sum = 0;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct conv c = { 0 };
		struct sim_session_cfg cfg = { .npaths = 2, .sched = "exp3", .seed = seed,
					       .hook = conv_hook, .hook_arg = &c,
					       .hook_interval_ns = 100 * MS };
		struct sim_session *s;
		double share, put;

		cfg.paths[0] = path("slow", MBIT(20));
		cfg.paths[1] = path("fast", MBIT(100));
		s = sim_session_new(&cfg);
		assert_non_null(s);
		sim_session_run_until(s, RUN - 5 * SEC);
		sim_session_reset_stats(s);
		sim_session_run_until(s, RUN);
		share = sched_stat(s, "weight", 1);
		put = sim_path_goodput(s, 0) + sim_path_goodput(s, 1);
		print_message("seed %2u: fast weight share %.3f (> 0.9 since %.1f s), on "
			      "fast %.0f%% of the run, steps %.0f moves %.0f, goodput last "
			      "5 s %.1f Mbit/s\n", (unsigned)seed, share,
			      c.above ? c.since / 1e9 : -1.0, 100.0 * c.on_fast_ns / RUN,
			      sched_stat(s, "steps", 0), sched_stat(s, "moves", 0),
			      put * 8 / 1e6);
		if (share > 0.9) {
			good++;
			conv_sum += c.since / 1e9;
		}
		sim_session_free(s);
	}
	print_message("%u of %u seeds on the fast path, mean convergence %.1f s\n", good,
		      SEEDS, good ? conv_sum / good : 0);
	assert_true(good >= SEEDS * 8 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lone_flow_finds_fast_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
