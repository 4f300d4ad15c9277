// SPDX-License-Identifier: MIT
/*
 * AEAD through OpenSSL EVP. The key schedule runs once in mpt_aead_init; each packet
 * only re-initialises the context with its nonce (key NULL keeps the key), feeds the
 * associated data and the text, and gets or checks the 16-byte tag. No allocation
 * per packet: testbed/bench_aead prints the cost per 1400-byte packet.
 */
#include <errno.h>
#include <string.h>
#include <limits.h>

#include <openssl/evp.h>

#include <mptund/wire.h>

#include "aead.h"

_Static_assert(MPT_AEAD_TAG_LEN == MPT_WIRE_TAG_LEN, "wire tag is the AEAD tag");
_Static_assert(MPT_AEAD_NONCE_LEN == MPT_WIRE_NONCE_LEN, "wire nonce is the AEAD nonce");

static const EVP_CIPHER *evp_cipher(enum mpt_cipher c)
{
	switch (c) {
	case MPT_CIPHER_CHACHA20_POLY1305:
		return EVP_chacha20_poly1305();
	case MPT_CIPHER_AES_256_GCM:
		return EVP_aes_256_gcm();
	}
	return NULL;
}

const char *mpt_cipher_name(enum mpt_cipher c)
{
	switch (c) {
	case MPT_CIPHER_CHACHA20_POLY1305:
		return "chacha20-poly1305";
	case MPT_CIPHER_AES_256_GCM:
		return "aes-256-gcm";
	}
	return "unknown";
}

void mpt_aead_free(struct mpt_aead *a)
{
	EVP_CIPHER_CTX_free(a->seal);
	EVP_CIPHER_CTX_free(a->open);
	a->seal = a->open = NULL;
}

int mpt_aead_init(struct mpt_aead *a, enum mpt_cipher cipher,
		  const uint8_t key[MPT_AEAD_KEY_LEN])
{
	const EVP_CIPHER *evp = evp_cipher(cipher);

	a->seal = a->open = NULL;
	a->cipher = cipher;
	if (!evp)
		return -EINVAL;
	a->seal = EVP_CIPHER_CTX_new();
	a->open = EVP_CIPHER_CTX_new();
	if (!a->seal || !a->open) {
		mpt_aead_free(a);
		return -ENOMEM;
	}
	if (EVP_EncryptInit_ex(a->seal, evp, NULL, key, NULL) != 1 ||
	    EVP_DecryptInit_ex(a->open, evp, NULL, key, NULL) != 1) {
		mpt_aead_free(a);
		return -EIO;
	}
	return 0;
}

int mpt_aead_seal_to(struct mpt_aead *a, const uint8_t nonce[MPT_AEAD_NONCE_LEN],
		     const uint8_t *ad, size_t adlen, const uint8_t *in, size_t len,
		     uint8_t *out)
{
	EVP_CIPHER_CTX *c = a->seal;
	int n, fin;

	if (len > INT_MAX - MPT_AEAD_TAG_LEN || adlen > INT_MAX)
		return -EINVAL;
	if (EVP_EncryptInit_ex(c, NULL, NULL, NULL, nonce) != 1)
		return -EIO;
	if (adlen && EVP_EncryptUpdate(c, NULL, &n, ad, (int)adlen) != 1)
		return -EIO;
	n = 0;
	if (len && EVP_EncryptUpdate(c, out, &n, in, (int)len) != 1)
		return -EIO;
	if (EVP_EncryptFinal_ex(c, out + n, &fin) != 1)
		return -EIO;
	if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, MPT_AEAD_TAG_LEN, out + len) != 1)
		return -EIO;
	return (int)len + MPT_AEAD_TAG_LEN;
}

int mpt_aead_seal(struct mpt_aead *a, const uint8_t nonce[MPT_AEAD_NONCE_LEN],
		  const uint8_t *ad, size_t adlen, uint8_t *buf, size_t len)
{
	return mpt_aead_seal_to(a, nonce, ad, adlen, buf, len, buf);
}

int mpt_aead_open(struct mpt_aead *a, const uint8_t nonce[MPT_AEAD_NONCE_LEN],
		  const uint8_t *ad, size_t adlen, uint8_t *buf, size_t len)
{
	EVP_CIPHER_CTX *c = a->open;
	size_t clen;
	int n, fin;

	if (len < MPT_AEAD_TAG_LEN || len > INT_MAX || adlen > INT_MAX)
		return -EBADMSG;
	clen = len - MPT_AEAD_TAG_LEN;
	if (EVP_DecryptInit_ex(c, NULL, NULL, NULL, nonce) != 1)
		return -EBADMSG;
	if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, MPT_AEAD_TAG_LEN,
				buf + clen) != 1)
		return -EBADMSG;
	if (adlen && EVP_DecryptUpdate(c, NULL, &n, ad, (int)adlen) != 1)
		return -EBADMSG;
	n = 0;
	if (clen && EVP_DecryptUpdate(c, buf, &n, buf, (int)clen) != 1)
		return -EBADMSG;
	if (EVP_DecryptFinal_ex(c, buf + n, &fin) != 1)
		return -EBADMSG;
	return (int)clen;
}

int mpt_aead_seal_packet(struct mpt_aead *a, uint8_t *pkt, size_t frames_len, size_t cap)
{
	uint8_t nonce[MPT_WIRE_NONCE_LEN];

	if (cap < MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN ||
	    frames_len > cap - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN)
		return -ENOSPC;
	mpt_wire_nonce(nonce, pkt[MPT_OFF_PATH_ID], mpt_get_u64(pkt + MPT_OFF_PN));
	int n = mpt_aead_seal(a, nonce, pkt, MPT_WIRE_HDR_LEN, pkt + MPT_WIRE_HDR_LEN,
			      frames_len);
	return n < 0 ? n : n + MPT_WIRE_HDR_LEN;
}

int mpt_aead_seal_packet_to(struct mpt_aead *a, const uint8_t *pkt, size_t frames_len,
			    uint8_t *out, size_t cap)
{
	uint8_t nonce[MPT_WIRE_NONCE_LEN];
	int n;

	if (cap < MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN ||
	    frames_len > cap - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN)
		return -ENOSPC;
	memcpy(out, pkt, MPT_WIRE_HDR_LEN);
	mpt_wire_nonce(nonce, pkt[MPT_OFF_PATH_ID], mpt_get_u64(pkt + MPT_OFF_PN));
	n = mpt_aead_seal_to(a, nonce, out, MPT_WIRE_HDR_LEN, pkt + MPT_WIRE_HDR_LEN,
			     frames_len, out + MPT_WIRE_HDR_LEN);
	return n < 0 ? n : n + MPT_WIRE_HDR_LEN;
}

int mpt_aead_open_packet(struct mpt_aead *a, uint8_t *pkt, size_t len)
{
	uint8_t nonce[MPT_WIRE_NONCE_LEN];

	if (len < MPT_WIRE_MIN_TRANSPORT)
		return -EBADMSG;
	mpt_wire_nonce(nonce, pkt[MPT_OFF_PATH_ID], mpt_get_u64(pkt + MPT_OFF_PN));
	return mpt_aead_open(a, nonce, pkt, MPT_WIRE_HDR_LEN, pkt + MPT_WIRE_HDR_LEN,
			     len - MPT_WIRE_HDR_LEN);
}
