// SPDX-License-Identifier: MIT
/*
 * olms, Application II of its paper (VI-C, eq. 8), on synthetic BBR-like path views:
 * paths of 30/10/40/60 Mbit/s and 30/30/40/10 ms, scales 100 Mbit/s and 100 ms, so
 * b = (.3 .1 .4 .6), r = (.3 .3 .4 .1), L = 2. A BBR path's cwnd is cwnd_gain (2) x
 * BDP, so cwnd / srtt (section V) reads 2 x the rate; btlbw reads the rate.
 * Each pick is acknowledged at once on the picked path, as Algorithm 1 measures p_t;
 * choice = random, as VI-C.
 *
 * Why bwcap wants bw_source = btlbw: with cwnd the measured b = (.6 .2 .8 1); the two
 * smallest already sum to 0.8, twice any C_b below that, so eq. (8) is infeasible for
 * every Thompson sample and OLMS is minRTT: every packet on path 4 (b .6 > C_b).
 *
 * The paper's own C_b = 0.4 equals b_1 + b_2, the two smallest: the feasible set of
 * eq. (9) is the single point v* = (1, 1, 0, 0). Thompson samples around the true b
 * land on the infeasible side about half the time even once learnt, and each
 * infeasible decision feeds minRTT's path 4, not paths 1-2: the scheduler as
 * specified cannot hold that C_b with any unbiased b (test_app2_boundary). With some
 * headroom, C_b = 45 Mbit/s, btlbw works as the paper intends (test_app2_headroom).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "olms_lp.h"
#include "schedtest.h"

#define K 4
#define CWND_GAIN 2.0		/* BBR's cwnd = cwnd_gain x BDP (BBR draft 4.6.4.2) */

static _Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
static const double MBIT[K] = { 30, 10, 40, 60 }, MS[K] = { 30, 30, 40, 10 };

static void views(struct mpt_path_view *v)
{
	memset(v, 0, K * sizeof(*v));
	for (unsigned i = 0; i < K; i++) {
		double rate = MBIT[i] * 125000;	/* bytes/s */

		v[i].id = (uint8_t)i;
		v[i].up = true;
		v[i].srtt_ns = (uint64_t)(MS[i] * MPT_NSEC_PER_MSEC);
		v[i].cwnd = (uint64_t)(CWND_GAIN * rate * MS[i] / 1000);
		v[i].btlbw = (uint64_t)rate;
	}
}

static const struct mpt_sched_ops *setup(const char *src, const char *c_b,
					 struct mpt_sched_ctx *ctx, double *b, double *r,
					 double *cb)
{
	/* VI-C picks uniformly from the rounded set of L = 2 */
	const char *kv[] = { "app", "bwcap", "choice", "random", "bw_source", src,
			     "c_b_mbit", c_b, NULL };
	const struct mpt_sched_ops *ops = schedtest_setup_paper("olms", priv, kv, ctx);
	const struct mpt_param *ps;
	double bws, rts;

	assert_non_null(ops);
	ps = ops->params;
	bws = mpt_param_get(mpt_param_find(ps, ops->nparams, "bw_scale_mbit"), priv);
	rts = mpt_param_get(mpt_param_find(ps, ops->nparams, "rtt_scale_ms"), priv);
	*cb = mpt_param_get(mpt_param_find(ps, ops->nparams, "c_b_mbit"), priv) / bws;
	for (unsigned i = 0; i < K; i++) {
		b[i] = MBIT[i] / bws;
		r[i] = MS[i] / rts;
	}
	return ops;
}

static double stat(const struct mpt_sched_ops *ops, const char *name, unsigned i)
{
	double x = schedtest_stat(ops, priv, name, i);

	assert_false(isnan(x));
	return x;
}

struct counts {
	double picks[K], in_set[K], infeasible;
};

static void snap(const struct mpt_sched_ops *ops, struct counts *c)
{
	for (unsigned i = 0; i < K; i++) {
		c->picks[i] = stat(ops, "picks", i);
		c->in_set[i] = stat(ops, "in_set", i);
	}
	c->infeasible = stat(ops, "infeasible", 0);
}

/* n decisions, each acknowledged on its path; per-decision shares of the run in d */
static void run(const struct mpt_sched_ops *ops, struct mpt_sched_ctx *ctx, unsigned n,
		struct counts *d)
{
	struct mpt_pkt_meta pkt = { .len = 1500 };
	struct counts a, z;

	snap(ops, &a);
	for (unsigned t = 0; t < n; t++) {
		uint32_t m = ops->pick(priv, ctx, &pkt);

		assert_int_equal(__builtin_popcount(m), 1);
		ctx->now += 100 * MPT_NSEC_PER_USEC;
		ops->on_ack(priv, ctx, (unsigned)__builtin_ctz(m), pkt.len);
	}
	snap(ops, &z);
	for (unsigned i = 0; i < K; i++) {
		d->picks[i] = (z.picks[i] - a.picks[i]) / n;
		d->in_set[i] = (z.in_set[i] - a.in_set[i]) / n;
	}
	d->infeasible = (z.infeasible - a.infeasible) / n;
}

/* What each source measures, every path acknowledged alike: btlbw -> b, cwnd -> 2b. */
static void test_app2_measurement(void **state)
{
	static const char *const src[2] = { "btlbw", "cwnd" };
	double b[K], r[K], cb, m[K], v[K], opt;
	struct mpt_path_view pv[K];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = pv, .npaths = K, .rng = &rng, .now = 1 };

	views(pv);
	for (unsigned s = 0; s < 2; s++) {
		const struct mpt_sched_ops *ops;
		const unsigned n = 4000;

		mpt_rng_seed(&rng, 40 + s);
		ops = setup(src[s], "40", &ctx, b, r, &cb);
		for (unsigned t = 0; t < n * K; t++)
			ops->on_ack(priv, &ctx, t % K, 1500);
		for (unsigned i = 0; i < K; i++) {
			double want = s == 0 ? b[i] : fmin(1, CWND_GAIN * b[i]);

			m[i] = stat(ops, "bw_mean", i);
			print_message("%s: p%u bw_mean %.3f (want %.3f)\n", src[s], i, m[i], want);
			/* 4 binomial sigmas of n Bernoulli trials */
			assert_true(fabs(m[i] - want) <= 4 * sqrt(0.25 / n));
		}
		if (s == 1)	/* two smallest measured b: 0.8, C_b 0.4 */
			assert_int_equal(mpt_olms_lp_bwcap(K, m, r, cb, 2, v, &opt), -ERANGE);
	}
	/* on the true b the program is feasible, with the paper's v* and OPT_min */
	assert_int_equal(mpt_olms_lp_bwcap(K, b, r, cb, 2, v, &opt), 0);
	for (unsigned i = 0; i < K; i++)
		assert_true(fabs(v[i] - (i < 2 ? 1 : 0)) < 1e-9);
	assert_true(fabs(opt - 0.3) < 1e-9);
}

/* C_b = 40 Mbit/s, the paper's: v.b <= C_b only at v*, on the boundary. */
static void test_app2_boundary(void **state)
{
	double b[K], r[K], cb;
	struct mpt_path_view pv[K];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = pv, .npaths = K, .rng = &rng, .now = 1 };
	const struct mpt_sched_ops *ops;
	struct counts d;
	const unsigned n = 10000;

	views(pv);
	mpt_rng_seed(&rng, 42);
	ops = setup("btlbw", "40", &ctx, b, r, &cb);
	assert_true(fabs(b[0] + b[1] - cb) < 1e-9);	/* the two smallest b sum to C_b */
	run(ops, &ctx, n, &d);
	run(ops, &ctx, n, &d);
	print_message("btlbw, C_b %.2f: infeasible %.3f, path 4 %.3f of packets\n", cb,
		      d.infeasible, d.picks[3]);
	/* a sample of b_1 + b_2 about C_b exceeds it about half the time (more while the
	 * posteriors are wide, and (S+1)/(N+2) lies above b < 1/2); over seeds the share
	 * of the second half ranges 0.45 to 1. Asserted: far from v*'s zero. */
	assert_true(d.infeasible >= 0.25);
	assert_true(d.picks[3] >= d.infeasible - 0.01);	/* minRTT = path 4 */
}

/* C_b = 45 Mbit/s: btlbw follows v* and keeps off path 4; cwnd is minRTT. */
static void test_app2_headroom(void **state)
{
	double b[K], r[K], cb, vstar[K], opt;
	struct mpt_path_view pv[K];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = pv, .npaths = K, .rng = &rng, .now = 1 };
	const struct mpt_sched_ops *ops;
	struct counts d;
	const unsigned n = 10000;

	views(pv);
	mpt_rng_seed(&rng, 43);
	ops = setup("btlbw", "45", &ctx, b, r, &cb);
	assert_int_equal(mpt_olms_lp_bwcap(K, b, r, cb, 2, vstar, &opt), 0);
	run(ops, &ctx, n, &d);		/* learning */
	run(ops, &ctx, n, &d);
	for (unsigned i = 0; i < K; i++) {
		print_message("btlbw, C_b %.2f: p%u in set %.3f (v* %.3f), packets %.3f\n", cb,
			      i, d.in_set[i], vstar[i], d.picks[i]);
		assert_true(fabs(d.in_set[i] - vstar[i]) < 0.1);
	}
	print_message("  infeasible %.4f\n", d.infeasible);
	assert_true(d.infeasible < 0.01);
	assert_true(b[3] > cb);
	/* path 4 only as v* has it (its set share / L under either choice) plus the
	 * infeasible decisions' minRTT */
	assert_true(d.picks[3] <= vstar[3] + d.infeasible + 0.01);

	mpt_rng_seed(&rng, 44);
	ops = setup("cwnd", "45", &ctx, b, r, &cb);
	run(ops, &ctx, n, &d);
	run(ops, &ctx, n, &d);
	print_message("cwnd, C_b %.2f: infeasible %.3f, path 4 %.3f of packets\n", cb,
		      d.infeasible, d.picks[3]);
	/* all but the rare low sample of a barely measured path 1 or 2 */
	assert_true(d.infeasible >= 0.99);
	assert_true(d.picks[3] >= 0.99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_app2_measurement),
		cmocka_unit_test(test_app2_boundary),
		cmocka_unit_test(test_app2_headroom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
