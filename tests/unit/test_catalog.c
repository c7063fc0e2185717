/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the catalog (catalog/): tables, jobs, job runs, offsets,
 * caller transactions, and several connections and processes writing one
 * file at once (the file's mode and schema: test_catalog_schema.c). Every
 * test works in a fresh file under a mkdtemp directory.
 */
#include "config.h"
#include "catalog/rsql_catalog.h"
#include "tests/lib/cu_state.h"
#include "tests/lib/cu_catfile.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "base/rsql_mem.h"

/* ------------------------------------------------------------------ tables */

static void test_catalog_table_roundtrip(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_table_def_t def = mkdef("Orders", cols3, 4);
    def.created_ms = 1234;
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);

    rsql_table_def_t *got = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "ORDERS", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_STRING_EQUAL(got->name, "Orders"); /* stored as written */
    CU_ASSERT_STRING_EQUAL(got->connector, "datagen");
    CU_ASSERT_EQUAL(got->created_ms, 1234);
    CU_ASSERT_EQUAL_FATAL(got->n_columns, 4);
    CU_ASSERT_STRING_EQUAL(got->columns[0].name, "id");
    CU_ASSERT_EQUAL(got->columns[0].type, RSQL_TYPE_BIGINT);
    CU_ASSERT_TRUE(got->columns[0].not_null);
    CU_ASSERT_STRING_EQUAL(got->columns[1].name, "name");
    CU_ASSERT_EQUAL(got->columns[1].type, RSQL_TYPE_VARCHAR);
    CU_ASSERT_FALSE(got->columns[1].not_null);
    CU_ASSERT_STRING_EQUAL(got->columns[2].name, "ts");
    CU_ASSERT_EQUAL(got->columns[2].type, RSQL_TYPE_TIMESTAMP);
    CU_ASSERT_FALSE(got->columns[0].metadata);
    CU_ASSERT_PTR_NULL(got->columns[0].meta_from);
    CU_ASSERT_PTR_NULL(rsql_col_meta_key(&got->columns[0]));
    CU_ASSERT_TRUE(got->columns[2].metadata);
    CU_ASSERT_TRUE(got->columns[2].is_virtual);
    CU_ASSERT_STRING_EQUAL(got->columns[2].meta_from, "born_timestamp");
    CU_ASSERT_STRING_EQUAL(rsql_col_meta_key(&got->columns[2]), "born_timestamp");
    CU_ASSERT_PTR_NULL(got->columns[2].expr);
    CU_ASSERT_STRING_EQUAL(got->columns[2].watermark, "ts - INTERVAL '5' SECOND");
    CU_ASSERT_PTR_NULL(got->columns[0].watermark);
    CU_ASSERT_PTR_NULL(got->columns[3].watermark);
    CU_ASSERT_STRING_EQUAL(got->columns[3].name, "twice"); /* a computed column, as written */
    CU_ASSERT_EQUAL(got->columns[3].type, RSQL_TYPE_BIGINT);
    CU_ASSERT_FALSE(got->columns[3].metadata);
    CU_ASSERT_STRING_EQUAL(got->columns[3].expr, "id * 2");
    CU_ASSERT_EQUAL_FATAL(got->n_options, 3);
    CU_ASSERT_STRING_EQUAL(got->options[0].key, "connector");
    CU_ASSERT_STRING_EQUAL(got->options[1].key, "number-of-rows");
    CU_ASSERT_STRING_EQUAL(got->options[1].value, "10");
    CU_ASSERT_STRING_EQUAL(got->options[2].key, "a-last-but-not-sorted");
    rsql_table_def_free(got);

    /* unknown table: NULL, not an error */
    got = (rsql_table_def_t *)&def;
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "nope", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(got);

    /* types are stored as canonical names */
    sqlite3 *db;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    CU_ASSERT_EQUAL(sqlite3_prepare_v2(db, "SELECT group_concat(type, ',') FROM "
                                           "(SELECT type FROM table_columns ORDER BY ord)",
                                       -1, &st, NULL),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
    CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), "BIGINT,VARCHAR,TIMESTAMP(3),BIGINT");
    sqlite3_finalize(st);
    sqlite3_close(db);

    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_catalog_close(cat);
}

static void test_catalog_table_exists_list_drop(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_table_def_t def = mkdef("orders", cols3, 3);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);

    /* same name in another case: EXISTS with the name as given */
    rsql_table_def_t again = mkdef("ORDERS", cols3, 1);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &again, false, &err), RSQL_ERR_EXISTS);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_EXISTS);
    CU_ASSERT_STRING_EQUAL(err.msg, "table 'ORDERS' already exists");
    CU_ASSERT_EQUAL(err.pos.off, RSQL_POS_NONE);

    /* IF NOT EXISTS: OK and the old definition stays */
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &again, true, &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_table_def_t *got = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "orders", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->n_columns, 3);
    rsql_table_def_free(got);

    rsql_table_def_t b = mkdef("b_tab", cols3, 2), a = mkdef("A_tab", NULL, 0);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &b, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &a, false, &err), RSQL_OK);
    char **names = NULL;
    int n = -1;
    CU_ASSERT_EQUAL(rsql_catalog_table_list(cat, &names, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(names[0], "A_tab");
    CU_ASSERT_STRING_EQUAL(names[1], "b_tab");
    CU_ASSERT_STRING_EQUAL(names[2], "orders");
    rsql_strv_free(names, n);

    /* a table without columns reads back with none */
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "a_TAB", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->n_columns, 0);
    CU_ASSERT_PTR_NULL(got->columns);
    rsql_table_def_free(got);

    bool dropped = false;
    CU_ASSERT_EQUAL(rsql_catalog_table_drop(cat, "ORDERS", &dropped, &err), RSQL_OK);
    CU_ASSERT_TRUE(dropped);
    CU_ASSERT_EQUAL(rsql_catalog_table_drop(cat, "orders", &dropped, &err), RSQL_OK);
    CU_ASSERT_FALSE(dropped);
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "orders", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(got);

    /* columns and options went with it: re-creating with fewer columns shows only those */
    rsql_table_def_t re = mkdef("Orders", cols3 + 1, 1);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &re, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_table_get(cat, "orders", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL_FATAL(got->n_columns, 1);
    CU_ASSERT_STRING_EQUAL(got->columns[0].name, "name");
    CU_ASSERT_EQUAL(got->n_options, 3);
    rsql_table_def_free(got);

    /* empty list */
    CU_ASSERT_EQUAL(rsql_catalog_table_drop(cat, "orders", NULL, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_table_drop(cat, "a_tab", NULL, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_table_drop(cat, "b_tab", NULL, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_table_list(cat, &names, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NULL(names);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_catalog_close(cat);
}

/* ------------------------------------------------------------------ jobs */

static void test_catalog_jobs(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_kv_t settings[] = {{"pipeline.batch-size", "500"}, {"errors.tolerance", "all"}};
    rsql_job_def_t j = {"nightly", "INSERT INTO s SELECT * FROM t", 2, settings, 77};
    rsql_job_def_t k = {"Adhoc", "INSERT INTO s SELECT a FROM t", 0, NULL, 0};
    CU_ASSERT_EQUAL(rsql_catalog_job_create(cat, &j, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_job_create(cat, &k, false, &err), RSQL_OK);

    rsql_job_def_t dup = {"j", "x", 0, NULL, 0};
    CU_ASSERT_EQUAL(rsql_catalog_job_create(cat, &dup, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_job_create(cat, &dup, false, &err), RSQL_ERR_EXISTS);
    CU_ASSERT_STRING_EQUAL(err.msg, "job 'j' already exists");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_catalog_job_create(cat, &dup, true, &err), RSQL_OK);

    rsql_job_def_t *got = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_job_get(cat, "NIGHTLY", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_STRING_EQUAL(got->name, "nightly");
    CU_ASSERT_STRING_EQUAL(got->sql, "INSERT INTO s SELECT * FROM t");
    CU_ASSERT_EQUAL(got->created_ms, 77);
    CU_ASSERT_EQUAL_FATAL(got->n_settings, 2);
    CU_ASSERT_STRING_EQUAL(got->settings[0].key, "pipeline.batch-size");
    CU_ASSERT_STRING_EQUAL(got->settings[0].value, "500");
    CU_ASSERT_STRING_EQUAL(got->settings[1].key, "errors.tolerance");
    CU_ASSERT_STRING_EQUAL(got->settings[1].value, "all");
    rsql_job_def_free(got);
    CU_ASSERT_EQUAL(rsql_catalog_job_get(cat, "none", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(got);

    rsql_job_def_t **jobs = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(rsql_catalog_job_list(cat, &jobs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(jobs[0]->name, "Adhoc");
    CU_ASSERT_EQUAL(jobs[0]->n_settings, 0);
    CU_ASSERT_TRUE(jobs[0]->created_ms > 0); /* 0 means now */
    CU_ASSERT_STRING_EQUAL(jobs[1]->name, "j");
    CU_ASSERT_STRING_EQUAL(jobs[2]->name, "nightly");
    CU_ASSERT_EQUAL(jobs[2]->n_settings, 2);
    rsql_job_def_array_free(jobs, n);

    bool dropped = false;
    CU_ASSERT_EQUAL(rsql_catalog_job_drop(cat, "Nightly", &dropped, &err), RSQL_OK);
    CU_ASSERT_TRUE(dropped);
    CU_ASSERT_EQUAL(rsql_catalog_job_drop(cat, "nightly", &dropped, &err), RSQL_OK);
    CU_ASSERT_FALSE(dropped);
    /* settings cascaded: re-create without settings reads back none */
    rsql_job_def_t j2 = {"NIGHTLY", "INSERT INTO s SELECT 1 FROM t", 0, NULL, 0};
    CU_ASSERT_EQUAL(rsql_catalog_job_create(cat, &j2, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_job_get(cat, "nightly", &got, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->n_settings, 0);
    CU_ASSERT_STRING_EQUAL(got->name, "NIGHTLY");
    rsql_job_def_free(got);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_catalog_close(cat);
}

/* ------------------------------------------------------------------ runs */

static void test_catalog_runs(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    int64_t r1 = 0, r2 = 0, r3 = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, "j1", "INSERT 1", &r1, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, NULL, "INSERT adhoc", &r2, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, "J1", "INSERT 3", &r3, &err), RSQL_OK);
    CU_ASSERT_TRUE(r1 > 0 && r2 > r1 && r3 > r2);

    rsql_job_counts_t c = {10, 7, 2, 1, 0};
    CU_ASSERT_EQUAL(rsql_catalog_run_progress(cat, r1, &c, "{\"lite\":[\"a\"]}", &err), RSQL_OK);
    rsql_job_run_t *run = NULL;
    CU_ASSERT_EQUAL(cu_run_get(cat, r1, &run, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_STRING_EQUAL(run->status, "running");
    CU_ASSERT_EQUAL(run->end_ms, 0);
    CU_ASSERT_TRUE(run->start_ms > 0);
    CU_ASSERT_EQUAL(run->counts.read, 10);
    CU_ASSERT_EQUAL(run->counts.written, 7);
    CU_ASSERT_EQUAL(run->counts.filtered, 2);
    CU_ASSERT_EQUAL(run->counts.dead_lettered, 1);
    CU_ASSERT_STRING_EQUAL(run->detail, "{\"lite\":[\"a\"]}");
    CU_ASSERT_PTR_NULL(run->error);
    rsql_job_run_free(run);

    /* end: detail NULL keeps the last one; error stored */
    rsql_job_counts_t fin = {20, 15, 3, 1, 1};
    CU_ASSERT_EQUAL(
        rsql_catalog_run_end(cat, r1, "failed", &fin, "sink error: disk full", NULL, &err),
        RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_end(cat, r2, "done", NULL, NULL, NULL, &err), RSQL_OK);

    rsql_job_run_t **runs = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, NULL, 0, &runs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(runs[0]->id, r3); /* newest first */
    CU_ASSERT_EQUAL(runs[1]->id, r2);
    CU_ASSERT_EQUAL(runs[2]->id, r1);
    CU_ASSERT_PTR_NULL(runs[1]->job);
    CU_ASSERT_STRING_EQUAL(runs[1]->sql, "INSERT adhoc");
    CU_ASSERT_STRING_EQUAL(runs[1]->status, "done");
    CU_ASSERT_EQUAL(runs[1]->counts.read, 0);
    CU_ASSERT_STRING_EQUAL(runs[2]->status, "failed");
    CU_ASSERT_STRING_EQUAL(runs[2]->error, "sink error: disk full");
    CU_ASSERT_STRING_EQUAL(runs[2]->detail, "{\"lite\":[\"a\"]}");
    CU_ASSERT_EQUAL(runs[2]->counts.read, 20);
    CU_ASSERT_EQUAL(runs[2]->counts.failed, 1);
    CU_ASSERT_TRUE(runs[2]->end_ms >= runs[2]->start_ms);
    rsql_job_run_array_free(runs, n);

    /* filter case-insensitively, and limit */
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, "j1", 0, &runs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(runs[0]->id, r3);
    CU_ASSERT_STRING_EQUAL(runs[0]->job, "J1");
    CU_ASSERT_EQUAL(runs[1]->id, r1);
    rsql_job_run_array_free(runs, n);
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, "J1", 1, &runs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(runs[0]->id, r3);
    rsql_job_run_array_free(runs, n);
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, "other", 0, &runs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NULL(runs);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);

    /* errors */
    CU_ASSERT_EQUAL(rsql_catalog_run_progress(cat, 999, &c, NULL, &err), RSQL_ERR_UNKNOWN_NAME);
    CU_ASSERT_STRING_EQUAL(err.msg, "no job run 999");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_catalog_run_end(cat, r3, "running", NULL, NULL, NULL, &err),
                    RSQL_ERR_INTERNAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "catalog: invalid final job run status 'running'");
    CU_ASSERT_EQUAL(cu_run_get(cat, 999, &run, NULL), RSQL_OK);
    CU_ASSERT_PTR_NULL(run);
    rsql_catalog_close(cat);
}

/* ------------------------------------------------------------------ offsets */

static void test_catalog_offsets(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    char *v = (char *)"x";
    CU_ASSERT_EQUAL(cu_offset_get(cat, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(v);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "0", "100", &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "1", "7", &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "q", "0", "5", &err), RSQL_OK);
    CU_ASSERT_EQUAL(cu_offset_get(cat, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(v, "100");
    rsql_free(v);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "0", "250", &err), RSQL_OK);
    CU_ASSERT_EQUAL(cu_offset_get(cat, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(v, "250");
    rsql_free(v);
    /* pipelines are distinct (and case-sensitive: they are opaque keys) */
    CU_ASSERT_EQUAL(cu_offset_get(cat, "P", "0", &v, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(v);

    rsql_kv_t *kv = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(rsql_catalog_offset_list(cat, "p", &kv, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(kv[0].key, "0");
    CU_ASSERT_STRING_EQUAL(kv[0].value, "250");
    CU_ASSERT_STRING_EQUAL(kv[1].key, "1");
    CU_ASSERT_STRING_EQUAL(kv[1].value, "7");
    rsql_kv_array_free(kv, n);

    int deleted = -1;
    CU_ASSERT_EQUAL(rsql_catalog_offset_delete(cat, "p", "1", &deleted, &err), RSQL_OK);
    CU_ASSERT_EQUAL(deleted, 1);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "0", NULL, &err), RSQL_OK); /* deletes */
    CU_ASSERT_EQUAL(rsql_catalog_offset_list(cat, "p", &kv, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NULL(kv);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "q", "1", "6", &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_offset_delete(cat, "q", NULL, &deleted, &err), RSQL_OK);
    CU_ASSERT_EQUAL(deleted, 2);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_catalog_close(cat);
}

/* ------------------------------------------------------------------ file, version, reopen */

static void test_catalog_open_errors(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_catalog_open("/nonexistent-rsql-dir/x.db", &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_CATALOG);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "cannot open catalog '/nonexistent-rsql-dir/x.db': unable to open "
                           "database file");
    CU_ASSERT_EQUAL(err.pos.off, RSQL_POS_NONE);

    /* not a database */
    char path[256];
    new_path(path, sizeof(path));
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("this is not a sqlite database, just some text that is long enough\n", f);
    for (int i = 0; i < 100; i++) {
        fputs("padding padding padding padding padding padding padding padding\n", f);
    }
    fclose(f);
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_catalog_open(path, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_CATALOG);
    char want[512];
    snprintf(want, sizeof(want), "cannot open catalog '%s': file is not a database", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);

    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_catalog_open("", &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "cannot open catalog '': empty path");
    CU_ASSERT_PTR_NULL(rsql_catalog_open(NULL, NULL));
}

static void test_catalog_default_path(void)
{
    const char *saved = getenv("ROCKETSQL_CATALOG");
    char *copy = saved ? rsql_strdup(saved) : NULL;
    setenv("ROCKETSQL_CATALOG", "/env/cat.db", 1);
    CU_ASSERT_STRING_EQUAL(rsql_catalog_default_path("/flag.db"), "/flag.db");
    CU_ASSERT_STRING_EQUAL(rsql_catalog_default_path(NULL), "/env/cat.db");
    setenv("ROCKETSQL_CATALOG", "", 1);
    CU_ASSERT_STRING_EQUAL(rsql_catalog_default_path(NULL), "./rocketsql.db");
    unsetenv("ROCKETSQL_CATALOG");
    CU_ASSERT_STRING_EQUAL(rsql_catalog_default_path(NULL), "./rocketsql.db");
    if (copy) {
        setenv("ROCKETSQL_CATALOG", copy, 1);
        rsql_free(copy);
    }
}

static void test_catalog_memory(void)
{
    rsql_catalog_t *cat = open_ok(":memory:");
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_table_def_t def = mkdef("m", cols3, 3);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);
    char **names;
    int n;
    CU_ASSERT_EQUAL(rsql_catalog_table_list(cat, &names, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 1);
    rsql_strv_free(names, n);
    rsql_catalog_close(cat);
}

/* ------------------------------------------------------------------ transactions */

static void test_catalog_transactions(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    char *v = NULL;

    CU_ASSERT_EQUAL(rsql_catalog_begin(cat, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_begin(cat, &err), RSQL_ERR_INTERNAL);
    char want[512];
    snprintf(want, sizeof(want), "catalog '%s': a transaction is already open", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "0", "1", &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_rollback(cat, &err), RSQL_OK);
    CU_ASSERT_EQUAL(cu_offset_get(cat, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(v);

    /* a failing call inside the transaction undoes only itself */
    rsql_table_def_t def = mkdef("t", cols3, 3);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_begin(cat, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(cat, "p", "0", "2", &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def, false, &err), RSQL_ERR_EXISTS);
    rsql_error_clear(&err);
    rsql_table_def_t def2 = mkdef("u", cols3, 2);
    CU_ASSERT_EQUAL(rsql_catalog_table_create(cat, &def2, false, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_commit(cat, &err), RSQL_OK);
    CU_ASSERT_EQUAL(cu_offset_get(cat, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL_FATAL(v, "2");
    rsql_free(v);
    char **names;
    int n;
    CU_ASSERT_EQUAL(rsql_catalog_table_list(cat, &names, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 2);
    rsql_strv_free(names, n);

    CU_ASSERT_EQUAL(rsql_catalog_commit(cat, &err), RSQL_ERR_INTERNAL);
    CU_ASSERT_EQUAL(rsql_catalog_rollback(cat, NULL), RSQL_OK); /* none open: no-op */
    rsql_catalog_close(cat);
}

/* ------------------------------------------------------------------ concurrency */

static void test_catalog_busy_error(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *a = open_ok(path), *b = open_ok(path);
    if (!a || !b) {
        rsql_catalog_close(a);
        rsql_catalog_close(b);
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_catalog_begin(a, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(a, "p", "0", "1", &err), RSQL_OK);
    rsql_catalog_set_busy_timeout(b, 50);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(b, "p", "1", "1", &err), RSQL_ERR_BUSY);
    char want[512];
    snprintf(want, sizeof(want), "catalog '%s': database is locked", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_TRUE(rsql_error_retriable(&err));
    /* readers are not blocked by a writer in WAL mode */
    rsql_error_clear(&err);
    char *v = (char *)"x";
    CU_ASSERT_EQUAL(cu_offset_get(b, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_PTR_NULL(v); /* a's write is not committed yet */
    CU_ASSERT_EQUAL(rsql_catalog_commit(a, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_offset_put(b, "p", "1", "1", &err), RSQL_OK);
    CU_ASSERT_EQUAL(cu_offset_get(b, "p", "0", &v, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(v, "1");
    rsql_free(v);
    rsql_catalog_close(a);
    rsql_catalog_close(b);
}

/* Write 200 offsets and 200 runs (with a table get in between) as writer id. */
static int writer(rsql_catalog_t *cat, int id)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    char pipeline[16], part[16], val[16];
    snprintf(pipeline, sizeof(pipeline), "w%d", id);
    for (int i = 0; i < 200; i++) {
        int64_t run;
        snprintf(part, sizeof(part), "%d", i);
        snprintf(val, sizeof(val), "%d", i * 10);
        rsql_job_counts_t c = {i, i, 0, 0, 0};
        if (rsql_catalog_offset_put(cat, pipeline, part, val, &err) != RSQL_OK ||
            rsql_catalog_run_begin(cat, pipeline, "INSERT", &run, &err) != RSQL_OK ||
            rsql_catalog_run_end(cat, run, "done", &c, NULL, NULL, &err) != RSQL_OK) {
            fprintf(stderr, "writer %d: %s\n", id, err.msg);
            return 1;
        }
        if (i % 50 == 0) {
            rsql_table_def_t def = mkdef(pipeline, cols3, 3);
            rsql_table_def_t *got = NULL;
            if (rsql_catalog_table_create(cat, &def, true, &err) != RSQL_OK ||
                rsql_catalog_table_get(cat, pipeline, &got, &err) != RSQL_OK || !got) {
                fprintf(stderr, "writer %d: %s\n", id, err.msg);
                return 1;
            }
            rsql_table_def_free(got);
        }
    }
    return 0;
}

/* Every writer's 200 offsets and 200 runs are there. */
static void check_writers(const char *path, int nwriters)
{
    rsql_catalog_t *cat = open_ok(path);
    if (!cat) {
        return;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    for (int id = 0; id < nwriters; id++) {
        char pipeline[16];
        snprintf(pipeline, sizeof(pipeline), "w%d", id);
        rsql_kv_t *kv;
        int n;
        CU_ASSERT_EQUAL(rsql_catalog_offset_list(cat, pipeline, &kv, &n, &err), RSQL_OK);
        CU_ASSERT_EQUAL(n, 200);
        rsql_kv_array_free(kv, n);
        rsql_job_run_t **runs;
        CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, pipeline, 0, &runs, &n, &err), RSQL_OK);
        CU_ASSERT_EQUAL(n, 200);
        for (int i = 0; i < n; i++) {
            CU_ASSERT_STRING_EQUAL(runs[i]->status, "done");
            CU_ASSERT_EQUAL(runs[i]->counts.read, 199 - i);
        }
        rsql_job_run_array_free(runs, n);
    }
    char **names;
    int n;
    CU_ASSERT_EQUAL(rsql_catalog_table_list(cat, &names, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, nwriters);
    rsql_strv_free(names, n);
    CU_ASSERT_EQUAL(err.code, RSQL_OK);
    rsql_catalog_close(cat);
}

static void test_catalog_two_connections(void)
{
    char path[256];
    new_path(path, sizeof(path));
    rsql_catalog_t *a = open_ok(path), *b = open_ok(path);
    if (a && b) {
        /* interleaved in one thread: each call commits, so neither blocks the other */
        rsql_error_t err;
        rsql_error_clear(&err);
        for (int i = 0; i < 200; i++) {
            char part[16];
            snprintf(part, sizeof(part), "%d", i);
            CU_ASSERT_EQUAL(rsql_catalog_offset_put(a, "w0", part, "1", &err), RSQL_OK);
            CU_ASSERT_EQUAL(rsql_catalog_offset_put(b, "w1", part, "1", &err), RSQL_OK);
        }
        rsql_kv_t *kv;
        int n;
        CU_ASSERT_EQUAL(rsql_catalog_offset_list(a, "w1", &kv, &n, &err), RSQL_OK);
        CU_ASSERT_EQUAL(n, 200);
        rsql_kv_array_free(kv, n);
    }
    rsql_catalog_close(a);
    rsql_catalog_close(b);
}

static void test_catalog_two_processes(void)
{
    enum { NPROC = 3 };
    char path[256];
    new_path(path, sizeof(path));
    /* the children create and migrate the fresh file at the same moment */
    pid_t pids[NPROC];
    for (int id = 0; id < NPROC; id++) {
        fflush(NULL);
        pids[id] = fork();
        CU_ASSERT_FATAL(pids[id] >= 0);
        if (pids[id] == 0) {
            rsql_error_t err;
            rsql_error_clear(&err);
            rsql_catalog_t *cat = rsql_catalog_open(path, &err);
            if (!cat) {
                fprintf(stderr, "child %d: %s\n", id, err.msg);
                exit(1);
            }
            int rc = writer(cat, id);
            rsql_catalog_close(cat);
            exit(rc);
        }
    }
    for (int id = 0; id < NPROC; id++) {
        int status = -1;
        CU_ASSERT_EQUAL(waitpid(pids[id], &status, 0), pids[id]);
        CU_ASSERT_TRUE(WIFEXITED(status));
        CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
    }
    check_writers(path, NPROC);
    CU_ASSERT_EQUAL(query_int(path, "PRAGMA user_version"), 11);
}

/* A run whose process died without ending it is shown "interrupted", not "running". */
static void test_catalog_run_of_dead_process(void)
{
    char path[256];
    new_path(path, sizeof(path));
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        rsql_catalog_t *cat = rsql_catalog_open(path, NULL);
        int64_t id = 0;
        if (!cat || rsql_catalog_run_begin(cat, "j", "INSERT ...", &id, NULL) != RSQL_OK) {
            _exit(1);
        }
        _exit(0); /* as if killed: no run_end, no close */
    }
    int status = -1;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_catalog_t *cat = rsql_catalog_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    int64_t mine = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, "k", "INSERT ...", &mine, &err), RSQL_OK);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, NULL, 0, &runs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    /* newest first: ours is alive and still running; the dead child's is interrupted */
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "running");
    CU_ASSERT_STRING_EQUAL(runs[1]->status, "interrupted");
    CU_ASSERT_PTR_NOT_NULL(runs[1]->error && strstr(runs[1]->error, "ended before the run"));
    for (int i = 0; i < n; i++) {
        rsql_job_run_free(runs[i]);
    }
    rsql_free(runs);
    rsql_catalog_close(cat);
}

/*
** A run records what it may leave invisible to later runs sharing its hold key; the newest
** finished one is found, a killed one as interrupted.
*/
static void test_catalog_run_hold(void)
{
    char path[256];
    new_path(path, sizeof(path));
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) { /* a run killed while holding messages of group g until 5000 */
        rsql_catalog_t *cat = rsql_catalog_open(path, NULL);
        int64_t id = 0;
        if (!cat || rsql_catalog_run_begin(cat, "j", "INSERT ...", &id, NULL) != RSQL_OK ||
            rsql_catalog_run_hold(cat, id, "rmq g", 5000, NULL) != RSQL_OK) {
            _exit(1);
        }
        _exit(0);
    }
    int status = -1;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_catalog_t *cat = rsql_catalog_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    int64_t mine = 0, other = 0, id = 0, until = 0;
    bool found = false;
    char *st = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, "k", "INSERT ...", &mine, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold(cat, mine, "rmq g", 9000, &err), RSQL_OK);
    /* another group's run, finished later, does not count */
    CU_ASSERT_EQUAL(rsql_catalog_run_begin(cat, "x", "INSERT ...", &other, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold(cat, other, "rmq h", 7000, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_end(cat, other, "done", NULL, NULL, NULL, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold_last(cat, "rmq g", mine, &found, &id, &st, &until,
                                               &err),
                    RSQL_OK);
    CU_ASSERT_TRUE_FATAL(found);
    CU_ASSERT_STRING_EQUAL(st, "interrupted"); /* the killed child's, found dead */
    CU_ASSERT_EQUAL(until, 5000);
    CU_ASSERT_TRUE(id != mine && id != other);
    rsql_free(st);
    st = NULL;
    /* once ours ended it is the newest; a key nobody used finds nothing */
    CU_ASSERT_EQUAL(rsql_catalog_run_hold(cat, mine, NULL, 9500, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_end(cat, mine, "failed", NULL, "x", NULL, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold_last(cat, "rmq g", 0, &found, &id, &st, &until, &err),
                    RSQL_OK);
    CU_ASSERT_TRUE(found);
    CU_ASSERT_EQUAL(id, mine);
    CU_ASSERT_STRING_EQUAL(st, "failed");
    CU_ASSERT_EQUAL(until, 9500);
    rsql_free(st);
    st = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_run_hold_last(cat, "none", 0, &found, &id, &st, &until, &err),
                    RSQL_OK);
    CU_ASSERT_FALSE(found);
    CU_ASSERT_PTR_NULL(st);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold(cat, 12345, "k", 1, &err), RSQL_ERR_UNKNOWN_NAME);
    rsql_catalog_close(cat);
}

static CU_TestInfo catalog_tests[] = {
    {"test_catalog_run_of_dead_process", test_catalog_run_of_dead_process},
    {"test_catalog_run_hold", test_catalog_run_hold},
    {"test_catalog_table_roundtrip", test_catalog_table_roundtrip},
    {"test_catalog_table_exists_list_drop", test_catalog_table_exists_list_drop},
    {"test_catalog_jobs", test_catalog_jobs},
    {"test_catalog_runs", test_catalog_runs},
    {"test_catalog_offsets", test_catalog_offsets},
    {"test_catalog_open_errors", test_catalog_open_errors},
    {"test_catalog_default_path", test_catalog_default_path},
    {"test_catalog_memory", test_catalog_memory},
    {"test_catalog_transactions", test_catalog_transactions},
    {"test_catalog_busy_error", test_catalog_busy_error},
    {"test_catalog_two_connections", test_catalog_two_connections},
    {"test_catalog_two_processes", test_catalog_two_processes},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"catalog", suite_init, suite_clean, NULL, NULL, catalog_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
