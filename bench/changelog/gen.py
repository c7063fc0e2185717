#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
"""bench/changelog/gen.py: the input of bench/changelog/run, deterministic for a seed.

    gen.py OUTDIR [--events N] [--keys K] [--update-pct 60] [--delete-pct 10] [--seed S]

Writes into OUTDIR:
  changes.jsonl   N Debezium change events of a PostgreSQL table public.customers, as the
                  Debezium PostgreSQL connector writes them with schemas disabled
                  (value.converter.schemas.enable=false) and REPLICA IDENTITY FULL (the full
                  old row in `before` of an update and a delete, which Flink's debezium-json
                  needs): first the initial snapshot of K rows (op "r", ids 1..K), then the
                  stream, shuffled with the seed: N * update-pct % updates ("u") and
                  N * delete-pct % deletes ("d") of keys present, the rest inserts ("c") of new
                  keys (ids after K, as a serial key gives them). The stream is valid: no
                  insert of a key present, no update or delete of a key absent.
  rows.jsonl      N plain JSON rows of the same columns for the append baseline: line i is the
                  row image of event i (`after`, or `before` of a delete) with id = i.
  expected.txt    what the tables must hold afterwards, computed here from the events:
                  `apply ROWS MD5` (the final table) and `append ROWS MD5` (rows.jsonl), MD5
                  over the canonical dump, one line per row ordered by id:
                  id|name|email|qty|round(score * 100)|updated_at (a null as the empty text).
  expected-apply.txt  that canonical dump of the final table (for a diff when a check fails).

Columns: id BIGINT (the key), name VARCHAR, email VARCHAR (null in ~5 % of rows), qty INT,
score DOUBLE (hundredths), updated_at BIGINT (Debezium's MicroTimestamp: microseconds since
the epoch, as a PostgreSQL `timestamp` is written without a schema).
"""
import argparse
import hashlib
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("outdir")
p.add_argument("--events", type=int, default=1000000)
p.add_argument("--keys", type=int, default=100000)
p.add_argument("--update-pct", type=int, default=60)
p.add_argument("--delete-pct", type=int, default=10)
p.add_argument("--seed", type=int, default=23)
a = p.parse_args()

n, k = a.events, a.keys
n_upd = n * a.update_pct // 100
n_del = n * a.delete_pct // 100
n_ins = n - k - n_upd - n_del
if k < 1 or n_ins < 0 or n_del > k + n_ins:
    raise SystemExit("gen.py: %d events cannot hold a snapshot of %d keys, %d updates and %d deletes"
                     % (n, k, n_upd, n_del))
rng = random.Random(a.seed)
BASE_US = 1764633600000000  # 2025-12-02 00:00:00 UTC
FIRST = ["Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Donald", "Frances", "John",
         "Margaret", "Niklaus", "Radia", "Tim", "Yukihiro", "Anders", "Guido", "Bjarne",
         "Dennis", "Sophie", "Katherine"]
LAST = ["Lovelace", "Hopper", "Torvalds", "Thompson", "Liskov", "Dijkstra", "Knuth", "Allen",
        "McCarthy", "Hamilton", "Wirth", "Perlman", "Berners-Lee", "Matsumoto", "Hejlsberg",
        "van Rossum", "Stroustrup", "Ritchie", "Wilson", "O'Brien"]


def new_row(key, us):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    name = "%s %s" % (first, last)
    email = None if rng.random() < 0.05 else "%s.%d@example.com" % (first.lower(), key)
    return [key, name, email, rng.randrange(0, 1000), rng.randrange(0, 1000000) / 100.0, us]


def changed(row, us):
    r = list(row)
    r[3] = rng.randrange(0, 1000)
    r[4] = rng.randrange(0, 1000000) / 100.0
    r[5] = us
    if rng.random() < 0.2:
        first = rng.choice(FIRST)
        r[1] = "%s %s" % (first, rng.choice(LAST))
        r[2] = None if rng.random() < 0.05 else "%s.%d@example.com" % (first.lower(), r[0])
    return r


dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def img(r):
    return ('{"id":%d,"name":%s,"email":%s,"qty":%d,"score":%r,"updated_at":%d}'
            % (r[0], dumps(r[1]), dumps(r[2]), r[3], r[4], r[5]))


def canon(r):
    return "%d|%s|%s|%d|%d|%d" % (r[0], r[1], "" if r[2] is None else r[2], r[3],
                                  round(r[4] * 100), r[5])


os.makedirs(a.outdir, exist_ok=True)
live = {}        # key -> row
keys = []        # the live keys, for a uniform choice; pos[key] = its index
pos = {}
ops = ["u"] * n_upd + ["d"] * n_del + ["c"] * n_ins
rng.shuffle(ops)
ops = ["r"] * k + ops
next_key = k + 1
lsn = 24023928
tx = 780
tx_left = 0
app_md5 = hashlib.md5()
with open(os.path.join(a.outdir, "changes.jsonl"), "w", buffering=1 << 20) as ch, \
        open(os.path.join(a.outdir, "rows.jsonl"), "w", buffering=1 << 20) as rows:
    for i, op in enumerate(ops):
        us = BASE_US + i * 1000 + rng.randrange(0, 1000)
        ms = us // 1000
        if op == "r":
            key = i + 1
            before, after = None, new_row(key, us)
            snap = "first" if i == 0 else ("last" if i == k - 1 else "true")
            seq = '[null,\\"%d\\"]' % lsn
            txid = tx
        else:
            if tx_left == 0:
                tx += 1
                tx_left = rng.randrange(1, 6)
            tx_left -= 1
            lsn += rng.randrange(40, 400)
            snap = "false"
            seq = '[\\"%d\\",\\"%d\\"]' % (lsn - 56, lsn)
            txid = tx
            if op == "c":
                key = next_key
                next_key += 1
                before, after = None, new_row(key, us)
            else:
                key = keys[rng.randrange(len(keys))]
                before = live[key]
                after = changed(before, us) if op == "u" else None
        if after is not None:
            if key not in live:
                pos[key] = len(keys)
                keys.append(key)
            live[key] = after
        else:
            j = pos.pop(key)
            last = keys.pop()
            if last != key:
                keys[j] = last
                pos[last] = j
            del live[key]
        ch.write('{"before":%s,"after":%s,"source":{"version":"3.6.1.Final","connector":'
                 '"postgresql","name":"bench","ts_ms":%d,"snapshot":"%s","db":"shop",'
                 '"sequence":"%s","ts_us":%d,"ts_ns":%d,"schema":"public","table":"customers",'
                 '"txId":%d,"lsn":%d,"xmin":null},"transaction":null,"op":"%s","ts_ms":%d,'
                 '"ts_us":%d,"ts_ns":%d}\n'
                 % ("null" if before is None else img(before),
                    "null" if after is None else img(after),
                    ms, snap, seq, us, us * 1000, txid, lsn, op, ms + 7, us + 7000,
                    (us + 7000) * 1000))
        plain = list(after if after is not None else before)
        plain[0] = i + 1
        rows.write(img(plain) + "\n")
        app_md5.update((canon(plain) + "\n").encode())

final_md5 = hashlib.md5()
with open(os.path.join(a.outdir, "expected-apply.txt"), "w", buffering=1 << 20) as f:
    for key in sorted(live):
        line = canon(live[key]) + "\n"
        f.write(line)
        final_md5.update(line.encode())
with open(os.path.join(a.outdir, "expected.txt"), "w") as f:
    f.write("apply %d %s\n" % (len(live), final_md5.hexdigest()))
    f.write("append %d %s\n" % (n, app_md5.hexdigest()))
print("gen.py: %d events (snapshot %d, inserts %d, updates %d, deletes %d), %d keys in all, "
      "%d rows at the end" % (n, k, n_ins, n_upd, n_del, next_key - 1, len(live)))
