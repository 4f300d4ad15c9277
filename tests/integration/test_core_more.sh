#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# More of the tunnel core, in namespaces this script creates (topology in lib.sh):
#
#   UE  ue1 10.1.1.2   ==(p1, IPv4)== an1 10.1.1.1   ANCHOR  ans == srv  SRV
#       ue3 fd01:3::2  ==(p3, IPv6)== an3 fd01:3::1
#
# Checks: a path over IPv6 outer carries traffic; rekeying after RekeyAfterPackets
# happens during a TCP flow without breaking it; an authenticated packet from a new
# source address moves the path's endpoint (NAT rebinding); the UE daemon runs as an
# unprivileged user after set-up and still shuts down cleanly.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf3 >/dev/null || { echo "1..0 # SKIP iperf3 missing"; exit 0; }

topo_up 3
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
UE_EXTRA="RekeyAfterPackets = 4000|User = nobody" \
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555" \
	"Name = p3|Device = ue3|Endpoint = [fd01:3::1]:5555"
chmod 644 "$TMP/ue.conf"	# readable after the drop (reload re-reads it)
# a stand-in for systemd's notify socket: records what the UE daemon says (after it
# dropped to nobody, like systemd's own socket it must be writable by everyone)
NOTIFY_DIR=$(mktemp -d /tmp/mptund-notify.XXXXXX); chmod 755 "$NOTIFY_DIR"
/usr/bin/python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(0.5)
os.chmod(sys.argv[1], 0o777)
end = time.time() + 40
with open(sys.argv[2], "w") as f:
    while time.time() < end:
        try:
            f.write(s.recv(4096).decode() + "\n---\n"); f.flush()
        except socket.timeout:
            pass
' "$NOTIFY_DIR/notify.sock" "$TMP/notify.log" &
PIDS+=($!)
sleep 0.3
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
UE_PID=$(NOTIFY_SOCKET=$NOTIFY_DIR/notify.sock start_daemon $NS_UE "$TMP/ue.conf" ue)
ip netns exec $NS_SRV iperf3 -s -D -I "$TMP/iperf.pid" >/dev/null 2>&1
sleep 0.3
PIDS+=("$(cat "$TMP/iperf.pid")")

check "tunnel up" wait_ping $NS_UE 10.2.0.2 10
check "systemd was told READY=1 with a path summary" grep -q 'READY=1' "$TMP/notify.log"
check "... and STATUS= follows the paths coming up" grep -q 'STATUS=ue established: p1 up' "$TMP/notify.log"
uid=$(awk '/^Uid:/ {print $3}' /proc/"$UE_PID"/status)
check "the UE daemon dropped root (effective uid $uid = nobody)" [ "$uid" = "$(id -u nobody)" ]
caps=$(awk '/^CapEff:/ {print $2}' /proc/"$UE_PID"/status)
check "it kept only network capabilities (CapEff $caps)" \
	[ $((16#$caps & ~((1 << 12) | (1 << 13) | (1 << 10)))) -eq 0 ]

b1=$(tx_bytes $NS_UE ue1); b3=$(tx_bytes $NS_UE ue3)
ip netns exec $NS_UE iperf3 -c 10.2.0.2 -t 4 -C cubic -J > "$TMP/up.json" 2>&1
rc=$?
d1=$(( $(tx_bytes $NS_UE ue1) - b1 )); d3=$(( $(tx_bytes $NS_UE ue3) - b3 ))
log "bytes on p1 (IPv4)=$d1 p3 (IPv6)=$d3"
check "TCP flow through a rekeying tunnel completes" [ $rc -eq 0 ]
check "the IPv6 outer path carries at least 20% of the traffic" \
	[ $((d3 * 5)) -ge $((d1 + d3)) ]
rekeys=$($MPTCTL -s "$TMP/ue.sock" --json stats | /usr/bin/python3 -c \
	'import json,sys; print(json.load(sys.stdin)["session"][0]["rekeys"])')
log "rekeys during the flow: $rekeys"
check "the UE rekeyed after RekeyAfterPackets (rekeys=$rekeys)" [ "$rekeys" -ge 2 ]
retr=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['end']['sum_sent']['retransmits'])" "$TMP/up.json")
log "TCP retransmits over the flow: $retr"

# NAT rebinding: the UE's address on path 1 changes; its next authenticated packet
# moves the anchor's endpoint for that path
# (promote_secondaries: deleting the old primary must keep the new address)
ip netns exec $NS_UE sysctl -qw net.ipv4.conf.ue1.promote_secondaries=1
ip -n $NS_UE addr add 10.1.1.3/24 dev ue1
ip -n $NS_UE addr del 10.1.1.2/24 dev ue1
sleep 1
remote=$($MPTCTL -s "$TMP/anchor.sock" --json stats | /usr/bin/python3 -c \
	'import json,sys; print([p["remote"] for p in json.load(sys.stdin)["session"][0]["path"] if p["name"] == "p1"][0])')
log "anchor's endpoint of p1 after the change: $remote"
check "the anchor follows the new source address (NAT rebinding)" \
	bash -c "echo '$remote' | grep -q '10.1.1.3'"
check "traffic flows on after the rebinding" wait_ping $NS_UE 10.2.0.2 3

kill -TERM "$UE_PID"
for _ in $(seq 50); do kill -0 "$UE_PID" 2>/dev/null || break; sleep 0.1; done
check "the unprivileged daemon exits cleanly and removes its TUN" bash -c \
	"! kill -0 $UE_PID 2>/dev/null && grep -q stopped $TMP/ue.log && ! ip -n $NS_UE link show mpt0 >/dev/null 2>&1"

# a dead first path does not block the tunnel: p1's link is up but nothing it sends
# reaches the anchor (redirected into an ifb left down; this kernel has no gact)
ip -n $NS_AN link add bh0 type ifb
ip netns exec $NS_AN tc qdisc add dev an1 ingress
ip netns exec $NS_AN tc filter add dev an1 ingress protocol ip u32 match u32 0 0 \
	action mirred egress redirect dev bh0
UE_EXTRA="" write_ue_conf "$TMP/ue-dead1.conf" ue "10.99.0.2/24" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555" \
	"Name = p3|Device = ue3|Endpoint = [fd01:3::1]:5555"
start_daemon $NS_UE "$TMP/ue-dead1.conf" ue-dead1 >/dev/null
check "with its first path dead the tunnel comes up on the second" wait_ping $NS_UE 10.2.0.2 5
check "... and reports the first path not up" bash -c \
	"$MPTCTL -s $TMP/ue.sock stats | grep -Eq 'session.0.path.0.state +(probing|down)'"
rm -rf "$NOTIFY_DIR"
finish
