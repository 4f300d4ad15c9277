// SPDX-License-Identifier: MIT
/*
 * The cheapest-path family, minRTT and WRR on the simulated link
 * (tests/unit/support/simlink.h): real BBR per path, real scheduler, virtual time.
 *
 *   source --> [sched queue] --> sched --+--> p0 (cost 1): R0, OWD0 --+--> receiver
 *   (rate or greedy)                     +--> p1 (cost 2): R1, OWD1 --+
 *
 * Every bound derives from the configured link rates and delays. Bottleneck buffers
 * are 2 BDP (ACPF paper 5.1: "large enough to not overflow from BBR", whose cwnd is
 * 2 BDP). Shares are of the packets the scheduler handed to each path.
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

static struct sim_path_cfg path(const char *name, uint64_t rate, uint64_t owd_ns,
				uint32_t cost)
{
	/* 2 BDP of the round trip (both directions have owd) */
	uint64_t bdp = (uint64_t)((double)rate * 2 * (double)owd_ns / SEC);

	return (struct sim_path_cfg){ .name = name, .cc = "bbr", .cost = cost,
		.link = { .rate = rate, .delay_ns = owd_ns, .queue_bytes = 2 * bdp } };
}

static struct sim_session_cfg two(const char *sched, uint64_t r0, uint64_t owd0,
				  uint64_t r1, uint64_t owd1, uint64_t source_rate)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = sched, .seed = 7,
				       .source_rate = source_rate };

	cfg.paths[0] = path("p0", r0, owd0, 1);
	cfg.paths[1] = path("p1", r1, owd1, 2);
	return cfg;
}

/* Share of the packets handed to path i since the last stats reset. */
static double share(const struct sim_session *s, unsigned i)
{
	uint64_t tot = 0;

	for (unsigned k = 0; k < 2; k++)
		tot += sim_path_stats(s, k)->handed_pkts;
	return tot ? (double)sim_path_stats(s, i)->handed_pkts / (double)tot : 0;
}

static double goodput(const struct sim_session *s)
{
	return sim_path_goodput(s, 0) + sim_path_goodput(s, 1);
}

static double sched_stat(struct sim_session *s, const char *name, unsigned path)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	for (size_t k = 0; k < ops->nstats; k++)
		if (!strcmp(ops->stats[k].name, name))
			return mpt_stat_read(&ops->stats[k], sim_session_sched_priv(s), path);
	fail_msg("scheduler %s has no stat '%s'", ops->name, name);
	return 0;
}

/* ---- CPF ---- */

static const uint64_t CPF_OWD = 10 * MS;

/* Time path 0's BBR spends in ProbeRTT (sampled every ms) and its episodes. */
struct probe_trace {
	uint64_t probe_ns;
	unsigned episodes;
	bool in;
};

static void trace_probe(struct sim_session *s, void *arg)
{
	struct probe_trace *tr = arg;
	bool in = sim_session_views(s)[0].cc_state == MPT_CC_PROBE_RTT;

	if (in)
		tr->probe_ns += MS;
	if (in && !tr->in)
		tr->episodes++;
	tr->in = in;
}

/*
 * Offered load stepped up through R0 (rate source). While it fits in p0, CPF gives
 * p1 only what arrives while p0's BBR sits in ProbeRTT (cwnd = 4 packets, every
 * 10 s for 200 ms) or regrows from it (allow 2 RTT per episode); anything more would
 * be CPF overflowing a path that still has room. Once the offered load exceeds R0,
 * p0 is saturated and p1 carries the excess.
 */
static void test_cpf_fills_cheapest_first(void **state)
{
	uint64_t r = MBIT(20), rtt = 2 * CPF_OWD;
	const double steps[] = { 0.5, 0.9, 1.3 };
	struct probe_trace tr = { 0 };
	struct sim_session_cfg cfg = two("cpf", r, CPF_OWD, r, CPF_OWD, r / 2);
	struct sim_session *s;
	uint64_t t = 1 * SEC;

	cfg.hook = trace_probe;
	cfg.hook_arg = &tr;
	cfg.hook_interval_ns = 1 * MS;
	s = sim_session_new(&cfg);
	sim_session_run_until(s, t);
	print_message("cpf @0.5 R0, startup: p1 got %llu of %llu pkts in the first second\n",
		      (unsigned long long)sim_path_stats(s, 1)->handed_pkts,
		      (unsigned long long)sim_session_generated(s));
	for (unsigned k = 0; k < MPT_ARRAY_SIZE(steps); k++) {
		uint64_t offered = (uint64_t)(steps[k] * (double)r);
		double allow;

		assert_int_equal(sim_session_set_source_rate(s, offered), 0);
		if (k)
			sim_session_run_until(s, t += 1 * SEC);	/* settle */
		sim_session_reset_stats(s);
		tr = (struct probe_trace){ .in = tr.in };
		sim_session_run_until(s, t += 12 * SEC);
		allow = (double)offered * ((double)tr.probe_ns + tr.episodes * 2.0 * rtt) / SEC;
		print_message("cpf offered %.1f R0: p0 %.3f R0, p1 %.3f R0 (share %.4f, "
			      "%llu B; ProbeRTT %u x, %.0f ms, allowance %.0f B)\n", steps[k],
			      sim_path_goodput(s, 0) / (double)r,
			      sim_path_goodput(s, 1) / (double)r, share(s, 1),
			      (unsigned long long)sim_path_stats(s, 1)->handed_bytes,
			      tr.episodes, (double)tr.probe_ns / MS, allow);
		assert_true(goodput(s) >= 0.97 * (double)offered);
		if (steps[k] < 1) {
			assert_true(sim_path_stats(s, 1)->handed_bytes <= allow);
		} else {
			assert_true(sim_path_goodput(s, 0) >= 0.9 * (double)r);
			assert_true(sim_path_goodput(s, 1) >= 0.9 * (double)(offered - r));
		}
	}
	sim_session_free(s);
}

static void test_cpf_greedy_saturates_cheapest(void **state)
{
	uint64_t r0 = MBIT(20), r1 = MBIT(30);
	struct sim_session_cfg cfg = two("cpf", r0, CPF_OWD, r1, CPF_OWD, 0);
	struct sim_session *s = sim_session_new(&cfg);

	sim_session_run_until(s, 1 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 11 * SEC);
	print_message("cpf greedy: p0 %.3f R0, p1 %.3f R1, p0 queue mean %.2f BDP\n",
		      sim_path_goodput(s, 0) / (double)r0, sim_path_goodput(s, 1) / (double)r1,
		      sim_path_queue_mean(s, 0) / ((double)r0 * 2 * CPF_OWD / SEC));
	assert_true(sim_path_goodput(s, 0) >= 0.9 * (double)r0);
	assert_true(goodput(s) >= 0.9 * (double)(r0 + r1));
	sim_session_free(s);
}

/* ---- ACPF, user-space setup of the ACPF paper, 5.1 ---- */

static const uint64_t ACPF_OWD0 = 16 * MS, ACPF_OWD1 = 26 * MS;

struct frac_trace {
	double first_max_t, min_seen, max_seen;
	double max_frac;
};

static void trace_frac(struct sim_session *s, void *arg)
{
	struct frac_trace *tr = arg;
	double f = sched_stat(s, "cw_frac", 0);

	if (f < tr->min_seen)
		tr->min_seen = f;
	if (f > tr->max_seen)
		tr->max_seen = f;
	if (tr->first_max_t < 0 && f >= tr->max_frac)
		tr->first_max_t = (double)sim_now(s) / SEC;
}

static double acpf_param(struct sim_session *s, const char *name)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	return mpt_param_get(mpt_param_find(ops->params, ops->nparams, name),
			     sim_session_sched_priv(s));
}

/* Seconds from MIN_FRAC to MAX_FRAC under a queue of q packets held above the
 * threshold, by Fig. 2c: inc = RAW_INC / C2 * MIN(q / THRESHOLD, ++CONSEC / C1)^2 a
 * tick. (The paper's "530 ms from min to max" is this with MIN(...) = 1.) */
static double acpf_rise_s(struct sim_session *s, double q)
{
	double step = acpf_param(s, "raw_inc") / acpf_param(s, "c2");
	double qsf = q / acpf_param(s, "queue_threshold"), c1 = acpf_param(s, "c1");
	double f = acpf_param(s, "min_frac"), max = acpf_param(s, "max_frac");
	unsigned ticks = 0;

	while (f < max) {
		double m = fmin(qsf, ++ticks / c1);

		f += step * m * m;
	}
	return ticks * acpf_param(s, "tick_ns") / SEC;
}

static void test_acpf_greedy_raises_frac_and_aggregates(void **state)
{
	uint64_t r = MBIT(50);
	struct frac_trace tr = { .first_max_t = -1, .min_seen = 2, .max_seen = 0 };
	struct sim_session_cfg cfg = two("acpf", r, ACPF_OWD0, r, ACPF_OWD1, 0);
	struct sim_session *s;
	double rise;

	cfg.hook = trace_frac;
	cfg.hook_arg = &tr;
	cfg.hook_interval_ns = 1 * MS;
	s = sim_session_new(&cfg);
	tr.max_frac = acpf_param(s, "max_frac");
	/* a greedy source keeps the scheduler queue full: queue_pkts packets */
	rise = acpf_rise_s(s, 1000);
	print_message("acpf: min to max in %.3f s with the queue at the threshold + 1, "
		      "%.3f s with it full\n", acpf_rise_s(s, acpf_param(s, "queue_threshold") + 1),
		      rise);
	assert_true(sched_stat(s, "cw_frac", 0) == acpf_param(s, "min_frac"));
	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 12 * SEC);
	print_message("acpf greedy: cw_frac %.3f..%.3f, MAX at %.3f s (bound %.3f s), "
		      "paused %.0f of %.0f steps; goodput %.3f of R0+R1 (p0 %.3f, p1 %.3f)\n",
		      tr.min_seen, tr.max_seen, tr.first_max_t, rise,
		      sched_stat(s, "paused_steps", 0), sched_stat(s, "steps", 0),
		      goodput(s) / (double)(2 * r), sim_path_goodput(s, 0) / (double)r,
		      sim_path_goodput(s, 1) / (double)r);
	/* within the hook's 1 ms sampling and one tick of the model */
	assert_true(tr.first_max_t > 0 && fabs(tr.first_max_t - rise) <= 0.003);
	assert_true(goodput(s) >= 0.9 * (double)(2 * r));
	sim_session_free(s);
}

/* A queue that goes away: overload (cw_frac rises), then 30 % of the capacity (no
 * queue: cw_frac falls back to MIN_FRAC at RAW_INC / C2 a tick). */
static void test_acpf_frac_falls_without_queue(void **state)
{
	uint64_t r = MBIT(50), cap = 2 * r;
	struct frac_trace tr = { .first_max_t = -1, .min_seen = 2, .max_seen = 0 };
	struct sim_session_cfg cfg = two("acpf", r, ACPF_OWD0, r, ACPF_OWD1, cap * 3 / 2);
	struct sim_session *s;
	double min_frac, fall, f;

	s = sim_session_new(&cfg);
	assert_int_equal(sim_session_set_param(s, -1, "arrival", "0"), 0);	/* paper */
	min_frac = acpf_param(s, "min_frac");
	sim_session_run_until(s, 2 * SEC);
	f = sched_stat(s, "cw_frac", 0);
	print_message("acpf overload: cw_frac %.3f after 2 s, queue %u\n", f,
		      sim_session_queue_pkts(s));
	assert_true(f >= acpf_param(s, "max_frac"));
	assert_true(sim_session_queue_pkts(s) > acpf_param(s, "queue_threshold"));

	assert_int_equal(sim_session_set_source_rate(s, cap * 3 / 10), 0);
	fall = (f - min_frac) / (acpf_param(s, "raw_inc") / acpf_param(s, "c2")) *
	       acpf_param(s, "tick_ns") / SEC;
	/* the backlog (<= queue_pkts) drains at >= R0 first */
	fall += 1000.0 * 1200 / (double)r;
	sim_session_run_until(s, 2 * SEC + (uint64_t)(1.2 * fall * SEC));
	f = sched_stat(s, "cw_frac", 0);
	print_message("acpf at 0.3 cap: cw_frac %.3f after %.3f s (bound), queue %u\n", f,
		      1.2 * fall, sim_session_queue_pkts(s));
	assert_true(f == min_frac);
	/* and it stays there */
	(void)tr;
	sim_session_reset_stats(s);
	sim_session_run_until(s, 8 * SEC);
	f = sched_stat(s, "cw_frac", 0);
	print_message("acpf at 0.3 cap: cw_frac %.3f at 8 s, p1 share %.4f\n", f, share(s, 1));
	assert_true(f == min_frac);
	sim_session_free(s);
}

/* Offered load just above p0's capacity: how do CPF and ACPF split it? */
static void run_split(const char *sched, double *sh0, double *rtt0, double *put)
{
	uint64_t r = MBIT(50), offered = r * 11 / 10;
	struct sim_session_cfg cfg = two(sched, r, ACPF_OWD0, r, ACPF_OWD1, offered);
	struct sim_session *s = sim_session_new(&cfg);

	/* the paper's algorithms: arrival awareness keeps CPF's queue as shallow */
	assert_int_equal(sim_session_set_param(s, -1, "arrival", "0"), 0);
	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 12 * SEC);
	*sh0 = share(s, 0);
	*rtt0 = sim_path_rtt_mean_ns(s, 0) / MS;
	*put = goodput(s) / (double)offered;
	print_message("%s @1.1 R0: shares p0 %.4f p1 %.4f, p0 rtt mean %.1f ms "
		      "(prop %.0f), p0 queue mean %.0f B, goodput %.3f of offered\n", sched,
		      *sh0, share(s, 1), *rtt0, 2.0 * ACPF_OWD0 / MS,
		      sim_path_queue_mean(s, 0), *put);
	sim_session_free(s);
}

static void test_cpf_vs_acpf_just_above_primary(void **state)
{
	double c_sh, c_rtt, c_put, a_sh, a_rtt, a_put;

	run_split("cpf", &c_sh, &c_rtt, &c_put);
	run_split("acpf", &a_sh, &a_rtt, &a_put);
	assert_true(c_put >= 0.97 && a_put >= 0.97);
	/* ACPF's point: a shallower primary bottleneck queue than CPF's */
	assert_true(a_rtt < c_rtt);
	/* p0 can carry at most R0 / (1.1 R0) of the packets */
	assert_true(c_sh <= 1 / 1.1 + 0.01 && a_sh <= 1 / 1.1 + 0.01);
}

/* ---- BBR under a scheduler: ProbeRTT must not reset BtlBw ---- */

struct bw_trace {
	uint64_t bw_before, min_bw;
	uint64_t drift_div;		/* one-way delay grows by 1 / this per ns; 0: 10000 */
	bool probed;
};

static void trace_bw(struct sim_session *s, void *arg)
{
	struct bw_trace *tr = arg;
	const struct mpt_path_view *v = sim_session_views(s);

	/* the path lengthens by 0.1 ms per second: no RTT sample equals RTprop again,
	 * so BBR's filter (refreshed on <=) expires and ProbeRTT comes */
	sim_path_link(s, 0)->delay_ns = CPF_OWD + sim_now(s) / (tr->drift_div ? tr->drift_div :
								     10000);
	if (v[0].cc_state == MPT_CC_PROBE_RTT)
		tr->probed = true;
	if (!tr->probed)
		tr->bw_before = v[0].btlbw;
	else if (v[0].btlbw < tr->min_bw)
		tr->min_bw = v[0].btlbw;
}

/*
 * A path loaded at half its rate is app-limited: BBR inserts none of its samples below
 * the max, so after bw_rtts rounds the BtlBw window has expired. ProbeRTT (cwnd 4
 * packets) then must not feed its low rate in as the new BtlBw (draft 4.3.5, tcp_bbr.c
 * bbr_update_min_rtt: "Ignore low rate samples during this mode"). Before that fix
 * BtlBw fell to ~4 packets per RTT, and CPF overflowed to the costly path for seconds
 * while BBR regrew it by up_gain per cycle.
 */
static void test_bbr_btlbw_survives_probe_rtt(void **state)
{
	uint64_t r = MBIT(20);
	struct bw_trace tr = { .min_bw = UINT64_MAX };
	struct sim_session_cfg cfg = { .npaths = 1, .sched = "cpf", .seed = 3,
				       .source_rate = r / 2, .hook = trace_bw,
				       .hook_arg = &tr, .hook_interval_ns = 1 * MS };
	struct sim_session *s;

	cfg.paths[0] = path("p0", r, CPF_OWD, 1);
	s = sim_session_new(&cfg);
	/* this test is about ProbeRTT itself: an app-limited path of a similar RTT would
	 * skip it (test_bbr_probe_rtt_skipped_app_limited) */
	assert_int_equal(sim_session_set_param(s, 0, "probe_rtt_skip_similar", "0"), 0);
	sim_session_run_until(s, 12 * SEC);
	print_message("bbr @0.5 R: BtlBw %.3f R before ProbeRTT, lowest after %.3f R\n",
		      (double)tr.bw_before / (double)r, (double)tr.min_bw / (double)r);
	assert_true(tr.probed);
	/* the first sample after ProbeRTT may open a new window a little lower (as in
	 * Linux), never down to ProbeRTT's rate */
	assert_true((double)tr.min_bw >= 0.5 * (double)tr.bw_before);
	sim_session_free(s);
}

/*
 * An app-limited path whose RTT stays within probe_rtt_skip_similar (12.5%) of RTprop
 skips the due ProbeRTT (QUIC BbrSender probe_rtt_skipped_if_similar_rtt): loaded at
 * half its rate, its RTT drifting 0.1 ms per second of 20 ms (10% at 20 s), no
 * ProbeRTT in 21 s (without the rule: one at ~10 s and ~20 s, each cutting the path to
 * half a BDP). A path that lengthened beyond 12.5% (2.5 ms per second) still probes.
 */
static void test_bbr_probe_rtt_skipped_app_limited(void **state)
{
	uint64_t r = MBIT(20);
	struct sim_session_cfg cfg = { .npaths = 1, .sched = "cpf", .seed = 3,
				       .source_rate = r / 2, .hook = trace_bw,
				       .hook_interval_ns = 1 * MS };
	const struct mpt_cc_ops *ops = mpt_cc_find("bbr");
	const struct mpt_stat *skips = NULL;
	struct bw_trace tr = { .min_bw = UINT64_MAX, .drift_div = 20000 };
	struct sim_session *s;

	for (size_t i = 0; i < ops->nstats; i++)
		if (strcmp(ops->stats[i].name, "probe_rtt_skips") == 0)
			skips = &ops->stats[i];
	assert_non_null(skips);
	cfg.hook_arg = &tr;
	cfg.paths[0] = path("p0", r, CPF_OWD, 1);
	s = sim_session_new(&cfg);
	sim_session_run_until(s, 21 * SEC);
	print_message("app-limited, RTT +0.5%%/s: ProbeRTT %s, %.0f skipped\n",
		      tr.probed ? "entered" : "never",
		      (double)mpt_stat_read(skips, sim_path_cc(s, 0)->priv, 0));
	assert_false(tr.probed);
	assert_true(mpt_stat_read(skips, sim_path_cc(s, 0)->priv, 0) >= 2);
	sim_session_free(s);

	tr = (struct bw_trace){ .min_bw = UINT64_MAX, .drift_div = 800 };
	s = sim_session_new(&cfg);
	sim_session_run_until(s, 12 * SEC);
	print_message("lengthened: ProbeRTT %s, %.0f skipped, min_rtt %.1f ms\n",
		      tr.probed ? "entered" : "never",
		      (double)mpt_stat_read(skips, sim_path_cc(s, 0)->priv, 0),
		      sim_path_cc(s, 0)->min_rtt_ns / 1e6);
	assert_true(tr.probed);				/* lengthened: it probes */
	sim_session_free(s);
}

/* ---- minRTT ---- */

static void test_minrtt_prefers_short_path(void **state)
{
	uint64_t r = MBIT(20), offered = r / 2;
	struct sim_session_cfg cfg = two("minrtt", r, 10 * MS, r, 30 * MS, offered);
	struct sim_session *s = sim_session_new(&cfg);

	sim_session_run_until(s, 10 * SEC);
	print_message("minrtt @0.5 R0: p0 share %.4f (whole run)\n", share(s, 0));
	assert_true(share(s, 0) >= 0.9);
	sim_session_free(s);

	cfg.source_rate = 0;
	s = sim_session_new(&cfg);
	sim_session_run_until(s, 1 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 11 * SEC);
	print_message("minrtt greedy: p0 %.3f R0, p1 %.3f R1, p0 share %.3f\n",
		      sim_path_goodput(s, 0) / (double)r, sim_path_goodput(s, 1) / (double)r,
		      share(s, 0));
	assert_true(sim_path_goodput(s, 0) >= 0.9 * (double)r);
	assert_true(sim_path_goodput(s, 1) >= 0.9 * (double)r);
	sim_session_free(s);
}

/* ---- WRR ---- */

/* Weights 1:3 on equal links, so that following the weights is not the same as
 * following capacity; the offered load is half the sum, so the heavier path needs
 * 3/4 of it = 3/8 of the sum = 75 % of its own link: both paths keep room. */
static void test_wrr_follows_weights(void **state)
{
	uint64_t r = MBIT(50), offered = r;
	struct sim_session_cfg cfg = two("wrr", r, 10 * MS, r, 20 * MS, offered);
	struct sim_session *s;
	const double w0 = 1, w1 = 3, want0 = w0 / (w0 + w1);

	cfg.paths[0].weight = (uint32_t)w0;
	cfg.paths[1].weight = (uint32_t)w1;
	s = sim_session_new(&cfg);
	assert_int_equal(sim_session_set_param(s, -1, "arrival", "0"), 0);	/* paper */
	sim_session_run_until(s, 10 * SEC);
	print_message("wrr 1:3 @0.5 sum: p0 share %.4f (want %.4f), holds %.0f, "
		      "goodput %.3f of offered\n", share(s, 0), want0,
		      sched_stat(s, "holds", 0), goodput(s) / (double)offered);
	assert_true(share(s, 0) >= 0.95 * want0 && share(s, 0) <= 1.05 * want0);
	assert_true(goodput(s) >= 0.97 * (double)offered);
	sim_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpf_fills_cheapest_first),
		cmocka_unit_test(test_cpf_greedy_saturates_cheapest),
		cmocka_unit_test(test_acpf_greedy_raises_frac_and_aggregates),
		cmocka_unit_test(test_acpf_frac_falls_without_queue),
		cmocka_unit_test(test_cpf_vs_acpf_just_above_primary),
		cmocka_unit_test(test_bbr_btlbw_survives_probe_rtt),
		cmocka_unit_test(test_bbr_probe_rtt_skipped_app_limited),
		cmocka_unit_test(test_minrtt_prefers_short_path),
		cmocka_unit_test(test_wrr_follows_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
