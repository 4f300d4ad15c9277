#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tunnel core end to end, in namespaces this script creates (topology in lib.sh):
#
#   UE  ue1 ==(p1)== an1  ANCHOR  ans == srv  SRV
#       ue2 ==(p2)== an2     |
#   UE2 ue21 ======= an4 ----+           (a second UE with its own key)
#   UE3 (unknown key) shares UE2's link after UE2 is stopped
#
# Checks: ping and TCP both ways, both paths carry traffic, a path taken down
# mid-flow keeps the flow alive on the other, a second UE at the same time, an
# unknown key gets nothing through, no plaintext on the wire, clean shutdown.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf3 >/dev/null || { echo "1..0 # SKIP iperf3 missing"; exit 0; }

topo_up 2
ue2_up
genkeys anchor; genkeys ue; genkeys ue2; genkeys stranger
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32, fd99::2/128" \
	"Name = ue2|PublicKey = $(cat "$TMP/ue2.pub")|AllowedIPs = 10.99.0.3/32"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24, fd99::2/64" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555"
write_ue_conf "$TMP/ue2.conf" ue2 "10.99.0.3/24" rr fixed \
	"Name = only|Device = ue21|Endpoint = 10.1.3.1:5555"
write_ue_conf "$TMP/stranger.conf" stranger "10.99.0.3/24" rr fixed \
	"Name = only|Device = ue21|Endpoint = 10.1.3.1:5555"

start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
UE_PID=$(start_daemon $NS_UE "$TMP/ue.conf" ue)
UE2_PID=$(start_daemon $NS_UE2 "$TMP/ue2.conf" ue2)
ip netns exec $NS_SRV iperf3 -s -D -I "$TMP/iperf.pid" >/dev/null 2>&1
sleep 0.3
PIDS+=("$(cat "$TMP/iperf.pid")")

check "UE reaches the server through the tunnel (IPv4)" wait_ping $NS_UE 10.2.0.2 10
check "UE reaches the server through the tunnel (IPv6)" \
	ip netns exec $NS_UE ping -6 -c 2 -i 0.2 -W 2 fd02::2
check "the server reaches the UE (downlink-initiated)" \
	ip netns exec $NS_SRV ping -c 2 -i 0.2 -W 2 10.99.0.2
check "a second UE with its own key works at the same time" wait_ping $NS_UE2 10.2.0.2 10

# TCP uplink and downlink; both paths must carry a real share
b1=$(tx_bytes $NS_UE ue1); b2=$(tx_bytes $NS_UE ue2)
ip netns exec $NS_UE iperf3 -c 10.2.0.2 -t 3 -C cubic -J > "$TMP/up.json" 2>&1
up_ok=$?
d1=$(( $(tx_bytes $NS_UE ue1) - b1 )); d2=$(( $(tx_bytes $NS_UE ue2) - b2 ))
check "TCP uplink flow completes" [ $up_ok -eq 0 ]
# TunOffload (default on): the sender's TSO super-packets, each cut once by the UE
check "the UE's TUN hands over TSO super-packets, cut into segments" \
	bash -c "$MPTCTL -s $TMP/ue.sock stats | grep -Eq 'daemon.tun_gso_segs +[1-9]'"
check "the anchor coalesces the uplink's segments into super-packet writes" \
	bash -c "$MPTCTL -s $TMP/anchor.sock stats | grep -Eq 'daemon.tun_gro_segs +[1-9]'"
check "no TUN packet refused by the segmentation, on either side" bash -c "
	! $MPTCTL -s $TMP/ue.sock stats | grep -Eq 'daemon.drop_tun_gso_pkts +[1-9]' &&
	! $MPTCTL -s $TMP/anchor.sock stats | grep -Eq 'daemon.drop_tun_gso_pkts +[1-9]' &&
	! $MPTCTL -s $TMP/anchor.sock stats | grep -Eq 'daemon.tun_gro_write_errors +[1-9]'"
log "uplink bytes on p1=$d1 p2=$d2"
check "uplink traffic uses both paths (each >= 20% of the total)" \
	[ $((d1 * 5)) -ge $((d1 + d2)) -a $((d2 * 5)) -ge $((d1 + d2)) ]
b1=$(tx_bytes $NS_AN an1); b2=$(tx_bytes $NS_AN an2)
ip netns exec $NS_UE iperf3 -c 10.2.0.2 -t 3 -R -C cubic -J > "$TMP/down.json" 2>&1
down_ok=$?
d1=$(( $(tx_bytes $NS_AN an1) - b1 )); d2=$(( $(tx_bytes $NS_AN an2) - b2 ))
check "TCP downlink flow completes" [ $down_ok -eq 0 ]
log "downlink bytes on p1=$d1 p2=$d2"
check "downlink traffic uses both paths (each >= 20% of the total)" \
	[ $((d1 * 5)) -ge $((d1 + d2)) -a $((d2 * 5)) -ge $((d1 + d2)) ]
for f in up down; do
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('# %s: %.0f Mbit/s, %d retransmits' % (sys.argv[2], d['end']['sum_received']['bits_per_second']/1e6, d['end']['sum_sent'].get('retransmits', 0)))" "$TMP/$f.json" $f 2>/dev/null
done

# a path dies mid-flow: the flow goes on over the other path
ip netns exec $NS_UE iperf3 -c 10.2.0.2 -t 6 -i 1 -R -C cubic -J > "$TMP/fail.json" 2>&1 &
IPERF=$!
sleep 2
ip -n $NS_UE link set ue1 down
b2=$(tx_bytes $NS_AN an2)
wait $IPERF; fail_ok=$?
ip -n $NS_UE link set ue1 up
check "flow survives its path going down" [ $fail_ok -eq 0 ]
late=$(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); iv=d['intervals']; print(min(i['sum']['bits_per_second'] for i in iv[3:]) > 0)" "$TMP/fail.json" 2>/dev/null)
check "every interval after the failure carries data" [ "$late" = True ]
check "the other path carried the rest" [ $(( $(tx_bytes $NS_AN an2) - b2 )) -gt 1000000 ]
check "mptund-ctl sees p1 back up after its link returns" bash -c "
	for i in \$(seq 30); do
		$MPTCTL -s $TMP/ue.sock stats | grep -Eq 'session.0.path.0.state +up' && exit 0
		sleep 0.2
	done; exit 1"

# a path that silently stops carrying packets (no netlink event: a drop filter on
# the anchor's side) is declared down after ProbeMissLimit probe intervals and
# comes back by itself when packets flow again
ip netns exec $NS_AN tc qdisc add dev an1 ingress
# (this kernel has no gact "drop" action: redirect everything to an ifb left down)
ip -n $NS_AN link add bh0 type ifb
ip netns exec $NS_AN tc filter add dev an1 ingress protocol ip u32 match u32 0 0 \
	action mirred egress redirect dev bh0
state_is() { $MPTCTL -s "$TMP/ue.sock" stats | grep -Eq "session.0.path.0.state +$1"; }
waitfor() { local i; for ((i = 0; i < $1 * 10; i++)); do "${@:2}" && return 0; sleep 0.1; done; return 1; }
check "a blackholed path is declared down by missed probes (<= 3 x 100 ms + slack)" \
	waitfor 2 bash -c "$(declare -f state_is); MPTCTL=$MPTCTL TMP=$TMP state_is '(down|probing)'"
check "traffic continues on the other path meanwhile" wait_ping $NS_UE 10.2.0.2 3
ip netns exec $NS_AN tc qdisc del dev an1 ingress
check "the path comes back by itself when packets pass again" \
	waitfor 3 bash -c "$(declare -f state_is); MPTCTL=$MPTCTL TMP=$TMP state_is up"

# no plaintext on a path: a canary sent through the tunnel is not on the wire
ip netns exec $NS_AN tcpdump -i an1 -w "$TMP/an1.pcap" -U udp >/dev/null 2>&1 &
TD1=$!
ip netns exec $NS_SRV tcpdump -i srv -w "$TMP/srv.pcap" -U udp port 9999 >/dev/null 2>&1 &
TD2=$!
sleep 1
ip -n $NS_UE link set ue2 down	# force the canary onto p1 where we capture
sleep 0.3
for _ in 1 2 3 4 5; do
	ip netns exec $NS_UE bash -c 'echo MPTUND-PLAINTEXT-CANARY-4711 > /dev/udp/10.2.0.2/9999'
	sleep 0.1
done
sleep 0.5
kill $TD1 $TD2; wait $TD1 $TD2 2>/dev/null
ip -n $NS_UE link set ue2 up
check "the canary reached the server in clear (the capture works)" \
	grep -qa MPTUND-PLAINTEXT-CANARY-4711 "$TMP/srv.pcap"
check "the canary crossed the path encrypted (capture non-empty, no plaintext)" \
	bash -c "[ \$(stat -c %s $TMP/an1.pcap) -gt 200 ] && ! grep -qa MPTUND-PLAINTEXT-CANARY-4711 $TMP/an1.pcap"

# an unknown key gets nothing through
kill "$UE2_PID"; wait "$UE2_PID" 2>/dev/null
start_daemon $NS_UE2 "$TMP/stranger.conf" stranger >/dev/null
sleep 1.5
check "a UE with an unknown key gets nothing through" \
	bash -c "! ip netns exec $NS_UE2 ping -c 2 -W 1 10.2.0.2 >/dev/null 2>&1"
check "the anchor counted the refused handshakes" bash -c \
	"$MPTCTL -s $TMP/anchor.sock stats | grep -Eq 'daemon.drop_auth_pkts +[1-9]'"

# clean shutdown removes the TUN
kill -TERM "$UE_PID"
for _ in $(seq 50); do kill -0 "$UE_PID" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM: the daemon exits and says so" bash -c \
	"! kill -0 $UE_PID 2>/dev/null && grep -q stopped $TMP/ue.log"
check "SIGTERM: TUN device removed" bash -c "! ip -n $NS_UE link show mpt0 >/dev/null 2>&1"
finish
