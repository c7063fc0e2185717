/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_funcs: hostile arguments through the evaluators of the SQL functions (planner/fn_*.c):
 * regular expressions and subjects, date/time patterns and texts, JSON documents and paths,
 * base64, padding and splitting, each call planned with "SELECT call FROM t" and evaluated
 * over one row. Promises checked: a call either gives a value or fails its row with an
 * evaluation error (never another code, a crash, a hang or unbounded memory); a string result
 * stays within RSQL_FN_MAX_RESULT; a DECIMAL result (/ % ROUND FLOOR CEIL ABS) fits its
 * type; JSON_OBJECT and JSON_ARRAY always write JSON that reads
 * back. With a literal pattern the plan may refuse it (a plan-time error), never crash.
 *
 * Input: byte 0 picks the call (low 5 bits) and whether its second argument is the column
 * b or a literal (bit 7); bytes 1-8 are the BIGINT n (little endian); the rest is split at
 * 0xff bytes into the VARCHAR columns a, b, c.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "catalog/rsql_catalog.h"
#include "planner/fn_int.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_catalog.h"

/* {A} {C} {N}: the columns a, c, n; {B}: the column b or the literal of b's bytes */
static const char *const calls[] = {
    "JSON_VALUE({A}, {B})",
    "JSON_VALUE({A}, {B} RETURNING BIGINT DEFAULT -1 ON EMPTY)",
    "JSON_VALUE({A}, {B} RETURNING TIMESTAMP(3))",
    "JSON_QUERY({A}, {B} WITH CONDITIONAL ARRAY WRAPPER EMPTY OBJECT ON ERROR)",
    "JSON_EXISTS({A}, {B} UNKNOWN ON ERROR)",
    "REGEXP({A}, {B})",
    "REGEXP_EXTRACT({A}, {B}, {N} % 5)",
    "REGEXP_REPLACE({A}, {B}, {C})",
    "DATE_FORMAT({A}, {B})",
    "TO_TIMESTAMP({A}, {B})",
    "UNIX_TIMESTAMP({A}, {B})",
    "FROM_UNIXTIME({N}, {B})",
    "DATE_FORMAT(CAST({N} AS TIMESTAMP), {B})",
    "TIMESTAMPADD(MONTH, {N} % 100000000, CAST({N} AS TIMESTAMP))",
    "EXTRACT(WEEK FROM CAST({N} AS TIMESTAMP))",
    "TIMESTAMPDIFF(MONTH, CAST({N} AS TIMESTAMP), TO_TIMESTAMP({A}))",
    "REPLACE({A}, {B}, {C})",
    "SPLIT_INDEX({A}, {B}, {N} % 10)",
    "LPAD({A}, {N} % 100000, {B})",
    "RPAD({A}, {N} % 100000, {B})",
    "POSITION({B} IN {A})",
    "FROM_BASE64({B})",
    "MD5({A}) || SHA256({B}) || TO_BASE64({C})",
    "JSON_OBJECT(KEY 'k' VALUE {A}, 'n' VALUE {N}, 'q' VALUE JSON_QUERY({B}, '$'))",
    "JSON_ARRAY({A}, {N}, JSON_QUERY({B}, '$') NULL ON NULL)",
    "IF(REGEXP({A}, {B}), {C}, IFNULL(JSON_VALUE({C}, '$.a'), {A}))",
    "CAST({A} AS DECIMAL(38, 10)) / CAST({C} AS DECIMAL(20, 5))",
    "CAST({A} AS DECIMAL(38, 0)) % CAST({C} AS DECIMAL(38, 38))",
    "CAST({A} AS DECIMAL(38, 38)) / CAST({C} AS DECIMAL(38, 0))",
    "ROUND(CAST({A} AS DECIMAL(38, 19)), {N} % 80)",
    "FLOOR(CAST({A} AS DECIMAL(38, 38))) + CEIL(CAST({C} AS DECIMAL(20, 3)))"
    " + ABS(-CAST({A} AS DECIMAL(38, 38)))",
    "TIMESTAMPADD(DAY, {N}, CAST({A} AS DATE))",
    "TIMESTAMPADD(YEAR, {N} % 100000000, CAST({A} AS DATE))",
    "EXTRACT(WEEK FROM CAST({A} AS DATE))"
    " + TIMESTAMPDIFF(DAY, CAST({A} AS DATE), CAST({N} AS TIMESTAMP))",
};
#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

static rsql_catalog_t *cat;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    rsql_error_t err;
    rsql_error_clear(&err);
    cat = rsql_catalog_open(":memory:", &err);
    if (!cat || cu_catalog_create(cat, "CREATE TABLE t (a VARCHAR, b VARCHAR, c VARCHAR, "
                                       "n BIGINT) WITH ('connector'='datagen')")) {
        abort();
    }
    return 0;
}

/* Append the SQL literal of s (n bytes; no NUL) to out. */
static void put_literal(rsql_buf_t *out, const char *s, size_t n)
{
    rsql_buf_putc(out, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') {
            rsql_buf_putc(out, '\'');
        }
        rsql_buf_putc(out, s[i]);
    }
    rsql_buf_putc(out, '\'');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    uint8_t pick = fz_byte(&r);
    uint64_t nv = 0;
    for (int i = 0; i < 8; i++) {
        nv |= (uint64_t)fz_byte(&r) << (8 * i);
    }
    size_t an, bn, cn;
    const char *a = (const char *)fz_until(&r, 0xff, &an);
    const char *b = (const char *)fz_until(&r, 0xff, &bn);
    const char *c = (const char *)fz_bytes(&r, r.n, &cn);
    bool literal = (pick & 0x80) && !memchr(b, 0, bn);
    const char *call = calls[(pick & 0x1f) % N_CALLS];

    rsql_buf_t sql = RSQL_BUF_INIT;
    rsql_buf_puts(&sql, "SELECT ");
    for (const char *p = call; *p; p++) {
        if (p[0] == '{' && p[1] && p[2] == '}') {
            if (p[1] == 'B' && literal) {
                put_literal(&sql, b, bn);
            } else {
                rsql_buf_putc(&sql, (char)(p[1] - 'A' + 'a'));
            }
            p += 2;
        } else {
            rsql_buf_putc(&sql, *p);
        }
    }
    rsql_buf_puts(&sql, " FROM t");
    FZ_CHECK(!sql.oom, "out of memory");

    rsql_parse_t *ps = rsql_parse_new(sql.data, sql.len);
    rsql_stmt_t *st = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    FZ_CHECK(rsql_parse_next(ps, &st, &err) == RSQL_OK && st, "the call parses: %s: %s",
             sql.data, err.msg);
    rsql_plan_t *plan = rsql_plan_build(cat, st, sql.data, NULL, &err);
    rsql_parse_destroy(ps);
    if (!plan) {
        FZ_CHECK(literal && err.code == RSQL_ERR_TYPE, "only a literal pattern is refused: %s: %s",
                 sql.data, err.msg);
        rsql_buf_deinit(&sql);
        return 0;
    }
    rsql_value_t row[4] = {
        {.type = RSQL_TYPE_VARCHAR, .v.s = {a, an}},
        {.type = RSQL_TYPE_VARCHAR, .v.s = {b, bn}},
        {.type = RSQL_TYPE_VARCHAR, .v.s = {c, cn}},
        {.type = RSQL_TYPE_BIGINT, .v.i = (int64_t)nv},
    };
    rsql_eval_ctx_t ctx;
    rsql_eval_ctx_init(&ctx);
    rsql_value_t out;
    rsql_err_t rc = rsql_expr_eval(plan->outputs[0].expr, row, &ctx, &out, &err);
    FZ_CHECK(rc == RSQL_OK || rc == RSQL_ERR_EVAL, "a value or an error of the row: %s: %d %s",
             sql.data, (int)rc, err.msg);
    if (rc == RSQL_OK && !out.is_null && out.type == RSQL_TYPE_DECIMAL) {
        char text[RSQL_VALUE_TEXT_MAX];
        size_t len = rsql_value_format_decimal(&out, text), digits = 0;
        const char *dot = memchr(text, '.', len);
        for (size_t i = 0; i < len; i++) {
            digits += text[i] >= '0' && text[i] <= '9';
        }
        FZ_CHECK(digits <= (size_t)(out.prec > out.scale ? out.prec : out.scale + 1) &&
                     (dot ? (size_t)(text + len - dot - 1) : 0) == out.scale,
                 "a DECIMAL result fits DECIMAL(%d, %d): %s", out.prec, out.scale, text);
    }
    if (rc == RSQL_OK && !out.is_null && out.type == RSQL_TYPE_VARCHAR) {
        FZ_CHECK(out.v.s.len <= RSQL_FN_MAX_RESULT + 64, "a bounded result: %zu", out.v.s.len);
        if (strncmp(call, "JSON_OBJECT", 11) == 0 || strncmp(call, "JSON_ARRAY", 10) == 0) {
            const char *why = NULL;
            size_t at = 0;
            rsql_jpath_t *root = rsql_jpath_parse("$", 1, &why, &at);
            rsql_buf_t back = RSQL_BUF_INIT;
            FZ_CHECK(root && rsql_json_path_text(root, out.v.s.p, out.v.s.len, &back, &why) ==
                                 RSQL_JFOUND_VALUE,
                     "JSON_OBJECT/JSON_ARRAY write JSON: %.*s", (int)out.v.s.len, out.v.s.p);
            rsql_buf_deinit(&back);
            free(root);
        }
    }
    rsql_eval_ctx_deinit(&ctx);
    rsql_plan_destroy(plan);
    rsql_buf_deinit(&sql);
    return 0;
}
