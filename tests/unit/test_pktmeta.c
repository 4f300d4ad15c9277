// SPDX-License-Identifier: MIT
/*
 * Inner packet parsing: IPv4/IPv6 with TCP, UDP, ICMP, extension headers and
 * fragments; DSCP/ECN; the keyed, direction-specific flow hash; table of malformed
 * packets; every truncation of a valid packet is refused. SipHash against the
 * paper's test vector.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pktmeta.h"

static struct mpt_siphash_key key = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* IPv4 header + transport header of l4len bytes; returns the total length. */
static size_t mk_v4(uint8_t *b, uint8_t tos, uint8_t proto, const char *src,
		    const char *dst, uint16_t sport, uint16_t dport, size_t l4len)
{
	memset(b, 0, 20 + l4len);
	b[0] = 0x45;
	b[1] = tos;
	put16(b + 2, (uint16_t)(20 + l4len));
	b[8] = 64;
	b[9] = proto;
	inet_pton(AF_INET, src, b + 12);
	inet_pton(AF_INET, dst, b + 16);
	put16(b + 20, sport);
	put16(b + 22, dport);
	if (proto == IPPROTO_TCP)
		b[32] = 5 << 4;
	return 20 + l4len;
}

/* IPv6 header, then the given extension bytes, then l4len transport bytes. */
static size_t mk_v6(uint8_t *b, uint8_t tclass, uint8_t nh, const uint8_t *ext,
		    size_t extlen, const char *src, const char *dst, uint16_t sport,
		    uint16_t dport, size_t l4len, uint8_t tcp_off)
{
	memset(b, 0, 40 + extlen + l4len);
	b[0] = (uint8_t)(0x60 | tclass >> 4);
	b[1] = (uint8_t)(tclass << 4);
	put16(b + 4, (uint16_t)(extlen + l4len));
	b[6] = nh;
	b[7] = 64;
	inet_pton(AF_INET6, src, b + 8);
	inet_pton(AF_INET6, dst, b + 24);
	if (extlen)
		memcpy(b + 40, ext, extlen);
	put16(b + 40 + extlen, sport);
	put16(b + 40 + extlen + 2, dport);
	if (tcp_off)
		b[40 + extlen + 12] = (uint8_t)(tcp_off << 4);
	return 40 + extlen + l4len;
}

static uint32_t hash_of(const uint8_t *b, size_t len)
{
	struct mpt_pkt_info pi;
	const char *why;

	assert_int_equal(mpt_pktmeta_parse(&key, b, len, &pi, &why), 0);
	return pi.meta.flow_hash;
}

static void test_siphash_vector(void **state)
{
	uint8_t kb[16], msg[15];
	struct mpt_siphash_key k;

	for (int i = 0; i < 16; i++)
		kb[i] = (uint8_t)i;
	for (int i = 0; i < 15; i++)
		msg[i] = (uint8_t)i;
	mpt_siphash_key_from_bytes(&k, kb);
	assert_int_equal(k.k0, key.k0);
	/* SipHash paper, appendix A */
	assert_true(mpt_siphash24(&k, msg, 15) == 0xa129ca6149be45e5ULL);
	assert_true(mpt_siphash24(&k, msg, 0) == 0x726fdb47dd0e0e31ULL);
}

static void test_v4(void **state)
{
	uint8_t b[128], c[128];
	struct mpt_pkt_info pi;
	const char *why;
	size_t n;
	uint32_t h;

	/* TCP, DSCP EF (46), ECN CE (3) */
	n = mk_v4(b, 46 << 2 | 3, IPPROTO_TCP, "10.0.0.1", "192.0.2.7", 40000, 443, 20);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.family, AF_INET);
	assert_int_equal(pi.meta.len, 40);
	assert_int_equal(pi.meta.proto, IPPROTO_TCP);
	assert_int_equal(pi.meta.dscp, 46);
	assert_int_equal(pi.meta.ecn, 3);
	assert_int_equal(pi.sport, 40000);
	assert_int_equal(pi.dport, 443);
	assert_int_equal(pi.l4_offset, 20);
	assert_false(pi.fragment);
	assert_memory_equal(pi.dst.bytes, b + 16, 4);
	h = pi.meta.flow_hash;
	assert_int_not_equal(h, 0);

	/* stable; DSCP/ECN and payload do not change it */
	n = mk_v4(c, 0, IPPROTO_TCP, "10.0.0.1", "192.0.2.7", 40000, 443, 60);
	assert_int_equal(hash_of(c, n), h);
	/* another port, the reverse direction, another protocol, another key */
	n = mk_v4(c, 0, IPPROTO_TCP, "10.0.0.1", "192.0.2.7", 40001, 443, 20);
	assert_int_not_equal(hash_of(c, n), h);
	n = mk_v4(c, 0, IPPROTO_TCP, "192.0.2.7", "10.0.0.1", 443, 40000, 20);
	assert_int_not_equal(hash_of(c, n), h);
	n = mk_v4(c, 0, IPPROTO_UDP, "10.0.0.1", "192.0.2.7", 40000, 443, 8);
	assert_int_not_equal(hash_of(c, n), h);
	n = mk_v4(c, 0, IPPROTO_TCP, "10.0.0.1", "192.0.2.7", 40000, 443, 20);
	{
		struct mpt_siphash_key k2 = { key.k0 + 1, key.k1 };

		assert_int_equal(mpt_pktmeta_parse(&k2, c, n, &pi, &why), 0);
		assert_int_not_equal(pi.meta.flow_hash, h);
	}

	/* UDP */
	n = mk_v4(b, 0, IPPROTO_UDP, "10.0.0.1", "192.0.2.7", 5353, 53, 8);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.dport, 53);

	/* ICMP: no ports, hash over the addresses; ICMP bytes do not matter */
	n = mk_v4(b, 0, IPPROTO_ICMP, "10.0.0.1", "192.0.2.7", 0x0800, 1, 8);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.meta.proto, IPPROTO_ICMP);
	assert_int_equal(pi.sport, 0);
	h = pi.meta.flow_hash;
	n = mk_v4(b, 0, IPPROTO_ICMP, "10.0.0.1", "192.0.2.7", 0, 2, 8);
	assert_int_equal(hash_of(b, n), h);

	/* fragments: first (MF) and a later one (offset) hash alike */
	n = mk_v4(b, 0, IPPROTO_UDP, "10.0.0.1", "192.0.2.7", 1, 2, 8);
	b[6] = 0x20;				/* MF */
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_true(pi.fragment);
	assert_int_equal(pi.sport, 0);
	h = pi.meta.flow_hash;
	n = mk_v4(b, 0, IPPROTO_UDP, "10.0.0.1", "192.0.2.7", 0x1234, 0x5678, 8);
	put16(b + 6, 185);			/* offset 1480 bytes, last */
	assert_int_equal(hash_of(b, n), h);
}

/* TCP: the flags (CWR, ECE for exp3's signals) and the sequence space a segment uses,
 * from IPv4 and IPv6; none for UDP. */
static void test_tcp_fields(void **state)
{
	uint8_t b[256];
	struct mpt_pkt_info pi;
	const char *why;
	size_t n;

	(void)state;
	n = mk_v4(b, 0, IPPROTO_TCP, "10.0.0.1", "192.0.2.7", 40000, 443, 20 + 100);
	memcpy(b + 24, "\x89\xab\xcd\xef", 4);	/* seq */
	b[33] = 0x80 | 0x10 | 0x01;		/* CWR, ACK, FIN */
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.meta.tcp_flags, 0x91);
	assert_true(pi.meta.tcp_flags & MPT_TCP_FLAG_CWR);
	assert_int_equal(pi.tcp_seq, 0x89abcdefu);
	assert_int_equal(pi.tcp_len, 101);		/* 100 bytes and the FIN */
	b[32] = 8 << 4;					/* 12 bytes of options */
	b[33] = 0x02;					/* SYN */
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.tcp_len, 100 - 12 + 1);
	n = mk_v6(b, 0, IPPROTO_TCP, NULL, 0, "fd00::1", "fd00::2", 1, 2, 20 + 7, 5);
	b[40 + 13] = 0x40;				/* ECE */
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.meta.tcp_flags, 0x40);
	assert_int_equal(pi.tcp_len, 7);
	n = mk_v4(b, 0, IPPROTO_UDP, "10.0.0.1", "192.0.2.7", 1, 2, 8 + 40);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.meta.tcp_flags, 0);
	assert_int_equal(pi.tcp_len, 0);
}

/* A pure ACK (ACK set, no payload, no SYN, FIN or RST) is marked: it is numbered in
 * the unordered space (session.h). */
static void test_tcp_ack_only(void **state)
{
	static const struct { uint8_t flags; size_t payload; bool ack_only; } cases[] = {
		{ 0x10, 0, true },		/* ACK */
		{ 0x18, 0, true },		/* ACK, PSH */
		{ 0x50, 0, true },		/* ACK, ECE */
		{ 0x10, 100, false },		/* data */
		{ 0x11, 0, false },		/* FIN */
		{ 0x12, 0, false },		/* SYN-ACK */
		{ 0x14, 0, false },		/* RST */
		{ 0x00, 0, false },		/* no ACK */
	};
	uint8_t b[256];
	struct mpt_pkt_info pi;
	const char *why;
	size_t n;

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = mk_v4(b, 0, IPPROTO_TCP, "10.0.0.1", "192.0.2.7", 40000, 443,
			  20 + cases[i].payload);
		b[33] = cases[i].flags;
		assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
		assert_int_equal(pi.meta.tcp_ack_only, cases[i].ack_only);
	}
	n = mk_v6(b, 0, IPPROTO_TCP, NULL, 0, "fd00::1", "fd00::2", 1, 2, 20, 5);
	b[40 + 13] = 0x10;
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_true(pi.meta.tcp_ack_only);
	n = mk_v4(b, 0, IPPROTO_UDP, "10.0.0.1", "192.0.2.7", 1, 2, 8);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_false(pi.meta.tcp_ack_only);
}

static void test_v6(void **state)
{
	/* hop-by-hop (8 bytes, PadN) -> destination options (16 bytes) -> TCP */
	uint8_t ext[24] = { IPPROTO_DSTOPTS, 0, 1, 4 };
	uint8_t frag[8] = { IPPROTO_UDP, 0, 0, 1, 0, 0, 0, 9 };
	uint8_t b[256];
	struct mpt_pkt_info pi;
	const char *why;
	size_t n;
	uint32_t h;

	ext[8] = IPPROTO_TCP;
	ext[9] = 1;
	ext[10] = 1;
	ext[11] = 12;
	n = mk_v6(b, 10 << 2 | 1, IPPROTO_HOPOPTS, ext, 24, "2001:db8::1", "2001:db8:1::2",
		  50000, 80, 20, 5);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.family, AF_INET6);
	assert_int_equal(pi.meta.proto, IPPROTO_TCP);
	assert_int_equal(pi.meta.dscp, 10);	/* AF11 */
	assert_int_equal(pi.meta.ecn, 1);	/* ECT(1) */
	assert_int_equal(pi.l4_offset, 64);
	assert_int_equal(pi.sport, 50000);
	assert_int_equal(pi.dport, 80);
	assert_memory_equal(pi.src.bytes, b + 8, 16);
	h = pi.meta.flow_hash;
	/* the same flow without extension headers hashes alike */
	n = mk_v6(b, 0, IPPROTO_TCP, NULL, 0, "2001:db8::1", "2001:db8:1::2", 50000, 80,
		  20, 5);
	assert_int_equal(hash_of(b, n), h);
	n = mk_v6(b, 0, IPPROTO_TCP, NULL, 0, "2001:db8:1::2", "2001:db8::1", 80, 50000,
		  20, 5);
	assert_int_not_equal(hash_of(b, n), h);

	/* UDP and ICMPv6 */
	n = mk_v6(b, 0, IPPROTO_UDP, NULL, 0, "fd00::1", "fd00::2", 1000, 2000, 8, 0);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.sport, 1000);
	n = mk_v6(b, 0, IPPROTO_ICMPV6, NULL, 0, "fd00::1", "fd00::2", 0x8000, 0, 8, 0);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.meta.proto, IPPROTO_ICMPV6);
	assert_int_equal(pi.l4_offset, 0);

	/* fragments: first (offset 0, M) and a later one hash alike */
	n = mk_v6(b, 0, IPPROTO_FRAGMENT, frag, 8, "fd00::1", "fd00::2", 7, 8, 8, 0);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_true(pi.fragment);
	assert_int_equal(pi.meta.proto, IPPROTO_UDP);
	h = pi.meta.flow_hash;
	frag[2] = 0x05;		/* offset 1280 / 8 = 160 -> 0x0500 */
	frag[3] = 0x00;
	n = mk_v6(b, 0, IPPROTO_FRAGMENT, frag, 8, "fd00::1", "fd00::2", 0x4242, 9, 8, 0);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.meta.flow_hash, h);
	assert_int_equal(pi.meta.proto, IPPROTO_UDP);
}

struct bad_case {
	const char *name;
	uint8_t pkt[80];
	size_t len;
	const char *why;
};

static void test_malformed(void **state)
{
	static const struct bad_case cases[] = {
		{ "empty", { 0 }, 0, "empty packet" },
		{ "version 5", { 0x50 }, 40, "not IPv4 or IPv6" },
		{ "v4 short", { 0x45, 0, 0, 19 }, 19, "truncated IPv4 header" },
		{ "v4 ihl 4", { 0x44, 0, 0, 20 }, 20, "bad IPv4 header length" },
		{ "v4 ihl > len", { 0x4f, 0, 0, 20 }, 20, "bad IPv4 header length" },
		{ "v4 tot > len", { 0x45, 0, 0, 41 }, 40, "bad IPv4 total length" },
		{ "v4 tot < ihl", { 0x45, 0, 0, 19 }, 40, "bad IPv4 total length" },
		{ "v4 tcp short", { 0x45, 0, 0, 30, [9] = IPPROTO_TCP }, 30,
		  "truncated transport header" },
		{ "v4 udp short", { 0x45, 0, 0, 27, [9] = IPPROTO_UDP }, 27,
		  "truncated transport header" },
		{ "v4 tcp doff 4", { 0x45, 0, 0, 40, [9] = IPPROTO_TCP, [32] = 0x40 }, 40,
		  "bad TCP data offset" },
		{ "v4 tcp doff 15", { 0x45, 0, 0, 40, [9] = IPPROTO_TCP, [32] = 0xf0 }, 40,
		  "bad TCP data offset" },
		{ "v6 short", { 0x60 }, 39, "truncated IPv6 header" },
		{ "v6 plen > len", { 0x60, 0, 0, 0, 0, 1 }, 40, "bad IPv6 payload length" },
		{ "v6 ext short", { 0x60, 0, 0, 0, 0, 4, IPPROTO_HOPOPTS }, 44,
		  "truncated IPv6 extension header" },
		{ "v6 ext len", { 0x60, 0, 0, 0, 0, 8, IPPROTO_DSTOPTS, [41] = 1 }, 48,
		  "truncated IPv6 extension header" },
		{ "v6 ah len", { 0x60, 0, 0, 0, 0, 8, IPPROTO_AH, [41] = 1 }, 48,
		  "truncated IPv6 extension header" },
		{ "v6 udp short", { 0x60, 0, 0, 0, 0, 7, IPPROTO_UDP }, 47,
		  "truncated transport header" },
	};
	struct mpt_pkt_info pi;
	const char *why;

	for (size_t i = 0; i < MPT_ARRAY_SIZE(cases); i++) {
		const struct bad_case *c = &cases[i];

		print_message("case %s\n", c->name);
		assert_int_equal(mpt_pktmeta_parse(&key, c->pkt, c->len, &pi, &why),
				 -EBADMSG);
		assert_string_equal(why, c->why);
	}
}

static void test_too_many_exthdrs(void **state)
{
	uint8_t ext[8 * (MPT_PKTMETA_MAX_EXTHDRS + 1)] = { 0 };
	uint8_t b[256];
	struct mpt_pkt_info pi;
	const char *why;
	size_t n;

	/* MPT_PKTMETA_MAX_EXTHDRS destination-options headers are fine */
	for (unsigned i = 0; i < MPT_PKTMETA_MAX_EXTHDRS; i++)
		ext[8 * i] = i + 1 < MPT_PKTMETA_MAX_EXTHDRS ? IPPROTO_DSTOPTS : IPPROTO_UDP;
	n = mk_v6(b, 0, IPPROTO_DSTOPTS, ext, 8 * MPT_PKTMETA_MAX_EXTHDRS, "fd00::1",
		  "fd00::2", 1, 2, 8, 0);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	assert_int_equal(pi.dport, 2);
	/* one more is refused */
	for (unsigned i = 0; i <= MPT_PKTMETA_MAX_EXTHDRS; i++)
		ext[8 * i] = i < MPT_PKTMETA_MAX_EXTHDRS ? IPPROTO_DSTOPTS : IPPROTO_UDP;
	n = mk_v6(b, 0, IPPROTO_DSTOPTS, ext, sizeof(ext), "fd00::1", "fd00::2", 1, 2, 8,
		  0);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), -EBADMSG);
	assert_string_equal(why, "too many IPv6 extension headers");
}

/* Every strict prefix of a valid packet is refused (its length field says more). */
static void test_truncations(void **state)
{
	uint8_t ext[8] = { IPPROTO_TCP };
	uint8_t b[256];
	struct mpt_pkt_info pi;
	const char *why;
	size_t n;

	n = mk_v6(b, 0, IPPROTO_HOPOPTS, ext, 8, "fd00::1", "fd00::2", 1, 2, 20, 5);
	for (size_t l = 0; l < n; l++)
		assert_int_equal(mpt_pktmeta_parse(&key, b, l, &pi, &why), -EBADMSG);
	assert_int_equal(mpt_pktmeta_parse(&key, b, n, &pi, &why), 0);
	n = mk_v4(b, 0, IPPROTO_TCP, "10.0.0.1", "10.0.0.2", 1, 2, 20);
	for (size_t l = 0; l < n; l++)
		assert_int_equal(mpt_pktmeta_parse(&key, b, l, &pi, &why), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_vector),
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_tcp_fields),
		cmocka_unit_test(test_tcp_ack_only),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_too_many_exthdrs),
		cmocka_unit_test(test_truncations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
