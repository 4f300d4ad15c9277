# SPDX-License-Identifier: MIT
"""Per-run metrics from the raw files of a run directory, and the batch summary.

Per-path throughput comes from the UE's interface counters (downlink: rx bytes after
bottleneck and delay; uplink: tx bytes, shaped by the UE's TBF), sampled every 100 ms,
so it is the same measurement for single-path, MPTCP and tunnel runs (tunnel: outer
bytes, i.e. including the tunnel overhead). The total is by definition the sum of the
paths; goodput is iperf3's figure. RTT percentiles: the server's TCP srtt (`ss`).
"""
import csv
import json
import math
import os


def read_jsonl(path):
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    return out


def path_series(samples, ifaces, direction):
    """[(t, {path: Mbit/s})] from cumulative counters; ifaces maps path -> iface."""
    col = 0 if direction == "down" else 1
    out = []
    for a, b in zip(samples, samples[1:]):
        dt = b["t"] - a["t"]
        if dt <= 0:
            continue
        out.append((b["t"], {p: (b["ifaces"].get(i, [0, 0])[col] - a["ifaces"].get(i, [0, 0])[col])
                             * 8 / dt / 1e6 for p, i in ifaces.items()}))
    return out


def ue_series(rundir, meta, t0, t1):
    """Per-path Mbit/s summed over the UEs, within the flow window."""
    tot = None
    for k in range(1, meta.get("ues", 1) + 1):
        samples = read_jsonl(os.path.join(rundir, "samples-ue%s.jsonl" % ("" if k == 1 else k)))
        ifaces = {p: i.replace(meta["ifaces"][p].split("-eth")[0],
                               "testbed-" + ("ue" if k == 1 else "u%d" % k))
                  for p, i in meta["ifaces"].items()}
        s = [(t, v) for t, v in path_series(samples, ifaces, meta["direction"])
             if t0 < t <= t1 + 1e-3]
        if tot is None:
            tot = s
        else:      # align by index: the samplers run at the same 100 ms period
            tot = [(t, {p: v[p] + w.get(p, 0) for p in v}) for (t, v), (_, w) in zip(tot, s)]
    return tot or []


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def percentile(v, q):
    if not v:
        return None
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(math.ceil(q * len(v))) - 1))]


def iperf_goodput(ip):
    """Mbit/s and seconds from an iperf3 -J (or bulk.py) result, None if absent."""
    if not isinstance(ip, dict) or "end" not in ip:
        return None, None
    end = ip["end"]
    s = end.get("sum_received") or end.get("sum") or {}
    if not s.get("seconds"):
        return None, None
    return s["bytes"] * 8 / s["seconds"] / 1e6, s["seconds"]


def run_metrics(rundir, meta, constraints):
    """Summary row of one run; flow window = [flow_start, flow_end] from meta."""
    server = read_jsonl(os.path.join(rundir, "samples-server.jsonl"))
    t0, t1 = meta["flow_start"], meta["flow_end"]
    series = ue_series(rundir, meta, t0, t1)
    paths = list(meta["ifaces"])
    row = {"run": meta["id"], "sched": meta["sched"], "cc": meta["cc"], "rep": meta["rep"],
           "method": meta["method"], "status": meta["status"]}
    span = sum(1 for _ in series)
    for p in paths:
        row["tput_%s" % p] = sum(v[p] for _, v in series) / span if span else 0.0
    for p in paths:     # megabytes each path carried over the flow window (interface bytes)
        row["mb_%s" % p] = row["tput_%s" % p] * (t1 - t0) / 8
    row["tput_total"] = sum(row["tput_%s" % p] for p in paths)
    costs = meta.get("costs") or {}
    if len(set(costs.values())) > 1 and row["tput_total"] > 0:
        cheap = min(costs.values())
        row["cheap_share"] = sum(row["tput_%s" % p] for p in paths
                                 if costs.get(p) == cheap) / row["tput_total"]
    goods, secs_all = [], []
    for k in range(1, meta.get("ues", 1) + 1):
        try:
            with open(os.path.join(rundir, "iperf%s.json" % ("" if k == 1 else k))) as f:
                ip = json.load(f)
        except (OSError, ValueError):
            ip = None
        g, secs = iperf_goodput(ip)
        goods.append(g or 0.0)
        secs_all.append(secs or 0.0)
    row["goodput"] = sum(goods)
    if len(goods) > 1:
        row["jain"] = sum(goods) ** 2 / (len(goods) * sum(g * g for g in goods)) \
            if any(goods) else 0.0
    row["completion_s"] = max(secs_all) if meta["flow_type"] == "transfer" else None
    # Data sockets only (iperf3's control connection carries a few hundred bytes).
    acked = {}
    for rec in server:
        for s in rec.get("ss", []):
            acked[s["dst"]] = max(acked.get(s["dst"], 0), s.get("bytes_acked", 0))
    rtts = [s["rtt_ms"] for rec in server if t0 <= rec["t"] <= t1
            for s in rec.get("ss", []) if "rtt_ms" in s and acked[s["dst"]] > 100000]
    for q in (50, 90, 99):
        row["rtt_p%d" % q] = percentile(rtts, q / 100)
    row.update(gap_columns(outage_gaps(server, meta, t1)))
    for name, pr in (meta.get("probes") or {}).items():
        if pr.get("type") == "voice" and pr.get("planned"):
            row["%s_loss_pct" % name] = pr.get("loss_pct")
            row["%s_owd_p99" % name] = pr.get("owd_p99_ms")
        elif pr.get("type") == "ping" and pr.get("sent"):
            row["%s_loss_pct" % name] = 100.0 * (pr["sent"] - pr["received"]) / pr["sent"]
            row["%s_rtt_p99" % name] = pr.get("p99_ms")
    if "max_rtt_ms" in constraints and rtts:
        row["viol_rtt"] = sum(1 for r in rtts if r > constraints["max_rtt_ms"]) / len(rtts)
    if "max_rtt_ms" in constraints:
        v = path_violation_share(rundir, t0, t1, constraints["max_rtt_ms"])
        if v is not None:
            row["viol_path"] = v
    if "max_rate_mbit" in constraints and series:
        row["viol_rate"] = sum(1 for _, v in series
                               if sum(v.values()) > constraints["max_rate_mbit"]) / len(series)
    return row


def goodput_series(server, direction):
    """[(t, Mbit/s)] of the data sockets from the server's 100 ms `ss` samples: bytes
    acknowledged (downlink: the server sends) or received (uplink), summed."""
    key = "bytes_acked" if direction == "down" else "bytes_received"
    out, last = [], None
    for rec in server:
        tot = sum(s.get(key, 0) for s in rec.get("ss", []) if s.get(key, 0) > 100000)
        if last is not None and rec["t"] > last[0]:
            out.append((rec["t"], max(0.0, tot - last[1]) * 8 / (rec["t"] - last[0]) / 1e6))
        last = (rec["t"], tot)
    return out


def outages(meta):
    """[(t, path name, t back or None)] of the schedule steps that took a path out in
    the flow's direction (down, or 100% loss: a blackhole, no netlink event), each
    with the time of the path's next step that brought it back (None: not in the
    run)."""
    names = list(meta.get("rates") or meta.get("ifaces") or [])
    d = meta.get("direction", "down")
    out, steps = [], [e for e in meta.get("schedule_applied", []) if not e.get("error")]
    for k, e in enumerate(steps):
        ch = e.get("change", {})
        if not (ch.get("down") is True or ch.get("loss_%s_pct" % d, 0) >= 100):
            continue
        if not 0 < e["path"] <= len(names):
            continue
        back = next((f["t"] for f in steps[k + 1:] if f["path"] == e["path"] and
                     (f["change"].get("down") is False or
                      f["change"].get("loss_%s_pct" % d, 100) < 100)), None)
        out.append((e["t"], names[e["path"] - 1], back))
    return out


def dips(series, half, t_from, t_to):
    """The runs of 100 ms samples below `half` that start in (t_from, t_to]:
    [(start, back)], from the start of the first low sample's interval (not before
    t_from) to the time of the first sample back at or above half (as the failover gap
    has always been measured: the sample that shows the goodput back). A run already
    going at t_from is not one of them; a run still going at the series' last sample
    at or above half is the flow's end, not a dip, and is left out."""
    out, start, prev_t, prev_low = [], None, None, False
    last_good = max([t for t, g in series if g >= half] or [t_from])
    for t, g in series:
        if (start is None and t > t_to) or t > last_good:
            break
        low = g < half
        if start is not None and not low:
            if start != "ongoing":
                out.append((start, t))
            start = None
        elif start is None and t > t_from and low:
            start = "ongoing" if prev_low and prev_t is not None and prev_t <= t_from \
                else max(prev_t if prev_t is not None else t_from, t_from)
        prev_t, prev_low = t, low
    return out


def outage_gaps(server, meta, t_end):
    """Per outage of the run (outages()), a dict of, in ms:
      failover  from the outage until the goodput (100 ms samples) is back above half
                of the surviving paths' capacity after its first dip that starts
                before the path is back (within 5 s), however late it starts (kernel
                MPTCP's subflow ACKs go on for a while); 0: it never fell below;
      restall   the longest dip below that half after the first recovery that starts
                before the path is back (e.g. a second stall when the inner TCP's
                losses come), measured to its end;
      comeback  the longest dip below that half that starts in the 3 s after the
                path is back (the path's return costing a stall); None if the run
                ends before.
    A single-path run sees only its own path's outages. [] without outages or rates."""
    rates = meta.get("rates") or {}
    events = outages(meta)
    single = meta.get("sched", "")[7:] if meta.get("kind") == "single" else None
    if single:
        events = [e for e in events if e[1] == single]
    if not events or not rates:
        return []
    series = goodput_series(server, meta.get("direction", "down"))
    out = []
    for t0, name, back in events:
        if t0 >= t_end - 0.5:
            continue
        half = 0.5 * sum(r for p, r in rates.items() if p != name)
        until = min(t_end, back if back is not None else t0 + 5.0, t0 + 5.0)
        first = dips(series, half, t0, until)
        rec = {"t": t0, "path": name, "failover": 0.0, "restall": 0.0, "comeback": None}
        if first:       # the first dip is the outage's, however late (MPTCP's)
            rec["failover"] = (first[0][1] - t0) * 1e3
            first = first[1:]
        rec["restall"] = max([(b - a) * 1e3 for a, b in first] or [0.0])
        if back is not None and back < t_end - 0.5:
            com = dips(series, half, back, min(t_end, back + 3.0))
            rec["comeback"] = max([(b - a) * 1e3 for a, b in com] or [0.0])
        out.append(rec)
    return out


def failover_gap(server, meta, t_end):
    """The longest failover gap of a run, ms (outage_gaps' failover); None without
    outages or rates."""
    gaps = outage_gaps(server, meta, t_end)
    return max(g["failover"] for g in gaps) if gaps else None


def gap_columns(gaps):
    """The summary's outage columns from outage_gaps(): failover_ms the worst outage
    of the run (its longest first dip), failover_med_ms the median outage, restall_ms
    the longest later dip within an outage, comeback_ms the longest dip after a return,
    failover_each_ms the list."""
    if not gaps:
        return {}
    fo = [g["failover"] for g in gaps]
    row = {"failover_ms": max(fo), "failover_med_ms": median(fo),
           "restall_ms": max(g["restall"] for g in gaps),
           "failover_each_ms": " ".join("%.0f" % v for v in fo)}
    cb = [g["comeback"] for g in gaps if g["comeback"] is not None]
    if cb:
        row["comeback_ms"] = max(cb)
    return row


def path_violation_share(rundir, t0, t1, max_rtt_ms):
    """Tunnel runs: the share of bytes the sender put on paths whose smoothed RTT (as
    the scheduler saw it in that sample) exceeded max_rtt_ms (OLMS's C_r), from
    `mptund-ctl watch` samples within the flow. None without samples."""
    from mptund_hook import parse_ctl_sample
    try:
        with open(os.path.join(rundir, "ctl.jsonl")) as f:
            samples = [s for s in map(parse_ctl_sample, f) if s and t0 <= s["t"] <= t1]
    except OSError:
        return None
    bad = tot = 0.0
    for a, b in zip(samples, samples[1:]):
        for name, pb in b["paths"].items():
            pa = a["paths"].get(name)
            if not pa or pa.get("tx_bytes") is None or pb.get("tx_bytes") is None:
                continue
            d = max(0.0, pb["tx_bytes"] - pa["tx_bytes"])
            tot += d
            if (pb.get("srtt_ms") or 0) > max_rtt_ms:
                bad += d
    return bad / tot if tot else None


def check_run(rundir, meta):
    """Consistency problems of one run's files (list of strings, empty = fine)."""
    bad = []
    for name in ("samples-ue.jsonl", "samples-server.jsonl"):
        s = read_jsonl(os.path.join(rundir, name))
        if len(s) < 2:
            bad.append("%s: %d samples" % (name, len(s)))
        ts = [r["t"] for r in s]
        if any(b <= a for a, b in zip(ts, ts[1:])):
            bad.append("%s: timestamps not strictly increasing" % name)
    return bad


def write_summary(outdir, rows):
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(os.path.join(outdir, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.3f" % v if isinstance(v, float) else v) for k, v in r.items()})
    groups = {}
    for r in rows:
        if r["status"] == "ok":
            groups.setdefault((r["sched"], r["cc"]), []).append(r)
    agg = []
    for (s, c), rs in groups.items():
        g = {"sched": s, "cc": c, "n": len(rs)}
        for k in keys:
            vals = [r[k] for r in rs if isinstance(r.get(k), (int, float)) and k != "rep"]
            if vals and k not in ("rep",):
                m = sum(vals) / len(vals)
                g[k + "_mean"] = m
                g[k + "_std"] = (sum((x - m) ** 2 for x in vals) / len(vals)) ** 0.5
                g[k + "_median"] = median(vals)
        agg.append(g)
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump({"runs": rows, "groups": agg}, f, indent=1)
    return agg


def format_table(agg, paths):
    cols = ["tput_%s" % p for p in paths] + ["tput_total", "goodput", "completion_s",
                                             "rtt_p50", "rtt_p99", "viol_rtt", "viol_path", "viol_rate", "jain",
                                             "cheap_share", "failover_ms", "failover_med_ms",
                                             "restall_ms", "comeback_ms"] + ["mb_%s" % p for p in paths]
    for g in agg:       # the probes' columns (scenario.py 'probes'), in first-seen order
        cols += [k[:-5] for k in g if k.endswith("_mean") and k[:-5] not in cols and
                 k[:-5].endswith(("_loss_pct", "_owd_p99", "_rtt_p99"))]
    cols = [c for c in cols if any(c + "_mean" in g for g in agg)]
    head = "%-16s %-6s %3s " % ("sched", "cc", "n") + " ".join("%15s" % c for c in cols)
    lines = [head]
    for g in agg:
        cells = []
        for c in cols:
            m = g.get(c + "_mean")
            cells.append("%15s" % ("-" if m is None else "%.2f±%.2f" % (m, g[c + "_std"])))
        lines.append("%-16s %-6s %3d " % (g["sched"], g["cc"], g["n"]) + " ".join(cells))
    return "\n".join(lines)


def format_ratios(agg):
    """Per end-to-end CC: each run kind's median goodput (transfers: completion time),
    and, for the tunnel's schedulers, the ratio to the best single path and to kernel
    MPTCP measured in the same batch. Empty when there is nothing to compare."""
    transfer = any(g.get("completion_s_median") for g in agg)
    key = "completion_s_median" if transfer else "goodput_median"
    lines = []
    for cc in sorted({g["cc"] for g in agg}):
        gs = [g for g in agg if g["cc"] == cc and g.get(key) is not None]
        singles = [g for g in gs if g["sched"].startswith("single:")]
        mptcp = next((g for g in gs if g["sched"] == "mptcp"), None)
        if not singles and not mptcp:
            continue
        pick = min if transfer else max
        best = pick(singles, key=lambda g: g[key]) if singles else None
        lines.append("%s: %s median%s; best single %s %s, mptcp %s" % (
            cc, "completion s" if transfer else "goodput Mbit/s",
            " of %d" % max(g["n"] for g in gs),
            best["sched"][7:] if best else "-", "%.2f" % best[key] if best else "-",
            "%.2f" % mptcp[key] if mptcp else "-"))
        for g in gs:
            if g["sched"].startswith("single:") or g["sched"] == "mptcp":
                continue
            def ratio(ref):
                if not ref:
                    return "   -"
                a, b = (ref[key], g[key]) if transfer else (g[key], ref[key])
                return "%.2f" % (a / b) if b else "   -"
            lines.append("  %-14s %8.2f   x best single %s   x mptcp %s" % (
                g["sched"], g[key], ratio(best), ratio(mptcp)))
    if lines:
        lines.insert(0, "ratios (>1 is better than the reference%s):" % (
            "; completion: reference time / ours" if transfer else ""))
    return "\n".join(lines + format_gaps(agg))


def format_gaps(agg):
    """The outage figures of each run kind, medians over its runs (ms): the worst and
    the median outage's failover gap, the longest later stall, the longest dip after
    a path's return. Empty without outages."""
    gs = [g for g in agg if g.get("failover_ms_median") is not None]
    if not gs:
        return []
    lines = ["outages (ms, median over the runs): failover worst / median outage, "
             "later stall, after the return:"]
    for g in sorted(gs, key=lambda g: (g["cc"], g["sched"])):
        cb = g.get("comeback_ms_median")
        lines.append("  %-6s %-14s %6.0f / %6.0f   stall %6.0f   return %s" % (
            g["cc"], g["sched"], g["failover_ms_median"], g["failover_med_ms_median"],
            g["restall_ms_median"], "-" if cb is None else "%.0f" % cb))
    return lines
