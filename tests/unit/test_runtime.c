/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of whole pipelines over fake in-test sources and sinks
 * (exactly one outcome and one commit_record per record, positions never
 * past an unknown outcome, back-pressure, tolerance none / all with dead
 * letters, sink retries, resume positions, signals, the summary line).
 * The queue, offset tracker and retry backoff are tested in test_queue.c.
 *
 * Nothing here waits for time to pass instead of an event: a test that needs
 * the pipeline in some state waits for the fakes to signal it (event_t: the
 * source has given all it will give and is holding, the sink has entered a
 * write, the source was woken by a stop), and a fake that must stall blocks on
 * such an event rather than sleeping. The timeouts on those waits only turn a
 * bug into a failure instead of a hang.
 */
#include "config.h"
#include "runtime/rsql_pipeline.h"
#include "runtime/rsql_queue.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- events: a counter and a condition variable */

typedef struct event {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t count;
} event_t;

static void event_init(event_t *e)
{
    pthread_mutex_init(&e->mu, NULL);
    rsql_cond_init_monotonic(&e->cv);
    e->count = 0;
}

static void event_signal(event_t *e)
{
    pthread_mutex_lock(&e->mu);
    e->count++;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

/* Wait until e was signalled at least n times; false after timeout_ms (a bug: never time). */
static bool event_wait(event_t *e, int64_t n, int64_t timeout_ms)
{
    int64_t dl = rsql_deadline_in(timeout_ms);
    pthread_mutex_lock(&e->mu);
    while (e->count < n && rsql_cond_wait_until(&e->cv, &e->mu, dl) == 0) {
    }
    bool ok = e->count >= n;
    pthread_mutex_unlock(&e->mu);
    return ok;
}

#define EVENT_TIMEOUT_MS 60000

/* ---- fake source */

#define MAXREC 200000

typedef struct fake_src {
    int64_t n; /* records; -1 = unbounded */
    int parts;
    int64_t next;
    pthread_mutex_t lock;
    int commits[MAXREC];
    int kinds[MAXREC];
    int64_t polled, resolved, max_in_flight;
    int committed_calls;
    int64_t committed[8]; /* last source.committed per partition */
    bool raw;             /* give raw bodies instead of rows */
    int n_resume;
    char resume_names[8][16];
    int64_t resume_offs[8];
    pthread_t poll_thread, commit_thread;
    bool threads_differ;
    /* unbounded (n < 0) with hold > 0: give hold records, then hold (signal 'held' and wait
       for a wakeup, as a real source waits for data) until the pipeline stops */
    int64_t hold;
    event_t held, woken; /* woken: every wakeup (the pipeline stopping) */
    event_t polls;       /* every poll that gave records */
} fake_src_t;

static fake_src_t *g_src;

static rsql_err_t fsrc_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    (void)err;
    fake_src_t *s = g_src;
    s->n_resume = ctx->n_resume < 8 ? ctx->n_resume : 8;
    for (int i = 0; i < s->n_resume; i++) {
        snprintf(s->resume_names[i], sizeof s->resume_names[i], "%s",
                 ctx->resume_partitions[i]);
        s->resume_offs[i] = ctx->resume_offsets[i];
    }
    *out = (rsql_source_t *)s;
    return RSQL_OK;
}

static rsql_err_t fsrc_poll(rsql_source_t *src, rsql_batch_t *b, int max, int timeout_ms,
                            bool *eof, rsql_error_t *err)
{
    (void)timeout_ms;
    (void)err;
    fake_src_t *s = (fake_src_t *)src;
    pthread_mutex_lock(&s->lock);
    s->poll_thread = pthread_self();
    pthread_mutex_unlock(&s->lock);
    if (s->hold > 0 && s->next >= s->hold) {
        /* nothing more until stopped: wait for a wakeup (or the poll timeout) like a real
           source; the first time, say so */
        pthread_mutex_lock(&s->held.mu);
        bool first = s->held.count == 0;
        pthread_mutex_unlock(&s->held.mu);
        if (first) {
            event_signal(&s->held);
        }
        pthread_mutex_lock(&s->woken.mu);
        int64_t dl = rsql_deadline_in(timeout_ms);
        while (s->woken.count == 0 && rsql_cond_wait_until(&s->woken.cv, &s->woken.mu, dl) == 0) {
        }
        pthread_mutex_unlock(&s->woken.mu);
        return RSQL_OK;
    }
    for (int k = 0; k < max && !(s->hold > 0 && s->next >= s->hold); k++) {
        if (s->n >= 0 && s->next >= s->n) {
            *eof = true;
            break;
        }
        if (s->next >= MAXREC) {
            *eof = true;
            break;
        }
        int64_t i = s->next++;
        rsql_record_t *r = rsql_batch_add(b);
        r->partition = (uint32_t)(i % s->parts);
        r->offset = i / s->parts + 1;
        char id[32];
        int len = snprintf(id, sizeof id, "fake@%" PRId64, i);
        r->ident = (const char *)rsql_batch_copy(b, id, (size_t)len);
        r->opaque = (void *)(intptr_t)i;
        if (s->raw) {
            len = snprintf(id, sizeof id, "%" PRId64, i);
            r->raw = rsql_batch_copy(b, id, (size_t)len);
            r->raw_len = (size_t)len;
        } else {
            rsql_value_t *v = rsql_arena_alloc(b->arena, sizeof(*v));
            v->type = RSQL_TYPE_BIGINT;
            v->v.i = i;
            r->row = v;
        }
    }
    pthread_mutex_lock(&s->lock);
    s->polled += b->n;
    if (s->polled - s->resolved > s->max_in_flight) {
        s->max_in_flight = s->polled - s->resolved;
    }
    pthread_mutex_unlock(&s->lock);
    event_signal(&s->polls);
    return RSQL_OK;
}

static int fsrc_partition_count(rsql_source_t *src)
{
    return ((fake_src_t *)src)->parts;
}

static const char *const part_names[] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"};

static const char *fsrc_partition_name(rsql_source_t *src, uint32_t partition)
{
    (void)src;
    return partition < 8 ? part_names[partition] : "p?";
}

static void fsrc_commit_record(rsql_source_t *src, const rsql_record_t *rec,
                               const rsql_outcome_t *o)
{
    fake_src_t *s = (fake_src_t *)src;
    int64_t i = (intptr_t)rec->opaque;
    pthread_mutex_lock(&s->lock);
    s->commit_thread = pthread_self();
    if (pthread_equal(s->commit_thread, s->poll_thread)) {
        s->threads_differ = false;
    }
    s->commits[i]++;
    s->kinds[i] = o->kind;
    s->resolved++;
    pthread_mutex_unlock(&s->lock);
}

static void fsrc_committed(rsql_source_t *src, uint32_t partition, int64_t offset)
{
    fake_src_t *s = (fake_src_t *)src;
    s->committed_calls++;
    if (partition < 8) {
        s->committed[partition] = offset;
    }
}

static int64_t fsrc_total(rsql_source_t *src)
{
    return ((fake_src_t *)src)->n;
}

static void fsrc_close(rsql_source_t *src)
{
    (void)src;
}

static void fsrc_wakeup(rsql_source_t *src)
{
    event_signal(&((fake_src_t *)src)->woken);
}

static const rsql_source_ops_t fake_source_ops = {
    .open = fsrc_open,
    .poll = fsrc_poll,
    .partition_count = fsrc_partition_count,
    .partition_name = fsrc_partition_name,
    .commit_record = fsrc_commit_record,
    .committed = fsrc_committed,
    .total = fsrc_total,
    .wakeup = fsrc_wakeup,
    .close = fsrc_close,
};

/* ---- fake sink */

enum { DELIVER_SYNC, DELIVER_ON_FLUSH, DELIVER_THREAD };

typedef struct pend {
    uint64_t id;
    int n;
    rsql_sink_result_t *res;
} pend_t;

typedef struct fake_snk {
    int mode;
    rsql_delivery_cb cb;
    void *opaque;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pend_t pend[4096];
    int n_pend;
    bool stop;
    pthread_t th;
    /* what it received */
    int64_t rows;
    int64_t last[8];
    int order_violations;
    int64_t max_value_written;
    int attempts[MAXREC];
    /* failure rules */
    int64_t fail_mod, fail_rem;     /* non-retriable when v % mod == rem (mod > 0) */
    int64_t retry_mod;              /* retriable for the first 2 attempts when v % mod == 0 */
    int write_fails;                /* first write() calls refused, retriable */
    int write_calls;
    int stored_n;                   /* stored positions to report */
    int64_t stored[8];
    event_t entered;                /* every write() */
    int64_t gate_in_flight;         /* > 0: writes wait until the source has this many in flight */
    bool stall;                     /* writes wait for 'release' (a sink that never finishes) */
    event_t release;
    /* dead letters received (as text) */
    char dl_stage[64][16], dl_error[64][160], dl_source[64][32], dl_raw[64][64];
    int n_dl;
    int64_t dl_total;
} fake_snk_t;

static fake_snk_t *g_out, *g_dlq;

static void deliver_all(fake_snk_t *s)
{
    pthread_mutex_lock(&s->lock);
    int n = s->n_pend;
    pend_t copy[4096];
    memcpy(copy, s->pend, (size_t)n * sizeof(pend_t));
    s->n_pend = 0;
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < n; i++) {
        s->cb(s->opaque, copy[i].id, copy[i].n, copy[i].res);
        free(copy[i].res);
    }
}

static void *fsnk_thread(void *arg)
{
    fake_snk_t *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        if (s->n_pend == 0) {
            pthread_cond_wait(&s->cv, &s->lock);
            continue;
        }
        pthread_mutex_unlock(&s->lock);
        deliver_all(s);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    deliver_all(s);
    return NULL;
}

static rsql_err_t fsnk_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    (void)err;
    fake_snk_t *s = strcmp(ctx->table, "dlq") == 0 ? g_dlq : g_out;
    s->cb = ctx->deliver;
    s->opaque = ctx->deliver_opaque;
    if (s->mode == DELIVER_THREAD) {
        pthread_create(&s->th, NULL, fsnk_thread, s);
    }
    *out = (rsql_sink_t *)s;
    return RSQL_OK;
}

static rsql_err_t fsnk_write(rsql_sink_t *snk, uint64_t id, int n, const rsql_sink_row_t *rows,
                             rsql_error_t *err)
{
    fake_snk_t *s = (fake_snk_t *)snk;
    event_signal(&s->entered);
    if (s->gate_in_flight > 0) {
        /* stalled until the poller has got this far ahead (it must: the credit allows it) */
        fake_src_t *src = g_src;
        int64_t dl = rsql_deadline_in(EVENT_TIMEOUT_MS);
        pthread_mutex_lock(&src->polls.mu);
        for (;;) {
            pthread_mutex_lock(&src->lock);
            int64_t in_flight = src->polled - src->resolved;
            pthread_mutex_unlock(&src->lock);
            if (in_flight >= s->gate_in_flight ||
                rsql_cond_wait_until(&src->polls.cv, &src->polls.mu, dl) != 0) {
                break;
            }
        }
        pthread_mutex_unlock(&src->polls.mu);
        s->gate_in_flight = 0; /* once */
    }
    if (s->stall) {
        event_wait(&s->release, 1, EVENT_TIMEOUT_MS);
    }
    if (s->write_calls++ < s->write_fails) {
        return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS, "try later");
    }
    rsql_sink_result_t *res = calloc((size_t)n, sizeof(*res));
    for (int i = 0; i < n; i++) {
        if (s == g_dlq) {
            s->dl_total++;
            if (s->n_dl < 64) {
                int k = s->n_dl++;
                /* columns: raw, stage, error, source, ts */
                snprintf(s->dl_raw[k], sizeof s->dl_raw[k], "%.*s", (int)rows[i].values[0].v.s.len,
                         rows[i].values[0].v.s.p);
                snprintf(s->dl_stage[k], sizeof s->dl_stage[k], "%.*s",
                         (int)rows[i].values[1].v.s.len, rows[i].values[1].v.s.p);
                snprintf(s->dl_error[k], sizeof s->dl_error[k], "%.*s",
                         (int)rows[i].values[2].v.s.len, rows[i].values[2].v.s.p);
                snprintf(s->dl_source[k], sizeof s->dl_source[k], "%.*s",
                         (int)rows[i].values[3].v.s.len, rows[i].values[3].v.s.p);
                CU_ASSERT_EQUAL(rows[i].values[4].type, RSQL_TYPE_TIMESTAMP);
                CU_ASSERT(rows[i].values[4].v.ts > 1600000000000LL);
            }
            continue;
        }
        int64_t v = rows[i].values[0].v.i;
        CU_ASSERT_STRING_EQUAL(rows[i].partition_name, part_names[rows[i].rec->partition]);
        if (s->fail_mod > 0 && v % s->fail_mod == s->fail_rem) {
            res[i].code = RSQL_ERR_SINK;
            snprintf(res[i].msg, sizeof res[i].msg, "rejected %" PRId64, v);
            continue;
        }
        if (s->retry_mod > 0 && v % s->retry_mod == 0 && v < MAXREC && s->attempts[v]++ < 2) {
            res[i].code = RSQL_ERR_UNAVAILABLE; /* transient: the runtime writes it again */
            snprintf(res[i].msg, sizeof res[i].msg, "busy");
            continue;
        }
        uint32_t part = rows[i].rec->partition;
        if (v <= s->last[part] && s->rows > 0 && s->retry_mod == 0) {
            s->order_violations++;
        }
        s->last[part] = v;
        if (v > s->max_value_written) {
            s->max_value_written = v;
        }
        s->rows++;
        snprintf(res[i].meta, sizeof res[i].meta, "v=%" PRId64, v);
    }
    if (s->mode == DELIVER_SYNC) {
        s->cb(s->opaque, id, n, res);
        free(res);
        return RSQL_OK;
    }
    pthread_mutex_lock(&s->lock);
    s->pend[s->n_pend++] = (pend_t){id, n, res};
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->lock);
    return RSQL_OK;
}

static rsql_err_t fsnk_flush(rsql_sink_t *snk, int timeout_ms, rsql_error_t *err)
{
    (void)timeout_ms;
    (void)err;
    fake_snk_t *s = (fake_snk_t *)snk;
    if (s->mode == DELIVER_ON_FLUSH) {
        deliver_all(s);
    }
    return RSQL_OK;
}

static int fsnk_stored(rsql_sink_t *snk, int max, char **parts, int64_t *offs)
{
    fake_snk_t *s = (fake_snk_t *)snk;
    int n = s->stored_n < max ? s->stored_n : max;
    for (int i = 0; i < n; i++) {
        parts[i] = rsql_strdup(part_names[i]);
        offs[i] = s->stored[i];
    }
    return n;
}

static void fsnk_close(rsql_sink_t *snk)
{
    fake_snk_t *s = (fake_snk_t *)snk;
    if (s->mode == DELIVER_THREAD) {
        pthread_mutex_lock(&s->lock);
        s->stop = true;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->th, NULL);
    }
}

static const rsql_sink_ops_t fake_sink_ops = {
    .open = fsnk_open,
    .write = fsnk_write,
    .flush = fsnk_flush,
    .stored_positions = fsnk_stored,
    .close = fsnk_close,
};

/* ---- transform: v % 10 == 3 filtered; v in the fail rule: error */

typedef struct xf {
    int64_t fail_mod, fail_rem; /* eval error when v % mod == rem */
    int64_t fail_at;            /* eval error at exactly this value (>= 0) */
} xf_t;

static rsql_err_t xf_apply(void *opaque, rsql_batch_t *b, rsql_record_t *rec,
                           const rsql_value_t **out, bool *keep, const char **stage,
                           rsql_error_t *err)
{
    xf_t *x = opaque;
    if (!rec->row) {
        *stage = "decode";
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%.*s", (int)rec->raw_len, (const char *)rec->raw);
        rsql_value_t *v = rsql_arena_alloc(b->arena, sizeof(*v));
        v->type = RSQL_TYPE_BIGINT;
        v->v.i = atoll(tmp);
        if (v->v.i % 7 == 5) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "invalid JSON at byte 1");
        }
        rec->row = v;
    }
    *stage = "eval";
    int64_t v = rec->row[0].v.i;
    if ((x->fail_mod > 0 && v % x->fail_mod == x->fail_rem) || v == x->fail_at) {
        return rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "1:8: division by zero");
    }
    *keep = v % 10 != 3;
    *out = rec->row;
    return RSQL_OK;
}

/* ---- harness */

static fake_src_t src_store;
static fake_snk_t out_store, dlq_store;
static xf_t xf_store;
static rsql_catalog_t *g_cat;
static char *dlq_names[] = {"raw", "stage", "error", "source", "ts"};
static rsql_type_t dlq_types[] = {RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR,
                                  RSQL_TYPE_VARCHAR, RSQL_TYPE_TIMESTAMP};
static const char *src_names[] = {"v"};
static rsql_type_t src_types[] = {RSQL_TYPE_BIGINT};

static void harness_reset(int64_t n, int parts, int mode)
{
    memset(&src_store, 0, sizeof src_store);
    memset(&out_store, 0, sizeof out_store);
    memset(&dlq_store, 0, sizeof dlq_store);
    memset(&xf_store, 0, sizeof xf_store);
    xf_store.fail_at = -1;
    src_store.n = n;
    src_store.parts = parts;
    src_store.threads_differ = true;
    pthread_mutex_init(&src_store.lock, NULL);
    event_init(&src_store.held);
    event_init(&src_store.woken);
    event_init(&src_store.polls);
    event_init(&out_store.entered);
    event_init(&out_store.release);
    event_init(&dlq_store.entered);
    event_init(&dlq_store.release);
    for (int i = 0; i < 8; i++) {
        out_store.last[i] = -1;
    }
    out_store.mode = mode;
    pthread_mutex_init(&out_store.lock, NULL);
    pthread_cond_init(&out_store.cv, NULL);
    dlq_store.mode = DELIVER_SYNC;
    pthread_mutex_init(&dlq_store.lock, NULL);
    pthread_cond_init(&dlq_store.cv, NULL);
    g_src = &src_store;
    g_out = &out_store;
    g_dlq = &dlq_store;
    rsql_catalog_close(g_cat);
    g_cat = rsql_catalog_open(":memory:", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g_cat);
}

static void conf_base(rsql_pipeline_conf_t *c)
{
    rsql_pipeline_conf_init(c);
    c->id = "job1";
    c->batch_size = 64;
    c->queue_capacity = 128;
    c->retry_timeout_ms = 5000;
    c->retry_backoff_max_ms = 20;
    c->src_ops = &fake_source_ops;
    c->src_ctx.table = "src";
    c->src_ctx.n_columns = 1;
    c->src_ctx.column_names = src_names;
    c->src_ctx.column_types = src_types;
    c->snk_ops = &fake_sink_ops;
    c->snk_ctx.table = "out";
    c->snk_ctx.n_columns = 1;
    c->snk_ctx.column_names = src_names;
    c->snk_ctx.column_types = src_types;
    c->transform = xf_apply;
    c->transform_opaque = &xf_store;
    c->cat = g_cat;
    c->record_run = true;
    c->job = "job1";
    c->sql = "INSERT INTO out SELECT v FROM src";
}

static void with_dlq(rsql_pipeline_conf_t *c)
{
    c->tolerate_all = true;
    c->dlq_ops = &fake_sink_ops;
    c->dlq_ctx.table = "dlq";
    c->dlq_ctx.n_columns = 5;
    c->dlq_ctx.column_names = (const char *const *)dlq_names;
    c->dlq_ctx.column_types = dlq_types;
}

static rsql_err_t run(rsql_pipeline_conf_t *c, rsql_job_counts_t *counts, rsql_error_t *err)
{
    rsql_error_clear(err);
    rsql_pipeline_t *p = rsql_pipeline_new(c, err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    rsql_err_t rc = rsql_pipeline_run(p, err);
    rsql_pipeline_counts(p, counts);
    rsql_pipeline_destroy(p);
    return rc;
}

/* Every polled record got exactly one commit_record. */
static void assert_one_outcome_each(int64_t polled)
{
    int bad = 0;
    for (int64_t i = 0; i < polled; i++) {
        bad += src_store.commits[i] != 1;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(src_store.resolved, polled);
}

static int64_t saved_offset(const char *part)
{
    char *v = NULL;
    rsql_catalog_offset_get(g_cat, "job1", part, &v, NULL);
    int64_t o = v ? atoll(v) : -1;
    rsql_free(v);
    return o;
}

static void counts_add_up(const rsql_job_counts_t *c)
{
    CU_ASSERT_EQUAL(c->read, c->written + c->filtered + c->dead_lettered + c->failed);
}

static void check_all_written(int mode)
{
    harness_reset(20000, 3, mode);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.read, 20000);
    CU_ASSERT_EQUAL(k.filtered, 2000);
    CU_ASSERT_EQUAL(k.written, 18000);
    CU_ASSERT_EQUAL(out_store.rows, 18000);
    CU_ASSERT_EQUAL(out_store.order_violations, 0);
    counts_add_up(&k);
    assert_one_outcome_each(20000);
    CU_ASSERT_TRUE(src_store.threads_differ);
    /* bounded: never more in flight than 3 x queue capacity (+ one batch of slack) */
    CU_ASSERT(src_store.max_in_flight <= 3 * 128 + 64);
    /* positions of every partition at its last record */
    CU_ASSERT_EQUAL(saved_offset("p0"), 6667);
    CU_ASSERT_EQUAL(saved_offset("p1"), 6667);
    CU_ASSERT_EQUAL(saved_offset("p2"), 6666);
    CU_ASSERT_EQUAL(src_store.committed[0], 6667);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_catalog_run_list(g_cat, "job1", 0, &runs, &n, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "done");
    CU_ASSERT_EQUAL(runs[0]->counts.read, 20000);
    CU_ASSERT_EQUAL(runs[0]->counts.written, 18000);
    CU_ASSERT_EQUAL(runs[0]->counts.filtered, 2000);
    rsql_job_run_array_free(runs, n);
}

static void test_pipeline_all_written_sync(void)
{
    check_all_written(DELIVER_SYNC);
}

static void test_pipeline_all_written_on_flush(void)
{
    check_all_written(DELIVER_ON_FLUSH);
}

static void test_pipeline_all_written_delivery_thread(void)
{
    check_all_written(DELIVER_THREAD);
}

static void test_pipeline_backpressure_slow_sink(void)
{
    harness_reset(3000, 2, DELIVER_THREAD);
    /* the sink's first write stalls until the poller is 64 records ahead: it must get there
       (the credit is 3 x 32 records), and it must not get further than the bound */
    out_store.gate_in_flight = 64;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.batch_size = 16;
    c.queue_capacity = 32;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.written + k.filtered, 3000);
    CU_ASSERT(src_store.max_in_flight <= 3 * 32 + 16);
    CU_ASSERT(src_store.max_in_flight >= 64);
    assert_one_outcome_each(3000);
}

static void test_pipeline_eval_failure_tolerance_none(void)
{
    harness_reset(5000, 2, DELIVER_ON_FLUSH);
    xf_store.fail_at = 1000; /* partition 0, offset 501 */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_EVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "eval error at fake@1000: 1:8: division by zero");
    CU_ASSERT_EQUAL(src_store.kinds[1000], RSQL_OUTCOME_FAILED);
    /* nothing at or after the failure reached the sink or was committed */
    CU_ASSERT(out_store.max_value_written < 1000);
    CU_ASSERT(saved_offset("p0") <= 500);
    CU_ASSERT(src_store.committed[0] <= 500);
    CU_ASSERT(saved_offset("p1") <= 501);
    assert_one_outcome_each(src_store.polled);
    CU_ASSERT(k.failed >= 1);
    counts_add_up(&k);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_catalog_run_list(g_cat, "job1", 0, &runs, &n, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "failed");
    CU_ASSERT_STRING_EQUAL(runs[0]->error, "eval error at fake@1000: 1:8: division by zero");
    rsql_job_run_array_free(runs, n);
}

static void test_pipeline_tolerance_all_dead_letters(void)
{
    harness_reset(10000, 3, DELIVER_THREAD);
    xf_store.fail_mod = 50;
    xf_store.fail_rem = 7; /* 200 eval failures */
    src_store.raw = true;  /* and decode failures: v % 7 == 5 */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    int64_t dec = 0, ev = 0, filt = 0;
    for (int64_t v = 0; v < 10000; v++) {
        if (v % 7 == 5) {
            dec++;
        } else if (v % 50 == 7) {
            ev++;
        } else if (v % 10 == 3) {
            filt++;
        }
    }
    CU_ASSERT_EQUAL(k.dead_lettered, dec + ev);
    CU_ASSERT_EQUAL(dlq_store.dl_total, dec + ev);
    CU_ASSERT_EQUAL(k.filtered, filt);
    CU_ASSERT_EQUAL(k.written, 10000 - dec - ev - filt);
    CU_ASSERT_EQUAL(k.failed, 0);
    counts_add_up(&k);
    assert_one_outcome_each(10000);
    CU_ASSERT_EQUAL(src_store.kinds[5], RSQL_OUTCOME_DEAD_LETTERED);
    CU_ASSERT_EQUAL(src_store.kinds[7], RSQL_OUTCOME_DEAD_LETTERED);
    /* tolerated failures never stall the position */
    CU_ASSERT_EQUAL(saved_offset("p0"), 3334);
    CU_ASSERT_EQUAL(saved_offset("p1"), 3333);
    CU_ASSERT_EQUAL(saved_offset("p2"), 3333);
    /* the first dead letter: record 5 (decode), raw as received */
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[0], "decode");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_raw[0], "5");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_source[0], "fake@5");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_error[0], "decode error at fake@5: invalid JSON at byte 1");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[1], "eval");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_source[1], "fake@7");
}

static void test_pipeline_dlq_row_as_json(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    xf_store.fail_at = 42;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 1);
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_raw[0], "{\"v\":42}");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[0], "eval");
}

static void test_pipeline_tolerance_all_without_dlq_counts(void)
{
    harness_reset(1000, 1, DELIVER_SYNC);
    xf_store.fail_mod = 100;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.tolerate_all = true;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 10);
    CU_ASSERT_EQUAL(saved_offset("p0"), 1000);
}

static void test_pipeline_sink_failure_tolerance_none(void)
{
    harness_reset(3000, 1, DELIVER_ON_FLUSH);
    out_store.fail_mod = 100000;
    out_store.fail_rem = 1500;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_SINK);
    CU_ASSERT_STRING_EQUAL(err.msg, "sink error at fake@1500: rejected 1500");
    CU_ASSERT_EQUAL(src_store.kinds[1500], RSQL_OUTCOME_FAILED);
    CU_ASSERT(saved_offset("p0") <= 1500);
    CU_ASSERT(saved_offset("p0") >= 0);
    assert_one_outcome_each(src_store.polled);
    counts_add_up(&k);
}

static void test_pipeline_sink_failure_tolerance_all(void)
{
    harness_reset(3000, 1, DELIVER_SYNC);
    out_store.fail_mod = 1000;
    out_store.fail_rem = 1;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 3);
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[0], "sink");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_error[0], "sink error at fake@1: rejected 1");
    CU_ASSERT_EQUAL(saved_offset("p0"), 3000);
}

static void test_pipeline_sink_retries(void)
{
    harness_reset(2000, 2, DELIVER_THREAD);
    out_store.retry_mod = 97; /* these rows fail twice, retriably */
    out_store.write_fails = 3; /* and the first three writes are refused */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.written + k.filtered, 2000);
    CU_ASSERT_EQUAL(k.failed, 0);
    CU_ASSERT_EQUAL(out_store.attempts[97], 3);
    assert_one_outcome_each(2000);
}

static void test_pipeline_retry_timeout_fails(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    out_store.write_fails = 1000000;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.retry_timeout_ms = 300;
    rsql_job_counts_t k;
    rsql_error_t err;
    int64_t t0 = rsql_now_ms();
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_UNAVAILABLE);
    int64_t el = rsql_now_ms() - t0;
    /* it retried, and gave up only once the retry time was used up (a lower bound on the
       monotonic clock is not a race; how much later it ended depends on the machine) */
    CU_ASSERT(out_store.write_calls >= 2);
    CU_ASSERT(el >= 300);
    CU_ASSERT_STRING_EQUAL(err.msg, "sink error at fake@0: try later");
    CU_ASSERT_EQUAL(k.written, 0);
    CU_ASSERT_EQUAL(saved_offset("p0"), -1);
    assert_one_outcome_each(src_store.polled);
}

static void test_pipeline_resume_positions(void)
{
    harness_reset(10, 3, DELIVER_SYNC);
    rsql_catalog_offset_put(g_cat, "job1", "p0", "7", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p1", "2", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p2", "9", NULL);
    out_store.stored_n = 2; /* the sink stored p0 = 5 (behind), p1 = 4 (ahead) */
    out_store.stored[0] = 5;
    out_store.stored[1] = 4;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(src_store.n_resume, 3);
    int64_t got[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        got[src_store.resume_names[i][1] - '0'] = src_store.resume_offs[i];
    }
    CU_ASSERT_EQUAL(got[0], 7);
    CU_ASSERT_EQUAL(got[1], 4);
    CU_ASSERT_EQUAL(got[2], 9);
}

static void test_pipeline_preview_commits_nothing(void)
{
    harness_reset(1000, 1, DELIVER_SYNC);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.preview = true;
    c.record_run = false;
    c.limit = 10;
    c.batch_size = 4;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(out_store.rows, 10);
    CU_ASSERT_EQUAL(src_store.resolved, 0);
    CU_ASSERT_EQUAL(src_store.committed_calls, 0);
    CU_ASSERT_EQUAL(saved_offset("p0"), -1);
    CU_ASSERT(k.read < 1000); /* stopped after the limit */
    counts_add_up(&k);
}

static void test_pipeline_summary_line(void)
{
    harness_reset(500, 1, DELIVER_SYNC);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    FILE *f = tmpfile();
    c.status_out = f;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    char line[256] = "";
    rewind(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    CU_ASSERT_EQUAL(strncmp(line, "read=500 written=450 filtered=50 dead_lettered=0 failed=0 "
                                  "elapsed=", 66), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "s rate="));
    size_t len = strlen(line);
    CU_ASSERT(len > 9 && strcmp(line + len - 8, " rows/s\n") == 0);
}

/* True when a handler (not the default action, not ignored) is installed for SIGINT. */
static bool sigint_handled(void)
{
    struct sigaction sa;
    sigaction(SIGINT, NULL, &sa);
    return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

/*
** Send SIGINT once the source has given everything and holds (an event: the pipeline is
** running, so its handler is installed). The handler is checked before the signal is sent:
** if it were missing, the test fails and the run is stopped instead, so a signal can never
** kill the test binary. The source holds until the pipeline stops, so the run cannot end
** before the signal (it used to end "done" on a fast machine, the signal then killing us).
*/
static void *send_sigint(void *arg)
{
    rsql_pipeline_t *p = arg;
    CU_ASSERT_TRUE(event_wait(&src_store.held, 1, EVENT_TIMEOUT_MS));
    if (sigint_handled()) {
        kill(getpid(), SIGINT);
    } else {
        CU_FAIL("the pipeline's SIGINT handler is not installed");
        rsql_pipeline_stop(p);
    }
    return NULL;
}

static void test_pipeline_sigint_drains_and_commits(void)
{
    harness_reset(-1, 2, DELIVER_THREAD);
    src_store.hold = 5000;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.handle_signals = true;
    rsql_pipeline_t *p = rsql_pipeline_new(&c, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    pthread_t th;
    pthread_create(&th, NULL, send_sigint, p);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_pipeline_run(p, &err), RSQL_OK);
    pthread_join(th, NULL);
    CU_ASSERT_TRUE(rsql_pipeline_interrupted(p));
    rsql_job_counts_t k;
    rsql_pipeline_counts(p, &k);
    rsql_pipeline_destroy(p);
    CU_ASSERT_EQUAL(k.read, 5000); /* everything polled was drained */
    CU_ASSERT_EQUAL(k.read, k.written + k.filtered);
    assert_one_outcome_each(src_store.polled);
    CU_ASSERT_EQUAL(saved_offset("p0"), 2500);
    CU_ASSERT_EQUAL(saved_offset("p1"), 2500);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_catalog_run_list(g_cat, "job1", 0, &runs, &n, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "interrupted");
    rsql_job_run_array_free(runs, n);
    /* the old disposition is back */
    CU_ASSERT_FALSE(sigint_handled());
}

/*
** In the child: the first SIGINT once the sink is inside a write (the handler is installed),
** the second once the first was seen (the pipeline stopping woke the source). Standard signals
** do not queue, so the second must wait for that event.
*/
static void *send_two_sigints(void *arg)
{
    (void)arg;
    if (!event_wait(&out_store.entered, 1, EVENT_TIMEOUT_MS) || !sigint_handled()) {
        _exit(3);
    }
    kill(getpid(), SIGINT);
    if (!event_wait(&src_store.woken, 1, EVENT_TIMEOUT_MS)) {
        _exit(4);
    }
    kill(getpid(), SIGINT);
    return NULL;
}

static void test_pipeline_second_signal_exits_at_once(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        harness_reset(-1, 1, DELIVER_SYNC);
        /* a stubborn sink: its write never finishes, so a drain could only end by the
           safety timeout (then _exit(0)); the second signal must not wait for it */
        out_store.stall = true;
        rsql_pipeline_conf_t c;
        conf_base(&c);
        c.handle_signals = true;
        rsql_pipeline_t *p = rsql_pipeline_new(&c, NULL);
        pthread_t th;
        pthread_create(&th, NULL, send_two_sigints, p);
        pthread_detach(th);
        rsql_pipeline_run(p, NULL);
        _exit(0); /* not reached when the second signal works */
    }
    /* dying by SIGINT proves the second signal did not wait for the stalled drain */
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFSIGNALED(st));
    if (WIFSIGNALED(st)) {
        CU_ASSERT_EQUAL(WTERMSIG(st), SIGINT);
    } else {
        fprintf(stderr, "\n  child exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

static int suite_clean(void)
{
    rsql_catalog_close(g_cat);
    g_cat = NULL;
    return 0;
}

static CU_TestInfo pipeline_tests[] = {
    {"test_runtime_all_written_sync", test_pipeline_all_written_sync},
    {"test_runtime_all_written_on_flush", test_pipeline_all_written_on_flush},
    {"test_runtime_all_written_delivery_thread", test_pipeline_all_written_delivery_thread},
    {"test_runtime_backpressure_slow_sink", test_pipeline_backpressure_slow_sink},
    {"test_runtime_eval_failure_none", test_pipeline_eval_failure_tolerance_none},
    {"test_runtime_tolerance_all_dlq", test_pipeline_tolerance_all_dead_letters},
    {"test_runtime_dlq_row_json", test_pipeline_dlq_row_as_json},
    {"test_runtime_tolerance_all_no_dlq", test_pipeline_tolerance_all_without_dlq_counts},
    {"test_runtime_sink_failure_none", test_pipeline_sink_failure_tolerance_none},
    {"test_runtime_sink_failure_all", test_pipeline_sink_failure_tolerance_all},
    {"test_runtime_sink_retries", test_pipeline_sink_retries},
    {"test_runtime_retry_timeout_fails", test_pipeline_retry_timeout_fails},
    {"test_runtime_resume_positions", test_pipeline_resume_positions},
    {"test_runtime_preview_commits_nothing", test_pipeline_preview_commits_nothing},
    {"test_runtime_summary_line", test_pipeline_summary_line},
    {"test_runtime_sigint_drains", test_pipeline_sigint_drains_and_commits},
    {"test_runtime_second_signal", test_pipeline_second_signal_exits_at_once},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"runtime_pipeline", NULL, suite_clean, NULL, NULL, pipeline_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
