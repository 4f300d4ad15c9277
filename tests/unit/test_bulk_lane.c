// SPDX-License-Identifier: MIT
/*
 * A full bulk lane drops from the front (src/core/session.c, drop_front; RFC 7567
 * section 1.1, "drop front on full"): the oldest packet goes and the one arriving is
 * kept, so the inner sender learns of its loss from the packets right behind the
 * hole. Not dropped: a packet numbered already (the receiver would wait for it), a
 * pure ACK, a SYN, a FIN. With nothing that may go, the arriving packet is dropped
 * (tail drop) and the lane stays at QueueLimit. An inner TCP retransmission is not
 * dropped from the front either.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ev.h>

#include "daemon.h"
#include "session.h"
#include "sessiontest.h"

#define MS	1000000ULL
#define T0	(1000 * MS)
#define LIMIT	16

enum kind { DATA, ACK_ONLY, SYN, FIN, RETRANS };

/* One inner TCP packet of flow 1 tagged `tag` (its first two bytes), into the
 * session as tunio.c hands it over. */
static void send_pkt(struct sessiontest *h, uint16_t tag, enum kind kind)
{
	struct mpt_pkt *k = mpt_pkt_alloc(&h->d->pool);

	assert_non_null(k);
	k->len = kind == DATA || kind == RETRANS ? 1400 : 52;
	memset(k->data, 0x45, k->len);
	k->data[0] = (uint8_t)(tag >> 8);
	k->data[1] = (uint8_t)tag;
	memset(&k->meta, 0, sizeof(k->meta));
	k->meta.len = k->len;
	k->meta.proto = 6;
	k->meta.flow_hash = 1;
	k->meta.tcp_flags = MPT_TCP_FLAG_ACK | (kind == SYN ? MPT_TCP_FLAG_SYN : 0) |
			    (kind == FIN ? MPT_TCP_FLAG_FIN : 0);
	k->meta.tcp_ack_only = kind == ACK_ONLY;
	k->meta.tcp_retrans = kind == RETRANS;	/* as mpt_session_note_tcp finds */
	mpt_session_enqueue(h->s, k, T0);
}

static uint16_t tag_of(const struct mpt_pkt *k)
{
	return (uint16_t)(k->data[0] << 8 | k->data[1]);
}

/* The bulk lane's tags in order, into out (at most n); returns how many. */
static unsigned tags(const struct sessiontest *h, uint16_t *out, unsigned n)
{
	unsigned i = 0;

	for (const struct mpt_pkt *k = h->s->squeue.head; k && i < n; k = k->next)
		out[i++] = tag_of(k);
	return i;
}

static void setup(struct sessiontest *h)
{
	sessiontest_init_ue(h, "cpf", T0);
	h->d->cfg.queue_limit = LIMIT;
	h->d->cfg.sparse_flows = false;		/* every packet bulk */
}

/* Full: each packet arriving pushes the oldest out; the newest LIMIT stay, in order. */
static void test_drops_oldest(void **state)
{
	struct sessiontest h;
	uint16_t t[LIMIT + 4];

	(void)state;
	setup(&h);
	for (uint16_t i = 0; i < LIMIT + 3; i++)
		send_pkt(&h, i, DATA);
	assert_int_equal(tags(&h, t, LIMIT + 4), LIMIT);
	for (unsigned i = 0; i < LIMIT; i++)
		assert_int_equal(t[i], i + 3);		/* 0, 1, 2 went */
	assert_int_equal(h.s->st.queue_drops, 3);
	assert_int_equal(h.s->st.queue_front_drops, 3);
	assert_int_equal(h.s->st.tun_rx_pkts, LIMIT + 3);
	sessiontest_free_ue(&h);
}

/* Numbered packets (an in-order take's), a SYN, a pure ACK and a FIN at the front
 * stay; the first data packet behind them goes. */
static void test_skips_exempt(void **state)
{
	struct sessiontest h;
	uint16_t t[LIMIT + 4];
	struct mpt_pkt *k;

	(void)state;
	setup(&h);
	send_pkt(&h, 0, DATA);
	send_pkt(&h, 1, DATA);
	send_pkt(&h, 2, SYN);
	send_pkt(&h, 3, ACK_ONLY);
	send_pkt(&h, 4, FIN);
	for (uint16_t i = 5; i < LIMIT; i++)
		send_pkt(&h, i, DATA);
	k = h.s->squeue.head;			/* as take() numbers what it passes */
	mpt_session_number(h.s, k);
	mpt_session_number(h.s, k->next);
	send_pkt(&h, 100, DATA);
	send_pkt(&h, 101, DATA);
	assert_int_equal(tags(&h, t, LIMIT + 4), LIMIT);
	assert_int_equal(t[0], 0);
	assert_int_equal(t[1], 1);
	assert_int_equal(t[2], 2);
	assert_int_equal(t[3], 3);
	assert_int_equal(t[4], 4);
	assert_int_equal(t[5], 7);		/* 5 and 6 went */
	assert_int_equal(t[LIMIT - 2], 100);
	assert_int_equal(t[LIMIT - 1], 101);
	assert_int_equal(h.s->st.queue_front_drops, 2);
	sessiontest_free_ue(&h);
}

/* Nothing may go (pure ACKs): the arriving packet is dropped, the lane stays full. */
static void test_tail_drop_when_none_may_go(void **state)
{
	struct sessiontest h;
	uint16_t t[LIMIT + 4];

	(void)state;
	setup(&h);
	for (uint16_t i = 0; i < LIMIT; i++)
		send_pkt(&h, i, ACK_ONLY);
	send_pkt(&h, 100, DATA);
	assert_int_equal(tags(&h, t, LIMIT + 4), LIMIT);
	assert_int_equal(t[LIMIT - 1], LIMIT - 1);
	assert_int_equal(h.s->st.queue_drops, 1);
	assert_int_equal(h.s->st.queue_front_drops, 0);
	assert_int_equal(h.s->st.tun_rx_pkts, LIMIT);
	sessiontest_free_ue(&h);
}

/* Retransmissions that reached the front of a full lane stay; the data behind goes. */
static void test_retrans_not_dropped(void **state)
{
	struct sessiontest h;
	uint16_t t[LIMIT + 4];

	(void)state;
	setup(&h);
	send_pkt(&h, 100, RETRANS);
	send_pkt(&h, 101, RETRANS);
	for (uint16_t i = 0; i < LIMIT - 2; i++)
		send_pkt(&h, i, DATA);
	send_pkt(&h, 200, DATA);
	assert_int_equal(tags(&h, t, LIMIT + 4), LIMIT);
	assert_int_equal(t[0], 100);
	assert_int_equal(t[1], 101);
	assert_int_equal(t[2], 1);		/* 0 went */
	assert_int_equal(t[LIMIT - 1], 200);
	assert_int_equal(h.s->st.queue_front_drops, 1);
	sessiontest_free_ue(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drops_oldest),
		cmocka_unit_test(test_skips_exempt),
		cmocka_unit_test(test_tail_drop_when_none_may_go),
		cmocka_unit_test(test_retrans_not_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
