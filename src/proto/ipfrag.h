/* SPDX-License-Identifier: MIT */
/*
 * IPv4 fragmentation of inner packets (RFC 791 section 3.2, "Fragmentation"; RFC 815
 * for how the far host puts them together). An inner IPv4 packet whose sender allowed
 * fragmentation (DF clear) and that no usable path carries is cut, as a router would
 * cut it, into fragments the largest usable path carries; the host at the far end
 * reassembles them. Packets with DF, and IPv6 (which only its source fragments), get an
 * ICMP "packet too big" instead (icmp_ptb.h).
 *
 * Each fragment's data is a multiple of 8 bytes but the last's; the first fragment
 * keeps every option, the others the options whose copied flag is set (padded with
 * End of Option List to a multiple of 4 bytes); offsets and More Fragments carry on
 * from a packet that is itself a fragment; each header's checksum is computed anew.
 * Pure functions over buffers.
 */
#ifndef MPTUND_IPFRAG_H
#define MPTUND_IPFRAG_H

#include <stddef.h>
#include <stdint.h>

/* The smallest size asked of mpt_ipv4_frag_count: a 60-byte header and 8 data bytes. */
#define MPT_IPFRAG_MIN_MTU	68

/*
 * How many fragments of at most mtu bytes the IPv4 packet pkt[0..len) is cut into;
 * 0 when it is not to be cut: not IPv4, malformed, DF set, no larger than mtu, or
 * mtu below MPT_IPFRAG_MIN_MTU.
 */
unsigned mpt_ipv4_frag_count(const uint8_t *pkt, size_t len, size_t mtu);

/*
 * Write fragment i (0-based, below mpt_ipv4_frag_count's answer) of pkt into out (cap
 * bytes, at least mtu). Returns its length, or 0 when i or cap is out of range.
 */
size_t mpt_ipv4_frag_build(const uint8_t *pkt, size_t len, size_t mtu, unsigned i,
			   uint8_t *out, size_t cap);

#endif
