// SPDX-License-Identifier: MIT
/*
 * Quiet sessions on the anchor: an idle session costs no timer wake-ups of its own.
 *
 * A session is quiet when it has carried no data either way for MPT_QUIET_AFTER
 * probe intervals and nothing of it waits on a clock: no queued or held packet, nothing
 * in flight, no ACK due, no loss or probe timeout, no MTU search under way. A quiet
 * session's timer is stopped and the anchor sends no PROBEs of its own on it
 * (WireGuard's rule: the side that has nothing to say stays silent); it still answers
 * the UE's PROBEs as they come, and their PROBE_ACK carries the ACK (no delayed-ACK
 * timer either).
 *
 * Liveness goes on without a per-session timer: one daemon timer, running while any
 * session is quiet, sweeps them every max(ProbeInterval, ProbeInterval x
 * ProbeMissLimit / 2). A path of a quiet session that has heard nothing
 * authenticated for ProbeMissLimit of the UE's idle probe intervals (which back off
 * up to IdleProbeInterval, quiet_dead_after) wakes the session: probing resumes at once and the path is judged as an
 * active one is, counted from the wake-up (the UE may probe less often than we do).
 * Data in either direction wakes the session the same way.
 */
#include "daemon.h"
#include "session.h"

#define MPT_QUIET_AFTER		10	/* probe intervals without data before quiet */

static uint64_t dead_after_ns(const struct mpt_config *cfg)
{
	return cfg->probe_interval_ns * cfg->probe_miss_limit;
}

/* Something of the session waits on a clock. */
static bool session_has_timed_work(const struct mpt_session *s)
{
	if (mpt_session_waiting(s) || s->rtxq.head || mpt_reorder_next_deadline(&s->reorder))
		return true;
	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *p = &s->paths[i];

		if (!p->used)
			continue;
		if (p->txq.head || mpt_acktrack_deadline(&p->ackt))
			return true;
		/* a path that is down has only PROBEs in flight (its data went back to
		 * the scheduler when it went down): their timeouts wait for a wake-up */
		if (p->alive && (p->rec.in_flight || p->pto_at ||
				 mpt_recovery_loss_deadline(&p->rec) ||
				 p->pmtu.state == MPT_PMTU_SEARCHING))
			return true;
	}
	return false;
}

bool mpt_session_quiet(const struct mpt_session *s, uint64_t now)
{
	if (s->d->cfg.role != MPT_ROLE_ANCHOR || !s->npaths)
		return false;
	if (now < s->busy_until_ns)
		return false;
	return !session_has_timed_work(s);
}

double mpt_daemon_quiet_period(const struct mpt_daemon *d)
{
	uint64_t ns = MPT_MAX(d->cfg.probe_interval_ns, dead_after_ns(&d->cfg) / 2);

	return (double)ns / 1e9;
}

static void leave_quiet(struct mpt_session *s, uint64_t now)
{
	struct mpt_daemon *d = s->d;

	if (!s->quiet)
		return;
	s->quiet = false;
	s->woke_ns = now;
	s->st.wakeups++;
	if (--d->nquiet == 0)
		ev_timer_stop(d->loop, &d->quiet_w);
}

bool mpt_session_quiet_check(struct mpt_session *s, uint64_t now)
{
	struct mpt_daemon *d = s->d;

	if (mpt_session_quiet(s, now)) {
		if (!s->quiet && d->nquiet++ == 0) {
			ev_timer_set(&d->quiet_w, mpt_daemon_quiet_period(d), 0.0);
			ev_timer_start(d->loop, &d->quiet_w);
		}
		s->quiet = true;
		return true;
	}
	leave_quiet(s, now);
	return false;
}

void mpt_session_wake(struct mpt_session *s, uint64_t until, uint64_t now)
{
	leave_quiet(s, now);
	if (until > s->busy_until_ns)
		s->busy_until_ns = until;
	mpt_daemon_mark(s->d, s);
}

void mpt_session_note_activity(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t until = now + cfg->probe_interval_ns * MPT_QUIET_AFTER;

	if (cfg->role != MPT_ROLE_ANCHOR)
		return;
	/* cheap on the data path: written again only when half the span is gone */
	if (!s->quiet && s->busy_until_ns > now + cfg->probe_interval_ns * (MPT_QUIET_AFTER / 2))
		return;
	mpt_session_wake(s, until, now);
}

uint64_t mpt_session_heard_ns(const struct mpt_session *s, const struct mpt_path *p)
{
	uint64_t t = MPT_MAX(p->last_rx_ns, p->judged_from_ns);

	if (s->d->cfg.role == MPT_ROLE_ANCHOR) {
		t = MPT_MAX(t, s->woke_ns);
		if (s->quiet)
			t = MPT_MAX(t, p->last_auth_rx_ns);
	}
	return t;
}

/* How long a quiet session's path may stay silent: the UE's PROBEs back off while
 * the session idles (session_timer.c), each interval about as long as the idleness
 * so far, up to IdleProbeInterval (the same value on both sides, or the anchor wakes
 * to probe sooner than it needs to). */
static uint64_t quiet_dead_after(const struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t base = cfg->probe_interval_ns;
	uint64_t ivl = MPT_MIN(MPT_MAX(cfg->idle_probe_max_ns, base),
			       now - s->last_data_ns + base);

	return ivl * cfg->probe_miss_limit;
}

/* A quiet session with a path silent too long wakes up to probe it. */
static void sweep_session(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t dead_after = dead_after_ns(cfg), silent_ok = quiet_dead_after(s, now);

	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *p = &s->paths[i];

		if (!p->used || !p->alive)
			continue;
		if (now - mpt_session_heard_ns(s, p) > silent_ok) {
			/* awake long enough to probe and to judge the answer */
			mpt_session_wake(s, now + dead_after + cfg->probe_interval_ns, now);
			return;
		}
	}
}

void mpt_daemon_quiet_sweep(struct mpt_daemon *d, uint64_t now)
{
	for (unsigned i = 0; i < d->nsessions && d->nquiet; i++) {
		struct mpt_session *s = &d->sessions[i];

		if (s->quiet)
			sweep_session(s, now);
	}
}
