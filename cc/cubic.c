// SPDX-License-Identifier: MIT
/*
 * cubic — CUBIC after RFC 9438 (cited "RFC 9438 x.y"), slow start with HyStart++ after
 * RFC 9406, pacing as Linux paces loss-based flows (tcp_update_pacing_rate).
 *
 * Windows in the RFC's formulas are in segments (mss bytes), time in seconds:
 *   W_cubic(t) = C (t - K)^3 + W_max                      (RFC 9438 4.2, eq. 1)
 *   K = cbrt((W_max - cwnd_epoch) / C)                     (eq. 2)
 *   target = clamp(W_cubic(t + srtt), cwnd, 1.5 cwnd); cwnd += (target - cwnd) / cwnd
 *     per acked segment (4.2, 4.4 concave below W_max, 4.5 convex above)
 *   W_est = cwnd_epoch + alpha_cubic x segments acked / cwnd, alpha_cubic =
 *     3 (1 - beta) / (1 + beta), 1 once W_est >= cwnd_prior; cwnd = W_est while
 *     W_cubic(t) < W_est (Reno-friendly region, 4.3)
 * t counts from the start of the congestion-avoidance epoch, less the time the path
 * was application-limited (cwnd does not grow then, RFC 9438 5.8 / RFC 7661).
 *
 *   init --> slow start --(HyStart++ delay increase)--> CSS --(css_rounds)--+
 *              |   ^ (RTT fell back: spurious CSS)       |                 |
 *              |   +-------------------------------------+                 v
 *              +--(loss)--> recovery --(ACK of a packet sent after)--> avoidance
 *                              ^                                          |
 *                              +----------------- (loss) -----------------+
 *
 * Congestion event (4.6, 4.7): once per round trip. The first loss reported outside
 * recovery sets W_max (fast convergence: (1 + beta) / 2 x cwnd when cwnd < the
 * previous W_max), cwnd = ssthresh = beta x cwnd (at least min_cwnd_pkts) and starts
 * recovery; later losses are ignored until a packet sent after the event is
 * acknowledged, recognised by its delivered mark (rs->prior_delivered > delivered at
 * the event) since on_loss does not say which packets were lost. cwnd does not grow
 * during recovery (RFC 9002 7.3.2); the new epoch starts when it ends.
 *
 * Pacing (Linux tcp_update_pacing_rate): max(cwnd, in flight) / srtt x ss_ratio while
 * cwnd < ssthresh / 2, x ca_ratio otherwise; unpaced before the first RTT sample.
 * Scheduler view: btlbw = windowed max of the delivery-rate samples over btlbw_rounds
 * round trips (app-limited samples only when they raise it, as BBR's filter), so that
 * wrr's bandwidth weights and the other schedulers see a rate; min_rtt = the path's.
 *
 * Not implemented: RFC 9438 4.8 (timeouts: the tunnel's PTO does not reach the
 * controller), 4.9 (spurious-loss undo: the tunnel never learns a loss was spurious),
 * ECN.
 */
#include <math.h>

#include <mptund/cc.h>

#include "cc_modules.h"
#include "filter.h"

enum cubic_region {
	REGION_SLOW_START = 0,
	REGION_RENO,		/* RFC 9438 4.3 */
	REGION_CONCAVE,		/* 4.4 */
	REGION_CONVEX,		/* 4.5 */
	REGION_RECOVERY,
};

struct cubic {
	/* tunables */
	double c;
	double beta;
	double ss_ratio;
	double ca_ratio;
	uint32_t init_cwnd_pkts;
	uint32_t min_cwnd_pkts;
	uint32_t btlbw_rounds;
	uint32_t hs_min_rtt_thresh_us;
	uint32_t hs_max_rtt_thresh_us;
	uint32_t hs_min_rtt_divisor;
	uint32_t hs_n_rtt_sample;
	uint32_t hs_css_growth_divisor;
	uint32_t hs_css_rounds;
	uint32_t hs_l_pkts;
	bool fast_convergence;
	bool reno_friendly;
	bool hystart;

	/* state: windows in segments unless named _bytes */
	double cwnd_bytes;		/* exact window; cc->cwnd is its integer part */
	double w_max;			/* stat */
	double k;			/* stat: seconds */
	double cwnd_epoch;		/* stat */
	double cwnd_prior;
	double w_est;			/* stat */
	uint64_t ssthresh_bytes;	/* stat: 0 = infinite (no congestion event yet) */
	uint64_t epoch_start_ns;	/* stat: 0 = no epoch */
	uint64_t last_ack_ns;
	uint64_t recovery_mark;		/* path delivered at the congestion event */
	uint64_t next_round_delivered;
	uint64_t round_count;		/* stat */
	uint64_t congestion_events;	/* stat */
	uint64_t reno_acks, cubic_acks;	/* stats: CA ACKs by region */
	uint64_t hystart_exits;		/* stat: slow start left for CSS */
	/* HyStart++ (RFC 9406 4.2) */
	uint64_t last_round_min_rtt, cur_round_min_rtt;	/* ns, UINT64_MAX = none */
	uint64_t css_baseline_min_rtt;
	uint32_t rtt_sample_count;
	uint32_t css_rounds_done;
	struct mpt_minmax bw;		/* bytes/s, time = round count */
	uint32_t mode;			/* stat: enum mpt_cc_state */
	uint32_t region;		/* stat: enum cubic_region */
	uint32_t mss;
	bool in_css;
	bool alpha_is_one;
	bool round_start;
	bool bw_proven;			/* a sample that was not app-limited was taken */
};
_Static_assert(sizeof(struct cubic) <= MPT_CC_PRIV_SIZE, "cubic state too large");

static struct cubic *cubic_of(struct mpt_cc *cc)
{
	return (struct cubic *)cc->priv;
}

static double min_cwnd_bytes(const struct cubic *c)
{
	return (double)c->min_cwnd_pkts * c->mss;
}

static bool in_slow_start(const struct cubic *c)
{
	return !c->ssthresh_bytes || c->cwnd_bytes < (double)c->ssthresh_bytes;
}

/* RFC 9438 4.2 eq. 1, segments; t in seconds */
static double w_cubic(const struct cubic *c, double t)
{
	double d = t - c->k;

	return c->c * d * d * d + c->w_max;
}

/* 4.3 eq. 4 */
static double alpha_cubic(const struct cubic *c)
{
	return 3.0 * (1.0 - c->beta) / (1.0 + c->beta);
}

/* K from eq. 2; 0 when the epoch starts at or above W_max */
static void cubic_update_k(struct cubic *c)
{
	c->k = c->cwnd_epoch < c->w_max ? cbrt((c->w_max - c->cwnd_epoch) / c->c) : 0;
}

/* Start a congestion-avoidance epoch at now with the current window (4.2, 4.3). */
static void cubic_begin_epoch(struct cubic *c, uint64_t now)
{
	c->epoch_start_ns = now ? now : 1;
	c->cwnd_epoch = c->cwnd_bytes / c->mss;
	c->w_est = c->cwnd_epoch;
	c->alpha_is_one = false;
	cubic_update_k(c);
}

/* Leave slow start without a loss (HyStart++ CSS done): W_max = cwnd, K = 0
 * (RFC 9438 4.10, RFC 9406 4.2). */
static void cubic_enter_ca_from_ss(struct cubic *c, uint64_t now)
{
	c->ssthresh_bytes = (uint64_t)c->cwnd_bytes;
	if (!c->ssthresh_bytes)
		c->ssthresh_bytes = 1;
	c->cwnd_prior = c->w_max = c->cwnd_bytes / c->mss;
	c->in_css = false;
	cubic_begin_epoch(c, now);
	c->mode = MPT_CC_AVOIDANCE;
}

static void hystart_reset_round(struct cubic *c)
{
	c->last_round_min_rtt = c->cur_round_min_rtt;
	c->cur_round_min_rtt = UINT64_MAX;
	c->rtt_sample_count = 0;
}

/* RFC 9406 4.2: per-round delay-increase detection and Conservative Slow Start. */
static void hystart_on_ack(struct cubic *c,
			   const struct mpt_rate_sample *rs, uint64_t now)
{
	if (c->round_start) {
		hystart_reset_round(c);
		if (c->in_css && ++c->css_rounds_done >= c->hs_css_rounds) {
			cubic_enter_ca_from_ss(c, now);
			return;
		}
	}
	if (rs->rtt_ns) {
		c->cur_round_min_rtt = MPT_MIN(c->cur_round_min_rtt, rs->rtt_ns);
		c->rtt_sample_count++;
	}
	if (c->rtt_sample_count < c->hs_n_rtt_sample || c->cur_round_min_rtt == UINT64_MAX)
		return;
	if (!c->in_css) {
		uint64_t lo = (uint64_t)c->hs_min_rtt_thresh_us * MPT_NSEC_PER_USEC;
		uint64_t hi = (uint64_t)c->hs_max_rtt_thresh_us * MPT_NSEC_PER_USEC;
		uint64_t thresh;

		if (c->last_round_min_rtt == UINT64_MAX)
			return;
		thresh = MPT_MAX(lo, MPT_MIN(c->last_round_min_rtt / c->hs_min_rtt_divisor, hi));
		if (c->cur_round_min_rtt >= c->last_round_min_rtt + thresh) {
			c->css_baseline_min_rtt = c->cur_round_min_rtt;
			c->in_css = true;
			c->css_rounds_done = 0;
			c->hystart_exits++;
		}
	} else if (c->cur_round_min_rtt < c->css_baseline_min_rtt) {
		/* the increase was spurious: back to slow start */
		c->css_baseline_min_rtt = UINT64_MAX;
		c->in_css = false;
	}
}

static void cubic_slow_start(struct cubic *c,
			     const struct mpt_rate_sample *rs, uint64_t now)
{
	double inc = (double)rs->acked_bytes;

	if (c->hystart) {
		hystart_on_ack(c, rs, now);
		if (c->mode == MPT_CC_AVOIDANCE)
			return;
	}
	if (c->hs_l_pkts)
		inc = MPT_MIN(inc, (double)c->hs_l_pkts * c->mss);
	if (c->in_css)
		inc /= c->hs_css_growth_divisor;
	c->cwnd_bytes += inc;
	/* reached ssthresh (RFC 5681 3.1): as after a timeout, W_max = cwnd, K = 0
	 * (RFC 9438 4.8) */
	if (c->ssthresh_bytes && c->cwnd_bytes >= (double)c->ssthresh_bytes)
		cubic_enter_ca_from_ss(c, now);
}

/* RFC 9438 4.2 - 4.5 */
static void cubic_avoidance(struct cubic *c, const struct mpt_cc_path *p,
			    const struct mpt_rate_sample *rs, uint64_t now)
{
	double segs = (double)rs->acked_bytes / c->mss;
	double w = c->cwnd_bytes / c->mss;
	double t, rtt, target;

	if (!c->epoch_start_ns)
		cubic_begin_epoch(c, now);
	t = (double)(now - c->epoch_start_ns) / 1e9;
	rtt = (double)(p->srtt_ns ? p->srtt_ns : p->min_rtt_ns) / 1e9;

	/* 4.3: the Reno estimate, alpha_cubic until it passes cwnd_prior, then 1 */
	if (!c->alpha_is_one && c->w_est >= c->cwnd_prior)
		c->alpha_is_one = true;
	c->w_est += (c->alpha_is_one ? 1.0 : alpha_cubic(c)) * segs / w;
	if (c->reno_friendly && w_cubic(c, t) < c->w_est) {
		c->region = REGION_RENO;
		c->reno_acks++;
		w = MPT_MAX(w, c->w_est);
	} else {
		c->region = w < c->w_max ? REGION_CONCAVE : REGION_CONVEX;
		c->cubic_acks++;
		target = w_cubic(c, t + rtt);
		target = MPT_MAX(target, w);
		target = MPT_MIN(target, 1.5 * w);
		w += (target - w) / w * segs;
	}
	c->cwnd_bytes = w * c->mss;
}

/* Linux tcp_update_pacing_rate (net/ipv4/tcp_input.c) */
static void cubic_set_pacing(struct mpt_cc *cc, const struct cubic *c,
			     const struct mpt_cc_path *p)
{
	double ratio, win;

	if (!p->srtt_ns) {
		cc->pacing_rate = 0;
		return;
	}
	ratio = c->ssthresh_bytes && c->cwnd_bytes >= (double)c->ssthresh_bytes / 2 ?
		c->ca_ratio : c->ss_ratio;
	win = MPT_MAX(c->cwnd_bytes, (double)p->in_flight);
	cc->pacing_rate = (uint64_t)(ratio * win * 1e9 / (double)p->srtt_ns);
}

static void cubic_publish(struct mpt_cc *cc, struct cubic *c, const struct mpt_cc_path *p)
{
	if (c->cwnd_bytes < min_cwnd_bytes(c))
		c->cwnd_bytes = min_cwnd_bytes(c);
	cc->cwnd = (uint64_t)c->cwnd_bytes;
	cubic_set_pacing(cc, c, p);
	cc->btlbw = c->bw_proven ? mpt_minmax_get(&c->bw) : 0;	/* cc.h: proven */
	cc->min_rtt_ns = p->min_rtt_ns;
	cc->state = (uint8_t)c->mode;
}

/* Round trips by delivered bytes (as BBR, draft-cheng delivery-rate estimation), and
 * the delivery-rate max filter behind btlbw. */
static void cubic_update_round_and_bw(struct cubic *c, const struct mpt_cc_path *p,
				      const struct mpt_rate_sample *rs)
{
	uint64_t bw;

	c->round_start = false;
	if (!rs->acked_bytes)
		return;
	if (rs->prior_delivered >= c->next_round_delivered) {
		c->next_round_delivered = p->delivered;
		c->round_count++;
		c->round_start = true;
	}
	if (!rs->interval_ns)
		return;
	bw = (uint64_t)((double)rs->delivered * 1e9 / (double)rs->interval_ns);
	if (!rs->is_app_limited || bw >= mpt_minmax_get(&c->bw))
		mpt_minmax_running_max(&c->bw, c->btlbw_rounds, c->round_count, bw);
	if (!rs->is_app_limited)
		c->bw_proven = true;
}

static void cubic_on_ack(struct mpt_cc *cc, const struct mpt_cc_path *p,
			 const struct mpt_rate_sample *rs, uint64_t now)
{
	struct cubic *c = cubic_of(cc);
	uint64_t last = c->last_ack_ns;

	if (p->mss)
		c->mss = p->mss;
	cubic_update_round_and_bw(c, p, rs);
	c->last_ack_ns = now;
	if (c->mode == MPT_CC_RECOVERY) {
		if (rs->prior_delivered <= c->recovery_mark)
			goto out;
		/* a packet sent after the congestion event arrived: new epoch */
		c->mode = MPT_CC_AVOIDANCE;
		cubic_begin_epoch(c, now);
	}
	if (!rs->acked_bytes)
		goto out;
	if (rs->is_app_limited) {
		/* no growth while app-limited; the epoch clock stops (RFC 9438 5.8) */
		if (c->epoch_start_ns && last && c->mode == MPT_CC_AVOIDANCE)
			c->epoch_start_ns += now - last;
		goto out;
	}
	if (c->mode == MPT_CC_SLOW_START && in_slow_start(c)) {
		c->region = REGION_SLOW_START;
		cubic_slow_start(c, rs, now);
	} else {
		c->mode = MPT_CC_AVOIDANCE;
		cubic_avoidance(c, p, rs, now);
	}
out:
	cubic_publish(cc, c, p);
}

/* RFC 9438 4.6 multiplicative decrease, 4.7 fast convergence */
static void cubic_on_loss(struct mpt_cc *cc, const struct mpt_cc_path *p,
			  uint64_t lost_bytes, uint64_t now)
{
	struct cubic *c = cubic_of(cc);
	double w;

	if (!lost_bytes || c->mode == MPT_CC_RECOVERY)
		return;
	if (p->mss)
		c->mss = p->mss;
	c->congestion_events++;
	w = (double)cc->cwnd / c->mss;
	if (c->fast_convergence && w < c->w_max)
		c->w_max = w * (1.0 + c->beta) / 2.0;
	else
		c->w_max = w;
	c->cwnd_prior = w;
	c->cwnd_bytes = MPT_MAX(c->beta * (double)cc->cwnd, min_cwnd_bytes(c));
	c->ssthresh_bytes = (uint64_t)c->cwnd_bytes;
	c->in_css = false;
	c->epoch_start_ns = 0;
	c->recovery_mark = p->delivered;
	c->mode = MPT_CC_RECOVERY;
	c->region = REGION_RECOVERY;
	cubic_publish(cc, c, p);
}

static void cubic_reset_state(struct mpt_cc *cc, struct cubic *c,
			      const struct mpt_cc_path *p, uint64_t now)
{
	if (p->mss)
		c->mss = p->mss;
	if (!c->mss)
		c->mss = 1200;
	c->cwnd_bytes = (double)c->init_cwnd_pkts * c->mss;
	c->ssthresh_bytes = 0;
	c->w_max = c->k = c->cwnd_epoch = c->cwnd_prior = c->w_est = 0;
	c->epoch_start_ns = 0;
	c->last_ack_ns = 0;
	c->next_round_delivered = p->delivered;
	c->last_round_min_rtt = c->cur_round_min_rtt = UINT64_MAX;
	c->css_baseline_min_rtt = UINT64_MAX;
	c->rtt_sample_count = 0;
	c->css_rounds_done = 0;
	c->in_css = false;
	c->alpha_is_one = false;
	mpt_minmax_reset(&c->bw, c->round_count, 0);
	c->bw_proven = false;
	c->mode = MPT_CC_SLOW_START;
	c->region = REGION_SLOW_START;
	cubic_publish(cc, c, p);
}

static void cubic_init(struct mpt_cc *cc, const struct mpt_cc_path *p,
		       struct mpt_rng *rng, uint64_t now)
{
	cubic_reset_state(cc, cubic_of(cc), p, now);
}

static void cubic_on_path_reset(struct mpt_cc *cc, const struct mpt_cc_path *p,
				uint64_t now)
{
	cubic_reset_state(cc, cubic_of(cc), p, now);
}

static void cubic_params_changed(struct mpt_cc *cc)
{
	struct cubic *c = cubic_of(cc);

	if (c->epoch_start_ns)
		cubic_update_k(c);
	if (c->cwnd_bytes < min_cwnd_bytes(c))
		c->cwnd_bytes = min_cwnd_bytes(c);
	cc->cwnd = (uint64_t)c->cwnd_bytes;
}

#define P_D(n, f, lo, hi, d, h) { .name = n, .type = MPT_PARAM_DOUBLE, \
	.offset = offsetof(struct cubic, f), .min = lo, .max = hi, .def = d, .help = h }
#define P_U(n, f, lo, hi, d, h) { .name = n, .type = MPT_PARAM_U32, \
	.offset = offsetof(struct cubic, f), .min = lo, .max = hi, .def = d, .help = h }
#define P_B(n, f, d, h) { .name = n, .type = MPT_PARAM_BOOL, \
	.offset = offsetof(struct cubic, f), .min = 0, .max = 1, .def = d, .help = h }

static const struct mpt_param cubic_params[] = {
	P_D("c", c, 0.01, 10, 0.4,
	    "cubic growth constant C, segments/s^3 (RFC 9438 4.1.1, 5.1)"),
	P_D("beta", beta, 0.5, 0.95, 0.7,
	    "multiplicative decrease factor beta_cubic (RFC 9438 4.6)"),
	P_D("ss_ratio", ss_ratio, 1, 10, 2,
	    "pacing rate / (cwnd / srtt) in slow start (Linux tcp_update_pacing_rate, "
	    "sysctl tcp_pacing_ss_ratio 200%)"),
	P_D("ca_ratio", ca_ratio, 1, 10, 1.2,
	    "pacing rate / (cwnd / srtt) in avoidance (Linux tcp_update_pacing_rate, "
	    "sysctl tcp_pacing_ca_ratio 120%)"),
	P_U("init_cwnd_pkts", init_cwnd_pkts, 2, 1000, 10,
	    "initial cwnd, packets (RFC 9438 4.10 via RFC 5681; RFC 6928 IW10)"),
	P_U("min_cwnd_pkts", min_cwnd_pkts, 1, 64, 2,
	    "minimum cwnd after a decrease, packets (RFC 9438 4.6: max(ssthresh, 2))"),
	P_U("btlbw_rounds", btlbw_rounds, 2, 100, 10,
	    "delivery-rate max filter behind btlbw, round trips (as BBR draft 4.1.1.5)"),
	P_U("hs_min_rtt_thresh_us", hs_min_rtt_thresh_us, 0, 1000000, 4000,
	    "HyStart++ MIN_RTT_THRESH, us (RFC 9406 4.3)"),
	P_U("hs_max_rtt_thresh_us", hs_max_rtt_thresh_us, 0, 1000000, 16000,
	    "HyStart++ MAX_RTT_THRESH, us (RFC 9406 4.3)"),
	P_U("hs_min_rtt_divisor", hs_min_rtt_divisor, 1, 1000, 8,
	    "HyStart++ MIN_RTT_DIVISOR (RFC 9406 4.3)"),
	P_U("hs_n_rtt_sample", hs_n_rtt_sample, 1, 1000, 8,
	    "HyStart++ N_RTT_SAMPLE, RTT samples per round (RFC 9406 4.3)"),
	P_U("hs_css_growth_divisor", hs_css_growth_divisor, 1, 100, 4,
	    "HyStart++ CSS_GROWTH_DIVISOR (RFC 9406 4.3)"),
	P_U("hs_css_rounds", hs_css_rounds, 1, 100, 5,
	    "HyStart++ CSS_ROUNDS (RFC 9406 4.3)"),
	P_U("hs_l_pkts", hs_l_pkts, 0, 1000, 0,
	    "slow-start growth limit L per ACK, packets; 0 = infinity, as paced "
	    "(RFC 9406 4.3)"),
	P_B("fast_convergence", fast_convergence, 1,
	    "release bandwidth faster to new flows (RFC 9438 4.7)"),
	P_B("reno_friendly", reno_friendly, 1,
	    "grow at least as fast as AIMD(alpha_cubic, beta) (RFC 9438 4.3)"),
	P_B("hystart", hystart, 1,
	    "leave slow start on RTT increase via Conservative Slow Start (RFC 9406, "
	    "RFC 9438 4.10)"),
};

#define S(n, t, k, f, h) { .name = n, .type = t, .kind = k, \
	.offset = offsetof(struct cubic, f), .help = h }

static const struct mpt_stat cubic_stats[] = {
	S("state", MPT_STAT_U32, MPT_STAT_GAUGE, mode, "enum mpt_cc_state"),
	S("region", MPT_STAT_U32, MPT_STAT_GAUGE, region,
	  "0 slow start, 1 Reno-friendly, 2 concave, 3 convex, 4 recovery"),
	S("w_max", MPT_STAT_DOUBLE, MPT_STAT_GAUGE, w_max, "W_max, segments"),
	S("k", MPT_STAT_DOUBLE, MPT_STAT_GAUGE, k, "K, seconds"),
	S("cwnd_epoch", MPT_STAT_DOUBLE, MPT_STAT_GAUGE, cwnd_epoch,
	  "cwnd at the epoch start, segments"),
	S("w_est", MPT_STAT_DOUBLE, MPT_STAT_GAUGE, w_est, "Reno estimate W_est, segments"),
	S("ssthresh", MPT_STAT_U64, MPT_STAT_GAUGE, ssthresh_bytes,
	  "slow-start threshold, bytes; 0 before the first congestion event"),
	S("epoch_start_ns", MPT_STAT_U64, MPT_STAT_GAUGE, epoch_start_ns,
	  "start of the avoidance epoch, ns (shifted past app-limited time); 0 none"),
	S("round_count", MPT_STAT_U64, MPT_STAT_COUNTER, round_count, "round trips"),
	S("congestion_events", MPT_STAT_U64, MPT_STAT_COUNTER, congestion_events,
	  "multiplicative decreases"),
	S("reno_acks", MPT_STAT_U64, MPT_STAT_COUNTER, reno_acks,
	  "avoidance ACKs in the Reno-friendly region"),
	S("cubic_acks", MPT_STAT_U64, MPT_STAT_COUNTER, cubic_acks,
	  "avoidance ACKs in the concave or convex region"),
	S("hystart_exits", MPT_STAT_U64, MPT_STAT_COUNTER, hystart_exits,
	  "HyStart++ delay increases (slow start to CSS)"),
};

const struct mpt_cc_ops mpt_cc_cubic = {
	.name = "cubic",
	.summary = "CUBIC (RFC 9438) with HyStart++ (RFC 9406), paced",
	.on_ack = cubic_on_ack,
	.init = cubic_init,
	.on_loss = cubic_on_loss,
	.on_path_reset = cubic_on_path_reset,
	.params_changed = cubic_params_changed,
	.priv_size = sizeof(struct cubic),
	.params = cubic_params,
	.nparams = MPT_ARRAY_SIZE(cubic_params),
	.stats = cubic_stats,
	.nstats = MPT_ARRAY_SIZE(cubic_stats),
};
