/* SPDX-License-Identifier: MIT */
/*
 * A table of steering rules at run time (rule.h): the daemon's own (from [Rule] and
 * mptund-ctl rule) and, on the UE, the anchor's pushed ones (rules_push.c). Each entry
 * keeps its rule, the scheduler it names, a stable id and its statistics. Every change
 * bumps gen: sessions compare it to rebuild their rule slots and drop their flow
 * caches (session_rules.c). Ids survive a move and an unchanged rule on reload, so the
 * sessions keep those rules' scheduler instances and queues.
 */
#ifndef MPTUND_RULESET_H
#define MPTUND_RULESET_H

#include <stdint.h>

#include "rule.h"

struct mpt_rule_stats {
	uint64_t pkts, bytes;			/* packets classified into the rule */
	uint64_t drops;				/* its queue was full */
	uint64_t holds;				/* its scheduler held its head packet */
	uint64_t copies;			/* extra copies of redundant picks */
	uint64_t instances;			/* sessions that made its instance */
	uint64_t path_pkts[MPT_MAX_PATHS];	/* sent, per path id */
	uint64_t path_bytes[MPT_MAX_PATHS];
};

struct mpt_rule_rt {
	struct mpt_rule rule;
	const struct mpt_sched_ops *ops;
	uint32_t id;
	struct mpt_rule_stats st;
};

struct mpt_ruleset {
	struct mpt_rule_rt *r;		/* MPT_MAX_RULES entries, allocated with the first */
	unsigned n;
	uint32_t gen;			/* bumped by every change */
	uint32_t next_id;
	uint32_t id_tag;		/* or'ed into ids: two tables never share one */
	struct mpt_rule_stats dflt;	/* packets of the default rule */
};

void mpt_ruleset_init(struct mpt_ruleset *set, uint32_t id_tag);
void mpt_ruleset_free(struct mpt_ruleset *set);

/* Replace every rule by rules[0..n) (checked: mpt_rule_check). A rule equal to one
 * already there keeps its id and statistics. 0 or -ENOMEM (nothing changed). */
int mpt_ruleset_replace(struct mpt_ruleset *set, const struct mpt_rule *rules, unsigned n);
/* Insert r before position pos (>= n: at the end). -EEXIST (name taken), -ENOSPC,
 * -ENOMEM; err quotes the name. */
int mpt_ruleset_add(struct mpt_ruleset *set, const struct mpt_rule *r, unsigned pos,
		    char *err, size_t errlen);
int mpt_ruleset_del(struct mpt_ruleset *set, const char *name, char *err, size_t errlen);
int mpt_ruleset_move(struct mpt_ruleset *set, const char *name, unsigned pos, char *err,
		     size_t errlen);
/* Index of the rule called name, or -1. */
int mpt_ruleset_find(const struct mpt_ruleset *set, const char *name);

#endif
