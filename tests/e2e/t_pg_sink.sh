#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_sink.sh: the postgres sink against the real PostgreSQL 15 of scripts/postgres (started
# by scripts/test; this test fails, never skips, when it cannot be reached). Checked with psql:
#   1. filesystem -> postgres append: the table equals the input (every type), the password
#      is masked, a second run writes nothing again (the stored position);
#   2. an existing table whose column cannot hold the rocketsql type: the job fails at start,
#      naming the column;
#   2b. DECIMAL -> numeric (exact), DATE -> date, ROW/ARRAY/MAP -> jsonb, checked by type and
#      value; the source reads numeric into DECIMAL, date into DATE, jsonb into VARCHAR; an
#      ARRAY into an integer[] column is refused at start, naming the column;
#   2c. the postgres source reads jsonb/json into ROW/ARRAY/MAP (what 2b wrote comes back
#      equal) and PostgreSQL arrays (integer[], text[], 2-dimensional; timestamp[],
#      timestamptz[] as UTC, date[], numeric[], float8[]) into ARRAY; a ROW from
#      integer[] is refused at start naming the column; jsonb of the wrong shape fails the run
#      naming the column's field;
#   3. a CHECK constraint violated by one row: under errors.tolerance 'none' the run fails at
#      once with PostgreSQL's message and SQLSTATE, the rows before it are there, the rest not;
#      under 'all' that row is dead-lettered with the message and every other row is written;
#   3c. under 'all' with many dead-lettered rows, the position stored with the rows never moves
#      backwards and covers every row of its transaction (a trigger logs each store);
#   3b. an upsert by PRIMARY KEY (k, g) NOT ENFORCED: one row per key, the last one written;
#   4. the server restarted while a following job writes: nothing lost or doubled;
#   5. kill -9: 2,000,000 rows copied by a job SIGKILLed 5 times (rerun after each), with the
#      default sink.buffer-flush.* (pipeline batches gathered into transactions of up to 8192
#      rows): the table equals the input exactly (count, distinct ids, sha256 of every row),
#      and the rows were committed in fewer transactions than there were batches, none
#      holding more than 8192 rows (by xmin);
#   6. fencing: a run waits for its pipeline's writer lock (held here by psql, as by the
#      backend of a killed run that is still committing) and writes nothing until it is free,
#      then resumes from the stored position.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
# rows_are TABLE N: TABLE has N rows now (for wait_until)
rows_are() { [ "$(psql_q "SELECT count(*) FROM $1" 2>/dev/null)" = "$2" ]; }
S="t$$" # a schema of our own, dropped at the end
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null
pg_cleanup() { psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true; }
trap 'pg_cleanup; e2e_cleanup' EXIT
ok "PostgreSQL at $URL, schema $S"

# ---- 1. append, every type
cat >in.jsonl <<'EOF'
{"id":1,"name":"plain","amount":1.5,"ts":"2026-01-02 03:04:05.678","ok":true,"b":"AQID"}
{"id":2,"name":"tab\there and \\ backslash","amount":-2.25,"ts":"2026-12-31 23:59:59.999","ok":false,"b":""}
{"id":3,"name":"line\nbreak, 'quote' \"dq\"","amount":1e300,"ts":"1970-01-01 00:00:00.000","ok":true,"b":"/w=="}
{"id":4,"name":null,"amount":null,"ts":null,"ok":null,"b":null}
EOF
cat >append.sql <<SQL
CREATE TABLE src (id BIGINT, name STRING, amount DOUBLE, ts TIMESTAMP(3), ok BOOLEAN, b BYTES)
  WITH ('connector' = 'filesystem', 'path' = 'in.jsonl');
CREATE TABLE dst (id BIGINT, name STRING, amount DOUBLE, ts TIMESTAMP(3), ok BOOLEAN, b BYTES)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.append',
        'password' = 'not-needed-here');
SQL
rsql -f append.sql
expect_rc 0 "create the tables"
rsql -e "SHOW CREATE TABLE dst"
case "$OUT" in *"'password' = '******'"*) ok "the password is masked" ;;
*) fail "SHOW CREATE TABLE does not mask the password: $OUT" ;; esac
case "$OUT" in *not-needed-here*) fail "the password is shown: $OUT" ;; esac
rsql -e "EXPLAIN INSERT INTO dst SELECT * FROM src"
case "$OUT" in *"delivery: exactly-once (the postgres sink"*) ok "EXPLAIN says exactly-once" ;;
*) fail "EXPLAIN: $OUT" ;; esac
rsql -e "INSERT INTO dst SELECT * FROM src"
expect_rc 0 "filesystem -> postgres"
same "$(psql_q "SELECT id, coalesce(name, '<null>'), coalesce(amount::text, '<null>'),
         coalesce(to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'), '<null>'),
         coalesce(ok::text, '<null>'), coalesce(encode(b, 'hex'), '<null>')
         FROM $S.append ORDER BY id" | tr '\n' '~')" \
"1|plain|1.5|2026-01-02 03:04:05.678|true|010203~2|tab	here and \\ backslash|-2.25|2026-12-31 23:59:59.999|false|~3|line~break, 'quote' \"dq\"|1e+300|1970-01-01 00:00:00.000|true|ff~4|<null>|<null>|<null>|<null>|<null>~" \
    "every value as written"
same "$(psql_q "SELECT \"offset\" FROM $S.rocketsql_positions WHERE \"partition\" = 'in.jsonl'
         AND pipeline = 'insert:src->dst'")" "$(stat -c %s in.jsonl)" \
    "the position stored with the rows is the end of the file"
rsql -e "INSERT INTO dst SELECT * FROM src"
expect_rc 0 "a second run"
same "$(psql_q "SELECT count(*) FROM $S.append")" 4 "the second run wrote nothing again"

# ---- 2. a column of the wrong type
psql_q "CREATE TABLE $S.wrong (id bigint, name integer)" >/dev/null
rsql -e "CREATE TABLE w (id BIGINT, name STRING) WITH ('connector' = 'postgres',
           'url' = '$URL', 'table-name' = '$S.wrong');
         CREATE TABLE wsrc (id BIGINT, name STRING) WITH ('connector' = 'filesystem',
           'path' = 'in.jsonl');
         INSERT INTO w SELECT id, name FROM wsrc"
[ "$RC" != 0 ] || fail "a mismatched column was accepted"
case "$ERR$OUT" in *"column 'name' is integer in PostgreSQL"*) ok "the mismatch names the column" ;;
*) fail "no column named in: $ERR $OUT" ;; esac
same "$(psql_q "SELECT count(*) FROM $S.wrong")" 0 "nothing written to the mismatched table"

# ---- 2b. the exact and nested types: DECIMAL -> numeric (exact), DATE -> date,
#      ROW/ARRAY/MAP -> jsonb; read back by the postgres source (numeric, date, jsonb as text)
cat >nest.jsonl <<'EOF'
{"id":1,"price":12345678.91,"d":"2026-02-28","r":{"a":1,"b":"x"},"arr":[1,2,3],"m":{"k":"v"}}
{"id":2,"price":0.10,"d":"1969-12-31","r":{"a":null,"b":"q\"uote"},"arr":[],"m":{}}
{"id":3,"price":null,"d":null,"r":null,"arr":null,"m":null}
EOF
cat >nest.sql <<SQL
CREATE TABLE nsrc (id BIGINT, price DECIMAL(12, 2), d DATE, r ROW<a INT, b STRING>,
  arr ARRAY<INT>, m MAP<STRING, STRING>) WITH ('connector' = 'filesystem', 'path' = 'nest.jsonl');
CREATE TABLE ndst (id BIGINT, price DECIMAL(12, 2), d DATE, r ROW<a INT, b STRING>,
  arr ARRAY<INT>, m MAP<STRING, STRING>) WITH ('connector' = 'postgres', 'url' = '$URL',
  'table-name' = '$S.nest');
INSERT INTO ndst SELECT * FROM nsrc;
SQL
rsql -f nest.sql
expect_rc 0 "filesystem -> postgres, exact and nested types"
same "$(psql_q "SELECT string_agg(attname || ':' || format_type(atttypid, atttypmod), ',' ORDER BY attnum)
         FROM pg_attribute WHERE attrelid = '$S.nest'::regclass AND attnum > 0")" \
    "id:bigint,price:numeric,d:date,r:jsonb,arr:jsonb,m:jsonb" "the created table's column types"
same "$(psql_q "SELECT id, coalesce(price::text, '<null>'), coalesce(d::text, '<null>'),
         coalesce(r::text, '<null>'), coalesce(arr::text, '<null>'), coalesce(m::text, '<null>'),
         coalesce((r->>'a')::text, '<null>'), coalesce(jsonb_array_length(arr)::text, '<null>')
         FROM $S.nest ORDER BY id" | tr '\n' '~')" \
'1|12345678.91|2026-02-28|{"a": 1, "b": "x"}|[1, 2, 3]|{"k": "v"}|1|3~2|0.10|1969-12-31|{"a": null, "b": "q\"uote"}|[]|{}|<null>|0~3|<null>|<null>|<null>|<null>|<null>|<null>|<null>~' \
    "DECIMAL exact in numeric, DATE as date, ROW/ARRAY/MAP as jsonb"
# the postgres source: numeric -> DECIMAL, date -> DATE, jsonb -> VARCHAR
psql_q "CREATE TABLE $S.nin (id bigint, price numeric(20,4), d date, j jsonb);
        INSERT INTO $S.nin VALUES (1, 99999999999999.1234, '2000-02-29', '{\"x\": [1, 2]}'),
                                  (2, -0.0001, '1970-01-01', '[]'), (3, NULL, NULL, NULL)" >/dev/null
rsql -e "CREATE TABLE pin (id BIGINT, price DECIMAL(20, 4), d DATE, j STRING) WITH (
           'connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.nin');
         CREATE TABLE pout (id BIGINT, price DECIMAL(20, 4), d DATE, j STRING) WITH (
           'connector' = 'filesystem', 'path' = 'nout.jsonl', 'format' = 'json');
         INSERT INTO pout SELECT * FROM pin"
expect_rc 0 "postgres -> filesystem, numeric/date/jsonb"
same "$(sort nout.jsonl | tr '\n' '~')" \
'{"id":1,"price":99999999999999.1234,"d":"2000-02-29","j":"{\"x\": [1, 2]}"}~{"id":2,"price":-0.0001,"d":"1970-01-01","j":"[]"}~{"id":3,"price":null,"d":null,"j":null}~' \
    "numeric read exactly into DECIMAL, date into DATE, jsonb into VARCHAR"
# an ARRAY into a PostgreSQL array column: refused at start, naming the column
psql_q "CREATE TABLE $S.narr (id bigint, arr integer[])" >/dev/null
rsql -e "CREATE TABLE na (id BIGINT, arr ARRAY<INT>) WITH ('connector' = 'postgres',
           'url' = '$URL', 'table-name' = '$S.narr');
         CREATE TABLE nasrc (id BIGINT, arr ARRAY<INT>) WITH ('connector' = 'filesystem',
           'path' = 'nest.jsonl');
         INSERT INTO na SELECT id, arr FROM nasrc"
[ "$RC" != 0 ] || fail "an ARRAY into integer[] was accepted"
case "$ERR$OUT" in *"column 'arr' is integer[] in PostgreSQL"*) ok "the ARRAY mismatch names the column" ;;
*) fail "no column named in: $ERR $OUT" ;; esac

# ---- 2c. the postgres source: jsonb/json into ROW/ARRAY/MAP (through the json format's
#      decoder), PostgreSQL arrays (int[], text[]) into ARRAY; a type mismatch at open and a
#      value of the wrong shape are errors naming the column
rsql -e "CREATE TABLE nback (id BIGINT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, STRING>)
           WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.nest');
         CREATE TABLE nbout (id BIGINT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, STRING>)
           WITH ('connector' = 'filesystem', 'path' = 'nback.jsonl', 'format' = 'json');
         INSERT INTO nbout SELECT * FROM nback"
expect_rc 0 "postgres (jsonb) -> filesystem, ROW/ARRAY/MAP"
same "$(sort nback.jsonl | tr '\n' '~')" \
'{"id":1,"r":{"a":1,"b":"x"},"arr":[1,2,3],"m":{"k":"v"}}~{"id":2,"r":{"a":null,"b":"q\"uote"},"arr":[],"m":{}}~{"id":3,"r":null,"arr":null,"m":null}~' \
    "jsonb read back into ROW/ARRAY/MAP equals what was written"
psql_q "CREATE TABLE $S.pgarr (id bigint, ints integer[], texts text[], grid integer[], j json);
        INSERT INTO $S.pgarr VALUES
          (1, '{1,2,3}', '{a,\"b c\",NULL}', '{{1,2},{3,4}}', '{\"x\": {\"y\": [true, false]}}'),
          (2, '{}', '{}', '{}', '{\"x\": null}'), (3, NULL, NULL, NULL, NULL)" >/dev/null
rsql -e "CREATE TABLE parr (id BIGINT, ints ARRAY<BIGINT>, texts ARRAY<STRING>,
           grid ARRAY<ARRAY<INT>>, j ROW<x ROW<y ARRAY<BOOLEAN>>>)
           WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.pgarr');
         CREATE TABLE paout (id BIGINT, ints ARRAY<BIGINT>, texts ARRAY<STRING>,
           grid ARRAY<ARRAY<INT>>, j ROW<x ROW<y ARRAY<BOOLEAN>>>)
           WITH ('connector' = 'filesystem', 'path' = 'parr.jsonl', 'format' = 'json');
         INSERT INTO paout SELECT * FROM parr"
expect_rc 0 "postgres (int[], text[], json) -> filesystem, ARRAY and nested ROW"
same "$(sort parr.jsonl | tr '\n' '~')" \
'{"id":1,"ints":[1,2,3],"texts":["a","b c",null],"grid":[[1,2],[3,4]],"j":{"x":{"y":[true,false]}}}~{"id":2,"ints":[],"texts":[],"grid":[],"j":{"x":null}}~{"id":3,"ints":null,"texts":null,"grid":null,"j":null}~' \
    "PostgreSQL arrays into ARRAY, json into a nested ROW"
# arrays of timestamps (with and without a zone), dates, numerics and doubles
psql_q "CREATE TABLE $S.tsarr (id bigint, ts timestamp[], tz timestamptz[], d date[], n numeric[],
          f double precision[]);
        INSERT INTO $S.tsarr VALUES
          (1, '{\"2024-05-01 12:00:00.25\",\"1970-01-01 00:00:00\",NULL}',
           '{\"2024-05-01 14:00:00.25+02\"}', '{2024-05-01,1999-12-31}', '{1.50,-2}', '{0.1,1e300}'),
          (2, '{}', '{}', '{}', '{}', '{}')" >/dev/null
rsql -e "CREATE TABLE tsa (id BIGINT, ts ARRAY<TIMESTAMP(3)>, tz ARRAY<TIMESTAMP(3)>, d ARRAY<DATE>,
           n ARRAY<DECIMAL(10, 2)>, f ARRAY<DOUBLE>)
           WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.tsarr');
         CREATE TABLE tsout (id BIGINT, ts ARRAY<TIMESTAMP(3)>, tz ARRAY<TIMESTAMP(3)>,
           d ARRAY<DATE>, n ARRAY<DECIMAL(10, 2)>, f ARRAY<DOUBLE>)
           WITH ('connector' = 'filesystem', 'path' = 'tsarr.jsonl', 'format' = 'json');
         INSERT INTO tsout SELECT * FROM tsa"
expect_rc 0 "postgres (timestamp[], timestamptz[], date[], numeric[], float8[]) -> filesystem"
same "$(sort tsarr.jsonl | tr '\n' '~')" \
'{"id":1,"ts":["2024-05-01 12:00:00.250","1970-01-01 00:00:00.000",null],"tz":["2024-05-01 12:00:00.250"],"d":["2024-05-01","1999-12-31"],"n":[1.50,-2.00],"f":[0.1,1e+300]}~{"id":2,"ts":[],"tz":[],"d":[],"n":[],"f":[]}~' \
    "PostgreSQL timestamp (UTC for timestamptz), date, numeric and float arrays into ARRAY"
rsql -e "CREATE TABLE pbad (id BIGINT, ints ROW<a INT>) WITH ('connector' = 'postgres',
           'url' = '$URL', 'table-name' = '$S.pgarr');
         CREATE TABLE pbout (id BIGINT, ints ROW<a INT>) WITH ('connector' = 'blackhole');
         INSERT INTO pbout SELECT * FROM pbad"
[ "$RC" != 0 ] || fail "a ROW from integer[] was accepted"
case "$ERR$OUT" in *"column 'ints' is integer[] in PostgreSQL, which does not convert to ROW"*)
    ok "a ROW from integer[] is refused at start, naming the column" ;;
*) fail "the ROW mismatch: $ERR $OUT" ;; esac
psql_q "CREATE TABLE $S.shape (id bigint, r jsonb);
        INSERT INTO $S.shape VALUES (1, '{\"a\": 1}'), (2, '{\"a\": \"x\"}'), (3, '{\"a\": 3}')" >/dev/null
rsql -e "CREATE TABLE shp (id BIGINT, r ROW<a INT>) WITH ('connector' = 'postgres',
           'url' = '$URL', 'table-name' = '$S.shape');
         CREATE TABLE shout (id BIGINT, r ROW<a INT>) WITH ('connector' = 'filesystem',
           'path' = 'shape.jsonl', 'format' = 'json');
         INSERT INTO shout SELECT * FROM shp"
expect_rc 2 "jsonb of the wrong shape fails the run under 'none'"
case "$ERR$OUT" in *"field 'r.a': expected INT, got string"*) ok "the error names the column and field" ;;
*) fail "the shape error: $ERR $OUT" ;; esac

# ---- 3. a constraint violation
python3 -c '
for i in range(1, 1001):
    print("{\"id\":%d,\"v\":%d}" % (i, -1 if i == 500 else i))' >cons.jsonl
psql_q "CREATE TABLE $S.cons (id bigint, v bigint CHECK (v >= 0))" >/dev/null
cat >cons.sql <<SQL
CREATE TABLE csrc (id BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'cons.jsonl');
CREATE TABLE cdst (id BIGINT, v BIGINT) WITH ('connector' = 'postgres', 'url' = '$URL',
  'table-name' = '$S.cons', 'sink.buffer-flush.max-rows' = '100');
CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = 'dlq.db', 'table' = 'dlq');
SQL
rsql -f cons.sql
expect_rc 0 "create the constraint tables"
rsql -e "INSERT INTO cdst SELECT * FROM csrc"
expect_rc 2 "under 'none' the run fails"
case "$ERR$OUT" in *"violates check constraint"*"SQLSTATE 23514"*) ok "PostgreSQL's message and SQLSTATE" ;;
*) fail "no PostgreSQL message in: $ERR $OUT" ;; esac
same "$(psql_q "SELECT count(*), coalesce(max(id), 0) FROM $S.cons")" "499|499" \
    "the rows before the bad one are written, none after it"
rsql -e "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq';
         INSERT INTO cdst SELECT * FROM csrc"
expect_rc 0 "under 'all' the run goes on"
same "$(psql_q "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM $S.cons")" \
    "999|999|1|1000" "every other row written once"
same "$(psql_q "SELECT count(*) FROM $S.cons WHERE id = 500")" 0 "the bad row is not in the table"
same "$(sqlite3 dlq.db "SELECT count(*) FROM dlq WHERE stage = 'sink' AND error LIKE
         '%violates check constraint%SQLSTATE 23514%'")" 1 "the bad row is dead-lettered with the message"

# ---- 3c. under 'all', many rows dead-lettered: the stored position never moves backwards,
# and each transaction's stored position covers every row committed in it (the rows after a
# failed one are written in order, not handed back to be written after later batches).
# Each row carries its own end offset in the file (e, fixed width); triggers log every row
# written and every write of rocketsql_positions with their (top-level) transaction id.
python3 - <<'PY'
lines, off = [], 0
for i in range(1, 3001):
    l = '{"id":%d,"v":%d,"e":"%010d"}\n'
    n = len(l % (i, -1 if i % 37 == 0 else i, 0))
    off += n
    lines.append(l % (i, -1 if i % 37 == 0 else i, off))
open("mono.jsonl", "w").write("".join(lines))
PY
psql_q "CREATE TABLE $S.mono (id bigint, v bigint CHECK (v >= 0), e text);
        CREATE TABLE IF NOT EXISTS $S.rocketsql_positions (pipeline text NOT NULL, \"partition\" text NOT NULL,
          \"offset\" bigint NOT NULL, PRIMARY KEY (pipeline, \"partition\"));
        CREATE TABLE $S.poslog (seq bigserial, pipeline text, part text, off bigint,
          tx bigint DEFAULT txid_current());
        CREATE TABLE $S.rowlog (e bigint, tx bigint DEFAULT txid_current());
        CREATE FUNCTION $S.logpos() RETURNS trigger LANGUAGE plpgsql AS
          'BEGIN INSERT INTO $S.poslog(pipeline, part, off)
             VALUES (NEW.pipeline, NEW.\"partition\", NEW.\"offset\"); RETURN NEW; END';
        CREATE TRIGGER logpos AFTER INSERT OR UPDATE ON $S.rocketsql_positions
          FOR EACH ROW EXECUTE FUNCTION $S.logpos();
        CREATE FUNCTION $S.logrow() RETURNS trigger LANGUAGE plpgsql AS
          'BEGIN INSERT INTO $S.rowlog(e) VALUES (NEW.e::bigint); RETURN NEW; END';
        CREATE TRIGGER logrow AFTER INSERT ON $S.mono FOR EACH ROW EXECUTE FUNCTION $S.logrow()" >/dev/null
cat >mono.sql <<SQL
CREATE TABLE msrc (id BIGINT, v BIGINT, e STRING) WITH ('connector' = 'filesystem', 'path' = 'mono.jsonl');
CREATE TABLE mdst (id BIGINT, v BIGINT, e STRING) WITH ('connector' = 'postgres', 'url' = '$URL',
  'table-name' = '$S.mono', 'sink.buffer-flush.max-rows' = '50');
SQL
rsql -f mono.sql
expect_rc 0 "create the dead-letter order tables"
rsql -e "SET 'errors.tolerance' = 'all'; SET 'pipeline.batch-size' = '16';
         INSERT INTO mdst SELECT * FROM msrc"
expect_rc 0 "under 'all' with a bad row every 37"
same "$(psql_q "SELECT count(*), count(DISTINCT id) FROM $S.mono")" "2919|2919" \
    "every good row written once"
same "$(psql_q "SELECT count(*) FROM $S.poslog a JOIN $S.poslog b ON a.part = 'mono.jsonl' AND b.pipeline = a.pipeline
         AND b.part = a.part AND b.seq > a.seq AND b.off < a.off")" 0 \
    "the stored position never moves backwards"
same "$(psql_q "SELECT count(*) FROM $S.rowlog r WHERE NOT EXISTS (SELECT 1 FROM $S.poslog p
         WHERE p.tx = r.tx AND p.off >= r.e)")" 0 \
    "every row is covered by the position stored in its own transaction"
same "$(psql_q "SELECT off FROM $S.poslog WHERE part = 'mono.jsonl' ORDER BY seq DESC LIMIT 1")" \
    "$(stat -c %s mono.jsonl)" "the last stored position is the end of the file"
psql_q "DROP TRIGGER logpos ON $S.rocketsql_positions" >/dev/null

# ---- 3b. upsert by PRIMARY KEY (...) NOT ENFORCED: the last row of a key wins, within a
# transaction and across them (sink.buffer-flush.max-rows 7), into a table the sink creates
python3 -c '
for i in range(1, 1001):
    print("{\"k\":%d,\"g\":\"g%d\",\"v\":%d}" % (i % 13, i % 3, i))' >up.jsonl
cat >up.sql <<SQL
CREATE TABLE usrc (k INT, g STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'up.jsonl');
CREATE TABLE udst (k INT, g STRING, v BIGINT, PRIMARY KEY (k, g) NOT ENFORCED) WITH (
  'connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.up', 'sink.buffer-flush.max-rows' = '7');
INSERT INTO udst SELECT * FROM usrc;
SQL
rsql -f up.sql
expect_rc 0 "upsert by (k, g)"
want=$(python3 -c '
last = {}
for i in range(1, 1001):
    last[(i % 13, "g%d" % (i % 3))] = i
print(" ".join("%d,%s=%d" % (k, g, v) for (k, g), v in sorted(last.items())))')
same "$(psql_q "SELECT string_agg(k || ',' || g || '=' || v, ' ' ORDER BY k, g) FROM $S.up")" \
    "$want" "one row per key, the last one written"
same "$(psql_q "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '$S'
         AND c.relname = 'up' AND i.indisprimary")" 1 "the created table has the primary key"

# ---- 4. the server restarted while a job writes
python3 -c '
for i in range(1, 1001): print("{\"id\":%d,\"v\":%d}" % (i, i))' >follow.jsonl
cat >follow.sql <<SQL
CREATE TABLE fsrc (id BIGINT, v BIGINT) WITH ('connector' = 'filesystem',
  'path' = 'follow.jsonl', 'scan.follow' = 'true', 'scan.poll-interval' = '50ms');
CREATE TABLE fdst (id BIGINT, v BIGINT) WITH ('connector' = 'postgres', 'url' = '$URL',
  'table-name' = '$S.follow', 'sink.buffer-flush.max-rows' = '50');
SQL
rsql -f follow.sql
expect_rc 0 "create the follow tables"
"$RSQL" --catalog "$CAT" -e "SET 'errors.retry.timeout' = '2min';
    INSERT INTO fdst SELECT * FROM fsrc" >follow.out 2>follow.err &
fpid=$!
e2e_pids="$fpid"
wait_until 60 rows_are "$S.follow" 1000 ||
    fail "the first 1000 rows did not arrive: $(cat follow.err)"
ok "the first 1000 rows arrived"
"$PGS" stop
ok "PostgreSQL stopped"
python3 -c '
for i in range(1001, 3001): print("{\"id\":%d,\"v\":%d}" % (i, i))' >>follow.jsonl
wait_until 60 grep -q "postgres" follow.err || fail "no retry logged while the server was down"
ok "the job retries while the server is down"
"$PGS" start
ok "PostgreSQL started again"
wait_until 90 rows_are "$S.follow" 3000 ||
    fail "the rows written while the server was down did not arrive: $(tail -5 follow.err)"
kill -TERM "$fpid"
wait_pid "$fpid" 30
e2e_pids=""
same "$RC" 143 "the job stops cleanly on SIGTERM (status 143: interrupted)"
same "$(psql_q "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM $S.follow")" \
    "3000|3000|1|3000" "nothing lost or doubled across the restart"

# ---- 5. kill -9
N=2000000 # the sink gathers batches: fast enough that 500,000 rows left no run to kill on a quiet machine
SEED=${E2E_SEED:-$$}
echo "seed $SEED"
python3 - "$N" <<'PY'
import hashlib, random, sys
n_rows = int(sys.argv[1])
r = random.Random(1)
h = hashlib.sha256()
with open("big.jsonl", "w") as f:
    for n in range(1, n_rows + 1):
        name, v = "n%x" % r.getrandbits(40), r.randint(-10**15, 10**15)
        f.write('{"id":%d,"name":"%s","v":%d}\n' % (n, name, v))
        h.update(b"%d|%s|%d\n" % (n, name.encode(), v))
open("expected.sha256", "w").write(h.hexdigest())
PY
cat >kill.sql <<SQL
CREATE TABLE bsrc (id BIGINT, name VARCHAR, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'big.jsonl');
CREATE TABLE bdst (id BIGINT, name VARCHAR, v BIGINT) WITH ('connector' = 'postgres',
  'url' = '$URL', 'table-name' = '$S.big');
CREATE JOB load AS INSERT INTO bdst SELECT * FROM bsrc;
SQL
rsql -f kill.sql
expect_rc 0 "create the kill -9 job"
count() { psql_q "SELECT count(*), count(DISTINCT id), coalesce(max(id), 0) FROM $S.big" 2>/dev/null ||
    echo "0|0|0"; }
# progress: the position stored with big.jsonl's rows (one row by primary key, as cheap at
# 2,000,000 rows as at none; count(*) over the growing table was slow enough on a loaded
# machine that a run could copy everything left before its kill)
stored() { psql_q "SELECT coalesce(max(\"offset\"), 0) FROM $S.rocketsql_positions
                   WHERE \"partition\" LIKE '%big.jsonl'" 2>/dev/null || echo 0; }
moved_from() { [ "$(stored)" -gt "$1" ]; }
RANDOM=$SEED
landed=0
attempts=0
while [ "$landed" -lt 5 ]; do
    attempts=$((attempts + 1))
    [ "$attempts" -le 30 ] || fail "could not land 5 kills in 30 runs"
    "$RSQL" --catalog "$CAT" run load >run.out 2>run.err &
    pid=$!
    e2e_pids="$pid"
    before=$(stored)
    # each kill waits for a new commit first, so it lands mid-copy
    wait_until 60 moved_from "$before" || true
    delay=$((RANDOM % 200))
    sleep "$(printf '0.%03d' "$delay")"
    kill -9 "$pid" 2>/dev/null || true
    set +e
    wait "$pid" 2>/dev/null
    rc=$?
    set -e
    e2e_pids=""
    prefix=$(count)
    rows=${prefix%%|*}
    [ "$prefix" = "$rows|$rows|$rows" ] || fail "after run $attempts the table is not a prefix: $prefix"
    if [ "$rc" = 137 ]; then
        landed=$((landed + 1))
        echo "kill $landed (run $attempts) after ${delay}ms: $rows rows committed"
    elif [ "$rc" = 0 ]; then
        fail "run $attempts finished before its kill; $rows rows"
    else
        fail "run $attempts: exit status $rc: $(cat run.err)"
    fi
done
ok "5 kills landed on a running job"
rsql run load
expect_rc 0 "the run after the last kill completes"
same "$(count)" "$N|$N|$N" "count, distinct ids, max id"
same "$(psql_q "SELECT id || '|' || name || '|' || v FROM $S.big ORDER BY id" | sha256sum |
        cut -d' ' -f1)" "$(cat expected.sha256)" "sha256 of every row"
# the sink gathered pipeline batches (256 rows) into transactions of at most max-rows (8192,
# the default): rows committed together share their xmin
xacts=$(psql_q "SELECT count(*) || '|' || max(c) FROM (SELECT count(*) AS c FROM $S.big
                GROUP BY xmin::text) x")
[ "${xacts#*|}" -le 8192 ] || fail "a transaction held more than max-rows rows: $xacts"
[ "${xacts%|*}" -lt $((N / 256 / 2)) ] ||
    fail "$xacts transactions|largest: pipeline batches were not gathered"
ok "gathered: $xacts (transactions|largest), at most 8192 rows each"

# ---- 6. fencing: a run takes its pipeline's writer lock before it reads the positions, so it
#      waits for a backend still committing for a killed run (that backend holds the lock
#      until it ends; psql holds it here), and writes nothing meanwhile
echo '{"id":1,"name":"a","v":1}' >small.jsonl
cat >fence.sql <<SQL
CREATE TABLE fencesrc (id BIGINT, name VARCHAR, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'small.jsonl');
CREATE TABLE fencedst (id BIGINT, name VARCHAR, v BIGINT) WITH ('connector' = 'postgres',
  'url' = '$URL', 'table-name' = '$S.small');
CREATE JOB fence AS INSERT INTO fencedst SELECT * FROM fencesrc;
SQL
rsql -f fence.sql
expect_rc 0 "create the fencing job"
rsql run fence
expect_rc 0 "the fencing job's first run (one row)"
PIPE=$(psql_q "SELECT pipeline FROM $S.rocketsql_positions WHERE \"partition\" LIKE '%small.jsonl'")
[ -n "$PIPE" ] || fail "no stored position for the fencing job"
python3 -c '
for i in range(2, 1001):
    print("{\"id\":%d,\"name\":\"n\",\"v\":%d}" % (i, i))' >>small.jsonl
PGAPPNAME=rsql_fence "$PGS" psql -tA -c "SELECT pg_advisory_lock(hashtextextended(
    'rocketsql:$S.small:$PIPE', 0)), pg_sleep(300)" >/dev/null 2>&1 &
fence_psql=$!
held() { [ "$(psql_q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                       WHERE l.locktype = 'advisory' AND l.granted
                         AND a.application_name = 'rsql_fence'")" = 1 ]; }
wait_until 20 held || fail "psql did not take the writer lock"
"$RSQL" --catalog "$CAT" run fence >fence.out 2>fence.err &
fence_run=$!
e2e_pids="$fence_run $fence_psql"
waiting() { [ "$(psql_q "SELECT count(*) FROM pg_stat_activity
                          WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'")" = 1 ]; }
wait_until 20 waiting || fail "the run did not wait for the writer lock"
same "$(psql_q "SELECT count(*) FROM $S.small")" "1" "nothing written while the lock is held"
psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'rsql_fence'" >/dev/null
set +e
wait "$fence_run"
rc=$?
set -e
e2e_pids=""
wait "$fence_psql" 2>/dev/null || true
[ "$rc" = 0 ] || fail "the run after the lock was released: exit $rc: $(cat fence.err)"
same "$(psql_q "SELECT count(*), count(DISTINCT id) FROM $S.small")" "1000|1000" \
    "once the lock is free the run resumes from the stored position: 1000 rows, once each"
echo PASS
