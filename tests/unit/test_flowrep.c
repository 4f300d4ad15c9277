// SPDX-License-Identifier: MIT
/*
 * Per-flow attribution (issue 14): what a path's recovery acknowledges and declares
 * lost reaches the scheduler per inner flow (ops->on_flow), exactly, through the
 * recovery's release of each kept packet (path.c, flowrep) and the session's report
 * (mpt_session_flow_report). A real path (mpt_path_init) and recovery; a recording
 * scheduler.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon.h"
#include "schedtest.h"

#define MS	1000000ull

/* ---- a scheduler that records on_flow ---- */

struct rec {
	unsigned n;
	struct { uint32_t flow; unsigned path; uint64_t acked, lost; } call[64];
};

static uint32_t rec_pick(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt)
{
	(void)priv;
	(void)ctx;
	(void)pkt;
	return 1;
}

static void rec_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	(void)priv;
	(void)ctx;
}

static void rec_on_flow(void *priv, const struct mpt_sched_ctx *ctx, uint32_t flow,
			unsigned path, uint64_t acked, uint64_t lost)
{
	struct rec *r = priv;

	(void)ctx;
	assert_true(r->n < 64);
	r->call[r->n].flow = flow;
	r->call[r->n].path = path;
	r->call[r->n].acked = acked;
	r->call[r->n].lost = lost;
	r->n++;
}

static const struct mpt_sched_ops rec_ops = {
	.name = "rec",
	.pick = rec_pick,
	.init = rec_init,
	.on_flow = rec_on_flow,
	.priv_size = sizeof(struct rec),
};

static const char conf[] =
	"[Interface]\n"
	"Role = ue\n"
	"PrivateKey = CI39FGvhTMnEClovgoRvXE1rtld7llrWIm+9QDTJz1c=\n"
	"Address = 10.7.0.2/24\n"
	"[Path]\nName = wifi\nEndpoint = 127.0.0.1:9\n"
	"[Peer]\nPublicKey = FcezX5QYFnJMSbN1wRb0cjgJ/n1pxrI4h80OBA0/lRM=\n";

struct harness {
	struct mpt_daemon *d;
	struct mpt_session *s;
	struct mpt_path *p;
	uint64_t pn;
};

static void h_init(struct harness *h, const struct mpt_sched_ops *ops)
{
	char err[256];

	memset(h, 0, sizeof(*h));
	h->d = calloc(1, sizeof(*h->d));
	assert_non_null(h->d);
	if (mpt_config_parse(&h->d->cfg, "test", conf, sizeof(conf) - 1, err, sizeof(err)))
		fail_msg("config: %s", err);
	assert_int_equal(mpt_pkt_pool_init(&h->d->pool, 256, 1500), 0);
	h->s = calloc(1, sizeof(*h->s));
	assert_non_null(h->s);
	h->s->d = h->d;
	h->s->sched = ops;
	h->s->sched_priv = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	memset(h->s->sched_priv, 0, MPT_SCHED_PRIV_SIZE);
	h->s->npaths = 1;
	h->p = &h->s->paths[0];
	if (mpt_path_init(h->p, 0, &h->d->cfg, &h->d->cfg.paths[0], &h->d->pool, 1, MS,
			  err, sizeof(err)))
		fail_msg("path: %s", err);
	h->p->used = h->p->alive = true;
	h->pn = 1;
}

static void h_free(struct harness *h)
{
	mpt_path_free(h->p, &h->d->pool);
	free(h->s->sched_priv);
	free(h->s);
	mpt_pkt_pool_free(&h->d->pool);
	mpt_config_free(&h->d->cfg);
	free(h->d);
}

/* A kept data packet of flow `flow`, len bytes, sent now with the next number. */
static void sent(struct harness *h, uint32_t flow, uint32_t len, uint64_t now)
{
	struct mpt_pkt *k = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(k);
	k->len = len;
	k->meta.flow_hash = flow;
	k->sent_ns = now;
	mpt_recovery_on_sent_data(&h->p->rec, h->pn++, len + 60, now, k);
}

/* ACK of packet numbers lo..hi (one range). */
static void ack(struct harness *h, uint64_t lo, uint64_t hi, uint64_t now)
{
	struct mpt_ack_info a = { .path_id = 0, .nranges = 1 };
	struct mpt_recovery_event ev;
	struct mpt_rate_sample rs;

	a.r[0].lo = lo;
	a.r[0].hi = hi;
	assert_int_equal(mpt_recovery_on_ack(&h->p->rec, &a, now, &rs, &ev), 0);
}

static const struct rec *report(struct harness *h, uint64_t now)
{
	mpt_session_flow_report(h->s, h->p, now);
	return h->s->sched_priv;
}

static uint64_t sum(const struct rec *r, uint32_t flow, bool lost)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < r->n; i++)
		if (r->call[i].flow == flow)
			t += lost ? r->call[i].lost : r->call[i].acked;
	return t;
}

/* Two flows' packets acknowledged: each flow told its own bytes, once per flow. */
static void test_acked_per_flow(void **state)
{
	struct harness h;
	const struct rec *r;

	(void)state;
	h_init(&h, &rec_ops);
	sent(&h, 0xaaaa, 1000, MS);
	sent(&h, 0xbbbb, 300, MS);
	sent(&h, 0xaaaa, 1200, MS);
	ack(&h, 1, 3, 30 * MS);
	r = report(&h, 30 * MS);
	assert_int_equal(r->n, 2);
	assert_int_equal(sum(r, 0xaaaa, false), 2200);
	assert_int_equal(sum(r, 0xbbbb, false), 300);
	assert_int_equal(sum(r, 0xaaaa, true) + sum(r, 0xbbbb, true), 0);
	assert_int_equal(r->call[0].path, 0);
	assert_int_equal(h.p->nflowrep, 0);		/* cleared */
	assert_int_equal(report(&h, 31 * MS)->n, 2);	/* nothing new */
	h_free(&h);
}

/* A packet passed by three later acknowledged ones is lost (RFC 9002 packet
 * threshold): its flow, and only its flow, is told of the loss. */
static void test_lost_per_flow(void **state)
{
	struct harness h;
	const struct rec *r;

	(void)state;
	h_init(&h, &rec_ops);
	sent(&h, 0xbbbb, 500, MS);			/* pn 1: lost */
	for (int i = 0; i < 4; i++)
		sent(&h, 0xaaaa, 1000, MS);		/* pn 2..5 */
	ack(&h, 2, 5, 30 * MS);
	r = report(&h, 30 * MS);
	assert_int_equal(sum(r, 0xbbbb, true), 500);
	assert_int_equal(sum(r, 0xbbbb, false), 0);
	assert_int_equal(sum(r, 0xaaaa, false), 4000);
	assert_int_equal(sum(r, 0xaaaa, true), 0);
	mpt_pktq_purge(&h.p->lostq, &h.d->pool);
	h_free(&h);
}

/* More flows in one report than it holds: the first MPT_FLOWREP_MAX are told, none
 * twice, none with another's bytes. */
static void test_report_bounded(void **state)
{
	struct harness h;
	const struct rec *r;

	(void)state;
	h_init(&h, &rec_ops);
	for (uint32_t f = 1; f <= MPT_FLOWREP_MAX + 4; f++)
		sent(&h, f, 100 * f, MS);
	ack(&h, 1, MPT_FLOWREP_MAX + 4, 30 * MS);
	r = report(&h, 30 * MS);
	assert_int_equal(r->n, MPT_FLOWREP_MAX);
	for (unsigned i = 0; i < r->n; i++)
		assert_int_equal(r->call[i].acked, 100 * r->call[i].flow);
	h_free(&h);
}

/* exp3 takes the report: its stats say the core's per-flow feedback is in use. */
static void test_exp3_gets_feedback(void **state)
{
	struct harness h;

	(void)state;
	h_init(&h, mpt_sched_find("exp3"));
	mpt_sched_prepare(h.s->sched_priv, h.s->sched);
	sent(&h, 0xaaaa, 1000, MS);
	ack(&h, 1, 1, 30 * MS);
	assert_true(schedtest_stat(h.s->sched, h.s->sched_priv, "flow_reports", 0) == 0);
	mpt_session_flow_report(h.s, h.p, 30 * MS);
	assert_int_equal(h.p->nflowrep, 0);
	assert_true(schedtest_stat(h.s->sched, h.s->sched_priv, "flow_reports", 0) == 1);
	h_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acked_per_flow),
		cmocka_unit_test(test_lost_per_flow),
		cmocka_unit_test(test_report_bounded),
		cmocka_unit_test(test_exp3_gets_feedback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
