/* SPDX-License-Identifier: MIT */
/*
 * HMAC-SHA256 with the key schedule done once. OpenSSL 3's one-shot HMAC() fetches
 * the algorithm and keys a new context on every call, several microseconds that a
 * flood of handshake inits multiplies: a struct mpt_hmac holds a keyed context (or an
 * unkeyed one, for keys that change per message) and each MAC duplicates it.
 */
#ifndef MPTUND_HMAC_H
#define MPTUND_HMAC_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/types.h>

#define MPT_HMAC_LEN	32

struct mpt_hmac {
	EVP_MAC_CTX *ctx;		/* HMAC-SHA256, keyed by init or not */
};

/* key may be NULL (then only mpt_hmac_with works). 0 or -EIO. */
int mpt_hmac_init(struct mpt_hmac *h, const uint8_t *key, size_t klen);
void mpt_hmac_free(struct mpt_hmac *h);
/* out = HMAC(the init's key, data). 0 or -EIO (out zeroed). */
int mpt_hmac_run(const struct mpt_hmac *h, uint8_t out[MPT_HMAC_LEN], const uint8_t *data,
		 size_t len);
/* out = HMAC(key, data), through h's context without fetching anything. */
int mpt_hmac_with(const struct mpt_hmac *h, uint8_t out[MPT_HMAC_LEN], const uint8_t *key,
		  size_t klen, const uint8_t *data, size_t len);

#endif
