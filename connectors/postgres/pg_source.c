/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The postgres source: reads `table-name`, the columns of the rocketsql table matched by
 * name. One partition, named by table-name.
 *
 * With scan.incremental.column (an integer column that only grows, such as a bigserial id:
 * the outbox pattern) it reads the rows whose column is above the resume position, in that
 * column's order, batch by batch (WHERE c > $1 ORDER BY c LIMIT n); a record's offset is its
 * column value, so a later run resumes after the last committed row. Bounded: it ends when no
 * row is above; with scan.incremental.interval it polls for new rows at that interval
 * (sleeping on a condition variable, woken by wakeup), unbounded. A row committed later with
 * a smaller value than one already read (concurrent writers taking ids out of commit order)
 * is not seen: let one writer insert, or read with a delay.
 * Without it, the table is read once, in one snapshot: a REPEATABLE READ, READ ONLY
 * transaction that declares a cursor over the table and fetches from it batch by batch, so
 * rows written while it reads are neither skipped nor read twice, and each batch costs what
 * its rows cost (no OFFSET rescanning what was read). The cursor is a sequential scan in the
 * table's physical order (ctid; synchronize_seqscans off, so it starts at the first block
 * rather than where another scan is): no sort, rows stream as they are read. A record's
 * offset is the number of rows read; a later run, or a read that lost its connection, opens
 * a new snapshot and skips (MOVE) that many rows: exact only while the table does not change
 * between the two.
 *
 * Values arrive as PostgreSQL's text and become rsql values as pg_rows.c describes (the
 * select list asks for forms rsql_value_parse reads; ROW, ARRAY and MAP columns through one
 * JSON object per row and the json format's decoder).
 * A value that does not parse, or JSON of the wrong shape, is that record's error
 * (rsql_record_t.error, naming the column): dead-lettered or the run stops at it.
 * The column types are checked at open: a mismatch is an error naming the column.
 *
 * Errors: a lost connection is transient (UNAVAILABLE: the runtime retries the poll, which
 * reconnects); the rest are PostgreSQL's, classed by SQLSTATE (pg_conn.c).
 *
 * Threads: the connection is opened by open and then used by poll only (the poll thread);
 * wakeup from any thread. Offsets are worker-managed.
 */
#include "config.h"
#include "base/rsql_value.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/rsql_conn_io.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rsql_source {
    PGconn *conn;
    rsql_pg_conf_t conf; /* a copy: url, username, password owned */
    char *table;
    char *select_sql; /* SELECT exprs..., position FROM t [WHERE ... ORDER BY ... LIMIT $2] */
    char *what;       /* "postgres source <table>" */
    rsql_pg_rows_t rows; /* the columns, and their text into values (pg_rows.c) */
    int64_t position; /* the last incremental value read, or rows read */
    bool in_snapshot; /* without inc_column: the snapshot's transaction and cursor are open */
    PGresult *fetched; /* the snapshot's rows fetched, handed out from fetched_next on */
    int fetched_next;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool woken, sync_init;
};

static void ps_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    PQclear(s->fetched);
    if (s->conn) {
        PQfinish(s->conn);
    }
    if (s->sync_init) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    rsql_free((char *)s->conf.url);
    rsql_free((char *)s->conf.username);
    rsql_free((char *)s->conf.password);
    rsql_free((char *)s->conf.table_name);
    rsql_free((char *)s->conf.inc_column);
    rsql_free(s->table);
    rsql_free(s->select_sql);
    rsql_free(s->what);
    rsql_pg__rows_deinit(&s->rows);
    rsql_free(s);
}

/* Connect (again): a bad connection is transient, the runtime retries the poll. */
static rsql_err_t ps_connect(rsql_source_t *s, rsql_error_t *err)
{
    if (s->conn) {
        PQfinish(s->conn);
        s->conn = NULL;
    }
    s->in_snapshot = false; /* and the rows fetched in it: the next snapshot moves past
                               the rows handed out (position) */
    PQclear(s->fetched);
    s->fetched = NULL;
    s->conn = rsql_pg__connect(&s->conf, s->what, err);
    return s->conn ? RSQL_OK : (err ? err->code : RSQL_ERR_UNAVAILABLE);
}

static rsql_err_t ps_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_pg_conf_t *conf = ctx->conf;
    if (!conf || !conf->url || !conf->table_name) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "postgres source: options 'url' and 'table-name' are required");
    }
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->conf = *conf;
    s->conf.url = rsql_strdup(conf->url);
    s->conf.username = conf->username ? rsql_strdup(conf->username) : NULL;
    s->conf.password = conf->password ? rsql_strdup(conf->password) : NULL;
    s->conf.table_name = rsql_strdup(conf->table_name);
    s->conf.inc_column = conf->inc_column ? rsql_strdup(conf->inc_column) : NULL;
    s->table = rsql_strdup(conf->table_name);
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "postgres source %s", conf->table_name);
    s->what = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_reset(&b);
    bool ok = s->conf.url && s->conf.table_name && s->table && s->what &&
              (!conf->username || s->conf.username) && (!conf->password || s->conf.password) &&
              (!conf->inc_column || s->conf.inc_column);
    if (ok && pthread_mutex_init(&s->mu, NULL) == 0) {
        if (rsql_cond_init_monotonic(&s->cv) == 0) {
            s->sync_init = true;
        } else {
            pthread_mutex_destroy(&s->mu);
        }
    }
    if (!ok || !s->sync_init) {
        rsql_buf_deinit(&b);
        ps_close(s);
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = rsql_pg__rows_init(&s->rows, ctx->n_columns, ctx->column_names,
                                       ctx->column_types, ctx->column_descs, s->what, err);
    if (rc != RSQL_OK) {
        rsql_buf_deinit(&b);
        ps_close(s);
        return rc;
    }
    rsql_buf_puts(&b, "SELECT ");
    if (rsql_pg__rows_select(&s->rows, &b) > 0) {
        rsql_buf_puts(&b, ", ");
    }
    if (conf->inc_column) {
        rsql_buf_quote_identn(&b, conf->inc_column, strlen(conf->inc_column));
        rsql_buf_puts(&b, "::bigint AS rsql_pos FROM ");
        rsql_pg__quote_table(&b, conf->table_name);
        rsql_buf_puts(&b, " WHERE ");
        rsql_buf_quote_identn(&b, conf->inc_column, strlen(conf->inc_column));
        rsql_buf_puts(&b, " > $1::bigint ORDER BY ");
        rsql_buf_quote_identn(&b, conf->inc_column, strlen(conf->inc_column));
        rsql_buf_puts(&b, " LIMIT $2::bigint");
    } else {
        rsql_buf_puts(&b, "0::bigint AS rsql_pos FROM ");
        rsql_pg__quote_table(&b, conf->table_name); /* the snapshot cursor's query */
    }
    s->select_sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    if (!s->select_sql) {
        ps_close(s);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < ctx->n_resume; i++) {
        if (strcmp(ctx->resume_partitions[i], s->table) == 0) {
            s->position = ctx->resume_offsets[i];
        }
    }
    rc = ps_connect(s, err);
    if (rc == RSQL_OK) {
        rc = rsql_pg__check_columns(s->conn, s->table, &s->rows, s->conf.inc_column, s->what,
                                    NULL, err);
    }
    if (rc != RSQL_OK) {
        ps_close(s);
        return rc;
    }
    *out = s;
    return RSQL_OK;
}

/*
** Append n rows of r (from the select) from row from on to batch as records. Returns how
** many, or -1 (OOM).
*/
static int add_rows(rsql_source_t *s, PGresult *r, int from, int n, rsql_batch_t *batch)
{
    for (int t = from; t < from + n; t++) {
        rsql_record_t *rec = rsql_batch_add(batch);
        rsql_value_t *row = rsql_arena_alloc(batch->arena,
                                             (size_t)(s->rows.n + 1) * sizeof *row);
        char *ident = rsql_arena_alloc(batch->arena, strlen(s->table) + 48);
        if (!rec || !row || !ident) {
            if (rec) {
                batch->n--;
            }
            return -1;
        }
        int pos_col = s->rows.n + (s->rows.n_nested ? 1 : 0);
        int64_t pos = s->conf.inc_column ? strtoll(PQgetvalue(r, t, pos_col), NULL, 10)
                                         : s->position + 1;
        rsql_error_t bad;
        rsql_error_clear(&bad);
        if (rsql_pg__rows_convert(&s->rows, r, t, batch->arena, row, &bad) == RSQL_ERR_NOMEM) {
            batch->n--;
            return -1;
        }
        snprintf(ident, strlen(s->table) + 48, "postgres:%s@%" PRId64, s->table, pos);
        rec->ident = ident;
        rec->partition = 0;
        rec->offset = pos;
        rec->row = row;
        if (bad.code != RSQL_OK) {
            rsql_error_t *be = rsql_arena_alloc(batch->arena, sizeof *be);
            if (!be) {
                batch->n--;
                return -1;
            }
            *be = bad;
            rec->error = be;
            rec->row = NULL;
            rec->raw = (const uint8_t *)ident;
            rec->raw_len = strlen(ident);
        }
        s->position = pos;
    }
    return n;
}

/* The cursor of the snapshot read (one per connection). */
#define SNAPSHOT_CURSOR "rsql_snapshot"
/*
** Rows per FETCH: several pipeline batches per round trip (the read waits on round trips
** more than on rows), at most SNAPSHOT_FETCH_MAX rows held.
*/
#define SNAPSHOT_FETCH_BATCHES 8
#define SNAPSHOT_FETCH_MAX 4096

/*
** Without scan.incremental.column: the next at most max rows of the snapshot, opening it
** (one round trip: the transaction, the cursor, and MOVE past the rows already read) when
** it is not open. Returns the FETCH's result (the caller clears it) or NULL with err set;
** after an error the snapshot is closed, and the next call opens a new one.
*/
static PGresult *snapshot_fetch(rsql_source_t *s, int max, rsql_error_t *err)
{
    char sql[96];
    PGresult *r;
    if (!s->in_snapshot) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_buf_printf(&b,
                        "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; "
                        "SET LOCAL synchronize_seqscans = off; "
                        "DECLARE " SNAPSHOT_CURSOR " NO SCROLL CURSOR FOR %s; "
                        "MOVE FORWARD %" PRId64 " IN " SNAPSHOT_CURSOR,
                        s->select_sql, s->position);
        if (b.oom) {
            rsql_buf_deinit(&b);
            rsql_error_nomem(err);
            return NULL;
        }
        r = PQexec(s->conn, rsql_buf_str(&b));
        rsql_buf_deinit(&b);
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            rsql_pg__error(s->conn, r, err, "postgres source %s: cannot open the snapshot",
                           s->table);
            PQclear(r);
            PQclear(PQexec(s->conn, "ROLLBACK"));
            return NULL;
        }
        PQclear(r);
        s->in_snapshot = true;
    }
    snprintf(sql, sizeof sql, "FETCH FORWARD %d FROM " SNAPSHOT_CURSOR, max);
    r = PQexec(s->conn, sql);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        rsql_pg__error(s->conn, r, err, "postgres source %s: cannot read", s->table);
        PQclear(r);
        PQclear(PQexec(s->conn, "ROLLBACK"));
        s->in_snapshot = false;
        return NULL;
    }
    if (PQntuples(r) == 0) { /* the end: the snapshot is released */
        PQclear(PQexec(s->conn, "COMMIT"));
        s->in_snapshot = false;
    }
    return r;
}

static rsql_err_t ps_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                          bool *eof, rsql_error_t *err)
{
    int64_t deadline = rsql_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    *eof = false;
    if (max > batch->cap - batch->n) {
        max = batch->cap - batch->n;
    }
    if (max <= 0) {
        return RSQL_OK; /* no room: FETCH 0 would return the current row again */
    }
    for (;;) {
        if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
            rsql_err_t rc = ps_connect(s, err);
            if (rc != RSQL_OK) {
                return rc;
            }
        }
        int added;
        if (!s->conf.inc_column) {
            if (!s->fetched || s->fetched_next >= PQntuples(s->fetched)) {
                PQclear(s->fetched);
                int n = max * SNAPSHOT_FETCH_BATCHES;
                s->fetched = snapshot_fetch(s, n < SNAPSHOT_FETCH_MAX ? n : SNAPSHOT_FETCH_MAX,
                                            err);
                s->fetched_next = 0;
                if (!s->fetched) {
                    return err && err->code ? err->code : RSQL_ERR_UNAVAILABLE;
                }
            }
            int left = PQntuples(s->fetched) - s->fetched_next;
            added = add_rows(s, s->fetched, s->fetched_next, left < max ? left : max, batch);
            s->fetched_next += added > 0 ? added : 0;
        } else {
            char p1[32], p2[32];
            snprintf(p1, sizeof p1, "%" PRId64, s->position);
            snprintf(p2, sizeof p2, "%d", max);
            const char *params[2] = {p1, p2};
            PGresult *r = PQexecParams(s->conn, s->select_sql, 2, NULL, params, NULL, NULL, 0);
            if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
                rsql_err_t rc = rsql_pg__error(s->conn, r, err,
                                               "postgres source %s: cannot read", s->table);
                PQclear(r);
                return rc;
            }
            added = add_rows(s, r, 0, PQntuples(r), batch);
            PQclear(r);
        }
        if (added < 0) {
            return rsql_error_nomem(err);
        }
        if (added > 0) {
            return RSQL_OK;
        }
        if (s->conf.interval_src_ms <= 0) {
            *eof = true;
            return RSQL_OK;
        }
        int64_t now = rsql_now_ms();
        if (now >= deadline) {
            return RSQL_OK;
        }
        int64_t wait = deadline - now < s->conf.interval_src_ms ? deadline - now
                                                                : s->conf.interval_src_ms;
        if (rsql_io_sleep_until(&s->mu, &s->cv, &s->woken, rsql_now_ms() + wait)) {
            return RSQL_OK;
        }
    }
}

static int ps_partition_count(rsql_source_t *s)
{
    (void)s;
    return 1;
}

static const char *ps_partition_name(rsql_source_t *s, uint32_t partition)
{
    return partition == 0 ? s->table : NULL;
}

static void ps_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->woken = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* The postgres source vtable (rsql_io.h). Static. */
const rsql_source_ops_t rsql_postgres_source_ops = {
    .open = ps_open,
    .poll = ps_poll,
    .partition_count = ps_partition_count,
    .partition_name = ps_partition_name,
    .wakeup = ps_wakeup,
    .close = ps_close,
};
