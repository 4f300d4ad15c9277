// SPDX-License-Identifier: MIT
/* Per-flow holding of the scheduler queue (flowhold.h). */
#include "flowhold.h"

#include <string.h>

int mpt_fhold_find(const struct mpt_fhold *h, uint32_t flow)
{
	for (unsigned i = 0; i < h->nslots; i++)
		if (h->slot[i].flow == flow)
			return (int)i;
	return -1;
}

bool mpt_fhold_add(struct mpt_fhold *h, struct mpt_pkt *p)
{
	int i = mpt_fhold_find(h, p->meta.flow_hash);

	if (i < 0) {
		if (h->nslots == MPT_FHOLD_FLOWS)
			return false;
		i = (int)h->nslots++;
		h->slot[i].flow = p->meta.flow_hash;
		memset(&h->slot[i].q, 0, sizeof(h->slot[i].q));
	}
	mpt_pktq_push(&h->slot[i].q, p);
	h->pkts++;
	h->set_aside++;
	return true;
}

struct mpt_pkt *mpt_fhold_pop(struct mpt_fhold *h, unsigned i)
{
	struct mpt_pkt *p = mpt_pktq_pop(&h->slot[i].q);

	if (p)
		h->pkts--;
	if (!h->slot[i].q.head)
		h->slot[i] = h->slot[--h->nslots];
	return p;
}

void mpt_fhold_release(struct mpt_fhold *h, struct mpt_pktq *q)
{
	while (h->nslots) {
		unsigned i = h->nslots - 1;

		mpt_pktq_prepend(q, &h->slot[i].q);
		h->nslots--;
	}
	h->pkts = 0;
}

void mpt_fhold_purge(struct mpt_fhold *h, struct mpt_pkt_pool *pool)
{
	for (unsigned i = 0; i < h->nslots; i++)
		mpt_pktq_purge(&h->slot[i].q, pool);
	h->nslots = 0;
	h->pkts = 0;
}
