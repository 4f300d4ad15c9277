/* SPDX-License-Identifier: MIT */
/*
 * Cookies under load (WireGuard's section 5.4.7 mechanism; mptund-proto(7)).
 *
 * The anchor holds a random secret, replaced every MPT_COOKIE_SECRET_NS. The cookie
 * of a source address (IP and port) is
 *     cookie = HMAC-SHA256(secret, address)[0..16)
 * Under load, an init whose mac2 is not
 *     mac2 = HMAC-SHA256(cookie, init[0..mac2))[0..16)
 * is answered with a cookie reply and costs no X25519: the reply carries the cookie
 * encrypted with XChaCha20-Poly1305 under SHA-256("cookie--" || anchor's static
 * public key), a random nonce, and the init's mac1 as associated data (only the
 * sender of that init can use the reply). A spoofed source never sees its cookie, so
 * a flood of spoofed addresses cannot make inits that pass the mac2 check.
 *
 * The UE keeps the cookie of each path for MPT_COOKIE_KEEP_NS and puts mac2 into the
 * inits it sends on that path (zeros without a cookie).
 *
 * An all-zero mac2 is "no cookie" and costs no MAC. Pure: randomness and time are
 * arguments.
 */
#ifndef MPTUND_COOKIE_H
#define MPTUND_COOKIE_H

#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

#include <mptund/common.h>
#include <mptund/wire.h>

#include "hmac.h"

#define MPT_COOKIE_LEN		16
#define MPT_COOKIE_SECRET_LEN	32
#define MPT_COOKIE_SECRET_NS	(120 * MPT_NSEC_PER_SEC)	/* secret lifetime */
#define MPT_COOKIE_KEEP_NS	(115 * MPT_NSEC_PER_SEC)	/* UE: 120 s less latency */

/* Anchor side. */
struct mpt_cookie_checker {
	uint64_t secret_born_ns;
	bool have_secret;
	struct mpt_hmac secret;		/* keyed with the secret */
	struct mpt_hmac any;		/* unkeyed: mac2 under each source's cookie */
	uint8_t enc_key[32];		/* SHA-256("cookie--" || our static public key) */
};

/* UE side: the cookie of one path. */
struct mpt_cookie_slot {
	uint8_t cookie[MPT_COOKIE_LEN];
	uint64_t got_ns;
	bool valid;
};

/* The key that encrypts cookie replies from the holder of static public key pub. */
void mpt_cookie_enc_key(uint8_t key[32], const uint8_t pub[MPT_KEY_BYTES]);

/* 0 or -EIO; free with mpt_cookie_checker_free. */
int mpt_cookie_checker_init(struct mpt_cookie_checker *c,
			    const uint8_t local_pub[MPT_KEY_BYTES]);
void mpt_cookie_checker_free(struct mpt_cookie_checker *c);
/* Does the secret need replacing (none yet, or older than MPT_COOKIE_SECRET_NS)? */
bool mpt_cookie_secret_stale(const struct mpt_cookie_checker *c, uint64_t now_ns);
/* 0 or -EIO (the checker then has no secret: no mac2 passes, no reply is made). */
int mpt_cookie_set_secret(struct mpt_cookie_checker *c,
			  const uint8_t secret[MPT_COOKIE_SECRET_LEN], uint64_t now_ns);
/* Is the mac2 of this init (MPT_HS_INIT_LEN bytes) right for its source now? */
bool mpt_cookie_mac2_ok(const struct mpt_cookie_checker *c, const uint8_t *init,
			const struct sockaddr *from, uint64_t now_ns);
/*
 * The cookie reply (MPT_COOKIE_REPLY_LEN bytes) to an init from a source. nonce: 24
 * random bytes. 0, -EAFNOSUPPORT or -EIO.
 */
int mpt_cookie_reply(const struct mpt_cookie_checker *c, uint8_t out[MPT_COOKIE_REPLY_LEN],
		     const uint8_t *init, const struct sockaddr *from,
		     const uint8_t nonce[MPT_COOKIE_NONCE_LEN], uint64_t now_ns);

/*
 * UE: open a cookie reply (MPT_COOKIE_REPLY_LEN bytes, classified) to our init whose
 * mac1 is init_mac1, with enc_key = mpt_cookie_enc_key(anchor's public key). Stores
 * the cookie in *slot at now_ns. 0 or -EBADMSG (forged, or for another init).
 */
int mpt_cookie_consume(struct mpt_cookie_slot *slot, const uint8_t enc_key[32],
		       const uint8_t *msg, const uint8_t init_mac1[MPT_MAC1_LEN],
		       uint64_t now_ns);
/* UE: set mac2 of an init from the slot's cookie, or zeros without a fresh one. */
void mpt_cookie_put_mac2(uint8_t *init, const struct mpt_cookie_slot *slot,
			 uint64_t now_ns);

#endif
