// SPDX-License-Identifier: MIT
/*
 * Inner packet metadata; see pktmeta.h. Every read is checked against `end`, the
 * smaller of the buffer length and the IP header's own length field.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "pktmeta.h"

#define IPPROTO_UDPLITE_	136	/* not in every libc's netinet/in.h */
#define IPPROTO_MH_		135
#define IPPROTO_HIP_		139
#define IPPROTO_SHIM6_		140

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE_ ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_DCCP;
}

/* Smallest transport header that carries what we read or what the protocol needs. */
static size_t min_l4_len(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP: return 20;
	case IPPROTO_UDP: case IPPROTO_UDPLITE_: return 8;
	case IPPROTO_SCTP: case IPPROTO_DCCP: return 12;
	default: return 0;
	}
}

static int parse_l4(const uint8_t *p, size_t off, size_t end, struct mpt_pkt_info *out,
		    const char **why)
{
	uint8_t proto = out->meta.proto;

	if (out->fragment || !has_ports(proto))
		return 0;
	if (end - off < min_l4_len(proto)) {
		*why = "truncated transport header";
		return -EBADMSG;
	}
	if (proto == IPPROTO_TCP && ((p[off + 12] >> 4) < 5 ||
				     (size_t)(p[off + 12] >> 4) * 4 > end - off)) {
		*why = "bad TCP data offset";
		return -EBADMSG;
	}
	out->l4_offset = (uint16_t)off;
	out->sport = be16(p + off);
	out->dport = be16(p + off + 2);
	if (proto == IPPROTO_TCP) {	/* flags and sequence space for congestion signals */
		uint8_t flags = p[off + 13];

		out->meta.tcp_flags = flags;
		out->tcp_seq = (uint32_t)be16(p + off + 4) << 16 | be16(p + off + 6);
		out->tcp_len = (uint32_t)(end - off - (size_t)(p[off + 12] >> 4) * 4) +
			       !!(flags & 0x02) + !!(flags & 0x01);	/* SYN, FIN */
		out->meta.tcp_ack_only = !out->tcp_len && (flags & MPT_TCP_FLAG_ACK) &&
					 !(flags & MPT_TCP_FLAG_RST);
	}
	return 0;
}

static int parse_v4(const uint8_t *p, size_t len, struct mpt_pkt_info *out,
		    const char **why)
{
	size_t hl, tot;

	if (len < 20) {
		*why = "truncated IPv4 header";
		return -EBADMSG;
	}
	hl = (size_t)(p[0] & 0x0f) * 4;
	tot = be16(p + 2);
	if (hl < 20 || hl > len) {
		*why = "bad IPv4 header length";
		return -EBADMSG;
	}
	if (tot < hl || tot > len) {
		*why = "bad IPv4 total length";
		return -EBADMSG;
	}
	out->family = AF_INET;
	out->meta.dscp = p[1] >> 2;
	out->meta.ecn = p[1] & 3;
	out->meta.proto = p[9];
	out->fragment = (be16(p + 6) & 0x3fff) != 0;	/* MF or an offset */
	memcpy(out->src.bytes, p + 12, 4);
	memcpy(out->dst.bytes, p + 16, 4);
	return parse_l4(p, hl, tot, out, why);
}

static int parse_v6(const uint8_t *p, size_t len, struct mpt_pkt_info *out,
		    const char **why)
{
	size_t off = 40, end;
	uint8_t nh;

	if (len < 40) {
		*why = "truncated IPv6 header";
		return -EBADMSG;
	}
	end = 40 + (size_t)be16(p + 4);
	if (end > len) {
		*why = "bad IPv6 payload length";
		return -EBADMSG;
	}
	out->family = AF_INET6;
	out->meta.dscp = (uint8_t)(((p[0] & 0x0f) << 2) | (p[1] >> 6));
	out->meta.ecn = (p[1] >> 4) & 3;
	memcpy(out->src.bytes, p + 8, 16);
	memcpy(out->dst.bytes, p + 24, 16);
	nh = p[6];

	for (unsigned n = 0;; n++) {
		size_t hlen;

		switch (nh) {
		case IPPROTO_HOPOPTS: case IPPROTO_ROUTING: case IPPROTO_DSTOPTS:
		case IPPROTO_MH_: case IPPROTO_HIP_: case IPPROTO_SHIM6_:
			if (end - off < 8)
				goto truncated;
			hlen = ((size_t)p[off + 1] + 1) * 8;
			break;
		case IPPROTO_AH:
			if (end - off < 8)
				goto truncated;
			hlen = ((size_t)p[off + 1] + 2) * 4;
			break;
		case IPPROTO_FRAGMENT:
			if (end - off < 8)
				goto truncated;
			hlen = 8;
			out->fragment = true;
			if (be16(p + off + 2) & 0xfff8) {
				/* not the first fragment: no further headers here */
				out->meta.proto = p[off];
				return 0;
			}
			break;
		default:
			out->meta.proto = nh;
			return parse_l4(p, off, end, out, why);
		}
		if (n >= MPT_PKTMETA_MAX_EXTHDRS) {
			*why = "too many IPv6 extension headers";
			return -EBADMSG;
		}
		if (hlen > end - off)
			goto truncated;
		nh = p[off];
		off += hlen;
	}
truncated:
	*why = "truncated IPv6 extension header";
	return -EBADMSG;
}

static uint32_t flow_hash(const struct mpt_siphash_key *key, const struct mpt_pkt_info *in)
{
	uint8_t buf[2 + 32 + 4];
	size_t alen = in->family == AF_INET ? 4 : 16, n = 0;
	uint64_t h;

	buf[n++] = (uint8_t)in->family;
	buf[n++] = in->fragment ? 0 : in->meta.proto;
	memcpy(buf + n, in->src.bytes, alen);
	n += alen;
	memcpy(buf + n, in->dst.bytes, alen);
	n += alen;
	if (!in->fragment && in->l4_offset) {
		buf[n++] = (uint8_t)(in->sport >> 8);
		buf[n++] = (uint8_t)in->sport;
		buf[n++] = (uint8_t)(in->dport >> 8);
		buf[n++] = (uint8_t)in->dport;
	}
	h = mpt_siphash24(key, buf, n);
	h ^= h >> 32;
	return (uint32_t)h ? (uint32_t)h : 1;
}

int mpt_pktmeta_parse(const struct mpt_siphash_key *key, const void *pkt, size_t len,
		      struct mpt_pkt_info *out, const char **why)
{
	const uint8_t *p = pkt;
	int ret;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (len < 1) {
		*why = "empty packet";
		return -EBADMSG;
	}
	if (len > UINT16_MAX + 40) {
		*why = "longer than any IP packet";
		return -EBADMSG;
	}
	out->meta.len = (uint32_t)len;
	switch (p[0] >> 4) {
	case 4:
		ret = parse_v4(p, len, out, why);
		break;
	case 6:
		ret = parse_v6(p, len, out, why);
		break;
	default:
		*why = "not IPv4 or IPv6";
		return -EBADMSG;
	}
	if (ret)
		return ret;
	out->meta.flow_hash = flow_hash(key, out);
	return 0;
}
