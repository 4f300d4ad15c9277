// SPDX-License-Identifier: MIT
/*
 * blest: BLEST (Ferlin et al., IFIP Networking 2016, sec. III) on hand-made views:
 * the fast path first, a slower one only when the fast path's estimated sending
 * during the slow RTT (x lambda) fits in the rest of the send window, and lambda's
 * adaptation with the constants of the authors' mptcp_blest.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

#define PKT	1200u
#define MS	MPT_NSEC_PER_MSEC

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

/* Path 0: fast, 10 ms, cwnd 10 packets; path 1: slow, 50 ms, cwnd 10 packets. */
static void fix_init(struct fix *f, const char **kv)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < 2; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = 10 * PKT;
		f->paths[i].cc_state = MPT_CC_PROBE_BW;
	}
	f->paths[0].srtt_ns = 10 * MS;
	f->paths[1].srtt_ns = 50 * MS;
	f->ctx.paths = f->paths;
	f->ctx.npaths = 2;
	f->ctx.now = 1000 * MS;
	f->ops = schedtest_setup("blest", f->priv, kv, &f->ctx);
	assert_non_null(f->ops);
}

static int send_one(struct fix *f)
{
	int p = schedtest_send_one(f->ops, f->priv, &f->ctx, f->paths, PKT);

	assert_int_not_equal(p, -2);
	return p;
}

static double stat(struct fix *f, const char *name)
{
	return schedtest_stat(f->ops, f->priv, name, 0);
}

/* The module's constants, by literal value. */
static void test_defaults_are_the_authors(void **state)
{
	struct fix f;

	fix_init(&f, NULL);
	assert_true(stat(&f, "lambda") == 1.2);
	for (size_t i = 0; i < f.ops->nparams; i++) {
		const struct mpt_param *p = &f.ops->params[i];
		double v = mpt_param_get(p, f.priv);

		if (strcmp(p->name, "lambda_min") == 0)
			assert_true(v == 1.0);
		if (strcmp(p->name, "lambda_max") == 0)
			assert_true(v == 1.3);
		if (strcmp(p->name, "lambda_good") == 0)
			assert_true(v == 0.01);
		if (strcmp(p->name, "lambda_bad") == 0)
			assert_true(v == 0.04);
		if (strcmp(p->name, "window_pkts") == 0)	/* ReorderBuffer's default */
			assert_true(v == 1024);
	}
}

/* The fast path while it has room, whatever the window. */
static void test_fast_first(void **state)
{
	static const char *kv[] = { "window_pkts", "0.001", NULL };
	struct fix f;

	fix_init(&f, kv);
	for (unsigned k = 0; k < 10; k++)
		assert_int_equal(send_one(&f), 0);
	/* full, and a window of 1 byte: the slow path would block it */
	assert_int_equal(send_one(&f), -1);
	assert_true(stat(&f, "blocked") == 1);
	assert_true(stat(&f, "fast_picks") == 10);
}

/*
 * Eq. 1-2 at the boundary. rtts = 50 / 10 + 1 = 6, X = PKT x (10 + 5 / 2) x 6 =
 * 75 PKT; lambda 1.2 -> 90 PKT. The slow path is used iff 90 PKT <= W - (inflight_s +
 * PKT): with W = 91.5 PKT one packet fits, the next (inflight_s 1 PKT) does not.
 */
static void test_blocking_estimate(void **state)
{
	static const char *kv[] = { "window_pkts", "91.5", NULL };
	struct fix f;

	fix_init(&f, kv);
	f.paths[0].in_flight = f.paths[0].cwnd;
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), -1);
	assert_true(stat(&f, "slow_picks") == 1);
	assert_true(stat(&f, "blocked") == 1);
}

/* Startup: the fast path doubles per round, X = PKT x 10 x (2^6 - 1) = 630 PKT. */
static void test_slow_start_estimate(void **state)
{
	static const char *kv[] = { "window_pkts", "750", NULL };
	struct fix f;

	fix_init(&f, kv);
	f.paths[0].in_flight = f.paths[0].cwnd;
	assert_int_equal(send_one(&f), 1);	/* CA: 90 PKT fit in 749 */
	f.paths[0].cc_state = MPT_CC_STARTUP;
	assert_int_equal(send_one(&f), -1);	/* 630 x 1.2 = 756 > 748 */
}

/* lambda: -0.01 per slow RTT without loss down to 1.0, +0.04 with loss up to 1.3. */
static void test_lambda_adapts(void **state)
{
	static const char *kv[] = { "window_pkts", "1e6", NULL };
	struct fix f;
	double expect = 1.2;

	fix_init(&f, kv);
	f.paths[0].in_flight = f.paths[0].cwnd;
	for (unsigned k = 1; k <= 30; k++) {
		f.ctx.now += 50 * MS;	/* one slow RTT */
		f.paths[1].in_flight = 0;
		assert_int_equal(send_one(&f), 1);
		/* twice within the same RTT: no second update */
		f.paths[1].in_flight = 0;
		assert_int_equal(send_one(&f), 1);
		expect = fmax(expect - 0.01, 1.0);
		assert_true(fabs(stat(&f, "lambda") - expect) < 1e-9);
	}
	for (unsigned k = 1; k <= 10; k++) {
		f.ctx.now += 50 * MS;
		f.paths[1].lost_pkts++;
		f.paths[1].in_flight = 0;
		assert_int_equal(send_one(&f), 1);
		expect = fmin(expect + 0.04, 1.3);
		assert_true(fabs(stat(&f, "lambda") - expect) < 1e-9);
	}
	assert_true(fabs(expect - 1.3) < 1e-12);
}

/* window_pkts 0: W = the sum of the up paths' cwnd (20 PKT) < X: never the slow
 * path while the fast one has data in flight to a full window. */
static void test_auto_window(void **state)
{
	static const char *kv[] = { "window_pkts", "0", NULL };
	struct fix f;

	fix_init(&f, kv);
	f.paths[0].in_flight = f.paths[0].cwnd;
	assert_int_equal(send_one(&f), -1);
	/* equal RTTs: rtts = 2, X = PKT x 10.5 x 2 x 1.2 = 25.2 PKT > 19: still blocked */
	f.paths[1].srtt_ns = 10 * MS;
	assert_int_equal(send_one(&f), -1);
	/* a fast path with a window of 1 packet: X = 1.5 x 2 x 1.2 = 3.6 PKT, W = 11 */
	f.paths[0].cwnd = f.paths[0].in_flight = PKT;
	assert_int_equal(send_one(&f), 1);
	f.paths[0].up = false;	/* the fast path gone: the slow one is the fast one */
	assert_int_equal(send_one(&f), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_the_authors),
		cmocka_unit_test(test_fast_first),
		cmocka_unit_test(test_blocking_estimate),
		cmocka_unit_test(test_slow_start_estimate),
		cmocka_unit_test(test_lambda_adapts),
		cmocka_unit_test(test_auto_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
