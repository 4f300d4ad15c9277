// SPDX-License-Identifier: MIT
/*
 * Cookie replies and mac2 (cookie.h). The cookie's MAC input is the source address
 * as bytes: family tag, the address (4 or 16 bytes) and the port, so IPv4 and IPv6
 * sources never share a cookie.
 */
#include <errno.h>
#include <string.h>

#include <netinet/in.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "cookie.h"
#include "keys.h"
#include "xchacha.h"

#define COOKIE_LABEL	"cookie--"

static void mac16(uint8_t out[16], const uint8_t *key, size_t klen, const uint8_t *data,
		  size_t dlen)
{
	uint8_t full[32];
	unsigned len = sizeof(full);

	if (!HMAC(EVP_sha256(), key, (int)klen, data, dlen, full, &len))
		memset(full, 0, sizeof(full));
	memcpy(out, full, 16);
	OPENSSL_cleanse(full, sizeof(full));
}

void mpt_cookie_enc_key(uint8_t key[32], const uint8_t pub[MPT_KEY_BYTES])
{
	uint8_t in[sizeof(COOKIE_LABEL) - 1 + MPT_KEY_BYTES];
	unsigned len = 32;

	memcpy(in, COOKIE_LABEL, sizeof(COOKIE_LABEL) - 1);
	memcpy(in + sizeof(COOKIE_LABEL) - 1, pub, MPT_KEY_BYTES);
	if (EVP_Digest(in, sizeof(in), key, &len, EVP_sha256(), NULL) != 1)
		memset(key, 0, 32);
}

int mpt_cookie_checker_init(struct mpt_cookie_checker *c,
			    const uint8_t local_pub[MPT_KEY_BYTES])
{
	memset(c, 0, sizeof(*c));
	mpt_cookie_enc_key(c->enc_key, local_pub);
	return mpt_hmac_init(&c->any, NULL, 0);
}

void mpt_cookie_checker_free(struct mpt_cookie_checker *c)
{
	mpt_hmac_free(&c->secret);
	mpt_hmac_free(&c->any);
	c->have_secret = false;
}

bool mpt_cookie_secret_stale(const struct mpt_cookie_checker *c, uint64_t now_ns)
{
	return !c->have_secret || now_ns - c->secret_born_ns >= MPT_COOKIE_SECRET_NS;
}

int mpt_cookie_set_secret(struct mpt_cookie_checker *c,
			  const uint8_t secret[MPT_COOKIE_SECRET_LEN], uint64_t now_ns)
{
	mpt_hmac_free(&c->secret);
	c->have_secret = mpt_hmac_init(&c->secret, secret, MPT_COOKIE_SECRET_LEN) == 0;
	c->secret_born_ns = now_ns;
	return c->have_secret ? 0 : -EIO;
}

/* The address bytes the cookie is a MAC of; 0 for an unknown family. */
static size_t addr_bytes(uint8_t out[19], const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		out[0] = 4;
		memcpy(out + 1, &s4->sin_addr, 4);
		memcpy(out + 5, &s4->sin_port, 2);
		return 7;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		out[0] = 6;
		memcpy(out + 1, &s6->sin6_addr, 16);
		memcpy(out + 17, &s6->sin6_port, 2);
		return 19;
	}
	return 0;
}

static int cookie_of(const struct mpt_cookie_checker *c, uint8_t cookie[MPT_COOKIE_LEN],
		     const struct sockaddr *from)
{
	uint8_t a[19], full[MPT_HMAC_LEN];
	size_t n = addr_bytes(a, from);

	if (!n)
		return -EAFNOSUPPORT;
	if (mpt_hmac_run(&c->secret, full, a, n))
		return -EIO;
	memcpy(cookie, full, MPT_COOKIE_LEN);
	OPENSSL_cleanse(full, sizeof(full));
	return 0;
}

bool mpt_cookie_mac2_ok(const struct mpt_cookie_checker *c, const uint8_t *init,
			const struct sockaddr *from, uint64_t now_ns)
{
	static const uint8_t none[MPT_MAC2_LEN];
	uint8_t cookie[MPT_COOKIE_LEN], want[MPT_HMAC_LEN];
	bool ok;

	if (!memcmp(init + MPT_OFF_INIT_MAC2, none, MPT_MAC2_LEN) ||
	    mpt_cookie_secret_stale(c, now_ns) || cookie_of(c, cookie, from))
		return false;
	if (mpt_hmac_with(&c->any, want, cookie, sizeof(cookie), init, MPT_OFF_INIT_MAC2))
		return false;
	ok = mpt_memcmp_ct(want, init + MPT_OFF_INIT_MAC2, MPT_MAC2_LEN) == 0;
	OPENSSL_cleanse(cookie, sizeof(cookie));
	return ok;
}

int mpt_cookie_reply(const struct mpt_cookie_checker *c, uint8_t out[MPT_COOKIE_REPLY_LEN],
		     const uint8_t *init, const struct sockaddr *from,
		     const uint8_t nonce[MPT_COOKIE_NONCE_LEN], uint64_t now_ns)
{
	uint8_t cookie[MPT_COOKIE_LEN];
	int n;

	if (!c->have_secret)
		return -EIO;
	n = cookie_of(c, cookie, from);
	if (n)
		return n;
	memset(out, 0, MPT_OFF_COOKIE_RECEIVER);
	out[MPT_OFF_TYPE] = MPT_MSG_COOKIE_REPLY;
	out[MPT_OFF_VERSION] = MPT_WIRE_VERSION;
	memcpy(out + MPT_OFF_COOKIE_RECEIVER, init + MPT_OFF_INIT_SENDER, 4);
	memcpy(out + MPT_OFF_COOKIE_NONCE, nonce, MPT_COOKIE_NONCE_LEN);
	n = mpt_xchacha_seal(out + MPT_OFF_COOKIE_ENCRYPTED, cookie, sizeof(cookie),
			     init + MPT_OFF_INIT_MAC1, MPT_MAC1_LEN, nonce, c->enc_key);
	OPENSSL_cleanse(cookie, sizeof(cookie));
	return n == MPT_COOKIE_LEN + MPT_TAG_LEN ? 0 : -EIO;
}

int mpt_cookie_consume(struct mpt_cookie_slot *slot, const uint8_t enc_key[32],
		       const uint8_t *msg, const uint8_t init_mac1[MPT_MAC1_LEN],
		       uint64_t now_ns)
{
	uint8_t buf[MPT_COOKIE_LEN + MPT_TAG_LEN];

	if (mpt_xchacha_open(buf, msg + MPT_OFF_COOKIE_ENCRYPTED, sizeof(buf), init_mac1,
			     MPT_MAC1_LEN, msg + MPT_OFF_COOKIE_NONCE, enc_key) !=
	    MPT_COOKIE_LEN) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return -EBADMSG;
	}
	memcpy(slot->cookie, buf, MPT_COOKIE_LEN);
	slot->got_ns = now_ns;
	slot->valid = true;
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}

void mpt_cookie_put_mac2(uint8_t *init, const struct mpt_cookie_slot *slot,
			 uint64_t now_ns)
{
	if (slot && slot->valid && now_ns - slot->got_ns < MPT_COOKIE_KEEP_NS)
		mac16(init + MPT_OFF_INIT_MAC2, slot->cookie, MPT_COOKIE_LEN, init,
		      MPT_OFF_INIT_MAC2);
	else
		memset(init + MPT_OFF_INIT_MAC2, 0, MPT_MAC2_LEN);
}
