#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Path MTU without ICMP (issue 21), minimal configs (no [Scheduler], no [Congestion]),
# in namespaces this script creates. Each path crosses a router whose ICMP errors are
# dropped (an htb class with a 1-byte bfifo takes every ICMP packet the router sends):
#
#   ns UE             ns R1                       ns ANCHOR              ns SRV
#   ue1 10.1.1.2 --- r1a 10.1.1.1 | r1b 10.1.11.1 --- an1 10.1.11.2
#   ue2 10.1.2.2 --- r2a 10.1.2.1 | r2b 10.1.12.1 --- an2 10.1.12.2   (MTU 1280)
#                    ns R2                            ans 10.2.0.1 --- srv 10.2.0.2
#   mpt0 10.99.0.2                                    mpt0 10.99.0.1
#
# Path 2's middle link has MTU 1280 at r2b: R2 drops larger packets from the UE (DF,
# the ICMP lost) and r2b drops larger frames from the anchor (a veth drops what its
# MTU does not carry): a hop that silently drops datagrams above 1280 both ways. Checks:
#  1. both sides find path 2's PLPMTU (1280) and path 1's (1500) within 2 s of the path
#     coming up (MPT_PMTU_DISCOVERY_ONLY=1: this step alone, for repeated timing runs);
#  2. ping -s 1200 and a ping of the full inner MTU with DF pass; no router fragments;
#  3. TCP both ways, greedy: no outer fragment, no local EMSGSIZE on the 1500 path
#     (the exact overhead: a full packet with a piggybacked ACK never exceeds it);
#  4. path 1 taken down on the UE (the anchor told at once: PATH_STATUS): a ping
#     without DF larger than the small path is cut into IPv4 fragments both ways; a full-size
#     DF ping gets ICMP "fragmentation needed" from the
#     tunnel with the path's inner MTU, smaller pings pass, a TCP flow runs (its MSS
#     lowered) in both directions;
#  5. path 1's MTU falls to 1280 mid-flow (both routers' links, no ICMP): the anchor
#     finds the black hole, the flow never stops for a second, no fragment.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf3 >/dev/null || { echo "1..0 # SKIP iperf3 missing"; exit 0; }
command -v nstat >/dev/null || { echo "1..0 # SKIP nstat (iproute2) missing"; exit 0; }

NS_R1=mptt-r1-$RUN_ID
NS_R2=mptt-r2-$RUN_ID
RATE_MBIT=50
# The paths' own (outer) addresses: 4 (default) or 6; the routers' "too big" ICMP:
# drop (default: a black hole) or pass (a hint the daemons take, RFC 8899 4.6).
# test_pmtu6.sh runs this with IPv6 outer, ICMP passed and the small path at 1400.
OUTER=${MPT_PMTU_OUTER:-4}
ICMP=${MPT_PMTU_ICMP:-drop}
SMALL=${MPT_PMTU_SMALL:-1280}
if [ "$OUTER" = 6 ]; then IPUDP=48 FRAGSTAT=Ip6FragCreates; else IPUDP=28 FRAGSTAT=IpFragCreates; fi
SMALL_INNER=$((SMALL - IPUDP - 43))	# mptund-proto(7): 43 bytes of tunnel header
log "outer IPv$OUTER, routers' ICMP too-big: $ICMP, small path at $SMALL (inner $SMALL_INNER)"

pm_cleanup() {
	cleanup
	for ns in $NS_R1 $NS_R2; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
}
trap pm_cleanup EXIT

no_icmp() { # no_icmp NS DEV: ICMP the router sends on DEV is dropped (IPv6: too big only,
	    # neighbour discovery must pass)
	[ "$ICMP" = drop ] || return 0
	tc -n "$1" qdisc add dev "$2" root handle 1: htb default 10 r2q 100000
	tc -n "$1" class add dev "$2" parent 1: classid 1:10 htb rate 10gbit
	tc -n "$1" class add dev "$2" parent 1: classid 1:20 htb rate 8kbit 2>/dev/null
	tc -n "$1" qdisc add dev "$2" parent 1:20 handle 20: bfifo limit 1
	if [ "$OUTER" = 6 ]; then
		tc -n "$1" filter add dev "$2" parent 1: protocol ipv6 prio 1 u32 \
			match ip6 protocol 58 0xff match u8 2 0xff at 40 flowid 1:20
	else
		tc -n "$1" filter add dev "$2" parent 1: protocol ip prio 1 u32 \
			match ip protocol 1 0xff flowid 1:20
	fi
}

addrs() { # addrs P NS: the path's four addresses and the routes through the router
	local p=$1 ns=$2
	if [ "$OUTER" = 6 ]; then
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1
		ip -n $NS_UE addr add fd00:$p::2/64 dev ue$p nodad
		ip -n "$ns" addr add fd00:$p::1/64 dev r${p}a nodad
		ip -n "$ns" addr add fd00:1$p::1/64 dev r${p}b nodad
		ip -n $NS_AN addr add fd00:1$p::2/64 dev an$p nodad
		ip -n $NS_UE -6 route add fd00:1$p::/64 via fd00:$p::1
		ip -n $NS_AN -6 route add fd00:$p::/64 via fd00:1$p::1
		return
	fi
	ip -n $NS_UE addr add 10.1.$p.2/24 dev ue$p
	ip -n "$ns" addr add 10.1.$p.1/24 dev r${p}a
	ip -n "$ns" addr add 10.1.1$p.1/24 dev r${p}b
	ip -n $NS_AN addr add 10.1.1$p.2/24 dev an$p
	ip -n $NS_UE route add 10.1.1$p.0/24 via 10.1.$p.1
	ip -n $NS_AN route add 10.1.$p.0/24 via 10.1.1$p.1
}
endpoint() { # endpoint P: the anchor's address on path P, as a config Endpoint
	if [ "$OUTER" = 6 ]; then echo "[fd00:1$1::2]:5555"; else echo "10.1.1$1.2:5555"; fi
}

path_up() { # path_up P MTU
	local p=$1 ns
	ns=$([ "$p" = 1 ] && echo $NS_R1 || echo $NS_R2)
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
	veth $NS_UE ue$p "$ns" r${p}a
	veth "$ns" r${p}b $NS_AN an$p
	addrs "$p" "$ns"
	ip -n "$ns" link set r${p}b mtu "$2"
	no_icmp "$ns" r${p}a
	no_icmp "$ns" r${p}b
	for side in "$NS_UE ue$p" "$NS_AN an$p"; do
		set -- $side
		tc -n "$1" qdisc replace dev "$2" root tbf rate ${RATE_MBIT}mbit burst 6056 \
			limit 200000
	done
}

for ns in $NS_UE $NS_AN $NS_SRV; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
path_up 1 1500
path_up 2 "$SMALL"
veth $NS_AN ans $NS_SRV srv
ip -n $NS_AN addr add 10.2.0.1/24 dev ans; ip -n $NS_SRV addr add 10.2.0.2/24 dev srv
ip -n $NS_SRV route add 10.99.0.0/24 via 10.2.0.1
ip netns exec $NS_AN sysctl -qw net.ipv4.ip_forward=1
ip netns exec $NS_SRV iperf3 -s -D -I "$TMP/iperf.pid" >/dev/null 2>&1
sleep 0.3
PIDS+=("$(cat "$TMP/iperf.pid")")
genkeys anchor; genkeys ue

cat > "$TMP/anchor.conf" <<EOF
[Interface]
Role = anchor
PrivateKey = $(cat "$TMP/anchor.key")
Address = 10.99.0.1/24
ListenPort = 5555
ControlSocket = $TMP/anchor.sock
[Peer]
PublicKey = $(cat "$TMP/ue.pub")
AllowedIPs = 10.99.0.2/32
EOF
cat > "$TMP/ue.conf" <<EOF
[Interface]
Role = ue
PrivateKey = $(cat "$TMP/ue.key")
Address = 10.99.0.2/24
Route = 10.2.0.0/24
ControlSocket = $TMP/ue.sock
[Path]
Name = big
Device = ue1
Endpoint = $(endpoint 1)
Cost = 1
[Path]
Name = small
Device = ue2
Endpoint = $(endpoint 2)
Cost = 1
[Peer]
PublicKey = $(cat "$TMP/anchor.pub")
EOF

ctl() { "$MPTCTL" -s "$TMP/$1.sock" stats | awk -v k="$2" '$1 == k { print $2 }'; }
frags() { # outer fragments the routers created
	local n=0 ns v
	for ns in $NS_R1 $NS_R2; do
		v=$(ip netns exec "$ns" nstat -az $FRAGSTAT | awk -v k=$FRAGSTAT '$1 == k { print $2 }')
		n=$((n + ${v:-0}))
	done
	echo $n
}
goodput() { # goodput SECONDS JSON [-R] -> Mbit/s
	ip netns exec $NS_UE iperf3 -c 10.2.0.2 -t "$1" ${3:-} -C cubic -i 0.5 -J > "$2" 2>&1
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print('%.2f' % (d['end']['sum_received']['bits_per_second'] / 1e6))" "$2" 2>/dev/null ||
		echo 0
}
longest_gap() { # longest_gap JSON -> seconds of the longest run of 0.5 s intervals < 1 Mbit/s
	/usr/bin/python3 -c "import json,sys
d = json.load(open(sys.argv[1])); run = best = 0.0
for i in d.get('intervals', []):
    s = i['sum']
    if s['bits_per_second'] < 1e6: run += s['seconds']; best = max(best, run)
    else: run = 0.0
print('%.1f' % best)" "$1" 2>/dev/null || echo 99
}

# discovery_times: polls both sides every 20 ms until each path's search is complete
# (or 10 s) and writes "SIDE PATH UP_S COMPLETE_S" lines to $TMP/disc.txt: the
# seconds since the daemons started at which the path was first up and its search
# first complete (-1: never)
discovery_times() {
	/usr/bin/python3 - "$MPTCTL" "$TMP" "$t0" > "$TMP/disc.txt" 2>/dev/null <<'PY'
import subprocess, sys, time
ctl, tmp, t0 = sys.argv[1], sys.argv[2], float(sys.argv[3])
up, done, rtt = {}, {}, {}
keys = [(s, i) for s in ("ue", "anchor") for i in (0, 1)]
while time.time() - t0 < 10 and len(done) < len(keys):
    for side in ("ue", "anchor"):
        try:
            out = subprocess.run([ctl, "-s", "%s/%s.sock" % (tmp, side), "stats"],
                                 capture_output=True, text=True, timeout=1).stdout
        except Exception:
            continue
        kv = dict(l.split(None, 1) for l in out.splitlines() if " " in l)
        now = time.time() - t0
        for i in (0, 1):
            k, pre = (side, i), "session.0.path.%d." % i
            if kv.get(pre + "state", "").strip() == "up" and k not in up:
                up[k] = now
                rtt[k] = "%s/%s" % (kv.get(pre + "srtt_us", "?").strip(),
                                    kv.get(pre + "rttvar_us", "?").strip())
            if kv.get(pre + "pmtu_state", "").strip() == "complete" and k not in done:
                done[k] = now
    time.sleep(0.02)
for k in keys:
    print(k[0], k[1], "%.2f" % up.get(k, -1), "%.2f" % done.get(k, -1), rtt.get(k, "?"))
PY
}

t0=$(date +%s.%N)
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null
discovery_times &
disc=$!
check "the tunnel comes up" wait_ping $NS_UE 10.2.0.2 10
wait $disc
# the time from a path up (on that side) to its search complete, per side and path
while read -r side pi tu tc rtt; do
	log "discovery: $side path $pi up at $tu s, complete at $tc s:" \
		"$(awk -v u="$tu" -v c="$tc" 'BEGIN { printf "%.2f", (u < 0 || c < 0) ? 99 : c - u }') s;" \
		"probes $(ctl "$side" session.0.path.$pi.mtu_probes)" \
		"(lost $(ctl "$side" session.0.path.$pi.mtu_probes_lost))," \
		"searches $(ctl "$side" session.0.path.$pi.mtu_searches)," \
		"ptb hints $(ctl "$side" session.0.path.$pi.ptb_hints)" \
		"(ignored $(ctl "$side" session.0.path.$pi.ptb_ignored))," \
		"black holes $(ctl "$side" session.0.path.$pi.black_holes);" \
		"srtt/rttvar at up $rtt us"
	# the issue's goal: PLPMTU found within 2 s of the path coming up (measured
	# 0.00-0.09 s; a data RTT taken across the path's coming up once made it 3.3 s)
	check "$side: path $pi's search complete within 2 s of the path up" \
		awk -v u="$tu" -v c="$tc" 'BEGIN { exit !(u >= 0 && c >= 0 && c - u <= 2.0) }'
done < "$TMP/disc.txt"

# 1. discovery on both sides
found() { # found SIDE PATHIDX MTU [MAX]: PLPMTU in [MTU, MAX], search complete
	local i v
	for ((i = 0; i < ${MPT_PMTU_WAIT_TENTHS:-40}; i++)); do
		v=$(ctl "$1" session.0.path.$2.plpmtu_bytes)
		[ "${v:-0}" -ge "$3" ] && [ "${v:-0}" -le "${4:-$3}" ] &&
			[ "$(ctl "$1" session.0.path.$2.pmtu_state)" = complete ] && return 0
		sleep 0.1
	done
	return 1
}
check "UE: path small at $SMALL" found ue 1 "$SMALL"
check "UE: path big at 1500" found ue 0 1500
# a veth takes 4 bytes above its MTU (VLAN room): r2b drops the anchor's datagrams
# above 1284, R2 forwards up to 1500 towards the UE
check "anchor: path small at $SMALL ($((SMALL + 4)) through the veth's VLAN room)" \
	found anchor 1 "$SMALL" $((SMALL + 4))
check "anchor: path big at 1500" found anchor 0 1500
t1=$(date +%s.%N)
log "both sides complete $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" \
	"after the daemons started; UE probes: $(ctl ue session.0.path.1.mtu_probes)" \
	"(lost $(ctl ue session.0.path.1.mtu_probes_lost)), anchor: " \
	"$(ctl anchor session.0.path.1.mtu_probes)"
log "inner MTU of path small: UE $(ctl ue session.0.path.1.mtu_bytes)," \
	"anchor $(ctl anchor session.0.path.1.mtu_bytes); big: $(ctl ue session.0.path.0.mtu_bytes)"
# MPT_PMTU_DISCOVERY_ONLY=1: steps 1's figures only (repeated timing runs)
[ "${MPT_PMTU_DISCOVERY_ONLY:-0}" = 1 ] && finish

# 2. pings
check "ping -s 1200 through the tunnel" \
	ip netns exec $NS_UE ping -c 5 -i 0.1 -W 1 -s 1200 10.2.0.2 >/dev/null
check "a full inner MTU ping (1409, DF) through the tunnel" \
	ip netns exec $NS_UE ping -c 5 -i 0.1 -W 1 -M do -s $((1409 - 28)) 10.2.0.2 >/dev/null

# 3. greedy TCP both ways
aggregates() { awk -v g="$1" -v r=$RATE_MBIT 'BEGIN { exit !(g > 1.2 * r * 0.9) }'; }
down=$(goodput 5 "$TMP/down.json" -R)
up=$(goodput 5 "$TMP/up.json")
# a throughput figure on a shared machine: a second try before judging (both logged)
aggregates "$down" || { log "down $down Mbit/s: once more"; down=$(goodput 5 "$TMP/down2.json" -R); }
aggregates "$up" || { log "up $up Mbit/s: once more"; up=$(goodput 5 "$TMP/up2.json"); }
log "TCP cubic, 2 x ${RATE_MBIT} Mbit/s, one path at $SMALL: down $down, up $up Mbit/s"
check "downlink aggregates (> 1.2 x one path)" aggregates "$down"
check "uplink aggregates (> 1.2 x one path)" aggregates "$up"
check "no outer fragment (routers' $FRAGSTAT)" [ "$(frags)" = 0 ]
if [ "$ICMP" = pass ]; then
	check "the UE took the router's too-big ICMP as a hint ($(ctl ue session.0.path.1.ptb_hints))" \
		[ "$(ctl ue session.0.path.1.ptb_hints)" -ge 1 ]
fi
check "no EMSGSIZE on the 1500 path, either side" \
	[ "$(ctl ue session.0.path.0.send_too_big)$(ctl anchor session.0.path.0.send_too_big)" = 00 ]
log "small path carried: UE $(ctl ue session.0.path.1.data_tx_pkts)," \
	"anchor $(ctl anchor session.0.path.1.data_tx_pkts) data packets"

# 4. only the small path; the UE's admin down reaches the anchor (PATH_STATUS)
"$MPTCTL" -s "$TMP/ue.sock" path big down >/dev/null
sleep 0.2
check "the anchor stops using path big within 0.2 s of the UE's admin down" \
	[ "$(ctl anchor session.0.path.0.state)" = peer_down ]
sleep 0.3
# IPv4 without DF (RFC 791 fragmentation allowed): the tunnel cuts what no path carries,
# once no search may still find room for it (a packet waits for a search instead of
# being cut). The hosts forget the path MTUs they learned: the anchor's too-bigs
# for step 3's TCP (ptb_soft, ClampMSS) taught the server the tunnel's inner MTU, and
# it then cut its echo replies itself, leaving the anchor nothing to cut (0 in two
# run-alls)
found ue 1 "$SMALL" $((SMALL + 4)); found anchor 1 "$SMALL" $((SMALL + 4))
log "before the no-DF ping: black holes (unconfirmed: congestion) small path UE" \
	"$(ctl ue session.0.path.1.black_holes) ($(ctl ue session.0.path.1.black_holes_unconfirmed))," \
	"anchor $(ctl anchor session.0.path.1.black_holes)" \
	"($(ctl anchor session.0.path.1.black_holes_unconfirmed)); big path UE" \
	"$(ctl ue session.0.path.0.black_holes) ($(ctl ue session.0.path.0.black_holes_unconfirmed))," \
	"anchor $(ctl anchor session.0.path.0.black_holes)" \
	"($(ctl anchor session.0.path.0.black_holes_unconfirmed)); soft too-bigs UE" \
	"$(ctl ue session.0.ptb_soft), anchor $(ctl anchor session.0.ptb_soft)"
ip netns exec $NS_SRV ip route flush cache 2>/dev/null
ip netns exec $NS_UE ip route flush cache 2>/dev/null
check "a 1328-byte ping without DF passes the small path alone" \
	ip netns exec $NS_UE ping -c 5 -i 0.1 -W 1 -M dont -s 1300 10.2.0.2 >/dev/null
fu=$(ctl ue session.0.frag_pkts) fa=$(ctl anchor session.0.frag_pkts)
check "cut into fragments by the UE ($fu packets) and the anchor ($fa)" \
	[ "${fu:-0}" -ge 5 -a "${fa:-0}" -ge 5 ]
ip netns exec $NS_UE ping -c 2 -i 0.2 -W 1 -M do -s $((1409 - 28)) 10.2.0.2 \
	> "$TMP/ping-big.txt" 2>&1
check "a too-big DF ping is answered with frag needed (mtu $SMALL_INNER)" \
	grep -q "mtu = $SMALL_INNER" "$TMP/ping-big.txt"
check "ping -s 1180 passes on the small path alone" \
	ip netns exec $NS_UE ping -c 5 -i 0.1 -W 1 -M do -s 1180 10.2.0.2 >/dev/null
ip netns exec $NS_UE ip route flush cache 2>/dev/null
down1=$(goodput 4 "$TMP/down1.json" -R)
up1=$(goodput 4 "$TMP/up1.json")
log "small path alone: down $down1, up $up1 Mbit/s; UE ptb_sent $(ctl ue session.0.ptb_sent)," \
	"anchor ptb_sent $(ctl anchor session.0.ptb_sent)"
check "TCP down on the small path alone (> 0.7 x its rate)" \
	awk -v g="$down1" -v r=$RATE_MBIT 'BEGIN { exit !(g > 0.7 * r) }'
check "TCP up on the small path alone (> 0.7 x its rate)" \
	awk -v g="$up1" -v r=$RATE_MBIT 'BEGIN { exit !(g > 0.7 * r) }'
"$MPTCTL" -s "$TMP/ue.sock" path big up >/dev/null
sleep 0.5
check "and uses it again after the UE's admin up" \
	[ "$(ctl anchor session.0.path.0.state)" = up ]
sleep 0.5

# 5. path big's MTU falls to 1280 mid-flow, silently
bh0=$(ctl anchor session.0.path.0.black_holes) hi0=$(ctl anchor session.0.path.0.ptb_hints)
# r1a first: the anchor's datagrams still enter R1 through r1b and meet the fall on
# their way out of r1a, where R1 answers each with a too-big (when ICMP passes); a
# veth drops what its MTU does not carry without a word, so shrinking r1b first would
# leave the anchor only a GSO batch's too-big, and only now and then. r1b a second
# later: the fall is then on both of R1's links, as on a real hop.
( sleep 3; ip -n $NS_R1 link set r1a mtu 1280; sleep 1; ip -n $NS_R1 link set r1b mtu 1280 ) &
shrink=$!
fall=$(goodput 8 "$TMP/fall.json" -R)
wait $shrink
bh1=$(ctl anchor session.0.path.0.black_holes) hi1=$(ctl anchor session.0.path.0.ptb_hints)
gap=$(longest_gap "$TMP/fall.json")
log "MTU fall on path big mid-flow: goodput $fall Mbit/s, longest gap $gap s," \
	"anchor black holes $bh0 -> $bh1, plpmtu now $(ctl anchor session.0.path.0.plpmtu_bytes)"
clamp=$(ctl anchor session.0.mss_clamp_bytes)
if [ "$bh1" -gt "$bh0" ]; then
	ok "the anchor found the black hole"
	check "path big is back near 1280 on the anchor (1270-1284)" found anchor 0 1270 1284
else
	# ClampMSS (on since step 1's paths were found) may have kept the flow's
	# segments below 1280: then no full-size packet was lost, nothing to find
	check "no black hole to find: the flow was clamped (mss_clamp_bytes $clamp)" \
		[ "${clamp:-0}" -gt 0 -a "${clamp:-0}" -le $((SMALL_INNER + 4)) ]
fi
if [ "$ICMP" = pass ]; then
	# the downlink's full-size datagrams meet the fall: R1 tells the anchor
	hinted() { [ "$hi1" -gt "$hi0" ] && found anchor 0 1270 1284; }
	check "the anchor took the fall's ICMP as a hint ($hi0 -> $hi1) and is near 1280" hinted
fi
check "the flow never stopped for a second" awk -v g="$gap" 'BEGIN { exit !(g < 1.0) }'
check "still no outer fragment" [ "$(frags)" = 0 ]
finish
