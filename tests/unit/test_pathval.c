// SPDX-License-Identifier: MIT
/* Address validation (pathval.h): a new address is followed only after it echoes its
 * challenge from that address; older packet numbers are refused; nothing sent to the
 * candidate exceeds 3x what it sent; a second candidate replaces the first. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pathval.h"

#define MS 1000000ull
#define CH_LEN 80	/* a challenge datagram's size (any size below 3x works) */

static struct sockaddr_storage addr4(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin->sin_addr);
	return ss;
}

static void test_validated_only_by_echo_from_candidate(void **state)
{
	struct sockaddr_storage nat = addr4("192.0.2.7", 40001);
	struct sockaddr_storage other = addr4("198.51.100.9", 40001);
	socklen_t len = sizeof(struct sockaddr_in);
	struct mpt_pathval v;

	mpt_pathval_reset(&v);
	assert_int_equal(mpt_pathval_on_packet(&v, &nat, len, 100, true, 0x1122334455667788ull,
					       50 * MS, 1000), MPT_PV_CHALLENGE);
	assert_true(mpt_pathval_is_cand(&v, &nat, len));
	/* nothing sent yet: no echo can validate */
	assert_false(mpt_pathval_on_response(&v, &nat, len, 0x1122334455667788ull));
	assert_true(mpt_pathval_may_send(&v, CH_LEN));
	mpt_pathval_on_sent(&v, CH_LEN, 1000);
	/* the wrong token, the right token from elsewhere, the old token: no */
	assert_false(mpt_pathval_on_response(&v, &nat, len, 0x1122334455667789ull));
	assert_false(mpt_pathval_on_response(&v, &other, len, 0x1122334455667788ull));
	assert_false(mpt_pathval_on_response(&v, &nat, len, 0));
	/* a port change alone makes another address */
	other = addr4("192.0.2.7", 40002);
	assert_false(mpt_pathval_on_response(&v, &other, len, 0x1122334455667788ull));
	assert_true(mpt_pathval_on_response(&v, &nat, len, 0x1122334455667788ull));
}

static void test_older_packet_refused(void **state)
{
	struct sockaddr_storage copy = addr4("203.0.113.66", 5000);
	socklen_t len = sizeof(struct sockaddr_in);
	struct mpt_pathval v;

	mpt_pathval_reset(&v);
	assert_int_equal(mpt_pathval_on_packet(&v, &copy, len, 100, false, 42, 50 * MS, 1),
			 MPT_PV_REFUSED);
	assert_false(mpt_pathval_is_cand(&v, &copy, len));
	assert_false(mpt_pathval_may_send(&v, 1));
	assert_int_equal(mpt_pathval_on_packet(&v, &copy, 0, 100, true, 42, 50 * MS, 1),
			 MPT_PV_REFUSED);
}

static void test_anti_amplification(void **state)
{
	struct sockaddr_storage c = addr4("192.0.2.1", 1);
	socklen_t len = sizeof(struct sockaddr_in);
	uint64_t sent = 0, now = 1;
	struct mpt_pathval v;

	mpt_pathval_reset(&v);
	/* a 40-byte packet: 120 bytes of budget, one 80-byte challenge */
	assert_int_equal(mpt_pathval_on_packet(&v, &c, len, 40, true, 7, 10 * MS, now),
			 MPT_PV_CHALLENGE);
	assert_true(mpt_pathval_may_send(&v, CH_LEN));
	mpt_pathval_on_sent(&v, CH_LEN, now);
	sent += CH_LEN;
	assert_false(mpt_pathval_may_send(&v, CH_LEN));
	/* more packets from it: retries when due, never past 3x what arrived */
	for (int i = 0; i < 1000; i++) {
		now += 3 * MS;
		if (mpt_pathval_on_packet(&v, &c, len, 20, i & 1, 7, 10 * MS, now) ==
			    MPT_PV_CHALLENGE &&
		    mpt_pathval_may_send(&v, CH_LEN)) {
			mpt_pathval_on_sent(&v, CH_LEN, now);
			sent += CH_LEN;
		}
		assert_true(sent <= 3 * (40 + 20 * (uint64_t)(i + 1)));
	}
	assert_true(sent > CH_LEN);	/* it did retry */
	assert_true(sent <= 3 * (40 + 20 * 1000));
	/* at most one retry per retry interval: 1000 packets 3 ms apart, 10 ms interval */
	assert_true(sent / CH_LEN <= 1 + 3000 / 10);
}

static void test_new_candidate_replaces(void **state)
{
	struct sockaddr_storage a = addr4("192.0.2.1", 1), b = addr4("192.0.2.2", 1);
	socklen_t len = sizeof(struct sockaddr_in);
	struct mpt_pathval v;

	mpt_pathval_reset(&v);
	mpt_pathval_on_packet(&v, &a, len, 100, true, 1111, 10 * MS, 1);
	mpt_pathval_on_sent(&v, CH_LEN, 1);
	/* b, newest: the candidate now, a fresh challenge; a's answer is worth nothing */
	assert_int_equal(mpt_pathval_on_packet(&v, &b, len, 100, true, 2222, 10 * MS, 2),
			 MPT_PV_CHALLENGE);
	mpt_pathval_on_sent(&v, CH_LEN, 2);
	assert_false(mpt_pathval_on_response(&v, &a, len, 1111));
	assert_false(mpt_pathval_on_response(&v, &b, len, 1111));
	assert_true(mpt_pathval_on_response(&v, &b, len, 2222));
	/* an older copy from a does not disturb b's validation */
	assert_int_equal(mpt_pathval_on_packet(&v, &a, len, 100, false, 3333, 10 * MS, 3),
			 MPT_PV_REFUSED);
	assert_true(mpt_pathval_on_response(&v, &b, len, 2222));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validated_only_by_echo_from_candidate),
		cmocka_unit_test(test_older_packet_refused),
		cmocka_unit_test(test_anti_amplification),
		cmocka_unit_test(test_new_candidate_replaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
