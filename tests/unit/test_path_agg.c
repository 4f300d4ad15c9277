// SPDX-License-Identifier: MIT
/*
 * The anchor's aggregate load per path name (src/core/path_agg.c): shares added and
 * taken back exactly, names kept apart, renames, a full table, reuse of free entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "path_agg.h"

static struct mpt_agg_table t;

static int reset(void **state)
{
	memset(&t, 0, sizeof(t));
	return 0;
}

/* Three sessions with a path "lte", one with "wifi": sums per name, as shares change. */
static void test_sums_follow_shares(void **state)
{
	struct mpt_agg_ref a, b, c, w;
	const struct mpt_path_agg *e;

	mpt_agg_ref_init(&a);
	mpt_agg_ref_init(&b);
	mpt_agg_ref_init(&c);
	mpt_agg_ref_init(&w);
	mpt_agg_update(&t, &a, "lte", 1000, 10000);
	mpt_agg_update(&t, &b, "lte", 3000, 20000);
	e = mpt_agg_update(&t, &c, "lte", 0, 30000);
	assert_int_equal(e->in_flight, 4000);
	assert_int_equal(e->cwnd, 60000);
	assert_int_equal(e->refs, 3);
	e = mpt_agg_update(&t, &w, "wifi", 500, 7000);
	assert_int_equal(e->in_flight, 500);
	assert_int_equal(e->cwnd, 7000);
	/* a share that shrinks (ACKs) and one that grows (sends) */
	e = mpt_agg_update(&t, &a, "lte", 200, 12000);
	assert_int_equal(e->in_flight, 3200);
	assert_int_equal(e->cwnd, 62000);
	e = mpt_agg_update(&t, &c, "lte", 9000, 30000);
	assert_int_equal(e->in_flight, 12200);
	/* the same values again change nothing */
	e = mpt_agg_update(&t, &c, "lte", 9000, 30000);
	assert_int_equal(e->in_flight, 12200);
	assert_int_equal(e->cwnd, 62000);
	/* a path going down adds nothing any more (the core passes 0, 0) */
	e = mpt_agg_update(&t, &b, "lte", 0, 0);
	assert_int_equal(e->in_flight, 9200);
	assert_int_equal(e->cwnd, 42000);
	/* a session going away takes its share back */
	mpt_agg_detach(&t, &c);
	assert_int_equal(c.idx, -1);
	e = mpt_agg_update(&t, &a, "lte", 200, 12000);
	assert_int_equal(e->in_flight, 200);
	assert_int_equal(e->cwnd, 12000);
	assert_int_equal(e->refs, 2);
	mpt_agg_detach(&t, &c);			/* twice: no effect */
	assert_int_equal(e->refs, 2);
	/* wifi never moved */
	assert_int_equal(mpt_agg_update(&t, &w, "wifi", 500, 7000)->cwnd, 7000);
}

/* A path the UE renames moves its share: detach, then the next update attaches it. */
static void test_rename_moves_share(void **state)
{
	struct mpt_agg_ref a, b;
	const struct mpt_path_agg *lte, *sat;

	mpt_agg_ref_init(&a);
	mpt_agg_ref_init(&b);
	mpt_agg_update(&t, &a, "path0", 100, 1000);
	lte = mpt_agg_update(&t, &b, "lte", 50, 500);
	mpt_agg_detach(&t, &a);
	lte = mpt_agg_update(&t, &a, "lte", 100, 1000);
	assert_int_equal(lte->in_flight, 150);
	assert_int_equal(lte->cwnd, 1500);
	mpt_agg_detach(&t, &b);
	sat = mpt_agg_update(&t, &b, "sat", 70, 700);
	assert_ptr_not_equal(sat, lte);
	assert_int_equal(sat->cwnd, 700);
	assert_int_equal(mpt_agg_update(&t, &a, "lte", 100, 1000)->cwnd, 1000);
	/* "path0" has no path left: its entry is free and serves the next new name */
	assert_int_equal(t.n, 2);		/* path0 was reused by ... */
	assert_string_equal(t.e[0].name, "sat");	/* ... sat, after lte took [1] */
}

/* MPT_AGG_MAX names at once: the next gets no aggregate until one frees up. */
static void test_full_table(void **state)
{
	struct mpt_agg_ref r[MPT_AGG_MAX + 1];
	char name[16];

	for (int i = 0; i <= MPT_AGG_MAX; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		mpt_agg_ref_init(&r[i]);
		if (i < MPT_AGG_MAX)
			assert_non_null(mpt_agg_update(&t, &r[i], name, 1, 2));
		else
			assert_null(mpt_agg_update(&t, &r[i], name, 1, 2));
	}
	assert_int_equal(r[MPT_AGG_MAX].idx, -1);
	mpt_agg_detach(&t, &r[7]);
	assert_non_null(mpt_agg_update(&t, &r[MPT_AGG_MAX], "late", 1, 2));
	assert_int_equal(r[MPT_AGG_MAX].idx, 7);
	assert_int_equal(t.e[7].cwnd, 2);	/* nothing of p7 left over */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sums_follow_shares, reset),
		cmocka_unit_test_setup(test_rename_moves_share, reset),
		cmocka_unit_test_setup(test_full_table, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
