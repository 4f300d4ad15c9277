/* SPDX-License-Identifier: MIT */
/*
 * X25519 keys (RFC 7748) in WireGuard's text form: 32 bytes as 44 characters of
 * standard base64 with one '=' of padding. Randomness comes from the caller
 * (getrandom in the daemon), so everything here is deterministic.
 */
#ifndef MPTUND_KEYS_H
#define MPTUND_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/types.h>

#define MPT_KEY_SIZE		32
#define MPT_KEY_B64_LEN		44	/* without the NUL */

/* Writes 44 characters and a NUL into out (>= 45 bytes). */
void mpt_key_to_base64(char out[MPT_KEY_B64_LEN + 1], const uint8_t key[MPT_KEY_SIZE]);
/* Strict: exactly 44 characters, canonical padding. 0 or -EINVAL. */
int mpt_key_from_base64(uint8_t key[MPT_KEY_SIZE], const char *text);

/* A private key from 32 random bytes: clamped as RFC 7748 sec. 5 decodeScalar25519. */
void mpt_key_private_from_random(uint8_t priv[MPT_KEY_SIZE],
				 const uint8_t random[MPT_KEY_SIZE]);
/* pub = X25519(priv, 9). 0 or -EIO. */
int mpt_key_public(uint8_t pub[MPT_KEY_SIZE], const uint8_t priv[MPT_KEY_SIZE]);
/* shared = X25519(priv, pub). -EINVAL when the result is all zero (low-order pub). */
int mpt_x25519(uint8_t shared[MPT_KEY_SIZE], const uint8_t priv[MPT_KEY_SIZE],
	       const uint8_t pub[MPT_KEY_SIZE]);

/*
 * A private key imported once for several DHs (the public key is derived at import,
 * which costs as much as one DH). NULL on failure; free with mpt_x25519_free.
 */
EVP_PKEY *mpt_x25519_load(const uint8_t priv[MPT_KEY_SIZE]);
int mpt_x25519_public_of(uint8_t pub[MPT_KEY_SIZE], EVP_PKEY *k);
/* shared = X25519(k, pub): one scalar multiplication. -EINVAL when all zero. */
int mpt_x25519_with(uint8_t shared[MPT_KEY_SIZE], EVP_PKEY *k,
		    const uint8_t pub[MPT_KEY_SIZE]);
void mpt_x25519_free(EVP_PKEY *k);

/* Constant-time comparison of n bytes: 0 when equal. */
int mpt_memcmp_ct(const void *a, const void *b, size_t n);

#endif
