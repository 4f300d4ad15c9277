// SPDX-License-Identifier: MIT
/* Inner TCP retransmissions seen from the tunnel: see tcpseq.h. */
#include "tcpseq.h"

bool mpt_tcpseq_note(struct mpt_tcpseq *t, uint32_t hash, uint32_t seq, uint32_t len)
{
	uint32_t end = seq + len;
	struct mpt_tcpseq_slot *sl = &t->slot[hash % MPT_TCPSEQ_SLOTS];

	if (!len || !hash)
		return false;
	if (sl->hash != hash) {		/* a new flow, or it takes the slot */
		sl->hash = hash;
		sl->next = end;
		return false;
	}
	if ((int32_t)(end - sl->next) <= 0) {
		t->retrans++;
		return true;
	}
	sl->next = end;
	return false;
}
