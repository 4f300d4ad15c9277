// SPDX-License-Identifier: MIT
/*
 * minrtt — lowest smoothed RTT first among the paths with room: the default scheduler
 * of Linux MPTCP (ACPF paper, section 2; the Min-RTT baseline of the axiomatic paper).
 *
 * Among the paths that are up and have in_flight < cwnd, take the one with the
 * lowest srtt, ties broken by the lower path id. A path without an RTT sample yet
 * (srtt 0) is tried first, so that it gets one (among several, the lower id): a new
 * or restarted path is otherwise invisible to an RTT ranking. Its cwnd still bounds
 * how much goes there before the first ACK. When no path has room the packet is held.
 *
 * Arrival awareness (ours, on by default; arrival.h): only paths that are useful for
 * the queue's backlog take part, so a slower path with room takes a packet only when
 * it arrives no later than it would behind the faster paths' windows (ECF, Lim et al.
 * 2017). arrival = 0 is MPTCP's plain minRTT.
 */
#include <mptund/sched.h>

#include "arrival.h"
#include "sched_modules.h"

struct minrtt {
	bool arrival;			/* tunable */
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t probes;		/* picks of a path without an RTT sample (stat) */
	uint64_t holds;			/* (stat) */
};
_Static_assert(sizeof(struct minrtt) <= MPT_SCHED_PRIV_SIZE, "minrtt state too large");

static void minrtt_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

/* True when path a should be preferred over path b (both have room). */
static bool better(const struct mpt_path_view *a, const struct mpt_path_view *b)
{
	if (!a->srtt_ns || !b->srtt_ns)
		return !a->srtt_ns && b->srtt_ns;	/* unsampled first; ties keep b */
	return a->srtt_ns < b->srtt_ns;
}

static uint32_t minrtt_pick(void *priv, const struct mpt_sched_ctx *ctx,
			    const struct mpt_pkt_meta *pkt)
{
	struct minrtt *m = priv;
	uint32_t ok = m->arrival ? mpt_arrival_eligible(ctx, pkt->len) : ~0u;
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!(ok >> i & 1) || !mpt_path_has_room(v, v->cwnd))
			continue;
		if (best < 0 || better(v, &ctx->paths[best]))
			best = (int)i;
	}
	if (best < 0) {
		m->holds++;
		return 0;
	}
	m->picks[best]++;
	if (!ctx->paths[best].srtt_ns)
		m->probes++;
	return 1u << best;
}

static const struct mpt_param minrtt_params[] = {
	MPT_SCHED_ARRIVAL_PARAM(struct minrtt),
};

static bool minrtt_in_order(const void *priv)
{
	const struct minrtt *c = priv;

	return c->arrival;
}

static const struct mpt_stat minrtt_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct minrtt, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "probes", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct minrtt, probes),
	  .help = "packets sent on a path that had no RTT sample yet" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct minrtt, holds),
	  .help = "decisions that held the packet: every path full or down" },
};

const struct mpt_sched_ops mpt_sched_minrtt = {
	.name = "minrtt",
	.summary = "lowest smoothed RTT among the paths with room (MPTCP default)",
	.pick = minrtt_pick,
	.in_order = minrtt_in_order,
	.init = minrtt_init,
	.priv_size = sizeof(struct minrtt),
	.params = minrtt_params,
	.nparams = MPT_ARRAY_SIZE(minrtt_params),
	.stats = minrtt_stats,
	.nstats = MPT_ARRAY_SIZE(minrtt_stats),
};
