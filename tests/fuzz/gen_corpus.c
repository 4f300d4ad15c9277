// SPDX-License-Identifier: MIT
/*
 * Writes the fuzz targets' seed corpora (tests/fuzz/corpus/TARGET/NAME) with the
 * project's own encoders: transport packets from the wire encoders, sealed with the
 * AEAD; handshake messages from the Noise code with the identities of fuzz.h (so they
 * authenticate in fuzz_handshake); configs parsed and printed by the config code;
 * control requests written by mptund-ctl's sender. The output is deterministic:
 *
 *     build-fuzz/gen_corpus tests/fuzz/corpus tests/config/good configs
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mptund/wire.h>

#include "aead.h"
#include "config.h"
#include "ctl_client.h"
#include "ctl_proto.h"
#include "fuzz.h"

static const char *outdir;

static void put(const char *target, const char *name, const void *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void must(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "gen_corpus: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

/* ---- inner IP packets (pktmeta, and the DATA frames' payload) ---- */

static size_t ipv4(uint8_t *p, uint8_t proto, uint16_t frag, size_t l4len)
{
	size_t len = 20 + l4len;

	memset(p, 0, len);
	p[0] = 0x45;
	p[1] = 0x2e;			/* DSCP 11, ECN 2 */
	mpt_put_u16(p + 2, (uint16_t)len);
	mpt_put_u16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, "\x0a\x63\x00\x02\x08\x08\x08\x08", 8);
	if (l4len >= 4) {
		mpt_put_u16(p + 20, 40000);
		mpt_put_u16(p + 22, 443);
	}
	if (proto == IPPROTO_TCP && l4len >= 20)
		p[32] = 0x50;		/* data offset 5 */
	return len;
}

static size_t ipv6(uint8_t *p, const uint8_t *ext, size_t extlen, uint8_t first,
		   uint8_t proto, size_t l4len)
{
	size_t len = 40 + extlen + l4len;

	memset(p, 0, len);
	p[0] = 0x6b;			/* version 6, traffic class 0xb8 (DSCP 46) */
	p[1] = 0x80;
	mpt_put_u16(p + 4, (uint16_t)(extlen + l4len));
	p[6] = extlen ? first : proto;
	p[7] = 64;
	p[8] = 0xfd;
	p[23] = 2;
	p[24] = 0x20;
	p[25] = 0x01;
	p[39] = 1;
	memcpy(p + 40, ext, extlen);
	if (l4len >= 4) {
		mpt_put_u16(p + 40 + extlen, 5353);
		mpt_put_u16(p + 42 + extlen, 53);
	}
	if (proto == IPPROTO_TCP && l4len >= 20)
		p[40 + extlen + 12] = 0x50;
	return len;
}

static void gen_pktmeta(void)
{
	/* hop-by-hop (8 bytes, next: fragment), fragment (8 bytes, next: UDP) */
	static const uint8_t ext[16] = { IPPROTO_FRAGMENT, 0, 1, 4, 0, 0, 0, 0,
					 IPPROTO_UDP, 0, 0, 0, 0, 0, 0, 42 };
	uint8_t p[128];

	put("fuzz_pktmeta", "ipv4-tcp", p, ipv4(p, IPPROTO_TCP, 0x4000, 20));
	put("fuzz_pktmeta", "ipv4-udp", p, ipv4(p, IPPROTO_UDP, 0, 12));
	put("fuzz_pktmeta", "ipv4-icmp", p, ipv4(p, IPPROTO_ICMP, 0, 8));
	put("fuzz_pktmeta", "ipv4-fragment", p, ipv4(p, IPPROTO_UDP, 0x2000 | 10, 16));
	put("fuzz_pktmeta", "ipv4-sctp", p, ipv4(p, IPPROTO_SCTP, 0, 12));
	put("fuzz_pktmeta", "ipv6-tcp", p, ipv6(p, NULL, 0, 0, IPPROTO_TCP, 20));
	put("fuzz_pktmeta", "ipv6-udp", p, ipv6(p, NULL, 0, 0, IPPROTO_UDP, 8));
	put("fuzz_pktmeta", "ipv6-ext-fragment", p,
	    ipv6(p, ext, sizeof(ext), IPPROTO_HOPOPTS, IPPROTO_UDP, 8));
	put("fuzz_pktmeta", "ipv6-none", p, ipv6(p, NULL, 0, 0, IPPROTO_NONE, 0));
}

/* Seeds of fuzz_ipfrag: two bytes of the size to cut at, then an IPv4 packet. */
static void gen_ipfrag(void)
{
	static const uint8_t opts[8] = { 1, 130, 4, 0xaa, 0xbb, 7, 3, 4 };
	uint8_t p[2 + 1500];
	size_t len;

	mpt_put_u16(p, 576);
	len = ipv4(p + 2, IPPROTO_UDP, 0, 1400 - 20);
	put("fuzz_ipfrag", "udp-1400-at-576", p, 2 + len);
	mpt_put_u16(p, 1209);
	len = ipv4(p + 2, IPPROTO_UDP, 0x2000 | 100, 1300 - 20);
	put("fuzz_ipfrag", "fragment-at-1209", p, 2 + len);
	mpt_put_u16(p, 300);
	len = ipv4(p + 2, IPPROTO_ICMP, 0, 700 - 20);
	p[2] = 0x47;			/* 8 bytes of options after the fixed header */
	memcpy(p + 2 + 20, opts, sizeof(opts));
	put("fuzz_ipfrag", "options-at-300", p, 2 + len);
}

/* ---- transport packets ---- */

struct pkt {
	uint8_t b[2048];
	size_t len;
};

static void pkt_start(struct pkt *p, uint8_t path, uint64_t pn)
{
	struct mpt_hdr h = { .type = MPT_MSG_TRANSPORT, .path_id = path,
			     .receiver = 0x10001, .pn = pn };

	must(mpt_hdr_encode(p->b, sizeof(p->b), &h), "hdr");
	p->len = MPT_WIRE_HDR_LEN;
}

static void pkt_data(struct pkt *p, uint64_t dsn)
{
	uint8_t ip[64];
	size_t n = ipv4(ip, IPPROTO_UDP, 0, 12);
	int w = mpt_frame_data_encode(p->b + p->len, sizeof(p->b) - p->len, dsn, ip, n);

	must(w, "data frame");
	p->len += (size_t)w;
}

static void pkt_ack(struct pkt *p, uint8_t path, const uint64_t *lohi, unsigned n)
{
	struct mpt_ack_info a = { .path_id = path, .ack_delay_ns = 250000, .nranges = n };
	int w;

	for (unsigned i = 0; i < n; i++) {
		a.r[i].lo = lohi[2 * i];
		a.r[i].hi = lohi[2 * i + 1];
	}
	w = mpt_frame_ack_encode(p->b + p->len, sizeof(p->b) - p->len, &a);
	must(w, "ack frame");
	p->len += (size_t)w;
}

static void pkt_probe(struct pkt *p)
{
	struct mpt_probe pr = { .id = 7, .timestamp = 123456789, .name = "wifi",
				.cost = 1, .weight = 2, .capacity = 12500000 };
	int w = mpt_frame_probe_encode(p->b + p->len, sizeof(p->b) - p->len, &pr);

	must(w, "probe frame");
	p->len += (size_t)w;
	w = mpt_frame_probe_ack_encode(p->b + p->len, sizeof(p->b) - p->len, 6, 987654321);
	must(w, "probe-ack frame");
	p->len += (size_t)w;
	w = mpt_frame_padding_encode(p->b + p->len, sizeof(p->b) - p->len, 8);
	must(w, "padding frame");
	p->len += (size_t)w;
}

/* The clear form (header, frames, a zero tag) and the sealed one. */
static void put_transport(const char *name, struct pkt *p)
{
	static const uint8_t key[MPT_AEAD_KEY_LEN] = FUZZ_AEAD_KEY;
	struct mpt_aead aead = { 0 };
	char sealed[64];
	uint8_t out[sizeof(p->b) + MPT_WIRE_TAG_LEN];
	int n;

	memset(p->b + p->len, 0, MPT_WIRE_TAG_LEN);
	put("fuzz_wire", name, p->b, p->len + MPT_WIRE_TAG_LEN);
	must(mpt_aead_init(&aead, MPT_CIPHER_CHACHA20_POLY1305, key), "aead");
	n = mpt_aead_seal_packet_to(&aead, p->b, p->len - MPT_WIRE_HDR_LEN, out, sizeof(out));
	must(n, "seal");
	snprintf(sealed, sizeof(sealed), "%s-sealed", name);
	put("fuzz_wire", sealed, out, (size_t)n);
	mpt_aead_free(&aead);
}

static void gen_wire(void)
{
	static const uint64_t r3[] = { 20, 30, 10, 15, 1, 5 };
	struct pkt p;

	pkt_start(&p, 0, 1);
	pkt_data(&p, 1);
	put_transport("data", &p);
	pkt_start(&p, 1, 2);
	pkt_ack(&p, 1, r3, 3);
	put_transport("ack", &p);
	pkt_start(&p, 2, 3);
	pkt_probe(&p);
	pkt_data(&p, 9);
	pkt_data(&p, 8);
	put_transport("probe-data", &p);
}

/* ---- the state a peer's packets drive (fuzz_rxpath's little program) ---- */

struct prog {
	uint8_t b[4096];
	size_t len;
};

static void op(struct prog *g, uint8_t code, uint64_t arg, unsigned bytes)
{
	g->b[g->len++] = code;
	while (bytes--)
		g->b[g->len++] = (uint8_t)(arg >> (8 * bytes));
}

static void op_send(struct prog *g, uint8_t path, uint8_t n)
{
	op(g, 0, (uint64_t)path << 8 | n, 2);
}

static void op_datagram(struct prog *g, struct pkt *p)
{
	memset(p->b + p->len, 0, MPT_WIRE_TAG_LEN);
	p->len += MPT_WIRE_TAG_LEN;
	op(g, 1, p->len, 2);
	memcpy(g->b + g->len, p->b, p->len);
	g->len += p->len;
}

static void op_time(struct prog *g, uint32_t us)
{
	op(g, 2, us, 4);
}

static void gen_rxpath(void)
{
	static const uint64_t a1[] = { 1, 10 }, a2[] = { 12, 16, 5, 10, 1, 3 };
	struct prog g = { .len = 0 };
	struct pkt p;

	/* in-order data on two paths, then an ACK of everything sent */
	op_send(&g, 0, 16);
	for (uint64_t i = 1; i <= 6; i++) {
		pkt_start(&p, (uint8_t)(i & 1), i);
		pkt_data(&p, i);
		op_datagram(&g, &p);
	}
	op_time(&g, 20000);
	pkt_start(&p, 0, 7);
	pkt_ack(&p, 0, a1, 1);
	op_datagram(&g, &p);
	put("fuzz_rxpath", "in-order", g.b, g.len);

	/* holes on both sides: reordered DSNs, an ACK with gaps, timers fire */
	g.len = 0;
	op_send(&g, 1, 20);
	for (uint64_t i = 6; i >= 1; i--) {
		pkt_start(&p, 1, 10 - i);
		pkt_data(&p, i * 2);
		op_datagram(&g, &p);
	}
	op_time(&g, 30000);
	pkt_start(&p, 2, 1);
	pkt_ack(&p, 1, a2, 3);
	pkt_probe(&p);
	op_datagram(&g, &p);
	op_time(&g, 400000);
	op(&g, 3, 1, 5);		/* flush */
	op(&g, 3, (uint64_t)3 << 32 | 1, 5);	/* declare path 1 lost */
	put("fuzz_rxpath", "holes-timeouts", g.b, g.len);
}

/* ---- handshakes ---- */

static struct mpt_noise_local ue, anchor;

static int lookup(void *arg, const uint8_t pub[32], void **peer, uint8_t **last,
		  const uint8_t **ss)
{
	static uint8_t last_ts[MPT_TIMESTAMP_LEN];

	(void)arg;
	(void)ss;	/* no precomputed static-static DH: the responder computes it */

	if (memcmp(pub, ue.pub, 32))
		return -ENOKEY;
	memset(last_ts, 0, sizeof(last_ts));
	*peer = &ue;
	*last = last_ts;
	return 0;
}

/* msg[0] is fuzz_handshake's mode byte: 0 as is, 1 mac1 recomputed by the target. */
static void put_hs(const char *name, uint8_t *msg, size_t len)
{
	char n2[64];

	msg[0] = 0;
	put("fuzz_handshake", name, msg, len);
	snprintf(n2, sizeof(n2), "%s-remac", name);
	msg[0] = 1;
	put("fuzz_handshake", n2, msg, len);
}

static void gen_handshake(void)
{
	static const uint8_t eph[32] = FUZZ_INIT_EPH, ts[MPT_TIMESTAMP_LEN] = FUZZ_INIT_TS;
	static const uint8_t eph_r[32] = { 5 }, eph2[32] = { 6 };
	uint8_t init[1 + MPT_HS_INIT_LEN], resp[1 + MPT_HS_RESP_LEN];
	struct mpt_noise_initiation ini;
	struct mpt_noise_responder rsp;
	struct mpt_keypair kp;
	int why;

	must(fuzz_identity(&ue, FUZZ_UE_SEED), "ue identity");
	must(fuzz_identity(&anchor, FUZZ_ANCHOR_SEED), "anchor identity");

	/* the init fuzz_handshake makes itself, and the anchor's response to it */
	must(mpt_noise_create_init(&ini, &ue, anchor.pub, MPT_CIPHER_CHACHA20_POLY1305,
				   FUZZ_INIT_INDEX, eph, ts, init + 1), "init");
	put("fuzz_wire", "handshake-init", init + 1, MPT_HS_INIT_LEN);
	must(mpt_noise_consume_init(&rsp, &anchor, init + 1, MPT_HS_INIT_LEN, lookup, NULL,
				    &why), "consume init");
	must(mpt_noise_create_response(&rsp, &anchor, 7, eph_r, resp + 1, &kp), "response");
	put("fuzz_wire", "handshake-resp", resp + 1, MPT_HS_RESP_LEN);
	put_hs("init", init, sizeof(init));
	put_hs("resp", resp, sizeof(resp));

	/* a fresh-flagged AES-GCM init from another ephemeral key */
	must(mpt_noise_create_init_flags(&ini, &ue, anchor.pub, MPT_CIPHER_AES_256_GCM, 99,
					 eph2, ts, MPT_HS_FLAG_FRESH, init + 1), "init");
	put_hs("init-fresh-aes", init, sizeof(init));
	mpt_keypair_wipe(&kp);
}

/* ---- configs: as written and as --check prints them ---- */

static void gen_config_file(const char *dir, const char *name)
{
	char path[512], err[512], *text = NULL, *out = NULL, norm[300];
	struct mpt_config cfg;
	size_t len = 0, olen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return;
	text = malloc(65536);
	if (text)
		len = fread(text, 1, 65536, f);
	fclose(f);
	if (!text)
		exit(1);
	put("fuzz_config", name, text, len);
	if (mpt_config_parse(&cfg, name, text, len, err, sizeof(err)) == 0) {
		f = open_memstream(&out, &olen);
		if (!f)
			exit(1);
		mpt_config_print(&cfg, f);
		fclose(f);
		snprintf(norm, sizeof(norm), "%s.norm", name);
		put("fuzz_config", norm, out, olen);
		free(out);
		mpt_config_free(&cfg);
	}
	free(text);
}

static void gen_config(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (l > 5 && !strcmp(ents[i]->d_name + l - 5, ".conf"))
			gen_config_file(dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

/* ---- control requests, as mptund-ctl sends them ---- */

static void gen_ctl(void)
{
	static const char *const args[MPT_CTL_CMD_MAX][4] = {
		[MPT_CTL_CMD_STATS] = { "scope=paths" },
		[MPT_CTL_CMD_WATCH] = { "interval_ms=500", "scope=sessions" },
		[MPT_CTL_CMD_SCHED] = { "session=0" },
		[MPT_CTL_CMD_SET] = { "sched=acpf", "sched.min_frac=0.5", "cc.gain=2" },
		[MPT_CTL_CMD_PATH] = { "path=wifi", "admin=down", "cost=3", "session=1" },
	};
	static const char reply[] = "version=1\npath.0.name=wifi\npath.0.cost=1\n"
				    "message=ok\nerrno=0\n\n";
	char buf[4096];
	int fds[2];

	for (unsigned c = 0; c < MPT_CTL_CMD_MAX; c++) {
		struct ctl_conn conn = { .fd = -1 };
		size_t n = 0;
		ssize_t r;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
			exit(1);
		conn.fd = fds[1];
		while (n < 4 && args[c][n])
			n++;
		must(ctl_conn_send(&conn, mpt_ctl_cmds[c].name, args[c], n), "ctl send");
		close(fds[1]);
		r = read(fds[0], buf, sizeof(buf));
		close(fds[0]);
		if (r <= 0)
			exit(1);
		put("fuzz_ctl", mpt_ctl_cmds[c].name, buf, (size_t)r);
	}
	put("fuzz_ctl", "reply", reply, sizeof(reply) - 1);
}

/* fuzz_rules: a pushed set as RULES frames (two fragments and an acknowledgment), and
 * as the text the UE parses. */
static void gen_rules(void)
{
	static const char set[] = "Name=voip Protocol=udp DestinationPort=5060,10000-20000 "
				  "DSCP=46 Scheduler=minrtt\n"
				  "Name=web Destination=203.0.113.0/24,2001:db8::/32 Protocol=tcp "
				  "DestinationPort=443 Scheduler=acpf min_frac=0.5\n"
				  "Name=ping Protocol=icmp Scheduler=rr\n";
	uint8_t b[2048];
	size_t half = sizeof(set) / 2, len = 0;
	struct mpt_rules_frag f = { .seq = 7, .index = 0, .count = 2,
				    .text = (const uint8_t *)set, .len = (uint16_t)half };
	int n = mpt_frame_rules_encode(b, sizeof(b), &f);

	must(n, "rules frame");
	len = (size_t)n;
	f.index = 1;
	f.text += half;
	f.len = (uint16_t)(sizeof(set) - 1 - half);
	n = mpt_frame_rules_encode(b + len, sizeof(b) - len, &f);
	must(n, "rules frame");
	len += (size_t)n;
	put("fuzz_rules", "frames", b, len);
	f = (struct mpt_rules_frag){ .seq = 7 };
	n = mpt_frame_rules_encode(b, sizeof(b), &f);
	must(n, "rules ack");
	put("fuzz_rules", "ack", b, (size_t)n);
	put("fuzz_rules", "text", set, sizeof(set) - 1);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gen_corpus OUTDIR [CONFIGDIR...]\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) < 0 && errno != EEXIST) {
		perror(outdir);
		return 1;
	}
	gen_pktmeta();
	gen_ipfrag();
	gen_wire();
	gen_rxpath();
	gen_handshake();
	for (int i = 2; i < argc; i++)
		gen_config(argv[i]);
	gen_ctl();
	gen_rules();
	return 0;
}
