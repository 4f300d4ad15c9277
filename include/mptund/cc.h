/* SPDX-License-Identifier: MIT */
/*
 * Per-path congestion control, modelled on the kernel's struct tcp_congestion_ops.
 *
 * The core owns one struct mpt_cc per path. A controller keeps its state (and its
 * tunables, first) in cc->priv and publishes its decisions in the output fields:
 * cwnd (bytes), pacing_rate (bytes/s, 0 = unpaced), and for schedulers its view of the
 * path (btlbw, min_rtt_ns, state). Controllers are pure: no I/O, no clock (now is an
 * argument), randomness only from the rng passed to init.
 *
 * Event order on an ACK frame: on_loss (if the ACK declared packets lost), then on_ack
 * with the rate sample. Time-threshold losses found by the loss timer call on_loss alone.
 */
#ifndef MPTUND_CC_H
#define MPTUND_CC_H

#include <mptund/common.h>
#include <mptund/param.h>
#include <mptund/rng.h>

#define MPT_CC_PRIV_SIZE 512

enum mpt_cc_state {
	MPT_CC_OTHER = 0,
	MPT_CC_STARTUP,		/* BBR Startup */
	MPT_CC_DRAIN,		/* BBR Drain */
	MPT_CC_PROBE_BW,	/* BBR ProbeBW */
	MPT_CC_PROBE_RTT,	/* BBR ProbeRTT: ACPF pauses its management here */
	MPT_CC_SLOW_START,	/* loss-based: slow start */
	MPT_CC_AVOIDANCE,	/* loss-based: congestion avoidance */
	MPT_CC_RECOVERY,	/* loss-based: recovery */
	MPT_CC_STATE_MAX,
};

/* Names for enum mpt_cc_state ("startup", "probe_rtt", ...); index by state. */
extern const char *const mpt_cc_state_names[MPT_CC_STATE_MAX];

/* What the core knows of the path, read-only for the controller. */
struct mpt_cc_path {
	uint64_t delivered;	/* bytes delivered (acked) on the path so far */
	uint64_t in_flight;	/* bytes sent and neither acked nor declared lost */
	uint64_t srtt_ns;	/* RFC 6298 smoothed RTT (0 before the first sample) */
	uint64_t min_rtt_ns;	/* lowest RTT sample seen (0 before the first) */
	uint32_t mss;		/* largest datagram payload counted in cwnd */
	bool app_limited;	/* the sender currently has nothing to send */
	bool probe_rtt_busy;	/* another path of the session is draining for an RTT
				 * probe: one that would start now waits its turn, so
				 * that the session's paths never dip together */
	uint64_t capacity;	/* configured capacity of the path, bytes/s; 0 none */
	uint64_t max_ack_delay_ns; /* how long the peer may hold an ACK, so how much
				    * of an RTT sample may be its ACK delay rather
				    * than the path (RFC 9002 5.3); 0 unknown */
};

/*
 * Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), one per ACK that
 * newly acknowledges data. interval_ns == 0 means the rate part is invalid.
 */
struct mpt_rate_sample {
	uint64_t delivered;		/* bytes delivered over interval_ns */
	uint64_t interval_ns;		/* max(send_elapsed, ack_elapsed) */
	uint64_t rtt_ns;		/* RTT of the newest acked packet (0: none) */
	uint64_t prior_delivered;	/* path delivered when that packet was sent */
	uint64_t prior_in_flight;	/* in-flight just before this ACK */
	uint64_t acked_bytes;		/* bytes newly acked by this ACK */
	uint64_t lost_bytes;		/* bytes newly declared lost by this ACK */
	bool is_app_limited;		/* the packet was sent while app-limited */
};

struct mpt_cc {
	/* outputs, maintained by the controller */
	uint64_t cwnd;			/* bytes */
	uint64_t pacing_rate;		/* bytes per second; 0 = no pacing */
	uint64_t btlbw;			/* bottleneck bandwidth estimate, bytes/s; 0 while
					 * unknown: published once a sample that was not
					 * app-limited proved it (a path that only carried
					 * probes or a trickle has not shown its rate) */
	uint64_t min_rtt_ns;		/* controller's min-RTT estimate; 0 unknown */
	uint8_t state;			/* enum mpt_cc_state */
	/* private: tunables first, then state */
	_Alignas(16) unsigned char priv[MPT_CC_PRIV_SIZE];
};

struct mpt_cc_ops {
	const char *name;
	const char *summary;		/* one line for --version and man pages */

	/* required: the per-ACK fast path */
	void (*on_ack)(struct mpt_cc *cc, const struct mpt_cc_path *p,
		       const struct mpt_rate_sample *rs, uint64_t now);
	/* required: called once after the core zeroed priv and applied the parameter
	 * defaults and the configured overrides; sets the initial outputs */
	void (*init)(struct mpt_cc *cc, const struct mpt_cc_path *p,
		     struct mpt_rng *rng, uint64_t now);

	/* optional */
	void (*on_sent)(struct mpt_cc *cc, const struct mpt_cc_path *p,
			uint32_t bytes, uint64_t now);
	void (*on_loss)(struct mpt_cc *cc, const struct mpt_cc_path *p,
			uint64_t lost_bytes, uint64_t now);
	/* the path was declared down / came back: restart estimates as needed */
	void (*on_path_reset)(struct mpt_cc *cc, const struct mpt_cc_path *p,
			      uint64_t now);
	/* a tunable changed at run time */
	void (*params_changed)(struct mpt_cc *cc);

	size_t priv_size;		/* <= MPT_CC_PRIV_SIZE, checked at registration */
	const struct mpt_param *params;
	size_t nparams;
	const struct mpt_stat *stats;	/* offsets are into priv */
	size_t nstats;
};

/* Registry (cc/registry.c). */
const struct mpt_cc_ops *mpt_cc_find(const char *name);
size_t mpt_cc_count(void);
const struct mpt_cc_ops *mpt_cc_at(size_t i);
/* Validates the table: required members, unique names, priv sizes. 0 or -EINVAL
 * with a message naming the offending module. Called once at start-up. */
int mpt_cc_registry_check(char *err, size_t errlen);

/* Zero cc, apply defaults of ops->params, then the caller may override params before
 * calling ops->init. */
void mpt_cc_prepare(struct mpt_cc *cc, const struct mpt_cc_ops *ops);

#endif
