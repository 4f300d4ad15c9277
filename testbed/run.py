# SPDX-License-Identifier: MIT
"""Scenario runner: /usr/bin/python3 testbed/run.py [options] SCENARIO.json...

For each run (scheduler x end-to-end CC x repetition) it builds the topology, sets up
the transport (plain TCP on one path, kernel MPTCP over all paths, or mptund), runs the
flow, samples the UE's per-path counters and the server's `ss -ti` every 100 ms,
applies the paths' schedules, tears everything down (also on Ctrl-C or an exception),
and writes one directory per batch:

  results/NAME-YYYYmmdd-HHMMSS/  scenario.json  summary.csv  summary.json  *.png
    runs/ID/  meta.json (incl. delaybridge counters) iperf[K].json samples-ue[K].jsonl
              samples-server.jsonl timeseries.png
              [ctl.jsonl mptund-*.conf mptund-*.log]

Run kinds: "single:PATH" = TCP bound to the UE's address on PATH, no tunnel;
"mptcp" = kernel MPTCP (IPPROTO_MPTCP, a subflow endpoint per path); anything else is
an mptund scheduler name (see mptund_hook.start_mptund).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario as scn                      # noqa: E402
import results                              # noqa: E402
from topo import Topology, path_addr, SERVER_ADDR, HERE   # noqa: E402
from mptund_hook import start_mptund, TunnelUnavailable   # noqa: E402

PY = "/usr/bin/python3"
IPERF_PORT = 5201
BULK_PORT = 5301


class Interrupted(Exception):
    pass


def _sigterm(*_):
    raise Interrupted()


def setup_mptcp(topo):
    """Kernel MPTCP: a subflow endpoint per extra path on each UE, limits raised."""
    n = len(topo.t["paths"])
    for h in [topo.server] + topo.ues:
        h.cmd("sysctl -qw net.mptcp.enabled=1")
        h.cmd("ip mptcp limits set subflow %d add_addr_accepted %d" % (min(n, 8), min(n, 8)))
    for k, ue in enumerate(topo.ues, 1):
        for p in range(2, n + 1):
            ue.cmd("ip mptcp endpoint add %s dev %s-eth%d subflow"
                   % (path_addr(p, k), ue.name, p))


def schedule_thread(topo, duration, t_start, stop_ev, log):
    events = []
    for p, cfg in enumerate(topo.t["paths"], 1):
        events += [(t, p, ch) for t, ch in scn.schedule_events(cfg, duration)]
    events.sort(key=lambda e: e[0])

    def loop():
        for t, p, ch in events:
            if stop_ev.wait(max(0.0, t_start + t - time.time())):
                return
            topo.apply_change(p, ch)
            log.append({"t": time.time(), "path": p, "change": ch})
    th = threading.Thread(target=loop, daemon=True)
    th.start()
    return th


def flow_cmd(kind, sc, run, bind, port):
    fl = sc["flow"]
    if kind == "mptcp":
        cmd = [PY, os.path.join(HERE, "bulk.py"), "client", "--connect", SERVER_ADDR,
               "--port", str(port), "-C", run["cc"]]
        cmd += ["--bytes", str(int(fl["size_mb"] * 1e6))] if fl["type"] == "transfer" \
            else ["--time", str(fl["duration_s"])]
        return cmd + (["--reverse"] if fl["direction"] == "down" else [])
    cmd = ["iperf3", "-c", SERVER_ADDR, "-p", str(port), "-J", "-C", run["cc"],
           "-P", str(fl["parallel"]), "-i", "0.1", "--connect-timeout", "5000"]
    if bind:
        cmd += ["-B", bind]
    cmd += ["-n", str(int(fl["size_mb"] * 1e6))] if fl["type"] == "transfer" \
        else ["-t", str(fl["duration_s"])]
    return cmd + (["-R"] if fl["direction"] == "down" else [])


def one_run(sc, run, rundir, builddir, log):
    kind = scn.kind(run["sched"])
    names = [p["name"] for p in sc["topology"]["paths"]]
    topo = Topology(sc["topology"], builddir, seed=run["seed"], log=log)
    meta = dict(run, kind=kind, direction=sc["flow"]["direction"],
                flow_type=sc["flow"]["type"], status="ok", flow_start=0, flow_end=0)
    samplers, tun, sched_log, stop_ev = [], None, [], threading.Event()
    try:
        topo.start()
        meta["method"] = topo.method
        meta["ifaces"] = {n: "%s-eth%d" % (topo.ues[0].name, p) for p, n in enumerate(names, 1)}
        meta["ues"] = len(topo.ues)
        bind = None
        if kind == "single":
            p = names.index(run["sched"][7:]) + 1
            bind = path_addr(p, 1)
        elif kind == "mptcp":
            setup_mptcp(topo)
        else:
            tun = start_mptund(topo, run["sched"], sc, rundir, builddir, run["seed"])
            bind = tun.ue_addr
        port = BULK_PORT if kind == "mptcp" else IPERF_PORT
        for k in range(len(topo.ues)):     # one server per UE, ports port+k
            srv = [PY, os.path.join(HERE, "bulk.py"), "server", "--port", str(port + k)] \
                if kind == "mptcp" else ["iperf3", "-s", "-1", "-p", str(port + k)]
            topo.procs.append(topo.server.popen(srv, stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL))
        sampled = [(ue, "samples-ue%s.jsonl" % ("" if k == 1 else k),
                    ["--ifaces", ",".join("%s-eth%d" % (ue.name, p)
                                          for p in range(1, len(names) + 1))])
                   for k, ue in enumerate(topo.ues, 1)]
        ports = " or ".join("sport = :%d" % (port + k) for k in range(len(topo.ues)))
        for host, name, extra in sampled + [
                (topo.server, "samples-server.jsonl", ["--ss", "( %s )" % ports])]:
            pr = host.popen([PY, os.path.join(HERE, "sampler.py"), "--out",
                             os.path.join(rundir, name), "--interval", "0.1"] + extra)
            samplers.append(pr)
            topo.procs.append(pr)
        time.sleep(0.5)
        fl = sc["flow"]
        limit = fl["duration_s"] + 30 if fl["type"] == "greedy" else fl["timeout_s"]
        meta["flow_start"] = time.time()
        schedule_thread(topo, limit, meta["flow_start"], stop_ev, sched_log)
        clients = []
        for k, ue in enumerate(topo.ues, 1):
            b = bind.replace(".11", ".%d" % (10 + k)) if bind and k > 1 else bind
            cl = ue.popen(flow_cmd(kind, sc, run, b, port + k - 1), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
            topo.procs.append(cl)
            clients.append(cl)
        deadline = time.time() + limit
        for k, cl in enumerate(clients, 1):
            try:
                out, err = cl.communicate(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                cl.kill()
                out, err = cl.communicate()
                meta["status"] = "timeout"
            with open(os.path.join(rundir, "iperf%s.json" % ("" if k == 1 else k)), "w") as f:
                f.write(out)
            if cl.returncode != 0 and meta["status"] == "ok":
                meta["status"] = "flow-failed"
                meta["error"] = "ue%d: %s" % (k, (err or out)[-500:])
        meta["flow_end"] = time.time()
        time.sleep(0.3)
    except TunnelUnavailable as e:
        meta["status"] = "skipped"
        meta["error"] = str(e)
    finally:
        stop_ev.set()
        for pr in samplers:
            if pr.poll() is None:
                pr.terminate()
                try:
                    pr.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pr.kill()
        if tun is not None:
            meta["mptund_rc"] = tun.stop()
        meta["bridges"] = topo.stop()
        meta["schedule_applied"] = sched_log
        with open(os.path.join(rundir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    return meta


def apply_overrides(sc, duration, size_mb):
    """--duration / --size-mb: a greedy flow runs `duration` seconds; a transfer is
    given at most `duration` seconds and, with size_mb, a smaller size."""
    fl = sc["flow"]
    if duration:
        fl["timeout_s" if fl["type"] == "transfer" else "duration_s"] = duration
    if size_mb:
        if fl["type"] != "transfer":
            raise scn.ScenarioError("%s: --size-mb '%g': the flow is not a transfer"
                                    % (sc["name"], size_mb))
        fl["size_mb"] = size_mb


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "results"))
    ap.add_argument("--sched", action="append", help="only these schedulers (repeatable)")
    ap.add_argument("--cc", action="append", help="only these CCs (repeatable)")
    ap.add_argument("--reps", type=int, help="override repetitions")
    ap.add_argument("--duration", type=float, metavar="S",
                    help="greedy flows: override flow.duration_s; transfers: override "
                    "flow.timeout_s (the transfer is cut there and reported as 'timeout')")
    ap.add_argument("--size-mb", type=float, metavar="MB",
                    help="transfers: override flow.size_mb")
    ap.add_argument("--no-plots", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run.py: needs root (network namespaces)")
    signal.signal(signal.SIGTERM, _sigterm)
    rc = 0
    for path in a.scenarios:
        try:
            sc = scn.load(path)
            apply_overrides(sc, a.duration, a.size_mb)
        except (scn.ScenarioError, OSError) as e:
            sys.exit("run.py: %s" % e)
        runs = scn.runs(sc, a.sched, a.cc, a.reps)
        outdir = os.path.join(a.out, "%s-%s" % (sc["name"], time.strftime("%Y%m%d-%H%M%S")))
        os.makedirs(os.path.join(outdir, "runs"), exist_ok=True)
        with open(os.path.join(outdir, "scenario.json"), "w") as f:
            json.dump(sc, f, indent=1)
        rows, logs, skipped = [], [], set()
        t_batch = time.time()
        try:
            for i, run in enumerate(runs):
                rundir = os.path.join(outdir, "runs", run["id"])
                os.makedirs(rundir, exist_ok=True)
                eta = (time.time() - t_batch) / i * (len(runs) - i) if i else 0
                sys.stderr.write("\r[%s] run %d/%d %-28s eta %4.0fs " % (
                    sc["name"], i + 1, len(runs), run["id"], eta))
                sys.stderr.flush()
                if run["sched"] in skipped:    # the daemon failed for it once: do not retry
                    rows.append({"run": run["id"], "sched": run["sched"], "cc": run["cc"],
                                 "rep": run["rep"], "method": None, "status": "skipped"})
                    continue
                meta = one_run(sc, run, rundir, a.build, logs.append)
                rows.append(results.run_metrics(rundir, meta, sc["constraints"])
                            if meta["status"] == "ok" else
                            {"run": run["id"], "sched": run["sched"], "cc": run["cc"],
                             "rep": run["rep"], "method": meta.get("method"),
                             "status": meta["status"]})
                if meta["status"] not in ("ok", "skipped"):
                    rc = 1
                    sys.stderr.write("\n  %s: %s %s\n" % (run["id"], meta["status"],
                                                          meta.get("error", "")))
                elif meta["status"] == "skipped" and run["sched"] not in skipped:
                    skipped.add(run["sched"])
                    sys.stderr.write("\n  %s: skipped: %s\n" % (run["sched"], meta["error"]))
        except (KeyboardInterrupt, Interrupted):
            sys.stderr.write("\ninterrupted: partial results kept\n")
            rc = 130
        sys.stderr.write("\n")
        paths = [p["name"] for p in sc["topology"]["paths"]]
        agg = results.write_summary(outdir, rows)
        table = results.format_table(agg, paths)
        method = rows[0].get("method") if rows else "?"
        with open(os.path.join(outdir, "summary.txt"), "w") as f:
            f.write("scenario %s, delay method %s\n%s\n" % (sc["name"], method, table))
        print("scenario %s, delay method %s, results in %s\n%s" % (sc["name"], method,
                                                                   outdir, table))
        if not a.no_plots:
            subprocess.run([PY, os.path.join(HERE, "plot.py"), outdir])
        if rc == 130:
            break
    return rc


if __name__ == "__main__":
    sys.exit(main())
