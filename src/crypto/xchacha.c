// SPDX-License-Identifier: MIT
/*
 * XChaCha20-Poly1305 (xchacha.h). HChaCha20 is the ChaCha20 block function (RFC 8439
 * section 2.3) with the 16-byte input in place of counter and nonce and without the
 * final addition of the input state: the output is words 0..3 and 12..15 after the
 * 20 rounds, little-endian. OpenSSL has no HChaCha20, hence this one function.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "xchacha.h"

static uint32_t rotl(uint32_t v, unsigned n)
{
	return v << n | v >> (32 - n);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void quarter(uint32_t x[16], unsigned a, unsigned b, unsigned c, unsigned d)
{
	x[a] += x[b];
	x[d] = rotl(x[d] ^ x[a], 16);
	x[c] += x[d];
	x[b] = rotl(x[b] ^ x[c], 12);
	x[a] += x[b];
	x[d] = rotl(x[d] ^ x[a], 8);
	x[c] += x[d];
	x[b] = rotl(x[b] ^ x[c], 7);
}

void mpt_hchacha20(uint8_t out[32], const uint8_t key[MPT_XCHACHA_KEY_LEN],
		   const uint8_t in[16])
{
	/* "expand 32-byte k" */
	uint32_t x[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };

	for (unsigned i = 0; i < 8; i++)
		x[4 + i] = le32(key + 4 * i);
	for (unsigned i = 0; i < 4; i++)
		x[12 + i] = le32(in + 4 * i);
	for (unsigned r = 0; r < 10; r++) {	/* 10 double rounds */
		quarter(x, 0, 4, 8, 12);
		quarter(x, 1, 5, 9, 13);
		quarter(x, 2, 6, 10, 14);
		quarter(x, 3, 7, 11, 15);
		quarter(x, 0, 5, 10, 15);
		quarter(x, 1, 6, 11, 12);
		quarter(x, 2, 7, 8, 13);
		quarter(x, 3, 4, 9, 14);
	}
	for (unsigned i = 0; i < 4; i++) {
		put_le32(out + 4 * i, x[i]);
		put_le32(out + 16 + 4 * i, x[12 + i]);
	}
	OPENSSL_cleanse(x, sizeof(x));
}

/*
 * The inner ChaCha20-Poly1305 under the subkey, one context for the one message.
 * enc: in -> out and the tag to tag; else tag is checked. Returns 0 or -EBADMSG.
 */
static int inner(int enc, uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad,
		 size_t adlen, const uint8_t nonce[MPT_XCHACHA_NONCE_LEN],
		 const uint8_t key[MPT_XCHACHA_KEY_LEN], uint8_t tag[MPT_XCHACHA_TAG_LEN])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t sub[32], n12[12] = { 0 };
	int n, ok;

	mpt_hchacha20(sub, key, nonce);
	memcpy(n12 + 4, nonce + 16, 8);
	ok = c && len <= INT_MAX && adlen <= INT_MAX &&
	     EVP_CipherInit_ex(c, EVP_chacha20_poly1305(), NULL, sub, n12, enc) == 1 &&
	     (enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, MPT_XCHACHA_TAG_LEN,
					 tag) == 1) &&
	     (!adlen || EVP_CipherUpdate(c, NULL, &n, ad, (int)adlen) == 1) &&
	     (!len || EVP_CipherUpdate(c, out, &n, in, (int)len) == 1) &&
	     EVP_CipherFinal_ex(c, out + len, &n) == 1 &&
	     (!enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, MPT_XCHACHA_TAG_LEN,
					  tag) == 1);
	EVP_CIPHER_CTX_free(c);
	OPENSSL_cleanse(sub, sizeof(sub));
	return ok ? 0 : -EBADMSG;
}

int mpt_xchacha_seal(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad,
		     size_t adlen, const uint8_t nonce[MPT_XCHACHA_NONCE_LEN],
		     const uint8_t key[MPT_XCHACHA_KEY_LEN])
{
	if (inner(1, out, in, len, ad, adlen, nonce, key, out + len))
		return -EIO;
	return (int)(len + MPT_XCHACHA_TAG_LEN);
}

int mpt_xchacha_open(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad,
		     size_t adlen, const uint8_t nonce[MPT_XCHACHA_NONCE_LEN],
		     const uint8_t key[MPT_XCHACHA_KEY_LEN])
{
	uint8_t tag[MPT_XCHACHA_TAG_LEN];

	if (len < MPT_XCHACHA_TAG_LEN)
		return -EBADMSG;
	len -= MPT_XCHACHA_TAG_LEN;
	memcpy(tag, in + len, sizeof(tag));
	if (inner(0, out, in, len, ad, adlen, nonce, key, tag)) {
		OPENSSL_cleanse(out, len);
		return -EBADMSG;
	}
	return (int)len;
}
