/* SPDX-License-Identifier: MIT */
/*
 * Which path carries a path's ACKs (issue 22, mptund-proto(7) ACK).
 *
 * An ACK frame names the path it acknowledges, so it may travel on any path. A path's
 * ACKs leave in our sending direction, which is a separate bottleneck from the
 * direction the data came in: on hybrid access (DSL 16/1 Mbit/s next to LTE) the DSL
 * uplink is thin and, once the inner flow's own ACKs fill it, every tunnel ACK of the
 * DSL downlink waits behind them. The DSL path's round trips then stretch with that
 * queue, its BBR window (sized by the minimum RTT) runs out before the ACKs come back,
 * and the downlink stalls on the uplink.
 *
 * The rule, per path whose ACKs are to go out: the path's own sending direction
 * while it is not full with our own data (a full window or a standing pacer queue,
 * recently); else the usable path whose ACK arrives soonest (owd: half its minimum
 * RTT plus the queue our own bytes in flight stand in at its bottleneck; a full path
 * pays MARGIN more), the path's own direction, then its current carrier, staying
 * while they arrive within max(MARGIN, a quarter) of the soonest. A full path is not
 * avoided for a slower free one: an anchor whose LTE downlink is busy must not send
 * LTE's ACKs over a satellite's 300 ms (the UE would find LTE silent and take it
 * down).
 *
 * Nor does a full return hand its ACKs to a path whose unloaded one-way delay is
 * shorter than its own by more than max(MARGIN, a quarter): half the RTT would then
 * fall short of the path's forward delay (a satellite's full 3 Mbit/s uplink with
 * cpf's inner TCP ACKs, its ACKs on LTE: the UE held its reorder holes for the 250 ms
 * that 2 x 330 ms allowed, not the 275 ms the satellite needs).
 *
 * Nor does a full return hand its ACKs to a dearer path (a higher Cost) unless it
 * sends at its capacity: at least MPT_ACKROUTE_CAPACITY_PCT % of its bandwidth
 * estimate over the last rate window (path.h, MPT_PATH_METER_NS). Cost preference
 * holds for ACK bytes too (issue 10: >= 99% of an app-limited flow's bytes on the
 * cheapest path): an app-limited 20 Mbit/s downlink over two 50 Mbit/s paths of 1 ms
 * RTT fills the cheap path's small window with each 64 KB burst from the TUN, the
 * window-full test called it full, and the anchor sent 6221 of the cheap path's 6455
 * ACKs on the dear one (0.25 Mbit/s there, cheap share 0.988; testbed applimited,
 * cpf). Its sending direction carried 22 of its 54 Mbit/s; a DSL uplink full with
 * the inner flow's ACKs carries its whole rate.
 *
 * A free return is not left for a merely faster one: the ACKs' carrier enters the
 * path's RTT samples, and its schedulers and the peer's reorder hold read half the
 * RTT as the path's one-way delay. A satellite (300 ms each way) whose ACKs took LTE
 * (30 ms) measured 330 ms, minrtt on the anchor took it for 165 ms one way and sent on
 * it packets that arrived 135 ms later than it planned: the UE's reorder buffer
 * overflowed (sat-lte-down, minrtt, 1 run: 4436 overflow releases, 16144 late
 * packets, none without AckRouting).
 * Pure: estimates in, a path index out.
 */
#ifndef MPTUND_ACKROUTE_H
#define MPTUND_ACKROUTE_H

#include <stdbool.h>
#include <stdint.h>

#define MPT_ACKROUTE_MARGIN_NS	5000000ULL	/* 5 ms */

struct mpt_ackroute_in {
	bool usable;		/* up, alive, its endpoint known */
	bool full;		/* our sending direction busy with our own data */
	uint64_t owd_ns;	/* predicted one-way delay of an ACK sent on it now */
	uint64_t base_ns;	/* its one-way delay unloaded: min_rtt / 2 (0: unknown) */
	uint32_t cost;		/* its configured Cost */
	bool at_capacity;	/* our sending direction carries its bandwidth estimate */
};

/* A sending direction at capacity: its rate at least this share of its bandwidth. */
#define MPT_ACKROUTE_CAPACITY_PCT	75

/* The carrier of path own's ACKs among in[0..n); cur: the current carrier, or -1. */
unsigned mpt_ackroute_pick(const struct mpt_ackroute_in *in, unsigned n, unsigned own,
			   int cur);

/* owd_ns for a path: min_rtt / 2 plus the bytes in flight beyond the path's
 * bandwidth-delay product (rate x min_rtt) and the ACK's own bytes at rate (bytes/s;
 * 0: unknown, no queue term). */
uint64_t mpt_ackroute_owd(uint64_t min_rtt_ns, uint64_t in_flight, uint64_t rate,
			  uint32_t len);

#endif
