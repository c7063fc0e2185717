/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The pipeline: its threads (poll, transform, write), the worker loop that
 * serves the worker queue on the calling thread, opening and closing the
 * connectors, and resume positions. The threading model, back-pressure and
 * the error rules are described in rsql_pipeline.h; dead letters live in
 * rt_dlq.c, positions in rt_offsets.c, the status line in rt_status.c and
 * signals in rt_signal.c.
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

#define IDLE_FLUSH_MS 50 /* the write thread flushes after this long without work */
#define FLUSH_TIMEOUT_MS 30000

static const char aborted_msg[] = "aborted: the pipeline stopped after an earlier failure";

/* ---- configuration */

/* Defaults: see rsql_pipeline_conf_t. */
void rsql_pipeline_conf_init(rsql_pipeline_conf_t *conf)
{
    memset(conf, 0, sizeof(*conf));
    conf->batch_size = 256;
    conf->queue_capacity = 1024;
    conf->poll_timeout_ms = 200;
    conf->flush_interval_ms = 1000;
    conf->status_interval_ms = 1000;
    conf->retry_timeout_ms = 30000;
    conf->retry_backoff_max_ms = 5000;
    conf->limit = -1;
}

/*
** A new pipeline (see the header). The caller destroys it.
*/
rsql_pipeline_t *rsql_pipeline_new(const rsql_pipeline_conf_t *conf, rsql_error_t *err)
{
    if (!conf->src_ops || !conf->src_ops->open || !conf->src_ops->poll || !conf->snk_ops ||
        !conf->snk_ops->open || !conf->snk_ops->write || !conf->transform) {
        rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                       "pipeline needs a source, a sink and a transform");
        return NULL;
    }
    rsql_pipeline_t *p = rsql_calloc(1, sizeof(*p));
    if (!p) {
        rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
        return NULL;
    }
    p->conf = *conf;
    if (p->conf.batch_size < 1) {
        p->conf.batch_size = 1;
    }
    if (p->conf.queue_capacity < 1) {
        p->conf.queue_capacity = 1;
    }
    if (p->conf.max_in_flight <= 0) {
        p->conf.max_in_flight = 3 * p->conf.queue_capacity;
    }
    if (p->conf.max_in_flight < p->conf.batch_size) {
        p->conf.max_in_flight = p->conf.batch_size;
    }
    if (p->conf.poll_timeout_ms <= 0) {
        p->conf.poll_timeout_ms = 200;
    }
    if (p->conf.flush_interval_ms <= 0) {
        p->conf.flush_interval_ms = 1000;
    }
    if (p->conf.status_interval_ms <= 0) {
        p->conf.status_interval_ms = 1000;
    }
    p->id = rsql_strdup(conf->id ? conf->id : "pipeline");
    p->q1 = rsql_queue_new(p->conf.queue_capacity);
    p->q2 = rsql_queue_new(p->conf.queue_capacity);
    p->wq = rsql_queue_new(0);
    p->track = rsql_offtrack_new();
    if (!p->id || !p->q1 || !p->q2 || !p->wq || !p->track) {
        rsql_pipeline_destroy(p);
        rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->track_lock, NULL);
    rsql_cond_init_monotonic(&p->credit_cv);
    rsql_cond_init_monotonic(&p->sleep_cv);
    rsql_error_clear(&p->err);
    p->total = -1;
    return p;
}

static void free_inbatch(rt_inbatch_t *ib)
{
    if (ib) {
        rsql_batch_destroy(ib->b);
        rsql_free(ib->tickets);
        rsql_free(ib->resolved);
        rsql_free(ib);
    }
}

static void free_wbatch(rt_wbatch_t *wb)
{
    if (wb) {
        rsql_free(wb->rows);
        rsql_free(wb->idx);
        rsql_free(wb);
    }
}

static void free_outcomes(rt_outcomes_op_t *oo)
{
    for (int i = 0; i < oo->n; i++) {
        rsql_free(oo->items[i].err);
    }
    rsql_free(oo);
}

/* Frees leftover ops of a destroyed queue (only after a failed start). */
static void free_leftover(rsql_qop_t *op)
{
    switch (op->type) {
    case RT_OP_WRITE:
        free_wbatch((rt_wbatch_t *)op);
        break;
    case RT_OP_OUTCOMES:
        free_outcomes((rt_outcomes_op_t *)op);
        break;
    default:
        rsql_free(op);
    }
}

static void free_leftover_batch(rsql_qop_t *op)
{
    free_inbatch(*(rt_inbatch_t **)(op + 1));
    rsql_free(op);
}

/* Free p (not while running). NULL-safe. */
void rsql_pipeline_destroy(rsql_pipeline_t *p)
{
    if (!p) {
        return;
    }
    if (p->track) { /* fully constructed */
        pthread_mutex_destroy(&p->lock);
        pthread_mutex_destroy(&p->track_lock);
        pthread_cond_destroy(&p->credit_cv);
        pthread_cond_destroy(&p->sleep_cv);
    }
    rsql_queue_destroy(p->q1, free_leftover_batch);
    rsql_queue_destroy(p->q2, free_leftover);
    rsql_queue_destroy(p->wq, free_leftover);
    rsql_offtrack_destroy(p->track);
    rsql_free(p->id);
    rsql_free(p);
}

/* ---- shared helpers */

/*
** Record the first failure and stop: stop polling, fail what is not yet
** transformed (and, for a sink failure, not yet written). Any thread.
*/
void rsql_pipeline__fail(rsql_pipeline_t *p, const rsql_error_t *e, bool sink_stage)
{
    pthread_mutex_lock(&p->lock);
    rsql_error_copy(&p->err, e);
    atomic_store(&p->aborting, true);
    if (sink_stage) {
        atomic_store(&p->abort_sink, true);
    }
    atomic_store(&p->stopping, true);
    pthread_cond_broadcast(&p->credit_cv);
    pthread_cond_broadcast(&p->sleep_cv);
    pthread_mutex_unlock(&p->lock);
    if (p->src && p->conf.src_ops->wakeup) {
        p->conf.src_ops->wakeup(p->src);
    }
}

/* Stop polling, drain, commit. Any thread. */
void rsql_pipeline_stop(rsql_pipeline_t *p)
{
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->stopping, true);
    pthread_cond_broadcast(&p->credit_cv);
    pthread_mutex_unlock(&p->lock);
    if (p->src && p->conf.src_ops->wakeup) {
        p->conf.src_ops->wakeup(p->src);
    }
}

static void request_stop_interrupted(rsql_pipeline_t *p)
{
    atomic_store(&p->interrupted, true);
    rsql_pipeline_stop(p);
}

/* The partition's name, or its index as text. @locality worker */
const char *rsql_pipeline__partition_name(rsql_pipeline_t *p, uint32_t lane)
{
    const char *n = NULL;
    if (p->conf.src_ops->partition_name && p->src) {
        n = p->conf.src_ops->partition_name(p->src, lane);
    }
    if (!n) {
        snprintf(p->pname, sizeof p->pname, "%" PRIu32, lane);
        n = p->pname;
    }
    return n;
}

/* rec->ident, else "<partition index>@<offset>" in buf. */
const char *rsql_pipeline__ident(rsql_pipeline_t *p, const rsql_record_t *rec, char *buf,
                                 size_t size)
{
    (void)p;
    if (rec->ident && *rec->ident) {
        return rec->ident;
    }
    snprintf(buf, size, "partition %" PRIu32 "@%" PRId64, rec->partition, rec->offset);
    return buf;
}

/* Sleep up to ms on p's sleep condition; returns early when the pipeline aborts. */
static void sleep_interruptible(rsql_pipeline_t *p, int64_t ms, bool wake_on_stop)
{
    int64_t dl = rsql_deadline_in(ms > 0 ? ms : 0);
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->aborting) && !(wake_on_stop && atomic_load(&p->stopping))) {
        if (rsql_cond_wait_until(&p->sleep_cv, &p->lock, dl) == ETIMEDOUT) {
            break;
        }
    }
    pthread_mutex_unlock(&p->lock);
}

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
        free_inbatch(ib);
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

static void on_outcomes(rsql_pipeline_t *p, rt_outcomes_op_t *oo)
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
    free_outcomes(oo);
}

static rt_wbatch_t *wbatch_new(rt_inbatch_t *ib, int cap)
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
        free_wbatch(wb);
        return NULL;
    }
    return wb;
}

static void on_delivery(rsql_pipeline_t *p, rt_delivery_op_t *d)
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
            rsql_error_set(&cause, RSQL_ERR_SINK, RSQL_NOPOS, "%s",
                           r->msg[0] ? r->msg : rsql_err_str(r->code));
        }
        if (r && r->retriable && !atomic_load(&p->abort_sink)) {
            if (wait == -2) {
                if (!wb->has_retry) {
                    rsql_retry_init(&wb->retry, p->conf.retry_timeout_ms,
                                    p->conf.retry_backoff_max_ms, now);
                    wb->has_retry = true;
                }
                wait = rsql_retry_next(&wb->retry, now);
            }
            if (wait >= 0) {
                if (!retry) {
                    retry = wbatch_new(wb->ib, wb->n);
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
            free_wbatch(retry);
        }
    }
    free_wbatch(wb);
    rsql_free(d);
}

static void on_write_failed(rsql_pipeline_t *p, rt_write_failed_op_t *f)
{
    for (int i = 0; i < f->wb->n; i++) {
        if (f->aborted) {
            fail_aborted(p, f->wb->ib, f->wb->idx[i]);
        } else {
            record_error(p, f->wb->ib, f->wb->idx[i], "sink", &f->err);
        }
    }
    free_wbatch(f->wb);
    rsql_free(f);
}

/* The sink's delivery callback: copy the results and post them to the worker. Any thread. */
static void deliver_cb(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *results)
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

/* ---- poll thread */

static void *poll_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    const rsql_source_ops_t *ops = p->conf.src_ops;
    int bs = p->conf.batch_size;
    rsql_retry_t retry;
    bool retrying = false;
    rsql_error_t e;
    while (!atomic_load(&p->stopping)) {
        /* credit: bound the records in flight */
        pthread_mutex_lock(&p->lock);
        while (!atomic_load(&p->stopping) && p->in_flight > 0 &&
               p->in_flight + bs > p->conf.max_in_flight) {
            pthread_cond_wait(&p->credit_cv, &p->lock);
        }
        pthread_mutex_unlock(&p->lock);
        if (atomic_load(&p->stopping)) {
            break;
        }
        rt_inbatch_t *ib = rsql_calloc(1, sizeof(*ib));
        if (ib) {
            ib->b = rsql_batch_new(bs);
        }
        if (!ib || !ib->b) {
            free_inbatch(ib);
            rsql_error_clear(&e);
            rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory polling the source");
            rsql_pipeline__fail(p, &e, false);
            break;
        }
        bool eof = false;
        rsql_error_clear(&e);
        rsql_err_t rc = ops->poll(p->src, ib->b, bs, p->conf.poll_timeout_ms, &eof, &e);
        if (rc != RSQL_OK) {
            free_inbatch(ib);
            if (!e.code) {
                rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
            }
            bool retriable = (e.flags | rsql_err_flags(rc)) & RSQL_EF_RETRY;
            int64_t now = rsql_now_ms();
            if (retriable) {
                if (!retrying) {
                    rsql_retry_init(&retry, p->conf.retry_timeout_ms,
                                    p->conf.retry_backoff_max_ms, now);
                    retrying = true;
                }
                int64_t wait = rsql_retry_next(&retry, now);
                if (wait >= 0) {
                    sleep_interruptible(p, wait, true);
                    continue;
                }
            }
            rsql_error_t f;
            rsql_error_clear(&f);
            rsql_error_set(&f, rc, RSQL_NOPOS, "source error: %s", e.msg);
            rsql_pipeline__fail(p, &f, false);
            break;
        }
        retrying = false;
        int n = ib->b->n;
        if (n == 0) {
            free_inbatch(ib);
            if (eof) {
                break;
            }
            continue;
        }
        ib->tickets = rsql_calloc((size_t)n, sizeof(uint64_t));
        ib->resolved = rsql_calloc((size_t)n, 1);
        rsql_err_t trc = ib->tickets && ib->resolved ? RSQL_OK : RSQL_ERR_NOMEM;
        pthread_mutex_lock(&p->track_lock);
        for (int i = 0; trc == RSQL_OK && i < n; i++) {
            rsql_record_t *r = &ib->b->recs[i];
            r->seq = p->next_seq++;
            trc = rsql_offtrack_add(p->track, r->partition, r->offset, &ib->tickets[i]);
            if (trc != RSQL_OK) {
                /* undo: complete nothing, the run fails and commits nothing past here */
                ib->b->n = i;
            }
        }
        pthread_mutex_unlock(&p->track_lock);
        if (trc != RSQL_OK || ib->b->n == 0) {
            /* records registered so far stay unknown: positions never pass them */
            free_inbatch(ib);
            rsql_error_clear(&e);
            rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory polling the source");
            rsql_pipeline__fail(p, &e, false);
            break;
        }
        ib->pending = ib->b->n;
        pthread_mutex_lock(&p->lock);
        p->in_flight += ib->b->n;
        p->live++;
        pthread_mutex_unlock(&p->lock);
        atomic_fetch_add(&p->read, ib->b->n);
        rsql_qop_t *op = rsql_malloc(sizeof(rsql_qop_t) + sizeof(rt_inbatch_t *));
        if (!op) {
            /* Cannot hand it on: resolve nothing; fail (it stays unknown forever). */
            rsql_error_clear(&e);
            rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory polling the source");
            rsql_pipeline__fail(p, &e, false);
            break;
        }
        memset(op, 0, sizeof(*op));
        op->weight = ib->b->n;
        *(rt_inbatch_t **)(op + 1) = ib;
        if (rsql_queue_push(p->q1, op) != RSQL_OK) {
            rsql_free(op);
            break;
        }
        if (eof) {
            break;
        }
    }
    rsql_queue_close(p->q1);
    rsql_qop_t *done = rsql_calloc(1, sizeof(rsql_qop_t));
    if (done) {
        done->type = RT_OP_POLL_DONE;
        rsql_queue_push(p->wq, done);
    }
    return NULL;
}

/* ---- transform thread */

static void post_outcomes(rsql_pipeline_t *p, rt_outcomes_op_t *oo)
{
    if (oo->n == 0) {
        rsql_free(oo);
        return;
    }
    oo->op.type = RT_OP_OUTCOMES;
    rsql_queue_push(p->wq, &oo->op);
}

static void *transform_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    int64_t kept_total = 0;
    rsql_qop_t *op;
    while (rsql_queue_pop(p->q1, -1, &op) == RSQL_OK) {
        rt_inbatch_t *ib = *(rt_inbatch_t **)(op + 1);
        rsql_free(op);
        int n = ib->b->n;
        rt_outcomes_op_t *oo = rsql_calloc(1, sizeof(*oo) + (size_t)n * sizeof(rt_item_t));
        rt_wbatch_t *wb = wbatch_new(ib, n);
        if (!oo || !wb) {
            rsql_free(oo);
            free_wbatch(wb);
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory transforming");
            rsql_pipeline__fail(p, &e, false);
            /* the records can still be failed by the worker: post a minimal op per record */
            for (int i = 0; i < n; i++) {
                rt_outcomes_op_t *one = NULL;
                while (!(one = rsql_calloc(1, sizeof(*one) + sizeof(rt_item_t)))) {
                    sleep_interruptible(p, 10, false);
                }
                one->ib = ib;
                one->n = 1;
                one->items[0] = (rt_item_t){i, RT_ITEM_ABORTED, NULL, NULL};
                post_outcomes(p, one);
            }
            continue;
        }
        oo->ib = ib;
        for (int i = 0; i < n; i++) {
            rsql_record_t *rec = &ib->b->recs[i];
            if (atomic_load(&p->aborting)) {
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_ABORTED, NULL, NULL};
                continue;
            }
            if (p->conf.limit >= 0 && kept_total >= p->conf.limit) {
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_FILTERED, NULL, NULL};
                continue;
            }
            const rsql_value_t *out = NULL;
            bool keep = true;
            const char *stage = "eval";
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_err_t rc =
                p->conf.transform(p->conf.transform_opaque, ib->b, rec, &out, &keep, &stage, &e);
            if (rc != RSQL_OK) {
                rsql_error_t *copy = rsql_malloc(sizeof(rsql_error_t));
                if (copy) {
                    *copy = e;
                    if (!copy->code) {
                        copy->code = rc;
                    }
                } else {
                    rsql_error_t f;
                    rsql_error_clear(&f);
                    rsql_error_set(&f, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
                    rsql_pipeline__fail(p, &f, false);
                }
                oo->items[oo->n++] =
                    (rt_item_t){i, copy ? RT_ITEM_ERROR : RT_ITEM_ABORTED, stage, copy};
                if (!p->conf.tolerate_all) {
                    /* stop at once: nothing after a failure travels on */
                    rsql_error_t f;
                    rsql_error_clear(&f);
                    char ibuf[64];
                    rsql_error_set(&f, e.code ? e.code : rc, RSQL_NOPOS, "%s error at %s: %s",
                                   stage, rsql_pipeline__ident(p, rec, ibuf, sizeof ibuf),
                                   e.msg);
                    rsql_pipeline__fail(p, &f, false);
                }
                continue;
            }
            if (!keep) {
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_FILTERED, NULL, NULL};
                continue;
            }
            wb->rows[wb->n].values = out;
            wb->rows[wb->n].rec = rec;
            wb->rows[wb->n].partition_name = NULL; /* set by the write thread */
            wb->idx[wb->n] = i;
            wb->n++;
            kept_total++;
            if (p->conf.limit >= 0 && kept_total >= p->conf.limit) {
                rsql_pipeline_stop(p);
            }
        }
        /* Post the outcomes first, then the rows; after this, ib is not touched here. */
        bool has_rows = wb->n > 0;
        post_outcomes(p, oo);
        if (has_rows) {
            wb->op.weight = wb->n;
            if (rsql_queue_push(p->q2, &wb->op) != RSQL_OK) {
                /* cannot happen: q2 closes only after every record has an outcome */
                abort();
            }
        } else {
            free_wbatch(wb);
        }
    }
    return NULL;
}

/* ---- write thread */

static void post_write_failed(rsql_pipeline_t *p, rt_wbatch_t *wb, bool aborted,
                              const rsql_error_t *e)
{
    rt_write_failed_op_t *f;
    while (!(f = rsql_calloc(1, sizeof(*f)))) {
        sleep_interruptible(p, 10, false);
    }
    f->op.type = RT_OP_WRITE_FAILED;
    f->wb = wb;
    f->aborted = aborted;
    rsql_error_clear(&f->err);
    if (e) {
        f->err = *e;
    }
    rsql_queue_push(p->wq, &f->op);
}

static void do_flush(rsql_pipeline_t *p)
{
    if (!p->conf.snk_ops->flush) {
        return;
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = p->conf.snk_ops->flush(p->snk, FLUSH_TIMEOUT_MS, &e);
    if (rc != RSQL_OK && !((e.flags | rsql_err_flags(rc)) & RSQL_EF_RETRY)) {
        rsql_error_t f;
        rsql_error_clear(&f);
        rsql_error_set(&f, rc, RSQL_NOPOS, "sink error: flush failed: %s", e.msg);
        rsql_pipeline__fail(p, &f, true);
    }
}

static void *write_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    const rsql_sink_ops_t *ops = p->conf.snk_ops;
    int64_t last_flush = rsql_now_ms();
    for (;;) {
        rsql_qop_t *op;
        int64_t unrep = atomic_load(&p->unreported);
        rsql_err_t prc = rsql_queue_pop(p->q2, unrep > 0 ? IDLE_FLUSH_MS : 500, &op);
        if (prc == RSQL_ERR_INTERRUPTED) {
            break;
        }
        int64_t now = rsql_now_ms();
        if (prc == RSQL_ERR_TIMEOUT) {
            if (atomic_load(&p->unreported) > 0) {
                do_flush(p);
                last_flush = now;
            }
            continue;
        }
        rt_wbatch_t *wb = (rt_wbatch_t *)op;
        if (atomic_load(&p->abort_sink)) {
            post_write_failed(p, wb, true, NULL);
            continue;
        }
        if (wb->not_before_ms > now) {
            sleep_interruptible(p, wb->not_before_ms - now, false);
            if (atomic_load(&p->abort_sink)) {
                post_write_failed(p, wb, true, NULL);
                continue;
            }
        }
        for (int i = 0; i < wb->n; i++) {
            wb->rows[i].partition_name = NULL;
        }
        /* partition names: the source's, read here (sinks storing positions need them) */
        if (p->conf.src_ops->partition_name) {
            for (int i = 0; i < wb->n; i++) {
                wb->rows[i].partition_name =
                    p->conf.src_ops->partition_name(p->src, wb->rows[i].rec->partition);
            }
        }
        bool first = !wb->has_retry;
        rsql_retry_t retry = wb->retry;
        for (;;) {
            rsql_error_t e;
            rsql_error_clear(&e);
            int n = wb->n;
            atomic_fetch_add(&p->unreported, n);
            rsql_err_t rc = ops->write(p->snk, (uint64_t)(uintptr_t)wb, n, wb->rows, &e);
            if (rc == RSQL_OK) {
                break; /* wb now belongs to the sink until its delivery */
            }
            atomic_fetch_sub(&p->unreported, n);
            if (!e.code) {
                rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
            }
            now = rsql_now_ms();
            int64_t wait = -1;
            if (((e.flags | rsql_err_flags(rc)) & RSQL_EF_RETRY) && !atomic_load(&p->abort_sink)) {
                if (first) {
                    rsql_retry_init(&retry, p->conf.retry_timeout_ms,
                                    p->conf.retry_backoff_max_ms, now);
                    first = false;
                }
                wait = rsql_retry_next(&retry, now);
            }
            if (wait < 0) {
                post_write_failed(p, wb, atomic_load(&p->abort_sink), &e);
                break;
            }
            sleep_interruptible(p, wait, false);
        }
        now = rsql_now_ms();
        if (atomic_load(&p->unreported) >= p->conf.queue_capacity ||
            now - last_flush >= p->conf.flush_interval_ms) {
            do_flush(p);
            last_flush = now;
        }
    }
    if (atomic_load(&p->unreported) > 0) {
        do_flush(p);
    }
    return NULL;
}

/* ---- opening and resume positions */

static rsql_err_t open_source(rsql_pipeline_t *p, rsql_error_t *err)
{
    enum { MAXP = 1024 };
    rsql_source_ctx_t ctx = p->conf.src_ctx;
    ctx.pipeline = p->id;
    ctx.n_resume = 0;
    char **names = NULL;
    int64_t *offs = NULL;
    int n = 0;
    rsql_err_t rc = RSQL_OK;
    if (!p->conf.preview) {
        names = rsql_calloc(MAXP, sizeof(char *));
        offs = rsql_calloc(MAXP, sizeof(int64_t));
        if (!names || !offs) {
            rsql_free(names);
            rsql_free(offs);
            return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
        }
        /* an exactly-once sink's own positions first */
        if (p->conf.snk_ops->stored_positions) {
            n = p->conf.snk_ops->stored_positions(p->snk, MAXP, names, offs);
            if (n < 0) {
                n = 0;
            }
        }
        /* then the catalog's, where missing or further (a later dead letter or filtered
           record completed it) */
        rsql_kv_t *kv = NULL;
        int nkv = 0;
        if (p->conf.cat) {
            rsql_error_t e;
            rsql_error_clear(&e);
            if (rsql_catalog_offset_list(p->conf.cat, p->id, &kv, &nkv, &e) != RSQL_OK) {
                rc = rsql_error_set(err, e.code, RSQL_NOPOS, "reading source positions: %s",
                                    e.msg);
            }
        }
        for (int i = 0; rc == RSQL_OK && i < nkv; i++) {
            char *end = NULL;
            errno = 0;
            long long v = strtoll(kv[i].value ? kv[i].value : "", &end, 10);
            if (errno || !end || *end || end == kv[i].value) {
                continue; /* not ours */
            }
            int j = 0;
            while (j < n && strcmp(names[j], kv[i].key) != 0) {
                j++;
            }
            if (j < n) {
                if (v > offs[j]) {
                    offs[j] = v;
                }
            } else if (n < MAXP) {
                names[n] = rsql_strdup(kv[i].key);
                if (!names[n]) {
                    rc = rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
                    break;
                }
                offs[n++] = v;
            }
        }
        rsql_kv_array_free(kv, nkv);
        ctx.n_resume = n;
        ctx.resume_partitions = (const char *const *)names;
        ctx.resume_offsets = offs;
    }
    if (rc == RSQL_OK) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rc = p->conf.src_ops->open(&ctx, &p->src, &e);
        if (rc != RSQL_OK) {
            p->src = NULL;
            rsql_error_set(err, rc, e.pos, "%s", e.code ? e.msg : rsql_err_str(rc));
        }
    }
    for (int i = 0; names && i < n; i++) {
        rsql_free(names[i]);
    }
    rsql_free(names);
    rsql_free(offs);
    return rc;
}

static rsql_err_t open_sink(rsql_pipeline_t *p, rsql_error_t *err)
{
    rsql_sink_ctx_t ctx = p->conf.snk_ctx;
    ctx.pipeline = p->id;
    ctx.deliver = deliver_cb;
    ctx.deliver_opaque = p;
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = p->conf.snk_ops->open(&ctx, &p->snk, &e);
    if (rc != RSQL_OK) {
        p->snk = NULL;
        return rsql_error_set(err, rc, e.pos, "%s", e.code ? e.msg : rsql_err_str(rc));
    }
    return RSQL_OK;
}

/* ---- the worker */

static void counts_now(rsql_pipeline_t *p, rsql_job_counts_t *c)
{
    c->read = atomic_load(&p->read);
    c->written = p->written;
    c->filtered = p->filtered;
    c->dead_lettered = p->dead_lettered;
    c->failed = p->failed;
}

/* Counts of the run. @locality worker (or after the run) */
void rsql_pipeline_counts(rsql_pipeline_t *p, rsql_job_counts_t *out)
{
    counts_now(p, out);
}

/* True when a stop request or signal ended the run. */
bool rsql_pipeline_interrupted(rsql_pipeline_t *p)
{
    return atomic_load(&p->interrupted);
}

/* Elapsed ms of the run (so far, or the whole run once it ended). */
int64_t rsql_pipeline_elapsed_ms(rsql_pipeline_t *p)
{
    if (!p->start_ms) {
        return 0;
    }
    return (p->end_ms ? p->end_ms : rsql_now_ms()) - p->start_ms;
}

/* The source's describe() as JSON into buf, or NULL when it has nothing to say. */
static const char *source_detail(rsql_pipeline_t *p, char *buf, size_t size)
{
    if (!p->src || !p->conf.src_ops->describe) {
        return NULL;
    }
    return p->conf.src_ops->describe(p->src, false, buf, size) > 0 ? buf : NULL;
}

static void run_progress(rsql_pipeline_t *p)
{
    if (p->run_id > 0 && p->conf.cat) {
        rsql_job_counts_t c;
        counts_now(p, &c);
        char detail[2048];
        rsql_catalog_run_progress(p->conf.cat, p->run_id, &c,
                                  source_detail(p, detail, sizeof detail), NULL);
    }
}

static void worker_loop(rsql_pipeline_t *p)
{
    p->last_flush_ms = rsql_now_ms();
    for (;;) {
        pthread_mutex_lock(&p->lock);
        bool all_resolved = p->live == 0;
        pthread_mutex_unlock(&p->lock);
        if (p->poll_done && all_resolved && rsql_pipeline__dlq_busy(p) == 0) {
            break;
        }
        int64_t now = rsql_now_ms();
        int64_t next = p->last_flush_ms + p->conf.flush_interval_ms;
        if (p->status_tty && p->last_status_ms + p->conf.status_interval_ms < next) {
            next = p->last_status_ms + p->conf.status_interval_ms;
        }
        int timeout = next > now ? (int)(next - now) : 0;
        rsql_qop_t *op = NULL;
        rsql_err_t rc = rsql_queue_pop(p->wq, timeout, &op);
        if (rc == RSQL_OK) {
            switch (op->type) {
            case RT_OP_OUTCOMES:
                on_outcomes(p, (rt_outcomes_op_t *)op);
                break;
            case RT_OP_DELIVERY:
                on_delivery(p, (rt_delivery_op_t *)op);
                break;
            case RT_OP_WRITE_FAILED:
                on_write_failed(p, (rt_write_failed_op_t *)op);
                break;
            case RT_OP_DLQ_DELIVERY:
                rsql_pipeline__dlq_delivered(p, (rt_delivery_op_t *)op);
                break;
            case RT_OP_POLL_DONE:
                p->poll_done = true;
                rsql_free(op);
                break;
            case RT_OP_SIGNAL:
                request_stop_interrupted(p);
                rsql_free(op);
                break;
            default:
                rsql_free(op);
            }
        }
        /* dead letters: write when the queue is idle or enough are waiting */
        rsql_pipeline__dlq_pump(p, rsql_queue_len(p->wq) == 0);
        now = rsql_now_ms();
        if (now - p->last_flush_ms >= p->conf.flush_interval_ms) {
            rsql_error_t e;
            rsql_error_clear(&e);
            if (rsql_pipeline__save_positions(p, false, &e) != RSQL_OK) {
                rsql_pipeline__fail(p, &e, false);
            }
            run_progress(p);
            p->last_flush_ms = now;
        }
        rsql_pipeline__status_tick(p, now);
    }
}

static void *start_thread(rsql_pipeline_t *p, pthread_t *th, void *(*fn)(void *), bool *started)
{
    if (pthread_create(th, NULL, fn, p) == 0) {
        *started = true;
        return th;
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_error_set(&e, RSQL_ERR_INTERNAL, RSQL_NOPOS, "cannot start a pipeline thread");
    rsql_pipeline__fail(p, &e, true);
    return NULL;
}

/*
** Run the pipeline on the calling thread (the worker). See the header.
*/
rsql_err_t rsql_pipeline_run(rsql_pipeline_t *p, rsql_error_t *err)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    p->start_ms = rsql_now_ms();
    p->last_status_ms = p->start_ms;
    p->status_tty = false;
    if (p->conf.status_out) {
        int fd = fileno(p->conf.status_out);
        p->status_tty = fd >= 0 && isatty(fd);
    }
    if (p->conf.record_run && p->conf.cat && !p->conf.preview) {
        if (rsql_catalog_run_begin(p->conf.cat, p->conf.job, p->conf.sql, &p->run_id, &e) !=
            RSQL_OK) {
            return rsql_error_set(err, e.code, RSQL_NOPOS, "recording the job run: %s", e.msg);
        }
    }
    rsql_err_t rc = RSQL_OK;
    bool signals = false;
    if (p->conf.handle_signals) {
        rc = rsql_pipeline__signals_start(p, &e);
        signals = rc == RSQL_OK;
    }
    if (rc == RSQL_OK) {
        rc = open_sink(p, &e);
    }
    if (rc == RSQL_OK) {
        rc = rsql_pipeline__dlq_open(p, &e);
    }
    if (rc == RSQL_OK) {
        rc = open_source(p, &e);
    }
    if (rc == RSQL_OK) {
        if (p->conf.src_ops->total) {
            p->total = p->conf.src_ops->total(p->src);
        }
        if (start_thread(p, &p->write_th, write_main, &p->write_started) &&
            start_thread(p, &p->xform_th, transform_main, &p->xform_started)) {
            start_thread(p, &p->poll_th, poll_main, &p->poll_started);
        }
        if (!p->poll_started) {
            rsql_queue_close(p->q1);
            p->poll_done = true;
        }
        worker_loop(p);
        rsql_queue_close(p->q2);
        if (p->poll_started) {
            pthread_join(p->poll_th, NULL);
        }
        if (p->xform_started) {
            pthread_join(p->xform_th, NULL);
        }
        if (p->write_started) {
            pthread_join(p->write_th, NULL);
        }
        /* late ops (e.g. a delivery racing the end) */
        rsql_qop_t *op;
        while (rsql_queue_pop(p->wq, 0, &op) == RSQL_OK) {
            if (op->type == RT_OP_DELIVERY) {
                on_delivery(p, (rt_delivery_op_t *)op);
            } else if (op->type == RT_OP_OUTCOMES) {
                on_outcomes(p, (rt_outcomes_op_t *)op);
            } else if (op->type == RT_OP_WRITE_FAILED) {
                on_write_failed(p, (rt_write_failed_op_t *)op);
            } else if (op->type == RT_OP_DLQ_DELIVERY) {
                rsql_pipeline__dlq_delivered(p, (rt_delivery_op_t *)op);
            } else {
                rsql_free(op);
            }
        }
        rsql_error_t se;
        rsql_error_clear(&se);
        if (rsql_pipeline__save_positions(p, true, &se) != RSQL_OK) {
            rsql_pipeline__fail(p, &se, false);
        }
        pthread_mutex_lock(&p->lock);
        rsql_error_copy(&e, &p->err);
        pthread_mutex_unlock(&p->lock);
        rc = e.code;
    }
    char detail_buf[2048];
    const char *detail = source_detail(p, detail_buf, sizeof detail_buf); /* before close */
    if (p->src) {
        if (p->conf.src_ops->close) {
            p->conf.src_ops->close(p->src);
        }
        p->src = NULL;
    }
    if (p->snk) {
        if (p->conf.snk_ops->close) {
            p->conf.snk_ops->close(p->snk);
        }
        p->snk = NULL;
    }
    rsql_pipeline__dlq_close(p);
    if (signals) {
        rsql_pipeline__signals_stop(p);
    }
    p->end_ms = rsql_now_ms();
    rsql_pipeline__status_final(p);
    if (p->run_id > 0) {
        rsql_job_counts_t c;
        counts_now(p, &c);
        const char *status = rc != RSQL_OK ? "failed"
                             : atomic_load(&p->interrupted) ? "interrupted"
                                                             : "done";
        rsql_catalog_run_end(p->conf.cat, p->run_id, status, &c, rc != RSQL_OK ? e.msg : NULL,
                             detail, NULL);
    }
    if (rc != RSQL_OK) {
        return rsql_error_set(err, rc, e.pos, "%s", e.msg);
    }
    return RSQL_OK;
}
