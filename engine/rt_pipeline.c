/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The pipeline's lifecycle: configuration defaults, creation and
 * destruction, opening the connectors (with resume positions), starting the
 * poll, transform and write threads, and the worker loop that serves the
 * worker queue on the calling thread until the run ends. It owns
 * rsql_pipeline_t's life; it must not touch a record's outcome itself (that
 * is rt_outcomes.c), a batch's life (rt_batch.c) nor run a stage's loop
 * (rt_stages.c). The threading model, back-pressure and the error rules
 * are described in rsql_pipeline.h; retrying and failing live in
 * rt_retry.c, dead letters in rt_dlq.c, positions in rt_offsets.c, the
 * status line in rt_status.c and signals in rt_signal.c.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "connectors/rsql_conn_io.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* ---- configuration */

/* Defaults: see rsql_pipeline_conf_t. */
void rsql_pipeline_conf_init(rsql_pipeline_conf_t *conf)
{
    memset(conf, 0, sizeof(*conf));
    conf->batch_size = 512;
    conf->queue_capacity = 2048;
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
        rsql_error_nomem(err);
        return NULL;
    }
    p->conf = *conf;
    if (p->conf.batch_size < 1) {
        p->conf.batch_size = 1;
    }
    if (p->conf.queue_capacity < 1) {
        p->conf.queue_capacity = 1;
    }
    if (p->conf.flush_rows < p->conf.queue_capacity) {
        p->conf.flush_rows = p->conf.queue_capacity;
    }
    if (p->conf.max_in_flight <= 0) {
        p->conf.max_in_flight = 3 * p->conf.queue_capacity;
        if (p->conf.flush_rows > p->conf.queue_capacity) { /* room to gather, and to go on */
            p->conf.max_in_flight += p->conf.flush_rows;
        }
    }
    if (p->conf.max_in_flight < p->conf.batch_size) {
        p->conf.max_in_flight = p->conf.batch_size;
    }
    p->bytes_resume = p->conf.max_in_flight_bytes / 2;
    p->credit_resume = p->conf.max_in_flight - p->conf.batch_size;
    if (p->credit_resume > p->conf.max_in_flight / 2) {
        p->credit_resume = p->conf.max_in_flight / 2;
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
    p->sink_id = rsql_strdup(conf->sink_id ? conf->sink_id : p->id ? p->id : "pipeline");
    p->q1 = rsql_queue_new(p->conf.queue_capacity);
    p->q2 = rsql_queue_new(p->conf.queue_capacity);
    p->wq = rsql_queue_new(0);
    p->track = rsql_offtrack_new();
    if (!p->id || !p->sink_id || !p->q1 || !p->q2 || !p->wq || !p->track) {
        rsql_pipeline_destroy(p);
        rsql_error_nomem(err);
        return NULL;
    }
    /* a stage blocked on a full queue resumes once half of it has drained (fewer wakes) */
    /* the poll thread (faster than the transform) refills q1 from a quarter, not half */
    rsql_queue_set_stage(p->q1, p->conf.queue_capacity / 4);
    rsql_queue_set_stage(p->q2, p->conf.queue_capacity / 2);
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->track_lock, NULL);
    rsql_cond_init_monotonic(&p->credit_cv);
    rsql_cond_init_monotonic(&p->sleep_cv);
    rsql_error_clear(&p->err);
    p->total = -1;
    return p;
}

static void free_leftover(rsql_qop_t *op)
{
    rsql_pipeline__free_op(NULL, op);
}

static void free_leftover_batch(rsql_qop_t *op)
{
    rsql_pipeline__free_inbatch((rt_inbatch_t *)op);
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
    rsql_free(p->sink_id);
    rsql_free(p);
}

/* ---- stopping, and partition names */

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
    rsql_log(RSQL_LOG_INFO, "runtime", "%s: interrupted: the source stops, what is in flight "
             "drains and commits", p->id);
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

/* ---- opening and resume positions */

/* The positions a source resumes from, any number: partition names (ours), offsets and their
   text parts (or NULL). */
typedef struct resume_pos {
    char *name;
    int64_t off;
    char *key;
} resume_pos_t;

typedef struct resume_list {
    resume_pos_t *v;
    int n, cap;
} resume_list_t;

/* Append (partition, offset, key) to the resume_list_t at opaque (an rsql_position_cb). */
static rsql_err_t resume_add(void *opaque, const char *partition, int64_t offset,
                             const char *key)
{
    resume_list_t *l = opaque;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        resume_pos_t *v = rsql_realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            return RSQL_ERR_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    char *kc = key ? rsql_strdup(key) : NULL;
    if (key && !kc) {
        return RSQL_ERR_NOMEM;
    }
    if (!(l->v[l->n].name = rsql_strdup(partition ? partition : ""))) {
        rsql_free(kc);
        return RSQL_ERR_NOMEM;
    }
    l->v[l->n].key = kc;
    l->v[l->n++].off = offset;
    return RSQL_OK;
}

static void resume_free(resume_list_t *l)
{
    for (int i = 0; i < l->n; i++) {
        rsql_free(l->v[i].name);
        rsql_free(l->v[i].key);
    }
    rsql_free(l->v);
}

static int resume_cmp(const void *a, const void *b)
{
    return strcmp(((const resume_pos_t *)a)->name, ((const resume_pos_t *)b)->name);
}

/*
** The positions the source resumes from: an exactly-once sink's own (all of them: a sink
** that cannot read them fails this, transiently or not, and the open with it), then the
** catalog's where missing or further (a later dead letter or filtered record completed it).
*/
static rsql_err_t resume_positions(rsql_pipeline_t *p, resume_list_t *l, rsql_error_t *err)
{
    /* with state, only the catalog's: its state is that of the rows before them */
    if (p->conf.snk_ops->stored_positions && !p->conf.state_checkpoint) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_err_t rc = p->conf.snk_ops->stored_positions(p->snk, resume_add, l, &e);
        if (rc == RSQL_ERR_NOMEM && !e.code) {
            return rsql_error_nomem(err);
        }
        if (rc != RSQL_OK) {
            return rsql_error_set(err, e.code ? e.code : rc, RSQL_NOPOS,
                                  "reading the positions stored with the sink's rows: %s",
                                  e.code ? e.msg : rsql_err_str(rc));
        }
    }
    if (!p->conf.cat) {
        return RSQL_OK;
    }
    int n_sink = l->n;
    if (n_sink > 1) {
        qsort(l->v, (size_t)n_sink, sizeof *l->v, resume_cmp);
    }
    rsql_kv_t *kv = NULL;
    int nkv = 0;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_catalog_offset_list(p->conf.cat, p->id, &kv, &nkv, &e) != RSQL_OK) {
        return rsql_error_set(err, e.code, RSQL_NOPOS, "reading source positions: %s", e.msg);
    }
    rsql_err_t rc = RSQL_OK;
    for (int i = 0; rc == RSQL_OK && i < nkv; i++) {
        int64_t v;
        const char *text;
        if (!kv[i].value || !rsql_io_position_parse(kv[i].value, strlen(kv[i].value), &v, &text)) {
            continue; /* not ours */
        }
        resume_pos_t key = {kv[i].key, 0, NULL};
        resume_pos_t *at = n_sink ? bsearch(&key, l->v, (size_t)n_sink, sizeof *l->v, resume_cmp)
                                  : NULL;
        if (at) {
            if (v > at->off) {
                char *kc = text ? rsql_strdup(text) : NULL;
                if (text && !kc) {
                    rc = rsql_error_nomem(err);
                    break;
                }
                rsql_free(at->key);
                at->key = kc;
                at->off = v;
            }
        } else if (resume_add(l, kv[i].key, v, text) != RSQL_OK) {
            rc = rsql_error_nomem(err);
        }
    }
    rsql_kv_array_free(kv, nkv);
    return rc;
}

static rsql_err_t open_source(rsql_pipeline_t *p, rsql_error_t *err)
{
    rsql_source_ctx_t ctx = p->conf.src_ctx;
    ctx.pipeline = p->sink_id;
    ctx.n_resume = 0;
    ctx.not_before_ms = p->not_before_ms;
    ctx.counters = p->conf.stats ? &p->conf.stats->src : NULL;
    ctx.preview = p->conf.preview;
    resume_list_t l = {0};
    const char **names = NULL, **keys = NULL;
    int64_t *offs = NULL;
    rsql_err_t rc = RSQL_OK;
    if (!p->conf.preview) {
        rc = resume_positions(p, &l, err);
        if (rc == RSQL_OK && l.n > 0) {
            names = rsql_calloc((size_t)l.n, sizeof *names);
            offs = rsql_calloc((size_t)l.n, sizeof *offs);
            keys = rsql_calloc((size_t)l.n, sizeof *keys);
            if (!names || !offs || !keys) {
                rc = rsql_error_nomem(err);
            }
            for (int i = 0; rc == RSQL_OK && i < l.n; i++) {
                names[i] = l.v[i].name;
                offs[i] = l.v[i].off;
                keys[i] = l.v[i].key;
            }
        }
        if (rc == RSQL_OK) {
            rsql_pipeline__resume_note(p, l.n, names, offs, keys);
        }
        ctx.n_resume = rc == RSQL_OK ? l.n : 0;
        ctx.resume_partitions = names;
        ctx.resume_offsets = offs;
        ctx.resume_keys = keys;
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
    rsql_free(names);
    rsql_free(offs);
    rsql_free(keys);
    resume_free(&l);
    return rc;
}

static rsql_err_t open_sink(rsql_pipeline_t *p, rsql_error_t *err)
{
    rsql_sink_ctx_t ctx = p->conf.snk_ctx;
    ctx.pipeline = p->sink_id;
    ctx.deliver = rsql_pipeline__deliver_cb;
    ctx.deliver_opaque = p;
    ctx.source_own_positions = !p->conf.preview && p->conf.src_ops->manages_own_positions;
    ctx.tolerate_all = p->conf.tolerate_all;
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = p->conf.snk_ops->open(&ctx, &p->snk, &e);
    if (rc != RSQL_OK) {
        p->snk = NULL;
        return rsql_error_set(err, rc, e.pos, "%s", e.code ? e.msg : rsql_err_str(rc));
    }
    return RSQL_OK;
}

/*
** open_sink or open_source (open), retried while it fails transiently (a broker or database
** that is restarting or not reachable yet: UNAVAILABLE, a timeout, ...) for up to
** errors.retry.timeout with the usual backoff; a permanent failure, the time used up, or the
** pipeline stopping or aborting ends it with the last error.
*/
static rsql_err_t open_retrying(rsql_pipeline_t *p, const char *what,
                                rsql_err_t (*open)(rsql_pipeline_t *, rsql_error_t *),
                                rsql_error_t *err)
{
    rsql_retry_t retry;
    bool retrying = false;
    for (;;) {
        rsql_error_clear(err);
        rsql_err_t rc = open(p, err);
        if (rc == RSQL_OK || !rsql_error_retriable(err) || atomic_load(&p->stopping) ||
            atomic_load(&p->stop_asked) || atomic_load(&p->aborting)) {
            return rc;
        }
        int64_t now = rsql_now_ms();
        if (!retrying) {
            rsql_retry_init(&retry, p->conf.retry_timeout_ms, p->conf.retry_backoff_max_ms, now);
            retrying = true;
        }
        int64_t wait = rsql_retry_next(&retry, now);
        if (wait < 0) {
            return rc;
        }
        rsql_pipeline__retrying(p, what, err, wait, retry.attempts);
        rsql_pipeline__sleep_interruptible(p, wait, true);
    }
}

/* ---- published stats (rsql_pipeline_stats_t) */

/* A stage thread of a supervised run logs with its job and run (rsql_log_set_context). */
void rsql_pipeline__log_context(rsql_pipeline_t *p)
{
    if (p->conf.stats) {
        rsql_log_set_context(p->conf.job, p->run_id);
    }
}

void rsql_pipeline_stats_init(rsql_pipeline_stats_t *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_init(&st->mu, NULL);
    rsql_pipeline_stats_reset(st, true);
}

void rsql_pipeline_stats_deinit(rsql_pipeline_stats_t *st)
{
    pthread_mutex_destroy(&st->mu);
}

/* Zero the counts for a new run. */
void rsql_pipeline_stats_reset(rsql_pipeline_stats_t *st, bool clear_stop)
{
    atomic_store(&st->read, 0);
    atomic_store(&st->written, 0);
    atomic_store(&st->filtered, 0);
    atomic_store(&st->dead_lettered, 0);
    atomic_store(&st->failed, 0);
    atomic_store(&st->retries, 0);
    atomic_store(&st->in_flight, 0);
    atomic_store(&st->in_flight_bytes, 0);
    atomic_store(&st->queue_depth, 0);
    atomic_store(&st->run_id, 0);
    atomic_store(&st->open, false);
    atomic_store(&st->source_down, false);
    atomic_store(&st->sink_down, false);
    atomic_store(&st->src.held, 0); /* a gauge; the source's counters go on over runs */
    atomic_store(&st->state_keys, 0); /* the state's gauges; its counters go on too */
    atomic_store(&st->state_bytes, 0);
    atomic_store(&st->state_pending, 0);
    /* st->detail stays: the last run's word on its source (its backlog) until the next run
       starts (stats_attach), so a stopped job still shows where it stopped */
    if (clear_stop) {
        pthread_mutex_lock(&st->mu);
        st->stop = false;
        pthread_mutex_unlock(&st->mu);
    }
}

/*
** Stop the run using st, now or when it starts. Any thread: the stop itself is the worker's
** (an RT_OP_SIGNAL op of the pipeline's own, posted once), since only the worker may touch the
** source it opens and closes. @locks st->mu, then the worker queue's
*/
void rsql_pipeline_stats_stop(rsql_pipeline_stats_t *st)
{
    pthread_mutex_lock(&st->mu);
    st->stop = true;
    rsql_pipeline_t *p = st->p;
    if (p && !p->stop_posted) {
        p->stop_posted = true;
        memset(&p->stop_op, 0, sizeof p->stop_op);
        p->stop_op.type = RT_OP_SIGNAL;
        rsql_queue_push(p->wq, &p->stop_op);
        /* a source or sink still opening (retrying a broker that is not there) stops
           retrying now rather than at errors.retry.timeout */
        pthread_mutex_lock(&p->lock);
        atomic_store(&p->stop_asked, true);
        pthread_cond_broadcast(&p->sleep_cv);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&st->mu);
}

/* The run begins / ends using its stats (the stop handle). @locality worker */
static void stats_attach(rsql_pipeline_t *p, bool attach)
{
    rsql_pipeline_stats_t *st = p->conf.stats;
    if (!st) {
        return;
    }
    pthread_mutex_lock(&st->mu);
    st->p = attach ? p : NULL;
    if (attach) {
        st->detail[0] = '\0'; /* the last run's, kept until now (rsql_pipeline_stats_reset) */
    }
    bool stop = attach && st->stop;
    if (!attach) {
        atomic_store(&st->open, false);
    }
    pthread_mutex_unlock(&st->mu);
    if (stop) {
        request_stop_interrupted(p);
    }
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

/* Publish the counts to conf.stats. @locality worker */
static void stats_publish(rsql_pipeline_t *p, int64_t in_flight, int64_t in_flight_bytes)
{
    rsql_pipeline_stats_t *st = p->conf.stats;
    if (!st) {
        return;
    }
    atomic_store(&st->read, atomic_load(&p->read));
    atomic_store(&st->written, p->written);
    atomic_store(&st->filtered, p->filtered);
    atomic_store(&st->dead_lettered, p->dead_lettered);
    atomic_store(&st->failed, p->failed);
    atomic_store(&st->in_flight, in_flight);
    atomic_store(&st->in_flight_bytes, in_flight_bytes);
    atomic_store(&st->queue_depth, rsql_queue_weight(p->q1) + rsql_queue_weight(p->q2));
}

/* Counts of the run. @locality worker (or after the run) */
void rsql_pipeline_counts(rsql_pipeline_t *p, rsql_job_counts_t *out)
{
    counts_now(p, out);
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
        const char *d = source_detail(p, detail, sizeof detail);
        rsql_catalog_run_progress(p->conf.cat, p->run_id, &c, d, NULL);
        rsql_pipeline__hold_touch(p, false);
        if (p->conf.stats) {
            pthread_mutex_lock(&p->conf.stats->mu);
            snprintf(p->conf.stats->detail, sizeof p->conf.stats->detail, "%s", d ? d : "");
            pthread_mutex_unlock(&p->conf.stats->mu);
        }
    }
}

static void worker_loop(rsql_pipeline_t *p)
{
    p->last_flush_ms = rsql_now_ms();
    for (;;) {
        pthread_mutex_lock(&p->lock);
        bool all_resolved = p->live == 0;
        int64_t in_flight = p->in_flight, in_flight_bytes = p->in_flight_bytes;
        pthread_mutex_unlock(&p->lock);
        stats_publish(p, in_flight, in_flight_bytes);
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
                rsql_pipeline__on_outcomes(p, (rt_outcomes_op_t *)op);
                break;
            case RT_OP_DELIVERY:
                rsql_pipeline__on_delivery(p, (rt_delivery_op_t *)op);
                break;
            case RT_OP_WRITE_FAILED:
                rsql_pipeline__on_write_failed(p, (rt_write_failed_op_t *)op);
                break;
            case RT_OP_DLQ_DELIVERY:
                rsql_pipeline__dlq_delivered(p, (rt_delivery_op_t *)op);
                break;
            case RT_OP_POLL_DONE:
                p->poll_done = true; /* p->poll_done_op: nothing to free */
                break;
            case RT_OP_SIGNAL:
                request_stop_interrupted(p); /* p->signal_op or p->stop_op */
                break;
            case RT_OP_CHECKPOINT:
                atomic_store(&p->ckpt_queued, false); /* p->checkpoint_op: nothing to free */
                break;
            default:
                rsql_pipeline__free_op(p, op);
            }
        }
        /* dead letters: write when the queue is idle or enough are waiting */
        rsql_pipeline__dlq_pump(p, rsql_queue_len(p->wq) == 0);
        rsql_pipeline__checkpoint_if_wanted(p);
        now = rsql_now_ms();
        rsql_pipeline__status_note(p, now);
        if (now - p->last_flush_ms >= p->conf.flush_interval_ms) {
            rsql_error_t e;
            rsql_error_clear(&e);
            if (p->conf.state_ask) { /* a seal, for the next checkpoint: soon after this one */
                p->conf.state_ask(p->conf.state_opaque);
            }
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
        rsql_pipeline__hold_begin(p);
    }
    if (p->conf.stats) {
        atomic_store(&p->conf.stats->run_id, p->run_id);
        rsql_log_set_context(p->conf.job, p->run_id); /* serve: lines carry job and run */
    }
    stats_attach(p, true);
    rsql_err_t rc = RSQL_OK;
    bool signals = false;
    if (p->conf.handle_signals) {
        rc = rsql_pipeline__signals_start(p, &e);
        signals = rc == RSQL_OK;
    }
    if (rc == RSQL_OK) {
        rc = open_retrying(p, "sink open", open_sink, &e);
    }
    if (rc == RSQL_OK) {
        rc = rsql_pipeline__dlq_open(p, &e);
    }
    if (rc == RSQL_OK) {
        rc = open_retrying(p, "source open", open_source, &e);
    }
    if (rc == RSQL_OK) {
        rsql_pipeline__hold_touch(p, false); /* from now on it may hold messages */
    }
    if (rc == RSQL_OK) {
        if (p->conf.src_ops->total) {
            p->total = p->conf.src_ops->total(p->src);
        }
        if (p->conf.stats) {
            atomic_store(&p->conf.stats->open, true);
        }
        if (start_thread(p, &p->write_th, rsql_pipeline__write_main, &p->write_started) &&
            start_thread(p, &p->xform_th, rsql_pipeline__transform_main, &p->xform_started)) {
            start_thread(p, &p->poll_th, rsql_pipeline__poll_main, &p->poll_started);
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
        /* the dead-letter thread too: it may still be in a flush that reported its last rows
           (and may fail the run), and must not outlive the source */
        rsql_pipeline__dlq_stop(p);
        /* late ops (e.g. a delivery racing the end) */
        rsql_qop_t *op;
        while (rsql_queue_pop(p->wq, 0, &op) == RSQL_OK) {
            if (op->type == RT_OP_DELIVERY) {
                rsql_pipeline__on_delivery(p, (rt_delivery_op_t *)op);
            } else if (op->type == RT_OP_OUTCOMES) {
                rsql_pipeline__on_outcomes(p, (rt_outcomes_op_t *)op);
            } else if (op->type == RT_OP_WRITE_FAILED) {
                rsql_pipeline__on_write_failed(p, (rt_write_failed_op_t *)op);
            } else if (op->type == RT_OP_DLQ_DELIVERY) {
                rsql_pipeline__dlq_delivered(p, (rt_delivery_op_t *)op);
            } else {
                rsql_pipeline__free_op(p, op);
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
    if (p->conf.stats) { /* the run's last word on its source (serve's /jobs, /metrics) */
        pthread_mutex_lock(&p->conf.stats->mu);
        snprintf(p->conf.stats->detail, sizeof p->conf.stats->detail, "%s", detail ? detail : "");
        pthread_mutex_unlock(&p->conf.stats->mu);
    }
    if (p->src && p->conf.src_ops->leftover) {
        p->conf.src_ops->leftover(p->src, p->leftover, sizeof p->leftover);
    }
    if (p->src) {
        if (p->conf.src_ops->close) {
            p->conf.src_ops->close(p->src);
        }
        p->src = NULL;
        if (p->conf.stats) {
            atomic_store(&p->conf.stats->src.held, 0); /* nothing is held once closed */
        }
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
        rsql_pipeline__signal_note(p);
    }
    stats_attach(p, false);
    stats_publish(p, 0, 0);
    p->end_ms = rsql_now_ms();
    rsql_pipeline__status_final(p);
    if (p->run_id > 0) {
        rsql_job_counts_t c;
        counts_now(p, &c);
        const char *status = rc != RSQL_OK ? "failed"
                             : atomic_load(&p->interrupted) ? "interrupted"
                                                             : "done";
        rsql_pipeline__hold_touch(p, true);
        rsql_catalog_run_end(p->conf.cat, p->run_id, status, &c, rc != RSQL_OK ? e.msg : NULL,
                             detail, NULL);
    }
    if (rc != RSQL_OK) {
        return rsql_error_set(err, rc, e.pos, "%s", e.msg);
    }
    return RSQL_OK;
}
