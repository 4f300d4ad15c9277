// SPDX-License-Identifier: MIT
/*
 * Receiver indices: each keypair's local index is 32 bits from getrandom, nothing of
 * the session in it (not linkable across rekeys or addresses), and d->idxmap maps it
 * to the session; the keyslot is then the session's one with that index
 * (mpt_session_keyslot). A session has at most four indices registered: its cur,
 * prev and next keypairs and a pending handshake's; each new one first drops those
 * no longer in use.
 */
#include "daemon.h"
#include "session.h"
#include "sys.h"

#define NREG (sizeof(((struct mpt_session *)0)->idx_reg) / sizeof(uint32_t))

static bool index_in_use(const struct mpt_session *s, uint32_t index)
{
	return (s->cur.valid && s->cur.local_index == index) ||
	       (s->prev.valid && s->prev.local_index == index) ||
	       (s->next.valid && s->next.local_index == index) ||
	       (s->hs.pending && s->hs.local_index == index);
}

/* Drop the session's registered indices no keypair or handshake uses any more;
 * returns a free registration slot (or the oldest, released, if all are in use). */
static unsigned reg_sweep(struct mpt_daemon *d, struct mpt_session *s)
{
	unsigned free_slot = NREG;

	for (unsigned i = 0; i < NREG; i++) {
		if (s->idx_reg[i] && !index_in_use(s, s->idx_reg[i])) {
			mpt_idxmap_remove(&d->idxmap, s->idx_reg[i]);
			s->idx_reg[i] = 0;
		}
		if (!s->idx_reg[i] && free_slot == NREG)
			free_slot = i;
	}
	if (free_slot == NREG) {	/* cannot happen with four slots; stay safe */
		mpt_idxmap_remove(&d->idxmap, s->idx_reg[0]);
		s->idx_reg[0] = 0;
		free_slot = 0;
	}
	return free_slot;
}

static uint32_t draw(struct mpt_daemon *d)
{
	uint32_t v;

	if (mpt_random_bytes(&v, sizeof(v)) < 0)
		v = (uint32_t)mpt_rng_u64(&d->rng);	/* seeded from getrandom */
	return v;
}

uint32_t mpt_hs_new_index(struct mpt_daemon *d, unsigned session_idx)
{
	struct mpt_session *s = &d->sessions[session_idx];
	unsigned slot = reg_sweep(d, s);

	for (int tries = 0; tries < 16; tries++) {
		uint32_t index = draw(d);

		if (mpt_idxmap_insert(&d->idxmap, index, session_idx) == 0) {
			s->idx_reg[slot] = index;
			return index;
		}
	}
	return 0;	/* 0 is never registered: packets for it find no session */
}

struct mpt_session *mpt_daemon_session_by_index(struct mpt_daemon *d, uint32_t index)
{
	uint32_t si;

	if (!mpt_idxmap_find(&d->idxmap, index, &si) || si >= d->nsessions)
		return NULL;
	return &d->sessions[si];
}
