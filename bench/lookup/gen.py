#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
"""bench/lookup/gen.py DIR [--orders N] [--customers K] [--hot H] [--hot-share P] [--seed S]

The input of bench/lookup/run, seeded (the same arguments give the same files):

  customers.csv      K customers: id (1..K), name, tier (0..4), for psql's \\copy
  uniform.jsonl      N orders {"oid", "cid", "amount"}: oid 1..N, cid uniform over 1..K (in a
  uniform.csv        batch of 256 rows nearly every cid is distinct), amount in cents
  hot.jsonl          N orders whose cid is one of a hot set of H customers (chosen at random
  hot.csv            among the K) with probability P (default 0.9), else uniform over 1..K
  expected.txt       per order file: its name, the rows of the join, the distinct cids

The .csv files hold the same orders as the .jsonl files, for loading them into PostgreSQL
(the reference join is psql's own, over these tables).
"""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--orders", type=int, default=1000000)
    ap.add_argument("--customers", type=int, default=100000)
    ap.add_argument("--hot", type=int, default=10000)
    ap.add_argument("--hot-share", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=20261203)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    rnd = random.Random(a.seed)
    with open(os.path.join(a.dir, "customers.csv"), "w") as f:
        for i in range(1, a.customers + 1):
            f.write("%d,customer-%06d,%d\n" % (i, i, rnd.randrange(5)))
    hot = rnd.sample(range(1, a.customers + 1), min(a.hot, a.customers))
    expected = []
    for name in ("uniform", "hot"):
        seen = set()
        with open(os.path.join(a.dir, name + ".jsonl"), "w") as fj, \
                open(os.path.join(a.dir, name + ".csv"), "w") as fc:
            for oid in range(1, a.orders + 1):
                if name == "hot" and rnd.random() < a.hot_share:
                    cid = hot[rnd.randrange(len(hot))]
                else:
                    cid = rnd.randrange(1, a.customers + 1)
                amount = rnd.randrange(100, 100000)
                seen.add(cid)
                fj.write('{"oid":%d,"cid":%d,"amount":%d}\n' % (oid, cid, amount))
                fc.write("%d,%d,%d\n" % (oid, cid, amount))
        expected.append("%s %d %d" % (name, a.orders, len(seen)))
    with open(os.path.join(a.dir, "expected.txt"), "w") as f:
        f.write("\n".join(expected) + "\n")


if __name__ == "__main__":
    main()
