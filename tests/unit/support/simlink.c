// SPDX-License-Identifier: MIT
/*
 * Simulated multipath session (see simlink.h for the model). A binary heap of events
 * ordered by (time, sequence) drives everything; the sequence number makes ties
 * deterministic. Packets in the pacer and the scheduler queue are plain FIFOs of
 * lengths; packets on the wire travel inside events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simlink_impl.h"

/* ---- small containers ---- */

static void fifo_push_at(struct fifo *f, uint32_t len, uint64_t at)
{
	if (f->n == f->cap) {
		size_t ncap = f->cap ? 2 * f->cap : 64;
		uint32_t *nl = malloc(ncap * sizeof(*nl));
		uint64_t *na = malloc(ncap * sizeof(*na));

		if (!nl || !na)
			abort();
		for (size_t i = 0; i < f->n; i++) {
			nl[i] = f->len[(f->head + i) % f->cap];
			na[i] = f->at[(f->head + i) % f->cap];
		}
		free(f->len);
		free(f->at);
		f->len = nl;
		f->at = na;
		f->head = 0;
		f->cap = ncap;
	}
	f->at[(f->head + f->n) % f->cap] = at;
	f->len[(f->head + f->n) % f->cap] = len;
	f->n++;
	f->bytes += len;
}

static uint32_t fifo_peek(const struct fifo *f)
{
	return f->len[f->head];
}

uint32_t sim_fifo_pop(struct fifo *f)
{
	uint32_t len = f->len[f->head];

	f->head = (f->head + 1) % f->cap;
	f->n--;
	f->bytes -= len;
	return len;
}

static bool ev_less(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ev_push(struct sim_session *s, struct event e)
{
	size_t i;

	if (s->nheap == s->capheap) {
		s->capheap = s->capheap ? 2 * s->capheap : 1024;
		s->heap = realloc(s->heap, s->capheap * sizeof(*s->heap));
		if (!s->heap)
			abort();
	}
	e.seq = s->seq++;
	i = s->nheap++;
	while (i > 0 && ev_less(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

static struct event ev_pop(struct sim_session *s)
{
	struct event top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && ev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

void sim_ev_at(struct sim_session *s, uint64_t t, uint8_t type, unsigned path)
{
	ev_push(s, (struct event){ .t = t, .type = type, .path = (uint8_t)path });
}

/* ---- views and the scheduler ---- */

struct mpt_cc_path sim_cc_path(const struct sim_path *p)
{
	return (struct mpt_cc_path){
		.delivered = p->rec.delivered,
		.in_flight = p->rec.in_flight,
		.srtt_ns = p->rec.have_rtt ? p->rec.srtt_ns : 0,
		.min_rtt_ns = p->rec.have_rtt ? p->rec.min_rtt_ns : 0,
		.mss = p->cfg.mss,
		.capacity = p->cfg.capacity,
		.max_ack_delay_ns = p->cfg.ack_delay_ns,	/* the receivers' (below) */
	};
}

void sim_refresh_views(struct sim_session *s)
{
	for (unsigned i = 0; i < s->npaths; i++) {
		const struct sim_path *p = &s->p[i];
		struct mpt_path_view *v = &s->views[i];

		v->id = (uint8_t)i;
		memcpy(v->name, p->name, sizeof(v->name));
		v->cost = p->cfg.cost;
		v->weight = p->cfg.weight;
		v->capacity = p->cfg.capacity;
		v->up = p->up;
		v->mtu = p->cfg.mss;
		v->cwnd = p->cc.cwnd;
		v->in_flight = p->rec.in_flight + p->pacer.bytes;
		v->pacing_rate = p->cc.pacing_rate;
		v->btlbw = p->cc.btlbw;
		v->delivery_rate = p->rec.delivery_rate;
		v->cc_state = p->cc.state;
		v->srtt_ns = p->rec.have_rtt ? p->rec.srtt_ns : 0;
		v->rttvar_ns = p->rec.have_rtt ? p->rec.rttvar_ns : 0;
		v->min_rtt_ns = p->rec.have_rtt ? p->rec.min_rtt_ns : 0;
		v->latest_rtt_ns = p->rec.latest_rtt_ns;
		v->sent_pkts = p->rec.sent_pkts;
		v->sent_bytes = p->rec.sent_bytes;
		v->delivered_pkts = p->rec.acked_pkts;
		v->delivered_bytes = p->rec.acked_bytes;
		v->lost_pkts = p->rec.lost_pkts;
		v->lost_bytes = p->rec.lost_bytes;
		v->queued_bytes = p->pacer.bytes;
		v->tags = p->cfg.tags;
	}
}

struct mpt_sched_ctx sim_sched_ctx(struct sim_session *s)
{
	sim_refresh_views(s);
	return (struct mpt_sched_ctx){
		.paths = s->views, .npaths = s->npaths, .now = s->now,
		/* a greedy source's backlog keeps the bounded queue full */
		.queue_pkts = s->cfg.source_rate ? (uint32_t)s->q.n : s->cfg.queue_pkts,
		.queue_bytes = s->cfg.source_rate ? s->q.bytes :
			       (uint64_t)s->cfg.queue_pkts * s->cfg.pkt_len,
		.standing = s->cfg.source_rate ? s->standing.on : true,	/* greedy: stands */
		.rng = &s->rng,
	};
}

static bool queue_empty(const struct sim_session *s)
{
	return s->cfg.source_rate && s->q.n == 0;
}

static uint32_t queue_head(const struct sim_session *s)
{
	return s->cfg.source_rate ? fifo_peek(&s->q) : s->cfg.pkt_len;
}

static void queue_pop(struct sim_session *s)
{
	if (s->cfg.source_rate)
		sim_fifo_pop(&s->q);
	else
		s->generated++;
	s->flow_seq++;
}

static void pacer_kick(struct sim_session *s, unsigned i);

static void hand_to_path(struct sim_session *s, unsigned i, uint32_t len, uint32_t flow)
{
	struct sim_path *p = &s->p[i];

	p->st.handed_pkts++;
	p->st.handed_bytes += len;
	fifo_push_at(&p->pacer, len, flow);
}

static uint32_t queue_flow(const struct sim_session *s)
{
	return (uint32_t)(s->flow_seq % s->cfg.nflows) + 1;
}

/* Ask the scheduler about the head packet until it holds or the queue is empty. */
void sim_schedule(struct sim_session *s)
{
	unsigned guard = 0;

	if (queue_empty(s))
		mpt_standing_update(&s->standing, s->now, 0);	/* as the daemon */
	while (!queue_empty(s) && guard++ < 4096) {
		struct mpt_sched_ctx ctx = sim_sched_ctx(s);
		struct mpt_pkt_meta meta = {
			.len = queue_head(s),
			.flow_hash = queue_flow(s),
			.proto = 17,
		};
		uint32_t mask = s->sops->pick(s->spriv, &ctx, &meta);
		uint64_t wait = s->cfg.source_rate ? s->now - s->q.at[s->q.head] : 0;

		mask &= (1u << s->npaths) - 1;
		mpt_standing_update(&s->standing, s->now, wait);	/* as the daemon */
		if (!mask)
			break;
		for (unsigned i = 0; i < s->npaths; i++)
			if (mask & (1u << i))
				hand_to_path(s, i, meta.len, meta.flow_hash);
		queue_pop(s);
	}
	for (unsigned i = 0; i < s->npaths; i++)
		pacer_kick(s, i);
}

/* ---- sender ---- */

static void arm_pto(struct sim_session *s, unsigned i)
{
	struct sim_path *p = &s->p[i];
	struct event e = { .type = EV_PTO, .path = (uint8_t)i };

	p->pto_gen++;
	if (p->rec.in_flight == 0)
		return;
	e.gen = p->pto_gen;
	e.t = s->now + (mpt_recovery_pto(&p->rec) << MPT_MIN(p->pto_backoff, 10));
	ev_push(s, e);
}

static void arm_loss_timer(struct sim_session *s, unsigned i)
{
	struct sim_path *p = &s->p[i];
	uint64_t d = mpt_recovery_loss_deadline(&p->rec);
	struct event e = { .type = EV_LOSS_TIMER, .path = (uint8_t)i };

	if (d == 0 || d == p->loss_at)
		return;
	p->loss_at = d;
	e.gen = ++p->loss_gen;
	e.t = MPT_MAX(d, s->now);
	ev_push(s, e);
}

static void link_enqueue(struct sim_session *s, unsigned i, uint64_t pn, uint32_t len)
{
	struct sim_path *p = &s->p[i];
	const struct sim_link_cfg *l = &p->cfg.link;
	struct event e = { .type = EV_LINK_OUT, .path = (uint8_t)i, .pn = pn, .len = len };

	if (!p->up) {
		p->st.down_drops++;
		return;
	}
	if (l->loss > 0 && mpt_rng_double(&s->link_rng) < l->loss) {
		p->st.random_drops++;
		return;
	}
	if (l->queue_bytes && p->q_bytes + len > l->queue_bytes) {
		p->st.queue_drops++;
		return;
	}
	p->st.queue_area += (double)p->q_bytes * (double)(s->now - p->q_changed_ns);
	p->q_changed_ns = s->now;
	p->q_bytes += len;
	if (p->q_bytes > p->st.queue_max)
		p->st.queue_max = p->q_bytes;
	p->link_free_ns = MPT_MAX(p->link_free_ns, s->now) +
			  (uint64_t)len * MPT_NSEC_PER_SEC / l->rate;
	e.t = p->link_free_ns;
	ev_push(s, e);
}

/* The scheduler's per-flow report (ops->on_flow): the packet's flow hash and length
 * ride in recovery's owner pointer and come back once, acked or lost. */
_Static_assert(sizeof(void *) >= sizeof(uint64_t), "flow tag needs 64-bit pointers");

void sim_flow_release(void *arg, void *data, bool lost)
{
	struct sim_path *p = arg;
	struct sim_session *s = p->sess;
	uint64_t tag = (uint64_t)(uintptr_t)data;
	uint32_t flow = (uint32_t)(tag >> 32), len = (uint32_t)tag;
	struct mpt_sched_ctx ctx = sim_sched_ctx(s);

	s->sops->on_flow(s->spriv, &ctx, flow, p->idx, lost ? 0 : len, lost ? len : 0);
}

static void send_one(struct sim_session *s, unsigned i, uint32_t len, uint32_t flow)
{
	struct sim_path *p = &s->p[i];
	struct mpt_cc_path cp;
	bool was_empty = p->rec.in_flight == 0;

	if (s->sops->on_flow)
		mpt_recovery_on_sent_data(&p->rec, p->next_pn, len, s->now,
					  (void *)(uintptr_t)((uint64_t)flow << 32 | len));
	else
		mpt_recovery_on_sent(&p->rec, p->next_pn, len, s->now);
	cp = sim_cc_path(p);
	if (p->ops->on_sent)
		p->ops->on_sent(&p->cc, &cp, len, s->now);
	p->st.sent_pkts++;
	p->st.sent_bytes += len;
	link_enqueue(s, i, p->next_pn, len);
	p->next_pn++;
	if (was_empty)
		arm_pto(s, i);
}

static void refill(struct sim_path *p, uint64_t now)
{
	double cap = (double)p->cfg.burst_pkts * p->cfg.mss;

	p->tokens += (double)p->cc.pacing_rate * (double)(now - p->tokens_ns) / 1e9;
	if (p->tokens > cap)
		p->tokens = cap;
	p->tokens_ns = now;
}

static void pacer_kick(struct sim_session *s, unsigned i)
{
	struct sim_path *p = &s->p[i];

	/* as the daemon (mpt_session_flush): room left in cwnd after the scheduler's
	 * turn is app-limited, marked before the path's queued packets go out */
	if (p->rec.in_flight + p->pacer.bytes < p->cc.cwnd && !p->rec.app_limited)
		mpt_recovery_on_app_limited(&p->rec);

	while (p->pacer.n && !p->pacer_armed) {
		uint32_t len = fifo_peek(&p->pacer), flow;

		if (p->rec.in_flight >= p->cc.cwnd || !mpt_recovery_can_send(&p->rec))
			break;		/* an ACK will kick again */
		if (p->cc.pacing_rate) {
			refill(p, s->now);
			if (p->tokens < len) {
				double wait = (len - p->tokens) * 1e9 / (double)p->cc.pacing_rate;

				p->pacer_armed = true;
				sim_ev_at(s, s->now + (uint64_t)wait + 1, EV_PACER, i);
				break;
			}
			p->tokens -= len;
		}
		flow = (uint32_t)p->pacer.at[p->pacer.head];
		sim_fifo_pop(&p->pacer);
		send_one(s, i, len, flow);
	}
}

static void report_loss(struct sim_session *s, unsigned i,
			const struct mpt_recovery_event *ev)
{
	struct sim_path *p = &s->p[i];
	struct mpt_cc_path cp = sim_cc_path(p);

	if (!ev->lost_pkts)
		return;
	p->st.lost_pkts += ev->lost_pkts;
	p->st.lost_bytes += ev->lost_bytes;
	if (p->ops->on_loss)
		p->ops->on_loss(&p->cc, &cp, ev->lost_bytes, s->now);
	if (s->sops->on_loss) {
		struct mpt_sched_ctx ctx = sim_sched_ctx(s);

		s->sops->on_loss(s->spriv, &ctx, i, ev->lost_bytes);
	}
}

static void on_ack_rx(struct sim_session *s, unsigned i, struct mpt_ack_info *ack)
{
	struct sim_path *p = &s->p[i];
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	struct mpt_cc_path cp;

	if (!p->up) {
		p->st.down_drops++;
		return;
	}
	if (mpt_recovery_on_ack(&p->rec, ack, s->now, &rs, &ev))
		abort();	/* the simulated receiver never acks what was not sent */
	report_loss(s, i, &ev);
	if (ev.acked_pkts) {
		p->pto_backoff = 0;
		p->st.acked_pkts += ev.acked_pkts;
		p->st.acked_bytes += ev.acked_bytes;
		if (ev.rtt_sampled) {
			uint64_t r = p->rec.latest_rtt_ns;

			if (!p->st.rtt_samples || r < p->st.rtt_min_ns)
				p->st.rtt_min_ns = r;
			p->st.rtt_max_ns = MPT_MAX(p->st.rtt_max_ns, r);
			p->st.rtt_sum_ns += (double)r;
			p->st.rtt_samples++;
		}
		cp = sim_cc_path(p);
		for (unsigned k = 0; k < s->npaths; k++)	/* as the daemon's session */
			cp.probe_rtt_busy |= k != i && s->p[k].up &&
					     s->p[k].cc.state == MPT_CC_PROBE_RTT;
		p->ops->on_ack(&p->cc, &cp, &rs, s->now);
		if (s->sops->on_ack) {
			struct mpt_sched_ctx ctx = sim_sched_ctx(s);

			s->sops->on_ack(s->spriv, &ctx, i, ev.acked_bytes);
		}
		arm_pto(s, i);
	}
	arm_loss_timer(s, i);
	sim_schedule(s);
}

static void on_pto(struct sim_session *s, unsigned i)
{
	struct sim_path *p = &s->p[i];

	if (p->rec.in_flight == 0 || !p->up)
		return;
	p->pto_backoff++;
	/* RFC 9002 6.2.4: a probe carrying new data, past cwnd */
	if (p->pacer.n) {
		uint32_t flow = (uint32_t)p->pacer.at[p->pacer.head];

		send_one(s, i, sim_fifo_pop(&p->pacer), flow);
		p->st.probes++;
	} else if (!queue_empty(s)) {
		uint32_t len = queue_head(s), flow = queue_flow(s);

		queue_pop(s);
		p->st.handed_pkts++;
		p->st.handed_bytes += len;
		send_one(s, i, len, flow);
		p->st.probes++;
	}
	arm_pto(s, i);
}

/* ---- receiver ---- */

static void rx_record(struct rx_state *rx, uint64_t pn)
{
	struct mpt_ack_range *r = rx->r;
	unsigned k;

	for (k = 0; k < rx->nranges; k++) {
		if (pn >= r[k].lo && pn <= r[k].hi)
			return;
		if (pn == r[k].hi + 1) {
			r[k].hi = pn;
			if (k > 0 && r[k - 1].lo == pn + 1) {	/* merge with the one above */
				r[k - 1].lo = r[k].lo;
				memmove(&r[k], &r[k + 1], (rx->nranges - k - 1) * sizeof(*r));
				rx->nranges--;
			}
			return;
		}
		if (pn + 1 == r[k].lo) {
			r[k].lo = pn;
			return;
		}
		if (pn > r[k].hi)
			break;
	}
	if (k == MPT_ACK_MAX_RANGES)
		return;		/* older than everything kept */
	if (rx->nranges == MPT_ACK_MAX_RANGES)
		rx->nranges--;	/* forget the lowest range */
	memmove(&r[k + 1], &r[k], (rx->nranges - k) * sizeof(*r));
	r[k].lo = r[k].hi = pn;
	rx->nranges++;
}

static void rx_send_ack(struct sim_session *s, unsigned i)
{
	struct sim_path *p = &s->p[i];
	struct mpt_ack_info *a = malloc(sizeof(*a));
	uint64_t rev = p->cfg.rev_delay_ns ? p->cfg.rev_delay_ns : p->cfg.link.delay_ns;

	if (!a)
		abort();
	memset(a, 0, sizeof(*a));
	a->path_id = (uint8_t)i;
	a->ack_delay_ns = s->now - p->rx.largest_rx_ns;
	a->nranges = p->rx.nranges;
	memcpy(a->r, p->rx.r, p->rx.nranges * sizeof(a->r[0]));
	p->rx.unacked = 0;
	p->rx.timer_armed = false;
	p->rx.timer_gen++;
	ev_push(s, (struct event){ .t = s->now + rev, .type = EV_ACK_RX,
				   .path = (uint8_t)i, .ack = a });
}

static void on_rx(struct sim_session *s, unsigned i, uint64_t pn, uint32_t len)
{
	struct sim_path *p = &s->p[i];

	if (!p->up) {
		p->st.down_drops++;
		return;
	}
	p->st.delivered_pkts++;
	p->st.delivered_bytes += len;
	if (p->rx.nranges == 0 || pn > p->rx.r[0].hi)
		p->rx.largest_rx_ns = s->now;
	rx_record(&p->rx, pn);
	if (++p->rx.unacked >= p->cfg.ack_every) {
		rx_send_ack(s, i);
	} else if (!p->rx.timer_armed) {
		p->rx.timer_armed = true;
		ev_push(s, (struct event){ .t = s->now + p->cfg.ack_delay_ns,
					   .type = EV_ACK_TIMER, .path = (uint8_t)i,
					   .gen = p->rx.timer_gen });
	}
}

/* ---- event loop ---- */

static void dispatch(struct sim_session *s, struct event *e)
{
	struct sim_path *p = &s->p[e->path];
	struct mpt_recovery_event rev;

	switch (e->type) {
	case EV_LINK_OUT:
		p->st.queue_area += (double)p->q_bytes * (double)(s->now - p->q_changed_ns);
		p->q_changed_ns = s->now;
		p->q_bytes -= e->len;
		e->type = EV_RX;
		e->t = s->now + p->cfg.link.delay_ns;
		ev_push(s, *e);
		break;
	case EV_RX:
		on_rx(s, e->path, e->pn, e->len);
		break;
	case EV_ACK_TIMER:
		if (p->rx.timer_armed && e->gen == p->rx.timer_gen && p->rx.unacked)
			rx_send_ack(s, e->path);
		break;
	case EV_ACK_RX:
		on_ack_rx(s, e->path, e->ack);
		free(e->ack);
		break;
	case EV_PACER:
		p->pacer_armed = false;
		pacer_kick(s, e->path);
		break;
	case EV_LOSS_TIMER:
		if (e->gen != p->loss_gen)
			break;
		p->loss_at = 0;
		mpt_recovery_on_loss_timeout(&p->rec, s->now, &rev);
		report_loss(s, e->path, &rev);
		arm_loss_timer(s, e->path);
		sim_schedule(s);
		break;
	case EV_PTO:
		if (e->gen == p->pto_gen)
			on_pto(s, e->path);
		break;
	case EV_SOURCE:
		s->generated++;
		if (s->q.n >= s->cfg.queue_pkts)
			s->source_drops++;
		else
			fifo_push_at(&s->q, s->cfg.pkt_len, s->now);
		sim_ev_at(s, s->now + (uint64_t)s->cfg.pkt_len * MPT_NSEC_PER_SEC /
		      s->cfg.source_rate, EV_SOURCE, 0);
		sim_schedule(s);
		break;
	case EV_TICK: {
		struct mpt_sched_ctx ctx = sim_sched_ctx(s);

		s->sops->tick(s->spriv, &ctx);
		sim_ev_at(s, s->now + s->sops->tick_ns, EV_TICK, 0);
		sim_schedule(s);
		break;
	}
	case EV_HOOK:
		s->cfg.hook(s, s->cfg.hook_arg);
		sim_ev_at(s, s->now + s->cfg.hook_interval_ns, EV_HOOK, 0);
		break;
	}
}

void sim_session_run_until(struct sim_session *s, uint64_t t_ns)
{
	while (s->nheap && s->heap[0].t <= t_ns) {
		struct event e = ev_pop(s);

		s->now = e.t;
		dispatch(s, &e);
		if (s->cfg.hook && !s->cfg.hook_interval_ns)
			s->cfg.hook(s, s->cfg.hook_arg);
	}
	if (s->now < t_ns)
		s->now = t_ns;
}

