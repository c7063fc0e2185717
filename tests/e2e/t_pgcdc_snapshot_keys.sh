#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_snapshot_keys.sh: a postgres-cdc snapshot interrupted by SIGKILL resumes after the
# last row written when the table's key is not one integer column: a uuid key into the
# postgres sink and into the filesystem sink (positions in the catalog, at-least-once), a
# (text, int) key into the sqlite sink. Against the PostgreSQL 15 of scripts/postgres (fails,
# never skips, when it cannot be reached). For each job:
#   - killed (SIGKILL) while the snapshot is being written: some rows in the sink, not all;
#   - the stored position holds the last row's key (resume_key of rocketsql_positions, or the
#     catalog's value "<rows> <key>"), and psql finds that key in the source table;
#   - the second run says it resumes there and reads exactly the rows after that key, as
#     psql counts them, plus the table's end (nothing committed is read again), and the sink
#     equals the source row for row (psql / sqlite3 over both).
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="ck$$"
SLOT="ck_slot_$$"
JOB_PID=
drop_all() {
    [ -n "$JOB_PID" ] && kill -9 "$JOB_PID" 2>/dev/null
    for s in "${SLOT}_u" "${SLOT}_c" "${SLOT}_f1" "${SLOT}_f2" "${SLOT}_f3"; do
        pg_drop_cdc "$S" "$s"
    done
}
trap 'drop_all; e2e_cleanup' EXIT
NU=80000
NC=40000
psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.u (id uuid PRIMARY KEY, v text, n int);
  INSERT INTO $S.u SELECT md5(i::text)::uuid, 'v' || i, i FROM generate_series(1, $NU) i;
  CREATE TABLE $S.c (r text, k int, v int, PRIMARY KEY (r, k));
  INSERT INTO $S.c SELECT 'r,' || (i % 97) || ':x', i, i * 3 FROM generate_series(1, $NC) i" \
    >/dev/null
ok "PostgreSQL at $URL, schema $S: u ($NU rows, uuid key), c ($NC rows, (text, int) key)"

cat >job.sql <<SQL
CREATE TABLE u_src (id STRING, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 'u', 'slot.name' = '${SLOT}_u', 'scan.snapshot.fetch.size' = '500');
CREATE TABLE u_dst (id STRING, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.u_copy',
        'sink.buffer-flush.max-rows' = '500');
CREATE JOB u_job AS INSERT INTO u_dst SELECT * FROM u_src;
CREATE TABLE c_src (r STRING, k INT, v INT, PRIMARY KEY (r, k) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 'c', 'slot.name' = '${SLOT}_c', 'scan.snapshot.fetch.size' = '300');
CREATE TABLE c_dst (r STRING, k INT, v INT, PRIMARY KEY (r, k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = '$T/c.db', 'table' = 'c', 'sink.batch-size' = '300');
CREATE JOB c_job AS INSERT INTO c_dst SELECT * FROM c_src;
SQL
# f_job: made per attempt below (the file sink is fast enough that a loaded machine may see
# the whole snapshot written before the kill lands; a new attempt then starts afresh)
f_job_sql() {
    cat <<SQL
CREATE TABLE f${1}_src (id STRING, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 'u', 'slot.name' = '${SLOT}_f$1', 'scan.snapshot.fetch.size' = '100');
CREATE TABLE f${1}_dst (id STRING, v STRING, n INT)
  WITH ('connector' = 'filesystem', 'path' = '$T/f$1.json', 'format' = 'debezium-json');
SET 'state.flush-interval' = '20ms'; -- positions saved while the snapshot is read
CREATE JOB f${1}_job AS INSERT INTO f${1}_dst SELECT * FROM f${1}_src WHERE n > 0;
SQL
}
rsql -f job.sql
expect_rc 0 "create the tables and the jobs"

# netstring_first TEXT: the first value of a key's text ("<len>:<bytes>,...")
netstring_first() { python3 -c 'import sys; s=sys.argv[1]; n,r=s.split(":",1); print(r[:int(n)])' "$1"; }

# run_killed JOB COUNT_FN: the job runs until COUNT_FN says rows arrived, then SIGKILL
run_killed() {
    "$RSQL" --catalog "$CAT" run "$1" >"$1.run1.log" 2>&1 &
    JOB_PID=$!
    wait_until 120 "$2" || fail "$1: no row of the snapshot in the sink: $(cat "$1.run1.log")"
    kill -9 "$JOB_PID"
    wait "$JOB_PID" 2>/dev/null || true
    JOB_PID=
}

# run_again JOB EQUAL_FN: the second run, until EQUAL_FN holds; SIGTERM, and the run's read
# count in READ (no change is made meanwhile: every record it read is a snapshot row or a
# table's end)
run_again() {
    "$RSQL" --catalog "$CAT" run "$1" >"$1.run2.log" 2>&1 &
    JOB_PID=$!
    wait_until 180 "$2" || fail "$1: the sink does not equal the source: $(tail -n 5 "$1.run2.log")"
    ok "$1: the sink equals the source row for row"
    kill "$JOB_PID"
    wait_pid "$JOB_PID" 30
    JOB_PID=
    READ=$(sed -n 's/.*read=\([0-9]*\) .*/\1/p' "$1.run2.log" | tail -n 1)
}

# ---- uuid key into postgres (positions stored with the rows)
u_count() { psql_q "SELECT count(*) FROM $S.u_copy" 2>/dev/null || echo 0; }
u_some() { [ "$(u_count)" -gt 0 ]; }
u_same() {
    [ "$(psql_q "SELECT (SELECT count(*) FROM $S.u) = (SELECT count(*) FROM $S.u_copy)
        AND NOT EXISTS (SELECT id::text, v, n FROM $S.u EXCEPT SELECT id, v, n FROM $S.u_copy)
        AND NOT EXISTS (SELECT id, v, n FROM $S.u_copy EXCEPT SELECT id::text, v, n FROM $S.u)" \
        2>/dev/null)" = t ]
}
run_killed u_job u_some
HAD=$(u_count)
[ "$HAD" -gt 0 ] && [ "$HAD" -lt "$NU" ] || fail "u: the kill did not land during the snapshot ($HAD of $NU)"
ok "u: killed (SIGKILL) during the snapshot: $HAD of $NU rows in the sink"
POS=$(psql_q "SELECT \"offset\" || ' ' || resume_key FROM $S.rocketsql_positions
                WHERE partition = 'snapshot:$S.u'")
OFF=${POS%% *}
KEY=$(netstring_first "${POS#* }")
same "$OFF" "$HAD" "u: the stored position counts the rows written"
same "$(psql_q "SELECT count(*) FROM $S.u_copy WHERE id > '$KEY'")" 0 \
    "u: the stored key ($KEY) is that of the last row written"
AFTER=$(psql_q "SELECT count(*) FROM $S.u WHERE id > '$KEY'::uuid")
run_again u_job u_same
grep -q "resuming .*snapshot:$S.u at $OFF (36:$KEY,)" u_job.run2.log ||
    fail "u: the second run does not say it resumes after the stored key: $(head -n 3 u_job.run2.log)"
same "$READ" "$((AFTER + 1))" "u: the second run read exactly the rows after the stored key (and the table's end)"

# ---- (text, int) key into sqlite (positions stored with the rows)
c_count() { sqlite3 "$T/c.db" "SELECT count(*) FROM c" 2>/dev/null || echo 0; }
c_some() { [ "$(c_count)" -gt 0 ]; }
c_same() {
    psql_q "SELECT r || '|' || k || '|' || v FROM $S.c ORDER BY 1" >c_src.txt 2>/dev/null &&
        sqlite3 "$T/c.db" "SELECT r || '|' || k || '|' || v FROM c ORDER BY 1" >c_dst.txt \
            2>/dev/null && LC_ALL=C sort -o c_src.txt c_src.txt && LC_ALL=C sort -o c_dst.txt c_dst.txt &&
        cmp -s c_src.txt c_dst.txt
}
run_killed c_job c_some
HAD=$(c_count)
[ "$HAD" -gt 0 ] && [ "$HAD" -lt "$NC" ] || fail "c: the kill did not land during the snapshot ($HAD of $NC)"
ok "c: killed (SIGKILL) during the snapshot: $HAD of $NC rows in the sink"
POS=$(sqlite3 "$T/c.db" "SELECT \"offset\" || ' ' || resume_key FROM rocketsql_positions
                         WHERE partition = 'snapshot:$S.c'")
same "${POS%% *}" "$HAD" "c: the stored position counts the rows written"
read -r R K < <(python3 -c '
import sys
s = sys.argv[1]; vals = []
while s:
    n, s = s.split(":", 1); n = int(n); vals.append(s[:n]); assert s[n] == ","; s = s[n + 1:]
print(vals[0], vals[1])' "${POS#* }")
same "$(psql_q "SELECT count(*) FROM $S.c WHERE (r, k) = ('$R', $K)")" 1 \
    "c: the stored key ($R, $K) is a row of the source"
same "$(sqlite3 "$T/c.db" "SELECT count(*) FROM c WHERE r > '$R' OR (r = '$R' AND k > $K)")" 0 \
    "c: and the last row written"
AFTER=$(psql_q "SELECT count(*) FROM $S.c WHERE (r, k) > ('$R', $K)")
run_again c_job c_same
same "$READ" "$((AFTER + 1))" "c: the second run read exactly the rows after the stored key (and the table's end)"

# ---- uuid key into a file (positions in the catalog: at-least-once)
FA=0 # the attempt
f_count() { [ -f "$T/f$FA.json" ] && wc -l <"$T/f$FA.json" || echo 0; }
f_saved() { sqlite3 "$CAT" "SELECT value FROM offsets WHERE pipeline LIKE 'f${FA}_job%' AND partition = 'snapshot:$S.u'" 2>/dev/null; }
f_some() { [ "$(f_count)" -gt 0 ] && [ -n "$(f_saved)" ]; }
f_same() {
    psql_q "SELECT id::text || '|' || v || '|' || n FROM $S.u ORDER BY 1" >f_src.txt 2>/dev/null &&
        python3 -c '
import json, sys
last = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("after"):
        a = o["after"]
        last[a["id"]] = "%s|%s|%s" % (a["id"], a["v"], a["n"])
    elif o.get("before"):
        last.pop(o["before"]["id"], None)
print("\n".join(sorted(last.values())))' "$T/f$FA.json" >f_dst.txt && LC_ALL=C sort -o f_src.txt f_src.txt &&
        LC_ALL=C sort -o f_dst.txt f_dst.txt && cmp -s f_src.txt f_dst.txt
}
# the snapshot's end is stored as the largest offset, with no key
F_DONE=9223372036854775807
while :; do
    FA=$((FA + 1))
    [ "$FA" -le 3 ] || fail "f: in 3 attempts the whole snapshot was written before the kill landed"
    f_job_sql "$FA" >f$FA.sql
    rsql -f f$FA.sql
    expect_rc 0 "f: create the job of attempt $FA"
    run_killed f${FA}_job f_some
    LINES=$(f_count)
    POS=$(f_saved)
    [ "$POS" = "$F_DONE" ] || break
    echo "f: attempt $FA: the snapshot's $LINES rows were all written before the kill"
done
case $POS in *" "*) ;; *) fail "f: the catalog holds '$POS' for the snapshot, not a position with a key" ;; esac
OFF=${POS%% *}
KEY=$(netstring_first "${POS#* }")
[ "$OFF" -gt 0 ] && [ "$OFF" -le "$LINES" ] && [ "$LINES" -lt "$NU" ] ||
    fail "f: catalog position $OFF, $LINES lines written of $NU"
ok "f: killed (SIGKILL) during the snapshot: $LINES lines written, the catalog at $OFF ($KEY)"
same "$(grep -c "\"$KEY\"" "$T/f$FA.json")" 1 "f: the catalog's key is a row written"
AFTER=$(psql_q "SELECT count(*) FROM $S.u WHERE id > '$KEY'::uuid")
# the file keeps every change: the source equals the last one of each key
run_again f${FA}_job f_same
grep -q "resuming .*snapshot:$S.u at $OFF (36:$KEY,)" f${FA}_job.run2.log ||
    fail "f: the second run does not say it resumes after the catalog's key: $(head -n 3 f${FA}_job.run2.log)"
same "$READ" "$((AFTER + 1))" "f: the second run read exactly the rows after the catalog's key (and the table's end)"
echo "$n_checks passed, 0 failed"
