#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
"""bench/windows/gen.py: the input of bench/windows/run (case tumble), deterministic for a seed.

    gen.py OUTDIR [--rows N] [--keys K] [--small S] [--seed S] [--rate R] [--disorder-ms D]

Writes into OUTDIR:
  events.jsonl   N rows {"id": i, "k": "k<key>", "v": <int>, "ts": "YYYY-MM-DD HH:MM:SS.mmm"},
                 id 1..N in order, k uniform over K keys, v uniform in [0, 1e6); event time
                 advances R rows a second (default 1000: one row a millisecond, from
                 2026-03-01 00:01:00), each row's ts set back by a uniform 0..D-1 ms (default
                 D = 5000): out of order by less than the 5 s of the WATERMARK, so that no row
                 is late and every row counts.
  small.jsonl    the first S lines of events.jsonl (0: not written).
  expected.txt   "tumble ROWS MD5" (and "tumble-small ROWS MD5"): the 1-minute tumbling windows
                 per key, the lines "k|window_start|window_end|count|sum|max" (times as
                 YYYY-MM-DD HH:MM:SS) sorted, their count and MD5. Computed by a second pass that
                 reads the written file back with json.loads and parses each ts, not from the
                 generator's own memory.
"""
import argparse
import datetime
import hashlib
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("outdir")
p.add_argument("--rows", type=int, default=10000000)
p.add_argument("--keys", type=int, default=1000)
p.add_argument("--small", type=int, default=0)
p.add_argument("--seed", type=int, default=26)
p.add_argument("--rate", type=int, default=1000)
p.add_argument("--disorder-ms", type=int, default=5000)
a = p.parse_args()

BASE = datetime.datetime(2026, 3, 1, 0, 1, 0)
rng = random.Random(a.seed)
os.makedirs(a.outdir, exist_ok=True)
ev = os.path.join(a.outdir, "events.jsonl")
days = {}


def fmt(ms):
    """ms since BASE -> 'YYYY-MM-DD HH:MM:SS.mmm'"""
    d, r = divmod(ms + 60000, 86400000)  # BASE is 00:01:00 of its day
    if d not in days:
        days[d] = (BASE.replace(minute=0) + datetime.timedelta(days=d)).strftime("%Y-%m-%d")
    s, m = divmod(r, 1000)
    h, s = divmod(s, 3600)
    mi, s = divmod(s, 60)
    return "%s %02d:%02d:%02d.%03d" % (days[d], h, mi, s, m)


with open(ev, "w", buffering=1 << 20) as f:
    w = f.write
    rr = rng.randrange
    for i in range(1, a.rows + 1):
        ms = (i - 1) * 1000 // a.rate - rr(a.disorder_ms)
        w('{"id":%d,"k":"k%04d","v":%d,"ts":"%s"}\n' % (i, rr(a.keys), rr(1000000), fmt(ms)))


def windows(path, limit):
    g = {}
    minute = datetime.timedelta(minutes=1)
    ends = {}
    with open(path) as f:
        for n, line in enumerate(f):
            if n >= limit:
                break
            r = json.loads(line)
            start = r["ts"][:16] + ":00"  # the minute holding ts (its text is YYYY-MM-DD HH:MM:SS.mmm)
            key = (r["k"], start)
            c = g.get(key)
            v = r["v"]
            g[key] = (1, v, v) if c is None else (c[0] + 1, c[1] + v, max(c[2], v))
    h = hashlib.md5()
    for (k, start) in sorted(g):
        end = ends.get(start)
        if end is None:
            end = ends[start] = (datetime.datetime.strptime(start, "%Y-%m-%d %H:%M:%S") +
                                 minute).strftime("%Y-%m-%d %H:%M:%S")
        n, s, m = g[(k, start)]
        h.update(("%s|%s|%s|%d|%d|%d\n" % (k, start, end, n, s, m)).encode())
    return len(g), h.hexdigest()


lines = ["tumble %d %s" % windows(ev, a.rows)]
if a.small > 0:
    with open(ev) as src, open(os.path.join(a.outdir, "small.jsonl"), "w") as dst:
        for n, line in enumerate(src):
            if n >= a.small:
                break
            dst.write(line)
    lines.append("tumble-small %d %s" % windows(ev, a.small))
with open(os.path.join(a.outdir, "expected.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("gen.py: %d rows over %d keys; %s" % (a.rows, a.keys, "; ".join(lines)))
