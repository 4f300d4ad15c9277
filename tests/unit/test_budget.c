// SPDX-License-Identifier: MIT
/*
 * Data budgets (issue 13): the Budget value (good and bad, quoted in errors), the
 * period arithmetic in UTC, the state file across a restart (written atomically,
 * read back, a period that ended meanwhile starts over, a bad line skipped), and the
 * core's accounting that hides a used-up path from the scheduler while another path
 * is up.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "budget.h"
#include "budget_state.h"
#include "daemon.h"
#include "session.h"

static int64_t utc(int y, int mon, int d, int h, int mi)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mon - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi };

	return (int64_t)timegm(&tm);
}

static void test_parse_and_format(void **state)
{
	static const struct {
		const char *in, *canon;
		uint64_t bytes;
	} good[] = {
		{ "10G/month", "10G/month@1,00:00", 10000000000ULL },
		{ "10GB/Month@15,06:30", "10G/month@15,06:30", 10000000000ULL },
		{ "1.5g/week@SAT", "1500M/week@sat,00:00", 1500000000ULL },
		{ "500M/day@04:30", "500M/day@04:30", 500000000ULL },
		{ "800001/day", "800001/day@00:00", 800001 },
		{ "2T/month@28,23:59", "2T/month@28,23:59", 2000000000000ULL },
		{ "1k/week@sun,12:00", "1K/week@sun,12:00", 1000 },
	};
	static const char *const bad[] = {
		"", "10G", "/month", "ten/month", "10G/year", "10G/month@0", "10G/month@29",
		"10G/month@15,24:00", "10G/week@funday", "10G/day@6:00", "0/day", "-1/day",
		"10X/month", "10G/day@04:30x", "1e30/month", "10G/month@15,",
	};
	char err[256], buf[64];
	struct mpt_budget b;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (mpt_budget_parse(good[i].in, &b, err, sizeof(err)) < 0)
			fail_msg("'%s' refused: %s", good[i].in, err);
		assert_int_equal(b.bytes, good[i].bytes);
		mpt_budget_format(&b, buf, sizeof(buf));
		assert_string_equal(buf, good[i].canon);
		/* the canonical form parses to the same budget */
		{
			struct mpt_budget again;

			assert_int_equal(mpt_budget_parse(buf, &again, err, sizeof(err)), 0);
			assert_memory_equal(&b, &again, sizeof(b));
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char quoted[64];

		err[0] = '\0';
		if (mpt_budget_parse(bad[i], &b, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
		if (!strstr(err, quoted))
			fail_msg("error for '%s' does not quote it: %s", bad[i], err);
	}
}

static void test_periods(void **state)
{
	char err[128];
	struct mpt_budget m, w, d;
	int64_t now = utc(2026, 3, 10, 12, 0);		/* Tuesday 10 March 2026 */

	assert_int_equal(mpt_budget_parse("1G/month@15,06:00", &m, err, sizeof(err)), 0);
	assert_int_equal(mpt_budget_parse("1G/week@sat", &w, err, sizeof(err)), 0);
	assert_int_equal(mpt_budget_parse("1G/day@04:30", &d, err, sizeof(err)), 0);
	assert_int_equal(mpt_budget_period_start(&m, now), utc(2026, 2, 15, 6, 0));
	assert_int_equal(mpt_budget_period_end(&m, now), utc(2026, 3, 15, 6, 0));
	assert_int_equal(mpt_budget_period_start(&m, utc(2026, 3, 15, 6, 0)),
			 utc(2026, 3, 15, 6, 0));
	assert_int_equal(mpt_budget_period_start(&m, utc(2026, 1, 3, 0, 0)),
			 utc(2025, 12, 15, 6, 0));		/* across the year */
	assert_int_equal(mpt_budget_period_end(&m, utc(2025, 12, 20, 0, 0)),
			 utc(2026, 1, 15, 6, 0));
	assert_int_equal(mpt_budget_period_start(&w, now), utc(2026, 3, 7, 0, 0));
	assert_int_equal(mpt_budget_period_end(&w, now), utc(2026, 3, 14, 0, 0));
	assert_int_equal(mpt_budget_period_start(&d, now), utc(2026, 3, 10, 4, 30));
	assert_int_equal(mpt_budget_period_start(&d, utc(2026, 3, 10, 4, 29)),
			 utc(2026, 3, 9, 4, 30));
}

/* A config with wifi (no budget) and lte (1 MB a day). */
static void two_paths(struct mpt_config *cfg)
{
	char err[128];

	memset(cfg, 0, sizeof(*cfg));
	cfg->npaths = 2;
	snprintf(cfg->paths[0].name, MPT_NAME_LEN, "wifi");
	snprintf(cfg->paths[1].name, MPT_NAME_LEN, "lte");
	assert_int_equal(mpt_budget_parse("1M/day", &cfg->paths[1].budget, err, sizeof(err)), 0);
}

static char *slurp(const char *file)
{
	static char buf[4096];
	FILE *f = fopen(file, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_state_across_restart(void **state)
{
	char dir[] = "/tmp/mptund-budget-XXXXXX", file[128], tmp[160], err[256];
	struct mpt_budget_use use[MPT_MAX_PATHS] = { 0 }, back[MPT_MAX_PATHS];
	struct mpt_config cfg;
	int64_t now = utc(2026, 3, 10, 12, 0);
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/ue.state", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	two_paths(&cfg);
	/* no file yet: a fresh period */
	assert_int_equal(mpt_budget_state_load(file, &cfg, use, now, err, sizeof(err)), 0);
	assert_int_equal(use[1].used, 0);
	assert_int_equal(use[1].period_start, utc(2026, 3, 10, 0, 0));
	use[1].used = 1234567;
	use[1].exhausted = true;
	assert_int_equal(mpt_budget_state_save(file, &cfg, use, err, sizeof(err)), 0);
	assert_int_equal(access(tmp, F_OK), -1);		/* renamed away */
	assert_non_null(strstr(slurp(file), "path=lte used=1234567 period_start="));
	assert_null(strstr(slurp(file), "path=wifi"));
	/* restart the same day: the usage is back, and still used up */
	assert_int_equal(mpt_budget_state_load(file, &cfg, back, now + 3600, err,
					       sizeof(err)), 0);
	assert_int_equal(back[1].used, 1234567);
	assert_true(back[1].exhausted);
	/* restart the next day: a new period */
	assert_int_equal(mpt_budget_state_load(file, &cfg, back, now + 86400, err,
					       sizeof(err)), 0);
	assert_int_equal(back[1].used, 0);
	assert_false(back[1].exhausted);
	assert_int_equal(back[1].period_start, utc(2026, 3, 11, 0, 0));
	/* a line that does not parse is skipped, the others read */
	f = fopen(file, "a");
	assert_non_null(f);
	fputs("path=lte used=lots\n", f);
	fclose(f);
	assert_int_equal(mpt_budget_state_load(file, &cfg, back, now, err, sizeof(err)), 0);
	assert_int_equal(back[1].used, 1234567);
	/* an unwritable directory: an error quoting the file, nothing left behind */
	snprintf(file, sizeof(file), "%s/no/such/dir.state", dir);
	assert_true(mpt_budget_state_save(file, &cfg, use, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "no/such/dir.state"));
	snprintf(file, sizeof(file), "%s/ue.state", dir);
	unlink(file);
	rmdir(dir);
}

/* The core's accounting at view refresh, on a bare daemon and session. */
static void test_accounting_hides_used_up_path(void **state)
{
	struct mpt_daemon *d = calloc(1, sizeof(*d));
	struct mpt_session *s = calloc(1, sizeof(*s));

	assert_non_null(d);
	assert_non_null(s);
	two_paths(&d->cfg);
	d->budgets.any = true;
	d->budgets.use[1].period_start = 1;
	s->d = d;
	s->npaths = 2;
	for (unsigned i = 0; i < 2; i++) {
		snprintf(s->paths[i].name, MPT_NAME_LEN, "%s", d->cfg.paths[i].name);
		s->views[i].up = true;
	}
	s->paths[1].st.tx_bytes = 600000;
	mpt_budgets_apply(s);
	assert_int_equal(d->budgets.use[1].used, 600000);
	assert_true(s->views[1].up);
	s->paths[1].st.tx_bytes = 1000000;			/* used up */
	mpt_budgets_apply(s);
	assert_int_equal(d->budgets.use[1].used, 1000000);
	assert_true(d->budgets.use[1].exhausted);
	assert_false(s->views[1].up);				/* hidden: wifi is up */
	assert_true(s->views[0].up);
	/* wifi down: lte is the only path, used in spite of its budget */
	s->views[0].up = false;
	s->views[1].up = true;
	mpt_budgets_apply(s);
	assert_true(s->views[1].up);
	/* a path whose counters restarted counts from zero again */
	s->paths[1].st.tx_bytes = 100;
	mpt_budgets_apply(s);
	assert_int_equal(d->budgets.use[1].used, 1000100);
	free(s);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_periods),
		cmocka_unit_test(test_state_across_restart),
		cmocka_unit_test(test_accounting_hides_used_up_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
