// SPDX-License-Identifier: MIT
/* The sparse-flow lane of the scheduler queue (sparse.h; RFC 8290 4.1-4.2). */
#include "sparse.h"

#include <stdlib.h>

/* The bucket of p's flow, made current; NULL without a table (out of memory). */
static struct mpt_sparse_bucket *bucket(struct mpt_sparse *sp, const struct mpt_pkt *p)
{
	struct mpt_sparse_bucket *b;

	if (!sp->b) {
		if (!(sp->b = calloc(MPT_SPARSE_BUCKETS, sizeof(*sp->b))))
			return NULL;
		sp->epoch++;		/* every bucket is made afresh as it is first used */
	}
	b = &sp->b[p->meta.flow_hash & (MPT_SPARSE_BUCKETS - 1)];
	if (b->epoch != sp->epoch) {		/* forgotten (mpt_sparse_heal) */
		*b = (struct mpt_sparse_bucket){ .epoch = sp->epoch, .round = sp->round - 1 };
	}
	return b;
}

static void count(struct mpt_sparse *sp, struct mpt_sparse_bucket *b, struct mpt_pkt *p)
{
	b->waiting++;
	sp->counted++;
	p->counted = true;
}

bool mpt_sparse_admit(struct mpt_sparse *sp, struct mpt_pkt *p, bool on, uint32_t quantum,
		      bool bulk_empty)
{
	struct mpt_sparse_bucket *b;

	if (!on || sp->q.pkts >= MPT_SPARSE_LANE_MAX || !(b = bucket(sp, p)))
		return false;
	if (b->waiting && b->bulk)
		return false;		/* behind its own packets: no reordering */
	/* RFC 8290 4.2: a flow is new again (a fresh quantum) only once it has nothing
	 * queued and the old flows had a turn since its last grant */
	if (!b->waiting && (bulk_empty || b->round != sp->round)) {
		b->credit = (int32_t)quantum;
		b->round = sp->round;
	}
	if (b->credit < (int32_t)p->len)
		return false;		/* it sent its quantum this round: bulk */
	b->credit -= (int32_t)p->len;
	count(sp, b, p);
	mpt_pktq_push(&sp->q, p);
	return true;
}

void mpt_sparse_bulk(struct mpt_sparse *sp, struct mpt_pkt *p)
{
	struct mpt_sparse_bucket *b = bucket(sp, p);

	if (!b)
		return;
	if (!p->counted)
		count(sp, b, p);
	b->bulk = 1;
}

void mpt_sparse_left(struct mpt_sparse *sp, struct mpt_pkt *p)
{
	struct mpt_sparse_bucket *b;

	if (!p->counted)
		return;
	p->counted = false;
	b = sp->b ? &sp->b[p->meta.flow_hash & (MPT_SPARSE_BUCKETS - 1)] : NULL;
	if (!b || b->epoch != sp->epoch || !b->waiting)
		return;			/* forgotten since (mpt_sparse_heal) */
	sp->counted--;
	if (--b->waiting == 0)
		b->bulk = 0;
}

void mpt_sparse_bulk_sent(struct mpt_sparse *sp, uint32_t len, uint32_t quantum)
{
	sp->bulk_bytes += len;
	if (sp->bulk_bytes >= quantum) {
		sp->bulk_bytes = 0;
		sp->round++;
	}
}

void mpt_sparse_bulk_all(struct mpt_sparse *sp, const struct mpt_pktq *q)
{
	for (struct mpt_pkt *p = q->head; p; p = p->next)
		mpt_sparse_bulk(sp, p);
}

void mpt_sparse_demote(struct mpt_sparse *sp, struct mpt_pktq *bulk)
{
	mpt_sparse_bulk_all(sp, &sp->q);
	mpt_pktq_prepend(bulk, &sp->q);
}

void mpt_sparse_heal(struct mpt_sparse *sp)
{
	if (!sp->counted)
		return;
	sp->counted = 0;
	sp->epoch++;
}

void mpt_sparse_free(struct mpt_sparse *sp, struct mpt_pkt_pool *pool)
{
	mpt_pktq_purge(&sp->q, pool);
	free(sp->b);
	sp->b = NULL;
}
