/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_cast: value conversions, shared by the binder (constant literals
 * converted at plan time, e.g. a VARCHAR literal compared with a TIMESTAMP)
 * and the evaluator (CAST and the implicit widening casts). Also the text
 * forms the engine prints: timestamps as ISO-8601 UTC
 * ("2024-01-02T03:04:05.678Z") and doubles in their shortest exact form.
 *
 * The allowed matrix (rsql_plan__castable): numeric <-> numeric, any <->
 * VARCHAR, VARCHAR -> BYTES, BOOLEAN <-> INT/BIGINT, TIMESTAMP <->
 * INT/BIGINT (milliseconds since the epoch), NULL -> any.
 */
#include "config.h"
#include "planner/plan_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether CAST(from AS to) is allowed (the matrix above). */
bool rsql_plan__castable(rsql_type_t from, rsql_type_t to)
{
    if (from == to || from == RSQL_TYPE_NULL) {
        return true;
    }
    if (rsql_type_is_numeric(from) && rsql_type_is_numeric(to)) {
        return true;
    }
    if (from == RSQL_TYPE_VARCHAR || to == RSQL_TYPE_VARCHAR) {
        return true;
    }
    bool from_int = from == RSQL_TYPE_INT || from == RSQL_TYPE_BIGINT;
    bool to_int = to == RSQL_TYPE_INT || to == RSQL_TYPE_BIGINT;
    if ((from == RSQL_TYPE_BOOLEAN && to_int) || (from_int && to == RSQL_TYPE_BOOLEAN)) {
        return true;
    }
    if ((from == RSQL_TYPE_TIMESTAMP && to_int) || (from_int && to == RSQL_TYPE_TIMESTAMP)) {
        return true;
    }
    return false;
}

/* ---- calendar arithmetic (days from 1970-01-01, proleptic Gregorian) */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* Read exactly n digits at s[*i]. */
static bool digits(const char *s, size_t len, size_t *i, int n, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < n; k++) {
        if (*i >= len || !isdigit((unsigned char)s[*i])) {
            return false;
        }
        v = v * 10 + (unsigned)(s[*i] - '0');
        (*i)++;
    }
    *out = v;
    return true;
}

/* Parse ISO-8601 text s[0..n) into ms since the epoch (UTC unless an offset is given). */
bool rsql_plan__parse_timestamp(const char *s, size_t n, int64_t *ms)
{
    size_t i = 0;
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    while (i < n && isspace((unsigned char)s[i])) {
        i++;
    }
    unsigned y, mo, d, h = 0, mi = 0, sec = 0, frac = 0;
    if (!digits(s, n, &i, 4, &y) || i >= n || s[i++] != '-' || !digits(s, n, &i, 2, &mo) ||
        i >= n || s[i++] != '-' || !digits(s, n, &i, 2, &d)) {
        return false;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo)) {
        return false;
    }
    int64_t offset_min = 0;
    if (i < n && (s[i] == ' ' || s[i] == 'T' || s[i] == 't')) {
        i++;
        if (!digits(s, n, &i, 2, &h) || i >= n || s[i++] != ':' || !digits(s, n, &i, 2, &mi)) {
            return false;
        }
        if (i < n && s[i] == ':') {
            i++;
            if (!digits(s, n, &i, 2, &sec)) {
                return false;
            }
            if (i < n && s[i] == '.') {
                i++;
                int nd = 0;
                while (i < n && isdigit((unsigned char)s[i])) {
                    if (nd < 3) {
                        frac = frac * 10 + (unsigned)(s[i] - '0');
                    }
                    nd++;
                    i++;
                }
                if (nd == 0 || nd > 9) {
                    return false;
                }
                for (int k = nd; k < 3; k++) {
                    frac *= 10;
                }
            }
        }
        if (h > 23 || mi > 59 || sec > 59) {
            return false;
        }
        if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
            i++;
        } else if (i < n && (s[i] == '+' || s[i] == '-')) {
            int sign = s[i++] == '-' ? -1 : 1;
            unsigned oh, om = 0;
            if (!digits(s, n, &i, 2, &oh)) {
                return false;
            }
            if (i < n && s[i] == ':') {
                i++;
            }
            if (i < n && !digits(s, n, &i, 2, &om)) {
                return false;
            }
            if (oh > 23 || om > 59) {
                return false;
            }
            offset_min = sign * (int64_t)(oh * 60 + om);
        }
    }
    if (i != n) {
        return false;
    }
    int64_t days = days_from_civil(y, mo, d);
    *ms = ((days * 86400 + h * 3600 + mi * 60 + sec) - offset_min * 60) * 1000 + frac;
    return true;
}

/* ms as "YYYY-MM-DDTHH:MM:SS.sssZ" into buf (>= 32 bytes); returns the length. */
size_t rsql_plan__format_timestamp(int64_t ms, char *buf)
{
    int64_t secs = ms / 1000 - (ms % 1000 < 0 ? 1 : 0); /* floor division, no overflow */
    unsigned msec = (unsigned)(ms - secs * 1000);
    int64_t days = secs / 86400 - (secs % 86400 < 0 ? 1 : 0);
    unsigned sod = (unsigned)(secs - days * 86400);
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    int n = snprintf(buf, 32, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%03uZ", y, m, d, sod / 3600,
                     sod / 60 % 60, sod % 60, msec);
    return n > 0 ? (size_t)n : 0;
}

/* The shortest text that reads back as d ("2.5", "7.0", "1e+20") into buf (>= 32 bytes). */
size_t rsql_plan__format_double(double d, char *buf)
{
    if (isnan(d)) {
        return (size_t)snprintf(buf, 32, "NaN");
    }
    if (isinf(d)) {
        return (size_t)snprintf(buf, 32, d < 0 ? "-Infinity" : "Infinity");
    }
    int n = 0;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(buf, 32, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) {
            break;
        }
    }
    if (!strpbrk(buf, ".eE")) {
        buf[n++] = '.';
        buf[n++] = '0';
        buf[n] = '\0';
    }
    return (size_t)n;
}

/* ---- value conversion */

static char *out_alloc(rsql_eval_ctx_t *ctx, rsql_arena_t *a, size_t n)
{
    return ctx ? rsql_eval_scratch(ctx, n ? n : 1) : rsql_arena_alloc(a, n ? n : 1);
}

static rsql_err_t set_str(rsql_eval_ctx_t *ctx, rsql_arena_t *a, const char *s, size_t n,
                          rsql_value_t *out, rsql_error_t *err)
{
    char *p = out_alloc(ctx, a, n + 1);
    if (!p) {
        return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    memcpy(p, s, n);
    p[n] = '\0';
    out->v.s.p = p;
    out->v.s.len = n;
    return RSQL_OK;
}

/* The value as text for an error message: strings quoted and cut at 60 bytes. */
static void describe(const rsql_value_t *v, char *buf, size_t size)
{
    char num[32];
    switch (v->type) {
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: {
        int n = v->v.s.len > 60 ? 60 : (int)v->v.s.len;
        snprintf(buf, size, "'%.*s%s'", n, v->v.s.p, v->v.s.len > 60 ? "..." : "");
        return;
    }
    case RSQL_TYPE_DOUBLE: rsql_plan__format_double(v->v.d, num); snprintf(buf, size, "%s", num);
        return;
    case RSQL_TYPE_TIMESTAMP: rsql_plan__format_timestamp(v->v.ts, num);
        snprintf(buf, size, "%s", num);
        return;
    case RSQL_TYPE_BOOLEAN: snprintf(buf, size, "%s", v->v.b ? "TRUE" : "FALSE"); return;
    default: snprintf(buf, size, "%" PRId64, v->v.i); return;
    }
}

static rsql_err_t cast_fail(const rsql_value_t *v, rsql_type_t to, rsql_pos_t pos,
                            rsql_error_t *err)
{
    char what[96];
    describe(v, what, sizeof(what));
    return rsql_error_set(err, RSQL_ERR_EVAL, pos, "cannot cast %s to %s", what,
                          rsql_type_name(to));
}

/* A trimmed NUL-terminated copy of a short string value into buf; false if too long. */
static bool trimmed(const rsql_value_t *v, char *buf, size_t size)
{
    const char *p = v->v.s.p;
    size_t n = v->v.s.len;
    while (n > 0 && isspace((unsigned char)*p)) {
        p++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)p[n - 1])) {
        n--;
    }
    if (n >= size) {
        return false;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

static rsql_err_t to_integer(const rsql_value_t *v, rsql_type_t to, rsql_pos_t pos, int64_t *out,
                             rsql_error_t *err)
{
    int64_t i = 0;
    switch (v->type) {
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: i = v->v.i; break;
    case RSQL_TYPE_BOOLEAN: i = v->v.b ? 1 : 0; break;
    case RSQL_TYPE_TIMESTAMP: i = v->v.ts; break;
    case RSQL_TYPE_DOUBLE: {
        double t = trunc(v->v.d);
        if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
            return cast_fail(v, to, pos, err);
        }
        i = (int64_t)t;
        break;
    }
    case RSQL_TYPE_VARCHAR: {
        char buf[64], *end;
        if (!trimmed(v, buf, sizeof(buf)) || !buf[0]) {
            return cast_fail(v, to, pos, err);
        }
        errno = 0;
        long long ll = strtoll(buf, &end, 10);
        if (errno || *end) {
            return cast_fail(v, to, pos, err);
        }
        i = ll;
        break;
    }
    default: return cast_fail(v, to, pos, err);
    }
    if (to == RSQL_TYPE_INT && (i < INT32_MIN || i > INT32_MAX)) {
        return cast_fail(v, to, pos, err);
    }
    *out = i;
    return RSQL_OK;
}

/*
** Convert v to type to into *out (see plan_int.h). Produced strings live in
** ctx's scratch (or arena a when ctx is NULL); others borrow v's memory.
*/
rsql_err_t rsql_plan__cast_value(const rsql_value_t *v, rsql_type_t to, rsql_eval_ctx_t *ctx,
                                 rsql_arena_t *a, rsql_pos_t pos, rsql_value_t *out,
                                 rsql_error_t *err)
{
    rsql_value_t r;
    memset(&r, 0, sizeof(r));
    r.type = to;
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        r.is_null = true;
        *out = r;
        return RSQL_OK;
    }
    rsql_err_t rc = RSQL_OK;
    char buf[64];
    switch (to) {
    case RSQL_TYPE_NULL: r.is_null = true; break;
    case RSQL_TYPE_BOOLEAN:
        if (v->type == RSQL_TYPE_BOOLEAN) {
            r.v.b = v->v.b;
        } else if (v->type == RSQL_TYPE_VARCHAR) {
            if (!trimmed(v, buf, sizeof(buf))) {
                return cast_fail(v, to, pos, err);
            }
            if (!strcasecmp(buf, "true") || !strcmp(buf, "1")) {
                r.v.b = true;
            } else if (!strcasecmp(buf, "false") || !strcmp(buf, "0")) {
                r.v.b = false;
            } else {
                return cast_fail(v, to, pos, err);
            }
        } else {
            r.v.b = v->v.i != 0;
        }
        break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rc = to_integer(v, to, pos, &r.v.i, err); break;
    case RSQL_TYPE_TIMESTAMP:
        if (v->type == RSQL_TYPE_VARCHAR) {
            if (!rsql_plan__parse_timestamp(v->v.s.p, v->v.s.len, &r.v.ts)) {
                return cast_fail(v, to, pos, err);
            }
        } else {
            rc = to_integer(v, RSQL_TYPE_BIGINT, pos, &r.v.ts, err);
        }
        break;
    case RSQL_TYPE_DOUBLE:
        if (v->type == RSQL_TYPE_DOUBLE) {
            r.v.d = v->v.d;
        } else if (v->type == RSQL_TYPE_VARCHAR) {
            char *end;
            if (!trimmed(v, buf, sizeof(buf)) || !buf[0]) {
                return cast_fail(v, to, pos, err);
            }
            r.v.d = strtod(buf, &end);
            if (*end) {
                return cast_fail(v, to, pos, err);
            }
        } else {
            r.v.d = (double)v->v.i;
        }
        break;
    case RSQL_TYPE_VARCHAR:
        switch (v->type) {
        case RSQL_TYPE_VARCHAR: r.v.s = v->v.s; break;
        case RSQL_TYPE_BYTES:
            if (!rsql_plan__utf8_valid(v->v.s.p, v->v.s.len)) {
                return rsql_error_set(err, RSQL_ERR_EVAL, pos,
                                      "cannot cast BYTES to VARCHAR: not valid UTF-8");
            }
            r.v.s = v->v.s;
            break;
        case RSQL_TYPE_BOOLEAN: {
            const char *t = v->v.b ? "TRUE" : "FALSE";
            r.v.s.p = t;
            r.v.s.len = strlen(t);
            break;
        }
        case RSQL_TYPE_DOUBLE: {
            size_t n = rsql_plan__format_double(v->v.d, buf);
            rc = set_str(ctx, a, buf, n, &r, err);
            break;
        }
        case RSQL_TYPE_TIMESTAMP: {
            size_t n = rsql_plan__format_timestamp(v->v.ts, buf);
            rc = set_str(ctx, a, buf, n, &r, err);
            break;
        }
        default: {
            int n = snprintf(buf, sizeof(buf), "%" PRId64, v->v.i);
            rc = set_str(ctx, a, buf, (size_t)n, &r, err);
            break;
        }
        }
        break;
    case RSQL_TYPE_BYTES:
        if (v->type != RSQL_TYPE_VARCHAR && v->type != RSQL_TYPE_BYTES) {
            return cast_fail(v, to, pos, err);
        }
        r.v.s = v->v.s;
        break;
    }
    if (rc == RSQL_OK) {
        *out = r;
    }
    return rc;
}
