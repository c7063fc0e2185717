/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The state of stateful statements (a deduplication's keys and kept rows): opaque bytes by
 * key, per pipeline key (the key its positions are kept under: RESET POSITIONS and DROP TABLE
 * forget it with them). The runtime writes the changes of the rows before the positions it
 * saves in the same transaction (rsql_catalog_begin ... commit), so the state and the
 * positions on disk always go together, and reads it all back when a run starts.
 */
#include "config.h"
#include "catalog/catalog_int.h"
#include "base/rsql_mem.h"

#include <string.h>

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_state_write(rsql_catalog_t *cat, const char *pipeline, int n,
                                    const rsql_state_change_t *changes, int64_t expire_before_ms,
                                    rsql_error_t *err)
{
    sqlite3_stmt *put = NULL, *del = NULL;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "INSERT INTO state(pipeline, key, value, written_ms) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(pipeline, key) DO UPDATE SET value = excluded.value,"
        " written_ms = excluded.written_ms",
        &put, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog__prepare(cat, "DELETE FROM state WHERE pipeline = ?1 AND key = ?2",
                                   &del, err);
    }
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        const rsql_state_change_t *c = &changes[i];
        sqlite3_stmt *st = c->value ? put : del;
        sqlite3_reset(st);
        if (rsql_catalog__bind_text(st, 1, pipeline) != SQLITE_OK ||
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
    if (rc != RSQL_OK || expire_before_ms <= 0) {
        return rc;
    }
    sqlite3_stmt *ex;
    rc = rsql_catalog__prepare(cat, "DELETE FROM state WHERE pipeline = ?1 AND written_ms < ?2",
                               &ex, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(ex, 1, pipeline) != SQLITE_OK ||
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
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "SELECT key, value, written_ms FROM state WHERE pipeline = ?1 AND written_ms >= ?2",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int src = SQLITE_DONE;
    if (rsql_catalog__bind_text(st, 1, pipeline) != SQLITE_OK ||
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
    char *pipeline;
};

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_state_reader(rsql_catalog_t *cat, const char *pipeline,
                                     rsql_state_reader_t **out, bool *any, rsql_error_t *err)
{
    *out = NULL;
    *any = false;
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat, "SELECT 1 FROM state WHERE pipeline = ?1 LIMIT 1", &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int src = rsql_catalog__bind_text(st, 1, pipeline);
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
    if (!r || !(r->pipeline = rsql_strdup(pipeline))) {
        rsql_free(r);
        return rsql_error_nomem(err);
    }
    src = sqlite3_open_v2(cat->path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (src == SQLITE_OK) {
        sqlite3_busy_timeout(r->db, RSQL_CATALOG_BUSY_TIMEOUT_MS);
        src = sqlite3_prepare_v2(r->db,
                                 "SELECT value, written_ms FROM state WHERE pipeline = ?1 AND "
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
    if (sqlite3_bind_text(r->get, 1, r->pipeline, -1, SQLITE_STATIC) != SQLITE_OK ||
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
    rsql_free(r->pipeline);
    rsql_free(r);
}
