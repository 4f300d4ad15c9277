// SPDX-License-Identifier: MIT
/*
 * smallest-delay — the ATSSS Smallest Delay steering mode (TS 23.501 5.32.8,
 * "Smallest Delay: steer the traffic to the access that is determined to have the
 * smallest Round Trip Time"; TS 24.193 5.2, with RTT/loss thresholds since Rel-17).
 *
 * All traffic goes on one path: the one with the lowest srtt among the paths up and
 * within their thresholds (steer.h). A path without an RTT sample yet takes a packet
 * first, so that it gets one. To keep the traffic from flapping between paths of
 * similar delay, it moves only when another path's srtt is below the current one's
 * by the fraction margin, and not sooner than dwell_ms after the previous move.
 * Unlike minrtt the chosen path is not overflowed: when it has no room the packet is
 * held, unless spill is set (then the next lowest srtt with room takes it).
 */
#include <mptund/sched.h>

#include "sched_modules.h"
#include "steer.h"

struct sdelay {
	double margin;			/* tunable */
	uint32_t dwell_ms;		/* tunable */
	bool spill;			/* tunable */
	struct mpt_steer_thr thr;	/* tunables */

	struct mpt_steer st;
	int cur;			/* -1 before any */
	uint64_t moved_at;
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t switches, spills, probes, holds;	/* (stats) */
};
_Static_assert(sizeof(struct sdelay) <= MPT_SCHED_PRIV_SIZE, "smallest-delay state too large");

static void sd_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct sdelay *d = priv;

	d->cur = -1;
}

/* Lowest srtt among mask (unsampled first); -1 when mask is empty. */
static int lowest(const struct mpt_sched_ctx *ctx, uint32_t mask)
{
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		uint64_t s = ctx->paths[i].srtt_ns;

		if (!(mask >> i & 1))
			continue;
		if (best < 0)
			best = (int)i;
		else if (ctx->paths[best].srtt_ns && (!s || s < ctx->paths[best].srtt_ns))
			best = (int)i;	/* an unsampled best keeps its place (lower id) */
	}
	return best;
}

static int choose(struct sdelay *d, const struct mpt_sched_ctx *ctx, uint32_t ok)
{
	int best = lowest(ctx, ok), cur = d->cur;

	if (best < 0 || cur < 0 || !(ok >> cur & 1) || !ctx->paths[best].srtt_ns)
		return best;
	if (ctx->now - d->moved_at < (uint64_t)d->dwell_ms * MPT_NSEC_PER_MSEC)
		return cur;
	if ((double)ctx->paths[best].srtt_ns >= (1 - d->margin) * (double)ctx->paths[cur].srtt_ns)
		return cur;
	return best;
}

static uint32_t sd_pick(void *priv, const struct mpt_sched_ctx *ctx,
			const struct mpt_pkt_meta *pkt)
{
	struct sdelay *d = priv;
	uint32_t ok;
	int t;

	mpt_steer_eval(&d->st, &d->thr, ctx);
	ok = mpt_steer_usable(&d->st, ctx);
	t = choose(d, ctx, ok);
	if (t < 0) {
		d->holds++;
		return 0;
	}
	if (!ctx->paths[t].srtt_ns) {			/* probe an unsampled path */
		if (!mpt_path_has_room(&ctx->paths[t], ctx->paths[t].cwnd)) {
			d->holds++;
			return 0;
		}
		d->probes++;
		d->picks[t]++;
		return 1u << t;
	}
	if (t != d->cur) {
		mpt_steer_event(&d->st, ctx->now, MPT_SCHED_EV_SWITCH, (unsigned)t, true,
				d->cur, 0);
		d->switches += d->cur >= 0;
		d->cur = t;
		d->moved_at = ctx->now;
	}
	if (!mpt_path_has_room(&ctx->paths[t], ctx->paths[t].cwnd)) {
		uint32_t room = 0;

		for (unsigned i = 0; d->spill && i < ctx->npaths; i++)
			if ((ok >> i & 1) && mpt_path_has_room(&ctx->paths[i], ctx->paths[i].cwnd))
				room |= 1u << i;
		t = lowest(ctx, room);
		if (t < 0) {
			d->holds++;
			return 0;
		}
		d->spills++;
	}
	d->picks[t]++;
	return 1u << t;
}

static unsigned sd_drain(void *priv, struct mpt_sched_event *ev, unsigned max)
{
	return mpt_steer_drain(&((struct sdelay *)priv)->st, ev, max);
}

static const struct mpt_param sd_params[] = {
	{ .name = "margin", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct sdelay, margin),
	  .min = 0, .max = 0.9, .def = 0.1,
	  .help = "move only to a path whose srtt is lower by this fraction (ours, against flapping)" },
	{ .name = "dwell_ms", .type = MPT_PARAM_U32, .offset = offsetof(struct sdelay, dwell_ms),
	  .min = 0, .max = 600000, .def = 500,
	  .help = "least time between two moves of the traffic (ours, against flapping)" },
	{ .name = "spill", .type = MPT_PARAM_BOOL, .offset = offsetof(struct sdelay, spill),
	  .min = 0, .max = 1, .def = 0,
	  .help = "when the chosen path is full, use the next lowest srtt with room (ours; off = TS 23.501 5.32.8)" },
	MPT_STEER_THR_PARAMS(struct sdelay, thr),
};

static const struct mpt_stat sd_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct sdelay, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "current", .type = MPT_STAT_I32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct sdelay, cur),
	  .help = "id of the path with the smallest delay; -1 = none yet" },
	{ .name = "switches", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct sdelay, switches),
	  .help = "moves of the traffic to a path of smaller delay" },
	{ .name = "spills", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct sdelay, spills),
	  .help = "packets sent on another path because the chosen one was full (spill)" },
	{ .name = "probes", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct sdelay, probes),
	  .help = "packets sent on a path that had no RTT sample yet" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct sdelay, holds),
	  .help = "decisions that held the packet: the chosen path full, or no path up" },
	MPT_STEER_STATS(struct sdelay, st),
};

const struct mpt_sched_ops mpt_sched_smallest_delay = {
	.name = "smallest-delay",
	.summary = "ATSSS Smallest Delay: all traffic on the lowest-RTT path (TS 23.501 5.32.8)",
	.pick = sd_pick,
	.init = sd_init,
	.drain_events = sd_drain,
	.priv_size = sizeof(struct sdelay),
	.params = sd_params,
	.nparams = MPT_ARRAY_SIZE(sd_params),
	.stats = sd_stats,
	.nstats = MPT_ARRAY_SIZE(sd_stats),
};
