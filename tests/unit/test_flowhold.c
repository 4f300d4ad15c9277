// SPDX-License-Identifier: MIT
/*
 * Per-flow holding (src/core/flowhold.h, issue 14) through the session's scheduling
 * turn (mpt_session_schedule): a flow whose pinned path has no room waits aside and
 * the other flows go on; its packets leave later in their order; a packet gets its
 * data sequence number as it leaves, so a held flow leaves no hole at the receiver.
 * A scheduler that does not pin flows keeps the one FIFO. Real IPv4/UDP packets parsed
 * by pktmeta.c, a zeroed daemon with a real packet pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "daemon.h"
#include <mptund/param.h>
#include "pktmeta.h"

/* A scheduler that pins each new flow to the next path in turn and holds a packet
 * whose path is full: the smallest per-flow scheduler (exp3 pins by its weights). */
struct pin {
	uint32_t flow[32];
	unsigned n;
};

static uint32_t pin_pick(void *priv, const struct mpt_sched_ctx *ctx,
			 const struct mpt_pkt_meta *pkt)
{
	struct pin *p = priv;
	unsigned i;

	for (i = 0; i < p->n && p->flow[i] != pkt->flow_hash; i++)
		;
	if (i == p->n) {
		assert_true(p->n < 32);
		p->flow[p->n++] = pkt->flow_hash;
	}
	i %= ctx->npaths;
	return mpt_path_has_room(&ctx->paths[i], ctx->paths[i].cwnd) ? 1u << i : 0;
}

static void pin_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	(void)priv;
	(void)ctx;
}

static bool pin_per_flow(const void *priv)
{
	(void)priv;
	return true;
}

static const struct mpt_sched_ops pin_ops = {
	.name = "pin",
	.pick = pin_pick,
	.init = pin_init,
	.priv_size = sizeof(struct pin),
	.per_flow = pin_per_flow,
};

struct fixture {
	struct mpt_daemon *d;
	struct mpt_session *s;
	struct mpt_peer_config peer;
	struct mpt_siphash_key key;
	struct mpt_sched_ctx ctx;
	struct mpt_rng rng;
};

static void fx_init(struct fixture *f, const char *sched, const char *param,
		    const char *value)
{
	memset(f, 0, sizeof(*f));
	f->d = calloc(1, sizeof(*f->d));
	assert_non_null(f->d);
	f->d->cfg.queue_limit = 256;
	assert_int_equal(mpt_pkt_pool_init(&f->d->pool, 1024, 1500), 0);
	f->d->sessions = calloc(1, sizeof(*f->d->sessions));
	f->d->nsessions = 1;
	f->s = &f->d->sessions[0];
	f->s->d = f->d;
	f->s->peer = &f->peer;
	f->s->cur.valid = true;
	f->s->next_dsn = 1000;
	f->s->sched = sched ? mpt_sched_find(sched) : &pin_ops;
	assert_non_null(f->s->sched);
	f->s->sched_priv = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	memset(f->s->sched_priv, 0, MPT_SCHED_PRIV_SIZE);
	if (sched)
		mpt_sched_prepare(f->s->sched_priv, f->s->sched);
	if (param) {
		char err[128];

		assert_int_equal(mpt_param_parse(mpt_param_find(f->s->sched->params,
								f->s->sched->nparams, param),
						 f->s->sched_priv, value, err, sizeof(err)), 0);
	}
	for (unsigned i = 0; i < 2; i++) {
		struct mpt_path_view *v = &f->s->views[i];

		v->id = (uint8_t)i;
		v->up = true;
		v->cwnd = 1 << 20;
		v->mtu = 1500;
		v->srtt_ns = v->min_rtt_ns = 20 * MPT_NSEC_PER_MSEC;
	}
	f->ctx.paths = f->s->views;
	f->ctx.npaths = 2;
	f->ctx.now = 2000;
	f->ctx.rng = &f->rng;
	mpt_rng_seed(&f->rng, 1);
	f->s->sched->init(f->s->sched_priv, &f->ctx);
}

static void fx_free(struct fixture *f)
{
	mpt_pktq_purge(&f->s->squeue, &f->d->pool);
	mpt_sparse_free(&f->s->sparse, &f->d->pool);
	mpt_fhold_purge(&f->s->fhold, &f->d->pool);
	for (unsigned p = 0; p < MPT_MAX_PATHS; p++)
		mpt_pktq_purge(&f->s->paths[p].txq, &f->d->pool);
	free(f->s->sched_priv);
	free(f->d->sessions);
	mpt_pkt_pool_free(&f->d->pool);
	free(f->d);
}

/* One IPv4/UDP packet of flow `port` (its destination port) carrying `tag` in its
 * first payload byte, into the session as tunio.c hands it over. */
static void send_pkt(struct fixture *f, uint16_t port, uint8_t tag)
{
	struct mpt_pkt *p = mpt_pkt_alloc(&f->d->pool);
	struct mpt_pkt_info info;
	const char *why;
	uint8_t *b;

	assert_non_null(p);
	b = p->data;
	memset(b, 0, 128);
	p->len = 128;
	b[0] = 0x45;
	b[3] = 128;
	b[8] = 64;
	b[9] = 17;
	inet_pton(AF_INET, "10.7.0.2", b + 12);
	inet_pton(AF_INET, "198.51.100.1", b + 16);
	b[20] = 0x9c;			/* source port 40000 */
	b[21] = 0x40;
	b[22] = (uint8_t)(port >> 8);
	b[23] = (uint8_t)port;
	b[25] = 108;
	b[28] = tag;
	assert_int_equal(mpt_pktmeta_parse(&f->key, p->data, p->len, &info, &why), 0);
	p->meta = info.meta;
	mpt_session_enqueue(f->s, p, 1000);
}

static void run(struct fixture *f)
{
	mpt_session_schedule(f->s, &f->ctx, 0x3, 1500, f->ctx.now);
}

/* The path flow `port`'s packets went to (checks they all went to one), or -1. */
static int path_of(struct fixture *f, uint16_t port)
{
	int found = -1;

	for (unsigned i = 0; i < 2; i++)
		for (struct mpt_pkt *k = f->s->paths[i].txq.head; k; k = k->next)
			if (((unsigned)k->data[22] << 8 | k->data[23]) == port) {
				assert_true(found < 0 || found == (int)i);
				found = (int)i;
			}
	return found;
}

/* The tags of flow `port`'s packets queued on path i, in order, and their numbers
 * rising by one from the first. */
static unsigned tags_on(struct fixture *f, unsigned i, uint16_t port, uint8_t *tags,
			unsigned max)
{
	unsigned n = 0;

	for (struct mpt_pkt *k = f->s->paths[i].txq.head; k; k = k->next)
		if (((unsigned)k->data[22] << 8 | k->data[23]) == port && n < max)
			tags[n++] = k->data[28];
	return n;
}

/* Flows A (1111) and B (2222) pinned to the two paths. A's path fills: A's
 * packets wait aside, B's leave; the ones that left are numbered without a gap. A's
 * path has room again: A's packets leave in their order, ahead of A's newer ones. */
static void test_held_flow_does_not_hold_others(void **state)
{
	struct fixture f;
	uint8_t tags[16];
	uint64_t dsn0;
	int pa, pb;

	(void)state;
	fx_init(&f, NULL, NULL, NULL);
	send_pkt(&f, 1111, 0);
	send_pkt(&f, 2222, 0);
	run(&f);
	pa = path_of(&f, 1111);
	pb = path_of(&f, 2222);
	assert_true(pa >= 0 && pb >= 0 && pa != pb);

	f.s->views[pa].in_flight = f.s->views[pa].cwnd;	/* A's path is full */
	for (uint8_t t = 1; t <= 3; t++) {
		send_pkt(&f, 1111, t);
		send_pkt(&f, 2222, t);
	}
	dsn0 = f.s->next_dsn;
	run(&f);
	assert_null(f.s->squeue.head);
	assert_int_equal(f.s->fhold.pkts, 3);			/* A's, aside */
	assert_int_equal(tags_on(&f, (unsigned)pb, 2222, tags, 16), 4);	/* B's left */
	assert_int_equal(tags[3], 3);
	assert_int_equal(f.s->next_dsn - dsn0, 3);		/* no number for A's */
	assert_int_equal(f.s->fhold.set_aside, 3);

	send_pkt(&f, 1111, 4);		/* A's newest waits behind its older ones */
	run(&f);
	assert_int_equal(f.s->fhold.pkts, 4);
	assert_int_equal(tags_on(&f, (unsigned)pa, 1111, tags, 16), 1);

	f.s->views[pa].in_flight = 0;			/* room again */
	dsn0 = f.s->next_dsn;
	run(&f);
	assert_int_equal(f.s->fhold.pkts, 0);
	assert_int_equal(f.s->fhold.nslots, 0);
	assert_int_equal(tags_on(&f, (unsigned)pa, 1111, tags, 16), 5);
	for (uint8_t t = 0; t < 5; t++)
		assert_int_equal(tags[t], t);			/* in order */
	assert_int_equal(f.s->next_dsn - dsn0, 4);
	fx_free(&f);
}

/* Numbers follow the order packets leave in: every packet on the paths carries a
 * distinct number, and per path they rise. */
static void test_numbers_in_leaving_order(void **state)
{
	struct fixture f;
	uint64_t last[2] = { 0, 0 }, n = 0;

	(void)state;
	fx_init(&f, NULL, NULL, NULL);
	send_pkt(&f, 1111, 0);
	send_pkt(&f, 2222, 0);
	run(&f);
	f.s->views[path_of(&f, 1111)].in_flight = f.s->views[0].cwnd;
	for (uint8_t t = 1; t <= 5; t++) {
		send_pkt(&f, 1111, t);
		send_pkt(&f, 2222, t);
	}
	run(&f);
	f.s->views[path_of(&f, 1111)].in_flight = 0;
	run(&f);
	for (unsigned i = 0; i < 2; i++)
		for (struct mpt_pkt *k = f.s->paths[i].txq.head; k; k = k->next) {
			assert_true(k->dsn != MPT_DSN_UNSET);
			assert_true(k->dsn >= 1000 && k->dsn < 1012);
			assert_true(last[i] == 0 || k->dsn > last[i]);
			last[i] = k->dsn;
			n++;
		}
	assert_int_equal(n, 12);
	assert_int_equal(f.s->next_dsn, 1012);
	fx_free(&f);
}

/* Both paths' windows full: nothing may leave. */
static void fill_windows(struct fixture *f)
{
	for (unsigned i = 0; i < 2; i++)
		f->s->views[i].in_flight = f->s->views[i].cwnd;
}

/* A scheduler that does not pin flows keeps the one FIFO: its hold holds them all. */
static void test_fifo_for_per_packet_schedulers(void **state)
{
	struct fixture f;

	(void)state;
	fx_init(&f, "minrtt", NULL, NULL);
	fill_windows(&f);
	send_pkt(&f, 1111, 1);
	send_pkt(&f, 2222, 1);
	run(&f);
	assert_int_equal(f.s->squeue.pkts, 2);
	assert_int_equal(f.s->fhold.pkts, 0);
	assert_int_equal(f.s->next_dsn, 1000);
	fx_free(&f);
}

/* More flows held than slots: the one past the last slot holds the FIFO, nothing is
 * lost, and all leave once the paths have room. */
static void test_slots_full_holds_fifo(void **state)
{
	struct fixture f;
	unsigned total = 0;

	(void)state;
	fx_init(&f, NULL, NULL, NULL);
	fill_windows(&f);
	for (unsigned k = 0; k < MPT_FHOLD_FLOWS + 4; k++)
		send_pkt(&f, (uint16_t)(3000 + k), 1);
	run(&f);
	assert_int_equal(f.s->fhold.nslots, MPT_FHOLD_FLOWS);
	assert_int_equal(f.s->fhold.pkts + f.s->squeue.pkts, MPT_FHOLD_FLOWS + 4);
	assert_int_equal(f.s->squeue.pkts, 4);
	f.s->views[0].in_flight = f.s->views[1].in_flight = 0;
	run(&f);
	for (unsigned i = 0; i < 2; i++)
		total += f.s->paths[i].txq.pkts;
	assert_int_equal(total, MPT_FHOLD_FLOWS + 4);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	fx_free(&f);
}

/* The scheduler changed to one that does not pin flows: the held packets go back to
 * the queue and leave. */
static void test_release_on_scheduler_change(void **state)
{
	struct fixture f;

	(void)state;
	fx_init(&f, NULL, NULL, NULL);
	fill_windows(&f);
	send_pkt(&f, 1111, 1);
	send_pkt(&f, 2222, 1);
	run(&f);
	assert_int_equal(f.s->fhold.pkts, 2);
	f.s->sched = mpt_sched_find("rr");
	mpt_sched_prepare(f.s->sched_priv, f.s->sched);
	f.s->sched->init(f.s->sched_priv, &f.ctx);
	f.s->views[0].in_flight = f.s->views[1].in_flight = 0;
	run(&f);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	assert_int_equal(f.s->paths[0].txq.pkts + f.s->paths[1].txq.pkts, 2);
	fx_free(&f);
}

/* The schedulers that pin flows say so; the per-packet ones do not. */
static void test_which_schedulers_pin(void **state)
{
	struct fixture f;

	(void)state;
	fx_init(&f, "exp3", NULL, NULL);
	assert_true(f.s->sched->per_flow && f.s->sched->per_flow(f.s->sched_priv));
	fx_free(&f);
	fx_init(&f, "egreedy", "granularity", "flow");
	assert_true(f.s->sched->per_flow(f.s->sched_priv));
	fx_free(&f);
	fx_init(&f, "egreedy", NULL, NULL);
	assert_false(f.s->sched->per_flow(f.s->sched_priv));
	fx_free(&f);
	for (const char *n = "cpf"; n; n = strcmp(n, "cpf") == 0 ? "minrtt" : NULL) {
		fx_init(&f, n, NULL, NULL);
		assert_null(f.s->sched->per_flow);
		fx_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_flow_does_not_hold_others),
		cmocka_unit_test(test_numbers_in_leaving_order),
		cmocka_unit_test(test_fifo_for_per_packet_schedulers),
		cmocka_unit_test(test_slots_full_holds_fifo),
		cmocka_unit_test(test_release_on_scheduler_change),
		cmocka_unit_test(test_which_schedulers_pin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
