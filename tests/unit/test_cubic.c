// SPDX-License-Identifier: MIT
/*
 * CUBIC (RFC 9438) on the simulated link (tests/unit/support/simlink.h):
 *
 *   sender [CUBIC + recovery] --rate, one-way delay, FIFO of one BDP--> receiver
 *          <----------------------- ACKs, same delay -------------------
 *
 * Every bound derives from the link (rate, RTT, BDP, mss) and the module's tunables
 * read back from its parameter table: C, beta, alpha_cubic = 3 (1 - beta) / (1 + beta).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/cc.h>

#include "simlink.h"

#define MS MPT_NSEC_PER_MSEC
#define SEC MPT_NSEC_PER_SEC
#define MSS 1200

static double cubic_param(const char *name)
{
	const struct mpt_cc_ops *ops = mpt_cc_find("cubic");
	const struct mpt_param *p = mpt_param_find(ops->params, ops->nparams, name);
	struct mpt_cc cc;

	assert_non_null(p);
	mpt_cc_prepare(&cc, ops);
	return mpt_param_get(p, cc.priv);
}

static double cubic_stat(const struct mpt_cc *cc, const char *name)
{
	const struct mpt_cc_ops *ops = mpt_cc_find("cubic");

	for (size_t i = 0; i < ops->nstats; i++)
		if (strcmp(ops->stats[i].name, name) == 0)
			return mpt_stat_read(&ops->stats[i], cc->priv, 0);
	fail_msg("no stat %s", name);
	return 0;
}

/* W_cubic(t) of RFC 9438 eq. 1 from the controller's published W_max and K. */
static double w_cubic(const struct mpt_cc *cc, double t)
{
	double d = t - cubic_stat(cc, "k");

	return cubic_param("c") * d * d * d + cubic_stat(cc, "w_max");
}

struct link {
	uint64_t rate;		/* bytes/s */
	uint64_t owd;		/* one-way delay, ns */
	double loss;
};

static uint64_t rtt_of(const struct link *l)
{
	return 2 * l->owd;
}

static uint64_t bdp_of(const struct link *l)
{
	return l->rate * rtt_of(l) / SEC;
}

/* What the per-event hook records. */
struct trace {
	double beta;
	bool no_curve;			/* skip the W_cubic comparison */
	uint64_t last_cwnd, last_events;
	unsigned decreases;		/* congestion events checked */
	unsigned ca_samples;		/* cwnd samples compared with W_cubic */
	double worst_dev;		/* largest |cwnd - W_cubic(t)| in segments */
	uint64_t next_sample_ns;
};

static void hook(struct sim_session *s, void *arg)
{
	struct trace *t = arg;
	struct mpt_cc *cc = sim_path_cc(s, 0);
	uint64_t events = (uint64_t)cubic_stat(cc, "congestion_events");
	uint64_t now = sim_now(s), epoch = (uint64_t)cubic_stat(cc, "epoch_start_ns");
	unsigned region = (unsigned)cubic_stat(cc, "region");

	if (events != t->last_events) {
		/* RFC 9438 4.6: exactly beta x the window just before the event */
		assert_int_equal(events, t->last_events + 1);
		assert_int_equal(cc->cwnd, (uint64_t)(t->beta * (double)t->last_cwnd));
		assert_int_equal(cc->state, MPT_CC_RECOVERY);
		t->decreases++;
	}
	/* in the concave and convex regions cwnd follows W_cubic (4.2): it chases
	 * W_cubic(t + srtt) by (target - cwnd) / cwnd per acked segment, so it lies
	 * between W_cubic one smoothed RTT earlier and later (one segment of rounding) */
	if (!t->no_curve && epoch && now >= t->next_sample_ns && (region == 2 || region == 3) &&
	    cc->state == MPT_CC_AVOIDANCE) {
		double tt = (double)(now - epoch) / 1e9;
		double srtt = (double)sim_path_recovery(s, 0)->srtt_ns / 1e9;
		double w = (double)cc->cwnd / MSS, want = w_cubic(cc, tt);
		double lo = w_cubic(cc, tt - srtt) - 1, hi = w_cubic(cc, tt + srtt) + 1;

		if (w < lo || w > hi)
			fail_msg("t=%.3f s: cwnd %.1f segments outside W_cubic [%.1f, %.1f]",
				 tt, w, lo, hi);
		t->worst_dev = MPT_MAX(t->worst_dev, fabs(w - want));
		t->ca_samples++;
		t->next_sample_ns = now + 10 * MS;
	}
	t->last_cwnd = cc->cwnd;
	t->last_events = events;
}

static struct sim_session *cubic_session(const struct link *l, struct trace *t,
					 uint64_t seed)
{
	struct sim_session_cfg cfg = {
		.npaths = 1, .sched = "rr", .seed = seed,
		.hook = t ? hook : NULL, .hook_arg = t,
	};
	struct sim_session *s;

	cfg.paths[0] = (struct sim_path_cfg){
		.name = "cubic", .cc = "cubic", .mss = MSS,
		.link = { .rate = l->rate, .delay_ns = l->owd, .queue_bytes = bdp_of(l),
			  .loss = l->loss },
	};
	if (t) {
		memset(t, 0, sizeof(*t));
		t->beta = cubic_param("beta");
	}
	s = sim_session_new(&cfg);
	assert_non_null(s);
	return s;
}

/*
 * 50 Mbit/s, 32 ms, FIFO of one BDP: after slow start the sawtooth never drains the
 * queue (beta x (BDP + buffer) = 1.4 BDP > BDP), so the link stays busy: >= 90% of
 * the rate from 3 s to 13 s. Every decrease is exactly beta, at most one per round
 * trip, and the window follows W_cubic in between.
 */
static void test_cubic_fills_bdp_buffer(void **state)
{
	const struct link l = { .rate = 50000000 / 8, .owd = 16 * MS };
	struct trace t;
	struct sim_session *s = cubic_session(&l, &t, 1);
	struct mpt_cc *cc = sim_path_cc(s, 0);
	uint64_t run = 13 * SEC, settle = 3 * SEC;
	double goodput, cubic_acks, reno_acks;

	sim_session_run_until(s, settle);
	sim_session_reset_stats(s);
	sim_session_run_until(s, run);
	goodput = sim_path_goodput(s, 0);
	cubic_acks = cubic_stat(cc, "cubic_acks");
	reno_acks = cubic_stat(cc, "reno_acks");
	printf("cubic 50M/32ms/1BDP: goodput %.1f%% of rate, %u decreases, %u W_cubic "
	       "samples (worst |cwnd - W_cubic(t)| %.1f seg), cubic/reno acks %.0f/%.0f, "
	       "hystart exits %.0f, btlbw %.1f%% of rate\n",
	       100.0 * goodput / (double)l.rate, t.decreases, t.ca_samples, t.worst_dev,
	       cubic_acks, reno_acks, cubic_stat(cc, "hystart_exits"),
	       100.0 * (double)cc->btlbw / (double)l.rate);
	assert_true(goodput >= 0.9 * (double)l.rate);
	assert_true(goodput <= (double)l.rate);
	/* a congestion event at most once per round trip */
	assert_true(t.decreases >= 1);
	assert_true(t.decreases <= run / rtt_of(&l));
	assert_true(t.ca_samples > 100);
	/* a long-RTT, large-BDP path: the cubic regions dominate (RFC 9438 4.4, 4.5) */
	assert_true(cubic_acks > reno_acks);
	/* the scheduler view: the delivery-rate max is the link rate */
	assert_true(cc->btlbw >= 0.9 * (double)l.rate && cc->btlbw <= 1.1 * (double)l.rate);
	assert_true(cc->min_rtt_ns >= rtt_of(&l) && cc->min_rtt_ns < rtt_of(&l) + 2 * MS);
	/* paced at ca_ratio x cwnd / srtt in avoidance */
	assert_true(cc->pacing_rate > 0);
	sim_session_free(s);
}

/*
 * A short-RTT, small-BDP path (20 Mbit/s, 4 ms, BDP ~8 packets): W_est grows by
 * alpha_cubic per RTT, about alpha / RTT = 130 segments/s, while W_cubic needs K =
 * cbrt(W_max (1 - beta) / C) seconds to regain W_max; the next loss comes long before,
 * so the Reno-friendly region (4.3) sets the window on most ACKs.
 */
static void test_cubic_reno_friendly_short_rtt(void **state)
{
	const struct link l = { .rate = 20000000 / 8, .owd = 2 * MS };
	struct trace t;
	struct sim_session *s = cubic_session(&l, &t, 2);
	struct mpt_cc *cc = sim_path_cc(s, 0);
	double beta = cubic_param("beta"), c = cubic_param("c");
	double alpha = 3 * (1 - beta) / (1 + beta);
	double w_loss = 2.0 * (double)bdp_of(&l) / MSS;	/* BDP + buffer */
	double k = cbrt(w_loss * (1 - beta) / c);
	double reno_period = w_loss * (1 - beta) / alpha * (double)rtt_of(&l) / 1e9;
	double cubic_acks, reno_acks;

	sim_session_run_until(s, 1 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 6 * SEC);
	cubic_acks = cubic_stat(cc, "cubic_acks");
	reno_acks = cubic_stat(cc, "reno_acks");
	printf("cubic 20M/4ms/1BDP: K %.2f s vs Reno period %.3f s, reno/cubic acks "
	       "%.0f/%.0f, goodput %.1f%% of rate, %u decreases\n", k, reno_period,
	       reno_acks, cubic_acks, 100.0 * sim_path_goodput(s, 0) / (double)l.rate,
	       t.decreases);
	assert_true(reno_period < k);
	assert_true(reno_acks > cubic_acks);
	assert_true(t.decreases > 0);
	assert_true(sim_path_goodput(s, 0) >= 0.9 * (double)l.rate);
	sim_session_free(s);
}

/*
 * 1% random loss on the 50 Mbit/s, 32 ms path: the window is far below the BDP, so
 * the throughput is set by the response function. The Reno-friendly region keeps it
 * at least at AIMD(alpha_cubic, beta)'s, W = sqrt(alpha (1 + beta) / (2 (1 - beta) p))
 * segments per RTT (RFC 9438 5.2; = sqrt(3 / 2p), Reno's), whatever C does.
 */
static void test_cubic_random_loss(void **state)
{
	const struct link l = { .rate = 50000000 / 8, .owd = 16 * MS, .loss = 0.01 };
	struct sim_session *s = cubic_session(&l, NULL, 3);
	struct mpt_cc *cc = sim_path_cc(s, 0);
	double beta = cubic_param("beta");
	double alpha = 3 * (1 - beta) / (1 + beta);
	double w_aimd = sqrt(alpha * (1 + beta) / (2 * (1 - beta) * l.loss));
	double predicted = w_aimd * MSS * 1e9 / (double)rtt_of(&l), goodput;

	sim_session_run_until(s, 2 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 22 * SEC);
	goodput = sim_path_goodput(s, 0);
	printf("cubic 50M/32ms 1%% loss: goodput %.0f B/s = %.2f x the AIMD estimate "
	       "%.0f B/s (W %.1f seg); reno/cubic acks %.0f/%.0f\n", goodput,
	       goodput / predicted, predicted, w_aimd, cubic_stat(cc, "reno_acks"),
	       cubic_stat(cc, "cubic_acks"));
	assert_true(goodput >= predicted);
	assert_true(goodput < (double)l.rate);
	sim_session_free(s);
}

/*
 * Driven directly: a loss in avoidance cuts exactly to beta x cwnd, sets W_max (fast
 * convergence when below the previous W_max) and K by eq. 2; further losses before a
 * packet sent after the event is acknowledged change nothing.
 */
static void test_cubic_decrease_once_per_rtt(void **state)
{
	const struct mpt_cc_ops *ops = mpt_cc_find("cubic");
	double beta = cubic_param("beta"), c = cubic_param("c");
	struct mpt_cc cc;
	struct mpt_cc_path p = { .mss = MSS, .srtt_ns = 32 * MS, .min_rtt_ns = 32 * MS };
	uint64_t now = 1 * SEC, before, after;
	struct mpt_rate_sample rs = { .acked_bytes = MSS, .rtt_ns = 32 * MS };

	mpt_cc_prepare(&cc, ops);
	ops->init(&cc, &p, NULL, now);
	assert_int_equal(cc.cwnd, (uint64_t)cubic_param("init_cwnd_pkts") * MSS);
	assert_int_equal(cc.state, MPT_CC_SLOW_START);
	/* slow start: one segment per segment acked */
	for (int i = 0; i < 90; i++) {
		rs.prior_delivered = p.delivered;
		p.delivered += MSS;
		ops->on_ack(&cc, &p, &rs, now += MS);
	}
	assert_int_equal(cc.cwnd, 100 * MSS);
	/* slow start paces at ss_ratio x cwnd / srtt */
	assert_int_equal(cc.pacing_rate,
			 (uint64_t)(cubic_param("ss_ratio") * 100 * MSS * 1e9 / (32 * MS)));

	before = cc.cwnd;
	p.in_flight = before;
	ops->on_loss(&cc, &p, MSS, now);
	after = cc.cwnd;
	assert_int_equal(after, (uint64_t)(beta * (double)before));
	assert_int_equal(cc.state, MPT_CC_RECOVERY);
	assert_true(cubic_stat(&cc, "w_max") == 100);
	/* more losses and ACKs of packets sent before the event: no change */
	ops->on_loss(&cc, &p, 5 * MSS, now + MS);
	rs.prior_delivered = p.delivered - MSS;
	ops->on_ack(&cc, &p, &rs, now + 2 * MS);
	assert_int_equal(cc.cwnd, after);
	assert_int_equal(cubic_stat(&cc, "congestion_events"), 1);
	/* an ACK of a packet sent after the event: avoidance, K from eq. 2 */
	rs.prior_delivered = p.delivered + MSS;
	p.delivered += 2 * MSS;
	ops->on_ack(&cc, &p, &rs, now + 40 * MS);
	assert_int_equal(cc.state, MPT_CC_AVOIDANCE);
	assert_true(fabs(cubic_stat(&cc, "k") - cbrt(100 * (1 - beta) / c)) < 1e-9);
	/* a second event below W_max: fast convergence, W_max = cwnd (1 + beta) / 2 */
	before = cc.cwnd;
	ops->on_loss(&cc, &p, MSS, now + 50 * MS);
	assert_int_equal(cc.cwnd, (uint64_t)(beta * (double)before));
	assert_true(fabs(cubic_stat(&cc, "w_max") -
			 (double)before / MSS * (1 + beta) / 2) < 1e-9);
	/* never below the floor */
	for (int i = 0; i < 40; i++) {
		rs.prior_delivered = p.delivered + 1;
		p.delivered += MSS;
		ops->on_ack(&cc, &p, &rs, now += 40 * MS);
		ops->on_loss(&cc, &p, MSS, now);
	}
	assert_int_equal(cc.cwnd, (uint64_t)cubic_param("min_cwnd_pkts") * MSS);
}

/*
 * HyStart++ driven directly, one ACK per segment, rounds by delivered marks: slow
 * start doubles per round at 32 ms; when the round's minimum RTT is 5 ms higher
 * (above max(MIN_RTT_THRESH, min(32 ms / MIN_RTT_DIVISOR, MAX_RTT_THRESH)) = 4 ms),
 * Conservative Slow Start grows by 1 / CSS_GROWTH_DIVISOR per round for CSS_ROUNDS
 * rounds, then avoidance starts with ssthresh = W_max = cwnd and K = 0 (RFC 9406 4.2,
 * RFC 9438 4.10).
 */
static void test_cubic_hystart(void **state)
{
	const struct mpt_cc_ops *ops = mpt_cc_find("cubic");
	unsigned css_rounds = (unsigned)cubic_param("hs_css_rounds");
	double div = cubic_param("hs_css_growth_divisor");
	uint64_t thresh = (uint64_t)cubic_param("hs_min_rtt_thresh_us") * MPT_NSEC_PER_USEC;
	struct mpt_cc cc;
	struct mpt_cc_path p = { .mss = MSS, .srtt_ns = 32 * MS, .min_rtt_ns = 32 * MS };
	uint64_t now = SEC, mark = 0;
	const unsigned ss_rounds = 5;
	unsigned round;

	mpt_cc_prepare(&cc, ops);
	ops->init(&cc, &p, NULL, now);
	for (round = 0; round < ss_rounds + 2 + css_rounds + 2; round++) {
		uint64_t rtt = round < ss_rounds ? 32 * MS : 32 * MS + thresh + MS;
		uint64_t n = cc.cwnd / MSS, start = cc.cwnd, next_mark = 0;

		for (uint64_t i = 0; i < n; i++) {
			struct mpt_rate_sample rs = {
				.acked_bytes = MSS, .rtt_ns = rtt, .prior_delivered = mark,
			};

			p.delivered += MSS;
			ops->on_ack(&cc, &p, &rs, now += rtt / n);
			if (i == 0)
				next_mark = p.delivered;
			if (cc.state == MPT_CC_AVOIDANCE)
				break;
		}
		mark = next_mark;
		if (cc.state == MPT_CC_AVOIDANCE)
			break;
		if (round < ss_rounds)		/* slow start: doubles */
			assert_int_equal(cc.cwnd, 2 * start);
		if (round == ss_rounds)
			assert_int_equal(cubic_stat(&cc, "hystart_exits"), 1);
		if (round > ss_rounds && cc.state == MPT_CC_SLOW_START)	/* CSS */
			assert_true(fabs((double)cc.cwnd - ((double)start + n * MSS / div)) <= 1);
	}
	assert_int_equal(cc.state, MPT_CC_AVOIDANCE);
	/* entered at the first ACK of the css_rounds-th round after the one that
	 * entered CSS */
	assert_int_equal(round, ss_rounds + css_rounds);
	assert_true(cubic_stat(&cc, "k") == 0);
	assert_true(cubic_stat(&cc, "w_max") == (double)cc.cwnd / MSS);
	assert_true(cubic_stat(&cc, "cwnd_epoch") == (double)cc.cwnd / MSS);
	assert_int_equal(cubic_stat(&cc, "ssthresh"), cc.cwnd);
	assert_int_equal(cubic_stat(&cc, "congestion_events"), 0);
}

/*
 * Two paths under wrr, which weights by each path's btlbw when every path has one:
 * cubic's delivery-rate maximum gives it, each estimate near its link's rate, and
 * the session uses 90% of the sum of the rates.
 */
static void test_cubic_btlbw_feeds_wrr(void **state)
{
	const struct link l[2] = {
		{ .rate = 30000000 / 8, .owd = 10 * MS },
		{ .rate = 10000000 / 8, .owd = 25 * MS },
	};
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "wrr", .seed = 5 };
	struct sim_session *s;
	double total = 0, sum = 0;

	for (unsigned i = 0; i < 2; i++)
		cfg.paths[i] = (struct sim_path_cfg){
			.cc = "cubic", .mss = MSS,
			.link = { .rate = l[i].rate, .delay_ns = l[i].owd,
				  .queue_bytes = bdp_of(&l[i]) },
		};
	s = sim_session_new(&cfg);
	assert_non_null(s);
	sim_session_run_until(s, 3 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 13 * SEC);
	for (unsigned i = 0; i < 2; i++) {
		const struct sim_path_stats *st = sim_path_stats(s, i);
		struct mpt_cc *cc = sim_path_cc(s, i);

		printf("cubic+wrr path %u: goodput %.1f%% of its rate, btlbw %.1f%%, "
		       "%llu lost\n", i, 100.0 * sim_path_goodput(s, i) / (double)l[i].rate,
		       100.0 * (double)cc->btlbw / (double)l[i].rate,
		       (unsigned long long)st->lost_pkts);
		assert_true(cc->btlbw >= 0.9 * (double)l[i].rate);
		assert_true(cc->btlbw <= 1.1 * (double)l[i].rate);
		total += sim_path_goodput(s, i);
		sum += (double)l[i].rate;
	}
	assert_true(total >= 0.9 * sum);
	sim_session_free(s);
}

/*
 * Run-time tunables (mptund-ctl set cc.NAME goes through mpt_param_parse and
 * params_changed, as here): a new C re-derives K of the running epoch (eq. 2), a new
 * beta applies to the next decrease, out-of-range values are refused with a quote.
 */
static void test_cubic_set_params(void **state)
{
	const struct link l = { .rate = 50000000 / 8, .owd = 16 * MS };
	struct trace t;
	struct sim_session *s = cubic_session(&l, &t, 4);
	struct mpt_cc *cc = sim_path_cc(s, 0);
	double w_max, epoch_w;

	t.no_curve = true;	/* a new C moves the curve under the window */
	sim_session_run_until(s, 2 * SEC);
	assert_int_equal(cc->state, MPT_CC_AVOIDANCE);
	w_max = cubic_stat(cc, "w_max");
	epoch_w = cubic_stat(cc, "cwnd_epoch");
	assert_true(w_max > epoch_w);
	assert_int_equal(sim_session_set_param(s, 0, "c", "0.8"), 0);
	assert_true(fabs(cubic_stat(cc, "k") - cbrt((w_max - epoch_w) / 0.8)) < 1e-9);
	assert_int_equal(sim_session_set_param(s, 0, "beta", "0.5"), 0);
	t.beta = 0.5;	/* the hook now checks every decrease against 0.5 */
	sim_session_run_until(s, 10 * SEC);
	assert_true(cubic_stat(cc, "congestion_events") > 2);
	assert_true(t.decreases > 0);
	assert_int_equal(sim_session_set_param(s, 0, "beta", "1.5"), -ERANGE);
	assert_int_equal(sim_session_set_param(s, 0, "nonsense", "1"), -ENOENT);
	sim_session_free(s);
}

/* Parameters: every constant a tunable with a cited help line; the registry has it. */
static void test_cubic_params(void **state)
{
	const struct mpt_cc_ops *ops = mpt_cc_find("cubic");
	char err[128];

	assert_non_null(ops);
	assert_int_equal(mpt_cc_registry_check(err, sizeof(err)), 0);
	assert_true(cubic_param("c") == 0.4);
	assert_true(cubic_param("beta") == 0.7);
	assert_true(cubic_param("hystart") == 1);
	for (size_t i = 0; i < ops->nparams; i++)
		assert_true(strstr(ops->params[i].help, "RFC") ||
			    strstr(ops->params[i].help, "Linux") ||
			    strstr(ops->params[i].help, "draft"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cubic_params),
		cmocka_unit_test(test_cubic_decrease_once_per_rtt),
		cmocka_unit_test(test_cubic_hystart),
		cmocka_unit_test(test_cubic_fills_bdp_buffer),
		cmocka_unit_test(test_cubic_reno_friendly_short_rtt),
		cmocka_unit_test(test_cubic_random_loss),
		cmocka_unit_test(test_cubic_btlbw_feeds_wrr),
		cmocka_unit_test(test_cubic_set_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
