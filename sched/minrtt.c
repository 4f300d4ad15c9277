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
 * The algorithm has no constants, hence no tunables.
 */
#include <mptund/sched.h>

#include "sched_modules.h"

struct minrtt {
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
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!mpt_path_has_room(v, v->cwnd))
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
	.init = minrtt_init,
	.priv_size = sizeof(struct minrtt),
	.stats = minrtt_stats,
	.nstats = MPT_ARRAY_SIZE(minrtt_stats),
};
