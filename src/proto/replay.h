/* SPDX-License-Identifier: MIT */
/*
 * Anti-replay sliding window, one per path per keypair (RFC 6479 style): a ring of
 * 64-bit blocks; advancing the window clears whole blocks instead of shifting bits.
 * A packet number is accepted once, and only if it is less than MPT_REPLAY_WINDOW
 * below the highest accepted so far -- wide enough for the reordering a single path
 * sees plus the burst a sender can have in flight on it.
 */
#ifndef MPTUND_REPLAY_H
#define MPTUND_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#define MPT_REPLAY_WINDOW	4096	/* packets; RFC 6479 sec. 2: window = ring - 64 */
#define MPT_REPLAY_BLOCKS	(MPT_REPLAY_WINDOW / 64 + 1)

struct mpt_replay {
	uint64_t next;			/* highest accepted pn + 1; 0 = none yet */
	uint64_t bits[MPT_REPLAY_BLOCKS];
};

void mpt_replay_init(struct mpt_replay *r);
/* Cheap check before decryption: would pn be accepted? Does not change state. */
bool mpt_replay_check(const struct mpt_replay *r, uint64_t pn);
/*
 * Record pn after the packet authenticated. Returns 0, -EALREADY for a duplicate,
 * or -ESTALE when pn fell out of the window.
 */
int mpt_replay_update(struct mpt_replay *r, uint64_t pn);

#endif
