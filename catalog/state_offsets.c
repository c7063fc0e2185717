/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Source offsets: the committed position of each (pipeline, partition), as
 * opaque text the source connector understands (a byte offset, a rowid, a
 * RocketMQ queue offset). The runtime writes them as outcomes complete
 * (periodically and at stop; several partitions at once inside
 * rsql_catalog_begin/commit) and a source reads them back when it opens.
 *
 * Durability: every put is committed before it returns; with WAL and
 * synchronous=NORMAL a committed offset survives kill -9 of the process (the
 * WAL is replayed on the next open) and can only be lost, never corrupted,
 * by an OS crash or power loss, which leaves the position behind, not ahead:
 * records are then delivered again (at-least-once), never skipped.
 */
#include "config.h"
#include "catalog/catalog_int.h"

#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

static rsql_err_t bind_err(rsql_catalog_t *cat, rsql_error_t *err)
{
    return rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
}

/*
** Store (insert or overwrite) the value for (pipeline, partition); committed
** when it returns unless the caller holds a transaction. value NULL deletes
** the stored value. Strings are copied.
*/
rsql_err_t rsql_catalog_offset_put(rsql_catalog_t *cat, const char *pipeline,
                                   const char *partition, const char *value, rsql_error_t *err)
{
    if (!pipeline || !partition) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "catalog: offset without pipeline or partition");
    }
    if (!value) {
        return rsql_catalog_offset_delete(cat, pipeline, partition, NULL, err);
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "INSERT INTO offsets(pipeline, partition, value, updated_ms) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(pipeline, partition) DO UPDATE SET value = excluded.value,"
        " updated_ms = excluded.updated_ms",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, pipeline) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, partition) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 3, value) != SQLITE_OK ||
        sqlite3_bind_int64(st, 4, rsql_wall_ms()) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        rc = rsql_catalog__step_done(cat, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* See rsql_catalog.h: every partition's value of pipeline, sorted by partition. */
rsql_err_t rsql_catalog_offset_list(rsql_catalog_t *cat, const char *pipeline, rsql_kv_t **out,
                                    int *n, rsql_error_t *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat, "SELECT partition, value FROM offsets WHERE pipeline = ?1 ORDER BY partition", &st,
        err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int cap = 0, src = SQLITE_DONE;
    if (rsql_catalog__bind_text(st, 1, pipeline) != SQLITE_OK) {
        rc = bind_err(cat, err);
    }
    while (rc == RSQL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        rsql_kv_t *grown = rsql_catalog__grow(*out, &cap, *n, sizeof(*grown));
        if (!grown) {
            rc = rsql_error_nomem(err);
            break;
        }
        *out = grown;
        rsql_kv_t *e = &(*out)[(*n)++];
        e->key = e->value = NULL;
        if ((rc = rsql_catalog__col_dup(st, 0, &e->key, err)) == RSQL_OK) {
            rc = rsql_catalog__col_dup(st, 1, &e->value, err);
        }
    }
    if (rc == RSQL_OK && src != SQLITE_DONE) {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    if (rc != RSQL_OK) {
        rsql_kv_array_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* See rsql_catalog.h: one partition, or all of the pipeline when partition is NULL. */
rsql_err_t rsql_catalog_offset_delete(rsql_catalog_t *cat, const char *pipeline,
                                      const char *partition, int *deleted, rsql_error_t *err)
{
    if (deleted) {
        *deleted = 0;
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        partition ? "DELETE FROM offsets WHERE pipeline = ?1 AND partition = ?2"
                  : "DELETE FROM offsets WHERE pipeline = ?1 AND ?2 IS NULL",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, pipeline) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, partition) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else if ((rc = rsql_catalog__step_done(cat, st, err)) == RSQL_OK && deleted) {
        *deleted = sqlite3_changes(cat->db);
    }
    sqlite3_finalize(st);
    return rc;
}

/* See rsql_catalog.h: base, then "@<source uid>.<sink uid>" and "~<epoch>" when known. */
rsql_err_t rsql_catalog_position_key(rsql_catalog_t *cat, const char *base, const char *source,
                                     const char *sink, char **key, char **shared,
                                     rsql_error_t *err)
{
    *key = NULL;
    if (shared) {
        *shared = NULL;
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "SELECT (SELECT uid FROM tables WHERE name = ?2), (SELECT uid FROM tables WHERE name = "
        "?3), (SELECT epoch FROM position_epochs WHERE pipeline = ?1)",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, base) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, source) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 3, sink) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        int src = sqlite3_step(st);
        if (src != SQLITE_ROW) {
            rc = rsql_catalog__sqlerr(cat, src, err);
        } else {
            const char *su = (const char *)sqlite3_column_text(st, 0);
            const char *ku = (const char *)sqlite3_column_text(st, 1);
            int64_t epoch = sqlite3_column_int64(st, 2);
            /* a NULL text of a non-NULL column is SQLite out of memory: never a key without
               the uids (the positions would be kept under another key) */
            if ((!su && sqlite3_column_type(st, 0) != SQLITE_NULL) ||
                (!ku && sqlite3_column_type(st, 1) != SQLITE_NULL)) {
                sqlite3_finalize(st);
                return rsql_error_nomem(err);
            }
            rsql_buf_t b = RSQL_BUF_INIT;
            rsql_buf_puts(&b, base);
            if (su || ku) {
                rsql_buf_printf(&b, "@%s.%s", su ? su : "-", ku ? ku : "-");
            }
            if (epoch > 0) {
                rsql_buf_printf(&b, "~%lld", (long long)epoch);
            }
            *key = rsql_buf_steal(&b);
            if (!*key) {
                rc = rsql_error_nomem(err);
            }
            if (rc == RSQL_OK && shared) {
                rsql_buf_puts(&b, base);
                if (epoch > 0) {
                    rsql_buf_printf(&b, "~%lld", (long long)epoch);
                }
                *shared = rsql_buf_steal(&b);
                if (!*shared) {
                    rsql_free(*key);
                    *key = NULL;
                    rc = rsql_error_nomem(err);
                }
            }
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* See rsql_catalog.h: one write transaction; a key of base is base itself or base + one of @~#. */
rsql_err_t rsql_catalog_positions_forget(rsql_catalog_t *cat, const char *base, int *forgotten,
                                         rsql_error_t *err)
{
    *forgotten = 0;
    rsql_catalog_tx_t tx;
    rsql_err_t rc = rsql_catalog__tx_begin(cat, true, &tx, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    static const char *const sql[] = {
        "DELETE FROM offsets WHERE lower(substr(pipeline, 1, length(?1))) = lower(?1) AND "
        "(length(pipeline) = length(?1) OR substr(pipeline, length(?1) + 1, 1) IN ('@', '~', "
        "'#'))",
        "INSERT INTO position_epochs(pipeline, epoch) VALUES (?1, 1) ON CONFLICT(pipeline) DO "
        "UPDATE SET epoch = epoch + 1",
    };
    for (int i = 0; rc == RSQL_OK && i < 2; i++) {
        sqlite3_stmt *st;
        if ((rc = rsql_catalog__prepare(cat, sql[i], &st, err)) != RSQL_OK) {
            break;
        }
        if (rsql_catalog__bind_text(st, 1, base) != SQLITE_OK) {
            rc = bind_err(cat, err);
        } else if ((rc = rsql_catalog__step_done(cat, st, err)) == RSQL_OK && i == 0) {
            *forgotten = sqlite3_changes(cat->db);
        }
        sqlite3_finalize(st);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, tx, rc == RSQL_OK, err);
    return rc != RSQL_OK ? rc : erc;
}
