/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper shared by the catalog's unit tests (test_catalog.c, test_catalog_schema.c):
 * a mkdtemp directory per suite with a fresh catalog file per test, a table definition to
 * store, and one integer read straight from a file with SQLite. Header-only; include it once
 * per test binary.
 */
#ifndef RSQL_CU_CATFILE_H
#define RSQL_CU_CATFILE_H

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "catalog/rsql_catalog.h"

#define CU_CATFILE_UNUSED __attribute__((unused))

static char tmpdir[64];
static int file_seq;

CU_CATFILE_UNUSED static int suite_init(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/rsql-cat-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

CU_CATFILE_UNUSED static int suite_clean(void)
{
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char p[512];
                snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
                unlink(p);
            }
        }
        closedir(d);
    }
    return rmdir(tmpdir);
}

/* A fresh catalog path in the temp dir (static buffer per call site is enough). */
CU_CATFILE_UNUSED static void new_path(char *buf, size_t size)
{
    snprintf(buf, size, "%s/cat%d.db", tmpdir, ++file_seq);
}

CU_CATFILE_UNUSED static rsql_catalog_t *open_ok(const char *path)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_catalog_t *cat = rsql_catalog_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL(cat);
    if (!cat) {
        fprintf(stderr, "open %s: %s\n", path, err.msg);
    }
    return cat;
}

CU_CATFILE_UNUSED static rsql_col_t cols3[] = {
    {"id", RSQL_TYPE_BIGINT, true},
    {"name", RSQL_TYPE_VARCHAR, false},
    {.name = "ts", .type = RSQL_TYPE_TIMESTAMP, .metadata = true, .meta_from = "born_timestamp",
     .is_virtual = true, .watermark = "ts - INTERVAL '5' SECOND"}, /* METADATA FROM ... VIRTUAL,
                                                                  the event-time column */
    {.name = "twice", .type = RSQL_TYPE_BIGINT, .expr = "id * 2"}, /* twice AS id * 2 */
};
CU_CATFILE_UNUSED static rsql_kv_t opts3[] = {
    {"connector", "datagen"},
    {"number-of-rows", "10"},
    {"a-last-but-not-sorted", "x"},
};

CU_CATFILE_UNUSED static rsql_table_def_t mkdef(char *name, rsql_col_t *cols, int ncols)
{
    rsql_table_def_t d = {name, "datagen", ncols, cols, 3, opts3, 0};
    return d;
}

/* The first column of the first row of sql run on the file at path, or -1 (no row, an error). */
CU_CATFILE_UNUSED static int query_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

#endif
