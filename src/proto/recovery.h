/* SPDX-License-Identifier: MIT */
/*
 * Sender side of one path: the packets in flight, ACK processing, RTT estimation
 * (RFC 6298 / RFC 9002 section 5), delivery-rate samples
 * (draft-cheng-iccrg-delivery-rate-estimation) and loss detection (RFC 9002 section 6:
 * packet threshold and time threshold). Pure: time is an argument, no I/O.
 *
 * A sent packet may carry an opaque owner pointer (the retained packet buffer): the
 * owner's release callback gets it back exactly once, when the packet is acknowledged
 * (lost false) or leaves the window otherwise: declared lost, reset, pushed out of
 * the ring (lost true). The owner decides what a loss means (a retransmission).
 */
#ifndef MPTUND_RECOVERY_H
#define MPTUND_RECOVERY_H

#include <mptund/ack.h>
#include <mptund/cc.h>

struct mpt_sent_pkt {
	uint64_t pn;
	uint64_t sent_ns;
	uint64_t delivered;		/* path delivered bytes when sent (P.delivered) */
	uint64_t delivered_ns;		/* P.delivered_time */
	uint64_t first_sent_ns;		/* P.first_sent_time */
	void *data;			/* owner's pointer, released once (see above) */
	uint32_t bytes;			/* counted in flight (0 = not in flight) */
	bool is_app_limited;
	bool acked_or_lost;		/* slot is done */
	bool realtime;			/* counted in rt_in_flight too */
};

struct mpt_recovery_params {
	uint32_t pkt_threshold;		/* RFC 9002 kPacketThreshold: 3 */
	double time_threshold;		/* RFC 9002 kTimeThreshold: 9/8 */
	uint64_t granularity_ns;	/* RFC 9002 kGranularity: 1 ms */
	uint64_t initial_rtt_ns;	/* RFC 9002 kInitialRtt: 333 ms */
	uint64_t max_ack_delay_ns;	/* peer's max ACK delay: 25 ms */
};

struct mpt_recovery {
	struct mpt_recovery_params params;

	/* RTT estimator */
	uint64_t srtt_ns, rttvar_ns, min_rtt_ns, latest_rtt_ns;
	bool have_rtt;

	/* delivery-rate estimation state (connection C in the draft) */
	uint64_t delivered;		/* bytes */
	uint64_t delivered_ns;
	uint64_t first_sent_ns;
	uint64_t app_limited;		/* C.app_limited: delivered mark, 0 = not limited */
	uint64_t delivery_rate;		/* bytes/s of the latest valid sample */

	/* in flight */
	uint64_t in_flight;		/* bytes */
	uint64_t rt_in_flight;		/* the part of in_flight marked real-time */
	uint64_t largest_acked;		/* UINT64_MAX before the first ACK */
	uint64_t largest_sent;
	uint64_t loss_time_ns;		/* earliest time-threshold loss deadline; 0 none */

	/* counters */
	uint64_t sent_pkts, sent_bytes, acked_pkts, acked_bytes, lost_pkts, lost_bytes;

	/* owner's callback for sent packets' data pointers */
	void (*release)(void *arg, void *data, bool lost);
	void *release_arg;
	uint64_t last_acked_ns;		/* latest ACK that acknowledged a packet; 0 none */
	uint64_t elicit_ns[2];		/* when the first two ack-eliciting packets since
					 * last_acked_ns were sent (nelicit of them) */
	uint8_t nelicit;

	/* ring of sent packets indexed by pn & (cap - 1); it starts small and doubles
	 * when the packets in flight need it, up to max_cap (memory follows the load) */
	struct mpt_sent_pkt *ring;
	uint32_t cap;			/* power of two */
	uint32_t max_cap;		/* power of two */
	uint64_t oldest_pn;		/* lowest pn that may still be in flight */
};

/* What one ACK (or loss timeout) changed. */
struct mpt_recovery_event {
	uint64_t acked_bytes, acked_pkts;
	uint64_t lost_bytes, lost_pkts;
	bool rtt_sampled;
};

void mpt_recovery_default_params(struct mpt_recovery_params *p);
/* cap: packets that may be in flight at once (rounded up to a power of two); the ring
 * holds MPT_RECOVERY_MIN_RING of them at first and grows as needed. */
#define MPT_RECOVERY_MIN_RING	16
int mpt_recovery_init(struct mpt_recovery *r, const struct mpt_recovery_params *p,
		      uint32_t cap);
void mpt_recovery_free(struct mpt_recovery *r);
/* Forget everything in flight (path declared down), keep counters; data pointers are
 * released as lost. */
void mpt_recovery_reset(struct mpt_recovery *r);
/* The callback that gets sent packets' data pointers back (NULL: none). */
void mpt_recovery_set_release(struct mpt_recovery *r,
			      void (*release)(void *arg, void *data, bool lost), void *arg);
/* Declare every packet in flight lost (a dead path or peer): ev counts them, data
 * pointers are released as lost, in_flight becomes 0. */
void mpt_recovery_declare_all_lost(struct mpt_recovery *r, struct mpt_recovery_event *ev);
/* Time since which nothing was acknowledged while data was in flight: the later of the
 * latest acknowledgement and the oldest packet still in flight; 0 when nothing is in
 * flight. A path silent past its PTO-scaled bound is dead (mptund-proto(7)). */
uint64_t mpt_recovery_silent_since(const struct mpt_recovery *r);
/* When the second witness of that silence was sent: the earliest ack-eliciting packet
 * in flight, other than the oldest, sent since the latest acknowledgement; 0 while
 * there is none. One packet unacknowledged is a loss; two, the later one given its
 * own round trip, a silence (as RFC 9002 7.6 asks two lost packets for persistent
 * congestion): an idle path whose one packet was lost is not dead before its PTO probe
 * could have been acknowledged. */
uint64_t mpt_recovery_second_sent(const struct mpt_recovery *r);

/* Room in the ring for one more packet (false: too many in flight to track). */
bool mpt_recovery_can_send(const struct mpt_recovery *r);
/* pn must be larger than every pn sent before. */
void mpt_recovery_on_sent(struct mpt_recovery *r, uint64_t pn, uint32_t bytes,
			  uint64_t now);
/* The same with an owner pointer, released once (see above). */
void mpt_recovery_on_sent_data(struct mpt_recovery *r, uint64_t pn, uint32_t bytes,
			       uint64_t now, void *data);
/* The packet just sent (pn, the largest) belongs to a real-time flow: its bytes are
 * counted in rt_in_flight as well until it is acknowledged or lost. */
void mpt_recovery_mark_realtime(struct mpt_recovery *r, uint64_t pn);
/* The sender ran out of data with in_flight below cwnd: following samples are
 * app-limited until the current in-flight data is delivered (draft section 3.4). */
void mpt_recovery_on_app_limited(struct mpt_recovery *r);

/*
 * Process an ACK frame. Fills rs (the rate sample for cc->on_ack, valid when
 * ev->acked_pkts > 0) and ev. Returns 0, or -EINVAL for an ACK of a packet number
 * never sent (a protocol violation the caller counts and drops).
 */
int mpt_recovery_on_ack(struct mpt_recovery *r, const struct mpt_ack_info *ack,
			uint64_t now, struct mpt_rate_sample *rs,
			struct mpt_recovery_event *ev);

/* Earliest time the loss timer must fire (0: none armed). */
uint64_t mpt_recovery_loss_deadline(const struct mpt_recovery *r);
/* Declare time-threshold losses at now. */
void mpt_recovery_on_loss_timeout(struct mpt_recovery *r, uint64_t now,
				  struct mpt_recovery_event *ev);

/* RFC 9002 PTO base: srtt + max(4 rttvar, granularity) + max_ack_delay. */
uint64_t mpt_recovery_pto(const struct mpt_recovery *r);

#endif
