// SPDX-License-Identifier: MIT
/* ICMP "packet too big" for inner packets that fit no path: see icmp_ptb.h. */
#include <string.h>

#include <mptund/wire.h>

#include "icmp_ptb.h"

#define IP4_HDR		20
#define IP6_HDR		40
#define ICMP_HDR	8

static uint32_t sum16(uint32_t acc, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

int mpt_ip_dont_fragment(const uint8_t *pkt, size_t len)
{
	if (len >= IP4_HDR && pkt[0] >> 4 == 4)
		return (pkt[6] & 0x40) != 0;
	return len >= IP6_HDR && pkt[0] >> 4 == 6;
}

/* An ICMP error message itself, or to a group: no error about it. */
static int no_error_v4(const uint8_t *pkt, size_t len)
{
	size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;

	if (pkt[16] >= 224 || (pkt[16] == 255 && pkt[17] == 255 && pkt[18] == 255 &&
			       pkt[19] == 255))
		return 1;			/* multicast, broadcast */
	if (pkt[9] != 1 || ihl < IP4_HDR || len < ihl + 1)
		return 0;
	switch (pkt[ihl]) {			/* ICMP type: errors are 3, 4, 5, 11, 12 */
	case 3: case 4: case 5: case 11: case 12:
		return 1;
	default:
		return 0;
	}
}

static int no_error_v6(const uint8_t *pkt, size_t len)
{
	if (pkt[24] == 0xff)
		return 1;			/* multicast destination */
	return pkt[6] == 58 && len > IP6_HDR && pkt[IP6_HDR] < 128;	/* ICMPv6 error */
}

static size_t build_v4(uint8_t *out, size_t cap, const uint8_t *pkt, size_t len,
		       uint32_t mtu)
{
	size_t quote = len < 576 - IP4_HDR - ICMP_HDR ? len : 576 - IP4_HDR - ICMP_HDR;
	size_t total = IP4_HDR + ICMP_HDR + quote;
	uint8_t *icmp = out + IP4_HDR;

	if (cap < total)
		return 0;
	memset(out, 0, IP4_HDR + ICMP_HDR);
	out[0] = 0x45;
	mpt_put_u16(out + 2, (uint16_t)total);
	out[8] = 64;				/* TTL */
	out[9] = 1;				/* ICMP */
	memcpy(out + 12, pkt + 16, 4);		/* from the packet's destination */
	memcpy(out + 16, pkt + 12, 4);		/* to its source */
	mpt_put_u16(out + 10, fold(sum16(0, out, IP4_HDR)));
	icmp[0] = 3;				/* destination unreachable */
	icmp[1] = 4;				/* fragmentation needed and DF set */
	mpt_put_u16(icmp + 6, (uint16_t)(mtu > 0xffff ? 0xffff : mtu));	/* RFC 1191 */
	memcpy(icmp + ICMP_HDR, pkt, quote);
	mpt_put_u16(icmp + 2, fold(sum16(0, icmp, ICMP_HDR + quote)));
	return total;
}

static size_t build_v6(uint8_t *out, size_t cap, const uint8_t *pkt, size_t len,
		       uint32_t mtu)
{
	size_t quote = len < MPT_ICMP_PTB_MAX - IP6_HDR - ICMP_HDR ? len
			: MPT_ICMP_PTB_MAX - IP6_HDR - ICMP_HDR;
	size_t plen = ICMP_HDR + quote;
	uint8_t *icmp = out + IP6_HDR;
	uint32_t acc;

	if (cap < IP6_HDR + plen)
		return 0;
	memset(out, 0, IP6_HDR + ICMP_HDR);
	out[0] = 0x60;
	mpt_put_u16(out + 4, (uint16_t)plen);
	out[6] = 58;				/* ICMPv6 */
	out[7] = 64;				/* hop limit */
	memcpy(out + 8, pkt + 24, 16);		/* from the packet's destination */
	memcpy(out + 24, pkt + 8, 16);		/* to its source */
	icmp[0] = 2;				/* packet too big */
	mpt_put_u32(icmp + 4, mtu);
	memcpy(icmp + ICMP_HDR, pkt, quote);
	/* checksum over the pseudo-header (RFC 8200 8.1) and the message */
	acc = sum16(0, out + 8, 32);
	acc += (uint32_t)plen + 58;
	acc = sum16(acc, icmp, plen);
	mpt_put_u16(icmp + 2, fold(acc));
	return IP6_HDR + plen;
}

size_t mpt_icmp_ptb_build(uint8_t *out, size_t cap, const uint8_t *pkt, size_t len,
			  uint32_t mtu)
{
	if (len >= IP4_HDR && pkt[0] >> 4 == 4) {
		if (!mpt_ip_dont_fragment(pkt, len) || no_error_v4(pkt, len))
			return 0;
		return build_v4(out, cap, pkt, len, mtu < 68 ? 68 : mtu);
	}
	if (len >= IP6_HDR && pkt[0] >> 4 == 6) {
		if (no_error_v6(pkt, len))
			return 0;
		return build_v6(out, cap, pkt, len, mtu < 1280 ? 1280 : mtu);
	}
	return 0;
}
