/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * catalog_int: what the catalog's files share and nobody else sees: the
 * connection struct, SQLite error mapping, statement and transaction helpers,
 * and the migration entry point (catalog_migrate.c).
 *
 * Transactions: every public call that touches more than one row runs in a
 * transaction of its own. When the caller already holds one (from
 * rsql_catalog_begin), the call nests as a SAVEPOINT so a failed call undoes
 * only its own rows. Write transactions start with BEGIN IMMEDIATE: taking
 * the write lock up front (waiting up to the busy timeout) avoids the
 * read-then-upgrade SQLITE_BUSY that a deferred transaction can hit.
 */
#ifndef RSQL_CATALOG_INT_H
#define RSQL_CATALOG_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_time.h" /* rsql_wall_ms: the time stamps of catalog rows */
#include "catalog/rsql_catalog.h"

#define RSQL_CATALOG_BUSY_TIMEOUT_MS 5000

struct rsql_catalog {
    sqlite3 *db;
    char *path;   /* as given to rsql_catalog_open, owned */
    bool opening; /* errors read "cannot open catalog 'P': ..." while set */
};

/* How a helper transaction was opened, so tx_end closes it the same way. */
typedef enum rsql_catalog_tx {
    RSQL_CATALOG_TX_TOP,      /* BEGIN [IMMEDIATE] ... COMMIT */
    RSQL_CATALOG_TX_SAVEPOINT /* nested in the caller's transaction */
} rsql_catalog_tx_t;

/*
** Map SQLite result rc (with the connection's current message) to err:
** SQLITE_BUSY/LOCKED -> RSQL_ERR_BUSY, SQLITE_NOMEM -> RSQL_ERR_NOMEM, other
** -> RSQL_ERR_CATALOG; message "catalog 'PATH': sqlite message" ("cannot
** open catalog 'PATH': ..." while opening). Returns the rsql code.
** Call it right after the failing call, before anything resets the message.
*/
rsql_err_t rsql_catalog__sqlerr(rsql_catalog_t *cat, int rc, rsql_error_t *err);

/* Prepare one statement (*stmt owned by the caller: sqlite3_finalize). */
rsql_err_t rsql_catalog__prepare(rsql_catalog_t *cat, const char *sql, sqlite3_stmt **stmt,
                                 rsql_error_t *err);

/*
** Step stmt once, expecting SQLITE_DONE; maps any failure. Does not finalize.
*/
rsql_err_t rsql_catalog__step_done(rsql_catalog_t *cat, sqlite3_stmt *stmt, rsql_error_t *err);

/*
** Prepare, bind nothing, step to completion and finalize a constant statement
** (BEGIN, COMMIT, a pragma).
*/
rsql_err_t rsql_catalog__exec(rsql_catalog_t *cat, const char *sql, rsql_error_t *err);

/*
** Open a helper transaction (write: BEGIN IMMEDIATE, else BEGIN; or a
** SAVEPOINT when the caller holds one). *tx tells tx_end how to close it.
*/
rsql_err_t rsql_catalog__tx_begin(rsql_catalog_t *cat, bool write, rsql_catalog_tx_t *tx,
                                  rsql_error_t *err);

/*
** Close a helper transaction: commit when ok, else roll back. Returns the
** commit's error, if any (the rollback after a failure never overrides the
** first error).
*/
rsql_err_t rsql_catalog__tx_end(rsql_catalog_t *cat, rsql_catalog_tx_t tx, bool ok,
                                rsql_error_t *err);

/*
** Heap copy of column i of the current row into *out (NULL for SQL NULL).
** RSQL_ERR_NOMEM when the copy fails.
*/
rsql_err_t rsql_catalog__col_dup(sqlite3_stmt *stmt, int i, char **out, rsql_error_t *err);

/*
** Bind text (NULL binds SQL NULL). The string must outlive the statement's
** next reset/finalize (SQLITE_STATIC). Returns the SQLite code; on failure
** the connection's error is set, so rsql_catalog__sqlerr(cat,
** sqlite3_errcode(db), err) reports it.
*/
int rsql_catalog__bind_text(sqlite3_stmt *stmt, int i, const char *s);

/*
** Make room for index n in arr (elements of elem bytes, *cap allocated):
** returns arr or its reallocation (*cap updated), or NULL when out of
** memory (arr is then still valid and still the caller's).
*/
void *rsql_catalog__grow(void *arr, int *cap, int n, size_t elem);

/* ---- the helpers of the stored definitions (catalog.c), shared with catalog_jobs.c */
/* Report the bind failure recorded on the connection. */
rsql_err_t rsql_catalog__bind_err(rsql_catalog_t *cat, rsql_error_t *err);
/* Does a row named name exist (SELECT 1 ... WHERE name = ?1)? */
rsql_err_t rsql_catalog__name_exists(rsql_catalog_t *cat, const char *sql, const char *name,
                                     bool *exists, rsql_error_t *err);
/* Insert (owner, ord, key, value) rows for kv with the given INSERT statement. */
rsql_err_t rsql_catalog__insert_kvs(rsql_catalog_t *cat, const char *sql, const char *owner,
                                    const rsql_kv_t *kv, int n, rsql_error_t *err);
/* Load owner's (key, value) rows in order (SELECT key, value ... WHERE owner = ?1 ORDER BY
   ord): *kv a heap array of *n. */
rsql_err_t rsql_catalog__load_kvs(rsql_catalog_t *cat, const char *sql, const char *owner,
                                  rsql_kv_t **kv, int *n, rsql_error_t *err);
/*
** Open the write transaction of a CREATE of the <noun> name (exists_sql selects a row by name
** ?1): RSQL_OK with *tx open and *done false when the name is free; otherwise nothing stays
** open, *done is true, and the result is RSQL_OK (it exists, if_not_exists), RSQL_ERR_EXISTS
** or the SQLite error.
*/
rsql_err_t rsql_catalog__create_begin(rsql_catalog_t *cat, const char *noun,
                                      const char *exists_sql, const char *name,
                                      bool if_not_exists, rsql_catalog_tx_t *tx, bool *done,
                                      rsql_error_t *err);
/* Run the INSERT sql with ?1 name, ?2 text and ?3 created_ms (0 or less = now). */
rsql_err_t rsql_catalog__insert_named(rsql_catalog_t *cat, const char *sql, const char *name,
                                      const char *text, int64_t created_ms, rsql_error_t *err);
/* Delete one row by name with sql; *dropped (may be NULL) = whether one existed. */
rsql_err_t rsql_catalog__drop_named(rsql_catalog_t *cat, const char *sql, const char *name,
                                    bool *dropped, rsql_error_t *err);

/* Bring the schema to this build's version (catalog_migrate.c). */
rsql_err_t rsql_catalog__migrate(rsql_catalog_t *cat, rsql_error_t *err);

#endif
