// SPDX-License-Identifier: MIT
/* TCP MSS clamping of SYNs: see mss_clamp.h. */
#include <mptund/wire.h>

#include "mss_clamp.h"

/* RFC 1624 eqn 3: HC' = ~(~HC + ~m + m'). */
static uint16_t csum_replace(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~hc + (uint32_t)(uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static bool clamp_tcp(uint8_t *tcp, size_t len, uint32_t mss)
{
	size_t doff;

	if (len < 20 || !(tcp[13] & 0x02))	/* SYN */
		return false;
	doff = (size_t)(tcp[12] >> 4) * 4;
	if (doff < 20 || doff > len)
		return false;
	for (size_t i = 20; i < doff;) {
		uint8_t kind = tcp[i];

		if (kind == 0)			/* end of options */
			return false;
		if (kind == 1) {		/* no-op */
			i++;
			continue;
		}
		if (i + 1 >= doff || tcp[i + 1] < 2 || i + tcp[i + 1] > doff)
			return false;
		if (kind == 2 && tcp[i + 1] == 4) {
			uint16_t old = mpt_get_u16(tcp + i + 2);

			if (old <= mss)
				return false;
			mpt_put_u16(tcp + i + 2, (uint16_t)mss);
			mpt_put_u16(tcp + 16, csum_replace(mpt_get_u16(tcp + 16), old,
							   (uint16_t)mss));
			return true;
		}
		i += tcp[i + 1];
	}
	return false;
}

bool mpt_mss_clamp(uint8_t *pkt, size_t len, uint32_t mtu)
{
	if (len >= 20 && pkt[0] >> 4 == 4) {
		size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;

		if (pkt[9] != 6 || ihl < 20 || len < ihl ||
		    (mpt_get_u16(pkt + 6) & 0x3fff) || mtu < 40 + 536)
			return false;			/* not TCP, or a fragment */
		return clamp_tcp(pkt + ihl, len - ihl, mtu - 40);
	}
	if (len >= 40 && pkt[0] >> 4 == 6) {
		if (pkt[6] != 6 || mtu < 60 + 1220)
			return false;
		return clamp_tcp(pkt + 40, len - 40, mtu - 60);
	}
	return false;
}
