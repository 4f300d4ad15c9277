// SPDX-License-Identifier: MIT
/*
 * Sender-side recovery: RTT estimator against hand-computed RFC 9002 section 5.3
 * numbers, delivery-rate samples on a synthetic schedule (draft-cheng), packet- and
 * time-threshold losses (RFC 9002 section 6.1), app-limited marking, invalid ACKs.
 */
#include <errno.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "recovery.h"

#define MS MPT_NSEC_PER_MSEC
#define PKT 1000

static struct mpt_ack_info ack1(uint64_t lo, uint64_t hi, uint64_t delay)
{
	struct mpt_ack_info a = { .nranges = 1, .ack_delay_ns = delay };

	a.r[0].lo = lo;
	a.r[0].hi = hi;
	return a;
}

static void setup(struct mpt_recovery *r)
{
	assert_int_equal(mpt_recovery_init(r, NULL, 64), 0);
}

static void do_ack(struct mpt_recovery *r, uint64_t lo, uint64_t hi, uint64_t delay,
		   uint64_t now, struct mpt_rate_sample *rs, struct mpt_recovery_event *ev)
{
	struct mpt_ack_info a = ack1(lo, hi, delay);

	assert_int_equal(mpt_recovery_on_ack(r, &a, now, rs, ev), 0);
}

static void test_rtt_rfc9002(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;

	setup(&r);
	/* first sample: srtt = latest, rttvar = latest / 2, ack delay ignored */
	mpt_recovery_on_sent(&r, 0, PKT, 0);
	do_ack(&r, 0, 0, 10 * MS, 100 * MS, &rs, &ev);
	assert_true(ev.rtt_sampled);
	assert_int_equal(r.latest_rtt_ns, 100 * MS);
	assert_int_equal(r.min_rtt_ns, 100 * MS);
	assert_int_equal(r.srtt_ns, 100 * MS);
	assert_int_equal(r.rttvar_ns, 50 * MS);

	/* latest 160, delay 20: 160 >= 100 + 20 so adjusted = 140;
	 * rttvar = 3/4 * 50 + 1/4 * |100 - 140| = 47.5; srtt = 7/8 * 100 + 1/8 * 140 = 105 */
	mpt_recovery_on_sent(&r, 1, PKT, 100 * MS);
	do_ack(&r, 1, 1, 20 * MS, 260 * MS, &rs, &ev);
	assert_int_equal(r.min_rtt_ns, 100 * MS);
	assert_int_equal(r.rttvar_ns, 47500000);
	assert_int_equal(r.srtt_ns, 105 * MS);

	/* latest 90 (new min), delay 30: 90 < 90 + 30, so the delay is not subtracted;
	 * rttvar = 3/4 * 47.5 + 1/4 * 15 = 39.375; srtt = (7 * 105 + 90) / 8 = 103.125 */
	mpt_recovery_on_sent(&r, 2, PKT, 300 * MS);
	do_ack(&r, 2, 2, 30 * MS, 390 * MS, &rs, &ev);
	assert_int_equal(r.min_rtt_ns, 90 * MS);
	assert_int_equal(r.rttvar_ns, 39375000);
	assert_int_equal(r.srtt_ns, 103125000);

	/* latest 200, delay 50 capped at max_ack_delay 25: adjusted 175;
	 * rttvar = (3 * 39.375 + 71.875) / 4 = 47.5; srtt = (7 * 103.125 + 175) / 8 */
	mpt_recovery_on_sent(&r, 3, PKT, 400 * MS);
	do_ack(&r, 3, 3, 50 * MS, 600 * MS, &rs, &ev);
	assert_int_equal(r.min_rtt_ns, 90 * MS);		/* never adjusted */
	assert_int_equal(r.latest_rtt_ns, 200 * MS);
	assert_int_equal(r.rttvar_ns, 47500000);
	assert_int_equal(r.srtt_ns, 112109375);

	/* PTO = srtt + max(4 rttvar, granularity) + max_ack_delay */
	assert_int_equal(mpt_recovery_pto(&r), 112109375 + 4 * 47500000 + 25 * MS);

	/* a duplicate ACK of the largest gives no sample */
	do_ack(&r, 3, 3, 0, 700 * MS, &rs, &ev);
	assert_false(ev.rtt_sampled);
	assert_int_equal(ev.acked_pkts, 0);
	mpt_recovery_free(&r);
}

static void test_delivery_rate(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;

	setup(&r);
	/* flight 1: 10 packets at 0..9 ms, each acked 50 ms after it was sent */
	for (uint64_t i = 0; i < 10; i++)
		mpt_recovery_on_sent(&r, i, PKT, i * MS);
	assert_int_equal(r.in_flight, 10 * PKT);
	for (uint64_t i = 0; i < 10; i++) {
		do_ack(&r, 0, i, 0, (50 + i) * MS, &rs, &ev);
		assert_int_equal(ev.acked_bytes, PKT);
		assert_int_equal(rs.prior_in_flight, (10 - i) * PKT);
		/* P.delivered = 0, P.delivered_time = 0: ack_elapsed = 50 + i ms,
		 * send_elapsed = i ms */
		assert_int_equal(rs.delivered, (i + 1) * PKT);
		assert_int_equal(rs.prior_delivered, 0);
		assert_int_equal(rs.interval_ns, (50 + i) * MS);
		assert_int_equal(rs.rtt_ns, 50 * MS);
		assert_false(rs.is_app_limited);
	}
	assert_int_equal(r.delivery_rate, 10 * PKT * MPT_NSEC_PER_SEC / (59 * MS));
	assert_int_equal(r.in_flight, 0);

	/* flight 2 starts from an empty pipe at 60 ms: first_sent = delivered_time = 60 */
	for (uint64_t j = 0; j < 10; j++)
		mpt_recovery_on_sent(&r, 10 + j, PKT, (60 + j) * MS);
	/* one ACK for the first five (acked at 114 ms): newest is pn 14 sent at 64 */
	do_ack(&r, 10, 14, 0, 114 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 5);
	assert_int_equal(rs.prior_delivered, 10 * PKT);
	assert_int_equal(rs.delivered, 5 * PKT);
	/* send_elapsed = 64 - 60 = 4, ack_elapsed = 114 - 60 = 54 */
	assert_int_equal(rs.interval_ns, 54 * MS);
	assert_int_equal(rs.acked_bytes, 5 * PKT);
	/* the rest at 119 ms: newest pn 19 sent at 69, P.delivered_time 60 */
	do_ack(&r, 10, 19, 0, 119 * MS, &rs, &ev);
	assert_int_equal(rs.delivered, 10 * PKT);
	assert_int_equal(rs.interval_ns, 59 * MS);
	assert_int_equal(r.delivered, 20 * PKT);
	mpt_recovery_free(&r);
}

static void test_app_limited(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;

	setup(&r);
	mpt_recovery_on_sent(&r, 0, PKT, 0);
	mpt_recovery_on_sent(&r, 1, PKT, 1 * MS);
	/* nothing more to send: the bubble ends once the 2000 bytes in flight deliver */
	mpt_recovery_on_app_limited(&r);
	assert_int_equal(r.app_limited, 2 * PKT);
	mpt_recovery_on_sent(&r, 2, PKT, 20 * MS);
	assert_true(r.ring[2].is_app_limited);

	do_ack(&r, 0, 1, 0, 50 * MS, &rs, &ev);
	assert_false(rs.is_app_limited);	/* sent before the bubble */
	assert_int_equal(r.app_limited, 2 * PKT);	/* delivered not yet beyond it */
	do_ack(&r, 0, 2, 0, 70 * MS, &rs, &ev);
	assert_true(rs.is_app_limited);
	assert_int_equal(r.app_limited, 0);	/* delivered 3000 > 2000: cleared */
	mpt_recovery_on_sent(&r, 3, PKT, 70 * MS);
	do_ack(&r, 0, 3, 0, 120 * MS, &rs, &ev);
	assert_false(rs.is_app_limited);

	/* with nothing delivered and nothing in flight the mark is 1 */
	struct mpt_recovery r2;

	setup(&r2);
	mpt_recovery_on_app_limited(&r2);
	assert_int_equal(r2.app_limited, 1);
	mpt_recovery_free(&r2);
	mpt_recovery_free(&r);
}

static void test_packet_and_time_threshold(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	uint64_t delay;

	setup(&r);
	for (uint64_t i = 0; i < 5; i++)
		mpt_recovery_on_sent(&r, i, PKT, i * MS);
	/* ACK of pn 3 alone at 50 ms: pn 0 is 3 behind -> lost by packet threshold;
	 * pn 1, 2 wait for the time threshold 9/8 * 47 ms */
	do_ack(&r, 3, 3, 0, 50 * MS, &rs, &ev);
	assert_int_equal(r.latest_rtt_ns, 47 * MS);
	assert_int_equal(ev.lost_pkts, 1);
	assert_int_equal(ev.lost_bytes, PKT);
	assert_int_equal(rs.lost_bytes, PKT);
	assert_int_equal(r.in_flight, 3 * PKT);
	delay = 47 * MS * 9 / 8;
	assert_int_equal(mpt_recovery_loss_deadline(&r), 1 * MS + delay);

	/* just before the deadline nothing is lost */
	mpt_recovery_on_loss_timeout(&r, 1 * MS + delay - 1, &ev);
	assert_int_equal(ev.lost_pkts, 0);
	mpt_recovery_on_loss_timeout(&r, 1 * MS + delay, &ev);
	assert_int_equal(ev.lost_pkts, 1);
	assert_int_equal(mpt_recovery_loss_deadline(&r), 2 * MS + delay);
	mpt_recovery_on_loss_timeout(&r, 2 * MS + delay, &ev);
	assert_int_equal(ev.lost_pkts, 1);
	/* pn 4 is above the largest acked: never lost by these rules, timer off */
	assert_int_equal(mpt_recovery_loss_deadline(&r), 0);
	assert_int_equal(r.in_flight, PKT);
	assert_int_equal(r.lost_pkts, 3);
	assert_int_equal(r.acked_pkts, 1);

	/* a late ACK for a packet declared lost changes nothing */
	do_ack(&r, 0, 4, 0, 100 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 1);
	assert_int_equal(r.in_flight, 0);
	assert_int_equal(r.oldest_pn, 5);
	mpt_recovery_free(&r);
}

static void test_time_threshold_granularity(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;

	/* a 100 us path: 9/8 * RTT is below kGranularity, so the delay is 1 ms */
	setup(&r);
	mpt_recovery_on_sent(&r, 0, PKT, 0);
	mpt_recovery_on_sent(&r, 1, PKT, 10 * MPT_NSEC_PER_USEC);
	do_ack(&r, 1, 1, 0, 110 * MPT_NSEC_PER_USEC, &rs, &ev);
	assert_int_equal(ev.lost_pkts, 0);
	assert_int_equal(mpt_recovery_loss_deadline(&r), r.params.granularity_ns);
	mpt_recovery_free(&r);
}

static void test_invalid_acks(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	struct mpt_ack_info a;

	setup(&r);
	a = ack1(0, 0, 0);
	assert_int_equal(mpt_recovery_on_ack(&r, &a, MS, &rs, &ev), -EINVAL);
	mpt_recovery_on_sent(&r, 0, PKT, 0);
	mpt_recovery_on_sent(&r, 5, PKT, MS);	/* pn 1..4 skipped */
	a = ack1(6, 6, 0);
	assert_int_equal(mpt_recovery_on_ack(&r, &a, 2 * MS, &rs, &ev), -EINVAL);
	a = ack1(3, 5, 0);
	assert_int_equal(mpt_recovery_on_ack(&r, &a, 2 * MS, &rs, &ev), -EINVAL);
	a = ack1(5, 4, 0);
	assert_int_equal(mpt_recovery_on_ack(&r, &a, 2 * MS, &rs, &ev), -EINVAL);
	/* overlapping ranges */
	a.nranges = 2;
	a.r[0].lo = 5; a.r[0].hi = 5;
	a.r[1].lo = 0; a.r[1].hi = 5;
	assert_int_equal(mpt_recovery_on_ack(&r, &a, 2 * MS, &rs, &ev), -EINVAL);
	/* nothing changed by the rejected ACKs */
	assert_int_equal(r.in_flight, 2 * PKT);
	assert_int_equal(r.acked_pkts, 0);
	assert_false(r.have_rtt);
	/* the two real packets in two ranges are fine */
	a.r[1].lo = 0; a.r[1].hi = 0;
	assert_int_equal(mpt_recovery_on_ack(&r, &a, 2 * MS, &rs, &ev), 0);
	assert_int_equal(ev.acked_pkts, 2);
	assert_int_equal(r.in_flight, 0);
	mpt_recovery_free(&r);
}

static void test_ring_and_reset(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	uint64_t pn = 0;

	assert_int_equal(mpt_recovery_init(&r, NULL, 20), 0);
	assert_int_equal(r.max_cap, 32);
	assert_int_equal(r.cap, MPT_RECOVERY_MIN_RING);	/* grows with the load */
	while (mpt_recovery_can_send(&r)) {
		mpt_recovery_on_sent(&r, pn, PKT, pn * MS);
		pn++;
	}
	assert_int_equal(pn, 32);
	assert_int_equal(r.cap, 32);
	do_ack(&r, 0, 0, 0, 100 * MS, &rs, &ev);
	assert_true(mpt_recovery_can_send(&r));
	mpt_recovery_reset(&r);
	assert_int_equal(r.in_flight, 0);
	assert_int_equal(mpt_recovery_loss_deadline(&r), 0);
	/* an ACK for a forgotten packet is valid but acks nothing */
	do_ack(&r, 0, 31, 0, 200 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 0);
	mpt_recovery_on_sent(&r, 1000, PKT, 300 * MS);
	assert_int_equal(r.in_flight, PKT);
	do_ack(&r, 1000, 1000, 0, 350 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 1);
	assert_int_equal(r.sent_pkts, 33);
	mpt_recovery_free(&r);
}

/* The ring grows under a live window that wrapped: every packet in flight keeps its
 * slot (acks count it once, skipped numbers stay refused), memory starts small. */
static void test_ring_grows(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	struct mpt_ack_info bad = ack1(130, 130, 0);

	assert_int_equal(mpt_recovery_init(&r, NULL, 1024), 0);
	assert_int_equal(r.cap, MPT_RECOVERY_MIN_RING);
	for (uint64_t pn = 100; pn < 110; pn++)		/* oldest_pn 100: wraps at 16 */
		mpt_recovery_on_sent(&r, pn, PKT, pn * MS);
	do_ack(&r, 100, 104, 0, 200 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 5);
	for (uint64_t pn = 110; pn < 130; pn++)
		mpt_recovery_on_sent(&r, pn, PKT, pn * MS);
	mpt_recovery_on_sent(&r, 131, PKT, 131 * MS);	/* 130 skipped */
	assert_true(r.cap >= 32 && r.cap <= 64);
	assert_int_equal(r.in_flight, 26 * PKT);
	assert_int_equal(mpt_recovery_on_ack(&r, &bad, 300 * MS, &rs, &ev), -EINVAL);
	do_ack(&r, 105, 129, 0, 300 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 25);
	do_ack(&r, 131, 131, 0, 301 * MS, &rs, &ev);
	assert_int_equal(r.in_flight, 0);
	assert_int_equal(r.acked_pkts, 31);
	assert_int_equal(r.lost_pkts, 0);
	mpt_recovery_free(&r);
}

/* Owner pointers: each comes back exactly once, acked (lost false) or lost. */
struct rel {
	int acked[64], lost[64];
};

static void on_release(void *arg, void *data, bool lost)
{
	struct rel *r = arg;
	int i = (int)(intptr_t)data - 1;

	if (lost)
		r->lost[i]++;
	else
		r->acked[i]++;
}

static void test_release_once(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	struct rel rel = { 0 };

	setup(&r);
	mpt_recovery_set_release(&r, on_release, &rel);
	for (uint64_t pn = 0; pn < 10; pn++)
		mpt_recovery_on_sent_data(&r, pn, PKT, pn * MS, (void *)(intptr_t)(pn + 1));
	/* 4 and 5 acked at 30 ms: 0-2 lost (3 newer acked, RFC 9002 6.1.1), 3 not yet
	 * (sent 27 ms ago, under 9/8 of the 25 ms RTT), 6-9 in flight */
	do_ack(&r, 4, 5, 0, 30 * MS, &rs, &ev);
	assert_int_equal(ev.lost_pkts, 3);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(rel.lost[i], i < 3);
		assert_int_equal(rel.acked[i], i == 4 || i == 5);
	}
	/* the rest: a reset hands them back as lost, once */
	mpt_recovery_reset(&r);
	mpt_recovery_reset(&r);
	for (int i = 0; i < 10; i++)
		assert_int_equal(rel.lost[i] + rel.acked[i], 1);
	/* an ACK-only packet (not in flight) is handed back at once, as acked */
	mpt_recovery_on_sent_data(&r, 20, 0, 40 * MS, (void *)(intptr_t)21);
	assert_int_equal(rel.acked[20], 1);
	/* free hands back whatever is still in flight */
	mpt_recovery_on_sent_data(&r, 21, PKT, 41 * MS, (void *)(intptr_t)22);
	mpt_recovery_free(&r);
	assert_int_equal(rel.lost[21], 1);
}

/* A path that stops acknowledging mid-flight: silent_since names the time the silence
 * began (the later of the latest ACK and the oldest packet in flight), and declaring
 * everything lost gives the window back, whatever cwnd says. */
static void test_silence_and_declare_all_lost(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;
	struct rel rel = { 0 };

	setup(&r);
	mpt_recovery_set_release(&r, on_release, &rel);
	assert_int_equal(mpt_recovery_silent_since(&r), 0);
	for (uint64_t pn = 0; pn < 8; pn++)
		mpt_recovery_on_sent_data(&r, pn, PKT, pn * MS, (void *)(intptr_t)(pn + 1));
	assert_int_equal(mpt_recovery_silent_since(&r), 0);	/* oldest sent at 0 */
	do_ack(&r, 0, 2, 0, 20 * MS, &rs, &ev);
	assert_int_equal(mpt_recovery_silent_since(&r), 20 * MS);	/* the ACK */
	/* the peer goes dark: nothing more is acknowledged */
	assert_int_equal(r.in_flight, 5 * PKT);
	mpt_recovery_declare_all_lost(&r, &ev);
	assert_int_equal(ev.lost_pkts, 5);
	assert_int_equal(ev.lost_bytes, 5 * PKT);
	assert_int_equal(r.in_flight, 0);
	assert_true(mpt_recovery_can_send(&r));
	assert_int_equal(mpt_recovery_silent_since(&r), 0);
	for (int i = 3; i < 8; i++)
		assert_int_equal(rel.lost[i], 1);
	/* a late ACK of those packets changes nothing */
	do_ack(&r, 3, 7, 0, 500 * MS, &rs, &ev);
	assert_int_equal(ev.acked_pkts, 0);
	for (int i = 3; i < 8; i++)
		assert_int_equal(rel.acked[i], 0);
	mpt_recovery_free(&r);
}

/* The second witness of a silence: the earliest ack-eliciting packet in flight, other
 * than the oldest, sent since the latest ACK. */
static void test_second_sent(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;

	(void)state;
	setup(&r);
	mpt_recovery_on_sent(&r, 0, PKT, 10 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 0);	/* one packet: a loss */
	mpt_recovery_on_sent(&r, 1, 0, 11 * MS);		/* an ACK only: no witness */
	assert_int_equal(mpt_recovery_second_sent(&r), 0);
	mpt_recovery_on_sent(&r, 2, PKT, 12 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 12 * MS);
	mpt_recovery_on_sent(&r, 3, PKT, 13 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 12 * MS);
	/* an ACK of 2 at 30 ms: 0 is still in flight (neither threshold declares it
	 * lost yet), sent before it, so the first packet sent after the ACK is the
	 * second witness */
	do_ack(&r, 2, 2, 0, 30 * MS, &rs, &ev);
	assert_int_equal(ev.lost_pkts, 0);
	assert_int_equal(mpt_recovery_second_sent(&r), 0);
	mpt_recovery_on_sent(&r, 4, PKT, 40 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 40 * MS);
	/* everything acknowledged: nothing in flight, no silence */
	do_ack(&r, 0, 4, 0, 50 * MS, &rs, &ev);
	assert_int_equal(mpt_recovery_second_sent(&r), 0);
	/* an idle path's lone packet, then its PTO probe */
	mpt_recovery_on_sent(&r, 5, PKT, 60 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 0);
	mpt_recovery_on_sent(&r, 6, PKT, 90 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 90 * MS);
	/* a dead path's window declared lost starts over */
	mpt_recovery_declare_all_lost(&r, &ev);
	mpt_recovery_on_sent(&r, 7, PKT, 100 * MS);
	assert_int_equal(mpt_recovery_second_sent(&r), 0);
	mpt_recovery_free(&r);
}

/* rt_in_flight: the bytes of packets marked real-time, out again when they are acked,
 * declared lost or the window is declared lost; only the packet just sent is marked. */
static void test_realtime_in_flight(void **state)
{
	struct mpt_recovery r;
	struct mpt_rate_sample rs;
	struct mpt_recovery_event ev;

	setup(&r);
	for (uint64_t i = 0; i < 6; i++) {
		mpt_recovery_on_sent(&r, i, PKT, i * MS);
		if (i % 2)
			mpt_recovery_mark_realtime(&r, i);	/* pn 1, 3, 5 */
	}
	mpt_recovery_mark_realtime(&r, 2);		/* not the latest: ignored */
	mpt_recovery_mark_realtime(&r, 5);		/* twice: once */
	assert_int_equal(r.rt_in_flight, 3 * PKT);
	assert_int_equal(r.in_flight, 6 * PKT);
	/* ACK of 4 alone: pn 0 and 1 are 3 behind, lost; 4 acked */
	do_ack(&r, 4, 4, 0, 50 * MS, &rs, &ev);
	assert_int_equal(ev.lost_pkts, 2);
	assert_int_equal(r.rt_in_flight, 2 * PKT);	/* 3 and 5 */
	do_ack(&r, 3, 3, 0, 51 * MS, &rs, &ev);
	assert_int_equal(r.rt_in_flight, PKT);
	mpt_recovery_declare_all_lost(&r, &ev);
	assert_int_equal(r.rt_in_flight, 0);
	assert_int_equal(r.in_flight, 0);
	mpt_recovery_on_sent(&r, 6, PKT, 60 * MS);
	mpt_recovery_mark_realtime(&r, 6);
	mpt_recovery_reset(&r);
	assert_int_equal(r.rt_in_flight, 0);
	mpt_recovery_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtt_rfc9002),
		cmocka_unit_test(test_delivery_rate),
		cmocka_unit_test(test_app_limited),
		cmocka_unit_test(test_packet_and_time_threshold),
		cmocka_unit_test(test_time_threshold_granularity),
		cmocka_unit_test(test_invalid_acks),
		cmocka_unit_test(test_ring_and_reset),
		cmocka_unit_test(test_ring_grows),
		cmocka_unit_test(test_release_once),
		cmocka_unit_test(test_silence_and_declare_all_lost),
		cmocka_unit_test(test_second_sent),
		cmocka_unit_test(test_realtime_in_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
