// SPDX-License-Identifier: MIT
/*
 * A real-time packet (a rule with Ordered = no) at the head of a path's queue is not
 * paced (session_tx.c paced_ready): it leaves while the pacer still owes a bulk
 * packet's time, is not charged to the pacer, and the bulk packet behind it waits for
 * the pacer as before, the session's timer set for its release. An inner pure ACK is
 * unordered too, but not real-time: its bytes in flight are not the rule's own.
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


static struct mpt_pkt *pkt(struct sessiontest *h, uint32_t len, uint64_t dsn, bool rt)
{
	struct mpt_pkt *k = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(k);
	memset(k->data, 0x45, len);
	k->len = len;
	k->dsn = dsn;
	k->unordered = k->realtime = rt;
	return k;
}

static void test_realtime_not_paced(void **state)
{
	const uint64_t rate = 45000;		/* a rate learned from a voice trickle */
	struct sessiontest h;
	struct mpt_path *p;
	uint64_t owed;

	sessiontest_init_ue(&h, "cpf", T0);
	p = &h.s->paths[0];
	p->cc.pacing_rate = rate;
	p->cc.cwnd = 100000;
	p->pacer.horizon_ns = MS;
	p->pacer.next_ns = T0 + 31 * MS;	/* a 1,400-byte bulk packet just left */
	owed = p->pacer.next_ns;

	mpt_pktq_push(&p->txq, pkt(&h, 1400, 1, false));
	mpt_pktq_push_ahead(&p->txq, pkt(&h, 160, 0, true));
	mpt_session_flush(h.s, T0);

	assert_int_equal(p->st.data_tx, 1);		/* the voice packet left */
	assert_int_equal(p->txq.pkts, 1);
	assert_false(p->txq.head->unordered);		/* the bulk waits */
	assert_int_equal(p->pacer.next_ns, owed);	/* nothing charged */
	/* the timer is not for now (nothing else may leave) and not after the bulk's turn */
	assert_true(h.s->timer_at > T0 && h.s->timer_at <= owed - MS);

	/* its turn: it leaves and is charged, len / rate */
	mpt_session_flush(h.s, owed - MS);
	assert_int_equal(p->st.data_tx, 2);
	assert_int_equal(p->txq.pkts, 0);
	assert_true(p->pacer.next_ns >= owed + 1400 * 1000 * MS / rate);

	/* a voice packet behind that debt leaves at once again */
	mpt_pktq_push_ahead(&p->txq, pkt(&h, 160, 1, true));
	owed = p->pacer.next_ns;
	mpt_session_flush(h.s, T0 + 40 * MS);
	assert_int_equal(p->st.data_tx, 3);
	assert_int_equal(p->pacer.next_ns, owed);

	sessiontest_free_ue(&h);
}

/*
 * A path's real-time bytes in flight (the recovery's rt_in_flight, what a real-time
 * rule's allowance counts as its own: session_rules.c) are the real-time rules'
 * packets only. An inner pure ACK is numbered unordered (session.h) and leaves ahead of
 * the bulk unpaced like them, but it is the download's: counted as real-time, a
 * window of a download's ACKs on the path used up the voice's allowance
 * (test_session_rules: test_realtime_past_pure_acks).
 */
static void test_pure_ack_not_realtime(void **state)
{
	struct sessiontest h;
	struct mpt_path *p;
	struct mpt_pkt *ack;
	uint64_t acked_bytes;

	sessiontest_init_ue(&h, "cpf", T0);
	p = &h.s->paths[0];
	p->cc.pacing_rate = 1000000;
	p->cc.cwnd = 100000;
	ack = pkt(&h, 80, 0, false);
	ack->unordered = true;			/* as mpt_session_number numbers it */
	ack->meta.tcp_ack_only = true;
	mpt_pktq_push_ahead(&p->txq, ack);
	mpt_session_flush(h.s, T0);
	assert_int_equal(p->st.data_tx, 1);
	acked_bytes = p->rec.in_flight;
	assert_true(acked_bytes > 80);
	assert_int_equal(p->rec.rt_in_flight, 0);

	mpt_pktq_push_ahead(&p->txq, pkt(&h, 160, 1, true));	/* a voice packet */
	mpt_session_flush(h.s, T0 + MS);
	assert_int_equal(p->st.data_tx, 2);
	assert_int_equal(p->rec.rt_in_flight, p->rec.in_flight - acked_bytes);
	assert_true(p->rec.rt_in_flight > 160);
	sessiontest_free_ue(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realtime_not_paced),
		cmocka_unit_test(test_pure_ack_not_realtime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
