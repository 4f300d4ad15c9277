// SPDX-License-Identifier: MIT
/* The pacer: rate kept under late releases, bounded bursts, no credit for idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "pacer.h"

#define MS MPT_NSEC_PER_MSEC

/* Release from a timer that always fires `late` after the release time asked for;
 * returns the bytes sent in `dur`. */
static uint64_t run(uint64_t rate, uint64_t late, uint64_t dur, uint32_t *max_burst)
{
	struct mpt_pacer p = { .horizon_ns = MS };
	uint64_t now = 1000 * MS, end = now + dur, sent = 0;

	*max_burst = 0;
	while (now < end) {
		uint32_t burst = 0;

		while (mpt_pacer_ready(&p, rate, now)) {
			mpt_pacer_on_send(&p, rate, 1500, now);
			sent += 1500;
			burst += 1500;
		}
		if (burst > *max_burst)
			*max_burst = burst;
		now = mpt_pacer_release_time(&p, rate, now) + late;
	}
	return sent;
}

static void test_rate_kept_with_late_timers(void **state)
{
	const uint64_t rate = 6250000;	/* 50 Mbit/s */
	const uint64_t dur = 1000 * MS;
	uint32_t burst;

	for (uint64_t late = 0; late <= MS; late += MS / 4) {
		uint64_t sent = run(rate, late, dur, &burst);

		/* within one packet plus two horizons of the exact amount */
		assert_true(sent >= rate * dur / MPT_NSEC_PER_SEC - 1500 - 2 * rate / 1000);
		assert_true(sent <= rate * dur / MPT_NSEC_PER_SEC + 1500 + 2 * rate / 1000);
		/* a burst never exceeds two horizons' worth plus one packet */
		assert_true(burst <= 2 * rate / 1000 + 1500);
	}
}

static void test_idle_earns_one_horizon(void **state)
{
	const uint64_t rate = 6250000;
	struct mpt_pacer p = { .horizon_ns = MS };
	uint64_t now = 1000 * MS;
	uint32_t burst = 0;

	mpt_pacer_on_send(&p, rate, 1500, now);
	now += 10000 * MS;		/* ten seconds idle */
	while (mpt_pacer_ready(&p, rate, now)) {
		mpt_pacer_on_send(&p, rate, 1500, now);
		burst += 1500;
	}
	assert_true(burst <= 2 * rate / 1000 + 1500);
	assert_true(burst >= rate / 1000);
}

static void test_unpaced(void **state)
{
	struct mpt_pacer p = { .horizon_ns = MS };

	for (int i = 0; i < 1000; i++) {
		assert_true(mpt_pacer_ready(&p, 0, 5));
		mpt_pacer_on_send(&p, 0, 1500, 5);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_kept_with_late_timers),
		cmocka_unit_test(test_idle_earns_one_horizon),
		cmocka_unit_test(test_unpaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
