// SPDX-License-Identifier: MIT
/*
 * The learning schedulers on the simulated link (tests/unit/support/simlink.h): real
 * BBR per path, real scheduler, virtual time.
 *
 * OLMS, Application I of its paper (VI-B), four paths, greedy source:
 *
 *   source --> olms --+--> p0: 30 Mbit/s, RTT 20 ms, loss 1.00 % --+
 *   (greedy)  maxrtt  +--> p1: 20 Mbit/s, RTT 30 ms, loss 1.19 % --+--> receiver
 *   C_r 50 ms, L 2    +--> p2: 60 Mbit/s, RTT 50 ms, loss 1.50 % --+
 *                     +--> p3: 40 Mbit/s, RTT 60 ms, loss 1.56 % --+
 *
 * v* is the LP of eq. (4) (sched/olms_lp.h) on the true normalised means, with
 * olms.c's scales: b_i = rate_i / bw_scale (100 Mbit/s), r_i = RTT_i / rtt_scale
 * (100 ms), C_r = 50 ms / 100 ms: the paper's b = (.3 .2 .6 .4), r = (.2 .3 .5 .6),
 * v* = (0.17, 0, 1, 0.83). OLMS measures b as cwnd / srtt (section V); under BBR
 * (cwnd = 2 BDP) that is about twice the rate, clipped at 1, but the LP of eq. (4)
 * only depends on the order of b (it fills the paths by decreasing b up to
 * min(1, C_r / r_i)), and the order is kept. A greedy source matters: on an
 * app-limited path cwnd / srtt measures what OLMS itself sends there, not what the
 * path could carry. Application I picks uniformly from the rounded set (VI-B), so
 * the violation count grows linearly here (see the test); choice = highest, with
 * sublinear violation, is in test_sim_olms_vio.c.
 *
 * egreedy explores at rate epsilon; exp3 moves flows only on losses, with backoff.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "olms_lp.h"
#include "simlink.h"

#define MS MPT_NSEC_PER_MSEC
#define SEC MPT_NSEC_PER_SEC
#define MBIT(x) ((uint64_t)((x) * 1e6 / 8))

static double sched_stat(struct sim_session *s, const char *name, unsigned path)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	for (size_t k = 0; k < ops->nstats; k++)
		if (!strcmp(ops->stats[k].name, name))
			return mpt_stat_read(&ops->stats[k], sim_session_sched_priv(s), path);
	fail_msg("scheduler %s has no stat '%s'", ops->name, name);
	return 0;
}

static double sched_param(struct sim_session *s, const char *name)
{
	const struct mpt_sched_ops *ops = sim_session_sched_ops(s);

	return mpt_param_get(mpt_param_find(ops->params, ops->nparams, name),
			     sim_session_sched_priv(s));
}

static struct sim_path_cfg path(uint64_t rate, uint64_t rtt_ns, double loss)
{
	return (struct sim_path_cfg){ .cc = "bbr",
		.link = { .rate = rate, .delay_ns = rtt_ns / 2, .loss = loss,
			  .queue_bytes = (uint64_t)(2.0 * (double)rate * (double)rtt_ns / SEC) } };
}

/* ---- OLMS, Application I ---- */

#define K 4
static const double APP1_MBIT[K] = { 30, 20, 60, 40 };
static const double APP1_RTT_MS[K] = { 20, 30, 50, 60 };
static const double APP1_LOSS[K] = { 0.0100, 0.0119, 0.0150, 0.0156 };

/* Per half of the run: how often each path was in the rounded set, per decision. */
struct olms_half {
	double in_set[K], picks[K], violations, decisions, calls;
};

static void olms_snapshot(struct sim_session *s, struct olms_half *h)
{
	h->calls = 0;
	for (unsigned i = 0; i < K; i++) {
		h->in_set[i] = sched_stat(s, "in_set", i);
		h->picks[i] = sched_stat(s, "picks", i);
	}
	h->violations = sched_stat(s, "violations", 0);
	h->decisions = sched_stat(s, "decisions", 0);
}

/* b - a, with calls = rounded sets drawn (each has exactly L members) */
static struct olms_half olms_diff(const struct olms_half *a, const struct olms_half *b,
				  double l)
{
	struct olms_half d = { .violations = b->violations - a->violations,
			       .decisions = b->decisions - a->decisions };

	for (unsigned i = 0; i < K; i++) {
		d.in_set[i] = b->in_set[i] - a->in_set[i];
		d.picks[i] = b->picks[i] - a->picks[i];
		d.calls += d.in_set[i] / l;
	}
	return d;
}

static double dist(const struct olms_half *h, const double *v)
{
	double d = 0;

	for (unsigned i = 0; i < K; i++)
		d += fabs(h->in_set[i] / h->calls - v[i]);
	return d;
}

/* choice = random, the paper's own Application I set-up (VI-B) */
static void test_olms_app1_random_converges(void **state)
{
	struct sim_session_cfg cfg = { .npaths = K, .sched = "olms", .seed = 1 };
	double b[K], r[K], r_sim[K], v_star[K], v_sim[K], opt, c_r, l, bw_scale, rtt_scale;
	double opt_viol = 0, true_viol = 0, true_opt = 0;
	struct olms_half t0, t1, t2, h1, h2;
	struct sim_session *s;
	const uint64_t T = 20 * SEC;

	for (unsigned i = 0; i < K; i++)
		cfg.paths[i] = path(MBIT(APP1_MBIT[i]), (uint64_t)(APP1_RTT_MS[i] * MS),
				    APP1_LOSS[i]);
	s = sim_session_new(&cfg);
	assert_int_equal(sim_session_set_param(s, -1, "arrival", "0"), 0);	/* paper */
	/* Application I picks uniformly from the rounded set (VI-B) */
	assert_int_equal(sim_session_set_param(s, -1, "choice", "random"), 0);
	/* b = cwnd / srtt as section V, as the comments above assume; with btlbw (smoother,
	 * fewer monitor resets) seed 1 leaves p2 out of the set (0.003 of decisions) */
	assert_int_equal(sim_session_set_param(s, -1, "bw_source", "cwnd"), 0);
	assert_int_equal(sched_param(s, "app"), 0);	/* maxrtt */
	rtt_scale = sched_param(s, "rtt_scale_ms");
	bw_scale = sched_param(s, "bw_scale_mbit");
	c_r = sched_param(s, "c_r_ms") / rtt_scale;
	l = sched_param(s, "l");
	for (unsigned i = 0; i < K; i++) {
		b[i] = APP1_MBIT[i] / bw_scale;
		r[i] = APP1_RTT_MS[i] / rtt_scale;
	}
	assert_int_equal(mpt_olms_lp_maxrtt(K, b, r, c_r, l, v_star, &opt), 0);

	olms_snapshot(s, &t0);
	sim_session_run_until(s, T / 2);
	olms_snapshot(s, &t1);
	sim_session_reset_stats(s);
	sim_session_run_until(s, T);
	olms_snapshot(s, &t2);
	h1 = olms_diff(&t0, &t1, l);
	h2 = olms_diff(&t1, &t2, l);

	/* What OLMS can reach here: the LP on the RTTs it measures on the sim (BBR's
	 * queue adds a few ms), with the true bandwidth order. */
	for (unsigned i = 0; i < K; i++)
		r_sim[i] = sim_path_rtt_mean_ns(s, i) / MS / rtt_scale;
	assert_int_equal(mpt_olms_lp_maxrtt(K, b, r_sim, c_r, l, v_sim, &opt), 0);
	for (unsigned i = 0; i < K; i++) {
		print_message("olms p%u: v* %.3f, v(sim RTT %.1f ms) %.3f, in set %.3f -> "
			      "%.3f, packets %.3f -> %.3f, goodput %.2f of link\n", i,
			      v_star[i], r_sim[i] * rtt_scale, v_sim[i],
			      h1.in_set[i] / h1.calls, h2.in_set[i] / h2.calls,
			      h1.picks[i] / h1.decisions, h2.picks[i] / h2.decisions,
			      sim_path_goodput(s, i) / (double)MBIT(APP1_MBIT[i]));
		if (r_sim[i] > c_r)
			opt_viol += v_star[i] / l;
	}
	print_message("olms: |in set - v*|_1 %.3f -> %.3f; measured violations %.0f -> "
		      "%.0f (%.3f -> %.3f per decision; v* itself: %.3f); monitor resets %.0f\n",
		      dist(&h1, v_star), dist(&h2, v_star), h1.violations, h2.violations,
		      h1.violations / h1.decisions, h2.violations / h2.decisions, opt_viol,
		      sched_stat(s, "monitor_resets", 0));

	/* the rounded sets move towards v* */
	assert_true(dist(&h2, v_star) < dist(&h1, v_star));
	/* and end near it: within what the sim's RTTs shift the optimum by, plus 0.15 for
	 * the Thompson samples: Algorithm 2's monitor resets each series a few times a
	 * second here (BBR's RTT and cwnd swings exceed 3 posterior sigmas once N is
	 * large), so the posteriors are often wide and the LP often fed raw draws. Without
	 * the monitor OLMS locks onto p0+p1 for good: Startup's tiny cwnd/srtt samples
	 * bury p2 and p3, which then get no ACKs to correct them. */
	for (unsigned i = 0; i < K; i++)
		assert_true(fabs(h2.in_set[i] / h2.calls - v_star[i]) <=
			    fabs(v_sim[i] - v_star[i]) + 0.15);
	/*
	 * Violations (eq. 3, 7) grow linearly under this rule, by design of the rule: a
	 * uniform pick from the set sends v*_3 / L = 0.42 of the packets on p3 (r = 0.6 >
	 * C_r) even with v* known, and with a greedy source the packets follow the room on
	 * the paths anyway. Sublinear growth needs choice = highest (test_sim_olms_vio.c).
	 * What must hold is that OLMS violates no more than v* would: on the true means
	 * (packets on paths with r > C_r, from picks) against sum v*_i / L over those
	 * paths, and on olms's own count from measured srtt (on the sim p2's RTT is above
	 * C_r too) against the same sum over the paths whose sim RTT exceeds C_r.
	 */
	for (unsigned i = 0; i < K; i++)
		if (r[i] > c_r) {
			true_viol += h2.picks[i];
			true_opt += v_star[i] / l;
		}
	print_message("olms random: packets on paths with r > C_r %.3f of decisions "
		      "(v* itself: %.3f)\n", true_viol / h2.decisions, true_opt);
	assert_true(true_viol / h2.decisions <= true_opt);
	assert_true(h2.violations / h2.decisions <= opt_viol);
	sim_session_free(s);
}

/* ---- egreedy ---- */

/* Binomial bound: |x/n - p| <= 4 sigma. */
static bool within_binomial(double x, double n, double p)
{
	return fabs(x / n - p) <= 4 * sqrt(p * (1 - p) / n);
}

static void test_egreedy_explores_at_epsilon(void **state)
{
	uint64_t r = MBIT(20);
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "egreedy", .seed = 5,
				       .source_rate = r / 2 };
	struct sim_session *s;
	double eps, ex, ey, n, slow;

	cfg.paths[0] = path(r, 20 * MS, 0);
	cfg.paths[1] = path(r, 60 * MS, 0);
	s = sim_session_new(&cfg);
	assert_int_equal(sim_session_set_param(s, -1, "arrival", "0"), 0);	/* paper */
	eps = sched_param(s, "epsilon");
	sim_session_run_until(s, 10 * SEC);
	ex = sched_stat(s, "explorations", 0);
	ey = sched_stat(s, "exploitations", 0);
	n = ex + ey;
	slow = (double)sim_path_stats(s, 1)->handed_pkts;
	print_message("egreedy eps %.2f: explored %.0f of %.0f (%.4f), slow path %.4f of "
		      "packets (want eps / 2 = %.4f)\n", eps, ex, n, ex / n, slow / n, eps / 2);
	assert_true(within_binomial(ex, n, eps));
	/* both paths have room at half of one link's rate: an exploration picks either
	 * path with probability 1/2, exploitation always takes the short one */
	assert_true(within_binomial(slow, n, eps / 2));
	sim_session_free(s);
}

/* ---- exp3 ---- */


static void test_exp3_moves_on_losses_with_backoff(void **state)
{
	uint64_t r = MBIT(20);
	const unsigned nflows = 8;
	struct sim_session_cfg cfg = { .npaths = 2, .sched = "exp3", .seed = 11,
				       .source_rate = r / 2, .nflows = nflows };
	struct sim_session *s;
	double steps, moves, skips, base, bound;
	const double t_loss = 10;

	cfg.paths[0] = path(r, 20 * MS, 0);
	cfg.paths[1] = path(r, 40 * MS, 0);
	s = sim_session_new(&cfg);
	base = sched_param(s, "backoff_base_ms") / 1e3;

	/* below capacity, no loss: flows stay where they started, but for holds */
	sim_session_run_until(s, (uint64_t)(t_loss * SEC));
	print_message("exp3 no loss: %.0f flows, steps %.0f moves %.0f, lost %llu+%llu\n",
		      sched_stat(s, "flows", 0), sched_stat(s, "steps", 0),
		      sched_stat(s, "moves", 0),
		      (unsigned long long)sim_path_stats(s, 0)->lost_pkts,
		      (unsigned long long)sim_path_stats(s, 1)->lost_pkts);
	assert_int_equal(sim_path_stats(s, 0)->lost_pkts + sim_path_stats(s, 1)->lost_pkts, 0);
	assert_true(sched_stat(s, "flows", 0) == nflows);
	/* no loss or mark signal; the only steps are holds while the paths' BBR opens
	 * its window at the start (a held flow is a signal, issue 14), a few per flow */
	assert_true(sched_stat(s, "loss_signals", 0) == 0);
	assert_true(sched_stat(s, "mark_signals", 0) == 0);
	assert_true(sched_stat(s, "steps", 0) <= nflows);

	/* random loss on both paths: every flow sees congestion signals */
	sim_path_link(s, 0)->loss = 0.02;
	sim_path_link(s, 1)->loss = 0.02;
	sim_session_run_until(s, (uint64_t)(2 * t_loss * SEC));
	steps = sched_stat(s, "steps", 0);
	moves = sched_stat(s, "moves", 0);
	skips = sched_stat(s, "backoff_skips", 0);
	/* each flow steps at most once per backoff, which is at least backoff_base */
	bound = nflows * (t_loss / base + 1);
	print_message("exp3 2%% loss for %.0f s: steps %.0f (bound %.0f), moves %.0f, "
		      "signals skipped in backoff %.0f, losses %llu\n", t_loss, steps, bound,
		      moves, skips,
		      (unsigned long long)(sim_path_stats(s, 0)->lost_pkts +
					   sim_path_stats(s, 1)->lost_pkts));
	assert_true(steps > 0 && moves > 0);
	assert_true(steps <= bound);
	assert_true(skips > steps);	/* losses come faster than the backoff allows */
	sim_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_olms_app1_random_converges),
		cmocka_unit_test(test_egreedy_explores_at_epsilon),
		cmocka_unit_test(test_exp3_moves_on_losses_with_backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
