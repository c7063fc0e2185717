#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_changes_apply.sh: the sqlite and postgres sinks apply a changelog by the key, in row order,
# exactly-once across crashes. The changes (random, seeded: inserts, -U/+U pairs, a -U whose +U
# was filtered out, a +U alone, deletes, deletes of missing keys, records of several rows that
# change one key twice, +I then -D and -D then +I of one key in one record) go through each
# sink's own write/flush (tests/e2e/apply_changes: the planner does not route changelogs to
# the sinks yet); the tables, read back by sqlite3 and psql, must equal what SQLite computes
# from the same changes with plain INSERT OR REPLACE / DELETE statements (checked against a
# dictionary model too). Needs the PostgreSQL of scripts/postgres (fails when unreachable).
#   1. each sink, one run: the table equals the reference;
#   2. positions: runs SIGKILLed right after a write (rows gathered, not committed), resumed
#      from the positions the sink stored, then a last run: equal to the reference;
#   3. message ids (a source that keeps its own positions): a killed run, then every message
#      delivered again, then the first half delivered once more after the later changes were
#      applied: nothing applied twice, equal to the reference;
#   4. appends (not a changelog) into a keyed table: the last row of each key, as before;
#   5. under errors.tolerance 'all', messages whose upsert a CHECK constraint refuses fail
#      whole (none of their rows applied), the others are applied in order;
#   6. through rocketsql itself: a debezium-json file of 20,000 changes INSERTed into sqlite and
#      postgres tables with a PRIMARY KEY, each run killed with SIGKILL once and run again.
. "$(dirname "$0")/lib.sh"

AC="$RSQL_BUILDDIR/tests/e2e/apply_changes"
[ -x "$AC" ] || fail "no $AC (make -C \$RSQL_BUILDDIR check builds it)"
. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="ac$$"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null
trap 'psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true; e2e_cleanup' EXIT

# gen SEED RECORDS KEYS > changes: the random changelog
gen() {
    python3 - "$@" <<'PY'
import random, sys
seed, nrec, nkeys = map(int, sys.argv[1:])
r = random.Random(seed)
cur = {}  # what the source table holds, to give -U/-D their before image
seq = 0
def val():
    return "\\N" if r.random() < 0.05 else "v%d'%s" % (r.randrange(10**6), r.choice(["", "x", "\"q\"", "a\\b"]))
def emit(kind, k, v):
    print(seq, kind, k, v)
for _ in range(nrec):
    seq += 1
    k = r.randrange(nkeys)
    p = r.random()
    if p < 0.30:
        v = val(); emit("+I", k, v); cur[k] = v
    elif p < 0.55:
        old, new = cur.get(k, val()), val()
        emit("-U", k, old); emit("+U", k, new); cur[k] = new
    elif p < 0.62:
        emit("-U", k, cur.get(k, val())); cur.pop(k, None)   # its +U filtered out
    elif p < 0.67:
        v = val(); emit("+U", k, v); cur[k] = v               # its -U filtered out
    elif p < 0.80:
        emit("-D", k, cur.get(k, val())); cur.pop(k, None)     # maybe a missing key
    else:                                                     # one message, several rows
        for _ in range(r.randrange(2, 6)):
            k2 = k if r.random() < 0.5 else r.randrange(nkeys)
            kind = r.choice(["+I", "-D", "-U", "+U"])
            v = val() if kind in ("+I", "+U") else cur.get(k2, val())
            emit(kind, k2, v)
            if kind in ("+I", "+U"):
                cur[k2] = v
            else:
                cur.pop(k2, None)
PY
}

# reference < changes: the final table, "k|v" ordered by k (NULL as <null>), computed by
# SQLite from the changes with plain statements, and checked against a dictionary model
reference() {
    python3 -c '
import sqlite3, sys
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)")
model = {}
for line in sys.stdin:
    seq, kind, k, v = line.split(" ", 3)
    k, v = int(k), v.rstrip("\n")
    v = None if v == "\\N" else v
    if kind in ("+I", "+U"):
        db.execute("INSERT OR REPLACE INTO t(k, v) VALUES (?, ?)", (k, v))
        model[k] = v
    else:
        db.execute("DELETE FROM t WHERE k = ?", (k,))
        model.pop(k, None)
rows = db.execute("SELECT k, coalesce(v, \"<null>\") FROM t ORDER BY k").fetchall()
assert rows == [(k, "<null>" if model[k] is None else model[k]) for k in sorted(model)], "model"
for k, v in rows:
    print("%d|%s" % (k, v))
'
}

# same_rows GOT WANT DESCRIPTION: the two tables ("k|v" lines) are equal, else the first
# differences
same_rows() {
    [ "$1" = "$2" ] && return 0
    diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -20 >&2
    fail "$3: the table differs from the reference (< got, > expected)"
}

sqlite_rows() { sqlite3 "$1" "SELECT k, coalesce(v, '<null>') FROM t ORDER BY k"; }
pg_rows() { psql_q "SELECT k, coalesce(v, '<null>') FROM $S.$1 ORDER BY k"; }

gen 42 3000 150 >changes
reference <changes >want
[ "$(wc -l <want)" -gt 20 ] || fail "the reference table is too small: $(wc -l <want) rows"
grep -q ' -U ' changes && grep -q ' -D ' changes || fail "no -U or -D in the changes"
ok "3000 random records ($(wc -l <changes) changes), $(wc -l <want) rows in the reference"

# ---- 1. one run each
"$AC" sqlite path="$T/one.db" table=t sink.batch-size=5 <changes >/dev/null ||
    fail "sqlite: apply_changes failed"
same_rows "$(sqlite_rows "$T/one.db")" "$(cat want)" "sqlite: the table after one run"
ok "sqlite: the table equals SQLite's own result"
"$AC" postgres url="$URL" table-name="$S.one" sink.buffer-flush.max-rows=13 <changes >/dev/null ||
    fail "postgres: apply_changes failed"
same_rows "$(pg_rows one)" "$(cat want)" "postgres: the table after one run"
ok "postgres: the table equals SQLite's own result"
RSQL_AC_BATCH=400 "$AC" postgres url="$URL" table-name="$S.big" sink.buffer-flush.max-rows=100000 \
    <changes >/dev/null || fail "postgres (big transactions): apply_changes failed"
same_rows "$(pg_rows big)" "$(cat want)" "postgres, every change of a key in one transaction"
ok "postgres: many changes per key in one transaction (one gathered chunk) applied in order"

# ---- 2. positions across crashes (SIGKILL right after a write)
crash_runs() { # NAME CONNECTOR OPTS...: two killed runs, then a whole one
    local name=$1 rc
    shift
    for kill_after in 23 41; do
        set +e
        RSQL_AC_KILL_AFTER=$kill_after "$AC" "$@" <changes >/dev/null 2>"$T/$name.err"
        rc=$?
        set -e
        [ "$rc" = 137 ] || fail "$name: the run to kill after write $kill_after exited $rc: $(cat "$T/$name.err")"
    done
    "$AC" "$@" <changes >"$T/$name.out" 2>"$T/$name.err" || fail "$name: last run: $(cat "$T/$name.err")"
    grep -q "from row [1-9]" "$T/$name.out" || fail "$name: the last run did not resume: $(cat "$T/$name.out")"
}
crash_runs sqlite-kill sqlite path="$T/kill.db" table=t sink.batch-size=5
same_rows "$(sqlite_rows "$T/kill.db")" "$(cat want)" "sqlite after two kills"
ok "sqlite: killed twice, resumed from its positions: equals the reference"
crash_runs pg-kill postgres url="$URL" table-name="$S.kill" sink.buffer-flush.max-rows=13
same_rows "$(pg_rows kill)" "$(cat want)" "postgres after two kills"
ok "postgres: killed twice, resumed from its positions: equals the reference"

# ---- 3. message ids: redeliveries, also of old messages after later changes
head -n "$(($(wc -l <changes) / 2))" changes >first-half
redeliver() { # NAME CONNECTOR OPTS...
    local name=$1 rc
    shift
    set +e
    RSQL_AC_OWN=1 RSQL_AC_KILL_AFTER=31 "$AC" "$@" <changes >/dev/null 2>"$T/$name.err"
    rc=$?
    set -e
    [ "$rc" = 137 ] || fail "$name: the run to kill exited $rc: $(cat "$T/$name.err")"
    RSQL_AC_OWN=1 "$AC" "$@" <changes >/dev/null 2>"$T/$name.err" || fail "$name: $(cat "$T/$name.err")"
    RSQL_AC_OWN=1 "$AC" "$@" <first-half >/dev/null 2>"$T/$name.err" || fail "$name: $(cat "$T/$name.err")"
}
redeliver sqlite-own sqlite path="$T/own.db" table=t sink.batch-size=5
same_rows "$(sqlite_rows "$T/own.db")" "$(cat want)" "sqlite with redeliveries"
same "$(sqlite3 "$T/own.db" "SELECT count(*) FROM rocketsql_applied")" \
    "$(cut -d' ' -f1 changes | sort -u | wc -l)" "sqlite: one applied id per message"
ok "sqlite: redelivered messages (old ones after newer changes) not applied twice"
redeliver pg-own postgres url="$URL" table-name="$S.own" sink.buffer-flush.max-rows=13
same_rows "$(pg_rows own)" "$(cat want)" "postgres with redeliveries"
same "$(psql_q "SELECT count(*) FROM $S.rocketsql_applied")" \
    "$(cut -d' ' -f1 changes | sort -u | wc -l)" "postgres: one applied id per message"
ok "postgres: redelivered messages (old ones after newer changes) not applied twice"

# ---- 4. appends (no changelog) into a keyed table: the last row of each key
grep ' +I ' changes | awk '{$1 = NR; print}' >inserts
reference <inserts >want-inserts
RSQL_AC_CHANGELOG=0 "$AC" sqlite path="$T/app.db" table=t sink.batch-size=5 <inserts >/dev/null ||
    fail "sqlite append failed"
same_rows "$(sqlite_rows "$T/app.db")" "$(cat want-inserts)" "sqlite append"
RSQL_AC_CHANGELOG=0 "$AC" postgres url="$URL" table-name="$S.app" sink.buffer-flush.max-rows=13 \
    <inserts >/dev/null || fail "postgres append failed"
same_rows "$(pg_rows app)" "$(cat want-inserts)" "postgres append"
ok "appends (not a changelog) into a keyed table: the last row of each key, as before"

# ---- 4b. appends that keep the first row of each key (a deduplication the sink table does):
# every row of a key after its first is not written, within a write and across transactions
awk '!seen[$3]++' inserts | reference >want-firsts
[ "$(cat want-firsts)" != "$(cat want-inserts)" ] || fail "the inserts repeat no key: the case would mean little"
RSQL_AC_CHANGELOG=0 RSQL_AC_KEEP_FIRST=1 "$AC" sqlite path="$T/first.db" table=t sink.batch-size=5 \
    <inserts >/dev/null || fail "sqlite keep-first append failed"
same_rows "$(sqlite_rows "$T/first.db")" "$(cat want-firsts)" "sqlite keep-first append"
RSQL_AC_CHANGELOG=0 RSQL_AC_KEEP_FIRST=1 "$AC" postgres url="$URL" table-name="$S.first" \
    sink.buffer-flush.max-rows=13 <inserts >/dev/null || fail "postgres keep-first append failed"
same_rows "$(pg_rows first)" "$(cat want-firsts)" "postgres keep-first append"
ok "appends that keep the first row of each key: the first row of each key, as a reference says"

# ---- 5. errors.tolerance 'all': a record with a row the table refuses fails whole. The
# refused values go to every third message whose upserts are each the last change of their key
# (postgres writes only the last change of a key in a transaction: an upsert that a later
# change of its key in the same transaction overrides is never written, so never refused)
python3 - <<'PY'
last, recs = {}, {}
rows = [l.split(" ", 3) for l in open("changes").read().splitlines()]
for i, (seq, kind, k, v) in enumerate(rows):
    last[k] = i
    recs.setdefault(seq, []).append(i)
picked = [s for s, idx in recs.items()
          if any(rows[i][1] in ("+I", "+U") for i in idx)
          and all(last[rows[i][2]] == i for i in idx if rows[i][1] in ("+I", "+U"))][::3]
with open("bad-changes", "w") as out:
    for seq, kind, k, v in rows:
        out.write("%s %s %s %s\n" % (seq, kind, k, "bad" if seq in picked else v))
open("bad-seqs", "w").write("".join(s + "\n" for s in picked))
PY
awk 'NR == FNR {bad[$1] = 1; next} !($1 in bad)' bad-seqs bad-changes | reference >want-tolerated
n_bad_rows=$(awk 'NR == FNR {bad[$1] = 1; next} ($1 in bad)' bad-seqs bad-changes | wc -l)
[ "$(wc -l <bad-seqs)" -gt 10 ] || fail "too few refused messages: $(wc -l <bad-seqs)"
sqlite3 "$T/tol.db" "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT CHECK (v <> 'bad'))"
RSQL_AC_TOLERATE=1 "$AC" sqlite path="$T/tol.db" table=t sink.batch-size=5 <bad-changes \
    >"$T/tol.out" 2>/dev/null || fail "sqlite under 'all' failed"
grep -q ", $n_bad_rows failed" "$T/tol.out" || fail "sqlite: not $n_bad_rows rows failed: $(cat "$T/tol.out")"
same_rows "$(sqlite_rows "$T/tol.db")" "$(cat want-tolerated)" "sqlite under 'all'"
ok "sqlite under 'all': the $(wc -l <bad-seqs) refused messages ($n_bad_rows rows) not applied at all, the others are"
psql_q "CREATE TABLE $S.tol(k bigint PRIMARY KEY, v text CHECK (v <> 'bad'))" >/dev/null
RSQL_AC_TOLERATE=1 "$AC" postgres url="$URL" table-name="$S.tol" sink.buffer-flush.max-rows=13 \
    <bad-changes >"$T/tol.out" 2>/dev/null || fail "postgres under 'all' failed"
grep -q ", $n_bad_rows failed" "$T/tol.out" || fail "postgres: not $n_bad_rows rows failed: $(cat "$T/tol.out")"
same_rows "$(pg_rows tol)" "$(cat want-tolerated)" "postgres under 'all'"
ok "postgres under 'all': the refused messages not applied at all, the others are (found under savepoints)"

# ---- 6. through rocketsql: a debezium-json file (c, r, u, d) INSERTed into sqlite and
# postgres tables with a PRIMARY KEY, the run killed with SIGKILL once and run again
python3 - <<'PY'
import json, random
r, cur, out, chg = random.Random(7), {}, open("dbz.jsonl", "w"), open("dbz-changes", "w")
for seq in range(1, 20001):
    k = r.randrange(500)
    v = None if r.random() < 0.03 else "n%d'\"x\\" % r.randrange(10**6)
    if k not in cur:
        op = r.choice("cr")
        out.write(json.dumps({"before": None, "after": {"id": k, "name": v}, "op": op}) + "\n")
        chg.write("%d +I %d %s\n" % (seq, k, "\\N" if v is None else v)); cur[k] = v
    elif r.random() < 0.7:
        out.write(json.dumps({"before": {"id": k, "name": cur[k]}, "after": {"id": k, "name": v},
                              "op": "u", "source": {"table": "t"}}) + "\n")
        chg.write("%d +U %d %s\n" % (seq, k, "\\N" if v is None else v)); cur[k] = v
    else:
        out.write(json.dumps({"before": {"id": k, "name": cur[k]}, "after": None, "op": "d"}) + "\n")
        chg.write("%d -D %d x\n" % (seq, k)); del cur[k]
PY
reference <dbz-changes >want-dbz
cat >dbz.sql <<SQL
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'dbz.jsonl',
  'format' = 'debezium-json');
CREATE TABLE lite (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = '$T/dbz.db', 'table' = 't', 'sink.batch-size' = '50');
CREATE TABLE pg (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.dbz',
        'sink.buffer-flush.max-rows' = '100');
SQL
rsql -f dbz.sql
expect_rc 0 "create the debezium-json tables"
for dst in lite pg; do
    "$RSQL" --catalog "$CAT" -e "INSERT INTO $dst SELECT * FROM src" >/dev/null 2>&1 &
    pid=$!
    e2e_pids="$e2e_pids $pid"
    for _ in $(seq 1 200); do # the kill lands once rows are in the sink (or the run ended)
        kill -0 "$pid" 2>/dev/null || break
        if [ "$dst" = lite ]; then n=$(sqlite3 "$T/dbz.db" "SELECT count(*) FROM t" 2>/dev/null || echo 0)
        else n=$(psql_q "SELECT count(*) FROM $S.dbz" 2>/dev/null || echo 0); fi
        [ "${n:-0}" -gt 0 ] && break
        python3 -c "import select; select.select([], [], [], 0.01)"
    done
    kill -9 "$pid" 2>/dev/null && echo "$dst: killed with ${n:-0} rows in the sink" || true
    wait "$pid" 2>/dev/null || true
    rsql -e "INSERT INTO $dst SELECT * FROM src"
    expect_rc 0 "debezium-json -> $dst, run again after a SIGKILL"
done
same_rows "$(sqlite3 "$T/dbz.db" "SELECT id, coalesce(name, '<null>') FROM t ORDER BY id")" \
    "$(cat want-dbz)" "debezium-json -> sqlite"
same_rows "$(psql_q "SELECT id, coalesce(name, '<null>') FROM $S.dbz ORDER BY id")" \
    "$(cat want-dbz)" "debezium-json -> postgres"
ok "debezium-json (20,000 changes over 500 keys) -> sqlite and postgres through rocketsql, killed once: equal to the reference"

echo "PASS ($n_checks checks)"
