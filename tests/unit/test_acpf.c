// SPDX-License-Identifier: MIT
/*
 * acpf: the cw_frac management of Figure 2b/2c and equation 2 of the ACPF paper,
 * driven step by step with synthetic path views and a synthetic clock.
 * Expected sequences are computed here from the paper's formulas, not from the module.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "schedtest.h"

#define PKT	1500u
#define MS	MPT_NSEC_PER_MSEC
#define EPS	1e-12

/* The paper's constants (Fig. 2b, 2c), restated here to check the defaults. */
#define QUEUE_SIZE_THRESHOLD	10
#define RAW_INC			0.05
#define MIN_FRAC		0.47
#define MAX_FRAC		1.0
#define C1			10
#define C2			50

/* cmocka's assert_float_equal works in float: too coarse for Figure 2c's 1e-5 steps */
#define assert_near(a, b, eps) near_(a, b, eps, __LINE__)
static void near_(double a, double b, double eps, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("line %d: %.17g != %.17g (eps %g)", line, a, b, eps);
}

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

static void set_param(struct fix *f, const char *name, const char *val)
{
	const struct mpt_param *p = mpt_param_find(f->ops->params, f->ops->nparams, name);
	char err[128];

	assert_non_null(p);
	assert_int_equal(mpt_param_parse(p, f->priv, val, err, sizeof(err)), 0);
}

/* Two paths, costs 1 and 2, cwnd cwnd_pkts packets each, BBR in ProbeBW. Optional
 * parameter overrides as name, value pairs terminated by NULL. */
static void fix_init(struct fix *f, uint64_t cwnd_pkts, ...)
{
	va_list ap;
	const char *name;

	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < 2; i++) {
		f->paths[i].id = (uint8_t)i;
		f->paths[i].cost = i + 1;
		f->paths[i].up = true;
		f->paths[i].mtu = PKT;
		f->paths[i].cwnd = cwnd_pkts * PKT;
		f->paths[i].cc_state = MPT_CC_PROBE_BW;
	}
	f->ctx.paths = f->paths;
	f->ctx.npaths = 2;
	f->ctx.now = 5 * MPT_NSEC_PER_SEC;	/* arbitrary epoch */
	f->ops = mpt_sched_find("acpf");
	assert_non_null(f->ops);
	mpt_sched_prepare(f->priv, f->ops);
	schedtest_paper(f->ops, f->priv);
	va_start(ap, cwnd_pkts);
	while ((name = va_arg(ap, const char *)) != NULL)
		set_param(f, name, va_arg(ap, const char *));
	va_end(ap);
	f->ops->init(f->priv, &f->ctx);
}

static double stat(struct fix *f, const char *name, unsigned path)
{
	for (size_t i = 0; i < f->ops->nstats; i++)
		if (strcmp(f->ops->stats[i].name, name) == 0)
			return mpt_stat_read(&f->ops->stats[i], f->priv, path);
	fail_msg("no stat '%s'", name);
	return 0;
}

static double frac(struct fix *f)
{
	/* the fraction is kept synchronized: every path reads the same value */
	assert_true(stat(f, "cw_frac", 0) == stat(f, "cw_frac", 1));
	return stat(f, "cw_frac", 0);
}

static void tick_at(struct fix *f, uint64_t t, uint32_t queue)
{
	f->ctx.now = t;
	f->ctx.queue_pkts = queue;
	f->ops->tick(f->priv, &f->ctx);
}

/* One packet; accounted in flight on the chosen path. -1 = held. */
static int send_one(struct fix *f)
{
	int p = schedtest_send_one(f->ops, f->priv, &f->ctx, f->paths, PKT);

	assert_int_not_equal(p, -2);
	return p;
}

static void test_defaults_are_the_papers(void **state)
{
	struct fix f;

	fix_init(&f, 100, NULL);
	assert_int_equal(f.ops->tick_ns, MS);
	assert_true(mpt_param_get(mpt_param_find(f.ops->params, f.ops->nparams,
						 "queue_threshold"), f.priv) == QUEUE_SIZE_THRESHOLD);
	assert_true(mpt_param_get(mpt_param_find(f.ops->params, f.ops->nparams, "raw_inc"),
				  f.priv) == RAW_INC);
	assert_true(mpt_param_get(mpt_param_find(f.ops->params, f.ops->nparams, "c1"),
				  f.priv) == C1);
	assert_true(mpt_param_get(mpt_param_find(f.ops->params, f.ops->nparams, "c2"),
				  f.priv) == C2);
	/* starts at MIN_FRAC (see sched/acpf.c), live cwnd = ceil(frac x cwnd) */
	assert_true(frac(&f) == MIN_FRAC);
	assert_true(stat(&f, "live_cwnd", 0) == 47 * 100 * PKT / 100);
	assert_true(stat(&f, "last_dir", 0) == 0);
}

/* Figure 2c under a persistent queue of 20 packets: qsf = 2, cif = k / C1. */
static void test_rises_with_fig2c_increments(void **state)
{
	const uint32_t queue = 20;
	double expect = MIN_FRAC;
	struct fix f;
	uint64_t t0;
	unsigned k;

	fix_init(&f, 100, NULL);
	t0 = f.ctx.now;
	for (k = 1; expect < MAX_FRAC; k++) {
		double qsf = (double)queue / QUEUE_SIZE_THRESHOLD, cif = (double)k / C1;

		expect = fmin(expect + RAW_INC / C2 * pow(fmin(qsf, cif), 2), MAX_FRAC);
		tick_at(&f, t0 + k * MS, queue);
		assert_near(frac(&f), expect, EPS);
		assert_true(stat(&f, "consecutive_increase", 0) == k);
		assert_true(stat(&f, "last_dir", 0) == 1);
		assert_true(stat(&f, "queue_seen", 0) == queue);
		if (k == 1)	/* 0.05 / 50 * 0.1^2 */
			assert_near(frac(&f), MIN_FRAC + 1e-5, EPS);
		if (k == 10)	/* 0.001 * (1 + 4 + ... + 100) / 100 */
			assert_near(frac(&f), MIN_FRAC + 0.00385, EPS);
		if (k == 20)	/* + 0.001 * (121 + ... + 400) / 100 */
			assert_near(frac(&f), MIN_FRAC + 0.0287, EPS);
	}
	/* past k = 20 the step is capped by qsf = 2: 0.004 per ms. From 0.5 at most
	 * (0.5 - 0.4987) / 0.004 + 20 steps, i.e. ~150 ms, not 530 ms */
	assert_true(k < 20 + (MAX_FRAC - MIN_FRAC - 0.0287) / 0.004 + 2);
	tick_at(&f, t0 + k * MS, queue);
	assert_true(frac(&f) == MAX_FRAC);

	/* a queue just at the threshold is not above it: decrease, counter reset */
	tick_at(&f, t0 + (k + 1) * MS, QUEUE_SIZE_THRESHOLD);
	assert_near(frac(&f), MAX_FRAC - RAW_INC / C2, EPS);
	assert_true(stat(&f, "consecutive_increase", 0) == 0);
	assert_true(stat(&f, "last_dir", 0) == -1);
	/* and the next increase starts again from cif = 1 / C1 */
	tick_at(&f, t0 + (k + 2) * MS, queue);
	assert_near(frac(&f), MAX_FRAC - RAW_INC / C2 + RAW_INC / C2 * 0.01, EPS);
}

/* qsf caps the step when the queue is short: queue 15 -> qsf 1.5 -> 0.00225 / ms. */
static void test_qsf_caps_the_increment(void **state)
{
	struct fix f;
	uint64_t t0;
	double expect = MIN_FRAC;

	fix_init(&f, 100, NULL);
	t0 = f.ctx.now;
	for (unsigned k = 1; k <= 40; k++) {
		expect += RAW_INC / C2 * pow(fmin(1.5, k / 10.0), 2);
		tick_at(&f, t0 + k * MS, 15);
	}
	assert_near(frac(&f), expect, EPS);
	tick_at(&f, t0 + 41 * MS, 15);
	assert_near(frac(&f) - expect, RAW_INC / C2 * 2.25, EPS);
}

/*
 * Figure 2c's two divisions are real, not integer. Its pseudo-code divides integers
 * (s.queue_size / QUEUE_SIZE_THRESHOLD, ++CONSECUTIVE_INCREASE / C1); read as C
 * integer division, cif would be 0 for the first C1 - 1 steps and min(qsf, cif) could
 * only be 0, 1, 2, ...: no increase at all for 9 ms, then steps of 0.001 x n^2. Section
 * 4.2's "MIN_FRAC to MAX_FRAC in 530 ms" needs the real quotients (sched/acpf.c).
 * Queue 15 (qsf 1.5, integer 1) for 12 steps: the two readings differ at every step.
 */
static void test_fig2c_divisions_are_real(void **state)
{
	double real = MIN_FRAC, integer = MIN_FRAC;
	struct fix f;
	uint64_t t0;

	fix_init(&f, 100, NULL);
	t0 = f.ctx.now;
	for (unsigned k = 1; k <= 12; k++) {
		real += RAW_INC / C2 * pow(fmin(15.0 / QUEUE_SIZE_THRESHOLD, (double)k / C1), 2);
		integer += RAW_INC / C2 * pow(MPT_MIN(15u / QUEUE_SIZE_THRESHOLD, k / C1), 2);
		tick_at(&f, t0 + k * MS, 15);
		assert_near(frac(&f), real, EPS);
		assert_true(fabs(real - integer) > 100 * EPS);
	}
	/* k = 1..12: 0.001 x (0.01 + 0.04 + ... + 1 + 1.21 + 1.44) */
	assert_near(frac(&f), MIN_FRAC + 0.001 * (3.85 + 1.21 + 1.44), EPS);
}

/* Without a queue the fraction falls by RAW_INC / C2 = 0.001 per ms to MIN_FRAC. */
static void test_falls_to_min_frac(void **state)
{
	const unsigned steps = (unsigned)ceil((MAX_FRAC - MIN_FRAC) / (RAW_INC / C2));
	struct fix f;
	uint64_t t0;

	fix_init(&f, 100, "initial", "max_frac", NULL);
	assert_true(frac(&f) == MAX_FRAC);
	t0 = f.ctx.now;
	for (unsigned k = 1; k <= steps + 10; k++) {
		tick_at(&f, t0 + k * MS, 0);
		assert_near(frac(&f), fmax(MAX_FRAC - k * RAW_INC / C2, MIN_FRAC), 1e-9);
		assert_true(stat(&f, "last_dir", 0) == -1);
	}
	assert_int_equal(steps, 530);	/* "from its minimum to its maximum of 530 ms" */
	assert_true(frac(&f) == MIN_FRAC);
}

/* A tick that comes late, or never during an idle period, is caught up exactly. */
static void test_catch_up_equals_step_by_step(void **state)
{
	struct fix a, b;
	uint64_t t0;

	fix_init(&a, 100, NULL);
	fix_init(&b, 100, NULL);
	t0 = a.ctx.now;
	/* both build up under a queue, tick by tick */
	for (unsigned k = 1; k <= 120; k++) {
		tick_at(&a, t0 + k * MS, 30);
		tick_at(&b, t0 + k * MS, 30);
	}
	assert_true(frac(&a) > 0.6);
	/* idle for 200 ms: a is ticked every ms, b only at the end (late by 0.4 ms) */
	for (unsigned k = 121; k <= 320; k++)
		tick_at(&a, t0 + k * MS, 0);
	tick_at(&b, t0 + 320 * MS + 400000, 0);
	assert_true(frac(&a) == frac(&b));
	assert_true(stat(&a, "steps", 0) == stat(&b, "steps", 0));
	assert_true(stat(&a, "consecutive_increase", 0) == 0);
	assert_true(stat(&b, "consecutive_increase", 0) == 0);
	/* the late tick did not shift b's 1 ms grid: the next step is due at 321 ms */
	tick_at(&a, t0 + 321 * MS, 30);
	tick_at(&b, t0 + 321 * MS, 30);
	assert_true(frac(&a) == frac(&b));
	assert_true(stat(&b, "consecutive_increase", 0) == 1);

	/* an hour without ticks: bounded work, ends at MIN_FRAC, step count exact */
	tick_at(&b, t0 + 321 * MS + 3600 * MPT_NSEC_PER_SEC, 0);
	assert_true(frac(&b) == MIN_FRAC);
	assert_true(stat(&b, "steps", 0) == 321 + 3600 * 1000);
	/* the closed form also holds when MIN_FRAC is far: raw_inc 1e-6 would take
	 * 5.3e7 steps from 1 to 0.47 */
	fix_init(&a, 100, "initial", "max_frac", "raw_inc", "0.000001", NULL);
	tick_at(&a, a.ctx.now + 1000 * MPT_NSEC_PER_SEC, 0);	/* 1e6 steps */
	assert_near(frac(&a), MAX_FRAC - 1e6 * 1e-6 / C2, 1e-9);
	tick_at(&a, a.ctx.now + 3600 * 24 * MPT_NSEC_PER_SEC, 0);
	assert_true(frac(&a) == MIN_FRAC);
	/* two steps due: one idle (decrease) and the current one (queue 30: increase) */
	tick_at(&b, t0 + 323 * MS + 3600 * MPT_NSEC_PER_SEC, 30);
	assert_near(frac(&b), MIN_FRAC + RAW_INC / C2 * 0.01, EPS);
}

/* Management pauses while a path's BBR is in ProbeRTT (sec. 4.1). */
static void test_paused_in_probe_rtt(void **state)
{
	struct fix f;
	uint64_t t0;
	double before;

	fix_init(&f, 100, NULL);
	t0 = f.ctx.now;
	for (unsigned k = 1; k <= 15; k++)
		tick_at(&f, t0 + k * MS, 20);
	before = frac(&f);
	f.paths[1].cc_state = MPT_CC_PROBE_RTT;
	for (unsigned k = 16; k <= 215; k++)	/* a 200 ms ProbeRTT with a queue */
		tick_at(&f, t0 + k * MS, 40);
	assert_true(frac(&f) == before);
	assert_true(stat(&f, "last_dir", 0) == 0);
	assert_true(stat(&f, "consecutive_increase", 0) == 15);
	assert_true(stat(&f, "paused_steps", 0) == 200);
	/* ProbeRTT over: management resumes where it stopped (k = 16 of Fig. 2c) */
	f.paths[1].cc_state = MPT_CC_PROBE_BW;
	tick_at(&f, t0 + 216 * MS, 20);
	assert_near(frac(&f), before + RAW_INC / C2 * pow(1.6, 2), EPS);
	/* a down path's state does not matter */
	f.paths[1].cc_state = MPT_CC_PROBE_RTT;
	f.paths[1].up = false;
	tick_at(&f, t0 + 217 * MS, 20);
	assert_true(stat(&f, "last_dir", 0) == 1);
	/* and the pause can be switched off */
	fix_init(&f, 100, "probe_rtt_pause", "false", NULL);
	f.paths[0].cc_state = MPT_CC_PROBE_RTT;
	tick_at(&f, f.ctx.now + MS, 20);
	assert_true(stat(&f, "last_dir", 0) == 1);
}

/* Kernel mode: one step per scheduled packet, INC = RAW_INC / CWND_p (eq. 2). */
static void test_kernel_mode(void **state)
{
	struct fix f;
	double expect = MIN_FRAC;

	fix_init(&f, 40, "mode", "kernel", NULL);
	f.ctx.queue_pkts = 20;
	assert_int_equal(send_one(&f), 0);
	expect += RAW_INC / 40;
	assert_near(frac(&f), expect, EPS);		/* 0.47125 */
	assert_near(frac(&f), 0.47125, EPS);
	/* ticks do nothing in kernel mode */
	tick_at(&f, f.ctx.now + 50 * MS, 20);
	assert_near(frac(&f), expect, EPS);
	/* the step uses the cwnd of the path the packet went to */
	f.paths[0].up = false;
	f.paths[1].cwnd = 20 * PKT;
	assert_int_equal(send_one(&f), 1);
	expect += RAW_INC / 20;
	assert_near(frac(&f), expect, EPS);
	/* no queue: decrease by the same eq. 2 step */
	f.ctx.queue_pkts = 1;
	assert_int_equal(send_one(&f), 1);
	expect -= RAW_INC / 20;
	assert_near(frac(&f), expect, EPS);
	/* a held packet is not "scheduled": no step */
	f.paths[1].in_flight = f.paths[1].cwnd;
	assert_int_equal(send_one(&f), -1);
	assert_near(frac(&f), expect, EPS);
	/* ProbeRTT pauses it too */
	f.paths[1].in_flight = 0;
	f.paths[1].cc_state = MPT_CC_PROBE_RTT;
	f.ctx.queue_pkts = 20;
	assert_int_equal(send_one(&f), 1);
	assert_near(frac(&f), expect, EPS);
}

/* The live window, not the raw cwnd, limits the cheap path. */
static void test_live_window_limits_path(void **state)
{
	const uint64_t cwnd_pkts = 100;
	/* MIN_FRAC = 47 / 100, in exact integers */
	const uint64_t live_bytes = 47 * cwnd_pkts * PKT / 100;
	const uint64_t live_pkts = (live_bytes + PKT - 1) / PKT;
	struct fix f;
	unsigned on0 = 0;

	fix_init(&f, cwnd_pkts, NULL);
	f.ctx.queue_pkts = 1;
	/* in_flight < ceil(0.47 x 150000) = 70500 bytes admits 47 packets of 1500 */
	assert_int_equal(live_pkts, 47);
	while (send_one(&f) == 0)
		on0++;
	assert_int_equal(on0, live_pkts);
	assert_true(f.paths[1].in_flight == PKT);	/* overflow went to path 1 */
	assert_true(stat(&f, "live_cwnd", 0) == live_bytes);
	/* at MAX_FRAC the path takes its whole raw cwnd, like CPF */
	fix_init(&f, cwnd_pkts, "initial", "max_frac", NULL);
	on0 = 0;
	while (send_one(&f) == 0)
		on0++;
	assert_int_equal(on0, cwnd_pkts);
	/* when both live windows are full the packet is held */
	while (send_one(&f) == 1)
		;
	assert_int_equal(send_one(&f), -1);
}

/* ours (startup_max): a path whose BBR is in Startup gets MAX_FRAC of its cwnd, the
 * others cw_frac; startup_max = 0 is the paper's MIN_FRAC for every state. */
static void test_startup_path_gets_max_frac(void **state)
{
	const uint64_t cwnd_pkts = 100;
	struct fix f;
	unsigned on0 = 0;

	fix_init(&f, cwnd_pkts, NULL);
	f.paths[0].cc_state = MPT_CC_STARTUP;
	f.ctx.queue_pkts = 1;
	while (send_one(&f) == 0)
		on0++;
	assert_int_equal(on0, cwnd_pkts);
	assert_true(stat(&f, "live_cwnd", 0) == cwnd_pkts * PKT);
	assert_true(stat(&f, "live_cwnd", 1) == 47 * cwnd_pkts * PKT / 100);
	assert_true(frac(&f) == MIN_FRAC);	/* the fraction itself is untouched */

	fix_init(&f, cwnd_pkts, "startup_max", "false", NULL);
	f.paths[0].cc_state = MPT_CC_STARTUP;
	f.ctx.queue_pkts = 1;
	on0 = 0;
	while (send_one(&f) == 0)
		on0++;
	assert_int_equal(on0, 47);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_the_papers),
		cmocka_unit_test(test_rises_with_fig2c_increments),
		cmocka_unit_test(test_fig2c_divisions_are_real),
		cmocka_unit_test(test_qsf_caps_the_increment),
		cmocka_unit_test(test_falls_to_min_frac),
		cmocka_unit_test(test_catch_up_equals_step_by_step),
		cmocka_unit_test(test_paused_in_probe_rtt),
		cmocka_unit_test(test_kernel_mode),
		cmocka_unit_test(test_live_window_limits_path),
		cmocka_unit_test(test_startup_path_gets_max_frac),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
