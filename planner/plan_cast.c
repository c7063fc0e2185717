/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_cast: value conversions, shared by the binder (constant literals
 * converted at plan time, e.g. a VARCHAR literal compared with a TIMESTAMP)
 * and the evaluator (CAST and the implicit widening casts). Conversions
 * from and to VARCHAR use the canonical text forms of base/rsql_value.h
 * (the same the formats read and the sinks print); VARCHAR <-> BYTES keeps
 * the bytes as they are (BYTES -> VARCHAR only when they are valid UTF-8).
 *
 * The allowed matrix (rsql_plan__castable): numeric <-> numeric, any <->
 * VARCHAR, VARCHAR -> BYTES, BOOLEAN <-> INT/BIGINT, TIMESTAMP <->
 * INT/BIGINT (milliseconds since the epoch), NULL -> any; DECIMAL <->
 * numeric and VARCHAR, DATE <-> TIMESTAMP and VARCHAR, ROW/ARRAY/MAP ->
 * VARCHAR (their JSON text); nothing else converts into a nested type.
 */
#include "config.h"
#include "planner/plan_int.h"
#include "base/rsql_value.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether CAST(from AS to) is allowed (the matrix above). */
bool rsql_plan__castable(rsql_type_t from, rsql_type_t to)
{
    if (from == to || from == RSQL_TYPE_NULL) {
        return true;
    }
    if (rsql_type_is_numeric(from) && rsql_type_is_numeric(to)) {
        return true;
    }
    if (rsql_type_is_nested(to)) {
        return false; /* equal nested types are checked by the binder on descriptors */
    }
    if (from == RSQL_TYPE_VARCHAR || to == RSQL_TYPE_VARCHAR) {
        return true;
    }
    bool from_num = rsql_type_is_numeric(from) || from == RSQL_TYPE_DECIMAL;
    bool to_num = rsql_type_is_numeric(to) || to == RSQL_TYPE_DECIMAL;
    if (from_num && to_num) {
        return true;
    }
    if ((from == RSQL_TYPE_DATE && to == RSQL_TYPE_TIMESTAMP) ||
        (from == RSQL_TYPE_TIMESTAMP && to == RSQL_TYPE_DATE)) {
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
        return rsql_error_nomem(err);
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
    char text[RSQL_VALUE_TEXT_MAX];
    switch (v->type) {
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: {
        int n = v->v.s.len > 60 ? 60 : (int)v->v.s.len;
        snprintf(buf, size, "'%.*s%s'", n, v->v.s.p, v->v.s.len > 60 ? "..." : "");
        return;
    }
    case RSQL_TYPE_DOUBLE: rsql_value_format_double(v->v.d, text); break;
    case RSQL_TYPE_TIMESTAMP: rsql_value_format_timestamp(v->v.ts, text); break;
    case RSQL_TYPE_BOOLEAN: snprintf(text, sizeof text, "%s", rsql_value_bool_text(v->v.b)); break;
    case RSQL_TYPE_DECIMAL: rsql_value_format_decimal(v, text); break;
    case RSQL_TYPE_DATE: rsql_value_format_date(v->v.i, text); break;
    case RSQL_TYPE_INTERVAL: rsql_value_format_interval(v->v.i, text); break;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: snprintf(text, sizeof text, "a %s", rsql_type_name(v->type)); break;
    default: rsql_value_format_int(v->v.i, text); break;
    }
    snprintf(buf, size, "%s", text);
}

static rsql_err_t cast_fail(const rsql_value_t *v, rsql_type_t to, rsql_pos_t pos,
                            rsql_error_t *err)
{
    char what[96];
    describe(v, what, sizeof(what));
    return rsql_error_set(err, RSQL_ERR_EVAL, pos, "cannot cast %s to %s", what,
                          rsql_type_name(to));
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
    case RSQL_TYPE_DECIMAL:
        if (rsql_value_decimal_to_int(v, INT64_MIN, INT64_MAX, &i, NULL) != RSQL_OK) {
            return cast_fail(v, to, pos, err);
        }
        break;
    case RSQL_TYPE_DOUBLE: {
        double t = trunc(v->v.d);
        if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
            return cast_fail(v, to, pos, err);
        }
        i = (int64_t)t;
        break;
    }
    case RSQL_TYPE_VARCHAR:
        if (rsql_value_parse_int(to, v->v.s.p, v->v.s.len, &i, NULL) != RSQL_OK) {
            return cast_fail(v, to, pos, err);
        }
        break;
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
    char buf[RSQL_VALUE_TEXT_MAX];
    switch (to) {
    case RSQL_TYPE_NULL: r.is_null = true; break;
    case RSQL_TYPE_BOOLEAN:
        if (v->type == RSQL_TYPE_BOOLEAN) {
            r.v.b = v->v.b;
        } else if (v->type == RSQL_TYPE_VARCHAR) {
            if (rsql_value_parse_bool(v->v.s.p, v->v.s.len, &r.v.b, NULL) != RSQL_OK) {
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
            if (rsql_value_parse_timestamp(v->v.s.p, v->v.s.len, &r.v.ts, NULL) != RSQL_OK) {
                return cast_fail(v, to, pos, err);
            }
        } else if (v->type == RSQL_TYPE_DATE) {
            r.v.ts = v->v.i * 86400000; /* a DATE's range is a TIMESTAMP's / 86400000 */
        } else {
            rc = to_integer(v, RSQL_TYPE_BIGINT, pos, &r.v.ts, err);
        }
        break;
    case RSQL_TYPE_DATE:
        if (v->type == RSQL_TYPE_VARCHAR) {
            if (rsql_value_parse_date(v->v.s.p, v->v.s.len, &r.v.i, NULL) != RSQL_OK) {
                return cast_fail(v, to, pos, err);
            }
        } else if (v->type == RSQL_TYPE_DATE) {
            r.v.i = v->v.i;
        } else if (v->type == RSQL_TYPE_TIMESTAMP) { /* the day of the instant (UTC) */
            r.v.i = v->v.ts / 86400000 - (v->v.ts % 86400000 < 0);
        } else {
            return cast_fail(v, to, pos, err);
        }
        break;
    case RSQL_TYPE_DECIMAL:
        return rsql_plan__cast_value_desc(v, to, NULL, ctx, a, pos, out, err);
    case RSQL_TYPE_INTERVAL: /* from its text form (no CAST names the type; kept for symmetry) */
        if (v->type == RSQL_TYPE_INTERVAL) {
            r.v.i = v->v.i;
        } else if (v->type != RSQL_TYPE_VARCHAR ||
                   rsql_value_parse_interval(v->v.s.p, v->v.s.len, &r.v.i, NULL) != RSQL_OK) {
            return cast_fail(v, to, pos, err);
        }
        break;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP:
        if (v->type != to) {
            return cast_fail(v, to, pos, err);
        }
        r = *v;
        break;
    case RSQL_TYPE_DOUBLE:
        if (v->type == RSQL_TYPE_DOUBLE) {
            r.v.d = v->v.d;
        } else if (v->type == RSQL_TYPE_VARCHAR) {
            rc = rsql_value_parse_double(v->v.s.p, v->v.s.len, &r.v.d, NULL);
            if (rc == RSQL_ERR_NOMEM) {
                return rsql_error_nomem(err);
            }
            if (rc != RSQL_OK) {
                return cast_fail(v, to, pos, err);
            }
        } else if (v->type == RSQL_TYPE_DECIMAL) {
            r.v.d = rsql_value_decimal_to_double(v);
        } else {
            r.v.d = (double)v->v.i;
        }
        break;
    case RSQL_TYPE_VARCHAR:
        switch (v->type) {
        case RSQL_TYPE_VARCHAR: r.v.s = v->v.s; break;
        case RSQL_TYPE_BYTES:
            if (!rsql_value_utf8_valid(v->v.s.p, v->v.s.len)) {
                return rsql_error_set(err, RSQL_ERR_EVAL, pos,
                                      "cannot cast BYTES to VARCHAR: not valid UTF-8");
            }
            r.v.s = v->v.s;
            break;
        case RSQL_TYPE_BOOLEAN: {
            const char *t = rsql_value_bool_text(v->v.b);
            r.v.s.p = t;
            r.v.s.len = strlen(t);
            break;
        }
        case RSQL_TYPE_DOUBLE:
            rc = set_str(ctx, a, buf, rsql_value_format_double(v->v.d, buf), &r, err);
            break;
        case RSQL_TYPE_TIMESTAMP:
            rc = set_str(ctx, a, buf, rsql_value_format_timestamp(v->v.ts, buf), &r, err);
            break;
        case RSQL_TYPE_DECIMAL:
        case RSQL_TYPE_DATE:
        case RSQL_TYPE_INTERVAL:
        case RSQL_TYPE_ROW:
        case RSQL_TYPE_ARRAY:
        case RSQL_TYPE_MAP: {
            rsql_buf_t tb;
            rsql_buf_init(&tb);
            rsql_value_format(v, &tb);
            rc = tb.oom ? rsql_error_nomem(err)
                        : set_str(ctx, a, tb.data ? tb.data : "", tb.len, &r, err);
            rsql_buf_deinit(&tb);
            break;
        }
        default: rc = set_str(ctx, a, buf, rsql_value_format_int(v->v.i, buf), &r, err); break;
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

/*
** CAST(v AS to) where to may be a DECIMAL(p, s) (desc; NULL = DECIMAL(10,
** 0)); other types as rsql_plan__cast_value.
*/
rsql_err_t rsql_plan__cast_value_desc(const rsql_value_t *v, rsql_type_t to,
                                      const rsql_tdesc_t *desc, rsql_eval_ctx_t *ctx,
                                      rsql_arena_t *a, rsql_pos_t pos, rsql_value_t *out,
                                      rsql_error_t *err)
{
    if (to != RSQL_TYPE_DECIMAL) {
        return rsql_plan__cast_value(v, to, ctx, a, pos, out, err);
    }
    const rsql_tdesc_t *d = rsql_tdesc_of(RSQL_TYPE_DECIMAL, desc);
    rsql_value_t r;
    rsql_err_t rc;
    memset(&r, 0, sizeof r);
    r.type = to;
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        r.is_null = true;
        *out = r;
        return RSQL_OK;
    }
    switch (v->type) {
    case RSQL_TYPE_DECIMAL: rc = rsql_value_decimal_rescale(v, d->precision, d->scale, &r, NULL); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
        rc = rsql_value_decimal_from_int(v->v.i, d->precision, d->scale, &r, NULL);
        break;
    case RSQL_TYPE_DOUBLE:
        rc = rsql_value_decimal_from_double(v->v.d, d->precision, d->scale, &r, NULL);
        break;
    case RSQL_TYPE_VARCHAR:
        rc = rsql_value_parse_decimal(v->v.s.p, v->v.s.len, d->precision, d->scale, &r, NULL);
        break;
    default: rc = RSQL_ERR_EVAL; break;
    }
    if (rc != RSQL_OK) {
        char what[96];
        describe(v, what, sizeof(what));
        return rsql_error_set(err, RSQL_ERR_EVAL, pos, "cannot cast %s to %s", what, d->text);
    }
    *out = r;
    return RSQL_OK;
}
