// SPDX-License-Identifier: MIT
/*
 * man/mptund-sched.7 against the registries: every registered scheduler and congestion
 * controller has a section, every tunable appears with its type, range, default and
 * help exactly as declared in its table, and the page lists no module or tunable the
 * code lacks. The page's entry format is:
 *     .SS name             (one per scheduler under .SH SCHEDULERS, one per controller
 *                           under .SH CONGESTION CONTROLLERS)
 *     No tunables.         (or "Tunables:" followed by one entry per tunable)
 *     .TP
 *     .B tunable
 *     u32, 1 to 100000, default 10.   (enum: "enum, one of a, b; default a.",
 *     help line                         bool: "bool, default true.")
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/cc.h>
#include <mptund/sched.h>

#define MAX_LINES 2000

struct page {
	char *lines[MAX_LINES];
	size_t n;
};

/* Undo the roff escapes a help line may need: \- (minus) and \e (backslash). */
static void unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (r[0] == '\\' && (r[1] == '-' || r[1] == 'e')) {
			*w++ = r[1] == '-' ? '-' : '\\';
			r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static void load(struct page *pg)
{
	FILE *f = fopen(SRCDIR "/man/mptund-sched.7", "r");
	char buf[1024];

	assert_non_null(f);
	pg->n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		assert_true(pg->n < MAX_LINES);
		buf[strcspn(buf, "\n")] = '\0';
		unescape(buf);
		pg->lines[pg->n] = strdup(buf);
		assert_non_null(pg->lines[pg->n]);
		pg->n++;
	}
	fclose(f);
}

static void unload(struct page *pg)
{
	for (size_t i = 0; i < pg->n; i++)
		free(pg->lines[i]);
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* [*begin, *end) of the ".SS name" section; false if absent. */
static bool section(const struct page *pg, const char *name, size_t *begin, size_t *end)
{
	char want[64];

	snprintf(want, sizeof(want), ".SS %s", name);
	for (size_t i = 0; i < pg->n; i++) {
		if (strcmp(pg->lines[i], want) != 0)
			continue;
		*begin = i + 1;
		for (*end = i + 1; *end < pg->n; (*end)++)
			if (starts(pg->lines[*end], ".SS ") || starts(pg->lines[*end], ".SH "))
				break;
		return true;
	}
	return false;
}

/* The type/range/default line the page must carry for p. */
static void spec_line(const struct mpt_param *p, char *buf, size_t len)
{
	static const char *const type[] = {
		[MPT_PARAM_DOUBLE] = "double", [MPT_PARAM_U32] = "u32",
		[MPT_PARAM_BOOL] = "bool", [MPT_PARAM_ENUM] = "enum",
		[MPT_PARAM_NAME] = "name",
	};
	char lo[64], hi[64], def[64];
	size_t off;

	mpt_param_format_value(p, p->min, lo, sizeof(lo));
	mpt_param_format_value(p, p->max, hi, sizeof(hi));
	mpt_param_format_value(p, p->def, def, sizeof(def));
	switch (p->type) {
	case MPT_PARAM_ENUM:
		off = (size_t)snprintf(buf, len, "enum, one of");
		for (size_t k = 0; p->enum_names[k]; k++)
			off += (size_t)snprintf(buf + off, len - off, "%s %s", k ? "," : "",
						p->enum_names[k]);
		snprintf(buf + off, len - off, "; default %s.", def);
		break;
	case MPT_PARAM_BOOL:
		snprintf(buf, len, "bool, default %s.", def);
		break;
	case MPT_PARAM_NAME:
		snprintf(buf, len, "path name, default unset.");
		break;
	default:
		snprintf(buf, len, "%s, %s to %s, default %s.", type[p->type], lo, hi, def);
	}
}

/* The ".SS name" section documents exactly the tunables of the table. */
static void check_module(const struct page *pg, const char *name,
			 const struct mpt_param *params, size_t nparams)
{
	size_t b = 0, e = 0;
	bool none = false;

	if (!section(pg, name, &b, &e))
		fail_msg("mptund-sched.7: no section '.SS %s'", name);
	for (size_t i = b; i < e; i++)
		none |= strcmp(pg->lines[i], "No tunables.") == 0;
	if (none != (nparams == 0))
		fail_msg("mptund-sched.7: %s: 'No tunables.' %s, but it has %zu",
			 name, none ? "present" : "missing", nparams);
	for (size_t k = 0; k < nparams; k++) {
		const struct mpt_param *p = &params[k];
		char want_b[96], spec[256];
		size_t i;

		snprintf(want_b, sizeof(want_b), ".B %s", p->name);
		for (i = b; i + 3 < e; i++)
			if (strcmp(pg->lines[i], ".TP") == 0 &&
			    strcmp(pg->lines[i + 1], want_b) == 0)
				break;
		if (i + 3 >= e)
			fail_msg("mptund-sched.7: %s: tunable '%s' missing", name, p->name);
		spec_line(p, spec, sizeof(spec));
		if (strcmp(pg->lines[i + 2], spec) != 0)
			fail_msg("mptund-sched.7: %s %s: '%s', want '%s'", name, p->name,
				 pg->lines[i + 2], spec);
		if (strcmp(pg->lines[i + 3], p->help) != 0)
			fail_msg("mptund-sched.7: %s %s: help '%s', want '%s'", name,
				 p->name, pg->lines[i + 3], p->help);
	}
	/* and no entry for a tunable the table does not have */
	for (size_t i = b; i + 1 < e; i++) {
		if (strcmp(pg->lines[i], ".TP") != 0 || !starts(pg->lines[i + 1], ".B "))
			continue;
		if (!mpt_param_find(params, nparams, pg->lines[i + 1] + 3))
			fail_msg("mptund-sched.7: %s: documents unknown tunable '%s'",
				 name, pg->lines[i + 1] + 3);
	}
}

static void test_every_tunable_documented(void **state)
{
	struct page pg;

	load(&pg);
	for (size_t s = 0; s < mpt_sched_count(); s++) {
		const struct mpt_sched_ops *o = mpt_sched_at(s);

		check_module(&pg, o->name, o->params, o->nparams);
	}
	for (size_t c = 0; c < mpt_cc_count(); c++) {
		const struct mpt_cc_ops *o = mpt_cc_at(c);

		check_module(&pg, o->name, o->params, o->nparams);
	}
	unload(&pg);
}

static void test_no_unknown_scheduler(void **state)
{
	struct page pg;
	bool in_scheds = false, in_ccs = false;

	load(&pg);
	for (size_t i = 0; i < pg.n; i++) {
		if (starts(pg.lines[i], ".SH ")) {
			in_scheds = strcmp(pg.lines[i], ".SH SCHEDULERS") == 0;
			in_ccs = strcmp(pg.lines[i], ".SH CONGESTION CONTROLLERS") == 0;
		} else if (in_scheds && starts(pg.lines[i], ".SS ") &&
			   !mpt_sched_find(pg.lines[i] + 4)) {
			fail_msg("mptund-sched.7: section for unknown scheduler '%s'",
				 pg.lines[i] + 4);
		} else if (in_ccs && starts(pg.lines[i], ".SS ") &&
			   !mpt_cc_find(pg.lines[i] + 4)) {
			fail_msg("mptund-sched.7: section for unknown congestion controller "
				 "'%s'", pg.lines[i] + 4);
		}
	}
	unload(&pg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_tunable_documented),
		cmocka_unit_test(test_no_unknown_scheduler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
