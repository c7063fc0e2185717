/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_src: the rocketmq-grpc source driven the way the pipeline's worker drives it (poll,
 * then one outcome per record with commit_record), for the fault-injection tests (header only,
 * static helpers). Options go through the real options engine; the durations the engine
 * bounds for a real broker (invisible duration >= 10 s, renewal-ahead >= 1 s) are then
 * shortened in the typed configuration, so renewals and redeliveries happen within a test.
 */
#ifndef RSQL_FAKE_RMQ_SRC_H
#define RSQL_FAKE_RMQ_SRC_H

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "base/rsql_error.h"
#include "engine/rsql_pipeline.h"
#include "base/rsql_time.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_io.h"
#include "tests/fakes/fake_rmq_cu.h"

#define T "orders"

typedef struct src {
    rsql_optset_t *opts;
    rsql_rmq_conf_t *conf; /* the typed configuration inside opts (patched by tests) */
    const rsql_source_ops_t *ops;
    rsql_source_t *s;
    rsql_error_t err;
    rsql_source_counters_t ctr; /* what the source publishes (rsql_source_ctx_t.counters) */
} src_t;

static const char *const cols[1] = {"body"};
static const rsql_type_t types[1] = {RSQL_TYPE_VARCHAR};

/* Options through the real engine: endpoints of f, topic T, group g, raw format, then kv. */
static inline void src_opts(src_t *x, fake_rmq_t *f, const char *const *kv)
{
    rsql_opt_kv_t kvs[24];
    int n = 0;
    kvs[n++] = (rsql_opt_kv_t){"connector", "rocketmq-grpc", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"endpoints", fake_rmq_endpoint(f), RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"topic", T, RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"format", "raw", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"source.consumer-group", "g", RSQL_NOPOS, RSQL_NOPOS};
    for (int i = 0; kv && kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_connector_def_t *conn = NULL;
    memset(x, 0, sizeof *x);
    x->opts = rsql_connector_validate(kvs, n, cols, 1, RSQL_NOPOS, &conn, &err);
    if (!x->opts) {
        fprintf(stderr, "options: %s\n", err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->opts);
    x->conf = (rsql_rmq_conf_t *)rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR);
    x->ops = rsql_connector_find("rocketmq-grpc")->source;
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->ops);
    /* test time scale (see the file comment) */
    x->conf->invisible_ms = 1500;
    x->conf->renewal_ahead_ms = 500;
    x->conf->await_ms = 300;
    x->conf->request_timeout_ms = 1000;
    x->conf->fetch_concurrency = 2;
}

static inline rsql_err_t src_start(src_t *x)
{
    rsql_source_ctx_t ctx = {"t", "pipe-1", x->opts, x->conf, NULL, 1, cols, types, 0, NULL, NULL};
    ctx.counters = &x->ctr;
    rsql_error_clear(&x->err);
    return x->ops->open(&ctx, &x->s, &x->err);
}

static inline void src_open(src_t *x, fake_rmq_t *f, const char *const *kv)
{
    src_opts(x, f, kv);
    if (src_start(x) != RSQL_OK) {
        fprintf(stderr, "open: %s\n", x->err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->s);
}

/*
** Wait (at most 10 s) until the source has the broker's answers to n acks: its acked counter
** moves when an AckMessage reply comes back, which no fake-side state shows (the fake marks a
** message acked before its reply reaches the client). True when it got there.
*/
static inline bool src_wait_acked(src_t *x, int64_t n)
{
    int64_t dl = rsql_now_ms() + 10000;
    while (atomic_load(&x->ctr.acked) < n && rsql_now_ms() < dl) {
        struct timespec ts = {0, 2 * 1000 * 1000}; /* a bounded poll of the counter */
        nanosleep(&ts, NULL);
    }
    return atomic_load(&x->ctr.acked) >= n;
}

static inline void src_close(src_t *x)
{
    if (x->s) {
        x->ops->close(x->s);
        x->s = NULL;
    }
    rsql_optset_destroy(x->opts);
}

/* What to do with a polled record (by its body); the default is WRITTEN. */
typedef rsql_outcome_kind_t (*decide_cb)(const char *body, int attempt, void *arg);

/* One polled record: its body (copied) and the held message's opaque pointer. */
typedef struct polled {
    char body[256];
    rsql_record_t rec; /* raw is not valid after the batch: only opaque is used */
} polled_t;

/*
** Poll until n records were handed out (or the safety bound); each gets its outcome from
** decide (NULL: WRITTEN) right away unless keep is given, where they are stored instead.
** Returns the count polled.
*/
static inline int src_take(src_t *x, int n, decide_cb decide, void *arg, polled_t *keep)
{
    int got = 0;
    int64_t until = rsql_now_ms() + FAULT_WAIT_MS;
    while (got < n && rsql_now_ms() < until) {
        rsql_batch_t *b = rsql_batch_new(64);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        bool eof = false;
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_err_t rc = x->ops->poll(x->s, b, n - got < 64 ? n - got : 64, 200, &eof, &err);
        if (rc != RSQL_OK) {
            rsql_error_copy(&x->err, &err);
            rsql_batch_destroy(b);
            break;
        }
        for (int i = 0; i < b->n; i++) {
            rsql_record_t *r = &b->recs[i];
            char body[256];
            size_t len = r->raw_len < sizeof body - 1 ? r->raw_len : sizeof body - 1;
            memcpy(body, r->raw, len);
            body[len] = '\0';
            if (keep) {
                snprintf(keep[got].body, sizeof keep[got].body, "%s", body);
                keep[got].rec = *r;
                keep[got].rec.raw = NULL;
                keep[got].rec.ident = NULL;
            } else {
                rsql_outcome_t o = {decide ? decide(body, 0, arg) : RSQL_OUTCOME_WRITTEN, NULL,
                                    NULL};
                rsql_error_t why;
                rsql_error_set(&why, RSQL_ERR_SINK, RSQL_NOPOS, "failed by the test");
                o.err = o.kind == RSQL_OUTCOME_WRITTEN ? NULL : &why;
                x->ops->commit_record(x->s, r, &o);
            }
            got++;
        }
        rsql_batch_destroy(b);
    }
    return got;
}

/* The outcome of a kept record. */
static inline void src_commit(src_t *x, polled_t *p, rsql_outcome_kind_t kind)
{
    rsql_error_t why;
    rsql_error_set(&why, RSQL_ERR_SINK, RSQL_NOPOS, "failed by the test");
    rsql_outcome_t o = {kind, kind == RSQL_OUTCOME_WRITTEN ? NULL : &why, NULL};
    x->ops->commit_record(x->s, &p->rec, &o);
}

static inline size_t put_n(fake_rmq_t *f, int n, const char *prefix)
{
    size_t first = SIZE_MAX;
    for (int i = 0; i < n; i++) {
        char body[64];
        snprintf(body, sizeof body, "%s-%03d", prefix, i);
        size_t idx = fake_rmq_put_text(f, T, body);
        first = i == 0 ? idx : first;
    }
    return first;
}

static inline fake_msg_info_t info(fake_rmq_t *f, size_t idx)
{
    fake_msg_info_t mi;
    CU_ASSERT_TRUE(fake_rmq_msg_info(f, idx, &mi));
    return mi;
}

/* Every message from first .. first+n-1 acked exactly once with its current handle. */
static inline void assert_all_acked_once(fake_rmq_t *f, size_t first, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        fake_msg_info_t mi = info(f, first + (size_t)i);
        bad += mi.state != FAKE_ACKED || mi.acks != 1;
    }
    CU_ASSERT_EQUAL(bad, 0);
    fk_assert_clean_acks(f);
}

/* The relay's transform: the record's body as the row's one VARCHAR value. */
static inline rsql_err_t fake_rmq_relay_xf(void *opaque, rsql_batch_t *b, rsql_record_t *rec, int k,
                                           const rsql_value_t **out, bool *keep, const char **stage,
                                           rsql_error_t *err)
{
    (void)k;
    (void)opaque;
    (void)stage;
    rsql_value_t *v = rsql_arena_alloc(b->arena, sizeof *v);
    if (!v) {
        return rsql_error_nomem(err);
    }
    memset(v, 0, sizeof *v);
    v->type = RSQL_TYPE_VARCHAR;
    v->v.s.p = (const char *)rec->raw;
    v->v.s.len = rec->raw_len;
    *out = v;
    *keep = true;
    return RSQL_OK;
}

#endif
