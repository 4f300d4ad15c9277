// SPDX-License-Identifier: MIT
/* Packet buffer pool: chunks of buffers allocated as the load needs them, up to a
 * maximum, never given back before the end; a free list in between. */
#include <errno.h>
#include <stdlib.h>

#include "pkt.h"

static size_t pkt_stride(uint32_t mtu)
{
	size_t sz = sizeof(struct mpt_pkt) + MPT_PKT_HEADROOM + mtu + MPT_PKT_TAILROOM;

	return (sz + 63) & ~(size_t)63;
}

int mpt_pkt_pool_init(struct mpt_pkt_pool *pool, uint32_t max, uint32_t mtu)
{
	pool->free = NULL;
	pool->chunks = NULL;
	pool->nchunks = 0;
	pool->mtu = mtu;
	pool->count = 0;
	pool->max = max;
	pool->nfree = 0;
	pool->exhausted = 0;
	return mpt_pkt_pool_grow(pool);
}

int mpt_pkt_pool_grow(struct mpt_pkt_pool *pool)
{
	size_t stride = pkt_stride(pool->mtu);
	uint32_t n = pool->max - pool->count;
	uint8_t **chunks, *mem;

	if (n == 0)
		return -ENOBUFS;
	if (n > MPT_PKT_CHUNK)
		n = MPT_PKT_CHUNK;
	chunks = realloc(pool->chunks, (pool->nchunks + 1) * sizeof(*chunks));
	if (!chunks)
		return -ENOMEM;
	pool->chunks = chunks;
	mem = aligned_alloc(64, stride * n);
	if (!mem)
		return -ENOMEM;
	chunks[pool->nchunks++] = mem;
	pool->count += n;
	for (uint32_t i = n; i-- > 0;)
		mpt_pkt_put(pool, (struct mpt_pkt *)(mem + stride * i));
	return 0;
}

void mpt_pkt_pool_free(struct mpt_pkt_pool *pool)
{
	for (uint32_t i = 0; i < pool->nchunks; i++)
		free(pool->chunks[i]);
	free(pool->chunks);
	pool->chunks = NULL;
	pool->nchunks = 0;
	pool->count = 0;
	pool->free = NULL;
}

void mpt_pktq_insert_after(struct mpt_pktq *q, struct mpt_pkt *after, struct mpt_pkt *p)
{
	struct mpt_pkt **link = after ? &after->next : &q->head;

	p->next = *link;
	if (!*link)
		q->tail = p;
	*link = p;
	q->pkts++;
	q->bytes += p->len;
}

void mpt_pktq_push_ahead(struct mpt_pktq *q, struct mpt_pkt *p)
{
	struct mpt_pkt *prev = NULL;

	if (!p->unordered || !q->head || (q->tail->unordered)) {
		mpt_pktq_push(q, p);
		return;
	}
	for (struct mpt_pkt *k = q->head; k && k->unordered; k = k->next)
		prev = k;
	mpt_pktq_insert_after(q, prev, p);
}

void mpt_pktq_splice_after(struct mpt_pktq *q, struct mpt_pkt *after, struct mpt_pktq *from)
{
	struct mpt_pkt **link = after ? &after->next : &q->head;

	if (!from->head)
		return;
	from->tail->next = *link;
	if (!*link)
		q->tail = from->tail;	/* after was the tail, or q was empty */
	*link = from->head;
	q->pkts += from->pkts;
	q->bytes += from->bytes;
	from->head = from->tail = NULL;
	from->pkts = 0;
	from->bytes = 0;
}

struct mpt_pkt *mpt_pktq_unlink_after(struct mpt_pktq *q, struct mpt_pkt *prev)
{
	struct mpt_pkt *p;

	if (!prev)
		return mpt_pktq_pop(q);
	p = prev->next;
	if (!p)
		return NULL;
	prev->next = p->next;
	if (q->tail == p)
		q->tail = prev;
	q->pkts--;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}

struct mpt_pkt *mpt_pktq_take_at(struct mpt_pktq *q, uint64_t offset)
{
	struct mpt_pkt *prev = NULL, *p = q->head;
	uint64_t end = 0;

	while (p && p->next && (end += p->len) <= offset) {
		prev = p;
		p = p->next;
	}
	return mpt_pktq_unlink_after(q, prev);
}

void mpt_pktq_purge(struct mpt_pktq *q, struct mpt_pkt_pool *pool)
{
	struct mpt_pkt *p;

	while ((p = mpt_pktq_pop(q)))
		mpt_pkt_put(pool, p);
}
