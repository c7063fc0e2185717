#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
"""bench/dedup/gen.py: the input of bench/dedup/run, deterministic for a seed.

    gen.py OUTDIR [--rows N] [--keys K] [--small S] [--seed S]

Writes into OUTDIR:
  events.jsonl    N rows {"id": i, "k": "k<key>", "v": <int>}, id 1..N in order, each key
                  uniform over K keys (so a key's first row is anywhere in the file; with N = 10K
                  nearly every key occurs), v uniform in [0, 1e6).
  small.jsonl     the first S lines of events.jsonl (Flink's small run; 0: not written).
  expected.txt    `first ROWS MD5` (the first row of each key of events.jsonl) and `first-small
                  ROWS MD5` (the same for small.jsonl): MD5 over the lines "id|k|v" ordered by id.
                  Computed by a second pass that reads the written file back with json.loads,
                  not from the generator's own memory.
"""
import argparse
import hashlib
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("outdir")
p.add_argument("--rows", type=int, default=10000000)
p.add_argument("--keys", type=int, default=1000000)
p.add_argument("--small", type=int, default=0)
p.add_argument("--seed", type=int, default=31)
a = p.parse_args()

rng = random.Random(a.seed)
os.makedirs(a.outdir, exist_ok=True)
ev = os.path.join(a.outdir, "events.jsonl")
with open(ev, "w", buffering=1 << 20) as f:
    w = f.write
    rr = rng.randrange
    for i in range(1, a.rows + 1):
        w('{"id":%d,"k":"k%07d","v":%d}\n' % (i, rr(a.keys), rr(1000000)))


def first_rows(path, limit):
    seen = {}
    with open(path) as f:
        for n, line in enumerate(f):
            if n >= limit:
                break
            r = json.loads(line)
            if r["k"] not in seen:
                seen[r["k"]] = (r["id"], r["v"])
    h = hashlib.md5()
    for k, (i, v) in sorted(seen.items(), key=lambda kv: kv[1][0]):
        h.update(("%d|%s|%d\n" % (i, k, v)).encode())
    return len(seen), h.hexdigest()


lines = ["first %d %s" % first_rows(ev, a.rows)]
if a.small > 0:
    with open(ev) as src, open(os.path.join(a.outdir, "small.jsonl"), "w") as dst:
        for n, line in enumerate(src):
            if n >= a.small:
                break
            dst.write(line)
    lines.append("first-small %d %s" % first_rows(ev, a.small))
with open(os.path.join(a.outdir, "expected.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("gen.py: %d rows over %d keys; %s" % (a.rows, a.keys, "; ".join(lines)))
