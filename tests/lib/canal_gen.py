#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
"""canal_gen.py: write canal-json as Canal's flat messages carry a random workload, and the
table it leaves, for the replica tests.

    tests/lib/canal_gen.py --ops 20000 --keys 1000 --seed 7 \\
        --messages changes.jsonl --state final.csv [--noise] [--key-updates]

The workload runs over table shop.orders (id BIGINT primary key, name VARCHAR, qty INT,
price DECIMAL(10, 2), updated TIMESTAMP(3)): each step is an INSERT of keys not present, an
UPDATE of present keys or a DELETE of present keys, 1 to --max-rows rows per statement, and
each statement is one message, as Canal writes it: every value a JSON string (null for
NULL), "old" holding only the changed columns' previous values, "sqlType" the JDBC codes,
"mysqlType" the MySQL types, "pkNames", "es" (the binlog time, ms) and "ts" (Canal's time,
ms, a little later). --noise adds DDL messages (isDdl true) and changes of another table
(shop.audit) that a reader must skip (canal-json.table.include = 'orders'). --key-updates
lets an UPDATE change a row's id (old then holds the previous id). --verify replays the
messages as a reader applies them (each UPDATE's before image must equal the row as it
stands) and checks that they leave the table written to --state.

--messages gets one message per line. --state gets the final rows of shop.orders sorted by
id, one CSV line each: id,name,qty,price,updated (NULL as an empty field; names never hold
a comma, quote or line end). Deterministic for a seed. Counts go to stderr.
"""
import argparse
import json
import random
import sys

COLS = ["id", "name", "qty", "price", "updated"]
SQL_TYPE = {"id": -5, "name": 12, "qty": 4, "price": 3, "updated": 93}
MYSQL_TYPE = {"id": "bigint(20)", "name": "varchar(64)", "qty": "int(11)",
              "price": "decimal(10,2)", "updated": "datetime(3)"}
WORDS = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "yuzu", "sloe", "quince",
         "caf\u00e9", "na\u00efve", "\u00fcber", "x"]


def fmt_ts(ms):
    s, m = divmod(ms, 1000)
    d, s = divmod(s, 86400)
    # days since 1970-01-01 to a civil date (proleptic Gregorian)
    z = d + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    y += month <= 2
    return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (y, month, day, s // 3600, s // 60 % 60,
                                                   s % 60, m)


class Gen:
    def __init__(self, args):
        self.r = random.Random(args.seed)
        self.a = args
        self.rows = {}
        self.clock = 1700000000000
        self.msg_id = 0
        self.out = []
        self.counts = {"INSERT": 0, "UPDATE": 0, "DELETE": 0, "DDL": 0, "other-table": 0,
                       "rows": 0}

    def value(self, col, key):
        r = self.r
        if col == "id":
            return str(key)
        if r.random() < 0.08:
            return None
        if col == "name":
            return "%s-%d" % (r.choice(WORDS), r.randrange(1000))
        if col == "qty":
            return str(r.randrange(-1000, 100000))
        if col == "price":
            return "%d.%02d" % (r.randrange(0, 100000), r.randrange(100))
        return fmt_ts(self.clock - r.randrange(0, 86400000))

    def message(self, db, table, typ, data, old=None, ddl=None):
        self.msg_id += 1
        self.clock += self.r.randrange(1, 50)
        msg = {
            "data": data,
            "database": db,
            "es": self.clock,
            "id": self.msg_id,
            "isDdl": ddl is not None,
            "mysqlType": None if ddl else MYSQL_TYPE,
            "old": old,
            "pkNames": None if ddl else ["id"],
            "sql": ddl or "",
            "sqlType": None if ddl else SQL_TYPE,
            "table": table,
            "ts": self.clock + self.r.randrange(0, 20),
            "type": typ,
        }
        self.out.append(json.dumps(msg, ensure_ascii=False, separators=(",", ":")))

    def step(self):
        r, a = self.r, self.a
        if a.noise and r.random() < 0.02:
            self.counts["DDL"] += 1
            self.message("shop", "orders", "ALTER", None,
                         ddl="ALTER TABLE orders COMMENT 'v%d'" % self.msg_id)
            return
        if a.noise and r.random() < 0.03:
            self.counts["other-table"] += 1
            self.message("shop", "audit", "INSERT",
                         [{"id": str(r.randrange(a.keys)), "name": "audit"}])
            return
        n = r.randint(1, a.max_rows)
        present = list(self.rows)
        absent_n = a.keys - len(present)
        choice = r.random()
        if (choice < 0.35 or not present) and absent_n > 0:
            keys = set()
            while len(keys) < min(n, absent_n):
                k = r.randrange(a.keys)
                if k not in self.rows:
                    keys.add(k)
            data = []
            for k in sorted(keys):
                row = {c: self.value(c, k) for c in COLS}
                self.rows[k] = row
                data.append(row)
            self.counts["INSERT"] += 1
            self.counts["rows"] += len(data)
            self.message("shop", "orders", "INSERT", data)
        elif choice < 0.85 and present:
            keys = r.sample(present, min(n, len(present)))
            data, old = [], []
            for k in keys:
                if k not in self.rows:  # moved by an earlier key update of this statement
                    continue
                row = self.rows[k]
                new = dict(row)
                changed = r.sample(COLS[1:], r.randint(1, 3))
                for c in changed:
                    new[c] = self.value(c, k)
                if a.key_updates and r.random() < 0.05:
                    nk = r.randrange(a.keys)
                    if nk not in self.rows:
                        new["id"] = str(nk)
                        changed.append("id")
                prev = {c: row[c] for c in changed if row[c] != new[c]}
                del self.rows[k]
                self.rows[int(new["id"])] = new
                data.append(new)
                old.append(prev)
            if not data:
                return
            self.counts["UPDATE"] += 1
            self.counts["rows"] += len(data)
            self.message("shop", "orders", "UPDATE", data, old)
        elif present:
            keys = r.sample(present, min(n, len(present)))
            data = [self.rows.pop(k) for k in keys]
            self.counts["DELETE"] += 1
            self.counts["rows"] += len(data)
            self.message("shop", "orders", "DELETE", data)


def replay(lines):
    """The table the messages leave, applied as canal-json reads them (a reader's view):
    each UPDATE's before image (data with old's columns) must be the row as it stands."""
    table = {}
    for line in lines:
        m = json.loads(line)
        if m["isDdl"] or m["table"] != "orders":
            continue
        for i, row in enumerate(m["data"]):
            if m["type"] == "INSERT":
                assert row["id"] not in table, "insert of a present key %s" % row["id"]
                table[row["id"]] = row
            elif m["type"] == "DELETE":
                assert table.pop(row["id"]) == row, "delete of another row"
            else:
                before = dict(row, **m["old"][i])
                assert table.pop(before["id"]) == before, "before image %s" % before
                table[row["id"]] = row
    return table


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ops", type=int, default=1000, help="messages to write")
    p.add_argument("--keys", type=int, default=100, help="ids are 0 .. keys-1")
    p.add_argument("--max-rows", type=int, default=4, help="rows per statement, at most")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--noise", action="store_true", help="DDL and other-table messages too")
    p.add_argument("--key-updates", action="store_true", help="updates may change the id")
    p.add_argument("--messages", required=True, help="where the messages go ('-' stdout)")
    p.add_argument("--state", required=True, help="where the final table goes (CSV)")
    p.add_argument("--verify", action="store_true",
                   help="replay the messages as a reader would and check the final table")
    a = p.parse_args()
    g = Gen(a)
    while len(g.out) < a.ops:
        g.step()
    out = sys.stdout if a.messages == "-" else open(a.messages, "w", encoding="utf-8")
    out.write("\n".join(g.out) + "\n")
    if out is not sys.stdout:
        out.close()
    with open(a.state, "w", encoding="utf-8") as f:
        for k in sorted(g.rows):
            f.write(",".join("" if g.rows[k][c] is None else g.rows[k][c] for c in COLS) + "\n")
    if a.verify:
        got = replay(g.out)
        assert got == {str(k): v for k, v in g.rows.items()}, "replay differs from the table"
    print("canal_gen: %d messages, %d rows in the table, %s" %
          (len(g.out), len(g.rows), g.counts), file=sys.stderr)


if __name__ == "__main__":
    main()
