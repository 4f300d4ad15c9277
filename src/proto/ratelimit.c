// SPDX-License-Identifier: MIT
/*
 * Handshake-init rate limiter: a token bucket per source, measured in nanoseconds of
 * refill time (one token = ns_per_token), so refilling is one subtraction with no
 * division per packet. The set index is a seeded 64-bit mix of the key (not a MAC:
 * the seed only makes an attacker's collisions unpredictable across restarts).
 */
#include <errno.h>
#include <string.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <mptund/common.h>

#include "ratelimit.h"

int mpt_ratelimit_init(struct mpt_ratelimit *rl, uint32_t rate, uint32_t burst,
		       uint64_t seed)
{
	if (rate < 1 || burst < 1)
		return -EINVAL;
	memset(rl, 0, sizeof(*rl));
	rl->seed = seed;
	rl->ns_per_token = MPT_NSEC_PER_SEC / rate;
	rl->cap_ns = rl->ns_per_token * burst;
	return 0;
}

static unsigned set_of(const struct mpt_ratelimit *rl, const uint8_t *key)
{
	uint64_t h = rl->seed ^ 0x9e3779b97f4a7c15ULL;

	for (unsigned i = 0; i < MPT_RL_ADDR_LEN; i++) {
		h ^= key[i];
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return (unsigned)(h % MPT_RL_SETS);
}

int mpt_bucket_init(struct mpt_bucket *b, uint32_t rate, uint32_t burst, uint64_t now_ns)
{
	if (rate < 1 || burst < 1)
		return -EINVAL;
	b->ns_per_token = MPT_NSEC_PER_SEC / rate;
	b->cap_ns = b->ns_per_token * burst;
	b->tokens_ns = b->cap_ns;
	b->last_ns = now_ns;
	return 0;
}

static void refill(uint64_t *tokens_ns, uint64_t *last_ns, uint64_t cap_ns, uint64_t now_ns)
{
	if (now_ns > *last_ns) {
		uint64_t t = *tokens_ns + (now_ns - *last_ns);

		*tokens_ns = t < *tokens_ns || t > cap_ns ? cap_ns : t;
		*last_ns = now_ns;
	}
}

bool mpt_bucket_take(struct mpt_bucket *b, uint64_t now_ns)
{
	refill(&b->tokens_ns, &b->last_ns, b->cap_ns, now_ns);
	if (b->tokens_ns < b->ns_per_token)
		return false;
	b->tokens_ns -= b->ns_per_token;
	return true;
}

/* The source's entry, refilled to now; a new one holds a single token. */
static struct mpt_rl_entry *entry_of(struct mpt_ratelimit *rl,
				     const uint8_t key[MPT_RL_ADDR_LEN], uint64_t now_ns)
{
	struct mpt_rl_entry *set = rl->e[set_of(rl, key)], *e = NULL, *victim = &set[0];

	for (unsigned w = 0; w < MPT_RL_WAYS; w++) {
		if (set[w].used && !memcmp(set[w].key, key, MPT_RL_ADDR_LEN)) {
			e = &set[w];
			break;
		}
		if (!set[w].used)
			victim = &set[w];
		else if (victim->used && set[w].last_ns < victim->last_ns)
			victim = &set[w];
	}
	if (!e) {
		e = victim;
		memcpy(e->key, key, MPT_RL_ADDR_LEN);
		e->used = true;
		e->last_ns = now_ns;
		e->tokens_ns = rl->ns_per_token;
	}
	refill(&e->tokens_ns, &e->last_ns, rl->cap_ns, now_ns);
	return e;
}

bool mpt_ratelimit_allow(struct mpt_ratelimit *rl, const uint8_t key[MPT_RL_ADDR_LEN],
			 uint64_t now_ns)
{
	struct mpt_rl_entry *e = entry_of(rl, key, now_ns);

	if (e->tokens_ns < rl->ns_per_token)
		return false;
	e->tokens_ns -= rl->ns_per_token;
	return true;
}

bool mpt_ratelimit_peek(struct mpt_ratelimit *rl, const uint8_t key[MPT_RL_ADDR_LEN],
			uint64_t now_ns)
{
	return entry_of(rl, key, now_ns)->tokens_ns >= rl->ns_per_token;
}

int mpt_ratelimit_key(uint8_t key[MPT_RL_ADDR_LEN], const struct sockaddr *sa)
{
	memset(key, 0, MPT_RL_ADDR_LEN);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		key[10] = key[11] = 0xff;
		memcpy(key + 12, &s4->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		memcpy(key, &s6->sin6_addr, 16);
		if (!IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
			memset(key + 8, 0, 8);		/* the /64 */
		return 0;
	}
	return -EAFNOSUPPORT;
}
