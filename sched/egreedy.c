// SPDX-License-Identifier: MIT
/*
 * egreedy — epsilon-greedy path selection (Baumeister, Keshvadi, "An Axiomatic Analysis
 * of Path Selection Strategies", section 3.2, algorithm 6).
 *
 * A decision draws u ~ U[0,1): u < epsilon explores (a uniformly random path with
 * room), otherwise it exploits (the path with room with the lowest srtt; a path
 * without an RTT sample ranks first). No path with room: hold, nothing drawn.
 * epsilon = 0.1 as in the paper's runs; optionally it decays as
 *   epsilon(t) = epsilon0 * H / (H + t),  t = time since init, H = half-life
 * (a 1/t schedule that halves epsilon after H, thirds it after 2H, ...).
 * Granularity: per packet, or per flow as the paper's agents decide: each flow hash
 * keeps its drawn path for redraw_ms (the paper's 10 ms time step, section 3.1) in a
 * small LRU table; a flow whose path has no room is held, one whose path went down is
 * redrawn at once.
 */
#include <mptund/sched.h>

#include "arrival.h"
#include "pathsel.h"
#include "sched_modules.h"

#define EG_FLOWS_MAX 64

enum eg_decay { EG_DECAY_NONE, EG_DECAY_INVERSE };
enum eg_mode { EG_PACKET, EG_FLOW };

struct eg_flow {
	uint32_t hash;
	uint8_t path;
	bool used;
	uint64_t drawn_at;
	uint64_t seen;
};

struct egreedy {
	/* tunables */
	double epsilon;
	uint32_t decay;
	double half_life_ms;
	uint32_t mode;
	double redraw_ms;
	uint32_t nflows;
	bool arrival;

	/* state */
	uint64_t start;
	struct eg_flow flow[EG_FLOWS_MAX];

	/* stats */
	double eps_now;
	uint64_t explorations, exploitations, evictions;
	uint64_t picks[MPT_MAX_PATHS];
};
_Static_assert(sizeof(struct egreedy) <= MPT_SCHED_PRIV_SIZE, "egreedy state too large");

static void eg_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct egreedy *eg = priv;

	eg->start = ctx->now;
	eg->eps_now = eg->epsilon;
	for (unsigned i = 0; i < EG_FLOWS_MAX; i++)
		eg->flow[i].used = false;
}

static double eg_epsilon(struct egreedy *eg, uint64_t now)
{
	double h = eg->half_life_ms * 1e6, t = now > eg->start ? (double)(now - eg->start) : 0;

	eg->eps_now = eg->decay == EG_DECAY_INVERSE ? eg->epsilon * h / (h + t)
						    : eg->epsilon;
	return eg->eps_now;
}

/* One epsilon-greedy decision among the paths with room; -1 when none has room. */
static int eg_draw(struct egreedy *eg, const struct mpt_sched_ctx *ctx, uint32_t len)
{
	uint32_t room = mpt_pathsel_room_mask(ctx);

	if (room && eg->arrival)	/* ours: slower paths only when in time */
		room &= mpt_arrival_useful(ctx, ~0u, NULL, len);
	if (!room)
		return -1;
	if (mpt_rng_double(ctx->rng) < eg_epsilon(eg, ctx->now)) {
		eg->explorations++;
		return (int)mpt_pathsel_random(ctx->rng, room);
	}
	eg->exploitations++;
	return mpt_pathsel_minrtt_in(ctx, room);
}

/* The flow's slot: found, or a free one, or the least recently seen (evicted). */
static struct eg_flow *eg_flow(struct egreedy *eg, uint32_t hash)
{
	struct eg_flow *lru = NULL;
	unsigned n = MPT_MIN(eg->nflows, EG_FLOWS_MAX);

	for (unsigned i = 0; i < n; i++) {
		struct eg_flow *f = &eg->flow[i];

		if (f->used && f->hash == hash)
			return f;
		if (!lru || (lru->used && (!f->used || f->seen < lru->seen)))
			lru = f;
	}
	if (lru->used)
		eg->evictions++;
	lru->used = false;
	lru->hash = hash;
	return lru;
}

static uint32_t eg_pick(void *priv, const struct mpt_sched_ctx *ctx,
			const struct mpt_pkt_meta *pkt)
{
	struct egreedy *eg = priv;
	struct eg_flow *f;
	int p;

	if (eg->mode == EG_PACKET) {
		p = eg_draw(eg, ctx, pkt->len);
		if (p < 0)
			return 0;
		eg->picks[p]++;
		return 1u << p;
	}
	f = eg_flow(eg, pkt->flow_hash);
	f->seen = ctx->now;
	if (f->used && f->path < ctx->npaths && ctx->paths[f->path].up &&
	    ctx->now - f->drawn_at < (uint64_t)(eg->redraw_ms * 1e6)) {
		const struct mpt_path_view *v = &ctx->paths[f->path];

		if (!mpt_path_has_room(v, v->cwnd))
			return 0;
		eg->picks[f->path]++;
		return 1u << f->path;
	}
	p = eg_draw(eg, ctx, pkt->len);
	if (p < 0)
		return 0;
	f->used = true;
	f->path = (uint8_t)p;
	f->drawn_at = ctx->now;
	eg->picks[p]++;
	return 1u << p;
}

static const char *const eg_decays[] = { "none", "inverse", NULL };
static const char *const eg_modes[] = { "packet", "flow", NULL };

static const struct mpt_param eg_params[] = {
	MPT_SCHED_ARRIVAL_PARAM(struct egreedy),
	{ .name = "epsilon", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct egreedy, epsilon), .min = 0, .max = 1, .def = 0.1,
	  .help = "exploration probability epsilon (section 3.2: 0.1)" },
	{ .name = "decay", .type = MPT_PARAM_ENUM, .offset = offsetof(struct egreedy, decay),
	  .min = 0, .max = 1, .def = EG_DECAY_NONE, .enum_names = eg_decays,
	  .help = "epsilon schedule: none (constant, section 3.2) or inverse, "
		  "epsilon * H / (H + t)" },
	{ .name = "half_life_ms", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct egreedy, half_life_ms), .min = 1, .max = 86400000,
	  .def = 10000, .help = "inverse decay: time H after which epsilon has halved, ms" },
	{ .name = "granularity", .type = MPT_PARAM_ENUM,
	  .offset = offsetof(struct egreedy, mode), .min = 0, .max = 1, .def = EG_PACKET,
	  .enum_names = eg_modes,
	  .help = "decide per packet, or per flow hash every redraw_ms as the paper's "
		  "agents do (section 3.1)" },
	{ .name = "redraw_ms", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct egreedy, redraw_ms), .min = 0.001, .max = 3600000,
	  .def = 10, .help = "flow granularity: a flow's path is redrawn after this, ms "
			     "(section 3.1: one 10 ms time step)" },
	{ .name = "flows", .type = MPT_PARAM_U32, .offset = offsetof(struct egreedy, nflows),
	  .min = 1, .max = EG_FLOWS_MAX, .def = 32,
	  .help = "flow granularity: flows remembered (LRU)" },
};

static bool egreedy_in_order(const void *priv)
{
	const struct egreedy *c = priv;

	return c->arrival && c->mode == EG_PACKET;
}

/* granularity=flow pins each flow to its draw: a held flow holds no other. */
static bool egreedy_per_flow(const void *priv)
{
	const struct egreedy *c = priv;

	return c->mode == EG_FLOW;
}

static const struct mpt_stat eg_stats[] = {
	{ .name = "epsilon", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct egreedy, eps_now),
	  .help = "epsilon at the last decision (after decay)" },
	{ .name = "explorations", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct egreedy, explorations),
	  .help = "decisions that took a uniformly random path" },
	{ .name = "exploitations", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct egreedy, exploitations),
	  .help = "decisions that took the lowest-srtt path" },
	{ .name = "flow_evictions", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct egreedy, evictions),
	  .help = "flows dropped from the full table (LRU)" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct egreedy, picks),
	  .help = "packets scheduled on the path" },
};

const struct mpt_sched_ops mpt_sched_egreedy = {
	.name = "egreedy",
	.summary = "epsilon-greedy: min-srtt path, random one with probability epsilon "
		   "(axiomatic path selection, 3.2)",
	.pick = eg_pick,
	.in_order = egreedy_in_order,
	.per_flow = egreedy_per_flow,
	.init = eg_init,
	.priv_size = sizeof(struct egreedy),
	.params = eg_params,
	.nparams = MPT_ARRAY_SIZE(eg_params),
	.stats = eg_stats,
	.nstats = MPT_ARRAY_SIZE(eg_stats),
};
