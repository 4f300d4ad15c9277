/* SPDX-License-Identifier: MIT */
/*
 * Per-path pacing without a per-packet timer, in the manner of the kernel's fq
 * "time_next_packet": each send pushes the path's earliest departure time forward by
 * len / rate; a packet may leave while that time is no further than one quantum
 * (horizon_ns, default 1 ms) ahead of now, so the sender releases small bursts from a
 * per-path timer. rate 0 = unpaced.
 *
 * The event loop's timers are coarse (epoll rounds its timeout up to whole
 * milliseconds), so a release often comes late. The departure time may fall behind
 * now by up to one horizon and the lateness is caught up with the next burst;
 * anything older is forgotten, so idle time earns at most one horizon of credit and
 * a burst never exceeds two horizons' worth. Without that credit a path paced at R
 * sends about R x horizon / (horizon + lateness): two thirds of R at 1 ms + 0.5 ms.
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
	uint64_t floor = now > p->horizon_ns ? now - p->horizon_ns : 0;
	uint64_t t = p->next_ns > floor ? p->next_ns : floor;

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
