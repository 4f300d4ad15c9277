#!/bin/bash
# SPDX-License-Identifier: MIT
# Testbed integration test (root; ctest passes the build directory as $1).
#
#   testbed-it-ue --tue0-- [testbed-it-d: delaybridge td0|td1] --tan0-- testbed-it-an
#
# 1. delaybridge holds a configured RTT: with one-way delay D each way the ICMP RTT
#    median must be 2*D + B within TOL, B being the RTT measured through the same bridge
#    at D = 0 (veth + packet-socket forwarding), TOL = 0.2 ms (the testbed's accuracy
#    target: 1 % of the shortest RTT used by the scenarios, 20 ms). Under a 90 Mbit/s
#    reno flow on a 100 Mbit/s TBF the bridge's own lateness (send time - due time, it
#    counts it per frame) must average below TOL/2 per direction, and it must drop nothing.
# 2. ci-short end to end through run.py: result files exist, every path's throughput
#    is within (0, configured rate], totals equal the sum of the paths, and sample
#    timestamps strictly increase.
# 3. SIGTERM mid-run (acpf, during the flow): run.py exits 130 within its tear-down
#    bound, every process that was in its Mininet hosts' namespaces (mptund, mptund-ctl,
#    delaybridge, iperf3, samplers) is gone, no host shell or root-namespace link of
#    ours remains, and it printed what it stopped. About 10 s.
set -u
BUILD=$(readlink -f "${1:?usage: test_testbed.sh BUILD_DIR}")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
D_MS=10
TOL_MS=0.2
NS="testbed-it-ue testbed-it-d testbed-it-an"
TMP=$(mktemp -d /tmp/testbed-it.XXXXXX)
BRIDGE_PID=
fail=0

cleanup_ns() {
	for n in $NS; do
		for p in $(ip netns pids "$n" 2>/dev/null); do kill "$p" 2>/dev/null; done
		ip netns del "$n" 2>/dev/null
	done
}

cleanup() {
	[ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}
trap cleanup EXIT

for exe in delaybridge rttprobe; do
	[ -x "$BUILD/$exe" ] || { echo "FAIL: $BUILD/$exe not built"; exit 1; }
done
if ! $PY -c 'import mininet' 2>/dev/null; then
	echo "SKIP: Debian's python3-mininet is not installed"; exit 0
fi

cleanup_ns
for n in $NS; do ip netns add "$n"; done
ip link add tue0 netns testbed-it-ue type veth peer name td0 netns testbed-it-d
ip link add td1 netns testbed-it-d type veth peer name tan0 netns testbed-it-an
ip -n testbed-it-ue addr add 10.9.0.1/24 dev tue0
ip -n testbed-it-an addr add 10.9.0.2/24 dev tan0
for n in $NS; do ip -n "$n" link set lo up; done
ip -n testbed-it-ue link set tue0 up
ip -n testbed-it-an link set tan0 up
ip netns exec testbed-it-d sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip -n testbed-it-d link set td0 up promisc on
ip -n testbed-it-d link set td1 up promisc on

start_bridge() {	# $1 = one-way delay in ms
	ip netns exec testbed-it-d "$BUILD/delaybridge" -a td0 -b td1 -d "$1" -D "$1" -r 10 \
		> "$TMP/bridge.out" 2>&1 < /dev/null &
	BRIDGE_PID=$!
	sleep 0.3
	ip netns exec testbed-it-ue "$BUILD/rttprobe" -c 3 -i 0.05 10.9.0.2 > /dev/null  # ARP
}
stop_bridge() { kill "$BRIDGE_PID"; wait "$BRIDGE_PID" 2>/dev/null; BRIDGE_PID=; }
probe() { ip netns exec testbed-it-ue "$BUILD/rttprobe" -j -c 50 -i 0.02 10.9.0.2; }
field() { $PY -c "import json,sys; print(json.loads(sys.argv[1])$2)" "$1"; }

# Two attempts: the machine is shared, a burst of foreign load can shift one median.
for attempt in 1 2; do
	start_bridge 0
	base=$(probe); stop_bridge
	start_bridge $D_MS
	delayed=$(probe)
	echo "attempt $attempt: bridge at 0 ms:  $base"
	echo "attempt $attempt: bridge at $D_MS ms: $delayed"
	B=$(field "$base" '["p50_ms"]')
	M=$(field "$delayed" '["p50_ms"]')
	if $PY -c "import sys; b,m,d,t=map(float,sys.argv[1:]); sys.exit(0 if abs(m-(2*d+b))<=t else 1)" \
		"$B" "$M" "$D_MS" "$TOL_MS"; then
		echo "ok: RTT median $M ms vs expected 2*$D_MS + $B ms (tolerance $TOL_MS ms)"
		rtt_ok=1
		break
	fi
	echo "RTT median $M ms, expected 2*$D_MS + $B ms +- $TOL_MS ms"
	rtt_ok=0
	[ $attempt = 1 ] && stop_bridge
done
[ $rtt_ok = 1 ] || { echo "FAIL: delaybridge RTT"; fail=1; }
# Loaded: 90 Mbit/s reno on a 100 Mbit/s TBF, probes alongside.
ip netns exec testbed-it-an tc qdisc add dev tan0 root tbf rate 100mbit burst 12500 limit 1250000
ip netns exec testbed-it-an iperf3 -s -1 -D -p 5299
sleep 0.3
ip netns exec testbed-it-ue iperf3 -c 10.9.0.2 -p 5299 -R -t 3 -C reno -b 90M -J > "$TMP/iperf.json" &
IPERF=$!
sleep 1
loaded=$(probe)
wait $IPERF
stop_bridge
stats=$(tail -1 "$TMP/bridge.out")
echo "loaded probe: $loaded"
echo "bridge stats: $stats"
if $PY - "$stats" "$TOL_MS" "$TMP/iperf.json" <<'PYEOF'
import json, sys
st, tol = json.loads(sys.argv[1]), float(sys.argv[2])
ip = json.load(open(sys.argv[3]))
rate = ip["end"]["sum_received"]["bits_per_second"] / 1e6
ok = rate > 80
print("  flow %.1f Mbit/s (paced at 90)" % rate)
for d in ("ab", "ba"):
    s = st[d]
    print("  %s: lateness avg %.1f us max %.1f us, drops loss/queue/tx %d/%d/%d"
          % (d, s["late_avg_us"], s["late_max_us"], s["drop_loss"], s["drop_queue"], s["tx_err"]))
    ok &= s["late_avg_us"] <= tol * 1000 / 2 and s["drop_queue"] == 0 and s["tx_err"] == 0
sys.exit(0 if ok else 1)
PYEOF
then echo "ok: loaded bridge lateness within $TOL_MS/2 ms, no drops"
else echo "FAIL: loaded bridge"; fail=1
fi
cleanup_ns

# 2. ci-short end to end.
if ! $PY "$SRC/testbed/run.py" --build "$BUILD" --out "$TMP/results" \
	"$SRC/testbed/scenarios/ci-short.json"; then
	echo "FAIL: run.py ci-short"; exit 1
fi
OUT=$(ls -d "$TMP"/results/ci-short-* | head -1)
$PY - "$OUT" "$SRC/testbed" <<'PYEOF' || fail=1
import csv, json, os, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import results
sc = json.load(open(os.path.join(out, "scenario.json")))
paths = {p["name"]: p for p in sc["topology"]["paths"]}
bad = []
for f in ("summary.csv", "summary.json", "summary.txt", "summary-tput_total.png"):
    if not os.path.exists(os.path.join(out, f)):
        bad.append("missing " + f)
rows = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
if len(rows) != len(sc["schedulers"]) * len(sc["cc"]) * sc["repetitions"]:
    bad.append("%d rows in summary.csv" % len(rows))
for r in rows:
    rd = os.path.join(out, "runs", r["run"])
    for f in ("meta.json", "iperf.json", "samples-ue.jsonl", "samples-server.jsonl",
              "timeseries.png"):
        if not os.path.exists(os.path.join(rd, f)):
            bad.append("%s: missing %s" % (r["run"], f))
    if r["status"] != "ok":
        bad.append("%s: status %s" % (r["run"], r["status"]))
        continue
    bad += ["%s: %s" % (r["run"], b) for b in results.check_run(rd, json.load(open(os.path.join(rd, "meta.json"))))]
    tot = sum(float(r["tput_" + p]) for p in paths)
    if abs(tot - float(r["tput_total"])) > 0.01:
        bad.append("%s: total %s != sum of paths %.3f" % (r["run"], r["tput_total"], tot))
    # The side flows (scenario "probes"): a voice-like UDP uplink measured by
    # owdprobe and a ping, both beside the greedy download. One-way delay at least the
    # shortest path's configured delay (the clocks are one), loss small (the uplink is
    # idle but for the download's ACKs).
    meta = json.load(open(os.path.join(rd, "meta.json")))
    voice, ping = meta["probes"].get("voice", {}), meta["probes"].get("ping", {})
    min_owd = min(p["delay_up_ms"] for p in paths.values())
    if not voice.get("planned") or voice["planned"] < 0.9 * 4 * 200e3 / (160 * 8):
        bad.append("%s: voice probe: %s" % (r["run"], voice))
    elif voice["loss_pct"] > 2 or not min_owd - 0.5 <= voice["owd_p50_ms"] < 10 * min_owd + 50:
        bad.append("%s: voice loss %s%%, p50 one-way %s ms (path delay >= %g)"
                   % (r["run"], voice["loss_pct"], voice["owd_p50_ms"], min_owd))
    if not ping.get("received") or ping["received"] < 0.9 * ping["sent"] or \
            ping["p50_ms"] < 2 * min_owd - 0.5:
        bad.append("%s: ping probe: %s" % (r["run"], ping))
    if not bad:
        print("  %s: voice %d/%d pkts, one-way p50 %.2f p99 %.2f ms; ping p50 %.2f ms"
              % (r["run"], voice["received"], voice["planned"], voice["owd_p50_ms"],
                 voice["owd_p99_ms"], ping["p50_ms"]))
    if not r["sched"].startswith("single:"):
        # the tunnel: every path carries a real share, the links bound the total,
        # and aggregation beats the best single path
        rates = {p: paths[p]["rate_down_mbit"] for p in paths}
        for p in paths:
            if float(r["tput_" + p]) < 0.2 * rates[p]:
                bad.append("%s: %s carries %s Mbit/s, < 20%% of %g" % (r["run"], p, r["tput_" + p], rates[p]))
        if tot > 1.02 * sum(rates.values()):
            bad.append("%s: total %.2f above the links' %g" % (r["run"], tot, sum(rates.values())))
        if float(r["goodput"]) <= max(rates.values()):
            bad.append("%s: goodput %s not above the best single path %g" % (r["run"], r["goodput"], max(rates.values())))
        print("  %s: paths %s, goodput %s Mbit/s" % (r["run"], " + ".join(r["tput_" + p] for p in paths), r["goodput"]))
        continue
    used = r["sched"][7:]
    rate = paths[used]["rate_down_mbit"]
    got = float(r["tput_" + used])
    print("  %s: path %s %.2f Mbit/s of %g, goodput %s" % (r["run"], used, got, rate, r["goodput"]))
    # Link-layer bytes: at most the shaped rate (+2 % for sampling jitter), and a
    # greedy flow must get at least half of it.
    if not 0.5 * rate <= got <= 1.02 * rate:
        bad.append("%s: %.2f Mbit/s outside [%.1f, %.1f]" % (r["run"], got, 0.5 * rate, 1.02 * rate))
    for p in paths:
        if p != used and float(r["tput_" + p]) > 0.05:
            bad.append("%s: traffic on unused %s" % (r["run"], p))
for b in bad:
    print("FAIL: " + b)
print("ok: ci-short results consistent" if not bad else "")
sys.exit(1 if bad else 0)
PYEOF

# 3. SIGTERM mid-run.
our_pids() {	# every process in the namespaces of our Mininet hosts (shells included)
	local inodes p
	inodes=$(for s in $(pgrep -f 'mininet:testbed-'); do readlink /proc/$s/ns/net; done | sort -u)
	[ -n "$inodes" ] || return 0
	for p in /proc/[0-9]*; do
		grep -qxF "$(readlink $p/ns/net 2>/dev/null)" <<< "$inodes" && echo ${p#/proc/}
	done
}
$PY "$SRC/testbed/run.py" --build "$BUILD" --out "$TMP/results-term" --no-plots \
	--sched acpf --duration 30 "$SRC/testbed/scenarios/ci-short.json" > "$TMP/term.out" 2>&1 &
RUNPID=$!
for _ in $(seq 100); do		# until the flow runs (iperf3 client in the UE)
	pgrep -f "iperf3 -c 10.100.0.2" > /dev/null && break
	sleep 0.2
done
sleep 1
before=$(our_pids)
kill -TERM $RUNPID
for _ in $(seq 150); do kill -0 $RUNPID 2>/dev/null || break; sleep 0.2; done
if kill -0 $RUNPID 2>/dev/null; then
	echo "FAIL: run.py still running 30 s after SIGTERM"; kill -KILL $RUNPID; fail=1
fi
wait $RUNPID; rc=$?
alive=$(for p in $before; do [ -d /proc/$p ] && echo "$p($(cat /proc/$p/comm 2>/dev/null))"; done)
links=$(ip -o link show | grep -c ': testbed-')
echo "SIGTERM: rc $rc, $(echo $before | wc -w) processes in our hosts before, left: ${alive:-none}, root links left: $links"
grep -A20 'interrupted (SIGTERM); stopped' "$TMP/term.out" | sed 's/^/  /'
if [ $rc != 130 ] || [ -n "$alive" ] || [ "$links" != 0 ] || [ -z "$before" ] ||
	! grep -q 'mptund anchor' "$TMP/term.out" || pgrep -f 'mininet:testbed-' > /dev/null; then
	echo "FAIL: SIGTERM tear-down"; cat "$TMP/term.out"; fail=1
else
	echo "ok: SIGTERM stopped mptund, iperf3, samplers, delaybridges and the hosts"
fi
[ $fail = 0 ] && echo "PASS" || echo "FAILED"
exit $fail
