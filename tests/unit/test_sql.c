/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the SQL front end (sql/): the tokenizer, the keyword table,
 * every statement kind through the parser and its dump, node positions,
 * syntax/incomplete errors with their exact text, rsql_sql_complete(),
 * multi-statement scripts, out-of-memory sweeps, and the invalid-statement
 * corpus tests/sql/syntax/invalid.slt (each record's error checked through
 * rsql_parse_next + rsql_error_format).
 */
#include "config.h"
#include "sql/rsql_sql.h"
#include "sql/sql_int.h"

#include "base/rsql_mem.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RSQL_SRCDIR
#define RSQL_SRCDIR "."
#endif

/* ---------------------------------------------------------------- helpers */

/* The dump of the only statement of sql, or "line:col: message" on error. */
static char *parse_dump(const char *sql)
{
    static char out[4096];
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    if (!p) {
        return strcpy(out, "NOMEM");
    }
    rsql_stmt_t *s = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    if (rsql_parse_next(p, &s, &err) != RSQL_OK) {
        rsql_error_format(&err, sql, out, sizeof(out));
    } else if (!s) {
        strcpy(out, "EMPTY");
    } else {
        char *d = rsql_sql_dump(s);
        snprintf(out, sizeof(out), "%s", d ? d : "NOMEM");
        rsql_free(d);
        rsql_stmt_t *next = NULL;
        rsql_error_clear(&err);
        if (rsql_parse_next(p, &next, &err) != RSQL_OK || next) {
            strcpy(out, "MORE THAN ONE STATEMENT");
        }
    }
    rsql_parse_destroy(p);
    return out;
}

#define CHECK_DUMP(sql, expect)                                                      \
    do {                                                                             \
        const char *got_ = parse_dump(sql);                                          \
        if (strcmp(got_, expect) != 0) {                                             \
            fprintf(stderr, "\n  sql:    %s\n  expect: %s\n  got:    %s\n", sql, expect, \
                    got_);                                                           \
        }                                                                            \
        CU_ASSERT_STRING_EQUAL(got_, expect);                                        \
    } while (0)

/* ---------------------------------------------------------------- tokenizer */

static void test_sql_tokenize(void)
{
    static const struct {
        const char *z;
        int type, len;
    } cases[] = {
        {"SELECT x", RSQL_TK_SELECT, 6},
        {"sElEcT", RSQL_TK_SELECT, 6},
        {"abc_1 x", RSQL_TK_ID, 5},
        {"_x9", RSQL_TK_ID, 3},
        {"topic", RSQL_TK_ID, 5},
        {"\xc3\xa9t\xc3\xa9", RSQL_TK_ID, 5},
        {"\"a\"\"b\" c", RSQL_TK_ID, 6},
        {"\"\"", RSQL_TK_ID, 2},
        {"'it''s' x", RSQL_TK_STRING, 7},
        {"''", RSQL_TK_STRING, 2},
        {"123 ", RSQL_TK_INTEGER, 3},
        {"1.5", RSQL_TK_FLOAT, 3},
        {"1.", RSQL_TK_FLOAT, 2},
        {".5)", RSQL_TK_FLOAT, 2},
        {"1e10", RSQL_TK_FLOAT, 4},
        {"1.5E-3,", RSQL_TK_FLOAT, 6},
        {"2e+7", RSQL_TK_FLOAT, 4},
        {"1e", RSQL_TK_ILLEGAL_, 2},
        {"1e+x", RSQL_TK_ILLEGAL_, 4},
        {"12abc ", RSQL_TK_ILLEGAL_, 5},
        {"<=", RSQL_TK_LE, 2},
        {"<>", RSQL_TK_NE, 2},
        {"!=", RSQL_TK_NE, 2},
        {"< 1", RSQL_TK_LT, 1},
        {">=", RSQL_TK_GE, 2},
        {"> 1", RSQL_TK_GT, 1},
        {"==", RSQL_TK_EQ, 1},
        {"||", RSQL_TK_CONCAT, 2},
        {"| x", RSQL_TK_ILLEGAL_, 1},
        {"!x", RSQL_TK_ILLEGAL_, 1},
        {"#", RSQL_TK_ILLEGAL_, 1},
        {"`a`", RSQL_TK_ID, 3},
        {"`a``b` x", RSQL_TK_ID, 6},
        {"`ab", RSQL_TK_UNTERMINATED_, 3},
        {"-- c\nx", RSQL_TK_SPACE_, 4},
        {"-- to the end", RSQL_TK_SPACE_, 13},
        {"/* c */x", RSQL_TK_SPACE_, 7},
        {"/**/", RSQL_TK_SPACE_, 4},
        {"/* c", RSQL_TK_UNTERMINATED_, 4},
        {"/* c *", RSQL_TK_UNTERMINATED_, 6},
        {"'abc", RSQL_TK_UNTERMINATED_, 4},
        {"'ab''", RSQL_TK_UNTERMINATED_, 5},
        {"\"abc", RSQL_TK_UNTERMINATED_, 4},
        {" \t\r\n x", RSQL_TK_SPACE_, 5},
        {"-1", RSQL_TK_MINUS, 1},
        {"/ 2", RSQL_TK_SLASH, 1},
        {"%", RSQL_TK_REM, 1},
        {"*", RSQL_TK_STAR, 1},
        {"+", RSQL_TK_PLUS, 1},
        {"(", RSQL_TK_LP, 1},
        {")", RSQL_TK_RP, 1},
        {",", RSQL_TK_COMMA, 1},
        {";", RSQL_TK_SEMI, 1},
        {".a", RSQL_TK_DOT, 1},
        {"=", RSQL_TK_EQ, 1},
        {"INTEGER", RSQL_TK_INT, 7},
        {"string", RSQL_TK_VARCHAR, 6},
        {"desc", RSQL_TK_DESCRIBE, 4},
        {"bool", RSQL_TK_BOOLEAN, 4},
        {"Current_Timestamp", RSQL_TK_CURRENT_TIMESTAMP, 17},
        {"current_timestamps", RSQL_TK_ID, 18},
        {"selects", RSQL_TK_ID, 7},
        {"selec", RSQL_TK_ID, 5},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int type = 12345;
        int n = rsql_sql_get_token(cases[i].z, &type);
        if (n != cases[i].len || type != cases[i].type) {
            fprintf(stderr, "\n  token %zu [%s]: got type %d len %d, want %d %d\n", i,
                    cases[i].z, type, n, cases[i].type, cases[i].len);
        }
        CU_ASSERT_EQUAL(n, cases[i].len);
        CU_ASSERT_EQUAL(type, cases[i].type);
    }
    int type;
    CU_ASSERT_EQUAL(rsql_sql_get_token("", &type), 0);
}

/* Token types of a whole text, spaces skipped. */
static void test_sql_tokenize_sequence(void)
{
    const char *sql = "SELECT a.b, 'x''y' || \"q\"\"d\" FROM t -- c\nWHERE n<>-1.5e3;";
    const int want[] = {RSQL_TK_SELECT, RSQL_TK_ID,     RSQL_TK_DOT,    RSQL_TK_ID,
                        RSQL_TK_COMMA,  RSQL_TK_STRING, RSQL_TK_CONCAT, RSQL_TK_ID,
                        RSQL_TK_FROM,   RSQL_TK_ID,     RSQL_TK_WHERE,  RSQL_TK_ID,
                        RSQL_TK_NE,     RSQL_TK_MINUS,  RSQL_TK_FLOAT,  RSQL_TK_SEMI};
    size_t k = 0;
    const char *z = sql;
    while (*z) {
        int type;
        int n = rsql_sql_get_token(z, &type);
        CU_ASSERT_FATAL(n > 0);
        if (type != RSQL_TK_SPACE_) {
            CU_ASSERT_FATAL(k < sizeof(want) / sizeof(want[0]));
            CU_ASSERT_EQUAL(type, want[k]);
            k++;
        }
        z += n;
    }
    CU_ASSERT_EQUAL(k, sizeof(want) / sizeof(want[0]));
}

static void test_sql_keywords(void)
{
    int n = 0;
    const char *const *kw = rsql_sql_keywords(&n);
    CU_ASSERT_EQUAL(n, 100); /* GROUP, HAVING, DISTINCT and DESCRIPTOR among them */
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            CU_ASSERT(strcmp(kw[i - 1], kw[i]) < 0); /* sorted for the binary search */
        }
        CU_ASSERT(rsql_sql__keyword_code(kw[i], strlen(kw[i])) != RSQL_TK_ID);
        char lower[32];
        size_t len = strlen(kw[i]);
        CU_ASSERT_FATAL(len < sizeof(lower));
        for (size_t j = 0; j <= len; j++) {
            lower[j] = (char)((kw[i][j] >= 'A' && kw[i][j] <= 'Z') ? kw[i][j] + 32 : kw[i][j]);
        }
        CU_ASSERT(rsql_sql__keyword_code(lower, len) != RSQL_TK_ID);
        /* a prefix or an extension of a keyword is not one (unless it is another) */
        CU_ASSERT_EQUAL(rsql_sql__keyword_code("SELECTX", 7), RSQL_TK_ID);
    }
    CU_ASSERT_EQUAL(rsql_sql__keyword_code("SELECT", 6), RSQL_TK_SELECT);
    CU_ASSERT_EQUAL(rsql_sql__keyword_code("selectx", 6), RSQL_TK_SELECT); /* n bytes only */
    CU_ASSERT_EQUAL(rsql_sql__keyword_code("SEL", 3), RSQL_TK_ID);
    CU_ASSERT_EQUAL(rsql_sql__keyword_code("", 0), RSQL_TK_ID);
    CU_ASSERT_EQUAL(rsql_sql__keyword_code("ZZZ", 3), RSQL_TK_ID);
    CU_ASSERT_EQUAL(rsql_sql__keyword_code("AAA", 3), RSQL_TK_ID);
    CU_ASSERT_EQUAL(rsql_sql_keywords(NULL), kw);
}

/* ---------------------------------------------------------------- statements */

static void test_sql_ddl(void)
{
    CHECK_DUMP("CREATE TABLE t (a INT NOT NULL, b VARCHAR, c STRING, d BIGINT, e DOUBLE, "
               "f BOOLEAN, g BYTES, h TIMESTAMP(3), i TIMESTAMP, j INTEGER NULL, k VARCHAR(20), "
               "l BOOL) WITH ('connector' = 'file', 'path' = '/tmp/it''s')",
               "(create-table t (columns (a INT not-null) (b VARCHAR) (c VARCHAR) (d BIGINT) "
               "(e DOUBLE) (f BOOLEAN) (g BYTES) (h TIMESTAMP(3)) (i TIMESTAMP) (j INT) "
               "(k VARCHAR) (l BOOLEAN)) (with ('connector' 'file') ('path' '/tmp/it''s')))");
    CHECK_DUMP("create table if not exists \"My Table\" (\"a\"\"b\" int);",
               "(create-table \"My Table\" if-not-exists (columns (\"a\"\"b\" INT)))");
    CHECK_DUMP("CREATE TABLE src (topic VARCHAR, key STRING, value BYTES, status INT, "
               "timestamp TIMESTAMP(3), source INT, table_ INT, show INT, job BIGINT, "
               "options INT, desc INT, escape INT, connector INT) WITH ('connector'='datagen')",
               "(create-table src (columns (topic VARCHAR) (key VARCHAR) (value BYTES) "
               "(status INT) (timestamp TIMESTAMP(3)) (source INT) (table_ INT) (show INT) "
               "(job BIGINT) (options INT) (desc INT) (escape INT) (connector INT)) "
               "(with ('connector' 'datagen')))");
    CHECK_DUMP("CREATE TABLE m (a INT, tag VARCHAR METADATA, k STRING NOT NULL METADATA FROM "
               "'keys', b TIMESTAMP(3) METADATA FROM 'born''s' VIRTUAL, o BIGINT METADATA "
               "VIRTUAL, metadata INT, virtual INT)",
               "(create-table m (columns (a INT) (tag VARCHAR metadata) (k VARCHAR not-null "
               "metadata 'keys') (b TIMESTAMP(3) metadata 'born''s' virtual) (o BIGINT "
               "metadata virtual) (metadata INT) (virtual INT)))");
    CHECK_DUMP("SHOW METADATA FOR CONNECTOR 'sqlite'", "(show-metadata 'sqlite')");
    CHECK_DUMP("DROP TABLE t", "(drop-table t)");
    CHECK_DUMP("drop table if exists t;", "(drop-table t if-exists)");
    CHECK_DUMP("SHOW TABLES", "(show-tables)");
    CHECK_DUMP("DESCRIBE t", "(describe t)");
    CHECK_DUMP("desc \"t\"", "(describe t)");
    CHECK_DUMP("SHOW CREATE TABLE src", "(show-create-table src)");
    CHECK_DUMP("SHOW CONNECTORS", "(show-connectors)");
    CHECK_DUMP("SHOW OPTIONS FOR CONNECTOR 'rocketmq-grpc'",
               "(show-options 'rocketmq-grpc')");
    CHECK_DUMP("show options for connector file", "(show-options 'file')");
}

static void test_sql_settings(void)
{
    CHECK_DUMP("SET 'errors.tolerance' = 'all'", "(set 'errors.tolerance' 'all')");
    CHECK_DUMP("SET errors.tolerance = 'all'", "(set 'errors.tolerance' 'all')");
    CHECK_DUMP("set a.b.c = none", "(set 'a.b.c' 'none')");
    CHECK_DUMP("SET 'batch' = 32", "(set 'batch' '32')");
    CHECK_DUMP("SET 'x' = -1.5", "(set 'x' '-1.5')");
    CHECK_DUMP("SET 'x' = true", "(set 'x' 'true')");
    CHECK_DUMP("SET", "(show-settings)");
    CHECK_DUMP("SHOW SETTINGS", "(show-settings)");
    CHECK_DUMP("RESET", "(reset)");
    CHECK_DUMP("RESET 'errors.tolerance'", "(reset 'errors.tolerance')");
    CHECK_DUMP("RESET POSITIONS 'insert:a->b'", "(reset-positions 'insert:a->b')");
    CHECK_DUMP("RESET POSITIONS nightly", "(reset-positions 'nightly')");
    CHECK_DUMP("reset errors.tolerance", "(reset 'errors.tolerance')");
}

static void test_sql_select_insert(void)
{
    CHECK_DUMP("SELECT a, a + 1 AS b, * FROM t WHERE a > 3 LIMIT 10",
               "(select (items (col a) (as (+ (col a) (int 1)) b) (star)) (from t) "
               "(where (> (col a) (int 3))) (limit 10))");
    CHECK_DUMP("SELECT * FROM t", "(select (items (star)) (from t))");
    CHECK_DUMP("SELECT t.a AS \"x y\" FROM t", "(select (items (as (col t.a) \"x y\")) (from t))");
    CHECK_DUMP("INSERT INTO sink SELECT * FROM src",
               "(insert sink (select (items (star)) (from src)))");
    CHECK_DUMP("insert into sink (a, b) select x, upper(y) from src where x is not null",
               "(insert sink (columns a b) (select (items (col x) (func UPPER (col y))) "
               "(from src) (where (is-not-null (col x)))))");
    CHECK_DUMP("EXPLAIN INSERT INTO s SELECT a FROM t",
               "(explain (insert s (select (items (col a)) (from t))))");
    CHECK_DUMP("EXPLAIN SELECT a FROM t LIMIT 1",
               "(explain (select (items (col a)) (from t) (limit 1)))");
}

static void test_sql_jobs(void)
{
    CHECK_DUMP("CREATE JOB j AS INSERT INTO s SELECT a FROM t",
               "(create-job j (insert s (select (items (col a)) (from t))))");
    CHECK_DUMP("CREATE JOB IF NOT EXISTS nightly AS INSERT INTO s SELECT * FROM t WHERE x = 1",
               "(create-job nightly if-not-exists (insert s (select (items (star)) (from t) "
               "(where (= (col x) (int 1))))))");
    CHECK_DUMP("DROP JOB j", "(drop-job j)");
    CHECK_DUMP("DROP JOB IF EXISTS j", "(drop-job j if-exists)");
    CHECK_DUMP("SHOW JOBS", "(show-jobs)");
    CHECK_DUMP("RUN JOB j", "(run-job j)");
    CHECK_DUMP("SHOW JOB RUNS", "(show-job-runs)");
    CHECK_DUMP("SHOW JOB RUNS j", "(show-job-runs j)");
}

#define SEL(x) "SELECT " x " FROM t"
#define OUT(x) "(select (items " x ") (from t))"

static void test_sql_expressions(void)
{
    CHECK_DUMP(SEL("1, 1.5, 'a''b', TRUE, false, NULL, 1e3, .25"),
               OUT("(int 1) (double 1.5) (string 'a''b') (bool true) (bool false) (null) "
                   "(double 1000) (double 0.25)"));
    CHECK_DUMP(SEL("-5, - 2.5, +3, -a, +a, NOT a, - -1"),
               OUT("(int -5) (double -2.5) (int 3) (neg (col a)) (pos (col a)) (not (col a)) "
                   "(int 1)"));
    CHECK_DUMP(SEL("-9223372036854775808, 9223372036854775807"),
               OUT("(int -9223372036854775808) (int 9223372036854775807)"));
    CHECK_DUMP(SEL("1 + 2 * 3 - 4 / 5 % 6"),
               OUT("(- (+ (int 1) (* (int 2) (int 3))) (% (/ (int 4) (int 5)) (int 6)))"));
    CHECK_DUMP(SEL("(1 + 2) * 3"), OUT("(* (+ (int 1) (int 2)) (int 3))"));
    CHECK_DUMP(SEL("a || b || 'c'"), OUT("(|| (|| (col a) (col b)) (string 'c'))"));
    CHECK_DUMP(SEL("a || b + 1"), OUT("(+ (|| (col a) (col b)) (int 1))"));
    CHECK_DUMP(SEL("a = 1 OR b <> 2 AND NOT c < 3"),
               OUT("(or (= (col a) (int 1)) "
                   "(and (<> (col b) (int 2)) (not (< (col c) (int 3)))))"));
    CHECK_DUMP(SEL("a != 1, a <= 1, a >= 1, a > 1"),
               OUT("(<> (col a) (int 1)) (<= (col a) (int 1)) (>= (col a) (int 1)) "
                   "(> (col a) (int 1))"));
    CHECK_DUMP(SEL("a + 1 = b * 2"), OUT("(= (+ (col a) (int 1)) (* (col b) (int 2)))"));
    CHECK_DUMP(SEL("a IS NULL, a IS NOT NULL, NOT a IS NULL"),
               OUT("(is-null (col a)) (is-not-null (col a)) (not (is-null (col a)))"));
    CHECK_DUMP(SEL("a LIKE 'x%', a NOT LIKE 'y', a LIKE 'a!%' ESCAPE '!'"),
               OUT("(like (col a) (string 'x%')) (not-like (col a) (string 'y')) "
                   "(like (col a) (string 'a!%') (escape (string '!')))"));
    CHECK_DUMP(SEL("a IN (1, 2, 3), a NOT IN ('x')"),
               OUT("(in (col a) (int 1) (int 2) (int 3)) (not-in (col a) (string 'x'))"));
    CHECK_DUMP(SEL("a BETWEEN 1 AND 2 AND b, a NOT BETWEEN b - 1 AND b + 1"),
               OUT("(and (between (col a) (int 1) (int 2)) (col b)) "
                   "(not-between (col a) (- (col b) (int 1)) (+ (col b) (int 1)))"));
    CHECK_DUMP(SEL("CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END"),
               OUT("(case (when (> (col a) (int 1)) (string 'big')) "
                   "(when (> (col a) (int 0)) (string 'small')) (else (string 'none')))"));
    CHECK_DUMP(SEL("CASE a WHEN 1 THEN 'one' END"),
               OUT("(case (col a) (when (int 1) (string 'one')))"));
    CHECK_DUMP(SEL("CAST(a AS BIGINT), cast('1' as timestamp(3)), CAST(x AS STRING)"),
               OUT("(cast (col a) BIGINT) (cast (string '1') TIMESTAMP(3)) "
                   "(cast (col x) VARCHAR)"));
    CHECK_DUMP(SEL("CURRENT_TIMESTAMP, now(), coalesce(a, b, 'x'), \"lower\"(a)"),
               OUT("(func CURRENT_TIMESTAMP) (func NOW) (func COALESCE (col a) (col b) "
                   "(string 'x')) (func LOWER (col a))"));
    CHECK_DUMP(SEL("SUBSTRING(a FROM 2 FOR 3), substring(a from 2), substring(a, 1, 2)"),
               OUT("(func SUBSTRING (col a) (int 2) (int 3)) (func SUBSTRING (col a) (int 2)) "
                   "(func SUBSTRING (col a) (int 1) (int 2))"));
    CHECK_DUMP(SEL("timestamp, key, value, topic, status, source, if(a, b)"),
               OUT("(col timestamp) (col key) (col value) (col topic) (col status) (col source) "
                   "(func IF (col a) (col b))"));
    /* the special forms of the issue-12 functions; key, value, position stay names */
    CHECK_DUMP(SEL("POSITION(a IN b), position(x IN (y)), position, f(position IN (1))"),
               OUT("(func POSITION (col a) (col b)) (func POSITION (col x) (col y)) "
                   "(col position) (func F (in (col position) (int 1)))"));
    CHECK_DUMP(SEL("EXTRACT(YEAR FROM ts), extract(day from a + 1)"),
               OUT("(func EXTRACT (col YEAR) (col ts)) (func EXTRACT (col day) (+ (col a) "
                   "(int 1)))"));
    CHECK_DUMP(SEL("JSON_VALUE(s, '$.a' RETURNING INT DEFAULT -1 ON EMPTY ERROR ON ERROR)"),
               OUT("(func JSON_VALUE (col s) (string '$.a') (returning INT) "
                   "(on-empty default (int -1)) (on-error error))"));
    CHECK_DUMP(SEL("JSON_EXISTS(s, '$' UNKNOWN ON ERROR), JSON_ARRAY(a, b ABSENT ON NULL)"),
               OUT("(func JSON_EXISTS (col s) (string '$') (on-error unknown)) "
                   "(func JSON_ARRAY (col a) (col b) (on-null absent))"));
    CHECK_DUMP(SEL("JSON_OBJECT(KEY 'k' VALUE key, 'v' VALUE value NULL ON NULL), f(key)"),
               OUT("(func-kv JSON_OBJECT (string 'k') (col key) (string 'v') (col value) "
                   "(on-null null)) (func F (col key))"));
    CHECK_DUMP(SEL("JSON_QUERY(s, '$' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON ERROR), "
                   "array, wrapper, object"),
               OUT("(func JSON_QUERY (col s) (string '$') (wrapper conditional) "
                   "(on-error empty-array)) (col array) (col wrapper) (col object)"));
    CHECK_DUMP(SEL("0.1, 1e300, 123456789.125"),
               OUT("(double 0.1) (double 1e+300) (double 123456789.125)"));
}

/* ---------------------------------------------------------------- positions */

static const rsql_stmt_t *parse_first(rsql_parse_t *p)
{
    rsql_stmt_t *s = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_parse_next(p, &s, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(s);
    return s;
}

static bool span_is(const char *sql, rsql_pos_t pos, const char *text)
{
    size_t n = strlen(text);
    if (pos.len != n || memcmp(sql + pos.off, text, n) != 0) {
        fprintf(stderr, "\n  span [%.*s] at %u, want [%s]\n", (int)pos.len, sql + pos.off,
                pos.off, text);
        return false;
    }
    return true;
}

static void test_sql_positions(void)
{
    const char *sql = "  SELECT a,\n  b + 1 AS c, t.d\nFROM t WHERE a IN (1, 2) ;  "
                      "CREATE JOB j AS INSERT INTO s (x) SELECT -5 FROM t LIMIT 3;";
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    const rsql_stmt_t *s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(span_is(sql, s->pos, "SELECT a,\n  b + 1 AS c, t.d\nFROM t WHERE a IN (1, 2)"));
    const rsql_select_t *sel = s->select;
    CU_ASSERT(span_is(sql, sel->pos, "SELECT a,\n  b + 1 AS c, t.d\nFROM t WHERE a IN (1, 2)"));
    CU_ASSERT_EQUAL(sel->n_items, 3);
    const rsql_expr_t *b = sel->items[1].expr->left;
    CU_ASSERT_EQUAL(b->kind, RSQL_EX_COLUMN);
    CU_ASSERT_EQUAL(b->pos.off, 14); /* line 2, column 3 */
    int line, col;
    rsql_pos_linecol(sql, b->pos.off, &line, &col);
    CU_ASSERT_EQUAL(line, 2);
    CU_ASSERT_EQUAL(col, 3);
    CU_ASSERT(span_is(sql, sel->items[1].expr->pos, "b + 1"));
    CU_ASSERT(span_is(sql, sel->items[1].expr->op_pos, "+"));
    CU_ASSERT(span_is(sql, sel->items[1].alias.pos, "c"));
    CU_ASSERT(span_is(sql, sel->items[2].expr->pos, "t.d"));
    CU_ASSERT(span_is(sql, sel->from.pos, "t"));
    CU_ASSERT(span_is(sql, sel->where->pos, "a IN (1, 2)"));
    CU_ASSERT(span_is(sql, sel->where->op_pos, "IN"));
    CU_ASSERT(span_is(sql, sel->where->args.items[1]->pos, "2"));

    s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(s->kind, RSQL_STMT_CREATE_JOB);
    CU_ASSERT(span_is(sql, s->pos, "CREATE JOB j AS INSERT INTO s (x) SELECT -5 FROM t LIMIT 3"));
    CU_ASSERT(span_is(sql, s->name.pos, "j"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->inner);
    CU_ASSERT_EQUAL(s->inner->kind, RSQL_STMT_INSERT);
    CU_ASSERT(span_is(sql, s->inner->pos, "INSERT INTO s (x) SELECT -5 FROM t LIMIT 3"));
    CU_ASSERT(span_is(sql, s->inner->insert->pos, "INSERT INTO s (x) SELECT -5 FROM t LIMIT 3"));
    CU_ASSERT(span_is(sql, s->inner->insert->columns[0].pos, "x"));
    CU_ASSERT(span_is(sql, s->inner->insert->select->items[0].expr->pos, "-5"));
    CU_ASSERT(span_is(sql, s->inner->insert->select->limit_pos, "3"));
    CU_ASSERT_EQUAL(s->inner->insert->select->limit, 3);

    rsql_stmt_t *none = NULL;
    CU_ASSERT_EQUAL(rsql_parse_next(p, &none, NULL), RSQL_OK);
    CU_ASSERT_PTR_NULL(none);
    rsql_parse_destroy(p);

    const char *ddl = "CREATE TABLE t (\n  a INT NOT NULL,\n  ts TIMESTAMP(3)\n) "
                      "WITH ('connector' = 'file', 'path'='x')";
    p = rsql_parse_new(ddl, strlen(ddl));
    s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(span_is(ddl, s->pos, ddl));
    CU_ASSERT(span_is(ddl, s->name.pos, "t"));
    CU_ASSERT(span_is(ddl, s->columns[0].pos, "a INT NOT NULL"));
    CU_ASSERT(span_is(ddl, s->columns[0].type.pos, "INT"));
    CU_ASSERT(s->columns[0].not_null);
    CU_ASSERT(span_is(ddl, s->columns[1].pos, "ts TIMESTAMP(3)"));
    CU_ASSERT(span_is(ddl, s->columns[1].type.pos, "TIMESTAMP(3)"));
    CU_ASSERT_EQUAL(s->columns[1].type.precision, 3);
    CU_ASSERT_EQUAL(s->columns[0].type.precision, -1);
    CU_ASSERT(span_is(ddl, s->options[0].key_pos, "'connector'"));
    CU_ASSERT(span_is(ddl, s->options[0].value_pos, "'file'"));
    CU_ASSERT_STRING_EQUAL(s->options[1].key, "path");
    CU_ASSERT_STRING_EQUAL(s->options[1].value, "x");
    rsql_parse_destroy(p);

    const char *ex = "EXPLAIN SELECT CASE WHEN x THEN 1 END, CAST(y AS INT), f(a, b), "
                     "CURRENT_TIMESTAMP, a NOT LIKE 'p' ESCAPE 'e', (a), a IS NOT NULL FROM t";
    p = rsql_parse_new(ex, strlen(ex));
    s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(span_is(ex, s->pos, ex));
    const rsql_select_t *q = s->inner->select;
    CU_ASSERT(span_is(ex, s->inner->pos, ex + 8));
    CU_ASSERT(span_is(ex, q->items[0].expr->pos, "CASE WHEN x THEN 1 END"));
    CU_ASSERT(span_is(ex, q->items[1].expr->pos, "CAST(y AS INT)"));
    CU_ASSERT(span_is(ex, q->items[1].expr->cast_type.pos, "INT"));
    CU_ASSERT(span_is(ex, q->items[2].expr->pos, "f(a, b)"));
    CU_ASSERT(span_is(ex, q->items[3].expr->pos, "CURRENT_TIMESTAMP"));
    CU_ASSERT(span_is(ex, q->items[4].expr->pos, "a NOT LIKE 'p' ESCAPE 'e'"));
    CU_ASSERT(span_is(ex, q->items[4].expr->op_pos, "NOT LIKE"));
    CU_ASSERT(span_is(ex, q->items[5].expr->pos, "(a)"));
    CU_ASSERT(span_is(ex, q->items[6].expr->pos, "a IS NOT NULL"));
    rsql_parse_destroy(p);

    const char *set = "SET errors . tolerance = 'all'";
    p = rsql_parse_new(set, strlen(set));
    s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(s->kind, RSQL_STMT_SET);
    CU_ASSERT(s->has_setting);
    CU_ASSERT_STRING_EQUAL(s->setting.key, "errors.tolerance");
    CU_ASSERT(span_is(set, s->setting.key_pos, "errors . tolerance"));
    CU_ASSERT(span_is(set, s->setting.value_pos, "'all'"));
    rsql_parse_destroy(p);
}

/* AST details the planner relies on. */
static void test_sql_ast_fields(void)
{
    const char *sql =
        "SELECT 'it''s', \"Mixed\"\"Q\", x AS y FROM \"T\" WHERE a NOT IN (1) LIMIT 0";
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    const rsql_stmt_t *s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const rsql_select_t *q = s->select;
    CU_ASSERT_EQUAL(q->items[0].expr->lit.kind, RSQL_LIT_STRING);
    CU_ASSERT_STRING_EQUAL(q->items[0].expr->lit.s, "it's");
    CU_ASSERT_EQUAL(q->items[0].expr->lit.s_len, 4);
    CU_ASSERT_PTR_NULL(q->items[0].alias.name);
    CU_ASSERT_STRING_EQUAL(q->items[1].expr->name, "Mixed\"Q");
    CU_ASSERT_PTR_NULL(q->items[1].expr->qualifier);
    CU_ASSERT_STRING_EQUAL(q->items[2].alias.name, "y");
    CU_ASSERT_STRING_EQUAL(q->from.name, "T");
    CU_ASSERT(q->where->negated);
    CU_ASSERT_EQUAL(q->where->args.n, 1);
    CU_ASSERT(q->has_limit);
    CU_ASSERT_EQUAL(q->limit, 0);
    rsql_parse_destroy(p);

    /* the text is only borrowed up to len: no NUL needed */
    const char buf[] = {'S', 'H', 'O', 'W', ' ', 'J', 'O', 'B', 'S', 'X', 'Y'};
    p = rsql_parse_new(buf, 9);
    s = parse_first(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(s->kind, RSQL_STMT_SHOW_JOBS);
    CU_ASSERT_PTR_NULL(s->name.name);
    rsql_parse_destroy(p);
}

/* ---------------------------------------------------------------- errors */

static void test_sql_errors(void)
{
    CHECK_DUMP("SELECT a FORM t", "1:10: near \"FORM\": syntax error (did you mean FROM?)");
    CHECK_DUMP("CREATE TABLE t (a INT", "1:22: incomplete input");
    CHECK_DUMP("SELECT a FROM", "1:14: incomplete input");
    CHECK_DUMP("SELECT a FROM;", "1:14: near \";\": syntax error");
    CHECK_DUMP("SELECT a FROM t -- trailing\n", "(select (items (col a)) (from t))");
    CHECK_DUMP("SELECT a\nFROM", "2:5: incomplete input");
    CHECK_DUMP("SELECT 'abc", "1:8: unterminated string");
    CHECK_DUMP("SELECT \"abc", "1:8: unterminated quoted identifier");
    CHECK_DUMP("SELECT a /* x", "1:10: unterminated comment");
    CHECK_DUMP("SELECT # FROM t", "1:8: unrecognized token: \"#\"");
    CHECK_DUMP("SELECT 12abc FROM t", "1:8: unrecognized token: \"12abc\"");
    CHECK_DUMP("SELECT 99999999999999999999 FROM t",
               "1:8: integer literal out of range: 99999999999999999999");
    CHECK_DUMP("SELECT 9223372036854775808 FROM t",
               "1:8: integer literal out of range: 9223372036854775808");
    CHECK_DUMP("SELECT 1 - 9223372036854775808 FROM t",
               "1:12: integer literal out of range: 9223372036854775808");
    CHECK_DUMP("SELECT 1e999 FROM t", "1:8: floating-point literal out of range: 1e999");
    CHECK_DUMP("SELECT a FROM t LIMIT 9223372036854775808",
               "1:23: integer literal out of range: 9223372036854775808");
    CHECK_DUMP("SELECT \"\" FROM t", "1:8: empty quoted identifier");
    CHECK_DUMP("SELECT upper(a FROM 1) FROM t", "1:16: near \"FROM\": syntax error");
    CHECK_DUMP("SELECT a FROM t WHERE", "1:22: incomplete input");
    CHECK_DUMP("", "EMPTY");
    CHECK_DUMP("  ;; -- nothing\n/* at all */ ;", "EMPTY");
}

/* The first error of a text of len bytes, as "line:col: message" (static buffer). */
static const char *first_error(const char *sql, size_t len)
{
    static char buf[300];
    rsql_parse_t *p = rsql_parse_new(sql, len);
    rsql_stmt_t *st = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    strcpy(buf, "no error");
    for (int i = 0; i < 16; i++) {
        if (rsql_parse_next(p, &st, &err) != RSQL_OK) {
            rsql_error_format(&err, sql, buf, sizeof buf);
            break;
        }
        if (!st) {
            break;
        }
    }
    rsql_parse_destroy(p);
    return buf;
}

/* A NUL byte anywhere (in a string, a comment, a name) is an error at the NUL. */
static void test_sql_nul_byte(void)
{
    static const struct {
        const char *sql;
        size_t len;
        const char *want;
    } cases[] = {
#define NUL_CASE(text, want) {text, sizeof text - 1, want}
        NUL_CASE("SELECT a\0 FROM t", "1:9: NUL byte (character 0) in SQL text"),
        NUL_CASE("SELECT 'a\0b' FROM t", "1:10: NUL byte (character 0) in SQL text"),
        NUL_CASE("SELECT \"a\0\" FROM t", "1:10: NUL byte (character 0) in SQL text"),
        NUL_CASE("SELECT a FROM t /* x\0 */", "1:21: NUL byte (character 0) in SQL text"),
        NUL_CASE("SHOW TABLES;\n-- x\0\nSHOW TABLES", "2:5: NUL byte (character 0) in SQL text"),
        NUL_CASE("SHOW TABLES;\0", "1:13: NUL byte (character 0) in SQL text"),
        NUL_CASE("SHOW TABLES; SHOW TABLES", "no error"),
#undef NUL_CASE
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = first_error(cases[i].sql, cases[i].len);
        if (strcmp(got, cases[i].want) != 0) {
            fprintf(stderr, "\ncase %zu: got %s, want %s\n", i, got, cases[i].want);
        }
        CU_ASSERT_STRING_EQUAL(got, cases[i].want);
    }
}

static void test_sql_deep_nesting(void)
{
    char sql[4096];
    strcpy(sql, "SELECT ");
    for (int i = 0; i < 1000; i++) {
        strcat(sql, "(");
    }
    strcat(sql, "1");
    const char *got = parse_dump(sql);
    CU_ASSERT(strstr(got, "parser stack overflow") != NULL);
    CU_ASSERT(strncmp(got, "1:", 2) == 0);
}

static void test_sql_script(void)
{
    const char *sql = "-- a script\n"
                      "CREATE TABLE t (a INT) WITH ('connector' = 'file');\n"
                      "/* block ; comment */ SELECT a FROM t;;\n"
                      "SELECT 'semi;colon' AS \"x;y\" FROM t;\n"
                      "SELECT a FORM t; SHOW TABLES;\n"
                      "SELECT # ; SHOW JOBS;\n"
                      "SHOW CONNECTORS -- no semicolon at the end\n";
    const char *want[] = {
        "(create-table t (columns (a INT)) (with ('connector' 'file')))",
        "(select (items (col a)) (from t))",
        "(select (items (as (string 'semi;colon') \"x;y\")) (from t))",
        "5:10: near \"FORM\": syntax error (did you mean FROM?)",
        "(show-tables)",
        "6:8: unrecognized token: \"#\"",
        "(show-jobs)",
        "(show-connectors)",
        NULL,
    };
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    for (int i = 0;; i++) {
        rsql_stmt_t *s = NULL;
        rsql_error_t err;
        rsql_error_clear(&err);
        char got[600];
        if (rsql_parse_next(p, &s, &err) != RSQL_OK) {
            CU_ASSERT_EQUAL(err.code, RSQL_ERR_SYNTAX);
            rsql_error_format(&err, sql, got, sizeof(got));
        } else if (s) {
            char *d = rsql_sql_dump(s);
            snprintf(got, sizeof(got), "%s", d);
            rsql_free(d);
        } else {
            CU_ASSERT_PTR_NULL(want[i]);
            break;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(want[i]);
        if (strcmp(got, want[i]) != 0) {
            fprintf(stderr, "\n  statement %d: got %s\n", i, got);
        }
        CU_ASSERT_STRING_EQUAL(got, want[i]);
    }
    rsql_parse_destroy(p);

    /* error codes: incomplete is distinguishable (the shell asks for more) */
    const char *inc = "SELECT a FROM";
    p = rsql_parse_new(inc, strlen(inc));
    rsql_stmt_t *s = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_parse_next(p, &s, &err), RSQL_ERR_INCOMPLETE);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_INCOMPLETE);
    CU_ASSERT_EQUAL(err.pos.off, 13);
    CU_ASSERT_STRING_EQUAL(err.msg, "incomplete input");
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(rsql_parse_next(p, &s, NULL), RSQL_OK); /* nothing after */
    CU_ASSERT_PTR_NULL(s);
    rsql_parse_destroy(p);
}

static void test_sql_complete(void)
{
    static const struct {
        const char *text;
        bool complete;
    } cases[] = {
        {"", false},
        {"   ", false},
        {"SELECT a FROM t", false},
        {"SELECT a FROM t;", true},
        {";", true},
        {"SELECT a FROM t;  \n\t", true},
        {"SELECT a FROM t; -- done", true},
        {"SELECT a FROM t; /* done */", true},
        {"SELECT a FROM t; /* not done", false},
        {"SELECT ';' FROM t", false},
        {"SELECT ';", false},
        {"SELECT \";\" FROM t", false},
        {"SELECT a -- ;", false},
        {"SELECT a /* ; */", false},
        {"SELECT 1; SELECT 2", false},
        {"SELECT 1; SELECT 2;", true},
        {"SELECT 'it''s;';", true},
        {"SELECT # ;", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (rsql_sql_complete(cases[i].text) != cases[i].complete) {
            fprintf(stderr, "\n  complete(%s) wrong\n", cases[i].text);
        }
        CU_ASSERT_EQUAL(rsql_sql_complete(cases[i].text), cases[i].complete);
    }
    CU_ASSERT_FALSE(rsql_sql_complete(NULL));
}

/* Fail the Nth allocation for every N: NOMEM or success, never a leak or crash. */
static void test_sql_oom(void)
{
    const char *sql = "CREATE TABLE t (a INT, b VARCHAR, c TIMESTAMP(3), d INT, e INT) "
                      "WITH ('connector'='file', 'a'='1', 'b'='2', 'c'='3', 'd'='4', 'e'='5');"
                      "CREATE JOB j AS INSERT INTO s (a, b, c, d, e) SELECT a, b || 'x', "
                      "CASE WHEN a IN (1, 2, 3, 4, 5, 6) THEN 1 ELSE 2 END, "
                      "SUBSTRING(b FROM 1 FOR 2), CAST(c AS BIGINT) FROM t WHERE a > -1;";
    bool succeeded = false;
    for (long n = 1; n < 500 && !succeeded; n++) {
        rsql_mem_fail_after(n);
        rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
        if (!p) {
            rsql_mem_fail_after(0);
            continue;
        }
        int ok = 0;
        for (;;) {
            rsql_stmt_t *s = NULL;
            rsql_error_t err;
            rsql_error_clear(&err);
            rsql_err_t rc = rsql_parse_next(p, &s, &err);
            if (rc != RSQL_OK) {
                CU_ASSERT_EQUAL(rc, RSQL_ERR_NOMEM);
                CU_ASSERT_EQUAL(err.code, RSQL_ERR_NOMEM);
                continue; /* the next statement may still parse */
            }
            if (!s) {
                break;
            }
            ok++;
        }
        rsql_mem_fail_after(0);
        rsql_parse_destroy(p);
        succeeded = ok == 2;
    }
    rsql_mem_fail_after(0);
    CU_ASSERT(succeeded);
}

/* ---------------------------------------------------------------- the corpus */

typedef struct slt_record {
    int line;        /* where "statement error" is */
    char sql[2048];  /* lines joined with '\n' */
    char want[1024]; /* the expected one-line error */
} slt_record_t;

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) {
        s[--n] = 0;
    }
}

/* Run every "statement error" record of the corpus; returns the record count. */
static int run_corpus(const char *path, int *failures)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "\n  cannot open %s\n", path);
        return -1;
    }
    char line[2048];
    int lineno = 0, count = 0;
    slt_record_t r;
    enum { OUTSIDE, SQL, EXPECT } state = OUTSIDE;
    bool eof = false;
    while (!eof) {
        if (!fgets(line, sizeof(line), f)) {
            eof = true;
            line[0] = 0;
        } else {
            lineno++;
            chomp(line);
        }
        switch (state) {
        case OUTSIDE:
            if (strcmp(line, "statement error") == 0) {
                memset(&r, 0, sizeof(r));
                r.line = lineno;
                state = SQL;
            } else if (line[0] && line[0] != '#') {
                fprintf(stderr, "\n  %s:%d: unexpected line: %s\n", path, lineno, line);
                (*failures)++;
            }
            break;
        case SQL:
            if (strcmp(line, "----") == 0) {
                state = EXPECT;
            } else if (eof || line[0] == 0) {
                fprintf(stderr, "\n  %s:%d: record without ----\n", path, r.line);
                (*failures)++;
                state = OUTSIDE;
            } else {
                if (r.sql[0]) {
                    strcat(r.sql, "\n");
                }
                strncat(r.sql, line, sizeof(r.sql) - strlen(r.sql) - 1);
            }
            break;
        case EXPECT:
            if (line[0] && !r.want[0]) {
                if ((size_t)snprintf(r.want, sizeof(r.want), "%s", line) >= sizeof(r.want)) {
                    fprintf(stderr, "\n  %s:%d: expected line longer than %zu bytes\n", path,
                            lineno, sizeof(r.want) - 1);
                    (*failures)++;
                }
                break;
            }
            if (!eof && line[0]) {
                fprintf(stderr, "\n  %s:%d: more than one expected line\n", path, lineno);
                (*failures)++;
            }
            /* run the record: its first statement must fail with exactly want */
            count++;
            rsql_parse_t *p = rsql_parse_new(r.sql, strlen(r.sql));
            rsql_stmt_t *s = NULL;
            rsql_error_t err;
            rsql_error_clear(&err);
            char got[1024] = "(parsed without error)";
            if (p && rsql_parse_next(p, &s, &err) != RSQL_OK) {
                rsql_error_format(&err, r.sql, got, sizeof(got));
            }
            rsql_parse_destroy(p);
            if (strcmp(got, r.want) != 0) {
                fprintf(stderr, "\n  %s:%d:\n    sql:  %s\n    want: %s\n    got:  %s\n", path,
                        r.line, r.sql, r.want, got);
                (*failures)++;
            }
            state = OUTSIDE;
            break;
        }
    }
    fclose(f);
    return count;
}

static void test_sql_invalid_corpus(void)
{
    int failures = 0;
    int n = run_corpus(RSQL_SRCDIR "/tests/sql/syntax/invalid.slt", &failures);
    CU_ASSERT(n >= 110);
    CU_ASSERT_EQUAL(failures, 0);
}

static CU_TestInfo sql_tests[] = {
    {"test_sql_tokenize", test_sql_tokenize},
    {"test_sql_tokenize_sequence", test_sql_tokenize_sequence},
    {"test_sql_keywords", test_sql_keywords},
    {"test_sql_ddl", test_sql_ddl},
    {"test_sql_settings", test_sql_settings},
    {"test_sql_select_insert", test_sql_select_insert},
    {"test_sql_jobs", test_sql_jobs},
    {"test_sql_expressions", test_sql_expressions},
    {"test_sql_positions", test_sql_positions},
    {"test_sql_ast_fields", test_sql_ast_fields},
    {"test_sql_errors", test_sql_errors},
    {"test_sql_nul_byte", test_sql_nul_byte},
    {"test_sql_deep_nesting", test_sql_deep_nesting},
    {"test_sql_script", test_sql_script},
    {"test_sql_complete", test_sql_complete},
    {"test_sql_oom", test_sql_oom},
    {"test_sql_invalid_corpus", test_sql_invalid_corpus},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"sql", NULL, NULL, NULL, NULL, sql_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
