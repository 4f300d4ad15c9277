/* SPDX-License-Identifier: MIT */
/*
 * Parse an inner IPv4/IPv6 packet (as read from the TUN device or decrypted from a
 * path) into the scheduler's struct mpt_pkt_meta plus its addresses. Pure and
 * bounds-checked: it reads only [pkt, pkt + len); it is a fuzz target.
 *
 * Flow hash: SipHash-2-4 under a per-daemon random key over (family, protocol,
 * source, destination, source port, destination port) for TCP, UDP, UDP-Lite, SCTP
 * and DCCP; over (family, protocol, addresses) for other protocols; over (family,
 * addresses) alone for every fragment, first one included, so all fragments of a
 * datagram hash alike. IPv6 extension headers (hop-by-hop, routing, destination
 * options, fragment, AH, mobility, HIP, shim6) are skipped, at most
 * MPT_PKTMETA_MAX_EXTHDRS; ESP and "no next header" end the walk.
 *
 * The hash is direction-specific (src and dst are not sorted): each direction has its
 * own scheduler on a different host under a different key, so nothing would match
 * the two directions' hashes anyway, and ordered input keeps it cheap. 0 means "no
 * hash" in struct mpt_pkt_meta, so a result of 0 is mapped to 1.
 */
#ifndef MPTUND_PKTMETA_H
#define MPTUND_PKTMETA_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mptund/sched.h>

#include "siphash.h"

#define MPT_PKTMETA_MAX_EXTHDRS	8

union mpt_inaddr {
	struct in_addr v4;
	struct in6_addr v6;
	uint8_t bytes[16];
};

struct mpt_pkt_info {
	struct mpt_pkt_meta meta;	/* len is the whole packet as given */
	int family;			/* AF_INET or AF_INET6 */
	union mpt_inaddr src, dst;	/* network byte order */
	uint16_t sport, dport;		/* host byte order; 0 when not parsed */
	bool fragment;
	uint16_t l4_offset;		/* transport header offset; 0 when not reached */
	uint32_t tcp_seq;		/* TCP: the segment's sequence number */
	uint32_t tcp_len;		/* TCP: sequence space it uses (data, SYN, FIN) */
};

/*
 * Returns 0, or -EBADMSG with *why (a static string) naming the defect: a
 * truncated or malformed header, a length field beyond the data, an unknown IP
 * version.
 */
int mpt_pktmeta_parse(const struct mpt_siphash_key *key, const void *pkt, size_t len,
		      struct mpt_pkt_info *out, const char **why);

#endif
