// SPDX-License-Identifier: MIT
/*
 * mpt_attack: the attack harness of test_attack.sh. It speaks the mptund wire
 * format from mptund-proto(7) with its own encoder (nothing of the daemon's code is
 * linked), and sends from spoofed source addresses through raw sockets, so it needs
 * root (run it in a network namespace). Modes:
 *
 *   flood6 DST PORT ANCHOR_PUB PREFIX RATE SECONDS
 *       mac1-valid handshake inits (the rest random) from random addresses of the
 *       IPv6 /64 PREFIX (e.g. 2001:db8:a77:1::) to [DST]:PORT
 *   flood4 DST PORT ANCHOR_PUB FIRST COUNT RATE SECONDS
 *       the same from COUNT IPv4 addresses starting at FIRST, round robin
 *   capture IFNAME PORT SECONDS
 *       print the first handshake init (hex) seen on IFNAME to UDP PORT, IPv4
 *   replay DST PORT SRC SRCPORT HEX RATE SECONDS
 *       send the captured init HEX again and again from SRC:SRCPORT
 *   badanchor BIND PORT ANCHOR_PRIV SECONDS
 *       play the anchor (its private key, base64) on BIND:PORT for a real UE: answer
 *       its init (waiting up to SECONDS), answer its probes, then send authenticated
 *       packets on path ids 1-7 (a one-path UE has no path for them) and 8, 9, 200,
 *       255 (out of range), then valid probes on path 0
 *   ctlflood SOCKET GID FIRST_UID NIDLE NPIPE SECONDS
 *       NIDLE control clients that send nothing and NPIPE that pipeline "stats"
 *       without reading, each a process of its own uid (FIRST_UID + i % 8) in group
 *       GID, for SECONDS; reports how many the daemon took, refused and closed
 *
 * Prints what it sent (badanchor, ctlflood: key=value figures). Exit status 0, or 1
 * on a usage or socket error (badanchor: also when no init came).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

/* mptund-proto(7), version 2 */
#define WIRE_VERSION	2
#define INIT_TYPE	1
#define INIT_SENDER	4
#define INIT_EPHEMERAL	8
#define INIT_MAC1	116
#define INIT_MAC2	132
#define INIT_LEN	148

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int b64_value(char c)
{
	const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(a, c) : NULL;

	return p ? (int)(p - a) : -1;
}

/* A WireGuard-style key: 44 characters of base64. */
static int key_from_b64(uint8_t key[32], const char *s)
{
	uint32_t acc = 0;
	unsigned bits = 0, o = 0;

	if (strlen(s) != 44)
		return -1;
	for (unsigned i = 0; i < 43; i++) {
		int v = b64_value(s[i]);

		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o < 32)
				key[o++] = (uint8_t)(acc >> bits);
		}
	}
	return o == 32 ? 0 : -1;
}

/* mac1 = HMAC-SHA256(SHA-256("mac1----" || anchor public key), init[0..116))[0..16) */
static void mac1_key(uint8_t key[32], const uint8_t pub[32])
{
	uint8_t in[40];
	unsigned len = 32;

	memcpy(in, "mac1----", 8);
	memcpy(in + 8, pub, 32);
	EVP_Digest(in, sizeof(in), key, &len, EVP_sha256(), NULL);
}

static void junk_init(uint8_t msg[INIT_LEN], const uint8_t key[32])
{
	uint8_t mac[32];
	unsigned len = sizeof(mac);

	RAND_bytes(msg, INIT_LEN);
	msg[0] = INIT_TYPE;
	msg[1] = WIRE_VERSION;
	msg[2] = 1;		/* ChaCha20-Poly1305 */
	msg[3] = 0;
	HMAC(EVP_sha256(), key, 32, msg, INIT_MAC1, mac, &len);
	memcpy(msg + INIT_MAC1, mac, 16);
	memset(msg + INIT_MAC2, 0, 16);
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* An IPv4 or IPv6 datagram with a UDP header and payload, source as given. */
static size_t build(uint8_t *pkt, int family, const void *src, const void *dst,
		    uint16_t sport, uint16_t dport, const uint8_t *payload, size_t plen)
{
	size_t ip = family == AF_INET ? 20 : 40, ulen = 8 + plen;
	uint8_t *udp = pkt + ip;
	uint32_t sum = 0;
	uint16_t c;

	memset(pkt, 0, ip + 8);
	if (family == AF_INET) {
		pkt[0] = 0x45;
		pkt[2] = (uint8_t)((ip + ulen) >> 8);
		pkt[3] = (uint8_t)(ip + ulen);
		pkt[8] = 64;
		pkt[9] = IPPROTO_UDP;
		memcpy(pkt + 12, src, 4);
		memcpy(pkt + 16, dst, 4);
	} else {
		pkt[0] = 0x60;
		pkt[4] = (uint8_t)(ulen >> 8);
		pkt[5] = (uint8_t)ulen;
		pkt[6] = IPPROTO_UDP;
		pkt[7] = 64;
		memcpy(pkt + 8, src, 16);
		memcpy(pkt + 24, dst, 16);
	}
	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	memcpy(udp + 8, payload, plen);
	/* pseudo-header: addresses, protocol, UDP length */
	if (family == AF_INET)
		sum = csum_add(sum, pkt + 12, 8);
	else
		sum = csum_add(sum, pkt + 8, 32);
	sum += IPPROTO_UDP + (uint32_t)ulen;
	sum = csum_add(sum, udp, ulen);
	c = csum_fold(sum);
	if (c == 0)
		c = 0xffff;
	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
	return ip + ulen;
}

static int raw_socket(int family)
{
	int fd = socket(family, SOCK_RAW, IPPROTO_RAW), buf = 4 << 20;

	if (fd < 0) {
		perror("mpt_attack: raw socket (root needed)");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return fd;
}

/* Send at rate per second for seconds; next() fills the packet. */
struct sender {
	int fd, family;
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} dst;
	uint8_t pkt[128 + INIT_LEN];
};

typedef size_t (*next_fn)(struct sender *s, void *arg, unsigned long i);

static unsigned long run(struct sender *s, next_fn next, void *arg, unsigned long rate,
			 double seconds)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
	unsigned long sent = 0, errors = 0, i = 0;

	if (!rate)
		rate = 1;
	for (;;) {
		uint64_t now = now_ns(), due = t0 + (uint64_t)((double)i * 1e9 / (double)rate);

		if (now >= end)
			break;
		if (due > now) {
			struct timespec ts = { 0, (long)(due - now) };

			nanosleep(&ts, NULL);
			continue;
		}
		size_t len = next(s, arg, i++);
		socklen_t dl = s->family == AF_INET ? sizeof(s->dst.v4) : sizeof(s->dst.v6);

		if (sendto(s->fd, s->pkt, len, 0, (struct sockaddr *)&s->dst, dl) == (ssize_t)len)
			sent++;
		else
			errors++;
	}
	printf("sent %lu datagrams in %.1f s (%lu send errors)\n", sent, seconds, errors);
	return sent;
}

struct flood {
	uint8_t key[32];
	uint8_t dst[16], base[16];
	uint16_t port;
	uint32_t first, count;
};

static size_t next_flood6(struct sender *s, void *arg, unsigned long i)
{
	struct flood *f = arg;
	uint8_t src[16], msg[INIT_LEN];

	memcpy(src, f->base, 8);
	RAND_bytes(src + 8, 8);
	junk_init(msg, f->key);
	return build(s->pkt, AF_INET6, src, f->dst, (uint16_t)(1024 + i % 60000), f->port,
		     msg, sizeof(msg));
}

static size_t next_flood4(struct sender *s, void *arg, unsigned long i)
{
	struct flood *f = arg;
	uint8_t msg[INIT_LEN];
	uint32_t a = htonl(f->first + (uint32_t)(i % f->count));

	junk_init(msg, f->key);
	return build(s->pkt, AF_INET, &a, f->dst, (uint16_t)(1024 + i % 60000), f->port, msg,
		     sizeof(msg));
}

struct replay {
	uint8_t msg[INIT_LEN];
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
};

static size_t next_replay(struct sender *s, void *arg, unsigned long i)
{
	struct replay *r = arg;

	return build(s->pkt, AF_INET, r->src, r->dst, r->sport, r->dport, r->msg,
		     sizeof(r->msg));
}

static int usage(void)
{
	fprintf(stderr,
		"usage: mpt_attack flood6 DST PORT ANCHOR_PUB PREFIX RATE SECONDS\n"
		"       mpt_attack flood4 DST PORT ANCHOR_PUB FIRST COUNT RATE SECONDS\n"
		"       mpt_attack capture IFNAME PORT SECONDS\n"
		"       mpt_attack replay DST PORT SRC SRCPORT HEX RATE SECONDS\n"
		"       mpt_attack badanchor BIND PORT ANCHOR_PRIV SECONDS\n"
		"       mpt_attack ctlflood SOCKET GID FIRST_UID NIDLE NPIPE SECONDS\n");
	return 1;
}

static int capture(const char *ifname, uint16_t port, double seconds)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	uint8_t buf[2048];
	int fd;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "mpt_attack: no interface '%s'\n", ifname);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("mpt_attack: packet socket");
		return 1;
	}
	while (now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		size_t ihl;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 20 || (buf[0] >> 4) != 4 || buf[9] != IPPROTO_UDP)
			continue;
		ihl = (size_t)(buf[0] & 15) * 4;
		if ((size_t)n != ihl + 8 + INIT_LEN ||
		    (buf[ihl + 2] << 8 | buf[ihl + 3]) != port)
			continue;
		if (buf[ihl + 8] != INIT_TYPE || buf[ihl + 9] != WIRE_VERSION)
			continue;
		char src[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, buf + 12, src, sizeof(src));
		printf("%s %u ", src, buf[ihl] << 8 | buf[ihl + 1]);
		for (size_t i = 0; i < INIT_LEN; i++)
			printf("%02x", buf[ihl + 8 + i]);
		printf("\n");
		close(fd);
		return 0;
	}
	fprintf(stderr, "mpt_attack: no init seen on %s in %.0f s\n", ifname, seconds);
	close(fd);
	return 1;
}

/*
 * badanchor: a malicious anchor. It holds the anchor's private key and answers the
 * UE's init as mptund-proto(7) HANDSHAKE says, with its own Noise IK responder built
 * on OpenSSL EVP (X25519, SHA-256, HMAC, ChaCha20-Poly1305), then speaks the
 * transport format: answers the UE's PROBEs (PROBE_ACK and an ACK), sends packets on
 * path ids the UE has no path for, then valid PROBEs on the real path.
 */
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

static int badanchor(const char *bind_addr, uint16_t port, const char *priv_b64,
		     double seconds)
{
	static const uint8_t bad_ids[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 255 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	unsigned long in_range = 0, out_range = 0, good = 0;
	struct rogue r = { .fd = -1 };
	uint8_t f[64];

	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1 || key_from_b64(r.priv, priv_b64) ||
	    x25519_pub(r.pub, r.priv))
		return usage();
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

/*
 * ctlflood: local users against the control socket. Each client is a child process
 * with its own uid (FIRST_UID + i % 8) in group GID; the even ones connect and send
 * nothing, the odd ones pipeline "stats" requests without reading a byte. Each
 * reports whether the daemon refused it (EBUSY) or took it, and when the daemon
 * closed it.
 */
struct ctl_result {
	char kind;			/* 'i' idle, 'p' pipelining */
	char outcome;			/* 'r' refused, 'c' closed by the daemon, 'o' open */
	unsigned ms;			/* when closed (or refused), since connect */
	unsigned long requests;		/* written (pipelining) */
};

static int ctl_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A refusal is a whole reply with errno=16 (EBUSY), then EOF. */
static int ctl_refused(int fd)
{
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_PEEK | MSG_DONTWAIT);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, "errno=16") != NULL;
}

static void ctl_client(const char *path, int pipelining, double seconds, struct ctl_result *res)
{
	static const char req[] = "cmd=stats\n\n";
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
	int fd = ctl_connect(path), peeked = 0;

	res->kind = pipelining ? 'p' : 'i';
	res->outcome = 'r';
	if (fd < 0)
		return;
	res->outcome = 'o';
	while (now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = (short)((peeked ? 0 : POLLIN) |
							      (pipelining ? POLLOUT : 0)) };

		if (poll(&p, 1, 20) <= 0)
			continue;
		if (p.revents & POLLIN) {
			peeked = 1;		/* the idle ones read; the others only look */
			if (ctl_refused(fd)) {
				res->outcome = 'r';
				break;
			}
			if (!pipelining) {
				char buf[4096];

				if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == 0)
					p.revents |= POLLHUP;
				else
					peeked = 0;
			}
		}
		if (p.revents & (POLLHUP | POLLERR)) {
			res->outcome = 'c';
			break;
		}
		if (p.revents & POLLOUT) {
			ssize_t n = send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);

			if (n == (ssize_t)sizeof(req) - 1)
				res->requests++;
			else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				res->outcome = 'c';
				break;
			}
		}
	}
	res->ms = (unsigned)((now_ns() - t0) / 1000000);
	close(fd);
}

static int ctlflood(const char *path, gid_t gid, uid_t first_uid, unsigned nidle,
		    unsigned npipe, double seconds)
{
	unsigned n = nidle + npipe, acc[2] = { 0 }, ref[2] = { 0 }, closed[2] = { 0 };
	unsigned lo[2] = { ~0u, ~0u }, hi[2] = { 0 };
	unsigned long requests = 0;
	struct ctl_result res;
	int pfd[2];

	if (!n || pipe(pfd) < 0)
		return usage();
	for (unsigned i = 0; i < n; i++) {
		/* interleaved, so both kinds get in */
		int pipelining = i % 2 ? i / 2 < npipe : i / 2 >= nidle;
		pid_t pid = fork();

		if (pid < 0) {
			perror("mpt_attack: fork");
			return 1;
		}
		if (pid)
			continue;
		close(pfd[0]);
		memset(&res, 0, sizeof(res));
		if (setgroups(1, &gid) || setgid(gid) || setuid(first_uid + i % 8)) {
			perror("mpt_attack: drop to the attacker's uid");
			_exit(1);
		}
		ctl_client(path, pipelining, seconds, &res);
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	while (read(pfd[0], &res, sizeof(res)) == sizeof(res)) {
		int k = res.kind == 'p';

		requests += res.requests;
		if (res.outcome == 'r') {
			ref[k]++;
			continue;
		}
		acc[k]++;
		if (res.outcome == 'c') {
			closed[k]++;
			lo[k] = res.ms < lo[k] ? res.ms : lo[k];
			hi[k] = res.ms > hi[k] ? res.ms : hi[k];
		}
	}
	while (wait(NULL) > 0)
		;
	for (int k = 0; k < 2; k++)
		if (!closed[k])
			lo[k] = 0;
	printf("idle_accepted=%u idle_refused=%u idle_closed=%u idle_closed_ms=%u-%u "
	       "pipe_accepted=%u pipe_refused=%u pipe_closed=%u pipe_closed_ms=%u-%u "
	       "requests=%lu\n", acc[0], ref[0], closed[0], lo[0], hi[0], acc[1], ref[1],
	       closed[1], lo[1], hi[1], requests);
	return 0;
}

int main(int argc, char **argv)
{
	struct sender s = { .fd = -1 };
	struct flood f = { 0 };
	uint8_t pub[32];

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "capture") && argc == 5)
		return capture(argv[2], (uint16_t)atoi(argv[3]), atof(argv[4]));
	if (!strcmp(argv[1], "badanchor") && argc == 6)
		return badanchor(argv[2], (uint16_t)atoi(argv[3]), argv[4], atof(argv[5]));
	if (!strcmp(argv[1], "ctlflood") && argc == 8)
		return ctlflood(argv[2], (gid_t)strtoul(argv[3], NULL, 0),
				(uid_t)strtoul(argv[4], NULL, 0), (unsigned)atoi(argv[5]),
				(unsigned)atoi(argv[6]), atof(argv[7]));
	if (!strcmp(argv[1], "replay") && argc == 9) {
		struct replay r = { 0 };
		const char *hex = argv[6];

		if (inet_pton(AF_INET, argv[2], r.dst) != 1 ||
		    inet_pton(AF_INET, argv[4], r.src) != 1 || strlen(hex) != 2 * INIT_LEN)
			return usage();
		for (size_t i = 0; i < INIT_LEN; i++) {
			unsigned v;

			if (sscanf(hex + 2 * i, "%2x", &v) != 1)
				return usage();
			r.msg[i] = (uint8_t)v;
		}
		r.dport = (uint16_t)atoi(argv[3]);
		r.sport = (uint16_t)atoi(argv[5]);
		s.family = AF_INET;
		s.dst.v4.sin_family = AF_INET;
		memcpy(&s.dst.v4.sin_addr, r.dst, 4);
		s.fd = raw_socket(AF_INET);
		if (s.fd < 0)
			return 1;
		run(&s, next_replay, &r, strtoul(argv[7], NULL, 0), atof(argv[8]));
		return 0;
	}
	if (!strcmp(argv[1], "flood6") && argc == 8) {
		if (inet_pton(AF_INET6, argv[2], f.dst) != 1 ||
		    inet_pton(AF_INET6, argv[5], f.base) != 1 || key_from_b64(pub, argv[4]))
			return usage();
		f.port = (uint16_t)atoi(argv[3]);
		mac1_key(f.key, pub);
		s.family = AF_INET6;
		s.dst.v6.sin6_family = AF_INET6;
		memcpy(&s.dst.v6.sin6_addr, f.dst, 16);
		s.fd = raw_socket(AF_INET6);
		if (s.fd < 0)
			return 1;
		run(&s, next_flood6, &f, strtoul(argv[6], NULL, 0), atof(argv[7]));
		return 0;
	}
	if (!strcmp(argv[1], "flood4") && argc == 9) {
		struct in_addr first;

		if (inet_pton(AF_INET, argv[2], f.dst) != 1 ||
		    inet_pton(AF_INET, argv[5], &first) != 1 || key_from_b64(pub, argv[4]))
			return usage();
		f.port = (uint16_t)atoi(argv[3]);
		f.first = ntohl(first.s_addr);
		f.count = (uint32_t)strtoul(argv[6], NULL, 0);
		if (!f.count)
			return usage();
		mac1_key(f.key, pub);
		s.family = AF_INET;
		s.dst.v4.sin_family = AF_INET;
		memcpy(&s.dst.v4.sin_addr, f.dst, 4);
		s.fd = raw_socket(AF_INET);
		if (s.fd < 0)
			return 1;
		run(&s, next_flood4, &f, strtoul(argv[7], NULL, 0), atof(argv[8]));
		return 0;
	}
	return usage();
}
