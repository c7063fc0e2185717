/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The sqlite lookup: the rows of `table` in the database `path` whose key columns equal a
 * key's values, for a lookup join (rsql_lookup_ops_t, rsql_io.h). The database is opened
 * read-only; open checks that the table exists and has every column of the rocketsql table
 * (an error naming what is missing), and prepares one statement,
 * SELECT "c1", "c2", ... FROM "t" WHERE "k1" = ?1 AND "k2" = ?2, which a lookup runs once
 * per key: SQLite is in-process, a round trip costs nothing, and with an index on the key
 * columns each run is one index search.
 *
 * Keys are bound as the sqlite sink stores values (sqlite_values.c), so a table the sink
 * wrote is found by the same values; a TIMESTAMP key also matches INTEGER epoch
 * milliseconds, which the source reads as timestamps too ("k" IN (?text, ?millis)). Found
 * rows convert as the source converts them; a value that does not (TEXT 'abc' in an INT
 * column) fails the lookup, permanently, naming the column.
 *
 * Errors: a busy or locked database is transient (the caller asks again); the rest are
 * permanent (sqlite_err.c).
 *
 * Threads: one lookup is used by one thread (the transform thread).
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/sqlite/sqlite_conf.h"
#include "connectors/sqlite/sqlite_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/*
** How long a step waits for a writer's lock before it reports SQLITE_BUSY (transient: the
** caller retries per errors.retry.*). Short: the transform thread waits with it.
*/
#define LOOKUP_BUSY_TIMEOUT_MS 1000

struct rsql_lookup {
    sqlite3 *db;
    sqlite3_stmt *sel;
    char *what; /* "sqlite lookup <catalog table>" */
    int n, n_key;
    rsql_type_t *types;
    char **names;
    int *key_columns;
};

static void sl_close(rsql_lookup_t *lk)
{
    if (!lk) {
        return;
    }
    sqlite3_finalize(lk->sel);
    sqlite3_close(lk->db);
    for (int i = 0; lk->names && i < lk->n; i++) {
        rsql_free(lk->names[i]);
    }
    rsql_free(lk->names);
    rsql_free(lk->types);
    rsql_free(lk->key_columns);
    rsql_free(lk->what);
    rsql_free(lk);
}

/*
** The table exists (a table or a view) and has every column: else NOT_FOUND naming the
** table or the first missing column. SQLite matches column names case-insensitively.
*/
static rsql_err_t check_table(rsql_lookup_t *lk, const char *path, const char *table,
                              rsql_error_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(lk->db, "SELECT name FROM pragma_table_info(?1)", -1, &st,
                                NULL);
    if (rc != SQLITE_OK) {
        return rsql_sqlite__error(lk->db, rc, NULL, err, "%s: cannot read the columns of %s",
                                  lk->what, path);
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    bool *seen = rsql_calloc((size_t)lk->n + 1, sizeof *seen);
    int rows = 0;
    if (!seen) {
        sqlite3_finalize(st);
        return rsql_error_nomem(err);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        rows++;
        for (int i = 0; name && i < lk->n; i++) {
            seen[i] = seen[i] || sqlite3_stricmp(name, lk->names[i]) == 0;
        }
    }
    rsql_err_t code = RSQL_OK;
    if (rc != SQLITE_DONE) {
        code = rsql_sqlite__error(lk->db, rc, NULL, err, "%s: cannot read the columns of %s",
                                  lk->what, path);
    } else if (rows == 0) {
        code = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                              "%s: no table '%s' in %s", lk->what, table, path);
    }
    for (int i = 0; code == RSQL_OK && i < lk->n; i++) {
        if (!seen[i]) {
            code = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                                  "%s: table '%s' in %s has no column '%s'", lk->what, table,
                                  path, lk->names[i]);
        }
    }
    rsql_free(seen);
    sqlite3_finalize(st);
    return code;
}

/* SELECT "c1", ... FROM "t" WHERE "k1" = ?1 AND ...; a TIMESTAMP key "k" IN (?k, ?n_key+k). */
static void put_select(const rsql_lookup_t *lk, const char *table, rsql_buf_t *b)
{
    rsql_buf_puts(b, "SELECT ");
    for (int i = 0; i < lk->n; i++) {
        if (i) {
            rsql_buf_puts(b, ", ");
        }
        rsql_buf_quote_ident(b, lk->names[i]);
    }
    rsql_buf_puts(b, " FROM ");
    rsql_buf_quote_ident(b, table);
    for (int k = 0; k < lk->n_key; k++) {
        int c = lk->key_columns[k];
        rsql_buf_puts(b, k ? " AND " : " WHERE ");
        rsql_buf_quote_ident(b, lk->names[c]);
        if (lk->types[c] == RSQL_TYPE_TIMESTAMP) {
            rsql_buf_printf(b, " IN (?%d, ?%d)", k + 1, lk->n_key + k + 1);
        } else {
            rsql_buf_printf(b, " = ?%d", k + 1);
        }
    }
}

static rsql_err_t sl_open(const rsql_lookup_ctx_t *ctx, rsql_lookup_t **out, rsql_error_t *err)
{
    const rsql_sqlite_conf_t *conf = ctx->conf;
    const char *path = conf ? conf->path : NULL;
    const char *table = conf ? conf->table : NULL;
    if (!path || !*path || !table || !*table) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "sqlite lookup %s: options 'path' and 'table' are required",
                              ctx->table ? ctx->table : "");
    }
    if (ctx->n_key < 1 || ctx->n_columns < 1) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "sqlite lookup %s: no key column", ctx->table ? ctx->table : "");
    }
    rsql_lookup_t *lk = rsql_calloc(1, sizeof *lk);
    if (!lk) {
        return rsql_error_nomem(err);
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    lk->n = ctx->n_columns;
    lk->n_key = ctx->n_key;
    lk->types = rsql_calloc((size_t)lk->n, sizeof *lk->types);
    lk->names = rsql_calloc((size_t)lk->n, sizeof *lk->names);
    lk->key_columns = rsql_calloc((size_t)lk->n_key, sizeof *lk->key_columns);
    rsql_buf_printf(&b, "sqlite lookup %s", ctx->table ? ctx->table : table);
    lk->what = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_reset(&b);
    bool ok = lk->types && lk->names && lk->key_columns && lk->what;
    for (int i = 0; ok && i < lk->n; i++) {
        lk->types[i] = ctx->column_types[i];
        ok = (lk->names[i] = rsql_strdup(ctx->column_names[i])) != NULL;
    }
    for (int k = 0; ok && k < lk->n_key; k++) {
        lk->key_columns[k] = ctx->key_columns[k];
        if (ctx->key_columns[k] < 0 || ctx->key_columns[k] >= lk->n) {
            rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "%s: key column %d out of range",
                           lk->what, ctx->key_columns[k]);
            sl_close(lk);
            return RSQL_ERR_INTERNAL;
        }
    }
    if (!ok) {
        sl_close(lk);
        return rsql_error_nomem(err);
    }
    rsql_err_t code = RSQL_OK;
    /* NOMUTEX: a lookup is used by one thread (rsql_io.h) */
    int rc = sqlite3_open_v2(path, &lk->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        code = rsql_sqlite__error(lk->db, rc, NULL, err, "%s: cannot open %s", lk->what, path);
    } else {
        sqlite3_busy_timeout(lk->db, LOOKUP_BUSY_TIMEOUT_MS);
        code = check_table(lk, path, table, err);
    }
    if (code == RSQL_OK) {
        put_select(lk, table, &b);
        if (b.oom) {
            code = rsql_error_nomem(err);
        } else if ((rc = sqlite3_prepare_v2(lk->db, rsql_buf_str(&b), -1, &lk->sel, NULL)) !=
                   SQLITE_OK) {
            code = rsql_sqlite__error(lk->db, rc, NULL, err, "%s: cannot read table %s of %s",
                                      lk->what, table, path);
        }
    }
    rsql_buf_deinit(&b);
    if (code != RSQL_OK) {
        sl_close(lk);
        return code;
    }
    *out = lk;
    return RSQL_OK;
}

/* Bind key's values (n_key of them) to the statement; SQLite's result code. */
static int bind_key(rsql_lookup_t *lk, const rsql_value_t *key)
{
    int rc = SQLITE_OK;
    for (int k = 0; k < lk->n_key && rc == SQLITE_OK; k++) {
        rc = rsql_sqlite__bind_value(lk->sel, k + 1, &key[k]);
        if (rc == SQLITE_OK && lk->types[lk->key_columns[k]] == RSQL_TYPE_TIMESTAMP) {
            rc = sqlite3_bind_int64(lk->sel, lk->n_key + k + 1, key[k].v.ts);
        }
    }
    return rc;
}

static rsql_err_t sl_lookup(rsql_lookup_t *lk, int n, const rsql_value_t *keys,
                            rsql_lookup_row_cb row_cb, void *opaque, rsql_error_t *err)
{
    rsql_value_t *row = rsql_calloc((size_t)lk->n, sizeof *row);
    rsql_arena_t *arena = NULL;
    rsql_err_t code = RSQL_OK;
    if (!row) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < n && code == RSQL_OK; i++) {
        /* the rows of one key in an arena of their own: freed before the next key's */
        rsql_arena_destroy(arena);
        if (!(arena = rsql_arena_new())) {
            code = rsql_error_nomem(err);
            break;
        }
        sqlite3_reset(lk->sel);
        sqlite3_clear_bindings(lk->sel);
        int rc = bind_key(lk, &keys[(size_t)i * (size_t)lk->n_key]);
        if (rc != SQLITE_OK) {
            code = rsql_sqlite__error(lk->db, rc, NULL, err, "%s: cannot bind key %d", lk->what,
                                      i);
            break;
        }
        while (code == RSQL_OK && (rc = sqlite3_step(lk->sel)) == SQLITE_ROW) {
            for (int c = 0; c < lk->n && code == RSQL_OK; c++) {
                rsql_error_t bad;
                rsql_error_clear(&bad);
                code = rsql_sqlite__column_value(lk->sel, c, lk->types[c], lk->names[c], arena,
                                                 &row[c], &bad);
                if (code != RSQL_OK) {
                    rsql_error_set(err, code, RSQL_NOPOS, "%s: %s", lk->what, bad.msg);
                }
            }
            if (code == RSQL_OK) {
                code = row_cb(opaque, i, row);
                if (code == RSQL_ERR_NOMEM) {
                    rsql_error_nomem(err);
                } else if (code != RSQL_OK) {
                    rsql_error_set(err, code, RSQL_NOPOS, "%s: the row callback failed",
                                   lk->what);
                }
            }
        }
        if (code == RSQL_OK && rc != SQLITE_DONE) {
            code = rsql_sqlite__error(lk->db, rc, NULL, err, "%s: cannot read", lk->what);
        }
    }
    /* no statement left open: a reader holds the database's read lock only while it reads */
    sqlite3_reset(lk->sel);
    sqlite3_clear_bindings(lk->sel);
    rsql_arena_destroy(arena);
    rsql_free(row);
    return code;
}

/* The sqlite lookup vtable (rsql_io.h). Static. */
const rsql_lookup_ops_t rsql_sqlite_lookup_ops = {
    .open = sl_open,
    .lookup = sl_lookup,
    .close = sl_close,
};
