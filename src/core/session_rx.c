// SPDX-License-Identifier: MIT
/*
 * The receiving half of a session: an authenticated transport packet's frames.
 * DATA goes to the reorder buffer (and from there to the TUN), ACKs drive the path's
 * recovery, congestion controller and the scheduler, PROBEs are answered and carry
 * the peer's path names and costs, PROBE_ACKs prove liveness.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "mss_clamp.h"
#include "session.h"
#include "session_rules.h"
#include "sys.h"

/* Another path of the session is in ProbeRTT (cc.h: paths probe one at a time). */
static bool probe_rtt_busy(const struct mpt_session *s, const struct mpt_path *p)
{
	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *o = &s->paths[i];

		if (o != p && o->used && o->cc.state == MPT_CC_PROBE_RTT && mpt_path_usable(o))
			return true;
	}
	return false;
}

static void on_ack(struct mpt_session *s, const struct mpt_ack_info *ack, uint64_t now)
{
	struct mpt_path *p = &s->paths[ack->path_id];
	struct mpt_recovery_event ev;
	struct mpt_rate_sample rs;
	struct mpt_sched_ctx ctx;
	struct mpt_cc_path cp;

	if (!p->used || mpt_recovery_on_ack(&p->rec, ack, now, &rs, &ev) < 0) {
		p->st.ack_errors++;
		return;
	}
	p->st.acks_rx++;
	if (ev.rtt_sampled)
		p->rtt_fresh = true;
	mpt_session_on_losses(s, p, &ev, now);
	if (ev.acked_pkts) {
		mpt_session_heard(s, p, now);	/* our packets reach the peer */
		mpt_path_cc_view(p, &cp, s->d->inner_mtu);
		cp.probe_rtt_busy = probe_rtt_busy(s, p);
		p->cc_ops->on_ack(&p->cc, &cp, &rs, now);
		p->pto_backoff = 0;
		p->pto_at = p->rec.in_flight ? now + mpt_recovery_pto(&p->rec) : 0;
		if (s->sched->on_ack) {
			mpt_session_sched_ctx(s, &ctx, now);
			s->sched->on_ack(s->sched_priv, &ctx, p->id, ev.acked_bytes);
		}
		if (s->rules) {
			mpt_session_sched_ctx(s, &ctx, now);
			mpt_rules_on_ack(s, &ctx, p->id, ev.acked_bytes);
		}
	}
	mpt_session_flow_report(s, p, now);
}

/* The anchor learns a UE's path from its PROBEs: name, cost, weight, capacity. */
static void on_probe_info(struct mpt_session *s, struct mpt_path *p,
			  const struct mpt_probe *pr)
{
	const struct mpt_config *cfg = &s->d->cfg;

	if (cfg->role != MPT_ROLE_ANCHOR)
		return;
	if (strcmp(p->name, pr->name) != 0 || p->cost != pr->cost ||
	    p->weight != pr->weight || p->capacity != pr->capacity) {
		if (strcmp(p->name, pr->name) != 0)	/* its share moves to the new name */
			mpt_agg_detach(&s->d->agg, &p->agg);
		memcpy(p->name, pr->name, sizeof(p->name));
		p->cost = pr->cost;
		p->weight = pr->weight;
		p->capacity = pr->capacity;
		p->tags = 0;		/* tags come from the anchor's own [Path] only */
		/* an anchor [Path] of the same name overrides what the UE says */
		for (unsigned i = 0; i < cfg->npaths; i++) {
			if (strcmp(cfg->paths[i].name, pr->name) == 0) {
				p->cost = cfg->paths[i].cost;
				p->weight = cfg->paths[i].weight;
				p->tags = cfg->paths[i].tags;
				if (cfg->paths[i].capacity)
					p->capacity = cfg->paths[i].capacity;
				if (cfg->paths[i].mtu != p->pinned_mtu) {
					p->pinned_mtu = (uint16_t)cfg->paths[i].mtu;
					mpt_path_pmtu_start(p, mpt_now_ns());
				}
			}
		}
	}
}

/* The inner source must be one of the peer's AllowedIPs (no spoofing): on the anchor
 * the UE's prefixes (always set); on the UE the sources it accepts from the anchor,
 * when it lists any. */
static bool source_allowed(const struct mpt_session *s, const uint8_t *pkt, size_t len)
{
	const struct mpt_peer_config *peer = s->peer;
	int family;
	const void *src;

	if (peer->nallowed == 0)
		return true;
	if (len >= 20 && (pkt[0] >> 4) == 4) {
		family = AF_INET;
		src = pkt + 12;
	} else if (len >= 40 && (pkt[0] >> 4) == 6) {
		family = AF_INET6;
		src = pkt + 8;
	} else {
		return false;
	}
	for (unsigned i = 0; i < peer->nallowed; i++)
		if (mpt_prefix_contains(&peer->allowed[i], family, src))
			return true;
	return false;
}

/* A DATA frame's packet whose source the peer may not use (or that is no IP packet):
 * what it was, at debug level, rate limited. */
static void log_spoofed(struct mpt_session *s, const struct mpt_path *p,
			const struct mpt_pkt *pkt, uint64_t now)
{
	char src[INET6_ADDRSTRLEN] = "?";
	const uint8_t *b = pkt->data;

	if (log_get_level() < LOG_DEBUG || !log_ratelimit_ok(&s->rl, now))
		return;
	if (pkt->len >= 20 && b[0] >> 4 == 4)
		inet_ntop(AF_INET, b + 12, src, sizeof(src));
	else if (pkt->len >= 40 && b[0] >> 4 == 6)
		inet_ntop(AF_INET6, b + 8, src, sizeof(src));
	log_debug("%s: path %s: DATA dsn %llu, %u bytes, IPv%u from %s: source not "
		  "allowed, dropped (spoofed)", s->name, p->name,
		  (unsigned long long)pkt->dsn, pkt->len, pkt->len ? b[0] >> 4 : 0u, src);
}

/* A packet of a rule with Ordered = no: to the TUN at once, past any hole of the
 * ordered space; copies (redundant scheduling, repairs) dropped by a window over its
 * own numbers, as the replay window does for packet numbers (mptund-proto(7)). */
static void deliver_unordered(struct mpt_session *s, struct mpt_pkt *pkt)
{
	if (!s->uwin) {
		s->uwin = malloc(sizeof(*s->uwin));
		if (!s->uwin) {
			s->st.unordered_dup++;
			mpt_pkt_put(&s->d->pool, pkt);
			return;
		}
		mpt_replay_init(s->uwin);
	}
	if (mpt_replay_update(s->uwin, pkt->dsn) < 0) {
		s->st.unordered_dup++;
		mpt_pkt_put(&s->d->pool, pkt);
		return;
	}
	s->st.unordered_rx++;
	mpt_tun_deliver(s, pkt->dsn, pkt, pkt->len, MPT_REORDER_LATE);
}

static void on_data(struct mpt_session *s, struct mpt_path *p, struct mpt_pkt **pktp,
		    const struct mpt_frame *f, uint64_t now)
{
	struct mpt_daemon *d = s->d;
	struct mpt_pkt *pkt = *pktp;

	if (!pkt) {
		/* a second DATA frame in one packet: copy it out of the shared buffer */
		pkt = mpt_pkt_alloc(&d->pool);
		if (!pkt || f->u.data.pkt_len > d->pool.mtu) {
			if (pkt)
				mpt_pkt_put(&d->pool, pkt);
			d->st.pool_exhausted++;
			return;
		}
		memcpy(pkt->data, f->u.data.pkt, f->u.data.pkt_len);
	} else {
		pkt->data = (uint8_t *)f->u.data.pkt;	/* zero copy: inside our buffer */
		*pktp = NULL;
	}
	pkt->len = (uint32_t)f->u.data.pkt_len;
	pkt->dsn = f->u.data.dsn;
	p->st.data_rx++;
	p->last_data_rx_ns = now;
	mpt_session_note_activity(s, now);
	mpt_session_data_seen(s, now);
	if (!source_allowed(s, pkt->data, pkt->len)) {
		s->st.spoofed++;
		log_spoofed(s, p, pkt, now);
		mpt_pkt_put(&d->pool, pkt);
		/* its DSN still takes its turn: a hole would hold every packet behind
		 * it for the reorder timeout (an idle UE's IPv6 router solicitations
		 * from fe80:: cost the next ping ~5 ms) */
		if (f->type != MPT_FRAME_DATA_UNORDERED)
			mpt_reorder_insert(&s->reorder, f->u.data.dsn, NULL, 0, now);
		return;
	}
	if (f->type == MPT_FRAME_DATA_UNORDERED) {
		deliver_unordered(s, pkt);
		return;
	}
	if (mpt_reorder_insert_from(&s->reorder, pkt->dsn, pkt, pkt->len, now,
				    f->type == MPT_FRAME_DATA_RESENT) < 0)
		mpt_pkt_put(&d->pool, pkt);	/* duplicate or stale: counted there */
}

/* The reorder window from the delivery rate x the hold (mpt_reorder_capacity_for):
 * the rate is the paths' received bytes per second in inner-MTU packets (bulk is what
 * fills the window), and the growth comes out of the packet pool's spare buffers, at
 * most half of those still to be had: the pool is not sized per peer for it (an
 * anchor with 1000 peers), a fast session takes from the common reserve. */
static void size_window(struct mpt_session *s, uint64_t now)
{
	struct mpt_daemon *d = s->d;
	uint64_t bytes = 0, rate[4];
	uint32_t want, ceil = MPT_MIN(MPT_REORDER_AUTO_MAX,
				      d->cfg.reorder_buffer + mpt_pkt_pool_avail(&d->pool) / 2);

	for (unsigned i = 0; i < s->npaths; i++) {
		if (!s->paths[i].used)
			continue;
		mpt_path_rates(&s->paths[i], now, rate);
		bytes += rate[1];
	}
	/* between these checks the window grows at once as the DSN span asks, within
	 * the same pool-aware bound (the rate lags by its meter window) */
	mpt_reorder_set_grow_max(&s->reorder, ceil);
	want = mpt_reorder_capacity_want(&s->reorder, bytes / MPT_MAX(d->inner_mtu, 1u),
					 d->cfg.reorder_buffer, ceil);
	if (want > s->reorder.cap)
		mpt_reorder_grow(&s->reorder, want);	/* -ENOMEM: the old one stays */
}

static void update_hold(struct mpt_session *s, uint64_t now)
{
	if (now - s->hold_update_ns < 100 * MPT_NSEC_PER_MSEC)
		return;
	s->hold_update_ns = now;
	mpt_reorder_set_hold(&s->reorder, mpt_session_hold_ns(s));
	size_window(s, now);
	mpt_reorder_set_fill_restarts(&s->reorder,
				      s->d->cfg.recovery == MPT_RECOVERY_RETRANSMIT);
}

/* The newest packet of the path arrived at local: its replies leave from there (the
 * anchor's source address pin, udp_local.h). Authenticated and newest, so neither a
 * forgery nor a replayed copy sent to another of our addresses moves it. */
static void pin_local(struct mpt_session *s, struct mpt_path *path,
		      const struct mpt_local *local, bool newest, uint64_t now)
{
	char was[INET6_ADDRSTRLEN + 16], now_at[INET6_ADDRSTRLEN + 16];
	bool lost = path->pin_lost.family && !path->local.family;

	if (!local || !local->family || !newest || mpt_local_equal(&path->local, local))
		return;
	/* a pin that refused a send (path_tx.c) is not taken again at once: an address
	 * only routed to us would refuse every reply (MPT_PIN_RETRY_NS) */
	if (lost && mpt_local_equal(&path->pin_lost, local) &&
	    now - path->pin_lost_ns < MPT_PIN_RETRY_NS)
		return;
	if (path->local.family || (lost && !mpt_local_equal(&path->pin_lost, local))) {
		mpt_local_format(path->local.family ? &path->local : &path->pin_lost, was,
				 sizeof(was));
		mpt_local_format(local, now_at, sizeof(now_at));
		log_info("%s: path %s: the peer now sends to %s (was %s): replies follow",
			 s->name, path->name, now_at, was);
	}
	path->local = *local;
}

/* An authenticated packet of len frame bytes on path from `from`: the path is in use,
 * heard from, and its address checked (session_pathval.c). */
static void path_rx(struct mpt_session *s, struct mpt_path *path, uint8_t path_id,
		    const struct sockaddr_storage *from, socklen_t fromlen,
		    const struct mpt_local *local, size_t len, bool newest, uint64_t now)
{
	s->last_auth_rx_ns = now;
	path->last_auth_rx_ns = now;
	if (!path->used) {
		/* anchor: a new path of this UE; probe it at once to prove it */
		path->used = true;
		path->next_probe_ns = now;
		if (path_id >= s->npaths)
			s->npaths = path_id + 1u;
		mpt_session_note_activity(s, now);
	} else if (s->quiet && !path->alive) {
		/* the UE's packets on a path we hold down: probe it, it may be back */
		mpt_session_wake(s, now + s->d->cfg.probe_interval_ns *
				 (s->d->cfg.probe_miss_limit + 1u), now);
	}
	if (path->remote_len != fromlen || memcmp(&path->remote, from, fromlen) != 0)
		mpt_session_new_address(s, path, from, fromlen,
					len + MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN, newest, now);
	pin_local(s, path, local, newest, now);
	path->st.rx_pkts++;
	path->st.rx_bytes += len + MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN;
}

void mpt_session_receive(struct mpt_session *s, struct mpt_keyslot *ks,
			 const struct mpt_hdr *h, struct mpt_pkt *p, const uint8_t *frames,
			 size_t len, const struct sockaddr_storage *from, socklen_t fromlen,
			 const struct mpt_local *local, bool newest, uint64_t now)
{
	const uint8_t *pos = frames, *end = frames + len;
	struct mpt_path *path = &s->paths[h->path_id];
	struct mpt_pkt *buf = p;	/* NULL once a DATA frame took the buffer */
	bool eliciting = false;
	const struct mpt_probe *probe = NULL;	/* answered once the packet is recorded */
	struct mpt_probe probe_copy;
	struct mpt_frame f;
	uint32_t hint_ms;
	int ret;

	if (!ks->confirmed)
		ks->confirmed = true;
	path_rx(s, path, h->path_id, from, fromlen, local, len, newest, now);

	while ((ret = mpt_frame_next(&pos, end, &f)) == 1) {
		switch (f.type) {
		case MPT_FRAME_DATA:
		case MPT_FRAME_DATA_UNORDERED:
		case MPT_FRAME_DATA_RESENT:
			eliciting = true;
			on_data(s, path, &buf, &f, now);
			break;
		case MPT_FRAME_ACK:	/* of any path's packets, on this one */
			path->st.ack_rx_bytes += MPT_FRAME_HDR_LEN + f.len;
			if (f.u.ack.path_id < MPT_MAX_PATHS)
				on_ack(s, &f.u.ack, now);
			break;
		case MPT_FRAME_PROBE:
			eliciting = true;
			path->st.probes_rx++;
			on_probe_info(s, path, &f.u.probe);
			probe_copy = f.u.probe;
			probe = &probe_copy;
			break;
		case MPT_FRAME_PROBE_ACK:
			/* a round trip on this path: it works both ways */
			mpt_session_heard(s, path, now);
			mpt_session_pathval_response(s, path, from, fromlen,
						     f.u.probe_ack.timestamp);
			mpt_plpmtud_on_probe_ack(&path->pmtu, f.u.probe_ack.id, now);
			break;
		case MPT_FRAME_ACK_FREQUENCY:
			mpt_session_on_ackf(s, &f.u.ackf);
			break;
		case MPT_FRAME_PATH_STATUS:
			mpt_session_on_pstat(s, &f.u.pstat, now);
			break;
		case MPT_FRAME_RULES:
			mpt_rules_on_frame(s, path, &f.u.rules, now);
			break;
		case MPT_FRAME_PADDING:
			if (mpt_frame_idle_hint(&f, &hint_ms))
				mpt_session_on_idle_hint(s, hint_ms);
			break;
		}
	}
	if (ret < 0) {
		s->st.drops[f.reason]++;
		if (log_ratelimit_ok(&s->rl, now))
			log_debug("%s: path %s: malformed frame: %s", s->name, path->name,
				  mpt_wire_strerror(f.reason));
	}
	mpt_acktrack_on_packet(&path->ackt, h->pn, eliciting, now);
	/* the PROBE_ACK carries the ACK of the packet that asked: no delayed ACK */
	if (probe)
		mpt_session_send_control(s, path, probe, now);
	update_hold(s, now);
	if (buf)
		mpt_pkt_put(&s->d->pool, buf);
	mpt_daemon_mark(s->d, s);
}

void mpt_tun_deliver(void *arg, uint64_t dsn, void *pkt, uint32_t len,
		     enum mpt_reorder_why why)
{
	struct mpt_session *s = arg;
	struct mpt_daemon *d = s->d;
	struct mpt_pkt *p = pkt;

	if (!p)		/* a DSN the receiver dropped (on_data): nothing to write */
		return;
	if (s->clamp_mtu && d->cfg.clamp_mss && mpt_mss_clamp(p->data, p->len, s->clamp_mtu))
		s->st.mss_clamped++;
	if (mpt_tun_out(d, p->data, p->len) < 0) {
		s->st.tun_write_errors++;
	} else {
		s->st.tun_tx_pkts++;
		s->st.tun_tx_bytes += p->len;
	}
	mpt_pkt_put(&d->pool, p);
}
