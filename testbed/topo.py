# SPDX-License-Identifier: MIT
"""Mininet topology for the mptund testbed: hosts wired directly, no switch, no controller.

        path P (1..K), one delay host each
  UE k ---ue-ethP--- [dP: delaybridge | netem] ---anchor-ethP--- anchor ---- server
                     (N>1 UEs: a Linux bridge in dP joins the UE ports)

Names are prefixed with the branch ("testbed-"): hosts testbed-ue / testbed-u2..,
testbed-an, testbed-sv, testbed-d1..d8, so interface names stay within 15 characters
and never collide with other users of Mininet on the machine.

Addresses: path P subnet 10.P.0.0/24 (anchor .1, UE k .(10+k)); anchor-server
10.100.0.0/24 (anchor .1, server .2); tunnel 10.200.0.0/24 (anchor .1, UE k .(10+k)).
The UE routes by source address (table 100+P) so that a socket bound to a path's
address leaves on that path (single-path references, MPTCP subflows, mptund paths).

Rate: TBF with an explicit buffer, downlink on anchor-ethP (shared by the UEs of the
path), uplink on ue-ethP. Delay/jitter/loss: netem where the kernel has sch_netem,
else delaybridge (AF_PACKET delay line) in the delay host. `Topology.method` says which.
"""
import json
import os
import subprocess
import time

from mininet.net import Mininet
from mininet.node import Host
from mininet.link import Link

PREFIX = "testbed-"
HERE = os.path.dirname(os.path.abspath(__file__))


def ue_name(k):
    return PREFIX + ("ue" if k == 1 else "u%d" % k)


def path_addr(p, k=None):
    """Anchor (k None) or UE k address on path p."""
    return "10.%d.0.%d" % (p, 1 if k is None else 10 + k)


SERVER_ADDR = "10.100.0.2"
ANCHOR_SERVER_ADDR = "10.100.0.1"


def tunnel_addr(k=None):
    return "10.200.0.%d" % (1 if k is None else 10 + k)


def netem_available():
    """Probe sch_netem in a throw-away namespace of our own."""
    ns = PREFIX + "netemprobe"
    subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        r = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo",
                            "root", "netem", "delay", "1ms"], capture_output=True)
        return r.returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns])


def cleanup_stale():
    """Remove leftovers of a crashed run of ours: root-namespace links with our prefix."""
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith(PREFIX):
            subprocess.run(["ip", "link", "del", name], stderr=subprocess.DEVNULL)


def tbf_args(rate_mbit, buffer_bytes):
    """TBF rate, burst and limit. Burst: 1 ms of the rate, at least two full frames
    (TBF segments GSO frames larger than the burst)."""
    rate_bps = rate_mbit * 1e6
    burst = max(2 * 1514, int(rate_bps / 8 * 0.001))
    limit = max(int(buffer_bytes), 2 * 1514)
    return ["rate", "%dkbit" % int(rate_bps / 1000), "burst", str(burst), "limit", str(limit)]


class Topology:
    """Builds the network from a scenario's "topology" object (see scenario.py)."""

    def __init__(self, topo, builddir, seed=1, log=print):
        self.t = topo
        self.builddir = builddir
        self.seed = seed
        self.log = log
        self.method = "netem" if netem_available() else "delaybridge"
        self.net = None
        self.ues, self.delays, self.bridges = [], [], {}
        self.anchor = self.server = None
        self.procs = []          # every Popen we started, killed by stop()

    # -- construction -------------------------------------------------------------
    def start(self):
        cleanup_stale()
        self.net = Mininet(topo=None, controller=None, build=False, host=Host, link=Link)
        K, N = len(self.t["paths"]), self.t["ues"]
        self.anchor = self.net.addHost(PREFIX + "an", ip=None)
        self.server = self.net.addHost(PREFIX + "sv", ip=None)
        self.ues = [self.net.addHost(ue_name(k), ip=None) for k in range(1, N + 1)]
        self.delays = [self.net.addHost(PREFIX + "d%d" % p, ip=None) for p in range(1, K + 1)]
        a = self.t["anchor_server"]
        self.ds = None
        if self.method == "delaybridge" and a["delay_ms"]:
            # No netem: the anchor-server delay is a delay host of its own as well.
            self.ds = self.net.addHost(PREFIX + "ds", ip=None)
            self.net.addLink(self.ds, self.anchor, intfName1=PREFIX + "ds-eth0",
                             intfName2=PREFIX + "an-eth0")
            self.net.addLink(self.ds, self.server, intfName1=PREFIX + "ds-eth1",
                             intfName2=PREFIX + "sv-eth0")
        else:
            self.net.addLink(self.anchor, self.server, intfName1=PREFIX + "an-eth0",
                             intfName2=PREFIX + "sv-eth0")
        for p in range(1, K + 1):
            d = self.delays[p - 1]
            self.net.addLink(d, self.anchor, intfName1="%s-eth0" % d.name,
                             intfName2=PREFIX + "an-eth%d" % p)
            for k, ue in enumerate(self.ues, 1):
                self.net.addLink(ue, d, intfName1="%s-eth%d" % (ue.name, p),
                                 intfName2="%s-eth%d" % (d.name, k))
        for h in self.net.hosts:
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv4.conf.all.rp_filter=0"
                  " net.ipv4.conf.default.rp_filter=0")
            h.cmd("ip link set lo up")
        self._addresses()
        for p in range(1, K + 1):
            self._path(p)
        self._anchor_server()
        return self

    def _addresses(self):
        an, sv = self.anchor, self.server
        an.cmd("sysctl -qw net.ipv4.ip_forward=1")
        an.cmd("ip addr add %s/24 dev %san-eth0" % (ANCHOR_SERVER_ADDR, PREFIX))
        an.cmd("ip link set %san-eth0 up" % PREFIX)
        sv.cmd("ip addr add %s/24 dev %ssv-eth0; ip link set %ssv-eth0 up"
               % (SERVER_ADDR, PREFIX, PREFIX))
        sv.cmd("ip route add 10.0.0.0/8 via %s" % ANCHOR_SERVER_ADDR)
        for p in range(1, len(self.t["paths"]) + 1):
            dev = "%san-eth%d" % (PREFIX, p)
            an.cmd("ip addr add %s/24 dev %s; ip link set %s up" % (path_addr(p), dev, dev))
            for k, ue in enumerate(self.ues, 1):
                dev = "%s-eth%d" % (ue.name, p)
                ue.cmd("ip addr add %s/24 dev %s; ip link set %s up"
                       % (path_addr(p, k), dev, dev))
                ue.cmd("ip rule add from %s table %d" % (path_addr(p, k), 100 + p))
                ue.cmd("ip route add default via %s dev %s table %d"
                       % (path_addr(p), dev, 100 + p))
                if p == 1:
                    ue.cmd("ip route add default via %s dev %s" % (path_addr(p), dev))
        # Tunnel prefix: the anchor's mptund owns it; the server reaches it via 10/8.

    def _path(self, p):
        cfg = self.t["paths"][p - 1]
        d = self.delays[p - 1]
        ua = "%s-eth0" % d.name                      # anchor side of the delay host
        ports = ["%s-eth%d" % (d.name, k) for k in range(1, len(self.ues) + 1)]
        for i in ports + [ua]:
            d.cmd("ip link set %s up promisc on" % i)
        ue_side = ports[0]
        if len(ports) > 1 or self.method == "netem":
            d.cmd("ip link add dbr0 type bridge; ip link set dbr0 up")
            if len(ports) > 1:
                # UEs share the path: bridge their ports with one end of an inner veth.
                d.cmd("ip link add dly0 type veth peer name dly1")
                d.cmd("ip link set dly0 up promisc on; ip link set dly1 up promisc on")
                for i in ports + ["dly1"]:
                    d.cmd("ip link set %s master dbr0" % i)
                ue_side = "dly0"
            else:
                for i in ports + [ua]:
                    d.cmd("ip link set %s master dbr0" % i)
        self._tbf(p, cfg)
        if self.method == "delaybridge":
            args = [os.path.join(self.builddir, "delaybridge"), "-a", ue_side, "-b", ua,
                    "-d", str(cfg["delay_up_ms"]), "-D", str(cfg["delay_down_ms"]),
                    "-j", str(cfg["jitter_ms"]), "-J", str(cfg["jitter_ms"]),
                    "-l", str(cfg["loss_up_pct"]), "-L", str(cfg["loss_down_pct"]),
                    "-s", str(self.seed * 100 + p), "-r", "10"]
            proc = d.popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
            self.procs.append(proc)
            self.bridges[p] = proc
        else:
            self._netem(p, ua, ue_side, cfg)

    def _netem(self, p, ua, ue_side, cfg, change=False):
        d = self.delays[p - 1]
        for dev, delay, loss in ((ua, cfg["delay_up_ms"], cfg["loss_up_pct"]),
                                 (ue_side, cfg["delay_down_ms"], cfg["loss_down_pct"])):
            jit = " %sms" % cfg["jitter_ms"] if cfg["jitter_ms"] else ""
            d.cmd("tc qdisc %s dev %s root netem delay %sms%s loss %s%% limit 100000"
                  % ("change" if change else "replace", dev, delay, jit, loss))

    def _tbf(self, p, cfg, change=False):
        verb = "change" if change else "replace"
        dn = ["tc", "qdisc", verb, "dev", "%san-eth%d" % (PREFIX, p), "root", "tbf"] + \
            tbf_args(cfg["rate_down_mbit"], cfg["buffer_down_bytes"])
        self.anchor.cmd(" ".join(dn))
        for ue in self.ues:
            up = ["tc", "qdisc", verb, "dev", "%s-eth%d" % (ue.name, p), "root", "tbf"] + \
                tbf_args(cfg["rate_up_mbit"], cfg["buffer_up_bytes"])
            ue.cmd(" ".join(up))

    def _anchor_server(self):
        a = self.t["anchor_server"]
        for host, dev in ((self.anchor, PREFIX + "an-eth0"), (self.server, PREFIX + "sv-eth0")):
            if self.method == "netem" and a["delay_ms"]:
                host.cmd("tc qdisc replace dev %s root netem delay %sms rate %dkbit limit 100000"
                         % (dev, a["delay_ms"], int(a["rate_mbit"] * 1000)))
            else:
                host.cmd("tc qdisc replace dev %s root tbf %s"
                         % (dev, " ".join(tbf_args(a["rate_mbit"], a["buffer_bytes"]))))
        if self.ds is not None:
            for i in (0, 1):
                self.ds.cmd("ip link set %sds-eth%d up promisc on" % (PREFIX, i))
            args = [os.path.join(self.builddir, "delaybridge"), "-a", PREFIX + "ds-eth0",
                    "-b", PREFIX + "ds-eth1", "-d", str(a["delay_ms"]),
                    "-D", str(a["delay_ms"]), "-r", "10"]
            proc = self.ds.popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            self.procs.append(proc)
            self.bridges["server"] = proc

    # -- run-time changes (schedule) ---------------------------------------------------
    def apply_change(self, p, change):
        """Apply one schedule step to path p: keys rate_mbit / rate_down_mbit /
        rate_up_mbit, delay_ms / delay_down_ms / delay_up_ms, jitter_ms, loss_pct /
        loss_down_pct / loss_up_pct, down (bool)."""
        cfg = self.t["paths"][p - 1]
        if "down" in change:
            state = "down" if change["down"] else "up"
            for ue in self.ues:
                ue.cmd("ip link set %s-eth%d %s" % (ue.name, p, state))
            self.anchor.cmd("ip link set %san-eth%d %s" % (PREFIX, p, state))
            if not change["down"]:   # routes on a re-enabled link come back
                for k, ue in enumerate(self.ues, 1):
                    dev = "%s-eth%d" % (ue.name, p)
                    ue.cmd("ip route replace default via %s dev %s table %d"
                           % (path_addr(p), dev, 100 + p))
                    if p == 1:
                        ue.cmd("ip route replace default via %s dev %s" % (path_addr(p), dev))
        rate_changed = False
        for key in ("rate_down_mbit", "rate_up_mbit", "delay_down_ms", "delay_up_ms",
                    "loss_down_pct", "loss_up_pct", "jitter_ms"):
            if key in change:
                cfg[key] = change[key]
                rate_changed |= key.startswith("rate")
        if rate_changed:
            self._tbf(p, cfg, change=True)
        if self.method == "delaybridge":
            self.bridge_cmd(p, "ab delay=%s jitter=%s loss=%s" % (
                cfg["delay_up_ms"], cfg["jitter_ms"], cfg["loss_up_pct"]))
            self.bridge_cmd(p, "ba delay=%s jitter=%s loss=%s" % (
                cfg["delay_down_ms"], cfg["jitter_ms"], cfg["loss_down_pct"]))
        else:
            d = self.delays[p - 1]
            ports = len(self.ues)
            self._netem(p, "%s-eth0" % d.name, "dly0" if ports > 1 else "%s-eth1" % d.name,
                        cfg, change=True)

    def bridge_cmd(self, key, line):
        proc = self.bridges.get(key)
        if proc and proc.poll() is None:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()

    # -- tear-down -------------------------------------------------------------------
    def stop(self):
        """Stop delaybridges (collecting their counters), our processes, hosts, links."""
        stats = {}
        for key, proc in self.bridges.items():
            if proc.poll() is None:
                proc.terminate()
                try:
                    out, _ = proc.communicate(timeout=3)
                    last = out.strip().splitlines()[-1] if out.strip() else "{}"
                    try:
                        stats[str(key)] = json.loads(last)
                    except ValueError:
                        stats[str(key)] = {"unparsed": last}
                except (subprocess.TimeoutExpired, ValueError, OSError):
                    pass
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
        self.procs, self.bridges = [], {}
        if self.net is not None:
            for h in self.net.hosts:
                h.cmd("kill %% 2>/dev/null")
            try:
                self.net.stop()
            except Exception as e:    # keep tearing down; report
                self.log("topology stop: %s" % e)
            self.net = None
        cleanup_stale()
        return stats
