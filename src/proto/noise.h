/* SPDX-License-Identifier: MIT */
/*
 * The mptund handshake: Noise IK (Noise spec rev. 34, sec. 7.5)
 *     <- s
 *     ...
 *     -> e, es, s, ss      (init: initiator's static and a TAI64N timestamp)
 *     <- e, ee, se         (response: empty payload)
 * with X25519, HKDF-SHA256 and ChaCha20-Poly1305 (mptund-proto(7)). It gives mutual
 * authentication and forward secrecy; the result is a struct mpt_keypair.
 *
 * Every message ends with mac1 = HMAC-SHA256(SHA256("mac1----" || receiver's static
 * public key), message up to mac1)[0..16): the receiver drops junk before any X25519.
 * The responder keeps no state for an init: mpt_noise_consume_init fills a caller's
 * (stack) struct and mpt_noise_create_response finishes from it.
 *
 * Randomness (ephemeral private keys) and time (the timestamp) are arguments.
 */
#ifndef MPTUND_NOISE_H
#define MPTUND_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/types.h>

#include <mptund/wire.h>

#include "config.h"
#include "hmac.h"

/* Our static identity, prepared once from the private key. */
struct mpt_noise_local {
	uint8_t priv[MPT_KEY_BYTES];
	EVP_PKEY *sk;				/* priv imported once (keys.h) */
	uint8_t pub[MPT_KEY_BYTES];
	uint8_t mac1_key[MPT_KEY_BYTES];	/* checks mac1 of messages sent to us */
	struct mpt_hmac mac1;			/* HMAC keyed with mac1_key, once */
};

/* The output of a handshake, on both sides. */
struct mpt_keypair {
	uint8_t send_key[MPT_KEY_BYTES];
	uint8_t recv_key[MPT_KEY_BYTES];
	uint32_t local_index;		/* peers put it in receiver_index to reach us */
	uint32_t remote_index;		/* we put it in receiver_index */
	enum mpt_cipher cipher;		/* for transport packets */
	bool initiator;
};

/* The initiator's state between sending an init and receiving its response. */
struct mpt_noise_initiation {
	uint8_t remote_pub[MPT_KEY_BYTES];
	uint8_t e_priv[MPT_KEY_BYTES];
	uint8_t ck[32], h[32];
	uint32_t local_index;
	enum mpt_cipher cipher;
	uint8_t flags;			/* MPT_HS_FLAG_* sent in the init */
	bool pending;
};

/* The responder's view of a consumed init (lives on the caller's stack). */
struct mpt_noise_responder {
	void *peer;			/* what the lookup returned */
	uint8_t remote_pub[MPT_KEY_BYTES];
	uint8_t remote_e[MPT_KEY_BYTES];
	uint8_t timestamp[MPT_TIMESTAMP_LEN];
	uint8_t ck[32], h[32];
	uint32_t remote_index;
	enum mpt_cipher cipher;
	uint8_t flags;			/* MPT_HS_FLAG_* of the init */
};

/*
 * Finds an initiator's static public key among the allowed peers. Returns 0 and sets
 * *peer and *last_timestamp (the peer's 12-byte storage of the last accepted init
 * timestamp, zeroed at start; updated by mpt_noise_consume_init on acceptance), or
 * -ENOKEY when the key is not allowed. *ss (NULL on entry) may point to the peer's
 * precomputed static-static DH (mpt_noise_static_dh), which saves one X25519.
 */
typedef int (*mpt_noise_lookup_fn)(void *arg, const uint8_t static_pub[MPT_KEY_BYTES],
				   void **peer, uint8_t **last_timestamp,
				   const uint8_t **ss);

int mpt_noise_local_init(struct mpt_noise_local *l, const uint8_t priv[MPT_KEY_BYTES]);

/* ss = X25519(our static, a peer's static): precompute it once per configured peer.
 * 0, -EINVAL (low-order key) or -EIO. */
int mpt_noise_static_dh(const struct mpt_noise_local *l,
			const uint8_t remote_pub[MPT_KEY_BYTES], uint8_t ss[MPT_KEY_BYTES]);

/* Frees what mpt_noise_local_init prepared and wipes the private key. */
void mpt_noise_local_free(struct mpt_noise_local *l);

/* TAI64N label of a wall-clock time: u64 (2^62 + seconds), u32 nanoseconds, BE. */
void mpt_noise_tai64n(uint8_t out[MPT_TIMESTAMP_LEN], uint64_t unix_ns);

/* Cheap pre-filter: is mac1 of this handshake message right for us? */
bool mpt_noise_mac1_ok(const struct mpt_noise_local *l, const uint8_t *msg, size_t len);

/* Sets mac1 of an init (len MPT_HS_INIT_LEN) addressed to l's public key (tests,
 * benchmarks and attack tools: mac1 is not a secret). */
void mpt_noise_mac1_fill(const struct mpt_noise_local *l, uint8_t *msg, size_t len);

/*
 * Initiator: build an init (MPT_HS_INIT_LEN bytes) to the responder remote_pub.
 * eph_random: 32 random bytes (clamped here). timestamp: mpt_noise_tai64n() of now,
 * strictly greater than any earlier init's to this responder. 0 or -EINVAL/-EIO.
 */
int mpt_noise_create_init(struct mpt_noise_initiation *st, const struct mpt_noise_local *l,
			  const uint8_t remote_pub[MPT_KEY_BYTES], enum mpt_cipher cipher,
			  uint32_t local_index, const uint8_t eph_random[MPT_KEY_BYTES],
			  const uint8_t timestamp[MPT_TIMESTAMP_LEN],
			  uint8_t out[MPT_HS_INIT_LEN]);
/* The same with flags (MPT_HS_FLAG_*), authenticated with the rest of the init. */
int mpt_noise_create_init_flags(struct mpt_noise_initiation *st,
				const struct mpt_noise_local *l,
				const uint8_t remote_pub[MPT_KEY_BYTES], enum mpt_cipher cipher,
				uint32_t local_index, const uint8_t eph_random[MPT_KEY_BYTES],
				const uint8_t timestamp[MPT_TIMESTAMP_LEN], uint8_t flags,
				uint8_t out[MPT_HS_INIT_LEN]);
/*
 * Initiator: consume the response. On success fills *kp and ends the initiation
 * (st->pending false, secrets wiped). Errors: -EBADMSG (malformed, mac1, crypto),
 * -ESTALE (no pending initiation with that receiver index); *reason tells which.
 */
int mpt_noise_consume_response(struct mpt_noise_initiation *st,
			       const struct mpt_noise_local *l, const uint8_t *msg,
			       size_t len, struct mpt_keypair *kp, int *reason);

/*
 * Responder: authenticate an init. In order: size and version, mac1 (before any
 * X25519), cipher, es, decrypt the static key, lookup (-ENOKEY), ss, decrypt the
 * timestamp, timestamp newer than the peer's last (-EALREADY, replay). On success the
 * peer's last timestamp is updated and *st is ready for mpt_noise_create_response.
 * Other errors: -EBADMSG. *reason names each.
 */
int mpt_noise_consume_init(struct mpt_noise_responder *st, const struct mpt_noise_local *l,
			   const uint8_t *msg, size_t len, mpt_noise_lookup_fn lookup,
			   void *arg, int *reason);
/* The same for a caller that has checked mac1 already (mpt_noise_mac1_ok) and the
 * length and type (mpt_wire_classify): the daemon's path, mac1 computed once. */
int mpt_noise_consume_init_mac1ok(struct mpt_noise_responder *st,
				  const struct mpt_noise_local *l, const uint8_t *msg,
				  mpt_noise_lookup_fn lookup, void *arg, int *reason);
/* Responder: build the response (MPT_HS_RESP_LEN bytes) and the keypair. Wipes *st. */
int mpt_noise_create_response(struct mpt_noise_responder *st,
			      const struct mpt_noise_local *l, uint32_t local_index,
			      const uint8_t eph_random[MPT_KEY_BYTES],
			      uint8_t out[MPT_HS_RESP_LEN], struct mpt_keypair *kp);

/* Wipe a keypair's keys (after installing them in struct mpt_aead). */
void mpt_keypair_wipe(struct mpt_keypair *kp);

#endif
