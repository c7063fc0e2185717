/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The sqlite source: reads `table` of the database `path` in rowid order,
 * the columns of the rocketsql table matched by name (a METADATA column
 * FROM 'rowid' reads the rowid, only when the statement uses it). One partition,
 * "<path>#<table>"; a record's offset is its rowid, and a restart resumes
 * after the given rowid. Bounded: ends when no row is left; with
 * scan.follow it polls for new rows every scan.poll-interval (sleeping on
 * a condition variable, woken by wakeup).
 *
 * Rows are produced directly (no format). SQLite values convert (sqlite_values.c) to the
 * column types where no information is lost (an INTEGER to DOUBLE, a TEXT
 * '12' to INT, TEXT timestamps as written by the sqlite sink or INTEGER
 * epoch milliseconds). A row with any other value is still a record, with
 * its error set (rsql_record_t.error, RSQL_ERR_DECODE: "column 'x':
 * expected INT, got TEXT "abc"") and as raw form the row as SQLite holds
 * it, a JSON object ({"x":"abc","y":2}; a BLOB as base64): the runtime
 * dead-letters it or stops at it, and the rows around it are delivered.
 *
 * Threads: the connection is opened by open and then used by poll only
 * (the poll thread); wakeup from any thread. Offsets are worker-managed.
 */
#include "config.h"
#include "base/rsql_value.h"
#include "base/rsql_buf.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/sqlite/sqlite_conf.h"
#include "connectors/sqlite/sqlite_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

struct rsql_source {
    sqlite3 *db;
    sqlite3_stmt *sel;
    char *partition; /* "<path>#<table>" */
    int n;
    rsql_type_t *types;
    char **names;
    int64_t last_rowid;
    int64_t total;
    bool follow;
    int64_t poll_ms;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool woken, sync_init;
};

static void sq_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    sqlite3_finalize(s->sel);
    sqlite3_close(s->db);
    for (int i = 0; s->names && i < s->n; i++) {
        rsql_free(s->names[i]);
    }
    rsql_free(s->names);
    rsql_free(s->types);
    rsql_free(s->partition);
    if (s->sync_init) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    rsql_free(s);
}

/* A failed SQLite call: its own message; busy is transient, a missing table or file not. */
static rsql_err_t db_error(sqlite3 *db, int rc, rsql_error_t *err, const char *what,
                           const char *path)
{
    return rsql_sqlite__error(db, rc, NULL, err, "%s %s", what, path);
}

static rsql_err_t sq_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_sqlite_conf_t *conf = ctx->conf;
    const char *path = conf ? conf->path : NULL;
    const char *table = conf ? conf->table : NULL;
    rsql_buf_t sql = RSQL_BUF_INIT;
    rsql_source_t *s;
    int rc;
    if (!path || !*path || !table || !*table) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "sqlite source: options 'path' and 'table' are required");
    }
    s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->n = ctx->n_columns;
    s->types = rsql_calloc((size_t)s->n + 1, sizeof *s->types);
    s->names = rsql_calloc((size_t)s->n + 1, sizeof *s->names);
    rsql_buf_printf(&sql, "%s#%s", path, table);
    s->partition = rsql_buf_steal(&sql);
    if (!s->types || !s->names || !s->partition) {
        goto nomem;
    }
    for (int i = 0; i < s->n; i++) {
        s->types[i] = ctx->column_types[i];
        if (!(s->names[i] = rsql_strdup(ctx->column_names[i]))) {
            goto nomem;
        }
    }
    s->follow = conf->follow;
    s->poll_ms = conf->poll_ms;
    for (int i = 0; i < ctx->n_resume; i++) {
        if (strcmp(ctx->resume_partitions[i], s->partition) == 0) {
            s->last_rowid = ctx->resume_offsets[i];
        }
    }
    rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        db_error(s->db, rc, err, "cannot open", path);
        sq_close(s);
        return err ? err->code : RSQL_ERR_IO;
    }
    sqlite3_busy_timeout(s->db, 5000);
    rsql_buf_puts(&sql, "SELECT rowid");
    for (int i = 0; i < s->n; i++) {
        const char *key = ctx->column_meta ? ctx->column_meta[i] : NULL;
        rsql_buf_puts(&sql, ", ");
        if (key) { /* METADATA: 'rowid' (the only key), or NULL when the statement skips it */
            rsql_buf_puts(&sql, *key ? "rowid" : "NULL");
        } else {
            rsql_buf_quote_ident(&sql, s->names[i]);
        }
    }
    rsql_buf_puts(&sql, " FROM ");
    rsql_buf_quote_ident(&sql, table);
    rsql_buf_puts(&sql, " WHERE rowid > ?1 ORDER BY rowid LIMIT ?2");
    if (sql.oom) {
        goto nomem;
    }
    rc = sqlite3_prepare_v2(s->db, sql.data, -1, &s->sel, NULL);
    if (rc != SQLITE_OK) {
        db_error(s->db, rc, err, "cannot read table", s->partition);
        rsql_buf_deinit(&sql);
        sq_close(s);
        return err ? err->code : RSQL_ERR_IO;
    }
    /* total for a bounded read: the rows after the resume point */
    s->total = -1;
    if (!s->follow) {
        sqlite3_stmt *cnt = NULL;
        rsql_buf_reset(&sql);
        rsql_buf_puts(&sql, "SELECT count(*) FROM ");
        rsql_buf_quote_ident(&sql, table);
        rsql_buf_puts(&sql, " WHERE rowid > ?1");
        if (!sql.oom && sqlite3_prepare_v2(s->db, sql.data, -1, &cnt, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(cnt, 1, s->last_rowid);
            if (sqlite3_step(cnt) == SQLITE_ROW) {
                s->total = sqlite3_column_int64(cnt, 0);
            }
        }
        sqlite3_finalize(cnt);
    }
    rsql_buf_deinit(&sql);
    pthread_mutex_init(&s->mu, NULL);
    rsql_cond_init_monotonic(&s->cv);
    s->sync_init = true;
    *out = s;
    return RSQL_OK;
nomem:
    rsql_buf_deinit(&sql);
    sq_close(s);
    return rsql_error_nomem(err);
}

static void json_str(rsql_buf_t *b, const char *p, size_t n)
{
    rsql_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            rsql_buf_putc(b, '\\');
            rsql_buf_putc(b, (char)c);
        } else if (c < 0x20) {
            rsql_buf_printf(b, "\\u%04x", c);
        } else {
            rsql_buf_putc(b, (char)c);
        }
    }
    rsql_buf_putc(b, '"');
}

/*
** The raw form of the current row as SQLite holds it: a JSON object by column name
** (INTEGER and REAL as numbers, TEXT as a string, a BLOB as a base64 string, NULL), in the
** batch arena. NULL when out of memory.
*/
static const char *row_as_json(rsql_source_t *s, rsql_batch_t *batch, size_t *len)
{
    sqlite3_stmt *st = s->sel;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_putc(&b, '{');
    for (int i = 0; i < s->n; i++) {
        int k = i + 1;
        if (i) {
            rsql_buf_putc(&b, ',');
        }
        json_str(&b, s->names[i], strlen(s->names[i]));
        rsql_buf_putc(&b, ':');
        switch (sqlite3_column_type(st, k)) {
        case SQLITE_NULL: rsql_buf_puts(&b, "null"); break;
        case SQLITE_INTEGER:
        case SQLITE_FLOAT: rsql_buf_puts(&b, (const char *)sqlite3_column_text(st, k)); break;
        case SQLITE_BLOB: {
            rsql_value_t v = {.type = RSQL_TYPE_BYTES};
            v.v.s.p = sqlite3_column_blob(st, k);
            v.v.s.len = (size_t)sqlite3_column_bytes(st, k);
            rsql_buf_putc(&b, '"');
            rsql_value_format(&v, &b);
            rsql_buf_putc(&b, '"');
            break;
        }
        default:
            json_str(&b, (const char *)sqlite3_column_text(st, k),
                     (size_t)sqlite3_column_bytes(st, k));
        }
    }
    rsql_buf_putc(&b, '}');
    const char *out = b.oom ? NULL : rsql_arena_strndup(batch->arena, rsql_buf_str(&b), b.len);
    *len = b.len;
    rsql_buf_deinit(&b);
    return out;
}

static bool sq_sleep(rsql_source_t *s, int64_t ms)
{
    return rsql_io_sleep_until(&s->mu, &s->cv, &s->woken, rsql_now_ms() + ms);
}

static rsql_err_t sq_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                          bool *eof, rsql_error_t *err)
{
    int64_t deadline = rsql_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    int added = 0, rc;
    *eof = false;
    if (max > batch->cap - batch->n) {
        max = batch->cap - batch->n;
    }
    for (;;) {
        sqlite3_reset(s->sel);
        sqlite3_bind_int64(s->sel, 1, s->last_rowid);
        sqlite3_bind_int(s->sel, 2, max);
        while ((rc = sqlite3_step(s->sel)) == SQLITE_ROW) {
            int64_t rowid = sqlite3_column_int64(s->sel, 0);
            rsql_record_t *r = rsql_batch_add(batch);
            rsql_value_t *row = rsql_arena_alloc(batch->arena, (size_t)(s->n ? s->n : 1) *
                                                                   sizeof(rsql_value_t));
            char *ident = rsql_arena_alloc(batch->arena, strlen(s->partition) + 32);
            if (!r || !row || !ident) {
                if (r) {
                    batch->n--;
                }
                sqlite3_reset(s->sel);
                return rsql_error_nomem(err);
            }
            rsql_error_t bad;
            rsql_error_clear(&bad);
            rsql_err_t e = RSQL_OK;
            for (int i = 0; i < s->n && e == RSQL_OK; i++) {
                e = rsql_sqlite__column_value(s->sel, i + 1, s->types[i], s->names[i], batch->arena,
                                               &row[i], &bad);
            }
            rsql_error_t *rerr = NULL;
            const char *raw = NULL;
            size_t raw_len = 0;
            if (e == RSQL_ERR_DECODE) {
                /* a value this row cannot hold: a record with its error and raw form */
                rerr = rsql_arena_alloc(batch->arena, sizeof *rerr);
                raw = row_as_json(s, batch, &raw_len);
                if (rerr && raw) {
                    *rerr = bad;
                    e = RSQL_OK;
                } else {
                    e = RSQL_ERR_NOMEM;
                }
            }
            if (e != RSQL_OK) {
                batch->n--;
                sqlite3_reset(s->sel);
                return rsql_error_nomem(err);
            }
            sprintf(ident, "sqlite:%s@%" PRId64, s->partition, rowid);
            r->ident = ident;
            r->row = rerr ? NULL : row;
            r->error = rerr;
            r->raw = (const uint8_t *)raw;
            r->raw_len = raw_len;
            r->partition = 0;
            r->offset = rowid;
            s->last_rowid = rowid;
            added++;
        }
        sqlite3_reset(s->sel);
        if (rc != SQLITE_DONE) {
            return db_error(s->db, rc, err, "cannot read table", s->partition);
        }
        if (added > 0) {
            return RSQL_OK;
        }
        if (!s->follow) {
            *eof = true;
            return RSQL_OK;
        }
        int64_t now = rsql_now_ms();
        if (now >= deadline) {
            return RSQL_OK;
        }
        if (sq_sleep(s, deadline - now < s->poll_ms ? deadline - now : s->poll_ms)) {
            return RSQL_OK;
        }
    }
}

static int sq_partition_count(rsql_source_t *s)
{
    (void)s;
    return 1;
}

static const char *sq_partition_name(rsql_source_t *s, uint32_t partition)
{
    return partition == 0 ? s->partition : NULL;
}

static int64_t sq_total(rsql_source_t *s)
{
    return s->total;
}

static void sq_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->woken = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/*
** The sqlite source vtable (rsql_io.h). Static.
*/
const rsql_source_ops_t rsql_sqlite_source_ops = {
    .open = sq_open,
    .poll = sq_poll,
    .partition_count = sq_partition_count,
    .partition_name = sq_partition_name,
    .commit_record = NULL,
    .committed = NULL,
    .total = sq_total,
    .wakeup = sq_wakeup,
    .close = sq_close,
};
