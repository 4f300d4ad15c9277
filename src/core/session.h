/* SPDX-License-Identifier: MIT */
/*
 * A session: the tunnel between the UE and the anchor for one UE. It owns the keys
 * (current and previous keypair), the scheduler instance and its queue, the paths,
 * the reorder buffer and one timer that fires at the earliest of every deadline the
 * session has (pacing, ACKs, losses, probes, reorder holes, scheduler tick,
 * handshake and rekey).
 *
 * Uplink on the UE and downlink on the anchor go through mpt_session_enqueue ->
 * schedule -> path pacer queues -> mpt_session_flush. Received transport packets go
 * through mpt_session_receive.
 */
#ifndef MPTUND_SESSION_H
#define MPTUND_SESSION_H

#include <ev.h>

#include <mptund/sched.h>
#include <mptund/wire.h>

#include "aead.h"
#include "config.h"
#include "cookie.h"
#include "flowhold.h"
#include "keyslot.h"
#include "log.h"
#include "noise.h"
#include "path.h"
#include "pkt.h"
#include "reorder.h"
#include "replay.h"
#include "sparse.h"
#include "standing.h"
#include "tcpseq.h"

struct mpt_daemon;
struct mpt_srules;
struct mpt_session;

/* Upward news from a session to its owner, the daemon (which sets them: struct
 * mpt_daemon's session_ops): a session never calls into the files above it
 * (src/README.md). Both required. */
struct mpt_session_ops {
	/* UE: a handshake initiation is due (first, retry, rekey, a fresh start) */
	void (*handshake_due)(struct mpt_session *s, uint64_t now);
	/* path p went up or down */
	void (*path_state)(struct mpt_session *s, struct mpt_path *p);
};

struct mpt_session_stats {
	uint64_t tun_rx_pkts, tun_rx_bytes;	/* entered the scheduler queue */
	uint64_t tun_tx_pkts, tun_tx_bytes;	/* written to the TUN */
	uint64_t queue_drops;			/* scheduler queue full: a packet dropped */
	uint64_t queue_front_drops;		/* ... of them its oldest, from the front
						 * (session.c, drop_front) */
	uint64_t no_key_drops;			/* no keypair yet */
	uint64_t holds;				/* pick answered hold */
	uint64_t picks[MPT_MAX_PATHS];		/* packets scheduled per path */
	uint64_t copies;			/* extra copies of redundant picks */
	uint64_t in_order_takes;		/* picks sent a packet past the head */
	uint64_t sparse_pkts;			/* took the sparse-flow lane past a bulk
						 * backlog (sparse.h) */
	uint64_t sparse_demoted;		/* the lane to the bulk lane's front: its
						 * head would arrive late (session_tx.c) */
	uint64_t sparse_joined;			/* the lane into an in-order take's run
						 * (session_tx.c, join_run) */
	uint64_t handshakes;			/* completed */
	uint64_t rekeys;
	uint64_t drops[MPT_WIRE_REASON_COUNT];	/* received, by reason */
	uint64_t spoofed;			/* inner source not in AllowedIPs */
	uint64_t tun_write_errors;
	uint64_t sched_switches;
	uint64_t keys_expired;			/* keyslots wiped at their hard lifetime */
	uint64_t fresh_starts;			/* transport restarted (peer restart) */
	uint64_t repairs;			/* lost packets re-sent */
	uint64_t repair_late;			/* lost, but a repair would come too late */
	uint64_t repair_given_up;		/* lost again, or Recovery = off */
	uint64_t repair_copied;			/* lost, but sent on another path too */
	uint64_t too_big_drops;			/* fit no path (session_pmtu.c) */
	uint64_t ptb_sent;			/* ICMP too big written to the TUN */
	uint64_t ptb_soft;			/* the same for packets sent on larger paths */
	uint64_t frag_pkts;			/* IPv4 packets without DF cut (ipfrag.h) */
	uint64_t frag_out_pkts;			/* ... into these fragments */
	uint64_t mss_clamped;			/* TCP SYNs whose MSS was lowered */
	uint64_t sched_events;			/* scheduler events (session_steer.c) */
	uint64_t unordered_rx;			/* DATA_UNORDERED delivered at once */
	uint64_t acks_unordered;		/* inner pure ACKs sent as DATA_UNORDERED */
	uint64_t unordered_dup;			/* DATA_UNORDERED dropped: seen before, or
						 * older than the window */
	uint64_t wakeups;			/* quiet spells ended (session_idle.c) */
};

struct mpt_session {
	struct mpt_daemon *d;
	unsigned idx;
	const struct mpt_peer_config *peer;
	char name[MPT_NAME_LEN];
	uint8_t last_init_ts[MPT_TIMESTAMP_LEN];	/* anchor: replay guard */
	uint8_t ss[MPT_KEY_BYTES];			/* static-static DH, precomputed */
	bool ss_ok;

	/* keys (the keyslots are below) */
	struct mpt_noise_initiation hs;			/* UE: pending init */
	uint8_t hs_msg[MPT_HS_INIT_LEN];			/* UE: mac2 zero */
	uint8_t cookie_key[32];				/* UE: opens cookie replies */
	struct mpt_cookie_slot cookies[MPT_MAX_PATHS];	/* UE: per path */
	uint64_t hs_next_ns;				/* UE: next (re)send */
	uint32_t hs_tries;
	bool hs_fresh;					/* UE: the next init says fresh */
	uint64_t established_ns;
	uint32_t idx_reg[4];		/* receiver indices in d->idxmap (rxindex.c) */
	uint64_t last_auth_rx_ns;			/* latest authenticated packet */
	uint64_t last_data_ns;		/* latest DATA sent or received */
	uint64_t probe_reset_ns;	/* UE: the latest end of a probe backoff */
	uint64_t peer_idle_ns;		/* UE: the anchor's IdleProbeInterval, from the
					 * idle hint of its PROBE_ACKs; 0: never said
					 * (an anchor older than the hint, or one
					 * without the backoff): no backoff */

	/* scheduling */
	const struct mpt_sched_ops *sched;
	void *sched_priv;
	struct mpt_rng rng;
	uint64_t next_tick_ns;
	struct mpt_pktq squeue;		/* the bulk lane */
	struct mpt_sparse sparse;	/* the sparse-flow lane, ahead of it (sparse.h) */
	struct mpt_fhold fhold;		/* flows held aside from squeue (flowhold.h) */
	struct mpt_pktq rtxq;			/* lost packets to re-send, ahead of squeue */
	uint64_t next_dsn;		/* numbers a packet as it leaves for a path */
	uint64_t next_udsn;		/* the unordered space (rules with Ordered = no) */
	struct mpt_replay *uwin;	/* receiver: unordered numbers seen; NULL until
					 * the first DATA_UNORDERED */
	struct mpt_standing standing;	/* does squeue stand (standing.h) */
	struct mpt_srules *rules;	/* steering rules (session_rules.h); NULL: none */
	struct mpt_tcpseq *tcpseq;	/* inner TCP flows' sent sequence numbers
					 * (tcpseq.h); NULL until the first segment */

	unsigned npaths;		/* paths[0..npaths) are in use */

	/* receive */
	struct mpt_reorder reorder;
	uint64_t hold_update_ns;
	uint64_t last_ptb_ns;			/* the latest ICMP too big sent */
	uint32_t clamp_mtu;			/* TCP MSS clamp (mss_clamp.h); 0 none */

	ev_timer timer;
	uint64_t timer_at;
	bool quiet;			/* anchor: idle, no timer (session_idle.c) */
	uint64_t busy_until_ns;		/* not quiet before this */
	uint64_t woke_ns;		/* the latest end of a quiet spell */
	bool dirty;			/* in the daemon's list of sessions to flush */
	struct mpt_session *dirty_next;

	struct log_ratelimit rl;
	struct mpt_session_stats st;
	char sched_event[112];		/* the latest scheduler event, as logged */

	/* The large members last: an anchor session whose peer is not connected never
	 * writes them, so their pages of the (calloc'd) session array stay untouched. */
	struct mpt_keyslot cur, prev;
	struct mpt_keyslot next;			/* anchor: not yet confirmed */
	struct mpt_path_view views[MPT_MAX_PATHS];
	/* paths: index = path id on the wire */
	struct mpt_path paths[MPT_MAX_PATHS];
};

int mpt_session_init(struct mpt_session *s, struct mpt_daemon *d, unsigned idx,
		     const struct mpt_peer_config *peer, char *err, size_t errlen);
void mpt_session_free(struct mpt_session *s);

/* Replace the scheduler; the queue and the paths stay as they are. */
int mpt_session_set_sched(struct mpt_session *s, const struct mpt_sched_ops *ops,
			  char *err, size_t errlen);

/* A packet from the TUN for this session: queue it (or count the drop). */
void mpt_session_enqueue(struct mpt_session *s, struct mpt_pkt *p, uint64_t now);

/* A packet's data sequence number is given as it leaves the scheduler queue for a
 * path (ordered numbers in the order packets leave), not as it enters: a packet that
 * waits (a held flow, flowhold.h) leaves no hole the receiver would wait for.
 *
 * An inner pure ACK (TCP, ACK set, no payload, SYN, FIN or RST) takes a number of the
 * unordered space instead: the receiver delivers it at once (DATA_UNORDERED), as a
 * rule with Ordered = no does, and it goes ahead of bulk in the path's queue. ACKs are
 * cumulative and a SACK block stays true, so an ACK that arrives after a newer one
 * costs the inner sender nothing; held in the reorder buffer behind an older packet
 * on a slower path it costs its ACK clock that path's delay. A downlink flow over a
 * 300 ms satellite next to a 30 ms LTE link (sat-lte-down, issue 22) had its ACKs
 * spill onto the satellite's uplink whenever LTE's window was full, and the anchor
 * held each ACK that came over LTE behind them for the whole 275 ms hold: the server
 * saw its RTT jump from 334 to 600 ms, and its ACK clock stall. It is not real-time
 * (pkt->realtime): in a path's window its bytes are the other traffic's, not a
 * real-time rule's (session_rules.c). */
#define MPT_DSN_UNSET	UINT64_MAX
static inline void mpt_session_number(struct mpt_session *s, struct mpt_pkt *p)
{
	if (p->dsn != MPT_DSN_UNSET)
		return;
	if (p->meta.tcp_ack_only) {
		p->unordered = true;
		p->dsn = s->next_udsn++;
		s->st.acks_unordered++;
		return;
	}
	p->dsn = s->next_dsn++;
}
/* Packets waiting to be scheduled: the scheduler queue's two lanes and the held
 * flows. */
static inline uint32_t mpt_session_waiting(const struct mpt_session *s)
{
	return s->squeue.pkts + s->sparse.q.pkts + s->fhold.pkts;
}
/* An inner TCP segment from the TUN (pktmeta.h's info): its metadata learns whether
 * it is a retransmission of its flow (tcpseq.h), a congestion signal for flow-level
 * schedulers. */
void mpt_session_note_tcp(struct mpt_session *s, struct mpt_pkt *p, uint32_t seq,
			  uint32_t len);
/* Move packets from the scheduler queue to paths, send what pacing allows, send
 * due ACKs and re-arm the timer. Called after each batch of events. */
void mpt_session_flush(struct mpt_session *s, uint64_t now);
/* An authenticated transport packet (already opened); buf holds the datagram.
 * newest: its packet number is the highest the path's keypair has seen (only such a
 * packet may move the path's endpoint to a new address, or the local address it
 * arrived at, the source of the path's replies). */
void mpt_session_receive(struct mpt_session *s, struct mpt_keyslot *ks,
			 const struct mpt_hdr *h, struct mpt_pkt *p, const uint8_t *frames,
			 size_t len, const struct sockaddr_storage *from, socklen_t fromlen,
			 const struct mpt_local *local, bool newest, uint64_t now);

/* Keys. */
int mpt_session_install_keypair(struct mpt_session *s, struct mpt_keypair *kp,
				uint64_t now);
struct mpt_keyslot *mpt_session_keyslot(struct mpt_session *s, uint32_t local_index);
/* A packet authenticated under ks: if ks is the responder's next keypair, it becomes
 * the current one. Returns where ks now lives. */
struct mpt_keyslot *mpt_session_confirm(struct mpt_session *s, struct mpt_keyslot *ks,
					uint64_t now);
bool mpt_session_established(const struct mpt_session *s);

/* Wipe keyslots past their hard lifetime (session_timer.c, from the session timer). */
void mpt_session_expire_keys(struct mpt_session *s, uint64_t now);

/* Start the session's transport afresh for a restarted peer (MPT_HS_FLAG_FRESH): the
 * paths (mpt_path_restart), the re-send queue and the reorder buffer; the keys go,
 * but for the caller's new keypair. The scheduler queue stays (data for the peer). */
void mpt_session_restart(struct mpt_session *s, uint64_t now);
/* UE: nothing authenticated from the anchor for this long (the longest probe
 * interval of its paths x ProbeMissLimit: every path's probes went unanswered),
 * counted from the latest backoff reset, and the UE handshakes afresh: the anchor
 * restarted, or lost the session. Returns when that is. */
uint64_t mpt_session_silent_deadline(const struct mpt_session *s);
/* The probe interval of path p now, and the one after a PROBE sent now
 * (session_probe.c). */
uint64_t mpt_session_probe_ivl(const struct mpt_session *s, const struct mpt_path *p);
uint64_t mpt_session_next_probe_ivl(const struct mpt_session *s, const struct mpt_path *p);
/* DATA sent or received: after an idle spell the paths' probe backoff ends
 * at once (UE: each backed-off path is probed now and judged from now,
 * session_timer.c). */
void mpt_session_data_seen(struct mpt_session *s, uint64_t now);
/* UE: the anchor's idle hint (wire.h), ms. Anchor: the hint it sends, 0 for none
 * (its IdleProbeInterval, when above ProbeInterval). */
void mpt_session_on_idle_hint(struct mpt_session *s, uint32_t ms);
uint32_t mpt_session_idle_hint_ms(const struct mpt_session *s);

/* Path state changes (netlink, mptund-ctl, liveness). */
void mpt_session_path_changed(struct mpt_session *s, struct mpt_path *p, uint64_t now);

/* Timer. */
void mpt_session_arm(struct mpt_session *s, uint64_t now);
void mpt_session_on_timer(struct mpt_session *s, uint64_t now);

/* Internal to session_*.c (each file's functions: src/README.md). */
/* Address validation (session_pathval.c, pathval.h): an authenticated packet of bytes
 * bytes from an address that is not p's endpoint; a PROBE_ACK's echoed token. */
void mpt_session_new_address(struct mpt_session *s, struct mpt_path *p,
			     const struct sockaddr_storage *from, socklen_t fromlen,
			     size_t bytes, bool newest, uint64_t now);
void mpt_session_pathval_response(struct mpt_session *s, struct mpt_path *p,
				  const struct sockaddr_storage *from, socklen_t fromlen,
				  uint64_t token);
/* A PROBE whose echoed timestamp is token, to dst rather than p's endpoint, not
 * ack-eliciting. Returns the datagram length (MPT_PATHVAL_CHALLENGE_LEN) or -errno. */
int mpt_session_send_challenge(struct mpt_session *s, struct mpt_path *p, uint64_t token,
			       const struct sockaddr_storage *dst, socklen_t dstlen,
			       uint64_t now);
#define MPT_PATHVAL_CHALLENGE_LEN \
	(MPT_WIRE_HDR_LEN + MPT_FRAME_HDR_LEN + MPT_PROBE_LEN + MPT_WIRE_TAG_LEN)
void mpt_session_send_probe(struct mpt_session *s, struct mpt_path *p, uint64_t now,
			    bool pto);
void mpt_session_send_control(struct mpt_session *s, struct mpt_path *p,
			      const struct mpt_probe *probe_ack, uint64_t now);
void mpt_session_sched_ctx(struct mpt_session *s, struct mpt_sched_ctx *ctx, uint64_t now);
void mpt_session_refresh_views(struct mpt_session *s);

/* session_steer.c: log the scheduler's pending events (drain_events op, issue 13) and
 * keep the latest for `watch`; a no-op for schedulers without the op. */
void mpt_session_sched_events(struct mpt_session *s);
/* One event as text: "wifi: rtt 152.3 ms above 100 ms" (names from the views). */
int mpt_sched_event_format(const struct mpt_sched_event *e,
			   const struct mpt_path_view *views, unsigned npaths,
			   char *buf, size_t len);
/* Anchor: every used path's share of its name's aggregate load made current. */
void mpt_session_agg_refresh(struct mpt_session *s);
void mpt_session_liveness(struct mpt_session *s, uint64_t now);
void mpt_session_heard(struct mpt_session *s, struct mpt_path *p, uint64_t now);
void mpt_session_on_losses(struct mpt_session *s, struct mpt_path *p,
			   const struct mpt_recovery_event *ev, uint64_t now);
void mpt_session_set_alive(struct mpt_session *s, struct mpt_path *p, bool alive,
			   uint64_t now);

/* Loss recovery and dead paths (session_repair.c; check_dead: session_timer.c). */
uint64_t mpt_session_hold_ns(const struct mpt_session *s);
/* The reorder buffer's timer: give up the holes that are due, unless a path that went
 * dark left them and its repairs are still on their way (session_repair.c). */
void mpt_session_reorder_timeout(struct mpt_session *s, uint64_t now);
void mpt_session_collect_lost(struct mpt_session *s, struct mpt_path *p, uint64_t now);
void mpt_session_repair(struct mpt_session *s, struct mpt_path_view *views,
			const struct mpt_sched_ctx *ctx, uint64_t now);
uint64_t mpt_session_dead_deadline(const struct mpt_path *p);
void mpt_session_check_dead(struct mpt_session *s, struct mpt_path *p, uint64_t now);

/* ACK frequency (session_ackf.c): append an ACK_FREQUENCY for path p when due;
 * returns the bytes added. And the peer's request for one of our paths. */
size_t mpt_session_ackf_append(struct mpt_session *s, struct mpt_path *p, uint8_t *pos,
			       size_t room, uint64_t now);
void mpt_session_on_ackf(struct mpt_session *s, const struct mpt_ack_frequency *a);

/* The path carrying our ACKs of p's packets (session_ackroute.c, ackroute.h), and
 * p seen busy with our data after a flush (its sending direction is full). */
struct mpt_path *mpt_session_ack_carrier(struct mpt_session *s, struct mpt_path *p,
					 uint64_t now);
void mpt_session_note_busy(struct mpt_path *p, uint64_t now);

/* PATH_STATUS (session_status.c; pstat_append: session_tx.c): the UE's paths in or
 * out of use, told to the anchor; append the frames due into a PROBE; apply the UE's
 * on the anchor. */
size_t mpt_session_pstat_append(struct mpt_session *s, uint8_t *pos, size_t room);
void mpt_session_status_changed(struct mpt_session *s, struct mpt_path *p, uint64_t now);
void mpt_session_on_pstat(struct mpt_session *s, const struct mpt_path_status *ps,
			  uint64_t now);

/* Frames alone in a control packet on p, not ack-eliciting; the datagram length or
 * -errno (RULES frames, rules_push.c). */
int mpt_session_send_frames(struct mpt_session *s, struct mpt_path *p,
			    const uint8_t *frames, size_t len, uint64_t now);

/* Hand a packet the scheduler picked mask for to those paths' queues (a copy for each
 * path but the last; session_view.c). */
void mpt_session_dispatch(struct mpt_session *s, struct mpt_pkt *pkt, uint32_t mask);
/* Tell the scheduler (on_flow) what the path's recovery acknowledged and declared
 * lost per inner flow since the last report (path.h, flowrep), and clear it. */
void mpt_session_flow_report(struct mpt_session *s, struct mpt_path *p, uint64_t now);
/* The scheduler's turn (session_tx.c): the held flows, the scheduler queue, the rules'
 * queues, onto the paths usable (a mask) in ctx's views; min_fit: the smallest inner
 * packet every usable path carries. Packets go to path queues, nothing is sent. */
void mpt_session_schedule(struct mpt_session *s, struct mpt_sched_ctx *ctx,
			  uint32_t usable, uint32_t min_fit, uint64_t now);
/* Queueing delay a packet meets on a path now (latest RTT above min RTT), and the
 * least of the paths in use: the standing-queue test's sojourn (standing.h). */
uint64_t mpt_session_path_queueing(const struct mpt_path_view *v);
uint64_t mpt_session_least_queueing(const struct mpt_sched_ctx *ctx);
/* Quiet sessions (session_idle.c): an idle anchor session has no timer running. */
bool mpt_session_quiet(const struct mpt_session *s, uint64_t now);
/* Quiet now? Records the answer (a session that stops being quiet wakes up). */
bool mpt_session_quiet_check(struct mpt_session *s, uint64_t now);
/* Wake a quiet session (marks it), busy at least until `until`. */
void mpt_session_wake(struct mpt_session *s, uint64_t until, uint64_t now);
/* Data (or a new keypair): the session stays busy a while. */
void mpt_session_note_activity(struct mpt_session *s, uint64_t now);
/* The latest sign of life of path p that liveness counts. */
uint64_t mpt_session_heard_ns(const struct mpt_session *s, const struct mpt_path *p);

/* Path MTU (session_pmtu.c; pmtu_timer: session_timer.c). */
#define MPT_PICK_DROPPED	0x80000000u	/* the head packet fit no path: dropped */
void mpt_session_pmtu_timer(struct mpt_session *s, struct mpt_path *p, uint64_t now);
int mpt_session_send_mtu_probe(struct mpt_session *s, struct mpt_path *p, uint16_t size,
			       uint32_t id, uint64_t now);
/* The smallest inner packet size the usable paths all carry. */
uint32_t mpt_session_min_fit(const struct mpt_session *s, uint32_t usable);
/* Pick for a head packet larger than some usable path carries: the scheduler chooses
 * among the paths that carry it; 0: wait (a search may find room); MPT_PICK_DROPPED:
 * no path can, the packet was answered with ICMP and dropped. */
uint32_t mpt_session_pick_fitting(struct mpt_session *s, struct mpt_sched_ctx *ctx,
				  uint32_t usable, uint64_t now);
/* An IPv4 packet without DF from the TUN that no usable path carries (nor may after a
 * search): cut into fragments the largest one carries, pushed on frags; pkt goes back
 * to the pool and true is returned. False: pkt goes on as it is. */
bool mpt_session_fragment(struct mpt_session *s, struct mpt_pkt *pkt,
			  struct mpt_pktq *frags);

#endif
