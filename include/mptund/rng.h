/* SPDX-License-Identifier: MIT */
/*
 * Per-session seeded PRNG (xoshiro256**, seeded through splitmix64). Algorithms take
 * randomness only from a struct mpt_rng they are handed, never from rand(), so that
 * every run with the same seed is reproducible in tests and in the simulator.
 */
#ifndef MPTUND_RNG_H
#define MPTUND_RNG_H

#include <stdint.h>

struct mpt_rng {
	uint64_t s[4];
};

static inline uint64_t mpt_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void mpt_rng_seed(struct mpt_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = mpt_splitmix64(&seed);
}

/* Seed from 32 bytes of entropy (the daemon's getrandom), the whole state at once. */
static inline void mpt_rng_seed_bytes(struct mpt_rng *r, const uint8_t b[32])
{
	uint64_t any = 0;

	for (int i = 0; i < 4; i++) {
		r->s[i] = 0;
		for (int j = 0; j < 8; j++)
			r->s[i] = r->s[i] << 8 | b[8 * i + j];
		any |= r->s[i];
	}
	if (!any)			/* xoshiro's one forbidden state */
		mpt_rng_seed(r, 0);
}

static inline uint64_t mpt_rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t mpt_rng_u64(struct mpt_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = mpt_rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = mpt_rotl64(s[3], 45);
	return res;
}

/* Uniform double in [0, 1). */
static inline double mpt_rng_double(struct mpt_rng *r)
{
	return (double)(mpt_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias < 2^-32 for n < 2^32). */
static inline uint32_t mpt_rng_below(struct mpt_rng *r, uint32_t n)
{
	return (uint32_t)(((mpt_rng_u64(r) >> 32) * (uint64_t)n) >> 32);
}

#endif
