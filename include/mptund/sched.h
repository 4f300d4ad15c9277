/* SPDX-License-Identifier: MIT */
/*
 * Schedulers, modelled on the kernel's struct mptcp_sched_ops.
 *
 * One scheduler instance per session and direction. The core keeps a FIFO scheduler
 * queue; for the packet at its head it calls pick(). pick answers a mask of paths:
 * one bit = send on that path, several bits = send a copy on each (redundant modes),
 * 0 = hold (the packet stays queued; pick is asked again when an ACK, a loss, a path
 * change or a tick may have freed room). A non-zero answer is final: the core sends.
 *
 * A path's in_flight counts every byte handed to the path and not yet acked or
 * declared lost, including bytes still waiting in the path's pacer. A path "has room"
 * for the cheapest-path family when in_flight < its (live) window.
 *
 * Schedulers are pure: no I/O, no clock (ctx->now), randomness only from ctx->rng,
 * state only in priv (tunables first). The core never looks inside priv except through
 * the declared params and stats tables.
 */
#ifndef MPTUND_SCHED_H
#define MPTUND_SCHED_H

#include <mptund/cc.h>
#include <mptund/common.h>
#include <mptund/param.h>
#include <mptund/rng.h>

#define MPT_SCHED_PRIV_SIZE 8192

_Static_assert(MPT_PARAM_NAME_LEN == MPT_NAME_LEN, "a NAME tunable holds a path name");

/* Read-only view of one path of the session, refreshed by the core before each call. */
struct mpt_path_view {
	uint8_t id;			/* index in the session, 0..npaths-1 */
	char name[MPT_NAME_LEN];
	uint32_t cost;			/* configured; lower is cheaper (CPF family) */
	uint32_t weight;		/* configured WRR weight; 0 = unset */
	uint64_t capacity;		/* configured capacity, bytes/s; 0 = unset */
	bool up;			/* usable: liveness ok and administratively up */
	uint32_t mtu;			/* largest inner packet the path carries */

	uint64_t cwnd;			/* bytes, from the path's congestion controller */
	uint64_t in_flight;		/* bytes, see above */
	uint64_t pacing_rate;		/* bytes/s; 0 = unpaced */
	uint64_t btlbw;			/* bytes/s bottleneck estimate; 0 = unknown */
	uint64_t delivery_rate;		/* bytes/s, latest delivery-rate sample */
	uint8_t cc_state;		/* enum mpt_cc_state */

	uint64_t srtt_ns;		/* smoothed RTT; 0 before the first sample */
	uint64_t rttvar_ns;
	uint64_t min_rtt_ns;
	uint64_t latest_rtt_ns;

	uint64_t sent_pkts, sent_bytes;
	uint64_t delivered_pkts, delivered_bytes;
	uint64_t lost_pkts, lost_bytes;
	uint64_t queued_bytes;		/* of in_flight, still waiting in the path's pacer */

	/* appended (issue 14); fields above keep their order */
	uint32_t tags;			/* enum mpt_path_tag bits from the path's config */
	uint64_t agg_in_flight;		/* anchor: in_flight summed over every session on
					 * this path; agg_cwnd 0 = the core does not fill it */
	uint64_t agg_cwnd;		/* the same sum of cwnd */
};

/* Path attributes a policy can filter on (attr scheduler; axiomatic path-selection
 * paper, sec. 3.2 Attribute-Aware: "avoiding a high-cost path"). */
enum mpt_path_tag {
	MPT_PATH_TAG_METERED = 1u << 0,
	MPT_PATH_TAG_HIGH_COST = 1u << 1,
	MPT_PATH_TAG_CELLULAR = 1u << 2,
	MPT_PATH_TAG_SATELLITE = 1u << 3,
};

/* Metadata of the packet being scheduled. */
struct mpt_pkt_meta {
	uint32_t len;			/* inner packet length, bytes */
	uint32_t flow_hash;		/* hash of the inner 5-tuple (0: none) */
	uint8_t dscp;
	uint8_t ecn;			/* inner ECN field; 3 = CE */
	uint8_t proto;			/* inner IP protocol */

	/* appended (issue 14): inner-TCP congestion signals the tunnel can read */
	uint8_t tcp_flags;		/* inner TCP header flags (CWR 0x80, ECE 0x40); 0 =
					 * not TCP or not filled */
	bool tcp_retrans;		/* the inner TCP sequence number is not new for
					 * its flow (a retransmission); false = unknown */
	bool tcp_ack_only;		/* a pure ACK: TCP with ACK set, no payload and
					 * no SYN, FIN or RST */
};

#define MPT_TCP_FLAG_CWR 0x80
#define MPT_TCP_FLAG_ECE 0x40
#define MPT_TCP_FLAG_SYN 0x02
#define MPT_TCP_FLAG_FIN 0x01
#define MPT_TCP_FLAG_RST 0x04
#define MPT_TCP_FLAG_ACK 0x10

struct mpt_sched_ctx {
	const struct mpt_path_view *paths;
	unsigned npaths;
	uint64_t now;			/* monotonic ns */
	uint32_t queue_pkts;		/* scheduler queue length, packets (incl. head) */
	uint64_t queue_bytes;
	bool standing;			/* the queue stands: its packets have waited more
					 * than a target (5 ms) for an interval (100 ms), as
					 * CoDel judges a queue (RFC 8289 3.3); it falls after
					 * an interval below the target */
	struct mpt_rng *rng;		/* the session's seeded PRNG */
};

/* Something a scheduler wants logged and shown in `mptund-ctl watch` (issue 13): a
 * steering threshold crossed or the traffic switched to another path. */
enum mpt_sched_event_kind {
	MPT_SCHED_EV_RTT = 1,		/* path's srtt crossed the RTT threshold */
	MPT_SCHED_EV_LOSS,		/* path's loss rate crossed the loss threshold */
	MPT_SCHED_EV_SWITCH,		/* the mode moved its traffic to path */
};

struct mpt_sched_event {
	uint64_t t_ns;			/* ctx->now when it happened */
	uint8_t kind;			/* enum mpt_sched_event_kind */
	uint8_t path;			/* the path concerned (SWITCH: the new one) */
	bool on;			/* RTT/LOSS: true = breached (entered), false = left
					 * (back under the leave level) */
	double value;			/* RTT: srtt ms; LOSS: rate 0..1; SWITCH: the old
					 * path's id, -1 for none */
	double threshold;		/* RTT: ms; LOSS: rate; the level crossed */
};

struct mpt_sched_ops {
	const char *name;
	const char *summary;		/* one line: what it does, its source */

	/* required: fast path */
	uint32_t (*pick)(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt);
	/* required: called after the core zeroed priv and applied defaults/overrides */
	void (*init)(void *priv, const struct mpt_sched_ctx *ctx);

	/* optional: told of events */
	void (*on_ack)(void *priv, const struct mpt_sched_ctx *ctx, unsigned path,
		       uint64_t acked_bytes);
	void (*on_loss)(void *priv, const struct mpt_sched_ctx *ctx, unsigned path,
			uint64_t lost_bytes);
	void (*on_path_change)(void *priv, const struct mpt_sched_ctx *ctx,
			       unsigned path, bool up);
	/* periodic; called at most every tick_ns while the session has traffic and may
	 * be skipped while it is idle: catch up on the elapsed ticks from ctx->now */
	void (*tick)(void *priv, const struct mpt_sched_ctx *ctx);
	void (*params_changed)(void *priv);
	/* optional: true when a single-path answer may carry, instead of the head, the
	 * queued packet that arrives in order on that path (sched/arrival.h,
	 * mpt_arrival_lead): for schedulers that judge paths by arrival and do not pin
	 * flows to paths */
	bool (*in_order)(const void *priv);
	uint64_t tick_ns;		/* 0: no tick */

	size_t priv_size;		/* <= MPT_SCHED_PRIV_SIZE */
	const struct mpt_param *params;
	size_t nparams;
	const struct mpt_stat *stats;	/* offsets are into priv */
	size_t nstats;

	/* optional (appended, issue 14): packets of flow flow_hash on path were acked
	 * (acked_bytes) or declared lost (lost_bytes), as the core's recovery learns it.
	 * Flow-level schedulers (exp3) measure a flow's own delivery and losses by it. */
	void (*on_flow)(void *priv, const struct mpt_sched_ctx *ctx, uint32_t flow_hash,
			unsigned path, uint64_t acked_bytes, uint64_t lost_bytes);

	/* optional (appended, issue 13): move up to max pending events, oldest first,
	 * into ev and forget them; returns how many. The core calls it after tick and
	 * pick and logs each event and shows it in `watch`. A scheduler keeps a small
	 * bounded queue and counts what it had to drop; it does no I/O itself. */
	unsigned (*drain_events)(void *priv, struct mpt_sched_event *ev, unsigned max);

	/* optional (appended, issue 14): true when pick pins each flow (flow_hash) to
	 * a path, so that a hold holds that flow only: the core sets the flow's packets
	 * aside and goes on with the other flows (src/core/flowhold.h). */
	bool (*per_flow)(const void *priv);
};

/* True when the path is up and its in-flight is below window (bytes). */
static inline bool mpt_path_has_room(const struct mpt_path_view *v, uint64_t window)
{
	return v->up && v->in_flight < window;
}

/* Registry (sched/registry.c). */
const struct mpt_sched_ops *mpt_sched_find(const char *name);
/* Path tags by name ([Path] Tags = metered cellular): "metered", "high_cost",
 * "cellular", "satellite" for the bits of enum mpt_path_tag, in order. */
#define MPT_PATH_TAG_COUNT 4
const char *mpt_path_tag_name(unsigned bit);	/* NULL past the last */
/* A list of tag names separated by spaces or commas into bits; -EINVAL with *bad
 * pointing at the first name that is not a tag. */
int mpt_path_tags_parse(const char *s, uint32_t *tags, const char **bad);
/* The names of tags, separated by spaces ("" for none). */
void mpt_path_tags_format(uint32_t tags, char *buf, size_t len);
size_t mpt_sched_count(void);
const struct mpt_sched_ops *mpt_sched_at(size_t i);
int mpt_sched_registry_check(char *err, size_t errlen);

/* Zero ops->priv_size bytes of priv (the rest of the blob is not touched: an idle
 * session's blob costs no memory beyond them) and apply the defaults of ops->params. */
void mpt_sched_prepare(void *priv, const struct mpt_sched_ops *ops);

#endif
