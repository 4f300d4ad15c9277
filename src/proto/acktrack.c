// SPDX-License-Identifier: MIT
/*
 * Per-path received packet numbers as disjoint ranges, highest first; see
 * acktrack.h for the ACK policy. Insertion walks from the highest range down (new
 * packets are nearly always at or near the top), extends or merges neighbours, or
 * opens a new range, evicting the lowest when all MPT_ACK_MAX_RANGES are in use.
 */
#include <errno.h>
#include <string.h>

#include "acktrack.h"

void mpt_acktrack_init(struct mpt_acktrack *t, uint8_t path_id, uint64_t max_ack_delay_ns,
		       uint32_t ack_every)
{
	memset(t, 0, sizeof(*t));
	t->path_id = path_id;
	t->max_ack_delay_ns = max_ack_delay_ns;
	t->ack_every = ack_every ? ack_every : 1;
}

/* Open range [pn, pn] at index i; false if it would fall off the bottom. */
static bool insert_range(struct mpt_acktrack *t, unsigned i, uint64_t pn)
{
	unsigned n = t->nranges;

	if (i >= MPT_ACK_MAX_RANGES)
		return false;
	if (n == MPT_ACK_MAX_RANGES)
		n--;			/* forget the lowest */
	memmove(&t->r[i + 1], &t->r[i], (n - i) * sizeof(t->r[0]));
	memmove(&t->sent[i + 1], &t->sent[i], (n - i) * sizeof(t->sent[0]));
	t->r[i].lo = t->r[i].hi = pn;
	t->sent[i] = 0;
	t->nranges = n + 1;
	return true;
}

/* Record pn; 1 if it left or filled a gap (out of order), 0 in order, <0 error. */
static int record(struct mpt_acktrack *t, uint64_t pn)
{
	unsigned i;

	if (!t->nranges) {
		insert_range(t, 0, pn);
		return 0;
	}
	if (pn > t->r[0].hi) {
		if (pn == t->r[0].hi + 1) {
			t->r[0].hi = pn;
			t->sent[0] = 0;
			return 0;
		}
		insert_range(t, 0, pn);
		return 1;
	}
	for (i = 0; i < t->nranges; i++) {
		struct mpt_ack_range *cur = &t->r[i];

		if (pn >= cur->lo && pn <= cur->hi)
			return -EEXIST;
		if (pn > cur->hi) {
			/* between r[i-1] (above, lo > pn + 0) and r[i] */
			struct mpt_ack_range *up = &t->r[i - 1];

			if (pn == cur->hi + 1 && pn + 1 == up->lo) {
				up->lo = cur->lo;
				memmove(cur, cur + 1,
					(t->nranges - i - 1) * sizeof(*cur));
				memmove(&t->sent[i], &t->sent[i + 1],
					(t->nranges - i - 1) * sizeof(t->sent[0]));
				t->nranges--;
				t->sent[i - 1] = 0;
			} else if (pn == cur->hi + 1) {
				cur->hi = pn;
				t->sent[i] = 0;
			} else if (pn + 1 == up->lo) {
				up->lo = pn;
				t->sent[i - 1] = 0;
			} else {
				insert_range(t, i, pn);
			}
			return 1;
		}
	}
	/* below every range */
	if (pn + 1 == t->r[t->nranges - 1].lo) {
		t->r[t->nranges - 1].lo = pn;
		t->sent[t->nranges - 1] = 0;
		return 1;
	}
	return insert_range(t, t->nranges, pn) ? 1 : -ERANGE;
}

int mpt_acktrack_on_packet(struct mpt_acktrack *t, uint64_t pn, bool ack_eliciting,
			   uint64_t now)
{
	uint64_t old_largest = t->nranges ? t->r[0].hi : 0;
	bool had = t->nranges > 0;
	int ret = record(t, pn);

	if (ret == -EEXIST) {
		t->duplicates++;
		return ret;
	}
	if (ret == -ERANGE) {
		t->too_old++;
		return ret;
	}
	t->received++;
	if (!had || pn > old_largest)
		t->largest_arrival_ns = now;
	if (!ack_eliciting)
		return 0;
	if (!t->unacked_eliciting)
		t->first_unacked_ns = now;
	t->unacked_eliciting++;
	if (ret == 1)
		t->immediate = true;
	return 0;
}

void mpt_acktrack_set_frequency(struct mpt_acktrack *t, uint32_t every,
				uint64_t max_ack_delay_ns)
{
	t->ack_every = every ? every : 1;
	t->max_ack_delay_ns = max_ack_delay_ns;
}

void mpt_ackf_policy(uint64_t cwnd, uint32_t mss, uint64_t min_rtt_ns, uint16_t *threshold,
		     uint32_t *delay_us)
{
	uint64_t pkts = mss ? cwnd / mss / 8 : 0, d = min_rtt_ns / 4 / 1000;

	if (pkts < MPT_ACKF_MIN_THRESHOLD)
		pkts = MPT_ACKF_MIN_THRESHOLD;
	if (pkts > MPT_ACKF_MAX_THRESHOLD)
		pkts = MPT_ACKF_MAX_THRESHOLD;
	if (d < MPT_ACKF_MIN_DELAY_US)
		d = MPT_ACKF_MIN_DELAY_US;
	if (d > MPT_ACKF_MAX_DELAY_US)
		d = MPT_ACKF_MAX_DELAY_US;
	*threshold = (uint16_t)pkts;
	*delay_us = (uint32_t)d;
}

bool mpt_acktrack_should_ack_now(const struct mpt_acktrack *t, uint64_t now)
{
	if (!t->unacked_eliciting)
		return false;
	return t->immediate || t->unacked_eliciting >= t->ack_every ||
	       now >= t->first_unacked_ns + t->max_ack_delay_ns;
}

uint64_t mpt_acktrack_deadline(const struct mpt_acktrack *t)
{
	if (!t->unacked_eliciting)
		return 0;
	if (t->immediate || t->unacked_eliciting >= t->ack_every)
		return t->first_unacked_ns;
	return t->first_unacked_ns + t->max_ack_delay_ns;
}

int mpt_acktrack_build(const struct mpt_acktrack *t, uint64_t now,
		       struct mpt_ack_info *out)
{
	if (!t->nranges)
		return -ENODATA;
	out->path_id = t->path_id;
	out->ack_delay_ns = now > t->largest_arrival_ns ? now - t->largest_arrival_ns : 0;
	out->nranges = 0;
	for (unsigned i = 0; i < t->nranges; i++)
		if (!i || t->sent[i] < MPT_ACK_REPEAT)
			out->r[out->nranges++] = t->r[i];
	return 0;
}

void mpt_acktrack_on_ack_sent(struct mpt_acktrack *t, uint64_t now)
{
	t->unacked_eliciting = 0;
	t->immediate = false;
	t->acks_sent++;
	for (unsigned i = 0; i < t->nranges; i++)
		if (t->sent[i] < UINT8_MAX)
			t->sent[i]++;
}
