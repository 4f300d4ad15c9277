/* SPDX-License-Identifier: MIT */
/*
 * The daemon: configuration, the event loop and its watchers, the TUN device, the
 * UDP sockets, the sessions, netlink and the control socket. Configuration and
 * runtime are kept apart; watchers are embedded in the structs that own them.
 */
#ifndef MPTUND_DAEMON_H
#define MPTUND_DAEMON_H

#include <ev.h>
#include <sys/socket.h>

#include "budget_state.h"
#include "config.h"
#include "idxmap.h"
#include "netmon.h"
#include "noise.h"
#include "pkt.h"
#include "hsguard.h"
#include "ruleset.h"
#include "session.h"
#include "siphash.h"
#include "gro.h"
#include "tun.h"

#define MPT_RX_BATCH		32
#define MPT_RX_BUF		65536	/* one message: a datagram or a UDP GRO run */
#define MPT_RX_CTL		128	/* control data of one message (UDP_GRO, PKTINFO) */
#define MPT_TUN_BATCH		64	/* reads of the TUN per readable event ... */
#define MPT_TUN_SEGS		256	/* ... and at most this many packets, segments
					 * of super-packets included */
#define MPT_TUN_BUF		65536	/* one read: a super-packet of up to 64 KiB */
#define MPT_MAX_SESSIONS	65535	/* session index lives in the low 16 bits of
					 * our keypair indices */


struct mpt_ctl_server;
struct mpt_daemon;

/* What the daemon's owner (main.c) plugs in: the layer above the core, the control
 * socket (src/ctl/), is opened and closed through these, so the core never calls into
 * it. Both optional; set before mpt_daemon_start. */
struct mpt_daemon_ops {
	int (*ctl_open)(struct mpt_daemon *d, char *err, size_t errlen);
	void (*ctl_close)(struct mpt_daemon *d);
};

struct mpt_daemon_stats {
	uint64_t rx_datagrams;
	uint64_t drops[MPT_WIRE_REASON_COUNT];	/* before a session was found */
	uint64_t truncated;			/* datagram larger than our buffers */
	uint64_t tun_no_session;		/* TUN packet for no established session */
	uint64_t tun_bad_packet;		/* TUN packet that does not parse */
	uint64_t tun_gso_pkts;			/* TUN super-packets segmented ... */
	uint64_t tun_gso_segs;			/* ... into this many packets */
	uint64_t tun_gso_bad;			/* TUN packet refused by proto/gso */
	uint64_t tun_gro_pkts;			/* super-packets written to the TUN ... */
	uint64_t tun_gro_segs;			/* ... coalesced from this many packets */
	uint64_t tun_gro_write_errors;		/* packets of runs the TUN refused */
	uint64_t pool_exhausted;
	uint64_t icmp_errors;			/* read from the sockets' error queues */
	uint64_t hs_pin_fallbacks;		/* handshake replies the address the init
						 * came to refused (udp_local.h), sent
						 * from the kernel's choice */
	uint64_t reloads, reload_errors;
};

struct mpt_daemon {
	/* configuration */
	struct mpt_config cfg;
	char config_path[256];
	char instance[64];
	uint32_t inner_mtu;
	const struct mpt_daemon_ops *ops;	/* the owner's, or NULL */
	const struct mpt_session_ops *session_ops;	/* the sessions' news */

	/* runtime */
	struct ev_loop *loop;
	uint64_t start_ns;
	struct mpt_pkt_pool pool;
	struct mpt_noise_local local;
	struct mpt_hs_guard hs_guard;		/* anchor: init admission */
	struct mpt_siphash_key flow_key;
	struct mpt_rng rng;
	struct mpt_idxmap idxmap;		/* receiver index -> session (rxindex.c) */

	struct mpt_tun tun;
	ev_io tun_io;
	uint8_t *tun_buf;			/* MPT_TUN_BUF: a read, cut up into pool
						 * buffers (proto/gso.h) */
	struct mpt_gro gro;			/* the TCP run being coalesced for the
						 * TUN (tunout.c) */
	ev_prepare tun_flush_w;			/* writes it before the loop waits */
	int listen_fd;				/* anchor */
	ev_io listen_io;
	int path_fd[MPT_MAX_PATHS];		/* UE: one socket per configured path */
	ev_io path_io[MPT_MAX_PATHS];
	struct mpt_netmon nm;
	bool nm_open;
	ev_io nm_io;
	ev_signal sig_term, sig_int, sig_hup;
	struct mpt_ctl_server *ctl;
	void *ctl_scratch;			/* a scheduler blob for checking "set" */

	struct mpt_ruleset rules;		/* steering rules: [Rule], mptund-ctl rule */
	struct mpt_session *sessions;		/* UE: one; anchor: one per [Peer] */
	unsigned nsessions;
	struct mpt_session *dirty;		/* to flush after the current batch */
	struct mpt_agg_table agg;		/* anchor: load per path name */
	ev_timer quiet_w;			/* anchor: sweeps the quiet sessions, */
	unsigned nquiet;			/* runs while there are any */
	struct mpt_txbatch txb;
	struct {
		uint8_t *buf;			/* MPT_RX_BATCH x MPT_RX_BUF */
		uint8_t *ctl;			/* MPT_RX_BATCH x MPT_RX_CTL */
		uint64_t errq_ns[MPT_MAX_PATHS + 1]; /* error queue last read, per
						 * socket: [0] listen, [1 + i] path i */
	} rx;

	struct log_ratelimit rl;
	struct mpt_daemon_stats st;
	struct mpt_budgets budgets;		/* data budgets (budget_state.h) */
};

int mpt_daemon_start(struct mpt_daemon *d, const char *config_path, char *err,
		     size_t errlen);
void mpt_daemon_stop(struct mpt_daemon *d);
int mpt_daemon_reload(struct mpt_daemon *d, char *err, size_t errlen);

/* Mark a session for flushing at the end of the current batch. */
static inline void mpt_daemon_mark(struct mpt_daemon *d, struct mpt_session *s)
{
	if (!s->dirty) {
		s->dirty = true;
		s->dirty_next = d->dirty;
		d->dirty = s;
	}
}
/* Flush the sessions marked (session.c). */
void mpt_daemon_flush_dirty(struct mpt_daemon *d, uint64_t now);
/* Anchor: the liveness of quiet sessions' paths, for all of them (session_idle.c);
 * a session it wakes is marked, for mpt_daemon_flush_dirty. */
void mpt_daemon_quiet_sweep(struct mpt_daemon *d, uint64_t now);
/* Its period: half of ProbeInterval x ProbeMissLimit, at least ProbeInterval. */
double mpt_daemon_quiet_period(const struct mpt_daemon *d);
/* systemd STATUS= line (READY=1 too when ready); a no-op outside systemd. */
void mpt_daemon_notify_status(struct mpt_daemon *d, bool ready);

/* Handshake glue (handshake.c). */
void mpt_hs_ue_start(struct mpt_session *s, uint64_t now);
void mpt_hs_on_datagram(struct mpt_daemon *d, int type, uint8_t *buf, size_t len,
			int fd, const struct sockaddr_storage *from, socklen_t fromlen,
			const struct mpt_local *local, int path_hint, uint64_t now);
/* Receiver indices (rxindex.c): a new one for session_idx, 32 bits from getrandom,
 * registered in d->idxmap (0 if none could be made); the session that owns index. */
uint32_t mpt_hs_new_index(struct mpt_daemon *d, unsigned session_idx);
struct mpt_session *mpt_daemon_session_by_index(struct mpt_daemon *d, uint32_t index);

/* Datagram reception (rx.c). */
void mpt_rx_datagram(struct mpt_daemon *d, struct mpt_pkt *p, uint8_t *buf, size_t len,
		     int fd, const struct sockaddr_storage *from, socklen_t fromlen,
		     const struct mpt_local *local, int path_hint, uint64_t now);
void mpt_rx_socket(struct mpt_daemon *d, int fd, int path_hint);
/* An ICMP too big (or a local EMSGSIZE) for a datagram sent from fd to `to`, from a
 * socket's error queue: a hint for that path's MTU discovery (session_pmtu.c). */
void mpt_daemon_on_ptb(struct mpt_daemon *d, int fd, int path_hint,
		       const struct sockaddr_storage *to, socklen_t tolen, uint32_t mtu,
		       uint64_t now);
/* TUN reading and writing (tunio.c). */
void mpt_tun_readable(struct mpt_daemon *d);
/* An in-order inner packet to the TUN, maybe held to coalesce (tunout.c): 0 or -errno. */
int mpt_tun_out(struct mpt_daemon *d, const uint8_t *pkt, uint32_t len);
/* Write the run being coalesced, if any. */
void mpt_tun_flush(struct mpt_daemon *d);
/* The reorder buffer's delivery: an in-order packet to the TUN (session_rx.c). */
void mpt_tun_deliver(void *arg, uint64_t dsn, void *pkt, uint32_t len,
		     enum mpt_reorder_why why);
struct mpt_session *mpt_daemon_session_for_dst(struct mpt_daemon *d, int family,
					       const void *addr);

#endif
