#!/usr/bin/env python3
"""Plots of mptund-sim output (needs python3-matplotlib).

  plot.py loads TRACE.csv [OUT.png]   path loads over time, as the axiomatic paper's
                                      Figure 1 (from mptund-sim --trace DIR)
  plot.py summary SUMMARY.csv [OUT.png]
                                      Efficiency, Loss and goodput against the agent
                                      count, one line per strategy (mptund-sim --csv)
"""
import csv
import sys


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_loads(rows, out, plt):
    cols = [c for c in rows[0] if c.endswith("_load")]
    t = [int(r["step"]) for r in rows]
    for c in cols:
        plt.plot(t, [float(r[c]) for r in rows], label=c[:-5])
    plt.xlabel("time step")
    plt.ylabel("load (Mbit/s)")
    plt.legend()
    plt.savefig(out)


def plot_summary(rows, out, plt):
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for strat in sorted({r["strategy"] for r in rows}):
        sel = [r for r in rows if r["strategy"] == strat]
        n = [int(r["agents"]) for r in sel]
        for ax, key in zip(axes, ("efficiency", "loss", "goodput")):
            ax.plot(n, [float(r[key]) for r in sel], marker="o", label=strat)
            ax.set_xlabel("agents")
            ax.set_ylabel(key + " (Mbit/s)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("loads", "summary"):
        print(__doc__, file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = read(argv[2])
    out = argv[3] if len(argv) > 3 else argv[2].rsplit(".", 1)[0] + ".png"
    (plot_loads if argv[1] == "loads" else plot_summary)(rows, out, plt)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
