/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_applied: the postgres sink's exactly-once record, written in the same transaction as the
 * rows (see pg_sink.c): the position of each source partition served in rocketsql_positions,
 * or, from a source that keeps its own positions (RocketMQ), the identity of each applied
 * record in rocketsql_applied, pruned after sink.exactly-once.retention.
 */
#include "config.h"
#include "base/rsql_time.h"
#include "connectors/postgres/pg_sink_int.h"
#include "connectors/rsql_conn_io.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* See pg_sink_int.h. */
char *rsql_pg__sql3(const char *head, const char *table, const char *tail)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, head);
    rsql_buf_puts(&b, table);
    rsql_buf_puts(&b, tail);
    char *s = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return s;
}

/* One group of positions (rsql_io_positions_each): a prepared upsert each, or one statement. */
typedef struct pos_ctx {
    rsql_sink_t *k;
    rsql_buf_t *q; /* NULL: execute each; else append the statement */
    rsql_error_t *err;
} pos_ctx_t;

static rsql_err_t exec_group(void *opaque, const char *const *names, const int64_t *offs,
                             const char *const *keys, int m)
{
    pos_ctx_t *c = opaque;
    rsql_sink_t *k = c->k;
    for (int q = 0; q < m; q++) {
        char off[32];
        snprintf(off, sizeof off, "%" PRId64, offs[q]);
        const char *params[4] = {k->pipeline, names[q], off, keys[q]};
        PGresult *r = PQexecParams(k->conn, k->pos_upsert, 4, NULL, params, NULL, NULL, 0);
        rsql_err_t rc = RSQL_OK;
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            rc = rsql_pg__error(k->conn, r, c->err,
                                "postgres sink %s: cannot store the source positions", k->table);
        }
        PQclear(r);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

static rsql_err_t sql_group(void *opaque, const char *const *names, const int64_t *offs,
                            const char *const *keys, int m)
{
    pos_ctx_t *c = opaque;
    rsql_sink_t *k = c->k;
    rsql_buf_puts(c->q, k->pos_head);
    for (int p = 0; p < m; p++) {
        char *lp = PQescapeLiteral(k->conn, k->pipeline, strlen(k->pipeline));
        char *ln = PQescapeLiteral(k->conn, names[p], strlen(names[p]));
        char *lk = keys[p] ? PQescapeLiteral(k->conn, keys[p], strlen(keys[p])) : NULL;
        if (!lp || !ln || (keys[p] && !lk)) {
            PQfreemem(lp);
            PQfreemem(ln);
            PQfreemem(lk);
            return rsql_error_nomem(c->err);
        }
        rsql_buf_printf(c->q, "%s(%s, %s, %" PRId64 ", %s)", p ? ", " : "", lp, ln, offs[p],
                        lk ? lk : "NULL");
        PQfreemem(lp);
        PQfreemem(ln);
        PQfreemem(lk);
    }
    rsql_buf_puts(c->q, k->pos_tail);
    return RSQL_OK;
}

/* Store the last offset of each partition among rows[from, to). */
rsql_err_t rsql_pg__store_positions(rsql_sink_t *k, const rsql_sink_row_t *rows, int from,
                                    int to, rsql_error_t *err)
{
    pos_ctx_t c = {k, NULL, err};
    return rsql_io_positions_each(rows, from, to, exec_group, &c);
}

/* Append to q the statements storing those positions (one per RSQL_IO_POS_GROUP partitions). */
rsql_err_t rsql_pg__positions_sql(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                                  rsql_buf_t *q, rsql_error_t *err)
{
    pos_ctx_t c = {k, q, err};
    rsql_err_t rc = rsql_io_positions_each(rows, from, to, sql_group, &c);
    if (rc == RSQL_OK && q->oom) {
        rc = rsql_error_nomem(err);
    }
    return rc;
}


/*
** After a COMMIT whose answer was lost (the connection broke): was it committed? True when
** the stored position of the chunk's last partitioned row is that row's offset (positions
** only grow, so a later chunk cannot have stored it yet). Needs a new connection.
*/
bool rsql_pg__chunk_committed(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to)
{
    for (int i = to - 1; i >= from; i--) {
        if (!rows[i].partition_name || !rows[i].rec) {
            continue;
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        if (rsql_pg__sink_connect(k, &e) != RSQL_OK) {
            return false;
        }
        const char *params[2] = {k->pipeline, rows[i].partition_name};
        PGresult *r = PQexecParams(k->conn, k->pos_get, 2, NULL, params, NULL, NULL, 0);
        bool yes = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
                   strtoll(PQgetvalue(r, 0, 0), NULL, 10) == rows[i].rec->offset;
        PQclear(r);
        return yes;
    }
    return false;
}

/* Append s to b as an element of a PostgreSQL array literal ("..." with \ and " escaped). */
static void put_array_elem(rsql_buf_t *b, const char *s)
{
    rsql_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            rsql_buf_putc(b, '\\');
        }
        rsql_buf_putc(b, *s);
    }
    rsql_buf_putc(b, '"');
}

/*
** Own-position sources, inside the chunk's transaction: record the identities of
** rows[from, to) as applied, and set dup[i] for each row whose identity was recorded before
** (or earlier in the same rows). Rows without an identity are written (dup false). The rows
** of one record (consecutive, the same rec) share its identity: recorded once, and all of
** them applied before or none.
*/
rsql_err_t rsql_pg__mark_applied(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                                 rsql_error_t *err)
{
    rsql_buf_t arr = RSQL_BUF_INIT;
    int n_ids = 0;
    rsql_buf_putc(&arr, '{');
    for (int i = from; i < to; i++) {
        k->dup[i] = false;
        if (i > from && rows[i].rec && rows[i].rec == rows[i - 1].rec) {
            continue; /* another row of the record before it */
        }
        if (rows[i].rec && rows[i].rec->ident) {
            rsql_buf_puts(&arr, n_ids++ ? "," : "");
            put_array_elem(&arr, rows[i].rec->ident);
        }
    }
    rsql_buf_putc(&arr, '}');
    if (n_ids == 0) {
        rsql_buf_deinit(&arr);
        return RSQL_OK;
    }
    if (arr.oom) {
        rsql_buf_deinit(&arr);
        return rsql_error_nomem(err);
    }
    const char *params[2] = {k->pipeline, rsql_buf_str(&arr)};
    PGresult *r = PQexecParams(k->conn, k->app_mark, 2, NULL, params, NULL, NULL, 0);
    rsql_buf_deinit(&arr);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        rsql_err_t rc = rsql_pg__error(k->conn, r, err,
                                       "postgres sink %s: cannot record the applied messages",
                                       k->table);
        PQclear(r);
        return rc;
    }
    /* a row is new when its identity was returned (each returned identity serves one row) */
    int nt = PQntuples(r);
    bool *used = rsql_calloc((size_t)nt + 1, sizeof *used);
    if (!used) {
        PQclear(r);
        return rsql_error_nomem(err);
    }
    int next = 0; /* RETURNING gives them in the rows' order: try the next one first */
    for (int i = from; i < to; i++) {
        if (i > from && rows[i].rec && rows[i].rec == rows[i - 1].rec) {
            k->dup[i] = k->dup[i - 1];
            continue;
        }
        if (!rows[i].rec || !rows[i].rec->ident) {
            continue;
        }
        bool found = false;
        if (next < nt && !used[next] && strcmp(PQgetvalue(r, next, 0), rows[i].rec->ident) == 0) {
            used[next++] = found = true;
        }
        for (int j = 0; j < nt && !found; j++) {
            if (!used[j] && strcmp(PQgetvalue(r, j, 0), rows[i].rec->ident) == 0) {
                used[j] = found = true;
                next = j + 1;
            }
        }
        k->dup[i] = !found;
    }
    rsql_free(used);
    PQclear(r);
    return RSQL_OK;
}

/* Delete the applied identities older than the retention (see the file comment). */
void rsql_pg__prune_applied(rsql_sink_t *k)
{
    int64_t now = rsql_now_ms();
    if (!k->by_ident || now - k->opened_ms < k->conf->retention_ms || now - k->pruned_ms < 60000) {
        return;
    }
    k->pruned_ms = now;
    char ms[32];
    snprintf(ms, sizeof ms, "%" PRId64, k->conf->retention_ms);
    const char *params[2] = {k->pipeline, ms};
    PQclear(PQexecParams(k->conn, k->app_prune, 2, NULL, params, NULL, NULL, 0));
}
