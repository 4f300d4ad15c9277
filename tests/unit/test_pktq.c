// SPDX-License-Identifier: MIT
/*
 * Packet queues (pkt.h): mpt_pktq_splice_after moves a whole queue into another after
 * a given packet (NULL: to the front, mpt_pktq_prepend) and keeps head, tail, counts
 * and bytes right, at the front, in the middle, at the tail and into an empty queue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pkt.h"

static struct mpt_pkt pk[8];

/* q gets the packets of ids (len = 100 + id), in order. */
static void fill(struct mpt_pktq *q, const unsigned *ids, unsigned n)
{
	*q = (struct mpt_pktq){ 0 };
	for (unsigned i = 0; i < n; i++) {
		pk[ids[i]].len = 100 + ids[i];
		mpt_pktq_push(q, &pk[ids[i]]);
	}
}

/* q holds exactly the packets of ids, in order, with its tail and counts right. */
static void expect(const struct mpt_pktq *q, const unsigned *ids, unsigned n)
{
	const struct mpt_pkt *p = q->head;
	uint64_t bytes = 0;

	for (unsigned i = 0; i < n; i++, p = p->next) {
		assert_ptr_equal(p, &pk[ids[i]]);
		bytes += 100 + ids[i];
	}
	assert_null(p);
	assert_ptr_equal(q->tail, n ? &pk[ids[n - 1]] : NULL);
	assert_int_equal(q->pkts, n);
	assert_int_equal(q->bytes, bytes);
}

static void test_splice_after(void **state)
{
	struct mpt_pktq q, from;

	(void)state;
	/* middle */
	fill(&q, (unsigned[]){ 0, 1, 2 }, 3);
	fill(&from, (unsigned[]){ 5, 6 }, 2);
	mpt_pktq_splice_after(&q, &pk[0], &from);
	expect(&q, (unsigned[]){ 0, 5, 6, 1, 2 }, 5);
	expect(&from, NULL, 0);
	/* tail: the tail moves */
	fill(&q, (unsigned[]){ 0, 1 }, 2);
	fill(&from, (unsigned[]){ 5 }, 1);
	mpt_pktq_splice_after(&q, &pk[1], &from);
	expect(&q, (unsigned[]){ 0, 1, 5 }, 3);
	/* front (prepend) */
	fill(&q, (unsigned[]){ 0, 1 }, 2);
	fill(&from, (unsigned[]){ 5, 6 }, 2);
	mpt_pktq_prepend(&q, &from);
	expect(&q, (unsigned[]){ 5, 6, 0, 1 }, 4);
	/* into an empty queue */
	fill(&q, NULL, 0);
	fill(&from, (unsigned[]){ 5, 6 }, 2);
	mpt_pktq_prepend(&q, &from);
	expect(&q, (unsigned[]){ 5, 6 }, 2);
	/* nothing to move */
	fill(&from, NULL, 0);
	mpt_pktq_splice_after(&q, &pk[5], &from);
	expect(&q, (unsigned[]){ 5, 6 }, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splice_after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
