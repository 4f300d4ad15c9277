#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quiet sessions: an idle anchor session runs no timer of its own and sends no PROBEs,
# yet its liveness stays right (src/core/session_idle.c).
#
#   ns UE                          ns ANCHOR                         ns SRV
#   mpt0 10.99.0.2/24              mpt0 10.99.0.1/24
#   ue1 10.1.1.2/24  <--- veth ---> an1 10.1.1.1/24   (path "p1")
#   ue2 10.1.2.2/24  <--- veth ---> an2 10.1.2.1/24   (path "p2")
#                                   ans 10.2.0.1/24  <--- veth ---> srv 10.2.0.2/24
#
# ProbeInterval 100 ms, ProbeMissLimit 3: a path is down after 300 ms without a sign
# of life, a session without data is quiet after 10 probe intervals (1 s). Checks:
# the anchor's session goes quiet, sends no PROBE while quiet and keeps both paths up
# on the UE's PROBEs; traffic wakes it at once; a path cut while quiet goes down on
# the anchor within 2 s and the session goes quiet again; the path comes back up.
. "$(dirname "$0")/lib.sh"
require_root
topo_up 2
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" minrtt bbr \
	"PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
write_ue_conf "$TMP/ue.conf" ue 10.99.0.2/24 minrtt bbr \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555"
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null

actl() { "$MPTCTL" -s "$TMP/anchor.sock" stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
wait_for() { # wait_for SECONDS KEY REGEX: the anchor's KEY matches REGEX in time
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		[[ "$(actl "$2")" =~ ^($3)$ ]] && return 0
		sleep 0.05
	done
	return 1
}

check "tunnel up" wait_ping $NS_UE 10.2.0.2 10
check "anchor path p1 up" wait_for 5 session.0.path.0.state up
check "anchor path p2 up" wait_for 5 session.0.path.1.state up
check "the idle session goes quiet" wait_for 3 session.0.quiet 1
probes() { echo $(( $(actl session.0.path.0.probes_tx) + $(actl session.0.path.1.probes_tx) )); }
# A quiet spell sends no PROBE. On a loaded machine a stalled UE can leave a path
# silent for 300 ms, which wakes the session (by design): then look at another 2 s.
quiet_ok=0
for try in 1 2 3; do
	wait_for 3 session.0.quiet 1
	tx0=$(probes); rx0=$(actl session.0.path.0.probes_rx); w0=$(actl session.0.wakeups)
	sleep 2
	tx1=$(probes); rx1=$(actl session.0.path.0.probes_rx); w1=$(actl session.0.wakeups)
	log "2 s quiet ($try): anchor PROBEs $((tx1 - tx0)), the UE's received $((rx1 - rx0))," \
		"wake-ups $((w1 - w0))"
	if [ "$w1" -eq "$w0" ]; then
		[ "$tx1" -eq "$tx0" ] && [ $((rx1 - rx0)) -ge 10 ] && quiet_ok=1
		break
	fi
done
check "2 s without a wake-up: no anchor PROBE, the UE's PROBEs arrive (>= 10)" \
	[ "$quiet_ok" = 1 ]
check "... both paths up" [ "$(actl session.0.path.0.state)/$(actl session.0.path.1.state)" = up/up ]

wait_for 3 session.0.quiet 1
w0=$(actl session.0.wakeups)
ping1() { ip netns exec $NS_UE ping -q -c1 -W1 10.2.0.2 >/dev/null; }
check "traffic gets through a quiet session at once" ping1
check "... and wakes it" [ "$(actl session.0.wakeups)" -gt "$w0" ]
check "quiet again after the traffic" wait_for 4 session.0.quiet 1

# cut path p1 under the quiet session where the UE cannot see it (its link stays up,
# so it sends no PATH_STATUS): what arrives on an1 goes to an ifb left down (this
# kernel has neither netem nor a drop action)
ip netns exec $NS_AN tc qdisc add dev an1 ingress
ip -n $NS_AN link add bh0 type ifb
ip netns exec $NS_AN tc filter add dev an1 ingress protocol ip u32 match u32 0 0 \
	action mirred egress redirect dev bh0
t0=$(date +%s%N)
if wait_for 3 session.0.path.0.state 'probing|down'; then
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	log "path p1 down on the anchor after $ms ms"
	check "a path cut while quiet goes down within 2 s ($ms ms)" [ "$ms" -le 2000 ]
else
	fail "a path cut while quiet goes down (state $(actl session.0.path.0.state))"
fi
check "path p2 stays up" [ "$(actl session.0.path.1.state)" = up ]
check "quiet again with p1 down" wait_for 4 session.0.quiet 1
tx0=$(actl session.0.path.0.probes_tx)
sleep 1
check "no PROBE to the dead path while quiet" [ "$(actl session.0.path.0.probes_tx)" -eq "$tx0" ]

ip netns exec $NS_AN tc qdisc del dev an1 ingress
check "p1 comes back up on the anchor" wait_for 5 session.0.path.0.state up
check "traffic after all that" wait_ping $NS_UE 10.2.0.2 3
finish
