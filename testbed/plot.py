# SPDX-License-Identifier: MIT
"""Plots of a results directory: /usr/bin/python3 testbed/plot.py RESULTS_DIR

Per run (runs/ID/timeseries.png), after Figure 4 of the ACPF paper: (i) stacked
per-path throughput, (ii) live cwnd fraction per path (mptund runs: the path's cwnd
over the sum, from `mptund-ctl watch`), (iii) the server's cwnd (all its sockets, in
packets, from `ss -ti`). Per batch: summary-<metric>.png, bar charts (mean and standard
deviation across repetitions) per scheduler, grouped by end-to-end CC.
"""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt          # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results                           # noqa: E402
from mptund_hook import parse_ctl_sample  # noqa: E402


def plot_run(rundir):
    with open(os.path.join(rundir, "meta.json")) as f:
        meta = json.load(f)
    if meta.get("status") != "ok":
        return
    t0 = meta["flow_start"]
    series = results.ue_series(rundir, meta, 0, float("inf"))
    paths = list(meta["ifaces"])
    fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    if series:
        ts = [t - t0 for t, _ in series]
        ax[0].stackplot(ts, *[[v[p] for _, v in series] for p in paths], labels=paths)
        ax[0].legend(loc="upper right", fontsize="small")
    ax[0].set_ylabel("throughput (Mbit/s)")
    ax[0].set_title("%s, %s, rep %d (%s)" % (meta["sched"], meta["cc"], meta["rep"],
                                             meta.get("method")))
    ctl = []
    if os.path.exists(os.path.join(rundir, "ctl.jsonl")):
        with open(os.path.join(rundir, "ctl.jsonl")) as f:
            ctl = [s for s in map(parse_ctl_sample, f) if s and s["t"]]
    frac = any(v.get("cw_frac") is not None for s in ctl for v in s["paths"].values())
    if ctl:
        # ACPF (Figure 4): the live cwnd fraction per path; other schedulers have no
        # fraction, so their plot shows each path's cwnd in KiB instead
        for p in sorted({n for s in ctl for n in s["paths"]}):
            if frac:
                pts = [(s["t"] - t0, 100.0 * s["paths"][p]["cw_frac"]) for s in ctl
                       if p in s["paths"] and s["paths"][p]["cw_frac"] is not None]
            else:
                pts = [(s["t"] - t0, (s["paths"][p]["cwnd"] or 0) / 1024.0) for s in ctl
                       if p in s["paths"]]
            if pts:
                ax[1].plot(*zip(*pts), label=p)
        ax[1].legend(loc="upper right", fontsize="small")
    else:
        ax[1].text(0.5, 0.5, "no tunnel (live cwnd only for mptund runs)",
                   ha="center", va="center", transform=ax[1].transAxes)
    ax[1].set_ylabel("live cwnd fraction (%)" if ctl and frac else "path cwnd (KiB)")
    server = results.read_jsonl(os.path.join(rundir, "samples-server.jsonl"))
    socks = {}
    for rec in server:
        for s in rec.get("ss", []):
            if "cwnd" in s:
                socks.setdefault(s["dst"], []).append((rec["t"] - t0, s["cwnd"]))
    for dst, pts in socks.items():
        ax[2].plot(*zip(*pts), label=dst, linewidth=0.8)
    if 0 < len(socks) <= 8:
        ax[2].legend(loc="upper right", fontsize="small")
    ax[2].set_ylabel("server cwnd (pkts)")
    ax[2].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(os.path.join(rundir, "timeseries.png"), dpi=90)
    plt.close(fig)


def plot_summary(outdir):
    with open(os.path.join(outdir, "summary.json")) as f:
        groups = json.load(f)["groups"]
    if not groups:
        return
    scheds = list(dict.fromkeys(g["sched"] for g in groups))
    ccs = list(dict.fromkeys(g["cc"] for g in groups))
    for metric, label in (("tput_total", "throughput (Mbit/s)"), ("goodput", "goodput (Mbit/s)"),
                          ("completion_s", "completion time (s)"), ("rtt_p50", "RTT p50 (ms)"),
                          ("viol_rtt", "RTT violation (fraction)"),
                          ("viol_rate", "rate violation (fraction)")):
        if not any(metric + "_mean" in g for g in groups):
            continue
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(scheds) * len(ccs) / 2), 4))
        w = 0.8 / len(ccs)
        for j, c in enumerate(ccs):
            xs, ms, es = [], [], []
            for i, s in enumerate(scheds):
                g = next((g for g in groups if g["sched"] == s and g["cc"] == c), None)
                if g and metric + "_mean" in g:
                    xs.append(i + j * w)
                    ms.append(g[metric + "_mean"])
                    es.append(g[metric + "_std"])
            ax.bar(xs, ms, w, yerr=es, capsize=3, label=c)
        ax.set_xticks([i + w * (len(ccs) - 1) / 2 for i in range(len(scheds))])
        ax.set_xticklabels(scheds, rotation=20)
        ax.set_ylabel(label)
        ax.legend(title="end-to-end CC", fontsize="small")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "summary-%s.png" % metric), dpi=90)
        plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot.py RESULTS_DIR")
    outdir = sys.argv[1]
    runs = os.path.join(outdir, "runs")
    for name in sorted(os.listdir(runs)) if os.path.isdir(runs) else []:
        plot_run(os.path.join(runs, name))
    plot_summary(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
