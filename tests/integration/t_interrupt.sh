#!/usr/bin/env bash
# A signal stops a script: SIGINT (or SIGTERM) ends the running statement (drained, its run
# "interrupted"), the summary line says interrupted, the statements after it do not run, and
# the exit status is 128 + the signal (130 for SIGINT, 143 for SIGTERM); `rocketsql run JOB`
# alike.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
run_rsql -e "CREATE TABLE g (id BIGINT) WITH ('connector'='datagen', 'rows-per-second'='2000', 'fields.id.kind'='sequence');
CREATE TABLE f (id BIGINT) WITH ('connector'='filesystem', 'path'='out.json', 'format'='json');
CREATE JOB j AS INSERT INTO f SELECT id FROM g;"
[ "$RC" = 0 ] || fail "setup: $ERR"

# interrupt SIG ARGS...: run rocketsql ARGS in the background, send SIG once rows reach the
# sink (the run handles signals from before its sink opens); sets OUT, ERR, RC
interrupt() {
    local sig=$1 pid i
    shift
    rm -f out.json
    "$RSQL" --catalog "$CAT" "$@" >"$T/out" 2>"$T/err" &
    pid=$!
    for i in $(seq 1 300); do
        [ -s out.json ] && break
        kill -0 "$pid" 2>/dev/null || break
        read -r -t 0.1 <> <(:) || true
    done
    [ -s out.json ] || fail "no rows written before the signal"
    kill -"$sig" "$pid"
    set +e
    wait "$pid"
    RC=$?
    set -e
    OUT=$(cat "$T/out")
    ERR=$(cat "$T/err")
}

interrupt INT -e "INSERT INTO f SELECT id FROM g; INSERT INTO f SELECT id FROM g; SHOW TABLES;"
[ "$RC" = 130 ] || fail "SIGINT: exit $RC, want 130: $ERR"
[ -z "$OUT" ] || fail "SIGINT: the statements after the interrupted one ran: $OUT"
[ "$(printf '%s\n' "$ERR" | grep -c '^read=.* interrupted$')" = 1 ] ||
    fail "SIGINT: want one summary line that says interrupted: $ERR"
case "$ERR" in *"interrupted by SIGINT; the rest of the script was not run"*) ;;
*) fail "SIGINT: not said: $ERR" ;; esac
[ "$(sqlite3 "$CAT" "SELECT status FROM job_runs ORDER BY id DESC LIMIT 1")" = interrupted ] ||
    fail "SIGINT: the run is not interrupted in job_runs"
[ "$(sqlite3 "$CAT" "SELECT count(*) FROM job_runs")" = 1 ] || fail "SIGINT: a second INSERT ran"
ok "SIGINT ends the running statement and the script, status 130, summary says interrupted"

interrupt TERM -e "INSERT INTO f SELECT id FROM g; SHOW TABLES;"
[ "$RC" = 143 ] || fail "SIGTERM: exit $RC, want 143: $ERR"
[ -z "$OUT" ] || fail "SIGTERM: SHOW TABLES ran: $OUT"
case "$ERR" in *"interrupted by SIGTERM; the rest of the script was not run"*) ;;
*) fail "SIGTERM: not said: $ERR" ;; esac
ok "SIGTERM alike, status 143"

interrupt INT run j
[ "$RC" = 130 ] || fail "run j: exit $RC, want 130: $ERR"
case "$ERR" in *" interrupted"*"interrupted by SIGINT"*) ;; *) fail "run j: $ERR" ;; esac
case "$ERR" in *"the rest of the script"*) fail "run j: there is no rest: $ERR" ;; esac
ok "rocketsql run JOB: status 130 after SIGINT"

run_rsql -e "SHOW TABLES;"
[ "$RC" = 0 ] || fail "a script after an interrupted one: $RC"
ok "the next script is not interrupted by the last one's signal"
