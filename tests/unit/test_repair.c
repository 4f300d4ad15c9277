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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repair_past_hold_is_sent),
		cmocka_unit_test(test_repair_after_e2e_is_late),
		cmocka_unit_test(test_queue_wait_counts),
		cmocka_unit_test(test_repair_within_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
