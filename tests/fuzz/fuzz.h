/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets and the seed-corpus generator (gen_corpus.c) agree on: the
 * fixed identities and keys, so that generated seeds authenticate in the targets and
 * the fuzzer starts past mac1, the AEAD tag and the peer lookup.
 */
#ifndef MPTUND_FUZZ_H
#define MPTUND_FUZZ_H

#include <stdint.h>
#include <string.h>

#include "keys.h"
#include "noise.h"

#define FUZZ_UE_SEED		1	/* fill byte of the UE's private-key randomness */
#define FUZZ_ANCHOR_SEED	2	/* the same for the anchor */
#define FUZZ_INIT_INDEX		0x1234	/* the UE's index in fuzz_handshake's own init */
#define FUZZ_INIT_EPH		{ 4 }	/* ... its ephemeral randomness */
#define FUZZ_INIT_TS		{ 1 }	/* ... its timestamp */
#define FUZZ_AEAD_KEY		{ 1, 2, 3 }	/* transport key in fuzz_wire */

/* A static identity from a fill byte (deterministic, as the targets need). */
static inline int fuzz_identity(struct mpt_noise_local *l, uint8_t seed)
{
	uint8_t r[32], priv[32];

	memset(r, seed, sizeof(r));
	mpt_key_private_from_random(priv, r);
	return mpt_noise_local_init(l, priv);
}

#endif
