// SPDX-License-Identifier: MIT
/* Data budget values and their periods (budget.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "budget.h"

#define DAY_S 86400

static const char *const period_names[] = { "", "day", "week", "month" };
static const char *const dow_names[] = { "", "mon", "tue", "wed", "thu", "fri", "sat",
					 "sun" };

/* "HH:MM" -> minutes; -1 when malformed. */
static int parse_hhmm(const char *s)
{
	unsigned h, m;
	int n = 0;

	if (sscanf(s, "%2u:%2u%n", &h, &m, &n) != 2 || s[n] || n != 5 || h > 23 || m > 59)
		return -1;
	return (int)(h * 60 + m);
}

static int parse_amount(const char *s, size_t len, uint64_t *out)
{
	static const char units[] = "KMGT";
	char buf[32], *end;
	double v, mul = 1;
	const char *u;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[len - 1] == 'B' || buf[len - 1] == 'b')
		buf[--len] = '\0';
	if (len && (u = strchr(units, buf[len - 1] & ~0x20)) && buf[len - 1] != '\0') {
		mul = pow(1000, (double)(u - units + 1));
		buf[--len] = '\0';
	}
	if (!len || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtod(buf, &end) * mul;
	if (*end || errno || !(v >= 1) || v > 1e18)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

/* The part after '@' for period p. */
static int parse_reset(const char *s, struct mpt_budget *b)
{
	const char *comma = strchr(s, ',');
	size_t dl = comma ? (size_t)(comma - s) : strlen(s);
	char *end;
	long day;
	int min;

	if (b->period == MPT_BUDGET_DAY) {
		min = parse_hhmm(s);
		if (min < 0)
			return -EINVAL;
		b->reset_min = (uint16_t)min;
		return 0;
	}
	if (b->period == MPT_BUDGET_WEEK) {
		b->reset_day = 0;
		for (uint8_t d = 1; d <= 7; d++)
			if (dl == 3 && strncasecmp(s, dow_names[d], 3) == 0)
				b->reset_day = d;
		if (!b->reset_day)
			return -EINVAL;
	} else {
		day = strtol(s, &end, 10);
		if (end != s + dl || dl == 0 || day < 1 || day > 28)
			return -EINVAL;
		b->reset_day = (uint8_t)day;
	}
	if (comma) {
		min = parse_hhmm(comma + 1);
		if (min < 0)
			return -EINVAL;
		b->reset_min = (uint16_t)min;
	}
	return 0;
}

int mpt_budget_parse(const char *text, struct mpt_budget *b, char *err, size_t errlen)
{
	const char *slash = strchr(text, '/'), *at, *per;
	struct mpt_budget n = { 0 };
	size_t pl;

	if (!slash || parse_amount(text, (size_t)(slash - text), &n.bytes) < 0) {
		snprintf(err, errlen, "'%s' is not a budget: want AMOUNT/PERIOD[@RESET], "
			 "e.g. 10G/month or 500M/day@04:00 (AMOUNT at least 1 byte, units "
			 "K M G T)", text);
		return -EINVAL;
	}
	per = slash + 1;
	at = strchr(per, '@');
	pl = at ? (size_t)(at - per) : strlen(per);
	for (uint8_t p = MPT_BUDGET_DAY; p <= MPT_BUDGET_MONTH; p++)
		if (pl == strlen(period_names[p]) && strncasecmp(per, period_names[p], pl) == 0)
			n.period = p;
	if (n.period == MPT_BUDGET_NONE) {
		snprintf(err, errlen, "'%s': the period is not day, week or month", text);
		return -EINVAL;
	}
	n.reset_day = n.period == MPT_BUDGET_DAY ? 0 : 1;
	if (at && parse_reset(at + 1, &n) < 0) {
		snprintf(err, errlen, "'%s': bad reset time '%s' (day: HH:MM; week: "
			 "mon..sun[,HH:MM]; month: 1..28[,HH:MM])", text, at + 1);
		return -EINVAL;
	}
	*b = n;
	return 0;
}

static int format_amount(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && v >= 1000 && v % 1000 == 0) {
		v /= 1000;
		u++;
	}
	if (u < 0)
		return snprintf(buf, len, "%llu", (unsigned long long)v);
	return snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}

int mpt_budget_format(const struct mpt_budget *b, char *buf, size_t len)
{
	char amt[32], day[8] = "";

	if (b->period == MPT_BUDGET_NONE || b->period > MPT_BUDGET_MONTH) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	format_amount(b->bytes, amt, sizeof(amt));
	if (b->period == MPT_BUDGET_WEEK)
		snprintf(day, sizeof(day), "%s,", dow_names[b->reset_day % 8]);
	else if (b->period == MPT_BUDGET_MONTH)
		snprintf(day, sizeof(day), "%u,", b->reset_day);
	return snprintf(buf, len, "%s/%s@%s%02u:%02u", amt, period_names[b->period], day,
			b->reset_min / 60u, b->reset_min % 60u);
}

/* The reset instant of the period "containing" the day of tm (UTC midnight day0). */
static int64_t reset_of_month(int year, int mon, const struct mpt_budget *b)
{
	struct tm tm = { .tm_year = year, .tm_mon = mon, .tm_mday = b->reset_day };

	return (int64_t)timegm(&tm) + (int64_t)b->reset_min * 60;
}

int64_t mpt_budget_period_start(const struct mpt_budget *b, int64_t now)
{
	time_t t = (time_t)now;
	struct tm tm;
	int64_t midnight, r;
	int wday;

	if (!gmtime_r(&t, &tm))
		return now;
	midnight = now - (tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec);
	switch (b->period) {
	case MPT_BUDGET_DAY:
		r = midnight + (int64_t)b->reset_min * 60;
		return r <= now ? r : r - DAY_S;
	case MPT_BUDGET_WEEK:
		wday = tm.tm_wday ? tm.tm_wday : 7;		/* 1 = Monday .. 7 */
		r = midnight - (int64_t)((wday - b->reset_day + 7) % 7) * DAY_S +
		    (int64_t)b->reset_min * 60;
		return r <= now ? r : r - 7 * DAY_S;
	case MPT_BUDGET_MONTH:
		r = reset_of_month(tm.tm_year, tm.tm_mon, b);
		if (r <= now)
			return r;
		return tm.tm_mon ? reset_of_month(tm.tm_year, tm.tm_mon - 1, b)
				 : reset_of_month(tm.tm_year - 1, 11, b);
	}
	return 0;
}

int64_t mpt_budget_period_end(const struct mpt_budget *b, int64_t now)
{
	int64_t start = mpt_budget_period_start(b, now);
	time_t t = (time_t)start;
	struct tm tm;

	switch (b->period) {
	case MPT_BUDGET_DAY:
		return start + DAY_S;
	case MPT_BUDGET_WEEK:
		return start + 7 * DAY_S;
	case MPT_BUDGET_MONTH:
		if (!gmtime_r(&t, &tm))
			return start + 28 * DAY_S;
		return tm.tm_mon == 11 ? reset_of_month(tm.tm_year + 1, 0, b)
				       : reset_of_month(tm.tm_year, tm.tm_mon + 1, b);
	}
	return INT64_MAX;
}
