# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/e2e/pgcdc_workload.py: a seeded random workload of SQL transactions for the
# change-data-capture tests, written to stdout (piped into psql), one transaction at a time.
#
#   python3 pgcdc_workload.py schema SCHEMA      the DDL of the three tables
#   python3 pgcdc_workload.py run SCHEMA SEED SEGMENT TXNS RATE
#
# The tables: rfull (REPLICA IDENTITY FULL, bigint key, every type, now and then a TOASTed
# text that updates leave alone), rdef (DEFAULT, int key, updates that change the key) and
# rkey (DEFAULT, bigint key, jsonb, bytea, text[]). `run` writes TXNS transactions at about
# RATE a second: inserts, updates of one row or of a range, key changes, deletes, a row
# inserted, updated and deleted in one transaction, and rolled-back transactions. The rows
# an update or delete touches are picked by key (`the first key >= K`), so the statements
# never fail and the same seed against the same history gives the same tables. Keys of
# segment N start at N * 100000 + 1 (a segment is one run of this program).
import random
import sys
import time

DDL = """
CREATE TABLE {s}.rfull (id bigint PRIMARY KEY, name text, amount numeric(12, 2),
  ts timestamptz, doc jsonb, flag boolean, data bytea, uid uuid, tags int[], big text);
ALTER TABLE {s}.rfull REPLICA IDENTITY FULL;
CREATE TABLE {s}.rdef (id int PRIMARY KEY, name text, amount numeric(12, 2), ts timestamptz,
  flag boolean, uid uuid);
CREATE TABLE {s}.rkey (id bigint PRIMARY KEY, name text, doc jsonb, data bytea, tags text[],
  ts timestamptz);
"""


def q(s):
    return "NULL" if s is None else "'" + s.replace("'", "''") + "'"


class Gen:
    def __init__(self, schema, seed, segment, txns):
        self.s = schema
        self.r = random.Random(seed * 1000 + segment)
        self.segment, self.txns = segment, txns
        self.next_id = segment * 100000 + 1

    def key(self):
        # somewhere among the keys of a segment so far (each makes about one a transaction)
        b = self.r.randrange(0, self.segment + 1)
        return b * 100000 + self.r.randrange(self.txns + 1)

    def maybe(self, v, p=0.08):
        return None if self.r.random() < p else v

    def name(self):
        r = self.r
        return self.maybe("".join(r.choice(["a", "b", "Z", " ", "'", '"', "\\", "é", "日", ",",
                                            "{", "}", "\t"]) for _ in range(r.randrange(0, 12))))

    def amount(self):
        return self.maybe("%d.%02d" % (self.r.randrange(-10**8, 10**8), self.r.randrange(100)))

    def ts(self):
        r = self.r
        zone = r.choice(["+00", "+05:30", "-08", "+14"])
        return self.maybe("%04d-%02d-%02d %02d:%02d:%02d.%03d%s" % (
            r.randrange(1971, 2100), r.randrange(1, 13), r.randrange(1, 29), r.randrange(24),
            r.randrange(60), r.randrange(60), r.randrange(1000), zone))

    def doc(self):
        r = self.r
        return self.maybe('{"k": %d, "s": "%s", "a": [%d, null, true], "o": {"x": %s}}' % (
            r.randrange(1000), r.choice(["", "q\\\"uote", "ü"]), r.randrange(10),
            r.choice(["1.5", "\"y\"", "false"])))

    def data(self):
        return self.maybe("\\x" + bytes(self.r.randrange(256) for _ in range(
            self.r.randrange(0, 9))).hex())

    def uid(self):
        return self.maybe("%032x" % self.r.getrandbits(128))

    def ints(self):
        return self.maybe("{" + ",".join(self.r.choice(["NULL", str(self.r.randrange(-99, 99))])
                                         for _ in range(self.r.randrange(0, 4))) + "}")

    def texts(self):
        return self.maybe("{" + ",".join(self.r.choice(['"a b"', 'c', '"q\\"t"', 'NULL', '""'])
                                         for _ in range(self.r.randrange(0, 4))) + "}")

    def big(self):
        # 16 kB of hex digits from the seed: compresses to about half, so stored out of line
        if self.r.random() < 0.15:
            return "".join("%016x" % self.r.getrandbits(64) for _ in range(1024))
        return self.name()

    def values(self, table):
        flag = self.maybe(self.r.choice(["true", "false"]))
        if table == "rfull":
            return {"name": q(self.name()), "amount": q(self.amount()), "ts": q(self.ts()),
                    "doc": q(self.doc()), "flag": flag or "NULL", "data": q(self.data()),
                    "uid": q(self.uid()), "tags": q(self.ints()), "big": q(self.big())}
        if table == "rdef":
            return {"name": q(self.name()), "amount": q(self.amount()), "ts": q(self.ts()),
                    "flag": flag or "NULL", "uid": q(self.uid())}
        return {"name": q(self.name()), "doc": q(self.doc()), "data": q(self.data()),
                "tags": q(self.texts()), "ts": q(self.ts())}

    def pick(self, table):
        return "(SELECT id FROM %s.%s WHERE id >= %d ORDER BY id LIMIT 1)" % (
            self.s, table, self.key())

    def new_id(self):
        self.next_id += 1
        return self.next_id - 1

    def statement(self):
        r, s = self.r, self.s
        t = r.choice(["rfull", "rdef", "rkey"])
        p = r.random()
        if p < 0.40:
            v = self.values(t)
            return "INSERT INTO %s.%s (id, %s) VALUES (%d, %s);" % (
                s, t, ", ".join(v), self.new_id(), ", ".join(v.values()))
        if p < 0.65:
            v = self.values(t)
            cols = r.sample(sorted(v), r.randrange(1, len(v) + 1))
            if t == "rfull" and "big" in cols and r.random() < 0.7:
                cols.remove("big")  # leave the TOASTed value alone
            if not cols:
                cols = ["name"]
            return "UPDATE %s.%s SET %s WHERE id = %s;" % (
                s, t, ", ".join("%s = %s" % (c, v[c]) for c in cols), self.pick(t))
        if p < 0.72:
            lo = self.key()
            col = {"rfull": "amount = amount + 1", "rdef": "flag = NOT flag",
                   "rkey": "name = coalesce(name, '') || 'x'"}[t]
            return "UPDATE %s.%s SET %s WHERE id >= %d AND id < %d;" % (s, t, col, lo, lo + 40)
        if p < 0.82:
            return "UPDATE %s.rdef SET id = %d, name = %s WHERE id = %s;" % (
                s, self.new_id(), q(self.name()), self.pick("rdef"))
        if p < 0.95:
            return "DELETE FROM %s.%s WHERE id = %s;" % (s, t, self.pick(t))
        k = self.new_id()
        v = self.values(t)
        return ("INSERT INTO %s.%s (id, %s) VALUES (%d, %s); UPDATE %s.%s SET name = 'gone' "
                "WHERE id = %d; DELETE FROM %s.%s WHERE id = %d;") % (
            s, t, ", ".join(v), k, ", ".join(v.values()), s, t, k, s, t, k)

    def transaction(self):
        body = " ".join(self.statement() for _ in range(self.r.randrange(1, 5)))
        end = "ROLLBACK;" if self.r.random() < 0.04 else "COMMIT;"
        return "BEGIN; %s %s\n" % (body, end)


def main():
    if sys.argv[1] == "schema":
        sys.stdout.write(DDL.format(s=sys.argv[2]))
        return
    schema, seed, segment, txns, rate = sys.argv[2], *map(int, sys.argv[3:7])
    g = Gen(schema, seed, segment, txns)
    start = time.monotonic()
    for i in range(txns):
        sys.stdout.write(g.transaction())
        sys.stdout.flush()
        delay = start + (i + 1) / rate - time.monotonic()  # pacing, not waiting for an event
        if delay > 0:
            time.sleep(delay)


if __name__ == "__main__":
    main()
