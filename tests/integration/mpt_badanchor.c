// SPDX-License-Identifier: MIT
/*
 * badanchor, a mode of mpt_attack (see mpt_attack.c): a malicious anchor. It holds the
 * anchor's private key and answers the UE's init as mptund-proto(7) HANDSHAKE says,
 * with its own Noise IK responder built on OpenSSL EVP (X25519, SHA-256, HMAC,
 * ChaCha20-Poly1305), then speaks the transport format: answers the UE's PROBEs
 * (PROBE_ACK and an ACK), sends packets on path ids the UE has no path for, then valid
 * PROBEs on the real path.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "mpt_attack.h"

#define RESP_LEN	76
#define HDR_LEN		16
#define TAG_LEN		16
#define CONSTRUCTION	"Noise_IK_25519_ChaChaPoly_SHA256"
#define IDENTIFIER	"mptund v1 handshake"
#define FRAME_PROBE	3
#define FRAME_PROBE_ACK	4
#define FRAME_ACK	2
#define PROBE_BODY	44
#define GOOD_PROBE_ID	0x5a000000u

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void sha256_2(uint8_t out[32], const void *a, size_t alen, const void *b, size_t blen)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned len = 32;

	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	EVP_DigestUpdate(c, a, alen);
	if (blen)
		EVP_DigestUpdate(c, b, blen);
	EVP_DigestFinal_ex(c, out, &len);
	EVP_MD_CTX_free(c);
}

static void mix_hash(uint8_t h[32], const void *data, size_t len)
{
	uint8_t t[32];

	sha256_2(t, h, 32, data, len);
	memcpy(h, t, 32);
}

static void hmac256(uint8_t out[32], const uint8_t key[32], const uint8_t *d, size_t n)
{
	static const uint8_t none[1];
	unsigned len = 32;

	HMAC(EVP_sha256(), key, 32, n ? d : none, n, out, &len);
}

/* HKDF as in Noise section 4.3: two outputs from the chaining key and ikm. */
static void hkdf2(uint8_t o1[32], uint8_t o2[32], const uint8_t ck[32], const uint8_t *ikm,
		  size_t n)
{
	uint8_t prk[32], t[33], a[32];

	hmac256(prk, ck, ikm, n);
	t[0] = 1;
	hmac256(a, prk, t, 1);
	memcpy(t, a, 32);
	t[32] = 2;
	hmac256(o2, prk, t, 33);
	memcpy(o1, a, 32);
}

static int x25519(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[32])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, 32);
	EVP_PKEY *p = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, pub, 32);
	EVP_PKEY_CTX *c = k ? EVP_PKEY_CTX_new(k, NULL) : NULL;
	size_t len = 32;
	int ok = c && p && EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_derive_set_peer(c, p) == 1 &&
		 EVP_PKEY_derive(c, out, &len) == 1 && len == 32;

	EVP_PKEY_CTX_free(c);
	EVP_PKEY_free(p);
	EVP_PKEY_free(k);
	return ok ? 0 : -1;
}

static int x25519_pub(uint8_t pub[32], const uint8_t priv[32])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, 32);
	size_t len = 32;
	int ok = k && EVP_PKEY_get_raw_public_key(k, pub, &len) == 1;

	EVP_PKEY_free(k);
	return ok ? 0 : -1;
}

/* AEAD: seal in[len] to out (len + tag), or open in (len bytes with the tag) to out. */
static int aead(int seal, const EVP_CIPHER *ciph, const uint8_t key[32],
		const uint8_t nonce[12], const uint8_t *ad, size_t adlen, const uint8_t *in,
		size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n, ok, clen = seal ? (int)len : (int)len - TAG_LEN;

	if (clen < 0)
		return -1;
	ok = EVP_CipherInit_ex(c, ciph, NULL, key, nonce, seal) == 1 &&
	     EVP_CipherUpdate(c, NULL, &n, ad, (int)adlen) == 1;
	if (ok && !seal)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, TAG_LEN,
					 (void *)(in + clen)) == 1;
	if (ok && clen)
		ok = EVP_CipherUpdate(c, out, &n, in, clen) == 1;
	ok = ok && EVP_CipherFinal_ex(c, out + clen, &n) == 1;
	if (ok && seal)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, out + clen) == 1;
	EVP_CIPHER_CTX_free(c);
	return ok ? clen + (seal ? TAG_LEN : 0) : -1;
}

/* The Noise symmetric state: chaining key, hash, the key MixKey derived last. */
struct noise {
	uint8_t ck[32], h[32], k[32];
};

static int mix_dh(struct noise *n, const uint8_t priv[32], const uint8_t pub[32])
{
	uint8_t dh[32];

	if (x25519(dh, priv, pub))
		return -1;
	hkdf2(n->ck, n->k, n->ck, dh, 32);
	return 0;
}

/* DecryptAndHash of len bytes of plaintext (+ tag) at in; EncryptAndHash likewise. */
static int open_hash(struct noise *n, const uint8_t *in, size_t len, uint8_t *out)
{
	static const uint8_t zero[12];

	if (aead(0, EVP_chacha20_poly1305(), n->k, zero, n->h, 32, in, len + TAG_LEN, out) < 0)
		return -1;
	mix_hash(n->h, in, len + TAG_LEN);
	return 0;
}

static void seal_hash(struct noise *n, const uint8_t *in, size_t len, uint8_t *out)
{
	static const uint8_t zero[12];

	aead(1, EVP_chacha20_poly1305(), n->k, zero, n->h, 32, in, len, out);
	mix_hash(n->h, out, len + TAG_LEN);
}

/* The responder's keys and what it did with them. */
struct rogue {
	int fd;
	uint8_t priv[32], pub[32];
	struct sockaddr_in ue;
	int keyed;
	const EVP_CIPHER *cipher;
	uint8_t send[32], recv[32];
	uint32_t local, remote;
	uint64_t pn[256], ue_low, ue_high;
	unsigned long inits, probes_answered, good_acked, rx_bad;
};

static void rogue_send(struct rogue *r, uint8_t path_id, const uint8_t *frames, size_t len)
{
	uint8_t pkt[1600], nonce[12] = { 0 };
	uint64_t pn = ++r->pn[path_id];

	pkt[0] = 3;
	pkt[1] = WIRE_VERSION;
	pkt[2] = path_id;
	pkt[3] = 0;
	put32(pkt + 4, r->remote);
	put64(pkt + 8, pn);
	nonce[3] = path_id;
	put64(nonce + 4, pn);
	if (aead(1, r->cipher, r->send, nonce, pkt, HDR_LEN, frames, len, pkt + HDR_LEN) < 0)
		return;
	sendto(r->fd, pkt, HDR_LEN + len + TAG_LEN, 0, (struct sockaddr *)&r->ue,
	       sizeof(r->ue));
}

static size_t frame_probe(uint8_t *f, uint32_t id)
{
	f[0] = FRAME_PROBE;
	f[1] = 0;
	f[2] = PROBE_BODY;
	memset(f + 3, 0, PROBE_BODY);
	put32(f + 3, id);
	put64(f + 7, now_ns());
	memcpy(f + 15, "rogue", 5);		/* path name, NUL-padded */
	return 3 + PROBE_BODY;
}

/* The init (mac1 checked) -> the response; the keys (split) are installed. */
static int rogue_answer(struct rogue *r, const uint8_t *m, const struct sockaddr_in *from)
{
	uint8_t spub[32], ts[12], e[32], resp[RESP_LEN], key[32], mac[32];
	struct noise n;

	sha256_2(key, "mac1----", 8, r->pub, 32);
	hmac256(mac, key, m, INIT_MAC1);
	if (memcmp(mac, m + INIT_MAC1, 16) || (m[2] != 1 && m[2] != 2))
		return -1;
	sha256_2(n.ck, CONSTRUCTION, strlen(CONSTRUCTION), NULL, 0);
	sha256_2(n.h, n.ck, 32, IDENTIFIER, strlen(IDENTIFIER));
	mix_hash(n.h, r->pub, 32);
	mix_hash(n.h, m, 8);				/* the clear prefix */
	mix_hash(n.h, m + INIT_EPHEMERAL, 32);		/* e */
	if (mix_dh(&n, r->priv, m + INIT_EPHEMERAL) ||	/* es */
	    open_hash(&n, m + 40, 32, spub) ||		/* s */
	    mix_dh(&n, r->priv, spub) ||		/* ss */
	    open_hash(&n, m + 88, 12, ts))		/* the timestamp */
		return -1;
	resp[0] = 2;
	resp[1] = WIRE_VERSION;
	resp[2] = m[2];
	resp[3] = 0;
	RAND_bytes(resp + 4, 4);
	memcpy(resp + 8, m + INIT_SENDER, 4);
	mix_hash(n.h, resp, 12);
	RAND_bytes(e, 32);
	if (x25519_pub(resp + 12, e))
		return -1;
	mix_hash(n.h, resp + 12, 32);			/* e */
	if (mix_dh(&n, e, m + INIT_EPHEMERAL) || mix_dh(&n, e, spub))	/* ee, se */
		return -1;
	seal_hash(&n, NULL, 0, resp + 44);		/* the empty payload */
	hkdf2(r->recv, r->send, n.ck, NULL, 0);		/* the responder sends with k2 */
	sha256_2(key, "mac1----", 8, spub, 32);
	hmac256(mac, key, resp, 60);
	memcpy(resp + 60, mac, 16);
	r->cipher = m[2] == 1 ? EVP_chacha20_poly1305() : EVP_aes_256_gcm();
	r->local = get32(resp + 4);
	r->remote = get32(m + INIT_SENDER);
	r->ue = *from;
	memset(r->pn, 0, sizeof(r->pn));
	r->ue_low = r->ue_high = 0;
	r->keyed = 1;
	r->inits++;
	sendto(r->fd, resp, sizeof(resp), 0, (const struct sockaddr *)from, sizeof(*from));
	return 0;
}

/* A transport packet from the UE: PROBEs answered (PROBE_ACK and an ACK of the
 * path's packet numbers seen), PROBE_ACKs of our valid probes counted. */
static void rogue_transport(struct rogue *r, uint8_t *pkt, size_t len)
{
	uint8_t pt[1600], out[256], nonce[12] = { 0 }, path = pkt[2];
	uint64_t pn = get64(pkt + 8);
	size_t o = 0;
	int n;

	if (!r->keyed || len < HDR_LEN + TAG_LEN || get32(pkt + 4) != r->local)
		return;
	nonce[3] = path;
	memcpy(nonce + 4, pkt + 8, 8);
	n = aead(0, r->cipher, r->recv, nonce, pkt, HDR_LEN, pkt + HDR_LEN, len - HDR_LEN, pt);
	if (n < 0) {
		r->rx_bad++;
		return;
	}
	if (!r->ue_low || pn < r->ue_low)
		r->ue_low = pn;
	if (pn > r->ue_high)
		r->ue_high = pn;
	for (size_t i = 0; i + 3 <= (size_t)n;) {
		uint8_t type = pt[i];
		size_t l = (size_t)(pt[i + 1] << 8 | pt[i + 2]);

		if (i + 3 + l > (size_t)n)
			break;
		if (type == FRAME_PROBE && l == PROBE_BODY && o + 15 <= sizeof(out)) {
			out[o] = FRAME_PROBE_ACK;
			out[o + 1] = 0;
			out[o + 2] = 12;
			memcpy(out + o + 3, pt + i + 3, 12);
			o += 15;
		} else if (type == FRAME_PROBE_ACK && l == 12 &&
			   (get32(pt + i + 3) & 0xff000000u) == GOOD_PROBE_ID) {
			r->good_acked++;
		}
		i += 3 + l;
	}
	if (!o)
		return;
	r->probes_answered++;
	out[o] = FRAME_ACK;		/* path, delay 0, one range low..high */
	out[o + 1] = 0;
	out[o + 2] = 22;
	out[o + 3] = path;
	memset(out + o + 4, 0, 4);
	out[o + 8] = 1;
	put64(out + o + 9, r->ue_low);
	put64(out + o + 17, r->ue_high);
	o += 25;
	rogue_send(r, path, out, o);
}

static void rogue_poll(struct rogue *r, int ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	uint8_t buf[2048];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return;
	n = recvfrom(r->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (n == INIT_LEN && buf[0] == INIT_TYPE && buf[1] == WIRE_VERSION)
		rogue_answer(r, buf, &from);
	else if (n >= HDR_LEN && buf[0] == 3 && buf[1] == WIRE_VERSION)
		rogue_transport(r, buf, (size_t)n);
}

/* Serve (answer probes) for ms milliseconds. */
static void rogue_serve(struct rogue *r, double ms)
{
	uint64_t end = now_ns() + (uint64_t)(ms * 1e6);

	while (now_ns() < end)
		rogue_poll(r, 10);
}

int badanchor(const char *bind_addr, uint16_t port, const char *priv_b64, double seconds)
{
	static const uint8_t bad_ids[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 255 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	unsigned long in_range = 0, out_range = 0, good = 0;
	struct rogue r = { .fd = -1 };
	uint8_t f[64];

	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1 || key_from_b64(r.priv, priv_b64) ||
	    x25519_pub(r.pub, r.priv))
		return -1;
	r.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (r.fd < 0 || bind(r.fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("mpt_attack: badanchor: bind");
		return 1;
	}
	while (!r.keyed && now_ns() < end)
		rogue_poll(&r, 100);
	if (!r.keyed) {
		printf("no init answered in %.0f s\n", seconds);
		return 1;
	}
	rogue_serve(&r, 1000);		/* the UE probes its path, we answer */
	/* authenticated packets, each a PROBE, on path ids the UE has no path for */
	for (unsigned k = 0; k < 20; k++) {
		for (size_t i = 0; i < sizeof(bad_ids); i++) {
			rogue_send(&r, bad_ids[i], f, frame_probe(f, 0x100u + k));
			if (bad_ids[i] < 8)
				in_range++;
			else
				out_range++;
		}
		rogue_serve(&r, 10);
	}
	rogue_serve(&r, 300);
	/* then valid probes on the real path: the UE must answer each */
	for (unsigned k = 0; k < 20; k++, good++) {
		rogue_send(&r, 0, f, frame_probe(f, GOOD_PROBE_ID + k));
		rogue_serve(&r, 25);
	}
	rogue_serve(&r, 300);
	printf("inits=%lu in_range=%lu out_of_range=%lu probes=%lu answered=%lu "
	       "ue_probes_answered=%lu\n", r.inits, in_range, out_range, good, r.good_acked,
	       r.probes_answered);
	close(r.fd);
	return 0;
}
