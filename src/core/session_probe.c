// SPDX-License-Identifier: MIT
/*
 * Idle probing on the UE: while a path carries no data and answers its PROBEs, each
 * PROBE doubles the interval to the next, up to IdleProbeInterval, so that 1,000 idle
 * UEs do not keep their anchor busy answering (the anchor sends none of its own on a
 * quiet session, session_idle.c). A PROBE that went unanswered, a path that is down
 * or data since the last PROBE: back to ProbeInterval. An idle path that died is
 * found when its next PROBE goes unacknowledged: a PROBE counts in flight, and the
 * dead-path rule (mpt_session_check_dead: 1.5 PTO, at least 30 ms) takes the path
 * down; the miss limit, which counts the interval in force, is the bound for a path
 * that answers nothing. Data on a silent path ends the backoff at once
 * (mpt_session_data_seen). The backoff goes no further than the anchor's idle hint
 * (wire.h) says its quiet sessions' paths may be silent, and not at all before the
 * anchor said it: an anchor older than the backoff wakes to probe a path silent for
 * ProbeInterval x ProbeMissLimit, and its PROBEs would wake the UE in turn. The timer
 * (session_timer.c) sends the PROBEs; this file only says when.
 */
#include <stdint.h>

#include "daemon.h"
#include "session.h"

uint64_t mpt_session_probe_ivl(const struct mpt_session *s, const struct mpt_path *p)
{
	return MPT_MAX(p->probe_ivl_ns, s->d->cfg.probe_interval_ns);
}

uint64_t mpt_session_next_probe_ivl(const struct mpt_session *s, const struct mpt_path *p)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t base = cfg->probe_interval_ns;
	/* no further than the anchor lets a quiet path be silent (its idle hint) */
	uint64_t top = MPT_MIN(cfg->idle_probe_max_ns, s->peer_idle_ns);

	if (cfg->role != MPT_ROLE_UE || top <= base || !p->alive ||
	    !p->probe_sent_ns || p->last_rx_ns < p->probe_sent_ns ||
	    s->last_data_ns >= p->probe_sent_ns)
		return base;
	return MPT_MIN(2 * mpt_session_probe_ivl(s, p), top);
}

uint32_t mpt_session_idle_hint_ms(const struct mpt_session *s)
{
	const struct mpt_config *cfg = &s->d->cfg;

	if (cfg->role != MPT_ROLE_ANCHOR || cfg->idle_probe_max_ns <= cfg->probe_interval_ns)
		return 0;
	return (uint32_t)MPT_MIN(cfg->idle_probe_max_ns / MPT_NSEC_PER_MSEC, UINT32_MAX);
}

void mpt_session_on_idle_hint(struct mpt_session *s, uint32_t ms)
{
	uint64_t ns = (uint64_t)ms * MPT_NSEC_PER_MSEC;

	if (s->d->cfg.role != MPT_ROLE_UE || ns == s->peer_idle_ns)
		return;
	s->peer_idle_ns = ns;
	/* a path already further apart comes back under it with its next PROBE */
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *q = &s->paths[i];

		if (q->probe_ivl_ns > ns) {
			q->probe_ivl_ns = MPT_MAX(ns, s->d->cfg.probe_interval_ns);
			q->next_probe_ns = MPT_MIN(q->next_probe_ns,
						   q->probe_sent_ns + q->probe_ivl_ns);
		}
	}
}

void mpt_session_data_seen(struct mpt_session *s, uint64_t now)
{
	uint64_t base = s->d->cfg.probe_interval_ns;
	bool was_idle = now - s->last_data_ns > base;

	s->last_data_ns = now;
	if (!was_idle)
		return;		/* the per-packet cost: this test */
	/* the session wakes: its silent paths are probed at once and judged from now */
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *q = &s->paths[i];

		if (q->probe_ivl_ns <= base)
			continue;
		q->probe_ivl_ns = base;
		q->judged_from_ns = now;
		q->next_probe_ns = now;
		s->probe_reset_ns = now;
	}
}

uint64_t mpt_session_silent_deadline(const struct mpt_session *s)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t ivl = cfg->probe_interval_ns;

	for (unsigned i = 0; i < s->npaths; i++)
		if (s->paths[i].used)
			ivl = MPT_MAX(ivl, mpt_session_probe_ivl(s, &s->paths[i]));
	return MPT_MAX(s->last_auth_rx_ns, s->probe_reset_ns) + ivl * cfg->probe_miss_limit;
}

