/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of connectors/postgres/pgcdc_snapshot.c without a server (t_pgcdc_snapshot_
 * reader.sh reads a real one):
 *   - the chunk queries: a one-column key (WHERE k > $1), a composite key (a row comparison
 *     with one bind per key column), identifiers quoted (a quote, upper case, a dot in a
 *     name), the fetch size as the LIMIT;
 *   - the int64 of an integer key's text, and the texts that are not one;
 *   - open on no connection and on a connection that failed: errors, nothing leaked.
 */
#include "config.h"
#include "connectors/postgres/pgcdc_snapshot.h"

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

static void expect_sql(const char *want, const char *schema, const char *table, int n_cols,
                       const char *const *cols, int n_key, const char *const *key, bool after,
                       int64_t limit)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_pgcdc_snap_sql(&b, schema, table, n_cols, cols, n_key, key, after, limit);
    CU_ASSERT_FALSE(b.oom);
    if (strcmp(rsql_buf_str(&b), want) != 0) {
        fprintf(stderr, "\ngot:  %s\nwant: %s\n", rsql_buf_str(&b), want);
        CU_FAIL("chunk query");
    }
    rsql_buf_deinit(&b);
}

static void test_snap_sql_one_key(void)
{
    const char *cols[] = {"id", "v"};
    const char *key[] = {"id"};
    expect_sql("SELECT \"id\", \"v\", \"id\" FROM \"public\".\"t\" ORDER BY \"id\" LIMIT 8192",
               "public", "t", 2, cols, 1, key, false, 8192);
    expect_sql("SELECT \"id\", \"v\", \"id\" FROM \"public\".\"t\" WHERE \"id\" > $1 "
               "ORDER BY \"id\" LIMIT 7",
               "public", "t", 2, cols, 1, key, true, 7);
}

static void test_snap_sql_composite_key(void)
{
    const char *cols[] = {"Region", "n", "v"};
    const char *key[] = {"Region", "n"};
    expect_sql("SELECT \"Region\", \"n\", \"v\", \"Region\", \"n\" FROM \"s\".\"Orders\" "
               "WHERE (\"Region\", \"n\") > ($1, $2) ORDER BY \"Region\", \"n\" LIMIT 100",
               "s", "Orders", 3, cols, 2, key, true, 100);
    const char *key3[] = {"a", "b", "c"};
    expect_sql("SELECT \"v\", \"a\", \"b\", \"c\" FROM \"s\".\"t\" "
               "WHERE (\"a\", \"b\", \"c\") > ($1, $2, $3) ORDER BY \"a\", \"b\", \"c\" LIMIT 1",
               "s", "t", 1, cols + 2, 3, key3, true, 1);
}

static void test_snap_sql_quoting(void)
{
    const char *cols[] = {"we\"ird", "a.b"};
    const char *key[] = {"we\"ird"};
    expect_sql("SELECT \"we\"\"ird\", \"a.b\", \"we\"\"ird\" FROM \"my\"\"s\".\"x.y\" "
               "WHERE \"we\"\"ird\" > $1 ORDER BY \"we\"\"ird\" LIMIT 2",
               "my\"s", "x.y", 2, cols, 1, key, true, 2);
}

static void test_snap_key_int(void)
{
    int64_t v = 0;
    CU_ASSERT_TRUE(rsql_pgcdc_snap_key_int("42", &v));
    CU_ASSERT_EQUAL(v, 42);
    CU_ASSERT_TRUE(rsql_pgcdc_snap_key_int("-9223372036854775808", &v));
    CU_ASSERT_EQUAL(v, INT64_MIN);
    CU_ASSERT_TRUE(rsql_pgcdc_snap_key_int("9223372036854775807", &v));
    CU_ASSERT_EQUAL(v, INT64_MAX);
    v = 5;
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int("9223372036854775808", &v));
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int("", &v));
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int(NULL, &v));
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int(" 1", &v));
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int("+1", &v));
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int("1x", &v));
    CU_ASSERT_FALSE(rsql_pgcdc_snap_key_int("1.5", &v));
    CU_ASSERT_EQUAL(v, 5); /* untouched by a failure */
}

static void test_snap_open_errors(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_pgcdc_snap_open(NULL, NULL, 10, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_UNAVAILABLE);
    /* a socket directory that does not exist: libpq fails at once, no server involved */
    PGconn *c = PQconnectdb("host=/nonexistent-rsql-dir port=1 connect_timeout=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_NOT_EQUAL(PQstatus(c), CONNECTION_OK);
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_pgcdc_snap_open(c, "00000003-000000CE-1", 10, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "postgres-cdc snapshot"));
    rsql_pgcdc_snap_close(NULL);
}

static CU_TestInfo snap_tests[] = {{"sql_one_key", test_snap_sql_one_key},
                                   {"sql_composite_key", test_snap_sql_composite_key},
                                   {"sql_quoting", test_snap_sql_quoting},
                                   {"key_int", test_snap_key_int},
                                   {"open_errors", test_snap_open_errors},
                                   CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {{"pgcdc_snapshot", NULL, NULL, NULL, NULL, snap_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"
