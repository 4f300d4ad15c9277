// SPDX-License-Identifier: MIT
/* The Internet checksum for the packet tests (see csumtest.h). */
#include "csumtest.h"

uint32_t csumtest_add(uint32_t acc, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	return acc;
}

uint16_t csumtest_fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

uint16_t csumtest_sum(const uint8_t *p, size_t len)
{
	return csumtest_fold(csumtest_add(0, p, len));
}

uint32_t csumtest_pseudo(const uint8_t *pkt, int v, uint8_t proto, uint32_t l4len)
{
	if (v == 4)
		return csumtest_add(proto + l4len, pkt + 12, 8);
	return csumtest_add(proto + l4len, pkt + 8, 32);
}

uint16_t csumtest_l4(const uint8_t *pkt, size_t len, int v, size_t l4, uint8_t proto)
{
	uint32_t acc = csumtest_pseudo(pkt, v, proto, (uint32_t)(len - l4));

	return csumtest_fold(csumtest_add(acc, pkt + l4, len - l4));
}
