/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The postgres-cdc source: the changes of the tables of schema-name / table-name, streamed
 * from the logical replication slot slot.name with pgoutput (docs/CDC.md).
 *
 * Start (the first poll, and after a lost connection): the replication connection
 * (pg_repl.c), the tables and the publication (pgcdc_tables.c, first time only), the slot
 * (created when missing, never dropped; a preview creates a TEMPORARY one, gone with its
 * connection, and confirms nothing), then START_REPLICATION at the resume position.
 *
 * Snapshot ('initial' while a table's snapshot is not done, and 'snapshot'): the slot is
 * created with an exported snapshot (or found: a fresh one), the tables' rows are read in it
 * (pgcdc_snapsrc.c, pgcdc_snapshot.c) as +I records of one partition per table,
 * "snapshot:<schema>.<table>", and only then does the stream start, on the same replication
 * connection: nothing is confirmed to the slot while the snapshot is read. 'snapshot' reads
 * a fresh snapshot without a slot, and ends.
 *
 * Positions: LSNs, in one partition named after the slot. A row's offset is the end LSN of
 * the last source transaction completely delivered before it; the last row of a
 * transaction carries its own transaction's end (its offset is set when the Commit comes
 * in the same poll, else a row-less record, done as filtered, carries it). So a sink that
 * commits inside a source transaction stores the previous transaction's end, and a restart
 * from it replays the whole transaction: applied by key, it converges. A transaction
 * whose commit LSN is below the resume position is skipped (the server skips those at or
 * below the slot's confirmed position itself). While no change is pending, every
 * heartbeat.interval.ms a row-less record carries the server's last keepalive position.
 *
 * The slot's confirmed position (the Standby Status Update's flush LSN) is what the runtime
 * reports committed (committed, on the worker thread: an atomic), never more; the status
 * goes every status-interval and whenever the server asks.
 *
 * The change messages become records in pgcdc_changes.c (kinds, METADATA, TRUNCATE, schema
 * changes); the state both files share is pgcdc_source_int.h's.
 *
 * Threads: poll (the poll thread) owns the connection; committed (worker) writes an atomic;
 * wakeup (any thread) writes the wake pipe.
 */
#include "config.h"
#include "base/rsql_time.h"
#include "connectors/postgres/pgcdc_source_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void src_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    rsql_pg_repl_close(&s->repl);
    PQfreemem(s->redo_buf); /* NULL: nothing (free's rule) */
    rsql_pgcdc_snapsrc_close(&s->ss, true);
    rsql_pgoutput_destroy(s->dec);
    for (int i = 0; i < s->n_maps; i++) {
        rsql_pgcdc_map_free(&s->maps[i]);
    }
    rsql_free(s->maps);
    rsql_pgcdc_tables_free(&s->tables);
    for (int i = 0; i < s->n; i++) {
        rsql_free(s->names ? s->names[i] : NULL);
        rsql_free(s->meta ? s->meta[i] : NULL);
    }
    rsql_free(s->names);
    rsql_free(s->meta);
    rsql_free(s->types);
    rsql_free(s->required);
    rsql_free((char *)s->conf.pg.url);
    rsql_free((char *)s->conf.pg.username);
    rsql_free((char *)s->conf.pg.password);
    rsql_free((char *)s->conf.schema_re);
    rsql_free((char *)s->conf.table_re);
    rsql_free((char *)s->conf.slot);
    rsql_free((char *)s->conf.publication);
    for (int i = 0; i < 2; i++) {
        if (s->wake[i] >= 0) {
            close(s->wake[i]);
        }
    }
    rsql_free(s);
}

/* A copy of s (NULL stays NULL); *ok false when out of memory. */
static char *dup_opt(const char *s, bool *ok)
{
    char *d = s ? rsql_strdup(s) : NULL;
    if (s && !d) {
        *ok = false;
    }
    return d;
}

static rsql_err_t src_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_pgcdc_conf_t *conf = ctx->conf;
    if (!conf || !conf->pg.url || !conf->slot || !conf->publication) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "postgres-cdc source: options 'hostname' or 'url', and "
                              "'slot.name' are required");
    }
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->wake[0] = s->wake[1] = -1;
    bool ok = true;
    s->conf = *conf;
    s->conf.pg.url = dup_opt(conf->pg.url, &ok);
    s->conf.pg.username = dup_opt(conf->pg.username, &ok);
    s->conf.pg.password = dup_opt(conf->pg.password, &ok);
    s->conf.schema_re = dup_opt(conf->schema_re, &ok);
    s->conf.table_re = dup_opt(conf->table_re, &ok);
    s->conf.slot = dup_opt(conf->slot, &ok);
    s->conf.publication = dup_opt(conf->publication, &ok);
    s->conf.hostname = s->conf.database = NULL;
    s->conf.pg.table_name = s->conf.pg.inc_column = NULL;
    snprintf(s->what, sizeof s->what, "postgres-cdc source %s", ctx->table ? ctx->table : "");
    s->preview = ctx->pipeline && strncmp(ctx->pipeline, "preview:", 8) == 0;
    s->n = ctx->n_columns;
    s->names = rsql_calloc((size_t)s->n + 1, sizeof *s->names);
    s->types = rsql_calloc((size_t)s->n + 1, sizeof *s->types);
    s->required = rsql_calloc((size_t)s->n + 1, sizeof *s->required);
    s->meta = ctx->column_meta ? rsql_calloc((size_t)s->n + 1, sizeof *s->meta) : NULL;
    s->dec = rsql_pgoutput_new();
    ok = ok && s->names && s->types && s->required && (s->meta || !ctx->column_meta) && s->dec;
    for (int i = 0; ok && i < s->n; i++) {
        s->names[i] = dup_opt(ctx->column_names[i], &ok);
        s->types[i] = ctx->column_types[i];
        s->required[i] = ctx->column_required && ctx->column_required[i];
        if (s->meta) {
            s->meta[i] = dup_opt(ctx->column_meta[i], &ok);
        }
    }
    if (!ok) {
        src_close(s);
        return rsql_error_nomem(err);
    }
    s->follow.types = s->types;
    s->follow.required = s->required;
    if (pipe(s->wake) != 0) {
        s->wake[0] = s->wake[1] = -1;
        src_close(s);
        return rsql_error_set(err, RSQL_ERR_IO, RSQL_NOPOS, "%s: pipe: %s", s->what,
                              strerror(errno));
    }
    fcntl(s->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(s->wake[1], F_SETFL, O_NONBLOCK);
    for (int i = 0; i < ctx->n_resume; i++) {
        if (strcmp(ctx->resume_partitions[i], s->conf.slot) == 0 && ctx->resume_offsets[i] > 0) {
            s->resume = (rsql_lsn_t)ctx->resume_offsets[i];
            s->has_resume = true;
        }
    }
    rsql_err_t rc = rsql_pgcdc_snapsrc_init(&s->ss, ctx, err);
    if (rc != RSQL_OK) {
        src_close(s);
        return rc;
    }
    *out = s;
    return RSQL_OK;
}

/* Open the snapshot (pgcdc_snapsrc.c) of the tables not done yet. */
static rsql_err_t open_snapshot(rsql_source_t *s, const char *name, rsql_error_t *err)
{
    return rsql_pgcdc_snapsrc_open(&s->ss, &s->conf, &s->tables, name, s->n,
                                   (const char *const *)s->names, (const char *const *)s->meta,
                                   rsql_pgcdc__follow_of(s), s->what, err);
}

/*
** truncate.mode 'apply' with table-name matching several tables: the sink would empty its
** whole table for a TRUNCATE of one of them. The error names them.
*/
static rsql_err_t one_table(rsql_source_t *s, rsql_error_t *err)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    for (int i = 0; i < s->tables.n && i < 20; i++) {
        rsql_buf_printf(&b, "%s%s.%s", i ? ", " : "", s->tables.v[i].schema, s->tables.v[i].name);
    }
    if (s->tables.n > 20) {
        rsql_buf_printf(&b, ", ... (%d in all)", s->tables.n);
    }
    rsql_err_t rc = b.oom ? rsql_error_nomem(err)
                          : rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                                           "%s: truncate.mode 'apply' needs schema-name and "
                                           "table-name to match exactly one table (a TRUNCATE "
                                           "empties the sink's whole table), and they match "
                                           "%d: %s",
                                           s->what, s->tables.n, rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return rc;
}

/*
** Connect, find the tables and the publication (once), the slot, and start streaming. When
** the snapshot is to be read ('initial' and tables not done), the slot is created with an
** exported snapshot (or found: a fresh snapshot), the snapshot opened, and the stream starts
** on the next call, after the snapshot's last row, on the same replication connection (idle
** meanwhile: a temporary slot lives with it). 'snapshot': the snapshot alone, no slot.
*/
static rsql_err_t start(rsql_source_t *s, rsql_error_t *err)
{
    rsql_err_t rc = RSQL_OK;
    rsql_pg_slot_t slot = s->slot;
    bool ready = s->slot_ready && s->repl.conn && PQstatus(s->repl.conn) == CONNECTION_OK;
    s->slot_ready = false;
    bool snap = false;
    if (!ready) {
        rc = rsql_pg_repl_connect(&s->repl, &s->conf.pg, s->what, err);
        if (rc == RSQL_OK && !s->tables_ready) {
            rc = rsql_pgcdc_tables_find(&s->repl, &s->conf, s->n, (const char *const *)s->names,
                                        s->types, (const char *const *)s->meta, s->required,
                                        &s->tables, err);
            if (rc == RSQL_OK && s->conf.startup != RSQL_PGCDC_SNAPSHOT &&
                s->conf.truncate_mode == RSQL_PGCDC_TRUNC_APPLY && s->tables.n != 1) {
                rc = one_table(s, err);
            }
            if (rc == RSQL_OK && s->conf.startup != RSQL_PGCDC_SNAPSHOT) {
                rc = rsql_pgcdc_publication(&s->repl, &s->conf, &s->tables, err);
            }
            s->tables_ready = rc == RSQL_OK;
        }
        if (rc == RSQL_OK && s->conf.startup != RSQL_PGCDC_LATEST) {
            rc = rsql_pgcdc_snapsrc_needed(&s->ss, &s->tables, &snap, err);
        }
        if (rc == RSQL_OK && s->conf.startup == RSQL_PGCDC_SNAPSHOT) {
            rsql_pg_repl_close(&s->repl);
            s->snap_over = !snap;
            return snap ? open_snapshot(s, NULL, err) : RSQL_OK;
        }
        if (rc == RSQL_OK) {
            rc = rsql_pg_repl_slot(&s->repl, s->conf.slot, true, s->preview, snap, &slot, err);
        }
    }
    /* what this job may have confirmed itself: its stored position, or, on a reconnect,
       what this run's runtime committed since (the slot was confirmed up to it) */
    rsql_lsn_t own = s->resume;
    if ((rsql_lsn_t)atomic_load(&s->confirmed) > own) {
        own = (rsql_lsn_t)atomic_load(&s->confirmed);
    }
    if (rc == RSQL_OK && s->has_resume && slot.exists && slot.confirmed > own) {
        char a[RSQL_LSN_TEXT_MAX], b[RSQL_LSN_TEXT_MAX];
        rsql_pgoutput_lsn_format(slot.confirmed, a);
        rsql_pgoutput_lsn_format(own, b);
        rc = rsql_error_set(err, RSQL_ERR_CONSTRAINT, RSQL_NOPOS,
                            "%s: replication slot '%s' is confirmed up to %s, past this job's "
                            "stored position %s: the changes between them were consumed by "
                            "someone else (another job or client on the same slot); give "
                            "this job its own slot.name",
                            s->what, s->conf.slot, a, b);
    }
    if (rc == RSQL_OK && s->has_resume && slot.created) {
        char b[RSQL_LSN_TEXT_MAX];
        rsql_pgoutput_lsn_format(s->resume, b);
        rc = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                            "%s: replication slot '%s' was missing (dropped?) although this "
                            "job has a stored position %s: the changes since are lost; it "
                            "was created again, restart the job from a new snapshot",
                            s->what, s->conf.slot, b);
    }
    if (rc == RSQL_OK && snap) {
        /* no command on repl before: the exported snapshot lives until its next one */
        rc = open_snapshot(s, slot.created && *slot.snapshot ? slot.snapshot : NULL, err);
        if (rc == RSQL_OK) {
            s->slot = slot;
            s->slot_ready = true;
            return RSQL_OK;
        }
    }
    if (rc == RSQL_OK) {
        rsql_lsn_t from = s->has_resume ? s->resume : 0;
        s->start_confirmed = slot.confirmed;
        if (s->last_end < (s->has_resume ? s->resume : slot.confirmed)) {
            s->last_end = s->has_resume ? s->resume : slot.confirmed;
        }
        if (s->last_end > from) {
            from = s->last_end; /* a reconnect: after what this run delivered */
        }
        rc = rsql_pg_repl_start(&s->repl, s->conf.slot, s->conf.publication, from, err);
    }
    if (rc != RSQL_OK) {
        rsql_pg_repl_close(&s->repl);
        return rc;
    }
    s->in_txn = false;
    s->last_status_ms = s->last_activity_ms = rsql_now_ms();
    return RSQL_OK;
}

/* Forget the message the last poll ended on (the stream starts again: it comes again). */
static void drop_redo(rsql_source_t *s)
{
    PQfreemem(s->redo_buf);
    s->redo_buf = NULL;
}


/* Send a status update when due (or asked for): received, and what the runtime committed. */
static rsql_err_t send_status(rsql_source_t *s, bool now, rsql_error_t *err)
{
    int64_t t = rsql_now_ms();
    if (!now && t - s->last_status_ms < s->conf.status_ms) {
        return RSQL_OK;
    }
    rsql_lsn_t flushed = (rsql_lsn_t)atomic_load(&s->confirmed);
    if (flushed < s->start_confirmed) {
        flushed = s->start_confirmed;
    }
    rsql_lsn_t written = s->received > flushed ? s->received : flushed;
    s->last_status_ms = t;
    return rsql_pg_repl_status(&s->repl, written, flushed, err);
}

/* The ident of a snapshot row (or table end) r of table t, in arena; NULL when out of memory. */
static const char *snap_ident(rsql_source_t *s, const rsql_pgcdc_snaprow_t *r,
                              rsql_arena_t *arena)
{
    const rsql_pgcdc_table_t *t = r->map->table;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "postgres-cdc:%s@snapshot %s.%s %s", s->conf.slot, t->schema, t->name,
                    r->row ? "key=" : "end");
    for (int k = 0; r->row && k < r->n_key; k++) {
        rsql_buf_printf(&b, "%s%s", k ? "," : "", r->key[k]);
    }
    const char *id = b.oom ? NULL : rsql_arena_strdup(arena, rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return id;
}

/*
** The snapshot's next rows as +I records of the tables' snapshot partitions (up to max),
** each table's end as a row-less record. An error after rows waits for the next poll.
*/
static rsql_err_t snap_poll(rsql_source_t *s, rsql_batch_t *batch, int max, rsql_error_t *err)
{
    int first = batch->n;
    while (s->ss.active && batch->n - first < max && batch->n < batch->cap) {
        rsql_pgcdc_snaprow_t r;
        bool done;
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_err_t rc = rsql_pgcdc_snapsrc_next(&s->ss, &r, &done, &e);
        if (rc == RSQL_OK && done) {
            s->snap_over = s->conf.startup == RSQL_PGCDC_SNAPSHOT;
            break;
        }
        if (rc == RSQL_OK && r.row) {
            rc = rsql_pgcdc__add_row(s, batch, r.map, r.rel, r.row, RSQL_ROW_INSERT, &e);
        } else if (rc == RSQL_OK) {
            rc = rsql_pgcdc__add_marker(s, batch, 0, &e); /* room checked: never pending */
        }
        if (rc != RSQL_OK) {
            if (e.code != RSQL_ERR_NOMEM && batch->n > first) {
                s->pending = e;
                return RSQL_OK;
            }
            *err = e;
            return rc;
        }
        rsql_record_t *rec = &batch->recs[batch->n - 1];
        const char *id = snap_ident(s, &r, batch->arena);
        const char *pos_key = r.pos_key ? rsql_arena_strdup(batch->arena, r.pos_key) : NULL;
        if (!id || (r.pos_key && !pos_key)) {
            batch->n--;
            return rsql_error_nomem(err);
        }
        rec->partition = r.partition;
        rec->offset = r.offset;
        rec->pos_key = pos_key;
        rec->ident = id;
        if (rec->error) {
            rec->raw = (const uint8_t *)id;
            rec->raw_len = strlen(id);
        }
    }
    return RSQL_OK;
}

static rsql_err_t src_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                           bool *eof, rsql_error_t *err)
{
    *eof = false;
    if (s->pending.code != RSQL_OK) {
        *err = s->pending;
        rsql_error_clear(&s->pending);
        return err->code;
    }
    if (max > batch->cap - batch->n) {
        max = batch->cap - batch->n;
    }
    if (max <= 0) {
        return RSQL_OK;
    }
    int first = batch->n;
    s->txn_last = -1; /* the records of earlier polls are handed over */
    if (s->pending_marker) {
        rsql_lsn_t m = s->pending_marker;
        s->pending_marker = 0;
        rsql_err_t rc = rsql_pgcdc__add_marker(s, batch, m, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    if (s->snap_over) { /* 'snapshot': read to its end */
        *eof = batch->n == first;
        return RSQL_OK;
    }
    if (!s->repl.streaming && !s->ss.active) {
        drop_redo(s);
        rsql_err_t rc = start(s, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    if (s->ss.active || s->snap_over) {
        rsql_err_t rc = snap_poll(s, batch, max, err);
        *eof = rc == RSQL_OK && s->snap_over && batch->n == first;
        return rc;
    }
    if (!s->repl.streaming) { /* after the snapshot: the stream, on the slot found or made */
        drop_redo(s);
        rsql_err_t rc = start(s, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    int64_t deadline = rsql_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = RSQL_OK;
    int fresh = first; /* records past it are news: the poll stops waiting for more */
    if (s->redo_buf) { /* the message the last poll ended on, first: not news */
        s->txn_rows = s->redo_rows;
        rc = rsql_pgcdc__on_message(s, batch, s->redo_msg, s->redo_len, err);
        PQfreemem(s->redo_buf);
        s->redo_buf = NULL;
        if (rc != RSQL_OK) {
            batch->n = first; /* nothing of a failed poll is kept */
            return rc;
        }
        fresh = batch->n;
    }
    char *last_buf = NULL; /* transaction.atomic: the last message, if it added rows */
    const uint8_t *last_msg = NULL;
    size_t last_len = 0;
    int last_first = 0, last_rows = 0;
    /* room for an update's two rows and a transaction's end marker */
    while (rc == RSQL_OK && (batch->n - fresh == 0 || batch->n - first + 3 <= max) &&
           batch->n + 3 <= batch->cap) {
        rc = send_status(s, false, &e);
        if (rc != RSQL_OK) {
            break;
        }
        int64_t now = rsql_now_ms();
        int wait = batch->n > fresh || now >= deadline ? 0 : (int)(deadline - now);
        if (wait > s->conf.status_ms) {
            wait = (int)s->conf.status_ms;
        }
        char *buf = NULL;
        int n = rsql_pg_repl_recv(&s->repl, wait, s->wake[0], &buf, &e);
        if (n < 0) {
            rc = e.code ? e.code : RSQL_ERR_UNAVAILABLE;
            rsql_pg_repl_close(&s->repl);
            break;
        }
        if (n == 0) {
            char drain[64];
            while (read(s->wake[0], drain, sizeof drain) > 0) {
            }
            if (batch->n > fresh || rsql_now_ms() >= deadline) {
                break;
            }
            continue;
        }
        rsql_pgoutput_copy_t cp;
        rc = rsql_pgoutput_copy_parse((const uint8_t *)buf, (size_t)n, &cp, &e);
        if (rc == RSQL_OK && cp.kind == 'k') {
            if (cp.end_lsn > s->received) {
                s->received = cp.end_lsn;
            }
            if (!s->in_txn) {
                s->idle_lsn = cp.end_lsn;
            }
            if (cp.reply_requested) {
                rc = send_status(s, true, &e);
            }
        } else if (rc == RSQL_OK) {
            if (cp.end_lsn > s->received) {
                s->received = cp.end_lsn;
            }
            int before = batch->n, rows_before = s->txn_rows;
            rc = rsql_pgcdc__on_message(s, batch, cp.data, cp.len, &e);
            PQfreemem(last_buf); /* another message came after it (if any) */
            last_buf = NULL;
            if (rc == RSQL_OK && s->conf.txn_atomic && s->in_txn && batch->n > before) {
                last_buf = buf; /* kept: the poll may end on it */
                last_msg = cp.data;
                last_len = cp.len;
                last_first = before;
                last_rows = rows_before;
                buf = NULL;
            }
        }
        PQfreemem(buf); /* NULL when kept */
    }
    if (last_buf && rc == RSQL_OK && s->in_txn) {
        /* ended inside a transaction on a change: its rows are taken back and read again
           at the next poll, so the transaction's last row comes with its commit */
        batch->n = last_first;
        s->txn_rows = last_rows;
        s->redo_buf = last_buf;
        s->redo_msg = last_msg;
        s->redo_len = last_len;
        s->redo_rows = last_rows;
    } else if (last_buf) {
        PQfreemem(last_buf);
    }
    /* idle: carry the server's position, so the slot need not keep WAL for nothing */
    int64_t now = rsql_now_ms();
    if (rc == RSQL_OK && !s->in_txn && !s->preview && batch->n == first &&
        now - s->last_activity_ms >= s->conf.heartbeat_ms && s->idle_lsn > s->last_end) {
        s->last_end = s->idle_lsn;
        s->last_activity_ms = now;
        rc = rsql_pgcdc__add_marker(s, batch, s->last_end, &e);
    }
    atomic_store_explicit(&s->shown_read, s->last_end, memory_order_relaxed);
    atomic_store_explicit(&s->shown_server, s->received, memory_order_relaxed);
    if (rc != RSQL_OK && e.code == RSQL_ERR_NOMEM) {
        return rsql_error_nomem(err);
    }
    if (rc != RSQL_OK) {
        if (batch->n > first) { /* the rows first: the error at the next poll */
            s->pending = e;
            return RSQL_OK;
        }
        *err = e;
        return rc;
    }
    return RSQL_OK;
}

static int src_partition_count(rsql_source_t *s)
{
    return 1 + s->ss.n_parts; /* the slot's stream, then each table's snapshot */
}

static const char *src_partition_name(rsql_source_t *s, uint32_t partition)
{
    return partition == 0 ? s->conf.slot : rsql_pgcdc_snapsrc_part(&s->ss, partition);
}

/* The runtime committed up to offset: the slot may confirm it. */
static void src_committed(rsql_source_t *s, uint32_t partition, int64_t offset)
{
    if (partition != 0 || s->preview || offset <= 0) {
        return;
    }
    uint_least64_t cur = atomic_load(&s->confirmed);
    while ((uint64_t)offset > cur &&
           !atomic_compare_exchange_weak(&s->confirmed, &cur, (uint_least64_t)offset)) {
    }
}

static void src_wakeup(rsql_source_t *s)
{
    if (s->wake[1] >= 0) {
        ssize_t w = write(s->wake[1], "w", 1);
        (void)w;
    }
}

/*
** The slot's positions: what was read, what the runtime committed (the slot's confirmed
** flush follows it at the next status update), the server's end of WAL as last heard (every
** message and keepalive carries it), and the lag: the WAL bytes between that end and the
** committed position, which the server keeps for the slot (serve mode's
** rocketsql_replication_slot_lag_bytes, and its rocketsql_source_backlog in bytes).
*/
static size_t src_describe(rsql_source_t *s, bool text, char *buf, size_t size)
{
    char a[RSQL_LSN_TEXT_MAX], b[RSQL_LSN_TEXT_MAX], c[RSQL_LSN_TEXT_MAX];
    rsql_lsn_t read = (rsql_lsn_t)atomic_load_explicit(&s->shown_read, memory_order_relaxed);
    rsql_lsn_t server = (rsql_lsn_t)atomic_load_explicit(&s->shown_server, memory_order_relaxed);
    rsql_lsn_t done = (rsql_lsn_t)atomic_load(&s->confirmed);
    unsigned long long lag = server > done ? (unsigned long long)(server - done) : 0;
    rsql_pgoutput_lsn_format(read, a);
    rsql_pgoutput_lsn_format(done, b);
    rsql_pgoutput_lsn_format(server, c);
    int n = text ? snprintf(buf, size, "slot %s read %s confirmed %s lag %llu B", s->conf.slot,
                            a, b, lag)
                 : snprintf(buf, size,
                            "{\"slot\":\"%s\",\"read_lsn\":\"%s\",\"confirmed_lsn\":\"%s\","
                            "\"server_lsn\":\"%s\",\"lag_bytes\":%llu,\"backlog_bytes\":%llu}",
                            s->conf.slot, a, b, c, lag, lag);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* The postgres-cdc source vtable (rsql_io.h). Static. */
const rsql_source_ops_t rsql_pgcdc_source_ops = {
    .open = src_open,
    .poll = src_poll,
    .partition_count = src_partition_count,
    .partition_name = src_partition_name,
    .committed = src_committed,
    .wakeup = src_wakeup,
    .close = src_close,
    .describe = src_describe,
};
