// SPDX-License-Identifier: MIT
/*
 * IPv4 fragmentation of inner packets (RFC 791 3.2): the fragments put back together
 * by offset give the packet's data byte for byte, each fits the size asked, carries
 * 8-byte multiples but the last, a right header checksum (checked by an independent
 * sum), More Fragments on all but the last, the first all options and the others only
 * the copied ones; a packet that is itself a fragment keeps its offset and MF; no cut
 * for DF, IPv6, small or malformed packets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "csumtest.h"
#include "ipfrag.h"

static unsigned u16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* A UDP-in-IPv4 packet of len bytes with opt_len bytes of options, data 0, 1, 2... */
static size_t udp4(uint8_t *p, size_t len, const uint8_t *opts, size_t opt_len,
		   unsigned frag_field)
{
	size_t ihl = 20 + opt_len;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + 3);
	p[0] = (uint8_t)(0x40 | ihl / 4);
	p[1] = 0;
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
	p[4] = 0x12;
	p[5] = 0x34;
	p[6] = (uint8_t)(frag_field >> 8);
	p[7] = (uint8_t)frag_field;
	p[8] = 64;
	p[9] = 17;
	memcpy(p + 12, (uint8_t[]){ 10, 9, 0, 2, 10, 2, 0, 2 }, 8);
	if (opt_len)
		memcpy(p + 20, opts, opt_len);
	return len;
}

/* Cut pkt at mtu, check every fragment and put the data back together in out. */
static unsigned cut_and_join(const uint8_t *pkt, size_t len, size_t mtu, uint8_t *out,
			     size_t *data_len, size_t *last_end, bool *last_mf)
{
	unsigned n = mpt_ipv4_frag_count(pkt, len, mtu);
	size_t ihl = (size_t)(pkt[0] & 15) * 4, off0 = (u16(pkt + 6) & 0x1fff) * 8u;
	uint8_t f[2048];

	*data_len = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t flen = mpt_ipv4_frag_build(pkt, len, mtu, i, f, sizeof(f));
		size_t fihl = (size_t)(f[0] & 15) * 4, off = (u16(f + 6) & 0x1fff) * 8u;

		assert_true(flen > fihl);
		assert_true(flen <= mtu);
		assert_int_equal(u16(f + 2), flen);
		assert_int_equal(f[0] >> 4, 4);
		assert_int_equal(csumtest_sum(f, fihl), 0xffff);
		assert_memory_equal(f + 4, pkt + 4, 2);		/* one identification */
		assert_memory_equal(f + 8, pkt + 8, 2);		/* TTL, protocol */
		assert_memory_equal(f + 12, pkt + 12, 8);	/* addresses */
		assert_false(u16(f + 6) & 0x4000);
		if (i + 1 < n) {
			assert_true(u16(f + 6) & 0x2000);
			assert_int_equal((flen - fihl) % 8, 0);
		}
		if (i == 0)
			assert_memory_equal(f + 20, pkt + 20, ihl - 20);
		assert_true(off >= off0);
		memcpy(out + (off - off0), f + fihl, flen - fihl);
		*data_len += flen - fihl;
		*last_end = off + flen - fihl;
		*last_mf = u16(f + 6) & 0x2000;
	}
	return n;
}

static void test_cut_and_join(void **state)
{
	static const size_t sizes[] = { 1209, 1280, 1300, 1409, 1500, 3000, 9000 };
	static const size_t mtus[] = { 68, 576, 1200, 1209, 1280, 1401 };
	uint8_t pkt[9000], out[9000];

	(void)state;
	for (size_t a = 0; a < sizeof(sizes) / sizeof(sizes[0]); a++)
		for (size_t b = 0; b < sizeof(mtus) / sizeof(mtus[0]); b++) {
			size_t len = udp4(pkt, sizes[a], NULL, 0, 0), got, end;
			bool mf;
			unsigned n = cut_and_join(pkt, len, mtus[b], out, &got, &end, &mf);

			if (len <= mtus[b]) {
				assert_int_equal(n, 0);
				continue;
			}
			assert_int_equal(n, (len - 20 + ((mtus[b] - 20) & ~7u) - 1) /
					 ((mtus[b] - 20) & ~7u));
			assert_int_equal(got, len - 20);
			assert_int_equal(end, len - 20);
			assert_false(mf);
			assert_memory_equal(out, pkt + 20, len - 20);
		}
}

/* Options: record route (7, not copied) and a security-like option (130, copied). */
static void test_options(void **state)
{
	static const uint8_t opts[] = { 1, 7, 7, 4, 0, 0, 0, 0, 130, 4, 0xaa, 0xbb };
	uint8_t pkt[1500], f[1500], out[1500];
	size_t len = udp4(pkt, 1400, opts, sizeof(opts), 0), got, end, flen;
	bool mf;
	unsigned n = cut_and_join(pkt, len, 600, out, &got, &end, &mf);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(got, len - 32);
	assert_memory_equal(out, pkt + 32, len - 32);
	flen = mpt_ipv4_frag_build(pkt, len, 600, 0, f, sizeof(f));
	assert_int_equal(f[0] & 15, 8);				/* all options */
	assert_int_equal(flen, 32 + ((600 - 32) & ~7u));
	flen = mpt_ipv4_frag_build(pkt, len, 600, 1, f, sizeof(f));
	assert_int_equal(f[0] & 15, 6);				/* 130 only, padded */
	assert_memory_equal(f + 20, ((uint8_t[]){ 130, 4, 0xaa, 0xbb }), 4);
	assert_int_equal(flen, 24 + ((600 - 24) & ~7u));
}

/* A packet that is itself a middle fragment: offsets carry on, the last keeps MF. */
static void test_fragment_of_fragment(void **state)
{
	uint8_t pkt[1500], out[1500];
	size_t len = udp4(pkt, 1420, NULL, 0, 0x2000 | 100), got, end;
	bool mf;
	unsigned n = cut_and_join(pkt, len, 576, out, &got, &end, &mf);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(end, 800 + len - 20);
	assert_true(mf);
	assert_memory_equal(out, pkt + 20, len - 20);
}

static void test_not_cut(void **state)
{
	uint8_t pkt[1500], f[1500];
	size_t len = udp4(pkt, 1400, NULL, 0, 0x4000);

	(void)state;
	assert_int_equal(mpt_ipv4_frag_count(pkt, len, 1280), 0);	/* DF */
	udp4(pkt, 1400, NULL, 0, 0);
	assert_int_equal(mpt_ipv4_frag_count(pkt, len, 1400), 0);	/* fits */
	assert_int_equal(mpt_ipv4_frag_count(pkt, len, 67), 0);		/* too small */
	assert_int_equal(mpt_ipv4_frag_count(pkt, 1399, 1280), 0);	/* truncated */
	pkt[0] = 0x60;
	assert_int_equal(mpt_ipv4_frag_count(pkt, len, 1280), 0);	/* IPv6 */
	pkt[0] = 0x46;
	pkt[20] = 7;
	pkt[21] = 9;				/* an option running past the header */
	assert_int_equal(mpt_ipv4_frag_count(pkt, len, 1280), 0);
	udp4(pkt, 1400, NULL, 0, 0x1fff);	/* offset + data beyond 65535 */
	assert_int_equal(mpt_ipv4_frag_count(pkt, len, 1280), 0);
	udp4(pkt, 1400, NULL, 0, 0);
	assert_int_equal(mpt_ipv4_frag_build(pkt, len, 1280, 2, f, sizeof(f)), 0);
	assert_int_equal(mpt_ipv4_frag_build(pkt, len, 1280, 0, f, 1000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_and_join),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_fragment_of_fragment),
		cmocka_unit_test(test_not_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
