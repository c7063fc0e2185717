/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_str: Flink's string and conditional functions REPLACE, SPLIT_INDEX,
 * LPAD, RPAD, POSITION(a IN b), IF and IFNULL. Strings are UTF-8 and
 * lengths and positions count code points, as CHAR_LENGTH does.
 *
 *   REPLACE(s, from, to)      every non-overlapping from replaced by to, left
 *                             to right; an empty from leaves s as it is
 *   SPLIT_INDEX(s, sep, i)    the i-th (0-based) piece of s split at sep; NULL
 *                             when there is no such piece or i < 0; an empty
 *                             sep gives s itself for i = 0
 *   LPAD/RPAD(s, n, pad)      s padded on the left/right with pad repeated to n
 *                             characters, or s cut to its first n; NULL when
 *                             n < 0; when pad is empty and s is shorter, s
 *   POSITION(a IN b)          1-based position of the first a in b, 0 if none
 *                             (1 for an empty a)
 *   IF(c, x, y)               x when c is TRUE, else y (a NULL c gives y);
 *                             only the chosen branch is evaluated
 *   IFNULL(x, y)              x unless it is NULL, else y (y only evaluated then)
 */
#include "config.h"
#include "planner/fn_int.h"

#include <stdio.h>

rsql_err_t rsql_fn_out_buf(rsql_eval_ctx_t *ctx, const rsql_buf_t *b, rsql_value_t *out,
                           rsql_error_t *err)
{
    if (b->oom) {
        return rsql_error_nomem(err);
    }
    char *p;
    if (rsql_fn_out_str(ctx, b->len, &p, err)) {
        return RSQL_ERR_NOMEM;
    }
    if (b->len) {
        memcpy(p, b->data, b->len);
    }
    out->v.s.p = p;
    out->v.s.len = b->len;
    return RSQL_OK;
}

void rsql_fn_print_args(const rsql_bexpr_t *call, int from, const char *sep, rsql_buf_t *out)
{
    for (int i = from; i < call->n_args; i++) {
        if (i > from) {
            rsql_buf_puts(out, sep);
        }
        rsql_bexpr_print(call->args[i], out);
    }
}

/* ---- binders */

static rsql_err_t bind_strs(rsql_bexpr_t *call, rsql_type_t result, rsql_error_t *err)
{
    rsql_err_t rc = rsql_fn_want_str(call, 0, call->n_args, err);
    if (rc) {
        return rc;
    }
    call->type = result;
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_replace(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_strs(call, RSQL_TYPE_VARCHAR, err);
}

rsql_err_t rsql_fn_bind_position(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                 rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_strs(call, RSQL_TYPE_INT, err);
}

/* (VARCHAR, VARCHAR, integer) -> VARCHAR */
static rsql_err_t bind_str_str_int(rsql_bexpr_t *call, int int_arg, rsql_error_t *err)
{
    for (int i = 0; i < call->n_args; i++) {
        if (i == int_arg ? !rsql_fn_int_ok(call->args[i]->type)
                         : !rsql_fn_type_ok(call->args[i]->type, RSQL_TYPE_VARCHAR)) {
            return rsql_fn_arg_error(call, i, i == int_arg ? "an integer" : "VARCHAR", err);
        }
    }
    call->type = RSQL_TYPE_VARCHAR;
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_split_index(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                    rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_str_str_int(call, 2, err);
}

rsql_err_t rsql_fn_bind_lpad(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                             rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_str_str_int(call, 1, err);
}

rsql_err_t rsql_fn_bind_rpad(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                             rsql_error_t *err)
{
    return rsql_fn_bind_lpad(b, call, ast, err);
}

/* The common type of args from..n-1 (nested types by their descriptor, as COALESCE), with
 * implicit casts inserted; the result type. */
static rsql_err_t unify_args(rsql_bind_t *b, rsql_bexpr_t *call, int from, rsql_error_t *err)
{
    rsql_type_t t = RSQL_TYPE_NULL;
    const rsql_tdesc_t *td = NULL;
    for (int i = from; i < call->n_args; i++) {
        rsql_type_t before = t;
        const rsql_tdesc_t *before_d = td, *xd = call->args[i]->desc;
        if (!rsql_plan__unify_expr(&t, &td, call->args[i])) {
            return rsql_error_set(err, RSQL_ERR_TYPE, call->args[i]->pos,
                                  "arguments of %s have incompatible types %s and %s",
                                  call->func->name,
                                  before_d ? before_d->text : rsql_type_name(before),
                                  xd ? xd->text : rsql_type_name(call->args[i]->type));
        }
    }
    for (int i = from; i < call->n_args; i++) {
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
    call->desc = td;
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_if(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                           rsql_error_t *err)
{
    (void)ast;
    if (!rsql_fn_type_ok(call->args[0]->type, RSQL_TYPE_BOOLEAN)) {
        return rsql_fn_arg_error(call, 0, "BOOLEAN", err);
    }
    return unify_args(b, call, 1, err);
}

rsql_err_t rsql_fn_bind_ifnull(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                               rsql_error_t *err)
{
    (void)ast;
    return unify_args(b, call, 0, err);
}

/* ---- evaluators */

/* The byte offset of the first needle in hay at or after from, or SIZE_MAX. */
static size_t find(const char *hay, size_t hn, const char *needle, size_t nn, size_t from)
{
    if (nn == 0) {
        return from <= hn ? from : SIZE_MAX;
    }
    for (size_t i = from; i + nn <= hn; i++) {
        if (hay[i] == needle[0] && memcmp(hay + i, needle, nn) == 0) {
            return i;
        }
    }
    return SIZE_MAX;
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

/* The byte offset after the first k code points of s (n bytes), at most n. */
static size_t char_offset(const char *s, size_t n, size_t k)
{
    size_t i = 0;
    while (k > 0 && i < n) {
        rsql_plan__utf8_next(s, n, &i);
        k--;
    }
    return i;
}

rsql_err_t rsql_fn_eval_replace(const rsql_bexpr_t *call, const rsql_value_t *args,
                                rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    const char *s = args[0].v.s.p, *from = args[1].v.s.p, *to = args[2].v.s.p;
    size_t n = args[0].v.s.len, fn = args[1].v.s.len, tn = args[2].v.s.len;
    if (fn == 0) {
        out->v.s = args[0].v.s;
        return RSQL_OK;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    size_t at = 0, hit;
    while ((hit = find(s, n, from, fn, at)) != SIZE_MAX) {
        rsql_buf_append(&b, s + at, hit - at);
        rsql_buf_append(&b, to, tn);
        at = hit + fn;
        if (b.len > RSQL_FN_MAX_RESULT) {
            rsql_buf_deinit(&b);
            return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "result too long");
        }
    }
    rsql_buf_append(&b, s + at, n - at);
    rsql_err_t rc = rsql_fn_out_buf(ctx, &b, out, err);
    rsql_buf_deinit(&b);
    return rc;
}

rsql_err_t rsql_fn_eval_split_index(const rsql_bexpr_t *call, const rsql_value_t *args,
                                    rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)ctx;
    (void)err;
    const char *s = args[0].v.s.p, *sep = args[1].v.s.p;
    size_t n = args[0].v.s.len, sn = args[1].v.s.len;
    int64_t want = args[2].v.i;
    out->is_null = true;
    if (want < 0) {
        return RSQL_OK;
    }
    if (sn == 0) { /* no separator: one piece */
        if (want == 0) {
            out->is_null = false;
            out->v.s = args[0].v.s;
        }
        return RSQL_OK;
    }
    size_t at = 0;
    for (int64_t k = 0;; k++) {
        size_t hit = find(s, n, sep, sn, at);
        size_t end = hit == SIZE_MAX ? n : hit;
        if (k == want) {
            out->is_null = false;
            out->v.s.p = s + at;
            out->v.s.len = end - at;
            return RSQL_OK;
        }
        if (hit == SIZE_MAX) {
            return RSQL_OK;
        }
        at = hit + sn;
    }
}

static rsql_err_t pad(const rsql_bexpr_t *call, const rsql_value_t *args, bool left,
                      rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    const char *s = args[0].v.s.p, *p = args[2].v.s.p;
    size_t n = args[0].v.s.len, pn = args[2].v.s.len;
    int64_t want = args[1].v.i;
    if (want < 0) {
        out->is_null = true;
        return RSQL_OK;
    }
    size_t have = char_count(s, n);
    if ((uint64_t)want <= have || pn == 0) {
        out->v.s.p = s;
        out->v.s.len = (uint64_t)want <= have ? char_offset(s, n, (size_t)want) : n;
        return RSQL_OK;
    }
    size_t need = (size_t)want - have, pchars = char_count(p, pn);
    /* the padding: whole copies of pad, then the first characters of one more */
    size_t whole = need / pchars, part = char_offset(p, pn, need % pchars);
    if (whole > (RSQL_FN_MAX_RESULT - n - part) / pn) { /* bounded: no 2 GB pad of one row */
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "result too long");
    }
    size_t total = n + whole * pn + part;
    char *o;
    if (rsql_fn_out_str(ctx, total, &o, err)) {
        return RSQL_ERR_NOMEM;
    }
    size_t at = left ? 0 : n;
    if (!left && n) {
        memcpy(o, s, n);
    }
    for (size_t k = 0; k < whole; k++, at += pn) {
        memcpy(o + at, p, pn);
    }
    memcpy(o + at, p, part);
    at += part;
    if (left && n) {
        memcpy(o + at, s, n);
    }
    out->v.s.p = o;
    out->v.s.len = total;
    return RSQL_OK;
}

rsql_err_t rsql_fn_eval_lpad(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    return pad(call, args, true, ctx, out, err);
}

rsql_err_t rsql_fn_eval_rpad(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    return pad(call, args, false, ctx, out, err);
}

rsql_err_t rsql_fn_eval_position(const rsql_bexpr_t *call, const rsql_value_t *args,
                                 rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    (void)ctx;
    (void)err;
    size_t hit = find(args[1].v.s.p, args[1].v.s.len, args[0].v.s.p, args[0].v.s.len, 0);
    out->v.i = hit == SIZE_MAX ? 0 : (int64_t)char_count(args[1].v.s.p, hit) + 1;
    return RSQL_OK;
}

void rsql_fn_print_position(const rsql_bexpr_t *call, rsql_buf_t *out)
{
    rsql_buf_puts(out, "POSITION(");
    rsql_fn_print_args(call, 0, " IN ", out);
    rsql_buf_putc(out, ')');
}
