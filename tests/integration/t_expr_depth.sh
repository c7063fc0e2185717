#!/usr/bin/env bash
# Expressions nest at most RSQL_SQL_MAX_EXPR_DEPTH (1000) deep: a chain of 100,000 operators
# (+, *, ||), 100,000 nested parentheses or function calls is refused with an error at its
# place (line:col), exit 1, never a crash (the binder and the evaluator recurse once per
# level); a chain at the limit is accepted, planned and evaluated.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

run_rsql -e "CREATE TABLE t (a INT, d DOUBLE, s VARCHAR) WITH ('connector'='datagen',
  'number-of-rows'='1', 'fields.a.min'='0', 'fields.a.max'='0', 'fields.s.length'='1')"
[ "$RC" = 0 ] || fail "create table: $ERR"

# gen NAME PYTHON-EXPR: writes $T/NAME.sql, "SELECT <expr> FROM t;" on line 2
gen() {
    python3 -c "import sys; print('-- line 1'); print('SELECT ' + $2 + ' FROM t;')" >"$T/$1.sql"
}
# refused NAME REGEX: the script fails with exit 1 and an error "FILE:2:<col>: ..." matching REGEX
refused() {
    run_rsql -f "$T/$1.sql"
    [ "$RC" = 1 ] || fail "$1: exit $RC, expected 1 (a crash is 128+signal): $(echo "$ERR" | cut -c1-300 | tail -n 3)"
    echo "$ERR" | grep -Eq "^$T/$1.sql:2:[0-9]+: $2" || fail "$1: no error at line:col matching /$2/: $(echo "$ERR" | cut -c1-300 | tail -n 3)"
    ok "$1: $(echo "$ERR" | grep -Eo "^$T/$1.sql:2:[0-9]+: $2.*" | head -n 1)"
}

gen plus "'+'.join(['a'] * 100000)"
refused plus 'expression tree is too deep \(maximum depth 1000\)'
gen times "'*'.join(['a'] * 100000)"
refused times 'expression tree is too deep \(maximum depth 1000\)'
gen concat "'||'.join(['s'] * 100000)"
refused concat 'expression tree is too deep \(maximum depth 1000\)'
gen parens "'(' * 100000 + 'a' + ')' * 100000"
refused parens 'parser stack overflow'
gen calls "'ABS(' * 100000 + 'a' + ')' * 100000"
refused calls 'parser stack overflow'
gen casts "'CAST(' * 100000 + 'a' + ' AS BIGINT)' * 100000"
refused casts 'parser stack overflow'

# the limit exactly: 999 operators (depth 1000) are planned and evaluated; 1000 are refused
# at the 1000th operator: "SELECT " is 7 columns, the k-th '+' is at column 7 + 2k
gen at_limit "'+'.join(['a'] * 1000)"
run_rsql -f "$T/at_limit.sql"
[ "$RC" = 0 ] || fail "a chain of depth 1000: exit $RC: $(echo "$ERR" | cut -c1-300 | tail -n 3)"
echo "$OUT" | grep -qx "0" || echo "$OUT" | grep -q "| *0 *|" || fail "a chain of depth 1000 evaluates to 0: $OUT"
ok "depth 1000 (999 operators) is planned and evaluated"
gen past_limit "'+'.join(['a'] * 1001)"
refused past_limit 'expression tree is too deep'
echo "$ERR" | grep -q "^$T/past_limit.sql:2:2007: " || fail "past the limit: not at the 1000th operator (2:2007): $(echo "$ERR" | grep -o ':2:[0-9]*:' | head -n 1)"
ok "the error is at the operator that goes past the limit (2:2007)"

# mixed types at the limit (implicit casts deepen the bound tree): still evaluated
gen mixed "'+'.join(['a', 'd', 'CAST(a AS DECIMAL(10, 2))'] * 333)"
run_rsql -f "$T/mixed.sql"
[ "$RC" = 0 ] || fail "a mixed-type chain of depth 999: exit $RC: $(echo "$ERR" | cut -c1-300 | tail -n 3)"
ok "a mixed INT/DOUBLE/DECIMAL chain at the limit is evaluated"
echo "$n_checks passed, 0 failed"
