/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Fault injection for the rocketmq-grpc sink (rmq_sink.c) against the fake proxy
 * (tests/fakes/fake_rmq.h): sends refused with each class of error. Transient ones (flow
 * control and too many requests, a server error, RESOURCE_EXHAUSTED, UNAVAILABLE, a send that
 * times out) are retried with backoff and recover, within sink.max-attempts (attempts counted
 * at the fake); permanent ones (bad topic, permission, type conflict, body too large) fail at
 * once, in under a second, with the broker's status. FIFO order holds across a retry, and the
 * rows queued behind a permanent failure of their message group fail without being sent. A
 * cut connection is survived (the row is sent again). A row the format cannot encode fails on
 * its own, the other rows of its write are sent. Every row gets exactly one result.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_time.h"
#include "rmqclient/rmq_client.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_io.h"
#include "tests/fakes/fake_rmq_cu.h"

#define OUT "out"

/* ---- the sink and its deliveries ----------------------------------------------------------- */

typedef struct snk {
    rsql_optset_t *opts;
    rsql_rmq_conf_t *conf;
    const rsql_sink_ops_t *ops;
    rsql_sink_t *k;
    rsql_error_t err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int batches, rows, failed;
    rsql_sink_result_t results[16]; /* by batch id (ids < 16) */
    int calls[16];                  /* deliveries per batch id: must be 1 */
    rsql_sink_result_t last[8];     /* the rows of the last batch delivered */
    int last_n;
} snk_t;

static void on_deliver(void *opaque, uint64_t id, int n, const rsql_sink_result_t *r)
{
    snk_t *x = opaque;
    pthread_mutex_lock(&x->mu);
    x->batches++;
    x->rows += n;
    for (int i = 0; i < n; i++) {
        x->failed += r[i].code != RSQL_OK;
    }
    if (id < 16 && n > 0) {
        x->results[id] = r[0];
        x->calls[id]++;
    }
    x->last_n = n < 8 ? n : 8;
    for (int i = 0; i < x->last_n; i++) {
        x->last[i] = r[i];
    }
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

static const char *const cols1[1] = {"body"};
static const char *const cols2[2] = {"body", "grp"};
static const rsql_type_t types2[2] = {RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR};

/* Open a sink of OUT at f; fifo: two columns, json, message group from "grp". */
static void snk_open(snk_t *x, fake_rmq_t *f, bool fifo, const char *const *kv,
                     int request_timeout_ms)
{
    memset(x, 0, sizeof *x);
    pthread_mutex_init(&x->mu, NULL);
    rsql_cond_init_monotonic(&x->cv);
    rsql_opt_kv_t kvs[16];
    int n = 0;
    kvs[n++] = (rsql_opt_kv_t){"connector", "rocketmq-grpc", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"endpoints", fake_rmq_endpoint(f), RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"topic", OUT, RSQL_NOPOS, RSQL_NOPOS};
    bool format_given = false;
    for (int i = 0; kv && kv[i]; i += 2) {
        format_given |= strcmp(kv[i], "format") == 0;
    }
    if (!format_given) {
        kvs[n++] = (rsql_opt_kv_t){"format", fifo ? "json" : "raw", RSQL_NOPOS, RSQL_NOPOS};
    }
    if (fifo) {
        kvs[n++] = (rsql_opt_kv_t){"sink.message-group-column", "grp", RSQL_NOPOS, RSQL_NOPOS};
    }
    for (int i = 0; kv && kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    const char *const *cols = fifo ? cols2 : cols1;
    int ncols = fifo ? 2 : 1;
    const rsql_connector_def_t *conn = NULL;
    rsql_error_clear(&x->err);
    x->opts = rsql_connector_validate(kvs, n, cols, ncols, RSQL_NOPOS, &conn, &x->err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->opts);
    x->conf = (rsql_rmq_conf_t *)rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR);
    x->conf->request_timeout_ms = request_timeout_ms; /* below the engine's bounds for hangs */
    x->ops = rsql_connector_find("rocketmq-grpc")->sink;
    rsql_sink_ctx_t ctx = {"out", "pipe-1", x->opts, x->conf,
                           rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
                           ncols, cols, types2, on_deliver, x};
    CU_ASSERT_EQUAL_FATAL(x->ops->open(&ctx, &x->k, &x->err), RSQL_OK);
}

static void snk_close(snk_t *x)
{
    x->ops->close(x->k);
    rsql_optset_destroy(x->opts);
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
}

/* Write one row as batch id (body; group for a FIFO sink, else NULL). */
static void snk_write(snk_t *x, uint64_t id, const char *body, const char *group)
{
    rsql_value_t v[2];
    memset(v, 0, sizeof v);
    v[0].type = RSQL_TYPE_VARCHAR;
    v[0].v.s.p = body;
    v[0].v.s.len = strlen(body);
    v[1].type = RSQL_TYPE_VARCHAR;
    v[1].v.s.p = group ? group : "";
    v[1].v.s.len = group ? strlen(group) : 0;
    rsql_sink_row_t row = {v, NULL, NULL};
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(x->ops->write(x->k, id, 1, &row, &err), RSQL_OK);
}

/* Wait until n batches were delivered. */
static bool snk_wait(snk_t *x, int n)
{
    int64_t dl = rsql_deadline_in(FAULT_WAIT_MS);
    pthread_mutex_lock(&x->mu);
    while (x->batches < n && rsql_cond_wait_until(&x->cv, &x->mu, dl) == 0) {
    }
    bool ok = x->batches >= n;
    pthread_mutex_unlock(&x->mu);
    return ok;
}

/* The one result of batch id (after snk_wait). */
static rsql_sink_result_t snk_result(snk_t *x, uint64_t id)
{
    pthread_mutex_lock(&x->mu);
    rsql_sink_result_t r = x->results[id];
    CU_ASSERT_EQUAL(x->calls[id], 1);
    pthread_mutex_unlock(&x->mu);
    return r;
}

/* ---- transient and permanent refusals ------------------------------------------------------ */

static const struct {
    const char *name;
    fake_answer_t a;
} transient[] = {
    {"TOO_MANY_REQUESTS", {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS}},
    {"INTERNAL_SERVER_ERROR", {.code = RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR}},
    {"RESOURCE_EXHAUSTED", {.grpc_status = 8}}, /* gRPC flow control */
    {"UNAVAILABLE", {.grpc_status = 14}},
    {"time-out", {.hang = true}},
};

/*
** Each transient refusal, twice before the broker accepts: the row is written at the third
** attempt (sink.max-attempts = 3, the default), stored once. A slow answer within the deadline
** is one attempt.
*/
static void test_fault_sink_transient(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    snk_t x;
    snk_open(&x, f, false, NULL, 1000); /* a hang costs this twice; "slow" is well within it */
    size_t nt = sizeof transient / sizeof transient[0];
    for (size_t i = 0; i < nt; i++) {
        char body[64];
        snprintf(body, sizeof body, "transient-%s", transient[i].name);
        fake_rmq_script(f, FAKE_SEND, 2, &transient[i].a);
        snk_write(&x, i, body, NULL);
        CU_ASSERT_TRUE_FATAL(snk_wait(&x, (int)i + 1));
        rsql_sink_result_t r = snk_result(&x, i);
        if (r.code != RSQL_OK) {
            fprintf(stderr, "%s: %s\n", transient[i].name, r.msg);
        }
        CU_ASSERT_EQUAL(r.code, RSQL_OK);
        CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, body, strlen(body)), 3);
        CU_ASSERT_NOT_EQUAL(fake_rmq_find_body(f, OUT, body, strlen(body)), SIZE_MAX);
    }
    fake_answer_t slow = {.delay_ms = 150};
    fake_rmq_script(f, FAKE_SEND, 1, &slow);
    snk_write(&x, nt, "slow", NULL);
    CU_ASSERT_TRUE(snk_wait(&x, (int)nt + 1));
    CU_ASSERT_EQUAL(snk_result(&x, nt).code, RSQL_OK);
    CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, "slow", 4), 1);
    snk_close(&x);
    CU_ASSERT_EQUAL(x.failed, 0);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, (int)nt + 1);
    fake_rmq_stop(f);
}

/*
** A transient refusal that does not end: the row fails after exactly sink.max-attempts
** attempts (3 by default, 5 when set), with the last error, and is not stored.
*/
static void test_fault_sink_transient_exhausted(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    fake_answer_t throttled = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS};
    fake_rmq_script(f, FAKE_SEND, 100, &throttled);
    snk_t x;
    snk_open(&x, f, false, NULL, 1000);
    snk_write(&x, 0, "never-3", NULL);
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    rsql_sink_result_t r = snk_result(&x, 0);
    CU_ASSERT_NOT_EQUAL(r.code, RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "after 3 attempts"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "TOO_MANY_REQUESTS"));
    CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, "never-3", 7), 3);
    snk_close(&x);

    static const char *const five[] = {"sink.max-attempts", "5", NULL};
    snk_open(&x, f, false, five, 1000);
    snk_write(&x, 0, "never-5", NULL);
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    CU_ASSERT_NOT_EQUAL(snk_result(&x, 0).code, RSQL_OK);
    CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, "never-5", 7), 5);
    snk_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 0);
    fake_rmq_stop(f);
}

/*
** Each permanent refusal fails the row at the first attempt (no retry, so no backoff: at once),
** with the broker's status in its message; nothing is stored. (No wall-clock bound here: on a
** loaded machine under a sanitizer one loopback round trip can take a second.)
*/
static void test_fault_sink_permanent(void)
{
    static const struct {
        const char *name;
        int32_t code;
    } permanent[] = {
        {"ILLEGAL_TOPIC", RSQL_RMQ_CODE_ILLEGAL_TOPIC},
        {"TOPIC_NOT_FOUND", RSQL_RMQ_CODE_TOPIC_NOT_FOUND},
        {"FORBIDDEN", RSQL_RMQ_CODE_FORBIDDEN},
        {"UNAUTHORIZED", RSQL_RMQ_CODE_UNAUTHORIZED},
        {"MESSAGE_PROPERTY_CONFLICT_WITH_TYPE", RSQL_RMQ_CODE_MESSAGE_PROPERTY_CONFLICT_WITH_TYPE},
        {"MESSAGE_BODY_TOO_LARGE", RSQL_RMQ_CODE_MESSAGE_BODY_TOO_LARGE},
        {"BAD_REQUEST", RSQL_RMQ_CODE_BAD_REQUEST},
    };
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    snk_t x;
    snk_open(&x, f, false, NULL, 1000);
    size_t np = sizeof permanent / sizeof permanent[0];
    for (size_t i = 0; i < np; i++) {
        char body[64];
        snprintf(body, sizeof body, "permanent-%s", permanent[i].name);
        fake_answer_t a = {.code = permanent[i].code};
        fake_rmq_script(f, FAKE_SEND, 1, &a);
        snk_write(&x, i, body, NULL);
        CU_ASSERT_TRUE_FATAL(snk_wait(&x, (int)i + 1));
        rsql_sink_result_t r = snk_result(&x, i);
        CU_ASSERT_NOT_EQUAL(r.code, RSQL_OK);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, permanent[i].name));
        CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, body, strlen(body)), 1); /* no retry */
    }
    snk_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 0);
    CU_ASSERT_EQUAL(x.failed, (int)np);
    fake_rmq_stop(f);
}

/* ---- FIFO ---------------------------------------------------------------------------------- */

/*
** Message groups: A's first row is refused once (late, so A's second row is queued behind it
** meanwhile) and retried; A's rows are stored in order while B's row went out at once. C's
** first row is refused permanently: C's second row fails without being sent.
*/
static void test_fault_sink_fifo(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    /* the late answers leave B's row 1.5 s to go out before A's retry, on a loaded machine too */
    snk_open(&x, f, true, NULL, 5000);
    fake_answer_t late_refusal = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS, .delay_ms = 1500};
    fake_rmq_script(f, FAKE_SEND, 1, &late_refusal);
    snk_write(&x, 0, "a1", "A");
    FAKE_WAIT_CALLS(f, FAKE_SEND, 1);
    snk_write(&x, 1, "a2", "A");
    snk_write(&x, 2, "b1", "B");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 3));
    for (uint64_t i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(snk_result(&x, i).code, RSQL_OK);
    }
    size_t a1 = fake_rmq_find_text(f, OUT, "\"a1\""), a2 = fake_rmq_find_text(f, OUT, "\"a2\"");
    size_t b1 = fake_rmq_find_text(f, OUT, "\"b1\"");
    CU_ASSERT(a1 != SIZE_MAX && a2 != SIZE_MAX && b1 != SIZE_MAX);
    CU_ASSERT(a1 < a2); /* order kept across the retry */
    CU_ASSERT(b1 < a1); /* B was not held up by A */

    fake_answer_t late_forbidden = {.code = RSQL_RMQ_CODE_FORBIDDEN, .delay_ms = 1500};
    fake_rmq_script(f, FAKE_SEND, 1, &late_forbidden);
    fake_stats_t st0;
    fake_rmq_stats(f, &st0);
    snk_write(&x, 3, "c1", "C");
    FAKE_WAIT_CALLS(f, FAKE_SEND, st0.calls[FAKE_SEND] + 1);
    snk_write(&x, 4, "c2", "C");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 5));
    CU_ASSERT_NOT_EQUAL(snk_result(&x, 3).code, RSQL_OK);
    rsql_sink_result_t r = snk_result(&x, 4);
    CU_ASSERT_NOT_EQUAL(r.code, RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "an earlier message of message group 'C' failed"));
    snk_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], st0.calls[FAKE_SEND] + 1); /* c2 was never sent */
    CU_ASSERT_EQUAL(fake_rmq_find_text(f, OUT, "\"c2\""), SIZE_MAX);
    fake_rmq_stop(f);
}

/*
** lanes.idle-timeout 100ms (its least): while A's first row waits for a late refusal (then its
** retry) and A's second is queued behind it, 300 other message groups come and go one after the
** other (their state freed once idle that long), none of them held up by A; A's state is kept
** through the sweeps of those seconds: A's rows are stored in order, every row is written.
*/
static void test_fault_sink_groups_go(void)
{
    enum { N = 300 };
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    static const char *const kv[] = {"lanes.idle-timeout", "100ms", NULL};
    snk_open(&x, f, true, kv, 20000);
    fake_answer_t late_refusal = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS, .delay_ms = 6000};
    fake_rmq_script(f, FAKE_SEND, 1, &late_refusal);
    snk_write(&x, 0, "a1", "A");
    FAKE_WAIT_CALLS(f, FAKE_SEND, 1);
    snk_write(&x, 1, "a2", "A");
    for (int i = 0; i < N; i++) {
        char body[16], group[16];
        snprintf(body, sizeof body, "g%03d", i);
        snprintf(group, sizeof group, "G%03d", i);
        snk_write(&x, (uint64_t)(2 + i), body, group);
        CU_ASSERT_TRUE_FATAL(snk_wait(&x, i + 1)); /* its group is done, so it can go */
    }
    pthread_mutex_lock(&x.mu);
    CU_ASSERT_EQUAL(x.batches, N); /* A's rows still wait: no other group waited behind them */
    pthread_mutex_unlock(&x.mu);
    snk_write(&x, N + 2, "a3", "A");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, N + 3));
    CU_ASSERT_EQUAL(x.failed, 0);
    snk_close(&x);
    size_t a1 = fake_rmq_find_text(f, OUT, "\"a1\""), a2 = fake_rmq_find_text(f, OUT, "\"a2\"");
    size_t a3 = fake_rmq_find_text(f, OUT, "\"a3\"");
    CU_ASSERT(a1 != SIZE_MAX && a2 != SIZE_MAX && a3 != SIZE_MAX);
    CU_ASSERT(a1 < a2 && a2 < a3); /* A's order kept while other groups came and went */
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, N + 3);
    fake_rmq_stop(f);
}

/* ---- a row the format refuses ------------------------------------------------------------- */

/*
** One write of three rows whose second cannot be encoded (csv without quoting, a value holding
** the delimiter): that row fails on its own with the format's error, a permanent one; the
** other two are sent, in one delivery that reports each row.
*/
static void test_fault_sink_bad_row(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    snk_t x;
    static const char *const kv[] = {"format", "csv", "csv.quote-character", "", NULL};
    snk_open(&x, f, false, kv, 2000);
    static const char *const bodies[3] = {"good-1", "bad,row", "good-2"};
    rsql_value_t v[3];
    rsql_sink_row_t rows[3];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 3; i++) {
        v[i].type = RSQL_TYPE_VARCHAR;
        v[i].v.s.p = bodies[i];
        v[i].v.s.len = strlen(bodies[i]);
        rows[i] = (rsql_sink_row_t){&v[i], NULL, NULL};
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(x.ops->write(x.k, 0, 3, rows, &err), RSQL_OK);
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    pthread_mutex_lock(&x.mu);
    CU_ASSERT_EQUAL(x.calls[0], 1);
    CU_ASSERT_EQUAL_FATAL(x.last_n, 3);
    CU_ASSERT_EQUAL(x.last[0].code, RSQL_OK);
    CU_ASSERT_NOT_EQUAL(x.last[1].code, RSQL_OK);
    CU_ASSERT_FALSE(rsql_err_code_retriable(x.last[1].code));
    CU_ASSERT_PTR_NOT_NULL(strstr(x.last[1].msg, "csv.quote-character"));
    CU_ASSERT_EQUAL(x.last[2].code, RSQL_OK);
    CU_ASSERT_EQUAL(x.failed, 1);
    pthread_mutex_unlock(&x.mu);
    snk_close(&x);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(f, OUT, "good-1"), SIZE_MAX);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(f, OUT, "good-2"), SIZE_MAX);
    CU_ASSERT_EQUAL(fake_rmq_find_text(f, OUT, "bad"), SIZE_MAX);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 2);
    fake_rmq_stop(f);
}

/* ---- a cut connection ---------------------------------------------------------------------- */

/*
** The connection is cut while a send waits for its answer: the send fails UNAVAILABLE, is
** retried on the new connection and the row is written. (The broker had stored the first
** attempt already: a duplicate, as at-least-once allows.)
*/
static void test_fault_sink_drop(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    snk_t x;
    snk_open(&x, f, false, NULL, 2000);
    fake_answer_t late = {.delay_ms = 5000};
    fake_rmq_script(f, FAKE_SEND, 1, &late);
    fake_stats_t st0;
    fake_rmq_stats(f, &st0);
    snk_write(&x, 0, "cut", NULL);
    FAKE_WAIT_CALLS(f, FAKE_SEND, 1);
    fake_rmq_drop(f);
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    CU_ASSERT_EQUAL(snk_result(&x, 0).code, RSQL_OK);
    CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, "cut", 3), 2);
    snk_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.connections > st0.connections);
    fake_rmq_stop(f);
}

static CU_TestInfo sink_tests[] = {
    {"fault_sink_transient", test_fault_sink_transient},
    {"fault_sink_transient_exhausted", test_fault_sink_transient_exhausted},
    {"fault_sink_permanent", test_fault_sink_permanent},
    {"fault_sink_fifo", test_fault_sink_fifo},
    {"fault_sink_drop", test_fault_sink_drop},
    {"fault_sink_bad_row", test_fault_sink_bad_row},
    {"fault_sink_groups_go", test_fault_sink_groups_go},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_sink", NULL, NULL, NULL, NULL, sink_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
