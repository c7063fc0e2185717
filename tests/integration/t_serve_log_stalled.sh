#!/usr/bin/env bash
# rocketsql serve whose standard error is a FIFO nobody reads (held open, never read): a job
# that fails and restarts without delay logs three lines a restart, far more than the pipe
# and the logger's buffer hold. Nothing waits for the log: /metrics counts the dropped lines
# (rocketsql_log_lines_dropped_total), the other job keeps writing, the failing one keeps
# restarting, /healthz answers. Once the FIFO is read, the log resumes with a warning that
# says how many lines were dropped, and SIGTERM drains and exits 0.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
PORT=$(free_port)
READER=""
stalled_cleanup() {
    [ -z "$READER" ] || kill "$READER" 2>/dev/null || true
    serve_cleanup
}
trap stalled_cleanup EXIT
mkdir -p "$T/dir"
mkfifo "$T/err.fifo"
exec 9<>"$T/err.fifo" # held open, never read (until the end)

run_rsql -e "
CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='200');
CREATE TABLE out1 (a INT) WITH ('connector'='filesystem', 'path'='$T/out1.json');
CREATE TABLE bad (a INT) WITH ('connector'='filesystem', 'path'='$T/dir');
CREATE JOB steady AS INSERT INTO out1 SELECT a FROM gen;
SET 'restart-strategy' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '1000000000';
SET 'restart-strategy.fixed-delay.delay' = '0ms';
CREATE JOB flappy AS INSERT INTO bad SELECT a FROM gen"
[ "$RC" = 0 ] || fail "setup: $ERR"

"$RSQL" --catalog "$CAT" --log-level debug serve --http "127.0.0.1:$PORT" \
    >"$T/serve.out" 2>"$T/err.fifo" &
SPID=$!
: >"$T/serve.err" # (until_true shows it on failure; the log goes to the FIFO)
dropped() { awk '$1=="rocketsql_log_lines_dropped_total" {print $2}' "$T/body"; }
dropping() { http /metrics; [ "$CODE" = 200 ] && [ "$(dropped)" -gt 0 ] 2>/dev/null; }
until_true 60 "log lines dropped" dropping
d1=$(dropped)
http /jobs
w1=$(job_field steady counts.written)
r1=$(job_field flappy restarts)
rising() { http /jobs; [ "$(job_field steady counts.written)" -gt "$w1" ] &&
    [ "$(job_field flappy restarts)" -gt "$r1" ]; }
until_true 20 "steady writes and flappy restarts while the log is not read" rising
more() { http /metrics; [ "$(dropped)" -gt "$d1" ]; }
until_true 20 "more lines dropped" more
http /healthz
[ "$CODE" = 200 ] || fail "/healthz: $CODE"
ok "with standard error not read, jobs go on and /metrics counts the dropped log lines ($d1 and more)"

cat "$T/err.fifo" >"$T/err.txt" &
READER=$!
noted() { grep -q "^rocketsql: warn: log: [0-9]* log line(s) dropped: the log output was not read fast enough$" "$T/err.txt"; }
until_true 20 "the dropped-lines warning once the log is read" noted
kill -TERM "$SPID"
serve_wait_exit
SPID=""
[ "$SRC" = 0 ] || fail "SIGTERM: exit $SRC"
grep -q "serve: signal 15: draining every job" "$T/err.txt" ||
    fail "the log after the drops: $(tail -5 "$T/err.txt")"
ok "once read, the log says how many lines were dropped and goes on; SIGTERM exits 0"
echo "$n_checks passed, 0 failed"
