/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The whole path through the fake proxy: a pipeline (engine/rsql_pipeline.h) whose source is
 * the rocketmq-grpc source of topic T and whose sink is the rocketmq-grpc sink of topic "out"
 * of the same fake, a raw relay, bounded by scan.idle-timeout. Faults are scripted on both
 * sides while it runs (throttled sends, a failing ack RPC, an expired ack entry, a throttled
 * long poll, every connection cut in the middle) and, in the other runs, a permanent send
 * refusal under errors.tolerance none and all, and a row the sink's format refuses. The checks are the at-least-once promise, at
 * the broker: nothing is acked that was not delivered (the body of every acked message of T is
 * in "out", the sink's confirmed rows), every message of T ends with exactly one outcome
 * (acked once, or forwarded to the dead-letter queue once, or left to be delivered again), and
 * the run's counts add up; and a run logging at trace level into a pipe nobody reads keeps
 * acking. This is also the fake-broker pipeline the ThreadSanitizer build runs.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rsql_log.h"
#include "rmqclient/rmq_client.h"
#include "engine/rsql_pipeline.h"
#include "tests/fakes/fake_rmq_src.h"

#define OUT "out"


typedef struct relay {
    src_t src;                 /* only its options (the pipeline opens the source) */
    rsql_optset_t *snk_opts;
    rsql_pipeline_conf_t conf;
    rsql_pipeline_t *p;
    pthread_t th;
    rsql_err_t rc;
    rsql_error_t err;
    rsql_job_counts_t counts;
} relay_t;

static const char *const relay_cols[1] = {"body"};
static const rsql_type_t relay_types[1] = {RSQL_TYPE_VARCHAR};

/* The relay T -> OUT; sink_batch: the sink's sink.batch-size (NULL: its default, batches). */
static void relay_init(relay_t *r, fake_rmq_t *f, const char *const *src_kv, bool tolerate_all,
                       const char *sink_batch)
{
    memset(r, 0, sizeof *r);
    static const char *const bounded[] = {"scan.idle-timeout", "2500ms", NULL};
    const char *kv[16];
    int n = 0;
    for (int i = 0; bounded[i]; i++) {
        kv[n++] = bounded[i];
    }
    for (int i = 0; src_kv && src_kv[i]; i++) {
        kv[n++] = src_kv[i];
    }
    kv[n] = NULL;
    src_opts(&r->src, f, kv);
    rsql_opt_kv_t skv[5] = {
        {"connector", "rocketmq-grpc", RSQL_NOPOS, RSQL_NOPOS},
        {"endpoints", fake_rmq_endpoint(f), RSQL_NOPOS, RSQL_NOPOS},
        {"topic", OUT, RSQL_NOPOS, RSQL_NOPOS},
        {"format", "raw", RSQL_NOPOS, RSQL_NOPOS},
        {"sink.batch-size", sink_batch, RSQL_NOPOS, RSQL_NOPOS},
    };
    const rsql_connector_def_t *conn = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    r->snk_opts = rsql_connector_validate(skv, sink_batch ? 5 : 4, relay_cols, 1, RSQL_NOPOS, &conn, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->snk_opts);
    rsql_pipeline_conf_t *c = &r->conf;
    rsql_pipeline_conf_init(c);
    c->id = "relay";
    c->batch_size = 16;
    c->queue_capacity = 32;
    c->retry_timeout_ms = 5000;
    c->retry_backoff_max_ms = 200;
    c->tolerate_all = tolerate_all;
    c->src_ops = rsql_connector_find("rocketmq-grpc")->source;
    c->src_ctx.table = T;
    c->src_ctx.opts = r->src.opts;
    c->src_ctx.conf = r->src.conf;
    c->src_ctx.n_columns = 1;
    c->src_ctx.column_names = relay_cols;
    c->src_ctx.column_types = relay_types;
    c->snk_ops = rsql_connector_find("rocketmq-grpc")->sink;
    c->snk_ctx.table = OUT;
    c->snk_ctx.opts = r->snk_opts;
    c->snk_ctx.conf = rsql_optset_conf(r->snk_opts, RSQL_CONF_CONNECTOR);
    c->snk_ctx.format_conf = rsql_optset_conf(r->snk_opts, RSQL_CONF_FORMAT);
    c->snk_ctx.n_columns = 1;
    c->snk_ctx.column_names = relay_cols;
    c->snk_ctx.column_types = relay_types;
    c->transform = fake_rmq_relay_xf;
}

static void *relay_main(void *arg)
{
    relay_t *r = arg;
    rsql_error_clear(&r->err);
    r->rc = rsql_pipeline_run(r->p, &r->err);
    rsql_pipeline_counts(r->p, &r->counts);
    return NULL;
}

/* Start the run on its own thread (the test thread scripts faults meanwhile). */
static void relay_start(relay_t *r)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    r->p = rsql_pipeline_new(&r->conf, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->p);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&r->th, NULL, relay_main, r), 0);
}

/* Wait for the run's end (bounded by the idle timeout, or a failure). */
static void relay_join(relay_t *r)
{
    pthread_join(r->th, NULL);
    rsql_pipeline_destroy(r->p);
    rsql_optset_destroy(r->snk_opts);
    rsql_optset_destroy(r->src.opts);
    const rsql_job_counts_t *k = &r->counts;
    CU_ASSERT_EQUAL(k->read, k->written + k->filtered + k->dead_lettered + k->failed);
}

/*
** The promise at the broker, for n messages of T from first: each acked at most once and only
** when its body is in OUT (a confirmed row); forwarded at most once, never both; *acked and
** *dead count them. Repeated acks are allowed when repeats (an ack whose answer was lost in a
** cut connection is sent again, and the broker answers OK).
*/
static void assert_promise(fake_rmq_t *f, size_t first, int n, bool repeats, int *acked,
                           int *dead)
{
    *acked = *dead = 0;
    for (int i = 0; i < n; i++) {
        fake_msg_info_t mi;
        CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, first + (size_t)i, &mi));
        char body[64];
        snprintf(body, sizeof body, "m-%03d", i);
        bool confirmed = fake_rmq_find_body(f, OUT, body, strlen(body)) != SIZE_MAX;
        CU_ASSERT(mi.acks <= 1);
        CU_ASSERT(mi.forwards <= 1);
        CU_ASSERT(mi.acks + mi.forwards <= 1);
        if (mi.acks && !confirmed) {
            fprintf(stderr, "%s acked but not in %s\n", body, OUT);
            CU_FAIL("acked without a confirmed row");
        }
        *acked += mi.state == FAKE_ACKED;
        *dead += mi.state == FAKE_DEAD;
    }
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.stale_acks, 0);
    CU_ASSERT_EQUAL(st.unknown_acks, 0);
    CU_ASSERT_EQUAL(st.missing_client_id, 0);
    if (!repeats) {
        CU_ASSERT_EQUAL(st.double_acks, 0);
    }
}

static bool pred_acked_some(const fake_stats_t *st, void *arg)
{
    return st->acked >= *(const int *)arg;
}

/*
** 100 messages relayed while faults hit both sides: the first sends throttled (three, or with
** batches two: a batch has the same 3 attempts as a message), the first ack RPC UNAVAILABLE,
** one ack entry expired (the message comes back and is relayed and acked again), one long poll
** throttled, and every connection cut once half of them are acked. Every message ends acked
** exactly once, with its body in OUT. sink_batch: the sink's sink.batch-size (NULL: default).
*/
static void relay_faults(const char *sink_batch)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 4);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 4);
    size_t first = put_n(f, 100, "m");
    fake_answer_t throttled = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS};
    fake_answer_t unavailable = {.grpc_status = 14};
    fake_rmq_script(f, FAKE_SEND, sink_batch ? 3 : 2, &throttled);
    fake_rmq_script(f, FAKE_ACK, 1, &unavailable);
    fake_rmq_script(f, FAKE_RECEIVE, 1, &throttled);
    fake_rmq_script_ack_entry(f, first + 10, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE, 1);
    relay_t r;
    relay_init(&r, f, NULL, false, sink_batch);
    relay_start(&r);
    int half = 50;
    FAKE_WAIT(f, pred_acked_some, &half);
    fake_rmq_drop(f);
    relay_join(&r);
    if (r.rc != RSQL_OK) {
        fprintf(stderr, "relay: %s\n", r.err.msg);
    }
    CU_ASSERT_EQUAL(r.rc, RSQL_OK);
    int acked, dead;
    assert_promise(f, first, 100, true, &acked, &dead);
    CU_ASSERT_EQUAL(acked, 100);
    CU_ASSERT_EQUAL(dead, 0);
    CU_ASSERT(r.counts.written >= 100); /* the expired one (and maybe cut ones) twice */
    CU_ASSERT_EQUAL(r.counts.failed, 0);
    /* the expired entry, then its ack: after a redelivery, or (when the cut lost the answer
       that said so) a retry of the same ack */
    CU_ASSERT(info(f, first + 10).ack_requests >= 2);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.connections >= 2); /* (the two clients may share one) and a reconnection */
    if (!sink_batch) {
        CU_ASSERT(st.calls[FAKE_SEND] < 100); /* batched */
    }
    fake_rmq_stop(f);
}

static void test_fault_pipeline_relay(void)
{
    relay_faults("1");
}

static void test_fault_pipeline_relay_batched(void)
{
    relay_faults(NULL);
}

/*
** A permanent send refusal under errors.tolerance none: the run fails with the broker's
** status; the refused row's message is not acked (it will be delivered again), and every
** acked message has its body in OUT.
*/
static void test_fault_pipeline_permanent(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    size_t first = put_n(f, 20, "m");
    fake_answer_t normal = {0}, forbidden = {.code = RSQL_RMQ_CODE_FORBIDDEN};
    fake_rmq_script(f, FAKE_SEND, 9, &normal);
    fake_rmq_script(f, FAKE_SEND, 1, &forbidden);
    relay_t r;
    relay_init(&r, f, NULL, false, "1"); /* the 10th request is one row's */
    relay_start(&r);
    relay_join(&r);
    CU_ASSERT_NOT_EQUAL(r.rc, RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "FORBIDDEN"));
    int acked, dead;
    assert_promise(f, first, 20, false, &acked, &dead);
    CU_ASSERT(acked <= 19);
    CU_ASSERT_EQUAL(dead, 0);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.acked, acked);
    CU_ASSERT_EQUAL(st.sent_ok + 1, st.calls[FAKE_SEND]); /* one refused, not retried */
    fake_rmq_stop(f);
}

/*
** The same refusal under errors.tolerance all with source.dead-letter = native: the refused
** row is dead-lettered and its message forwarded to the DLQ (not acked); the others are acked;
** every message has exactly one outcome.
*/
static void test_fault_pipeline_dead_letter(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    size_t first = put_n(f, 20, "m");
    fake_answer_t normal = {0}, forbidden = {.code = RSQL_RMQ_CODE_FORBIDDEN};
    fake_rmq_script(f, FAKE_SEND, 9, &normal);
    fake_rmq_script(f, FAKE_SEND, 1, &forbidden);
    static const char *const native[] = {"source.dead-letter", "native", NULL};
    relay_t r;
    relay_init(&r, f, native, true, "1"); /* the 10th request is one row's */
    relay_start(&r);
    relay_join(&r);
    if (r.rc != RSQL_OK) {
        fprintf(stderr, "relay: %s\n", r.err.msg);
    }
    CU_ASSERT_EQUAL(r.rc, RSQL_OK);
    int acked, dead;
    assert_promise(f, first, 20, false, &acked, &dead);
    CU_ASSERT_EQUAL(acked, 19);
    CU_ASSERT_EQUAL(dead, 1);
    CU_ASSERT_EQUAL(r.counts.dead_lettered, 1);
    CU_ASSERT_EQUAL(r.counts.written, 19);
    fake_rmq_stop(f);
}

/*
** A row the sink's format refuses (csv without quoting, a body holding the delimiter) under
** errors.tolerance all with source.dead-letter = native: that row alone is dead-lettered, its
** message forwarded to the DLQ; the other rows of its batch are written and their messages
** acked.
*/
static void test_fault_pipeline_bad_row(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    size_t first = put_n(f, 5, "m"); /* m-000 .. m-004 */
    fake_rmq_put_text(f, T, "bad,row");
    for (int i = 6; i < 10; i++) {
        char body[16];
        snprintf(body, sizeof body, "m-%03d", i);
        fake_rmq_put_text(f, T, body);
    }
    static const char *const native[] = {"source.dead-letter", "native", NULL};
    relay_t r;
    relay_init(&r, f, native, true, NULL);
    /* the sink again, as csv without quoting */
    rsql_optset_destroy(r.snk_opts);
    rsql_opt_kv_t skv[5] = {
        {"connector", "rocketmq-grpc", RSQL_NOPOS, RSQL_NOPOS},
        {"endpoints", fake_rmq_endpoint(f), RSQL_NOPOS, RSQL_NOPOS},
        {"topic", OUT, RSQL_NOPOS, RSQL_NOPOS},
        {"format", "csv", RSQL_NOPOS, RSQL_NOPOS},
        {"csv.quote-character", "", RSQL_NOPOS, RSQL_NOPOS},
    };
    const rsql_connector_def_t *conn = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    r.snk_opts = rsql_connector_validate(skv, 5, relay_cols, 1, RSQL_NOPOS, &conn, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.snk_opts);
    r.conf.snk_ctx.opts = r.snk_opts;
    r.conf.snk_ctx.conf = rsql_optset_conf(r.snk_opts, RSQL_CONF_CONNECTOR);
    r.conf.snk_ctx.format_conf = rsql_optset_conf(r.snk_opts, RSQL_CONF_FORMAT);
    relay_start(&r);
    relay_join(&r);
    if (r.rc != RSQL_OK) {
        fprintf(stderr, "relay: %s\n", r.err.msg);
    }
    CU_ASSERT_EQUAL(r.rc, RSQL_OK);
    int acked, dead;
    assert_promise(f, first, 10, false, &acked, &dead);
    CU_ASSERT_EQUAL(acked, 9);
    CU_ASSERT_EQUAL(dead, 1);
    CU_ASSERT_EQUAL(info(f, first + 5).state, FAKE_DEAD); /* the bad row's message */
    CU_ASSERT_EQUAL(r.counts.dead_lettered, 1);
    CU_ASSERT_EQUAL(r.counts.written, 9);
    fake_rmq_stop(f);
}

/*
** The proxy is not ready when the job starts: QueryRoute answers UNAVAILABLE five times, more
** than one client start tries (three), so the sink's first open fails transiently and the
** pipeline opens it again after a backoff (within errors.retry.timeout): the relay then runs
** and every message is acked with its body in OUT. A permanent refusal at open (the topic does
** not exist) is not retried: the run fails at once with the broker's status, after one
** QueryRoute.
*/
static void test_fault_pipeline_open_retry(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    size_t first = put_n(f, 20, "m");
    fake_answer_t unavailable = {.grpc_status = 14};
    fake_rmq_script(f, FAKE_QUERY_ROUTE, 5, &unavailable);
    relay_t r;
    relay_init(&r, f, NULL, false, NULL);
    relay_start(&r);
    relay_join(&r);
    if (r.rc != RSQL_OK) {
        fprintf(stderr, "relay: %s\n", r.err.msg);
    }
    CU_ASSERT_EQUAL(r.rc, RSQL_OK);
    int acked, dead;
    assert_promise(f, first, 20, false, &acked, &dead);
    CU_ASSERT_EQUAL(acked, 20);
    CU_ASSERT_EQUAL(r.counts.written, 20);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.calls[FAKE_QUERY_ROUTE] >= 7); /* five refused, then the sink's and source's */
    fake_rmq_stop(f);

    FAKE_START(g);
    fake_rmq_topic(g, T, FAKE_NORMAL, 2);
    fake_rmq_topic(g, OUT, FAKE_NORMAL, 2);
    fake_answer_t not_found = {.code = RSQL_RMQ_CODE_TOPIC_NOT_FOUND};
    fake_rmq_script(g, FAKE_QUERY_ROUTE, 1, &not_found);
    relay_init(&r, g, NULL, false, NULL);
    relay_start(&r);
    relay_join(&r);
    CU_ASSERT_NOT_EQUAL(r.rc, RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "TOPIC_NOT_FOUND"));
    fake_rmq_stats(g, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 1);
    fake_rmq_stop(g);
}

typedef struct drain {
    int fd;
    size_t bytes;
    bool noted; /* the logger's "log line(s) dropped" warning came out (when any was) */
} drain_t;

static void *drain_main(void *arg)
{
    drain_t *d = arg;
    char buf[65536 + 1];
    ssize_t r;
    while ((r = read(d->fd, buf, sizeof buf - 1)) > 0) {
        buf[r] = '\0';
        d->bytes += (size_t)r;
        d->noted = d->noted || strstr(buf, "log line(s) dropped") != NULL;
    }
    return NULL;
}

/*
** Trace logging into a pipe nobody reads (as small as the kernel allows; a line per message
** from the gRPC completion callbacks): the relay keeps receiving, writing and acking, every
** message acked with its body in OUT, while nothing of the log is read. Then the pipe is
** read and the relay ends.
*/
static void test_fault_pipeline_log_stalled(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 4);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 4);
    int n = 3000;
    size_t first = put_n(f, n, "m");
    int p[2];
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    fcntl(p[1], F_SETPIPE_SZ, 4096);
    rsql_log_level_t level = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_TRACE);
    int prev = rsql_log_set_fd(p[1]);
    relay_t r;
    relay_init(&r, f, NULL, false, NULL);
    relay_start(&r);
    FAKE_WAIT(f, pred_acked_some, &n);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.acked, n);
    drain_t d = {.fd = p[0]};
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, drain_main, &d), 0);
    relay_join(&r);
    rsql_log_set_level(level);
    rsql_log_set_fd(prev);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    CU_ASSERT_EQUAL(r.rc, RSQL_OK);
    CU_ASSERT(d.bytes > 4096); /* the log did fill the pipe */
    int acked, dead;
    assert_promise(f, first, n, false, &acked, &dead);
    CU_ASSERT_EQUAL(acked, n);
    fake_rmq_stop(f);
}

static CU_TestInfo pipeline_tests[] = {
    {"fault_pipeline_relay", test_fault_pipeline_relay},
    {"fault_pipeline_relay_batched", test_fault_pipeline_relay_batched},
    {"fault_pipeline_permanent", test_fault_pipeline_permanent},
    {"fault_pipeline_dead_letter", test_fault_pipeline_dead_letter},
    {"fault_pipeline_bad_row", test_fault_pipeline_bad_row},
    {"fault_pipeline_open_retry", test_fault_pipeline_open_retry},
    {"fault_pipeline_log_stalled", test_fault_pipeline_log_stalled},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_pipeline", NULL, NULL, NULL, NULL, pipeline_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
