/* SPDX-License-Identifier: MIT */
/*
 * Steering rules in a session (session_rules.c): which rule a packet belongs to,
 * through a flow cache; each rule's scheduler instance and queue, made on the rule's
 * first packet in the session; the queues served in turn so that a rule whose
 * scheduler holds its packet does not hold the others.
 *
 * A session of a daemon without rules has no struct mpt_srules (s->rules == NULL) and
 * takes the path it always took: mpt_session_enqueue, the scheduler queue, one
 * scheduler. With rules, every packet from the TUN goes through mpt_rules_enqueue into
 * its rule's queue (the default rule's is rl->dq, served by the session's scheduler);
 * packets get their data sequence number when they leave a queue, so a held queue
 * leaves no hole for the receiver's reorder buffer to wait on. s->squeue still takes
 * the packets that come back to the scheduler (a path went down, its MTU fell).
 */
#ifndef MPTUND_SESSION_RULES_H
#define MPTUND_SESSION_RULES_H

#include "pktmeta.h"
#include "ruleset.h"
#include "session.h"

#define MPT_RULE_SLOTS		(2 * MPT_MAX_RULES)	/* own rules, then pushed ones */
#define MPT_RULE_DEFAULT	0xff			/* slot of the default rule */
#define MPT_FLOW_CACHE		128			/* entries, a power of two */
#define MPT_RULES_PUSH_MAX	16384			/* bytes of a pushed rule set */
#define MPT_RT_ALLOWANCE_PKTS	4	/* a real-time rule (Ordered = no) may fill a
					 * path beyond its cwnd, or beyond what other
					 * traffic holds there if more, by this many
					 * full-size packets (session_rules.c) */

/* One rule's scheduler instance in a session. */
struct mpt_rinst {
	const struct mpt_sched_ops *ops;
	void *priv;				/* ops->priv_size bytes */
	struct mpt_pktq q;
	uint64_t next_tick_ns;
	struct mpt_standing standing;		/* does q stand (standing.h) */
	uint32_t deficit;			/* credit in the rounds, bytes */
	uint32_t id;				/* mpt_rule_rt.id */
};

struct mpt_flow_ent {
	struct mpt_flow_key key;
	uint32_t epoch;				/* 0: empty */
	uint8_t slot;
};

/* RULES frames (rules_push.c, mptund-proto(7)). */
struct mpt_rules_push {
	uint32_t acked;				/* anchor: the set the UE confirmed, or
						 * one with nothing to tell it */
	bool told;				/* anchor: it was sent rules (since the
						 * last fresh start) */
	uint32_t sent;				/* anchor: the set last sent */
	uint64_t next_ns;			/* anchor: its next resend */
	uint32_t seq;				/* UE: the set installed; 0 none */
	bool ack_due;				/* UE: confirm seq with the next probe */
	uint32_t asm_seq;			/* UE: the set being reassembled */
	uint8_t asm_count;
	uint16_t asm_have;			/* fragments received, a bit each */
	uint16_t asm_len[16];
	char *asm_buf;				/* 16 x 1024 bytes, while reassembling */
};

struct mpt_srules {
	uint32_t own_gen, pushed_gen;		/* of the tables the slots were built from */
	uint32_t epoch;				/* flow cache entries of another are stale */
	unsigned nslots;
	unsigned queued;			/* packets in dq and every instance's q */
	unsigned turn;				/* the queue the next call starts at */
	struct mpt_rule_rt *slot[MPT_RULE_SLOTS];
	struct mpt_rinst *inst[MPT_RULE_SLOTS];	/* NULL until the rule's first packet */
	struct mpt_pktq dq;			/* the default rule's queue */
	uint32_t dq_deficit;			/* its credit in the rounds, bytes */
	struct mpt_ruleset pushed;		/* UE: the anchor's rules */
	struct mpt_rules_push push;
	struct mpt_flow_ent *cache;		/* MPT_FLOW_CACHE, with the first packet */
};

/* Does the session steer by rules (own or pushed), or have rule queues to drain? */
static inline bool mpt_rules_active(const struct mpt_session *s, const struct mpt_ruleset *own)
{
	return own->n || (s->rules && (s->rules->pushed.n || s->rules->queued));
}

/* Packets waiting in the session's rule queues. */
static inline unsigned mpt_rules_queued(const struct mpt_session *s)
{
	return s->rules ? s->rules->queued : 0;
}

/* The session's rule state, made when first needed; NULL when out of memory. */
struct mpt_srules *mpt_rules_get(struct mpt_session *s);
void mpt_rules_session_free(struct mpt_session *s);

/* Rule slot of the packet (MPT_RULE_DEFAULT: no rule matched). */
unsigned mpt_rules_classify(struct mpt_session *s, const struct mpt_pkt_info *info);
/* A packet from the TUN, classified, into its rule's queue (or a counted drop): true.
 * False, the packet untouched, when the session has no keys (or no memory for rule
 * state): the caller hands it to mpt_session_enqueue, which counts the drop. */
bool mpt_rules_enqueue(struct mpt_session *s, struct mpt_pkt *p,
		       const struct mpt_pkt_info *info, uint64_t now);
/* Serve the rule queues in turn (after s->squeue); ctx as schedule() built it. */
void mpt_rules_schedule(struct mpt_session *s, struct mpt_sched_ctx *ctx, uint32_t usable,
			uint32_t min_fit, uint64_t now);
/* Earliest tick due of a scheduler with queued packets; 0 none. */
uint64_t mpt_rules_deadline(const struct mpt_session *s);

/* RULES frames (rules_push.c): the anchor's periodic (re)send, a fresh start, and a
 * received frame. */
void mpt_rules_push_tick(struct mpt_session *s, uint64_t now);
void mpt_rules_push_restart(struct mpt_session *s);
void mpt_rules_on_frame(struct mpt_session *s, struct mpt_path *p,
			const struct mpt_rules_frag *f, uint64_t now);

/* Events for every rule instance of the session. */
void mpt_rules_on_ack(struct mpt_session *s, const struct mpt_sched_ctx *ctx, unsigned path,
		      uint64_t bytes);
void mpt_rules_on_loss(struct mpt_session *s, const struct mpt_sched_ctx *ctx,
		       unsigned path, uint64_t bytes);
void mpt_rules_on_path_change(struct mpt_session *s, const struct mpt_sched_ctx *ctx,
			      unsigned path, bool up);

#endif
