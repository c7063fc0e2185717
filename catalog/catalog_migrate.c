/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The catalog schema and its versions. PRAGMA user_version holds the number
 * of migration steps applied; steps[] below is the list of SQL scripts, step
 * i taking the schema from version i to i + 1. rsql_catalog__migrate, called
 * by rsql_catalog_open, applies the missing steps and sets user_version in
 * one BEGIN IMMEDIATE transaction (so two processes opening a fresh file at
 * once migrate it exactly once), and refuses a catalog whose version is
 * newer than this build knows. To change the schema, append a step; never
 * edit a released one.
 */
#include "config.h"
#include "catalog/catalog_int.h"

#include <stdio.h>

/*
** Version 1: the whole catalog.
**  tables/table_columns/table_options: a CREATE TABLE as written (columns
**    and options in order via ord; types as canonical rsql_type_name text).
**  jobs/job_settings: CREATE JOB's statement text and captured settings.
**  job_runs: one row per INSERT/RUN JOB (job NULL for ad-hoc INSERTs; no
**    foreign key, so history outlives a dropped job). AUTOINCREMENT keeps
**    ids unique over time, so "newest first" is ORDER BY id DESC.
**  offsets: an opaque source position per (pipeline, partition).
** Names compare case-insensitively (COLLATE NOCASE); child rows name their
** parent with the same collation and go with it (ON DELETE CASCADE).
*/
static const char *const steps[] = {
    "CREATE TABLE tables (\n"
    "  name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,\n"
    "  connector TEXT,\n"
    "  created_ms INTEGER NOT NULL\n"
    ");\n"
    "CREATE TABLE table_columns (\n"
    "  table_name TEXT NOT NULL COLLATE NOCASE REFERENCES tables(name) ON DELETE CASCADE,\n"
    "  ord INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  type TEXT NOT NULL,\n"
    "  not_null INTEGER NOT NULL DEFAULT 0,\n"
    "  PRIMARY KEY (table_name, ord)\n"
    ");\n"
    "CREATE TABLE table_options (\n"
    "  table_name TEXT NOT NULL COLLATE NOCASE REFERENCES tables(name) ON DELETE CASCADE,\n"
    "  ord INTEGER NOT NULL,\n"
    "  key TEXT NOT NULL,\n"
    "  value TEXT NOT NULL,\n"
    "  PRIMARY KEY (table_name, ord)\n"
    ");\n"
    "CREATE TABLE jobs (\n"
    "  name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,\n"
    "  sql TEXT NOT NULL,\n"
    "  created_ms INTEGER NOT NULL\n"
    ");\n"
    "CREATE TABLE job_settings (\n"
    "  job TEXT NOT NULL COLLATE NOCASE REFERENCES jobs(name) ON DELETE CASCADE,\n"
    "  ord INTEGER NOT NULL,\n"
    "  key TEXT NOT NULL,\n"
    "  value TEXT NOT NULL,\n"
    "  PRIMARY KEY (job, ord)\n"
    ");\n"
    "CREATE TABLE job_runs (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  job TEXT COLLATE NOCASE,\n"
    "  sql TEXT,\n"
    "  start_ms INTEGER NOT NULL,\n"
    "  end_ms INTEGER NOT NULL DEFAULT 0,\n"
    "  status TEXT NOT NULL\n"
    "    CHECK (status IN ('running', 'done', 'failed', 'interrupted')),\n"
    "  rows_read INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_written INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_filtered INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_dead_lettered INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_failed INTEGER NOT NULL DEFAULT 0,\n"
    "  error TEXT,\n"
    "  detail TEXT\n"
    ");\n"
    "CREATE INDEX job_runs_by_job ON job_runs(job, id);\n"
    "CREATE TABLE offsets (\n"
    "  pipeline TEXT NOT NULL,\n"
    "  partition TEXT NOT NULL,\n"
    "  value TEXT NOT NULL,\n"
    "  updated_ms INTEGER NOT NULL,\n"
    "  PRIMARY KEY (pipeline, partition)\n"
    ") WITHOUT ROWID;\n",
    /* 2: the process that runs a job, so a run whose process died (kill -9)
       can be told apart from one still running */
    "ALTER TABLE job_runs ADD COLUMN pid INTEGER;\n"
    "ALTER TABLE job_runs ADD COLUMN host TEXT;\n",
    /* 3: what a run may leave invisible to the next one (a RocketMQ consumer's held messages:
       visible again only after their invisible duration): the key of what it shares with
       later runs (its consumer group) and until when, so a bounded run after an interrupted
       or failed one does not end before that run's messages can be seen again */
    "ALTER TABLE job_runs ADD COLUMN hold_key TEXT;\n"
    "ALTER TABLE job_runs ADD COLUMN hold_until_ms INTEGER;\n"
    "CREATE INDEX job_runs_by_hold ON job_runs(hold_key, id);\n",
    /* 4: METADATA columns (CREATE TABLE ... METADATA [FROM 'key'] [VIRTUAL]): metadata = 1
       for one, meta_from its FROM key as written (NULL: the column's name is the key) */
    "ALTER TABLE table_columns ADD COLUMN metadata INTEGER NOT NULL DEFAULT 0;\n"
    "ALTER TABLE table_columns ADD COLUMN meta_from TEXT;\n"
    "ALTER TABLE table_columns ADD COLUMN is_virtual INTEGER NOT NULL DEFAULT 0;\n",
    /* 5: PRIMARY KEY (col, ...) NOT ENFORCED: a column's position in the table's key (from
       1; NULL = not in it), the key of an upsert sink */
    "ALTER TABLE table_columns ADD COLUMN pk_ord INTEGER;\n",
    /* 6: positions belong to the tables as created. uid: a random id given at CREATE TABLE
       (NULL for a table created before), part of the key a statement's positions are kept
       under (rsql_catalog_position_key), so a dropped and re-created table starts over, and
       its positions go with it; position_epochs: how often a pipeline's positions were
       forgotten (RESET POSITIONS, run --from-start), also part of the key, so an
       exactly-once sink's positions (kept in the sink under the same key) are forgotten too;
       job_runs.resumed_from: where a run resumed (NULL: from the start) */
    "ALTER TABLE tables ADD COLUMN uid TEXT;\n"
    "ALTER TABLE job_runs ADD COLUMN resumed_from TEXT;\n"
    "CREATE TABLE position_epochs (\n"
    "  pipeline TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,\n"
    "  epoch INTEGER NOT NULL\n"
    ") WITHOUT ROWID;\n"
    "CREATE TRIGGER tables_forget_positions AFTER DELETE ON tables WHEN old.uid IS NOT NULL\n"
    "BEGIN\n"
    "  DELETE FROM offsets WHERE instr(pipeline, '@' || old.uid || '.') > 0\n"
    "    OR instr(pipeline, '.' || old.uid) > 0;\n"
    "END;\n",
    /* 7: computed columns (name AS expr): the expression as written (NULL: not computed);
       type holds the expression's type */
    "ALTER TABLE table_columns ADD COLUMN expr TEXT;\n",
    /* 8: the state of stateful statements (deduplication): per pipeline key (the key its
       positions are kept under, so it is forgotten with them), a value per state key, both
       rsql_value_pack bytes, and when it was written (table.exec.state.ttl); written in the
       transaction that saves the positions it goes with */
    "CREATE TABLE state (\n"
    "  pipeline TEXT NOT NULL COLLATE NOCASE,\n"
    "  key BLOB NOT NULL,\n"
    "  value BLOB NOT NULL,\n"
    "  written_ms INTEGER NOT NULL,\n"
    "  PRIMARY KEY (pipeline, key)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TRIGGER tables_forget_state AFTER DELETE ON tables WHEN old.uid IS NOT NULL\n"
    "BEGIN\n"
    "  DELETE FROM state WHERE instr(pipeline, '@' || old.uid || '.') > 0\n"
    "    OR instr(pipeline, '.' || old.uid) > 0;\n"
    "END;\n",
    /* 9: the state keyed by a number per pipeline key (state_pipelines) instead of the key's
       text in every row: a third of the bytes a row, and integer compares in its B-tree */
    "CREATE TABLE state_pipelines (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  pipeline TEXT NOT NULL UNIQUE COLLATE NOCASE\n"
    ");\n"
    "INSERT INTO state_pipelines(pipeline) SELECT DISTINCT pipeline FROM state;\n"
    "CREATE TABLE state_v9 (\n"
    "  pipe INTEGER NOT NULL,\n"
    "  key BLOB NOT NULL,\n"
    "  value BLOB NOT NULL,\n"
    "  written_ms INTEGER NOT NULL,\n"
    "  PRIMARY KEY (pipe, key)\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO state_v9 SELECT p.id, s.key, s.value, s.written_ms\n"
    "  FROM state s JOIN state_pipelines p ON p.pipeline = s.pipeline;\n"
    "DROP TRIGGER tables_forget_state;\n"
    "DROP TABLE state;\n"
    "ALTER TABLE state_v9 RENAME TO state;\n"
    "CREATE TRIGGER state_pipelines_forget AFTER DELETE ON state_pipelines\n"
    "BEGIN\n"
    "  DELETE FROM state WHERE pipe = old.id;\n"
    "END;\n"
    "CREATE TRIGGER tables_forget_state AFTER DELETE ON tables WHEN old.uid IS NOT NULL\n"
    "BEGIN\n"
    "  DELETE FROM state_pipelines WHERE instr(pipeline, '@' || old.uid || '.') > 0\n"
    "    OR instr(pipeline, '.' || old.uid) > 0;\n"
    "END;\n",
    /* 10: WATERMARK FOR col AS expr: on the event-time column, the expression as written
       (NULL: not the table's event-time column) */
    "ALTER TABLE table_columns ADD COLUMN watermark TEXT;\n",
    /* 11: what an operator did to a served job through its control API (POST
       /jobs/NAME/stop|start|restart) is a row of job_runs too, its status the action's name
       and its detail who asked: the status check widened (SQLite rebuilds a table for that) */
    "CREATE TABLE job_runs_v11 (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  job TEXT COLLATE NOCASE,\n"
    "  sql TEXT,\n"
    "  start_ms INTEGER NOT NULL,\n"
    "  end_ms INTEGER NOT NULL DEFAULT 0,\n"
    "  status TEXT NOT NULL\n"
    "    CHECK (status IN ('running', 'done', 'failed', 'interrupted', 'stop', 'start',\n"
    "                      'restart')),\n"
    "  rows_read INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_written INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_filtered INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_dead_lettered INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_failed INTEGER NOT NULL DEFAULT 0,\n"
    "  error TEXT,\n"
    "  detail TEXT,\n"
    "  pid INTEGER,\n"
    "  host TEXT,\n"
    "  hold_key TEXT,\n"
    "  hold_until_ms INTEGER,\n"
    "  resumed_from TEXT\n"
    ");\n"
    "INSERT INTO job_runs_v11 SELECT id, job, sql, start_ms, end_ms, status, rows_read,\n"
    "  rows_written, rows_filtered, rows_dead_lettered, rows_failed, error, detail, pid, host,\n"
    "  hold_key, hold_until_ms, resumed_from FROM job_runs;\n"
    "UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(seq), 0) FROM\n"
    "  sqlite_sequence WHERE name = 'job_runs')) WHERE name = 'job_runs_v11';\n"
    "DROP TABLE job_runs;\n"
    "ALTER TABLE job_runs_v11 RENAME TO job_runs;\n"
    "CREATE INDEX job_runs_by_job ON job_runs(job, id);\n"
    "CREATE INDEX job_runs_by_hold ON job_runs(hold_key, id);\n",
};

#define N_STEPS ((int)(sizeof(steps) / sizeof(steps[0])))

static rsql_err_t read_version(rsql_catalog_t *cat, int *version, rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, "PRAGMA user_version", &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        *version = sqlite3_column_int(st, 0);
    } else {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    return rc;
}

static rsql_err_t too_new(rsql_catalog_t *cat, int version, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_CATALOG, RSQL_NOPOS,
                          "cannot open catalog '%s': its schema version %d is newer than this "
                          "build supports (%d); use a newer rocketsql",
                          cat->path, version, N_STEPS);
}

/* Run every statement of a constant script, one prepared statement at a time. */
static rsql_err_t run_script(rsql_catalog_t *cat, const char *sql, rsql_error_t *err)
{
    while (sql && *sql) {
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        int src = sqlite3_prepare_v2(cat->db, sql, -1, &st, &tail);
        if (src != SQLITE_OK) {
            return rsql_catalog__sqlerr(cat, src, err);
        }
        if (!st) { /* only whitespace or comments left */
            break;
        }
        src = sqlite3_step(st);
        if (src != SQLITE_DONE && src != SQLITE_ROW) {
            rsql_err_t rc = rsql_catalog__sqlerr(cat, src, err);
            sqlite3_finalize(st);
            return rc;
        }
        sqlite3_finalize(st);
        sql = tail;
    }
    return RSQL_OK;
}

/*
** Bring the schema to N_STEPS. A catalog already current is only read (so a
** read-only file still opens); otherwise the steps run under BEGIN
** IMMEDIATE, re-reading the version inside the transaction in case another
** process migrated first. A newer version is refused (RSQL_ERR_CATALOG).
*/
rsql_err_t rsql_catalog__migrate(rsql_catalog_t *cat, rsql_error_t *err)
{
    int version = 0;
    rsql_err_t rc = read_version(cat, &version, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (version > N_STEPS) {
        return too_new(cat, version, err);
    }
    if (version == N_STEPS) {
        return RSQL_OK;
    }
    if ((rc = rsql_catalog__exec(cat, "BEGIN IMMEDIATE", err)) != RSQL_OK) {
        return rc;
    }
    rc = read_version(cat, &version, err);
    if (rc == RSQL_OK && version > N_STEPS) {
        rc = too_new(cat, version, err);
    }
    for (int i = version; rc == RSQL_OK && i < N_STEPS; i++) {
        rc = run_script(cat, steps[i], err);
    }
    if (rc == RSQL_OK && version < N_STEPS) {
        /* PRAGMA takes no parameters; the number is this build's constant */
        char sql[64];
        snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", N_STEPS);
        rc = rsql_catalog__exec(cat, sql, err);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, RSQL_CATALOG_TX_TOP, rc == RSQL_OK, err);
    return rc != RSQL_OK ? rc : erc;
}
