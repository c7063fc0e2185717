/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Out-of-memory sweep across the whole statement path (SQLite style, STYLE.md
 * B9): for N = 1, 2, ... fail the Nth rsql_malloc and run one statement
 * through parse (sql/), the session (runtime/rt_session.c: options engine,
 * catalog, planner, EXPLAIN) and result printing (rt_result.c). Each run must
 * end with either exactly the output of a run without faults, or an
 * RSQL_ERR_NOMEM error; never a crash, a different error or a leak (the ASan
 * build checks leaks). The sweep stops at the first N that succeeds.
 * SQLite's own allocations do not go through rsql_malloc and are not swept.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "base/rsql_mem.h"
#include "runtime/rsql_result.h"
#include "runtime/rsql_session.h"
#include "sql/rsql_sql.h"

/* Tables created (without faults) before each run. */
static const char *const setup_sql =
    "CREATE TABLE t (a INT, b VARCHAR, c DOUBLE) WITH ('connector'='datagen', "
    "'number-of-rows'='10');"
    "CREATE TABLE db (id BIGINT NOT NULL, label VARCHAR, score DOUBLE) WITH "
    "('connector'='sqlite', 'path'='/tmp/rsql-oom.db', 'table'='db');";

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

static CU_TestInfo oom_tests[] = {
    {"test_oom_create_table", test_oom_create_table},
    {"test_oom_explain_insert", test_oom_explain_insert},
    {"test_oom_show", test_oom_show},
    {"test_oom_jobs", test_oom_jobs},
    {"test_oom_invalid", test_oom_invalid},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"oom", NULL, NULL, NULL, NULL, oom_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
