/* SPDX-License-Identifier: MIT */
/*
 * Packet buffers and FIFO queues.
 *
 * Every inner packet lives in one fixed-size buffer from a per-daemon pool from the
 * moment it is read from the TUN (or decrypted from a path) until it is sent (or
 * written to the TUN). The pool grows on demand, a chunk of MPT_PKT_CHUNK buffers at a
 * time, up to its maximum: memory follows the load, not the configured peers. The buffer has headroom for the tunnel header and frame header
 * and tailroom for the AEAD tag, so a packet is framed and sealed in place: no copy on
 * the data path. Queues (scheduler queue, per-path pacer queues, the reorder buffer's
 * input) link buffers through pkt->next.
 */
#ifndef MPTUND_PKT_H
#define MPTUND_PKT_H

#include <stdint.h>

#include <mptund/sched.h>

#define MPT_PKT_HEADROOM	64	/* >= tunnel header + frame header + DSN */
#define MPT_PKT_TAILROOM	64	/* >= AEAD tag + a piggybacked frame */

struct mpt_pkt {
	struct mpt_pkt *next;
	uint8_t *data;			/* inner packet (buf + MPT_PKT_HEADROOM) */
	uint32_t len;			/* inner packet length */
	uint64_t dsn;			/* session data sequence number */
	uint64_t enq_ns;		/* when it entered the scheduler queue */
	uint64_t sent_ns;		/* first sent (retransmissions keep it) */
	uint8_t rtx;			/* times re-sent after a loss */
	uint8_t path;			/* path id of the latest send */
	bool unordered;			/* dsn is of the unordered space: sent as
					 * DATA_UNORDERED, delivered at once */
	bool realtime;			/* a real-time rule's packet (Ordered = no):
					 * its bytes are the rule's own in a path's
					 * window (session_rules.c); an inner pure
					 * ACK is unordered, not real-time */
	bool copied;			/* sent on more than one path (a redundant
					 * pick): a copy is its repair */
	bool counted;			/* waits counted in its flow's bucket of the
					 * sparse lane's table (core/sparse.h) */
	struct mpt_pkt_meta meta;
	uint8_t buf[];			/* headroom + up to pool->mtu + tailroom */
};

#define MPT_PKT_CHUNK		256	/* buffers the pool allocates at a time */

struct mpt_pkt_pool {
	struct mpt_pkt *free;
	uint8_t **chunks;		/* nchunks allocations of MPT_PKT_CHUNK buffers */
	uint32_t nchunks;
	uint32_t mtu;			/* largest inner packet */
	uint32_t count, max, nfree;	/* buffers allocated, allowed, on the free list */
	uint64_t exhausted;		/* allocations refused (counted drop) */
};

/* A pool of at most max buffers; the first chunk is allocated now. 0 or -ENOMEM. */
int mpt_pkt_pool_init(struct mpt_pkt_pool *pool, uint32_t max, uint32_t mtu);
void mpt_pkt_pool_free(struct mpt_pkt_pool *pool);
/* Add a chunk to the free list: 0, -ENOBUFS at the maximum, -ENOMEM. */
int mpt_pkt_pool_grow(struct mpt_pkt_pool *pool);

/* Buffers that can still be had: free now, or by growing. */
static inline uint32_t mpt_pkt_pool_avail(const struct mpt_pkt_pool *pool)
{
	return pool->nfree + (pool->max - pool->count);
}

static inline struct mpt_pkt *mpt_pkt_alloc(struct mpt_pkt_pool *pool)
{
	struct mpt_pkt *p = pool->free;

	if (!p) {
		if (mpt_pkt_pool_grow(pool) < 0) {
			pool->exhausted++;
			return NULL;
		}
		p = pool->free;
	}
	pool->free = p->next;
	pool->nfree--;
	p->next = NULL;
	p->data = p->buf + MPT_PKT_HEADROOM;
	p->len = 0;
	p->rtx = 0;
	p->unordered = false;
	p->realtime = false;
	p->copied = false;
	p->counted = false;
	return p;
}

static inline void mpt_pkt_put(struct mpt_pkt_pool *pool, struct mpt_pkt *p)
{
	p->next = pool->free;
	pool->free = p;
	pool->nfree++;
}

/* Bytes available in a buffer from data to the end of the tailroom. */
static inline uint32_t mpt_pkt_room(const struct mpt_pkt_pool *pool)
{
	return pool->mtu + MPT_PKT_TAILROOM;
}

struct mpt_pktq {
	struct mpt_pkt *head, *tail;
	uint32_t pkts;
	uint64_t bytes;
};

static inline void mpt_pktq_push(struct mpt_pktq *q, struct mpt_pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->pkts++;
	q->bytes += p->len;
}

static inline struct mpt_pkt *mpt_pktq_pop(struct mpt_pktq *q)
{
	struct mpt_pkt *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	q->pkts--;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}

/* Move every packet of from into q right after `after` (a packet of q; NULL: to the
 * front), in order; from is left empty. */
void mpt_pktq_splice_after(struct mpt_pktq *q, struct mpt_pkt *after, struct mpt_pktq *from);

/* Move every packet of from to the front of q, in order; from is left empty. */
static inline void mpt_pktq_prepend(struct mpt_pktq *q, struct mpt_pktq *from)
{
	mpt_pktq_splice_after(q, NULL, from);
}

/* Put p after the packets at q's head that are unordered (real-time: a rule with
 * Ordered = no) and before the first that is not: an unordered p goes ahead of the
 * ordered traffic queued for a path, in order among its kind. An ordered p goes at
 * the tail (mpt_pktq_push). */
void mpt_pktq_push_ahead(struct mpt_pktq *q, struct mpt_pkt *p);

/* Put p into q right after `after` (a packet of q; NULL: at the front). */
void mpt_pktq_insert_after(struct mpt_pktq *q, struct mpt_pkt *after, struct mpt_pkt *p);

/* Remove and return the packet after prev (a packet of q; NULL: the head); NULL when
 * there is none. */
struct mpt_pkt *mpt_pktq_unlink_after(struct mpt_pktq *q, struct mpt_pkt *prev);

/* Remove and return the packet at byte offset `offset` of q: the first packet whose end
 * lies beyond it (the tail when q is shorter); NULL when q is empty. */
struct mpt_pkt *mpt_pktq_take_at(struct mpt_pktq *q, uint64_t offset);

/* Return every packet of q to the pool. */
void mpt_pktq_purge(struct mpt_pktq *q, struct mpt_pkt_pool *pool);

#endif
