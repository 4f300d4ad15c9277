// SPDX-License-Identifier: MIT
/* Aggregate load per path name on the anchor (see path_agg.h). */
#include <string.h>

#include "path_agg.h"

static int find_or_add(struct mpt_agg_table *t, const char *name)
{
	int free_idx = -1;

	for (unsigned i = 0; i < t->n; i++) {
		if (t->e[i].refs && !strcmp(t->e[i].name, name))
			return (int)i;
		if (!t->e[i].refs && free_idx < 0)
			free_idx = (int)i;
	}
	if (free_idx < 0) {
		if (t->n == MPT_AGG_MAX)
			return -1;
		free_idx = (int)t->n++;
	}
	memset(&t->e[free_idx], 0, sizeof(t->e[free_idx]));
	memcpy(t->e[free_idx].name, name, strnlen(name, MPT_NAME_LEN - 1));
	return free_idx;
}

const struct mpt_path_agg *mpt_agg_update(struct mpt_agg_table *t, struct mpt_agg_ref *r,
					  const char *name, uint64_t in_flight,
					  uint64_t cwnd)
{
	struct mpt_path_agg *e;

	if (r->idx < 0) {
		r->idx = find_or_add(t, name);
		if (r->idx < 0)
			return NULL;
		t->e[r->idx].refs++;
		r->in_flight = r->cwnd = 0;
	}
	e = &t->e[r->idx];
	e->in_flight += in_flight - r->in_flight;	/* modular: exact when summed */
	e->cwnd += cwnd - r->cwnd;
	r->in_flight = in_flight;
	r->cwnd = cwnd;
	return e;
}

void mpt_agg_detach(struct mpt_agg_table *t, struct mpt_agg_ref *r)
{
	struct mpt_path_agg *e;

	if (r->idx < 0)
		return;
	e = &t->e[r->idx];
	e->in_flight -= r->in_flight;
	e->cwnd -= r->cwnd;
	e->refs--;
	mpt_agg_ref_init(r);
}
