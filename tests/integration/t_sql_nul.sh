#!/usr/bin/env bash
# A NUL byte in SQL text is an error at its line:col everywhere: in a -f file (it
# used to end the script silently), on stdin, and in the interactive shell (with and without
# line editing). The statements before it run, none after it. (-e cannot carry a NUL: a
# command-line argument is a C string and ends at it.)
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

printf "CREATE TABLE a (x INT) WITH ('connector'='blackhole');\nSHOW TABLES; SELECT 'a\0b' FROM a;\nCREATE TABLE b (x INT) WITH ('connector'='blackhole');\n" >"$T/nul.sql"
run_rsql -f "$T/nul.sql"
[ "$RC" = 1 ] || fail "-f: exit $RC, want 1 ($ERR)"
echo "$OUT" | grep -q '^created table a$' || fail "-f: the statement before the NUL did not run: $OUT"
echo "$ERR" | grep -qxF "$T/nul.sql:2:23: NUL byte (character 0) in SQL text" ||
    fail "-f: no NUL error at 2:23: $ERR"
run_rsql -e "SHOW TABLES" --tsv
echo "$OUT" | grep -q '^b' && fail "-f: a statement after the NUL ran: $OUT"
ok "-f: NUL reported at 2:23, statements before it ran, none after"

set +e
"$RSQL" --catalog "$T/stdin.db" <"$T/nul.sql" >"$T/out" 2>"$T/err"
RC=$?
set -e
[ "$RC" = 1 ] || fail "stdin: exit $RC, want 1"
grep -q '^2:23: NUL byte (character 0) in SQL text$' "$T/err" || fail "stdin: $(cat "$T/err")"
grep -q '^  SHOW TABLES; SELECT .a$' "$T/err" || fail "stdin: source line not drawn: $(cat "$T/err")"
ok "stdin: NUL reported at 2:23 with the line and a caret"

printf 'SHOW TABLES;\0' >"$T/tail.sql"
run_rsql -f "$T/tail.sql"
[ "$RC" = 1 ] && echo "$ERR" | grep -qF "$T/tail.sql:1:13: NUL byte" || fail "trailing NUL: $RC $ERR"
ok "a NUL after the last statement is an error too"

python3 "$RSQL_SRCDIR/tests/integration/pty_nul.py" "$RSQL" "$T/sh.db" >"$T/screen" 2>&1 ||
    fail "shell (editing on): $(cat "$T/screen")"
echo "edit off" >"$T/editrc"
python3 "$RSQL_SRCDIR/tests/integration/pty_nul.py" "$RSQL" "$T/sh.db" "$T/editrc" \
    >"$T/screen2" 2>&1 || fail "shell (editing off): $(cat "$T/screen2")"
ok "shell: NUL reported at 1:6 (editing on and off), statement dropped, shell goes on"
echo "$n_checks passed, 0 failed"
