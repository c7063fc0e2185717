/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_value_interval.c: the day-time interval's text form (+d
 * hh:mm:ss.fff, what CAST(... AS VARCHAR) gives) and its reading back, the SQL literal of
 * each qualifier (fields, ranges, signs, fractions cut to milliseconds, errors with their
 * offsets), the literal EXPLAIN writes, and the interval in the generic value functions.
 */
#include "config.h"
#include "base/rsql_types.h"
#include "base/rsql_value.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#define S 1000LL
#define M (60 * S)
#define H (60 * M)
#define D (24 * H)

static void fmt_case(int64_t ms, const char *want)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    size_t n = rsql_value_format_interval(ms, buf);
    CU_ASSERT_EQUAL(n, strlen(want));
    CU_ASSERT_STRING_EQUAL(buf, want);
    int64_t back = 0;
    CU_ASSERT_EQUAL(rsql_value_parse_interval(buf, n, &back, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(back, ms);
}

static void test_interval_text(void)
{
    fmt_case(0, "+0 00:00:00.000");
    fmt_case(5 * S, "+0 00:00:05.000");
    fmt_case(-5 * S, "-0 00:00:05.000");
    fmt_case(500, "+0 00:00:00.500");
    fmt_case(D + 2 * H + 3 * M + 4 * S + 5, "+1 02:03:04.005");
    fmt_case(-(D + 1), "-1 00:00:00.001");
    fmt_case(100 * D, "+100 00:00:00.000");
    fmt_case(INT64_MAX, "+106751991167 07:12:55.807");
    fmt_case(-INT64_MAX, "-106751991167 07:12:55.807");
    char buf[RSQL_VALUE_TEXT_MAX];
    rsql_value_format_interval(INT64_MIN, buf); /* no overflow in the magnitude */
    CU_ASSERT_STRING_EQUAL(buf, "-106751991167 07:12:55.808");

    int64_t ms = 0;
    CU_ASSERT_EQUAL(rsql_value_parse_interval(" 2 01:00:00 ", 12, &ms, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(ms, 2 * D + H);
    static const char *const bad[] = {"", "5", "+0", "0 1:00", "0 00:00:60.000", "x 00:00:00",
                                      "+0  00:00:00", "0 24:00:00", "--1 00:00:00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_value_parse_interval(bad[i], strlen(bad[i]), &ms, &err),
                        RSQL_ERR_DECODE);
        CU_ASSERT_STRING_EQUAL(err.msg, "not an interval");
    }
}

/* INTERVAL 'in' from TO to: want (ms) or, when msg is set, the error and its offset */
static void lit_case(const char *in, int from, int to, int64_t want, const char *msg, int off)
{
    int64_t ms = -12345;
    uint32_t at = 999;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_value_interval_literal(in, strlen(in), from, to, &ms, &at, &err);
    if (msg) {
        CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
        CU_ASSERT_STRING_EQUAL(err.msg, msg);
        CU_ASSERT_EQUAL(at, (uint32_t)off);
        CU_ASSERT_EQUAL(ms, -12345); /* untouched */
        if (rc == RSQL_OK || strcmp(err.msg, msg) != 0 || at != (uint32_t)off) {
            fprintf(stderr, "'%s': got '%s' at %u\n", in, err.msg, at);
        }
        return;
    }
    CU_ASSERT_EQUAL(rc, RSQL_OK);
    CU_ASSERT_EQUAL(ms, want);
    if (ms != want) {
        fprintf(stderr, "'%s': got %lld want %lld\n", in, (long long)ms, (long long)want);
    }
}

static void test_interval_literal(void)
{
    enum { DAY = RSQL_IV_DAY, HOUR = RSQL_IV_HOUR, MIN = RSQL_IV_MINUTE, SEC = RSQL_IV_SECOND };
    lit_case("5", SEC, SEC, 5 * S, NULL, 0);
    lit_case("10", MIN, MIN, 10 * M, NULL, 0);
    lit_case("2", HOUR, HOUR, 2 * H, NULL, 0);
    lit_case("1", DAY, DAY, D, NULL, 0);
    lit_case("0.5", SEC, SEC, 500, NULL, 0);
    lit_case("-5", SEC, SEC, -5 * S, NULL, 0);
    lit_case("+5", SEC, SEC, 5 * S, NULL, 0);
    lit_case(" 7 ", DAY, DAY, 7 * D, NULL, 0);
    lit_case("1.123456789", SEC, SEC, 1123, NULL, 0); /* cut, not rounded */
    lit_case("1.9999", SEC, SEC, 1999, NULL, 0);
    lit_case("90", MIN, MIN, 90 * M, NULL, 0); /* the first field takes any size */
    lit_case("1 02:03:04.005", DAY, SEC, D + 2 * H + 3 * M + 4 * S + 5, NULL, 0);
    lit_case("-1 02:03:04.005", DAY, SEC, -(D + 2 * H + 3 * M + 4 * S + 5), NULL, 0);
    lit_case("01:30", HOUR, MIN, H + 30 * M, NULL, 0);
    lit_case("3 04", DAY, HOUR, 3 * D + 4 * H, NULL, 0);
    lit_case("2 03:04", DAY, MIN, 2 * D + 3 * H + 4 * M, NULL, 0);
    lit_case("1:02:03.4", HOUR, SEC, H + 2 * M + 3 * S + 400, NULL, 0);
    lit_case("90:05", MIN, SEC, 90 * M + 5 * S, NULL, 0);
    lit_case("106751991167", DAY, DAY, 106751991167LL * D, NULL, 0);

    lit_case("x", SEC, SEC, 0, "expected 's[.fff]'", 0);
    lit_case("", SEC, SEC, 0, "expected 's[.fff]'", 0);
    lit_case("1.5", MIN, MIN, 0, "expected 'm'", 1);
    lit_case("1.", SEC, SEC, 0, "expected 1 to 9 fraction digits in 's[.fff]'", 2);
    lit_case("1.1234567890", SEC, SEC, 0, "expected 1 to 9 fraction digits in 's[.fff]'", 2);
    lit_case("1 25:00", DAY, MIN, 0, "HOUR field out of range (0 to 23)", 2);
    lit_case("01:60", HOUR, MIN, 0, "MINUTE field out of range (0 to 59)", 3);
    lit_case("1:2:61", HOUR, SEC, 0, "SECOND field out of range (0 to 59)", 4);
    lit_case("1 02:03", DAY, SEC, 0, "expected 'd h:m:s[.fff]'", 7);
    lit_case("1 02", DAY, MIN, 0, "expected 'd h:m'", 4);
    lit_case("1:02", DAY, HOUR, 0, "expected 'd h'", 1);
    lit_case("106751991168", DAY, DAY, 0, "out of range for an interval", 0);
    lit_case("9999999999999999999", SEC, SEC, 0, "expected 's[.fff]'", 0);
    lit_case("- 5", SEC, SEC, 0, "expected 's[.fff]'", 1);
}

static void sql_case(int64_t ms, const char *want)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    CU_ASSERT_EQUAL(rsql_value_interval_sql(ms, buf), strlen(want));
    CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_interval_sql_and_value(void)
{
    sql_case(5 * S, "INTERVAL '5' SECOND");
    sql_case(90 * S, "INTERVAL '90' SECOND");
    sql_case(90 * M, "INTERVAL '90' MINUTE");
    sql_case(-2 * H, "INTERVAL '-2' HOUR");
    sql_case(3 * D, "INTERVAL '3' DAY");
    sql_case(500, "INTERVAL '0.500' SECOND");
    sql_case(-1500, "INTERVAL '-1.500' SECOND");
    sql_case(0, "INTERVAL '0' SECOND");

    CU_ASSERT_STRING_EQUAL(rsql_type_name(RSQL_TYPE_INTERVAL), "INTERVAL DAY TO SECOND(3)");
    CU_ASSERT_STRING_EQUAL(rsql_tdesc_of(RSQL_TYPE_INTERVAL, NULL)->text,
                           "INTERVAL DAY TO SECOND(3)");
    rsql_value_t v = {.type = RSQL_TYPE_INTERVAL, .v.i = -(D + 1)}, back;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_format(&v, &b);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "-1 00:00:00.001");
    CU_ASSERT_EQUAL(rsql_value_parse(RSQL_TYPE_INTERVAL, b.data, b.len, NULL, &back, NULL),
                    RSQL_OK);
    CU_ASSERT_TRUE(rsql_value_same_key(&v, &back));
    CU_ASSERT_EQUAL(rsql_value_key_hash(&v, 1), rsql_value_key_hash(&back, 1));
    rsql_buf_deinit(&b);
    /* state bytes read back */
    rsql_buf_t packed = RSQL_BUF_INIT;
    rsql_value_pack(&v, 1, &packed);
    rsql_type_t t = RSQL_TYPE_INTERVAL;
    rsql_value_t got;
    CU_ASSERT_EQUAL(rsql_value_unpack((const uint8_t *)packed.data, packed.len, 1, &t, NULL,
                                      NULL, &got, NULL),
                    RSQL_OK);
    CU_ASSERT_EQUAL(got.type, RSQL_TYPE_INTERVAL);
    CU_ASSERT_EQUAL(got.v.i, v.v.i);
    rsql_buf_deinit(&packed);
    CU_ASSERT_STRING_EQUAL(rsql_interval_unit_name(RSQL_IV_MINUTE), "MINUTE");
    CU_ASSERT_STRING_EQUAL(rsql_interval_unit_name(7), "?");
}

static CU_TestInfo interval_tests[] = {
    {"test_interval_text", test_interval_text},
    {"test_interval_literal", test_interval_literal},
    {"test_interval_sql_and_value", test_interval_sql_and_value},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"interval", NULL, NULL, NULL, NULL, interval_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
