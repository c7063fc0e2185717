/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Outcomes, on the worker thread: every record of a batch gets exactly one
 * outcome (written, filtered, dead-lettered, failed) here, from the
 * transform stage's results and the sink's delivery reports (deliver_cb,
 * which may run on any thread, only posts them to the worker queue). It
 * resolves records, tells the source (commit_record) and the offset
 * tracker, and hands failed rows to the dead-letter path. It must not
 * block or wait for a stage, and it never frees a batch before every one
 * of its records has its outcome.
 */
#include "config.h"
#include "runtime/pipeline_int.h"
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

/*
** Report a record's outcome. See pipeline_int.h.
*/
void rsql_pipeline__resolve(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx,
                            const rsql_outcome_t *o)
{
    if (ib->resolved[idx]) {
        return; /* never twice */
    }
    ib->resolved[idx] = 1;
    rsql_record_t *rec = &ib->b->recs[idx];
    if (!p->conf.preview && p->conf.src_ops->commit_record) {
        p->conf.src_ops->commit_record(p->src, rec, o);
    }
    switch (o->kind) {
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
    if (o->kind != RSQL_OUTCOME_FAILED) {
        pthread_mutex_lock(&p->track_lock);
        rsql_offtrack_done(p->track, rec->partition, ib->tickets[idx]);
        pthread_mutex_unlock(&p->track_lock);
    }
    if (--ib->pending == 0) {
        int n = ib->b->n;
        rsql_pipeline__free_inbatch(ib);
        pthread_mutex_lock(&p->lock);
        p->in_flight -= n;
        p->live--;
        pthread_cond_broadcast(&p->credit_cv);
        pthread_mutex_unlock(&p->lock);
    }
}

/* A failed record: dead-letter it (tolerance all) or fail it and the run. */
static void record_error(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx, const char *stage,
                         const rsql_error_t *cause)
{
    char ibuf[64];
    rsql_error_t e;
    rsql_error_clear(&e);
    const char *ident = rsql_pipeline__ident(p, &ib->b->recs[idx], ibuf, sizeof ibuf);
    rsql_error_set(&e, cause->code ? cause->code : RSQL_ERR_INTERNAL, RSQL_NOPOS,
                   "%s error at %s: %s", stage, ident, cause->msg);
    if (p->conf.tolerate_all) {
        rsql_pipeline__dlq_add(p, ib, idx, stage, &e);
        return;
    }
    rsql_pipeline__fail(p, &e, strcmp(stage, "sink") == 0);
    rsql_outcome_t o = {RSQL_OUTCOME_FAILED, &e, NULL};
    rsql_pipeline__resolve(p, ib, idx, &o);
}

static void fail_aborted(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_error_set(&e, RSQL_ERR_INTERRUPTED, RSQL_NOPOS, "%s", aborted_msg);
    rsql_outcome_t o = {RSQL_OUTCOME_FAILED, &e, NULL};
    rsql_pipeline__resolve(p, ib, idx, &o);
    /* not processed: the source gets it again next run, so it is not counted as read */
    p->failed--;
    atomic_fetch_sub(&p->read, 1);
}

void rsql_pipeline__on_outcomes(rsql_pipeline_t *p, rt_outcomes_op_t *oo)
{
    for (int i = 0; i < oo->n; i++) {
        rt_item_t *it = &oo->items[i];
        if (it->kind == RT_ITEM_FILTERED) {
            rsql_outcome_t o = {RSQL_OUTCOME_FILTERED, NULL, NULL};
            rsql_pipeline__resolve(p, oo->ib, it->idx, &o);
        } else if (it->kind == RT_ITEM_ERROR) {
            record_error(p, oo->ib, it->idx, it->stage, it->err);
        } else {
            fail_aborted(p, oo->ib, it->idx);
        }
    }
    rsql_pipeline__free_outcomes(oo);
}

rt_wbatch_t *rsql_pipeline__wbatch_new(rt_inbatch_t *ib, int cap)
{
    rt_wbatch_t *wb = rsql_calloc(1, sizeof(*wb));
    if (!wb) {
        return NULL;
    }
    wb->op.type = RT_OP_WRITE;
    wb->ib = ib;
    wb->rows = rsql_calloc((size_t)cap, sizeof(rsql_sink_row_t));
    wb->idx = rsql_calloc((size_t)cap, sizeof(int));
    if (!wb->rows || !wb->idx) {
        rsql_pipeline__free_wbatch(wb);
        return NULL;
    }
    return wb;
}

void rsql_pipeline__on_delivery(rsql_pipeline_t *p, rt_delivery_op_t *d)
{
    rt_wbatch_t *wb = d->batch;
    rt_wbatch_t *retry = NULL;
    int64_t now = rsql_now_ms();
    int64_t wait = -2; /* not computed yet */
    for (int i = 0; i < wb->n; i++) {
        const rsql_sink_result_t *r = i < d->n ? &d->results[i] : NULL;
        if (r && r->code == RSQL_OK) {
            rsql_outcome_t o = {RSQL_OUTCOME_WRITTEN, NULL, r->meta[0] ? r->meta : NULL};
            rsql_pipeline__resolve(p, wb->ib, wb->idx[i], &o);
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
                    rsql_pipeline__retrying(p, "sink delivery", &cause, wait, wb->retry.attempts);
                }
            }
            if (wait >= 0) {
                if (!retry) {
                    retry = rsql_pipeline__wbatch_new(wb->ib, wb->n);
                }
                if (retry) {
                    retry->rows[retry->n] = wb->rows[i];
                    retry->idx[retry->n] = wb->idx[i];
                    retry->n++;
                    continue;
                }
            }
        }
        record_error(p, wb->ib, wb->idx[i], "sink", &cause);
    }
    if (retry) {
        retry->has_retry = true;
        retry->retry = wb->retry;
        retry->not_before_ms = now + wait;
        if (rsql_queue_push_urgent(p->q2, &retry->op) != RSQL_OK) {
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_error_set(&e, RSQL_ERR_SINK, RSQL_NOPOS, "retry refused: the writer stopped");
            for (int i = 0; i < retry->n; i++) {
                record_error(p, retry->ib, retry->idx[i], "sink", &e);
            }
            rsql_pipeline__free_wbatch(retry);
        }
    }
    rsql_pipeline__free_wbatch(wb);
    rsql_free(d);
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
    rsql_pipeline__free_wbatch(f->wb);
    rsql_free(f);
}

/* The sink's delivery callback: copy the results and post them to the worker. Any thread. */
void rsql_pipeline__deliver_cb(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *results)
{
    rsql_pipeline_t *p = opaque;
    rt_wbatch_t *wb = (rt_wbatch_t *)(uintptr_t)batch_id;
    rt_delivery_op_t *d =
        rsql_malloc(sizeof(*d) + (size_t)(n > 0 ? n : 0) * sizeof(rsql_sink_result_t));
    atomic_fetch_sub(&p->unreported, wb->n);
    if (!d) {
        /* Out of memory: the worker cannot learn the results; fail the run loudly. */
        rsql_log(RSQL_LOG_ERROR, "runtime", "out of memory reporting a delivery");
        abort();
    }
    memset(&d->op, 0, sizeof d->op);
    d->op.type = RT_OP_DELIVERY;
    d->batch = wb;
    d->n = n > 0 ? n : 0;
    if (d->n) {
        memcpy(d->results, results, (size_t)d->n * sizeof(rsql_sink_result_t));
    }
    rsql_queue_push(p->wq, &d->op);
}
