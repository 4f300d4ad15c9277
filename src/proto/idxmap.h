/* SPDX-License-Identifier: MIT */
/*
 * Receiver index -> session: an open-addressing hash table (linear probing, deletion
 * by backward shift) sized once for a fixed number of entries, at most half full.
 * Receiver indices are 32 random bits (getrandom) with nothing of the session in them,
 * so they cannot be linked across rekeys or addresses; this table is how a transport
 * packet finds its session. Index 0 is never used (it marks an empty bucket).
 * The keys are our own random draws, so an attacker cannot aim collisions at it.
 */
#ifndef MPTUND_IDXMAP_H
#define MPTUND_IDXMAP_H

#include <stdbool.h>
#include <stdint.h>

struct mpt_idxmap {
	uint32_t *key;		/* 0: empty */
	uint32_t *val;
	uint32_t mask;		/* buckets - 1 */
	unsigned n, max;
};

/* Room for max entries. 0 or -ENOMEM. */
int mpt_idxmap_init(struct mpt_idxmap *m, unsigned max);
void mpt_idxmap_free(struct mpt_idxmap *m);
/* 0, -EINVAL (key 0), -EEXIST or -ENOSPC (max entries). */
int mpt_idxmap_insert(struct mpt_idxmap *m, uint32_t key, uint32_t val);
/* 0 or -ENOENT. */
int mpt_idxmap_remove(struct mpt_idxmap *m, uint32_t key);
bool mpt_idxmap_find(const struct mpt_idxmap *m, uint32_t key, uint32_t *val);

#endif
