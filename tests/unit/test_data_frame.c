// SPDX-License-Identifier: MIT
/*
 * The DATA frame types a sender uses (session_tx.c, mptund-proto(7)): an ordered
 * packet goes as DATA, its repair (Recovery = retransmit re-sends it after declaring
 * the first copy lost) as DATA_RESENT, so that a receiver does not raise its learned
 * reorder hold for a repair that comes after the hole was given up; an unordered one
 * as DATA_UNORDERED. With Recovery = retransmit (the default) the plaintext stays in
 * the packet after sealing, so the frame header can be read back.
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

static struct mpt_pkt *pkt(struct sessiontest *h, uint8_t rtx, bool ack_only)
{
	struct mpt_pkt *k = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(k);
	memset(k->data, 0x45, 1000);
	k->len = 1000;
	k->dsn = MPT_DSN_UNSET;
	k->unordered = false;
	memset(&k->meta, 0, sizeof(k->meta));
	k->meta.len = 1000;
	k->meta.proto = 6;
	k->meta.tcp_flags = MPT_TCP_FLAG_ACK;
	k->meta.tcp_ack_only = ack_only;
	k->rtx = rtx;
	return k;
}

/* The first byte of the sealed datagram's first frame: its type. */
static uint8_t frame_type(const struct mpt_pkt *k)
{
	return (k->data - MPT_WIRE_DATA_PREFIX)[MPT_WIRE_HDR_LEN];
}

static void test_repair_goes_as_data_resent(void **state)
{
	struct mpt_pkt *k[3];
	struct sessiontest h;
	struct mpt_path *p;

	(void)state;
	sessiontest_init_ue(&h, "cpf", T0);
	assert_int_equal(h.d->cfg.recovery, MPT_RECOVERY_RETRANSMIT);
	p = &h.s->paths[0];
	p->cc.pacing_rate = 1000000000;
	p->cc.cwnd = 100000;
	k[0] = pkt(&h, 0, false);
	k[1] = pkt(&h, 1, false);	/* as mpt_session_repair leaves it */
	k[2] = pkt(&h, 0, true);	/* an inner pure ACK: unordered */
	for (unsigned i = 0; i < 3; i++) {
		mpt_session_number(h.s, k[i]);
		mpt_session_dispatch(h.s, k[i], 1);
	}
	mpt_session_flush(h.s, T0);
	assert_int_equal(p->st.data_tx, 3);
	assert_int_equal(frame_type(k[0]), MPT_FRAME_DATA);
	assert_int_equal(frame_type(k[1]), MPT_FRAME_DATA_RESENT);
	assert_int_equal(frame_type(k[2]), MPT_FRAME_DATA_UNORDERED);

	sessiontest_free_ue(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repair_goes_as_data_resent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
