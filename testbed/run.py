# SPDX-License-Identifier: MIT
"""Scenario runner: /usr/bin/python3 testbed/run.py [options] SCENARIO.json...

For each run (scheduler x end-to-end CC x repetition) it builds the topology, sets up
the transport (plain TCP on one path, kernel MPTCP over all paths, or mptund), runs the
flow, samples the UE's per-path counters and the server's `ss -ti` every 100 ms,
applies the paths' schedules, tears everything down (also on Ctrl-C, SIGTERM or an
exception: mptund, iperf3, samplers, delaybridges, every other process left in the
hosts, the Mininet hosts and links; it prints what it stopped), and writes one
directory per batch:

  results/NAME-YYYYmmdd-HHMMSS/  scenario.json  summary.csv  summary.json  *.png
    runs/ID/  meta.json (incl. delaybridge counters) iperf[K].json samples-ue[K].jsonl
              samples-server.jsonl timeseries.png
              [ctl.jsonl ctl-ue.jsonl|ctl-anchor.jsonl mptund-*.conf mptund-*.log]

Run kinds: "single:PATH" = TCP bound to the UE's address on PATH, no tunnel;
"mptcp" = kernel MPTCP (IPPROTO_MPTCP, a subflow endpoint per path); anything else is
an mptund scheduler name (see mptund_hook.start_mptund).

Every wait is bounded: a flow gets flow_limit() (from the scenario's duration or a
transfer's timeout_s), each command in a host's shell topo.CMD_TIMEOUT_S, each process
we stop topo.REAP_S; what did not finish is named in meta.json's "error".
"""
import argparse
import contextlib
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
from topo import Topology, path_addr, SERVER_ADDR, HERE, reap, proc_name, \
    CMD_TIMEOUT_S  # noqa: E402
from mptund_hook import start_mptund, MptundRun, TunnelUnavailable   # noqa: E402

PY = "/usr/bin/python3"
IPERF_PORT = 5201
BULK_PORT = 5301


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGINT: the Ctrl-C path, so every run's finally block tears down."""


class Signals:
    """SIGTERM and SIGINT raise Interrupted. Inside deferred() (a tear-down) a signal is
    only recorded and raised when the block ends, so a second signal (an impatient
    user, `timeout`, a CI runner) cannot cut the tear-down short."""

    def __init__(self):
        self.depth, self.pending = 0, None
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._handler)

    def _handler(self, signum, _frame):
        if self.depth:
            self.pending = signum
            return
        raise Interrupted(signal.Signals(signum).name)

    @contextlib.contextmanager
    def deferred(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending:
                sig, self.pending = self.pending, None
                raise Interrupted(signal.Signals(sig).name)


def flow_limit(fl):
    """Seconds a flow may take: a transfer its timeout_s; a greedy flow its duration
    plus the connection set-up and iperf3's closing exchange (at least 10 s, and half
    the duration for long runs)."""
    if fl["type"] == "transfer":
        return fl["timeout_s"]
    return fl["duration_s"] + max(10.0, 0.5 * fl["duration_s"])


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
            try:
                topo.apply_change(p, ch)
                log.append({"t": time.time(), "path": p, "change": ch})
            except Exception as e:      # a failed step is recorded, the schedule goes on
                log.append({"t": time.time(), "path": p, "change": ch, "error": str(e)})
    th = threading.Thread(target=loop, name="schedule", daemon=True)
    th.start()
    return th


def flow_cmd(kind, sc, run, bind, port):
    fl = sc["flow"]
    if kind == "mptcp":
        cmd = [PY, os.path.join(HERE, "bulk.py"), "client", "--connect", SERVER_ADDR,
               "--port", str(port), "-C", run["cc"]]
        cmd += ["--bytes", str(int(fl["size_mb"] * 1e6))] if fl["type"] == "transfer" \
            else ["--time", str(fl["duration_s"])]
        if fl.get("bitrate_mbit"):
            cmd += ["--rate-mbit", str(fl["bitrate_mbit"])]
        return cmd + (["--reverse"] if fl["direction"] == "down" else [])
    cmd = ["iperf3", "-c", SERVER_ADDR, "-p", str(port), "-J", "-C", run["cc"],
           "-P", str(fl["parallel"]), "-i", "0.1", "--connect-timeout", "5000"]
    if bind:
        cmd += ["-B", bind]
    if fl.get("bitrate_mbit"):
        cmd += ["-b", "%gM" % fl["bitrate_mbit"]]
    cmd += ["-n", str(int(fl["size_mb"] * 1e6))] if fl["type"] == "transfer" \
        else ["-t", str(fl["duration_s"])]
    return cmd + (["-R"] if fl["direction"] == "down" else [])


def start_probes(topo, sc, kind, bind, builddir):
    """Start the scenario's side flows (scenario.py 'probes'); [(probe, receiver or
    None, sender)]. A voice flow runs testbed/owdprobe (receiver first); a ping runs
    rttprobe on the UE. Each waits start_s in a shell before it starts."""
    ue, out = topo.ues[0], []
    ue_addr = bind or path_addr(1, 1)
    for pr in sc["probes"]:
        wait = "sleep %g; exec " % pr["start_s"]
        if pr["type"] == "ping":
            n = max(1, int(pr["duration_s"] * 1000 / pr["interval_ms"]))
            cmd = "%s%s -j -c %d -i %g -W 1 %s %s" % (
                wait, os.path.join(builddir, "rttprobe"), n, pr["interval_ms"] / 1000,
                "-B %s" % bind if bind else "", SERVER_ADDR)
            out.append((pr, None, ue.popen(["sh", "-c", cmd], stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, text=True)))
            continue
        prog = os.path.join(builddir, "owdprobe")
        up = pr["direction"] == "up"
        rx_host, tx_host = (topo.server, ue) if up else (ue, topo.server)
        rx = rx_host.popen([prog, "recv", "-W", "3", "-d",
                            "%g" % (pr["start_s"] + pr["duration_s"] + 30), str(pr["port"])],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        src = ("-B %s " % bind) if up and bind else ""
        cmd = "%s%s send -r %g -l %d -d %g -T %d %s%s %d" % (
            wait, prog, pr["rate_kbit"], pr["len"], pr["duration_s"], pr["tos"], src,
            SERVER_ADDR if up else ue_addr, pr["port"])
        tx = tx_host.popen(["sh", "-c", cmd], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        out.append((pr, rx, tx))
    topo.procs += [p for _, rx, tx in out for p in (rx, tx) if p]
    return out


def collect_probes(probes, deadline, meta, rundir):
    """Wait (bounded) for each probe's result; probe-NAME.json, meta["probes"]."""
    meta["probes"] = {}
    for pr, rx, tx in probes:
        res = rx or tx
        try:
            tx.wait(timeout=max(1.0, deadline - time.time()))
            outp, err = res.communicate(timeout=max(5.0, deadline + 10 - time.time()))
            data = json.loads(outp.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, ValueError, IndexError) as e:
            data = {"error": "%s: %s" % (type(e).__name__, e)}
        data["type"] = pr["type"]
        meta["probes"][pr["name"]] = data
        with open(os.path.join(rundir, "probe-%s.json" % pr["name"]), "w") as f:
            json.dump(data, f)


def wait_clients(clients, limit, deadline, meta, rundir, what):
    """Collect the flow clients' output; one not done by the deadline is killed and the
    run marked "timeout" with an error naming it."""
    for k, cl in enumerate(clients, 1):
        try:
            out, err = cl.communicate(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            cl.kill()
            try:
                out, err = cl.communicate(timeout=CMD_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                out, err = "", ""
            if meta["status"] == "ok":
                meta["status"] = "timeout"
                meta["error"] = "ue%d: %s (pid %d) did not finish within %.0f s, killed" % (
                    k, what, cl.pid, limit)
        with open(os.path.join(rundir, "iperf%s.json" % ("" if k == 1 else k)), "w") as f:
            f.write(out or "")
        if cl.returncode != 0 and meta["status"] == "ok":
            meta["status"] = "flow-failed"
            meta["error"] = "ue%d: %s" % (k, (err or out or "exit %s" % cl.returncode)[-500:])


def one_run(sc, run, rundir, builddir, log, signals):
    kind = scn.kind(run["sched"])
    names = [p["name"] for p in sc["topology"]["paths"]]
    topo = Topology(sc["topology"], builddir, seed=run["seed"], log=log)
    meta = dict(run, kind=kind, direction=sc["flow"]["direction"],
                costs={p["name"]: p["cost"] for p in sc["topology"]["paths"]},
                rates={p["name"]: p["rate_%s_mbit" % sc["flow"]["direction"]]
                       for p in sc["topology"]["paths"]},
                flow_type=sc["flow"]["type"], status="ok", flow_start=0, flow_end=0)
    samplers, tun, sched_log, stop_ev = [], MptundRun(), [], threading.Event()
    sched_th, errors = None, []
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
            start_mptund(topo, run["sched"], sc, rundir, builddir, run["seed"], run=tun)
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
                             os.path.join(rundir, name), "--interval", "0.1"] + extra,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            samplers.append(pr)
            topo.procs.append(pr)
        time.sleep(0.5)
        fl = sc["flow"]
        limit = flow_limit(fl)
        meta["flow_start"] = time.time()
        sched_th = schedule_thread(topo, limit, meta["flow_start"], stop_ev, sched_log)
        probes = start_probes(topo, sc, kind, bind, builddir)
        clients = []
        for k, ue in enumerate(topo.ues, 1):
            b = bind.replace(".11", ".%d" % (10 + k)) if bind and k > 1 else bind
            cl = ue.popen(flow_cmd(kind, sc, run, b, port + k - 1), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
            topo.procs.append(cl)
            clients.append(cl)
        wait_clients(clients, limit, meta["flow_start"] + limit, meta, rundir,
                     "bulk.py client" if kind == "mptcp" else "iperf3 client")
        meta["flow_end"] = time.time()
        collect_probes(probes, meta["flow_start"] + max(
            [pr["start_s"] + pr["duration_s"] + 5 for pr, _, _ in probes] or [0]), meta, rundir)
        time.sleep(0.3)
    except TunnelUnavailable as e:
        meta["status"] = "skipped"
        meta["error"] = str(e)
    except KeyboardInterrupt as e:
        meta["status"] = "interrupted"
        meta["error"] = str(e) or "SIGINT"
        raise
    except Exception as e:      # the batch goes on; the run's error names the cause
        meta["status"] = "error"
        meta["error"] = "%s: %s" % (type(e).__name__, e)
    finally:
        with signals.deferred():
            meta["cleaned"] = teardown(topo, tun, samplers, stop_ev, sched_th, meta, errors)
            meta["schedule_applied"] = sched_log
            if errors:
                meta["teardown_errors"] = errors
            with open(os.path.join(rundir, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1)
            if meta["status"] == "interrupted":
                sys.stderr.write("\n%s: interrupted (%s); stopped:\n  %s\n" % (
                    run["id"], meta["error"], "\n  ".join(meta["cleaned"]) or "nothing"))
            for e in errors:
                sys.stderr.write("\n%s: tear-down: %s\n" % (run["id"], e))
    return meta


def teardown(topo, tun, samplers, stop_ev, sched_th, meta, errors):
    """Stop everything one_run started, in order, each step bounded and independent of
    the others' failures; returns what was found running."""
    cleaned = []
    stop_ev.set()
    if sched_th is not None:
        sched_th.join(timeout=2 * CMD_TIMEOUT_S)
        if sched_th.is_alive():
            errors.append("schedule thread still applying a change after %g s"
                          % (2 * CMD_TIMEOUT_S))
    for pr in samplers:
        if pr.poll() is None:
            cleaned.append("%s (pid %d)" % (proc_name(pr), pr.pid))
            pr.terminate()
            if reap(pr) is None:
                errors.append("%s (pid %d) survived SIGKILL" % (proc_name(pr), pr.pid))
    try:
        meta["mptund_rc"] = tun.stop()
        cleaned += tun.stopped
        errors += ["%s did not exit" % n for n, rc in meta["mptund_rc"].items() if rc is None]
    except Exception as e:
        errors.append("mptund stop: %s" % e)
    try:
        meta["bridges"] = topo.stop()
        cleaned += topo.cleaned
    except Exception as e:
        errors.append("topology stop: %s" % e)
    return cleaned


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


def report(a, sc, outdir, rows):
    """summary.csv/json/txt, the table on stdout, the plots."""
    paths = [p["name"] for p in sc["topology"]["paths"]]
    agg = results.write_summary(outdir, rows)
    table = results.format_table(agg, paths)
    ratios = results.format_ratios(agg)
    if ratios:
        table += "\n" + ratios
    left_out = ["%s: %s %s" % (r["run"], r["status"], r.get("error", ""))
                for r in rows if r["status"] != "ok"]
    if left_out:     # the table aggregates completed runs only: say which are missing
        table += "\nnot in the table:\n  " + "\n  ".join(left_out)
    method = next((r["method"] for r in rows if r.get("method")), "?")
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write("scenario %s, delay method %s\n%s\n" % (sc["name"], method, table))
    print("scenario %s, delay method %s, results in %s\n%s" % (sc["name"], method,
                                                               outdir, table))
    sys.stdout.flush()
    if not a.no_plots:
        subprocess.run([PY, os.path.join(HERE, "plot.py"), outdir], timeout=600)


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
    signals = Signals()
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
        rows, skipped = [], set()
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
                meta = one_run(sc, run, rundir, a.build,
                               lambda m: sys.stderr.write("\n  %s\n" % m), signals)
                rows.append(results.run_metrics(rundir, meta, sc["constraints"])
                            if meta["status"] == "ok" else
                            {"run": run["id"], "sched": run["sched"], "cc": run["cc"],
                             "rep": run["rep"], "method": meta.get("method"),
                             "status": meta["status"], "error": meta.get("error", "")})
                if meta["status"] not in ("ok", "skipped"):
                    rc = 1
                    sys.stderr.write("\n  %s: %s %s\n" % (run["id"], meta["status"],
                                                          meta.get("error", "")))
                elif meta["status"] == "skipped" and run["sched"] not in skipped:
                    skipped.add(run["sched"])
                    sys.stderr.write("\n  %s: skipped: %s\n" % (run["sched"], meta["error"]))
        except KeyboardInterrupt as e:      # Ctrl-C or SIGTERM (Interrupted)
            sys.stderr.write("\ninterrupted (%s): partial results kept\n" % (e or "SIGINT"))
            rc = 130
        sys.stderr.write("\n")
        with signals.deferred():
            report(a, sc, outdir, rows)
        if rc == 130:
            break
    return rc


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:       # a signal during the summary of an interrupted batch
        sys.exit(130)
