#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every drop reason and counter the code keeps is exported, in `stats` and in
# `metrics`, on a live anchor and UE (lib.sh's base topology, one path):
#
#   UE ue1 ==(p1)== an1 ANCHOR
#
# The lists come from the source, not from this file, so a new reason or counter that
# is not exported fails here:
#  - the drop reasons: the names in src/proto/wire.c's reason table, each exported as
#    daemon.dropped.<reason> (stats) and mptund_daemon_dropped_<reason>_total
#    (metrics), on both daemons, and a drop the test provokes (a 1-byte datagram:
#    "short") is counted there;
#  - the counters: every field of struct mpt_daemon_stats, mpt_session_stats,
#    mpt_path_stats and mpt_reorder_stats is read by src/ctl/ctl_dump.c, and every
#    key the daemons print for them has a metric.
. "$(dirname "$0")/lib.sh"
require_root
SRC=$(cd "$(dirname "$0")/../.." && pwd)

topo_up 1
genkeys anchor; genkeys ue
write_anchor_conf "$TMP/anchor.conf" rr fixed \
	"Name = ue1|PublicKey = $(cat "$TMP/ue.pub")|AllowedIPs = 10.99.0.2/32"
write_ue_conf "$TMP/ue.conf" ue "10.99.0.2/24" rr fixed \
	"Name = p1|Device = ue1|Endpoint = 10.1.1.1:5555"
start_daemon $NS_AN "$TMP/anchor.conf" anchor >/dev/null
start_daemon $NS_UE "$TMP/ue.conf" ue >/dev/null
check "UE reaches the server through the tunnel" wait_ping $NS_UE 10.2.0.2 10

# (MPT_WIRE_OK, "ok", is no drop)
reasons=$(sed -n '/reason_names\[MPT_WIRE_REASON_COUNT\]/,/^};/p' "$SRC/src/proto/wire.c" |
	grep -v 'MPT_WIRE_OK\]' | grep -oE '= "[a-z0-9-]+"' | cut -d'"' -f2)
n=$(echo "$reasons" | wc -w)
check "the reason table of wire.c lists reasons ($n)" [ "$n" -ge 30 ]
for who in anchor ue; do
	"$MPTCTL" -s "$TMP/$who.sock" stats > "$TMP/$who.stats"
	"$MPTCTL" -s "$TMP/$who.sock" metrics > "$TMP/$who.prom"
	miss_s=; miss_m=
	for r in $reasons; do
		grep -Eq "^daemon\.dropped\.$r +[0-9]+$" "$TMP/$who.stats" || miss_s="$miss_s $r"
		m=mptund_daemon_dropped_$(echo "$r" | tr - _)_total
		grep -Eq "^$m(\{[^}]*\})? [0-9]+$" "$TMP/$who.prom" || miss_m="$miss_m $r"
	done
	check "$who: every drop reason in stats (missing:${miss_s:- none})" [ -z "$miss_s" ]
	check "$who: every drop reason in metrics (missing:${miss_m:- none})" [ -z "$miss_m" ]
done

# a drop provoked: a 1-byte datagram to the anchor is "short"
before=$(awk '$1 == "daemon.dropped.short" { print $2 }' "$TMP/anchor.stats")
ip netns exec $NS_UE bash -c 'printf a > /dev/udp/10.1.1.1/5555'
sleep 0.3
after=$("$MPTCTL" -s "$TMP/anchor.sock" stats | awk '$1 == "daemon.dropped.short" { print $2 }')
check "a 1-byte datagram is counted as dropped.short ($before -> $after)" \
	[ "${after:-0}" -eq $((${before:-0} + 1)) ]

# the counters of the stats structs
missing=
for st in mpt_daemon_stats mpt_session_stats mpt_path_stats mpt_reorder_stats; do
	f=$(grep -l "^struct $st {" "$SRC"/src/*/*.h)
	fields=$(awk "/^struct $st \{/,/^\};/" "$f" | grep -oE 'uint(64|32)_t [^;]+;' |
		sed -E 's/^uint(64|32)_t //; s/;//; s/\[[A-Z_]+\]//g' | tr ',' '\n' | tr -d ' ')
	for x in $fields; do
		grep -qE "(st|rs)(\.|->)$x\b" "$SRC/src/ctl/ctl_dump.c" || missing="$missing $st.$x"
	done
done
check "every counter field is exported by ctl_dump.c (missing:${missing:- none})" [ -z "$missing" ]

# every numeric stats key has its metric (the Prometheus backend drops nothing)
for who in anchor ue; do
	nkeys=$(grep -cE '^[a-z0-9_.]+ +-?[0-9.e+-]+$' "$TMP/$who.stats")
	nsamples=$(grep -cvE '^#|_info\{' "$TMP/$who.prom")
	log "$who: $nkeys numeric stats keys, $nsamples metric samples"
	check "$who: a metric sample for each numeric stats key ($nsamples >= $nkeys)" \
		[ "$nsamples" -ge "$nkeys" ]
done
finish
