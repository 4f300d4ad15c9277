/* SPDX-License-Identifier: MIT */
/*
 * Token-bucket rate limit for handshake inits, keyed by source network: an IPv4
 * address (as v4-mapped IPv6, /32 of it), an IPv6 /64 (one host's SLAAC prefix: a
 * flood from random addresses of one /64 is one source). A bounded table
 * (MPT_RL_SETS x MPT_RL_WAYS entries, set-associative, least recently seen entry
 * evicted), no allocation after init, time passed in. A new or evicted source starts
 * with one token, not a full bucket, so churning the table through many spoofed
 * sources buys one init per source and eviction, not a burst; the table bounds
 * memory under such a flood.
 *
 * struct mpt_bucket is one plain token bucket (a global budget, a load meter).
 */
#ifndef MPTUND_RATELIMIT_H
#define MPTUND_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define MPT_RL_SETS		256
#define MPT_RL_WAYS		4
#define MPT_RL_ADDR_LEN		16	/* IPv6 or v4-mapped address (no port) */

/* Defaults as WireGuard's ratelimiter.c: 20 inits/s per source, burst of 5. */
#define MPT_RL_DEFAULT_RATE	20
#define MPT_RL_DEFAULT_BURST	5

struct mpt_rl_entry {
	uint8_t key[MPT_RL_ADDR_LEN];
	bool used;
	uint64_t last_ns;		/* last refill */
	uint64_t tokens_ns;		/* bucket content in ns of refill time */
};

struct mpt_ratelimit {
	uint64_t seed;			/* keys the set index against chosen collisions */
	uint64_t ns_per_token;		/* 1 s / rate */
	uint64_t cap_ns;		/* burst x ns_per_token */
	struct mpt_rl_entry e[MPT_RL_SETS][MPT_RL_WAYS];
};

/* One token bucket, in ns of refill time like the table's entries. */
struct mpt_bucket {
	uint64_t ns_per_token;
	uint64_t cap_ns;
	uint64_t tokens_ns;
	uint64_t last_ns;
};

/* rate: tokens per second (>= 1), burst: bucket size (>= 1); starts full. */
int mpt_bucket_init(struct mpt_bucket *b, uint32_t rate, uint32_t burst, uint64_t now_ns);
/* Takes a token at now_ns if there is one. */
bool mpt_bucket_take(struct mpt_bucket *b, uint64_t now_ns);

/* rate: tokens per second (>= 1), burst: bucket size (>= 1). seed: random. */
int mpt_ratelimit_init(struct mpt_ratelimit *rl, uint32_t rate, uint32_t burst,
		       uint64_t seed);
/*
 * May a handshake from this source proceed at now_ns? key is MPT_RL_ADDR_LEN bytes
 * (mpt_ratelimit_key() builds it from a sockaddr). Takes a token when true.
 */
bool mpt_ratelimit_allow(struct mpt_ratelimit *rl, const uint8_t key[MPT_RL_ADDR_LEN],
			 uint64_t now_ns);
/* Would this source be allowed now? Like allow, but takes nothing (the source is
 * entered in the table as allow would). */
bool mpt_ratelimit_peek(struct mpt_ratelimit *rl, const uint8_t key[MPT_RL_ADDR_LEN],
			uint64_t now_ns);

struct sockaddr;
/* IPv4 (also v4-mapped on an IPv6 socket) becomes v4-mapped IPv6, whole; IPv6 is cut
 * to its /64. The port is left out (a flood may vary it). -EAFNOSUPPORT for other
 * families. */
int mpt_ratelimit_key(uint8_t key[MPT_RL_ADDR_LEN], const struct sockaddr *sa);

#endif
