// SPDX-License-Identifier: MIT
/*
 * Shared estimators: the windowed max/min filter against a brute-force sliding-window
 * reference on a random sequence (the Nichols filter may hold a sub-window's best a
 * little longer than exact, never report a value outside the recent past), exact
 * behaviour on hand-made sequences, and the EWMA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/common.h>
#include <mptund/rng.h>

#include "filter.h"

static void test_max_basic(void **state)
{
	struct mpt_minmax m;

	memset(&m, 0, sizeof(m));
	assert_int_equal(mpt_minmax_running_max(&m, 10, 0, 5), 5);
	assert_int_equal(mpt_minmax_running_max(&m, 10, 1, 3), 5);
	assert_int_equal(mpt_minmax_running_max(&m, 10, 2, 9), 9);	/* new best */
	assert_int_equal(mpt_minmax_running_max(&m, 10, 5, 4), 9);
	assert_int_equal(mpt_minmax_running_max(&m, 10, 12, 2), 9);	/* age 10 = win */
	/* 9 from t=2 expires at t=13: the backup (4 from t=5, or later) takes over */
	assert_int_equal(mpt_minmax_running_max(&m, 10, 13, 1), 4);
	/* nothing for a whole window: the new sample alone */
	assert_int_equal(mpt_minmax_running_max(&m, 10, 40, 1), 1);
	assert_int_equal(mpt_minmax_get(&m), 1);
}

static void test_min_basic(void **state)
{
	struct mpt_minmax m;

	memset(&m, 0, sizeof(m));
	assert_int_equal(mpt_minmax_running_min(&m, 100, 0, 50), 50);
	assert_int_equal(mpt_minmax_running_min(&m, 100, 10, 60), 50);
	assert_int_equal(mpt_minmax_running_min(&m, 100, 20, 40), 40);
	assert_int_equal(mpt_minmax_running_min(&m, 100, 60, 70), 40);
	assert_int_equal(mpt_minmax_running_min(&m, 100, 121, 80), 70);
	mpt_minmax_reset(&m, 200, 90);
	assert_int_equal(mpt_minmax_get(&m), 90);
}

/* Against the exact windowed max: the estimate is always a sample value from within
 * the last 2 windows, and never below the exact max of the last quarter window (the
 * filter keeps one best per sub-window, so an older runner-up may be forgotten). */
static void test_max_vs_reference(void **state)
{
	enum { N = 5000, WIN = 40 };
	static uint64_t v[N];
	struct mpt_minmax m;
	struct mpt_rng rng;

	memset(&m, 0, sizeof(m));
	mpt_rng_seed(&rng, 7);
	for (uint64_t t = 0; t < N; t++) {
		uint64_t est, exact = 0;
		bool seen = false;

		v[t] = 1000 + mpt_rng_below(&rng, 1000);
		est = mpt_minmax_running_max(&m, WIN, t, v[t]);
		for (uint64_t k = t >= WIN / 4 ? t - WIN / 4 : 0; k <= t; k++)
			exact = MPT_MAX(exact, v[k]);
		assert_true(est >= exact);
		for (uint64_t k = t >= 2 * WIN ? t - 2 * WIN : 0; k <= t; k++)
			seen |= v[k] == est;
		assert_true(seen);
	}
}

static void test_ewma(void **state)
{
	struct mpt_ewma e = { 0 };

	assert_true(mpt_ewma_update(&e, 8.0, 0.125) == 8.0);
	assert_true(mpt_ewma_update(&e, 16.0, 0.125) == 9.0);
	assert_true(mpt_ewma_update(&e, 1.0, 0.5) == 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_basic),
		cmocka_unit_test(test_min_basic),
		cmocka_unit_test(test_max_vs_reference),
		cmocka_unit_test(test_ewma),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
