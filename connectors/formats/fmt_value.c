/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Text <-> value conversions shared by the formats (csv, json) and the
 * print sink: booleans, range-checked integers, doubles that read back
 * exactly, ISO-8601 timestamps (UTC, milliseconds, no time-zone database:
 * civil-date arithmetic), and base64 for BYTES.
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- civil dates (H. Hinnant's algorithms; proleptic Gregorian) */

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

/* Read exactly k digits at s[*i]; false if not digits. */
static bool digits(const char *s, size_t n, size_t *i, int k, int *out)
{
    int v = 0;
    for (int j = 0; j < k; j++) {
        if (*i >= n || s[*i] < '0' || s[*i] > '9') {
            return false;
        }
        v = v * 10 + (s[*i] - '0');
        (*i)++;
    }
    *out = v;
    return true;
}

/*
** Parse "YYYY-MM-DD", optionally followed by 'T' or ' ' and
** "HH:MM[:SS[.fraction]]" and a zone "Z", "+HH", "+HH:MM" or "+HHMM".
*/
bool rsql_fmt_parse_timestamp(const char *s, size_t n, int64_t *ms)
{
    size_t i = 0;
    int y, mo, d, h = 0, mi = 0, sec = 0, frac_ms = 0, off_min = 0;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) {
        n--;
    }
    while (i < n && (s[i] == ' ' || s[i] == '\t')) {
        i++;
    }
    if (!digits(s, n, &i, 4, &y) || i >= n || s[i++] != '-' || !digits(s, n, &i, 2, &mo) ||
        i >= n || s[i++] != '-' || !digits(s, n, &i, 2, &d)) {
        return false;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo)) {
        return false;
    }
    if (i < n) {
        if (s[i] != 'T' && s[i] != 't' && s[i] != ' ') {
            return false;
        }
        i++;
        if (!digits(s, n, &i, 2, &h) || i >= n || s[i++] != ':' || !digits(s, n, &i, 2, &mi)) {
            return false;
        }
        if (i < n && s[i] == ':') {
            i++;
            if (!digits(s, n, &i, 2, &sec)) {
                return false;
            }
            if (i < n && (s[i] == '.' || s[i] == ',')) {
                int k = 0;
                i++;
                while (i < n && s[i] >= '0' && s[i] <= '9') {
                    if (k < 3) {
                        frac_ms = frac_ms * 10 + (s[i] - '0');
                    }
                    k++;
                    i++;
                }
                if (k == 0) {
                    return false;
                }
                for (; k < 3; k++) {
                    frac_ms *= 10;
                }
            }
        }
        if (h > 23 || mi > 59 || sec > 60) {
            return false;
        }
        if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
            i++;
        } else if (i < n && (s[i] == '+' || s[i] == '-')) {
            int sign = s[i++] == '-' ? -1 : 1, oh, om = 0;
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
            off_min = sign * (oh * 60 + om);
        }
        if (i != n) {
            return false;
        }
    }
    int64_t days = days_from_civil(y, mo, d);
    *ms = ((days * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + sec) - (int64_t)off_min * 60) *
              1000 +
          frac_ms;
    return true;
}

/*
** Append the text of timestamp ms (UTC) to out.
*/
void rsql_fmt_timestamp(int64_t ms, bool iso, rsql_buf_t *out)
{
    int64_t days = ms / 86400000, rem = ms % 86400000, y;
    int m, d;
    if (rem < 0) {
        rem += 86400000;
        days--;
    }
    civil_from_days(days, &y, &m, &d);
    rsql_buf_printf(out, "%04" PRId64 "-%02d-%02d%c%02d:%02d:%02d.%03d%s", y, m, d,
                    iso ? 'T' : ' ', (int)(rem / 3600000), (int)(rem / 60000 % 60),
                    (int)(rem / 1000 % 60), (int)(rem % 1000), iso ? "Z" : "");
}

/* ---- base64 */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*
** Append the base64 text of p (n bytes) to out.
*/
void rsql_fmt_base64_encode(const uint8_t *p, size_t n, rsql_buf_t *out)
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
** Decode base64 text s (padding optional, url-safe alphabet accepted) into
** bytes in arena. False on a bad character or length, or out of memory.
*/
bool rsql_fmt_base64_decode(const char *s, size_t n, rsql_arena_t *arena, const uint8_t **out,
                            size_t *out_len)
{
    while (n > 0 && s[n - 1] == '=') {
        n--;
    }
    if (n % 4 == 1) {
        return false;
    }
    uint8_t *o = rsql_arena_alloc(arena, n / 4 * 3 + 3);
    size_t k = 0;
    uint32_t acc = 0;
    int bits = 0;
    if (!o) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        int v = b64_val(s[i]);
        if (v < 0) {
            return false;
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
    return true;
}

/* ---- numbers */

/*
** Append the shortest text of d that reads back to d.
*/
void rsql_fmt_double(double d, rsql_buf_t *out)
{
    char buf[40];
    if (isnan(d)) {
        rsql_buf_puts(out, "NaN");
        return;
    }
    if (isinf(d)) {
        rsql_buf_puts(out, d < 0 ? "-Infinity" : "Infinity");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (prec == 17 || strtod(buf, NULL) == d) {
            break;
        }
    }
    rsql_buf_puts(out, buf);
}

/* Copy s (n bytes, trimmed of blanks) into buf as a C string; false if too long or empty. */
static bool trimmed(const char *s, size_t n, char *buf, size_t size)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) {
        n--;
    }
    if (n == 0 || n >= size || memchr(s, '\0', n)) {
        return false;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

static rsql_err_t why_set(char *why, size_t size, const char *msg)
{
    snprintf(why, size, "%s", msg);
    return RSQL_ERR_DECODE;
}

/*
** Parse text s as a value of type t (see rsql_format.h).
*/
rsql_err_t rsql_fmt_parse_text(rsql_type_t t, const char *s, size_t n, rsql_arena_t *arena,
                               rsql_value_t *out, char *why, size_t why_size)
{
    char buf[64], *end;
    memset(out, 0, sizeof *out);
    out->type = t;
    switch (t) {
    case RSQL_TYPE_NULL:
        out->is_null = true;
        return RSQL_OK;
    case RSQL_TYPE_VARCHAR: {
        char *p = rsql_arena_strndup(arena, s, n);
        if (!p) {
            return why_set(why, why_size, "out of memory");
        }
        out->v.s.p = p;
        out->v.s.len = n;
        return RSQL_OK;
    }
    case RSQL_TYPE_BYTES: {
        const uint8_t *p;
        size_t len;
        if (!rsql_fmt_base64_decode(s, n, arena, &p, &len)) {
            return why_set(why, why_size, "invalid base64");
        }
        out->v.s.p = (const char *)p;
        out->v.s.len = len;
        return RSQL_OK;
    }
    case RSQL_TYPE_BOOLEAN:
        if (trimmed(s, n, buf, sizeof buf) &&
            (strcasecmp(buf, "true") == 0 || strcasecmp(buf, "false") == 0)) {
            out->v.b = buf[0] == 't' || buf[0] == 'T';
            return RSQL_OK;
        }
        return why_set(why, why_size, "not a boolean");
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: {
        long long v;
        if (!trimmed(s, n, buf, sizeof buf)) {
            return why_set(why, why_size, "not an integer");
        }
        errno = 0;
        v = strtoll(buf, &end, 10);
        if (*end != '\0' || end == buf) {
            return why_set(why, why_size, "not an integer");
        }
        if (errno == ERANGE || (t == RSQL_TYPE_INT && (v < INT32_MIN || v > INT32_MAX))) {
            snprintf(why, why_size, "out of range for %s", rsql_type_name(t));
            return RSQL_ERR_DECODE;
        }
        out->v.i = v;
        return RSQL_OK;
    }
    case RSQL_TYPE_DOUBLE:
        if (!trimmed(s, n, buf, sizeof buf)) {
            return why_set(why, why_size, "not a number");
        }
        out->v.d = strtod(buf, &end);
        if (*end != '\0' || end == buf || strpbrk(buf, "xX")) {
            return why_set(why, why_size, "not a number");
        }
        return RSQL_OK;
    case RSQL_TYPE_TIMESTAMP: {
        long long v;
        if (!trimmed(s, n, buf, sizeof buf)) {
            return why_set(why, why_size, "not a timestamp");
        }
        if (rsql_fmt_parse_timestamp(buf, strlen(buf), &out->v.ts)) {
            return RSQL_OK;
        }
        errno = 0;
        v = strtoll(buf, &end, 10);
        if (*end == '\0' && end != buf && errno == 0) {
            out->v.ts = v;
            return RSQL_OK;
        }
        return why_set(why, why_size, "not a timestamp");
    }
    }
    return why_set(why, why_size, "unknown type");
}

/*
** Append the text form of v to out (NULL appends nothing).
*/
void rsql_fmt_value_text(const rsql_value_t *v, rsql_buf_t *out)
{
    if (v->is_null) {
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_NULL: break;
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(out, v->v.b ? "true" : "false"); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_printf(out, "%" PRId64, v->v.i); break;
    case RSQL_TYPE_DOUBLE: rsql_fmt_double(v->v.d, out); break;
    case RSQL_TYPE_VARCHAR: rsql_buf_append(out, v->v.s.p, v->v.s.len); break;
    case RSQL_TYPE_BYTES:
        rsql_fmt_base64_encode((const uint8_t *)v->v.s.p, v->v.s.len, out);
        break;
    case RSQL_TYPE_TIMESTAMP: rsql_fmt_timestamp(v->v.ts, false, out); break;
    }
}
