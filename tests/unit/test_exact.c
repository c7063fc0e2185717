/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_value_exact.c and the type descriptors of base/rsql_types.c:
 * DECIMAL text (read, print, rounding half away from zero, precision limits, exponents, 38
 * digits), DECIMAL arithmetic (exact + - *, Flink's result types, overflow), exact
 * comparisons across scales, conversions to and from integers and doubles, DATE text, the
 * JSON text of nested values, and the type text parser (canonical text, interning, errors
 * with their offsets).
 */
#include "config.h"
#include "base/rsql_types.h"
#include "base/rsql_value.h"

#include <stdint.h>
#include <string.h>

#include <CUnit/CUnit.h>

/* text -> DECIMAL(p, s) -> text; want NULL = an error */
static void dec_case(const char *in, int p, int s, const char *want)
{
    rsql_value_t v;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_value_parse_decimal(in, strlen(in), p, s, &v, &err);
    if (!want) {
        CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
    char buf[RSQL_VALUE_TEXT_MAX];
    size_t n = rsql_value_format_decimal(&v, buf);
    CU_ASSERT_EQUAL(n, strlen(want));
    CU_ASSERT_STRING_EQUAL(buf, want);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "DECIMAL(%d,%d) '%s': got %s want %s\n", p, s, in, buf, want);
    }
    /* the printed text reads back to the same value */
    rsql_value_t back;
    CU_ASSERT_EQUAL(rsql_value_parse_decimal(buf, n, p, s, &back, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&v, &back), 0);
}

static void test_exact_decimal_text(void)
{
    dec_case("0", 10, 2, "0.00");
    dec_case("-0", 10, 2, "0.00");
    dec_case("12.345", 10, 2, "12.35");
    dec_case("12.344", 10, 2, "12.34");
    dec_case("-12.345", 10, 2, "-12.35");
    dec_case("-0.004", 10, 2, "0.00");
    dec_case("-0.005", 10, 2, "-0.01");
    dec_case(" +7 ", 3, 0, "7");
    dec_case(".5", 2, 1, "0.5");
    dec_case("5.", 2, 1, "5.0");
    dec_case("1e3", 6, 2, "1000.00");
    dec_case("1.5E-2", 4, 3, "0.015");
    dec_case("125e-2", 3, 1, "1.3");
    dec_case("0.000000000000000000000000000000000000000001", 38, 2, "0.00");
    dec_case("00012.50", 4, 2, "12.50");
    dec_case("99999999999999999999999999999999999999", 38, 0,
             "99999999999999999999999999999999999999");
    dec_case("-9999999999999999999999999999.9999999999", 38, 10,
             "-9999999999999999999999999999.9999999999");
    dec_case("0.99999999999999999999999999999999999999", 38, 38,
             "0.99999999999999999999999999999999999999");
    /* the 39th significant digit rounds */
    dec_case("1.00000000000000000000000000000000000005", 38, 37,
             "1.0000000000000000000000000000000000001");
    dec_case("1.00000000000000000000000000000000000004", 38, 37,
             "1.0000000000000000000000000000000000000");
    /* errors: too many integer digits, rounding up past the precision, not a number */
    dec_case("100", 4, 2, NULL);
    dec_case("99.995", 4, 2, NULL);
    dec_case("999999999999999999999999999999999999999", 38, 0, NULL);
    dec_case("1e39", 38, 0, NULL);
    dec_case("1e99999999", 38, 0, NULL);
    dec_case("abc", 10, 2, NULL);
    dec_case("", 10, 2, NULL);
    dec_case("1.2.3", 10, 2, NULL);
    dec_case("1e", 10, 2, NULL);
    dec_case("--1", 10, 2, NULL);
    dec_case("0x10", 10, 2, NULL);
    dec_case("NaN", 10, 2, NULL);
    rsql_error_t err;
    rsql_value_t v;
    rsql_error_clear(&err);
    rsql_value_parse_decimal("100", 3, 4, 2, &v, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "out of range for DECIMAL(4, 2)");
}

static rsql_value_t dec(const char *s, int p, int sc)
{
    rsql_value_t v;
    memset(&v, 0, sizeof v);
    CU_ASSERT_EQUAL(rsql_value_parse_decimal(s, strlen(s), p, sc, &v, NULL), RSQL_OK);
    return v;
}

static void arith_case(char op, const char *a, int pa, int sa, const char *b, int pb, int sb,
                       int want_p, int want_s, const char *want)
{
    int p, s;
    rsql_value_decimal_type(op, pa, sa, pb, sb, &p, &s);
    CU_ASSERT_EQUAL(p, want_p);
    CU_ASSERT_EQUAL(s, want_s);
    rsql_value_t x = dec(a, pa, sa), y = dec(b, pb, sb), r;
    rsql_err_t rc = op == '/'   ? rsql_value_decimal_div(&x, &y, p, s, &r, NULL)
                    : op == '%' ? rsql_value_decimal_mod(&x, &y, p, s, &r, NULL)
                                : rsql_value_decimal_arith(op, &x, &y, p, s, &r, NULL);
    if (!want) {
        CU_ASSERT_EQUAL(rc, RSQL_ERR_EVAL);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
    char buf[RSQL_VALUE_TEXT_MAX];
    rsql_value_format_decimal(&r, buf);
    CU_ASSERT_STRING_EQUAL(buf, want);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "%s %c %s: got %s want %s\n", a, op, b, buf, want);
    }
}

static void test_exact_decimal_arith(void)
{
    /* 0.1 + 0.2 is exactly 0.3 */
    arith_case('+', "0.1", 2, 1, "0.2", 2, 1, 3, 1, "0.3");
    arith_case('+', "12.34", 6, 2, "0.005", 4, 3, 8, 3, "12.345");
    arith_case('-', "1", 10, 0, "0.01", 3, 2, 13, 2, "0.99");
    arith_case('-', "-5.5", 3, 1, "5.5", 3, 1, 4, 1, "-11.0");
    arith_case('*', "12.34", 6, 2, "0.5", 2, 1, 8, 3, "6.170");
    arith_case('*', "-1.5", 2, 1, "-1.5", 2, 1, 4, 2, "2.25");
    /* past 38 digits: precision 38, the scale shrinks, not below min(s, 6) */
    arith_case('*', "1.5", 20, 10, "2.5", 20, 10, 38, 18, "3.750000000000000000");
    arith_case('+', "1", 38, 0, "1", 38, 0, 38, 0, "2");
    arith_case('+', "99999999999999999999999999999999999999", 38, 0, "1", 38, 0, 38, 0, NULL);
    arith_case('*', "99999999999999999999", 20, 0, "99999999999999999999", 20, 0, 38, 0,
               NULL);
    arith_case('*', "0.333333", 7, 6, "0.000001", 7, 6, 14, 12, "0.000000333333");
}

/* a / b or a % b at DECIMAL(p, s) chosen by the test (rounding and wide operands). */
static void divmod_at(char op, const char *a, int pa, int sa, const char *b, int pb, int sb,
                      int p, int s, const char *want)
{
    rsql_value_t x = dec(a, pa, sa), y = dec(b, pb, sb), r;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = op == '/' ? rsql_value_decimal_div(&x, &y, p, s, &r, &err)
                              : rsql_value_decimal_mod(&x, &y, p, s, &r, &err);
    if (want[0] == '!') { /* an error with this message */
        if (rc == RSQL_OK) {
            fprintf(stderr, "%s %c %s: no error\n", a, op, b);
        }
        CU_ASSERT_EQUAL(rc, RSQL_ERR_EVAL);
        CU_ASSERT_STRING_EQUAL(err.msg, want + 1);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
    CU_ASSERT_EQUAL(r.prec, p);
    CU_ASSERT_EQUAL(r.scale, s);
    char buf[RSQL_VALUE_TEXT_MAX];
    rsql_value_format_decimal(&r, buf);
    CU_ASSERT_STRING_EQUAL(buf, want);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "%s %c %s: got %s want %s\n", a, op, b, buf, want);
    }
}

static void test_exact_decimal_divide(void)
{
    /* Flink's types: s = max(6, s1 + p2 + 1), p = p1 - s1 + s2 + s */
    arith_case('/', "10", 5, 2, "3", 3, 0, 9, 6, "3.333333");
    arith_case('/', "2", 1, 0, "3", 1, 0, 7, 6, "0.666667");
    arith_case('/', "-2", 1, 0, "3", 1, 0, 7, 6, "-0.666667");
    arith_case('/', "2", 1, 0, "-3", 1, 0, 7, 6, "-0.666667");
    arith_case('/', "-1", 1, 0, "-8", 1, 0, 7, 6, "0.125000");
    arith_case('/', "1.5", 10, 2, "0.25", 4, 2, 17, 7, "6.0000000");
    /* past 38: the scale shrinks to keep the integer digits, not below 6 */
    arith_case('/', "1", 38, 10, "3", 10, 0, 38, 10, "0.3333333333");
    arith_case('/', "99999999999999999999999999999999999999", 38, 0, "1", 1, 0, 38, 6, NULL);
    arith_case('/', "0.00000000000000000000000000000000000001", 38, 38, "0.3", 1, 1, 38, 37,
               "0.0000000000000000000000000000000000000");
    /* half up (away from zero) at the last digit */
    divmod_at('/', "5", 1, 0, "2", 1, 0, 2, 0, "3");
    divmod_at('/', "-5", 1, 0, "2", 1, 0, 2, 0, "-3");
    divmod_at('/', "7", 1, 0, "2", 1, 0, 2, 0, "4");
    divmod_at('/', "1", 1, 0, "3", 1, 0, 2, 0, "0");
    divmod_at('/', "-2", 1, 0, "3", 1, 0, 2, 0, "-1");
    divmod_at('/', "0.0005", 4, 4, "1", 1, 0, 4, 3, "0.001");
    divmod_at('/', "0.0004", 4, 4, "1", 1, 0, 4, 3, "0.000");
    /* 38-digit operands: the long division never overflows 128 bits */
    divmod_at('/', "99999999999999999999999999999999999999", 38, 0, "3", 1, 0, 38, 0,
              "33333333333333333333333333333333333333");
    divmod_at('/', "1", 1, 0, "99999999999999999999999999999999999999", 38, 0, 38, 38,
              "0.00000000000000000000000000000000000001");
    divmod_at('/', "99999999999999999999999999999999999998", 38, 0,
              "99999999999999999999999999999999999999", 38, 0, 38, 37,
              "1.0000000000000000000000000000000000000");
    divmod_at('/', "99999999999999999999999999999999999998", 38, 0,
              "99999999999999999999999999999999999999", 38, 0, 38, 38,
              "0.99999999999999999999999999999999999999");
    divmod_at('/', "9.5", 2, 1, "1", 1, 0, 1, 0, "!decimal overflow"); /* rounds to 10 */
    divmod_at('/', "1", 1, 0, "0.001", 3, 3, 3, 0, "!decimal overflow");
    divmod_at('/', "1", 1, 0, "0.001", 3, 3, 4, 0, "1000");
    divmod_at('/', "1", 1, 0, "0", 1, 0, 7, 6, "!division by zero");
    divmod_at('/', "0", 1, 0, "-3", 1, 0, 7, 6, "0.000000");
}

static void test_exact_decimal_modulo(void)
{
    /* Flink's types: s = max(s1, s2), p = min(p1 - s1, p2 - s2) + s; the dividend's sign */
    arith_case('%', "7.5", 5, 2, "2", 3, 0, 5, 2, "1.50");
    arith_case('%', "-7.5", 5, 2, "2", 10, 0, 5, 2, "-1.50");
    arith_case('%', "7.5", 5, 2, "-2", 10, 0, 5, 2, "1.50");
    arith_case('%', "10", 2, 0, "0.3", 1, 1, 1, 1, "0.1");
    arith_case('%', "6", 2, 0, "3", 1, 0, 1, 0, "0");
    /* a wide dividend scaled up digit by digit: (10^38 - 1) * 10 mod 7 = 3 */
    arith_case('%', "99999999999999999999999999999999999999", 38, 0, "0.7", 1, 1, 1, 1, "0.3");
    /* a divisor whose scaled value passes 128 bits is beyond the dividend */
    arith_case('%', "0.5", 38, 38, "10000000000000000000000000000000000000", 38, 0, 38, 38,
               "0.50000000000000000000000000000000000000");
    divmod_at('%', "-0.5", 38, 38, "10000000000000000000000000000000000000", 38, 0, 38, 38,
              "-0.50000000000000000000000000000000000000");
    divmod_at('%', "1.5", 2, 1, "0", 1, 0, 1, 1, "!division by zero");
}

/* mode 'r' ROUND(in, digits), 'f' FLOOR, 'c' CEIL: Flink's type, then the value. */
static void round_case(char mode, const char *in, int p, int s, int digits, int want_p,
                       int want_s, const char *want)
{
    int rp, rs;
    rsql_value_decimal_round_type(mode, p, s, digits, &rp, &rs);
    CU_ASSERT_EQUAL(rp, want_p);
    CU_ASSERT_EQUAL(rs, want_s);
    rsql_value_t x = dec(in, p, s), r;
    rsql_err_t rc = rsql_value_decimal_round(&x, digits, mode, rp, rs, &r, NULL);
    if (!want) {
        CU_ASSERT_EQUAL(rc, RSQL_ERR_EVAL);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
    char buf[RSQL_VALUE_TEXT_MAX];
    rsql_value_format_decimal(&r, buf);
    CU_ASSERT_STRING_EQUAL(buf, want);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "%c(%s, %d): got %s want %s\n", mode, in, digits, buf, want);
    }
}

static void test_exact_decimal_round(void)
{
    round_case('r', "2.345", 6, 3, 2, 6, 2, "2.35");
    round_case('r', "-2.345", 6, 3, 2, 6, 2, "-2.35");
    round_case('r', "2.344", 6, 3, 2, 6, 2, "2.34");
    round_case('r', "9.995", 4, 3, 2, 4, 2, "10.00");
    round_case('r', "-2.5", 3, 1, 0, 3, 0, "-3");
    round_case('r', "2.4", 3, 1, 0, 3, 0, "2");
    round_case('r', "1.5", 2, 1, 5, 2, 1, "1.5");
    round_case('r', "125", 5, 0, -1, 6, 0, "130");
    round_case('r', "-125", 5, 0, -1, 6, 0, "-130");
    round_case('r', "149", 5, 0, -2, 6, 0, "100");
    round_case('r', "99", 2, 0, -2, 3, 0, "100");
    round_case('r', "12.5", 3, 1, -1, 3, 0, "10");
    round_case('r', "99999999999999999999999999999999999999", 38, 0, -39, 38, 0, "0");
    round_case('r', "99999999999999999999999999999999999999", 38, 0, -1, 38, 0, NULL);
    round_case('r', "0.99999999999999999999999999999999999999", 38, 38, 0, 1, 0, "1");
    round_case('f', "-2.5", 3, 1, 0, 3, 0, "-3");
    round_case('f', "2.5", 3, 1, 0, 3, 0, "2");
    round_case('f', "-0.1", 1, 1, 0, 1, 0, "-1");
    round_case('f', "5", 3, 0, 0, 3, 0, "5");
    round_case('f', "-0.00000000000000000000000000000000000001", 38, 38, 0, 1, 0, "-1");
    round_case('c', "-2.5", 3, 1, 0, 3, 0, "-2");
    round_case('c', "2.1", 3, 1, 0, 3, 0, "3");
    round_case('c', "0.9", 1, 1, 0, 1, 0, "1");
    round_case('c', "-0.9", 1, 1, 0, 1, 0, "0");
    round_case('c', "9.1", 2, 1, 0, 2, 0, "10");
}

static void test_exact_decimal_compare_convert(void)
{
    rsql_value_t a = dec("1.10", 3, 2), b = dec("1.1", 2, 1), c = dec("-1.11", 3, 2);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&a, &b), 0);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&c, &b), -1);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&b, &c), 1);
    /* a scale too big to align: the magnitude decides */
    rsql_value_t big = dec("99999999999999999999999999999999999999", 38, 0);
    rsql_value_t tiny = dec("0.00000000000000000000000000000000000001", 38, 38);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&big, &tiny), 1);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&tiny, &big), -1);
    rsql_value_t nbig = dec("-99999999999999999999999999999999999999", 38, 0);
    CU_ASSERT_EQUAL(rsql_value_decimal_cmp(&nbig, &tiny), -1);
    /* integers */
    rsql_value_t v;
    char buf[RSQL_VALUE_TEXT_MAX];
    CU_ASSERT_EQUAL(rsql_value_decimal_from_int(INT64_MIN, 38, 0, &v, NULL), RSQL_OK);
    rsql_value_format_decimal(&v, buf);
    CU_ASSERT_STRING_EQUAL(buf, "-9223372036854775808");
    CU_ASSERT_EQUAL(rsql_value_decimal_from_int(123, 4, 2, &v, NULL), RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(rsql_value_decimal_from_int(-12, 4, 2, &v, NULL), RSQL_OK);
    rsql_value_format_decimal(&v, buf);
    CU_ASSERT_STRING_EQUAL(buf, "-12.00");
    int64_t i;
    rsql_value_t t = dec("-9.99", 3, 2);
    CU_ASSERT_EQUAL(rsql_value_decimal_to_int(&t, INT32_MIN, INT32_MAX, &i, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(i, -9);
    CU_ASSERT_EQUAL(rsql_value_decimal_to_int(&big, INT64_MIN, INT64_MAX, &i, NULL),
                    RSQL_ERR_DECODE);
    /* doubles: through the shortest text, so 0.1 is 0.1 and not 0.1000000000000000055... */
    CU_ASSERT_EQUAL(rsql_value_decimal_from_double(0.1, 38, 30, &v, NULL), RSQL_OK);
    rsql_value_format_decimal(&v, buf);
    CU_ASSERT_STRING_EQUAL(buf, "0.100000000000000000000000000000");
    CU_ASSERT_EQUAL(rsql_value_decimal_from_double(1e300, 38, 0, &v, NULL), RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(rsql_value_decimal_from_double(0.0 / 0.0, 38, 0, &v, NULL),
                    RSQL_ERR_DECODE);
    rsql_value_t d = dec("12.5", 3, 1);
    CU_ASSERT_TRUE(rsql_value_decimal_to_double(&d) == 12.5);
    /* rescale rounds half away from zero and checks the precision */
    CU_ASSERT_EQUAL(rsql_value_decimal_rescale(&c, 2, 1, &v, NULL), RSQL_OK);
    rsql_value_format_decimal(&v, buf);
    CU_ASSERT_STRING_EQUAL(buf, "-1.1");
    CU_ASSERT_EQUAL(rsql_value_decimal_rescale(&a, 2, 2, &v, NULL), RSQL_ERR_DECODE);
    /* 38 dropped digits: the remainder is near 10^38, twice it past the 128-bit range */
    rsql_value_t f = dec("0.99999999999999999999999999999999999999", 38, 38);
    CU_ASSERT_EQUAL(rsql_value_decimal_rescale(&f, 2, 0, &v, NULL), RSQL_OK);
    rsql_value_format_decimal(&v, buf);
    CU_ASSERT_STRING_EQUAL(buf, "1");
    f = dec("-0.49999999999999999999999999999999999999", 38, 38);
    CU_ASSERT_EQUAL(rsql_value_decimal_rescale(&f, 2, 0, &v, NULL), RSQL_OK);
    rsql_value_format_decimal(&v, buf);
    CU_ASSERT_STRING_EQUAL(buf, "0");
}

static void test_exact_date_text(void)
{
    int64_t days;
    char buf[RSQL_VALUE_TEXT_MAX];
    CU_ASSERT_EQUAL(rsql_value_parse_date("1970-01-01", 10, &days, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(days, 0);
    CU_ASSERT_EQUAL(rsql_value_parse_date(" 2024-02-29 ", 12, &days, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(days, 19782);
    rsql_value_format_date(days, buf);
    CU_ASSERT_STRING_EQUAL(buf, "2024-02-29");
    CU_ASSERT_EQUAL(rsql_value_parse_date("1969-12-31", 10, &days, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(days, -1);
    rsql_value_format_date(-719529, buf);
    CU_ASSERT_STRING_EQUAL(buf, "-0001-12-31");
    const char *bad[] = {"2023-02-29", "2024-13-01", "2024-01-01 10:00", "2024-01-01T00:00",
                         "20240101", "12345", "", "x", "2024-1-1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_value_parse_date(bad[k], strlen(bad[k]), &days, &err),
                        RSQL_ERR_DECODE);
        CU_ASSERT_STRING_EQUAL(err.msg, "not a date");
    }
}

static void test_exact_date_pattern(void)
{
    struct {
        const char *s, *pat;
        bool ok;
        int64_t days;
    } cases[] = {
        {"2024-02-29", "yyyy-MM-dd", true, 19782},
        {"29/02/2024", "dd/MM/yyyy", true, 19782},
        {"2024 3 7", "yyyy M d", true, 19789},
        {"20240307", "yyyyMMdd", true, 19789},
        {"on 2024.03.07", "'on' yyyy.MM.dd", true, 19789},
        {"it's 2024-03-07", "'it''s' yyyy-MM-dd", true, 19789},
        {"1970-01-01", "yyyy-MM-dd", true, 0},
        {"2023-02-29", "yyyy-MM-dd", false, 0},
        {"2024-3-07", "yyyy-MM-dd", false, 0},
        {"2024-03-07 ", "yyyy-MM-dd", false, 0},
        {"2024-03-07", "yyyy-MM-dd HH", false, 0},
        {"2024-03-07", "yy-MM-dd", false, 0},
        {"", "yyyy-MM-dd", false, 0},
        {"2024", "yyyy", false, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int64_t days = -12345;
        bool ok = rsql_value_parse_date_pattern(cases[k].s, strlen(cases[k].s), cases[k].pat,
                                                strlen(cases[k].pat), &days);
        CU_ASSERT_EQUAL(ok, cases[k].ok);
        if (ok != cases[k].ok || (ok && days != cases[k].days)) {
            fprintf(stderr, "TO_DATE('%s', '%s'): %d %lld\n", cases[k].s, cases[k].pat, ok,
                    (long long)days);
        }
        if (cases[k].ok) {
            CU_ASSERT_EQUAL(days, cases[k].days);
        }
    }
}

static void tdesc_case(const char *in, const char *want_text, const char *want_err,
                       uint32_t want_off)
{
    const rsql_tdesc_t *d = NULL;
    uint32_t off = 0;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_tdesc_parse(in, strlen(in), &d, &off, &err);
    if (want_text) {
        CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
        CU_ASSERT_STRING_EQUAL(d->text, want_text);
        /* the canonical text parses to the same (interned) descriptor */
        const rsql_tdesc_t *again = NULL;
        CU_ASSERT_EQUAL(rsql_tdesc_parse(d->text, strlen(d->text), &again, NULL, NULL),
                        RSQL_OK);
        CU_ASSERT_PTR_EQUAL(again, d);
        return;
    }
    CU_ASSERT_EQUAL(rc, RSQL_ERR_TYPE);
    CU_ASSERT_STRING_EQUAL(err.msg, want_err);
    CU_ASSERT_EQUAL(off, want_off);
    if (strcmp(err.msg, want_err) != 0 || off != want_off) {
        fprintf(stderr, "'%s': got '%s' at %u\n", in, err.msg, off);
    }
}

static void test_exact_type_text(void)
{
    tdesc_case("int", "INT", NULL, 0);
    tdesc_case("decimal", "DECIMAL(10, 0)", NULL, 0);
    tdesc_case("NUMERIC(38,38)", "DECIMAL(38, 38)", NULL, 0);
    tdesc_case("dec(5)", "DECIMAL(5, 0)", NULL, 0);
    tdesc_case("date", "DATE", NULL, 0);
    tdesc_case("ARRAY<STRING>", "ARRAY<VARCHAR>", NULL, 0);
    tdesc_case("map<string, array<decimal(4,2)>>", "MAP<VARCHAR, ARRAY<DECIMAL(4, 2)>>", NULL,
               0);
    tdesc_case("ROW(a INT, `b c` TIMESTAMP(3), \"from\" ROW<x BYTES>)",
               "ROW<a INT, \"b c\" TIMESTAMP(3), \"from\" ROW<x BYTES>>", NULL, 0);
    tdesc_case("ROW<\"q\"\"x\" INT>", "ROW<\"q\"\"x\" INT>", NULL, 0);
    tdesc_case("ARRAY< /* c */ INT -- x\n >", "ARRAY<INT>", NULL, 0);
    tdesc_case("ROW<date DATE, \"row\" INT>", "ROW<date DATE, \"row\" INT>", NULL, 0);
    tdesc_case("DECIMAL(0)", NULL, "DECIMAL precision must be between 1 and 38", 8);
    tdesc_case("DECIMAL(39, 1)", NULL, "DECIMAL precision must be between 1 and 38", 8);
    tdesc_case("DECIMAL(5, 6)", NULL, "DECIMAL scale must be between 0 and the precision", 11);
    tdesc_case("MAP<INT, INT>", NULL, "MAP keys must be VARCHAR, not INT", 4);
    tdesc_case("ROW<a INT, A INT>", NULL, "duplicate ROW field 'A'", 11);
    tdesc_case("ARRAY<FOO>", NULL, "unknown type 'FOO'", 6);
    tdesc_case("ARRAY<INT", NULL, "expected '>'", 9);
    tdesc_case("ROW<a TIMESTAMP(6)>", NULL,
               "TIMESTAMP(6) is not supported; use TIMESTAMP(3) (millisecond precision)", 16);
    tdesc_case("INT x", NULL, "unexpected 'x' after the type", 4);
    char deep[400] = "";
    for (int i = 0; i < 40; i++) {
        strcat(deep, "ARRAY<");
    }
    strcat(deep, "INT");
    for (int i = 0; i < 40; i++) {
        strcat(deep, ">");
    }
    tdesc_case(deep, NULL, "types nest at most 32 deep", 198);
    /* the descriptors' parts */
    const rsql_tdesc_t *d = NULL;
    const char *t = "ROW<a INT, b MAP<STRING, DATE>>";
    CU_ASSERT_EQUAL_FATAL(rsql_tdesc_parse(t, strlen(t), &d, NULL, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(d->type, RSQL_TYPE_ROW);
    CU_ASSERT_EQUAL(d->n, 2);
    CU_ASSERT_EQUAL(rsql_tdesc_field(d, "B"), 1);
    CU_ASSERT_EQUAL(rsql_tdesc_field(d, "c"), -1);
    CU_ASSERT_EQUAL(d->children[1]->type, RSQL_TYPE_MAP);
    CU_ASSERT_EQUAL(d->children[1]->children[1]->type, RSQL_TYPE_DATE);
    CU_ASSERT_PTR_EQUAL(rsql_tdesc_decimal(10, 0), rsql_tdesc_scalar(RSQL_TYPE_DECIMAL));
    CU_ASSERT_PTR_NULL(rsql_tdesc_decimal(39, 0));
}

static void test_exact_json_text(void)
{
    const char *t = "ROW<a INT, b ARRAY<DECIMAL(4, 2)>, m MAP<STRING, DATE>, s STRING>";
    const rsql_tdesc_t *d = NULL;
    CU_ASSERT_EQUAL_FATAL(rsql_tdesc_parse(t, strlen(t), &d, NULL, NULL), RSQL_OK);
    struct {
        rsql_composite_t c;
        rsql_value_t items[2];
    } arr = {{d->children[1], 2}, {dec("1.5", 4, 2), {.type = RSQL_TYPE_DECIMAL, .is_null = true}}};
    struct {
        rsql_composite_t c;
        rsql_value_t items[2];
    } map = {{d->children[2], 1},
             {{.type = RSQL_TYPE_VARCHAR, .v.s = {"k\"", 2}}, {.type = RSQL_TYPE_DATE, .v.i = 1}}};
    struct {
        rsql_composite_t c;
        rsql_value_t items[4];
    } row = {{d, 4},
             {{.type = RSQL_TYPE_INT, .v.i = -3},
              {.type = RSQL_TYPE_ARRAY, .v.c = &arr.c},
              {.type = RSQL_TYPE_MAP, .v.c = &map.c},
              {.type = RSQL_TYPE_VARCHAR, .v.s = {"a\nb", 3}}}};
    rsql_value_t v = {.type = RSQL_TYPE_ROW, .v.c = &row.c};
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_format(&v, &b);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b),
                           "{\"a\":-3,\"b\":[1.50,null],\"m\":{\"k\\\"\":\"1970-01-02\"},"
                           "\"s\":\"a\\nb\"}");
    rsql_buf_deinit(&b);
}

static CU_TestInfo exact_tests[] = {
    {"test_exact_decimal_text", test_exact_decimal_text},
    {"test_exact_decimal_arith", test_exact_decimal_arith},
    {"test_exact_decimal_divide", test_exact_decimal_divide},
    {"test_exact_decimal_modulo", test_exact_decimal_modulo},
    {"test_exact_decimal_round", test_exact_decimal_round},
    {"test_exact_decimal_compare_convert", test_exact_decimal_compare_convert},
    {"test_exact_date_text", test_exact_date_text},
    {"test_exact_date_pattern", test_exact_date_pattern},
    {"test_exact_type_text", test_exact_type_text},
    {"test_exact_json_text", test_exact_json_text},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"exact", NULL, NULL, NULL, NULL, exact_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
