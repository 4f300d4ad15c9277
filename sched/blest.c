// SPDX-License-Identifier: MIT
/*
 * blest — Blocking Estimation scheduler (Ferlin, Alay, Mehani, Boreli, "BLEST:
 * Blocking Estimation-based MPTCP Scheduler for Heterogeneous Networks", IFIP
 * Networking 2016, section III; the 7th strategy of the axiomatic path-selection
 * paper, sec. 3.2). Constants as in the authors' Linux module (mptcp_blest).
 *
 * The fast path f is the up path with the lowest srtt (with or without room). If f
 * has room, the packet goes there. Otherwise the candidate s is the lowest-srtt path
 * with room; sending on s would occupy the connection's send window W for about
 * RTT_s, during which f could have sent (sec. III, eq. 1-2)
 *     rtts = RTT_s / RTT_f + 1        (whole rounds of f, at least 1)
 *     X    = MSS_f x (CWND_f + (rtts - 1) / 2) x rtts     congestion avoidance:
 *                                      f's window grows one packet per round
 *     X    = MSS_f x CWND_f x (2^rtts - 1)                 f in slow start (Startup)
 * and s is used only if  X x lambda <= W - (inflight_s + len); else the packet is
 * held for f (s would block f's data at the receiver: head-of-line blocking).
 * CWND_f is in packets of the path MTU.
 *
 * lambda corrects the estimate (sec. III-B): at most once per RTT_s, when a slow path
 * is considered, lambda += lambda_bad if s lost packets since the last update, else
 * lambda -= lambda_good, within [lambda_min, lambda_max]. The module's values are
 * 1.2 initial, 1.0..1.3, -0.01 / +0.04 (mptcp_blest: lambda 12, min_lambda 10,
 * max_lambda 13 in tenths; dyn_lambda_good 10, dyn_lambda_bad 40 in thousandths).
 *
 * W is MPTCP's connection-level send window: what the receiver can buffer out of
 * order. The tunnel's counterpart is the receiver's reorder buffer (mptund.conf(5)
 * ReorderBuffer, packets, default 1024), which a packet sent on the slow path occupies
 * until it arrives: W = window_pkts x the fast path's MTU (ours; the core does not
 * pass ReorderBuffer to the scheduler yet). window_pkts = 0: the sum of the up paths'
 * cwnd, all the tunnel may have outstanding.
 */
#include <math.h>

#include <mptund/sched.h>

#include "sched_modules.h"

struct blest {
	/* tunables */
	double lambda_init, lambda_min, lambda_max, lambda_good, lambda_bad;
	double window_pkts;

	/* state */
	double lambda;
	uint64_t lambda_at;
	bool lambda_set;
	uint64_t lost_mark[MPT_MAX_PATHS];

	/* stats */
	double lambda_stat;
	uint64_t picks[MPT_MAX_PATHS];
	uint64_t fast_picks, slow_picks, blocked, holds;
};
_Static_assert(sizeof(struct blest) <= MPT_SCHED_PRIV_SIZE, "blest state too large");

static void blest_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct blest *b = priv;

	b->lambda = b->lambda_stat = b->lambda_init;
	b->lambda_at = ctx->now;
	for (unsigned i = 0; i < ctx->npaths && i < MPT_MAX_PATHS; i++)
		b->lost_mark[i] = ctx->paths[i].lost_pkts;
}

static void blest_params_changed(void *priv)
{
	struct blest *b = priv;

	if (b->lambda < b->lambda_min)
		b->lambda = b->lambda_min;
	if (b->lambda > b->lambda_max)
		b->lambda = b->lambda_max;
	b->lambda_stat = b->lambda;
}

/* Lowest srtt among the up paths (room: only those with room); -1 if none. A path
 * without an RTT sample ranks first, so it gets one. */
static int blest_minrtt(const struct mpt_sched_ctx *ctx, bool room)
{
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!v->up || (room && !mpt_path_has_room(v, v->cwnd)))
			continue;
		if (best < 0 || v->srtt_ns < ctx->paths[best].srtt_ns)
			best = (int)i;
	}
	return best;
}

/* Section III-B: adapt lambda at most once per RTT of the slow path s. */
static void blest_update_lambda(struct blest *b, const struct mpt_sched_ctx *ctx,
				unsigned s)
{
	const struct mpt_path_view *v = &ctx->paths[s];

	if (ctx->now - b->lambda_at < v->srtt_ns)
		return;
	if (v->lost_pkts != b->lost_mark[s])
		b->lambda += b->lambda_bad;
	else
		b->lambda -= b->lambda_good;
	b->lost_mark[s] = v->lost_pkts;
	b->lambda_at = ctx->now;
	blest_params_changed(b);
}

/* X: bytes the fast path f can send during the slow path's RTT (eq. 1-2). */
static double blest_fast_bytes(const struct mpt_path_view *f, uint64_t slow_rtt)
{
	double mss = f->mtu ? f->mtu : 1200, cwnd = (double)f->cwnd / mss;
	double rtts = f->srtt_ns ? (double)(slow_rtt / f->srtt_ns) + 1 : 1;

	if (f->cc_state == MPT_CC_STARTUP)	/* slow start: doubling per round */
		return mss * cwnd * (exp2(MPT_MIN(rtts, 16)) - 1);
	return mss * (cwnd + (rtts - 1) / 2) * rtts;
}

static double blest_window(const struct blest *b, const struct mpt_sched_ctx *ctx,
			   const struct mpt_path_view *f)
{
	double w = 0;

	if (b->window_pkts > 0)
		return b->window_pkts * (f->mtu ? f->mtu : 1200);
	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up)
			w += (double)ctx->paths[i].cwnd;
	return w;
}

static uint32_t blest_pick(void *priv, const struct mpt_sched_ctx *ctx,
			   const struct mpt_pkt_meta *pkt)
{
	struct blest *b = priv;
	int f = blest_minrtt(ctx, false), s;
	const struct mpt_path_view *fv, *sv;

	if (f < 0) {
		b->holds++;
		return 0;
	}
	fv = &ctx->paths[f];
	if (mpt_path_has_room(fv, fv->cwnd)) {
		b->fast_picks++;
		b->picks[f]++;
		return 1u << f;
	}
	s = blest_minrtt(ctx, true);
	if (s < 0) {
		b->holds++;
		return 0;
	}
	sv = &ctx->paths[s];
	blest_update_lambda(b, ctx, (unsigned)s);
	if (blest_fast_bytes(fv, sv->srtt_ns) * b->lambda >
	    blest_window(b, ctx, fv) - (double)(sv->in_flight + pkt->len)) {
		b->blocked++;	/* s would block f: wait for f */
		return 0;
	}
	b->slow_picks++;
	b->picks[s]++;
	return 1u << s;
}

static const struct mpt_param blest_params[] = {
	{ .name = "lambda", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct blest, lambda_init), .min = 0.1, .max = 10, .def = 1.2,
	  .help = "initial lambda, scaling X (BLEST sec. III-B; mptcp_blest lambda 12/10)" },
	{ .name = "lambda_min", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct blest, lambda_min), .min = 0.1, .max = 10, .def = 1.0,
	  .help = "lowest lambda (mptcp_blest min_lambda 10/10)" },
	{ .name = "lambda_max", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct blest, lambda_max), .min = 0.1, .max = 10, .def = 1.3,
	  .help = "highest lambda (mptcp_blest max_lambda 13/10)" },
	{ .name = "lambda_good", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct blest, lambda_good), .min = 0, .max = 1, .def = 0.01,
	  .help = "lambda decrease per slow-path RTT without loss (mptcp_blest "
		  "dyn_lambda_good 10/1000)" },
	{ .name = "lambda_bad", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct blest, lambda_bad), .min = 0, .max = 1, .def = 0.04,
	  .help = "lambda increase per slow-path RTT with loss (mptcp_blest "
		  "dyn_lambda_bad 40/1000)" },
	{ .name = "window_pkts", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct blest, window_pkts), .min = 0, .max = 1048576,
	  .def = 1024,
	  .help = "send window W of eq. 2, packets of the fast path's MTU: the receiver's "
		  "ReorderBuffer (default 1024); 0 = the up paths' cwnd sum" },
};

static const struct mpt_stat blest_stats[] = {
	{ .name = "lambda", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct blest, lambda_stat), .help = "current lambda" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct blest, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "fast_picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct blest, fast_picks),
	  .help = "packets sent on the lowest-RTT path" },
	{ .name = "slow_picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct blest, slow_picks),
	  .help = "packets sent on a slower path that would not block the fast one" },
	{ .name = "blocked", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct blest, blocked),
	  .help = "packets held for the fast path: the slower one would block it" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct blest, holds),
	  .help = "packets held: no path up or with room" },
};

const struct mpt_sched_ops mpt_sched_blest = {
	.name = "blest",
	.summary = "lowest RTT; a slower path only if it would not block the fast one "
		   "(BLEST, Ferlin et al. 2016)",
	.pick = blest_pick,
	.init = blest_init,
	.params_changed = blest_params_changed,
	.priv_size = sizeof(struct blest),
	.params = blest_params,
	.nparams = MPT_ARRAY_SIZE(blest_params),
	.stats = blest_stats,
	.nstats = MPT_ARRAY_SIZE(blest_stats),
};
