// SPDX-License-Identifier: MIT
/*
 * DPLPMTUD (RFC 8899) on a simulated link that drops every datagram above N bytes,
 * with and without ICMP PTB: the search converges to N within 2 s, probes are bounded
 * and counted, a fall of the path MTU under data is found as a black hole and
 * searched again, a rise is found by the raise timer, congestion losses are not taken
 * for a black hole, a pinned MTU sends no probe and hints below the base are ignored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plpmtud.h"

#define MS	1000000ULL
#define NEV	4096

/* The simulated path: one-way delay, an MTU, PTB on or off; events in flight. */
struct ev {
	uint64_t at;
	int kind;			/* 1 probe ack, 2 data delivered, 3 data lost, 4 ptb */
	uint32_t id;
	uint16_t size;
	uint64_t sent;
};

struct link {
	struct mpt_plpmtud m;
	uint64_t now, owd;
	uint16_t mtu;
	bool ptb;
	struct ev ev[NEV];
	unsigned nev;
	unsigned black_holes_seen;
	uint64_t data_every;		/* send a full data packet this often (0: none) */
	uint64_t next_data;
	unsigned congest_every;		/* drop every k-th big data packet (congestion) */
	unsigned data_seq;
	uint64_t burst_loss;		/* every probe sent before this is lost */
	uint64_t timeout;		/* the caller's probe timeout (0: 3 x owd + 10 ms) */
	/* a full queue: every datagram above 1000 bytes sent within cong_len of a
	 * multiple of cong_every is dropped, the small ones pass (a byte-limited FIFO) */
	uint64_t cong_every, cong_len;
	uint64_t small_every;		/* send a 100-byte data packet this often */
	uint64_t next_small;
};

static bool congested(const struct link *l, uint16_t size)
{
	return l->cong_every && size > 1000 && l->now % l->cong_every < l->cong_len;
}

static void push(struct link *l, struct ev e)
{
	assert_true(l->nev < NEV);
	l->ev[l->nev++] = e;
}

static void send_probes(struct link *l, const uint16_t *sizes, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t id = mpt_plpmtud_probe_id(&l->m, sizes[i]);

		if (sizes[i] <= l->mtu && !(l->burst_loss && l->now < l->burst_loss) &&
		    !congested(l, sizes[i]))
			push(l, (struct ev){ l->now + 2 * l->owd, 1, id, sizes[i], l->now });
		else if (sizes[i] > l->mtu && l->ptb)
			push(l, (struct ev){ l->now + l->owd, 4, 0, l->mtu, l->now });
	}
	mpt_plpmtud_on_sent(&l->m, n, l->timeout ? l->timeout : 3 * l->owd + 10 * MS, l->now);
}

static void send_data(struct link *l)
{
	uint16_t size = mpt_plpmtud_cap(&l->m);
	bool lost = size > l->mtu;

	if (size > 1500)
		size = 1500;
	l->data_seq++;
	if (l->congest_every && l->data_seq % l->congest_every == 0)
		lost = true;
	if (congested(l, size)) {
		/* declared lost when the ACK of a small packet sent just after it comes
		 * (RFC 9002's packet threshold), before any later large one's */
		push(l, (struct ev){ l->now + 2 * l->owd + MS, 3, 0, size, l->now });
		return;
	}
	/* a loss is declared about one RTT and a bit after the send */
	push(l, (struct ev){ l->now + (lost ? 3 : 2) * l->owd, lost ? 3 : 2, 0, size, l->now });
	if (lost && size > l->mtu && l->ptb)
		push(l, (struct ev){ l->now + l->owd, 4, 0, l->mtu, l->now });
}

static void step(struct link *l)
{
	uint16_t sizes[MPT_PMTU_ROUND_MAX];
	unsigned n;

	for (unsigned i = 0; i < l->nev;) {
		struct ev e = l->ev[i];

		if (e.at > l->now) {
			i++;
			continue;
		}
		l->ev[i] = l->ev[--l->nev];
		if (e.kind == 1)
			mpt_plpmtud_on_probe_ack(&l->m, e.id, l->now);
		else if (e.kind == 4)
			mpt_plpmtud_on_ptb(&l->m, e.size, l->now);
		else if (mpt_plpmtud_on_data(&l->m, e.size, e.sent, e.kind == 3, l->now))
			l->black_holes_seen++;
	}
	n = mpt_plpmtud_due(&l->m, l->now, sizes);
	if (n)
		send_probes(l, sizes, n);
	if (l->data_every && l->now >= l->next_data) {
		send_data(l);
		l->next_data = l->now + l->data_every;
	}
	if (l->small_every && l->now >= l->next_small) {
		push(l, (struct ev){ l->now + 2 * l->owd, 2, 0, 100, l->now });
		l->next_small = l->now + l->small_every;
	}
}

static void run(struct link *l, uint64_t until)
{
	for (; l->now < until; l->now += MS / 4)
		step(l);
}

static void setup(struct link *l, uint16_t base, uint16_t mtu, uint64_t owd, bool ptb)
{
	memset(l, 0, sizeof(*l));
	mpt_plpmtud_init(&l->m, base, 1500, 0);
	l->owd = owd;
	l->mtu = mtu;
	l->ptb = ptb;
	l->now = 1 * MS;
	mpt_plpmtud_start(&l->m, l->now);
}

/* Time until the search completes, or UINT64_MAX. */
static uint64_t converge(struct link *l, uint64_t limit)
{
	uint64_t t0 = l->now;

	while (l->now - t0 < limit) {
		step(l);
		if (l->m.state == MPT_PMTU_COMPLETE)
			return l->now - t0;
		l->now += MS / 4;
	}
	return UINT64_MAX;
}

static void test_search_converges(void **state)
{
	static const uint16_t mtus[] = { 1500, 1492, 1400, 1350, 1280, 1201, 1200 };
	static const uint64_t owds[] = { 1 * MS, 25 * MS, 50 * MS };

	for (unsigned p = 0; p < 2; p++)
		for (unsigned i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++)
			for (unsigned k = 0; k < 3; k++) {
				struct link l;
				uint64_t t;

				setup(&l, MPT_PMTU_BASE_V4, mtus[i], owds[k], p == 1);
				t = converge(&l, 10000 * MS);
				assert_int_equal(l.m.plpmtu, mtus[i]);
				assert_int_equal(mpt_plpmtud_cap(&l.m), mtus[i]);
				/* the goal: found within 2 s on paths up to 100 ms RTT */
				if (owds[k] <= 50 * MS)
					assert_true(t <= 2000 * MS);
				/* bounded: 300 bytes shrink 6-fold a round: 4 rounds */
				assert_true(l.m.probes_sent <=
					    4 * MPT_PMTU_ROUND_MAX * 2);
				/* every probe is answered or counted lost (an answer
				 * after its round settled is counted both ways) */
				assert_true(l.m.probes_acked + l.m.probes_lost >=
					    l.m.probes_sent);
			}
}

/* A full queue drops the round's first probes at once: the second copies, half a
 * timeout later, still find the path's real size. */
static void test_burst_loss_does_not_fail_a_size(void **state)
{
	struct link l;

	setup(&l, MPT_PMTU_BASE_V4, 1500, 20 * MS, false);
	l.burst_loss = l.now + 5 * MS;
	converge(&l, 5000 * MS);
	assert_int_equal(l.m.plpmtu, 1500);
	assert_true(l.m.probes_lost >= 1);
}

/*
 * The caller's timeout far above the path's RTT (test_pmtu6: a data RTT sample taken
 * across the path coming up gave a 3.3 s timeout on a 0.3 ms path, and the search
 * took 3.3 s; before any data RTT it is 500 ms): the probes time the rounds
 * themselves, and every size is found within a few hundred ms, ICMP or not, on paths
 * up to 100 ms RTT; the real size still, with slow serialisation of the round.
 */
static void test_probes_time_the_rounds(void **state)
{
	static const uint16_t mtus[] = { 1500, 1404, 1400, 1281 };
	static const uint64_t owds[] = { 150000, 1 * MS, 50 * MS };

	for (unsigned p = 0; p < 2; p++)
		for (unsigned i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++)
			for (unsigned k = 0; k < 3; k++) {
				struct link l;
				uint64_t t;

				setup(&l, MPT_PMTU_BASE_V6, mtus[i], owds[k], p == 1);
				l.timeout = 3300 * MS;
				t = converge(&l, 20000 * MS);
				assert_int_equal(l.m.plpmtu, mtus[i]);
				/* 4 rounds of at most 5 x 100 ms (+ the floor) */
				assert_true(t <= 4 * (5 * 2 * owds[k] + 20 * MS) + 2 * MS);
			}
}

static void test_ptb_makes_it_faster(void **state)
{
	struct link a, b;
	uint64_t ta, tb;

	setup(&a, MPT_PMTU_BASE_V6, 1280 + 60, 20 * MS, false);
	setup(&b, MPT_PMTU_BASE_V6, 1280 + 60, 20 * MS, true);
	ta = converge(&a, 5000 * MS);
	tb = converge(&b, 5000 * MS);
	assert_int_equal(a.m.plpmtu, 1340);
	assert_int_equal(b.m.plpmtu, 1340);
	assert_true(b.m.ptb_hints >= 1);
	assert_true(tb < ta);
	assert_true(b.m.probes_lost < a.m.probes_lost);
}

static void test_black_hole_under_data(void **state)
{
	struct link l;
	uint64_t fell, found = 0;

	setup(&l, MPT_PMTU_BASE_V4, 1500, 15 * MS, false);
	l.data_every = MS;
	run(&l, 2000 * MS);
	assert_int_equal(l.m.state, MPT_PMTU_COMPLETE);
	assert_int_equal(mpt_plpmtud_cap(&l.m), 1500);
	assert_int_equal(l.m.black_holes, 0);
	/* handover: the path now drops anything above 1280, silently */
	l.mtu = 1280;
	fell = l.now;
	while (l.now < fell + 5000 * MS) {
		step(&l);
		if (!found && l.m.black_holes)
			found = l.now;
		l.now += MS / 4;
	}
	assert_int_equal(l.m.black_holes, 1);
	/* about one RTO: a few losses and a small probe's round trip */
	assert_true(found - fell <= 200 * MS);
	assert_int_equal(l.m.state, MPT_PMTU_COMPLETE);
	assert_int_equal(l.m.plpmtu, 1280);
	/* the path comes back to 1500: the first raise after a black hole comes soon */
	l.mtu = 1500;
	run(&l, l.now + MPT_PMTU_RAISE_FAST_NS + 2000 * MS);
	assert_int_equal(l.m.plpmtu, 1500);
	assert_int_equal(l.m.black_holes, 1);
	assert_int_equal(l.m.raise_ns, MPT_PMTU_RAISE_NS);	/* found: back to 60 s */
}

/* Raises that find nothing back off: 5 s, 10 s, 20 s, 40 s, 60 s. */
static void test_raise_backs_off(void **state)
{
	struct link l;

	setup(&l, MPT_PMTU_BASE_V4, 1500, 5 * MS, false);
	l.data_every = MS;
	run(&l, 1000 * MS);
	l.mtu = 1280;
	run(&l, l.now + 1000 * MS);
	assert_int_equal(l.m.black_holes, 1);
	assert_int_equal(l.m.raise_ns, MPT_PMTU_RAISE_FAST_NS);
	run(&l, l.now + 6000 * MS);
	assert_int_equal(l.m.raise_ns, 2 * MPT_PMTU_RAISE_FAST_NS);
	run(&l, l.now + 11000 * MS);
	assert_int_equal(l.m.raise_ns, 4 * MPT_PMTU_RAISE_FAST_NS);
	assert_int_equal(l.m.plpmtu, 1280);
}

static void test_single_small_path_from_start(void **state)
{
	struct link l;

	/* full-size data from the first round trip on a 1280 path without ICMP */
	setup(&l, MPT_PMTU_BASE_V4, 1280, 20 * MS, false);
	l.data_every = MS;
	run(&l, 2000 * MS);
	assert_int_equal(l.m.state, MPT_PMTU_COMPLETE);
	assert_int_equal(l.m.plpmtu, 1280);
	assert_int_equal(mpt_plpmtud_cap(&l.m), 1280);
}

static void test_congestion_is_not_a_black_hole(void **state)
{
	struct link l;

	setup(&l, MPT_PMTU_BASE_V4, 1500, 10 * MS, false);
	l.data_every = MS / 4;
	l.congest_every = 7;		/* one in seven lost, later ones delivered */
	run(&l, 10000 * MS);
	assert_int_equal(l.m.black_holes, 0);
	assert_int_equal(l.m.plpmtu, 1500);
}

/*
 * A full queue drops every large packet for a while (5 ms in every 200) and lets the
 * small ones by: their ACKs declare the large ones lost before any later large packet
 * is acknowledged, as a black hole would. The confirmation round (the lost size and
 * the base) finds the size still passes: no black hole, the PLPMTU stays. Without it,
 * every burst took the path to the base.
 */
static void test_congestion_burst_is_not_a_black_hole(void **state)
{
	struct link l;

	setup(&l, MPT_PMTU_BASE_V4, 1500, 10 * MS, false);
	l.data_every = MS / 4;
	l.small_every = MS / 4;
	run(&l, 1000 * MS);
	assert_int_equal(l.m.plpmtu, 1500);
	l.cong_every = 200 * MS;
	l.cong_len = 5 * MS;
	run(&l, l.now + 10000 * MS);
	assert_int_equal(l.m.black_holes, 0);
	assert_true(l.m.bh_unconfirmed >= 10);	/* each burst looked like one */
	assert_int_equal(l.m.state, MPT_PMTU_COMPLETE);
	assert_int_equal(mpt_plpmtud_cap(&l.m), 1500);
	/* the same traffic over a real fall: found, as before */
	l.cong_every = 0;
	l.mtu = 1280;
	run(&l, l.now + 500 * MS);
	assert_int_equal(l.m.black_holes, 1);
	assert_int_equal(mpt_plpmtud_cap(&l.m), 1280);
}

static void test_pinned_and_bad_hints(void **state)
{
	uint16_t sizes[MPT_PMTU_ROUND_MAX];
	struct mpt_plpmtud m;

	mpt_plpmtud_init(&m, MPT_PMTU_BASE_V4, 1500, 1400);
	mpt_plpmtud_start(&m, 0);
	assert_int_equal(mpt_plpmtud_cap(&m), 1400);
	assert_int_equal(mpt_plpmtud_due(&m, 1000 * MS, sizes), 0);
	assert_false(mpt_plpmtud_on_ptb(&m, 1300, 0));
	assert_string_equal(mpt_plpmtud_state_name(&m), "pinned");

	mpt_plpmtud_init(&m, MPT_PMTU_BASE_V4, 1500, 0);
	mpt_plpmtud_start(&m, 0);
	assert_false(mpt_plpmtud_on_ptb(&m, 576, 0));	/* below the base */
	assert_false(mpt_plpmtud_on_ptb(&m, 9000, 0));	/* not below the cap */
	assert_int_equal(m.ptb_ignored, 2);
	assert_true(mpt_plpmtud_on_ptb(&m, 1300, 0));
	assert_int_equal(mpt_plpmtud_cap(&m), 1300);	/* at once, a hint */
	assert_true(mpt_plpmtud_due(&m, 0, sizes) >= 1);
	assert_int_equal(sizes[0], 1300);		/* then confirmed */
}

/* A PTB that comes after the round whose probe drew it was closed (that size taken as
 * failed, only smaller ones confirmed) still names the limit: the next round probes it
 * first. Once complete, only a PTB below the PLPMTU counts (the path shrank). */
static void test_late_ptb(void **state)
{
	uint16_t sizes[MPT_PMTU_ROUND_MAX];
	struct mpt_plpmtud m;
	unsigned n;

	(void)state;
	mpt_plpmtud_init(&m, MPT_PMTU_BASE_V6, 1500, 0);
	mpt_plpmtud_start(&m, 0);
	n = mpt_plpmtud_due(&m, 0, sizes);
	assert_int_equal(n, MPT_PMTU_ROUND_MAX);
	for (unsigned i = 0; i < n; i++)
		mpt_plpmtud_probe_id(&m, sizes[i]);
	mpt_plpmtud_on_sent(&m, n, 50 * MS, 0);
	for (unsigned i = 0; i < n; i++)	/* a hop at 1400: the smaller ones pass */
		if (sizes[i] <= 1400)
			mpt_plpmtud_on_probe_ack(&m, MPT_PMTU_PROBE_FLAG |
						 (uint32_t)sizes[i] << 16 | (i + 1), 10 * MS);
	assert_int_equal(mpt_plpmtud_due(&m, 60 * MS, sizes) > 0, 1);	/* round closed */
	assert_int_equal(m.plpmtu, 1368);
	assert_int_equal(m.fail, 1412);
	assert_int_equal(mpt_plpmtud_cap(&m), 1368);
	mpt_plpmtud_on_sent(&m, 1, 50 * MS, 60 * MS);
	assert_true(mpt_plpmtud_on_ptb(&m, 1400, 61 * MS));	/* the late ICMP */
	assert_false(mpt_plpmtud_on_ptb(&m, 1412, 61 * MS));	/* not below failed */
	m.nround = 0;						/* next round now */
	assert_true(mpt_plpmtud_due(&m, 62 * MS, sizes) >= 1);
	assert_int_equal(sizes[0], 1400);
	mpt_plpmtud_on_probe_ack(&m, MPT_PMTU_PROBE_FLAG | 1400u << 16 | 9, 70 * MS);
	assert_int_equal(m.plpmtu, 1400);
	assert_int_equal(m.fail, 1401);				/* the limit, named */
	assert_int_equal(mpt_plpmtud_due(&m, 71 * MS, sizes), 0);
	assert_string_equal(mpt_plpmtud_state_name(&m), "complete");
	assert_false(mpt_plpmtud_on_ptb(&m, 1400, 80 * MS));	/* nothing new */
	assert_true(mpt_plpmtud_on_ptb(&m, 1300, 80 * MS));	/* shrank */
}

static void test_local_emsgsize(void **state)
{
	uint16_t sizes[MPT_PMTU_ROUND_MAX];
	struct mpt_plpmtud m;
	unsigned n;

	mpt_plpmtud_init(&m, MPT_PMTU_BASE_V4, 1500, 0);
	mpt_plpmtud_start(&m, 0);
	n = mpt_plpmtud_due(&m, 0, sizes);
	assert_int_equal(n, MPT_PMTU_ROUND_MAX);
	assert_int_equal(sizes[0], 1500);
	mpt_plpmtud_on_send_too_big(&m, 1500, 0);	/* interface MTU below 1500 */
	assert_int_equal(mpt_plpmtud_cap(&m), 1200);	/* no longer optimistic */
	n = mpt_plpmtud_due(&m, 1000 * MS, sizes);
	assert_true(n >= 1 && sizes[0] < 1500 && sizes[0] > 1200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_converges),
		cmocka_unit_test(test_ptb_makes_it_faster),
		cmocka_unit_test(test_probes_time_the_rounds),
		cmocka_unit_test(test_late_ptb),
		cmocka_unit_test(test_burst_loss_does_not_fail_a_size),
		cmocka_unit_test(test_black_hole_under_data),
		cmocka_unit_test(test_raise_backs_off),
		cmocka_unit_test(test_single_small_path_from_start),
		cmocka_unit_test(test_congestion_is_not_a_black_hole),
		cmocka_unit_test(test_congestion_burst_is_not_a_black_hole),
		cmocka_unit_test(test_pinned_and_bad_hints),
		cmocka_unit_test(test_local_emsgsize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
