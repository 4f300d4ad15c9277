/* SPDX-License-Identifier: MIT */
/*
 * TCP MSS clamping to the smallest path (mptund.conf(5) ClampMSS, PATH MTU): the
 * scheduler gives an inner packet only to paths that carry it, so a greedy TCP flow of
 * full-size segments could use only the paths of the largest MTU. Lowering the MSS
 * option of SYNs crossing the tunnel to what every usable path carries lets every
 * path take the flow's segments, at a cost of (MTU difference) / MTU in header bytes
 * (1.4% for 1500 against 1280). Like a router's MSS clamp, only SYNs are touched.
 */
#ifndef MPTUND_MSS_CLAMP_H
#define MPTUND_MSS_CLAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * If pkt[0..len) is a TCP segment with SYN set and an MSS option above what an inner
 * MTU of mtu allows (IPv4: mtu - 40, IPv6: mtu - 60), lower the option and fix the
 * TCP checksum incrementally (RFC 1624). Returns true when changed. Fragments, IPv6
 * extension headers and malformed options are left alone.
 */
bool mpt_mss_clamp(uint8_t *pkt, size_t len, uint32_t mtu);

#endif
