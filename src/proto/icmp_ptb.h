/* SPDX-License-Identifier: MIT */
/*
 * "Packet too big" for an inner packet that fits no path (plpmtud.h): the host that
 * sent it learns the tunnel's MTU from an ICMP message written back into the TUN, as
 * a router would send it: IPv4 Destination Unreachable / Fragmentation Needed with the
 * next-hop MTU (RFC 792, RFC 1191 section 4), ICMPv6 Packet Too Big (RFC 4443 section
 * 3.2). The message comes from the packet's destination address (the far end of the
 * tunnel, as far as the host can tell: its reverse route is the TUN, so reverse path
 * filters pass it) and quotes as much of the packet as fits in 576 (IPv4) or 1280
 * (IPv6) bytes.
 */
#ifndef MPTUND_ICMP_PTB_H
#define MPTUND_ICMP_PTB_H

#include <stddef.h>
#include <stdint.h>

#define MPT_ICMP_PTB_MAX	1280	/* the largest message built */

/*
 * Build the message for pkt[0..len) into out (cap bytes, MPT_ICMP_PTB_MAX is enough),
 * announcing mtu. Returns its length, or 0 when none is due: not IPv4/IPv6, an IPv4
 * packet without DF (fragmentation is allowed: the caller decides), an ICMP error
 * itself (RFC 1122 3.2.2, RFC 4443 2.4), a multicast or broadcast destination.
 */
size_t mpt_icmp_ptb_build(uint8_t *out, size_t cap, const uint8_t *pkt, size_t len,
			  uint32_t mtu);

/* Does the IPv4 packet forbid fragmentation (DF)? IPv6: always true. */
int mpt_ip_dont_fragment(const uint8_t *pkt, size_t len);

#endif
