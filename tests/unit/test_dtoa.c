/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_dtoa.c through rsql_value_format_double: for millions of doubles
 * (random bit patterns, powers of ten and of two and their neighbours, subnormals, the ends of
 * the ranges, integers up to 2^53 and past it, short decimals m / 10^k, dyadic fractions),
 * the text
 *   - reads back (strtod) to the same bits;
 *   - has exactly the digits of the slow reference: "%.*e" at 1, 2, ... 17 significant digits,
 *     the first that reads back, trailing zeros dropped (so no more digits than the shortest
 *     rounding that round-trips);
 *   - equals, byte for byte, what the printing implementation that came before rsql_dtoa gave
 *     (kept below as old_format_double).
 * RSQL_DTOA_COUNT sets the number of random bit patterns (default 300,000; a tenth of it
 * under a sanitizer); the other sets add about 1.5 million (the random parts of them a fifth
 * under a sanitizer).
 */
#include "config.h"
#include "base/rsql_dtoa.h"
#include "base/rsql_value.h"
#include "tests/lib/cu_sanitized.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

/* ---- the implementation before rsql_dtoa (printf, then strtod to check), as the reference */

static int old_decompose(double d, int prec, char *digits, int *exp10, bool *neg)
{
    char tmp[48];
    int nd = 0;
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
    const char *p = tmp;
    *neg = *p == '-';
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p >= '0' && *p <= '9') {
            digits[nd++] = *p;
        }
    }
    int sign = 1, e = 0;
    if (*p) {
        p++;
        if (*p == '-' || *p == '+') {
            sign = *p++ == '-' ? -1 : 1;
        }
        for (; *p >= '0' && *p <= '9'; p++) {
            e = e * 10 + (*p - '0');
        }
    }
    *exp10 = sign * e;
    return nd;
}

static bool old_reads_back(const char *digits, int nd, int exp10, bool neg, double d)
{
    char tmp[64];
    int k = 0;
    if (neg) {
        tmp[k++] = '-';
    }
    tmp[k++] = digits[0];
    tmp[k++] = '.';
    memcpy(tmp + k, digits + 1, (size_t)(nd - 1));
    k += nd - 1;
    snprintf(tmp + k, sizeof tmp - (size_t)k, "e%d", exp10);
    return strtod(tmp, NULL) == d;
}

static bool old_short_decimal(double d, char *digits, int *nd, int *exp10, bool *neg)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    if (!(d != 0) || !isfinite(d) || fpclassify(d) == FP_SUBNORMAL) {
        return false;
    }
    double a = fabs(d);
    if (a >= 1e15 || a < 1e-4) {
        return false;
    }
    for (int k = 0; k <= 8; k++) {
        double m = a * p10[k];
        if (m >= 1e15) {
            return false;
        }
        if (m != floor(m) || m / p10[k] != a) {
            continue;
        }
        uint64_t u = (uint64_t)m;
        char rev[20];
        int n = 0;
        while (u) {
            rev[n++] = (char)('0' + u % 10);
            u /= 10;
        }
        for (int j = 0; j < n; j++) {
            digits[j] = rev[n - 1 - j];
        }
        *nd = n;
        *exp10 = n - 1 - k;
        *neg = d < 0;
        return true;
    }
    return false;
}

static size_t old_format_double(double d, char *buf)
{
    char digits[24];
    int nd = 0, e = 0, k = 0;
    bool neg = false;
    if (isnan(d)) {
        return (size_t)snprintf(buf, RSQL_VALUE_TEXT_MAX, "NaN");
    }
    if (isinf(d)) {
        return (size_t)snprintf(buf, RSQL_VALUE_TEXT_MAX, "%s", d < 0 ? "-Infinity" : "Infinity");
    }
    int prec = fpclassify(d) == FP_SUBNORMAL ? 1 : 15;
    if (old_short_decimal(d, digits, &nd, &e, &neg)) {
        prec = 18;
    }
    for (; prec <= 17; prec++) {
        nd = old_decompose(d, prec, digits, &e, &neg);
        if (prec == 17 || old_reads_back(digits, nd, e, neg, d)) {
            break;
        }
    }
    while (nd > 1 && digits[nd - 1] == '0') {
        nd--;
    }
    if (neg) {
        buf[k++] = '-';
    }
    if (e >= 16 || e < -4) {
        buf[k++] = digits[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, digits + 1, (size_t)(nd - 1));
            k += nd - 1;
        }
        k += snprintf(buf + k, RSQL_VALUE_TEXT_MAX - (size_t)k, "e%c%02d", e < 0 ? '-' : '+',
                      e < 0 ? -e : e);
        return (size_t)k;
    }
    if (e < 0) {
        buf[k++] = '0';
        buf[k++] = '.';
        for (int z = 0; z < -e - 1; z++) {
            buf[k++] = '0';
        }
        memcpy(buf + k, digits, (size_t)nd);
        k += nd;
    } else {
        for (int j = 0; j <= e; j++) {
            buf[k++] = j < nd ? digits[j] : '0';
        }
        buf[k++] = '.';
        if (nd > e + 1) {
            memcpy(buf + k, digits + e + 1, (size_t)(nd - e - 1));
            k += nd - e - 1;
        } else {
            buf[k++] = '0';
        }
    }
    buf[k] = '\0';
    return (size_t)k;
}

/* ---- the slow reference for the digits */

/* The significant digits of the text t (no sign, dot, leading or trailing zeros, exponent). */
static int sig_digits(const char *t, char *out)
{
    int n = 0;
    for (const char *p = t; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p >= '0' && *p <= '9' && (n > 0 || *p != '0')) {
            out[n++] = *p;
        }
    }
    while (n > 0 && out[n - 1] == '0') {
        n--;
    }
    out[n] = '\0';
    return n;
}

/* "%.*e" at 1, 2, ... 17 digits, the first that reads back: its significant digits. */
static int shortest_ref(double d, char *out)
{
    char t[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*e", prec - 1, d);
        if (strtod(t, NULL) == d || prec == 17) {
            return sig_digits(t, out);
        }
    }
    return 0;
}

/* ---- the checks */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t to_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static long n_checked, n_failed;

/* One double: reads back, the reference's digits, the old text. */
static void check(double d)
{
    char text[RSQL_VALUE_TEXT_MAX], old[RSQL_VALUE_TEXT_MAX];
    size_t n = rsql_value_format_double(d, text);
    old_format_double(d, old);
    n_checked++;
    bool ok = n == strlen(text) && strcmp(text, old) == 0;
    if (ok && isfinite(d)) {
        double back = strtod(text, NULL);
        char got[32], want[32];
        ok = to_bits(back) == to_bits(d) && sig_digits(text, got) == shortest_ref(d, want) &&
             strcmp(got, want) == 0;
        if (d == 0) {
            ok = ok && (strcmp(text, "0.0") == 0 || strcmp(text, "-0.0") == 0);
        }
    }
    if (!ok && n_failed++ < 20) {
        fprintf(stderr, "dtoa: %016llx %.17g: got %s, old %s\n", (unsigned long long)to_bits(d),
                d, text, old);
    }
}

/* d, -d and their neighbours k steps away (staying finite). */
static void check_around(double d, int k)
{
    uint64_t u = to_bits(fabs(d));
    for (int i = -k; i <= k; i++) {
        uint64_t v = u + (uint64_t)(int64_t)i;
        if (i < 0 && u < (uint64_t)-i) {
            continue;
        }
        double x = from_bits(v);
        if (isnan(x)) {
            continue;
        }
        check(x);
        check(-x);
    }
}

static long random_count(void)
{
    const char *s = getenv("RSQL_DTOA_COUNT");
    long n = s ? atol(s) : 300000;
    return RSQL_TEST_SANITIZED ? n / 10 : n;
}

/* n, or a fifth of it under a sanitizer (the structured sets: their edges are all kept) */
static long scaled(long n)
{
    return RSQL_TEST_SANITIZED ? n / 5 : n;
}

static void test_dtoa_fixed(void)
{
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {0.0, "0.0"},
        {1.0, "1.0"},
        {0.1, "0.1"},
        {-2.5, "-2.5"},
        {100.0, "100.0"},
        {1e15, "1000000000000000.0"},
        {1e16, "1e+16"},
        {123456789012345680.0, "1.2345678901234568e+17"},
        {0.0001, "0.0001"},
        {0.00001, "1e-05"},
        {1.0 / 3, "0.3333333333333333"},
        {2.0 / 3, "0.6666666666666666"},
        {5e-324, "5e-324"},
        {1e-323, "1e-323"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {9007199254740993.0, "9007199254740992.0"},
        {1.5e300, "1.5e+300"},
        {0.3, "0.3"},
        {1.98, "1.98"},
        {NAN, "NaN"},
        {INFINITY, "Infinity"},
        {-INFINITY, "-Infinity"},
    };
    char buf[RSQL_VALUE_TEXT_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rsql_value_format_double(cases[i].d, buf);
        CU_ASSERT_STRING_EQUAL(buf, cases[i].text);
    }
    rsql_value_format_double(-0.0, buf);
    CU_ASSERT_STRING_EQUAL(buf, "-0.0");
}

static void test_dtoa_random_bits(void)
{
    n_checked = n_failed = 0;
    long n = random_count();
    for (long i = 0; i < n; i++) {
        check(from_bits(rng()));
    }
    /* random significands at every exponent */
    for (int e = 0; e < 2047; e++) {
        for (int j = 0; j < 64; j++) {
            check(from_bits(((uint64_t)e << 52) | (rng() >> 12)));
        }
    }
    printf("\n    %ld doubles, %ld failed ", n_checked, n_failed);
    CU_ASSERT_EQUAL(n_failed, 0);
}

static void test_dtoa_powers(void)
{
    n_checked = n_failed = 0;
    char t[32];
    for (int e = -325; e <= 309; e++) {
        snprintf(t, sizeof t, "1e%d", e);
        check_around(strtod(t, NULL), 8);
    }
    for (int e = -1074; e <= 1023; e++) {
        check_around(ldexp(1.0, e), 8);
        check_around(ldexp(3.0, e - 1), 2);
    }
    /* the ends and the subnormal-normal border */
    check_around(DBL_MIN, 64);
    check_around(DBL_MAX, 64);
    check_around(DBL_TRUE_MIN, 64);
    check_around(9007199254740992.0, 64);
    check_around(1e15, 64);
    check_around(1e16, 64);
    check_around(1e-4, 64);
    check_around(1e-5, 64);
    check(0.0);
    check(-0.0);
    check(NAN);
    check(INFINITY);
    check(-INFINITY);
    printf("\n    %ld doubles, %ld failed ", n_checked, n_failed);
    CU_ASSERT_EQUAL(n_failed, 0);
}

static void test_dtoa_subnormals(void)
{
    n_checked = n_failed = 0;
    for (uint64_t u = 1; u <= 20000; u++) {
        check(from_bits(u));
    }
    for (long i = 0; i < scaled(200000); i++) {
        uint64_t u = rng() & ((UINT64_C(1) << 52) - 1);
        check(from_bits(u >> (rng() % 52)));
    }
    printf("\n    %ld doubles, %ld failed ", n_checked, n_failed);
    CU_ASSERT_EQUAL(n_failed, 0);
}

static void test_dtoa_integers_decimals(void)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
    n_checked = n_failed = 0;
    for (int i = 0; i <= 100000; i++) {
        check((double)i);
    }
    /* integers of every bit length up to 2^53, and past it (even, then coarser) */
    for (long i = 0; i < scaled(300000); i++) {
        int bits = 1 + (int)(rng() % 64);
        uint64_t v = rng() >> (64 - bits);
        check((double)v);
        check(-(double)v);
    }
    /* short decimals m / 10^k (the values data mostly holds), as strtod reads them */
    for (long i = 0; i < scaled(300000); i++) {
        uint64_t m = rng() % (UINT64_C(1) << (rng() % 50 + 1));
        int k = (int)(rng() % 11);
        check((double)m / p10[k]);
        char t[48];
        snprintf(t, sizeof t, "%llue-%d", (unsigned long long)m, (int)(rng() % 330));
        check(strtod(t, NULL));
    }
    /* dyadic fractions m x 2^-j: exact decimals that end in 5 (ties) */
    for (long i = 0; i < scaled(300000); i++) {
        uint64_t m = rng() >> (11 + rng() % 53);
        check(ldexp((double)m, -(int)(rng() % 80)));
    }
    printf("\n    %ld doubles, %ld failed ", n_checked, n_failed);
    CU_ASSERT_EQUAL(n_failed, 0);
}

/* How often rsql_dtoa_shortest leaves a power of two to the printing path (it must be rare). */
static void test_dtoa_fallback(void)
{
    int left = 0;
    uint64_t m;
    int e;
    for (int x = -1022; x <= 1023; x++) {
        left += !rsql_dtoa_shortest(ldexp(1.0, x), &m, &e);
    }
    for (long i = 0; i < scaled(100000); i++) {
        double d = from_bits(rng() & ~(UINT64_C(1) << 63));
        if (isfinite(d) && d != 0 && to_bits(d) << 12 != 0) {
            CU_ASSERT_TRUE(rsql_dtoa_shortest(d, &m, &e));
        }
    }
    printf("\n    %d of 2,046 powers of two printed ", left);
    CU_ASSERT_TRUE(left < 100);
}

static CU_TestInfo dtoa_tests[] = {
    {"test_dtoa_fixed", test_dtoa_fixed},
    {"test_dtoa_random_bits", test_dtoa_random_bits},
    {"test_dtoa_powers", test_dtoa_powers},
    {"test_dtoa_subnormals", test_dtoa_subnormals},
    {"test_dtoa_integers_decimals", test_dtoa_integers_decimals},
    {"test_dtoa_fallback", test_dtoa_fallback},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"dtoa", NULL, NULL, NULL, NULL, dtoa_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
