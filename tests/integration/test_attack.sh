#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Handshake floods and replays against a live anchor, a rogue anchor against a live
# UE, and local users against the anchor's control socket, in namespaces this script
# creates (the base topology is lib.sh's):
#
#   UE  ue1 ==(p1)== an1  ANCHOR  ans == srv  SRV   (the real user: ping through
#       ue2 ==(p2)== an2     |                       the tunnel all along)
#   UE2 ue21 ======= an4 ----+                       (restarted during each attack)
#   ATK atk0 ======= an9 ----+   10.1.9.2, fd01:9::2; routes back to the spoofed
#                                2001:db8:a77:1::/64 and 100.64.0.0/22
#       atk8 10.1.8.1 ====== bue0 10.1.8.2  UE3 (its anchor: mpt_attack badanchor)
#
# The attacker (build/tests/mpt_attack, its own wire encoder, OpenSSL only):
#   A. mac1-valid inits from random addresses of one IPv6 /64, 20000/s
#   B. the same from 1000 spoofed IPv4 addresses, 20000/s
#   C. UE2's own init, captured on the wire, replayed from UE2's address, 10000/s,
#      6 s longer than A and B: UE2 (RekeyAfterTime 10 s) rekeys within the stream
#   D. a rogue anchor with the anchor's private key (its own Noise IK responder)
#      handshakes with UE3 (one path), answers its probes, sends authenticated
#      packets on path ids 1-7 (UE3 has no path for them) and 8, 9, 200, 255 (out of
#      range), then valid probes on the real path
#   E. 16 idle and 16 pipelining (stats, never read) control clients of 8 local uids
#      in the anchor's ControlGroup
# Checks, per attack A-C: the UE's ping loses <= 1%, UE2 restarted mid-attack has its
# tunnel within 2 s and its ping then loses <= 1%, the anchor lives; the anchor
# answered with cookie replies (A, B) and dropped the replays as duplicates before
# any X25519 (C); UE2 completed a rekey during the replays (C). D: UE3 lives, counts
# every such packet under bad-path-id (session.0.drop.* for 1-7, daemon.drop.* for
# the rest), has no path state but its own, answers every valid probe after them.
# E: root's mptund-ctl answered within 2 s, the anchor's RSS grows <= 8 MiB, the
# anchor closes every client it took after its idle timeout (5 s).
# Figures printed: ping loss, RTT, the anchor's CPU during each attack, UE2's rekeys
# (C), the rogue anchor's packets and UE3's drop counters (D), the clients taken,
# refused and closed, root's answer time and the anchor's RSS (E).
. "$(dirname "$0")/lib.sh"
require_root
ATTACK=$BUILD/tests/mpt_attack
[ -x "$ATTACK" ] || { echo "no $ATTACK"; exit 1; }
NS_ATK=mptt-atk-$RUN_ID
NS_BUE=mptt-bue-$RUN_ID
RATE=${ATTACK_RATE:-20000}
SECS=${ATTACK_SECS:-8}

cleanup_atk() {
	for ns in $NS_ATK $NS_BUE; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	cleanup
}
trap cleanup_atk EXIT

topo_up 2
ue2_up
ip netns add $NS_ATK; ip -n $NS_ATK link set lo up
veth $NS_ATK atk0 $NS_AN an9
ip -n $NS_ATK addr add 10.1.9.2/24 dev atk0; ip -n $NS_AN addr add 10.1.9.1/24 dev an9
ip -n $NS_ATK addr add fd01:9::2/64 dev atk0 nodad
ip -n $NS_AN addr add fd01:9::1/64 dev an9 nodad
ip -n $NS_AN route add 100.64.0.0/22 via 10.1.9.2
ip -n $NS_AN route add 2001:db8:a77:1::/64 via fd01:9::2
# spoofed sources arrive on an9 whatever their address: no reverse-path filter
ip netns exec $NS_AN sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.an9.rp_filter=0

genkeys anchor; genkeys ue; genkeys ue2
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32" \
	"Name = ue2|PublicKey = $(cat "$TMP/ue2.pub")|AllowedIPs = 10.99.0.3/32"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555"
# UE2 rekeys every 10 s (the least RekeyAfterTime): once during attack C's stream
UE_EXTRA="RekeyAfterTime = 10s" write_ue_conf "$TMP/ue2.conf" ue2 "10.99.0.3/24" rr fixed \
	"Name = only|Device = ue21|Endpoint = 10.1.3.1:5555"
# local users of group 65100 may read the anchor's control socket (attack E)
sed -i '/^\[Interface\]/a ControlGroup = 65100' "$TMP/anchor.conf"

AN_PID=$(start_daemon $NS_AN "$TMP/anchor.conf" anchor)
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null
UE2_PID=$(start_daemon $NS_UE2 "$TMP/ue2.conf" ue2)
check "UE reaches the server through the tunnel" wait_ping $NS_UE 10.2.0.2 10
check "UE2 reaches the server through the tunnel" wait_ping $NS_UE2 10.2.0.2 10
PUB=$(cat "$TMP/anchor.pub")

cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }
now_ms() { date +%s%3N; }

# Restart UE2; RESTART_MS: the milliseconds until a ping crosses its new tunnel. Not
# in a subshell: UE2_PID must follow, or the next restart kills a dead pid and the old
# UE2 keeps running (the new one cannot have its TUN).
restart_ue2() {
	local t0 i
	kill "$UE2_PID"
	for ((i = 0; i < 100; i++)); do kill -0 "$UE2_PID" 2>/dev/null || break; sleep 0.02; done
	t0=$(now_ms)
	UE2_PID=$(start_daemon $NS_UE2 "$TMP/ue2.conf" ue2)
	RESTART_MS=99999
	for ((i = 0; i < 50; i++)); do
		if ip netns exec $NS_UE2 ping -c1 -W0.2 10.2.0.2 >/dev/null 2>&1; then
			RESTART_MS=$(($(now_ms) - t0)); return
		fi
		sleep 0.05
	done
}

# attack TAG NAME SECS CMD...: the attack runs for SECS while the UE pings every 50 ms
# and UE2 restarts after 2 s and pings from then on; then the checks.
attack() {
	local tag=$1 name=$2 secs=$3 t0 c0 c1 t1 apid ppid p2 loss loss2 rtt ms cpu r0 r1
	shift 3
	ip netns exec $NS_UE ping -i 0.05 -w $((secs + 1)) -q 10.2.0.2 > "$TMP/ping-$tag" 2>&1 &
	ppid=$!
	t0=$(now_ms); c0=$(cpu_ticks "$AN_PID")
	ip netns exec $NS_ATK "$@" > "$TMP/atk-$tag" 2>&1 &
	apid=$!
	sleep 2
	restart_ue2; ms=$RESTART_MS
	r0=$(ue2_rekeys)
	ip netns exec $NS_UE2 ping -i 0.05 -w $((secs - 3)) -q 10.2.0.2 > "$TMP/ping2-$tag" 2>&1 &
	p2=$!
	wait $apid
	t1=$(now_ms); c1=$(cpu_ticks "$AN_PID")
	r1=$(ue2_rekeys)
	wait $ppid $p2
	loss=$(grep -oE '[0-9.]+% packet loss' "$TMP/ping-$tag" | cut -d% -f1)
	loss2=$(grep -oE '[0-9.]+% packet loss' "$TMP/ping2-$tag" | cut -d% -f1)
	rtt=$(grep -oE 'rtt [^=]+= [0-9./]+' "$TMP/ping-$tag" | cut -d= -f2)
	cpu=$(( (c1 - c0) * 1000 * 100 / $(getconf CLK_TCK) / (t1 - t0 > 0 ? t1 - t0 : 1) ))
	REKEYS=$(( ${r1:-0} - ${r0:-0} ))
	log "$name: $(cat "$TMP/atk-$tag"); UE ping loss ${loss:-?}%, rtt min/avg/max/mdev${rtt:- ?} ms; anchor CPU ${cpu}%; UE2 restart to first ping ${ms} ms, then its ping loss ${loss2:-?}%, ${REKEYS} rekey(s)"
	check "$name: the anchor lives" kill -0 "$AN_PID"
	check "$name: the UE's ping loses <= 1% (${loss:-?}%)" \
		awk -v l="${loss:-100}" 'BEGIN { exit !(l <= 1) }'
	check "$name: the restarted UE2 lives" kill -0 "$UE2_PID"
	check "$name: UE2 restarted mid-attack has its tunnel within 2 s (${ms} ms)" \
		[ "$ms" -le 2000 ]
	check "$name: UE2's ping after its restart loses <= 1% (${loss2:-?}%)" \
		awk -v l="${loss2:-100}" 'BEGIN { exit !(l <= 1) }'
	check "$name: right after, the UE's ping is clean" \
		ip netns exec $NS_UE ping -c 5 -i 0.1 -W 1 -q 10.2.0.2
}

ue2_rekeys() {
	"$MPTCTL" -s "$TMP/ue2.sock" stats session.0.rekeys 2>/dev/null |
		awk '$1 == "session.0.rekeys" { print $2 }'
}

stat_of() { "$MPTCTL" -s "$TMP/anchor.sock" stats | awk -v k="daemon.$1" '$1 == k { print $2 }'; }

# UE2's next init, from the wire, for attack C
ip netns exec $NS_AN "$ATTACK" capture an4 5555 20 > "$TMP/captured" 2>&1 &
CAP=$!
sleep 0.3

attack A "A (one IPv6 /64)" "$SECS" "$ATTACK" flood6 fd01:9::1 5555 "$PUB" 2001:db8:a77:1:: "$RATE" "$SECS"
wait $CAP
c=$(stat_of hs_cookie_replies)
check "A: the flood was answered with cookie replies (${c:-0})" [ "${c:-0}" -gt 1000 ]

attack B "B (1000 IPv4 sources)" "$SECS" "$ATTACK" flood4 10.1.9.1 5555 "$PUB" 100.64.0.1 1000 "$RATE" "$SECS"
c2=$(stat_of hs_cookie_replies)
check "B: the flood was answered with cookie replies ($((${c2:-0} - ${c:-0})))" \
	[ $((${c2:-0} - ${c:-0})) -gt 1000 ]

read -r SRC SPORT HEX < "$TMP/captured"
check "UE2's init captured on the wire" [ ${#HEX} -eq 296 ]
d0=$(stat_of drop_hs_duplicate_pkts)
# C runs 6 s longer: UE2, restarted after 2 s, rekeys 10 s later, within the stream
attack C "C (UE2's init replayed)" $((SECS + 6)) "$ATTACK" replay 10.1.9.1 5555 "$SRC" \
	"$SPORT" "$HEX" $((RATE / 2)) $((SECS + 6))
d1=$(stat_of drop_hs_duplicate_pkts)
check "C: the replays were dropped as duplicates ($((${d1:-0} - ${d0:-0})))" \
	[ $((${d1:-0} - ${d0:-0})) -gt 1000 ]
check "C: UE2 completed a rekey while the replays ran (${REKEYS})" [ "$REKEYS" -ge 1 ]

fig() { grep -oE "(^| )$1=[0-9]+" "$2" | head -1 | cut -d= -f2; }

# D. A malicious anchor: the anchor's own key, played by mpt_attack for a UE of its own
# (UE3, one path), sends authenticated packets on path ids UE3 has no path for.
ip netns add $NS_BUE; ip -n $NS_BUE link set lo up
veth $NS_BUE bue0 $NS_ATK atk8
ip -n $NS_BUE addr add 10.1.8.2/24 dev bue0; ip -n $NS_ATK addr add 10.1.8.1/24 dev atk8
genkeys ue3
write_ue_conf "$TMP/ue3.conf" ue3 "10.99.0.4/24" rr fixed \
	"Name = only|Device = bue0|Endpoint = 10.1.8.1:5555"
ip netns exec $NS_ATK "$ATTACK" badanchor 10.1.8.1 5555 "$(cat "$TMP/anchor.key")" 10 \
	> "$TMP/atk-D" 2>&1 &
apid=$!
UE3_PID=$(start_daemon $NS_BUE "$TMP/ue3.conf" ue3)
wait $apid
"$MPTCTL" -s "$TMP/ue3.sock" stats > "$TMP/ue3-stats" 2>&1
inr=$(fig in_range "$TMP/atk-D"); oor=$(fig out_of_range "$TMP/atk-D")
sbad=$(awk '$1 == "session.0.drop.bad-path-id" { print $2 }' "$TMP/ue3-stats")
dbad=$(awk '$1 == "daemon.drop.bad-path-id" { print $2 }' "$TMP/ue3-stats")
npath=$(grep -oE '^session\.0\.path\.[0-9]+\.' "$TMP/ue3-stats" | sort -u | wc -l)
log "D (rogue anchor, unknown path ids): $(cat "$TMP/atk-D"); UE3 dropped ${sbad:-0} as session.0.drop.bad-path-id, ${dbad:-0} as daemon.drop.bad-path-id; paths in its stats: $npath"
check "D: the rogue anchor completed a handshake with UE3 ($(fig inits "$TMP/atk-D") init(s))" \
	[ "$(fig inits "$TMP/atk-D")" -ge 1 ]
ue3_lives() { # the process is there, is no zombie, and its control socket answers
	kill -0 "$UE3_PID" 2>/dev/null &&
		! grep -q '^State:.*Z' "/proc/$UE3_PID/status" 2>/dev/null &&
		timeout 2 "$MPTCTL" -s "$TMP/ue3.sock" status >/dev/null 2>&1
}
check "D: UE3 lives (its process and its control socket answer)" ue3_lives
check "D: ids 1-7 dropped as session.0.drop.bad-path-id (${sbad:-0} of ${inr:-?})" \
	[ "${sbad:-0}" -eq "${inr:-1}" ]
check "D: ids 8-255 dropped as daemon.drop.bad-path-id (${dbad:-0} of ${oor:-?})" \
	[ "${dbad:-0}" -eq "${oor:-1}" ]
check "D: UE3 has no path state but its own path ($npath path(s) in its stats)" [ "$npath" -eq 1 ]
check "D: UE3 answered every valid probe on its path after them ($(fig answered "$TMP/atk-D") of $(fig probes "$TMP/atk-D"))" \
	[ "$(fig answered "$TMP/atk-D")" -eq "$(fig probes "$TMP/atk-D")" ]

# E. Local users (group 65100, 8 uids) open 16 idle control connections and 16 that
# pipeline "stats" without reading; root must still get an answer within 2 s, the
# anchor's RSS stays within a few MiB, and the daemon closes them after its idle timeout.
chmod o+x "$TMP"	# the other uids reach the socket; its mode 0660 guards it
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' /proc/"$1"/status; }
r0=$(rss_kb "$AN_PID"); rmax=$r0
"$ATTACK" ctlflood "$TMP/anchor.sock" 65100 65101 16 16 8 > "$TMP/atk-E" 2>&1 &
apid=$!
sleep 1.5
t0=$(now_ms)
timeout 10 "$MPTCTL" -s "$TMP/anchor.sock" stats > "$TMP/E-stats" 2>&1; rc=$?
ms=$(($(now_ms) - t0))
ncl=$(awk '$1 == "daemon.ctl_clients" { print $2 }' "$TMP/E-stats")
while kill -0 $apid 2>/dev/null; do
	r=$(rss_kb "$AN_PID"); [ "${r:-0}" -gt "$rmax" ] && rmax=$r
	sleep 0.2
done
wait $apid
chmod o-x "$TMP"
ia=$(fig idle_accepted "$TMP/atk-E"); ic=$(fig idle_closed "$TMP/atk-E")
pa=$(fig pipe_accepted "$TMP/atk-E"); pc=$(fig pipe_closed "$TMP/atk-E")
imax=$(grep -oE 'idle_closed_ms=[0-9]+-[0-9]+' "$TMP/atk-E" | cut -d- -f2)
pmax=$(grep -oE 'pipe_closed_ms=[0-9]+-[0-9]+' "$TMP/atk-E" | cut -d- -f2)
log "E (control clients): $(cat "$TMP/atk-E"); root's stats answered in ${ms} ms (rc $rc, ${ncl:-?} clients connected); anchor RSS ${r0} kB before, at most ${rmax} kB during (+$(( (rmax - r0) / 1024 )) MiB)"
check "E: the attackers got connections ($ia idle, $pa pipelining)" \
	[ $((${ia:-0} + ${pa:-0})) -ge 8 -a "${ia:-0}" -ge 1 -a "${pa:-0}" -ge 1 ]
check "E: root's mptund-ctl got an answer within 2 s (${ms} ms, rc $rc)" \
	[ "$rc" -eq 0 -a "$ms" -le 2000 ]
check "E: the anchor's RSS grew by <= 8 MiB ($(( (rmax - r0) / 1024 )) MiB)" \
	[ $((rmax - r0)) -le 8192 ]
check "E: the idle ones were closed after the idle timeout ($ic of $ia, last at ${imax:-?} ms)" \
	[ "${ic:-0}" -eq "${ia:-1}" -a "${imax:-99999}" -le 7000 ]
check "E: the pipelining ones too ($pc of $pa, last at ${pmax:-?} ms)" \
	[ "${pc:-0}" -eq "${pa:-1}" -a "${pmax:-99999}" -le 7000 ]
check "E: the anchor lives" kill -0 "$AN_PID"
log "anchor counters: $("$MPTCTL" -s "$TMP/anchor.sock" stats | grep -E 'daemon\.(hs_|drop_(hs|ratelimit|auth|replay))' | tr -s ' ' | tr '\n' ' ')"
finish
