// SPDX-License-Identifier: MIT
/*
 * redundant — the ATSSS Redundant steering mode of Rel-18 (TS 23.501 5.32.8:
 * "traffic of an SDF is duplicated on both accesses", optionally only when the RTT
 * or loss thresholds are exceeded; TS 24.193 5.2). The receiver keeps the first copy
 * to arrive and drops the other by its data sequence number (src/proto/reorder.c,
 * counted as duplicates).
 *
 * Paths are ranked by srtt (paths within their thresholds first, steer.h; an
 * unsampled path first, to get a sample). A packet that is copied goes on the two
 * best ranked paths that have room (in_flight < cwnd); when only one has room it
 * goes there alone. A packet that is not copied goes on the best path with room.
 * Which packets are copied: every one, or with max_len only those shorter than
 * max_len bytes (voice, game updates, TCP ACKs), with first_pkts only a flow's first
 * first_pkts packets (handshakes, short requests), and with trigger = threshold only
 * while some usable path breaches a threshold. Each copy is a packet of its own on
 * its path: its path's recovery and congestion controller count it like any other;
 * a copy declared lost is not repaired, the other copy is its repair
 * (session_repair.c).
 */
#include <mptund/sched.h>

#include "sched_modules.h"
#include "steer.h"

#define RED_FLOWS 256			/* flow counters, direct-mapped by flow hash */

enum { RED_ALWAYS, RED_THRESHOLD };
static const char *const red_triggers[] = { "always", "threshold", NULL };

struct red {
	uint32_t max_len;		/* tunable: 0 = any size */
	uint32_t first_pkts;		/* tunable: 0 = every packet of a flow */
	uint32_t trigger;		/* tunable: enum above */
	struct mpt_steer_thr thr;	/* tunables */

	struct mpt_steer st;
	struct { uint32_t hash, count; } flows[RED_FLOWS];
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t copied;		/* (stat) packets sent twice */
	uint64_t single;		/* (stat) meant to be copied, one path had room */
	uint64_t holds;			/* (stat) */
};
_Static_assert(sizeof(struct red) <= MPT_SCHED_PRIV_SIZE, "redundant state too large");

static void red_init(void *priv, const struct mpt_sched_ctx *ctx)
{
}

/* True when path a ranks before b. */
static bool ranks_before(const struct red *r, const struct mpt_sched_ctx *ctx,
			 unsigned a, unsigned b)
{
	bool ba = r->st.bad >> a & 1, bb = r->st.bad >> b & 1;
	uint64_t sa = ctx->paths[a].srtt_ns, sb = ctx->paths[b].srtt_ns;

	if (ba != bb)
		return !ba;
	if (!sa || !sb)
		return !sa && sb;
	return sa < sb;
}

/* The two best ranked paths up with room, -1 when missing. */
static void best_two(const struct red *r, const struct mpt_sched_ctx *ctx, int *b0, int *b1)
{
	*b0 = *b1 = -1;
	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!mpt_path_has_room(&ctx->paths[i], ctx->paths[i].cwnd))
			continue;
		if (*b0 < 0 || ranks_before(r, ctx, i, (unsigned)*b0)) {
			*b1 = *b0;
			*b0 = (int)i;
		} else if (*b1 < 0 || ranks_before(r, ctx, i, (unsigned)*b1)) {
			*b1 = (int)i;
		}
	}
}

/* Count the packet in its flow; true while the flow is within its first first_pkts. */
static bool early_in_flow(struct red *r, uint32_t hash)
{
	unsigned k = hash % RED_FLOWS;

	if (r->flows[k].hash != hash || !r->flows[k].count) {
		r->flows[k].hash = hash;
		r->flows[k].count = 0;
	}
	if (r->flows[k].count < UINT32_MAX)
		r->flows[k].count++;
	return r->flows[k].count <= r->first_pkts;
}

static bool wants_copy(struct red *r, const struct mpt_sched_ctx *ctx,
		       const struct mpt_pkt_meta *pkt)
{
	bool early = r->first_pkts ? early_in_flow(r, pkt->flow_hash) : true;

	if (r->max_len && pkt->len >= r->max_len)
		return false;
	if (r->trigger == RED_THRESHOLD && !(r->st.bad & mpt_steer_up(ctx)))
		return false;
	return early;
}

static uint32_t red_pick(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt)
{
	struct red *r = priv;
	bool copy;
	int b0, b1;

	mpt_steer_eval(&r->st, &r->thr, ctx);
	best_two(r, ctx, &b0, &b1);
	if (b0 < 0) {
		r->holds++;
		return 0;
	}
	copy = wants_copy(r, ctx, pkt);
	r->picks[b0]++;
	if (!copy)
		return 1u << b0;
	if (b1 < 0) {
		r->single++;
		return 1u << b0;
	}
	r->picks[b1]++;
	r->copied++;
	return 1u << b0 | 1u << b1;
}

static unsigned red_drain(void *priv, struct mpt_sched_event *ev, unsigned max)
{
	return mpt_steer_drain(&((struct red *)priv)->st, ev, max);
}

static const struct mpt_param red_params[] = {
	{ .name = "max_len", .type = MPT_PARAM_U32, .offset = offsetof(struct red, max_len),
	  .min = 0, .max = 65535, .def = 0,
	  .help = "copy only packets shorter than this many bytes; 0 = any size (ours)" },
	{ .name = "first_pkts", .type = MPT_PARAM_U32, .offset = offsetof(struct red, first_pkts),
	  .min = 0, .max = 1000000, .def = 0,
	  .help = "copy only a flow's first packets, this many; 0 = all (ours)" },
	{ .name = "trigger", .type = MPT_PARAM_ENUM, .offset = offsetof(struct red, trigger),
	  .min = 0, .max = 1, .def = RED_ALWAYS, .enum_names = red_triggers,
	  .help = "copy always, or only while a path breaches a threshold (TS 23.501 5.32.8, Rel-18)" },
	MPT_STEER_THR_PARAMS(struct red, thr),
};

static const struct mpt_stat red_stats[] = {
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct red, picks),
	  .help = "packets (copies included) scheduled on the path" },
	{ .name = "copied", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct red, copied),
	  .help = "packets sent on two paths" },
	{ .name = "single", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct red, single),
	  .help = "packets to copy sent once: a single path had room" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct red, holds),
	  .help = "decisions that held the packet: every path full or down" },
	MPT_STEER_STATS(struct red, st),
};

const struct mpt_sched_ops mpt_sched_redundant = {
	.name = "redundant",
	.summary = "ATSSS Redundant (Rel-18): a copy on the two best paths (TS 23.501 5.32.8)",
	.pick = red_pick,
	.init = red_init,
	.drain_events = red_drain,
	.priv_size = sizeof(struct red),
	.params = red_params,
	.nparams = MPT_ARRAY_SIZE(red_params),
	.stats = red_stats,
	.nstats = MPT_ARRAY_SIZE(red_stats),
};
