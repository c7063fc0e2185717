/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The json format: one JSON object per body, keys = column names. This file is the row codec
 * (an object into a row, a row into an object); one value of a type is read by
 * fmt_json_value.c, over the scanner of fmt_json_scan.c.
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

/* ---- one field into a value (fmt_json_value.c) */

static inline __attribute__((always_inline)) rsql_err_t
json_field(rsql_decoder_t *dec, jp_t *p, int col, const char *const *names,
                             rsql_arena_t *arena, rsql_value_t *v)
{
    const fmt_conf_t *c = &dec->c;
    const char *name = names ? names[col] : c->names[col];
    rsql_type_t t = c->types[col];
    _Static_assert(RSQL_TYPE_DATE == RSQL_TYPE_DECIMAL + 1 && RSQL_TYPE_MAP == RSQL_TYPE_DECIMAL + 4,
                   "DECIMAL, DATE and the nested types end rsql_type_t");
    if (t >= RSQL_TYPE_DECIMAL) { /* DECIMAL, DATE, ROW, ARRAY, MAP */
        const rsql_tdesc_t *d = rsql_tdesc_of(t, c->descs[col]);
        if (!d) { /* a nested column without its descriptor: skipped, NULL */
            memset(v, 0, sizeof *v);
            v->type = t;
            v->is_null = true;
            return jp_skip(p, 1);
        }
        return json_typed(dec, p, d, c->needs ? &c->needs[col] : NULL, name, arena, v, 1);
    }
    if (json_scalar_fast(p, t, arena, v)) { /* inline: no call for the commonest values */
        return RSQL_OK;
    }
    return json_scalar(dec, p, t, name, arena, v);
}

/* The column named by key (exact first, then case-insensitive), or -1. guess is tried first. */
static inline __attribute__((always_inline)) int
find_column(const fmt_conf_t *c, const char *key, size_t n, int guess)
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
** Whether the member at p->i starts with the column's key pattern k (`"name":`), read as one
** or two words while that many bytes remain, else byte by byte.
*/
static inline __attribute__((always_inline)) bool key_at(const jp_t *p, const fmt_keypat_t *k)
{
    size_t left = p->n - p->i;
    if (k->len == 0 || left < k->len) {
        return false;
    }
    const char *s = p->s + p->i;
    uint64_t a, b;
    if (k->len <= 8 && left >= 8) {
        memcpy(&a, s, 8);
        return ((a ^ k->w[0]) & k->m[0]) == 0;
    }
    if (left >= sizeof k->w) {
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        return (((a ^ k->w[0]) & k->m[0]) | ((b ^ k->w[1]) & k->m[1])) == 0;
    }
    return memcmp(s, k->w, k->len) == 0;
}

/*
** Read the JSON object at p->i (on its '{') into row, p->i past its '}'; names are the
** columns' names for error messages (NULL: the column names), e.g. "after.amount" for a
** changelog format's object. Columns not in the object are NULL (see the file comment).
** @locality the decoder's thread
*/
static inline __attribute__((always_inline)) rsql_err_t
json_object(rsql_decoder_t *dec, jp_t *p, const char *const *names, rsql_arena_t *arena,
            rsql_value_t *row)
{
    const fmt_conf_t *c = &dec->c;
    int guess = 0, n_seen = 0; /* columns set so far: all of them, and no NULLs are filled in */
    memset(dec->seen, 0, (size_t)c->n * sizeof *dec->seen);
    p->i++;
    jp_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
    } else {
        for (;;) {
            int col;
            if (guess < c->n && key_at(p, &c->keypats[guess])) {
                /* the next column's key, as written without spaces: matched whole */
                col = guess;
                p->i += c->keypats[guess].len;
            } else {
                const char *key;
                size_t key_len;
                bool escaped = false;
                jp_ws(p);
                if (p->i >= p->n) {
                    return jp_unexpected(p);
                }
                if (p->s[p->i] != '"') {
                    return jp_fail(p, p->i, "expected a string key");
                }
                if (!jp_string_plain(p, &key, &key_len) &&
                    jp_string(p, NULL, &key, &key_len, &escaped) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                if (escaped) {
                    /* rare: unescape the key into scratch, then match */
                    jp_t kp = {p->s, p->n, (size_t)(key - p->s) - 1, p->err};
                    if (jp_string(&kp, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                        return RSQL_ERR_DECODE;
                    }
                    key = dec->scratch.data ? dec->scratch.data : "";
                    key_len = dec->scratch.len;
                }
                col = find_column(c, key, key_len, guess);
                jp_ws(p);
                if (p->i >= p->n) {
                    return jp_unexpected(p);
                }
                if (p->s[p->i] != ':') {
                    return jp_fail(p, p->i, "expected ':' after an object key");
                }
                p->i++;
            }
            jp_ws(p);
            if (col >= 0 && c->needs && !c->needs[col].used) {
                /* a column the statement does not read: validated and skipped, NULL */
                if (jp_skip(p, 1) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                memset(&row[col], 0, sizeof row[col]);
                row[col].type = c->types[col];
                row[col].is_null = true;
                n_seen += !dec->seen[col];
                dec->seen[col] = true;
                guess = col + 1;
            } else if (col >= 0) {
                rsql_err_t rc = json_field(dec, p, col, names, arena, &row[col]);
                if (rc != RSQL_OK) {
                    return rc;
                }
                n_seen += !dec->seen[col];
                dec->seen[col] = true;
                guess = col + 1;
            } else if (jp_skip(p, 1) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            jp_ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->s[p->i] == '}') {
                p->i++;
                break;
            }
            return p->i >= p->n ? jp_unexpected(p)
                                : jp_fail(p, p->i, "expected ',' or '}' in an object");
        }
    }
    for (int i = 0; n_seen < c->n && i < c->n; i++) {
        if (!dec->seen[i]) {
            if (c->json_fail_missing && !(c->needs && !c->needs[i].used)) {
                return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS, "missing field '%s'",
                                      names ? names[i] : c->names[i]);
            }
            memset(&row[i], 0, sizeof row[i]);
            row[i].type = c->types[i];
            row[i].is_null = true;
        }
    }
    return RSQL_OK;
}

/* The body above, for the changelog formats' objects; rsql_fmt__json_decode has it inlined
   (with the helpers it calls per field), as the hot path of every json body. */
rsql_err_t rsql_fmt__json_object(rsql_decoder_t *dec, jp_t *p, const char *const *names,
                                 rsql_arena_t *arena, rsql_value_t *row)
{
    return json_object(dec, p, names, arena, row);
}

/*
** Whether the object at p->i names one of the columns cols marks (see fmt_int.h): its keys
** matched as json_object matches them, its values validated and skipped, not read.
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__json_names_any(rsql_decoder_t *dec, jp_t *p, const fmt_need_t *cols,
                                    bool *any)
{
    const fmt_conf_t *c = &dec->c;
    *any = false;
    p->i++;
    jp_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return RSQL_OK;
    }
    for (;;) {
        const char *key;
        size_t key_len;
        jp_ws(p);
        if (p->i >= p->n || p->s[p->i] != '"') {
            return p->i >= p->n ? jp_unexpected(p) : jp_fail(p, p->i, "expected a string key");
        }
        if (!jp_string_plain(p, &key, &key_len)) { /* rare: unescaped into scratch */
            if (jp_string(p, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            if (dec->scratch.oom) {
                return rsql_error_nomem(p->err);
            }
            key = dec->scratch.data ? dec->scratch.data : "";
            key_len = dec->scratch.len;
        }
        int col = find_column(c, key, key_len, -1);
        *any = *any || (col >= 0 && cols[col].used);
        jp_ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') {
            return p->i >= p->n ? jp_unexpected(p)
                                : jp_fail(p, p->i, "expected ':' after an object key");
        }
        p->i++;
        jp_ws(p);
        if (jp_skip(p, 1) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        jp_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            return RSQL_OK;
        }
        return p->i >= p->n ? jp_unexpected(p)
                            : jp_fail(p, p->i, "expected ',' or '}' in an object");
    }
}

/*
** Decode one JSON object into row (see the file comment).
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__json_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                 rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err)
{
    jp_t p = {(const char *)raw, len, 0, err};
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
    rsql_err_t rc = json_object(dec, &p, NULL, arena, row);
    if (rc != RSQL_OK) {
        return rc;
    }
    jp_ws(&p);
    if (p.i < p.n) {
        return jp_fail(&p, p.i, "unexpected data after the object");
    }
    return RSQL_OK;
}

/* ---- encode */

/* Whether none of the 8 bytes of w needs escaping in a JSON string (a control character, a
   quote or a backslash), tested together: a byte below 0x20, or equal to '"' or '\\' after
   the XOR, sets its high bit in the result (a byte of 0x80 or more never does). */
static inline bool word_plain(uint64_t w)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = ones * 0x80;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return ((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs) == 0;
}

/* s (n bytes) escaped as a JSON string's content at p, which has room for 6n bytes; the end. */
static char *escape_at(char *p, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t w;
        while (n - i >= 8 && (memcpy(&w, s + i, 8), word_plain(w))) {
            i += 8; /* eight bytes that go as they are */
        }
        if (i == n) {
            break;
        }
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\') {
            continue;
        }
        if (i > run) {
            memcpy(p, s + run, i - run);
            p += i - run;
        }
        run = i + 1;
        *p++ = '\\';
        switch (ch) {
        case '"': *p++ = '"'; break;
        case '\\': *p++ = '\\'; break;
        case '\n': *p++ = 'n'; break;
        case '\r': *p++ = 'r'; break;
        case '\t': *p++ = 't'; break;
        case '\b': *p++ = 'b'; break;
        case '\f': *p++ = 'f'; break;
        default:
            memcpy(p, "u00", 3);
            p[3] = hex[ch >> 4];
            p[4] = hex[ch & 15];
            p += 5;
        }
    }
    if (n > run) {
        memcpy(p, s + run, n - run);
        p += n - run;
    }
    return p;
}

/* Append s (n bytes) as a JSON string literal: escaped in pieces (room for 6 bytes each of a
   piece, not of a long string at once). */
static void json_string(const char *s, size_t n, rsql_buf_t *out)
{
    rsql_buf_putc(out, '"');
    for (size_t i = 0; i < n;) {
        size_t k = n - i < 4096 ? n - i : 4096;
        char *p = rsql_buf_room(out, 6 * k);
        if (!p) {
            return;
        }
        rsql_buf_added(out, (size_t)(escape_at(p, s + i, k) - p));
        i += k;
    }
    rsql_buf_putc(out, '"');
}

/* A row of flat values (flat_bound) whose text takes at most this many bytes is written in
   place, in one piece of room (the keys escaped once, each value by flat_value); any other
   through the buffer's appends. The same text either way. */
#define FLAT_MAX 65536

/* The most bytes flat_value writes for v (its text, its quotes, and the text formatters'
   own room), or 0 when v is not flat: a BYTES, DECIMAL, DATE, nested value, a TIMESTAMP
   under another json.timestamp-format than sql, or a string too long for FLAT_MAX (so the
   sum of the bounds cannot wrap). */
static inline size_t flat_bound(const fmt_conf_t *c, const rsql_value_t *v)
{
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        return 4;
    }
    switch (v->type) {
    case RSQL_TYPE_VARCHAR: return v->v.s.len <= FLAT_MAX / 6 ? 6 * v->v.s.len + 2 : 0;
    case RSQL_TYPE_BOOLEAN:
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DOUBLE: return RSQL_VALUE_TEXT_MAX + 2;
    case RSQL_TYPE_TIMESTAMP:
        return c->json_ts_millis || c->json_ts_iso ? 0 : RSQL_VALUE_TEXT_MAX + 2;
    default: return 0;
    }
}

/* v (flat: flat_bound) as JSON at p, with room for flat_bound(v) bytes; the end. */
static inline char *flat_value(const rsql_value_t *v, char *p)
{
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        memcpy(p, "null", 4);
        return p + 4;
    }
    switch (v->type) {
    case RSQL_TYPE_VARCHAR:
        *p++ = '"';
        p = escape_at(p, v->v.s.p, v->v.s.len);
        *p++ = '"';
        return p;
    case RSQL_TYPE_BOOLEAN:
        if (v->v.b) {
            memcpy(p, "true", 4);
            return p + 4;
        }
        memcpy(p, "false", 5);
        return p + 5;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: return p + rsql_value_format_int(v->v.i, p);
    case RSQL_TYPE_DOUBLE:
        if (isfinite(v->v.d)) {
            return p + rsql_value_format_double(v->v.d, p);
        }
        *p = '"'; /* NaN and the infinities as strings, as rsql_value_format writes them */
        p += 1 + rsql_value_format_double(v->v.d, p + 1);
        *p++ = '"';
        return p;
    default: /* TIMESTAMP, in its sql form */
        *p = '"';
        p += 1 + rsql_value_format_timestamp(v->v.ts, p + 1);
        *p++ = '"';
        return p;
    }
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
    if (enc->key_end) { /* in place, when every value is flat and the text short */
        size_t bound = enc->scratch.len + 2;
        int i = 0;
        for (size_t b; i < c->n && bound <= FLAT_MAX && (b = flat_bound(c, &row[i])) > 0; i++) {
            bound += b;
        }
        if (i == c->n && bound <= FLAT_MAX) {
            char *p0 = rsql_buf_room(out, bound);
            if (!p0) {
                return RSQL_OK; /* out->oom says it */
            }
            char *p = p0;
            *p++ = '{';
            for (i = 0; i < c->n; i++) {
                size_t from = i ? enc->key_end[i - 1] : 0;
                memcpy(p, enc->scratch.data + from, enc->key_end[i] - from);
                p = flat_value(&row[i], p + (enc->key_end[i] - from));
            }
            *p++ = '}';
            rsql_buf_added(out, (size_t)(p - p0));
            return RSQL_OK;
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
