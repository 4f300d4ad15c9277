// SPDX-License-Identifier: MIT
/*
 * rr — round-robin over the paths with room: the reference scheduler.
 *
 * Each decision starts at the path after the one used last and takes the first path
 * that is up and has in_flight < cwnd. When no path has room the packet is held.
 * Used as the Round-Robin baseline of the axiomatic paper (section 3.1) and OLMS
 * (section VI).
 */
#include <mptund/sched.h>

#include "sched_modules.h"

struct rr {
	uint32_t next;			/* index to try first */
	uint64_t picks[MPT_MAX_PATHS];	/* decisions per path (stat) */
};
_Static_assert(sizeof(struct rr) <= MPT_SCHED_PRIV_SIZE, "rr state too large");

static void rr_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct rr *rr = priv;

	rr->next = 0;
}

static uint32_t rr_pick(void *priv, const struct mpt_sched_ctx *ctx,
			const struct mpt_pkt_meta *pkt)
{
	struct rr *rr = priv;

	for (unsigned k = 0; k < ctx->npaths; k++) {
		unsigned i = (rr->next + k) % ctx->npaths;
		const struct mpt_path_view *v = &ctx->paths[i];

		if (mpt_path_has_room(v, v->cwnd)) {
			rr->next = (i + 1) % ctx->npaths;
			rr->picks[i]++;
			return 1u << i;
		}
	}
	return 0;
}

static const struct mpt_stat rr_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct rr, picks),
	  .help = "packets scheduled on the path" },
};

const struct mpt_sched_ops mpt_sched_rr = {
	.name = "rr",
	.summary = "round-robin over the paths with room (reference)",
	.pick = rr_pick,
	.init = rr_init,
	.priv_size = sizeof(struct rr),
	.stats = rr_stats,
	.nstats = MPT_ARRAY_SIZE(rr_stats),
};
