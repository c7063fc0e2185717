#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_run_job.sh: catalog jobs.
#   1. CREATE JOB captures the session's job-level settings: errors.tolerance set to all
#      before CREATE JOB and RESET after; RUN JOB in that session, and `rocketsql run JOB` in a
#      new process (whose session default is none), still tolerate a bad line; a job created
#      without the setting fails on the same kind of line. SHOW JOBS lists the jobs and the
#      captured settings.
#   2. `rocketsql run JOB` exits 0 when the job is done, 2 when its source file is missing
#      (SHOW JOB RUNS: failed, with the error), 1 for a job that does not exist.
#   3. SHOW JOB RUNS NAME shows that job's runs only, newest first.
. "$(dirname "$0")/lib.sh"

printf '%s\n' '{"id":1}' 'not json' '{"id":2}' >in.jsonl
cat >setup.sql <<'SQL'
CREATE TABLE src (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl');
CREATE TABLE src2 (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in2.jsonl');
CREATE TABLE gone (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'missing.jsonl');
CREATE TABLE dst (id BIGINT) WITH ('connector' = 'sqlite', 'path' = 'sink.db', 'table' = 't');
CREATE TABLE dst2 (id BIGINT) WITH ('connector' = 'sqlite', 'path' = 'sink.db', 'table' = 't2');
SET 'errors.tolerance' = 'all';
CREATE JOB tolerant AS INSERT INTO dst SELECT * FROM src;
RESET 'errors.tolerance';
CREATE JOB strict AS INSERT INTO dst2 SELECT id * 10 FROM src2;
CREATE JOB lost AS INSERT INTO dst SELECT * FROM gone;
RUN JOB tolerant;
SQL
cp in.jsonl in2.jsonl
rsql -f setup.sql
expect_rc 0 "create the jobs with errors.tolerance set, reset it, RUN JOB"
case "$OUT" in
*"reset errors.tolerance"*) ok "the setting was reset before RUN JOB" ;;
*) fail "no RESET in: $OUT" ;;
esac
same "$(sqlite3 sink.db 'SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY id)')" "1,2" \
    "RUN JOB tolerated the bad line with the captured setting"
last_run tolerant
same "$R_STATUS $R_READ $R_WRITTEN $R_DLQ $R_FAILED" "done 3 2 1 0" "the RUN JOB run's counts"

rsql --tsv -e "SHOW JOBS;"
expect_rc 0 "SHOW JOBS"
same "$(printf '%s\n' "$OUT" | cut -f1-3)" "$(printf '%s\t%s\t%s\n' \
    lost 'INSERT INTO dst SELECT * FROM gone' '' \
    strict 'INSERT INTO dst2 SELECT id * 10 FROM src2' '' \
    tolerant 'INSERT INTO dst SELECT * FROM src' 'errors.tolerance=all')" \
    "SHOW JOBS: jobs, statements, captured settings"
[ "$(printf '%s\n' "$OUT" | cut -f4 | grep -c '^20[0-9][0-9]-[01][0-9]-[0-3][0-9] ')" = 3 ] ||
    fail "SHOW JOBS: creation times: $OUT"

# a new process: its session has errors.tolerance = none, the job still tolerates
printf '%s\n' '{"id":3}' '[3]' '{"id":4}' >>in.jsonl
rsql run tolerant
expect_rc 0 "rocketsql run tolerant (new bad line, session default none)"
same "$(sqlite3 sink.db 'SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY id)')" "1,2,3,4" \
    "the rerun resumed and tolerated the new bad line"
last_run tolerant
same "$R_STATUS $R_READ $R_WRITTEN $R_DLQ $R_FAILED" "done 3 2 1 0" "the second run's counts"

rsql run strict
expect_rc 2 "the job created without the setting fails on the bad line"
last_run strict
same "$R_STATUS" failed "status of the strict run"
same "$R_ERROR" "decode error at file:in2.jsonl@9 line 2: invalid JSON at byte 0: unexpected character 'n' (SET 'errors.tolerance' = 'all' to skip bad records, and 'errors.dlq.table' to keep them)" \
    "the strict run's error"
case "$ERR" in
*"error: job 'strict': decode error at file:in2.jsonl@9 line 2:"*) ok "the error is printed" ;;
*) fail "stderr: $ERR" ;;
esac

rsql run lost
expect_rc 2 "rocketsql run lost (its source file is missing)"
last_run lost
same "$R_STATUS" failed "status of the lost run"
same "$R_ERROR" "cannot open missing.jsonl: No such file or directory" "the lost run's error"

rsql run nosuch
expect_rc 1 "rocketsql run nosuch (no such job)"
case "$ERR" in
*"no such job: nosuch"*) ok "says there is no such job" ;;
*) fail "stderr: $ERR" ;;
esac

rsql run strict
same "$RC" 2 "the strict job fails again on the same line (nothing committed past it)"

# SHOW JOB RUNS NAME: only that job's runs, newest first
same "$(runs_tsv tolerant | cut -f2,5 | tr '\t\n' ': ')" "tolerant:done tolerant:done " \
    "SHOW JOB RUNS tolerant"
same "$(runs_tsv strict | cut -f2,5 | tr '\t\n' ': ')" "strict:failed strict:failed " \
    "SHOW JOB RUNS strict"
same "$(runs_tsv lost | cut -f2,5 | tr '\t\n' ': ')" "lost:failed " "SHOW JOB RUNS lost"
same "$(runs_tsv | wc -l)" 5 "SHOW JOB RUNS (all jobs)"
ids=$(runs_tsv | cut -f1 | tr '\n' ' ')
same "$ids" "5 4 3 2 1 " "newest first"
echo PASS
