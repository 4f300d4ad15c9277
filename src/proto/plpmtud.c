// SPDX-License-Identifier: MIT
/* Packetization-layer path MTU discovery for one path (RFC 8899): see plpmtud.h. */
#include <string.h>

#include <mptund/common.h>

#include "plpmtud.h"

static uint64_t probe_timer(uint64_t rtt)
{
	return MPT_MAX(MPT_PMTU_PROBE_RTTS * rtt, MPT_PMTU_PROBE_MIN_NS);
}

void mpt_plpmtud_init(struct mpt_plpmtud *m, uint16_t base, uint16_t max, uint16_t pinned)
{
	memset(m, 0, sizeof(*m));
	if (max < base)
		max = base;
	m->base = base;
	m->max = max;
	m->plpmtu = base;
	m->fail = (uint16_t)(max + 1u);
	m->state = MPT_PMTU_BASE;
	m->optimistic = true;
	m->raise_ns = MPT_PMTU_RAISE_NS;
	if (pinned) {
		m->plpmtu = pinned;
		m->state = MPT_PMTU_PINNED;
	}
}

static void end_round(struct mpt_plpmtud *m)
{
	m->resent = false;
	m->resending = false;
	m->round_timed = false;
	m->round_sent = 0;
	m->nround = 0;
	m->round_acked = 0;
	m->round_acks = 0;
}

void mpt_plpmtud_start(struct mpt_plpmtud *m, uint64_t now)
{
	if (m->state == MPT_PMTU_PINNED)
		return;
	m->plpmtu = m->base;
	m->fail = (uint16_t)(m->max + 1u);
	m->hint = 0;
	end_round(m);
	m->big_lost = 0;
	m->confirming = false;
	m->optimistic = true;
	m->state = MPT_PMTU_SEARCHING;
	m->probe_rtt_ns = 0;
	m->probe_deadline_ns = now;	/* the first round goes at once */
	m->searches++;
}

uint16_t mpt_plpmtud_cap(const struct mpt_plpmtud *m)
{
	switch (m->state) {
	case MPT_PMTU_PINNED:
	case MPT_PMTU_COMPLETE:
		return m->plpmtu;
	default:
		if (m->hint > m->plpmtu)
			return m->hint;
		return m->optimistic ? (uint16_t)(m->fail - 1u) : m->plpmtu;
	}
}

/* Search again from what is confirmed, below fail. */
static void research(struct mpt_plpmtud *m, uint64_t now)
{
	m->state = MPT_PMTU_SEARCHING;
	end_round(m);
	m->confirming = false;		/* a search decides it */
	m->big_lost = 0;
	m->probe_rtt_ns = 0;		/* the path's delay may have changed: the first
					 * round times itself from the caller's bound */
	m->probe_deadline_ns = now;
	m->searches++;
}

/* The sizes of the next round, 0 when the search is over: a PTB's hint, the top of
 * the open range (the maximum on a first search), and sizes spread evenly below. */
static unsigned next_round(struct mpt_plpmtud *m, uint16_t *sizes)
{
	unsigned lo = m->plpmtu, hi = m->fail, n = 0, slots;

	if (m->hint > lo && m->hint < hi)
		sizes[n++] = m->hint;
	if (hi - lo <= 1u)
		return n;
	if (!n)
		sizes[n++] = (uint16_t)(hi - 1u);
	slots = MPT_PMTU_ROUND - n;
	hi = sizes[n - 1];		/* spread below the top one */
	for (unsigned j = 1; j <= slots && hi - lo > 1u; j++) {
		unsigned s = lo + (hi - lo) * j / (slots + 1u);

		if (s > lo && s != sizes[n - 1])
			sizes[n++] = (uint16_t)s;
	}
	return n;
}

static void complete(struct mpt_plpmtud *m, uint64_t now)
{
	if (m->raise_from) {		/* a raise search: did it find more? */
		m->raise_ns = m->plpmtu > m->raise_from ? MPT_PMTU_RAISE_NS
			: (2 * m->raise_ns < MPT_PMTU_RAISE_NS ? 2 * m->raise_ns : MPT_PMTU_RAISE_NS);
		m->raise_from = 0;
	}
	m->state = MPT_PMTU_COMPLETE;
	m->optimistic = false;
	m->hint = 0;
	m->raise_at_ns = now + m->raise_ns;
}

/* A size of the round still awaited: above what is confirmed (a confirmation round:
 * its size at the PLPMTU, the first; the base beside it decides nothing alone). */
static bool open_size(const struct mpt_plpmtud *m, unsigned i)
{
	if (m->round_acked & 1u << i)
		return false;
	return m->confirming ? i == 0 : m->round[i] > m->plpmtu;
}

/* The round is over: unanswered sizes above what is confirmed fail. */
static void close_round(struct mpt_plpmtud *m)
{
	unsigned sent = m->round_sent;

	m->probes_lost += sent > m->round_acks ? sent - m->round_acks : 0;
	for (unsigned i = 0; i < m->nround; i++) {
		uint16_t s = m->round[i];

		if (m->round_acked & 1u << i || s <= m->plpmtu || s <= m->base)
			continue;
		if (s < m->fail) {
			m->fail = s;
			m->optimistic = false;	/* a size failed: send what is confirmed */
		}
		if (m->hint >= s)
			m->hint = 0;		/* the hint did not hold */
	}
	end_round(m);
}

/* Every size of the round answered, or below an answered one: nothing to wait for. */
static bool round_settled(const struct mpt_plpmtud *m)
{
	for (unsigned i = 0; i < m->nround; i++)
		if (open_size(m, i))
			return false;
	return true;
}

/*
 * The path MTU fell (RFC 8899 4.3): PLPMTU to the base at once, the failing size the
 * new upper bound, and a search from there; the first raise comes soon.
 */
static void black_hole(struct mpt_plpmtud *m, uint16_t size, uint64_t now)
{
	m->black_holes++;
	m->raise_ns = MPT_PMTU_RAISE_FAST_NS;
	m->raise_from = 0;
	if (size < m->fail)
		m->fail = size;
	m->plpmtu = m->base;
	m->hint = 0;
	m->optimistic = false;
	research(m, now);
}

/*
 * A confirmation round is over: a black hole only when its size went unanswered
 * (both copies) while the base probe beside it was answered. Its size answered:
 * the full-size losses were congestion (a full queue drops large packets and lets
 * small ones by); nothing answered: the path is congested or dead (the dead-path
 * rule's business), not too small.
 */
static void close_confirmation(struct mpt_plpmtud *m, uint64_t now)
{
	bool big = m->round_acked & 1u, small = m->nround > 1 && (m->round_acked & 2u);
	uint16_t size = m->confirm_size;

	if (m->round_sent > m->round_acks)
		m->probes_lost += (unsigned)(m->round_sent - m->round_acks);
	m->confirming = false;
	m->big_lost = 0;
	end_round(m);
	if (big || !small) {
		m->bh_unconfirmed++;
		if (m->state == MPT_PMTU_SEARCHING)
			m->probe_deadline_ns = now;	/* the search goes on */
		return;
	}
	black_hole(m, size, now);
}

unsigned mpt_plpmtud_due(struct mpt_plpmtud *m, uint64_t now,
			 uint16_t sizes[MPT_PMTU_ROUND_MAX])
{
	unsigned n;

	if (m->state == MPT_PMTU_PINNED || m->state == MPT_PMTU_BASE)
		return 0;
	if (m->nround) {
		if (!round_settled(m) && now < m->probe_deadline_ns) {
			if (m->resent || now < m->resend_at_ns)
				return 0;
			n = 0;			/* half way: the unanswered sizes again */
			for (unsigned i = 0; i < m->nround; i++)
				if (open_size(m, i))
					sizes[n++] = m->round[i];
			m->resent = true;
			m->resending = n > 0;
			return n;
		}
		if (m->confirming)
			close_confirmation(m, now);
		else
			close_round(m);
	}
	if (m->confirming) {		/* the lost size and the base, side by side */
		m->round[0] = sizes[0] = m->confirm_size;
		m->round[1] = sizes[1] = m->base;
		m->nround = 2;
		m->round_seq = (uint16_t)(m->seq + 1u);
		return 2;
	}
	if (m->state == MPT_PMTU_COMPLETE) {
		if (now < m->raise_at_ns)
			return 0;
		m->fail = (uint16_t)(m->max + 1u);	/* RFC 8899 PMTU_RAISE_TIMER */
		m->raise_from = m->plpmtu;
		research(m, now);
	}
	n = next_round(m, sizes);
	if (!n) {
		complete(m, now);
		return 0;
	}
	sizes[n++] = m->plpmtu;		/* passes: times the round */
	memcpy(m->round, sizes, n * sizeof(sizes[0]));
	m->nround = (uint8_t)n;
	m->round_seq = (uint16_t)(m->seq + 1u);	/* the ids of its first copies */
	return n;
}

uint32_t mpt_plpmtud_probe_id(struct mpt_plpmtud *m, uint16_t size)
{
	m->seq++;
	return MPT_PMTU_PROBE_FLAG | (uint32_t)(size & 0x7fff) << 16 | m->seq;
}

void mpt_plpmtud_on_sent(struct mpt_plpmtud *m, unsigned datagrams, uint64_t timeout_ns,
			 uint64_t now)
{
	m->probes_sent += datagrams;
	m->round_sent = (uint8_t)(m->round_sent + datagrams);
	if (m->resending) {
		m->resending = false;
		return;
	}
	if (m->probe_rtt_ns)
		timeout_ns = MPT_MIN(timeout_ns, probe_timer(m->probe_rtt_ns));
	m->round_start_ns = now;
	m->probe_deadline_ns = now + timeout_ns;
	m->resend_at_ns = now + timeout_ns / 2;
}

/* The first answer to a round's first copies times the round (see plpmtud.h). */
static void time_round(struct mpt_plpmtud *m, uint32_t id, uint64_t now)
{
	uint64_t t;

	if (m->round_timed || m->resent || !m->nround ||
	    (uint16_t)((id & 0xffffu) - m->round_seq) >= m->nround)
		return;				/* not this round's first copies */
	m->round_timed = true;
	m->probe_rtt_ns = MPT_MAX(now - m->round_start_ns, 1u);
	t = probe_timer(m->probe_rtt_ns);
	m->probe_deadline_ns = MPT_MIN(m->probe_deadline_ns, m->round_start_ns + t);
	m->resend_at_ns = MPT_MIN(m->resend_at_ns, m->round_start_ns + t / 2);
}

void mpt_plpmtud_on_send_too_big(struct mpt_plpmtud *m, uint16_t size, uint64_t now)
{
	if (size <= m->base)
		return;
	if (size < m->fail)
		m->fail = size;
	if (m->max >= size)
		m->max = (uint16_t)(size - 1u);
	m->optimistic = false;
}

uint64_t mpt_plpmtud_deadline(const struct mpt_plpmtud *m)
{
	switch (m->state) {
	case MPT_PMTU_SEARCHING:
		if (m->nround && !m->resent && m->resend_at_ns < m->probe_deadline_ns)
			return m->resend_at_ns ? m->resend_at_ns : 1;
		return m->probe_deadline_ns ? m->probe_deadline_ns : 1;
	case MPT_PMTU_COMPLETE:
		if (m->nround && !m->resent)
			return m->resend_at_ns;
		return m->nround || m->confirming ? m->probe_deadline_ns : m->raise_at_ns;
	default:
		return 0;
	}
}

bool mpt_plpmtud_on_probe_ack(struct mpt_plpmtud *m, uint32_t id, uint64_t now)
{
	uint16_t size;

	if (!(id & MPT_PMTU_PROBE_FLAG))
		return false;			/* a liveness probe */
	size = (uint16_t)(id >> 16 & 0x7fff);
	m->probes_acked++;
	time_round(m, id, now);
	for (unsigned i = 0; i < m->nround; i++)
		if (m->round[i] == size) {
			m->round_acked |= (uint8_t)(1u << i);
			m->round_acks++;
		}
	if (m->state == MPT_PMTU_PINNED)
		return true;
	if (size <= m->plpmtu) {
		if (m->nround && round_settled(m))
			m->probe_deadline_ns = now;
		return true;
	}
	m->plpmtu = size;
	if (size >= m->fail)	/* a late answer for a size taken as failed */
		m->fail = (uint16_t)(size + 1u);
	if (m->hint && size == m->hint) {
		/* a PTB's size confirmed: it names the limit (RFC 8899 4.6.2) */
		m->fail = (uint16_t)(size + 1u);
		m->hint = 0;
	} else if (m->hint && m->hint <= size) {
		m->hint = 0;
	}
	if (m->nround && round_settled(m))
		m->probe_deadline_ns = now;	/* the next round at once */
	return true;
}

bool mpt_plpmtud_on_data(struct mpt_plpmtud *m, uint16_t size, uint64_t sent_ns, bool lost,
			 uint64_t now)
{
	if (m->state == MPT_PMTU_PINNED || size <= m->base)
		return false;
	if (!lost) {
		if (sent_ns >= m->big_ok_sent_ns)
			m->big_ok_sent_ns = sent_ns;
		m->big_lost = 0;
		return false;
	}
	/* sent before a full-size packet that got through: congestion, not size; or
	 * larger than what may be sent now: sent before the cap fell, nothing new */
	if (sent_ns < m->big_ok_sent_ns || size > mpt_plpmtud_cap(m))
		return false;
	if (++m->big_lost < MPT_PMTU_BH_LOSSES || m->confirming)
		return false;
	/*
	 * Losses alone do not tell a black hole from congestion: a full queue drops the
	 * large packets and lets the small ones by, as a black hole does. RFC 8899 4.3
	 * and 5.2 confirm a suspected black hole with probes of the PLPMTU's size (a
	 * black hole when MAX_PROBES of them go unanswered): a round of this size and
	 * the base confirms it (close_confirmation); a search round under way is
	 * dropped, its sizes probed again after.
	 */
	end_round(m);
	m->confirming = true;
	m->confirm_size = size;
	m->probe_rtt_ns = 0;	/* congestion may have lengthened the path's delay: the
				 * round times itself from the caller's bound */
	m->probe_deadline_ns = now;
	return true;
}

/*
 * A PTB's size is consistent (RFC 8899 4.6.2) when it lies at or above the base and
 * below the sizes that may have drawn it: while searching, below the smallest size
 * taken as failed (the probes above what is confirmed; its ICMP may come after the
 * round that sent them closed); once complete, below the PLPMTU (the path shrank).
 */
static bool ptb_consistent(const struct mpt_plpmtud *m, uint32_t mtu)
{
	if (m->state == MPT_PMTU_PINNED || mtu < m->base)
		return false;
	return mtu < (m->state == MPT_PMTU_COMPLETE ? m->plpmtu : m->fail);
}

bool mpt_plpmtud_on_ptb(struct mpt_plpmtud *m, uint32_t mtu, uint64_t now)
{
	if (!ptb_consistent(m, mtu) || mtu == m->plpmtu) {
		m->ptb_ignored++;
		return false;
	}
	m->ptb_hints++;
	if (m->hint == mtu)
		return false;		/* the same news again (one per probe too big) */
	m->hint = (uint16_t)mtu;
	if (m->plpmtu > mtu)
		m->plpmtu = m->base;
	m->optimistic = false;
	if (m->state != MPT_PMTU_SEARCHING)
		research(m, now);
	return true;
}

const char *mpt_plpmtud_state_name(const struct mpt_plpmtud *m)
{
	static const char *const names[] = {
		[MPT_PMTU_BASE] = "base",
		[MPT_PMTU_SEARCHING] = "searching",
		[MPT_PMTU_COMPLETE] = "complete",
		[MPT_PMTU_PINNED] = "pinned",
	};

	return m->state < sizeof(names) / sizeof(names[0]) ? names[m->state] : "unknown";
}
