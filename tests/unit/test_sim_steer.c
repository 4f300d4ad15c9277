// SPDX-License-Identifier: MIT
/*
 * The ATSSS steering modes on the simulated link (tests/unit/support/simlink.h): real
 * BBR per path, the real scheduler, virtual time. The path set:
 *
 *   source --> [sched queue] --> mode --+--> wifi (cost 1): 50 Mbit/s, 10 ms --+--> rx
 *   (rate or greedy)                    +--> lte  (cost 2): 20 Mbit/s, 40 ms --+
 *
 * Bottleneck buffers are 2 BDP. Every bound derives from these rates and delays.
 */
#include <math.h>
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

static const uint64_t R0 = MBIT(50), R1 = MBIT(20);
static const uint64_t OWD0 = 10 * MS, OWD1 = 40 * MS;

static struct sim_path_cfg path(const char *name, uint64_t rate, uint64_t owd_ns,
				uint32_t cost)
{
	uint64_t bdp = (uint64_t)((double)rate * 2 * (double)owd_ns / SEC);

	return (struct sim_path_cfg){ .name = name, .cc = "bbr", .cost = cost,
		.link = { .rate = rate, .delay_ns = owd_ns, .queue_bytes = 2 * bdp } };
}

static struct sim_session *wifi_lte(const char *sched, uint64_t source_rate,
				    uint32_t pkt_len, const char **kv)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = sched, .seed = 13,
				       .source_rate = source_rate, .pkt_len = pkt_len };
	struct sim_session *s;

	cfg.paths[0] = path("wifi", R0, OWD0, 1);
	cfg.paths[1] = path("lte", R1, OWD1, 2);
	s = sim_session_new(&cfg);
	assert_non_null(s);
	for (; kv && kv[0]; kv += 2)
		assert_int_equal(sim_session_set_param(s, -1, kv[0], kv[1]), 0);
	return s;
}

static double stat(struct sim_session *s, const char *name, unsigned path)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	for (size_t k = 0; k < ops->nstats; k++)
		if (!strcmp(ops->stats[k].name, name))
			return mpt_stat_read(&ops->stats[k], sim_session_sched_priv(s), path);
	fail_msg("scheduler %s has no stat '%s'", ops->name, name);
	return 0;
}

static uint64_t handed(const struct sim_session *s, unsigned i)
{
	return sim_path_stats(s, i)->handed_pkts;
}

/* Active-standby: lte named active; it fails at 3 s, returns at 6 s; traffic moves to
 * wifi and back after return_ms; a greedy flow fills whichever path carries it. */
static void test_sim_active_standby(void **state)
{
	static const char *kv[] = { "active", "lte", "standby", "wifi", "return_ms",
				    "1000", NULL };
	struct sim_session *s = wifi_lte("active-standby", 0, 0, kv);
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);
	struct mpt_sched_event ev[16];
	double sw0;
	unsigned n;

	sim_session_run_until(s, 2 * SEC);
	sw0 = stat(s, "switches", 0);
	ops->drain_events(sim_session_sched_priv(s), ev, 16);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 4 * SEC);
	print_message("active-standby: lte %.3f R1\n", sim_path_goodput(s, 1) / (double)R1);
	assert_int_equal(handed(s, 0), 0);
	assert_true(sim_path_goodput(s, 1) >= 0.9 * (double)R1);
	sim_path_set_up(s, 1, false);
	sim_session_run_until(s, 5 * SEC);		/* 1 s to ramp wifi up */
	sim_session_reset_stats(s);
	sim_session_run_until(s, 7 * SEC);
	print_message("active-standby: lte down, wifi %.3f R0\n",
		      sim_path_goodput(s, 0) / (double)R0);
	assert_true(sim_path_goodput(s, 0) >= 0.9 * (double)R0);
	assert_int_equal(handed(s, 1), 0);
	sim_path_set_up(s, 1, true);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 7 * SEC + 900 * MS);	/* within return_ms: wifi */
	assert_int_equal(handed(s, 1), 0);
	sim_session_run_until(s, 9 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 11 * SEC);
	assert_int_equal(handed(s, 0), 0);
	/* after the warm-up: the move to wifi when lte failed, the return 1 s after
	 * lte came back (the tunables are set just after the session's first pick) */
	n = ops->drain_events(sim_session_sched_priv(s), ev, 16);
	assert_int_equal(n, 2);
	assert_int_equal(ev[0].kind, MPT_SCHED_EV_SWITCH);
	assert_int_equal(ev[0].path, 0);
	assert_int_equal(ev[0].t_ns, 4 * SEC);
	assert_int_equal(ev[1].path, 1);
	assert_true(ev[1].t_ns >= 8 * SEC && ev[1].t_ns < 8 * SEC + 10 * MS);
	assert_int_equal(stat(s, "switches", 0) - sw0, 2);
	sim_session_free(s);
}

/* Smallest delay: a 200 kbit/s voice-like flow of 160-byte packets stays on wifi;
 * when wifi's delay rises to 150 ms it moves to lte, and only once. */
static void test_sim_smallest_delay(void **state)
{
	struct sim_session *s = wifi_lte("smallest-delay", 25000, 160, NULL);
	uint64_t before;

	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 5 * SEC);
	/* lte is tried once for its RTT sample, at the start only */
	assert_int_equal(handed(s, 1), 0);
	assert_true(handed(s, 0) >= 0.99 * 3 * 25000 / 160);
	sim_path_link(s, 0)->delay_ns = 150 * MS;
	sim_session_run_until(s, 7 * SEC);		/* wifi's srtt climbs over 80 ms */
	before = handed(s, 0);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 10 * SEC);
	print_message("smallest-delay: wifi at 150 ms; after 2 s, %llu pkts on wifi, "
		      "%llu on lte; switches %.0f\n", (unsigned long long)handed(s, 0),
		      (unsigned long long)handed(s, 1), stat(s, "switches", 0));
	assert_true(before > 0);
	assert_int_equal(handed(s, 0), 0);
	assert_true(handed(s, 1) >= 0.99 * 3 * 25000 / 160);
	assert_int_equal(stat(s, "switches", 0), 1);
	sim_session_free(s);
}

/* Fixed 60/40 at an offered 20 Mbit/s: the split holds, every packet goes. */
static void test_sim_load_balance_fixed(void **state)
{
	static const char *kv[] = { "pct0", "60", "pct1", "40", NULL };
	uint64_t offered = MBIT(20);
	struct sim_session *s = wifi_lte("load-balance", offered, 0, kv);
	double sh;

	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 12 * SEC);
	sh = (double)sim_path_stats(s, 0)->handed_bytes /
	     (double)(sim_path_stats(s, 0)->handed_bytes + sim_path_stats(s, 1)->handed_bytes);
	print_message("load-balance fixed 60/40: wifi %.4f; goodput %.3f of offered\n", sh,
		      (sim_path_goodput(s, 0) + sim_path_goodput(s, 1)) / (double)offered);
	assert_true(fabs(sh - 0.6) < 0.005);
	assert_true(sim_path_goodput(s, 0) + sim_path_goodput(s, 1) >= 0.97 * (double)offered);
	sim_session_free(s);
}

/* Autonomous, greedy: the split follows the measured capacities, 50:20. */
static void test_sim_load_balance_autonomous(void **state)
{
	static const char *kv[] = { "split", "autonomous", NULL };
	struct sim_session *s = wifi_lte("load-balance", 0, 0, kv);
	double sh, gp;

	sim_session_run_until(s, 3 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 13 * SEC);
	sh = (double)sim_path_stats(s, 0)->handed_bytes /
	     (double)(sim_path_stats(s, 0)->handed_bytes + sim_path_stats(s, 1)->handed_bytes);
	gp = sim_path_goodput(s, 0) + sim_path_goodput(s, 1);
	print_message("load-balance autonomous: wifi share %.3f (capacity share %.3f), "
		      "goodput %.3f of R0+R1\n", sh, (double)R0 / (double)(R0 + R1),
		      gp / (double)(R0 + R1));
	assert_true(fabs(sh - (double)R0 / (double)(R0 + R1)) < 0.05);
	assert_true(gp >= 0.85 * (double)(R0 + R1));
	sim_session_free(s);
}

/* Priority: at half of wifi's rate nothing overflows beyond what BBR's ProbeRTT
 * (cwnd 4 packets for 200 ms every 10 s) pushes; greedy, wifi is full and lte carries
 * the rest. */
static void test_sim_priority(void **state)
{
	struct sim_session *s = wifi_lte("priority", R0 / 2, 0, NULL);
	double allow;

	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 14 * SEC);
	/* 2 ProbeRTT episodes at most in 12 s, each 200 ms + 2 RTT of regrowth */
	allow = (double)R0 / 2 * 2 * (0.2 + 2 * 2.0 * OWD0 / SEC);
	print_message("priority @0.5 R0: lte got %llu B (allowance %.0f B)\n",
		      (unsigned long long)sim_path_stats(s, 1)->handed_bytes, allow);
	assert_true((double)sim_path_stats(s, 1)->handed_bytes <= allow);
	assert_true(sim_path_goodput(s, 0) >= 0.97 * (double)R0 / 2);
	sim_session_free(s);

	s = wifi_lte("priority", 0, 0, NULL);
	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 12 * SEC);
	print_message("priority greedy: wifi %.3f R0, lte %.3f R1\n",
		      sim_path_goodput(s, 0) / (double)R0, sim_path_goodput(s, 1) / (double)R1);
	assert_true(sim_path_goodput(s, 0) >= 0.9 * (double)R0);
	assert_true(sim_path_goodput(s, 1) >= 0.8 * (double)R1);
	sim_session_free(s);
}

/* Priority with a loss threshold: wifi at 1% loss is left for lte while another
 * path is fine, and taken back after it recovers (hold 1 s). */
static void test_sim_priority_loss_threshold(void **state)
{
	static const char *kv[] = { "loss_threshold", "0.005", "hold_ms", "1000", NULL };
	struct sim_session *s = wifi_lte("priority", MBIT(5), 0, kv);

	sim_session_run_until(s, 2 * SEC);
	sim_path_link(s, 0)->loss = 0.01;
	sim_session_run_until(s, 4 * SEC);
	assert_int_equal(stat(s, "breached", 0), 1);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 6 * SEC);
	print_message("priority, wifi 1%% loss: wifi %llu pkts, lte %llu\n",
		      (unsigned long long)handed(s, 0), (unsigned long long)handed(s, 1));
	assert_true(handed(s, 0) <= handed(s, 1) / 100);	/* the window's probes */
	sim_session_free(s);
}

/*
 * Redundant: every packet of a 200 kbit/s flow goes on both paths; each path's
 * recovery sees every copy acknowledged and none lost (the copy on the slower path is
 * a packet of its own, not a loss); with wifi losing 1% every packet still arrives
 * on at least one path.
 */
static void test_sim_redundant(void **state)
{
	struct sim_session *s = wifi_lte("redundant", 25000, 160, NULL);
	uint64_t gen;

	sim_session_run_until(s, 1 * SEC);
	sim_session_reset_stats(s);
	gen = sim_session_generated(s);
	sim_session_run_until(s, 5 * SEC);
	gen = sim_session_generated(s) - gen;
	for (unsigned i = 0; i < 2; i++) {
		const struct sim_path_stats *st = sim_path_stats(s, i);

		assert_true(st->handed_pkts + 2 >= gen && st->handed_pkts <= gen + 2);
		assert_int_equal(st->lost_pkts, 0);
		assert_true(st->acked_pkts + 10 >= st->sent_pkts);
	}
	assert_true(stat(s, "copied", 0) >= 0.99 * (double)gen);
	sim_path_link(s, 0)->loss = 0.01;
	sim_session_reset_stats(s);
	sim_session_run_until(s, 15 * SEC);
	print_message("redundant, wifi 1%% loss: wifi lost %llu of %llu, lte lost %llu\n",
		      (unsigned long long)sim_path_stats(s, 0)->random_drops,
		      (unsigned long long)sim_path_stats(s, 0)->sent_pkts,
		      (unsigned long long)sim_path_stats(s, 1)->random_drops);
	assert_true(sim_path_stats(s, 0)->random_drops > 0);
	assert_int_equal(sim_path_stats(s, 1)->random_drops, 0);
	assert_int_equal(sim_path_stats(s, 1)->queue_drops, 0);
	sim_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_active_standby),
		cmocka_unit_test(test_sim_smallest_delay),
		cmocka_unit_test(test_sim_load_balance_fixed),
		cmocka_unit_test(test_sim_load_balance_autonomous),
		cmocka_unit_test(test_sim_priority),
		cmocka_unit_test(test_sim_priority_loss_threshold),
		cmocka_unit_test(test_sim_redundant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
