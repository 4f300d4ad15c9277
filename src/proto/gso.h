/* SPDX-License-Identifier: MIT */
/*
 * Segmentation of the TUN device's super-packets (mptund.conf(5) TunOffload).
 *
 * With IFF_VNET_HDR and TUNSETOFFLOAD the kernel hands the daemon each packet behind a
 * virtio-net header (struct mpt_vnet_hdr) and may leave work in it: a TCP segment of
 * up to 64 KiB to be cut at gso_size bytes of payload (TSO), a UDP datagram run to be
 * cut likewise (USO), or a checksum to be finished from csum_start (NEEDS_CSUM). The
 * daemon does that work here, once, before the packets enter the scheduler queue: each
 * segment is an ordinary inner packet of at most the TUN's MTU.
 *
 * A TCP segment i of n gets the super-packet's IP and TCP headers (options included)
 * with: the sequence number advanced by i x gso_size; FIN and PSH only on the last
 * segment, CWR only on the first (as the kernel's tcp_gso_segment); the IPv4 total
 * length, an IPv4 id of id + i and a new IPv4 header checksum, or the IPv6 payload
 * length; and a full TCP checksum over the pseudo-header with the segment's length
 * (what the header's checksum field held is ignored). A UDP segment gets its own
 * length and checksum (0 becomes 0xffff). Copy and checksum are one pass.
 *
 * Pure functions over buffers, no I/O: a fuzz target and unit tests run them.
 */
#ifndef MPTUND_GSO_H
#define MPTUND_GSO_H

#include <stdint.h>

/* The virtio-net header (linux/virtio_net.h), in host byte order as a TUN device
 * without TUNSETVNETLE/BE has it on a little-endian host. */
#define MPT_VNET_HDR_LEN	10
#define MPT_VNET_F_NEEDS_CSUM	0x01
#define MPT_VNET_GSO_NONE	0
#define MPT_VNET_GSO_TCPV4	1
#define MPT_VNET_GSO_TCPV6	4
#define MPT_VNET_GSO_UDP_L4	5
#define MPT_VNET_GSO_ECN	0x80

struct mpt_vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;		/* unused: we measure the headers ourselves */
	uint16_t gso_size;		/* payload bytes per segment */
	uint16_t csum_start;		/* NEEDS_CSUM: sum from here to the end ... */
	uint16_t csum_offset;		/* ... and store it at csum_start + this */
};

/* A packet read from the TUN, checked and measured by mpt_gso_prepare. */
struct mpt_gso {
	const uint8_t *pkt;
	uint32_t len;
	uint32_t nsegs;			/* 1 for a packet that needs no segmenting */
	uint16_t l4;			/* offset of the TCP/UDP header (segmenting) */
	uint16_t hlen;			/* headers replicated in every segment */
	uint16_t seg;			/* payload bytes per segment */
	uint16_t csum_start, csum_pos;	/* completion of one packet ... */
	uint8_t needs_csum;		/* ... when set (MPT_VNET_F_NEEDS_CSUM) */
	uint8_t family;			/* 4 or 6 */
	uint8_t proto;			/* IPPROTO_TCP or IPPROTO_UDP when segmenting */
	uint8_t gso;			/* MPT_VNET_GSO_*, the ECN bit masked off */
};

/*
 * Check pkt[0..len), read behind vh, and fill g. Each segment (or the packet itself)
 * must fit in mtu bytes. Returns 0, or -EINVAL with *why naming what is wrong (an
 * unknown GSO type, headers that do not parse or disagree with vh, a segment over mtu,
 * a checksum position outside the packet).
 */
int mpt_gso_prepare(struct mpt_gso *g, const struct mpt_vnet_hdr *vh, const uint8_t *pkt,
		    uint32_t len, uint32_t mtu, const char **why);

/* Write segment i (< g->nsegs) to out, which has room for mtu bytes; its length. */
uint32_t mpt_gso_segment(const struct mpt_gso *g, uint32_t i, uint8_t *out);

#endif
