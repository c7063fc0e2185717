#!/usr/bin/env bash
# rocketsql serve while a job takes long to drain: its sink is a FIFO that nobody reads (held
# open, so writes block once the pipe is full), so its drain lasts until the test reads it.
# A SIGHUP that drops such a job leaves it listed as "draining" in /jobs and /metrics until it
# is gone, while the service goes on taking signals (a second SIGHUP is handled at once); once
# the FIFO is read, the job drains and leaves the lists. A SIGHUP that changes such a job, then
# SIGTERM: the first SIGTERM is taken at once (draining every job), and the second ends the
# process at once (exit 143) although the drain is still blocked.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
PORT=$(free_port)
READER=""
drain_cleanup() {
    [ -z "$READER" ] || kill "$READER" 2>/dev/null || true
    serve_cleanup
}
trap drain_cleanup EXIT

mkfifo "$T/slow1.fifo" "$T/slow2.fifo"
# held open for reading and writing: the sink's open does not wait, its writes block when full
exec 7<>"$T/slow1.fifo" 8<>"$T/slow2.fifo"

run_rsql -e "
CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='20000');
CREATE TABLE gen2 (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE slow1 (a INT) WITH ('connector'='filesystem', 'path'='$T/slow1.fifo',
  'sink.sync'='false');
CREATE TABLE slow2 (a INT) WITH ('connector'='filesystem', 'path'='$T/slow2.fifo',
  'sink.sync'='false');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole');
CREATE JOB stuck AS INSERT INTO slow1 SELECT a FROM gen;
CREATE JOB steady AS INSERT INTO bh SELECT a FROM gen2"
[ "$RC" = 0 ] || fail "setup: $ERR"

serve_start --log-level info serve --http "127.0.0.1:$PORT"
st() { http /jobs; [ "$(job_field "$1" status)" = "$2" ]; }
until_true 20 "stuck running" st stuck running
# write_blocked: a thread of the service waits in the kernel to write into a full pipe
write_blocked() {
    local t
    for t in /proc/"$SPID"/task/*; do
        case "$(cat "$t/wchan" 2>/dev/null)" in *pipe_write*) return 0 ;; esac
    done
    return 1
}
until_true 20 "stuck's sink blocked on its full FIFO" write_blocked

# drop it: it drains (blocked), listed as draining; the service still takes signals
run_rsql -e "DROP JOB stuck"
[ "$RC" = 0 ] || fail "DROP JOB: $ERR"
kill -HUP "$SPID"
until_true 10 "stuck draining" st stuck draining
http /metrics
[ "$CODE" = 200 ] && [ "$(metric rocketsql_job_up stuck)" = 0 ] ||
    fail "/metrics lost the draining job: $CODE $BODY"
[ -n "$(metric rocketsql_records_written_total stuck)" ] || fail "no written total for stuck"
kill -HUP "$SPID"
hups() { [ "$(grep -c 'SIGHUP: re-reading the catalog' "$T/serve.err")" -ge 2 ]; }
until_true 10 "a second SIGHUP handled while stuck drains" hups
st stuck draining || fail "stuck is not draining any more: $BODY"
[ "$(job_field steady status)" = running ] || fail "steady: $BODY"
ok "a dropped job that drains slowly is listed as draining in /jobs and /metrics; signals are still taken"

cat "$T/slow1.fifo" >/dev/null &
READER=$!
gone() { http /jobs; [ "$(job_field stuck status)" = "(absent)" ]; }
until_true 30 "stuck drained once its FIFO is read" gone
http /metrics
[ -z "$(metric rocketsql_job_up stuck)" ] || fail "/metrics still has stuck: $BODY"
grep -q "serve: job stuck: drained" "$T/serve.err" || fail "no drained line: $(cat "$T/serve.err")"
ok "once it drained it leaves /jobs and /metrics"

# a changed job: the new one waits for the old one; SIGTERM twice ends the process at once
run_rsql -e "CREATE JOB stuck2 AS INSERT INTO slow2 SELECT a FROM gen"
[ "$RC" = 0 ] || fail "stuck2: $ERR"
kill -HUP "$SPID"
until_true 20 "stuck2 running" st stuck2 running
until_true 20 "stuck2's sink blocked on its full FIFO" write_blocked
run_rsql -e "DROP JOB stuck2; CREATE JOB stuck2 AS INSERT INTO slow2 SELECT a + 1 FROM gen"
[ "$RC" = 0 ] || fail "changing stuck2: $ERR"
kill -HUP "$SPID"
until_true 10 "the old stuck2 draining" st stuck2 draining
[ "$(echo "$BODY" | grep -o '"name":"stuck2"' | wc -l)" = 1 ] ||
    fail "the new stuck2 started before the old one drained: $BODY"
kill -TERM "$SPID"
term() { grep -q "signal 15: draining every job" "$T/serve.err"; }
until_true 10 "the first SIGTERM taken while stuck2 drains" term
kill -0 "$SPID" || fail "serve ended on the first SIGTERM with a drain blocked"
t0=$(date +%s%N)
kill -TERM "$SPID"
serve_wait_exit
t1=$(date +%s%N)
SPID=""
[ "$SRC" = 143 ] || fail "the second SIGTERM: exit $SRC: $(tail -5 "$T/serve.err")"
[ $(((t1 - t0) / 1000000)) -lt 3000 ] || fail "the second SIGTERM took $(((t1 - t0) / 1000000)) ms"
ok "a SIGHUP that changes a slow-draining job, then SIGTERM twice: the second exits at once (143)"
echo "$n_checks passed, 0 failed"
