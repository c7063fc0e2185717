/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The canal-json format: Canal's flat messages (what `canal.serverMode = rocketMQ` with
 * `flatMessage = true` publishes), read as Flink's canal-json reads them:
 *
 *   {"data":[{"id":"1","name":"a"},...], "old":[{"name":"b"},...], "type":"UPDATE",
 *    "database":"shop", "table":"orders", "pkNames":["id"], "sqlType":{"id":4,...},
 *    "es":1589373560000, "ts":1589373560798, "isDdl":false, ...}
 *
 * One message holds one statement's rows: INSERT gives +I per item of "data", DELETE -D per
 * item, UPDATE per item i a -U (data[i] with the columns old[i] holds replaced by their old
 * values: "old" names only the changed columns) then a +U (data[i]). A DDL message (isDdl
 * true, or a type such as CREATE, ALTER, QUERY) gives no rows and is counted; so does a
 * message of a database or table the include options (regular expressions matching the
 * whole name) leave out. Values are read by the json rules, except that a string holding a
 * number or a boolean reads as one (Canal writes every value as a string). Errors name the
 * place: "field 'data[2].amount': expected INT, got string \"x\"" (items count from 1).
 *
 * Metadata (rsql_decoder_want_meta): database, table, sql-type (MAP<STRING, INT>, sqlType),
 * pk-names (ARRAY<STRING>, pkNames), ingestion-timestamp (ts) and event-timestamp (es),
 * both epoch milliseconds. Encoding: fmt_cdc.c.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const rsql_format_meta_t rsql_fmt__canal_meta[] = {
    {"database", RSQL_TYPE_VARCHAR, "The database of the change (`database`)."},
    {"table", RSQL_TYPE_VARCHAR, "The table of the change (`table`)."},
    {"sql-type", RSQL_TYPE_MAP, "MAP<STRING, INT>: each column's JDBC type code (`sqlType`).",
     "MAP<STRING, INT>"},
    {"pk-names", RSQL_TYPE_ARRAY, "ARRAY<STRING>: the primary key's columns (`pkNames`).",
     "ARRAY<STRING>"},
    {"ingestion-timestamp", RSQL_TYPE_TIMESTAMP,
     "When Canal handled the change (`ts`, epoch milliseconds)."},
    {"event-timestamp", RSQL_TYPE_TIMESTAMP,
     "When the change was made in the database (`es`, epoch milliseconds)."},
    {NULL, RSQL_TYPE_NULL, NULL},
};

enum { M_DATABASE, M_TABLE, M_SQL_TYPE, M_PK_NAMES, M_INGESTION, M_EVENT };
enum { K_DATA, K_OLD, K_TYPE, K_ISDDL, K_DATABASE, K_TABLE, K_PKNAMES, K_SQLTYPE, K_TS, K_ES,
       K_N };

/* Canal's event types that carry no rows (DDL and control events). */
static const char *const ddl_types[] = {"CREATE", "ALTER", "ERASE", "QUERY", "TRUNCATE",
                                        "RENAME", "CINDEX", "DINDEX", "GTID", "XACOMMIT",
                                        "XAROLLBACK", "MHEARTBEAT", NULL};

/* The wanted metadata of this message into m->meta. */
static rsql_err_t canal_meta(cdc_msg_t *m, const cdc_span_t *f)
{
    static const int key_of[] = {K_DATABASE, K_TABLE, K_SQLTYPE, K_PKNAMES, K_TS, K_ES};
    static const char *const names[] = {"database", "table", "sqlType", "pkNames", "ts", "es"};
    for (int i = 0; i <= M_EVENT; i++) {
        if (!cdc_wants(m, i)) {
            continue;
        }
        const rsql_tdesc_t *d;
        switch (i) {
        case M_SQL_TYPE: d = rsql_tdesc_map(rsql_tdesc_scalar(RSQL_TYPE_INT)); break;
        case M_PK_NAMES: d = rsql_tdesc_array(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR)); break;
        case M_INGESTION:
        case M_EVENT: d = rsql_tdesc_scalar(RSQL_TYPE_TIMESTAMP); break;
        default: d = rsql_tdesc_scalar(RSQL_TYPE_VARCHAR); break;
        }
        rsql_err_t rc = cdc_meta_nested(m, i, f[key_of[i]], names[i], d);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/*
** One canal-json message into m->out (see the file comment).
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__canal_decode(cdc_msg_t *m)
{
    static const char *const keys[K_N] = {"data",  "old",     "type",    "isDdl", "database",
                                          "table", "pkNames", "sqlType", "ts",    "es"};
    rsql_decoder_t *dec = m->dec;
    cdc_span_t f[K_N];
    const char *db, *tbl, *type;
    size_t db_n, tbl_n, type_n;
    bool ddl;
    rsql_err_t rc;
    if ((rc = cdc_fields(m, keys, K_N, f)) != RSQL_OK ||
        (rc = cdc_str(m, f[K_DATABASE], "database", &db, &db_n)) != RSQL_OK ||
        (rc = cdc_str(m, f[K_TABLE], "table", &tbl, &tbl_n)) != RSQL_OK ||
        (rc = cdc_str(m, f[K_TYPE], "type", &type, &type_n)) != RSQL_OK ||
        (rc = cdc_bool(m, f[K_ISDDL], "isDdl", &ddl)) != RSQL_OK) {
        return rc;
    }
    if ((dec->c.cdc_db_re && (!db || !cdc_match(dec->c.cdc_db_re, db, db_n))) ||
        (dec->c.cdc_tbl_re && (!tbl || !cdc_match(dec->c.cdc_tbl_re, tbl, tbl_n)))) {
        dec->skips.filtered++;
        return RSQL_OK;
    }
    if (ddl) {
        dec->skips.ddl++;
        return RSQL_OK;
    }
    if (!type) {
        return cdc_fail(m, "type", "a string", f[K_TYPE]);
    }
    int kind;
    if (strcasecmp(type, "INSERT") == 0) {
        kind = RSQL_ROW_INSERT;
    } else if (strcasecmp(type, "UPDATE") == 0) {
        kind = RSQL_ROW_UPDATE_AFTER;
    } else if (strcasecmp(type, "DELETE") == 0) {
        kind = RSQL_ROW_DELETE;
    } else {
        for (int i = 0; ddl_types[i]; i++) {
            if (strcasecmp(type, ddl_types[i]) == 0) {
                dec->skips.ddl++;
                return RSQL_OK;
            }
        }
        char q[56];
        rsql_fmt__quote_for_msg(type, type_n, q, sizeof q);
        return rsql_error_set(m->p.err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "canal-json: unknown type %s (expected INSERT, UPDATE or DELETE)",
                              q);
    }
    int n, n_old = 0;
    if (cdc_null(m, f[K_DATA])) {
        return cdc_fail(m, "data", "an array", f[K_DATA]);
    }
    if ((rc = cdc_items(m, f[K_DATA], "data", &n)) != RSQL_OK) {
        return rc;
    }
    bool has_old = kind == RSQL_ROW_UPDATE_AFTER && !cdc_null(m, f[K_OLD]);
    if (has_old && (rc = cdc_items(m, f[K_OLD], "old", &n_old)) != RSQL_OK) {
        return rc;
    }
    if (has_old && n_old != n) {
        return rsql_error_set(m->p.err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "canal-json: 'old' has %d rows, 'data' has %d", n_old, n);
    }
    if ((rc = canal_meta(m, f)) != RSQL_OK ||
        (rc = cdc_reserve(m, kind == RSQL_ROW_UPDATE_AFTER ? 2 * n : n)) != RSQL_OK) {
        return rc;
    }
    size_t it = f[K_DATA].at, it_old = f[K_OLD].at;
    cdc_span_t item, old = {0, 0};
    for (int i = 1; cdc_next(m, f[K_DATA], &it, &item); i++) {
        char where[32], old_where[32];
        snprintf(where, sizeof where, "data[%d]", i);
        snprintf(old_where, sizeof old_where, "old[%d]", i);
        if (has_old && !cdc_next(m, f[K_OLD], &it_old, &old)) {
            old = (cdc_span_t){0, 0};
        }
        if (has_old && m->p.s[old.at] != '{') {
            return cdc_fail(m, old_where, "an object", old);
        }
        if ((rc = cdc_rows(m, kind, item, old, where, old_where)) != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}
