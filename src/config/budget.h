/* SPDX-License-Identifier: MIT */
/*
 * Data budgets of a path (issue 13): the value of a [Path] section's Budget key and
 * the period arithmetic. Pure: the wall clock is an argument (Unix seconds, UTC).
 *
 * Syntax:  AMOUNT/PERIOD[@RESET]
 *   AMOUNT  bytes: a number with an optional unit K, M, G or T (decimal, as
 *           operators count: 10G = 10 x 10^9 bytes) and an optional B: 500M, 1.5TB
 *   PERIOD  day, week or month
 *   RESET   when a new period starts, UTC: day: HH:MM; week: mon..sun[,HH:MM];
 *           month: 1..28[,HH:MM]. Default: 00:00, Monday, the 1st.
 * Examples: 10G/month, 10G/month@15, 2G/week@sat,06:00, 500M/day@04:30.
 */
#ifndef MPTUND_BUDGET_H
#define MPTUND_BUDGET_H

#include <stddef.h>
#include <stdint.h>

enum mpt_budget_period {
	MPT_BUDGET_NONE,		/* no budget */
	MPT_BUDGET_DAY,
	MPT_BUDGET_WEEK,
	MPT_BUDGET_MONTH,
};

struct mpt_budget {
	uint64_t bytes;			/* allowance per period; 0 with period NONE */
	uint8_t period;			/* enum mpt_budget_period */
	uint8_t reset_day;		/* week: 1 = Monday .. 7; month: 1..28 */
	uint16_t reset_min;		/* minutes after 00:00 UTC */
	uint32_t zero;			/* explicit padding, always 0: budgets compare
					 * with memcmp (reload) */
};

/* Parse text; 0, or -EINVAL with a message quoting text in err. */
int mpt_budget_parse(const char *text, struct mpt_budget *b, char *err, size_t errlen);

/* The canonical text ("10G/month@1,00:00"); "" for no budget. Returns snprintf's. */
int mpt_budget_format(const struct mpt_budget *b, char *buf, size_t len);

/* Start of the period that contains now: the latest reset instant <= now. */
int64_t mpt_budget_period_start(const struct mpt_budget *b, int64_t now);

/* Start of the next period (the first reset instant > now). */
int64_t mpt_budget_period_end(const struct mpt_budget *b, int64_t now);

#endif
