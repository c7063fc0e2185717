/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The state of stateful statements (a deduplication's keys and kept rows): opaque bytes by
 * key, per pipeline key (the key its positions are kept under: RESET POSITIONS and DROP TABLE
 * forget it with them), each pipeline key stored once (state_pipelines) and its entries under
 * its number. The runtime writes the changes of the rows before the positions it
 * saves in the same transaction (rsql_catalog_begin ... commit), so the state and the
 * positions on disk always go together, and reads it all back when a run starts.
 */
#include "config.h"
#include "catalog/catalog_int.h"
#include "base/rsql_mem.h"

#include <stdlib.h>
#include <string.h>

/* A change and the first SORT_PREFIX bytes of its key (zero-padded), as big-endian words: most
   comparisons end in them, without reading the change's key, which lies anywhere in memory. A
   key changes many times between two checkpoints, so most comparisons are of equal keys, which
   read the key past the prefix if it is longer. 48 bytes: a window's key is 17 bytes of its
   window, then its GROUP BY values (window_start and window_end among them, 9 bytes each), 38
   bytes for one short VARCHAR key; with 16 the sort spent most of its time in memcmp. */
#define SORT_WORDS 6
#define SORT_PREFIX (SORT_WORDS * 8)
typedef struct sort_ent {
    uint64_t p[SORT_WORDS];
    const rsql_state_change_t *c;
} sort_ent_t;

static uint64_t be64_at(const uint8_t *k, size_t len, size_t off)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 8; i++) {
        v = v << 8 | (off + i < len ? k[off + i] : 0);
    }
    return v;
}

/* The order of the state table's keys (SQLite's for BLOBs: the bytes, then the shorter first),
   then the order the changes were made in. */
static int change_cmp(const void *a, const void *b)
{
    const sort_ent_t *x = a, *y = b;
    for (int i = 0; i < SORT_WORDS; i++) {
        if (x->p[i] != y->p[i]) {
            return x->p[i] < y->p[i] ? -1 : 1;
        }
    }
    size_t n = x->c->key_len < y->c->key_len ? x->c->key_len : y->c->key_len;
    int c = n > SORT_PREFIX ? memcmp((const uint8_t *)x->c->key + SORT_PREFIX,
                                     (const uint8_t *)y->c->key + SORT_PREFIX, n - SORT_PREFIX)
                            : 0;
    if (c == 0 && x->c->key_len != y->c->key_len) {
        c = x->c->key_len < y->c->key_len ? -1 : 1;
    }
    return c != 0 ? c : (x->c > y->c) - (x->c < y->c);
}

/* Whether x and y change the same key. */
static bool same_key(const sort_ent_t *x, const sort_ent_t *y)
{
    if (x->c->key_len != y->c->key_len) {
        return false;
    }
    for (int i = 0; i < SORT_WORDS; i++) {
        if (x->p[i] != y->p[i]) {
            return false;
        }
    }
    size_t n = x->c->key_len;
    return n <= SORT_PREFIX || memcmp((const uint8_t *)x->c->key + SORT_PREFIX,
                                      (const uint8_t *)y->c->key + SORT_PREFIX,
                                      n - SORT_PREFIX) == 0;
}

/*
** The changes to write, in key order, the last of each key only: a checkpoint's changes land
** on the B-tree's leaves one after another (each leaf read and written once, not once a key
** with leaves spread far past the page cache), and a key changed many times is written once.
*/
static const rsql_state_change_t **changes_sorted(int n, const rsql_state_change_t *changes,
                                                  int *out_n)
{
    const rsql_state_change_t **v = rsql_malloc(sizeof *v * (size_t)(n ? n : 1));
    sort_ent_t *e = rsql_malloc(sizeof *e * (size_t)(n ? n : 1));
    if (!v || !e) {
        rsql_free(v);
        rsql_free(e);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        const uint8_t *k = changes[i].key;
        e[i].c = &changes[i];
        for (int w = 0; w < SORT_WORDS; w++) {
            e[i].p[w] = be64_at(k, changes[i].key_len, (size_t)w * 8);
        }
    }
    qsort(e, (size_t)n, sizeof *e, change_cmp);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (i + 1 < n && same_key(&e[i], &e[i + 1])) {
            continue; /* a later change of the same key follows */
        }
        v[m++] = e[i].c;
    }
    rsql_free(e);
    *out_n = m;
    return v;
}

/*
** The number of pipeline's state in *id, or 0 when it has none; create: give it one then (on
** cat's connection, in the caller's transaction if one is open).
*/
static rsql_err_t pipe_id(rsql_catalog_t *cat, const char *pipeline, bool create, int64_t *id,
                          rsql_error_t *err)
{
    *id = 0;
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat, "SELECT id FROM state_pipelines WHERE pipeline = ?1", &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int src = rsql_catalog__bind_text(st, 1, pipeline);
    if (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (src != SQLITE_ROW && src != SQLITE_DONE) {
        return rsql_catalog__sqlerr(cat, src, err);
    }
    if (*id != 0 || !create) {
        return RSQL_OK;
    }
    rc = rsql_catalog__prepare(cat, "INSERT INTO state_pipelines(pipeline) VALUES (?1)", &st,
                               err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, pipeline) != SQLITE_OK) {
        rc = rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
    } else {
        rc = rsql_catalog__step_done(cat, st, err);
    }
    sqlite3_finalize(st);
    if (rc == RSQL_OK) {
        *id = sqlite3_last_insert_rowid(cat->db);
    }
    return rc;
}

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_state_write(rsql_catalog_t *cat, const char *pipeline, int n,
                                    const rsql_state_change_t *changes, int64_t expire_before_ms,
                                    rsql_error_t *err)
{
    sqlite3_stmt *put = NULL, *del = NULL;
    int64_t id = 0;
    rsql_err_t rc = n > 0 || expire_before_ms > 0
                        ? pipe_id(cat, pipeline, n > 0, &id, err)
                        : RSQL_OK;
    if (rc != RSQL_OK || id == 0) {
        return rc; /* nothing to write, and nothing stored to expire */
    }
    int m = 0;
    const rsql_state_change_t **order = changes_sorted(n, changes, &m);
    if (!order) {
        return rsql_error_nomem(err);
    }
    rc = rsql_catalog__prepare(
        cat,
        "INSERT INTO state(pipe, key, value, written_ms) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(pipe, key) DO UPDATE SET value = excluded.value,"
        " written_ms = excluded.written_ms",
        &put, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog__prepare(cat, "DELETE FROM state WHERE pipe = ?1 AND key = ?2", &del,
                                   err);
    }
    for (int i = 0; rc == RSQL_OK && i < m; i++) {
        const rsql_state_change_t *c = order[i];
        sqlite3_stmt *st = c->value ? put : del;
        sqlite3_reset(st);
        if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK ||
            sqlite3_bind_blob(st, 2, c->key, (int)c->key_len, SQLITE_STATIC) != SQLITE_OK ||
            (c->value && (sqlite3_bind_blob(st, 3, c->value_len ? c->value : "",
                                            (int)c->value_len, SQLITE_STATIC) != SQLITE_OK ||
                          sqlite3_bind_int64(st, 4, c->written_ms) != SQLITE_OK))) {
            rc = rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
            break;
        }
        rc = rsql_catalog__step_done(cat, st, err);
    }
    sqlite3_finalize(put);
    sqlite3_finalize(del);
    rsql_free(order);
    if (rc != RSQL_OK || expire_before_ms <= 0) {
        return rc;
    }
    sqlite3_stmt *ex;
    rc = rsql_catalog__prepare(cat, "DELETE FROM state WHERE pipe = ?1 AND written_ms < ?2", &ex,
                               err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (sqlite3_bind_int64(ex, 1, id) != SQLITE_OK ||
        sqlite3_bind_int64(ex, 2, expire_before_ms) != SQLITE_OK) {
        rc = rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
    } else {
        rc = rsql_catalog__step_done(cat, ex, err);
    }
    sqlite3_finalize(ex);
    return rc;
}

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_state_load(rsql_catalog_t *cat, const char *pipeline, int64_t since_ms,
                                   rsql_state_entry_cb cb, void *opaque, rsql_error_t *err)
{
    sqlite3_stmt *st;
    int64_t id;
    rsql_err_t rc = pipe_id(cat, pipeline, false, &id, err);
    if (rc != RSQL_OK || id == 0) {
        return rc;
    }
    rc = rsql_catalog__prepare(
        cat, "SELECT key, value, written_ms FROM state WHERE pipe = ?1 AND written_ms >= ?2",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int src = SQLITE_DONE;
    if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, since_ms) != SQLITE_OK) {
        rc = rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
    }
    while (rc == RSQL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        rc = cb(opaque, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
                sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
                sqlite3_column_int64(st, 2));
        if (rc != RSQL_OK && err && !err->code) {
            rsql_error_set(err, rc, RSQL_NOPOS, "reading the state of %s", pipeline);
        }
    }
    if (rc == RSQL_OK && src != SQLITE_DONE) {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- a reader of one pipeline's state on its own connection */

struct rsql_state_reader {
    sqlite3 *db;
    sqlite3_stmt *get;
    int64_t pipe; /* the pipeline's number in state_pipelines */
};

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_state_reader(rsql_catalog_t *cat, const char *pipeline,
                                     rsql_state_reader_t **out, bool *any, rsql_error_t *err)
{
    *out = NULL;
    *any = false;
    sqlite3_stmt *st;
    int64_t id;
    /* a number now (the reader's connection only reads), so that what is written later is
       found under it */
    rsql_err_t rc = pipe_id(cat, pipeline, true, &id, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rc = rsql_catalog__prepare(cat, "SELECT 1 FROM state WHERE pipe = ?1 LIMIT 1", &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int src = sqlite3_bind_int64(st, 1, id);
    if (src == SQLITE_OK) {
        src = sqlite3_step(st);
        *any = src == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    if (src != SQLITE_ROW && src != SQLITE_DONE) {
        return rsql_catalog__sqlerr(cat, src, err);
    }
    if (strcmp(cat->path, ":memory:") == 0) {
        return RSQL_OK; /* no other connection sees it */
    }
    rsql_state_reader_t *r = rsql_calloc(1, sizeof *r);
    if (!r) {
        return rsql_error_nomem(err);
    }
    r->pipe = id;
    src = sqlite3_open_v2(cat->path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (src == SQLITE_OK) {
        sqlite3_busy_timeout(r->db, RSQL_CATALOG_BUSY_TIMEOUT_MS);
        src = sqlite3_prepare_v2(r->db,
                                 "SELECT value, written_ms FROM state WHERE pipe = ?1 AND "
                                 "key = ?2 AND written_ms >= ?3",
                                 -1, &r->get, NULL);
    }
    if (src != SQLITE_OK) {
        rc = rsql_error_set(err, RSQL_ERR_CATALOG, RSQL_NOPOS,
                            "cannot read the state in catalog '%s': %s", cat->path,
                            r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(src));
        rsql_state_reader_close(r);
        return rc;
    }
    *out = r;
    return RSQL_OK;
}

/* See rsql_catalog.h. */
rsql_err_t rsql_state_reader_get(rsql_state_reader_t *r, const void *key, size_t key_len,
                                 int64_t since_ms, rsql_state_entry_cb cb, void *opaque,
                                 bool *found, rsql_error_t *err)
{
    *found = false;
    sqlite3_reset(r->get);
    if (sqlite3_bind_int64(r->get, 1, r->pipe) != SQLITE_OK ||
        sqlite3_bind_blob(r->get, 2, key, (int)key_len, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_int64(r->get, 3, since_ms) != SQLITE_OK) {
        return rsql_error_set(err, RSQL_ERR_CATALOG, RSQL_NOPOS, "reading the state: %s",
                              sqlite3_errmsg(r->db));
    }
    int src = sqlite3_step(r->get);
    rsql_err_t rc = RSQL_OK;
    if (src == SQLITE_ROW) {
        *found = true;
        rc = cb(opaque, key, key_len, sqlite3_column_blob(r->get, 0),
                (size_t)sqlite3_column_bytes(r->get, 0), sqlite3_column_int64(r->get, 1));
    } else if (src != SQLITE_DONE) {
        int code = src & 0xff;
        rc = rsql_error_set(err, code == SQLITE_BUSY || code == SQLITE_LOCKED
                                     ? RSQL_ERR_UNAVAILABLE
                                     : RSQL_ERR_CATALOG,
                            RSQL_NOPOS, "reading the state: %s", sqlite3_errmsg(r->db));
    }
    sqlite3_reset(r->get);
    return rc;
}

/* See rsql_catalog.h. */
void rsql_state_reader_close(rsql_state_reader_t *r)
{
    if (!r) {
        return;
    }
    sqlite3_finalize(r->get);
    if (r->db) {
        sqlite3_close_v2(r->db);
    }
    rsql_free(r);
}
