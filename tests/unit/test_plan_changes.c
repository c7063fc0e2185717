/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of changelog modes at planning (planner/plan_changes.c): a source is a changelog
 * when its connector says so (rsql_connector_def_t.produces_changes: test connectors
 * registered here, one full, one upsert) and the plan keeps its mode through filter and
 * projection; a sink that cannot take it is refused with an error at the sink's name that
 * names both tables and what to do (its connector only appends; applies by a key the table
 * lacks or does not write; writes a format that is not a changelog format; its
 * accept_changes hook refuses); the sinks that can take it are accepted, with the EXPLAIN
 * line "Changelog: ..." saying the modes of source, plan and sink; append-only plans are
 * unchanged and say so; and when a sink that applies by key needs no -U rows (plan->before_key)
 * or why it does.
 */
#include "config.h"
#include "planner/rsql_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "catalog/rsql_catalog.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_plugin.h"
#include "base/rsql_mem.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_catalog.h"

/* ---- test connectors: the planner reads only their descriptors */

static rsql_err_t src_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    (void)ctx;
    *out = NULL;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "not run");
}

static rsql_err_t src_poll(rsql_source_t *src, rsql_batch_t *batch, int max, int timeout_ms,
                           bool *eof, rsql_error_t *err)
{
    (void)src, (void)batch, (void)max, (void)timeout_ms, (void)eof;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "not run");
}

static rsql_err_t snk_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    (void)ctx;
    *out = NULL;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "not run");
}

static rsql_err_t snk_write(rsql_sink_t *snk, uint64_t batch_id, int n,
                            const rsql_sink_row_t *rows, rsql_error_t *err)
{
    (void)snk, (void)batch_id, (void)n, (void)rows;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "not run");
}

static const rsql_source_ops_t src_ops = {.open = src_open, .poll = src_poll};
static const rsql_sink_ops_t snk_ops = {.open = snk_open, .write = snk_write};

static int full_mode(const void *conf)
{
    (void)conf;
    return RSQL_MODE_FULL;
}

static int upsert_mode(const void *conf)
{
    (void)conf;
    return RSQL_MODE_UPSERT;
}

/* A sink that takes changes by key only when the key has one column. */
static rsql_err_t one_column_key(const void *conf, const rsql_optset_t *set, int n_key,
                                 rsql_error_t *err)
{
    (void)conf, (void)set;
    if (n_key != 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "a key of one column is needed (the table's has %d)", n_key);
    }
    return RSQL_OK;
}

static const char *const fmts[] = {"json", "csv", "debezium-json", NULL};
static const char *const plain_fmts[] = {"json", "csv", NULL};

#define OPTS(name)                                                                          \
    static const rsql_opt_def_t name##_opts[] = {                                          \
        RSQL_CONN_ROW_CONNECTOR(#name),                                                     \
        RSQL_OPT_ROW("format", RSQL_OPT_ENUM, 0, "json", 0, 0, fmts, "The format."),        \
        RSQL_OPT_END,                                                                       \
    }
OPTS(t_cdc);
OPTS(t_upsert);
OPTS(t_append);
OPTS(t_bykey);
OPTS(t_byfmt);
OPTS(t_all);
OPTS(t_hook);
OPTS(t_src);
static const rsql_opt_def_t t_plain_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("t_plain"),
    RSQL_OPT_ROW("format", RSQL_OPT_ENUM, 0, "json", 0, 0, plain_fmts, "The format."),
    RSQL_OPT_END,
};

#define DEF(n, caps_, src_, snk_, ...)                                                      \
    static const rsql_connector_def_t n##_def = {.name = #n, .description = "test",        \
                                                  .caps = caps_, .opts = n##_opts,           \
                                                  .formats = fmts, .source = src_,           \
                                                  .sink = snk_, __VA_ARGS__}
DEF(t_cdc, RSQL_CAP_SOURCE, &src_ops, NULL, .produces_changes = full_mode);
DEF(t_upsert, RSQL_CAP_SOURCE, &src_ops, NULL, .produces_changes = upsert_mode);
DEF(t_append, RSQL_CAP_SINK, NULL, &snk_ops, .changes = RSQL_CHANGES_NONE);
DEF(t_bykey, RSQL_CAP_SINK, NULL, &snk_ops, .changes = RSQL_CHANGES_BY_KEY);
DEF(t_byfmt, RSQL_CAP_SINK, NULL, &snk_ops, .changes = RSQL_CHANGES_BY_FORMAT);
DEF(t_all, RSQL_CAP_SINK, NULL, &snk_ops, .changes = RSQL_CHANGES_ALL);
static const rsql_connector_def_t t_plain_def = {
    .name = "t_plain", .description = "test", .caps = RSQL_CAP_SINK, .opts = t_plain_opts,
    .formats = plain_fmts, .sink = &snk_ops, .changes = RSQL_CHANGES_BY_FORMAT};
DEF(t_hook, RSQL_CAP_SINK, NULL, &snk_ops, .changes = RSQL_CHANGES_BY_KEY,
    .accept_changes = one_column_key);
DEF(t_src, RSQL_CAP_SOURCE, &src_ops, NULL, .changes = RSQL_CHANGES_NONE);

static const rsql_connector_def_t *const test_defs[] = {
    &t_cdc_def, &t_upsert_def, &t_append_def, &t_bykey_def, &t_byfmt_def, &t_all_def,
    &t_hook_def, &t_plain_def, &t_src_def, NULL,
};

/* ---- the catalog */

static rsql_catalog_t *cat;

static int suite_init(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    if (rsql_connector_register(test_defs, "test", &err) != RSQL_OK) {
        fprintf(stderr, "register: %s\n", err.msg);
        return -1;
    }
    cat = rsql_catalog_open(":memory:", &err);
    if (!cat) {
        return -1;
    }
    static const char *const tables[] = {
        "CREATE TABLE src (id BIGINT, region VARCHAR, amount DOUBLE) WITH "
        "('connector'='t_cdc')",
        "CREATE TABLE ups (id BIGINT, amount DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH "
        "('connector'='t_upsert')",
        "CREATE TABLE upsnokey (id BIGINT, amount DOUBLE) WITH ('connector'='t_upsert')",
        "CREATE TABLE gen (id BIGINT, region VARCHAR, amount DOUBLE) WITH "
        "('connector'='datagen', 'number-of-rows'='3')",
        "CREATE TABLE app (id BIGINT, amount DOUBLE) WITH ('connector'='t_append')",
        "CREATE TABLE nokey (id BIGINT, amount DOUBLE) WITH ('connector'='t_bykey')",
        "CREATE TABLE bykey (id BIGINT, region VARCHAR, amount DOUBLE, "
        "PRIMARY KEY (region, id) NOT ENFORCED) WITH ('connector'='t_bykey')",
        "CREATE TABLE fmtjson (id BIGINT, amount DOUBLE) WITH ('connector'='t_byfmt', "
        "'format'='json')",
        "CREATE TABLE fmtdbz (id BIGINT, amount DOUBLE) WITH ('connector'='t_byfmt', "
        "'format'='debezium-json')",
        "CREATE TABLE plainjson (id BIGINT, amount DOUBLE) WITH ('connector'='t_plain')",
        "CREATE TABLE all_kinds (id BIGINT, amount DOUBLE) WITH ('connector'='t_all')",
        "CREATE TABLE hook2 (id BIGINT, region VARCHAR, PRIMARY KEY (id, region) NOT ENFORCED) "
        "WITH ('connector'='t_hook')",
        "CREATE TABLE hook1 (id BIGINT, region VARCHAR, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('connector'='t_hook')",
        "CREATE TABLE dbz (id BIGINT, region VARCHAR, amount DOUBLE) WITH "
        "('connector'='t_src', 'format'='debezium-json')",
        "CREATE TABLE dbzint (n INT, id INT, region VARCHAR) WITH "
        "('connector'='t_src', 'format'='debezium-json')",
        NULL,
    };
    for (int i = 0; tables[i]; i++) {
        if (cu_catalog_create(cat, tables[i])) {
            return -1;
        }
    }
    return 0;
}

static int suite_clean(void)
{
    rsql_catalog_close(cat);
    return 0;
}

static rsql_plan_t *plan_of(const char *sql, rsql_error_t *err)
{
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_error_clear(err);
    rsql_plan_t *plan = NULL;
    if (rsql_parse_next(p, &st, err) == RSQL_OK && st) {
        plan = rsql_plan_build(cat, st, sql, NULL, err);
    }
    rsql_parse_destroy(p);
    return plan;
}

/* Planning sql fails with "line:col: message". */
static void expect_error(const char *sql, const char *want)
{
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, &err);
    CU_ASSERT_PTR_NULL(plan);
    rsql_plan_destroy(plan);
    char got[1200];
    rsql_error_format(&err, sql, got, sizeof(got));
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "\n%s\n  got  %s\n  want %s\n", sql, got, want);
    }
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_SEMANTIC);
}

/* Planning sql fails with an error that starts with head and ends with tail (a list of
   connectors whose built-in part depends on the build). */
static void expect_error_ends(const char *sql, const char *head, const char *tail)
{
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, &err);
    CU_ASSERT_PTR_NULL(plan);
    rsql_plan_destroy(plan);
    char got[1200];
    rsql_error_format(&err, sql, got, sizeof(got));
    size_t n = strlen(got), nh = strlen(head), nt = strlen(tail);
    bool ok = n >= nh + nt && strncmp(got, head, nh) == 0 && strcmp(got + n - nt, tail) == 0;
    if (!ok) {
        fprintf(stderr, "\n%s\n  got  %s\n  want %s...%s\n", sql, got, head, tail);
    }
    CU_ASSERT(ok);
}

/* Planning sql succeeds with mode, and its EXPLAIN has the line want. */
static void expect_plan(const char *sql, int mode, const char *want)
{
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, &err);
    if (!plan) {
        char got[1200];
        rsql_error_format(&err, sql, got, sizeof(got));
        fprintf(stderr, "\n%s\n  %s\n", sql, got);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_EQUAL(plan->mode, mode);
    rsql_buf_t out = RSQL_BUF_INIT;
    CU_ASSERT_EQUAL(rsql_plan_explain(plan, &out), RSQL_OK);
    if (!strstr(rsql_buf_str(&out), want)) {
        fprintf(stderr, "\n%s\n  want the line %s\n  in %s\n", sql, want, rsql_buf_str(&out));
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(rsql_buf_str(&out), want));
    rsql_buf_deinit(&out);
    rsql_plan_destroy(plan);
}

/* ---- tests */

static void test_changes_refused(void)
{
    expect_error_ends("INSERT INTO app SELECT id, amount FROM src",
                      "1:13: table 'src' reads a full changelog (connector 't_cdc': updates and "
                      "deletes, not only inserts) that table 'app' cannot take: connector "
                      "'t_append' only appends rows; write them to a table whose connector "
                      "applies changes: ",
                      "t_bykey (by its PRIMARY KEY), t_byfmt (in a changelog format), t_all, "
                      "t_hook (by its PRIMARY KEY), t_plain (in a changelog format)");
    expect_error("INSERT INTO nokey SELECT id, amount FROM src WHERE amount > 1",
                 "1:13: table 'src' reads a full changelog (connector 't_cdc': updates and "
                 "deletes, not only inserts) that table 'nokey' cannot take: connector "
                 "'t_bykey' applies changes by the table's key; declare a PRIMARY KEY (...) NOT "
                 "ENFORCED on 'nokey'");
    /* the key's columns must be written */
    expect_error("INSERT INTO bykey (id, amount) SELECT id, amount FROM src",
                 "1:13: table 'src' reads a full changelog (connector 't_cdc': updates and "
                 "deletes, not only inserts) that table 'bykey' cannot take: its key column "
                 "'region' gets no value (connector 't_bykey' applies changes by the key: list "
                 "every key column)");
    expect_error("INSERT INTO fmtjson SELECT id, amount FROM src",
                 "1:13: table 'src' reads a full changelog (connector 't_cdc': updates and "
                 "deletes, not only inserts) that table 'fmtjson' cannot take: connector "
                 "'t_byfmt' writes changes in a changelog format and 'fmtjson' has format "
                 "'json'; choose a changelog format such as 'debezium-json'");
    expect_error("INSERT INTO plainjson SELECT id, amount FROM src",
                 "1:13: table 'src' reads a full changelog (connector 't_cdc': updates and "
                 "deletes, not only inserts) that table 'plainjson' cannot take: connector "
                 "'t_plain' writes changes in a changelog format and 'plainjson' has format "
                 "'json'; choose a changelog format such as (none: connector 't_plain' has no "
                 "changelog format in this build)");
    expect_error("INSERT INTO hook2 SELECT id, region FROM src",
                 "1:13: table 'src' reads a full changelog (connector 't_cdc': updates and "
                 "deletes, not only inserts) that table 'hook2' cannot take: a key of one "
                 "column is needed (the table's has 2)");
    /* an upsert: the filter reads the key alone, a sink by key has the same key */
    expect_error("INSERT INTO all_kinds SELECT id, amount FROM ups WHERE id > 2 AND amount > 1",
                 "1:67: the WHERE of an INSERT from 'ups', an upsert changelog (connector "
                 "'t_upsert') by key (id), reads its column 'amount': an upsert has no row "
                 "before an update, so a row updated out of the filter would stay in "
                 "'all_kinds'; filter on the key's columns only");
    expect_error("INSERT INTO hook1 SELECT CAST(amount AS BIGINT), 'x' FROM ups",
                 "1:13: table 'ups' reads an upsert changelog (connector 't_upsert': updates and "
                 "deletes, not only inserts) that table 'hook1' cannot take: an upsert "
                 "changelog is applied by the key it is made by: write the key of 'hook1' (id) "
                 "from the key of 'ups' (id), column for column");
    /* an upsert source needs its key */
    expect_error("INSERT INTO all_kinds SELECT id, amount FROM upsnokey",
                 "1:46: table 'upsnokey' reads an upsert changelog (connector 't_upsert': rows "
                 "replaced and deleted by their key): declare its PRIMARY KEY (...) NOT "
                 "ENFORCED");
}

static void test_changes_accepted(void)
{
    expect_plan("INSERT INTO bykey SELECT id, region, amount FROM src WHERE amount > 1",
                RSQL_MODE_FULL,
                "\nChangelog: full (+I -U +U -D) from src (connector 't_cdc'), kept row by row "
                "through filter and projection; sink bykey applies it by key (region, id)\n");
    expect_plan("INSERT INTO bykey (amount, region, id) SELECT amount, 'eu', id FROM src",
                RSQL_MODE_FULL, "; sink bykey applies it by key (region, id)\n");
    expect_plan("INSERT INTO all_kinds SELECT id, amount FROM src", RSQL_MODE_FULL,
                "; sink all_kinds takes it with each row's kind\n");
    expect_plan("INSERT INTO fmtdbz SELECT id, amount FROM src", RSQL_MODE_FULL,
                "; sink fmtdbz writes it as 'debezium-json'\n");
    expect_plan("INSERT INTO hook1 SELECT id, region FROM src", RSQL_MODE_FULL,
                "; sink hook1 applies it by key (id)\n");
    expect_plan("INSERT INTO all_kinds SELECT id, amount FROM ups", RSQL_MODE_UPSERT,
                "\nChangelog: upsert (+I +U -D) by key (id) from ups (connector 't_upsert'), "
                "kept row by row through filter and projection; sink all_kinds takes it with "
                "each row's kind\n");
    expect_plan("INSERT INTO hook1 SELECT id, 'x' FROM ups WHERE id > 2", RSQL_MODE_UPSERT,
                "; sink hook1 applies it by key (id)\n");
    expect_plan("SELECT id FROM src", RSQL_MODE_FULL,
                "; the preview prints each row with its kind first (op)\n");
}

static void test_changes_append_only(void)
{
    /* every sink takes an append-only source, whatever it does with changes */
    expect_plan("INSERT INTO app SELECT id, amount FROM gen", RSQL_MODE_APPEND,
                "\nChangelog: append-only (+I) from gen; sink app appends the rows\n");
    expect_plan("INSERT INTO nokey SELECT id, amount FROM gen", RSQL_MODE_APPEND,
                "; sink nokey appends the rows\n");
    expect_plan("INSERT INTO fmtjson SELECT id, amount FROM gen", RSQL_MODE_APPEND,
                "; sink fmtjson appends the rows\n");
    expect_plan("SELECT id FROM gen", RSQL_MODE_APPEND,
                "\nChangelog: append-only (+I) from gen; the preview prints the rows\n");
}

/* Planning sql gives -U rows dropped by the source columns key[0..n) (n 0: kept) and the
   EXPLAIN text want. */
static void expect_before(const char *sql, const int *key, int n, const char *want)
{
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_EQUAL(plan->n_before_key, n);
    CU_ASSERT_EQUAL(plan->before_key != NULL, n > 0);
    for (int k = 0; plan->before_key && k < n && k < plan->n_before_key; k++) {
        CU_ASSERT_EQUAL(plan->before_key[k], key[k]);
    }
    rsql_buf_t out = RSQL_BUF_INIT;
    CU_ASSERT_EQUAL(rsql_plan_explain(plan, &out), RSQL_OK);
    bool has = want ? strstr(rsql_buf_str(&out), want) != NULL
                    : strstr(rsql_buf_str(&out), "; -U ") == NULL;
    if (!has) {
        fprintf(stderr, "\n%s\n  want %s\n  in %s\n", sql, want ? want : "(no -U text)",
                rsql_buf_str(&out));
    }
    CU_ASSERT(has);
    rsql_buf_deinit(&out);
    rsql_plan_destroy(plan);
}

/* A sink that applies by key needs no -U of an update that keeps its key: dropped when the
   key is written from source columns and the WHERE reads no other, else kept and why */
static void test_changes_before(void)
{
    static const int region_id[] = {1, 0}, id[] = {0}, dbzint_id[] = {1};
    expect_before("INSERT INTO bykey SELECT id, region, amount FROM dbz", region_id, 2,
                  "; sink bykey applies it by key (region, id); -U dropped: the sink applies by "
                  "key, so an update that keeps the key (region, id) is decoded as its +U alone "
                  "(one that changes it keeps its -U)\n");
    expect_before("INSERT INTO bykey SELECT id, region, amount FROM dbz WHERE id > 2 AND "
                  "region IN ('eu', 'us')",
                  region_id, 2, "; -U dropped: ");
    expect_before("INSERT INTO hook1 SELECT id, region FROM dbz", id, 1,
                  "applies it by key (id); -U dropped: the sink applies by key, so an update "
                  "that keeps the key (id) is decoded as its +U alone");
    /* through an implicit cast (INT into BIGINT) */
    expect_before("INSERT INTO hook1 SELECT id, region FROM dbzint WHERE id <> 3", dbzint_id, 1,
                  "; -U dropped: ");
    /* a filter on another column: a -U that passes it must delete the key */
    expect_before("INSERT INTO bykey SELECT id, region, amount FROM dbz WHERE amount > 1", NULL, 0,
                  "; sink bykey applies it by key (region, id); -U kept: the WHERE reads amount, "
                  "which an update may change: a -U that passes the filter whose +U does not "
                  "deletes its key\n");
    expect_before("INSERT INTO hook1 SELECT id, region FROM dbzint WHERE n > 0", NULL, 0,
                  "; -U kept: the WHERE reads n, ");
    expect_before("INSERT INTO hook1 SELECT id, region FROM dbz WHERE UUID() > 'a'", NULL, 0,
                  "; -U kept: the WHERE calls UUID(), which differs from row to row\n");
    /* the key not written from a column of the source */
    expect_before("INSERT INTO bykey (amount, region, id) SELECT amount, 'eu', id FROM dbz", NULL,
                  0, "; -U kept: its key column region is not written from a column of dbz, so "
                     "an update's key is not known to stay\n");
    expect_before("INSERT INTO hook1 SELECT id + 1, region FROM dbz", NULL, 0,
                  "; -U kept: its key column id is not written from a column of dbz");
    expect_before("INSERT INTO hook1 SELECT CAST(amount AS BIGINT), region FROM dbz", NULL, 0,
                  "; -U kept: its key column id is not written from a column of dbz");
    /* not a by-key sink, or changes a connector makes: nothing to say */
    expect_before("INSERT INTO all_kinds SELECT id, amount FROM dbz", NULL, 0, NULL);
    expect_before("INSERT INTO fmtdbz SELECT id, amount FROM dbz", NULL, 0, NULL);
    expect_before("INSERT INTO hook1 SELECT id, region FROM src", NULL, 0, NULL);
    expect_before("INSERT INTO hook1 SELECT id, region FROM gen", NULL, 0, NULL);
}

static CU_TestInfo changes_tests[] = {
    {"test_changes_refused", test_changes_refused},
    {"test_changes_accepted", test_changes_accepted},
    {"test_changes_append_only", test_changes_append_only},
    {"test_changes_before", test_changes_before},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"plan_changes", suite_init, suite_clean, NULL, NULL, changes_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
