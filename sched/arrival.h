/* SPDX-License-Identifier: MIT */
/*
 * Arrival-aware path selection, shared by the aggregating schedulers (cpf, acpf,
 * minrtt, wrr, olms, egreedy). Pure: it reads the path views and the context only.
 *
 * Useful. Should the packet at the head of the scheduler queue go to a slower path
 * now, or wait for a faster one? (ECF, Lim et al., CoNEXT 2017; BLEST, Ferlin et al.,
 * IFIP Networking 2016; STTF, Hurtig et al., IEEE TNSM 2019.) A packet sent on a slow
 * path that arrives after the packets that follow it on the fast path holds them all
 * in the receiver's reorder buffer: the bond then delivers at the slow path's delay
 * and the end-to-end transport sees the slow path's RTT, which is how unequal paths end
 * below the best path alone.
 *
 * For path i (up, rate estimate r_i in bytes/s) a new packet of len bytes leaves after
 * w_i = max(pacer backlog / pacing rate, in-flight excess over the window / r_i) and
 * arrives at A_i = w_i + d_i + len / r_i, d_i = srtt_i / 2 the one-way delay estimate.
 * A set S of paths working in parallel delivers the scheduler queue's B bytes by the
 * water level T(S) that solves sum_{i in S} r_i (T - A_i) = B:
 *     T(S) = (B + sum r_i A_i) / sum r_i.
 * Taking the paths by arrival, the first is useful, and each next one is useful when
 * it starts delivering before the useful ones would finish the backlog: A_j < T(S).
 * This is earliest-completion (ECF's rule, without its hysteresis).
 *
 * Needed (the cheapest-path family). The cheapest up path is needed; the dearer ones
 * are needed while the sender's queue stands (ctx->standing: its packets have waited
 * more than 5 ms for 100 ms in the scheduler queue and their path's bottleneck queue,
 * CoDel's test of a standing queue, RFC 8289 3.3; src/core/standing.h). A burst
 * of an application that sends below the cheap path's capacity queues for the cheap
 * path and drains there instead of spilling onto a metered path; a sender the cheap
 * path cannot carry builds a standing queue and spills as soon as the spill is useful.
 * Usefulness is then judged among the needed paths, taken by cost rather than by
 * arrival: the cheapest needed path is always used when it has room (the user's
 * preference comes first, even when it is the slower path), a dearer one when it
 * arrives before the cheaper ones would deliver the backlog.
 *
 * Rates. A controller publishes its bottleneck estimate (btlbw) once it is proven, i.e.
 * taken from a sample that was not application-limited (cc.h). A path without one is
 * unproven: its capacity is unknown. For "useful" it arrives after its delay alone (no
 * serialization guess) and adds max(delivery rate, cwnd / srtt) to the water level. Such a path receives traffic while it is useful, becomes
 * window-limited and so proves its rate: this is how an idle or new path is measured.
 */
#ifndef MPTUND_SCHED_ARRIVAL_H
#define MPTUND_SCHED_ARRIVAL_H

#include <mptund/sched.h>

#define MPT_ARRIVAL_DEFAULT_RATE 125000u	/* 1 Mbit/s: a floor before any estimate */

/* Predicted arrival of a len-byte packet handed to path v now, ns from now, when v may
 * hold window bytes in flight. */
uint64_t mpt_arrival_ns(const struct mpt_path_view *v, uint64_t window, uint32_t len);

/* order[] of the ctx->npaths paths by predicted arrival, earliest first (ties: id);
 * window NULL: each path's cwnd. */
void mpt_arrival_order(const struct mpt_sched_ctx *ctx, const uint64_t *window,
		       uint32_t len, uint8_t *order);

/* order[] of the ctx->npaths paths by configured cost, cheapest first (ties: id). */
void mpt_arrival_cost_order(const struct mpt_sched_ctx *ctx, uint8_t *order);

/* The useful up paths among mask `among` for a len-byte head packet and the backlog
 * ctx->queue_bytes; window[i] is the window the scheduler lets path i fill (NULL:
 * cwnd). The earliest up path of the mask is always useful. */
uint32_t mpt_arrival_useful(const struct mpt_sched_ctx *ctx, uint32_t among,
			    const uint64_t *window, uint32_t len);

/* The same with the paths taken in order[] (e.g. by cost): the first up path of the
 * mask in that order is always useful, each next one when A_j < T(S). */
uint32_t mpt_arrival_useful_ordered(const struct mpt_sched_ctx *ctx, const uint8_t *order,
				    uint32_t among, const uint64_t *window, uint32_t len);

/* The needed up paths (see above): the cheapest alone unless the queue stands. */
uint32_t mpt_arrival_needed(const struct mpt_sched_ctx *ctx);

/*
 * In-order arrival: the bytes the other paths in use (up, with bytes in flight) deliver
 * (at their rates, from their predicted arrivals) before a len-byte packet handed to
 * path j now arrives. A packet
 * taken that far into the scheduler queue, instead of its head, arrives on j about when
 * the packets before it arrive through the faster paths: the receiver does not hold the
 * faster paths' packets behind it, and the end-to-end transport sees no stall.
 */
uint64_t mpt_arrival_lead(const struct mpt_sched_ctx *ctx, unsigned j, uint32_t len);

/* The paths with room under their cwnd that are useful among all up paths. */
uint32_t mpt_arrival_eligible(const struct mpt_sched_ctx *ctx, uint32_t len);

/* The tunable of the cheapest-path family's arrival awareness, for a params table of
 * a struct S with bool arrival. */
#define MPT_SCHED_ARRIVAL_PARAMS(S)						\
	{ .name = "arrival", .type = MPT_PARAM_BOOL,				\
	  .offset = offsetof(S, arrival), .min = 0, .max = 1, .def = 1,		\
	  .help = "arrival-aware: a slower path only when in time, a dearer one only "\
		  "when the queue stands (mptund-sched(7)); 0 is the paper's algorithm" }

/* Same for the schedulers with only the on/off switch (bool arrival). */
#define MPT_SCHED_ARRIVAL_PARAM(S)						\
	{ .name = "arrival", .type = MPT_PARAM_BOOL,				\
	  .offset = offsetof(S, arrival), .min = 0, .max = 1, .def = 1,		\
	  .help = "use a slower path only when the packet arrives no later than "	\
		  "through the faster paths' queues (mptund-sched(7))" }

#endif
