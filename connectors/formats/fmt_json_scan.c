/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The json format's scanner: a strict RFC 8259 tokenizer over one body (jp_t, fmt_int.h) that
 * reads strings (unescaped into a buffer, or borrowed when they hold no escape), numbers,
 * the literals, and skips whole values, and says where the text is wrong ("invalid JSON at
 * byte 17: ..."; bytes count from 0). The value reader (fmt_json_value.c) and the row codec
 * (fmt_json.c) sit on it; it calls neither.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"

#include <stdio.h>
#include <string.h>

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
/* The index past the run of digits from i (before n): eight at a time while there are eight. */
static inline size_t digits_end(const char *s, size_t i, size_t n)
{
    const uint64_t high = UINT64_C(0xF0F0F0F0F0F0F0F0), zeros = UINT64_C(0x3030303030303030);
    while (n - i >= 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        /* every byte 0x30..0x39: its high nibble 3, and still 3 after adding 6 */
        if ((x & high) != zeros || ((x + UINT64_C(0x0606060606060606)) & high) != zeros) {
            break;
        }
        i += 8;
    }
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        i++;
    }
    return i;
}

rsql_err_t jp_number(jp_t *p, bool *is_int)
{
    const char *s = p->s; /* the scan in locals: p->i is stored once, at the end */
    size_t n = p->n, i = p->i, at = i;
    *is_int = true;
    if (i < n && s[i] == '-') {
        i++;
    }
    if (i >= n || s[i] < '0' || s[i] > '9') {
        goto bad;
    }
    i = s[i] == '0' ? i + 1 : digits_end(s, i, n);
    if (i < n && s[i] == '.') {
        *is_int = false;
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') {
            goto bad;
        }
        i = digits_end(s, i, n);
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *is_int = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        if (i >= n || s[i] < '0' || s[i] > '9') {
            goto bad;
        }
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
    }
    p->i = i;
    return RSQL_OK;
bad:
    p->i = i;
    return jp_fail(p, at, "invalid number");
}

bool jp_word(jp_t *p, const char *w)
{
    return jp_word_is(p, w, strlen(w));
}

/* Validate and skip the scalar at p->i (a string, number, true, false or null). */
static inline __attribute__((always_inline)) rsql_err_t skip_scalar(jp_t *p)
{
    bool is_int;
    switch (p->s[p->i]) {
    case '"': {
        const char *raw;
        size_t n;
        return jp_string_plain(p, &raw, &n) ? RSQL_OK : jp_string(p, NULL, NULL, NULL, NULL);
    }
    case 't': return jp_word_is(p, "true", 4) ? RSQL_OK : jp_unexpected(p);
    case 'f': return jp_word_is(p, "false", 5) ? RSQL_OK : jp_unexpected(p);
    case 'n': return jp_word_is(p, "null", 4) ? RSQL_OK : jp_unexpected(p);
    default:
        if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9')) {
            return jp_number(p, &is_int);
        }
        return jp_unexpected(p);
    }
}

/*
** Validate and skip any value at p->i (after whitespace). The scalars inside an object or
** array are skipped in its loop (no call per value): a skipped object of a changelog envelope
** (debezium's "source") is mostly scalars.
*/
rsql_err_t jp_skip(jp_t *p, int depth)
{
    if (p->i >= p->n) {
        return jp_unexpected(p);
    }
    char close = p->s[p->i];
    if (close == '"') { /* the most common value skipped: a string without escapes */
        const char *raw;
        size_t n;
        return jp_string_plain(p, &raw, &n) ? RSQL_OK : jp_string(p, NULL, NULL, NULL, NULL);
    }
    if (close != '{' && close != '[') {
        return skip_scalar(p);
    }
    close = close == '{' ? '}' : ']';
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
            const char *raw;
            size_t n;
            if (!jp_string_plain(p, &raw, &n) && jp_string(p, NULL, NULL, NULL, NULL) != RSQL_OK) {
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
        if (p->i >= p->n) {
            return jp_unexpected(p);
        }
        char v = p->s[p->i];
        if ((v == '{' || v == '[' ? jp_skip(p, depth + 1) : skip_scalar(p)) != RSQL_OK) {
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
