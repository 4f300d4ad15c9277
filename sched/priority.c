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
 *
 * With arrival awareness (the default; ours, as cpf: cpf_select.h, arrival.h) a full
 * path is "congested" only when the sender's queue stands; a lower path then takes a
 * packet when it arrives before the higher ones would deliver the queue. arrival = 0
 * is the mode as the TS words it.
 */
#include <mptund/sched.h>

#include "cpf_select.h"
#include "sched_modules.h"
#include "steer.h"

struct prio {
	double room;			/* tunable */
	bool arrival;			/* tunable */
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

/* order[] of the paths by priority, those beyond their thresholds (bad) after all the
 * others; returns the number of paths. An insertion sort over K <= MPT_MAX_PATHS. */
static unsigned prio_order(const struct mpt_sched_ctx *ctx, uint32_t bad, uint8_t *order)
{
	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];
		bool vbad = bad >> i & 1;
		unsigned k = i;

		for (; k > 0; k--) {
			const struct mpt_path_view *u = &ctx->paths[order[k - 1]];
			bool ubad = bad >> order[k - 1] & 1;

			if (ubad == vbad ? !before(v, u) : !ubad)
				break;
			order[k] = order[k - 1];
		}
		order[k] = (uint8_t)i;
	}
	return ctx->npaths;
}

static uint32_t prio_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct prio *p = priv;
	uint64_t window[MPT_MAX_PATHS];
	uint8_t order[MPT_MAX_PATHS];
	uint32_t needed = ~0u;
	unsigned n;
	int t, top = -1;

	mpt_steer_eval(&p->st, &p->thr, ctx);
	n = prio_order(ctx, p->st.bad, order);
	for (unsigned i = 0; i < n; i++) {
		window[i] = (uint64_t)(p->room * (double)ctx->paths[i].cwnd);
		if (top < 0 && ctx->paths[order[i]].up)
			top = order[i];
	}
	/* "congested" (TS 23.501 5.32.8) with arrival awareness: the sender's queue
	 * stands on the higher paths and the lower one delivers in time (cpf_select.h) */
	if (p->arrival && !ctx->standing)
		needed = top >= 0 ? 1u << top : 0;
	t = mpt_cpf_select_ordered(ctx, window, pkt, p->arrival, order, needed);
	if (t < 0) {
		p->holds++;
		return 0;
	}
	p->overflows += t != top;
	p->picks[t]++;
	return 1u << t;
}

static bool prio_in_order(const void *priv)
{
	return ((const struct prio *)priv)->arrival;
}

static unsigned prio_drain(void *priv, struct mpt_sched_event *ev, unsigned max)
{
	return mpt_steer_drain(&((struct prio *)priv)->st, ev, max);
}

static const struct mpt_param prio_params[] = {
	{ .name = "room", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct prio, room),
	  .min = 0.1, .max = 1, .def = 1,
	  .help = "a path is congested when in_flight >= room x cwnd (TS 23.501 5.32.8 'determined to be congested')" },
	MPT_SCHED_ARRIVAL_PARAMS(struct prio),
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
	  .help = "decisions that held the packet: every path full or down, or the lower ones not needed or not in time" },
	MPT_STEER_STATS(struct prio, st),
};

const struct mpt_sched_ops mpt_sched_priority = {
	.name = "priority",
	.summary = "ATSSS Priority-based: fill the highest priority path, overflow lower (TS 23.501 5.32.8)",
	.pick = prio_pick,
	.in_order = prio_in_order,
	.init = prio_init,
	.drain_events = prio_drain,
	.priv_size = sizeof(struct prio),
	.params = prio_params,
	.nparams = MPT_ARRAY_SIZE(prio_params),
	.stats = prio_stats,
	.nstats = MPT_ARRAY_SIZE(prio_stats),
};
