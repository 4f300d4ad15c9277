// SPDX-License-Identifier: MIT
/*
 * Session life cycle: set-up and teardown, keypairs, the scheduler instance (and
 * switching it live), the scheduler queue, the session timer's callback and the
 * flush of the sessions a batch of events touched. The top of the session files
 * (src/README.md): the loop's files call in here, this calls the files below.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "session.h"
#include "session_rules.h"
#include "sys.h"

static void session_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mpt_session *s = (struct mpt_session *)((char *)w -
						       offsetof(struct mpt_session, timer));
	uint64_t now = mpt_now_ns();

	mpt_session_on_timer(s, now);
	mpt_daemon_mark(s->d, s);
	mpt_daemon_flush_dirty(s->d, now);
}

/*
 * Anchor: a session's paths (each with its sent-packet ring and controller) are set
 * up by its first keypair, not at start-up: a configured peer that is not connected
 * costs no path state. All path ids exist from then on, unused until heard.
 */
static int anchor_paths_init(struct mpt_session *s, uint64_t now, char *err, size_t errlen)
{
	struct mpt_daemon *d = s->d;
	int ret;

	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		ret = mpt_path_init(&s->paths[i], (uint8_t)i, &d->cfg, NULL, &d->pool,
				    mpt_rng_u64(&s->rng), now, err, errlen);
		if (ret < 0) {
			while (i-- > 0)
				mpt_path_free(&s->paths[i], &d->pool);
			return ret;
		}
		s->paths[i].fd = d->listen_fd;
	}
	return 0;
}

/* s is zeroed memory (the daemon's calloc'd array): what an idle anchor session does
 * not write here stays untouched, and costs no resident memory. */
int mpt_session_init(struct mpt_session *s, struct mpt_daemon *d, unsigned idx,
		     const struct mpt_peer_config *peer, char *err, size_t errlen)
{
	const struct mpt_config *cfg = &d->cfg;
	const struct mpt_sched_ops *ops;
	uint64_t now = mpt_now_ns();
	int ret;

	s->d = d;
	s->idx = idx;
	s->peer = peer;
	snprintf(s->name, sizeof(s->name), "%s", peer->name);
	mpt_rng_seed(&s->rng, mpt_rng_u64(&d->rng));
	s->next_dsn = mpt_rng_u64(&s->rng) >> 16;	/* restarts look like a jump */
	s->next_udsn = 1;		/* replay.h: 0 is "nothing seen yet" */
	s->hs_fresh = true;		/* UE: the first handshake starts afresh */
	/* one X25519 per peer at start saves one per init (a low-order key: computed
	 * per init, and failing, as before) */
	s->ss_ok = mpt_noise_static_dh(&d->local, peer->public_key, s->ss) == 0;
	mpt_cookie_enc_key(s->cookie_key, peer->public_key);
	s->sched_priv = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	if (!s->sched_priv) {
		snprintf(err, errlen, "session %s: out of memory", s->name);
		return -ENOMEM;
	}
	ret = mpt_reorder_init(&s->reorder, cfg->reorder_buffer, cfg->reorder_max_hold_ns,
			       cfg->reorder_margin_ns, mpt_tun_deliver, s);
	if (ret < 0) {
		snprintf(err, errlen, "session %s: reorder buffer: %s", s->name,
			 strerror(-ret));
		goto fail_priv;
	}
	if (cfg->role == MPT_ROLE_UE) {
		s->npaths = cfg->npaths;
		for (unsigned i = 0; i < cfg->npaths; i++) {
			ret = mpt_path_init(&s->paths[i], (uint8_t)i, cfg, &cfg->paths[i],
					    &d->pool, mpt_rng_u64(&s->rng), now, err, errlen);
			if (ret < 0)
				goto fail_paths;
			s->paths[i].used = true;
			s->paths[i].fd = d->path_fd[i];
			s->paths[i].remote = cfg->paths[i].endpoint;
			s->paths[i].remote_len = cfg->paths[i].endpoint.ss_family == AF_INET
				? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		}
	}
	/* the anchor learns paths from the UE: see anchor_paths_init */
	ops = mpt_sched_find(cfg->sched);
	if (!ops) {
		snprintf(err, errlen, "unknown scheduler '%s'", cfg->sched);
		ret = -EINVAL;
		goto fail_paths;
	}
	ret = mpt_session_set_sched(s, ops, err, errlen);
	if (ret < 0)
		goto fail_paths;
	ev_init(&s->timer, session_timer_cb);
	return 0;

fail_paths:
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		if (s->paths[i].rec.ring)
			mpt_path_free(&s->paths[i], &d->pool);
	mpt_reorder_free(&s->reorder);
fail_priv:
	free(s->sched_priv);
	s->sched_priv = NULL;
	return ret;
}

static void keyslot_clear(struct mpt_keyslot *ks)
{
	mpt_keyslot_wipe(ks);
}

void mpt_session_free(struct mpt_session *s)
{
	struct mpt_daemon *d = s->d;

	if (!s->sched_priv)
		return;
	ev_timer_stop(d->loop, &s->timer);
	mpt_pktq_purge(&s->squeue, &d->pool);
	mpt_sparse_free(&s->sparse, &d->pool);
	mpt_fhold_purge(&s->fhold, &d->pool);
	mpt_pktq_purge(&s->rtxq, &d->pool);
	mpt_rules_session_free(s);
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		if (!s->paths[i].rec.ring)
			continue;
		mpt_agg_detach(&d->agg, &s->paths[i].agg);
		mpt_path_free(&s->paths[i], &d->pool);
	}
	mpt_reorder_free(&s->reorder);	/* hands held packets to the TUN */
	free(s->uwin);
	s->uwin = NULL;
	free(s->tcpseq);
	s->tcpseq = NULL;
	keyslot_clear(&s->cur);
	keyslot_clear(&s->prev);
	keyslot_clear(&s->next);
	free(s->sched_priv);
	s->sched_priv = NULL;
	explicit_bzero(&s->hs, sizeof(s->hs));
}

int mpt_session_set_sched(struct mpt_session *s, const struct mpt_sched_ops *ops,
			  char *err, size_t errlen)
{
	struct mpt_sched_ctx ctx;
	void *blob;
	int ret;

	/* prepare the new instance aside so that a bad override changes nothing */
	blob = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	if (!blob) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	mpt_sched_prepare(blob, ops);
	ret = mpt_config_apply_sched(&s->d->cfg, ops, blob, err, errlen);
	if (ret < 0) {
		free(blob);
		return ret;
	}
	mpt_session_sched_ctx(s, &ctx, mpt_now_ns());
	ops->init(blob, &ctx);
	if (s->sched)
		s->st.sched_switches++;
	memcpy(s->sched_priv, blob, ops->priv_size);	/* the rest is not its own */
	free(blob);
	s->sched = ops;
	s->next_tick_ns = 0;
	return 0;
}

void mpt_session_restart(struct mpt_session *s, uint64_t now)
{
	struct mpt_daemon *d = s->d;

	for (unsigned i = 0; i < s->npaths; i++)
		if (s->paths[i].used)
			mpt_path_restart(&s->paths[i], &d->pool, now);
	mpt_pktq_purge(&s->rtxq, &d->pool);
	mpt_reorder_flush(&s->reorder);
	if (s->uwin)
		mpt_replay_init(s->uwin);	/* the peer numbers afresh too */
	mpt_rules_push_restart(s);
	keyslot_clear(&s->cur);
	keyslot_clear(&s->prev);
	keyslot_clear(&s->next);
	s->peer_idle_ns = 0;	/* the anchor may be another now: it says again */
	s->st.fresh_starts++;
	mpt_daemon_mark(d, s);
}

bool mpt_session_established(const struct mpt_session *s)
{
	return s->cur.valid;
}

struct mpt_keyslot *mpt_session_keyslot(struct mpt_session *s, uint32_t local_index)
{
	if (s->cur.valid && s->cur.local_index == local_index)
		return &s->cur;
	if (s->prev.valid && s->prev.local_index == local_index)
		return &s->prev;
	if (s->next.valid && s->next.local_index == local_index)
		return &s->next;
	return NULL;
}

/* cur becomes prev (kept for packets still in flight under it), ks becomes cur. */
static void promote(struct mpt_session *s, struct mpt_keyslot *ks, uint64_t now)
{
	keyslot_clear(&s->prev);
	if (s->cur.valid) {
		s->prev = s->cur;
		s->st.rekeys++;
	} else {
		s->established_ns = now;
	}
	s->cur = *ks;
	memset(ks, 0, sizeof(*ks));
}

/*
 * Install a new keypair. The initiator (UE) sends with it at once: the responder
 * has it already. The responder (anchor) keeps it as next and goes on sending with
 * the current one until the first packet under the new keypair arrives
 * (mpt_session_confirm): before that the UE may not have the response yet, and
 * would have to drop what we sent. Both keep the previous keypair for receiving,
 * so traffic in flight across the switch is not lost.
 */
int mpt_session_install_keypair(struct mpt_session *s, struct mpt_keypair *kp,
				uint64_t now)
{
	struct mpt_keyslot ks = { 0 };
	char err[160];
	int ret;

	if (s->d->cfg.role == MPT_ROLE_ANCHOR && !s->paths[0].rec.ring) {
		ret = anchor_paths_init(s, now, err, sizeof(err));
		if (ret < 0) {
			log_warnx("%s: %s", s->name, err);
			return ret;
		}
	}
	ret = mpt_aead_init(&ks.tx, kp->cipher, kp->send_key);
	if (ret < 0)
		return ret;
	ret = mpt_aead_init(&ks.rx, kp->cipher, kp->recv_key);
	if (ret < 0) {
		mpt_aead_free(&ks.tx);
		return ret;
	}
	ks.valid = true;
	ks.local_index = kp->local_index;
	ks.remote_index = kp->remote_index;
	ks.created_ns = now;
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		mpt_replay_init(&ks.replay[i]);
	s->st.handshakes++;
	if (kp->initiator) {
		mpt_keypair_wipe(kp);
		promote(s, &ks, now);
		return 0;
	}
	mpt_keypair_wipe(kp);
	mpt_session_note_activity(s, now);	/* probe the paths as the session starts */
	keyslot_clear(&s->next);	/* an unconfirmed earlier one is superseded */
	s->next = ks;
	return 0;
}

struct mpt_keyslot *mpt_session_confirm(struct mpt_session *s, struct mpt_keyslot *ks,
					uint64_t now)
{
	if (ks != &s->next)
		return ks;
	promote(s, ks, now);
	return &s->cur;
}

/*
 * May a full bulk lane drop p to make room? Not a packet numbered already (the
 * in-order take numbers the packets it passes, session_tx.c: the receiver would wait
 * for its number), nor a pure ACK, SYN, FIN or RST: they carry no data, and a lost
 * SYN or FIN costs its flow a retransmission timeout; nor an inner retransmission
 * (tcpseq.h): lost again, its flow waits for its retransmission timeout.
 *
 * A retransmission is not moved ahead of its flow's queued packets: tried on
 * outage.json (cpf), the 400 ms stall went, but the server then re-sent 2,615
 * segments for 40 drops: the packets it passed were sent before it and, delivered
 * after it, were taken for lost (RACK, RFC 8985 6.2: the reordering window is a
 * fraction of the RTT, the queue was 240 ms).
 */
static bool droppable(const struct mpt_pkt *p)
{
	return p->dsn == MPT_DSN_UNSET && !p->meta.tcp_ack_only && !p->meta.tcp_retrans &&
	       !(p->meta.tcp_flags & (MPT_TCP_FLAG_SYN | MPT_TCP_FLAG_FIN | MPT_TCP_FLAG_RST));
}

/*
 * The bulk lane is full (QueueLimit): drop from the front, the oldest packet that may
 * go (droppable), looking at most MPT_DROP_SCAN packets deep, and keep the one
 * arriving ("drop front on full", RFC 7567 section 1.1; T. V. Lakshman, A. Neidhardt,
 * T. J. Ott, "The Drop from Front Strategy in TCP and in TCP over ATM", INFOCOM
 * 1996). The inner sender learns of the loss from the packets right behind the hole,
 * a whole queue time sooner than from a hole at the tail, and stops growing its
 * window into a full queue while its packets are still being dropped. False when
 * none may go: the arriving packet is dropped (tail drop).
 */
#define MPT_DROP_SCAN	256
static bool drop_front(struct mpt_session *s)
{
	struct mpt_pkt *prev = NULL, *p = s->squeue.head;

	for (unsigned n = 0; p && !droppable(p); p = p->next, n++) {
		if (n == MPT_DROP_SCAN)
			return false;
		prev = p;
	}
	if (!p)
		return false;
	mpt_pktq_unlink_after(&s->squeue, prev);
	mpt_sparse_left(&s->sparse, p);
	mpt_pkt_put(&s->d->pool, p);
	return true;
}

/* The bulk lane is full (bulk packets): room for one more by a drop from the front
 * (true), or none (false: the caller drops the arriving packet, a tail drop). */
static bool make_room(struct mpt_session *s, uint32_t bulk, uint64_t now)
{
	bool front = drop_front(s);

	s->st.queue_drops++;
	s->st.queue_front_drops += front;
	if (log_ratelimit_ok(&s->rl, now))
		log_debug("%s: scheduler queue full (%u packets): %s drop", s->name, bulk,
			  front ? "front" : "tail");
	return front;
}

/*
 * A packet from the TUN: the sparse-flow lane (sparse.h) when its flow is sparse, else
 * the bulk lane, which QueueLimit bounds (make_room).
 */
void mpt_session_enqueue(struct mpt_session *s, struct mpt_pkt *p, uint64_t now)
{
	struct mpt_daemon *d = s->d;
	uint32_t bulk = s->squeue.pkts + s->fhold.pkts;

	if (!s->cur.valid) {
		s->st.no_key_drops++;
		mpt_pkt_put(&d->pool, p);
		return;
	}
	if (!mpt_session_waiting(s))
		mpt_sparse_heal(&s->sparse);
	p->dsn = MPT_DSN_UNSET;			/* numbered as it leaves (session.h) */
	p->enq_ns = now;
	if (mpt_sparse_admit(&s->sparse, p, d->cfg.sparse_flows, d->pool.mtu, !bulk)) {
		s->st.sparse_pkts += bulk != 0;	/* it passed a backlog */
	} else if (bulk >= d->cfg.queue_limit && !make_room(s, bulk, now)) {
		mpt_pkt_put(&d->pool, p);
		return;
	} else {
		mpt_pktq_push(&s->squeue, p);
		mpt_sparse_bulk(&s->sparse, p);
	}
	mpt_session_note_activity(s, now);
	s->st.tun_rx_pkts++;
	s->st.tun_rx_bytes += p->len;
	mpt_daemon_mark(d, s);
}

void mpt_session_note_tcp(struct mpt_session *s, struct mpt_pkt *p, uint32_t seq,
			  uint32_t len)
{
	if (!len)
		return;			/* a bare ACK */
	if (!s->tcpseq && !(s->tcpseq = calloc(1, sizeof(*s->tcpseq))))
		return;			/* no signal: the flow is not harmed */
	p->meta.tcp_retrans = mpt_tcpseq_note(s->tcpseq, p->meta.flow_hash, seq, len);
}

void mpt_daemon_flush_dirty(struct mpt_daemon *d, uint64_t now)
{
	for (int rounds = 0; d->dirty && rounds < 4; rounds++) {
		struct mpt_session *list = d->dirty;

		d->dirty = NULL;
		while (list) {
			struct mpt_session *s = list;

			list = s->dirty_next;
			s->dirty = false;
			mpt_session_flush(s, now);
		}
	}
}
