// SPDX-License-Identifier: MIT
/*
 * ACK frequency per path (draft-ietf-quic-ack-frequency, mptund-proto(7)): a path's
 * receiver ACKs after 4 ack-eliciting packets or 1 ms by default, which on a fast
 * forward path and a thin return path (DSL's uplink next to LTE) fills the return
 * path with ACK datagrams: about 700 a second, half of a 1 Mbit/s uplink, for 16 Mbit/s
 * down. The sender of a path's data knows what it needs, and asks for it:
 *
 *   threshold  cwnd / 8 packets, in [2, 64]: eight ACKs per window keep the ACK clock
 *              (BBR tolerates ACK decimation: its delivery rate is measured over the
 *              acknowledged bytes, its cwnd gain of 2 covers the aggregation); the
 *              packets counted at the mean size of the data the path sent since the
 *              last check, so a path that carries small packets (the inner flow's TCP
 *              ACKs on an uplink) is acknowledged per eighth of its window too, not
 *              every second packet (a 40-byte ACK per two 100-byte packets);
 *   max delay  min_rtt / 4, in [1, 25] ms: an ACK still comes within a quarter RTT
 *              when the window is small.
 *
 * Out-of-order arrivals are still ACKed at once, so loss detection is not delayed. The
 * sender's PTO counts the delay it asked for (its recovery's max_ack_delay). A new
 * request goes out when the wanted values moved by half (threshold) or a quarter
 * (delay), checked at most every 100 ms, riding on a data packet or probe.
 */
#include "daemon.h"
#include "session.h"

#define ACKF_CHECK_NS		(100 * MPT_NSEC_PER_MSEC)

static bool moved(uint32_t old, uint32_t now, unsigned num, unsigned den)
{
	uint32_t lo = MPT_MIN(old, now), hi = MPT_MAX(old, now);

	return (uint64_t)hi * den > (uint64_t)lo * (den + num);
}

/* The mean size of the data datagrams the path sent since the last check (the full
 * size when it sent none): the window's packets, for the threshold's count. */
static uint32_t sent_size(struct mpt_path *p, uint32_t full)
{
	uint64_t n = p->st.data_tx - p->ackf_data0, b = p->st.data_tx_bytes - p->ackf_bytes0;

	p->ackf_data0 = p->st.data_tx;
	p->ackf_bytes0 = p->st.data_tx_bytes;
	return n && b / n ? (uint32_t)MPT_MIN(b / n, full) : full;
}

size_t mpt_session_ackf_append(struct mpt_session *s, struct mpt_path *p, uint8_t *pos,
			       size_t room, uint64_t now)
{
	struct mpt_ack_frequency a;
	uint16_t thr;
	uint32_t delay;
	int n;

	if (room < MPT_FRAME_HDR_LEN + MPT_ACKF_LEN ||
	    (p->ackf_threshold && now - p->ackf_checked_ns < ACKF_CHECK_NS))
		return 0;
	p->ackf_checked_ns = now;
	if (!p->rec.have_rtt)
		return 0;
	mpt_ackf_policy(p->cc.cwnd, sent_size(p, s->d->pool.mtu), p->rec.min_rtt_ns, &thr,
			&delay);
	if (p->ackf_threshold && !moved(p->ackf_threshold, thr, 1, 2) &&
	    !moved(p->ackf_delay_us, delay, 1, 4))
		return 0;
	a.path_id = p->id;
	a.seq = ++p->ackf_seq;
	a.threshold = thr;
	a.max_delay_us = delay;
	n = mpt_frame_ackf_encode(pos, room, &a);
	if (n < 0)
		return 0;
	p->ackf_threshold = thr;
	p->ackf_delay_us = delay;
	/* the PTO waits for the ACK delay asked for (a lower one takes effect a round
	 * trip later at the peer: one PTO may come a little early then) */
	p->rec.params.max_ack_delay_ns = (uint64_t)delay * 1000;
	p->st.ackf_tx++;
	return (size_t)n;
}

void mpt_session_on_ackf(struct mpt_session *s, const struct mpt_ack_frequency *a)
{
	struct mpt_path *p = &s->paths[a->path_id];

	if (!p->used || (p->ackf_rx_any && (int32_t)(a->seq - p->ackf_rx_seq) <= 0))
		return;			/* an older request, reordered */
	p->ackf_rx_any = true;
	p->ackf_rx_seq = a->seq;
	mpt_acktrack_set_frequency(&p->ackt, a->threshold, (uint64_t)a->max_delay_us * 1000);
	p->st.ackf_rx++;
}
