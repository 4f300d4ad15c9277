/* SPDX-License-Identifier: MIT */
/*
 * The anchor's admission of handshake inits: what an init must pass, after its mac1
 * and before any X25519 (mptund-proto(7), "Handshake floods"). In order:
 *
 *   1. not a copy of one of the last MPT_HS_SEEN inits that authenticated (a replay,
 *      or the same init sent on another path): dropped, no DH, no token;
 *   2. under load (the load meter ran dry less than a second ago) or with the
 *      source's bucket empty, an init without a valid mac2 gets a cookie reply and
 *      nothing else (cookie.h);
 *   3. the source's token: a per-source bucket for inits without a valid mac2,
 *      another for inits with one (a spoofed stream cannot drain the bucket of a
 *      source that proves its address);
 *   4. a token of the global budget for X25519 work (MPT_HS_BUDGET_RATE/s).
 *
 * Pure: time and the source address are arguments, no allocation, no I/O.
 */
#ifndef MPTUND_HSGUARD_H
#define MPTUND_HSGUARD_H

#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

#include <mptund/wire.h>

#include "cookie.h"
#include "ratelimit.h"

/* Global budget of inits that reach X25519: about 1000 x 0.4 ms = 40% of one core
 * for the worst case (valid inits), leaving the rest to transport packets. */
#define MPT_HS_BUDGET_RATE	1000	/* inits/s */
#define MPT_HS_BUDGET_BURST	100
/* Load meter: mac1-valid inits beyond this rate put the anchor "under load". A real
 * UE sends one init per path per handshake; 128/s is far above that for a few
 * hundred UEs and far below what one core completes. */
#define MPT_HS_LOAD_RATE	128	/* inits/s */
#define MPT_HS_LOAD_BURST	256
#define MPT_HS_LOAD_HOLD_NS	MPT_NSEC_PER_SEC	/* under load until 1 s after */
/* Authenticated inits remembered by their mac1 (4-way sets). */
#define MPT_HS_SEEN_SETS	256
#define MPT_HS_SEEN_WAYS	4
#define MPT_HS_SEEN		(MPT_HS_SEEN_SETS * MPT_HS_SEEN_WAYS)

enum mpt_hs_verdict {
	MPT_HS_ADMIT,		/* go on with the Noise responder */
	MPT_HS_SEND_COOKIE,	/* answer with a cookie reply (mpt_cookie_reply) */
	MPT_HS_DROP,		/* *reason says why */
};

struct mpt_hs_seen_entry {
	uint8_t mac1[MPT_MAC1_LEN];
	uint32_t seq;			/* 0: empty */
};

struct mpt_hs_guard {
	struct mpt_ratelimit per_src;		/* inits without a valid mac2 */
	struct mpt_ratelimit per_src_proven;	/* inits with a valid mac2 */
	struct mpt_bucket budget;		/* X25519 work, all sources */
	struct mpt_bucket load;			/* load meter */
	uint64_t loaded_until_ns;
	struct mpt_cookie_checker cookie;	/* secret: set by the caller */
	uint32_t seen_seq;
	struct mpt_hs_seen_entry seen[MPT_HS_SEEN_SETS][MPT_HS_SEEN_WAYS];
};

/*
 * local_pub: our static public key (the cookie reply's key). seed: random (the
 * limiters' set index). The caller keeps g->cookie's secret fresh
 * (mpt_cookie_secret_stale, mpt_cookie_set_secret). 0, -EINVAL or -EIO.
 */
int mpt_hs_guard_init(struct mpt_hs_guard *g, const uint8_t local_pub[MPT_KEY_BYTES],
		      uint64_t seed, uint64_t now_ns);
void mpt_hs_guard_free(struct mpt_hs_guard *g);
/*
 * An init (MPT_HS_INIT_LEN bytes, mac1 already checked) from a source: the verdict,
 * and the reason to count (enum mpt_wire_reason) for MPT_HS_DROP and
 * MPT_HS_SEND_COOKIE (MPT_WIRE_HS_COOKIE).
 */
enum mpt_hs_verdict mpt_hs_guard_admit(struct mpt_hs_guard *g, const uint8_t *msg,
				       const struct sockaddr *from, uint64_t now_ns,
				       int *reason);
/* The init authenticated (accepted, or refused as a replay): remember its mac1. */
void mpt_hs_guard_seen(struct mpt_hs_guard *g, const uint8_t *msg);
/* Is the anchor under load at now_ns? */
bool mpt_hs_guard_loaded(const struct mpt_hs_guard *g, uint64_t now_ns);

#endif
