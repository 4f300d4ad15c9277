// SPDX-License-Identifier: MIT
/*
 * Noise IK handshake (see noise.h for the pattern). Symmetric state as in the Noise
 * spec sec. 5.2: chaining key ck and handshake hash h, both SHA-256; MixKey is
 * HKDF (RFC 5869 with HMAC-SHA256, the Noise sec. 4.3 form), each derived key
 * encrypts exactly one payload so its nonce is zero. The clear message prefix
 * (type, version, cipher, reserved, indices) is mixed into h like a prologue, so it
 * cannot be altered without failing the next AEAD.
 */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "aead.h"
#include "keys.h"
#include "noise.h"

#define CONSTRUCTION	"Noise_IK_25519_ChaChaPoly_SHA256"
#define IDENTIFIER	"mptund v1 handshake"
#define MAC1_LABEL	"mac1----"
#define HASH_LEN	32

static void hash2(uint8_t out[HASH_LEN], const void *a, size_t alen, const void *b,
		  size_t blen)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned len = HASH_LEN;

	/* Allocation failure leaves out zeroed: every later AEAD check fails. */
	memset(out, 0, HASH_LEN);
	if (!c)
		return;
	if (EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(c, a, alen) != 1 || (blen && EVP_DigestUpdate(c, b, blen) != 1) ||
	    EVP_DigestFinal_ex(c, out, &len) != 1)
		memset(out, 0, HASH_LEN);
	EVP_MD_CTX_free(c);
}

static void mix_hash(uint8_t h[HASH_LEN], const void *data, size_t len)
{
	uint8_t tmp[HASH_LEN];

	hash2(tmp, h, HASH_LEN, data, len);
	memcpy(h, tmp, HASH_LEN);
}

static int hmac(uint8_t out[HASH_LEN], const uint8_t *key, size_t klen,
		const uint8_t *data, size_t dlen)
{
	unsigned len = HASH_LEN;

	return HMAC(EVP_sha256(), key, (int)klen, data, dlen, out, &len) ? 0 : -EIO;
}

/* HKDF with two outputs: (out1, out2) = HKDF(ck, ikm). out2 may be NULL. */
static int kdf2(uint8_t out1[HASH_LEN], uint8_t out2[HASH_LEN], const uint8_t ck[HASH_LEN],
		const uint8_t *ikm, size_t ikm_len)
{
	uint8_t prk[HASH_LEN], t[HASH_LEN + 1], o1[HASH_LEN];
	int err;

	err = hmac(prk, ck, HASH_LEN, ikm, ikm_len);
	t[0] = 1;
	if (!err)
		err = hmac(o1, prk, HASH_LEN, t, 1);
	if (!err && out2) {
		memcpy(t, o1, HASH_LEN);
		t[HASH_LEN] = 2;
		err = hmac(out2, prk, HASH_LEN, t, sizeof(t));
	}
	memcpy(out1, o1, HASH_LEN);
	OPENSSL_cleanse(prk, sizeof(prk));
	OPENSSL_cleanse(t, sizeof(t));
	OPENSSL_cleanse(o1, sizeof(o1));
	return err;
}

/* MixKey(DH(priv, pub)): ck and k advance; fails on a low-order point. */
static int mix_dh(uint8_t ck[HASH_LEN], uint8_t k[HASH_LEN], EVP_PKEY *priv,
		  const uint8_t *pub)
{
	uint8_t dh[MPT_KEY_BYTES];
	int err = mpt_x25519_with(dh, priv, pub);

	if (!err)
		err = kdf2(ck, k, ck, dh, sizeof(dh));
	OPENSSL_cleanse(dh, sizeof(dh));
	return err;
}

/* An ephemeral private key from 32 random bytes, imported once for its public key and
 * both of its DHs. NULL on failure. */
static EVP_PKEY *ephemeral(uint8_t e_priv[MPT_KEY_BYTES], uint8_t e_pub[MPT_KEY_BYTES],
			   const uint8_t random[MPT_KEY_BYTES])
{
	EVP_PKEY *e;

	mpt_key_private_from_random(e_priv, random);
	e = mpt_x25519_load(e_priv);
	if (e && e_pub && mpt_x25519_public_of(e_pub, e)) {
		mpt_x25519_free(e);
		e = NULL;
	}
	return e;
}

/* EncryptAndHash with a fresh key (nonce 0): ct = plaintext || tag, then h ^= ct. */
static int seal_hash(uint8_t h[HASH_LEN], const uint8_t k[HASH_LEN], uint8_t *dst,
		     const uint8_t *src, size_t len)
{
	static const uint8_t zero_nonce[MPT_AEAD_NONCE_LEN];
	struct mpt_aead a;
	int n;

	if (mpt_aead_init(&a, MPT_CIPHER_CHACHA20_POLY1305, k))
		return -EIO;
	if (len)
		memmove(dst, src, len);
	n = mpt_aead_seal(&a, zero_nonce, h, HASH_LEN, dst, len);
	mpt_aead_free(&a);
	if (n < 0)
		return n;
	mix_hash(h, dst, (size_t)n);
	return 0;
}

/* DecryptAndHash: src is ciphertext || tag (len + tag bytes), dst gets len bytes. */
static int open_hash(uint8_t h[HASH_LEN], const uint8_t k[HASH_LEN], uint8_t *dst,
		     const uint8_t *src, size_t len)
{
	static const uint8_t zero_nonce[MPT_AEAD_NONCE_LEN];
	uint8_t buf[64 + MPT_TAG_LEN];
	struct mpt_aead a;
	int n;

	if (len > 64 || mpt_aead_init(&a, MPT_CIPHER_CHACHA20_POLY1305, k))
		return -EIO;
	memcpy(buf, src, len + MPT_TAG_LEN);
	n = mpt_aead_open(&a, zero_nonce, h, HASH_LEN, buf, len + MPT_TAG_LEN);
	mpt_aead_free(&a);
	if (n < 0) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return -EBADMSG;
	}
	mix_hash(h, src, len + MPT_TAG_LEN);
	memcpy(dst, buf, len);
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}

/* ck = HASH(construction); h = HASH(ck || identifier) then MixHash(responder s). */
static void init_state(uint8_t ck[HASH_LEN], uint8_t h[HASH_LEN],
		       const uint8_t responder_pub[MPT_KEY_BYTES])
{
	hash2(ck, CONSTRUCTION, strlen(CONSTRUCTION), NULL, 0);
	hash2(h, ck, HASH_LEN, IDENTIFIER, strlen(IDENTIFIER));
	mix_hash(h, responder_pub, MPT_KEY_BYTES);
}

static void mac1_key(uint8_t key[HASH_LEN], const uint8_t pub[MPT_KEY_BYTES])
{
	hash2(key, MAC1_LABEL, strlen(MAC1_LABEL), pub, MPT_KEY_BYTES);
}

static void mac1(uint8_t out[MPT_MAC1_LEN], const uint8_t key[HASH_LEN],
		 const uint8_t *msg, size_t len)
{
	uint8_t full[HASH_LEN];

	if (hmac(full, key, HASH_LEN, msg, len))
		memset(full, 0, sizeof(full));
	memcpy(out, full, MPT_MAC1_LEN);
}

static int cipher_to_wire(enum mpt_cipher c)
{
	switch (c) {
	case MPT_CIPHER_CHACHA20_POLY1305:
		return MPT_WIRE_CIPHER_CHACHA20_POLY1305;
	case MPT_CIPHER_AES_256_GCM:
		return MPT_WIRE_CIPHER_AES_256_GCM;
	}
	return -EINVAL;
}

static int cipher_from_wire(uint8_t w, enum mpt_cipher *c)
{
	switch (w) {
	case MPT_WIRE_CIPHER_CHACHA20_POLY1305:
		*c = MPT_CIPHER_CHACHA20_POLY1305;
		return 0;
	case MPT_WIRE_CIPHER_AES_256_GCM:
		*c = MPT_CIPHER_AES_256_GCM;
		return 0;
	}
	return -EINVAL;
}

static int fail(int *reason, int why, int err)
{
	if (reason)
		*reason = why;
	return err;
}

int mpt_noise_local_init(struct mpt_noise_local *l, const uint8_t priv[MPT_KEY_BYTES])
{
	int err;

	memcpy(l->priv, priv, MPT_KEY_BYTES);
	l->sk = mpt_x25519_load(priv);
	if (!l->sk)
		return -EIO;
	err = mpt_x25519_public_of(l->pub, l->sk);
	if (err) {
		mpt_noise_local_free(l);
		return err;
	}
	mac1_key(l->mac1_key, l->pub);
	err = mpt_hmac_init(&l->mac1, l->mac1_key, sizeof(l->mac1_key));
	if (err)
		mpt_noise_local_free(l);
	return err;
}

int mpt_noise_static_dh(const struct mpt_noise_local *l,
			const uint8_t remote_pub[MPT_KEY_BYTES], uint8_t ss[MPT_KEY_BYTES])
{
	return mpt_x25519_with(ss, l->sk, remote_pub);
}

void mpt_noise_tai64n(uint8_t out[MPT_TIMESTAMP_LEN], uint64_t unix_ns)
{
	mpt_put_u64(out, (1ULL << 62) + unix_ns / MPT_NSEC_PER_SEC);
	mpt_put_u32(out + 8, (uint32_t)(unix_ns % MPT_NSEC_PER_SEC));
}

bool mpt_noise_mac1_ok(const struct mpt_noise_local *l, const uint8_t *msg, size_t len)
{
	uint8_t want[MPT_HMAC_LEN];
	size_t off;

	if (len == MPT_HS_INIT_LEN && msg[MPT_OFF_TYPE] == MPT_MSG_HANDSHAKE_INIT)
		off = MPT_OFF_INIT_MAC1;
	else if (len == MPT_HS_RESP_LEN && msg[MPT_OFF_TYPE] == MPT_MSG_HANDSHAKE_RESP)
		off = MPT_OFF_RESP_MAC1;
	else
		return false;
	if (mpt_hmac_run(&l->mac1, want, msg, off))
		return false;
	return mpt_memcmp_ct(want, msg + off, MPT_MAC1_LEN) == 0;
}

void mpt_noise_mac1_fill(const struct mpt_noise_local *l, uint8_t *msg, size_t len)
{
	uint8_t key[HASH_LEN];

	if (len != MPT_HS_INIT_LEN)
		return;
	mac1_key(key, l->pub);
	mac1(msg + MPT_OFF_INIT_MAC1, key, msg, MPT_OFF_INIT_MAC1);
}

void mpt_noise_local_free(struct mpt_noise_local *l)
{
	mpt_x25519_free(l->sk);
	l->sk = NULL;
	mpt_hmac_free(&l->mac1);
	OPENSSL_cleanse(l->priv, sizeof(l->priv));
}

void mpt_keypair_wipe(struct mpt_keypair *kp)
{
	OPENSSL_cleanse(kp->send_key, sizeof(kp->send_key));
	OPENSSL_cleanse(kp->recv_key, sizeof(kp->recv_key));
}

int mpt_noise_create_init(struct mpt_noise_initiation *st, const struct mpt_noise_local *l,
			  const uint8_t remote_pub[MPT_KEY_BYTES], enum mpt_cipher cipher,
			  uint32_t local_index, const uint8_t eph_random[MPT_KEY_BYTES],
			  const uint8_t timestamp[MPT_TIMESTAMP_LEN],
			  uint8_t out[MPT_HS_INIT_LEN])
{
	return mpt_noise_create_init_flags(st, l, remote_pub, cipher, local_index, eph_random,
					   timestamp, 0, out);
}

int mpt_noise_create_init_flags(struct mpt_noise_initiation *st,
				const struct mpt_noise_local *l,
				const uint8_t remote_pub[MPT_KEY_BYTES], enum mpt_cipher cipher,
				uint32_t local_index, const uint8_t eph_random[MPT_KEY_BYTES],
				const uint8_t timestamp[MPT_TIMESTAMP_LEN], uint8_t flags,
				uint8_t out[MPT_HS_INIT_LEN])
{
	int wc = cipher_to_wire(cipher);
	uint8_t k[HASH_LEN], key[HASH_LEN];
	EVP_PKEY *e = NULL;
	int err = -EIO;

	if (wc < 0)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	memcpy(st->remote_pub, remote_pub, MPT_KEY_BYTES);
	st->local_index = local_index;
	st->cipher = cipher;
	st->flags = flags;
	init_state(st->ck, st->h, remote_pub);

	out[MPT_OFF_TYPE] = MPT_MSG_HANDSHAKE_INIT;
	out[MPT_OFF_VERSION] = MPT_WIRE_VERSION;
	out[MPT_OFF_HS_CIPHER] = (uint8_t)wc;
	out[MPT_OFF_HS_FLAGS] = flags;
	mpt_put_u32(out + MPT_OFF_INIT_SENDER, local_index);
	mix_hash(st->h, out, MPT_HS_INIT_PROLOGUE);

	/* -> e */
	e = ephemeral(st->e_priv, out + MPT_OFF_INIT_EPHEMERAL, eph_random);
	if (!e)
		goto out;
	mix_hash(st->h, out + MPT_OFF_INIT_EPHEMERAL, MPT_KEY_BYTES);
	/* es, s */
	err = mix_dh(st->ck, k, e, remote_pub);
	if (!err)
		err = seal_hash(st->h, k, out + MPT_OFF_INIT_STATIC, l->pub, MPT_KEY_BYTES);
	/* ss, payload = timestamp */
	if (!err)
		err = mix_dh(st->ck, k, l->sk, remote_pub);
	if (!err)
		err = seal_hash(st->h, k, out + MPT_OFF_INIT_TIMESTAMP, timestamp,
				MPT_TIMESTAMP_LEN);
	if (err)
		goto out;
	mac1_key(key, remote_pub);
	mac1(out + MPT_OFF_INIT_MAC1, key, out, MPT_OFF_INIT_MAC1);
	memset(out + MPT_OFF_INIT_MAC2, 0, MPT_MAC2_LEN);	/* cookie.h sets it */
	st->pending = true;
out:
	mpt_x25519_free(e);
	OPENSSL_cleanse(k, sizeof(k));
	if (err)
		OPENSSL_cleanse(st, sizeof(*st));
	return err ? -EINVAL : 0;
}

int mpt_noise_consume_init(struct mpt_noise_responder *st, const struct mpt_noise_local *l,
			   const uint8_t *msg, size_t len, mpt_noise_lookup_fn lookup,
			   void *arg, int *reason)
{
	memset(st, 0, sizeof(*st));
	if (mpt_wire_classify(msg, len, reason) != MPT_MSG_HANDSHAKE_INIT) {
		if (reason && *reason == MPT_WIRE_OK)
			*reason = MPT_WIRE_BAD_TYPE;
		return -EBADMSG;
	}
	if (!mpt_noise_mac1_ok(l, msg, len))
		return fail(reason, MPT_WIRE_HS_MAC1, -EBADMSG);
	return mpt_noise_consume_init_mac1ok(st, l, msg, lookup, arg, reason);
}

int mpt_noise_consume_init_mac1ok(struct mpt_noise_responder *st,
				  const struct mpt_noise_local *l, const uint8_t *msg,
				  mpt_noise_lookup_fn lookup, void *arg, int *reason)
{
	uint8_t k[HASH_LEN], ts[MPT_TIMESTAMP_LEN], dh[MPT_KEY_BYTES], *last = NULL;
	const uint8_t *ss = NULL;
	int ret;

	memset(st, 0, sizeof(*st));
	if (cipher_from_wire(msg[MPT_OFF_HS_CIPHER], &st->cipher) ||
	    (msg[MPT_OFF_HS_FLAGS] & ~MPT_HS_FLAG_FRESH))
		return fail(reason, MPT_WIRE_HS_CIPHER, -EBADMSG);
	st->flags = msg[MPT_OFF_HS_FLAGS];
	st->remote_index = mpt_get_u32(msg + MPT_OFF_INIT_SENDER);

	init_state(st->ck, st->h, l->pub);
	mix_hash(st->h, msg, MPT_HS_INIT_PROLOGUE);
	memcpy(st->remote_e, msg + MPT_OFF_INIT_EPHEMERAL, MPT_KEY_BYTES);
	mix_hash(st->h, st->remote_e, MPT_KEY_BYTES);
	ret = fail(reason, MPT_WIRE_HS_CRYPTO, -EBADMSG);
	if (mix_dh(st->ck, k, l->sk, st->remote_e) ||
	    open_hash(st->h, k, st->remote_pub, msg + MPT_OFF_INIT_STATIC, MPT_KEY_BYTES))
		goto out;
	if (lookup(arg, st->remote_pub, &st->peer, &last, &ss) || !last) {
		ret = fail(reason, MPT_WIRE_HS_UNKNOWN_PEER, -ENOKEY);
		goto out;
	}
	/* ss: the peer's precomputed static-static DH, else one X25519 now */
	if (ss)
		memcpy(dh, ss, sizeof(dh));
	else if (mpt_noise_static_dh(l, st->remote_pub, dh))
		goto out;
	if (kdf2(st->ck, k, st->ck, dh, sizeof(dh)) ||
	    open_hash(st->h, k, ts, msg + MPT_OFF_INIT_TIMESTAMP, MPT_TIMESTAMP_LEN))
		goto out;
	/* TAI64N is big-endian: byte order is time order. */
	if (memcmp(ts, last, MPT_TIMESTAMP_LEN) <= 0) {
		ret = fail(reason, MPT_WIRE_HS_REPLAY, -EALREADY);
		goto out;
	}
	memcpy(last, ts, MPT_TIMESTAMP_LEN);
	memcpy(st->timestamp, ts, MPT_TIMESTAMP_LEN);
	ret = fail(reason, MPT_WIRE_OK, 0);
out:
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(dh, sizeof(dh));
	if (ret)
		OPENSSL_cleanse(st, sizeof(*st));
	return ret;
}

/* Split (Noise sec. 5.2): the initiator sends with the first key. */
static int split(const uint8_t ck[HASH_LEN], struct mpt_keypair *kp, bool initiator)
{
	uint8_t k1[HASH_LEN], k2[HASH_LEN];
	int err = kdf2(k1, k2, ck, NULL, 0);

	memcpy(kp->send_key, initiator ? k1 : k2, MPT_KEY_BYTES);
	memcpy(kp->recv_key, initiator ? k2 : k1, MPT_KEY_BYTES);
	kp->initiator = initiator;
	OPENSSL_cleanse(k1, sizeof(k1));
	OPENSSL_cleanse(k2, sizeof(k2));
	return err;
}

int mpt_noise_create_response(struct mpt_noise_responder *st,
			      const struct mpt_noise_local *l, uint32_t local_index,
			      const uint8_t eph_random[MPT_KEY_BYTES],
			      uint8_t out[MPT_HS_RESP_LEN], struct mpt_keypair *kp)
{
	uint8_t e_priv[MPT_KEY_BYTES], k[HASH_LEN], key[HASH_LEN];
	EVP_PKEY *e;
	int err = -EIO;

	out[MPT_OFF_TYPE] = MPT_MSG_HANDSHAKE_RESP;
	out[MPT_OFF_VERSION] = MPT_WIRE_VERSION;
	out[MPT_OFF_HS_CIPHER] = (uint8_t)cipher_to_wire(st->cipher);
	out[MPT_OFF_HS_FLAGS] = 0;
	mpt_put_u32(out + MPT_OFF_RESP_SENDER, local_index);
	mpt_put_u32(out + MPT_OFF_RESP_RECEIVER, st->remote_index);
	mix_hash(st->h, out, MPT_HS_RESP_PROLOGUE);

	/* <- e, ee, se; payload empty */
	e = ephemeral(e_priv, out + MPT_OFF_RESP_EPHEMERAL, eph_random);
	if (e) {
		mix_hash(st->h, out + MPT_OFF_RESP_EPHEMERAL, MPT_KEY_BYTES);
		err = mix_dh(st->ck, k, e, st->remote_e);
	}
	if (!err)
		err = mix_dh(st->ck, k, e, st->remote_pub);
	if (!err)
		err = seal_hash(st->h, k, out + MPT_OFF_RESP_EMPTY, NULL, 0);
	if (!err)
		err = split(st->ck, kp, false);
	if (!err) {
		mac1_key(key, st->remote_pub);
		mac1(out + MPT_OFF_RESP_MAC1, key, out, MPT_OFF_RESP_MAC1);
		kp->local_index = local_index;
		kp->remote_index = st->remote_index;
		kp->cipher = st->cipher;
	}
	mpt_x25519_free(e);
	OPENSSL_cleanse(e_priv, sizeof(e_priv));
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(st, sizeof(*st));
	return err ? -EINVAL : 0;
}

int mpt_noise_consume_response(struct mpt_noise_initiation *st,
			       const struct mpt_noise_local *l, const uint8_t *msg,
			       size_t len, struct mpt_keypair *kp, int *reason)
{
	uint8_t ck[HASH_LEN], h[HASH_LEN], k[HASH_LEN], empty[1];
	const uint8_t *re = msg + MPT_OFF_RESP_EPHEMERAL;
	EVP_PKEY *e = NULL;
	int ret;

	if (mpt_wire_classify(msg, len, reason) != MPT_MSG_HANDSHAKE_RESP) {
		if (reason && *reason == MPT_WIRE_OK)
			*reason = MPT_WIRE_BAD_TYPE;
		return -EBADMSG;
	}
	if (!mpt_noise_mac1_ok(l, msg, len))
		return fail(reason, MPT_WIRE_HS_MAC1, -EBADMSG);
	if (!st->pending || mpt_get_u32(msg + MPT_OFF_RESP_RECEIVER) != st->local_index)
		return fail(reason, MPT_WIRE_HS_STATE, -ESTALE);
	if (msg[MPT_OFF_HS_CIPHER] != cipher_to_wire(st->cipher) ||
	    msg[MPT_OFF_HS_FLAGS] != 0)
		return fail(reason, MPT_WIRE_HS_CIPHER, -EBADMSG);

	/* Work on copies: a forged response must not spoil the pending initiation. */
	memcpy(ck, st->ck, HASH_LEN);
	memcpy(h, st->h, HASH_LEN);
	mix_hash(h, msg, MPT_HS_RESP_PROLOGUE);
	mix_hash(h, re, MPT_KEY_BYTES);
	ret = fail(reason, MPT_WIRE_HS_CRYPTO, -EBADMSG);
	e = mpt_x25519_load(st->e_priv);
	if (!e || mix_dh(ck, k, e, re) || mix_dh(ck, k, l->sk, re) ||
	    open_hash(h, k, empty, msg + MPT_OFF_RESP_EMPTY, 0) || split(ck, kp, true))
		goto out;
	kp->local_index = st->local_index;
	kp->remote_index = mpt_get_u32(msg + MPT_OFF_RESP_SENDER);
	kp->cipher = st->cipher;
	OPENSSL_cleanse(st, sizeof(*st));	/* pending = false: one response only */
	ret = fail(reason, MPT_WIRE_OK, 0);
out:
	mpt_x25519_free(e);
	OPENSSL_cleanse(ck, sizeof(ck));
	OPENSSL_cleanse(k, sizeof(k));
	return ret;
}
