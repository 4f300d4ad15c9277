// SPDX-License-Identifier: MIT
/* minrtt: lowest smoothed RTT among the paths with room, unsampled paths first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

#define PKT	1500u
#define MS	MPT_NSEC_PER_MSEC

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

static void fix_init(struct fix *f, unsigned n, const uint64_t *srtt_ms, uint64_t cwnd_pkts)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < n; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = cwnd_pkts * PKT;
		f->paths[i].srtt_ns = srtt_ms[i] * MS;
	}
	f->ctx.paths = f->paths;
	f->ctx.npaths = n;
	f->ops = mpt_sched_find("minrtt");
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

static void test_lowest_srtt_until_full(void **state)
{
	static const uint64_t srtt[] = { 40, 10, 25 };
	static const int order[] = { 1, 2, 0 };
	const uint64_t cwnd = 6;
	struct fix f;

	fix_init(&f, 3, srtt, cwnd);
	for (unsigned k = 0; k < 3; k++)
		for (unsigned j = 0; j < cwnd; j++)
			assert_int_equal(send_one(&f), order[k]);
	assert_int_equal(send_one(&f), -1);
	/* the RTT ranking follows the estimates as they change */
	f.paths[0].in_flight = 0;
	f.paths[2].in_flight = 0;
	f.paths[0].srtt_ns = 5 * MS;
	assert_int_equal(send_one(&f), 0);
}

static void test_ties_and_down(void **state)
{
	static const uint64_t srtt[] = { 20, 20, 30 };
	struct fix f;

	fix_init(&f, 3, srtt, 1);
	assert_int_equal(send_one(&f), 0);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 2);
	fix_init(&f, 3, srtt, 1);
	f.paths[0].up = false;
	f.paths[1].up = false;
	assert_int_equal(send_one(&f), 2);
	assert_int_equal(send_one(&f), -1);
}

static void test_unsampled_tried_first(void **state)
{
	static const uint64_t srtt[] = { 10, 0, 50, 0 };
	struct fix f;

	fix_init(&f, 4, srtt, 2);
	/* both unsampled paths first (lower id first), bounded by their cwnd */
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 3);
	assert_int_equal(send_one(&f), 3);
	assert_int_equal(send_one(&f), 0);
	for (size_t i = 0; i < f.ops->nstats; i++)
		if (strcmp(f.ops->stats[i].name, "probes") == 0)
			assert_true(mpt_stat_read(&f.ops->stats[i], f.priv, 0) == 4);
	/* once sampled, path 1 is ranked by its RTT like the others */
	f.paths[1].srtt_ns = 60 * MS;
	f.paths[1].in_flight = 0;
	assert_int_equal(send_one(&f), 0);
	assert_int_equal(send_one(&f), 2);
	assert_int_equal(send_one(&f), 2);
	assert_int_equal(send_one(&f), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lowest_srtt_until_full),
		cmocka_unit_test(test_ties_and_down),
		cmocka_unit_test(test_unsampled_tried_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
