#!/usr/bin/env bash
# = and <> (and IN, CASE x WHEN, NULLIF) on ROW, ARRAY and MAP values read from json:
# field by field, element by element in order, a MAP by its entries in any order,
# a NULL inside equal only to a NULL, a NULL value NULL; and DECIMAL / % ROUND FLOOR CEIL ABS
# on decoded DECIMAL values (exact, the quotient rounded half up, a zero divisor a row error).
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
cd "$T"

cat >in.json <<'JSON'
{"id":1,"a":{"x":1,"s":"p"},"b":{"x":1,"s":"p"},"t":["p","q"],"u":["p","q"],"m":{"k":1,"j":2},"n":{"j":2,"k":1},"p":"10.00","q":"3"}
{"id":2,"a":{"x":1,"s":"p"},"b":{"x":2,"s":"p"},"t":["p","q"],"u":["q","p"],"m":{"k":1},"n":{"k":2},"p":"-2.50","q":"0.70"}
{"id":3,"a":{"x":null,"s":"p"},"b":{"x":null,"s":"p"},"t":["p",null],"u":["p",null],"m":{"k":null},"n":{"k":null},"p":"7.75","q":"-2"}
{"id":4,"a":{"x":null,"s":"p"},"b":{"x":1,"s":"p"},"t":["p"],"u":["p","q"],"m":{"k":1},"n":{"j":1},"p":"0.05","q":"0.10"}
{"id":5,"a":null,"b":{"x":1,"s":"p"},"t":[],"u":[],"m":{},"n":{},"p":"1","q":"1"}
JSON
COLS='id INT, a ROW<x INT, s STRING>, b ROW<x INT, s STRING>, t ARRAY<STRING>, u ARRAY<STRING>, m MAP<STRING, INT>, n MAP<STRING, INT>, p DECIMAL(10, 2), q DECIMAL(5, 2)'
b() { echo "COALESCE(CAST($1 AS VARCHAR), 'N')"; }
cat >q.sql <<SQL
CREATE TABLE src ($COLS) WITH ('connector'='filesystem', 'path'='in.json', 'format'='json');
CREATE TABLE flat (line VARCHAR) WITH ('connector'='filesystem', 'path'='q.out', 'format'='raw');
INSERT INTO flat SELECT CAST(id AS VARCHAR) || '|' || $(b 'a = b') || '|' || $(b 'a <> b') || '|' || $(b 't = u') || '|' || $(b 'm = n') || '|' || $(b 'm <> n') || '|' || $(b 't IN (u, t)') || '|' || $(b 'CASE m WHEN n THEN 1 ELSE 0 END') || '|' || $(b 'NULLIF(t, u)') FROM src;
SQL
run_rsql -f q.sql
[ "$RC" = 0 ] || fail "compare: exit $RC: $ERR"
cat >want.txt <<'TXT'
1|true|false|true|true|false|true|1|N
2|false|true|false|false|true|true|0|["p","q"]
3|true|false|true|true|false|true|1|N
4|false|true|false|false|true|true|0|["p"]
5|N|N|true|true|false|true|1|N
TXT
diff -u want.txt q.out || fail "ROW/ARRAY/MAP equality differs"
ok "= <> IN CASE NULLIF on ROW/ARRAY/MAP: fields, elements in order, MAP entries in any order, NULL inside equals NULL, a NULL value is NULL"

cat >d.sql <<SQL
CREATE TABLE flat2 (line VARCHAR) WITH ('connector'='filesystem', 'path'='d.out', 'format'='raw');
INSERT INTO flat2 SELECT CAST(id AS VARCHAR) || '|' || CAST(p / q AS VARCHAR) || '|' || CAST(p % q AS VARCHAR) || '|' || CAST(ROUND(p, 1) AS VARCHAR) || '|' || CAST(FLOOR(p) AS VARCHAR) || '|' || CAST(CEIL(p) AS VARCHAR) || '|' || CAST(ABS(p) AS VARCHAR) FROM src;
SQL
run_rsql -f d.sql
[ "$RC" = 0 ] || fail "decimal: exit $RC: $ERR"
cat >want_d.txt <<'TXT'
1|3.33333333|1.00|10.0|10|10|10.00
2|-3.57142857|-0.40|-2.5|-3|-2|2.50
3|-3.87500000|1.75|7.8|7|8|7.75
4|0.50000000|0.05|0.1|0|1|0.05
5|1.00000000|0.00|1.0|1|1|1.00
TXT
diff -u want_d.txt d.out || fail "DECIMAL / % ROUND FLOOR CEIL ABS differ"
ok "DECIMAL / (DECIMAL(18, 8), half up) % ROUND FLOOR CEIL ABS on decoded values"

echo '{"id":9,"p":"1.00","q":"0"}' >z.json
run_rsql --tsv -e "CREATE TABLE z (id INT, p DECIMAL(10, 2), q DECIMAL(5, 2)) WITH ('connector'='filesystem', 'path'='z.json', 'format'='json'); CREATE TABLE zo (line VARCHAR) WITH ('connector'='filesystem', 'path'='z.out', 'format'='raw'); INSERT INTO zo SELECT CAST(p / q AS VARCHAR) FROM z"
[ "$RC" = 2 ] && echo "$ERR" | grep -q "division by zero" ||
    fail "a zero DECIMAL divisor must fail the row: $RC $ERR"
ok "a zero DECIMAL divisor is a row error"
