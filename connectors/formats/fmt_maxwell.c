/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The maxwell-json format: Maxwell's messages, one changed row each, read as Flink's
 * maxwell-json reads them:
 *
 *   {"database":"shop", "table":"orders", "type":"update", "ts":1477053217, "xid":23396,
 *    "commit":true, "data":{"id":111,"weight":5.15}, "old":{"weight":5.18},
 *    "primary_key_columns":["id"]}
 *
 * insert gives +I (data), delete -D (data), update a -U (data with the columns "old" holds
 * replaced by their old values) then a +U (data). Beyond Flink (which fails on any other
 * type): bootstrap-insert, a row of Maxwell's table snapshot, is an insert;
 * bootstrap-start and bootstrap-complete (markers without a row) and Maxwell's DDL
 * messages (table-create, table-alter, table-drop, database-create, -alter, -drop) give
 * no rows and are counted; any other type is an error. Values as canal-json (fmt_canal.c).
 *
 * Metadata: database, table, primary-key-columns (ARRAY<STRING>), ingestion-timestamp
 * (ts, epoch seconds). Encoding: fmt_cdc.c.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const rsql_format_meta_t rsql_fmt__maxwell_meta[] = {
    {"database", RSQL_TYPE_VARCHAR, "The database of the change (`database`)."},
    {"table", RSQL_TYPE_VARCHAR, "The table of the change (`table`)."},
    {"primary-key-columns", RSQL_TYPE_ARRAY,
     "ARRAY<STRING>: the primary key's columns (`primary_key_columns`).", "ARRAY<STRING>"},
    {"ingestion-timestamp", RSQL_TYPE_TIMESTAMP,
     "When Maxwell handled the change (`ts`, epoch seconds)."},
    {NULL, RSQL_TYPE_NULL, NULL},
};

enum { M_DATABASE, M_TABLE, M_PK_COLUMNS, M_INGESTION };
enum { K_DATA, K_OLD, K_TYPE, K_DATABASE, K_TABLE, K_PK_COLUMNS, K_TS, K_N };

/* Maxwell's types that carry no row. */
static const char *const no_row_types[] = {"bootstrap-start", "bootstrap-complete",
                                           "table-create",    "table-alter",
                                           "table-drop",      "database-create",
                                           "database-alter",  "database-drop",
                                           NULL};

/* The wanted metadata of this message into m->meta. */
static rsql_err_t maxwell_meta(cdc_msg_t *m, const cdc_span_t *f)
{
    rsql_err_t rc = RSQL_OK;
    const rsql_tdesc_t *str = rsql_tdesc_scalar(RSQL_TYPE_VARCHAR);
    if (cdc_wants(m, M_DATABASE)) {
        rc = cdc_meta_nested(m, M_DATABASE, f[K_DATABASE], "database", str);
    }
    if (rc == RSQL_OK && cdc_wants(m, M_TABLE)) {
        rc = cdc_meta_nested(m, M_TABLE, f[K_TABLE], "table", str);
    }
    if (rc == RSQL_OK && cdc_wants(m, M_PK_COLUMNS)) {
        rc = cdc_meta_nested(m, M_PK_COLUMNS, f[K_PK_COLUMNS], "primary_key_columns",
                             rsql_tdesc_array(str));
    }
    if (rc == RSQL_OK && cdc_wants(m, M_INGESTION)) {
        int64_t ts;
        bool set;
        rsql_value_t *v = &m->meta[M_INGESTION];
        if ((rc = cdc_int(m, f[K_TS], "ts", &ts, &set)) != RSQL_OK) {
            return rc;
        }
        if (set && (ts > INT64_MAX / 1000 || ts < INT64_MIN / 1000)) {
            return cdc_fail(m, "ts", "epoch seconds in range", f[K_TS]);
        }
        memset(v, 0, sizeof *v);
        v->type = RSQL_TYPE_TIMESTAMP;
        v->is_null = !set;
        v->v.ts = set ? ts * 1000 : 0;
    }
    return rc;
}

/*
** One maxwell-json message into m->out (see the file comment).
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__maxwell_decode(cdc_msg_t *m)
{
    static const char *const keys[K_N] = {"data",  "old", "type", "database",
                                          "table", "primary_key_columns", "ts"};
    cdc_span_t f[K_N];
    const char *type;
    size_t type_n;
    rsql_err_t rc;
    if ((rc = cdc_fields(m, keys, K_N, f)) != RSQL_OK ||
        (rc = cdc_str(m, f[K_TYPE], "type", &type, &type_n)) != RSQL_OK) {
        return rc;
    }
    if (!type) {
        return cdc_fail(m, "type", "a string", f[K_TYPE]);
    }
    int kind;
    if (strcmp(type, "insert") == 0 || strcmp(type, "bootstrap-insert") == 0) {
        kind = RSQL_ROW_INSERT;
    } else if (strcmp(type, "update") == 0) {
        kind = RSQL_ROW_UPDATE_AFTER;
    } else if (strcmp(type, "delete") == 0) {
        kind = RSQL_ROW_DELETE;
    } else {
        for (int i = 0; no_row_types[i]; i++) {
            if (strcmp(type, no_row_types[i]) == 0) {
                m->dec->skips.ddl++;
                return RSQL_OK;
            }
        }
        char q[56];
        rsql_fmt__quote_for_msg(type, type_n, q, sizeof q);
        return rsql_error_set(m->p.err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "maxwell-json: unknown type %s (expected insert, update, delete "
                              "or bootstrap-insert)",
                              q);
    }
    if (cdc_null(m, f[K_DATA]) || m->p.s[f[K_DATA].at] != '{') {
        return cdc_fail(m, "data", "an object", f[K_DATA]);
    }
    cdc_span_t old = {0, 0};
    if (kind == RSQL_ROW_UPDATE_AFTER && !cdc_null(m, f[K_OLD])) {
        old = f[K_OLD];
        if (m->p.s[old.at] != '{') {
            return cdc_fail(m, "old", "an object", old);
        }
    }
    if ((rc = maxwell_meta(m, f)) != RSQL_OK) {
        return rc;
    }
    return cdc_rows(m, kind, f[K_DATA], old, "data", "old");
}
