#!/usr/bin/env bash
# csv.header end to end on the filesystem connector: a job copies a csv file with a header
# into a csv file it starts with its own header; the header is never a row, and the line
# metadata counts it; run again after rows are appended, the job resumes after its last
# committed row: it does not read the header as data, and appends no second header. A
# header with the wrong number of fields fails the statement, naming the file and line 1.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
printf 'id,name\r\n1,a\n2,"b,c"\n' >in.csv
run_rsql -e "CREATE TABLE src (id INT, name VARCHAR, ln BIGINT METADATA FROM 'line' VIRTUAL) WITH ('connector'='filesystem', 'path'='in.csv', 'format'='csv', 'csv.header'='true');
CREATE TABLE dst (id INT, name VARCHAR, ln BIGINT) WITH ('connector'='filesystem', 'path'='out.csv', 'format'='csv', 'csv.header'='true');
CREATE JOB j AS INSERT INTO dst SELECT id, name, ln FROM src;
RUN JOB j;"
[ "$RC" = 0 ] || fail "the csv.header job exited $RC: $ERR"
want=$(printf 'id,name,ln\n1,a,2\n2,"b,c",3')
[ "$(cat out.csv)" = "$want" ] || fail "csv.header copy: got
$(cat out.csv)
want
$want"
ok "the header is skipped (line 1), not a row; the sink starts its file with one"

printf '3,d\n' >>in.csv
run_rsql -e "RUN JOB j;"
[ "$RC" = 0 ] || fail "the resumed job exited $RC: $ERR"
want=$(printf 'id,name,ln\n1,a,2\n2,"b,c",3\n3,d,4')
[ "$(cat out.csv)" = "$want" ] || fail "resumed csv.header job: got
$(cat out.csv)
want
$want"
ok "a resumed job reads only the appended row, with its line number; no second header"

run_rsql --tsv -e "SELECT id, ln FROM src"
[ "$RC" = 0 ] || fail "the preview exited $RC: $ERR"
[ "$OUT" = "$(printf '1\t2\n2\t3\n3\t4')" ] || fail "preview of a csv.header table: $OUT"
ok "a preview from the start skips the header too"

printf 'id,name,extra\n1,a\n' >bad.csv
run_rsql -e "CREATE TABLE bad (id INT, name VARCHAR) WITH ('connector'='filesystem', 'path'='bad.csv', 'format'='csv', 'csv.header'='true');
SELECT * FROM bad;"
[ "$RC" != 0 ] || fail "a header of 3 fields for 2 columns was read"
case "$ERR" in
*"file:bad.csv line 1 (the header, 'csv.header' = 'true'): line has 3 fields, table has 2 columns"*) ;;
*) fail "a wrong header: $ERR" ;;
esac
ok "a header with the wrong number of fields fails, naming the file and line 1"

echo "$n_checks passed, 0 failed"
