// SPDX-License-Identifier: MIT
/*
 * wrr: shares follow the weights (configured, else btlbw, else equal) within 5%,
 * picks interleave, and only paths with room take part.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

#define PKT	1500u
#define N	4000u		/* decisions per run */

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

static void fix_init(struct fix *f, unsigned n, const uint32_t *weight, const uint64_t *bw)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < n; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = 100 * PKT;
		f->paths[i].weight = weight ? weight[i] : 0;
		f->paths[i].btlbw = bw ? bw[i] : 0;
	}
	f->ctx.paths = f->paths;
	f->ctx.npaths = n;
	f->ops = mpt_sched_find("wrr");
	assert_non_null(f->ops);
	mpt_sched_prepare(f->priv, f->ops);
	schedtest_paper(f->ops, f->priv);
	f->ops->init(f->priv, &f->ctx);
}

/* Picks with every path always having room (each packet acked at once); counts per
 * path and the longest run on one path. */
static void run(struct fix *f, unsigned n, unsigned *count, unsigned *longest_run)
{
	struct mpt_pkt_meta pkt = { .len = PKT };
	int last = -1;
	unsigned run_len = 0;

	memset(count, 0, MPT_MAX_PATHS * sizeof(*count));
	*longest_run = 0;
	for (unsigned k = 0; k < n; k++) {
		uint32_t mask = f->ops->pick(f->priv, &f->ctx, &pkt);
		int p;

		assert_int_equal(__builtin_popcount(mask), 1);
		p = __builtin_ctz(mask);
		count[p]++;
		run_len = p == last ? run_len + 1 : 1;
		last = p;
		if (run_len > *longest_run)
			*longest_run = run_len;
	}
}

/* Each path's share within 5% (relative) of w_i / sum(w). */
static void check_shares(const unsigned *count, unsigned n, const double *w)
{
	double sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += w[i];
	for (unsigned i = 0; i < n; i++) {
		double want = w[i] / sum, got = (double)count[i] / N;

		if (fabs(got - want) > 0.05 * want)
			fail_msg("path %u: share %.4f, want %.4f +- 5%%", i, got, want);
	}
}

static void test_configured_weights(void **state)
{
	static const uint32_t w13[] = { 1, 3 };
	static const uint32_t w125[] = { 1, 2, 5 };
	unsigned count[MPT_MAX_PATHS], longest;
	struct fix f;

	fix_init(&f, 2, w13, NULL);
	run(&f, N, count, &longest);
	check_shares(count, 2, (const double[]){ 1, 3 });
	assert_true(longest <= 3);	/* smooth: 1:3 never runs more than 3 */

	fix_init(&f, 3, w125, NULL);
	run(&f, N, count, &longest);
	check_shares(count, 3, (const double[]){ 1, 2, 5 });
	assert_true(longest <= 3);	/* 5 of 8 spread as evenly as possible: runs <= 3 */
}

static void test_btlbw_fallback(void **state)
{
	static const uint64_t bw[] = { 10000000, 30000000 };
	static const uint64_t bw_part[] = { 10000000, 0 };
	static const uint32_t w_part[] = { 4, 0 };
	unsigned count[MPT_MAX_PATHS], longest;
	struct fix f;

	fix_init(&f, 2, NULL, bw);
	run(&f, N, count, &longest);
	check_shares(count, 2, (const double[]){ 1, 3 });
	/* one weight unset: the estimates decide, configured weights are not mixed in */
	fix_init(&f, 2, w_part, bw);
	run(&f, N, count, &longest);
	check_shares(count, 2, (const double[]){ 1, 3 });
	/* one estimate unknown too: equal weights */
	fix_init(&f, 2, w_part, bw_part);
	run(&f, N, count, &longest);
	check_shares(count, 2, (const double[]){ 1, 1 });
}

static void test_only_paths_with_room(void **state)
{
	static const uint32_t w[] = { 1, 3 };
	struct mpt_pkt_meta pkt = { .len = PKT };
	unsigned count[MPT_MAX_PATHS], longest;
	struct fix f;

	fix_init(&f, 2, w, NULL);
	f.paths[1].in_flight = f.paths[1].cwnd;		/* heavy path full */
	run(&f, 100, count, &longest);
	assert_int_equal(count[0], 100);
	/* when it frees up it gets no burst for the time it was full */
	f.paths[1].in_flight = 0;
	run(&f, 8, count, &longest);
	assert_true(longest <= 3);
	assert_int_equal(count[1], 6);
	/* down paths do not take part; nothing with room: hold */
	f.paths[0].up = false;
	run(&f, 10, count, &longest);
	assert_int_equal(count[1], 10);
	f.paths[1].in_flight = f.paths[1].cwnd;
	assert_int_equal(f.ops->pick(f.priv, &f.ctx, &pkt), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_configured_weights),
		cmocka_unit_test(test_btlbw_fallback),
		cmocka_unit_test(test_only_paths_with_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
