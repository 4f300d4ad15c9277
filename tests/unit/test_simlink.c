// SPDX-License-Identifier: MIT
/*
 * The simulated session itself (tests/unit/support/simlink.h):
 *
 *   source --> rr --> p0: 20 Mbit/s, 10 ms one way --+
 *                 \-> p1: 10 Mbit/s, 30 ms one way --+--> receiver
 *
 * Deterministic for a seed; a rate source below capacity is carried whole; random
 * loss shows up as recovery losses; a link taken down stops carrying traffic and the
 * other path takes over; the link rate bounds a greedy path's goodput.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "simlink.h"

#define MS MPT_NSEC_PER_MSEC
#define SEC MPT_NSEC_PER_SEC

static const uint64_t R0 = 20000000 / 8, R1 = 10000000 / 8;

static struct sim_session_cfg two_paths(uint64_t seed, uint64_t source_rate, double loss)
{
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "rr", .seed = seed,
				       .source_rate = source_rate };

	cfg.paths[0] = (struct sim_path_cfg){ .name = "fast", .cc = "bbr",
		.link = { .rate = R0, .delay_ns = 10 * MS, .queue_bytes = R0 / 10,
			  .loss = loss } };
	cfg.paths[1] = (struct sim_path_cfg){ .name = "slow", .cc = "bbr",
		.link = { .rate = R1, .delay_ns = 30 * MS, .queue_bytes = R1 / 10,
			  .loss = loss } };
	return cfg;
}

static void test_deterministic(void **state)
{
	struct sim_session_cfg cfg = two_paths(42, 0, 0.01);
	struct sim_session *a = sim_session_new(&cfg), *b = sim_session_new(&cfg);

	sim_session_run_until(a, 3 * SEC);
	sim_session_run_until(b, 3 * SEC);
	for (unsigned i = 0; i < 2; i++)
		assert_memory_equal(sim_path_stats(a, i), sim_path_stats(b, i),
				    sizeof(struct sim_path_stats));
	sim_session_free(a);
	sim_session_free(b);
}

static void test_rate_source_carried(void **state)
{
	uint64_t rate = (R0 + R1) / 2;
	struct sim_session_cfg cfg = two_paths(1, rate, 0);
	struct sim_session *s = sim_session_new(&cfg);
	double got;

	sim_session_run_until(s, 1 * SEC);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 5 * SEC);
	got = sim_path_goodput(s, 0) + sim_path_goodput(s, 1);
	assert_true(got >= 0.97 * rate && got <= 1.03 * rate);
	assert_int_equal(sim_session_source_drops(s), 0);
	/* RTTs at least the propagation of each path */
	assert_true(sim_path_stats(s, 0)->rtt_min_ns >= 20 * MS);
	assert_true(sim_path_stats(s, 1)->rtt_min_ns >= 60 * MS);
	sim_session_free(s);
}

static void test_loss_and_down(void **state)
{
	double loss = 0.02;
	struct sim_session_cfg cfg = two_paths(3, 0, loss);
	struct sim_session *s = sim_session_new(&cfg);
	const struct sim_path_stats *st0 = sim_path_stats(s, 0), *st1 = sim_path_stats(s, 1);
	uint64_t d1;

	sim_session_run_until(s, 4 * SEC);
	/* every drop is declared lost, except those still in flight at the end */
	assert_true(st0->random_drops > 0);
	assert_true(st0->lost_pkts + sim_path_recovery(s, 0)->in_flight / 1200 >=
		    st0->random_drops + st0->queue_drops);
	assert_true(st0->lost_pkts <= st0->random_drops + st0->queue_drops);
	/* greedy goodput never beats the link */
	assert_true(sim_path_goodput(s, 0) <= R0);

	sim_path_set_up(s, 1, false);
	sim_session_reset_stats(s);
	sim_session_run_until(s, 5 * SEC);
	d1 = st1->delivered_bytes;
	sim_session_run_until(s, 6 * SEC);
	/* down for a second: nothing more delivered on it (what was on the wire when it
	 * went down is dropped), the other path keeps carrying */
	assert_int_equal(st1->delivered_bytes, d1);
	assert_true(sim_path_goodput(s, 0) > 0.5 * R0);
	assert_false(sim_session_views(s)[1].up);
	assert_int_equal(sim_session_views(s)[1].in_flight, 0);

	sim_path_set_up(s, 1, true);
	sim_session_run_until(s, 8 * SEC);
	assert_true(st1->delivered_bytes > d1);
	sim_session_free(s);
}

static void test_bad_config(void **state)
{
	struct sim_session_cfg cfg = two_paths(1, 0, 0);

	cfg.sched = "nosuch";
	assert_null(sim_session_new(&cfg));
	cfg = two_paths(1, 0, 0);
	cfg.paths[1].cc = "nosuch";
	assert_null(sim_session_new(&cfg));
	cfg.npaths = 0;
	assert_null(sim_session_new(&cfg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_rate_source_carried),
		cmocka_unit_test(test_loss_and_down),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
