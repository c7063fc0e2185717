#!/usr/bin/env bash
# rocketsql serve: a changed job starts again once its old self has drained, even when the
# catalog cannot be read at that moment. The job's sink is a FIFO nobody reads, so its old
# self drains only when the test reads it; meanwhile the catalog's jobs cannot be read (their
# table renamed away by another process), so the reload that follows the drain fails. Once
# they can be read again the new job must start without another SIGHUP (a reload tried only
# right after a drain left the job stopped for good).
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
PORT=$(free_port)
READER=""
retry_cleanup() {
    [ -z "$READER" ] || kill "$READER" 2>/dev/null || true
    serve_cleanup
}
trap retry_cleanup EXIT

mkfifo "$T/slow.fifo"
# held open for reading and writing: the sink's open does not wait, its writes block when full
exec 7<>"$T/slow.fifo"

run_rsql -e "
CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='20000');
CREATE TABLE slow (a INT) WITH ('connector'='filesystem', 'path'='$T/slow.fifo',
  'sink.sync'='false');
CREATE JOB j AS INSERT INTO slow SELECT a FROM gen"
[ "$RC" = 0 ] || fail "setup: $ERR"

serve_start --log-level info serve --http "127.0.0.1:$PORT"
st() { http /jobs; [ "$(job_field "$1" status)" = "$2" ]; }
until_true 20 "j running" st j running
write_blocked() {
    local t
    for t in /proc/"$SPID"/task/*; do
        case "$(cat "$t/wchan" 2>/dev/null)" in *pipe_write*) return 0 ;; esac
    done
    return 1
}
until_true 20 "j's sink blocked on its full FIFO" write_blocked

run_rsql -e "DROP JOB j; CREATE JOB j AS INSERT INTO slow SELECT a + 1 FROM gen"
[ "$RC" = 0 ] || fail "changing j: $ERR"
kill -HUP "$SPID"
until_true 10 "the old j draining" st j draining
ok "the changed job's old self drains"

# the catalog's jobs cannot be read (their table renamed away), then the old j drains: the
# reload after it fails
catalog_sql() { python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
c.execute(sys.argv[2])' "$CAT" "$1"; }
catalog_sql "ALTER TABLE jobs RENAME TO jobs_away"
cat "$T/slow.fifo" >/dev/null &
READER=$!
drained() { grep -q "serve: job j: drained" "$T/serve.err"; }
until_true 30 "the old j drained" drained
failed() { grep -q "serve: reload: " "$T/serve.err"; }
until_true 30 "the reload after the drain failed (jobs unreadable)" failed
ok "the reload after the drain failed: $(grep -m1 'serve: reload: ' "$T/serve.err")"

catalog_sql "ALTER TABLE jobs_away RENAME TO jobs"
until_true 30 "the new j running once the catalog can be read" st j running
ok "the new job starts once the catalog can be read, with no SIGHUP"

kill -TERM "$SPID"
serve_wait_exit
SPID=""
[ "$SRC" = 0 ] || fail "serve exit $SRC: $(tail -5 "$T/serve.err")"
ok "serve drains and exits 0"
echo "$n_checks passed, 0 failed"
