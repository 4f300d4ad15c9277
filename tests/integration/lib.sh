# SPDX-License-Identifier: MIT
# Shared helpers for the namespace integration tests. Source it; it needs root.
#
#   ns UE                          ns ANCHOR                         ns SRV
#   mpt0 10.99.0.2/24, fd99::2     mpt0 10.99.0.1/24, fd99::1
#   ue1 10.1.1.2/24  <--- veth ---> an1 10.1.1.1/24   (path "p1")
#   ue2 10.1.2.2/24  <--- veth ---> an2 10.1.2.1/24   (path "p2")
#   ue3 fd01:3::2/64 <--- veth ---> an3 fd01:3::1/64  (path "p3", only with PATHS=3)
#                                   ans 10.2.0.1/24  <--- veth ---> srv 10.2.0.2/24
#                                       fd02::1/64                        fd02::2/64
# A second UE (UE2, tunnel 10.99.0.3) joins through ue2-1 10.1.3.2 <-> an4 10.1.3.1.
#
# Every name carries a per-run suffix so parallel runs and leftovers never collide;
# cleanup removes exactly what this run created.

set -u
BUILD=${1:-$(pwd)/build}
MPTUND=$BUILD/mptund
MPTCTL=$BUILD/mptund-ctl
RUN_ID=${RUN_ID:-$$}
NS_UE=mptt-ue-$RUN_ID
NS_UE2=mptt-ue2-$RUN_ID
NS_AN=mptt-an-$RUN_ID
NS_SRV=mptt-srv-$RUN_ID
TMP=$(mktemp -d /tmp/mptund-test.XXXXXX)
PIDS=()
FAILS=0
PASSES=0

log() { printf '# %s\n' "$*"; }
ok() { PASSES=$((PASSES + 1)); printf 'ok - %s\n' "$*"; }
fail() { FAILS=$((FAILS + 1)); printf 'not ok - %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	for ns in $NS_UE $NS_UE2 $NS_AN $NS_SRV; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	if [ "${KEEP_TMP:-0}" = 1 ]; then log "logs kept in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

finish() {
	printf '%d passed, %d failed\n' "$PASSES" "$FAILS"
	[ "$FAILS" -eq 0 ]
	exit $?
}

require_root() {
	if [ "$(id -u)" != 0 ]; then echo "1..0 # SKIP needs root"; exit 0; fi
	[ -x "$MPTUND" ] || { echo "no $MPTUND"; exit 1; }
}

veth() { # veth NS_A IF_A NS_B IF_B
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

topo_up() { # topo_up [npaths]
	local n=${1:-2}
	for ns in $NS_UE $NS_AN $NS_SRV; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
	veth $NS_UE ue1 $NS_AN an1
	ip -n $NS_UE addr add 10.1.1.2/24 dev ue1; ip -n $NS_AN addr add 10.1.1.1/24 dev an1
	veth $NS_UE ue2 $NS_AN an2
	ip -n $NS_UE addr add 10.1.2.2/24 dev ue2; ip -n $NS_AN addr add 10.1.2.1/24 dev an2
	if [ "$n" -ge 3 ]; then
		veth $NS_UE ue3 $NS_AN an3
		ip -n $NS_UE addr add fd01:3::2/64 dev ue3 nodad
		ip -n $NS_AN addr add fd01:3::1/64 dev an3 nodad
	fi
	veth $NS_AN ans $NS_SRV srv
	ip -n $NS_AN addr add 10.2.0.1/24 dev ans; ip -n $NS_SRV addr add 10.2.0.2/24 dev srv
	ip -n $NS_AN addr add fd02::1/64 dev ans nodad; ip -n $NS_SRV addr add fd02::2/64 dev srv nodad
	ip -n $NS_SRV route add 10.99.0.0/24 via 10.2.0.1
	ip -n $NS_SRV route add fd99::/64 via fd02::1
	ip netns exec $NS_AN sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}

ue2_up() {
	ip netns add $NS_UE2; ip -n $NS_UE2 link set lo up
	veth $NS_UE2 ue21 $NS_AN an4
	ip -n $NS_UE2 addr add 10.1.3.2/24 dev ue21; ip -n $NS_AN addr add 10.1.3.1/24 dev an4
}

genkeys() { # genkeys NAME -> $TMP/NAME.key, $TMP/NAME.pub
	"$MPTUND" genkey > "$TMP/$1.key"
	"$MPTUND" pubkey < "$TMP/$1.key" > "$TMP/$1.pub"
}

# write_ue_conf FILE KEYNAME ADDR SCHED CC PATHLINES...
write_ue_conf() {
	local f=$1 key=$2 addr=$3 sched=$4 cc=$5; shift 5
	{
		echo "[Interface]"
		echo "Role = ue"
		echo "Name = mpt0"
		echo "PrivateKey = $(cat "$TMP/$key.key")"
		echo "Address = $addr"
		echo "Route = 10.2.0.0/24"
		echo "Route = fd02::/64"
		echo "ControlSocket = $TMP/$key.sock"
		echo "ProbeInterval = ${PROBE_MS:-100}ms"
		echo "ProbeMissLimit = 3"
		# idle probes back off only where a test asks (IDLE_PROBE_MS): the
		# others time liveness on idle paths by ProbeInterval
		echo "IdleProbeInterval = ${IDLE_PROBE_MS:-${PROBE_MS:-100}}ms"
		[ -n "${UE_EXTRA:-}" ] && printf '%s\n' "$UE_EXTRA" | tr '|' '\n'
		echo "[Scheduler]"
		echo "Name = $sched"
		echo "[Congestion]"
		echo "Name = $cc"
		for p in "$@"; do printf '[Path]\n%s\n' "$p" | tr '|' '\n'; done
		echo "[Peer]"
		echo "PublicKey = $(cat "$TMP/anchor.pub")"
	} > "$f"
}

write_anchor_conf() { # write_anchor_conf FILE SCHED CC PEERLINES...
	local f=$1 sched=$2 cc=$3; shift 3
	{
		echo "[Interface]"
		echo "Role = anchor"
		echo "Name = mpt0"
		echo "PrivateKey = $(cat "$TMP/anchor.key")"
		echo "Address = 10.99.0.1/24"
		echo "Address = fd99::1/64"
		echo "ListenPort = 5555"
		echo "ControlSocket = $TMP/anchor.sock"
		echo "ProbeInterval = ${PROBE_MS:-100}ms"
		echo "ProbeMissLimit = 3"
		# idle probes back off only where a test asks (IDLE_PROBE_MS): the
		# others time liveness on idle paths by ProbeInterval
		echo "IdleProbeInterval = ${IDLE_PROBE_MS:-${PROBE_MS:-100}}ms"
		echo "[Scheduler]"
		echo "Name = $sched"
		echo "[Congestion]"
		echo "Name = $cc"
		for p in "$@"; do printf '[Peer]\n%s\n' "$p" | tr '|' '\n'; done
	} > "$f"
}

start_daemon() { # start_daemon NS CONF LOGNAME
	ip netns exec "$1" "$MPTUND" -c "$2" > "$TMP/$3.log" 2>&1 &
	PIDS+=($!)
	echo $!
}

wait_ping() { # wait_ping NS ADDR SECONDS
	local i
	for ((i = 0; i < $3 * 5; i++)); do
		ip netns exec "$1" ping -c1 -W1 "$2" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

# Bytes sent on a veth as seen by the kernel.
tx_bytes() { ip netns exec "$1" cat /sys/class/net/"$2"/statistics/tx_bytes; }
