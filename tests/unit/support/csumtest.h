/* SPDX-License-Identifier: MIT */
/*
 * The Internet checksum (RFC 1071) for the packet tests, reckoned byte by byte in
 * big-endian 16-bit words. Written apart from src/proto/csum.h on purpose: the tests
 * check the daemon's checksums against it, so it must not share that code.
 */
#ifndef MPTUND_CSUMTEST_H
#define MPTUND_CSUMTEST_H

#include <stddef.h>
#include <stdint.h>

/* acc plus the words of p[0..len); an odd last byte is padded with a zero. */
uint32_t csumtest_add(uint32_t acc, const uint8_t *p, size_t len);
/* acc folded to 16 bits with end-around carry, not complemented. */
uint16_t csumtest_fold(uint32_t acc);
/* The folded sum of p[0..len): 0xffff over an IPv4 header (or ICMP message) whose
 * checksum is right; its complement is the checksum of one whose field is zero. */
uint16_t csumtest_sum(const uint8_t *p, size_t len);
/* The unfolded sum of the pseudo-header of the IPv4 (v 4) or IPv6 packet pkt for a
 * transport part of l4len bytes of protocol proto. */
uint32_t csumtest_pseudo(const uint8_t *pkt, int v, uint8_t proto, uint32_t l4len);
/* The folded sum of the pseudo-header and the transport part at l4 of the packet pkt
 * of len bytes: 0xffff when its checksum is right; its complement is the checksum of
 * one whose checksum field is zero. */
uint16_t csumtest_l4(const uint8_t *pkt, size_t len, int v, size_t l4, uint8_t proto);

#endif
