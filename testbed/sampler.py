# SPDX-License-Identifier: MIT
"""Sampler run inside one testbed host: every INTERVAL writes one JSON line with the
wall-clock time, the byte counters of the named interfaces (/proc/net/dev of this
namespace) and, with --ss, the TCP sockets matching a filter (`ss -tinH`): cwnd, rtt,
mss, bytes_acked, ssthresh, reordering, dsack_dups per socket. Stops on SIGTERM.

  sampler.py --out FILE [--interval 0.1] [--ifaces a,b] [--ss 'sport = :5201']
"""
import argparse
import json
import re
import signal
import subprocess
import sys
import time

SS_KEYS = {"cwnd": int, "mss": int, "bytes_acked": int, "bytes_sent": int,
           "bytes_received": int,
           "bytes_retrans": int, "unacked": int, "retrans": str, "delivery_rate": str,
           # slow start's end: ssthresh set with no retransmission is HyStart's exit;
           # reordering (the sender's estimate, packets) and DSACKs show spurious ones
           "ssthresh": int, "reordering": int, "dsack_dups": int}


def read_ifaces(names):
    out = {}
    with open("/proc/net/dev") as f:
        for line in f.readlines()[2:]:
            name, _, rest = line.partition(":")
            name = name.strip()
            if name in names:
                v = rest.split()
                out[name] = [int(v[0]), int(v[8])]      # rx_bytes, tx_bytes
    return out


def parse_ss(text):
    """`ss -tinH` output: a socket line followed by an indented info line."""
    socks, cur = [], None
    for line in text.splitlines():
        if not line.startswith((" ", "\t")):
            f = line.split()
            if len(f) >= 5:
                cur = {"src": f[3], "dst": f[4]}
                socks.append(cur)
            continue
        if cur is None:
            continue
        m = re.search(r"\brtt:([\d.]+)/([\d.]+)", line)
        if m:
            cur["rtt_ms"], cur["rttvar_ms"] = float(m.group(1)), float(m.group(2))
        for key, conv in SS_KEYS.items():
            m = re.search(r"\b%s[: ]([\w./]+)" % key, line)
            if m:
                try:
                    cur[key] = conv(m.group(1))
                except ValueError:
                    pass
        for cc in ("reno", "cubic", "bbr"):
            if re.search(r"\b%s\b" % cc, line):
                cur["cc"] = cc
    return socks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--ifaces", default="")
    ap.add_argument("--ss", default=None, help="ss filter, e.g. 'sport = :5201'")
    a = ap.parse_args()
    names = set(filter(None, a.ifaces.split(",")))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(a.out, "w") as out:
        nxt = time.monotonic()
        while not stop:
            rec = {"t": time.time(), "ifaces": read_ifaces(names)}
            if a.ss is not None:
                r = subprocess.run(["ss", "-tinH"] + a.ss.split(), capture_output=True,
                                   text=True)
                rec["ss"] = parse_ss(r.stdout)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            nxt += a.interval
            time.sleep(max(0.0, nxt - time.monotonic()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
