/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The exact types of the value module (rsql_value.h has the rules): the
 * text forms and arithmetic of DECIMAL(p, s) (a 128-bit unscaled integer,
 * never a binary floating-point number between text and text) and the text
 * of DATE (days since the epoch). Built on the scalar text forms of
 * rsql_value.c (DOUBLE, TIMESTAMP); the text of any value, by type, is
 * rsql_value_text.c.
 */
#include "config.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 i128;

static rsql_err_t fail(rsql_error_t *err, const char *why)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "%s", why);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* 10^k for k in 0..38 */
static i128 pow10_128(int k)
{
    i128 r = 1;
    while (k-- > 0) {
        r *= 10;
    }
    return r;
}

static i128 dec_get(const rsql_value_t *v)
{
    return (i128)(((unsigned __int128)(uint64_t)v->v.dec.hi << 64) | v->v.dec.lo);
}

static void dec_set(rsql_value_t *v, i128 x, int prec, int scale)
{
    unsigned __int128 u = (unsigned __int128)x;
    v->type = RSQL_TYPE_DECIMAL;
    v->is_null = false;
    v->v.dec.lo = (uint64_t)u;
    v->v.dec.hi = (int64_t)(uint64_t)(u >> 64);
    v->prec = (uint8_t)prec;
    v->scale = (uint8_t)scale;
}

/* Whether |x| has at most prec digits. */
static bool fits(i128 x, int prec)
{
    i128 lim = pow10_128(prec);
    return x < lim && x > -lim;
}

/* x at scale from rescaled to scale to (half away from zero when digits are dropped). */
static bool rescale(i128 x, int from, int to, i128 *out)
{
    if (to >= from) {
        i128 m = pow10_128(to - from);
        return !__builtin_mul_overflow(x, m, out);
    }
    i128 d = pow10_128(from - to), q = x / d, r = x % d;
    if (r < 0) {
        r = -r;
    }
    if (r >= d - r) { /* r * 2 >= d, without overflowing when d is near 10^38 */
        q += x < 0 ? -1 : 1;
    }
    *out = q;
    return true;
}

static rsql_err_t dec_range(rsql_error_t *err, int prec, int scale)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "out of range for DECIMAL(%d, %d)",
                          prec, scale);
}

rsql_err_t rsql_value_parse_decimal(const char *s, size_t n, int prec, int scale,
                                    rsql_value_t *out, rsql_error_t *err)
{
    size_t i = 0;
    bool neg = false, any = false;
    i128 acc = 0;
    int digits = 0; /* significant digits kept in acc */
    int frac = 0;   /* digits of acc after the point */
    int dropped = 0; /* integer digits beyond 38 significant: counted, not kept */
    int round_digit = -1;
    long exp10 = 0;
    while (n > 0 && is_blank(s[n - 1])) {
        n--;
    }
    while (i < n && is_blank(s[i])) {
        i++;
    }
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i++] == '-';
    }
    for (bool point = false; i < n; i++) {
        char c = s[i];
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (c < '0' || c > '9') {
            break;
        }
        any = true;
        if (acc == 0 && c == '0') {
            if (point) {
                frac++;
            }
            continue; /* leading zeros */
        }
        if (digits < RSQL_DECIMAL_MAX_PRECISION) {
            acc = acc * 10 + (c - '0');
            digits++;
            if (point) {
                frac++;
            }
        } else if (!point) {
            dropped++;
        } else if (round_digit < 0) {
            round_digit = c - '0';
        }
    }
    if (!any) {
        return fail(err, "not a decimal number");
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        bool eneg = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i++] == '-';
        }
        if (i >= n || s[i] < '0' || s[i] > '9') {
            return fail(err, "not a decimal number");
        }
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (exp10 < 100000) {
                exp10 = exp10 * 10 + (s[i] - '0');
            }
        }
        if (eneg) {
            exp10 = -exp10;
        }
    }
    if (i != n) {
        return fail(err, "not a decimal number");
    }
    if (dropped > 0) {
        return dec_range(err, prec, scale);
    }
    /* value = acc * 10^(exp10 - frac); wanted: acc * 10^(exp10 - frac + scale) */
    long shift = exp10 - frac + scale;
    i128 v;
    if (acc == 0) {
        v = 0;
    } else if (shift >= 0) {
        if (shift > RSQL_DECIMAL_MAX_PRECISION || !rescale(acc, 0, (int)shift, &v)) {
            return dec_range(err, prec, scale);
        }
    } else if (-shift > RSQL_DECIMAL_MAX_PRECISION) {
        v = 0;
    } else {
        rescale(acc, (int)-shift, 0, &v); /* the dropped digits only move a tie up */
    }
    if (shift == 0 && round_digit >= 5) {
        v++; /* the first digit past the 38 kept ones rounds half up */
    }
    if (neg) {
        v = -v;
    }
    if (!fits(v, prec)) {
        return dec_range(err, prec, scale);
    }
    memset(out, 0, sizeof *out);
    dec_set(out, v, prec, scale);
    return RSQL_OK;
}

size_t rsql_value_format_decimal(const rsql_value_t *v, char *buf)
{
    i128 x = dec_get(v);
    char tmp[48];
    int k = 0;
    bool neg = x < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)x : (unsigned __int128)x;
    do {
        tmp[k++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (k <= v->scale) {
        tmp[k++] = '0';
    }
    size_t o = 0;
    if (neg) {
        buf[o++] = '-';
    }
    for (int i = k - 1; i >= 0; i--) {
        buf[o++] = tmp[i];
        if (i == v->scale && v->scale > 0) {
            buf[o++] = '.';
        }
    }
    buf[o] = 0;
    return o;
}

rsql_err_t rsql_value_decimal_from_int(int64_t i, int prec, int scale, rsql_value_t *out,
                                       rsql_error_t *err)
{
    i128 v;
    if (!rescale((i128)i, 0, scale, &v) || !fits(v, prec)) {
        return dec_range(err, prec, scale);
    }
    memset(out, 0, sizeof *out);
    dec_set(out, v, prec, scale);
    return RSQL_OK;
}

rsql_err_t rsql_value_decimal_rescale(const rsql_value_t *in, int prec, int scale,
                                      rsql_value_t *out, rsql_error_t *err)
{
    i128 v;
    if (!rescale(dec_get(in), in->scale, scale, &v) || !fits(v, prec)) {
        return dec_range(err, prec, scale);
    }
    memset(out, 0, sizeof *out);
    dec_set(out, v, prec, scale);
    return RSQL_OK;
}

rsql_err_t rsql_value_decimal_to_int(const rsql_value_t *in, int64_t lo, int64_t hi,
                                     int64_t *out, rsql_error_t *err)
{
    i128 q = dec_get(in) / pow10_128(in->scale); /* truncates toward zero */
    if (q < lo || q > hi) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "out of range for %s",
                              hi == INT32_MAX ? "INT" : "BIGINT");
    }
    *out = (int64_t)q;
    return RSQL_OK;
}

double rsql_value_decimal_to_double(const rsql_value_t *in)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    size_t n = rsql_value_format_decimal(in, buf);
    double d = 0;
    rsql_value_parse_double(buf, n, &d, NULL); /* correctly rounded */
    return d;
}

rsql_err_t rsql_value_decimal_from_double(double d, int prec, int scale, rsql_value_t *out,
                                          rsql_error_t *err)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    if (d != d || d - d != 0) {
        return dec_range(err, prec, scale);
    }
    size_t n = rsql_value_format_double(d, buf); /* the shortest text that reads back */
    return rsql_value_parse_decimal(buf, n, prec, scale, out, err);
}

/* The results' scale: the larger one; both operands brought to it. */
rsql_err_t rsql_value_decimal_arith(char op, const rsql_value_t *a, const rsql_value_t *b,
                                    int prec, int scale, rsql_value_t *out, rsql_error_t *err)
{
    i128 x = dec_get(a), y = dec_get(b), r;
    bool over;
    if (op == '*') {
        over = __builtin_mul_overflow(x, y, &r);
        if (!over) {
            over = !rescale(r, a->scale + b->scale, scale, &r);
        }
    } else {
        int s = a->scale > b->scale ? a->scale : b->scale;
        over = !rescale(x, a->scale, s, &x) || !rescale(y, b->scale, s, &y) ||
               (op == '+' ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r));
        if (!over) {
            over = !rescale(r, s, scale, &r);
        }
    }
    if (over || !fits(r, prec)) {
        return rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "decimal overflow");
    }
    memset(out, 0, sizeof *out);
    dec_set(out, r, prec, scale);
    return RSQL_OK;
}

typedef unsigned __int128 u128;

static u128 mag(i128 x)
{
    return x < 0 ? (u128)0 - (u128)x : (u128)x;
}

/* With r < y < 2^127: 10 * r = digit * y + r' (r' into *r); returns the digit, never overflows. */
static int step10(u128 *r, u128 y)
{
    u128 acc = 0;
    int d = 0;
    for (int i = 0; i < 10; i++) {
        acc += *r; /* acc < y and *r < y: below 2^128 */
        if (acc >= y) {
            acc -= y;
            d++;
        }
    }
    *r = acc;
    return d;
}

static rsql_err_t dec_overflow(rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "decimal overflow");
}

static rsql_err_t dec_out(i128 r, int prec, int scale, rsql_value_t *out, rsql_error_t *err)
{
    if (!fits(r, prec)) {
        return dec_overflow(err);
    }
    memset(out, 0, sizeof *out);
    dec_set(out, r, prec, scale);
    return RSQL_OK;
}

rsql_err_t rsql_value_decimal_div(const rsql_value_t *a, const rsql_value_t *b, int prec,
                                  int scale, rsql_value_t *out, rsql_error_t *err)
{
    i128 x = dec_get(a), y = dec_get(b);
    if (y == 0) {
        return rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "division by zero");
    }
    /* x / 10^sa / (y / 10^sb) * 10^scale = x * 10^k / y */
    int k = scale - a->scale + b->scale;
    if (k < 0) {
        if (!rescale(y, 0, -k, &y)) {
            return dec_overflow(err);
        }
        k = 0;
    }
    u128 ux = mag(x), uy = mag(y), q = ux / uy, r = ux % uy, lim = (u128)pow10_128(prec);
    for (int i = 0; i < k && q < lim; i++) {
        if (q >= lim / 10) {
            q = lim; /* the next digit makes it too long */
            break;
        }
        q = q * 10 + (u128)step10(&r, uy);
    }
    if (q < lim && r >= uy - r) { /* 2r >= |y|: half up (away from zero) */
        q++;
    }
    if (q >= lim) {
        return dec_overflow(err);
    }
    i128 res = (x < 0) != (y < 0) ? -(i128)q : (i128)q;
    return dec_out(res, prec, scale, out, err);
}

rsql_err_t rsql_value_decimal_mod(const rsql_value_t *a, const rsql_value_t *b, int prec,
                                  int scale, rsql_value_t *out, rsql_error_t *err)
{
    i128 x = dec_get(a), y = dec_get(b);
    if (y == 0) {
        return rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "division by zero");
    }
    int s = a->scale > b->scale ? a->scale : b->scale;
    u128 ux = mag(x), r;
    if (b->scale < s) { /* x is at scale s; y scaled up (when that overflows, |y| > |x|) */
        i128 ys;
        r = rescale(y, b->scale, s, &ys) ? ux % mag(ys) : ux;
    } else { /* y at scale s; (x * 10^(s - sa)) mod |y| one digit at a time */
        u128 uy = mag(y);
        r = ux % uy;
        for (int i = a->scale; i < s; i++) {
            step10(&r, uy);
        }
    }
    i128 res = x < 0 ? -(i128)r : (i128)r; /* the sign of the dividend, as Java's remainder */
    if (!rescale(res, s, scale, &res)) {
        return dec_overflow(err);
    }
    return dec_out(res, prec, scale, out, err);
}

rsql_err_t rsql_value_decimal_round(const rsql_value_t *in, int digits, char mode, int prec,
                                    int scale, rsql_value_t *out, rsql_error_t *err)
{
    i128 q = dec_get(in);
    int from = in->scale;
    if (digits < from) {
        int drop = from - digits;
        i128 rem = q;
        if (drop <= 38) {
            i128 d = pow10_128(drop);
            rem = q % d;
            q /= d;
            if (mode == 'r' ? mag(rem) >= (u128)d - mag(rem) : false) {
                q += rem < 0 ? -1 : 1;
            }
        } else {
            q = 0; /* |in| < 10^38 is below half of 10^drop */
        }
        if (mode == 'f' && rem < 0) {
            q -= 1;
        } else if (mode == 'c' && rem > 0) {
            q += 1;
        }
        from = digits;
    }
    if (q != 0 && (scale - from > 38 || !rescale(q, from, scale, &q))) {
        return dec_overflow(err);
    }
    return dec_out(q, prec, scale, out, err);
}

void rsql_value_decimal_round_type(char mode, int p, int s, int digits, int *prec, int *scale)
{
    if (mode != 'r') { /* FLOOR, CEIL */
        *prec = s == 0 ? p : (p - s + 1 < RSQL_DECIMAL_MAX_PRECISION ? p - s + 1
                                                                     : RSQL_DECIMAL_MAX_PRECISION);
        *scale = 0;
    } else if (digits >= s) {
        *prec = p;
        *scale = s;
    } else if (digits < 0) {
        *prec = 1 + p - s < RSQL_DECIMAL_MAX_PRECISION ? 1 + p - s : RSQL_DECIMAL_MAX_PRECISION;
        *scale = 0;
    } else { /* rounding may carry into one more digit */
        *prec = 1 + p - s + digits;
        *scale = digits;
    }
}

int rsql_value_decimal_cmp(const rsql_value_t *a, const rsql_value_t *b)
{
    i128 x = dec_get(a), y = dec_get(b);
    if (a->scale < b->scale) {
        if (!rescale(x, a->scale, b->scale, &x)) {
            return x < 0 ? -1 : 1; /* |a| is beyond any b */
        }
    } else if (b->scale < a->scale) {
        if (!rescale(y, b->scale, a->scale, &y)) {
            return y < 0 ? 1 : -1;
        }
    }
    return x < y ? -1 : x > y;
}

/* See rsql_value.h. */
uint64_t rsql_value_decimal_hash(const rsql_value_t *v, uint64_t h)
{
    i128 x = dec_get(v);
    int scale = v->scale;
    while (scale > 0 && x % 10 == 0) { /* 1.50 and 1.5 are one value */
        x /= 10;
        scale--;
    }
    unsigned __int128 u = (unsigned __int128)x;
    uint64_t parts[3] = {(uint64_t)u, (uint64_t)(u >> 64), (uint64_t)scale};
    for (int i = 0; i < 3; i++) {
        h = (h ^ parts[i]) * UINT64_C(0x100000001b3);
        h ^= h >> 29;
    }
    return h;
}

void rsql_value_decimal_type(char op, int p1, int s1, int p2, int s2, int *prec, int *scale)
{
    int p, s;
    if (op == '*') {
        p = p1 + p2;
        s = s1 + s2;
    } else if (op == '/') {
        s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
        p = p1 - s1 + s2 + s;
    } else if (op == '%') {
        s = s1 > s2 ? s1 : s2;
        p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + s;
    } else {
        s = s1 > s2 ? s1 : s2;
        p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + s + 1;
    }
    if (p > RSQL_DECIMAL_MAX_PRECISION) { /* Flink's (and SQL Server's) adjustment */
        int int_digits = p - s;
        int min_scale = s < 6 ? s : 6;
        s = RSQL_DECIMAL_MAX_PRECISION - int_digits;
        if (s < min_scale) {
            s = min_scale;
        }
        p = RSQL_DECIMAL_MAX_PRECISION;
    }
    *prec = p;
    *scale = s;
}

/* ---- DATE */

rsql_err_t rsql_value_parse_date(const char *s, size_t n, int64_t *days, rsql_error_t *err)
{
    int64_t ms;
    size_t a = 0, b = n;
    while (a < b && is_blank(s[a])) {
        a++;
    }
    while (b > a && is_blank(s[b - 1])) {
        b--;
    }
    /* a date only: [+-]YYYY-MM-DD (the timestamp parser checks the calendar) */
    bool shape = b > a + 1 && memchr(s + a + 1, '-', b - a - 1) != NULL;
    for (size_t i = a; shape && i < b; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '+')) {
            shape = false;
        }
    }
    if (!shape || rsql_value_parse_timestamp(s + a, b - a, &ms, NULL) != RSQL_OK) {
        return fail(err, "not a date");
    }
    *days = ms / 86400000; /* midnight: exact */
    return RSQL_OK;
}

/* k (min_digits..max_digits) decimal digits at s[*i] into *out */
static bool pat_digits(const char *s, size_t n, size_t *i, int min_digits, int max_digits,
                       int *out)
{
    int v = 0, k = 0;
    while (*i < n && k < max_digits && s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[(*i)++] - '0');
        k++;
    }
    *out = v;
    return k >= min_digits;
}

bool rsql_value_parse_date_pattern(const char *s, size_t n, const char *pat, size_t pat_len,
                                   int64_t *days)
{
    int y = -1, m = -1, d = -1;
    bool neg = false;
    size_t i = 0, p = 0;
    while (p < pat_len) {
        char c = pat[p];
        size_t run = 1;
        while (p + run < pat_len && pat[p + run] == c) {
            run++;
        }
        if (c == '\'') { /* quoted literal; '' is a quote */
            p++;
            for (; p < pat_len; p++) {
                if (pat[p] == '\'') {
                    if (p + 1 < pat_len && pat[p + 1] == '\'') {
                        p++;
                    } else {
                        break;
                    }
                }
                if (i >= n || s[i] != pat[p]) {
                    return false;
                }
                i++;
            }
            p++;
            continue;
        }
        if (c == 'y' && run == 4) {
            if (i < n && (s[i] == '-' || s[i] == '+')) {
                neg = s[i++] == '-';
            }
            /* up to 6 digits, but exactly 4 when another number follows at once (yyyyMMdd) */
            bool adjacent = p + run < pat_len && (pat[p + run] == 'M' || pat[p + run] == 'd');
            if (!pat_digits(s, n, &i, 4, adjacent ? 4 : 6, &y)) {
                return false;
            }
        } else if (c == 'M' && run <= 2) {
            if (!pat_digits(s, n, &i, run == 2 ? 2 : 1, 2, &m)) {
                return false;
            }
        } else if (c == 'd' && run <= 2) {
            if (!pat_digits(s, n, &i, run == 2 ? 2 : 1, 2, &d)) {
                return false;
            }
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            return false; /* a pattern letter TO_DATE does not know (times: TO_TIMESTAMP) */
        } else {
            for (size_t k = 0; k < run; k++) {
                if (i >= n || s[i] != c) {
                    return false;
                }
                i++;
            }
        }
        p += run;
    }
    if (i != n || y < 0 || m < 0 || d < 0) {
        return false;
    }
    char text[32];
    int len = snprintf(text, sizeof text, "%s%04d-%02d-%02d", neg ? "-" : "", y, m, d);
    return rsql_value_parse_date(text, (size_t)len, days, NULL) == RSQL_OK;
}

size_t rsql_value_format_date(int64_t days, char *buf)
{
    if (days > INT64_MAX / 86400000 || days < INT64_MIN / 86400000) {
        days = days < 0 ? INT64_MIN / 86400000 : INT64_MAX / 86400000;
    }
    size_t n = rsql_value_format_timestamp(days * 86400000, buf);
    char *sp = memchr(buf, ' ', n);
    if (sp) {
        *sp = 0;
        n = (size_t)(sp - buf);
    }
    return n;
}
