#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory at scale: an anchor's resident memory must follow the sessions in use, not
# the peers configured. In one namespace of its own:
#
#   ns ANCHOR: lo, mpt0 10.99.0.1/16, UDP :5555 on lo
#              anchor A: 1 configured peer       -> VmRSS r1
#              anchor B: NPEERS configured peers -> VmRSS rN
#   ns UE:     NUE UE daemons (tunnels mpt1..), one path each over a veth to ANCHOR,
#              handshaking with anchor B: the first one -> VmRSS rW, then the
#              others, idle -> VmRSS rE
#
# Checks: (rN - r1) / (NPEERS - 1) <= PEER_KIB (default 12 KiB per idle configured
# peer) and (rE - rW) / (NUE - 1) <= SESSION_KIB (default 64 KiB per idle established
# session); anchor B idle with no peer connected uses < 1% CPU (no per-peer timers).
# Prints the figures either way.
. "$(dirname "$0")/lib.sh"
require_root
NPEERS=${NPEERS:-1000}
NUE=${NUE:-16}
PEER_KIB=${PEER_KIB:-12}
SESSION_KIB=${SESSION_KIB:-64}

rss_kib() { awk '/^VmRSS:/ {print $2}' /proc/"$1"/status; }
cpu_ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }	# utime + stime
wakeups() { awk '/^voluntary_ctxt_switches:/ {print $2}' /proc/"$1"/status; }

wait_up() { # wait_up PID LOG: the daemon said it is up (or died)
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q ' up: ' "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

ip netns add $NS_AN; ip -n $NS_AN link set lo up
ip netns add $NS_UE; ip -n $NS_UE link set lo up
veth $NS_UE ue1 $NS_AN an1
ip -n $NS_UE addr add 10.1.1.2/24 dev ue1; ip -n $NS_AN addr add 10.1.1.1/24 dev an1

genkeys anchor
log "making $NPEERS peer keys"
for ((i = 1; i <= NPEERS; i++)); do
	if [ "$i" -le "$NUE" ]; then
		genkeys "ue$i"
		pub=$(cat "$TMP/ue$i.pub")
	else
		pub=$("$MPTUND" genkey | "$MPTUND" pubkey)
	fi
	printf 'Name = ue%d|PublicKey = %s|AllowedIPs = 10.99.%d.%d/32\n' \
		"$i" "$pub" $((i / 250 + 1)) $((i % 250 + 1))
done > "$TMP/peers"

anchor_conf() { # anchor_conf FILE NPEERS
	local peers=()
	mapfile -t peers < <(head -n "$2" "$TMP/peers")
	write_anchor_conf "$1" minrtt bbr "${peers[@]}"
	sed -i 's|^Address = 10.99.0.1/24|Address = 10.99.0.1/16|' "$1"
}

anchor_conf "$TMP/a1.conf" 1
A1=$(start_daemon $NS_AN "$TMP/a1.conf" a1)
check "anchor with 1 peer starts" wait_up "$A1" "$TMP/a1.log"
sleep 1
r1=$(rss_kib "$A1")
kill "$A1"; wait "$A1" 2>/dev/null

anchor_conf "$TMP/aN.conf" "$NPEERS"
AN=$(start_daemon $NS_AN "$TMP/aN.conf" aN)
check "anchor with $NPEERS peers starts" wait_up "$AN" "$TMP/aN.log"
sleep 1
rN=$(rss_kib "$AN")
per_peer=$(( (rN - r1) / (NPEERS - 1) ))
log "anchor VmRSS: 1 peer $r1 KiB, $NPEERS peers $rN KiB: $per_peer KiB per idle configured peer"
check "an idle configured peer costs <= $PEER_KIB KiB ($per_peer)" [ "$per_peer" -le "$PEER_KIB" ]
t0=$(cpu_ticks "$AN"); w0=$(wakeups "$AN"); sleep 5; t1=$(cpu_ticks "$AN"); w1=$(wakeups "$AN")
cpu=$(( (t1 - t0) * 1000 / (5 * $(getconf CLK_TCK)) ))
wps=$(( (w1 - w0) / 5 ))
log "anchor idle with $NPEERS configured peers: CPU $((cpu / 10)).$((cpu % 10))%, $wps wake-ups/s"
check "... under 1% CPU" [ "$cpu" -lt 10 ]
check "... no per-peer timers (<= 10 wake-ups/s: $wps)" [ "$wps" -le 10 ]

# mptund-ctl at that scale: the statistics come in pages (page.next=), sessions as a
# summary; every session shows once, fast
ms_now() { date +%s%3N; }
ctl() { "$MPTCTL" -s "$TMP/anchor.sock" "$@"; }
t0=$(ms_now); ctl stats > "$TMP/stats.txt"; rc=$?; t1=$(ms_now)
nst=$(grep -c '^session\.[0-9]*\.peer ' "$TMP/stats.txt")
log "mptund-ctl stats, $NPEERS sessions: $((t1 - t0)) ms, $(wc -c < "$TMP/stats.txt") bytes"
all() { "$@" && echo 1 || echo 0; }	# all CMD: 1 if it succeeds
good=$(all eval '[ "$rc" -eq 0 ] && [ "$nst" -eq "$NPEERS" ] &&
	[ "$(grep -c "^daemon.version " "$TMP/stats.txt")" -eq 1 ]')
check "stats at $NPEERS sessions succeeds (rc $rc) with every session once ($nst)" \
	[ "$good" = 1 ]
check "... in under 2 s ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 2000 ]
t0=$(ms_now); ctl sessions > "$TMP/sessions.txt"; rc=$?; t1=$(ms_now)
log "mptund-ctl sessions, $NPEERS sessions: $((t1 - t0)) ms"
good=$(all eval '[ "$rc" -eq 0 ] && [ "$(wc -l < "$TMP/sessions.txt")" -eq $((NPEERS + 1)) ]')
check "sessions lists all $NPEERS ($(($(wc -l < "$TMP/sessions.txt") - 1)) rows)" [ "$good" = 1 ]
check "... in under 1 s ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 1000 ]
ctl sessions offset=$((NPEERS - 5)) limit=10 > "$TMP/page.txt"
good=$(all eval '[ "$(wc -l < "$TMP/page.txt")" -eq 6 ] && grep -q "^$((NPEERS - 1)) " "$TMP/page.txt"')
check "sessions offset=$((NPEERS - 5)) limit=10: the last 5" [ "$good" = 1 ]
ctl sessions offset=10 limit=3 > "$TMP/page.txt"
good=$(all eval '[ "$(wc -l < "$TMP/page.txt")" -eq 5 ] && grep -q "more from offset=13" "$TMP/page.txt"')
check "sessions offset=10 limit=3: a page that says where the rest starts" [ "$good" = 1 ]
# one raw request, as a script without mptund-ctl would send it: a page, not ENOBUFS
python3 - "$TMP/anchor.sock" > "$TMP/raw.txt" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"cmd=stats\n\n")
buf = b""
while not buf.endswith(b"\n\n") or b"\nerrno=" not in buf:
    d = s.recv(65536)
    if not d: break
    buf += d
sys.stdout.write(buf.decode())
PY
log "raw unscoped stats: $(wc -c < "$TMP/raw.txt") bytes, $(grep -c '^session\.[0-9]*\.peer=' "$TMP/raw.txt") sessions, $(grep '^page\.' "$TMP/raw.txt" | tr '\n' ' ')"
good=$(all eval 'grep -q "^errno=0$" "$TMP/raw.txt" && grep -q "^page.next=" "$TMP/raw.txt"')
check "a raw unscoped stats answers errno=0 with page.next (no ENOBUFS)" [ "$good" = 1 ]

start_ues() { # start_ues FIRST LAST: UE daemons, each with its own tunnel device
	local i
	for ((i = $1; i <= $2; i++)); do
		write_ue_conf "$TMP/ue$i.conf" "ue$i" \
			"10.99.$((i / 250 + 1)).$((i % 250 + 1))/32" minrtt bbr \
			"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555"
		sed -i "s|^Name = mpt0|Name = mpt$i|; /^Route = /d" "$TMP/ue$i.conf"
		start_daemon $NS_UE "$TMP/ue$i.conf" "ue$i" >/dev/null
	done
}

wait_handshakes() { # wait_handshakes N: the anchor completed N handshakes
	local t
	for ((t = 0; t < 100; t++)); do
		up=$(grep -c 'handshake completed' "$TMP/aN.log" 2>/dev/null || true)
		[ "$up" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# The first session also pays for one-time set-up (the crypto library's tables and
# cipher contexts): measured apart, the others are measured against it.
start_ues 1 1
check "the first UE handshook" wait_handshakes 1
sleep 1
rW=$(rss_kib "$AN")
start_ues 2 "$NUE"
check "$NUE UEs handshook" wait_handshakes "$NUE"
sleep 3		# idle: probes only
rE=$(rss_kib "$AN")
per_session=$(( (rE - rW) / (NUE - 1) ))
log "anchor VmRSS: first session +$((rW - rN)) KiB (one-time set-up included)," \
	"$NUE idle sessions $rE KiB: $per_session KiB per further idle session"
check "an idle established session costs <= $SESSION_KIB KiB ($per_session)" \
	[ "$per_session" -le "$SESSION_KIB" ]

# the scheduler view's aggregate (issue 14): every session's path "p1" counts in the
# cwnd sum that each of them sees, the usable ones only, kept without summing per pick
ctl stats > "$TMP/agg.txt"
sum=$(awk '$1 ~ /^session\.[0-9]+\.path\.0\.state$/ && $2 == "up" {
	split($1, k, "."); up[k[2]] = 1 }
	$1 ~ /^session\.[0-9]+\.path\.0\.cwnd_bytes$/ { split($1, k, "."); cw[k[2]] = $2 }
	END { for (s in up) t += cw[s]; print t + 0 }' "$TMP/agg.txt")
aggs=$(awk '$1 ~ /^session\.[0-9]+\.path\.0\.agg_cwnd_bytes$/ { print $2 }' "$TMP/agg.txt" | sort -u)
nup=$(grep -Ec '^session\.[0-9]+\.path\.0\.state +up' "$TMP/agg.txt")
log "path p1 usable in $nup sessions: cwnd sum $sum, agg_cwnd_bytes seen: $(echo $aggs)"
good=$(all eval '[ "$aggs" = "$sum" ] && [ "$nup" -ge 2 ]')
check "every session sees the same agg_cwnd of p1, the sum over its $nup usable sessions" \
	[ "$good" = 1 ]
finish
