/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_time: Flink's time functions. Every TIMESTAMP is UTC (rocketsql has
 * no session time zone), in milliseconds; the proleptic Gregorian calendar.
 *
 *   DATE_FORMAT(ts, fmt)          ts (TIMESTAMP, or VARCHAR in a TIMESTAMP text
 *                                 form) as text in the pattern fmt
 *   TO_TIMESTAMP(s [, fmt])       s read with fmt (default 'yyyy-MM-dd HH:mm:ss');
 *                                 NULL when s does not fit fmt
 *   FROM_UNIXTIME(n [, fmt])      n seconds since the epoch as text (fmt as above)
 *   UNIX_TIMESTAMP()              the current time in seconds (BIGINT)
 *   UNIX_TIMESTAMP(s [, fmt])     s read with fmt, in seconds; NULL when it does
 *                                 not fit
 *   TIMESTAMPADD(unit, n, ts)     ts plus n units; MONTH/QUARTER/YEAR keep the
 *                                 day, clamped to the month's last day
 *   TIMESTAMPDIFF(unit, a, b)     whole units from a to b (INT, toward zero)
 *   EXTRACT(unit FROM ts)         a field of ts (BIGINT)
 *
 * A DATE argument is a TIMESTAMP(3) at midnight (DATE_FORMAT, TIMESTAMPDIFF,
 * EXTRACT of DAY and coarser fields; finer ones are plan errors, as in
 * Flink); TIMESTAMPADD of DAY, WEEK, MONTH, QUARTER or YEAR to a DATE is a
 * DATE, of a finer unit a TIMESTAMP(3).
 *
 * Patterns are Java's SimpleDateFormat letters that Flink users write: yyyy
 * yy MM M MMM MMMM dd d HH H hh h mm m ss s S.. (milliseconds) a D EEE EEEE,
 * 'quoted text' ('' is a quote) and any other non-letter as itself. Reading
 * takes the numeric letters and literals. Another letter is an error: at
 * plan time for a literal pattern, else of the row.
 */
#include "config.h"
#include "planner/fn_int.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <stdio.h>

#define DAY_MS 86400000LL

/* ---- calendar (days since 1970-01-01) */

static int64_t fdiv(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && ((a < 0) != (b < 0)));
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = fdiv(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

typedef struct civil {
    int64_t y;
    int m, d, hh, mi, ss, ms;
} civil_t;

/* The time of day of ms (0 .. DAY_MS-1), without overflow for any ms. */
static int64_t time_of_day(int64_t ms)
{
    int64_t r = ms % DAY_MS;
    return r < 0 ? r + DAY_MS : r;
}

static civil_t civil_from_days(int64_t days)
{
    civil_t c = {0, 0, 0, 0, 0, 0, 0};
    int64_t z = days + 719468, era = fdiv(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    c.d = (int)(doy - (153 * mp + 2) / 5 + 1);
    c.m = (int)(mp < 10 ? mp + 3 : mp - 9);
    c.y = yoe + era * 400 + (c.m <= 2);
    return c;
}

static civil_t civil_from_ms(int64_t ms)
{
    civil_t c = civil_from_days(fdiv(ms, DAY_MS));
    int64_t rem = time_of_day(ms);
    c.hh = (int)(rem / 3600000);
    c.mi = (int)(rem / 60000 % 60);
    c.ss = (int)(rem / 1000 % 60);
    c.ms = (int)(rem % 1000);
    return c;
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : d[m - 1];
}

/* ---- units */

typedef enum unit_id {
    U_MILLISECOND, U_SECOND, U_MINUTE, U_HOUR, U_DAY, U_WEEK, U_MONTH, U_QUARTER, U_YEAR,
    U_DOW, U_DOY, U_EPOCH
} unit_id_t;

typedef struct unit {
    const char *name;
    unit_id_t id;
    int64_t ms;      /* fixed length, 0 for month-based and fields */
    bool arith;      /* TIMESTAMPADD / TIMESTAMPDIFF take it */
} unit_t;

static const unit_t units[] = {
    {"MILLISECOND", U_MILLISECOND, 1, false}, {"SECOND", U_SECOND, 1000, true},
    {"MINUTE", U_MINUTE, 60000, true},        {"HOUR", U_HOUR, 3600000, true},
    {"DAY", U_DAY, DAY_MS, true},             {"WEEK", U_WEEK, 7 * DAY_MS, true},
    {"MONTH", U_MONTH, 0, true},              {"QUARTER", U_QUARTER, 0, true},
    {"YEAR", U_YEAR, 0, true},                {"DOW", U_DOW, 0, false},
    {"DOY", U_DOY, 0, false},                 {"EPOCH", U_EPOCH, 0, false},
};
#define N_UNITS (sizeof(units) / sizeof(units[0]))

/* Bind args[0] (the unit word, a VARCHAR constant) to its unit in call->aux. */
static rsql_err_t bind_unit(rsql_bexpr_t *call, bool arith, rsql_error_t *err)
{
    const char *u = call->args[0]->value.v.s.p;
    for (size_t i = 0; i < N_UNITS; i++) {
        if (strcmp(units[i].name, u) == 0 && (!arith || units[i].arith)) {
            call->aux = &units[i];
            return RSQL_OK;
        }
    }
    return rsql_error_set(err, RSQL_ERR_TYPE, call->args[0]->pos,
                          "unknown time unit %s for %s (%s)", u, call->func->name,
                          arith ? "SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR"
                                : "MILLISECOND, SECOND, MINUTE, HOUR, DAY, DOW, DOY, WEEK, "
                                  "MONTH, QUARTER, YEAR, EPOCH");
}

void rsql_fn_print_unit_call(const rsql_bexpr_t *call, rsql_buf_t *out)
{
    rsql_buf_printf(out, "%s(%s, ", call->name, ((const unit_t *)call->aux)->name);
    rsql_fn_print_args(call, 1, ", ", out);
    rsql_buf_putc(out, ')');
}

void rsql_fn_print_extract(const rsql_bexpr_t *call, rsql_buf_t *out)
{
    rsql_buf_printf(out, "EXTRACT(%s FROM ", ((const unit_t *)call->aux)->name);
    rsql_bexpr_print(call->args[1], out);
    rsql_buf_putc(out, ')');
}

/*
** A DATE argument i widened to TIMESTAMP(3) at midnight (an implicit CAST,
** as Flink widens it); other types stay.
*/
static rsql_err_t widen_date(rsql_bind_t *b, rsql_bexpr_t *call, int i, rsql_error_t *err)
{
    if (call->args[i]->type != RSQL_TYPE_DATE) {
        return RSQL_OK;
    }
    rsql_bexpr_t *c = rsql_plan__cast(b->arena, call->args[i], RSQL_TYPE_TIMESTAMP, true);
    if (!c) {
        return rsql_error_nomem(err);
    }
    call->args[i] = c;
    return RSQL_OK;
}

static bool time_or_date_ok(rsql_type_t t)
{
    return rsql_fn_type_ok(t, RSQL_TYPE_TIMESTAMP) || t == RSQL_TYPE_DATE;
}

/* ---- patterns */

static const char *const month_names[] = {"January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December"};
static const char *const day_names[] = {"Thursday", "Friday", "Saturday", "Sunday",
                                        "Monday",   "Tuesday", "Wednesday"};

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The offset of the first letter f does not know or of an unclosed quote, or -1. */
static long fmt_check(const char *f, size_t n, bool reading)
{
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        if (c == '\'') {
            size_t j = i + 1;
            while (j < n && (f[j] != '\'' || (j + 1 < n && f[j + 1] == '\''))) {
                j += f[j] == '\'' ? 2 : 1; /* '' inside quotes is a quote */
            }
            if (j >= n) {
                return (long)i;
            }
            i = j;
            continue;
        }
        if (is_letter(c) && !strchr(reading ? "yMdHmsS" : "yMdHhmsSaDE", c)) {
            return (long)i;
        }
    }
    return -1;
}

static void put_num(rsql_buf_t *b, int64_t v, int width)
{
    if (v < 0) {
        rsql_buf_putc(b, '-');
        v = -v;
    }
    rsql_buf_printf(b, "%0*lld", width, (long long)v);
}

static void format_ts(int64_t ms, const char *f, size_t n, rsql_buf_t *b)
{
    civil_t c = civil_from_ms(ms);
    for (size_t i = 0; i < n;) {
        char ch = f[i];
        size_t run = 1;
        while (i + run < n && f[i + run] == ch) {
            run++;
        }
        if (ch == '\'') {
            if (run >= 2) { /* '' is a quote */
                for (size_t k = 0; k < run / 2; k++) {
                    rsql_buf_putc(b, '\'');
                }
                i += run - run % 2;
                continue;
            }
            size_t j = i + 1;
            while (j < n && (f[j] != '\'' || (j + 1 < n && f[j + 1] == '\''))) {
                rsql_buf_putc(b, f[j]);
                j += f[j] == '\'' ? 2 : 1; /* '' inside quotes is a quote */
            }
            i = j + 1;
            continue;
        }
        int w = (int)run;
        switch (ch) {
        case 'y': put_num(b, run == 2 ? ((c.y % 100) + 100) % 100 : c.y, run == 2 ? 2 : w); break;
        case 'M':
            if (run >= 4) {
                rsql_buf_puts(b, month_names[c.m - 1]);
            } else if (run == 3) {
                rsql_buf_printf(b, "%.3s", month_names[c.m - 1]);
            } else {
                put_num(b, c.m, w);
            }
            break;
        case 'd': put_num(b, c.d, w); break;
        case 'H': put_num(b, c.hh, w); break;
        case 'h': put_num(b, c.hh % 12 == 0 ? 12 : c.hh % 12, w); break;
        case 'm': put_num(b, c.mi, w); break;
        case 's': put_num(b, c.ss, w); break;
        case 'S': { /* the milliseconds as a fraction of w digits */
            char frac[4];
            snprintf(frac, sizeof(frac), "%03d", c.ms);
            for (size_t k = 0; k < run; k++) {
                rsql_buf_putc(b, k < 3 ? frac[k] : '0');
            }
            break;
        }
        case 'a': rsql_buf_puts(b, c.hh < 12 ? "AM" : "PM"); break;
        case 'D':
            put_num(b, days_from_civil(c.y, c.m, c.d) - days_from_civil(c.y, 1, 1) + 1, w);
            break;
        case 'E': {
            int64_t dn = fdiv(ms, DAY_MS) % 7;
            const char *name = day_names[dn < 0 ? dn + 7 : dn];
            if (run >= 4) {
                rsql_buf_puts(b, name);
            } else {
                rsql_buf_printf(b, "%.3s", name);
            }
            break;
        }
        default:
            for (size_t k = 0; k < run; k++) {
                rsql_buf_putc(b, ch);
            }
        }
        i += run;
    }
}

/* Read s with pattern f into *ms; false when s does not fit. */
static bool parse_ts(const char *s, size_t sn, const char *f, size_t fn, int64_t *ms)
{
    int64_t y = 1970;
    int mo = 1, d = 1, hh = 0, mi = 0, ss = 0, msec = 0;
    size_t i = 0, p = 0;
    while (i < fn) {
        char ch = f[i];
        size_t run = 1;
        while (i + run < fn && f[i + run] == ch) {
            run++;
        }
        if (ch == '\'') {
            size_t j = i + 1;
            if (run >= 2) {
                for (size_t k = 0; k < run / 2; k++, p++) {
                    if (p >= sn || s[p] != '\'') {
                        return false;
                    }
                }
                i += run - run % 2;
                continue;
            }
            while (j < fn && (f[j] != '\'' || (j + 1 < fn && f[j + 1] == '\''))) {
                if (p >= sn || s[p++] != f[j]) {
                    return false;
                }
                j += f[j] == '\'' ? 2 : 1; /* '' inside quotes is a quote */
            }
            i = j + 1;
            continue;
        }
        if (!is_letter(ch)) {
            for (size_t k = 0; k < run; k++, p++) {
                if (p >= sn || s[p] != ch) {
                    return false;
                }
            }
            i += run;
            continue;
        }
        /* a number: exactly run digits when the next pattern item is a number too (yyyyMMdd),
           else 1 to 9 digits */
        bool adjacent = i + run < fn && is_letter(f[i + run]);
        size_t maxd = adjacent || ch == 'S' ? run : 9, k = 0;
        int64_t v = 0;
        while (k < maxd && p < sn && s[p] >= '0' && s[p] <= '9') {
            v = v * 10 + (s[p++] - '0');
            k++;
        }
        if (k == 0 || (adjacent && k != run)) {
            return false;
        }
        switch (ch) {
        case 'y': y = run == 2 && k == 2 ? 2000 + v : v; break;
        case 'M': mo = (int)v; break;
        case 'd': d = (int)v; break;
        case 'H': hh = (int)v; break;
        case 'm': mi = (int)v; break;
        case 's': ss = (int)v; break;
        case 'S': /* a fraction of k digits, cut to milliseconds */
            while (k > 3) {
                v /= 10;
                k--;
            }
            msec = (int)(k == 1 ? v * 100 : k == 2 ? v * 10 : v);
            break;
        }
        i += run;
    }
    if (p != sn || y > 999999 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) ||
        hh > 23 || mi > 59 || ss > 59) {
        return false;
    }
    *ms = (days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 + ss) * 1000 + msec;
    return true;
}

static const char default_fmt[] = "yyyy-MM-dd HH:mm:ss";

/* Check a literal pattern argument at plan time. */
static rsql_err_t bind_fmt(const rsql_bexpr_t *call, int i, bool reading, rsql_error_t *err)
{
    if (i >= call->n_args) {
        return RSQL_OK;
    }
    const rsql_bexpr_t *f = call->args[i];
    if (!rsql_fn_type_ok(f->type, RSQL_TYPE_VARCHAR)) {
        return rsql_fn_arg_error(call, i, "VARCHAR", err);
    }
    long bad = f->kind == RSQL_BX_CONST && !f->value.is_null
                   ? fmt_check(f->value.v.s.p, f->value.v.s.len, reading)
                   : -1;
    if (bad >= 0) {
        return rsql_error_set(err, RSQL_ERR_TYPE, f->pos,
                              "invalid date/time pattern: '%c' at offset %ld",
                              f->value.v.s.p[bad], bad);
    }
    return RSQL_OK;
}

static rsql_err_t eval_fmt_check(const rsql_bexpr_t *call, const rsql_value_t *f, bool reading,
                                 rsql_error_t *err)
{
    long bad = fmt_check(f->v.s.p, f->v.s.len, reading);
    if (bad >= 0) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos,
                              "invalid date/time pattern: '%c' at offset %ld", f->v.s.p[bad],
                              bad);
    }
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_date_format(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                    rsql_error_t *err)
{
    (void)ast;
    rsql_type_t t = call->args[0]->type;
    if (t != RSQL_TYPE_TIMESTAMP && t != RSQL_TYPE_VARCHAR && t != RSQL_TYPE_NULL &&
        t != RSQL_TYPE_DATE) {
        return rsql_fn_arg_error(call, 0, "TIMESTAMP, DATE or VARCHAR", err);
    }
    call->type = RSQL_TYPE_VARCHAR;
    if (widen_date(b, call, 0, err)) {
        return err ? err->code : RSQL_ERR_NOMEM;
    }
    return bind_fmt(call, 1, false, err);
}

rsql_err_t rsql_fn_eval_date_format(const rsql_bexpr_t *call, const rsql_value_t *args,
                                    rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    int64_t ms = args[0].v.ts;
    if (call->args[0]->type == RSQL_TYPE_VARCHAR &&
        rsql_value_parse_timestamp(args[0].v.s.p, args[0].v.s.len, &ms, NULL)) {
        out->is_null = true; /* not a timestamp text */
        return RSQL_OK;
    }
    rsql_err_t rc = eval_fmt_check(call, &args[1], false, err);
    if (rc) {
        return rc;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    format_ts(ms, args[1].v.s.p, args[1].v.s.len, &b);
    rc = rsql_fn_out_buf(ctx, &b, out, err);
    rsql_buf_deinit(&b);
    return rc;
}

static rsql_err_t bind_parse(rsql_bexpr_t *call, rsql_type_t result, rsql_error_t *err)
{
    if (call->n_args > 0 && !rsql_fn_type_ok(call->args[0]->type, RSQL_TYPE_VARCHAR)) {
        return rsql_fn_arg_error(call, 0, "VARCHAR", err);
    }
    call->type = result;
    return bind_fmt(call, 1, true, err);
}

rsql_err_t rsql_fn_bind_to_timestamp(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                     rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_parse(call, RSQL_TYPE_TIMESTAMP, err);
}

/* args[0] read with args[1] (or the default pattern) into *ms; *ok false when it does not fit. */
static rsql_err_t eval_parse(const rsql_bexpr_t *call, const rsql_value_t *args, int64_t *ms,
                             bool *ok, rsql_error_t *err)
{
    const char *f = default_fmt;
    size_t fn = sizeof(default_fmt) - 1;
    if (call->n_args > 1) {
        rsql_err_t rc = eval_fmt_check(call, &args[1], true, err);
        if (rc) {
            return rc;
        }
        f = args[1].v.s.p;
        fn = args[1].v.s.len;
    }
    *ok = parse_ts(args[0].v.s.p, args[0].v.s.len, f, fn, ms);
    return RSQL_OK;
}

rsql_err_t rsql_fn_eval_to_timestamp(const rsql_bexpr_t *call, const rsql_value_t *args,
                                     rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    bool ok = false;
    rsql_err_t rc = eval_parse(call, args, &out->v.ts, &ok, err);
    out->is_null = !ok;
    return rc;
}

rsql_err_t rsql_fn_bind_unix_timestamp(rsql_bind_t *b, rsql_bexpr_t *call,
                                       const rsql_expr_t *ast, rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_parse(call, RSQL_TYPE_BIGINT, err);
}

rsql_err_t rsql_fn_eval_unix_timestamp(const rsql_bexpr_t *call, const rsql_value_t *args,
                                       rsql_eval_ctx_t *ctx, rsql_value_t *out,
                                       rsql_error_t *err)
{
    if (call->n_args == 0) {
        if (ctx->now_ms == 0) {
            ctx->now_ms = rsql_wall_ms();
        }
        out->v.i = fdiv(ctx->now_ms, 1000);
        return RSQL_OK;
    }
    int64_t ms = 0;
    bool ok = false;
    rsql_err_t rc = eval_parse(call, args, &ms, &ok, err);
    out->is_null = !ok;
    out->v.i = fdiv(ms, 1000);
    return rc;
}

rsql_err_t rsql_fn_bind_from_unixtime(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                      rsql_error_t *err)
{
    (void)b;
    (void)ast;
    if (!rsql_fn_int_ok(call->args[0]->type)) {
        return rsql_fn_arg_error(call, 0, "an integer", err);
    }
    call->type = RSQL_TYPE_VARCHAR;
    return bind_fmt(call, 1, false, err);
}

rsql_err_t rsql_fn_eval_from_unixtime(const rsql_bexpr_t *call, const rsql_value_t *args,
                                      rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    int64_t s = args[0].v.i;
    if (s > INT64_MAX / 1000 || s < INT64_MIN / 1000) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "out of range for TIMESTAMP(3)");
    }
    rsql_value_t f = {.type = RSQL_TYPE_VARCHAR, .v.s = {default_fmt, sizeof(default_fmt) - 1}};
    if (call->n_args > 1) {
        f = args[1];
    }
    rsql_err_t rc = eval_fmt_check(call, &f, false, err);
    if (rc) {
        return rc;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    format_ts(s * 1000, f.v.s.p, f.v.s.len, &b);
    rc = rsql_fn_out_buf(ctx, &b, out, err);
    rsql_buf_deinit(&b);
    return rc;
}

/* ---- TIMESTAMPADD, TIMESTAMPDIFF, EXTRACT */

rsql_err_t rsql_fn_bind_timestampadd(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                     rsql_error_t *err)
{
    (void)ast;
    if (!rsql_fn_int_ok(call->args[1]->type)) {
        return rsql_fn_arg_error(call, 1, "an integer", err);
    }
    if (!time_or_date_ok(call->args[2]->type)) {
        return rsql_fn_arg_error(call, 2, "TIMESTAMP(3) or DATE", err);
    }
    call->type = RSQL_TYPE_TIMESTAMP;
    rsql_err_t rc = bind_unit(call, true, err);
    if (rc || call->args[2]->type != RSQL_TYPE_DATE) {
        return rc;
    }
    /* a DATE plus days, weeks, months, quarters or years stays a DATE; finer units widen it */
    if (((const unit_t *)call->aux)->id >= U_DAY) {
        call->type = RSQL_TYPE_DATE;
        return RSQL_OK;
    }
    return widen_date(b, call, 2, err);
}

rsql_err_t rsql_fn_eval_timestampadd(const rsql_bexpr_t *call, const rsql_value_t *args,
                                     rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    const unit_t *u = call->aux;
    bool date = call->type == RSQL_TYPE_DATE; /* days in, days out: midnight stays midnight */
    int64_t n = args[1].v.i, ts = date ? args[2].v.i * DAY_MS : args[2].v.ts, r;
    if (date && u->ms) {
        if (__builtin_mul_overflow(n, u->ms / DAY_MS, &r) ||
            __builtin_add_overflow(args[2].v.i, r, &r) ||
            __builtin_mul_overflow(r, DAY_MS, &ts)) {
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "out of range for DATE");
        }
        out->v.i = r;
        return RSQL_OK;
    }
    if (u->ms) {
        if (__builtin_mul_overflow(n, u->ms, &r) || __builtin_add_overflow(ts, r, &r)) {
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "out of range for TIMESTAMP(3)");
        }
    } else {
        int64_t months = u->id == U_MONTH ? n : u->id == U_QUARTER ? n * 3 : n * 12;
        if (n > 1200000 || n < -1200000) {
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "out of range for %s",
                                  date ? "DATE" : "TIMESTAMP(3)");
        }
        civil_t c = civil_from_ms(ts);
        int64_t m0 = c.y * 12 + (c.m - 1) + months;
        int64_t y = fdiv(m0, 12);
        int m = (int)(m0 - y * 12) + 1;
        int d = c.d > month_days(y, m) ? month_days(y, m) : c.d;
        if (__builtin_mul_overflow(days_from_civil(y, m, d), DAY_MS, &r) ||
            __builtin_add_overflow(r, time_of_day(ts), &r)) {
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "out of range for %s",
                                  date ? "DATE" : "TIMESTAMP(3)");
        }
    }
    if (date) {
        out->v.i = fdiv(r, DAY_MS);
        return RSQL_OK;
    }
    out->v.ts = r;
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_timestampdiff(rsql_bind_t *b, rsql_bexpr_t *call,
                                      const rsql_expr_t *ast, rsql_error_t *err)
{
    (void)ast;
    for (int i = 1; i < 3; i++) {
        if (!time_or_date_ok(call->args[i]->type)) {
            return rsql_fn_arg_error(call, i, "TIMESTAMP(3) or DATE", err);
        }
        if (widen_date(b, call, i, err)) {
            return err ? err->code : RSQL_ERR_NOMEM;
        }
    }
    call->type = RSQL_TYPE_INT;
    return bind_unit(call, true, err);
}

rsql_err_t rsql_fn_eval_timestampdiff(const rsql_bexpr_t *call, const rsql_value_t *args,
                                      rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    const unit_t *u = call->aux;
    int64_t a = args[1].v.ts, b = args[2].v.ts, r;
    if (u->ms) {
        int64_t diff;
        if (__builtin_sub_overflow(b, a, &diff)) {
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "integer overflow");
        }
        r = diff / u->ms;
    } else {
        civil_t ca = civil_from_ms(a), cb = civil_from_ms(b);
        int64_t months = (cb.y * 12 + cb.m) - (ca.y * 12 + ca.m);
        /* a month is whole when b's day and time of the month reach a's */
        int64_t ra = (fdiv(a, DAY_MS) - days_from_civil(ca.y, ca.m, 1)) * DAY_MS + time_of_day(a);
        int64_t rb = (fdiv(b, DAY_MS) - days_from_civil(cb.y, cb.m, 1)) * DAY_MS + time_of_day(b);
        if (months > 0 && rb < ra) {
            months--;
        } else if (months < 0 && rb > ra) {
            months++;
        }
        r = u->id == U_MONTH ? months : u->id == U_QUARTER ? months / 3 : months / 12;
    }
    if (r > INT32_MAX || r < INT32_MIN) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "integer overflow");
    }
    out->v.i = r;
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_extract(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                rsql_error_t *err)
{
    (void)ast;
    if (!time_or_date_ok(call->args[1]->type)) {
        return rsql_fn_arg_error(call, 1, "TIMESTAMP(3) or DATE", err);
    }
    call->type = RSQL_TYPE_BIGINT;
    rsql_err_t rc = bind_unit(call, false, err);
    if (rc || call->args[1]->type != RSQL_TYPE_DATE) {
        return rc;
    }
    const unit_t *u = call->aux;
    if (u->id < U_DAY) { /* as Flink (Calcite): a DATE has no time of day */
        return rsql_error_set(err, RSQL_ERR_TYPE, call->args[0]->pos,
                              "cannot EXTRACT %s from a DATE", u->name);
    }
    return widen_date(b, call, 1, err);
}

rsql_err_t rsql_fn_eval_extract(const rsql_bexpr_t *call, const rsql_value_t *args,
                                rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    (void)err;
    const unit_t *u = call->aux;
    int64_t ts = args[1].v.ts, days = fdiv(ts, DAY_MS);
    civil_t c = civil_from_ms(ts);
    int64_t doy = days - days_from_civil(c.y, 1, 1) + 1;
    int64_t dow = (days + 4) % 7; /* 0 = Sunday (1970-01-01 was a Thursday) */
    dow = dow < 0 ? dow + 7 : dow;
    switch (u->id) {
    case U_MILLISECOND: out->v.i = c.ms; break;
    case U_SECOND: out->v.i = c.ss; break;
    case U_MINUTE: out->v.i = c.mi; break;
    case U_HOUR: out->v.i = c.hh; break;
    case U_DAY: out->v.i = c.d; break;
    case U_MONTH: out->v.i = c.m; break;
    case U_QUARTER: out->v.i = (c.m - 1) / 3 + 1; break;
    case U_YEAR: out->v.i = c.y; break;
    case U_DOW: out->v.i = dow + 1; break; /* 1 = Sunday ... 7 = Saturday */
    case U_DOY: out->v.i = doy; break;
    case U_EPOCH: out->v.i = fdiv(ts, 1000); break;
    case U_WEEK: { /* ISO 8601: weeks start on Monday; week 1 holds the year's first Thursday */
        int64_t iso_dow = dow == 0 ? 7 : dow; /* 1 = Monday */
        int64_t thursday = days - iso_dow + 4;
        civil_t ct = civil_from_days(thursday);
        out->v.i = (thursday - days_from_civil(ct.y, 1, 1)) / 7 + 1;
        break;
    }
    }
    return RSQL_OK;
}
