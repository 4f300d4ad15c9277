// SPDX-License-Identifier: MIT
/*
 * Inner TCP retransmissions seen from the tunnel (tcpseq.h): new data and SYN/FIN are
 * not, a segment sent again is (also across the sequence space's wrap), a segment that
 * carries some new data is not, bare ACKs never are, and a flow that takes another's
 * slot starts afresh (a missed signal, never a false one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tcpseq.h"

static void test_retransmissions(void **state)
{
	struct mpt_tcpseq t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_false(mpt_tcpseq_note(&t, 7, 1000, 1));		/* SYN */
	assert_false(mpt_tcpseq_note(&t, 7, 1001, 1448));
	assert_false(mpt_tcpseq_note(&t, 7, 2449, 1448));
	assert_false(mpt_tcpseq_note(&t, 7, 3897, 0));		/* a bare ACK */
	assert_true(mpt_tcpseq_note(&t, 7, 1001, 1448));	/* sent again */
	assert_true(mpt_tcpseq_note(&t, 7, 2449, 1000));	/* part of it again */
	assert_false(mpt_tcpseq_note(&t, 7, 2449, 2000));	/* with new data */
	assert_false(mpt_tcpseq_note(&t, 7, 4449, 1448));
	assert_int_equal(t.retrans, 2);
}

static void test_wrap(void **state)
{
	struct mpt_tcpseq t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_false(mpt_tcpseq_note(&t, 9, 0xfffffc00u, 1000));
	assert_false(mpt_tcpseq_note(&t, 9, 0xffffffe8u, 1000));	/* wraps */
	assert_true(mpt_tcpseq_note(&t, 9, 0xfffffc00u, 1000));
	assert_false(mpt_tcpseq_note(&t, 9, 1000 - 0x18, 1000));
}

static void test_slots(void **state)
{
	struct mpt_tcpseq t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_false(mpt_tcpseq_note(&t, 5, 100, 100));
	assert_false(mpt_tcpseq_note(&t, 6, 100, 100));		/* another slot */
	assert_true(mpt_tcpseq_note(&t, 5, 100, 100));
	/* 5 + 64 shares 5's slot: it takes it, then 5 starts afresh */
	assert_false(mpt_tcpseq_note(&t, 5 + MPT_TCPSEQ_SLOTS, 100, 100));
	assert_false(mpt_tcpseq_note(&t, 5, 100, 100));
	assert_false(mpt_tcpseq_note(&t, 0, 100, 100));		/* no hash */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retransmissions),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
