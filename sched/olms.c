// SPDX-License-Identifier: MIT
/*
 * olms — Online Learning Multi-path Scheduling (Cai, Chen, Zhang, Lui, IEEE TNSE 2025).
 *
 * Algorithm 1, per decision t (a decision cycle of n packets shares one LP, VI-E2):
 *   for each up path i: b^_i ~ Beta(S_i^B + 1, N_i^B - S_i^B + 1)      (Thompson)
 *                       r^_i ~ Beta(S_i^R + 1, N_i^R - S_i^R + 1)
 *   v_t = LP of the application on (b^, r^), over the up paths:
 *     maxrtt, eq. (4): max v.b^ s.t. r^_i v_i <= C_r, 0 <= v <= 1, sum v = L
 *     bwcap,  eq. (8): min max_i v_i r^_i s.t. v.b^ <= C_b, 0 <= v <= 1, sum v = L
 *   infeasible -> minRTT (section III-B);
 *   else dependent rounding of v_t to a set of exactly L paths (systematic sampling:
 *   one uniform u, path i is in the set iff [cum_{i-1}, cum_i) holds one of
 *   u, u+1, ..., u+L-1; P(i in set) = v_i exactly, |set| = L), then the path of the
 *   set with the highest v_i that has room (III-B; or, tunable, a uniformly random one
 *   of the set as in V and VI-B). No member with room: hold (ours: unless a member's
 *   controller still opens its window from the initial one, as on a path back from an
 *   outage: then the in-time paths with room; holding for it left the other paths
 *   idle). Ties in v (several
 *   members capped at 1) go to the better sample of the utility, b^ (maxrtt) or the
 *   lower r^ (bwcap): the member the LP filled first, not the lowest index.
 * On each ACK of path i (Algorithm 1 lines 12-18, section V): measure
 *   b and r = srtt, both normalised by the scales (VI-B: 100 Mbit/s, 100 ms) and
 *   clipped to [0, 1]; run Algorithm 2's MONITOR on each; then one Bernoulli trial
 *   each: S += Bernoulli(b), N += 1. Ours: no b while the path's controller is in
 *   Startup, slow start or ProbeRTT, whose window measures the controller, not the
 *   path: a path back from an outage (controller restarted) was taught its initial
 *   window as its rate, lost every draw and stayed starved (test_sim_olms_outage.c).
 * b (tunable bw_source): section V's cwnd / srtt by default, the path's rate under
 *   the paper's loss-based CC (cwnd ~ BDP). Under BBR cwnd = cwnd_gain (2) x BDP, so
 *   it reads twice the rate. Application I (eq. 4) depends only on the order of b,
 *   and on the simulated link it converges with cwnd / srtt while btlbw, smoother,
 *   triggers fewer monitor resets and can leave a path OLMS barely sends on (whose
 *   estimate is then app-limited) starved (test_sim_olms.c); hence the default.
 *   Application II (eq. 8) compares v.b with C_b in absolute terms: there cwnd / srtt
 *   under BBR makes the LP infeasible (minRTT), and bw_source = btlbw (the CC's
 *   bottleneck estimate: BBR's max filter, cubic's max delivery rate; cwnd / srtt
 *   when the CC has none, as fixed) is the rate the paper's b stands for
 *   (test_olms_app2.c).
 * MONITOR (Algorithm 2), per series, once N >= q: mu = (S+1)/(N+2) and sigma the
 *   Beta(S+1, N-S+1) standard deviation; a measurement with |x - mu| > delta sigma
 *   counts a deviation, a conforming one clears the count (deviations must be
 *   consecutive, section V); more than h in a row reset that series' S and N.
 *   (Algorithm 2 prints mu = (S+1)/N; we use the mean of the very Beta whose sigma
 *   the same line gives.)
 * Violation stats (eq. 3, 7, 11) are taken on measurements: G(p_t) from the picked
 * path's srtt (maxrtt) or b (bwcap) at send time, not from the path's true
 * mean, which the paper's Vio(T) uses and the scheduler cannot know.
 */
#include <math.h>

#include <mptund/sched.h>

#include "olms_lp.h"
#include "arrival.h"
#include "pathsel.h"
#include "sched_modules.h"

enum olms_app { OLMS_MAXRTT, OLMS_BWCAP };
enum olms_choice { OLMS_HIGHEST, OLMS_RANDOM };
enum olms_bw_source { OLMS_BW_CWND, OLMS_BW_BTLBW };
enum olms_overflow { OLMS_OVERFLOW_IN_TIME, OLMS_OVERFLOW_HOLD };

/* One Beta posterior (S successes of N Bernoulli trials) and its monitor. */
struct olms_post {
	uint32_t s, n;
	uint32_t dev;			/* consecutive deviations (Algorithm 2's c) */
	double ga_d, ga_c, gb_d, gb_c;	/* Marsaglia-Tsang constants of both Gammas */
};

struct olms {
	/* tunables */
	uint32_t app;
	double c_r_ms;
	double c_b_mbit;
	uint32_t l;
	double rtt_scale_ms;
	double bw_scale_mbit;
	uint32_t bw_source;
	uint32_t cycle;
	uint32_t choice;
	uint32_t overflow;
	bool monitor;
	bool arrival;
	uint32_t mon_q;
	double mon_delta;
	uint32_t mon_h;

	/* state */
	struct olms_post bw[MPT_MAX_PATHS], rtt[MPT_MAX_PATHS];
	uint32_t cycle_left;
	uint32_t solved_mask;		/* up paths the current v was solved for */
	bool feasible;
	bool have_spare;
	double spare;			/* second normal of the polar method */
	double key[MPT_MAX_PATHS];	/* sampled utility, breaks ties in v: b^ or -r^ */

	/* stats */
	double v[MPT_MAX_PATHS];
	double bw_mean[MPT_MAX_PATHS], rtt_mean[MPT_MAX_PATHS];
	uint64_t picks[MPT_MAX_PATHS], in_set[MPT_MAX_PATHS];
	uint64_t decisions, lp_solves, violations, infeasible, resets, holds, overflows;
	double violation_sum;
};
_Static_assert(sizeof(struct olms) <= MPT_SCHED_PRIV_SIZE, "olms state too large");

/* Standard normal, Marsaglia's polar method (two per round, one kept). */
static double olms_normal(struct olms *o, struct mpt_rng *rng)
{
	double x, y, s;

	if (o->have_spare) {
		o->have_spare = false;
		return o->spare;
	}
	do {
		x = 2 * mpt_rng_double(rng) - 1;
		y = 2 * mpt_rng_double(rng) - 1;
		s = x * x + y * y;
	} while (s >= 1 || s == 0);
	s = sqrt(-2 * log(s) / s);
	o->spare = y * s;
	o->have_spare = true;
	return x * s;
}

/* Gamma(a), a >= 1, Marsaglia-Tsang with d = a - 1/3, c = 1 / sqrt(9 d). */
static double olms_gamma(struct olms *o, struct mpt_rng *rng, double d, double c)
{
	for (;;) {
		double x, v, u;

		do {
			x = olms_normal(o, rng);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = mpt_rng_double(rng);
		if (u < 1 - 0.0331 * (x * x) * (x * x))
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

static void olms_post_prepare(struct olms_post *p)
{
	double a = p->s + 1.0, b = (double)(p->n - p->s) + 1.0;

	p->ga_d = a - 1.0 / 3;
	p->ga_c = 1 / sqrt(9 * p->ga_d);
	p->gb_d = b - 1.0 / 3;
	p->gb_c = 1 / sqrt(9 * p->gb_d);
}

/* Thompson sample of Beta(S + 1, N - S + 1) (Algorithm 1 lines 6-7). */
static double olms_sample(struct olms *o, struct mpt_rng *rng, const struct olms_post *p)
{
	double x, y;

	if (p->n == 0)
		return mpt_rng_double(rng);	/* Beta(1, 1) */
	x = olms_gamma(o, rng, p->ga_d, p->ga_c);
	y = olms_gamma(o, rng, p->gb_d, p->gb_c);
	return x / (x + y);
}

static double olms_mean(const struct olms_post *p)
{
	return (p->s + 1.0) / (p->n + 2.0);
}

/* Algorithm 2 on measurement x; true when it reinitialised the statistics. */
static bool olms_monitor(const struct olms *o, struct olms_post *p, double x)
{
	double n = p->n, s = p->s, mu, sigma;

	if (!o->monitor || p->n < o->mon_q)
		return false;
	mu = (s + 1) / (n + 2);
	sigma = sqrt((s + 1) * (n - s + 1) / ((n + 3) * (n + 2) * (n + 2)));
	if (fabs(x - mu) <= o->mon_delta * sigma) {
		p->dev = 0;
		return false;
	}
	if (++p->dev <= o->mon_h)
		return false;
	p->s = p->n = 0;
	p->dev = 0;
	return true;
}

static void olms_observe(struct olms *o, struct mpt_rng *rng, struct olms_post *p,
			 double x)
{
	if (olms_monitor(o, p, x))
		o->resets++;
	if (mpt_rng_double(rng) < x)
		p->s++;
	p->n++;
	olms_post_prepare(p);
}

static double clip01(double x)
{
	return x < 0 ? 0 : (x > 1 ? 1 : x);
}

static double olms_rtt_norm(const struct olms *o, const struct mpt_path_view *v)
{
	return clip01((double)v->srtt_ns / (o->rtt_scale_ms * 1e6));
}

/* The bandwidth measurement b, normalised; 0 without an RTT sample. bw_source =
 * btlbw: the controller's bottleneck estimate, or cwnd / srtt when it has none (fixed:
 * the window is then its only rate model); cwnd: cwnd / srtt as section V. */
static double olms_bw_norm(const struct olms *o, const struct mpt_path_view *v)
{
	double bps;

	if (!v->srtt_ns)
		return 0;
	if (o->bw_source == OLMS_BW_BTLBW && v->btlbw)
		bps = (double)v->btlbw;
	else
		bps = (double)v->cwnd * 1e9 / (double)v->srtt_ns;
	return clip01(bps / (o->bw_scale_mbit * 125000.0));
}

/* Does the controller's window measure the path's rate? Not while it grows from the
 * initial window (BBR Startup, slow start: also after a path reset, a dead path back
 * up) nor during BBR's ProbeRTT (4 packets on purpose). */
static bool olms_cc_settled(const struct mpt_path_view *v)
{
	return v->cc_state != MPT_CC_STARTUP && v->cc_state != MPT_CC_SLOW_START &&
	       v->cc_state != MPT_CC_PROBE_RTT;
}

/* The up paths whose controller still opens its window from the initial one. */
static uint32_t olms_opening(const struct mpt_sched_ctx *ctx)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up && (ctx->paths[i].cc_state == MPT_CC_STARTUP ||
					 ctx->paths[i].cc_state == MPT_CC_SLOW_START))
			m |= 1u << i;
	return m;
}

static void olms_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct olms *o = priv;

	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		o->bw[i] = (struct olms_post){ 0 };
		o->rtt[i] = (struct olms_post){ 0 };
		olms_post_prepare(&o->bw[i]);
		olms_post_prepare(&o->rtt[i]);
		o->bw_mean[i] = o->rtt_mean[i] = 0.5;
		o->v[i] = o->key[i] = 0;
	}
	o->cycle_left = 0;
	o->solved_mask = 0;
	o->feasible = false;
	o->have_spare = false;
}

static void olms_params_changed(void *priv)
{
	struct olms *o = priv;

	o->cycle_left = 0;	/* re-solve with the new constants */
}

/* Thompson-sample the up paths and solve the application's LP into o->v. */
static void olms_solve(struct olms *o, const struct mpt_sched_ctx *ctx, uint32_t up)
{
	double b[MPT_MAX_PATHS], r[MPT_MAX_PATHS], v[MPT_MAX_PATHS], opt, l;
	unsigned idx[MPT_MAX_PATHS], k = 0;
	int err;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		o->v[i] = 0;
		if (!(up & (1u << i)))
			continue;
		b[k] = olms_sample(o, ctx->rng, &o->bw[i]);
		r[k] = olms_sample(o, ctx->rng, &o->rtt[i]);
		idx[k++] = i;
	}
	l = MPT_MIN(o->l, k - 1);	/* 1 <= L < K (section III-A) */
	if (o->app == OLMS_MAXRTT)
		err = mpt_olms_lp_maxrtt(k, b, r, o->c_r_ms / o->rtt_scale_ms, l, v, &opt);
	else
		err = mpt_olms_lp_bwcap(k, b, r, o->c_b_mbit / o->bw_scale_mbit, l, v, &opt);
	o->feasible = err == 0;
	if (o->feasible)
		for (unsigned j = 0; j < k; j++) {
			o->v[idx[j]] = v[j];
			o->key[idx[j]] = o->app == OLMS_MAXRTT ? b[j] : -r[j];
		}
	o->solved_mask = up;
	o->lp_solves++;
}

/* Dependent rounding by systematic sampling: a set of L paths, P(i) = v_i. */
static uint32_t olms_round(const struct olms *o, const struct mpt_sched_ctx *ctx)
{
	double pos = mpt_rng_double(ctx->rng), cum = 0;
	uint32_t set = 0;

	for (unsigned i = 0; i < ctx->npaths; i++) {
		cum += o->v[i];
		if (o->v[i] > 0 && pos < cum) {
			set |= 1u << i;
			pos += 1;
		}
	}
	return set;
}

static void olms_account(struct olms *o, const struct mpt_sched_ctx *ctx, unsigned p)
{
	const struct mpt_path_view *v = &ctx->paths[p];
	double g;

	if (o->app == OLMS_MAXRTT)	/* eq. (7) */
		g = olms_rtt_norm(o, v) - o->c_r_ms / o->rtt_scale_ms;
	else				/* eq. (11) */
		g = olms_bw_norm(o, v) - o->c_b_mbit / o->bw_scale_mbit;
	if (g > 0) {
		o->violations++;
		o->violation_sum += g;
	}
	o->picks[p]++;
	o->decisions++;
}

/*
 * Arrival awareness (ours, arrival.h): the rounded set's paths with room that are in
 * time among all up paths. In time is judged against every up path, not within the
 * set: a draw that holds only a slow path (a Thompson sample from a fresh posterior)
 * would otherwise send the packet there, to arrive after the packets behind it on the
 * fast path, which the receiver then holds. When none of the set is in time the packet
 * goes to the in-time paths with room (by v, as within a set), or waits for them.
 */
static uint32_t olms_in_time(const struct mpt_sched_ctx *ctx, uint32_t set, uint32_t room,
			     uint32_t len)
{
	uint32_t useful = mpt_arrival_useful(ctx, ~0u, NULL, len);

	return set & useful ? set & useful : room & useful;
}

/*
 * The turn of a set none of whose members has room: the in-time paths with room
 * (all with room when arrival awareness is off). Ours, the default (overflow =
 * in_time): with K = 2 paths the set holds L = K - 1 = 1 path per decision, and
 * holding for it whenever it is full left the other path idle half the time (two
 * equal 50 Mbit/s paths: 78 Mbit/s; 80 + 10 Mbit/s: the fast path alone, 79, on the
 * simulated link); the LP's v still decides where a packet goes while its choice has
 * room, and a pick beyond the RTT cap still counts as a violation. overflow = hold
 * is III-B: wait for the set.
 */
static uint32_t olms_overflow(const struct olms *o, const struct mpt_sched_ctx *ctx,
			      uint32_t room, uint32_t len)
{
	return o->arrival ? room & mpt_arrival_useful(ctx, ~0u, NULL, len) : room;
}

static uint32_t olms_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct olms *o = priv;
	uint32_t up = 0, room, set;
	int best = -1;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up)
			up |= 1u << i;
	room = mpt_pathsel_room_mask(ctx);
	if (__builtin_popcount(up) < 2) {	/* nothing to learn or to choose */
		if (!room)
			goto hold;
		best = __builtin_ctz(room);
		goto done;
	}
	if (o->cycle_left == 0 || up != o->solved_mask) {
		olms_solve(o, ctx, up);
		o->cycle_left = o->cycle;
	}
	o->cycle_left--;
	if (!o->feasible) {
		best = mpt_pathsel_minrtt(ctx);
		if (best < 0)
			goto hold;
		o->infeasible++;
		goto done;
	}
	set = olms_round(o, ctx);
	for (uint32_t m = set; m; m &= m - 1)
		o->in_set[__builtin_ctz(m)]++;
	if (!(set & room) && (o->overflow == OLMS_OVERFLOW_IN_TIME ||
			      (set & olms_opening(ctx)))) {
		set = olms_overflow(o, ctx, room, pkt->len);
		o->overflows += set != 0;
	}
	set &= room;
	if (o->arrival && set)	/* ours: the set's paths only when in time */
		set = olms_in_time(ctx, set, room, pkt->len);
	if (!set)
		goto hold;
	if (o->choice == OLMS_RANDOM) {
		best = (int)mpt_pathsel_random(ctx->rng, set);
	} else {
		for (uint32_t m = set; m; m &= m - 1) {
			int i = __builtin_ctz(m);

			if (best < 0 || o->v[i] > o->v[best] ||
			    (o->v[i] == o->v[best] && o->key[i] > o->key[best]))
				best = i;
		}
	}
done:
	olms_account(o, ctx, (unsigned)best);
	return 1u << best;
hold:
	o->holds++;
	return 0;
}

static void olms_on_ack(void *priv, const struct mpt_sched_ctx *ctx, unsigned path,
			uint64_t acked_bytes)
{
	struct olms *o = priv;
	const struct mpt_path_view *v;

	if (path >= ctx->npaths || path >= MPT_MAX_PATHS)
		return;
	v = &ctx->paths[path];
	if (!v->srtt_ns)
		return;
	if (olms_cc_settled(v))
		olms_observe(o, ctx->rng, &o->bw[path], olms_bw_norm(o, v));
	olms_observe(o, ctx->rng, &o->rtt[path], olms_rtt_norm(o, v));
	o->bw_mean[path] = olms_mean(&o->bw[path]);
	o->rtt_mean[path] = olms_mean(&o->rtt[path]);
}

static const char *const olms_apps[] = { "maxrtt", "bwcap", NULL };
static const char *const olms_choices[] = { "highest", "random", NULL };
static const char *const olms_overflows[] = { "in_time", "hold", NULL };
static const char *const olms_bw_sources[] = { "cwnd", "btlbw", NULL };

static const struct mpt_param olms_params[] = {
	MPT_SCHED_ARRIVAL_PARAM(struct olms),
	{ .name = "app", .type = MPT_PARAM_ENUM, .offset = offsetof(struct olms, app),
	  .min = 0, .max = 1, .def = OLMS_MAXRTT, .enum_names = olms_apps,
	  .help = "application: maxrtt = max bandwidth under an RTT cap (IV-A, eq. 4), "
		  "bwcap = min max RTT under a bandwidth cap (IV-B, eq. 8)" },
	{ .name = "c_r_ms", .type = MPT_PARAM_DOUBLE, .offset = offsetof(struct olms, c_r_ms),
	  .min = 0, .max = 10000, .def = 50,
	  .help = "maxrtt: RTT threshold C_r, ms (eq. 4; 50 ms = 0.5 in VI-B)" },
	{ .name = "c_b_mbit", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct olms, c_b_mbit), .min = 0, .max = 100000, .def = 40,
	  .help = "bwcap: bandwidth threshold C_b, Mbit/s (eq. 8; 40 Mbit/s = 0.4 in VI-C)" },
	{ .name = "l", .type = MPT_PARAM_U32, .offset = offsetof(struct olms, l),
	  .min = 1, .max = MPT_MAX_PATHS - 1, .def = 2,
	  .help = "size L of the rounded path set, sum v = L, capped at K-1 (III-A; L = 2 "
		  "in VI-B, VI-C)" },
	{ .name = "rtt_scale_ms", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct olms, rtt_scale_ms), .min = 0.1, .max = 100000,
	  .def = 100, .help = "RTT normalisation scale, ms: r = srtt / scale (VI-B)" },
	{ .name = "bw_scale_mbit", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct olms, bw_scale_mbit), .min = 0.001, .max = 1000000,
	  .def = 100,
	  .help = "bandwidth normalisation scale, Mbit/s: b = rate (see bw_source) / scale "
		  "(V, VI-B)" },
	{ .name = "bw_source", .type = MPT_PARAM_ENUM,
	  .offset = offsetof(struct olms, bw_source), .min = 0, .max = 1,
	  .def = OLMS_BW_CWND, .enum_names = olms_bw_sources,
	  .help = "bandwidth measurement b: cwnd = cwnd/srtt as in V (the rate under the "
		  "paper's loss-based CC, cwnd ~ BDP; 2 x the rate under BBR, fine for "
		  "maxrtt, which uses only the order of b), btlbw = the CC's bottleneck "
		  "estimate, cwnd/srtt if it has none (use for bwcap, which compares b "
		  "with C_b)" },
	{ .name = "decision_cycle", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct olms, cycle), .min = 1, .max = 10000, .def = 1,
	  .help = "packets sharing one sampled LP solution (cyclic LP solving, VI-E2)" },
	{ .name = "choice", .type = MPT_PARAM_ENUM, .offset = offsetof(struct olms, choice),
	  .min = 0, .max = 1, .def = OLMS_HIGHEST, .enum_names = olms_choices,
	  .help = "path taken from the rounded set: highest v (III-B) or uniformly "
		  "random (V, VI-B)" },
	{ .name = "overflow", .type = MPT_PARAM_ENUM, .offset = offsetof(struct olms, overflow),
	  .min = 0, .max = 1, .def = OLMS_OVERFLOW_IN_TIME, .enum_names = olms_overflows,
	  .help = "no path of the rounded set has room: the in-time paths with room take "
		  "the packet (ours: K = 2 gives a set of one path) or it waits for the set "
		  "(hold, III-B)" },
	{ .name = "monitor", .type = MPT_PARAM_BOOL, .offset = offsetof(struct olms, monitor),
	  .min = 0, .max = 1, .def = 1,
	  .help = "run the measurement monitor that resets shifted statistics "
		  "(Algorithm 2, III-C; 'OLMS with PM', VI-D3)" },
	{ .name = "monitor_q", .type = MPT_PARAM_U32, .offset = offsetof(struct olms, mon_q),
	  .min = 1, .max = 1000000, .def = 20,
	  .help = "monitor: measurements before it judges, q (Algorithm 2; q = 20, VI-D3)" },
	{ .name = "monitor_delta", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct olms, mon_delta), .min = 0.1, .max = 100, .def = 3,
	  .help = "monitor: deviation threshold in posterior sigmas, delta (Algorithm 2; "
		  "delta = 3, VI-D3)" },
	{ .name = "monitor_h", .type = MPT_PARAM_U32, .offset = offsetof(struct olms, mon_h),
	  .min = 0, .max = 100000, .def = 3,
	  .help = "monitor: reset after more than h consecutive deviations (Algorithm 2; "
		  "h = 3, VI-D3)" },
};

static bool olms_in_order(const void *priv)
{
	const struct olms *c = priv;

	return c->arrival;
}

static const struct mpt_stat olms_stats[] = {
	{ .name = "bw_mean", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct olms, bw_mean),
	  .help = "posterior mean of the normalised bandwidth, (S+1)/(N+2)" },
	{ .name = "rtt_mean", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct olms, rtt_mean),
	  .help = "posterior mean of the normalised RTT, (S+1)/(N+2)" },
	{ .name = "v", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE, .per_path = true,
	  .offset = offsetof(struct olms, v),
	  .help = "current path scheduling vector v_t (0 while infeasible)" },
	{ .name = "in_set", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER, .per_path = true,
	  .offset = offsetof(struct olms, in_set),
	  .help = "decisions whose rounded set held the path" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER, .per_path = true,
	  .offset = offsetof(struct olms, picks), .help = "packets scheduled on the path" },
	{ .name = "decisions", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, decisions), .help = "packets scheduled" },
	{ .name = "lp_solves", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, lp_solves),
	  .help = "Thompson samples + LP solutions" },
	{ .name = "violations", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, violations),
	  .help = "packets sent while the picked path's measured srtt (maxrtt) or "
		  "bandwidth (bwcap, see bw_source), normalised, exceeded the threshold: "
		  "G(p_t) > 0 of eq. 7, 11 on the measurement at send time, not on the "
		  "true mean of eq. 3" },
	{ .name = "violation_sum", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, violation_sum),
	  .help = "sum of those measured G(p_t)+, normalised units (eq. 3 on measurements)" },
	{ .name = "infeasible", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, infeasible),
	  .help = "decisions that fell back to minRTT: LP infeasible (III-B)" },
	{ .name = "monitor_resets", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, resets),
	  .help = "statistics reinitialised by the monitor (Algorithm 2)" },
	{ .name = "overflows", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, overflows),
	  .help = "decisions whose set was full, given to another in-time path (overflow, "
		  "or a member still opening its window)" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct olms, holds),
	  .help = "packets held: no path of the set had room" },
};

const struct mpt_sched_ops mpt_sched_olms = {
	.name = "olms",
	.summary = "online learning: Thompson sampling + constrained LP (Cai et al., OLMS)",
	.pick = olms_pick,
	.in_order = olms_in_order,
	.init = olms_init,
	.on_ack = olms_on_ack,
	.params_changed = olms_params_changed,
	.priv_size = sizeof(struct olms),
	.params = olms_params,
	.nparams = MPT_ARRAY_SIZE(olms_params),
	.stats = olms_stats,
	.nstats = MPT_ARRAY_SIZE(olms_stats),
};
