#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UE-side AllowedIPs as an inner-source filter, in namespaces this script creates
# (lib.sh's base topology, one path):
#
#   UE mpt0 10.99.0.2 -- ue1 ==(p1)== an1 -- ANCHOR mpt0 10.99.0.1 -- ans == srv SRV
#                                                               10.2.0.2 (allowed)
#                                                               10.2.0.9 (not allowed)
#
# The UE's [Peer] lists AllowedIPs = 10.2.0.2/32, 10.99.0.1/32: pings from the server's
# 10.2.0.2 reach the UE, pings the server sends from 10.2.0.9 (a source the anchor
# forwards but the UE did not allow) are dropped by the UE and counted as
# spoofed_drop_pkts; the anchor's own filter (the UE's AllowedIPs there) drops the
# UE's uplink packets from a source outside 10.99.0.2/32 the same way. A dropped
# packet's data sequence number still takes its turn in the anchor's reorder buffer:
# the allowed ping after the dropped ones waits for no hole (holes_skipped unchanged).
. "$(dirname "$0")/lib.sh"
require_root

topo_up 1
ip -n $NS_SRV addr add 10.2.0.9/24 dev srv
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555"
printf 'AllowedIPs = 10.2.0.2/32, 10.99.0.1/32\n' >> "$TMP/ue.conf"
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null
check "UE reaches the server through the tunnel" wait_ping $NS_UE 10.2.0.2 10

ctl() { "$MPTCTL" -s "$TMP/$1.sock" stats | awk -v k="$2" '$1 == k { print $2 }'; }
s0=$(ctl ue session.0.spoofed_drop_pkts)
check "the server's allowed source reaches the UE" \
	ip netns exec $NS_SRV ping -c 3 -i 0.1 -W 1 -q -I 10.2.0.2 10.99.0.2
check "the server's other source does not" \
	bash -c "! ip netns exec $NS_SRV ping -c 5 -i 0.1 -W 1 -q -I 10.2.0.9 10.99.0.2"
s1=$(ctl ue session.0.spoofed_drop_pkts)
log "UE spoofed_drop_pkts $s0 -> $s1"
check "the UE counted the 5 pings as spoofed ($s0 -> $s1)" [ $((s1 - s0)) -ge 5 ]
check "metrics export it" bash -c "'$MPTCTL' -s '$TMP/ue.sock' metrics |
	grep -Eq '^mptund_session_spoofed_drop_pkts_total\{.*\} $s1\$'"

# uplink: the UE's packets from a source outside its AllowedIPs on the anchor
ip -n $NS_UE addr add 10.99.0.77/24 dev mpt0
a0=$(ctl anchor session.0.spoofed_drop_pkts)
h0=$(ctl anchor session.0.reorder.holes_skipped)
check "an uplink ping from a source the anchor does not allow gets nothing" \
	bash -c "! ip netns exec $NS_UE ping -c 3 -i 0.1 -W 1 -q -I 10.99.0.77 10.2.0.2"
a1=$(ctl anchor session.0.spoofed_drop_pkts)
check "the anchor counted them ($a0 -> $a1)" [ $((a1 - a0)) -ge 3 ]
check "the allowed source still works" ip netns exec $NS_UE ping -c 2 -W 1 -q 10.2.0.2
h1=$(ctl anchor session.0.reorder.holes_skipped)
check "the dropped packets left no hole in the anchor's reorder buffer ($h0 -> $h1)" \
	[ "$h1" = "$h0" ]
finish
