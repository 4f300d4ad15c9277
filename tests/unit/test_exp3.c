// SPDX-License-Identifier: MIT
/*
 * exp3 on synthetic path views: the per-flow probabilities follow Figure 2's update,
 * recomputed here step by step; flows move only on congestion signals (ECN CE on the
 * packet, a loss on the flow's own path); steps respect the exponential backoff; the
 * flow table stays within its bound and forgets idle flows.
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
	const struct mpt_sched_ops *ops = schedtest_setup("exp3", priv, kv, ctx);

	assert_non_null(ops);
	return ops;
}

static double stat(const struct mpt_sched_ops *ops, const char *name, unsigned path)
{
	double v = schedtest_stat(ops, priv, name, path);

	assert_false(isnan(v));
	return v;
}

/* Capacities 10/20/30 MB/s, delivery rates 10/20/40 MB/s, all with room. */
static void views(struct mpt_path_view *v)
{
	memset(v, 0, 3 * sizeof(*v));
	for (unsigned i = 0; i < 3; i++) {
		v[i].id = (uint8_t)i;
		v[i].up = true;
		v[i].cwnd = 100000;
		v[i].srtt_ns = 20 * MPT_NSEC_PER_MSEC;
		v[i].capacity = 10000000ULL * (i + 1);
	}
	v[0].delivery_rate = 10000000;
	v[1].delivery_rate = 20000000;
	v[2].delivery_rate = 40000000;
}

static void probs(const double *w, double g, double *p)
{
	double s = w[0] + w[1] + w[2];

	for (unsigned i = 0; i < 3; i++)
		p[i] = (1 - g) * w[i] / s + g / 3;
}

/*
 * Figure 2 step by step. A new flow starts on the best path by its weights (path 2,
 * capacity 30 MB/s). Between two steps the flow sends n[path] packets (the first right
 * after the step), then one with CE 2 ms later, which steps: its own rate is n x 1200 B
 * / 2 ms and the reward x is that over the best path's capacity (30 MB/s): 0.2, 0.4,
 * 0.8 on paths 0, 1, 2.
 */
static void test_probability_sequence(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200, .flow_hash = 42 };
	const char *kv[] = { "backoff_base_ms", "1", "backoff_max_ms", "1", NULL };
	const struct mpt_sched_ops *ops;
	const double g = 0.1;
	const unsigned n[3] = { 10, 20, 40 };
	double w[3] = { 1.0 / 3, 2.0 / 3, 1.0 }, p[3];
	unsigned path;

	views(v);
	mpt_rng_seed(&rng, 21);
	ops = setup(kv, &ctx);
	path = (unsigned)__builtin_ctz(ops->pick(priv, &ctx, &pkt));
	assert_int_equal(path, 2);	/* get_best_path(): the largest weight */
	/* initial weights from capacity: w = (1/3, 2/3, 1), sum 2;
	 * prob = 0.9 w / 2 + 0.1 / 3 = (0.18333.., 0.33333.., 0.48333..) */
	assert_true(fabs(stat(ops, "prob", 0) - (0.15 + 0.1 / 3)) < 1e-12);
	assert_true(fabs(stat(ops, "prob", 1) - (0.30 + 0.1 / 3)) < 1e-12);
	assert_true(fabs(stat(ops, "prob", 2) - (0.45 + 0.1 / 3)) < 1e-12);
	for (unsigned step = 0; step < 40; step++) {
		double x;

		for (unsigned k = 1; k < n[path]; k++)	/* + the one after the last step */
			assert_int_equal(ops->pick(priv, &ctx, &pkt), 1u << path);
		x = n[path] * 1200.0 / 0.002 / 30e6;
		ctx.now += 2 * MPT_NSEC_PER_MSEC;	/* past the 1 ms backoff */
		probs(w, g, p);
		w[path] *= exp(g * x / (p[path] * 3));
		probs(w, g, p);
		pkt.ecn = 3;
		path = (unsigned)__builtin_ctz(ops->pick(priv, &ctx, &pkt));
		pkt.ecn = 0;
		assert_true(stat(ops, "steps", 0) == step + 1);
		assert_true(fabs(stat(ops, "reward", 0) - x) < 1e-12);
		for (unsigned i = 0; i < 3; i++)
			assert_true(fabs(stat(ops, "prob", i) - p[i]) < 1e-12);
	}
	/* the best path (largest reward) has gained the most probability */
	assert_true(p[2] > p[1] && p[2] > 0.45 + 0.1 / 3);
}

/* K counts the up paths: with path 0 down, prob = 0.9 w / (w1 + w2) + 0.1 / 2 on the
 * two others and 0 on path 0. New flows: ties by weight go to the path with the fewest
 * flows, then to a random one. */
static void test_k_and_new_flows(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200, .flow_hash = 1 };
	const struct mpt_sched_ops *ops;
	unsigned seen = 0;

	views(v);
	v[0].up = false;
	mpt_rng_seed(&rng, 25);
	ops = setup(NULL, &ctx);
	assert_int_equal(ops->pick(priv, &ctx, &pkt), 1u << 2);
	assert_true(stat(ops, "prob", 0) == 0);
	assert_true(fabs(stat(ops, "prob", 1) - (0.9 * 2 / 5 + 0.05)) < 1e-12);
	assert_true(fabs(stat(ops, "prob", 2) - (0.9 * 3 / 5 + 0.05)) < 1e-12);

	/* equal weights (capacities unset): flows spread, one per path, in random order */
	for (unsigned i = 0; i < 3; i++) {
		v[i].capacity = 0;
		v[i].up = true;
	}
	ops = setup(NULL, &ctx);
	for (uint32_t h = 1; h <= 3; h++) {
		uint32_t m;

		pkt.flow_hash = h;
		m = ops->pick(priv, &ctx, &pkt);
		assert_true(m && !(m & seen));
		seen |= m;
	}
	assert_int_equal(seen, 7);
	for (unsigned i = 0; i < 3; i++)
		assert_true(stat(ops, "flows_on", i) == 1);
}

static void test_moves_only_on_congestion(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200, .flow_hash = 7 };
	const char *kv[] = { "gamma", "1", NULL };	/* uniform draws */
	const struct mpt_sched_ops *ops;
	uint32_t first, m;
	unsigned other;

	views(v);
	mpt_rng_seed(&rng, 22);
	ops = setup(kv, &ctx);
	first = ops->pick(priv, &ctx, &pkt);
	for (unsigned i = 0; i < 5000; i++) {	/* 10 s, no signal */
		ctx.now += 2 * MPT_NSEC_PER_MSEC;
		assert_int_equal(ops->pick(priv, &ctx, &pkt), first);
	}
	other = ((unsigned)__builtin_ctz(first) + 1) % 3;
	ops->on_loss(priv, &ctx, other, 1200);	/* another path's loss: no signal */
	ctx.now += MPT_NSEC_PER_MSEC;
	assert_int_equal(ops->pick(priv, &ctx, &pkt), first);
	assert_true(stat(ops, "steps", 0) == 0);
	ops->on_loss(priv, &ctx, (unsigned)__builtin_ctz(first), 1200);
	ctx.now += MPT_NSEC_PER_MSEC;
	m = ops->pick(priv, &ctx, &pkt);
	assert_true(stat(ops, "steps", 0) == 1);
	/* the loss was consumed: no further step */
	ctx.now += 1000 * MPT_NSEC_PER_MSEC;
	assert_int_equal(ops->pick(priv, &ctx, &pkt), m);
	assert_true(stat(ops, "steps", 0) == 1);
	/* pinned path full: a hold signal, one step (past the backoff), then hold or
	 * send on the path drawn */
	v[__builtin_ctz(m)].in_flight = v[__builtin_ctz(m)].cwnd;
	first = ops->pick(priv, &ctx, &pkt);
	assert_true(stat(ops, "hold_signals", 0) == 1);
	assert_true(stat(ops, "steps", 0) == 2);
	assert_true(first == 0 || first != m);
	v[__builtin_ctz(m)].in_flight = 0;
	/* pinned path down: failover draw onto an up path */
	m = first ? first : m;
	v[__builtin_ctz(m)].up = false;
	first = ops->pick(priv, &ctx, &pkt);
	assert_true(first && first != m);
	assert_true(stat(ops, "failovers", 0) == 1);
}

static void test_backoff(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200, .flow_hash = 9 };
	const char *kv[] = { "gamma", "1", "backoff_base_ms", "100",
			     "backoff_max_ms", "800", NULL };
	const struct mpt_sched_ops *ops;
	const uint64_t base = 100 * MPT_NSEC_PER_MSEC, max = 800 * MPT_NSEC_PER_MSEC;
	uint64_t bo = base, gap = 0, last = 0;
	unsigned steps = 0, moves = 0, path;

	views(v);
	mpt_rng_seed(&rng, 23);
	ops = setup(kv, &ctx);
	path = (unsigned)__builtin_ctz(ops->pick(priv, &ctx, &pkt));	/* flow starts */
	pkt.ecn = 3;
	for (unsigned i = 0; i < 20000; i++) {	/* CE on every packet, 1 ms apart */
		unsigned p;

		ctx.now += MPT_NSEC_PER_MSEC;
		p = (unsigned)__builtin_ctz(ops->pick(priv, &ctx, &pkt));
		if (stat(ops, "steps", 0) == steps)
			continue;
		steps++;
		if (steps > 1) {	/* a step only once the backoff has passed */
			assert_true(ctx.now - last >= gap);
			assert_true(ctx.now - last <= gap + MPT_NSEC_PER_MSEC);
		}
		/* a move doubles the backoff before the wait it starts */
		if (p != path) {
			moves++;
			bo = MPT_MIN(2 * bo, max);
		} else {
			bo = base;
		}
		gap = bo;
		last = ctx.now;
		path = p;
	}
	assert_true(stat(ops, "moves", 0) == moves);
	assert_true(moves > 10 && steps < 20000 / 100);
	assert_true(stat(ops, "backoff_skips", 0) > 19000);
}

/*
 * Signals and reward from the core's per-flow report (on_flow): once the core reports,
 * a loss on the flow's path that is not the flow's own is no signal, the flow's own
 * loss is; the reward is the flow's delivered bytes, not what it sent. Inner TCP
 * retransmissions and CWR are signals too.
 */
static void test_own_signals(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200, .flow_hash = 5 };
	const char *kv[] = { "backoff_base_ms", "1", "backoff_max_ms", "1", NULL };
	const struct mpt_sched_ops *ops;
	unsigned p;

	views(v);
	mpt_rng_seed(&rng, 26);
	ops = setup(kv, &ctx);
	p = (unsigned)__builtin_ctz(ops->pick(priv, &ctx, &pkt));
	ops->on_flow(priv, &ctx, 5, p, 60000, 0);	/* 60 kB delivered in 2 ms */
	ops->on_flow(priv, &ctx, 99, p, 0, 1200);	/* another flow's loss */
	ops->on_loss(priv, &ctx, p, 1200);
	ctx.now += 2 * MPT_NSEC_PER_MSEC;
	ops->pick(priv, &ctx, &pkt);
	assert_true(stat(ops, "steps", 0) == 0);
	ops->on_flow(priv, &ctx, 5, p, 0, 1200);	/* its own loss: a step */
	p = (unsigned)__builtin_ctz(ops->pick(priv, &ctx, &pkt));
	assert_true(stat(ops, "steps", 0) == 1);
	assert_true(stat(ops, "loss_signals", 0) == 1);
	/* x = 60000 B / 2 ms / 30 MB/s = 1 (the sent 2400 B would give 0.04) */
	assert_true(fabs(stat(ops, "reward", 0) - 1.0) < 1e-12);

	ctx.now += 2 * MPT_NSEC_PER_MSEC;
	pkt.tcp_retrans = true;
	ops->pick(priv, &ctx, &pkt);
	assert_true(stat(ops, "loss_signals", 0) == 2);
	pkt.tcp_retrans = false;
	ctx.now += 2 * MPT_NSEC_PER_MSEC;
	pkt.tcp_flags = MPT_TCP_FLAG_CWR;
	ops->pick(priv, &ctx, &pkt);
	assert_true(stat(ops, "mark_signals", 0) == 1);
	assert_true(stat(ops, "steps", 0) == 3);
}

static void test_flow_table(void **state)
{
	struct mpt_path_view v[3];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .paths = v, .npaths = 3, .rng = &rng, .now = 1 };
	struct mpt_pkt_meta pkt = { .len = 1200 };
	const char *kv[] = { "flows", "4", "idle_ms", "100", NULL };
	const struct mpt_sched_ops *ops;

	views(v);
	mpt_rng_seed(&rng, 24);
	ops = setup(kv, &ctx);
	for (uint32_t h = 1; h <= 10; h++) {
		pkt.flow_hash = h;
		ctx.now += MPT_NSEC_PER_MSEC;
		assert_true(ops->pick(priv, &ctx, &pkt) != 0);
		assert_true(stat(ops, "flows", 0) <= 4);
	}
	assert_true(stat(ops, "flows", 0) == 4);
	assert_true(stat(ops, "flow_evictions", 0) == 6);
	assert_true(stat(ops, "flows_on", 0) + stat(ops, "flows_on", 1) +
		    stat(ops, "flows_on", 2) == 4);
	ctx.now += 200 * MPT_NSEC_PER_MSEC;
	ops->tick(priv, &ctx);
	assert_true(stat(ops, "flows", 0) == 0);
	assert_true(stat(ops, "flows_expired", 0) == 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probability_sequence),
		cmocka_unit_test(test_k_and_new_flows),
		cmocka_unit_test(test_moves_only_on_congestion),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_own_signals),
		cmocka_unit_test(test_flow_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
