// SPDX-License-Identifier: MIT
/*
 * The control socket's statistics dump: the daemon's, its sessions', their paths'
 * and lanes' counters and state, in the vocabulary of include/mptund/ctl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl_glue.h"
#include "ctl_rules.h"
#include "ctl_server.h"
#include "daemon.h"
#include "log.h"
#include "sys.h"

static uint64_t us(uint64_t ns)
{
	return ns / 1000;
}

static const char *path_state(const struct mpt_path *p)
{
	if (!p->admin_up)
		return "admin_down";
	if (p->peer_out)
		return "peer_down";
	if (!p->link_ok)
		return "down";
	if (p->alive)
		return "up";
	return p->remote_len ? "probing" : "down";
}

/* The path's data budget, when it has one (budget_state.h). */
static void dump_budget(struct mpt_ctl_out *out, const struct mpt_daemon *d,
			const struct mpt_path *p, const char *pre)
{
	int k = mpt_budget_index(d, p->name);
	const struct mpt_budget *b;
	const struct mpt_budget_use *u;
	char text[48];

	if (k < 0)
		return;
	b = &d->cfg.paths[k].budget;
	u = &d->budgets.use[k];
	mpt_budget_format(b, text, sizeof(text));
	mpt_ctl_outf(out, "%s.budget=%s", pre, text);
	mpt_ctl_outf(out, "%s.budget_bytes=%llu", pre, (unsigned long long)b->bytes);
	mpt_ctl_outf(out, "%s.budget_used_bytes=%llu", pre, (unsigned long long)u->used);
	mpt_ctl_outf(out, "%s.budget_exhausted=%d", pre, u->exhausted);
	mpt_ctl_outf(out, "%s.budget_period_end_s=%lld", pre,
		     (long long)mpt_budget_period_end(b, u->period_start));
}

/* The path's MTU search (plpmtud.h) and its ACK frequency. */
static void dump_path_mtu_ack(struct mpt_ctl_out *out, const char *pre,
			      const struct mpt_path *p, uint32_t pool_mtu)
{
	mpt_ctl_outf(out, "%s.mtu_bytes=%u", pre, mpt_path_max_inner(p, pool_mtu));
	mpt_ctl_outf(out, "%s.plpmtu_bytes=%u", pre, mpt_plpmtud_cap(&p->pmtu));
	mpt_ctl_outf(out, "%s.pmtu_state=%s", pre, mpt_plpmtud_state_name(&p->pmtu));
	mpt_ctl_outf(out, "%s.mtu_probes=%llu", pre, (unsigned long long)p->pmtu.probes_sent);
	mpt_ctl_outf(out, "%s.mtu_probes_lost=%llu", pre,
		     (unsigned long long)p->pmtu.probes_lost);
	mpt_ctl_outf(out, "%s.black_holes=%llu", pre, (unsigned long long)p->pmtu.black_holes);
	mpt_ctl_outf(out, "%s.black_holes_unconfirmed=%llu", pre,
		     (unsigned long long)p->pmtu.bh_unconfirmed);
	mpt_ctl_outf(out, "%s.ptb_hints=%llu", pre, (unsigned long long)p->pmtu.ptb_hints);
	mpt_ctl_outf(out, "%s.ptb_ignored=%llu", pre, (unsigned long long)p->pmtu.ptb_ignored);
	mpt_ctl_outf(out, "%s.mtu_searches=%llu", pre, (unsigned long long)p->pmtu.searches);
	mpt_ctl_outf(out, "%s.send_too_big=%llu", pre, (unsigned long long)p->st.send_too_big);
	mpt_ctl_outf(out, "%s.pin_fallbacks=%llu", pre, (unsigned long long)p->st.pin_fallbacks);
	mpt_ctl_outf(out, "%s.acks_tx=%llu", pre, (unsigned long long)p->st.acks_tx);
	mpt_ctl_outf(out, "%s.acks_away=%llu", pre, (unsigned long long)p->st.acks_away);
	mpt_ctl_outf(out, "%s.ack_via=%u", pre, p->ack_via_set ? p->ack_via : p->id);
	mpt_ctl_outf(out, "%s.ack_tx_bytes=%llu", pre, (unsigned long long)p->st.ack_tx_bytes);
	mpt_ctl_outf(out, "%s.ack_rx_bytes=%llu", pre, (unsigned long long)p->st.ack_rx_bytes);
	mpt_ctl_outf(out, "%s.ack_every_pkts=%u", pre, p->ackt.ack_every);
	mpt_ctl_outf(out, "%s.ack_delay_us=%llu", pre,
		     (unsigned long long)(p->ackt.max_ack_delay_ns / 1000));
	mpt_ctl_outf(out, "%s.ack_frequency_tx=%llu", pre, (unsigned long long)p->st.ackf_tx);
}

/* What the path carries per direction now (path.h, mpt_path_rates). */
static void dump_path_rates(struct mpt_ctl_out *out, const char *pre,
			    const struct mpt_path *p, uint64_t now)
{
	static const char *const key[4] = { "tx_rate", "rx_rate", "ack_tx_rate",
					    "ack_rx_rate" };
	uint64_t rate[4];

	mpt_path_rates(p, now, rate);
	for (unsigned i = 0; i < 4; i++)
		mpt_ctl_outf(out, "%s.%s_bytes_per_s=%llu", pre, key[i],
			     (unsigned long long)rate[i]);
}

/* The path's remaining counters (every field of struct mpt_path_stats is exported:
 * tests/integration/test_drop_reasons.sh checks). */
static void dump_path_more(struct mpt_ctl_out *out, const char *pre, const struct mpt_path *p)
{
	const struct mpt_path_stats *st = &p->st;

	mpt_ctl_outf(out, "%s.tx_datagrams=%llu", pre, (unsigned long long)st->tx_pkts);
	mpt_ctl_outf(out, "%s.tx_datagram_bytes=%llu", pre, (unsigned long long)st->tx_bytes);
	mpt_ctl_outf(out, "%s.acks_rx=%llu", pre, (unsigned long long)st->acks_rx);
	mpt_ctl_outf(out, "%s.probes_tx=%llu", pre, (unsigned long long)st->probes_tx);
	mpt_ctl_outf(out, "%s.probes_rx=%llu", pre, (unsigned long long)st->probes_rx);
	mpt_ctl_outf(out, "%s.ups=%llu", pre, (unsigned long long)st->ups);
	mpt_ctl_outf(out, "%s.ack_frequency_rx=%llu", pre, (unsigned long long)st->ackf_rx);
	mpt_ctl_outf(out, "%s.txq_drop_pkts=%llu", pre, (unsigned long long)st->txq_drops);
}

/* A path's packet and event counters (part of dump_path, in its order). */
static void dump_path_counters(struct mpt_ctl_out *out, const struct mpt_path *p,
			       const char *pre)
{
	const struct mpt_recovery *r = &p->rec;

	mpt_ctl_outf(out, "%s.sent_pkts=%llu", pre, (unsigned long long)r->sent_pkts);
	mpt_ctl_outf(out, "%s.sent_bytes=%llu", pre, (unsigned long long)r->sent_bytes);
	mpt_ctl_outf(out, "%s.delivered_pkts=%llu", pre, (unsigned long long)r->acked_pkts);
	mpt_ctl_outf(out, "%s.delivered_bytes=%llu", pre, (unsigned long long)r->acked_bytes);
	mpt_ctl_outf(out, "%s.lost_pkts=%llu", pre, (unsigned long long)r->lost_pkts);
	mpt_ctl_outf(out, "%s.lost_bytes=%llu", pre, (unsigned long long)r->lost_bytes);
	mpt_ctl_outf(out, "%s.rx_pkts=%llu", pre, (unsigned long long)p->st.rx_pkts);
	mpt_ctl_outf(out, "%s.rx_bytes=%llu", pre, (unsigned long long)p->st.rx_bytes);
	mpt_ctl_outf(out, "%s.data_tx_pkts=%llu", pre, (unsigned long long)p->st.data_tx);
	mpt_ctl_outf(out, "%s.data_tx_bytes=%llu", pre, (unsigned long long)p->st.data_tx_bytes);
	mpt_ctl_outf(out, "%s.data_rx_pkts=%llu", pre, (unsigned long long)p->st.data_rx);
	mpt_ctl_outf(out, "%s.probe_timeouts=%llu", pre, (unsigned long long)p->st.ptos);
	mpt_ctl_outf(out, "%s.downs=%llu", pre, (unsigned long long)p->st.downs);
	mpt_ctl_outf(out, "%s.dead_by_data=%llu", pre, (unsigned long long)p->st.dead_by_data);
	mpt_ctl_outf(out, "%s.send_errors=%llu", pre, (unsigned long long)p->st.send_errors);
	mpt_ctl_outf(out, "%s.ack_errors=%llu", pre, (unsigned long long)p->st.ack_errors);
	mpt_ctl_outf(out, "%s.rebinds=%llu", pre, (unsigned long long)p->st.rebinds);
	mpt_ctl_outf(out, "%s.rebinds_refused=%llu", pre,
		     (unsigned long long)p->st.rebinds_refused);
	mpt_ctl_outf(out, "%s.rebind_challenges=%llu", pre,
		     (unsigned long long)p->st.rebind_challenges);
	mpt_ctl_outf(out, "%s.rebind_amp_limited=%llu", pre,
		     (unsigned long long)p->st.rebind_amp_limited);
	mpt_ctl_outf(out, "%s.gso_sends=%llu", pre, (unsigned long long)p->st.gso_sends);
	dump_path_more(out, pre, p);
}

static void dump_path(struct mpt_ctl_out *out, const struct mpt_session *s,
		      const struct mpt_path *p, uint64_t now)
{
	const struct mpt_recovery *r = &p->rec;
	char pre[48], remote[80] = "-", local[80];
	unsigned si = s->idx, pi = p->id;

	snprintf(pre, sizeof(pre), "session.%u.path.%u", si, pi);
	if (p->remote_len)
		mpt_sockaddr_format(&p->remote, remote, sizeof(remote));
	mpt_ctl_outf(out, "%s.name=%s", pre, p->name);
	mpt_ctl_outf(out, "%s.state=%s", pre, path_state(p));
	mpt_ctl_outf(out, "%s.cc=%s", pre, p->cc_ops->name);
	mpt_ctl_outf(out, "%s.cc_state=%s", pre, mpt_cc_state_names[p->cc.state %
							      MPT_CC_STATE_MAX]);
	mpt_ctl_outf(out, "%s.remote=%s", pre, remote);
	mpt_local_format(&p->local, local, sizeof(local));
	mpt_ctl_outf(out, "%s.local=%s", pre, local);
	mpt_ctl_outf(out, "%s.up=%d", pre, mpt_path_usable(p));
	mpt_ctl_outf(out, "%s.cost=%u", pre, p->cost);
	mpt_ctl_outf(out, "%s.weight=%u", pre, p->weight);
	dump_budget(out, s->d, p, pre);
	dump_path_mtu_ack(out, pre, p, s->d->pool.mtu);
	dump_path_rates(out, pre, p, now);
	mpt_ctl_outf(out, "%s.srtt_us=%llu", pre, (unsigned long long)us(r->srtt_ns));
	mpt_ctl_outf(out, "%s.rttvar_us=%llu", pre, (unsigned long long)us(r->rttvar_ns));
	mpt_ctl_outf(out, "%s.min_rtt_us=%llu", pre,
		     (unsigned long long)us(r->have_rtt ? r->min_rtt_ns : 0));
	mpt_ctl_outf(out, "%s.latest_rtt_us=%llu", pre,
		     (unsigned long long)us(r->latest_rtt_ns));
	mpt_ctl_outf(out, "%s.cwnd_bytes=%llu", pre, (unsigned long long)p->cc.cwnd);
	mpt_ctl_outf(out, "%s.in_flight_bytes=%llu", pre,
		     (unsigned long long)mpt_path_in_flight(p));
	mpt_ctl_outf(out, "%s.rt_in_flight_bytes=%llu", pre,
		     (unsigned long long)p->rec.rt_in_flight);
	if (p->agg.idx >= 0) {		/* anchor: every session on a path of this name */
		const struct mpt_path_agg *a = &s->d->agg.e[p->agg.idx];

		mpt_ctl_outf(out, "%s.agg_in_flight_bytes=%llu", pre,
			     (unsigned long long)a->in_flight);
		mpt_ctl_outf(out, "%s.agg_cwnd_bytes=%llu", pre, (unsigned long long)a->cwnd);
	}
	mpt_ctl_outf(out, "%s.pacing_rate_bytes_per_s=%llu", pre,
		     (unsigned long long)p->cc.pacing_rate);
	mpt_ctl_outf(out, "%s.btlbw_bytes_per_s=%llu", pre, (unsigned long long)p->cc.btlbw);
	mpt_ctl_outf(out, "%s.delivery_rate_bytes_per_s=%llu", pre,
		     (unsigned long long)r->delivery_rate);
	mpt_ctl_outf(out, "%s.idle_ms=%llu", pre, (unsigned long long)(p->last_rx_ns ?
		     (now - p->last_rx_ns) / MPT_NSEC_PER_MSEC : 0));
	dump_path_counters(out, p, pre);
	for (size_t k = 0; k < p->cc_ops->nstats; k++) {
		const struct mpt_stat *st = &p->cc_ops->stats[k];

		mpt_ctl_outf(out, "%s.cc_stat.%s%s=%.10g", pre, st->name,
			     st->kind == MPT_STAT_COUNTER ? "_total" : "",
			     mpt_stat_read(st, p->cc.priv, 0));
	}
}

/* The session's reorder buffer. */
static void dump_reorder(struct mpt_ctl_out *out, const struct mpt_session *s)
{
	const struct mpt_reorder_stats *rs = &s->reorder.st;
	unsigned si = s->idx;

	mpt_ctl_outf(out, "session.%u.reorder.buffered_pkts=%u", si, s->reorder.nheld);
	mpt_ctl_outf(out, "session.%u.reorder.timeout_us=%llu", si,
		     (unsigned long long)us(mpt_reorder_hold_now(&s->reorder)));
	mpt_ctl_outf(out, "session.%u.reorder.learned_us=%llu", si,
		     (unsigned long long)us(s->reorder.learned_ns));
	mpt_ctl_outf(out, "session.%u.reorder.held=%llu", si, (unsigned long long)rs->held);
	mpt_ctl_outf(out, "session.%u.reorder.released_inorder=%llu", si,
		     (unsigned long long)rs->in_order);
	mpt_ctl_outf(out, "session.%u.reorder.released_timeout=%llu", si,
		     (unsigned long long)rs->timeout);
	mpt_ctl_outf(out, "session.%u.reorder.released_overflow=%llu", si,
		     (unsigned long long)rs->overflow);
	mpt_ctl_outf(out, "session.%u.reorder.late=%llu", si, (unsigned long long)rs->late);
	mpt_ctl_outf(out, "session.%u.reorder.duplicates=%llu", si,
		     (unsigned long long)rs->duplicate);
	mpt_ctl_outf(out, "session.%u.reorder.flushed=%llu", si, (unsigned long long)rs->flushed);
	mpt_ctl_outf(out, "session.%u.reorder.stale_drops=%llu", si,
		     (unsigned long long)rs->stale);
	mpt_ctl_outf(out, "session.%u.reorder.holes_skipped=%llu", si,
		     (unsigned long long)rs->holes_skipped);
	mpt_ctl_outf(out, "session.%u.reorder.resyncs=%llu", si, (unsigned long long)rs->resyncs);
	mpt_ctl_outf(out, "session.%u.reorder.late_resent=%llu", si,
		     (unsigned long long)rs->late_resent);
	mpt_ctl_outf(out, "session.%u.reorder.hold_raises=%llu", si,
		     (unsigned long long)rs->hold_raises);
	mpt_ctl_outf(out, "session.%u.reorder.holds_extended=%llu", si,
		     (unsigned long long)rs->holds_extended);
	mpt_ctl_outf(out, "session.%u.reorder.capacity_pkts=%u", si, s->reorder.cap);
	mpt_ctl_outf(out, "session.%u.reorder.grown=%llu", si, (unsigned long long)rs->grown);
}

/* A session's keys and handshakes, and its idle life (quiet spells, idle probing). */
static void dump_session_life(struct mpt_ctl_out *out, const struct mpt_session *s)
{
	unsigned si = s->idx;

	mpt_ctl_outf(out, "session.%u.fresh_starts=%llu", si,
		     (unsigned long long)s->st.fresh_starts);
	mpt_ctl_outf(out, "session.%u.keys_expired=%llu", si,
		     (unsigned long long)s->st.keys_expired);
	mpt_ctl_outf(out, "session.%u.handshakes=%llu", si, (unsigned long long)s->st.handshakes);
	mpt_ctl_outf(out, "session.%u.rekeys=%llu", si, (unsigned long long)s->st.rekeys);
	mpt_ctl_outf(out, "session.%u.quiet=%d", si, s->quiet);
	mpt_ctl_outf(out, "session.%u.wakeups=%llu", si, (unsigned long long)s->st.wakeups);
	mpt_ctl_outf(out, "session.%u.peer_idle_probe_ms=%llu", si,
		     (unsigned long long)(s->peer_idle_ns / MPT_NSEC_PER_MSEC));
}

/* The scheduler queue's in-order takes and sparse-flow lane (session_tx.c, sparse.h). */
static void dump_lanes(struct mpt_ctl_out *out, const struct mpt_session *s)
{
	unsigned si = s->idx;

	mpt_ctl_outf(out, "session.%u.in_order_takes=%llu", si,
		     (unsigned long long)s->st.in_order_takes);
	mpt_ctl_outf(out, "session.%u.sparse_pkts=%llu", si,
		     (unsigned long long)s->st.sparse_pkts);
	mpt_ctl_outf(out, "session.%u.sparse_demoted=%llu", si,
		     (unsigned long long)s->st.sparse_demoted);
	mpt_ctl_outf(out, "session.%u.sparse_joined=%llu", si,
		     (unsigned long long)s->st.sparse_joined);
}

/* Does the sender's queue stand (standing.h), how often and how long it did. */
static void dump_standing(struct mpt_ctl_out *out, const struct mpt_session *s, uint64_t now)
{
	unsigned si = s->idx;

	mpt_ctl_outf(out, "session.%u.queue_standing=%d", si, s->standing.on);
	mpt_ctl_outf(out, "session.%u.queue_standing_starts=%llu", si,
		     (unsigned long long)s->standing.starts);
	mpt_ctl_outf(out, "session.%u.queue_standing_ms=%llu", si,
		     (unsigned long long)(mpt_standing_total_ns(&s->standing, now) /
					  MPT_NSEC_PER_MSEC));
}

static void dump_session(struct mpt_ctl_out *out, const struct mpt_session *s, uint64_t now)
{
	unsigned si = s->idx;

	mpt_ctl_outf(out, "session.%u.peer=%s", si, s->name);
	mpt_ctl_outf(out, "session.%u.state=%s", si, s->cur.valid ? "established" : "handshake");
	mpt_ctl_outf(out, "session.%u.sched=%s", si, s->sched->name);
	mpt_ctl_outf(out, "session.%u.cc=%s", si, s->d->cfg.cc);
	mpt_ctl_outf(out, "session.%u.age_ms=%llu", si, (unsigned long long)(s->cur.valid ?
		     (now - s->established_ns) / MPT_NSEC_PER_MSEC : 0));
	mpt_ctl_outf(out, "session.%u.queue_pkts=%u", si, s->squeue.pkts + s->sparse.q.pkts);
	mpt_ctl_outf(out, "session.%u.queue_bytes=%llu", si,
		     (unsigned long long)(s->squeue.bytes + s->sparse.q.bytes));
	mpt_ctl_outf(out, "session.%u.tx_pkts=%llu", si, (unsigned long long)s->st.tun_rx_pkts);
	mpt_ctl_outf(out, "session.%u.tx_bytes=%llu", si, (unsigned long long)s->st.tun_rx_bytes);
	mpt_ctl_outf(out, "session.%u.rx_pkts=%llu", si, (unsigned long long)s->st.tun_tx_pkts);
	mpt_ctl_outf(out, "session.%u.rx_bytes=%llu", si, (unsigned long long)s->st.tun_tx_bytes);
	mpt_ctl_outf(out, "session.%u.sched_drop_pkts=%llu", si,
		     (unsigned long long)s->st.queue_drops);
	mpt_ctl_outf(out, "session.%u.sched_front_drop_pkts=%llu", si,
		     (unsigned long long)s->st.queue_front_drops);
	mpt_ctl_outf(out, "session.%u.no_key_drop_pkts=%llu", si,
		     (unsigned long long)s->st.no_key_drops);
	mpt_ctl_outf(out, "session.%u.spoofed_drop_pkts=%llu", si,
		     (unsigned long long)s->st.spoofed);
	mpt_ctl_outf(out, "session.%u.holds=%llu", si, (unsigned long long)s->st.holds);
	mpt_ctl_outf(out, "session.%u.flow_held=%llu", si,
		     (unsigned long long)s->fhold.set_aside);
	mpt_ctl_outf(out, "session.%u.flow_held_pkts=%u", si, s->fhold.pkts);
	dump_lanes(out, s);
	dump_standing(out, s, now);
	mpt_ctl_outf(out, "session.%u.repairs=%llu", si, (unsigned long long)s->st.repairs);
	mpt_ctl_outf(out, "session.%u.repair_late=%llu", si,
		     (unsigned long long)s->st.repair_late);
	mpt_ctl_outf(out, "session.%u.repair_given_up=%llu", si,
		     (unsigned long long)s->st.repair_given_up);
	mpt_ctl_outf(out, "session.%u.repair_copied=%llu", si,
		     (unsigned long long)s->st.repair_copied);
	mpt_ctl_outf(out, "session.%u.too_big_drops=%llu", si,
		     (unsigned long long)s->st.too_big_drops);
	mpt_ctl_outf(out, "session.%u.ptb_sent=%llu", si, (unsigned long long)s->st.ptb_sent);
	mpt_ctl_outf(out, "session.%u.frag_pkts=%llu", si, (unsigned long long)s->st.frag_pkts);
	mpt_ctl_outf(out, "session.%u.frag_out_pkts=%llu", si,
		     (unsigned long long)s->st.frag_out_pkts);
	mpt_ctl_outf(out, "session.%u.ptb_soft=%llu", si, (unsigned long long)s->st.ptb_soft);
	mpt_ctl_outf(out, "session.%u.mss_clamp_bytes=%u", si, s->clamp_mtu);
	mpt_ctl_outf(out, "session.%u.mss_clamped=%llu", si,
		     (unsigned long long)s->st.mss_clamped);
	mpt_ctl_outf(out, "session.%u.tcp_retrans_seen=%llu", si,
		     (unsigned long long)(s->tcpseq ? s->tcpseq->retrans : 0));
	mpt_ctl_outf(out, "session.%u.unordered_rx_pkts=%llu", si,
		     (unsigned long long)s->st.unordered_rx);
	mpt_ctl_outf(out, "session.%u.unordered_dup_pkts=%llu", si,
		     (unsigned long long)s->st.unordered_dup);
	mpt_ctl_outf(out, "session.%u.acks_unordered_pkts=%llu", si,
		     (unsigned long long)s->st.acks_unordered);
	dump_session_life(out, s);
	mpt_ctl_outf(out, "session.%u.sched_switches=%llu", si,
		     (unsigned long long)s->st.sched_switches);
	mpt_ctl_outf(out, "session.%u.sched_events=%llu", si,
		     (unsigned long long)s->st.sched_events);
	if (s->st.sched_events)
		mpt_ctl_outf(out, "session.%u.sched_event=%s", si, s->sched_event);
	for (int r = 1; r < MPT_WIRE_REASON_COUNT; r++)
		if (s->st.drops[r])
			mpt_ctl_outf(out, "session.%u.drop.%s=%llu", si, mpt_wire_strerror(r),
				     (unsigned long long)s->st.drops[r]);
	dump_reorder(out, s);
	mpt_ctl_outf(out, "session.%u.copies=%llu", si, (unsigned long long)s->st.copies);
	mpt_ctl_outf(out, "session.%u.tun_write_errors=%llu", si,
		     (unsigned long long)s->st.tun_write_errors);
	for (unsigned i = 0; i < s->npaths; i++)
		mpt_ctl_outf(out, "session.%u.path.%u.picks=%llu", si, i,
			     (unsigned long long)s->st.picks[i]);
	mpt_ctl_out_sched_stats(out, si, s->sched->stats, s->sched->nstats, s->sched_priv,
				s->npaths);
	for (unsigned i = 0; i < s->npaths; i++)
		if (s->paths[i].used)
			dump_path(out, s, &s->paths[i], now);
}

/* Every drop reason, zero or not: before a session was found plus in every session. */
static void dump_dropped(struct mpt_ctl_out *out, const struct mpt_daemon *d)
{
	for (int r = 1; r < MPT_WIRE_REASON_COUNT; r++) {
		uint64_t n = d->st.drops[r];

		for (unsigned i = 0; i < d->nsessions; i++)
			n += d->sessions[i].st.drops[r];
		mpt_ctl_outf(out, "daemon.dropped.%s=%llu", mpt_wire_strerror(r),
			     (unsigned long long)n);
	}
}

/* The few keys `mptund-ctl sessions` shows: cheap at thousands of sessions. */
static void dump_session_summary(struct mpt_ctl_out *out, const struct mpt_session *s,
				 uint64_t now)
{
	unsigned si = s->idx, used = 0, up = 0;

	for (unsigned i = 0; i < s->npaths; i++) {
		used += s->paths[i].used;
		up += mpt_path_usable(&s->paths[i]);
	}
	mpt_ctl_outf(out, "session.%u.peer=%s", si, s->name);
	mpt_ctl_outf(out, "session.%u.state=%s", si, s->cur.valid ? "established" : "handshake");
	mpt_ctl_outf(out, "session.%u.sched=%s", si, s->sched->name);
	mpt_ctl_outf(out, "session.%u.age_ms=%llu", si, (unsigned long long)(s->cur.valid ?
		     (now - s->established_ns) / MPT_NSEC_PER_MSEC : 0));
	mpt_ctl_outf(out, "session.%u.queue_pkts=%u", si, s->squeue.pkts + s->sparse.q.pkts);
	mpt_ctl_outf(out, "session.%u.tx_bytes=%llu", si, (unsigned long long)s->st.tun_rx_bytes);
	mpt_ctl_outf(out, "session.%u.rx_bytes=%llu", si, (unsigned long long)s->st.tun_tx_bytes);
	mpt_ctl_outf(out, "session.%u.paths=%u", si, used);
	mpt_ctl_outf(out, "session.%u.paths_up=%u", si, up);
	mpt_ctl_outf(out, "session.%u.quiet=%d", si, s->quiet);
}

/* A scope naming one session ("session.12", "session.12.path.0"): only that one. */
static void scope_sessions(const char *scope, unsigned n, unsigned *lo, unsigned *hi)
{
	char *end;
	unsigned long v;

	if (!strncmp(scope, "daemon", 6) || !strncmp(scope, "page", 4)) {
		*lo = *hi = 0;
		return;
	}
	if (strncmp(scope, "session.", 8) || scope[8] < '0' || scope[8] > '9')
		return;
	v = strtoul(scope + 8, &end, 10);
	if (*end != '\0' && *end != '.')
		return;			/* not an index: let the scope filter it */
	*lo = v < n ? (unsigned)v : n;
	*hi = v < n ? (unsigned)v + 1 : n;
}

/*
 * The sessions of one stats reply: from offset=, at most limit= of them, and no more
 * than fit MPT_CTL_PAGE_BYTES (a session that would overflow the client's queue is
 * taken back whole). page.sessions= says how many there are, page.next= where the
 * next reply starts when this one stopped early.
 */
static int dump_sessions(struct mpt_daemon *d, const struct mpt_ctl_req *req,
			 struct mpt_ctl_out *out, const char *scope, uint64_t now)
{
	uint32_t offset = 0, limit = UINT32_MAX, summary = 0;
	unsigned lo = 0, end = d->nsessions, hi, i;
	size_t start = out->len;
	const char *saved_scope;
	char err[160];

	if (req && (mpt_ctl_req_u32(req, "offset", 0, 0, UINT32_MAX, &offset, err,
				    sizeof(err)) < 0 ||
		    mpt_ctl_req_u32(req, "limit", UINT32_MAX, 1, UINT32_MAX, &limit, err,
				    sizeof(err)) < 0 ||
		    mpt_ctl_req_u32(req, "summary", 0, 0, 1, &summary, err, sizeof(err)) < 0)) {
		mpt_ctl_outf(out, "message=%s", err);
		return -EINVAL;
	}
	scope_sessions(scope, d->nsessions, &lo, &end);
	lo = MPT_MIN(MPT_MAX(lo, offset), end);
	hi = limit < end - lo ? lo + limit : end;
	for (i = lo; i < hi; i++) {
		size_t before = out->len;

		if (i > lo && before - start >= MPT_CTL_PAGE_BYTES)
			break;
		if (summary)
			dump_session_summary(out, &d->sessions[i], now);
		else
			dump_session(out, &d->sessions[i], now);
		if (out->err && i > lo) {
			out->len = before;	/* taken back: the next page starts with it */
			out->err = 0;
			break;
		}
	}
	mpt_ctl_outf(out, "page.sessions=%u", d->nsessions);	/* as its scope says */
	saved_scope = out->scope;
	out->scope = NULL;		/* the client needs this whatever its scope */
	if (i < end)
		mpt_ctl_outf(out, "page.next=%u", i);
	out->scope = saved_scope;
	return 0;
}

/* The TUN's offloads: super-packets segmented on the way in, coalesced on the way out. */
static void dump_tun_offload(struct mpt_ctl_out *out, const struct mpt_daemon *d)
{
	mpt_ctl_outf(out, "daemon.tun_offload=%u", d->tun.offload);
	mpt_ctl_outf(out, "daemon.tun_gso_pkts=%llu", (unsigned long long)d->st.tun_gso_pkts);
	mpt_ctl_outf(out, "daemon.tun_gso_segs=%llu", (unsigned long long)d->st.tun_gso_segs);
	mpt_ctl_outf(out, "daemon.drop_tun_gso_pkts=%llu",
		     (unsigned long long)d->st.tun_gso_bad);
	mpt_ctl_outf(out, "daemon.tun_gro_pkts=%llu", (unsigned long long)d->st.tun_gro_pkts);
	mpt_ctl_outf(out, "daemon.tun_gro_segs=%llu", (unsigned long long)d->st.tun_gro_segs);
	mpt_ctl_outf(out, "daemon.tun_gro_write_errors=%llu",
		     (unsigned long long)d->st.tun_gro_write_errors);
}

int mpt_ctl_dump(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out,
		 const char *scope)
{
	struct mpt_daemon *d = ctx;
	uint64_t now = mpt_now_ns(), tun_rx = 0, tun_txb = 0, tun_tx = 0, tun_rxb = 0;
	uint64_t auth = 0, replay = 0, malformed = 0;
	unsigned established = 0;

	for (unsigned i = 0; i < d->nsessions; i++) {
		const struct mpt_session *s = &d->sessions[i];

		established += s->cur.valid;
		tun_rx += s->st.tun_rx_pkts;
		tun_rxb += s->st.tun_rx_bytes;
		tun_tx += s->st.tun_tx_pkts;
		tun_txb += s->st.tun_tx_bytes;
		auth += s->st.drops[MPT_WIRE_DECRYPT];
		replay += s->st.drops[MPT_WIRE_REPLAY];
		for (int r = MPT_WIRE_SHORT; r < MPT_WIRE_DECRYPT; r++)
			malformed += s->st.drops[r];
	}
	for (int r = MPT_WIRE_SHORT; r < MPT_WIRE_DECRYPT; r++)
		malformed += d->st.drops[r];
	mpt_ctl_outf(out, "daemon.version=%s", MPTUND_VERSION);
	mpt_ctl_outf(out, "daemon.instance=%s", d->instance);
	mpt_ctl_outf(out, "daemon.role=%s", d->cfg.role == MPT_ROLE_UE ? "ue" : "anchor");
	mpt_ctl_outf(out, "daemon.uptime_ms=%llu",
		     (unsigned long long)((now - d->start_ns) / MPT_NSEC_PER_MSEC));
	mpt_ctl_outf(out, "daemon.sessions=%u", established);
	mpt_ctl_outf(out, "daemon.ctl_clients=%u", d->ctl ? d->ctl->nclients : 0);
	mpt_ctl_outf(out, "daemon.tun_rx_pkts=%llu", (unsigned long long)tun_rx);
	mpt_ctl_outf(out, "daemon.tun_rx_bytes=%llu", (unsigned long long)tun_rxb);
	mpt_ctl_outf(out, "daemon.tun_tx_pkts=%llu", (unsigned long long)tun_tx);
	mpt_ctl_outf(out, "daemon.tun_tx_bytes=%llu", (unsigned long long)tun_txb);
	mpt_ctl_outf(out, "daemon.drop_auth_pkts=%llu", (unsigned long long)(auth +
		     d->st.drops[MPT_WIRE_HS_MAC1] + d->st.drops[MPT_WIRE_HS_CRYPTO] +
		     d->st.drops[MPT_WIRE_HS_UNKNOWN_PEER]));
	mpt_ctl_outf(out, "daemon.drop_replay_pkts=%llu", (unsigned long long)(replay +
		     d->st.drops[MPT_WIRE_HS_REPLAY]));
	mpt_ctl_outf(out, "daemon.drop_malformed_pkts=%llu", (unsigned long long)malformed);
	mpt_ctl_outf(out, "daemon.drop_no_session_pkts=%llu", (unsigned long long)
		     (d->st.drops[MPT_WIRE_UNKNOWN_INDEX] + d->st.tun_no_session));
	mpt_ctl_outf(out, "daemon.drop_ratelimit_pkts=%llu",
		     (unsigned long long)d->st.drops[MPT_WIRE_HS_RATELIMIT]);
	mpt_ctl_outf(out, "daemon.drop_hs_duplicate_pkts=%llu",
		     (unsigned long long)d->st.drops[MPT_WIRE_HS_DUPLICATE]);
	mpt_ctl_outf(out, "daemon.drop_hs_busy_pkts=%llu",
		     (unsigned long long)d->st.drops[MPT_WIRE_HS_BUSY]);
	mpt_ctl_outf(out, "daemon.hs_cookie_replies=%llu",
		     (unsigned long long)d->st.drops[MPT_WIRE_HS_COOKIE]);
	mpt_ctl_outf(out, "daemon.drop_cookie_bad_pkts=%llu",
		     (unsigned long long)d->st.drops[MPT_WIRE_COOKIE_BAD]);
	for (int r = 1; r < MPT_WIRE_REASON_COUNT; r++)
		if (d->st.drops[r])
			mpt_ctl_outf(out, "daemon.drop.%s=%llu", mpt_wire_strerror(r),
				     (unsigned long long)d->st.drops[r]);
	dump_dropped(out, d);
	mpt_ctl_outf(out, "daemon.rx_truncated_pkts=%llu", (unsigned long long)d->st.truncated);
	mpt_ctl_outf(out, "daemon.rx_datagrams=%llu", (unsigned long long)d->st.rx_datagrams);
	mpt_ctl_outf(out, "daemon.drop_tun_bad_pkts=%llu",
		     (unsigned long long)d->st.tun_bad_packet);
	dump_tun_offload(out, d);
	mpt_ctl_outf(out, "daemon.reloads=%llu", (unsigned long long)d->st.reloads);
	mpt_ctl_outf(out, "daemon.reload_errors=%llu", (unsigned long long)d->st.reload_errors);
	mpt_ctl_outf(out, "daemon.pool_free=%u", mpt_pkt_pool_avail(&d->pool));
	mpt_ctl_outf(out, "daemon.icmp_errors=%llu", (unsigned long long)d->st.icmp_errors);
	mpt_ctl_outf(out, "daemon.hs_pin_fallbacks=%llu",
		     (unsigned long long)d->st.hs_pin_fallbacks);
	mpt_ctl_outf(out, "daemon.pool_exhausted=%llu",
		     (unsigned long long)(d->pool.exhausted + d->st.pool_exhausted));
	if (!req || !mpt_ctl_req_get(req, "offset") ||
	    strcmp(mpt_ctl_req_get(req, "offset"), "0") == 0)
		mpt_ctl_rules_dump(out, d);	/* once, with the first page */
	return dump_sessions(d, req, out, scope, now);
}
