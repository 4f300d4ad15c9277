#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ATSSS steering (issue 13) in a live tunnel, namespaces from lib.sh:
#
#   UE (mptund, active-standby: active p1)        ANCHOR          SRV
#   ue1 10.1.1.2 ==(p1, Cost 1)============= an1 10.1.1.1   mptund  ans == srv 10.2.0.2
#   ue2 10.1.2.2 ==(p2, Cost 2, Budget 2K/day)= an2 10.1.2.1    |
#   mpt0 10.99.0.2 ======================== tunnel ========= mpt0 10.99.0.1
#
# Checks: a steering switch is an event in the log and in stats/watch; p2's tiny data
# budget is used up by its PROBEs, after which even rr sends no data on p2 while p1 is
# up (but does when p1 is down); `paths` shows the budget; the usage survives a
# restart through the StateFile; with the anchor's downlink redundant, the UE's
# reorder buffer drops each second copy (counted as duplicates).
. "$(dirname "$0")/lib.sh"
require_root
PY=/usr/bin/python3

topo_up 2
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32, fd99::2/128"
UE_EXTRA="StateFile = $TMP/ue.state" write_ue_conf "$TMP/ue.conf" ue \
	"10.99.0.2/24, fd99::2/64" "active-standby
active = p1
standby = p2
return_ms = 300" fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555|Cost = 1" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555|Cost = 2|Budget = 2K/day"
SOCK=$TMP/ue.sock

start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
UE_PID=$(start_daemon $NS_UE "$TMP/ue.conf" ue)

C() { "$MPTCTL" -s "$SOCK" "$@"; }
sv() { C stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
# wait_sv KEY VALUE SECONDS
wait_sv() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(sv "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	log "$1 = $(sv "$1"), wanted $2"
	return 1
}
ping_burst() { ip netns exec $NS_UE ping -q -c "$1" -i 0.01 -s 200 10.2.0.2 >/dev/null 2>&1; }

check "the tunnel comes up (ping UE -> SRV)" wait_ping $NS_UE 10.2.0.2 10

# --- 1. a switch of active-standby is an event: log, stats, watch ----------------------
ping_burst 20
C path p1 down >/dev/null
ping_burst 20
check "p1 down: the event 'traffic moved to p2 from p1' in stats" \
	bash -c "'$MPTCTL' -s '$SOCK' stats session.0.sched_event | grep -q 'traffic moved to p2 from p1'"
check "p1 down: the event in the UE's log" grep -q 'active-standby: traffic moved to p2 from p1' \
	"$TMP/ue.log"
C path p1 up >/dev/null
sleep 1
ping_burst 20
check "p1 up: traffic back on p1 after return_ms, logged" grep -q \
	'active-standby: traffic moved to p1 from p2' "$TMP/ue.log"
timeout 0.5 "$MPTCTL" -s "$SOCK" watch --interval 100 > "$TMP/watch.out"
check "watch shows the latest event and the count" bash -c "grep -q 'sched_event.*traffic moved to p1 from p2' '$TMP/watch.out' && grep -q 'sched_events' '$TMP/watch.out'"

# --- 2. p2's budget used up: no data on p2 while p1 is up, even under rr ---------------
check "p2's 2K/day budget is used up (PROBEs and ACKs count)" \
	wait_sv session.0.path.1.budget_exhausted 1 20
check "paths: a budget table with p2 used up" bash -c \
	"'$MPTCTL' -s '$SOCK' paths | grep -qE '^0 +p2 +2K/day@00:00 .* used up'"
C set sched rr >/dev/null
d0=$(sv session.0.path.1.data_tx_pkts); k0=$(sv session.0.path.1.picks)
ping_burst 200
d1=$(sv session.0.path.1.data_tx_pkts); k1=$(sv session.0.path.1.picks)
p1=$(sv session.0.path.0.picks)
log "p2 data packets $d0 -> $d1, picks $k0 -> $k1; p1 picks $p1"
check "rr, p2 over budget, p1 up: 0 data packets and 0 picks on p2" \
	[ "$d0" = "$d1" -a "$k0" = "$k1" -a "$p1" -gt 0 ]
C path p1 down >/dev/null
ping_burst 50
k2=$(sv session.0.path.1.picks)
check "p1 down: p2 carries the traffic in spite of its budget ($k1 -> $k2 picks)" \
	[ "$k2" -gt "$k1" ]
C path p1 up >/dev/null

# --- 3. the usage survives a restart ----------------------------------------------------
used=$(sv session.0.path.1.budget_used_bytes)
kill "$UE_PID"
for i in $(seq 50); do kill -0 "$UE_PID" 2>/dev/null || break; sleep 0.1; done
check "at exit the StateFile holds p2's usage (>= $used bytes), no temporary left" bash -c \
	"awk '/^path=p2 /{split(\$2,a,\"=\"); exit !(a[2] >= $used)}' '$TMP/ue.state' && [ ! -e '$TMP/ue.state.tmp' ]"
UE_PID=$(start_daemon $NS_UE "$TMP/ue.conf" ue2)
check "restarted: the tunnel comes up" wait_ping $NS_UE 10.2.0.2 10
check "restarted: p2 still used up, usage read back" bash -c \
	"[ \"\$('$MPTCTL' -s '$SOCK' stats session.0.path.1.budget_exhausted | awk '{print \$2}')\" = 1 ] && [ \"\$('$MPTCTL' -s '$SOCK' stats session.0.path.1.budget_used_bytes | awk '{print \$2}')\" -ge $used ]"

# --- 4. redundant downlink (the anchor has no budget): the UE drops the copies --------
A() { "$MPTCTL" -s "$TMP/anchor.sock" "$@"; }
asv() { A stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
A set sched redundant >/dev/null
u0=$(sv session.0.reorder.duplicates); c0=$(asv session.0.sched_stat.copied_total)
ping_burst 100
sleep 0.3
u1=$(sv session.0.reorder.duplicates); c1=$(asv session.0.sched_stat.copied_total)
log "anchor copied $c0 -> $c1 packets; UE reorder duplicates $u0 -> $u1"
check "redundant downlink: every copy the anchor sent twice is dropped once at the UE" \
	[ $((c1 - c0)) -ge 90 -a $((u1 - u0)) -ge $((c1 - c0 - 5)) -a $((u1 - u0)) -le $((c1 - c0)) ]
check "redundant downlink: 20 more pings, none lost" \
	bash -c "ip netns exec $NS_UE ping -q -c 20 -i 0.02 10.2.0.2 | grep -q ' 0% packet loss'"

finish
