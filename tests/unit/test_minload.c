// SPDX-License-Identifier: MIT
/*
 * minload: Min-Load of the axiomatic path-selection paper (sec. 3.2, strategy 2) on
 * hand-made views: the lowest in_flight / cwnd among the paths with room, from the
 * session's own load or (scope=aggregate) the core's sums over every session, with
 * the fallback to the session when the core leaves the sums empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

#define PKT	1000u
#define MS	MPT_NSEC_PER_MSEC

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

static void fix_init(struct fix *f, unsigned n, const uint64_t *cwnd_pkts, const char **kv)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < n; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = cwnd_pkts[i] * PKT;
		f->paths[i].srtt_ns = (10 + 10 * i) * MS;
	}
	f->ctx.paths = f->paths;
	f->ctx.npaths = n;
	f->ops = schedtest_setup("minload", f->priv, kv, &f->ctx);
	assert_non_null(f->ops);
}

static int send_one(struct fix *f)
{
	int p = schedtest_send_one(f->ops, f->priv, &f->ctx, f->paths, PKT);

	assert_int_not_equal(p, -2);
	return p;
}

/* Windows 2, 4, 8 packets: filling by lowest fraction gives each path a share of the
 * packets proportional to its window, ties to the lower RTT. */
static void test_session_load_fills_evenly(void **state)
{
	static const uint64_t cwnd[] = { 2, 4, 8 };
	unsigned count[3] = { 0 };
	struct fix f;
	int p;

	fix_init(&f, 3, cwnd, NULL);
	/* all at 0: the lowest RTT; then path 0 at 1/2 > 0 ... */
	assert_int_equal(send_one(&f), 0);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 2);
	while ((p = send_one(&f)) >= 0) {
		count[p]++;
		/* after every decision the picked path's load is within one packet of
		 * the lowest of the others */
	}
	assert_int_equal(count[0] + 1, 2);
	assert_int_equal(count[1] + 1, 4);
	assert_int_equal(count[2] + 1, 8);
	assert_true(schedtest_stat(f.ops, f.priv, "holds", 0) == 1);
	assert_true(schedtest_stat(f.ops, f.priv, "load", 2) == 1.0);
}

/* The aggregate: path 0 is lightly loaded by this session but heavily by the others;
 * scope=aggregate avoids it, scope=session takes it. */
static void test_aggregate_scope(void **state)
{
	static const uint64_t cwnd[] = { 10, 10 };
	static const char *agg[] = { "scope", "aggregate", NULL };
	struct fix f;

	fix_init(&f, 2, cwnd, NULL);
	f.paths[1].in_flight = 5 * PKT;
	f.paths[0].agg_in_flight = 900 * PKT, f.paths[0].agg_cwnd = 1000 * PKT;
	f.paths[1].agg_in_flight = 100 * PKT, f.paths[1].agg_cwnd = 1000 * PKT;
	assert_int_equal(send_one(&f), 0);

	fix_init(&f, 2, cwnd, agg);
	f.paths[1].in_flight = 5 * PKT;
	f.paths[0].agg_in_flight = 900 * PKT, f.paths[0].agg_cwnd = 1000 * PKT;
	f.paths[1].agg_in_flight = 100 * PKT, f.paths[1].agg_cwnd = 1000 * PKT;
	assert_int_equal(send_one(&f), 1);
	assert_true(schedtest_stat(f.ops, f.priv, "aggregate", 0) == 1);
	assert_true(schedtest_stat(f.ops, f.priv, "load", 0) == 0.9);
	/* room is still the session's own: path 1 full for this session */
	f.paths[1].in_flight = 10 * PKT;
	assert_int_equal(send_one(&f), 0);

	/* the core fills no sums (a UE): the session's load, counted as a fallback */
	f.paths[0].agg_cwnd = 0;
	f.paths[1].in_flight = 0;
	assert_int_equal(send_one(&f), 1);
	assert_true(schedtest_stat(f.ops, f.priv, "fallbacks", 0) == 1);
}

static void test_down_and_full(void **state)
{
	static const uint64_t cwnd[] = { 1, 1 };
	struct fix f;

	fix_init(&f, 2, cwnd, NULL);
	f.paths[0].up = false;
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_load_fills_evenly),
		cmocka_unit_test(test_aggregate_scope),
		cmocka_unit_test(test_down_and_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
