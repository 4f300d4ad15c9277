#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_pmtu.sh with IPv6 outer addresses: the paths' base PLPMTU is 1280 (RFC 8899 5.1.2),
# the small path is at 1400 so the search has work to do on it, and the routers' ICMPv6
# "packet too big" passes, so the UE takes it as a validated hint (RFC 8899 4.6) while
# the anchor's direction (a veth that drops above its MTU, no ICMP) needs the probes.
# The UE's small path once took 5.4 s here: a data RTT sample taken across the path's
# coming up (0.6 s srtt, 0.6 s rttvar on a 0.3 ms path) made the probe timeout 3.3 s;
# the probes now time their rounds themselves (plpmtud.h).
MPT_PMTU_OUTER=6 MPT_PMTU_ICMP=pass MPT_PMTU_SMALL=1400 \
	exec bash "$(dirname "$0")/test_pmtu.sh" "$@"
