# SPDX-License-Identifier: MIT
"""bulk: a greedy or fixed-size TCP/MPTCP transfer for the kernel-MPTCP baseline
(Debian's iperf3 3.12 has no --multipath and mptcpize is not installed). The sockets are
IPPROTO_MPTCP; the congestion controller is set explicitly on every socket.

  bulk.py server --port P                       (serves one connection, then exits)
  bulk.py client --connect ADDR --port P -C CC (--time S | --bytes N) [--reverse]
                 [--rate-mbit R]

--rate-mbit: the sender writes at most R Mbit/s (an application-limited flow, as
iperf3 -b: 128 KiB writes whenever it is behind its schedule).

--reverse: the server sends (downlink). The client prints iperf3-like JSON: intervals
(0.1 s) with sum.bytes/bits_per_second, end.sum_received, and the MPTCP flag.
"""
import argparse
import json
import socket
import struct
import sys
import time

IPPROTO_MPTCP = 262
HDR = struct.Struct("!BdQ16sd")      # reverse, seconds, bytes, cc name, rate (bit/s)
CHUNK = 256 * 1024


def mk_sock(cc):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    return s


def send_for(conn, seconds, nbytes, rate=0.0):
    buf = b"\0" * CHUNK
    t0 = time.monotonic()
    sent, end = 0, t0 + seconds if seconds else None
    while (end is None or time.monotonic() < end) and (not nbytes or sent < nbytes):
        if rate:        # behind schedule: write; ahead: wait (iperf3 -b style)
            ahead = sent * 8 / rate - (time.monotonic() - t0)
            if ahead > 0:
                time.sleep(min(ahead, 0.01))
                continue
        n = conn.send(buf if not nbytes else buf[:min(CHUNK, nbytes - sent)])
        sent += n
    conn.shutdown(socket.SHUT_WR)
    return sent


def recv_all(conn, interval=0.1):
    t0 = time.monotonic()
    total, ivals, last_t, last_b = 0, [], t0, 0
    while True:
        data = conn.recv(CHUNK)
        now = time.monotonic()
        if data:
            total += len(data)
        if now - last_t >= interval or not data:
            ivals.append({"sum": {"start": last_t - t0, "end": now - t0,
                                  "bytes": total - last_b,
                                  "bits_per_second": (total - last_b) * 8 / max(now - last_t, 1e-9)}})
            last_t, last_b = now, total
        if not data:
            return total, now - t0, ivals


def server(a):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(1)
    conn, _ = ls.accept()
    rev, secs, nbytes, cc, rate = HDR.unpack(conn.recv(HDR.size, socket.MSG_WAITALL))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.rstrip(b"\0"))
    if rev:
        send_for(conn, secs, nbytes, rate)
        conn.recv(1)
    else:
        recv_all(conn)
    conn.close()
    return 0


def client(a):
    s = mk_sock(a.C)
    s.connect((a.connect, a.port))
    rate = (a.rate_mbit or 0.0) * 1e6
    s.sendall(HDR.pack(1 if a.reverse else 0, a.time or 0.0, a.bytes or 0, a.C.encode(),
                       rate))
    if a.reverse:
        total, secs, ivals = recv_all(s)
    else:
        t0 = time.monotonic()
        total = send_for(s, a.time, a.bytes, rate)
        s.recv(1)
        secs, ivals = time.monotonic() - t0, []
    s.close()
    print(json.dumps({"start": {"test_start": {"protocol": "MPTCP"}, "mptcp_socket": True},
                      "intervals": ivals,
                      "end": {"sum_received": {"bytes": total, "seconds": secs,
                                               "bits_per_second": total * 8 / max(secs, 1e-9)}}}))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("server", "client"))
    ap.add_argument("--port", type=int, default=5301)
    ap.add_argument("--connect")
    ap.add_argument("-C", default="cubic")
    ap.add_argument("--time", type=float)
    ap.add_argument("--bytes", type=int)
    ap.add_argument("--reverse", action="store_true")
    ap.add_argument("--rate-mbit", type=float)
    a = ap.parse_args()
    return server(a) if a.mode == "server" else client(a)


if __name__ == "__main__":
    sys.exit(main())
