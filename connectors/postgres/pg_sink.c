/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The postgres sink, exactly-once: rows are copied (COPY ... FROM STDIN, text format) into
 * `table-name` in transactions of at most sink.buffer-flush.max-rows rows, and in the SAME
 * transaction the position of each source partition served is stored in
 *   rocketsql_positions(pipeline text, partition text, "offset" bigint,
 *                       resume_key text, PRIMARY KEY(pipeline, partition))
 * of the table's schema (`public` unless table-name names one), so after a crash (even kill -9) the data and the positions agree;
 * the runtime resumes the source from stored_positions (rsql_io.h), and no row is lost or
 * written twice. Rows go through COPY, not multi-row INSERT statements, which are several
 * times slower.
 *
 * The table is created when missing (BOOLEAN boolean, INT integer, BIGINT bigint, DOUBLE
 * double precision, VARCHAR text, BYTES bytea, TIMESTAMP(3) timestamptz, DECIMAL numeric
 * (its exact text), DATE date, ROW/ARRAY/MAP jsonb: rsql_value_format's JSON text; jsonb,
 * not PostgreSQL arrays, so an ARRAY of ROWs or MAPs is written like any other);
 * an existing table must have every column of the rocketsql table, by name, of a type that
 * holds it (checked at open: a mismatch is an error naming the column).
 *
 * Errors (pg_conn.c): a lost connection, a serialization failure or a deadlock is transient:
 * the sink reconnects and writes the chunk again, up to sink.max-retries times, then reports
 * the rows with that transient code (the runtime retries them per errors.retry.*). A COMMIT
 * whose answer was lost is resolved by reading the stored positions back after reconnecting:
 * when they hold the chunk's, it was committed. A permanent error (a constraint violation, a
 * value the column cannot take) fails the row that caused it, found by writing the chunk
 * again row by row under savepoints: the rows before it are committed (with their
 * positions), that row gets PostgreSQL's message and SQLSTATE. Under errors.tolerance 'all'
 * it is dead-lettered and the sink goes on with the rows after it, in order, in the next
 * transaction (handing them back to the runtime would write them after later batches, and
 * store a position behind the one already stored); under 'none' the run fails there.
 *
 * From a source that keeps its own positions (RocketMQ: rsql_sink_ctx_t.source_own_positions)
 * the same transaction records each applied record's identity (rec->ident: topic, lite
 * topic, message id) in rocketsql_applied(pipeline text, id text, applied_at timestamptz,
 * PRIMARY KEY(pipeline, id)) of the table's schema: one INSERT ... SELECT unnest($2::text[])
 * ON CONFLICT DO NOTHING RETURNING id per chunk says which rows are new; the others were
 * applied by an earlier delivery of their message, are not copied again and are reported
 * written (meta "already applied"), so the runtime acks the redelivery. A COMMIT whose answer
 * was lost is simply written again: its rows are then found applied. Message ids, not
 * per-queue watermarks: see sqlite_sink.c. Entries older than sink.exactly-once.retention (by
 * the server's clock) are deleted, at most once a minute, once the sink has been open that
 * long.
 *
 * Upsert: when the rocketsql table declares PRIMARY KEY (k, ...) NOT ENFORCED
 * (rsql_sink_ctx_t.n_key), a created table gets that primary key, and each chunk is copied
 * into a temporary table (rsql_stage, ON COMMIT DELETE ROWS, with a row number) and then
 *   INSERT INTO t SELECT DISTINCT ON (k) ... FROM rsql_stage ORDER BY k, row number DESC
 *   ON CONFLICT (k) DO UPDATE SET c = excluded.c, ...
 * in the same transaction: the last row of a key wins, within a chunk and across chunks.
 * With rsql_sink_ctx_t.keep_first the first one does: ORDER BY k, row number ASC and ON
 * CONFLICT (k) DO NOTHING (a deduplication that the sink table does). An existing table
 * needs a unique index on the key (PostgreSQL refuses ON CONFLICT otherwise: a permanent
 * error at the first write).
 *
 * Changes (rsql_sink_ctx_t.changelog, which needs the key): each row is applied by its kind,
 * in row order: a -T (RSQL_ROW_CLEAR: the source's table was truncated) is DELETE FROM the
 * table in a transaction of its own with its position (between the rows before and after
 * it); +I and +U upsert, -D and -U delete the key (rsql_io_change_op: a -U directly
 * followed by the +U of the same key is left to that upsert). A chunk keeps the COPY into
 * rsql_stage, with a column rsql_del for the rows that delete, and applies it with two
 * statements in its transaction (a chunk without a delete is merged as an append is):
 *   DELETE FROM t WHERE (k) IN (SELECT k FROM rsql_stage WHERE rsql_del)   (when it has any)
 *   INSERT INTO t SELECT ... FROM (the last row of each key) WHERE NOT rsql_del ON CONFLICT ...
 * which leaves each key as its changes in order would: no row when its last change deletes,
 * its last upsert's row otherwise (on a row its earlier change in the chunk deleted, when there
 * was one). A chunk never splits the rows of one record (rsql_io_chunk_end).
 *
 * Gathering (connectors/conn_gather.h, shared with the sqlite sink): write accepts each
 * pipeline batch and holds it; the held batches are written together, as one transaction of
 * up to sink.buffer-flush.max-rows rows with the positions or message ids of all of them, once
 * they hold max-rows rows, once the first of them is sink.buffer-flush.interval old (checked
 * at each write), or at flush (the runtime flushes when max-rows rows are unreported, as
 * gather_rows tells it, every state.flush-interval, and when idle). A transaction with
 * positions is one round trip (pg_copy.c: BEGIN, the positions, COPY and COMMIT in one query
 * string, then the data): each COMMIT waits for the WAL flush, so max-rows (default 8192) sets
 * the speed. Each batch's results are reported only after its transaction committed; a
 * transient failure keeps the held batches, in order (conn_gather.h says how they are tried
 * again). Writing: pg_copy.c; the exactly-once record: pg_applied.c.
 *
 * Fencing: every connection of a sink that stores positions takes the pipeline's writer lock
 * before anything reads the positions (writer_lock in pg_conn.c; docs/EXACTLY-ONCE.md).
 *
 * Threads: one connection, used by the write thread (open, write, flush, close);
 * stored_positions is called before writing starts.
 */
#include "config.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"
#include "connectors/postgres/pg_sink_int.h"
#include "connectors/rsql_conn_io.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *pg_type(rsql_type_t t)
{
    switch (t) {
    case RSQL_TYPE_BOOLEAN: return "boolean";
    case RSQL_TYPE_INT: return "integer";
    case RSQL_TYPE_BIGINT: return "bigint";
    case RSQL_TYPE_DOUBLE: return "double precision";
    case RSQL_TYPE_BYTES: return "bytea";
    case RSQL_TYPE_TIMESTAMP: return "timestamp with time zone";
    case RSQL_TYPE_DECIMAL: return "numeric"; /* exact; the sink has no (p, s): any scale */
    case RSQL_TYPE_DATE: return "date";
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: return "jsonb"; /* rsql_value_format's JSON text */
    default: return "text";
    }
}

static void sk_close(rsql_sink_t *k)
{
    if (!k) {
        return;
    }
    if (k->conn) {
        PQfinish(k->conn);
    }
    rsql_buf_deinit(&k->line);
    rsql_free(k->pipeline);
    rsql_free(k->table);
    rsql_free(k->copy_sql);
    rsql_free(k->insert_sql);
    rsql_free(k->stage_sql);
    rsql_free(k->merge_sql);
    rsql_free(k->stage_delete_sql);
    rsql_free(k->copy_del_sql);
    rsql_free(k->merge_del_sql);
    rsql_free(k->delete_sql);
    rsql_free(k->clear_sql);
    rsql_free(k->key);
    rsql_free(k->table_create);
    rsql_free(k->pos_create);
    rsql_free(k->pos_has_key);
    rsql_free(k->pos_add_key);
    rsql_free(k->pos_name);
    rsql_free(k->pos_upsert);
    rsql_free(k->pos_get);
    rsql_free(k->pos_list);
    rsql_free(k->pos_head);
    rsql_free(k->pos_tail);
    rsql_free(k->app_create);
    rsql_free(k->app_mark);
    rsql_free(k->app_prune);
    rsql_free(k->dup);
    rsql_gather_deinit(&k->gather);
    rsql_free(k->what);
    rsql_free((char *)k->own.url);
    rsql_free((char *)k->own.username);
    rsql_free((char *)k->own.password);
    rsql_free(k);
}

/* CREATE TABLE IF NOT EXISTS for the rocketsql table's columns (and key), on the heap. */
static char *table_create_sql(rsql_sink_t *k, const rsql_sink_ctx_t *ctx)
{
    rsql_buf_t q = RSQL_BUF_INIT;
    rsql_buf_puts(&q, "CREATE TABLE IF NOT EXISTS ");
    rsql_pg__quote_table(&q, k->table);
    rsql_buf_putc(&q, '(');
    for (int i = 0; i < k->n; i++) {
        rsql_buf_puts(&q, i ? ", " : "");
        rsql_buf_quote_identn(&q, ctx->column_names[i], strlen(ctx->column_names[i]));
        rsql_buf_printf(&q, " %s", pg_type(ctx->column_types[i]));
    }
    for (int j = 0; j < k->n_key; j++) {
        const char *c = ctx->column_names[k->key[j]];
        rsql_buf_puts(&q, j ? ", " : ", PRIMARY KEY (");
        rsql_buf_quote_identn(&q, c, strlen(c));
        rsql_buf_puts(&q, j + 1 == k->n_key ? ")" : "");
    }
    rsql_buf_putc(&q, ')');
    char *sql = q.oom ? NULL : rsql_strdup(rsql_buf_str(&q));
    rsql_buf_deinit(&q);
    return sql;
}

/* Check the table's columns against the rocketsql table's (it exists: create_missing). */
static rsql_err_t check_table(rsql_sink_t *k, const rsql_sink_ctx_t *ctx, rsql_error_t *err)
{
    rsql_buf_t qt = RSQL_BUF_INIT;
    rsql_err_t rc = RSQL_OK;
    rsql_pg__quote_table(&qt, k->table);
    if (qt.oom) {
        rc = rsql_error_nomem(err);
        goto out;
    }
    const char *param = rsql_buf_str(&qt);
    PGresult *r = PQexecParams(k->conn,
                               "SELECT a.attname, format_type(a.atttypid, a.atttypmod) "
                               "FROM pg_attribute a WHERE a.attrelid = $1::regclass "
                               "AND a.attnum > 0 AND NOT a.attisdropped",
                               1, NULL, &param, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot read the table's columns",
                            k->table);
        PQclear(r);
        goto out;
    }
    for (int i = 0; i < k->n && rc == RSQL_OK; i++) {
        int row = -1;
        for (int j = 0; j < PQntuples(r); j++) {
            if (strcmp(PQgetvalue(r, j, 0), ctx->column_names[i]) == 0) {
                row = j;
                break;
            }
        }
        if (row < 0) {
            rc = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                                "postgres sink %s: the table has no column '%s'", k->table,
                                ctx->column_names[i]);
        } else if (!rsql_pg__type_fits(ctx->column_types[i], PQgetvalue(r, row, 1), false)) {
            rc = rsql_error_set(err, RSQL_ERR_TYPE, RSQL_NOPOS,
                                "postgres sink %s: column '%s' is %s in PostgreSQL, which "
                                "cannot hold %s",
                                k->table, ctx->column_names[i], PQgetvalue(r, row, 1),
                                rsql_type_name(ctx->column_types[i]));
        }
    }
    PQclear(r);
out:
    rsql_buf_deinit(&qt);
    return rc;
}

/* What column c becomes when a row of its key meets the one the table holds (merge: an
   RSQL_MERGE_*; the table's row is rsql_t, the row's excluded): NULLs skipped. */
static void merge_expr(rsql_buf_t *b, const char *c, int merge)
{
    size_t n = strlen(c);
    if (merge == RSQL_MERGE_REPLACE) {
        rsql_buf_puts(b, "excluded.");
        rsql_buf_quote_identn(b, c, n);
        return;
    }
    if (merge == RSQL_MERGE_SUM) {
        rsql_buf_puts(b, "COALESCE(rsql_t.");
        rsql_buf_quote_identn(b, c, n);
        rsql_buf_puts(b, " + excluded.");
        rsql_buf_quote_identn(b, c, n);
        rsql_buf_puts(b, ", rsql_t.");
        rsql_buf_quote_identn(b, c, n);
        rsql_buf_puts(b, ", excluded.");
        rsql_buf_quote_identn(b, c, n);
        rsql_buf_putc(b, ')');
        return;
    }
    rsql_buf_puts(b, merge == RSQL_MERGE_MIN ? "LEAST(rsql_t." : "GREATEST(rsql_t.");
    rsql_buf_quote_identn(b, c, n);
    rsql_buf_puts(b, ", excluded.");
    rsql_buf_quote_identn(b, c, n);
    rsql_buf_putc(b, ')');
}

static rsql_err_t sk_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    const rsql_pg_conf_t *conf = ctx->conf;
    rsql_buf_t b = RSQL_BUF_INIT;
    if (!conf || !conf->url || !conf->table_name) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "postgres sink: options 'url' and 'table-name' are required");
    }
    if ((ctx->changelog || ctx->keep_first) && ctx->n_key == 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "postgres sink %s: %s by the table's key: declare PRIMARY KEY "
                              "(...) NOT ENFORCED",
                              conf->table_name,
                              ctx->changelog ? "updates and deletes are applied"
                                             : "the first row of each key is kept");
    }
    rsql_sink_t *k = rsql_calloc(1, sizeof *k);
    if (!k) {
        return rsql_error_nomem(err);
    }
    k->own = *conf;
    k->own.url = rsql_strdup(conf->url);
    k->own.username = conf->username ? rsql_strdup(conf->username) : NULL;
    k->own.password = conf->password ? rsql_strdup(conf->password) : NULL;
    k->conf = &k->own;
    k->n = ctx->n_columns;
    k->types = ctx->column_types;
    k->by_ident = ctx->source_own_positions;
    k->tolerate_all = ctx->tolerate_all;
    rsql_error_clear(&k->poisoned);
    k->n_key = ctx->n_key;
    k->changelog = ctx->changelog;
    k->key = rsql_calloc((size_t)k->n_key + 1, sizeof *k->key);
    if (!k->key) {
        sk_close(k);
        return rsql_error_nomem(err);
    }
    for (int j = 0; j < k->n_key; j++) {
        k->key[j] = ctx->key_columns[j];
    }
    k->opened_ms = k->pruned_ms = rsql_now_ms();
    rsql_buf_init(&k->line);
    k->pipeline = rsql_strdup(ctx->pipeline ? ctx->pipeline : "");
    k->table = rsql_strdup(conf->table_name);
    size_t wlen = strlen(conf->table_name) + sizeof "postgres sink ";
    if ((k->what = rsql_malloc(wlen)) != NULL) {
        snprintf(k->what, wlen, "postgres sink %s", conf->table_name);
    }
    rsql_gather_init(&k->gather, conf->max_rows, conf->interval_ms, k->what,
                     rsql_pg__write_rows, k, ctx->deliver, ctx->deliver_opaque);
    rsql_buf_t cols = RSQL_BUF_INIT, keys = RSQL_BUF_INIT, sets = RSQL_BUF_INIT;
    rsql_buf_t picks = RSQL_BUF_INIT;
    /* the table's row in ON CONFLICT's SET, when a row merges into it */
    const char *as = ctx->merge ? " AS rsql_t" : "";
    for (int i = 0; i < k->n; i++) {
        const char *c = ctx->column_names[i];
        bool in_key = false;
        for (int j = 0; j < k->n_key; j++) {
            in_key = in_key || k->key[j] == i;
        }
        rsql_buf_puts(&cols, i ? ", " : "");
        rsql_buf_quote_identn(&cols, c, strlen(c));
        if (!in_key) {
            rsql_buf_puts(&sets, sets.len ? ", " : "");
            rsql_buf_quote_identn(&sets, c, strlen(c));
            rsql_buf_puts(&sets, " = ");
            merge_expr(&sets, c, ctx->merge ? ctx->merge[i] : RSQL_MERGE_REPLACE);
        }
        /* a merge (rsql_sink_ctx_t.merge): the rows of a key in one write added up first */
        rsql_buf_puts(&picks, i ? ", " : "");
        if (in_key || !ctx->merge) {
            rsql_buf_quote_identn(&picks, c, strlen(c));
        } else {
            static const char *const agg[] = {"(array_agg(", "SUM(", "MIN(", "MAX("};
            rsql_buf_puts(&picks, agg[ctx->merge[i]]);
            rsql_buf_quote_identn(&picks, c, strlen(c));
            rsql_buf_puts(&picks, ctx->merge[i] == RSQL_MERGE_REPLACE ? "))[1]" : ")");
        }
    }
    for (int j = 0; j < k->n_key; j++) {
        const char *c = ctx->column_names[k->key[j]];
        rsql_buf_puts(&keys, j ? ", " : "");
        rsql_buf_quote_identn(&keys, c, strlen(c));
    }
    /* ON CONFLICT (keys) DO UPDATE SET ... (DO NOTHING when every column is in the key, or
       when the first row of a key wins: rsql_sink_ctx_t.keep_first) */
    rsql_buf_t conflict = RSQL_BUF_INIT;
    bool first = ctx->keep_first && !ctx->changelog;
    if (k->n_key) {
        rsql_buf_printf(&conflict, " ON CONFLICT (%s) DO %s%s", rsql_buf_str(&keys),
                        sets.len && !first ? "UPDATE SET " : "NOTHING",
                        first ? "" : rsql_buf_str(&sets));
        rsql_buf_printf(&b, "CREATE TEMP TABLE IF NOT EXISTS rsql_stage ON COMMIT DELETE ROWS AS "
                            "SELECT %s, 0::bigint AS rsql_seq%s FROM ",
                        rsql_buf_str(&cols), k->changelog ? ", false AS rsql_del" : "");
        rsql_pg__quote_table(&b, conf->table_name);
        rsql_buf_puts(&b, " WITH NO DATA");
        k->stage_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b);
        rsql_buf_puts(&b, "INSERT INTO ");
        rsql_pg__quote_table(&b, conf->table_name);
        if (ctx->merge) { /* in the keys' order, so that writers of the same keys never
                             wait for each other in a cycle */
            rsql_buf_printf(&b, "%s(%s) SELECT %s FROM rsql_stage GROUP BY %s ORDER BY %s%s", as,
                            rsql_buf_str(&cols), rsql_buf_str(&picks), rsql_buf_str(&keys),
                            rsql_buf_str(&keys), rsql_buf_str(&conflict));
        } else {
            rsql_buf_printf(&b, "(%s) SELECT DISTINCT ON (%s) %s FROM rsql_stage ORDER BY %s, "
                                "rsql_seq %s%s",
                            rsql_buf_str(&cols), rsql_buf_str(&keys), rsql_buf_str(&cols),
                            rsql_buf_str(&keys), first ? "ASC" : "DESC",
                            rsql_buf_str(&conflict));
        }
        k->merge_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b); /* a chunk with deletes: the last change of each key, if an upsert */
        rsql_buf_puts(&b, "INSERT INTO ");
        rsql_pg__quote_table(&b, conf->table_name);
        rsql_buf_printf(&b, "(%s) SELECT %s FROM (SELECT DISTINCT ON (%s) %s, rsql_del FROM "
                            "rsql_stage ORDER BY %s, rsql_seq DESC) rsql_last WHERE NOT "
                            "rsql_del%s",
                        rsql_buf_str(&cols), rsql_buf_str(&cols), rsql_buf_str(&keys),
                        rsql_buf_str(&cols), rsql_buf_str(&keys), rsql_buf_str(&conflict));
        k->merge_del_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b);
        rsql_buf_puts(&b, "DELETE FROM ");
        rsql_pg__quote_table(&b, conf->table_name);
        rsql_buf_printf(&b, " WHERE (%s) IN (SELECT %s FROM rsql_stage WHERE rsql_del)",
                        rsql_buf_str(&keys), rsql_buf_str(&keys));
        k->stage_delete_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b);
        rsql_buf_puts(&b, "DELETE FROM ");
        rsql_pg__quote_table(&b, conf->table_name);
        for (int j = 0; j < k->n_key; j++) {
            const char *c = ctx->column_names[k->key[j]];
            rsql_buf_puts(&b, j ? " AND " : " WHERE ");
            rsql_buf_quote_identn(&b, c, strlen(c));
            rsql_buf_printf(&b, " = $%d", j + 1);
        }
        k->delete_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b);
        rsql_buf_puts(&b, "DELETE FROM ");
        rsql_pg__quote_table(&b, conf->table_name);
        k->clear_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b);
        rsql_buf_printf(&b, "COPY rsql_stage(%s, rsql_seq, rsql_del) FROM STDIN",
                        rsql_buf_str(&cols));
        k->copy_del_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_reset(&b);
        rsql_buf_printf(&b, "COPY rsql_stage(%s, rsql_seq) FROM STDIN", rsql_buf_str(&cols));
    } else {
        rsql_buf_puts(&b, "COPY ");
        rsql_pg__quote_table(&b, conf->table_name);
        rsql_buf_printf(&b, "(%s) FROM STDIN", rsql_buf_str(&cols));
    }
    k->copy_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_reset(&b);
    rsql_buf_puts(&b, "INSERT INTO ");
    rsql_pg__quote_table(&b, conf->table_name);
    rsql_buf_printf(&b, "%s(", as);
    for (int i = 0; i < k->n; i++) {
        rsql_buf_puts(&b, i ? ", " : "");
        rsql_buf_quote_identn(&b, ctx->column_names[i], strlen(ctx->column_names[i]));
    }
    rsql_buf_puts(&b, ") VALUES (");
    for (int i = 0; i < k->n; i++) {
        rsql_buf_printf(&b, "%s$%d", i ? ", " : "", i + 1);
    }
    rsql_buf_putc(&b, ')');
    rsql_buf_puts(&b, rsql_buf_str(&conflict));
    k->insert_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    bool up_ok = !cols.oom && !keys.oom && !sets.oom && !conflict.oom && !picks.oom &&
                 (!k->n_key || (k->stage_sql && k->merge_sql && k->stage_delete_sql &&
                                k->delete_sql && k->clear_sql && k->copy_del_sql && k->merge_del_sql));
    rsql_buf_deinit(&cols);
    rsql_buf_deinit(&keys);
    rsql_buf_deinit(&sets);
    rsql_buf_deinit(&picks);
    rsql_buf_deinit(&conflict);
    /* the positions table, in the table's schema */
    const char *dot = strchr(conf->table_name, '.');
    rsql_buf_reset(&b);
    if (dot) {
        rsql_buf_quote_identn(&b, conf->table_name, (size_t)(dot - conf->table_name));
        rsql_buf_putc(&b, '.');
    }
    rsql_buf_puts(&b, "rocketsql_positions");
    const char *pt = rsql_buf_str(&b);
    k->pos_create = rsql_pg__sql3("CREATE TABLE IF NOT EXISTS ", pt,
                            "(pipeline text NOT NULL, \"partition\" text NOT NULL, "
                            "\"offset\" bigint NOT NULL, resume_key text, "
                            "PRIMARY KEY(pipeline, \"partition\"))");
    /* a table made before resume_key was: the column added (by its owner, once) */
    k->pos_has_key = rsql_pg__sql3("SELECT count(*) FROM pg_attribute WHERE attrelid = "
                                   "to_regclass($1) AND attname = 'resume_key' AND NOT "
                                   "attisdropped", "", "");
    k->pos_add_key = rsql_pg__sql3("ALTER TABLE ", pt, " ADD COLUMN IF NOT EXISTS resume_key text");
    k->pos_name = rsql_strdup(pt);
    k->pos_upsert = rsql_pg__sql3("INSERT INTO ", pt,
                            "(pipeline, \"partition\", \"offset\", resume_key) VALUES ($1, $2, $3, "
                            "$4) ON CONFLICT(pipeline, \"partition\") DO UPDATE SET \"offset\" = "
                            "excluded.\"offset\", resume_key = excluded.resume_key");
    k->pos_head = rsql_pg__sql3("INSERT INTO ", pt,
                                "(pipeline, \"partition\", \"offset\", resume_key) VALUES ");
    k->pos_tail = rsql_strdup(" ON CONFLICT(pipeline, \"partition\") DO UPDATE SET \"offset\" = "
                              "excluded.\"offset\", resume_key = excluded.resume_key; ");
    k->pos_get = rsql_pg__sql3("SELECT \"offset\" FROM ", pt,
                         " WHERE pipeline = $1 AND \"partition\" = $2");
    k->pos_list = rsql_pg__sql3("SELECT \"partition\", \"offset\", resume_key FROM ", pt,
                          " WHERE pipeline = $1 ORDER BY \"partition\"");
    rsql_buf_reset(&b);
    if (dot) {
        rsql_buf_quote_identn(&b, conf->table_name, (size_t)(dot - conf->table_name));
        rsql_buf_putc(&b, '.');
    }
    rsql_buf_puts(&b, "rocketsql_applied");
    pt = rsql_buf_str(&b);
    k->app_create = rsql_pg__sql3("CREATE TABLE IF NOT EXISTS ", pt,
                            "(pipeline text NOT NULL, id text NOT NULL, applied_at timestamptz "
                            "NOT NULL DEFAULT now(), PRIMARY KEY(pipeline, id))");
    k->app_mark = rsql_pg__sql3("INSERT INTO ", pt,
                          "(pipeline, id) SELECT $1, x FROM unnest($2::text[]) AS x ON CONFLICT "
                          "DO NOTHING RETURNING id");
    k->app_prune = rsql_pg__sql3("DELETE FROM ", pt,
                           " WHERE pipeline = $1 AND applied_at < now() - $2::bigint * "
                           "interval '1 millisecond'");
    k->table_create = table_create_sql(k, ctx);
    bool pos_ok = !b.oom && k->table_create && k->pos_create && k->pos_has_key &&
                  k->pos_add_key && k->pos_name && k->pos_upsert && k->pos_get &&
                  k->pos_list && k->pos_head && k->pos_tail &&
                  k->app_create && k->app_mark && k->app_prune;
    rsql_buf_deinit(&b);
    if (!pos_ok || !up_ok || !k->pipeline || !k->table || !k->what || !k->copy_sql || !k->insert_sql || !k->own.url ||
        (conf->username && !k->own.username) || (conf->password && !k->own.password)) {
        sk_close(k);
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = rsql_pg__sink_connect(k, err);
    if (rc == RSQL_OK) {
        rc = check_table(k, ctx, err);
    }
    k->checked = rc == RSQL_OK;
    if (rc != RSQL_OK) {
        sk_close(k);
        return rc;
    }
    *out = k;
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

/*
** Positions stored for this pipeline, each through add (rsql_io.h). All of them or an error
** (PostgreSQL's, classed by its SQLSTATE: a lost connection is transient, a missing
** privilege is not). A connection found broken is made again first (with the writer lock),
** so a retried open can succeed once the server is back.
*/
static rsql_err_t sk_stored_positions(rsql_sink_t *k, rsql_position_cb add, void *opaque,
                                      rsql_error_t *err)
{
    if (!k->conn || PQstatus(k->conn) == CONNECTION_BAD) {
        rsql_err_t rc = rsql_pg__sink_connect(k, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    const char *param = k->pipeline;
    PGresult *r = PQexecParams(k->conn, k->pos_list, 1, NULL, &param, NULL, NULL, 0);
    rsql_err_t rc = RSQL_OK;
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot read rocketsql_positions",
                            k->table);
    }
    for (int i = 0; rc == RSQL_OK && i < PQntuples(r); i++) {
        char *end = NULL;
        const char *v = PQgetvalue(r, i, 1);
        long long off = strtoll(v, &end, 10);
        if (end == v || *end) {
            rc = rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                "postgres sink %s: rocketsql_positions holds offset '%s' for "
                                "partition '%s'",
                                k->table, v, PQgetvalue(r, i, 0));
        } else if (add(opaque, PQgetvalue(r, i, 0), off,
                       PQgetisnull(r, i, 2) ? NULL : PQgetvalue(r, i, 2)) != RSQL_OK) {
            rc = rsql_error_nomem(err);
        }
    }
    PQclear(r);
    return rc;
}

/* sink.buffer-flush.max-rows: the runtime lets that many rows gather before it flushes. */
static int sk_gather_rows(const void *conf)
{
    const rsql_pg_conf_t *c = conf;
    return c ? rsql_gather_rows(c->max_rows) : 0;
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

/* The postgres sink vtable (rsql_io.h). Static. */
const rsql_sink_ops_t rsql_postgres_sink_ops = {
    .open = sk_open,
    .write = sk_write,
    .flush = sk_flush,
    .stored_positions = sk_stored_positions,
    .close = sk_close,
    .gather_rows = sk_gather_rows,
    .waiting = sk_waiting,
    .release = sk_release,
};
