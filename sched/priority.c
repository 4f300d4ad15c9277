// SPDX-License-Identifier: MIT
/*
 * priority — the ATSSS Priority-based steering mode (TS 23.501 5.32.8: "all traffic
 * of an SDF is steered to the high priority access, until this access is determined
 * to be congested; then the traffic is sent also to the low priority access", and
 * to the low priority access when the high one becomes unavailable; TS 24.193 5.2).
 *
 * Priority is the path's configured Cost (lower = higher priority, ties by id). A
 * path is congested when it has no room: in_flight >= room x cwnd. The packet goes on
 * the first path in priority order that is up and has room, so the higher paths are
 * filled and only the overflow goes lower. Paths beyond their thresholds (steer.h)
 * are put after every path within them, in the same order.
 */
#include <mptund/sched.h>

#include "sched_modules.h"
#include "steer.h"

struct prio {
	double room;			/* tunable */
	struct mpt_steer_thr thr;	/* tunables */

	struct mpt_steer st;
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t overflows;		/* (stat) */
	uint64_t holds;			/* (stat) */
};
_Static_assert(sizeof(struct prio) <= MPT_SCHED_PRIV_SIZE, "priority state too large");

static void prio_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

/* True when a comes before b in priority order. */
static bool before(const struct mpt_path_view *a, const struct mpt_path_view *b)
{
	return a->cost != b->cost ? a->cost < b->cost : a->id < b->id;
}

/* The first path of mask in priority order that passes room; -1 when none. Sets
 * *first to whether it is the first of mask at all. */
static int first_with_room(const struct prio *p, const struct mpt_sched_ctx *ctx,
			   uint32_t mask, bool *first)
{
	int best = -1, top = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!(mask >> i & 1))
			continue;
		if (top < 0 || before(v, &ctx->paths[top]))
			top = (int)i;
		if (!mpt_path_has_room(v, (uint64_t)(p->room * (double)v->cwnd)))
			continue;
		if (best < 0 || before(v, &ctx->paths[best]))
			best = (int)i;
	}
	*first = best >= 0 && best == top;
	return best;
}

static uint32_t prio_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct prio *p = priv;
	uint32_t up, ok;
	bool first = false, dummy;
	int t;

	mpt_steer_eval(&p->st, &p->thr, ctx);
	up = mpt_steer_up(ctx);
	ok = up & ~p->st.bad;
	t = first_with_room(p, ctx, ok, &first);
	if (t < 0)
		t = first_with_room(p, ctx, up & p->st.bad, &dummy);
	if (t < 0) {
		p->holds++;
		return 0;
	}
	p->overflows += !first;
	p->picks[t]++;
	return 1u << t;
}

static unsigned prio_drain(void *priv, struct mpt_sched_event *ev, unsigned max)
{
	return mpt_steer_drain(&((struct prio *)priv)->st, ev, max);
}

static const struct mpt_param prio_params[] = {
	{ .name = "room", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct prio, room),
	  .min = 0.1, .max = 1, .def = 1,
	  .help = "a path is congested when in_flight >= room x cwnd (TS 23.501 5.32.8 'determined to be congested')" },
	MPT_STEER_THR_PARAMS(struct prio, thr),
};

static const struct mpt_stat prio_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct prio, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "overflows", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct prio, overflows),
	  .help = "packets sent below the highest priority path within thresholds (it was full)" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct prio, holds),
	  .help = "decisions that held the packet: every path full or down" },
	MPT_STEER_STATS(struct prio, st),
};

const struct mpt_sched_ops mpt_sched_priority = {
	.name = "priority",
	.summary = "ATSSS Priority-based: fill the highest priority path, overflow lower (TS 23.501 5.32.8)",
	.pick = prio_pick,
	.init = prio_init,
	.drain_events = prio_drain,
	.priv_size = sizeof(struct prio),
	.params = prio_params,
	.nparams = MPT_ARRAY_SIZE(prio_params),
	.stats = prio_stats,
	.nstats = MPT_ARRAY_SIZE(prio_stats),
};
