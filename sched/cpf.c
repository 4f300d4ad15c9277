// SPDX-License-Identifier: MIT
/*
 * cpf — Cheapest Path First, or strict priority (ACPF paper, section 3.1).
 *
 * The up paths are ranked by configured cost, ascending (ties: lower path id first).
 * A path is full when its in-flight bytes reach its congestion window
 * (in_flight >= cwnd); the packet goes to the cheapest path that is not full, so a
 * more expensive path only carries what overflows the cheaper ones. When every path is
 * full (or down) the packet is held until an ACK, a loss or a tick frees room.
 *
 * Arrival awareness (ours, on by default; arrival.h): a dearer path takes a packet only
 * when the scheduler queue stands (the cheaper paths cannot keep up) and the packet
 * would arrive before the cheaper paths could deliver the queue; otherwise the packet
 * waits for a cheaper path. Without it (arrival = 0, the paper's
 * CPF) a bursty sender spills onto dear paths and a slow dear path holds the fast
 * cheap path's packets in the receiver's reorder buffer.
 */
#include <mptund/sched.h>

#include "cpf_select.h"
#include "sched_modules.h"

struct cpf {
	/* tunables */
	bool arrival;			/* arrival-aware spill-over */

	uint64_t picks[MPT_MAX_PATHS];	/* decisions per path (stat) */
	uint64_t holds;			/* decisions that held the packet (stat) */
};
_Static_assert(sizeof(struct cpf) <= MPT_SCHED_PRIV_SIZE, "cpf state too large");

static void cpf_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

static uint32_t cpf_pick(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt)
{
	struct cpf *cpf = priv;
	uint64_t window[MPT_MAX_PATHS];
	int best;

	for (unsigned i = 0; i < ctx->npaths; i++)
		window[i] = ctx->paths[i].cwnd;
	best = mpt_cpf_select(ctx, window, pkt, cpf->arrival);
	if (best < 0) {
		cpf->holds++;
		return 0;
	}
	cpf->picks[best]++;
	return 1u << best;
}

static const struct mpt_param cpf_params[] = {
	MPT_SCHED_ARRIVAL_PARAMS(struct cpf),
};

static bool cpf_in_order(const void *priv)
{
	const struct cpf *c = priv;

	return c->arrival;
}

static const struct mpt_stat cpf_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct cpf, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct cpf, holds),
	  .help = "decisions that held the packet: every path full or down" },
};

const struct mpt_sched_ops mpt_sched_cpf = {
	.name = "cpf",
	.summary = "cheapest path first / strict priority by cost (ACPF paper, sec. 3.1)",
	.pick = cpf_pick,
	.in_order = cpf_in_order,
	.init = cpf_init,
	.priv_size = sizeof(struct cpf),
	.params = cpf_params,
	.nparams = MPT_ARRAY_SIZE(cpf_params),
	.stats = cpf_stats,
	.nstats = MPT_ARRAY_SIZE(cpf_stats),
};
