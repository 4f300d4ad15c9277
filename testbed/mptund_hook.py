# SPDX-License-Identifier: MIT
"""The mptund side of a testbed run: configs, daemons, and the `mptund-ctl watch` feed.

Contract used by run.py:

  h = start_mptund(topo, sched, sc, rundir, builddir, seed[, run=MptundRun()])
                     # may raise TunnelUnavailable; a given run holds what was started
  h.ue_addr          tunnel address of UE 1 (iperf3 binds to it)
  h.ctl_file         JSON lines written by `mptund-ctl watch` (parsed by parse_ctl_sample)
                     of the flow's sender; the receiver's goes beside it: with a
                     downlink flow the UE's (its reorder counters) to ctl-ue.jsonl,
                     with an uplink flow the anchor's to ctl-anchor.jsonl
  h.stop()           stops watchers and daemons, returns {"ue": rc, "anchor": rc}

The daemon: `mptund -c FILE` (foreground, logs to stderr), INI config (src/config/config.h).
"""
import os
import subprocess
import time

from topo import PREFIX, path_addr, tunnel_addr, reap, CmdTimeout

SERVER_NET = "10.100.0.0/24"

LISTEN_PORT = 51820
CTL_INTERVAL_MS = 100


class TunnelUnavailable(RuntimeError):
    """The run is skipped (not failed): the daemon is missing or not yet functional."""


def keypair(exe):
    """X25519 key pair (base64), from `mptund genkey` / `mptund pubkey`."""
    priv = subprocess.run([exe, "genkey"], capture_output=True, check=True,
                          text=True, timeout=10).stdout.strip()
    pub = subprocess.run([exe, "pubkey"], input=priv + "\n", capture_output=True,
                         check=True, text=True, timeout=10).stdout.strip()
    return priv, pub


def ue_config(k, sc, sched, priv, anchor_pub, seed):
    t = sc["topology"]
    lines = ["[Interface]", "Role = ue", "PrivateKey = %s" % priv, "Name = mpt0",
             "Address = %s/24" % tunnel_addr(k), "Route = %s" % SERVER_NET,
             "ControlSocket = /tmp/%sue%d-%d.sock" % (PREFIX, k, os.getpid()),
             "Seed = %d" % seed] + variant_params(sc, "interface_params", sched) + ["",
             "[Scheduler]", "Name = %s" % sched.split("@")[0]]
    lines += sched_params(sc, sched)
    lines += cc_section(sc, sched)
    for p, path in enumerate(t["paths"], 1):
        lines += ["[Path]", "Name = %s" % path["name"],
                  "Device = %s-eth%d" % (ue_dev_host(k), p),
                  "Endpoint = %s:%d" % (path_addr(p), LISTEN_PORT),
                  "Cost = %d" % int(path["cost"]), ""]
    lines += ["[Peer]", "PublicKey = %s" % anchor_pub, "AllowedIPs = %s" % SERVER_NET, ""]
    return "\n".join(lines)


def variant_params(sc, key, sched):
    """Config lines from sc[key]: "name@variant" uses sc[key]["name@variant"] if
    present, else sc[key]["name"] (variants: e.g. olms@pm, OLMS with the
    path-characteristic monitor, same scheduler, other tunables)."""
    sp = sc.get(key, {})
    params = sp.get(sched, sp.get(sched.split("@")[0], {}))
    return ["%s = %s" % (k, v) for k, v in params.items()]


def sched_params(sc, sched):
    """[Scheduler] tunables (scenario key scheduler_params)."""
    return variant_params(sc, "scheduler_params", sched)


def rule_sections(sc, sched):
    """[Rule] sections (scenario key rules: {"sched@variant": [{key: value}, ...]}),
    for the anchor's config: the anchor steers the downlink by them and pushes them to
    the UE for its uplink, as the network provides ATSSS rules. A list value repeats
    the key."""
    rules = sc.get("rules", {})
    out = []
    for rule in rules.get(sched, rules.get(sched.split("@")[0], [])):
        out += ["", "[Rule]"]
        for k, v in rule.items():
            out += ["%s = %s" % (k, x) for x in (v if isinstance(v, list) else [v])]
    return out + ([""] if out else [])


def cc_section(sc, sched):
    """[Congestion]: the tunnel controller and its tunables (scenario key cc_params)."""
    return (["", "[Congestion]", "Name = %s" % sc["tunnel_cc"]] +
            variant_params(sc, "cc_params", sched) + [""])


def ue_dev_host(k):
    return PREFIX + ("ue" if k == 1 else "u%d" % k)


def anchor_config(sc, sched, priv, ue_pubs, seed):
    lines = ["[Interface]", "Role = anchor", "PrivateKey = %s" % priv, "Name = mpt0",
             "Address = %s/24" % tunnel_addr(), "ListenPort = %d" % LISTEN_PORT,
             "ControlSocket = /tmp/%sanchor-%d.sock" % (PREFIX, os.getpid()),
             "Seed = %d" % (seed + 1000)] + variant_params(sc, "interface_params", sched) + ["",
             "[Scheduler]", "Name = %s" % sched.split("@")[0]]
    lines += sched_params(sc, sched)
    lines += cc_section(sc, sched)
    lines += rule_sections(sc, sched)
    for p, path in enumerate(sc["topology"]["paths"], 1):
        lines += ["[Path]", "Name = %s" % path["name"], "Cost = %d" % int(path["cost"]), ""]
    for k, pub in enumerate(ue_pubs, 1):
        lines += ["[Peer]", "Name = ue%d" % k, "PublicKey = %s" % pub,
                  "AllowedIPs = %s/32" % tunnel_addr(k), ""]
    return "\n".join(lines)


class MptundRun:
    def __init__(self):
        self.procs = []          # (name, Popen, logfile)
        self.ue_addr = tunnel_addr(1)
        self.ctl_file = None
        self.stopped = []

    def stop(self):
        """SIGTERM, SIGKILL after topo.REAP_S; {name: return code (None: still there)}.
        self.stopped lists what was running."""
        rcs = {}
        self.stopped = []
        for name, proc, log in reversed(self.procs):
            if proc.poll() is None:
                self.stopped.append("%s %s (pid %d)" % ("mptund-ctl watch" if name == "ctl"
                                                        else "mptund", name, proc.pid))
                proc.terminate()
                reap(proc)
            rcs[name] = proc.returncode
            if log:
                log.close()
        self.procs = []
        return rcs


def _wait_tun(topo, host, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if "mpt0" in topo.cmd(host, "ip -o link show mpt0 2>/dev/null",
                                  max(0.1, end - time.time())):
                return True
        except CmdTimeout:
            return False
        time.sleep(0.1)
    return False


def _wait_paths_up(topo, host, ctl, sock, npaths, timeout):
    """Until the session is established and every path is up (or timeout)."""
    import json
    end = time.time() + timeout
    while time.time() < end:
        try:
            out = topo.cmd(host, "%s -s %s --json stats 2>/dev/null" % (ctl, sock),
                           max(0.1, end - time.time()))
        except CmdTimeout:
            return False
        try:
            sess = json.loads(out)["session"][0]
            up = [p for p in sess.get("path", []) if p.get("state") == "up"]
            if sess.get("state") == "established" and len(up) >= npaths:
                return True
        except (ValueError, KeyError, IndexError, TypeError):
            pass
        time.sleep(0.1)
    return False


def start_mptund(topo, sched, sc, rundir, builddir, seed, run=None):
    exe = os.path.join(builddir, "mptund")
    ctl = os.path.join(builddir, "mptund-ctl")
    if not (os.access(exe, os.X_OK) and os.access(ctl, os.X_OK)):
        raise TunnelUnavailable("mptund or mptund-ctl not built in %s" % builddir)
    run = run or MptundRun()
    try:
        a_priv, a_pub = keypair(exe)
        ues = [keypair(exe) for _ in topo.ues]
        cfgs = {"anchor": anchor_config(sc, sched, a_priv, [u[1] for u in ues], seed)}
        for k, (priv, _) in enumerate(ues, 1):
            cfgs["ue%d" % k] = ue_config(k, sc, sched, priv, a_pub, seed + k)
        hosts = {"anchor": topo.anchor}
        hosts.update({"ue%d" % k: ue for k, ue in enumerate(topo.ues, 1)})
        for name in ["anchor"] + ["ue%d" % k for k in range(1, len(topo.ues) + 1)]:
            path = os.path.join(rundir, "mptund-%s.conf" % name)
            with open(path, "w") as f:
                f.write(cfgs[name])
            os.chmod(path, 0o600)
            log = open(os.path.join(rundir, "mptund-%s.log" % name), "w")
            proc = hosts[name].popen([exe, "-c", path], stdout=log, stderr=subprocess.STDOUT)
            run.procs.append((name, proc, log))
            time.sleep(0.2)
            if proc.poll() is not None:
                raise TunnelUnavailable("mptund (%s) exited with %s at start, see %s"
                                        % (name, proc.returncode, log.name))
        for k, ue in enumerate(topo.ues, 1):
            if not _wait_tun(topo, ue, 5):
                raise TunnelUnavailable("mptund (ue%d) did not create mpt0 within 5 s" % k)
        ue_sock = "/tmp/%sue1-%d.sock" % (PREFIX, os.getpid())
        an_sock = "/tmp/%sanchor-%d.sock" % (PREFIX, os.getpid())
        npaths = len(sc["topology"]["paths"])
        for k, ue in enumerate(topo.ues, 1):
            sock = "/tmp/%sue%d-%d.sock" % (PREFIX, k, os.getpid())
            if not _wait_paths_up(topo, ue, ctl, sock, npaths, 10):
                raise TunnelUnavailable("mptund (ue%d): session or paths not up within "
                                        "10 s, see mptund-ue%d.log" % (k, k))
        # Observe the sender of UE 1's flow (the anchor for a downlink, session 0 is
        # UE 1 there): one JSON line per sample.
        down = sc["flow"].get("direction", "down") == "down"
        host, sock = (topo.anchor, an_sock) if down else (topo.ues[0], ue_sock)
        run.ctl_file = os.path.join(rundir, "ctl.jsonl")
        out = open(run.ctl_file, "w")
        proc = host.popen([ctl, "-s", sock, "watch", "--interval", str(CTL_INTERVAL_MS),
                           "--json"], stdout=out, stderr=subprocess.DEVNULL)
        run.procs.append(("ctl", proc, out))
        # the receiver's watch too: the UE's for a downlink (its reorder counters,
        # an uplink probe's sender: ctl-ue.jsonl), the anchor's for an uplink
        # (ctl-anchor.jsonl); each side's ACK bytes for the other's data (issue 22)
        rhost, rsock, rname = ((topo.ues[0], ue_sock, "ctl-ue.jsonl") if down else
                               (topo.anchor, an_sock, "ctl-anchor.jsonl"))
        out = open(os.path.join(rundir, rname), "w")
        proc = rhost.popen([ctl, "-s", rsock, "watch", "--interval", str(CTL_INTERVAL_MS),
                            "--json"], stdout=out, stderr=subprocess.DEVNULL)
        run.procs.append(("ctl", proc, out))
        return run
    except BaseException:     # also an interruption (SIGTERM, Ctrl-C) during start
        run.stop()
        raise


def parse_ctl_sample(line):
    """One `mptund-ctl watch --json` line -> {"t": s, "paths": {name: {...}}, "sched"}
    or None. The line is the daemon's key tree: {"time_ms", "daemon", "session": [
    {"sched", "path": [{"name", "cwnd_bytes", "srtt_us", ...}], "sched_stat": {...}}]};
    session 0 is the observed one. Units: cwnd bytes, srtt ms, bytes, bytes/s."""
    import json
    try:
        o = json.loads(line)
        sess = o["session"][0]
        t = o["time_ms"] / 1e3
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    stat = sess.get("sched_stat", {}) if isinstance(sess.get("sched_stat"), dict) else {}
    out = {}
    for i, p in enumerate(sess.get("path", []) or []):
        if not isinstance(p, dict) or "name" not in p:
            continue

        def per_path(key):
            v = stat.get(key)
            return v[i] if isinstance(v, list) and i < len(v) else None
        out[str(p["name"])] = {
            "cwnd": p.get("cwnd_bytes"),
            "srtt_ms": p["srtt_us"] / 1e3 if isinstance(p.get("srtt_us"), (int, float))
            else None,
            "inflight": p.get("in_flight_bytes"),
            "tx_bytes": p.get("sent_bytes"),
            "btlbw": p.get("btlbw_bytes_per_s"),
            "state": p.get("state"),
            "cc_state": p.get("cc_state"),
            "cw_frac": per_path("cw_frac"),
            "live_cwnd": per_path("live_cwnd"),
        }
    return {"t": t, "paths": out, "sched": sess.get("sched")}
