/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the planner (planner/): binding errors with their exact
 * messages and positions, the INSERT column mapping (by name, by position,
 * widening casts, NULL for unlisted columns), bounded sources, the error
 * settings and the dead-letter table, the EXPLAIN text, the plan owning
 * copies of everything (the AST and SQL are freed before use), the per-row
 * transform rsql_plan_apply, and an out-of-memory sweep of rsql_plan_build.
 * Tables are created in an in-memory catalog from CREATE TABLE text.
 */
#include "config.h"
#include "planner/rsql_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "base/rsql_settings.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_catalog.h"

static rsql_catalog_t *cat;

static int suite_init(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    cat = rsql_catalog_open(":memory:", &err);
    if (!cat) {
        return -1;
    }
    static const char *const tables[] = {
        "CREATE TABLE t (a INT, b VARCHAR, c DOUBLE) WITH ('connector'='datagen', "
        "'number-of-rows'='10')",
        "CREATE TABLE gen (a INT) WITH ('connector'='datagen')",
        "CREATE TABLE s (x BIGINT, y STRING) WITH ('connector'='filesystem', "
        "'path'='/tmp/out.json', 'format'='json')",
        "CREATE TABLE follow (x BIGINT, y STRING) WITH ('connector'='filesystem', "
        "'path'='/tmp/in.json', 'scan.follow'='true')",
        "CREATE TABLE db (id BIGINT NOT NULL, label VARCHAR, score DOUBLE) WITH "
        "('connector'='sqlite', 'path'='/tmp/x.db', 'table'='db')",
        "CREATE TABLE p (x BIGINT, y VARCHAR) WITH ('connector'='print')",
        "CREATE TABLE mq (body VARCHAR) WITH ('connector'='rocketmq-grpc', "
        "'endpoints'='127.0.0.1:8081', 'topic'='events', 'source.consumer-group'='g', "
        "'format'='raw', 'secret-key'='s3cr3t', 'access-key'='ak', "
        "'scan.idle-timeout'='5s')",
        "CREATE TABLE rawint (a INT) WITH ('connector'='filesystem', 'path'='/tmp/r.txt', "
        "'format'='raw')",
        "CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, "
        "ts TIMESTAMP(3)) WITH ('connector'='blackhole')",
        /* stored as a catalog made before CREATE TABLE checked datagen's types would hold it */
        "CREATE TABLE boolseq (b BOOLEAN) WITH ('connector'='datagen', "
        "'fields.b.kind'='sequence')",
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

/* Plan sql (the parser and a copy of the text are freed before returning). */
static rsql_plan_t *plan_of(const char *sql, const rsql_settings_t *settings, rsql_error_t *err)
{
    char *text = strdup(sql);
    rsql_parse_t *p = rsql_parse_new(text, strlen(text));
    rsql_stmt_t *st = NULL;
    rsql_error_clear(err);
    rsql_plan_t *plan = NULL;
    if (rsql_parse_next(p, &st, err) == RSQL_OK && st) {
        const rsql_stmt_t *inner = st->kind == RSQL_STMT_EXPLAIN ? st->inner : st;
        plan = rsql_plan_build(cat, inner, text, settings, err);
    }
    rsql_parse_destroy(p);
    memset(text, 'X', strlen(text)); /* the plan must hold its own copy */
    free(text);
    return plan;
}

/* Planning sql fails with code and "line:col: message" (or "error: message"). */
static void expect_error(const char *sql, rsql_err_t code, const char *want)
{
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, NULL, &err);
    CU_ASSERT_PTR_NULL(plan);
    rsql_plan_destroy(plan);
    char got[600];
    rsql_error_format(&err, sql, got, sizeof(got));
    if (strcmp(got, want) != 0 || err.code != code) {
        fprintf(stderr, "\n%s\n  got  %s (%s)\n  want %s (%s)\n", sql, got,
                rsql_err_name(err.code), want, rsql_err_name(code));
    }
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT_EQUAL(err.code, code);
}

static rsql_plan_t *plan_ok(const char *sql, const rsql_settings_t *settings)
{
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, settings, &err);
    if (!plan) {
        char buf[600];
        rsql_error_format(&err, sql, buf, sizeof(buf));
        fprintf(stderr, "\n%s\n  %s\n", sql, buf);
    }
    CU_ASSERT_PTR_NOT_NULL(plan);
    return plan;
}

/* ---- tests */

static void test_planner_unknown_names(void)
{
    expect_error("SELECT a FROM orders", RSQL_ERR_UNKNOWN_NAME, "1:15: no such table: orders");
    expect_error("INSERT INTO nope SELECT a FROM t", RSQL_ERR_UNKNOWN_NAME,
                 "1:13: no such table: nope");
    expect_error("SELECT a, x FROM t", RSQL_ERR_UNKNOWN_NAME, "1:11: no such column: x");
    expect_error("SELECT t.x FROM t", RSQL_ERR_UNKNOWN_NAME, "1:8: no such column: t.x");
    expect_error("SELECT u.a FROM t", RSQL_ERR_UNKNOWN_NAME, "1:8: no such column: u.a");
    expect_error("SELECT a FROM t WHERE\n  UPPER(zz) = 'A'", RSQL_ERR_UNKNOWN_NAME,
                 "2:9: no such column: zz");
    expect_error("SELECT FOO(a) FROM t", RSQL_ERR_UNKNOWN_NAME, "1:8: no such function: FOO");
}

static void test_planner_sides(void)
{
    expect_error("SELECT x FROM p", RSQL_ERR_SEMANTIC,
                 "1:15: table 'p' cannot be read from: connector 'print' is a sink only");
    expect_error("INSERT INTO t SELECT x, y, x FROM s", RSQL_ERR_SEMANTIC,
                 "1:13: table 't' cannot be written to: connector 'datagen' is a source only");
    expect_error("INSERT INTO s SELECT x, y FROM s", RSQL_ERR_SEMANTIC,
                 "1:13: cannot insert into table 's' while reading from it");
    expect_error("SELECT a FROM rawint", RSQL_ERR_SEMANTIC,
                 "1:15: format 'raw' needs exactly one VARCHAR or BYTES column, column 'a' of "
                 "table 'rawint' is INT");
}

/* A stored table whose options do not fit its types fails at planning, not open. */
static void test_planner_connector_column_check(void)
{
    expect_error("SELECT b FROM boolseq LIMIT 1", RSQL_ERR_BAD_OPTION,
                 "1:15: column 'b' of type BOOLEAN cannot be a sequence (option 'fields.b.kind'; "
                 "sequences are INT, BIGINT, DOUBLE, TIMESTAMP(3) or VARCHAR) (table 'boolseq')");
}

/*
** A statement after a NUL byte (the parser reports the NUL and resumes after the
** next ';') is planned against the whole text: the planner used to copy the text only up to
** the NUL (strlen) and then read the select item's name past that copy.
*/
static void test_planner_statement_after_nul(void)
{
    static const char sql[] = "SELECT \0; SELECT a + 1 FROM t";
    size_t len = sizeof sql - 1;
    char *text = malloc(len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    memcpy(text, sql, len + 1);
    rsql_parse_t *p = rsql_parse_new(text, len);
    rsql_stmt_t *st = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_parse_next(p, &st, &err), RSQL_ERR_SYNTAX);
    CU_ASSERT_EQUAL(err.pos.off, 7);
    CU_ASSERT_STRING_EQUAL(err.msg, "NUL byte (character 0) in SQL text");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_parse_next(p, &st, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    rsql_plan_t *plan = rsql_plan_build(cat, st, text, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_EQUAL_FATAL(plan->n_outputs, 1);
    CU_ASSERT_STRING_EQUAL(plan->outputs[0].name, "a + 1");
    rsql_plan_destroy(plan);
    rsql_parse_destroy(p);
    free(text);
}

static void test_planner_insert_mapping_errors(void)
{
    expect_error("INSERT INTO s SELECT b, a FROM t", RSQL_ERR_TYPE,
                 "1:22: cannot insert VARCHAR into column 'x' of type BIGINT");
    expect_error("INSERT INTO s SELECT c, b FROM t", RSQL_ERR_TYPE,
                 "1:22: cannot insert DOUBLE into column 'x' of type BIGINT");
    expect_error("INSERT INTO s (x, y) SELECT a, b, c FROM t", RSQL_ERR_SEMANTIC,
                 "1:29: INSERT has 2 target columns but SELECT produces 3 values");
    expect_error("INSERT INTO s SELECT a FROM t", RSQL_ERR_SEMANTIC,
                 "1:22: table 's' has 2 columns but SELECT produces 1 value");
    expect_error("INSERT INTO s (x, q) SELECT a, b FROM t", RSQL_ERR_UNKNOWN_NAME,
                 "1:19: table 's' has no column named 'q'");
    expect_error("INSERT INTO s (y, Y) SELECT b, b FROM t", RSQL_ERR_SEMANTIC,
                 "1:19: column 'y' is listed more than once");
    expect_error("INSERT INTO db (label) SELECT b FROM t", RSQL_ERR_SEMANTIC,
                 "1:17: column 'id' is NOT NULL but gets no value (it is not in the column "
                 "list)");
    expect_error("INSERT INTO db SELECT NULL, b, c FROM t", RSQL_ERR_TYPE,
                 "1:23: cannot insert NULL into column 'id' which is NOT NULL");
}

static void test_planner_type_errors(void)
{
    expect_error("SELECT a FROM t WHERE a", RSQL_ERR_TYPE,
                 "1:23: WHERE clause must be BOOLEAN, got INT");
    expect_error("SELECT a FROM t WHERE a + 1 > b", RSQL_ERR_TYPE,
                 "1:29: cannot compare INT with VARCHAR");
    expect_error("SELECT b * 2 FROM t", RSQL_ERR_TYPE,
                 "1:8: operator * needs numeric operands, got VARCHAR");
    expect_error("SELECT UPPER(a) FROM t", RSQL_ERR_TYPE,
                 "1:14: argument 1 of UPPER must be VARCHAR, got INT");
    expect_error("SELECT ROUND(c, 1, 2) FROM t", RSQL_ERR_TYPE,
                 "1:20: ROUND() takes 1 to 2 arguments, got 3");
    expect_error("SELECT a / 0 FROM t", RSQL_ERR_SEMANTIC, "1:8: division by zero");
    expect_error("SELECT CAST('x1' AS BIGINT) FROM t", RSQL_ERR_TYPE,
                 "1:8: cannot cast 'x1' to BIGINT");
}

static void test_planner_insert_mapping(void)
{
    rsql_plan_t *plan = plan_ok("INSERT INTO db (score, id) SELECT a, a + 1 FROM t WHERE a > 3",
                                NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_EQUAL(plan->kind, RSQL_PLAN_INSERT);
    CU_ASSERT_STRING_EQUAL(plan->source.def->name, "t");
    CU_ASSERT_STRING_EQUAL(plan->source.conn->name, "datagen");
    CU_ASSERT_STRING_EQUAL(plan->sink.def->name, "db");
    CU_ASSERT_STRING_EQUAL(plan->sink.conn->name, "sqlite");
    CU_ASSERT_PTR_NOT_NULL(plan->sink.opts);
    CU_ASSERT_TRUE(plan->source_bounded);
    CU_ASSERT_PTR_NOT_NULL(plan->filter);
    CU_ASSERT_FALSE(plan->has_limit);
    CU_ASSERT_EQUAL_FATAL(plan->n_outputs, 3);
    /* sink order: id := CAST((a + 1) AS BIGINT), label := NULL, score := CAST(a AS DOUBLE) */
    CU_ASSERT_STRING_EQUAL(plan->outputs[0].name, "id");
    CU_ASSERT_TRUE(plan->outputs[0].not_null);
    CU_ASSERT_EQUAL(plan->outputs[0].expr->kind, RSQL_BX_CAST);
    CU_ASSERT_TRUE(plan->outputs[0].expr->implicit);
    CU_ASSERT_EQUAL(plan->outputs[0].expr->type, RSQL_TYPE_BIGINT);
    CU_ASSERT_EQUAL(plan->outputs[1].expr->kind, RSQL_BX_CONST);
    CU_ASSERT_TRUE(plan->outputs[1].expr->value.is_null);
    CU_ASSERT_EQUAL(plan->outputs[1].type, RSQL_TYPE_VARCHAR);
    CU_ASSERT_EQUAL(plan->outputs[2].type, RSQL_TYPE_DOUBLE);
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_bexpr_print(plan->outputs[0].expr, &b);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "CAST((a + 1) AS BIGINT)");
    rsql_buf_reset(&b);
    rsql_bexpr_print(plan->filter, &b);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "a > 3");
    rsql_buf_deinit(&b);

    /* the per-row transform: filter, projection, casts */
    rsql_eval_ctx_t ctx;
    rsql_eval_ctx_init(&ctx);
    rsql_value_t in[3] = {{.type = RSQL_TYPE_INT, .v.i = 5},
                          {.type = RSQL_TYPE_VARCHAR, .v.s = {"x", 1}},
                          {.type = RSQL_TYPE_DOUBLE, .v.d = 1.0}};
    rsql_value_t out[3];
    bool keep = false;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_plan_apply(plan, in, &ctx, out, &keep, &err), RSQL_OK);
    CU_ASSERT_TRUE(keep);
    CU_ASSERT_EQUAL(out[0].type, RSQL_TYPE_BIGINT);
    CU_ASSERT_EQUAL(out[0].v.i, 6);
    CU_ASSERT_TRUE(out[1].is_null);
    CU_ASSERT_EQUAL(out[2].type, RSQL_TYPE_DOUBLE);
    CU_ASSERT_DOUBLE_EQUAL(out[2].v.d, 5.0, 0);
    in[0].v.i = 2; /* filtered out */
    CU_ASSERT_EQUAL(rsql_plan_apply(plan, in, &ctx, out, &keep, &err), RSQL_OK);
    CU_ASSERT_FALSE(keep);
    in[0].is_null = true; /* NULL > 3 is unknown: filtered out too */
    CU_ASSERT_EQUAL(rsql_plan_apply(plan, in, &ctx, out, &keep, &err), RSQL_OK);
    CU_ASSERT_FALSE(keep);
    rsql_eval_ctx_deinit(&ctx);
    rsql_plan_destroy(plan);
}

static void test_planner_apply_errors(void)
{
    const char *sql = "INSERT INTO db SELECT a / (a - 4), b, c FROM t";
    rsql_plan_t *plan = plan_ok(sql, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    rsql_eval_ctx_t ctx;
    rsql_eval_ctx_init(&ctx);
    rsql_value_t in[3] = {{.type = RSQL_TYPE_INT, .v.i = 4},
                          {.type = RSQL_TYPE_VARCHAR, .v.s = {"x", 1}},
                          {.type = RSQL_TYPE_DOUBLE, .v.d = 1.0}};
    rsql_value_t out[3];
    bool keep = true;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_plan_apply(plan, in, &ctx, out, &keep, &err), RSQL_ERR_EVAL);
    CU_ASSERT_FALSE(keep);
    char buf[300];
    rsql_plan_error_format(plan, &err, buf, sizeof(buf));
    CU_ASSERT_STRING_EQUAL(buf, "1:23: division by zero (at 'a / (a - 4)')");
    /* a NULL for the NOT NULL column id */
    in[0].is_null = true;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_plan_apply(plan, in, &ctx, out, &keep, &err), RSQL_ERR_EVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "NULL value for NOT NULL column 'id'");
    rsql_eval_ctx_deinit(&ctx);
    rsql_plan_destroy(plan);
}

static void test_planner_select_preview(void)
{
    rsql_plan_t *plan = plan_ok("SELECT *, a * 2 AS twice, UPPER(b) FROM t LIMIT 7", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_EQUAL(plan->kind, RSQL_PLAN_SELECT);
    CU_ASSERT_PTR_NULL(plan->sink.def);
    CU_ASSERT_TRUE(plan->has_limit);
    CU_ASSERT_EQUAL(plan->limit, 7);
    CU_ASSERT_EQUAL_FATAL(plan->n_outputs, 5);
    CU_ASSERT_STRING_EQUAL(plan->outputs[0].name, "a");
    CU_ASSERT_STRING_EQUAL(plan->outputs[2].name, "c");
    CU_ASSERT_STRING_EQUAL(plan->outputs[3].name, "twice");
    CU_ASSERT_STRING_EQUAL(plan->outputs[4].name, "UPPER(b)");
    CU_ASSERT_EQUAL(plan->outputs[4].type, RSQL_TYPE_VARCHAR);
    rsql_plan_destroy(plan);

    /* no LIMIT: sql.preview-limit (100 by default, or as SET) */
    plan = plan_ok("SELECT a FROM gen", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_TRUE(plan->has_limit);
    CU_ASSERT_EQUAL(plan->limit, 100);
    CU_ASSERT_TRUE(plan->limit_from_setting);
    CU_ASSERT_FALSE(plan->source_bounded);
    rsql_plan_destroy(plan);
}

static void test_planner_bounded(void)
{
    static const struct {
        const char *sql;
        bool bounded;
    } cases[] = {
        {"SELECT a FROM t", true},     {"SELECT a FROM gen", false},
        {"SELECT x FROM s", true},     {"SELECT x FROM follow", false},
        {"SELECT id FROM db", true},   {"SELECT body FROM mq", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rsql_plan_t *plan = plan_ok(cases[i].sql, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
        CU_ASSERT_EQUAL(plan->source_bounded, cases[i].bounded);
        rsql_plan_destroy(plan);
    }
}

static void test_planner_settings_and_dlq(void)
{
    rsql_settings_t *set = rsql_settings_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_set(set, "errors.tolerance", "all", RSQL_NOPOS, RSQL_NOPOS,
                                      &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_settings_set(set, "errors.dlq.table", "dlq", RSQL_NOPOS, RSQL_NOPOS,
                                      &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_settings_set(set, "errors.retry.timeout", "2min", RSQL_NOPOS,
                                      RSQL_NOPOS, &err), RSQL_OK);
    rsql_plan_t *plan = plan_ok("INSERT INTO s SELECT a, b FROM t", set);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_TRUE(plan->errors.tolerate_all);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan->errors.dlq.def);
    CU_ASSERT_STRING_EQUAL(plan->errors.dlq.def->name, "dlq");
    CU_ASSERT_STRING_EQUAL(plan->errors.dlq.conn->name, "blackhole");
    CU_ASSERT_EQUAL(plan->errors.retry_timeout_ms, 120000);
    CU_ASSERT_EQUAL(plan->queue_capacity, 2048);
    rsql_plan_destroy(plan);

    CU_ASSERT_EQUAL(rsql_settings_set(set, "errors.dlq.table", "s", RSQL_NOPOS, RSQL_NOPOS,
                                      &err), RSQL_OK);
    plan = plan_of("INSERT INTO db SELECT a, b, c FROM t", set, &err);
    CU_ASSERT_PTR_NULL(plan);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_SETTING);
    CU_ASSERT_EQUAL(err.pos.off, RSQL_POS_NONE);
    CU_ASSERT_STRING_EQUAL(err.msg, "dead-letter table 's' must have column 'raw' BYTES or "
                                    "VARCHAR (setting errors.dlq.table)");
    rsql_settings_destroy(set);
}

static void test_planner_explain(void)
{
    const char *sql = "EXPLAIN INSERT INTO s SELECT a + 1, UPPER(b) FROM t WHERE a > 3";
    rsql_error_t err;
    rsql_plan_t *plan = plan_of(sql, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    rsql_buf_t b = RSQL_BUF_INIT;
    CU_ASSERT_EQUAL(rsql_plan_explain(plan, &b), RSQL_OK);
    const char *want =
        "Sink: s\n"
        "  connector: filesystem\n"
        "  format: json\n"
        "  options: 'path'='/tmp/out.json', 'format'='json'\n"
        "  columns: x BIGINT, y VARCHAR\n"
        "  delivery: at-least-once (a row's source position is committed only after the sink "
        "confirms it)\n"
        "  ->  Projection\n"
        "        x := CAST((a + 1) AS BIGINT) (BIGINT)\n"
        "        y := UPPER(b) (VARCHAR)\n"
        "        ->  Filter: a > 3\n"
        "              ->  Source: t\n"
        "                    connector: datagen\n"
        "                    options: 'number-of-rows'='10'\n"
        "                    columns: a INT, b VARCHAR, c DOUBLE\n"
        "                    read: bounded (number-of-rows)\n"
        "                    offsets: position committed to the catalog up to the first row "
        "whose outcome is unknown\n"
        "Changelog: append-only (+I) from t; sink s appends the rows\n"
        "Threads: poll -> queue(2048) -> decode/filter/project/encode -> queue(2048) -> write "
        "(batches of 512)\n"
        "Errors: tolerance none (a failed row stops the job; nothing past it is committed or "
        "acked)\n"
        "Retries: retriable failures retried for up to 30s (backoff from 100ms, doubling, at "
        "most 5s)\n";
    if (strcmp(rsql_buf_str(&b), want) != 0) {
        fprintf(stderr, "\n%s", rsql_buf_str(&b));
    }
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), want);
    rsql_buf_deinit(&b);
    rsql_plan_destroy(plan);

    /* secrets are masked; a preview never acks */
    plan = plan_of("SELECT body FROM mq", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    rsql_buf_init(&b);
    CU_ASSERT_EQUAL(rsql_plan_explain(plan, &b), RSQL_OK);
    const char *text = rsql_buf_str(&b);
    CU_ASSERT_PTR_NULL(strstr(text, "s3cr3t"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "'secret-key'='******'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "Preview: print to terminal, LIMIT 100 "
                                        "(sql.preview-limit), never acks\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "acks: never"));
    for (const char *c = text; *c; c++) {
        CU_ASSERT_FATAL((unsigned char)*c < 0x80); /* ASCII only */
    }
    rsql_buf_deinit(&b);
    rsql_plan_destroy(plan);
}

static void test_planner_oom_sweep(void)
{
    const char *sql = "INSERT INTO db (id, label) SELECT a, CONCAT(b, '-', c) FROM t "
                      "WHERE a IN (1, 2) AND b LIKE 'x%' AND CASE WHEN c > 1 THEN TRUE END";
    int ok = 0, nomem = 0;
    for (long n = 1; n < 400 && ok == 0; n++) {
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
        rsql_stmt_t *st = NULL;
        if (!p || rsql_parse_next(p, &st, &err) != RSQL_OK) {
            rsql_parse_destroy(p);
            CU_FAIL("parse");
            break;
        }
        rsql_mem_fail_after(n);
        rsql_plan_t *plan = rsql_plan_build(cat, st, sql, NULL, &err);
        rsql_mem_fail_after(0);
        if (plan) {
            ok++;
            rsql_buf_t b = RSQL_BUF_INIT;
            CU_ASSERT_EQUAL(rsql_plan_explain(plan, &b), RSQL_OK);
            rsql_buf_deinit(&b);
        } else {
            if (err.code != RSQL_ERR_NOMEM) {
                fprintf(stderr, "\nfail after %ld: %s %s\n", n, rsql_err_name(err.code),
                        err.msg);
            }
            CU_ASSERT_EQUAL(err.code, RSQL_ERR_NOMEM);
            nomem++;
        }
        rsql_plan_destroy(plan);
        rsql_parse_destroy(p);
    }
    CU_ASSERT_EQUAL(ok, 1);
    CU_ASSERT(nomem > 5);
}

static CU_TestInfo planner_tests[] = {
    {"test_planner_unknown_names", test_planner_unknown_names},
    {"test_planner_sides", test_planner_sides},
    {"test_planner_connector_column_check", test_planner_connector_column_check},
    {"test_planner_statement_after_nul", test_planner_statement_after_nul},
    {"test_planner_insert_mapping_errors", test_planner_insert_mapping_errors},
    {"test_planner_type_errors", test_planner_type_errors},
    {"test_planner_insert_mapping", test_planner_insert_mapping},
    {"test_planner_apply_errors", test_planner_apply_errors},
    {"test_planner_select_preview", test_planner_select_preview},
    {"test_planner_bounded", test_planner_bounded},
    {"test_planner_settings_and_dlq", test_planner_settings_and_dlq},
    {"test_planner_explain", test_planner_explain},
    {"test_planner_oom_sweep", test_planner_oom_sweep},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"planner", suite_init, suite_clean, NULL, NULL, planner_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
