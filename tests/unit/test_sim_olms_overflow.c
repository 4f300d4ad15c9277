// SPDX-License-Identifier: MIT
/*
 * OLMS with two paths (issue 10): L is capped at K - 1 = 1, so the rounded set is one
 * path per decision. Holding the packet whenever that path is full (III-B, overflow =
 * hold) leaves the other path idle about half the time; the default (overflow =
 * in_time) gives the turn to the in-time paths with room. Simulated link
 * (tests/unit/support/simlink.h): real BBR per path, real scheduler, virtual time,
 * a greedy source, goodput over 10 s after 2 s of start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "simlink.h"

#define MS MPT_NSEC_PER_MSEC
#define SEC MPT_NSEC_PER_SEC
#define MBIT(x) ((uint64_t)((x) * 1e6 / 8))

static struct sim_path_cfg path(double mbit, uint64_t rtt_ms, uint32_t cost)
{
	return (struct sim_path_cfg){ .cc = "bbr", .cost = cost,
		.link = { .rate = MBIT(mbit), .delay_ns = rtt_ms * MS / 2,
			  .queue_bytes = MBIT(mbit) / 10 } };	/* 100 ms of buffer */
}

/* Both paths' goodput, Mbit/s, with olms's overflow set to `overflow`. */
static double run(double mbit0, uint64_t rtt0, double mbit1, uint64_t rtt1,
		  const char *overflow, uint64_t seed)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "olms", .seed = seed };
	const struct mpt_sched_ops *ops;
	struct sim_session *s;
	double mbit;

	cfg.paths[0] = path(mbit0, rtt0, 0);
	cfg.paths[1] = path(mbit1, rtt1, 1);
	s = sim_session_new(&cfg);
	ops = sim_session_sched_ops(s);
	assert_int_equal(mpt_param_parse(mpt_param_find(ops->params, ops->nparams, "overflow"),
					 sim_session_sched_priv(s), overflow, NULL, 0), 0);
	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 12 * SEC);
	mbit = (sim_path_goodput(s, 0) + sim_path_goodput(s, 1)) * 8 / 1e6;
	print_message("olms overflow=%s, %.0f Mbit/s %llu ms + %.0f Mbit/s %llu ms, seed "
		      "%llu: %.1f Mbit/s\n", overflow, mbit0, (unsigned long long)rtt0, mbit1,
		      (unsigned long long)rtt1, (unsigned long long)seed, mbit);
	sim_session_free(s);
	return mbit;
}

static void test_two_paths_aggregate(void **state)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		/* two equal paths (the outage scenario's pair) */
		assert_true(run(50, 20, 50, 30, "in_time", seed) >= 95);
		assert_true(run(50, 20, 50, 30, "hold", seed) < 90);
		/* a fast short path and a thin long one: more than the fast path alone */
		assert_true(run(80, 10, 10, 120, "in_time", seed) >= 85);
		assert_true(run(80, 10, 10, 120, "hold", seed) < 81);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_paths_aggregate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
