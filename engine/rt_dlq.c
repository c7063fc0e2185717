/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Dead letters: under errors.tolerance = all a
 * record that fails to decode, evaluate or be written goes to the catalog
 * table named by errors.dlq.table, through that table's own sink connector
 * (sqlite, filesystem, print, ...): columns raw (the body as received, or
 * the row as JSON when the source produced rows), stage (decode, eval,
 * sink), error, source (the record's ident) and ts (now). Other columns of
 * the table get NULL.
 *
 * The worker queues dead letters and, when its queue is idle (or a batch
 * is full), builds them into a batch that it hands to the dead-letter
 * thread (rsql_pipeline__dlq_pump never waits). That thread writes the
 * batch, retrying a transient refusal per errors.retry.*, and flushes the
 * dead-letter sink when nothing more waits. A record's outcome becomes
 * DEAD_LETTERED only when the dead-letter sink confirms its row (its
 * delivery report, on the worker); rows reported with a transient error
 * go back to the thread within the same errors.retry.timeout window (one
 * per batch); a permanent failure, or the retry time used up, FAILS the
 * record and the run. A batch's delivery report is allocated with the
 * batch, so the delivery callback never allocates; out of memory fails
 * the records it concerns and the run (RSQL_ERR_NOMEM), it never waits or
 * aborts.
 * Without a dead-letter table, tolerated records are only counted.
 * A window aggregation's late rows (table.exec.late-rows = dead-letter) come here too, with
 * stage late, under either tolerance: not failures, so nothing stops the run at them, but their
 * positions complete only once their dead-letter rows are written, as any dead letter's.
 * The dead-letter sink is opened with pipeline id "<id>#dlq" so an
 * exactly-once sink keeps its positions apart from the main sink's.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct dlq_item {
    rt_inbatch_t *ib;
    int idx;
    const char *stage; /* static */
    rsql_error_t err;
    /* a late row's record that also carries rows for the sink: its dead letter, once written,
       is one more of its rows WRITTEN (rsql_pipeline__dlq_add_late) */
    bool with_rows;
} dlq_item_t;

/* The outcome of it once its dead-letter row is written. */
static rsql_outcome_t item_done(const dlq_item_t *it)
{
    rsql_outcome_t o = {it->with_rows ? RSQL_OUTCOME_WRITTEN : RSQL_OUTCOME_DEAD_LETTERED,
                        it->with_rows ? NULL : &it->err, NULL};
    return o;
}

typedef struct rt_dlqbatch {
    rsql_qop_t op; /* worker -> dead-letter thread (rt_dlq_t.q) */
    int n;
    dlq_item_t *items;
    rsql_sink_row_t *rows;
    rsql_arena_t *arena;   /* the row values and their bytes */
    rt_delivery_op_t *dop; /* its delivery report: room for n results */
    bool has_retry;
    rsql_retry_t retry;    /* one errors.retry.timeout window for its rows */
    int64_t not_before_ms; /* a retry waits until then */
    bool final;            /* the thread gave up on it: its report is not retried */
} rt_dlqbatch_t;

#define DLQ_IDLE_FLUSH_MS 50 /* the thread flushes after this long without work */
#define DLQ_FLUSH_TIMEOUT_MS 30000

enum { C_RAW, C_STAGE, C_ERROR, C_SOURCE, C_TS, C_N };
static const char *const dlq_cols[C_N] = {"raw", "stage", "error", "source", "ts"};

struct rt_dlq {
    rsql_sink_t *snk;
    char *pipeline_id;
    int col[C_N]; /* index in the table, -1 when absent */
    dlq_item_t *pending;
    int n_pending, cap_pending;
    int64_t outstanding; /* worker: rows handed to the thread, outcome not yet seen */
    rsql_queue_t *q;     /* batches to write; unbounded: the worker never waits on it */
    pthread_t th;
    bool started;
    atomic_int_least64_t unreported; /* rows the sink accepted, not yet reported */
};

static void dlqbatch_free(rt_dlqbatch_t *db);
static void *dlq_main(void *arg);
static int64_t dlq_retry_wait(rsql_pipeline_t *p, rt_dlqbatch_t *db, const rsql_error_t *cause,
                              const char *what, int64_t now);

static void free_leftover(rsql_qop_t *op)
{
    dlqbatch_free((rt_dlqbatch_t *)op);
}

/* The dead-letter sink's delivery callback: into the batch's own report. Any thread. */
static void dlq_deliver_cb(void *opaque, uint64_t batch_id, int n,
                           const rsql_sink_result_t *results)
{
    rsql_pipeline_t *p = opaque;
    rt_dlqbatch_t *db = (rt_dlqbatch_t *)(uintptr_t)batch_id;
    rt_delivery_op_t *d = db->dop;
    atomic_fetch_sub(&p->dlq->unreported, db->n);
    memset(&d->op, 0, sizeof d->op);
    d->op.type = RT_OP_DLQ_DELIVERY;
    d->batch = db;
    d->n = n < 0 ? 0 : n > db->n ? db->n : n;
    d->all_ok = false; /* the results are copied whole: few rows, read once */
    if (d->n) {
        memcpy(d->results, results, (size_t)d->n * sizeof(rsql_sink_result_t));
    }
    rsql_queue_push(p->wq, &d->op);
}

/*
** Open the dead-letter sink when conf.dlq_ops is set. @locality worker
*/
rsql_err_t rsql_pipeline__dlq_open(rsql_pipeline_t *p, rsql_error_t *err)
{
    rt_dlq_t *d = rsql_calloc(1, sizeof(*d));
    if (!d) {
        return rsql_error_nomem(err);
    }
    p->dlq = d;
    if (!p->conf.dlq_ops) {
        return RSQL_OK;
    }
    const rsql_sink_ctx_t *c = &p->conf.dlq_ctx;
    for (int k = 0; k < C_N; k++) {
        d->col[k] = -1;
        for (int i = 0; i < c->n_columns; i++) {
            if (c->column_names && strcasecmp(c->column_names[i], dlq_cols[k]) == 0) {
                d->col[k] = i;
            }
        }
    }
    size_t len = strlen(p->sink_id) + 5;
    d->pipeline_id = rsql_malloc(len);
    if (!d->pipeline_id) {
        return rsql_error_nomem(err);
    }
    snprintf(d->pipeline_id, len, "%s#dlq", p->sink_id);
    rsql_sink_ctx_t ctx = *c;
    ctx.pipeline = d->pipeline_id;
    ctx.deliver = dlq_deliver_cb;
    ctx.deliver_opaque = p;
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = p->conf.dlq_ops->open(&ctx, &d->snk, &e);
    if (rc != RSQL_OK) {
        d->snk = NULL;
        return rsql_error_set(err, rc, RSQL_NOPOS, "opening the dead-letter table '%s': %s",
                              c->table ? c->table : "?", e.code ? e.msg : rsql_err_str(rc));
    }
    if (!(d->q = rsql_queue_new(0))) {
        return rsql_error_nomem(err);
    }
    if (pthread_create(&d->th, NULL, dlq_main, p) != 0) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "cannot start the dead-letter thread");
    }
    d->started = true;
    return RSQL_OK;
}

/*
** End the dead-letter thread (it writes what is queued, then ends), so nothing of it runs
** once the worker goes on to close the source: a failure it reports is the run's. Idempotent.
** @locality worker
*/
void rsql_pipeline__dlq_stop(rsql_pipeline_t *p)
{
    rt_dlq_t *d = p->dlq;
    if (!d || !d->q) {
        return;
    }
    rsql_queue_close(d->q);
    if (d->started) {
        pthread_join(d->th, NULL);
        d->started = false;
    }
}

/* See pipeline_int.h. */
int64_t rsql_pipeline__dlq_queued(rsql_pipeline_t *p)
{
    return p->dlq ? rsql_queue_len(p->dlq->q) : 0;
}

/* Close the dead-letter sink and drop anything left. @locality worker */
void rsql_pipeline__dlq_close(rsql_pipeline_t *p)
{
    rt_dlq_t *d = p->dlq;
    if (!d) {
        return;
    }
    if (d->q) {
        rsql_pipeline__dlq_stop(p);
        rsql_queue_destroy(d->q, free_leftover);
    }
    if (d->snk && p->conf.dlq_ops->close) {
        p->conf.dlq_ops->close(d->snk);
    }
    rsql_free(d->pending);
    rsql_free(d->pipeline_id);
    rsql_free(d);
    p->dlq = NULL;
}

/* Dead letters queued or in flight. */
int64_t rsql_pipeline__dlq_busy(rsql_pipeline_t *p)
{
    return p->dlq ? p->dlq->n_pending + p->dlq->outstanding : 0;
}

/*
** Queue record idx of ib as a dead letter (err is copied). Without a
** dead-letter sink it is DEAD_LETTERED at once. @locality worker
*/
static void dlq_queue(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx, const char *stage,
                      const rsql_error_t *err, bool with_rows)
{
    rt_dlq_t *d = p->dlq;
    if (!d || !d->snk) {
        rsql_outcome_t o = {with_rows ? RSQL_OUTCOME_WRITTEN : RSQL_OUTCOME_DEAD_LETTERED,
                            with_rows ? NULL : err, NULL};
        rsql_pipeline__resolve(p, ib, idx, &o);
        return;
    }
    if (d->n_pending == d->cap_pending) {
        int cap = d->cap_pending ? d->cap_pending * 2 : 16;
        dlq_item_t *np = rsql_realloc(d->pending, (size_t)cap * sizeof(dlq_item_t));
        if (!np) {
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory queueing a dead letter");
            rsql_pipeline__fail(p, &e, false);
            rsql_outcome_t o = {RSQL_OUTCOME_FAILED, &e, NULL};
            rsql_pipeline__resolve(p, ib, idx, &o);
            return;
        }
        d->pending = np;
        d->cap_pending = cap;
    }
    dlq_item_t *it = &d->pending[d->n_pending++];
    it->ib = ib;
    it->idx = idx;
    it->stage = stage;
    it->err = *err;
    it->with_rows = with_rows;
}

void rsql_pipeline__dlq_add(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx, const char *stage,
                            const rsql_error_t *err)
{
    dlq_queue(p, ib, idx, stage, err, false);
}

/* See pipeline_int.h. @locality worker */
void rsql_pipeline__dlq_add_late(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx,
                                 const rsql_error_t *err, bool with_rows)
{
    if (ib->resolved[idx]) {
        return; /* a row of it failed first: that is its outcome */
    }
    dlq_queue(p, ib, idx, "late", err, with_rows);
}

/* ---- rendering a row as JSON (raw column for row-native sources) */

static void json_str(rsql_buf_t *b, const char *s, size_t n)
{
    rsql_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"':
            rsql_buf_puts(b, "\\\"");
            break;
        case '\\':
            rsql_buf_puts(b, "\\\\");
            break;
        case '\n':
            rsql_buf_puts(b, "\\n");
            break;
        case '\r':
            rsql_buf_puts(b, "\\r");
            break;
        case '\t':
            rsql_buf_puts(b, "\\t");
            break;
        default:
            if (c < 0x20) {
                rsql_buf_printf(b, "\\u%04x", c);
            } else {
                rsql_buf_putc(b, (char)c);
            }
        }
    }
    rsql_buf_putc(b, '"');
}

/*
** Render a source row as a JSON object {"col": value, ...} with the
** source's column names (or c1, c2, ...), values in their canonical text
** (base/rsql_value.h) as the json format writes them. Appends to b.
*/
static void row_json(const rsql_pipeline_t *p, const rsql_value_t *row, rsql_buf_t *b)
{
    const rsql_source_ctx_t *c = &p->conf.src_ctx;
    rsql_buf_putc(b, '{');
    for (int i = 0; i < c->n_columns; i++) {
        if (i) {
            rsql_buf_putc(b, ',');
        }
        if (c->column_names && c->column_names[i]) {
            json_str(b, c->column_names[i], strlen(c->column_names[i]));
        } else {
            rsql_buf_printf(b, "\"c%d\"", i + 1);
        }
        rsql_buf_putc(b, ':');
        const rsql_value_t *v = &row[i];
        if (v->is_null || v->type == RSQL_TYPE_NULL) {
            rsql_buf_puts(b, "null");
            continue;
        }
        switch (v->type) {
        case RSQL_TYPE_VARCHAR:
            json_str(b, v->v.s.p ? v->v.s.p : "", v->v.s.len);
            break;
        case RSQL_TYPE_DOUBLE:
            if (isfinite(v->v.d)) {
                rsql_value_format(v, b);
                break;
            }
            /* NaN and infinities are strings, as the json format writes them */
            /* fall through */
        case RSQL_TYPE_BYTES:
        case RSQL_TYPE_TIMESTAMP:
            /* base64, timestamp and non-finite texts have nothing to escape */
            rsql_buf_putc(b, '"');
            rsql_value_format(v, b);
            rsql_buf_putc(b, '"');
            break;
        default:
            rsql_value_format(v, b);
        }
    }
    rsql_buf_putc(b, '}');
}

static void set_text(rsql_value_t *v, rsql_type_t t, const char *s, size_t n)
{
    v->type = t;
    v->is_null = false;
    v->v.s.p = s;
    v->v.s.len = n;
}

/* Fail a dead letter's record and the run (code: why's). @locality worker */
static void dlq_item_fail(rsql_pipeline_t *p, dlq_item_t *it, rsql_err_t code, const char *why)
{
    char ibuf[64];
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_error_set(&e, code, RSQL_NOPOS, "dead-letter write failed at %s: %s",
                   rsql_pipeline__ident(p, &it->ib->b->recs[it->idx], ibuf, sizeof ibuf), why);
    rsql_pipeline__fail(p, &e, false);
    rsql_outcome_t o = {RSQL_OUTCOME_FAILED, &e, NULL};
    rsql_pipeline__resolve(p, it->ib, it->idx, &o);
}

static void dlqbatch_free(rt_dlqbatch_t *db)
{
    if (db) {
        rsql_free(db->items);
        rsql_free(db->rows);
        rsql_arena_destroy(db->arena);
        rsql_free(db->dop);
        rsql_free(db);
    }
}

/* A dead-letter report nobody served (a leftover of the worker queue). */
void rsql_pipeline__dlq_free_report(rt_delivery_op_t *op)
{
    dlqbatch_free(op->batch);
}

/* Build the dead-letter row of it into vals (n_cols values) in arena. */
static bool build_row(rsql_pipeline_t *p, rt_dlq_t *d, dlq_item_t *it, rsql_arena_t *arena,
                      rsql_value_t *vals, int n_cols, int64_t now)
{
    const rsql_record_t *rec = &it->ib->b->recs[it->idx];
    const rsql_type_t *types = p->conf.dlq_ctx.column_types;
    for (int i = 0; i < n_cols; i++) {
        vals[i].type = types ? types[i] : RSQL_TYPE_VARCHAR;
        vals[i].is_null = true;
    }
    char ibuf[64];
    const char *ident = rsql_pipeline__ident(p, rec, ibuf, sizeof ibuf);
    if (d->col[C_RAW] >= 0) {
        rsql_type_t t = types ? types[d->col[C_RAW]] : RSQL_TYPE_BYTES;
        if (rec->raw) {
            set_text(&vals[d->col[C_RAW]], t, (const char *)rec->raw, rec->raw_len);
        } else if (rec->row) {
            rsql_buf_t b = RSQL_BUF_INIT;
            row_json(p, rec->row, &b);
            char *s = b.oom ? NULL : rsql_arena_strndup(arena, rsql_buf_str(&b), b.len);
            size_t len = b.len;
            rsql_buf_deinit(&b);
            if (!s) {
                return false;
            }
            set_text(&vals[d->col[C_RAW]], t, s, len);
        }
    }
    const char *texts[C_N] = {NULL, it->stage, it->err.msg, ident, NULL};
    for (int k = C_STAGE; k <= C_SOURCE; k++) {
        if (d->col[k] >= 0 && texts[k]) {
            char *s = rsql_arena_strdup(arena, texts[k]);
            if (!s) {
                return false;
            }
            set_text(&vals[d->col[k]], RSQL_TYPE_VARCHAR, s, strlen(s));
        }
    }
    if (d->col[C_TS] >= 0) {
        rsql_value_t *v = &vals[d->col[C_TS]];
        v->type = RSQL_TYPE_TIMESTAMP;
        v->is_null = false;
        v->v.ts = now;
    }
    return true;
}

/*
** Write the queued dead letters when force or a batch is full, then flush
** the dead-letter sink. @locality worker
*/
void rsql_pipeline__dlq_pump(rsql_pipeline_t *p, bool force)
{
    rt_dlq_t *d = p->dlq;
    if (!d || d->n_pending == 0 || (!force && d->n_pending < p->conf.batch_size)) {
        return;
    }
    int n = d->n_pending;
    int n_cols = p->conf.dlq_ctx.n_columns;
    rt_dlqbatch_t *db = rsql_calloc(1, sizeof(*db));
    if (!db) {
        /* no memory even to hold them: each fails (and the run), nothing waits */
        for (int i = 0; i < n; i++) {
            dlq_item_fail(p, &d->pending[i], RSQL_ERR_NOMEM, "out of memory");
        }
        d->n_pending = 0;
        return;
    }
    db->items = d->pending;
    db->n = n;
    d->pending = NULL;
    d->n_pending = d->cap_pending = 0;
    db->rows = rsql_calloc((size_t)n, sizeof(rsql_sink_row_t));
    db->arena = rsql_arena_new();
    db->dop = rsql_calloc(1, sizeof(rt_delivery_op_t) + (size_t)n * sizeof(rsql_sink_result_t));
    rsql_value_t *vals = NULL;
    if (db->rows && db->arena && db->dop) {
        vals = rsql_arena_alloc(db->arena,
                                (size_t)n * (size_t)(n_cols > 0 ? n_cols : 1) *
                                    sizeof(rsql_value_t));
    }
    bool ok = vals != NULL;
    int64_t now = rsql_wall_ms();
    for (int i = 0; ok && i < n; i++) {
        dlq_item_t *it = &db->items[i];
        rsql_record_t *rec = &it->ib->b->recs[it->idx];
        ok = build_row(p, d, it, db->arena, vals + (size_t)i * (size_t)n_cols, n_cols, now);
        db->rows[i].values = vals + (size_t)i * (size_t)n_cols;
        db->rows[i].rec = rec;
        const char *pn = rsql_pipeline__partition_name(p, rec->partition);
        db->rows[i].partition_name = rsql_arena_strdup(db->arena, pn);
        ok = ok && db->rows[i].partition_name;
    }
    if (!ok) {
        for (int i = 0; i < db->n; i++) {
            dlq_item_fail(p, &db->items[i], RSQL_ERR_NOMEM, "out of memory");
        }
        dlqbatch_free(db);
        return;
    }
    db->op.type = RT_OP_WRITE;
    db->op.weight = 0; /* unbounded queue: the worker never waits */
    if (rsql_queue_push(d->q, &db->op) != RSQL_OK) {
        /* cannot happen: the queue is closed only after the worker ends */
        abort();
    }
    d->outstanding += n; /* db belongs to the thread, then the sink, until its report */
}

/*
** The dead-letter sink reported a batch: DEAD_LETTERED per confirmed row,
** FAILED (and the run fails) otherwise. @locality worker
*/
void rsql_pipeline__dlq_delivered(rsql_pipeline_t *p, rt_delivery_op_t *op)
{
    rt_dlqbatch_t *db = op->batch;
    rt_dlq_t *d = p->dlq;
    int n = db->n, n_retry = 0; /* rows kept for another write, compacted to the front */
    int64_t now = rsql_now_ms();
    int64_t wait = -2; /* not computed yet */
    for (int i = 0; i < n; i++) {
        dlq_item_t *it = &db->items[i];
        const rsql_sink_result_t *r = i < op->n ? &op->results[i] : NULL;
        if (r && r->code == RSQL_OK) {
            rsql_outcome_t o = item_done(it);
            rsql_pipeline__resolve(p, it->ib, it->idx, &o);
            continue;
        }
        if (r && rsql_err_code_retriable(r->code) && !db->final && !atomic_load(&p->aborting)) {
            if (wait == -2) {
                rsql_error_t cause;
                rsql_error_clear(&cause);
                rsql_error_set(&cause, r->code, RSQL_NOPOS, "%s",
                               r->msg[0] ? r->msg : rsql_err_str(r->code));
                wait = dlq_retry_wait(p, db, &cause, "dead-letter delivery", now);
            }
            if (wait >= 0) {
                db->items[n_retry] = db->items[i];
                db->rows[n_retry] = db->rows[i];
                n_retry++;
                continue;
            }
        }
        dlq_item_fail(p, it, r ? r->code : RSQL_ERR_SINK,
                      r ? (r->msg[0] ? r->msg : rsql_err_str(r->code))
                        : "the sink reported no result");
    }
    d->outstanding -= n - n_retry;
    if (n_retry > 0) {
        /* again, to the thread: db (and op in it) belong to it again */
        db->n = n_retry;
        db->not_before_ms = now + wait;
        memset(&db->op, 0, sizeof db->op);
        db->op.type = RT_OP_WRITE;
        if (rsql_queue_push_urgent(d->q, &db->op) == RSQL_OK) {
            return;
        }
        d->outstanding -= n_retry;
        for (int i = 0; i < n_retry; i++) {
            dlq_item_fail(p, &db->items[i], RSQL_ERR_SINK, "retry refused: the writer stopped");
        }
    }
    dlqbatch_free(db); /* op lives in it */
}

/* ---- the dead-letter thread */

/*
** After a transient failure (cause) of db at now: the wait before its next attempt, or -1
** when its retry time (one window per batch, from its first failure) is used up. Logged as
** a retry (what). Any thread that holds db.
*/
static int64_t dlq_retry_wait(rsql_pipeline_t *p, rt_dlqbatch_t *db, const rsql_error_t *cause,
                              const char *what, int64_t now)
{
    if (!db->has_retry) {
        rsql_retry_init(&db->retry, p->conf.retry_timeout_ms, p->conf.retry_backoff_max_ms,
                        now);
        db->has_retry = true;
    }
    int64_t wait = rsql_retry_next(&db->retry, now);
    if (wait >= 0) {
        rsql_pipeline__retrying(p, what, cause, wait, db->retry.attempts);
    }
    return wait;
}

/* Post db's report with every row failed by e (the thread gave up on it). */
static void dlq_post_failed(rsql_pipeline_t *p, rt_dlqbatch_t *db, const rsql_error_t *e)
{
    rt_delivery_op_t *d = db->dop;
    memset(&d->op, 0, sizeof d->op);
    d->op.type = RT_OP_DLQ_DELIVERY;
    d->batch = db;
    d->n = db->n;
    d->all_ok = false;
    for (int i = 0; i < db->n; i++) {
        memset(&d->results[i], 0, sizeof d->results[i]);
        d->results[i].code = e->code;
        snprintf(d->results[i].msg, sizeof d->results[i].msg, "%.*s",
                 (int)sizeof d->results[i].msg - 1, e->msg);
    }
    db->final = true;
    rsql_queue_push(p->wq, &d->op); /* wq is never closed: cannot fail */
}

static void dlq_flush(rsql_pipeline_t *p);

/*
** Wait ms before a retry of a batch. Batches written before it and not yet reported are
** flushed first: with a sink that reports only at a flush, their records would otherwise
** wait out this batch's backoff too.
*/
static void dlq_backoff(rsql_pipeline_t *p, int64_t ms)
{
    if (atomic_load(&p->dlq->unreported) > 0) {
        dlq_flush(p);
    }
    rsql_pipeline__sleep_interruptible(p, ms, false);
}

/* Write db, retrying a transient refusal; on giving up, its report fails every row. */
static void dlq_write(rsql_pipeline_t *p, rt_dlqbatch_t *db)
{
    rt_dlq_t *d = p->dlq;
    int64_t now = rsql_now_ms();
    if (db->not_before_ms > now) {
        dlq_backoff(p, db->not_before_ms - now);
    }
    for (;;) {
        rsql_error_t e;
        rsql_error_clear(&e);
        int n = db->n;
        atomic_fetch_add(&d->unreported, n);
        rsql_err_t rc = p->conf.dlq_ops->write(d->snk, (uint64_t)(uintptr_t)db, n, db->rows, &e);
        if (rc == RSQL_OK) {
            return; /* db belongs to the sink until its report (maybe already posted) */
        }
        atomic_fetch_sub(&d->unreported, n);
        if (!e.code) {
            rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
        }
        int64_t wait = -1;
        if (rsql_error_retriable(&e) && !atomic_load(&p->aborting)) {
            wait = dlq_retry_wait(p, db, &e, "dead-letter write", rsql_now_ms());
        }
        if (wait < 0) {
            dlq_post_failed(p, db, &e);
            return;
        }
        dlq_backoff(p, wait);
    }
}

/* Flush the dead-letter sink; a permanent failure fails the run (a transient one: later). */
static void dlq_flush(rsql_pipeline_t *p)
{
    if (!p->conf.dlq_ops->flush) {
        return;
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = p->conf.dlq_ops->flush(p->dlq->snk, DLQ_FLUSH_TIMEOUT_MS, &e);
    if (rc != RSQL_OK && !e.code) {
        rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
    }
    if (rc != RSQL_OK && !rsql_error_retriable(&e)) {
        rsql_error_t f;
        rsql_error_clear(&f);
        rsql_error_set(&f, rc, RSQL_NOPOS, "dead-letter table: flush failed: %s", e.msg);
        rsql_pipeline__fail(p, &f, false);
    }
}

/*
** The dead-letter thread: writes the batches the worker hands it, and flushes the sink when
** none waits (or, while rows are unreported, every DLQ_IDLE_FLUSH_MS). Ends once its queue
** is closed and empty.
*/
static void *dlq_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    rt_dlq_t *d = p->dlq;
    rsql_pipeline__log_context(p);
    for (;;) {
        rsql_qop_t *op;
        int64_t unrep = atomic_load(&d->unreported);
        rsql_err_t rc = rsql_queue_pop(d->q, unrep > 0 ? DLQ_IDLE_FLUSH_MS : -1, &op);
        if (rc == RSQL_ERR_INTERRUPTED) {
            break;
        }
        if (rc == RSQL_ERR_TIMEOUT) {
            dlq_flush(p);
            continue;
        }
        dlq_write(p, (rt_dlqbatch_t *)op);
        if (rsql_queue_len(d->q) == 0) {
            dlq_flush(p);
        }
    }
    if (atomic_load(&d->unreported) > 0) {
        dlq_flush(p);
    }
    return NULL;
}
