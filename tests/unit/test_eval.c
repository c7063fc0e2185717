/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the expression evaluator (planner/plan_eval.c, plan_funcs.c,
 * plan_cast.c): every operator and function, SQL three-valued logic truth
 * tables, NULL propagation, integer overflow, division by zero, casts,
 * LIKE patterns, UTF-8 strings, and the scratch memory of rsql_eval_ctx_t.
 * Each expression is written in SQL, planned as "SELECT expr FROM t" against
 * an in-memory catalog, and evaluated over one fixed row.
 */
#include "config.h"
#include "planner/rsql_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_catalog.h"

/* The row: a=7 b='héllo' c=2.5 d=TRUE e=2024-01-02T03:04:05.678Z f=10^12 g=bytes h='abc'
 * i=' 42 ' n=NULL (INT) s=NULL (VARCHAR) z=0 */
#define TS_E INT64_C(1704164645678)
static rsql_value_t row[12];

static void set_row(void)
{
    memset(row, 0, sizeof(row));
    row[0] = (rsql_value_t){.type = RSQL_TYPE_INT, .v.i = 7};
    row[1] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"h\xc3\xa9llo", 6}};
    row[2] = (rsql_value_t){.type = RSQL_TYPE_DOUBLE, .v.d = 2.5};
    row[3] = (rsql_value_t){.type = RSQL_TYPE_BOOLEAN, .v.b = true};
    row[4] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = TS_E};
    row[5] = (rsql_value_t){.type = RSQL_TYPE_BIGINT, .v.i = INT64_C(1000000000000)};
    row[6] = (rsql_value_t){.type = RSQL_TYPE_BYTES, .v.s = {"\xff\x01", 2}};
    row[7] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"abc", 3}};
    row[8] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {" 42 ", 4}};
    row[9] = (rsql_value_t){.type = RSQL_TYPE_INT, .is_null = true};
    row[10] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .is_null = true};
    row[11] = (rsql_value_t){.type = RSQL_TYPE_INT, .v.i = 0};
}

#include "tests/lib/cu_eval.h"

static int suite_init_table(void)
{
    if (suite_init()) {
        return -1;
    }
    return cu_catalog_create(cat, "CREATE TABLE t (a INT, b VARCHAR, c DOUBLE, d BOOLEAN, "
                                  "e TIMESTAMP(3), f BIGINT, g BYTES, h VARCHAR, i VARCHAR, "
                                  "n INT, s VARCHAR, z INT) "
                                  "WITH ('connector'='datagen', 'number-of-rows'='1')");
}

/* ---- tests */

static void test_eval_arithmetic(void)
{
    expect_int("a + 1", 8);
    expect_int("a - 10", -3);
    expect_int("a * 6", 42);
    expect_int("a / 2", 3);  /* integer division truncates toward zero */
    expect_int("-a / 2", -3);
    expect_int("a % 4", 3);
    expect_int("-a % 4", -3);
    expect_int("a % -1", 0);
    expect_int("f + a", INT64_C(1000000000007));
    expect_type("a + 1", RSQL_TYPE_INT);
    expect_type("a + f", RSQL_TYPE_BIGINT);
    expect_type("a + c", RSQL_TYPE_DOUBLE);
    expect_double("a + c", 9.5);
    expect_double("c / 2", 1.25);
    expect_double("a / 2.0", 3.5);
    expect_double("-c", -2.5);
    expect_int("-(a + 1)", -8);
    expect_int("+a", 7);
    expect_int("-2147483648", INT32_MIN);
    expect_type("-2147483648", RSQL_TYPE_INT);
    expect_type("2147483648", RSQL_TYPE_BIGINT);
    expect_null("a + n");
    expect_null("n * 0");
    expect_null("n / z"); /* NULL wins over the division by zero */
    expect_null("a + NULL");
}

static void test_eval_overflow_and_division(void)
{
    expect_eval_error("2147483647 + a", "integer overflow", "2147483647 + a");
    expect_eval_error("a * 1000000000", "integer overflow", "a * 1000000000");
    expect_eval_error("-2147483647 - a", "integer overflow", "-2147483647 - a");
    expect_eval_error("f * f", "integer overflow", "f * f");
    expect_eval_error("9223372036854775807 + a", "integer overflow", NULL);
    expect_eval_error("-(-2147483647 - 1 + z)", "integer overflow", "-(-2147483647 - 1 + z)");
    expect_eval_error("ABS(-2147483647 - 1 + z)", "integer overflow", NULL);
    expect_eval_error("a / z", "division by zero", "a / z");
    expect_eval_error("a % z", "division by zero", "a % z");
    expect_eval_error("c / z", "division by zero", "c / z");
    expect_eval_error("1 + (a / (a - 7))", "division by zero", "(a / (a - 7))");
    expect_int("f / (a - 8)", INT64_C(-1000000000000));
}

static void test_eval_comparisons(void)
{
    expect_bool("a = 7", "T");
    expect_bool("a <> 7", "F");
    expect_bool("a < 8", "T");
    expect_bool("a <= 7", "T");
    expect_bool("a > 7", "F");
    expect_bool("a >= 8", "F");
    expect_bool("a = 7.0", "T");
    expect_bool("c > a", "F");
    expect_bool("f > a", "T");
    expect_bool("h = 'abc'", "T");
    expect_bool("h < 'abd'", "T");
    expect_bool("h < 'ab'", "F");
    expect_bool("'' < h", "T");
    expect_bool("d = TRUE", "T");
    expect_bool("FALSE < TRUE", "T");
    expect_bool("e = '2024-01-02T03:04:05.678Z'", "T");
    expect_bool("e > '2024-01-02'", "T");
    expect_bool("e < '2024-01-02 04:04:05.678+01:00'", "F");
    expect_bool("e > NOW()", "F");
    expect_bool("n = 1", "N");
    expect_bool("n <> n", "N");
    expect_bool("s = h", "N");
    expect_bool("NULL = NULL", "N");
}

static void test_eval_three_valued_logic(void)
{
    static const char *vals[] = {"TRUE", "FALSE", "(n = 1)"}; /* T, F, N */
    static const char *and_tab[3][3] = {{"T", "F", "N"}, {"F", "F", "F"}, {"N", "F", "N"}};
    static const char *or_tab[3][3] = {{"T", "T", "T"}, {"T", "F", "N"}, {"T", "N", "N"}};
    static const char *not_tab[3] = {"F", "T", "N"};
    char e[128];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            snprintf(e, sizeof(e), "%s AND %s", vals[i], vals[j]);
            expect_bool(e, and_tab[i][j]);
            snprintf(e, sizeof(e), "%s OR %s", vals[i], vals[j]);
            expect_bool(e, or_tab[i][j]);
        }
        snprintf(e, sizeof(e), "NOT %s", vals[i]);
        expect_bool(e, not_tab[i]);
    }
    /* short circuit: the right side is not evaluated when the left decides */
    expect_bool("FALSE AND a / z = 1", "F");
    expect_bool("TRUE OR a / z = 1", "T");
    expect_bool("NULL AND FALSE", "F");
    expect_bool("NULL OR TRUE", "T");
}

static void test_eval_is_null_in_between(void)
{
    expect_bool("n IS NULL", "T");
    expect_bool("n IS NOT NULL", "F");
    expect_bool("a IS NULL", "F");
    expect_bool("(a / 1) IS NOT NULL", "T");
    expect_bool("a IN (1, 7, 9)", "T");
    expect_bool("a IN (1, 2)", "F");
    expect_bool("a IN (1, n)", "N");
    expect_bool("a IN (7, n)", "T");
    expect_bool("n IN (1, 2)", "N");
    expect_bool("a NOT IN (1, 2)", "T");
    expect_bool("a NOT IN (1, 7)", "F");
    expect_bool("a NOT IN (1, n)", "N");
    expect_bool("c IN (2.5, 3)", "T");
    expect_bool("h IN ('x', 'abc')", "T");
    expect_bool("a BETWEEN 1 AND 7", "T");
    expect_bool("a BETWEEN 8 AND 9", "F");
    expect_bool("a NOT BETWEEN 8 AND 9", "T");
    expect_bool("a BETWEEN n AND 9", "N");
    expect_bool("a BETWEEN n AND 5", "F"); /* x <= 5 is FALSE, so AND is FALSE */
    expect_bool("a NOT BETWEEN n AND 5", "T");
    expect_bool("n BETWEEN 1 AND 2", "N");
    expect_bool("c BETWEEN 2 AND 3", "T");
    expect_bool("e BETWEEN '2024-01-01' AND '2024-01-03'", "T");
}

static void test_eval_case_coalesce_nullif(void)
{
    expect_str("CASE WHEN a > 5 THEN 'big' ELSE 'small' END", "big");
    expect_str("CASE WHEN a > 50 THEN 'big' WHEN a > 6 THEN 'mid' ELSE 'small' END", "mid");
    expect_null("CASE WHEN a > 50 THEN 'big' END");
    expect_str("CASE WHEN n > 1 THEN 'x' ELSE 'unknown is not true' END", "unknown is not true");
    expect_str("CASE a WHEN 1 THEN 'one' WHEN 7 THEN 'seven' END", "seven");
    expect_null("CASE n WHEN 1 THEN 'one' END");
    expect_double("CASE WHEN d THEN a ELSE c END", 7.0);
    expect_type("CASE WHEN d THEN a ELSE f END", RSQL_TYPE_BIGINT);
    expect_int("COALESCE(n, a)", 7);
    expect_int("COALESCE(n, NULL, 3)", 3);
    expect_null("COALESCE(n, NULL)");
    expect_int("COALESCE(a, a / z)", 7); /* lazy */
    expect_double("COALESCE(n, c)", 2.5);
    expect_null("NULLIF(a, 7)");
    expect_int("NULLIF(a, 8)", 7);
    expect_int("NULLIF(a, n)", 7);
    expect_null("NULLIF(n, 1)");
    expect_str("NULLIF(h, 'x')", "abc");
}

static void test_eval_casts(void)
{
    expect_int("CAST(i AS INT)", 42);
    expect_int("CAST(c AS INT)", 2);
    expect_int("CAST(-c AS BIGINT)", -2);
    expect_int("CAST(d AS INT)", 1);
    expect_int("CAST(e AS BIGINT)", TS_E);
    expect_int("CAST(CAST(f AS DOUBLE) AS BIGINT)", INT64_C(1000000000000));
    expect_double("CAST(a AS DOUBLE)", 7.0);
    expect_double("CAST('1e3' AS DOUBLE)", 1000.0);
    expect_bool("CAST(a AS BOOLEAN)", "T");
    expect_bool("CAST(z AS BOOLEAN)", "F");
    expect_bool("CAST('true' AS BOOLEAN)", "T");
    expect_bool("CAST(' FALSE ' AS BOOLEAN)", "F");
    expect_str("CAST(a AS VARCHAR)", "7");
    expect_str("CAST(-f AS VARCHAR)", "-1000000000000");
    expect_str("CAST(c AS VARCHAR)", "2.5");
    expect_str("CAST(CAST(a AS DOUBLE) AS VARCHAR)", "7.0");
    expect_str("CAST(0.1 AS VARCHAR)", "0.1");
    expect_str("CAST(d AS VARCHAR)", "true");
    expect_str("CAST(e AS VARCHAR)", "2024-01-02 03:04:05.678");
    expect_str("CAST(CAST(-1 AS TIMESTAMP(3)) AS VARCHAR)", "1969-12-31 23:59:59.999");
    expect_ts("CAST('2024-01-02 03:04:05.678' AS TIMESTAMP)", TS_E);
    expect_ts("CAST('2024-01-02T04:04:05.678+01:00' AS TIMESTAMP(3))", TS_E);
    expect_ts("CAST('1970-01-01' AS TIMESTAMP)", 0);
    expect_str("CAST(CAST(-86400001 AS TIMESTAMP) AS VARCHAR)", "1969-12-30 23:59:59.999");
    expect_str("CAST(CAST('2000-02-29 12:00:00' AS TIMESTAMP) AS VARCHAR)",
               "2000-02-29 12:00:00.000");
    expect_eval_error("CAST(CONCAT('2023-02-29', h) AS TIMESTAMP)",
                      "cannot cast '2023-02-29abc' to TIMESTAMP(3)", NULL);
    {
        /* the extremes of BIGINT format without overflow */
        rsql_plan_t *plan = NULL;
        rsql_error_t err;
        rsql_value_t v;
        CU_ASSERT_EQUAL(eval_expr("CAST(CAST(-9223372036854775807 - 1 + z AS TIMESTAMP) AS "
                                  "VARCHAR)",
                                  &plan, &v, &err),
                        RSQL_OK);
        rsql_plan_destroy(plan);
    }
    expect_ts("CAST(f AS TIMESTAMP)", INT64_C(1000000000000));
    expect_str("CAST(CAST(f AS TIMESTAMP) AS VARCHAR)", "2001-09-09 01:46:40.000");
    expect_null("CAST(n AS VARCHAR)");
    expect_null("CAST(NULL AS INT)");
    expect_eval_error("CAST(h AS INT)", "cannot cast 'abc' to INT", "CAST(h AS INT)");
    expect_eval_error("CAST(b AS DOUBLE)", "cannot cast 'h\xc3\xa9llo' to DOUBLE", NULL);
    expect_eval_error("CAST(f AS INT)", "cannot cast 1000000000000 to INT", NULL);
    expect_eval_error("CAST(c * 1e30 AS BIGINT)", "cannot cast 2.5e+30 to BIGINT", NULL);
    expect_eval_error("CAST(h AS TIMESTAMP)", "cannot cast 'abc' to TIMESTAMP(3)", NULL);
    expect_eval_error("CAST(h AS BOOLEAN)", "cannot cast 'abc' to BOOLEAN", NULL);
    expect_eval_error("CAST(g AS VARCHAR)", "cannot cast BYTES to VARCHAR: not valid UTF-8",
                      NULL);
    expect_eval_error("CAST(CONCAT(h, '2024-02-30') AS TIMESTAMP)",
                      "cannot cast 'abc2024-02-30' to TIMESTAMP(3)", NULL);
}

static void test_eval_like(void)
{
    expect_bool("h LIKE 'abc'", "T");
    expect_bool("h LIKE 'ab'", "F");
    expect_bool("h LIKE 'a%'", "T");
    expect_bool("h LIKE '%c'", "T");
    expect_bool("h LIKE '%b%'", "T");
    expect_bool("h LIKE 'a_c'", "T");
    expect_bool("h LIKE '___'", "T");
    expect_bool("h LIKE '____'", "F");
    expect_bool("h LIKE '%'", "T");
    expect_bool("'' LIKE '%'", "T");
    expect_bool("'' LIKE '_'", "F");
    expect_bool("h LIKE 'A%'", "F"); /* case-sensitive */
    expect_bool("h NOT LIKE 'a%'", "F");
    expect_bool("'aaab' LIKE '%a%ab'", "T");
    expect_bool("'mississippi' LIKE '%iss%pi'", "T");
    expect_bool("'mississippi' LIKE 'm%s%s%z'", "F");
    expect_bool("b LIKE 'h_llo'", "T"); /* _ is one UTF-8 character */
    expect_bool("b LIKE 'h__llo'", "F");
    expect_bool("b LIKE '%\xc3\xa9%'", "T");
    expect_bool("'50%' LIKE '50!%' ESCAPE '!'", "T");
    expect_bool("'50x' LIKE '50!%' ESCAPE '!'", "F");
    expect_bool("'a_b' LIKE 'a!_b' ESCAPE '!'", "T");
    expect_bool("'axb' LIKE 'a!_b' ESCAPE '!'", "F");
    expect_bool("'a!b' LIKE 'a!!b' ESCAPE '!'", "T");
    expect_bool("s LIKE 'a%'", "N");
    expect_bool("h LIKE s", "N");
    expect_eval_error("h LIKE 'abc!' ESCAPE '!'", "LIKE pattern ends with the ESCAPE character",
                      NULL);
}

static void test_eval_string_functions(void)
{
    expect_str("UPPER(h)", "ABC");
    expect_str("LOWER('MiXeD 1')", "mixed 1");
    expect_str("UPPER(b)", "H\xc3\x89LLO"); /* C.UTF-8 case mapping */
    expect_str("LOWER('\xc3\x89T\xc3\x89')", "\xc3\xa9t\xc3\xa9");
    expect_str("TRIM('  x y  ')", "x y");
    expect_str("TRIM('')", "");
    expect_int("CHAR_LENGTH(b)", 5);
    expect_int("CHAR_LENGTH('')", 0);
    expect_type("CHAR_LENGTH(b)", RSQL_TYPE_INT);
    expect_str("SUBSTRING(b, 2)", "\xc3\xa9llo");
    expect_str("SUBSTRING(b, 2, 2)", "\xc3\xa9l");
    expect_str("SUBSTRING(h, 0, 2)", "a");
    expect_str("SUBSTRING(h, -5, 10)", "abc");
    expect_str("SUBSTRING(h, 4)", "");
    expect_str("SUBSTRING(h, 9, 2)", "");
    expect_str("SUBSTRING(h, 2, 0)", "");
    expect_null("SUBSTRING(s, 1)");
    expect_null("SUBSTRING(h, n)");
    expect_eval_error("SUBSTRING(h, 1, a - 8)", "negative substring length -1", NULL);
    expect_str("CONCAT(h, '-', a, '-', c, '-', d)", "abc-7-2.5-true");
    expect_null("CONCAT(h, s)");
    expect_str("h || '|' || b", "abc|h\xc3\xa9llo");
    expect_null("h || s");
    expect_str("UPPER(h) || LOWER('X')", "ABCx");
    /* 8 bytes at a time while ASCII: every byte next to the ranges ('@' 'A' 'Z' '[', '`' 'a'
       'z' '{'), a word, a tail, and a non-ASCII byte in the middle of a word */
    expect_str("UPPER('@AZ[`az{ @AZ[`az{ user-000001 ~')", "@AZ[`AZ{ @AZ[`AZ{ USER-000001 ~");
    expect_str("LOWER('@AZ[`az{ @AZ[`az{ USER-000001 ~')", "@az[`az{ @az[`az{ user-000001 ~");
    expect_str("UPPER('abcdefghijklmnopqrstuvwxyz')", "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    expect_str("LOWER('ABCDEFGHIJKLMNOPQRSTUVWXYZ')", "abcdefghijklmnopqrstuvwxyz");
    expect_str("UPPER('abcd\xc3\xa9" "fghijkl')", "ABCD\xc3\x89" "FGHIJKL");
    expect_str("LOWER('ABCDEFG\xc3\x89IJKLMNOP')", "abcdefg\xc3\xa9ijklmnop");
    expect_str("UPPER('')", "");
    expect_str("UPPER('abcdefgh')", "ABCDEFGH");   /* one word, no tail */
    expect_str("UPPER('abcdefghi')", "ABCDEFGHI"); /* a tail of one, as an overlapping word */
    expect_str("UPPER('abcdefghij\xc3\xa9')", "ABCDEFGHIJ\xc3\x89"); /* non-ASCII in the tail */
    expect_str("LOWER('user-000001')", "user-000001");
}

static void test_eval_numeric_functions(void)
{
    expect_int("ABS(-a)", 7);
    expect_int("ABS(f)", INT64_C(1000000000000));
    expect_double("ABS(-c)", 2.5);
    expect_double("ROUND(c)", 3.0);
    expect_double("ROUND(-c)", -3.0); /* half away from zero */
    expect_double("ROUND(1.23456, 2)", 1.23);
    expect_double("ROUND(1234.5, -2)", 1200.0);
    expect_int("ROUND(a)", 7);
    expect_int("ROUND(1250, -2)", 1300);
    expect_int("ROUND(-1250, -2)", -1300);
    expect_int("ROUND(1249, -2)", 1200);
    expect_double("FLOOR(c)", 2.0);
    expect_double("FLOOR(-c)", -3.0);
    expect_double("CEIL(c)", 3.0);
    expect_double("CEIL(-c)", -2.0);
    expect_int("FLOOR(a)", 7);
    expect_int("CEIL(f)", INT64_C(1000000000000));
    expect_null("ABS(n)");
    expect_null("ROUND(c, n)");
}

static void test_eval_now(void)
{
    rsql_plan_t *plan = NULL;
    rsql_error_t err;
    rsql_value_t v1, v2;
    rsql_eval_ctx_set_now(&ctx, INT64_C(1700000000000));
    CU_ASSERT_EQUAL(eval_expr("NOW()", &plan, &v1, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v1.type, RSQL_TYPE_TIMESTAMP);
    CU_ASSERT_EQUAL(v1.v.ts, INT64_C(1700000000000));
    rsql_plan_destroy(plan);
    CU_ASSERT_EQUAL(eval_expr("CURRENT_TIMESTAMP", &plan, &v2, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v2.v.ts, INT64_C(1700000000000));
    rsql_plan_destroy(plan);
    rsql_eval_ctx_set_now(&ctx, 0); /* the clock, cached for the batch */
    CU_ASSERT_EQUAL(eval_expr("NOW()", &plan, &v1, &err), RSQL_OK);
    CU_ASSERT(v1.v.ts > INT64_C(1700000000000));
    CU_ASSERT_EQUAL(ctx.now_ms, v1.v.ts);
    rsql_plan_destroy(plan);
}

static void test_eval_scratch_reuse(void)
{
    rsql_eval_ctx_t c;
    rsql_eval_ctx_init(&c);
    char *a = rsql_eval_scratch(&c, 100);
    char *b = rsql_eval_scratch(&c, 10000); /* a second block */
    CU_ASSERT_PTR_NOT_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(b);
    memset(a, 1, 100);
    memset(b, 2, 10000);
    rsql_eval_ctx_reset(&c); /* merged into one block that fits both */
    CU_ASSERT_PTR_NOT_NULL(c.blocks);
    char *a2 = rsql_eval_scratch(&c, 100);
    char *b2 = rsql_eval_scratch(&c, 10000);
    CU_ASSERT_PTR_NOT_NULL(b2);
    CU_ASSERT_EQUAL(b2 - a2, 104); /* same block, 8-byte aligned */
    rsql_eval_ctx_reset(&c);
    CU_ASSERT_PTR_EQUAL(rsql_eval_scratch(&c, 1), a2); /* memory kept */
    rsql_eval_ctx_deinit(&c);
    CU_ASSERT_PTR_NULL(c.blocks);
}

static int eval_suite_init(void)
{
    rsql_eval_ctx_init(&ctx);
    set_row();
    return suite_init_table();
}

static int eval_suite_clean(void)
{
    rsql_eval_ctx_deinit(&ctx);
    return suite_clean();
}

/*
** Depth limits past the parser: an AST deeper than RSQL_SQL_MAX_EXPR_DEPTH (built by hand,
** as no parse can) is refused by the binder at its operator, and the evaluator's bound
** (rsql_expr_depth_ok, which the binder applies) holds on any tree without recursing past
** its limit: 100,000 levels are refused, no stack overflow.
*/
static void test_eval_depth_limits(void)
{
    const char *sql = "SELECT a + a FROM t";
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_parse_next(p, &st, &err), RSQL_OK);
    rsql_expr_t *plus = st->select->items[0].expr; /* a + a: its operands are the leaves */
    enum { DEEP = 100000 };
    rsql_expr_t *chain = rsql_calloc(DEEP, sizeof *chain);
    CU_ASSERT_PTR_NOT_NULL_FATAL(chain);
    for (int i = 0; i < DEEP; i++) {
        chain[i] = *plus;
        chain[i].left = i ? &chain[i - 1] : plus->left;
    }
    st->select->items[0].expr = &chain[DEEP - 1];
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_plan_build(cat, st, sql, NULL, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "expression tree is too deep (maximum depth 1000)");
    CU_ASSERT_EQUAL(err.pos.off, plus->op_pos.off);
    /* at the limit: bound and planned */
    st->select->items[0].expr = &chain[RSQL_SQL_MAX_EXPR_DEPTH - 2]; /* depth 1000 */
    rsql_plan_t *plan = rsql_plan_build(cat, st, sql, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL(plan);
    if (plan) {
        CU_ASSERT_TRUE(rsql_expr_depth_ok(plan->outputs[0].expr, RSQL_EVAL_MAX_DEPTH));
        rsql_plan_destroy(plan);
    }
    rsql_free(chain);
    rsql_parse_destroy(p);

    /* the evaluator's bound on a bound tree of 100,000 levels */
    rsql_bexpr_t *nodes = rsql_calloc(DEEP, sizeof *nodes);
    rsql_bexpr_t **args = rsql_calloc(DEEP, sizeof *args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nodes);
    CU_ASSERT_PTR_NOT_NULL_FATAL(args);
    for (int i = 0; i < DEEP; i++) {
        nodes[i].kind = i ? RSQL_BX_UNARY : RSQL_BX_COLUMN;
        nodes[i].type = RSQL_TYPE_BIGINT;
        nodes[i].op = RSQL_OP_NEG;
        if (i) {
            args[i] = &nodes[i - 1];
            nodes[i].n_args = 1;
            nodes[i].args = &args[i];
        }
    }
    CU_ASSERT_FALSE(rsql_expr_depth_ok(&nodes[DEEP - 1], RSQL_EVAL_MAX_DEPTH));
    CU_ASSERT_TRUE(rsql_expr_depth_ok(&nodes[RSQL_EVAL_MAX_DEPTH - 1], RSQL_EVAL_MAX_DEPTH));
    CU_ASSERT_FALSE(rsql_expr_depth_ok(&nodes[RSQL_EVAL_MAX_DEPTH], RSQL_EVAL_MAX_DEPTH));
    rsql_free(args);
    rsql_free(nodes);
}

/* Plan sql against the test table; NULL (quietly) when it does not plan. */
static rsql_plan_t *plan_quiet(const char *sql)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_plan_t *plan = NULL;
    if (rsql_parse_next(p, &st, &err) == RSQL_OK) {
        plan = rsql_plan_build(cat, st, sql, NULL, &err);
    }
    rsql_parse_destroy(p);
    return plan;
}

/*
** rsql_plan_apply of plan over row by its one program (plan->apply_prog: filter, outputs)
** and by the tree walk (the program set aside): the same keep, outcome and outputs.
*/
static void check_apply(const char *sql, rsql_plan_t *plan)
{
    rsql_value_t o1[4], o2[4];
    rsql_error_t e1, e2;
    bool k1 = true, k2 = true;
    rsql_error_clear(&e1);
    rsql_error_clear(&e2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan->apply_prog);
    rsql_eval_ctx_reset(&ctx);
    rsql_err_t rc1 = rsql_plan_apply(plan, row, &ctx, o1, &k1, &e1);
    const rsql_prog_t *keep_prog = plan->apply_prog;
    plan->apply_prog = NULL; /* the tree walk */
    rsql_err_t rc2 = rsql_plan_apply(plan, row, &ctx, o2, &k2, &e2);
    plan->apply_prog = keep_prog;
    CU_ASSERT_EQUAL(k1, k2);
    if (k1 != k2) {
        fprintf(stderr, "\n%s: flat keep %d, tree keep %d\n", sql, k1, k2);
    }
    CU_ASSERT_EQUAL(rc1, rc2);
    if (rc1 != RSQL_OK || rc2 != RSQL_OK) { /* the same error (no output is read) */
        CU_ASSERT_TRUE(cu_flat_same(sql, rc2, NULL, &e2, rc1, NULL, &e1));
    }
    for (int k = 0; rc1 == RSQL_OK && rc2 == RSQL_OK && k1 && k2 && k < plan->n_outputs; k++) {
        CU_ASSERT_TRUE(cu_flat_same(sql, rc2, &o2[k], &e2, rc1, &o1[k], &e1));
    }
}

/*
** The flat programs (planner/plan_prog.c) against the tree walk, over many rows: every
** expression below is planned once and evaluated both ways over each row made from the edge
** values of its columns (NULL, 0, -1, the INT and BIGINT limits, -0.0, NaN, ...); the two
** outcomes (value, or error with message and place) must be the same. The expressions cover
** every instruction, the places where the fast paths give way to the shared code (overflow,
** division by zero and by -1, the INT range), and the short circuits. A boolean one is also
** a WHERE (rsql_plan_apply's one program of filter and outputs against the tree walk).
*/
static void test_eval_flat_programs(void)
{
    static const char *exprs[] = {
        "a + 1", "a - f", "a * a", "f * f", "f + a", "a - 2147483647", "-a", "-f", "+a",
        "a / z", "a / a", "f / a", "a % z", "a % 10 <> 3", "f % 10 <> 3", "f % a", "a / (a - 8)",
        "f / (a - 8)", "f % (a - 8)", "2147483647 + a", "-2147483648 - a", "a * 1000000000",
        "c * 2", "c / a", "a / c", "c + f", "c - c", "c * c", "a + c", "-c", "c / (a - 7)",
        "a < 3", "a = f", "a <> z", "f >= a", "c > a", "c <= f", "a = 2.5", "c = c", "c <> c",
        "h = 'abc'", "h < b", "e > e", "g = g",
        "d AND a > 1", "d OR a / z > 1", "NOT d", "d AND NOT d", "a / z > 1 AND d",
        "d AND (a / z > 1 OR d)", "n > 1 OR d", "n > 1 AND d", "(a > 1) = d",
        "a IS NULL", "n IS NOT NULL", "f IS NULL", "a + n IS NULL", "NOT (a IS NULL)",
        "UPPER(h)", "UPPER(b)", "LOWER(h) || 'x'", "CHAR_LENGTH(b)", "ABS(a)", "ABS(f)",
        "ABS(a) + ABS(f)", "SUBSTRING(h, 2, a)", "UPPER(s)", "CONCAT(h, s, b)", "ROUND(c, 1)",
        "CAST(a AS VARCHAR)", "CAST(c AS INT)", "CAST(f AS INT)", "CAST(i AS INT) + a",
        "CAST(h AS INT)", "CAST(a AS DOUBLE) / 3", "CAST(c AS DECIMAL(10, 2)) * 3",
        "CAST(a AS DECIMAL(10, 0)) / CAST(z AS DECIMAL(10, 0))", "-CAST(c AS DECIMAL(6, 2))",
        "CASE WHEN a > 1 THEN a / z ELSE f END", "COALESCE(n, a, f)", "IF(d, a, a / z)",
        "a BETWEEN 1 AND 10", "h LIKE 'a%'", "a IN (1, 7, n)", "NULLIF(a, 7)",
        "e + INTERVAL '1' SECOND", "e - INTERVAL '2' DAY", "b || h || CAST(a + f AS VARCHAR)",
    };
    /* per column: the values it takes (the row's own first); one row per value of one column,
       the others at their own */
    static const int64_t ints[] = {7, 0, -1, 1, INT32_MAX, INT32_MIN, 13};
    static const int64_t bigs[] = {INT64_C(1000000000000), 0, -1, INT64_MAX, INT64_MIN, 3};
    const double dbls[] = {2.5, 0.0, -0.0, 1e308, -3.25, NAN};
    rsql_error_t err;
    int runs = 0;
    for (size_t k = 0; k < sizeof exprs / sizeof *exprs; k++) {
        rsql_plan_t *plan = NULL;
        rsql_value_t v;
        set_row();
        if (eval_expr(exprs[k], &plan, &v, &err) != RSQL_OK && !plan) {
            fprintf(stderr, "\n%s: %s\n", exprs[k], err.msg);
            CU_FAIL("expression not planned");
            continue;
        }
        char where[512];
        snprintf(where, sizeof where, "SELECT UPPER(h), %s, a FROM t WHERE %s", exprs[k],
                 exprs[k]);
        rsql_plan_t *filt = plan_quiet(where); /* NULL: not a boolean */
        if (!strcmp(exprs[k], "a % 10 <> 3") || !strcmp(exprs[k], "UPPER(h)") ||
            !strcmp(exprs[k], "c * 2") || !strcmp(exprs[k], "d OR a / z > 1")) {
            /* bench/engine/run's filter and projection, and AND/OR: flat throughout */
            CU_ASSERT_EQUAL(rsql_prog_tree_count(plan->output_progs[0]), 0);
        }
        for (int col = 0; col < 12; col++) {
            int n = col == 0 || col == 11 || col == 9 ? 7 : col == 5 ? 6 : col == 2 ? 6 : 2;
            for (int j = 0; j < n + 1; j++) {
                set_row();
                rsql_value_t *x = &row[col];
                if (j == n) {
                    x->is_null = true;
                } else if (x->type == RSQL_TYPE_INT) {
                    x->is_null = false;
                    x->v.i = ints[j];
                } else if (x->type == RSQL_TYPE_BIGINT) {
                    x->v.i = bigs[j];
                } else if (x->type == RSQL_TYPE_DOUBLE) {
                    x->v.d = dbls[j];
                } else if (x->type == RSQL_TYPE_BOOLEAN) {
                    x->v.b = j == 0;
                } else if (j > 0) {
                    continue;
                }
                rsql_error_t e1;
                rsql_error_clear(&e1);
                rsql_eval_ctx_reset(&ctx);
                rsql_err_t rc = rsql_expr_eval(plan->outputs[0].expr, row, &ctx, &v, &e1);
                cu_flat_check(exprs[k], plan, row, &ctx, rc, &v, &e1);
                if (filt) {
                    check_apply(where, filt);
                }
                runs++;
            }
        }
        rsql_plan_destroy(plan);
        rsql_plan_destroy(filt);
    }
    CU_ASSERT(runs > 2000);
}

static CU_TestInfo eval_tests[] = {
    {"test_eval_depth_limits", test_eval_depth_limits},
    {"test_eval_arithmetic", test_eval_arithmetic},
    {"test_eval_overflow_and_division", test_eval_overflow_and_division},
    {"test_eval_comparisons", test_eval_comparisons},
    {"test_eval_three_valued_logic", test_eval_three_valued_logic},
    {"test_eval_is_null_in_between", test_eval_is_null_in_between},
    {"test_eval_case_coalesce_nullif", test_eval_case_coalesce_nullif},
    {"test_eval_casts", test_eval_casts},
    {"test_eval_like", test_eval_like},
    {"test_eval_string_functions", test_eval_string_functions},
    {"test_eval_numeric_functions", test_eval_numeric_functions},
    {"test_eval_now", test_eval_now},
    {"test_eval_scratch_reuse", test_eval_scratch_reuse},
    {"test_eval_flat_programs", test_eval_flat_programs},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"eval", eval_suite_init, eval_suite_clean, NULL, NULL, eval_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
