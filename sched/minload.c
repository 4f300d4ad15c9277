// SPDX-License-Identifier: MIT
/*
 * minload — the path with the lowest current load (axiomatic path-selection paper,
 * Baumeister and Keshvadi, sec. 3.2 strategy 2, Min-Load "(Cooperative)").
 *
 * load_p = in_flight_p / cwnd_p, among the up paths with room (in_flight < cwnd);
 * ties go to the lower srtt, then the lower id. No path with room: hold.
 *
 * The paper's agents have "oracle-like knowledge of aggregate path loads". A tunnel
 * anchor really has it for the downlink: every session it serves shares its access
 * paths. scope=aggregate uses load_p = agg_in_flight_p / agg_cwnd_p (the core's sums
 * over every session on the path, view fields agg_*); room is still the session's own
 * window. When the core does not fill the sums (agg_cwnd 0 on an up path: the UE,
 * which sees only its own session) the decision falls back to the session's load and
 * counts a fallback. scope=session is the UE's Min-Load.
 */
#include <mptund/sched.h>

#include "sched_modules.h"

enum minload_scope { ML_SESSION, ML_AGGREGATE };

struct minload {
	uint32_t scope;			/* tunable */
	double load[MPT_MAX_PATHS];	/* (stat) at the last decision */
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t aggregate, fallbacks, holds;	/* (stats) */
};
_Static_assert(sizeof(struct minload) <= MPT_SCHED_PRIV_SIZE, "minload state too large");

static void minload_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

/* True when every up path has the core's aggregate sums. */
static bool minload_has_aggregate(const struct mpt_sched_ctx *ctx)
{
	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up && !ctx->paths[i].agg_cwnd)
			return false;
	return true;
}

static double minload_of(const struct mpt_path_view *v, bool agg)
{
	if (agg)
		return (double)v->agg_in_flight / (double)v->agg_cwnd;
	return v->cwnd ? (double)v->in_flight / (double)v->cwnd : 1.0;
}

static uint32_t minload_pick(void *priv, const struct mpt_sched_ctx *ctx,
			     const struct mpt_pkt_meta *pkt)
{
	struct minload *m = priv;
	bool agg = m->scope == ML_AGGREGATE && minload_has_aggregate(ctx);
	int best = -1;

	if (agg)
		m->aggregate++;
	else if (m->scope == ML_AGGREGATE)
		m->fallbacks++;
	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		m->load[i] = v->up ? minload_of(v, agg) : 0;
		if (!mpt_path_has_room(v, v->cwnd))
			continue;
		if (best < 0 || m->load[i] < m->load[best] ||
		    (m->load[i] == m->load[best] &&
		     v->srtt_ns < ctx->paths[best].srtt_ns))
			best = (int)i;
	}
	if (best < 0) {
		m->holds++;
		return 0;
	}
	m->picks[best]++;
	return 1u << best;
}

static const char *const minload_scopes[] = { "session", "aggregate", NULL };

static const struct mpt_param minload_params[] = {
	{ .name = "scope", .type = MPT_PARAM_ENUM, .offset = offsetof(struct minload, scope),
	  .min = 0, .max = 1, .def = ML_SESSION, .enum_names = minload_scopes,
	  .help = "load of the session's own traffic, or of every session on the path "
		  "(anchor; the paper's oracle, sec. 3.2; session when not filled)" },
};

static const struct mpt_stat minload_stats[] = {
	{ .name = "load", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct minload, load),
	  .help = "in flight / cwnd at the last decision (aggregate or session)" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct minload, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "aggregate", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct minload, aggregate),
	  .help = "decisions on the aggregate load of every session" },
	{ .name = "fallbacks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct minload, fallbacks),
	  .help = "scope=aggregate decisions made on the session's load: no sums" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct minload, holds),
	  .help = "decisions that held the packet: every path full or down" },
};

const struct mpt_sched_ops mpt_sched_minload = {
	.name = "minload",
	.summary = "lowest load (in flight / cwnd), session or aggregate (axiomatic path "
		   "selection, 3.2)",
	.pick = minload_pick,
	.init = minload_init,
	.priv_size = sizeof(struct minload),
	.params = minload_params,
	.nparams = MPT_ARRAY_SIZE(minload_params),
	.stats = minload_stats,
	.nstats = MPT_ARRAY_SIZE(minload_stats),
};
