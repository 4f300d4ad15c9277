/* SPDX-License-Identifier: MIT */
/*
 * The anchor's aggregate load per path name: in flight and cwnd summed over every
 * session that has a path of that name (the scheduler view's agg_in_flight and
 * agg_cwnd, include/mptund/sched.h; minload's scope=aggregate).
 *
 * Kept incrementally: each path remembers what it last added to its name's entry and
 * adds only the difference when its session refreshes (before a scheduler call, and
 * once per flush), so a pick never sums over sessions. A path that is not usable adds
 * nothing. At most MPT_AGG_MAX names at once; a path whose name finds no room gets no
 * aggregate (the view's agg_cwnd stays 0, which schedulers read as "not filled").
 */
#ifndef MPTUND_PATH_AGG_H
#define MPTUND_PATH_AGG_H

#include <stdint.h>

#include <mptund/common.h>

#define MPT_AGG_MAX	64

struct mpt_path_agg {
	char name[MPT_NAME_LEN];
	uint64_t in_flight, cwnd;
	uint32_t refs;			/* paths attached; 0 = free */
};

struct mpt_agg_table {
	struct mpt_path_agg e[MPT_AGG_MAX];
	unsigned n;			/* entries used so far (free ones are reused) */
};

/* A path's share: which entry, and what it added there. */
struct mpt_agg_ref {
	int idx;			/* -1: not attached */
	uint64_t in_flight, cwnd;
};

static inline void mpt_agg_ref_init(struct mpt_agg_ref *r)
{
	r->idx = -1;
	r->in_flight = r->cwnd = 0;
}

/* Attach r to name's entry if it is not attached, then make its share in_flight and
 * cwnd. Returns the entry, or NULL when the table is full. */
const struct mpt_path_agg *mpt_agg_update(struct mpt_agg_table *t, struct mpt_agg_ref *r,
					  const char *name, uint64_t in_flight,
					  uint64_t cwnd);
/* Take r's share back and detach it (the path is renamed, reset or freed). */
void mpt_agg_detach(struct mpt_agg_table *t, struct mpt_agg_ref *r);

#endif
