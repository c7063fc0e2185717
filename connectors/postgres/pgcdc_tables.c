/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_tables: the tables a postgres-cdc source reads (pgcdc_int.h). schema-name and
 * table-name are regular expressions matched by the server (`~`, anchored to the whole
 * name), so the names match as PostgreSQL spells them; each matched table must have the
 * rocketsql table's physical columns (by name, of a type that converts); its primary key is
 * read too (the snapshot reads by it, and an upsert changelog compares keys with it). And the
 * publication of those tables: created when missing, checked when it exists.
 *
 * These queries run on the replication connection before the slot is created or streamed
 * (a replication connection of a database takes simple SQL queries), so no second
 * connection is needed.
 */
#include "config.h"
#include "base/rsql_log.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/postgres/pgcdc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* See pgcdc_int.h. */
void rsql_pgcdc_tables_free(rsql_pgcdc_tables_t *t)
{
    for (int i = 0; t->v && i < t->n; i++) {
        rsql_pgcdc_table_t *x = &t->v[i];
        rsql_free(x->schema);
        rsql_free(x->name);
        rsql_free(x->qname);
        for (int k = 0; x->pk && k < x->n_pk; k++) {
            rsql_free(x->pk[k]);
        }
        rsql_free(x->pk);
        rsql_free(x->pg_types); /* its strings live in the same block */
    }
    rsql_free(t->v);
    t->v = NULL;
    t->n = 0;
}

/* See pgcdc_int.h. */
const rsql_pgcdc_table_t *rsql_pgcdc_tables_get(const rsql_pgcdc_tables_t *t, uint32_t oid)
{
    for (int i = 0; i < t->n; i++) {
        if (t->v[i].oid == oid) {
            return &t->v[i];
        }
    }
    return NULL;
}

/* The columns of x: each physical rocketsql column present and of a type that converts. */
static rsql_err_t check_columns(rsql_pg_repl_t *r, rsql_pgcdc_table_t *x, int n,
                                const char *const *names, const rsql_type_t *types,
                                const char *const *meta, const bool *follow_required,
                                rsql_error_t *err)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
             "WHERE attrelid = %u AND attnum > 0 AND NOT attisdropped",
             x->oid);
    PGresult *res = rsql_pg_repl_query(r, sql, "cannot read the columns", err);
    if (!res) {
        return err->code;
    }
    /* one block: the pointers, then the texts */
    size_t bytes = (size_t)(n + 1) * sizeof(char *);
    for (int j = 0; j < PQntuples(res); j++) {
        bytes += (size_t)PQgetlength(res, j, 1) + 1;
    }
    x->pg_types = rsql_calloc(1, bytes);
    if (!x->pg_types) {
        PQclear(res);
        return rsql_error_nomem(err);
    }
    char *at = (char *)(x->pg_types + n + 1);
    rsql_err_t rc = RSQL_OK;
    for (int i = 0; i < n && rc == RSQL_OK; i++) {
        if (meta && meta[i]) {
            continue;
        }
        int row = -1;
        for (int j = 0; j < PQntuples(res) && row < 0; j++) {
            row = strcmp(PQgetvalue(res, j, 0), names[i]) == 0 ? j : -1;
        }
        if (row < 0 && follow_required && !follow_required[i]) {
            /* schema-change.mode 'follow': dropped while an earlier run ran, say */
            rsql_log(RSQL_LOG_WARN, "postgres-cdc",
                     "%s: column '%s' does not exist in table %s.%s: it reads as NULL "
                     "(schema-change.mode 'follow')",
                     r->what, names[i], x->schema, x->name);
            continue;
        }
        if (row < 0) {
            rc = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                                "%s: column '%s' does not exist in table %s.%s", r->what,
                                names[i], x->schema, x->name);
            break;
        }
        const char *pg = PQgetvalue(res, row, 1);
        if (!rsql_pg__type_fits(types[i], pg, true)) {
            rc = rsql_error_set(err, RSQL_ERR_TYPE, RSQL_NOPOS,
                                "%s: column '%s' of table %s.%s is %s in PostgreSQL, which "
                                "does not convert to %s",
                                r->what, names[i], x->schema, x->name, pg,
                                rsql_type_name(types[i]));
            break;
        }
        x->pg_types[i] = at;
        memcpy(at, pg, strlen(pg) + 1);
        at += strlen(pg) + 1;
    }
    PQclear(res);
    return rc;
}

/* The primary key's columns of x, in key order. */
static rsql_err_t read_pk(rsql_pg_repl_t *r, rsql_pgcdc_table_t *x, rsql_error_t *err)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT a.attname FROM pg_index i, unnest(i.indkey) WITH ORDINALITY k(num, ord), "
             "pg_attribute a WHERE i.indrelid = %u AND i.indisprimary AND a.attrelid = %u "
             "AND a.attnum = k.num ORDER BY k.ord",
             x->oid, x->oid);
    PGresult *res = rsql_pg_repl_query(r, sql, "cannot read the primary key", err);
    if (!res) {
        return err->code;
    }
    x->n_pk = PQntuples(res);
    x->pk = rsql_calloc((size_t)x->n_pk + 1, sizeof *x->pk);
    for (int k = 0; x->pk && k < x->n_pk; k++) {
        if (!(x->pk[k] = rsql_strdup(PQgetvalue(res, k, 0)))) {
            break;
        }
    }
    bool ok = x->pk && (x->n_pk == 0 || x->pk[x->n_pk - 1]);
    PQclear(res);
    return ok ? RSQL_OK : rsql_error_nomem(err);
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_tables_find(rsql_pg_repl_t *r, const rsql_pgcdc_conf_t *conf, int n,
                                  const char *const *names, const rsql_type_t *types,
                                  const char *const *meta, const bool *required,
                                  rsql_pgcdc_tables_t *out, rsql_error_t *err)
{
    memset(out, 0, sizeof *out);
    rsql_buf_t q = RSQL_BUF_INIT;
    rsql_buf_t re = RSQL_BUF_INIT;
    rsql_buf_puts(&q, "SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n "
                      "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') "
                      "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                      "AND n.nspname ~ ");
    rsql_buf_printf(&re, "^(?:%s)$", conf->schema_re);
    rsql_err_t rc = rsql_pg_repl_literal(r, &q, rsql_buf_str(&re), err);
    rsql_buf_puts(&q, " AND c.relname ~ ");
    re.len = 0;
    rsql_buf_printf(&re, "^(?:%s)$", conf->table_re);
    if (rc == RSQL_OK) {
        rc = rsql_pg_repl_literal(r, &q, rsql_buf_str(&re), err);
    }
    rsql_buf_puts(&q, " ORDER BY 2, 3");
    rsql_buf_deinit(&re);
    char doing[300];
    snprintf(doing, sizeof doing, "cannot find the tables of schema-name '%s', table-name '%s'",
             conf->schema_re, conf->table_re);
    PGresult *res = rc == RSQL_OK ? rsql_pg_repl_query(r, rsql_buf_str(&q), doing, err) : NULL;
    rsql_buf_deinit(&q);
    if (!res) {
        return err->code;
    }
    if (PQntuples(res) == 0) {
        PQclear(res);
        return rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                              "%s: no table of database '%s' matches schema-name '%s' and "
                              "table-name '%s'",
                              r->what, r->dbname, conf->schema_re, conf->table_re);
    }
    out->v = rsql_calloc((size_t)PQntuples(res), sizeof *out->v);
    if (!out->v) {
        PQclear(res);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < PQntuples(res) && rc == RSQL_OK; i++) {
        rsql_pgcdc_table_t *x = &out->v[out->n++];
        x->oid = (uint32_t)strtoul(PQgetvalue(res, i, 0), NULL, 10);
        x->schema = rsql_strdup(PQgetvalue(res, i, 1));
        x->name = rsql_strdup(PQgetvalue(res, i, 2));
        rsql_buf_t qn = RSQL_BUF_INIT;
        if (x->schema && x->name) {
            rsql_buf_quote_identn(&qn, x->schema, strlen(x->schema));
            rsql_buf_putc(&qn, '.');
            rsql_buf_quote_identn(&qn, x->name, strlen(x->name));
            x->qname = qn.oom ? NULL : rsql_strdup(rsql_buf_str(&qn));
        }
        rsql_buf_deinit(&qn);
        if (!x->qname) {
            rc = rsql_error_nomem(err);
            break;
        }
        rc = check_columns(r, x, n, names, types, meta,
                           conf->schema_change == RSQL_PGCDC_SCHEMA_FOLLOW ? required : NULL,
                           err);
        if (rc == RSQL_OK) {
            rc = read_pk(r, x, err);
        }
    }
    PQclear(res);
    if (rc != RSQL_OK) {
        rsql_pgcdc_tables_free(out);
    }
    return rc;
}

/* "schema"."t1", "schema"."t2" ... */
static void put_table_list(rsql_buf_t *b, const rsql_pgcdc_tables_t *t)
{
    for (int i = 0; i < t->n; i++) {
        rsql_buf_puts(b, i ? ", " : "");
        rsql_buf_puts(b, t->v[i].qname);
    }
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_publication(rsql_pg_repl_t *r, const rsql_pgcdc_conf_t *conf,
                                  const rsql_pgcdc_tables_t *t, rsql_error_t *err)
{
    const char *pub = conf->publication;
    rsql_buf_t q = RSQL_BUF_INIT;
    rsql_buf_puts(&q, "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = ");
    rsql_err_t rc = rsql_pg_repl_literal(r, &q, pub, err);
    rsql_buf_puts(&q, " UNION ALL SELECT NULL, NULL FROM pg_publication WHERE pubname = ");
    if (rc == RSQL_OK) {
        rc = rsql_pg_repl_literal(r, &q, pub, err);
    }
    PGresult *res = rc == RSQL_OK ? rsql_pg_repl_query(r, rsql_buf_str(&q),
                                                       "cannot look up the publication", err)
                                  : NULL;
    rsql_buf_deinit(&q);
    if (!res) {
        return err->code;
    }
    rsql_buf_t stmt = RSQL_BUF_INIT;
    if (PQntuples(res) == 0) { /* missing: create it for the tables */
        PQclear(res);
        rsql_buf_puts(&stmt, "CREATE PUBLICATION ");
        rsql_buf_quote_identn(&stmt, pub, strlen(pub));
        rsql_buf_puts(&stmt, " FOR TABLE ");
        put_table_list(&stmt, t);
        if (stmt.oom) {
            rsql_buf_deinit(&stmt);
            return rsql_error_nomem(err);
        }
        res = PQexec(r->conn, rsql_buf_str(&stmt));
        if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
            const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
            bool perm = st && strcmp(st, "42501") == 0;
            rc = rsql_pg__error(r->conn, res, err,
                                "%s: cannot create publication '%s'%s%s%s", r->what, pub,
                                perm ? " (creating a publication needs the CREATE "
                                       "privilege on the database and the ownership of each "
                                       "table): have an owner run `"
                                     : "",
                                perm ? rsql_buf_str(&stmt) : "", perm ? "`" : "");
        }
        PQclear(res);
        rsql_buf_deinit(&stmt);
        return rc;
    }
    /* it exists: it must publish every table read (rows of NULLs: the publication itself) */
    for (int i = 0; i < t->n; i++) {
        bool found = false;
        for (int j = 0; j < PQntuples(res) && !found; j++) {
            found = !PQgetisnull(res, j, 0) && strcmp(PQgetvalue(res, j, 0), t->v[i].schema) == 0 &&
                    strcmp(PQgetvalue(res, j, 1), t->v[i].name) == 0;
        }
        if (!found) {
            rsql_buf_printf(&stmt, "%s%s", stmt.len ? ", " : "", t->v[i].qname);
        }
    }
    PQclear(res);
    if (stmt.len) {
        rsql_buf_t alter = RSQL_BUF_INIT;
        rsql_buf_puts(&alter, "ALTER PUBLICATION ");
        rsql_buf_quote_identn(&alter, pub, strlen(pub));
        rsql_buf_printf(&alter, " ADD TABLE %s", rsql_buf_str(&stmt));
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                            "%s: publication '%s' does not publish %s: run `%s`, or name "
                            "another publication.name",
                            r->what, pub, rsql_buf_str(&stmt),
                            alter.oom ? "ALTER PUBLICATION" : rsql_buf_str(&alter));
        rsql_buf_deinit(&alter);
    }
    rsql_buf_deinit(&stmt);
    return rc;
}
