// SPDX-License-Identifier: MIT
/*
 * acpf — Adaptive Cheapest Path First (Pieska et al., ACPF paper, sections 3.2 and 4).
 *
 * CPF (sched/cpf.c) where each path's usable window is its live cwnd,
 *     live_p = ceil(cw_frac x cwnd_p)   (bytes; raw cwnd_p from the path's BBR),
 * and cw_frac is managed from the scheduler queue length q (packets, head included)
 * by Figure 2b:
 *     if q > QUEUE_SIZE_THRESHOLD:  cw_frac = MIN(cw_frac + inc_up,   MAX_FRAC)
 *     else:                         cw_frac = MAX(cw_frac - inc_down, MIN_FRAC)
 * user mode (sec. 4.2, Fig. 2c), one management step every tick_ns (1 ms):
 *     inc_up   = RAW_INC / C2 * MIN(q / QUEUE_SIZE_THRESHOLD, ++CONSEC / C1)^2
 *     inc_down = RAW_INC / C2, and CONSEC = 0
 * kernel mode (sec. 4.1, eq. 2), one step per packet scheduled onto path p:
 *     inc_up = inc_down = RAW_INC / CWND_p   (CWND_p in packets of the path MTU)
 * Management pauses while a path's BBR is in ProbeRTT (sec. 4.1): the queue that
 * builds while a path drains says nothing about the fraction being too small.
 *
 * One fraction, shared. Section 4 says each path has its own fraction "which is kept
 * synchronized": every path is managed by the same rule from the same queue at the
 * same instants, so the per-path values never differ. We store that value once and
 * mirror it into the per-path stat cw_frac[p]. Consequences: the user-mode step is
 * applied once per tick (not once per path, which would halve the 530 ms min-to-max
 * time of sec. 4.2 with two paths); in kernel mode the step size uses the cwnd of
 * the path the packet went to (eq. 2's CWND_p); and the ProbeRTT pause stops the
 * shared management while any up path is in ProbeRTT, since a per-path freeze would
 * break the synchronization.
 *
 * Initial fraction: the paper does not state it. We start at MIN_FRAC (tunable
 * "initial"): section 3.2 aims at "an initial shallow occupancy of the primary path
 * buffer", section 6 at "limiting initial usage of the cheapest path to 1 BDP" (with
 * BBR's cwnd of 2 BDP, MIN_FRAC 0.47 is about 1 BDP), and an idle session decays to
 * MIN_FRAC by Figure 2b anyway, so starting at MAX_FRAC would only let the first burst
 * fill the primary buffer — the CPF problem of Figure 1b.
 *
 * Missed ticks: the core may call tick late or skip idle periods. Every elapsed
 * tick_ns step is replayed from ctx->now; the steps before the latest one are idle
 * steps (queue 0, i.e. decreases — the core only skips ticks while idle), the latest
 * one sees ctx->queue_pkts. The replay is bounded: idle steps are constant
 * decreases, so past ACPF_MAX_REPLAY of them the rest is applied in closed form.
 */
#include <math.h>

#include <mptund/sched.h>

#include "cpf_select.h"
#include "sched_modules.h"

/* Idle steps replayed one by one; 65 s at 1 ms, far past MAX-MIN at the defaults. */
#define ACPF_MAX_REPLAY	65536u

enum acpf_mode { ACPF_USER, ACPF_KERNEL };
enum acpf_initial { ACPF_INIT_MIN, ACPF_INIT_MAX };

struct acpf {
	/* tunables */
	uint32_t queue_threshold;	/* QUEUE_SIZE_THRESHOLD, packets */
	double raw_inc;			/* RAW_INC */
	double min_frac;		/* MIN_FRAC */
	double max_frac;		/* MAX_FRAC */
	uint32_t c1;			/* C1 */
	uint32_t c2;			/* C2 */
	uint32_t tick_ns;		/* user-mode management period */
	uint32_t mode;			/* enum acpf_mode */
	uint32_t initial;		/* enum acpf_initial */
	bool probe_rtt_pause;
	bool arrival;			/* arrival-aware spill-over (cpf_select.h) */
	uint32_t min_live_pkts;		/* floor of the live window, packets */
	bool startup_max;		/* a path in BBR Startup: MAX_FRAC */

	/* state */
	double frac;			/* the synchronized cw_frac */
	uint64_t last_step;		/* time of the latest user-mode step */
	uint32_t consec;		/* CONSECUTIVE_INCREASE (stat) */
	uint32_t queue_seen;		/* queue length at the latest step (stat) */
	int32_t last_dir;		/* +1 increase, -1 decrease, 0 none/paused (stat) */
	double cw_frac[MPT_MAX_PATHS];	/* frac mirrored per path (stat) */
	uint64_t live_cwnd[MPT_MAX_PATHS]; /* bytes (stat) */
	uint64_t picks[MPT_MAX_PATHS];	/* (stat) */
	uint64_t holds;			/* (stat) */
	uint64_t steps;			/* management steps run (stat) */
	uint64_t paused_steps;		/* steps skipped for ProbeRTT (stat) */
};
_Static_assert(sizeof(struct acpf) <= MPT_SCHED_PRIV_SIZE, "acpf state too large");

static double clamp_frac(const struct acpf *a, double f)
{
	return fmax(fmin(f, a->max_frac), fmin(a->min_frac, a->max_frac));
}

static void set_frac(struct acpf *a, double f)
{
	a->frac = clamp_frac(a, f);
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		a->cw_frac[i] = a->frac;
}

static bool acpf_paused(const struct acpf *a, const struct mpt_sched_ctx *ctx)
{
	if (!a->probe_rtt_pause)
		return false;
	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up && ctx->paths[i].cc_state == MPT_CC_PROBE_RTT)
			return true;
	return false;
}

/* Figure 2c: get_increase_inc / get_decrease_inc of the user-space variant. Both
 * quotients (qsf, cif) are real: the pseudo-code's integer operands would give no
 * increase for the first C1 - 1 steps and only whole-number ratios after, against sec.
 * 4.2's smooth "MIN_FRAC to MAX_FRAC in 530 ms" (test_acpf: divisions are real). */
static double user_increase_inc(struct acpf *a, uint32_t queue)
{
	double qsf = (double)queue / a->queue_threshold;
	double cif;

	if (a->consec < UINT32_MAX)
		a->consec++;
	cif = (double)a->consec / a->c1;
	return a->raw_inc / a->c2 * pow(fmin(qsf, cif), 2);
}

static double user_decrease_inc(struct acpf *a)
{
	a->consec = 0;
	return a->raw_inc / a->c2;
}

/* Figure 2b, manage_cwnd_frac. cwnd_pkts is CWND_p (kernel mode only). */
static void manage_cwnd_frac(struct acpf *a, uint32_t queue, double cwnd_pkts)
{
	double inc;

	a->queue_seen = queue;
	a->steps++;
	if (queue > a->queue_threshold) {
		inc = a->mode == ACPF_KERNEL ? a->raw_inc / cwnd_pkts
					     : user_increase_inc(a, queue);
		set_frac(a, fmin(a->frac + inc, a->max_frac));
		a->last_dir = 1;
	} else {
		inc = a->mode == ACPF_KERNEL ? a->raw_inc / cwnd_pkts
					     : user_decrease_inc(a);
		set_frac(a, fmax(a->frac - inc, a->min_frac));
		a->last_dir = -1;
	}
}

static void paused_step(struct acpf *a, uint32_t queue)
{
	a->queue_seen = queue;
	a->last_dir = 0;
	a->paused_steps++;
}

/* Replay the user-mode steps due by ctx->now (see the top comment). */
static void acpf_catch_up(struct acpf *a, const struct mpt_sched_ctx *ctx)
{
	uint64_t k, idle, looped;
	bool paused;

	if (a->mode != ACPF_USER || ctx->now < a->last_step + a->tick_ns)
		return;
	k = (ctx->now - a->last_step) / a->tick_ns;
	a->last_step += k * a->tick_ns;
	paused = acpf_paused(a, ctx);
	idle = k - 1;
	if (paused) {
		a->paused_steps += idle;
	} else {
		/* step by step (bit-exact with timely ticks) for up to ACPF_MAX_REPLAY
		 * steps, then the closed form of the remaining constant decreases */
		looped = MPT_MIN(idle, ACPF_MAX_REPLAY);
		for (uint64_t i = 0; i < looped; i++)
			manage_cwnd_frac(a, 0, 0);
		if (idle > looped) {
			set_frac(a, fmax(a->frac - (double)(idle - looped) *
					 user_decrease_inc(a), a->min_frac));
			a->steps += idle - looped;
		}
	}
	if (paused)
		paused_step(a, ctx->queue_pkts);
	else
		manage_cwnd_frac(a, ctx->queue_pkts, 0);
}

static void update_live(struct acpf *a, const struct mpt_sched_ctx *ctx, uint64_t *window)
{
	for (unsigned i = 0; i < ctx->npaths; i++) {
		const struct mpt_path_view *v = &ctx->paths[i];
		bool startup = a->startup_max && v->cc_state == MPT_CC_STARTUP;
		double w = (startup ? a->max_frac : a->frac) * (double)v->cwnd;
		uint64_t floor = MPT_MIN(v->cwnd, (uint64_t)a->min_live_pkts *
					 (v->mtu ? v->mtu : 1200u));

		/* ceil, but 0.47 x 150000 = 70500.00000000001 must give 70500 */
		window[i] = (uint64_t)w;
		if (w - (double)window[i] > 1e-6)
			window[i]++;
		/* ours: a small-BDP path is not throttled below a few packets */
		window[i] = MPT_MAX(window[i], floor);
		a->live_cwnd[i] = window[i];
	}
}

static void acpf_init(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct acpf *a = priv;
	uint64_t window[MPT_MAX_PATHS];

	set_frac(a, a->initial == ACPF_INIT_MAX ? a->max_frac : a->min_frac);
	a->last_step = ctx->now;
	update_live(a, ctx, window);
}

static uint32_t acpf_pick(void *priv, const struct mpt_sched_ctx *ctx,
			  const struct mpt_pkt_meta *pkt)
{
	struct acpf *a = priv;
	uint64_t window[MPT_MAX_PATHS];
	const struct mpt_path_view *v;
	double mss, cwnd_pkts;
	int best;

	acpf_catch_up(a, ctx);
	update_live(a, ctx, window);
	best = mpt_cpf_select(ctx, window, pkt, a->arrival);
	if (best < 0) {
		a->holds++;
		return 0;
	}
	a->picks[best]++;
	if (a->mode == ACPF_KERNEL) {
		/* sec. 4.1: manage on every packet scheduled, INC = RAW_INC / CWND_p */
		v = &ctx->paths[best];
		mss = v->mtu ? v->mtu : MPT_MAX(pkt->len, 1u);
		cwnd_pkts = fmax(floor((double)v->cwnd / mss), 1);
		if (acpf_paused(a, ctx))
			paused_step(a, ctx->queue_pkts);
		else
			manage_cwnd_frac(a, ctx->queue_pkts, cwnd_pkts);
	}
	return 1u << best;
}

static void acpf_tick(void *priv, const struct mpt_sched_ctx *ctx)
{
	struct acpf *a = priv;
	uint64_t window[MPT_MAX_PATHS];

	acpf_catch_up(a, ctx);
	update_live(a, ctx, window);
}

static void acpf_params_changed(void *priv)
{
	struct acpf *a = priv;

	set_frac(a, a->frac);
}

static const char *const acpf_modes[] = { "user", "kernel", NULL };
static const char *const acpf_initials[] = { "min_frac", "max_frac", NULL };

static const struct mpt_param acpf_params[] = {
	{ .name = "queue_threshold", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct acpf, queue_threshold), .min = 1, .max = 100000, .def = 10,
	  .help = "QUEUE_SIZE_THRESHOLD, packets: a longer scheduler queue grows the live cwnd, a shorter one shrinks it (Fig. 2b, sec. 4)" },
	{ .name = "raw_inc", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct acpf, raw_inc), .min = 1e-6, .max = 1, .def = 0.05,
	  .help = "RAW_INC, base step of the cwnd fraction (Fig. 2b; eq. 2 in kernel mode)" },
	{ .name = "min_frac", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct acpf, min_frac), .min = 0.01, .max = 1, .def = 0.47,
	  .help = "MIN_FRAC, lowest live cwnd fraction, about 1 BDP under BBR (Fig. 2b, sec. 3.2, sec. 4)" },
	{ .name = "max_frac", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct acpf, max_frac), .min = 0.01, .max = 1, .def = 1.0,
	  .help = "MAX_FRAC, highest live cwnd fraction (Fig. 2b)" },
	{ .name = "c1", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct acpf, c1), .min = 1, .max = 100000, .def = 10,
	  .help = "C1, consecutive increasing steps before a queue counts as persistent (Fig. 2c, sec. 4.2)" },
	{ .name = "c2", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct acpf, c2), .min = 1, .max = 100000, .def = 50,
	  .help = "C2, scales the user-space step down: min to max in 530 ms (Fig. 2c, sec. 4.2)" },
	{ .name = "tick_ns", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct acpf, tick_ns), .min = 10000, .max = 1000000000,
	  .def = 1000000,
	  .help = "management period of the user-space variant, ns (sec. 4.2: every 1 ms)" },
	{ .name = "mode", .type = MPT_PARAM_ENUM, .offset = offsetof(struct acpf, mode),
	  .min = 0, .max = 1, .def = ACPF_USER, .enum_names = acpf_modes,
	  .help = "user: step every tick_ns by Fig. 2c (sec. 4.2); kernel: step per scheduled packet by RAW_INC / CWND_p (sec. 4.1, eq. 2)" },
	{ .name = "initial", .type = MPT_PARAM_ENUM, .offset = offsetof(struct acpf, initial),
	  .min = 0, .max = 1, .def = ACPF_INIT_MIN, .enum_names = acpf_initials,
	  .help = "starting fraction; min_frac limits initial use of the cheapest path to about 1 BDP (sec. 3.2, sec. 6)" },
	{ .name = "probe_rtt_pause", .type = MPT_PARAM_BOOL,
	  .offset = offsetof(struct acpf, probe_rtt_pause), .min = 0, .max = 1, .def = 1,
	  .help = "pause the management while a path's BBR is in ProbeRTT (sec. 4.1)" },
	MPT_SCHED_ARRIVAL_PARAMS(struct acpf),
	{ .name = "min_live_pkts", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct acpf, min_live_pkts), .min = 0, .max = 1000, .def = 10,
	  .help = "live window at least this many packets (at most cwnd): at 1 ms RTT "
		  "MIN_FRAC x cwnd is 4 packets (ours; 0 is the paper)" },
	{ .name = "startup_max", .type = MPT_PARAM_BOOL,
	  .offset = offsetof(struct acpf, startup_max), .min = 0, .max = 1, .def = 1,
	  .help = "a path whose BBR is in Startup gets MAX_FRAC of its cwnd: Startup's "
		  "cwnd is its growth, not 2 BDP (ours; 0 is the paper)" },
};

static bool acpf_in_order(const void *priv)
{
	const struct acpf *c = priv;

	return c->arrival;
}

static const struct mpt_stat acpf_stats[] = {
	{ .name = "cw_frac", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct acpf, cw_frac),
	  .help = "live cwnd fraction of the path (kept synchronized across paths)" },
	{ .name = "live_cwnd", .type = MPT_STAT_U64, .kind = MPT_STAT_GAUGE,
	  .per_path = true, .offset = offsetof(struct acpf, live_cwnd),
	  .help = "live cwnd, bytes: ceil(cw_frac x cwnd)" },
	{ .name = "picks", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .per_path = true, .offset = offsetof(struct acpf, picks),
	  .help = "packets scheduled on the path" },
	{ .name = "queue_seen", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct acpf, queue_seen),
	  .help = "scheduler queue length at the latest management step, packets" },
	{ .name = "last_dir", .type = MPT_STAT_I32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct acpf, last_dir),
	  .help = "latest adjustment: +1 increase, -1 decrease, 0 paused or none yet" },
	{ .name = "consecutive_increase", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct acpf, consec),
	  .help = "CONSECUTIVE_INCREASE of Fig. 2c" },
	{ .name = "holds", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct acpf, holds),
	  .help = "decisions that held the packet: every live cwnd full" },
	{ .name = "steps", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct acpf, steps),
	  .help = "management steps run" },
	{ .name = "paused_steps", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct acpf, paused_steps),
	  .help = "management steps skipped while a path was in ProbeRTT" },
};

const struct mpt_sched_ops mpt_sched_acpf = {
	.name = "acpf",
	.summary = "adaptive cheapest path first: CPF on a managed cwnd fraction (ACPF paper)",
	.pick = acpf_pick,
	.in_order = acpf_in_order,
	.init = acpf_init,
	.tick = acpf_tick,
	.params_changed = acpf_params_changed,
	.tick_ns = MPT_NSEC_PER_MSEC,
	.priv_size = sizeof(struct acpf),
	.params = acpf_params,
	.nparams = MPT_ARRAY_SIZE(acpf_params),
	.stats = acpf_stats,
	.nstats = MPT_ARRAY_SIZE(acpf_stats),
};
