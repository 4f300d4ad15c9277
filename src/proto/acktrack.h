/* SPDX-License-Identifier: MIT */
/*
 * Receiver side of one path: which packet numbers arrived, as ranges for the next
 * ACK frame (struct mpt_ack_info), and when to send that ACK.
 *
 * Policy (after RFC 9000 section 13.2.1/13.2.2, tightened for a tunnel):
 *   - ACK at once after every ack_every-th (default 2) ack-eliciting packet, or when
 *     an ack-eliciting packet arrives out of order (below the largest, or leaving a
 *     gap above it): the sender's loss detection and BBR want that news now;
 *   - otherwise ACK at most max_ack_delay after the first unacknowledged
 *     ack-eliciting packet. Default 1 ms, not QUIC's 25 ms: the ACK clock drives the
 *     sender's BBR delivery-rate samples, its ACPF windows and its RTT estimates, and
 *     a tunnel packet that waits 25 ms for its ACK inflates every one of them at low
 *     rates. 1 ms equals the sender's timer granularity (RFC 9002 kGranularity), so
 *     the delay stays below what it can resolve anyway, and it bounds the ACK rate
 *     of a lightly loaded path at 1000/s. The sender must be configured with the
 *     same value as its peer's max_ack_delay.
 *
 * Ranges are not repeated forever: a range that went out unchanged in
 * MPT_ACK_REPEAT ACKs is left out of the following ones (the highest range always
 * goes). A permanent gap (a lost packet, an MTU probe too big for the path) otherwise
 * makes every later ACK carry every range: 16 bytes each, up to 32, which on a thin
 * return path (a 1 Mbit/s DSL uplink) cost more than the packets they acknowledge.
 * The sender learnt of those packets from the earlier ACKs; were all of them lost, it
 * declares the packets lost (its loss detection), which is the cost of the saving.
 * A range that grows or merges counts from 0 again.
 *
 * Memory is bounded: at most MPT_ACK_MAX_RANGES ranges are kept; when a new range
 * needs room the lowest (oldest) one is forgotten, and a packet below all kept
 * ranges while they are full is counted and not reported.
 *
 * Pure: time is an argument, no I/O.
 */
#ifndef MPTUND_ACKTRACK_H
#define MPTUND_ACKTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include <mptund/ack.h>

#define MPT_ACK_DEFAULT_MAX_DELAY_NS	1000000ULL	/* 1 ms, see above */
#define MPT_ACK_DEFAULT_EVERY		2		/* RFC 9000 s. 13.2.2 */
#define MPT_ACK_REPEAT			3		/* ACKs a range goes out in */

struct mpt_acktrack {
	/* configuration */
	uint8_t path_id;
	uint64_t max_ack_delay_ns;
	uint32_t ack_every;

	/* runtime */
	unsigned nranges;
	struct mpt_ack_range r[MPT_ACK_MAX_RANGES];	/* highest first */
	uint8_t sent[MPT_ACK_MAX_RANGES];	/* ACKs r[i] went out in unchanged */
	uint64_t largest_arrival_ns;	/* when r[0].hi arrived */
	uint32_t unacked_eliciting;	/* since the last ACK sent */
	uint64_t first_unacked_ns;	/* arrival of the first of those */
	bool immediate;			/* out-of-order arrival: ACK now */

	/* counters */
	uint64_t received, duplicates, too_old, acks_sent;
};

void mpt_acktrack_init(struct mpt_acktrack *t, uint8_t path_id, uint64_t max_ack_delay_ns,
		       uint32_t ack_every);

/*
 * Record packet pn that arrived at now. Returns 0, -EEXIST for a packet number
 * already recorded, -ERANGE for one too old to be kept (both counted; the
 * packet itself may still be valid, the caller decides).
 */
int mpt_acktrack_on_packet(struct mpt_acktrack *t, uint64_t pn, bool ack_eliciting,
			   uint64_t now);

/* True when an ACK should go out now. */
/* The peer's ACK_FREQUENCY: ACK after every ack-eliciting packets or max_ack_delay_ns.
 * Out-of-order arrivals still ACK at once (loss detection needs them). */
void mpt_acktrack_set_frequency(struct mpt_acktrack *t, uint32_t every,
				uint64_t max_ack_delay_ns);

/* The ACK frequency a path's sender asks for (session_ackf.c): cwnd / 8 packets (of
 * `mss` bytes: the size of the packets it sends) in [2, 64], min_rtt / 4 in [1, 25]
 * ms. */
#define MPT_ACKF_MIN_THRESHOLD	2
#define MPT_ACKF_MAX_THRESHOLD	64
#define MPT_ACKF_MIN_DELAY_US	1000
#define MPT_ACKF_MAX_DELAY_US	25000
void mpt_ackf_policy(uint64_t cwnd, uint32_t mss, uint64_t min_rtt_ns, uint16_t *threshold,
		     uint32_t *delay_us);

bool mpt_acktrack_should_ack_now(const struct mpt_acktrack *t, uint64_t now);
/* When an ACK is due at the latest; 0 = none pending. */
uint64_t mpt_acktrack_deadline(const struct mpt_acktrack *t);

/* Fill an ACK frame (the highest range, and the others sent fewer than
 * MPT_ACK_REPEAT times); -ENODATA before the first packet. */
int mpt_acktrack_build(const struct mpt_acktrack *t, uint64_t now,
		       struct mpt_ack_info *out);
/* The ACK built at now was sent: the pending count and timer restart. */
void mpt_acktrack_on_ack_sent(struct mpt_acktrack *t, uint64_t now);

#endif
