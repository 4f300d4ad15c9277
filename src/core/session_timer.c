// SPDX-License-Identifier: MIT
/*
 * The session timer's work and the paths' state within a session: per path the dead
 * path check, the path MTU probe rounds, loss and probe timeouts; liveness by probes;
 * a path going up or down (and what waited for it going back to the scheduler); the
 * handshakes due (told to the daemon: struct mpt_session_ops), keypairs past their
 * hard lifetime wiped (keyslot.h); the scheduler tick and the reorder timeouts. Above the sending half (session_tx.c), below the receiving
 * half (session_rx.c) and PATH_STATUS (session_status.c), which report what they hear.
 */
#include <errno.h>

#include "daemon.h"
#include "log.h"
#include "session.h"
#include "session_rules.h"

/* RFC 8899's PROBE_TIMER, from the path's RTT: the peer answers a probe at once. */
static uint64_t probe_timeout(const struct mpt_path *p)
{
	const struct mpt_recovery *r = &p->rec;

	if (!r->have_rtt)
		return 500 * MPT_NSEC_PER_MSEC;
	return MPT_MAX(r->srtt_ns * 3 / 2 + 4 * r->rttvar_ns + 5 * MPT_NSEC_PER_MSEC,
		       20 * MPT_NSEC_PER_MSEC);
}

void mpt_session_pmtu_timer(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	uint16_t sizes[MPT_PMTU_ROUND_MAX], confirm = p->pmtu.confirm_size;
	uint64_t holes = p->pmtu.black_holes;
	unsigned n, sent = 0;

	if (!s->cur.valid || !p->alive || !p->admin_up || !p->remote_len)
		return;
	n = mpt_plpmtud_due(&p->pmtu, now, sizes);
	if (p->pmtu.black_holes != holes)
		log_info("%s: path %s: packets of %u bytes vanish while smaller ones pass "
			 "(probes confirmed it): path MTU black hole, down to %u bytes and "
			 "searching again", s->name, p->name, confirm, p->pmtu.plpmtu);
	for (unsigned i = 0; i < n; i++) {
		uint32_t id = mpt_plpmtud_probe_id(&p->pmtu, sizes[i]);
		int ret = mpt_session_send_mtu_probe(s, p, sizes[i], id, now);

		if (ret == -EMSGSIZE) {
			p->st.send_too_big++;
			mpt_plpmtud_on_send_too_big(&p->pmtu, sizes[i], now);
		} else if (ret >= 0) {
			sent++;
		}
	}
	if (n)
		mpt_plpmtud_on_sent(&p->pmtu, sent, probe_timeout(p), now);
	if (p->pmtu.state == MPT_PMTU_COMPLETE && p->pmtu.searches &&
	    p->pmtu.raise_at_ns == now + p->pmtu.raise_ns)
		log_info("%s: path %s: path MTU %u bytes (inner packets up to %u)", s->name,
			 p->name, p->pmtu.plpmtu, mpt_path_max_inner(p, s->d->pool.mtu));
}

void mpt_session_check_dead(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	uint64_t dl = mpt_session_dead_deadline(p);
	struct mpt_recovery_event ev;

	if (!dl || now < dl)
		return;
	log_info("%s: path %s: nothing acknowledged for %llu ms with %llu bytes in flight: "
		 "down, its packets go to the other paths", s->name, p->name,
		 (unsigned long long)((now - MPT_MAX(mpt_recovery_silent_since(&p->rec),
						     p->alive_since_ns)) / MPT_NSEC_PER_MSEC),
		 (unsigned long long)p->rec.in_flight);
	p->st.dead_by_data++;
	mpt_recovery_declare_all_lost(&p->rec, &ev);
	mpt_session_collect_lost(s, p, now);
	mpt_session_set_alive(s, p, false, now);
}

void mpt_session_set_alive(struct mpt_session *s, struct mpt_path *p, bool alive,
			   uint64_t now)
{
	if (p->alive == alive)
		return;
	p->alive = alive;
	if (alive && p->pmtu.state == MPT_PMTU_BASE)
		mpt_path_pmtu_start(p, now);
	if (alive) {
		p->alive_since_ns = now;
		p->rtt_fresh = false;
	}
	if (alive)
		p->st.ups++;
	else
		p->st.downs++;
	log_info("%s: path %s is %s", s->name, p->name, alive ? "up" : "down");
	mpt_session_path_changed(s, p, now);
	s->d->session_ops->path_state(s, p);
}

void mpt_session_path_changed(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_sched_ctx ctx;
	bool up = mpt_path_usable(p);

	if (!up) {
		/* what waited for this path goes back through the scheduler, ahead of
		 * the queue and in its order: the packets are not lost, only their path */
		mpt_sparse_bulk_all(&s->sparse, &p->txq);	/* their flows wait */
		mpt_pktq_prepend(&s->squeue, &p->txq);
		mpt_path_reset(p, &s->d->pool, now);	/* what was in flight is lost */
		mpt_session_collect_lost(s, p, now);
	}
	if (s->sched->on_path_change) {
		mpt_session_sched_ctx(s, &ctx, now);
		s->sched->on_path_change(s->sched_priv, &ctx, p->id, up);
	}
	if (s->rules) {
		mpt_session_sched_ctx(s, &ctx, now);
		mpt_rules_on_path_change(s, &ctx, p->id, up);
	}
	mpt_daemon_mark(s->d, s);
}

void mpt_session_liveness(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;

	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];

		if (!p->used)
			continue;
		if (p->alive && now - mpt_session_heard_ns(s, p) >
				mpt_session_probe_ivl(s, p) * cfg->probe_miss_limit)
			mpt_session_set_alive(s, p, false, now);
		if (now >= p->next_probe_ns) {
			p->probe_ivl_ns = mpt_session_next_probe_ivl(s, p);
			p->next_probe_ns = now + p->probe_ivl_ns;
			p->probe_sent_ns = now;
			if (s->cur.valid && p->link_ok && p->admin_up && p->remote_len)
				mpt_session_send_probe(s, p, now, false);
		}
	}
	mpt_rules_push_tick(s, now);	/* anchor: the UE's rules, until it has them */
}

/* Called on an authenticated packet from path p. */
void mpt_session_heard(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	p->last_rx_ns = now;
	if (!p->alive)
		mpt_session_set_alive(s, p, true, now);
}

/* Wipe the keyslots past their hard lifetime (keyslot.h); the UE's timer then
 * handshakes for a new one if it has none. */
void mpt_session_expire_keys(struct mpt_session *s, uint64_t now)
{
	struct mpt_keyslot *slots[] = { &s->cur, &s->prev, &s->next };

	for (unsigned i = 0; i < 3; i++) {
		if (!slots[i]->valid || !mpt_keyslot_expired(slots[i], now))
			continue;
		mpt_keyslot_wipe(slots[i]);
		s->st.keys_expired++;
		log_info("%s: a keypair reached its hard lifetime: wiped", s->name);
	}
}

void mpt_session_on_timer(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;

	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];
		struct mpt_recovery_event ev;
		uint64_t dl = mpt_recovery_loss_deadline(&p->rec);

		if (!p->used)
			continue;
		mpt_session_check_dead(s, p, now);
		mpt_session_pmtu_timer(s, p, now);
		if (dl && now >= dl) {
			mpt_recovery_on_loss_timeout(&p->rec, now, &ev);
			mpt_session_on_losses(s, p, &ev, now);
		}
		if (p->pto_at && now >= p->pto_at) {
			p->pto_at = 0;
			if (p->rec.in_flight) {
				if (p->pto_backoff < 6)
					p->pto_backoff++;
				mpt_session_send_probe(s, p, now, true);
			}
		}
	}
	mpt_session_liveness(s, now);
	mpt_session_reorder_timeout(s, now);
	mpt_session_expire_keys(s, now);
	if (cfg->role == MPT_ROLE_UE) {
		if (s->cur.valid && !s->hs.pending && s->last_auth_rx_ns &&
		    now > mpt_session_silent_deadline(s)) {
			log_info("%s: nothing from the anchor for %llu ms: handshaking afresh",
				 s->name, (unsigned long long)((now - s->last_auth_rx_ns) /
							       MPT_NSEC_PER_MSEC));
			s->hs_fresh = true;
			s->hs_tries = 0;
			s->last_auth_rx_ns = now;	/* one start; retries back off */
			s->d->session_ops->handshake_due(s, now);
		} else if (s->hs_next_ns && now >= s->hs_next_ns)
			s->d->session_ops->handshake_due(s, now);
		else if (!s->hs.pending && (!s->cur.valid ||
			 mpt_keyslot_rekey_due(&s->cur, cfg->rekey_after_ns,
					       cfg->rekey_after_packets, now)))
			s->d->session_ops->handshake_due(s, now);
	}
	if (mpt_session_waiting(s) && s->sched->tick && now >= s->next_tick_ns) {
		struct mpt_sched_ctx ctx;

		mpt_session_sched_ctx(s, &ctx, now);
		s->sched->tick(s->sched_priv, &ctx);
		s->next_tick_ns = now + s->sched->tick_ns;
	}
}
