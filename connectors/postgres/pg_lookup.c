/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The postgres lookup: the rows of `table-name` whose key columns equal a key's values, for
 * a lookup join (rsql_lookup_ops_t, rsql_io.h), all n keys of a call in one round trip.
 *
 * open connects with the table's options (pg_conn.c), checks the table has every column, of
 * a type that converts (pg_rows.c, as the source), and prepares one statement:
 *
 *   SELECT rsql_t.*, rsql_keys.rsql_i
 *   FROM unnest($1::t1[], $2::t2[]) WITH ORDINALITY AS rsql_keys(rsql_k0, rsql_k1, rsql_i),
 *   LATERAL (SELECT <the source's select list> FROM <table> AS rsql_row
 *            WHERE rsql_row."k1" = rsql_keys.rsql_k0 AND rsql_row."k2" = rsql_keys.rsql_k1)
 *     AS rsql_t
 *
 * Each key column's values go as one text-format array parameter (elements quoted, quotes
 * and backslashes escaped), so the statement is the same for any n and any key. The server
 * pairs each row with every key it equals, by PostgreSQL's own equality (numeric 1.5 =
 * 1.50, char(n) padding, a collation's rules), and returns the key's position (ORDINALITY):
 * a key given twice in one call gets its rows twice, and nothing here re-implements the
 * comparison. The planner flattens the LATERAL into a join of the keys with the table: an
 * index on the key columns is used per key, a hash join when there is none.
 *
 * The keys are of their own types (integer, bigint, numeric, ...), so a key that the column
 * cannot hold matches nothing instead of failing (70000 against a smallint column), except:
 * a DOUBLE key against a real column is a real (0.1 matches the real 0.1); a TIMESTAMP key
 * takes the column's type (with or without time zone; sent as UTC, which the session is);
 * a VARCHAR key against a text, varchar, bpchar or name column takes its type (an index
 * is used), against any other type compares with the column's text (what the source
 * reads). A VARCHAR key holding a NUL byte matches nothing (PostgreSQL text cannot hold
 * one): its element is NULL.
 *
 * Rows convert as the source converts them (pg_rows.c); a value that does not fails the
 * lookup (DECODE, permanent, naming the column).
 *
 * Errors: a lost connection is UNAVAILABLE (transient; the caller closes this lookup and
 * opens a new one), a deadlock or serialization failure BUSY (transient), the rest
 * permanent, by SQLSTATE (pg_conn.c).
 *
 * Lookups in flight (send, receive): the connection goes into pipeline mode at the first
 * send; each lookup is its query and a sync of its own, so a query that fails (its SQLSTATE
 * reported by its receive) aborts none after it, and the answers come back in the order
 * sent. A one-call lookup leaves pipeline mode first (nothing is then in flight). With
 * rsql_lookup_ctx_t.timeout_ms the connection's statement_timeout bounds each query; a query
 * cancelled by it (57014) is transient.
 *
 * Threads: one lookup is used by one thread (the transform thread).
 */
#include "config.h"
#include "base/rsql_value.h"
#include "connectors/postgres/pg_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The prepared statement's name (one per connection). */
#define LOOKUP_STMT "rsql_lookup"

struct rsql_lookup {
    PGconn *conn;
    char *what;          /* "postgres lookup <catalog table>" */
    rsql_pg_rows_t rows; /* the columns, and their text into values (pg_rows.c) */
    int n_key;
    int *key_columns;
    int n_result; /* the select list's result columns; the key's position follows */
    rsql_buf_t *arrays; /* per key column: its array parameter, rebuilt per call */
    /* lookups in flight (pl_send, pl_receive): the connection is in pipeline mode once the
       first was sent; sent[] (a ring of cap) holds how many keys each asked, oldest first */
    bool pipeline;
    int *sent, n_sent, head, cap;
};

static void pl_close(rsql_lookup_t *lk)
{
    if (!lk) {
        return;
    }
    if (lk->conn) {
        PQfinish(lk->conn);
    }
    for (int k = 0; lk->arrays && k < lk->n_key; k++) {
        rsql_buf_deinit(&lk->arrays[k]);
    }
    rsql_free(lk->arrays);
    rsql_free(lk->sent);
    rsql_free(lk->key_columns);
    rsql_pg__rows_deinit(&lk->rows);
    rsql_free(lk->what);
    rsql_free(lk);
}

/*
** The type a key of t is sent as against a column whose type (without modifiers) is base;
** *as_text when the column is compared by its text instead.
*/
static const char *key_type(rsql_type_t t, const char *base, bool *as_text)
{
    *as_text = false;
    switch (t) {
    case RSQL_TYPE_BOOLEAN: return "boolean";
    case RSQL_TYPE_INT: return "integer";
    case RSQL_TYPE_BIGINT: return "bigint";
    case RSQL_TYPE_DOUBLE: return strcmp(base, "real") == 0 ? "real" : "double precision";
    case RSQL_TYPE_DECIMAL: return "numeric";
    case RSQL_TYPE_BYTES: return "bytea";
    case RSQL_TYPE_DATE: return "date";
    case RSQL_TYPE_TIMESTAMP:
        return strncmp(base, "timestamp", 9) == 0 ? base : "timestamp with time zone";
    default:
        if (strcmp(base, "text") == 0 || strcmp(base, "character varying") == 0 ||
            strcmp(base, "name") == 0) {
            return base;
        }
        if (strcmp(base, "character") == 0) {
            return "bpchar"; /* "character" alone is char(1): a cast would cut the key */
        }
        *as_text = true;
        return "text";
    }
}

/* The statement (see the top of the file) into b. */
static void put_statement(rsql_lookup_t *lk, const char *table, char **base_types,
                          rsql_buf_t *b)
{
    bool as_text[64] = {false};
    rsql_buf_puts(b, "SELECT rsql_t.*, rsql_keys.rsql_i FROM unnest(");
    for (int k = 0; k < lk->n_key; k++) {
        int c = lk->key_columns[k];
        rsql_buf_printf(b, "%s$%d::%s[]", k ? ", " : "", k + 1,
                        key_type(lk->rows.types[c], base_types[c], &as_text[k]));
    }
    rsql_buf_puts(b, ") WITH ORDINALITY AS rsql_keys(");
    for (int k = 0; k < lk->n_key; k++) {
        rsql_buf_printf(b, "rsql_k%d, ", k);
    }
    rsql_buf_puts(b, "rsql_i), LATERAL (SELECT ");
    lk->n_result = rsql_pg__rows_select(&lk->rows, b);
    rsql_buf_puts(b, " FROM ");
    rsql_pg__quote_table(b, table);
    rsql_buf_puts(b, " AS rsql_row");
    for (int k = 0; k < lk->n_key; k++) {
        const char *name = lk->rows.names[lk->key_columns[k]];
        rsql_buf_puts(b, k ? " AND rsql_row." : " WHERE rsql_row.");
        rsql_buf_quote_identn(b, name, strlen(name));
        rsql_buf_printf(b, "%s = rsql_keys.rsql_k%d", as_text[k] ? "::text" : "", k);
    }
    rsql_buf_puts(b, ") AS rsql_t");
}

static rsql_err_t pl_open(const rsql_lookup_ctx_t *ctx, rsql_lookup_t **out, rsql_error_t *err)
{
    const rsql_pg_conf_t *conf = ctx->conf;
    const char *name = ctx->table ? ctx->table : "";
    if (!conf || !conf->url || !conf->table_name) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "postgres lookup %s: options 'url' and 'table-name' are required",
                              name);
    }
    if (ctx->n_key < 1 || ctx->n_key > 64) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "postgres lookup %s: %d key columns (1 to 64)", name, ctx->n_key);
    }
    rsql_lookup_t *lk = rsql_calloc(1, sizeof *lk);
    if (!lk) {
        return rsql_error_nomem(err);
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "postgres lookup %s", ctx->table ? ctx->table : conf->table_name);
    lk->what = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_reset(&b);
    lk->n_key = ctx->n_key;
    lk->key_columns = rsql_calloc((size_t)lk->n_key, sizeof *lk->key_columns);
    lk->arrays = rsql_calloc((size_t)lk->n_key, sizeof *lk->arrays);
    if (!lk->what || !lk->key_columns || !lk->arrays) {
        pl_close(lk);
        return rsql_error_nomem(err);
    }
    for (int k = 0; k < lk->n_key; k++) {
        rsql_buf_init(&lk->arrays[k]);
        lk->key_columns[k] = ctx->key_columns[k];
        if (ctx->key_columns[k] < 0 || ctx->key_columns[k] >= ctx->n_columns) {
            rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "%s: key column %d out of range",
                           lk->what, ctx->key_columns[k]);
            pl_close(lk);
            return RSQL_ERR_INTERNAL;
        }
    }
    rsql_err_t rc = rsql_pg__rows_init(&lk->rows, ctx->n_columns, ctx->column_names,
                                       ctx->column_types, ctx->column_descs, lk->what, err);
    char **base_types = NULL;
    if (rc == RSQL_OK) {
        lk->conn = rsql_pg__connect(conf, lk->what, err);
        rc = lk->conn ? RSQL_OK : (err && err->code ? err->code : RSQL_ERR_UNAVAILABLE);
    }
    if (rc == RSQL_OK && ctx->timeout_ms > 0) { /* table.exec.async-lookup.timeout */
        char set[64];
        snprintf(set, sizeof set, "SET statement_timeout = %lld", (long long)ctx->timeout_ms);
        PGresult *r = PQexec(lk->conn, set);
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            rc = rsql_pg__error(lk->conn, r, err, "%s: cannot set the lookup timeout", lk->what);
        }
        PQclear(r);
    }
    if (rc == RSQL_OK) {
        rc = rsql_pg__check_columns(lk->conn, conf->table_name, &lk->rows, NULL, lk->what,
                                    &base_types, err);
    }
    if (rc == RSQL_OK) {
        put_statement(lk, conf->table_name, base_types, &b);
        if (b.oom) {
            rc = rsql_error_nomem(err);
        } else {
            PGresult *r = PQprepare(lk->conn, LOOKUP_STMT, rsql_buf_str(&b), lk->n_key, NULL);
            if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
                rc = rsql_pg__error(lk->conn, r, err, "%s: cannot prepare the lookup",
                                    lk->what);
            }
            PQclear(r);
        }
    }
    for (int i = 0; base_types && i < ctx->n_columns; i++) {
        rsql_free(base_types[i]);
    }
    rsql_free(base_types);
    rsql_buf_deinit(&b);
    if (rc != RSQL_OK) {
        pl_close(lk);
        return rc;
    }
    *out = lk;
    return RSQL_OK;
}

/* Append p (n bytes) to b as a quoted array element: "...", with " and \ escaped. */
static void put_element(rsql_buf_t *b, const char *p, size_t n)
{
    rsql_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"' || p[i] == '\\') {
            rsql_buf_putc(b, '\\');
        }
        rsql_buf_putc(b, p[i]);
    }
    rsql_buf_putc(b, '"');
}

/* Append key value v to b as an element of its array parameter (key_type's input text). */
static void put_key(rsql_buf_t *b, const rsql_value_t *v)
{
    static const char hex[] = "0123456789abcdef";
    char text[RSQL_VALUE_TEXT_MAX + 8];
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(b, v->v.b ? "t" : "f"); return;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_printf(b, "%" PRId64, v->v.i); return;
    case RSQL_TYPE_DOUBLE:
        if (isnan(v->v.d)) {
            rsql_buf_puts(b, "NaN");
        } else if (isinf(v->v.d)) {
            rsql_buf_puts(b, v->v.d > 0 ? "Infinity" : "-Infinity");
        } else {
            rsql_buf_printf(b, "%.17g", v->v.d);
        }
        return;
    case RSQL_TYPE_TIMESTAMP: { /* UTC, as the session's and the key's offset say */
        size_t n = rsql_value_format_timestamp(v->v.ts, text);
        memcpy(text + n, "+00", 4);
        put_element(b, text, n + 3);
        return;
    }
    case RSQL_TYPE_BYTES: { /* bytea's hex input: \x0102 */
        rsql_buf_t h = RSQL_BUF_INIT;
        rsql_buf_puts(&h, "\\x");
        for (size_t i = 0; i < v->v.s.len; i++) {
            unsigned char c = (unsigned char)v->v.s.p[i];
            rsql_buf_putc(&h, hex[c >> 4]);
            rsql_buf_putc(&h, hex[c & 15]);
        }
        put_element(b, h.data ? h.data : "", h.len);
        b->oom = b->oom || h.oom;
        rsql_buf_deinit(&h);
        return;
    }
    case RSQL_TYPE_VARCHAR:
        if (v->v.s.len && memchr(v->v.s.p, '\0', v->v.s.len)) {
            rsql_buf_puts(b, "NULL"); /* no text equals it */
        } else {
            put_element(b, v->v.s.p ? v->v.s.p : "", v->v.s.len);
        }
        return;
    default: { /* DATE, DECIMAL: their text (YYYY-MM-DD, exact digits) */
        rsql_buf_t t = RSQL_BUF_INIT;
        rsql_value_format(v, &t);
        put_element(b, t.data ? t.data : "", t.len);
        b->oom = b->oom || t.oom;
        rsql_buf_deinit(&t);
        return;
    }
    }
}

/* The key arrays of n keys into lk->arrays, one parameter per key column in params. */
static rsql_err_t put_params(rsql_lookup_t *lk, int n, const rsql_value_t *keys,
                             const char **params, rsql_error_t *err)
{
    bool oom = false;
    for (int k = 0; k < lk->n_key; k++) {
        rsql_buf_t *b = &lk->arrays[k];
        rsql_buf_reset(b);
        rsql_buf_putc(b, '{');
        for (int i = 0; i < n; i++) {
            if (i) {
                rsql_buf_putc(b, ',');
            }
            put_key(b, &keys[(size_t)i * (size_t)lk->n_key + (size_t)k]);
        }
        rsql_buf_putc(b, '}');
        oom = oom || b->oom;
        params[k] = rsql_buf_str(b);
    }
    return oom ? rsql_error_nomem(err) : RSQL_OK;
}

/* The rows of result r, of a lookup of n keys, to row_cb. */
static rsql_err_t report(rsql_lookup_t *lk, PGresult *r, int n, rsql_lookup_row_cb row_cb,
                         void *opaque, rsql_error_t *err)
{
    rsql_value_t *row = rsql_calloc((size_t)lk->rows.n + 1, sizeof *row);
    rsql_arena_t *arena = rsql_arena_new();
    rsql_err_t rc = row && arena ? RSQL_OK : rsql_error_nomem(err);
    for (int t = 0; rc == RSQL_OK && t < PQntuples(r); t++) {
        int64_t key = strtoll(PQgetvalue(r, t, lk->n_result), NULL, 10) - 1;
        if (key < 0 || key >= n) {
            rc = rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                "%s: a row of key %" PRId64 ", of %d keys", lk->what, key, n);
            break;
        }
        rsql_error_t bad;
        rsql_error_clear(&bad);
        rc = rsql_pg__rows_convert(&lk->rows, r, t, arena, row, &bad);
        if (rc == RSQL_ERR_NOMEM) {
            rsql_error_nomem(err);
        } else if (rc != RSQL_OK) {
            rsql_error_set(err, rc, RSQL_NOPOS, "%s: %s", lk->what, bad.msg);
        } else if ((rc = row_cb(opaque, (int)key, row)) != RSQL_OK) {
            if (rc == RSQL_ERR_NOMEM) {
                rsql_error_nomem(err);
            } else {
                rsql_error_set(err, rc, RSQL_NOPOS, "%s: the row callback failed", lk->what);
            }
        }
    }
    rsql_arena_destroy(arena);
    rsql_free(row);
    return rc;
}

static rsql_err_t pl_lookup(rsql_lookup_t *lk, int n, const rsql_value_t *keys,
                            rsql_lookup_row_cb row_cb, void *opaque, rsql_error_t *err)
{
    if (n <= 0) {
        return RSQL_OK;
    }
    const char *params[64];
    rsql_err_t rc = put_params(lk, n, keys, params, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (lk->pipeline) { /* nothing in flight (rsql_io.h): back to one query at a time */
        if (PQexitPipelineMode(lk->conn) != 1) {
            return rsql_pg__error(lk->conn, NULL, err, "%s: cannot leave pipeline mode",
                                  lk->what);
        }
        lk->pipeline = false;
    }
    PGresult *r = PQexecPrepared(lk->conn, LOOKUP_STMT, lk->n_key, params, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = rsql_pg__error(lk->conn, r, err, "%s", lk->what);
        PQclear(r);
        return rc;
    }
    rc = report(lk, r, n, row_cb, opaque, err);
    PQclear(r);
    return rc;
}

/*
** rsql_lookup_ops_t.send: the query and a sync of its own go out in pipeline mode (so a
** failed query aborts none after it); its result is read by pl_receive.
*/
static rsql_err_t pl_send(rsql_lookup_t *lk, int n, const rsql_value_t *keys, rsql_error_t *err)
{
    const char *params[64];
    rsql_err_t rc = put_params(lk, n, keys, params, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (lk->n_sent == lk->cap) {
        int cap = lk->cap ? 2 * lk->cap : 8;
        int *g = rsql_malloc((size_t)cap * sizeof *g);
        if (!g) {
            return rsql_error_nomem(err);
        }
        for (int i = 0; i < lk->n_sent; i++) {
            g[i] = lk->sent[(lk->head + i) % lk->cap];
        }
        rsql_free(lk->sent);
        lk->sent = g;
        lk->cap = cap;
        lk->head = 0;
    }
    if (!lk->pipeline) {
        if (PQenterPipelineMode(lk->conn) != 1) {
            return rsql_pg__error(lk->conn, NULL, err, "%s: cannot enter pipeline mode",
                                  lk->what);
        }
        lk->pipeline = true;
    }
    if (PQsendQueryPrepared(lk->conn, LOOKUP_STMT, lk->n_key, params, NULL, NULL, 0) != 1 ||
        PQpipelineSync(lk->conn) != 1 || PQflush(lk->conn) != 0) {
        return rsql_pg__error(lk->conn, NULL, err, "%s: cannot send the lookup", lk->what);
    }
    lk->sent[(lk->head + lk->n_sent++) % lk->cap] = n;
    return RSQL_OK;
}

/* rsql_lookup_ops_t.receive: the oldest lookup sent: its result, its end, its sync. */
static rsql_err_t pl_receive(rsql_lookup_t *lk, rsql_lookup_row_cb row_cb, void *opaque,
                             rsql_error_t *err)
{
    if (lk->n_sent == 0) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "%s: no lookup in flight",
                              lk->what);
    }
    int n = lk->sent[lk->head];
    lk->head = (lk->head + 1) % lk->cap;
    lk->n_sent--;
    rsql_err_t rc = RSQL_OK;
    bool got = false;
    PGresult *r;
    while ((r = PQgetResult(lk->conn)) != NULL) { /* the query's results, then NULL */
        if (!got && PQresultStatus(r) == PGRES_TUPLES_OK) {
            rc = report(lk, r, n, row_cb, opaque, err);
        } else if (!got) {
            rc = rsql_pg__error(lk->conn, r, err, "%s", lk->what);
        }
        got = true;
        PQclear(r);
    }
    if (!got) { /* no result: the connection is gone */
        return rsql_pg__error(lk->conn, NULL, err, "%s", lk->what);
    }
    r = PQgetResult(lk->conn); /* the sync that ends this lookup */
    if (!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
        rsql_err_t src = rsql_pg__error(lk->conn, r, rc == RSQL_OK ? err : NULL, "%s: %s",
                                        lk->what, "the lookup's answer ended out of order");
        rc = rc == RSQL_OK ? src : rc;
    }
    PQclear(r);
    return rc;
}

/* The postgres lookup vtable (rsql_io.h). Static. */
const rsql_lookup_ops_t rsql_postgres_lookup_ops = {
    .open = pl_open,
    .lookup = pl_lookup,
    .send = pl_send,
    .receive = pl_receive,
    .close = pl_close,
};
