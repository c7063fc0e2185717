# Shared helpers for the integration tests (sourced). Each test gets a fresh
# temporary directory and catalog; `fail` prints why and exits 1.
set -u
: "${RSQL_BUILDDIR:?run through make check (RSQL_BUILDDIR unset)}"
: "${RSQL_SRCDIR:?run through make check (RSQL_SRCDIR unset)}"
RSQL="$RSQL_BUILDDIR/rocketsql"
T=$(mktemp -d /tmp/rsql-it-XXXXXX)
trap 'rm -rf "$T"' EXIT
CAT="$T/catalog.db"
n_checks=0

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# check DESCRIPTION COMMAND...: run, record.
ok() {
    n_checks=$((n_checks + 1))
    echo "ok $n_checks - $*"
}

# run_rsql ARGS...: runs rocketsql with the test catalog; sets OUT, ERR, RC.
run_rsql() {
    set +e
    "$RSQL" --catalog "$CAT" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    set -e
    OUT=$(cat "$T/out")
    ERR=$(cat "$T/err")
}
