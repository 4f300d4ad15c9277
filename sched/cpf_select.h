/* SPDX-License-Identifier: MIT */
/*
 * The ranking shared by the cheapest-path family (cpf, acpf): among the paths that
 * are up and have in_flight < window[i], the one with the lowest configured cost,
 * ties broken by the lower path id (ACPF paper, section 3.1). With arrival awareness
 * (arrival.h) only the needed paths (the cheapest, all when the queue stands) that are
 * useful (in time) take part; otherwise the packet waits. A scan over K <= MPT_MAX_PATHS paths.
 *
 * Small packets (at most MPT_CPF_SMALL bytes: an inner TCP ACK, a DNS query) with
 * arrival awareness: they go where they arrive soonest when the cheapest path with
 * room would deliver them more than max(10 ms, a quarter) later. Their bytes cost
 * nothing worth saving, and their delay is another flow's RTT: a downlink flow's ACKs
 * queued behind bulk on a thin, cheap DSL uplink (issue 22) cut its rate to that of the
 * thin path, and ACKs spread over paths of very different delays arrive out of order
 * and wait in the anchor's reorder buffer. When the cheap path is not slower (an idle
 * DSL line, 12 ms against LTE's 30), they stay on it.
 *
 * A TCP SYN or SYN-ACK is small but not one of them: it goes where the connection's
 * data will go (cost order). The inner TCP takes its first RTT sample and HyStart's
 * baseline from the handshake; with the SYN-ACK on a 30 ms LTE path and the data on a
 * 300 ms satellite, its first window came back after the RTO (a spurious timeout) and
 * HyStart saw a delay increase at once: slow start ended at a few dozen packets and
 * CUBIC crept up from there at a 334 ms RTT (sat-lte-down, issue 22).
 */
#ifndef MPTUND_SCHED_CPF_SELECT_H
#define MPTUND_SCHED_CPF_SELECT_H

#include <netinet/in.h>

#include <mptund/sched.h>

#include "arrival.h"

/* Index of the cheapest eligible path with room under window[], or -1 when every such
 * path is full or down (the packet is held). arrival false: the paper's CPF. */
#define MPT_CPF_SMALL		128
#define MPT_CPF_SMALL_MARGIN_NS	10000000ULL

/* A small packet's path when it is not the cheapest one with room (see above), or -1. */
static inline int mpt_cpf_small(const struct mpt_sched_ctx *ctx, const uint64_t *window,
				const uint8_t *order, uint32_t len)
{
	uint64_t best_at = UINT64_MAX, cheap_at = 0;
	int best = -1, cheap = -1;

	for (unsigned k = 0; k < ctx->npaths; k++) {
		unsigned i = order[k];
		uint64_t at;

		if (!mpt_path_has_room(&ctx->paths[i], window[i]))
			continue;
		at = mpt_arrival_ns(&ctx->paths[i], window[i], len);
		if (cheap < 0) {
			cheap = (int)i;
			cheap_at = at;
		}
		if (at < best_at) {
			best_at = at;
			best = (int)i;
		}
	}
	if (best < 0 || best == cheap ||
	    cheap_at <= best_at + (best_at / 4 > MPT_CPF_SMALL_MARGIN_NS ? best_at / 4
								  : MPT_CPF_SMALL_MARGIN_NS))
		return -1;
	return best;
}

/* A small packet that is not a TCP SYN (see above). */
static inline bool mpt_cpf_is_small(const struct mpt_pkt_meta *pkt)
{
	return pkt->len <= MPT_CPF_SMALL &&
	       !(pkt->proto == IPPROTO_TCP && (pkt->tcp_flags & MPT_TCP_FLAG_SYN));
}

/* The same ranking over the paths in order[] (a preference order, e.g. priority's
 * with the paths beyond their thresholds last), needed being the paths arrival
 * awareness may use (the first of the order alone unless the queue stands). */
static inline int mpt_cpf_select_ordered(const struct mpt_sched_ctx *ctx,
					 const uint64_t *window,
					 const struct mpt_pkt_meta *pkt, bool arrival,
					 const uint8_t *order, uint32_t needed)
{
	uint32_t len = pkt->len, ok = ~0u;
	int small;

	if (arrival && mpt_cpf_is_small(pkt) &&
	    (small = mpt_cpf_small(ctx, window, order, len)) >= 0)
		return small;
	if (arrival)
		ok = mpt_arrival_useful_ordered(ctx, order, needed, window, len);
	for (unsigned k = 0; k < ctx->npaths; k++) {
		unsigned i = order[k];

		if ((ok >> i & 1) && mpt_path_has_room(&ctx->paths[i], window[i]))
			return (int)i;
	}
	return -1;
}

static inline int mpt_cpf_select(const struct mpt_sched_ctx *ctx, const uint64_t *window,
				 const struct mpt_pkt_meta *pkt, bool arrival)
{
	uint8_t order[MPT_MAX_PATHS];

	mpt_arrival_cost_order(ctx, order);
	return mpt_cpf_select_ordered(ctx, window, pkt, arrival, order,
				      arrival ? mpt_arrival_needed(ctx) : ~0u);
}

#endif
