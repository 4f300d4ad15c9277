// SPDX-License-Identifier: MIT
/*
 * exp3 — the TCPPathChanger's flow-level path changer (section 2.2, Figure 2, Listing
 * 1): each flow (inner 5-tuple hash) is a gambler pinned to one path, and a congestion
 * signal of the flow is its time step. Per flow, weights w_i start at the paths'
 * configured capacities (view.capacity, scaled by the largest; equal when any is
 * unset). A new flow starts on the best path by its weights (Listing 1,
 * get_best_path()); ties go to the path with the fewest flows, then a random one.
 *
 * Signals of the flow (Listing 1: ECN CE / CWR, RTO), once its backoff allows:
 *   - a loss of its own packets (on_flow: the core reports acked and lost bytes per
 *     flow after each ACK and loss; without it, a loss on its path while the flow
 *     sends there), an inner retransmission (pkt.tcp_retrans), inner CWR, CE;
 *   - hold: a packet of the flow waits because its path has no room.
 * A step (Figure 2), K = the number of up paths, prob over the up paths only:
 *   x   = the flow's own delivered bytes/s since its last step (on_flow; without it
 *         the bytes it sent) / the best up path's capacity (view.capacity, else the
 *         largest btlbw estimate), clamped to [0, 1]       (sec. 2.2: "connection
 *         quality achieved on this path"; the paper's cwnd has no tunnel counterpart)
 *   w_p = w_p * exp(Gamma * x / (prob_p * K))
 *   prob_i = (1 - Gamma) * w_i / sum_j w_j + Gamma / K
 *   draw the new path from prob; it may be the same one.
 * Backoff (sec. 2.2, "exponential backoff"): a move doubles the flow's backoff (up to
 * backoff_max_ms) and the flow then waits the doubled backoff; a step that stays
 * resets it to backoff_base_ms and waits that. The paper gives no numbers for the
 * backoff or Gamma; ours are documented in the tunables.
 * A pinned path that went down is left at once by a draw from prob without a weight
 * update (failover; no reward observed). Flows live in a bounded LRU table and expire
 * when idle.
 */
#include <math.h>

#include <mptund/sched.h>

#include "sched_modules.h"

#define EXP3_FLOWS_MAX 64

struct exp3_flow {
	uint32_t hash;
	uint32_t loss_mark;		/* path's loss_events at the last step */
	uint32_t backoff_us;		/* us (up to 71 min; the cap is at most 1 h) */
	uint16_t own_losses;		/* on_flow losses since the last step */
	uint8_t path;
	bool used;
	uint64_t seen;
	uint64_t next_step;		/* no step before this */
	uint64_t step_at;		/* start of the reward's measurement */
	uint64_t sent, delivered;	/* bytes of the flow since step_at */
	double w[MPT_MAX_PATHS];
};

struct exp3 {
	/* tunables */
	double gamma;
	double backoff_base_ms;
	double backoff_max_ms;
	uint32_t nflows;
	double idle_ms;

	/* state */
	uint32_t loss_events[MPT_MAX_PATHS];
	bool flow_feedback;		/* the core calls on_flow */
	struct exp3_flow flow[EXP3_FLOWS_MAX];

	/* stats */
	double weight[MPT_MAX_PATHS], prob[MPT_MAX_PATHS];
	uint64_t flows_on[MPT_MAX_PATHS];
	uint64_t flows, steps, moves, backoff_skips, failovers, evictions, expired;
	uint64_t hold_signals, loss_signals, mark_signals;
	uint64_t flow_reports;		/* on_flow calls: the core's per-flow feedback */
	double reward;
};
_Static_assert(sizeof(struct exp3) <= MPT_SCHED_PRIV_SIZE, "exp3 state too large");

/* Figure 2's prob over the up paths (K of them); 0 for a path that is down. When
 * no path is up, over all paths (the stats still show the flow's leaning). */
static void exp3_probs(const struct exp3 *e, const struct exp3_flow *f,
		       const struct mpt_sched_ctx *ctx, double *p)
{
	unsigned k = 0;
	double sum = 0;
	bool any = false;

	for (unsigned i = 0; i < ctx->npaths; i++)
		any |= ctx->paths[i].up;
	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (ctx->paths[i].up || !any) {
			sum += f->w[i];
			k++;
		}
	}
	for (unsigned i = 0; i < ctx->npaths; i++)
		p[i] = ctx->paths[i].up || !any ?
		       (1 - e->gamma) * f->w[i] / sum + e->gamma / k : 0;
}

/* Draw a path from p (0 on the down paths); -1 when none is up. */
static int exp3_draw(const struct mpt_sched_ctx *ctx, const double *p)
{
	double tot = 0, u;
	int last = -1;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up)
			tot += p[i];
	if (tot <= 0)
		return -1;
	u = mpt_rng_double(ctx->rng) * tot;
	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!ctx->paths[i].up)
			continue;
		last = (int)i;
		if (u < p[i])
			return (int)i;
		u -= p[i];
	}
	return last;
}

/* Session view of the flows: mean weight share and probability, flows per path. */
static void exp3_refresh_stats(struct exp3 *e, const struct mpt_sched_ctx *ctx)
{
	unsigned k = ctx->npaths, n = 0;
	double p[MPT_MAX_PATHS];

	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		e->weight[i] = e->prob[i] = 0;
		e->flows_on[i] = 0;
	}
	for (unsigned j = 0; j < MPT_MIN(e->nflows, EXP3_FLOWS_MAX); j++) {
		const struct exp3_flow *f = &e->flow[j];
		double sum = 0;

		if (!f->used)
			continue;
		n++;
		exp3_probs(e, f, ctx, p);
		for (unsigned i = 0; i < k; i++)
			sum += f->w[i];
		for (unsigned i = 0; i < k; i++) {
			e->weight[i] += f->w[i] / sum;
			e->prob[i] += p[i];
		}
		e->flows_on[f->path]++;
	}
	for (unsigned i = 0; n && i < k; i++) {
		e->weight[i] /= n;
		e->prob[i] /= n;
	}
	e->flows = n;
}

static void exp3_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct exp3 *e = priv;

	for (unsigned j = 0; j < EXP3_FLOWS_MAX; j++)
		e->flow[j].used = false;
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		e->loss_events[i] = 0;
	exp3_refresh_stats(e, ctx);
}

/* Initial weights: configured capacities scaled by the largest, else all 1. */
static void exp3_flow_start(struct exp3 *e, const struct mpt_sched_ctx *ctx,
			    struct exp3_flow *f)
{
	uint64_t cmax = 0;
	bool all = true;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		if (!ctx->paths[i].capacity)
			all = false;
		cmax = MPT_MAX(cmax, ctx->paths[i].capacity);
	}
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		f->w[i] = all && i < ctx->npaths ?
			(double)ctx->paths[i].capacity / (double)cmax : 1.0;
	f->backoff_us = (uint32_t)(e->backoff_base_ms * 1e3);
	f->next_step = 0;
	f->own_losses = 0;
}

/* Listing 1's get_best_path(): the up path of largest weight; ties to the path with
 * the fewest flows, then a uniformly random one of those. -1 when none is up. */
static int exp3_best_path(const struct exp3 *e, const struct mpt_sched_ctx *ctx,
			  const struct exp3_flow *f)
{
	uint32_t tied = 0;
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		int cmp;

		if (!ctx->paths[i].up)
			continue;
		cmp = best < 0 ? 1 : f->w[i] > f->w[best] ? 1 : f->w[i] < f->w[best] ? -1 :
		      e->flows_on[i] < e->flows_on[best] ? 1 :
		      e->flows_on[i] > e->flows_on[best] ? -1 : 0;
		if (cmp > 0) {
			best = (int)i;
			tied = 1u << i;
		} else if (cmp == 0) {
			tied |= 1u << i;
		}
	}
	if (best >= 0 && __builtin_popcount(tied) > 1) {
		unsigned k = mpt_rng_below(ctx->rng, (unsigned)__builtin_popcount(tied));

		while (k--)
			tied &= tied - 1;
		best = __builtin_ctz(tied);
	}
	return best;
}

/* The flow's slot: found (not expired), or a free/expired one, or the LRU one. */
static struct exp3_flow *exp3_flow(struct exp3 *e, const struct mpt_sched_ctx *ctx,
				   uint32_t hash, bool *fresh)
{
	uint64_t idle = (uint64_t)(e->idle_ms * 1e6);
	struct exp3_flow *lru = NULL;

	for (unsigned j = 0; j < MPT_MIN(e->nflows, EXP3_FLOWS_MAX); j++) {
		struct exp3_flow *f = &e->flow[j];

		if (f->used && ctx->now - f->seen > idle) {
			f->used = false;
			e->expired++;
		}
		if (f->used && f->hash == hash) {
			*fresh = false;
			return f;
		}
		if (!lru || (lru->used && (!f->used || f->seen < lru->seen)))
			lru = f;
	}
	if (lru->used)
		e->evictions++;
	lru->used = false;
	lru->hash = hash;
	*fresh = true;
	return lru;
}

/* The reward's scale: the best up path's capacity, else its bottleneck estimate. */
static double exp3_best_rate(const struct mpt_sched_ctx *ctx)
{
	double best = 0;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (v->up)
			best = MPT_MAX(best, (double)(v->capacity ? v->capacity : v->btlbw));
	}
	return best;
}

/* x of Figure 2: the flow's own rate since its last step over the best path's. */
static double exp3_reward(const struct exp3 *e, const struct mpt_sched_ctx *ctx,
			  const struct exp3_flow *f)
{
	double best = exp3_best_rate(ctx), dt = (double)(ctx->now - f->step_at) / 1e9;
	double bytes = (double)(e->flow_feedback ? f->delivered : f->sent);

	if (best <= 0 || dt <= 0)
		return 0;
	return MPT_MIN(1.0, bytes / dt / best);
}

/* Restart the flow's measurement and signal marks after a step or a move. */
static void exp3_mark(struct exp3 *e, const struct mpt_sched_ctx *ctx,
		      struct exp3_flow *f)
{
	f->step_at = ctx->now;
	f->sent = f->delivered = 0;
	f->own_losses = 0;
	f->loss_mark = e->loss_events[f->path];
}

/* One EXP3 step (Figure 2) for flow f on its current path. */
static void exp3_step(struct exp3 *e, const struct mpt_sched_ctx *ctx,
		      struct exp3_flow *f)
{
	unsigned k = ctx->npaths, cur = f->path, kup = 0;
	double p[MPT_MAX_PATHS], x = exp3_reward(e, ctx, f), wmax = 0;
	int next;

	for (unsigned i = 0; i < k; i++)
		kup += ctx->paths[i].up;
	exp3_probs(e, f, ctx, p);
	if (p[cur] > 0)
		f->w[cur] *= exp(e->gamma * x / (p[cur] * kup));
	for (unsigned i = 0; i < k; i++)
		wmax = MPT_MAX(wmax, f->w[i]);
	if (wmax > 1e200)	/* prob is scale-free: keep the weights finite */
		for (unsigned i = 0; i < k; i++)
			f->w[i] /= wmax;
	exp3_probs(e, f, ctx, p);
	next = exp3_draw(ctx, p);
	e->steps++;
	e->reward = x;
	if (next >= 0 && (unsigned)next != cur) {
		f->path = (uint8_t)next;
		e->moves++;
		/* the doubled backoff is the wait before the next step */
		f->backoff_us = (uint32_t)MPT_MIN(2.0 * f->backoff_us, e->backoff_max_ms * 1e3);
	} else {
		f->backoff_us = (uint32_t)(e->backoff_base_ms * 1e3);
	}
	f->next_step = ctx->now + (uint64_t)f->backoff_us * 1000;
	exp3_mark(e, ctx, f);
	exp3_refresh_stats(e, ctx);
}

/* A new flow on the best path, or a flow whose path went down redrawn. */
static bool exp3_place(struct exp3 *e, const struct mpt_sched_ctx *ctx,
		       struct exp3_flow *f, bool fresh)
{
	double p[MPT_MAX_PATHS];
	int next;

	if (fresh) {
		exp3_flow_start(e, ctx, f);
		next = exp3_best_path(e, ctx, f);
	} else {
		exp3_probs(e, f, ctx, p);
		next = exp3_draw(ctx, p);
	}
	if (next < 0)
		return false;	/* no path up: a new flow is not created */
	if (!fresh)
		e->failovers++;
	f->used = true;
	f->path = (uint8_t)next;
	exp3_mark(e, ctx, f);
	exp3_refresh_stats(e, ctx);
	return true;
}

/* The flow's congestion signals since its last step (Listing 1), hold excluded. */
static bool exp3_signal(struct exp3 *e, const struct exp3_flow *f,
			const struct mpt_pkt_meta *pkt)
{
	bool loss = e->flow_feedback ? f->own_losses > 0 :
		    e->loss_events[f->path] != f->loss_mark;

	if (loss || pkt->tcp_retrans) {
		e->loss_signals++;
		return true;
	}
	if (pkt->ecn == 3 || (pkt->tcp_flags & MPT_TCP_FLAG_CWR)) {
		e->mark_signals++;
		return true;
	}
	return false;
}

static uint32_t exp3_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct exp3 *e = priv;
	struct exp3_flow *f;
	const struct mpt_path_view *v;
	bool fresh, sig;

	f = exp3_flow(e, ctx, pkt->flow_hash, &fresh);
	if ((fresh || f->path >= ctx->npaths || !ctx->paths[f->path].up) &&
	    !exp3_place(e, ctx, f, fresh))
		return 0;
	f->seen = ctx->now;
	v = &ctx->paths[f->path];
	sig = exp3_signal(e, f, pkt);
	if (!sig && !mpt_path_has_room(v, v->cwnd)) {
		e->hold_signals++;	/* the flow's path has no room: a signal */
		sig = true;
	}
	if (sig && ctx->now >= f->next_step) {
		exp3_step(e, ctx, f);
		v = &ctx->paths[f->path];
	} else if (sig) {
		e->backoff_skips++;
		f->loss_mark = e->loss_events[f->path];
		f->own_losses = 0;
	}
	if (!mpt_path_has_room(v, v->cwnd))
		return 0;
	f->sent += pkt->len;
	return 1u << f->path;
}

static void exp3_on_flow(void *priv, const struct mpt_sched_ctx *ctx, uint32_t hash,
			 unsigned path, uint64_t acked_bytes, uint64_t lost_bytes)
{
	struct exp3 *e = priv;

	e->flow_feedback = true;
	e->flow_reports++;
	for (unsigned j = 0; j < MPT_MIN(e->nflows, EXP3_FLOWS_MAX); j++) {
		struct exp3_flow *f = &e->flow[j];

		if (!f->used || f->hash != hash || f->path != path)
			continue;
		f->delivered += acked_bytes;
		if (lost_bytes && f->own_losses < UINT16_MAX)
			f->own_losses++;
		return;
	}
}

static void exp3_on_loss(void *priv, const struct mpt_sched_ctx *ctx, unsigned path,
			 uint64_t lost_bytes)
{
	struct exp3 *e = priv;

	if (path < MPT_MAX_PATHS)
		e->loss_events[path]++;
}

static void exp3_tick(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct exp3 *e = priv;
	uint64_t idle = (uint64_t)(e->idle_ms * 1e6);
	bool changed = false;

	for (unsigned j = 0; j < EXP3_FLOWS_MAX; j++) {
		struct exp3_flow *f = &e->flow[j];

		if (f->used && ctx->now - f->seen > idle) {
			f->used = false;
			e->expired++;
			changed = true;
		}
	}
	if (changed)
		exp3_refresh_stats(e, ctx);
}

static const struct mpt_param exp3_params[] = {
	{ .name = "gamma", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct exp3, gamma),
	  .min = 0.001, .max = 1, .def = 0.1,
	  .help = "EXP3 exploration Gamma (Figure 2; the paper gives no value and saw "
		  "no effect of it, 3.1)" },
	{ .name = "backoff_base_ms", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct exp3, backoff_base_ms), .min = 1, .max = 3600000,
	  .def = 200,
	  .help = "first wait between a flow's EXP3 steps, ms (2.2 exponential backoff; no "
		  "value in the paper: TCP's minimum RTO, its RTO hook, 2.5)" },
	{ .name = "backoff_max_ms", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct exp3, backoff_max_ms), .min = 1, .max = 3600000,
	  .def = 12800,
	  .help = "cap of the doubling backoff, ms (2.2; no value in the paper: "
		  "200 ms * 2^6)" },
	{ .name = "flows", .type = MPT_PARAM_U32, .offset = offsetof(struct exp3, nflows),
	  .min = 1, .max = EXP3_FLOWS_MAX, .def = EXP3_FLOWS_MAX,
	  .help = "flows tracked (LRU), each with its own weights (2.5 connection map)" },
	{ .name = "idle_ms", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct exp3, idle_ms),
	  .min = 1, .max = 86400000, .def = 30000,
	  .help = "a flow idle this long is forgotten, ms (2.5: state cleaned on close)" },
};

static const struct mpt_stat exp3_stats[] = {
	{ .name = "weight", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct exp3, weight),
	  .help = "mean over flows of w_i / sum w" },
	{ .name = "prob", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE, .per_path = true,
	  .offset = offsetof(struct exp3, prob), .help = "mean over flows of prob_i" },
	{ .name = "flows_on", .type = MPT_STAT_U64, .kind = MPT_STAT_GAUGE, .per_path = true,
	  .offset = offsetof(struct exp3, flows_on), .help = "flows pinned to the path" },
	{ .name = "flows", .type = MPT_STAT_U64, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct exp3, flows), .help = "flows tracked" },
	{ .name = "steps", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, steps),
	  .help = "EXP3 steps taken on congestion signals" },
	{ .name = "moves", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, moves), .help = "steps that moved the flow" },
	{ .name = "backoff_skips", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, backoff_skips),
	  .help = "congestion signals ignored during backoff" },
	{ .name = "failovers", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, failovers),
	  .help = "flows redrawn because their path went down" },
	{ .name = "hold_signals", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, hold_signals),
	  .help = "signals: a packet of the flow held, its path without room" },
	{ .name = "loss_signals", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, loss_signals),
	  .help = "signals: a loss of the flow or an inner retransmission" },
	{ .name = "mark_signals", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, mark_signals),
	  .help = "signals: ECN CE or inner TCP CWR on a packet of the flow" },
	{ .name = "reward", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct exp3, reward),
	  .help = "reward x of the last step (flow rate / best path rate)" },
	{ .name = "flow_evictions", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, evictions),
	  .help = "flows dropped from the full table (LRU)" },
	{ .name = "flows_expired", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, expired), .help = "flows forgotten when idle" },
	{ .name = "flow_reports", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct exp3, flow_reports),
	  .help = "per-flow acked/lost reports from the core (0: rewards and losses fall "
		  "back to the flow's path)" },
};

/* Every flow is pinned to its path: a held flow holds no other (flowhold.h). */
static bool exp3_per_flow(const void *priv)
{
	(void)priv;
	return true;
}

const struct mpt_sched_ops mpt_sched_exp3 = {
	.name = "exp3",
	.summary = "flows pinned to paths, moved by EXP3 on congestion with backoff "
		   "(TCPPathChanger, 2.2)",
	.pick = exp3_pick,
	.init = exp3_init,
	.on_loss = exp3_on_loss,
	.on_flow = exp3_on_flow,
	.tick = exp3_tick,
	.tick_ns = 100 * MPT_NSEC_PER_MSEC,
	.priv_size = sizeof(struct exp3),
	.params = exp3_params,
	.nparams = MPT_ARRAY_SIZE(exp3_params),
	.stats = exp3_stats,
	.nstats = MPT_ARRAY_SIZE(exp3_stats),
	.per_flow = exp3_per_flow,
};
