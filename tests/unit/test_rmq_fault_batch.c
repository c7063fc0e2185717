/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Batched sends of the rocketmq-grpc sink (sink.batch-size, rmq_sink.c) against the fake proxy
 * (tests/fakes/fake_rmq.h), which answers a batch like the 5.5 proxy: one entry for the whole
 * request, all or nothing, its message ids joined with ','. Checked: rows written together go
 * out in requests of at most sink.batch-size messages and each row gets its own message id
 * (the joined answer split, in order); a transient refusal retries the batch as a batch; a
 * permanent refusal of a batch sends its rows again one by one so they land; a message the
 * broker refuses (over the maximum body size) fails alone while the rest of its batch lands;
 * FIFO rows are never batched; the sink batches by default, and stops batching for a proxy
 * that refuses every batch (never for one that took a batch before). Every row gets exactly
 * one result.
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
#define MAXROWS 64

typedef struct bsnk {
    rsql_optset_t *opts;
    const rsql_sink_ops_t *ops;
    rsql_sink_t *k;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int batches, rows;
    rsql_sink_result_t results[MAXROWS]; /* of the one written batch (id 0) */
} bsnk_t;

static void on_deliver(void *opaque, uint64_t id, int n, const rsql_sink_result_t *r)
{
    bsnk_t *x = opaque;
    pthread_mutex_lock(&x->mu);
    x->batches++;
    x->rows += n;
    for (int i = 0; i < n && i < MAXROWS && id == 0; i++) {
        x->results[i] = r[i];
    }
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

static const char *const cols2[2] = {"body", "grp"};
static const rsql_type_t types2[2] = {RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR};

/* A sink of OUT at f with sink.batch-size = batch, NULL: the default (raw body; fifo: json,
   group from grp). */
static void bs_open(bsnk_t *x, fake_rmq_t *f, const char *batch, bool fifo)
{
    memset(x, 0, sizeof *x);
    pthread_mutex_init(&x->mu, NULL);
    rsql_cond_init_monotonic(&x->cv);
    rsql_opt_kv_t kvs[8];
    int n = 0;
    kvs[n++] = (rsql_opt_kv_t){"connector", "rocketmq-grpc", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"endpoints", fake_rmq_endpoint(f), RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"topic", OUT, RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"format", fifo ? "json" : "raw", RSQL_NOPOS, RSQL_NOPOS};
    if (batch) {
        kvs[n++] = (rsql_opt_kv_t){"sink.batch-size", batch, RSQL_NOPOS, RSQL_NOPOS};
    }
    if (fifo) {
        kvs[n++] = (rsql_opt_kv_t){"sink.message-group-column", "grp", RSQL_NOPOS, RSQL_NOPOS};
    }
    int ncols = fifo ? 2 : 1;
    const rsql_connector_def_t *conn = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    x->opts = rsql_connector_validate(kvs, n, cols2, ncols, RSQL_NOPOS, &conn, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->opts);
    rsql_rmq_conf_t *conf = (rsql_rmq_conf_t *)rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR);
    CU_ASSERT_EQUAL(conf->send_batch_size, batch ? atoi(batch) : 64); /* batches by default */
    CU_ASSERT_EQUAL(conf->linger_ms, 5);
    conf->request_timeout_ms = 1000;
    x->ops = rsql_connector_find("rocketmq-grpc")->sink;
    rsql_sink_ctx_t ctx = {"out", "pipe-1", x->opts, conf,
                           rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
                           ncols, cols2, types2, on_deliver, x};
    CU_ASSERT_EQUAL_FATAL(x->ops->open(&ctx, &x->k, &err), RSQL_OK);
}

static void bs_close(bsnk_t *x)
{
    x->ops->close(x->k);
    rsql_optset_destroy(x->opts);
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
}

/* Write n rows in one write call (batch id 0): bodies[i], group "g<i>" for a FIFO sink. */
static void bs_write(bsnk_t *x, int n, char bodies[][300])
{
    rsql_value_t v[MAXROWS][2];
    rsql_sink_row_t rows[MAXROWS];
    char grp[MAXROWS][16];
    memset(v, 0, sizeof v);
    for (int i = 0; i < n; i++) {
        snprintf(grp[i], sizeof grp[i], "g%d", i);
        v[i][0].type = RSQL_TYPE_VARCHAR;
        v[i][0].v.s.p = bodies[i];
        v[i][0].v.s.len = strlen(bodies[i]);
        v[i][1].type = RSQL_TYPE_VARCHAR;
        v[i][1].v.s.p = grp[i];
        v[i][1].v.s.len = strlen(grp[i]);
        rows[i] = (rsql_sink_row_t){v[i], NULL, NULL};
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(x->ops->write(x->k, 0, n, rows, &err), RSQL_OK);
}

/* Wait until the n-th write's rows are all reported. */
static bool bs_wait_n(bsnk_t *x, int n)
{
    int64_t dl = rsql_deadline_in(FAULT_WAIT_MS);
    pthread_mutex_lock(&x->mu);
    while (x->batches < n && rsql_cond_wait_until(&x->cv, &x->mu, dl) == 0) {
    }
    bool ok = x->batches == n;
    pthread_mutex_unlock(&x->mu);
    return ok;
}

static bool bs_wait(bsnk_t *x)
{
    return bs_wait_n(x, 1);
}

static void make_bodies(char bodies[][300], int n, const char *prefix)
{
    for (int i = 0; i < n; i++) {
        snprintf(bodies[i], 300, "%s-%02d", prefix, i);
    }
}

/* Row i landed once, and its result names the message id the fake stored for it. */
static void assert_landed(bsnk_t *x, fake_rmq_t *f, char bodies[][300], int i)
{
    CU_ASSERT_EQUAL(x->results[i].code, RSQL_OK);
    size_t idx = fake_rmq_find_body(f, OUT, bodies[i], strlen(bodies[i]));
    CU_ASSERT_NOT_EQUAL_FATAL(idx, SIZE_MAX);
    fake_msg_info_t mi;
    CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, idx, &mi));
    char want[200];
    snprintf(want, sizeof want, "msgid=%s ", mi.message_id);
    if (strncmp(x->results[i].meta, want, strlen(want)) != 0) {
        fprintf(stderr, "row %d: meta '%s', want '%s...'\n", i, x->results[i].meta, want);
        CU_FAIL("the row's message id is not the one stored for it");
    }
}

/* 20 rows, batch size 8: three SendMessage requests (8, 8, 4); each row its own id. */
static void test_batch_split_ids(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    bsnk_t x;
    bs_open(&x, f, "8", false);
    char bodies[20][300];
    make_bodies(bodies, 20, "split");
    bs_write(&x, 20, bodies);
    CU_ASSERT_TRUE_FATAL(bs_wait(&x));
    CU_ASSERT_EQUAL(x.rows, 20);
    for (int i = 0; i < 20; i++) {
        assert_landed(&x, f, bodies, i);
        for (int j = 0; j < i; j++) {
            CU_ASSERT_STRING_NOT_EQUAL(x.results[i].meta, x.results[j].meta);
        }
    }
    bs_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 3);
    CU_ASSERT_EQUAL(st.sent_ok, 20);
    fake_rmq_stop(f);
}

/* A transient refusal of a batch (twice): the batch is sent again whole; each row once. */
static void test_batch_transient(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    fake_answer_t busy = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS};
    fake_rmq_script(f, FAKE_SEND, 2, &busy);
    bsnk_t x;
    bs_open(&x, f, "16", false);
    char bodies[5][300];
    make_bodies(bodies, 5, "transient");
    bs_write(&x, 5, bodies);
    CU_ASSERT_TRUE_FATAL(bs_wait(&x));
    for (int i = 0; i < 5; i++) {
        assert_landed(&x, f, bodies, i);
        CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, bodies[i], strlen(bodies[i])), 3);
    }
    bs_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 3);
    CU_ASSERT_EQUAL(st.sent_rejected, 10);
    CU_ASSERT_EQUAL(st.sent_ok, 5);
    fake_rmq_stop(f);
}

/* A permanent refusal of the whole batch: its rows go again one by one and land. */
static void test_batch_permanent_fallback(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    fake_answer_t bad = {.code = RSQL_RMQ_CODE_BAD_REQUEST};
    fake_rmq_script(f, FAKE_SEND, 1, &bad);
    bsnk_t x;
    bs_open(&x, f, "16", false);
    char bodies[5][300];
    make_bodies(bodies, 5, "fallback");
    bs_write(&x, 5, bodies);
    CU_ASSERT_TRUE_FATAL(bs_wait(&x));
    for (int i = 0; i < 5; i++) {
        assert_landed(&x, f, bodies, i);
        CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, bodies[i], strlen(bodies[i])), 2);
    }
    bs_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 1 + 5);
    CU_ASSERT_EQUAL(st.sent_ok, 5);
    fake_rmq_stop(f);
}

/* One message over the broker's maximum body size fails alone; the rest of its batch lands. */
static void test_batch_isolates_bad_message(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    fake_rmq_set_max_body(f, 100);
    bsnk_t x;
    bs_open(&x, f, "16", false);
    char bodies[6][300];
    make_bodies(bodies, 6, "isolate");
    memset(bodies[3], 'x', 250);
    bodies[3][250] = '\0';
    bs_write(&x, 6, bodies);
    CU_ASSERT_TRUE_FATAL(bs_wait(&x));
    CU_ASSERT_EQUAL(x.rows, 6);
    for (int i = 0; i < 6; i++) {
        if (i == 3) {
            CU_ASSERT_NOT_EQUAL(x.results[i].code, RSQL_OK);
            CU_ASSERT_PTR_NOT_NULL(strstr(x.results[i].msg, "MESSAGE_BODY_TOO_LARGE"));
            CU_ASSERT_EQUAL(fake_rmq_find_body(f, OUT, bodies[i], strlen(bodies[i])), SIZE_MAX);
        } else {
            assert_landed(&x, f, bodies, i);
        }
    }
    bs_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 5);
    fake_rmq_stop(f);
}

/* Without sink.batch-size the sink batches: 40 rows in fewer requests, each row its own id. */
static void test_batch_default(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    bsnk_t x;
    bs_open(&x, f, NULL, false);
    char bodies[40][300];
    make_bodies(bodies, 40, "default");
    bs_write(&x, 40, bodies);
    CU_ASSERT_TRUE_FATAL(bs_wait(&x));
    CU_ASSERT_EQUAL(x.rows, 40);
    for (int i = 0; i < 40; i++) {
        assert_landed(&x, f, bodies, i);
        CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, bodies[i], strlen(bodies[i])), 1);
    }
    bs_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.calls[FAKE_SEND] < 40);
    CU_ASSERT_EQUAL(st.sent_ok, 40);
    CU_ASSERT_EQUAL(st.sent_rejected, 0);
    fake_rmq_stop(f);
}

/*
** A proxy that does not take batches (it refuses every request of several messages): each
** refused batch's rows go again one by one and land; after two such batches the sink sends
** one message per request, so the third write's rows go singly at once.
*/
static void test_batch_proxy_refuses(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    fake_rmq_refuse_batches(f, RSQL_RMQ_CODE_BAD_REQUEST);
    bsnk_t x;
    bs_open(&x, f, NULL, false);
    char bodies[3][10][300];
    fake_stats_t st;
    static const char *const prefix[3] = {"first", "second", "third"};
    static const int want_calls[3] = {1 + 10, 1 + 10 + 1 + 10, 1 + 10 + 1 + 10 + 10};
    for (int w = 0; w < 3; w++) {
        make_bodies(bodies[w], 10, prefix[w]);
        bs_write(&x, 10, bodies[w]);
        CU_ASSERT_TRUE_FATAL(bs_wait_n(&x, w + 1));
        for (int i = 0; i < 10; i++) {
            assert_landed(&x, f, bodies[w], i);
            CU_ASSERT_EQUAL(fake_rmq_send_attempts(f, bodies[w][i], strlen(bodies[w][i])),
                            w < 2 ? 2 : 1);
        }
        fake_rmq_stats(f, &st);
        CU_ASSERT_EQUAL(st.calls[FAKE_SEND], want_calls[w]);
    }
    bs_close(&x);
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 30);
    CU_ASSERT_EQUAL(st.sent_rejected, 20);
    fake_rmq_stop(f);
}

/*
** Once the proxy has taken a batch, a batch refused whole is a message's fault, never the
** proxy's: even two of them, whose rows then land alone, leave batching on.
*/
static void test_batch_stays_after_accepted(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    bsnk_t x;
    bs_open(&x, f, NULL, false);
    char bodies[4][10][300];
    static const char *const prefix[4] = {"ok", "bad1", "bad2", "after"};
    fake_answer_t bad = {.code = RSQL_RMQ_CODE_BAD_REQUEST};
    fake_stats_t st;
    int calls = 0;
    for (int w = 0; w < 4; w++) {
        if (w == 1 || w == 2) {
            fake_rmq_script(f, FAKE_SEND, 1, &bad);
        }
        make_bodies(bodies[w], 10, prefix[w]);
        bs_write(&x, 10, bodies[w]);
        CU_ASSERT_TRUE_FATAL(bs_wait_n(&x, w + 1));
        for (int i = 0; i < 10; i++) {
            assert_landed(&x, f, bodies[w], i);
        }
        fake_rmq_stats(f, &st);
        /* one batch; a refused one then each row alone */
        calls += w == 1 || w == 2 ? 1 + 10 : 1;
        CU_ASSERT_EQUAL(st.calls[FAKE_SEND], calls);
    }
    bs_close(&x);
    fake_rmq_stop(f);
}

/* FIFO rows (a message group each) are never batched: one request per row. */
static void test_batch_fifo_single(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    bsnk_t x;
    bs_open(&x, f, "16", true);
    char bodies[5][300];
    make_bodies(bodies, 5, "fifo");
    bs_write(&x, 5, bodies);
    CU_ASSERT_TRUE_FATAL(bs_wait(&x));
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(x.results[i].code, RSQL_OK);
    }
    bs_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 5);
    CU_ASSERT_EQUAL(st.sent_ok, 5);
    fake_rmq_stop(f);
}

static CU_TestInfo batch_tests[] = {
    {"batch_split_ids", test_batch_split_ids},
    {"batch_transient", test_batch_transient},
    {"batch_permanent_fallback", test_batch_permanent_fallback},
    {"batch_isolates_bad_message", test_batch_isolates_bad_message},
    {"batch_fifo_single", test_batch_fifo_single},
    {"batch_default", test_batch_default},
    {"batch_proxy_refuses", test_batch_proxy_refuses},
    {"batch_stays_after_accepted", test_batch_stays_after_accepted},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_batch", NULL, NULL, NULL, NULL, batch_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
