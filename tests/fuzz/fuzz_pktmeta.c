// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the inner packet parser: any bytes either parse (and then
 * the reported offsets lie inside the packet) or are refused with a reason.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pktmeta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct mpt_siphash_key key = { 0x0123456789abcdefULL,
						    0xfedcba9876543210ULL };
	struct mpt_pkt_info pi;
	const char *why;

	if (mpt_pktmeta_parse(&key, data, size, &pi, &why) == 0) {
		if (pi.meta.len != size || pi.meta.flow_hash == 0 ||
		    (pi.l4_offset && (size_t)pi.l4_offset + 4 > size) ||
		    pi.meta.dscp > 63 || pi.meta.ecn > 3)
			abort();
	} else if (!why) {
		abort();
	}
	return 0;
}
