// SPDX-License-Identifier: MIT
/* HMAC-SHA256 contexts prepared once (hmac.h), on OpenSSL 3's EVP_MAC. */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "hmac.h"

int mpt_hmac_init(struct mpt_hmac *h, const uint8_t *key, size_t klen)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);

	h->ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	EVP_MAC_free(mac);		/* the context keeps its reference */
	if (!h->ctx || EVP_MAC_CTX_set_params(h->ctx, params) != 1 ||
	    (key && EVP_MAC_init(h->ctx, key, klen, NULL) != 1)) {
		mpt_hmac_free(h);
		return -EIO;
	}
	return 0;
}

void mpt_hmac_free(struct mpt_hmac *h)
{
	EVP_MAC_CTX_free(h->ctx);
	h->ctx = NULL;
}

static int finish(EVP_MAC_CTX *c, uint8_t out[MPT_HMAC_LEN], const uint8_t *data,
		  size_t len)
{
	size_t olen = 0;
	int ok = c && EVP_MAC_update(c, data, len) == 1 &&
		 EVP_MAC_final(c, out, &olen, MPT_HMAC_LEN) == 1 && olen == MPT_HMAC_LEN;

	EVP_MAC_CTX_free(c);
	if (!ok)
		memset(out, 0, MPT_HMAC_LEN);
	return ok ? 0 : -EIO;
}

int mpt_hmac_run(const struct mpt_hmac *h, uint8_t out[MPT_HMAC_LEN], const uint8_t *data,
		 size_t len)
{
	return finish(h->ctx ? EVP_MAC_CTX_dup(h->ctx) : NULL, out, data, len);
}

int mpt_hmac_with(const struct mpt_hmac *h, uint8_t out[MPT_HMAC_LEN], const uint8_t *key,
		  size_t klen, const uint8_t *data, size_t len)
{
	EVP_MAC_CTX *c = h->ctx ? EVP_MAC_CTX_dup(h->ctx) : NULL;

	if (c && EVP_MAC_init(c, key, klen, NULL) != 1) {
		EVP_MAC_CTX_free(c);
		c = NULL;
	}
	return finish(c, out, data, len);
}
