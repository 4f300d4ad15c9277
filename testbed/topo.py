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

Commands in the hosts' shells after start() go through Topology.cmd: one lock (the
schedule thread and the tear-down share the shells; Mininet's Host.cmd is not
thread-safe) and a time limit (Host.cmd waits for its sentinel forever, and a cmd cut
short by a signal leaves the shell "waiting", failing the next cmd's assertion).
stop() never blocks for long: it kills every process left in our hosts' namespaces
and reports what it cleaned (Topology.cleaned).
"""
import json
import copy
import os
import signal
import subprocess
import threading
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
    """Remove leftovers of a crashed run of ours: root-namespace links with our prefix.
    Returns their names."""
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True,
                         timeout=10).stdout
    gone = []
    for line in out.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith(PREFIX):
            subprocess.run(["ip", "link", "del", name], stderr=subprocess.DEVNULL, timeout=10)
            gone.append(name)
    return gone


CMD_TIMEOUT_S = 5.0        # one tc / ip command in a host's shell
REAP_S = 3.0               # a process we signalled has this long to exit


class CmdTimeout(RuntimeError):
    pass


def drain(host, timeout):
    """Finish a command left running in host's shell (a cmd interrupted by a signal):
    ^C, then read to its sentinel. False if the shell is gone or still busy."""
    if not host.shell:
        return False
    if host.waiting:
        host.sendInt()
        end = time.monotonic() + timeout
        while host.waiting and time.monotonic() < end:
            host.monitor(timeoutms=100)
    return not host.waiting


def host_cmd(host, line, timeout=CMD_TIMEOUT_S):
    """host.cmd(line) with a time limit; CmdTimeout names the host and the command."""
    if not drain(host, timeout):
        raise CmdTimeout("%s: shell busy or gone, '%s' not run" % (host.name, line))
    host.sendCmd(line)
    out, end = "", time.monotonic() + timeout
    while host.waiting:
        left = end - time.monotonic()
        if left <= 0:
            raise CmdTimeout("%s: '%s' did not finish within %g s" % (host.name, line, timeout))
        out += host.monitor(timeoutms=int(left * 1000) + 1)
    return out


def reap(proc, timeout=REAP_S):
    """Wait for a signalled process, SIGKILL after timeout; its return code or None."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def proc_name(proc):
    """'iperf3', 'sampler.py', ... of a Popen started by Host.popen (mnexec -da PID ...)."""
    args = [os.path.basename(str(a)) for a in proc.args[3:]] if isinstance(proc.args, list) \
        else [str(proc.args)]
    if len(args) > 1 and args[0].startswith("python"):
        return args[1]
    return args[0] if args else "pid %d" % proc.pid


def netns_inode(pid):
    try:
        return os.stat("/proc/%d/ns/net" % pid).st_ino
    except OSError:
        return None


def procs_in(inodes, exclude=()):
    """{pid: comm} of the processes whose network namespace is one of inodes."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in exclude or netns_inode(int(d)) not in inodes:
            continue
        try:
            with open("/proc/%s/comm" % d) as f:
                out[int(d)] = f.read().strip()
        except OSError:
            pass
    return out


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
        # a copy: schedule steps change it, and the next run starts from the scenario
        self.t = copy.deepcopy(topo)
        self.builddir = builddir
        self.seed = seed
        self.log = log
        self.method = "netem" if netem_available() else "delaybridge"
        self.net = None
        self.ues, self.delays, self.bridges = [], [], {}
        self.anchor = self.server = None
        self.procs = []          # every Popen we started, killed by stop()
        self.cleaned = []        # what stop() found running and stopped
        self._lock = threading.Lock()

    def cmd(self, host, line, timeout=CMD_TIMEOUT_S):
        """A command in host's shell, serialized with the other threads and bounded."""
        if not self._lock.acquire(timeout=timeout):
            raise CmdTimeout("%s: '%s': the shells stayed busy for %g s" % (host.name, line, timeout))
        try:
            return host_cmd(host, line, timeout)
        finally:
            self._lock.release()

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
                    "-m", str(cfg.get("mtu", 0)), "-M", str(cfg.get("mtu", 0)),
                    "-s", str(self.seed * 100 + p), "-r", "10"]
            if cfg.get("icmp") == "pass":   # the hop answers too-big packets (scenario.py)
                args += ["-i", "10.%d.0.254" % p]
            proc = d.popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
            self.procs.append(proc)
            self.bridges[p] = proc
        else:
            if cfg.get("mtu") or cfg.get("icmp") == "pass":
                raise RuntimeError("path %d: mtu needs the delaybridge (no netem)" % p)
            self._netem(p, ua, ue_side, cfg)

    def _netem(self, p, ua, ue_side, cfg, change=False):
        d = self.delays[p - 1]
        for dev, delay, loss in ((ua, cfg["delay_up_ms"], cfg["loss_up_pct"]),
                                 (ue_side, cfg["delay_down_ms"], cfg["loss_down_pct"])):
            jit = " %sms" % cfg["jitter_ms"] if cfg["jitter_ms"] else ""
            self.cmd(d, "tc qdisc %s dev %s root netem delay %sms%s loss %s%% limit 100000"
                  % ("change" if change else "replace", dev, delay, jit, loss))

    def _tbf(self, p, cfg, change=False):
        verb = "change" if change else "replace"
        dn = ["tc", "qdisc", verb, "dev", "%san-eth%d" % (PREFIX, p), "root", "tbf"] + \
            tbf_args(cfg["rate_down_mbit"], cfg["buffer_down_bytes"])
        self.cmd(self.anchor, " ".join(dn))
        for ue in self.ues:
            up = ["tc", "qdisc", verb, "dev", "%s-eth%d" % (ue.name, p), "root", "tbf"] + \
                tbf_args(cfg["rate_up_mbit"], cfg["buffer_up_bytes"])
            self.cmd(ue, " ".join(up))

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
                self.cmd(ue, "ip link set %s-eth%d %s" % (ue.name, p, state))
            self.cmd(self.anchor, "ip link set %san-eth%d %s" % (PREFIX, p, state))
            if not change["down"]:   # routes on a re-enabled link come back
                for k, ue in enumerate(self.ues, 1):
                    dev = "%s-eth%d" % (ue.name, p)
                    self.cmd(ue, "ip route replace default via %s dev %s table %d"
                             % (path_addr(p), dev, 100 + p))
                    if p == 1:
                        self.cmd(ue, "ip route replace default via %s dev %s"
                                 % (path_addr(p), dev))
        if "mtu" in change:
            cfg["mtu"] = change["mtu"]
            self.bridge_cmd(p, "both mtu=%d" % cfg["mtu"])
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
            try:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
            except OSError as e:       # it exited meanwhile: stop() reports it
                self.log("delaybridge %s: '%s' not delivered: %s" % (key, line, e))

    # -- tear-down -------------------------------------------------------------------
    def stop(self):
        """Stop delaybridges (collecting their counters), our processes, whatever else
        still runs in our hosts' namespaces, the hosts and links. Bounded in time;
        self.cleaned lists what was found running. Returns the bridges' counters."""
        stats, cleaned = {}, []
        for key, proc in self.bridges.items():
            if proc.poll() is not None:
                continue
            cleaned.append("delaybridge %s (pid %d)" % (key, proc.pid))
            proc.terminate()
            try:
                out, _ = proc.communicate(timeout=REAP_S)
                last = out.strip().splitlines()[-1] if out.strip() else "{}"
                try:
                    stats[str(key)] = json.loads(last)
                except ValueError:
                    stats[str(key)] = {"unparsed": last}
            except (subprocess.TimeoutExpired, ValueError, OSError) as e:
                self.log("delaybridge %s (pid %d): no counters (%s), killed" % (key, proc.pid, e))
                reap(proc, 0)
        for proc in self.procs:
            if proc.poll() is None:
                cleaned.append("%s (pid %d)" % (proc_name(proc), proc.pid))
                proc.kill()
                if reap(proc) is None:
                    self.log("pid %d survived SIGKILL for %g s" % (proc.pid, REAP_S))
        self.procs, self.bridges = [], {}
        if self.net is not None:
            cleaned += self._stop_hosts()
        cleaned += ["root-namespace link %s" % n for n in cleanup_stale()]
        self.cleaned = cleaned
        return stats

    def _stop_hosts(self):
        """Kill every process left in our hosts' namespaces (anything started there that
        we lost track of), then stop hosts and links."""
        cleaned = []
        shells = {h.pid for h in self.net.hosts if h.shell}
        inodes = {netns_inode(pid) for pid in shells} - {None, netns_inode(os.getpid())}
        for sig in (signal.SIGTERM, signal.SIGKILL):
            left = procs_in(inodes, exclude=shells)
            if sig == signal.SIGTERM:
                cleaned += ["%s (pid %d, found in a host)" % (c, pid) for pid, c in left.items()]
            for pid in left:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            end = time.monotonic() + REAP_S
            while procs_in(inodes, exclude=shells) and time.monotonic() < end:
                time.sleep(0.05)
        for h in self.net.hosts:
            if h.shell and not drain(h, CMD_TIMEOUT_S):
                self.log("host %s: shell stayed busy, terminated" % h.name)
                h.terminate()
        nh, nl = len(self.net.hosts), len(self.net.links)
        try:
            self.net.stop()
            cleaned.append("Mininet: %d hosts (namespaces), %d links" % (nh, nl))
        except Exception as e:    # keep tearing down; report
            self.log("topology stop: %s" % e)
        self.net = None
        return cleaned
