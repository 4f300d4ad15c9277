// SPDX-License-Identifier: MIT
/*
 * Scheduler events (issue 13): the ATSSS steering modes report threshold crossings
 * and traffic switches through the optional drain_events op; the core drains them
 * after scheduling, logs each at info level and keeps the latest, with a count, for
 * `mptund-ctl stats` / `watch` (session.N.sched_event, session.N.sched_events).
 */
#include <stdio.h>

#include "log.h"
#include "session.h"
#include "session_rules.h"

#define DRAIN_MAX 8

static const char *path_name(const struct mpt_path_view *views, unsigned npaths, int i)
{
	return i >= 0 && (unsigned)i < npaths ? views[i].name : "none";
}

int mpt_sched_event_format(const struct mpt_sched_event *e,
			   const struct mpt_path_view *views, unsigned npaths,
			   char *buf, size_t len)
{
	const char *name = path_name(views, npaths, e->path);

	switch (e->kind) {
	case MPT_SCHED_EV_RTT:
		return snprintf(buf, len, "%s: rtt %.1f ms %s %.1f ms", name, e->value,
				e->on ? "above threshold" : "back below", e->threshold);
	case MPT_SCHED_EV_LOSS:
		return snprintf(buf, len, "%s: loss %.2f%% %s %.2f%%", name, 100 * e->value,
				e->on ? "above threshold" : "back below", 100 * e->threshold);
	case MPT_SCHED_EV_SWITCH:
		return snprintf(buf, len, "traffic moved to %s from %s", name,
				path_name(views, npaths, (int)e->value));
	}
	return snprintf(buf, len, "event %u on %s", e->kind, name);
}

/* Drain one scheduler instance's events; label names a rule's instance ("" for the
 * session's own scheduler). */
static void drain(struct mpt_session *s, const struct mpt_sched_ops *ops, void *priv,
		  const char *label)
{
	struct mpt_sched_event ev[DRAIN_MAX];
	unsigned n;

	if (!ops || !ops->drain_events)
		return;
	do {
		n = ops->drain_events(priv, ev, DRAIN_MAX);
		for (unsigned i = 0; i < n; i++) {
			mpt_sched_event_format(&ev[i], s->views, s->npaths, s->sched_event,
					       sizeof(s->sched_event));
			s->st.sched_events++;
			log_info("%s: %s%s%s: %s", s->name, label, *label ? " " : "", ops->name,
				 s->sched_event);
		}
	} while (n == DRAIN_MAX);
}

void mpt_session_sched_events(struct mpt_session *s)
{
	struct mpt_srules *rl = s->rules;
	char label[MPT_NAME_LEN + 8];

	drain(s, s->sched, s->sched_priv, "");
	if (!rl)
		return;
	for (unsigned i = 0; i < rl->nslots; i++) {	/* the rules' own instances */
		struct mpt_rinst *in = rl->inst[i];

		if (!in || !in->ops->drain_events)
			continue;
		snprintf(label, sizeof(label), "rule %s:",
			 rl->slot[i] ? rl->slot[i]->rule.name : "?");
		drain(s, in->ops, in->priv, label);
	}
}
