/* SPDX-License-Identifier: MIT */
/*
 * What the ATSSS steering modes share (issue 13): the thresholds a mode applies to
 * its paths and the queue of events it hands the core.
 *
 * Thresholds play the Performance Measurement Function's role (TS 23.501 5.32.5, used
 * by the steering modes of 5.32.8; TS 24.193 5.2: "threshold values" of an ATSSS
 * rule): from the path view a path is judged by its srtt against an RTT threshold and
 * by its loss rate over a recent window (kept from the view's sent/lost counters)
 * against a loss threshold. Hysteresis against flapping: a path breaches when the
 * figure goes above the threshold and recovers only when it falls below
 * threshold x (1 - hyst); and it stays in either state at least hold_ms. A breached
 * path is left by the modes while another path is fine; when every usable path is
 * breached the modes use them all as if none were (a threshold steers, it never
 * blackholes). Every crossing is an event (mpt_sched_event) for the core to log.
 *
 * Pure: time from ctx->now; state in the mode's private blob.
 */
#ifndef MPTUND_SCHED_STEER_H
#define MPTUND_SCHED_STEER_H

#include <mptund/sched.h>

#define MPT_STEER_EVQ 16		/* pending events kept; older ones are dropped */
#define MPT_STEER_EVAL_NS MPT_NSEC_PER_MSEC	/* paths judged at most this often */

/* Tunables; a mode embeds them in its blob (tunables first) and lists
 * MPT_STEER_THR_PARAMS in its table. */
struct mpt_steer_thr {
	uint32_t rtt_ms;		/* 0 = no RTT threshold */
	double loss;			/* 0 = no loss threshold; rate 0..1 */
	double hyst;			/* leave level = threshold x (1 - hyst) */
	uint32_t hold_ms;		/* least time in a state before changing */
	uint32_t window_ms;		/* loss-rate window */
	uint32_t min_pkts;		/* packets a window needs to judge loss */
};

struct mpt_steer_path {
	bool rtt_bad, loss_bad;
	uint64_t rtt_since, loss_since;	/* last change of each state */
	uint64_t win_t, win_sent, win_lost;	/* the current window's start */
	double loss_rate;		/* of the last complete window; -1 = none yet */
};

struct mpt_steer {
	struct mpt_steer_path p[MPT_MAX_PATHS];
	struct mpt_sched_event q[MPT_STEER_EVQ];
	uint32_t qhead, qlen;
	uint32_t bad;			/* mask: paths breaching a threshold */
	uint64_t crossings;		/* (stat) threshold crossings, both ways */
	uint64_t ev_dropped;		/* (stat) events lost to a full queue */
	bool started;
	uint64_t next_eval;		/* ctx->now of the next judgement */
};

#define MPT_STEER_THR_PARAMS(T_, M_)						\
	{ .name = "rtt_threshold_ms", .type = MPT_PARAM_U32,			\
	  .offset = offsetof(T_, M_.rtt_ms), .min = 0, .max = 60000, .def = 0,	\
	  .help = "RTT threshold: a path whose srtt exceeds it is left; 0 = none (TS 23.501 5.32.8, TS 24.193 5.2)" }, \
	{ .name = "loss_threshold", .type = MPT_PARAM_DOUBLE,			\
	  .offset = offsetof(T_, M_.loss), .min = 0, .max = 1, .def = 0,	\
	  .help = "packet loss rate threshold over loss_window_ms; 0 = none (TS 23.501 5.32.8)" }, \
	{ .name = "hysteresis", .type = MPT_PARAM_DOUBLE,			\
	  .offset = offsetof(T_, M_.hyst), .min = 0, .max = 0.9, .def = 0.2,	\
	  .help = "a breached path recovers below threshold x (1 - hysteresis) (ours)" }, \
	{ .name = "hold_ms", .type = MPT_PARAM_U32,				\
	  .offset = offsetof(T_, M_.hold_ms), .min = 0, .max = 600000, .def = 1000, \
	  .help = "least time a path stays breached or recovered (ours, against flapping)" }, \
	{ .name = "loss_window_ms", .type = MPT_PARAM_U32,			\
	  .offset = offsetof(T_, M_.window_ms), .min = 10, .max = 600000, .def = 1000, \
	  .help = "window of the loss rate (ours; the PMF's measurement period)" }, \
	{ .name = "loss_min_pkts", .type = MPT_PARAM_U32,			\
	  .offset = offsetof(T_, M_.min_pkts), .min = 1, .max = 1000000, .def = 20, \
	  .help = "packets a window needs before its loss rate counts (ours)" }

#define MPT_STEER_STATS(T_, M_)						\
	{ .name = "crossings", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,	\
	  .offset = offsetof(T_, M_.crossings),				\
	  .help = "threshold crossings, into and out of a breach" },		\
	{ .name = "breached", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,	\
	  .offset = offsetof(T_, M_.bad),					\
	  .help = "mask of the paths breaching a threshold now" },		\
	{ .name = "events_dropped", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER, \
	  .offset = offsetof(T_, M_.ev_dropped),				\
	  .help = "events dropped because the core did not drain them in time" }

/* Judge every path of ctx against thr, at most every MPT_STEER_EVAL_NS; queue an
 * event per crossing. Cheap when called on every pick. */
void mpt_steer_eval(struct mpt_steer *st, const struct mpt_steer_thr *thr,
		    const struct mpt_sched_ctx *ctx);

/* Mask of the paths to use: up and not breached; when that is empty, every path up. */
uint32_t mpt_steer_usable(const struct mpt_steer *st, const struct mpt_sched_ctx *ctx);

/* Mask of the paths up in ctx. */
uint32_t mpt_steer_up(const struct mpt_sched_ctx *ctx);

/* Queue an event (the oldest is dropped and counted when the queue is full). */
void mpt_steer_event(struct mpt_steer *st, uint64_t t, uint8_t kind, unsigned path,
		     bool on, double value, double threshold);

/* The drain_events op's body. */
unsigned mpt_steer_drain(struct mpt_steer *st, struct mpt_sched_event *ev, unsigned max);

/* Index of the path named name in ctx, or -1 (name "" = -1 too). */
int mpt_steer_path_by_name(const struct mpt_sched_ctx *ctx, const char *name);

#endif
