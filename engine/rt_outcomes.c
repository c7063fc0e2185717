/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Outcomes, on the worker thread: every record of a batch gets exactly one
 * outcome (written, filtered, dead-lettered, failed) here (a window's late row: dead-lettered,
 * or written once its dead letter and its rows are), from the
 * transform stage's results and the sink's delivery reports (deliver_cb,
 * which may run on any thread, only posts them to the worker queue). It
 * resolves records, tells the source (commit_record) and the offset
 * tracker, and hands failed rows to the dead-letter path. It must not
 * block or wait for a stage, and it never frees a batch before every one
 * of its records has its outcome.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char aborted_msg[] = "aborted: the pipeline stopped after an earlier failure";

/* ---- outcomes (worker) */

/* Apply the completions gathered in p->done to the tracker, under one lock. @locality worker */
static void done_flush(rsql_pipeline_t *p)
{
    if (p->done_n == 0) {
        return;
    }
    pthread_mutex_lock(&p->track_lock);
    for (int i = 0; i < p->done_n; i++) {
        rsql_offtrack_done(p->track, p->done[i].partition, p->done[i].ticket);
    }
    pthread_mutex_unlock(&p->track_lock);
    p->done_n = 0;
}

/* Gather the tracker's completions from now on (to done_end). @locality worker */
static void done_begin(rsql_pipeline_t *p)
{
    p->done_defer = true;
}

/* Apply what was gathered since done_begin, and complete records one by one again. */
static void done_end(rsql_pipeline_t *p)
{
    done_flush(p);
    p->done_defer = false;
}

/*
** Report a record's outcome. See pipeline_int.h.
*/
void rsql_pipeline__resolve(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx,
                            const rsql_outcome_t *o)
{
    if (ib->resolved[idx]) {
        return; /* never twice */
    }
    if (ib->rows_left && o->kind == RSQL_OUTCOME_WRITTEN &&
        (ib->rows_left[idx] == RT_ROWS_FAILING || --ib->rows_left[idx] > 0)) {
        /* a record of several rows is written once all its kept rows are, and not at all
           once one of them failed (its outcome is that failure's) */
        return;
    }
    ib->resolved[idx] = 1;
    rsql_record_t *rec = &ib->b->recs[idx];
    /* a tick (RSQL_REC_TICK) is the runtime's: no source record to commit, nothing counted */
    bool tick = (rec->flags & RSQL_REC_TICK) != 0;
    if (!p->conf.preview && p->conf.src_ops->commit_record && !tick) {
        p->conf.src_ops->commit_record(p->src, rec, o);
    }
    switch (tick ? -1 : (int)o->kind) {
    case RSQL_OUTCOME_WRITTEN:
        p->written++;
        break;
    case RSQL_OUTCOME_FILTERED:
        p->filtered++;
        break;
    case RSQL_OUTCOME_DEAD_LETTERED:
        p->dead_lettered++;
        break;
    case RSQL_OUTCOME_FAILED:
        p->failed++;
        break;
    }
    if (tick && o->kind != RSQL_OUTCOME_FAILED) {
        /* its state changes (the windows it gave, deleted) are those of its lane's position:
           saved again with them at the next checkpoint */
        pthread_mutex_lock(&p->track_lock);
        rsql_offtrack_mark_dirty(p->track, rec->partition);
        pthread_mutex_unlock(&p->track_lock);
    }
    if (o->kind != RSQL_OUTCOME_FAILED && ib->registered[idx]) {
        if (p->done_defer) {
            /* the ticket and partition are values: they outlive ib, freed below */
            if (p->done_n == (int)(sizeof p->done / sizeof p->done[0])) {
                done_flush(p);
            }
            p->done[p->done_n].partition = rec->partition;
            p->done[p->done_n].ticket = ib->tickets[idx];
            p->done_n++;
        } else {
            pthread_mutex_lock(&p->track_lock);
            rsql_offtrack_done(p->track, rec->partition, ib->tickets[idx]);
            pthread_mutex_unlock(&p->track_lock);
        }
    }
    if (tick) {
        atomic_fetch_add(&p->ticks_done, 1); /* whatever its outcome: the seals after it may go */
    }
    if (--ib->pending == 0) {
        int n = ib->b->n;
        int64_t bytes = ib->bytes;
        rsql_pipeline__free_inbatch(ib);
        pthread_mutex_lock(&p->lock);
        p->in_flight -= n;
        p->in_flight_bytes -= bytes;
        p->live--;
        if (p->credit_waiting && rsql_pipeline__credit_back(p)) {
            pthread_cond_broadcast(&p->credit_cv);
        }
        pthread_mutex_unlock(&p->lock);
    }
}

/*
** A failed record: dead-letter it (tolerance all) or fail it and the run. Out of memory is
** never dead-lettered: the record was not processed, so it fails the run like a job error.
*/
static void record_error(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx, const char *stage,
                         const rsql_error_t *cause)
{
    if (ib->rows_left) { /* another row of the same record failed first: that is its outcome */
        if (ib->resolved[idx] || ib->rows_left[idx] == RT_ROWS_FAILING) {
            return;
        }
        ib->rows_left[idx] = RT_ROWS_FAILING;
    }
    char wbuf[512];
    rsql_error_t e;
    rsql_error_clear(&e);
    const char *where = rsql_pipeline__where(p, &ib->b->recs[idx], wbuf, sizeof wbuf);
    rsql_error_set(&e, cause->code ? cause->code : RSQL_ERR_INTERNAL, RSQL_NOPOS,
                   "%s error at %s: %s", stage, where, cause->msg);
    if (p->conf.tolerate_all && e.code != RSQL_ERR_NOMEM) {
        rsql_pipeline__dlq_add(p, ib, idx, stage, &e);
        return;
    }
    if (strcmp(stage, "decode") == 0) {
        rsql_error_t h = e; /* the run stops at a bad record: say how to go on past them */
        rsql_error_clear(&e);
        rsql_error_set(&e, h.code, RSQL_NOPOS, "%s%s", h.msg, RSQL_PIPELINE_TOLERANCE_HINT);
    }
    rsql_pipeline__fail(p, &e, strcmp(stage, "sink") == 0);
    rsql_outcome_t o = {RSQL_OUTCOME_FAILED, &e, NULL};
    rsql_pipeline__resolve(p, ib, idx, &o);
}

static void fail_unprocessed(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx, const char *msg)
{
    if (ib->resolved[idx]) {
        return; /* another row of the same record had it already */
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_error_set(&e, RSQL_ERR_INTERRUPTED, RSQL_NOPOS, "%s", msg);
    rsql_outcome_t o = {RSQL_OUTCOME_FAILED, &e, NULL};
    rsql_pipeline__resolve(p, ib, idx, &o);
    /* not processed: the source gets it again next run, so it is not counted as read */
    p->failed--;
    atomic_fetch_sub(&p->read, 1);
}

static void fail_aborted(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx)
{
    fail_unprocessed(p, ib, idx, aborted_msg);
}

void rsql_pipeline__on_outcomes(rsql_pipeline_t *p, rt_outcomes_op_t *oo)
{
    done_begin(p);
    for (int i = 0; i < oo->n; i++) {
        rt_item_t *it = &oo->items[i];
        if (it->kind == RT_ITEM_FILTERED || it->kind == RT_ITEM_PAST_LIMIT) {
            rsql_outcome_t o = {RSQL_OUTCOME_FILTERED, NULL, NULL};
            bool fresh = !oo->ib->resolved[it->idx];
            rsql_pipeline__resolve(p, oo->ib, it->idx, &o);
            if (fresh && it->kind == RT_ITEM_PAST_LIMIT) {
                /* resolved as filtered, but neither filtered nor processed: not counted as
                   read (read = written + filtered + ...), only as read past the LIMIT */
                p->filtered--;
                p->past_limit++;
                atomic_fetch_sub(&p->read, 1);
            }
        } else if (it->kind == RT_ITEM_ERROR) {
            record_error(p, oo->ib, it->idx, it->stage, it->err);
        } else if (it->kind == RT_ITEM_LATE) {
            /* expected data, not a failure: dead-lettered under either tolerance */
            rsql_pipeline__dlq_add_late(p, oo->ib, it->idx, it->err, it->with_rows);
        } else {
            fail_aborted(p, oo->ib, it->idx);
        }
    }
    done_end(p);
    rsql_pipeline__free_outcomes(oo);
}

/*
** A write batch's delivery report: resolve the written rows, fail the others, and write the
** ones with a transient error again (they stay in wb, which goes back to the write thread:
** no allocation). @locality worker
*/
void rsql_pipeline__on_delivery(rsql_pipeline_t *p, rt_delivery_op_t *d)
{
    rt_wbatch_t *wb = d->batch;
    int n_retry = 0; /* rows kept in wb for another write, compacted to its front */
    int64_t now = rsql_now_ms();
    int64_t wait = -2; /* not computed yet */
    int n = wb->n;
    rsql_pipeline_stats_t *st = p->conf.stats;
    rsql_pipeline__wbatch_observe(p, wb, d);
    done_begin(p);
    for (int i = 0; i < n; i++) {
        const rsql_sink_result_t *r = i < d->n ? rt_delivery_result(d, i) : NULL;
        if (r && r->code == RSQL_OK) {
            rsql_outcome_t o = {RSQL_OUTCOME_WRITTEN, NULL, r->meta[0] ? r->meta : NULL};
            rsql_pipeline__resolve(p, wb->ib, wb->idx[i], &o);
            continue;
        }
        if (r && r->code == RSQL_ERR_INTERRUPTED) {
            /* not written as the run ends (a source transaction that did not end: release
               in rsql_io.h): not acknowledged, not counted; the next run reads it again */
            fail_unprocessed(p, wb->ib, wb->idx[i], r->msg[0] ? r->msg : "interrupted");
            continue;
        }
        rsql_error_t cause;
        rsql_error_clear(&cause);
        if (!r) {
            rsql_error_set(&cause, RSQL_ERR_SINK, RSQL_NOPOS, "the sink reported no result");
        } else {
            rsql_error_set(&cause, r->code, RSQL_NOPOS, "%s",
                           r->msg[0] ? r->msg : rsql_err_str(r->code));
        }
        if (rsql_error_retriable(&cause) && !atomic_load(&p->abort_sink)) {
            if (wait == -2) {
                if (!wb->has_retry) {
                    rsql_retry_init(&wb->retry, p->conf.retry_timeout_ms,
                                    p->conf.retry_backoff_max_ms, now);
                    wb->has_retry = true;
                }
                wait = rsql_retry_next(&wb->retry, now);
                if (wait >= 0) {
                    if (st) {
                        atomic_store(&st->sink_down, true);
                    }
                    rsql_pipeline__retrying(p, "sink delivery", &cause, wait, wb->retry.attempts);
                }
            }
            if (wait >= 0) {
                wb->rows[n_retry] = wb->rows[i];
                wb->idx[n_retry] = wb->idx[i];
                n_retry++;
                continue;
            }
        }
        record_error(p, wb->ib, wb->idx[i], "sink", &cause);
    }
    done_end(p);
    if (n_retry > 0) {
        wb->n = n_retry;
        wb->has_retry = true;
        wb->not_before_ms = now + wait;
        memset(&wb->op, 0, sizeof wb->op);
        wb->op.type = RT_OP_WRITE;
        wb->op.weight = n_retry;
        if (rsql_queue_push_urgent(p->q2, &wb->op) == RSQL_OK) {
            return; /* wb (and its report d) belong to the write thread again */
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_error_set(&e, RSQL_ERR_SINK, RSQL_NOPOS, "retry refused: the writer stopped");
        for (int i = 0; i < n_retry; i++) {
            record_error(p, wb->ib, wb->idx[i], "sink", &e);
        }
    }
    rsql_pipeline__free_wbatch(wb); /* d lives in wb */
}

void rsql_pipeline__on_write_failed(rsql_pipeline_t *p, rt_write_failed_op_t *f)
{
    for (int i = 0; i < f->wb->n; i++) {
        if (f->aborted) {
            fail_aborted(p, f->wb->ib, f->wb->idx[i]);
        } else {
            record_error(p, f->wb->ib, f->wb->idx[i], "sink", &f->err);
        }
    }
    rsql_pipeline__free_wbatch(f->wb); /* f lives in it */
}

/*
** The sink's delivery callback: copy the results into the batch's own report (allocated with
** it, room for every row: nothing is allocated here) and post it to the worker. Results past
** the batch's rows are ignored; rows without a result fail ("the sink reported no result").
** Any thread.
*/
void rsql_pipeline__deliver_cb(void *opaque, uint64_t batch_id, int n,
                               const rsql_sink_result_t *results)
{
    rsql_pipeline_t *p = opaque;
    rt_wbatch_t *wb = (rt_wbatch_t *)(uintptr_t)batch_id;
    rt_delivery_op_t *d = wb->dop;
    atomic_fetch_sub(&p->unreported, wb->n);
    memset(&d->op, 0, sizeof d->op);
    d->op.type = RT_OP_DELIVERY;
    d->batch = wb;
    d->n = n < 0 ? 0 : n > wb->cap ? wb->cap : n;
    int plain = 0; /* the results before the first that is not written or has a text */
    while (plain < d->n && results[plain].code == RSQL_OK && !results[plain].meta[0] &&
           !results[plain].msg[0]) {
        plain++;
    }
    d->all_ok = plain == d->n;
    for (int i = d->all_ok ? d->n : 0; i < d->n; i++) {
        /* the code and the two texts up to their ends, not 356 bytes a row */
        rsql_sink_result_t *r = &d->results[i];
        r->code = results[i].code;
        if (!results[i].meta[0] && !results[i].msg[0]) { /* most: written, nothing to say */
            r->meta[0] = '\0';
            r->msg[0] = '\0';
            continue;
        }
        size_t m = strnlen(results[i].meta, sizeof r->meta - 1);
        size_t g = strnlen(results[i].msg, sizeof r->msg - 1);
        memcpy(r->meta, results[i].meta, m);
        r->meta[m] = '\0';
        memcpy(r->msg, results[i].msg, g);
        r->msg[g] = '\0';
    }
    if (rsql_pipeline__write_thread_of == p) {
        /* made on p's write thread: held there, handed on with the next ones (rt_stages.c) */
        d->op.next = NULL;
        *p->held_tail = &d->op;
        p->held_tail = &d->op.next;
        p->held_n++;
        return;
    }
    rsql_queue_push(p->wq, &d->op);
}
