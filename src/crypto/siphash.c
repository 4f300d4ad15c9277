// SPDX-License-Identifier: MIT
/* SipHash-2-4, written from the paper's description (section 2); see siphash.h. */
#include "siphash.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip_state *s)
{
	s->v0 += s->v1; s->v1 = rotl(s->v1, 13); s->v1 ^= s->v0; s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3; s->v3 = rotl(s->v3, 16); s->v3 ^= s->v2;
	s->v0 += s->v3; s->v3 = rotl(s->v3, 21); s->v3 ^= s->v0;
	s->v2 += s->v1; s->v1 = rotl(s->v1, 17); s->v1 ^= s->v2; s->v2 = rotl(s->v2, 32);
}

static void sip_absorb(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);		/* c = 2 compression rounds */
	sip_round(s);
	s->v0 ^= m;
}

void mpt_siphash_key_from_bytes(struct mpt_siphash_key *key, const uint8_t bytes[16])
{
	key->k0 = load_le64(bytes);
	key->k1 = load_le64(bytes + 8);
}

uint64_t mpt_siphash24(const struct mpt_siphash_key *key, const void *data, size_t len)
{
	const uint8_t *p = data;
	struct sip_state s = {
		.v0 = key->k0 ^ 0x736f6d6570736575ULL,	/* "somepseudorandomlygeneratedbytes" */
		.v1 = key->k1 ^ 0x646f72616e646f6dULL,
		.v2 = key->k0 ^ 0x6c7967656e657261ULL,
		.v3 = key->k1 ^ 0x7465646279746573ULL,
	};
	size_t full = len & ~(size_t)7;
	uint64_t last = (uint64_t)(len & 0xff) << 56;

	for (size_t i = 0; i < full; i += 8)
		sip_absorb(&s, load_le64(p + i));
	for (size_t i = 0; i < (len & 7); i++)
		last |= (uint64_t)p[full + i] << (8 * i);
	sip_absorb(&s, last);
	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)	/* d = 4 finalisation rounds */
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
