# SPDX-License-Identifier: MIT
"""The mptund side of a testbed run: configs, daemons, and the `mptund-ctl watch` feed.

THE LEAD FILLS IN what the daemon needs here; everything else in the testbed already
works without it. Contract used by run.py:

  h = start_mptund(topo, sched, sc, rundir, builddir, seed)   # may raise TunnelUnavailable
  h.ue_addr          tunnel address of UE 1 (iperf3 binds to it)
  h.ctl_file         JSON lines written by `mptund-ctl watch` (parsed by parse_ctl_sample)
  h.stop()           stops watchers and daemons, returns {"ue": rc, "anchor": rc}

The daemon: `mptund -c FILE` (foreground, logs to stderr), INI config (src/config.h).
"""
import base64
import os
import subprocess
import time

from topo import PREFIX, path_addr, tunnel_addr

SERVER_NET = "10.100.0.0/24"

LISTEN_PORT = 51820
CTL_INTERVAL_MS = 100


class TunnelUnavailable(RuntimeError):
    """The run is skipped (not failed): the daemon is missing or not yet functional."""


def keypair():
    """X25519 key pair as base64 of the raw 32 bytes, via openssl."""
    der = subprocess.run(["openssl", "genpkey", "-algorithm", "X25519", "-outform", "DER"],
                         capture_output=True, check=True).stdout
    pub = subprocess.run(["openssl", "pkey", "-inform", "DER", "-pubout", "-outform", "DER"],
                         input=der, capture_output=True, check=True).stdout
    return base64.b64encode(der[-32:]).decode(), base64.b64encode(pub[-32:]).decode()


def ue_config(k, sc, sched, priv, anchor_pub, seed):
    t = sc["topology"]
    lines = ["[Interface]", "Role = ue", "PrivateKey = %s" % priv, "Name = mpt0",
             "Address = %s/24" % tunnel_addr(k), "Route = %s" % SERVER_NET,
             "ControlSocket = /tmp/%sue%d-%d.sock" % (PREFIX, k, os.getpid()),
             "Seed = %d" % seed, "",
             "[Scheduler]", "Name = %s" % sched.split("@")[0]]
    lines += sched_params(sc, sched)
    lines += ["", "[Congestion]", "Name = %s" % sc["tunnel_cc"], ""]
    for p, path in enumerate(t["paths"], 1):
        lines += ["[Path]", "Name = %s" % path["name"],
                  "Device = %s-eth%d" % (ue_dev_host(k), p),
                  "Endpoint = %s:%d" % (path_addr(p), LISTEN_PORT),
                  "Cost = %d" % int(path["cost"]), ""]
    lines += ["[Peer]", "PublicKey = %s" % anchor_pub, "AllowedIPs = %s" % SERVER_NET, ""]
    return "\n".join(lines)


def sched_params(sc, sched):
    """[Scheduler] tunables: "name@variant" uses scheduler_params["name@variant"] if
    present, else scheduler_params["name"] (variants: e.g. olms@pm, OLMS with the
    path-characteristic monitor, same scheduler, other tunables)."""
    sp = sc.get("scheduler_params", {})
    params = sp.get(sched, sp.get(sched.split("@")[0], {}))
    return ["%s = %s" % (k, v) for k, v in params.items()]


def ue_dev_host(k):
    return PREFIX + ("ue" if k == 1 else "u%d" % k)


def anchor_config(sc, sched, priv, ue_pubs, seed):
    lines = ["[Interface]", "Role = anchor", "PrivateKey = %s" % priv, "Name = mpt0",
             "Address = %s/24" % tunnel_addr(), "ListenPort = %d" % LISTEN_PORT,
             "ControlSocket = /tmp/%sanchor-%d.sock" % (PREFIX, os.getpid()),
             "Seed = %d" % (seed + 1000), "",
             "[Scheduler]", "Name = %s" % sched.split("@")[0]]
    lines += sched_params(sc, sched)
    lines += ["", "[Congestion]", "Name = %s" % sc["tunnel_cc"], ""]
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

    def stop(self):
        rcs = {}
        for name, proc, log in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            rcs[name] = proc.returncode
            if log:
                log.close()
        self.procs = []
        return rcs


def _wait_tun(host, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if "mpt0" in host.cmd("ip -o link show mpt0 2>/dev/null"):
            return True
        time.sleep(0.1)
    return False


def start_mptund(topo, sched, sc, rundir, builddir, seed):
    exe = os.path.join(builddir, "mptund")
    ctl = os.path.join(builddir, "mptund-ctl")
    if not (os.access(exe, os.X_OK) and os.access(ctl, os.X_OK)):
        raise TunnelUnavailable("mptund or mptund-ctl not built in %s" % builddir)
    run = MptundRun()
    try:
        a_priv, a_pub = keypair()
        ues = [keypair() for _ in topo.ues]
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
            if not _wait_tun(ue, 5):
                raise TunnelUnavailable("mptund (ue%d) did not create mpt0 within 5 s" % k)
        # Observe UE 1: one JSON line per sample.
        sock = "/tmp/%sue1-%d.sock" % (PREFIX, os.getpid())
        run.ctl_file = os.path.join(rundir, "ctl.jsonl")
        out = open(run.ctl_file, "w")
        proc = topo.ues[0].popen([ctl, "-s", sock, "watch", "--interval", str(CTL_INTERVAL_MS),
                                  "--json"], stdout=out, stderr=subprocess.DEVNULL)
        run.procs.append(("ctl", proc, out))
        # TODO(lead): wait for the handshake/paths up (e.g. a first watch sample with
        # paths in state "up") before run.py starts traffic.
        return run
    except Exception:
        run.stop()
        raise


def parse_ctl_sample(line):
    """One `mptund-ctl watch --json` line -> {"t": s, "paths": {name: {...}}} or None.
    Tolerant: paths as a list (with "name") or a dict; per-path keys under several
    spellings; unknown keys ignored. Units normalised: cwnd bytes, srtt ms, bytes."""
    import json
    try:
        o = json.loads(line)
    except ValueError:
        return None
    if not isinstance(o, dict):
        return None
    t = o.get("t", o.get("time", o.get("ts", o.get("timestamp"))))
    if isinstance(t, (int, float)) and t > 1e12:      # ns or ms since the epoch
        t = t / 1e9 if t > 1e15 else t / 1e3
    paths = o.get("paths", o.get("path", []))
    if isinstance(paths, dict):
        paths = [dict(v, name=v.get("name", k)) for k, v in paths.items() if isinstance(v, dict)]
    out = {}
    for i, p in enumerate(paths if isinstance(paths, list) else []):
        if not isinstance(p, dict):
            continue
        name = str(p.get("name", "path%d" % (i + 1)))

        def pick(*keys, scale=1.0):
            for k in keys:
                v = p.get(k)
                if isinstance(v, (int, float)):
                    return v * scale
            return None
        out[name] = {
            "cwnd": pick("cwnd", "cwnd_bytes"),
            "srtt_ms": pick("srtt_ms", "rtt_ms") if pick("srtt_ms", "rtt_ms") is not None
            else pick("srtt_us", "rtt_us", scale=1e-3) if pick("srtt_us", "rtt_us") is not None
            else pick("srtt_ns", "rtt_ns", "srtt", scale=1e-6),
            "inflight": pick("inflight", "bytes_in_flight", "in_flight"),
            "tx_bytes": pick("tx_bytes", "bytes_sent", "sent_bytes"),
            "btlbw": pick("btlbw", "btlbw_bps", "bw", "rate"),
            "state": p.get("state"),
        }
    return {"t": t, "paths": out, "sched": o.get("sched", o.get("scheduler"))}
