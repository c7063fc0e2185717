/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_funcs: the SQL function table. One row per function: name, arity,
 * flags, a binder that checks the argument types (errors at the argument)
 * and sets the result type, and an evaluator over already evaluated
 * arguments. Also the UTF-8 helpers the string functions and LIKE share.
 *
 * Functions: UPPER LOWER TRIM CHAR_LENGTH SUBSTRING CONCAT COALESCE NULLIF
 * CARDINALITY TO_DATE
 * ABS ROUND FLOOR CEIL NOW CURRENT_TIMESTAMP here; the other families
 * live in fn_str.c (REPLACE SPLIT_INDEX LPAD RPAD POSITION IF IFNULL),
 * fn_hash.c (MD5 SHA256 TO_BASE64 FROM_BASE64 UUID), fn_regex.c (REGEXP
 * REGEXP_EXTRACT REGEXP_REPLACE), fn_time.c (DATE_FORMAT TO_TIMESTAMP
 * FROM_UNIXTIME UNIX_TIMESTAMP TIMESTAMPADD TIMESTAMPDIFF EXTRACT) and
 * fn_json.c (JSON_VALUE JSON_QUERY JSON_EXISTS JSON_OBJECT JSON_ARRAY); this
 * table is the one list of them all. Strings are UTF-8 and counted
 * in code points. UPPER/LOWER use the C.UTF-8 locale's case mapping
 * (towupper_l) when the system has it, else ASCII only. TRIM removes spaces
 * (U+0020) at both ends. CONCAT converts non-VARCHAR arguments with
 * CAST(x AS VARCHAR) and is NULL when any argument is NULL.
 */
#include "config.h"
#include "planner/fn_int.h"
#include "base/rsql_value.h"
#include "base/rsql_time.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wctype.h>

/* ---- UTF-8 */

/* Decode one code point at str[*i] and advance *i; an invalid byte decodes as itself. */
uint32_t rsql_plan__utf8_next(const char *str, size_t n, size_t *i)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned char c = s[*i];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || *i + (size_t)len > n) {
        (*i)++;
        return c;
    }
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
    for (int k = 1; k < len; k++) {
        if ((s[*i + (size_t)k] & 0xc0) != 0x80) {
            (*i)++;
            return c;
        }
        cp = (cp << 6) | (s[*i + (size_t)k] & 0x3fu);
    }
    *i += (size_t)len;
    return cp;
}

/* Encode cp as UTF-8 into out (4 bytes room); returns the length. */
size_t rsql_plan__utf8_put(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* ---- helpers for binders */

static rsql_err_t arg_error(const rsql_bexpr_t *call, int i, const char *want,
                            rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_TYPE, call->args[i]->pos,
                          "argument %d of %s must be %s, got %s", i + 1, call->func->name, want,
                          rsql_type_name(call->args[i]->type));
}

static bool type_ok(rsql_type_t t, rsql_type_t want)
{
    return t == want || t == RSQL_TYPE_NULL;
}

static bool numeric_ok(rsql_type_t t)
{
    return rsql_type_is_numeric(t) || t == RSQL_TYPE_NULL;
}

static bool integer_ok(rsql_type_t t)
{
    return t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT || t == RSQL_TYPE_NULL;
}

static rsql_err_t bind_str_to_str(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                  rsql_error_t *err)
{
    (void)b;
    (void)ast;
    if (!type_ok(call->args[0]->type, RSQL_TYPE_VARCHAR)) {
        return arg_error(call, 0, "VARCHAR", err);
    }
    call->type = RSQL_TYPE_VARCHAR;
    return RSQL_OK;
}

static rsql_err_t bind_char_length(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                   rsql_error_t *err)
{
    (void)b;
    (void)ast;
    if (!type_ok(call->args[0]->type, RSQL_TYPE_VARCHAR)) {
        return arg_error(call, 0, "VARCHAR", err);
    }
    call->type = RSQL_TYPE_INT;
    return RSQL_OK;
}

/* TO_DATE(string [, format]): a DATE (Flink's; format default 'yyyy-MM-dd'). */
static rsql_err_t bind_to_date(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                               rsql_error_t *err)
{
    (void)b;
    (void)ast;
    for (int i = 0; i < call->n_args; i++) {
        if (!type_ok(call->args[i]->type, RSQL_TYPE_VARCHAR)) {
            return arg_error(call, i, "VARCHAR", err);
        }
    }
    call->type = RSQL_TYPE_DATE;
    return RSQL_OK;
}

/* A text that does not match the format (or is no real date) gives NULL, as in Flink. */
static rsql_err_t eval_to_date(const rsql_bexpr_t *call, const rsql_value_t *args,
                               rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    (void)err;
    const char *pat = call->n_args > 1 ? args[1].v.s.p : "yyyy-MM-dd";
    size_t pat_len = call->n_args > 1 ? args[1].v.s.len : 10;
    if (!rsql_value_parse_date_pattern(args[0].v.s.p, args[0].v.s.len, pat, pat_len,
                                       &out->v.i)) {
        out->is_null = true;
    }
    return RSQL_OK;
}

/* CARDINALITY(array | map): the number of elements or entries (INT). */
static rsql_err_t bind_cardinality(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                   rsql_error_t *err)
{
    (void)b;
    (void)ast;
    rsql_type_t t = call->args[0]->type;
    if (t != RSQL_TYPE_ARRAY && t != RSQL_TYPE_MAP && t != RSQL_TYPE_NULL) {
        return arg_error(call, 0, "an ARRAY or a MAP", err);
    }
    call->type = RSQL_TYPE_INT;
    return RSQL_OK;
}

static rsql_err_t eval_cardinality(const rsql_bexpr_t *call, const rsql_value_t *args,
                                   rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)ctx;
    (void)err;
    out->v.i = args[0].v.c ? (int64_t)args[0].v.c->n : 0;
    return RSQL_OK;
}

static rsql_err_t bind_substring(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                 rsql_error_t *err)
{
    (void)b;
    (void)ast;
    if (!type_ok(call->args[0]->type, RSQL_TYPE_VARCHAR)) {
        return arg_error(call, 0, "VARCHAR", err);
    }
    for (int i = 1; i < call->n_args; i++) {
        if (!integer_ok(call->args[i]->type)) {
            return arg_error(call, i, "an integer", err);
        }
    }
    call->type = RSQL_TYPE_VARCHAR;
    return RSQL_OK;
}

static rsql_err_t bind_concat(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                              rsql_error_t *err)
{
    (void)ast;
    for (int i = 0; i < call->n_args; i++) {
        rsql_type_t t = call->args[i]->type;
        if (t != RSQL_TYPE_VARCHAR && t != RSQL_TYPE_NULL) {
            call->args[i] = rsql_plan__cast(b->arena, call->args[i], RSQL_TYPE_VARCHAR, true);
            if (!call->args[i]) {
                return rsql_error_nomem(err);
            }
        }
    }
    call->type = RSQL_TYPE_VARCHAR;
    return RSQL_OK;
}

static rsql_err_t bind_coalesce(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                rsql_error_t *err)
{
    (void)ast;
    rsql_type_t t = RSQL_TYPE_NULL;
    const rsql_tdesc_t *td = NULL;
    for (int i = 0; i < call->n_args; i++) {
        rsql_type_t before = t;
        const rsql_tdesc_t *before_d = td, *xd = call->args[i]->desc;
        if (!rsql_plan__unify_expr(&t, &td, call->args[i])) {
            return rsql_error_set(err, RSQL_ERR_TYPE, call->args[i]->pos,
                                  "arguments of COALESCE have incompatible types %s and %s",
                                  before_d ? before_d->text : rsql_type_name(before),
                                  xd ? xd->text : rsql_type_name(call->args[i]->type));
        }
    }
    call->desc = td;
    for (int i = 0; i < call->n_args; i++) {
        if (call->args[i]->type != RSQL_TYPE_NULL &&
            (call->args[i]->type != t || (td && call->args[i]->desc != td))) {
            call->args[i] = td ? rsql_plan__cast_desc(b->arena, call->args[i], td, true)
                               : rsql_plan__cast(b->arena, call->args[i], t, true);
            if (!call->args[i]) {
                return rsql_error_nomem(err);
            }
        }
    }
    call->type = t;
    return RSQL_OK;
}

static rsql_err_t bind_nullif(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                              rsql_error_t *err)
{
    (void)b;
    (void)ast;
    rsql_type_t x = call->args[0]->type, y = call->args[1]->type;
    bool ok = x == RSQL_TYPE_NULL || y == RSQL_TYPE_NULL || x == y ||
              (rsql_type_is_numeric(x) && rsql_type_is_numeric(y));
    if (ok && x == y && rsql_type_is_nested(x) && call->args[0]->desc != call->args[1]->desc) {
        ok = false; /* ROW, ARRAY, MAP: exactly the same type */
    }
    if (!ok) {
        return rsql_error_set(err, RSQL_ERR_TYPE, call->args[1]->pos, "cannot compare %s with %s",
                              rsql_type_name(x), rsql_type_name(y));
    }
    call->type = x;
    call->desc = call->args[0]->desc;
    return RSQL_OK;
}

static rsql_err_t bind_numeric_same(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                    rsql_error_t *err)
{
    (void)b;
    (void)ast;
    if (!numeric_ok(call->args[0]->type)) {
        return arg_error(call, 0, "numeric", err);
    }
    if (call->n_args > 1 && !integer_ok(call->args[1]->type)) {
        return arg_error(call, 1, "an integer", err);
    }
    call->type = call->args[0]->type == RSQL_TYPE_NULL ? RSQL_TYPE_INT : call->args[0]->type;
    return RSQL_OK;
}

/*
** ABS, ROUND, FLOOR, CEIL: a DECIMAL argument keeps DECIMAL with Flink's
** result type (rsql_value_decimal_round_type; ROUND's digits must be a
** literal to change the scale, else the argument's type is kept); other
** numerics keep their type.
*/
static rsql_err_t bind_numeric_round(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                     rsql_error_t *err)
{
    const rsql_bexpr_t *x = call->args[0];
    if (x->type != RSQL_TYPE_DECIMAL) {
        return bind_numeric_same(b, call, ast, err);
    }
    if (call->n_args > 1 && !integer_ok(call->args[1]->type)) {
        return arg_error(call, 1, "an integer", err);
    }
    const rsql_tdesc_t *d = rsql_tdesc_of(RSQL_TYPE_DECIMAL, x->desc);
    const char *name = call->func->name;
    char mode = strcmp(name, "ROUND") == 0 ? 'r' : strcmp(name, "FLOOR") == 0 ? 'f' : 'c';
    int p = d->precision, sc = d->scale, digits = 0;
    if (strcmp(name, "ABS") == 0) {
        call->type = RSQL_TYPE_DECIMAL;
        call->desc = d;
        return RSQL_OK;
    }
    if (call->n_args > 1) {
        const rsql_bexpr_t *n = call->args[1];
        if (n->kind != RSQL_BX_CONST || n->value.is_null) {
            digits = sc; /* not a literal: the type stays */
        } else {
            digits = n->value.v.i > 38 ? 38 : n->value.v.i < -38 ? -38 : (int)n->value.v.i;
        }
    }
    rsql_value_decimal_round_type(mode, d->precision, d->scale, digits, &p, &sc);
    call->type = RSQL_TYPE_DECIMAL;
    call->desc = rsql_tdesc_decimal(p, sc);
    if (!call->desc) {
        return rsql_error_nomem(err);
    }
    return RSQL_OK;
}

static rsql_err_t bind_now(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                           rsql_error_t *err)
{
    (void)b;
    (void)ast;
    (void)err;
    call->type = RSQL_TYPE_TIMESTAMP;
    return RSQL_OK;
}

/* ---- evaluators */

static rsql_err_t out_str(rsql_eval_ctx_t *ctx, size_t n, char **p, rsql_error_t *err)
{
    *p = rsql_eval_scratch(ctx, n ? n : 1);
    return *p ? RSQL_OK : rsql_error_nomem(err);
}

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_locale_init(void)
{
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static rsql_err_t map_case(const rsql_value_t *s, bool upper, rsql_eval_ctx_t *ctx,
                           rsql_value_t *out, rsql_error_t *err)
{
    char *p;
    /* a case mapping changes a code point's length by at most 2 bytes (x1.5 is a safe bound) */
    size_t cap = s->v.s.len * 2 + 4;
    if (out_str(ctx, cap, &p, err)) {
        return err ? err->code : RSQL_ERR_NOMEM;
    }
    size_t i = 0, o = 0;
    /* the ASCII run first: 8 bytes at a time while all are ASCII (a byte in the range
       gets its 0x20 bit flipped, found without a carry between bytes: each byte is < 0x80,
       so adding at most 0x3f to it stays in the byte), then byte by byte; the same bytes
       as the code point loop below makes of them */
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    const uint64_t lo = (upper ? 'a' : 'A') * ones, hi = (upper ? 'z' : 'Z') * ones;
    for (; i + 8 <= s->v.s.len; i += 8, o += 8) {
        uint64_t w;
        memcpy(&w, s->v.s.p + i, 8);
        if (w & high) {
            break;
        }
        uint64_t ge_lo = w + (high - lo);       /* high bit: byte >= lo */
        uint64_t gt_hi = w + (high - hi - ones); /* high bit: byte > hi */
        uint64_t in = ge_lo & ~gt_hi & high;
        w ^= in >> 2;
        memcpy(p + o, &w, 8);
    }
    if (i < s->v.s.len && i + 8 > s->v.s.len && s->v.s.len >= 8) {
        /* a tail shorter than a word after ASCII words (o == i): the last 8 bytes as one
           word again, overlapping bytes already mapped (they map to the same bytes) */
        uint64_t w;
        size_t at = s->v.s.len - 8;
        memcpy(&w, s->v.s.p + at, 8);
        if (!(w & high)) {
            uint64_t ge_lo = w + (high - lo), gt_hi = w + (high - hi - ones);
            w ^= (ge_lo & ~gt_hi & high) >> 2;
            memcpy(p + at, &w, 8);
            i = o = s->v.s.len;
        }
    }
    for (; i < s->v.s.len && (unsigned char)s->v.s.p[i] < 0x80; i++) {
        char c = s->v.s.p[i];
        if (upper && c >= 'a' && c <= 'z') {
            c -= 32;
        } else if (!upper && c >= 'A' && c <= 'Z') {
            c += 32;
        }
        p[o++] = c;
    }
    if (i < s->v.s.len) {
        pthread_once(&utf8_once, utf8_locale_init); /* only non-ASCII text needs the locale */
    }
    while (i < s->v.s.len) {
        uint32_t cp = rsql_plan__utf8_next(s->v.s.p, s->v.s.len, &i);
        if (cp < 0x80) {
            if (upper && cp >= 'a' && cp <= 'z') {
                cp -= 32;
            } else if (!upper && cp >= 'A' && cp <= 'Z') {
                cp += 32;
            }
        } else if (utf8_locale) {
            cp = (uint32_t)(upper ? towupper_l((wint_t)cp, utf8_locale)
                                  : towlower_l((wint_t)cp, utf8_locale));
        }
        if (o + 4 > cap) {
            break; /* cannot happen with the bound above */
        }
        o += rsql_plan__utf8_put(cp, p + o);
    }
    out->v.s.p = p;
    out->v.s.len = o;
    return RSQL_OK;
}

static rsql_err_t eval_upper(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    return map_case(&args[0], true, ctx, out, err);
}

static rsql_err_t eval_lower(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    return map_case(&args[0], false, ctx, out, err);
}

static rsql_err_t eval_trim(const rsql_bexpr_t *call, const rsql_value_t *args,
                            rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)ctx;
    (void)err;
    const char *p = args[0].v.s.p;
    size_t n = args[0].v.s.len;
    while (n > 0 && *p == ' ') {
        p++;
        n--;
    }
    while (n > 0 && p[n - 1] == ' ') {
        n--;
    }
    out->v.s.p = p;
    out->v.s.len = n;
    return RSQL_OK;
}

static size_t char_count(const char *s, size_t n)
{
    size_t i = 0, c = 0;
    while (i < n) {
        rsql_plan__utf8_next(s, n, &i);
        c++;
    }
    return c;
}

static rsql_err_t eval_char_length(const rsql_bexpr_t *call, const rsql_value_t *args,
                                   rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)ctx;
    (void)err;
    out->v.i = (int64_t)char_count(args[0].v.s.p, args[0].v.s.len);
    return RSQL_OK;
}

/* SUBSTRING(s, start [, len]): characters [start, start + len), 1-based, clamped to s. */
static rsql_err_t eval_substring(const rsql_bexpr_t *call, const rsql_value_t *args,
                                 rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    int64_t from = args[1].v.i, to = INT64_MAX;
    if (call->n_args > 2) {
        if (args[2].v.i < 0) {
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos,
                                  "negative substring length %lld", (long long)args[2].v.i);
        }
        to = from > INT64_MAX - args[2].v.i ? INT64_MAX : from + args[2].v.i;
    }
    const char *s = args[0].v.s.p;
    size_t n = args[0].v.s.len, i = 0, begin = n, end = n;
    int64_t ch = 1;
    bool begun = false;
    while (true) {
        if (!begun && ch >= from) {
            begin = i;
            begun = true;
        }
        if (ch >= to) {
            end = i;
            break;
        }
        if (i >= n) {
            break;
        }
        rsql_plan__utf8_next(s, n, &i);
        ch++;
    }
    if (!begun || end < begin) {
        begin = end = 0;
    }
    out->v.s.p = s + begin;
    out->v.s.len = end - begin;
    return RSQL_OK;
}

static rsql_err_t eval_concat(const rsql_bexpr_t *call, const rsql_value_t *args,
                              rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    size_t n = 0;
    for (int i = 0; i < call->n_args; i++) {
        n += args[i].v.s.len;
    }
    char *p;
    if (out_str(ctx, n, &p, err)) {
        return err ? err->code : RSQL_ERR_NOMEM;
    }
    size_t o = 0;
    for (int i = 0; i < call->n_args; i++) {
        if (args[i].v.s.len) {
            memcpy(p + o, args[i].v.s.p, args[i].v.s.len);
            o += args[i].v.s.len;
        }
    }
    out->v.s.p = p;
    out->v.s.len = o;
    return RSQL_OK;
}

static rsql_err_t eval_nullif(const rsql_bexpr_t *call, const rsql_value_t *args,
                              rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)ctx;
    (void)err;
    rsql_type_t t = out->type;
    if (args[0].is_null) {
        out->is_null = true;
        return RSQL_OK;
    }
    if (!args[1].is_null && rsql_plan__compare(&args[0], &args[1]) == 0) {
        out->is_null = true;
        return RSQL_OK;
    }
    *out = args[0];
    out->type = t;
    return RSQL_OK;
}

static rsql_err_t eval_decimal_round(const rsql_bexpr_t *call, const rsql_value_t *x,
                                     int64_t digits, char mode, rsql_value_t *out,
                                     rsql_error_t *err)
{
    const rsql_tdesc_t *d = rsql_tdesc_of(RSQL_TYPE_DECIMAL, call->desc);
    rsql_err_t rc;
    if (mode == 'a') { /* ABS: 0 - x when negative, exact at the same type */
        if (x->v.dec.hi >= 0) {
            *out = *x;
            return RSQL_OK;
        }
        rsql_value_t zero;
        rsql_value_decimal_from_int(0, 1, 0, &zero, NULL);
        rc = rsql_value_decimal_arith('-', &zero, x, d->precision, d->scale, out, err);
    } else {
        digits = digits > 38 ? 38 : digits < -39 ? -39 : digits;
        rc = rsql_value_decimal_round(x, (int)digits, mode, d->precision, d->scale, out, err);
    }
    if (rc && err) {
        err->pos = call->pos;
    }
    return rc;
}

static rsql_err_t eval_abs(const rsql_bexpr_t *call, const rsql_value_t *args,
                           rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    if (call->type == RSQL_TYPE_DECIMAL) {
        return eval_decimal_round(call, &args[0], 0, 'a', out, err);
    }
    if (call->type == RSQL_TYPE_DOUBLE) {
        out->v.d = fabs(args[0].v.d);
        return RSQL_OK;
    }
    int64_t v = args[0].v.i;
    int64_t min = call->type == RSQL_TYPE_INT ? INT32_MIN : INT64_MIN;
    if (v == min) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "integer overflow");
    }
    out->v.i = v < 0 ? -v : v;
    return RSQL_OK;
}

static rsql_err_t eval_round(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    if (call->type == RSQL_TYPE_DECIMAL) {
        int64_t n = call->n_args > 1 ? args[1].v.i : 0;
        return eval_decimal_round(call, &args[0], n, 'r', out, err);
    }
    int64_t digits = call->n_args > 1 ? args[1].v.i : 0;
    if (digits > 300) {
        digits = 300;
    } else if (digits < -300) {
        digits = -300;
    }
    if (call->type == RSQL_TYPE_DOUBLE) {
        double x = args[0].v.d;
        if (!isfinite(x)) {
            out->v.d = x;
            return RSQL_OK;
        }
        double f = pow(10.0, (double)(digits < 0 ? -digits : digits));
        double r = digits >= 0 ? round(x * f) / f : round(x / f) * f;
        out->v.d = isfinite(r) ? r : x;
        return RSQL_OK;
    }
    int64_t v = args[0].v.i;
    if (digits >= 0) {
        out->v.i = v;
        return RSQL_OK;
    }
    if (digits < -18) {
        out->v.i = 0;
        return RSQL_OK;
    }
    int64_t f = 1;
    for (int64_t k = 0; k < -digits; k++) {
        f *= 10;
    }
    int64_t q = v / f, rem = v % f;
    if (rem * 2 >= f) {
        q++;
    } else if (rem * 2 <= -f) {
        q--;
    }
    if (q > INT64_MAX / f || q < INT64_MIN / f) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "integer overflow");
    }
    int64_t r = q * f;
    if (call->type == RSQL_TYPE_INT && (r > INT32_MAX || r < INT32_MIN)) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "integer overflow");
    }
    out->v.i = r;
    return RSQL_OK;
}

static rsql_err_t eval_floor(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    if (call->type == RSQL_TYPE_DECIMAL) {
        return eval_decimal_round(call, &args[0], 0, 'f', out, err);
    }
    (void)err;
    if (call->type == RSQL_TYPE_DOUBLE) {
        out->v.d = floor(args[0].v.d);
    } else {
        out->v.i = args[0].v.i;
    }
    return RSQL_OK;
}

static rsql_err_t eval_ceil(const rsql_bexpr_t *call, const rsql_value_t *args,
                            rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    if (call->type == RSQL_TYPE_DECIMAL) {
        return eval_decimal_round(call, &args[0], 0, 'c', out, err);
    }
    (void)err;
    if (call->type == RSQL_TYPE_DOUBLE) {
        out->v.d = ceil(args[0].v.d);
    } else {
        out->v.i = args[0].v.i;
    }
    return RSQL_OK;
}

static rsql_err_t eval_now(const rsql_bexpr_t *call, const rsql_value_t *args,
                           rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)args;
    (void)err;
    if (ctx->now_ms == 0) {
        ctx->now_ms = rsql_wall_ms();
    }
    out->v.ts = ctx->now_ms;
    return RSQL_OK;
}

#define S RSQL_FN_STRICT
static const rsql_func_t funcs[] = {
    {"ABS", 1, 1, S, bind_numeric_round, eval_abs, NULL},
    {"CARDINALITY", 1, 1, S, bind_cardinality, eval_cardinality, NULL},
    {"CEIL", 1, 1, S, bind_numeric_round, eval_ceil, NULL},
    {"CEILING", 1, 1, S, bind_numeric_round, eval_ceil, NULL},
    {"CHARACTER_LENGTH", 1, 1, S, bind_char_length, eval_char_length, NULL},
    {"CHAR_LENGTH", 1, 1, S, bind_char_length, eval_char_length, NULL},
    {"COALESCE", 1, -1, RSQL_FN_LAZY, bind_coalesce, NULL, NULL},
    {"CONCAT", 1, -1, S, bind_concat, eval_concat, NULL},
    {"CURRENT_TIMESTAMP", 0, 0, 0, bind_now, eval_now, NULL},
    {"DATE_FORMAT", 2, 2, S, rsql_fn_bind_date_format, rsql_fn_eval_date_format, NULL},
    {"EXTRACT", 2, 2, S | RSQL_FN_UNIT,
     rsql_fn_bind_extract, rsql_fn_eval_extract, rsql_fn_print_extract},
    {"FLOOR", 1, 1, S, bind_numeric_round, eval_floor, NULL},
    {"FROM_BASE64", 1, 1, S, rsql_fn_bind_from_base64, rsql_fn_eval_from_base64, NULL},
    {"FROM_UNIXTIME", 1, 2, S, rsql_fn_bind_from_unixtime, rsql_fn_eval_from_unixtime, NULL},
    {"IF", 3, 3, RSQL_FN_COND, rsql_fn_bind_if, NULL, NULL},
    {"IFNULL", 2, 2, RSQL_FN_LAZY, rsql_fn_bind_ifnull, NULL, NULL},
    {"JSON_ARRAY", 0, -1, RSQL_FN_CLAUSES,
     rsql_fn_bind_json_array, rsql_fn_eval_json_array, rsql_fn_print_json_clauses},
    {"JSON_EXISTS", 2, 2, S | RSQL_FN_CLAUSES,
     rsql_fn_bind_json_exists, rsql_fn_eval_json_exists, rsql_fn_print_json_clauses},
    {"JSON_OBJECT", 0, -1, RSQL_FN_CLAUSES | RSQL_FN_KV,
     rsql_fn_bind_json_object, rsql_fn_eval_json_object, rsql_fn_print_json_object},
    {"JSON_QUERY", 2, 2, S | RSQL_FN_CLAUSES,
     rsql_fn_bind_json_query, rsql_fn_eval_json_query, rsql_fn_print_json_clauses},
    {"JSON_VALUE", 2, 2, S | RSQL_FN_CLAUSES,
     rsql_fn_bind_json_value, rsql_fn_eval_json_value, rsql_fn_print_json_clauses},
    {"LOWER", 1, 1, S, bind_str_to_str, eval_lower, NULL},
    {"LPAD", 3, 3, S, rsql_fn_bind_lpad, rsql_fn_eval_lpad, NULL},
    {"MD5", 1, 1, S, rsql_fn_bind_md5, rsql_fn_eval_md5, NULL},
    {"NOW", 0, 0, 0, bind_now, eval_now, NULL},
    {"NULLIF", 2, 2, 0, bind_nullif, eval_nullif, NULL},
    {"POSITION", 2, 2, S, rsql_fn_bind_position, rsql_fn_eval_position, rsql_fn_print_position},
    /* Flink's processing time (a computed column's proc_time AS PROCTIME()): NOW's value */
    {"PROCTIME", 0, 0, 0, bind_now, eval_now, NULL},
    {"REGEXP", 2, 2, S, rsql_fn_bind_regexp, rsql_fn_eval_regexp, NULL},
    {"REGEXP_EXTRACT", 2, 3, S, rsql_fn_bind_regexp_extract, rsql_fn_eval_regexp_extract, NULL},
    {"REGEXP_REPLACE", 3, 3, S, rsql_fn_bind_regexp_replace, rsql_fn_eval_regexp_replace, NULL},
    {"REPLACE", 3, 3, S, rsql_fn_bind_replace, rsql_fn_eval_replace, NULL},
    {"ROUND", 1, 2, S, bind_numeric_round, eval_round, NULL},
    {"RPAD", 3, 3, S, rsql_fn_bind_rpad, rsql_fn_eval_rpad, NULL},
    {"SHA256", 1, 1, S, rsql_fn_bind_sha256, rsql_fn_eval_sha256, NULL},
    {"SPLIT_INDEX", 3, 3, S, rsql_fn_bind_split_index, rsql_fn_eval_split_index, NULL},
    {"SUBSTR", 2, 3, S, bind_substring, eval_substring, NULL}, /* Flink's alias */
    {"SUBSTRING", 2, 3, S, bind_substring, eval_substring, NULL},
    {"TIMESTAMPADD", 3, 3, S | RSQL_FN_UNIT,
     rsql_fn_bind_timestampadd, rsql_fn_eval_timestampadd, rsql_fn_print_unit_call},
    {"TIMESTAMPDIFF", 3, 3, S | RSQL_FN_UNIT,
     rsql_fn_bind_timestampdiff, rsql_fn_eval_timestampdiff, rsql_fn_print_unit_call},
    {"TO_BASE64", 1, 1, S, rsql_fn_bind_to_base64, rsql_fn_eval_to_base64, NULL},
    {"TO_TIMESTAMP", 1, 2, S, rsql_fn_bind_to_timestamp, rsql_fn_eval_to_timestamp, NULL},
    {"TO_DATE", 1, 2, S, bind_to_date, eval_to_date, NULL},
    {"TRIM", 1, 1, S, bind_str_to_str, eval_trim, NULL},
    {"UNIX_TIMESTAMP", 0, 2, S, rsql_fn_bind_unix_timestamp, rsql_fn_eval_unix_timestamp, NULL},
    {"UPPER", 1, 1, S, bind_str_to_str, eval_upper, NULL},
    {"UUID", 0, 0, 0, rsql_fn_bind_uuid, rsql_fn_eval_uuid, NULL},
};
#undef S

/* The name of function i (0, 1, ...), NULL past the last: for suggestions. */
const char *rsql_plan__func_name(int i)
{
    return i >= 0 && (size_t)i < sizeof(funcs) / sizeof(funcs[0]) ? funcs[i].name : NULL;
}

/* The function table row named name (case-insensitive), or NULL. Static. */
const rsql_func_t *rsql_plan__func_find(const char *name)
{
    for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
        if (strcasecmp(funcs[i].name, name) == 0) {
            return &funcs[i];
        }
    }
    return NULL;
}
