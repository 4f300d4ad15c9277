/* SPDX-License-Identifier: MIT */
/*
 * One path of a session: its endpoint, liveness, sender state (packet numbers,
 * recovery, congestion control, pacer queue) and receiver state (ACK tracking).
 * Configuration fields first, then runtime, then counters.
 *
 * Liveness: each side sends a PROBE on every path every probe interval. A path is
 * alive while the peer proves that our packets reach it: a PROBE_ACK, or an ACK of
 * our data on the path. Without such proof for ProbeMissLimit intervals the path is
 * down until the next proof (packets merely arriving from the peer do not count: a
 * path can die in one direction only). The UE also takes a path
 * down at once when netlink says its device went down or lost its address.
 * On the UE an idle path's probe interval doubles with each answered PROBE, up to
 * IdleProbeInterval, and the miss limit counts those longer intervals; data on the
 * path ends the backoff at once (session_timer.c).
 */
#ifndef MPTUND_PATH_H
#define MPTUND_PATH_H

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <mptund/cc.h>
#include <mptund/sched.h>
#include <mptund/wire.h>

#include "acktrack.h"
#include "config.h"
#include "pacer.h"
#include "pathval.h"
#include "path_agg.h"
#include "pkt.h"
#include "plpmtud.h"
#include "recovery.h"
#include "udp_local.h"

#define MPT_PATH_RING		32768	/* packets trackable in flight per path */
#define MPT_TX_BATCH		44	/* 44 x 1443 B fills one 64 KiB GSO send */
#define MPT_GSO_MAX_BYTES	65000	/* UDP payload of one GSO send */

/* Data packets sealed for one path next to each other in buf, sent with UDP GSO runs
 * or one sendmmsg. pkt[i]: the buffer to recycle after the send, NULL when the path's
 * recovery keeps it for retransmission. */
struct mpt_txbatch {
	struct mmsghdr msg[MPT_TX_BATCH];
	struct iovec iov[MPT_TX_BATCH];
	struct mpt_pkt *pkt[MPT_TX_BATCH];
	unsigned n;
	uint8_t *buf;			/* sealed datagrams, cap bytes */
	size_t off, cap;
	union {				/* the source address pin (udp_local.h) */
		char buf[MPT_LOCAL_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
};

struct mpt_path_stats {
	uint64_t tx_pkts, tx_bytes;	/* datagrams sent (all kinds) */
	uint64_t rx_pkts, rx_bytes;	/* authenticated datagrams received */
	uint64_t data_tx, data_rx;	/* DATA frames */
	uint64_t data_tx_bytes;		/* their datagrams' bytes */
	uint64_t acks_tx, acks_rx;
	uint64_t probes_tx, probes_rx;
	uint64_t send_errors;
	uint64_t ack_errors;		/* ACKs of numbers never sent */
	uint64_t ptos;			/* probe timeouts fired */
	uint64_t downs, ups;		/* liveness transitions */
	uint64_t rebinds;		/* endpoint moved to a validated address */
	uint64_t rebinds_refused;	/* packets from a new address not followed: an
					 * older packet number (pathval.h) */
	uint64_t rebind_challenges;	/* challenges sent to a candidate address */
	uint64_t rebind_amp_limited;	/* challenges held back: 3x the bytes received */
	uint64_t txq_drops;		/* dropped from the pacer queue (path went down) */
	uint64_t dead_by_data;		/* declared down: data unacknowledged too long */
	uint64_t gso_sends;		/* runs sent as one UDP GSO datagram */
	uint64_t send_too_big;		/* sends the local stack refused: EMSGSIZE */
	uint64_t pin_fallbacks;		/* anchor: sends the pinned source refused (no
					 * longer our address) that left from the
					 * kernel's choice instead, the pin forgotten */
	uint64_t ack_tx_bytes;		/* ACK frames this path carried out (ACK-only
					 * datagrams whole), of any path's packets */
	uint64_t acks_away;		/* ACKs of this path's packets sent on another
					 * path (session_ackroute.c) */
	uint64_t ack_rx_bytes;		/* ACK frames that came in on this path */
	uint64_t ackf_tx, ackf_rx;	/* ACK_FREQUENCY frames sent, applied */
};

#define MPT_FLOWREP_MAX	16	/* flows in one report: one ACK's or loss's worth */

struct mpt_path {
	/* configuration */
	uint8_t id;
	char name[MPT_NAME_LEN];
	uint32_t cost, weight;
	uint64_t capacity;
	uint32_t tags;			/* enum mpt_path_tag bits ([Path] Tags) */
	const struct mpt_cc_ops *cc_ops;
	struct mpt_agg_ref agg;		/* anchor: its share of the name's aggregate */
	bool used;			/* anchor: the UE announced this path id */

	/* endpoint */
	int fd;				/* UE: own socket; anchor: the listen socket */
	struct sockaddr_storage remote;
	socklen_t remote_len;
	struct mpt_local local;		/* anchor: the address the UE's datagrams on this
					 * path arrive at; every reply leaves from it */
	struct mpt_local pin_lost;	/* the pin last forgotten (mpt_path_pin_lost) */
	uint64_t pin_lost_ns;		/* and when */
	struct mpt_pathval pv;		/* a new address under validation */

	/* liveness */
	bool link_ok;			/* device up and addressed (netmon) */
	bool admin_up;			/* mptund-ctl path NAME up|down */
	bool peer_out;			/* anchor: the UE took the path out of use */
	uint32_t status_seq;		/* UE: PATH_STATUS sent / anchor: applied */
	uint8_t status_repeat;		/* UE: probes still to repeat an "in use" */
	bool alive;			/* round trips proven recently */
	uint64_t last_rx_ns;		/* the latest proof */
	uint64_t last_data_rx_ns;	/* the latest DATA frame received on it */
	uint64_t last_auth_rx_ns;	/* the latest authenticated packet, any kind */
	uint64_t alive_since_ns;	/* when it last became alive */
	bool rtt_fresh;			/* an RTT sample since then */
	uint64_t next_probe_ns;
	uint64_t probe_ivl_ns;		/* UE: the interval now (doubles while idle) */
	uint64_t probe_sent_ns;		/* the latest PROBE of the timer */
	uint64_t judged_from_ns;	/* liveness counted from here (backoff reset) */
	uint32_t probe_seq;

	/* sender */
	uint64_t next_pn;
	struct mpt_recovery rec;
	struct mpt_cc cc;
	struct mpt_rng rng;
	struct mpt_pacer pacer;
	struct mpt_pktq txq;		/* scheduled here, waiting for the pacer */
	struct mpt_pktq lostq;		/* kept data packets declared lost, for the session
					 * to re-send or recycle (session_repair.c) */
	struct mpt_pkt_pool *pool;	/* where acknowledged kept packets go back */
	struct mpt_flowrep {		/* per inner flow, what the recovery released since
					 * the session last told the scheduler (on_flow) */
		uint32_t flow;		/* flow_hash (pktmeta.h) */
		uint32_t acked, lost;	/* bytes */
	} flowrep[MPT_FLOWREP_MAX];
	unsigned nflowrep;
	uint64_t pto_at;		/* 0: no probe timeout armed */
	uint32_t pto_backoff;
	bool gso_ok;			/* UDP GSO works on this path's route */
	struct mpt_plpmtud pmtu;	/* path MTU discovery (plpmtud.h) */
	uint16_t pinned_mtu;		/* [Path] Mtu; 0 = discover */
	uint16_t outer_mtu;		/* OuterMTU: the search's upper end */

	/* ACK frequency we asked of the peer (session_ackf.c) */
	uint32_t ackf_seq;
	uint16_t ackf_threshold;	/* 0: never asked (the peer's defaults) */
	uint32_t ackf_delay_us;
	uint64_t ackf_checked_ns;
	uint64_t ackf_data0, ackf_bytes0;	/* st.data_tx, data_tx_bytes then */

	/* receiver */
	struct mpt_acktrack ackt;
	uint8_t ack_via;		/* the path carrying our ACKs of its packets */
	bool ack_via_set;
	uint64_t ack_via_checked_ns;
	uint64_t busy_ns;		/* last seen busy with our data (pacer queue or a
					 * full window): its sending direction is full */
	uint32_t ackf_rx_seq;		/* the peer's latest ACK_FREQUENCY applied */
	bool ackf_rx_any;

	struct mpt_path_stats st;
	struct mpt_path_meter {		/* per-direction rates (mpt_path_meter) */
		uint64_t start_ns, tx0, rx0, ack_tx0, ack_rx0;
		uint64_t tx, rx, ack_tx, ack_rx;	/* bytes/s, the last window */
	} meter;
	uint64_t budget_seen;		/* st.tx_bytes already counted in the data budget */
};

/* Usable by the scheduler. */
static inline bool mpt_path_usable(const struct mpt_path *p)
{
	return p->used && p->link_ok && p->admin_up && !p->peer_out && p->alive &&
	       p->remote_len;
}

/* IP and UDP header bytes of the path's datagrams (IPv4, also v4-mapped, or IPv6). */
static inline uint32_t mpt_path_ip_udp(const struct mpt_path *p)
{
	const struct sockaddr_storage *a = &p->remote;

	if (a->ss_family == AF_INET6) {
		const uint8_t *b = ((const struct sockaddr_in6 *)a)->sin6_addr.s6_addr;
		static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

		if (memcmp(b, v4mapped, sizeof(v4mapped)) != 0)
			return 40 + 8;
	}
	return 20 + 8;
}

/* The largest UDP payload the path may carry now (its PLPMTU less the headers). */
static inline uint32_t mpt_path_max_datagram(const struct mpt_path *p)
{
	return mpt_plpmtud_cap(&p->pmtu) - mpt_path_ip_udp(p);
}

/* The largest inner packet a data datagram of the path carries now. */
static inline uint32_t mpt_path_max_inner(const struct mpt_path *p, uint32_t pool_mtu)
{
	uint32_t d = mpt_path_max_datagram(p);

	d = d > MPT_WIRE_DATA_OVERHEAD ? d - MPT_WIRE_DATA_OVERHEAD : 0;
	return d < pool_mtu ? d : pool_mtu;
}

/* May a packet of len inner bytes fit once the path's search ends (it is below every
 * size known to fail)? */
static inline bool mpt_path_may_fit(const struct mpt_path *p, uint32_t len)
{
	return p->pmtu.state == MPT_PMTU_SEARCHING &&
	       len + MPT_WIRE_DATA_OVERHEAD + mpt_path_ip_udp(p) < p->pmtu.fail;
}

/* (Re)start path MTU discovery: the base from the remote's family, the search up to
 * OuterMTU, or the pinned MTU. */
void mpt_path_pmtu_start(struct mpt_path *p, uint64_t now);

/* A packet of flow `flow` (bytes long) acknowledged or declared lost: added to the
 * path's flow report (a flow past the last slot is not reported). */
void mpt_path_flowrep_note(struct mpt_path *p, uint32_t flow, uint32_t bytes, bool lost);

/* In flight as schedulers see it: sent and unacked, plus waiting in the pacer. */
static inline uint64_t mpt_path_in_flight(const struct mpt_path *p)
{
	return p->rec.in_flight + p->txq.bytes;
}

int mpt_path_init(struct mpt_path *p, uint8_t id, const struct mpt_config *cfg,
		  const struct mpt_path_config *pc, struct mpt_pkt_pool *pool, uint64_t seed,
		  uint64_t now, char *err, size_t errlen);
void mpt_path_free(struct mpt_path *p, struct mpt_pkt_pool *pool);
/* Switch the congestion controller (reload / set cc), applying cfg's overrides. */
int mpt_path_set_cc(struct mpt_path *p, const struct mpt_cc_ops *ops,
		    const struct mpt_config *cfg, uint64_t now, char *err, size_t errlen);
/* Forget what is in flight and restart the controller (path went down). */
void mpt_path_reset(struct mpt_path *p, struct mpt_pkt_pool *pool, uint64_t now);
/* Start the path's transport afresh (peer restart, MPT_HS_FLAG_FRESH): nothing in
 * flight, nothing kept, packet numbers and the ACK tracker from the start, the
 * controller reset, the path to be proven again by a probe. */
void mpt_path_restart(struct mpt_path *p, struct mpt_pkt_pool *pool, uint64_t now);
/* Per-direction rates: the bytes sent and received on the path (and of them ACK
 * frames) per second over windows of at least MPT_PATH_METER_NS, sampled after each
 * flush; a window that stayed open longer (an idle session) is closed when read. */
#define MPT_PATH_METER_NS	1000000000ULL
void mpt_path_meter(struct mpt_path *p, uint64_t now);
/* The rates now: tx, rx, ACK tx, ACK rx, bytes per second. */
void mpt_path_rates(const struct mpt_path *p, uint64_t now, uint64_t rate[4]);
/* The read-only view handed to schedulers. */
void mpt_path_fill_view(const struct mpt_path *p, struct mpt_path_view *v, uint32_t mtu);
/* The controller's view of the path. */
void mpt_path_cc_view(const struct mpt_path *p, struct mpt_cc_path *cp, uint32_t mss);

/* UE: open the path's UDP socket (bound to Device and/or Source). Returns fd. */
int mpt_path_socket_open(const struct mpt_path_config *pc, char *err, size_t errlen);
/* Shared by UE path sockets and the anchor's listen socket. */
int mpt_udp_socket(int family, char *err, size_t errlen);
/* Send one sealed datagram to the path's peer: 0, MPT_LOCAL_UNPINNED (sent, but the
 * pinned source refused it: the caller calls mpt_path_pin_lost) or -errno (the caller
 * counts). */
int mpt_path_sendto(const struct mpt_path *p, const uint8_t *buf, size_t len);
/* The same to dst instead (a path-validation challenge to a candidate address). */
int mpt_path_sendto_addr(const struct mpt_path *p, const uint8_t *buf, size_t len,
			 const struct sockaddr_storage *dst, socklen_t dstlen);
/* How long a forgotten pin is not taken again from the peer's datagrams: an address
 * only routed to us (AnyIP) keeps receiving, and would cost a refused send on every
 * datagram. Another address is pinned at once. */
#define MPT_PIN_RETRY_NS	(1000ull * 1000 * 1000)
/* Anchor: the pinned source `was` refused a send that then left from the kernel's
 * choice (path_tx.c): forget it (counted; logged once per address and minute) until
 * the peer's next datagram pins an address again (session_rx.c). */
void mpt_path_pin_lost(struct mpt_path *p, const struct mpt_local *was, const char *owner,
		       uint64_t now);
/* How a packet is sealed (mpt_path_seal). */
struct mpt_seal_opts {
	bool eliciting;			/* the peer ACKs it: in flight (data, probes);
					 * else tracked with 0 bytes (ACK-only), so its
					 * number may appear in the peer's ACK ranges */
	struct mpt_pkt *retain;		/* a data packet the path's recovery keeps for
					 * retransmission until acked or lost, or NULL */
	uint32_t inner_mtu;		/* for the controller's view */
	const struct sockaddr_storage *to;	/* mpt_path_seal_send's destination:
						 * NULL, the path's peer; else a
						 * candidate address (a challenge) */
	socklen_t tolen;
	bool realtime;			/* a real-time rule's packet (Ordered = no):
					 * counted in the recovery's rt_in_flight */
	const char *owner;		/* the session's name, for the log */
};
struct mpt_keyslot;
/*
 * Seal the transport packet at buf (header room at buf[0..16), frames_len bytes of
 * frames after it) under keypair ks with the path's next packet number into out
 * (out_cap bytes; out == buf: in place), and account for it as sent: recovery,
 * controller, probe timeout (path_tx.c). Returns the datagram length, or -errno:
 * ENOTCONN (no keypair or peer address), ENETDOWN (administratively down), ENOBUFS
 * (recovery full), EKEYEXPIRED (the keypair's hard lifetime is over), from the AEAD.
 */
int mpt_path_seal(struct mpt_path *p, struct mpt_keyslot *ks, uint8_t *buf,
		  size_t frames_len, uint8_t *out, size_t out_cap,
		  const struct mpt_seal_opts *o, uint64_t now);
/* Seal in place (cap bytes of room at buf) and send at once: a control packet.
 * Returns the datagram length, or -errno (a failed send is counted). */
int mpt_path_seal_send(struct mpt_path *p, struct mpt_keyslot *ks, uint8_t *buf,
		       size_t frames_len, size_t cap, const struct mpt_seal_opts *o,
		       uint64_t now);
/* A data datagram of len bytes sealed at b->buf + b->off joins the batch (counted,
 * and charged to the pacer when `paced`: not a real-time packet, session_tx.c); pkt
 * goes back to the pool after the send, NULL: the recovery keeps it. */
void mpt_path_batch_add(struct mpt_path *p, struct mpt_txbatch *b, size_t len,
			struct mpt_pkt *pkt, bool paced, uint64_t now);
/* Send the batched data packets of path p (path_tx.c); owner names the session in
 * the log. Packets the path's recovery does not keep go back to pool. */
void mpt_path_batch_send(struct mpt_path *p, struct mpt_txbatch *b,
			 struct mpt_pkt_pool *pool, const char *owner);

#endif
