// SPDX-License-Identifier: MIT
/*
 * The TUN side of the data path: read a batch of inner packets into pool buffers,
 * classify each (flow hash, DSCP, ECN, destination), find its session (the UE has
 * one; the anchor finds the UE whose AllowedIPs hold the destination) and queue it;
 * and the reorder buffer's release callback, which writes packets to the TUN.
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "mss_clamp.h"
#include "pktmeta.h"
#include "session_rules.h"
#include "sys.h"

struct mpt_session *mpt_daemon_session_for_dst(struct mpt_daemon *d, int family,
					       const void *addr)
{
	struct mpt_session *best = NULL;
	int best_len = -1;

	if (d->cfg.role == MPT_ROLE_UE)
		return &d->sessions[0];
	for (unsigned i = 0; i < d->nsessions; i++) {
		const struct mpt_peer_config *pc = d->sessions[i].peer;

		for (unsigned k = 0; k < pc->nallowed; k++) {
			if (pc->allowed[k].plen > best_len &&
			    mpt_prefix_contains(&pc->allowed[k], family, addr)) {
				best = &d->sessions[i];
				best_len = pc->allowed[k].plen;
			}
		}
	}
	return best;
}

/* A packet of session s to its rule's queue (steering rules) or the session's. */
static void enqueue(struct mpt_daemon *d, struct mpt_session *s, struct mpt_pkt *p,
		    const struct mpt_pkt_info *info, uint64_t now)
{
	if (!mpt_rules_active(s, &d->rules) || !mpt_rules_enqueue(s, p, info, now))
		mpt_session_enqueue(s, p, now);
}

void mpt_tun_readable(struct mpt_daemon *d)
{
	struct mpt_pktq frags = { 0 };
	uint64_t now = mpt_now_ns();

	for (int i = 0; i < MPT_TUN_BATCH; i++) {
		struct mpt_pkt_info info;
		struct mpt_session *s;
		struct mpt_pkt *p;
		const char *why;
		ssize_t n;

		p = mpt_pkt_alloc(&d->pool);
		if (!p) {
			d->st.pool_exhausted++;
			break;	/* the kernel queues (and drops) until buffers return */
		}
		n = mpt_tun_read(&d->tun, p->data, d->pool.mtu);
		if (n <= 0) {
			mpt_pkt_put(&d->pool, p);
			if (n < 0 && n != -EAGAIN && n != -EINTR &&
			    log_ratelimit_ok(&d->rl, now))
				log_warnx("reading %s: %s", d->tun.name, strerror((int)-n));
			break;
		}
		p->len = (uint32_t)n;
		if (mpt_pktmeta_parse(&d->flow_key, p->data, p->len, &info, &why) < 0) {
			d->st.tun_bad_packet++;
			mpt_pkt_put(&d->pool, p);
			continue;
		}
		p->meta = info.meta;
		p->meta.len = p->len;
		s = mpt_daemon_session_for_dst(d, info.family, &info.dst);
		if (!s || !mpt_session_established(s)) {
			d->st.tun_no_session++;
			mpt_pkt_put(&d->pool, p);
			continue;
		}
		if (info.meta.proto == IPPROTO_TCP && info.l4_offset)
			mpt_session_note_tcp(s, p, info.tcp_seq, info.tcp_len);
		if (s->clamp_mtu && d->cfg.clamp_mss && mpt_mss_clamp(p->data, p->len,
								      s->clamp_mtu))
			s->st.mss_clamped++;
		if (mpt_session_fragment(s, p, &frags)) {	/* IPv4, no DF, fits no path */
			while ((p = mpt_pktq_pop(&frags)))
				enqueue(d, s, p, &info, now);
			continue;
		}
		enqueue(d, s, p, &info, now);
	}
	mpt_daemon_flush_dirty(d, now);
}
