/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * conn_gather: gathering a sink's batches into larger transactions (conn_gather.h).
 */
#include "config.h"
#include "connectors/conn_gather.h"
#include "connectors/rsql_conn_io.h"
#include "base/rsql_backoff.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <stdio.h>
#include <string.h>

#define GIVE_UP_MS 30000    /* flush reports held rows failing transiently this long */
#define BACKOFF_FIRST_MS 100 /* flush's first wait between tries of held rows */
#define BACKOFF_MAX_MS 5000  /* and its longest */

void rsql_gather_init(rsql_gather_t *g, int64_t max_rows, int64_t interval_ms, const char *what,
                      rsql_gather_write_fn write, void *opaque, rsql_delivery_cb deliver,
                      void *deliver_opaque)
{
    memset(g, 0, sizeof *g);
    g->max_rows = max_rows > 0 ? max_rows : 1;
    g->interval_ms = interval_ms;
    g->what = what ? what : "sink";
    g->write = write;
    g->opaque = opaque;
    g->deliver = deliver;
    g->deliver_opaque = deliver_opaque;
}

void rsql_gather_deinit(rsql_gather_t *g)
{
    rsql_free(g->batches);
    rsql_free(g->rows);
    rsql_free(g->results);
    g->batches = NULL;
    g->rows = NULL;
    g->results = NULL;
    g->n_batches = g->n_rows = g->n_done = g->cut = 0;
}

int rsql_gather_rows(int64_t max_rows)
{
    return max_rows > 0 && max_rows <= 1000000 ? (int)max_rows : 0;
}

/* Room for one more batch of n rows (slot, rows, results), or out of memory (err set). */
static rsql_err_t reserve(rsql_gather_t *g, int n, rsql_error_t *err)
{
    if (g->n_batches == g->batches_cap) {
        int cap = g->batches_cap ? 2 * g->batches_cap : 8;
        rsql_gather_batch_t *b = rsql_realloc(g->batches, (size_t)cap * sizeof *b);
        if (!b) {
            return rsql_error_nomem(err);
        }
        g->batches = b;
        g->batches_cap = cap;
    }
    int64_t need = (int64_t)g->n_rows + n;
    if (need > g->rows_cap) {
        int64_t cap = g->rows_cap ? 2 * (int64_t)g->rows_cap : 64;
        while (cap < need) {
            cap *= 2;
        }
        if (cap > 0x3fffffff) {
            return rsql_error_nomem(err);
        }
        rsql_sink_row_t *r = rsql_realloc(g->rows, (size_t)cap * sizeof *r);
        if (!r) {
            return rsql_error_nomem(err);
        }
        g->rows = r;
        g->rows_cap = (int)cap;
    }
    return rsql_io_results_reserve(&g->results, &g->results_cap, g->rows_cap, err);
}

/*
** Report each held batch whose rows are all committed (rows[0, n_done)), its slice of
** g->results, and hold only the others (their rows and results moved to the front).
*/
static void report_done(rsql_gather_t *g)
{
    int off = 0, b = 0;
    for (; b < g->n_batches && off + g->batches[b].n <= g->n_done; b++) {
        if (g->deliver) {
            g->deliver(g->deliver_opaque, g->batches[b].id, g->batches[b].n, g->results + off);
        }
        off += g->batches[b].n;
    }
    if (b == 0) {
        return;
    }
    g->n_batches -= b;
    g->n_rows -= off;
    g->n_done -= off;
    g->cut -= off;
    if (g->n_batches > 0) {
        memmove(g->batches, g->batches + b, (size_t)g->n_batches * sizeof *g->batches);
        memmove(g->rows, g->rows + off, (size_t)g->n_rows * sizeof *g->rows);
        memmove(g->results, g->results + off, (size_t)g->n_done * sizeof *g->results);
        g->since_ms = rsql_now_ms();
    }
}

/* The rows up to the cut not committed yet (rows[n_done, cut)): code and msg from e. */
static void fail_held(rsql_gather_t *g, const rsql_error_t *e)
{
    memset(g->results + g->n_done, 0, (size_t)(g->cut - g->n_done) * sizeof *g->results);
    for (int i = g->n_done; i < g->cut; i++) {
        g->results[i].code = e->code;
        snprintf(g->results[i].msg, sizeof g->results[i].msg, "%.255s", e->msg);
    }
    g->n_done = g->cut;
    g->failing = false;
    g->backoff_ms = 0;
}

/*
** Write the held rows up to the cut with the sink's function, and report the batches now all
** committed. RSQL_OK: written (the rows that failed too, their results say so), or nothing to
** write (the rows held wait for their source transaction's end). A transient error: nothing
** committed, the batches stay held (g->failing), err says why.
*/
static rsql_err_t commit_held(rsql_gather_t *g, rsql_error_t *err)
{
    int n = g->cut - g->n_done;
    if (n <= 0) {
        report_done(g); /* batches of no row */
        return RSQL_OK;
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_sink_result_t *res = g->results + g->n_done;
    memset(res, 0, (size_t)n * sizeof *res);
    rsql_err_t rc = g->write(g->opaque, n, g->rows + g->n_done, res, &e);
    if (rc != RSQL_OK && !e.code) {
        rsql_error_set(&e, rc, RSQL_NOPOS, "%s: %s", g->what, rsql_err_str(rc));
    }
    if (rc != RSQL_OK && rsql_error_retriable(&e)) {
        int64_t now = rsql_now_ms();
        if (!g->failing) {
            g->failing = true;
            g->fail_since_ms = now;
            g->backoff_ms = 0;
        }
        g->backoff_ms = rsql_backoff_next(g->backoff_ms, BACKOFF_FIRST_MS, BACKOFF_MAX_MS);
        g->retry_at_ms = now + g->backoff_ms;
        rsql_error_copy(err, &e);
        return rc;
    }
    if (rc != RSQL_OK) { /* permanent, and no row of it to blame: every row written fails */
        fail_held(g, &e);
    }
    g->n_done = g->cut;
    g->failing = false;
    g->backoff_ms = 0;
    report_done(g);
    return RSQL_OK;
}

/*
** Once everything up to the cut is committed (n_done == cut): report the rows that wait for
** their source transaction's end as RSQL_ERR_INTERRUPTED, not written. Their number.
*/
static int64_t release_waiting(rsql_gather_t *g)
{
    if (g->n_done != g->cut) {
        return 0; /* rows before the cut wait to be written again: they go first */
    }
    int64_t n = g->n_rows - g->n_done;
    for (int i = g->n_done; i < g->n_rows; i++) {
        rsql_sink_result_t *r = &g->results[i];
        memset(r, 0, sizeof *r);
        r->code = RSQL_ERR_INTERRUPTED;
        snprintf(r->msg, sizeof r->msg,
                 "%s: not written: its source transaction had not ended when the run stopped",
                 g->what);
    }
    g->n_done = g->cut = g->n_rows;
    report_done(g);
    return n;
}

int64_t rsql_gather_release(rsql_gather_t *g)
{
    g->ending = true;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (commit_held(g, &e) != RSQL_OK) {
        return 0; /* held: the flushes try again, and release once it went through */
    }
    return release_waiting(g);
}

rsql_err_t rsql_gather_write(rsql_gather_t *g, uint64_t batch_id, int n,
                             const rsql_sink_row_t *rows, rsql_error_t *err)
{
    rsql_err_t rc;
    /* held rows that failed, or that this batch would push past max_rows, go first */
    if (g->n_batches > 0 && (g->failing || g->n_rows + (int64_t)n > g->max_rows)) {
        if ((rc = commit_held(g, err)) != RSQL_OK) {
            return rc; /* this batch is not accepted: the runtime writes it again */
        }
    }
    if ((rc = reserve(g, n, err)) != RSQL_OK) {
        return rc; /* not accepted: its rows fail (out of memory), none is lost */
    }
    int64_t now = rsql_now_ms();
    if (g->n_batches == 0) {
        g->since_ms = now;
    }
    g->batches[g->n_batches++] = (rsql_gather_batch_t){batch_id, n};
    memcpy(g->rows + g->n_rows, rows, (size_t)n * sizeof *rows);
    int cut = g->cut;
    for (int i = n - 1; i >= 0; i--) { /* the last row that ends its source transaction */
        if (!rows[i].rec || !(rows[i].rec->flags & RSQL_REC_IN_TXN)) {
            g->cut = g->n_rows + i + 1;
            break;
        }
    }
    g->n_rows += n;
    if (g->n_rows >= g->max_rows || (g->interval_ms > 0 && now - g->since_ms >= g->interval_ms)) {
        if ((rc = commit_held(g, err)) != RSQL_OK) {
            g->n_batches--; /* not accepted after all: the runtime writes it again */
            g->n_rows -= n;
            g->cut = cut;
            return rc;
        }
    }
    if (g->ending) {
        rsql_error_t e;
        rsql_error_clear(&e);
        if (commit_held(g, &e) == RSQL_OK) { /* else flush tries again */
            (void)release_waiting(g); /* the run ends: no row will end their transaction */
        }
    }
    return RSQL_OK;
}

rsql_err_t rsql_gather_flush(rsql_gather_t *g, rsql_error_t *err)
{
    if (g->cut == g->n_done) {
        if (g->ending) {
            (void)release_waiting(g);
        }
        report_done(g); /* batches of no row */
        return RSQL_OK; /* nothing held, or only rows waiting for their transaction's end */
    }
    int64_t now = rsql_now_ms();
    if (g->failing && now < g->retry_at_ms) {
        return rsql_error_set(err, RSQL_ERR_BUSY, RSQL_NOPOS,
                              "%s: %d rows wait to be written again", g->what,
                              g->cut - g->n_done);
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = commit_held(g, &e);
    if (rc != RSQL_OK && g->failing && now - g->fail_since_ms >= GIVE_UP_MS) {
        rsql_log(RSQL_LOG_WARN, "sink", "%s (for %d s: reported to be retried)", e.msg,
                 GIVE_UP_MS / 1000);
        fail_held(g, &e);
        report_done(g);
    }
    if (rc != RSQL_OK) {
        rsql_error_copy(err, &e);
    } else if (g->ending) {
        (void)release_waiting(g);
    }
    return rc;
}
