// SPDX-License-Identifier: MIT
/*
 * egreedy on synthetic path views: the exploration rate stays within a binomial
 * 4-sigma band around epsilon, exploitation takes the min-srtt path with room,
 * inverse decay halves epsilon at the half-life, per-flow mode keeps a flow on its
 * path for redraw_ms, and no room means hold.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

static _Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];

static const struct mpt_sched_ops *setup(const char **kv, struct mpt_sched_ctx *ctx)
{
	const struct mpt_sched_ops *ops = schedtest_setup_paper("egreedy", priv, kv, ctx);

	assert_non_null(ops);
	return ops;
}

static double stat(const struct mpt_sched_ops *ops, const char *name, unsigned path)
{
	double v = schedtest_stat(ops, priv, name, path);

	assert_false(isnan(v));
	return v;
}

/* Three paths with room; srtt 30, 10, 20 ms: path 1 is the greedy choice. */
static void views(struct mpt_path_view *v)
{
	const uint64_t srtt_ms[3] = { 30, 10, 20 };

	memset(v, 0, 3 * sizeof(*v));
	for (unsigned i = 0; i < 3; i++) {
		v[i].id = (uint8_t)i;
		v[i].up = true;
		v[i].cwnd = 100000;
		v[i].in_flight = 0;
		v[i].srtt_ns = srtt_ms[i] * MPT_NSEC_PER_MSEC;
	}
}

static void test_exploration_rate(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200 };
	const struct mpt_sched_ops *ops;
	const unsigned n = 20000;
	const double eps = 0.1;
	unsigned other = 0;

	views(v);
	mpt_rng_seed(&rng, 7);
	ops = setup(NULL, &ctx);
	for (unsigned i = 0; i < n; i++) {
		uint32_t m = ops->pick(priv, &ctx, &pkt);

		assert_int_equal(__builtin_popcount(m), 1);
		if (m != 1u << 1)
			other++;
	}
	double sd = sqrt(n * eps * (1 - eps));
	double expl = stat(ops, "explorations", 0);

	assert_true(fabs(expl - n * eps) <= 4 * sd);
	assert_true(stat(ops, "exploitations", 0) + expl == n);
	/* an exploration lands on a non-greedy path with probability 2/3 */
	double p = eps * 2 / 3, sd2 = sqrt(n * p * (1 - p));

	assert_true(fabs(other - n * p) <= 4 * sd2);
	assert_true(stat(ops, "picks", 0) + stat(ops, "picks", 1) + stat(ops, "picks", 2) == n);
}

static void test_exploit_min_srtt_with_room(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200 };
	const char *kv[] = { "epsilon", "0", NULL };
	const struct mpt_sched_ops *ops;

	views(v);
	mpt_rng_seed(&rng, 8);
	ops = setup(kv, &ctx);
	for (unsigned i = 0; i < 100; i++)
		assert_int_equal(ops->pick(priv, &ctx, &pkt), 1u << 1);
	v[1].in_flight = v[1].cwnd;	/* full: the next lowest srtt */
	assert_int_equal(ops->pick(priv, &ctx, &pkt), 1u << 2);
	v[2].up = false;
	assert_int_equal(ops->pick(priv, &ctx, &pkt), 1u << 0);
	v[0].in_flight = v[0].cwnd + 1;
	assert_int_equal(ops->pick(priv, &ctx, &pkt), 0);	/* hold */
	assert_true(stat(ops, "explorations", 0) == 0);
}

static void test_inverse_decay(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 0 };
	struct mpt_pkt_meta pkt = { .len = 1200 };
	const char *kv[] = { "decay", "inverse", "half_life_ms", "1000", NULL };
	const struct mpt_sched_ops *ops;

	views(v);
	mpt_rng_seed(&rng, 9);
	ops = setup(kv, &ctx);
	ops->pick(priv, &ctx, &pkt);
	assert_true(fabs(stat(ops, "epsilon", 0) - 0.1) < 1e-12);
	ctx.now = 1000 * MPT_NSEC_PER_MSEC;
	ops->pick(priv, &ctx, &pkt);
	assert_true(fabs(stat(ops, "epsilon", 0) - 0.05) < 1e-12);
	ctx.now = 3000 * MPT_NSEC_PER_MSEC;
	ops->pick(priv, &ctx, &pkt);
	assert_true(fabs(stat(ops, "epsilon", 0) - 0.025) < 1e-12);
}

static void test_flow_mode_stable(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng };
	struct mpt_pkt_meta pkt = { .len = 1200 };
	/* epsilon 1: every draw is random, so stability comes from the flow table */
	const char *kv[] = { "granularity", "flow", "epsilon", "1", "redraw_ms", "10", NULL };
	const struct mpt_sched_ops *ops;
	unsigned changes = 0, draws;

	views(v);
	mpt_rng_seed(&rng, 10);
	ops = setup(kv, &ctx);
	for (uint32_t h = 1; h <= 8; h++) {
		uint32_t first;

		pkt.flow_hash = h * 0x9e3779b9u;
		ctx.now = 1000 * MPT_NSEC_PER_MSEC;
		first = ops->pick(priv, &ctx, &pkt);
		/* 1 packet per 0.1 ms for 9.9 ms: same path throughout */
		for (unsigned i = 1; i < 100; i++) {
			ctx.now += 100 * MPT_NSEC_PER_USEC;
			assert_int_equal(ops->pick(priv, &ctx, &pkt), first);
		}
	}
	draws = (unsigned)stat(ops, "explorations", 0);
	assert_int_equal(draws, 8);
	/* after redraw_ms a flow is redrawn: over 200 periods, it changes path about
	 * 2/3 of the time */
	pkt.flow_hash = 12345;
	uint32_t last = ops->pick(priv, &ctx, &pkt);

	for (unsigned i = 0; i < 200; i++) {
		uint32_t m;

		ctx.now += 10 * MPT_NSEC_PER_MSEC;
		m = ops->pick(priv, &ctx, &pkt);
		changes += m != last;
		last = m;
	}
	assert_true(fabs(changes - 200.0 * 2 / 3) <= 4 * sqrt(200.0 * 2 / 9));
	/* the flow's path goes down: redrawn at once onto an up path */
	v[__builtin_ctz(last)].up = false;
	ctx.now += MPT_NSEC_PER_MSEC;
	uint32_t m = ops->pick(priv, &ctx, &pkt);

	assert_true(m && m != last);
	/* its new path fills up: held, not moved, until redraw_ms has passed */
	v[__builtin_ctz(m)].in_flight = v[__builtin_ctz(m)].cwnd;
	ctx.now += MPT_NSEC_PER_MSEC;
	assert_int_equal(ops->pick(priv, &ctx, &pkt), 0);
}

static void test_flow_table_lru(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200 };
	const char *kv[] = { "granularity", "flow", "flows", "4", NULL };
	const struct mpt_sched_ops *ops;

	views(v);
	mpt_rng_seed(&rng, 11);
	ops = setup(kv, &ctx);
	for (uint32_t h = 1; h <= 10; h++) {
		pkt.flow_hash = h;
		ctx.now++;
		ops->pick(priv, &ctx, &pkt);
	}
	assert_true(stat(ops, "flow_evictions", 0) == 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exploration_rate),
		cmocka_unit_test(test_exploit_min_srtt_with_room),
		cmocka_unit_test(test_inverse_decay),
		cmocka_unit_test(test_flow_mode_stable),
		cmocka_unit_test(test_flow_table_lru),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
