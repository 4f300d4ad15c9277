#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Idle probing backs off (session_timer.c), in namespaces this script creates:
#
#   ns UE                          ns ANCHOR                         ns SRV
#   ue1 10.1.1.2/24  <--- veth ---> an1 10.1.1.1/24   (path "p1")
#   ue2 10.1.2.2/24  <--- veth ---> an2 10.1.2.1/24   (path "p2")
#                                   ans 10.2.0.1/24  <--- veth ---> srv 10.2.0.2/24
#
# ProbeInterval 100 ms, ProbeMissLimit 3, IdleProbeInterval 2 s on both sides, then
# 2 s on the UE against 100 ms (an anchor without the backoff) and 1 s on the anchor.
# Checks: an idle UE's PROBEs slow down to about one per 2 s per path (20 a second
# without the backoff) while both paths stay up on both sides and the anchor's
# session stays quiet (no wake-up); a path cut while idle (a blackhole route on the
# anchor: the UE's PROBEs go unanswered) goes down on the UE with its next PROBE, so
# within one idle interval and the dead-path time: the PROBE is ack-eliciting, in
# flight, and a path with nothing acknowledged for 1.5 probe timeouts (at least 30 ms,
# 500 ms with a stale RTT: session_repair.c) is down; ProbeMissLimit x the idle
# interval (6 s) would come later and is not what finds it; a path cut just before
# traffic starts is probed with the first data and goes down within a few
# ProbeIntervals, so a ping over both paths loses little.
. "$(dirname "$0")/lib.sh"
require_root
IDLE_PROBE_MS=2000
DEAD_STALE_MS=500	# session_repair.c MPT_DEAD_STALE_NS: the longest dead-path time on a veth
topo_up 2
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
write_ue_conf "$TMP/ue.conf" ue 10.99.0.2/24 rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555"
AN=$(start_daemon $NS_AN "$TMP/anchor.conf" anchor)
UE=$(start_daemon $NS_UE "$TMP/ue.conf" ue)

uctl() { "$MPTCTL" -s "$TMP/ue.sock" stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
actl() { "$MPTCTL" -s "$TMP/anchor.sock" stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
wait_ue() { # wait_ue SECONDS KEY VALUE: seconds it took, or fails
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		[ "$(uctl "$2")" = "$3" ] && { echo "$((i * 50))"; return 0; }
		sleep 0.05
	done
	return 1
}

check "tunnel up" wait_ping $NS_UE 10.2.0.2 10
# the kernel's own IPv6 packets on the UE's TUN (router solicitations, MLD reports in
# the first seconds) are data too and would end the backoff: none here
ip netns exec $NS_UE sysctl -qw net.ipv6.conf.mpt0.disable_ipv6=1
sleep 7		# idle: 0.1, 0.2, 0.4 ... 2 s between PROBEs after about 4 s
t0=$(uctl session.0.path.0.probes_tx); w0=$(actl session.0.wakeups)
d0=$(uctl session.0.tx_pkts)
sleep 6
t1=$(uctl session.0.path.0.probes_tx); w1=$(actl session.0.wakeups)
d1=$(uctl session.0.tx_pkts)
log "UE PROBEs on p1 in 6 s idle: $((t1 - t0)); UE data packets sent $((d1 - d0));" \
	"anchor wake-ups: $((w1 - w0)), quiet=$(actl session.0.quiet)"
check "the window was idle (no data from the UE)" [ $((d1 - d0)) = 0 ]
check "idle PROBEs backed off (<= 5 in 6 s, 60 without)" [ $((t1 - t0)) -le 5 ]
check "and still some (liveness goes on)" [ $((t1 - t0)) -ge 2 ]
check "p1, p2 up on the UE" [ "$(uctl session.0.path.0.up)$(uctl session.0.path.1.up)" = 11 ]
check "p1, p2 up on the anchor" \
	[ "$(actl session.0.path.0.up)$(actl session.0.path.1.up)" = 11 ]
check "the anchor's session stayed quiet (no wake-up)" [ $((w1 - w0)) = 0 ]
check "the UE learned the anchor's IdleProbeInterval from its idle hint (2000 ms)" \
	[ "$(uctl session.0.peer_idle_probe_ms)" = 2000 ]

# an idle path dies: the UE's PROBEs on p1 go unanswered
dd0=$(uctl session.0.path.0.dead_by_data)
ip -n $NS_AN route add blackhole 10.1.1.2/32
if ms=$(wait_ue 8 session.0.path.0.up 0); then
	ok "idle p1 cut: down on the UE after $ms ms (idle interval 2 s," \
		"PROBE timeouts $(uctl session.0.path.0.probe_timeouts))"
	check "... found by its next PROBE: within the idle interval, dead-path time, 250 ms" \
		[ "$ms" -le $((IDLE_PROBE_MS + DEAD_STALE_MS + 250)) ]
	check "... as a dead path (the unanswered PROBE in flight), not by the miss limit" \
		[ "$(uctl session.0.path.0.dead_by_data)" = $((dd0 + 1)) ]
else
	fail "idle p1 cut: not down on the UE within 8 s"
fi
ip -n $NS_AN route del blackhole 10.1.1.2/32
if wait_ue 5 session.0.path.0.up 1 > /dev/null; then ok "p1 back up on the UE"
else fail "p1 back up on the UE"; fi

# traffic starts on a path that died while idle
sleep 7
ip -n $NS_AN route add blackhole 10.1.1.2/32
ip netns exec $NS_UE ping -i 0.05 -c 40 -W 1 10.2.0.2 > "$TMP/ping" 2>&1
loss=$(grep -oE '[0-9.]+% packet loss' "$TMP/ping" | cut -d% -f1)
log "ping over p1 (cut) and p2 as traffic starts: ${loss:-?}% loss, p1 up=$(uctl session.0.path.0.up)"
check "the first data probed p1: down within the ping" [ "$(uctl session.0.path.0.up)" = 0 ]
check "little loss (<= 20%; half the packets for seconds without)" \
	[ "${loss%.*}" -le 20 ]
ip -n $NS_AN route del blackhole 10.1.1.2/32

# An anchor that lets a quiet path be silent less long than the UE would back off:
# the UE goes no further than the anchor's idle hint says. An anchor with
# IdleProbeInterval = ProbeInterval stands in for one older than the backoff: it
# sends no hint and wakes a quiet session whose path was silent for ProbeMissLimit x
# ProbeInterval (300 ms here) to PROBE it, which would wake the UE in turn.
mismatch() { # mismatch ANCHOR_IDLE_MS HINT_MS MIN_PROBES MAX_PROBES: PROBEs in 6 s idle
	local what="anchor IdleProbeInterval $1 ms, UE 2000 ms"
	kill "$UE" "$AN"; wait "$UE" "$AN" 2>/dev/null
	IDLE_PROBE_MS=$1 write_anchor_conf "$TMP/anchor.conf" rr fixed \
		"PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
	AN=$(start_daemon $NS_AN "$TMP/anchor.conf" anchor)
	UE=$(start_daemon $NS_UE "$TMP/ue.conf" ue)
	check "$what: tunnel up" wait_ping $NS_UE 10.2.0.2 10
	ip netns exec $NS_UE sysctl -qw net.ipv6.conf.mpt0.disable_ipv6=1
	sleep 7
	t0=$(uctl session.0.path.0.probes_tx); w0=$(actl session.0.wakeups)
	sleep 6
	t1=$(uctl session.0.path.0.probes_tx); w1=$(actl session.0.wakeups)
	log "$what: UE PROBEs on p1 in 6 s idle $((t1 - t0)), anchor wake-ups $((w1 - w0))," \
		"hint $(uctl session.0.peer_idle_probe_ms) ms"
	check "$what: the UE's hint is $2 ms" [ "$(uctl session.0.peer_idle_probe_ms)" = "$2" ]
	check "$what: $3 to $4 PROBEs in 6 s" [ $((t1 - t0)) -ge "$3" -a $((t1 - t0)) -le "$4" ]
	check "$what: the anchor did not wake to probe" [ $((w1 - w0)) = 0 ]
	check "$what: p1, p2 up on both sides" [ "$(uctl session.0.path.0.up)$(uctl \
		session.0.path.1.up)$(actl session.0.path.0.up)$(actl session.0.path.1.up)" = 1111 ]
}
mismatch 100 0 40 70	# no hint: no backoff, a PROBE every 100 ms
mismatch 1000 1000 4 9	# about one a second
finish
