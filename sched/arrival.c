// SPDX-License-Identifier: MIT
/* Arrival-aware path selection: see arrival.h for the model and its sources. */
#include "arrival.h"

/* A path's estimates for one decision. */
struct est {
	double a;		/* predicted arrival, ns from now */
	double r;		/* rate, bytes per ns, for the water level */
	double cap;		/* proven capacity, bytes/s; 0 = unproven */
};

/* What an unproven path is seen to carry at least: its delivery rate or a window per
 * round trip (bytes/s). */
static double floor_rate(const struct mpt_path_view *v)
{
	double r = (double)v->delivery_rate;

	if (v->cwnd && v->srtt_ns && (double)v->cwnd * 1e9 / (double)v->srtt_ns > r)
		r = (double)v->cwnd * 1e9 / (double)v->srtt_ns;
	return r > MPT_ARRIVAL_DEFAULT_RATE ? r : MPT_ARRIVAL_DEFAULT_RATE;
}

static struct est estimate(const struct mpt_path_view *v, uint64_t window, uint32_t len)
{
	struct est e = { .cap = (double)v->btlbw };
	double r = e.cap ? e.cap : floor_rate(v), wait = 0;

	if (v->queued_bytes && v->pacing_rate)
		wait = (double)v->queued_bytes * 1e9 / (double)v->pacing_rate;
	if (v->in_flight + len > window) {
		double w = (double)(v->in_flight + len - window) * 1e9 / r;

		if (w > wait)
			wait = w;
	}
	if (e.cap)		/* unproven: no serialization guess, see arrival.h */
		wait += (double)len * 1e9 / r;
	e.a = wait + (double)(v->srtt_ns / 2);
	e.r = r / 1e9;
	return e;
}

uint64_t mpt_arrival_ns(const struct mpt_path_view *v, uint64_t window, uint32_t len)
{
	return (uint64_t)estimate(v, window, len).a;
}

void mpt_arrival_order(const struct mpt_sched_ctx *ctx, const uint64_t *window,
		       uint32_t len, uint8_t *order)
{
	double at[MPT_MAX_PATHS];

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];
		unsigned k = i;

		at[i] = estimate(v, window ? window[i] : v->cwnd, len).a;
		/* insertion sort: K <= MPT_MAX_PATHS */
		while (k > 0 && at[order[k - 1]] > at[i]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = (uint8_t)i;
	}
}

void mpt_arrival_cost_order(const struct mpt_sched_ctx *ctx, uint8_t *order)
{
	for (unsigned i = 0; i < ctx->npaths; i++) {
		unsigned k = i;

		while (k > 0 && ctx->paths[order[k - 1]].cost > ctx->paths[i].cost) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = (uint8_t)i;
	}
}

uint32_t mpt_arrival_useful_ordered(const struct mpt_sched_ctx *ctx, const uint8_t *order,
				    uint32_t among, const uint64_t *window, uint32_t len)
{
	double backlog = (double)(ctx->queue_bytes > len ? ctx->queue_bytes : len);
	double sum_r = 0, sum_ra = 0;
	uint32_t mask = 0;

	for (unsigned k = 0; k < ctx->npaths; k++) {
		unsigned i = order[k];
		const struct mpt_path_view *v = &ctx->paths[i];
		struct est e;

		if (!(among >> i & 1) || !v->up)
			continue;
		e = estimate(v, window ? window[i] : v->cwnd, len);
		/* later ones: useful when delivering before the set would finish */
		if (mask && e.a >= (backlog + sum_ra) / sum_r)
			continue;
		mask |= 1u << i;
		sum_r += e.r;
		sum_ra += e.r * e.a;
	}
	return mask;
}

uint32_t mpt_arrival_useful(const struct mpt_sched_ctx *ctx, uint32_t among,
			    const uint64_t *window, uint32_t len)
{
	uint8_t order[MPT_MAX_PATHS];

	mpt_arrival_order(ctx, window, len, order);
	return mpt_arrival_useful_ordered(ctx, order, among, window, len);
}

uint32_t mpt_arrival_needed(const struct mpt_sched_ctx *ctx)
{
	uint8_t order[MPT_MAX_PATHS];

	if (ctx->standing)
		return ~0u;
	mpt_arrival_cost_order(ctx, order);
	for (unsigned k = 0; k < ctx->npaths; k++)
		if (ctx->paths[order[k]].up)
			return 1u << order[k];
	return 0;
}

uint32_t mpt_arrival_eligible(const struct mpt_sched_ctx *ctx, uint32_t len)
{
	uint32_t room = 0;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (mpt_path_has_room(&ctx->paths[i], ctx->paths[i].cwnd))
			room |= 1u << i;
	return room ? room & mpt_arrival_useful(ctx, ~0u, NULL, len) : 0;
}

uint64_t mpt_arrival_lead(const struct mpt_sched_ctx *ctx, unsigned j, uint32_t len)
{
	const struct mpt_path_view *vj = &ctx->paths[j];
	double aj = estimate(vj, vj->cwnd, len).a, lead = 0;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];
		struct est e;

		if (i == j || !v->up || !v->in_flight)	/* only paths carrying data */
			continue;
		e = estimate(v, v->cwnd, len);
		if (e.a < aj)
			lead += (aj - e.a) * e.r;
	}
	return (uint64_t)lead;
}
