// SPDX-License-Identifier: MIT
/*
 * Coalescing of TCP segments for the TUN (proto/gro.c). The round trip: a super-packet
 * cut by proto/gso and coalesced again gives the same bytes back with the virtio-net
 * header the kernel expects (GSO type, segment size, a partial checksum over the
 * pseudo-header), and cutting that again gives the same segments (IPv4 and IPv6, an
 * odd last segment, PSH on the last). Segments that must not join a run are refused:
 * out of order, another flow, a bad checksum, SYN, CE marked, a larger segment, after
 * a short one or PSH, a gap in IPv4 ids, UDP, pure ACKs. Checksums are verified by the
 * plain RFC 1071 sum of support/csumtest.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/wire.h>

#include "csumtest.h"
#include "gro.h"
#include "gso.h"

#define MTU	1500
#define SEG	1200

/* A TCP super-packet with timestamps (12 option bytes), flags ACK|PSH; its length. */
static size_t build(uint8_t *p, int v, size_t n)
{
	size_t ip = v == 4 ? 20 : 40, len = ip + 32 + n;
	uint8_t *t = p + ip;

	memset(p, 0, len);
	if (v == 4) {
		p[0] = 0x45;
		p[1] = 0x02;				/* ECT(0) */
		mpt_put_u16(p + 2, (uint16_t)len);
		mpt_put_u16(p + 4, 4242);
		p[6] = 0x40;
		p[8] = 63;
		p[9] = 6;
		memcpy(p + 12, "\x0a\x02\x00\x02\x0a\x63\x00\x02", 8);
		mpt_put_u16(p + 10, (uint16_t)~csumtest_sum(p, 20));
	} else {
		p[0] = 0x60;
		mpt_put_u16(p + 4, (uint16_t)(len - 40));
		p[6] = 6;
		p[7] = 63;
		for (int i = 0; i < 32; i++)
			p[8 + i] = (uint8_t)(0x20 + i * 7);
	}
	mpt_put_u16(t, 5201);
	mpt_put_u16(t + 2, 41000);
	mpt_put_u32(t + 4, 0xfffffe00u);
	mpt_put_u32(t + 8, 77);
	t[12] = 8 << 4;
	t[13] = 0x18;
	mpt_put_u16(t + 14, 1000);
	memcpy(t + 20, "\x01\x01\x08\x0a\x00\x00\x00\x05\x00\x00\x00\x09", 12);
	for (size_t i = 0; i < n; i++)
		t[32 + i] = (uint8_t)(i * 11 + 5);
	mpt_put_u16(t + 16, csumtest_fold(csumtest_pseudo(p, v, 6, (uint32_t)(len - ip))));
	return len;
}

struct segs {
	uint8_t pkt[64][MTU];
	uint32_t len[64];
	uint32_t n;
};

static void cut(const uint8_t *pkt, size_t len, int v, struct segs *s)
{
	struct mpt_vnet_hdr vh = { .flags = MPT_VNET_F_NEEDS_CSUM, .gso_size = SEG,
				   .gso_type = v == 4 ? MPT_VNET_GSO_TCPV4 : MPT_VNET_GSO_TCPV6,
				   .csum_start = v == 4 ? 20 : 40, .csum_offset = 16 };
	const char *why;
	struct mpt_gso g;

	assert_int_equal(mpt_gso_prepare(&g, &vh, pkt, (uint32_t)len, MTU, &why), 0);
	s->n = g.nsegs;
	for (uint32_t i = 0; i < g.nsegs; i++)
		s->len[i] = mpt_gso_segment(&g, i, s->pkt[i]);
}

static void round_trip(int v, size_t n)
{
	static uint8_t super[65536], buf[MPT_GRO_MAX];
	static struct segs a, b;
	struct mpt_gro g = { .buf = buf };
	struct mpt_vnet_hdr vh;
	size_t len = build(super, v, n), l4 = v == 4 ? 20 : 40;
	uint32_t out;

	cut(super, len, v, &a);
	assert_true(a.n > 1);
	assert_true(mpt_gro_start(&g, a.pkt[0], a.len[0]));
	for (uint32_t i = 1; i < a.n; i++)
		assert_true(mpt_gro_add(&g, a.pkt[i], a.len[i]));
	out = mpt_gro_finish(&g, &vh);
	assert_int_equal(out, len);
	assert_int_equal(g.len, 0);
	assert_int_equal(vh.flags, MPT_VNET_F_NEEDS_CSUM);
	assert_int_equal(vh.gso_type, v == 4 ? MPT_VNET_GSO_TCPV4 : MPT_VNET_GSO_TCPV6);
	assert_int_equal(vh.gso_size, SEG);
	assert_int_equal(vh.hdr_len, l4 + 32);
	assert_int_equal(vh.csum_start, l4);
	assert_int_equal(vh.csum_offset, 16);
	/* the same bytes as the super-packet that was cut, checksums aside */
	assert_memory_equal(buf, super, v == 4 ? 10 : l4);
	assert_memory_equal(buf + l4, super + l4, 16);
	assert_memory_equal(buf + l4 + 18, super + l4 + 18, len - l4 - 18);
	if (v == 4)
		assert_int_equal(csumtest_sum(buf, 20), 0xffff);
	assert_int_equal(mpt_get_u16(buf + l4 + 16),
			 csumtest_fold(csumtest_pseudo(buf, v, 6, (uint32_t)(len - l4))));
	/* and cut again: the same segments */
	cut(buf, out, v, &b);
	assert_int_equal(b.n, a.n);
	for (uint32_t i = 0; i < a.n; i++) {
		assert_int_equal(b.len[i], a.len[i]);
		assert_memory_equal(b.pkt[i], a.pkt[i], a.len[i]);
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	round_trip(4, 10 * SEG + 333);
	round_trip(4, 40 * SEG);
	round_trip(6, 3 * SEG + 1);
	round_trip(6, 65535 - 100 - 2 * SEG);
}

/* A run of segs 0..k-1 of a fresh super-packet; then pkt is offered. */
static bool offer_after(int k, const uint8_t *pkt, uint32_t len, const struct segs *s)
{
	static uint8_t buf[MPT_GRO_MAX];
	struct mpt_gro g = { .buf = buf };
	bool ok = mpt_gro_start(&g, s->pkt[0], s->len[0]);

	for (int i = 1; ok && i < k; i++)
		ok = mpt_gro_add(&g, s->pkt[i], s->len[i]);
	assert_true(ok);
	return mpt_gro_add(&g, pkt, len);
}

static void test_refused(void **state)
{
	static uint8_t super[65536], p[MTU], buf[MPT_GRO_MAX];
	static struct segs s;
	struct mpt_gro g = { .buf = buf };
	struct mpt_vnet_hdr vh;
	size_t len = build(super, 4, 5 * SEG + 100);

	(void)state;
	cut(super, len, 4, &s);
	assert_true(offer_after(1, s.pkt[1], s.len[1], &s));	/* the control */
	assert_false(offer_after(1, s.pkt[2], s.len[2], &s));	/* out of order */
	assert_false(offer_after(2, s.pkt[1], s.len[1], &s));	/* a duplicate */
	memcpy(p, s.pkt[1], s.len[1]);
	p[20] ^= 1;						/* another flow */
	assert_false(offer_after(1, p, s.len[1], &s));
	memcpy(p, s.pkt[1], s.len[1]);
	p[100] ^= 0x40;						/* a bad checksum */
	assert_false(offer_after(1, p, s.len[1], &s));
	assert_false(mpt_gro_start(&g, p, s.len[1]));
	memcpy(p, s.pkt[1], s.len[1]);
	p[1] = 0x03;						/* CE marked */
	mpt_put_u16(p + 10, 0);
	mpt_put_u16(p + 10, (uint16_t)~csumtest_sum(p, 20));
	assert_false(offer_after(1, p, s.len[1], &s));
	memcpy(p, s.pkt[1], s.len[1]);
	mpt_put_u16(p + 4, 9);					/* an IPv4 id gap */
	mpt_put_u16(p + 10, 0);
	mpt_put_u16(p + 10, (uint16_t)~csumtest_sum(p, 20));
	assert_false(offer_after(1, p, s.len[1], &s));
	/* after the short last segment (PSH), nothing joins */
	assert_false(offer_after(6, s.pkt[5], s.len[5], &s));
	/* a run that starts short takes no larger segment */
	assert_true(mpt_gro_start(&g, s.pkt[5], s.len[5]));
	assert_false(mpt_gro_add(&g, s.pkt[4], s.len[4]));
	assert_int_equal(mpt_gro_finish(&g, &vh), s.len[5]);	/* one segment: as is */
	assert_int_equal(vh.gso_type, 0);
	assert_int_equal(vh.flags, 0);
	assert_memory_equal(buf, s.pkt[5], s.len[5]);
	/* what never starts a run: SYN, a pure ACK, UDP */
	memcpy(p, s.pkt[0], s.len[0]);
	p[33] = 0x12;
	assert_false(mpt_gro_start(&g, p, s.len[0]));
	memcpy(p, s.pkt[0], 52);
	mpt_put_u16(p + 2, 52);
	assert_false(mpt_gro_start(&g, p, 52));
	memcpy(p, s.pkt[0], s.len[0]);
	p[9] = 17;
	assert_false(mpt_gro_start(&g, p, s.len[0]));
	assert_int_equal(g.len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
