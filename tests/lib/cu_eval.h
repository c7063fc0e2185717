/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper shared by the evaluator and function unit tests (test_eval.c, test_funcs.c):
 * an in-memory catalog, and expressions written in SQL, planned as "SELECT expr FROM t" and
 * evaluated over one fixed row, with checks of the value, the type, NULL, and errors with
 * their positions. Header-only. The includer defines `static rsql_value_t row[N]` (the row
 * the expressions see) before including it, and creates table t in `cat` in its suite's init
 * after calling suite_init(). Each helper is marked unused: a test binary takes what it needs.
 * Every expression is evaluated both ways, by the tree walk and by its flat program
 * (cu_flat.h), and the two outcomes must be the same.
 */
#ifndef RSQL_CU_EVAL_H
#define RSQL_CU_EVAL_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "catalog/rsql_catalog.h"
#include "planner/rsql_plan.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_flat.h"

#define CU_EVAL_UNUSED __attribute__((unused))

static rsql_catalog_t *cat;

CU_EVAL_UNUSED
static int suite_init(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    cat = rsql_catalog_open(":memory:", &err);
    if (!cat) {
        fprintf(stderr, "catalog: %s\n", err.msg);
        return -1;
    }
    return 0;
}

CU_EVAL_UNUSED
static int suite_clean(void)
{
    rsql_catalog_close(cat);
    return 0;
}

static char sql_text[4096];
static rsql_eval_ctx_t ctx;

/*
** Plan "SELECT <expr> FROM t" and evaluate it over row. Returns the code;
** *out and *err filled. The plan stays alive in *plan_out for strings.
*/
CU_EVAL_UNUSED
static rsql_err_t eval_expr(const char *expr, rsql_plan_t **plan_out, rsql_value_t *out,
                            rsql_error_t *err)
{
    snprintf(sql_text, sizeof(sql_text), "SELECT %s FROM t", expr);
    rsql_parse_t *p = rsql_parse_new(sql_text, strlen(sql_text));
    rsql_stmt_t *st = NULL;
    rsql_error_clear(err);
    rsql_err_t rc = rsql_parse_next(p, &st, err);
    if (rc) {
        fprintf(stderr, "parse %s: %s\n", sql_text, err->msg);
        rsql_parse_destroy(p);
        return rc;
    }
    rsql_plan_t *plan = rsql_plan_build(cat, st, sql_text, NULL, err);
    rsql_parse_destroy(p); /* the plan must not need the AST */
    if (!plan) {
        return err->code;
    }
    rsql_eval_ctx_reset(&ctx);
    rc = rsql_expr_eval(plan->outputs[0].expr, row, &ctx, out, err);
    cu_flat_check(expr, plan, row, &ctx, rc, out, err); /* the flat program: the same */
    *plan_out = plan;
    return rc;
}

#define EVAL_OK(expr, v)                                                                   \
    rsql_plan_t *plan_ = NULL;                                                             \
    rsql_error_t err_;                                                                     \
    rsql_err_t rc_ = eval_expr(expr, &plan_, &v, &err_);                                   \
    if (rc_) {                                                                             \
        fprintf(stderr, "\n%s: %s\n", expr, err_.msg);                                     \
    }                                                                                      \
    CU_ASSERT_EQUAL(rc_, RSQL_OK)

CU_EVAL_UNUSED
static void expect_int(const char *expr, int64_t want)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    if (rc_ == RSQL_OK) {
        CU_ASSERT_FALSE(v.is_null);
        CU_ASSERT(v.type == RSQL_TYPE_INT || v.type == RSQL_TYPE_BIGINT);
        if (v.v.i != want) {
            fprintf(stderr, "\n%s = %lld, want %lld\n", expr, (long long)v.v.i, (long long)want);
        }
        CU_ASSERT_EQUAL(v.v.i, want);
    }
    rsql_plan_destroy(plan_);
}

CU_EVAL_UNUSED
static void expect_type(const char *expr, rsql_type_t t)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    CU_ASSERT_EQUAL(v.type, t);
    rsql_plan_destroy(plan_);
}

CU_EVAL_UNUSED
static void expect_double(const char *expr, double want)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    if (rc_ == RSQL_OK) {
        CU_ASSERT_FALSE(v.is_null);
        CU_ASSERT_EQUAL(v.type, RSQL_TYPE_DOUBLE);
        CU_ASSERT_DOUBLE_EQUAL(v.v.d, want, 1e-9);
    }
    rsql_plan_destroy(plan_);
}

CU_EVAL_UNUSED
static void expect_ts(const char *expr, int64_t want)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    if (rc_ == RSQL_OK) {
        CU_ASSERT_FALSE(v.is_null);
        CU_ASSERT_EQUAL(v.type, RSQL_TYPE_TIMESTAMP);
        CU_ASSERT_EQUAL(v.v.ts, want);
    }
    rsql_plan_destroy(plan_);
}

/* want: "T", "F" or "N" (NULL) */
CU_EVAL_UNUSED
static void expect_bool(const char *expr, const char *want)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    if (rc_ == RSQL_OK) {
        const char *got = v.is_null ? "N" : v.v.b ? "T" : "F";
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "\n%s = %s, want %s\n", expr, got, want);
        }
        CU_ASSERT_STRING_EQUAL(got, want);
        CU_ASSERT_EQUAL(v.type, RSQL_TYPE_BOOLEAN);
    }
    rsql_plan_destroy(plan_);
}

CU_EVAL_UNUSED
static void expect_str(const char *expr, const char *want)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    if (rc_ == RSQL_OK) {
        CU_ASSERT_FALSE_FATAL(v.is_null);
        char got[256];
        snprintf(got, sizeof(got), "%.*s", (int)v.v.s.len, v.v.s.p);
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "\n%s = '%s', want '%s'\n", expr, got, want);
        }
        CU_ASSERT_STRING_EQUAL(got, want);
    }
    rsql_plan_destroy(plan_);
}

CU_EVAL_UNUSED
static void expect_null(const char *expr)
{
    rsql_value_t v;
    EVAL_OK(expr, v);
    if (rc_ == RSQL_OK) {
        CU_ASSERT_TRUE(v.is_null);
    }
    rsql_plan_destroy(plan_);
}

/* Evaluation fails with RSQL_ERR_EVAL, message msg, at the span of at within the SQL. */
CU_EVAL_UNUSED
static void expect_eval_error(const char *expr, const char *msg, const char *at)
{
    rsql_plan_t *plan = NULL;
    rsql_error_t err;
    rsql_value_t v;
    rsql_err_t rc = eval_expr(expr, &plan, &v, &err);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_EVAL);
    CU_ASSERT_PTR_NOT_NULL(plan);
    if (strcmp(err.msg, msg) != 0) {
        fprintf(stderr, "\n%s: got '%s', want '%s'\n", expr, err.msg, msg);
    }
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    if (at) {
        const char *where = strstr(sql_text, at);
        CU_ASSERT_PTR_NOT_NULL_FATAL(where);
        if (err.pos.off != (uint32_t)(where - sql_text) || err.pos.len != strlen(at)) {
            fprintf(stderr, "\n%s: error at %u+%u\n", expr, err.pos.off, err.pos.len);
        }
        CU_ASSERT_EQUAL(err.pos.off, (uint32_t)(where - sql_text));
        CU_ASSERT_EQUAL(err.pos.len, (uint32_t)strlen(at));
    }
    rsql_plan_destroy(plan);
}

/* Planning fails with msg at the span of at. */
CU_EVAL_UNUSED
static void expect_plan_error(const char *expr, const char *msg, const char *at)
{
    rsql_plan_t *plan = NULL;
    rsql_error_t err;
    rsql_value_t v;
    rsql_err_t rc = eval_expr(expr, &plan, &v, &err);
    CU_ASSERT_NOT_EQUAL(rc, RSQL_OK);
    CU_ASSERT_PTR_NULL(plan);
    if (strcmp(err.msg, msg) != 0) {
        fprintf(stderr, "\n%s: got '%s', want '%s'\n", expr, err.msg, msg);
    }
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    const char *where = strstr(sql_text, at);
    CU_ASSERT_PTR_NOT_NULL_FATAL(where);
    if (err.pos.off != (uint32_t)(where - sql_text) || err.pos.len != strlen(at)) {
        fprintf(stderr, "\n%s: error at %u+%u\n", expr, err.pos.off, err.pos.len);
    }
    CU_ASSERT_EQUAL(err.pos.off, (uint32_t)(where - sql_text));
    CU_ASSERT_EQUAL(err.pos.len, (uint32_t)strlen(at));
    rsql_plan_destroy(plan);
}

#endif
