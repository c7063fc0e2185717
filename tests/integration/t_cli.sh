#!/usr/bin/env bash
# The rocketsql command line as a new user meets it: tables created in one
# process are seen by the next, errors carry line:col, secrets stay hidden,
# exit statuses follow the documented contract.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

run_rsql -e "CREATE TABLE t (a INT, b VARCHAR) WITH ('connector'='datagen', 'number-of-rows'='10')"
[ "$RC" = 0 ] || fail "CREATE TABLE exited $RC: $ERR"
ok "CREATE TABLE in a first process"

[ "$(stat -c %a "$CAT")" = 600 ] || fail "catalog mode is $(stat -c %a "$CAT"), want 600"
ok "catalog created with mode 0600"

run_rsql -e "SHOW TABLES"
[ "$RC" = 0 ] || fail "SHOW TABLES exited $RC: $ERR"
echo "$OUT" | grep -Eq '^\| t +\| datagen' || fail "SHOW TABLES does not list t: $OUT"
ok "SHOW TABLES in a second process lists t"

run_rsql -e "DESCRIBE t"
echo "$OUT" | grep -Eq '^\| a +\| INT ' || fail "DESCRIBE misses column a: $OUT"
echo "$OUT" | grep -Eq '^\| b +\| VARCHAR ' || fail "DESCRIBE misses column b: $OUT"
ok "DESCRIBE shows both columns"

run_rsql -e "CREATE TABLE q (a INT) WITH ('connector'='rocketmq-grpc', 'endpoints'='127.0.0.1:8081', 'topic'='orders', 'access-key'='ak', 'secret-key'='s3cr3t')"
[ "$RC" = 0 ] || fail "CREATE TABLE q exited $RC: $ERR"
run_rsql -e "SHOW CREATE TABLE q"
[ "$RC" = 0 ] || fail "SHOW CREATE TABLE exited $RC: $ERR"
echo "$OUT" | grep -q "'secret-key' = '\*\*\*\*\*\*'" || fail "secret not masked: $OUT"
echo "$OUT$ERR" | grep -q s3cr3t && fail "SHOW CREATE TABLE printed the secret"
ok "SHOW CREATE TABLE masks secret-key"

run_rsql -e "CREATE TABLE x (a INT) WITH ('connector'='rocketmq-grpc', 'topik'='t')"
[ "$RC" = 1 ] || fail "unknown option exited $RC, want 1"
echo "$ERR" | head -1 | grep -Eq "^1:59: unknown option 'topik' .*did you mean 'topic'" ||
    fail "unknown option error: $ERR"
ok "unknown option: exit 1, 1:59, suggests topic"

run_rsql -e "SELECT a FORM t"
[ "$RC" = 1 ] || fail "syntax error exited $RC, want 1"
echo "$ERR" | head -1 | grep -q '^1:10: near "FORM": syntax error' || fail "syntax error: $ERR"
echo "$ERR" | sed -n 3p | grep -q '^           \^' || fail "no caret under FORM: $ERR"
ok "syntax error at 1:10 names FORM, with a caret"

run_rsql -e "CREATE TABLE s (x INT, y VARCHAR) WITH ('connector'='print')"
run_rsql -e "EXPLAIN INSERT INTO s SELECT a + 1, UPPER(b) FROM t WHERE a > 3"
[ "$RC" = 0 ] || fail "EXPLAIN exited $RC: $ERR"
for word in source filter projection sink; do
    echo "$OUT" | grep -qi "$word" || fail "EXPLAIN lacks $word: $OUT"
done
echo "$OUT" | grep -q 'a > 3' || fail "EXPLAIN lacks the filter expression: $OUT"
ok "EXPLAIN prints source, filter, projection and sink"

printf 'SHOW TABLES;\nDESCRIBE s;\n' | "$RSQL" --catalog "$CAT" >"$T/out" 2>"$T/err" ||
    fail "script on stdin failed: $(cat "$T/err")"
grep -Eq '^\| s ' "$T/out" || fail "stdin script output: $(cat "$T/out")"
ok "a script on stdin runs"

printf -- '-- a comment\nSHOW TABLES;\n\nDESCRIBE nope;\nSHOW TABLES;\n' >"$T/script.sql"
run_rsql -f "$T/script.sql"
[ "$RC" = 1 ] || fail "script with a bad statement exited $RC"
echo "$ERR" | head -1 | grep -qF "$T/script.sql:4:10: no such table: nope" || fail "script error: $ERR"
ok "-f script stops at the first error with its line:col"

printf 'SHOW TABLES;\r\nCREATE TABLE c (a INT) WITH (\r\n\t'"'"'connector'"'"'='"'"'datagen'"'"', '"'"'nmber-of-rows'"'"'='"'"'3'"'"');\r\n' \
    >"$T/crlf.sql"
run_rsql -f "$T/crlf.sql"
[ "$RC" = 1 ] || fail "CRLF script exited $RC, want 1"
echo "$ERR" | head -1 | grep -qF "$T/crlf.sql:3:25: unknown option 'nmber-of-rows'" || fail "CRLF error: $ERR"
printf '%s\n' "$ERR" | grep -q "$(printf '\r')" && fail "CRLF: a carriage return was echoed: $ERR"
[ "$(echo "$ERR" | sed -n 3p)" = "$(printf '  \t                       ^~~~~~~~~~~~~~~')" ] ||
    fail "CRLF caret: $ERR"
ok "-f with CRLF line ends: line:col, no '\\r' echoed, caret under the key"

printf 'SHOW TABLES' >"$T/nosemi.sql"
run_rsql -f "$T/nosemi.sql"
[ "$RC" = 0 ] || fail "statement without ';' exited $RC: $ERR"
echo "$OUT" | grep -Eq '^\| s ' || fail "statement without ';' did not run: $OUT"
printf -- '-- only a comment\n/* and a block\n comment */\n;;\n' >"$T/comments.sql"
run_rsql -f "$T/comments.sql"
[ "$RC" = 0 ] && [ -z "$OUT$ERR" ] || fail "comments-only script: rc $RC, out '$OUT', err '$ERR'"
: >"$T/empty.sql"
run_rsql -f "$T/empty.sql"
[ "$RC" = 0 ] && [ -z "$OUT$ERR" ] || fail "empty script: rc $RC, out '$OUT', err '$ERR'"
ok "-f: last statement without ';', comments only, empty file"

run_rsql -e "SELECT 'h$(printf '\303\251')llo', '$(printf '\303\274')' + FROM t"
[ "$RC" = 1 ] || fail "UTF-8 syntax error exited $RC, want 1"
[ "$(echo "$ERR" | sed -n 3p)" = "$(printf '%24s^~~~' '')" ] || fail "caret after UTF-8 text: $ERR"
ok "the caret lines up after multi-byte UTF-8 characters"

ROCKETSQL_CATALOG="$T/env.db" "$RSQL" -e "SHOW TABLES" >/dev/null || fail "env catalog"
[ -f "$T/env.db" ] || fail "ROCKETSQL_CATALOG not honoured"
ok "ROCKETSQL_CATALOG picks the catalog"

run_rsql --no-such-flag
[ "$RC" = 64 ] || fail "bad usage exited $RC, want 64"
run_rsql -e "SHOW TABLES" extra
[ "$RC" = 64 ] || fail "extra argument exited $RC, want 64"
ok "bad usage exits 64"

run_rsql --version
echo "$OUT" | grep -q '^rocketsql [0-9]' || fail "--version: $OUT"
run_rsql --help
echo "$OUT" | grep -q 'usage: rocketsql' || fail "--help: $OUT"
ok "--help and --version"

run_rsql run nosuchjob
[ "$RC" = 1 ] || fail "run of a missing job exited $RC, want 1"
echo "$ERR" | grep -q 'no such job: nosuchjob' || fail "missing job: $ERR"
ok "run JOB of a missing job: exit 1"

# a preview says where it stopped: at its LIMIT (rows read past it are not "filtered"), or
# cut at sql.preview-limit
run_rsql -e "CREATE TABLE seq (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='1000', 'fields.id.kind'='sequence', 'fields.id.start'='1');
SELECT id FROM seq WHERE id % 2 = 0 LIMIT 2;"
[ "$RC" = 0 ] || fail "preview with LIMIT: $ERR"
line=$(printf '%s\n' "$ERR" | grep '^read=')
case "$line" in *" written=2 filtered=2 "*"; stopped at LIMIT 2"*) ;;
*) fail "preview with LIMIT: want filtered=2 (WHERE only) and 'stopped at LIMIT 2': $line" ;; esac
case "$line" in *"cut at"*) fail "a LIMIT written is not a cut: $line" ;; esac
run_rsql -e "SET 'sql.preview-limit' = '3'; SELECT id FROM seq;"
line=$(printf '%s\n' "$ERR" | grep '^read=')
case "$line" in *"written=3 filtered=0 "*"; cut at sql.preview-limit (3 rows): there may be more (add a LIMIT, or SET 'sql.preview-limit')"*) ;;
*) fail "a preview cut at sql.preview-limit does not say so: $line" ;; esac
run_rsql -e "SELECT id FROM seq WHERE id <= 2;"
line=$(printf '%s\n' "$ERR" | grep '^read=')
case "$line" in *"read=1000 written=2 filtered=998 "*"rows/s") ;;
*) fail "a preview that ends by itself says nothing more: $line" ;; esac
ok "a preview says it stopped at its LIMIT or was cut at sql.preview-limit; rows past a LIMIT are not filtered"

# a script's errors name its file; a script that cannot be opened is bad usage
printf 'SHOW TABLES;\n\nSELECT a\n  FORM seq;\n' >"$T/job.sql"
run_rsql -f "$T/job.sql"
[ "$RC" = 1 ] || fail "a script error exited $RC"
printf '%s\n' "$ERR" | head -1 | grep -qF "$T/job.sql:4:3: near \"FORM\": syntax error" ||
    fail "a script error does not name the file: $ERR"
run_rsql -f "$T/missing.sql"
[ "$RC" = 64 ] || fail "-f of a missing file exited $RC, want 64"
case "$ERR" in *"cannot open '$T/missing.sql': No such file or directory"*) ;;
*) fail "-f missing: $ERR" ;; esac
ok "a script's errors name its file (FILE:line:col:); -f of a missing file is bad usage (64)"

# CREATE ... IF NOT EXISTS says whether it created or kept
run_rsql -e "CREATE TABLE IF NOT EXISTS seq (id BIGINT) WITH ('connector'='blackhole');
CREATE TABLE IF NOT EXISTS seq2 (id BIGINT) WITH ('connector'='blackhole');
CREATE JOB IF NOT EXISTS jj AS INSERT INTO seq2 SELECT id FROM seq;
CREATE JOB IF NOT EXISTS jj AS INSERT INTO seq2 SELECT id FROM seq;"
[ "$RC" = 0 ] || fail "IF NOT EXISTS: $ERR"
want="table seq already exists; kept it (IF NOT EXISTS)
created table seq2
created job jj
job jj already exists; kept it (IF NOT EXISTS)"
[ "$OUT" = "$want" ] || fail "IF NOT EXISTS says: $OUT"
ok "CREATE ... IF NOT EXISTS says 'created' only when it created, else that it kept one"

# --tsv: SELECT previews too, one line per row, a tab/newline/backslash in a value escaped
printf '{"s":"a\\tb\\nc\\\\d"}\n' >"$T/tabs.json"
TAB=$(printf '\t')
run_rsql --tsv -e "CREATE TABLE tabs (s VARCHAR, \"x${TAB}y\" INT) WITH ('connector'='filesystem', 'path'='$T/tabs.json', 'format'='json'); SELECT s FROM tabs; DESCRIBE tabs;"
[ "$RC" = 0 ] || fail "--tsv SELECT: $ERR"
want=$(printf 'a\\tb\\nc\\\\d\ns\tVARCHAR\tYES\t\nx\\ty\tINT\tYES\t')
[ "$OUT" = "$want" ] || fail "--tsv SELECT/DESCRIBE: got
$OUT
want
$want"
ok "--tsv applies to SELECT previews; tabs, newlines and backslashes in values are escaped"

# a preview that fails prints its error only, no empty table; a decode error names the line
# as well as the byte, and says how to go on past bad records
printf '{"id":1}\n\n{"id":\n{"id":3}\n' >"$T/bad.jsonl"
run_rsql -e "CREATE TABLE bad (id INT) WITH ('connector'='filesystem', 'path'='$T/bad.jsonl', 'format'='json'); SELECT id FROM bad;"
[ "$RC" = 2 ] || fail "a failed preview exited $RC: $ERR"
case "$OUT" in *"+--"*|*"| id"*) fail "a failed preview printed a table: $OUT" ;; esac
ok "a failed preview prints no empty table"
case "$ERR" in
*"error: decode error at file:$T/bad.jsonl@10 line 3: invalid JSON at byte 6: unexpected end of input (SET 'errors.tolerance' = 'all' to skip bad records, and 'errors.dlq.table' to keep them)"*) ;;
*) fail "the decode error does not name the line or errors.tolerance: $ERR" ;;
esac
ok "a decode error names its line (blank lines counted) and errors.tolerance"
run_rsql -e "CREATE TABLE badsink (id INT) WITH ('connector'='blackhole'); INSERT INTO badsink SELECT id FROM bad;"
run_rsql -e "INSERT INTO badsink SELECT id FROM bad;"
case "$ERR" in
*"resuming "*"error: decode error at file:$T/bad.jsonl@10 line 3: "*) ;;
*) fail "a resumed run's decode error does not name the line: $ERR" ;;
esac
ok "a resumed run's decode error names the line too"

# a missing source file or sqlite database is an error of the statement, at the table's name,
# with the path and the system's message, before anything runs (no summary, no table)
run_rsql -e "CREATE TABLE gone (id INT) WITH ('connector'='filesystem', 'path'='$T/nonexistent.json', 'format'='json');
CREATE TABLE gonedb (id INT) WITH ('connector'='sqlite', 'path'='$T/nonexistent.db', 'table'='t');
CREATE TABLE sink (id INT) WITH ('connector'='blackhole');"
[ "$RC" = 0 ] || fail "create: $ERR"
for q in "SELECT id FROM gone" "INSERT INTO sink SELECT id FROM gone" "SELECT id FROM gonedb" \
    "INSERT INTO sink SELECT id FROM gonedb"; do
    case "$q" in *gonedb) t=gonedb f=$T/nonexistent.db ;; *) t=gone f=$T/nonexistent.json ;; esac
    col=$(($(printf '%s' "$q" | sed 's/FROM .*//' | wc -c) + 6))
    run_rsql -e "$q;"
    [ "$RC" = 1 ] || fail "$q: exited $RC: $ERR"
    case "$ERR" in
    "1:$col: table '$t' cannot be read: cannot open $f: No such file or directory"*) ;;
    *) fail "$q: not reported at planning with its place, path and OS error: $ERR" ;;
    esac
    case "$OUT$ERR" in *"read="*|*"+--"*) fail "$q: it ran: $OUT$ERR" ;; esac
done
ok "a missing source file or sqlite database is reported when the statement is planned"

echo "$n_checks passed, 0 failed"
