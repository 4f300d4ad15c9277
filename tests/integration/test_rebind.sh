#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Address validation before a path's endpoint moves, in namespaces this script creates
# (lib.sh's base topology, one path, through a user-space NAT on the anchor's host):
#
#   UE ue1 10.1.1.2 ===== an1 10.1.1.1:6000  udp_nat.py  --mapping port--> :5555 ANCHOR
#                                             `--attacker port (copies)-->      ans == SRV
#
# 1. On-path copier: each of the UE's datagrams is also sent from another address at
#    once, the original 30 ms later. The copies carry the uplink (they are authentic),
#    but the path's endpoint does not move to the copier: it gets only challenges it
#    cannot answer, at most 3x the bytes it sent, and the UE's ping stays clean.
# 2. NAT rebinding: the NAT's source port changes mid-flow. The anchor validates the new
#    port (one challenge, one round trip) and moves there; the ping's outage is
#    measured (10 ms pings) and must stay within ~one RTT plus the validation.
# 3. The anchor's side moves (the NAT answers from LISTEN_PORT + 1 from then on): the
#    UE validates the new address the same way before it leaves its configured
#    Endpoint, and traffic goes on.
. "$(dirname "$0")/lib.sh"
require_root
NAT_PID=

topo_up 1
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:6000"
ip netns exec $NS_AN /usr/bin/python3 "$(dirname "$0")/udp_nat.py" 10.1.1.1 6000 \
	10.1.1.1 5555 30 "$TMP/nat.state" > "$TMP/nat.log" 2>&1 &
NAT_PID=$!; PIDS+=($NAT_PID)
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null
check "UE reaches the server through the NAT" wait_ping $NS_UE 10.2.0.2 10

nat() { tr ' ' '\n' < "$TMP/nat.state" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
p1() { # p1 FIELD: the anchor's view of path p1
	"$MPTCTL" -s "$TMP/anchor.sock" --json stats | /usr/bin/python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["session"][0]["path"] if p["name"] == "p1"][0]
print(p[sys.argv[1]])' "$1"
}
remote_port() { p1 remote | sed 's/.*://'; }
sleep 0.5
port0=$(nat main_port)
check "the anchor's endpoint of p1 is the NAT's mapping ($(p1 remote))" \
	[ "$(remote_port)" = "$port0" ]

# 1. the copier
kill -USR2 $NAT_PID; sleep 0.3
ch0=$(p1 rebind_challenges)
ip netns exec $NS_UE ping -i 0.05 -c 80 -q 10.2.0.2 > "$TMP/ping-race" 2>&1
loss=$(grep -oE '[0-9.]+% packet loss' "$TMP/ping-race" | cut -d% -f1)
kill -USR2 $NAT_PID; sleep 1.2
atk_port=$(nat atk_port); atx=$(nat atk_tx_bytes); arx=$(nat atk_rx_bytes)
ch=$(( $(p1 rebind_challenges) - ch0 ))
log "copier at 10.1.1.1:$atk_port: sent $atx bytes of copies, got back $arx bytes;" \
	"challenges $ch, amp-limited $(p1 rebind_amp_limited), endpoint $(p1 remote)," \
	"ping loss ${loss:-?}%"
check "the copier won the race and was challenged ($ch challenges)" [ "$ch" -ge 1 ]
check "the endpoint did not move to the copier ($(p1 remote))" [ "$(remote_port)" = "$port0" ]
check "no rebinding counted ($(p1 rebinds))" [ "$(p1 rebinds)" -eq 0 ]
check "the copier got at most 3x what it sent ($arx <= 3 x $atx)" \
	[ "$arx" -le $((3 * atx)) -a "$atx" -gt 0 ]
check "the UE's ping stayed clean during the race (${loss:-?}% loss)" \
	awk -v l="${loss:-100}" 'BEGIN { exit !(l <= 1) }'

# 2. NAT rebinding mid-flow
rtt=$(ip netns exec $NS_UE ping -c 10 -i 0.01 -q 10.2.0.2 | grep -oE 'rtt [^=]+= [0-9.]+' |
	cut -d= -f2 | tr -d ' ')
ip netns exec $NS_UE ping -i 0.01 -c 300 -W 1 10.2.0.2 > "$TMP/ping-nat" 2>&1 &
PING=$!
sleep 1
kill -USR1 $NAT_PID
wait $PING
sleep 0.3
port1=$(nat main_port)
lost=$(grep -oE '[0-9]+ received' "$TMP/ping-nat" | cut -d' ' -f1)
lost=$((300 - ${lost:-0}))
maxrtt=$(grep -oE 'rtt [^=]+= [0-9./]+' "$TMP/ping-nat" | cut -d/ -f7)
log "NAT rebinding ${port0} -> ${port1}: $lost of 300 pings (10 ms apart) lost, an outage" \
	"of about $((lost * 10)) ms; the slowest ping ${maxrtt:-?} ms (min RTT before ${rtt} ms); endpoint $(p1 remote);" \
	"rebinds $(p1 rebinds), challenges $(p1 rebind_challenges)"
check "the anchor moved to the NAT's new port ($(p1 remote))" \
	[ "$(remote_port)" = "$port1" -a "$port1" != "$port0" ]
check "one validated rebinding ($(p1 rebinds))" [ "$(p1 rebinds)" -eq 1 ]
check "the outage stayed within 100 ms ($lost pings of 10 ms lost)" [ "$lost" -le 10 ]
check "no ping took over 100 ms (${maxrtt:-?} ms)" \
	awk -v m="${maxrtt:-1000}" 'BEGIN { exit !(m <= 100) }'
check "traffic flows on after the rebinding" wait_ping $NS_UE 10.2.0.2 3

# 3. the anchor's address moves, as the UE sees it
ue_p1() {
	"$MPTCTL" -s "$TMP/ue.sock" --json stats | /usr/bin/python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["session"][0]["path"] if p["name"] == "p1"][0]
print(p[sys.argv[1]])' "$1"
}
ue_port() { ue_p1 remote | sed 's/.*://'; }
check "the UE's endpoint of p1 is its configured one ($(ue_p1 remote))" [ "$(ue_port)" = 6000 ]
kill -HUP $NAT_PID
sleep 0.5
ip netns exec $NS_UE ping -c 20 -i 0.05 -q 10.2.0.2 > "$TMP/ping-move" 2>&1
loss=$(grep -oE '[0-9.]+% packet loss' "$TMP/ping-move" | cut -d% -f1)
aport=$(nat anchor_port)
log "the anchor answers from 10.1.1.1:$aport: the UE's endpoint $(ue_p1 remote)," \
	"rebinds $(ue_p1 rebinds), challenges $(ue_p1 rebind_challenges), ping loss ${loss:-?}%"
check "the UE moved to the anchor's new address after validating it ($(ue_p1 remote))" \
	[ "$(ue_port)" = "$aport" -a "$aport" = 6001 ]
check "one validated move on the UE ($(ue_p1 rebinds) rebinds, $(ue_p1 rebind_challenges) challenges)" \
	[ "$(ue_p1 rebinds)" -eq 1 -a "$(ue_p1 rebind_challenges)" -ge 1 ]
check "traffic flows on (${loss:-?}% loss)" awk -v l="${loss:-100}" 'BEGIN { exit !(l <= 5) }'
finish
