/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The text forms of SQL values (rsql_value.h has the rules): parsing and
 * printing of booleans, range-checked integers, doubles that read back
 * exactly, ISO-8601 timestamps (UTC, milliseconds, proleptic Gregorian
 * calendar by civil-date arithmetic, no time-zone database) and base64
 * bytes: the scalar forms, which call no other part of the module (the exact
 * types are rsql_value_exact.c, any type by its type rsql_value_text.c). Used
 * by the formats, the planner and evaluator, and every sink or result that
 * shows a value; nothing else converts values to or from text.
 */
#include "config.h"
#include "base/rsql_value.h"
#include "base/rsql_dtoa.h"

#include <float.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- helpers */

static rsql_err_t fail(rsql_error_t *err, const char *why)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "%s", why);
}

static rsql_err_t out_of_range(rsql_error_t *err, rsql_type_t t)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "out of range for %s",
                          rsql_type_name(t));
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Drop the blanks around s[0..*n). */
static const char *trim(const char *s, size_t *n)
{
    while (*n > 0 && is_blank(*s)) {
        s++;
        (*n)--;
    }
    while (*n > 0 && is_blank(s[*n - 1])) {
        (*n)--;
    }
    return s;
}

static size_t put(char *buf, const char *s)
{
    size_t n = strlen(s);
    memcpy(buf, s, n + 1);
    return n;
}

/* strtod in the C locale, whatever the process locale is. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static double c_strtod(const char *s)
{
    pthread_once(&c_locale_once, c_locale_init);
    return c_locale ? strtod_l(s, NULL, c_locale) : strtod(s, NULL);
}

/* ---- BOOLEAN */

/*
** Parse BOOLEAN text (see rsql_value.h).
*/
rsql_err_t rsql_value_parse_bool(const char *s, size_t n, bool *out, rsql_error_t *err)
{
    s = trim(s, &n);
    if ((n == 4 && strncasecmp(s, "true", 4) == 0) || (n == 1 && s[0] == '1')) {
        *out = true;
        return RSQL_OK;
    }
    if ((n == 5 && strncasecmp(s, "false", 5) == 0) || (n == 1 && s[0] == '0')) {
        *out = false;
        return RSQL_OK;
    }
    return fail(err, "not a boolean");
}

/*
** The text of a boolean; static, never freed.
*/
const char *rsql_value_bool_text(bool b)
{
    return b ? "true" : "false";
}

/* ---- integers */

typedef enum { INT_OK, INT_SYNTAX, INT_RANGE } int_rc_t;

/* [+-]digits (already trimmed) into *out, within [lo, hi]. */
static int_rc_t int_scan(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
    size_t i = 0;
    bool neg = false, over = false;
    uint64_t mag = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i++] == '-';
    }
    if (i == n) {
        return INT_SYNTAX;
    }
    for (; i < n; i++) {
        if (!is_digit(s[i])) {
            return INT_SYNTAX;
        }
        unsigned dv = (unsigned)(s[i] - '0');
        if (mag > (UINT64_MAX - dv) / 10) {
            over = true; /* keep scanning: a bad character is the worse error */
        } else {
            mag = mag * 10 + dv;
        }
    }
    int64_t v;
    if (over || mag > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
        return INT_RANGE;
    }
    if (neg) {
        v = mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag;
    } else {
        v = (int64_t)mag;
    }
    if (v < lo || v > hi) {
        return INT_RANGE;
    }
    *out = v;
    return INT_OK;
}

/*
** Parse integer text within the range of t (see rsql_value.h).
*/
rsql_err_t rsql_value_parse_int(rsql_type_t t, const char *s, size_t n, int64_t *out,
                                rsql_error_t *err)
{
    bool is32 = t == RSQL_TYPE_INT;
    s = trim(s, &n);
    switch (int_scan(s, n, is32 ? INT32_MIN : INT64_MIN, is32 ? INT32_MAX : INT64_MAX, out)) {
    case INT_OK: return RSQL_OK;
    case INT_SYNTAX: return fail(err, "not an integer");
    case INT_RANGE: break;
    }
    return out_of_range(err, t == RSQL_TYPE_TIMESTAMP ? RSQL_TYPE_TIMESTAMP
                             : is32                   ? RSQL_TYPE_INT
                                                      : RSQL_TYPE_BIGINT);
}

/* "00" "01" ... "99": two digits a division */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* The decimal digits of u at buf (no NUL); returns how many (1 to 20). */
static size_t put_digits(uint64_t u, char *buf)
{
    static const uint64_t pow10[20] = {UINT64_C(1),
                                       UINT64_C(10),
                                       UINT64_C(100),
                                       UINT64_C(1000),
                                       UINT64_C(10000),
                                       UINT64_C(100000),
                                       UINT64_C(1000000),
                                       UINT64_C(10000000),
                                       UINT64_C(100000000),
                                       UINT64_C(1000000000),
                                       UINT64_C(10000000000),
                                       UINT64_C(100000000000),
                                       UINT64_C(1000000000000),
                                       UINT64_C(10000000000000),
                                       UINT64_C(100000000000000),
                                       UINT64_C(1000000000000000),
                                       UINT64_C(10000000000000000),
                                       UINT64_C(100000000000000000),
                                       UINT64_C(1000000000000000000),
                                       UINT64_C(10000000000000000000)};
    /* the count: t = floor(bits * log10(2)) is it or one less (1233 / 4096 ~ log10(2)) */
    unsigned bits = 64u - (unsigned)__builtin_clzll(u | 1u);
    unsigned t = (bits * 1233u) >> 12;
    size_t n = t + 1 - ((u | 1u) < pow10[t]);
    /* from the last digit back, two per division (half the dependent divisions) */
    char *d = buf + n;
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        d -= 2;
        memcpy(d, digit_pairs + 2 * r, 2);
    }
    if (u >= 10) {
        memcpy(d - 2, digit_pairs + 2 * u, 2);
    } else {
        d[-1] = (char)('0' + u);
    }
    return n;
}

/*
** The decimal text of i into buf; returns its length.
*/
size_t rsql_value_format_int(int64_t i, char *buf)
{
    /* by hand, not snprintf: this runs per value when rows are encoded (and per line for a
       file's idents) */
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i; /* INT64_MIN too */
    size_t k = i < 0;
    buf[0] = '-';
    k += put_digits(u, buf + k);
    buf[k] = '\0';
    return k;
}

/* ---- DOUBLE */

/*
** Whether s is a non-finite DOUBLE word (see rsql_value.h).
*/
bool rsql_value_parse_double_word(const char *s, size_t n, double *out)
{
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    if (n == 3 && strncasecmp(s, "nan", 3) == 0) {
        *out = NAN;
        return true;
    }
    if ((n == 3 && strncasecmp(s, "inf", 3) == 0) ||
        (n == 8 && strncasecmp(s, "infinity", 8) == 0)) {
        *out = neg ? -INFINITY : INFINITY;
        return true;
    }
    return false;
}

/*
** The exact fast path for valid DOUBLE text (already checked: [+-]digits[.digits][e[+-]digits])
** with at most 15 digits and no exponent: the digits are an integer m < 10^15 < 2^53 and the
** k <= 15 fraction digits make 10^k, both exact doubles, so m / 10^k is one correctly rounded
** IEEE division, the very double strtod returns (Clinger's fast path; FLT_EVAL_METHOD 0, no
** excess precision). False for anything else, which goes to strtod.
*/
bool rsql_value_double_exact(uint64_t m, int frac, bool neg, double *out)
{
    static const double p10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (m >= UINT64_C(1000000000000000) || frac < 0 || frac > 15) {
        return false;
    }
    double d = (double)m;
    if (frac > 0) {
        d /= p10[frac];
    }
    *out = neg ? -d : d;
    return true;
#else
    (void)m;
    (void)frac;
    (void)neg;
    (void)out;
    (void)p10;
    return false;
#endif
}

static bool fast_double(const char *s, size_t n, double *out)
{
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i++;
    }
    uint64_t m = 0;
    int digits = 0, frac = -1;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            frac = 0;
            continue;
        }
        if (!is_digit(c) || ++digits > 15) {
            return false; /* an exponent, or too many digits */
        }
        m = m * 10 + (uint64_t)(c - '0');
        if (frac >= 0) {
            frac++;
        }
    }
    return rsql_value_double_exact(m, frac < 0 ? 0 : frac, neg, out);
}

/*
** Parse DOUBLE text (see rsql_value.h). A text longer than a stack buffer is
** copied to the heap for strtod (RSQL_ERR_NOMEM when that fails).
*/
rsql_err_t rsql_value_parse_double(const char *s, size_t n, double *out, rsql_error_t *err)
{
    size_t i = 0, mant = 0;
    bool nonzero = false;
    s = trim(s, &n);
    if (rsql_value_parse_double_word(s, n, out)) {
        return RSQL_OK;
    }
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        i++;
    }
    for (; i < n && is_digit(s[i]); i++, mant++) {
        nonzero |= s[i] != '0';
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && is_digit(s[i]); i++, mant++) {
            nonzero |= s[i] != '0';
        }
    }
    if (mant == 0) {
        return fail(err, "not a number");
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        for (e0 = i; i < n && is_digit(s[i]); i++) {
        }
        if (i == e0) {
            return fail(err, "not a number");
        }
    }
    if (i != n) {
        return fail(err, "not a number");
    }
    if (fast_double(s, n, out)) {
        return RSQL_OK;
    }
    char small[128], *text = n < sizeof small ? small : rsql_malloc(n + 1);
    if (!text) {
        return rsql_error_nomem(err);
    }
    memcpy(text, s, n);
    text[n] = '\0';
    double d = c_strtod(text);
    if (text != small) {
        rsql_free(text);
    }
    if (isinf(d) || (nonzero && fpclassify(d) == FP_ZERO)) {
        return out_of_range(err, RSQL_TYPE_DOUBLE);
    }
    *out = d;
    return RSQL_OK;
}

/*
** The significant digits (no dot) of d rounded to prec digits, its decimal
** exponent and sign: d = [-]D.DDD x 10^exp. Any decimal point of the locale.
*/
static int decompose(double d, int prec, char *digits, int *exp10, bool *neg)
{
    char tmp[48];
    int nd = 0;
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
    const char *p = tmp;
    *neg = *p == '-';
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (is_digit(*p)) {
            digits[nd++] = *p;
        }
    }
    int sign = 1, e = 0;
    if (*p) {
        p++;
        if (*p == '-' || *p == '+') {
            sign = *p++ == '-' ? -1 : 1;
        }
        for (; is_digit(*p); p++) {
            e = e * 10 + (*p - '0');
        }
    }
    *exp10 = sign * e;
    return nd;
}

/* Whether [-]D.DDD x 10^exp reads back as d. */
static bool reads_back(const char *digits, int nd, int exp10, bool neg, double d)
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
    return c_strtod(tmp) == d;
}

/*
** d laid out from its significant digits (nd, no trailing zero but a lone "0"; digits holds
** at least 48 bytes, '0' past nd) and the decimal exponent of the first: fixed notation for
** exponents -4 to 15 ("12.5", "0.001", "3.0"), scientific otherwise ("1e+16", "1.5e-05", at
** least two exponent digits), as Python's repr. The copies are of fixed size (nd <= 17, and
** buf has RSQL_VALUE_TEXT_MAX = 48 bytes: the longest text is 25), only k counts the bytes.
*/
static size_t layout(const char *digits, int nd, int e, bool neg, char *buf)
{
    int k = 0;
    if (neg) {
        buf[k++] = '-';
    }
    if (e >= 16 || e < -4) {
        buf[k++] = digits[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, digits + 1, 16);
            k += nd - 1;
        }
        int a = e < 0 ? -e : e;
        buf[k++] = 'e';
        buf[k++] = e < 0 ? '-' : '+';
        if (a >= 100) {
            buf[k++] = (char)('0' + a / 100);
        }
        buf[k++] = (char)('0' + a / 10 % 10);
        buf[k++] = (char)('0' + a % 10);
    } else if (e < 0) {
        memcpy(buf + k, "0.0000", 6);
        k += 1 - e; /* "0." and -e - 1 zeros */
        memcpy(buf + k, digits, 24);
        k += nd;
    } else if (nd > e + 1) {
        memcpy(buf + k, digits, 16);
        k += e + 1;
        buf[k++] = '.';
        memcpy(buf + k, digits + e + 1, 16);
        k += nd - e - 1;
    } else {
        memcpy(buf + k, digits, 16); /* '0' past nd */
        k += e + 1;
        buf[k++] = '.';
        buf[k++] = '0';
    }
    buf[k] = '\0';
    return (size_t)k;
}

/*
** The shortest text that reads back to d (see rsql_value.h): the digits of the first length
** (15, 16, 17 significant digits for a normal double, from 1 for a subnormal) at which d
** rounded to that length reads back, trailing zeros dropped (a normal double has more than 15
** digits of precision, so when 15 digits read back their rounding is the shortest text that
** does), laid out by layout(). rsql_dtoa_shortest computes those digits in integer arithmetic;
** for the few powers of two it leaves (see rsql_dtoa.h), and as its definition, they come
** from printing with "%.*e" and reading back.
*/
size_t rsql_value_format_double(double d, char *buf)
{
    char digits[48];
    int nd = 1, e = 0;
    bool neg = signbit(d) != 0;
    uint64_t m;
    if (isnan(d)) {
        return put(buf, "NaN");
    }
    if (isinf(d)) {
        return put(buf, d < 0 ? "-Infinity" : "Infinity");
    }
    memset(digits, '0', sizeof digits);
    if (d == 0) {
        return layout(digits, 1, 0, neg, buf);
    }
    if (rsql_dtoa_shortest(d, &m, &e)) {
        nd = (int)put_digits(m, digits);
        return layout(digits, nd, e + nd - 1, neg, buf);
    }
    /* a subnormal has fewer than 15 significant digits of precision: try them all */
    for (int prec = fpclassify(d) == FP_SUBNORMAL ? 1 : 15; prec <= 17; prec++) {
        nd = decompose(d, prec, digits, &e, &neg);
        if (prec == 17 || reads_back(digits, nd, e, neg, d)) {
            break;
        }
    }
    while (nd > 1 && digits[nd - 1] == '0') {
        nd--;
    }
    return layout(digits, nd, e, neg, buf);
}

/* ---- TIMESTAMP (civil dates: H. Hinnant's algorithms, proleptic Gregorian) */

static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int64_t y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* Read exactly k digits at s[*i]; false if they are not there. */
static bool digits_at(const char *s, size_t n, size_t *i, int k, int *out)
{
    int v = 0;
    for (int j = 0; j < k; j++) {
        if (*i >= n || !is_digit(s[*i])) {
            return false;
        }
        v = v * 10 + (s[*i] - '0');
        (*i)++;
    }
    *out = v;
    return true;
}

/* The year: 4 digits, or a sign and 4 to 9 digits (ISO 8601 expanded years). */
static bool year_at(const char *s, size_t n, size_t *i, int64_t *y)
{
    int sign = 1, k = 0;
    int64_t v = 0;
    bool expanded = *i < n && (s[*i] == '+' || s[*i] == '-');
    if (expanded) {
        sign = s[(*i)++] == '-' ? -1 : 1;
    }
    for (; *i < n && is_digit(s[*i]) && k < 9; (*i)++, k++) {
        v = v * 10 + (s[*i] - '0');
    }
    *y = sign * v;
    return expanded ? k >= 4 : k == 4;
}

/* The time after the date: HH:MM[:SS[.f]] then an optional zone; *secs and *frac_ms. */
static bool time_at(const char *s, size_t n, size_t *i, int64_t *secs, int *frac_ms)
{
    int h, mi, sec = 0, frac = 0;
    if (!digits_at(s, n, i, 2, &h) || *i >= n || s[(*i)++] != ':' ||
        !digits_at(s, n, i, 2, &mi)) {
        return false;
    }
    if (*i < n && s[*i] == ':') {
        (*i)++;
        if (!digits_at(s, n, i, 2, &sec)) {
            return false;
        }
        if (*i < n && (s[*i] == '.' || s[*i] == ',')) {
            int k = 0;
            for ((*i)++; *i < n && is_digit(s[*i]); (*i)++, k++) {
                if (k < 3) {
                    frac = frac * 10 + (s[*i] - '0');
                }
            }
            if (k == 0 || k > 9) {
                return false;
            }
            for (; k < 3; k++) {
                frac *= 10;
            }
        }
    }
    if (h > 23 || mi > 59 || sec > 59) {
        return false;
    }
    int off_min = 0;
    if (*i < n && (s[*i] == 'Z' || s[*i] == 'z')) {
        (*i)++;
    } else if (*i < n && (s[*i] == '+' || s[*i] == '-')) {
        int sign = s[(*i)++] == '-' ? -1 : 1, oh, om = 0;
        if (!digits_at(s, n, i, 2, &oh)) {
            return false;
        }
        if (*i < n && s[*i] == ':') {
            (*i)++;
            if (!digits_at(s, n, i, 2, &om)) {
                return false;
            }
        } else if (*i < n && !digits_at(s, n, i, 2, &om)) {
            return false;
        }
        if (oh > 23 || om > 59) {
            return false;
        }
        off_min = sign * (oh * 60 + om);
    }
    *secs = (int64_t)h * 3600 + mi * 60 + sec - (int64_t)off_min * 60;
    *frac_ms = frac;
    return true;
}

/*
** The common forms "YYYY-MM-DD HH:MM:SS" and "YYYY-MM-DD HH:MM:SS.mmm" ('T' for the space, ','
** for the dot) in one pass over fixed places: true with *ms when s is one of them and valid,
** false to leave it to the general parser (which says what is wrong, if anything).
*/
static bool timestamp_fixed(const char *s, size_t n, int64_t *ms)
{
    if ((n != 19 && n != 23) || s[4] != '-' || s[7] != '-' ||
        (s[10] != ' ' && s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' ||
        (n == 23 && s[19] != '.' && s[19] != ',')) {
        return false;
    }
    static const unsigned char at[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22};
    int v[sizeof at];
    size_t k = n == 23 ? sizeof at : sizeof at - 3;
    for (size_t j = 0; j < k; j++) {
        if (!is_digit(s[at[j]])) {
            return false;
        }
        v[j] = s[at[j]] - '0';
    }
    int64_t y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3];
    int mo = v[4] * 10 + v[5], d = v[6] * 10 + v[7], h = v[8] * 10 + v[9],
        mi = v[10] * 10 + v[11], sec = v[12] * 10 + v[13];
    int frac = n == 23 ? v[14] * 100 + v[15] * 10 + v[16] : 0;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
        sec > 59) {
        return false;
    }
    *ms = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) * 1000 + frac;
    return true;
}

/*
** Parse TIMESTAMP text (see rsql_value.h). The result must fit in 64-bit
** milliseconds (years up to about 292 million either side of 1970).
*/
rsql_err_t rsql_value_parse_timestamp(const char *s, size_t n, int64_t *ms, rsql_error_t *err)
{
    size_t i = 0;
    int64_t y, secs = 0;
    int mo, d, frac = 0;
    s = trim(s, &n);
    if (timestamp_fixed(s, n, ms)) {
        return RSQL_OK;
    }
    switch (int_scan(s, n, INT64_MIN, INT64_MAX, ms)) { /* epoch milliseconds */
    case INT_OK: return RSQL_OK;
    case INT_RANGE: return out_of_range(err, RSQL_TYPE_TIMESTAMP);
    case INT_SYNTAX: break;
    }
    if (!year_at(s, n, &i, &y) || i >= n || s[i++] != '-' || !digits_at(s, n, &i, 2, &mo) ||
        i >= n || s[i++] != '-' || !digits_at(s, n, &i, 2, &d) || mo < 1 || mo > 12 || d < 1 ||
        d > days_in_month(y, mo)) {
        return fail(err, "not a timestamp");
    }
    if (i < n) {
        if (s[i] != 'T' && s[i] != 't' && s[i] != ' ') {
            return fail(err, "not a timestamp");
        }
        i++;
        if (!time_at(s, n, &i, &secs, &frac)) {
            return fail(err, "not a timestamp");
        }
    }
    if (i != n) {
        return fail(err, "not a timestamp");
    }
    int64_t total = days_from_civil(y, mo, d) * 86400 + secs, v;
    /* total * 1000 + frac, computed so that INT64_MIN itself does not overflow */
    bool over = total < 0 && frac > 0
                    ? __builtin_mul_overflow(total + 1, 1000, &v) ||
                          __builtin_sub_overflow(v, 1000 - frac, &v)
                    : __builtin_mul_overflow(total, 1000, &v) ||
                          __builtin_add_overflow(v, frac, &v);
    if (over) {
        return out_of_range(err, RSQL_TYPE_TIMESTAMP);
    }
    *ms = v;
    return RSQL_OK;
}

/*
** The canonical text of timestamp ms into buf; returns its length. Any
** 64-bit value formats (years past 9999 get a '+', before 0000 a '-').
*/
size_t rsql_value_format_timestamp(int64_t ms, char *buf)
{
    int64_t secs = ms / 1000, msec = ms % 1000, y;
    int m, d, n;
    if (msec < 0) {
        msec += 1000;
        secs--;
    }
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) {
        sod += 86400;
        days--;
    }
    civil_from_days(days, &y, &m, &d);
    const char *sign = y < 0 ? "-" : y > 9999 ? "+" : "";
    n = snprintf(buf, RSQL_VALUE_TEXT_MAX,
                 "%s%04" PRId64 "-%02d-%02d %02d:%02d:%02d.%03d", sign, y < 0 ? -y : y, m, d,
                 (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60), (int)msec);
    return n > 0 ? (size_t)n : 0;
}

/* ---- BYTES (base64, RFC 4648) */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*
** Append the base64 text of p (n bytes) to out, with '=' padding.
*/
void rsql_value_format_bytes(const uint8_t *p, size_t n, rsql_buf_t *out)
{
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        q[0] = b64_chars[v >> 18];
        q[1] = b64_chars[(v >> 12) & 63];
        q[2] = b64_chars[(v >> 6) & 63];
        q[3] = b64_chars[v & 63];
        rsql_buf_append(out, q, 4);
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        q[0] = b64_chars[v >> 18];
        q[1] = b64_chars[(v >> 12) & 63];
        q[2] = i + 1 < n ? b64_chars[(v >> 6) & 63] : '=';
        q[3] = '=';
        rsql_buf_append(out, q, 4);
    }
}

static int b64_val(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+' || c == '-') {
        return 62;
    }
    if (c == '/' || c == '_') {
        return 63;
    }
    return -1;
}

/*
** Decode base64 text (see rsql_value.h): either alphabet, padding optional
** but, when present, exactly what completes the last group of 4.
*/
rsql_err_t rsql_value_parse_bytes(const char *s, size_t n, rsql_arena_t *arena,
                                  const uint8_t **out, size_t *out_len, rsql_error_t *err)
{
    size_t pad = 0;
    s = trim(s, &n);
    while (n > 0 && s[n - 1] == '=') {
        n--;
        pad++;
    }
    if (n % 4 == 1 || pad > 2 || (pad > 0 && (n + pad) % 4 != 0)) {
        return fail(err, "not base64");
    }
    uint8_t *o = rsql_arena_alloc(arena, n / 4 * 3 + 3);
    size_t k = 0;
    uint32_t acc = 0;
    int bits = 0;
    if (!o) {
        return rsql_error_nomem(err);
    }
    for (size_t i = 0; i < n; i++) {
        int v = b64_val(s[i]);
        if (v < 0) {
            return fail(err, "not base64");
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[k++] = (uint8_t)(acc >> bits);
        }
    }
    *out = o;
    *out_len = k;
    return RSQL_OK;
}

/* ---- UTF-8 */

/*
** Strict UTF-8 check (see rsql_value.h).
*/
bool rsql_value_utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        int len = c < 0x80 ? 1 : (c >= 0xc2 && c <= 0xdf) ? 2 : (c >> 4) == 14 ? 3
                           : (c >= 0xf0 && c <= 0xf4) ? 4 : 0;
        if (len == 0 || i + (size_t)len > n) {
            return false;
        }
        uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
        for (int k = 1; k < len; k++) {
            if ((s[i + (size_t)k] & 0xc0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + (size_t)k] & 0x3fu);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
            return false;
        }
        i += (size_t)len;
    }
    return true;
}

/*
** Two values of a key column the same (see rsql_value.h).
*/
bool rsql_value_same_key(const rsql_value_t *a, const rsql_value_t *b)
{
    bool an = a->is_null || a->type == RSQL_TYPE_NULL, bn = b->is_null || b->type == RSQL_TYPE_NULL;
    if (an || bn || a->type != b->type) {
        return false;
    }
    switch (a->type) {
    case RSQL_TYPE_BOOLEAN: return a->v.b == b->v.b;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_INTERVAL: return a->v.i == b->v.i;
    case RSQL_TYPE_TIMESTAMP: return a->v.ts == b->v.ts;
    case RSQL_TYPE_DOUBLE: return a->v.d == b->v.d;
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES:
        return a->v.s.len == b->v.s.len &&
               (a->v.s.len == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
    case RSQL_TYPE_DECIMAL: return rsql_value_decimal_cmp(a, b) == 0;
    default: return false; /* nested: not compared */
    }
}

/* h mixed with the n bytes at p (FNV-1a). */
static uint64_t mix_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* See rsql_value.h. */
uint64_t rsql_value_key_hash(const rsql_value_t *v, uint64_t h)
{
    uint8_t t = (uint8_t)v->type;
    h = mix_bytes(h, &t, 1);
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        return h;
    }
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: return mix_bytes(h, &(uint8_t){v->v.b ? 1 : 0}, 1);
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_INTERVAL: return mix_bytes(h, &v->v.i, sizeof v->v.i);
    case RSQL_TYPE_TIMESTAMP: return mix_bytes(h, &v->v.ts, sizeof v->v.ts);
    case RSQL_TYPE_DOUBLE: {
        double d = v->v.d == 0 ? 0.0 : v->v.d; /* -0.0 is the same key as 0.0 */
        return mix_bytes(h, &d, sizeof d);
    }
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: return v->v.s.len ? mix_bytes(h, v->v.s.p, v->v.s.len) : h;
    case RSQL_TYPE_DECIMAL: return rsql_value_decimal_hash(v, h);
    default: return h; /* nested: never the same key */
    }
}

/* See rsql_value.h. */
bool rsql_value_keys_hash(const rsql_value_t *key, int n, uint64_t *h)
{
    *h = UINT64_C(14695981039346656037);
    for (int i = 0; i < n; i++) {
        if (!rsql_value_same_key(&key[i], &key[i])) {
            return false;
        }
        *h = rsql_value_key_hash(&key[i], *h);
    }
    return true;
}

/* See rsql_value.h. */
rsql_err_t rsql_value_copy(const rsql_value_t *v, rsql_arena_t *a, rsql_value_t *out)
{
    *out = *v;
    if (v->is_null) {
        return RSQL_OK;
    }
    if (v->type == RSQL_TYPE_VARCHAR || v->type == RSQL_TYPE_BYTES) {
        char *p = rsql_arena_alloc(a, v->v.s.len + 1);
        if (!p) {
            return RSQL_ERR_NOMEM;
        }
        if (v->v.s.len) {
            memcpy(p, v->v.s.p, v->v.s.len);
        }
        p[v->v.s.len] = '\0';
        out->v.s.p = p;
        return RSQL_OK;
    }
    if (!rsql_type_is_nested(v->type) || !v->v.c) {
        return RSQL_OK;
    }
    const rsql_composite_t *c = v->v.c;
    size_t n = v->type == RSQL_TYPE_MAP ? 2 * (size_t)c->n : (size_t)c->n;
    rsql_composite_t *d = rsql_arena_alloc(a, sizeof *d + n * sizeof d->items[0]);
    if (!d) {
        return RSQL_ERR_NOMEM;
    }
    d->desc = c->desc;
    d->n = c->n;
    for (size_t i = 0; i < n; i++) {
        if (rsql_value_copy(&c->items[i], a, &d->items[i]) != RSQL_OK) {
            return RSQL_ERR_NOMEM;
        }
    }
    out->v.c = d;
    return RSQL_OK;
}
