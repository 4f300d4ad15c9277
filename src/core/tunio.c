// SPDX-License-Identifier: MIT
/*
 * The TUN side of the data path: read a batch of inner packets into pool buffers (with
 * the TUN's offloads, super-packets cut into segments by proto/gso), classify each
 * (flow hash, DSCP, ECN, destination), find its session (the UE has one; the anchor
 * finds the UE whose AllowedIPs hold the destination) and queue it. Writing to the
 * TUN: tunout.c.
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"
#include "gso.h"
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

/* One inner packet from the TUN (read whole, or a segment): classified and queued on
 * its session. */
static void tun_packet(struct mpt_daemon *d, struct mpt_pkt *p, uint64_t now)
{
	struct mpt_pktq frags = { 0 };
	struct mpt_pkt_info info;
	struct mpt_session *s;
	const char *why;

	if (mpt_pktmeta_parse(&d->flow_key, p->data, p->len, &info, &why) < 0) {
		d->st.tun_bad_packet++;
		mpt_pkt_put(&d->pool, p);
		return;
	}
	p->meta = info.meta;
	p->meta.len = p->len;
	s = mpt_daemon_session_for_dst(d, info.family, &info.dst);
	if (!s || !mpt_session_established(s)) {
		d->st.tun_no_session++;
		mpt_pkt_put(&d->pool, p);
		return;
	}
	if (info.meta.proto == IPPROTO_TCP && info.l4_offset)
		mpt_session_note_tcp(s, p, info.tcp_seq, info.tcp_len);
	if (s->clamp_mtu && d->cfg.clamp_mss && mpt_mss_clamp(p->data, p->len, s->clamp_mtu))
		s->st.mss_clamped++;
	if (mpt_session_fragment(s, p, &frags)) {	/* IPv4, no DF, fits no path */
		while ((p = mpt_pktq_pop(&frags)))
			enqueue(d, s, p, &info, now);
		return;
	}
	enqueue(d, s, p, &info, now);
}

/* A read that returned n <= 0: -1 (stop reading), the error logged unless expected. */
static int read_failed(struct mpt_daemon *d, ssize_t n, uint64_t now)
{
	if (n < 0 && n != -EAGAIN && n != -EINTR && log_ratelimit_ok(&d->rl, now))
		log_warnx("reading %s: %s", d->tun.name, strerror((int)-n));
	return -1;
}

/* Without offloads: one packet straight into a pool buffer. Packets queued, or -1. */
static int tun_read_one(struct mpt_daemon *d, uint64_t now)
{
	struct mpt_vnet_hdr vh;
	struct mpt_pkt *p;
	ssize_t n;

	p = mpt_pkt_alloc(&d->pool);
	if (!p) {
		d->st.pool_exhausted++;
		return -1;	/* the kernel queues (and drops) until buffers return */
	}
	n = mpt_tun_read(&d->tun, &vh, p->data, d->pool.mtu);
	if (n <= 0) {
		mpt_pkt_put(&d->pool, p);
		return read_failed(d, n, now);
	}
	p->len = (uint32_t)n;
	tun_packet(d, p, now);
	return 1;
}

/* With offloads: a (super-)packet into tun_buf, cut into pool buffers (proto/gso.h).
 * Packets queued, or -1. */
static int tun_read_vnet(struct mpt_daemon *d, uint64_t now)
{
	struct mpt_vnet_hdr vh;
	const char *why;
	struct mpt_gso g;
	ssize_t n;

	if (mpt_pkt_pool_avail(&d->pool) < MPT_TUN_BUF / 1024) {
		d->st.pool_exhausted++;
		return -1;	/* the kernel queues (and drops) until buffers return */
	}
	n = mpt_tun_read(&d->tun, &vh, d->tun_buf, MPT_TUN_BUF);
	if (n <= 0)
		return read_failed(d, n, now);
	if (mpt_gso_prepare(&g, &vh, d->tun_buf, (uint32_t)n, d->pool.mtu, &why) < 0) {
		d->st.tun_gso_bad++;
		if (log_ratelimit_ok(&d->rl, now))
			log_debug("%s: packet of %zd bytes (GSO type %u) dropped: %s",
				  d->tun.name, n, vh.gso_type, why);
		return 0;
	}
	if (mpt_pkt_pool_avail(&d->pool) < g.nsegs) {
		d->st.pool_exhausted++;
		return -1;
	}
	if (g.gso != MPT_VNET_GSO_NONE) {
		d->st.tun_gso_pkts++;
		d->st.tun_gso_segs += g.nsegs;
	}
	for (uint32_t i = 0; i < g.nsegs; i++) {
		struct mpt_pkt *p = mpt_pkt_alloc(&d->pool);

		if (!p) {
			d->st.pool_exhausted++;
			return -1;
		}
		p->len = mpt_gso_segment(&g, i, p->data);
		tun_packet(d, p, now);
	}
	return (int)g.nsegs;
}

void mpt_tun_readable(struct mpt_daemon *d)
{
	uint64_t now = mpt_now_ns();
	int pkts = 0;

	for (int i = 0; i < MPT_TUN_BATCH && pkts < MPT_TUN_SEGS; i++) {
		int n = d->tun.vnet ? tun_read_vnet(d, now) : tun_read_one(d, now);

		if (n < 0)
			break;
		pkts += n;
	}
	mpt_daemon_flush_dirty(d, now);
}
