#!/usr/bin/env bash
# rocketsql serve without a broker: several jobs in one process (datagen -> file, datagen ->
# blackhole), the HTTP endpoint (/metrics valid for promtool, /healthz, /readyz, /jobs, 404,
# 405, an address in use refused at start-up), SIGHUP (a new job starts, a dropped one stops,
# the third's counts keep rising), SIGTERM draining everything with exit 0, the totals of a
# finished job equal to SHOW JOB RUNS, and a secret option that shows up nowhere.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
command -v promtool >/dev/null || fail "promtool is needed (Debian package prometheus; scripts/setup)"
SECRET=S3cr3t-Xq7-do-not-show
PORT=$(free_port)

run_rsql -e "
CREATE TABLE gen (a INT, b VARCHAR) WITH ('connector'='datagen', 'rows-per-second'='200');
CREATE TABLE gen2 (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE gen3 (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE ten (a INT) WITH ('connector'='datagen', 'number-of-rows'='10');
CREATE TABLE out1 (a INT, b VARCHAR) WITH ('connector'='filesystem', 'path'='$T/out1.json');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole');
CREATE TABLE sec (a INT) WITH ('connector'='rocketmq-grpc', 'endpoints'='127.0.0.1:1',
  'topic'='t', 'source.consumer-group'='g', 'access-key'='ak', 'secret-key'='$SECRET');
CREATE JOB to_file AS INSERT INTO out1 SELECT a, b FROM gen;
CREATE JOB to_bh AS INSERT INTO bh SELECT a FROM gen2;
CREATE JOB bounded AS INSERT INTO bh SELECT a FROM ten"
[ "$RC" = 0 ] || fail "setup: $ERR"

serve_start --log-level debug serve --http "127.0.0.1:$PORT"
ready() { http /readyz; [ "$CODE" = 200 ]; }
until_true 20 "/readyz 200" ready
ok "serve: /readyz answers 200 once every job runs"

http /healthz
[ "$CODE" = 200 ] && [ "$BODY" = ok ] || fail "/healthz: $CODE $BODY"
http /nope
[ "$CODE" = 404 ] || fail "unknown path: $CODE"
http /metrics -X POST
[ "$CODE" = 405 ] || fail "POST /metrics: $CODE"
curl -s -D - -o /dev/null -X DELETE "http://127.0.0.1:$PORT/jobs" | grep -qi '^Allow: GET, HEAD' ||
    fail "405 without an Allow header"
ok "HTTP: /healthz 200, unknown path 404, other methods 405 with Allow"

# a second serve on the same address is refused at start-up, clearly
set +e
"$RSQL" --catalog "$CAT" serve --http "127.0.0.1:$PORT" >"$T/o2" 2>"$T/e2"
rc2=$?
set -e
[ "$rc2" = 1 ] || fail "address in use: exit $rc2"
grep -q "^rocketsql: serve: --http 127.0.0.1:$PORT: cannot listen: Address already in use$" "$T/e2" ||
    fail "address in use: $(cat "$T/e2")"
"$RSQL" --catalog "$CAT" serve --http "nonsense:x" >"$T/o3" 2>"$T/e3" && fail "a bad address ran"
grep -q "bad port 'x'" "$T/e3" || fail "bad address: $(cat "$T/e3")"
ok "--http: an address in use is exit 1 with the reason; a bad address is refused"

rising() { http /jobs; v=$(job_field "$1" counts.written); [ "$v" -gt "$2" ]; }
until_true 20 "to_file writes" rising to_file 0
http /metrics
echo "$BODY" >"$T/metrics1.txt"
promtool check metrics <"$T/metrics1.txt" >"$T/promtool.out" 2>&1 ||
    fail "promtool check metrics: $(cat "$T/promtool.out")"
for m in records_read_total records_written_total records_filtered_total \
    records_dead_lettered_total records_failed_total retries_total job_restarts_total \
    records_in_flight records_in_flight_bytes queue_depth_records job_up; do
    [ -n "$(metric rocketsql_$m to_file)" ] || fail "no rocketsql_$m for to_file"
done
[ "$(metric rocketsql_job_up to_bh)" = 1 ] || fail "to_bh not up"
ok "/metrics: every per-job series, and promtool check metrics passes"

# the bounded job finishes by itself; its totals are those of its run in the catalog
fin() { http /jobs; [ "$(job_field bounded status)" = finished ]; }
until_true 20 "bounded finished" fin
[ "$(job_field bounded counts.written)" = 10 ] || fail "bounded wrote $(job_field bounded counts.written)"
http /metrics
[ "$(metric rocketsql_records_written_total bounded)" = 10 ] || fail "bounded metric: $BODY"
[ "$(metric rocketsql_end_to_end_latency_seconds_count bounded)" = 10 ] ||
    fail "end-to-end latency: one observation per written row: $BODY"
echo "$BODY" | grep -q '^rocketsql_end_to_end_latency_seconds_bucket{job="bounded",le="+Inf"} 10$' ||
    fail "no +Inf bucket: $BODY"
[ "$(metric rocketsql_send_latency_seconds_count bounded)" -ge 1 ] || fail "send latency: $BODY"
run_rsql --tsv -e "SHOW JOB RUNS bounded"
echo "$OUT" | awk -F'\t' '$5=="done" && $6==10 && $7==10 {f=1} END {exit !f}' ||
    fail "SHOW JOB RUNS bounded: $OUT"
ok "a bounded job finishes; /metrics and /jobs totals equal its row of SHOW JOB RUNS; latency histograms"

# SIGHUP: drop to_bh, add to_bh3; to_file keeps running (same run, counts rising)
http /jobs
run1=$(job_field to_file run_id)
w1=$(job_field to_file counts.written)
run_rsql -e "DROP JOB to_bh; CREATE JOB to_bh3 AS INSERT INTO bh SELECT a FROM gen3"
[ "$RC" = 0 ] || fail "catalog change: $ERR"
kill -HUP "$SPID"
reloaded() { http /jobs; [ "$(job_field to_bh3 status)" = running ] && [ "$(job_field to_bh status)" = "(absent)" ]; }
until_true 20 "SIGHUP applied" reloaded
until_true 20 "to_file keeps writing" rising to_file "$w1"
[ "$(job_field to_file run_id)" = "$run1" ] || fail "to_file was restarted by the reload"
[ "$(job_field to_file runs)" = 1 ] || fail "to_file runs: $(job_field to_file runs)"
run_rsql --tsv -e "SHOW JOB RUNS to_bh"
[ "$RC" = 0 ] || fail "SHOW JOB RUNS to_bh exited $RC: $ERR"
echo "$OUT" | awk -F'\t' '$5=="interrupted" {f=1} END {exit !f}' || fail "to_bh's run: $OUT"
ok "SIGHUP: the new job runs, the dropped one drained (interrupted), the third untouched"

# stuck scrapers: connections that send half a request, and one that never reads its answer
python3 -c 'import socket,sys,time
port=int(sys.argv[1]); held=[]
for i in range(8):
    s=socket.create_connection(("127.0.0.1",port)); s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"); held.append(s)
s=socket.create_connection(("127.0.0.1",port)); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 200); held.append(s)
print("holding", flush=True); time.sleep(30)' "$PORT" >"$T/stuck.out" 2>&1 &
STUCK=$!
until grep -q holding "$T/stuck.out" 2>/dev/null; do
    kill -0 "$STUCK" 2>/dev/null || fail "stuck scraper: $(cat "$T/stuck.out")"
    sleep 0.1
done
http /jobs
w2=$(job_field to_file counts.written)
until_true 10 "to_file writes while scrapers are stuck" rising to_file "$w2"
http /healthz
[ "$CODE" = 200 ] || fail "/healthz with stuck scrapers: $CODE"
kill "$STUCK" 2>/dev/null || true
wait "$STUCK" 2>/dev/null || true
ok "stuck scrapers stall neither the jobs nor other requests"

http /jobs
echo "$BODY" >"$T/jobs.json"
http /metrics
echo "$BODY" >"$T/metrics2.txt"
kill -TERM "$SPID"
serve_wait_exit
[ "$SRC" = 0 ] || fail "SIGTERM: exit $SRC: $(tail -5 "$T/serve.err")"
run_rsql --tsv -e "SHOW JOB RUNS"
echo "$OUT" | awk -F'\t' '$2!="bounded" && $5!="interrupted" {bad=1} END {exit bad}' ||
    fail "a job did not end interrupted: $OUT"
lines=$(wc -l <"$T/out1.json")
written=$(echo "$OUT" | awk -F'\t' '$2=="to_file" {s+=$7} END {print s}')
[ "$lines" = "$written" ] || fail "out1.json has $lines lines, SHOW JOB RUNS says $written"
ok "SIGTERM drains every job (interrupted, positions saved) and exits 0; file lines = written"

# the job's log lines carry its name, and once its run began, the run id
grep -q "^rocketsql: debug: runtime: job=to_file: pipeline to_file: starting " "$T/serve.err" ||
    fail "no job context in the log: $(head -20 "$T/serve.err")"
grep -q "^rocketsql: debug: runtime: job=to_file run=$run1: pipeline to_file: finished: " \
    "$T/serve.err" || fail "no job/run context in the log: $(cat "$T/serve.err")"
ok "log lines of a job carry job=NAME and run=ID"

# a job reading a table with a secret, against an endpoint that refuses; then two SIGTERMs
run_rsql -e "CREATE JOB sec_job AS INSERT INTO bh SELECT a FROM sec"
[ "$RC" = 0 ] || fail "sec_job: $ERR"
cp "$T/serve.err" "$T/serve1.err"
serve_start --log-level trace serve --http "127.0.0.1:$PORT" --job sec_job
trying() { http /jobs; [ "$(job_field sec_job counts.retries)" -gt 0 ] 2>/dev/null ||
    [ -n "$(job_field sec_job last_error)" ]; }
until_true 30 "sec_job retries or fails" trying
echo "$BODY" >"$T/jobs_sec.json"
http /metrics
echo "$BODY" >"$T/metrics_sec.txt"
http /readyz
[ "$CODE" = 503 ] || fail "/readyz with a job that cannot connect: $CODE"
ok "a job whose source cannot connect makes /readyz 503"
grep -q "job=sec_job.*rocketmq\|rocketmq.*sec_job\|: rocketmq: " "$T/serve.err" ||
    fail "no RocketMQ lines at trace level to check: $(cat "$T/serve.err")"
kill -TERM "$SPID"; kill -TERM "$SPID"
serve_wait_exit
case "$SRC" in 0 | 143) ;; *) fail "two SIGTERMs: exit $SRC" ;; esac
ok "two SIGTERMs end the process"

# the secret shows up nowhere
run_rsql -e "SHOW CREATE TABLE sec; DESCRIBE sec; SHOW JOBS; SHOW JOB RUNS; SHOW TABLES"
echo "$OUT$ERR" >"$T/show.txt"
run_rsql --log-level trace -e "EXPLAIN INSERT INTO bh SELECT a FROM sec"
echo "$OUT$ERR" >>"$T/show.txt"
for f in "$T/show.txt" "$T/serve1.err" "$T/serve.err" "$T/jobs.json" "$T/metrics1.txt" "$T/metrics2.txt" \
    "$T/jobs_sec.json" "$T/metrics_sec.txt"; do
    grep -q "$SECRET" "$f" && fail "the secret is in $f"
done
grep -q "secret-key" "$T/show.txt" || fail "SHOW CREATE TABLE lost the option: $(cat "$T/show.txt")"
ok "a secret option is in no log line, EXPLAIN, SHOW output, /metrics or /jobs"
echo "$n_checks passed, 0 failed"
