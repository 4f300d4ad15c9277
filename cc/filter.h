/* SPDX-License-Identifier: MIT */
/*
 * Shared estimators for the congestion controllers (and anyone else under cc/ or
 * sched/ that needs them):
 *
 *  - a windowed running max / min filter after Kathleen Nichols' algorithm (as the
 *    Linux kernel's win_minmax): it keeps the best, second-best and third-best samples
 *    of three successive sub-windows, so the estimate over a sliding window of length
 *    win costs three samples of memory and O(1) per update. "Time" is any monotonic
 *    unit: nanoseconds, or round trips for BBR's bandwidth filter.
 *  - an exponentially weighted moving average.
 */
#ifndef MPTUND_CC_FILTER_H
#define MPTUND_CC_FILTER_H

#include <stdbool.h>
#include <stdint.h>

struct mpt_minmax_sample {
	uint64_t t;		/* time the sample was taken */
	uint64_t v;		/* value */
};

struct mpt_minmax {
	struct mpt_minmax_sample s[3];	/* best, 2nd best, 3rd best */
};

/* Current estimate: the best sample within the window (0 before any sample). */
static inline uint64_t mpt_minmax_get(const struct mpt_minmax *m)
{
	return m->s[0].v;
}

/* Forget everything; v becomes the estimate. Returns v. */
uint64_t mpt_minmax_reset(struct mpt_minmax *m, uint64_t t, uint64_t v);
/* Add sample v at time t (t never decreases); estimate = max over (t - win, t]. */
uint64_t mpt_minmax_running_max(struct mpt_minmax *m, uint64_t win, uint64_t t,
				uint64_t v);
/* Same for the minimum (an all-zero filter counts as empty). */
uint64_t mpt_minmax_running_min(struct mpt_minmax *m, uint64_t win, uint64_t t,
				uint64_t v);

struct mpt_ewma {
	double value;
	bool valid;		/* false until the first sample */
};

/* value = (1 - alpha) value + alpha x; the first sample initialises. Returns value. */
static inline double mpt_ewma_update(struct mpt_ewma *e, double x, double alpha)
{
	if (!e->valid) {
		e->value = x;
		e->valid = true;
	} else {
		e->value += alpha * (x - e->value);
	}
	return e->value;
}

#endif
