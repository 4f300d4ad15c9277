// SPDX-License-Identifier: MIT
/* Declared tunables: parse, range checks with quoted values, format; registries. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/cc.h>
#include <mptund/sched.h>

struct blob {
	double d;
	uint32_t u;
	bool b;
	uint32_t e;
};

static const char *const modes[] = { "user", "kernel", NULL };
static const struct mpt_param tab[] = {
	{ .name = "frac", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct blob, d),
	  .min = 0.01, .max = 1, .def = 0.47, .help = "h" },
	{ .name = "count", .type = MPT_PARAM_U32, .offset = offsetof(struct blob, u),
	  .min = 1, .max = 100, .def = 10, .help = "h" },
	{ .name = "flag", .type = MPT_PARAM_BOOL, .offset = offsetof(struct blob, b),
	  .min = 0, .max = 1, .def = 1, .help = "h" },
	{ .name = "mode", .type = MPT_PARAM_ENUM, .offset = offsetof(struct blob, e),
	  .min = 0, .max = 1, .def = 0, .enum_names = modes, .help = "h" },
};

static void test_defaults_and_parse(void **state)
{
	struct blob b;
	char err[128], buf[32];

	memset(&b, 0xff, sizeof(b));
	mpt_param_defaults(tab, 4, &b);
	assert_true(b.d == 0.47);
	assert_int_equal(b.u, 10);
	assert_true(b.b);
	assert_int_equal(b.e, 0);

	assert_int_equal(mpt_param_parse(&tab[0], &b, "0.5", err, sizeof(err)), 0);
	assert_true(b.d == 0.5);
	assert_int_equal(mpt_param_parse(&tab[0], &b, "1.5", err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "frac: '1.5' is out of range [0.01, 1]");
	assert_true(b.d == 0.5);
	assert_int_equal(mpt_param_parse(&tab[0], &b, "ten", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "frac: 'ten' is not a number");
	assert_int_equal(mpt_param_parse(&tab[0], &b, "nan", err, sizeof(err)), -EINVAL);
	assert_int_equal(mpt_param_parse(&tab[1], &b, "2.5", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "count: '2.5' is not a whole number");
	assert_int_equal(mpt_param_parse(&tab[2], &b, "off", err, sizeof(err)), 0);
	assert_false(b.b);
	assert_int_equal(mpt_param_parse(&tab[3], &b, "KERNEL", err, sizeof(err)), 0);
	assert_int_equal(b.e, 1);
	mpt_param_format(&tab[3], &b, buf, sizeof(buf));
	assert_string_equal(buf, "kernel");
	assert_int_equal(mpt_param_parse(&tab[3], &b, "bogus", err, sizeof(err)), -EINVAL);
	assert_ptr_equal(mpt_param_find(tab, 4, "COUNT"), &tab[1]);
	assert_null(mpt_param_find(tab, 4, "nope"));
}

static void test_registries(void **state)
{
	char err[128];

	assert_int_equal(mpt_sched_registry_check(err, sizeof(err)), 0);
	assert_int_equal(mpt_cc_registry_check(err, sizeof(err)), 0);
	assert_non_null(mpt_sched_find("rr"));
	assert_non_null(mpt_cc_find("fixed"));
	assert_null(mpt_sched_find("nosuch"));
	for (size_t i = 0; i < mpt_sched_count(); i++) {
		const struct mpt_sched_ops *s = mpt_sched_at(i);

		for (size_t j = 0; j < s->nparams; j++) {
			const struct mpt_param *p = &s->params[j];

			assert_true(p->def >= p->min && p->def <= p->max);
			assert_non_null(p->help);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_parse),
		cmocka_unit_test(test_registries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
