// SPDX-License-Identifier: MIT
/*
 * Segmentation of TUN super-packets (proto/gso.c): TCP over IPv4 and IPv6 with options,
 * an odd last segment, sequence numbers across the 32-bit wrap, IPv4 ids and lengths,
 * PSH/FIN only on the last segment and CWR only on the first; UDP (USO); completion of
 * a partial checksum; and the packets it refuses. Every checksum is verified by the
 * plain RFC 1071 sum of support/csumtest.c, written independently of the module's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/wire.h>

#include "csumtest.h"
#include "gso.h"

#define MTU	1100
#define SEG	1000
#define SEQ0	0xfffff900u		/* wraps within the run */

static uint8_t payload_byte(size_t i)
{
	return (uint8_t)(i * 7 + 3 + (i >> 8));
}

/* A TCP super-packet: IP header, TCP header with 12 bytes of options (NOP NOP TS), n
 * payload bytes; the TCP checksum field holds the pseudo-header's sum as the kernel
 * leaves it for offload. Returns the length; *l4 is the TCP header's offset. */
static size_t build_tcp(uint8_t *p, int v, size_t n, uint8_t flags, size_t *l4)
{
	static const uint8_t opts[12] = { 1, 1, 8, 10, 0, 0, 0x12, 0x34, 0xca, 0xfe, 0xba, 0xbe };
	size_t ip = v == 4 ? 20 : 40, len = ip + 32 + n;
	uint8_t *t = p + ip;

	memset(p, 0, len);
	if (v == 4) {
		p[0] = 0x45;
		mpt_put_u16(p + 2, (uint16_t)len);
		mpt_put_u16(p + 4, 0xfffe);		/* the id wraps too */
		p[6] = 0x40;				/* DF */
		p[8] = 64;
		p[9] = 6;
		memcpy(p + 12, "\x0a\x09\x00\x02\x0a\x09\x00\x01", 8);
		mpt_put_u16(p + 10, (uint16_t)~csumtest_sum(p, 20));
	} else {
		p[0] = 0x60;
		mpt_put_u16(p + 4, (uint16_t)(len - 40));
		p[6] = 6;
		p[7] = 64;
		for (int i = 0; i < 32; i++)
			p[8 + i] = (uint8_t)(0xfd + i * 13);
	}
	mpt_put_u16(t, 40000);
	mpt_put_u16(t + 2, 5201);
	mpt_put_u32(t + 4, SEQ0);
	mpt_put_u32(t + 8, 0x01020304);
	t[12] = 8 << 4;					/* 32 bytes */
	t[13] = flags;
	mpt_put_u16(t + 14, 512);
	memcpy(t + 20, opts, sizeof(opts));
	for (size_t i = 0; i < n; i++)
		t[32 + i] = payload_byte(i);
	mpt_put_u16(t + 16, csumtest_fold(csumtest_pseudo(p, v, 6, (uint32_t)(len - ip))));
	*l4 = ip;
	return len;
}

static void check_tcp_segments(int v, size_t n, uint8_t flags, uint8_t gso_type)
{
	static uint8_t pkt[65536], out[MTU];
	struct mpt_vnet_hdr vh = { .flags = MPT_VNET_F_NEEDS_CSUM, .gso_type = gso_type,
				   .gso_size = SEG, .csum_offset = 16 };
	size_t l4, len = build_tcp(pkt, v, n, flags, &l4), hlen = l4 + 32, done = 0;
	const char *why = NULL;
	struct mpt_gso g;

	vh.csum_start = (uint16_t)l4;
	assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, MTU, &why), 0);
	assert_int_equal(g.nsegs, (n + SEG - 1) / SEG);
	for (uint32_t i = 0; i < g.nsegs; i++) {
		size_t plen = n - done < SEG ? n - done : SEG;
		bool last = i + 1 == g.nsegs;
		uint32_t seglen;
		uint8_t *t = out + l4;

		memset(out, 0xee, sizeof(out));
		seglen = mpt_gso_segment(&g, i, out);
		assert_int_equal(seglen, hlen + plen);
		if (v == 4) {
			assert_int_equal(mpt_get_u16(out + 2), seglen);
			assert_int_equal(mpt_get_u16(out + 4), (uint16_t)(0xfffe + i));
			assert_int_equal(out[6], 0x40);
			assert_int_equal(out[8], 64);
			assert_int_equal(csumtest_sum(out, 20), 0xffff);
		} else {
			assert_int_equal(mpt_get_u16(out + 4), seglen - 40);
			assert_memory_equal(out + 6, pkt + 6, 34);
		}
		assert_int_equal(mpt_get_u32(t + 4), (uint32_t)(SEQ0 + done));
		assert_int_equal(mpt_get_u32(t + 8), 0x01020304);
		assert_memory_equal(t + 20, pkt + l4 + 20, 12);		/* options */
		assert_int_equal(t[13] & 0x01, last ? flags & 0x01 : 0);	/* FIN */
		assert_int_equal(t[13] & 0x08, last ? flags & 0x08 : 0);	/* PSH */
		assert_int_equal(t[13] & 0x80, i == 0 ? flags & 0x80 : 0);	/* CWR */
		assert_int_equal(t[13] & 0x50, flags & 0x50);		/* ACK, ECE */
		assert_int_equal(csumtest_l4(out, seglen, v, l4, 6), 0xffff);
		assert_memory_equal(out + hlen, pkt + hlen + done, plen);
		assert_int_equal(out[seglen], 0xee);			/* no overrun */
		done += plen;
	}
	assert_int_equal(done, n);
}

static void test_tcp4(void **state)
{
	(void)state;
	/* 3 full segments and an odd last one of 501 bytes */
	check_tcp_segments(4, 3 * SEG + 501, 0x10 | 0x08 | 0x01, MPT_VNET_GSO_TCPV4);
	/* CWR and ECE with the ECN bit of the GSO type */
	check_tcp_segments(4, 5 * SEG, 0x10 | 0x80 | 0x40 | 0x08,
			   MPT_VNET_GSO_TCPV4 | MPT_VNET_GSO_ECN);
	/* the largest: 64 KiB minus headers */
	check_tcp_segments(4, 65535 - 52, 0x10, MPT_VNET_GSO_TCPV4);
	/* one segment */
	check_tcp_segments(4, 7, 0x18, MPT_VNET_GSO_TCPV4);
}

static void test_tcp6(void **state)
{
	(void)state;
	check_tcp_segments(6, 2 * SEG + 333, 0x10 | 0x08 | 0x01, MPT_VNET_GSO_TCPV6);
	check_tcp_segments(6, 40 * SEG + 1, 0x10 | 0x80, MPT_VNET_GSO_TCPV6);
}

static void test_udp_l4(void **state)
{
	static uint8_t pkt[8192], out[MTU];
	struct mpt_vnet_hdr vh = { .flags = MPT_VNET_F_NEEDS_CSUM,
				   .gso_type = MPT_VNET_GSO_UDP_L4, .gso_size = SEG,
				   .csum_start = 20, .csum_offset = 6 };
	size_t n = 2 * SEG + 77, len = 28 + n;
	const char *why;
	struct mpt_gso g;

	(void)state;
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;
	mpt_put_u16(pkt + 2, (uint16_t)len);
	mpt_put_u16(pkt + 4, 100);
	pkt[8] = 64;
	pkt[9] = 17;
	memcpy(pkt + 12, "\xc0\xa8\x01\x02\xc0\xa8\x01\x03", 8);
	mpt_put_u16(pkt + 20, 5000);
	mpt_put_u16(pkt + 22, 6000);
	mpt_put_u16(pkt + 24, (uint16_t)(len - 20));
	for (size_t i = 0; i < n; i++)
		pkt[28 + i] = payload_byte(i);
	assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, MTU, &why), 0);
	assert_int_equal(g.nsegs, 3);
	for (uint32_t i = 0; i < 3; i++) {
		size_t plen = i < 2 ? SEG : 77;
		uint32_t seglen = mpt_gso_segment(&g, i, out);

		assert_int_equal(seglen, 28 + plen);
		assert_int_equal(mpt_get_u16(out + 2), seglen);
		assert_int_equal(mpt_get_u16(out + 4), 100 + i);
		assert_int_equal(csumtest_sum(out, 20), 0xffff);
		assert_int_equal(mpt_get_u16(out + 24), 8 + plen);
		assert_int_not_equal(mpt_get_u16(out + 26), 0);
		assert_int_equal(csumtest_l4(out, seglen, 4, 20, 17), 0xffff);
		assert_memory_equal(out + 28, pkt + 28 + i * SEG, plen);
	}
}

/* No GSO: a partial checksum is finished (TCP over IPv6, odd length), or the packet is
 * copied as it is. */
static void test_complete_csum(void **state)
{
	static uint8_t pkt[MTU], out[MTU];
	struct mpt_vnet_hdr vh = { .flags = MPT_VNET_F_NEEDS_CSUM, .csum_start = 40,
				   .csum_offset = 16 };
	size_t l4, len = build_tcp(pkt, 6, 301, 0x18, &l4);
	const char *why;
	struct mpt_gso g;

	(void)state;
	assert_int_not_equal(csumtest_l4(pkt, len, 6, l4, 6), 0xffff);	/* partial */
	assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, MTU, &why), 0);
	assert_int_equal(g.nsegs, 1);
	assert_int_equal(mpt_gso_segment(&g, 0, out), len);
	assert_int_equal(csumtest_l4(out, len, 6, l4, 6), 0xffff);
	assert_memory_equal(out, pkt, l4 + 16);
	assert_memory_equal(out + l4 + 18, pkt + l4 + 18, len - l4 - 18);

	vh.flags = 0;
	assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, MTU, &why), 0);
	assert_int_equal(mpt_gso_segment(&g, 0, out), len);
	assert_memory_equal(out, pkt, len);
}

struct bad_case {
	const char *name;
	uint8_t gso_type, flags;
	uint16_t gso_size, csum_start, csum_offset;
	int v;
	size_t n;		/* payload */
	int poke_at, poke;	/* a byte changed, unless poke_at is -1 */
	uint32_t mtu;
};

static void test_refused(void **state)
{
	static const struct bad_case cases[] = {
		{ "UFO", 3, 1, SEG, 20, 6, 4, 3000, -1, 0, MTU },
		{ "unknown type", 9, 1, SEG, 20, 16, 4, 3000, -1, 0, MTU },
		{ "no segment size", MPT_VNET_GSO_TCPV4, 1, 0, 20, 16, 4, 3000, -1, 0, MTU },
		{ "segment over MTU", MPT_VNET_GSO_TCPV4, 1, SEG, 20, 16, 4, 3000, -1, 0, 1000 },
		{ "TCPV4 on IPv6", MPT_VNET_GSO_TCPV4, 1, SEG, 40, 16, 6, 3000, -1, 0, MTU },
		{ "TCPV6 on IPv4", MPT_VNET_GSO_TCPV6, 1, SEG, 20, 16, 4, 3000, -1, 0, MTU },
		{ "total length", MPT_VNET_GSO_TCPV4, 1, SEG, 20, 16, 4, 3000, 3, 1, MTU },
		{ "fragment", MPT_VNET_GSO_TCPV4, 1, SEG, 20, 16, 4, 3000, 6, 0x20, MTU },
		{ "not TCP", MPT_VNET_GSO_TCPV4, 1, SEG, 20, 16, 4, 3000, 9, 17, MTU },
		{ "IPv4 ihl", MPT_VNET_GSO_TCPV4, 1, SEG, 20, 16, 4, 3000, 0, 0x44, MTU },
		{ "TCP doff", MPT_VNET_GSO_TCPV4, 1, SEG, 20, 16, 4, 3000, 32, 0x40, MTU },
		{ "IPv6 ext header", MPT_VNET_GSO_TCPV6, 1, SEG, 40, 16, 6, 3000, 6, 0, MTU },
		{ "csum start", MPT_VNET_GSO_TCPV4, 1, SEG, 24, 16, 4, 3000, -1, 0, MTU },
		{ "csum outside", 0, 1, 0, 20, 2000, 4, 500, -1, 0, MTU },
		{ "csum odd", 0, 1, 0, 20, 15, 4, 500, -1, 0, MTU },
		{ "over MTU", 0, 0, 0, 0, 0, 4, 1200, -1, 0, MTU },
	};
	static uint8_t pkt[8192];

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct bad_case *c = &cases[k];
		struct mpt_vnet_hdr vh = { .flags = c->flags, .gso_type = c->gso_type,
					   .gso_size = c->gso_size,
					   .csum_start = c->csum_start,
					   .csum_offset = c->csum_offset };
		size_t l4, len = build_tcp(pkt, c->v, c->n, 0x10, &l4);
		const char *why = NULL;
		struct mpt_gso g;

		if (c->poke_at >= 0)
			pkt[c->poke_at] = (uint8_t)c->poke;
		print_message("%s\n", c->name);
		assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, c->mtu, &why),
				 -EINVAL);
		assert_non_null(why);
	}
	/* and the same packet untouched passes */
	{
		struct mpt_vnet_hdr vh = { .flags = 1, .gso_type = MPT_VNET_GSO_TCPV4,
					   .gso_size = SEG, .csum_start = 20, .csum_offset = 16 };
		size_t l4, len = build_tcp(pkt, 4, 3000, 0x10, &l4);
		const char *why;
		struct mpt_gso g;

		assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, MTU, &why), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4),
		cmocka_unit_test(test_tcp6),
		cmocka_unit_test(test_udp_l4),
		cmocka_unit_test(test_complete_csum),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
