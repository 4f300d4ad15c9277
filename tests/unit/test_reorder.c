// SPDX-License-Identifier: MIT
/* Reorder buffer: in order, holes, timeout, duplicates, overflow, late, resync, hold,
 * DSNs consumed without a packet. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <stdlib.h>

#include <mptund/rng.h>

#include "reorder.h"

#define MS	1000000ULL
#define MAXREC	4096

struct rec {
	unsigned n;
	uint64_t dsn[MAXREC];
	void *pkt[MAXREC];
	enum mpt_reorder_why why[MAXREC];
};

static void on_release(void *arg, uint64_t dsn, void *pkt, uint32_t len,
		       enum mpt_reorder_why why)
{
	struct rec *r = arg;

	assert_true(r->n < MAXREC);
	assert_int_equal(len, pkt ? 100 : 0);	/* NULL: a consumed DSN, no packet */
	r->dsn[r->n] = dsn;
	r->pkt[r->n] = pkt;
	r->why[r->n] = why;
	r->n++;
}

/* Packets are fake pointers that encode their DSN, so ownership is checkable. */
static void *P(uint64_t dsn)
{
	return (void *)(uintptr_t)(0x1000 + dsn);
}

static int ins(struct mpt_reorder *rb, uint64_t dsn, uint64_t now)
{
	return mpt_reorder_insert(rb, dsn, P(dsn), 100, now);
}

static void check_released(const struct rec *r, unsigned from, uint64_t first,
			   unsigned count, enum mpt_reorder_why why)
{
	assert_true(r->n >= from + count);
	for (unsigned i = 0; i < count; i++) {
		assert_int_equal(r->dsn[from + i], first + i);
		assert_ptr_equal(r->pkt[from + i], P(first + i));
		assert_int_equal(r->why[from + i], why);
	}
}

static void test_in_order(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };
	uint64_t base = 0xfffffffff0ULL;	/* starts anywhere */

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	for (uint64_t i = 0; i < 200; i++)
		assert_int_equal(ins(&rb, base + i, i), 0);
	check_released(&r, 0, base, 200, MPT_REORDER_IN_ORDER);
	assert_int_equal(rb.st.in_order, 200);
	assert_int_equal(rb.st.held, 0);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 0);
	mpt_reorder_free(&rb);
}

/* No slots until the first packet: an idle session's buffer costs nothing; flushing
 * and freeing it before then is harmless. */
static void test_lazy_slots(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 1024, 100 * MS, 5 * MS, on_release, &r), 0);
	assert_null(rb.slot);
	mpt_reorder_flush(&rb);
	mpt_reorder_on_timeout(&rb, 10 * MS);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 0);
	assert_null(rb.slot);
	assert_int_equal(ins(&rb, 7, 0), 0);
	assert_non_null(rb.slot);
	assert_int_equal(ins(&rb, 7, 1), -EEXIST);
	check_released(&r, 0, 7, 1, MPT_REORDER_IN_ORDER);
	mpt_reorder_free(&rb);
	assert_int_equal(mpt_reorder_init(&rb, 1024, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_free(&rb);
}

static void test_hole_filled(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 10 * MS);
	ins(&rb, 10, 0);
	/* 11 lost in flight for now, 12..14 arrive on a faster path */
	ins(&rb, 12, 1 * MS);
	ins(&rb, 13, 2 * MS);
	ins(&rb, 14, 3 * MS);
	assert_int_equal(r.n, 1);
	assert_int_equal(mpt_reorder_held(&rb), 3);
	/* the hole became visible when 12 arrived */
	assert_int_equal(mpt_reorder_next_deadline(&rb), 1 * MS + 10 * MS);
	mpt_reorder_on_timeout(&rb, 10 * MS);	/* not yet */
	assert_int_equal(r.n, 1);
	ins(&rb, 11, 5 * MS);
	check_released(&r, 0, 10, 5, MPT_REORDER_IN_ORDER);
	assert_int_equal(rb.st.held, 3);
	assert_int_equal(rb.st.holes_skipped, 0);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 0);
	mpt_reorder_free(&rb);
}

static void test_timeout_release(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 10 * MS);
	ins(&rb, 0, 0);
	ins(&rb, 2, 1 * MS);		/* hole 1, seen at 1 ms */
	ins(&rb, 5, 4 * MS);		/* holes 3, 4 */
	ins(&rb, 6, 20 * MS);		/* arrives after the first hole's deadline */
	assert_int_equal(mpt_reorder_next_deadline(&rb), 11 * MS);
	mpt_reorder_on_timeout(&rb, 11 * MS);
	/* hole 1 given up: 2 released; hole 3-4 visible since 4 ms, deadline 14 ms */
	check_released(&r, 1, 2, 1, MPT_REORDER_TIMEOUT);
	assert_int_equal(r.n, 2);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 14 * MS);
	/* a much later timeout releases everything up to and past every expired hole */
	mpt_reorder_on_timeout(&rb, 31 * MS);
	check_released(&r, 2, 5, 2, MPT_REORDER_TIMEOUT);
	assert_int_equal(rb.st.timeout, 3);
	assert_int_equal(rb.st.holes_skipped, 3);
	assert_int_equal(mpt_reorder_held(&rb), 0);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 0);
	/* the hole at 3 comes late: delivered, a second copy is a duplicate */
	assert_int_equal(ins(&rb, 3, 32 * MS), 0);
	assert_int_equal(r.dsn[r.n - 1], 3);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_LATE);
	assert_int_equal(ins(&rb, 3, 33 * MS), -EEXIST);
	assert_int_equal(rb.st.late, 1);
	mpt_reorder_free(&rb);
}

/* A dark path's holes (session_repair.c): each repair that fills the hole at next
 * restarts the hold for the next one (fill restarts), and hold_until keeps every
 * hole until the repairs can come. Holes 1-3 appear at 10 ms (3 behind them), the
 * hold is 20 ms: without either rule all three are given up at 30 ms. */
static void test_fill_restarts_and_hold_until(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 20 * MS);
	ins(&rb, 0, 0);
	ins(&rb, 4, 10 * MS);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 30 * MS);
	mpt_reorder_hold_until(&rb, 5 * MS);		/* earlier: no effect */
	assert_int_equal(rb.st.holds_extended, 0);
	mpt_reorder_hold_until(&rb, 45 * MS);
	assert_int_equal(rb.st.holds_extended, 1);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 45 * MS);
	mpt_reorder_on_timeout(&rb, 30 * MS);
	assert_int_equal(r.n, 1);			/* still held */
	/* the first repair at 40 ms; without fill restarts hole 2 is due at 45 ms */
	ins(&rb, 1, 40 * MS);
	check_released(&r, 1, 1, 1, MPT_REORDER_IN_ORDER);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 45 * MS);
	mpt_reorder_set_fill_restarts(&rb, true);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 60 * MS);	/* 40 + 20 */
	mpt_reorder_on_timeout(&rb, 50 * MS);
	assert_int_equal(r.n, 2);
	ins(&rb, 2, 55 * MS);				/* the next repair */
	assert_int_equal(mpt_reorder_next_deadline(&rb), 75 * MS);
	/* hole 3's repair never comes: given up a hold after the last fill */
	mpt_reorder_on_timeout(&rb, 74 * MS);
	assert_int_equal(r.n, 3);
	mpt_reorder_on_timeout(&rb, 75 * MS);
	check_released(&r, 3, 4, 1, MPT_REORDER_TIMEOUT);
	assert_int_equal(rb.st.holes_skipped, 1);
	assert_int_equal(rb.st.held, 1);
	mpt_reorder_free(&rb);
	(void)state;
}

static void test_duplicates(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	ins(&rb, 100, 0);
	assert_int_equal(ins(&rb, 100, 1), -EEXIST);	/* delivered copy */
	assert_int_equal(ins(&rb, 102, 2), 0);
	assert_int_equal(ins(&rb, 102, 3), -EEXIST);	/* held copy */
	assert_int_equal(ins(&rb, 101, 4), 0);
	assert_int_equal(ins(&rb, 101, 5), -EEXIST);
	assert_int_equal(ins(&rb, 102, 5), -EEXIST);
	check_released(&r, 0, 100, 3, MPT_REORDER_IN_ORDER);
	assert_int_equal(r.n, 3);
	assert_int_equal(rb.st.duplicate, 4);
	mpt_reorder_free(&rb);
}

static void test_overflow(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };
	uint32_t cap;

	assert_int_equal(mpt_reorder_init(&rb, 10, 100 * MS, 5 * MS, on_release, &r), 0);
	cap = rb.cap;
	assert_int_equal(cap, 16);	/* rounded up to a power of two */
	ins(&rb, 0, 0);
	/* 1 is missing; 2..cap fill the window */
	for (uint64_t d = 2; d <= cap; d++)
		assert_int_equal(ins(&rb, d, d), 0);
	assert_int_equal(mpt_reorder_held(&rb), cap - 1);
	assert_int_equal(r.n, 1);
	/* cap + 1 does not fit: the oldest hole is given up */
	assert_int_equal(ins(&rb, cap + 1, 100), 0);
	check_released(&r, 1, 2, cap - 1, MPT_REORDER_OVERFLOW);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_IN_ORDER);	/* cap+1 itself */
	assert_int_equal(rb.st.overflow, cap - 1);
	assert_int_equal(rb.st.holes_skipped, 1);
	assert_int_equal(mpt_reorder_held(&rb), 0);
	mpt_reorder_free(&rb);
}

/* Growing the window keeps what is held and the duplicate history, and a run that
 * overflowed the old window fits the new one (issue 22: sat-lte-down's 2,400
 * packets of a satellite hole against 1,024). */
static void test_grow(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	assert_int_equal(mpt_reorder_grow(&rb, 20), 0);	/* before the slots: sized */
	assert_int_equal(rb.cap, 32);
	assert_null(rb.slot);
	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	for (uint64_t d = 0; d < 6; d++)
		assert_int_equal(ins(&rb, d, 0), 0);
	for (uint64_t d = 7; d < 22; d++)		/* 6 missing: the window full */
		assert_int_equal(ins(&rb, d, 1 * MS), 0);
	assert_int_equal(mpt_reorder_held(&rb), 15);
	assert_int_equal(mpt_reorder_grow(&rb, 40), 0);
	assert_int_equal(rb.cap, 64);
	assert_int_equal(rb.st.grown, 1);
	assert_int_equal(mpt_reorder_grow(&rb, 10), 0);	/* never shrinks */
	assert_int_equal(rb.cap, 64);
	assert_int_equal(r.n, 6);			/* nothing released by it */
	assert_int_equal(mpt_reorder_held(&rb), 15);
	assert_int_equal(ins(&rb, 3, 2 * MS), -EEXIST);	/* history kept */
	assert_int_equal(ins(&rb, 9, 2 * MS), -EEXIST);	/* held kept */
	for (uint64_t d = 22; d < 61; d++)		/* the old window overflowed at 22 */
		assert_int_equal(ins(&rb, d, 2 * MS), 0);
	assert_int_equal(rb.st.overflow, 0);
	assert_int_equal(mpt_reorder_held(&rb), 54);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 101 * MS);	/* hole from 1 ms */
	assert_int_equal(ins(&rb, 6, 3 * MS), 0);
	check_released(&r, 6, 6, 55, MPT_REORDER_IN_ORDER);
	assert_int_equal(mpt_reorder_held(&rb), 0);
	mpt_reorder_free(&rb);

	/* the window for rate x hold, twice over, within [floor, ceil] */
	assert_int_equal(mpt_reorder_capacity_for(8800, 275 * MS, 1024, 16384), 4840);
	assert_int_equal(mpt_reorder_capacity_for(1000, 250 * MS, 1024, 16384), 1024);
	assert_int_equal(mpt_reorder_capacity_for(100000, 1000 * MS, 1024, 16384), 16384);
	assert_int_equal(mpt_reorder_capacity_for(8800, 275 * MS, 1024, 3000), 3000);

	/* the rate's window with the hold in force (here the configured 100 ms) */
	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	assert_int_equal(mpt_reorder_capacity_want(&rb, 1000, 16, 1024), 200);
	assert_int_equal(mpt_reorder_capacity_want(&rb, 0, 16, 1024), 16);
	mpt_reorder_free(&rb);
}

/* The window grows by itself as packets come, within grow_max (sat-lte-down: the
 * satellite's DSNs in flight behind a hole filled the 1,024 slots with 319 held, and
 * the 100 ms check came too late: 338 holes given up, all of them came late). */
static void test_grow_on_insert(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_grow_max(&rb, 100);		/* 64: its power of two below */
	assert_int_equal(rb.grow_max, 64);
	ins(&rb, 0, 0);
	/* 1..20 on their way over the slow path, 21..50 arrive over the fast one */
	for (uint64_t d = 21; d < 51; d++)
		assert_int_equal(ins(&rb, d, 1 * MS), 0);
	assert_int_equal(rb.st.overflow, 0);
	assert_int_equal(rb.st.holes_skipped, 0);
	assert_int_equal(rb.cap, 64);
	assert_true(rb.st.grown >= 1);
	assert_int_equal(mpt_reorder_held(&rb), 30);
	for (uint64_t d = 1; d < 21; d++)
		assert_int_equal(ins(&rb, d, 2 * MS), 0);
	check_released(&r, 0, 0, 51, MPT_REORDER_IN_ORDER);
	/* the limit holds: past 64 the oldest hole is given up as before */
	ins(&rb, 52, 3 * MS);				/* 51 missing */
	assert_int_equal(ins(&rb, 51 + 64, 3 * MS), 0);
	assert_int_equal(rb.cap, 64);
	assert_int_equal(rb.st.holes_skipped, 1);
	assert_int_equal(rb.st.overflow, 1);
	/* a jump past the limit with nothing held is a resync, not a reason to grow */
	mpt_reorder_free(&rb);
	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_grow_max(&rb, 1024);
	ins(&rb, 0, 0);
	assert_int_equal(ins(&rb, 100000, 1 * MS), 0);
	assert_int_equal(rb.cap, 16);
	assert_int_equal(rb.st.resyncs, 1);
	/* never without a limit set (the default) */
	mpt_reorder_free(&rb);
	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	ins(&rb, 0, 0);
	ins(&rb, 5, 0);
	ins(&rb, 20, 0);
	assert_int_equal(rb.cap, 16);
	assert_int_equal(rb.st.overflow, 1);
	assert_int_equal(rb.st.holes_skipped, 4);	/* 1..4 given up to fit 20 */
	mpt_reorder_free(&rb);
}

/* Late packets of holes an overflow gave up, older than the history, are dropped as
 * stale and never taken for a sender restart: the old rule (3 stale in a row) flushed
 * every held packet and put the release point back behind the fast path's DSNs. */
static void test_stale_run_no_resync(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };
	uint64_t base = 1ULL << 40;

	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	ins(&rb, base, 0);
	/* base+1..base+10 on the slow path; the fast path overflows the window */
	for (uint64_t d = base + 11; d < base + 60; d++)
		ins(&rb, d, 1 * MS);
	assert_true(rb.st.overflow > 0);
	ins(&rb, base + 61, 1 * MS);			/* base+60 missing: held */
	assert_int_equal(mpt_reorder_held(&rb), 1);
	/* the slow path's packets come at last, long given up and out of the history */
	for (uint64_t d = base + 1; d < base + 11; d++)
		assert_int_equal(ins(&rb, d, 2 * MS), -ESTALE);
	assert_int_equal(rb.st.stale, 10);
	assert_int_equal(rb.st.resyncs, 0);
	assert_int_equal(mpt_reorder_held(&rb), 1);	/* nothing flushed */
	assert_int_equal(rb.st.flushed, 0);
	assert_int_equal(ins(&rb, base + 60, 3 * MS), 0);	/* the window goes on */
	assert_int_equal(r.dsn[r.n - 1], base + 61);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_IN_ORDER);
	/* a restart's far-away numbering still resyncs, but only a run of neighbours */
	assert_int_equal(ins(&rb, 100, 4 * MS), -ESTALE);
	assert_int_equal(ins(&rb, 5000, 4 * MS), -ESTALE);	/* not after 100 */
	assert_int_equal(ins(&rb, 5001, 4 * MS), -ESTALE);
	assert_int_equal(rb.st.resyncs, 0);
	assert_int_equal(ins(&rb, 5002, 4 * MS), 0);
	assert_int_equal(rb.st.resyncs, 1);
	mpt_reorder_free(&rb);
}

static void test_late_and_stale(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 16, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 1 * MS);
	ins(&rb, 1000, 0);
	ins(&rb, 1002, 0);
	mpt_reorder_on_timeout(&rb, 1 * MS);		/* 1001 given up */
	for (uint64_t d = 1003; d < 1040; d++)
		ins(&rb, d, 2 * MS);
	/* 1001 is now older than the 16-packet history: stale, dropped */
	assert_int_equal(ins(&rb, 1001, 3 * MS), -ESTALE);
	assert_int_equal(rb.st.stale, 1);
	/* within the history and already delivered: a duplicate */
	assert_int_equal(ins(&rb, 1030, 3 * MS), -EEXIST);
	assert_int_equal(rb.st.late, 0);
	mpt_reorder_free(&rb);
}

static void test_resync(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };
	unsigned n0;

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	ins(&rb, 500, 0);
	ins(&rb, 502, 1);
	ins(&rb, 503, 2);
	/* a huge forward jump (sender restart): held packets go out, then the jump */
	n0 = r.n;
	assert_int_equal(ins(&rb, 1ULL << 60, 3), 0);
	check_released(&r, n0, 502, 2, MPT_REORDER_OVERFLOW);
	assert_int_equal(r.dsn[r.n - 1], 1ULL << 60);
	assert_int_equal(rb.st.resyncs, 1);
	assert_int_equal(ins(&rb, (1ULL << 60) + 1, 4), 0);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_IN_ORDER);

	/* a huge backward jump: the first packets look stale, then the buffer resyncs */
	for (unsigned i = 0; i + 1 < MPT_REORDER_RESYNC_RUN; i++)
		assert_int_equal(ins(&rb, 7 + i, 5), -ESTALE);
	n0 = r.n;
	assert_int_equal(ins(&rb, 7 + MPT_REORDER_RESYNC_RUN - 1, 6), 0);
	assert_int_equal(rb.st.resyncs, 2);
	assert_int_equal(r.n, n0 + 1);
	assert_int_equal(ins(&rb, 7 + MPT_REORDER_RESYNC_RUN, 7), 0);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_IN_ORDER);
	/* the old space's history was forgotten: an earlier DSN of the new space is
	 * late, not a duplicate */
	assert_int_equal(ins(&rb, 7, 8), 0);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_LATE);
	mpt_reorder_free(&rb);
}

static void test_flush_and_free(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	ins(&rb, 1, 0);
	ins(&rb, 4, 0);
	ins(&rb, 3, 0);
	mpt_reorder_free(&rb);		/* held buffers come back to the owner */
	check_released(&r, 1, 3, 2, MPT_REORDER_FLUSH);
	assert_int_equal(mpt_reorder_init(&rb, 1, 0, 0, on_release, &r), -EINVAL);
	assert_int_equal(mpt_reorder_init(&rb, 64, 0, 0, NULL, &r), -EINVAL);
}

static void test_adaptive_hold(void **state)
{
	const uint64_t rtts[] = { 20 * MS, 0, 80 * MS, 35 * MS };
	const uint64_t none[] = { 0, 0 };
	const uint64_t sat[] = { 600 * MS, 60 * MS }, far[] = { 3000 * MS, 60 * MS };
	struct mpt_reorder rb;
	struct rec r = { 0 };

	/* (80 - 20) / 2 + 5 */
	assert_int_equal(mpt_reorder_hold_from_rtts(rtts, 4, 5 * MS, 100 * MS), 35 * MS);
	/* the cap does not cut the spread: the slower path's packets are still on their
	 * way (a 300 ms satellite next to a 30 ms LTE path against the default 250 ms) */
	assert_int_equal(mpt_reorder_hold_from_rtts(rtts, 4, 5 * MS, 30 * MS), 35 * MS);
	assert_int_equal(mpt_reorder_hold_from_rtts(sat, 2, 5 * MS, 250 * MS), 275 * MS);
	/* ... up to its own bound; 0 turns holding off */
	assert_int_equal(mpt_reorder_hold_from_rtts(far, 2, 5 * MS, 250 * MS),
			 MPT_REORDER_SPREAD_MAX_NS);
	assert_int_equal(mpt_reorder_hold_from_rtts(sat, 2, 5 * MS, 0), 0);
	/* with repairs: 2 x the largest RTT, capped, but never below the spread */
	assert_int_equal(mpt_reorder_hold_repair(rtts, 4, 5 * MS, 250 * MS), 165 * MS);
	assert_int_equal(mpt_reorder_hold_repair(rtts, 4, 5 * MS, 100 * MS), 100 * MS);
	assert_int_equal(mpt_reorder_hold_repair(sat, 2, 5 * MS, 250 * MS), 275 * MS);
	assert_int_equal(mpt_reorder_hold_repair(sat, 2, 5 * MS, 0), 0);
	assert_int_equal(mpt_reorder_hold_repair(none, 2, 5 * MS, 250 * MS), 250 * MS);
	/* one path: the margin */
	assert_int_equal(mpt_reorder_hold_from_rtts(rtts, 1, 5 * MS, 100 * MS), 5 * MS);
	/* nothing known yet: the cap */
	assert_int_equal(mpt_reorder_hold_from_rtts(none, 2, 5 * MS, 100 * MS), 100 * MS);

	assert_int_equal(mpt_reorder_init(&rb, 64, 30 * MS, 5 * MS, on_release, &r), 0);
	assert_int_equal(rb.hold_ns, 30 * MS);
	mpt_reorder_set_hold(&rb, 500 * MS);
	assert_int_equal(rb.hold_ns, 500 * MS);
	mpt_reorder_set_hold(&rb, 5000 * MS);
	assert_int_equal(rb.hold_ns, MPT_REORDER_SPREAD_MAX_NS);
	mpt_reorder_set_hold(&rb, 7 * MS);
	ins(&rb, 0, 0);
	ins(&rb, 2, 1 * MS);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 8 * MS);
	mpt_reorder_free(&rb);
}

/*
 * Two paths, one-way delays 10 and 30 ms plus up to 2 ms jitter, 3% loss, 2% of the
 * packets duplicated on the other path. With the hold from the RTTs (20 ms spread
 * + 5 ms margin > 20 + 2 ms) nothing arrives late, every packet that arrives is
 * released exactly once and in DSN order, and only a lost packet makes anything
 * wait for the timeout, never longer than the hold.
 */
#define SIM_N	20000

struct arrival {
	uint64_t t, dsn;
};

struct simrec {
	uint64_t now;
	uint64_t last;
	bool any;
	uint8_t *count;
	uint64_t *arrived;
	uint64_t hold, max_wait;
	uint64_t first;			/* DSN of the first arrival */
	bool draining;
	unsigned late;
};

static void sim_release(void *arg, uint64_t dsn, void *pkt, uint32_t len,
			enum mpt_reorder_why why)
{
	struct simrec *s = arg;

	assert_ptr_equal(pkt, P(dsn));
	s->count[dsn]++;
	if (why == MPT_REORDER_LATE) {
		/* only what was sent before the packet the buffer synced on */
		assert_true(dsn < s->first);
		s->late++;
		return;
	}
	assert_true(!s->any || dsn > s->last);
	s->last = dsn;
	s->any = true;
	if (!s->draining && s->now - s->arrived[dsn] > s->max_wait)
		s->max_wait = s->now - s->arrived[dsn];
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static void test_two_path_simulation(void **state)
{
	const uint64_t owd[2] = { 10 * MS, 30 * MS }, jitter = 2 * MS;
	const uint64_t srtt[2] = { 2 * owd[0], 2 * owd[1] };
	static struct arrival arr[2 * SIM_N];
	static uint8_t count[SIM_N], lost[SIM_N];
	static uint64_t arrived[SIM_N];
	struct simrec s = { .count = count, .arrived = arrived };
	struct mpt_reorder rb;
	struct mpt_rng rng;
	unsigned n = 0, nlost = 0, early = 0, lost_below_first = 0;

	mpt_rng_seed(&rng, 42);
	for (uint64_t i = 0; i < SIM_N; i++) {
		unsigned p = mpt_rng_below(&rng, 2);
		uint64_t sent = i * 100000;	/* 10 kpps */

		if (mpt_rng_below(&rng, 100) < 3) {
			lost[i] = 1;
			nlost++;
			continue;
		}
		arr[n++] = (struct arrival){ sent + owd[p] + mpt_rng_below(&rng, jitter), i };
		if (mpt_rng_below(&rng, 100) < 2)
			arr[n++] = (struct arrival){ sent + owd[!p] +
						     mpt_rng_below(&rng, jitter), i };
	}
	qsort(arr, n, sizeof(arr[0]), cmp_arrival);
	for (unsigned i = n; i-- > 0;)
		arrived[arr[i].dsn] = arr[i].t;		/* first copy */
	/* the buffer syncs on the first arrival; what was sent before it comes late */
	s.first = arr[0].dsn;
	for (uint64_t d = 0; d < s.first; d++) {
		early += !lost[d];
		lost_below_first += lost[d];
	}

	assert_int_equal(mpt_reorder_init(&rb, 4096, 100 * MS, 5 * MS, sim_release, &s), 0);
	s.hold = mpt_reorder_hold_from_rtts(srtt, 2, 5 * MS, 100 * MS);
	assert_int_equal(s.hold, (owd[1] - owd[0]) + 5 * MS);
	mpt_reorder_set_hold(&rb, s.hold);
	for (unsigned i = 0; i < n; i++) {
		uint64_t d;

		while ((d = mpt_reorder_next_deadline(&rb)) && d <= arr[i].t) {
			s.now = d;
			mpt_reorder_on_timeout(&rb, d);
		}
		s.now = arr[i].t;
		mpt_reorder_insert(&rb, arr[i].dsn, P(arr[i].dsn), 100, arr[i].t);
	}
	s.now = UINT64_MAX / 2;
	s.draining = true;		/* the final drain is not a wait */
	mpt_reorder_on_timeout(&rb, s.now);

	for (unsigned i = 0; i < SIM_N; i++)
		assert_int_equal(count[i], lost[i] ? 0 : 1);
	assert_int_equal(s.late, early);
	assert_int_equal(rb.st.overflow, 0);
	/* a lost tail has nothing behind it to skip it */
	for (unsigned i = SIM_N; i-- > 0 && lost[i];)
		lost_below_first++;
	assert_int_equal(rb.st.holes_skipped, nlost - lost_below_first);
	assert_int_equal(rb.st.duplicate, n - (SIM_N - nlost));
	assert_true(rb.st.timeout > 0);
	assert_int_equal(rb.st.in_order + rb.st.timeout + s.late, SIM_N - nlost);
	assert_true(s.max_wait <= s.hold);
	mpt_reorder_free(&rb);
}

/* The learned hold: hole 1 is given up at 11 ms (hold 10 ms, hole seen at 1 ms) and
 * its packet comes at 25 ms, late, not lost: the hold grows to what it needed (24 ms)
 * plus the margin, and the next such hole waits for its packet instead of skipping it.
 * Without it the next hole times out at 40 ms and 3 comes late as well. */
static void test_learned_hold(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 10 * MS);
	ins(&rb, 0, 0);
	ins(&rb, 2, 1 * MS);
	mpt_reorder_on_timeout(&rb, 11 * MS);
	check_released(&r, 1, 2, 1, MPT_REORDER_TIMEOUT);
	assert_int_equal(mpt_reorder_hold_now(&rb), 10 * MS);
	assert_int_equal(ins(&rb, 1, 25 * MS), 0);			/* late */
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_LATE);
	assert_int_equal(rb.st.hold_raises, 1);
	assert_int_equal(mpt_reorder_hold_now(&rb), 29 * MS);
	assert_int_equal(ins(&rb, 1, 26 * MS), -EEXIST);		/* a copy: no raise */
	assert_int_equal(rb.st.hold_raises, 1);
	/* the caller's periodic update keeps the learned part on top */
	mpt_reorder_set_hold(&rb, 10 * MS);
	assert_int_equal(mpt_reorder_hold_now(&rb), 29 * MS);
	/* the next hole (3, seen at 30 ms) waits for its packet at 50 ms */
	ins(&rb, 4, 30 * MS);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 59 * MS);
	mpt_reorder_on_timeout(&rb, 50 * MS);
	assert_int_equal(rb.st.timeout, 1);
	ins(&rb, 3, 50 * MS);
	check_released(&r, r.n - 2, 3, 2, MPT_REORDER_IN_ORDER);
	assert_int_equal(rb.st.late, 1);
	/* a hole skipped by overflow teaches nothing (the window was full, not the
	 * hold short); neither does a packet that came before the buffer synced */
	/* decay: 10 s without a late packet halves the learned part */
	ins(&rb, 5, 50 * MS + MPT_REORDER_LEARN_DECAY_NS);
	assert_int_equal(mpt_reorder_hold_now(&rb), 10 * MS + 19 * MS / 2);
	/* a packet that needed 5 s: the hold stops at the cap (max(max_hold, 1 s)) */
	ins(&rb, 7, 11 * 1000 * MS);
	mpt_reorder_on_timeout(&rb, 12 * 1000 * MS);
	ins(&rb, 6, 16 * 1000 * MS);
	assert_int_equal(rb.st.hold_raises, 2);
	assert_int_equal(mpt_reorder_hold_now(&rb), MPT_REORDER_SPREAD_MAX_NS);
	mpt_reorder_free(&rb);

	/* holding off (ReorderMaxHold = 0) stays off */
	assert_int_equal(mpt_reorder_init(&rb, 64, 0, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 0);
	rb.learned_ns = 50 * MS;
	assert_int_equal(mpt_reorder_hold_now(&rb), 0);
	mpt_reorder_free(&rb);
}

/* An overflow skip and the packets before the first one the buffer saw are late but
 * not evidence of a short hold: the learned part stays 0. */
static void test_learned_hold_not_from_overflow(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 4, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 10 * MS);
	ins(&rb, 10, 0);
	ins(&rb, 9, 1 * MS);			/* before the sync point: late */
	ins(&rb, 12, 2 * MS);
	ins(&rb, 16, 3 * MS);			/* window 4: hole 11 skipped by overflow */
	assert_int_equal(rb.st.overflow, 1);
	ins(&rb, 11, 4 * MS);			/* late */
	assert_int_equal(rb.st.late, 2);
	assert_int_equal(rb.st.hold_raises, 0);
	assert_int_equal(mpt_reorder_hold_now(&rb), 10 * MS);
	mpt_reorder_free(&rb);
}

/* A late repair (DATA_RESENT) raises nothing: its first copy was lost (a dark path's
 * window, re-sent once the sender declared the path dead, comes 200 ms after its hole
 * showed), so the hold was right. An original that late raises it to 205 ms, and with
 * it every later hole would wait that long: the inner TCP's retransmission timeout. */
static void test_learned_hold_not_from_repairs(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 10 * MS);
	ins(&rb, 0, 0);
	ins(&rb, 3, 1 * MS);			/* 1 and 2 were on the dark path */
	mpt_reorder_on_timeout(&rb, 11 * MS);
	assert_int_equal(rb.st.holes_skipped, 2);
	assert_int_equal(mpt_reorder_insert_from(&rb, 1, P(1), 100, 201 * MS, true), 0);
	assert_int_equal(r.why[r.n - 1], MPT_REORDER_LATE);
	assert_int_equal(rb.st.late, 1);
	assert_int_equal(rb.st.late_resent, 1);
	assert_int_equal(rb.st.hold_raises, 0);
	assert_int_equal(mpt_reorder_hold_now(&rb), 10 * MS);
	/* the same lateness in an original is reordering: it teaches */
	assert_int_equal(mpt_reorder_insert_from(&rb, 2, P(2), 100, 201 * MS, false), 0);
	assert_int_equal(rb.st.late_resent, 1);
	assert_int_equal(rb.st.hold_raises, 1);
	assert_int_equal(mpt_reorder_hold_now(&rb), 205 * MS);
	mpt_reorder_free(&rb);
}

/* A DSN the receiver drops after authentication (the source filter) is offered as
 * NULL and takes its turn: nothing behind it waits for the hold. Without it, 12
 * waits for 11 until the timeout and 11 counts as a skipped hole. */
static void test_consumed_dsn(void **state)
{
	struct mpt_reorder rb;
	struct rec r = { 0 };

	assert_int_equal(mpt_reorder_init(&rb, 64, 100 * MS, 5 * MS, on_release, &r), 0);
	mpt_reorder_set_hold(&rb, 5 * MS);
	assert_int_equal(ins(&rb, 10, 0), 0);
	assert_int_equal(mpt_reorder_insert(&rb, 11, NULL, 0, 1 * MS), 0);
	assert_int_equal(ins(&rb, 12, 2 * MS), 0);	/* at once, not after 5 ms */
	assert_int_equal(r.n, 3);
	assert_int_equal(r.dsn[1], 11);
	assert_null(r.pkt[1]);
	check_released(&r, 2, 12, 1, MPT_REORDER_IN_ORDER);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 0);
	/* consumed after the packets behind it arrived: it fills the hole like one */
	assert_int_equal(ins(&rb, 14, 3 * MS), 0);
	assert_int_equal(mpt_reorder_held(&rb), 1);
	assert_int_equal(mpt_reorder_insert(&rb, 13, NULL, 0, 4 * MS), 0);
	assert_int_equal(r.n, 5);
	assert_null(r.pkt[3]);
	check_released(&r, 4, 14, 1, MPT_REORDER_IN_ORDER);
	/* a duplicate copy of a consumed DSN is a duplicate like any other */
	assert_int_equal(mpt_reorder_insert(&rb, 13, NULL, 0, 5 * MS), -EEXIST);
	assert_int_equal(rb.st.holes_skipped, 0);
	assert_int_equal(rb.st.timeout, 0);
	assert_int_equal(mpt_reorder_next_deadline(&rb), 0);
	mpt_reorder_free(&rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_lazy_slots),
		cmocka_unit_test(test_hole_filled),
		cmocka_unit_test(test_timeout_release),
		cmocka_unit_test(test_fill_restarts_and_hold_until),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_grow_on_insert),
		cmocka_unit_test(test_late_and_stale),
		cmocka_unit_test(test_stale_run_no_resync),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_flush_and_free),
		cmocka_unit_test(test_adaptive_hold),
		cmocka_unit_test(test_two_path_simulation),
		cmocka_unit_test(test_consumed_dsn),
		cmocka_unit_test(test_learned_hold),
		cmocka_unit_test(test_learned_hold_not_from_overflow),
		cmocka_unit_test(test_learned_hold_not_from_repairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
