// SPDX-License-Identifier: MIT
/* TCP MSS clamping of SYNs: IPv4 and IPv6, the checksum stays valid, non-SYNs, smaller
 * MSS, fragments, malformed options and non-TCP are left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/wire.h>

#include "csumtest.h"
#include "mss_clamp.h"

/* TCP checksum over the IPv4 pseudo-header: 0xffff when right. */
static uint16_t check4(const uint8_t *pkt, size_t len)
{
	return csumtest_l4(pkt, len, 4, 20, 6);
}

static uint16_t check6(const uint8_t *pkt, size_t len)
{
	return csumtest_l4(pkt, len, 6, 40, 6);
}

/* A SYN with options: nop, nop, sackok, mss (last, to walk the list), wscale. */
static size_t syn4(uint8_t *p, uint16_t mss)
{
	static const uint8_t opts[] = { 1, 1, 4, 2, 2, 4, 0, 0, 3, 3, 7, 0 };
	size_t len = 20 + 20 + sizeof(opts);

	memset(p, 0, len);
	p[0] = 0x45;
	mpt_put_u16(p + 2, (uint16_t)len);
	p[6] = 0x40;
	p[8] = 64;
	p[9] = 6;
	memcpy(p + 12, (uint8_t[]){ 10, 99, 0, 2, 10, 2, 0, 2 }, 8);
	mpt_put_u16(p + 20, 40000);
	mpt_put_u16(p + 22, 5201);
	p[32] = (uint8_t)((20 + sizeof(opts)) / 4) << 4;
	p[33] = 0x02;
	memcpy(p + 40, opts, sizeof(opts));
	mpt_put_u16(p + 40 + 6, mss);
	mpt_put_u16(p + 36, (uint16_t)~check4(p, len));
	return len;
}

static void test_ipv4_syn(void **state)
{
	uint8_t p[128];
	size_t len = syn4(p, 1460);

	assert_int_equal(check4(p, len), 0xffff);
	assert_true(mpt_mss_clamp(p, len, 1209));
	assert_int_equal(mpt_get_u16(p + 46), 1169);
	assert_int_equal(check4(p, len), 0xffff);
	assert_false(mpt_mss_clamp(p, len, 1209));	/* already small enough */
	assert_false(mpt_mss_clamp(p, len, 1409));	/* never raised */
	assert_int_equal(mpt_get_u16(p + 46), 1169);
}

static void test_left_alone(void **state)
{
	uint8_t p[128], q[128];
	size_t len = syn4(p, 1460);

	memcpy(q, p, len);
	p[33] = 0x10;					/* an ACK, not a SYN */
	assert_false(mpt_mss_clamp(p, len, 1209));
	memcpy(p, q, len);
	p[7] = 1;					/* a fragment */
	assert_false(mpt_mss_clamp(p, len, 1209));
	memcpy(p, q, len);
	p[9] = 17;					/* UDP */
	assert_false(mpt_mss_clamp(p, len, 1209));
	memcpy(p, q, len);
	p[43] = 40;					/* option length runs past */
	assert_false(mpt_mss_clamp(p, len, 1209));
	memcpy(p, q, len);
	assert_false(mpt_mss_clamp(p, 30, 1209));	/* truncated */
	assert_false(mpt_mss_clamp(p, len, 500));	/* absurd MTU */
}

static void test_ipv6_syn(void **state)
{
	uint8_t p[128];
	size_t len = 40 + 24;

	memset(p, 0, len);
	p[0] = 0x60;
	mpt_put_u16(p + 4, 24);
	p[6] = 6;
	p[7] = 64;
	memset(p + 8, 0x11, 16);
	memset(p + 24, 0x22, 16);
	p[40 + 12] = 6 << 4;
	p[40 + 13] = 0x12;				/* SYN-ACK */
	p[60] = 2;
	p[61] = 4;
	mpt_put_u16(p + 62, 1440);
	mpt_put_u16(p + 56, (uint16_t)~check6(p, len));
	assert_int_equal(check6(p, len), 0xffff);
	assert_true(mpt_mss_clamp(p, len, 1289));
	assert_int_equal(mpt_get_u16(p + 62), 1229);
	assert_int_equal(check6(p, len), 0xffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_syn),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_ipv6_syn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
