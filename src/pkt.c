// SPDX-License-Identifier: MIT
/* Packet buffer pool: one allocation at start-up, a free list afterwards. */
#include <errno.h>
#include <stdlib.h>

#include "pkt.h"

static size_t pkt_stride(uint32_t mtu)
{
	size_t sz = sizeof(struct mpt_pkt) + MPT_PKT_HEADROOM + mtu + MPT_PKT_TAILROOM;

	return (sz + 63) & ~(size_t)63;
}

int mpt_pkt_pool_init(struct mpt_pkt_pool *pool, uint32_t count, uint32_t mtu)
{
	size_t stride = pkt_stride(mtu);

	pool->mem = aligned_alloc(64, stride * count);
	if (!pool->mem)
		return -ENOMEM;
	pool->free = NULL;
	pool->mtu = mtu;
	pool->count = count;
	pool->nfree = 0;
	pool->exhausted = 0;
	for (uint32_t i = count; i-- > 0;)
		mpt_pkt_put(pool, (struct mpt_pkt *)(pool->mem + stride * i));
	return 0;
}

void mpt_pkt_pool_free(struct mpt_pkt_pool *pool)
{
	free(pool->mem);
	pool->mem = NULL;
	pool->free = NULL;
}

struct mpt_pkt *mpt_pktq_take_at(struct mpt_pktq *q, uint64_t offset)
{
	struct mpt_pkt *prev = NULL, *p = q->head;
	uint64_t end = 0;

	while (p && p->next && (end += p->len) <= offset) {
		prev = p;
		p = p->next;
	}
	if (!prev)
		return mpt_pktq_pop(q);
	prev->next = p->next;
	if (q->tail == p)
		q->tail = prev;
	q->pkts--;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}

void mpt_pktq_purge(struct mpt_pktq *q, struct mpt_pkt_pool *pool)
{
	struct mpt_pkt *p;

	while ((p = mpt_pktq_pop(q)))
		mpt_pkt_put(pool, p);
}
