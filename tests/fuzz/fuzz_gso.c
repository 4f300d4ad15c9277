// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the segmentation of TUN super-packets (proto/gso): the input is
 * a virtio-net header (10 bytes, host order) and the packet behind it, read as the
 * TUN hands it over. Any input is either refused with a reason or cut into segments
 * of at most the MTU whose lengths add up to the packet's payload plus one copy of the
 * headers per segment (ASan watches every copy).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gso.h"

#define MTU	1400

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[MTU];
	struct mpt_vnet_hdr vh;
	const char *why = NULL;
	struct mpt_gso g;
	uint64_t total = 0;

	if (size < MPT_VNET_HDR_LEN || size - MPT_VNET_HDR_LEN > 65536)
		return 0;
	vh.flags = data[0];
	vh.gso_type = data[1];
	memcpy(&vh.hdr_len, data + 2, 2);
	memcpy(&vh.gso_size, data + 4, 2);
	memcpy(&vh.csum_start, data + 6, 2);
	memcpy(&vh.csum_offset, data + 8, 2);
	data += MPT_VNET_HDR_LEN;
	size -= MPT_VNET_HDR_LEN;
	if (mpt_gso_prepare(&g, &vh, data, (uint32_t)size, MTU, &why) < 0) {
		if (!why)
			abort();
		return 0;
	}
	for (uint32_t i = 0; i < g.nsegs; i++) {
		uint32_t n = mpt_gso_segment(&g, i, out);

		if (n > MTU || n < g.hlen)
			abort();
		total += n - g.hlen;
	}
	if (total != size - g.hlen)
		abort();
	return 0;
}
