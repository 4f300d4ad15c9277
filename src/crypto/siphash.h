/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012):
 * a keyed 64-bit PRF for short inputs, so that flow hashes cannot be predicted or
 * steered by someone who does not know the key.
 */
#ifndef MPTUND_SIPHASH_H
#define MPTUND_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define MPT_SIPHASH_KEY_LEN 16

struct mpt_siphash_key {
	uint64_t k0, k1;
};

/* Key from 16 bytes, read little-endian as in the paper. */
void mpt_siphash_key_from_bytes(struct mpt_siphash_key *key, const uint8_t bytes[16]);
uint64_t mpt_siphash24(const struct mpt_siphash_key *key, const void *data, size_t len);

#endif
