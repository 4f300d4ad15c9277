#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of the testbed's outage figures (testbed/results.py: outage_gaps,
gap_columns) on made-up 100 ms goodput samples: no network, no lock.

Two 50 Mbit/s paths, path1 blackholed at t = 4 s and back at 7 s, again at 16 s and
back at 19 s; half of the surviving capacity is 25 Mbit/s. The first outage has a
400 ms first dip (back in the 4.4 sample), then stalls of 300 ms and of 400 ms across
the path's return (a stall of the outage, not of the return); the second outage a
200 ms dip and a stall of 400 ms after the path's return; the flow ends with samples
at 0 (not a dip).
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testbed"))
import results      # noqa: E402


def server_samples(goodput):
    """samples-server.jsonl records whose bytes_acked give `goodput` (t -> Mbit/s,
    90 otherwise) over 0.1 s steps from t = 0 to 22 s."""
    recs, acked = [], 10 ** 6
    for k in range(0, 221):
        t = k / 10
        if k:
            acked += int(goodput(round(t, 1)) * 1e6 / 8 * 0.1)
        recs.append({"t": t, "ss": [{"dst": "x", "bytes_acked": acked}]})
    return recs


def low(t):
    if 4.1 <= t <= 4.3 or 5.0 <= t <= 5.1:      # first dip 4.0-4.4, second 4.9-5.2
        return 1.0
    if 6.9 <= t <= 7.1:                         # a stall across the return at 7 s
        return 2.0
    if t == 16.1:                               # first dip 16.0-16.2
        return 3.0
    if 19.5 <= t <= 19.7:                       # after the return at 19: 19.4-19.8
        return 0.0
    if t >= 21.5:                               # the flow's end
        return 0.0
    return 45.0 if 4 < t < 7 or 16 < t < 19 else 90.0


META = {"kind": "tunnel", "sched": "cpf", "direction": "down",
        "rates": {"path1": 50, "path2": 50},
        "schedule_applied": [
            {"t": 4.0, "path": 1, "change": {"loss_down_pct": 100, "loss_up_pct": 100}},
            {"t": 7.0, "path": 1, "change": {"loss_down_pct": 0, "loss_up_pct": 0}},
            {"t": 16.0, "path": 1, "change": {"loss_down_pct": 100, "loss_up_pct": 100}},
            {"t": 19.0, "path": 1, "change": {"loss_down_pct": 0, "loss_up_pct": 0}},
            {"t": 28.0, "path": 1, "change": {"loss_down_pct": 100, "loss_up_pct": 100}}]}


class OutageGaps(unittest.TestCase):
    def test_every_outage(self):
        g = results.outage_gaps(server_samples(low), META, 22.0)
        self.assertEqual([x["t"] for x in g], [4.0, 16.0])     # 28 s: after the flow
        self.assertAlmostEqual(g[0]["failover"], 400, delta=1)  # back in the 4.4 sample
        self.assertAlmostEqual(g[0]["restall"], 400, delta=1)   # 6.8 .. back at 7.2
        self.assertAlmostEqual(g[0]["comeback"], 0, delta=1)
        self.assertAlmostEqual(g[1]["failover"], 200, delta=1)
        self.assertAlmostEqual(g[1]["restall"], 0, delta=1)
        self.assertAlmostEqual(g[1]["comeback"], 400, delta=1)  # 19.4 .. back at 19.8

    def test_columns(self):
        row = results.gap_columns(results.outage_gaps(server_samples(low), META, 22.0))
        self.assertAlmostEqual(row["failover_ms"], 400, delta=1)       # the worst
        self.assertAlmostEqual(row["failover_med_ms"], 300, delta=1)   # median of 2
        self.assertAlmostEqual(row["restall_ms"], 400, delta=1)
        self.assertAlmostEqual(row["comeback_ms"], 400, delta=1)
        self.assertEqual(row["failover_each_ms"], "400 200")

    def test_flow_end_is_no_dip(self):
        """A run still low at the series' end (the flow stopped) is not a stall."""
        meta = dict(META, schedule_applied=META["schedule_applied"][:3])  # 16 s: no return
        g = results.outage_gaps(server_samples(lambda t: 0.0 if t >= 20.0 else low(t)),
                                meta, 22.0)
        self.assertIsNone(g[1]["comeback"])
        self.assertAlmostEqual(g[1]["restall"], 400, delta=1)  # 19.4-19.8; not 19.9-

    def test_late_first_dip_is_the_failover(self):
        """A dip that starts late (MPTCP's subflows are acknowledged for a while) is
        still the outage's failover gap, from the outage."""
        late = lambda t: 2.0 if 4.6 <= t <= 4.8 else low(t) if t > 4.4 else \
            (45.0 if t > 4.0 else 90.0)
        g = results.outage_gaps(server_samples(late), META, 22.0)
        self.assertAlmostEqual(g[0]["failover"], 900, delta=1)  # 4.0 .. back at 4.9
        self.assertAlmostEqual(g[0]["restall"], 400, delta=1)   # 6.8 .. 7.2

    def test_single_path_sees_its_own(self):
        meta = dict(META, kind="single", sched="single:path2")
        self.assertEqual(results.outage_gaps(server_samples(low), meta, 22.0), [])
        self.assertEqual(results.gap_columns([]), {})


if __name__ == "__main__":
    unittest.main()
