#!/usr/bin/env bash
# Nested and exact types through the json format: a filesystem json source
# with ROW, ARRAY, MAP, DECIMAL and DATE columns -> a filesystem json sink, read back exactly;
# nested values of the wrong JSON type and DECIMALs that do not fit are per-record decode
# failures naming their path (dead-lettered under errors.tolerance 'all', stopping the job
# under 'none'); a VARCHAR column takes any JSON value as its JSON text; access paths,
# CARDINALITY and CAST on the decoded values.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
cd "$T"

cat >in.json <<'JSON'
{"id":1,"o":{"a":5,"b":{"c":"x"},"tags":["p","q"],"m":{"k":7,"j":8}},"p":"12.345","d":"2024-02-29","v":{"any":[1,true]}}
{"id":2,"o":{"a":2,"tags":[],"m":{}},"p":99.9,"d":null,"v":[1,2]}
{"id":3,"o":{"a":"nope"},"p":1,"d":"2024-01-01","v":"s"}
{"id":4,"o":{"tags":["a",5]},"p":1,"d":"2024-01-01","v":1}
{"id":5,"o":null,"p":123456789.5,"d":"2024-01-01","v":null}
{"id":6,"o":{"m":{"k":"x"}},"p":1,"d":"2024-01-01","v":null}
{"id":7,"o":[1],"p":1,"d":"2024-01-01","v":null}
{"id":8,"o":{"a":1,"unknown":{"deep":[1,2,{"x":null}]}},"p":-0.004,"d":"2024-13-01","v":false}
{"id":9,"o":{"a":1,"B":{"C":"upper"}},"p":-0.005,"d":"2024-01-01","v":"t"}
JSON
COLS='id INT, o ROW<a INT, b ROW<c STRING>, tags ARRAY<STRING>, m MAP<STRING, INT>>, p DECIMAL(10, 2), d DATE, v STRING'
cat >t.sql <<SQL
CREATE TABLE src ($COLS) WITH ('connector'='filesystem', 'path'='in.json', 'format'='json');
CREATE TABLE dst ($COLS) WITH ('connector'='filesystem', 'path'='out.json', 'format'='json');
CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector'='filesystem', 'path'='dlq.json', 'format'='json');
SET 'errors.tolerance' = 'all';
SET 'errors.dlq.table' = 'dlq';
INSERT INTO dst SELECT * FROM src;
SQL
run_rsql -f t.sql
[ "$RC" = 0 ] || fail "round trip: exit $RC: $ERR"
cat >want.json <<'JSON'
{"id":1,"o":{"a":5,"b":{"c":"x"},"tags":["p","q"],"m":{"k":7,"j":8}},"p":12.35,"d":"2024-02-29","v":"{\"any\":[1,true]}"}
{"id":2,"o":{"a":2,"b":null,"tags":[],"m":{}},"p":99.90,"d":null,"v":"[1,2]"}
{"id":4,"o":{"a":null,"b":null,"tags":["a","5"],"m":null},"p":1.00,"d":"2024-01-01","v":"1"}
{"id":9,"o":{"a":1,"b":{"c":"upper"},"tags":null,"m":null},"p":-0.01,"d":"2024-01-01","v":"t"}
JSON
diff -u want.json out.json || fail "round trip: out.json differs"
ok "json -> ROW/ARRAY/MAP/DECIMAL/DATE columns -> json, exactly (rounding half away from zero)"

python3 - <<'PY' >dlq.txt
import json
for l in open("dlq.json"):
    r = json.loads(l)
    print(r["source"], r["stage"], r["error"], sep="|")
PY
cat >want_dlq.txt <<'TXT'
file:in.json@187|decode|decode error at file:in.json@187 line 3: field 'o.a': expected INT, got string "nope"
file:in.json@303|decode|decode error at file:in.json@303 line 5: field 'p': '123456789.5': out of range for DECIMAL(10, 2)
file:in.json@363|decode|decode error at file:in.json@363 line 6: field 'o.m['k']': expected INT, got string "x"
file:in.json@424|decode|decode error at file:in.json@424 line 7: field 'o': expected ROW<a INT, b ROW<c VARCHAR>, tags ARRAY<VARCHAR>, m MAP<VARCHAR, INT>>, got array
file:in.json@473|decode|decode error at file:in.json@473 line 8: field 'd': '2024-13-01': not a date
TXT
diff -u want_dlq.txt dlq.txt || fail "dead letters differ"
ok "wrong nested JSON types and DECIMALs that do not fit are dead-lettered, naming the path"

run_rsql --tsv -e "SET 'errors.tolerance' = 'none'; CREATE TABLE dst2 ($COLS) WITH ('connector'='filesystem', 'path'='out2.json', 'format'='json'); INSERT INTO dst2 SELECT * FROM src"
[ "$RC" = 2 ] || fail "tolerance none: exit $RC, want 2 ($ERR)"
echo "$ERR" | grep -q "field 'o.a': expected INT, got string \"nope\"" ||
    fail "tolerance none: not stopped at the first bad record: $ERR"
[ "$(wc -l <out2.json)" = 2 ] || fail "tolerance none: out2.json has $(wc -l <out2.json) lines, want 2"
ok "errors.tolerance none: the first bad nested record stops the job"

cat >q.sql <<'SQL'
CREATE TABLE dst_r (id INT, o ROW<a INT, b ROW<c STRING>, tags ARRAY<STRING>, m MAP<STRING, INT>>, p DECIMAL(10, 2), d DATE, v STRING) WITH ('connector'='filesystem', 'path'='out.json', 'format'='json');
CREATE TABLE flat (line VARCHAR) WITH ('connector'='filesystem', 'path'='q.out', 'format'='raw');
INSERT INTO flat SELECT CAST(id AS VARCHAR) || '|' || COALESCE(o.b.c, '-') || '|' || COALESCE(o.tags[2], '-') || '|' || COALESCE(o.tags[3], '-') || '|' || COALESCE(CAST(o.m['j'] AS VARCHAR), '-') || '|' || COALESCE(CAST(CARDINALITY(o.tags) AS VARCHAR), '-') || '|' || CAST(p * 2 AS VARCHAR) || '|' || CAST(p + 1 AS VARCHAR) || '|' || CAST(p > 50 AS VARCHAR) || '|' || COALESCE(CAST(CAST(d AS TIMESTAMP) AS VARCHAR), '-') || '|' || COALESCE(CAST(o.m AS VARCHAR), '-') FROM dst_r;
SQL
run_rsql -f q.sql
[ "$RC" = 0 ] || fail "access paths: exit $RC: $ERR"
cat >want_q.txt <<'TXT'
1|x|q|-|8|2|24.70|13.35|false|2024-02-29 00:00:00.000|{"k":7,"j":8}
2|-|-|-|-|0|199.80|100.90|true|-|{}
4|-|5|-|-|2|2.00|2.00|false|2024-01-01 00:00:00.000|-
9|upper|-|-|-|-|-0.02|0.99|false|2024-01-01 00:00:00.000|-
TXT
diff -u want_q.txt q.out || fail "access paths differ"
ok "r.a.b, arr[i] (1-based, out of range NULL), m['k'] (missing NULL), CARDINALITY, DECIMAL + * >, DATE -> TIMESTAMP, MAP -> VARCHAR"

# pushdown: only what the statement reads is decoded; a bad value in an unread column or ROW
# field is not built, so it is no error, while the same value in a read field is
cat >p.json <<'JSON'
{"id":1,"o":{"a":1,"b":{"c":5},"tags":"not an array"},"p":"x","d":7}
{"id":"two","o":{"a":2,"m":[1]}}
JSON
cat >p.sql <<'SQL'
CREATE TABLE ps (id INT, o ROW<a INT, b ROW<c STRING>, tags ARRAY<STRING>, m MAP<STRING, INT>>, p DECIMAL(10, 2), d DATE) WITH ('connector'='filesystem', 'path'='p.json', 'format'='json');
CREATE TABLE pout (line VARCHAR) WITH ('connector'='filesystem', 'path'='p.out', 'format'='raw');
INSERT INTO pout SELECT CAST(o.a AS VARCHAR) FROM ps WHERE o.a > 0;
SQL
run_rsql -f p.sql
[ "$RC" = 0 ] || fail "pushdown: exit $RC: $ERR"
[ "$(cat p.out)" = "$(printf '1\n2')" ] || fail "pushdown: got $(cat p.out)"
run_rsql --tsv -e "CREATE TABLE pout2 (line VARCHAR) WITH ('connector'='filesystem', 'path'='p2.out', 'format'='raw'); INSERT INTO pout2 SELECT CAST(o.tags AS VARCHAR) FROM ps"
[ "$RC" = 2 ] && echo "$ERR" | grep -q "field 'o.tags': expected ARRAY<VARCHAR>, got string" ||
    fail "pushdown: a read field of the wrong type must fail: $RC $ERR"
ok "only the columns and ROW fields a statement reads are decoded"

# DECIMAL and DATE through sqlite (stored as their text) and back, at the column's scale
cat >s.sql <<'SQL'
CREATE TABLE sq (id INT, p DECIMAL(6, 2), d DATE) WITH ('connector'='sqlite', 'path'='s.db', 'table'='t');
CREATE TABLE sq3 (id INT, p DECIMAL(6, 3), d DATE) WITH ('connector'='sqlite', 'path'='s.db', 'table'='t');
INSERT INTO sq SELECT id, p, d FROM dst_r;
CREATE TABLE sout (line VARCHAR) WITH ('connector'='filesystem', 'path'='s.out', 'format'='raw');
INSERT INTO sout SELECT CAST(id AS VARCHAR) || '|' || CAST(p AS VARCHAR) || '|' || COALESCE(CAST(d AS VARCHAR), '-') FROM sq3;
SQL
run_rsql -f s.sql
[ "$RC" = 0 ] || fail "sqlite: exit $RC: $ERR"
printf '1|12.350|2024-02-29\n2|99.900|-\n4|1.000|2024-01-01\n9|-0.010|2024-01-01\n' >want_s.txt
diff -u want_s.txt s.out || fail "sqlite: DECIMAL/DATE differ"
ok "DECIMAL and DATE through a sqlite sink and source, read at the reading column's scale"
