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
