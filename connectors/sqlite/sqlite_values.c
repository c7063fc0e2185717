/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sqlite_values: rsql values to and from SQLite for the sqlite connector (sqlite_int.h),
 * the one conversion its source, sink and lookup share. Values go in as the sink stores
 * them (integers, REAL, TEXT, BLOB; a TIMESTAMP, DECIMAL or DATE as its text) and come back
 * where no information is lost: an INTEGER to DOUBLE, a TEXT '12' to INT, TEXT timestamps
 * as the sink writes them or INTEGER epoch milliseconds.
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "connectors/sqlite/sqlite_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *sqlite_type_name(int t)
{
    switch (t) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "NULL";
    }
}

/* See sqlite_int.h. */
rsql_err_t rsql_sqlite__column_value(sqlite3_stmt *st, int k, rsql_type_t t, const char *name,
                                     rsql_arena_t *arena, rsql_value_t *v, rsql_error_t *err)
{
    int st_type = sqlite3_column_type(st, k);
    memset(v, 0, sizeof *v);
    v->type = t;
    if (st_type == SQLITE_NULL) {
        v->is_null = true;
        return RSQL_OK;
    }
    switch (t) {
    case RSQL_TYPE_NULL: v->is_null = true; return RSQL_OK;
    case RSQL_TYPE_BOOLEAN:
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_TIMESTAMP:
        if (st_type == SQLITE_INTEGER) {
            int64_t x = sqlite3_column_int64(st, k);
            if (t == RSQL_TYPE_INT && (x < INT32_MIN || x > INT32_MAX)) {
                break;
            }
            if (t == RSQL_TYPE_BOOLEAN) {
                v->v.b = x != 0;
            } else if (t == RSQL_TYPE_TIMESTAMP) {
                v->v.ts = x;
            } else {
                v->v.i = x;
            }
            return RSQL_OK;
        }
        if (st_type == SQLITE_FLOAT && t != RSQL_TYPE_BOOLEAN) {
            double d = sqlite3_column_double(st, k);
            double lim = t == RSQL_TYPE_INT ? 2147483648.0 : 9223372036854775808.0;
            if (d == floor(d) && d >= -lim && d < lim) {
                if (t == RSQL_TYPE_TIMESTAMP) {
                    v->v.ts = (int64_t)d;
                } else {
                    v->v.i = (int64_t)d;
                }
                return RSQL_OK;
            }
            break;
        }
        if (st_type == SQLITE_TEXT &&
            rsql_value_parse(t, (const char *)sqlite3_column_text(st, k),
                             (size_t)sqlite3_column_bytes(st, k), arena, v, NULL) == RSQL_OK) {
            return RSQL_OK;
        }
        break;
    case RSQL_TYPE_DOUBLE:
        if (st_type == SQLITE_INTEGER || st_type == SQLITE_FLOAT) {
            v->v.d = sqlite3_column_double(st, k);
            return RSQL_OK;
        }
        if (st_type == SQLITE_TEXT &&
            rsql_value_parse(t, (const char *)sqlite3_column_text(st, k),
                             (size_t)sqlite3_column_bytes(st, k), arena, v, NULL) == RSQL_OK) {
            return RSQL_OK;
        }
        break;
    case RSQL_TYPE_DECIMAL:
    case RSQL_TYPE_DATE:
        if (st_type == SQLITE_TEXT || st_type == SQLITE_INTEGER ||
            (st_type == SQLITE_FLOAT && t == RSQL_TYPE_DECIMAL)) {
            const char *txt = (const char *)sqlite3_column_text(st, k);
            size_t n = (size_t)sqlite3_column_bytes(st, k);
            /* a DECIMAL at the text's own scale; the runtime brings it to the column's */
            const char *dot = memchr(txt, '.', n);
            int scale = 0;
            for (size_t j = dot ? (size_t)(dot - txt) + 1 : n; j < n && scale < 38; j++) {
                scale += txt[j] >= '0' && txt[j] <= '9';
            }
            if (t == RSQL_TYPE_DATE
                    ? rsql_value_parse_date(txt, n, &v->v.i, NULL) == RSQL_OK
                    : rsql_value_parse_decimal(txt, n, RSQL_DECIMAL_MAX_PRECISION, scale, v,
                                               NULL) == RSQL_OK) {
                return RSQL_OK;
            }
        }
        break;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP:
    case RSQL_TYPE_INTERVAL: break; /* the sqlite source reads scalar column types only */
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: {
        const void *p = st_type == SQLITE_BLOB ? sqlite3_column_blob(st, k)
                                               : (const void *)sqlite3_column_text(st, k);
        size_t n = (size_t)sqlite3_column_bytes(st, k);
        char *cp = rsql_arena_strndup(arena, p ? p : "", n);
        if (!cp) {
            return rsql_error_nomem(err);
        }
        v->v.s.p = cp;
        v->v.s.len = n;
        return RSQL_OK;
    }
    }
    char got[64] = "";
    if (st_type == SQLITE_TEXT) {
        int n = sqlite3_column_bytes(st, k);
        snprintf(got, sizeof got, " \"%.*s%s\"", n > 40 ? 40 : n,
                 (const char *)sqlite3_column_text(st, k), n > 40 ? "..." : "");
    } else if (st_type != SQLITE_BLOB) {
        snprintf(got, sizeof got, " %s", (const char *)sqlite3_column_text(st, k));
    }
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "column '%s': expected %s, got %s%s",
                          name, rsql_type_name(t), sqlite_type_name(st_type), got);
}

/* See sqlite_int.h. */
int rsql_sqlite__bind_value(sqlite3_stmt *st, int p, const rsql_value_t *v)
{
    int rc = SQLITE_OK;
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        return sqlite3_bind_null(st, p);
    }
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rc = sqlite3_bind_int(st, p, v->v.b ? 1 : 0); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rc = sqlite3_bind_int64(st, p, v->v.i); break;
    case RSQL_TYPE_DOUBLE: rc = sqlite3_bind_double(st, p, v->v.d); break;
    case RSQL_TYPE_VARCHAR:
        rc = sqlite3_bind_text(st, p, v->v.s.p ? v->v.s.p : "", (int)v->v.s.len,
                               SQLITE_STATIC);
        break;
    case RSQL_TYPE_BYTES:
        rc = sqlite3_bind_blob(st, p, v->v.s.p ? v->v.s.p : "", (int)v->v.s.len,
                               SQLITE_STATIC);
        break;
    case RSQL_TYPE_TIMESTAMP: {
        char ts[RSQL_VALUE_TEXT_MAX];
        size_t n = rsql_value_format_timestamp(v->v.ts, ts);
        rc = sqlite3_bind_text(st, p, ts, (int)n, SQLITE_TRANSIENT);
        break;
    }
    case RSQL_TYPE_DECIMAL:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: { /* their text form: exact digits, YYYY-MM-DD, JSON */
        rsql_buf_t tb;
        rsql_buf_init(&tb);
        rsql_value_format(v, &tb);
        rc = tb.oom ? SQLITE_NOMEM
                    : sqlite3_bind_text(st, p, tb.data ? tb.data : "", (int)tb.len,
                                        SQLITE_TRANSIENT);
        rsql_buf_deinit(&tb);
        break;
    }
    default: rc = sqlite3_bind_null(st, p); break;
    }
    return rc;
}

