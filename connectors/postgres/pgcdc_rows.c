/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_rows: a pgoutput value as a value of the rocketsql column's type (one conversion
 * for the stream and the snapshot, pgcdc_int.h), and a relation's column map: for each
 * rocketsql column, the index of its column in the Relation message, checked again when the
 * server sends a changed definition: a column added, or dropped, that the rocketsql table
 * does not read is ignored; a read column dropped or of another type stops the job, or,
 * under schema-change.mode 'follow', reads as NULL (unless the rocketsql table cannot go
 * without it) or by its new type (when that converts).
 */
#include "config.h"
#include "base/rsql_log.h"
#include "base/rsql_value.h"
#include "connectors/postgres/pgcdc_int.h"

#include <stdio.h>
#include <string.h>

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_value(const rsql_pgoutput_col_t *col, const rsql_pgoutput_datum_t *d,
                            rsql_type_t type, rsql_arena_t *arena, rsql_value_t *out,
                            rsql_error_t *err)
{
    rsql_type_t natural = rsql_pgoutput_type(col->type_oid);
    if (d->kind == 'n') {
        memset(out, 0, sizeof *out);
        out->type = type;
        out->is_null = true;
        return RSQL_OK;
    }
    if (type == RSQL_TYPE_VARCHAR && natural != RSQL_TYPE_VARCHAR && d->kind == 't') {
        /* any column reads as VARCHAR: PostgreSQL's own text of it */
        char *p = rsql_arena_strndup(arena, (const char *)d->data, d->len);
        if (!p) {
            return rsql_error_nomem(err);
        }
        memset(out, 0, sizeof *out);
        out->type = RSQL_TYPE_VARCHAR;
        out->v.s.p = p;
        out->v.s.len = d->len;
        return RSQL_OK;
    }
    rsql_err_t rc = rsql_pgoutput_value(col, d, arena, out, err);
    if (rc != RSQL_OK || out->type == type) {
        return rc;
    }
    bool integer = out->type == RSQL_TYPE_INT || out->type == RSQL_TYPE_BIGINT;
    if (integer && type == RSQL_TYPE_BIGINT) {
        out->type = RSQL_TYPE_BIGINT;
        return RSQL_OK;
    }
    if (integer && type == RSQL_TYPE_DOUBLE) {
        double v = (double)out->v.i;
        out->type = RSQL_TYPE_DOUBLE;
        out->v.d = v;
        return RSQL_OK;
    }
    if (integer && type == RSQL_TYPE_DECIMAL) {
        return rsql_value_decimal_from_int(out->v.i, 38, 0, out, err);
    }
    return rsql_error_set(err, RSQL_ERR_TYPE, RSQL_NOPOS,
                          "column '%s': a %s value does not convert to %s", col->name,
                          rsql_type_name(out->type), rsql_type_name(type));
}

/* See pgcdc_int.h. */
bool rsql_pgcdc_converts(uint32_t type_oid, rsql_type_t type)
{
    rsql_type_t natural = rsql_pgoutput_type(type_oid);
    bool integer = natural == RSQL_TYPE_INT || natural == RSQL_TYPE_BIGINT;
    return natural == type || type == RSQL_TYPE_VARCHAR ||
           (integer && (type == RSQL_TYPE_BIGINT || type == RSQL_TYPE_DOUBLE ||
                        type == RSQL_TYPE_DECIMAL));
}

/*
** Column i is gone from rel: under schema-change.mode 'fail', or for a column the table cannot
** go without, the job's error; under 'follow' it reads as NULL from now on (a warning when
** m had it: on a first mapping the check of the tables at the start warned).
*/
static rsql_err_t column_gone(const rsql_pgcdc_map_t *m, const rsql_pgcdc_table_t *t, int i,
                              const char *name, const rsql_pgcdc_follow_t *follow,
                              const char *what, rsql_error_t *err)
{
    if (!follow) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "%s: table %s.%s changed while the job ran: column '%s', "
                              "which the job reads, was dropped or renamed (stop the job, "
                              "change the rocketsql table, start it again; or set "
                              "schema-change.mode 'follow' to read it as NULL)",
                              what, t->schema, t->name, name);
    }
    if (follow->required && follow->required[i]) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "%s: table %s.%s changed while the job ran: column '%s', "
                              "which the job reads, was dropped or renamed, and the rocketsql "
                              "table's column is NOT NULL or in its PRIMARY KEY, so it cannot "
                              "read as NULL (schema-change.mode 'follow')",
                              what, t->schema, t->name, name);
    }
    if (m->col && m->col[i] != RSQL_PGCDC_COL_GONE) { /* a first mapping: warned at the start */
        rsql_log(RSQL_LOG_WARN, "postgres-cdc",
                 "%s: table %s.%s: column '%s' was dropped or renamed: it reads as NULL from "
                 "now on (schema-change.mode 'follow')",
                 what, t->schema, t->name, name);
    }
    return RSQL_OK;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_map(rsql_pgcdc_map_t *m, const rsql_pgoutput_rel_t *rel,
                          const rsql_pgcdc_table_t *t, int n, const char *const *names,
                          const char *const *meta, const rsql_pgcdc_follow_t *follow,
                          const char *what, rsql_error_t *err)
{
    int *col = rsql_calloc((size_t)n + 1, sizeof *col);
    int *pk = rsql_calloc((size_t)t->n_pk + 1, sizeof *pk);
    if (!col || !pk) {
        rsql_free(col);
        rsql_free(pk);
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = RSQL_OK;
    for (int i = 0; i < n && rc == RSQL_OK; i++) {
        col[i] = -1;
        if (meta && meta[i]) {
            continue;
        }
        for (int j = 0; j < rel->n_cols && col[i] < 0; j++) {
            col[i] = strcmp(rel->cols[j].name, names[i]) == 0 ? j : -1;
        }
        if (col[i] < 0) {
            rc = column_gone(m, t, i, names[i], follow, what, err);
            col[i] = RSQL_PGCDC_COL_GONE;
            continue;
        }
        uint32_t oid = rel->cols[col[i]].type_oid;
        bool was = m->col && m->col[i] >= 0 && m->type_oid;
        if (was && m->type_oid[i] != oid && !follow) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                                "%s: table %s.%s changed while the job ran: column '%s', "
                                "which the job reads, changed its type (type OID %u, was %u; "
                                "schema-change.mode 'follow' reads it by its new type when "
                                "that converts)",
                                what, t->schema, t->name, names[i], oid, m->type_oid[i]);
        } else if (was && m->type_oid[i] != oid && !rsql_pgcdc_converts(oid, follow->types[i])) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                                "%s: table %s.%s changed while the job ran: column '%s', "
                                "which the job reads, changed its type (type OID %u, was %u), "
                                "and its values (%s) do not convert to the column's %s",
                                what, t->schema, t->name, names[i], oid, m->type_oid[i],
                                rsql_type_name(rsql_pgoutput_type(oid)),
                                rsql_type_name(follow->types[i]));
        } else if (was && m->type_oid[i] != oid) {
            rsql_log(RSQL_LOG_WARN, "postgres-cdc",
                     "%s: table %s.%s: column '%s' changed its type (type OID %u, was %u): "
                     "read by its new type from now on (schema-change.mode 'follow')",
                     what, t->schema, t->name, names[i], oid, m->type_oid[i]);
        }
    }
    for (int k = 0; k < t->n_pk && rc == RSQL_OK; k++) {
        pk[k] = -1;
        for (int j = 0; j < rel->n_cols && pk[k] < 0; j++) {
            pk[k] = strcmp(rel->cols[j].name, t->pk[k]) == 0 ? j : -1;
        }
    }
    uint32_t *oids = rc == RSQL_OK ? rsql_calloc((size_t)n + 1, sizeof *oids) : NULL;
    if (rc == RSQL_OK && !oids) {
        rc = rsql_error_nomem(err);
    }
    if (rc != RSQL_OK) {
        rsql_free(col);
        rsql_free(pk);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        oids[i] = col[i] >= 0 ? rel->cols[col[i]].type_oid : 0;
    }
    rsql_pgcdc_map_free(m);
    m->oid = rel->oid;
    m->table = t;
    m->col = col;
    m->pk = pk;
    m->n_pk = t->n_pk;
    m->type_oid = oids;
    return RSQL_OK;
}

/* See pgcdc_int.h. */
void rsql_pgcdc_map_free(rsql_pgcdc_map_t *m)
{
    rsql_free(m->col);
    rsql_free(m->pk);
    rsql_free(m->type_oid);
    m->col = m->pk = NULL;
    m->type_oid = NULL;
}

/* Same bytes (kind and text) in two datums. */
static bool same_datum(const rsql_pgoutput_datum_t *a, const rsql_pgoutput_datum_t *b)
{
    return a->kind == b->kind && a->len == b->len &&
           (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* See pgcdc_int.h. */
bool rsql_pgcdc_key_changed(const rsql_pgcdc_map_t *m, const rsql_pgoutput_rel_t *rel,
                            const rsql_pgoutput_row_t *old, const rsql_pgoutput_row_t *new_)
{
    if (m->n_pk > 0) {
        for (int k = 0; k < m->n_pk; k++) {
            if (m->pk[k] >= 0 && !same_datum(&old->cols[m->pk[k]], &new_->cols[m->pk[k]])) {
                return true;
            }
        }
        return false;
    }
    for (int j = 0; j < rel->n_cols; j++) { /* no primary key: the replica identity's columns */
        if ((rel->cols[j].flags & RSQL_PGOUTPUT_COL_KEY) &&
            !same_datum(&old->cols[j], &new_->cols[j])) {
            return true;
        }
    }
    return false;
}
