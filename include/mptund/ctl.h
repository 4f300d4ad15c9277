/* SPDX-License-Identifier: MIT */
/*
 * The control protocol: wire rules and key vocabulary shared by mptund and mptund-ctl.
 *
 * Transport: a SOCK_STREAM Unix socket per instance, /run/mptund/NAME.sock, mode 0600
 * (0660 with a control group). Reads need the owner or the group; writes need the
 * daemon's effective uid or root (checked with SO_PEERCRED), else errno=EPERM.
 *
 * Request (client -> daemon), WireGuard-UAPI style; lines end in LF (CR LF accepted):
 *	cmd=NAME
 *	key=value		zero or more, keys [a-z0-9_.], no duplicates
 *	<empty line>
 * At most MPT_CTL_MAX_REQ bytes per request, MPT_CTL_MAX_LINE per line (LF included),
 * MPT_CTL_MAX_KEYS keys. An optional version=N line asks for protocol version N.
 *
 * Reply (daemon -> client):
 *	version=1
 *	key=value		zero or more
 *	message=TEXT		on error: what was wrong, quoting the offending value
 *	errno=N			0 = success, else a positive errno (EINVAL, E2BIG, EPERM, ...)
 *	<empty line>
 *
 * Commands (R = read, W = write):
 *	R stats [scope=PREFIX] [offset=N] [limit=N] [summary=1]
 *					every object's keys below (PREFIX: "session.0");
 *					sessions from index offset, at most limit of them,
 *					and no more than about MPT_CTL_PAGE_BYTES: the reply
 *					ends with page.sessions=TOTAL and, when sessions are
 *					left, page.next=INDEX (ask again with offset=INDEX).
 *					summary=1: per session only the keys of
 *					`mptund-ctl sessions` (no paths, no counters)
 *	R watch interval_ms=N [scope=]	a stats reply, prefixed by time_ms=<unix ms>,
 *					every N ms (10..60000) until the client closes
 *	R sched [session=S]		sched.name=, sched.summary=, then per tunable
 *					sched.param.P.{value,type,min,max,default,help}
 *	R sched_list			sched.N.name=, sched.N.summary= (registry)
 *	W set [session=S] [sched=NAME] [sched.P=V ...] [cc.P=V ...]
 *	W path path=NAME [session=S] [admin=up|down] [cost=N] [weight=N]
 *	W reload			re-read the configuration file
 *	R rule_list			the steering rules in match order:
 *					rule.N.{name,spec}, pushed_rule.N.{name,spec}
 *	W rule op=add [pos=N] r.KEY=V ...	insert a rule (KEY: a [Rule] key of
 *					mptund.conf(5) in lower case, or a tunable)
 *	W rule op=del name=NAME		delete a rule
 *	W rule op=move name=NAME pos=N	move a rule to position N (0 = first)
 *
 * Key vocabulary (the `stats` reply). Keys name the object, then the field; units are
 * in the name (_us, _ms, _bytes, _pkts, _bytes_per_s). S is the session index, P the
 * path index inside the session. Values are decimal numbers, or text for the few
 * descriptive keys (kind "info"). Counters only grow; gauges go up and down.
 * The table MPT_CTL_KEYS below is the single source: mptund-ctl reads it for
 * Prometheus TYPE/HELP, and the daemon should emit exactly these keys. Keys the
 * table does not know are shown by the CLI (as gauges) but deserve an entry here.
 *
 * Scheduler statistics declared by the module (struct mpt_stat) are emitted as
 *	session.S.sched_stat.NAME=V		(per session)
 *	session.S.sched_stat.NAME.P=V		(per path: mpt_stat.per_path)
 * with a "_total" suffix on NAME for MPT_STAT_COUNTER; mpt_ctl_out_sched_stats()
 * (src/ctl/ctl_out.h) writes them. The congestion controller's statistics likewise as
 *	session.S.path.P.cc_stat.NAME=V		("_total" suffix for counters)
 */
#ifndef MPTUND_CTL_H
#define MPTUND_CTL_H

#include <stddef.h>

#define MPT_CTL_VERSION		1
#define MPT_CTL_MAX_REQ		4096	/* bytes per request, blank line included */
#define MPT_CTL_MAX_LINE	256	/* bytes per request line, LF included */
#define MPT_CTL_MAX_KEYS	16	/* key=value lines per request, cmd included */
#define MPT_CTL_RUN_DIR		"/run/mptund"
#define MPT_CTL_WATCH_MIN_MS	10	/* 100 Hz */
#define MPT_CTL_WATCH_MAX_MS	60000
#define MPT_CTL_PAGE_BYTES	(1u << 20)	/* a stats reply stops adding sessions
						 * past this size (page.next=) */

enum mpt_ctl_kind {
	MPT_CTL_INFO,		/* text: a label, not a sample */
	MPT_CTL_GAUGE,
	MPT_CTL_COUNTER,
};

/* X(pattern, kind, help). '#' in a pattern stands for one decimal index. */
#define MPT_CTL_KEYS(X) \
	X("daemon.version", INFO, "mptund version") \
	X("daemon.instance", INFO, "instance name (config file name)") \
	X("daemon.role", INFO, "ue or anchor") \
	X("daemon.uptime_ms", GAUGE, "time since the daemon started") \
	X("daemon.sessions", GAUGE, "sessions currently established") \
	X("daemon.ctl_clients", GAUGE, "control socket clients connected") \
	X("daemon.tun_rx_pkts", COUNTER, "packets read from the TUN device") \
	X("daemon.tun_rx_bytes", COUNTER, "bytes read from the TUN device") \
	X("daemon.tun_tx_pkts", COUNTER, "packets written to the TUN device") \
	X("daemon.tun_tx_bytes", COUNTER, "bytes written to the TUN device") \
	X("daemon.drop_auth_pkts", COUNTER, "packets dropped: authentication failed") \
	X("daemon.drop_replay_pkts", COUNTER, "packets dropped: anti-replay window") \
	X("daemon.drop_malformed_pkts", COUNTER, "packets dropped: malformed on the wire") \
	X("daemon.drop_no_session_pkts", COUNTER, "packets dropped: no session found") \
	X("daemon.drop_ratelimit_pkts", COUNTER, "handshakes dropped by the rate limit") \
	X("daemon.drop_hs_duplicate_pkts", COUNTER, "inits dropped as copies of authenticated ones") \
	X("daemon.drop_hs_busy_pkts", COUNTER, "inits dropped: global handshake budget spent") \
	X("daemon.hs_cookie_replies", COUNTER, "inits answered with a cookie reply (under load)") \
	X("daemon.drop_cookie_bad_pkts", COUNTER, "cookie replies that did not open or match") \
	X("daemon.drop.*", COUNTER, "datagrams dropped before a session was found, by reason") \
	X("daemon.dropped.*", COUNTER, \
	  "datagrams and frames dropped, by reason, in all (every reason, zero or not)") \
	X("daemon.rx_truncated_pkts", COUNTER, "datagrams larger than the receive buffers") \
	X("page.sessions", GAUGE, "sessions the daemon has (stats paging)") \
	X("page.next", GAUGE, "offset= of the next stats page (absent on the last)") \
	X("session.#.peer", INFO, "peer name from the configuration") \
	X("session.#.state", INFO, "handshake or established") \
	X("session.#.sched", INFO, "active scheduler") \
	X("session.#.cc", INFO, "congestion controller of its paths") \
	X("session.#.age_ms", GAUGE, "time since the session was established") \
	X("session.#.queue_pkts", GAUGE, "scheduler queue length") \
	X("session.#.queue_bytes", GAUGE, "scheduler queue size") \
	X("session.#.tx_pkts", COUNTER, "inner packets sent on any path") \
	X("session.#.tx_bytes", COUNTER, "inner bytes sent on any path") \
	X("session.#.rx_pkts", COUNTER, "inner packets received and authenticated") \
	X("session.#.rx_bytes", COUNTER, "inner bytes received and authenticated") \
	X("session.#.sched_drop_pkts", COUNTER, "packets dropped by a full scheduler queue") \
	X("session.#.sched_front_drop_pkts", COUNTER, "of sched_drop_pkts, the queue's oldest packet (drop from front), not the one arriving") \
	X("session.#.rekeys", COUNTER, "key rotations") \
	X("session.#.paths", GAUGE, "paths the session uses (summary=1)") \
	X("session.#.paths_up", GAUGE, "of them usable by the scheduler (summary=1)") \
	X("session.#.quiet", GAUGE, "1: an idle anchor session without a timer of its own") \
	X("session.#.wakeups", COUNTER, "quiet spells the session ended (anchor)") \
	X("session.#.peer_idle_probe_ms", GAUGE, "UE: the anchor's IdleProbeInterval from its idle hint, the furthest the idle PROBEs back off (0: not said, no backoff)") \
	X("session.#.reorder.buffered_pkts", GAUGE, "packets held in the reorder buffer") \
	X("session.#.reorder.timeout_us", GAUGE, "current adaptive reorder timeout (learned part included)") \
	X("session.#.reorder.learned_us", GAUGE, "of it, learned from packets that came after their hole timed out") \
	X("session.#.reorder.released_inorder", COUNTER, "packets released in order") \
	X("session.#.reorder.released_timeout", COUNTER, "packets released past a hole on timeout") \
	X("session.#.reorder.released_overflow", COUNTER, "packets released by a full buffer") \
	X("session.#.reorder.duplicates", COUNTER, "duplicate packets discarded") \
	X("session.#.path.#.name", INFO, "path name from the configuration") \
	X("session.#.path.#.state", INFO, "up, down, admin_down, peer_down (the UE took it out of use) or probing") \
	X("session.#.path.#.cc_state", INFO, "congestion controller state (startup, probe_bw, ...)") \
	X("session.#.path.#.local", INFO, "local address:port") \
	X("session.#.path.#.remote", INFO, "peer address:port") \
	X("session.#.path.#.up", GAUGE, "1 if the scheduler may use the path") \
	X("session.#.path.#.cost", GAUGE, "configured cost (lower is cheaper)") \
	X("session.#.path.#.weight", GAUGE, "configured WRR weight") \
	X("session.#.path.#.budget", INFO, "data budget of the path (Budget), canonical form") \
	X("session.#.path.#.budget_bytes", GAUGE, "data budget per period") \
	X("session.#.path.#.budget_used_bytes", GAUGE, "bytes sent on the path this period (on the anchor: by every session)") \
	X("session.#.path.#.budget_exhausted", GAUGE, "1 when the budget is used up: the path is used only when no other is up") \
	X("session.#.path.#.budget_period_end_s", GAUGE, "when the budget period ends, Unix seconds") \
	X("session.#.path.#.mtu_bytes", GAUGE, "largest inner packet the path carries now") \
	X("session.#.path.#.plpmtu_bytes", GAUGE, "largest outer IP packet the path carries now (DPLPMTUD)") \
	X("session.#.path.#.pmtu_state", INFO, "path MTU discovery: base, searching, complete or pinned") \
	X("session.#.path.#.mtu_probes", COUNTER, "padded MTU probes sent") \
	X("session.#.path.#.mtu_probes_lost", COUNTER, "MTU probes not answered within their timeout") \
	X("session.#.path.#.black_holes", COUNTER, "path MTU falls found from lost full-size packets (confirmed by probes)") \
	X("session.#.path.#.black_holes_unconfirmed", COUNTER, "full-size losses that looked like a black hole, the probes of that size answered (congestion)") \
	X("session.#.path.#.ptb_hints", COUNTER, "ICMP too-big messages taken as hints") \
	X("session.#.path.#.ptb_ignored", COUNTER, "ICMP too-big messages ignored (inconsistent with the search: RFC 8899 4.6.2)") \
	X("session.#.path.#.mtu_searches", COUNTER, "path MTU searches started (path up, raise timer, black hole, ICMP hint)") \
	X("session.#.path.#.send_too_big", COUNTER, "sends the local stack refused as too big (EMSGSIZE)") \
	X("session.#.path.#.pin_fallbacks", COUNTER, "anchor: sends the pinned source address refused (no longer local), sent from the kernel's choice instead") \
	X("session.#.path.#.acks_tx", COUNTER, "ACK frames sent for the peer's packets on the path") \
	X("session.#.path.#.acks_away", COUNTER, "of those, ACK frames sent on another path (its return was full or slower)") \
	X("session.#.path.#.ack_via", GAUGE, "the path id whose sending direction carries the path's ACKs now") \
	X("session.#.path.#.ack_tx_bytes", COUNTER, "bytes of ACK frames the path carried out, of any path's packets (ACK-only datagrams counted whole)") \
	X("session.#.path.#.ack_rx_bytes", COUNTER, "bytes of ACK frames that came in on the path, of any path's packets") \
	X("session.#.path.#.tx_rate_bytes_per_s", GAUGE, "bytes sent on the path per second (the last second)") \
	X("session.#.path.#.rx_rate_bytes_per_s", GAUGE, "bytes received on the path per second (the last second)") \
	X("session.#.path.#.ack_tx_rate_bytes_per_s", GAUGE, "of the bytes sent, ACK frames per second") \
	X("session.#.path.#.ack_rx_rate_bytes_per_s", GAUGE, "of the bytes received, ACK frames per second") \
	X("session.#.path.#.ack_every_pkts", GAUGE, "ack-eliciting packets per ACK the peer asked for") \
	X("session.#.path.#.ack_delay_us", GAUGE, "largest ACK delay the peer asked for") \
	X("session.#.path.#.ack_frequency_tx", COUNTER, "ACK_FREQUENCY requests sent to the peer") \
	X("session.#.path.#.srtt_us", GAUGE, "smoothed round-trip time") \
	X("session.#.path.#.rttvar_us", GAUGE, "round-trip time variation") \
	X("session.#.path.#.min_rtt_us", GAUGE, "lowest round-trip time seen") \
	X("session.#.path.#.latest_rtt_us", GAUGE, "latest round-trip time sample") \
	X("session.#.path.#.cwnd_bytes", GAUGE, "congestion window") \
	X("session.#.path.#.in_flight_bytes", GAUGE, "bytes sent, not yet acked or lost") \
	X("session.#.path.#.rt_in_flight_bytes", GAUGE, "of those, sent by real-time rules (Ordered = no)") \
	X("session.#.path.#.agg_in_flight_bytes", GAUGE, "anchor: in flight of every session on a path of this name") \
	X("session.#.path.#.agg_cwnd_bytes", GAUGE, "anchor: cwnd of every session on a usable path of this name") \
	X("session.#.path.#.pacing_rate_bytes_per_s", GAUGE, "pacing rate") \
	X("session.#.path.#.btlbw_bytes_per_s", GAUGE, "bottleneck bandwidth estimate") \
	X("session.#.path.#.delivery_rate_bytes_per_s", GAUGE, "latest delivery rate sample") \
	X("session.#.path.#.idle_ms", GAUGE, "time since the last packet from the peer") \
	X("session.#.path.#.sent_pkts", COUNTER, "packets sent on the path") \
	X("session.#.path.#.sent_bytes", COUNTER, "bytes sent on the path") \
	X("session.#.path.#.delivered_pkts", COUNTER, "packets acked on the path") \
	X("session.#.path.#.delivered_bytes", COUNTER, "bytes acked on the path") \
	X("session.#.path.#.lost_pkts", COUNTER, "packets declared lost on the path") \
	X("session.#.path.#.lost_bytes", COUNTER, "bytes declared lost on the path") \
	X("session.#.path.#.rx_pkts", COUNTER, "packets received on the path") \
	X("session.#.path.#.rx_bytes", COUNTER, "bytes received on the path") \
	X("daemon.pool_free", GAUGE, "free packet buffers in the pool") \
	X("daemon.pool_exhausted", COUNTER, "packets dropped: packet pool empty") \
	X("daemon.icmp_errors", COUNTER, "ICMP errors and local send errors read from the sockets' error queues") \
	X("daemon.hs_pin_fallbacks", COUNTER, "handshake replies the address the init came to refused as a source, sent from the kernel's choice") \
	X("session.#.no_key_drop_pkts", COUNTER, "packets dropped: no session key yet") \
	X("session.#.spoofed_drop_pkts", COUNTER, "packets dropped: inner source not allowed") \
	X("session.#.holds", COUNTER, "scheduler calls that found no path with room") \
	X("session.#.flow_held", COUNTER, "packets set aside while their flow's path had no room (per-flow schedulers)") \
	X("session.#.flow_held_pkts", GAUGE, "packets set aside now, waiting for their flow's path") \
	X("session.#.in_order_takes", COUNTER, "packets sent from past the queue head to arrive in order") \
	X("session.#.sparse_pkts", COUNTER, "packets that took the sparse-flow lane ahead of a bulk backlog (SparseFlows)") \
	X("session.#.sparse_demoted", COUNTER, "times the sparse-flow lane went to the bulk lane's front: its head would have arrived on a slower path behind the faster paths' packets") \
	X("session.#.sparse_joined", COUNTER, "times the sparse-flow lane joined an in-order take's run: numbered after the packets numbered already, ahead of the rest") \
	X("session.#.queue_standing", GAUGE, "1 while the sender's queue stands (dearer paths needed)") \
	X("session.#.queue_standing_starts", COUNTER, "times the sender's queue began to stand") \
	X("session.#.queue_standing_ms", COUNTER, "time the sender's queue stood, ms") \
	X("session.#.repairs", COUNTER, "lost packets re-sent (Recovery = retransmit)") \
	X("session.#.repair_late", COUNTER, "lost packets not re-sent: they would come after the receiver gave up") \
	X("session.#.repair_given_up", COUNTER, "lost packets not re-sent: lost again, or Recovery = off") \
	X("session.#.repair_copied", COUNTER, "lost packets not re-sent: sent on another path too (redundant)") \
	X("session.#.too_big_drops", COUNTER, "inner packets that fit no path, dropped") \
	X("session.#.ptb_sent", COUNTER, "ICMP too-big messages written to the TUN for them") \
	X("session.#.frag_pkts", COUNTER, "IPv4 packets without DF that fit no path, cut into fragments") \
	X("session.#.frag_out_pkts", COUNTER, "fragments they were cut into") \
	X("session.#.ptb_soft", COUNTER, "ICMP too-big sent for TCP packets larger than the smallest path (ClampMSS), the packet forwarded") \
	X("session.#.mss_clamp_bytes", GAUGE, "inner MTU TCP SYNs are clamped to (0: none)") \
	X("session.#.mss_clamped", COUNTER, "TCP SYNs whose MSS option was lowered") \
	X("session.#.tcp_retrans_seen", COUNTER, "inner TCP segments sent again by their flow (a congestion signal for exp3)") \
	X("session.#.unordered_rx_pkts", COUNTER, "packets of Ordered = no rules and pure TCP ACKs delivered at once") \
	X("session.#.unordered_dup_pkts", COUNTER, "copies of Ordered = no packets dropped") \
	X("session.#.acks_unordered_pkts", COUNTER, "inner pure TCP ACKs sent unordered (delivered at once)") \
	X("session.#.fresh_starts", COUNTER, "transport restarted for a restarted or silent peer") \
	X("session.#.keys_expired", COUNTER, \
	  "keypairs wiped at their hard lifetime (RejectAfterTime/Messages)") \
	X("session.#.handshakes", COUNTER, "handshakes completed") \
	X("session.#.sched_switches", COUNTER, "scheduler changes at run time") \
	X("session.#.sched_events", COUNTER, "scheduler events: steering thresholds crossed, traffic moved") \
	X("session.#.sched_event", INFO, "the latest scheduler event, as logged") \
	X("session.#.drop.*", COUNTER, "packets dropped on receive, by reason") \
	X("session.#.reorder.held", COUNTER, "packets held for reordering") \
	X("session.#.reorder.late", COUNTER, "packets arriving after their hole was skipped") \
	X("session.#.path.#.picks", COUNTER, "packets the scheduler assigned to the path") \
	X("session.#.path.#.cc", INFO, "congestion controller of the path") \
	X("session.#.path.#.data_tx_pkts", COUNTER, "data packets sent on the path") \
	X("session.#.path.#.data_tx_bytes", COUNTER, "bytes of the data datagrams sent on the path") \
	X("session.#.path.#.data_rx_pkts", COUNTER, "data packets received on the path") \
	X("session.#.path.#.probe_timeouts", COUNTER, "probe timeouts (PTO) on the path") \
	X("session.#.path.#.probes_tx", COUNTER, "liveness PROBEs sent on the path") \
	X("session.#.path.#.probes_rx", COUNTER, "PROBEs received from the peer on the path") \
	X("session.#.path.#.downs", COUNTER, "times the path was declared down") \
	X("session.#.path.#.dead_by_data", COUNTER, "times declared down: data unacknowledged for 1.5 PTO") \
	X("session.#.path.#.send_errors", COUNTER, "sends the kernel refused") \
	X("session.#.path.#.ack_errors", COUNTER, "ACKs dropped: they name packets never sent") \
	X("session.#.path.#.rebinds", COUNTER, "endpoint moves to a validated new address") \
	X("session.#.path.#.rebinds_refused", COUNTER, \
	  "packets from a new address not followed (older packet number)") \
	X("session.#.path.#.rebind_challenges", COUNTER, \
	  "address-validation challenges sent to a candidate address") \
	X("session.#.path.#.rebind_amp_limited", COUNTER, \
	  "challenges held back by the 3x anti-amplification limit") \
	X("session.#.path.#.gso_sends", COUNTER, "runs of datagrams sent as one UDP GSO send") \
	X("session.#.path.#.tx_datagrams", COUNTER, "datagrams sent on the path (all kinds)") \
	X("session.#.path.#.tx_datagram_bytes", COUNTER, "bytes of datagrams sent on the path") \
	X("session.#.path.#.acks_rx", COUNTER, "ACK frames received for the path") \
	X("session.#.path.#.probes_tx", COUNTER, "PROBEs sent on the path") \
	X("session.#.path.#.probes_rx", COUNTER, "PROBEs received on the path") \
	X("session.#.path.#.ups", COUNTER, "times the path came up") \
	X("session.#.path.#.ack_frequency_rx", COUNTER, "ACK_FREQUENCY requests applied") \
	X("session.#.path.#.txq_drop_pkts", COUNTER, \
	  "packets dropped from the pacer queue (the path went down)") \
	X("session.#.copies", COUNTER, "extra copies sent by redundant picks") \
	X("session.#.tun_write_errors", COUNTER, "packets the TUN device refused") \
	X("session.#.reorder.flushed", COUNTER, "packets released by a flush or resync") \
	X("session.#.reorder.stale_drops", COUNTER, \
	  "packets dropped: older than the duplicate history") \
	X("session.#.reorder.holes_skipped", COUNTER, "DSNs given up (lost, or they come late)") \
	X("session.#.reorder.resyncs", COUNTER, "DSN space restarts") \
	X("session.#.reorder.late_resent", COUNTER, \
	  "of the late packets, tunnel repairs (they do not raise the learned hold)") \
	X("session.#.reorder.hold_raises", COUNTER, "late packets of a timed-out hole that raised the learned hold") \
	X("session.#.reorder.holds_extended", COUNTER, \
	  "holes held past the hold for the repairs of a path gone dark") \
	X("session.#.reorder.capacity_pkts", GAUGE, \
	  "the reorder window, packets (ReorderBuffer, grown with rate x hold)") \
	X("session.#.reorder.grown", COUNTER, "times the reorder window grew") \
	X("daemon.rx_datagrams", COUNTER, "datagrams received") \
	X("daemon.drop_tun_bad_pkts", COUNTER, "TUN packets dropped: they do not parse") \
	X("daemon.tun_offload", INFO, "TUN offloads the kernel took (TUN_F_* bits; 0: none)") \
	X("daemon.tun_gso_pkts", COUNTER, "TUN super-packets (TSO/USO) cut into segments") \
	X("daemon.tun_gso_segs", COUNTER, "segments cut from TUN super-packets") \
	X("daemon.drop_tun_gso_pkts", COUNTER, \
	  "TUN packets dropped: a virtio-net header or GSO the daemon cannot follow") \
	X("daemon.tun_gro_pkts", COUNTER, "TCP super-packets written to the TUN (coalesced)") \
	X("daemon.tun_gro_segs", COUNTER, "packets coalesced into them") \
	X("daemon.tun_gro_write_errors", COUNTER, "packets of coalesced runs the TUN refused") \
	X("daemon.reloads", COUNTER, "configuration reloads applied") \
	X("daemon.reload_errors", COUNTER, "configuration reloads refused") \
	MPT_CTL_RULE_KEYS(X, "rule.#", "steering rule") \
	MPT_CTL_RULE_KEYS(X, "pushed_rule.#", "rule pushed by the anchor") \
	MPT_CTL_RULE_KEYS(X, "rule_default", "default rule ([Scheduler])")

/* The statistics of one steering rule, under prefix P (rule.N: the daemon's own rules
 * in match order; pushed_rule.N: the anchor's, on the UE; rule_default: packets no
 * rule matched). Counted over every session; the index of path_pkts and path_bytes
 * is the path id (Prometheus: a path label, as for per-path scheduler statistics). */
#define MPT_CTL_RULE_KEYS(X, P, W) \
	X(P ".name", INFO, W ": name") \
	X(P ".scheduler", INFO, W ": its scheduler") \
	X(P ".pkts", COUNTER, W ": packets it matched") \
	X(P ".bytes", COUNTER, W ": bytes it matched") \
	X(P ".drop_pkts", COUNTER, W ": packets dropped, its queue full") \
	X(P ".holds", COUNTER, W ": scheduler calls that held its packet") \
	X(P ".copies", COUNTER, W ": extra copies its scheduler sent (redundant picks)") \
	X(P ".instances", COUNTER, W ": scheduler instances made (one per session that used it)") \
	X(P ".queue_pkts", GAUGE, W ": packets waiting in its queues") \
	X(P ".path_pkts.#", COUNTER, W ": packets sent on the path (id #)") \
	X(P ".path_bytes.#", COUNTER, W ": bytes sent on the path (id #)")

struct mpt_ctl_key {
	const char *pattern;
	enum mpt_ctl_kind kind;
	const char *help;
};

/* The vocabulary table (src/ctl/ctl_vocab.c) and its lookup. */
extern const struct mpt_ctl_key mpt_ctl_keys[];
extern const size_t mpt_ctl_nkeys;

/*
 * Look key up (e.g. "session.0.path.1.srtt_us"). Returns the table entry, or for a
 * sched_stat key a synthetic gauge/counter entry (counter iff NAME ends in "_total"),
 * or NULL when the key is not in the vocabulary.
 */
const struct mpt_ctl_key *mpt_ctl_key_find(const char *key);

#endif
