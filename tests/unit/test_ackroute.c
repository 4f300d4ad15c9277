// SPDX-License-Identifier: MIT
/*
 * ACKs of one path on another (issue 22): the carrier rule (proto/ackroute.c) and, in
 * a session (core), a thin and busy return direction handing its path's ACKs to the
 * other path, and an ACK of path 0 that arrives in a packet on path 1 driving path 0.
 *
 *   UE                                     anchor
 *   path 0 "dsl"  <==== 16 Mbit/s data ====   (its return: 1 Mbit/s, our data queued)
 *                 ----- ACKs of path 0 --x
 *   path 1 "lte"  ----- ACKs of path 0 --->   (its return: idle)
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ev.h>

#include "ackroute.h"
#include "config.h"
#include "daemon.h"
#include "path.h"
#include "session.h"
#include "sessiontest.h"

#define MS	1000000ULL

/* ---- the rule ---- */

static void test_pick_rule(void **state)
{
	struct mpt_ackroute_in in[3] = {
		{ .usable = true, .owd_ns = 12 * MS },
		{ .usable = true, .owd_ns = 30 * MS },
		{ .usable = false, .owd_ns = 1 * MS },
	};

	/* an idle home path keeps its ACKs, a sooner one elsewhere or not; an unusable
	 * one never carries any */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 1);	/* 12 ms against 30 */
	/* full: away to the sooner one; a home path within max(5 ms, a quarter) of the
	 * soonest stays */
	in[1].full = true;
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 0);
	in[0].owd_ns = 28 * MS;			/* 30 + 5 within 28 + 7 */
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 1);
	in[1].full = false;
	/* the home path full (its return busy with our data) and its queue 40 ms: away to
	 * the free one */
	in[0].owd_ns = 52 * MS;
	in[0].full = true;
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 1);
	/* full but still sooner (its queue small): home; the full one pays 5 ms */
	in[0].owd_ns = 12 * MS;
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	in[0].owd_ns = 23 * MS;				/* 28 against 30: home */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	in[1].full = true;
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 1);	/* 35 within 28 + 7 */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	/* nothing usable: home */
	in[0].usable = in[1].usable = false;
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 1);
}

/* A satellite's 300 ms return against LTE's 15 ms: home, free or full (LTE's ACKs
 * would make its RTT 315 ms, half of which falls 135 ms short of its forward delay). A
 * full DSL return (unloaded 12 ms, its queue 100 ms) goes to LTE (15 ms) or another
 * (18 ms); hysteresis keeps a current carrier that is within the margin of a newly
 * sooner one. A busy LTE return keeps its own ACKs rather than send them over the
 * idle satellite (the anchor did: 300 ms ACKs, and the UE took LTE down for
 * silence). */
static void test_pick_soonest_and_hysteresis(void **state)
{
	struct mpt_ackroute_in in[3] = {
		{ .usable = true, .owd_ns = 300 * MS, .base_ns = 300 * MS },
		{ .usable = true, .owd_ns = 15 * MS, .base_ns = 15 * MS },
		{ .usable = true, .owd_ns = 18 * MS, .base_ns = 18 * MS },
	};

	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	in[0].full = true;
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, 1), 0);	/* nor kept there */
	in[0].owd_ns = 112 * MS;
	in[0].base_ns = 12 * MS;
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 1);
	in[1].base_ns = 6 * MS;			/* 6 ms short of home's 12: within 5? no */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 2);
	in[1].base_ns = 8 * MS;			/* 4 ms short: within the margin */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 1);
	in[1].owd_ns = 20 * MS;			/* path 2 now 2 ms sooner */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, 1), 1);
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 2);
	in[1].owd_ns = 40 * MS;			/* 22 ms later: it moves */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, 1), 2);

	in[1].owd_ns = 15 * MS;
	in[1].full = true;
	in[2].usable = false;
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 1);
	in[1].owd_ns = 75 * MS;			/* a full window's queue: 60 ms */
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 1);
}

/* Cost preference (issue 10, testbed applimited): the cheap path's window full with
 * bursts of an app-limited flow (its queue 4.3 ms at 1 ms RTT, 22 of its 54 Mbit/s
 * sent) keeps its ACKs from the dear path, sooner as it is, but not from another
 * path of its own cost; at capacity the dear one takes them. */
static void test_pick_cost_gate(void **state)
{
	struct mpt_ackroute_in in[3] = {
		{ .usable = true, .full = true, .owd_ns = 4800000, .base_ns = MS / 2,
		  .cost = 1 },
		{ .usable = true, .owd_ns = 550000, .base_ns = MS / 2, .cost = 5 },
		{ .usable = false, .owd_ns = 600000, .base_ns = MS / 2, .cost = 1 },
	};

	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 0);
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, 1), 0);	/* nor kept there */
	in[2].usable = true;				/* an equal-cost one: away */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, 1), 2);
	in[0].at_capacity = true;			/* at capacity: the soonest */
	assert_int_equal(mpt_ackroute_pick(in, 3, 0, -1), 1);
	/* the dear path's own ACKs may go on the cheaper one, capacity or not */
	in[1].full = true;
	in[1].owd_ns = 9 * MS;
	in[0].full = false;
	in[0].owd_ns = MS;
	in[2].usable = false;
	assert_int_equal(mpt_ackroute_pick(in, 3, 1, -1), 0);
}

static void test_owd(void **state)
{
	/* 1 Mbit/s (125000 B/s), 24 ms: BDP 3000 B; 15500 B in flight stand 100 ms */
	assert_int_equal(mpt_ackroute_owd(24 * MS, 15500, 125000, 0), 112 * MS);
	assert_int_equal(mpt_ackroute_owd(24 * MS, 1000, 125000, 125), 13 * MS);
	assert_int_equal(mpt_ackroute_owd(24 * MS, 99999, 0, 125), 12 * MS);
}

/* ---- in a session ---- */

static const char conf[] =
	"[Interface]\n"
	"Role = ue\n"
	"PrivateKey = CI39FGvhTMnEClovgoRvXE1rtld7llrWIm+9QDTJz1c=\n"
	"Address = 10.7.0.2/24\n"
	"AckRouting = yes\n"
	"[Path]\nName = dsl\nEndpoint = 127.0.0.1:9\nCost = 0\n"
	"[Path]\nName = lte\nEndpoint = 127.0.0.1:9\nCost = 1\n"
	"[Peer]\nPublicKey = FcezX5QYFnJMSbN1wRb0cjgJ/n1pxrI4h80OBA0/lRM=\n";

static void h_init(struct sessiontest *h, uint64_t now)
{
	sessiontest_init(h, conf, sizeof(conf) - 1, "cpf", 256, now);
	h->s->paths[0].rec.min_rtt_ns = 24 * MS;	/* dsl: 12 ms each way */
	h->s->paths[1].rec.min_rtt_ns = 60 * MS;	/* lte: 30 ms each way */
}

/* Path 0 received n ack-eliciting packets: an ACK is due. */
static void receive_on(struct mpt_path *p, unsigned n, uint64_t now)
{
	for (unsigned i = 1; i <= n; i++)
		mpt_acktrack_on_packet(&p->ackt, i, true, now);
}

/* The DSL return idle: its ACKs stay home. With 12 ms of our data waiting in its 1
 * Mbit/s pacer (full) and 15500 bytes in flight against its 3000-byte BDP (100 ms of
 * queue at its bottleneck), they go on the dearer LTE once the DSL return sends at
 * its capacity (not before): the ACK frame is counted for path 0
 * (acks_tx, acks_away) and its bytes on path 1 (ack_tx_bytes). */
static void test_full_return_moves_acks(void **state)
{
	uint64_t now = 1000 * MS;
	struct sessiontest h;
	struct mpt_path *dsl, *lte;
	struct mpt_pkt *pkt;

	h_init(&h, now);
	dsl = &h.s->paths[0];
	lte = &h.s->paths[1];
	receive_on(dsl, 4, now);
	assert_ptr_equal(mpt_session_ack_carrier(h.s, dsl, now), dsl);
	mpt_session_send_control(h.s, dsl, NULL, now);
	assert_int_equal(dsl->st.acks_tx, 1);
	assert_int_equal(dsl->st.acks_away, 0);
	assert_true(dsl->st.ack_tx_bytes > 0);

	now += 20 * MS;
	dsl->cc.pacing_rate = dsl->cc.btlbw = 125000;	/* 1 Mbit/s */
	dsl->rec.in_flight = 15500;
	pkt = mpt_pkt_alloc(&h.d->pool);
	assert_non_null(pkt);
	pkt->len = 1500;
	mpt_pktq_push(&dsl->txq, pkt);			/* 12 ms waiting */
	mpt_session_note_busy(dsl, now);
	mpt_session_note_busy(lte, now);
	/* full, but sending 0.4 Mbit/s of its 1: LTE is dearer, the ACKs stay */
	dsl->meter.start_ns = now - 500 * MS;
	dsl->meter.tx = 50000;
	assert_ptr_equal(mpt_session_ack_carrier(h.s, dsl, now), dsl);
	/* at capacity (0.96 Mbit/s), the choice due again (10 ms on): to LTE */
	now += 10 * MS;
	dsl->meter.tx = 120000;
	mpt_session_note_busy(dsl, now);
	receive_on(dsl, 8, now);
	assert_ptr_equal(mpt_session_ack_carrier(h.s, dsl, now), lte);
	mpt_session_send_control(h.s, lte, NULL, now);
	assert_int_equal(dsl->st.acks_tx, 2);
	assert_int_equal(dsl->st.acks_away, 1);
	assert_true(lte->st.ack_tx_bytes > 0);
	assert_int_equal(lte->st.acks_tx, 0);		/* none of lte's own were due */
	assert_int_equal(dsl->ackt.unacked_eliciting, 0);

	/* the queue gone and the busy spell over: home again */
	mpt_pktq_purge(&dsl->txq, &h.d->pool);
	dsl->rec.in_flight = 0;
	now += 100 * MS;
	assert_ptr_equal(mpt_session_ack_carrier(h.s, dsl, now), dsl);
	sessiontest_free(&h);
}

static void timer_noop(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

/* AckRouting's data packets: one leaving on the DSL path takes that path's pending ACK
 * along, due or not (as without AckRouting: a busy LTE whose own ACKs waited for
 * their due time recovered its Startup losses late, sat-lte-down), and another
 * path's only when due (LTE's one packet: not yet). */
static void test_data_takes_own_acks(void **state)
{
	uint64_t now = 1000 * MS;
	struct sessiontest h;
	struct mpt_path *dsl, *lte;
	struct mpt_pkt *k;

	h_init(&h, now);
	h.d->loop = ev_loop_new(EVFLAG_AUTO);		/* mpt_session_flush arms it */
	assert_non_null(h.d->loop);
	ev_init(&h.s->timer, timer_noop);
	assert_true(h.d->cfg.ack_routing);
	dsl = &h.s->paths[0];
	lte = &h.s->paths[1];
	dsl->cc.pacing_rate = lte->cc.pacing_rate = 1000000000;
	dsl->cc.cwnd = lte->cc.cwnd = 100000;
	dsl->ackt.ack_every = lte->ackt.ack_every = 8;
	dsl->ackt.max_ack_delay_ns = lte->ackt.max_ack_delay_ns = 25 * MS;
	receive_on(dsl, 1, now);
	receive_on(lte, 1, now);
	assert_false(mpt_acktrack_should_ack_now(&dsl->ackt, now));
	assert_false(mpt_acktrack_should_ack_now(&lte->ackt, now));
	assert_ptr_equal(mpt_session_ack_carrier(h.s, lte, now), lte);

	k = mpt_pkt_alloc(&h.d->pool);
	assert_non_null(k);
	memset(k->data, 0x45, 1000);
	k->len = 1000;
	k->dsn = MPT_DSN_UNSET;
	memset(&k->meta, 0, sizeof(k->meta));
	k->meta.len = 1000;
	mpt_session_number(h.s, k);
	mpt_session_dispatch(h.s, k, 1u << 0);
	mpt_session_flush(h.s, now);
	assert_int_equal(dsl->st.data_tx, 1);
	assert_int_equal(dsl->st.acks_tx, 1);		/* its own, not due */
	assert_int_equal(dsl->ackt.unacked_eliciting, 0);
	assert_int_equal(lte->st.acks_tx, 0);		/* LTE's: not due, stays */
	assert_int_equal(lte->ackt.unacked_eliciting, 1);
	ev_timer_stop(h.d->loop, &h.s->timer);
	ev_loop_destroy(h.d->loop);
	sessiontest_free(&h);
}

/* Ten packets sent on path 0; their ACK comes in a packet on path 1. Path 0's
 * recovery, RTT and counters move; path 1's sender state does not (its ACK bytes in
 * are counted on it). */
static void test_ack_on_other_path(void **state)
{
	uint64_t t0 = 1000 * MS, now = t0 + 42 * MS;
	struct mpt_ack_info ack = { .path_id = 0, .ack_delay_ns = 2 * MS, .nranges = 1 };
	struct mpt_hdr hdr = { .type = MPT_MSG_TRANSPORT, .path_id = 1, .pn = 1 };
	struct sessiontest h;
	struct mpt_path *dsl, *lte;
	uint8_t frames[128];
	int n;

	h_init(&h, t0);
	dsl = &h.s->paths[0];
	lte = &h.s->paths[1];
	dsl->rec.have_rtt = lte->rec.have_rtt = false;
	for (uint64_t pn = 1; pn <= 10; pn++)
		mpt_recovery_on_sent_data(&dsl->rec, pn, 1200, t0, NULL);
	dsl->next_pn = 11;
	assert_int_equal(dsl->rec.in_flight, 12000);
	ack.r[0].lo = 1;
	ack.r[0].hi = 10;
	n = mpt_frame_ack_encode(frames, sizeof(frames), &ack);
	assert_true(n > 0);
	mpt_session_receive(h.s, &h.s->cur, &hdr, NULL, frames, (size_t)n, &lte->remote,
			    lte->remote_len, NULL, true, now);
	assert_int_equal(dsl->rec.in_flight, 0);
	assert_int_equal(dsl->rec.acked_pkts, 10);
	assert_int_equal(dsl->st.acks_rx, 1);
	assert_true(dsl->rec.have_rtt);
	assert_int_equal(dsl->rec.latest_rtt_ns, 42 * MS);
	assert_int_equal(dsl->rec.min_rtt_ns, 42 * MS);
	assert_int_equal(lte->st.acks_rx, 0);
	assert_false(lte->rec.have_rtt);
	assert_int_equal(lte->st.ack_rx_bytes, (uint64_t)n);
	assert_int_equal(dsl->st.ack_rx_bytes, 0);
	assert_int_equal(dsl->st.ack_errors + lte->st.ack_errors, 0);
	sessiontest_free(&h);
}

/* The ACK frequency a path asks for counts the window in the packets it sends: full
 * ones, one ACK per eighth of the window (8 packets of a 96 kB window); the inner
 * flow's TCP ACKs (120-byte datagrams), the cap (64) instead of every 2nd packet. */
static void test_ackf_counts_sent_size(void **state)
{
	uint64_t now = 1000 * MS;
	struct sessiontest h;
	struct mpt_path *p;
	uint8_t buf[64];

	h_init(&h, now);
	p = &h.s->paths[0];
	p->cc.cwnd = 2 * 48000;
	p->rec.min_rtt_ns = 24 * MS;
	p->st.data_tx = 100;
	p->st.data_tx_bytes = 100 * (uint64_t)h.d->pool.mtu;
	assert_true(mpt_session_ackf_append(h.s, p, buf, sizeof(buf), now) > 0);
	assert_int_equal(p->ackf_threshold, 96000 / h.d->pool.mtu / 8);
	assert_int_equal(p->ackf_delay_us, 6000);

	now += 200 * MS;
	p->st.data_tx += 1000;
	p->st.data_tx_bytes += 1000 * 120;
	assert_true(mpt_session_ackf_append(h.s, p, buf, sizeof(buf), now) > 0);
	assert_int_equal(p->ackf_threshold, MPT_ACKF_MAX_THRESHOLD);

	now += 200 * MS;				/* nothing sent: full size again */
	assert_true(mpt_session_ackf_append(h.s, p, buf, sizeof(buf), now) > 0);
	assert_int_equal(p->ackf_threshold, 96000 / h.d->pool.mtu / 8);
	sessiontest_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_rule),
		cmocka_unit_test(test_pick_soonest_and_hysteresis),
		cmocka_unit_test(test_pick_cost_gate),
		cmocka_unit_test(test_owd),
		cmocka_unit_test(test_full_return_moves_acks),
		cmocka_unit_test(test_data_takes_own_acks),
		cmocka_unit_test(test_ack_on_other_path),
		cmocka_unit_test(test_ackf_counts_sent_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
