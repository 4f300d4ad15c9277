#!/usr/bin/env bash
# Installs the Debian packages mptund's build, tests and testbed need, when missing.
# Usage: tests/install-deps.sh [build|test|testbed|fuzz]...   (default: all but fuzz)
set -eu
need=(cmake gcc make pkg-config libev-dev libnl-3-dev libnl-route-3-dev libssl-dev)
for what in ${@:-build test testbed}; do
	case $what in
	build) ;;
	test) need+=(libcmocka-dev libglpk-dev iproute2 iperf3 iputils-ping tcpdump mandoc
		     wireguard-go wireguard-tools clang ethtool procps) ;;
	# libFuzzer and the sanitizer runtimes are not pulled in by clang itself;
	# llvm brings llvm-symbolizer for readable crash stacks.
	fuzz) need+=(clang libclang-rt-14-dev llvm) ;;
	testbed) need+=(mininet python3-matplotlib iperf3 ethtool iproute2 iputils-ping
			mptcpize) ;;
	esac
done
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
