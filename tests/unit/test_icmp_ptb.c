// SPDX-License-Identifier: MIT
/*
 * The ICMP "packet too big" the tunnel writes into its TUN for an inner packet no path
 * carries: IPv4 fragmentation needed with the MTU (RFC 1191), ICMPv6 packet too big
 * (RFC 4443), addresses swapped, checksums right, the quote bounded; none for IPv4
 * without DF, for ICMP errors, for multicast. And the exact tunnel overhead: a full
 * inner packet with the largest ACK the code can build stays within the path's size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/wire.h>

#include "csumtest.h"
#include "icmp_ptb.h"

static size_t tcp4(uint8_t *p, size_t len, bool df)
{
	memset(p, 0xab, len);
	p[0] = 0x45;
	mpt_put_u16(p + 2, (uint16_t)len);
	p[6] = df ? 0x40 : 0;
	p[7] = 0;
	p[9] = 6;
	memcpy(p + 12, (uint8_t[]){ 10, 9, 0, 2 }, 4);
	memcpy(p + 16, (uint8_t[]){ 192, 0, 2, 7 }, 4);
	return len;
}

static void test_ipv4_frag_needed(void **state)
{
	uint8_t pkt[1400], out[MPT_ICMP_PTB_MAX];
	size_t n;

	tcp4(pkt, sizeof(pkt), true);
	n = mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1209);
	assert_int_equal(n, 576);			/* RFC 1812: at most 576 */
	assert_int_equal(out[0], 0x45);
	assert_int_equal(mpt_get_u16(out + 2), 576);
	assert_int_equal(out[9], 1);
	assert_memory_equal(out + 12, pkt + 16, 4);	/* from the destination */
	assert_memory_equal(out + 16, pkt + 12, 4);	/* to the source */
	assert_int_equal(csumtest_sum(out, 20), 0xffff);
	assert_int_equal(out[20], 3);
	assert_int_equal(out[21], 4);
	assert_int_equal(mpt_get_u16(out + 26), 1209);
	assert_int_equal(csumtest_sum(out + 20, n - 20), 0xffff);
	assert_memory_equal(out + 28, pkt, n - 28);	/* the quote */
}

static void test_ipv4_without_df_and_errors(void **state)
{
	uint8_t pkt[1400], out[MPT_ICMP_PTB_MAX];

	tcp4(pkt, sizeof(pkt), false);
	assert_int_equal(mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1200), 0);
	assert_false(mpt_ip_dont_fragment(pkt, sizeof(pkt)));
	tcp4(pkt, sizeof(pkt), true);
	pkt[9] = 1;					/* ICMP ... */
	pkt[20] = 3;					/* ... an error itself */
	assert_int_equal(mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1200), 0);
	pkt[20] = 8;					/* an echo request: yes */
	assert_true(mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1200) > 0);
	pkt[16] = 239;					/* multicast */
	assert_int_equal(mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1200), 0);
	assert_int_equal(mpt_icmp_ptb_build(out, sizeof(out), pkt, 10, 1200), 0);
}

static void test_ipv6_packet_too_big(void **state)
{
	uint8_t pkt[1409], out[MPT_ICMP_PTB_MAX];
	size_t n;

	memset(pkt, 0x5a, sizeof(pkt));
	pkt[0] = 0x60;
	mpt_put_u16(pkt + 4, sizeof(pkt) - 40);
	pkt[6] = 6;
	memset(pkt + 8, 0x20, 16);
	memset(pkt + 24, 0x30, 16);
	n = mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1341);
	assert_int_equal(n, 1280);			/* RFC 4443: at most 1280 */
	assert_int_equal(out[0] >> 4, 6);
	assert_int_equal(mpt_get_u16(out + 4), 1280 - 40);
	assert_int_equal(out[6], 58);
	assert_memory_equal(out + 8, pkt + 24, 16);
	assert_memory_equal(out + 24, pkt + 8, 16);
	assert_int_equal(out[40], 2);
	assert_int_equal(mpt_get_u32(out + 44), 1341);
	assert_int_equal(csumtest_l4(out, n, 6, 40, 58), 0xffff);
	/* an MTU below the IPv6 minimum is announced as 1280 */
	n = mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1100);
	assert_int_equal(mpt_get_u32(out + 44), 1280);
	pkt[24] = 0xff;					/* multicast */
	assert_int_equal(mpt_icmp_ptb_build(out, sizeof(out), pkt, sizeof(pkt), 1300), 0);
}

/* A full inner packet (OuterMTU 1500 less the 91-byte overhead) fits a 1500 IPv6 path
 * exactly; even a one-range ACK does not fit beside it, so the sender's bound
 * (session_tx.c: the ACK rides only where it fits) is what keeps the datagram at the
 * path's size. That bound is exercised by test_pmtu.sh: no EMSGSIZE on a 1500 path
 * under traffic both ways. */
static void test_exact_overhead(void **state)
{
	size_t inner = 1500 - 40 - 8 - MPT_WIRE_DATA_OVERHEAD;
	size_t dgram = MPT_WIRE_HDR_LEN + MPT_FRAME_HDR_LEN + MPT_DATA_HDR_LEN + inner +
		       MPT_WIRE_TAG_LEN;

	assert_int_equal(inner, 1409);
	assert_int_equal(dgram + 40 + 8, 1500);
	assert_true(dgram + MPT_FRAME_HDR_LEN + MPT_ACK_LEN(1) > 1500 - 48);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_frag_needed),
		cmocka_unit_test(test_ipv4_without_df_and_errors),
		cmocka_unit_test(test_ipv6_packet_too_big),
		cmocka_unit_test(test_exact_overhead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
