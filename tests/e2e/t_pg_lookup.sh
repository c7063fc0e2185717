#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_lookup.sh: the postgres lookup (connectors/postgres/pg_lookup.c) against the real
# PostgreSQL of scripts/postgres (this test fails, never skips, when it cannot be reached),
# through tests/e2e/lookup_probe, which looks up every key of its input in ONE call and
# prints the rows per key as text. Each check compares that with what psql returns for the
# same keys, rendered to the same text by SQL (encode(hex), to_char, ::text), sorted:
#   1. one INT key: hits, a miss, a key with three rows, duplicate keys in one call, a key
#      whose row is NULL in every other column;
#   2. a two-column key (region, id), given in the other order than the table's;
#   3. a key of each type (BOOLEAN, BIGINT, DOUBLE, VARCHAR of a varchar(20) column, BYTES,
#      TIMESTAMP(3), DATE, DECIMAL; TIMESTAMP against a timestamptz column; VARCHAR against
#      a char(4) column, matched with its padding as PostgreSQL does; INT against a smallint
#      column, 70000 a miss rather than an error; VARCHAR against an integer column, by its
#      text);
#   4. text keys with quotes, backslashes, commas, braces, the word NULL, a tab, and the
#      empty string; rows with ROW (jsonb) and ARRAY (integer[]) columns;
#   5. 1,024 keys in one call (a pipeline batch and more), against psql's rows of the range;
#   6. errors: a missing table and a missing column, permanent, named; a row whose jsonb does
#      not convert fails the lookup, permanent, naming the column;
#   7. the connection killed between two lookups (pg_terminate_backend): the lookup fails
#      UNAVAILABLE (transient), and a new one opened as the runtime does returns the same rows;
#   8. a lookup join in SQL (orders from a file JOIN / LEFT JOIN a postgres table FOR
#      SYSTEM_TIME AS OF their processing time, a two-column key, a condition) into sqlite
#      equals psql's join of the same rows, without a cache and with one that evicts;
#   9. lookups in flight (table.exec.async-lookup.buffer-capacity): 150,000 orders LEFT JOIN
#      a postgres table while its lookup connection is killed again and again mid-run: the
#      run ends, said it had several lookups in flight and asked again, and its table equals
#      psql's LEFT JOIN; with buffer-capacity 1 (one at a time) the same rows.
. "$(dirname "$0")/lib.sh"

PROBE="$RSQL_BUILDDIR/tests/e2e/lookup_probe"
[ -x "$PROBE" ] || fail "no $PROBE (make -C \$RSQL_BUILDDIR check builds it)"
. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="lk$$"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null
trap 'psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true; e2e_cleanup' EXIT
ok "PostgreSQL at $URL, schema $S"

psql_q "SET search_path = $S;
CREATE TABLE dim (id integer, region text, flag boolean, big bigint, score double precision,
  label varchar(20), data bytea, ts timestamp(3), day date, amount numeric(12,2),
  tz timestamptz, code char(4), small smallint, attrs jsonb, tags integer[]);
INSERT INTO dim VALUES
 (1, 'eu', true, 10000000000, 2.5, 'alpha', '\\x00ff10', '2024-01-02 03:04:05.678',
  '2024-02-29', 12.50, '2024-01-02 03:04:05.678+00', 'ab', 1, '{\"a\": 1, \"b\": \"x\"}',
  '{1,2}'),
 (2, 'eu', false, -1, 0.1, 'beta', '', '1970-01-01 00:00:00', '1970-01-01', -0.01,
  '1970-01-01 00:00:00+00', 'abcd', -32768, NULL, '{}'),
 (2, 'us', true, 9223372036854775807, -1e300, 'gamma', '\\x61', '2099-12-31 23:59:59.999',
  '1969-12-31', 9999999999.99, '2099-12-31 23:59:59.999+00', 'ab', 32767,
  '{\"a\": 2, \"b\": null}', NULL),
 (2, 'us', false, 7, 3.0, 'delta', '\\x0102', '2000-06-15 12:00:00.001', '2000-06-15', 0,
  '2000-06-15 14:00:00.001+02', NULL, 7, '{\"a\": 3}', '{3}'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (5, E'o''br\\\\ien, {x} \"q\"', true, 5, 5.5, E'\\\\', '\\x5c22', '2001-01-01 00:00:00',
  '2001-01-01', 5, '2001-01-01 00:00:00+00', 'x\"', 5, '{\"a\": 5, \"b\": \"{,}\"}', '{5,5}'),
 (6, 'NULL', false, 6, 6.25, 'NULL', '\\x', '2001-01-01 00:00:00.006', '2001-01-06', 6.06,
  NULL, 'NULL', 6, NULL, '{6}'),
 (7, E'tab\\there', true, 7, 7, E'line\\nbreak', NULL, NULL, NULL, NULL, NULL, NULL, 7, NULL,
  NULL),
 (8, '', false, 8, 8, '', NULL, NULL, NULL, NULL, NULL, '', 8, NULL, NULL);" >/dev/null ||
    fail "cannot create the table"
ok "table $S.dim: $(psql_q "SELECT count(*) FROM $S.dim") rows"

# the probe's columns, and psql's text of each the way the probe prints it (NULL as \N)
COLS=(--col id INT --col region VARCHAR --col flag BOOLEAN --col big BIGINT
      --col score DOUBLE --col label VARCHAR --col data BYTES --col ts 'TIMESTAMP(3)'
      --col day DATE --col amount 'DECIMAL(12, 2)' --col tz 'TIMESTAMP(3)'
      --col code VARCHAR --col small INT --col attrs 'ROW<a INT, b VARCHAR>'
      --col tags 'ARRAY<INT>')
esc() { echo "replace(replace(replace($1, E'\\\\', E'\\\\\\\\'), E'\\t', E'\\\\t'), E'\\n', E'\\\\n')"; }
RENDER=$(cat <<SQL
coalesce(id::text, '\\N') || E'\\t' || coalesce($(esc region), '\\N') || E'\\t' ||
coalesce(CASE WHEN flag THEN 'true' WHEN NOT flag THEN 'false' END, '\\N') || E'\\t' ||
coalesce(big::text, '\\N') || E'\\t' || coalesce(score::text, '\\N') || E'\\t' ||
coalesce($(esc label), '\\N') || E'\\t' || coalesce(encode(data, 'hex'), '\\N') || E'\\t' ||
coalesce(to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS'), '\\N') || E'\\t' ||
coalesce(day::text, '\\N') || E'\\t' || coalesce(amount::text, '\\N') || E'\\t' ||
coalesce(to_char(tz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'), '\\N') || E'\\t' ||
coalesce($(esc code), '\\N') || E'\\t' || coalesce(small::text, '\\N') || E'\\t' ||
coalesce(replace(replace((CASE WHEN attrs IS NOT NULL THEN
  jsonb_build_object('a', attrs->'a', 'b', attrs->'b') END)::text, ': ', ':'), ', ', ','), '\\N') || E'\\t' ||
coalesce(array_to_json(tags)::text, '\\N')
SQL
)

# check NAME KEYCOL...: the probe's rows for the keys of keys.txt (one a line, TAB between a
# key's values) equal psql's for the WHERE clauses of where.txt (one a line, in order)
check() {
    local name=$1 i=0 w
    shift
    local keys=()
    for k in "$@"; do keys+=(--key "$k"); done
    "$PROBE" "${COLS[@]}" "${keys[@]}" postgres "url=$URL" "table-name=$S.dim" \
        <keys.txt >got.txt 2>err.txt || fail "$name: the probe failed: $(cat err.txt)"
    : >want.txt
    while IFS= read -r w; do
        psql_q "SELECT '$i' || E'\\t' || $RENDER FROM $S.dim WHERE $w" >>want.txt ||
            fail "$name: psql: $w"
        i=$((i + 1))
    done <where.txt
    [ "$i" = "$(wc -l <keys.txt)" ] || fail "$name: $i WHERE clauses for $(wc -l <keys.txt) keys"
    sort want.txt >want.s
    sort got.txt >got.s
    [ -s want.s ] || fail "$name: psql found no row at all (the check would mean nothing)"
    diff want.s got.s >diff.txt || fail "$name: the rows differ from psql's (< psql, > probe):
$(cat diff.txt)"
    ok "$name: $(wc -l <got.s) rows for $i keys, as psql's"
}

# ---- 1. one INT key
printf '%s\n' 1 999 2 1 3 2 >keys.txt
printf '%s\n' "id = 1" "id = 999" "id = 2" "id = 1" "id = 3" "id = 2" >where.txt
check "INT key (hits, a miss, 3 rows for a key, duplicates, NULLs)" id

# ---- 2. a two-column key, (region, id)
printf 'us\t2\neu\t2\neu\t4\nus\t1\n' >keys.txt
printf '%s\n' "region = 'us' AND id = 2" "region = 'eu' AND id = 2" \
    "region = 'eu' AND id = 4" "region = 'us' AND id = 1" >where.txt
check "two-column key (region, id)" region id

# ---- 3. a key of each type
printf '%s\n' true false >keys.txt
printf '%s\n' "flag" "NOT flag" >where.txt
check "BOOLEAN key" flag
printf '%s\n' 10000000000 9223372036854775807 -1 12 >keys.txt
printf '%s\n' "big = 10000000000" "big = 9223372036854775807" "big = -1" "big = 12" >where.txt
check "BIGINT key" big
printf '%s\n' 2.5 0.1 -1e300 0.30000000000000004 7 >keys.txt
printf '%s\n' "score = 2.5" "score = 0.1" "score = -1e300" "score = 0.30000000000000004" \
    "score = 7" >where.txt
check "DOUBLE key" score
printf '%s\n' alpha 'line\nbreak' '\\' zeta >keys.txt
printf '%s\n' "label = 'alpha'" "label = E'line\\nbreak'" "label = E'\\\\'" \
    "label = 'zeta'" >where.txt
check "VARCHAR key (varchar(20))" label
printf '%s\n' 00ff10 '' 5c22 0102 ff >keys.txt
printf '%s\n' "data = '\\x00ff10'" "data = ''" "data = '\\x5c22'" "data = '\\x0102'" \
    "data = '\\xff'" >where.txt
check "BYTES key" data
printf '%s\n' '2024-01-02 03:04:05.678' '1970-01-01 00:00:00.000' '2099-12-31 23:59:59.999' \
    '2024-01-02 03:04:05.679' >keys.txt
printf '%s\n' "ts = '2024-01-02 03:04:05.678'" "ts = '1970-01-01 00:00:00'" \
    "ts = '2099-12-31 23:59:59.999'" "ts = '2024-01-02 03:04:05.679'" >where.txt
check "TIMESTAMP(3) key (timestamp)" ts
printf '%s\n' '2000-06-15 12:00:00.001' '2099-12-31 23:59:59.999' '2000-06-15 14:00:00.001' \
    >keys.txt
printf '%s\n' "tz = '2000-06-15 12:00:00.001+00'" "tz = '2099-12-31 23:59:59.999+00'" \
    "tz = '2000-06-15 14:00:00.001+00'" >where.txt
check "TIMESTAMP(3) key (timestamptz, UTC)" tz
printf '%s\n' 2024-02-29 1969-12-31 2024-03-01 >keys.txt
printf '%s\n' "day = '2024-02-29'" "day = '1969-12-31'" "day = '2024-03-01'" >where.txt
check "DATE key" day
printf '%s\n' 12.50 12.5 -0.01 9999999999.99 0 12.51 >keys.txt
printf '%s\n' "amount = 12.50" "amount = 12.5" "amount = -0.01" "amount = 9999999999.99" \
    "amount = 0" "amount = 12.51" >where.txt
check "DECIMAL key" amount
printf '%s\n' ab abcd 'ab  ' zz >keys.txt
printf '%s\n' "code = 'ab'" "code = 'abcd'" "code = 'ab  '" "code = 'zz'" >where.txt
check "VARCHAR key (char(4), padded)" code
printf '%s\n' 32767 -32768 70000 7 >keys.txt
printf '%s\n' "small = 32767" "small = -32768" "small = 70000" "small = 7" >where.txt
check "INT key (smallint column; 70000 a miss)" small

# ---- 4. awkward text keys
printf '%s\n' "o'br\\\\ien, {x} \"q\"" NULL 'tab\there' '' '{}' '"' >keys.txt
printf '%s\n' "region = E'o\\'br\\\\ien, {x} \"q\"'" "region = 'NULL'" \
    "region = E'tab\\there'" "region = ''" "region = '{}'" "region = '\"'" >where.txt
check "text keys: quotes, backslash, comma, braces, NULL, tab, empty" region

# a VARCHAR key against a column of another type (integer): compared with the column's text
printf '%s\n' 2 02 5 >keys.txt
"$PROBE" --col id VARCHAR --col region VARCHAR --key id postgres "url=$URL" \
    "table-name=$S.dim" <keys.txt >got.txt 2>err.txt ||
    fail "VARCHAR key, integer column: the probe failed: $(cat err.txt)"
{
    psql_q "SELECT '0' || E'\t' || id || E'\t' || coalesce(region, '\N') FROM $S.dim WHERE id::text = '2'"
    psql_q "SELECT '2' || E'\t' || id || E'\t' || $(esc region) FROM $S.dim WHERE id::text = '5'"
} | sort >want.s
sort got.txt >got.s
[ "$(wc -l <want.s)" = 4 ] || fail "VARCHAR key, integer column: psql has $(wc -l <want.s) rows"
diff want.s got.s >diff.txt || fail "VARCHAR key, integer column: rows differ: $(cat diff.txt)"
ok "VARCHAR key against an integer column: by its text ('02' a miss), as psql's"

# ---- 5. 1,024 keys in one call
psql_q "CREATE TABLE $S.many (id integer, v text);
        INSERT INTO $S.many SELECT i, 'v' || i || CASE WHEN i % 3 = 0 THEN ',\"x' ELSE '' END
        FROM generate_series(0, 3000) i, generate_series(1, 2) j WHERE i % 2 = 0;
        CREATE INDEX ON $S.many(id)" >/dev/null
seq 0 1023 >keys.txt
"$PROBE" --col id INT --col v VARCHAR --key id postgres "url=$URL" "table-name=$S.many" \
    <keys.txt >got.txt 2>err.txt || fail "1,024 keys: the probe failed: $(cat err.txt)"
psql_q "SELECT id || E'\\t' || id || E'\\t' || v FROM $S.many WHERE id BETWEEN 0 AND 1023" |
    sort >want.s
sort got.txt >got.s
[ "$(wc -l <want.s)" = 1024 ] || fail "1,024 keys: psql has $(wc -l <want.s) rows, not 1024"
diff want.s got.s >diff.txt || fail "1,024 keys: rows differ: $(head diff.txt)"
ok "1,024 keys in one call: $(wc -l <got.s) rows, as psql's"

# ---- 6. errors
echo 1 >keys.txt
if "$PROBE" --col id INT --key id postgres "url=$URL" "table-name=$S.nosuch" <keys.txt \
    >/dev/null 2>err.txt; then
    fail "a missing table: the probe succeeded"
fi
grep -q "open: NOT_FOUND (permanent): postgres lookup dims: .*nosuch.* does not exist" err.txt ||
    fail "a missing table: $(cat err.txt)"
ok "a missing table: NOT_FOUND, permanent, named"
if "$PROBE" --col id INT --col colour VARCHAR --key id postgres "url=$URL" \
    "table-name=$S.dim" <keys.txt >/dev/null 2>err.txt; then
    fail "a missing column: the probe succeeded"
fi
grep -q "NOT_FOUND (permanent): postgres lookup dims: the table has no column 'colour'" \
    err.txt || fail "a missing column: $(cat err.txt)"
ok "a missing column: NOT_FOUND, permanent, named"
if "$PROBE" --col id INT --col attrs 'ARRAY<INT>' --key id postgres "url=$URL" \
    "table-name=$S.dim" <keys.txt >/dev/null 2>err.txt; then
    fail "jsonb of the wrong shape: the probe succeeded"
fi
grep -q "round 1: DECODE (permanent): postgres lookup dims: reading jsonb: .*attrs" err.txt ||
    fail "jsonb of the wrong shape: $(cat err.txt)"
ok "a row's value that does not convert (jsonb object as ARRAY): DECODE, permanent, named"

# ---- 7. the connection lost between two lookups
printf '%s\n' 1 2 999 >keys.txt
"$PROBE" --rounds 2 --wait-file go --col id INT --col region VARCHAR --key id postgres \
    "url=$URL" "table-name=$S.dim" <keys.txt >got.txt 2>err.txt &
probe=$!
e2e_pids="$e2e_pids $probe"
wait_until 30 grep -q "round 1" got.txt || fail "connection lost: no first round"
[ "$(psql_q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE query LIKE '%rsql_keys%' AND pid <> pg_backend_pid()")" = 1 ] ||
    fail "connection lost: no lookup backend to terminate"
touch go
wait "$probe" || fail "connection lost: the probe failed: $(cat err.txt)"
grep -q "round 2: UNAVAILABLE (transient): postgres lookup dims" err.txt ||
    fail "connection lost: not a transient UNAVAILABLE: $(cat err.txt)"
awk '/^round 1/{r=1; next} /^round 2/{r=2; next} {print > ("r" r ".txt")}' got.txt
sort r1.txt >r1.s
sort r2.txt >r2.s
[ "$(wc -l <r1.s)" = 4 ] || fail "connection lost: round 1 has $(wc -l <r1.s) rows, not 4"
cmp -s r1.s r2.s || fail "connection lost: round 2's rows differ: $(diff r1.s r2.s)"
ok "connection lost: UNAVAILABLE (transient), the reopened lookup returns the same rows"

# ---- 8. a lookup join in SQL, against psql's join of the same rows
python3 - <<'PY'
import json, random
r = random.Random(5)
with open("orders.jsonl", "w") as f, open("orders.csv", "w") as c:
    for oid in range(1, 5001):
        region = r.choice(["eu", "us", "ap", None])
        cid = r.randint(1, 600)
        f.write(json.dumps({"oid": oid, "region": region, "cid": cid}) + "\n")
        c.write("%d,%s,%d\n" % (oid, region if region else "", cid))
PY
psql_q "SET search_path = $S;
CREATE TABLE cust (region text, id integer, name text, vip boolean);
INSERT INTO cust SELECT (ARRAY['eu','us','ap'])[1 + i % 3], i / 3, 'n' || i || E'\\'' || i,
  i % 5 = 0 FROM generate_series(1, 1500) i;
INSERT INTO cust SELECT region, id, name || ' again', vip FROM cust WHERE id % 50 = 0;
CREATE TABLE orders (oid bigint, region text, cid integer);" >/dev/null
psql_q "\\copy $S.orders FROM 'orders.csv' WITH (FORMAT csv)" >/dev/null
rsql -e "CREATE TABLE orders (oid BIGINT, region STRING, cid INT, pt AS PROCTIME())
           WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl');
         CREATE TABLE cust (region STRING, id INT, name STRING, vip BOOLEAN)
           WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.cust');
         CREATE TABLE jout (oid BIGINT, id INT, name STRING, vip BOOLEAN)
           WITH ('connector' = 'sqlite', 'path' = 'jout.db', 'table' = 'j');
         CREATE TABLE lout (oid BIGINT, id INT, name STRING, vip BOOLEAN)
           WITH ('connector' = 'sqlite', 'path' = 'lout.db', 'table' = 'l');
         CREATE TABLE ccust (region STRING, id INT, name STRING, vip BOOLEAN)
           WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.cust',
                 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '400');
         CREATE TABLE jcout (oid BIGINT, id INT, name STRING, vip BOOLEAN)
           WITH ('connector' = 'sqlite', 'path' = 'jcout.db', 'table' = 'jc');
         CREATE TABLE lcout (oid BIGINT, id INT, name STRING, vip BOOLEAN)
           WITH ('connector' = 'sqlite', 'path' = 'lcout.db', 'table' = 'lc');
         INSERT INTO jout SELECT o.oid, c.id, c.name, c.vip FROM orders AS o
           JOIN cust FOR SYSTEM_TIME AS OF o.pt AS c ON c.id = o.cid AND c.region = o.region
           AND NOT c.vip;
         INSERT INTO lout SELECT o.oid, c.id, c.name, c.vip FROM orders AS o
           LEFT JOIN cust FOR SYSTEM_TIME AS OF o.pt AS c ON o.region = c.region
           AND c.id = o.cid AND NOT c.vip;
         INSERT INTO jcout SELECT o.oid, c.id, c.name, c.vip FROM orders AS o
           JOIN ccust FOR SYSTEM_TIME AS OF o.pt AS c ON c.id = o.cid AND c.region = o.region
           AND NOT c.vip;
         INSERT INTO lcout SELECT o.oid, c.id, c.name, c.vip FROM orders AS o
           LEFT JOIN ccust FOR SYSTEM_TIME AS OF o.pt AS c ON o.region = c.region
           AND c.id = o.cid AND NOT c.vip"
expect_rc 0 "lookup joins of a postgres table in SQL, without and with a cache"
case "$ERR" in *"lookup of ccust: "*"; cache: "*" hits, "*) ;;
*) fail "the cached joins did not say what their cache did: $ERR" ;; esac
for j in "j JOIN" "l LEFT JOIN" "jc JOIN" "lc LEFT JOIN"; do
    set -- "${j%% *}" "${j#* }"
    sqlite3 -separator '|' "${1}out.db" "SELECT oid, coalesce(id, ''), coalesce(name, ''),
        coalesce(CASE vip WHEN 1 THEN 't' WHEN 0 THEN 'f' END, '') FROM $1 ORDER BY 1, 2, 3" >got_$1.txt
    psql_q "SELECT o.oid || '|' || coalesce(c.id::text, '') || '|' || coalesce(c.name, '') || '|' ||
        coalesce(CASE WHEN c.vip THEN 't' WHEN NOT c.vip THEN 'f' END, '') FROM $S.orders o $2 $S.cust c ON c.id = o.cid
        AND c.region = o.region AND NOT c.vip ORDER BY o.oid, c.id, c.name" >want_$1.txt
    [ "$(wc -l <want_$1.txt)" -gt 1000 ] || fail "$2: the reference is too small"
    cmp -s got_$1.txt want_$1.txt ||
        fail "$2 differs from psql's: $(diff got_$1.txt want_$1.txt | head -5)"
    ok "SQL $2 of a postgres table$(case $1 in *c) echo " with a cache of 400 rows" ;; esac) equals psql's ($(wc -l <want_$1.txt) rows)"
done

# ---- 9. lookups in flight, the connection killed while they are
python3 - <<'PY'
import random
r = random.Random(9)
with open("many.jsonl", "w") as f, open("many.csv", "w") as c:
    for oid in range(150000):
        cid = r.randint(1, 60000)
        f.write('{"oid":%d,"cid":%d}\n' % (oid, cid))
        c.write("%d,%d\n" % (oid, cid))
PY
psql_q "SET search_path = $S;
CREATE TABLE people (id integer PRIMARY KEY, name text);
INSERT INTO people SELECT i, 'p' || i FROM generate_series(1, 50000) i;
CREATE TABLE bulk (oid bigint, cid integer);" >/dev/null
psql_q "\\copy $S.bulk FROM 'many.csv' WITH (FORMAT csv)" >/dev/null
psql_q "SELECT m.oid || '|' || m.cid || '|' || coalesce(p.name, '') FROM $S.bulk m
        LEFT JOIN $S.people p ON p.id = m.cid ORDER BY m.oid" >want_many.txt
[ "$(wc -l <want_many.txt)" = 150000 ] || fail "in flight: psql's reference has $(wc -l <want_many.txt) rows"
in_flight_run() { # $1: buffer-capacity, $2: the sink's file, $3: the tables' suffix
    rsql -e "SET 'table.exec.async-lookup.buffer-capacity' = '$1';
      CREATE TABLE many$1$3 (oid BIGINT, cid INT, pt AS PROCTIME())
        WITH ('connector' = 'filesystem', 'path' = 'many.jsonl');
      CREATE TABLE people$1$3 (id INT, name STRING)
        WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.people',
              'lookup.max-retries' = '10');
      CREATE TABLE mout$1$3 (oid BIGINT, cid INT, name STRING)
        WITH ('connector' = 'sqlite', 'path' = '$2', 'table' = 'm');
      INSERT INTO mout$1$3 SELECT o.oid, o.cid, p.name FROM many$1$3 AS o
        LEFT JOIN people$1$3 FOR SYSTEM_TIME AS OF o.pt AS p ON p.id = o.cid"
}
: >kills.txt
( while :; do
    psql_q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE query LIKE '%rsql_keys%' AND pid <> pg_backend_pid()" >>kills.txt 2>/dev/null
    sleep 0.2
  done ) &
killer=$!
e2e_pids="$e2e_pids $killer"
# a run may end before the killer (every 0.2 s) sees one of its queries: each run must equal
# psql's join; runs go on, each on a fresh sink, until one was interrupted (at most 5)
for attempt in 1 2 3 4 5; do
    : >kills.txt
    rm -f many.db
    in_flight_run 4096 many.db "_$attempt"
    expect_rc 0 "a lookup join with lookups in flight, its connection killed while it runs (run $attempt)"
    case "$ERR" in *"lookup of people4096_$attempt: "*", up to "*" in flight"*) ;;
    *) fail "in flight: the summary does not say how many lookups were in flight: $ERR" ;; esac
    sqlite3 -separator '|' many.db "SELECT oid, cid, coalesce(name, '') FROM m ORDER BY oid" >got_many.txt
    cmp -s got_many.txt want_many.txt ||
        fail "in flight: the join differs from psql's: $(diff got_many.txt want_many.txt | head -5)"
    landed=$(grep -c '^[1-9]' kills.txt || true)
    retried=$(printf '%s\n' "$ERR" | grep -c "lookup of people4096_$attempt failed (.*), asking again" || true)
    [ "$landed" -gt 0 ] && [ "$retried" -gt 0 ] && break
    echo "in flight: run $attempt: $landed kills landed, $retried lookups asked again; again"
done
kill "$killer" 2>/dev/null
wait "$killer" 2>/dev/null || true
[ "$landed" -gt 0 ] && [ "$retried" -gt 0 ] ||
    fail "in flight: $landed kills landed, $retried lookups asked again in 5 runs (never interrupted)"
ok "lookups in flight ($(printf '%s\n' "$ERR" | grep -o 'up to [0-9]* in flight'), $landed kills, $retried asked again): equals psql's LEFT JOIN"
in_flight_run 1 one.db ""
expect_rc 0 "the same lookup join, one lookup at a time"
case "$ERR" in *" in flight"*) fail "buffer-capacity 1 had lookups in flight: $ERR" ;; esac
sqlite3 -separator '|' one.db "SELECT oid, cid, coalesce(name, '') FROM m ORDER BY oid" >got_one.txt
cmp -s got_one.txt want_many.txt || fail "one at a time: the join differs from psql's"
ok "one lookup at a time (buffer-capacity 1): the same rows"

echo PASS
