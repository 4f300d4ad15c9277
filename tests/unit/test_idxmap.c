// SPDX-License-Identifier: MIT
/* Receiver index -> session table (idxmap.h): against a reference array through
 * random inserts and removals (runs of collisions included), the size limit, key 0. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/rng.h>

#include "idxmap.h"

#define MAX 256

static void test_against_reference(void **state)
{
	static uint32_t keys[MAX], vals[MAX];
	struct mpt_idxmap m;
	struct mpt_rng rng;
	unsigned n = 0;
	uint32_t v;

	mpt_rng_seed(&rng, 42);
	assert_int_equal(mpt_idxmap_init(&m, MAX), 0);
	for (int round = 0; round < 200000; round++) {
		if (n < MAX && (n == 0 || (mpt_rng_u64(&rng) & 1))) {
			/* small keys: many share a bucket run in a 512-bucket table */
			uint32_t k = (uint32_t)(mpt_rng_u64(&rng) % 2048) + 1;
			int found = -1;

			for (unsigned i = 0; i < n; i++)
				if (keys[i] == k)
					found = (int)i;
			if (found >= 0) {
				assert_int_equal(mpt_idxmap_insert(&m, k, 7), -EEXIST);
				continue;
			}
			assert_int_equal(mpt_idxmap_insert(&m, k, (uint32_t)round), 0);
			keys[n] = k;
			vals[n++] = (uint32_t)round;
		} else {
			unsigned i = (unsigned)(mpt_rng_u64(&rng) % n);

			assert_int_equal(mpt_idxmap_remove(&m, keys[i]), 0);
			assert_false(mpt_idxmap_find(&m, keys[i], &v));
			assert_int_equal(mpt_idxmap_remove(&m, keys[i]), -ENOENT);
			keys[i] = keys[--n];
			vals[i] = vals[n];
		}
		if (round % 997 == 0)
			for (unsigned i = 0; i < n; i++) {
				assert_true(mpt_idxmap_find(&m, keys[i], &v));
				assert_int_equal(v, vals[i]);
			}
		assert_int_equal(m.n, n);
	}
	mpt_idxmap_free(&m);
}

static void test_limits(void **state)
{
	struct mpt_idxmap m;
	uint32_t v;

	assert_int_equal(mpt_idxmap_init(&m, 3), 0);
	assert_int_equal(mpt_idxmap_insert(&m, 0, 1), -EINVAL);
	assert_false(mpt_idxmap_find(&m, 0, &v));
	assert_int_equal(mpt_idxmap_insert(&m, 0xffffffffu, 1), 0);
	assert_int_equal(mpt_idxmap_insert(&m, 0x80000000u, 2), 0);
	assert_int_equal(mpt_idxmap_insert(&m, 5, 3), 0);
	assert_int_equal(mpt_idxmap_insert(&m, 6, 4), -ENOSPC);
	assert_true(mpt_idxmap_find(&m, 0x80000000u, &v));
	assert_int_equal(v, 2);
	assert_false(mpt_idxmap_find(&m, 6, &v));
	mpt_idxmap_free(&m);
	assert_false(mpt_idxmap_find(&m, 5, &v));	/* freed: finds nothing, no crash */
	assert_int_equal(mpt_idxmap_insert(&m, 5, 1), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
