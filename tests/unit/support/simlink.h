/* SPDX-License-Identifier: MIT */
/*
 * Simulated multipath session in virtual time, running the real algorithm code:
 * struct mpt_recovery and a real congestion controller per path, a real scheduler
 * (by name from the registry) over all paths. Deterministic: same config and seed,
 * same run, bit for bit. No clock, no threads, no I/O.
 *
 *   source --> [scheduler queue] --pick()--> path i: [pacer] --> [bottleneck FIFO]
 *   (greedy     (bounded, FIFO)               token bucket at     rate, queue_bytes,
 *    or rate)                                 cc->pacing_rate,    tail drop, random
 *                                             gated by cwnd       loss, delay_ns
 *                                                                       |
 *   sender <---- ACK frames after rev_delay_ns <---- receiver (ACK every 1 or 2
 *   recovery -> cc on_loss/on_ack -> scheduler on_ack/on_loss    packets, delayed ACK)
 *
 * Model details:
 *  - Link: serialization at rate (bytes/s) after a FIFO whose occupancy (bytes waiting
 *    plus the one in service) is bounded by queue_bytes (0: unbounded); a packet that
 *    does not fit is tail-dropped. Random loss (probability loss, from the session's
 *    seeded rng) hits a packet as it enters the link. Propagation delay_ns after
 *    serialization. ACKs take rev_delay_ns (default delay_ns), no queue, no loss.
 *    A link set down drops everything entering it and every ACK arriving over it.
 *  - Sender: a packet the scheduler gives a path waits in the path's pacer (a token
 *    bucket of burst_pkts * mss at cc->pacing_rate; unpaced when the rate is 0) and
 *    leaves when the bucket allows and recovery in_flight < cwnd. The scheduler's view
 *    counts in_flight = recovery in_flight + bytes waiting in the pacer. The loss timer
 *    and an RFC 9002 PTO run per path; on PTO with nothing acked, one probe packet is
 *    taken from the scheduler queue past cwnd (so tail losses cannot stall the path).
 *  - Receiver: ACKs every ack_every-th packet at once, otherwise after ack_delay_ns;
 *    the frame carries the highest received ranges and the ACK delay of the largest.
 *  - Source: greedy (an endless backlog: the scheduler queue is always full, the
 *    scheduler sees queue_pkts packets) or a constant rate of pkt_len-byte packets
 *    into a queue of at most queue_pkts (excess counted dropped); a rate source can
 *    change its rate during the run (sim_session_set_source_rate).
 *    Packets carry flow_hash = seq % nflows + 1 (nflows default 1).
 *  - The scheduler is asked for the head packet after every event that may free room;
 *    its tick runs every ops->tick_ns. When the scheduler queue is empty and a path is
 *    not cwnd-limited, that path's recovery is marked app-limited.
 *
 * Use:
 *	struct sim_session_cfg cfg = { .npaths = 2, .sched = "minrtt", .seed = 1 };
 *	cfg.paths[0] = (struct sim_path_cfg){ .name = "wifi", .cc = "bbr",
 *		.link = { .rate = 50e6 / 8, .delay_ns = 16 * MS, .queue_bytes = 200000 } };
 *	...
 *	struct sim_session *s = sim_session_new(&cfg);   (NULL + message on bad config)
 *	sim_session_run_until(s, 10 * SEC);
 *	const struct sim_path_stats *st = sim_path_stats(s, 0);
 *	sim_session_free(s);
 * A hook (cfg.hook, every hook_interval_ns of virtual time, or after every event when
 * 0) lets a test sample state or change the links (sim_path_link, sim_path_set_up)
 * as the run goes.
 */
#ifndef MPTUND_TEST_SIMLINK_H
#define MPTUND_TEST_SIMLINK_H

#include <mptund/cc.h>
#include <mptund/sched.h>

#include "recovery.h"

struct sim_session;

struct sim_link_cfg {
	uint64_t rate;			/* bytes/s (> 0) */
	uint64_t delay_ns;		/* one-way propagation, data direction */
	uint64_t queue_bytes;		/* bottleneck FIFO limit; 0 = unbounded */
	double loss;			/* random loss probability, 0..1 */
};

struct sim_path_cfg {
	const char *name;		/* default "pN" */
	struct sim_link_cfg link;
	uint64_t rev_delay_ns;		/* ACK one-way delay; 0 = link.delay_ns */
	const char *cc;			/* controller name; default "bbr" */
	uint32_t mss;			/* default 1200 */
	uint32_t cost, weight;		/* scheduler view */
	uint64_t capacity;		/* scheduler view, bytes/s */
	uint32_t ack_every;		/* 1 or 2; default 2 */
	uint64_t ack_delay_ns;		/* delayed-ACK timer; default 1 ms */
	uint32_t burst_pkts;		/* pacer bucket, packets; default 2 */
	bool down;			/* start with the link down */
	uint32_t tags;			/* scheduler view: enum mpt_path_tag bits */
};

typedef void (*sim_hook_fn)(struct sim_session *s, void *arg);

struct sim_session_cfg {
	unsigned npaths;		/* 1..MPT_MAX_PATHS */
	struct sim_path_cfg paths[MPT_MAX_PATHS];
	const char *sched;		/* scheduler name; default "rr" */
	uint64_t seed;
	uint64_t source_rate;		/* bytes/s; 0 = greedy */
	uint32_t pkt_len;		/* source packet size; default 1200 (<= every mss) */
	uint32_t queue_pkts;		/* scheduler queue limit; default 1000 */
	uint32_t nflows;		/* flow hashes to cycle through; default 1 */
	sim_hook_fn hook;
	void *hook_arg;
	uint64_t hook_interval_ns;	/* 0: after every event */
	uint32_t ring_pkts;		/* sent-packet ring per path (packets in flight
					 * at most); default 65536 */
};

struct sim_path_stats {
	uint64_t handed_pkts, handed_bytes;	/* given to the path by the scheduler */
	uint64_t sent_pkts, sent_bytes;		/* left the pacer onto the link */
	uint64_t delivered_pkts, delivered_bytes; /* reached the receiver */
	uint64_t acked_pkts, acked_bytes;	/* acknowledged to the sender */
	uint64_t lost_pkts, lost_bytes;		/* declared lost by recovery */
	uint64_t queue_drops, random_drops, down_drops;
	uint64_t probes;			/* PTO probes sent */
	uint64_t queue_max;			/* bytes, bottleneck FIFO */
	double queue_area;			/* byte-ns, for the mean */
	uint64_t rtt_samples, rtt_min_ns, rtt_max_ns;
	double rtt_sum_ns;
	uint64_t since_ns;			/* stats window start */
};

struct sim_session *sim_session_new(const struct sim_session_cfg *cfg);
void sim_session_free(struct sim_session *s);

/* Run the event loop until virtual time t_ns (inclusive). */
void sim_session_run_until(struct sim_session *s, uint64_t t_ns);
uint64_t sim_now(const struct sim_session *s);

/* Set a tunable of path's controller (path >= 0) or of the scheduler (path < 0) from
 * text, then call params_changed. 0 or -EINVAL/-ERANGE/-ENOENT (message on stderr). */
int sim_session_set_param(struct sim_session *s, int path, const char *name,
			  const char *value);

/* Change a rate source's rate (bytes/s > 0) from the next packet on; -EINVAL for a
 * greedy source or a zero rate. */
int sim_session_set_source_rate(struct sim_session *s, uint64_t rate);

/* Session-level figures. */
uint64_t sim_session_generated(const struct sim_session *s);	/* pkts from source */
uint64_t sim_session_source_drops(const struct sim_session *s);
uint32_t sim_session_queue_pkts(const struct sim_session *s);	/* scheduler queue */
void *sim_session_sched_priv(struct sim_session *s);
const struct mpt_sched_ops *sim_session_sched_ops(const struct sim_session *s);
/* The view the scheduler would see now (refreshed by this call). */
const struct mpt_path_view *sim_session_views(struct sim_session *s);
/* Restart every path's stats window at now (counters, queue max/mean, RTT). */
void sim_session_reset_stats(struct sim_session *s);

/* Per path. */
const struct sim_path_stats *sim_path_stats(const struct sim_session *s, unsigned i);
double sim_path_queue_mean(const struct sim_session *s, unsigned i);	/* bytes */
double sim_path_rtt_mean_ns(const struct sim_session *s, unsigned i);
uint64_t sim_path_queue_bytes(const struct sim_session *s, unsigned i);
/* Goodput at the receiver over the stats window, bytes/s. */
double sim_path_goodput(const struct sim_session *s, unsigned i);
struct mpt_cc *sim_path_cc(struct sim_session *s, unsigned i);
const struct mpt_cc_ops *sim_path_cc_ops(const struct sim_session *s, unsigned i);
const struct mpt_recovery *sim_path_recovery(const struct sim_session *s, unsigned i);
/* Mutable link model: change rate, delay, loss or queue at run time. */
struct sim_link_cfg *sim_path_link(struct sim_session *s, unsigned i);
/* Link down: drops traffic; the sender forgets its in-flight packets, the controller
 * restarts, the scheduler is told. Up: the path is usable again. */
void sim_path_set_up(struct sim_session *s, unsigned i, bool up);

#endif
