// SPDX-License-Identifier: MIT
/*
 * Tunnel-level loss recovery and dead paths (Recovery = retransmit, mptund.conf(5)).
 *
 * With Recovery = retransmit every data packet stays in its path's recovery ring after
 * it is sent (sealed out of place, so the plaintext is kept). Acknowledged, it goes
 * back to the pool; declared lost (RFC 9002 thresholds, a dead path, a path taken
 * down), it comes to the session through the path's lostq. The session re-sends it
 * once, ahead of new data, on the up path where it arrives soonest, provided it can
 * still arrive before the end-to-end transport could repair it (in_time): the receiver
 * holds a hole for about twice the largest RTT when repairs are on
 * (mpt_session_hold_ns), which covers the sender's loss detection and the repair's
 * trip, and delivers a later repair as a late packet, still ahead of the inner
 * retransmission. A packet lost twice, or too late, is recycled: the end-to-end
 * transport repairs it.
 *
 * A dead path is found from data, not only from probes: a path with packets in flight
 * and nothing acknowledged for 1.5 probe timeouts (at least MPT_DEAD_FLOOR_NS), and
 * for a probe timeout after a second packet sent into that silence, is declared down
 * at once, its packets in flight lost and re-sent elsewhere; probes
 * bring it back. The inner transport then sees a gap of about one round trip, not a
 * retransmission timeout. The timer checks it (session_timer.c: mpt_session_check_dead);
 * the losses of every path come here (mpt_session_on_losses).
 *
 * The receiver's side of a dark path (mpt_session_reorder_timeout): the holes it
 * leaves are repaired only once the sender has declared it dead, 1.5 probe timeouts
 * after it fell silent, and the repairs have crossed a live path behind what that path
 * has in flight: later than the usual hold (twice the largest RTT). A hole given up
 * before its repair comes reaches the end-to-end transport as a loss: it re-sends the
 * whole dark window (~160 segments on outage.json's 50 Mbit/s paths), which then
 * waits in the sender's scheduler queue beside the repairs, and fills it until it
 * drops (the second stall after an outage). So when a hole comes due while a path
 * that carried data up to the hole has been silent since, the receiver holds it until
 * that path's repairs can be there (dark_hold_until), and each repair that fills a
 * hole restarts the hold for the next (mpt_reorder_set_fill_restarts): the end-to-end
 * transport sees progress, its ACK clock runs. The first wait is capped
 * (MPT_DARK_HOLD_MAX_NS) below the end-to-end transport's least retransmission
 * timeout, for the case the repairs never come.
 */
#include "arrival.h"
#include "daemon.h"
#include "log.h"
#include "session.h"
#include "session_rules.h"

#define MPT_DEAD_FLOOR_NS	(30 * MPT_NSEC_PER_MSEC)
#define MPT_DEAD_STALE_NS	(500 * MPT_NSEC_PER_MSEC)	/* 1.5 x kInitialRtt */
/* The longest a dark path's hole is held from when it appeared: the inner TCP's least
 * retransmission timeout is 200 ms (Linux TCP_RTO_MIN; RFC 6298 2.4 asks 1 s), a hole
 * given up by then leaves its duplicate ACKs 50 ms to reach the sender. */
#define MPT_DARK_HOLD_MAX_NS	(150 * MPT_NSEC_PER_MSEC)

/* How long the receiver holds a hole: mpt_reorder_hold_repair over the up paths'
 * RTTs, as the receiving side computes it from its own (session_rx.c). */
uint64_t mpt_session_hold_ns(const struct mpt_session *s)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t srtt[MPT_MAX_PATHS];
	unsigned n = 0;

	for (unsigned i = 0; i < s->npaths; i++)
		if (s->paths[i].used && s->paths[i].alive)
			srtt[n++] = s->paths[i].rec.have_rtt ? s->paths[i].rec.srtt_ns : 0;
	if (cfg->recovery == MPT_RECOVERY_RETRANSMIT)
		return mpt_reorder_hold_repair(srtt, n, cfg->reorder_margin_ns,
					       cfg->reorder_max_hold_ns);
	return mpt_reorder_hold_from_rtts(srtt, n, cfg->reorder_margin_ns,
					  cfg->reorder_max_hold_ns);
}

/* How long a sender takes to declare p dead once it falls silent (dead_after, for a
 * path with a fresh RTT), as the receiver estimates it from its own side of p. */
static uint64_t detect_ns(const struct mpt_path *p)
{
	return MPT_MAX(3 * mpt_recovery_pto(&p->rec) / 2, MPT_DEAD_FLOOR_NS);
}

/* When the repairs of a path that went dark can be at the receiver (0: no such path):
 * a path that delivered data until about when the hole at next appeared (within the
 * largest RTT) and none since for at least half the hold is dark; its holes are repaired once
 * its sender has found it dead (detect_ns after its last packet) and the repairs
 * crossed a live path behind what it has in flight (twice the largest RTT), plus
 * ReorderMargin. At most MPT_DARK_HOLD_MAX_NS (and ReorderMaxHold) after the hole
 * appeared. */
static uint64_t dark_hold_until(const struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;
	const struct mpt_reorder *rb = &s->reorder;
	uint64_t since = rb->hole_since_ns, hi = 0, until = 0;

	for (unsigned i = 0; i < s->npaths; i++)
		if (s->paths[i].used && s->paths[i].alive && s->paths[i].rec.have_rtt)
			hi = MPT_MAX(hi, s->paths[i].rec.srtt_ns);
	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *p = &s->paths[i];
		uint64_t last = p->last_data_rx_ns;

		if (!p->used || !last || last + hi < since ||
		    now - last < mpt_reorder_hold_now(rb) / 2)
			continue;
		until = MPT_MAX(until, last + detect_ns(p) + 2 * hi + cfg->reorder_margin_ns);
	}
	return MPT_MIN(until, since + MPT_MIN(MPT_DARK_HOLD_MAX_NS, cfg->reorder_max_hold_ns));
}

void mpt_session_reorder_timeout(struct mpt_session *s, uint64_t now)
{
	uint64_t due = mpt_reorder_next_deadline(&s->reorder);

	if (!due || now < due)
		return;
	if (s->d->cfg.recovery == MPT_RECOVERY_RETRANSMIT)
		mpt_reorder_hold_until(&s->reorder, dark_hold_until(s, now));
	mpt_reorder_on_timeout(&s->reorder, now);
}

/* How long after the receiver gives up on a hole the end-to-end transport can repair
 * it at the earliest: the inner receiver's duplicate ACKs or SACKs cross the tunnel one
 * way, the retransmission comes back the other way behind what waits in the scheduler
 * queue now. At least the least smoothed RTT of the up paths plus the age of the
 * queue's head. */
static uint64_t e2e_repair_ns(const struct mpt_session *s, uint64_t now)
{
	uint64_t least = UINT64_MAX;

	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *p = &s->paths[i];

		if (p->used && p->alive && p->rec.have_rtt)
			least = MPT_MIN(least, p->rec.srtt_ns);
	}
	if (least == UINT64_MAX)
		least = 0;
	if (s->squeue.head && now > s->squeue.head->enq_ns)	/* the bulk lane's: older */
		least += now - s->squeue.head->enq_ns;
	else if (s->sparse.q.head && now > s->sparse.q.head->enq_ns)
		least += now - s->sparse.q.head->enq_ns;
	return least;
}

/* Is a repair sent now on v still worth it? The hole shows at the receiver when the
 * original would have arrived (sent + one-way delay of its path); the receiver waits
 * hold after that, then delivers the packets behind the hole, and a repair arriving
 * later still as a late packet; it is wasted only once the end-to-end retransmission
 * can be there first (slack: e2e_repair_ns). A dead path's whole window arrives past
 * the hold when the live path must first make room for it; without the slack it was
 * dropped here and the inner TCP waited a round trip of its own (through the queue). */
static bool in_time(const struct mpt_session *s, const struct mpt_pkt *pkt,
		    const struct mpt_path_view *v, uint64_t limit, uint64_t now)
{
	const struct mpt_path *orig = &s->paths[pkt->path < s->npaths ? pkt->path : 0];
	uint64_t owd = orig->rec.have_rtt ? orig->rec.srtt_ns / 2 : 0;

	return now + mpt_arrival_ns(v, v->cwnd, pkt->len) <= pkt->sent_ns + owd + limit;
}

/*
 * A packet sent on two paths (a redundant pick, sched/redundant.c) has its repair on
 * the other one already: re-sent, it only adds to the live path. Real-time, it came
 * off the voice's allowance there too (session_rules.c): atsss-mixed, priority@atsss,
 * at WiFi's death its voice copies in flight were repaired onto LTE (LTE's real-time
 * bytes 8.4 kB against the 6 kB allowance past the bulk, with the download's ACKs
 * repaired beside them), and the voice waited 130 ms there with WiFi down.
 */
void mpt_session_collect_lost(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_pkt *pkt;

	while ((pkt = mpt_pktq_pop(&p->lostq))) {
		if (pkt->copied) {
			s->st.repair_copied++;
			mpt_pkt_put(&s->d->pool, pkt);
			continue;
		}
		if (s->d->cfg.recovery != MPT_RECOVERY_RETRANSMIT || pkt->rtx) {
			s->st.repair_given_up++;
			mpt_pkt_put(&s->d->pool, pkt);
			continue;
		}
		mpt_pktq_push(&s->rtxq, pkt);
	}
}

/* The up path with room where a packet of len bytes arrives soonest, or -1. */
static int soonest(const struct mpt_sched_ctx *ctx, uint32_t len)
{
	uint64_t best_at = UINT64_MAX;
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];
		uint64_t at;

		if (!mpt_path_has_room(v, v->cwnd) || v->mtu < len)
			continue;
		at = mpt_arrival_ns(v, v->cwnd, len);
		if (at < best_at) {
			best_at = at;
			best = (int)i;
		}
	}
	return best;
}

void mpt_session_repair(struct mpt_session *s, struct mpt_path_view *views,
			const struct mpt_sched_ctx *ctx, uint64_t now)
{
	uint64_t limit;

	if (!s->rtxq.head)
		return;
	limit = mpt_session_hold_ns(s) + e2e_repair_ns(s, now);
	while (s->rtxq.head) {
		struct mpt_pkt *pkt = s->rtxq.head;
		int i = soonest(ctx, pkt->len);

		if (i < 0)
			return;			/* no room: an ACK or a timer comes back */
		mpt_pktq_pop(&s->rtxq);
		if (!in_time(s, pkt, &views[i], limit, now)) {
			s->st.repair_late++;
			mpt_pkt_put(&s->d->pool, pkt);
			continue;
		}
		pkt->rtx++;
		s->st.repairs++;
		views[i].in_flight += pkt->len;
		views[i].queued_bytes += pkt->len;
		mpt_pktq_push(&s->paths[i].txq, pkt);
	}
}

/* One and a half probe timeouts (srtt + 4 rttvar + ACK delay: RFC 9002 6.2.1)
 * without an acknowledgement while data is in flight. Until the path has a fresh RTT
 * sample since it came up, its RTT may be stale (an idle path measured without the
 * queues it meets now): then 1.5 x RFC 9002's initial RTT at least. */
static uint64_t dead_after(const struct mpt_path *p)
{
	return p->rtt_fresh ? detect_ns(p) : MPT_MAX(detect_ns(p), MPT_DEAD_STALE_NS);
}

/* A second packet sent into the silence must have had a probe timeout to be
 * acknowledged too (mpt_recovery_second_sent): a greedy flow's next packet follows at
 * once and changes nothing; an idle path's lone lost packet waits for its PTO probe
 * (about 2 PTO in all). Before, such a path with 16 ms RTT was declared dead 32 ms
 * after one lost 158-byte packet, its probe still on its way (test_resilience's 2%
 * loss step: 6-7 times per run on the anchor, 4 on the UE). */
uint64_t mpt_session_dead_deadline(const struct mpt_path *p)
{
	uint64_t since = mpt_recovery_silent_since(&p->rec), pto, second;

	if (!since || !p->alive)
		return 0;
	pto = mpt_recovery_pto(&p->rec);
	second = mpt_recovery_second_sent(&p->rec);
	if (!second)
		second = since + pto;	/* the PTO probe is due then */
	return MPT_MAX(MPT_MAX(since, p->alive_since_ns) + dead_after(p), second + pto);
}

void mpt_session_on_losses(struct mpt_session *s, struct mpt_path *p,
			   const struct mpt_recovery_event *ev, uint64_t now)
{
	struct mpt_sched_ctx ctx;
	struct mpt_cc_path cp;

	if (!ev->lost_bytes)
		return;
	if (p->cc_ops->on_loss) {
		mpt_path_cc_view(p, &cp, s->d->inner_mtu);
		p->cc_ops->on_loss(&p->cc, &cp, ev->lost_bytes, now);
	}
	if (s->sched->on_loss) {
		mpt_session_sched_ctx(s, &ctx, now);
		s->sched->on_loss(s->sched_priv, &ctx, p->id, ev->lost_bytes);
	}
	if (s->rules) {
		mpt_session_sched_ctx(s, &ctx, now);
		mpt_rules_on_loss(s, &ctx, p->id, ev->lost_bytes);
	}
	mpt_session_flow_report(s, p, now);
	mpt_session_collect_lost(s, p, now);
}
