/* SPDX-License-Identifier: MIT */
/*
 * The ranking shared by the cheapest-path family (cpf, acpf): among the paths that
 * are up and have in_flight < window[i], the one with the lowest configured cost,
 * ties broken by the lower path id (ACPF paper, section 3.1). A linear scan over
 * K <= MPT_MAX_PATHS paths: no sort per packet.
 */
#ifndef MPTUND_SCHED_CPF_SELECT_H
#define MPTUND_SCHED_CPF_SELECT_H

#include <mptund/sched.h>

/* Index of the cheapest path with room under window[], or -1 when every path is full
 * or down (the packet is held). */
static inline int mpt_cpf_select(const struct mpt_sched_ctx *ctx, const uint64_t *window)
{
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];

		if (!mpt_path_has_room(v, window[i]))
			continue;
		if (best < 0 || v->cost < ctx->paths[best].cost)
			best = (int)i;
	}
	return best;
}

#endif
