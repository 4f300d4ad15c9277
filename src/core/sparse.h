/* SPDX-License-Identifier: MIT */
/*
 * The sparse-flow lane of the scheduler queue (issue 12): fq_codel's new-flows list
 * (RFC 8290, 4.1 and 4.2) applied to the session's one scheduler queue. A packet of a
 * flow (its inner 5-tuple hash, pktmeta.h) that has no packet waiting and has not
 * sent more than a quantum of bytes this round goes into the sparse lane, which the
 * scheduler serves before the bulk lane (s->squeue): a ping, a DNS query, the ACKs of
 * a reverse flow, the first packets of a new connection do not wait behind a greedy
 * flow's backlog of hundreds of packets.
 *
 * Flows are counted in hash buckets, not kept one by one: a bucket counts the packets
 * of its flows that wait in the scheduler queue (its lanes, or aside), numbered or not
 * (the in-order take numbers packets it passes, session_tx.c). Rules (RFC 8290 4.2,
 * new flows and old flows):
 *  - A flow's packets never reorder. Once a packet of a bucket waits in the bulk lane
 *    (or aside, flowhold.h), the bucket's next packets go bulk too until every packet
 *    it had waiting has left; a sparse packet set aside or moved to the bulk lane marks
 *    its bucket so. Two flows in one bucket are one flow here: a collision only makes
 *    a packet go bulk.
 *  - A bucket gets a quantum of credit (one full-size packet's bytes, RFC 8290's
 *    new-flows quantum) when it has nothing waiting and a round has passed since its
 *    last grant: the bulk lane sent a quantum, or the bulk lane is empty. Each sparse
 *    packet spends its length; without credit for it, the packet goes bulk. A flow that
 *    keeps sending (more than a quantum a round) so becomes bulk, as a new flow whose
 *    deficit runs out moves to the old flows: a greedy flow cannot live in the lane.
 *  - The lane is bounded (MPT_SPARSE_LANE_MAX packets; a packet past it goes bulk),
 *    apart from QueueLimit, which bounds the bulk lane: a ping is not dropped
 *    because a greedy flow filled the queue.
 *
 * A count that leaked (a packet dropped unnumbered without mpt_sparse_left) is
 * forgotten the next time the session has nothing waiting (mpt_sparse_heal): it can
 * only have sent a flow's packets bulk, never out of order.
 */
#ifndef MPTUND_SPARSE_H
#define MPTUND_SPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"

#define MPT_SPARSE_BUCKETS	1024	/* flow buckets, a power of two (fq_codel's
					 * default flows, RFC 8290 5.1) */
#define MPT_SPARSE_LANE_MAX	64	/* packets in the sparse lane at most */

struct mpt_sparse_bucket {
	uint32_t waiting;	/* its packets queued and not yet numbered */
	int32_t credit;		/* bytes it may still send sparse */
	uint32_t round;		/* the round of its latest grant */
	uint32_t epoch;		/* of another: the bucket is empty (mpt_sparse_heal) */
	uint8_t bulk;		/* a packet of it waits bulk (or aside) */
};

struct mpt_sparse {
	struct mpt_pktq q;		/* the sparse lane */
	struct mpt_sparse_bucket *b;	/* MPT_SPARSE_BUCKETS, with the first packet;
					 * NULL (out of memory): every packet bulk */
	uint32_t counted;		/* packets counted in the buckets */
	uint32_t round;			/* quanta the bulk lane sent */
	uint32_t bulk_bytes;		/* sent toward the next round */
	uint32_t epoch;
};

/* p (flow hash in its meta) into the sparse lane, counted: true. False: p goes to the
 * bulk lane, and the caller counts it there with mpt_sparse_bulk once it is queued.
 * on: the lane is in use (SparseFlows); quantum: a full-size packet's bytes;
 * bulk_empty: nothing waits in the bulk lane. */
bool mpt_sparse_admit(struct mpt_sparse *sp, struct mpt_pkt *p, bool on, uint32_t quantum,
		      bool bulk_empty);
/* p waits in the bulk lane (queued there, or moved there or aside from the sparse
 * lane): its bucket's later packets go bulk until it has nothing waiting. */
void mpt_sparse_bulk(struct mpt_sparse *sp, struct mpt_pkt *p);
/* The same for every packet of q (packets that come back to the bulk lane from a
 * path's queue: numbered, and waiting again). */
void mpt_sparse_bulk_all(struct mpt_sparse *sp, const struct mpt_pktq *q);
/* p no longer waits: it left the scheduler queue for a path, or was dropped. A packet
 * numbered early (the in-order take numbers the packets it passes) still waits: were
 * it counted as gone, its flow's next packet would take the sparse lane and leave on
 * the fast path ahead of it, and the packet, sent later or on a slow path, would hold
 * the receiver's reorder buffer (sat-lte-down, minrtt). */
void mpt_sparse_left(struct mpt_sparse *sp, struct mpt_pkt *p);
/* len bytes left the bulk lane (the round clock). */
void mpt_sparse_bulk_sent(struct mpt_sparse *sp, uint32_t len, uint32_t quantum);
/* The whole lane to the front of bulk, in order, its buckets marked bulk (the head
 * packet is larger than some usable path carries: the bulk lane's MTU handling). */
void mpt_sparse_demote(struct mpt_sparse *sp, struct mpt_pktq *bulk);
/* Nothing waits in the session: forget every count (one may have leaked). */
void mpt_sparse_heal(struct mpt_sparse *sp);
void mpt_sparse_free(struct mpt_sparse *sp, struct mpt_pkt_pool *pool);

#endif
