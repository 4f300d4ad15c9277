// SPDX-License-Identifier: MIT
/* Address validation before a path's endpoint moves: pathval.h. */
#include <string.h>

#include "pathval.h"

void mpt_pathval_reset(struct mpt_pathval *v)
{
	memset(v, 0, sizeof(*v));
}

bool mpt_pathval_is_cand(const struct mpt_pathval *v, const struct sockaddr_storage *addr,
			 socklen_t len)
{
	return v->cand_len && v->cand_len == len && memcmp(&v->cand, addr, len) == 0;
}

enum mpt_pathval_verdict mpt_pathval_on_packet(struct mpt_pathval *v,
					       const struct sockaddr_storage *addr,
					       socklen_t len, size_t bytes, bool newest,
					       uint64_t fresh, uint64_t retry_ns,
					       uint64_t now)
{
	if (len == 0 || len > sizeof(v->cand))
		return MPT_PV_REFUSED;
	if (mpt_pathval_is_cand(v, addr, len)) {
		/* every authenticated byte from the candidate raises its budget */
		v->rx_bytes += bytes;
		if (!v->sent_ns || now - v->sent_ns >= retry_ns)
			return MPT_PV_CHALLENGE;
		return MPT_PV_IGNORE;
	}
	if (!newest)
		return MPT_PV_REFUSED;
	/* a new candidate (replacing any other): a fresh challenge, a fresh budget */
	memset(&v->cand, 0, sizeof(v->cand));
	memcpy(&v->cand, addr, len);
	v->cand_len = len;
	v->challenge = fresh;
	v->rx_bytes = bytes;
	v->tx_bytes = 0;
	v->sent_ns = 0;
	v->started_ns = now;
	return MPT_PV_CHALLENGE;
}

bool mpt_pathval_may_send(const struct mpt_pathval *v, size_t bytes)
{
	return v->cand_len &&
	       v->tx_bytes + bytes <= MPT_PATHVAL_AMP_FACTOR * v->rx_bytes;
}

void mpt_pathval_on_sent(struct mpt_pathval *v, size_t bytes, uint64_t now)
{
	v->tx_bytes += bytes;
	v->sent_ns = now ? now : 1;
}

bool mpt_pathval_on_response(const struct mpt_pathval *v,
			     const struct sockaddr_storage *addr, socklen_t len,
			     uint64_t token)
{
	return v->sent_ns && mpt_pathval_is_cand(v, addr, len) && token == v->challenge;
}
