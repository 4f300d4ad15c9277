// SPDX-License-Identifier: MIT
/*
 * The sparse-flow lane of the scheduler queue (src/core/sparse.h, RFC 8290 4.1-4.2)
 * through the session's scheduling turn (mpt_session_enqueue, mpt_session_schedule): a
 * ping enqueued behind a bulk backlog leaves first; a flow's packets never change
 * order (their data sequence numbers follow their arrival), with a per-packet and a
 * per-flow scheduler; a greedy flow does not stay in the lane; the lane is not
 * tail-dropped by a full bulk lane; SparseFlows = no keeps the one FIFO. Real IPv4
 * packets parsed by pktmeta.c, a zeroed daemon with a real packet pool, one path whose
 * room a gate scheduler hands out packet by packet.
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
#include "pktmeta.h"

#define PING	7		/* the ping's "port": its flow in the tags */

/* A scheduler that sends `allow` packets on path 0, then holds; with per_flow, the
 * flows whose port bit is in `blocked` are held (their path full) and set aside. */
struct gate {
	unsigned allow;
	uint32_t blocked;	/* bit (port % 32) */
	bool per_flow;
	bool in_order;		/* the in-order take (session_tx.c), as minrtt's */
	uint32_t path;		/* the path it picks (bit); 0: path 0 */
};

static uint16_t port_of(const struct mpt_pkt_meta *m);

static uint32_t gate_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct gate *g = priv;

	(void)ctx;
	if (g->per_flow && (g->blocked >> (port_of(pkt) % 32) & 1))
		return 0;
	if (!g->allow)
		return 0;
	g->allow--;
	return g->path ? g->path : 1;
}

static void gate_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	(void)priv;
	(void)ctx;
}

static bool gate_per_flow(const void *priv)
{
	return ((const struct gate *)priv)->per_flow;
}

static bool gate_in_order(const void *priv)
{
	return ((const struct gate *)priv)->in_order;
}

static const struct mpt_sched_ops gate_ops = {
	.name = "gate",
	.pick = gate_pick,
	.init = gate_init,
	.priv_size = sizeof(struct gate),
	.per_flow = gate_per_flow,
	.in_order = gate_in_order,
};

/* flow_hash -> port, for the gate (the fixture's flows are few) */
static struct {
	uint32_t hash[64];
	uint16_t port[64];
	unsigned n;
} flows;

static void learn(uint32_t hash, uint16_t port)
{
	for (unsigned i = 0; i < flows.n; i++)
		if (flows.hash[i] == hash)
			return;
	assert_true(flows.n < 64);
	flows.hash[flows.n] = hash;
	flows.port[flows.n++] = port;
}

static uint16_t port_of(const struct mpt_pkt_meta *m)
{
	for (unsigned i = 0; i < flows.n; i++)
		if (flows.hash[i] == m->flow_hash)
			return flows.port[i];
	fail_msg("unknown flow");
	return 0;
}

struct fixture {
	struct mpt_daemon *d;
	struct mpt_session *s;
	struct mpt_peer_config peer;
	struct mpt_siphash_key key;
	struct mpt_sched_ctx ctx;
	struct mpt_rng rng;
	struct gate *g;
	uint16_t next_tag[64];		/* per port */
	uint64_t enq_ns;		/* when send_pkt's packets come */
};

static void fx_init(struct fixture *f, bool sparse, uint32_t queue_limit)
{
	memset(f, 0, sizeof(*f));
	memset(&flows, 0, sizeof(flows));
	f->d = calloc(1, sizeof(*f->d));
	assert_non_null(f->d);
	f->d->cfg.queue_limit = queue_limit;
	f->d->cfg.sparse_flows = sparse;
	assert_int_equal(mpt_pkt_pool_init(&f->d->pool, 4096, 1500), 0);
	f->d->sessions = calloc(1, sizeof(*f->d->sessions));
	f->d->nsessions = 1;
	f->s = &f->d->sessions[0];
	f->s->d = f->d;
	f->s->peer = &f->peer;
	f->s->cur.valid = true;
	f->s->next_dsn = 1000;
	f->s->sched = &gate_ops;
	f->s->sched_priv = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	memset(f->s->sched_priv, 0, MPT_SCHED_PRIV_SIZE);
	f->g = f->s->sched_priv;
	f->s->views[0] = (struct mpt_path_view){ .id = 0, .up = true, .cwnd = 1 << 30,
						  .mtu = 1500 };
	f->s->npaths = 1;
	f->ctx.paths = f->s->views;
	f->ctx.npaths = 1;
	f->ctx.now = 2000;
	f->enq_ns = 1000;
	f->ctx.rng = &f->rng;
	mpt_rng_seed(&f->rng, 1);
}

static void fx_free(struct fixture *f)
{
	mpt_pktq_purge(&f->s->squeue, &f->d->pool);
	mpt_sparse_free(&f->s->sparse, &f->d->pool);
	mpt_fhold_purge(&f->s->fhold, &f->d->pool);
	mpt_pktq_purge(&f->s->paths[0].txq, &f->d->pool);
	mpt_pktq_purge(&f->s->paths[1].txq, &f->d->pool);
	free(f->s->sched_priv);
	free(f->d->sessions);
	mpt_pkt_pool_free(&f->d->pool);
	free(f->d);
}

/* One IPv4 packet of flow `port` (UDP to that port; PING: an ICMP echo request),
 * len bytes, carrying its flow's next tag (a count from 0) in bytes 28-29; returns
 * the tag. Into the session as tunio.c hands it over. */
static uint16_t send_pkt(struct fixture *f, uint16_t port, uint32_t len)
{
	struct mpt_pkt *p = mpt_pkt_alloc(&f->d->pool);
	uint16_t tag = f->next_tag[port % 64]++;
	struct mpt_pkt_info info;
	const char *why;
	uint8_t *b;

	assert_non_null(p);
	b = p->data;
	memset(b, 0, len);
	p->len = len;
	b[0] = 0x45;
	b[2] = (uint8_t)(len >> 8);
	b[3] = (uint8_t)len;
	b[8] = 64;
	b[9] = port == PING ? 1 : 17;
	inet_pton(AF_INET, "10.7.0.2", b + 12);
	inet_pton(AF_INET, "198.51.100.1", b + 16);
	if (port == PING) {
		b[20] = 8;			/* echo request */
	} else {
		b[20] = 0x9c;			/* source port 40000 */
		b[21] = 0x40;
		b[22] = (uint8_t)(port >> 8);
		b[23] = (uint8_t)port;
		b[24] = (uint8_t)((len - 20) >> 8);
		b[25] = (uint8_t)(len - 20);
	}
	b[28] = (uint8_t)(tag >> 8);
	b[29] = (uint8_t)tag;
	assert_int_equal(mpt_pktmeta_parse(&f->key, p->data, p->len, &info, &why), 0);
	p->meta = info.meta;
	p->meta.len = p->len;
	learn(p->meta.flow_hash, port);
	mpt_session_enqueue(f->s, p, f->enq_ns);
	return tag;
}

/* A scheduling turn with room for n packets (the gate's). */
static void run(struct fixture *f, unsigned n)
{
	f->g->allow = n;
	mpt_session_schedule(f->s, &f->ctx, 0x1, 1500, f->ctx.now);
}

static uint16_t pkt_port(const struct mpt_pkt *k)
{
	return k->data[9] == 1 ? PING : (uint16_t)(k->data[22] << 8 | k->data[23]);
}

static uint16_t pkt_tag(const struct mpt_pkt *k)
{
	return (uint16_t)(k->data[28] << 8 | k->data[29]);
}

/* The packets on the path, in the order they left: numbered consecutively from
 * first_dsn, and each flow's tags rising by one from 0 (no flow reordered, none lost).
 * Returns how many. */
static unsigned check_left_in_order(struct fixture *f, uint64_t first_dsn)
{
	uint16_t want[64] = { 0 };
	uint64_t dsn = first_dsn;
	unsigned n = 0;

	for (struct mpt_pkt *k = f->s->paths[0].txq.head; k; k = k->next, n++) {
		uint16_t port = pkt_port(k);

		assert_int_equal(k->dsn, dsn++);
		if (pkt_tag(k) != want[port % 64])
			fail_msg("flow %u: tag %u left where %u was due (dsn %llu)", port,
				 pkt_tag(k), want[port % 64], (unsigned long long)k->dsn);
		want[port % 64]++;
	}
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(want[i], f->next_tag[i]);
	return n;
}

/* A ping enqueued behind a backlog of 299 packets of a bulk flow leaves first, not 299
 * packets later; then the bulk leaves in its order, and the numbers have no gap. */
static void test_ping_passes_bulk_backlog(void **state)
{
	struct fixture f;
	struct mpt_pkt *k;

	(void)state;
	fx_init(&f, true, 1024);
	for (unsigned i = 0; i < 300; i++)
		send_pkt(&f, 5001, 1400);
	run(&f, 1);			/* its first (sparse then) left; the path is full */
	assert_int_equal(f.s->squeue.pkts, 299);
	send_pkt(&f, PING, 84);
	assert_int_equal(mpt_session_waiting(f.s), 300);
	run(&f, 1);
	k = f.s->paths[0].txq.tail;
	assert_int_equal(pkt_port(k), PING);
	assert_int_equal(k->dsn, 1001);		/* the second to leave */
	assert_int_equal(f.s->st.sparse_pkts, 1);	/* the ping passed a backlog */
	assert_int_equal(f.s->squeue.pkts, 299);
	run(&f, 1000);
	assert_int_equal(check_left_in_order(&f, 1000), 301);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	fx_free(&f);
}

/* SparseFlows = no: the one FIFO, the ping waits its turn. */
static void test_off_keeps_fifo(void **state)
{
	struct fixture f;
	struct mpt_pkt *k;

	(void)state;
	fx_init(&f, false, 1024);
	for (unsigned i = 0; i < 300; i++)
		send_pkt(&f, 5001, 1400);
	send_pkt(&f, PING, 84);
	run(&f, 2);
	k = f.s->paths[0].txq.head;
	assert_int_equal(pkt_port(k), 5001);
	assert_int_equal(pkt_port(k->next), 5001);
	assert_int_equal(f.s->st.sparse_pkts, 0);
	run(&f, 1000);
	assert_int_equal(check_left_in_order(&f, 1000), 301);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), PING);
	fx_free(&f);
}

/*
 * Flows of every kind mixed (a greedy one, bursts, small packets, pings), the room
 * given out at random, over 400 turns; with a per-flow scheduler, flows blocked and
 * unblocked at random too (set aside, flowhold.h), and now and then released. Every
 * packet leaves, numbered in
 * the order it left, and no flow's packets change order, while the lane was used.
 */
static void mixed_flows(bool per_flow)
{
	static const uint16_t port[] = { 5001, 5002, 5003, PING, 5005 };
	struct fixture f;
	uint64_t seed = 42;

	fx_init(&f, true, 4096);
	f.g->per_flow = per_flow;
	for (unsigned step = 0; step < 400; step++) {
		unsigned r;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (unsigned)(seed >> 33);
		send_pkt(&f, 5001, 1400);			/* greedy */
		send_pkt(&f, 5001, 1400);
		if (r % 3 == 0)
			for (unsigned i = 0; i < 3; i++)	/* bursts */
				send_pkt(&f, 5002, 600);
		if (r % 5 == 0)
			send_pkt(&f, 5003, 200);
		if (r % 7 == 0)
			send_pkt(&f, PING, 84);
		if (r % 4 == 0) {		/* sizes mixed in a flow */
			send_pkt(&f, 5005, 100);
			send_pkt(&f, 5005, 1500);
			send_pkt(&f, 5005, 100);
		}
		if (per_flow) {
			f.g->blocked = (r >> 8) & (1u << (port[(r >> 4) % 5] % 32));
			/* now and then it stops pinning: the flows set aside go back
			 * to the bulk lane's front (mpt_fhold_release) */
			f.g->per_flow = (r >> 20) % 4 != 0;
		}
		run(&f, (r >> 12) % 6);
	}
	f.g->blocked = 0;
	run(&f, 100000);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	check_left_in_order(&f, 1000);
	assert_true(f.s->st.sparse_pkts > 50);		/* the lane was used */
	if (per_flow)
		assert_true(f.s->fhold.set_aside > 0);	/* and flows were set aside */
	fx_free(&f);
}

static void test_flows_never_reorder(void **state)
{
	(void)state;
	mixed_flows(false);
}

static void test_flows_never_reorder_per_flow(void **state)
{
	(void)state;
	mixed_flows(true);
}

/*
 * A greedy flow (more than a quantum a round, its backlog standing) does not stay in
 * the lane: only its first packet took it, though the bulk lane sent many rounds
 * meanwhile; a ping still goes ahead of its backlog.
 */
static void test_greedy_flow_goes_bulk(void **state)
{
	struct fixture f;
	struct mpt_pkt *k;

	(void)state;
	fx_init(&f, true, 1024);
	for (unsigned step = 0; step < 100; step++) {
		for (unsigned i = 0; i < 4; i++)
			send_pkt(&f, 5001, 1400);
		/* only its very first packet took the lane */
		assert_int_equal(f.s->sparse.q.pkts, step == 0);
		run(&f, 3);				/* its backlog grows */
	}
	assert_int_equal(f.s->squeue.pkts, 100);	/* all of its backlog bulk */
	assert_int_equal(f.s->sparse.q.pkts, 0);
	assert_int_equal(f.s->st.sparse_pkts, 0);
	send_pkt(&f, PING, 84);
	run(&f, 1);
	k = f.s->paths[0].txq.tail;
	assert_int_equal(pkt_port(k), PING);
	assert_int_equal(f.s->st.sparse_pkts, 1);
	run(&f, 1000);
	check_left_in_order(&f, 1000);
	fx_free(&f);
}

/* A flow that sent its quantum in a round goes bulk, behind the backlog, even with
 * nothing waiting (RFC 8290 4.2: a new flow whose deficit ran out is an old one);
 * once the bulk lane has sent a quantum since, it is sparse again. */
static void test_quantum_per_round(void **state)
{
	struct fixture f;

	(void)state;
	fx_init(&f, true, 1024);
	for (unsigned i = 0; i < 20; i++)
		send_pkt(&f, 5001, 1400);	/* the first sparse, a backlog of 19 */
	run(&f, 1);
	send_pkt(&f, 5002, 1000);		/* a fresh quantum: sparse */
	assert_int_equal(f.s->sparse.q.pkts, 1);
	run(&f, 1);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), 5002);
	send_pkt(&f, 5002, 1000);		/* 500 bytes left, no new round: bulk */
	assert_int_equal(f.s->sparse.q.pkts, 0);
	assert_int_equal(f.s->squeue.pkts, 20);
	for (unsigned i = 0; i < 20; i++)
		send_pkt(&f, 5001, 1400);
	run(&f, 19);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), 5001);	/* behind them */
	run(&f, 1);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), 5002);
	send_pkt(&f, 5002, 1000);		/* rounds passed: sparse again */
	assert_int_equal(f.s->sparse.q.pkts, 1);
	assert_int_equal(f.s->st.sparse_pkts, 2);
	run(&f, 1);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), 5002);
	run(&f, 100);
	assert_int_equal(check_left_in_order(&f, 1000), 43);
	fx_free(&f);
}

/* Two paths as on sat-lte-down: 0 fast (20 ms, 2.5 MB/s, carrying data), 1 slow
 * (600 ms): a packet on 1 arrives after ~725 kB that 0 delivers meanwhile. */
static void two_paths(struct fixture *f)
{
	f->g->in_order = true;
	f->s->npaths = f->ctx.npaths = 2;
	f->s->views[0] = (struct mpt_path_view){ .id = 0, .up = true, .cwnd = 1 << 30,
						  .mtu = 1500, .in_flight = 1500,
						  .srtt_ns = 20000000, .btlbw = 2500000 };
	f->s->views[1] = (struct mpt_path_view){ .id = 1, .up = true, .cwnd = 1 << 30,
						  .mtu = 1500, .srtt_ns = 600000000,
						  .btlbw = 12500000 };
}

/* A scheduling turn over both paths: n packets on the path(s) of mask. */
static void run_on(struct fixture *f, unsigned n, uint32_t mask)
{
	f->g->allow = n;
	f->g->path = mask;
	mpt_session_schedule(f->s, &f->ctx, 0x3, 1500, f->ctx.now);
}

/*
 * A ping in the sparse lane, picked for the slow path while the fast one carries a
 * backlog's packets: sent from the lane's head it would arrive ~290 ms after the
 * packets numbered after it on the fast path, and the receiver would hold them all
 * for it. The lane goes to the bulk lane's front instead; the in-order take sends a
 * packet far into the backlog on the slow path and numbers the ping before it; the
 * ping leaves first on the fast path.
 */
static void test_sparse_head_not_late(void **state)
{
	struct fixture f;
	struct mpt_pkt *k;

	(void)state;
	fx_init(&f, true, 1024);
	two_paths(&f);
	for (unsigned i = 0; i < 200; i++)
		send_pkt(&f, 5001, 1400);
	run_on(&f, 1, 0x1);			/* its first (sparse then) leaves */
	send_pkt(&f, PING, 84);
	assert_int_equal(f.s->sparse.q.pkts, 1);
	run_on(&f, 1, 0x2);
	k = f.s->paths[1].txq.head;
	assert_non_null(k);
	assert_int_equal(pkt_port(k), 5001);		/* not the ping */
	assert_int_equal(f.s->st.sparse_demoted, 1);
	assert_int_equal(f.s->st.in_order_takes, 1);
	assert_int_equal(pkt_port(f.s->squeue.head), PING);	/* at the front */
	assert_true(f.s->squeue.head->dsn < k->dsn);	/* numbered before it */
	run_on(&f, 1, 0x1);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), PING);
	run_on(&f, 1000, 0x1);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	fx_free(&f);
}

/*
 * A ping that came while a run numbered by an in-order take waits (below: it waits
 * for that run) joins the next run: the next in-order take numbers it right after
 * the packets numbered already and before its own slow-path packet, and it leaves
 * next on the fast path. Before, the lane was served only once no numbered packet
 * was left at the bulk lane's head, which every in-order take pushed further away:
 * the ping waited as long as the queue stood.
 */
static void test_sparse_joins_next_run(void **state)
{
	struct fixture f;
	struct mpt_pkt *k, *ping = NULL;
	uint64_t slow1, slow2;

	(void)state;
	fx_init(&f, true, 1024);
	two_paths(&f);
	for (unsigned i = 0; i < 1000; i++)
		send_pkt(&f, 5001, 1400);
	run_on(&f, 1, 0x1);			/* tag 0 (sparse then) */
	run_on(&f, 1, 0x2);			/* run A numbered, one on the slow path */
	slow1 = f.s->paths[1].txq.tail->dsn;
	assert_int_equal(f.s->st.in_order_takes, 1);
	send_pkt(&f, PING, 84);
	assert_int_equal(f.s->sparse.q.pkts, 1);
	run_on(&f, 1, 0x2);			/* the next in-order take */
	assert_int_equal(f.s->st.in_order_takes, 2);
	assert_int_equal(f.s->sparse.q.pkts, 0);
	assert_int_equal(f.s->st.sparse_joined, 1);
	slow2 = f.s->paths[1].txq.tail->dsn;
	assert_int_not_equal(pkt_port(f.s->paths[1].txq.tail), PING);
	for (k = f.s->squeue.head; k; k = k->next)
		if (pkt_port(k) == PING)
			ping = k;
	assert_non_null(ping);
	assert_true(ping->dsn > slow1 && ping->dsn < slow2);
	/* it leaves on the fast path behind run A only, in DSN order */
	run_on(&f, 2000, 0x1);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	{
		uint64_t last = 0;

		for (k = f.s->paths[0].txq.head; k; k = k->next) {
			assert_true(k->dsn > last);
			last = k->dsn;
		}
	}
	fx_free(&f);
}

/*
 * The packets the in-order take numbered early (due on the fast path before the slow
 * path's packet arrives) leave before the sparse lane: a ping sent ahead of them would
 * be numbered past the slow path's packet, and the receiver would hold it for them all
 * or, that number too far ahead, give up the holes below it. The ping leaves right
 * after them, ahead of the packets not numbered yet, and every packet on the fast path
 * is numbered below the slow path's or above it in the order it left.
 */
static void test_numbered_before_sparse(void **state)
{
	struct fixture f;
	uint64_t slow_dsn, last = 0;
	unsigned n = 0;

	(void)state;
	fx_init(&f, true, 1024);
	two_paths(&f);
	for (unsigned i = 0; i < 200; i++)
		send_pkt(&f, 5001, 1400);
	run_on(&f, 1, 0x1);			/* tag 0 (sparse then) */
	send_pkt(&f, 5001, 1400);		/* tag 200 */
	run_on(&f, 1, 0x2);			/* the tail, on the slow path */
	slow_dsn = f.s->paths[1].txq.head->dsn;
	assert_int_equal(pkt_tag(f.s->paths[1].txq.head), 200);
	assert_int_equal(f.s->squeue.head->dsn, 1001);	/* 1-199 numbered early */
	for (unsigned i = 0; i < 10; i++)
		send_pkt(&f, 5001, 1400);	/* tags 201-210, not numbered */
	send_pkt(&f, PING, 84);
	assert_int_equal(f.s->sparse.q.pkts, 1);
	run_on(&f, 199, 0x1);
	assert_int_equal(f.s->sparse.q.pkts, 1);	/* the ping waited for them */
	assert_int_equal(pkt_tag(f.s->paths[0].txq.tail), 199);
	run_on(&f, 1, 0x1);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), PING);	/* then it */
	assert_int_equal(f.s->paths[0].txq.tail->dsn, slow_dsn + 1);
	run_on(&f, 100, 0x1);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	for (struct mpt_pkt *k = f.s->paths[0].txq.head; k; k = k->next, n++) {
		assert_true(k->dsn > last);
		last = k->dsn;
	}
	assert_int_equal(n, 1 + 199 + 1 + 10);
	fx_free(&f);
}

/*
 * A packet the in-order take numbered early still waits for its flow. Two paths as on
 * sat-lte-down: 0 fast (20 ms, 2.5 MB/s, carrying data), 1 slow (600 ms). A pick of
 * the slow path takes the bulk lane's packet that far in (here its tail) and numbers
 * the ones it passes, which stay queued for the fast path. The flow's next packet is
 * not sparse: it would leave on the fast path ahead of them (and they, later or on
 * the slow path, would hold the receiver's reorder buffer behind it).
 */
static void test_numbered_still_waiting(void **state)
{
	struct fixture f;
	struct mpt_pkt *k;

	(void)state;
	fx_init(&f, true, 1024);
	two_paths(&f);
	for (unsigned i = 0; i < 10; i++)
		send_pkt(&f, 5001, 1400);	/* tag 0 sparse, 1-9 bulk */
	run_on(&f, 1, 0x1);			/* tag 0, fast */
	run_on(&f, 1, 0x2);
	k = f.s->paths[1].txq.head;
	assert_int_equal(f.s->st.in_order_takes, 1);
	assert_int_equal(pkt_tag(k), 9);		/* the tail, on the slow path */
	assert_int_equal(k->dsn, 1009);			/* tags 1-8 numbered before it */
	assert_int_equal(f.s->squeue.pkts, 8);
	run_on(&f, 1, 0x1);			/* tag 1: a round */
	send_pkt(&f, 5001, 1400);		/* tag 10: behind tags 2-8, bulk */
	assert_int_equal(f.s->sparse.q.pkts, 0);
	assert_int_equal(f.s->squeue.pkts, 8);
	run_on(&f, 1, 0x1);
	assert_int_equal(pkt_tag(f.s->paths[0].txq.tail), 2);	/* not tag 10 */
	run_on(&f, 100, 0x1);
	assert_int_equal(mpt_session_waiting(f.s), 0);
	assert_int_equal(pkt_tag(f.s->paths[0].txq.tail), 10);
	assert_int_equal(f.s->paths[0].txq.tail->dsn, 1010);
	assert_int_equal(f.s->st.sparse_pkts, 0);
	fx_free(&f);
}

/* The bulk lane full (QueueLimit): a greedy flow's packets are tail-dropped, a ping
 * is not, and leaves first. */
static void test_sparse_not_tail_dropped(void **state)
{
	struct fixture f;

	(void)state;
	fx_init(&f, true, 16);
	for (unsigned i = 0; i < 20; i++)
		send_pkt(&f, 5001, 1400);
	assert_int_equal(f.s->st.queue_drops, 3);	/* 1 sparse + 16 bulk kept */
	send_pkt(&f, PING, 84);
	assert_int_equal(f.s->st.queue_drops, 3);
	assert_int_equal(mpt_session_waiting(f.s), 18);
	run(&f, 2);
	assert_int_equal(pkt_port(f.s->paths[0].txq.tail), PING);
	fx_free(&f);
}

/* The clock at ms milliseconds, for the scheduling turns and the packets that come. */
static void at_ms(struct fixture *f, uint64_t ms)
{
	f->ctx.now = ms * MPT_NSEC_PER_MSEC;
	f->enq_ns = f->ctx.now;
}

/*
 * The standing-queue test (standing.h) takes the bulk lane's wait, not the sparse
 * lane's: a backlog whose head waits ever longer (one packet a millisecond leaves)
 * stands once it waited above 5 ms for 100 ms, though a ping passes it every 20 ms,
 * held a turn first (every path full). Before, each ping's wait of ~0 restarted the
 * run above target: with bench-dataplane's loaded-RTT ping beside a greedy flow the
 * queue never stood, and cpf left its second path idle.
 */
static void test_ping_does_not_reset_standing(void **state)
{
	struct fixture f;

	(void)state;
	fx_init(&f, true, 4096);
	for (unsigned i = 0; i < 400; i++)
		send_pkt(&f, 5001, 1400);
	for (uint64_t ms = 1; ms <= 160; ms++) {
		at_ms(&f, ms);
		send_pkt(&f, 5001, 1400);
		if (ms % 20 == 0) {
			send_pkt(&f, PING, 84);
			run(&f, 0);		/* held: every path full */
		}
		run(&f, ms % 20 == 0 ? 2 : 1);
		if (ms == 100)		/* above 5 ms since 6 ms: not yet 100 ms */
			assert_false(f.s->standing.on);
	}
	assert_true(f.s->st.sparse_pkts >= 7);		/* the pings passed the backlog */
	assert_true(f.s->standing.on);
	assert_int_equal(f.s->standing.starts, 1);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ping_passes_bulk_backlog),
		cmocka_unit_test(test_off_keeps_fifo),
		cmocka_unit_test(test_flows_never_reorder),
		cmocka_unit_test(test_flows_never_reorder_per_flow),
		cmocka_unit_test(test_greedy_flow_goes_bulk),
		cmocka_unit_test(test_quantum_per_round),
		cmocka_unit_test(test_sparse_not_tail_dropped),
		cmocka_unit_test(test_numbered_still_waiting),
		cmocka_unit_test(test_sparse_head_not_late),
		cmocka_unit_test(test_numbered_before_sparse),
		cmocka_unit_test(test_sparse_joins_next_run),
		cmocka_unit_test(test_ping_does_not_reset_standing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
