// SPDX-License-Identifier: MIT
/*
 * active-standby — the ATSSS Active-Standby steering mode (TS 23.501 5.32.8, "Active-
 * Standby": steer on the active access while it is available, switch to the standby
 * when it becomes unavailable and back when it is available again; TS 24.193 5.2 and
 * the ATSSS rule's steering mode, with thresholds since Rel-17).
 *
 * The active and the standby path are named by path name (tunables; unset or unknown:
 * the first path, and the first other path). All traffic goes on the active path
 * while it is up and within its thresholds (steer.h); else on the standby, when it is
 * up; when neither is usable, on any other path up. Traffic returns to the active
 * path only after it has been up and within its thresholds for return_ms (hysteresis
 * on availability, on top of the thresholds' own). The chosen path is never overflowed:
 * when it has no room (in_flight >= cwnd), the packet is held. Each switch is an event.
 */
#include <mptund/sched.h>

#include "sched_modules.h"
#include "steer.h"

struct asb {
	char active[MPT_NAME_LEN];	/* tunable */
	char standby[MPT_NAME_LEN];	/* tunable */
	uint32_t return_ms;		/* tunable */
	struct mpt_steer_thr thr;	/* tunables */

	struct mpt_steer st;
	int cur;			/* path carrying the traffic; -1 before any */
	bool active_ok;			/* the active path is up, within thresholds */
	uint64_t active_ok_since;	/* ... since then */
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t switches;		/* (stat) */
	uint64_t holds;			/* (stat) */
	uint64_t unknown_names;		/* (stat) picks with a named path not found */
};
_Static_assert(sizeof(struct asb) <= MPT_SCHED_PRIV_SIZE, "active-standby state too large");

static void asb_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct asb *a = priv;

	a->cur = -1;
}

static bool fine(const struct asb *a, const struct mpt_sched_ctx *ctx, int i)
{
	return i >= 0 && ctx->paths[i].up && !(a->st.bad >> i & 1);
}

/* The active and standby path ids; standby -1 when the session has a single path. */
static void roles(struct asb *a, const struct mpt_sched_ctx *ctx, int *act, int *sby)
{
	*act = mpt_steer_path_by_name(ctx, a->active);
	*sby = mpt_steer_path_by_name(ctx, a->standby);
	if ((a->active[0] && *act < 0) || (a->standby[0] && *sby < 0))
		a->unknown_names++;
	if (*act < 0)
		*act = *sby == 0 && ctx->npaths > 1 ? 1 : 0;
	if (*sby < 0 || *sby == *act)
		*sby = ctx->npaths > 1 ? (*act == 0 ? 1 : 0) : -1;
}

/* Where the traffic should go now, before the return hysteresis. */
static int target(const struct asb *a, const struct mpt_sched_ctx *ctx, int act, int sby)
{
	if (fine(a, ctx, act))
		return act;
	if (fine(a, ctx, sby))
		return sby;
	if (ctx->paths[act].up)
		return act;
	if (sby >= 0 && ctx->paths[sby].up)
		return sby;
	for (unsigned i = 0; i < ctx->npaths; i++)	/* neither: any path up */
		if (fine(a, ctx, (int)i))
			return (int)i;
	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up)
			return (int)i;
	return -1;
}

static uint32_t asb_pick(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt)
{
	struct asb *a = priv;
	int act, sby, t;

	mpt_steer_eval(&a->st, &a->thr, ctx);
	roles(a, ctx, &act, &sby);
	if (fine(a, ctx, act) && !a->active_ok)
		a->active_ok_since = ctx->now;
	a->active_ok = fine(a, ctx, act);
	t = target(a, ctx, act, sby);
	/* back to the active path only once it has been fine for return_ms */
	if (t == act && a->cur >= 0 && a->cur != act && ctx->paths[a->cur].up &&
	    ctx->now - a->active_ok_since < (uint64_t)a->return_ms * MPT_NSEC_PER_MSEC)
		t = a->cur;
	if (t < 0) {
		a->holds++;
		return 0;
	}
	if (t != a->cur) {
		mpt_steer_event(&a->st, ctx->now, MPT_SCHED_EV_SWITCH, (unsigned)t, true,
				a->cur, 0);
		if (a->cur >= 0)
			a->switches++;
		a->cur = t;
	}
	if (!mpt_path_has_room(&ctx->paths[t], ctx->paths[t].cwnd)) {
		a->holds++;
		return 0;
	}
	a->picks[t]++;
	return 1u << t;
}

static unsigned asb_drain(void *priv, struct mpt_sched_event *ev, unsigned max)
{
	return mpt_steer_drain(&((struct asb *)priv)->st, ev, max);
}

static const struct mpt_param asb_params[] = {
	{ .name = "active", .type = MPT_PARAM_NAME, .offset = offsetof(struct asb, active),
	  .help = "the active path by name; unset: the first path (TS 23.501 5.32.8)" },
	{ .name = "standby", .type = MPT_PARAM_NAME, .offset = offsetof(struct asb, standby),
	  .help = "the standby path by name; unset: the first other path (TS 23.501 5.32.8)" },
	{ .name = "return_ms", .type = MPT_PARAM_U32, .offset = offsetof(struct asb, return_ms),
	  .min = 0, .max = 600000, .def = 2000,
	  .help = "the active path must be up and within thresholds this long before traffic returns (ours)" },
	MPT_STEER_THR_PARAMS(struct asb, thr),
};

static const struct mpt_stat asb_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct asb, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "switches", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct asb, switches),
	  .help = "moves of the traffic from one path to another" },
	{ .name = "current", .type = MPT_STAT_I32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct asb, cur),
	  .help = "id of the path carrying the traffic; -1 = none yet" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct asb, holds),
	  .help = "decisions that held the packet: the chosen path full, or no path up" },
	{ .name = "unknown_names", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct asb, unknown_names),
	  .help = "decisions where active or standby named no path of the session" },
	MPT_STEER_STATS(struct asb, st),
};

const struct mpt_sched_ops mpt_sched_active_standby = {
	.name = "active-standby",
	.summary = "ATSSS Active-Standby: the active path, the standby when it fails (TS 23.501 5.32.8)",
	.pick = asb_pick,
	.init = asb_init,
	.drain_events = asb_drain,
	.priv_size = sizeof(struct asb),
	.params = asb_params,
	.nparams = MPT_ARRAY_SIZE(asb_params),
	.stats = asb_stats,
	.nstats = MPT_ARRAY_SIZE(asb_stats),
};
