#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A user-space NAT between the UE and the anchor, for test_rebind.sh (this kernel has
no netfilter NAT, tc pedit or netem). It listens on LISTEN_IP:LISTEN_PORT (the UE's
Endpoint) and forwards the UE's datagrams to UPSTREAM_IP:UPSTREAM_PORT from a mapping
socket of its own (an ephemeral port, like a NAT's), and the anchor's answers back.

  SIGUSR1  NAT rebinding: the mapping socket is closed and a new one (a new source port)
           carries the flow from then on, as when a NAT forgets a mapping mid-flow.
  SIGUSR2  on-path copier on/off: each of the UE's transport datagrams is also sent at
           once from a third socket (another address: the attacker), and the original
           is held back DELAY_MS, so the copy always wins the race. What comes back to
           the attacker socket is counted and dropped: an observer cannot answer a
           challenge it cannot read.
  SIGHUP   the anchor's side moves: a new listening socket (LISTEN_PORT + 1, then + 2,
           ...) sends the anchor's datagrams to the UE from then on; every listening
           socket still takes the UE's (as a multi-homed anchor would).

STATE_FILE is rewritten on every change and every second: main_port= atk_port=
atk_tx_bytes= atk_rx_bytes= rebound_ns= (CLOCK_MONOTONIC of the last rebinding)."""
import heapq
import os
import selectors
import signal
import socket
import sys
import time

MSG_TRANSPORT = 3


def main():
    lip, lport, uip, uport, delay_ms, state = sys.argv[1:7]
    up = (uip, int(uport))
    delay = int(delay_ms) / 1000.0
    lsock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lsock.bind((lip, int(lport)))
    lsocks = [lsock]
    st = {"main": None, "atk": None, "ue": None, "race": False, "atk_tx": 0, "atk_rx": 0,
          "rebound_ns": 0, "flags": []}
    sel = selectors.DefaultSelector()

    def new_sock(key):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((lip, 0))
        s.setblocking(False)
        if st[key] is not None:
            sel.unregister(st[key])
            st[key].close()
        st[key] = s
        sel.register(s, selectors.EVENT_READ, key)

    def write_state():
        with open(state + ".tmp", "w") as f:
            f.write("main_port=%d atk_port=%d atk_tx_bytes=%d atk_rx_bytes=%d "
                    "rebound_ns=%d race=%d anchor_port=%d\n" % (
                        st["main"].getsockname()[1], st["atk"].getsockname()[1],
                        st["atk_tx"], st["atk_rx"], st["rebound_ns"], int(st["race"]),
                        lsocks[-1].getsockname()[1]))
        os.replace(state + ".tmp", state)

    new_sock("main")
    new_sock("atk")
    lsock.setblocking(False)
    sel.register(lsock, selectors.EVENT_READ, "listen")
    signal.signal(signal.SIGUSR1, lambda *_: st["flags"].append("rebind"))
    signal.signal(signal.SIGUSR2, lambda *_: st["flags"].append("race"))
    signal.signal(signal.SIGHUP, lambda *_: st["flags"].append("move"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    held = []   # (due, seq, bytes): originals held back while racing
    seq = 0
    last_write = 0.0
    write_state()
    while True:
        for fl in st["flags"]:
            if fl == "rebind":
                new_sock("main")
                st["rebound_ns"] = time.monotonic_ns()
            elif fl == "race":
                st["race"] = not st["race"]
            elif fl == "move":
                lsock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                lsock.bind((lip, int(lport) + len(lsocks)))
                lsock.setblocking(False)
                lsocks.append(lsock)
                sel.register(lsock, selectors.EVENT_READ, "listen")
            elif fl == "stop":
                write_state()
                return
            write_state()
        st["flags"].clear()
        now = time.monotonic()
        while held and held[0][0] <= now:
            _, _, data = heapq.heappop(held)
            st["main"].sendto(data, up)
        timeout = min(0.2, max(0.0, held[0][0] - now)) if held else 0.2
        try:
            events = sel.select(timeout)
        except InterruptedError:
            continue
        for key, _ in events:
            try:
                data, addr = key.fileobj.recvfrom(65535)
            except (BlockingIOError, ConnectionRefusedError):
                continue
            if key.data == "listen":
                st["ue"] = addr
                if st["race"] and data and data[0] == MSG_TRANSPORT:
                    st["atk"].sendto(data, up)
                    st["atk_tx"] += len(data)
                    seq += 1
                    heapq.heappush(held, (time.monotonic() + delay, seq, data))
                else:
                    st["main"].sendto(data, up)
            elif key.data == "main":
                if st["ue"]:
                    lsocks[-1].sendto(data, st["ue"])
            else:
                st["atk_rx"] += len(data)
        if time.monotonic() - last_write > 1.0:
            last_write = time.monotonic()
            write_state()


if __name__ == "__main__":
    main()
