#!/usr/bin/env bash
# METADATA columns end to end on the local connectors: a filesystem source gives each line's
# path, byte offset and line number (blank and CRLF lines counted, a resumed job keeps
# counting from the file's start), a sqlite source each row's rowid; metadata flows into a
# sink's ordinary columns; a catalog from before METADATA columns (schema 3) migrates.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
printf '{"a":1}\n\n{"a":2}\r\n{"a":3}\n' >in.json
run_rsql -e "CREATE TABLE src (a INT, p VARCHAR METADATA FROM 'path' VIRTUAL, \"offset\" BIGINT METADATA VIRTUAL, ln BIGINT METADATA FROM 'line' VIRTUAL) WITH ('connector'='filesystem', 'path'='in.json', 'format'='json');
CREATE TABLE all_meta (a INT, p VARCHAR, o BIGINT, ln BIGINT) WITH ('connector'='filesystem', 'path'='all.csv', 'format'='csv');
INSERT INTO all_meta SELECT a, p, \"offset\", ln FROM src;"
[ "$RC" = 0 ] || fail "filesystem metadata exited $RC: $ERR"
want=$(printf '1,in.json,0,1\n2,in.json,9,3\n3,in.json,18,4')
[ "$(cat all.csv)" = "$want" ] || fail "filesystem metadata: got
$(cat all.csv)
want
$want"
ok "filesystem: path, offset and line of every line (a blank line counted, not a row)"

run_rsql -e "CREATE TABLE dst (a INT, ln BIGINT, off DOUBLE) WITH ('connector'='filesystem', 'path'='out.json', 'format'='json');
CREATE JOB j AS INSERT INTO dst SELECT a, ln, \"offset\" FROM src WHERE ln > 1;
RUN JOB j;"
[ "$RC" = 0 ] || fail "INSERT of metadata exited $RC: $ERR"
want=$(printf '{"a":2,"ln":3,"off":9.0}\n{"a":3,"ln":4,"off":18.0}')
[ "$(cat out.json)" = "$want" ] || fail "metadata into a sink: $(cat out.json)"
ok "metadata goes into a sink's columns (BIGINT offset widened to DOUBLE)"

printf '{"a":4}\n' >>in.json
run_rsql -e "RUN JOB j;"
[ "$RC" = 0 ] || fail "resumed job exited $RC: $ERR"
[ "$(tail -1 out.json)" = '{"a":4,"ln":5,"off":26.0}' ] ||
    fail "a resumed job counts lines from the file's start: $(cat out.json)"
[ "$(wc -l <out.json)" = 3 ] || fail "the resumed job wrote again what it had: $(cat out.json)"
ok "a resumed job reads on with the right line numbers"

sqlite3 s.db "CREATE TABLE x (a INTEGER, b TEXT); INSERT INTO x VALUES (1, 'p'), (2, 'q'), (3, 'r'); DELETE FROM x WHERE a = 2;"
run_rsql -e "CREATE TABLE sq (a INT, b VARCHAR, rid BIGINT METADATA FROM 'rowid' VIRTUAL) WITH ('connector'='sqlite', 'path'='s.db', 'table'='x');
CREATE TABLE sq_out (rid BIGINT, b VARCHAR) WITH ('connector'='filesystem', 'path'='sq.csv', 'format'='csv');
INSERT INTO sq_out SELECT rid, b FROM sq;"
[ "$RC" = 0 ] || fail "sqlite rowid exited $RC: $ERR"
[ "$(cat sq.csv)" = "$(printf '1,p\n3,r')" ] || fail "sqlite rowid: got $(cat sq.csv)"
ok "sqlite: the rowid METADATA column"

# a schema-3 catalog (before METADATA columns) opens, migrates, and keeps its tables
sqlite3 old.db "CREATE TABLE tables (name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, connector TEXT, created_ms INTEGER NOT NULL);
CREATE TABLE table_columns (table_name TEXT NOT NULL COLLATE NOCASE, ord INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, not_null INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, ord));
CREATE TABLE table_options (table_name TEXT NOT NULL COLLATE NOCASE, ord INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (table_name, ord));
CREATE TABLE jobs (name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, sql TEXT NOT NULL, created_ms INTEGER NOT NULL);
CREATE TABLE job_settings (job TEXT NOT NULL, ord INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (job, ord));
CREATE TABLE job_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, job TEXT, sql TEXT, start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, rows_read INTEGER NOT NULL DEFAULT 0, rows_written INTEGER NOT NULL DEFAULT 0, rows_filtered INTEGER NOT NULL DEFAULT 0, rows_dead_lettered INTEGER NOT NULL DEFAULT 0, rows_failed INTEGER NOT NULL DEFAULT 0, error TEXT, detail TEXT, pid INTEGER, host TEXT, hold_key TEXT, hold_until_ms INTEGER);
CREATE TABLE offsets (pipeline TEXT NOT NULL, partition TEXT NOT NULL, value TEXT NOT NULL, updated_ms INTEGER NOT NULL, PRIMARY KEY (pipeline, partition)) WITHOUT ROWID;
INSERT INTO tables VALUES ('old', 'datagen', 1);
INSERT INTO table_columns VALUES ('old', 0, 'a', 'INT', 0);
INSERT INTO table_options VALUES ('old', 0, 'connector', 'datagen');
PRAGMA user_version = 3;"
"$RSQL" --catalog old.db --tsv -e "DESCRIBE old" >"$T/out" 2>"$T/err" || fail "schema 3 catalog: $(cat "$T/err")"
[ "$(cat "$T/out")" = "$(printf 'a\tINT\tYES\t')" ] || fail "migrated table: $(cat "$T/out")"
[ "$(sqlite3 old.db 'PRAGMA user_version')" = 11 ] || fail "not migrated to schema 11"
ok "a schema-3 catalog migrates to the current schema (10) and keeps its tables"
