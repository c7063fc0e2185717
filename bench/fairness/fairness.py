#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# bench/fairness/fairness.py: the two halves of bench/fairness/run that are not shell.
#
#   fairness.py reader FIFO OUT ROWS_PER_S
#       The slow sink: reads JSON lines from the named pipe FIFO (rocketsql's filesystem sink
#       writes into it) and takes a fixed 1/ROWS_PER_S seconds per row (an absolute schedule,
#       so the capacity is exactly ROWS_PER_S). For each row it appends
#       "<arrival epoch ms> <lite_topic> <id>" to OUT (flushed per row).
#   fairness.py report OUT DEBUG_LOG HOT_LITE COLD_PREFIX N_HOT N_COLD N_COLD_TOPICS
#       Joins the arrivals with the born timestamps of rocketsql's ROCKETSQL_LOG=trace log
#       ("rmq-throttle: admit|valve|defer lite=L key=K ... born=MS ...") and prints one line
#         cold_p50_ms=.. cold_p99_ms=.. cold_n=.. hot_n=.. hot_msgs_per_s=.. hot_window_s=..
#         missing=.. duplicates=.. unexpected=.. deferred=.. valve=.. max_defer_attempt=..
#         max_defer_ms=..
#       hot_msgs_per_s = hot rows that reached the sink while the cold producer was sending
#       (first to last cold born time), per second. Exit 0 always (the caller judges).
import json
import os
import re
import sys
import time


def reader(fifo, out, rate):
    per = 1.0 / float(rate)
    nxt = time.monotonic()
    with open(fifo, "r", buffering=1) as f, open(out, "a", buffering=1) as o:
        for line in f:
            line = line.strip()
            if not line:
                continue
            now = time.time()
            try:
                r = json.loads(line)
                o.write("%d %s %s\n" % (int(now * 1000), r.get("lite_topic"), r.get("id")))
            except ValueError:
                o.write("%d ? %s\n" % (int(now * 1000), line[:40]))
            m = time.monotonic()
            nxt = max(nxt, m) + per
            time.sleep(max(0.0, nxt - m))


DEBUG_RE = re.compile(r"rmq-throttle: (\w+) lite=(\S+) key=(\S+) id=\S+ attempt=(-?\d+) "
                      r"born=(-?\d+) defer_ms=(-?\d+)")


def pct(v, p):
    if not v:
        return -1
    v = sorted(v)
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def report(out, dbg, hot, cold_prefix, n_hot, n_cold, n_cold_topics):
    n_hot, n_cold, n_cold_topics = int(n_hot), int(n_cold), int(n_cold_topics)
    born = {}
    deferred = valve = 0
    max_defer_attempt = 0
    max_defer_ms = 0
    if os.path.exists(dbg):
        for line in open(dbg, errors="replace"):
            m = DEBUG_RE.search(line)
            if not m:
                continue
            what, lite, key, attempt, b, d = m.groups()
            born[(lite, key)] = int(b)
            if what == "defer":
                deferred += 1
                max_defer_attempt = max(max_defer_attempt, int(attempt))
                max_defer_ms = max(max_defer_ms, int(d))
            elif what == "valve":
                valve += 1
    want = set()
    for i in range(n_hot):
        want.add((hot, str(i)))
    for i in range(n_cold):
        want.add(("%s%d" % (cold_prefix, i % n_cold_topics), str(i)))
    seen = {}
    arrivals = []
    if os.path.exists(out):
        for line in open(out):
            p = line.split()
            if len(p) != 3:
                continue
            k = (p[1], p[2])
            seen[k] = seen.get(k, 0) + 1
            arrivals.append((int(p[0]), k))
    cold_lat, hot_times, cold_borns = [], [], []
    for t, k in arrivals:
        if k not in want:
            continue
        if k[0] == hot:
            hot_times.append(t)
        elif k in born:
            cold_lat.append(t - born[k])
            cold_borns.append(born[k])
    missing = sum(1 for k in want if k not in seen)
    dups = sum(c - 1 for k, c in seen.items() if k in want and c > 1)
    unexpected = sum(1 for k in seen if k not in want and not k[0].endswith("warm0"))
    if cold_borns:
        w0, w1 = min(cold_borns), max(cold_borns)
    elif hot_times:
        w0, w1 = min(hot_times), max(hot_times)
    else:
        w0 = w1 = 0
    window = max(0.001, (w1 - w0) / 1000.0)
    hot_in = sum(1 for t in hot_times if w0 <= t <= w1)
    print("cold_p50_ms=%d cold_p99_ms=%d cold_n=%d hot_n=%d hot_msgs_per_s=%.1f hot_window_s=%.1f "
          "missing=%d duplicates=%d unexpected=%d deferred=%d valve=%d max_defer_attempt=%d "
          "max_defer_ms=%d" % (pct(cold_lat, 50), pct(cold_lat, 99), len(cold_lat),
                               len(hot_times), hot_in / window, window, missing, dups,
                               unexpected, deferred, valve, max_defer_attempt, max_defer_ms))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "reader" and len(sys.argv) == 5:
        reader(*sys.argv[2:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "report" and len(sys.argv) == 9:
        report(*sys.argv[2:])
    else:
        sys.stderr.write("usage: fairness.py reader FIFO OUT ROWS_PER_S | report OUT DEBUG_LOG "
                         "HOT_LITE COLD_PREFIX N_HOT N_COLD N_COLD_TOPICS\n")
        sys.exit(2)
