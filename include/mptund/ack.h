/* SPDX-License-Identifier: MIT */
/*
 * The content of one ACK frame, as the wire decoder produces it and the sender's
 * recovery consumes it: ranges of per-path packet numbers, highest first, disjoint,
 * each lo <= hi, and the receiver's ACK delay.
 */
#ifndef MPTUND_ACK_H
#define MPTUND_ACK_H

#include <stdint.h>

#define MPT_ACK_MAX_RANGES 32

struct mpt_ack_range {
	uint64_t lo, hi;		/* inclusive */
};

struct mpt_ack_info {
	uint8_t path_id;		/* the path whose packet numbers these are */
	uint64_t ack_delay_ns;		/* time the receiver held the largest */
	unsigned nranges;		/* 1..MPT_ACK_MAX_RANGES */
	struct mpt_ack_range r[MPT_ACK_MAX_RANGES]; /* r[0].hi is the largest acked */
};

#endif
