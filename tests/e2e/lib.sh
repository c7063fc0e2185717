# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/e2e/lib.sh: helpers sourced by every tests/e2e/t_*.sh. Each test runs in a fresh
# temporary directory ($T, removed at exit, the working directory) with its own catalog
# ($CAT). `ok` records a passed check, `fail` prints why and exits 1; a test that reaches its
# end prints "PASS".
set -euo pipefail
: "${RSQL_BUILDDIR:?run through tests/e2e/run (RSQL_BUILDDIR unset)}"
: "${RSQL_SRCDIR:?run through tests/e2e/run (RSQL_SRCDIR unset)}"
RSQL="$RSQL_BUILDDIR/rocketsql"
T=$(mktemp -d "${TMPDIR:-/tmp}/rsql-e2e-XXXXXX")
e2e_pids=""
e2e_cleanup() {
    local p
    for p in $e2e_pids; do
        kill -9 "$p" 2>/dev/null || true
    done
    rm -rf "$T"
}
trap e2e_cleanup EXIT
cd "$T"
CAT="$T/catalog.db"
n_checks=0

command -v python3 >/dev/null || { echo "FAIL: python3 is needed"; exit 1; }
command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 (the CLI) is needed"; exit 1; }

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

ok() {
    n_checks=$((n_checks + 1))
    echo "ok $n_checks - $*"
}

# rsql ARGS...: runs rocketsql with the test catalog; sets OUT, ERR, RC (never exits).
rsql() {
    set +e
    "$RSQL" --catalog "$CAT" "$@" >"$T/.out" 2>"$T/.err"
    RC=$?
    set -e
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}

# expect_rc N DESCRIPTION: the last rsql exited N, else fail showing its output.
expect_rc() {
    if [ "$RC" != "$1" ]; then
        fail "$2: exit status $RC, expected $1; stdout: ${OUT:0:2000}; stderr: ${ERR:0:2000}"
    fi
    ok "$2 (exit $1)"
}

# runs_tsv [JOB]: SHOW JOB RUNS as tab-separated rows (newest first):
# run job started ended status read written filtered dead_lettered failed error detail
runs_tsv() {
    "$RSQL" --catalog "$CAT" --tsv -e "SHOW JOB RUNS ${1:-};"
}

# last_run [JOB]: sets R_STATUS R_READ R_WRITTEN R_FILTERED R_DLQ R_FAILED R_ERROR from the
# newest row of SHOW JOB RUNS [JOB].
last_run() {
    local line
    line=$(runs_tsv "${1:-}" | head -1)
    [ -n "$line" ] || fail "SHOW JOB RUNS ${1:-} is empty"
    R_STATUS=$(printf '%s\n' "$line" | cut -f5)
    R_READ=$(printf '%s\n' "$line" | cut -f6)
    R_WRITTEN=$(printf '%s\n' "$line" | cut -f7)
    R_FILTERED=$(printf '%s\n' "$line" | cut -f8)
    R_DLQ=$(printf '%s\n' "$line" | cut -f9)
    R_FAILED=$(printf '%s\n' "$line" | cut -f10)
    R_ERROR=$(printf '%s\n' "$line" | cut -f11)
}

# same A B DESCRIPTION: fails unless A = B.
same() {
    [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
    ok "$3 ($1)"
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.05s until it succeeds; 1 on timeout.
wait_until() {
    local limit=$1 i=0
    shift
    while ! "$@" >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -lt $((limit * 20)) ] || return 1
        sleep 0.05
    done
}

# wait_pid PID SECONDS: waits for background PID to exit, at most SECONDS; sets RC to its exit
# status. On timeout it kills PID and fails.
wait_pid() {
    local pid=$1 i=0
    while kill -0 "$pid" 2>/dev/null; do
        i=$((i + 1))
        if [ "$i" -ge $(($2 * 20)) ]; then
            kill -9 "$pid" 2>/dev/null || true
            fail "process $pid still running after $2s"
        fi
        sleep 0.05
    done
    set +e
    wait "$pid" 2>/dev/null
    RC=$?
    set -e
}

# kill_loop JOB TABLE DB: run catalog job JOB (into TABLE of the sqlite file DB, whose
# rocketsql_positions show its commits) and kill it with kill -9 at a random moment after a
# commit ($SEED: the delays), until 5 kills landed on a running job (a run that finished first
# starts over with TABLE emptied and the job's positions reset, and a shorter delay); then run
# it to the end.
kill_loop() {
    local job=$1 table=$2 db=$3 landed=0 attempts=0 span=300
    RANDOM=$SEED
    while [ "$landed" -lt 5 ]; do
        attempts=$((attempts + 1))
        [ "$attempts" -le 60 ] || fail "$job: could not land 5 kills in 60 runs"
        # each run is killed after it committed rows (its position in the sink moved), at a
        # random moment after that
        local before
        before=$(sqlite3 "$db" "SELECT group_concat(\"offset\") FROM rocketsql_positions" 2>/dev/null || true)
        "$RSQL" --catalog "$CAT" run "$job" >run.out 2>run.err &
        pid=$!
        e2e_pids="$pid"
        moved() {
            [ "$(sqlite3 "$db" "SELECT group_concat(\"offset\") FROM rocketsql_positions" 2>/dev/null || true)" != "$before" ] ||
                ! kill -0 "$pid" 2>/dev/null
        }
        wait_until 60 moved || fail "$job: run $attempts committed nothing in 60s: $(cat run.err)"
        delay=$((RANDOM % (span + 1)))
        sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
        kill -9 "$pid" 2>/dev/null || true
        set +e
        wait "$pid" 2>/dev/null
        rc=$?
        set -e
        e2e_pids=""
        if [ "$rc" = 137 ]; then
            landed=$((landed + 1))
            echo "$job: kill $landed ${delay}ms after a commit: $(sqlite3 "$db" "SELECT count(*) FROM $table") keys in $table, sink at $(sqlite3 "$db" "SELECT group_concat(\"offset\") FROM rocketsql_positions")"
        elif [ "$rc" = 0 ]; then
            echo "$job: run $attempts finished before its kill (${delay}ms); starting over"
            sqlite3 "$db" "DELETE FROM $table; DELETE FROM rocketsql_positions"
            rsql -e "RESET POSITIONS '$job'"
            expect_rc 0 "$job: start over"
            span=$((span / 2))
            [ "$span" -ge 5 ] || span=5
            landed=0
        else
            fail "$job: exit status $rc: $(cat run.err)"
        fi
    done
    rsql run "$job"
    expect_rc 0 "$job: the run after the last kill completes"
}
