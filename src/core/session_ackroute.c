// SPDX-License-Identifier: MIT
/*
 * Which path carries our ACKs of each path's packets (proto/ackroute.h has the rule):
 * the path's own sending direction unless it is full, else the one whose ACK arrives
 * soonest. The choice is kept for ACKROUTE_CHECK_NS, and a path counts as full for
 * BUSY_HOLD_NS after it was last seen busy with our data (flush_path, session_tx.c),
 * so the carrier does not flap with each burst.
 */
#include "ackroute.h"
#include "daemon.h"
#include "session.h"

#define ACKROUTE_CHECK_NS	(10 * MPT_NSEC_PER_MSEC)
#define BUSY_HOLD_NS		(50 * MPT_NSEC_PER_MSEC)

/* An ACK-only datagram with one range, as the queue estimate's packet. */
static uint32_t ack_dgram_len(const struct mpt_path *q)
{
	return mpt_path_ip_udp(q) + MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN + MPT_FRAME_HDR_LEN +
	       MPT_ACK_LEN(1);
}

/* Our sending direction carries at least MPT_ACKROUTE_CAPACITY_PCT % of its
 * bandwidth estimate, over the last rate window (ackroute.h: the gate of a dearer
 * carrier). */
static bool at_capacity(const struct mpt_path *q, uint64_t now)
{
	uint64_t rate[4];

	if (!q->cc.btlbw)
		return false;
	mpt_path_rates(q, now, rate);
	return rate[0] * 100 >= q->cc.btlbw * MPT_ACKROUTE_CAPACITY_PCT;
}

static void route_in(const struct mpt_session *s, const struct mpt_path *q, bool own,
		     uint64_t now, struct mpt_ackroute_in *in)
{
	uint64_t rate = q->cc.btlbw ? q->cc.btlbw : q->cc.pacing_rate;

	/* another path carries ACKs only once its round trips are measured */
	in->usable = q->used && s->cur.valid && mpt_path_usable(q) &&
		     (own || q->rec.have_rtt);
	in->full = q->busy_ns && now - q->busy_ns < BUSY_HOLD_NS;
	in->owd_ns = mpt_ackroute_owd(q->rec.have_rtt ? q->rec.min_rtt_ns : 0,
				      q->rec.in_flight, rate, ack_dgram_len(q));
	in->base_ns = q->rec.have_rtt ? q->rec.min_rtt_ns / 2 : 0;
	in->cost = q->cost;
	in->at_capacity = at_capacity(q, now);
}

struct mpt_path *mpt_session_ack_carrier(struct mpt_session *s, struct mpt_path *p,
					 uint64_t now)
{
	struct mpt_ackroute_in in[MPT_MAX_PATHS];
	unsigned n = s->npaths < MPT_MAX_PATHS ? s->npaths : MPT_MAX_PATHS;

	if (!s->d->cfg.ack_routing)
		return p;		/* AckRouting = no: every path ACKs on itself */
	if (p->ack_via_set && now - p->ack_via_checked_ns < ACKROUTE_CHECK_NS &&
	    p->ack_via < n)
		return &s->paths[p->ack_via];
	for (unsigned i = 0; i < n; i++)
		route_in(s, &s->paths[i], i == p->id, now, &in[i]);
	p->ack_via = (uint8_t)mpt_ackroute_pick(in, n, p->id,
						p->ack_via_set ? p->ack_via : -1);
	p->ack_via_set = true;
	p->ack_via_checked_ns = now;
	return &s->paths[p->ack_via];
}

/* Busy: the window full, or more than MARGIN of our data waiting in the pacer. */
void mpt_session_note_busy(struct mpt_path *p, uint64_t now)
{
	uint64_t rate = p->cc.pacing_rate;

	if (mpt_path_in_flight(p) >= p->cc.cwnd ||
	    (rate && p->txq.bytes * MPT_NSEC_PER_SEC / rate > MPT_ACKROUTE_MARGIN_NS))
		p->busy_ns = now;
}
