#!/usr/bin/env bash
# rocketsql serve's restart strategies and bad input, without a broker: a job whose sink fails
# (its file is a directory) restarts with fixed-delay backoff, each attempt a failed row of
# SHOW JOB RUNS with its error, and once the sink works it recovers without loss; a job with
# restart-strategy 'none' fails once and stays failed; a job that no longer plans (its table
# dropped) fails alone with its error in /jobs and SHOW JOB RUNS while the others run;
# exponential-delay gives up after its attempts; --log-format json lines are JSON objects that
# carry the job and run; a SIGHUP that changes a job restarts it.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
PORT=$(free_port)
mkdir -p "$T/out.json" # a directory: the sink cannot open it until it is removed

run_rsql -e "
CREATE TABLE seq (a INT) WITH ('connector'='datagen', 'number-of-rows'='50',
  'fields.a.kind'='sequence', 'fields.a.start'='1', 'fields.a.end'='50');
CREATE TABLE out (a INT) WITH ('connector'='filesystem', 'path'='$T/out.json');
CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE doomed (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole');
SET 'restart-strategy' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '1000';
SET 'restart-strategy.fixed-delay.delay' = '200ms';
CREATE JOB flaky AS INSERT INTO out SELECT a FROM seq;
SET 'restart-strategy' = 'none';
CREATE JOB once AS INSERT INTO out SELECT a FROM seq;
SET 'restart-strategy' = 'exponential-delay';
SET 'restart-strategy.exponential-delay.initial-backoff' = '10ms';
SET 'restart-strategy.exponential-delay.max-backoff' = '40ms';
SET 'restart-strategy.exponential-delay.backoff-multiplier' = '2';
SET 'restart-strategy.exponential-delay.attempts-before-reset-backoff' = '3';
CREATE JOB expo AS INSERT INTO out SELECT a FROM seq;
RESET;
CREATE JOB steady AS INSERT INTO bh SELECT a FROM gen;
SET 'restart-strategy' = 'none';
CREATE JOB gone AS INSERT INTO bh SELECT a FROM doomed;
RESET;
DROP TABLE doomed"
[ "$RC" = 0 ] || fail "setup: $ERR"

serve_start --log-format json --log-level debug serve --http "127.0.0.1:$PORT"
st() { http /jobs; [ "$(job_field "$1" status)" = "$2" ]; }
until_true 20 "once failed" st once failed
until_true 20 "gone failed" st gone failed
until_true 20 "expo failed" st expo failed
restarted() { http /jobs; [ "$(job_field flaky restarts)" -ge 2 ]; }
until_true 20 "flaky restarted twice" restarted
[ "$(job_field flaky status)" != failed ] || fail "fixed-delay gave up: $BODY"
case "$(job_field flaky last_error)" in
*"Is a directory"*) ;;
*) fail "flaky's last error: $(job_field flaky last_error)" ;;
esac
[ "$(job_field once restarts)" = 0 ] && [ "$(job_field once runs)" = 1 ] ||
    fail "restart-strategy none restarted: $BODY"
[ "$(job_field expo restarts)" = 3 ] && [ "$(job_field expo runs)" = 4 ] ||
    fail "exponential-delay with 3 attempts: $BODY"
case "$(job_field gone last_error)" in
*"unknown table"*doomed* | *doomed*) ;;
*) fail "gone's last error: $(job_field gone last_error)" ;;
esac
[ "$(job_field steady status)" = running ] || fail "steady is not running: $BODY"
http /readyz
[ "$CODE" = 503 ] || fail "/readyz with failed jobs: $CODE"
ok "fixed-delay restarts, none stays failed, exponential-delay stops after its attempts, a job that does not plan fails alone"

rmdir "$T/out.json"
until_true 20 "flaky recovered" st flaky finished
http /metrics
restarts=$(metric rocketsql_job_restarts_total flaky)
[ "$restarts" -ge 2 ] || fail "restarts metric: $restarts"
[ "$(sort -n "$T/out.json" | python3 -c 'import sys,json; v=[json.loads(l)["a"] for l in sys.stdin]; print(sorted(v)==list(range(1,51)))')" = True ] ||
    fail "out.json is not rows 1..50 once each: $(cat "$T/out.json")"
ok "once the sink works again the job recovers: rows 1..50, each once"

run_rsql --tsv -e "SHOW JOB RUNS flaky"
nfail=$(echo "$OUT" | awk -F'\t' '$5=="failed" && $11 ~ /Is a directory/' | wc -l)
ndone=$(echo "$OUT" | awk -F'\t' '$5=="done" && $7==50' | wc -l)
[ "$nfail" = "$restarts" ] && [ "$ndone" = 1 ] ||
    fail "SHOW JOB RUNS flaky: $nfail failed for $restarts restarts, $ndone done: $OUT"
run_rsql --tsv -e "SHOW JOB RUNS gone"
echo "$OUT" | awk -F'\t' '$5=="failed" && $11 ~ /doomed/ {f=1} END {exit !f}' ||
    fail "SHOW JOB RUNS gone: $OUT"
run_rsql --tsv -e "SHOW JOB RUNS expo"
[ "$(echo "$OUT" | awk -F'\t' '$5=="failed"' | wc -l)" = 4 ] || fail "SHOW JOB RUNS expo: $OUT"
ok "every attempt is a row of SHOW JOB RUNS with its error; a job that does not plan too"

# a changed job restarts on SIGHUP; the others go on
http /jobs
steady_run=$(job_field steady run_id)
run_rsql -e "CREATE TABLE doomed (a INT) WITH ('connector'='datagen', 'rows-per-second'='10');
DROP JOB gone; CREATE JOB gone AS INSERT INTO bh SELECT a FROM doomed"
[ "$RC" = 0 ] || fail "recreate gone: $ERR"
kill -HUP "$SPID"
until_true 20 "gone runs again" st gone running
[ "$(job_field steady run_id)" = "$steady_run" ] || fail "steady was restarted"
ok "SIGHUP: a changed job starts again, the others are not touched"

kill -INT "$SPID"
serve_wait_exit
[ "$SRC" = 0 ] || fail "SIGINT: exit $SRC"
python3 - "$T/serve.err" <<'PY' || fail "--log-format json: $(head -5 "$T/serve.err")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no log lines"
ctx = 0
for l in lines:
    o = json.loads(l)
    assert set(o) >= {"time", "level", "component", "msg"}, o
    if o.get("job") == "steady" and o.get("run", 0) > 0:
        ctx += 1
assert ctx > 0, "no line of job steady with its run id"
PY
ok "--log-format json: every line a JSON object; a job's lines carry job and run"
echo "$n_checks passed, 0 failed"
