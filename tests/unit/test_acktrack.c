// SPDX-License-Identifier: MIT
/* Receiver ACK tracking: ranges from arrival patterns, the range cap, ACK policy. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "acktrack.h"

#define US	1000ULL
#define MS	1000000ULL

static void expect_ranges(const struct mpt_acktrack *t, const uint64_t (*want)[2],
			  unsigned n)
{
	struct mpt_ack_info ai;

	assert_int_equal(mpt_acktrack_build(t, 0, &ai), 0);
	assert_int_equal(ai.nranges, n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(ai.r[i].hi, want[i][0]);
		assert_int_equal(ai.r[i].lo, want[i][1]);
	}
}

static void test_ranges(void **state)
{
	struct mpt_acktrack t;
	struct mpt_ack_info ai;

	mpt_acktrack_init(&t, 3, MPT_ACK_DEFAULT_MAX_DELAY_NS, MPT_ACK_DEFAULT_EVERY);
	assert_int_equal(mpt_acktrack_build(&t, 0, &ai), -ENODATA);

	/* 10..12, gap 13, 14..15 */
	static const uint64_t p1[] = { 10, 11, 12, 14, 15 };
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(mpt_acktrack_on_packet(&t, p1[i], true, i * US), 0);
	expect_ranges(&t, (const uint64_t[][2]){ { 15, 14 }, { 12, 10 } }, 2);

	/* filling the gap merges */
	assert_int_equal(mpt_acktrack_on_packet(&t, 13, true, 10 * US), 0);
	expect_ranges(&t, (const uint64_t[][2]){ { 15, 10 } }, 1);

	/* duplicates are refused and counted */
	assert_int_equal(mpt_acktrack_on_packet(&t, 12, true, 11 * US), -EEXIST);
	assert_int_equal(t.duplicates, 1);

	/* below the lowest: adjacent extends, far opens a range */
	assert_int_equal(mpt_acktrack_on_packet(&t, 9, true, 12 * US), 0);
	assert_int_equal(mpt_acktrack_on_packet(&t, 5, true, 13 * US), 0);
	/* between two ranges: a new one, then a merge with the upper one */
	assert_int_equal(mpt_acktrack_on_packet(&t, 7, true, 14 * US), 0);
	assert_int_equal(mpt_acktrack_on_packet(&t, 8, true, 14 * US), 0);
	expect_ranges(&t, (const uint64_t[][2]){ { 15, 7 }, { 5, 5 } }, 2);
	/* adjacent to both neighbours: all three merge */
	assert_int_equal(mpt_acktrack_on_packet(&t, 6, true, 15 * US), 0);
	expect_ranges(&t, (const uint64_t[][2]){ { 15, 5 } }, 1);

	/* ack delay: from the arrival of the largest (15 arrived at 4 us) */
	assert_int_equal(mpt_acktrack_build(&t, 1 * MS, &ai), 0);
	assert_int_equal(ai.path_id, 3);
	assert_int_equal(ai.ack_delay_ns, 1 * MS - 4 * US);
	assert_int_equal(t.received, 11);
}

static void test_range_cap(void **state)
{
	struct mpt_acktrack t;
	struct mpt_ack_info ai;
	const unsigned extra = 5;

	mpt_acktrack_init(&t, 0, MPT_ACK_DEFAULT_MAX_DELAY_NS, MPT_ACK_DEFAULT_EVERY);
	/* every other packet lost: one range per packet */
	for (uint64_t i = 0; i < MPT_ACK_MAX_RANGES + extra; i++)
		assert_int_equal(mpt_acktrack_on_packet(&t, 2 * i, true, i), 0);
	assert_int_equal(mpt_acktrack_build(&t, 0, &ai), 0);
	assert_int_equal(ai.nranges, MPT_ACK_MAX_RANGES);
	/* the highest are kept, highest first, disjoint */
	for (unsigned i = 0; i < MPT_ACK_MAX_RANGES; i++) {
		uint64_t pn = 2 * (MPT_ACK_MAX_RANGES + extra - 1 - i);

		assert_int_equal(ai.r[i].hi, pn);
		assert_int_equal(ai.r[i].lo, pn);
	}
	/* a packet below every kept range cannot be recorded */
	assert_int_equal(mpt_acktrack_on_packet(&t, 1, true, 100), -ERANGE);
	assert_int_equal(t.too_old, 1);
	/* a packet in a gap between kept ranges merges two of them */
	assert_int_equal(mpt_acktrack_on_packet(&t, ai.r[0].hi - 1, true, 101), 0);
	assert_int_equal(t.nranges, MPT_ACK_MAX_RANGES - 1);
	/* a packet in a new range while full evicts the lowest */
	assert_int_equal(mpt_acktrack_on_packet(&t, ai.r[0].hi + 10, true, 102), 0);
	assert_int_equal(mpt_acktrack_on_packet(&t, ai.r[0].hi + 20, true, 103), 0);
	assert_int_equal(t.nranges, MPT_ACK_MAX_RANGES);
	assert_int_equal(t.r[MPT_ACK_MAX_RANGES - 1].lo, ai.r[MPT_ACK_MAX_RANGES - 2].lo);
}

static void test_policy(void **state)
{
	struct mpt_acktrack t;
	const uint64_t d = 1 * MS;

	mpt_acktrack_init(&t, 0, d, 2);
	assert_false(mpt_acktrack_should_ack_now(&t, 0));
	assert_int_equal(mpt_acktrack_deadline(&t), 0);

	/* one ack-eliciting packet: wait up to the max ack delay */
	mpt_acktrack_on_packet(&t, 0, true, 10 * MS);
	assert_false(mpt_acktrack_should_ack_now(&t, 10 * MS));
	assert_int_equal(mpt_acktrack_deadline(&t), 10 * MS + d);
	assert_false(mpt_acktrack_should_ack_now(&t, 10 * MS + d - 1));
	assert_true(mpt_acktrack_should_ack_now(&t, 10 * MS + d));

	/* the second one: at once */
	mpt_acktrack_on_packet(&t, 1, true, 10 * MS + 100 * US);
	assert_true(mpt_acktrack_should_ack_now(&t, 10 * MS + 100 * US));
	mpt_acktrack_on_ack_sent(&t, 10 * MS + 100 * US);
	assert_false(mpt_acktrack_should_ack_now(&t, 20 * MS));
	assert_int_equal(mpt_acktrack_deadline(&t), 0);

	/* non-eliciting packets are recorded but arm nothing */
	mpt_acktrack_on_packet(&t, 2, false, 21 * MS);
	mpt_acktrack_on_packet(&t, 3, false, 21 * MS);
	mpt_acktrack_on_packet(&t, 4, false, 21 * MS);
	assert_false(mpt_acktrack_should_ack_now(&t, 30 * MS));
	assert_int_equal(t.r[0].hi, 4);

	/* a gap: at once, even for the first packet */
	mpt_acktrack_on_packet(&t, 7, true, 31 * MS);
	assert_true(mpt_acktrack_should_ack_now(&t, 31 * MS));
	assert_int_equal(mpt_acktrack_deadline(&t), 31 * MS);
	mpt_acktrack_on_ack_sent(&t, 31 * MS);
	/* filling it (out of order): at once */
	mpt_acktrack_on_packet(&t, 5, true, 32 * MS);
	assert_true(mpt_acktrack_should_ack_now(&t, 32 * MS));
	mpt_acktrack_on_ack_sent(&t, 32 * MS);
	/* in order again: back to the delay */
	mpt_acktrack_on_packet(&t, 8, true, 33 * MS);
	assert_false(mpt_acktrack_should_ack_now(&t, 33 * MS));
	assert_int_equal(t.acks_sent, 3);
}

/* ACK frequency (draft-ietf-quic-ack-frequency): the sender's policy and the
 * receiver's tracker under it. 16 Mbit/s with a 24 ms RTT and a window of two BDPs:
 * an ACK every 8 packets or 6 ms instead of every 4 or 1 ms. */
static void test_ack_frequency(void **state)
{
	struct mpt_acktrack t;
	uint16_t thr;
	uint32_t delay;
	unsigned acks = 0;

	mpt_ackf_policy(2 * 48000, 1409, 24000000, &thr, &delay);
	assert_int_equal(thr, 8);
	assert_int_equal(delay, 6000);
	mpt_ackf_policy(10000, 1409, 100000, &thr, &delay);		/* small, short */
	assert_int_equal(thr, MPT_ACKF_MIN_THRESHOLD);
	assert_int_equal(delay, MPT_ACKF_MIN_DELAY_US);
	mpt_ackf_policy(50000000, 1409, 600000000, &thr, &delay);	/* big, long */
	assert_int_equal(thr, MPT_ACKF_MAX_THRESHOLD);
	assert_int_equal(delay, MPT_ACKF_MAX_DELAY_US);

	/* 1400 packets/s in order for one second: ACKs by count, not by the timer */
	mpt_acktrack_init(&t, 0, MPT_ACK_DEFAULT_MAX_DELAY_NS, 4);
	mpt_acktrack_set_frequency(&t, 8, 6000000);
	for (uint64_t pn = 1; pn <= 1400; pn++) {
		uint64_t now = pn * 714286;

		assert_int_equal(mpt_acktrack_on_packet(&t, pn, true, now), 0);
		if (mpt_acktrack_should_ack_now(&t, now)) {
			mpt_acktrack_on_ack_sent(&t, now);
			acks++;
		}
	}
	assert_int_equal(acks, 1400 / 8);
	/* a gap is still ACKed at once */
	assert_int_equal(mpt_acktrack_on_packet(&t, 1402, true, 1401 * 714286ULL), 0);
	assert_true(mpt_acktrack_should_ack_now(&t, 1401 * 714286ULL));
}

/* A range that went out in MPT_ACK_REPEAT ACKs unchanged is left out of the next
 * ones; the highest always goes, and a range that grows goes again (issue 22: a
 * permanent gap made every ACK carry every range). */
static void test_ranges_not_repeated(void **state)
{
	struct mpt_acktrack t;
	struct mpt_ack_info ai;

	mpt_acktrack_init(&t, 0, MS, 2);
	/* 1-3, 5-7, 9-10: two gaps for good (lost, or an MTU probe too big) */
	for (uint64_t pn = 1; pn <= 10; pn++)
		if (pn != 4 && pn != 8)
			mpt_acktrack_on_packet(&t, pn, true, 0);
	for (int k = 0; k < MPT_ACK_REPEAT; k++) {
		assert_int_equal(mpt_acktrack_build(&t, 0, &ai), 0);
		assert_int_equal(ai.nranges, 3);
		mpt_acktrack_on_ack_sent(&t, 0);
	}
	mpt_acktrack_on_packet(&t, 11, true, 0);	/* the top range grows */
	assert_int_equal(mpt_acktrack_build(&t, 0, &ai), 0);
	assert_int_equal(ai.nranges, 1);
	assert_int_equal(ai.r[0].hi, 11);
	assert_int_equal(ai.r[0].lo, 9);
	mpt_acktrack_on_ack_sent(&t, 0);
	/* a late packet 4 merges 1-3 and 5-7: that range goes again */
	mpt_acktrack_on_packet(&t, 4, true, 0);
	assert_int_equal(mpt_acktrack_build(&t, 0, &ai), 0);
	assert_int_equal(ai.nranges, 2);
	assert_int_equal(ai.r[1].lo, 1);
	assert_int_equal(ai.r[1].hi, 7);
	/* a new gap: the new range and the one above it go */
	mpt_acktrack_on_packet(&t, 13, true, 0);
	assert_int_equal(mpt_acktrack_build(&t, 0, &ai), 0);
	assert_int_equal(ai.nranges, 3);
	assert_int_equal(ai.r[0].lo, 13);
	assert_int_equal(ai.r[1].hi, 11);
	assert_int_equal(ai.r[2].hi, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_range_cap),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_ack_frequency),
		cmocka_unit_test(test_ranges_not_repeated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
