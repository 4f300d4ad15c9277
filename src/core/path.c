// SPDX-License-Identifier: MIT
/* A path's state: set-up, controller, view for the schedulers, UDP socket. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "path.h"
#include "udp.h"

/* The recovery's release callback: an acknowledged kept packet goes back to the pool,
 * a lost one waits in lostq for the session's verdict. Both tell the path MTU
 * discovery whether packets of their size pass (its black-hole detector). */
static void path_release(void *arg, void *data, bool lost)
{
	struct mpt_path *p = arg;
	struct mpt_pkt *pkt = data;
	uint32_t size = pkt->len + MPT_WIRE_DATA_OVERHEAD + mpt_path_ip_udp(p);

	/* the packet's send time stands for now: a search a black hole starts is due at
	 * once either way, and no clock read is added per acknowledged packet */
	if (mpt_plpmtud_on_data(&p->pmtu, (uint16_t)MPT_MIN(size, 65535u), pkt->sent_ns, lost,
				pkt->sent_ns))
		log_debug("path %s: packets of %u bytes lost in a row: probing that size "
			  "and the base (a black hole or congestion?)", p->name, size);
	mpt_path_flowrep_note(p, pkt->meta.flow_hash, pkt->len, lost);
	if (lost)
		mpt_pktq_push(&p->lostq, pkt);
	else
		mpt_pkt_put(p->pool, pkt);
}

void mpt_path_flowrep_note(struct mpt_path *p, uint32_t flow, uint32_t bytes, bool lost)
{
	struct mpt_flowrep *r = p->flowrep;
	unsigned i;

	for (i = 0; i < p->nflowrep && r[i].flow != flow; i++)
		;
	if (i == p->nflowrep) {
		if (i == MPT_FLOWREP_MAX)
			return;
		p->nflowrep++;
		r[i] = (struct mpt_flowrep){ .flow = flow };
	}
	if (lost)
		r[i].lost += bytes;
	else
		r[i].acked += bytes;
}

int mpt_path_init(struct mpt_path *p, uint8_t id, const struct mpt_config *cfg,
		  const struct mpt_path_config *pc, struct mpt_pkt_pool *pool, uint64_t seed,
		  uint64_t now, char *err, size_t errlen)
{
	struct mpt_recovery_params rp;
	const struct mpt_cc_ops *ops;
	const char *ccname;
	int ret;

	memset(p, 0, sizeof(*p));
	p->id = id;
	p->fd = -1;
	p->admin_up = true;
	p->link_ok = true;
	p->cost = id;
	mpt_agg_ref_init(&p->agg);
	snprintf(p->name, sizeof(p->name), "path%u", id);
	if (pc) {
		snprintf(p->name, sizeof(p->name), "%s", pc->name);
		p->cost = pc->cost;
		p->weight = pc->weight;
		p->tags = pc->tags;
		p->capacity = pc->capacity;
		p->admin_up = !pc->disabled;
	}
	mpt_rng_seed(&p->rng, seed);
	mpt_recovery_default_params(&rp);
	rp.max_ack_delay_ns = MPT_ACK_DEFAULT_MAX_DELAY_NS;	/* the peer's acktrack */
	ret = mpt_recovery_init(&p->rec, &rp, MPT_PATH_RING);
	if (ret < 0) {
		snprintf(err, errlen, "path %s: %s", p->name, strerror(-ret));
		return ret;
	}
	p->pool = pool;
	mpt_recovery_set_release(&p->rec, path_release, p);
	mpt_acktrack_init(&p->ackt, id, MPT_ACK_DEFAULT_MAX_DELAY_NS, 4);
	p->pacer.horizon_ns = MPT_NSEC_PER_MSEC;
	p->gso_ok = true;		/* until a send says otherwise */
	/* search no higher than the largest datagram the tunnel sends: a full inner
	 * packet over IPv6 (MTU = set below OuterMTU less the overhead) */
	p->outer_mtu = (uint16_t)MPT_MIN(MPT_MIN(cfg->outer_mtu, mpt_config_inner_mtu(cfg) +
						 40u + 8u + MPT_WIRE_DATA_OVERHEAD), 65535u);
	p->pinned_mtu = pc ? (uint16_t)pc->mtu : 0;
	mpt_plpmtud_init(&p->pmtu, MPT_PMTU_BASE_V4, p->outer_mtu, p->pinned_mtu);
	p->next_pn = 1;
	ccname = pc && pc->cc[0] ? pc->cc : cfg->cc;
	ops = mpt_cc_find(ccname);
	if (!ops) {
		snprintf(err, errlen, "path %s: unknown congestion controller '%s'", p->name,
			 ccname);
		mpt_recovery_free(&p->rec);
		return -EINVAL;
	}
	ret = mpt_path_set_cc(p, ops, cfg, now, err, errlen);
	if (ret < 0)
		mpt_recovery_free(&p->rec);
	return ret;
}

void mpt_path_free(struct mpt_path *p, struct mpt_pkt_pool *pool)
{
	mpt_pktq_purge(&p->txq, pool);
	mpt_recovery_free(&p->rec);		/* kept packets come back through lostq */
	mpt_pktq_purge(&p->lostq, pool);
}

void mpt_path_cc_view(const struct mpt_path *p, struct mpt_cc_path *cp, uint32_t mss)
{
	cp->delivered = p->rec.acked_bytes;
	cp->in_flight = p->rec.in_flight;
	cp->srtt_ns = p->rec.have_rtt ? p->rec.srtt_ns : 0;
	cp->min_rtt_ns = p->rec.have_rtt ? p->rec.min_rtt_ns : 0;
	cp->mss = mss;
	cp->app_limited = p->rec.app_limited != 0;
	cp->probe_rtt_busy = false;	/* the session knows: mpt_session_cc_view */
	cp->capacity = p->capacity;
	cp->max_ack_delay_ns = p->rec.params.max_ack_delay_ns;
}

int mpt_path_set_cc(struct mpt_path *p, const struct mpt_cc_ops *ops,
		    const struct mpt_config *cfg, uint64_t now, char *err, size_t errlen)
{
	struct mpt_cc_path cp;
	struct mpt_cc cc;
	int ret;

	mpt_cc_prepare(&cc, ops);
	ret = mpt_config_apply_cc(cfg, ops, cc.priv, err, errlen);
	if (ret < 0)
		return ret;
	mpt_path_cc_view(p, &cp, mpt_config_inner_mtu(cfg) + MPT_PKT_TAILROOM);
	ops->init(&cc, &cp, &p->rng, now);
	p->cc = cc;
	p->cc_ops = ops;
	return 0;
}

static uint64_t per_s(uint64_t bytes, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)bytes * 1000000000ULL / ns);
}

void mpt_path_meter(struct mpt_path *p, uint64_t now)
{
	struct mpt_path_meter *m = &p->meter;
	uint64_t dt = now - m->start_ns;

	if (m->start_ns && dt < MPT_PATH_METER_NS)
		return;
	if (m->start_ns) {
		m->tx = per_s(p->st.tx_bytes - m->tx0, dt);
		m->rx = per_s(p->st.rx_bytes - m->rx0, dt);
		m->ack_tx = per_s(p->st.ack_tx_bytes - m->ack_tx0, dt);
		m->ack_rx = per_s(p->st.ack_rx_bytes - m->ack_rx0, dt);
	}
	m->start_ns = now;
	m->tx0 = p->st.tx_bytes;
	m->rx0 = p->st.rx_bytes;
	m->ack_tx0 = p->st.ack_tx_bytes;
	m->ack_rx0 = p->st.ack_rx_bytes;
}

void mpt_path_rates(const struct mpt_path *p, uint64_t now, uint64_t rate[4])
{
	const struct mpt_path_meter *m = &p->meter;
	uint64_t dt = now - m->start_ns;

	if (!m->start_ns || dt < 2 * MPT_PATH_METER_NS) {
		rate[0] = m->tx;
		rate[1] = m->rx;
		rate[2] = m->ack_tx;
		rate[3] = m->ack_rx;
		return;
	}
	rate[0] = per_s(p->st.tx_bytes - m->tx0, dt);	/* not flushed for a while */
	rate[1] = per_s(p->st.rx_bytes - m->rx0, dt);
	rate[2] = per_s(p->st.ack_tx_bytes - m->ack_tx0, dt);
	rate[3] = per_s(p->st.ack_rx_bytes - m->ack_rx0, dt);
}

void mpt_path_reset(struct mpt_path *p, struct mpt_pkt_pool *pool, uint64_t now)
{
	struct mpt_cc_path cp;

	p->st.txq_drops += p->txq.pkts;
	mpt_pktq_purge(&p->txq, pool);
	mpt_recovery_reset(&p->rec);
	p->nflowrep = 0;		/* the flows learn of it from the path going down */
	p->pto_at = 0;
	p->pto_backoff = 0;
	if (p->cc_ops->on_path_reset) {
		mpt_path_cc_view(p, &cp, 1500);
		p->cc_ops->on_path_reset(&p->cc, &cp, now);
	}
}

void mpt_path_pmtu_start(struct mpt_path *p, uint64_t now)
{
	uint32_t base = mpt_path_ip_udp(p) == 28 ? MPT_PMTU_BASE_V4 : MPT_PMTU_BASE_V6;

	mpt_plpmtud_init(&p->pmtu, (uint16_t)MPT_MIN(base, p->outer_mtu), p->outer_mtu,
			 p->pinned_mtu);
	mpt_plpmtud_start(&p->pmtu, now);
}

void mpt_path_restart(struct mpt_path *p, struct mpt_pkt_pool *pool, uint64_t now)
{
	mpt_plpmtud_init(&p->pmtu, p->pmtu.base, p->outer_mtu, p->pinned_mtu);
	mpt_path_reset(p, pool, now);
	mpt_pktq_purge(&p->lostq, pool);	/* for the old peer: not re-sent */
	mpt_acktrack_init(&p->ackt, p->id, MPT_ACK_DEFAULT_MAX_DELAY_NS, 4);
	p->ackf_rx_any = false;
	p->peer_out = false;
	p->status_seq = 0;
	p->ackf_threshold = 0;
	p->ackf_delay_us = 0;
	p->rec.params.max_ack_delay_ns = MPT_ACK_DEFAULT_MAX_DELAY_NS;
	p->next_pn = 1;
	p->alive = false;
	p->next_probe_ns = now;
	p->probe_ivl_ns = 0;
	p->probe_sent_ns = 0;
	mpt_pathval_reset(&p->pv);
}

void mpt_path_fill_view(const struct mpt_path *p, struct mpt_path_view *v, uint32_t mtu)
{
	const struct mpt_recovery *r = &p->rec;

	v->id = p->id;
	memcpy(v->name, p->name, sizeof(v->name));
	v->cost = p->cost;
	v->weight = p->weight;
	v->tags = p->tags;
	v->capacity = p->capacity;
	v->up = mpt_path_usable(p);
	v->mtu = mpt_path_max_inner(p, mtu);
	v->cwnd = p->cc.cwnd;
	v->in_flight = mpt_path_in_flight(p);
	v->pacing_rate = p->cc.pacing_rate;
	v->btlbw = p->cc.btlbw;
	v->delivery_rate = r->delivery_rate;
	v->cc_state = p->cc.state;
	v->srtt_ns = r->have_rtt ? r->srtt_ns : 0;
	v->rttvar_ns = r->have_rtt ? r->rttvar_ns : 0;
	v->min_rtt_ns = r->have_rtt ? r->min_rtt_ns : 0;
	v->latest_rtt_ns = r->have_rtt ? r->latest_rtt_ns : 0;
	v->sent_pkts = r->sent_pkts;
	v->sent_bytes = r->sent_bytes;
	v->delivered_pkts = r->acked_pkts;
	v->delivered_bytes = r->acked_bytes;
	v->lost_pkts = r->lost_pkts;
	v->lost_bytes = r->lost_bytes;
	v->queued_bytes = p->txq.bytes;
}

int mpt_udp_socket(int family, char *err, size_t errlen)
{
	int fd, one = 1, bufsz = 4 << 20, ret;

	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "UDP socket: %s", strerror(errno));
		return ret;
	}
	/* big buffers: bursts of a paced path and receive batches must not drop */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsz, sizeof(bufsz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	if (family == AF_INET6) {
		int zero = 0;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	/* Never fragment outside (plpmtud.h): DF on every datagram, GSO segments
	 * included, and the kernel's own PMTU cache ignored (PROBE), so that the
	 * tunnel's discovery alone decides sizes; ICMP errors come to the error queue
	 * (RECVERR) as hints. An IPv6 socket also carries IPv4 (v4-mapped). */
	{
		int probe4 = IP_PMTUDISC_PROBE, probe6 = IPV6_PMTUDISC_PROBE;

		if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &probe4, sizeof(probe4)) < 0 &&
		    family == AF_INET)
			log_warn("IP_MTU_DISCOVER");
		setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
		if (family == AF_INET6) {
			if (setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &probe6,
				       sizeof(probe6)) < 0)
				log_warn("IPV6_MTU_DISCOVER");
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
			setsockopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, &one, sizeof(one));
		}
	}
	/* receive runs of datagrams as one message where the kernel coalesced them
	 * (the peer's UDP GSO sends): rx.c splits them; best effort */
	setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
	return fd;
}

int mpt_path_socket_open(const struct mpt_path_config *pc, char *err, size_t errlen)
{
	char addr[80];
	int family = pc->endpoint.ss_family, fd, ret;

	fd = mpt_udp_socket(family, err, errlen);
	if (fd < 0)
		return fd;
	if (pc->device[0] && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, pc->device,
					(socklen_t)strlen(pc->device)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "path %s: Device '%s': %s", pc->name, pc->device,
			 strerror(errno));
		close(fd);
		return ret;
	}
	if (pc->source.ss_family) {
		struct sockaddr_storage src = pc->source;
		socklen_t len = src.ss_family == AF_INET ? sizeof(struct sockaddr_in)
							 : sizeof(struct sockaddr_in6);

		if (src.ss_family != family) {
			/* v4 source with a v4 endpoint on a v6 socket would need mapping;
			 * the config check keeps families equal, this is a safety net */
			snprintf(err, errlen, "path %s: Source and Endpoint families differ",
				 pc->name);
			close(fd);
			return -EINVAL;
		}
		if (bind(fd, (struct sockaddr *)&src, len) < 0) {
			ret = -errno;
			mpt_sockaddr_format(&pc->source, addr, sizeof(addr));
			snprintf(err, errlen, "path %s: Source '%s': %s", pc->name, addr,
				 strerror(errno));
			close(fd);
			return ret;
		}
	}
	return fd;
}

int mpt_path_sendto_addr(const struct mpt_path *p, const uint8_t *buf, size_t len,
			 const struct sockaddr_storage *dst, socklen_t dstlen)
{
	return mpt_local_sendto(p->fd, buf, len, (const struct sockaddr *)dst, dstlen,
				&p->local);
}

int mpt_path_sendto(const struct mpt_path *p, const uint8_t *buf, size_t len)
{
	return mpt_path_sendto_addr(p, buf, len, &p->remote, p->remote_len);
}
