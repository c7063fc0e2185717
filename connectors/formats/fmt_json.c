/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The json format: one JSON object per body, keys = column names.
 *
 * Decoding is a strict RFC 8259 scanner that writes values straight into
 * the row (strings into the caller's arena), not cJSON: cJSON keeps numbers
 * as doubles (a BIGINT above 2^53 would silently change), allocates a node
 * per value, and reports error positions through a global. This scanner
 * keeps every integer exact, allocates nothing per row outside the arena,
 * and says where the text is wrong ("invalid JSON at byte 17: ..."; bytes
 * count from 0).
 *
 * Rules: unknown keys are skipped (their values still validated), and so
 * are the columns and ROW fields a statement does not read once the decoder
 * was told what it reads (rsql_decoder_prune/use: no value is built for
 * them, and a wrong type there is not an error); a missing
 * key is NULL unless json.fail-on-missing-field; null is NULL for any
 * column; keys match column names exactly, else case-insensitively; the
 * last of duplicate keys wins. Types: BOOLEAN true/false; INT/BIGINT an
 * integer literal in range; DOUBLE any number in range (or a string "NaN",
 * "Infinity", "-Infinity"); TIMESTAMP a string in any TIMESTAMP text form or
 * an integer number of epoch milliseconds; BYTES a base64 string; VARCHAR a
 * string, or the JSON text of any other value (as Flink does). Anything else
 * is "field 'x': expected T, got ...". The text forms are base/rsql_value's.
 *
 * Encoding writes {"col":value,...} in column order with NULL as null and
 * every other value in its canonical text (rsql_value.h): timestamps as
 * strings "YYYY-MM-DD HH:MM:SS.mmm" ("YYYY-MM-DDTHH:MM:SS.mmmZ" with
 * json.timestamp-format = iso-8601, epoch-millis numbers with epoch-millis;
 * reading accepts every form always), bytes
 * as base64 strings, non-finite doubles as strings.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

rsql_err_t jp_fail(jp_t *p, size_t at, const char *why)
{
    return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS, "invalid JSON at byte %zu: %s", at,
                          why);
}

rsql_err_t jp_unexpected(jp_t *p)
{
    char why[48];
    if (p->i >= p->n) {
        return jp_fail(p, p->i, "unexpected end of input");
    }
    unsigned char c = (unsigned char)p->s[p->i];
    if (c >= 0x20 && c < 0x7f) {
        snprintf(why, sizeof why, "unexpected character '%c'", c);
    } else {
        snprintf(why, sizeof why, "unexpected byte 0x%02x", c);
    }
    return jp_fail(p, p->i, why);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

static bool hex4(jp_t *p, size_t at, uint32_t *out)
{
    uint32_t v = 0;
    if (at + 4 > p->n) {
        return false;
    }
    for (int k = 0; k < 4; k++) {
        int h = hexval(p->s[at + (size_t)k]);
        if (h < 0) {
            return false;
        }
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return true;
}

static void put_utf8(rsql_buf_t *b, uint32_t cp)
{
    char u[4];
    if (cp < 0x80) {
        u[0] = (char)cp;
        rsql_buf_append(b, u, 1);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        rsql_buf_append(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        rsql_buf_append(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | cp >> 18);
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        rsql_buf_append(b, u, 4);
    }
}

/*
** Scan the string at p->i (on its opening quote). When out is given, the
** unescaped text is written there (reset first); *raw and *raw_len give the
** span between the quotes, *escaped whether it holds escapes.
*/
rsql_err_t jp_string(jp_t *p, rsql_buf_t *out, const char **raw, size_t *raw_len,
                            bool *escaped)
{
    size_t start = ++p->i;
    bool esc = false;
    if (out) {
        rsql_buf_reset(out);
    }
    for (;;) {
        size_t run = p->i;
        p->i = jp_plain_end(p->s, p->i, p->n);
        if (out && p->i > run) {
            rsql_buf_append(out, p->s + run, p->i - run);
        }
        if (p->i >= p->n) {
            return jp_fail(p, p->i, "unterminated string");
        }
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == '"') {
            break;
        }
        if (c < 0x20) {
            return jp_fail(p, p->i, "control character in string");
        }
        /* backslash */
        esc = true;
        size_t at = p->i;
        if (p->i + 1 >= p->n) {
            return jp_fail(p, at, "unterminated string");
        }
        char e = p->s[p->i + 1];
        char simple = 0;
        switch (e) {
        case '"': simple = '"'; break;
        case '\\': simple = '\\'; break;
        case '/': simple = '/'; break;
        case 'b': simple = '\b'; break;
        case 'f': simple = '\f'; break;
        case 'n': simple = '\n'; break;
        case 'r': simple = '\r'; break;
        case 't': simple = '\t'; break;
        case 'u': break;
        default: return jp_fail(p, at, "invalid escape in string");
        }
        if (simple) {
            if (out) {
                rsql_buf_append(out, &simple, 1);
            }
            p->i += 2;
            continue;
        }
        uint32_t cp, lo;
        if (!hex4(p, at + 2, &cp)) {
            return jp_fail(p, at, "invalid \\u escape in string");
        }
        p->i = at + 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (p->i + 6 > p->n || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u' ||
                !hex4(p, p->i + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                return jp_fail(p, at, "invalid \\u escape in string (unpaired surrogate)");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p->i += 6;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return jp_fail(p, at, "invalid \\u escape in string (unpaired surrogate)");
        }
        if (out) {
            put_utf8(out, cp);
        }
    }
    if (raw) {
        *raw = p->s + start;
        *raw_len = p->i - start;
    }
    if (escaped) {
        *escaped = esc;
    }
    p->i++; /* closing quote */
    return RSQL_OK;
}

/* Scan a number at p->i; *is_int when it has no fraction or exponent. */
rsql_err_t jp_number(jp_t *p, bool *is_int)
{
    size_t at = p->i;
    *is_int = true;
    if (p->i < p->n && p->s[p->i] == '-') {
        p->i++;
    }
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
        return jp_fail(p, at, "invalid number");
    }
    if (p->s[p->i] == '0') {
        p->i++;
    } else {
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
            p->i++;
        }
    }
    if (p->i < p->n && p->s[p->i] == '.') {
        *is_int = false;
        p->i++;
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
            return jp_fail(p, at, "invalid number");
        }
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
            p->i++;
        }
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        *is_int = false;
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) {
            p->i++;
        }
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
            return jp_fail(p, at, "invalid number");
        }
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
            p->i++;
        }
    }
    return RSQL_OK;
}

bool jp_word(jp_t *p, const char *w)
{
    size_t k = strlen(w);
    if (p->i + k <= p->n && memcmp(p->s + p->i, w, k) == 0) {
        p->i += k;
        return true;
    }
    return false;
}

/* Validate and skip any value at p->i (after whitespace). */
rsql_err_t jp_skip(jp_t *p, int depth)
{
    bool is_int;
    if (p->i >= p->n) {
        return jp_unexpected(p);
    }
    switch (p->s[p->i]) {
    case '"': {
        const char *raw;
        size_t n;
        return jp_string_plain(p, &raw, &n) ? RSQL_OK : jp_string(p, NULL, NULL, NULL, NULL);
    }
    case 't': return jp_word(p, "true") ? RSQL_OK : jp_unexpected(p);
    case 'f': return jp_word(p, "false") ? RSQL_OK : jp_unexpected(p);
    case 'n': return jp_word(p, "null") ? RSQL_OK : jp_unexpected(p);
    case '{':
    case '[': {
        char close = p->s[p->i] == '{' ? '}' : ']';
        if (depth >= JSON_MAX_DEPTH) {
            return jp_fail(p, p->i, "nesting deeper than 64 levels");
        }
        p->i++;
        jp_ws(p);
        if (p->i < p->n && p->s[p->i] == close) {
            p->i++;
            return RSQL_OK;
        }
        for (;;) {
            jp_ws(p);
            if (close == '}') {
                if (p->i >= p->n || p->s[p->i] != '"') {
                    return p->i >= p->n ? jp_unexpected(p)
                                        : jp_fail(p, p->i, "expected a string key");
                }
                if (jp_string(p, NULL, NULL, NULL, NULL) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                jp_ws(p);
                if (p->i >= p->n || p->s[p->i] != ':') {
                    return p->i >= p->n ? jp_unexpected(p)
                                        : jp_fail(p, p->i, "expected ':' after an object key");
                }
                p->i++;
                jp_ws(p);
            }
            if (jp_skip(p, depth + 1) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            jp_ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->s[p->i] == close) {
                p->i++;
                return RSQL_OK;
            }
            return p->i >= p->n ? jp_unexpected(p)
                                : jp_fail(p, p->i,
                                          close == '}' ? "expected ',' or '}' in an object"
                                                       : "expected ',' or ']' in an array");
        }
    }
    default:
        if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9')) {
            return jp_number(p, &is_int);
        }
        return jp_unexpected(p);
    }
}

/* ---- one field into a value */

static rsql_err_t type_error_at(jp_t *p, const char *name, const char *type, const char *got)
{
    return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS, "field '%s': expected %s, got %s",
                          name, type, got);
}
#define type_error(p, c, col, got) type_error_at(p, name, rsql_type_name(t), got)


static rsql_err_t json_field(rsql_decoder_t *dec, jp_t *p, int col, rsql_arena_t *arena,
                             rsql_value_t *v)
{
    const fmt_conf_t *c = &dec->c;
    rsql_type_t t = c->types[col];
    if (t == RSQL_TYPE_DECIMAL || t == RSQL_TYPE_DATE || rsql_type_is_nested(t)) {
        const rsql_tdesc_t *d = rsql_tdesc_of(t, c->descs[col]);
        if (!d) { /* a nested column without its descriptor: skipped, NULL */
            memset(v, 0, sizeof *v);
            v->type = t;
            v->is_null = true;
            return jp_skip(p, 1);
        }
        return json_typed(dec, p, d, c->needs ? &c->needs[col] : NULL, c->names[col], arena, v,
                          1);
    }
    return json_scalar(dec, p, t, c->names[col], arena, v);
}

/*
** The fast paths of the two commonest numbers, scanned and converted in one
** pass: [-]digits with no fraction or exponent and at most 18 digits (an
** integer column), and [-]digits[.digits] with at most 15 digits (a DOUBLE
** column, rsql_value_double_exact). Each returns true with p->i past the
** number and *out set; false with p unchanged for anything else (a leading
** zero before a digit, an exponent, more digits, out of range), which the
** general path scans and reports as before.
*/
static bool jp_int_fast(jp_t *p, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = p->s;
    size_t i = p->i, n = p->n, d0;
    bool neg = i < n && s[i] == '-';
    uint64_t m = 0;
    i += neg;
    for (d0 = i; i < n && i - d0 < 19 && s[i] >= '0' && s[i] <= '9'; i++) {
        m = m * 10 + (uint64_t)(s[i] - '0');
    }
    size_t nd = i - d0;
    if (nd == 0 || nd > 18 || (s[d0] == '0' && nd > 1)) {
        return false;
    }
    if (i < n && (s[i] == '.' || s[i] == 'e' || s[i] == 'E')) {
        return false;
    }
    int64_t v = neg ? -(int64_t)m : (int64_t)m; /* |m| < 10^18: no overflow */
    if (v < lo || v > hi) {
        return false;
    }
    *out = v;
    p->i = i;
    return true;
}

static bool jp_double_fast(jp_t *p, double *out)
{
    const char *s = p->s;
    size_t i = p->i, n = p->n, d0;
    bool neg = i < n && s[i] == '-';
    uint64_t m = 0;
    int frac = 0;
    i += neg;
    for (d0 = i; i < n && i - d0 < 16 && s[i] >= '0' && s[i] <= '9'; i++) {
        m = m * 10 + (uint64_t)(s[i] - '0');
    }
    size_t nd = i - d0;
    if (nd == 0 || (s[d0] == '0' && nd > 1)) {
        return false;
    }
    if (i < n && s[i] == '.') {
        size_t f0 = ++i;
        for (; i < n && nd < 16 && s[i] >= '0' && s[i] <= '9'; i++, nd++) {
            m = m * 10 + (uint64_t)(s[i] - '0');
        }
        if (i == f0) {
            return false;
        }
        frac = (int)(i - f0);
    }
    if (nd > 15 || (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == 'e' || s[i] == 'E'))) {
        return false;
    }
    if (!rsql_value_double_exact(m, frac, neg, out)) {
        return false;
    }
    p->i = i;
    return true;
}

/*
** One JSON value as a scalar column of type t (not DECIMAL, DATE or a
** nested type); name is the field's path for errors. See the file comment.
*/
rsql_err_t json_scalar(rsql_decoder_t *dec, jp_t *p, rsql_type_t t, const char *name,
                       rsql_arena_t *arena, rsql_value_t *v)
{
    size_t at = p->i;
    char got[80], q[56];
    memset(v, 0, sizeof *v);
    v->type = t;
    if (p->i >= p->n) {
        return jp_unexpected(p);
    }
    char ch = p->s[p->i];
    if (ch == 'n') {
        if (!jp_word(p, "null")) {
            return jp_unexpected(p);
        }
        v->is_null = true;
        return RSQL_OK;
    }
    if (ch == '"' && t == RSQL_TYPE_VARCHAR) {
        /* a string without escapes goes from the input to the arena in one copy */
        const char *raw;
        size_t n;
        bool escaped = false;
        if (!jp_string_plain(p, &raw, &n) &&
            jp_string(p, NULL, &raw, &n, &escaped) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        if (escaped) {
            jp_t sp = {p->s, p->n, at, p->err};
            if (jp_string(&sp, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            if (dec->scratch.oom) {
                return rsql_error_nomem(p->err);
            }
            raw = dec->scratch.data ? dec->scratch.data : "";
            n = dec->scratch.len;
        }
        char *cp = rsql_arena_strndup(arena, raw, n);
        if (!cp) {
            return rsql_error_nomem(p->err);
        }
        v->v.s.p = cp;
        v->v.s.len = n;
        return RSQL_OK;
    }
    if (ch == '"') {
        if (jp_string(p, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        if (dec->scratch.oom) {
            return rsql_error_nomem(p->err);
        }
        const char *s = dec->scratch.data ? dec->scratch.data : "";
        size_t n = dec->scratch.len;
        switch (t) {
        case RSQL_TYPE_VARCHAR: {
            char *cp = rsql_arena_strndup(arena, s, n);
            if (!cp) {
                return rsql_error_nomem(p->err);
            }
            v->v.s.p = cp;
            v->v.s.len = n;
            return RSQL_OK;
        }
        case RSQL_TYPE_BYTES: {
            const uint8_t *b = NULL;
            rsql_err_t rc = rsql_value_parse_bytes(s, n, arena, &b, &v->v.s.len, NULL);
            if (rc == RSQL_ERR_NOMEM) {
                return rsql_error_nomem(p->err);
            }
            if (rc != RSQL_OK) {
                rsql_fmt__quote_for_msg(s, n, q, sizeof q);
                snprintf(got, sizeof got, "string %s (not base64)", q);
                return type_error(p, c, col, got);
            }
            v->v.s.p = (const char *)b;
            return RSQL_OK;
        }
        case RSQL_TYPE_TIMESTAMP:
            if (rsql_value_parse_timestamp(s, n, &v->v.ts, NULL) == RSQL_OK) {
                return RSQL_OK;
            }
            break;
        case RSQL_TYPE_DOUBLE:
            if (rsql_value_parse_double_word(s, n, &v->v.d)) {
                return RSQL_OK;
            }
            break;
        default: break;
        }
        rsql_fmt__quote_for_msg(s, n, q, sizeof q);
        snprintf(got, sizeof got, "string %s", q);
        return type_error(p, c, col, got);
    }
    if (ch == 't' || ch == 'f') {
        bool b = ch == 't';
        if (!jp_word(p, b ? "true" : "false")) {
            return jp_unexpected(p);
        }
        if (t == RSQL_TYPE_BOOLEAN) {
            v->v.b = b;
            return RSQL_OK;
        }
        if (t != RSQL_TYPE_VARCHAR) {
            return type_error(p, c, col, b ? "boolean true" : "boolean false");
        }
        /* VARCHAR: the JSON text, below */
    } else if (ch == '{' || ch == '[') {
        if (jp_skip(p, 1) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        if (t != RSQL_TYPE_VARCHAR) {
            return type_error(p, c, col, ch == '{' ? "object" : "array");
        }
    } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
        bool is_int;
        rsql_err_t rc;
        if ((t == RSQL_TYPE_BIGINT || t == RSQL_TYPE_INT) &&
            jp_int_fast(p, t == RSQL_TYPE_INT ? INT32_MIN : INT64_MIN,
                        t == RSQL_TYPE_INT ? INT32_MAX : INT64_MAX, &v->v.i)) {
            return RSQL_OK;
        }
        if (t == RSQL_TYPE_DOUBLE && jp_double_fast(p, &v->v.d)) {
            return RSQL_OK;
        }
        if (jp_number(p, &is_int) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        size_t len = p->i - at;
        int cut = len > 40 ? 40 : (int)len;
        /* "got" is written only on the error paths below: no formatting per row */
#define JP_NUMBER_GOT() \
    snprintf(got, sizeof got, "number %.*s%s", cut, p->s + at, len > 40 ? "..." : "")
        if (t == RSQL_TYPE_VARCHAR) {
            /* below */
        } else if (t == RSQL_TYPE_DOUBLE || (is_int && (t == RSQL_TYPE_INT ||
                                                        t == RSQL_TYPE_BIGINT ||
                                                        t == RSQL_TYPE_TIMESTAMP))) {
            rc = t == RSQL_TYPE_DOUBLE
                     ? rsql_value_parse_double(p->s + at, len, &v->v.d, NULL)
                     : rsql_value_parse_int(t, p->s + at, len,
                                            t == RSQL_TYPE_TIMESTAMP ? &v->v.ts : &v->v.i, NULL);
            if (rc == RSQL_ERR_NOMEM) {
                return rsql_error_nomem(p->err);
            }
            if (rc != RSQL_OK) { /* a JSON number is valid text: it can only be out of range */
                JP_NUMBER_GOT();
                return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                      "field '%s': %s out of range for %s", name, got + 7,
                                      rsql_type_name(t));
            }
            return RSQL_OK;
        } else {
            JP_NUMBER_GOT();
            return type_error(p, c, col, got);
        }
#undef JP_NUMBER_GOT
    } else {
        return jp_unexpected(p);
    }
    /* VARCHAR from a non-string value: its JSON text as written */
    char *cp = rsql_arena_strndup(arena, p->s + at, p->i - at);
    if (!cp) {
        return rsql_error_nomem(p->err);
    }
    v->v.s.p = cp;
    v->v.s.len = p->i - at;
    return RSQL_OK;
}

#undef type_error

/* The column named by key (exact first, then case-insensitive), or -1. guess is tried first. */
static int find_column(const fmt_conf_t *c, const char *key, size_t n, int guess)
{
    if (guess >= 0 && guess < c->n && c->name_lens[guess] == n) {
        /* the key in its usual place: compared inline (names are short) */
        const char *name = c->names[guess];
        size_t k = 0;
        while (k < n && name[k] == key[k]) {
            k++;
        }
        if (k == n) {
            return guess;
        }
    }
    for (int i = 0; i < c->n; i++) {
        if (c->name_lens[i] == n && memcmp(c->names[i], key, n) == 0) {
            return i;
        }
    }
    for (int i = 0; i < c->n; i++) {
        if (c->name_lens[i] == n && strncasecmp(c->names[i], key, n) == 0) {
            return i;
        }
    }
    return -1;
}

/*
** Decode one JSON object into row (see the file comment).
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__json_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                 rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err)
{
    const fmt_conf_t *c = &dec->c;
    jp_t p = {(const char *)raw, len, 0, err};
    int guess = 0;
    memset(dec->seen, 0, (size_t)c->n * sizeof *dec->seen);
    jp_ws(&p);
    if (p.i >= p.n) {
        return jp_unexpected(&p);
    }
    if (p.s[p.i] != '{') {
        const char *what = NULL;
        switch (p.s[p.i]) {
        case '[': what = "array"; break;
        case '"': what = "string"; break;
        case 't':
        case 'f': what = "boolean"; break;
        case 'n': what = "null"; break;
        default:
            if (p.s[p.i] == '-' || (p.s[p.i] >= '0' && p.s[p.i] <= '9')) {
                what = "number";
            }
        }
        if (!what) {
            return jp_unexpected(&p);
        }
        /* name the type only of a valid JSON value: "nope" is invalid JSON, not a null */
        rsql_err_t rc = jp_skip(&p, 0);
        if (rc != RSQL_OK) {
            return rc;
        }
        jp_ws(&p);
        if (p.i < p.n) {
            return jp_fail(&p, p.i, "unexpected data after the value");
        }
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "expected a JSON object, got %s", what);
    }
    p.i++;
    jp_ws(&p);
    if (p.i < p.n && p.s[p.i] == '}') {
        p.i++;
    } else {
        for (;;) {
            const char *key;
            size_t key_len;
            bool escaped;
            jp_ws(&p);
            if (p.i >= p.n) {
                return jp_unexpected(&p);
            }
            if (p.s[p.i] != '"') {
                return jp_fail(&p, p.i, "expected a string key");
            }
            escaped = false;
            if (!jp_string_plain(&p, &key, &key_len) &&
                jp_string(&p, NULL, &key, &key_len, &escaped) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            if (escaped) {
                /* rare: unescape the key into scratch, then match */
                jp_t kp = {p.s, p.n, (size_t)(key - p.s) - 1, err};
                if (jp_string(&kp, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                key = dec->scratch.data ? dec->scratch.data : "";
                key_len = dec->scratch.len;
            }
            int col = find_column(c, key, key_len, guess);
            jp_ws(&p);
            if (p.i >= p.n) {
                return jp_unexpected(&p);
            }
            if (p.s[p.i] != ':') {
                return jp_fail(&p, p.i, "expected ':' after an object key");
            }
            p.i++;
            jp_ws(&p);
            if (col >= 0 && c->needs && !c->needs[col].used) {
                /* a column the statement does not read: validated and skipped, NULL */
                if (jp_skip(&p, 1) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                dec->seen[col] = false; /* NULL below (json.fail-on-missing-field: present) */
                guess = col + 1;
            } else if (col >= 0) {
                rsql_err_t rc = json_field(dec, &p, col, arena, &row[col]);
                if (rc != RSQL_OK) {
                    return rc;
                }
                dec->seen[col] = true;
                guess = col + 1;
            } else if (jp_skip(&p, 1) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            jp_ws(&p);
            if (p.i < p.n && p.s[p.i] == ',') {
                p.i++;
                continue;
            }
            if (p.i < p.n && p.s[p.i] == '}') {
                p.i++;
                break;
            }
            return p.i >= p.n ? jp_unexpected(&p)
                              : jp_fail(&p, p.i, "expected ',' or '}' in an object");
        }
    }
    jp_ws(&p);
    if (p.i < p.n) {
        return jp_fail(&p, p.i, "unexpected data after the object");
    }
    for (int i = 0; i < c->n; i++) {
        if (!dec->seen[i]) {
            if (c->json_fail_missing && !(c->needs && !c->needs[i].used)) {
                return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "missing field '%s'",
                                      c->names[i]);
            }
            memset(&row[i], 0, sizeof row[i]);
            row[i].type = c->types[i];
            row[i].is_null = true;
        }
    }
    return RSQL_OK;
}

/* ---- encode */

/* Append s (n bytes) as a JSON string literal. */
static void json_string(const char *s, size_t n, rsql_buf_t *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    rsql_buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\') {
            continue;
        }
        rsql_buf_append(out, s + run, i - run);
        run = i + 1;
        switch (ch) {
        case '"': rsql_buf_puts(out, "\\\""); break;
        case '\\': rsql_buf_puts(out, "\\\\"); break;
        case '\n': rsql_buf_puts(out, "\\n"); break;
        case '\r': rsql_buf_puts(out, "\\r"); break;
        case '\t': rsql_buf_puts(out, "\\t"); break;
        case '\b': rsql_buf_puts(out, "\\b"); break;
        case '\f': rsql_buf_puts(out, "\\f"); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
            rsql_buf_append(out, u, 6);
        }
        }
    }
    rsql_buf_append(out, s + run, n - run);
    rsql_buf_putc(out, '"');
}

/*
** Append row as one JSON object (see the file comment).
** @locality the encoder's thread
*/
rsql_err_t rsql_fmt__json_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                 rsql_error_t *err)
{
    const fmt_conf_t *c = &enc->c;
    (void)err;
    if (!enc->key_end && c->n > 0 && (enc->key_end = rsql_malloc((size_t)c->n * sizeof(size_t)))) {
        /* the keys never change: escaped once, copied per row */
        rsql_buf_reset(&enc->scratch);
        for (int i = 0; i < c->n; i++) {
            if (i) {
                rsql_buf_putc(&enc->scratch, ',');
            }
            json_string(c->names[i], c->name_lens[i], &enc->scratch);
            rsql_buf_putc(&enc->scratch, ':');
            enc->key_end[i] = enc->scratch.len;
        }
        if (enc->scratch.oom) {
            rsql_free(enc->key_end);
            enc->key_end = NULL;
        }
    }
    rsql_buf_putc(out, '{');
    for (int i = 0; i < c->n; i++) {
        const rsql_value_t *v = &row[i];
        if (enc->key_end) {
            size_t from = i ? enc->key_end[i - 1] : 0;
            rsql_buf_append(out, enc->scratch.data + from, enc->key_end[i] - from);
        } else {
            if (i) {
                rsql_buf_putc(out, ',');
            }
            json_string(c->names[i], c->name_lens[i], out);
            rsql_buf_putc(out, ':');
        }
        if (v->is_null || v->type == RSQL_TYPE_NULL) {
            rsql_buf_puts(out, "null");
            continue;
        }
        switch (v->type) {
        case RSQL_TYPE_VARCHAR: json_string(v->v.s.p, v->v.s.len, out); break;
        case RSQL_TYPE_DATE:
        case RSQL_TYPE_BYTES:
        case RSQL_TYPE_TIMESTAMP:
            if (v->type == RSQL_TYPE_TIMESTAMP && c->json_ts_millis) {
                char num[RSQL_VALUE_TEXT_MAX];
                rsql_buf_append(out, num, rsql_value_format_int(v->v.ts, num));
                break;
            }
            if (v->type == RSQL_TYPE_TIMESTAMP && c->json_ts_iso) {
                /* the canonical text with 'T' for the space and a 'Z' (it is UTC) */
                char ts[RSQL_VALUE_TEXT_MAX];
                size_t n = rsql_value_format_timestamp(v->v.ts, ts);
                char *sp = memchr(ts, ' ', n);
                if (sp) {
                    *sp = 'T';
                }
                rsql_buf_putc(out, '"');
                rsql_buf_append(out, ts, n);
                rsql_buf_puts(out, "Z\"");
                break;
            }
            /* base64 and timestamp texts have nothing to escape */
            rsql_buf_putc(out, '"');
            rsql_value_format(v, out);
            rsql_buf_putc(out, '"');
            break;
        case RSQL_TYPE_DOUBLE:
            if (!isfinite(v->v.d)) {
                rsql_buf_putc(out, '"');
                rsql_value_format(v, out);
                rsql_buf_putc(out, '"');
                break;
            }
            /* fall through */
        default: rsql_value_format(v, out); break;
        }
    }
    rsql_buf_putc(out, '}');
    return RSQL_OK;
}
