// SPDX-License-Identifier: MIT
/* cpf: strict priority by cost over synthetic path views (ACPF paper, section 3.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

#define PKT 1500u

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

static void fix_init(struct fix *f, unsigned n, const uint32_t *cost, uint64_t cwnd_pkts)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < n; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].cost = cost[i];
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = cwnd_pkts * PKT;
	}
	f->ctx.paths = f->paths;
	f->ctx.npaths = n;
	f->ctx.queue_pkts = 1;
	f->ops = mpt_sched_find("cpf");
	assert_non_null(f->ops);
	mpt_sched_prepare(f->priv, f->ops);
	schedtest_paper(f->ops, f->priv);
	f->ops->init(f->priv, &f->ctx);
}

/* One packet; accounted in flight on the chosen path. -1 = held. */
static int send_one(struct fix *f)
{
	int p = schedtest_send_one(f->ops, f->priv, &f->ctx, f->paths, PKT);

	assert_int_not_equal(p, -2);
	return p;
}

static void test_fills_cheapest_first(void **state)
{
	static const uint32_t cost[] = { 10, 1, 5 };
	static const int order[] = { 1, 2, 0 };
	struct fix f;
	const uint64_t cwnd = 10;

	fix_init(&f, 3, cost, cwnd);
	/* exactly one cwnd of packets per path, cheapest first, then hold */
	for (unsigned k = 0; k < 3; k++)
		for (unsigned j = 0; j < cwnd; j++)
			assert_int_equal(send_one(&f), order[k]);
	assert_int_equal(send_one(&f), -1);
}

static void test_overflow_only_when_full(void **state)
{
	static const uint32_t cost[] = { 1, 2 };
	struct fix f;

	fix_init(&f, 2, cost, 10);
	f.paths[0].in_flight = f.paths[0].cwnd - 1;	/* one byte of room: not full */
	assert_int_equal(send_one(&f), 0);
	f.paths[0].in_flight = f.paths[0].cwnd;		/* in_flight == cwnd: full */
	assert_int_equal(send_one(&f), 1);
	f.paths[0].in_flight = f.paths[0].cwnd + PKT;	/* above cwnd: full */
	assert_int_equal(send_one(&f), 1);
	/* an ACK frees room on the cheap path: traffic returns to it at once */
	f.paths[0].in_flight -= 2 * PKT;
	assert_int_equal(send_one(&f), 0);
}

static void test_ties_by_id(void **state)
{
	static const uint32_t cost[] = { 7, 3, 3, 3 };
	struct fix f;

	fix_init(&f, 4, cost, 2);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 2);
	assert_int_equal(send_one(&f), 2);
	assert_int_equal(send_one(&f), 3);
	assert_int_equal(send_one(&f), 3);
	assert_int_equal(send_one(&f), 0);
}

static void test_down_paths_skipped(void **state)
{
	static const uint32_t cost[] = { 1, 2, 3 };
	struct fix f;

	fix_init(&f, 3, cost, 10);
	f.paths[0].up = false;
	assert_int_equal(send_one(&f), 1);
	f.paths[1].up = false;
	assert_int_equal(send_one(&f), 2);
	f.paths[2].up = false;
	assert_int_equal(send_one(&f), -1);
	f.paths[0].up = true;
	assert_int_equal(send_one(&f), 0);
}

static void test_hold_when_all_full(void **state)
{
	static const uint32_t cost[] = { 1, 2 };
	struct fix f;
	const struct mpt_stat *holds = NULL;

	fix_init(&f, 2, cost, 4);
	for (unsigned i = 0; i < 8; i++)
		assert_int_not_equal(send_one(&f), -1);
	assert_int_equal(send_one(&f), -1);
	assert_int_equal(send_one(&f), -1);
	for (size_t i = 0; i < f.ops->nstats; i++)
		if (strcmp(f.ops->stats[i].name, "holds") == 0)
			holds = &f.ops->stats[i];
	assert_non_null(holds);
	assert_true(mpt_stat_read(holds, f.priv, 0) == 2);
	/* zero cwnd (controller not started) is full too */
	fix_init(&f, 2, cost, 0);
	assert_int_equal(send_one(&f), -1);
}

static void test_registry(void **state)
{
	char err[128];

	assert_int_equal(mpt_sched_registry_check(err, sizeof(err)), 0);
	for (const char *const *n = (const char *const[]){ "cpf", "acpf", "minrtt", "wrr",
							     NULL }; *n; n++)
		assert_non_null(mpt_sched_find(*n));
}

/* Small packets (inner TCP ACKs) with arrival awareness (the default): where they
 * arrive soonest when the cheapest path would deliver them much later (a thin cheap
 * uplink with a standing queue), on the cheapest path otherwise; full-size packets
 * keep cost order. */
static void test_small_packets_go_soonest(void **state)
{
	static const uint32_t cost[] = { 0, 1 };
	struct fix f;

	fix_init(&f, 2, cost, 10);
	assert_int_equal(schedtest_set(f.ops, f.priv, "arrival", "1"), 0);
	for (unsigned i = 0; i < 2; i++) {
		f.paths[i].btlbw = i ? 1000000 : 125000;	/* 8 and 1 Mbit/s */
		f.paths[i].delivery_rate = f.paths[i].btlbw;
	}
	/* cheap: 24 ms min RTT with 200 ms of queue; dear: 60 ms, no queue */
	f.paths[0].min_rtt_ns = 24000000;
	f.paths[0].srtt_ns = f.paths[0].latest_rtt_ns = 224000000;
	f.paths[1].min_rtt_ns = f.paths[1].srtt_ns = f.paths[1].latest_rtt_ns = 60000000;
	f.paths[0].in_flight = 3 * PKT;
	assert_int_equal(schedtest_send_one(f.ops, f.priv, &f.ctx, f.paths, 60), 1);
	/* both idle, the cheap path the faster: it keeps the small packets */
	f.paths[0].srtt_ns = f.paths[0].latest_rtt_ns = 24000000;
	f.paths[0].in_flight = 0;
	f.paths[1].in_flight = 0;
	assert_int_equal(schedtest_send_one(f.ops, f.priv, &f.ctx, f.paths, 60), 0);
}

/* A TCP SYN(-ACK) is small but goes where the data goes (cost order): on a 300 ms
 * cheap satellite next to a 30 ms LTE path, the inner TCP's handshake RTT must be the
 * data's, or its first window times out and HyStart ends slow start at once. Its pure
 * ACKs still go soonest. */
static void test_syn_goes_with_the_data(void **state)
{
	static const uint32_t cost[] = { 0, 1 };
	struct mpt_pkt_meta syn = { .len = 60, .proto = 6, .tcp_flags = 0x12 };
	struct mpt_pkt_meta ack = { .len = 52, .proto = 6, .tcp_flags = 0x10 };
	struct fix f;

	fix_init(&f, 2, cost, 10);
	assert_int_equal(schedtest_set(f.ops, f.priv, "arrival", "1"), 0);
	f.paths[0].btlbw = f.paths[0].delivery_rate = 12500000;	/* 100 Mbit/s */
	f.paths[1].btlbw = f.paths[1].delivery_rate = 2500000;	/* 20 Mbit/s */
	f.paths[0].min_rtt_ns = f.paths[0].srtt_ns = f.paths[0].latest_rtt_ns = 600000000;
	f.paths[1].min_rtt_ns = f.paths[1].srtt_ns = f.paths[1].latest_rtt_ns = 60000000;
	assert_int_equal(f.ops->pick(f.priv, &f.ctx, &syn), 1u << 0);
	syn.tcp_flags = 0x02;
	assert_int_equal(f.ops->pick(f.priv, &f.ctx, &syn), 1u << 0);
	assert_int_equal(f.ops->pick(f.priv, &f.ctx, &ack), 1u << 1);
	syn.proto = 17;		/* a UDP datagram with that byte: small */
	assert_int_equal(f.ops->pick(f.priv, &f.ctx, &syn), 1u << 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syn_goes_with_the_data),
		cmocka_unit_test(test_small_packets_go_soonest),
		cmocka_unit_test(test_fills_cheapest_first),
		cmocka_unit_test(test_overflow_only_when_full),
		cmocka_unit_test(test_ties_by_id),
		cmocka_unit_test(test_down_paths_skipped),
		cmocka_unit_test(test_hold_when_all_full),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
