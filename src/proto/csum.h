/* SPDX-License-Identifier: MIT */
/* The Internet checksum (RFC 1071) for gso.c and gro.c: copy and sum in one pass. */
#ifndef MPTUND_CSUM_H
#define MPTUND_CSUM_H

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The sum of src[0..n) added to acc, copying to dst on the way when dst is not NULL.
 * The sum runs over native-endian words, which gives the byte-swapped sum on a
 * little-endian host (RFC 1071 2(B)); mpt_csum_fold16 turns it back. Each piece summed
 * into one accumulator must start at an even offset of the packet.
 */
static inline uint64_t mpt_csum_copy(uint8_t *dst, const uint8_t *src, size_t n,
				     uint64_t acc)
{
	for (; n >= 8; n -= 8, src += 8) {
		uint64_t w;

		memcpy(&w, src, 8);
		if (dst) {
			memcpy(dst, &w, 8);
			dst += 8;
		}
		acc += (uint32_t)w;
		acc += w >> 32;
	}
	for (; n >= 2; n -= 2, src += 2) {
		uint16_t w;

		memcpy(&w, src, 2);
		if (dst) {
			memcpy(dst, &w, 2);
			dst += 2;
		}
		acc += w;
	}
	if (n) {
		uint8_t b[2] = { src[0], 0 };
		uint16_t w;

		memcpy(&w, b, 2);
		if (dst)
			dst[0] = src[0];
		acc += w;
	}
	return acc;
}

/* The folded sum, big-endian value (not complemented). */
static inline uint16_t mpt_csum_fold16(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return ntohs((uint16_t)acc);
}

/* The sum of the pseudo-header of pkt (an IPv4 or IPv6 header, family 4 or 6) for
 * proto and l4len bytes. */
static inline uint64_t mpt_csum_pseudo(const uint8_t *pkt, uint8_t family, uint8_t proto,
				       uint32_t l4len)
{
	uint64_t acc = htons(proto) + (uint64_t)htons((uint16_t)l4len);

	if (family == 4)
		return mpt_csum_copy(NULL, pkt + 12, 8, acc);
	return mpt_csum_copy(NULL, pkt + 8, 32, acc);
}

#endif
