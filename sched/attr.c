// SPDX-License-Identifier: MIT
/*
 * attr — attribute-aware path selection (axiomatic path-selection paper, Baumeister
 * and Keshvadi, sec. 3.2 strategy 3): "first filters paths based on predefined
 * attributes (e.g. avoiding a high-cost path) and then applies a secondary logic,
 * which for these experiments was Min-RTT"; sec. 4.1 tags path 3 "high-cost".
 *
 * A path passes the filter when it is up and
 *   - carries none of the tags of avoid_tag (view.tags, enum mpt_path_tag),
 *   - its configured cost is at most max_cost,
 *   - its srtt is at most max_rtt_ms (0: no ceiling; a path not yet sampled passes).
 * Among the passing paths with room, the lowest srtt (a path without a sample
 * first, ties to the lower id), as minrtt. When no up path passes, fallback=any
 * applies Min-RTT to every up path (the policy yields to connectivity), fallback=hold
 * holds the packet (the policy is strict). A passing path that is only full holds the
 * packet: the filter is not relaxed for congestion.
 */
#include <mptund/sched.h>

#include "pathsel.h"
#include "sched_modules.h"

enum attr_fallback { ATTR_FALLBACK_ANY, ATTR_FALLBACK_HOLD };

struct attr {
	/* tunables */
	uint32_t avoid_tag;		/* 0 none, else bit (avoid_tag - 1) */
	uint32_t max_cost;
	double max_rtt_ms;
	uint32_t fallback;

	/* stats */
	uint32_t passing[MPT_MAX_PATHS];
	uint64_t picks[MPT_MAX_PATHS];
	uint64_t filtered_out, fallbacks, holds;
};
_Static_assert(sizeof(struct attr) <= MPT_SCHED_PRIV_SIZE, "attr state too large");

static void attr_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

static bool attr_passes(const struct attr *a, const struct mpt_path_view *v)
{
	uint32_t avoid = a->avoid_tag ? 1u << (a->avoid_tag - 1) : 0;

	if (!v->up || (v->tags & avoid) || v->cost > a->max_cost)
		return false;
	return !(a->max_rtt_ms > 0 && v->srtt_ns && v->srtt_ns > a->max_rtt_ms * 1e6);
}

static uint32_t attr_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct attr *a = priv;
	uint32_t pass = 0, up = 0;
	int best;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		a->passing[i] = attr_passes(a, &ctx->paths[i]);
		pass |= a->passing[i] << i;
		up |= (uint32_t)ctx->paths[i].up << i;
	}
	if (up & ~pass)
		a->filtered_out++;
	if (!pass && up) {
		if (a->fallback == ATTR_FALLBACK_HOLD) {
			a->holds++;
			return 0;
		}
		a->fallbacks++;
		pass = up;
	}
	best = mpt_pathsel_minrtt_in(ctx, pass);
	if (best < 0) {
		a->holds++;
		return 0;
	}
	a->picks[best]++;
	return 1u << best;
}

static const char *const attr_tags[] = {
	"none", "metered", "high_cost", "cellular", "satellite", NULL
};
static const char *const attr_fallbacks[] = { "any", "hold", NULL };

static const struct mpt_param attr_params[] = {
	{ .name = "avoid_tag", .type = MPT_PARAM_ENUM, .offset = offsetof(struct attr, avoid_tag),
	  .min = 0, .max = 4, .def = 2, .enum_names = attr_tags,
	  .help = "avoid the paths with this tag (sec. 4.1: path 3 is high-cost)" },
	{ .name = "max_cost", .type = MPT_PARAM_U32, .offset = offsetof(struct attr, max_cost),
	  .min = 0, .max = UINT32_MAX, .def = UINT32_MAX,
	  .help = "avoid the paths whose configured Cost is above this" },
	{ .name = "max_rtt_ms", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct attr, max_rtt_ms), .min = 0, .max = 3600000, .def = 0,
	  .help = "avoid the paths whose srtt is above this, ms; 0 = no ceiling" },
	{ .name = "fallback", .type = MPT_PARAM_ENUM, .offset = offsetof(struct attr, fallback),
	  .min = 0, .max = 1, .def = ATTR_FALLBACK_ANY, .enum_names = attr_fallbacks,
	  .help = "no up path passes: Min-RTT over every up path, or hold" },
};

static const struct mpt_stat attr_stats[] = {
	{ .name = "passing", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct attr, passing),
	  .help = "1 when the path passed the filter at the last decision" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct attr, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "filtered_out", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct attr, filtered_out),
	  .help = "decisions where the filter removed an up path" },
	{ .name = "fallbacks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct attr, fallbacks),
	  .help = "decisions with no up path passing, made over every up path" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct attr, holds),
	  .help = "decisions that held the packet" },
};

const struct mpt_sched_ops mpt_sched_attr = {
	.name = "attr",
	.summary = "Min-RTT among the paths that pass an attribute filter (tag, cost, RTT; "
		   "axiomatic path selection, 3.2)",
	.pick = attr_pick,
	.init = attr_init,
	.priv_size = sizeof(struct attr),
	.params = attr_params,
	.nparams = MPT_ARRAY_SIZE(attr_params),
	.stats = attr_stats,
	.nstats = MPT_ARRAY_SIZE(attr_stats),
};
