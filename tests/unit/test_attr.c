// SPDX-License-Identifier: MIT
/*
 * attr: Attribute-Aware selection of the axiomatic path-selection paper (sec. 3.2,
 * strategy 3; sec. 4.1: path 3 "high-cost") on hand-made views: the filter by tag,
 * cost and RTT ceiling, Min-RTT among the rest, and the fallback.
 */
#include <errno.h>
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

/* The paper's topology: 20, 50, 80 ms; path 2 (its "path 3") high-cost. */
static void fix_init(struct fix *f, const char **kv)
{
	static const uint64_t rtt[] = { 20, 50, 80 };

	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < 3; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = 2 * PKT;
		f->paths[i].srtt_ns = rtt[i] * MS;
		f->paths[i].cost = 10 * i;
	}
	f->paths[2].tags = MPT_PATH_TAG_HIGH_COST;
	f->ctx.paths = f->paths;
	f->ctx.npaths = 3;
	f->ops = schedtest_setup("attr", f->priv, kv, &f->ctx);
	assert_non_null(f->ops);
}

static int send_one(struct fix *f)
{
	int p = schedtest_send_one(f->ops, f->priv, &f->ctx, f->paths, PKT);

	assert_int_not_equal(p, -2);
	return p;
}

/* Default: avoid high_cost; Min-RTT over paths 0 and 1, never path 2. */
static void test_avoids_high_cost(void **state)
{
	struct fix f;

	fix_init(&f, NULL);
	assert_int_equal(send_one(&f), 0);
	assert_int_equal(send_one(&f), 0);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), 1);
	assert_int_equal(send_one(&f), -1);	/* path 2 has room, but is avoided */
	assert_true(schedtest_stat(f.ops, f.priv, "passing", 2) == 0);
	assert_true(schedtest_stat(f.ops, f.priv, "passing", 1) == 1);
}

/* Cost ceiling and RTT ceiling; a path without an RTT sample passes the latter. */
static void test_cost_and_rtt_ceilings(void **state)
{
	static const char *kv[] = { "avoid_tag", "none", "max_cost", "15",
				    "max_rtt_ms", "60", NULL };
	struct fix f;

	fix_init(&f, kv);
	f.paths[0].srtt_ns = 70 * MS;		/* path 0 over the RTT ceiling */
	f.paths[1].cost = 15;			/* at the cost ceiling: passes */
	assert_int_equal(send_one(&f), 1);
	f.paths[0].srtt_ns = 0;			/* no sample: passes, tried first */
	assert_int_equal(send_one(&f), 0);
}

/* Nothing passes: fallback=any takes Min-RTT over every up path, hold holds. */
static void test_fallback(void **state)
{
	static const char *hold[] = { "fallback", "hold", NULL };
	struct fix f;

	fix_init(&f, NULL);
	f.paths[0].up = f.paths[1].up = false;
	assert_int_equal(send_one(&f), 2);
	assert_true(schedtest_stat(f.ops, f.priv, "fallbacks", 0) == 1);
	fix_init(&f, hold);
	f.paths[0].up = f.paths[1].up = false;
	assert_int_equal(send_one(&f), -1);
}

/* [Path] Tags names (sched/registry.c) are the bits attr's avoid_tag filters on. */
static void test_tag_names(void **state)
{
	const char *bad = NULL;
	uint32_t t = 0;
	char buf[64];

	assert_string_equal(mpt_path_tag_name(0), "metered");
	assert_string_equal(mpt_path_tag_name(1), "high_cost");
	assert_string_equal(mpt_path_tag_name(2), "cellular");
	assert_string_equal(mpt_path_tag_name(3), "satellite");
	assert_null(mpt_path_tag_name(MPT_PATH_TAG_COUNT));
	assert_int_equal(mpt_path_tags_parse("metered cellular", &t, &bad), 0);
	assert_int_equal(t, MPT_PATH_TAG_METERED | MPT_PATH_TAG_CELLULAR);
	assert_int_equal(mpt_path_tags_parse(" Satellite,,high_cost ", &t, &bad), 0);
	assert_int_equal(t, MPT_PATH_TAG_SATELLITE | MPT_PATH_TAG_HIGH_COST);
	assert_int_equal(mpt_path_tags_parse("", &t, &bad), 0);
	assert_int_equal(t, 0);
	t = 5;
	assert_int_equal(mpt_path_tags_parse("metered meteredx", &t, &bad), -EINVAL);
	assert_string_equal(bad, "meteredx");
	assert_int_equal(t, 5);			/* unchanged on error */
	mpt_path_tags_format(MPT_PATH_TAG_CELLULAR | MPT_PATH_TAG_METERED, buf, sizeof(buf));
	assert_string_equal(buf, "metered cellular");
	mpt_path_tags_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag_names),
		cmocka_unit_test(test_avoids_high_cost),
		cmocka_unit_test(test_cost_and_rtt_ceilings),
		cmocka_unit_test(test_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
