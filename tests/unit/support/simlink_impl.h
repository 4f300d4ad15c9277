/* SPDX-License-Identifier: MIT */
/* Internals of the simulated session shared by simlink.c (model, event loop) and
 * simlink_setup.c (construction, accessors). Tests use simlink.h only. */
#ifndef MPTUND_TEST_SIMLINK_IMPL_H
#define MPTUND_TEST_SIMLINK_IMPL_H

#include "simlink.h"
#include "standing.h"

enum ev_type {
	EV_LINK_OUT,		/* serialization done: leaves the bottleneck */
	EV_RX,			/* arrives at the receiver */
	EV_ACK_TIMER,		/* receiver's delayed-ACK timer */
	EV_ACK_RX,		/* ACK frame arrives at the sender */
	EV_PACER,		/* pacer may send */
	EV_LOSS_TIMER,
	EV_PTO,
	EV_SOURCE,
	EV_TICK,
	EV_HOOK,
};

struct event {
	uint64_t t, seq;
	uint8_t type, path;
	uint32_t len;
	uint64_t pn;
	uint64_t gen;			/* timers: generation, stale when different */
	struct mpt_ack_info *ack;
};

struct fifo {
	uint32_t *len;
	uint64_t *at;			/* scheduler queue: when each entry was pushed;
					 * pacer: the packet's flow hash */
	size_t head, n, cap;
	uint64_t bytes;
};

struct rx_state {
	struct mpt_ack_range r[MPT_ACK_MAX_RANGES];	/* highest first */
	unsigned nranges;
	uint64_t largest_rx_ns;		/* arrival time of the largest */
	uint32_t unacked;		/* packets since the last ACK */
	uint64_t timer_gen;
	bool timer_armed;
};

struct sim_path {
	struct sim_session *sess;	/* owner, for the per-flow report */
	unsigned idx;
	struct sim_path_cfg cfg;
	char name[MPT_NAME_LEN];
	bool up;
	/* sender */
	struct mpt_recovery rec;
	struct mpt_cc cc;
	const struct mpt_cc_ops *ops;
	struct fifo pacer;
	double tokens;
	uint64_t tokens_ns;
	bool pacer_armed;
	uint64_t next_pn;
	uint64_t loss_gen, loss_at;
	uint64_t pto_gen, pto_backoff;
	uint32_t probe_credit;
	/* link */
	uint64_t q_bytes, link_free_ns, q_changed_ns;
	/* receiver */
	struct rx_state rx;
	struct sim_path_stats st;
};

struct sim_session {
	struct sim_session_cfg cfg;
	uint64_t now, seq;
	struct event *heap;
	size_t nheap, capheap;
	struct mpt_rng rng;		/* the session's: scheduler, cc init */
	struct mpt_rng link_rng;	/* random loss */
	unsigned npaths;
	struct sim_path p[MPT_MAX_PATHS];
	const struct mpt_sched_ops *sops;
	_Alignas(16) unsigned char spriv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view views[MPT_MAX_PATHS];
	struct fifo q;			/* scheduler queue (rate source) */
	struct mpt_standing standing;	/* as the daemon's session (standing.h) */
	uint64_t generated, source_drops, flow_seq;
	uint64_t tick_last;
	bool in_hook;
};

struct mpt_cc_path sim_cc_path(const struct sim_path *p);
void sim_refresh_views(struct sim_session *s);
struct mpt_sched_ctx sim_sched_ctx(struct sim_session *s);
void sim_schedule(struct sim_session *s);
void sim_ev_at(struct sim_session *s, uint64_t t, uint8_t type, unsigned path);
uint32_t sim_fifo_pop(struct fifo *f);
void sim_flow_release(void *arg, void *data, bool lost);

#endif
