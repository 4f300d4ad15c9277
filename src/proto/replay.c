// SPDX-License-Identifier: MIT
/*
 * RFC 6479 anti-replay window. Bit pn % 64 of block (pn / 64) % MPT_REPLAY_BLOCKS
 * records pn. When pn moves the top forward, the blocks between the old top block and
 * the new one are cleared (at most all of them), so the cost is bounded by the ring
 * size however far the jump goes. The ring holds one block more than the window so
 * the oldest acceptable packet's block is never the one being reused.
 */
#include <errno.h>
#include <string.h>

#include "replay.h"

_Static_assert(MPT_REPLAY_WINDOW % 64 == 0, "window is whole blocks");

void mpt_replay_init(struct mpt_replay *r)
{
	memset(r, 0, sizeof(*r));
}

static unsigned slot(uint64_t blk)
{
	return (unsigned)(blk % MPT_REPLAY_BLOCKS);
}

static unsigned block_of(uint64_t pn)
{
	return slot(pn >> 6);
}

bool mpt_replay_check(const struct mpt_replay *r, uint64_t pn)
{
	if (pn == UINT64_MAX)		/* next would overflow; never sent */
		return false;
	if (pn >= r->next)
		return true;
	if (r->next - 1 - pn >= MPT_REPLAY_WINDOW)
		return false;
	return !(r->bits[block_of(pn)] & (1ULL << (pn & 63)));
}

int mpt_replay_update(struct mpt_replay *r, uint64_t pn)
{
	if (pn == UINT64_MAX)
		return -ESTALE;
	if (pn >= r->next) {
		uint64_t top_blk = r->next ? (r->next - 1) >> 6 : 0;
		uint64_t new_blk = pn >> 6;
		uint64_t diff = new_blk - top_blk;

		if (!r->next)
			diff = MPT_REPLAY_BLOCKS;	/* first packet: clear all */
		if (diff >= MPT_REPLAY_BLOCKS) {
			memset(r->bits, 0, sizeof(r->bits));
		} else {
			for (uint64_t b = 1; b <= diff; b++)
				r->bits[slot(top_blk + b)] = 0;
		}
		r->next = pn + 1;
	} else {
		if (r->next - 1 - pn >= MPT_REPLAY_WINDOW)
			return -ESTALE;
		if (r->bits[block_of(pn)] & (1ULL << (pn & 63)))
			return -EALREADY;
	}
	r->bits[block_of(pn)] |= 1ULL << (pn & 63);
	return 0;
}
