/* SPDX-License-Identifier: MIT */
/*
 * Per-flow holding of the scheduler queue (issue 14). A scheduler that pins each
 * flow to a path (exp3, egreedy granularity=flow: ops->per_flow) holds a packet when
 * the flow's path has no room; with one FIFO that packet would hold every flow
 * behind it, those on idle paths too (TCPPathChanger, 2.2: flows move independently).
 * Instead the held packet, and every later packet of its flow, waits in a queue of
 * its flow's own, and the scheduler goes on with the next flow's packets. A flow's
 * packets keep their order; flows do not wait for each other.
 *
 * Held packets have no data sequence number yet (session.c numbers a packet when it
 * leaves for a path), so the receiver sees no hole for them: holding a flow does not
 * hold the others at the receiver either.
 */
#ifndef MPTUND_FLOWHOLD_H
#define MPTUND_FLOWHOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"

#define MPT_FHOLD_FLOWS	16	/* flows held at once; one more holds the FIFO */

struct mpt_fhold {
	struct {
		uint32_t flow;		/* flow_hash (pktmeta.h) */
		struct mpt_pktq q;	/* its held packets, in order */
	} slot[MPT_FHOLD_FLOWS];
	unsigned nslots;
	unsigned pkts;			/* in every slot */
	uint64_t set_aside;		/* packets that waited here: a counter */
};

/* The slot holding flow, or -1. */
int mpt_fhold_find(const struct mpt_fhold *h, uint32_t flow);
/* Hold p behind its flow's other held packets (a new slot if none); false when its
 * flow has none and every slot is taken: the caller holds the FIFO instead. */
bool mpt_fhold_add(struct mpt_fhold *h, struct mpt_pkt *p);
/* Slot i's head packet off its queue; the slot is freed when it empties (the last
 * slot moves into it: callers walk slots from the end). */
struct mpt_pkt *mpt_fhold_pop(struct mpt_fhold *h, unsigned i);
/* Every held packet back to the front of q, flow by flow (the scheduler stopped
 * pinning flows, or the path MTU fell below a held packet). */
void mpt_fhold_release(struct mpt_fhold *h, struct mpt_pktq *q);
void mpt_fhold_purge(struct mpt_fhold *h, struct mpt_pkt_pool *pool);

#endif
