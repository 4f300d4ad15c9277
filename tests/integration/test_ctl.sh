#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mptund-ctl against a live tunnel, in namespaces this script creates (lib.sh):
#
#   UE (mptund, ctl socket 0660 root:nogroup)         ANCHOR          SRV
#   ue1 10.1.1.2 ==(p1, Cost 1)== an1 10.1.1.1     mptund  ans == srv 10.2.0.2
#   ue2 10.1.2.2 ==(p2, Cost 2)== an2 10.1.2.1        |              iperf3 -s
#   mpt0 10.99.0.2 ===================== tunnel ====== mpt0 10.99.0.1
#
# Every check talks to the UE's control socket while iperf3 (uplink, cubic) runs
# from the UE to SRV through the tunnel: live counters (text and JSON), scheduler
# switches mid-flow without drops, tunables with valid and out-of-range values,
# administrative path down/up and cost, EPERM for a non-owner, garbage on the
# socket, Prometheus exposition, watch, reload (good and broken config).
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf3 >/dev/null || { echo "1..0 # SKIP iperf3 missing"; exit 0; }
getent group nogroup >/dev/null || { echo "1..0 # SKIP no group nogroup"; exit 0; }
PY=/usr/bin/python3

umask 077			# keys and configs stay private ...
chmod 711 "$TMP"		# ... while uid 65534 can reach the socket by name
topo_up 2
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32, fd99::2/128"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24, fd99::2/64" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555|Cost = 1" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555|Cost = 2"
sed -i '/^ControlSocket/a ControlGroup = nogroup' "$TMP/ue.conf"
SOCK=$TMP/ue.sock
PROBE=${PROBE_MS:-100}

start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
UE_PID=$(start_daemon $NS_UE "$TMP/ue.conf" ue)
ip netns exec $NS_SRV iperf3 -s -D -I "$TMP/iperf.pid" >/dev/null 2>&1
sleep 0.3
PIDS+=("$(cat "$TMP/iperf.pid")")

C() { "$MPTCTL" -s "$SOCK" "$@"; }
# sv KEY: one value of `stats`
sv() { C stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
# iperf_up SECONDS JSONFILE [iperf3 args]: uplink flow in the background, pid in IPERF
iperf_up() {
	local t=$1 f=$2; shift 2
	ip netns exec $NS_UE iperf3 -c 10.2.0.2 -t "$t" -i 1 -C cubic -J "$@" > "$f" 2>&1 &
	IPERF=$!
}
# every 1 s interval of an iperf3 JSON carried data
all_intervals() {
	$PY -c 'import json,sys
d = json.load(open(sys.argv[1])); iv = d["intervals"]
print("# intervals (Mbit/s):", " ".join("%.0f" % (i["sum"]["bits_per_second"] / 1e6) for i in iv))
sys.exit(0 if len(iv) >= int(sys.argv[2]) and all(i["sum"]["bytes"] > 0 for i in iv) else 1)' "$@"
}

check "the tunnel comes up (ping UE -> SRV)" wait_ping $NS_UE 10.2.0.2 10
check "socket is 0660 root:nogroup" [ "$(stat -c '%a %U %G' "$SOCK")" = "660 root nogroup" ]

# --- 1. counters rise on both paths while a flow runs -------------------------------
iperf_up 5 "$TMP/a.json"
sleep 1
C stats > "$TMP/s1.txt"; C --json stats > "$TMP/j1.json"
sleep 0.5
C stats > "$TMP/s2.txt"; C --json stats > "$TMP/j2.json"
rising_text() {
	local k p a b bad=0
	for p in 0 1; do for k in sent_bytes delivered_bytes rx_bytes; do
		a=$(awk -v k="session.0.path.$p.$k" '$1 == k { print $2 }' "$TMP/s1.txt")
		b=$(awk -v k="session.0.path.$p.$k" '$1 == k { print $2 }' "$TMP/s2.txt")
		[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] || { log "path $p $k: $a -> $b"; bad=1; }
	done; done
	return $bad
}
check "stats: sent/delivered/rx bytes rise on both paths" rising_text
check "stats --json: parses and sent/delivered/rx bytes rise on both paths" $PY -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ok = True
for p in (0, 1):
	for k in ("sent_bytes", "delivered_bytes", "rx_bytes"):
		x, y = a["session"][0]["path"][p][k], b["session"][0]["path"][p][k]
		if not (isinstance(x, int) and y > x):
			print("# path %d %s: %r -> %r" % (p, k, x, y)); ok = False
sys.exit(0 if ok else 1)' "$TMP/j1.json" "$TMP/j2.json"

# --- 2. administrative path down/up mid-flow; cost -----------------------------------
srtt_us=$(sv session.0.path.0.srtt_us)
settle=$(awk -v r="$srtt_us" -v p="$PROBE" 'BEGIN { printf "%.3f", r / 1e6 + p / 1e3 }')
C path p1 down; rc=$?
check "path p1 down: exit 0" [ $rc -eq 0 ]
sleep "$settle"		# one RTT plus the probe interval
p1a=$(sv session.0.path.0.sent_pkts); p2a=$(sv session.0.path.1.sent_pkts)
sleep $(awk -v p="$PROBE" 'BEGIN { print 3 * p / 1e3 }')
p1b=$(sv session.0.path.0.sent_pkts); p2b=$(sv session.0.path.1.sent_pkts)
log "p1 down (settle ${settle}s): p1 sent_pkts $p1a -> $p1b, p2 $p2a -> $p2b"
check "p1 down: p1 sends nothing after one RTT + probe interval" [ "$p1b" -eq "$p1a" ]
check "p1 down: p2 carries the flow" [ "$p2b" -gt "$p2a" ]
# the anchor is told by the UE's PATH_STATUS at once (peer_down), or else hears
# nothing more on p1 and declares it down after its miss limit
MISS=3	# ProbeMissLimit in lib.sh
dead=$(awk -v p="$PROBE" -v m=$MISS -v r="$srtt_us" 'BEGIN { printf "%.3f", m * p / 1e3 + r / 1e6 }')
sleep "$dead"
an_state=$("$MPTCTL" -s "$TMP/anchor.sock" stats |
	awk '{ n = $1 } $2 == "p1" && sub(/\.name$/, ".state", n) { k = n; next } $1 == k { print $2 }')
check "p1 down: the anchor declares its p1 down within the miss limit ($an_state)" \
	[ "$an_state" = peer_down -o "$an_state" = down -o "$an_state" = probing ]
check "p1 down: state admin_down, up 0" bash -c "
	[ \"\$($MPTCTL -s $SOCK stats session.0.path.0.state | awk '{print \$2}')\" = admin_down ] &&
	[ \"\$($MPTCTL -s $SOCK stats session.0.path.0.up | awk '{print \$2}')\" = 0 ]"
C path p1 up; rc=$?
check "path p1 up: exit 0" [ $rc -eq 0 ]
sleep "$settle"
p1a=$(sv session.0.path.0.sent_pkts)
sleep 0.3
p1b=$(sv session.0.path.0.sent_pkts)
log "p1 up: p1 sent_pkts $p1a -> $p1b"
check "p1 up: p1 carries traffic again" [ "$p1b" -gt "$p1a" ]
wait $IPERF; rc=$?
check "flow across down/up completes" [ $rc -eq 0 ]
check "flow across down/up: every interval carries data" all_intervals "$TMP/a.json" 5

C path p1 cost 5; rc=$?
check "path p1 cost 5: exit 0" [ $rc -eq 0 ]
check "path p1 cost 5: stats show it" [ "$(sv session.0.path.0.cost)" = 5 ]
check "path p1 cost 5: paths shows it" bash -c \
	"$MPTCTL -s $SOCK paths | awk '\$3 == \"p1\" && \$5 == 5 { f = 1 } END { exit !f }'"

# --- 3. scheduler switches during a 10 s flow ----------------------------------------
# 100 Mbit/s keeps each path's share far below its fixed 256 KiB window at ~ms RTTs
# (100 Mbit/s * 10 ms = 125 KB), so the scheduler queue never overflows by itself:
# any drop would be the switch's.
AC() { "$MPTCTL" -s "$TMP/anchor.sock" "$@"; }
asv() { AC stats "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
sleep 0.3	# quiescent: every inner packet the UE sent has reached the anchor
sw0=$(sv session.0.sched_switches); dr0=$(sv session.0.sched_drop_pkts)
tx0=$(sv session.0.tx_pkts); arx0=$(asv session.0.rx_pkts); asp0=$(asv session.0.spoofed_drop_pkts)
iperf_up 10 "$TMP/b.json" -b 100M
sched_ok=1
for s in minrtt wrr cpf; do
	sleep 2.5
	d1=$(sv session.0.sched_drop_pkts)
	C set sched $s || sched_ok=0
	now=$(C sched | awk '$1 == "scheduler" { print $2 }')
	sleep 0.3
	d2=$(sv session.0.sched_drop_pkts)
	log "switch to $s: 'sched' says $now, sched_drop_pkts $d1 -> $d2"
	[ "$now" = $s ] && [ "$d2" -eq "$d1" ] || sched_ok=0
done
wait $IPERF; rc=$?
sleep 0.3
sw1=$(sv session.0.sched_switches); dr1=$(sv session.0.sched_drop_pkts)
tx1=$(sv session.0.tx_pkts); arx1=$(asv session.0.rx_pkts); asp1=$(asv session.0.spoofed_drop_pkts)
check "set sched rr -> minrtt -> wrr -> cpf: each reported, no drop at the switch" \
	[ $sched_ok = 1 ]
check "flow across the switches completes" [ $rc -eq 0 ]
check "flow across the switches: every 1 s interval carries data" all_intervals "$TMP/b.json" 10
check "sched_switches counted 3 ($sw0 -> $sw1), sched_drop_pkts $dr0 -> $dr1" \
	[ $((sw1 - sw0)) -eq 3 -a "$dr1" -eq "$dr0" ]
check "session.0.sched says cpf" [ "$(sv session.0.sched)" = cpf ]
# the anchor refuses the kernel's own IPv6 chatter from mpt0 (link-local source, not in
# AllowedIPs) as spoofed: that is policy, not loss
check "no inner packet lost across the switches: UE sent $((tx1 - tx0)), anchor got $((arx1 - arx0)) + $((asp1 - asp0)) not allowed" \
	[ $((tx1 - tx0)) -eq $((arx1 - arx0 + asp1 - asp0)) -a $((tx1 - tx0)) -gt 0 ]

# --- 4. tunables ------------------------------------------------------------------
minfrac() { C sched | awk '$1 == "min_frac" { print $2 }'; }
C set sched acpf && C set sched.min_frac 0.5; rc=$?
check "set sched acpf; set sched.min_frac 0.5: exit 0" [ $rc -eq 0 ]
check "sched shows acpf with min_frac 0.5" \
	[ "$(C sched | awk '$1 == "scheduler" { print $2 }')" = acpf -a "$(minfrac)" = 0.5 ]
sw0=$(sv session.0.sched_switches)
C set sched.min_frac 7 > "$TMP/out" 2> "$TMP/err"; rc=$?
log "$(cat "$TMP/err")"
check "set sched.min_frac 7: exit 1, error quotes '7' and the range" \
	bash -c "[ $rc -eq 1 ] && grep -q \"'7'.*range\" $TMP/err"
check "set sched.min_frac 7: nothing changed" \
	[ "$(minfrac)" = 0.5 -a "$(sv session.0.sched_switches)" = "$sw0" ]
C set sched.no_such 1 2> "$TMP/err"; rc=$?
check "set sched.no_such: exit 1, names the tunable" \
	bash -c "[ $rc -eq 1 ] && grep -q \"'no_such'\" $TMP/err"
C set sched rr && C set cc.window 100000; rc=$?
check "set cc.window 100000 (fixed): exit 0" [ $rc -eq 0 ]
check "set cc.window 100000: both paths' cwnd is 100000" \
	[ "$(sv session.0.path.0.cwnd_bytes)" = 100000 -a "$(sv session.0.path.1.cwnd_bytes)" = 100000 ]
C set cc.window 1000 2> "$TMP/err"; rc=$?
log "$(cat "$TMP/err")"
check "set cc.window 1000 (below the minimum): exit 1, quotes '1000', nothing changed" \
	bash -c "[ $rc -eq 1 ] && grep -q \"'1000'\" $TMP/err &&
		[ \"\$($MPTCTL -s $SOCK stats session.0.path.0.cwnd_bytes | awk '{print \$2}')\" = 100000 ]"
C set cc.window 262144 >/dev/null

# --- 5. a non-owner reads but may not write -----------------------------------------
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups "$MPTCTL" -s "$SOCK")
"${NOBODY[@]}" status > "$TMP/out" 2>&1; rc=$?
check "uid 65534 (group nogroup): status works (exit $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q established $TMP/out"
for cmd in "set sched minrtt" "path p1 down" "reload"; do
	"${NOBODY[@]}" $cmd > "$TMP/out" 2>&1; rc=$?
	check "uid 65534: '$cmd' refused with EPERM, exit 1 ($(head -c 120 "$TMP/out"))" \
		bash -c "[ $rc -eq 1 ] && grep -Eq 'needs uid 0|EPERM|not permitted' $TMP/out"
done
check "uid 65534: nothing changed (sched rr, p1 up)" \
	[ "$(sv session.0.sched)" = rr -a "$(sv session.0.path.0.state)" = up ]

# --- 6. garbage on the socket --------------------------------------------------------
cat > "$TMP/garbage.py" <<'EOF'
import random, socket, sys

def talk(data, half_close=True, timeout=2.0):
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.settimeout(timeout)
	s.connect(sys.argv[1])
	s.sendall(data)
	if half_close:
		s.shutdown(socket.SHUT_WR)
	out = b""
	try:
		while True:
			b = s.recv(65536)
			if not b:
				break
			out += b
	except (socket.timeout, ConnectionResetError):
		pass	# reset: the daemon closed with our excess input unread
	s.close()
	return out.decode("ascii", "replace")

def replies(text):
	"""errno of each reply (a reply ends in errno=N and a blank line)."""
	return [int(l[6:]) for l in text.split("\n") if l.startswith("errno=")]

fails = 0
def expect(what, cond, text):
	global fails
	print("%s - garbage: %s" % ("ok" if cond else "not ok", what))
	if not cond:
		fails += 1
		print("# reply: %r" % text[:300])

rng = random.Random(4711)
t = talk(bytes(rng.randrange(256) for _ in range(3000)) + b"\n\n")
e = replies(t)
expect("random bytes are answered with errors only", e and all(x != 0 for x in e)
       and "message=" in t, t)
t = talk(b"cmd=stats\nscope=" + b"a" * 400 + b"\n\ncmd=stats\nscope=daemon.role\n\n")
e = replies(t)
expect("an oversized line gets E2BIG, the next request on the connection works",
       e == [7, 0] and "longer than 256" in t and "daemon.role=ue" in t, t)
t = talk(b"cmd=stats\n" + b"x=y\n" * 1200)
expect("a request over 4096 bytes gets E2BIG and the connection closes",
       replies(t) == [7] and "longer than 4096" in t, t)
t = talk(b"cmd=stats\nscope=daemon.role\n")
e = replies(t)
expect("a request without the blank line, then EOF, is answered with an error",
       len(e) == 1 and e[0] != 0 and "message=" in t, t)
t = talk(b"cmd=stats\nscope=daemon.role\n", half_close=False, timeout=0.3)
expect("... while the client may still send it, nothing is answered yet", t == "", t)
t = talk(b"cmd=stats\x00\n\ncmd=bogus\n\ncmd=path\n\n\xff\xfe\n\n")
expect("NUL, unknown command, missing key, binary: four errors", len(replies(t)) == 4
       and 0 not in replies(t), t)
sys.exit(1 if fails else 0)
EOF
$PY "$TMP/garbage.py" "$SOCK" > "$TMP/garbage.out" 2>&1; rc=$?
sed 's/^/#   /' "$TMP/garbage.out"
check "garbage: every case answered as expected" [ $rc -eq 0 ]
check "after garbage: the daemon is alive" kill -0 "$UE_PID"
check "after garbage: status works" bash -c "$MPTCTL -s $SOCK status | grep -q established"
check "after garbage: a ping through the tunnel works" \
	bash -c "ip netns exec $NS_UE ping -q -c 2 -i 0.2 -W 2 10.2.0.2 >/dev/null"

# --- 7. reload ------------------------------------------------------------------------
sed -i -e 's/^Cost = 1$/Cost = 7/' -e '/^\[Congestion\]/{n;s/^Name = fixed$/Name = bbr/}' "$TMP/ue.conf"
C reload; rc=$?
check "reload with p1 Cost = 7 and BBR: exit 0, stats show cost 7 and cc bbr" \
	[ $rc -eq 0 -a "$(sv session.0.path.0.cost)" = 7 -a "$(sv session.0.path.1.cc)" = bbr ]
line=$(grep -n '^Cost = 7$' "$TMP/ue.conf" | cut -d: -f1)
sed -i 's/^Cost = 7$/Cost = ten/' "$TMP/ue.conf"
C reload 2> "$TMP/err"; rc=$?
log "$(cat "$TMP/err")"
check "reload of a broken config: exit 1 with ue.conf:$line: Cost: 'ten'" \
	bash -c "[ $rc -eq 1 ] && grep -q \"ue.conf:$line: Cost: 'ten'\" $TMP/err"
check "after the failed reload: cost still 7, daemon alive" \
	[ "$(sv session.0.path.0.cost)" = 7 -a -d /proc/$UE_PID ]
check "after the failed reload: the tunnel still carries traffic" \
	bash -c "ip netns exec $NS_UE ping -q -c 2 -i 0.2 -W 2 10.2.0.2 >/dev/null"
# --- 8. metrics (now with BBR's statistics) and watch -------------------------------------------------------------
C metrics > "$TMP/metrics.txt"; rc=$?
check "metrics: exit 0" [ $rc -eq 0 ]
check "metrics: valid exposition (HELP+TYPE per family, counters end in _total)" $PY -c '
import re, sys
name = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
sample = re.compile(r"^(%s)(\{([a-zA-Z_][a-zA-Z0-9_]*=\"(\\.|[^\"\\])*\",?)*\})? (\S+)$" % name)
helps, types, seen, done, bad = {}, {}, set(), set(), []
last = None
for n, line in enumerate(open(sys.argv[1]), 1):
	line = line.rstrip("\n")
	m = re.match(r"^# (HELP|TYPE) (%s) (.*)$" % name, line)
	if m:
		d = helps if m.group(1) == "HELP" else types
		if m.group(2) in d:
			bad.append("%d: second %s for %s" % (n, m.group(1), m.group(2)))
		d[m.group(2)] = m.group(3)
		if m.group(1) == "TYPE" and m.group(3) not in ("counter", "gauge", "untyped"):
			bad.append("%d: type %r" % (n, m.group(3)))
		continue
	m = sample.match(line)
	if not m:
		bad.append("%d: not a sample: %r" % (n, line)); continue
	fam = m.group(1)
	try:
		float(m.group(5))
	except ValueError:
		bad.append("%d: value %r" % (n, m.group(5)))
	if fam not in helps or fam not in types:
		bad.append("%d: %s lacks HELP or TYPE" % (n, fam))
	elif types[fam] == "counter" and not fam.endswith("_total"):
		bad.append("%d: counter %s does not end in _total" % (n, fam))
	if fam != last and fam in done:
		bad.append("%d: samples of %s not contiguous" % (n, fam))
	done.add(fam); last = fam
need = ["mptund_path_sent_bytes_total", "mptund_path_srtt_seconds", "mptund_daemon_tun_rx_pkts_total",
	"mptund_session_sched_switches_total", "mptund_path_cc_stat_round_count_total"]
bad += ["missing family %s" % f for f in need if f not in done]
bad += ["%s: %s" % (f, h) for f, h in helps.items() if "not in the vocabulary" in h]
for b in bad[:15]:
	print("#", b)
print("# %d families, %d problems" % (len(done), len(bad)))
sys.exit(1 if bad else 0)' "$TMP/metrics.txt"

timeout 0.4 "$MPTCTL" -s "$SOCK" watch --interval 50 --json > "$TMP/watch.out"
check "watch --interval 50 --json: >= 5 JSON lines in 400 ms, timestamps increasing" $PY -c '
import json, sys
ts = [json.loads(l)["time_ms"] for l in open(sys.argv[1]) if l.strip()]
print("# %d lines, steps %s ms" % (len(ts), [b - a for a, b in zip(ts, ts[1:])]))
sys.exit(0 if len(ts) >= 5 and all(b > a for a, b in zip(ts, ts[1:])) else 1)' "$TMP/watch.out"

finish
