// SPDX-License-Identifier: MIT
/* Segmentation of the TUN's super-packets and checksum completion: see gso.h. */
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include <mptund/wire.h>

#include "csum.h"
#include "gso.h"

#define TCP_FIN	0x01
#define TCP_PSH	0x08
#define TCP_CWR	0x80

/* What goes on the wire: the folded sum, complemented. */
static uint16_t csum_fold(uint64_t acc)
{
	return (uint16_t)~mpt_csum_fold16(acc);
}

static int fail(const char **why, const char *what)
{
	*why = what;
	return -EINVAL;
}

/* One packet, no segmenting: in bounds, and where its partial checksum goes. */
static int prepare_one(struct mpt_gso *g, const struct mpt_vnet_hdr *vh, uint32_t mtu,
		       const char **why)
{
	if (g->len > mtu)
		return fail(why, "packet larger than the MTU");
	if (!(vh->flags & MPT_VNET_F_NEEDS_CSUM))
		return 0;
	if (vh->csum_start >= g->len || (uint32_t)vh->csum_start + vh->csum_offset + 2 > g->len)
		return fail(why, "checksum position outside the packet");
	if (vh->csum_offset & 1)
		return fail(why, "checksum field at an odd offset");
	g->needs_csum = 1;
	g->csum_start = vh->csum_start;
	g->csum_pos = (uint16_t)(vh->csum_start + vh->csum_offset);
	return 0;
}

/* The IP header of a super-packet: version, length, protocol; sets g->l4. */
static int prepare_ip(struct mpt_gso *g, const char **why)
{
	const uint8_t *p = g->pkt;

	if (g->len < 20 || (p[0] >> 4) != g->family)
		return fail(why, "IP version disagrees with the GSO type");
	if (g->family == 4) {
		uint32_t ihl = (uint32_t)(p[0] & 15) * 4;

		if (ihl < 20 || ihl > g->len)
			return fail(why, "bad IPv4 header length");
		if (mpt_get_u16(p + 2) != g->len)
			return fail(why, "IPv4 total length disagrees with the packet");
		if (mpt_get_u16(p + 6) & 0x3fff)
			return fail(why, "IPv4 fragment");
		if (p[9] != g->proto)
			return fail(why, "IPv4 protocol disagrees with the GSO type");
		g->l4 = (uint16_t)ihl;
		return 0;
	}
	if (g->len < 40 || mpt_get_u16(p + 4) + 40u != g->len)
		return fail(why, "IPv6 payload length disagrees with the packet");
	if (p[6] != g->proto)
		return fail(why, "IPv6 extension headers or protocol not of the GSO type");
	g->l4 = 40;
	return 0;
}

static int prepare_gso(struct mpt_gso *g, const struct mpt_vnet_hdr *vh, uint32_t mtu,
		       const char **why)
{
	uint32_t hlen;
	int ret;

	switch (g->gso) {
	case MPT_VNET_GSO_TCPV4: g->family = 4; g->proto = IPPROTO_TCP; break;
	case MPT_VNET_GSO_TCPV6: g->family = 6; g->proto = IPPROTO_TCP; break;
	case MPT_VNET_GSO_UDP_L4:
		g->family = g->len ? g->pkt[0] >> 4 : 0;
		g->proto = IPPROTO_UDP;
		break;
	default:
		return fail(why, "unknown GSO type");
	}
	if ((ret = prepare_ip(g, why)) < 0)
		return ret;
	if (g->proto == IPPROTO_TCP) {
		if (g->len < g->l4 + 20u)
			return fail(why, "truncated TCP header");
		hlen = g->l4 + (uint32_t)(g->pkt[g->l4 + 12] >> 4) * 4;
		if (hlen < g->l4 + 20u || hlen > g->len)
			return fail(why, "bad TCP header length");
	} else {
		hlen = g->l4 + 8u;
		if (hlen > g->len)
			return fail(why, "truncated UDP header");
	}
	if ((vh->flags & MPT_VNET_F_NEEDS_CSUM) && vh->csum_start != g->l4)
		return fail(why, "checksum start disagrees with the headers");
	if (!vh->gso_size)
		return fail(why, "GSO without a segment size");
	if (hlen + vh->gso_size > mtu)
		return fail(why, "segment larger than the MTU");
	g->hlen = (uint16_t)hlen;
	g->seg = vh->gso_size;
	g->nsegs = (g->len - hlen + g->seg - 1) / g->seg;
	if (!g->nsegs)
		g->nsegs = 1;
	return 0;
}

int mpt_gso_prepare(struct mpt_gso *g, const struct mpt_vnet_hdr *vh, const uint8_t *pkt,
		    uint32_t len, uint32_t mtu, const char **why)
{
	memset(g, 0, sizeof(*g));
	g->pkt = pkt;
	g->len = len;
	g->nsegs = 1;
	g->gso = vh->gso_type & (uint8_t)~MPT_VNET_GSO_ECN;
	if (g->gso == MPT_VNET_GSO_NONE)
		return prepare_one(g, vh, mtu, why);
	if (len > 65535)
		return fail(why, "super-packet over 64 KiB");
	return prepare_gso(g, vh, mtu, why);
}

/* The IP header of segment i of seglen bytes, in out. */
static void segment_ip(const struct mpt_gso *g, uint32_t i, uint8_t *out, uint32_t seglen)
{
	if (g->family == 6) {
		mpt_put_u16(out + 4, (uint16_t)(seglen - 40));
		return;
	}
	mpt_put_u16(out + 2, (uint16_t)seglen);
	mpt_put_u16(out + 4, (uint16_t)(mpt_get_u16(g->pkt + 4) + i));
	out[10] = out[11] = 0;
	mpt_put_u16(out + 10, csum_fold(mpt_csum_copy(NULL, out, g->l4, 0)));
}

static uint32_t segment_gso(const struct mpt_gso *g, uint32_t i, uint8_t *out)
{
	uint32_t off = g->hlen + i * g->seg;
	uint32_t plen = g->len - off < g->seg ? g->len - off : g->seg;
	uint32_t seglen = g->hlen + plen;
	uint8_t *l4 = out + g->l4;
	unsigned pos = 6;			/* UDP checksum */
	uint64_t acc;
	uint16_t c;

	memcpy(out, g->pkt, g->hlen);
	segment_ip(g, i, out, seglen);
	if (g->proto == IPPROTO_TCP) {
		mpt_put_u32(l4 + 4, mpt_get_u32(l4 + 4) + i * g->seg);
		if (i + 1 < g->nsegs)
			l4[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
		if (i)
			l4[13] &= (uint8_t)~TCP_CWR;
		pos = 16;
	} else {
		mpt_put_u16(l4 + 4, (uint16_t)(seglen - g->l4));
	}
	l4[pos] = l4[pos + 1] = 0;
	acc = mpt_csum_pseudo(out, g->family, g->proto, seglen - g->l4);
	acc = mpt_csum_copy(NULL, l4, g->hlen - g->l4, acc);
	acc = mpt_csum_copy(out + g->hlen, g->pkt + off, plen, acc);
	c = csum_fold(acc);
	if (!c && g->proto == IPPROTO_UDP)
		c = 0xffff;			/* 0 means "no checksum" in UDP */
	mpt_put_u16(l4 + pos, c);
	return seglen;
}

uint32_t mpt_gso_segment(const struct mpt_gso *g, uint32_t i, uint8_t *out)
{
	uint16_t c;

	if (g->gso != MPT_VNET_GSO_NONE)
		return segment_gso(g, i, out);
	if (!g->needs_csum) {
		memcpy(out, g->pkt, g->len);
		return g->len;
	}
	/* the field holds the pseudo-header's sum: sum on from csum_start over it */
	memcpy(out, g->pkt, g->csum_start);
	c = csum_fold(mpt_csum_copy(out + g->csum_start, g->pkt + g->csum_start,
			       g->len - g->csum_start, 0));
	mpt_put_u16(out + g->csum_pos, c ? c : 0xffff);
	return g->len;
}
