/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Out-of-memory sweeps (SQLite style, STYLE.md B9): for N = 1, 2, ... fail
 * the Nth rsql_malloc (and every one after it) and run again, until a run
 * succeeds.
 *
 * The statement path: one statement through parse (sql/), the session
 * (session/rt_session.c: options engine, catalog, planner, EXPLAIN) and
 * result printing (rt_result.c). Each run must end with either exactly the
 * output of a run without faults, or an RSQL_ERR_NOMEM error.
 *
 * The data path: a job run through the runtime (its stage threads, outcomes,
 * offsets, dead letters) and the connectors (datagen -> filesystem,
 * filesystem -> sqlite, and a file with a bad line -> sqlite with a
 * dead-letter table). Each run must end in success or a clean RSQL_ERR_NOMEM
 * job error, and keep the at-least-once promise: no position committed past
 * a record that was not written (checked against the output after every
 * run), and the exactly-once sink's rows agree with its stored position.
 *
 * Never a crash, a hang, another error or a leak (the ASan build checks
 * leaks). SQLite's own allocations do not go through rsql_malloc and are not
 * swept. Everything lives in a temporary directory made for this run of the
 * test binary (parallel runs do not share files).
 */
#include "config.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "base/rsql_mem.h"
#include "base/rsql_result.h"
#include "session/rsql_session.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_session.h"

static char tmpdir[64];
static char setup_sql[512]; /* tables created (without faults) before each statement run */

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rsql-oom-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        return -1;
    }
    snprintf(setup_sql, sizeof setup_sql,
             "CREATE TABLE t (a INT, b VARCHAR, c DOUBLE) WITH ('connector'='datagen', "
             "'number-of-rows'='10');"
             "CREATE TABLE db (id BIGINT NOT NULL, label VARCHAR, score DOUBLE) WITH "
             "('connector'='sqlite', 'path'='%s/oom.db', 'table'='db');",
             tmpdir);
    return 0;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* One statement's outcome: the return code, and its output or its rendered error. */
typedef struct outcome {
    rsql_err_t rc;
    rsql_err_t code; /* err.code */
    char *text;      /* malloc'd */
} outcome_t;

/* Run sql's statements (stopping at the first error) in a fresh session after setup. */
static outcome_t run_once(const char *sql, long fail_after)
{
    outcome_t o = {RSQL_OK, RSQL_OK, NULL};
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(":memory:", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(rsql_session_run_script(s, setup_sql, RSQL_PRINT_TSV, stdout, stderr), 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rsql_mem_fail_after(fail_after);
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    if (!p) {
        o.rc = o.code = RSQL_ERR_NOMEM;
    }
    while (p) {
        rsql_stmt_t *st = NULL;
        rsql_result_t *res = NULL;
        o.rc = rsql_parse_next(p, &st, &err);
        if (o.rc == RSQL_OK && !st) {
            break;
        }
        if (o.rc == RSQL_OK) {
            o.rc = rsql_session_exec(s, st, sql, &res, &err);
            CU_ASSERT((o.rc == RSQL_OK) == (res != NULL));
        }
        if (o.rc != RSQL_OK) {
            o.code = err.code;
            rsql_error_render(&err, sql, f);
            break;
        }
        rsql_result_print(res, RSQL_PRINT_TABLE, f);
        rsql_result_destroy(res);
    }
    rsql_parse_destroy(p);
    rsql_mem_fail_after(0);
    fclose(f);
    rsql_session_destroy(s);
    o.text = text;
    return o;
}

/* Sweep sql; want_rc is what a run without faults returns. */
static void sweep(const char *sql, rsql_err_t want_rc)
{
    outcome_t ref = run_once(sql, 0);
    CU_ASSERT_EQUAL(ref.rc, want_rc);
    if (ref.rc != want_rc) {
        fprintf(stderr, "\n%s\n-> %s\n", sql, ref.text);
    }
    bool done = false;
    long n;
    for (n = 1; n < 5000 && !done; n++) {
        outcome_t o = run_once(sql, n);
        if (o.rc == ref.rc && o.code == ref.code && strcmp(o.text, ref.text) == 0) {
            done = o.rc == RSQL_OK || o.code != RSQL_ERR_NOMEM;
        } else if (o.rc != RSQL_ERR_NOMEM || o.code != RSQL_ERR_NOMEM) {
            fprintf(stderr, "\nfail after %ld: rc %s, err %s:\n%s\nwanted:\n%s\n", n,
                    rsql_err_name(o.rc), rsql_err_name(o.code), o.text, ref.text);
            CU_FAIL("neither the fault-free outcome nor RSQL_ERR_NOMEM");
            done = true;
        }
        free(o.text);
    }
    CU_ASSERT(done);
    if (getenv("RSQL_OOM_VERBOSE")) {
        fprintf(stderr, "[%ld runs] ", n - 1);
    }
    CU_ASSERT(n > 2); /* at least one allocation was failed */
    free(ref.text);
}

static void test_oom_create_table(void)
{
    sweep("CREATE TABLE mq (body VARCHAR, k BIGINT NOT NULL, ts TIMESTAMP(3)) WITH "
          "('connector'='rocketmq-grpc', 'endpoints'='127.0.0.1:8081', 'topic'='events', "
          "'source.consumer-group'='g', 'format'='json', 'secret-key'='s3cr3t', "
          "'access-key'='ak', 'scan.idle-timeout'='5s');"
          "SHOW CREATE TABLE mq;",
          RSQL_OK);
}

static void test_oom_explain_insert(void)
{
    sweep("EXPLAIN INSERT INTO db (id, label, score) SELECT a + 1, UPPER(b) || '-' || "
          "CAST(c AS VARCHAR), CASE WHEN c > 1.5 THEN c * 2 ELSE NULL END FROM t "
          "WHERE a BETWEEN 1 AND 5 AND b LIKE 'x%' AND a IN (1, 2, 3)",
          RSQL_OK);
}

static void test_oom_show(void)
{
    sweep("SHOW TABLES; SHOW OPTIONS FOR CONNECTOR filesystem; SHOW CONNECTORS; DESCRIBE t; "
          "SET 'errors.tolerance' = 'all'; SHOW SETTINGS; RESET",
          RSQL_OK);
}

static void test_oom_jobs(void)
{
    sweep("CREATE JOB j AS INSERT INTO db (id, label) SELECT a, b FROM t WHERE a > 2; "
          "SHOW JOB RUNS; DROP JOB j; DROP TABLE IF EXISTS db; DROP TABLE IF EXISTS db",
          RSQL_OK);
}

static void test_oom_invalid(void)
{
    sweep("CREATE TABLE x (a INT) WITH ('connector'='datagen', 'nmber-of-rows'='3')",
          RSQL_ERR_BAD_OPTION);
    sweep("INSERT INTO db SELECT nosuch FROM t", RSQL_ERR_UNKNOWN_NAME);
    sweep("SELEC 1", RSQL_ERR_SYNTAX);
    sweep("INSERT INTO db (id) SELECT 'x' || FROM t", RSQL_ERR_SYNTAX);
}

/* ---- the data path: job runs under the fault */

static int64_t sql_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The position job j committed in the catalog for partition part, -1 when none. */
static int64_t committed(const char *catalog, const char *part)
{
    char *q = sqlite3_mprintf("SELECT CAST(value AS INTEGER) FROM offsets WHERE pipeline "
                              "GLOB 'j@*' AND pipeline NOT GLOB '*#dlq' AND partition = %Q",
                              part);
    int64_t v = sql_int(catalog, q);
    sqlite3_free(q);
    return v;
}

typedef struct job_case {
    const char *name;
    /* the tables and job j (run without faults); @DIR@ is the run's directory */
    const char *setup;
    /* prepare input files in dir (before setup) */
    void (*prepare)(const char *dir);
    /* check the at-least-once promise after a run (any outcome) */
    void (*check)(const char *dir, const char *catalog, rsql_err_t rc);
} job_case_t;

/* tmpl with every "@DIR@" replaced by dir, into out. */
static void subst_dir(const char *tmpl, const char *dir, char *out, size_t size)
{
    size_t n = 0, dl = strlen(dir);
    for (const char *t = tmpl; *t && n + 1 < size; t++) {
        if (strncmp(t, "@DIR@", 5) == 0 && n + dl + 1 < size) {
            memcpy(out + n, dir, dl);
            n += dl;
            t += 4;
        } else {
            out[n++] = *t;
        }
    }
    out[n] = '\0';
}

/* Run job j of c once, failing allocation n (0 = never); the run's code. */
static rsql_err_t run_job_once(const job_case_t *c, long n, long iter)
{
    char dir[128], catalog[160], setup[2048];
    snprintf(dir, sizeof dir, "%s/%s-%ld", tmpdir, c->name, iter);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(catalog, sizeof catalog, "%s/catalog.db", dir);
    if (c->prepare) {
        c->prepare(dir);
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(catalog, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    subst_dir(c->setup, dir, setup, sizeof setup);
    rsql_err_t rc = cu_exec_all(s, setup, &err);
    if (rc != RSQL_OK) {
        fprintf(stderr, "\nsetup of %s: %s\n", c->name, err.msg);
        CU_FAIL_FATAL("setup");
    }
    /* the run's status line and summary would be thousands of lines: quiet while faulted */
    fflush(stderr);
    int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    close(devnull);
    rsql_mem_fail_after(n);
    rc = cu_exec_all(s, "RUN JOB j", &err);
    rsql_mem_fail_after(0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    if (rc != RSQL_OK && (rc != RSQL_ERR_NOMEM || err.code != RSQL_ERR_NOMEM)) {
        fprintf(stderr, "\n%s, fail after %ld: rc %s, err %s: %s\n", c->name, n,
                rsql_err_name(rc), rsql_err_name(err.code), err.msg);
        CU_FAIL("a job run ended neither in success nor in RSQL_ERR_NOMEM");
    }
    if (getenv("RSQL_OOM_VERBOSE") && atoi(getenv("RSQL_OOM_VERBOSE")) > 1) {
        fprintf(stderr, "%s %ld: %s\n", c->name, n, rc == RSQL_OK ? "ok" : err.msg);
    }
    rsql_session_destroy(s);
    c->check(dir, catalog, rc);
    if (rc == RSQL_OK || getenv("RSQL_OOM_KEEP")) {
        return rc;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    return rc;
}

static void job_sweep(const job_case_t *c)
{
    CU_ASSERT_EQUAL(run_job_once(c, 0, 0), RSQL_OK);
    long n;
    rsql_err_t rc = RSQL_ERR_NOMEM;
    for (n = 1; n < 20000 && rc != RSQL_OK; n++) {
        rc = run_job_once(c, n, n);
    }
    CU_ASSERT_EQUAL(rc, RSQL_OK);
    if (getenv("RSQL_OOM_VERBOSE")) {
        fprintf(stderr, "[%s: %ld runs] ", c->name, n - 1);
    }
    CU_ASSERT(n > 2);
}

/* datagen -> filesystem: rows 1..N, checked by value (a row written twice is allowed). */
#define DG_ROWS 7
static void check_datagen_file(const char *dir, const char *catalog, rsql_err_t rc)
{
    char path[200];
    snprintf(path, sizeof path, "%s/out.json", dir);
    int seen[DG_ROWS + 2] = {0};
    FILE *f = fopen(path, "r");
    char line[128];
    while (f && fgets(line, sizeof line, f)) {
        int v;
        if (sscanf(line, "{\"v\":%d}", &v) == 1 && v >= 1 && v <= DG_ROWS) {
            seen[v] = 1;
        }
    }
    if (f) {
        fclose(f);
    }
    int64_t pos = committed(catalog, "datagen"); /* rows 1..pos are done */
    CU_ASSERT(pos <= DG_ROWS);
    for (int64_t v = 1; v <= pos; v++) {
        if (v != 4 && !seen[v]) { /* 4 is filtered: done without being written */
            fprintf(stderr, "\ndatagen -> file: position %lld committed, row %lld not written\n",
                    (long long)pos, (long long)v);
            CU_FAIL("committed a record that was not written");
            break;
        }
    }
    if (rc == RSQL_OK) {
        CU_ASSERT_EQUAL(pos, DG_ROWS);
    }
}

static const job_case_t datagen_file = {
    "datagen_file",
    "CREATE TABLE g (v INT) WITH ('connector'='datagen', 'rows-per-second'='0', "
    "'fields.v.kind'='sequence', 'fields.v.start'='1', 'fields.v.end'='7');"
    "CREATE TABLE out (v INT) WITH ('connector'='filesystem', 'path'='@DIR@/out.json', "
    "'sink.sync'='false');"
    "SET 'pipeline.batch-size' = '3';"
    "CREATE JOB j AS INSERT INTO out SELECT v FROM g WHERE v <> 4;",
    NULL,
    check_datagen_file,
};

/* filesystem -> sqlite: lines {"id":i} of fixed length; a bad line 5 under tolerance all. */
#define FS_LINES 8
#define FS_LINE_LEN 12 /* {"id":NNNN}\n */
static void prepare_file(const char *dir)
{
    char path[200];
    snprintf(path, sizeof path, "%s/in.json", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 1; i <= FS_LINES; i++) {
        if (i == 5) {
            fputs("{\"id\":\"xx\"}\n", f); /* a decode error, same length */
        } else {
            fprintf(f, "{\"id\":%4d}\n", i);
        }
    }
    fclose(f);
}

static void check_file_sqlite(const char *dir, const char *catalog, rsql_err_t rc)
{
    char db[200];
    snprintf(db, sizeof db, "%s/out.db", dir);
    char part[220];
    snprintf(part, sizeof part, "%s/in.json", dir);
    int64_t pos = committed(catalog, part);
    /* the exactly-once sink: its rows are exactly the good lines before its stored position */
    char *q = sqlite3_mprintf("SELECT \"offset\" FROM rocketsql_positions WHERE pipeline "
                              "= 'j' AND partition = %Q",
                              part);
    int64_t stored = sql_int(db, q);
    sqlite3_free(q);
    int64_t rows = sql_int(db, "SELECT count(*) FROM copy");
    int64_t lines = stored < 0 ? 0 : stored / FS_LINE_LEN;
    int64_t good_before = 0;
    for (int64_t i = 1; i <= lines; i++) {
        good_before += i != 5;
    }
    CU_ASSERT_EQUAL(rows < 0 ? 0 : rows, good_before);
    CU_ASSERT_EQUAL(sql_int(db, "SELECT count(DISTINCT id) FROM copy"), rows < 0 ? -1 : rows);
    /* the catalog's position never passes a line that is neither written nor dead-lettered */
    int64_t dl = sql_int(db, "SELECT count(*) FROM dlq");
    int64_t cat_lines = pos < 0 ? 0 : pos / FS_LINE_LEN;
    for (int64_t i = 1; i <= cat_lines; i++) {
        int64_t written = i <= lines && i != 5;
        int64_t dead = i == 5 && dl > 0;
        if (!written && !dead) {
            fprintf(stderr, "\nfile -> sqlite: position %lld committed, line %lld not written\n",
                    (long long)pos, (long long)i);
            CU_FAIL("committed a record that was not written");
            break;
        }
    }
    if (rc == RSQL_OK) {
        CU_ASSERT_EQUAL(rows, FS_LINES - 1);
        CU_ASSERT_EQUAL(dl, 1);
        CU_ASSERT_EQUAL(stored, FS_LINES * FS_LINE_LEN);
    }
}

static const job_case_t file_sqlite = {
    "file_sqlite",
    "CREATE TABLE src (id BIGINT) WITH ('connector'='filesystem', 'path'='@DIR@/in.json');"
    "CREATE TABLE copy (id BIGINT) WITH ('connector'='sqlite', 'path'='@DIR@/out.db', "
    "'table'='copy', 'sink.batch-size'='2');"
    "CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, "
    "ts TIMESTAMP(3)) WITH ('connector'='sqlite', 'path'='@DIR@/out.db', 'table'='dlq');"
    "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq';"
    "SET 'pipeline.batch-size' = '3';"
    "CREATE JOB j AS INSERT INTO copy SELECT id FROM src;",
    prepare_file,
    check_file_sqlite,
};

static void test_oom_job_datagen_to_file(void)
{
    job_sweep(&datagen_file);
}

static void test_oom_job_file_to_sqlite(void)
{
    job_sweep(&file_sqlite);
}

static CU_TestInfo oom_tests[] = {
    {"test_oom_create_table", test_oom_create_table},
    {"test_oom_explain_insert", test_oom_explain_insert},
    {"test_oom_show", test_oom_show},
    {"test_oom_jobs", test_oom_jobs},
    {"test_oom_invalid", test_oom_invalid},
    {"test_oom_job_datagen_to_file", test_oom_job_datagen_to_file},
    {"test_oom_job_file_to_sqlite", test_oom_job_file_to_sqlite},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"oom", suite_init, suite_clean, NULL, NULL, oom_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
