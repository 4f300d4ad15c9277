#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Source address pinning on a multi-homed anchor (udp_local.h), in namespaces this
# script creates (lib.sh's base topology with PATHS=3 links, the anchor's links given a
# second address each):
#
#   ns UE                                    ns ANCHOR (listens on :: or 0.0.0.0)
#   ue1 10.1.1.2   <---------- veth ------>  an1 10.1.1.1 (primary), 10.1.1.5
#   ue3 fd01:3::2  <---------- veth ------>  an3 fd01:3::1 (primary), fd01:3::5
#   tcpdump on ue1 and ue3: where the anchor's datagrams come from
#   IPv4 strict, as a NAT that only lets back what comes from where it sent: a
#   blackhole route to 10.1.1.1 and rp_filter on ue1 drop what comes from there
#
# The UE's paths go to the secondary addresses. Routing would answer from the
# primary ones: without pinning the IPv4 handshake response never gets through, and
# the IPv6 replies show the wrong source. The handshake, a ping and a bulk download
# (the anchor's GSO and sendmmsg batches) are checked. Run twice: the default
# dual-stack listener (IPv4 as v4-mapped, IPV6_PKTINFO) and ListenAddress = 0.0.0.0
# (IP_PKTINFO). Then, one path at a time, the pinned address is removed mid-run: the
# anchor falls back to the kernel's choice of source and the tunnel carries on.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf3 >/dev/null || { echo "1..0 # SKIP iperf3 missing"; exit 0; }

topo_up 3
ip -n $NS_AN addr add 10.1.1.5/24 dev an1
ip -n $NS_AN addr add fd01:3::5/64 dev an3 nodad
genkeys anchor; genkeys ue

# IPv4 strict: nothing from the primary address reaches the UE's sockets
ip -n $NS_UE route add blackhole 10.1.1.1/32
ip netns exec $NS_UE sysctl -qw net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.ue1.rp_filter=1
for dev in ue1 ue3; do
	ip netns exec $NS_UE tcpdump -i $dev -n -s 96 -U -w "$TMP/$dev.pcap" udp \
		> /dev/null 2>&1 &
	PIDS+=($!)
done
count() { # count DEV FILTER: captured datagrams matching FILTER
	tcpdump -r "$TMP/$1.pcap" -n "$2" 2>/dev/null | wc -l
}
ip netns exec $NS_SRV iperf3 -s -D -I "$TMP/iperf.pid" >/dev/null 2>&1
sleep 0.3
PIDS+=($(cat "$TMP/iperf.pid" 2>/dev/null))

anchor_path() { # anchor_path NAME FIELD
	"$MPTCTL" -s "$TMP/anchor.sock" --json stats | /usr/bin/python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["session"][0]["path"] if p["name"] == sys.argv[1]]
print(p[0][sys.argv[2]] if p else "")' "$1" "$2"
}

run() { # run LISTEN_LINE PATHS...
	local listen=$1 an ue p; shift
	write_anchor_conf "$TMP/anchor.conf" rr fixed \
		"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
	[ -n "$listen" ] && sed -i "s/^ListenPort = .*/&\n$listen/" "$TMP/anchor.conf"
	write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed "$@"
	an=$(start_daemon $NS_AN "$TMP/anchor.conf" anchor)
	ue=$(start_daemon $NS_UE "$TMP/ue.conf" ue)
	check "${listen:-ListenAddress ::}: ping through the tunnel" wait_ping $NS_UE 10.2.0.2 8
	ip netns exec $NS_UE iperf3 -c 10.2.0.2 -R -t 1 -J > "$TMP/iperf.json" 2>&1
	for p in "$@"; do
		p=${p%%|*}; p=${p#Name = }
		log "$p: anchor local $(anchor_path "$p" local), remote" \
			"$(anchor_path "$p" remote), up $(anchor_path "$p" up)," \
			"gso_sends $(anchor_path "$p" gso_sends)"
		check "$p: the anchor pinned its secondary address" \
			grep -qE '^(10\.1\.1\.5|::ffff:10\.1\.1\.5|fd01:3::5)%' \
			<<< "$(anchor_path "$p" local)"
		check "$p: up on the anchor after the download" [ "$(anchor_path "$p" up)" = 1 ]
	done
	check "downlink data went out in GSO runs too (pinned in the GSO cmsg)" \
		[ "$(( $(anchor_path p1 gso_sends) + 0 ))" -gt 0 ]
	kill "$ue" "$an"; wait "$ue" "$an" 2>/dev/null
}

run "" "Name = p1|Device = ue1|Endpoint = 10.1.1.5:5555" \
	"Name = p3|Device = ue3|Endpoint = [fd01:3::5]:5555"
run "ListenAddress = 0.0.0.0" "Name = p1|Device = ue1|Endpoint = 10.1.1.5:5555"

sleep 0.3
for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done	# tcpdump flushes
sleep 0.5
bad4=$(count ue1 'udp and src host 10.1.1.1'); good4=$(count ue1 'udp and src host 10.1.1.5')
bad6=$(count ue3 'udp and src host fd01:3::1'); good6=$(count ue3 'udp and src host fd01:3::5')
rpf=$(ip netns exec $NS_UE nstat -az TcpExtIPReversePathFilter | awk '/IPReverse/ { print $2 }')
log "UDP to the UE: from 10.1.1.1 $bad4, from 10.1.1.5 $good4," \
	"from fd01:3::1 $bad6, from fd01:3::5 $good6 datagrams; rp_filter drops ${rpf:-?}"
check "nothing came from the anchor's primary IPv4 address" [ "$bad4" = 0 ]
check "nothing came from the anchor's primary IPv6 address" [ "$bad6" = 0 ]
check "the downloads came from the secondary IPv4 address" [ "$good4" -gt 1000 ]
check "the download came from the secondary IPv6 address" [ "$good6" -gt 1000 ]

# The pinned address removed mid-run (the admin, a DHCP change): the anchor's sends
# from it fail (IPv4 ENETUNREACH, IPv6 EINVAL). The path forgets the pin, its replies
# leave from the kernel's choice (the link's primary address), the UE validates and
# follows that address and the anchor pins it. One path at a time, so that the tunnel
# has no other way; the UE is not strict here (a strict NAT lets nothing from another
# address through: nothing to do about that).
ip -n $NS_UE route del blackhole 10.1.1.1/32
ue_path() { # ue_path NAME FIELD
	"$MPTCTL" -s "$TMP/ue.sock" --json stats | /usr/bin/python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["session"][0]["path"] if p["name"] == sys.argv[1]]
print(p[0][sys.argv[2]] if p else "")' "$1" "$2"
}
ms() { echo $(($(date +%s%N) / 1000000)); }
removed() { # removed DEV ADDR/LEN PRIMARY_RE PATH_LINE
	local dev=$1 addr=$2 primary=$3 p an ue t0 back=-1 i
	write_anchor_conf "$TMP/anchor.conf" rr fixed \
		"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
	write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed "$4"
	p=${4%%|*}; p=${p#Name = }	# after write_ue_conf, whose loop sets p
	an=$(start_daemon $NS_AN "$TMP/anchor.conf" anchor)
	ue=$(start_daemon $NS_UE "$TMP/ue.conf" ue)
	check "$p alone: ping through the tunnel" wait_ping $NS_UE 10.2.0.2 8
	check "$p: pinned to ${addr%/*}" grep -qE "^(::ffff:)?${addr%/*}%" \
		<<< "$(anchor_path "$p" local)"
	ip -n $NS_AN addr del "$addr" dev "$dev"
	t0=$(ms)
	for ((i = 0; i < 50; i++)); do	# a ping every 100 ms or its 1 s timeout
		if ip netns exec $NS_UE ping -c1 -W1 10.2.0.2 > /dev/null 2>&1; then
			back=$(($(ms) - t0)); break
		fi
		sleep 0.1
	done
	log "$p: ${addr%/*} removed; pings back after $back ms; anchor local" \
		"$(anchor_path "$p" local), pin_fallbacks $(anchor_path "$p" pin_fallbacks)," \
		"send_errors $(anchor_path "$p" send_errors); UE remote $(ue_path "$p" remote)"
	# the anchor probes an active path every ProbeInterval (200 ms), the UE challenges
	# the address it came from (a round trip): well within 3 s
	check "$p: pings pass again within 3 s of the removal" \
		[ "$back" -ge 0 -a "$back" -le 3000 ]
	check "$p: pings keep passing (20 at 10/s, none lost)" \
		ip netns exec $NS_UE ping -c 20 -i 0.1 -W 1 -q 10.2.0.2
	check "$p: the anchor counted the fallback" \
		[ "$(( $(anchor_path "$p" pin_fallbacks) + 0 ))" -gt 0 ]
	check "$p: the anchor pinned the address the UE moved to" \
		grep -qE "^$primary%" <<< "$(anchor_path "$p" local)"
	check "$p: the lost pin logged once" \
		[ "$(grep -c 'is no longer ours' "$TMP/anchor.log")" = 1 ]
	kill "$ue" "$an"; wait "$ue" "$an" 2>/dev/null
	ip -n $NS_AN addr add "$addr" dev "$dev" $([[ $addr == *:* ]] && echo nodad)
}
removed an1 10.1.1.5/24 '(::ffff:)?10\.1\.1\.1' "Name = p1|Device = ue1|Endpoint = 10.1.1.5:5555"
removed an3 fd01:3::5/64 'fd01:3::1' "Name = p3|Device = ue3|Endpoint = [fd01:3::5]:5555"
finish
