#!/usr/bin/env bash
# debezium-json end to end from a file: tests/lib/debezium_gen.py writes Debezium's
# PostgreSQL change events for a random workload (a snapshot, inserts, updates with and
# without the before image, deletes with a key-only before, tombstones), once without the
# schema envelope (values as strings) and once with it (Debezium's defaults: a Connect Decimal,
# a MicroTimestamp, a Date). Each is read into print (every row with its kind, the counts the
# generator says) and applied to a sqlite table with a PRIMARY KEY, which must equal the
# generator's final table row for row.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
for mode in plain schema; do
    mkdir -p "$mode"
    cd "$T/$mode"
    kinds=$(python3 "$RSQL_SRCDIR/tests/lib/debezium_gen.py" 7 "$mode") ||
        fail "debezium_gen $mode failed"
    opts="'format'='debezium-json'"
    [ "$mode" = plain ] || opts="$opts, 'debezium-json.schema-include'='true'"
    cols="id BIGINT, name VARCHAR, qty INT, price DECIMAL(10, 2), updated TIMESTAMP(3), born DATE"
    run_rsql -e "CREATE TABLE src_$mode ($cols) WITH ('connector'='filesystem', 'path'='$T/$mode/events.jsonl', $opts);
CREATE TABLE out_$mode ($cols) WITH ('connector'='print');
INSERT INTO out_$mode SELECT * FROM src_$mode;"
    [ "$RC" = 0 ] || fail "$mode: reading debezium-json exited $RC: $ERR"
    echo "$ERR" | grep -q "dead_lettered=0 failed=0" || fail "$mode: failures: $ERR"
    got=$(for k in +I -U +U -D; do printf '%s=%s ' "$k" "$(printf '%s\n' "$OUT" | grep -c -- "^$k\[")"; done)
    [ "${got% }" = "$kinds" ] || fail "$mode: kinds: got $got, want $kinds"
    ok "$mode: every event read, the rows with their kinds ($kinds)"

    run_rsql -e "CREATE TABLE rep_$mode ($cols, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='sqlite', 'path'='$T/$mode/rep.db', 'table'='orders');
INSERT INTO rep_$mode SELECT * FROM src_$mode;"
    [ "$RC" = 0 ] || fail "$mode: applying debezium-json to sqlite exited $RC: $ERR"
    python3 - <<'PY' || fail "$mode: the replica differs from the generator's final table"
import csv, sqlite3
db = sqlite3.connect("rep.db")
db.execute("CREATE TEMP TABLE want (id, name, qty, price, updated, born)")
with open("final.csv", newline="") as f:
    db.executemany("INSERT INTO want VALUES (?, ?, ?, ?, ?, ?)",
                   [[None if v == "" else v for v in r] for r in csv.reader(f)])
cols = ("CAST(id AS INTEGER), name, CAST(qty AS INTEGER), CAST(price AS TEXT), "
        "CAST(updated AS TEXT), CAST(born AS TEXT)")
extra = db.execute(f"SELECT {cols} FROM orders EXCEPT SELECT {cols} FROM want").fetchall()
missing = db.execute(f"SELECT {cols} FROM want EXCEPT SELECT {cols} FROM orders").fetchall()
n = db.execute("SELECT count(*) FROM want").fetchone()[0]
if extra or missing or n == 0:
    print("only in the replica:", extra[:5])
    print("only in the generator's table:", missing[:5])
    raise SystemExit(1)
PY
    ok "$mode: the sqlite replica equals the generator's final table"
    cd "$T"
done
echo "$n_checks passed, 0 failed"
