/* SPDX-License-Identifier: MIT */
/*
 * Coalescing of TCP segments written to the TUN (the receive side of TunOffload, the
 * mirror of gso.h): consecutive in-order segments of one TCP flow, as the reorder
 * buffer releases them, are copied into one super-packet that the kernel takes in one
 * write behind a virtio-net header (GSO TCPV4/TCPV6 with a partial checksum), as its
 * own GRO would have built it. One system call per run instead of one per packet.
 *
 * A segment joins the run when it continues it exactly: the same IP and TCP headers
 * (addresses, ports, TOS/traffic class, TTL, ACK number, window, options such as
 * timestamps) except for the lengths, the IPv4 id (the next one), the checksums and
 * the sequence number (the next byte); flags ACK and at most PSH; a payload no larger
 * than the run's first, and a right TCP checksum (summed while it is copied, so a
 * corrupt packet is never vouched for by the offload). A segment shorter than the
 * first or with PSH ends the run. Anything else is written on its own.
 *
 * Pure functions over buffers, no I/O.
 */
#ifndef MPTUND_GRO_H
#define MPTUND_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include "gso.h"

#define MPT_GRO_MAX	65535		/* bytes of one run (the IPv4 total length) */

struct mpt_gro {
	uint8_t *buf;			/* MPT_GRO_MAX bytes, the caller's */
	uint32_t len;			/* bytes in buf; 0: no run */
	uint32_t nsegs;
	uint16_t l4, hlen;		/* TCP header offset, IP + TCP header length */
	uint16_t seg;			/* payload of the first segment */
	uint16_t next_id;		/* IPv4 id the next segment must have */
	uint32_t next_seq;		/* sequence number it must have */
	uint8_t family;			/* 4 or 6 */
	bool closed;			/* ended (short segment or PSH): takes no more */
};

/* Add pkt to the run: true when it was taken (copied). When false, finish and write
 * the run (if any), then try mpt_gro_start. */
bool mpt_gro_add(struct mpt_gro *g, const uint8_t *pkt, uint32_t len);

/* Start a run with pkt (the run must be empty): true when taken; false when pkt can
 * never be coalesced (not TCP, flags, options of IP, bad checksum): write it alone. */
bool mpt_gro_start(struct mpt_gro *g, const uint8_t *pkt, uint32_t len);

/* The run as one packet: buf[0..return) behind *vh (a zero header for a run of one
 * segment, which is left as it came). The run is empty afterwards. */
uint32_t mpt_gro_finish(struct mpt_gro *g, struct mpt_vnet_hdr *vh);

#endif
