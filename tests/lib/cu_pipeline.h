/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper of the pipeline unit tests (tests/unit/test_runtime.c): events
 * (a counter and a monotonic condition variable, so a test waits for what it
 * needs instead of sleeping), a fake source and fake sinks that record every
 * outcome, commit and delivery and can fail, retry, hold or stall on an
 * event, a transform (v % 10 == 3 filtered, rule-driven eval and decode
 * errors) and the harness that builds and runs a pipeline over them against
 * an in-memory catalog. Header-only; include it once per test binary.
 */
#ifndef RSQL_CU_PIPELINE_H
#define RSQL_CU_PIPELINE_H

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "base/rsql_time.h"
#include "catalog/rsql_catalog.h"
#include "tests/lib/cu_state.h"
#include "engine/rsql_pipeline.h"

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
    bool keyed;           /* each record's position has a text part: "k<offset>" */
    int body_pad;         /* > 0: each record also carries a raw body of this many bytes */
    int first_max;        /* the max the first poll asked for */
    int n_resume;
    char resume_names[8][16];
    int64_t resume_offs[8];
    char resume_keys[8][16]; /* "" when none */
    int n_resume_all; /* every resume position given at open */
    int n_resume_q;   /* of them, "q<i>" at offset i (a sink's past 8) */
    int opens;
    pthread_t poll_thread, commit_thread;
    bool threads_differ;
    /* unbounded (n < 0) with hold > 0: give hold records, then hold (signal 'held' and wait
       for a wakeup, as a real source waits for data) until the pipeline stops */
    int64_t hold;
    /* bounded (n >= 0) with idle_ms > 0: after the last record, one poll waits idle_ms for
       more before the end, as a bounded source's idle timeout does */
    int64_t idle_ms;
    bool idled;
    /* pause_at > 0: records from pause_at on are given only once 'go' is signalled */
    int64_t pause_at;
    event_t go;
    event_t held, woken; /* woken: every wakeup (the pipeline stopping) */
    event_t polls;       /* every poll that gave records */
    event_t committed_ev; /* every commit_record */
    event_t closed;       /* close */
    int closed_in_dlq_flush; /* closes while the dead-letter sink was in flush */
} fake_src_t;

static fake_src_t *g_src;

static rsql_err_t fsrc_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    (void)err;
    fake_src_t *s = g_src;
    s->opens++;
    s->n_resume_all = ctx->n_resume;
    s->n_resume_q = 0;
    for (int i = 0; i < ctx->n_resume; i++) {
        char q[16];
        snprintf(q, sizeof q, "q%" PRId64, ctx->resume_offsets[i]);
        s->n_resume_q += strcmp(ctx->resume_partitions[i], q) == 0;
    }
    s->n_resume = ctx->n_resume < 8 ? ctx->n_resume : 8;
    for (int i = 0; i < s->n_resume; i++) {
        snprintf(s->resume_names[i], sizeof s->resume_names[i], "%s",
                 ctx->resume_partitions[i]);
        s->resume_offs[i] = ctx->resume_offsets[i];
        snprintf(s->resume_keys[i], sizeof s->resume_keys[i], "%s",
                 ctx->resume_keys && ctx->resume_keys[i] ? ctx->resume_keys[i] : "");
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
    if (s->pause_at > 0 && s->next >= s->pause_at) {
        event_wait(&s->go, 1, EVENT_TIMEOUT_MS);
    }
    if (s->polled == 0 && s->first_max == 0) {
        s->first_max = max;
    }
    for (int k = 0; k < max && !(s->hold > 0 && s->next >= s->hold); k++) {
        if (s->pause_at > 0 && s->next == s->pause_at && k > 0) {
            break; /* the rest once 'go' is signalled */
        }
        if (s->n >= 0 && s->next >= s->n) {
            if (s->idle_ms > 0 && !s->idled) {
                if (k > 0) {
                    break; /* these first; the next poll waits */
                }
                s->idled = true; /* the idle timeout: nothing came for idle_ms */
                struct timespec ts = {s->idle_ms / 1000, (long)(s->idle_ms % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
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
        if (s->keyed) {
            len = snprintf(id, sizeof id, "k%" PRId64, r->offset);
            r->pos_key = (const char *)rsql_batch_copy(b, id, (size_t)len);
        }
        if (s->raw) {
            len = snprintf(id, sizeof id, "%" PRId64, i);
            r->raw = rsql_batch_copy(b, id, (size_t)len);
            r->raw_len = (size_t)len;
        } else {
            rsql_value_t *v = rsql_arena_alloc(b->arena, sizeof(*v));
            v->type = RSQL_TYPE_BIGINT;
            v->v.i = i;
            r->row = v;
            if (s->body_pad > 0) { /* the body as received, besides the row */
                uint8_t *body = rsql_arena_alloc(b->arena, (size_t)s->body_pad);
                memset(body, 'x', (size_t)s->body_pad);
                r->raw = body;
                r->raw_len = (size_t)s->body_pad;
            }
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
    event_signal(&s->committed_ev);
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

struct fake_snk;
static bool fsnk_in_flush(struct fake_snk *s);
static struct fake_snk *g_dlq;

static void fsrc_close(rsql_source_t *src)
{
    fake_src_t *s = (fake_src_t *)src;
    if (g_dlq && fsnk_in_flush(g_dlq)) {
        s->closed_in_dlq_flush++;
    }
    event_signal(&s->closed);
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
    int64_t kinds_seen[4];  /* rows written, by rsql_rowkind_t */
    uint8_t seen[MAXREC];   /* values written (those below MAXREC) */
    int attempts[MAXREC];
    /* failure rules */
    int64_t fail_mod, fail_rem;     /* non-retriable when v % mod == rem (mod > 0) */
    int64_t retry_mod;              /* retriable for the first 2 attempts when v % mod == 0 */
    bool retry_forever;             /* ... for every attempt, not the first 2 */
    int write_fails;                /* first write() calls refused, retriable */
    int write_fail_at;              /* > 0: that write() call (from 1) refused, retriable */
    int write_calls;
    int flushes;                    /* flush() calls */
    int flushes_at_write[8];        /* flushes before write() call i (from 1) began */
    int stored_n;                   /* stored positions to report (p0.. and then q8..) */
    int64_t stored[8];              /* of p0..p7; partitions past 8 are "q<i>" at offset i */
    const char *stored_keys[8];     /* their text parts (NULL: none) */
    int stored_fails;               /* first stored_positions calls fail with stored_code */
    rsql_err_t stored_code;
    int stored_calls;
    event_t entered;                /* every write() */
    int64_t gate_in_flight;         /* > 0: writes wait until the source has this many in flight */
    bool stall;                     /* writes wait for 'release' (a sink that never finishes) */
    event_t release;
    /* dead letters received (as text) */
    char dl_stage[64][16], dl_error[64][160], dl_source[64][32], dl_raw[64][64];
    int n_dl;
    int64_t dl_total;
    int dl_row_fails; /* the first dead-letter rows fail, transiently, in the report */
    /* > 0: a flush that reported rows then waits up to this long for the source to close and
       fails (not retriable), as a sink whose last step after its reports failed */
    int flush_fail_wait_ms;
    /* the first flush_code_calls flushes with rows to report return flush_code (transient)
       and report nothing: a sink still sending (TIMEOUT) or one whose commit failed (BUSY) */
    rsql_err_t flush_code;
    int flush_code_calls;
    bool in_flush;
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
    if (s->write_calls + 1 < 8) {
        s->flushes_at_write[s->write_calls + 1] = s->flushes;
    }
    if (s->write_calls + 1 == s->write_fail_at) {
        s->write_calls++;
        return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS, "try later");
    }
    if (s->write_calls++ < s->write_fails) {
        return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS, "try later");
    }
    rsql_sink_result_t *res = calloc((size_t)n, sizeof(*res));
    for (int i = 0; i < n; i++) {
        if (s == g_dlq && s->dl_row_fails > 0) {
            s->dl_row_fails--;
            res[i].code = RSQL_ERR_UNAVAILABLE;
            snprintf(res[i].msg, sizeof res[i].msg, "busy");
            continue;
        }
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
        if (s->retry_mod > 0 && v % s->retry_mod == 0 && v < MAXREC && (s->attempts[v]++ < 2 || s->retry_forever)) {
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
        s->kinds_seen[rows[i].kind & 3]++;
        if (v >= 0 && v < MAXREC) {
            s->seen[v] = 1;
        }
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

static bool fsnk_in_flush(fake_snk_t *s)
{
    pthread_mutex_lock(&s->lock);
    bool in = s->in_flush;
    pthread_mutex_unlock(&s->lock);
    return in;
}

static rsql_err_t fsnk_flush(rsql_sink_t *snk, int timeout_ms, rsql_error_t *err)
{
    (void)timeout_ms;
    fake_snk_t *s = (fake_snk_t *)snk;
    pthread_mutex_lock(&s->lock);
    bool reports = s->n_pend > 0;
    s->in_flush = true;
    s->flushes++;
    bool refuse = reports && s->flush_code_calls > 0;
    if (refuse) {
        s->flush_code_calls--;
        s->in_flush = false;
    }
    pthread_mutex_unlock(&s->lock);
    if (refuse) {
        return rsql_error_set(err, s->flush_code, RSQL_NOPOS, "%s",
                              s->flush_code == RSQL_ERR_TIMEOUT ? "still sending"
                                                                : "database is locked");
    }
    if (s->mode == DELIVER_ON_FLUSH) {
        deliver_all(s);
    }
    bool fail = reports && s->flush_fail_wait_ms > 0;
    if (fail) {
        event_wait(&g_src->closed, 1, s->flush_fail_wait_ms);
    }
    pthread_mutex_lock(&s->lock);
    s->in_flush = false;
    pthread_mutex_unlock(&s->lock);
    if (fail) {
        return rsql_error_set(err, RSQL_ERR_SINK, RSQL_NOPOS, "commit failed");
    }
    return RSQL_OK;
}

static rsql_err_t fsnk_stored(rsql_sink_t *snk, rsql_position_cb add, void *opaque,
                              rsql_error_t *err)
{
    fake_snk_t *s = (fake_snk_t *)snk;
    if (s->stored_calls++ < s->stored_fails) {
        /* a failure after some positions were read: none of them may be used */
        if (s->stored_n > 0) {
            add(opaque, part_names[0], s->stored[0], s->stored_keys[0]);
        }
        return rsql_error_set(err, s->stored_code, RSQL_NOPOS, "positions table locked");
    }
    for (int i = 0; i < s->stored_n; i++) {
        char q[16];
        snprintf(q, sizeof q, "q%d", i);
        rsql_err_t rc = add(opaque, i < 8 ? part_names[i] : q, i < 8 ? s->stored[i] : i,
                            i < 8 ? s->stored_keys[i] : NULL);
        if (rc != RSQL_OK) {
            return rsql_error_set(err, rc, RSQL_NOPOS, "out of memory");
        }
    }
    return RSQL_OK;
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

static rsql_err_t xf_apply(void *opaque, rsql_batch_t *b, rsql_record_t *rec, int k,
                           const rsql_value_t **out, bool *keep, const char **stage,
                           rsql_error_t *err)
{
    (void)k;
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
    event_init(&src_store.committed_ev);
    event_init(&src_store.closed);
    event_init(&src_store.go);
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

__attribute__((unused)) static void with_dlq(rsql_pipeline_conf_t *c)
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

__attribute__((unused)) static int64_t saved_offset(const char *part)
{
    char *v = NULL;
    cu_offset_get(g_cat, "job1", part, &v, NULL);
    int64_t o = v ? atoll(v) : -1;
    rsql_free(v);
    return o;
}

__attribute__((unused)) static void counts_add_up(const rsql_job_counts_t *c)
{
    CU_ASSERT_EQUAL(c->read, c->written + c->filtered + c->dead_lettered + c->failed);
}

#endif
