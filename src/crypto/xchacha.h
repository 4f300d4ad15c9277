/* SPDX-License-Identifier: MIT */
/*
 * XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03): ChaCha20-Poly1305 with a 24-byte
 * nonce, safe to draw at random. HChaCha20 of the key and the nonce's first 16 bytes
 * gives a subkey; the AEAD proper is OpenSSL's ChaCha20-Poly1305 (RFC 8439) under the
 * subkey with the nonce 0,0,0,0 || nonce[16..24). For the cookie reply (cookie.h).
 */
#ifndef MPTUND_XCHACHA_H
#define MPTUND_XCHACHA_H

#include <stddef.h>
#include <stdint.h>

#define MPT_XCHACHA_KEY_LEN	32
#define MPT_XCHACHA_NONCE_LEN	24
#define MPT_XCHACHA_TAG_LEN	16

/* HChaCha20 (draft section 2.2): a 32-byte subkey from a key and a 16-byte input. */
void mpt_hchacha20(uint8_t out[32], const uint8_t key[MPT_XCHACHA_KEY_LEN],
		   const uint8_t in[16]);
/* out = ciphertext (len bytes) || tag. Returns len + tag or -EIO. */
int mpt_xchacha_seal(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad,
		     size_t adlen, const uint8_t nonce[MPT_XCHACHA_NONCE_LEN],
		     const uint8_t key[MPT_XCHACHA_KEY_LEN]);
/* in = ciphertext || tag (len bytes); out (room for len bytes, may be in) gets the
 * len - tag bytes of plaintext. Returns that length or -EBADMSG. */
int mpt_xchacha_open(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad,
		     size_t adlen, const uint8_t nonce[MPT_XCHACHA_NONCE_LEN],
		     const uint8_t key[MPT_XCHACHA_KEY_LEN]);

#endif
