/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the catalog's file and schema (catalog/catalog.c, catalog_migrate.c): its
 * mode and version, reopening, refusing a newer schema, the migrations (WATERMARK columns,
 * job_runs widened for operator actions) and a table replaced in place keeping its uid.
 */
#include "config.h"
#include "catalog/rsql_catalog.h"
#include "tests/lib/cu_state.h"
#include "tests/lib/cu_catfile.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "base/rsql_mem.h"

static void test_catalog_file_mode_version_reopen(void)
{
    char path[256], wal[300];
    new_path(path, sizeof(path));
    snprintf(wal, sizeof(wal), "%s-wal", path);
    mode_t old = umask(022); /* would give 0644 if the catalog did nothing */
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        umask(old);
        return;
    }
    CU_ASSERT_STRING_EQUAL(rsql_catalog_path(cat), path);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "0", "42", &err), RSQL_OK);
    rsql_table_def_t def = mkdef("t", cols3, 3);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);

    struct stat sb;
    CU_ASSERT_EQUAL_FATAL(stat(path, &sb), 0);
    CU_ASSERT_EQUAL(sb.st_mode & 0777, 0600);
    CU_ASSERT_EQUAL_FATAL(stat(wal, &sb), 0); /* WAL mode: the -wal file exists while open */
    CU_ASSERT_EQUAL(sb.st_mode & 0777, 0600);
    umask(old);

    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 11);
    sqlite3 *db;
    sqlite3_stmt *st;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL),
                          SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
    CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
    rsql_catalog_close(cat);

    /* reopen: data kept, migration not re-run */
    cat = open_ok(path);
    if (!cat) {
        return;
    }
    char *v = NULL;
    CU_ASSERT_EQUAL(cu_offset_get(cat, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL_FATAL(v, "42");
    rsql_free(v);
    rsql_table_def_t *got = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "T", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(got);
    rsql_table_def_free(got);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_catalog_close(cat);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 11);
}

static void test_catalog_newer_version_refused(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    rsql_catalog_close(cat);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version = 99"), -1); /* no row; sets it */
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 99);

    rsql_error_t err;
    rsql_error_clear(&err);
    cat = rsql_catalog_open(path, &err);
    CU_ASSERT_PTR_NULL(cat);
    rsql_catalog_close(cat);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_CATALOG);
    char want[512];
    snprintf(want, sizeof(want),
             "cannot open catalog '%s': its schema version 99 is newer than this build "
             "supports (11); use a newer rocketsql",
             path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 99); /* untouched */
}

/* A version 9 catalog (before WATERMARK) migrates: old tables have none, new ones keep it. */
static void test_catalog_migrate_watermark(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_col_t plain[] = {{"id", RSQL_TYPE_BIGINT, true}, {"ts", RSQL_TYPE_TIMESTAMP, false}};
    rsql_table_def_t def = mkdef("old", plain, 2);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);
    rsql_catalog_close(cat);
    CU_ASSERT_EQUAL(query_int(path, "ALTER TABLE table_columns DROP COLUMN watermark"), -1);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version = 9"), -1);
    CU_ASSERT_EQUAL(query_int(path, "SELECT count(*) FROM pragma_table_info('table_columns') "
                                    "WHERE name = 'watermark'"), 0);
    cat = open_ok(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 11);
    rsql_table_def_t *got = NULL; /* migrated: no watermark */
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "old", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL_FATAL(got->n_columns, 2);
    CU_ASSERT_PTR_NULL(got->columns[1].watermark);
    rsql_table_def_free(got);
    plain[1].watermark = "ts";
    def = mkdef("new", plain, 2);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);
    got = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "new", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_STRING_EQUAL(got->columns[1].watermark, "ts");
    rsql_table_def_free(got);
    rsql_catalog_close(cat);
}

/* A replaced table keeps its uid (its positions); operator actions are rows of job_runs,
   also in a catalog migrated from version 10 (its runs kept, their ids going on). */
static void test_catalog_replace_and_actions(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_table_def_t def = mkdef("t", cols3, 4);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(query_int(path, "CREATE TABLE kept AS SELECT uid FROM tables"), -1);
    rsql_kv_t opts[] = {{"connector", "datagen"}, {"number-of-rows", "99"}};
    rsql_table_def_t def2 = {"T", "datagen", 2, cols3, 2, opts, 0};
    CU_ASSERT_EQUAL(rsql_catalog_table_replace(cat, &def2, &err), RSQL_OK);
    CU_ASSERT_EQUAL(query_int(path, "SELECT count(*) FROM tables JOIN kept USING (uid) "
                                    "WHERE name = 't'"), 1);
    rsql_table_def_t *got = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "t", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->n_columns, 2);
    CU_ASSERT_EQUAL_FATAL(got->n_options, 2);
    CU_ASSERT_STRING_EQUAL(got->options[1].value, "99");
    rsql_table_def_free(got);
    rsql_table_def_t def3 = {"none", "datagen", 2, cols3, 2, opts, 0};
    CU_ASSERT_EQUAL(rsql_catalog_table_replace(cat, &def3, &err), RSQL_ERR_UNKNOWN_NAME);

    int64_t run = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, "j", "INSERT ...", &run, &err), RSQL_OK);
    rsql_catalog_close(cat);
    /* back to version 10: job_runs with its old status check, a run of id 7 */
    CU_ASSERT_EQUAL(query_int(path, "DROP TABLE job_runs"), -1);
    CU_ASSERT_EQUAL(query_int(path,
                              "CREATE TABLE job_runs (id INTEGER PRIMARY "
                              "KEY AUTOINCREMENT, job TEXT COLLATE NOCASE, sql TEXT, start_ms "
                              "INTEGER NOT NULL, end_ms INTEGER NOT NULL DEFAULT 0, status TEXT "
                              "NOT NULL CHECK (status IN ('running', 'done', 'failed', "
                              "'interrupted')), rows_read INTEGER NOT NULL DEFAULT 0, "
                              "rows_written INTEGER NOT NULL DEFAULT 0, rows_filtered INTEGER "
                              "NOT NULL DEFAULT 0, rows_dead_lettered INTEGER NOT NULL DEFAULT "
                              "0, rows_failed INTEGER NOT NULL DEFAULT 0, error TEXT, detail "
                              "TEXT, pid INTEGER, host TEXT, hold_key TEXT, hold_until_ms "
                              "INTEGER, resumed_from TEXT)"),
                    -1);
    CU_ASSERT_EQUAL(query_int(path, "INSERT INTO job_runs(id, job, start_ms, end_ms, status, "
                                    "rows_read) VALUES (7, 'j', 1, 2, 'done', 42)"),
                    -1);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version = 10"), -1);
    cat = open_ok(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 11);
    CU_ASSERT_EQUAL(query_int(path, "SELECT rows_read FROM job_runs WHERE id = 7"), 42);
    CU_ASSERT_EQUAL(rsql_catalog_run_action(cat, "j", "stop", "{\"action\":\"stop\"}", &err),
                    RSQL_OK);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, "j", 0, &runs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_TRUE(runs[0]->id > 7);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "stop");
    CU_ASSERT_STRING_EQUAL(runs[0]->detail, "{\"action\":\"stop\"}");
    CU_ASSERT_EQUAL(runs[0]->start_ms, runs[0]->end_ms);
    CU_ASSERT_EQUAL(runs[1]->id, 7);
    rsql_job_run_array_free(runs, n);
    CU_ASSERT_NOT_EQUAL(rsql_catalog_run_action(cat, "j", "bogus", NULL, &err), RSQL_OK);
    rsql_catalog_close(cat);
}

static CU_TestInfo schema_tests[] = {
    {"test_catalog_file_mode_version_reopen", test_catalog_file_mode_version_reopen},
    {"test_catalog_newer_version_refused", test_catalog_newer_version_refused},
    {"test_catalog_migrate_watermark", test_catalog_migrate_watermark},
    {"test_catalog_replace_and_actions", test_catalog_replace_and_actions},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"catalog schema", suite_init, suite_clean, NULL, NULL, schema_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
