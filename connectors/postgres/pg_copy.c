/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_copy: how the postgres sink writes the rows it gathered (pg_sink.c): COPY ... FROM
 * STDIN (text format) into the table, or into rsql_stage and then INSERT ... ON CONFLICT for
 * an upsert, with the exactly-once record (pg_applied.c) in the same transaction; retried
 * after a transient failure; after a permanent one, the failed row is found by writing the
 * rows again one by one under savepoints (one per record). A changelog goes through the
 * stage too, its deletes applied before the merge (see pg_sink.c).
 */
#include "config.h"
#include "base/rsql_log.h"
#include "base/rsql_value.h"
#include "connectors/postgres/pg_sink_int.h"
#include "connectors/rsql_conn_io.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rollback(rsql_sink_t *k)
{
    if (k->conn && PQstatus(k->conn) == CONNECTION_OK &&
        PQtransactionStatus(k->conn) != PQTRANS_IDLE) {
        PQclear(PQexec(k->conn, "ROLLBACK"));
    }
}

/* v as PostgreSQL's text input form (not escaped), appended to b. */
static void put_text(rsql_buf_t *b, const rsql_value_t *v)
{
    char tmp[RSQL_VALUE_TEXT_MAX];
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_putc(b, v->v.b ? 't' : 'f'); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_append(b, tmp, rsql_value_format_int(v->v.i, tmp)); break;
    case RSQL_TYPE_DOUBLE:
        rsql_buf_append(b, tmp, rsql_value_format_double(v->v.d, tmp));
        break;
    case RSQL_TYPE_VARCHAR: rsql_buf_append(b, v->v.s.p ? v->v.s.p : "", v->v.s.len); break;
    case RSQL_TYPE_BYTES: {
        static const char hex[] = "0123456789abcdef";
        const uint8_t *p = (const uint8_t *)v->v.s.p;
        rsql_buf_puts(b, "\\x");
        for (size_t i = 0; i < v->v.s.len; i++) {
            rsql_buf_putc(b, hex[p[i] >> 4]);
            rsql_buf_putc(b, hex[p[i] & 15]);
        }
        break;
    }
    case RSQL_TYPE_TIMESTAMP:
        rsql_buf_append(b, tmp, rsql_value_format_timestamp(v->v.ts, tmp));
        rsql_buf_puts(b, "+00");
        break;
    default: rsql_value_format(v, b); break;
    }
}

/*
** One row as a line of COPY's text format: tab-separated, \N for NULL, escaped; into the
** stage, with its row number (and del >= 0: whether it deletes its key, rsql_del).
*/
static void put_copy_line(rsql_sink_t *k, const rsql_value_t *vals, int seq, int del,
                          rsql_buf_t *out)
{
    for (int i = 0; i < k->n; i++) {
        const rsql_value_t *v = &vals[i];
        if (i) {
            rsql_buf_putc(out, '\t');
        }
        if (v->is_null || v->type == RSQL_TYPE_NULL) {
            rsql_buf_puts(out, "\\N");
            continue;
        }
        const char *d;
        size_t len;
        if (v->type == RSQL_TYPE_VARCHAR) { /* its text as it is: escaped from the value */
            d = v->v.s.p ? v->v.s.p : "";
            len = v->v.s.p ? v->v.s.len : 0;
        } else {
            rsql_buf_reset(&k->line);
            put_text(&k->line, v);
            d = k->line.data ? k->line.data : "";
            len = k->line.len;
        }
        /* escaped: the runs between special characters appended whole */
        size_t run = 0;
        for (size_t j = 0; j < len; j++) {
            const char *esc;
            switch (d[j]) {
            case '\\': esc = "\\\\"; break;
            case '\t': esc = "\\t"; break;
            case '\n': esc = "\\n"; break;
            case '\r': esc = "\\r"; break;
            default: continue;
            }
            rsql_buf_append(out, d + run, j - run);
            rsql_buf_puts(out, esc);
            run = j + 1;
        }
        rsql_buf_append(out, d + run, len - run);
    }
    if (k->n_key) { /* rsql_stage.rsql_seq: the last row of a key wins */
        char num[RSQL_VALUE_TEXT_MAX + 1];
        num[0] = '\t';
        rsql_buf_append(out, num, 1 + rsql_value_format_int(seq, num + 1));
    }
    if (del >= 0) {
        rsql_buf_puts(out, del ? "\tt" : "\tf"); /* rsql_stage.rsql_del */
    }
    rsql_buf_putc(out, '\n');
}

/*
** Send rows[from, to) (but the ones k->dup marks) as COPY data and end it. RSQL_OK, or out of
** memory (the COPY is ended with an error: the transaction fails). A failed send is told by
** the COPY's result.
*/
static rsql_err_t send_rows(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                            bool with_del, rsql_error_t *err)
{
    rsql_buf_t data = RSQL_BUF_INIT;
    for (int i = from; i < to; i++) {
        int op = k->changelog ? rsql_io_change_op(rows, i, to, k->n_key, k->key) : RSQL_IO_UPSERT;
        if (!k->dup[i] && op != RSQL_IO_SKIP) {
            put_copy_line(k, rows[i].values, i, with_del ? op == RSQL_IO_DELETE : -1, &data);
        }
        if ((data.len >= 256 * 1024 || i == to - 1) && data.len > 0) {
            if (data.oom) {
                PQputCopyEnd(k->conn, "out of memory");
                rsql_buf_deinit(&data);
                return rsql_error_nomem(err);
            }
            if (PQputCopyData(k->conn, data.data, (int)data.len) != 1) {
                break; /* the result says why */
            }
            rsql_buf_reset(&data);
        }
    }
    rsql_buf_deinit(&data);
    PQputCopyEnd(k->conn, NULL);
    return RSQL_OK;
}

/* Does a changelog chunk rows[from, to) delete any key (its stage delete must run)? */
static bool chunk_deletes(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to)
{
    for (int i = from; k->changelog && i < to; i++) {
        if (rsql_io_change_op(rows, i, to, k->n_key, k->key) == RSQL_IO_DELETE) {
            return true;
        }
    }
    return false;
}

/*
** The transaction of a -T row rows[from] for a sink that stores positions, in one round trip:
** q is "BEGIN; INSERT INTO rocketsql_positions ...; " (freed here), to which "DELETE FROM t;
** COMMIT" is added.
*/
static rsql_err_t clear_chunk_positions(rsql_sink_t *k, const rsql_sink_row_t *rows, int from,
                                        rsql_buf_t *q, bool *commit_lost, rsql_error_t *err)
{
    rsql_err_t rc = RSQL_OK;
    rsql_buf_printf(q, "%s; COMMIT", k->clear_sql);
    if (q->oom) {
        rsql_buf_deinit(q);
        return rsql_error_nomem(err);
    }
    PGresult *r = PQexec(k->conn, rsql_buf_str(q)); /* the last statement's result */
    rsql_buf_deinit(q);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK || strcmp(PQcmdStatus(r), "COMMIT") != 0) {
        *commit_lost = PQstatus(k->conn) == CONNECTION_BAD;
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot delete every row for "
                                             "%s",
                            k->table,
                            rows[from].rec && rows[from].rec->ident ? rows[from].rec->ident
                                                                    : "(unknown)");
    }
    PQclear(r);
    if (rc != RSQL_OK) {
        rollback(k);
    }
    return rc;
}

/*
** The transaction of copy_chunk for a sink that stores positions, in one round trip: one
** query string "BEGIN; INSERT INTO rocketsql_positions ... ON CONFLICT ...; COPY ... FROM
** STDIN; [the upsert's merge;] COMMIT" (the positions are known before the rows go: the last
** offset of each partition among them), then the COPY data; the server runs the statements
** after the COPY once its data ended, and skips them after an error. A -T row (a chunk of its
** own) is "BEGIN; INSERT INTO rocketsql_positions ...; DELETE FROM t; COMMIT" instead.
*/
static rsql_err_t copy_chunk_positions(rsql_sink_t *k, const rsql_sink_row_t *rows, int from,
                                       int to, bool *commit_lost, rsql_error_t *err)
{
    rsql_buf_t q = RSQL_BUF_INIT;
    rsql_buf_puts(&q, "BEGIN; ");
    rsql_err_t rc = rsql_pg__positions_sql(k, rows, from, to, &q, err);
    if (rc != RSQL_OK) {
        rsql_buf_deinit(&q);
        return rc;
    }
    if (k->changelog && rows[from].kind == RSQL_ROW_CLEAR) { /* to == from + 1 */
        return clear_chunk_positions(k, rows, from, &q, commit_lost, err);
    }
    bool del = chunk_deletes(k, rows, from, to);
    rsql_buf_puts(&q, del ? k->copy_del_sql : k->copy_sql);
    rsql_buf_puts(&q, "; ");
    if (del) {
        rsql_buf_puts(&q, k->stage_delete_sql);
        rsql_buf_puts(&q, "; ");
    }
    if (k->n_key) {
        rsql_buf_puts(&q, del ? k->merge_del_sql : k->merge_sql);
        rsql_buf_puts(&q, "; ");
    }
    rsql_buf_puts(&q, "COMMIT");
    if (q.oom) {
        rsql_buf_deinit(&q);
        return rsql_error_nomem(err);
    }
    PGresult *r = PQexec(k->conn, rsql_buf_str(&q));
    rsql_buf_deinit(&q);
    if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot start COPY", k->table);
        PQclear(r);
        while ((r = PQgetResult(k->conn))) {
            PQclear(r);
        }
        rollback(k);
        return rc;
    }
    PQclear(r);
    rc = send_rows(k, rows, from, to, del, err);
    /* the COPY's result, the merge's, the COMMIT's: the first failure says why */
    bool committed = false;
    while ((r = PQgetResult(k->conn))) {
        if (rc == RSQL_OK && PQresultStatus(r) != PGRES_COMMAND_OK) {
            rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: COPY failed", k->table);
        } else if (rc == RSQL_OK && strcmp(PQcmdStatus(r), "COMMIT") == 0) {
            committed = true;
        }
        PQclear(r);
    }
    if (rc == RSQL_OK && !committed) {
        *commit_lost = PQstatus(k->conn) == CONNECTION_BAD;
        rc = rsql_pg__error(k->conn, NULL, err, "postgres sink %s: cannot commit", k->table);
    } else if (rc != RSQL_OK && PQstatus(k->conn) == CONNECTION_BAD) {
        *commit_lost = true; /* sent in full, the answer lost: it may have been committed */
    }
    if (rc != RSQL_OK) {
        rollback(k);
    }
    return rc;
}

/*
** The end of the transaction that starts at rows[from], before (to) as rsql_io_chunk_end made
** it, cut at a -T row: a -T row is a transaction of its own (DELETE FROM t between the COPY
** of the rows before it and of the rows after it), so a chunk ends before one.
*/
static int clear_cut(const rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to)
{
    if (!k->changelog) {
        return to;
    }
    if (rows[from].kind == RSQL_ROW_CLEAR) {
        return from + 1;
    }
    for (int i = from + 1; i < to; i++) {
        if (rows[i].kind == RSQL_ROW_CLEAR) {
            return i;
        }
    }
    return to;
}

/*
** One transaction: COPY rows[from, to) and store their positions. On failure err says why
** (PostgreSQL's message) and the transaction is rolled back. *commit_lost = the failure was
** the COMMIT's answer (the transaction may have been committed).
*/
static rsql_err_t copy_chunk(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                             bool *commit_lost, rsql_error_t *err)
{
    rsql_err_t rc;
    *commit_lost = false;
    if (!k->conn || PQstatus(k->conn) != CONNECTION_OK) {
        if ((rc = rsql_pg__sink_connect(k, err)) != RSQL_OK) {
            return rc;
        }
    }
    if (k->n_key && !k->staged) { /* outside the transaction, so a rollback keeps it */
        if ((rc = rsql_pg__exec(k, k->stage_sql, "cannot create the staging table", err)) !=
            RSQL_OK) {
            return rc;
        }
        k->staged = true;
    }
    for (int i = from; i < to; i++) {
        k->dup[i] = false;
    }
    bool clear = k->changelog && rows[from].kind == RSQL_ROW_CLEAR; /* to == from + 1 */
    if (!k->by_ident) {
        return copy_chunk_positions(k, rows, from, to, commit_lost, err);
    }
    if ((rc = rsql_pg__exec(k, "BEGIN", "cannot begin a transaction", err)) != RSQL_OK) {
        return rc;
    }
    if ((rc = rsql_pg__mark_applied(k, rows, from, to, err)) != RSQL_OK) {
        rollback(k);
        return rc;
    }
    if (clear && k->dup[from]) { /* applied by an earlier delivery */
        return rsql_pg__exec(k, "COMMIT", "cannot commit", err);
    }
    if (clear) {
        rc = rsql_pg__exec(k, k->clear_sql, "cannot delete every row", err);
        if (rc == RSQL_OK) {
            PGresult *r = PQexec(k->conn, "COMMIT");
            if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
                *commit_lost = PQstatus(k->conn) == CONNECTION_BAD;
                rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot commit",
                                    k->table);
            }
            PQclear(r);
        }
        if (rc != RSQL_OK) {
            rollback(k);
        }
        return rc;
    }
    bool del = chunk_deletes(k, rows, from, to);
    PGresult *r = PQexec(k->conn, del ? k->copy_del_sql : k->copy_sql);
    if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot start COPY", k->table);
        PQclear(r);
        rollback(k);
        return rc;
    }
    PQclear(r);
    rsql_error_t oom;
    rsql_error_clear(&oom);
    bool out_of_mem = send_rows(k, rows, from, to, del, &oom) != RSQL_OK;
    r = PQgetResult(k->conn);
    if (out_of_mem) {
        rc = rsql_error_nomem(err);
    } else if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: COPY failed", k->table);
    }
    PQclear(r);
    while ((r = PQgetResult(k->conn))) {
        PQclear(r);
    }
    if (rc == RSQL_OK && del) {
        rc = rsql_pg__exec(k, k->stage_delete_sql, "cannot delete the rows", err);
    }
    if (rc == RSQL_OK && k->n_key) {
        rc = rsql_pg__exec(k, del ? k->merge_del_sql : k->merge_sql, "cannot upsert the rows",
                           err);
    }
    if (rc == RSQL_OK) {
        r = PQexec(k->conn, "COMMIT");
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            *commit_lost = PQstatus(k->conn) == CONNECTION_BAD;
            rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot commit", k->table);
        }
        PQclear(r);
    }
    if (rc != RSQL_OK) {
        rollback(k);
    }
    return rc;
}

/* The text parameters of vals' columns cols[0, n) (all columns when cols is NULL). */
static void row_params(const rsql_value_t *vals, const int *cols, int n, rsql_buf_t *bufs,
                       const char **params)
{
    for (int c = 0; c < n; c++) {
        const rsql_value_t *v = &vals[cols ? cols[c] : c];
        rsql_buf_reset(&bufs[c]);
        if (v->is_null || v->type == RSQL_TYPE_NULL) {
            params[c] = NULL;
            continue;
        }
        put_text(&bufs[c], v);
        params[c] = rsql_buf_str(&bufs[c]);
    }
}

/*
** After a permanent failure of rows[from, to): write them again one by one (a change by its
** kind) in one transaction, under a savepoint per record (the rows of a record succeed or
** fail together), up to the first record that fails; commit the ones before it with their
** positions. Returns the index of the failed record's first row (its error in *cause), or
** to when all went in (the failure was not a row's), or -1 when this transaction failed as a
** whole (err).
*/
static int find_bad_row(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                        rsql_error_t *cause, rsql_error_t *err)
{
    const char **params = rsql_calloc((size_t)k->n + 1, sizeof *params);
    rsql_buf_t *vals = rsql_calloc((size_t)k->n + 1, sizeof *vals);
    int bad = to;
    if (!params || !vals) {
        rsql_free(params);
        rsql_free(vals);
        rsql_error_nomem(err);
        return -1;
    }
    if (rsql_pg__exec(k, "BEGIN", "cannot begin a transaction", err) != RSQL_OK) {
        bad = -1;
    }
    for (int rs = from, re; bad == to && rs < to; rs = re) {
        re = rsql_io_chunk_end(rows, rs, 1, to); /* the record's rows: [rs, re) */
        PQclear(PQexec(k->conn, "SAVEPOINT rsql_row"));
        if (k->by_ident && rsql_pg__mark_applied(k, rows, rs, re, err) != RSQL_OK) {
            bad = -1;
            break;
        }
        for (int i = rs; bad == to && i < re; i++) {
            int op = k->changelog ? rsql_io_change_op(rows, i, re, k->n_key, k->key)
                                  : RSQL_IO_UPSERT;
            if (k->dup[i] || op == RSQL_IO_SKIP) {
                continue; /* applied before, or left to the upsert after it */
            }
            PGresult *r;
            if (op == RSQL_IO_CLEAR) {
                r = PQexec(k->conn, k->clear_sql);
            } else if (op == RSQL_IO_DELETE) {
                row_params(rows[i].values, k->key, k->n_key, vals, params);
                r = PQexecParams(k->conn, k->delete_sql, k->n_key, NULL, params, NULL, NULL, 0);
            } else {
                row_params(rows[i].values, NULL, k->n, vals, params);
                r = PQexecParams(k->conn, k->insert_sql, k->n, NULL, params, NULL, NULL, 0);
            }
            if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
                rsql_pg__error(k->conn, r, cause, "postgres sink %s: cannot %s the row of %s",
                               k->table, op == RSQL_IO_DELETE ? "delete" : "insert",
                               rows[i].rec && rows[i].rec->ident ? rows[i].rec->ident
                                                                 : "(unknown)");
                bad = rsql_error_retriable(cause) ? -1 : rs;
                if (bad < 0) {
                    rsql_error_copy(err, cause);
                }
            }
            PQclear(r);
        }
    }
    for (int c = 0; c < k->n; c++) {
        rsql_buf_deinit(&vals[c]);
    }
    rsql_free(vals);
    rsql_free(params);
    if (bad >= from) {
        if (bad < to) { /* undo the failed record; when none failed, every row stays */
            PQclear(PQexec(k->conn, "ROLLBACK TO SAVEPOINT rsql_row"));
        }
        if ((!k->by_ident && rsql_pg__store_positions(k, rows, from, bad, err) != RSQL_OK) ||
            rsql_pg__exec(k, "COMMIT", "cannot commit", err) != RSQL_OK) {
            bad = -1;
        }
    }
    if (bad < 0) {
        rollback(k);
    }
    return bad;
}

/*
** See pg_sink_int.h. A row that fails permanently is found by find_bad_row (the rows before
** it are committed); under errors.tolerance 'all' its result says why (it is dead-lettered)
** and the rows after it are written here, in order, in the following transactions: never
** handed back to be written again after later batches, which would store a position behind
** the one already stored, and behind rows committed with it. Under 'none' it stops there.
*/
rsql_err_t rsql_pg__write_rows(void *opaque, int n, const rsql_sink_row_t *rows,
                               rsql_sink_result_t *results, rsql_error_t *err)
{
    rsql_sink_t *k = opaque;
    int committed = 0; /* rows[0, committed) have their result: written, or failed for good */
    int bad = -1;      /* under 'none': the row that failed permanently, if any */
    int n_bad = 0;     /* rows that failed permanently */
    rsql_error_t cause;
    rsql_error_clear(&cause);
    rsql_err_t rc;
    k->results = results;
    if (n > k->dup_cap) {
        bool *d = rsql_realloc(k->dup, (size_t)n * sizeof *d);
        if (!d) {
            return rsql_error_nomem(err);
        }
        k->dup = d;
        k->dup_cap = n;
    }
    memset(k->dup, 0, (size_t)n * sizeof *k->dup);
    memset(k->results, 0, (size_t)n * sizeof *k->results);
    while (committed < n) {
        int to = clear_cut(k, rows, committed,
                           rsql_io_chunk_end(rows, committed, k->conf->max_rows, n));
        for (int64_t attempt = 0;; attempt++) {
            bool lost = false;
            rsql_error_clear(&cause);
            rc = copy_chunk(k, rows, committed, to, &lost, &cause);
            if (rc != RSQL_OK && lost && !k->by_ident && rsql_pg__chunk_committed(k, rows, committed, to)) {
                rc = RSQL_OK;
            }
            if (rc == RSQL_OK || !rsql_error_retriable(&cause) ||
                attempt >= k->conf->max_retries) {
                break;
            }
            rsql_log(RSQL_LOG_WARN, "postgres", "%s (writing it again)", cause.msg);
            if (k->conn && PQstatus(k->conn) == CONNECTION_BAD) {
                rsql_error_t e;
                rsql_error_clear(&e);
                rsql_pg__sink_connect(k, &e);
            }
        }
        if (rc == RSQL_OK) {
            committed = to;
            continue;
        }
        if (rsql_error_retriable(&cause)) {
            break;
        }
        /* a permanent failure: find the row (the rows before it are committed) */
        rsql_error_t whole;
        rsql_error_clear(&whole);
        rsql_error_t row_cause;
        rsql_error_clear(&row_cause);
        int b = find_bad_row(k, rows, committed, to, &row_cause, &whole);
        if (b == to) { /* no row failed alone: all of them were committed one by one */
            rsql_error_clear(&cause);
            committed = to;
            continue;
        }
        if (b < 0) {
            if (whole.code != RSQL_OK) {
                rsql_error_clear(&cause);
                rsql_error_copy(&cause, &whole);
            }
            break;
        }
        int be = rsql_io_chunk_end(rows, b, 1, to); /* the failed record's rows: [b, be) */
        for (int i = b; i < be; i++) {
            n_bad++;
            k->results[i].code = row_cause.code;
            snprintf(k->results[i].msg, sizeof k->results[i].msg, "%.255s", row_cause.msg);
        }
        rsql_error_clear(&cause);
        if (!k->tolerate_all) {
            rsql_error_copy(&cause, &row_cause);
            committed = b;
            bad = b;
            break;
        }
        committed = be; /* dead-lettered: go on with the rows after it */
    }
    if (!k->tolerate_all && cause.code != RSQL_OK && !rsql_error_retriable(&cause)) {
        rsql_error_copy(&k->poisoned, &cause);
    }
    if (committed == 0 && n_bad == 0 && cause.code != RSQL_OK) {
        rsql_error_copy(err, &cause);
        return cause.code;
    }
    int n_dup = 0;
    for (int i = 0; i < committed; i++) {
        if (k->dup[i] && k->results[i].code == RSQL_OK) {
            snprintf(k->results[i].meta, sizeof k->results[i].meta, "already applied");
            n_dup++;
        }
    }
    if (n_dup) {
        rsql_log(RSQL_LOG_INFO, "postgres",
                 "postgres sink %s: %d redelivered messages were applied before: acked, not "
                 "written again",
                 k->table, n_dup);
    }
    if (committed > n_bad) {
        rsql_pg__prune_applied(k);
    }
    /* the rest: under 'none' the failed row and the ones after it fail with its error;
       after a transient failure they are written again (the runtime retries them) */
    for (int i = committed; i < n; i++) {
        if (i == bad) {
            continue;
        }
        rsql_sink_result_t *r = &k->results[i];
        r->code = cause.code;
        snprintf(r->msg, sizeof r->msg, "%.255s", cause.msg);
    }
    return RSQL_OK;
}
