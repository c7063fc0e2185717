#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/rocketmq/cdc_workload.py: the change workload of the CDC replica tests
# (t_cdc_debezium.sh) and the tools that check its replicas.
#
#   gen SEED KEYS SNAPSHOT N DIR
#       DIR/init.sql: SNAPSHOT rows (keys drawn from 0..KEYS-1) inserted in one transaction,
#       v = 0..SNAPSHOT-1; DIR/work.sql: N statements, each changing exactly one row, in
#       transactions of 1 to 10 statements (a DO block each; a key is sometimes changed again
#       in the same transaction): an INSERT of a key that is absent, else an UPDATE (3 in 4; v and a random
#       subset of the other columns) or a DELETE. Statement i sets v = SNAPSHOT + i, so v grows
#       with the order of the changes. The table: (id INT PRIMARY KEY, v BIGINT, name
#       VARCHAR(40), amount NUMERIC(10, 2), flag BOOLEAN, ts TIMESTAMP, note VARCHAR NULL).
#   fold EVENTS
#       reads debezium-json events (one JSON per line, as `rmq-interop consume --print`
#       prints them, with or without the schema envelope), checks that each key's events come
#       in the order of their v (Debezium's NUMERIC as strings, TIMESTAMP as epoch ms), folds
#       them into rows and prints them as row lines (below).
#   diff NAME-A FILE-A NAME-B FILE-B
#       compares two row files (one row a line, "id|..."), prints the keys that differ (at most
#       10, with both sides); exit 1 if any.
# Row lines are "id|v|name|amount|flag|ts|note": amount with two decimals, flag true/false,
# ts "YYYY-MM-DD HH:MM:SS.mmm" (UTC), note \N when NULL; ordered by id.
import datetime
import json
import random
import sys

CHARS = "abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789 é中ü'\"\\_-%"
EPOCH = datetime.datetime(1970, 1, 1)


def text(rnd, lo, hi):
    return "".join(rnd.choice(CHARS) for _ in range(rnd.randint(lo, hi)))


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def values(rnd):
    """Random column values (without id and v) as SQL literals."""
    cents = rnd.randint(-9999999999, 9999999999)
    if rnd.random() < 0.1:
        cents = rnd.choice([0, 1, -1, 9999999999, -9999999999])
    amount = "%s%d.%02d" % ("-" if cents < 0 else "", abs(cents) // 100, abs(cents) % 100)
    # 1950..2089, milliseconds: rocketsql's TIMESTAMP(3) holds them exactly
    ms = rnd.randint(-631152000000, 3786825600000)
    ts = (EPOCH + datetime.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    note = "NULL" if rnd.random() < 0.3 else quote(text(rnd, 0, 30))
    return {"name": quote(text(rnd, 1, 20)), "amount": amount,
            "flag": rnd.choice(["TRUE", "FALSE"]), "ts": quote(ts), "note": note}


def insert(k, v, c):
    return "INSERT INTO src VALUES (%d, %d, %s, %s, %s, %s, %s);" % (
        k, v, c["name"], c["amount"], c["flag"], c["ts"], c["note"])


def gen(seed, keys, snapshot, n, out):
    rnd = random.Random(seed)
    live = set()
    with open(out + "/init.sql", "w") as f:
        f.write("BEGIN;\n")
        for v, k in enumerate(rnd.sample(range(keys), snapshot)):
            f.write(insert(k, v, values(rnd)) + "\n")
            live.add(k)
        f.write("COMMIT;\n")
    ops = {"insert": 0, "update": 0, "delete": 0}
    with open(out + "/work.sql", "w") as f:
        i = 0
        while i < n:
            size = min(rnd.randint(1, 10), n - i)
            # one DO block a transaction: one round trip to the server each
            f.write("DO $w$ BEGIN\n")
            k = None
            for _ in range(size):
                if k is None or rnd.random() >= 0.15:
                    k = rnd.randrange(keys)
                v = snapshot + i
                if k not in live:
                    f.write(insert(k, v, values(rnd)) + "\n")
                    live.add(k)
                    ops["insert"] += 1
                elif rnd.random() < 0.75:
                    c = values(rnd)
                    sets = ["v = %d" % v] + ["%s = %s" % (col, c[col]) for col in sorted(c)
                                             if rnd.random() < 0.5]
                    f.write("UPDATE src SET %s WHERE id = %d;\n" % (", ".join(sets), k))
                    ops["update"] += 1
                else:
                    f.write("DELETE FROM src WHERE id = %d;\n" % k)
                    live.discard(k)
                    ops["delete"] += 1
                i += 1
            f.write("END $w$;\n")
    print("workload: %d snapshot rows, %d changes (%d inserts, %d updates, %d deletes), "
          "%d rows at the end" % (snapshot, n, ops["insert"], ops["update"], ops["delete"], len(live)))


def row_line(r):
    ms = r["ts"]
    ts = (EPOCH + datetime.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return "%d|%d|%s|%s|%s|%s|%s" % (r["id"], r["v"], r["name"], r["amount"],
                                     "true" if r["flag"] else "false", ts,
                                     "\\N" if r["note"] is None else r["note"])


def fold(path):
    rows, last_v, n, bad = {}, {}, 0, []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line.startswith("{"):
            continue
        e = json.loads(line)
        if "payload" in e and "schema" in e:
            e = e["payload"]
        n += 1
        op, before, after = e["op"], e.get("before"), e.get("after")
        r = after if op in ("c", "r", "u") else before
        k, v = r["id"], r["v"]
        # a delete's "before" is the row as the key's last event left it (the same v)
        if k in last_v and (v != last_v[k] if op == "d" else v <= last_v[k]):
            bad.append("key %d: %s with v %d after v %d" % (k, op, v, last_v[k]))
        last_v[k] = v
        if op == "d":
            rows.pop(k, None)
        else:
            rows[k] = after
    for b in bad[:10]:
        print("order: " + b, file=sys.stderr)
    for k in sorted(rows):
        print(row_line(rows[k]))
    print("fold: %d events, %d keys, %d order violations, %d rows" % (n, len(last_v), len(bad), len(rows)),
          file=sys.stderr)
    return 1 if bad else 0


def diff(na, fa, nb, fb):
    def load(f):
        d = {}
        for line in open(f, encoding="utf-8"):
            line = line.rstrip("\n")
            if line:
                d[int(line.split("|", 1)[0])] = line
        return d
    a, b = load(fa), load(fb)
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    for k in keys[:10]:
        print("key %d: %s %s / %s %s" % (k, na, a.get(k, "(no row)"), nb, b.get(k, "(no row)")))
    if keys:
        print("%d keys differ between %s (%d rows) and %s (%d rows)" % (len(keys), na, len(a), nb, len(b)))
    return 1 if keys else 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "gen" and len(argv) == 7:
        gen(int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5]), argv[6])
        return 0
    if cmd == "fold" and len(argv) == 3:
        return fold(argv[2])
    if cmd == "diff" and len(argv) == 6:
        return diff(argv[2], argv[3], argv[4], argv[5])
    print("usage: cdc_workload.py gen SEED KEYS SNAPSHOT N DIR | fold EVENTS | diff NAME-A FILE-A "
          "NAME-B FILE-B (see its head)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
