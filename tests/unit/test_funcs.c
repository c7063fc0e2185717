/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the SQL functions (planner/fn_*.c): each
 * expression is planned as "SELECT expr FROM t" against an in-memory
 * catalog and evaluated over one fixed row, as in test_eval.c: normal
 * values, NULLs, per-row errors with their positions, and hostile inputs
 * (regular expressions that backtrack catastrophically, deeply nested JSON)
 * that must fail fast instead of hanging or overflowing the stack.
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

#define DOC_J "{\"id\": 42, \"user\": {\"name\": \"Ann\", \"tags\": [\"a\", \"b\"]}, " \
              "\"price\": 12.5, \"ok\": true, \"none\": null, \"ts\": \"2024-01-02 03:04:05\"}"

/* The row: a=7 b='héllo' c=2.5 d=TRUE e=2024-01-02T03:04:05.678Z f=10^12 g=bytes h='abc'
 * i=' 42 ' n=NULL (INT) s=NULL (VARCHAR) z=0 j=DOC_J re='([0-9]+)' bad='(' */
#define TS_E INT64_C(1704164645678)
static rsql_value_t row[15];

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
    row[12] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {DOC_J, sizeof(DOC_J) - 1}};
    row[13] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"([0-9]+)", 8}};
    row[14] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"(", 1}};
}

#include "tests/lib/cu_eval.h"

static int suite_init_table(void)
{
    if (suite_init()) {
        return -1;
    }
    return cu_catalog_create(cat, "CREATE TABLE t (a INT, b VARCHAR, c DOUBLE, d BOOLEAN, "
                                  "e TIMESTAMP(3), f BIGINT, g BYTES, h VARCHAR, i VARCHAR, "
                                  "n INT, s VARCHAR, z INT, j VARCHAR, re VARCHAR, bad VARCHAR) "
                                  "WITH ('connector'='datagen', 'number-of-rows'='1')");
}

/* ---- tests */

static void test_fn_strings(void)
{
    expect_str("REPLACE('a-b-c', '-', '+')", "a+b+c");
    expect_str("REPLACE('aaa', 'aa', 'b')", "ba"); /* non-overlapping, left to right */
    expect_str("REPLACE(h, '', 'x')", "abc");
    expect_str("REPLACE(b, 'l', '')", "h\xc3\xa9o");
    expect_null("REPLACE(s, 'a', 'b')");
    expect_null("REPLACE(h, NULL, 'b')");
    expect_str("SPLIT_INDEX('a,b,,c', ',', 0)", "a");
    expect_str("SPLIT_INDEX('a,b,,c', ',', 2)", "");
    expect_str("SPLIT_INDEX('a,b,,c', ',', 3)", "c");
    expect_str("SPLIT_INDEX('a::b', '::', 1)", "b");
    expect_null("SPLIT_INDEX('a,b', ',', 2)");
    expect_null("SPLIT_INDEX('a,b', ',', -1)");
    expect_null("SPLIT_INDEX(s, ',', 0)");
    expect_str("LPAD('hi', 4, '?!')", "?!hi");
    expect_str("LPAD('hi', 1, '?!')", "h");
    expect_str("LPAD('hi', 5, 'xy')", "xyxhi");
    expect_str("RPAD('hi', 5, 'xy')", "hixyx");
    expect_str("RPAD(b, 7, '\xc3\xa9')", "h\xc3\xa9llo\xc3\xa9\xc3\xa9"); /* code points */
    expect_str("LPAD(b, 2, '*')", "h\xc3\xa9");
    expect_str("LPAD('hi', 5, '')", "hi");
    expect_null("LPAD('hi', -1, 'x')");
    expect_null("RPAD(s, 3, 'x')");
    expect_eval_error("LPAD('x', 2000000000, 'ab')", "result too long",
                      "LPAD('x', 2000000000, 'ab')");
    expect_int("POSITION('b' IN 'abc')", 2);
    expect_int("POSITION('z' IN 'abc')", 0);
    expect_int("POSITION('' IN 'abc')", 1);
    expect_int("POSITION('l' IN b)", 3); /* after the 2-byte e-acute: characters, not bytes */
    expect_null("POSITION(s IN 'abc')");
    expect_type("POSITION('a' IN 'abc')", RSQL_TYPE_INT);
}

static void test_fn_conditionals(void)
{
    expect_int("IF(a > 5, 1, 2)", 1);
    expect_int("IF(a > 50, 1, 2)", 2);
    expect_int("IF(n > 5, 1, 2)", 2); /* a NULL condition takes the else branch */
    expect_str("IF(d, h, 'no')", "abc");
    expect_double("IF(d, a, c)", 7.0); /* INT and DOUBLE unify to DOUBLE */
    expect_int("IF(d, 1, 1 / z)", 1);  /* only the chosen branch is evaluated */
    expect_eval_error("IF(NOT d, 1, a / z)", "division by zero", "a / z");
    expect_int("IFNULL(n, 3)", 3);
    expect_int("IFNULL(a, 1 / z)", 7); /* y is not evaluated when x is not NULL */
    expect_null("IFNULL(n, NULL)");
    expect_str("IFNULL(s, 'dflt')", "dflt");
    expect_str("CAST(IF(d, CAST('1.5' AS DECIMAL(4, 1)), CAST('2.25' AS DECIMAL(5, 2))) "
               "AS VARCHAR)",
               "1.50"); /* DECIMAL branches unify to a DECIMAL that holds both */
    expect_str("CAST(IFNULL(CAST(NULL AS DATE), CAST('2024-01-02' AS DATE)) AS VARCHAR)",
               "2024-01-02");
    expect_plan_error("IF(a, 1, 2)", "argument 1 of IF must be BOOLEAN, got INT", "a");
    expect_plan_error("IFNULL(a, 'x')",
                      "arguments of IFNULL have incompatible types INT and VARCHAR", "'x'");
}

static void test_fn_hashes(void)
{
    expect_str("MD5('abc')", "900150983cd24fb0d6963f7d28e17f72");
    expect_str("MD5('')", "d41d8cd98f00b204e9800998ecf8427e");
    expect_str("SHA256('abc')",
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect_null("MD5(s)");
    expect_str("TO_BASE64('hello')", "aGVsbG8=");
    expect_str("TO_BASE64(g)", "/wE=");
    expect_str("FROM_BASE64('aGVsbG8=')", "hello");
    expect_str("FROM_BASE64(TO_BASE64(b))", "h\xc3\xa9llo");
    expect_null("FROM_BASE64(s)");
    expect_eval_error("FROM_BASE64('not base64!')", "FROM_BASE64: not base64", "'not base64!'");
    expect_eval_error("FROM_BASE64('/wE=')", "FROM_BASE64: the decoded bytes are not UTF-8 text",
                      "'/wE='");
    /* UUID: version 4 layout, and two calls differ */
    rsql_value_t v;
    EVAL_OK("UUID()", v);
    if (rc_ == RSQL_OK) {
        CU_ASSERT_EQUAL_FATAL(v.v.s.len, 36);
        char u1[37];
        memcpy(u1, v.v.s.p, 36);
        u1[36] = 0;
        CU_ASSERT(u1[8] == '-' && u1[13] == '-' && u1[18] == '-' && u1[23] == '-');
        CU_ASSERT_EQUAL(u1[14], '4');
        CU_ASSERT(strchr("89ab", u1[19]) != NULL);
        rsql_value_t w;
        rsql_error_t e2;
        CU_ASSERT_EQUAL(rsql_expr_eval(plan_->outputs[0].expr, row, &ctx, &w, &e2), RSQL_OK);
        CU_ASSERT(w.v.s.len == 36 && memcmp(u1, w.v.s.p, 36) != 0);
    }
    rsql_plan_destroy(plan_);
}

static void test_fn_regex(void)
{
    expect_bool("REGEXP('abc123', '[0-9]+')", "T");
    expect_bool("REGEXP('abc', '^b')", "F");
    expect_bool("REGEXP(b, '^h.llo$')", "T"); /* . is one code point (UTF mode) */
    expect_bool("REGEXP(s, 'x')", "N");
    expect_str("REGEXP_EXTRACT('foo123bar456', '([a-z]+)([0-9]+)', 2)", "123");
    expect_str("REGEXP_EXTRACT('foo123bar', '[0-9]+', 0)", "123");
    expect_str("REGEXP_EXTRACT('foo123bar', '([0-9]+)')", "123"); /* group 1 by default */
    expect_null("REGEXP_EXTRACT('foo', '([0-9]+)')");
    expect_null("REGEXP_EXTRACT('foo1', '([0-9]+)', 2)");
    expect_null("REGEXP_EXTRACT('ab', 'a(x)?b', 1)"); /* the group took no part */
    expect_str("REGEXP_EXTRACT('x77y', re)", "77");   /* a pattern from a column */
    expect_str("REGEXP_REPLACE('a1b22c', '[0-9]+', '#')", "a#b#c");
    expect_str("REGEXP_REPLACE('2024-01-02', '(\\d+)-(\\d+)-(\\d+)', '$3.$2.$1')",
               "02.01.2024");
    expect_str("REGEXP_REPLACE('abc', 'x*', '-')", "-a-b-c-");
    expect_null("REGEXP_REPLACE(s, 'a', 'b')");
    expect_eval_error("REGEXP(h, bad)",
                      "invalid regular expression: missing closing parenthesis at offset 1",
                      "bad");
    expect_plan_error("REGEXP(h, 'a(b')",
                      "invalid regular expression: missing closing parenthesis at offset 3",
                      "'a(b'");
    expect_plan_error("REGEXP_EXTRACT(h, 'a', 'x')",
                      "argument 3 of REGEXP_EXTRACT must be an integer, got VARCHAR", "'x'");
}

/* A pattern that backtracks exponentially on a long non-matching subject fails its row. */
static void test_fn_regex_hostile(void)
{
    expect_eval_error("REGEXP('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '^(a+)+$')",
                      "regular expression too complex for this input (match limit)",
                      "REGEXP('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '^(a+)+$')");
    expect_eval_error("REGEXP_REPLACE('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', "
                      "'^(a|aa)+$', 'x')",
                      "regular expression too complex for this input (match limit)",
                      "REGEXP_REPLACE('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', "
                      "'^(a|aa)+$', 'x')");
}

static void test_fn_time(void)
{
    /* e = 2024-01-02 03:04:05.678 UTC, a Tuesday */
    expect_str("DATE_FORMAT(e, 'yyyy-MM-dd HH:mm:ss.SSS')", "2024-01-02 03:04:05.678");
    expect_str("DATE_FORMAT(e, 'yyyyMMdd')", "20240102");
    expect_str("DATE_FORMAT(e, 'EEE, d MMM yy h:mm a ''Z''')", "Tue, 2 Jan 24 3:04 AM Z");
    expect_str("DATE_FORMAT(e, 'HH''''mm ''o''''clock''')", "03'04 o'clock");
    expect_str("DATE_FORMAT(e, 'EEEE MMMM D')", "Tuesday January 2");
    expect_str("DATE_FORMAT('2024-05-06 07:08:09', 'dd/MM/yyyy')", "06/05/2024");
    expect_null("DATE_FORMAT('no time', 'yyyy')");
    expect_null("DATE_FORMAT(CAST(NULL AS TIMESTAMP), 'yyyy')");
    expect_ts("TO_TIMESTAMP('2024-01-02 03:04:05')", INT64_C(1704164645000));
    expect_ts("TO_TIMESTAMP('02/01/2024 03:04', 'dd/MM/yyyy HH:mm')", INT64_C(1704164640000));
    expect_ts("TO_TIMESTAMP('20240102030405678', 'yyyyMMddHHmmssSSS')", TS_E);
    expect_ts("TO_TIMESTAMP('2024-01-02 03:04:05.678999', 'yyyy-MM-dd HH:mm:ss.SSSSSS')", TS_E);
    expect_null("TO_TIMESTAMP('2024-02-30 00:00:00')");
    expect_null("TO_TIMESTAMP('123456789-01-01 00:00:00')");
    expect_null("TO_TIMESTAMP('junk')");
    expect_null("TO_TIMESTAMP(s)");
    expect_str("FROM_UNIXTIME(0)", "1970-01-01 00:00:00");
    expect_str("FROM_UNIXTIME(1704164645, 'yyyy/MM/dd')", "2024/01/02");
    expect_str("FROM_UNIXTIME(-1)", "1969-12-31 23:59:59");
    expect_int("UNIX_TIMESTAMP('2024-01-02 03:04:05')", INT64_C(1704164645));
    expect_int("UNIX_TIMESTAMP('2024/01/02', 'yyyy/MM/dd')", INT64_C(1704153600));
    expect_null("UNIX_TIMESTAMP('x')");
    expect_type("UNIX_TIMESTAMP()", RSQL_TYPE_BIGINT);
    expect_ts("TIMESTAMPADD(DAY, 1, e)", TS_E + 86400000);
    expect_ts("TIMESTAMPADD(hour, -3, e)", TS_E - 3 * 3600000);
    expect_ts("TIMESTAMPADD(MONTH, 1, CAST('2024-01-31' AS TIMESTAMP))",
              INT64_C(1709164800000)); /* 2024-02-29: clamped to the month's end */
    expect_ts("TIMESTAMPADD(YEAR, 1, CAST('2024-02-29 12:00' AS TIMESTAMP))",
              INT64_C(1740744000000)); /* 2025-02-28 12:00 */
    expect_ts("TIMESTAMPADD(QUARTER, -1, CAST('2024-05-15' AS TIMESTAMP))",
              INT64_C(1707955200000)); /* 2024-02-15 */
    expect_null("TIMESTAMPADD(DAY, n, e)");
    expect_eval_error("TIMESTAMPADD(WEEK, f * 1000000, e)", "out of range for TIMESTAMP(3)",
                      "TIMESTAMPADD(WEEK, f * 1000000, e)");
    expect_int("TIMESTAMPDIFF(DAY, CAST('2024-01-01' AS TIMESTAMP), e)", 1);
    expect_int("TIMESTAMPDIFF(HOUR, e, CAST('2024-01-01' AS TIMESTAMP))", -27);
    expect_int("TIMESTAMPDIFF(MONTH, CAST('2024-01-31' AS TIMESTAMP), "
               "CAST('2024-02-29' AS TIMESTAMP))",
               0);
    expect_int("TIMESTAMPDIFF(MONTH, CAST('2024-01-31' AS TIMESTAMP), "
               "CAST('2024-03-31' AS TIMESTAMP))",
               2);
    expect_int("TIMESTAMPDIFF(YEAR, CAST('2020-06-01' AS TIMESTAMP), e)", 3);
    expect_type("TIMESTAMPDIFF(SECOND, e, e)", RSQL_TYPE_INT);
    expect_int("EXTRACT(YEAR FROM e)", 2024);
    expect_int("EXTRACT(MONTH FROM e)", 1);
    expect_int("EXTRACT(DAY FROM e)", 2);
    expect_int("EXTRACT(HOUR FROM e)", 3);
    expect_int("EXTRACT(MINUTE FROM e)", 4);
    expect_int("EXTRACT(SECOND FROM e)", 5);
    expect_int("EXTRACT(MILLISECOND FROM e)", 678);
    expect_int("EXTRACT(QUARTER FROM e)", 1);
    expect_int("EXTRACT(DOW FROM e)", 3); /* 1 = Sunday */
    expect_int("EXTRACT(DOY FROM e)", 2);
    expect_int("EXTRACT(WEEK FROM e)", 1);
    expect_int("EXTRACT(WEEK FROM CAST('2021-01-03' AS TIMESTAMP))", 53); /* ISO week of 2020 */
    expect_int("EXTRACT(EPOCH FROM e)", INT64_C(1704164645));
    expect_int("EXTRACT(YEAR FROM CAST('1969-12-31 23:59:59.999' AS TIMESTAMP))", 1969);
    expect_null("EXTRACT(DAY FROM CAST(NULL AS TIMESTAMP))");
    /* the extremes of TIMESTAMP(3) (as BIGINT milliseconds): no overflow anywhere */
    expect_type("EXTRACT(WEEK FROM CAST(CAST(9223372036854775807 AS BIGINT) AS TIMESTAMP))",
                RSQL_TYPE_BIGINT);
    expect_type("EXTRACT(WEEK FROM CAST(-9223372036854775807 - 1 AS TIMESTAMP))",
                RSQL_TYPE_BIGINT);
    expect_type("DATE_FORMAT(CAST(-9223372036854775807 - 1 AS TIMESTAMP), 'yyyy D E')",
                RSQL_TYPE_VARCHAR);
    expect_eval_error("TIMESTAMPADD(MONTH, 1, CAST(9223372036854775807 AS TIMESTAMP))",
                      "out of range for TIMESTAMP(3)",
                      "TIMESTAMPADD(MONTH, 1, CAST(9223372036854775807 AS TIMESTAMP))");
    expect_eval_error("TIMESTAMPDIFF(MONTH, CAST(-9223372036854775807 - 1 AS TIMESTAMP), "
                      "CAST(9223372036854775807 AS TIMESTAMP))",
                      "integer overflow", NULL); /* 7 billion months: more than an INT */
    expect_eval_error("TIMESTAMPDIFF(SECOND, CAST(-9223372036854775807 - 1 AS TIMESTAMP), "
                      "CAST(9223372036854775807 AS TIMESTAMP))",
                      "integer overflow", NULL);
    expect_plan_error("EXTRACT(FORTNIGHT FROM e)",
                      "unknown time unit FORTNIGHT for EXTRACT (MILLISECOND, SECOND, MINUTE, "
                      "HOUR, DAY, DOW, DOY, WEEK, MONTH, QUARTER, YEAR, EPOCH)",
                      "FORTNIGHT");
    expect_plan_error("TIMESTAMPADD('DAY', 1, e)",
                      "argument 1 of TIMESTAMPADD must be a time unit such as DAY", "'DAY'");
    expect_plan_error("DATE_FORMAT(e, 'yyyy-qq')", "invalid date/time pattern: 'q' at offset 5",
                      "'yyyy-qq'");
}

static void test_fn_json_value(void)
{
    expect_str("JSON_VALUE(j, '$.user.name')", "Ann");
    /* several paths of one body (parsed once per row) and of different bodies in one row */
    expect_str("CONCAT(JSON_VALUE(j, '$.id'), JSON_VALUE(j, '$.user.name'), "
               "JSON_VALUE(j, '$.user.tags[0]'))",
               "42Anna");
    expect_str("CONCAT(JSON_VALUE('{\"a\":1}', '$.a'), JSON_VALUE('{\"a\":2}', '$.a'), "
               "JSON_VALUE(j, '$.id'), JSON_VALUE(JSON_QUERY(j, '$.user'), '$.name'))",
               "1242Ann");
    expect_str("JSON_VALUE(j, '$.user.tags[1]')", "b");
    expect_str("JSON_VALUE(j, '$[''user''][\"tags\"][0]')", "a");
    expect_str("JSON_VALUE(j, '$.id')", "42");
    expect_str("JSON_VALUE(j, '$.price')", "12.5");
    expect_str("JSON_VALUE(j, '$.ok')", "true");
    expect_null("JSON_VALUE(j, '$.none')");
    expect_null("JSON_VALUE(j, '$.missing')");
    expect_null("JSON_VALUE(j, '$.user')"); /* not a scalar: NULL ON ERROR */
    expect_null("JSON_VALUE('{bad', '$.a')");
    expect_null("JSON_VALUE(s, '$.a')");
    expect_str("JSON_VALUE(j, 'lax $.id[0]')", "42"); /* lax: a scalar is an array of itself */
    expect_null("JSON_VALUE(j, 'strict $.id[0]')");
    expect_null("JSON_VALUE(j, '$.id[0]')"); /* strict is the default, as in Flink */
    expect_str("JSON_VALUE('{\"a.b\": [0.5, 1]}', '$.[\"a.b\"][0]')", "0.5");
    expect_str("JSON_VALUE('{\"sp ace\": \"r\"}', 'strict $.[''sp ace'']' NULL ON EMPTY "
               "DEFAULT 'wrong' ON ERROR)",
               "r");
    expect_str("JSON_VALUE('{\"a\": true}', 'lax $.b' DEFAULT FALSE ON EMPTY)", "false");
    expect_str("JSON_VALUE('{\"a\": true}', 'strict $.b' DEFAULT FALSE ON ERROR)", "false");
    expect_null("JSON_VALUE('{\"a\": true}', '$.b' DEFAULT 'x' ON EMPTY)"); /* strict: ERROR */
    expect_int("JSON_VALUE(j, '$.id' RETURNING INT)", 42);
    expect_type("JSON_VALUE(j, '$.id' RETURNING BIGINT)", RSQL_TYPE_BIGINT);
    expect_double("JSON_VALUE(j, '$.price' RETURNING DOUBLE)", 12.5);
    expect_bool("JSON_VALUE(j, '$.ok' RETURNING BOOLEAN)", "T");
    expect_ts("JSON_VALUE(j, '$.ts' RETURNING TIMESTAMP(3))", INT64_C(1704164645000));
    expect_null("JSON_VALUE(j, '$.user.name' RETURNING INT)");
    expect_str("CAST(JSON_VALUE(j, '$.price' RETURNING DECIMAL(10, 2)) AS VARCHAR)", "12.50");
    expect_str("CAST(JSON_VALUE('{\"p\":\"12345678901234567890.123\"}', '$.p' "
               "RETURNING DECIMAL(38, 3)) AS VARCHAR)",
               "12345678901234567890.123"); /* a JSON string reads exactly */
    expect_null("JSON_VALUE(j, '$.price' RETURNING DECIMAL(2, 1))"); /* does not fit: ERROR */
    expect_str("CAST(JSON_VALUE(j, 'lax $.x' RETURNING DECIMAL(4, 1) DEFAULT 0.5 ON EMPTY) "
               "AS VARCHAR)",
               "0.5");
    expect_type("JSON_VALUE('{\"d\":\"2024-01-02\"}', '$.d' RETURNING DATE)", RSQL_TYPE_DATE);
    expect_str("CAST(JSON_VALUE('{\"d\":\"2024-01-02\"}', '$.d' RETURNING DATE) AS VARCHAR)",
               "2024-01-02");
    expect_null("JSON_VALUE('{\"d\":\"2024-13-02\"}', '$.d' RETURNING DATE)");
    expect_int("JSON_VALUE(j, 'lax $.missing' RETURNING INT DEFAULT -1 ON EMPTY)", -1);
    expect_ts("JSON_VALUE(j, 'lax $.x' RETURNING TIMESTAMP DEFAULT '2024-01-02' ON EMPTY)",
              INT64_C(1704153600000));
    expect_int("JSON_VALUE(j, '$.user.name' RETURNING INT DEFAULT 7 ON EMPTY DEFAULT 9 ON ERROR)",
               9);
    expect_str("JSON_VALUE(j, 'lax $.nope' DEFAULT 'x' ON EMPTY)", "x");
    expect_eval_error("JSON_VALUE(j, 'lax $.nope' ERROR ON EMPTY)",
                      "JSON_VALUE: no value at the JSON path",
                      "JSON_VALUE(j, 'lax $.nope' ERROR ON EMPTY)");
    expect_eval_error("JSON_VALUE(j, '$.nope' ERROR ON ERROR)",
                      "JSON_VALUE: strict JSON path: no such member",
                      "JSON_VALUE(j, '$.nope' ERROR ON ERROR)");
    expect_eval_error("JSON_VALUE('[1', '$' ERROR ON ERROR)", "JSON_VALUE: invalid JSON",
                      "JSON_VALUE('[1', '$' ERROR ON ERROR)");
    expect_str("JSON_VALUE('{\"a\":\"x\"}', CONCAT('$.', 'a'))", "x"); /* a path per row */
    expect_null("JSON_VALUE(j, h)"); /* an invalid path per row: NULL ON ERROR */
    expect_plan_error("JSON_VALUE(j, 'user.name')",
                      "invalid JSON path: a JSON path starts with $ at offset 0", "'user.name'");
    expect_plan_error("JSON_VALUE(j, '$.a[*]')",
                      "invalid JSON path: wildcards are not supported at offset 4", "'$.a[*]'");
    expect_plan_error("JSON_VALUE(j, '$' RETURNING BYTES)",
                      "JSON_VALUE cannot return BYTES "
                      "(VARCHAR, INT, BIGINT, DOUBLE, DECIMAL, BOOLEAN, DATE or TIMESTAMP(3))",
                      "BYTES");
    expect_plan_error("JSON_VALUE(j, '$' RETURNING INT DEFAULT 'x' ON EMPTY)",
                      "the DEFAULT of JSON_VALUE must be INT, got VARCHAR", "'x'");
    expect_plan_error("JSON_VALUE(j, '$' ABSENT ON EMPTY)",
                      "JSON_VALUE() takes no ABSENT ON EMPTY", "ABSENT ON EMPTY");
    expect_plan_error("UPPER(h RETURNING INT)", "UPPER() takes no RETURNING", "INT");
}

static void test_fn_json_query_exists(void)
{
    expect_str("JSON_QUERY(j, '$.user')", "{\"name\":\"Ann\",\"tags\":[\"a\",\"b\"]}");
    expect_str("JSON_QUERY(j, '$.user.tags')", "[\"a\",\"b\"]");
    expect_null("JSON_QUERY(j, '$.id')"); /* a scalar needs a wrapper: NULL ON ERROR */
    expect_null("JSON_QUERY(j, '$.x')");
    expect_eval_error("JSON_QUERY(j, '$.id' ERROR ON ERROR)",
                      "JSON_QUERY: not an object or array at the JSON path",
                      "JSON_QUERY(j, '$.id' ERROR ON ERROR)");
    expect_str("JSON_QUERY(j, '$.id' WITH ARRAY WRAPPER)", "[42]");
    expect_str("JSON_QUERY(j, '$.user.tags' WITH UNCONDITIONAL ARRAY WRAPPER)", "[[\"a\",\"b\"]]");
    expect_str("JSON_QUERY(j, '$.user.tags' WITH CONDITIONAL ARRAY WRAPPER)", "[\"a\",\"b\"]");
    expect_str("JSON_QUERY(j, '$.user.name' WITH CONDITIONAL WRAPPER)", "[\"Ann\"]");
    expect_null("JSON_QUERY(j, '$.id' WITHOUT ARRAY WRAPPER)");
    expect_str("JSON_QUERY(j, 'lax $.nope' EMPTY ARRAY ON EMPTY)", "[]");
    expect_str("JSON_QUERY(j, '$.nope' EMPTY OBJECT ON ERROR)", "{}");
    expect_str("JSON_QUERY('x', '$' NULL ON EMPTY EMPTY ARRAY ON ERROR)", "[]");
    expect_plan_error("JSON_VALUE(j, '$' WITH ARRAY WRAPPER)",
                      "JSON_VALUE() takes no WRAPPER clause", "WITH ARRAY WRAPPER");
    expect_plan_error("UPPER(h WITHOUT WRAPPER)", "UPPER() takes no WRAPPER clause",
                      "WITHOUT WRAPPER");
    expect_plan_error("JSON_VALUE(j, '$' EMPTY ARRAY ON EMPTY)",
                      "JSON_VALUE() takes no EMPTY ARRAY ON EMPTY", "EMPTY ARRAY ON EMPTY");
    expect_bool("JSON_EXISTS(j, '$.user.tags[1]')", "T");
    expect_bool("JSON_EXISTS(j, '$.none')", "T"); /* a JSON null exists */
    expect_bool("JSON_EXISTS(j, '$.user.tags[5]')", "F");
    expect_bool("JSON_EXISTS('oops', '$.a')", "F");
    expect_bool("JSON_EXISTS('oops', '$.a' TRUE ON ERROR)", "T");
    expect_bool("JSON_EXISTS('oops', '$.a' UNKNOWN ON ERROR)", "N");
    expect_bool("JSON_EXISTS(j, 'strict $.nope' TRUE ON ERROR)", "T");
    expect_bool("JSON_EXISTS(s, '$')", "N");
}

static void test_fn_json_construct(void)
{
    expect_str("JSON_OBJECT()", "{}");
    expect_str("JSON_OBJECT(KEY 'a' VALUE 1, KEY 'b' VALUE h)", "{\"a\":1,\"b\":\"abc\"}");
    expect_str("JSON_OBJECT(KEY 'k' VALUE JSON_QUERY(j, '$.user.tags'))", "{\"k\":[\"a\",\"b\"]}");
    expect_str("JSON_OBJECT('k' VALUE d, 'n' VALUE n)", "{\"k\":true,\"n\":null}");
    expect_str("JSON_OBJECT('n' VALUE n ABSENT ON NULL)", "{}");
    expect_str("JSON_OBJECT(KEY 'o' VALUE JSON_OBJECT(KEY 'x' VALUE c))", "{\"o\":{\"x\":2.5}}");
    expect_str("JSON_OBJECT(KEY 'q' VALUE 'say \"hi\"\n')", "{\"q\":\"say \\\"hi\\\"\\n\"}");
    expect_str("JSON_OBJECT(KEY 't' VALUE e)", "{\"t\":\"2024-01-02 03:04:05.678\"}");
    expect_str("JSON_OBJECT(KEY 'p' VALUE CAST('1.50' AS DECIMAL(5, 2)), "
               "'d' VALUE CAST('2024-01-02' AS DATE))",
               "{\"p\":1.50,\"d\":\"2024-01-02\"}");
    expect_str("JSON_ARRAY(1, 'two', n, JSON_ARRAY(d))", "[1,\"two\",[true]]");
    expect_str("JSON_ARRAY(1, n NULL ON NULL)", "[1,null]");
    expect_str("JSON_ARRAY()", "[]");
    expect_plan_error("JSON_OBJECT(KEY s VALUE 1)", "a key of JSON_OBJECT must be a string literal",
                      "s");
    expect_plan_error("JSON_OBJECT(KEY 'a' VALUE 1, KEY NULL VALUE 2)",
                      "a key of JSON_OBJECT must be a string literal", "NULL");
    expect_plan_error("JSON_ARRAY(1 ABSENT ON EMPTY)", "JSON_ARRAY() takes no ABSENT ON EMPTY",
                      "ABSENT ON EMPTY");
    expect_plan_error("UPPER('a' VALUE 'b')", "UPPER() takes no KEY ... VALUE members", "'a'");
}

/* Deeply nested documents: bounded, the ERROR case (NULL by default), never a crash. */
static void test_fn_json_hostile(void)
{
    static char expr[4000], doc[3000];
    size_t n = 0;
    for (int i = 0; i < 1400; i++) {
        doc[n++] = '[';
    }
    doc[n] = 0;
    snprintf(expr, sizeof(expr), "JSON_VALUE('%s', '$[0]')", doc);
    expect_null(expr);
    snprintf(expr, sizeof(expr), "JSON_EXISTS('%s', '$')", doc);
    expect_bool(expr, "F");
    snprintf(expr, sizeof(expr), "JSON_VALUE('%s', '$[0]' ERROR ON ERROR)", doc);
    expect_eval_error(expr, "JSON_VALUE: JSON nested too deeply", NULL);
    expect_null("JSON_VALUE('{\"a\":\"\\ud800\"', '$.a')");
    expect_null("JSON_VALUE('\"unterminated', '$')");
    expect_str("JSON_VALUE('[[[[[[[[[[1]]]]]]]]]]', '$[0][0][0][0][0][0][0][0][0][0]')", "1");
}

static int fn_suite_init(void)
{
    rsql_eval_ctx_init(&ctx);
    set_row();
    return suite_init_table();
}

static int fn_suite_clean(void)
{
    rsql_eval_ctx_deinit(&ctx);
    return suite_clean();
}

static CU_TestInfo fn_tests[] = {
    {"test_fn_strings", test_fn_strings},
    {"test_fn_conditionals", test_fn_conditionals},
    {"test_fn_hashes", test_fn_hashes},
    {"test_fn_regex", test_fn_regex},
    {"test_fn_regex_hostile", test_fn_regex_hostile},
    {"test_fn_time", test_fn_time},
    {"test_fn_json_value", test_fn_json_value},
    {"test_fn_json_query_exists", test_fn_json_query_exists},
    {"test_fn_json_construct", test_fn_json_construct},
    {"test_fn_json_hostile", test_fn_json_hostile},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"funcs", fn_suite_init, fn_suite_clean, NULL, NULL, fn_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
