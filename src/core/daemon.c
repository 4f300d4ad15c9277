// SPDX-License-Identifier: MIT
/*
 * Daemon start-up, shutdown and the event-loop glue: TUN, UDP sockets, netlink link
 * state of the UE's path devices, signals. Start-up unwinds through a goto ladder;
 * every failure names what failed and the value that made it fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "sys.h"

#define CONTAINER(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* Before the loop waits: the TCP run coalesced for the TUN goes out (tunout.c). */
static void tun_flush_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop;
	(void)revents;
	mpt_tun_flush(CONTAINER(w, struct mpt_daemon, tun_flush_w));
}

static void tun_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	mpt_tun_readable(CONTAINER(w, struct mpt_daemon, tun_io));
}

static void listen_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mpt_daemon *d = CONTAINER(w, struct mpt_daemon, listen_io);

	mpt_rx_socket(d, d->listen_fd, -1);
}

static void path_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mpt_daemon *d = w->data;
	int i = (int)(w - d->path_io);

	mpt_rx_socket(d, d->path_fd[i], i);
}

/* Recompute the UE paths' link state from netlink (events are rare: just re-query). */
static void refresh_links(struct mpt_daemon *d)
{
	struct mpt_session *s = &d->sessions[0];
	uint64_t now = mpt_now_ns();

	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path_config *pc = &d->cfg.paths[i];
		struct mpt_path *p = &s->paths[i];
		bool ok = true;
		int family = pc->endpoint.ss_family;

		if (pc->device[0])
			ok = mpt_netmon_link_is_up(&d->nm, pc->device) == 1 &&
			     mpt_netmon_has_addr(&d->nm, pc->device,
						 family == AF_INET6 ? AF_INET6 : AF_INET) == 1;
		if (ok == p->link_ok)
			continue;
		p->link_ok = ok;
		log_info("%s: path %s: device %s %s", s->name, p->name, pc->device,
			 ok ? "up" : "down or without address");
		if (!ok && p->alive) {
			p->alive = false;
			p->st.downs++;
		}
		if (ok) {
			/* probe at once: the path comes back as soon as the peer answers */
			p->next_probe_ns = now;
			if (!mpt_session_established(s))
				s->hs_next_ns = now;
		}
		mpt_session_path_changed(s, p, now);
		mpt_session_status_changed(s, p, now);
	}
	mpt_daemon_flush_dirty(d, now);
}

static void nm_link(void *arg, const struct mpt_netmon_link *ev)
{
}

static void nm_addr(void *arg, const struct mpt_netmon_addr *ev)
{
}

static void nm_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mpt_daemon *d = CONTAINER(w, struct mpt_daemon, nm_io);

	mpt_netmon_process(&d->nm);
	refresh_links(d);
}

static void sig_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct mpt_daemon *d = w->data;
	char err[512];

	if (w->signum == SIGHUP) {
		if (mpt_daemon_reload(d, err, sizeof(err)) < 0)
			log_warnx("reload failed, keeping the running configuration: %s", err);
		return;
	}
	log_info("signal %d: shutting down", w->signum);
	mpt_sd_notify("STOPPING=1");
	ev_break(loop, EVBREAK_ALL);
}

static int open_tun(struct mpt_daemon *d, char *err, size_t errlen)
{
	const struct mpt_config *cfg = &d->cfg;
	int ret;

	ret = mpt_tun_open(&d->tun, cfg->tun_name, d->inner_mtu, cfg->tun_offload);
	if (ret < 0) {
		snprintf(err, errlen, "TUN '%s': %s", cfg->tun_name, strerror(-ret));
		return ret;
	}
	for (unsigned i = 0; i < cfg->naddrs; i++) {
		ret = mpt_tun_add_addr(&d->tun, &cfg->addrs[i]);
		if (ret < 0)
			goto fail;
	}
	ret = mpt_tun_up(&d->tun);
	if (ret < 0)
		goto fail;
	for (unsigned i = 0; i < cfg->nroutes; i++) {
		ret = mpt_tun_add_route(&d->tun, &cfg->routes[i]);
		if (ret < 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "configuring %s: %s", d->tun.name, strerror(-ret));
	mpt_tun_close(&d->tun);
	return ret;
}

static int open_sockets(struct mpt_daemon *d, char *err, size_t errlen)
{
	const struct mpt_config *cfg = &d->cfg;
	char addr[80];

	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		d->path_fd[i] = -1;
	d->listen_fd = -1;
	if (cfg->role == MPT_ROLE_ANCHOR) {
		struct sockaddr_storage l = cfg->listen;
		socklen_t len = l.ss_family == AF_INET ? sizeof(struct sockaddr_in)
						       : sizeof(struct sockaddr_in6);

		d->listen_fd = mpt_udp_socket(l.ss_family, err, errlen);
		if (d->listen_fd < 0)
			return d->listen_fd;
		if (bind(d->listen_fd, (struct sockaddr *)&l, len) < 0) {
			int ret = -errno;

			mpt_sockaddr_format(&l, addr, sizeof(addr));
			snprintf(err, errlen, "ListenPort: binding %s: %s", addr, strerror(errno));
			return ret;
		}
		/* replies leave from the address each UE path sends to (udp_local.h) */
		if (mpt_local_enable(d->listen_fd, l.ss_family) < 0)
			log_warn("listen socket: IP_PKTINFO/IPV6_RECVPKTINFO: replies leave "
				 "from the address routing picks");
		return 0;
	}
	for (unsigned i = 0; i < cfg->npaths; i++) {
		d->path_fd[i] = mpt_path_socket_open(&cfg->paths[i], err, errlen);
		if (d->path_fd[i] < 0)
			return d->path_fd[i];
	}
	return 0;
}

static void close_sockets(struct mpt_daemon *d)
{
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		if (d->path_fd[i] >= 0) {
			ev_io_stop(d->loop, &d->path_io[i]);
			close(d->path_fd[i]);
			d->path_fd[i] = -1;
		}
	}
	if (d->listen_fd >= 0) {
		ev_io_stop(d->loop, &d->listen_io);
		close(d->listen_fd);
		d->listen_fd = -1;
	}
}

static int open_sessions(struct mpt_daemon *d, char *err, size_t errlen)
{
	const struct mpt_config *cfg = &d->cfg;
	unsigned n = cfg->role == MPT_ROLE_UE ? 1 : cfg->npeers;
	int ret;

	if (n > MPT_MAX_SESSIONS) {
		snprintf(err, errlen, "%u peers: at most %d", n, MPT_MAX_SESSIONS);
		return -EINVAL;
	}
	d->sessions = calloc(n, sizeof(*d->sessions));
	if (!d->sessions || mpt_idxmap_init(&d->idxmap, n * 4) < 0) {
		snprintf(err, errlen, "out of memory for %u sessions", n);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		ret = mpt_session_init(&d->sessions[i], d, i, &cfg->peers[i], err, errlen);
		if (ret < 0)
			return ret;
		d->nsessions = i + 1;
	}
	return 0;
}

static void close_sessions(struct mpt_daemon *d)
{
	for (unsigned i = 0; i < d->nsessions; i++)
		mpt_session_free(&d->sessions[i]);
	free(d->sessions);
	mpt_idxmap_free(&d->idxmap);
	d->sessions = NULL;
	d->nsessions = 0;
}

/* One timer for every quiet session (session_idle.c), running while there are any. */
static void quiet_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mpt_daemon *d = CONTAINER(w, struct mpt_daemon, quiet_w);
	uint64_t now = mpt_now_ns();

	mpt_daemon_quiet_sweep(d, now);
	mpt_daemon_flush_dirty(d, now);		/* the sessions woken */
	if (!d->nquiet)
		return;				/* stopped meanwhile (ev_timer: not repeating) */
	w->repeat = mpt_daemon_quiet_period(d);	/* a reload may change it */
	ev_timer_again(loop, w);
}

static const struct mpt_netmon_ops nm_ops = { .link = nm_link, .addr = nm_addr };

static void start_watchers(struct mpt_daemon *d)
{
	ev_io_init(&d->tun_io, tun_cb, d->tun.fd, EV_READ);
	ev_io_start(d->loop, &d->tun_io);
	ev_prepare_init(&d->tun_flush_w, tun_flush_cb);
	ev_prepare_start(d->loop, &d->tun_flush_w);
	if (d->listen_fd >= 0) {
		ev_io_init(&d->listen_io, listen_cb, d->listen_fd, EV_READ);
		ev_io_start(d->loop, &d->listen_io);
	}
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		if (d->path_fd[i] < 0)
			continue;
		ev_io_init(&d->path_io[i], path_cb, d->path_fd[i], EV_READ);
		d->path_io[i].data = d;
		ev_io_start(d->loop, &d->path_io[i]);
	}
	if (d->nm_open) {
		ev_io_init(&d->nm_io, nm_cb, mpt_netmon_fd(&d->nm), EV_READ);
		ev_io_start(d->loop, &d->nm_io);
	}
	ev_init(&d->quiet_w, quiet_cb);		/* started by the first quiet session */
	ev_signal_init(&d->sig_term, sig_cb, SIGTERM);
	ev_signal_init(&d->sig_int, sig_cb, SIGINT);
	ev_signal_init(&d->sig_hup, sig_cb, SIGHUP);
	d->sig_term.data = d->sig_int.data = d->sig_hup.data = d;
	ev_signal_start(d->loop, &d->sig_term);
	ev_signal_start(d->loop, &d->sig_int);
	ev_signal_start(d->loop, &d->sig_hup);
}

/* systemd STATUS=: paths up per session at a glance (and READY=1 the first time). */
static void session_path_state(struct mpt_session *s, struct mpt_path *p)
{
	mpt_daemon_notify_status(s->d, false);
}

static const struct mpt_session_ops session_ops = {
	.handshake_due = mpt_hs_ue_start,
	.path_state = session_path_state,
};

static int ctl_open(struct mpt_daemon *d, char *err, size_t errlen)
{
	return d->ops && d->ops->ctl_open ? d->ops->ctl_open(d, err, errlen) : 0;
}

static void ctl_close(struct mpt_daemon *d)
{
	if (d->ops && d->ops->ctl_close)
		d->ops->ctl_close(d);
}

/* What runs beside the tunnel: the control socket, and the data budgets, whose state
 * file is read here, before privileges go (budget_state.h). */
static int open_services(struct mpt_daemon *d, char *err, size_t errlen)
{
	int ret = ctl_open(d, err, errlen);

	if (ret < 0)
		return ret;
	ret = mpt_budgets_open(d, err, errlen);
	if (ret < 0)
		ctl_close(d);
	return ret;
}

/* The budgets' usage is saved here (at exit or on a failed start). */
static void close_services(struct mpt_daemon *d)
{
	mpt_budgets_close(d);
	ctl_close(d);
}

void mpt_daemon_notify_status(struct mpt_daemon *d, bool ready)
{
	char buf[256];
	size_t off = 0;
	unsigned established = 0;

	if (d->cfg.role == MPT_ROLE_UE) {
		const struct mpt_session *s = &d->sessions[0];

		for (unsigned i = 0; i < s->npaths && off < sizeof(buf); i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %s",
						i ? ", " : "", s->paths[i].name,
						mpt_path_usable(&s->paths[i]) ? "up" : "down");
		mpt_sd_notifyf("%sSTATUS=ue %s: %s; scheduler %s", ready ? "READY=1\n" : "",
			       s->cur.valid ? "established" : "handshaking",
			       s->npaths ? buf : "no paths", s->sched->name);
		return;
	}
	for (unsigned i = 0; i < d->nsessions; i++)
		established += d->sessions[i].cur.valid;
	mpt_sd_notifyf("%sSTATUS=anchor: %u of %u peer(s) established; scheduler %s",
		       ready ? "READY=1\n" : "", established, d->nsessions, d->cfg.sched);
}

/* The daemon's secrets and seeds: flow hash key, RNG, static key, handshake guard. */
static int init_identity(struct mpt_daemon *d, char *err, size_t errlen)
{
	struct mpt_config *cfg = &d->cfg;
	uint8_t seed[16 + 32];		/* flow hash key, RNG state */
	int ret;

	ret = mpt_random_bytes(seed, sizeof(seed));
	if (ret < 0) {
		snprintf(err, errlen, "getrandom: %s", strerror(-ret));
		return ret;
	}
	mpt_siphash_key_from_bytes(&d->flow_key, seed);
	if (cfg->seed)
		mpt_rng_seed(&d->rng, cfg->seed);	/* reproducible runs */
	else
		mpt_rng_seed_bytes(&d->rng, seed + 16);
	explicit_bzero(seed, sizeof(seed));
	mpt_ruleset_init(&d->rules, 0);
	d->rules.gen = (uint32_t)mpt_rng_u64(&d->rng) | 1;	/* RULES set numbers */
	ret = mpt_ruleset_replace(&d->rules, cfg->rules, cfg->nrules);
	if (ret < 0) {
		snprintf(err, errlen, "[Rule]: %s", strerror(-ret));
		return ret;
	}
	ret = mpt_noise_local_init(&d->local, cfg->private_key);
	if (ret < 0) {
		snprintf(err, errlen, "PrivateKey: not a usable X25519 key");
		return ret;
	}
	ret = mpt_hs_guard_init(&d->hs_guard, d->local.pub, mpt_rng_u64(&d->rng),
				mpt_now_ns());
	if (ret < 0) {
		snprintf(err, errlen, "handshake admission: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* The send batch and the receive buffers (freed by the caller on failure too). */
static int alloc_batches(struct mpt_daemon *d)
{
	d->txb.cap = (size_t)MPT_TX_BATCH * (d->inner_mtu + MPT_WIRE_DATA_OVERHEAD +
					     MPT_PKT_TAILROOM);
	d->txb.buf = malloc(d->txb.cap);
	d->rx.buf = malloc((size_t)MPT_RX_BATCH * MPT_RX_BUF);
	d->rx.ctl = malloc((size_t)MPT_RX_BATCH * MPT_RX_CTL);
	d->tun_buf = malloc(MPT_TUN_BUF);
	d->gro.buf = malloc(MPT_GRO_MAX);
	return !d->txb.buf || !d->rx.buf || !d->rx.ctl || !d->tun_buf || !d->gro.buf ?
	       -ENOMEM : 0;
}

static void free_batches(struct mpt_daemon *d)
{
	free(d->txb.buf);
	free(d->rx.buf);
	free(d->rx.ctl);
	free(d->tun_buf);
	free(d->gro.buf);
	d->txb.buf = d->rx.buf = d->rx.ctl = d->tun_buf = d->gro.buf = NULL;
	d->gro.len = 0;
}

/* UE: the netlink monitor of the paths' devices. */
static int open_netmon(struct mpt_daemon *d, char *err, size_t errlen)
{
	int ret;

	if (d->cfg.role == MPT_ROLE_UE) {
		ret = mpt_netmon_open(&d->nm, &nm_ops, d);
		if (ret < 0) {
			snprintf(err, errlen, "netlink monitor: %s", strerror(-ret));
			return ret;
		}
		d->nm_open = true;
	}
	return 0;
}

/* Started and unprivileged: the first handshake, the timers, the news to systemd. */
static void go_live(struct mpt_daemon *d)
{
	const struct mpt_config *cfg = &d->cfg;

	if (cfg->role == MPT_ROLE_UE) {
		refresh_links(d);
		d->sessions[0].hs_next_ns = mpt_now_ns();
		mpt_session_arm(&d->sessions[0], mpt_now_ns());
	} else {
		for (unsigned i = 0; i < d->nsessions; i++)
			mpt_session_arm(&d->sessions[i], mpt_now_ns());
	}
	log_info("%s %s up: %s, mtu %u, scheduler %s, %u %s", cfg->role == MPT_ROLE_UE ?
		 "ue" : "anchor", MPTUND_VERSION, d->tun.name, d->inner_mtu, cfg->sched,
		 cfg->role == MPT_ROLE_UE ? cfg->npaths : d->nsessions,
		 cfg->role == MPT_ROLE_UE ? "path(s)" : "peer(s)");
	mpt_daemon_notify_status(d, true);
}

int mpt_daemon_start(struct mpt_daemon *d, const char *config_path, char *err,
		     size_t errlen)
{
	struct mpt_config *cfg = &d->cfg;
	uint32_t npkts;
	int ret;

	d->start_ns = mpt_now_ns();
	d->session_ops = &session_ops;
	d->tun.fd = -1;
	snprintf(d->config_path, sizeof(d->config_path), "%s", config_path);
	ret = mpt_config_load(cfg, config_path, err, errlen);
	if (ret < 0)
		return ret;
	if (mpt_sched_registry_check(err, errlen) < 0 || mpt_cc_registry_check(err, errlen) < 0)
		goto fail_cfg;
	log_set_level(cfg->log_level);
	d->inner_mtu = mpt_config_inner_mtu(cfg);
	ret = init_identity(d, err, errlen);
	if (ret < 0)
		goto fail_cfg;
	/* the most buffers the sessions can hold at once (queues and reorder buffers
	 * full) plus batches in flight; allocated as the load needs them */
	npkts = (cfg->role == MPT_ROLE_UE ? 1 : cfg->npeers) *
		(cfg->queue_limit + cfg->reorder_buffer) + 8192;
	ret = mpt_pkt_pool_init(&d->pool, npkts, d->inner_mtu);
	if (ret < 0) {
		snprintf(err, errlen, "packet buffers (%u x %u bytes): out of memory", npkts,
			 d->inner_mtu);
		goto fail_cfg;
	}
	ret = alloc_batches(d);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail_pool;
	}
	d->loop = ev_default_loop(EVFLAG_AUTO);
	ret = open_tun(d, err, errlen);
	if (ret < 0)
		goto fail_pool;
	ret = open_sockets(d, err, errlen);
	if (ret < 0)
		goto fail_sockets;
	ret = open_netmon(d, err, errlen);
	if (ret < 0)
		goto fail_sockets;
	ret = open_sessions(d, err, errlen);
	if (ret < 0)
		goto fail_sessions;
	ret = open_services(d, err, errlen);
	if (ret < 0)
		goto fail_sessions;
	start_watchers(d);
	ret = mpt_drop_privileges(cfg->user, cfg->group, err, errlen);
	if (ret < 0)
		goto fail_services;
	go_live(d);
	return 0;

fail_services:
	close_services(d);
fail_sessions:
	close_sessions(d);
	if (d->nm_open)
		mpt_netmon_close(&d->nm);
	d->nm_open = false;
fail_sockets:
	close_sockets(d);
	mpt_tun_close(&d->tun);
fail_pool:
	free_batches(d);
	mpt_pkt_pool_free(&d->pool);
fail_cfg:
	mpt_ruleset_free(&d->rules);
	mpt_hs_guard_free(&d->hs_guard);
	mpt_noise_local_free(&d->local);
	mpt_config_free(cfg);
	return ret < 0 ? ret : -EINVAL;
}

void mpt_daemon_stop(struct mpt_daemon *d)
{
	ev_timer_stop(d->loop, &d->quiet_w);
	close_services(d);
	close_sessions(d);
	if (d->nm_open) {
		ev_io_stop(d->loop, &d->nm_io);
		mpt_netmon_close(&d->nm);
		d->nm_open = false;
	}
	close_sockets(d);
	ev_io_stop(d->loop, &d->tun_io);
	ev_prepare_stop(d->loop, &d->tun_flush_w);
	mpt_tun_flush(d);
	mpt_tun_close(&d->tun);
	free_batches(d);
	mpt_pkt_pool_free(&d->pool);
	mpt_ruleset_free(&d->rules);
	mpt_config_free(&d->cfg);
	mpt_noise_local_free(&d->local);
	explicit_bzero(&d->local, sizeof(d->local));
	mpt_hs_guard_free(&d->hs_guard);
}
