// SPDX-License-Identifier: MIT
/*
 * Arrival awareness (sched/arrival.h): usefulness by predicted arrival and backlog
 * (ECF), the cost family's "needed" rule, unproven paths, on synthetic views; and on
 * the simulated link, that a path the scheduler passes over keeps its controller's
 * estimate (app-limited marking).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "arrival.h"
#include "schedtest.h"
#include "simlink.h"
#include "standing.h"

#define PKT	1400u
#define MS	MPT_NSEC_PER_MSEC
#define SEC	MPT_NSEC_PER_SEC
#define MBIT(x)	((uint64_t)((x) * 1e6 / 8))

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
	struct mpt_rng rng;
};

/* Path i: rate (bytes/s, proven), one-way delay ms (srtt = 2 x), cwnd = 2 BDP. */
static void path(struct fix *f, unsigned i, uint64_t rate, uint64_t owd_ms, uint32_t cost)
{
	struct mpt_path_view *v = &f->paths[i];

	f->ctx.paths = f->paths;
	v->id = (uint8_t)i;
	v->up = true;
	v->mtu = PKT;
	v->cost = cost;
	v->btlbw = rate;
	v->pacing_rate = rate;
	v->srtt_ns = v->min_rtt_ns = 2 * owd_ms * MS;
	v->cwnd = (uint64_t)(2.0 * (double)rate * (double)v->srtt_ns / 1e9);
	if (f->ctx.npaths <= i)
		f->ctx.npaths = i + 1;
}

static void setup(struct fix *f, const char *sched, bool arrival)
{
	f->ctx.paths = f->paths;
	mpt_rng_seed(&f->rng, 1);
	f->ctx.rng = &f->rng;
	f->ops = schedtest_setup(sched, f->priv, (const char *[]){ "arrival",
				 arrival ? "1" : "0", NULL }, &f->ctx);
	assert_non_null(f->ops);
}

static int pick(struct fix *f)
{
	struct mpt_pkt_meta m = { .len = PKT };
	uint32_t mask = f->ops->pick(f->priv, &f->ctx, &m);

	assert_true(__builtin_popcount(mask) <= 1);
	return mask ? __builtin_ctz(mask) : -1;
}

/* fast 80 Mbit/s 5 ms one way and full; slow 10 Mbit/s 60 ms with room. */
static void unequal(struct fix *f)
{
	memset(f, 0, sizeof(*f));
	path(f, 0, MBIT(80), 5, 0);
	path(f, 1, MBIT(10), 60, 1);
	f->paths[0].in_flight = f->paths[0].cwnd;
	f->ctx.standing = true;
}

/* The slow path is used only once the backlog outlasts its extra delay on the fast
 * path: (60 - 5) ms x 10 MB/s = 550 KB, plus the serialization of the packet. */
static void test_ecf_waits_for_fast_path(void **state)
{
	const char *scheds[] = { "minrtt", "wrr", "cpf", "acpf", "egreedy" };

	for (unsigned k = 0; k < MPT_ARRAY_SIZE(scheds); k++) {
		struct fix f;

		unequal(&f);
		setup(&f, scheds[k], true);
		f.ctx.queue_bytes = 100 * PKT;		/* 140 KB: 14 ms on the fast path */
		assert_int_equal(pick(&f), -1);
		f.ctx.queue_bytes = 500 * PKT;		/* 700 KB: 70 ms on the fast path */
		assert_int_equal(pick(&f), 1);
		/* the paper's algorithms spill at once */
		setup(&f, scheds[k], false);
		f.ctx.queue_bytes = 100 * PKT;
		if (!strcmp(scheds[k], "egreedy"))
			assert_true(pick(&f) >= 0);
		else
			assert_int_equal(pick(&f), 1);
	}
}

/* The threshold itself: mpt_arrival_useful flips where the water level says. */
static void test_useful_threshold(void **state)
{
	struct fix f;
	uint64_t a_slow, a_fast, lo, hi;

	unequal(&f);
	a_fast = mpt_arrival_ns(&f.paths[0], f.paths[0].cwnd, PKT);
	a_slow = mpt_arrival_ns(&f.paths[1], f.paths[1].cwnd, PKT);
	assert_true(a_slow > 60 * MS && a_slow < 62 * MS);
	assert_true(a_fast > 5 * MS && a_fast < 6 * MS);
	/* T = A_fast + B / r_fast: useful iff B > (A_slow - A_fast) x r_fast */
	lo = (uint64_t)((double)(a_slow - a_fast) / 1e9 * (double)MBIT(80));
	hi = lo + 2 * PKT;
	f.ctx.queue_bytes = lo - PKT;
	assert_int_equal(mpt_arrival_useful(&f.ctx, ~0u, NULL, PKT), 1);
	f.ctx.queue_bytes = hi;
	assert_int_equal(mpt_arrival_useful(&f.ctx, ~0u, NULL, PKT), 3);
}

/* Cost: while the queue does not stand (a burst of an application below the cheap
 * path's capacity) the packet waits for the cheap path; once it stands (a sender the
 * cheap path cannot carry) it spills. Equal paths of cost 1 and 5. */
static void test_needed_when_queue_stands(void **state)
{
	const char *scheds[] = { "cpf", "acpf" };

	for (unsigned k = 0; k < MPT_ARRAY_SIZE(scheds); k++) {
		struct fix f;

		memset(&f, 0, sizeof(f));
		path(&f, 0, MBIT(50), 20, 1);
		path(&f, 1, MBIT(50), 20, 5);
		setup(&f, scheds[k], true);
		f.paths[0].in_flight = f.paths[0].cwnd;		/* a burst fills it */
		f.ctx.queue_bytes = 90 * PKT;			/* 128 KB */
		f.ctx.standing = false;
		assert_int_equal(mpt_arrival_needed(&f.ctx), 1);
		assert_int_equal(pick(&f), -1);
		f.ctx.standing = true;
		assert_int_equal(mpt_arrival_needed(&f.ctx) & 3, 3);
		assert_int_equal(pick(&f), 1);
		/* the cheap path with room takes everything, standing or not */
		f.paths[0].in_flight = 0;
		assert_int_equal(pick(&f), 0);
		/* the cheap path down: the next cheapest is needed */
		f.paths[0].up = false;
		f.ctx.standing = false;
		assert_int_equal(mpt_arrival_needed(&f.ctx), 2);
	}
}

/* The standing-queue test itself (src/core/standing.h): bursts that drain within the
 * interval never stand; 100 ms above 5 ms does; 100 ms below ends it. */
static void test_standing_queue(void **state)
{
	struct mpt_standing st = { 0 };
	uint64_t t = SEC;

	for (int burst = 0; burst < 10; burst++, t += 50 * MS) {	/* 20 ms bursts */
		for (uint64_t w = 0; w < 20 * MS; w += MS)
			mpt_standing_update(&st, t + w, w);
		mpt_standing_update(&st, t + 20 * MS, 0);		/* drained */
		assert_false(st.on);
	}
	for (uint64_t w = 0; w <= 100 * MS; w += MS)
		mpt_standing_update(&st, t + w, 6 * MS);
	assert_true(st.on);
	t += 100 * MS;
	for (uint64_t w = MS; w < 100 * MS; w += MS)
		mpt_standing_update(&st, t + w, 4 * MS);
	assert_true(st.on);
	mpt_standing_update(&st, t + 101 * MS, 0);
	assert_false(st.on);
}

/* An unproven slow path arrives after its delay alone; a probe-fed estimate would
 * have made it arrive seconds later. */
static void test_unproven_paths(void **state)
{
	struct fix f;

	unequal(&f);
	f.paths[1].btlbw = 0;
	f.paths[1].delivery_rate = 500;			/* probes only */
	assert_int_equal(mpt_arrival_ns(&f.paths[1], f.paths[1].cwnd, PKT), 60 * MS);
	f.paths[1].btlbw = 500;				/* what a probe-fed filter holds */
	assert_true(mpt_arrival_ns(&f.paths[1], f.paths[1].cwnd, PKT) > 2 * SEC);
}


/* cpf over two equal 20 Mbit/s paths, offered 1.25 x one path for 4 s (the dear path
 * takes the excess and proves its rate), then 0.95 x: the dear path only gets what
 * the cheap one cannot take at once. Its controller must keep a bandwidth estimate
 * near what it proved, not shrink to the trickle the scheduler gives it. */
static void test_passed_over_path_keeps_estimate(void **state)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "cpf", .seed = 3 };
	uint64_t r = MBIT(20), before, after;
	struct sim_session *s;

	for (unsigned i = 0; i < 2; i++)
		cfg.paths[i] = (struct sim_path_cfg){ .cc = "bbr", .cost = i,
			.link = { .rate = r, .delay_ns = 10 * MS, .queue_bytes = 100000 } };
	cfg.source_rate = r * 5 / 4;
	s = sim_session_new(&cfg);
	assert_non_null(s);
	sim_session_run_until(s, 4 * SEC);
	before = sim_path_cc(s, 1)->btlbw;
	assert_int_equal(sim_session_set_source_rate(s, r * 19 / 20), 0);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 14 * SEC);
	after = sim_path_cc(s, 1)->btlbw;
	print_message("dear path btlbw %.2f Mbit/s while spilling, %.2f after 10 s of "
		      "trickle (%.3f Mbit/s given)\n", before * 8 / 1e6, after * 8 / 1e6,
		      sim_path_goodput(s, 1) * 8 / 1e6);
	assert_true(before >= r / 5);
	assert_true(sim_path_goodput(s, 1) < 0.1 * (double)before);
	assert_true(after == 0 || after >= before * 8 / 10);
	sim_session_free(s);
}

/* acpf with the fraction pinned at 0.3 (and no live-window floor): each path is held
 * to 0.3 x cwnd while the greedy queue waits. That is the scheduler's choice, not the
 * path's rate: the controllers must keep their estimates. Without the marking the
 * delivery rate of 0.3 cwnd per round trip becomes the estimate, the window follows
 * it down, and so on: the estimate ends below what the path delivers (1.79 Mbit/s
 * estimated for 2.03 delivered when this test was written). */
static void test_live_window_keeps_estimate(void **state)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "acpf", .seed = 5 };
	uint64_t r = MBIT(20);
	struct sim_session *s;

	for (unsigned i = 0; i < 2; i++)
		cfg.paths[i] = (struct sim_path_cfg){ .cc = "bbr", .cost = i,
			.link = { .rate = r, .delay_ns = 10 * MS, .queue_bytes = 100000 } };
	s = sim_session_new(&cfg);
	assert_non_null(s);
	assert_int_equal(sim_session_set_param(s, -1, "min_frac", "0.3"), 0);
	assert_int_equal(sim_session_set_param(s, -1, "max_frac", "0.3"), 0);
	assert_int_equal(sim_session_set_param(s, -1, "min_live_pkts", "0"), 0);
	sim_session_run_until(s, 20 * SEC);
	for (unsigned i = 0; i < 2; i++) {
		uint64_t bw = sim_path_cc(s, i)->btlbw;

		print_message("path %u: btlbw %.2f Mbit/s (link 20), goodput %.2f\n", i,
			      bw * 8 / 1e6, sim_path_goodput(s, i) * 8 / 1e6);
		/* the spiral: each round's estimate below what the path delivered */
		assert_true(bw == 0 || (double)bw >= 0.95 * sim_path_goodput(s, i));
	}
	sim_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecf_waits_for_fast_path),
		cmocka_unit_test(test_useful_threshold),
		cmocka_unit_test(test_needed_when_queue_stands),
		cmocka_unit_test(test_standing_queue),
		cmocka_unit_test(test_unproven_paths),
		cmocka_unit_test(test_passed_over_path_keeps_estimate),
		cmocka_unit_test(test_live_window_keeps_estimate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
