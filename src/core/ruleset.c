// SPDX-License-Identifier: MIT
/*
 * Rule tables at run time (ruleset.h): replace, add, delete, move, each bumping the
 * generation the sessions watch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"

void mpt_ruleset_init(struct mpt_ruleset *set, uint32_t id_tag)
{
	memset(set, 0, sizeof(*set));
	set->id_tag = id_tag;
	set->gen = 1;
}

void mpt_ruleset_free(struct mpt_ruleset *set)
{
	free(set->r);
	set->r = NULL;
	set->n = 0;
	set->gen++;
}

static int ensure(struct mpt_ruleset *set)
{
	if (!set->r)
		set->r = calloc(MPT_MAX_RULES, sizeof(*set->r));
	return set->r ? 0 : -ENOMEM;
}

static void fill(struct mpt_ruleset *set, struct mpt_rule_rt *e, const struct mpt_rule *r)
{
	memset(e, 0, sizeof(*e));
	e->rule = *r;
	e->ops = mpt_sched_find(r->sched);
	e->id = set->id_tag | (++set->next_id & 0x7fffffffu);
}

int mpt_ruleset_find(const struct mpt_ruleset *set, const char *name)
{
	for (unsigned i = 0; i < set->n; i++)
		if (strcmp(set->r[i].rule.name, name) == 0)
			return (int)i;
	return -1;
}

int mpt_ruleset_replace(struct mpt_ruleset *set, const struct mpt_rule *rules, unsigned n)
{
	struct mpt_rule_rt *nr;

	if (n > MPT_MAX_RULES)
		return -ENOSPC;
	if (!n && !set->r)
		return 0;
	nr = calloc(MPT_MAX_RULES, sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		int old = mpt_ruleset_find(set, rules[i].name);

		if (old >= 0 && mpt_rule_equal(&set->r[old].rule, &rules[i])) {
			nr[i] = set->r[old];		/* same rule: same id, its counters */
			nr[i].rule = rules[i];
		} else {
			fill(set, &nr[i], &rules[i]);
		}
	}
	free(set->r);
	set->r = nr;
	set->n = n;
	set->gen++;
	return 0;
}

int mpt_ruleset_add(struct mpt_ruleset *set, const struct mpt_rule *r, unsigned pos,
		    char *err, size_t errlen)
{
	if (mpt_ruleset_find(set, r->name) >= 0) {
		snprintf(err, errlen, "a rule '%s' exists: delete it first", r->name);
		return -EEXIST;
	}
	if (set->n >= MPT_MAX_RULES) {
		snprintf(err, errlen, "rule '%s': the table is full (%d rules)", r->name,
			 MPT_MAX_RULES);
		return -ENOSPC;
	}
	if (ensure(set) < 0) {
		snprintf(err, errlen, "rule '%s': out of memory", r->name);
		return -ENOMEM;
	}
	if (pos > set->n)
		pos = set->n;
	memmove(&set->r[pos + 1], &set->r[pos], (set->n - pos) * sizeof(*set->r));
	fill(set, &set->r[pos], r);
	set->n++;
	set->gen++;
	return 0;
}

int mpt_ruleset_del(struct mpt_ruleset *set, const char *name, char *err, size_t errlen)
{
	int i = mpt_ruleset_find(set, name);

	if (i < 0) {
		snprintf(err, errlen, "no rule '%s'", name);
		return -ENOENT;
	}
	memmove(&set->r[i], &set->r[i + 1], (set->n - (unsigned)i - 1) * sizeof(*set->r));
	set->n--;
	set->gen++;
	return 0;
}

int mpt_ruleset_move(struct mpt_ruleset *set, const char *name, unsigned pos, char *err,
		     size_t errlen)
{
	int i = mpt_ruleset_find(set, name);
	struct mpt_rule_rt tmp;

	if (i < 0) {
		snprintf(err, errlen, "no rule '%s'", name);
		return -ENOENT;
	}
	if (pos >= set->n)
		pos = set->n - 1;
	tmp = set->r[i];
	memmove(&set->r[i], &set->r[i + 1], (set->n - (unsigned)i - 1) * sizeof(*set->r));
	memmove(&set->r[pos + 1], &set->r[pos], (set->n - 1 - pos) * sizeof(*set->r));
	set->r[pos] = tmp;
	set->gen++;
	return 0;
}
