#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_source.sh: the postgres source without scan.incremental.column reads the table in one
# snapshot, against the real PostgreSQL 15 of scripts/postgres (started by scripts/test; this
# test fails, never skips, when it cannot be reached). The job prints its rows (print, json)
# into a FIFO; the test reads the first rows, and while the job is held mid-read by the full
# FIFO (20,000 rows of ~160 bytes: far more than the pipe and the pipeline's queues hold):
#   1. writes commit: every row updated (each moves to a new place in the table), a third
#      deleted, 5,000 inserted. The job then reads to the end: exactly the 20,000 rows of the
#      snapshot, each once, with its values from before the writes (none skipped, none read
#      twice, none of the new ones);
#   2. the job's connection is terminated (pg_terminate_backend): it reconnects, opens a new
#      snapshot past the rows it read, and reads to the end: every row once.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="t$$"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null || fail "psql cannot reach $URL"
trap 'psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true; e2e_cleanup' EXIT
ok "PostgreSQL at $URL, schema $S"
N=20000

# read_lines FD N FILE: N lines from FD into FILE, one read at a time (nothing read ahead)
read_lines() {
    local i line
    for ((i = 0; i < $2; i++)); do
        IFS= read -r -t 60 line <&"$1" || fail "line $i did not come"
        printf '%s\n' "$line" >>"$3"
    done
}

# snapshot_job TABLE: starts the job reading TABLE into the FIFO job.fifo (opened on fd 3),
# sets JOB to its pid
snapshot_job() {
    rm -f job.fifo first.jsonl rest.jsonl
    mkfifo job.fifo
    "$RSQL" --catalog "$CAT" -e "INSERT INTO out_$1 SELECT * FROM $1" >job.fifo 2>job.err &
    JOB=$!
    e2e_pids="$JOB"
    exec 3<job.fifo
}

# check_rows DESCRIPTION: first.jsonl + rest.jsonl hold ids 1..N once each, v = 'v<id>'
check_rows() {
    cat first.jsonl rest.jsonl >all.jsonl
    same "$(python3 - "$N" <<'PY'
import json, sys
n = int(sys.argv[1])
ids, bad = [], 0
for line in open("all.jsonl"):
    r = json.loads(line)
    ids.append(r["id"])
    bad += r["v"] != "v%d" % r["id"]
print("rows=%d distinct=%d min=%d max=%d changed=%d" % (len(ids), len(set(ids)), min(ids), max(ids), bad))
PY
)" "rows=$N distinct=$N min=1 max=$N changed=0" "$1"
}

for t in snap term; do
    psql_q "CREATE TABLE $S.$t (id bigint, v text, pad text);
            INSERT INTO $S.$t SELECT i, 'v' || i, repeat('x', 100) FROM generate_series(1, $N) i" >/dev/null
done
rsql -e "CREATE TABLE snap (id BIGINT, v STRING, pad STRING) WITH ('connector' = 'postgres',
           'url' = '$URL', 'table-name' = '$S.snap');
         CREATE TABLE term (id BIGINT, v STRING, pad STRING) WITH ('connector' = 'postgres',
           'url' = '$URL', 'table-name' = '$S.term');
         CREATE TABLE out_snap (id BIGINT, v STRING, pad STRING) WITH ('connector' = 'print', 'format' = 'json');
         CREATE TABLE out_term (id BIGINT, v STRING, pad STRING) WITH ('connector' = 'print', 'format' = 'json')"
expect_rc 0 "create the tables"

# ---- 1. writes committed while the job reads
snapshot_job snap
read_lines 3 200 first.jsonl
ok "the job is reading (200 rows out)"
kill -0 "$JOB" 2>/dev/null || fail "the job ended early: $(cat job.err)"
psql_q "BEGIN; UPDATE $S.snap SET v = 'changed'; DELETE FROM $S.snap WHERE id % 3 = 0;
        INSERT INTO $S.snap SELECT i, 'new', 'n' FROM generate_series($N + 1, $N + 5000) i; COMMIT" >/dev/null
same "$(psql_q "SELECT count(*), count(*) FILTER (WHERE v = 'changed') FROM $S.snap")" \
    "$((N - N / 3 + 5000))|$((N - N / 3))" "the writes committed while the job reads"
cat <&3 >rest.jsonl
exec 3<&-
wait_pid "$JOB" 60
e2e_pids=""
[ "$RC" = 0 ] || fail "the job: exit $RC: $(cat job.err)"
check_rows "the snapshot read whole: every row once, as it was when the read began"

# ---- 2. the connection terminated mid-read: a new snapshot, past the rows read
snapshot_job term
read_lines 3 200 first.jsonl
reading() { [ "$(psql_q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'rocketsql'
                          AND query LIKE 'FETCH%rsql_snapshot%'")" = 1 ]; }
wait_until 20 reading || fail "no rocketsql backend reading the snapshot"
same "$(psql_q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE application_name = 'rocketsql' AND query LIKE 'FETCH%rsql_snapshot%'")" 1 \
    "the job's connection terminated mid-read"
cat <&3 >rest.jsonl
exec 3<&-
wait_pid "$JOB" 60
e2e_pids=""
[ "$RC" = 0 ] || fail "the job after its connection was terminated: exit $RC: $(cat job.err)"
case "$(cat job.err)" in *"terminat"*) ok "the lost connection was reported and retried" ;;
*) fail "no retry reported: $(cat job.err)" ;; esac
check_rows "after the reconnect: every row once"
echo PASS
