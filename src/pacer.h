/* SPDX-License-Identifier: MIT */
/*
 * Per-path pacing without a per-packet timer, in the manner of the kernel's fq
 * "time_next_packet": each send pushes the path's earliest departure time forward by
 * len / rate; a packet may leave while that time is no further than one quantum
 * (horizon_ns, default 1 ms) ahead of now, so the sender releases small bursts from a
 * per-path timer. Idle time earns no credit (no burst after idle). rate 0 = unpaced.
 */
#ifndef MPTUND_PACER_H
#define MPTUND_PACER_H

#include <stdbool.h>
#include <stdint.h>

#include <mptund/common.h>

struct mpt_pacer {
	uint64_t next_ns;		/* earliest departure time of the next packet */
	uint64_t horizon_ns;		/* burst allowance */
};

static inline bool mpt_pacer_ready(const struct mpt_pacer *p, uint64_t rate, uint64_t now)
{
	return rate == 0 || p->next_ns <= now + p->horizon_ns;
}

static inline void mpt_pacer_on_send(struct mpt_pacer *p, uint64_t rate, uint32_t len,
				     uint64_t now)
{
	uint64_t t = p->next_ns > now ? p->next_ns : now;

	if (rate == 0)
		return;
	p->next_ns = t + (uint64_t)len * MPT_NSEC_PER_SEC / rate;
}

/* When the next packet may leave (for the path timer); now if ready. */
static inline uint64_t mpt_pacer_release_time(const struct mpt_pacer *p, uint64_t rate,
					      uint64_t now)
{
	if (mpt_pacer_ready(p, rate, now))
		return now;
	return p->next_ns - p->horizon_ns;
}

#endif
