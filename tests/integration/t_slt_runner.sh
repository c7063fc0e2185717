#!/usr/bin/env bash
# The .slt runner fails a header line it does not know (a misspelt "statment ok", "query"
# without column types, an option it does not implement) instead of skipping the record,
# names the line, and still runs the records around it.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
SLT="$RSQL_BUILDDIR/tests/sql/slt_runner"

# run_slt FILE: sets OUT (stdout and stderr) and RC.
run_slt() {
    set +e
    OUT=$("$SLT" "$1" 2>&1)
    RC=$?
    set -e
}

cat >"$T/good.slt" <<'SLT'
# name: a valid file
statement ok
CREATE TABLE t (a INT) WITH ('connector'='datagen', 'number-of-rows'='1')

query T
SHOW TABLES
----
t	datagen	1

query TIR
SHOW TABLES
----
t	datagen	1

statement error
SELECT nosuch FROM t
----
1:8: no such column: nosuch
SLT
run_slt "$T/good.slt"
[ "$RC" = 0 ] || fail "good.slt: exit $RC: $OUT"
echo "$OUT" | grep -qF "$T/good.slt: 4 passed, 0 failed" || fail "good.slt: $OUT"
ok "known headers are accepted"

for header in 'statment ok' 'query' 'query T rowsort' 'statement  ok' 'Statement ok'; do
    cat >"$T/bad.slt" <<SLT
statement ok
CREATE TABLE t (a INT) WITH ('connector'='datagen', 'number-of-rows'='1')

$header
SELECT nosuch FROM t

statement error
SELECT nosuch FROM t
----
1:8: no such column: nosuch
SLT
    run_slt "$T/bad.slt"
    [ "$RC" = 1 ] || fail "'$header': exit $RC, expected 1: $OUT"
    echo "$OUT" | grep -qF "FAIL $T/bad.slt:4: unknown header line '$header'" ||
        fail "'$header': no failure naming the line: $OUT"
    echo "$OUT" | grep -qF "$T/bad.slt: 2 passed, 1 failed" ||
        fail "'$header': the records around it did not run: $OUT"
    ok "unknown header '$header' fails, with its line"
done
echo "$n_checks passed, 0 failed"
