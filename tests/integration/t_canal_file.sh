#!/usr/bin/env bash
# canal-json end to end from a file: tests/lib/canal_gen.py writes Canal's flat messages for
# a random workload (several rows per statement, updates with "old" (some changing the key),
# deletes, DDL messages and another table's changes, blank lines between some), and a
# statement reads them with canal-json.table.include = 'orders'. Every message is read, the
# DDL and other-table ones give no rows (counted as filtered), none fails; into print, the
# rows that come out are one per inserted or deleted row and two per updated row, each with
# its kind; into a sqlite table with a PRIMARY KEY, the table equals the generator's final
# table (its own replay of the workload), compared row by row in SQLite; there the -U rows
# are dropped (EXPLAIN says so), but for the updates that change the key.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
python3 "$RSQL_SRCDIR/tests/lib/canal_gen.py" --ops 1500 --keys 120 --seed 11 --noise --key-updates \
    --verify --messages msgs.jsonl --state final.csv 2>gen.log || fail "canal_gen: $(cat gen.log)"
ok "canal_gen wrote messages whose replay gives its final table"
want_rows=$(python3 -c '
import json, sys
n = 0
for l in open("msgs.jsonl"):
    m = json.loads(l)
    if not m["isDdl"] and m["table"] == "orders":
        n += len(m["data"]) * (2 if m["type"] == "UPDATE" else 1)
print(n)')
skipped=$(python3 -c '
import json
print(sum(1 for l in open("msgs.jsonl") if json.loads(l)["isDdl"] or json.loads(l)["table"] != "orders"))')
sed -i '100s/^/\n/' msgs.jsonl
run_rsql --tsv -e "CREATE TABLE src (id BIGINT, name VARCHAR, qty INT, price DECIMAL(10, 2), updated TIMESTAMP(3)) WITH ('connector'='filesystem', 'path'='msgs.jsonl', 'format'='canal-json', 'canal-json.table.include'='orders');
CREATE TABLE out (id BIGINT, name VARCHAR, qty INT, price DECIMAL(10, 2), updated TIMESTAMP(3)) WITH ('connector'='print');
INSERT INTO out SELECT * FROM src;"
[ "$RC" = 0 ] || fail "reading canal-json exited $RC: $ERR"
echo "$OUT$ERR" | grep -q "read=1500 .*filtered=$skipped dead_lettered=0 failed=0" ||
    fail "want read=1500 filtered=$skipped, no failures; got: $ERR"
echo "$ERR" | grep -q "^canal-json: $skipped bodies gave no rows: [0-9]* DDL or control, [0-9]* of other databases or tables, 0 that failed" ||
    fail "the run does not say what canal-json skipped: $ERR"
ok "1500 messages read, $skipped DDL and other-table messages skipped (and said so), none failed"
printf '%s\n' "$OUT" | grep -E '^[+-][IUD]\[' >rows.txt || true
[ "$(wc -l <rows.txt)" = "$want_rows" ] || fail "want $want_rows rows, got $(wc -l <rows.txt)"
want_kinds=$(python3 -c '
import json
k = {"INSERT": 0, "UPDATE": 0, "DELETE": 0}
for l in open("msgs.jsonl"):
    l = l.strip()
    if not l: continue
    m = json.loads(l)
    if not m["isDdl"] and m["table"] == "orders":
        k[m["type"]] += len(m["data"])
print("+I=%d -U=%d +U=%d -D=%d" % (k["INSERT"], k["UPDATE"], k["UPDATE"], k["DELETE"]))')
got_kinds=$(for k in +I -U +U -D; do printf '%s=%s ' "$k" "$(grep -c -- "^$k\[" rows.txt)"; done)
[ "${got_kinds% }" = "$want_kinds" ] || fail "kinds: got $got_kinds, want $want_kinds"
ok "$want_rows rows with their kinds ($want_kinds)"
# the last message's last row is the last line, as Canal wrote it (strings to typed values)
last=$(tail -n 1 msgs.jsonl | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())
r = m["data"][-1]
print(", ".join("NULL" if r[c] is None else r[c] for c in ["id", "name", "qty", "price", "updated"]))')
case $(tail -n 1 rows.txt) in *"[$last]") ;; *) fail "last row: got $(tail -n 1 rows.txt), want [$last]" ;; esac
ok "values read as written"

run_rsql -e "CREATE TABLE rep (id BIGINT, name VARCHAR, qty INT, price DECIMAL(10, 2), updated TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='sqlite', 'path'='rep.db', 'table'='orders');
INSERT INTO rep SELECT * FROM src;"
[ "$RC" = 0 ] || fail "applying canal-json to sqlite exited $RC: $ERR"
python3 - <<'PY' || fail "the replica differs from the generator's final table"
import csv, sqlite3
db = sqlite3.connect("rep.db")
db.execute("CREATE TEMP TABLE want (id, name, qty, price, updated)")
with open("final.csv", newline="") as f:
    db.executemany("INSERT INTO want VALUES (?, ?, ?, ?, ?)",
                   [[None if v == "" else v for v in r] for r in csv.reader(f)])
cols = "CAST(id AS INTEGER), name, CAST(qty AS INTEGER), CAST(price AS TEXT), CAST(updated AS TEXT)"
extra = db.execute(f"SELECT {cols} FROM orders EXCEPT SELECT {cols} FROM want").fetchall()
missing = db.execute(f"SELECT {cols} FROM want EXCEPT SELECT {cols} FROM orders").fetchall()
n = db.execute("SELECT count(*) FROM want").fetchone()[0]
if extra or missing or n == 0:
    print("only in the replica:", extra[:5])
    print("only in the generator's table:", missing[:5])
    raise SystemExit(1)
print("replica equals the generator's table: %d rows" % n)
PY
ok "the sqlite replica equals the generator's final table (compared in SQLite)"
run_rsql -e "EXPLAIN INSERT INTO rep SELECT * FROM src"
echo "$OUT" | grep -qF "applies it by key (id); -U dropped: the sink applies by key, so an update that keeps the key (id) is decoded as its +U alone (one that changes it keeps its -U)" ||
    fail "EXPLAIN does not say the -U rows are dropped: $OUT$ERR"
ok "...with the -U rows dropped (updates that keep the key are their +U alone; the key updates keep theirs)"
# a key update whose old key is not written again: its -U must delete it
cat >moved.jsonl <<'EOF2'
{"data":[{"id":"1","name":"a","qty":"1"},{"id":"2","name":"b","qty":"2"}],"type":"INSERT","table":"orders","isDdl":false}
{"data":[{"id":"3","name":"a","qty":"1"},{"id":"2","name":"c","qty":"2"}],"old":[{"id":"1"},{"name":"b"}],"type":"UPDATE","table":"orders","isDdl":false}
EOF2
run_rsql -e "CREATE TABLE moved (id BIGINT, name VARCHAR, qty INT) WITH ('connector'='filesystem', 'path'='moved.jsonl', 'format'='canal-json');
CREATE TABLE rep2 (id BIGINT, name VARCHAR, qty INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='sqlite', 'path'='rep.db', 'table'='moved');
INSERT INTO rep2 SELECT * FROM moved;"
[ "$RC" = 0 ] || fail "applying the key update exited $RC: $ERR"
got=$(python3 -c 'import sqlite3; print(sqlite3.connect("rep.db").execute("SELECT group_concat(id || name, \" \") FROM (SELECT * FROM moved ORDER BY id)").fetchone()[0])')
[ "$got" = "2c 3a" ] || fail "after moving key 1 to 3: want rows 2c 3a, got $got"
ok "an update that changes the key deletes the old key (its -U kept)"
