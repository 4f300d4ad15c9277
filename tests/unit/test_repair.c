// SPDX-License-Identifier: MIT
/*
 * Tunnel-level repairs (session_repair.c): which lost packets are still worth sending
 * again. The session runs on a zeroed daemon with a real packet pool:
 *
 *   path0 (dead: 40 ms RTT)   -- packets in flight when it went dark
 *   path1 (up:   50 ms RTT, 50 Mbit/s, room)  -- where the repairs go
 *
 * The receiver holds a hole for 2 x 50 ms + ReorderMargin (5 ms) = 105 ms after the
 * original would have arrived (sent + 20 ms). A repair on path1 arrives 25 ms after it
 * is sent. It is worth sending until the end-to-end retransmission could be there
 * first: the hold plus the least path RTT (50 ms) plus the age of the scheduler queue's
 * head.
 *
 * The receiver's side of the same dark path (mpt_session_reorder_timeout): path0
 * delivered data until 100 ms, then nothing; packets behind three of its holes (DSNs
 * 1-3) came on path1 at 105 ms. The usual hold (105 ms) gives the holes up at 210 ms;
 * path0's sender finds it dead 1.5 PTO (60 ms) after its last packet and the repairs
 * cross path1 within 2 x 50 ms: the holes are held until 100 + 60 + 100 + 5 = 265 ms,
 * at most 150 ms after they appeared (255 ms).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon.h"
#include "session.h"

#define MS MPT_NSEC_PER_MSEC

struct harness {
	struct mpt_daemon *d;
	struct mpt_session *s;
	struct mpt_path_view views[2];
	struct mpt_sched_ctx ctx;
};

static void path_init(struct mpt_path *p, uint8_t id, uint64_t srtt, bool alive)
{
	p->id = id;
	p->used = true;
	p->alive = alive;
	p->rec.have_rtt = true;
	p->rec.srtt_ns = srtt;
	p->rec.min_rtt_ns = srtt;
}

static void h_init(struct harness *h)
{
	memset(h, 0, sizeof(*h));
	h->d = calloc(1, sizeof(*h->d));
	h->s = calloc(1, sizeof(*h->s));
	assert_non_null(h->d);
	assert_non_null(h->s);
	h->d->cfg.recovery = MPT_RECOVERY_RETRANSMIT;
	h->d->cfg.reorder_margin_ns = 5 * MS;
	h->d->cfg.reorder_max_hold_ns = 250 * MS;
	assert_int_equal(mpt_pkt_pool_init(&h->d->pool, 1024, 1500), 0);
	h->s->d = h->d;
	h->s->npaths = 2;
	path_init(&h->s->paths[0], 0, 40 * MS, false);
	path_init(&h->s->paths[1], 1, 50 * MS, true);
	for (unsigned i = 0; i < 2; i++) {
		struct mpt_path_view *v = &h->views[i];

		v->id = (uint8_t)i;
		v->mtu = 1400;
		v->srtt_ns = h->s->paths[i].rec.srtt_ns;
		v->min_rtt_ns = v->srtt_ns;
	}
	h->views[1].up = true;
	h->views[1].cwnd = 400000;
	h->views[1].btlbw = 50000000 / 8;
	h->views[1].pacing_rate = 50000000 / 8;
	h->ctx.paths = h->views;
	h->ctx.npaths = 2;
}

static void h_free(struct harness *h)
{
	mpt_pktq_purge(&h->s->rtxq, &h->d->pool);
	mpt_pktq_purge(&h->s->squeue, &h->d->pool);
	for (unsigned i = 0; i < 2; i++)
		mpt_pktq_purge(&h->s->paths[i].txq, &h->d->pool);
	mpt_pkt_pool_free(&h->d->pool);
	free(h->s);
	free(h->d);
}

/* When a path is dead from data (mpt_session_dead_deadline). A path of 16 ms RTT,
 * PTO = 16 + 4 x 8 + 25 = 73 ms (RFC 9002's initial rttvar is srtt / 2): a greedy
 * flow's packets follow one another, so it is dead 1.5 PTO after the silence began;
 * an idle path's one packet lost is a loss: not dead before its PTO probe, sent at
 * 1 PTO, could have been acknowledged (2 PTO). Before, the idle path was dead at 1.5
 * PTO, its probe still on its way. */
static void test_dead_needs_two_packets(void **state)
{
	struct mpt_path p;
	uint64_t pto, t = 1000 * MS;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(mpt_recovery_init(&p.rec, NULL, 64), 0);
	p.alive = true;
	p.rtt_fresh = true;
	p.rec.have_rtt = true;
	p.rec.srtt_ns = 16 * MS;
	p.rec.rttvar_ns = 8 * MS;
	pto = mpt_recovery_pto(&p.rec);
	assert_true(pto > 60 * MS);
	/* idle: one packet */
	mpt_recovery_on_sent(&p.rec, 0, 158, t);
	assert_int_equal(mpt_session_dead_deadline(&p), t + 2 * pto);
	/* its PTO probe goes at t + pto (now the second witness) */
	mpt_recovery_on_sent(&p.rec, 1, 100, t + pto);
	assert_int_equal(mpt_session_dead_deadline(&p), t + 2 * pto);
	mpt_recovery_free(&p.rec);

	/* greedy: the next packet 0.1 ms later */
	assert_int_equal(mpt_recovery_init(&p.rec, NULL, 64), 0);
	p.rec.have_rtt = true;
	p.rec.srtt_ns = 16 * MS;
	p.rec.rttvar_ns = 8 * MS;
	for (uint64_t pn = 0; pn < 10; pn++)
		mpt_recovery_on_sent(&p.rec, pn, 1200, t + pn * MS / 10);
	assert_int_equal(mpt_session_dead_deadline(&p), t + 3 * pto / 2);
	mpt_recovery_free(&p.rec);
}

/* A 1200-byte packet first sent on path0 at sent_ns, now declared lost. */
static void lost_on_path0(struct harness *h, uint64_t sent_ns)
{
	struct mpt_pkt *pkt = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(pkt);
	pkt->len = 1200;
	pkt->path = 0;
	pkt->sent_ns = sent_ns;
	mpt_pktq_push(&h->s->rtxq, pkt);
}

/* A packet waiting in the scheduler queue since enq_ns. */
static void queued_since(struct harness *h, uint64_t enq_ns)
{
	struct mpt_pkt *pkt = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(pkt);
	pkt->len = 1200;
	pkt->enq_ns = enq_ns;
	mpt_pktq_push(&h->s->squeue, pkt);
}

static void repair_at(struct harness *h, uint64_t now)
{
	h->ctx.now = now;
	mpt_session_repair(h->s, h->views, &h->ctx, now);
}

/* Sent at 100 ms; the hole is given up at 100 + 20 + 105 = 225 ms; the repair sent at
 * 215 ms arrives at about 240 ms: past the hold, but 35 ms before an end-to-end
 * retransmission could (275 ms). A dead path's window meets exactly this: the live
 * path must make room for it first. */
static void test_repair_past_hold_is_sent(void **state)
{
	struct harness h;

	(void)state;
	h_init(&h);
	lost_on_path0(&h, 100 * MS);
	repair_at(&h, 215 * MS);
	assert_int_equal(h.s->st.repairs, 1);
	assert_int_equal(h.s->st.repair_late, 0);
	assert_non_null(h.s->paths[1].txq.head);
	assert_int_equal(h.s->paths[1].txq.head->rtx, 1);
	assert_null(h.s->rtxq.head);
	h_free(&h);
}

/* Sent at 0: the end-to-end retransmission could arrive from 0 + 20 + 105 + 50 =
 * 175 ms; a repair arriving at 240 ms is wasted: counted late, not sent. */
static void test_repair_after_e2e_is_late(void **state)
{
	struct harness h;

	(void)state;
	h_init(&h);
	lost_on_path0(&h, 0);
	repair_at(&h, 215 * MS);
	assert_int_equal(h.s->st.repairs, 0);
	assert_int_equal(h.s->st.repair_late, 1);
	assert_null(h.s->paths[1].txq.head);
	h_free(&h);
}

/* The same packet while new packets wait 100 ms in the scheduler queue: the inner
 * retransmission would wait there too (175 + 100 = 275 ms), so the repair still wins. */
static void test_queue_wait_counts(void **state)
{
	struct harness h;

	(void)state;
	h_init(&h);
	lost_on_path0(&h, 0);
	queued_since(&h, 115 * MS);
	repair_at(&h, 215 * MS);
	assert_int_equal(h.s->st.repairs, 1);
	assert_int_equal(h.s->st.repair_late, 0);
	assert_non_null(h.s->paths[1].txq.head);
	h_free(&h);
}

/* In time by the hold alone: sent, as before. */
static void test_repair_within_hold(void **state)
{
	struct harness h;

	(void)state;
	h_init(&h);
	lost_on_path0(&h, 150 * MS);
	repair_at(&h, 180 * MS);
	assert_int_equal(h.s->st.repairs, 1);
	h_free(&h);
}

struct released {
	unsigned n, timeouts;
	uint64_t dsn[16];
};

static void on_release(void *arg, uint64_t dsn, void *pkt, uint32_t len,
		       enum mpt_reorder_why why)
{
	struct released *r = arg;

	assert_true(r->n < 16);
	r->dsn[r->n++] = dsn;
	r->timeouts += why == MPT_REORDER_TIMEOUT;
}

/* The receiver: DSN 0 in order at 100 ms, path0 silent after it (dark_at; or still
 * delivering), DSNs 4 and 5 on path1 at 105 ms. */
static void rx_init(struct harness *h, struct released *r, uint64_t path0_last)
{
	struct mpt_reorder *rb = &h->s->reorder;

	memset(r, 0, sizeof(*r));
	assert_int_equal(mpt_reorder_init(rb, 64, 250 * MS, 5 * MS, on_release, r), 0);
	mpt_reorder_set_hold(rb, mpt_session_hold_ns(h->s));
	assert_int_equal(rb->hold_ns, 105 * MS);
	mpt_reorder_set_fill_restarts(rb, true);	/* as session_rx.c sets it */
	assert_int_equal(mpt_reorder_insert(rb, 0, (void *)1, 100, 100 * MS), 0);
	h->s->paths[0].last_data_rx_ns = path0_last;
	for (uint64_t dsn = 4; dsn <= 5; dsn++)
		assert_int_equal(mpt_reorder_insert(rb, dsn, (void *)1, 100, 105 * MS), 0);
	h->s->paths[1].last_data_rx_ns = 105 * MS;
	assert_int_equal(mpt_reorder_next_deadline(rb), 210 * MS);
}

/* The repairs come at 230-260 ms: every hole waits for its repair (fails with the
 * usual hold alone: three holes given up at 210 ms, the inner TCP re-sends them). */
static void test_dark_path_holes_wait_for_repairs(void **state)
{
	struct harness h;
	struct released r;
	struct mpt_reorder *rb;

	(void)state;
	h_init(&h);
	rb = &h.s->reorder;
	rx_init(&h, &r, 100 * MS);
	mpt_session_reorder_timeout(h.s, 210 * MS);
	assert_int_equal(r.n, 1);
	assert_int_equal(rb->st.holds_extended, 1);
	assert_int_equal(mpt_reorder_next_deadline(rb), 255 * MS);
	mpt_session_reorder_timeout(h.s, 229 * MS);
	assert_int_equal(mpt_reorder_insert(rb, 1, (void *)1, 100, 230 * MS), 0);
	assert_int_equal(mpt_reorder_insert(rb, 2, (void *)1, 100, 231 * MS), 0);
	/* repairs are progress: the last hole waits a hold after the latest one */
	assert_int_equal(mpt_reorder_next_deadline(rb), 336 * MS);
	mpt_session_reorder_timeout(h.s, 259 * MS);
	assert_int_equal(mpt_reorder_insert(rb, 3, (void *)1, 100, 260 * MS), 0);
	assert_int_equal(r.n, 6);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(r.dsn[i], i);
	assert_int_equal(r.timeouts, 0);
	assert_int_equal(rb->st.holes_skipped, 0);
	mpt_reorder_free(rb);
	h_free(&h);
}

/* Repairs that never come: the holes go 150 ms after they appeared, before the inner
 * TCP's least retransmission timeout (200 ms). */
static void test_dark_path_hold_is_bounded(void **state)
{
	struct harness h;
	struct released r;
	struct mpt_reorder *rb;

	(void)state;
	h_init(&h);
	rb = &h.s->reorder;
	rx_init(&h, &r, 100 * MS);
	mpt_session_reorder_timeout(h.s, 210 * MS);
	mpt_session_reorder_timeout(h.s, 254 * MS);
	assert_int_equal(r.n, 1);
	mpt_session_reorder_timeout(h.s, 255 * MS);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.timeouts, 2);
	assert_int_equal(rb->st.holes_skipped, 3);
	mpt_reorder_free(rb);
	h_free(&h);
}

/* An ordinary loss: both paths still deliver (path0's last packet at 200 ms), the
 * holes are given up after the usual hold. */
static void test_live_path_holes_keep_the_hold(void **state)
{
	struct harness h;
	struct released r;
	struct mpt_reorder *rb;

	(void)state;
	h_init(&h);
	rb = &h.s->reorder;
	rx_init(&h, &r, 200 * MS);
	h.s->paths[1].last_data_rx_ns = 209 * MS;	/* both paths deliver */
	mpt_session_reorder_timeout(h.s, 210 * MS);
	assert_int_equal(r.n, 3);
	assert_int_equal(rb->st.holds_extended, 0);
	assert_int_equal(rb->st.holes_skipped, 3);
	mpt_reorder_free(rb);
	h_free(&h);
}

/*
 * A packet the scheduler sent on two paths (redundant) is not repaired when one copy is
 * lost: the other is its repair. Repaired, a voice rule's copies from a path that died
 * came off its real-time allowance on the live path and held the voice there
 * (atsss-mixed). A packet sent on one path is repaired as before.
 */
static void test_copy_not_repaired(void **state)
{
	struct harness h;
	struct mpt_pkt *pkt;

	(void)state;
	h_init(&h);
	for (unsigned i = 0; i < 2; i++) {
		pkt = mpt_pkt_alloc(&h.d->pool);
		assert_non_null(pkt);
		pkt->len = 200;
		pkt->dsn = i;
		pkt->unordered = pkt->realtime = true;
		mpt_session_dispatch(h.s, pkt, i == 0 ? 0x3 : 0x1);
	}
	assert_int_equal(h.s->paths[0].txq.pkts, 2);
	assert_int_equal(h.s->paths[1].txq.pkts, 1);
	assert_true(h.s->paths[0].txq.head->copied && h.s->paths[1].txq.head->copied);
	assert_false(h.s->paths[0].txq.tail->copied);
	while ((pkt = mpt_pktq_pop(&h.s->paths[0].txq)))	/* sent, then lost */
		mpt_pktq_push(&h.s->paths[0].lostq, pkt);
	mpt_session_collect_lost(h.s, &h.s->paths[0], 100 * MS);
	assert_int_equal(h.s->st.repair_copied, 1);
	assert_int_equal(h.s->rtxq.pkts, 1);
	assert_int_equal(h.s->rtxq.head->dsn, 1);
	h_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dead_needs_two_packets),
		cmocka_unit_test(test_repair_past_hold_is_sent),
		cmocka_unit_test(test_repair_after_e2e_is_late),
		cmocka_unit_test(test_queue_wait_counts),
		cmocka_unit_test(test_repair_within_hold),
		cmocka_unit_test(test_dark_path_holes_wait_for_repairs),
		cmocka_unit_test(test_dark_path_hold_is_bounded),
		cmocka_unit_test(test_live_path_holes_keep_the_hold),
		cmocka_unit_test(test_copy_not_repaired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
