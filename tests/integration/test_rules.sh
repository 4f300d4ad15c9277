#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Steering rules at run time, in namespaces this script creates (lib.sh):
#
#   UE (mptund, cpf)                                  ANCHOR (cpf)     SRV
#   ue1 10.1.1.2 ==(p1, Cost 1)== an1 10.1.1.1     mptund  ans == srv 10.2.0.2
#   ue2 10.1.2.2 ==(p2, Cost 2)== an2 10.1.2.1        |              iperf3 -s
#   mpt0 10.99.0.2 ===================== tunnel ====== mpt0 10.99.0.1
#
# cpf keeps a light flow on p1 (the cheapest path). While a UDP flow runs (uplink,
# then downlink), a rule sending it with rr over both paths is added with mptund-ctl
# on the sender: from then on the flow's packets are counted under the rule and p2
# carries them too, and iperf3 reports no datagram lost. Then a reload with a broken
# [Rule] fails, quotes the bad value and keeps the running rules; a good reload puts
# the file's rules in place. The anchor's own [Rule] for this UE is pushed to it
# (RULES frames): the UE lists it and steers its pings by it; deleted on the anchor,
# it goes from the UE too.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf3 >/dev/null || { echo "1..0 # SKIP iperf3 missing"; exit 0; }
PY=/usr/bin/python3

topo_up 2
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" cpf fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32, fd99::2/128"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24, fd99::2/64" cpf fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555|Cost = 1" \
	"Name = p2|Device = ue2|Endpoint = 10.1.2.1:5555|Cost = 2"
printf '[Rule]\nName = pushed-icmp\nPeer = ue1\nProtocol = icmp\nScheduler = rr\n' \
	>> "$TMP/anchor.conf"
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null
ip netns exec $NS_SRV iperf3 -s -D -I "$TMP/iperf.pid" >/dev/null 2>&1
sleep 0.3
PIDS+=("$(cat "$TMP/iperf.pid")")

UE() { "$MPTCTL" -s "$TMP/ue.sock" "$@"; }
AN() { "$MPTCTL" -s "$TMP/anchor.sock" "$@"; }
# sv CTL KEY: one value of `stats`
sv() { "$1" stats "$2" | awk -v k="$2" '$1 == k { print $2 }'; }
# udp_flow SECONDS JSON [iperf3 args]: a 4 Mbit/s UDP flow in the background
udp_flow() {
	local t=$1 f=$2; shift 2
	ip netns exec $NS_UE iperf3 -c 10.2.0.2 -u -b 4M -l 1000 -t "$t" -J "$@" > "$f" 2>&1 &
	IPERF=$!
}
# no_loss JSON: the receiver's count of lost datagrams is 0 (and some arrived)
no_loss() {
	$PY -c 'import json, sys
s = json.load(open(sys.argv[1]))["end"]["sum"]
print("# datagrams %d, lost %d, out of order %s" % (s["packets"], s["lost_packets"],
      s.get("out_of_order", "?")))
sys.exit(0 if s["packets"] > 1000 and s["lost_packets"] == 0 else 1)' "$1"
}
gt() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -gt "$2" ]; }

check "the tunnel comes up (ping UE -> SRV)" wait_ping $NS_UE 10.2.0.2 10
# wait_for SECONDS CMD...: CMD succeeds within SECONDS
wait_for() {
	local i t=$1; shift
	for ((i = 0; i < t * 10; i++)); do "$@" && return 0; sleep 0.1; done
	return 1
}

# --- 0. the anchor's rule is pushed to the UE --------------------------------------
has_pushed() { UE rule list | grep -q "pushed_rule.0.spec.*Name=pushed-icmp Protocol=icmp Scheduler=rr"; }
check "the anchor's rule reaches the UE (rule list)" wait_for 3 has_pushed
ip netns exec $NS_UE ping -c 5 -i 0.1 -W 1 10.2.0.2 >/dev/null
check "the UE steers its pings by the pushed rule" gt "$(sv UE pushed_rule.0.pkts)" 4
check "the anchor steers the replies by it" gt "$(sv AN rule.0.pkts)" 4

# --- 1. uplink: a rule added on the UE during the flow ------------------------------
udp_flow 5 "$TMP/up.json"
sleep 2
before=$(sv UE session.0.path.1.picks)
check "rule add (UE) during the flow" UE rule add bulk Protocol=udp DestinationPort=5201 \
	Scheduler=rr
sleep 1.5
check "the rule counts the flow's packets" gt "$(sv UE rule.0.pkts)" 100
check "the rule's packets go on p2 too (rr)" gt "$(sv UE rule.0.path_pkts.1)" 10
check "p2 picks rose after the rule" gt "$(sv UE session.0.path.1.picks)" "$((before + 10))"
wait $IPERF
check "uplink: no datagram lost across the rule change" no_loss "$TMP/up.json"
UE rule list > "$TMP/list.txt"
check "rule list shows the rule's spec" grep -q \
	"rule.0.spec.*Name=bulk Protocol=udp DestinationPort=5201 Scheduler=rr" "$TMP/list.txt"

# --- 2. downlink: a rule added on the anchor during the flow ------------------------
udp_flow 5 "$TMP/down.json" -R
sleep 2
check "rule add (anchor) during the flow" AN rule add down at 0 Protocol=udp \
	DestinationPort=5201 Scheduler=rr
sleep 1.5
check "anchor: the rule counts the downlink (addresses swapped)" \
	gt "$(sv AN rule.0.pkts)" 100
check "anchor: its packets go on the UE's second path too" \
	gt "$(sv AN rule.0.path_pkts.1)" 10
wait $IPERF
check "downlink: no datagram lost across the rule change" no_loss "$TMP/down.json"

# --- 3. bad rules and reload -------------------------------------------------------
if UE rule add bad Protocol=ufo Scheduler=rr 2> "$TMP/bad.err"; then
	fail "rule add with a bad protocol is refused"
else
	check "rule add with a bad protocol is refused, quoting it" grep -q "'ufo'" "$TMP/bad.err"
fi
cp "$TMP/ue.conf" "$TMP/ue.good"
printf '[Rule]\nName = broken\nProtocol = udp\nDestinationPort = 5201-80\nScheduler = rr\n' \
	>> "$TMP/ue.conf"
if UE reload 2> "$TMP/reload.err"; then
	fail "reload with a broken rule fails"
else
	log "$(cat "$TMP/reload.err")"
	check "reload with a broken rule fails, quoting the value" grep -q "'5201-80'" \
		"$TMP/reload.err"
fi
check "the running rules are kept" grep -q "Name=bulk" <(UE rule list)
cp "$TMP/ue.good" "$TMP/ue.conf"
printf '[Rule]\nName = fromfile\nProtocol = icmp\nScheduler = minrtt\n' >> "$TMP/ue.conf"
check "reload with a good rule" UE reload
UE rule list > "$TMP/list2.txt"
check "the file's rules replace the running ones" \
	bash -c "grep -q 'Name=fromfile' '$TMP/list2.txt' && ! grep -q 'Name=bulk' '$TMP/list2.txt'"
check "the tunnel still carries traffic (ping, steered by the new rule)" \
	wait_ping $NS_UE 10.2.0.2 5
check "the ping was counted under the file's rule" gt "$(sv UE rule.0.pkts)" 0
check "rule del" UE rule del fromfile
check "rule del (anchor) of the pushed rule" AN rule del pushed-icmp
no_pushed_icmp() { ! UE rule list | grep -q "Name=pushed-icmp"; }
check "... and it goes from the UE" wait_for 3 no_pushed_icmp
check "no rule of the UE's own left" bash -c "! '$MPTCTL' -s '$TMP/ue.sock' rule list | grep -q '^rule'"
finish
