// SPDX-License-Identifier: MIT
/*
 * load-balance — the ATSSS Load-Balancing steering mode (TS 23.501 5.32.8: "the
 * traffic is split across both accesses" by a fixed percentage per access; Rel-17
 * adds the autonomous load-balancing, where the UE/UPF decide the split themselves
 * from their own measurements; TS 24.193 5.2).
 *
 * split = fixed: path i gets pct<i> percent of the bytes (relative weights; all 0 =
 * equal). split = autonomous: each path's weight is its measured capacity, the
 * controller's bottleneck bandwidth estimate (else its latest delivery rate, else
 * cwnd / srtt), with a floor of auto_floor x the largest so that a path is never
 * starved of the traffic that measures it. Paths down or beyond their thresholds
 * (steer.h) take no share: the others split it in their proportions.
 *
 * The split is per byte by smooth weighted round robin (each usable path earns its
 * weight's share of every packet; the path with the most credit sends it and pays its
 * length; credits are capped at CREDIT_CAP either way). With split = fixed the path
 * due is not overflowed: when it has no room the packet is held, so that the split
 * holds at any load. With split = autonomous the packet then goes to the path with
 * the most credit that has room: a greedy flow fills every path, so that each
 * controller measures its path's real capacity (holding would let a path starved by
 * a low estimate keep measuring only what it was given). Credits restart when the
 * usable set changes.
 */
#include <mptund/sched.h>

#include "sched_modules.h"
#include "steer.h"

#define CREDIT_CAP 65536.0		/* bytes of credit a path may bank or owe */

enum { LB_FIXED, LB_AUTONOMOUS };
static const char *const lb_modes[] = { "fixed", "autonomous", NULL };

struct lb {
	uint32_t split;			/* tunable: enum above */
	uint32_t pct[MPT_MAX_PATHS];	/* tunables */
	double floor;			/* tunable */
	struct mpt_steer_thr thr;	/* tunables */

	struct mpt_steer st;
	uint32_t set;			/* usable mask the credits belong to */
	double credit[MPT_MAX_PATHS];
	double share[MPT_MAX_PATHS];	/* (stat) current target share */
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t bytes[MPT_MAX_PATHS];	/* (stat) */
	uint64_t holds;			/* (stat) */
};
_Static_assert(sizeof(struct lb) <= MPT_SCHED_PRIV_SIZE, "load-balance state too large");

static void lb_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

static double capacity(const struct mpt_path_view *v)
{
	if (v->btlbw)
		return (double)v->btlbw;
	if (v->delivery_rate)
		return (double)v->delivery_rate;
	if (v->srtt_ns)
		return (double)v->cwnd * 1e9 / (double)v->srtt_ns;
	return 0;
}

/* Fill l->share for the paths of ok (sum 1); false when ok is empty. */
static bool shares(struct lb *l, const struct mpt_sched_ctx *ctx, uint32_t ok)
{
	double w[MPT_MAX_PATHS] = { 0 }, sum = 0, top = 0;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!(ok >> i & 1))
			continue;
		w[i] = l->split == LB_FIXED ? l->pct[i] : capacity(&ctx->paths[i]);
		top = MPT_MAX(top, w[i]);
	}
	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!(ok >> i & 1))
			continue;
		if (l->split == LB_AUTONOMOUS)
			w[i] = MPT_MAX(w[i], l->floor * top);
		sum += w[i];
	}
	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!(ok >> i & 1))
			l->share[i] = 0;
		else	/* all weights 0: equal */
			l->share[i] = sum > 0 ? w[i] / sum : 1.0 / __builtin_popcount(ok);
	}
	return ok != 0;
}

/* Autonomous split, the path due full: the one with the most credit that has room
 * (each path then runs at its capacity, which is what measures it). */
static int most_credit_with_room(const struct lb *l, const struct mpt_sched_ctx *ctx,
				 uint32_t ok, double len)
{
	double best_c = 0;
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		double c = l->credit[i] + l->share[i] * len;

		if (!(ok >> i & 1) || !mpt_path_has_room(&ctx->paths[i], ctx->paths[i].cwnd))
			continue;
		if (best < 0 || c > best_c) {
			best = (int)i;
			best_c = c;
		}
	}
	return best;
}

static uint32_t lb_pick(void *priv, const struct mpt_sched_ctx *ctx,
			const struct mpt_pkt_meta *pkt)
{
	struct lb *l = priv;
	uint32_t ok;
	double len = pkt->len, best_c = 0;
	int best = -1;

	mpt_steer_eval(&l->st, &l->thr, ctx);
	ok = mpt_steer_usable(&l->st, ctx);
	if (ok != l->set) {
		for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
			l->credit[i] = 0;
		l->set = ok;
	}
	if (!shares(l, ctx, ok)) {
		l->holds++;
		return 0;
	}
	for (unsigned i = 0; i < ctx->npaths; i++) {
		double c = l->credit[i] + l->share[i] * len;

		if ((ok >> i & 1) && l->share[i] > 0 && (best < 0 || c > best_c)) {
			best = (int)i;
			best_c = c;
		}
	}
	if (best >= 0 && l->split == LB_AUTONOMOUS &&
	    !mpt_path_has_room(&ctx->paths[best], ctx->paths[best].cwnd))
		best = most_credit_with_room(l, ctx, ok, len);
	if (best < 0 || !mpt_path_has_room(&ctx->paths[best], ctx->paths[best].cwnd)) {
		l->holds++;
		return 0;
	}
	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ok >> i & 1)
			l->credit[i] = MPT_MIN(l->credit[i] + l->share[i] * len, CREDIT_CAP);
	l->credit[best] = MPT_MAX(l->credit[best] - len, -CREDIT_CAP);
	l->picks[best]++;
	l->bytes[best] += pkt->len;
	return 1u << best;
}

static unsigned lb_drain(void *priv, struct mpt_sched_event *ev, unsigned max)
{
	return mpt_steer_drain(&((struct lb *)priv)->st, ev, max);
}

#define PCT(n)									\
	{ .name = "pct" #n, .type = MPT_PARAM_U32, .offset = offsetof(struct lb, pct[n]), \
	  .min = 0, .max = 100, .def = 0,					\
	  .help = "fixed split: percent of the bytes for path " #n " (relative weight; all 0 = equal; TS 23.501 5.32.8)" }

static const struct mpt_param lb_params[] = {
	{ .name = "split", .type = MPT_PARAM_ENUM, .offset = offsetof(struct lb, split),
	  .min = 0, .max = 1, .def = LB_FIXED, .enum_names = lb_modes,
	  .help = "fixed percentages, or autonomous by measured capacity (TS 23.501 5.32.8, Rel-17)" },
	PCT(0), PCT(1), PCT(2), PCT(3), PCT(4), PCT(5), PCT(6), PCT(7),
	{ .name = "auto_floor", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct lb, floor),
	  .min = 0, .max = 1, .def = 0.05,
	  .help = "autonomous split: least weight of a path, times the largest (ours: keeps it measured)" },
	MPT_STEER_THR_PARAMS(struct lb, thr),
};

static const struct mpt_stat lb_stats[] = {
	{ .name = "share", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct lb, share),
	  .help = "target share of the bytes on the path now" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct lb, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "bytes", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct lb, bytes),
	  .help = "bytes scheduled on the path" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct lb, holds),
	  .help = "decisions that held the packet: the path due was full, or no path up" },
	MPT_STEER_STATS(struct lb, st),
};

const struct mpt_sched_ops mpt_sched_load_balance = {
	.name = "load-balance",
	.summary = "ATSSS Load-Balancing: fixed or autonomous split of the bytes (TS 23.501 5.32.8)",
	.pick = lb_pick,
	.init = lb_init,
	.drain_events = lb_drain,
	.priv_size = sizeof(struct lb),
	.params = lb_params,
	.nparams = MPT_ARRAY_SIZE(lb_params),
	.stats = lb_stats,
	.nstats = MPT_ARRAY_SIZE(lb_stats),
};
