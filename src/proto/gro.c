// SPDX-License-Identifier: MIT
/* Coalescing of TCP segments written to the TUN: see gro.h. */
#include <netinet/in.h>
#include <string.h>

#include <mptund/wire.h>

#include "csum.h"
#include "gro.h"

#define TCP_ACK	0x10
#define TCP_PSH	0x08

/* The IP and TCP headers of pkt, if it is a TCP segment with payload, flags ACK and
 * maybe PSH, no IPv4 options or fragments, no IPv6 extension headers: its family
 * (4 or 6), *l4 and *hlen set; else 0. */
static uint8_t tcp_headers(const uint8_t *pkt, uint32_t len, uint16_t *l4, uint16_t *hlen)
{
	uint8_t family = len ? pkt[0] >> 4 : 0;
	uint32_t t, h;

	if (family == 4) {
		if (len < 40 || pkt[0] != 0x45 || pkt[9] != IPPROTO_TCP ||
		    (mpt_get_u16(pkt + 6) & 0x3fff) || mpt_get_u16(pkt + 2) != len)
			return 0;
		t = 20;
	} else if (family == 6) {
		if (len < 60 || pkt[6] != IPPROTO_TCP || mpt_get_u16(pkt + 4) + 40u != len)
			return 0;
		t = 40;
	} else {
		return 0;
	}
	h = t + (uint32_t)(pkt[t + 12] >> 4) * 4;
	if (h < t + 20 || h >= len || (pkt[t + 13] & (uint8_t)~TCP_PSH) != TCP_ACK)
		return 0;
	*l4 = (uint16_t)t;
	*hlen = (uint16_t)h;
	return family;
}

/* pkt continues the run's headers (all but lengths, id, checksums, seq, PSH). */
static bool same_headers(const struct mpt_gro *g, const uint8_t *pkt)
{
	const uint8_t *a = g->buf, *t = g->buf + g->l4, *u = pkt + g->l4;

	if (g->family == 4) {
		if (memcmp(a, pkt, 2) || memcmp(a + 6, pkt + 6, 4) ||
		    memcmp(a + 12, pkt + 12, 8) || mpt_get_u16(pkt + 4) != g->next_id)
			return false;
	} else if (memcmp(a, pkt, 4) || memcmp(a + 6, pkt + 6, 34)) {
		return false;
	}
	return !memcmp(t, u, 4) && !memcmp(t + 8, u + 8, 5) && (u[13] & TCP_ACK) &&
	       !memcmp(t + 14, u + 14, 2) && !memcmp(t + 18, u + 18, g->hlen - g->l4 - 18u) &&
	       mpt_get_u32(u + 4) == g->next_seq;
}

/* Copy pkt's payload behind the run's at dst, summing its TCP checksum: true if right. */
static bool copy_checked(const uint8_t *pkt, uint32_t len, uint8_t family, uint16_t l4,
			 uint16_t hlen, uint8_t *dst)
{
	uint64_t acc = mpt_csum_pseudo(pkt, family, IPPROTO_TCP, len - l4);

	acc = mpt_csum_copy(NULL, pkt + l4, hlen - l4, acc);
	acc = mpt_csum_copy(dst, pkt + hlen, len - hlen, acc);
	return mpt_csum_fold16(acc) == 0xffff;
}

bool mpt_gro_add(struct mpt_gro *g, const uint8_t *pkt, uint32_t len)
{
	uint16_t l4, hlen;
	uint32_t plen;

	if (!g->len || g->closed || tcp_headers(pkt, len, &l4, &hlen) != g->family ||
	    l4 != g->l4 || hlen != g->hlen)
		return false;
	plen = len - hlen;
	if (plen > g->seg || g->len + plen > MPT_GRO_MAX || !same_headers(g, pkt))
		return false;
	if (!copy_checked(pkt, len, g->family, l4, hlen, g->buf + g->len))
		return false;
	g->len += plen;
	g->nsegs++;
	g->next_seq += plen;
	g->next_id++;
	if (plen < g->seg || (pkt[l4 + 13] & TCP_PSH)) {
		g->buf[l4 + 13] |= pkt[l4 + 13] & TCP_PSH;
		g->closed = true;
	}
	return true;
}

bool mpt_gro_start(struct mpt_gro *g, const uint8_t *pkt, uint32_t len)
{
	uint16_t l4, hlen;
	uint8_t family = tcp_headers(pkt, len, &l4, &hlen);

	if (!family)
		return false;
	memcpy(g->buf, pkt, hlen);
	if (!copy_checked(pkt, len, family, l4, hlen, g->buf + hlen))
		return false;
	g->family = family;
	g->l4 = l4;
	g->hlen = hlen;
	g->len = len;
	g->nsegs = 1;
	g->seg = (uint16_t)(len - hlen);
	g->next_seq = mpt_get_u32(pkt + l4 + 4) + g->seg;
	g->next_id = family == 4 ? (uint16_t)(mpt_get_u16(pkt + 4) + 1) : 0;
	g->closed = (pkt[l4 + 13] & TCP_PSH) != 0;
	return true;
}

uint32_t mpt_gro_finish(struct mpt_gro *g, struct mpt_vnet_hdr *vh)
{
	uint32_t len = g->len;
	uint8_t *p = g->buf;

	memset(vh, 0, sizeof(*vh));
	g->len = 0;
	if (g->nsegs < 2)
		return len;
	if (g->family == 4) {
		mpt_put_u16(p + 2, (uint16_t)len);
		p[10] = p[11] = 0;
		mpt_put_u16(p + 10, (uint16_t)~mpt_csum_fold16(mpt_csum_copy(NULL, p, 20, 0)));
	} else {
		mpt_put_u16(p + 4, (uint16_t)(len - 40));
	}
	/* NEEDS_CSUM: the field holds the pseudo-header's sum, the kernel does the rest */
	mpt_put_u16(p + g->l4 + 16,
		    mpt_csum_fold16(mpt_csum_pseudo(p, g->family, IPPROTO_TCP, len - g->l4)));
	vh->flags = MPT_VNET_F_NEEDS_CSUM;
	vh->gso_type = g->family == 4 ? MPT_VNET_GSO_TCPV4 : MPT_VNET_GSO_TCPV6;
	vh->hdr_len = g->hlen;
	vh->gso_size = g->seg;
	vh->csum_start = g->l4;
	vh->csum_offset = 16;
	return len;
}
