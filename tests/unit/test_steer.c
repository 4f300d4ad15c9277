// SPDX-License-Identifier: MIT
/*
 * The ATSSS steering modes (issue 13) on hand-made views: threshold hysteresis and
 * its events (sched/steer.c), active-standby by path name with the return hold,
 * load-balance fixed and autonomous splits, priority fill and overflow, redundant
 * copies and their options, and the receiver dropping the second copy by DSN.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/sched.h>

#include "reorder.h"
#include "schedtest.h"
#include "session.h"
#include "steer.h"

#define PKT	1000u
#define MS	MPT_NSEC_PER_MSEC

struct fix {
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	struct mpt_path_view paths[MPT_MAX_PATHS];
	struct mpt_sched_ctx ctx;
	const struct mpt_sched_ops *ops;
};

/* Two paths, "wifi" (10 ms, cost 1) and "lte" (40 ms, cost 2), lots of room. */
static void fix_init(struct fix *f, const char *sched, const char **kv)
{
	static const char *const names[] = { "wifi", "lte", "sat" };
	static const uint64_t rtt[] = { 20, 80, 600 };

	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < 3; i++) {
		f->paths[i].id = (uint8_t)i;
		snprintf(f->paths[i].name, sizeof(f->paths[i].name), "%s", names[i]);
		f->paths[i].up = true;
		f->paths[i].mtu = 1500;
		f->paths[i].cwnd = 1000 * PKT;
		f->paths[i].srtt_ns = rtt[i] * MS;
		f->paths[i].cost = i + 1;
	}
	f->ctx.paths = f->paths;
	f->ctx.npaths = 2;
	f->ctx.now = 1000 * MS;
	f->ops = schedtest_setup(sched, f->priv, kv, &f->ctx);
	assert_non_null(f->ops);
}

/* Ask for one packet of len bytes; account it in flight on every chosen path. */
static uint32_t pick(struct fix *f, uint32_t len, uint32_t flow)
{
	struct mpt_pkt_meta m = { .len = len, .flow_hash = flow, .proto = 17 };
	uint32_t mask = f->ops->pick(f->priv, &f->ctx, &m);

	assert_int_equal(mask & ~((1u << f->ctx.npaths) - 1), 0);
	for (unsigned i = 0; i < f->ctx.npaths; i++)
		if (mask >> i & 1)
			f->paths[i].in_flight += len;
	return mask;
}

static void drain_all(struct fix *f)
{
	for (unsigned i = 0; i < f->ctx.npaths; i++)
		f->paths[i].in_flight = 0;
}

static unsigned events(struct fix *f, struct mpt_sched_event *ev, unsigned max)
{
	assert_non_null(f->ops->drain_events);
	return f->ops->drain_events(f->priv, ev, max);
}

static double sstat(struct fix *f, const char *name, unsigned path)
{
	return schedtest_stat(f->ops, f->priv, name, path);
}

/* ---- thresholds ---- */

/*
 * srtt wobbling around the RTT threshold must not flap: one entry when it first goes
 * above, no exit while it stays above threshold x (1 - hysteresis), an exit once it
 * is below that for good (after hold_ms), and an event for each.
 */
static void test_rtt_threshold_hysteresis(void **state)
{
	static const char *kv[] = { "rtt_threshold_ms", "100", "hysteresis", "0.2",
				    "hold_ms", "500", NULL };
	struct mpt_sched_event ev[8];
	struct fix f;
	unsigned n;

	fix_init(&f, "smallest-delay", kv);
	assert_int_equal(pick(&f, PKT, 1), 1);		/* wifi, 20 ms */
	n = events(&f, ev, 8);				/* the first choice is an event */
	assert_int_equal(n, 1);
	assert_int_equal(ev[0].kind, MPT_SCHED_EV_SWITCH);
	for (unsigned k = 0; k < 400; k++) {		/* 4 s of 95/105 ms, 10 ms apart */
		f.ctx.now += 10 * MS;
		f.paths[0].srtt_ns = (k & 1 ? 95 : 105) * MS;
		pick(&f, PKT, 1);
		drain_all(&f);
	}
	n = events(&f, ev, 8);
	assert_int_equal(sstat(&f, "crossings", 0), 1);
	assert_int_equal(sstat(&f, "breached", 0), 1);	/* mask: wifi */
	assert_true(n >= 1);
	assert_int_equal(ev[0].kind, MPT_SCHED_EV_RTT);
	assert_int_equal(ev[0].path, 0);
	assert_true(ev[0].on);
	assert_true(ev[0].value > 100 && ev[0].threshold == 100);
	/* the traffic left wifi for lte (80 ms) */
	assert_int_equal(pick(&f, PKT, 1), 2);
	/* 85 ms is above the leave level (80): stays breached */
	for (unsigned k = 0; k < 200; k++) {
		f.ctx.now += 10 * MS;
		f.paths[0].srtt_ns = 85 * MS;
		pick(&f, PKT, 1);
		drain_all(&f);
	}
	assert_int_equal(sstat(&f, "breached", 0), 1);
	/* below 80 ms: recovers, once */
	for (unsigned k = 0; k < 200; k++) {
		f.ctx.now += 10 * MS;
		f.paths[0].srtt_ns = 30 * MS;
		pick(&f, PKT, 1);
		drain_all(&f);
	}
	assert_int_equal(sstat(&f, "breached", 0), 0);
	assert_int_equal(sstat(&f, "crossings", 0), 2);
	n = events(&f, ev, 8);
	assert_true(n >= 1);
	for (unsigned i = 0; i < n; i++)
		if (ev[i].kind == MPT_SCHED_EV_RTT)
			assert_false(ev[i].on);
	assert_int_equal(pick(&f, PKT, 1), 1);		/* back on wifi */
}

/* Loss over a window of the view's counters, hold time respected both ways. */
static void test_loss_threshold_window(void **state)
{
	static const char *kv[] = { "loss_threshold", "0.01", "hold_ms", "2000",
				    "loss_window_ms", "1000", "loss_min_pkts", "100", NULL };
	struct fix f;
	uint64_t entered = 0;

	fix_init(&f, "priority", kv);
	assert_int_equal(pick(&f, PKT, 1), 1);
	/* 1000 packets a second on wifi; 2% lost from t = 2 s to 5 s, then none */
	for (unsigned ms = 1; ms <= 10000; ms++) {
		f.ctx.now += MS;
		f.paths[0].sent_pkts++;
		if (ms >= 2000 && ms < 5000 && ms % 50 == 0)
			f.paths[0].lost_pkts++;
		pick(&f, PKT, 1);
		drain_all(&f);
		if (!entered && sstat(&f, "breached", 0) == 1)
			entered = ms;
		if (entered && ms < entered + 2000)	/* hold: no exit before 2 s */
			assert_int_equal(sstat(&f, "breached", 0), 1);
	}
	print_message("loss breach entered at %llu ms\n", (unsigned long long)entered);
	assert_true(entered >= 3000 && entered <= 3100);	/* the first full window */
	assert_int_equal(sstat(&f, "breached", 0), 0);
	assert_int_equal(sstat(&f, "crossings", 0), 2);
}

/* A full event queue keeps the newest and counts what it dropped. */
static void test_event_queue_bounded(void **state)
{
	struct mpt_steer st = { 0 };
	struct mpt_sched_event ev[MPT_STEER_EVQ];

	for (unsigned i = 0; i < MPT_STEER_EVQ + 5; i++)
		mpt_steer_event(&st, i, MPT_SCHED_EV_SWITCH, 0, true, i, 0);
	assert_int_equal(st.ev_dropped, 5);
	assert_int_equal(mpt_steer_drain(&st, ev, MPT_STEER_EVQ), MPT_STEER_EVQ);
	assert_int_equal(ev[0].t_ns, 5);
	assert_int_equal(mpt_steer_drain(&st, ev, MPT_STEER_EVQ), 0);
}

/* ---- active-standby ---- */

static void test_active_standby_by_name(void **state)
{
	static const char *kv[] = { "active", "lte", "standby", "wifi", "return_ms",
				    "3000", NULL };
	struct mpt_sched_event ev[8];
	struct fix f;

	fix_init(&f, "active-standby", kv);
	assert_int_equal(pick(&f, PKT, 1), 2);		/* lte is active */
	f.paths[1].up = false;				/* active fails */
	f.ctx.now += MS;
	assert_int_equal(pick(&f, PKT, 1), 1);
	f.paths[1].up = true;				/* back: not before 3 s */
	for (unsigned ms = 0; ms < 2990; ms += 10) {
		f.ctx.now += 10 * MS;
		assert_int_equal(pick(&f, PKT, 1), 1);
		drain_all(&f);
	}
	f.ctx.now += 20 * MS;
	assert_int_equal(pick(&f, PKT, 1), 2);
	assert_int_equal(sstat(&f, "switches", 0), 2);
	assert_int_equal(events(&f, ev, 8), 3);		/* first choice + 2 switches */
	assert_int_equal(ev[1].kind, MPT_SCHED_EV_SWITCH);
	assert_int_equal(ev[1].path, 0);
	assert_true(ev[1].value == 1);			/* from lte */
	/* the active full: held, never overflowed to the standby */
	f.paths[1].in_flight = f.paths[1].cwnd;
	assert_int_equal(pick(&f, PKT, 1), 0);
	assert_int_equal(sstat(&f, "unknown_names", 0), 0);
}

static void test_active_standby_threshold_and_unknown(void **state)
{
	static const char *kv[] = { "active", "wifi", "rtt_threshold_ms", "100",
				    "hold_ms", "0", "return_ms", "0", NULL };
	static const char *bad[] = { "active", "nosuchpath", NULL };
	struct fix f;

	fix_init(&f, "active-standby", kv);
	assert_int_equal(pick(&f, PKT, 1), 1);
	f.paths[0].srtt_ns = 150 * MS;			/* wifi degrades: to lte */
	f.ctx.now += MS;
	assert_int_equal(pick(&f, PKT, 1), 2);
	f.paths[1].srtt_ns = 200 * MS;			/* both breach: active again */
	f.ctx.now += MS;
	assert_int_equal(pick(&f, PKT, 1), 1);
	/* a name that matches no path: the first path, counted */
	fix_init(&f, "active-standby", bad);
	assert_int_equal(pick(&f, PKT, 1), 1);
	assert_int_equal(sstat(&f, "unknown_names", 0), 1);
}

static void test_name_tunable_refused(void **state)
{
	_Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
	const struct mpt_sched_ops *ops = mpt_sched_find("active-standby");
	const struct mpt_param *p = mpt_param_find(ops->params, ops->nparams, "active");
	char err[128], buf[32];

	mpt_sched_prepare(priv, ops);
	assert_int_equal(mpt_param_parse(p, priv, "wi fi", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'wi fi'"));
	assert_int_equal(mpt_param_parse(p, priv, "averyveryverylongname", err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'averyveryverylongname'"));
	assert_int_equal(mpt_param_parse(p, priv, "wlan0.5-x", err, sizeof(err)), 0);
	mpt_param_format(p, priv, buf, sizeof(buf));
	assert_string_equal(buf, "wlan0.5-x");
}

/* ---- load-balance ---- */

static double byte_share(struct fix *f, unsigned path)
{
	double a = sstat(f, "bytes", 0), b = sstat(f, "bytes", 1);

	return (path ? b : a) / (a + b);
}

static void test_load_balance_fixed(void **state)
{
	static const char *kv[] = { "pct0", "70", "pct1", "30", NULL };
	struct fix f;

	fix_init(&f, "load-balance", kv);
	for (unsigned k = 0; k < 10000; k++) {
		assert_int_not_equal(pick(&f, 200 + k % 1200, k), 0);
		drain_all(&f);
	}
	print_message("fixed 70/30: %.4f / %.4f\n", byte_share(&f, 0), byte_share(&f, 1));
	assert_true(fabs(byte_share(&f, 0) - 0.7) < 0.001);
	/* the path due is full: held, not given to the other */
	f.paths[0].in_flight = f.paths[0].cwnd;
	for (unsigned k = 0; k < 10; k++)
		pick(&f, PKT, 1);
	assert_true(sstat(&f, "holds", 0) >= 1);
	/* wifi down: lte takes all */
	drain_all(&f);
	f.paths[0].up = false;
	for (unsigned k = 0; k < 100; k++)
		assert_int_equal(pick(&f, PKT, 1), 2);
}

static void test_load_balance_autonomous(void **state)
{
	static const char *kv[] = { "split", "autonomous", NULL };
	struct fix f;

	fix_init(&f, "load-balance", kv);
	f.paths[0].btlbw = 50000000 / 8;
	f.paths[1].btlbw = 20000000 / 8;
	for (unsigned k = 0; k < 7000; k++) {
		pick(&f, PKT, 1);
		drain_all(&f);
	}
	assert_true(fabs(byte_share(&f, 0) - 5.0 / 7) < 0.001);
	assert_true(fabs(sstat(&f, "share", 1) - 2.0 / 7) < 1e-9);
	/* an unmeasured path keeps the floor (5% of the largest) */
	f.paths[1].btlbw = 0;
	f.paths[1].delivery_rate = 0;
	f.paths[1].srtt_ns = 0;
	pick(&f, PKT, 1);
	assert_true(fabs(sstat(&f, "share", 1) - 0.05 / 1.05) < 1e-9);
}

/* ---- priority ---- */

/* arrival = 0, the mode as TS 23.501 5.32.8 words it: full is congested */
static void test_priority_fill_and_overflow(void **state)
{
	static const char *kv[] = { "rtt_threshold_ms", "100", "hold_ms", "0",
				    "arrival", "0", NULL };
	struct fix f;

	fix_init(&f, "priority", kv);
	f.paths[0].cost = 5;				/* lte (cost 2) first now */
	f.paths[1].cwnd = 3 * PKT;
	for (unsigned k = 0; k < 3; k++)
		assert_int_equal(pick(&f, PKT, 1), 2);
	assert_int_equal(pick(&f, PKT, 1), 1);		/* lte full: overflow */
	assert_int_equal(sstat(&f, "overflows", 0), 1);
	f.paths[0].in_flight = f.paths[0].cwnd;
	assert_int_equal(pick(&f, PKT, 1), 0);		/* both full: held */
	drain_all(&f);
	f.paths[1].srtt_ns = 300 * MS;			/* lte breaches: after wifi */
	f.ctx.now += MS;
	assert_int_equal(pick(&f, PKT, 1), 1);
	f.paths[0].in_flight = f.paths[0].cwnd;	/* wifi full: lte still used */
	assert_int_equal(pick(&f, PKT, 1), 2);
}

/*
 * The default (arrival awareness, as cpf): a full higher path is "congested" only
 * when the sender's queue stands there; a burst waits for it instead of spilling onto
 * the lower path, whose packets would hold the higher path's in the receiver. With the
 * queue standing the lower path takes the overflow when it arrives in time, and a
 * threshold breach still puts the breaching path after the others.
 */
static void test_priority_congested_is_a_standing_queue(void **state)
{
	static const char *kv[] = { "rtt_threshold_ms", "100", "hold_ms", "0", NULL };
	struct fix f;

	fix_init(&f, "priority", kv);
	f.paths[0].cwnd = 3 * PKT;
	f.paths[0].btlbw = 50000000 / 8;
	f.paths[1].btlbw = 20000000 / 8;
	f.ctx.queue_bytes = 1000 * PKT;		/* 160 ms on wifi: lte (40 ms) in time */
	for (unsigned k = 0; k < 3; k++)
		assert_int_equal(pick(&f, PKT, 1), 1);
	assert_int_equal(pick(&f, PKT, 1), 0);		/* wifi full, no standing queue */
	assert_int_equal(sstat(&f, "holds", 0), 1);
	f.ctx.standing = true;				/* congested: lte in time */
	assert_int_equal(pick(&f, PKT, 1), 2);
	assert_int_equal(sstat(&f, "overflows", 0), 1);
	f.ctx.standing = false;
	drain_all(&f);
	f.paths[0].srtt_ns = 300 * MS;			/* wifi breaches: lte first */
	f.ctx.now += MS;
	assert_int_equal(pick(&f, PKT, 1), 2);
	f.paths[1].in_flight = f.paths[1].cwnd;	/* lte full, no standing queue */
	assert_int_equal(pick(&f, PKT, 1), 0);
}

/* ---- redundant ---- */

static void test_redundant_copies_and_options(void **state)
{
	static const char *small[] = { "max_len", "300", NULL };
	static const char *first[] = { "first_pkts", "3", NULL };
	static const char *thr[] = { "trigger", "threshold", "loss_threshold", "0.05",
				     "loss_window_ms", "100", "loss_min_pkts", "10",
				     "hold_ms", "0", NULL };
	struct fix f;

	fix_init(&f, "redundant", NULL);
	assert_int_equal(pick(&f, PKT, 1), 3);		/* both */
	f.paths[1].in_flight = f.paths[1].cwnd;
	assert_int_equal(pick(&f, PKT, 1), 1);		/* one has room: alone */
	assert_int_equal(sstat(&f, "single", 0), 1);
	f.ctx.npaths = 3;				/* the two lowest srtt with room */
	drain_all(&f);
	assert_int_equal(pick(&f, PKT, 1), 3);

	fix_init(&f, "redundant", small);
	assert_int_equal(pick(&f, 160, 1), 3);
	assert_int_equal(pick(&f, 1200, 1), 1);		/* big: best path only */

	fix_init(&f, "redundant", first);
	for (unsigned k = 0; k < 3; k++) {
		assert_int_equal(pick(&f, PKT, 7), 3);
		assert_int_equal(pick(&f, PKT, 8), 3);
	}
	assert_int_equal(pick(&f, PKT, 7), 1);
	assert_int_equal(pick(&f, PKT, 8), 1);
	assert_int_equal(sstat(&f, "copied", 0), 6);

	fix_init(&f, "redundant", thr);
	assert_int_equal(pick(&f, PKT, 1), 1);		/* no breach: one copy */
	for (unsigned k = 0; k < 200; k++) {		/* wifi loses 10% */
		f.ctx.now += MS;
		f.paths[0].sent_pkts++;
		f.paths[0].lost_pkts += k % 10 == 0;
		pick(&f, PKT, 1);
		drain_all(&f);
	}
	assert_int_equal(sstat(&f, "breached", 0), 1);
	assert_int_equal(pick(&f, PKT, 1), 3);		/* duplicated; lte ranks first */
}

/* The receiver keeps the first copy of a DSN and drops (and counts) the second. */
static unsigned released;

static void on_release(void *arg, uint64_t dsn, void *pkt, uint32_t len,
		       enum mpt_reorder_why why)
{
	released++;
}

static void test_redundant_duplicate_dropped(void **state)
{
	struct mpt_reorder rb;
	static char a[100], b[100];

	released = 0;
	assert_int_equal(mpt_reorder_init(&rb, 64, 50 * MS, 5 * MS, on_release, NULL), 0);
	for (uint64_t dsn = 0; dsn < 10; dsn++) {
		/* copy on the fast path, then the same DSN on the slow one */
		assert_int_equal(mpt_reorder_insert(&rb, dsn, a, 100, dsn * MS), 0);
		if (dsn >= 2)
			assert_int_equal(mpt_reorder_insert(&rb, dsn - 2, b, 100, dsn * MS),
					 -EEXIST);
	}
	assert_int_equal(released, 10);
	assert_int_equal(rb.st.duplicate, 8);
	mpt_reorder_free(&rb);
}

/* The core's text for each event (session_steer.c), as logged and shown in watch. */
static void test_event_text(void **state)
{
	struct mpt_path_view v[2] = { { .name = "wifi" }, { .name = "lte" } };
	struct mpt_sched_event rtt = { .kind = MPT_SCHED_EV_RTT, .path = 0, .on = true,
				       .value = 152.34, .threshold = 100 };
	struct mpt_sched_event loss = { .kind = MPT_SCHED_EV_LOSS, .path = 1, .on = false,
					.value = 0.001, .threshold = 0.008 };
	struct mpt_sched_event sw = { .kind = MPT_SCHED_EV_SWITCH, .path = 1, .value = -1 };
	char buf[112];

	mpt_sched_event_format(&rtt, v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "wifi: rtt 152.3 ms above threshold 100.0 ms");
	mpt_sched_event_format(&loss, v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "lte: loss 0.10% back below 0.80%");
	mpt_sched_event_format(&sw, v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "traffic moved to lte from none");
	sw.path = 7;					/* out of range: no crash */
	mpt_sched_event_format(&sw, v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "traffic moved to none from none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtt_threshold_hysteresis),
		cmocka_unit_test(test_loss_threshold_window),
		cmocka_unit_test(test_event_queue_bounded),
		cmocka_unit_test(test_active_standby_by_name),
		cmocka_unit_test(test_active_standby_threshold_and_unknown),
		cmocka_unit_test(test_name_tunable_refused),
		cmocka_unit_test(test_load_balance_fixed),
		cmocka_unit_test(test_load_balance_autonomous),
		cmocka_unit_test(test_priority_fill_and_overflow),
		cmocka_unit_test(test_priority_congested_is_a_standing_queue),
		cmocka_unit_test(test_redundant_copies_and_options),
		cmocka_unit_test(test_redundant_duplicate_dropped),
		cmocka_unit_test(test_event_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
