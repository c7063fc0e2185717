#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_apply.sh: `rocketsql apply FILE.sql [--dry-run]` makes the catalog's tables and jobs those
# of a jobs file.
#   1. --dry-run on an empty catalog lists what it would create and changes nothing (the
#      catalog read back with sqlite3 has no table and no job);
#   2. apply creates them; a second apply of the same file changes nothing ("no changes");
#   3. an edited file: a changed option, an added column, a dropped table and job, a new job,
#      a changed job statement, settings captured by SET: each shows with its mark (+ ~ -),
#      and SHOW CREATE TABLE / SHOW JOBS read back say the file's; a job over a changed
#      table is created again (its creation time moves), an untouched job keeps its own;
#   4. a changed table keeps its saved positions (a job run before the change resumes after
#      it and reads only the rows added since);
#   5. a secret given as ${file:...} stays a reference in the catalog and is masked in the
#      report;
#   6. bad files change nothing: a syntax error, an unknown option, a job over a table the
#      file does not declare, a DROP statement; each names its line and column; the catalog
#      dump (sqlite3 .dump of tables and jobs) is byte for byte what it was.
. "$RSQL_SRCDIR/tests/e2e/lib.sh"

dump() { # the catalog's definitions, as sqlite3 prints them
    sqlite3 "$CAT" "SELECT name, connector, created_ms, uid FROM tables ORDER BY name;
                    SELECT table_name, ord, name, type FROM table_columns ORDER BY 1, 2;
                    SELECT table_name, key, value FROM table_options ORDER BY 1, 2;
                    SELECT name, sql, created_ms FROM jobs ORDER BY name;
                    SELECT job, key, value FROM job_settings ORDER BY 1, 2;"
}

seq 1 20 | awk '{printf "{\"id\":%d,\"name\":\"n%d\"}\n", $1, $1}' >"$T/in.jsonl"
printf 'pw-one\n' >"$T/secret"
cat >"$T/jobs.sql" <<EOF
-- the jobs of this process
CREATE TABLE src (id BIGINT, name VARCHAR)
  WITH ('connector' = 'filesystem', 'path' = '$T/in.jsonl', 'format' = 'json');
CREATE TABLE copy_out (id BIGINT, name VARCHAR)
  WITH ('connector' = 'filesystem', 'path' = '$T/copy.jsonl', 'format' = 'json');
CREATE TABLE db (id BIGINT, name VARCHAR, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = '$T/db.sqlite', 'table' = 'people');
CREATE TABLE other_out (id BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$T/other.jsonl', 'format' = 'json');
CREATE TABLE pg (id BIGINT) WITH ('connector' = 'postgres', 'url' = 'postgresql://u@127.0.0.1:1/db',
  'table-name' = 'x', 'password' = '\${file:$T/secret}');
CREATE JOB copy AS INSERT INTO copy_out SELECT * FROM src;
CREATE JOB todb AS INSERT INTO db SELECT id, UPPER(name) FROM src WHERE id > 0;
CREATE JOB other AS INSERT INTO other_out SELECT id FROM src;
EOF

# 1. dry run
rsql apply "$T/jobs.sql" --dry-run
expect_rc 0 "apply --dry-run on an empty catalog"
for line in "+ table src: filesystem" "+ table db: sqlite" "+ table pg: postgres" "+ job copy" \
    "+ job todb" "+ job other" "dry run: would have 8 created, 0 changed, 0 dropped; nothing changed"; do
    grep -qxF -- "$line" <<<"$OUT" || fail "dry run: no line '$line' in: $OUT"
done
ok "the dry run lists the 5 tables and 3 jobs it would create"
same "$(sqlite3 "$CAT" 'SELECT count(*) FROM tables') $(sqlite3 "$CAT" 'SELECT count(*) FROM jobs')" \
    "0 0" "tables and jobs after a dry run"
ok "the dry run changed nothing (no table, no job in the catalog)"

# 2. apply, then again
rsql apply "$T/jobs.sql"
expect_rc 0 "apply"
grep -qxF "applied: 8 created, 0 changed, 0 dropped" <<<"$OUT" || fail "apply said: $OUT"
same "$(sqlite3 "$CAT" 'SELECT group_concat(name, " ") FROM (SELECT name FROM jobs ORDER BY name)')" \
    "copy other todb" "the jobs stored"
before=$(dump)
rsql apply "$T/jobs.sql"
expect_rc 0 "apply of the same file"
same "$OUT" "no changes: the catalog matches $T/jobs.sql" "the second apply's report"
same "$(dump)" "$before" "the catalog after the second apply"
ok "a second apply of the same file changes nothing (the catalog dump is byte for byte the same)"

# 4 (first half). run job copy: its positions are saved under src as created
rsql run copy
expect_rc 0 "run copy"
same "$(wc -l <"$T/copy.jsonl")" "20" "rows copied by the first run"
todb_created=$(sqlite3 "$CAT" "SELECT created_ms FROM jobs WHERE name = 'todb'")
copy_created=$(sqlite3 "$CAT" "SELECT created_ms FROM jobs WHERE name = 'copy'")
src_uid=$(sqlite3 "$CAT" "SELECT uid FROM tables WHERE name = 'src'")

# 3. an edited file
seq 21 25 | awk '{printf "{\"id\":%d,\"name\":\"n%d\",\"note\":\"x\"}\n", $1, $1}' >>"$T/in.jsonl"
cat >"$T/jobs.sql" <<EOF
CREATE TABLE src (id BIGINT, name VARCHAR, note VARCHAR)
  WITH ('connector' = 'filesystem', 'path' = '$T/in.jsonl', 'format' = 'json');
CREATE TABLE copy_out (id BIGINT, name VARCHAR)
  WITH ('connector' = 'filesystem', 'path' = '$T/copy.jsonl', 'format' = 'json');
CREATE TABLE db (id BIGINT, name VARCHAR, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = '$T/db.sqlite', 'table' = 'people', 'sink.batch-size' = '10');
CREATE TABLE pg (id BIGINT) WITH ('connector' = 'postgres', 'url' = 'postgresql://u@127.0.0.1:1/db',
  'table-name' = 'x', 'password' = '\${file:$T/secret}');
CREATE TABLE new_out (id BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$T/new.jsonl', 'format' = 'json');
CREATE JOB copy AS INSERT INTO copy_out SELECT id, name FROM src;
SET 'errors.tolerance' = 'all';
CREATE JOB todb AS INSERT INTO db SELECT id, LOWER(name) FROM src WHERE id > 0;
RESET 'errors.tolerance';
CREATE JOB fresh AS INSERT INTO new_out SELECT id FROM src WHERE id > 22;
EOF
printf 'pw-two\n' >"$T/secret" # a rotated secret behind the same reference is no change
rsql apply "$T/jobs.sql" --dry-run
expect_rc 0 "apply --dry-run of the edited file"
dry=$OUT
rsql apply "$T/jobs.sql"
expect_rc 0 "apply of the edited file"
same "$OUT" "${dry/dry run: would have 2 created, 4 changed, 2 dropped; nothing changed/applied: 2 created, 4 changed, 2 dropped}" \
    "the report of the apply (against its dry run)"
for line in "~ table src: column 3 added: note VARCHAR" \
    "~ table db: option 'sink.batch-size' = '10' added" \
    "+ table new_out: filesystem" "- table other_out" \
    "~ job copy: statement changed; restarted: its table src changed" \
    "~ job todb: statement changed; settings changed; restarted: its tables db, src changed" \
    "+ job fresh" "- job other"; do
    grep -qxF -- "$line" <<<"$OUT" || fail "no line '$line' in the report: $OUT"
done
grep -q "pg" <<<"$OUT" && fail "the table pg changed although its reference did not: $OUT"
ok "the report marks each created (+), changed (~) and dropped (-) table and job, and why"
same "$(sqlite3 "$CAT" 'SELECT group_concat(name, " ") FROM (SELECT name FROM tables ORDER BY name)')" \
    "copy_out db new_out pg src" "the tables after the edit"
same "$(sqlite3 "$CAT" 'SELECT group_concat(name, " ") FROM (SELECT name FROM jobs ORDER BY name)')" \
    "copy fresh todb" "the jobs after the edit"
same "$(sqlite3 "$CAT" "SELECT sql FROM jobs WHERE name = 'todb'")" \
    "INSERT INTO db SELECT id, LOWER(name) FROM src WHERE id > 0" "the stored statement of todb"
same "$(sqlite3 "$CAT" "SELECT key || '=' || value FROM job_settings WHERE job = 'todb'")" \
    "errors.tolerance=all" "the settings captured with todb"
same "$(sqlite3 "$CAT" "SELECT count(*) FROM job_settings WHERE job = 'fresh'")" "0" \
    "settings of fresh (after RESET)"
rsql -e "SHOW CREATE TABLE db;"
grep -qF "'sink.batch-size' = '10'" <<<"$OUT" || fail "SHOW CREATE TABLE db: $OUT"
[ "$(sqlite3 "$CAT" "SELECT created_ms FROM jobs WHERE name = 'todb'")" -gt "$todb_created" ] ||
    fail "todb was not created again"
ok "the catalog holds the edited file's tables, jobs, statements and settings"

# 4 (second half). the changed table src kept its uid, so copy resumes where it was
same "$(sqlite3 "$CAT" "SELECT uid FROM tables WHERE name = 'src'")" "$src_uid" "src's uid after the change"
rsql run copy
expect_rc 0 "run copy after the change"
same "$(wc -l <"$T/copy.jsonl")" "25" "rows copied after the change (20 before, 5 added)"
same "$(tail -5 "$T/copy.jsonl" | python3 -c 'import sys,json; print(" ".join(str(json.loads(l)["id"]) for l in sys.stdin))')" \
    "21 22 23 24 25" "the rows the second run read"
ok "a changed table keeps its saved positions: the job read only the 5 rows added since"

# 5. the secret stays a reference
same "$(sqlite3 "$CAT" "SELECT value FROM table_options WHERE table_name = 'pg' AND key = 'password'")" \
    "\${file:$T/secret}" "the stored password option"
sed -i "s|'table-name' = 'x'|'table-name' = 'y'|" "$T/jobs.sql"
sed -i "s|'password' = '\${file:$T/secret}'|'password' = 'inline-pw'|" "$T/jobs.sql"
rsql apply "$T/jobs.sql"
expect_rc 0 "apply with an inline password"
grep -qF "inline-pw" <<<"$OUT" && fail "the report shows a secret: $OUT"
grep -qxF "~ table pg: option 'table-name' 'x' -> 'y'; option 'password' '\${file:$T/secret}' -> '******'" <<<"$OUT" ||
    fail "the report of the pg change: $OUT"
ok "secrets stay references in the catalog; the report shows a reference, never a value"

# 6. bad files change nothing
before=$(dump)
bad() { # NAME EXPECTED-PLACE EXPECTED-TEXT: the file $T/bad.sql
    rsql apply "$T/bad.sql"
    expect_rc 1 "apply of a file with $1"
    grep -qF "$T/bad.sql:$2:" <<<"$ERR" || fail "$1: no place $2 in: $ERR"
    grep -qF "$3" <<<"$ERR" || fail "$1: no '$3' in: $ERR"
    grep -qF "the catalog was not changed" <<<"$ERR" || fail "$1: $ERR"
    same "$(dump)" "$before" "the catalog after a file with $1"
    ok "a file with $1 changes nothing and names $2"
}
{ head -4 "$T/jobs.sql"; echo "CREATE TABLE oops (id BIGINT WITH ('connector' = 'blackhole');"; } >"$T/bad.sql"
bad "a syntax error" "5" "syntax error"
{ head -4 "$T/jobs.sql"; echo "CREATE TABLE oops (id BIGINT) WITH ('connector' = 'blackhole', 'nope' = '1');"; } >"$T/bad.sql"
bad "an unknown option" "5" "unknown option 'nope'"
{ cat "$T/jobs.sql"; echo "CREATE JOB j2 AS INSERT INTO missing SELECT id FROM src;"; } >"$T/bad.sql"
bad "a job over an undeclared table" "$(($(wc -l <"$T/jobs.sql") + 1))" "missing"
{ cat "$T/jobs.sql"; echo "DROP TABLE src;"; } >"$T/bad.sql"
bad "a DROP statement" "$(($(wc -l <"$T/jobs.sql") + 1)):1" "a jobs file holds CREATE TABLE, CREATE JOB, SET and RESET statements only"

rsql apply
expect_rc 64 "apply without a file"
rsql apply "$T/no-such.sql"
expect_rc 64 "apply of a missing file"
echo PASS
