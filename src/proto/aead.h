/* SPDX-License-Identifier: MIT */
/*
 * Authenticated encryption for transport packets and handshake payloads:
 * ChaCha20-Poly1305 (RFC 8439) or AES-256-GCM through OpenSSL EVP. A struct mpt_aead
 * holds one prepared EVP_CIPHER_CTX per direction for one key, so the per-packet
 * cost is a nonce reset, no allocation. Sealing and opening work in place; sealing
 * can also write elsewhere (mpt_aead_seal_to).
 */
#ifndef MPTUND_AEAD_H
#define MPTUND_AEAD_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "config.h"

#define MPT_AEAD_KEY_LEN	32
#define MPT_AEAD_NONCE_LEN	12
#define MPT_AEAD_TAG_LEN	16

struct mpt_aead {
	EVP_CIPHER_CTX *seal;		/* keyed for encryption */
	EVP_CIPHER_CTX *open;		/* keyed for decryption */
	enum mpt_cipher cipher;
};

/* Prepare both contexts for key. 0, -EINVAL (unknown cipher), -ENOMEM or -EIO. */
int mpt_aead_init(struct mpt_aead *a, enum mpt_cipher cipher,
		  const uint8_t key[MPT_AEAD_KEY_LEN]);
/* Frees the contexts (safe on a zeroed or already freed struct). */
void mpt_aead_free(struct mpt_aead *a);

/*
 * Encrypt buf[0..len) in place and append the tag at buf + len; ad is authenticated.
 * Returns len + MPT_AEAD_TAG_LEN or -EIO. The caller guarantees the room.
 */
int mpt_aead_seal(struct mpt_aead *a, const uint8_t nonce[MPT_AEAD_NONCE_LEN],
		  const uint8_t *ad, size_t adlen, uint8_t *buf, size_t len);
/* Encrypt in[0..len) to out (ciphertext, then the tag); in and out may be equal. */
int mpt_aead_seal_to(struct mpt_aead *a, const uint8_t nonce[MPT_AEAD_NONCE_LEN],
		     const uint8_t *ad, size_t adlen, const uint8_t *in, size_t len,
		     uint8_t *out);
/*
 * Check and decrypt buf[0..len) (ciphertext || tag) in place. Returns the plaintext
 * length (len - tag) or -EBADMSG (short or forged: the buffer is garbage then).
 */
int mpt_aead_open(struct mpt_aead *a, const uint8_t nonce[MPT_AEAD_NONCE_LEN],
		  const uint8_t *ad, size_t adlen, uint8_t *buf, size_t len);

/*
 * Transport packets (include/mptund/wire.h): pkt starts with an encoded 16-byte
 * header, the frames follow at pkt + MPT_WIRE_HDR_LEN. The nonce is built from the
 * header's path_id and packet number, the header is the associated data.
 * seal: frames_len bytes of frames; cap is the buffer size. Returns the datagram
 * length or -ENOSPC / -EIO.
 * open: len is the datagram length. Returns the frames' length (plaintext at
 * pkt + MPT_WIRE_HDR_LEN) or -EBADMSG. Decode the header first (mpt_hdr_decode).
 */
int mpt_aead_seal_packet(struct mpt_aead *a, uint8_t *pkt, size_t frames_len, size_t cap);
/* The same out of place: the header and frames at pkt stay as they are (a packet kept
 * for retransmission), the datagram is written to out (cap bytes). */
int mpt_aead_seal_packet_to(struct mpt_aead *a, const uint8_t *pkt, size_t frames_len,
			    uint8_t *out, size_t cap);
int mpt_aead_open_packet(struct mpt_aead *a, uint8_t *pkt, size_t len);

/* "chacha20-poly1305" / "aes-256-gcm". */
const char *mpt_cipher_name(enum mpt_cipher c);

#endif
