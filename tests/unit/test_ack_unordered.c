// SPDX-License-Identifier: MIT
/*
 * An inner pure TCP ACK takes a number of the unordered space (session.h,
 * mpt_session_number): it goes as DATA_UNORDERED, ahead of the bulk in its path's
 * queue and past its pacer, and leaves no number in the ordered space that the
 * receiver's reorder buffer would hold later packets for. The data packets around it
 * keep consecutive ordered numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ev.h>

#include "daemon.h"
#include "path.h"
#include "session.h"
#include "sessiontest.h"

#define MS	1000000ULL
#define T0	(1000 * MS)


static struct mpt_pkt *pkt(struct sessiontest *h, uint32_t len, bool ack_only)
{
	struct mpt_pkt *k = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(k);
	memset(k->data, 0x45, len);
	k->len = len;
	k->dsn = MPT_DSN_UNSET;
	k->unordered = false;
	memset(&k->meta, 0, sizeof(k->meta));
	k->meta.len = len;
	k->meta.proto = 6;
	k->meta.tcp_flags = MPT_TCP_FLAG_ACK;
	k->meta.tcp_ack_only = ack_only;
	return k;
}

static void test_pure_ack_unordered(void **state)
{
	struct mpt_pkt *k[3];
	struct sessiontest h;
	struct mpt_path *p;
	uint64_t dsn0, udsn0;

	sessiontest_init_ue(&h, "cpf", T0);
	p = &h.s->paths[0];
	p->cc.pacing_rate = 45000;
	p->cc.cwnd = 100000;
	p->pacer.horizon_ns = MS;
	p->pacer.next_ns = T0 + 31 * MS;	/* the pacer owes a bulk packet's time */
	dsn0 = h.s->next_dsn;
	udsn0 = h.s->next_udsn;

	/* as they leave the scheduler queue (session_tx.c take) for the path */
	k[0] = pkt(&h, 1400, false);
	k[1] = pkt(&h, 52, true);
	k[2] = pkt(&h, 1400, false);
	for (unsigned i = 0; i < 3; i++) {
		mpt_session_number(h.s, k[i]);
		mpt_session_dispatch(h.s, k[i], 1);
	}
	assert_false(k[0]->unordered);
	assert_true(k[1]->unordered);
	assert_int_equal(k[1]->dsn, udsn0);
	assert_int_equal(h.s->st.acks_unordered, 1);
	/* no hole in the ordered space where the ACK was */
	assert_int_equal(k[0]->dsn, dsn0);
	assert_int_equal(k[2]->dsn, dsn0 + 1);
	assert_int_equal(h.s->next_dsn, dsn0 + 2);
	assert_ptr_equal(p->txq.head, k[1]);		/* ahead of the bulk */

	/* the ACK leaves at once, past the pacer's debt; the bulk waits for it */
	mpt_session_flush(h.s, T0);
	assert_int_equal(p->st.data_tx, 1);
	assert_int_equal(p->txq.pkts, 2);
	assert_int_equal(p->txq.head->dsn, dsn0);

	sessiontest_free_ue(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pure_ack_unordered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
