// SPDX-License-Identifier: MIT
/*
 * Handshake glue between the Noise IK messages (noise.c) and the sessions.
 *
 * The UE initiates: it sends the same init on every path whose link is up, so the
 * tunnel comes up over whichever path works first (the anchor answers the first copy
 * and refuses the others as replays of the same timestamp), and retries with backoff
 * until a response arrives. It rekeys the same way after RekeyAfterTime or
 * RekeyAfterPackets while traffic keeps flowing on the current keypair.
 *
 * The anchor answers an init only after the cheap mac1 check and its admission
 * (hsguard.h: duplicate cache, cookie reply under load, per-source limit, global
 * budget), and allocates nothing for it: the responder state lives on the stack
 * until the init authenticated as one of the configured peers.
 *
 * A UE that gets a cookie reply keeps the cookie for that path (cookie.h) and sends
 * its pending init again at once on that path, now with mac2.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "keys.h"
#include "log.h"
#include "sys.h"
#include "udp.h"

#define HS_RETRY_NS	(500 * MPT_NSEC_PER_MSEC)	/* first retry after 500 ms */
#define HS_RETRY_MAX_NS	(4000 * MPT_NSEC_PER_MSEC)	/* backoff cap */

static void tai64n_now(struct mpt_session *s, uint8_t ts[MPT_TIMESTAMP_LEN])
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	mpt_noise_tai64n(ts, (uint64_t)t.tv_sec * MPT_NSEC_PER_SEC + (uint64_t)t.tv_nsec);
	/* strictly increasing even if the wall clock steps back: the anchor refuses
	 * an init that is not newer than the last one it accepted from us */
	if (memcmp(ts, s->last_init_ts, MPT_TIMESTAMP_LEN) <= 0) {
		memcpy(ts, s->last_init_ts, MPT_TIMESTAMP_LEN);
		for (int i = MPT_TIMESTAMP_LEN - 1; i >= 0 && ++ts[i] == 0; i--)
			;
	}
	memcpy(s->last_init_ts, ts, MPT_TIMESTAMP_LEN);
}

/* The pending init on path i, with mac2 from the path's cookie if it has one. */
static int ue_send_init(struct mpt_session *s, unsigned i, uint64_t now)
{
	struct mpt_path *p = &s->paths[i];
	uint8_t msg[MPT_HS_INIT_LEN];

	memcpy(msg, s->hs_msg, sizeof(msg));
	mpt_cookie_put_mac2(msg, &s->cookies[i], now);
	if (mpt_udp_sendto(p->fd, msg, sizeof(msg), (struct sockaddr *)&p->remote,
			   p->remote_len) == sizeof(msg))
		return 0;
	p->st.send_errors++;
	return -EIO;
}

void mpt_hs_ue_start(struct mpt_session *s, uint64_t now)
{
	struct mpt_daemon *d = s->d;
	uint8_t eph[MPT_KEY_BYTES], ts[MPT_TIMESTAMP_LEN];
	uint64_t backoff;
	unsigned sent = 0;

	if (mpt_random_bytes(eph, sizeof(eph)) < 0) {
		log_warn("handshake: getrandom");
		s->hs_next_ns = now + HS_RETRY_NS;
		return;
	}
	tai64n_now(s, ts);
	if (mpt_noise_create_init_flags(&s->hs, &d->local, s->peer->public_key, d->cfg.cipher,
					mpt_hs_new_index(d, s->idx), eph, ts,
					s->hs_fresh ? MPT_HS_FLAG_FRESH : 0, s->hs_msg) < 0) {
		log_warnx("handshake: cannot build an init");
		s->hs_next_ns = now + HS_RETRY_NS;
		return;
	}
	explicit_bzero(eph, sizeof(eph));
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];

		if (!p->link_ok || !p->admin_up || p->fd < 0)
			continue;
		sent += ue_send_init(s, i, now) == 0;
	}
	backoff = HS_RETRY_NS << MPT_MIN(s->hs_tries, 3u);
	s->hs_tries++;
	s->hs_next_ns = now + MPT_MIN(backoff, HS_RETRY_MAX_NS);
	log_debug("%s: handshake init sent on %u path(s), try %u", s->name, sent, s->hs_tries);
}

static void ue_on_response(struct mpt_daemon *d, uint8_t *buf, size_t len, int path_hint,
			   uint64_t now)
{
	struct mpt_session *s = &d->sessions[0];
	bool first = !s->cur.valid, fresh = s->hs.flags & MPT_HS_FLAG_FRESH;
	struct mpt_keypair kp;
	int reason;

	if (mpt_noise_consume_response(&s->hs, &d->local, buf, len, &kp, &reason) < 0) {
		d->st.drops[reason]++;
		return;
	}
	if (fresh) {		/* the anchor starts afresh too: so do we */
		mpt_session_restart(s, now);
		s->hs_fresh = false;
	}
	if (mpt_session_install_keypair(s, &kp, now) < 0) {
		log_warnx("%s: cannot install the new keys", s->name);
		return;
	}
	s->hs_next_ns = 0;
	s->hs_tries = 0;
	if (path_hint >= 0 && (unsigned)path_hint < s->npaths)
		mpt_session_heard(s, &s->paths[path_hint], now);
	/* probe every path now: the anchor learns them, we learn which work */
	for (unsigned i = 0; i < s->npaths; i++)
		s->paths[i].next_probe_ns = now;
	if (first)
		log_info("%s: tunnel established", s->name);
	else
		log_debug("%s: rekeyed", s->name);
	mpt_daemon_mark(d, s);
}

static void ue_on_cookie(struct mpt_daemon *d, const uint8_t *buf, int path_hint,
			 uint64_t now)
{
	struct mpt_session *s = &d->sessions[0];
	struct mpt_path *p;

	if (path_hint < 0 || (unsigned)path_hint >= s->npaths || !s->hs.pending ||
	    mpt_get_u32(buf + MPT_OFF_COOKIE_RECEIVER) != s->hs.local_index ||
	    mpt_cookie_consume(&s->cookies[path_hint], s->cookie_key, buf,
			       s->hs_msg + MPT_OFF_INIT_MAC1, now) < 0) {
		d->st.drops[MPT_WIRE_COOKIE_BAD]++;
		return;
	}
	p = &s->paths[path_hint];
	if (p->fd < 0 || !p->link_ok || !p->admin_up)
		return;
	ue_send_init(s, (unsigned)path_hint, now);
	log_debug("%s: cookie reply on path %s: init sent again with mac2", s->name,
		  p->name);
}

static int lookup_peer(void *arg, const uint8_t pub[MPT_KEY_BYTES], void **peer,
		       uint8_t **last_ts, const uint8_t **ss)
{
	struct mpt_daemon *d = arg;

	for (unsigned i = 0; i < d->nsessions; i++) {
		if (mpt_memcmp_ct(d->sessions[i].peer->public_key, pub, MPT_KEY_BYTES) == 0) {
			*peer = &d->sessions[i];
			*last_ts = d->sessions[i].last_init_ts;
			if (d->sessions[i].ss_ok)
				*ss = d->sessions[i].ss;
			return 0;
		}
	}
	return -ENOKEY;
}

static void anchor_send_cookie(struct mpt_daemon *d, const uint8_t *init, int fd,
			       const struct sockaddr_storage *from, socklen_t fromlen,
			       const struct mpt_local *local, uint64_t now)
{
	uint8_t nonce[MPT_COOKIE_NONCE_LEN], out[MPT_COOKIE_REPLY_LEN];

	/* the nonce must not repeat, need not be secret: the daemon's RNG (seeded from
	 * getrandom) saves a system call per reply under a flood */
	for (unsigned i = 0; i < sizeof(nonce); i += 8)
		mpt_put_u64(nonce + i, mpt_rng_u64(&d->rng));
	if (mpt_cookie_reply(&d->hs_guard.cookie, out, init, (const struct sockaddr *)from,
			     nonce, now) < 0)
		return;
	/* 64 bytes for 148: no amplification; a failed send is the flood's problem */
	if (mpt_local_sendto(fd, out, sizeof(out), (const struct sockaddr *)from, fromlen,
			     local) == MPT_LOCAL_UNPINNED)
		d->st.hs_pin_fallbacks++;
}

static void anchor_on_init(struct mpt_daemon *d, uint8_t *buf, size_t len, int fd,
			   const struct sockaddr_storage *from, socklen_t fromlen,
			   const struct mpt_local *local, uint64_t now)
{
	struct mpt_noise_responder rsp;
	uint8_t eph[MPT_KEY_BYTES], out[MPT_HS_RESP_LEN], secret[MPT_COOKIE_SECRET_LEN];
	struct mpt_session *s;
	struct mpt_keypair kp;
	ssize_t ret;
	int reason;

	if (!mpt_noise_mac1_ok(&d->local, buf, len)) {
		d->st.drops[MPT_WIRE_HS_MAC1]++;
		return;
	}
	if (mpt_cookie_secret_stale(&d->hs_guard.cookie, now)) {
		if (mpt_random_bytes(secret, sizeof(secret)) < 0) {
			log_warn("handshake: getrandom");
			return;
		}
		mpt_cookie_set_secret(&d->hs_guard.cookie, secret, now);
		explicit_bzero(secret, sizeof(secret));
	}
	switch (mpt_hs_guard_admit(&d->hs_guard, buf, (const struct sockaddr *)from, now,
				   &reason)) {
	case MPT_HS_ADMIT:
		break;
	case MPT_HS_SEND_COOKIE:
		d->st.drops[reason]++;
		anchor_send_cookie(d, buf, fd, from, fromlen, local, now);
		return;
	case MPT_HS_DROP:
		d->st.drops[reason]++;
		return;
	}
	/* rx.c classified it (type, version, length); mac1 was checked above */
	if (mpt_noise_consume_init_mac1ok(&rsp, &d->local, buf, lookup_peer, d, &reason) < 0) {
		d->st.drops[reason]++;
		if (reason == MPT_WIRE_HS_REPLAY)	/* authentic, but old */
			mpt_hs_guard_seen(&d->hs_guard, buf);
		if (reason == MPT_WIRE_HS_UNKNOWN_PEER && log_ratelimit_ok(&d->rl, now))
			log_info("handshake from an unknown key refused");
		return;
	}
	s = rsp.peer;
	mpt_hs_guard_seen(&d->hs_guard, buf);
	if (rsp.flags & MPT_HS_FLAG_FRESH) {
		/* the UE (re)started its transport: ours for it starts afresh, so that
		 * packet numbers, ACK ranges and DSNs of its old life do not linger */
		log_info("%s: the UE starts afresh (restart or silence): resetting its paths",
			 s->name);
		mpt_session_restart(s, now);
	}
	if (mpt_random_bytes(eph, sizeof(eph)) < 0 ||
	    mpt_noise_create_response(&rsp, &d->local, mpt_hs_new_index(d, s->idx), eph, out,
				      &kp) < 0) {
		explicit_bzero(&rsp, sizeof(rsp));
		return;
	}
	explicit_bzero(eph, sizeof(eph));
	if (mpt_session_install_keypair(s, &kp, now) < 0)
		return;
	/* from the address the init came to (udp_local.h): a strict NAT in front of the
	 * UE lets nothing else through */
	ret = mpt_local_sendto(fd, out, sizeof(out), (const struct sockaddr *)from, fromlen,
			       local);
	if (ret == MPT_LOCAL_UNPINNED)	/* no longer ours, or only routed to us */
		d->st.hs_pin_fallbacks++;
	if (ret < 0 && log_ratelimit_ok(&d->rl, now))
		log_warnx("%s: sending the handshake response: %s", s->name,
			  strerror((int)-ret));
	log_info("%s: handshake completed (%s)", s->name,
		 s->st.handshakes > 1 ? "rekey or UE restart" : "new session");
	mpt_daemon_mark(d, s);
}

void mpt_hs_on_datagram(struct mpt_daemon *d, int type, uint8_t *buf, size_t len,
			int fd, const struct sockaddr_storage *from, socklen_t fromlen,
			const struct mpt_local *local, int path_hint, uint64_t now)
{
	bool anchor = d->cfg.role == MPT_ROLE_ANCHOR;

	if (type == MPT_MSG_HANDSHAKE_INIT && anchor)
		anchor_on_init(d, buf, len, fd, from, fromlen, local, now);
	else if (type == MPT_MSG_HANDSHAKE_RESP && !anchor)
		ue_on_response(d, buf, len, path_hint, now);
	else if (type == MPT_MSG_COOKIE_REPLY && !anchor)
		ue_on_cookie(d, buf, path_hint, now);
	else
		d->st.drops[MPT_WIRE_BAD_TYPE]++;
}
