/* SPDX-License-Identifier: MIT */
/*
 * Small path-selection helpers shared by the learning schedulers (egreedy, olms):
 * header-only, static inline, no state.
 */
#ifndef MPTUND_SCHED_PATHSEL_H
#define MPTUND_SCHED_PATHSEL_H

#include <mptund/rng.h>
#include <mptund/sched.h>

/* The path of mask with room (up, in_flight < cwnd) with the lowest srtt, or -1. A
 * path with no RTT sample yet (srtt 0) ranks first, so that it gets measured. */
static inline int mpt_pathsel_minrtt_in(const struct mpt_sched_ctx *ctx, uint32_t mask)
{
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!(mask >> i & 1) || !mpt_path_has_room(v, v->cwnd))
			continue;
		if (best < 0 || v->srtt_ns < ctx->paths[best].srtt_ns)
			best = (int)i;
	}
	return best;
}

/* The path with room with the lowest srtt, or -1. */
static inline int mpt_pathsel_minrtt(const struct mpt_sched_ctx *ctx)
{
	return mpt_pathsel_minrtt_in(ctx, ~0u);
}

/* Mask of the paths with room. */
static inline uint32_t mpt_pathsel_room_mask(const struct mpt_sched_ctx *ctx)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (mpt_path_has_room(&ctx->paths[i], ctx->paths[i].cwnd))
			m |= 1u << i;
	return m;
}

/* A uniformly random member of a non-empty mask. */
static inline unsigned mpt_pathsel_random(struct mpt_rng *rng, uint32_t mask)
{
	unsigned n = (unsigned)__builtin_popcount(mask), k = mpt_rng_below(rng, n);

	while (k--)
		mask &= mask - 1;
	return (unsigned)__builtin_ctz(mask);
}

#endif
