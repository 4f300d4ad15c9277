// SPDX-License-Identifier: MIT
/*
 * wrr — smooth weighted round-robin over the paths with room (reference scheduler).
 *
 * Weights: the configured path weights when every up path has one; otherwise each
 * up path's bottleneck-bandwidth estimate (btlbw) when every up path has one;
 * otherwise equal weights. Configured weights and bytes/s are never mixed.
 *
 * Smooth WRR: each decision, every eligible path (up, in_flight < cwnd) adds its
 * normalised weight w_i (sum 1 over the eligible paths) to its credit; the path with
 * the largest credit (ties: lower id) is picked and pays 1. Over n decisions each
 * path's share is w_i within 1/n, and picks interleave instead of coming in runs.
 * Paths without room do not take part and do not accumulate credit, so a full path
 * gets no burst when it frees up. When no path has room the packet is held.
 *
 * Arrival awareness (ours, on by default; arrival.h): only the paths useful for the
 * queue's backlog are eligible, so a slow path's turn waits until a packet sent there
 * arrives no later than through the faster paths (ECF, Lim et al. 2017).
 */
#include <mptund/sched.h>

#include "arrival.h"
#include "sched_modules.h"

enum wrr_source { WRR_CONFIGURED, WRR_BTLBW, WRR_EQUAL };

struct wrr {
	bool arrival;			/* tunable */
	double credit[MPT_MAX_PATHS];
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	double share[MPT_MAX_PATHS];	/* normalised weight over the up paths (stat) */
	uint32_t source;		/* enum wrr_source of the latest decision (stat) */
	uint64_t holds;			/* (stat) */
};
_Static_assert(sizeof(struct wrr) <= MPT_SCHED_PRIV_SIZE, "wrr state too large");

static void wrr_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

static enum wrr_source weight_source(const struct mpt_sched_ctx *ctx)
{
	bool all_weight = true, all_bw = true;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!ctx->paths[i].up)
			continue;
		all_weight &= ctx->paths[i].weight > 0;
		all_bw &= ctx->paths[i].btlbw > 0;
	}
	return all_weight ? WRR_CONFIGURED : all_bw ? WRR_BTLBW : WRR_EQUAL;
}

static double raw_weight(const struct mpt_path_view *v, enum wrr_source src)
{
	switch (src) {
	case WRR_CONFIGURED:
		return v->weight;
	case WRR_BTLBW:
		return (double)v->btlbw;
	case WRR_EQUAL:
		break;
	}
	return 1;
}

static uint32_t wrr_pick(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt)
{
	struct wrr *w = priv;
	enum wrr_source src = weight_source(ctx);
	uint32_t ok = w->arrival ? mpt_arrival_eligible(ctx, pkt->len) : ~0u;
	double up_sum = 0, room_sum = 0;
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (v->up)
			up_sum += raw_weight(v, src);
		if ((ok >> i & 1) && mpt_path_has_room(v, v->cwnd))
			room_sum += raw_weight(v, src);
	}
	w->source = src;
	for (unsigned i = 0; i < ctx->npaths; i++)
		w->share[i] = ctx->paths[i].up && up_sum > 0 ?
			      raw_weight(&ctx->paths[i], src) / up_sum : 0;
	if (room_sum <= 0) {
		w->holds++;
		return 0;
	}
	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!(ok >> i & 1) || !mpt_path_has_room(v, v->cwnd))
			continue;
		w->credit[i] += raw_weight(v, src) / room_sum;
		if (best < 0 || w->credit[i] > w->credit[best])
			best = (int)i;
	}
	w->credit[best] -= 1;
	w->picks[best]++;
	return 1u << best;
}

static void wrr_path_change(void *priv, const struct mpt_sched_ctx *ctx, unsigned path,
			    bool up)
{
	struct wrr *w = priv;

	if (path < MPT_MAX_PATHS)
		w->credit[path] = 0;
}

static const struct mpt_param wrr_params[] = {
	MPT_SCHED_ARRIVAL_PARAM(struct wrr),
};

static bool wrr_in_order(const void *priv)
{
	const struct wrr *c = priv;

	return c->arrival;
}

static const struct mpt_stat wrr_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct wrr, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "share", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct wrr, share),
	  .help = "the path's normalised weight among the up paths" },
	{ .name = "source", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct wrr, source),
	  .help = "weights from: 0 configured, 1 btlbw estimates, 2 equal" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct wrr, holds),
	  .help = "decisions that held the packet: every path full or down" },
};

const struct mpt_sched_ops mpt_sched_wrr = {
	.name = "wrr",
	.summary = "smooth weighted round-robin by configured weight or btlbw (reference)",
	.pick = wrr_pick,
	.in_order = wrr_in_order,
	.init = wrr_init,
	.on_path_change = wrr_path_change,
	.priv_size = sizeof(struct wrr),
	.params = wrr_params,
	.nparams = MPT_ARRAY_SIZE(wrr_params),
	.stats = wrr_stats,
	.nstats = MPT_ARRAY_SIZE(wrr_stats),
};
