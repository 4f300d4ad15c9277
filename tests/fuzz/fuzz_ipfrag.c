// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for IPv4 fragmentation of inner packets (ipfrag.h): the first two
 * bytes choose the size to cut at, the rest is the packet (any bytes a host behind the
 * tunnel may send). Every fragment fits the size, lies inside the packet's data, and
 * the fragments together give the data back byte for byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipfrag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frag[2048], joined[65536];
	const uint8_t *pkt = data + 2;
	size_t mtu, len, ihl, got = 0;
	unsigned n;

	if (size < 2 || size > 2 + 16384)
		return 0;
	mtu = (size_t)(data[0] << 8 | data[1]) % 2048;
	len = size - 2;
	n = mpt_ipv4_frag_count(pkt, len, mtu);
	if (!n)
		return 0;
	ihl = (size_t)(pkt[0] & 15) * 4;
	for (unsigned i = 0; i < n; i++) {
		size_t flen = mpt_ipv4_frag_build(pkt, len, mtu, i, frag, sizeof(frag));
		size_t fihl = (size_t)(frag[0] & 15) * 4;
		size_t off = (size_t)((frag[6] & 0x1f) << 8 | frag[7]) * 8 -
			     (size_t)((pkt[6] & 0x1f) << 8 | pkt[7]) * 8;

		if (!flen || flen > mtu || fihl < 20 || flen <= fihl ||
		    off + flen - fihl > (size_t)(pkt[2] << 8 | pkt[3]) - ihl)
			abort();
		memcpy(joined + off, frag + fihl, flen - fihl);
		got += flen - fihl;
	}
	if (got != (size_t)(pkt[2] << 8 | pkt[3]) - ihl || memcmp(joined, pkt + ihl, got))
		abort();
	return 0;
}
