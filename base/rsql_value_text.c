/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The text of a value of any type (rsql_value.h has the rules): parsing and formatting by
 * type, over the scalar forms of rsql_value.c and the exact ones (DECIMAL, DATE) of
 * rsql_value_exact.c, and the JSON text of values, which ROW, ARRAY and MAP values print as
 * (CAST(x AS VARCHAR), the SELECT preview, sinks without a nested encoding). Formatting a
 * value and its JSON text call each other (a ROW holds values; a value prints its ROW).
 */
#include "config.h"
#include "base/rsql_value.h"

#include <string.h>

static rsql_err_t fail(rsql_error_t *err, const char *why)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "%s", why);
}

/* ---- any type */

/*
** Parse text s as a value of type t (see rsql_value.h).
*/
rsql_err_t rsql_value_parse(rsql_type_t t, const char *s, size_t n, rsql_arena_t *arena,
                            rsql_value_t *out, rsql_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->type = t;
    switch (t) {
    case RSQL_TYPE_NULL: out->is_null = true; return RSQL_OK;
    case RSQL_TYPE_BOOLEAN: return rsql_value_parse_bool(s, n, &out->v.b, err);
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: return rsql_value_parse_int(t, s, n, &out->v.i, err);
    case RSQL_TYPE_DOUBLE: return rsql_value_parse_double(s, n, &out->v.d, err);
    case RSQL_TYPE_TIMESTAMP: return rsql_value_parse_timestamp(s, n, &out->v.ts, err);
    case RSQL_TYPE_BYTES: {
        const uint8_t *p = NULL;
        rsql_err_t rc = rsql_value_parse_bytes(s, n, arena, &p, &out->v.s.len, err);
        out->v.s.p = (const char *)p;
        return rc;
    }
    case RSQL_TYPE_DECIMAL:
        return rsql_value_parse_decimal(s, n, RSQL_DECIMAL_DEFAULT_PRECISION, 0, out, err);
    case RSQL_TYPE_DATE: return rsql_value_parse_date(s, n, &out->v.i, err);
    case RSQL_TYPE_INTERVAL: return rsql_value_parse_interval(s, n, &out->v.i, err);
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: return fail(err, "nested values have no text form to read");
    case RSQL_TYPE_VARCHAR: {
        char *p = rsql_arena_strndup(arena, s, n);
        if (!p) {
            return rsql_error_nomem(err);
        }
        out->v.s.p = p;
        out->v.s.len = n;
        return RSQL_OK;
    }
    }
    return fail(err, "unknown type");
}

/*
** Append the canonical text of v to out (see rsql_value.h).
*/
void rsql_value_format(const rsql_value_t *v, rsql_buf_t *out)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    if (v->is_null) {
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_NULL: break;
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(out, rsql_value_bool_text(v->v.b)); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_append(out, buf, rsql_value_format_int(v->v.i, buf)); break;
    case RSQL_TYPE_DOUBLE:
        rsql_buf_append(out, buf, rsql_value_format_double(v->v.d, buf));
        break;
    case RSQL_TYPE_TIMESTAMP:
        rsql_buf_append(out, buf, rsql_value_format_timestamp(v->v.ts, buf));
        break;
    case RSQL_TYPE_VARCHAR: rsql_buf_append(out, v->v.s.p, v->v.s.len); break;
    case RSQL_TYPE_BYTES:
        rsql_value_format_bytes((const uint8_t *)v->v.s.p, v->v.s.len, out);
        break;
    case RSQL_TYPE_DECIMAL:
        rsql_buf_append(out, buf, rsql_value_format_decimal(v, buf));
        break;
    case RSQL_TYPE_DATE: rsql_buf_append(out, buf, rsql_value_format_date(v->v.i, buf)); break;
    case RSQL_TYPE_INTERVAL:
        rsql_buf_append(out, buf, rsql_value_format_interval(v->v.i, buf));
        break;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: rsql_value_format_json(v, out); break;
    }
}

rsql_err_t rsql_value_parse_as(rsql_type_t t, const rsql_tdesc_t *desc, const char *s, size_t n,
                               rsql_arena_t *arena, rsql_value_t *out, rsql_error_t *err)
{
    if (t == RSQL_TYPE_DECIMAL) {
        const rsql_tdesc_t *d = rsql_tdesc_of(t, desc);
        return rsql_value_parse_decimal(s, n, d->precision, d->scale, out, err);
    }
    return rsql_value_parse(t, s, n, arena, out, err);
}

/* ---- JSON text of values (nested values print as JSON) */

void rsql_value_json_string(const char *s, size_t n, rsql_buf_t *out)
{
    static const char hex[] = "0123456789abcdef";
    rsql_buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': rsql_buf_puts(out, "\\\""); break;
        case '\\': rsql_buf_puts(out, "\\\\"); break;
        case '\n': rsql_buf_puts(out, "\\n"); break;
        case '\r': rsql_buf_puts(out, "\\r"); break;
        case '\t': rsql_buf_puts(out, "\\t"); break;
        case '\b': rsql_buf_puts(out, "\\b"); break;
        case '\f': rsql_buf_puts(out, "\\f"); break;
        default:
            if (c < 0x20) {
                char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
                rsql_buf_puts(out, u);
            } else {
                rsql_buf_putc(out, (char)c);
            }
        }
    }
    rsql_buf_putc(out, '"');
}

void rsql_value_format_json(const rsql_value_t *v, rsql_buf_t *out)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        rsql_buf_puts(out, "null");
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN:
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DECIMAL: rsql_value_format(v, out); return;
    case RSQL_TYPE_DOUBLE:
        if (v->v.d != v->v.d || v->v.d - v->v.d != 0) { /* NaN, Infinity: no JSON number */
            size_t n = rsql_value_format_double(v->v.d, buf);
            rsql_value_json_string(buf, n, out);
        } else {
            rsql_value_format(v, out);
        }
        return;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: {
        const rsql_composite_t *c = v->v.c;
        bool obj = v->type != RSQL_TYPE_ARRAY;
        rsql_buf_putc(out, obj ? '{' : '[');
        for (uint32_t i = 0; i < c->n; i++) {
            if (i) {
                rsql_buf_putc(out, ',');
            }
            if (v->type == RSQL_TYPE_ROW) {
                const char *name = c->desc->names[i];
                rsql_value_json_string(name, strlen(name), out);
                rsql_buf_putc(out, ':');
                rsql_value_format_json(&c->items[i], out);
            } else if (v->type == RSQL_TYPE_MAP) {
                const rsql_value_t *k = &c->items[2 * i];
                rsql_value_json_string(k->v.s.p, k->v.s.len, out);
                rsql_buf_putc(out, ':');
                rsql_value_format_json(&c->items[2 * i + 1], out);
            } else {
                rsql_value_format_json(&c->items[i], out);
            }
        }
        rsql_buf_putc(out, obj ? '}' : ']');
        return;
    }
    default: {
        rsql_buf_t tmp;
        rsql_buf_init(&tmp);
        rsql_value_format(v, &tmp);
        rsql_value_json_string(tmp.data ? tmp.data : "", tmp.len, out);
        if (tmp.oom) {
            out->oom = true;
        }
        rsql_buf_deinit(&tmp);
        return;
    }
    }
}
