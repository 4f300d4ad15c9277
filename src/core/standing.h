/* SPDX-License-Identifier: MIT */
/*
 * Does the sender's queue stand? CoDel's test (RFC 8289 section 3.3): a queue whose
 * packets keep waiting more than TARGET (5 ms) for at least INTERVAL (100 ms) is a
 * standing queue, not a burst: the paths in use cannot keep up. It stops standing
 * after INTERVAL without a wait above TARGET. The wait of a packet counts both queues
 * it meets before the receiver: the scheduler queue (its sojourn, or the head's wait
 * while the head is held; 0 when the queue is empty) and the bottleneck queue of the
 * path it goes to (the latest RTT above the minimum; for a held head, the least of the
 * up paths). A full path can keep the scheduler queue short while its own bottleneck
 * fills. The cheapest-path family spills onto dearer paths only while the queue
 * stands (sched/arrival.h). Pure: time is an argument.
 *
 * Whose wait (session_tx.c): the bulk lane's head, at each decision on it, as CoDel
 * takes the sojourn of the packet leaving the head of its FIFO. Not the sparse lane's
 * packets: they pass the backlog by design (sparse.h, fq_codel's new flows, whose
 * CoDel state is their own, RFC 8290 4.1), so their wait says nothing of it, and any
 * one sample at or below TARGET restarts the run above it. A ping every 20 ms beside
 * a greedy flow (bench-dataplane's loaded RTT probe) then kept the queue from ever
 * standing for 100 ms, and a second path idle while ~1,000 packets (10 ms) waited for
 * the first. A packet an in-order take sends from deep in the queue is not the head
 * either (its wait is short by design: it arrives when the packets before it do,
 * which still wait): the sample is the head's.
 */
#ifndef MPTUND_STANDING_H
#define MPTUND_STANDING_H

#include <stdbool.h>
#include <stdint.h>

#include <mptund/common.h>

#define MPT_STANDING_TARGET_NS		(5 * MPT_NSEC_PER_MSEC)		/* RFC 8289 TARGET */
#define MPT_STANDING_INTERVAL_NS	(100 * MPT_NSEC_PER_MSEC)	/* RFC 8289 INTERVAL */

struct mpt_standing {
	uint64_t above_since;		/* first of the current run of waits above target */
	uint64_t below_since;		/* first of the current run at or below target */
	uint64_t on_at;			/* when it began to stand (valid while on) */
	uint64_t starts;		/* stat: times it began to stand */
	uint64_t on_ns;			/* stat: time it stood, ended spells only */
	bool on;
};

/* Time the queue has stood in all, the current spell included. */
static inline uint64_t mpt_standing_total_ns(const struct mpt_standing *st, uint64_t now)
{
	return st->on_ns + (st->on && now > st->on_at ? now - st->on_at : 0);
}

static inline void mpt_standing_update(struct mpt_standing *st, uint64_t now,
				       uint64_t sojourn_ns)
{
	if (sojourn_ns > MPT_STANDING_TARGET_NS) {
		st->below_since = 0;
		if (!st->above_since)
			st->above_since = now;
		if (!st->on && now - st->above_since >= MPT_STANDING_INTERVAL_NS) {
			st->on = true;
			st->on_at = now;
			st->starts++;
		}
	} else {
		st->above_since = 0;
		if (!st->below_since)
			st->below_since = now;
		if (st->on && now - st->below_since >= MPT_STANDING_INTERVAL_NS) {
			st->on = false;
			st->on_ns += now - st->on_at;
		}
	}
}

#endif
