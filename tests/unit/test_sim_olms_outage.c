// SPDX-License-Identifier: MIT
/*
 * OLMS and a path that goes dark (issue 11, testbed/scenarios/outage.json) on the
 * simulated link (tests/unit/support/simlink.h): real BBR per path, real scheduler,
 * virtual time.
 *
 *   source --> olms --+--> p0: 50 Mbit/s, RTT 20 ms, cost 0: dark from 4 s to 7 s
 *   (greedy)          +--> p1: 50 Mbit/s, RTT 30 ms, cost 1
 *
 * The outage as the core sees it: the link drops everything, and 100 ms later (the
 * core's dead-path detection from data, session_repair.c) the path is declared down:
 * its packets are lost and its controller restarts. At 7 s the link heals and the
 * path comes back up (the core's probes), its BBR in Startup from the initial window.
 *
 * OLMS learns b = cwnd / srtt from ACKs. A restarted controller's window is no
 * measure of the path: fed to the posterior, the first ACKs of the returning path
 * (a few packets over 20 ms) made the monitor reset it and then taught it a path of
 * a few Mbit/s; the path then won no Thompson draw against p1, got no ACKs to
 * correct it, and carried 0.1 Mbit/s for the rest of the run (olms at 0.88 x kernel
 * MPTCP on outage.json). olms.c learns no bandwidth from a controller in Startup,
 * slow start or ProbeRTT, so the returning path keeps what was learnt before the
 * outage.
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

static struct sim_path_cfg path(uint64_t rate, uint64_t rtt_ns, uint32_t cost)
{
	return (struct sim_path_cfg){ .cc = "bbr", .cost = cost,
		.link = { .rate = rate, .delay_ns = rtt_ns / 2,
			  .queue_bytes = rate / 10 } };	/* 100 ms of buffer */
}

/* p0's goodput over [t0, t1], Mbit/s */
static double p0_mbit(struct sim_session *s, uint64_t t0, uint64_t t1)
{
	uint64_t before;

	sim_session_run_until(s, t0);
	before = sim_path_stats(s, 0)->delivered_bytes;
	sim_session_run_until(s, t1);
	return (double)(sim_path_stats(s, 0)->delivered_bytes - before) * 8 / 1e6 /
	       ((double)(t1 - t0) / SEC);
}

static void test_olms_uses_path_back_from_outage(void **state)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct sim_session_cfg cfg = { .npaths = 2, .sched = "olms", .seed = seed };
		struct sim_session *s;
		double pre, dark, back, total;

		cfg.paths[0] = path(MBIT(50), 20 * MS, 0);
		cfg.paths[1] = path(MBIT(50), 30 * MS, 1);
		s = sim_session_new(&cfg);
		pre = p0_mbit(s, 1 * SEC, 4 * SEC);
		sim_path_link(s, 0)->loss = 1.0;
		sim_session_run_until(s, 4 * SEC + 100 * MS);
		sim_path_set_up(s, 0, false);
		dark = p0_mbit(s, 4 * SEC + 100 * MS, 7 * SEC);
		sim_path_link(s, 0)->loss = 0;
		sim_path_set_up(s, 0, true);
		sim_session_reset_stats(s);
		back = p0_mbit(s, 7 * SEC, 12 * SEC);
		total = (sim_path_goodput(s, 0) + sim_path_goodput(s, 1)) * 8 / 1e6;
		print_message("olms seed %llu: p0 %.1f Mbit/s before the outage, %.1f dark, "
			      "%.1f in the 5 s after it (both paths %.1f)\n",
			      (unsigned long long)seed, pre, dark, back, total);
		assert_true(dark < 0.1);
		/* the returning path carries about what it did before (a fifth of the
		 * link at least), and the pair more than one path */
		assert_true(back >= 0.5 * pre && back >= 10);
		assert_true(total >= 60);
		sim_session_free(s);
	}
}

/*
 * While the returning path's BBR opens its window from the initial one, OLMS still
 * draws it (as it should: what was learnt before the outage holds), finds it full and
 * held the packet; on the testbed the surviving path then went idle for 100-200 ms
 * (outage.json, olms: p2 in flight 0, goodput 0 for two 100 ms samples). A member
 * of the set whose window is still opening gives its turn to the in-time paths with
 * room: the surviving path keeps its rate through the return.
 */
static void test_olms_keeps_survivor_busy_on_return(void **state)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct sim_session_cfg cfg = { .npaths = 2, .sched = "olms", .seed = seed };
		struct sim_session *s;
		uint64_t before, after;
		double least = 1e9;

		cfg.paths[0] = path(MBIT(50), 20 * MS, 0);
		cfg.paths[1] = path(MBIT(50), 30 * MS, 1);
		s = sim_session_new(&cfg);
		sim_session_run_until(s, 4 * SEC);
		sim_path_link(s, 0)->loss = 1.0;
		sim_session_run_until(s, 4 * SEC + 100 * MS);
		sim_path_set_up(s, 0, false);
		sim_session_run_until(s, 7 * SEC);
		sim_path_link(s, 0)->loss = 0;
		sim_path_set_up(s, 0, true);
		/* from the first 100 ms after the return (what p1 sent before it arrives) */
		sim_session_run_until(s, 7 * SEC + 100 * MS);
		before = sim_path_stats(s, 1)->delivered_bytes;
		for (unsigned k = 2; k <= 7; k++) {
			sim_session_run_until(s, 7 * SEC + k * 100 * MS);
			after = sim_path_stats(s, 1)->delivered_bytes;
			least = MPT_MIN(least, (double)(after - before) * 8 / 1e5);
			before = after;
		}
		print_message("olms seed %llu: p1 at least %.1f Mbit/s per 100 ms in the "
			      "0.6 s after p0 came back\n", (unsigned long long)seed, least);
		assert_true(least >= 45);
		sim_session_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_olms_uses_path_back_from_outage),
		cmocka_unit_test(test_olms_keeps_survivor_busy_on_return),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
