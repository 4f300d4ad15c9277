// SPDX-License-Identifier: MIT
/*
 * Path MTU on a session (plpmtud.h, mptund.conf(5) PATH MTU): ICMP hints from the
 * sockets' error queues, and inner packets of every size on paths of different sizes
 * (each path's probe rounds run from the session timer: session_timer.c).
 *
 * How inner packets fit: the TUN's MTU stays OuterMTU less the tunnel's exact
 * overhead, so a host behind the UE uses full-size packets where any path carries
 * them. The scheduler gives a packet only to paths whose current PLPMTU carries it
 * (size-aware scheduling: a small path takes small packets, the others the large
 * ones); a packet that no usable path can carry, and none may once its search ends,
 * is answered with an ICMP "packet too big" into the TUN (icmp_ptb.h) announcing the
 * largest inner packet a usable path carries, so the host's TCP lowers its MSS for
 * that destination; an IPv4 packet without DF is cut into fragments the largest usable
 * path carries as it leaves the TUN (ipfrag.h: the sender allowed fragmentation, and
 * the host at the far end reassembles), before it gets a data sequence number. A
 * packet that only a path still searching may carry waits in the scheduler queue for
 * the search (about a second).
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"
#include "icmp_ptb.h"
#include "ipfrag.h"
#include "log.h"
#include "session.h"

static bool same_addr(const struct sockaddr_storage *a, socklen_t alen,
		      const struct sockaddr_storage *b, socklen_t blen)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
	}
	(void)alen;
	(void)blen;
	return false;
}

void mpt_daemon_on_ptb(struct mpt_daemon *d, int fd, int path_hint,
		       const struct sockaddr_storage *to, socklen_t tolen, uint32_t mtu,
		       uint64_t now)
{
	for (unsigned si = 0; si < d->nsessions; si++) {
		struct mpt_session *s = &d->sessions[si];

		for (unsigned i = 0; i < s->npaths; i++) {
			struct mpt_path *p = &s->paths[i];

			if (!p->used || p->fd != fd || (path_hint >= 0 && (int)i != path_hint) ||
			    !same_addr(&p->remote, p->remote_len, to, tolen))
				continue;
			if (mpt_plpmtud_on_ptb(&p->pmtu, mtu, now)) {
				log_info("%s: path %s: ICMP says the path MTU is %u: sending up "
					 "to it and probing", s->name, p->name, mtu);
				mpt_daemon_mark(d, s);
			}
			return;
		}
	}
}

/* Answer a packet no path carries: ICMP into the TUN where due, then drop it. */
static void too_big(struct mpt_session *s, struct mpt_pkt *pkt, uint32_t largest,
		    uint64_t now)
{
	struct mpt_daemon *d = s->d;
	uint8_t msg[MPT_ICMP_PTB_MAX];
	size_t n;

	s->st.too_big_drops++;
	if (now - s->last_ptb_ns >= MPT_NSEC_PER_MSEC) {
		n = mpt_icmp_ptb_build(msg, sizeof(msg), pkt->data, pkt->len, largest);
		if (n && mpt_tun_write(&d->tun, msg, n) >= 0) {
			s->st.ptb_sent++;
			s->last_ptb_ns = now;
		}
	}
	if (log_ratelimit_ok(&s->rl, now))
		log_info("%s: a %u-byte packet fits no path (largest inner packet now %u): "
			 "dropped, %s", s->name, pkt->len, largest,
			 mpt_ip_dont_fragment(pkt->data, pkt->len) ?
			 "the sender told by ICMP" : "IPv4 without DF: no buffers to cut it");
	mpt_sparse_left(&s->sparse, pkt);	/* its flow waits for it no more */
	mpt_pkt_put(&d->pool, pkt);
}

/*
 * A packet that some usable path cannot carry is sent on the others, and its sender
 * is told the smallest path's size by an ICMP too big (ClampMSS): a TCP flow that
 * started before a path's MTU fell (the SYN clamp came too late) lowers its segments
 * and every path carries it again. Linux retransmits the unacknowledged larger
 * segments once on such a message (tcp_simple_retransmit): a one-off cost. At most one
 * message per 10 ms per session.
 */
static void soft_ptb(struct mpt_session *s, const struct mpt_pkt *pkt, uint64_t now)
{
	uint8_t msg[MPT_ICMP_PTB_MAX];
	size_t n;

	if (now - s->last_ptb_ns < 10 * MPT_NSEC_PER_MSEC || pkt->meta.proto != 6)
		return;
	n = mpt_icmp_ptb_build(msg, sizeof(msg), pkt->data, pkt->len, s->clamp_mtu);
	if (n && mpt_tun_write(&s->d->tun, msg, n) >= 0) {
		s->st.ptb_soft++;
		s->last_ptb_ns = now;
	}
}

uint32_t mpt_session_min_fit(const struct mpt_session *s, uint32_t usable)
{
	uint32_t m = UINT32_MAX;

	for (unsigned i = 0; i < s->npaths; i++)
		if (usable & 1u << i)
			m = MPT_MIN(m, s->views[i].mtu);
	return m;
}

uint32_t mpt_session_pick_fitting(struct mpt_session *s, struct mpt_sched_ctx *ctx,
				  uint32_t usable, uint64_t now)
{
	struct mpt_pkt *pkt = s->squeue.head;
	uint32_t fits = 0, mask, largest = 0;
	bool may = false;

	for (unsigned i = 0; i < s->npaths; i++) {
		if (!(usable & 1u << i))
			continue;
		largest = MPT_MAX(largest, s->views[i].mtu);
		if (s->views[i].mtu >= pkt->len)
			fits |= 1u << i;
		else if (mpt_path_may_fit(&s->paths[i], pkt->len))
			may = true;
	}
	if (!fits) {
		if (may || !usable)
			return 0;		/* a search may find room: wait for it */
		too_big(s, mpt_pktq_pop(&s->squeue), largest, now);
		return MPT_PICK_DROPPED;
	}
	if (s->clamp_mtu && s->d->cfg.clamp_mss && pkt->len > s->clamp_mtu)
		soft_ptb(s, pkt, now);
	/* the scheduler chooses among the paths that carry the packet */
	for (unsigned i = 0; i < s->npaths; i++)
		if ((usable & ~fits) & 1u << i)
			s->views[i].up = false;
	mask = s->sched->pick(s->sched_priv, ctx, &pkt->meta) & fits;
	for (unsigned i = 0; i < s->npaths; i++)
		if ((usable & ~fits) & 1u << i)
			s->views[i].up = true;
	return mask;
}

/*
 * The size an IPv4 packet without DF of len bytes is cut to: the largest inner packet
 * a usable path carries now, or 0 when it is not to be cut (a usable path carries it,
 * or may once its search ends; no path is usable: it waits or is answered at
 * scheduling time, as any other packet).
 */
static uint32_t frag_size(const struct mpt_session *s, uint32_t len)
{
	uint32_t largest = 0;

	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *p = &s->paths[i];
		uint32_t fit;

		if (!p->used || !mpt_path_usable(p))
			continue;
		fit = mpt_path_max_inner(p, s->d->pool.mtu);
		if (fit >= len || mpt_path_may_fit(p, len))
			return 0;
		largest = MPT_MAX(largest, fit);
	}
	return largest;
}

bool mpt_session_fragment(struct mpt_session *s, struct mpt_pkt *pkt,
			  struct mpt_pktq *frags)
{
	struct mpt_pkt_pool *pool = &s->d->pool;
	uint32_t size;
	unsigned n;

	if (pkt->len < 20 || pkt->data[0] >> 4 != 4 || (pkt->data[6] & 0x40))
		return false;			/* not IPv4, or DF: the fast way out */
	size = frag_size(s, pkt->len);
	n = size ? mpt_ipv4_frag_count(pkt->data, pkt->len, size) : 0;
	if (!n || mpt_pkt_pool_avail(pool) < n)
		return false;
	for (unsigned i = 0; i < n; i++) {
		struct mpt_pkt *f = mpt_pkt_alloc(pool);

		f->len = (uint32_t)mpt_ipv4_frag_build(pkt->data, pkt->len, size, i, f->data,
						       pool->mtu);
		f->meta = pkt->meta;		/* the flow of the whole packet */
		f->meta.len = f->len;
		mpt_pktq_push(frags, f);
	}
	s->st.frag_pkts++;
	s->st.frag_out_pkts += n;
	mpt_pkt_put(pool, pkt);
	return true;
}
