// SPDX-License-Identifier: MIT
/*
 * Sender side of one path: sent-packet ring, RTT estimator, delivery-rate samples and
 * loss detection.
 *
 *  - Ring: slot = pn & (cap - 1); oldest_pn..largest_sent is the live window. Packet
 *    numbers skipped by the sender are kept as "never sent" slots (sent_ns = NEVER) so
 *    that an ACK naming them is rejected like one above largest_sent.
 *  - RTT: RFC 9002 section 5.3. A sample is taken when the largest acknowledged packet
 *    is newly acknowledged; min_rtt takes the raw sample; the ACK delay (capped at
 *    max_ack_delay) is subtracted only when that keeps the sample >= min_rtt.
 *  - Delivery rate: draft-cheng-iccrg-delivery-rate-estimation section 3 (per-packet
 *    P.delivered, P.delivered_time, P.first_sent_time, P.is_app_limited; connection
 *    C.app_limited; interval = max(send_elapsed, ack_elapsed); samples whose interval
 *    is below min_rtt are discarded).
 *  - Loss: RFC 9002 section 6.1; a packet sent before the largest acknowledged is lost
 *    when kPacketThreshold newer packets are acknowledged or it was sent more than
 *    kTimeThreshold * max(srtt, latest_rtt) (>= kGranularity) ago; otherwise the loss
 *    timer is armed for the earliest such deadline.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recovery.h"

#define NEVER_SENT UINT64_MAX

void mpt_recovery_default_params(struct mpt_recovery_params *p)
{
	p->pkt_threshold = 3;				/* RFC 9002 6.1.1 */
	p->time_threshold = 9.0 / 8.0;			/* RFC 9002 6.1.2 */
	p->granularity_ns = MPT_NSEC_PER_MSEC;		/* RFC 9002 6.1.2 */
	p->initial_rtt_ns = 333 * MPT_NSEC_PER_MSEC;	/* RFC 9002 6.2.2 */
	p->max_ack_delay_ns = 25 * MPT_NSEC_PER_MSEC;	/* RFC 9000 18.2 default */
}

int mpt_recovery_init(struct mpt_recovery *r, const struct mpt_recovery_params *p,
		      uint32_t cap)
{
	uint32_t n = MPT_RECOVERY_MIN_RING;

	if (cap == 0 || cap > (1u << 24))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	while (n < cap)
		n <<= 1;
	r->max_cap = n;
	n = MPT_MIN(n, MPT_RECOVERY_MIN_RING);
	if (p)
		r->params = *p;
	else
		mpt_recovery_default_params(&r->params);
	r->ring = calloc(n, sizeof(*r->ring));
	if (!r->ring)
		return -ENOMEM;
	r->cap = n;
	r->largest_acked = UINT64_MAX;
	return 0;
}

void mpt_recovery_free(struct mpt_recovery *r)
{
	if (r->ring)
		mpt_recovery_reset(r);		/* the owner gets its data pointers back */
	free(r->ring);
	r->ring = NULL;
	r->cap = 0;
}

static struct mpt_sent_pkt *slot(const struct mpt_recovery *r, uint64_t pn)
{
	return &r->ring[pn & (r->cap - 1)];
}

static bool window_empty(const struct mpt_recovery *r)
{
	return r->sent_pkts == 0 || r->oldest_pn > r->largest_sent;
}

bool mpt_recovery_can_send(const struct mpt_recovery *r)
{
	return window_empty(r) || r->largest_sent + 1 - r->oldest_pn < r->max_cap;
}

/* Double the ring until pn fits beside the live window (at most max_cap); the live
 * slots move to their places in the larger ring. -ENOMEM leaves it as it was. */
static int grow(struct mpt_recovery *r, uint64_t pn)
{
	uint32_t n = r->cap;
	struct mpt_sent_pkt *ring;

	while (n < r->max_cap && pn - r->oldest_pn >= n)
		n <<= 1;
	ring = calloc(n, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	if (!window_empty(r))
		for (uint64_t q = r->oldest_pn; q <= r->largest_sent; q++)
			ring[q & (n - 1)] = *slot(r, q);
	free(r->ring);
	r->ring = ring;
	r->cap = n;
	return 0;
}

/* Move oldest_pn past the finished slots at the bottom of the window. */
static void advance_oldest(struct mpt_recovery *r)
{
	while (r->oldest_pn <= r->largest_sent && slot(r, r->oldest_pn)->acked_or_lost)
		r->oldest_pn++;
}

void mpt_recovery_set_release(struct mpt_recovery *r,
			      void (*release)(void *arg, void *data, bool lost), void *arg)
{
	r->release = release;
	r->release_arg = arg;
}

/* Hand a slot's data pointer back to its owner, once. */
static void release(struct mpt_recovery *r, struct mpt_sent_pkt *s, bool lost)
{
	void *data = s->data;

	s->data = NULL;
	if (data && r->release)
		r->release(r->release_arg, data, lost);
}

/* A packet in flight is lost: out of flight, counted, released. */
static void mark_lost(struct mpt_recovery *r, struct mpt_sent_pkt *s,
		      struct mpt_recovery_event *ev)
{
	s->acked_or_lost = true;
	r->in_flight -= s->bytes;
	if (s->realtime)
		r->rt_in_flight -= s->bytes;
	r->lost_pkts++;
	r->lost_bytes += s->bytes;
	if (ev) {
		ev->lost_pkts++;
		ev->lost_bytes += s->bytes;
	}
	release(r, s, true);
}

void mpt_recovery_reset(struct mpt_recovery *r)
{
	if (!window_empty(r)) {
		for (uint64_t pn = r->oldest_pn; pn <= r->largest_sent; pn++) {
			struct mpt_sent_pkt *s = slot(r, pn);

			s->acked_or_lost = true;
			s->bytes = 0;
			release(r, s, true);
		}
		r->oldest_pn = r->largest_sent + 1;
	}
	r->in_flight = 0;
	r->rt_in_flight = 0;
	r->loss_time_ns = 0;
	r->app_limited = 0;
}

void mpt_recovery_declare_all_lost(struct mpt_recovery *r, struct mpt_recovery_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!window_empty(r)) {
		for (uint64_t pn = r->oldest_pn; pn <= r->largest_sent; pn++) {
			struct mpt_sent_pkt *s = slot(r, pn);

			if (!s->acked_or_lost)
				mark_lost(r, s, ev);
		}
		r->oldest_pn = r->largest_sent + 1;
	}
	r->in_flight = 0;
	r->rt_in_flight = 0;
	r->loss_time_ns = 0;
	r->nelicit = 0;
}

uint64_t mpt_recovery_silent_since(const struct mpt_recovery *r)
{
	/* advance_oldest keeps oldest_pn on the oldest packet still in flight */
	if (!r->in_flight || window_empty(r))
		return 0;
	return MPT_MAX(slot(r, r->oldest_pn)->sent_ns, r->last_acked_ns);
}

uint64_t mpt_recovery_second_sent(const struct mpt_recovery *r)
{
	if (!r->in_flight || window_empty(r))
		return 0;
	/* the oldest was sent since the latest ACK: it is elicit_ns[0] itself */
	if (slot(r, r->oldest_pn)->sent_ns >= r->last_acked_ns)
		return r->nelicit >= 2 ? r->elicit_ns[1] : 0;
	return r->nelicit >= 1 ? r->elicit_ns[0] : 0;
}

void mpt_recovery_on_sent(struct mpt_recovery *r, uint64_t pn, uint32_t bytes,
			  uint64_t now)
{
	mpt_recovery_on_sent_data(r, pn, bytes, now, NULL);
}

void mpt_recovery_on_sent_data(struct mpt_recovery *r, uint64_t pn, uint32_t bytes,
			       uint64_t now, void *data)
{
	struct mpt_sent_pkt *s;
	uint64_t from;

	if (r->sent_pkts == 0) {
		r->oldest_pn = pn;
		from = pn;
	} else {
		if (pn <= r->largest_sent) {
			if (data && r->release)	/* contract violation: pn must grow */
				r->release(r->release_arg, data, true);
			return;
		}
		from = r->largest_sent + 1;
	}
	if (pn - r->oldest_pn >= r->cap && r->cap < r->max_cap)
		grow(r, pn);	/* on failure, the oldest go as below */
	/* A caller that ignored can_send (or skipped far ahead) pushes the oldest
	 * packets out of the ring: they can no longer be tracked, so count them lost. */
	while (pn - r->oldest_pn >= r->cap && r->oldest_pn < from) {
		s = slot(r, r->oldest_pn);
		if (!s->acked_or_lost && s->bytes)
			mark_lost(r, s, NULL);
		s->acked_or_lost = true;
		release(r, s, true);
		r->oldest_pn++;
	}
	if (pn - r->oldest_pn >= r->cap)
		r->oldest_pn = pn - r->cap + 1;
	if (from < r->oldest_pn)
		from = r->oldest_pn;
	for (uint64_t g = from; g < pn; g++) {
		s = slot(r, g);
		memset(s, 0, sizeof(*s));
		s->pn = g;
		s->sent_ns = NEVER_SENT;
		s->acked_or_lost = true;
	}

	/* draft-cheng section 3.2: restart the send interval when nothing in flight */
	if (r->in_flight == 0) {
		r->first_sent_ns = now;
		r->delivered_ns = now;
	}
	s = slot(r, pn);
	s->pn = pn;
	s->sent_ns = now;
	s->delivered = r->delivered;
	s->delivered_ns = r->delivered_ns;
	s->first_sent_ns = r->first_sent_ns;
	s->bytes = bytes;
	s->is_app_limited = r->app_limited != 0;
	s->acked_or_lost = bytes == 0;
	s->realtime = false;
	s->data = data;
	if (!bytes)
		release(r, s, false);	/* not tracked in flight: nothing to wait for */

	if (bytes && r->nelicit < 2)
		r->elicit_ns[r->nelicit++] = now;
	r->largest_sent = pn;
	r->in_flight += bytes;
	r->sent_pkts++;
	r->sent_bytes += bytes;
	advance_oldest(r);
}

void mpt_recovery_mark_realtime(struct mpt_recovery *r, uint64_t pn)
{
	struct mpt_sent_pkt *s;

	if (window_empty(r) || pn != r->largest_sent)
		return;
	s = slot(r, pn);
	if (s->acked_or_lost || s->realtime)
		return;
	s->realtime = true;
	r->rt_in_flight += s->bytes;
}

void mpt_recovery_on_app_limited(struct mpt_recovery *r)
{
	/* draft-cheng section 3.4: C.app_limited = (C.delivered + C.pipe) ? : 1 */
	r->app_limited = r->delivered + r->in_flight;
	if (r->app_limited == 0)
		r->app_limited = 1;
}

/* RFC 9002 section 5.3, UpdateRtt(). */
static void update_rtt(struct mpt_recovery *r, uint64_t latest, uint64_t ack_delay)
{
	uint64_t adjusted = latest, diff;

	r->latest_rtt_ns = latest;
	if (!r->have_rtt) {
		r->have_rtt = true;
		r->min_rtt_ns = latest;
		r->srtt_ns = latest;
		r->rttvar_ns = latest / 2;
		return;
	}
	if (latest < r->min_rtt_ns)
		r->min_rtt_ns = latest;
	if (ack_delay > r->params.max_ack_delay_ns)
		ack_delay = r->params.max_ack_delay_ns;
	if (latest >= r->min_rtt_ns + ack_delay)
		adjusted = latest - ack_delay;
	diff = r->srtt_ns > adjusted ? r->srtt_ns - adjusted : adjusted - r->srtt_ns;
	r->rttvar_ns = (3 * r->rttvar_ns + diff) / 4;
	r->srtt_ns = (7 * r->srtt_ns + adjusted) / 8;
}

/* RFC 9002 section 6.1, DetectAndRemoveLostPackets(). */
static void detect_lost(struct mpt_recovery *r, uint64_t now,
			struct mpt_recovery_event *ev)
{
	const struct mpt_recovery_params *p = &r->params;
	uint64_t base, delay, lost_send_time, end;

	r->loss_time_ns = 0;
	if (r->largest_acked == UINT64_MAX || window_empty(r))
		return;
	base = r->have_rtt ? MPT_MAX(r->latest_rtt_ns, r->srtt_ns) : p->initial_rtt_ns;
	delay = (uint64_t)(p->time_threshold * (double)base);
	if (delay < p->granularity_ns)
		delay = p->granularity_ns;
	lost_send_time = now > delay ? now - delay : 0;
	end = MPT_MIN(r->largest_acked, r->largest_sent);

	for (uint64_t pn = r->oldest_pn; pn <= end; pn++) {
		struct mpt_sent_pkt *s = slot(r, pn);
		uint64_t deadline;

		if (s->acked_or_lost)
			continue;
		if ((now >= delay && s->sent_ns <= lost_send_time) ||
		    r->largest_acked >= pn + p->pkt_threshold) {
			mark_lost(r, s, ev);
			continue;
		}
		deadline = s->sent_ns + delay;
		if (r->loss_time_ns == 0 || deadline < r->loss_time_ns)
			r->loss_time_ns = deadline;
	}
}

/* An ACK range names only packet numbers that were sent. */
static int check_range(const struct mpt_recovery *r, const struct mpt_ack_range *a)
{
	if (a->lo > a->hi || r->sent_pkts == 0 || a->hi > r->largest_sent)
		return -EINVAL;
	for (uint64_t pn = MPT_MAX(a->lo, r->oldest_pn); pn <= a->hi; pn++)
		if (slot(r, pn)->sent_ns == NEVER_SENT)
			return -EINVAL;
	return 0;
}

struct rate_acc {
	bool have;
	uint64_t prior_delivered, prior_time, send_elapsed, ack_elapsed, newest_sent;
	bool is_app_limited;
};

/* draft-cheng section 3.3, UpdateRateSample(P) for a newly acknowledged packet. */
static void rate_update(struct mpt_recovery *r, struct rate_acc *ra,
			const struct mpt_sent_pkt *s, uint64_t now)
{
	r->delivered += s->bytes;
	r->delivered_ns = now;
	if (!ra->have || s->sent_ns >= ra->newest_sent) {
		ra->have = true;
		ra->newest_sent = s->sent_ns;
		ra->prior_delivered = s->delivered;
		ra->prior_time = s->delivered_ns;
		ra->is_app_limited = s->is_app_limited;
		ra->send_elapsed = s->sent_ns - s->first_sent_ns;
		ra->ack_elapsed = r->delivered_ns - s->delivered_ns;
		r->first_sent_ns = s->sent_ns;
	}
}

int mpt_recovery_on_ack(struct mpt_recovery *r, const struct mpt_ack_info *ack,
			uint64_t now, struct mpt_rate_sample *rs,
			struct mpt_recovery_event *ev)
{
	struct rate_acc ra = { 0 };
	uint64_t largest;
	bool largest_newly = false;

	memset(rs, 0, sizeof(*rs));
	memset(ev, 0, sizeof(*ev));
	if (ack->nranges == 0 || ack->nranges > MPT_ACK_MAX_RANGES)
		return -EINVAL;
	for (unsigned i = 0; i < ack->nranges; i++) {
		if (check_range(r, &ack->r[i]))
			return -EINVAL;
		if (i && ack->r[i].hi >= ack->r[i - 1].lo)
			return -EINVAL;		/* not disjoint, highest first */
	}
	largest = ack->r[0].hi;
	rs->prior_in_flight = r->in_flight;

	/* lowest range first, so that the newest packet is processed last */
	for (unsigned i = ack->nranges; i-- > 0;) {
		for (uint64_t pn = MPT_MAX(ack->r[i].lo, r->oldest_pn);
		     pn <= ack->r[i].hi; pn++) {
			struct mpt_sent_pkt *s = slot(r, pn);

			if (s->acked_or_lost)
				continue;
			s->acked_or_lost = true;
			r->in_flight -= s->bytes;
			if (s->realtime)
				r->rt_in_flight -= s->bytes;
			r->acked_pkts++;
			r->acked_bytes += s->bytes;
			ev->acked_pkts++;
			ev->acked_bytes += s->bytes;
			rate_update(r, &ra, s, now);
			release(r, s, false);
			if (pn == largest)
				largest_newly = true;
		}
	}
	if (ev->acked_pkts) {
		r->last_acked_ns = now;
		r->nelicit = 0;
	}
	if (r->largest_acked == UINT64_MAX || largest > r->largest_acked)
		r->largest_acked = largest;
	if (largest_newly) {
		update_rtt(r, now - slot(r, largest)->sent_ns, ack->ack_delay_ns);
		ev->rtt_sampled = true;
	}

	detect_lost(r, now, ev);

	/* draft-cheng section 3.3, GenerateRateSample() */
	if (r->app_limited && r->delivered > r->app_limited)
		r->app_limited = 0;
	rs->acked_bytes = ev->acked_bytes;
	rs->lost_bytes = ev->lost_bytes;
	if (ra.have) {
		rs->rtt_ns = now - ra.newest_sent;
		rs->prior_delivered = ra.prior_delivered;
		rs->is_app_limited = ra.is_app_limited;
		rs->delivered = r->delivered - ra.prior_delivered;
		rs->interval_ns = MPT_MAX(ra.send_elapsed, ra.ack_elapsed);
		if (rs->interval_ns < r->min_rtt_ns)
			rs->interval_ns = 0;	/* discarded: too short to be trusted */
		if (rs->interval_ns)
			r->delivery_rate = (uint64_t)((double)rs->delivered *
						      MPT_NSEC_PER_SEC / rs->interval_ns);
	}
	advance_oldest(r);
	return 0;
}

uint64_t mpt_recovery_loss_deadline(const struct mpt_recovery *r)
{
	return r->loss_time_ns;
}

void mpt_recovery_on_loss_timeout(struct mpt_recovery *r, uint64_t now,
				  struct mpt_recovery_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	detect_lost(r, now, ev);
	advance_oldest(r);
}

uint64_t mpt_recovery_pto(const struct mpt_recovery *r)
{
	const struct mpt_recovery_params *p = &r->params;
	uint64_t srtt = r->have_rtt ? r->srtt_ns : p->initial_rtt_ns;
	uint64_t rttvar = r->have_rtt ? r->rttvar_ns : p->initial_rtt_ns / 2;

	return srtt + MPT_MAX(4 * rttvar, p->granularity_ns) + p->max_ack_delay_ns;
}
