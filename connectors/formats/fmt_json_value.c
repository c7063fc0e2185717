/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The json format's values: one JSON value read as a value of a column's (or a nested
 * field's) type, over the scanner of fmt_json_scan.c. Scalars (json_scalar): the rules and
 * fast paths of fmt_json.c's file comment. Nested and exact types (json_typed): a
 * DECIMAL(p, s) (a number or a numeric string, exactly), a DATE (a string), a ROW (an
 * object: keys matched to fields case-insensitively, unknown keys and the
 * fields the statement does not read skipped without building values,
 * missing fields NULL), an ARRAY (an array) or a MAP (an object; the last
 * of duplicate keys wins). A JSON value of the wrong type anywhere is
 * "field 'o.items[2].qty': expected INT, got string \"x\"". For canal-json and maxwell-json
 * (fmt_conf_t.json_str_scalars) a string holding a number or a boolean reads into a numeric
 * or BOOLEAN column, as Flink reads them. The two call each other (a ROW
 * holds scalars; a scalar column read as VARCHAR may hold any JSON).
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static rsql_err_t type_error_at(jp_t *p, const char *name, const char *type, const char *got)
{
    return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS, "field '%s': expected %s, got %s",
                          name, type, got);
}

/* ---- scalars */

#define type_error(p, c, col, got) type_error_at(p, name, rsql_type_name(t), got)


/*
** One JSON value as a scalar column of type t (not DECIMAL, DATE or a
** nested type); name is the field's path for errors. See the file comment.
*/
rsql_err_t json_scalar(rsql_decoder_t *dec, jp_t *p, rsql_type_t t, const char *name,
                       rsql_arena_t *arena, rsql_value_t *v)
{
    if (json_scalar_fast(p, t, arena, v)) {
        return RSQL_OK;
    }
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
        /* escaped (json_scalar_fast took a plain one unless the arena failed): unescaped */
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
            if (rsql_value_parse_double_word(s, n, &v->v.d) ||
                (dec->c.json_str_scalars && rsql_value_parse_double(s, n, &v->v.d, NULL) ==
                                                 RSQL_OK)) {
                return RSQL_OK;
            }
            break;
        case RSQL_TYPE_INT:
        case RSQL_TYPE_BIGINT: /* canal-json, maxwell-json: "42" (as Flink reads them) */
            if (dec->c.json_str_scalars && rsql_value_parse_int(t, s, n, &v->v.i, NULL) ==
                                               RSQL_OK) {
                return RSQL_OK;
            }
            break;
        case RSQL_TYPE_BOOLEAN: /* "true", "false", "1", "0" (MySQL's BOOLEAN is TINYINT(1)) */
            if (dec->c.json_str_scalars && rsql_value_parse_bool(s, n, &v->v.b, NULL) ==
                                               RSQL_OK) {
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

/* ---- nested and exact types */

/* The growing list of a nested value's items while it is read (heap; copied into the arena). */
typedef struct items {
    rsql_value_t *v;
    uint32_t n, cap;
} items_t;

static rsql_value_t *items_add(items_t *it)
{
    if (it->n == it->cap) {
        uint32_t cap = it->cap ? it->cap * 2 : 8;
        rsql_value_t *g = cap > (1u << 24) ? NULL : rsql_realloc(it->v, cap * sizeof *g);
        if (!g) {
            return NULL;
        }
        it->v = g;
        it->cap = cap;
    }
    memset(&it->v[it->n], 0, sizeof it->v[0]);
    return &it->v[it->n++];
}

/* The composite of desc d with n items copied from it, in arena. */
static rsql_err_t make_composite(jp_t *p, const rsql_tdesc_t *d, const rsql_value_t *src,
                                 uint32_t n_items, uint32_t n, rsql_arena_t *arena,
                                 rsql_value_t *v)
{
    rsql_composite_t *c =
        rsql_arena_alloc(arena, sizeof *c + (size_t)n_items * sizeof(rsql_value_t));
    if (!c) {
        return rsql_error_nomem(p->err);
    }
    c->desc = d;
    c->n = n;
    if (n_items) {
        memcpy(c->items, src, (size_t)n_items * sizeof(rsql_value_t));
    }
    memset(v, 0, sizeof *v);
    v->type = d->type;
    v->v.c = c;
    return RSQL_OK;
}

/* A child's path for errors: name.field, name[i], name['key'] (cut to fit). */
static void child_name(char *buf, size_t size, const char *name, const rsql_tdesc_t *d,
                       uint32_t i, const char *key, size_t key_len)
{
    if (d->type == RSQL_TYPE_ROW) {
        snprintf(buf, size, "%s.%s", name, d->names[i]);
    } else if (d->type == RSQL_TYPE_ARRAY) {
        snprintf(buf, size, "%s[%u]", name, i + 1);
    } else {
        snprintf(buf, size, "%s['%.*s']", name, key_len > 40 ? 40 : (int)key_len, key);
    }
}

/*
** A JSON value as a value of type d: DECIMAL (a number or a numeric
** string, exact), DATE (a string), ROW (an object; unknown keys skipped,
** missing fields NULL), ARRAY (an array), MAP (an object), or a scalar as a
** top-level field reads it. null is NULL at any level.
*/
rsql_err_t json_typed(rsql_decoder_t *dec, jp_t *p, const rsql_tdesc_t *d,
                      const fmt_need_t *need, const char *name, rsql_arena_t *arena,
                      rsql_value_t *v, int depth)
{
    char got[80], cname[160];
    rsql_type_t t = d->type;
    if (t != RSQL_TYPE_DECIMAL && t != RSQL_TYPE_DATE && !rsql_type_is_nested(t)) {
        return json_scalar(dec, p, t, name, arena, v);
    }
    memset(v, 0, sizeof *v);
    v->type = t;
    if (p->i >= p->n) {
        return jp_unexpected(p);
    }
    char ch = p->s[p->i];
    size_t at = p->i;
    if (ch == 'n') {
        if (!jp_word(p, "null")) {
            return jp_unexpected(p);
        }
        v->is_null = true;
        return RSQL_OK;
    }
    if (t == RSQL_TYPE_DECIMAL || t == RSQL_TYPE_DATE) {
        const char *s;
        size_t n;
        bool is_int;
        if (ch == '"') {
            if (jp_string(p, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            if (dec->scratch.oom) {
                return rsql_error_nomem(p->err);
            }
            s = dec->scratch.data ? dec->scratch.data : "";
            n = dec->scratch.len;
        } else if (t == RSQL_TYPE_DECIMAL && (ch == '-' || (ch >= '0' && ch <= '9'))) {
            if (jp_number(p, &is_int) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            s = p->s + at;
            n = p->i - at;
        } else if (t == RSQL_TYPE_DATE && dec->c.json_date_days &&
                   (ch == '-' || (ch >= '0' && ch <= '9'))) {
            /* a day count since 1970-01-01 (Debezium's and Kafka Connect's Date) */
            int64_t days = 0;
            if (jp_number(p, &is_int) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            n = p->i - at;
            if (!is_int || rsql_value_parse_int(RSQL_TYPE_BIGINT, p->s + at, n, &days, NULL) ||
                days < -JSON_DATE_MAX_DAYS || days > JSON_DATE_MAX_DAYS) {
                int cut = n > 40 ? 40 : (int)n;
                return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                      "field '%s': number %.*s is not a count of days since "
                                      "1970-01-01 (up to the year 9999)", name, cut, p->s + at);
            }
            v->v.i = days;
            return RSQL_OK;
        } else {
            if (jp_skip(p, depth) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            return type_error_at(p, name, d->text,
                                 ch == '{' ? "object" : ch == '[' ? "array" :
                                 ch == '"' ? "string" : ch == 't' || ch == 'f' ? "boolean" :
                                 "number");
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_err_t rc = t == RSQL_TYPE_DATE ? rsql_value_parse_date(s, n, &v->v.i, &e)
                                            : rsql_value_parse_decimal(s, n, d->precision,
                                                                       d->scale, v, &e);
        if (rc != RSQL_OK) {
            int cut = n > 40 ? 40 : (int)n;
            snprintf(got, sizeof got, "%.*s%s", cut, s, n > 40 ? "..." : "");
            return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS, "field '%s': '%s': %s",
                                  name, got, e.msg);
        }
        v->type = t;
        return RSQL_OK;
    }
    bool want_obj = t != RSQL_TYPE_ARRAY;
    if (ch != (want_obj ? '{' : '[')) {
        if (jp_skip(p, depth) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        return type_error_at(p, name, d->text,
                             ch == '{' ? "object" : ch == '[' ? "array" : ch == '"' ? "string" :
                             ch == 't' || ch == 'f' ? "boolean" : "number");
    }
    if (depth >= JSON_MAX_DEPTH) {
        return jp_fail(p, p->i, "nesting deeper than 64 levels");
    }
    p->i++;
    items_t it = {NULL, 0, 0};
    rsql_err_t rc = RSQL_OK;
    uint32_t n = 0;
    if (t == RSQL_TYPE_ROW) { /* one slot per field, NULL until read */
        for (int f = 0; f < d->n; f++) {
            rsql_value_t *slot = items_add(&it);
            if (!slot) {
                rc = rsql_error_nomem(p->err);
                goto done;
            }
            slot->type = d->children[f]->type;
            slot->is_null = true;
        }
        n = (uint32_t)d->n;
    }
    jp_ws(p);
    if (p->i < p->n && p->s[p->i] == (want_obj ? '}' : ']')) {
        p->i++;
    } else {
        for (;;) {
            jp_ws(p);
            const char *key = NULL;
            size_t key_len = 0;
            int field = -1;
            if (want_obj) {
                if (p->i >= p->n || p->s[p->i] != '"') {
                    rc = p->i >= p->n ? jp_unexpected(p)
                                      : jp_fail(p, p->i, "expected a string key");
                    goto done;
                }
                if (jp_string(p, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                    rc = RSQL_ERR_DECODE;
                    goto done;
                }
                if (dec->scratch.oom) {
                    rc = rsql_error_nomem(p->err);
                    goto done;
                }
                key = dec->scratch.data ? dec->scratch.data : "";
                key_len = dec->scratch.len;
                jp_ws(p);
                if (p->i >= p->n || p->s[p->i] != ':') {
                    rc = p->i >= p->n ? jp_unexpected(p)
                                      : jp_fail(p, p->i, "expected ':' after an object key");
                    goto done;
                }
                p->i++;
                jp_ws(p);
            }
            if (t == RSQL_TYPE_ROW) {
                for (int f = 0; f < d->n && field < 0; f++) {
                    if (strlen(d->names[f]) == key_len &&
                        strncasecmp(d->names[f], key, key_len) == 0) {
                        field = f;
                    }
                }
                bool wanted = field >= 0 && (!need || need->all ||
                                             (need->kids && need->kids[field].used));
                if (!wanted) { /* not a field of the ROW, or unread: skipped, no value built */
                    if (jp_skip(p, depth + 1) != RSQL_OK) {
                        rc = RSQL_ERR_DECODE;
                        goto done;
                    }
                } else {
                    child_name(cname, sizeof cname, name, d, (uint32_t)field, NULL, 0);
                    const fmt_need_t *kid = need && !need->all ? &need->kids[field] : NULL;
                    if ((rc = json_typed(dec, p, d->children[field], kid, cname, arena,
                                         &it.v[field], depth + 1))) {
                        goto done;
                    }
                }
            } else if (t == RSQL_TYPE_MAP) {
                rsql_value_t *kv = items_add(&it);
                rsql_value_t *vv = kv ? items_add(&it) : NULL;
                char *k = vv ? rsql_arena_strndup(arena, key, key_len) : NULL;
                if (!k) {
                    rc = rsql_error_nomem(p->err);
                    goto done;
                }
                kv = &it.v[it.n - 2];
                kv->type = RSQL_TYPE_VARCHAR;
                kv->v.s.p = k;
                kv->v.s.len = key_len;
                bool repeated = false;
                for (uint32_t j = 0; j + 2 < it.n; j += 2) { /* a repeated key: the last wins */
                    if (it.v[j].v.s.len == key_len && !memcmp(it.v[j].v.s.p, k, key_len)) {
                        it.n -= 2;
                        kv = &it.v[j];
                        repeated = true;
                        break;
                    }
                }
                if (!repeated) {
                    n++;
                }
                child_name(cname, sizeof cname, name, d, 0, k, key_len);
                if ((rc = json_typed(dec, p, d->children[1], NULL, cname, arena, kv + 1,
                                     depth + 1))) {
                    goto done;
                }
            } else {
                rsql_value_t *ev = items_add(&it);
                if (!ev) {
                    rc = rsql_error_nomem(p->err);
                    goto done;
                }
                child_name(cname, sizeof cname, name, d, n, NULL, 0);
                if ((rc = json_typed(dec, p, d->children[0], NULL, cname, arena, &it.v[it.n - 1],
                                     depth + 1))) {
                    goto done;
                }
                n++;
            }
            jp_ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->s[p->i] == (want_obj ? '}' : ']')) {
                p->i++;
                break;
            }
            rc = p->i >= p->n ? jp_unexpected(p)
                              : jp_fail(p, p->i,
                                        want_obj ? "expected ',' or '}' in an object"
                                                 : "expected ',' or ']' in an array");
            goto done;
        }
    }
    rc = make_composite(p, d, it.v, it.n, n, arena, v);
done:
    rsql_free(it.v);
    return rc;
}

