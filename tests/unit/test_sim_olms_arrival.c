// SPDX-License-Identifier: MIT
/*
 * OLMS's arrival awareness on the simulated link (tests/unit/support/simlink.h): real
 * BBR per path, real scheduler, virtual time. Unequal paths, as testbed/scenarios/
 * unequal-2.json:
 *
 *   source --> olms --+--> fast: 80 Mbit/s, 5 ms one way --+--> receiver
 *   (rate or  (default +--> slow: 10 Mbit/s, 60 ms one way --+
 *    greedy)   tunables)
 *
 * A packet goes to the slower path only when it arrives no later than through the
 * faster path's queue (sched/arrival.h). The rounded set of OLMS is a draw: now and
 * then (a Thompson sample after a monitor reset) it holds the slow path alone. Judged
 * within that set, the slow path was "the earliest" and took the packet, 55 ms late:
 * the receiver holds every packet behind it (the testbed's olms on unequal-2 stalled
 * its flow this way, 0.85 of the fast path alone with BBR end to end).
 *
 * A sender the fast path carries (30 Mbit/s) must not touch the slow path (1.4 % of
 * its packets went there before, 0.02 % now); a greedy one must keep the fast path full.
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
#define MBIT(x) ((uint64_t)((x) * 1e6 / 8))

static struct sim_path_cfg path(const char *name, uint64_t rate, uint64_t owd_ns)
{
	/* 2 BDP of the round trip */
	return (struct sim_path_cfg){ .name = name, .cc = "bbr",
		.link = { .rate = rate, .delay_ns = owd_ns,
			  .queue_bytes = (uint64_t)(4.0 * (double)rate * (double)owd_ns / SEC) } };
}

static struct sim_session *unequal(uint64_t source_rate, uint64_t slow_owd, uint64_t seed)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "olms", .seed = seed,
				       .source_rate = source_rate };

	cfg.paths[0] = path("fast", MBIT(80), 5 * MS);
	cfg.paths[1] = path("slow", MBIT(10), slow_owd);
	return sim_session_new(&cfg);
}

static double slow_share(const struct sim_session *s)
{
	uint64_t fast = sim_path_stats(s, 0)->handed_pkts, slow = sim_path_stats(s, 1)->handed_pkts;

	return fast + slow ? (double)slow / (double)(fast + slow) : 0;
}

/* 30 Mbit/s fits the fast path: the slow one, never in time, carries nothing after the
 * first RTT samples. The monitor is made touchy (it resets the posteriors often), so
 * that the draws from a fresh posterior that hold the slow path alone are many. */
static void test_olms_rate_source_stays_on_fast_path(void **state)
{
	uint64_t slow = 0, total = 0;

	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct sim_session *s = unequal(MBIT(30), 60 * MS, seed);

		assert_non_null(s);
		/* many monitor resets: many draws from a fresh posterior */
		assert_int_equal(sim_session_set_param(s, -1, "monitor_delta", "0.1"), 0);
		assert_int_equal(sim_session_set_param(s, -1, "monitor_h", "0"), 0);
		sim_session_run_until(s, 15 * SEC);
		print_message("olms 30 Mbit/s seed %u: slow path %.4f of %llu packets, "
			      "goodput %.1f Mbit/s\n", (unsigned)seed, slow_share(s),
			      (unsigned long long)(sim_path_stats(s, 0)->handed_pkts +
						   sim_path_stats(s, 1)->handed_pkts),
			      (sim_path_goodput(s, 0) + sim_path_goodput(s, 1)) * 8 / 1e6);
		slow += sim_path_stats(s, 1)->handed_pkts;
		total += sim_path_stats(s, 0)->handed_pkts + sim_path_stats(s, 1)->handed_pkts;
		sim_session_free(s);
	}
	/* a packet on the slow path here arrives 55 ms after the ones that follow it */
	assert_true(slow * 1000 <= total);	/* at most 0.1 % (the first RTT samples) */
}

/* Greedy, same touchy monitor: in time is judged on the whole bond, so the fast path
 * stays full whatever the draw (a set that is not in time falls to the in-time paths).
 * With two paths OLMS's set holds one (L = min(2, K - 1), section III-A) and its LP
 * (eq. 4) leaves out the 120 ms path (RTT cap C_r = 50 ms): at least the fast path. */
static void test_olms_greedy_fills_fast_path(void **state)
{
	struct sim_session *s = unequal(0, 60 * MS, 1);
	double good;

	assert_non_null(s);
	assert_int_equal(sim_session_set_param(s, -1, "monitor_delta", "0.1"), 0);
	assert_int_equal(sim_session_set_param(s, -1, "monitor_h", "0"), 0);
	sim_session_run_until(s, 5 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 20 * SEC);
	good = sim_path_goodput(s, 0) + sim_path_goodput(s, 1);
	print_message("olms greedy: slow path %.4f of packets, goodput %.1f Mbit/s\n",
		      slow_share(s), good * 8 / 1e6);
	assert_true(good > 0.97 * (double)MBIT(80));
	sim_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_olms_rate_source_stays_on_fast_path),
		cmocka_unit_test(test_olms_greedy_fills_fast_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
