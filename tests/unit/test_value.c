/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_value.c, the one module of value text forms, and
 * of the agreement it exists for: the module alone (booleans, integer
 * extremes per type, DOUBLE round trips of -0.0, 1e308, subnormals and the
 * NaN/Infinity words, TIMESTAMP forms and 64-bit extremes, base64 in both
 * alphabets, the exact rejection reasons), then the same texts through the
 * real consumers: the json and csv decoders and CAST (planned against an
 * in-memory catalog and evaluated) accept exactly the same TIMESTAMP texts
 * with the same value, and CAST(... AS VARCHAR), the json and csv encoders
 * and the print sink print exactly the same canonical text.
 */
#include "config.h"
#include "base/rsql_value.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "catalog/rsql_catalog.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"
#include "planner/rsql_plan.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_catalog.h"

/* ---- helpers */

/* rsql_value_parse must fail for text with exactly the reason msg. */
static void expect_reject(rsql_type_t t, const char *text, const char *msg)
{
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t v;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_value_parse(t, text, strlen(text), a, &v, &err), RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_DECODE);
    if (strcmp(err.msg, msg) != 0) {
        fprintf(stderr, "\n  %s '%s': want '%s', got '%s'\n", rsql_type_name(t), text, msg,
                err.msg);
    }
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    /* the same outcome without an error to fill (the hot paths) */
    CU_ASSERT_EQUAL(rsql_value_parse(t, text, strlen(text), a, &v, NULL), RSQL_ERR_DECODE);
    rsql_arena_destroy(a);
}

static const char *ts_text(int64_t ms)
{
    static char buf[RSQL_VALUE_TEXT_MAX];
    CU_ASSERT_EQUAL(rsql_value_format_timestamp(ms, buf), strlen(buf));
    return buf;
}

static const char *dbl_text(double d)
{
    static char buf[RSQL_VALUE_TEXT_MAX];
    CU_ASSERT_EQUAL(rsql_value_format_double(d, buf), strlen(buf));
    return buf;
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- the module */

static void test_value_bool(void)
{
    static const struct {
        const char *text;
        bool want;
    } ok[] = {{"true", true}, {"TRUE", true}, {" True\t", true}, {"1", true},
              {"false", false}, {"FaLsE", false}, {"0", false}, {"\n0 ", false}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        bool b = !ok[i].want;
        CU_ASSERT_EQUAL(rsql_value_parse_bool(ok[i].text, strlen(ok[i].text), &b, NULL), RSQL_OK);
        CU_ASSERT_EQUAL(b, ok[i].want);
    }
    CU_ASSERT_STRING_EQUAL(rsql_value_bool_text(true), "true");
    CU_ASSERT_STRING_EQUAL(rsql_value_bool_text(false), "false");
    expect_reject(RSQL_TYPE_BOOLEAN, "yes", "not a boolean");
    expect_reject(RSQL_TYPE_BOOLEAN, "t", "not a boolean");
    expect_reject(RSQL_TYPE_BOOLEAN, "2", "not a boolean");
    expect_reject(RSQL_TYPE_BOOLEAN, "", "not a boolean");
    expect_reject(RSQL_TYPE_BOOLEAN, "truex", "not a boolean");
}

static void test_value_integers(void)
{
    static const struct {
        rsql_type_t t;
        const char *text;
        int64_t want;
    } ok[] = {
        {RSQL_TYPE_INT, "-2147483648", INT32_MIN},
        {RSQL_TYPE_INT, "2147483647", INT32_MAX},
        {RSQL_TYPE_INT, " +42 ", 42},
        {RSQL_TYPE_INT, "-0", 0},
        {RSQL_TYPE_INT, "007", 7},
        {RSQL_TYPE_BIGINT, "-9223372036854775808", INT64_MIN},
        {RSQL_TYPE_BIGINT, "9223372036854775807", INT64_MAX},
        {RSQL_TYPE_BIGINT, "00000000000000000000000001", 1},
        {RSQL_TYPE_BIGINT, "9007199254740993", INT64_C(9007199254740993)}, /* above 2^53 */
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t v = 0;
        CU_ASSERT_EQUAL(rsql_value_parse_int(ok[i].t, ok[i].text, strlen(ok[i].text), &v, NULL),
                        RSQL_OK);
        CU_ASSERT_EQUAL(v, ok[i].want);
    }
    expect_reject(RSQL_TYPE_INT, "2147483648", "out of range for INT");
    expect_reject(RSQL_TYPE_INT, "-2147483649", "out of range for INT");
    expect_reject(RSQL_TYPE_BIGINT, "9223372036854775808", "out of range for BIGINT");
    expect_reject(RSQL_TYPE_BIGINT, "-9223372036854775809", "out of range for BIGINT");
    expect_reject(RSQL_TYPE_BIGINT, "99999999999999999999999999", "out of range for BIGINT");
    expect_reject(RSQL_TYPE_BIGINT, "1.0", "not an integer");
    expect_reject(RSQL_TYPE_BIGINT, "1e3", "not an integer");
    expect_reject(RSQL_TYPE_BIGINT, "0x10", "not an integer");
    expect_reject(RSQL_TYPE_BIGINT, "", "not an integer");
    expect_reject(RSQL_TYPE_BIGINT, "-", "not an integer");
    expect_reject(RSQL_TYPE_BIGINT, "1 2", "not an integer");
    expect_reject(RSQL_TYPE_INT, "99999999999999999999999x", "not an integer");

    /* the extremes print and read back */
    int64_t ext[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        char buf[RSQL_VALUE_TEXT_MAX];
        int64_t back = 0;
        size_t n = rsql_value_format_int(ext[i], buf);
        CU_ASSERT_EQUAL(rsql_value_parse_int(RSQL_TYPE_BIGINT, buf, n, &back, NULL), RSQL_OK);
        CU_ASSERT_EQUAL(back, ext[i]);
    }
    char buf[RSQL_VALUE_TEXT_MAX];
    rsql_value_format_int(INT64_MIN, buf);
    CU_ASSERT_STRING_EQUAL(buf, "-9223372036854775808");
}

static void test_value_double(void)
{
    static const struct {
        double d;
        const char *text;
    } forms[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {1.0, "1.0"},
        {100.0, "100.0"},
        {-2.5, "-2.5"},
        {0.1, "0.1"},
        {1.0 / 3, "0.3333333333333333"},
        {1234.5, "1234.5"},
        {1e15, "1000000000000000.0"},
        {1e16, "1e+16"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {0.0001, "0.0001"},
        {0.00001, "1e-05"},
        {2.5e30, "2.5e+30"},
        {1e308, "1e+308"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {5e-324, "5e-324"}, /* the smallest subnormal */
        {-1.5e-320, "-1.5e-320"},
        {INFINITY, "Infinity"},
        {-INFINITY, "-Infinity"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const char *s = dbl_text(forms[i].d);
        double back = 42;
        if (strcmp(s, forms[i].text) != 0) {
            fprintf(stderr, "\n  %.17g: want %s, got %s\n", forms[i].d, forms[i].text, s);
        }
        CU_ASSERT_STRING_EQUAL(s, forms[i].text);
        CU_ASSERT_EQUAL(rsql_value_parse_double(s, strlen(s), &back, NULL), RSQL_OK);
        CU_ASSERT_TRUE(same_bits(back, forms[i].d)); /* -0.0 keeps its sign */
    }
    /* NaN: one text, reads back as a NaN */
    double back = 0;
    CU_ASSERT_STRING_EQUAL(dbl_text(NAN), "NaN");
    CU_ASSERT_STRING_EQUAL(dbl_text(-NAN), "NaN");
    CU_ASSERT_EQUAL(rsql_value_parse_double("NaN", 3, &back, NULL), RSQL_OK);
    CU_ASSERT_TRUE(isnan(back));

    /* pseudo-random bit patterns (normal and subnormal) read back bit for bit */
    uint64_t x = UINT64_C(88172645463325252);
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t bits = i % 4 == 0 ? x & UINT64_C(0x800FFFFFFFFFFFFF) : x; /* subnormal */
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isnan(d)) {
            continue;
        }
        const char *s = dbl_text(d);
        double r = 0;
        CU_ASSERT_EQUAL(rsql_value_parse_double(s, strlen(s), &r, NULL), RSQL_OK);
        if (!same_bits(r, d)) {
            fprintf(stderr, "\n  %016llx: %s reads back as %.17g\n", (unsigned long long)bits, s,
                    r);
            CU_FAIL("double round trip");
            break;
        }
        CU_ASSERT_TRUE(strpbrk(s, ".eIN") != NULL); /* always looks like a DOUBLE */
    }

    /* accepted spellings */
    static const struct {
        const char *text;
        double want;
    } in[] = {{" 1.5 ", 1.5}, {"+1.5E-3", 0.0015}, {"1.", 1.0}, {"-.5", -0.5},
              {"1e3", 1000.0}, {"0e-400", 0.0}, {"4.9e-324", 5e-324}, {"inf", INFINITY},
              {"-Infinity", -INFINITY}, {"+INFINITY", INFINITY}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        double d = 42;
        CU_ASSERT_EQUAL(rsql_value_parse_double(in[i].text, strlen(in[i].text), &d, NULL),
                        RSQL_OK);
        CU_ASSERT_TRUE(same_bits(d, in[i].want));
    }
    /* short decimals (the no-strtod fast path): bit for bit what strtod gives */
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char t[24];
        int nd = 1 + (int)(x % 16), dot = (int)((x >> 8) % (uint64_t)(nd + 1)), k = 0;
        t[k++] = (x >> 16) & 1 ? '-' : '+';
        for (int j = 0; j < nd; j++) {
            t[k++] = j == dot ? '.' : (char)('0' + (x >> (20 + 2 * j)) % 10);
        }
        t[k] = '\0';
        if (nd == 1 && dot == 0) {
            continue; /* "+." is not a number */
        }
        double d = 42, want = strtod(t, NULL);
        CU_ASSERT_EQUAL(rsql_value_parse_double(t, (size_t)k, &d, NULL), RSQL_OK);
        if (!same_bits(d, want)) {
            fprintf(stderr, "\n  %s reads as %.17g, strtod %.17g\n", t, d, want);
            CU_FAIL("short decimal");
            break;
        }
    }
    CU_ASSERT_EQUAL(rsql_value_parse_double(" nan ", 5, &back, NULL), RSQL_OK);
    CU_ASSERT_TRUE(isnan(back));
    /* the words alone (json strings): no blanks, no numbers */
    CU_ASSERT_TRUE(rsql_value_parse_double_word("-Infinity", 9, &back) && isinf(back) && back < 0);
    CU_ASSERT_FALSE(rsql_value_parse_double_word("1.5", 3, &back));
    CU_ASSERT_FALSE(rsql_value_parse_double_word(" NaN", 4, &back));
    /* a text longer than any stack buffer: 1.000...0005 */
    char longtext[400];
    memset(longtext, '0', sizeof longtext);
    memcpy(longtext, "1.", 2);
    longtext[sizeof longtext - 2] = '5';
    longtext[sizeof longtext - 1] = '\0';
    CU_ASSERT_EQUAL(rsql_value_parse_double(longtext, strlen(longtext), &back, NULL), RSQL_OK);
    CU_ASSERT_TRUE(same_bits(back, 1.0));

    expect_reject(RSQL_TYPE_DOUBLE, "1e400", "out of range for DOUBLE");
    expect_reject(RSQL_TYPE_DOUBLE, "-1e309", "out of range for DOUBLE");
    expect_reject(RSQL_TYPE_DOUBLE, "1e-400", "out of range for DOUBLE"); /* would be 0 */
    expect_reject(RSQL_TYPE_DOUBLE, "0x10", "not a number");
    expect_reject(RSQL_TYPE_DOUBLE, "1,5", "not a number");
    expect_reject(RSQL_TYPE_DOUBLE, "", "not a number");
    expect_reject(RSQL_TYPE_DOUBLE, ".", "not a number");
    expect_reject(RSQL_TYPE_DOUBLE, "1e", "not a number");
    expect_reject(RSQL_TYPE_DOUBLE, "nan(1)", "not a number");
    expect_reject(RSQL_TYPE_DOUBLE, "abc", "not a number");
}

/* TIMESTAMP texts every consumer must accept, with their value (ms since the epoch, UTC). */
static const struct {
    const char *text;
    int64_t ms;
} ts_ok[] = {
    {"2024-01-02 03:04:05.678", INT64_C(1704164645678)},
    {"2024-01-02T03:04:05.678Z", INT64_C(1704164645678)},
    {"2024-01-02t03:04:05.678z", INT64_C(1704164645678)},
    {"2024-01-02T04:04:05.678+01:00", INT64_C(1704164645678)},
    {"2024-01-02 00:34:05.678-0230", INT64_C(1704164645678)},
    {"2024-01-02T05:04:05.678+02", INT64_C(1704164645678)},
    {"2024-01-02 03:04:05,678", INT64_C(1704164645678)},
    {"2024-01-02 03:04:05.678999999", INT64_C(1704164645678)}, /* cut, not rounded */
    {"2024-01-02 03:04:05.6", INT64_C(1704164645600)},
    {"2024-01-02 03:04:05", INT64_C(1704164645000)},
    {"2024-01-02 03:04", INT64_C(1704164640000)},
    {"2024-01-02", INT64_C(1704153600000)},
    {"  2024-01-02 03:04:05.678\t", INT64_C(1704164645678)},
    {"2024-02-29T23:59:59.9999+01:00", INT64_C(1709247599999)},
    {"1969-12-31 23:59:59.999", -1},
    {"1970-01-01", 0},
    {"0000-01-01 00:00:00.000", INT64_C(-62167219200000)},
    {"-0001-12-31 23:59:59.999", INT64_C(-62167219200001)},
    {"9999-12-31 23:59:59.999", INT64_C(253402300799999)},
    {"+10000-01-01 00:00:00.000", INT64_C(253402300800000)},
    {"-292275055-05-16 16:47:04.192", INT64_MIN},
    {"+292278994-08-17 07:12:55.807", INT64_MAX},
    {"1700000000000", INT64_C(1700000000000)}, /* epoch milliseconds */
    {"-1", -1},
};

/* Texts every consumer must reject, with the reason. */
#define NOT_TS "not a timestamp"
#define TS_RANGE "out of range for TIMESTAMP(3)"
static const struct {
    const char *text, *why;
} ts_bad[] = {
    {"2023-02-29", NOT_TS},
    {"2024-13-01", NOT_TS},
    {"2024-04-31", NOT_TS},
    {"2024-1-02", NOT_TS},
    {"24-01-02", NOT_TS},
    {"2024-01-02Z", NOT_TS},
    {"2024-01-02T", NOT_TS},
    {"2024-01-02 25:00", NOT_TS},
    {"2024-01-02 03:60", NOT_TS},
    {"2024-01-02 03:04:60", NOT_TS}, /* no leap seconds */
    {"2024-01-02 03:04:05.", NOT_TS},
    {"2024-01-02 03:04:05.1234567890", NOT_TS},
    {"2024-01-02 03:04:05+01:", NOT_TS},
    {"2024-01-02 03:04:05+1", NOT_TS},
    {"2024-01-02 03:04:05 +01:00", NOT_TS},
    {"2024-01-02 03:04:05 UTC", NOT_TS},
    {"2024-01-02x03:04", NOT_TS},
    {"yesterday", NOT_TS},
    {"", NOT_TS},
    {"1e3", NOT_TS},
    {"+292278994-08-17 07:12:55.808", TS_RANGE},
    {"9223372036854775808", TS_RANGE},
};

/* The printing-free path for short decimals (m / 10^k) gives the text the %.*e path gave
   (these strings are what main's implementation printed), and every such text reads back. */
static void test_value_double_short_decimals(void)
{
    static const struct {
        double d;
        const char *want;
    } cases[] = {
        {0.1, "0.1"}, {1234.5678, "1234.5678"}, {-3.25, "-3.25"}, {100.0, "100.0"},
        {1e14, "100000000000000.0"}, {999999999999999.0, "999999999999999.0"},
        {0.0001, "0.0001"}, {0.00012345, "0.00012345"}, {12345678.12345678, "12345678.12345678"},
        {4.35, "4.35"}, {0.3, "0.3"}, {2.675, "2.675"}, {1e15, "1000000000000000.0"},
        {123456789.00000001, "123456789.00000001"}, {-0.0, "-0.0"}, {0.0, "0.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_ASSERT_STRING_EQUAL(dbl_text(cases[i].d), cases[i].want);
    }
    static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    for (int k = 0; k <= 8; k++) {
        for (int64_t m = -20011; m <= 20011; m += 7) {
            double d = (double)m / p10[k];
            CU_ASSERT_TRUE(same_bits(strtod(dbl_text(d), NULL), d));
        }
    }
}

static void test_value_timestamp(void)
{
    for (size_t i = 0; i < sizeof ts_ok / sizeof ts_ok[0]; i++) {
        int64_t ms = 42;
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_err_t rc =
            rsql_value_parse_timestamp(ts_ok[i].text, strlen(ts_ok[i].text), &ms, &err);
        if (rc != RSQL_OK || ms != ts_ok[i].ms) {
            fprintf(stderr, "\n  '%s': %s %lld\n", ts_ok[i].text, err.msg, (long long)ms);
        }
        CU_ASSERT_EQUAL(rc, RSQL_OK);
        CU_ASSERT_EQUAL(ms, ts_ok[i].ms);
    }
    /* the canonical text, and that it reads back */
    static const struct {
        int64_t ms;
        const char *text;
    } forms[] = {
        {0, "1970-01-01 00:00:00.000"},
        {-1, "1969-12-31 23:59:59.999"},
        {INT64_C(-86400001), "1969-12-30 23:59:59.999"},
        {INT64_C(951782400000), "2000-02-29 00:00:00.000"},
        {INT64_C(1714564800250), "2024-05-01 12:00:00.250"},
        {INT64_C(-62167219200000), "0000-01-01 00:00:00.000"},
        {INT64_C(-62167219200001), "-0001-12-31 23:59:59.999"},
        {INT64_C(253402300800000), "+10000-01-01 00:00:00.000"},
        {INT64_MIN, "-292275055-05-16 16:47:04.192"},
        {INT64_MAX, "+292278994-08-17 07:12:55.807"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        CU_ASSERT_STRING_EQUAL(ts_text(forms[i].ms), forms[i].text);
    }
    /* every 64-bit value prints and reads back (a spread of them) */
    for (int k = 0; k < 63; k++) {
        int64_t vals[] = {(int64_t)1 << k, -((int64_t)1 << k), ((int64_t)1 << k) - 1,
                          -((int64_t)1 << k) + 7, INT64_MAX - k, INT64_MIN + k};
        for (size_t j = 0; j < sizeof vals / sizeof vals[0]; j++) {
            const char *s = ts_text(vals[j]);
            int64_t back = 0;
            CU_ASSERT_EQUAL(rsql_value_parse_timestamp(s, strlen(s), &back, NULL), RSQL_OK);
            if (back != vals[j]) {
                fprintf(stderr, "\n  %lld: %s read back as %lld\n", (long long)vals[j], s,
                        (long long)back);
                CU_FAIL("timestamp round trip");
            }
        }
    }
    for (size_t i = 0; i < sizeof ts_bad / sizeof ts_bad[0]; i++) {
        expect_reject(RSQL_TYPE_TIMESTAMP, ts_bad[i].text, ts_bad[i].why);
    }
}

static void test_value_bytes(void)
{
    rsql_arena_t *a = rsql_arena_new();
    const char *in = "\x00\xff\x10hello";
    const char *want[] = {"", "AA==", "AP8=", "AP8Q", "AP8QaA==", "AP8QaGU="};
    for (size_t n = 0; n < 6; n++) {
        rsql_buf_t b = RSQL_BUF_INIT;
        const uint8_t *p = NULL;
        size_t len = 99;
        rsql_value_format_bytes((const uint8_t *)in, n, &b);
        CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), want[n]);
        CU_ASSERT_EQUAL(rsql_value_parse_bytes(rsql_buf_str(&b), b.len, a, &p, &len, NULL),
                        RSQL_OK);
        CU_ASSERT_EQUAL(len, n);
        CU_ASSERT_EQUAL(memcmp(p, in, n), 0);
        /* padding is optional */
        size_t unpadded = b.len;
        while (unpadded > 0 && b.data[unpadded - 1] == '=') {
            unpadded--;
        }
        CU_ASSERT_EQUAL(rsql_value_parse_bytes(b.data ? b.data : "", unpadded, a, &p, &len, NULL),
                        RSQL_OK);
        CU_ASSERT_EQUAL(len, n);
        CU_ASSERT_EQUAL(memcmp(p, in, n), 0);
        rsql_buf_deinit(&b);
    }
    /* every byte value, and the URL-safe alphabet */
    uint8_t all[256];
    for (int i = 0; i < 256; i++) {
        all[i] = (uint8_t)i;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_format_bytes(all, sizeof all, &b);
    const uint8_t *p = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(rsql_value_parse_bytes(rsql_buf_str(&b), b.len, a, &p, &len, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(len, 256);
    CU_ASSERT_EQUAL(memcmp(p, all, 256), 0);
    for (size_t i = 0; i < b.len; i++) {
        b.data[i] = b.data[i] == '+' ? '-' : b.data[i] == '/' ? '_' : b.data[i];
    }
    CU_ASSERT_EQUAL(rsql_value_parse_bytes(rsql_buf_str(&b), b.len, a, &p, &len, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(len, 256);
    CU_ASSERT_EQUAL(memcmp(p, all, 256), 0);
    rsql_buf_deinit(&b);
    CU_ASSERT_EQUAL(rsql_value_parse_bytes(" aGk= ", 6, a, &p, &len, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(len, 2);
    expect_reject(RSQL_TYPE_BYTES, "A", "not base64");
    expect_reject(RSQL_TYPE_BYTES, "A*==", "not base64");
    expect_reject(RSQL_TYPE_BYTES, "AA===", "not base64");
    expect_reject(RSQL_TYPE_BYTES, "AAA==", "not base64");
    expect_reject(RSQL_TYPE_BYTES, "AA=A", "not base64");
    expect_reject(RSQL_TYPE_BYTES, "aGk=\xc3\xa9", "not base64");
    rsql_arena_destroy(a);
}

static void test_value_any_type(void)
{
    /* rsql_value_format then rsql_value_parse gives the value back, for every type */
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t vals[] = {
        {.type = RSQL_TYPE_BOOLEAN, .v.b = true},
        {.type = RSQL_TYPE_INT, .v.i = INT32_MIN},
        {.type = RSQL_TYPE_BIGINT, .v.i = INT64_MAX},
        {.type = RSQL_TYPE_DOUBLE, .v.d = -0.0},
        {.type = RSQL_TYPE_TIMESTAMP, .v.ts = INT64_MIN},
        {.type = RSQL_TYPE_VARCHAR, .v.s = {" h\xc3\xa9 ", 5}},
        {.type = RSQL_TYPE_BYTES, .v.s = {"\xff\x00\x01", 3}},
    };
    const char *texts[] = {"true", "-2147483648", "9223372036854775807", "-0.0",
                           "-292275055-05-16 16:47:04.192", " h\xc3\xa9 ", "/wAB"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_value_t back;
        rsql_value_format(&vals[i], &b);
        CU_ASSERT_EQUAL(b.len, strlen(texts[i]));
        CU_ASSERT_EQUAL(memcmp(rsql_buf_str(&b), texts[i], b.len), 0);
        CU_ASSERT_EQUAL(rsql_value_parse(vals[i].type, b.data, b.len, a, &back, NULL), RSQL_OK);
        CU_ASSERT_EQUAL(back.type, vals[i].type);
        CU_ASSERT_FALSE(back.is_null);
        if (vals[i].type == RSQL_TYPE_VARCHAR || vals[i].type == RSQL_TYPE_BYTES) {
            CU_ASSERT_EQUAL(back.v.s.len, vals[i].v.s.len);
            CU_ASSERT_EQUAL(memcmp(back.v.s.p, vals[i].v.s.p, back.v.s.len), 0);
        } else {
            CU_ASSERT_EQUAL(memcmp(&back.v, &vals[i].v, sizeof back.v.i), 0);
        }
        rsql_buf_deinit(&b);
    }
    /* NULL prints nothing; RSQL_TYPE_NULL parses as NULL */
    rsql_value_t null = {.type = RSQL_TYPE_INT, .is_null = true};
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_format(&null, &b);
    CU_ASSERT_EQUAL(b.len, 0);
    rsql_buf_deinit(&b);
    CU_ASSERT_EQUAL(rsql_value_parse(RSQL_TYPE_NULL, "x", 1, a, &null, NULL), RSQL_OK);
    CU_ASSERT_TRUE(null.is_null);
    /* UTF-8 (CAST(BYTES AS VARCHAR)) */
    CU_ASSERT_TRUE(rsql_value_utf8_valid("h\xc3\xa9\xf0\x9f\x98\x80", 8));
    CU_ASSERT_FALSE(rsql_value_utf8_valid("\xff\x01", 2));
    CU_ASSERT_FALSE(rsql_value_utf8_valid("\xc0\xaf", 2));     /* overlong */
    CU_ASSERT_FALSE(rsql_value_utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
    CU_ASSERT_FALSE(rsql_value_utf8_valid("\xc3", 1));         /* cut */
    rsql_arena_destroy(a);
}

/* ---- agreement: the json and csv formats, CAST and the print sink */

static rsql_catalog_t *cat;
static rsql_eval_ctx_t ectx;

static int agree_init(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    cat = rsql_catalog_open(":memory:", &err);
    if (!cat) {
        fprintf(stderr, "catalog: %s\n", err.msg);
        return -1;
    }
    rsql_eval_ctx_init(&ectx);
    return cu_catalog_create(cat, "CREATE TABLE t (s VARCHAR) "
                                  "WITH ('connector'='datagen', 'number-of-rows'='1')");
}

static int agree_clean(void)
{
    rsql_eval_ctx_deinit(&ectx);
    rsql_catalog_close(cat);
    return 0;
}

/*
** Plan "SELECT <expr> FROM t" and evaluate it over the row s = text. A
** string result lives in ectx until the next call, or in the plan (*plan,
** which the caller destroys; NULL when planning failed).
*/
static rsql_err_t eval_with(const char *expr, const char *text, rsql_plan_t **plan,
                            rsql_value_t *out, rsql_error_t *err)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT %s FROM t", expr);
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_error_clear(err);
    *plan = NULL;
    rsql_err_t rc = rsql_parse_next(p, &st, err);
    if (rc == RSQL_OK) {
        *plan = rsql_plan_build(cat, st, sql, NULL, err);
        rc = *plan ? RSQL_OK : err->code;
    }
    rsql_parse_destroy(p);
    if (rc == RSQL_OK) {
        rsql_value_t row = {.type = RSQL_TYPE_VARCHAR, .v.s = {text, strlen(text)}};
        rsql_eval_ctx_reset(&ectx);
        rc = rsql_expr_eval((*plan)->outputs[0].expr, &row, &ectx, out, err);
    }
    return rc;
}

/* CAST(s AS type) with s = text: the outcome, the value in *out and the message in *err. */
static rsql_err_t cast_text(const char *text, const char *type, rsql_value_t *out,
                            rsql_error_t *err)
{
    char expr[64];
    rsql_plan_t *plan;
    snprintf(expr, sizeof expr, "CAST(s AS %s)", type);
    rsql_err_t rc = eval_with(expr, text, &plan, out, err);
    rsql_plan_destroy(plan);
    return rc;
}

/* CAST(CAST(s AS type) AS VARCHAR) with s = text, as a static string ("" on failure). */
static const char *cast_print(const char *text, const char *type)
{
    static char buf[256];
    char expr[80];
    rsql_plan_t *plan;
    rsql_value_t v;
    rsql_error_t err;
    snprintf(expr, sizeof expr, "CAST(CAST(s AS %s) AS VARCHAR)", type);
    buf[0] = '\0';
    if (eval_with(expr, text, &plan, &v, &err) == RSQL_OK && !v.is_null &&
        v.v.s.len < sizeof buf) {
        memcpy(buf, v.v.s.p, v.v.s.len);
        buf[v.v.s.len] = '\0';
    } else {
        fprintf(stderr, "\n  %s ('%s'): %s\n", expr, text, err.msg);
    }
    rsql_plan_destroy(plan);
    return buf;
}

/* A decoder and an encoder of a format for the one-column table (v <type>). */
typedef struct codec {
    rsql_optset_t *opts;
    rsql_decoder_t *dec;
    rsql_encoder_t *enc;
    rsql_arena_t *arena;
    rsql_buf_t out;
    rsql_error_t err;
} codec_t;

static const char *const v_name[] = {"v"};

static rsql_optset_t *opts_of(const char *const *kv)
{
    rsql_opt_kv_t kvs[8];
    int n = 0;
    for (int i = 0; kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    rsql_error_t err;
    const rsql_connector_def_t *conn = NULL;
    rsql_error_clear(&err);
    rsql_optset_t *set = rsql_connector_validate(kvs, n, v_name, 1, RSQL_NOPOS, &conn, &err);
    if (!set) {
        fprintf(stderr, "options: %s\n", err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    return set;
}

static void codec_open(codec_t *c, const char *format, const rsql_type_t *type)
{
    const char *kv[] = {"connector", "filesystem", "path", "/nonexistent", "format", format, NULL};
    memset(c, 0, sizeof *c);
    c->opts = opts_of(kv);
    rsql_error_clear(&c->err);
    c->dec = rsql_decoder_new(format, rsql_optset_conf(c->opts, RSQL_CONF_FORMAT), 1, v_name, type,
                              &c->err);
    c->enc = rsql_encoder_new(format, rsql_optset_conf(c->opts, RSQL_CONF_FORMAT), 1, v_name, type,
                              &c->err);
    c->arena = rsql_arena_new();
    rsql_buf_init(&c->out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->dec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->enc);
}

static void codec_close(codec_t *c)
{
    rsql_decoder_destroy(c->dec);
    rsql_encoder_destroy(c->enc);
    rsql_optset_destroy(c->opts);
    rsql_arena_destroy(c->arena);
    rsql_buf_deinit(&c->out);
}

static rsql_err_t decode(codec_t *c, const char *body, rsql_value_t *v)
{
    rsql_error_clear(&c->err);
    return rsql_decode(c->dec, (const uint8_t *)body, strlen(body), c->arena, v, &c->err);
}

static const char *encode(codec_t *c, const rsql_value_t *v)
{
    rsql_buf_reset(&c->out);
    CU_ASSERT_EQUAL(rsql_encode(c->enc, v, &c->out, &c->err), RSQL_OK);
    return rsql_buf_str(&c->out);
}

/* text as a JSON body {"v": "text"} (escaping what TIMESTAMP texts can hold). */
static const char *json_body(const char *text)
{
    static char buf[256];
    size_t k = 0;
    k += (size_t)snprintf(buf, sizeof buf, "{\"v\": \"");
    for (const char *p = text; *p && k < sizeof buf - 8; p++) {
        if (*p == '\t' || *p == '\n') {
            buf[k++] = '\\';
            buf[k++] = *p == '\t' ? 't' : 'n';
        } else {
            buf[k++] = *p;
        }
    }
    snprintf(buf + k, sizeof buf - k, "\"}");
    return buf;
}

/* text as a quoted csv field. */
static const char *csv_body(const char *text)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "\"%s\"", text);
    return buf;
}

/* n one-column rows of type t through the print sink; returns what it wrote (static). */
static const char *print_rows(rsql_type_t t, int n, const rsql_value_t *vals)
{
    static char text[16384];
    const char *kv[] = {"connector", "print", NULL};
    rsql_optset_t *opts = opts_of(kv);
    const rsql_sink_ops_t *ops = rsql_connector_find("print")->sink;
    rsql_sink_row_t rows[64];
    rsql_sink_t *k = NULL;
    rsql_error_t err;
    char path[] = "/tmp/rsql-value-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0 && ops && n <= 64);
    for (int i = 0; i < n; i++) {
        rows[i] = (rsql_sink_row_t){&vals[i], NULL, NULL};
    }
    rsql_sink_ctx_t ctx = {"out",
                           "pipe-1",
                           opts,
                           rsql_optset_conf(opts, RSQL_CONF_CONNECTOR),
                           NULL,
                           1,
                           v_name,
                           &t,
                           NULL,
                           NULL};
    rsql_error_clear(&err);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    CU_ASSERT_EQUAL(ops->open(&ctx, &k, &err), RSQL_OK);
    if (k) {
        CU_ASSERT_EQUAL(ops->write(k, 1, n, rows, &err), RSQL_OK);
        ops->close(k);
    }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ssize_t len = pread(fd, text, sizeof text - 1, 0);
    text[len > 0 ? len : 0] = '\0';
    close(fd);
    unlink(path);
    rsql_optset_destroy(opts);
    return text;
}

static void test_value_agree_timestamp(void)
{
    static const rsql_type_t ts_type = RSQL_TYPE_TIMESTAMP;
    enum { N_OK = sizeof ts_ok / sizeof ts_ok[0] };
    codec_t json, csv;
    rsql_value_t v, printed[N_OK];
    rsql_error_t err;
    rsql_buf_t want_print = RSQL_BUF_INIT;
    codec_open(&json, "json", &ts_type);
    codec_open(&csv, "csv", &ts_type);
    for (size_t i = 0; i < N_OK; i++) {
        const char *text = ts_ok[i].text;
        char canon[RSQL_VALUE_TEXT_MAX], want[96];
        rsql_value_format_timestamp(ts_ok[i].ms, canon);
        /* accepted by all, with the same value */
        CU_ASSERT_EQUAL(decode(&json, json_body(text), &v), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.ts, ts_ok[i].ms);
        CU_ASSERT_EQUAL(decode(&csv, csv_body(text), &v), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.ts, ts_ok[i].ms);
        rsql_err_t rc = cast_text(text, "TIMESTAMP(3)", &v, &err);
        if (rc != RSQL_OK || v.v.ts != ts_ok[i].ms) {
            fprintf(stderr, "\n  CAST('%s' AS TIMESTAMP): %s\n", text, err.msg);
        }
        CU_ASSERT_EQUAL(rc, RSQL_OK);
        CU_ASSERT_EQUAL(v.v.ts, ts_ok[i].ms);
        /* printed the same by CAST, json and csv (and the print sink, below) */
        CU_ASSERT_STRING_EQUAL(cast_print(text, "TIMESTAMP"), canon);
        v = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = ts_ok[i].ms};
        snprintf(want, sizeof want, "{\"v\":\"%s\"}", canon);
        CU_ASSERT_STRING_EQUAL(encode(&json, &v), want);
        CU_ASSERT_STRING_EQUAL(encode(&csv, &v), canon);
        printed[i] = v;
        rsql_buf_printf(&want_print, "+I[%s]\n", canon);
    }
    CU_ASSERT_STRING_EQUAL(print_rows(RSQL_TYPE_TIMESTAMP, N_OK, printed),
                           rsql_buf_str(&want_print));
    rsql_buf_deinit(&want_print);

    /* rejected by all */
    for (size_t i = 0; i < sizeof ts_bad / sizeof ts_bad[0]; i++) {
        const char *text = ts_bad[i].text;
        char want[160];
        CU_ASSERT_EQUAL(decode(&json, json_body(text), &v), RSQL_ERR_DECODE);
        snprintf(want, sizeof want, "field 'v': expected TIMESTAMP(3), got string \"%s\"", text);
        CU_ASSERT_STRING_EQUAL(json.err.msg, want);
        CU_ASSERT_EQUAL(decode(&csv, csv_body(text), &v), RSQL_ERR_DECODE);
        snprintf(want, sizeof want, "field 'v': expected TIMESTAMP(3), got \"%s\" (%s)", text,
                 ts_bad[i].why);
        CU_ASSERT_STRING_EQUAL(csv.err.msg, want);
        CU_ASSERT_EQUAL(cast_text(text, "TIMESTAMP", &v, &err), RSQL_ERR_EVAL);
        snprintf(want, sizeof want, "cannot cast '%s' to TIMESTAMP(3)", text);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
    }
    /* a literal is converted when the statement is planned: the same rules */
    rsql_plan_t *plan;
    CU_ASSERT_EQUAL(eval_with("CAST('2024-01-02T03:04:05.678Z' AS TIMESTAMP)", "", &plan, &v,
                              &err),
                    RSQL_OK);
    CU_ASSERT_EQUAL(v.v.ts, INT64_C(1704164645678));
    rsql_plan_destroy(plan);
    CU_ASSERT_EQUAL(eval_with("CAST('2024-01-02 03:04:60' AS TIMESTAMP)", "", &plan, &v, &err),
                    RSQL_ERR_TYPE);
    CU_ASSERT_STRING_EQUAL(err.msg, "cannot cast '2024-01-02 03:04:60' to TIMESTAMP(3)");
    rsql_plan_destroy(plan);
    /* epoch milliseconds as a JSON number */
    CU_ASSERT_EQUAL(decode(&json, "{\"v\": -1}", &v), RSQL_OK);
    CU_ASSERT_EQUAL(v.v.ts, -1);
    codec_close(&json);
    codec_close(&csv);
}

static void test_value_agree_double(void)
{
    static const rsql_type_t dbl_type = RSQL_TYPE_DOUBLE;
    const double ds[] = {0.1, 100.0, -0.0, 1e308, -1e308, 5e-324, 1e16, 1.0 / 3, DBL_MAX,
                         NAN, INFINITY, -INFINITY};
    enum { N = sizeof ds / sizeof ds[0] };
    codec_t json, csv;
    rsql_value_t v, rows[N];
    rsql_error_t err;
    rsql_buf_t want_print = RSQL_BUF_INIT;
    codec_open(&json, "json", &dbl_type);
    codec_open(&csv, "csv", &dbl_type);
    for (int i = 0; i < N; i++) {
        char canon[RSQL_VALUE_TEXT_MAX], want[96];
        rsql_value_format_double(ds[i], canon);
        rows[i] = (rsql_value_t){.type = RSQL_TYPE_DOUBLE, .v.d = ds[i]};
        /* CAST prints the canonical text and reads it back */
        CU_ASSERT_STRING_EQUAL(cast_print(canon, "DOUBLE"), canon);
        CU_ASSERT_EQUAL(cast_text(canon, "DOUBLE", &v, &err), RSQL_OK);
        CU_ASSERT_TRUE(isnan(ds[i]) ? isnan(v.v.d) : same_bits(v.v.d, ds[i]));
        /* json: a number, or a string for the non-finite ones; reads back */
        snprintf(want, sizeof want, isfinite(ds[i]) ? "{\"v\":%s}" : "{\"v\":\"%s\"}", canon);
        CU_ASSERT_STRING_EQUAL(encode(&json, &rows[i]), want);
        CU_ASSERT_EQUAL(decode(&json, want, &v), RSQL_OK);
        CU_ASSERT_TRUE(isnan(ds[i]) ? isnan(v.v.d) : same_bits(v.v.d, ds[i]));
        /* csv: the text; reads back */
        CU_ASSERT_STRING_EQUAL(encode(&csv, &rows[i]), canon);
        CU_ASSERT_EQUAL(decode(&csv, canon, &v), RSQL_OK);
        CU_ASSERT_TRUE(isnan(ds[i]) ? isnan(v.v.d) : same_bits(v.v.d, ds[i]));
        rsql_buf_printf(&want_print, "+I[%s]\n", canon);
    }
    CU_ASSERT_STRING_EQUAL(print_rows(RSQL_TYPE_DOUBLE, N, rows), rsql_buf_str(&want_print));
    rsql_buf_deinit(&want_print);
    /* beyond the double range: an error everywhere, never Infinity */
    CU_ASSERT_EQUAL(decode(&json, "{\"v\": 1e400}", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(json.err.msg, "field 'v': 1e400 out of range for DOUBLE");
    CU_ASSERT_EQUAL(decode(&csv, "1e400", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(csv.err.msg,
                           "field 'v': expected DOUBLE, got \"1e400\" (out of range for DOUBLE)");
    CU_ASSERT_EQUAL(cast_text("1e400", "DOUBLE", &v, &err), RSQL_ERR_EVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "cannot cast '1e400' to DOUBLE");
    CU_ASSERT_EQUAL(cast_text("0x10", "DOUBLE", &v, &err), RSQL_ERR_EVAL);
    CU_ASSERT_EQUAL(decode(&csv, "0x10", &v), RSQL_ERR_DECODE);
    codec_close(&json);
    codec_close(&csv);
}

static void test_value_agree_integers(void)
{
    static const rsql_type_t big = RSQL_TYPE_BIGINT, i32 = RSQL_TYPE_INT;
    codec_t json, csv, json32;
    rsql_value_t v;
    rsql_error_t err;
    codec_open(&json, "json", &big);
    codec_open(&csv, "csv", &big);
    codec_open(&json32, "json", &i32);
    const char *ext[] = {"-9223372036854775808", "9223372036854775807"};
    for (int i = 0; i < 2; i++) {
        char body[64];
        int64_t want = i ? INT64_MAX : INT64_MIN;
        CU_ASSERT_EQUAL(cast_text(ext[i], "BIGINT", &v, &err), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.i, want);
        CU_ASSERT_STRING_EQUAL(cast_print(ext[i], "BIGINT"), ext[i]);
        snprintf(body, sizeof body, "{\"v\": %s}", ext[i]);
        CU_ASSERT_EQUAL(decode(&json, body, &v), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.i, want);
        snprintf(body, sizeof body, "{\"v\":%s}", ext[i]);
        CU_ASSERT_STRING_EQUAL(encode(&json, &v), body);
        CU_ASSERT_EQUAL(decode(&csv, ext[i], &v), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.i, want);
        CU_ASSERT_STRING_EQUAL(encode(&csv, &v), ext[i]);
    }
    /* one past: an error everywhere, no wrap */
    CU_ASSERT_EQUAL(cast_text("9223372036854775808", "BIGINT", &v, &err), RSQL_ERR_EVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "cannot cast '9223372036854775808' to BIGINT");
    CU_ASSERT_EQUAL(decode(&json, "{\"v\": -9223372036854775809}", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(json.err.msg,
                           "field 'v': -9223372036854775809 out of range for BIGINT");
    CU_ASSERT_EQUAL(decode(&csv, "9223372036854775808", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(csv.err.msg, "field 'v': expected BIGINT, got \"9223372036854775808\" "
                                        "(out of range for BIGINT)");
    CU_ASSERT_EQUAL(cast_text("2147483648", "INT", &v, &err), RSQL_ERR_EVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "cannot cast '2147483648' to INT");
    CU_ASSERT_EQUAL(cast_text(" -2147483648 ", "INT", &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.v.i, INT32_MIN);
    CU_ASSERT_EQUAL(decode(&json32, "{\"v\": 2147483648}", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(json32.err.msg, "field 'v': 2147483648 out of range for INT");
    codec_close(&json);
    codec_close(&csv);
    codec_close(&json32);
}

static void test_value_agree_bool_bytes(void)
{
    static const rsql_type_t bool_type = RSQL_TYPE_BOOLEAN, bytes_type = RSQL_TYPE_BYTES;
    codec_t csv, json, csvb;
    rsql_value_t v, rows[2];
    rsql_error_t err;
    codec_open(&csv, "csv", &bool_type);
    codec_open(&json, "json", &bytes_type);
    codec_open(&csvb, "csv", &bytes_type);
    /* BOOLEAN: the same texts for CAST and csv, printed true/false by all */
    const char *texts[] = {"TRUE", "1", " false ", "0"};
    for (int i = 0; i < 4; i++) {
        bool want = i < 2;
        CU_ASSERT_EQUAL(cast_text(texts[i], "BOOLEAN", &v, &err), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.b, want);
        CU_ASSERT_STRING_EQUAL(cast_print(texts[i], "BOOLEAN"), want ? "true" : "false");
        CU_ASSERT_EQUAL(decode(&csv, texts[i], &v), RSQL_OK);
        CU_ASSERT_EQUAL(v.v.b, want);
        CU_ASSERT_STRING_EQUAL(encode(&csv, &v), want ? "true" : "false");
    }
    CU_ASSERT_EQUAL(cast_text("yes", "BOOLEAN", &v, &err), RSQL_ERR_EVAL);
    CU_ASSERT_EQUAL(decode(&csv, "yes", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(csv.err.msg,
                           "field 'v': expected BOOLEAN, got \"yes\" (not a boolean)");
    rows[0] = (rsql_value_t){.type = RSQL_TYPE_BOOLEAN, .v.b = true};
    rows[1] = (rsql_value_t){.type = RSQL_TYPE_BOOLEAN, .v.b = false};
    CU_ASSERT_STRING_EQUAL(print_rows(RSQL_TYPE_BOOLEAN, 2, rows), "+I[true]\n+I[false]\n");

    /* BYTES: base64 in both alphabets, padded or not, for json and csv alike */
    const char *b64[] = {"/+8=", "_-8", "/+8", "_-8="};
    for (int i = 0; i < 4; i++) {
        char body[64];
        snprintf(body, sizeof body, "{\"v\": \"%s\"}", b64[i]);
        CU_ASSERT_EQUAL(decode(&json, body, &v), RSQL_OK);
        CU_ASSERT_TRUE(v.v.s.len == 2 && memcmp(v.v.s.p, "\xff\xef", 2) == 0);
        CU_ASSERT_STRING_EQUAL(encode(&json, &v), "{\"v\":\"/+8=\"}");
        CU_ASSERT_EQUAL(decode(&csvb, b64[i], &v), RSQL_OK);
        CU_ASSERT_TRUE(v.v.s.len == 2 && memcmp(v.v.s.p, "\xff\xef", 2) == 0);
        CU_ASSERT_STRING_EQUAL(encode(&csvb, &v), "/+8=");
    }
    CU_ASSERT_STRING_EQUAL(print_rows(RSQL_TYPE_BYTES, 1, &v), "+I[/+8=]\n");
    CU_ASSERT_EQUAL(decode(&json, "{\"v\": \"AA===\"}", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(json.err.msg,
                           "field 'v': expected BYTES, got string \"AA===\" (not base64)");
    CU_ASSERT_EQUAL(decode(&csvb, "A", &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(csvb.err.msg, "field 'v': expected BYTES, got \"A\" (not base64)");
    /* CAST between VARCHAR and BYTES keeps the bytes: no base64 there */
    CU_ASSERT_EQUAL(cast_text("aGk=", "BYTES", &v, &err), RSQL_OK);
    CU_ASSERT_TRUE(v.v.s.len == 4 && memcmp(v.v.s.p, "aGk=", 4) == 0);
    codec_close(&csv);
    codec_close(&json);
    codec_close(&csvb);
}

static CU_TestInfo agree_tests[] = {
    {"test_value_agree_timestamp", test_value_agree_timestamp},
    {"test_value_agree_double", test_value_agree_double},
    {"test_value_agree_integers", test_value_agree_integers},
    {"test_value_agree_bool_bytes", test_value_agree_bool_bytes},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo value_tests[] = {
    {"test_value_bool", test_value_bool},
    {"test_value_integers", test_value_integers},
    {"test_value_double", test_value_double},
    {"test_value_double_short_decimals", test_value_double_short_decimals},
    {"test_value_timestamp", test_value_timestamp},
    {"test_value_bytes", test_value_bytes},
    {"test_value_any_type", test_value_any_type},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"value", NULL, NULL, NULL, NULL, value_tests},
    {"value-agreement", agree_init, agree_clean, NULL, NULL, agree_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
