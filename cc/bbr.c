// SPDX-License-Identifier: MIT
/*
 * bbr — BBR v1, after draft-cardwell-iccrg-bbr-congestion-control-00 (cited "draft
 * 4.x") and the Linux tcp_bbr.c of the same generation (cited by its names).
 *
 * Model: BtlBw = windowed max of delivery-rate samples over bw_rtts round trips
 * (app-limited samples only when they raise it); RTprop = min RTT over min_rtt_win_ms.
 * BDP = BtlBw x RTprop. pacing_rate = pacing_gain x BtlBw x (1 - pacing_margin);
 * cwnd = cwnd_gain x BDP + send_quanta x send_quantum, at least min_cwnd_pkts, where
 * send_quantum (draft 4.2.2) is the burst the sender releases at once: one or two
 * packets at low rates, else 1 ms at the pacing rate up to 64 KiB (the pacer's horizon,
 * src/core/pacer.h, and a UDP GSO send). On a sub-millisecond path the quanta are most of
 * the window: they cover the time our own batches, timers and ACK frequency add to
 * RTprop's bare round trip, which a window of 2 BDP alone does not.
 *
 *            +---------+  BtlBw grew < full_bw_thresh for full_bw_cnt rounds
 *   init --> | Startup | -----------------------------+
 *            +---------+                              v
 *                 ^                              +-------+
 *                 | (pipe not yet full)          | Drain | in_flight <= BDP
 *                 |                              +-------+ ---------+
 *            +-----------+  >= probe_rtt_ms and one round          v
 *            | ProbeRTT  | ---------------------------------> +---------+
 *            +-----------+ <--------------------------------- | ProbeBW |
 *              cwnd = min_cwnd   RTprop not refreshed for      +---------+
 *                                min_rtt_win_ms (from any state)
 *
 * ProbeBW cycles pacing_gain through up_gain, down_gain, then 1.0 for the remaining
 * phases, each about one RTprop long; it starts at a random phase, never the drain
 * (down_gain) phase, drawn from a private generator seeded from the rng given to init.
 * Rounds are counted by delivered bytes: a round ends when a packet sent after the
 * previous round's end is acknowledged (draft 4.1.1.3).
 *
 * Losses (draft 4.2.3.4): on the first loss of an episode the window is cut to what is
 * in flight and grows only by what is acknowledged (packet conservation) for one round;
 * the episode ends at a round without losses, when the prior window is restored.
 * mptund's own: RTprop expires early, from any state, after rtprop_jump_rounds rounds
 * whose RTT samples the old RTprop and our in-flight cannot explain while the window
 * or Drain held the path (bbr_check_rtprop_jump): a lengthened path otherwise keeps a
 * window of the old BDP, and Drain never ends, for up to min_rtt_win_ms.
 * Not implemented from later tcp_bbr.c: the long-term (policer) bandwidth model, the
 * ACK-aggregation cwnd allowance, idle restart.
 */
#include <math.h>

#include <mptund/cc.h>

#include "bbr.h"

static struct bbr *bbr_of(struct mpt_cc *cc)
{
	return (struct bbr *)cc->priv;
}

static uint64_t bbr_max_bw(const struct bbr *b)
{
	return mpt_minmax_get(&b->bw);
}

/*
 * The initial window, bytes: init_cwnd_pkts per iw_ref_rtt_ms of the path's RTT, never
 * below init_cwnd_pkts, at most iw_max_pkts (mptund's BDP-aware start). RFC 9002 7.2
 * and RFC 6928 fix the first window in packets, whatever the RTT: a path of 600 ms
 * then starts at a tenth of the rate of a 60 ms one and, doubling once per its own
 * round trip, falls behind the inner flows it carries, whose round trips can be
 * shorter (their ACKs come back over another path). On sat-lte-down (satellite
 * 300 ms one way next to LTE 30 ms) the inner CUBIC doubled every 334 ms, the
 * satellite path every 600 ms from 10 packets: the excess queued or spilled onto LTE
 * and the inner flow left slow start at 35-50 packets. Scaling the first window by
 * RTT / RTT0 is TCP Hybla's (Caini, Firrincieli, "TCP Hybla: a TCP enhancement for
 * heterogeneous networks", IJSCN 2004, section 3: rho = RTT / RTT0, RTT0 = 25 ms;
 * Linux tcp_hybla.c starts at rho packets): the first window then covers the same
 * time at any RTT, a rate of init_cwnd_pkts per RTT0 (10 x 1400 bytes per 25 ms,
 * 4.5 Mbit/s). It does not push traffic: the tunnel's window only caps what the inner
 * senders offer, each under its own IW. Paths at or under RTT0 keep init_cwnd_pkts.
 * rtt_ns 0 (not yet measured): init_cwnd_pkts.
 */
static uint64_t bbr_init_cwnd(const struct bbr *b, uint64_t rtt_ns)
{
	uint64_t pkts = b->init_cwnd_pkts, ref = (uint64_t)b->iw_ref_rtt_ms * MPT_NSEC_PER_MSEC;

	if (ref && rtt_ns > ref) {
		uint64_t scaled = (uint64_t)((double)b->init_cwnd_pkts * (double)rtt_ns /
					     (double)ref);

		scaled = MPT_MIN(scaled, (uint64_t)b->iw_max_pkts);
		pkts = MPT_MAX(pkts, scaled);
	}
	return pkts * b->mss;
}

/* gain x BtlBw x RTprop in bytes; the initial window while either is unknown. A
 * configured path capacity stands in for BtlBw until the first estimate (mptund: a
 * start at the path's BDP instead of the initial window when the user knows the rate) */
static uint64_t bbr_bdp(const struct bbr *b, uint64_t bw, double gain)
{
	if (!bw)
		bw = b->capacity;
	if (!b->min_rtt_ns || !bw)
		return bbr_init_cwnd(b, b->min_rtt_ns);
	return (uint64_t)(gain * (double)bw * (double)b->min_rtt_ns / 1e9);
}

/* The window while in ProbeRTT: probe_rtt_cwnd_gain x BDP (BBRv3: half the BDP, so
 * a probe costs half a path instead of all of it), at least min_cwnd_pkts; a gain of 0
 * is v1's min_cwnd_pkts (draft-ietf-ccwg-bbr 4.3.4.3 BBRProbeRTTCwnd) */
static uint64_t bbr_probe_rtt_cwnd(const struct bbr *b)
{
	uint64_t min_cwnd = (uint64_t)b->min_cwnd_pkts * b->mss, w = 0;

	if (b->probe_rtt_cwnd_gain > 0)
		w = (uint64_t)(b->probe_rtt_cwnd_gain *
			       (double)(mpt_minmax_get(&b->bw) ? mpt_minmax_get(&b->bw) : 0) *
			       (double)b->min_rtt_ns / 1e9);
	return MPT_MAX(w, min_cwnd);
}

/*
 * draft 4.2.2 BBRSetSendQuantum: 1 MSS below 1.2 Mbit/s, 2 MSS below 24 Mbit/s, else
 * min(pacing_rate x 1 ms, 64 KiB); never less than one MSS.
 */
static uint64_t bbr_send_quantum(const struct bbr *b, uint64_t pacing_rate)
{
	uint64_t q;

	if (pacing_rate * 8 < (uint64_t)b->quantum_1pkt_kbps * 1000)
		return b->mss;
	if (pacing_rate * 8 < (uint64_t)b->quantum_2pkt_kbps * 1000)
		return 2 * (uint64_t)b->mss;
	q = pacing_rate * b->quantum_us / MPT_NSEC_PER_MSEC;
	q = MPT_MIN(q, (uint64_t)b->quantum_max);
	return MPT_MAX(q, (uint64_t)b->mss);
}

/*
 * draft 4.2.3.2 BBRInflight: gain x BDP + quanta, quanta = send_quanta x send quantum
 * (tcp_bbr.c bbr_quantization_budget): room in the window for the sender's bursts.
 * mptund uses it for the window only; the in-flight targets that end Drain and the
 * gain cycle's phases stay at the bare BDP (as before), so the down_gain phase still
 * drains the queue and an equal RTprop sample refreshes the filter: with the quanta
 * in those targets a standing queue of 3 quanta stays and a constant-delay 50 Mbit/s
 * path probes its RTT every 10 s (test_bbr_rtprop_refreshes_on_equal: 3 in 35 s).
 */
static uint64_t bbr_inflight(const struct mpt_cc *cc, const struct bbr *b, uint64_t bw,
			     double gain)
{
	return bbr_bdp(b, bw, gain) + b->send_quanta * bbr_send_quantum(b, cc->pacing_rate);
}

static double bbr_cycle_gain(const struct bbr *b, uint32_t idx)
{
	return idx == 0 ? b->up_gain : idx == 1 ? b->down_gain : 1.0;
}

static uint64_t bbr_rate(const struct bbr *b, uint64_t bw, double gain)
{
	return (uint64_t)(gain * (double)bw * (1.0 - b->pacing_margin));
}

static void bbr_set_mode(struct mpt_cc *cc, struct bbr *b, uint32_t mode)
{
	b->mode = mode;
	cc->state = (uint8_t)mode;
}

/* tcp_bbr.c bbr_init_pacing_rate_from_rtt: high_gain x initial window / RTT. The
 * first RTT sample also sets the window to the RTT-scaled initial one (bbr_init_cwnd)
 * unless Startup already ended; the window never shrinks here. */
static void bbr_init_pacing(struct mpt_cc *cc, struct bbr *b, uint64_t srtt_ns)
{
	uint64_t rtt = srtt_ns ? srtt_ns : (uint64_t)b->default_rtt_us * MPT_NSEC_PER_USEC;
	uint64_t iw = bbr_init_cwnd(b, srtt_ns);
	double bw = (double)iw * 1e9 / (double)rtt;

	if ((double)b->capacity > bw)
		bw = (double)b->capacity;

	if (srtt_ns) {
		b->has_seen_rtt = true;
		if (!b->full_bw_reached)
			cc->cwnd = MPT_MAX(cc->cwnd, iw);
	}
	cc->pacing_rate = (uint64_t)(b->high_gain * bw * (1.0 - b->pacing_margin));
}

/* draft 4.3.3.4 / tcp_bbr.c bbr_reset_probe_bw_mode: random phase, never down_gain */
static void bbr_enter_probe_bw(struct mpt_cc *cc, struct bbr *b, uint64_t now)
{
	uint32_t n = b->cycle_len;

	bbr_set_mode(cc, b, MPT_CC_PROBE_BW);
	b->cur_cwnd_gain = b->cwnd_gain;
	/* one of the n - 1 phases other than 1 (the down_gain phase) */
	b->cycle_idx = (2 + mpt_rng_below(&b->rng, n - 1)) % n;
	b->pacing_gain = bbr_cycle_gain(b, b->cycle_idx);
	b->cycle_stamp = now;
}

static void bbr_enter_startup(struct mpt_cc *cc, struct bbr *b)
{
	bbr_set_mode(cc, b, MPT_CC_STARTUP);
	b->pacing_gain = b->high_gain;
	b->cur_cwnd_gain = b->high_gain;
}

/* tcp_bbr.c bbr_save_cwnd: remember the last good window before a cut */
static void bbr_save_cwnd(const struct mpt_cc *cc, struct bbr *b)
{
	if (!b->in_recovery && b->mode != MPT_CC_PROBE_RTT)
		b->prior_cwnd = cc->cwnd;
	else
		b->prior_cwnd = MPT_MAX(b->prior_cwnd, cc->cwnd);
}

/* draft 4.1.1.3 round counting, 4.1.1.5 BtlBw max filter */
static void bbr_update_bw(struct bbr *b, const struct mpt_cc_path *p,
			  const struct mpt_rate_sample *rs)
{
	uint64_t bw;

	b->round_start = false;
	if (rs->acked_bytes == 0)
		return;
	if (rs->prior_delivered >= b->next_rtt_delivered) {
		b->next_rtt_delivered = p->delivered;
		b->round_count++;
		b->round_start = true;
		b->packet_conservation = false;
	}
	if (!rs->interval_ns)
		return;
	bw = (uint64_t)((double)rs->delivered * 1e9 / (double)rs->interval_ns);
	if (!rs->is_app_limited || bw >= bbr_max_bw(b))
		mpt_minmax_running_max(&b->bw, b->bw_rtts, b->round_count, bw);
	if (!rs->is_app_limited)
		b->bw_proven = true;
}

/* draft 4.3.4.2 / tcp_bbr.c bbr_is_next_cycle_phase */
static bool bbr_next_phase(const struct bbr *b, const struct mpt_rate_sample *rs,
			   uint64_t now)
{
	bool full_length = now - b->cycle_stamp > b->min_rtt_ns;
	uint64_t inflight = rs->prior_in_flight;

	if (b->pacing_gain > 1.0)
		return full_length &&
		       (rs->lost_bytes || inflight >= bbr_bdp(b, bbr_max_bw(b), b->pacing_gain));
	if (b->pacing_gain < 1.0)
		return full_length || inflight <= bbr_bdp(b, bbr_max_bw(b), 1.0);
	return full_length;
}

static void bbr_update_cycle(struct bbr *b, const struct mpt_rate_sample *rs,
			     uint64_t now)
{
	if (b->mode != MPT_CC_PROBE_BW || !bbr_next_phase(b, rs, now))
		return;
	b->cycle_idx = (b->cycle_idx + 1) % b->cycle_len;
	b->cycle_stamp = now;
	b->pacing_gain = bbr_cycle_gain(b, b->cycle_idx);
}

/* draft 4.3.2.2 / tcp_bbr.c bbr_check_full_bw_reached */
static void bbr_check_full_bw(struct bbr *b, const struct mpt_rate_sample *rs)
{
	uint64_t bw = bbr_max_bw(b);

	if (b->full_bw_reached || !b->round_start)
		return;
	/* an app-limited round says nothing about growth, unless full_bw_thresh BDPs
	 * were in flight anyway: the pipe was offered the growth it did not show (a
	 * multipath scheduler feeds a path in bursts: such a path would otherwise stay
	 * in Startup, at 2.89 BDP, for as long as it is shared) */
	if (rs->is_app_limited &&
	    rs->prior_in_flight < bbr_bdp(b, bw, b->full_bw_thresh))
		return;
	if ((double)bw >= (double)b->full_bw * b->full_bw_thresh) {
		b->full_bw = bw;
		b->full_bw_rounds = 0;
		return;
	}
	if (++b->full_bw_rounds >= b->full_bw_cnt)
		b->full_bw_reached = 1;
}

/*
 * draft-ietf-ccwg-bbr (BBRv3) 4.3.1.3 BBRCheckStartupHighLoss: Startup also ends at a
 * round with at least startup_full_loss_cnt loss events and a loss rate above
 * loss_thresh: the pipe is full and the buffer overflows. v1 ignores loss in Startup;
 * a path a multipath scheduler feeds in bursts may stay in Startup long, and each burst
 * at 2.89 BDP then overflows a shallow buffer. Evaluated at each round start.
 */
static void bbr_check_startup_loss(struct bbr *b, const struct mpt_cc_path *p)
{
	uint64_t delivered;

	if (!b->round_start)
		return;
	delivered = p->delivered - b->round_delivered;
	if (b->mode == MPT_CC_STARTUP && !b->full_bw_reached && b->startup_full_loss_cnt &&
	    b->round_loss_events >= b->startup_full_loss_cnt &&
	    (double)b->round_lost > b->loss_thresh * (double)(delivered + b->round_lost)) {
		b->full_bw_reached = 1;
		b->startup_loss_exits++;
	}
	b->round_lost = 0;
	b->round_loss_events = 0;
	b->round_delivered = p->delivered;
}

/* draft 4.3.2.3 / 4.3.3: Startup -> Drain -> ProbeBW */
static void bbr_check_drain(struct mpt_cc *cc, struct bbr *b,
			    const struct mpt_cc_path *p, uint64_t now)
{
	if (b->mode == MPT_CC_STARTUP && b->full_bw_reached) {
		bbr_set_mode(cc, b, MPT_CC_DRAIN);
		b->pacing_gain = b->drain_gain;
		b->cur_cwnd_gain = b->high_gain;
	}
	if (b->mode == MPT_CC_DRAIN && p->in_flight <= bbr_bdp(b, bbr_max_bw(b), 1.0))
		bbr_enter_probe_bw(cc, b, now);
}

/*
 * mptund: RTprop expires early when the path lengthened (a route change, a degraded
 * radio link). The draft keeps RTprop for RTpropFilterLen (10 s, draft 4.1.2.3) and
 * refreshes it only then; meanwhile a window sized by the old RTprop caps the rate at
 * cwnd_gain x BtlBw x RTprop / RTT, the capped delivery-rate samples lower BtlBw
 * within bw_rtts rounds, and the window shrinks again: at 20 -> 300 ms a path falls to
 * a few packets a round. Drain is worse off: it ends at in_flight <= BDP (draft
 * 4.3.3), which the old BDP never admits, and it paces at drain_gain x BtlBw all the
 * while, so BtlBw falls by that each bw_rtts rounds.
 *
 * A sample RTprop explains has rtt <= RTprop + prior_in_flight / BtlBw: our own
 * bytes ahead of it at the bottleneck's estimated rate. A round whose every sample
 * misses that while the window (or Drain) held the path means the propagation delay,
 * a queue of others, or a slower bottleneck: either way the old RTprop no longer
 * describes the path. After rtprop_jump_rounds such rounds in a row RTprop expires as
 * if its window had run out (draft 4.1.2.3; ProbeRTT, 4.3.5, then measures the path
 * with our queue drained). A steady path never qualifies: at a delivery rate near
 * BtlBw, in_flight / BtlBw alone is about the whole RTT (Little's law). A sample may
 * also hold the peer's ACK delay, up to its max_ack_delay (RFC 9002 5.3), which is no
 * part of the path: it is allowed for. Without it, on a path of tens of microseconds
 * (veth, a LAN) where the receiver's batching and ACK timing are most of each sample,
 * every few rounds "jumped" and the path spent most of its time in ProbeRTT (48
 * ProbeRTTs in 11 s: 2.3 Gbit/s against 4.3 without the test).
 * The missed rounds must also span rtprop_jump_ms: on such a path a round is a
 * millisecond or less, and the daemons' own hiccups on a busy machine outlast three
 * of them (bench-dataplane, two paths shaped to 1 Gbit/s: each path in ProbeRTT 13-18
 * times in 10 s, 1.22-1.25 Gbit/s; with 30 rounds or the rule off, no early expiry and
 * 1.27-1.40). A path of 10 ms or more is judged as before: 3 rounds are >= 25 ms.
 */
static void bbr_check_rtprop_jump(const struct mpt_cc *cc, struct bbr *b,
				  const struct mpt_cc_path *p,
				  const struct mpt_rate_sample *rs, uint64_t now)
{
	uint64_t bw = bbr_max_bw(b);

	if (!b->rtprop_jump_rounds || b->mode == MPT_CC_PROBE_RTT) {
		b->jump_round_began_ns = now;
		b->jump_rounds = 0;
		b->jump_round_sampled = b->jump_round_fit = b->jump_round_limited = false;
		return;
	}
	if (b->round_start) {
		uint64_t began = b->jump_round_began_ns;

		b->jump_round_began_ns = now;
		if (b->jump_round_sampled && !b->jump_round_fit && b->jump_round_limited) {
			if (!b->jump_rounds++)
				b->jump_since_ns = began;
		} else {
			b->jump_rounds = 0;
		}
		b->jump_round_sampled = b->jump_round_fit = b->jump_round_limited = false;
		if (b->jump_rounds >= b->rtprop_jump_rounds &&
		    now - b->jump_since_ns >= (uint64_t)b->rtprop_jump_ms * MPT_NSEC_PER_MSEC) {
			b->jump_rounds = 0;
			b->rtprop_stale = true;
			b->rtprop_jumps++;
		}
	}
	if (b->mode == MPT_CC_DRAIN || rs->prior_in_flight + rs->acked_bytes >= cc->cwnd)
		b->jump_round_limited = true;
	if (!rs->rtt_ns || !b->min_rtt_ns || !bw)
		return;
	b->jump_round_sampled = true;
	if ((double)rs->rtt_ns <= (double)b->min_rtt_ns + (double)p->max_ack_delay_ns +
				  (double)rs->prior_in_flight * 1e9 / (double)bw)
		b->jump_round_fit = true;
}

/*
 * A due ProbeRTT is skipped, and RTprop's stamp renewed, when the path is app-limited
 * (this sample) and its latest RTT sample is within probe_rtt_skip_similar above
 * RTprop: QUIC's BbrSender (Chromium, probe_rtt_skipped_if_similar_rtt,
 * kSimilarMinRttThreshold 1.125: "even if the min_rtt is 12.5% too low, the 25% gain
 * cycling and 2x CWND gain should overcome an overly small min_rtt"), which judges the
 * least RTT since the last ProbeRTT: a path that lengthened within the window would
 * skip once more. A path the scheduler does not fill has no queue to drain, and its
 * samples show so; ProbeRTT then only costs. sat-lte-down (acpf, main b9fe70a): the
 * satellite's ProbeRTT at 18 s cut it from 14 MB to half a BDP (2.6 MB) for 200 ms and
 * a 600 ms round, the scheduler queue overflowed (881 drops) and the inner TCP halved.
 * A lengthened path (rtprop_stale) and a path the sender fills still probe.
 */
static bool bbr_skip_probe_rtt(struct bbr *b, const struct mpt_rate_sample *rs)
{
	if (rs->rtt_ns)
		b->last_rtt_ns = rs->rtt_ns;
	return b->probe_rtt_skip_similar > 0 && !b->rtprop_stale && rs->is_app_limited &&
	       b->last_rtt_ns && (double)b->last_rtt_ns <=
	       (double)b->min_rtt_ns * (1.0 + b->probe_rtt_skip_similar);
}

/* draft 4.1.2.3 RTprop filter, 4.3.5 ProbeRTT / tcp_bbr.c bbr_update_min_rtt */
static void bbr_update_min_rtt(struct mpt_cc *cc, struct bbr *b,
			       const struct mpt_cc_path *p,
			       const struct mpt_rate_sample *rs, uint64_t now)
{
	uint64_t win = (uint64_t)b->min_rtt_win_ms * MPT_NSEC_PER_MSEC;
	bool expired = b->min_rtt_ns && (now > b->min_rtt_stamp + win || b->rtprop_stale);
	bool skip = bbr_skip_probe_rtt(b, rs);
	/* mptund: one path of a session probes at a time; a path whose turn comes while
	 * another drains keeps its (expired) RTprop and starts when that one is done */
	bool defer;

	if (expired && skip && b->mode != MPT_CC_PROBE_RTT) {
		b->min_rtt_stamp = now;		/* RTprop holds: no ProbeRTT */
		b->probe_rtt_skips++;
		expired = false;
	}
	defer = expired && b->probe_rtt_ms && p->probe_rtt_busy && b->mode != MPT_CC_PROBE_RTT;
	if (defer)
		b->probe_rtt_deferred++;
	/* <= as draft 4.1.2.3 (BBRUpdateRTprop) and tcp_bbr.c: an equal sample refreshes
	 * the stamp, so a constant-delay path never needs a ProbeRTT */
	if (rs->rtt_ns && (!b->min_rtt_ns || rs->rtt_ns <= b->min_rtt_ns ||
			   (expired && !defer))) {
		b->min_rtt_ns = rs->rtt_ns;
		b->min_rtt_stamp = now;
		b->rtprop_stale = false;
	}

	if (b->probe_rtt_ms && expired && !defer && b->mode != MPT_CC_PROBE_RTT) {
		bbr_save_cwnd(cc, b);
		bbr_set_mode(cc, b, MPT_CC_PROBE_RTT);
		b->pacing_gain = 1.0;
		b->cur_cwnd_gain = 1.0;
		b->probe_rtt_done_stamp = 0;
		b->probe_rtt_count++;
	}
	if (b->mode != MPT_CC_PROBE_RTT)
		return;
	if (!b->probe_rtt_done_stamp && p->in_flight <= bbr_probe_rtt_cwnd(b)) {
		/* drained to the ProbeRTT window: hold it probe_rtt_ms and one round */
		b->probe_rtt_done_stamp = now + (uint64_t)b->probe_rtt_ms * MPT_NSEC_PER_MSEC;
		b->probe_rtt_round_done = false;
		b->next_rtt_delivered = p->delivered;
	} else if (b->probe_rtt_done_stamp) {
		if (b->round_start)
			b->probe_rtt_round_done = true;
		if (b->probe_rtt_round_done && now > b->probe_rtt_done_stamp) {
			b->min_rtt_stamp = now;
			cc->cwnd = MPT_MAX(cc->cwnd, b->prior_cwnd);
			if (b->full_bw_reached)
				bbr_enter_probe_bw(cc, b, now);
			else
				bbr_enter_startup(cc, b);
		}
	}
}

/*
 * Ignore low rate samples during ProbeRTT (draft 4.3.5 BBRHandleProbeRTT, tcp_bbr.c
 * bbr_update_min_rtt): C.app_limited = (delivered + in_flight) ? : 1 on every ACK in
 * ProbeRTT. The controller cannot set the core's mark, so it keeps its own: a packet
 * was sent while the mark held iff delivered then (prior_delivered) <= the mark, since
 * the draft clears the mark once delivered exceeds it; such samples are app-limited. Without it a path that was
 * app-limited for the whole BtlBw window (nothing inserted, the window expired) takes
 * ProbeRTT's 4-packet rate as its new BtlBw, and regrows by up_gain per cycle.
 */
static void bbr_mark_probe_rtt(struct bbr *b, const struct mpt_cc_path *p)
{
	if (b->mode != MPT_CC_PROBE_RTT)
		return;
	b->probe_rtt_app_mark = p->delivered + p->in_flight;
	if (!b->probe_rtt_app_mark)
		b->probe_rtt_app_mark = 1;
}

/*
 * mptund: Startup follows the senders' flight until a rate is proven (bw_proven: a
 * sample that was not app-limited). The tunnel's window caps what the inner senders
 * offer; their loops can be shorter than the path's own round trip (their ACKs come
 * back over another path), so they double faster than Startup's cwnd += acked, which
 * also lags by the path's RTT. On sat-lte-down (satellite 300 ms one way, its tunnel
 * ACKs on its own uplink: 600 ms; the inner CUBIC's ACKs on LTE: 334 ms) the window
 * and the initial pacing rate (12.9 Mbit/s) ran out at 500-600 inner packets, the
 * backlog raised the inner RTT and HyStart (Linux tcp_cubic.c, delay threshold
 * clamp(minRTT / 8, 4 ms, 16 ms)) ended slow start at 656 packets: CUBIC then took
 * 10 s at 334 ms to reach the satellite's rate.
 * While less than half the window is in flight (the senders, not the window, limit)
 * cwnd >= startup_flight_gain x the flight before this ACK, and the pacing rate is at
 * least high_gain x cwnd / RTprop: tcp_bbr.c bbr_init_pacing_rate_from_rtt's rule,
 * with the current window for the initial one. A sender that fills the window (a
 * greedy flow, a scheduler spilling onto the path) never lets it apply: half the
 * window bounds each raise, the first window-limited sample proves the rate and
 * Startup proceeds as the draft's. A sender that outgrows the path meets the
 * bottleneck's queue and loss, and Startup ends by its loss rule (BBRv3).
 */
static bool bbr_follows_flight(const struct bbr *b)
{
	return b->startup_flight_gain > 0 && b->mode == MPT_CC_STARTUP && !b->bw_proven &&
	       !b->in_recovery && b->min_rtt_ns;
}

static void bbr_follow_flight(struct mpt_cc *cc, struct bbr *b,
			      const struct mpt_cc_path *p, uint64_t acked)
{
	uint64_t flight = p->in_flight + acked, w;

	if (!bbr_follows_flight(b) || 2 * flight >= cc->cwnd)
		return;
	w = (uint64_t)(b->startup_flight_gain * (double)flight);
	if (w > cc->cwnd) {
		cc->cwnd = w;
		b->startup_follows++;
	}
}

static void bbr_set_pacing(struct mpt_cc *cc, struct bbr *b,
			   const struct mpt_cc_path *p)
{
	uint64_t bw = bbr_max_bw(b), rate;

	if (!b->has_seen_rtt && p->srtt_ns)
		bbr_init_pacing(cc, b, p->srtt_ns);
	if (bbr_follows_flight(b)) {
		rate = bbr_rate(b, (uint64_t)((double)cc->cwnd * 1e9 / (double)b->min_rtt_ns),
				b->high_gain);
		cc->pacing_rate = MPT_MAX(cc->pacing_rate, rate);
	}
	if (!bw)
		return;
	rate = bbr_rate(b, bw, b->pacing_gain);
	/* until the pipe is full never slow down below the initial estimate */
	if (b->full_bw_reached || rate > cc->pacing_rate)
		cc->pacing_rate = rate;
}

/* draft 4.2.3 / tcp_bbr.c bbr_set_cwnd */
static void bbr_set_cwnd(struct mpt_cc *cc, struct bbr *b, const struct mpt_cc_path *p,
			 const struct mpt_rate_sample *rs)
{
	uint64_t min_cwnd = (uint64_t)b->min_cwnd_pkts * b->mss;
	uint64_t target, acked = rs->acked_bytes;

	if (b->in_recovery && b->round_start && !b->packet_conservation) {
		/* a round went by: end the episode if it saw no loss */
		if (!b->recovery_losses) {
			b->in_recovery = false;
			cc->cwnd = MPT_MAX(cc->cwnd, b->prior_cwnd);
		}
		b->recovery_losses = 0;
	}
	if (b->packet_conservation) {
		cc->cwnd = MPT_MAX(cc->cwnd, p->in_flight + acked);
		goto done;
	}

	target = bbr_inflight(cc, b, bbr_max_bw(b), b->cur_cwnd_gain);
	if (b->mode == MPT_CC_PROBE_BW && b->cycle_idx == 0)
		target += 2 * (uint64_t)b->mss;
	if (b->full_bw_reached)
		cc->cwnd = MPT_MIN(cc->cwnd + acked, target);
	else if (cc->cwnd < target || p->delivered < bbr_init_cwnd(b, b->min_rtt_ns))
		cc->cwnd += acked;
	cc->cwnd = MPT_MAX(cc->cwnd, min_cwnd);
done:
	if (b->mode == MPT_CC_PROBE_RTT)
		cc->cwnd = MPT_MIN(cc->cwnd, bbr_probe_rtt_cwnd(b));
}

static void bbr_publish(struct mpt_cc *cc, const struct bbr *b)
{
	/* schedulers get the estimate once a sample that was not app-limited proved it
	 * (cc.h): a path that only carried probes or a trickle has not shown its rate */
	cc->btlbw = b->bw_proven ? bbr_max_bw(b) : 0;
	cc->min_rtt_ns = b->min_rtt_ns;
	cc->state = (uint8_t)b->mode;
}

void mpt_bbr_on_ack(struct mpt_cc *cc, const struct mpt_cc_path *p,
		    const struct mpt_rate_sample *rs, uint64_t now)
{
	struct bbr *b = bbr_of(cc);

	struct mpt_rate_sample r = *rs;

	if (p->mss)
		b->mss = p->mss;
	b->capacity = p->capacity;
	/* ProbeRTT's low-rate samples count as app-limited (see bbr_mark_probe_rtt) */
	if (b->probe_rtt_app_mark && r.prior_delivered <= b->probe_rtt_app_mark)
		r.is_app_limited = true;
	bbr_update_bw(b, p, &r);
	bbr_update_cycle(b, &r, now);
	bbr_check_full_bw(b, &r);
	bbr_check_startup_loss(b, p);
	bbr_check_drain(cc, b, p, now);
	bbr_check_rtprop_jump(cc, b, p, &r, now);
	bbr_update_min_rtt(cc, b, p, &r, now);
	bbr_mark_probe_rtt(b, p);
	if (!b->packet_conservation)
		bbr_follow_flight(cc, b, p, r.acked_bytes);
	bbr_set_pacing(cc, b, p);
	bbr_set_cwnd(cc, b, p, &r);
	bbr_publish(cc, b);
}

void mpt_bbr_on_loss(struct mpt_cc *cc, const struct mpt_cc_path *p,
		     uint64_t lost_bytes, uint64_t now)
{
	struct bbr *b = bbr_of(cc);
	uint64_t min_cwnd = (uint64_t)b->min_cwnd_pkts * b->mss;

	if (lost_bytes) {
		b->round_lost += lost_bytes;
		b->round_loss_events++;
	}
	if (!b->loss_recovery || !lost_bytes)
		return;
	b->recovery_losses += lost_bytes;
	if (!b->in_recovery) {
		/* tcp_bbr.c bbr_set_cwnd_to_recover_or_restore: conserve for a round */
		bbr_save_cwnd(cc, b);
		b->in_recovery = true;
		b->packet_conservation = true;
		b->next_rtt_delivered = p->delivered;
		cc->cwnd = p->in_flight;
	} else {
		cc->cwnd = cc->cwnd > lost_bytes ? cc->cwnd - lost_bytes : 0;
	}
	cc->cwnd = MPT_MAX(cc->cwnd, min_cwnd);
	if (b->mode == MPT_CC_PROBE_RTT)
		cc->cwnd = MPT_MIN(cc->cwnd, bbr_probe_rtt_cwnd(b));
}

static void bbr_reset_state(struct mpt_cc *cc, struct bbr *b,
			    const struct mpt_cc_path *p, uint64_t now)
{
	if (p->mss)
		b->mss = p->mss;
	if (!b->mss)
		b->mss = 1200;
	mpt_minmax_reset(&b->bw, 0, 0);
	b->min_rtt_ns = p->min_rtt_ns;
	b->min_rtt_stamp = now;
	b->round_count = 0;
	b->next_rtt_delivered = p->delivered;
	b->full_bw = 0;
	b->full_bw_rounds = 0;
	b->full_bw_reached = 0;
	b->in_recovery = false;
	b->packet_conservation = false;
	b->recovery_losses = 0;
	b->probe_rtt_done_stamp = 0;
	b->probe_rtt_app_mark = 0;
	b->has_seen_rtt = false;
	b->bw_proven = false;
	b->prior_cwnd = 0;
	b->round_lost = 0;
	b->round_loss_events = 0;
	b->round_delivered = p->delivered;
	b->capacity = p->capacity;
	b->jump_rounds = 0;
	b->jump_round_sampled = b->jump_round_fit = b->jump_round_limited = false;
	b->rtprop_stale = false;
	cc->cwnd = bbr_init_cwnd(b, p->srtt_ns);
	bbr_enter_startup(cc, b);
	bbr_init_pacing(cc, b, p->srtt_ns);
	bbr_publish(cc, b);
}

void mpt_bbr_init(struct mpt_cc *cc, const struct mpt_cc_path *p,
		  struct mpt_rng *rng, uint64_t now)
{
	struct bbr *b = bbr_of(cc);

	mpt_rng_seed(&b->rng, rng ? mpt_rng_u64(rng) : 0);
	b->probe_rtt_count = 0;
	b->cycle_idx = 0;
	bbr_reset_state(cc, b, p, now);
}

void mpt_bbr_on_path_reset(struct mpt_cc *cc, const struct mpt_cc_path *p, uint64_t now)
{
	bbr_reset_state(cc, bbr_of(cc), p, now);
}

void mpt_bbr_params_changed(struct mpt_cc *cc)
{
	struct bbr *b = bbr_of(cc);

	b->cycle_idx %= b->cycle_len;
	switch (b->mode) {
	case MPT_CC_STARTUP:
		b->pacing_gain = b->cur_cwnd_gain = b->high_gain;
		break;
	case MPT_CC_DRAIN:
		b->pacing_gain = b->drain_gain;
		b->cur_cwnd_gain = b->high_gain;
		break;
	case MPT_CC_PROBE_BW:
		b->pacing_gain = bbr_cycle_gain(b, b->cycle_idx);
		b->cur_cwnd_gain = b->cwnd_gain;
		break;
	default:
		break;
	}
}
