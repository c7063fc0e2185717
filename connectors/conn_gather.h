/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * conn_gather: the one way a sink that commits transactions (postgres, sqlite) gathers the
 * runtime's batches into larger transactions. The sink's write hands each batch here; the
 * batch is held (its rows stay valid until it is reported: rsql_io.h) and the held batches are
 * written together, by the sink's own write function, as ONE call over all their rows: once
 * they hold max_rows rows, once the first of them is interval_ms old (checked at each write),
 * or at flush (the runtime flushes when the sink's gather_rows rows are unreported, every
 * state.flush-interval while rows come, and when no row came for a moment).
 *
 * Delivery: each held batch is reported (the sink's delivery callback) only after the call
 * that wrote its rows returned: its results say, row by row, what was committed and what
 * failed. Nothing held is ever reported written before its transaction committed.
 *
 * Memory: everything a held row needs (its slot in the gathered row array, its result) is
 * reserved when its batch is accepted; when that fails, write returns RSQL_ERR_NOMEM and the
 * batch is not accepted (the runtime fails its rows, not loses them); writing the held rows
 * allocates nothing here.
 *
 * Failures of the sink's write function: a transient error (rsql_error_retriable) commits
 * nothing and keeps the held batches, in order; the batch whose write triggered it is refused
 * with the error (the runtime writes it again after a backoff, and each try writes the held
 * ones first), so a later batch never commits before an earlier one; flush tries again after
 * a backoff (100 ms doubling to 5 s) and, after 30 s of failures, reports the held rows with
 * the transient error (the runtime then retries them per errors.retry.*). Any other error
 * (out of memory included) fails every held row with it, reported.
 *
 * Source transactions: a row whose record is marked RSQL_REC_IN_TXN (rsql_io.h) is inside a
 * source transaction that a later row ends. The gatherer commits only up to the last row that
 * is not so marked (the cut); the rows after it stay held, across any number of writes and
 * flushes (held rows waiting for their transaction's end are no failure: flush says RSQL_OK),
 * until a row that ends their transaction arrives. A batch cut in two is reported once all its
 * rows are committed (its first rows are committed, with their positions, before that: a
 * restart resumes after them). Rows of a transaction that never ends in this run are never
 * reported: the next run reads them again from the stored position. Held rows are then not
 * bounded by max_rows: a source transaction is held whole.
 *
 * Threads: one gatherer per sink, used by the sink's write thread only.
 */
#ifndef RSQL_CONN_GATHER_H
#define RSQL_CONN_GATHER_H

#include "connectors/rsql_io.h"

/*
** The sink's writer of gathered rows: write rows[0, n) (in transactions of the sink's size,
** each with its exactly-once record) and set results[0, n) (zeroed on entry), one per row.
** RSQL_OK: every row's result is set (written, failed for good, or not written after a
** transient failure). Otherwise nothing was committed and err says why.
*/
typedef rsql_err_t (*rsql_gather_write_fn)(void *opaque, int n, const rsql_sink_row_t *rows,
                                           rsql_sink_result_t *results, rsql_error_t *err);

typedef struct rsql_gather_batch {
    uint64_t id;
    int n;
} rsql_gather_batch_t;

typedef struct rsql_gather {
    /* settings (rsql_gather_init) */
    int64_t max_rows;    /* write once this many rows are held */
    int64_t interval_ms; /* ... or once the first held one is this old (<= 0: only max_rows
                            and flush) */
    const char *what;    /* "postgres sink t": the start of messages (the sink's string) */
    rsql_gather_write_fn write;
    void *opaque;
    rsql_delivery_cb deliver;
    void *deliver_opaque;
    /* the held batches, in order, and their rows in one array */
    rsql_gather_batch_t *batches;
    int n_batches, batches_cap;
    rsql_sink_row_t *rows;
    int n_rows, rows_cap;
    rsql_sink_result_t *results; /* rows_cap of them */
    int results_cap;
    int n_done;       /* rows[0, n_done) are committed (results set): the first held batch's
                         first rows, when the cut fell inside it */
    int cut;          /* rows[n_done, cut) may be committed: cut is just past the last held row
                         not inside a source transaction (RSQL_REC_IN_TXN), or n_done */
    int64_t since_ms; /* when the first held batch was accepted */
    bool ending;      /* rsql_gather_release was called: waiting rows are reported at once */
    /* a transient failure of the held rows */
    bool failing;
    int64_t fail_since_ms, retry_at_ms, backoff_ms;
} rsql_gather_t;

/* Set g up (nothing held); what is borrowed and must outlive g. */
void rsql_gather_init(rsql_gather_t *g, int64_t max_rows, int64_t interval_ms, const char *what,
                      rsql_gather_write_fn write, void *opaque, rsql_delivery_cb deliver,
                      void *deliver_opaque);

/* Free g's arrays. Held batches are dropped unreported (never acked). */
void rsql_gather_deinit(rsql_gather_t *g);

/*
** The sink's write of a batch (rsql_sink_ops_t.write's contract): RSQL_OK = accepted, its
** delivery follows (perhaps within this call); an error = not accepted, no delivery comes
** (a transient one from writing the held rows, RSQL_ERR_NOMEM when its rows cannot be held).
*/
rsql_err_t rsql_gather_write(rsql_gather_t *g, uint64_t batch_id, int n,
                             const rsql_sink_row_t *rows, rsql_error_t *err);

/*
** The sink's flush: write the held rows now and report them. RSQL_OK when nothing is held any
** more; a transient error (err set) while held rows wait for their next try.
*/
rsql_err_t rsql_gather_flush(rsql_gather_t *g, rsql_error_t *err);

/* How many rows are held (not reported: committed ones of a batch cut in two included). */
static inline int rsql_gather_held(const rsql_gather_t *g)
{
    return g->n_rows;
}

/* How many held rows wait for the end of their source transaction (past the cut). */
static inline int rsql_gather_waiting(const rsql_gather_t *g)
{
    return g->n_rows - g->cut;
}

/*
** The run ends (rsql_sink_ops_t.release): commit the rows up to the cut, then report the rows
** that wait for their source transaction's end as RSQL_ERR_INTERRUPTED, not written; from now
** on rows that wait are so reported once the rows before them are committed (a commit that
** fails transiently keeps them all held: flush tries again as always, then releases). Returns
** how many were released now.
*/
int64_t rsql_gather_release(rsql_gather_t *g);

/*
** The runtime's gather_rows (rsql_sink_ops_t) for a sink that gathers max_rows: max_rows when
** it is in 1..1000000, else 0.
*/
int rsql_gather_rows(int64_t max_rows);

#endif
