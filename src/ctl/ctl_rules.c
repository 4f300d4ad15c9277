// SPDX-License-Identifier: MIT
/*
 * Steering rules on the control socket: rule_list, rule op=add|del|move, and the
 * rules' statistics in the stats dump (so in metrics and watch too). A change bumps
 * the table's generation: every session picks it up at its next packet (new flows
 * and old ones alike, through the flow cache), and the sessions are flushed now so
 * that packets of a deleted rule leave through the default rule.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_rules.h"
#include "daemon.h"
#include "log.h"
#include "session_rules.h"
#include "sys.h"

static unsigned queued_for(const struct mpt_daemon *d, uint32_t id)
{
	unsigned n = 0;

	for (unsigned si = 0; si < d->nsessions; si++) {
		const struct mpt_srules *rl = d->sessions[si].rules;

		for (unsigned i = 0; rl && i < rl->nslots; i++)
			if (rl->inst[i] && rl->inst[i]->id == id)
				n += rl->inst[i]->q.pkts;
	}
	return n;
}

static unsigned queued_default(const struct mpt_daemon *d)
{
	unsigned n = 0;

	for (unsigned si = 0; si < d->nsessions; si++)
		if (d->sessions[si].rules)
			n += d->sessions[si].rules->dq.pkts;
	return n;
}

static void dump_stats(struct mpt_ctl_out *out, const char *pre, const char *name,
		       const char *sched, const struct mpt_rule_stats *st, unsigned queued)
{
	mpt_ctl_outf(out, "%s.name=%s", pre, name);
	mpt_ctl_outf(out, "%s.scheduler=%s", pre, sched);
	mpt_ctl_outf(out, "%s.pkts=%llu", pre, (unsigned long long)st->pkts);
	mpt_ctl_outf(out, "%s.bytes=%llu", pre, (unsigned long long)st->bytes);
	mpt_ctl_outf(out, "%s.drop_pkts=%llu", pre, (unsigned long long)st->drops);
	mpt_ctl_outf(out, "%s.holds=%llu", pre, (unsigned long long)st->holds);
	mpt_ctl_outf(out, "%s.copies=%llu", pre, (unsigned long long)st->copies);
	mpt_ctl_outf(out, "%s.instances=%llu", pre, (unsigned long long)st->instances);
	mpt_ctl_outf(out, "%s.queue_pkts=%u", pre, queued);
	for (unsigned p = 0; p < MPT_MAX_PATHS; p++) {
		if (!st->path_pkts[p])
			continue;
		mpt_ctl_outf(out, "%s.path_pkts.%u=%llu", pre, p,
			     (unsigned long long)st->path_pkts[p]);
		mpt_ctl_outf(out, "%s.path_bytes.%u=%llu", pre, p,
			     (unsigned long long)st->path_bytes[p]);
	}
}

void mpt_ctl_rules_dump(struct mpt_ctl_out *out, const struct mpt_daemon *d)
{
	const struct mpt_ruleset *set = &d->rules;
	char pre[32];

	if (!set->n && !set->dflt.pkts && !(d->nsessions && d->sessions[0].rules))
		return;		/* never had rules: nothing to say */
	for (unsigned i = 0; i < set->n; i++) {
		snprintf(pre, sizeof(pre), "rule.%u", i);
		dump_stats(out, pre, set->r[i].rule.name, set->r[i].rule.sched, &set->r[i].st,
			   queued_for(d, set->r[i].id));
	}
	dump_stats(out, "rule_default", "default", d->cfg.sched, &set->dflt,
		   queued_default(d));
	if (d->cfg.role != MPT_ROLE_UE || !d->nsessions || !d->sessions[0].rules)
		return;
	set = &d->sessions[0].rules->pushed;
	for (unsigned i = 0; i < set->n; i++) {
		snprintf(pre, sizeof(pre), "pushed_rule.%u", i);
		dump_stats(out, pre, set->r[i].rule.name, set->r[i].rule.sched, &set->r[i].st,
			   queued_for(d, set->r[i].id));
	}
}

static void list_set(struct mpt_ctl_out *out, const char *pre, const struct mpt_ruleset *set)
{
	char spec[MPT_RULE_SPEC_MAX];

	for (unsigned i = 0; i < set->n; i++) {
		if (mpt_rule_format(&set->r[i].rule, spec, sizeof(spec)) < 0)
			snprintf(spec, sizeof(spec), "(too long)");
		mpt_ctl_outf(out, "%s.%u.name=%s", pre, i, set->r[i].rule.name);
		mpt_ctl_outf(out, "%s.%u.spec=%s", pre, i, spec);
		mpt_ctl_outf(out, "%s.%u.pkts=%llu", pre, i,
			     (unsigned long long)set->r[i].st.pkts);
	}
}

/* A rule from the request's r.KEY=V keys, checked as [Rule] is. */
static int rule_from_req(const struct mpt_daemon *d, const struct mpt_ctl_req *req,
			 struct mpt_rule *r, char *err, size_t errlen)
{
	const char *name = mpt_ctl_req_get(req, "name");
	int line, ret;

	mpt_rule_init(r);
	if (name && (ret = mpt_rule_set(r, "Name", name, err, errlen)) < 0)
		return ret;
	for (unsigned k = 0; k < req->nkv; k++) {
		if (strncmp(req->kv[k].key, "r.", 2) != 0)
			continue;
		ret = mpt_rule_set(r, req->kv[k].key + 2, req->kv[k].val, err, errlen);
		if (ret < 0)
			return ret;
	}
	ret = mpt_rule_check(r, &line, err, errlen);
	if (ret < 0)
		return ret;
	if (r->peer[0] && d->cfg.role == MPT_ROLE_UE) {
		snprintf(err, errlen, "Peer: '%s': only the anchor's rules name a peer",
			 r->peer);
		return -EINVAL;
	}
	for (unsigned i = 0; r->peer[0] && i < d->cfg.npeers; i++)
		if (strcmp(d->cfg.peers[i].name, r->peer) == 0)
			return 0;
	if (r->peer[0]) {
		snprintf(err, errlen, "Peer: '%s' is not the Name of a [Peer]", r->peer);
		return -EINVAL;
	}
	return 0;
}

static int rule_change(struct mpt_daemon *d, const struct mpt_ctl_req *req, char *err,
		       size_t errlen)
{
	const char *op = mpt_ctl_req_get(req, "op"), *name = mpt_ctl_req_get(req, "name");
	struct mpt_rule r;
	uint32_t pos;
	int ret;

	ret = mpt_ctl_req_u32(req, "pos", MPT_MAX_RULES, 0, MPT_MAX_RULES, &pos, err, errlen);
	if (ret < 0)
		return ret;
	if (!strcmp(op, "add")) {
		ret = rule_from_req(d, req, &r, err, errlen);
		if (ret == 0)
			ret = mpt_ruleset_add(&d->rules, &r, pos, err, errlen);
		name = r.name;
	} else if (!strcmp(op, "del") || !strcmp(op, "move")) {
		if (!name) {
			snprintf(err, errlen, "rule %s: name= is required", op);
			return -EINVAL;
		}
		if (!strcmp(op, "move") && !mpt_ctl_req_get(req, "pos")) {
			snprintf(err, errlen, "rule move: pos= is required");
			return -EINVAL;
		}
		ret = !strcmp(op, "del") ? mpt_ruleset_del(&d->rules, name, err, errlen)
					 : mpt_ruleset_move(&d->rules, name, pos, err, errlen);
	} else {
		snprintf(err, errlen, "op: '%s' is not add, del or move", op);
		return -EINVAL;
	}
	if (ret < 0)
		return ret;
	log_info("rule %s: %s (%u rule(s))", name, op, d->rules.n);
	for (unsigned i = 0; i < d->nsessions; i++)
		if (d->sessions[i].rules)
			mpt_daemon_mark(d, &d->sessions[i]);
	mpt_daemon_flush_dirty(d, mpt_now_ns());
	return 0;
}

int mpt_ctl_rules_cmd(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct mpt_daemon *d = ctx;
	char err[256];
	int ret;

	if (req->cmd == MPT_CTL_CMD_RULE_LIST) {
		list_set(out, "rule", &d->rules);
		if (d->cfg.role == MPT_ROLE_UE && d->nsessions && d->sessions[0].rules)
			list_set(out, "pushed_rule", &d->sessions[0].rules->pushed);
		return 0;
	}
	ret = rule_change(d, req, err, sizeof(err));
	if (ret < 0)
		mpt_ctl_outf(out, "message=%s", err);
	return ret;
}
