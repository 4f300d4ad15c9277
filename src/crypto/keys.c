// SPDX-License-Identifier: MIT
/*
 * Key text form and X25519 through OpenSSL's EVP_PKEY (raw key import/export). The
 * private key is imported once (mpt_x25519_load): OpenSSL derives the public key at
 * import, a scalar multiplication as dear as the DH itself, so a key used for more
 * than one DH (the static key, an ephemeral) is kept as an EVP_PKEY. The
 * base64 codec is the plain RFC 4648 alphabet, strict on decode: a 32-byte key has
 * exactly one canonical 44-character spelling, so config files compare as text.
 */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "keys.h"

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

void mpt_key_to_base64(char out[MPT_KEY_B64_LEN + 1], const uint8_t key[MPT_KEY_SIZE])
{
	unsigned i, o = 0;

	for (i = 0; i + 3 <= MPT_KEY_SIZE; i += 3) {
		uint32_t v = (uint32_t)key[i] << 16 | (uint32_t)key[i + 1] << 8 | key[i + 2];

		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	/* 32 = 30 + 2: the last two bytes make three characters and one '='. */
	uint32_t v = (uint32_t)key[30] << 16 | (uint32_t)key[31] << 8;

	out[o++] = b64[v >> 18 & 63];
	out[o++] = b64[v >> 12 & 63];
	out[o++] = b64[v >> 6 & 63];
	out[o++] = '=';
	out[o] = '\0';
}

int mpt_key_from_base64(uint8_t key[MPT_KEY_SIZE], const char *text)
{
	uint8_t tmp[MPT_KEY_SIZE];
	unsigned i, o = 0;
	int d[4];

	if (strlen(text) != MPT_KEY_B64_LEN || text[43] != '=')
		return -EINVAL;
	for (i = 0; i < MPT_KEY_B64_LEN; i += 4) {
		unsigned nd = i == 40 ? 3 : 4;

		for (unsigned j = 0; j < nd; j++) {
			d[j] = b64_value(text[i + j]);
			if (d[j] < 0)
				return -EINVAL;
		}
		if (nd == 3) {
			/* 16 bits in 18: the two lowest must be zero (canonical). */
			if (d[2] & 3)
				return -EINVAL;
			tmp[o++] = (uint8_t)(d[0] << 2 | d[1] >> 4);
			tmp[o++] = (uint8_t)((d[1] & 15) << 4 | d[2] >> 2);
		} else {
			tmp[o++] = (uint8_t)(d[0] << 2 | d[1] >> 4);
			tmp[o++] = (uint8_t)((d[1] & 15) << 4 | d[2] >> 2);
			tmp[o++] = (uint8_t)((d[2] & 3) << 6 | d[3]);
		}
	}
	memcpy(key, tmp, MPT_KEY_SIZE);
	OPENSSL_cleanse(tmp, sizeof(tmp));
	return 0;
}

void mpt_key_private_from_random(uint8_t priv[MPT_KEY_SIZE],
				 const uint8_t random[MPT_KEY_SIZE])
{
	memcpy(priv, random, MPT_KEY_SIZE);
	priv[0] &= 248;
	priv[31] &= 127;
	priv[31] |= 64;
}

int mpt_key_public(uint8_t pub[MPT_KEY_SIZE], const uint8_t priv[MPT_KEY_SIZE])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv,
						   MPT_KEY_SIZE);
	size_t len = MPT_KEY_SIZE;
	int ret = 0;

	if (!k)
		return -EIO;
	if (EVP_PKEY_get_raw_public_key(k, pub, &len) != 1 || len != MPT_KEY_SIZE)
		ret = -EIO;
	EVP_PKEY_free(k);
	return ret;
}

int mpt_memcmp_ct(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) ? 1 : 0;
}

int mpt_x25519(uint8_t shared[MPT_KEY_SIZE], const uint8_t priv[MPT_KEY_SIZE],
	       const uint8_t pub[MPT_KEY_SIZE])
{
	EVP_PKEY *sk = mpt_x25519_load(priv);
	int ret;

	if (!sk)
		return -EIO;
	ret = mpt_x25519_with(shared, sk, pub);
	EVP_PKEY_free(sk);
	return ret;
}

EVP_PKEY *mpt_x25519_load(const uint8_t priv[MPT_KEY_SIZE])
{
	return EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, MPT_KEY_SIZE);
}

int mpt_x25519_public_of(uint8_t pub[MPT_KEY_SIZE], EVP_PKEY *k)
{
	size_t len = MPT_KEY_SIZE;

	if (EVP_PKEY_get_raw_public_key(k, pub, &len) != 1 || len != MPT_KEY_SIZE)
		return -EIO;
	return 0;
}

void mpt_x25519_free(EVP_PKEY *k)
{
	EVP_PKEY_free(k);
}

int mpt_x25519_with(uint8_t shared[MPT_KEY_SIZE], EVP_PKEY *sk,
		    const uint8_t pub[MPT_KEY_SIZE])
{
	static const uint8_t zero[MPT_KEY_SIZE];
	EVP_PKEY *pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, pub,
						   MPT_KEY_SIZE);
	EVP_PKEY_CTX *ctx = NULL;
	size_t len = MPT_KEY_SIZE;
	int ret = -EIO;

	if (!pk)
		goto out;
	ctx = EVP_PKEY_CTX_new(sk, NULL);
	/* _ex with validate_peer 0: the all-zero check below is the X25519 one */
	if (!ctx || EVP_PKEY_derive_init(ctx) != 1 ||
	    EVP_PKEY_derive_set_peer_ex(ctx, pk, 0) != 1)
		goto out;
	/* OpenSSL refuses an all-zero result itself; the check below is explicit. */
	if (EVP_PKEY_derive(ctx, shared, &len) != 1 || len != MPT_KEY_SIZE) {
		ret = -EINVAL;
		goto out;
	}
	ret = mpt_memcmp_ct(shared, zero, MPT_KEY_SIZE) ? 0 : -EINVAL;
out:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return ret;
}
