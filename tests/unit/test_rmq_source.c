/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the rocketmq-grpc source's broker-free parts: its poll and commit_record on
 * messages the client marked bad (a received message without system
 * properties reached strlen(NULL) in the poll), driven on a source built by hand with no client
 * and no housekeeping thread, and the record ident.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <string.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "rmqclient/rmq_int.h"
#include "connectors/rocketmq/rmq_source_int.h"
#include "base/rsql_mem.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x
#define MIB ((size_t)1 << 20)

/* A source as rs_open makes it, without a client or a housekeeping thread. */
static rsql_source_t *mk_source(const char *topic)
{
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    pthread_mutex_init(&s->mu, NULL);
    rsql_cond_init_monotonic(&s->poll_cv);
    rsql_cond_init_monotonic(&s->hk_cv);
    rsql_cond_init_monotonic(&s->done_cv);
    s->held.next = s->held.prev = &s->held;
    rsql_error_clear(&s->fatal);
    s->next_renew_due = INT64_MAX;
    s->fetch = 4;
    s->fetch_now = 1;
    s->batch = 32;
    s->invisible_ms = 60000;
    s->ahead_ms = 5000;
    s->idle_ms = -1;
    rsql_rmq_idle_init(&s->idle, s->idle_ms, rsql_now_ms(), 0);
    s->topic = rsql_strdup(topic);
    s->lanes = rsql_rmq_inflight_new(topic);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->topic);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->lanes);
    return s;
}

/* Hold m in s as the receive callback does. */
static void hold(rsql_source_t *s, rsql_rmq_msg_t *m)
{
    held_t *h = rsql_calloc(1, sizeof *h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    h->m = m;
    h->src = s;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_inflight_lane(s->lanes, NULL, &h->lane, NULL), RSQL_OK);
    pthread_mutex_lock(&s->mu);
    rsql_rmq__held_buffer(s, h, rsql_now_ms());
    pthread_mutex_unlock(&s->mu);
}

/* A message as the client decodes it off the wire. */
static rsql_rmq_msg_t *received(PB(Message) *pm)
{
    size_t n = protobuf_c_message_get_packed_size(&pm->base);
    uint8_t *p = rsql_malloc(n ? n : 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    protobuf_c_message_pack(&pm->base, p);
    rsql_rmq_msg_t *m = rsql_rmq__dec_message(p, n, "127.0.0.1:8081", 4 * MIB, NULL);
    rsql_free(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

static void test_rmq_source_bad_message_is_a_record_failure(void)
{
    PB(Message) pm = PBC(MESSAGE__INIT);
    PB(Resource) t = PBC(RESOURCE__INIT);
    t.name = (char *)"orders";
    pm.topic = &t;
    pm.body.data = (uint8_t *)"{\"id\":7}";
    pm.body.len = 8;
    rsql_rmq_msg_t *bad = received(&pm); /* no system_properties */
    PB(SystemProperties) sp = PBC(SYSTEM_PROPERTIES__INIT);
    sp.message_id = (char *)"0102AB";
    sp._receipt_handle_case = PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE);
    sp.receipt_handle = (char *)"RH";
    pm.system_properties = &sp;
    rsql_rmq_msg_t *good = received(&pm);
    CU_ASSERT_EQUAL(good->bad.code, RSQL_OK);

    rsql_source_t *s = mk_source("orders");
    hold(s, bad);
    hold(s, good);
    rsql_batch_t *b = rsql_batch_new(8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    bool eof = true;
    rsql_error_t e;
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_source_ops.poll(s, b, 8, 0, &eof, &e), RSQL_OK);
    CU_ASSERT_FALSE(eof);
    CU_ASSERT_EQUAL_FATAL(b->n, 2);
    /* the bad one: a decode failure of its record, with its raw form and an ident */
    const rsql_record_t *r0 = &b->recs[0], *r1 = &b->recs[1];
    CU_ASSERT_PTR_NOT_NULL_FATAL(r0->error);
    CU_ASSERT_EQUAL(r0->error->code, RSQL_ERR_DECODE);
    CU_ASSERT_PTR_NOT_NULL(strstr(r0->error->msg, "without system properties"));
    CU_ASSERT_STRING_EQUAL(r0->ident, "orders/(no message id)");
    CU_ASSERT_EQUAL(r0->raw_len, 8);
    CU_ASSERT_EQUAL(memcmp(r0->raw, "{\"id\":7}", 8), 0);
    CU_ASSERT_PTR_NULL(r1->error);
    CU_ASSERT_STRING_EQUAL(r1->ident, "orders/0102AB");

    /* dead-lettered: nothing to ack without a receipt handle, it is let go; the good one is
       queued for its ack */
    rsql_outcome_t dl = {RSQL_OUTCOME_DEAD_LETTERED, &e, NULL};
    rsql_outcome_t ok = {RSQL_OUTCOME_WRITTEN, NULL, NULL};
    rsql_rmq_source_ops.commit_record(s, r0, &dl);
    pthread_mutex_lock(&s->mu);
    CU_ASSERT_EQUAL(s->n_ack, 0);
    CU_ASSERT_EQUAL(s->n_held, 1);
    pthread_mutex_unlock(&s->mu);
    rsql_rmq_source_ops.commit_record(s, r1, &ok);
    pthread_mutex_lock(&s->mu);
    CU_ASSERT_EQUAL(s->n_ack, 1);
    CU_ASSERT_EQUAL(s->n_held, 0);
    pthread_mutex_unlock(&s->mu);
    rsql_batch_destroy(b);
    rsql_rmq_source_ops.close(s); /* no client: the queued ack is dropped, nothing leaks */
}

static void test_rmq_source_bounded_end(void)
{
    rsql_source_t *s = mk_source("orders");
    s->idle_ms = 5000;
    rsql_rmq_idle_init(&s->idle, s->idle_ms, 0, 0);
    rsql_batch_t *b = rsql_batch_new(8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    bool eof = true;
    /* nothing answered yet (say the proxy is down): no end, however long it takes */
    CU_ASSERT_EQUAL(rsql_rmq_source_ops.poll(s, b, 8, 0, &eof, NULL), RSQL_OK);
    CU_ASSERT_FALSE(eof);
    /* the broker answered for the idle timeout, but a long poll is still out: wait for it */
    rsql_rmq_idle_answered(&s->idle, 0, 5000);
    s->recv_outstanding = 1;
    CU_ASSERT_EQUAL(rsql_rmq_source_ops.poll(s, b, 8, 0, &eof, NULL), RSQL_OK);
    CU_ASSERT_FALSE(eof);
    s->recv_outstanding = 0;
    CU_ASSERT_EQUAL(rsql_rmq_source_ops.poll(s, b, 8, 0, &eof, NULL), RSQL_OK);
    CU_ASSERT_TRUE(eof);
    CU_ASSERT_EQUAL(b->n, 0);
    rsql_batch_destroy(b);
    rsql_rmq_source_ops.close(s);
}

static void test_rmq_source_leftovers(void)
{
    PB(Message) pm = PBC(MESSAGE__INIT);
    PB(Resource) t = PBC(RESOURCE__INIT);
    PB(SystemProperties) sp = PBC(SYSTEM_PROPERTIES__INIT);
    t.name = (char *)"orders";
    pm.topic = &t;
    pm.system_properties = &sp;
    pm.body.data = (uint8_t *)"{}";
    pm.body.len = 2;
    sp._receipt_handle_case = PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE);
    sp.receipt_handle = (char *)"RH";
    rsql_source_t *s = mk_source("orders");
    sp.message_id = (char *)"A1";
    hold(s, received(&pm));
    sp.message_id = (char *)"A2";
    hold(s, received(&pm));
    sp.message_id = (char *)"A3";
    hold(s, received(&pm));
    rsql_batch_t *b = rsql_batch_new(8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    bool eof = false;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_source_ops.poll(s, b, 8, 0, &eof, NULL), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 3);
    char buf[512];
    /* while the read goes on, the JSON detail says nothing about leftovers; it shows the
       adaptive receive's long polls (none in flight: this source has no housekeeping) */
    size_t dn = rsql_rmq_source_ops.describe(s, false, buf, sizeof buf);
    CU_ASSERT_EQUAL(dn, strlen(buf));
    CU_ASSERT_PTR_NULL(strstr(buf, "left"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"long_polls\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",\"long_polls_in_flight\":0}"));
    CU_ASSERT_EQUAL(rsql_rmq_source_ops.leftover(s, buf, sizeof buf) > 0, true);
    /* one written (acked), one failed (released: invisible until its deadline), one left */
    rsql_outcome_t ok = {RSQL_OUTCOME_WRITTEN, NULL, NULL};
    rsql_outcome_t failed = {RSQL_OUTCOME_FAILED, NULL, NULL};
    rsql_rmq_source_ops.commit_record(s, &b->recs[0], &ok);
    rsql_rmq_source_ops.commit_record(s, &b->recs[1], &failed);
    rsql_rmq_source_ops.wakeup(s); /* the run ends */
    size_t n = rsql_rmq_source_ops.leftover(s, buf, sizeof buf);
    CU_ASSERT_EQUAL(n, strlen(buf));
    CU_ASSERT_STRING_EQUAL(buf, "rocketmq: left 2 held messages, invisible for up to 1min");
    n = rsql_rmq_source_ops.describe(s, false, buf, sizeof buf);
    CU_ASSERT_EQUAL(n, strlen(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",\"left\":{\"held\":2,\"held_visible_by_ms\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",\"deferred\":0,\"deferred_visible_by_ms\":0}}"));
    CU_ASSERT_EQUAL(buf[0], '{');
    rsql_rmq_source_ops.commit_record(s, &b->recs[2], &ok);
    rsql_batch_destroy(b);
    rsql_rmq_source_ops.close(s);
}

/* The adaptive receive's rule: full polls double, empty ones halve, within 1..max. */
static void test_rmq_source_polls_adapt(void)
{
    int now = 1;
    int seen[8];
    for (int i = 0; i < 6; i++) { /* a backlog: every poll full */
        now = rsql_rmq__polls_adapt(now, 16, 32, 32);
        seen[i] = now;
    }
    CU_ASSERT_EQUAL(seen[0], 2);
    CU_ASSERT_EQUAL(seen[1], 4);
    CU_ASSERT_EQUAL(seen[3], 16);
    CU_ASSERT_EQUAL(seen[5], 16); /* never over the most */
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(16, 16, 32, 31), 16); /* partial: kept */
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(5, 16, 32, 7), 5);
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(16, 16, 32, 0), 8); /* empty: halved */
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(3, 16, 32, 0), 1);
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(1, 16, 32, 0), 1); /* never below one */
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(12, 20, 8, 8), 20);
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(1, 1, 32, 32), 1); /* fetch-concurrency 1 */
    CU_ASSERT_EQUAL(rsql_rmq__polls_adapt(1, 64, 1, 1), 2);  /* batch-size 1 */
}

static void test_rmq_source_record_ident(void)
{
    rsql_arena_t *a = rsql_arena_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    rsql_rmq_msg_t m;
    memset(&m, 0, sizeof m);
    CU_ASSERT_STRING_EQUAL(rsql_rmq__record_ident(a, &m, "t"), "t/(no message id)");
    m.topic = (char *)"parent";
    m.lite_topic = (char *)"sess-1";
    m.message_id = (char *)"AB\ncd\xc3";
    CU_ASSERT_STRING_EQUAL(rsql_rmq__record_ident(a, &m, "t"), "parent/sess-1/AB?cd?");
    char long_id[300];
    memset(long_id, 'F', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    m.message_id = long_id;
    m.lite_topic = NULL;
    const char *id = rsql_rmq__record_ident(a, &m, "t");
    CU_ASSERT_EQUAL(strlen(id), strlen("parent/") + 128 + 3);
    CU_ASSERT_STRING_EQUAL(id + strlen(id) - 3, "...");
    rsql_arena_destroy(a);
}

static CU_TestInfo source_tests[] = {
    {"rmq_source_bad_message_is_a_record_failure",
     test_rmq_source_bad_message_is_a_record_failure},
    {"rmq_source_bounded_end", test_rmq_source_bounded_end},
    {"rmq_source_leftovers", test_rmq_source_leftovers},
    {"rmq_source_polls_adapt", test_rmq_source_polls_adapt},
    {"rmq_source_record_ident", test_rmq_source_record_ident},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_source", NULL, NULL, NULL, NULL, source_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
