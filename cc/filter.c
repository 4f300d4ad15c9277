// SPDX-License-Identifier: MIT
/*
 * Windowed max/min filter (Kathleen Nichols' algorithm). The three kept samples are
 * ordered by time and by value: s[0] is the best of the whole window, s[1] the best
 * after s[0], s[2] the best after s[1]. A new sample that beats s[k] replaces s[k] and
 * everything after it. When s[0] leaves the window the others move up. To keep the
 * backups meaningful, s[1] is refreshed once a quarter of the window has passed with
 * no distinct second sample, and s[2] after half the window.
 *
 * One implementation serves both directions: "better(a, b)" is a >= b for the max
 * filter and a <= b for the min filter.
 */
#include "filter.h"

uint64_t mpt_minmax_reset(struct mpt_minmax *m, uint64_t t, uint64_t v)
{
	for (int i = 0; i < 3; i++) {
		m->s[i].t = t;
		m->s[i].v = v;
	}
	return v;
}

static bool better(bool is_max, uint64_t a, uint64_t b)
{
	return is_max ? a >= b : a <= b;
}

static uint64_t running(struct mpt_minmax *m, bool is_max, uint64_t win,
			const struct mpt_minmax_sample *x)
{
	uint64_t age;

	/* empty (never reset: all zero), a new best, or the whole window went by
	 * without samples: start over */
	if ((!is_max && m->s[0].v == 0 && m->s[0].t == 0) ||
	    better(is_max, x->v, m->s[0].v) || x->t - m->s[2].t > win)
		return mpt_minmax_reset(m, x->t, x->v);
	if (better(is_max, x->v, m->s[1].v)) {
		m->s[1] = *x;
		m->s[2] = *x;
	} else if (better(is_max, x->v, m->s[2].v)) {
		m->s[2] = *x;
	}

	age = x->t - m->s[0].t;
	if (age > win) {
		/* the best expired: promote the backups, at most twice */
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2] = *x;
		if (x->t - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
			m->s[2] = *x;
		}
	} else if (m->s[1].t == m->s[0].t && age > win / 4) {
		/* a quarter window passed with no second choice: take this one */
		m->s[1] = *x;
		m->s[2] = *x;
	} else if (m->s[2].t == m->s[1].t && age > win / 2) {
		/* half the window passed with no third choice */
		m->s[2] = *x;
	}
	return m->s[0].v;
}

uint64_t mpt_minmax_running_max(struct mpt_minmax *m, uint64_t win, uint64_t t,
				uint64_t v)
{
	struct mpt_minmax_sample x = { .t = t, .v = v };

	return running(m, true, win, &x);
}

uint64_t mpt_minmax_running_min(struct mpt_minmax *m, uint64_t win, uint64_t t,
				uint64_t v)
{
	struct mpt_minmax_sample x = { .t = t, .v = v };

	return running(m, false, win, &x);
}
