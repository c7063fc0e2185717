/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The catalog connection and its shared helpers: opening (file created 0600,
 * WAL, busy timeout, foreign keys, then migration), closing, the default
 * path, SQLite error mapping, statement and transaction helpers, and the
 * caller-visible transaction (rsql_catalog_begin/commit/rollback).
 * Then the stored tables (columns, options), and the helpers the stored jobs share
 * (catalog_jobs.c). Runs live in catalog_runs.c, offsets in state_offsets.c, the schema in
 * catalog_migrate.c.
 */
#include "config.h"
#include "catalog/catalog_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rsql_log.h"
#include "base/rsql_mem.h"

/* ------------------------------------------------------------------ helpers */

rsql_err_t rsql_catalog__sqlerr(rsql_catalog_t *cat, int rc, rsql_error_t *err)
{
    const char *msg = cat->db ? sqlite3_errmsg(cat->db) : sqlite3_errstr(rc);
    const char *what = cat->opening ? "cannot open catalog" : "catalog";
    rsql_err_t code;
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: code = RSQL_ERR_BUSY; break;
    case SQLITE_NOMEM: code = RSQL_ERR_NOMEM; break;
    default: code = RSQL_ERR_CATALOG; break;
    }
    return rsql_error_set(err, code, RSQL_NOPOS, "%s '%s': %s", what, cat->path, msg);
}

rsql_err_t rsql_catalog__prepare(rsql_catalog_t *cat, const char *sql, sqlite3_stmt **stmt,
                                 rsql_error_t *err)
{
    *stmt = NULL;
    int rc = sqlite3_prepare_v2(cat->db, sql, -1, stmt, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*stmt);
        *stmt = NULL;
        return rsql_catalog__sqlerr(cat, rc, err);
    }
    return RSQL_OK;
}

rsql_err_t rsql_catalog__step_done(rsql_catalog_t *cat, sqlite3_stmt *stmt, rsql_error_t *err)
{
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
        return RSQL_OK;
    }
    return rsql_catalog__sqlerr(cat, rc, err);
}

rsql_err_t rsql_catalog__exec(rsql_catalog_t *cat, const char *sql, rsql_error_t *err)
{
    sqlite3_stmt *stmt;
    rsql_err_t rc = rsql_catalog__prepare(cat, sql, &stmt, err);
    if (rc == RSQL_OK) {
        int src;
        while ((src = sqlite3_step(stmt)) == SQLITE_ROW) {
        }
        if (src != SQLITE_DONE) {
            rc = rsql_catalog__sqlerr(cat, src, err);
        }
        sqlite3_finalize(stmt);
    }
    return rc;
}

rsql_err_t rsql_catalog__tx_begin(rsql_catalog_t *cat, bool write, rsql_catalog_tx_t *tx,
                                  rsql_error_t *err)
{
    if (!sqlite3_get_autocommit(cat->db)) {
        *tx = RSQL_CATALOG_TX_SAVEPOINT;
        return rsql_catalog__exec(cat, "SAVEPOINT rsql_call", err);
    }
    *tx = RSQL_CATALOG_TX_TOP;
    return rsql_catalog__exec(cat, write ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

rsql_err_t rsql_catalog__tx_end(rsql_catalog_t *cat, rsql_catalog_tx_t tx, bool ok,
                                rsql_error_t *err)
{
    if (tx == RSQL_CATALOG_TX_SAVEPOINT) {
        if (ok) {
            return rsql_catalog__exec(cat, "RELEASE rsql_call", err);
        }
        /* undo this call's rows, keep the caller's transaction */
        rsql_catalog__exec(cat, "ROLLBACK TO rsql_call", NULL);
        rsql_catalog__exec(cat, "RELEASE rsql_call", NULL);
        return RSQL_OK;
    }
    if (ok) {
        rsql_err_t rc = rsql_catalog__exec(cat, "COMMIT", err);
        if (rc != RSQL_OK && !sqlite3_get_autocommit(cat->db)) {
            rsql_catalog__exec(cat, "ROLLBACK", NULL);
        }
        return rc;
    }
    if (!sqlite3_get_autocommit(cat->db)) {
        rsql_catalog__exec(cat, "ROLLBACK", NULL);
    }
    return RSQL_OK;
}

rsql_err_t rsql_catalog__col_dup(sqlite3_stmt *stmt, int i, char **out, rsql_error_t *err)
{
    *out = NULL;
    const unsigned char *s = sqlite3_column_text(stmt, i);
    if (!s) {
        if (sqlite3_column_type(stmt, i) != SQLITE_NULL) {
            return rsql_error_nomem(err);
        }
        return RSQL_OK;
    }
    *out = rsql_strndup((const char *)s, (size_t)sqlite3_column_bytes(stmt, i));
    if (!*out) {
        return rsql_error_nomem(err);
    }
    return RSQL_OK;
}

/* ------------------------------------------------------------------ open / close */

/*
** Create the file with mode 0600 when it is missing, so SQLite (which keeps
** an existing file's mode, and gives -wal/-shm the same mode) never creates
** it with the umask's mode. An existing file is left as it is. Failures are
** left to sqlite3_open_v2, whose message the caller reports.
*/
static void create_private(const char *path)
{
    /* O_EXCL: an existing file is never opened here, because closing a descriptor of it would
       drop every POSIX lock this process holds on it, those of other catalog connections of
       the same process (rocketsql serve) included */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    struct stat st;
    if (fd < 0 && errno == EEXIST && stat(path, &st) != 0 && errno == ENOENT) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600); /* a dangling symlink: follow it */
    }
    if (fd >= 0) {
        close(fd);
    }
}

/*
** Switch to WAL. Changing the journal mode of a fresh file needs a brief
** exclusive lock; when another process is opening the same fresh file at
** the same moment this can report busy even with the busy handler, so it is
** retried until the busy timeout.
*/
static rsql_err_t set_wal(rsql_catalog_t *cat, rsql_error_t *err)
{
    for (int waited_ms = 0;; waited_ms += 10) {
        sqlite3_stmt *stmt;
        rsql_err_t rc = rsql_catalog__prepare(cat, "PRAGMA journal_mode=WAL", &stmt, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        int src = sqlite3_step(stmt);
        if (src == SQLITE_ROW) {
            sqlite3_finalize(stmt);
            return RSQL_OK; /* "wal", or "memory" for :memory: */
        }
        if ((src & 0xff) != SQLITE_BUSY || waited_ms >= RSQL_CATALOG_BUSY_TIMEOUT_MS) {
            rc = rsql_catalog__sqlerr(cat, src, err);
            sqlite3_finalize(stmt);
            return rc;
        }
        sqlite3_finalize(stmt);
        sqlite3_sleep(10);
    }
}

/*
** Open (creating when missing, mode 0600) and migrate the catalog at path.
** Returns a new catalog owned by the caller (rsql_catalog_close), or NULL
** with err set: RSQL_ERR_CATALOG "cannot open catalog 'PATH': reason",
** RSQL_ERR_BUSY, RSQL_ERR_NOMEM.
*/
rsql_catalog_t *rsql_catalog_open(const char *path, rsql_error_t *err)
{
    if (!path || !*path) {
        rsql_error_set(err, RSQL_ERR_CATALOG, RSQL_NOPOS, "cannot open catalog '': empty path");
        return NULL;
    }
    rsql_catalog_t *cat = rsql_calloc(1, sizeof(*cat));
    if (!cat || !(cat->path = rsql_strdup(path))) {
        rsql_free(cat);
        rsql_error_nomem(err);
        return NULL;
    }
    bool memory = strcmp(path, ":memory:") == 0;
    if (!memory) {
        create_private(path);
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE;
    int src = sqlite3_open_v2(path, &cat->db, flags, NULL);
    if (src != SQLITE_OK) {
        const char *msg = cat->db ? sqlite3_errmsg(cat->db) : sqlite3_errstr(src);
        rsql_error_set(err, (src & 0xff) == SQLITE_NOMEM ? RSQL_ERR_NOMEM : RSQL_ERR_CATALOG,
                       RSQL_NOPOS, "cannot open catalog '%s': %s", path, msg);
        rsql_catalog_close(cat);
        return NULL;
    }
    sqlite3_busy_timeout(cat->db, RSQL_CATALOG_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(cat->db, 1);

    cat->opening = true;
    if ((memory || set_wal(cat, err) == RSQL_OK) &&
        rsql_catalog__exec(cat, "PRAGMA foreign_keys=ON", err) == RSQL_OK &&
        rsql_catalog__exec(cat, "PRAGMA synchronous=NORMAL", err) == RSQL_OK &&
        rsql_catalog__migrate(cat, err) == RSQL_OK) {
        cat->opening = false;
        rsql_log(RSQL_LOG_DEBUG, "catalog", "opened %s", path);
        return cat;
    }
    rsql_catalog_close(cat);
    return NULL;
}

/* Close the connection and free cat. NULL-safe. An open transaction is rolled back. */
void rsql_catalog_close(rsql_catalog_t *cat)
{
    if (!cat) {
        return;
    }
    if (cat->db) {
        sqlite3_close_v2(cat->db);
    }
    rsql_free(cat->path);
    rsql_free(cat);
}

/* The path cat was opened with (borrowed, valid until close). */
const char *rsql_catalog_path(const rsql_catalog_t *cat)
{
    return cat->path;
}

/*
** flag when non-NULL, else $ROCKETSQL_CATALOG when set and non-empty, else
** "./rocketsql.db". Borrowed (flag, the environment, or a constant).
*/
const char *rsql_catalog_default_path(const char *flag)
{
    if (flag) {
        return flag;
    }
    const char *env = getenv("ROCKETSQL_CATALOG");
    if (env && *env) {
        return env;
    }
    return "./rocketsql.db";
}

void rsql_catalog_set_busy_timeout(rsql_catalog_t *cat, int timeout_ms)
{
    sqlite3_busy_timeout(cat->db, timeout_ms);
}

/* ------------------------------------------------------------------ caller transactions */

/* See rsql_catalog.h: BEGIN IMMEDIATE; RSQL_ERR_INTERNAL when one is open already. */
rsql_err_t rsql_catalog_begin(rsql_catalog_t *cat, rsql_error_t *err)
{
    if (!sqlite3_get_autocommit(cat->db)) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "catalog '%s': a transaction is already open", cat->path);
    }
    return rsql_catalog__exec(cat, "BEGIN IMMEDIATE", err);
}

/* Commit the caller's transaction; on failure it is rolled back. */
rsql_err_t rsql_catalog_commit(rsql_catalog_t *cat, rsql_error_t *err)
{
    if (sqlite3_get_autocommit(cat->db)) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "catalog '%s': no transaction is open", cat->path);
    }
    return rsql_catalog__tx_end(cat, RSQL_CATALOG_TX_TOP, true, err);
}

rsql_err_t rsql_catalog_rollback(rsql_catalog_t *cat, rsql_error_t *err)
{
    if (sqlite3_get_autocommit(cat->db)) {
        return RSQL_OK;
    }
    return rsql_catalog__exec(cat, "ROLLBACK", err);
}

/* ------------------------------------------------------------------ frees */

void rsql_strv_free(char **v, int n)
{
    if (!v) {
        return;
    }
    for (int i = 0; i < n; i++) {
        rsql_free(v[i]);
    }
    rsql_free(v);
}

void rsql_kv_array_free(rsql_kv_t *kv, int n)
{
    if (!kv) {
        return;
    }
    for (int i = 0; i < n; i++) {
        rsql_free(kv[i].key);
        rsql_free(kv[i].value);
    }
    rsql_free(kv);
}

int rsql_catalog__bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
    if (!s) {
        return sqlite3_bind_null(stmt, i);
    }
    return sqlite3_bind_text(stmt, i, s, -1, SQLITE_STATIC);
}

void *rsql_catalog__grow(void *arr, int *cap, int n, size_t elem)
{
    if (n < *cap) {
        return arr;
    }
    int ncap = *cap ? *cap * 2 : 8;
    void *np = rsql_realloc(arr, (size_t)ncap * elem);
    if (np) {
        *cap = ncap;
    }
    return np;
}

/* Report the bind failure recorded on the connection. */
rsql_err_t rsql_catalog__bind_err(rsql_catalog_t *cat, rsql_error_t *err)
{
    return rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
}

/* Does a row named name exist (SELECT 1 ... WHERE name = ?1)? */
rsql_err_t rsql_catalog__name_exists(rsql_catalog_t *cat, const char *sql, const char *name,
                                     bool *exists, rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, sql, &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, name) != SQLITE_OK) {
        rc = rsql_catalog__bind_err(cat, err);
    } else {
        int src = sqlite3_step(st);
        if (src == SQLITE_ROW || src == SQLITE_DONE) {
            *exists = src == SQLITE_ROW;
        } else {
            rc = rsql_catalog__sqlerr(cat, src, err);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Insert (owner, ord, key, value) rows for kv into a (…, ord, key, value)
** table with the given INSERT statement.
*/
rsql_err_t rsql_catalog__insert_kvs(rsql_catalog_t *cat, const char *sql, const char *owner,
                                    const rsql_kv_t *kv, int n, rsql_error_t *err)
{
    if (n <= 0) {
        return RSQL_OK;
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, sql, &st, err);
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        sqlite3_reset(st);
        if (rsql_catalog__bind_text(st, 1, owner) != SQLITE_OK ||
            sqlite3_bind_int(st, 2, i) != SQLITE_OK ||
            rsql_catalog__bind_text(st, 3, kv[i].key) != SQLITE_OK ||
            rsql_catalog__bind_text(st, 4, kv[i].value) != SQLITE_OK) {
            rc = rsql_catalog__bind_err(cat, err);
        } else {
            rc = rsql_catalog__step_done(cat, st, err);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Load the (key, value) rows of owner, in order, with a SELECT key, value
** ... WHERE owner = ?1 ORDER BY ord statement. *kv heap array, *n count.
*/
rsql_err_t rsql_catalog__load_kvs(rsql_catalog_t *cat, const char *sql, const char *owner,
                                  rsql_kv_t **kv, int *n, rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, sql, &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int cap = 0, src = SQLITE_DONE;
    if (rsql_catalog__bind_text(st, 1, owner) != SQLITE_OK) {
        rc = rsql_catalog__bind_err(cat, err);
    }
    while (rc == RSQL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        rsql_kv_t *grown = rsql_catalog__grow(*kv, &cap, *n, sizeof(**kv));
        if (!grown) {
            rc = rsql_error_nomem(err);
            break;
        }
        *kv = grown;
        rsql_kv_t *e = &(*kv)[*n];
        e->key = e->value = NULL;
        (*n)++;
        if ((rc = rsql_catalog__col_dup(st, 0, &e->key, err)) == RSQL_OK) {
            rc = rsql_catalog__col_dup(st, 1, &e->value, err);
        }
    }
    if (rc == RSQL_OK && src != SQLITE_DONE) {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* ------------------------------------------------------------------ tables */

static rsql_err_t check_table_def(const rsql_table_def_t *def, rsql_error_t *err)
{
    if (!def || !def->name || !*def->name || def->n_columns < 0 || def->n_options < 0 ||
        (def->n_columns > 0 && !def->columns) || (def->n_options > 0 && !def->options)) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "catalog: incomplete table definition");
    }
    for (int i = 0; i < def->n_columns; i++) {
        rsql_type_t t = def->columns[i].type;
        if (!def->columns[i].name || t <= RSQL_TYPE_NULL || t > RSQL_TYPE_MAP ||
            (rsql_type_is_nested(t) && !def->columns[i].desc)) {
            return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                  "catalog: table '%s': invalid column %d", def->name, i + 1);
        }
    }
    for (int i = 0; i < def->n_options; i++) {
        if (!def->options[i].key || !def->options[i].value) {
            return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                  "catalog: table '%s': invalid option %d", def->name, i + 1);
        }
    }
    return RSQL_OK;
}

/*
** Open the write transaction of a CREATE of the <noun> name (exists_sql selects
** a row by name ?1). RSQL_OK with *tx open and *done false when the name is
** free. Otherwise nothing stays open and *done is true: RSQL_OK when the name
** exists and if_not_exists, RSQL_ERR_EXISTS "<noun> 'NAME' already exists",
** or the SQLite error.
*/
rsql_err_t rsql_catalog__create_begin(rsql_catalog_t *cat, const char *noun,
                                      const char *exists_sql, const char *name,
                                      bool if_not_exists, rsql_catalog_tx_t *tx, bool *done,
                                      rsql_error_t *err)
{
    *done = true;
    rsql_err_t rc = rsql_catalog__tx_begin(cat, true, tx, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    bool exists = false;
    rc = rsql_catalog__name_exists(cat, exists_sql, name, &exists, err);
    if (rc != RSQL_OK || exists) {
        if (rc == RSQL_OK && !if_not_exists) {
            rc = rsql_error_set(err, RSQL_ERR_EXISTS, RSQL_NOPOS, "%s '%s' already exists", noun,
                                name);
        }
        rsql_catalog__tx_end(cat, *tx, false, NULL);
        return rc;
    }
    *done = false;
    return RSQL_OK;
}

/* Run the INSERT sql with ?1 name, ?2 text and ?3 created_ms (0 or less = now). */
rsql_err_t rsql_catalog__insert_named(rsql_catalog_t *cat, const char *sql, const char *name,
                                      const char *text, int64_t created_ms, rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, sql, &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int64_t created = created_ms > 0 ? created_ms : rsql_wall_ms();
    if (rsql_catalog__bind_text(st, 1, name) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, text) != SQLITE_OK ||
        sqlite3_bind_int64(st, 3, created) != SQLITE_OK) {
        rc = rsql_catalog__bind_err(cat, err);
    } else {
        rc = rsql_catalog__step_done(cat, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The table_columns rows of def. */
static rsql_err_t insert_columns(rsql_catalog_t *cat, const rsql_table_def_t *def,
                                 rsql_error_t *err)
{
    if (def->n_columns == 0) {
        return RSQL_OK;
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat,
                               "INSERT INTO table_columns(table_name, ord, name, type, not_null, "
                               "metadata, meta_from, is_virtual, pk_ord, expr, watermark) "
                               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULLIF(?9, 0), ?10, ?11)",
                               &st, err);
    for (int i = 0; rc == RSQL_OK && i < def->n_columns; i++) {
        const rsql_col_t *c = &def->columns[i];
        sqlite3_reset(st);
        if (rsql_catalog__bind_text(st, 1, def->name) != SQLITE_OK ||
            sqlite3_bind_int(st, 2, i) != SQLITE_OK ||
            rsql_catalog__bind_text(st, 3, c->name) != SQLITE_OK ||
            rsql_catalog__bind_text(st, 4, rsql_type_is_param(c->type) && c->desc ? c->desc->text
                                                                    : rsql_type_name(c->type)) !=
                SQLITE_OK ||
            sqlite3_bind_int(st, 5, c->not_null ? 1 : 0) != SQLITE_OK ||
            sqlite3_bind_int(st, 6, c->metadata ? 1 : 0) != SQLITE_OK ||
            (c->metadata && c->meta_from
                 ? rsql_catalog__bind_text(st, 7, c->meta_from)
                 : sqlite3_bind_null(st, 7)) != SQLITE_OK ||
            sqlite3_bind_int(st, 8, c->metadata && c->is_virtual ? 1 : 0) != SQLITE_OK ||
            sqlite3_bind_int(st, 9, c->pk_ord) != SQLITE_OK ||
            (c->expr ? rsql_catalog__bind_text(st, 10, c->expr) : sqlite3_bind_null(st, 10)) !=
                SQLITE_OK ||
            (c->watermark ? rsql_catalog__bind_text(st, 11, c->watermark)
                          : sqlite3_bind_null(st, 11)) != SQLITE_OK) {
            rc = rsql_catalog__bind_err(cat, err);
        } else {
            rc = rsql_catalog__step_done(cat, st, err);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* The table_options rows of def, in order. */
static rsql_err_t insert_options(rsql_catalog_t *cat, const rsql_table_def_t *def,
                                 rsql_error_t *err)
{
    return rsql_catalog__insert_kvs(cat,
                                    "INSERT INTO table_options(table_name, ord, key, value) "
                                    "VALUES (?1, ?2, ?3, ?4)",
                                    def->name, def->options, def->n_options, err);
}

static rsql_err_t insert_table(rsql_catalog_t *cat, const rsql_table_def_t *def,
                               rsql_error_t *err)
{
    rsql_err_t rc = rsql_catalog__insert_named(cat,
                                               "INSERT INTO tables(name, connector, created_ms, "
                                               "uid) VALUES (?1, ?2, ?3, lower(hex(randomblob(6))))",
                                               def->name, def->connector, def->created_ms, err);
    return rc == RSQL_OK ? insert_columns(cat, def, err) : rc;
}

/*
** Store def (copied into SQLite; def stays the caller's) in one write
** transaction. RSQL_ERR_EXISTS "table 'NAME' already exists" when a table of
** that name (any case) exists, unless if_not_exists (then RSQL_OK, nothing
** changed). def->created_ms 0 means now.
*/
rsql_err_t rsql_catalog_table_create(rsql_catalog_t *cat, const rsql_table_def_t *def,
                                     bool if_not_exists, rsql_error_t *err)
{
    rsql_err_t rc = check_table_def(def, err);
    rsql_catalog_tx_t tx;
    bool done = true;
    if (rc != RSQL_OK ||
        (rc = rsql_catalog__create_begin(cat, "table", "SELECT 1 FROM tables WHERE name = ?1", def->name,
                           if_not_exists, &tx, &done, err)) != RSQL_OK ||
        done) {
        return rc;
    }
    rc = insert_table(cat, def, err);
    if (rc == RSQL_OK) {
        rc = insert_options(cat, def, err);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, tx, rc == RSQL_OK, err);
    return rc != RSQL_OK ? rc : erc;
}

/*
** Replace the table named def->name by def in one write transaction: its row is updated in
** place, its columns and options written again, so what belongs to the table as created (its
** uid, and with it the positions saved for it) stays. RSQL_ERR_UNKNOWN_NAME when none.
*/
rsql_err_t rsql_catalog_table_replace(rsql_catalog_t *cat, const rsql_table_def_t *def,
                                      rsql_error_t *err)
{
    rsql_err_t rc = check_table_def(def, err);
    rsql_catalog_tx_t tx;
    if (rc != RSQL_OK || (rc = rsql_catalog__tx_begin(cat, true, &tx, err)) != RSQL_OK) {
        return rc;
    }
    bool exists = false;
    rc = rsql_catalog__name_exists(cat, "SELECT 1 FROM tables WHERE name = ?1", def->name,
                                   &exists, err);
    if (rc == RSQL_OK && !exists) {
        rc = rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, RSQL_NOPOS, "no such table: %s",
                            def->name);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__insert_named(
            cat, "UPDATE tables SET connector = ?2, created_ms = ?3 WHERE name = ?1", def->name,
            def->connector, def->created_ms, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__drop_named(cat, "DELETE FROM table_columns WHERE table_name = ?1",
                                      def->name, NULL, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__drop_named(cat, "DELETE FROM table_options WHERE table_name = ?1",
                                      def->name, NULL, err);
    }
    if (rc == RSQL_OK) {
        rc = insert_columns(cat, def, err);
    }
    if (rc == RSQL_OK) {
        rc = insert_options(cat, def, err);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, tx, rc == RSQL_OK, err);
    return rc != RSQL_OK ? rc : erc;
}

static rsql_err_t load_columns(rsql_catalog_t *cat, rsql_table_def_t *def, rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "SELECT name, type, not_null, metadata, meta_from, is_virtual, coalesce(pk_ord, 0), "
        "expr, watermark "
        "FROM table_columns WHERE table_name = ?1 ORDER BY ord",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int cap = 0, src = SQLITE_DONE;
    if (rsql_catalog__bind_text(st, 1, def->name) != SQLITE_OK) {
        rc = rsql_catalog__bind_err(cat, err);
    }
    while (rc == RSQL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        rsql_col_t *grown = rsql_catalog__grow(def->columns, &cap, def->n_columns,
                                               sizeof(rsql_col_t));
        if (!grown) {
            rc = rsql_error_nomem(err);
            break;
        }
        def->columns = grown;
        rsql_col_t *c = &def->columns[def->n_columns++];
        memset(c, 0, sizeof(*c));
        c->not_null = sqlite3_column_int(st, 2) != 0;
        c->metadata = sqlite3_column_int(st, 3) != 0;
        c->is_virtual = c->metadata && sqlite3_column_int(st, 5) != 0;
        c->pk_ord = sqlite3_column_int(st, 6);
        if (c->metadata && sqlite3_column_type(st, 4) != SQLITE_NULL &&
            (rc = rsql_catalog__col_dup(st, 4, &c->meta_from, err)) != RSQL_OK) {
            break;
        }
        if (sqlite3_column_type(st, 7) != SQLITE_NULL &&
            (rc = rsql_catalog__col_dup(st, 7, &c->expr, err)) != RSQL_OK) {
            break;
        }
        if (sqlite3_column_type(st, 8) != SQLITE_NULL &&
            (rc = rsql_catalog__col_dup(st, 8, &c->watermark, err)) != RSQL_OK) {
            break;
        }
        const char *tname = (const char *)sqlite3_column_text(st, 1);
        int t = tname ? rsql_type_from_name(tname) : -1;
        const rsql_tdesc_t *desc = NULL;
        if (tname && (t < 0 || rsql_type_is_param((rsql_type_t)t) || t == RSQL_TYPE_DATE) &&
            rsql_tdesc_parse(tname, strlen(tname), &desc, NULL, NULL) == RSQL_OK) {
            t = (int)desc->type; /* DECIMAL(p, s), DATE, ROW<...>, ARRAY<...>, MAP<...> */
        }
        c->desc = desc;
        if ((rc = rsql_catalog__col_dup(st, 0, &c->name, err)) != RSQL_OK) {
            break;
        }
        if (t < 0) {
            rc = rsql_error_set(err, RSQL_ERR_CATALOG, RSQL_NOPOS,
                                "catalog '%s': column '%s' of table '%s' has unknown type '%s'",
                                cat->path, c->name ? c->name : "", def->name,
                                tname ? tname : "");
            break;
        }
        c->type = (rsql_type_t)t;
    }
    if (rc == RSQL_OK && src != SQLITE_DONE) {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Read one table (its tables row is the current row of st) with columns and options. */
static rsql_err_t load_table(rsql_catalog_t *cat, sqlite3_stmt *st, rsql_table_def_t **out,
                             rsql_error_t *err)
{
    rsql_table_def_t *def = rsql_calloc(1, sizeof(*def));
    if (!def) {
        return rsql_error_nomem(err);
    }
    def->created_ms = sqlite3_column_int64(st, 2);
    rsql_err_t rc = rsql_catalog__col_dup(st, 0, &def->name, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 1, &def->connector, err);
    }
    if (rc == RSQL_OK) {
        rc = load_columns(cat, def, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__load_kvs(cat,
                      "SELECT key, value FROM table_options WHERE table_name = ?1 ORDER BY ord",
                      def->name, &def->options, &def->n_options, err);
    }
    if (rc != RSQL_OK) {
        rsql_table_def_free(def);
        return rc;
    }
    *out = def;
    return RSQL_OK;
}

/*
** Look up a table by name (case-insensitive). *out = new copy owned by the
** caller (rsql_table_def_free), or NULL when there is none (RSQL_OK).
*/
rsql_err_t rsql_catalog_table_get(rsql_catalog_t *cat, const char *name, rsql_table_def_t **out,
                                  rsql_error_t *err)
{
    *out = NULL;
    rsql_catalog_tx_t tx;
    rsql_err_t rc = rsql_catalog__tx_begin(cat, false, &tx, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    sqlite3_stmt *st;
    rc = rsql_catalog__prepare(
        cat, "SELECT name, connector, created_ms FROM tables WHERE name = ?1", &st, err);
    if (rc == RSQL_OK) {
        if (rsql_catalog__bind_text(st, 1, name) != SQLITE_OK) {
            rc = rsql_catalog__bind_err(cat, err);
        } else {
            int src = sqlite3_step(st);
            if (src == SQLITE_ROW) {
                rc = load_table(cat, st, out, err);
            } else if (src != SQLITE_DONE) {
                rc = rsql_catalog__sqlerr(cat, src, err);
            }
        }
        sqlite3_finalize(st);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, tx, rc == RSQL_OK, err);
    if (rc == RSQL_OK && erc != RSQL_OK) {
        rsql_table_def_free(*out);
        *out = NULL;
        rc = erc;
    }
    return rc;
}

/* Delete one row by name with sql; *dropped (may be NULL) = whether one existed. */
rsql_err_t rsql_catalog__drop_named(rsql_catalog_t *cat, const char *sql, const char *name,
                                    bool *dropped, rsql_error_t *err)
{
    if (dropped) {
        *dropped = false;
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, sql, &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, name) != SQLITE_OK) {
        rc = rsql_catalog__bind_err(cat, err);
    } else if ((rc = rsql_catalog__step_done(cat, st, err)) == RSQL_OK && dropped) {
        *dropped = sqlite3_changes(cat->db) > 0;
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Drop a table (its columns and options cascade). *dropped = whether it
** existed; a missing table is not an error here (the caller decides).
*/
rsql_err_t rsql_catalog_table_drop(rsql_catalog_t *cat, const char *name, bool *dropped,
                                   rsql_error_t *err)
{
    return rsql_catalog__drop_named(cat, "DELETE FROM tables WHERE name = ?1", name, dropped, err);
}

/*
** Names of all tables, sorted case-insensitively: *names a heap array of n
** heap strings owned by the caller (rsql_strv_free); NULL and 0 when none.
*/
rsql_err_t rsql_catalog_table_list(rsql_catalog_t *cat, char ***names, int *n, rsql_error_t *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(cat, "SELECT name FROM tables ORDER BY name", &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int cap = 0, src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        char **grown = rsql_catalog__grow(*names, &cap, *n, sizeof(char *));
        if (!grown) {
            rc = rsql_error_nomem(err);
            break;
        }
        *names = grown;
        (*names)[*n] = NULL;
        (*n)++;
        if ((rc = rsql_catalog__col_dup(st, 0, &(*names)[*n - 1], err)) != RSQL_OK) {
            break;
        }
    }
    if (rc == RSQL_OK && src != SQLITE_DONE) {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    if (rc != RSQL_OK) {
        rsql_strv_free(*names, *n);
        *names = NULL;
        *n = 0;
    }
    return rc;
}

/* The metadata key of a METADATA column (FROM 'key', else its name); NULL for a physical one. */
const char *rsql_col_meta_key(const rsql_col_t *col)
{
    if (!col || !col->metadata) {
        return NULL;
    }
    return col->meta_from ? col->meta_from : col->name;
}

/* Free a table definition and everything it owns. NULL-safe. */
void rsql_table_def_free(rsql_table_def_t *def)
{
    if (!def) {
        return;
    }
    for (int i = 0; def->columns && i < def->n_columns; i++) {
        rsql_free(def->columns[i].name);
        rsql_free(def->columns[i].meta_from);
        rsql_free(def->columns[i].expr);
        rsql_free(def->columns[i].watermark);
    }
    rsql_free(def->columns);
    rsql_kv_array_free(def->options, def->n_options);
    rsql_free(def->name);
    rsql_free(def->connector);
    rsql_free(def);
}
