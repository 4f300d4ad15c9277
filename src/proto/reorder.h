/* SPDX-License-Identifier: MIT */
/*
 * The receiver's reorder buffer, one per session and direction. Packets carry a
 * session-wide data sequence number (DSN); the buffer hands them to the caller's
 * release callback in DSN order, holding a packet that arrives past a hole for at
 * most the hold time (about the paths' one-way-delay spread plus a margin). The
 * tunnel never retransmits, so a hole that outlives its hold is given up.
 *
 * Ownership: the buffer stores pointers to caller-owned packet buffers and never
 * copies. mpt_reorder_insert() returns 0 when it took the buffer; every taken
 * buffer comes back exactly once through the release callback (possibly during the
 * same call). A negative return (duplicate, stale) leaves the buffer with the caller.
 * pkt may be NULL: a DSN the receiver consumed without a packet to deliver (dropped
 * after authentication, e.g. by the source filter) takes its turn like a packet, so
 * that it leaves no hole to wait for; the callback gets NULL for it.
 *
 * Late packets (DSN below the release point, not seen before) are delivered at
 * once: the tunnel does not retransmit, so the late copy is the only one the inner
 * transport will get, and TCP takes an out-of-order segment far better than a loss.
 * A history of the last `capacity` DSNs tells late packets from duplicates
 * (redundant schedulers send copies on several paths). The buffer syncs on the
 * first packet it sees: packets sent before it but overtaken by it count as late.
 *
 * Pure: time is an argument, no I/O.
 */
#ifndef MPTUND_REORDER_H
#define MPTUND_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#define MPT_REORDER_MAX_CAPACITY	(1u << 20)
/*
 * Consecutive packets from far below the history before the buffer assumes the sender
 * restarted its DSN space and resynchronises on it. A restarted sender starts at a
 * random 48-bit DSN (session.c), and its peer starts afresh with it by the handshake
 * (MPT_HS_FLAG_FRESH flushes this buffer): this rule is the fallback for a restart
 * the handshake did not show, whose new space lies below the old. Only packets more
 * than MPT_REORDER_RESTART_GAP below the release point, each within the window above
 * the one before, count: packets of holes given up at an overflow come back a few
 * thousand DSNs below it, and the old rule (any 3 stale in a row) took them for a
 * restart: sat-lte-down (cpf, before the window grew) 310-1,076 resyncs a run, each
 * flushing every held packet into the inner TCP as a burst of holes. A restart lands
 * this close below with a chance of 2^-24.
 */
#define MPT_REORDER_RESYNC_RUN		3
#define MPT_REORDER_RESTART_GAP		(1ull << 24)

enum mpt_reorder_why {
	MPT_REORDER_IN_ORDER,		/* its turn came (at once or after a hole filled) */
	MPT_REORDER_TIMEOUT,		/* a hole before it outlived the hold */
	MPT_REORDER_OVERFLOW,		/* the window was full, holes were given up */
	MPT_REORDER_LATE,		/* below the release point, delivered anyway */
	MPT_REORDER_FLUSH,		/* mpt_reorder_flush(), resync or free */
};

typedef void (*mpt_reorder_release_fn)(void *arg, uint64_t dsn, void *pkt, uint32_t len,
				       enum mpt_reorder_why why);

struct mpt_reorder_stats {
	uint64_t held;			/* packets that had to wait for a hole */
	uint64_t in_order;		/* released in order (at once or after waiting) */
	uint64_t timeout;		/* released because their hole timed out */
	uint64_t overflow;		/* released because the window was full */
	uint64_t late;			/* delivered below the release point */
	uint64_t flushed;		/* released by flush / resync */
	uint64_t duplicate;		/* dropped: already held or delivered */
	uint64_t stale;			/* dropped: older than the duplicate history */
	uint64_t holes_skipped;		/* DSNs given up (lost, or they come late) */
	uint64_t resyncs;		/* DSN space restarts (jump beyond the window) */
	uint64_t late_resent;		/* of late, tunnel repairs (DATA_RESENT) */
	uint64_t hold_raises;		/* late packets of a timed-out hole that raised
					   the learned hold (see below) */
	uint64_t holds_extended;	/* holes held past the hold (mpt_reorder_hold_until) */
	uint64_t grown;			/* times the window grew (mpt_reorder_grow, or
					   by itself: mpt_reorder_set_grow_max) */
};

struct mpt_reorder_slot {
	void *pkt;
	uint32_t len;
	bool held;
	uint64_t arrival_ns;
	uint64_t done_dsn;		/* last DSN released through this slot */
	uint64_t skip_dsn;		/* last DSN given up by a timeout here, */
	uint64_t skip_since_ns;		/* and when its hole became visible */
};

struct mpt_reorder {
	/* configuration */
	uint32_t cap;			/* window, packets; power of two */
	uint32_t grow_max;		/* mpt_reorder_set_grow_max, power of two */
	uint64_t max_hold_ns;
	uint64_t margin_ns;
	mpt_reorder_release_fn release;
	void *arg;
	bool fill_restarts;		/* the hold restarts when a hole is filled */

	/* runtime */
	uint64_t hold_ns;		/* current adaptive hold, <= max_hold_ns */
	uint64_t learned_ns;		/* added to it by late packets (see below) */
	uint64_t learned_at_ns;		/* when learned_ns last grew or decayed */
	bool synced;			/* next is valid */
	uint64_t next;			/* release point: lowest DSN not yet released */
	uint64_t high;			/* highest DSN held (valid when nheld > 0) */
	uint32_t nheld;
	uint64_t hole_since_ns;		/* when the hole at `next` became visible */
	uint64_t fill_ns;		/* when a packet last filled the hole at `next` */
	uint64_t hold_until_ns;		/* no hole is given up before (hold_until) */
	uint32_t stale_run;
	uint64_t stale_dsn;		/* the last packet of the stale run */
	struct mpt_reorder_slot *slot;	/* cap entries, indexed by dsn & (cap - 1) */

	struct mpt_reorder_stats st;
};

/*
 * capacity: packets (rounded up to a power of two, 2..MPT_REORDER_MAX_CAPACITY);
 * the hold starts at max_hold_ns until mpt_reorder_set_hold() is told better.
 * Returns 0 or -EINVAL (quoted in the log). The slots are allocated by the first
 * mpt_reorder_insert (an idle session holds no memory for them).
 */
int mpt_reorder_init(struct mpt_reorder *rb, uint32_t capacity, uint64_t max_hold_ns,
		     uint64_t margin_ns, mpt_reorder_release_fn release, void *arg);
/*
 * Grow the window to the power of two capacity rounds up to (at most
 * MPT_REORDER_MAX_CAPACITY); never shrinks. Held packets and the duplicate history
 * move over, so nothing is released or forgotten. 0, or -ENOMEM (the old window
 * stays).
 */
int mpt_reorder_grow(struct mpt_reorder *rb, uint32_t capacity);

/*
 * The window a receiver needs (issue 22): every DSN sent while a hole is held is in
 * the window at once, the packets of the faster paths held and those of the hole's
 * path still on their way, so rate x hold DSNs; MPT_REORDER_GROW_FACTOR times that
 * for the rate's growth within a meter window and a learned hold on top. Within
 * [floor, ceil]. sat-lte-down (satellite 300 ms one way next to LTE 30 ms, 12 MB/s,
 * hold 275 ms): about 2,400 packets against the default 1,024; the window overflowed
 * about 11 s into the run, 3,309 packets went out past their holes, 1,100 came after
 * their DSN had left the history and were dropped as stale (1 run, cpf).
 */
#define MPT_REORDER_GROW_FACTOR	2
/* The most the daemon grows a session's window to (a power of two: 16384 slots of
 * 56 bytes, under 1 MB). */
#define MPT_REORDER_AUTO_MAX	16384u
uint32_t mpt_reorder_capacity_for(uint64_t pkts_per_s, uint64_t hold_ns, uint32_t floor,
				  uint32_t ceil);

/* The window rb wants for the received rate: mpt_reorder_capacity_for with its hold
 * in force. The rate is measured over a second and lags a slow start (sat-lte-down:
 * the window overflowed in CUBIC's slow start over the satellite, half a second
 * before the rate asked for more): between these checks the window grows at once as
 * packets need it (mpt_reorder_set_grow_max). */
uint32_t mpt_reorder_capacity_want(const struct mpt_reorder *rb, uint64_t pkts_per_s,
				   uint32_t floor, uint32_t ceil);

/*
 * The most slots the buffer grows to by itself, at once, as packets come (0, after
 * init: never): when a packet's DSN reaches half the window past the release point,
 * the window doubles, and a packet beyond it grows the window to fit it before any
 * hole is given up (overflow), both within this limit (its power of two below). The
 * window in use is the DSN span, not the packets held: behind a hole on a slow path
 * the DSNs still on their way take their slots too. sat-lte-down, cpf, main b9fe70a:
 * 1,024 slots, 319 held and 307 overflow releases 4.6 s into the run (the
 * satellite's 300 ms in flight), the check every 100 ms grew it at 5.4 s; the 338
 * holes given up all came late, and the inner TCP re-sent 60 segments. The caller
 * keeps it within what its packet pool can spare.
 */
void mpt_reorder_set_grow_max(struct mpt_reorder *rb, uint32_t slots);

/* Releases every held packet (MPT_REORDER_FLUSH) and frees the slots. */
void mpt_reorder_free(struct mpt_reorder *rb);

/*
 * Offer a packet. Returns 0 if the buffer took pkt (it comes back through the
 * release callback), -EEXIST for a duplicate, -ESTALE for a packet older than the
 * history (both counted), -ENOMEM when the slots cannot be allocated (the caller
 * keeps and recycles pkt in every error case).
 */
int mpt_reorder_insert(struct mpt_reorder *rb, uint64_t dsn, void *pkt, uint32_t len,
		       uint64_t now);
/* As mpt_reorder_insert; resent: the sender re-sent the packet after declaring its
 * first copy lost (DATA_RESENT). Arriving after its hole was given up, such a repair
 * does not raise the learned hold (below): it shows a loss, not late reordering. */
int mpt_reorder_insert_from(struct mpt_reorder *rb, uint64_t dsn, void *pkt, uint32_t len,
			    uint64_t now, bool resent);

/* When mpt_reorder_on_timeout() must run next; 0 = nothing held. The hole at next
 * is given up hold after it appeared (the earliest held packet's arrival), or, with
 * fill restarts, hold after a packet last filled the hole at next, if that is later
 * (holes being repaired one after another: each repair is progress the end-to-end
 * transport sees); never before the time set by mpt_reorder_hold_until(). */
uint64_t mpt_reorder_next_deadline(const struct mpt_reorder *rb);
/* Give up every hole whose hold expired at now, releasing what follows in order. */
void mpt_reorder_on_timeout(struct mpt_reorder *rb, uint64_t now);

/* Hold every hole until at least until_ns (absolute; earlier or 0: no effect), e.g.
 * while the repairs of a path that went dark are on their way (session_repair.c).
 * Counted in holds_extended when it postpones the due hole. */
void mpt_reorder_hold_until(struct mpt_reorder *rb, uint64_t until_ns);
/* Restart the hold when a packet fills the hole at next (off after init). */
void mpt_reorder_set_fill_restarts(struct mpt_reorder *rb, bool on);

/* Release everything held, in order, and forget the DSN space (new session key). */
void mpt_reorder_flush(struct mpt_reorder *rb);

/* The spread floor's bound (below): a GEO satellite's one-way delay and its queue. */
#define MPT_REORDER_SPREAD_MAX_NS	(1000ull * 1000 * 1000)

/*
 * The learned hold. A packet of a hole the timeout gave up that arrives after all was
 * not lost: the hold was too short by its lateness (the sender's pacer queue on a slow
 * path, a queue at the slow path's bottleneck: neither is in the paths' RTT spread).
 * The hold then grows to what that packet needed (its arrival minus when its hole
 * became visible) plus the margin, on top of the hold the caller sets, within the cap
 * of mpt_reorder_set_hold; it halves after MPT_REORDER_LEARN_DECAY_NS without such a
 * packet. As RACK's reordering window grows when a DSACK shows a retransmission was
 * spurious and resets after 16 recoveries without one (RFC 8985, 6.2 step 4, 7.2): a
 * loss never comes late, so only reordering the hold did not cover raises it. A late
 * repair (mpt_reorder_insert_from with resent) is a loss the hold rightly gave up:
 * it raises nothing (a dark path's repairs come hundreds of ms after its holes).
 */
#define MPT_REORDER_LEARN_DECAY_NS	(10ull * 1000 * 1000 * 1000)

/* The hold in force: the caller's plus the learned part, within the cap. */
uint64_t mpt_reorder_hold_now(const struct mpt_reorder *rb);

/* Set the hold time, capped at the larger of max_hold_ns and MPT_REORDER_SPREAD_MAX_NS
 * (callers compute it with the functions below); 0 with max_hold_ns 0. */
void mpt_reorder_set_hold(struct mpt_reorder *rb, uint64_t hold_ns);

/*
 * The adaptive hold from the paths' smoothed RTTs (0 = no sample yet, ignored):
 *   hold = (max srtt - min srtt) / 2 + margin, at most MPT_REORDER_SPREAD_MAX_NS.
 * Half the RTT spread estimates the spread of the one-way delays (paths assumed
 * symmetric): a packet sent at the same time on the fastest and the slowest path
 * arrives that much apart. The margin covers jitter and the sender's pacing. With
 * no RTT sample at all the answer is max_hold (nothing is known yet).
 * max_hold does not cap this spread floor (0 turns every hold off): a shorter hold
 * gives up every packet still on its way on the slower path, and the inner transport
 * sees each spill-over as a loss (a 300 ms satellite next to a 30 ms LTE path: 275 ms against the default 250).
 * The hold stays below the inner transport's RTO: its RTT includes the slower path's
 * one-way delay and its RTO is at least that plus 200 ms (Linux).
 */
/* With repairs (Recovery = retransmit): a hole waits for the sender to find the loss
 * and re-send: the loss shows a round trip after the send at the latest by RFC 9002's
 * thresholds (9/8 RTT, or 3 newer packets acknowledged), the repair takes a one-way
 * trip, an ACK lost on the way delays it; twice the largest RTT plus margin, at most
 * max_hold_ns, and never less than the spread floor above. */
uint64_t mpt_reorder_hold_repair(const uint64_t *srtt_ns, unsigned n, uint64_t margin_ns,
				 uint64_t max_hold_ns);
uint64_t mpt_reorder_hold_from_rtts(const uint64_t *srtt_ns, unsigned n,
				    uint64_t margin_ns, uint64_t max_hold_ns);

static inline uint32_t mpt_reorder_held(const struct mpt_reorder *rb)
{
	return rb->nheld;
}

#endif
