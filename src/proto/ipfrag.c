// SPDX-License-Identifier: MIT
/* IPv4 fragmentation of inner packets: see ipfrag.h. */
#include <stdbool.h>
#include <string.h>

#include "ipfrag.h"

#define IP4_HDR		20
#define IP4_HDR_MAX	60
#define IP_DF		0x4000
#define IP_MF		0x2000
#define IP_OFFMASK	0x1fff

/* How a packet is cut: the headers and the data carried per fragment. */
struct frag_plan {
	size_t ihl, ihl2;		/* the first fragment's header, the others' */
	size_t payload;			/* data bytes of the packet */
	size_t first, other;		/* data bytes per fragment (multiples of 8) */
	size_t off0;			/* the packet's own offset (it may be a fragment) */
	bool mf0;			/* ... and its own More Fragments flag */
	uint8_t hdr2[IP4_HDR_MAX];	/* the header of every fragment but the first */
};

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned hdr_checksum(const uint8_t *h, size_t len)
{
	uint32_t acc = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)get16(h + i);
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return ~acc & 0xffff;
}

/*
 * The header of the fragments after the first: the fixed part and the options whose
 * copied flag (the type's top bit) is set (RFC 791 section 3.1, "Options"). False on
 * a malformed option list.
 */
static bool copied_options(const uint8_t *pkt, struct frag_plan *pl)
{
	size_t o = IP4_HDR, n = IP4_HDR;

	memcpy(pl->hdr2, pkt, IP4_HDR);
	while (o < pl->ihl && pkt[o] != 0) {	/* 0: End of Option List */
		size_t olen;

		if (pkt[o] == 1) {		/* No Operation: not copied */
			o++;
			continue;
		}
		if (o + 1 >= pl->ihl)
			return false;
		olen = pkt[o + 1];
		if (olen < 2 || o + olen > pl->ihl)
			return false;
		if (pkt[o] & 0x80) {
			memcpy(pl->hdr2 + n, pkt + o, olen);
			n += olen;
		}
		o += olen;
	}
	while (n & 3)
		pl->hdr2[n++] = 0;
	pl->ihl2 = n;
	return true;
}

static bool plan(const uint8_t *pkt, size_t len, size_t mtu, struct frag_plan *pl)
{
	size_t total;
	unsigned frag;

	if (len < IP4_HDR || pkt[0] >> 4 != 4 || mtu < MPT_IPFRAG_MIN_MTU)
		return false;
	pl->ihl = (size_t)(pkt[0] & 0x0f) * 4;
	total = get16(pkt + 2);
	frag = get16(pkt + 6);
	if (pl->ihl < IP4_HDR || total < pl->ihl || total > len || (frag & IP_DF) ||
	    total <= mtu)
		return false;
	pl->payload = total - pl->ihl;
	pl->off0 = (size_t)(frag & IP_OFFMASK) * 8;
	pl->mf0 = frag & IP_MF;
	if (pl->off0 + pl->payload > 0xffff || !copied_options(pkt, pl))
		return false;
	pl->first = (mtu - pl->ihl) & ~(size_t)7;
	pl->other = (mtu - pl->ihl2) & ~(size_t)7;
	return pl->first >= 8;
}

unsigned mpt_ipv4_frag_count(const uint8_t *pkt, size_t len, size_t mtu)
{
	struct frag_plan pl;

	if (!plan(pkt, len, mtu, &pl))
		return 0;
	return 1 + (unsigned)((pl.payload - pl.first + pl.other - 1) / pl.other);
}

size_t mpt_ipv4_frag_build(const uint8_t *pkt, size_t len, size_t mtu, unsigned i,
			   uint8_t *out, size_t cap)
{
	struct frag_plan pl;
	size_t start, size, h;
	unsigned n, frag;

	n = mpt_ipv4_frag_count(pkt, len, mtu);
	if (i >= n || cap < mtu || !plan(pkt, len, mtu, &pl))
		return 0;
	start = i ? pl.first + (size_t)(i - 1) * pl.other : 0;
	size = i ? pl.other : pl.first;
	if (start + size > pl.payload)
		size = pl.payload - start;
	h = i ? pl.ihl2 : pl.ihl;
	memcpy(out, i ? pl.hdr2 : pkt, h);
	out[0] = (uint8_t)(0x40 | h / 4);
	put16(out + 2, (unsigned)(h + size));
	frag = (unsigned)((pl.off0 + start) / 8);
	if (i + 1 < n || pl.mf0)
		frag |= IP_MF;
	put16(out + 6, frag | (get16(pkt + 6) & 0x8000));	/* the reserved bit as it was */
	put16(out + 10, 0);
	put16(out + 10, hdr_checksum(out, h));
	memcpy(out + h, pkt + pl.ihl + start, size);
	return h + size;
}
