# SPDX-License-Identifier: MIT
"""Scenario files (testbed/scenarios/*.json): loading, defaults, validation, expansion.

{
  "name": "acpf-short", "description": "...",
  "topology": {
    "ues": 1,
    "paths": [ {"name": "path1", "rate_mbit": 50, "delay_ms": 16, "buffer_ms": 150,
                "jitter_ms": 0, "loss_pct": 0, "cost": 0,
                "schedule": [ {"t": 10, "rate_mbit": 1}, {"t": 15, "down": true} ],
                "schedule_repeat_s": 10 } ],
    "anchor_server": {"rate_mbit": 1000, "delay_ms": 4, "buffer_ms": 50}
  },
  "schedulers": ["cpf", "acpf", "single:path1", "mptcp"],
  "scheduler_params": {"olms": {"MaxRtt": "50"}},   # [Scheduler] tunables, by name
  "cc_params": {"acpf@iw": {"init_cwnd_pkts": 64}}, # [Congestion] tunables, by name
  "interface_params": {"cpf@nohold": {"ReorderMaxHold": "0"}}, # [Interface] keys
  "rules": {"acpf@atsss": [{"Name": "voice", "Protocol": "udp", "DestinationPort": "5400",
                            "Scheduler": "redundant"}]},  # [Rule] sections (anchor)
  "tunnel_cc": "bbr",
  "cc": ["reno", "cubic", "bbr"],
  "flow": {"type": "greedy" | "transfer", "direction": "down" | "up", "duration_s": 60,
           "size_mb": 200, "parallel": 1, "timeout_s": 120,
           "bitrate_mbit": 20},          # optional: an app-limited sender (iperf3 -b)
  "probes": [                          # optional: measured flows beside the main one
    {"name": "voice", "type": "voice", "direction": "up", "rate_kbit": 200, "len": 160,
     "port": 5400, "tos": 184},          # constant-bitrate UDP (testbed/owdprobe.c):
                                         # loss and one-way delay
    {"name": "ping", "type": "ping", "interval_ms": 20}],  # ICMP echo (rttprobe): RTT
  "repetitions": 5, "seed": 1,
  "constraints": {"max_rtt_ms": 50, "max_rate_mbit": 40}
}

Per path, symmetric keys (rate_mbit, delay_ms, loss_pct, buffer_ms/buffer_bytes) are
split into _down/_up keys, which may also be given directly; rtt_ms sets both one-way
delays to half. A schedule step changes the same keys (or "down": true/false) at "t"
seconds; schedule_repeat_s repeats the list with that period for the whole run.
Per path "mtu" (576..65535, 0 = none): the delay host drops IP packets above it, both
ways: silently by default, a hop whose ICMP "fragmentation needed" is filtered ("icmp":
"drop"), or answering each IPv4 packet with DF as a router does ("icmp": "pass": the
delaybridge sends "fragmentation needed" with the MTU from the path's address .254,
back over the path's reverse direction). A schedule step may change "mtu".
"""
import json
import os

DIRECTIONS = ("down", "up")
FLOW_TYPES = ("greedy", "transfer")
PROBE_TYPES = ("voice", "ping")
CCS = ("reno", "cubic", "bbr")
PSEUDO = ("mptcp",)


class ScenarioError(ValueError):
    pass


def _num(obj, key, where, default=None, lo=0.0, hi=1e9):
    v = obj.get(key, default)
    if v is None:
        return None
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not lo <= v <= hi:
        raise ScenarioError("%s: %s: '%s' is not a number in [%g, %g]" % (where, key, v, lo, hi))
    return v


def _split(obj, key, where, default, lo=0.0, hi=1e9, unit=""):
    """key -> key_down / key_up (unit suffix kept: rate_mbit -> rate_down_mbit)."""
    base, _, suffix = key.rpartition("_")
    both = _num(obj, key, where, default, lo, hi)
    for d in DIRECTIONS:
        k = "%s_%s_%s" % (base, d, suffix)
        obj[k] = _num(obj, k, where, both, lo, hi)
    obj.pop(key, None)


def _buffer(obj, where, rate_key, d, default_ms):
    """Buffer in bytes from buffer_bytes or buffer_ms of the rate (per direction)."""
    for src in ("buffer_%s_bytes" % d, "buffer_bytes"):
        if src in obj:
            return int(_num(obj, src, where, lo=3000, hi=1e9))
    ms = obj.get("buffer_%s_ms" % d, obj.get("buffer_ms", default_ms))
    ms = _num({"buffer_ms": ms}, "buffer_ms", where, lo=0.1, hi=10000)
    return int(obj[rate_key] * 1e6 / 8 * ms / 1000)


def normalize_path(p, i, where):
    w = "%s: paths[%d]" % (where, i)
    p.setdefault("name", "path%d" % (i + 1))
    if "rtt_ms" in p:
        p["delay_ms"] = _num(p, "rtt_ms", w, lo=0, hi=10000) / 2.0
        p.pop("rtt_ms")
    _split(p, "rate_mbit", w, None, 0.01, 10000)
    for d in DIRECTIONS:
        if p["rate_%s_mbit" % d] is None:
            raise ScenarioError("%s: rate_mbit (or rate_%s_mbit) is required" % (w, d))
    _split(p, "delay_ms", w, 0, 0, 10000)
    _split(p, "loss_pct", w, 0, 0, 100)
    p["jitter_ms"] = _num(p, "jitter_ms", w, 0, 0, 10000)
    p["mtu"] = int(_num(p, "mtu", w, 0, 0, 65535))
    if p["mtu"] and p["mtu"] < 576:
        raise ScenarioError("%s: mtu: '%d' is below 576 (0 = none)" % (w, p["mtu"]))
    if p.setdefault("icmp", "drop") not in ("drop", "pass"):
        raise ScenarioError("%s: icmp: '%s': 'drop' or 'pass'" % (w, p["icmp"]))
    p["cost"] = _num(p, "cost", w, i, 0, 1e6)
    for d in DIRECTIONS:
        p["buffer_%s_bytes" % d] = _buffer(p, w, "rate_%s_mbit" % d, d, 100)
    for k in ("buffer_ms", "buffer_bytes", "buffer_down_ms", "buffer_up_ms"):
        p.pop(k, None)
    sched = p.get("schedule", [])
    if not isinstance(sched, list):
        raise ScenarioError("%s: schedule: '%s' is not a list" % (w, sched))
    for j, step in enumerate(sched):
        ws = "%s.schedule[%d]" % (w, j)
        _num(step, "t", ws, lo=0, hi=1e6)
        if "t" not in step:
            raise ScenarioError("%s: t is required" % ws)
        if "rtt_ms" in step:
            step["delay_ms"] = _num(step, "rtt_ms", ws, lo=0, hi=10000) / 2.0
            step.pop("rtt_ms")
        for key, lo, hi in (("rate_mbit", 0.01, 10000), ("delay_ms", 0, 10000),
                            ("loss_pct", 0, 100)):
            if key in step:
                _split(step, key, ws, None, lo, hi)
            else:
                base, _, suffix = key.rpartition("_")
                for d in DIRECTIONS:
                    _num(step, "%s_%s_%s" % (base, d, suffix), ws, None, lo, hi)
        if "mtu" in step:
            step["mtu"] = int(_num(step, "mtu", ws, 0, 0, 65535))
        unknown = set(step) - {"t", "down", "jitter_ms", "mtu", "rate_down_mbit", "rate_up_mbit",
                               "delay_down_ms", "delay_up_ms", "loss_down_pct",
                               "loss_up_pct"}
        if unknown:
            raise ScenarioError("%s: unknown key '%s'" % (ws, sorted(unknown)[0]))
    p["schedule"] = sched
    p["schedule_repeat_s"] = _num(p, "schedule_repeat_s", w, 0, 0, 1e6)
    return p


def load(path):
    with open(path) as f:
        try:
            sc = json.load(f)
        except json.JSONDecodeError as e:
            raise ScenarioError("%s: %s" % (path, e))
    where = os.path.basename(path)
    sc.setdefault("name", os.path.splitext(where)[0])
    topo = sc.get("topology")
    if not isinstance(topo, dict) or not topo.get("paths"):
        raise ScenarioError("%s: topology.paths is required" % where)
    if not 1 <= len(topo["paths"]) <= 8:
        raise ScenarioError("%s: '%d' paths: 1 to 8 are supported" % (where, len(topo["paths"])))
    topo["ues"] = int(_num(topo, "ues", where, 1, 1, 16))
    topo["paths"] = [normalize_path(p, i, where) for i, p in enumerate(topo["paths"])]
    names = [p["name"] for p in topo["paths"]]
    if len(set(names)) != len(names):
        raise ScenarioError("%s: duplicate path names %s" % (where, names))
    a = topo.setdefault("anchor_server", {})
    a["rate_mbit"] = _num(a, "rate_mbit", where, 1000, 0.01, 100000)
    a["delay_ms"] = _num(a, "delay_ms", where, 0, 0, 10000)
    a["buffer_bytes"] = _buffer(a, where, "rate_mbit", "x", 50)
    scheds = sc.get("schedulers", [])
    if not scheds:
        raise ScenarioError("%s: schedulers is empty" % where)
    for s in scheds:
        if s.startswith("single:") and s[7:] not in names:
            raise ScenarioError("%s: '%s': no path named '%s' (%s)" % (where, s, s[7:], names))
    for c in sc.setdefault("cc", ["cubic"]):
        if c not in CCS:
            raise ScenarioError("%s: cc '%s' is not one of %s" % (where, c, CCS))
    fl = sc.setdefault("flow", {})
    fl.setdefault("type", "greedy")
    fl.setdefault("direction", "down")
    if fl["type"] not in FLOW_TYPES or fl["direction"] not in DIRECTIONS:
        raise ScenarioError("%s: flow '%s'/'%s' not in %s/%s"
                            % (where, fl["type"], fl["direction"], FLOW_TYPES, DIRECTIONS))
    fl["duration_s"] = _num(fl, "duration_s", where, 20, 1, 86400)
    fl["parallel"] = int(_num(fl, "parallel", where, 1, 1, 64))
    fl["bitrate_mbit"] = _num(fl, "bitrate_mbit", where, None, 0.001, 100000)
    if fl["type"] == "transfer":
        fl["size_mb"] = _num(fl, "size_mb", where, None, 0.001, 1e6)
        if fl["size_mb"] is None:
            raise ScenarioError("%s: flow.size_mb is required for a transfer" % where)
        fl["timeout_s"] = _num(fl, "timeout_s", where, 300, 1, 86400)
    sc["repetitions"] = int(_num(sc, "repetitions", where, 1, 1, 1000))
    sc["seed"] = int(_num(sc, "seed", where, 1, 0, 2**32))
    sc.setdefault("tunnel_cc", "bbr")
    rules = sc.setdefault("rules", {})
    if not isinstance(rules, dict) or not all(
            isinstance(v, list) and all(isinstance(r, dict) for r in v) for v in rules.values()):
        raise ScenarioError("%s: rules must map scheduler names to a list of {key: value}"
                            % where)
    for key in ("scheduler_params", "cc_params", "interface_params"):
        sc.setdefault(key, {})
        if not isinstance(sc[key], dict) or not all(isinstance(v, dict)
                                                   for v in sc[key].values()):
            raise ScenarioError("%s: %s must map scheduler names to {key: value}"
                                % (where, key))
    sc.setdefault("constraints", {})
    sc["probes"] = [normalize_probe(pr, i, where, fl)
                    for i, pr in enumerate(sc.get("probes", []))]
    if len({pr["name"] for pr in sc["probes"]}) != len(sc["probes"]):
        raise ScenarioError("%s: duplicate probe names" % where)
    return sc


def normalize_probe(pr, i, where, fl):
    """A measured side flow: a constant-bitrate UDP 'voice' flow or an ICMP 'ping',
    running for the main flow's duration (or duration_s) from start_s."""
    w = "%s: probes[%d]" % (where, i)
    if not isinstance(pr, dict):
        raise ScenarioError("%s: must be an object" % w)
    pr.setdefault("type", "voice")
    if pr["type"] not in PROBE_TYPES:
        raise ScenarioError("%s: type '%s' is not one of %s" % (w, pr["type"], PROBE_TYPES))
    pr.setdefault("name", "%s%d" % (pr["type"], i + 1))
    if not isinstance(pr["name"], str) or not pr["name"].isidentifier():
        raise ScenarioError("%s: name '%s' must be a word" % (w, pr["name"]))
    pr.setdefault("direction", fl["direction"])
    if pr["direction"] not in DIRECTIONS:
        raise ScenarioError("%s: direction '%s' not in %s" % (w, pr["direction"], DIRECTIONS))
    pr["start_s"] = _num(pr, "start_s", w, 0, 0, 86400)
    pr["duration_s"] = _num(pr, "duration_s", w, fl["duration_s"], 1, 86400)
    if pr["type"] == "voice":
        pr["rate_kbit"] = _num(pr, "rate_kbit", w, 200, 1, 1e6)
        pr["len"] = int(_num(pr, "len", w, 160, 24, 1400))
        pr["port"] = int(_num(pr, "port", w, 5400 + i, 1024, 65535))
        pr["tos"] = int(_num(pr, "tos", w, 0, 0, 255))
    else:
        pr["interval_ms"] = _num(pr, "interval_ms", w, 20, 1, 10000)
    return pr


def runs(sc, only_sched=None, only_cc=None, reps=None):
    """Expand a scenario into its list of runs (dicts), repetitions innermost."""
    out = []
    for s in sc["schedulers"]:
        if only_sched and s not in only_sched:
            continue
        for c in sc["cc"]:
            if only_cc and c not in only_cc:
                continue
            for r in range(reps or sc["repetitions"]):
                out.append({"sched": s, "cc": c, "rep": r, "seed": sc["seed"] + r,
                            "id": "%s_%s_r%d" % (s.replace(":", "-"), c, r)})
    return out


def kind(sched):
    """'single', 'mptcp' or 'tunnel' (an mptund scheduler name)."""
    if sched.startswith("single:"):
        return "single"
    return sched if sched in PSEUDO else "tunnel"


def schedule_events(path_cfg, duration):
    """The path's schedule as a sorted list of (t, step), repeated if asked."""
    steps = path_cfg["schedule"]
    period = path_cfg["schedule_repeat_s"]
    ev = []
    base = 0.0
    while True:
        for st in steps:
            t = base + st["t"]
            if t < duration:
                ev.append((t, {k: v for k, v in st.items() if k != "t"}))
        base += period
        if not period or not steps or base >= duration:
            break
    return sorted(ev, key=lambda e: e[0])
