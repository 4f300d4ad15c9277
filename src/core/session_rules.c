// SPDX-License-Identifier: MIT
/*
 * Steering rules in a session (session_rules.h).
 *
 * Slots: the rules that apply to the session, in match order: the daemon's own (on
 * the anchor those for this peer or every peer), then the anchor's pushed ones (UE).
 * They are rebuilt when a table's generation moved; an instance whose rule is gone
 * hands its queued packets to the default rule's queue (nothing is lost) and is
 * freed; the flow cache starts a new epoch.
 *
 * Flow cache: direct-mapped by the packet's flow hash (pktmeta.h) and DSCP, each
 * entry holding the whole flow key, so a collision is a miss, never a wrong rule.
 *
 * Service: deficit round robin (Shreedhar and Varghese, 1996), so that rules share
 * the paths' room by bytes, not by packets: a round gives every queue a quantum of
 * one full-size packet's bytes, and a queue sends packets while the head fits its
 * credit and its scheduler does not hold it; rounds repeat until every queue is
 * empty or held. An empty queue loses its credit, a held one keeps at most a
 * quantum. A call (an ACK freed some room) starts at the first queue the previous
 * call held before it sent anything, else one queue on, so no queue is always
 * first; but the queues of real-time rules (Ordered = no) come before the others
 * in every round.
 *
 * Real-time rules: a voice packet must not wait for the room that bulk traffic
 * keeps full (a path's window, or its pacer queue). So their schedulers see every
 * path's window as max(cwnd, the bytes the other traffic holds there) plus
 * MPT_RT_ALLOWANCE_PKTS full-size packets: bulk stops at the window and real-time
 * traffic at that allowance past the window or past the bulk, whichever is more,
 * which bounds what it adds to a path. The bulk may hold more than the window when
 * the window was cut under it (BBR's ProbeRTT, a loss): against cwnd alone the voice
 * then waited a round trip for the bulk to drain (its real-time bytes are counted
 * apart, the recovery's rt_in_flight and the head of the pacer queue). Their packets
 * go ahead of the ordered ones waiting in a path's pacer queue (mpt_pktq_push_ahead,
 * in mpt_session_dispatch). The inner pure ACKs go ahead unordered too (session.h),
 * but they are the other traffic's bytes (pkt->realtime is the rules' mark, not
 * pkt->unordered): counted as the rule's own, a download's ACKs used up the voice's
 * allowance whenever they filled a path (atsss-mixed, priority@atsss: at WiFi's
 * degradation its window of ACKs was repaired onto LTE, 16-21 kB "real-time" there
 * against an 11 kB window, and the voice waited or went over the 150 ms WiFi alone).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon.h"
#include "log.h"
#include "session_rules.h"

struct mpt_srules *mpt_rules_get(struct mpt_session *s)
{
	if (!s->rules) {
		s->rules = calloc(1, sizeof(*s->rules));
		if (!s->rules)
			return NULL;
		mpt_ruleset_init(&s->rules->pushed, 0x80000000u);
		s->rules->own_gen = s->rules->pushed_gen = 0;	/* slots built on first use */
	}
	return s->rules;
}

static void inst_free(struct mpt_session *s, struct mpt_rinst *in)
{
	mpt_pktq_purge(&in->q, &s->d->pool);
	free(in->priv);
	free(in);
}

void mpt_rules_session_free(struct mpt_session *s)
{
	struct mpt_srules *rl = s->rules;

	if (!rl)
		return;
	for (unsigned i = 0; i < MPT_RULE_SLOTS; i++)
		if (rl->inst[i])
			inst_free(s, rl->inst[i]);
	mpt_pktq_purge(&rl->dq, &s->d->pool);
	mpt_ruleset_free(&rl->pushed);
	free(rl->push.asm_buf);
	free(rl->cache);
	free(rl);
	s->rules = NULL;
}

static bool for_session(const struct mpt_session *s, const struct mpt_rule *r)
{
	return !r->peer[0] || strcmp(r->peer, s->peer->name) == 0;
}

/* Rebuild the slots from the tables; keep the instances of rules still there. */
static void sync_slots(struct mpt_session *s, struct mpt_srules *rl)
{
	const struct mpt_ruleset *own = &s->d->rules;
	struct mpt_rinst *old[MPT_RULE_SLOTS];
	unsigned n = 0;

	memcpy(old, rl->inst, sizeof(old));
	memset(rl->inst, 0, sizeof(rl->inst));
	for (unsigned i = 0; i < own->n && n < MPT_RULE_SLOTS; i++)
		if (for_session(s, &own->r[i].rule))
			rl->slot[n++] = &own->r[i];
	for (unsigned i = 0; i < rl->pushed.n && n < MPT_RULE_SLOTS; i++)
		rl->slot[n++] = &rl->pushed.r[i];
	rl->nslots = n;
	for (unsigned k = 0; k < MPT_RULE_SLOTS; k++) {
		if (!old[k])
			continue;
		for (unsigned i = 0; i < n && old[k]; i++)
			if (rl->slot[i]->id == old[k]->id && !rl->inst[i]) {
				rl->inst[i] = old[k];
				old[k] = NULL;
			}
		if (old[k]) {		/* its rule is gone: the default rule sends them */
			mpt_pktq_prepend(&rl->dq, &old[k]->q);
			inst_free(s, old[k]);
		}
	}
	rl->own_gen = own->gen;
	rl->pushed_gen = rl->pushed.gen;
	if (++rl->epoch == 0)
		rl->epoch = 1;
}

static inline void rules_sync(struct mpt_session *s, struct mpt_srules *rl)
{
	if (rl->own_gen != s->d->rules.gen || rl->pushed_gen != rl->pushed.gen)
		sync_slots(s, rl);
}

static void flow_key(const struct mpt_pkt_info *info, struct mpt_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)info->family;
	k->proto = info->meta.proto;
	k->dscp = info->meta.dscp;
	k->ports = info->l4_offset && !info->fragment;
	if (k->ports) {
		k->sport = info->sport;
		k->dport = info->dport;
	}
	memcpy(k->src, info->src.bytes, info->family == AF_INET ? 4 : 16);
	memcpy(k->dst, info->dst.bytes, info->family == AF_INET ? 4 : 16);
}

unsigned mpt_rules_classify(struct mpt_session *s, const struct mpt_pkt_info *info)
{
	struct mpt_srules *rl = s->rules;
	bool reversed = s->d->cfg.role == MPT_ROLE_ANCHOR;
	struct mpt_flow_ent *e;
	struct mpt_flow_key k;
	unsigned slot = MPT_RULE_DEFAULT;

	rules_sync(s, rl);
	flow_key(info, &k);
	if (!rl->cache)		/* the session's first packet (out of memory: no cache) */
		rl->cache = calloc(MPT_FLOW_CACHE, sizeof(*rl->cache));
	e = rl->cache ? &rl->cache[(info->meta.flow_hash ^ (uint32_t)k.dscp * 0x9e3779b1u) &
				   (MPT_FLOW_CACHE - 1)] : NULL;
	if (e && e->epoch == rl->epoch && memcmp(&e->key, &k, sizeof(k)) == 0)
		return e->slot;
	for (unsigned i = 0; i < rl->nslots; i++)
		if (mpt_rule_match(&rl->slot[i]->rule, &k, reversed)) {
			slot = i;
			break;
		}
	if (e) {
		e->key = k;
		e->epoch = rl->epoch;
		e->slot = (uint8_t)slot;
	}
	return slot;
}

/* The rule's instance in the session, made now if it is the first packet. */
static struct mpt_rinst *instance(struct mpt_session *s, struct mpt_srules *rl,
				  unsigned slot, uint64_t now)
{
	struct mpt_rule_rt *rt = rl->slot[slot];
	const struct mpt_sched_ops *ops = rt->ops;
	struct mpt_sched_ctx ctx;
	struct mpt_rinst *in;
	char err[192];

	if (rl->inst[slot])
		return rl->inst[slot];
	in = calloc(1, sizeof(*in));
	if (in)
		in->priv = aligned_alloc(64, ops->priv_size ?
					 (ops->priv_size + 63) & ~(size_t)63 : 64);
	if (!in || !in->priv) {
		free(in);
		return NULL;
	}
	in->ops = ops;
	in->id = rt->id;
	mpt_sched_prepare(in->priv, ops);
	for (unsigned i = 0; i < rt->rule.nparams; i++) {
		const struct mpt_param *p = mpt_param_find(ops->params, ops->nparams,
							   rt->rule.params[i].name);

		if (p)		/* checked when the rule was made */
			mpt_param_parse(p, in->priv, rt->rule.params[i].value, err,
					sizeof(err));
	}
	mpt_session_sched_ctx(s, &ctx, now);
	ops->init(in->priv, &ctx);
	rt->st.instances++;
	rl->inst[slot] = in;
	return in;
}

bool mpt_rules_enqueue(struct mpt_session *s, struct mpt_pkt *p,
		       const struct mpt_pkt_info *info, uint64_t now)
{
	struct mpt_srules *rl = mpt_rules_get(s);
	struct mpt_rule_stats *st;
	struct mpt_pktq *q;
	struct mpt_rinst *in = NULL;
	unsigned slot;

	if (!rl || !s->cur.valid)
		return false;	/* the caller's mpt_session_enqueue counts the no-key drop */
	slot = mpt_rules_classify(s, info);
	if (slot != MPT_RULE_DEFAULT)
		in = instance(s, rl, slot, now);
	q = in ? &in->q : &rl->dq;
	st = in ? &rl->slot[slot]->st : &s->d->rules.dflt;
	if (q->pkts >= s->d->cfg.queue_limit) {
		st->drops++;
		s->st.queue_drops++;
		if (log_ratelimit_ok(&s->rl, now))
			log_debug("%s: rule %s: queue full (%u packets): tail drop", s->name,
				  in ? rl->slot[slot]->rule.name : "default", q->pkts);
		mpt_pkt_put(&s->d->pool, p);
		return true;
	}
	p->enq_ns = now;
	st->pkts++;
	st->bytes += p->len;
	s->st.tun_rx_pkts++;
	s->st.tun_rx_bytes += p->len;
	mpt_pktq_push(q, p);
	rl->queued++;
	mpt_daemon_mark(s->d, s);
	return true;
}

/* Queue i of a round: 0 the default rule, k the instance of slot k - 1. */
struct server {
	struct mpt_pktq *q;
	const struct mpt_sched_ops *ops;
	void *priv;
	uint64_t *next_tick;
	struct mpt_rule_stats *st;
	bool unordered;			/* the rule's Ordered = no */
	struct mpt_standing *standing;	/* does q stand (ctx->standing, standing.h) */
	uint32_t *deficit;		/* its credit in the round, bytes */
};

static bool server_of(struct mpt_session *s, struct mpt_srules *rl, unsigned i,
		      struct server *sv)
{
	struct mpt_rinst *in;

	if (i == 0) {
		*sv = (struct server){ &rl->dq, s->sched, s->sched_priv, &s->next_tick_ns,
				       &s->d->rules.dflt, false, &s->standing,
				       &rl->dq_deficit };
		return rl->dq.head != NULL;
	}
	in = rl->inst[i - 1];
	if (!in || !in->q.head)
		return false;
	*sv = (struct server){ &in->q, in->ops, in->priv, &in->next_tick_ns,
			       &rl->slot[i - 1]->st, rl->slot[i - 1]->rule.unordered,
			       &in->standing, &in->deficit };
	return true;
}

/* Bytes of real-time packets on path p: in flight, and at the head of its pacer queue
 * (they go ahead of the others, mpt_pktq_push_ahead, as the inner pure ACKs do: those
 * are unordered too, but the other traffic's). */
static uint64_t realtime_bytes(const struct mpt_path *p)
{
	uint64_t n = p->rec.rt_in_flight;

	for (const struct mpt_pkt *k = p->txq.head; k && k->unordered; k = k->next)
		if (k->realtime)
			n += k->len;
	return n;
}

/* The pick of sv's scheduler; a real-time rule's sees each window as max(cwnd, what
 * the other traffic holds on the path) + the allowance. */
static uint32_t pick(struct mpt_session *s, const struct server *sv,
		     struct mpt_sched_ctx *ctx, const struct mpt_pkt_meta *meta)
{
	uint64_t allow = (uint64_t)MPT_RT_ALLOWANCE_PKTS * s->d->pool.mtu;
	uint64_t saved[MPT_MAX_PATHS];
	uint32_t mask;

	if (!sv->unordered)
		return sv->ops->pick(sv->priv, ctx, meta);
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path_view *v = &s->views[i];
		uint64_t rt = realtime_bytes(&s->paths[i]);
		uint64_t other = v->in_flight > rt ? v->in_flight - rt : 0;

		saved[i] = v->cwnd;
		v->cwnd = MPT_MAX(v->cwnd, other) + allow;
	}
	mask = sv->ops->pick(sv->priv, ctx, meta);
	for (unsigned i = 0; i < s->npaths; i++)
		s->views[i].cwnd = saved[i];
	return mask;
}

/* One packet of sv's queue to the paths its scheduler picks; false: held. */
static bool serve_one(struct mpt_session *s, struct mpt_srules *rl, struct server *sv,
		      struct mpt_sched_ctx *ctx, uint32_t usable, uint32_t min_fit,
		      uint64_t now)
{
	struct mpt_pkt *pkt = sv->q->head;
	uint32_t mask;

	ctx->queue_pkts = sv->q->pkts;
	ctx->queue_bytes = sv->q->bytes;
	if (sv->ops->tick && now >= *sv->next_tick) {
		sv->ops->tick(sv->priv, ctx);
		*sv->next_tick = now + sv->ops->tick_ns;
	}
	if (pkt->len > min_fit) {
		/* some usable path cannot carry it: the default rule's MTU handling
		 * (session_pmtu.c) takes it from the scheduler queue */
		mpt_pktq_pop(sv->q);
		rl->queued--;
		pkt->dsn = MPT_DSN_UNSET;	/* numbered as it leaves (session.h) */
		mpt_pktq_push(&s->squeue, pkt);
		mpt_sparse_bulk(&s->sparse, pkt);	/* its flow waits bulk (sparse.h) */
		mpt_daemon_mark(s->d, s);
		return true;
	}
	ctx->standing = sv->standing->on;
	mask = pick(s, sv, ctx, &pkt->meta) & usable;
	if (!mask) {
		sv->st->holds++;
		s->st.holds++;
		mpt_standing_update(sv->standing, now,
				    now - pkt->enq_ns + mpt_session_least_queueing(ctx));
		return false;
	}
	/* the queue stands as the rule-less scheduler queue does (session_tx.c): the
	 * cheapest-path family spills to dearer paths only while it stands */
	mpt_standing_update(sv->standing, now, now - pkt->enq_ns +
			    mpt_session_path_queueing(&ctx->paths[__builtin_ctz(mask)]));
	mpt_pktq_pop(sv->q);
	rl->queued--;
	if (sv->unordered) {		/* Ordered = no: its own numbers, no holes */
		pkt->unordered = pkt->realtime = true;
		pkt->dsn = s->next_udsn++;
	} else {
		pkt->dsn = MPT_DSN_UNSET;
		mpt_session_number(s, pkt);	/* a pure ACK: unordered too */
	}
	sv->st->copies += (unsigned)__builtin_popcount(mask) - 1;
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);

		sv->st->path_pkts[i]++;
		sv->st->path_bytes[i] += pkt->len;
	}
	mpt_session_dispatch(s, pkt, mask);
	return true;
}

/* Queue sv's turn in a round: a quantum more credit, packets while the head fits it.
 * False when the queue leaves the rounds (empty or held); *sent: a packet left. */
static bool serve_turn(struct mpt_session *s, struct mpt_srules *rl, struct server *sv,
		       struct mpt_sched_ctx *ctx, uint32_t usable, uint32_t min_fit,
		       uint64_t now, bool *sent)
{
	uint32_t quantum = s->d->pool.mtu;

	*sv->deficit += quantum;
	while (sv->q->head && sv->q->head->len <= *sv->deficit) {
		uint32_t len = sv->q->head->len;

		if (!serve_one(s, rl, sv, ctx, usable, min_fit, now)) {
			*sv->deficit = MPT_MIN(*sv->deficit, quantum);
			return false;
		}
		*sent = true;
		*sv->deficit -= len;
	}
	if (!sv->q->head)
		*sv->deficit = 0;
	return sv->q->head != NULL;
}

void mpt_rules_schedule(struct mpt_session *s, struct mpt_sched_ctx *ctx, uint32_t usable,
			uint32_t min_fit, uint64_t now)
{
	struct mpt_srules *rl = s->rules;
	uint8_t active[MPT_RULE_SLOTS + 1];
	unsigned n = 0, nq, start, starved = UINT_MAX;
	bool progress = true;

	if (!rl || !rl->queued)
		return;
	rules_sync(s, rl);
	nq = rl->nslots + 1;
	start = rl->turn % nq;
	for (unsigned rt = 2; rt-- > 0; )	/* real-time rules' queues first */
		for (unsigned k = 0; k < nq; k++) {
			unsigned i = (start + k) % nq;
			struct server sv;

			if (server_of(s, rl, i, &sv) && sv.unordered == rt)
				active[n++] = (uint8_t)i;
		}
	while (progress && n) {
		progress = false;
		for (unsigned k = 0; k < n; ) {
			struct server sv;
			bool sent = false, has = server_of(s, rl, active[k], &sv);

			if (has && serve_turn(s, rl, &sv, ctx, usable, min_fit, now, &sent)) {
				progress = true;
				k++;
				continue;
			}
			progress |= sent;
			if (has && sv.q->head && !sent && starved == UINT_MAX)
				starved = active[k];
			/* empty or held: out, the order of the rest kept */
			memmove(&active[k], &active[k + 1], --n - k);
		}
	}
	/* the next call starts at the first queue held before it sent anything (the
	 * room went to the queues before it), as a round of DRR goes on from where it
	 * stopped; else one queue on */
	rl->turn = starved != UINT_MAX ? starved : start + 1;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

uint64_t mpt_rules_deadline(const struct mpt_session *s)
{
	const struct mpt_srules *rl = s->rules;
	uint64_t at = 0;

	if (!rl || !rl->queued)
		return 0;
	if (rl->dq.head && s->sched->tick)
		at = earliest(at, s->next_tick_ns ? s->next_tick_ns : 1);
	for (unsigned i = 0; i < rl->nslots; i++) {
		const struct mpt_rinst *in = rl->inst[i];

		if (in && in->q.head && in->ops->tick)
			at = earliest(at, in->next_tick_ns ? in->next_tick_ns : 1);
	}
	return at;
}

void mpt_rules_on_ack(struct mpt_session *s, const struct mpt_sched_ctx *ctx, unsigned path,
		      uint64_t bytes)
{
	for (unsigned i = 0; s->rules && i < s->rules->nslots; i++) {
		struct mpt_rinst *in = s->rules->inst[i];

		if (in && in->ops->on_ack)
			in->ops->on_ack(in->priv, ctx, path, bytes);
	}
}

void mpt_rules_on_loss(struct mpt_session *s, const struct mpt_sched_ctx *ctx,
		       unsigned path, uint64_t bytes)
{
	for (unsigned i = 0; s->rules && i < s->rules->nslots; i++) {
		struct mpt_rinst *in = s->rules->inst[i];

		if (in && in->ops->on_loss)
			in->ops->on_loss(in->priv, ctx, path, bytes);
	}
}

void mpt_rules_on_path_change(struct mpt_session *s, const struct mpt_sched_ctx *ctx,
			      unsigned path, bool up)
{
	for (unsigned i = 0; s->rules && i < s->rules->nslots; i++) {
		struct mpt_rinst *in = s->rules->inst[i];

		if (in && in->ops->on_path_change)
			in->ops->on_path_change(in->priv, ctx, path, up);
	}
}
