/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The sqlite sink, exactly-once: rows are inserted into `table` of the
 * database `path` in transactions of at most sink.batch-size rows, and in
 * the SAME transaction the position of each source partition served is
 * stored in
 *   rocketsql_positions(pipeline TEXT, partition TEXT, offset INTEGER,
 *                       resume_key TEXT, PRIMARY KEY(pipeline, partition))
 * so after a crash (even kill -9) the data and the positions agree; the
 * runtime resumes the source from stored_positions, and no row is lost or
 * written twice. The table is created when missing, with the sink's
 * columns as SQLite types (INTEGER for BOOLEAN/INT/BIGINT, REAL, TEXT,
 * BLOB, and TEXT "YYYY-MM-DD HH:MM:SS.mmm" for TIMESTAMP(3)). WAL mode,
 * busy timeout 5 s.
 *
 * Gathering (connectors/conn_gather.h, shared with the postgres sink): write holds each
 * pipeline batch; the held batches are written together, in one transaction of up to
 * sink.batch-size rows (default 8192), when they hold that many rows or at flush (the runtime
 * flushes when sink.batch-size rows are unreported, as gather_rows tells it, every
 * state.flush-interval while rows come, when no row came for a moment, and at the end). Far
 * fewer commits than one per pipeline batch (~1,000 rows): each commit of a changelog's
 * scattered keys writes its dirty pages to the WAL, and fewer, larger ones write each page
 * once for many changes.
 *
 * Delivery: one callback per held batch, after the last COMMIT of the gathered rows. When
 * they span several transactions and a later one fails, the committed rows are reported
 * written and the others failed; when nothing was committed, the batches stay held (a
 * transient error) or fail (any other). Errors carry
 * SQLite's own message, read before the ROLLBACK replaces it, and a code
 * that says what happened (sqlite_err.c): a busy or locked database is
 * transient (the runtime retries), a constraint violation, a missing table
 * or column, a full disk or a read-only file is permanent (the run fails at
 * once; under errors.tolerance 'all' the failed transaction's rows are written again one per
 * transaction, so only the rows that fail themselves are dead-lettered).
 *
 * From a source that keeps its own positions (RocketMQ: rsql_sink_ctx_t.source_own_positions)
 * the same transaction records each applied record's identity (rec->ident: topic, lite
 * topic, message id) in
 *   rocketsql_applied(pipeline TEXT, id TEXT, applied_at INTEGER (epoch ms),
 *                     PRIMARY KEY(pipeline, id)) WITHOUT ROWID
 * with INSERT OR IGNORE; a row whose identity is already there was applied by an earlier
 * delivery of its message, so it is not inserted again and is reported written (meta
 * "already applied"): the runtime acks the redelivery. Message ids rather than per-queue
 * watermarks: a Pop consumer receives a queue's messages out of order (redeliveries, several
 * consumers in the group), and a record carries its message id but not a dense per-queue
 * sequence. Entries older than sink.exactly-once.retention are deleted, at most once a
 * minute, once the sink has been open that long (a redelivery after a restart is then still
 * recognized), so the record stays about (rate x retention) entries.
 *
 * Upsert: with PRIMARY KEY (k, ...) NOT ENFORCED (rsql_sink_ctx_t.n_key) a created table gets
 * that primary key and each row is INSERT ... ON CONFLICT (k) DO UPDATE SET (the last row of
 * a key wins; with rsql_sink_ctx_t.keep_first DO NOTHING: the first one); an existing table
 * needs a unique index on the key.
 *
 * Changes (rsql_sink_ctx_t.changelog, which needs the key): each row is applied by its kind,
 * in row order, in the same transactions: +I and +U as the upsert above, -D and -U as
 * DELETE ... WHERE k = ? (a key that is not there deletes nothing); a -U directly followed by
 * the +U of the same key (rsql_io_change_op) is left to that upsert. A transaction never
 * splits the rows of one record (rsql_io_chunk_end), so a record's rows commit together with
 * its position or identity. A -T row (RSQL_ROW_CLEAR: the source's table was truncated) is
 * DELETE FROM the table, in row order in the same transaction.
 *
 * Threads: one connection, used by the write thread (open, write, flush,
 * close); stored_positions is called before writing starts.
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"
#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_path.h"
#include "base/rsql_value.h"
#include "connectors/conn_gather.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/sqlite/sqlite_conf.h"
#include "connectors/sqlite/sqlite_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>


struct rsql_sink {
    sqlite3 *db;
    sqlite3_stmt *ins, *pos, *begin, *commit, *rollback;
    sqlite3_stmt *mark, *prune; /* rocketsql_applied (own-position sources) */
    sqlite3_stmt *del;          /* with a key: DELETE ... WHERE k = ? (changes) */
    sqlite3_stmt *clear;        /* with a key: DELETE FROM t (a -T row, changes) */
    int n_key;
    int *key; /* the key's column indexes */
    bool own;                   /* the source keeps its own positions: record identities */
    int64_t retention_ms, opened_ms, pruned_ms;
    char *pipeline;
    char *path;
    int n;
    int64_t batch_size;
    rsql_sink_result_t *results; /* during write_gathered: the gatherer's, for its rows */
    bool *dup; /* per row of a write: already applied (not written again) */
    bool tolerate_all;     /* errors.tolerance = all */
    rsql_error_t poisoned; /* under 'none': the permanent failure that stops the run */
    int dup_cap;
    char *what;          /* "sqlite sink <path>" (messages of the gatherer) */
    rsql_gather_t gather; /* the batches accepted and not yet committed (conn_gather.h) */
};

static const char *sql_type(rsql_type_t t)
{
    switch (t) {
    case RSQL_TYPE_BOOLEAN:
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: return "INTEGER";
    case RSQL_TYPE_DOUBLE: return "REAL";
    case RSQL_TYPE_BYTES: return "BLOB";
    default: return "TEXT";
    }
}

static void sk_close(rsql_sink_t *k)
{
    if (!k) {
        return;
    }
    sqlite3_finalize(k->ins);
    sqlite3_finalize(k->pos);
    sqlite3_finalize(k->begin);
    sqlite3_finalize(k->commit);
    sqlite3_finalize(k->rollback);
    sqlite3_finalize(k->mark);
    sqlite3_finalize(k->prune);
    sqlite3_finalize(k->del);
    sqlite3_finalize(k->clear);
    sqlite3_close(k->db);
    rsql_free(k->key);
    rsql_gather_deinit(&k->gather);
    rsql_free(k->what);
    rsql_free(k->dup);
    rsql_free(k->pipeline);
    rsql_free(k->path);
    rsql_free(k);
}

static rsql_err_t sk_db_error(rsql_sink_t *k, int rc, rsql_error_t *err, const char *what)
{
    return rsql_sqlite__error(k->db, rc, NULL, err, "sqlite sink %s: %s", k->path, what);
}

static rsql_err_t write_gathered(void *opaque, int n, const rsql_sink_row_t *rows,
                                 rsql_sink_result_t *results, rsql_error_t *err);

/* Has rocketsql_positions its resume_key column? SQLite's rc: SQLITE_ROW (yes), SQLITE_DONE
   (no), or an error. */
static int has_key_column(rsql_sink_t *k)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(k->db,
                                "SELECT 1 FROM pragma_table_info('rocketsql_positions') WHERE "
                                "name = 'resume_key'",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** rocketsql_positions made before its resume_key column was (a position's text part,
** rsql_record_t.pos_key): the column added, in a write transaction (so that two processes
** opening at once do not both add it), and only when it is missing: an open takes no write
** lock otherwise.
*/
static rsql_err_t positions_key_column(rsql_sink_t *k, rsql_error_t *err)
{
    int rc = has_key_column(k);
    if (rc == SQLITE_ROW) {
        return RSQL_OK;
    }
    if (rc == SQLITE_DONE && (rc = sqlite3_exec(k->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) ==
                                 SQLITE_OK) {
        rc = has_key_column(k);
        rc = rc == SQLITE_ROW    ? SQLITE_OK
             : rc == SQLITE_DONE ? sqlite3_exec(k->db,
                                                "ALTER TABLE rocketsql_positions ADD COLUMN "
                                                "resume_key TEXT",
                                                NULL, NULL, NULL)
                                 : rc;
        if (rc == SQLITE_OK) {
            rc = sqlite3_exec(k->db, "COMMIT", NULL, NULL, NULL);
        }
    }
    if (rc != SQLITE_OK) {
        rsql_err_t out = sk_db_error(k, rc, err, "cannot add resume_key to rocketsql_positions");
        if (!sqlite3_get_autocommit(k->db)) {
            sqlite3_exec(k->db, "ROLLBACK", NULL, NULL, NULL);
        }
        return out;
    }
    return RSQL_OK;
}

/* What column c becomes when a row of its key meets the one the table holds (merge: an
   RSQL_MERGE_*; the table's value is the bare name, the row's excluded.c): NULLs skipped. */
static void sk_merge_expr(rsql_buf_t *sql, const char *c, int merge)
{
    static const char *const fn[] = {NULL, NULL, "min", "max"};
    if (merge == RSQL_MERGE_REPLACE) {
        rsql_buf_puts(sql, "excluded.");
        rsql_buf_quote_ident(sql, c);
        return;
    }
    rsql_buf_puts(sql, "COALESCE(");
    if (merge == RSQL_MERGE_SUM) {
        rsql_buf_quote_ident(sql, c);
        rsql_buf_puts(sql, " + excluded.");
        rsql_buf_quote_ident(sql, c);
    } else {
        rsql_buf_printf(sql, "%s(", fn[merge]);
        rsql_buf_quote_ident(sql, c);
        rsql_buf_puts(sql, ", excluded.");
        rsql_buf_quote_ident(sql, c);
        rsql_buf_putc(sql, ')');
    }
    rsql_buf_puts(sql, ", ");
    rsql_buf_quote_ident(sql, c);
    rsql_buf_puts(sql, ", excluded.");
    rsql_buf_quote_ident(sql, c);
    rsql_buf_putc(sql, ')');
}

static rsql_err_t sk_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    const rsql_sqlite_conf_t *conf = ctx->conf;
    const char *path = conf ? conf->path : NULL;
    const char *table = conf ? conf->table : NULL;
    rsql_buf_t sql = RSQL_BUF_INIT;
    rsql_sink_t *k;
    char *errmsg = NULL;
    int rc;
    if (!path || !*path || !table || !*table) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "sqlite sink: options 'path' and 'table' are required");
    }
    if ((ctx->changelog || ctx->keep_first) && ctx->n_key == 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "sqlite sink %s: %s by the table's key: declare PRIMARY KEY (...) "
                              "NOT ENFORCED",
                              table,
                              ctx->changelog ? "updates and deletes are applied"
                                             : "the first row of each key is kept");
    }
    k = rsql_calloc(1, sizeof *k);
    if (!k) {
        return rsql_error_nomem(err);
    }
    k->n = ctx->n_columns;
    k->batch_size = conf->batch_size;
    k->own = ctx->source_own_positions;
    k->tolerate_all = ctx->tolerate_all;
    rsql_error_clear(&k->poisoned);
    k->retention_ms = conf->retention_ms;
    k->opened_ms = k->pruned_ms = rsql_now_ms();
    k->pipeline = rsql_strdup(ctx->pipeline ? ctx->pipeline : "");
    k->path = rsql_strdup(path);
    size_t wlen = strlen(path) + sizeof "sqlite sink ";
    if ((k->what = rsql_malloc(wlen)) != NULL) {
        snprintf(k->what, wlen, "sqlite sink %s", path);
    }
    /* no interval of its own: the runtime's flushes (every state.flush-interval while rows
       come, and when none came for a moment) bound how long a row is held */
    rsql_gather_init(&k->gather, k->batch_size, 0, k->what, write_gathered, k, ctx->deliver,
                     ctx->deliver_opaque);
    k->n_key = ctx->n_key;
    k->key = rsql_calloc((size_t)ctx->n_key + 1, sizeof *k->key);
    for (int j = 0; k->key && j < ctx->n_key; j++) {
        k->key[j] = ctx->key_columns[j];
    }
    if (!k->pipeline || !k->path || !k->key || !k->what) {
        sk_close(k);
        return rsql_error_nomem(err);
    }
    rsql_path_mkdir_parents(path); /* a failure shows in sqlite3_open_v2 below */
    /* NOMUTEX: the connection is never used by two threads at once (open and stored_positions
       on the worker before writing starts, write and flush on the write thread, close after
       it), so SQLite's per-call connection mutex is only cost: ~10 % of an append's CPU */
    rc = sqlite3_open_v2(path, &k->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        sk_db_error(k, rc, err, "cannot open");
        sk_close(k);
        return err ? err->code : RSQL_ERR_IO;
    }
    sqlite3_busy_timeout(k->db, 5000);
    /* a page cache of up to 16 MiB (SQLite's default is 2 MiB): the upserts and deletes of a
       changelog touch a page per key all over the table, and a transaction's pages that do
       not fit are written out and read back; a WAL checkpoint every 16384 pages (64 MiB;
       SQLite's default is 1000): a gathered transaction of scattered keys dirties thousands
       of pages, and checkpointing after each commit copies every one of them into the
       database again (bench/changelog measures both: 1.6x less system time). synchronous
       stays NORMAL in WAL mode: a commit survives a kill -9 (the process), and the WAL is
       synced at each checkpoint */
    rsql_buf_puts(&sql, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                        "PRAGMA cache_size=-16384; PRAGMA wal_autocheckpoint=16384; "
                        "CREATE TABLE IF NOT EXISTS rocketsql_positions(pipeline TEXT NOT NULL, "
                        "\"partition\" TEXT NOT NULL, \"offset\" INTEGER NOT NULL, "
                        "resume_key TEXT, PRIMARY KEY(pipeline, \"partition\")); ");
    if (k->own) {
        rsql_buf_puts(&sql, "CREATE TABLE IF NOT EXISTS rocketsql_applied(pipeline TEXT NOT NULL, "
                            "id TEXT NOT NULL, applied_at INTEGER NOT NULL, PRIMARY KEY(pipeline, "
                            "id)) WITHOUT ROWID; CREATE INDEX IF NOT EXISTS rocketsql_applied_at "
                            "ON rocketsql_applied(pipeline, applied_at); ");
    }
    rsql_buf_puts(&sql, "CREATE TABLE IF NOT EXISTS ");
    rsql_buf_quote_ident(&sql, table);
    rsql_buf_putc(&sql, '(');
    for (int i = 0; i < k->n; i++) {
        if (i) {
            rsql_buf_puts(&sql, ", ");
        }
        rsql_buf_quote_ident(&sql, ctx->column_names[i]);
        rsql_buf_printf(&sql, " %s", sql_type(ctx->column_types[i]));
    }
    for (int j = 0; j < ctx->n_key; j++) {
        rsql_buf_puts(&sql, j ? ", " : ", PRIMARY KEY (");
        rsql_buf_quote_ident(&sql, ctx->column_names[ctx->key_columns[j]]);
        rsql_buf_puts(&sql, j + 1 == ctx->n_key ? ")" : "");
    }
    rsql_buf_puts(&sql, ");");
    if (sql.oom) {
        goto nomem;
    }
    rc = sqlite3_exec(k->db, sql.data, NULL, NULL, &errmsg);
    if (rc != SQLITE_OK) {
        sqlite3_free(errmsg);
        sk_db_error(k, rc, err, "cannot create the table");
        goto fail;
    }
    if (positions_key_column(k, err) != RSQL_OK) {
        goto fail;
    }
    rsql_buf_reset(&sql);
    rsql_buf_puts(&sql, "INSERT INTO ");
    rsql_buf_quote_ident(&sql, table);
    rsql_buf_putc(&sql, '(');
    for (int i = 0; i < k->n; i++) {
        if (i) {
            rsql_buf_puts(&sql, ", ");
        }
        rsql_buf_quote_ident(&sql, ctx->column_names[i]);
    }
    rsql_buf_puts(&sql, ") VALUES (");
    for (int i = 0; i < k->n; i++) {
        rsql_buf_puts(&sql, i ? ", ?" : "?");
    }
    rsql_buf_putc(&sql, ')');
    /* PRIMARY KEY (...) NOT ENFORCED: an upsert, the last row of a key wins (the first with
       keep_first: DO NOTHING) */
    bool first = ctx->keep_first && !ctx->changelog;
    for (int j = 0; j < ctx->n_key; j++) {
        rsql_buf_puts(&sql, j ? ", " : " ON CONFLICT (");
        rsql_buf_quote_ident(&sql, ctx->column_names[ctx->key_columns[j]]);
    }
    if (ctx->n_key) {
        int n_set = 0;
        rsql_buf_puts(&sql, ") DO ");
        for (int i = 0; i < k->n; i++) {
            bool in_key = false;
            for (int j = 0; j < ctx->n_key; j++) {
                in_key = in_key || ctx->key_columns[j] == i;
            }
            if (in_key || first) {
                continue;
            }
            rsql_buf_puts(&sql, n_set++ ? ", " : "UPDATE SET ");
            rsql_buf_quote_ident(&sql, ctx->column_names[i]);
            rsql_buf_puts(&sql, " = ");
            sk_merge_expr(&sql, ctx->column_names[i], ctx->merge ? ctx->merge[i] : 0);
        }
        if (!n_set) {
            rsql_buf_puts(&sql, "NOTHING");
        }
    }
    if (sql.oom) {
        goto nomem;
    }
    if ((rc = sqlite3_prepare_v2(k->db, sql.data, -1, &k->ins, NULL)) != SQLITE_OK) {
        sk_db_error(k, rc, err, "cannot prepare the insert");
        goto fail;
    }
    if (ctx->n_key) { /* a change that removes its key's row */
        rsql_buf_reset(&sql);
        rsql_buf_puts(&sql, "DELETE FROM ");
        rsql_buf_quote_ident(&sql, table);
        for (int j = 0; j < ctx->n_key; j++) {
            rsql_buf_puts(&sql, j ? " AND " : " WHERE ");
            rsql_buf_quote_ident(&sql, ctx->column_names[ctx->key_columns[j]]);
            rsql_buf_printf(&sql, " = ?%d", j + 1);
        }
        if (sql.oom) {
            goto nomem;
        }
        if ((rc = sqlite3_prepare_v2(k->db, sql.data, -1, &k->del, NULL)) != SQLITE_OK) {
            sk_db_error(k, rc, err, "cannot prepare the delete");
            goto fail;
        }
        rsql_buf_reset(&sql); /* a TRUNCATE of the source's table (RSQL_ROW_CLEAR) */
        rsql_buf_puts(&sql, "DELETE FROM ");
        rsql_buf_quote_ident(&sql, table);
        if (sql.oom) {
            goto nomem;
        }
        if ((rc = sqlite3_prepare_v2(k->db, sql.data, -1, &k->clear, NULL)) != SQLITE_OK) {
            sk_db_error(k, rc, err, "cannot prepare the delete");
            goto fail;
        }
    }
    if (
        (rc = sqlite3_prepare_v2(k->db,
                                 "INSERT INTO rocketsql_positions(pipeline, \"partition\", "
                                 "\"offset\", resume_key) VALUES (?1, ?2, ?3, ?4) ON "
                                 "CONFLICT(pipeline, \"partition\") DO UPDATE SET \"offset\" = "
                                 "excluded.\"offset\", resume_key = excluded.resume_key",
                                 -1, &k->pos, NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v2(k->db, "BEGIN IMMEDIATE", -1, &k->begin, NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v2(k->db, "COMMIT", -1, &k->commit, NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v2(k->db, "ROLLBACK", -1, &k->rollback, NULL)) != SQLITE_OK ||
        (k->own && (rc = sqlite3_prepare_v2(k->db,
                                            "INSERT OR IGNORE INTO rocketsql_applied(pipeline, "
                                            "id, applied_at) VALUES (?1, ?2, ?3)",
                                            -1, &k->mark, NULL)) != SQLITE_OK) ||
        (k->own && (rc = sqlite3_prepare_v2(k->db,
                                            "DELETE FROM rocketsql_applied WHERE pipeline = ?1 "
                                            "AND applied_at < ?2",
                                            -1, &k->prune, NULL)) != SQLITE_OK)) {
        sk_db_error(k, rc, err, "cannot prepare the insert");
        goto fail;
    }
    rsql_buf_deinit(&sql);
    *out = k;
    return RSQL_OK;
nomem:
    rsql_error_nomem(err);
fail:
    rsql_buf_deinit(&sql);
    sk_close(k);
    return err ? err->code : RSQL_ERR_IO;
}

static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? SQLITE_DONE : rc;
}

/*
** A failed step of chunk work: set err from rc with SQLite's message NOW (a ROLLBACK
** after it would replace the message with "not an error"). Returns rc.
*/
static int chunk_error(rsql_sink_t *k, int rc, const rsql_sink_row_t *row, const char *what,
                       rsql_error_t *err)
{
    const char *ident = row && row->rec && row->rec->ident ? row->rec->ident : NULL;
    rsql_sqlite__error(k->db, rc, NULL, err, "sqlite sink %s: %s%s%s", k->path, what,
                       ident ? " the row of " : "", ident ? ident : "");
    return rc;
}

static int bind_row(rsql_sink_t *k, const rsql_value_t *vals)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < k->n && rc == SQLITE_OK; i++) {
        rc = rsql_sqlite__bind_value(k->ins, i + 1, &vals[i]);
    }
    return rc;
}

/* The key of vals to k->del's parameters. */
static int bind_key(rsql_sink_t *k, const rsql_value_t *vals)
{
    int rc = SQLITE_OK;
    for (int j = 0; j < k->n_key && rc == SQLITE_OK; j++) {
        rc = rsql_sqlite__bind_value(k->del, j + 1, &vals[k->key[j]]);
    }
    return rc;
}

/* Store the last offset of each partition among rows[from, to). */
/* One group of positions (rsql_io_positions_each) upserted in turn; SQLite's rc in pos->rc. */
typedef struct pos_ctx {
    rsql_sink_t *k;
    int rc;
} pos_ctx_t;

static rsql_err_t store_group(void *opaque, const char *const *names, const int64_t *offs,
                              const char *const *keys, int m)
{
    pos_ctx_t *c = opaque;
    for (int q = 0; q < m && c->rc == SQLITE_DONE; q++) {
        sqlite3_bind_text(c->k->pos, 1, c->k->pipeline, -1, SQLITE_STATIC);
        sqlite3_bind_text(c->k->pos, 2, names[q], -1, SQLITE_STATIC);
        sqlite3_bind_int64(c->k->pos, 3, offs[q]);
        if (keys[q]) {
            sqlite3_bind_text(c->k->pos, 4, keys[q], -1, SQLITE_STATIC);
        } else {
            sqlite3_bind_null(c->k->pos, 4);
        }
        c->rc = step_reset(c->k->pos);
    }
    return c->rc == SQLITE_DONE ? RSQL_OK : RSQL_ERR_IO;
}

static int store_positions(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to)
{
    pos_ctx_t c = {k, SQLITE_DONE};
    rsql_io_positions_each(rows, from, to, store_group, &c);
    sqlite3_clear_bindings(k->pos);
    return c.rc;
}

/*
** One transaction: rows[from, to) and their positions. On failure err (clear on entry) says
** why, with SQLite's own message, and the transaction is rolled back.
*/
static int write_chunk(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                       bool *dup, rsql_error_t *err)
{
    int64_t now = rsql_wall_ms();
    int rc = step_reset(k->begin);
    if (rc != SQLITE_DONE) {
        return chunk_error(k, rc, NULL, "cannot begin a transaction", err);
    }
    for (int i = from; i < to && rc == SQLITE_DONE; i++) {
        dup[i] = false;
        if (k->own && i > from && rows[i].rec && rows[i].rec == rows[i - 1].rec) {
            dup[i] = dup[i - 1]; /* another row of the same record: its identity is marked */
            if (dup[i]) {
                continue;
            }
        } else if (k->own && rows[i].rec && rows[i].rec->ident) {
            sqlite3_bind_text(k->mark, 1, k->pipeline, -1, SQLITE_STATIC);
            sqlite3_bind_text(k->mark, 2, rows[i].rec->ident, -1, SQLITE_STATIC);
            sqlite3_bind_int64(k->mark, 3, now);
            rc = step_reset(k->mark);
            if (rc != SQLITE_DONE) {
                chunk_error(k, rc, &rows[i], "cannot record the applied message of", err);
                break;
            }
            if (sqlite3_changes(k->db) == 0) {
                dup[i] = true; /* applied by an earlier delivery of this message */
                continue;
            }
        }
        int op = k->n_key ? rsql_io_change_op(rows, i, to, k->n_key, k->key) : RSQL_IO_UPSERT;
        if (op == RSQL_IO_SKIP) {
            continue;
        }
        if (op == RSQL_IO_CLEAR) {
            rc = step_reset(k->clear);
            if (rc != SQLITE_DONE) {
                chunk_error(k, rc, &rows[i], "cannot delete every row for", err);
            }
            continue;
        }
        if (op == RSQL_IO_DELETE) {
            rc = bind_key(k, rows[i].values);
            if (rc == SQLITE_OK) {
                rc = step_reset(k->del);
            }
            if (rc != SQLITE_DONE) {
                chunk_error(k, rc, &rows[i], "cannot delete", err);
            }
            continue;
        }
        rc = bind_row(k, rows[i].values);
        if (rc == SQLITE_OK) {
            rc = step_reset(k->ins);
        }
        if (rc != SQLITE_DONE) {
            chunk_error(k, rc, &rows[i], "cannot insert", err);
        }
    }
    sqlite3_clear_bindings(k->ins);
    if (k->del) {
        sqlite3_clear_bindings(k->del);
    }
    if (k->mark) {
        sqlite3_clear_bindings(k->mark);
    }
    if (rc == SQLITE_DONE && !k->own && (rc = store_positions(k, rows, from, to)) != SQLITE_DONE) {
        chunk_error(k, rc, NULL, "cannot store the source positions", err);
    }
    if (rc == SQLITE_DONE && (rc = step_reset(k->commit)) != SQLITE_DONE) {
        chunk_error(k, rc, NULL, "cannot commit", err);
    }
    if (rc != SQLITE_DONE) {
        if (!sqlite3_get_autocommit(k->db)) {
            step_reset(k->rollback);
        }
    }
    return rc;
}

/* Delete the applied identities older than the retention (see the file comment). */
static void prune_applied(rsql_sink_t *k)
{
    int64_t now = rsql_now_ms();
    if (!k->prune || now - k->opened_ms < k->retention_ms || now - k->pruned_ms < 60000) {
        return;
    }
    k->pruned_ms = now;
    sqlite3_bind_text(k->prune, 1, k->pipeline, -1, SQLITE_STATIC);
    sqlite3_bind_int64(k->prune, 2, rsql_wall_ms() - k->retention_ms);
    step_reset(k->prune); /* a failure leaves the entries for the next time */
    sqlite3_clear_bindings(k->prune);
}

/*
** The gatherer's write function (conn_gather.h): rows[0, n), the held batches' rows, in
** transactions of at most sink.batch-size rows; results[0, n) set. An error return: nothing
** was committed.
*/
static rsql_err_t write_gathered(void *opaque, int n, const rsql_sink_row_t *rows,
                                 rsql_sink_result_t *results, rsql_error_t *err)
{
    rsql_sink_t *k = opaque;
    int committed = 0, rc = SQLITE_DONE;
    rsql_error_t cause;
    rsql_error_clear(&cause);
    k->results = results;
    if (n > k->dup_cap) {
        bool *d = rsql_realloc(k->dup, (size_t)n * sizeof *d);
        if (!d) {
            return rsql_error_nomem(err);
        }
        k->dup = d;
        k->dup_cap = n;
    }
    memset(k->results, 0, (size_t)n * sizeof *k->results);
    while (committed < n) {
        int to = rsql_io_chunk_end(rows, committed, k->batch_size, n);
        rc = write_chunk(k, rows, committed, to, k->dup, &cause);
        if (rc == SQLITE_DONE) {
            committed = to;
            continue;
        }
        if (!k->tolerate_all || rsql_error_retriable(&cause)) {
            break;
        }
        /* Under 'all' a permanent failure (a constraint) is narrowed down to its records: the
           chunk again, one record (its rows) per transaction, so only the records that fail
           themselves are dead-lettered and the others are written, in their order. */
        for (int i = committed, e; i < to; i = e) {
            rsql_error_t one;
            rsql_error_clear(&one);
            e = rsql_io_chunk_end(rows, i, 1, to);
            rc = write_chunk(k, rows, i, e, k->dup, &one);
            if (rc == SQLITE_DONE) {
                continue;
            }
            if (rsql_error_retriable(&one)) { /* this row and the rest: the runtime retries */
                rsql_error_copy(&cause, &one);
                committed = i;
                break;
            }
            for (int j = i; j < e; j++) {
                k->results[j].code = one.code;
                snprintf(k->results[j].msg, sizeof k->results[j].msg, "%.255s", one.msg);
            }
            rc = SQLITE_DONE;
        }
        if (rc != SQLITE_DONE) {
            break;
        }
        committed = to;
    }
    if (rc != SQLITE_DONE && !k->tolerate_all && !rsql_error_retriable(&cause)) {
        rsql_error_copy(&k->poisoned, &cause);
    }
    if (rc != SQLITE_DONE && committed == 0) {
        rsql_error_copy(err, &cause);
        return cause.code;
    }
    int n_dup = 0;
    for (int i = 0; i < committed; i++) {
        if (k->dup[i]) {
            snprintf(k->results[i].meta, sizeof k->results[i].meta, "already applied");
            n_dup++;
        }
    }
    if (n_dup) {
        rsql_log(RSQL_LOG_INFO, "sqlite",
                 "sqlite sink %s: %d redelivered messages were applied before: acked, not "
                 "written again",
                 k->path, n_dup);
    }
    prune_applied(k);
    for (int i = committed; i < n; i++) {
        k->results[i].code = cause.code;
        snprintf(k->results[i].msg, sizeof k->results[i].msg, "%.255s", cause.msg);
    }
    return RSQL_OK;
}

static rsql_err_t sk_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                           rsql_error_t *err)
{
    if (k->poisoned.code != RSQL_OK) { /* under 'none', nothing is committed past a failure */
        rsql_error_copy(err, &k->poisoned);
        return k->poisoned.code;
    }
    return rsql_gather_write(&k->gather, batch_id, n, rows, err);
}

static rsql_err_t sk_flush(rsql_sink_t *k, int timeout_ms, rsql_error_t *err)
{
    (void)timeout_ms;
    return rsql_gather_flush(&k->gather, err);
}

/* sink.batch-size: the runtime lets that many rows gather before it flushes. */
static int sk_gather_rows(const void *conf)
{
    const rsql_sqlite_conf_t *c = conf;
    return c ? rsql_gather_rows(c->batch_size) : 0;
}

/*
** Positions stored for this pipeline, each through add (rsql_io.h). All of them or an error
** (SQLite's; a busy or locked database is transient): a step that fails ends the read with
** that error, never with the rows read before it.
*/
static rsql_err_t sk_stored_positions(rsql_sink_t *k, rsql_position_cb add, void *opaque,
                                      rsql_error_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(k->db,
                                "SELECT \"partition\", \"offset\", resume_key FROM "
                                "rocketsql_positions WHERE pipeline = ?1 ORDER BY \"partition\"",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) {
        return sk_db_error(k, rc, err, "cannot read rocketsql_positions");
    }
    sqlite3_bind_text(st, 1, k->pipeline, -1, SQLITE_STATIC);
    rsql_err_t out = RSQL_OK;
    while (out == RSQL_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *key = (const char *)sqlite3_column_text(st, 2);
        if (!name || (!key && sqlite3_column_type(st, 2) != SQLITE_NULL) ||
            add(opaque, name, sqlite3_column_int64(st, 1), key) != RSQL_OK) {
            out = rsql_error_nomem(err);
        }
    }
    if (out == RSQL_OK && rc != SQLITE_DONE) {
        out = sk_db_error(k, rc, err, "cannot read rocketsql_positions");
    }
    sqlite3_finalize(st);
    return out;
}

/* Rows waiting for their source transaction's end, and the run's end (rsql_io.h). */
static int64_t sk_waiting(rsql_sink_t *k)
{
    return rsql_gather_waiting(&k->gather);
}

static int64_t sk_release(rsql_sink_t *k)
{
    return rsql_gather_release(&k->gather);
}

/*
** The sqlite sink vtable (rsql_io.h). Static.
*/
const rsql_sink_ops_t rsql_sqlite_sink_ops = {
    .open = sk_open,
    .write = sk_write,
    .flush = sk_flush,
    .stored_positions = sk_stored_positions,
    .close = sk_close,
    .gather_rows = sk_gather_rows,
    .waiting = sk_waiting,
    .release = sk_release,
};
