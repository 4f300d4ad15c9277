// SPDX-License-Identifier: MIT
/* Anti-replay window: in order, reordered within the window, duplicates, too old,
 * big jumps, and the exact window edge. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "replay.h"

static void test_in_order_and_duplicate(void **state)
{
	struct mpt_replay r;

	mpt_replay_init(&r);
	for (uint64_t pn = 0; pn < 10000; pn++) {
		assert_true(mpt_replay_check(&r, pn));
		assert_int_equal(mpt_replay_update(&r, pn), 0);
		assert_false(mpt_replay_check(&r, pn));
		assert_int_equal(mpt_replay_update(&r, pn), -EALREADY);
	}
}

static void test_reordered_within_window(void **state)
{
	struct mpt_replay r;

	mpt_replay_init(&r);
	/* Deliver 0..8191 in blocks of 256 whose halves arrive swapped. */
	for (uint64_t base = 0; base < 8192; base += 256) {
		for (uint64_t pn = base + 128; pn < base + 256; pn++)
			assert_int_equal(mpt_replay_update(&r, pn), 0);
		for (uint64_t pn = base; pn < base + 128; pn++)
			assert_int_equal(mpt_replay_update(&r, pn), 0);
	}
	for (uint64_t pn = 8192 - MPT_REPLAY_WINDOW; pn < 8192; pn++)
		assert_int_equal(mpt_replay_update(&r, pn), -EALREADY);
}

static void test_too_old_and_edge(void **state)
{
	struct mpt_replay r;
	uint64_t top = 100000;

	mpt_replay_init(&r);
	assert_int_equal(mpt_replay_update(&r, top), 0);
	/* The oldest acceptable is top - (WINDOW - 1). */
	assert_true(mpt_replay_check(&r, top - (MPT_REPLAY_WINDOW - 1)));
	assert_int_equal(mpt_replay_update(&r, top - (MPT_REPLAY_WINDOW - 1)), 0);
	assert_false(mpt_replay_check(&r, top - MPT_REPLAY_WINDOW));
	assert_int_equal(mpt_replay_update(&r, top - MPT_REPLAY_WINDOW), -ESTALE);
	assert_int_equal(mpt_replay_update(&r, 0), -ESTALE);
	/* Every pn inside the window not yet seen is still accepted exactly once. */
	for (uint64_t pn = top - (MPT_REPLAY_WINDOW - 2); pn < top; pn++)
		assert_int_equal(mpt_replay_update(&r, pn), 0);
	for (uint64_t pn = top - (MPT_REPLAY_WINDOW - 1); pn <= top; pn++)
		assert_int_equal(mpt_replay_update(&r, pn), -EALREADY);
}

static void test_big_jump(void **state)
{
	struct mpt_replay r;

	mpt_replay_init(&r);
	for (uint64_t pn = 0; pn < 100; pn++)
		assert_int_equal(mpt_replay_update(&r, pn), 0);
	/* Jump far beyond the ring: everything old is forgotten, stale bits cleared. */
	uint64_t far = 1ULL << 40;

	assert_int_equal(mpt_replay_update(&r, far), 0);
	assert_int_equal(mpt_replay_update(&r, 50), -ESTALE);
	for (uint64_t pn = far - 100; pn < far; pn++)
		assert_int_equal(mpt_replay_update(&r, pn), 0);
	/* A jump of less than the ring: the blocks passed over must not keep old bits
	 * (pn and pn + 65 blocks share a ring slot). */
	uint64_t base = far + 1;

	assert_int_equal(mpt_replay_update(&r, base + 64 * MPT_REPLAY_BLOCKS), 0);
	for (uint64_t pn = base + 64 * MPT_REPLAY_BLOCKS - MPT_REPLAY_WINDOW + 1;
	     pn < base + 64 * MPT_REPLAY_BLOCKS; pn++)
		assert_int_equal(mpt_replay_update(&r, pn), 0);
	/* The last representable number is refused (never sent: pn wraps the key). */
	assert_false(mpt_replay_check(&r, UINT64_MAX));
	assert_int_equal(mpt_replay_update(&r, UINT64_MAX), -ESTALE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_and_duplicate),
		cmocka_unit_test(test_reordered_within_window),
		cmocka_unit_test(test_too_old_and_edge),
		cmocka_unit_test(test_big_jump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
