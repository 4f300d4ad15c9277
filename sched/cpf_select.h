/* SPDX-License-Identifier: MIT */
/*
 * The ranking shared by the cheapest-path family (cpf, acpf): among the paths that
 * are up and have in_flight < window[i], the one with the lowest configured cost,
 * ties broken by the lower path id (ACPF paper, section 3.1). With arrival awareness
 * (arrival.h) only the needed paths (the cheapest, all when the queue stands) that are
 * useful (in time) take part; otherwise the packet waits. A scan over K <= MPT_MAX_PATHS paths.
 */
#ifndef MPTUND_SCHED_CPF_SELECT_H
#define MPTUND_SCHED_CPF_SELECT_H

#include <mptund/sched.h>

#include "arrival.h"

/* Index of the cheapest eligible path with room under window[], or -1 when every such
 * path is full or down (the packet is held). arrival false: the paper's CPF. */
static inline int mpt_cpf_select(const struct mpt_sched_ctx *ctx, const uint64_t *window,
				 uint32_t len, bool arrival)
{
	uint8_t order[MPT_MAX_PATHS];
	uint32_t ok = ~0u;

	mpt_arrival_cost_order(ctx, order);
	if (arrival)
		ok = mpt_arrival_useful_ordered(ctx, order, mpt_arrival_needed(ctx), window,
						len);
	for (unsigned k = 0; k < ctx->npaths; k++) {
		unsigned i = order[k];

		if ((ok >> i & 1) && mpt_path_has_room(&ctx->paths[i], window[i]))
			return (int)i;
	}
	return -1;
}

#endif
