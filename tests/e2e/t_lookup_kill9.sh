#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_lookup_kill9.sh: a lookup join into an exactly-once sink across kill -9. 200,000 JSON-lines
# orders (oid, cid, amount; some cids NULL, some with no such customer) are enriched by a
# catalog job, `o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.cid
# AND c.tier > 0 WHERE o.amount > 100`, into a sqlite table with PRIMARY KEY (oid) NOT
# ENFORCED (the position stored with the rows). The job is SIGKILLed five times at random
# moments while it writes (each run first waits until the sink's stored position moved past
# where the run started, then a random delay), rerun after each kill, then run to the end.
#   - after every kill the sink holds exactly SQLite's join of the orders before its stored
#     position (a line boundary of the file), nothing of the orders after it;
#   - at the end the table equals an uninterrupted run's table and SQLite's own join of the
#     same rows (python3's sqlite3, the dimension ATTACHed), no oid twice, and no row was
#     written twice (an UPDATE trigger on the pre-created table counts each upsert that hit
#     an existing oid: must stay 0), the stored position is the end of the file;
# twice: the customers in a sqlite table, then the same customers in a postgres table (the
# server of scripts/postgres, via pg_lib.sh: the test fails when it cannot reach it) with
# 'lookup.cache' = 'PARTIAL' and a cache smaller than the customers (evicting).
# The kill delays are random (the seed is printed; E2E_SEED sets it) and scaled from the
# uninterrupted run's time. No timing is asserted.
. "$(dirname "$0")/lib.sh"

N=200000
SEED=${E2E_SEED:-$$}
echo "seed $SEED"
RANDOM=$SEED

python3 - "$N" <<'PY'
import json, random, sqlite3, sys
n = int(sys.argv[1])
r = random.Random(29)
db = sqlite3.connect("dim.db")
db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, tier INTEGER)")
db.executemany("INSERT INTO customers VALUES (?, ?, ?)",
               [(i, "c%d%s" % (i, " o'neil" if i % 7 == 0 else ""), r.randint(0, 3))
                for i in range(1, 5001)])
db.commit()
ref = sqlite3.connect("ref.db")
ref.execute("CREATE TABLE orders (oid INTEGER PRIMARY KEY, cid INTEGER, amount INTEGER, "
            "line_end INTEGER)")
end = 0
with open("orders.jsonl", "w") as f:
    for oid in range(1, n + 1):
        cid = None if oid % 61 == 0 else r.randint(1, 5500)   # 5001..5500: no such customer
        amount = r.randint(1, 1000)
        line = json.dumps({"oid": oid, "cid": cid, "amount": amount}) + "\n"
        f.write(line)
        end += len(line)
        ref.execute("INSERT INTO orders VALUES (?, ?, ?, ?)", (oid, cid, amount, end))
ref.commit()
PY
ok "generated $N orders and 5,000 customers (seed of the data: 29)"

# check.py SINK_DB TABLE: the sink's rows equal SQLite's join of the orders that end at or
# before its stored position (all of them at the end), and that position is a line end.
# Prints "ROWS POSITION".
cat >check.py <<'PY'
import sqlite3, sys
sink, table = sys.argv[1], sys.argv[2]
s = sqlite3.connect(sink)
pos = s.execute('SELECT coalesce(max("offset"), 0), count(*) FROM rocketsql_positions').fetchone()
if pos[1] > 1:
    sys.exit("%d stored positions, expected one" % pos[1])
pos = pos[0]
ref = sqlite3.connect("ref.db")
ref.execute("ATTACH 'dim.db' AS d")
if pos and not ref.execute("SELECT 1 FROM orders WHERE line_end = ?", (pos,)).fetchone():
    sys.exit("the stored position %d is not the end of a line" % pos)
want = ref.execute("SELECT o.oid, c.id, c.name, c.tier, o.amount FROM orders o "
                   "LEFT JOIN d.customers c ON c.id = o.cid AND c.tier > 0 "
                   "WHERE o.amount > 100 AND o.line_end <= ? ORDER BY o.oid", (pos,)).fetchall()
got = s.execute('SELECT oid, cid, name, tier, amount FROM "%s" ORDER BY oid' % table).fetchall()
if got != want:
    w, g = set(want), set(got)
    sys.exit("the sink (%d rows) is not SQLite's join of the orders before position %d "
             "(%d rows): missing %s, extra %s" % (len(got), pos, len(want),
             sorted(w - g)[:3], sorted(g - w)[:3]))
print(len(got), pos)
PY

tables() { # $1: sink database, $2: the customers' WITH options
    cat <<SQL
CREATE TABLE orders (oid BIGINT, cid INT, amount INT, proc_time AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl');
CREATE TABLE customers (id INT, name STRING, tier INT) WITH ($2);
CREATE TABLE enriched (oid BIGINT NOT NULL, cid INT, name STRING, tier INT, amount INT,
  PRIMARY KEY (oid) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = '$1', 'table' = 'enriched');
CREATE JOB enrich AS INSERT INTO enriched SELECT o.oid, c.id, c.name, c.tier, o.amount
  FROM orders AS o
  LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.cid AND c.tier > 0
  WHERE o.amount > 100;
SQL
}

# stored_offset DB: the sink's stored position (0 before the first commit)
stored_offset() {
    sqlite3 "$1" 'SELECT coalesce(max("offset"), 0) FROM rocketsql_positions' 2>/dev/null ||
        echo 0
}
# moved_past DB OFFSET PID: the stored position is past OFFSET, or PID has ended
moved_past() { [ "$(stored_offset "$1")" -gt "$2" ] || ! kill -0 "$3" 2>/dev/null; }

# variant NAME CUSTOMER_OPTIONS: the uninterrupted run, then five kills and the run to the end
variant() {
    local name=$1 opts=$2 full_ms span_ms round=0 landed=0 attempts rc delay t0 before got
    mkdir "$name"
    cp orders.jsonl ref.db dim.db check.py "$name/"
    cd "$name"

    # (a) one uninterrupted run, into a table rocketsql creates; its time scales the kills
    CAT="$T/$name/ref-catalog.db"
    tables ref-out.db "$opts" >ref.sql
    rsql -f ref.sql
    expect_rc 0 "$name: create the job of the uninterrupted run"
    rsql -e "EXPLAIN INSERT INTO enriched SELECT o.oid, c.id, c.name, c.tier, o.amount
             FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c
             ON c.id = o.cid AND c.tier > 0 WHERE o.amount > 100"
    case "$OUT" in *"delivery: exactly-once (the sqlite sink stores the source position"*) ;;
    *) fail "$name: EXPLAIN does not say exactly-once: $OUT" ;; esac
    case "$OUT" in *"LookupJoin (LEFT): customers AS c"*) ok "$name: EXPLAIN: a LEFT lookup join, exactly-once" ;;
    *) fail "$name: EXPLAIN shows no LEFT lookup join: $OUT" ;; esac
    t0=$(date +%s%N)
    rsql run enrich
    expect_rc 0 "$name: the uninterrupted run"
    full_ms=$((($(date +%s%N) - t0) / 1000000))
    case "$ERR" in *"lookup of customers: "*" keys asked in "*) ;;
    *) fail "$name: the uninterrupted run did not say what its lookups did: $ERR" ;; esac
    case "$opts:$ERR" in *PARTIAL*) case "$ERR" in *"; cache: "*" hits, "*" misses"*) ;;
        *) fail "$name: the cached lookups did not say what their cache did: $ERR" ;; esac ;; esac
    got=$(python3 check.py ref-out.db enriched) || fail "$name: the uninterrupted run: $got"
    ok "$name: the uninterrupted run (${full_ms}ms) equals SQLite's join: ${got% *} rows"

    # the kill loop, into a table made beforehand with a trigger that counts each upsert
    # that found its oid already there (a row written twice)
    span_ms=$((full_ms / 8))
    [ "$span_ms" -ge 20 ] || span_ms=20
    while [ "$landed" -lt 5 ]; do
        round=$((round + 1))
        [ "$round" -le 4 ] || fail "$name: could not land 5 kills in 4 rounds"
        CAT="$T/$name/catalog-$round.db"
        rm -f sink.db sink.db-wal sink.db-shm
        sqlite3 sink.db "CREATE TABLE enriched (oid INTEGER NOT NULL PRIMARY KEY, cid INTEGER,
                           name TEXT, tier INTEGER, amount INTEGER);
                         CREATE TABLE rewritten (oid INTEGER);
                         CREATE TRIGGER enriched_rewritten AFTER UPDATE ON enriched
                           BEGIN INSERT INTO rewritten VALUES (old.oid); END;"
        tables sink.db "$opts" >job.sql
        rsql -f job.sql
        expect_rc 0 "$name: round $round: create the job (kill delays up to ${span_ms}ms)"
        landed=0
        attempts=0
        while [ "$landed" -lt 5 ] && [ "$attempts" -lt 20 ]; do
            attempts=$((attempts + 1))
            before=$(stored_offset sink.db)
            "$RSQL" --catalog "$CAT" run enrich >run.out 2>run.err &
            pid=$!
            e2e_pids="$pid"
            # the run writes: its first commit moved the stored position; then a random delay
            wait_until 60 moved_past sink.db "$before" "$pid" || true
            delay=$((RANDOM % (span_ms + 1)))
            sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
            kill -9 "$pid" 2>/dev/null || true
            set +e
            wait "$pid" 2>/dev/null
            rc=$?
            set -e
            e2e_pids=""
            got=$(python3 check.py sink.db enriched) ||
                fail "$name: after attempt $attempts (exit $rc): $got"
            if [ "$rc" = 137 ]; then
                landed=$((landed + 1))
                [ "${got#* }" -gt "$before" ] ||
                    fail "$name: kill $landed landed before the run committed anything (position ${got#* })"
                ok "$name: kill $landed after ${delay}ms: the sink is SQLite's join of the orders before its position (${got% *} rows, position ${got#* })"
            elif [ "$rc" = 0 ]; then
                echo "$name: attempt $attempts: the run finished before the kill (${delay}ms)"
                break
            else
                fail "$name: attempt $attempts: exit status $rc: $(cat run.err)"
            fi
        done
        span_ms=$((span_ms / 2))
        [ "$span_ms" -ge 10 ] || span_ms=10
    done
    ok "$name: 5 kills landed on running jobs (round $round)"

    rsql run enrich
    expect_rc 0 "$name: the run after the last kill"
    got=$(python3 check.py sink.db enriched) || fail "$name: the final table: $got"
    same "${got#* }" "$(stat -c %s orders.jsonl)" "$name: the stored position is the end of the file"
    ok "$name: the final table equals SQLite's join of every order (${got% *} rows)"
    for db in sink ref-out; do
        sqlite3 -separator '|' $db.db "SELECT oid, cid, name, tier, amount FROM enriched
            ORDER BY oid" >$db.txt
    done
    cmp -s sink.txt ref-out.txt ||
        fail "$name: the table differs from the uninterrupted run's: $(diff sink.txt ref-out.txt | head -5)"
    ok "$name: the table equals the uninterrupted run's ($(wc -l <sink.txt) rows)"
    same "$(sqlite3 sink.db "SELECT count(*) - count(DISTINCT oid) FROM enriched")" 0 \
        "$name: no oid twice"
    same "$(sqlite3 sink.db "SELECT count(*) FROM rewritten")" 0 \
        "$name: no row was written twice (upserts that found their oid)"
    last_run enrich
    same "$R_STATUS" done "$name: status of the last run"
    cd "$T"
}

variant sqlite "'connector' = 'sqlite', 'path' = 'dim.db', 'table' = 'customers'"

# the same customers in PostgreSQL, looked up through a partial cache of 1,000 rows
. "$RSQL_SRCDIR/tests/e2e/pg_lib.sh"
pg_connect
S="lk9$$"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S;
        CREATE TABLE $S.customers (id integer PRIMARY KEY, name text, tier integer)" >/dev/null
trap 'psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true; e2e_cleanup' EXIT
sqlite3 -csv dim.db "SELECT id, name, tier FROM customers ORDER BY id" >customers.csv
psql_q "\\copy $S.customers FROM 'customers.csv' WITH (FORMAT csv)" >/dev/null
same "$(psql_q "SELECT md5(string_agg(id || '|' || name || '|' || tier, E'\\n' ORDER BY id))
                FROM $S.customers")" \
    "$(sqlite3 dim.db "SELECT id || '|' || name || '|' || tier FROM customers ORDER BY id" |
       python3 -c 'import hashlib, sys; print(hashlib.md5(sys.stdin.buffer.read().rstrip(b"\n")).hexdigest())')" \
    "PostgreSQL at $URL holds the same customers as dim.db"
variant postgres "'connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.customers',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000'"
echo PASS
