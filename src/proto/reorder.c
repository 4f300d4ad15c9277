// SPDX-License-Identifier: MIT
/*
 * Reorder buffer; see reorder.h for the contract.
 *
 * A ring of cap slots indexed by dsn & (cap - 1) covers the window [next, next+cap)
 * of packets that may be held, and the same slots remember the last DSN released
 * through them, which makes the history [next-cap, next) for duplicate detection.
 *
 *   insert(d):  d == next          release, then the contiguous run behind it
 *               next < d < next+cap hold (duplicate if already held)
 *               d >= next+cap/2    first grow the window, within grow_max
 *               d >= next+cap      give up the oldest holes until d fits
 *                                  (overflow); nothing left to give up: resync
 *               next-cap <= d < next  late: deliver, unless already delivered
 *               d < next-cap       stale: drop; MPT_REORDER_RESYNC_RUN in a row
 *                                  from far below (MPT_REORDER_RESTART_GAP):
 *                                  the sender restarted, resync on d
 *
 * The hole at next became visible when the earliest still-held packet arrived:
 * hole_since is the minimum arrival time of the held packets, and the hole is given
 * up at hole_since + hold (deadline(): or later, after a fill or a hold_until).
 * Scans over [next, high] happen only when held packets leave, and high - next < cap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mptund/common.h>

#include "log.h"
#include "reorder.h"

static struct mpt_reorder_slot *slot_of(struct mpt_reorder *rb, uint64_t dsn)
{
	return &rb->slot[dsn & (rb->cap - 1)];
}

static void clear_history(struct mpt_reorder *rb)
{
	if (!rb->slot)
		return;
	for (uint32_t i = 0; i < rb->cap; i++) {
		rb->slot[i].done_dsn = UINT64_MAX;
		rb->slot[i].skip_dsn = UINT64_MAX;
	}
}

/* The least power of two >= v, at least 2. */
static uint32_t pow2_ceil(uint32_t v)
{
	uint32_t p = 2;

	while (p < v)
		p <<= 1;
	return p;
}

int mpt_reorder_init(struct mpt_reorder *rb, uint32_t capacity, uint64_t max_hold_ns,
		     uint64_t margin_ns, mpt_reorder_release_fn release, void *arg)
{
	memset(rb, 0, sizeof(*rb));
	if (capacity < 2 || capacity > MPT_REORDER_MAX_CAPACITY) {
		log_warnx("reorder buffer: capacity '%u' is out of range [2, %u]", capacity,
			  MPT_REORDER_MAX_CAPACITY);
		return -EINVAL;
	}
	if (!release) {
		log_warnx("reorder buffer: no release callback");
		return -EINVAL;
	}
	rb->cap = pow2_ceil(capacity);	/* the slots come with the first packet */
	rb->max_hold_ns = max_hold_ns;
	rb->margin_ns = margin_ns;
	rb->hold_ns = max_hold_ns;
	rb->release = release;
	rb->arg = arg;
	return 0;
}

/* The slots, on first use: a session that carries no data holds none. */
static int alloc_slots(struct mpt_reorder *rb)
{
	rb->slot = calloc(rb->cap, sizeof(*rb->slot));
	if (!rb->slot)
		return -ENOMEM;
	clear_history(rb);
	return 0;
}

/* Place an old slot's history into the new ring unless a newer DSN got there first. */
static void move_history(struct mpt_reorder_slot *ring, uint32_t cap,
			 const struct mpt_reorder_slot *o, uint64_t oldest)
{
	struct mpt_reorder_slot *n;

	if (o->done_dsn != UINT64_MAX && o->done_dsn >= oldest) {
		n = &ring[o->done_dsn & (cap - 1)];
		if (n->done_dsn == UINT64_MAX || n->done_dsn < o->done_dsn)
			n->done_dsn = o->done_dsn;
	}
	if (o->skip_dsn != UINT64_MAX && o->skip_dsn >= oldest) {
		n = &ring[o->skip_dsn & (cap - 1)];
		if (n->skip_dsn == UINT64_MAX || n->skip_dsn < o->skip_dsn) {
			n->skip_dsn = o->skip_dsn;
			n->skip_since_ns = o->skip_since_ns;
		}
	}
}

int mpt_reorder_grow(struct mpt_reorder *rb, uint32_t capacity)
{
	uint32_t cap = pow2_ceil(MPT_MIN(capacity, MPT_REORDER_MAX_CAPACITY));
	struct mpt_reorder_slot *ring;
	uint64_t oldest;

	if (cap <= rb->cap)
		return 0;
	if (!rb->slot) {		/* not yet allocated: the first packet sizes it */
		rb->cap = cap;
		return 0;
	}
	ring = calloc(cap, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		ring[i].done_dsn = ring[i].skip_dsn = UINT64_MAX;
	/* the history covers [next - cap, next), the held packets [next, next + cap):
	 * twice the old ring at most, and the new one is at least that */
	oldest = rb->synced && rb->next > rb->cap ? rb->next - rb->cap : 0;
	for (uint32_t i = 0; i < rb->cap; i++)
		move_history(ring, cap, &rb->slot[i], oldest);
	for (uint64_t d = rb->next; rb->nheld && d <= rb->high; d++) {
		const struct mpt_reorder_slot *o = slot_of(rb, d);

		if (o->held) {
			ring[d & (cap - 1)].held = true;
			ring[d & (cap - 1)].pkt = o->pkt;
			ring[d & (cap - 1)].len = o->len;
			ring[d & (cap - 1)].arrival_ns = o->arrival_ns;
		}
	}
	free(rb->slot);
	rb->slot = ring;
	rb->cap = cap;
	rb->st.grown++;
	return 0;
}

uint32_t mpt_reorder_capacity_for(uint64_t pkts_per_s, uint64_t hold_ns, uint32_t floor,
				  uint32_t ceil)
{
	uint64_t want = MPT_REORDER_GROW_FACTOR * pkts_per_s * (hold_ns / 1000) / 1000000;

	if (want > ceil)
		want = ceil;
	return want > floor ? (uint32_t)want : floor;
}

uint32_t mpt_reorder_capacity_want(const struct mpt_reorder *rb, uint64_t pkts_per_s,
				   uint32_t floor, uint32_t ceil)
{
	return mpt_reorder_capacity_for(pkts_per_s, mpt_reorder_hold_now(rb), floor, ceil);
}

/* The greatest power of two <= v (0 for 0). */
static uint32_t pow2_floor(uint32_t v)
{
	uint32_t p = 1;

	if (!v)
		return 0;
	while (p <= v / 2)
		p <<= 1;
	return p;
}

void mpt_reorder_set_grow_max(struct mpt_reorder *rb, uint32_t slots)
{
	rb->grow_max = pow2_floor(MPT_MIN(slots, MPT_REORDER_MAX_CAPACITY));
}

/* Before dsn is placed (dsn >= next): double the window when dsn reaches its half,
 * and more when dsn lies beyond it, within grow_max (reorder.h). -ENOMEM keeps the
 * old window: the overflow then gives up holes as before. */
static void grow_for(struct mpt_reorder *rb, uint64_t dsn)
{
	uint64_t need = dsn - rb->next + 1, cap = rb->cap;

	if (need <= rb->cap / 2 || rb->cap >= rb->grow_max)
		return;
	if (!rb->nheld && need > rb->grow_max)
		return;		/* nothing held, beyond reach: a jump (resync) */
	while (cap < 2 * need && cap < rb->grow_max)
		cap <<= 1;
	mpt_reorder_grow(rb, (uint32_t)cap);
}

/* Hand back the held packet at dsn and count it under why. */
static void deliver_held(struct mpt_reorder *rb, uint64_t dsn, enum mpt_reorder_why why)
{
	struct mpt_reorder_slot *s = slot_of(rb, dsn);
	void *pkt = s->pkt;

	s->held = false;
	s->pkt = NULL;
	s->done_dsn = dsn;
	rb->nheld--;
	switch (why) {
	case MPT_REORDER_IN_ORDER: rb->st.in_order++; break;
	case MPT_REORDER_TIMEOUT: rb->st.timeout++; break;
	case MPT_REORDER_OVERFLOW: rb->st.overflow++; break;
	case MPT_REORDER_LATE: rb->st.late++; break;
	case MPT_REORDER_FLUSH: rb->st.flushed++; break;
	}
	rb->release(rb->arg, dsn, pkt, s->len, why);
}

/* Minimum arrival time over the held packets: when the hole at next appeared. */
static void update_hole_since(struct mpt_reorder *rb)
{
	uint64_t min = UINT64_MAX;

	if (!rb->nheld)
		return;
	for (uint64_t d = rb->next; d <= rb->high; d++) {
		const struct mpt_reorder_slot *s = slot_of(rb, d);

		if (s->held && s->arrival_ns < min)
			min = s->arrival_ns;
	}
	rb->hole_since_ns = min;
}

/* Release the contiguous run of held packets at next; true if any left. */
static bool release_run(struct mpt_reorder *rb, enum mpt_reorder_why why)
{
	bool any = false;

	while (rb->nheld && slot_of(rb, rb->next)->held) {
		deliver_held(rb, rb->next, why);
		rb->next++;
		any = true;
	}
	return any;
}

/* Give up the hole at next: jump to the lowest held DSN and release from there. A
 * timeout remembers in each skipped slot when its hole appeared (the learned hold). */
static void skip_hole(struct mpt_reorder *rb, enum mpt_reorder_why why)
{
	uint64_t d = rb->next;

	for (struct mpt_reorder_slot *s; !(s = slot_of(rb, d))->held; d++) {
		if (why != MPT_REORDER_TIMEOUT)
			continue;
		s->skip_dsn = d;
		s->skip_since_ns = rb->hole_since_ns;
	}
	rb->st.holes_skipped += d - rb->next;
	rb->next = d;
	release_run(rb, why);
	update_hole_since(rb);
}

static void release_all(struct mpt_reorder *rb)
{
	if (!rb->nheld)
		return;
	for (uint64_t d = rb->next; d <= rb->high && rb->nheld; d++)
		if (slot_of(rb, d)->held)
			deliver_held(rb, d, MPT_REORDER_FLUSH);
}

void mpt_reorder_flush(struct mpt_reorder *rb)
{
	release_all(rb);
	clear_history(rb);
	rb->synced = false;
	rb->stale_run = 0;
	rb->fill_ns = 0;
	rb->hold_until_ns = 0;
}

static void resync(struct mpt_reorder *rb, uint64_t dsn)
{
	mpt_reorder_flush(rb);
	rb->synced = true;
	rb->next = dsn;
	rb->st.resyncs++;
}

void mpt_reorder_free(struct mpt_reorder *rb)
{
	if (!rb->slot)
		return;
	release_all(rb);
	free(rb->slot);
	rb->slot = NULL;
}

static uint64_t hold_cap(const struct mpt_reorder *rb)
{
	return rb->max_hold_ns ? MPT_MAX(rb->max_hold_ns, MPT_REORDER_SPREAD_MAX_NS) : 0;
}

uint64_t mpt_reorder_hold_now(const struct mpt_reorder *rb)
{
	if (!rb->hold_ns)
		return 0;	/* holding is off */
	return MPT_MIN(rb->hold_ns + rb->learned_ns, hold_cap(rb));
}

/* A packet of a timed-out hole came at now: the hold grows to what it needed (reorder.h);
 * without such a packet for MPT_REORDER_LEARN_DECAY_NS the learned part halves. */
static void learn_hold(struct mpt_reorder *rb, const struct mpt_reorder_slot *s,
		       uint64_t dsn, uint64_t now)
{
	uint64_t need;

	if (s && s->skip_dsn == dsn && now > s->skip_since_ns) {
		need = now - s->skip_since_ns + rb->margin_ns;
		if (need > rb->hold_ns + rb->learned_ns) {
			rb->learned_ns = need - rb->hold_ns;
			rb->learned_at_ns = now;
			rb->st.hold_raises++;
		}
		return;
	}
	if (rb->learned_ns && now - rb->learned_at_ns >= MPT_REORDER_LEARN_DECAY_NS) {
		rb->learned_ns /= 2;
		rb->learned_at_ns = now;
	}
}

/* dsn is older than the history: true when it completes MPT_REORDER_RESYNC_RUN packets
 * in a row from a numbering that restarted (reorder.h): each more than
 * MPT_REORDER_RESTART_GAP below the release point, each within the window above the
 * one before. Late packets of holes an overflow gave up are not: they lie within the
 * DSNs recently sent, and resyncing on one would flush every held packet and put the
 * release point back behind everything the faster paths deliver next. */
static bool restart_run(struct mpt_reorder *rb, uint64_t dsn)
{
	if (rb->next - dsn <= MPT_REORDER_RESTART_GAP) {
		rb->stale_run = 0;
		return false;
	}
	if (rb->stale_run && dsn - rb->stale_dsn > rb->cap)
		rb->stale_run = 0;	/* not the next of the same new numbering */
	rb->stale_dsn = dsn;
	return ++rb->stale_run >= MPT_REORDER_RESYNC_RUN;
}

/* dsn < next: a late packet, a duplicate, or a sign the sender restarted. */
static int insert_below(struct mpt_reorder *rb, uint64_t dsn, void *pkt, uint32_t len,
			uint64_t now, bool resent)
{
	struct mpt_reorder_slot *s = slot_of(rb, dsn);

	if (rb->next - dsn <= rb->cap) {
		rb->stale_run = 0;
		if (s->done_dsn == dsn) {
			rb->st.duplicate++;
			return -EEXIST;
		}
		/* the slot may hold dsn + cap; only its history changes; a late
		 * repair shows a loss the hold rightly gave up (reorder.h) */
		learn_hold(rb, resent ? NULL : s, dsn, now);
		s->done_dsn = dsn;
		rb->st.late++;
		rb->st.late_resent += resent;
		rb->release(rb->arg, dsn, pkt, len, MPT_REORDER_LATE);
		return 0;
	}
	if (!restart_run(rb, dsn)) {
		rb->st.stale++;
		return -ESTALE;
	}
	resync(rb, dsn);
	return 1;	/* now in order: the caller goes on */
}

int mpt_reorder_insert(struct mpt_reorder *rb, uint64_t dsn, void *pkt, uint32_t len,
		       uint64_t now)
{
	return mpt_reorder_insert_from(rb, dsn, pkt, len, now, false);
}

int mpt_reorder_insert_from(struct mpt_reorder *rb, uint64_t dsn, void *pkt, uint32_t len,
			    uint64_t now, bool resent)
{
	struct mpt_reorder_slot *s;

	if (!rb->slot && alloc_slots(rb) < 0)
		return -ENOMEM;
	if (!rb->synced) {
		rb->synced = true;
		rb->next = dsn;
	}
	if (dsn < rb->next) {
		int ret = insert_below(rb, dsn, pkt, len, now, resent);

		if (ret <= 0)
			return ret;
	} else {
		rb->stale_run = 0;
		learn_hold(rb, NULL, dsn, now);		/* the decay */
	}

	if (rb->grow_max > rb->cap)
		grow_for(rb, dsn);
	if (dsn - rb->next >= rb->cap) {
		while (rb->nheld && dsn - rb->next >= rb->cap)
			skip_hole(rb, MPT_REORDER_OVERFLOW);
		if (dsn - rb->next >= rb->cap)
			resync(rb, dsn);	/* nothing held: a jump, not a hole */
	}

	s = slot_of(rb, dsn);
	if (dsn == rb->next) {
		if (rb->nheld)
			rb->fill_ns = now;	/* a hole filled: progress */
		s->done_dsn = dsn;
		rb->next++;
		rb->st.in_order++;
		rb->release(rb->arg, dsn, pkt, len, MPT_REORDER_IN_ORDER);
		if (release_run(rb, MPT_REORDER_IN_ORDER))
			update_hole_since(rb);
		return 0;
	}
	if (s->held) {
		rb->st.duplicate++;
		return -EEXIST;
	}
	s->held = true;
	s->pkt = pkt;
	s->len = len;
	s->arrival_ns = now;
	if (!rb->nheld) {
		rb->hole_since_ns = now;
		rb->high = dsn;
	} else if (dsn > rb->high) {
		rb->high = dsn;
	}
	rb->nheld++;
	rb->st.held++;
	return 0;
}

/* When the hole at next is given up (nheld > 0). */
static uint64_t deadline(const struct mpt_reorder *rb)
{
	uint64_t from = rb->hole_since_ns;

	if (rb->fill_restarts && rb->fill_ns > from)
		from = rb->fill_ns;
	return MPT_MAX(from + mpt_reorder_hold_now(rb), rb->hold_until_ns);
}

uint64_t mpt_reorder_next_deadline(const struct mpt_reorder *rb)
{
	return rb->nheld ? deadline(rb) : 0;
}

void mpt_reorder_on_timeout(struct mpt_reorder *rb, uint64_t now)
{
	while (rb->nheld && deadline(rb) <= now)
		skip_hole(rb, MPT_REORDER_TIMEOUT);
}

void mpt_reorder_hold_until(struct mpt_reorder *rb, uint64_t until_ns)
{
	if (rb->nheld && until_ns > deadline(rb))
		rb->st.holds_extended++;
	if (until_ns > rb->hold_until_ns)
		rb->hold_until_ns = until_ns;
}

void mpt_reorder_set_fill_restarts(struct mpt_reorder *rb, bool on)
{
	rb->fill_restarts = on;
}

void mpt_reorder_set_hold(struct mpt_reorder *rb, uint64_t hold_ns)
{
	uint64_t cap = hold_cap(rb);

	rb->hold_ns = hold_ns < cap ? hold_ns : cap;
}

/* Half the spread of the known RTTs plus margin, at most MPT_REORDER_SPREAD_MAX_NS;
 * UINT64_MAX with no sample. */
static uint64_t spread_hold(const uint64_t *srtt_ns, unsigned n, uint64_t margin_ns)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!srtt_ns[i])
			continue;
		lo = MPT_MIN(lo, srtt_ns[i]);
		hi = MPT_MAX(hi, srtt_ns[i]);
	}
	if (!hi)
		return UINT64_MAX;
	return MPT_MIN((hi - lo) / 2 + margin_ns, MPT_REORDER_SPREAD_MAX_NS);
}

uint64_t mpt_reorder_hold_from_rtts(const uint64_t *srtt_ns, unsigned n,
				    uint64_t margin_ns, uint64_t max_hold_ns)
{
	uint64_t spread = spread_hold(srtt_ns, n, margin_ns);

	return spread != UINT64_MAX && max_hold_ns ? spread : max_hold_ns;
}

uint64_t mpt_reorder_hold_repair(const uint64_t *srtt_ns, unsigned n, uint64_t margin_ns,
				 uint64_t max_hold_ns)
{
	uint64_t hi = 0, hold;

	for (unsigned i = 0; i < n; i++)
		hi = MPT_MAX(hi, srtt_ns[i]);
	if (!hi || !max_hold_ns)
		return max_hold_ns;
	hold = MPT_MIN(2 * hi + margin_ns, max_hold_ns);
	return MPT_MAX(hold, spread_hold(srtt_ns, n, margin_ns));	/* hi: a sample */
}
