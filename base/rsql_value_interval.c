/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_value_interval: the day-time interval (RSQL_TYPE_INTERVAL, milliseconds in an int64):
 * its text form (+d hh:mm:ss.fff, what CAST(... AS VARCHAR) gives), the reading of that form
 * back, the SQL literal INTERVAL 'text' unit [TO unit] and the literal a value is written as
 * in EXPLAIN. See rsql_value.h.
 */
#include "config.h"
#include "base/rsql_value.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SEC_MS INT64_C(1000)
#define MIN_MS (60 * SEC_MS)
#define HOUR_MS (60 * MIN_MS)
#define DAY_MS (24 * HOUR_MS)

static const char *const unit_names[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
static const int64_t unit_ms[] = {DAY_MS, HOUR_MS, MIN_MS, SEC_MS};

const char *rsql_interval_unit_name(int unit)
{
    return unit >= 0 && unit <= RSQL_IV_SECOND ? unit_names[unit] : "?";
}

size_t rsql_value_format_interval(int64_t ms, char *buf)
{
    uint64_t m = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    uint64_t d = m / (uint64_t)DAY_MS, r = m % (uint64_t)DAY_MS;
    int n = snprintf(buf, RSQL_VALUE_TEXT_MAX, "%c%llu %02u:%02u:%02u.%03u", ms < 0 ? '-' : '+',
                     (unsigned long long)d, (unsigned)(r / (uint64_t)HOUR_MS),
                     (unsigned)(r / (uint64_t)MIN_MS % 60), (unsigned)(r / (uint64_t)SEC_MS % 60),
                     (unsigned)(r % (uint64_t)SEC_MS));
    return n > 0 ? (size_t)n : 0;
}

size_t rsql_value_interval_sql(int64_t ms, char *buf)
{
    uint64_t m = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    const char *sign = ms < 0 ? "-" : "";
    int n;
    if (m % (uint64_t)SEC_MS != 0) {
        n = snprintf(buf, RSQL_VALUE_TEXT_MAX, "INTERVAL '%s%llu.%03u' SECOND", sign,
                     (unsigned long long)(m / (uint64_t)SEC_MS), (unsigned)(m % (uint64_t)SEC_MS));
        return n > 0 ? (size_t)n : 0;
    }
    int u = RSQL_IV_SECOND;
    for (int i = RSQL_IV_DAY; i < RSQL_IV_SECOND; i++) {
        if (m % (uint64_t)unit_ms[i] == 0) {
            u = i;
            break;
        }
    }
    if (m == 0) {
        u = RSQL_IV_SECOND;
    }
    n = snprintf(buf, RSQL_VALUE_TEXT_MAX, "INTERVAL '%s%llu' %s", sign,
                 (unsigned long long)(m / (uint64_t)unit_ms[u]), unit_names[u]);
    return n > 0 ? (size_t)n : 0;
}

/* A reader of the literal's text: the offset of the problem goes to the caller. */
typedef struct ivr {
    const char *s;
    size_t n, i;
} ivr_t;

/* Digits at r->i into *v (at most 18 of them: no overflow), false when there are none. */
static bool digits(ivr_t *r, uint64_t *v, int *count)
{
    uint64_t x = 0;
    int k = 0;
    while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') {
        if (k == 18) {
            return false;
        }
        x = x * 10 + (uint64_t)(r->s[r->i++] - '0');
        k++;
    }
    *v = x;
    if (count) {
        *count = k;
    }
    return k > 0;
}

static rsql_err_t lit_fail(rsql_error_t *err, uint32_t *err_off, size_t off, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));
static rsql_err_t lit_fail(rsql_error_t *err, uint32_t *err_off, size_t off, const char *fmt, ...)
{
    if (err_off) {
        *err_off = (uint32_t)off;
    }
    va_list ap;
    va_start(ap, fmt);
    rsql_err_t rc = rsql_error_setv(err, RSQL_ERR_DECODE, RSQL_NOPOS, fmt, ap);
    va_end(ap);
    return rc;
}

/* The shape of the text for the qualifier from TO to: "d h:m:s.fff" cut to the fields. */
static void shape(int from, int to, char *out, size_t cap)
{
    static const char *const parts[] = {"d", "h", "m", "s[.fff]"};
    static const char *const seps[] = {"", " ", ":", ":"};
    size_t k = 0;
    for (int u = from; u <= to && k < cap; u++) {
        int w = snprintf(out + k, cap - k, "%s%s", u == from ? "" : seps[u], parts[u]);
        k += w > 0 ? (size_t)w : 0;
    }
}

rsql_err_t rsql_value_interval_literal(const char *s, size_t n, int from, int to, int64_t *ms,
                                       uint32_t *err_off, rsql_error_t *err)
{
    static const uint64_t limit[] = {0, 23, 59, 59}; /* the trailing fields' largest values */
    static const char *const seps = "  ::";
    char want[32];
    shape(from, to, want, sizeof want);
    ivr_t r = {s, n, 0};
    while (r.i < r.n && (r.s[r.i] == ' ' || r.s[r.i] == '\t')) {
        r.i++;
    }
    bool neg = false;
    if (r.i < r.n && (r.s[r.i] == '-' || r.s[r.i] == '+')) {
        neg = r.s[r.i++] == '-';
    }
    uint64_t total = 0;
    for (int u = from; u <= to; u++) {
        if (u != from) {
            if (r.i >= r.n || r.s[r.i] != seps[u]) {
                return lit_fail(err, err_off, r.i, "expected '%s'", want);
            }
            r.i++;
        }
        size_t at = r.i;
        uint64_t v;
        if (!digits(&r, &v, NULL)) {
            return lit_fail(err, err_off, at, "expected '%s'", want);
        }
        if (u != from && v > limit[u]) {
            return lit_fail(err, err_off, at, "%s field out of range (0 to %llu)", unit_names[u],
                            (unsigned long long)limit[u]);
        }
        uint64_t part;
        if (__builtin_mul_overflow(v, (uint64_t)unit_ms[u], &part) ||
            __builtin_add_overflow(total, part, &total)) {
            return lit_fail(err, err_off, at, "out of range for an interval");
        }
        if (u == RSQL_IV_SECOND && r.i < r.n && r.s[r.i] == '.') {
            r.i++;
            at = r.i;
            int k;
            uint64_t f;
            if (!digits(&r, &f, &k) || k > 9) {
                return lit_fail(err, err_off, at, "expected 1 to 9 fraction digits in '%s'", want);
            }
            while (k > 3) { /* to milliseconds, the rest cut off */
                f /= 10;
                k--;
            }
            while (k < 3) {
                f *= 10;
                k++;
            }
            if (__builtin_add_overflow(total, f, &total)) {
                return lit_fail(err, err_off, at, "out of range for an interval");
            }
        }
    }
    while (r.i < r.n && (r.s[r.i] == ' ' || r.s[r.i] == '\t')) {
        r.i++;
    }
    if (r.i != r.n) {
        return lit_fail(err, err_off, r.i, "expected '%s'", want);
    }
    if (total > (uint64_t)INT64_MAX) {
        return lit_fail(err, err_off, 0, "out of range for an interval");
    }
    *ms = neg ? -(int64_t)total : (int64_t)total;
    return RSQL_OK;
}

rsql_err_t rsql_value_parse_interval(const char *s, size_t n, int64_t *ms, rsql_error_t *err)
{
    /* [+-]d hh:mm:ss[.fff]: the literal's DAY TO SECOND form with the day part first */
    size_t a = 0;
    while (a < n && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r')) {
        a++;
    }
    while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) {
        n--;
    }
    size_t sp = a + 1; /* the blank between the days and the time (after a sign) */
    while (sp < n && s[sp] != ' ') {
        sp++;
    }
    if (a == n || sp >= n || sp + 1 >= n || s[sp + 1] == ' ' ||
        rsql_value_interval_literal(s + a, n - a, RSQL_IV_DAY, RSQL_IV_SECOND, ms, NULL, NULL)) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "not an interval");
    }
    return RSQL_OK;
}
