/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of connectors/rocketmq/rmq_throttle.c: the fair per-lite-topic throttling policy
 * (in-flight cap, token bucket with a fake clock, growth of the deferral per delivery attempt,
 * the two safety valves) and the description of the busiest lanes.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

static rsql_rmq_throttle_conf_t conf(int64_t cap, double rate)
{
    rsql_rmq_throttle_conf_t c = {.max_inflight = cap,
                                  .rate = rate,
                                  .burst = 0,
                                  .defer_ms = 1000,
                                  .max_attempts = 16,
                                  .max_invisible_ms = 30 * 60 * 1000};
    return c;
}

static void test_inactive_admits_all(void)
{
    rsql_rmq_throttle_conf_t c = conf(0, 0);
    rsql_rmq_throttle_t *t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_FALSE(rsql_rmq_throttle_active(t));
    int64_t d = -1;
    for (int i = 0; i < 1000; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, i, 1, 0, &d), RSQL_RMQ_ADMIT);
        CU_ASSERT_EQUAL(d, 0);
    }
    rsql_rmq_throttle_destroy(t);
    CU_ASSERT_FALSE(rsql_rmq_throttle_active(NULL));
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(NULL, 0, 5, 1, 0, &d), RSQL_RMQ_ADMIT);
    rsql_rmq_throttle_destroy(NULL);
}

static void test_inflight_cap(void)
{
    rsql_rmq_throttle_conf_t c = conf(3, 0);
    rsql_rmq_throttle_t *t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_TRUE(rsql_rmq_throttle_active(t));
    int64_t d;
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_ADMIT);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 2, 1, 0, &d), RSQL_RMQ_ADMIT);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 3, 1, 0, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(d, 1000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 7, 2, 0, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(d, 2000);
    /* another lane is not affected by lane 0's count (the caller passes each lane's) */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 1, 0, 1, 0, &d), RSQL_RMQ_ADMIT);
    CU_ASSERT_EQUAL(d, 0);
    rsql_rmq_throttle_destroy(t);
}

static void test_token_bucket(void)
{
    /* 10/s: capacity 10 tokens, one token per 100 ms */
    rsql_rmq_throttle_conf_t c = conf(0, 10);
    rsql_rmq_throttle_t *t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int64_t d, now = 5000;
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, now, &d), RSQL_RMQ_ADMIT);
    }
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, now, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(d, 1000);
    /* a cold lane has its own full bucket */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 7, 0, 1, now, &d), RSQL_RMQ_ADMIT);
    /* 99 ms: still less than one token */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, now + 99, &d), RSQL_RMQ_DEFER);
    /* 100 ms: one token, exactly one admitted */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, now + 100, &d), RSQL_RMQ_ADMIT);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, now + 100, &d), RSQL_RMQ_DEFER);
    /* a long pause refills up to the capacity only (10), not more */
    now += 60000;
    int admitted = 0;
    for (int i = 0; i < 30; i++) {
        admitted += rsql_rmq_throttle_decide(t, 0, 0, 1, now, &d) == RSQL_RMQ_ADMIT;
    }
    CU_ASSERT_EQUAL(admitted, 10);
    /* over 10 s of steady arrivals (1 per ms) about 10/s get through */
    admitted = 0;
    for (int ms = 1; ms <= 10000; ms++) {
        admitted += rsql_rmq_throttle_decide(t, 0, 0, 1, now + ms, &d) == RSQL_RMQ_ADMIT;
    }
    CU_ASSERT(admitted >= 99 && admitted <= 101);
    /* a clock that goes back never adds tokens */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_DEFER);
    rsql_rmq_throttle_destroy(t);

    /* a rate below 1/s still has a capacity of one message */
    c = conf(0, 0.5);
    t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 3, 0, 1, 0, &d), RSQL_RMQ_ADMIT);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 3, 0, 1, 1999, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 3, 0, 1, 2000, &d), RSQL_RMQ_ADMIT);
    rsql_rmq_throttle_destroy(t);
}

static void test_rate_return_slots(void)
{
    /* 10/s: deferred messages of a lane come back 100 ms apart, after at least the deferral */
    rsql_rmq_throttle_conf_t c = conf(0, 10);
    c.max_invisible_ms = 10000;
    rsql_rmq_throttle_t *t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int64_t d;
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_ADMIT);
    }
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_DEFER);
        CU_ASSERT_EQUAL(d, 1000 + 100 * i);
    }
    /* a message deferred again (attempt 3: 4 s) is not pulled earlier than its growth */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 3, 0, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(d, 4000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(d, 4100);
    /* the slots never run past max-invisible: a long backlog is capped at 10 s */
    for (int i = 0; i < 200; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_DEFER);
        CU_ASSERT(d >= 1000 && d <= 10000);
    }
    CU_ASSERT_EQUAL(d, 10000);
    /* another lane has its own slots */
    for (int i = 0; i < 10; i++) {
        rsql_rmq_throttle_decide(t, 1, 0, 1, 0, &d);
    }
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 1, 0, 1, 0, &d), RSQL_RMQ_DEFER);
    CU_ASSERT_EQUAL(d, 1000);
    /* an in-flight cap deferral is not stretched */
    rsql_rmq_throttle_destroy(t);
    c = conf(1, 10);
    t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 1, 1, 0, &d), RSQL_RMQ_DEFER);
        CU_ASSERT_EQUAL(d, 1000);
    }
    rsql_rmq_throttle_destroy(t);
}

static void test_cap_and_rate(void)
{
    rsql_rmq_throttle_conf_t c = conf(2, 100);
    rsql_rmq_throttle_t *t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int64_t d;
    /* tokens left, but the cap is reached: deferred, and no token taken */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 2, 1, 0, &d), RSQL_RMQ_DEFER);
    int admitted = 0;
    for (int i = 0; i < 200; i++) {
        admitted += rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d) == RSQL_RMQ_ADMIT;
    }
    CU_ASSERT_EQUAL(admitted, 100);
    rsql_rmq_throttle_destroy(t);
}

static void test_deferral_growth(void)
{
    rsql_rmq_throttle_conf_t c = conf(1, 0);
    c.defer_ms = 1500;
    c.max_invisible_ms = 20000;
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 0), 1500);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 1), 1500);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 2), 3000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 3), 6000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 4), 12000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 5), 20000); /* 24000 capped */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 1000), 20000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 2147483647), 20000);
    /* a first deferral above the maximum is cut to it */
    c.defer_ms = 12 * 3600 * 1000;
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 1), 20000);
    /* the default valve: 30min */
    c = conf(1, 0);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 11), 1024000);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_defer_ms(&c, 12), 1800000);
}

static void test_valves(void)
{
    rsql_rmq_throttle_conf_t c = conf(1, 0);
    c.defer_ms = 4000;
    c.max_attempts = 4;
    c.max_invisible_ms = 10000;
    rsql_rmq_throttle_t *t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int64_t d;
    const int64_t want[] = {4000, 8000, 10000};
    for (int32_t a = 1; a <= 3; a++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 5, a, 0, &d), RSQL_RMQ_DEFER);
        CU_ASSERT_EQUAL(d, want[a - 1]);
        CU_ASSERT(d <= c.max_invisible_ms);
    }
    /* at and past the maximum attempt: processed although over the share */
    for (int32_t a = 4; a <= 40; a++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 5, a, 0, &d), RSQL_RMQ_ADMIT_VALVE);
        CU_ASSERT_EQUAL(d, 0);
    }
    /* within the share a message at the maximum attempt is a plain admission */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 4, 0, &d), RSQL_RMQ_ADMIT);
    rsql_rmq_throttle_destroy(t);

    /* max_attempts 1: nothing is ever deferred */
    c.max_attempts = 1;
    t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 9, 1, 0, &d), RSQL_RMQ_ADMIT_VALVE);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 9, 0, 0, &d), RSQL_RMQ_ADMIT_VALVE);
    rsql_rmq_throttle_destroy(t);

    /* a valve admission with the bucket empty does not drive it negative */
    c = conf(0, 1);
    c.max_attempts = 2;
    t = rsql_rmq_throttle_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 0, &d), RSQL_RMQ_ADMIT);
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 2, 0, &d), RSQL_RMQ_ADMIT_VALVE);
    }
    CU_ASSERT_EQUAL(rsql_rmq_throttle_decide(t, 0, 0, 1, 1000, &d), RSQL_RMQ_ADMIT);
    rsql_rmq_throttle_destroy(t);
}

static void test_describe(void)
{
    char buf[512];
    CU_ASSERT_EQUAL(rsql_rmq_throttle_describe(NULL, 3, false, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "");
    rsql_rmq_inflight_t *l = rsql_rmq_inflight_new("p");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_EQUAL(rsql_rmq_throttle_describe(l, 3, true, buf, sizeof buf), 0);
    uint32_t cold, hot, mid, quiet;
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(l, "cold", &cold, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(l, "hot", &hot, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(l, "m\"d", &mid, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(l, "quiet", &quiet, NULL), RSQL_OK);
    rsql_rmq_inflight_received(l, cold);
    rsql_rmq_inflight_done(l, cold, true);
    for (int i = 0; i < 10; i++) {
        rsql_rmq_inflight_received(l, hot);
    }
    for (int i = 0; i < 4; i++) {
        rsql_rmq_inflight_deferred(l, hot);
    }
    rsql_rmq_inflight_done(l, hot, true);
    for (int i = 0; i < 3; i++) {
        rsql_rmq_inflight_received(l, mid);
    }
    size_t n = rsql_rmq_throttle_describe(l, 3, false, buf, sizeof buf);
    const char *want = "{\"lite_topics\":[{\"name\":\"hot\",\"in_flight\":5,\"deferred\":4,"
                       "\"delivered\":1},{\"name\":\"m\\\"d\",\"in_flight\":3,\"deferred\":0,"
                       "\"delivered\":0},{\"name\":\"cold\",\"in_flight\":0,\"deferred\":0,"
                       "\"delivered\":1}],\"lanes\":4,\"deferred\":4}";
    CU_ASSERT_STRING_EQUAL(buf, want);
    CU_ASSERT_EQUAL(n, strlen(want));
    n = rsql_rmq_throttle_describe(l, 2, true, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "lite hot 5/4/1, m\"d 3/0/0 (+2 more)");
    CU_ASSERT_EQUAL(n, strlen(buf));
    /* too small for every entry: cut at a whole entry, still valid JSON */
    n = rsql_rmq_throttle_describe(l, 3, false, buf, 120);
    CU_ASSERT_STRING_EQUAL(buf, "{\"lite_topics\":[{\"name\":\"hot\",\"in_flight\":5,\"deferred\":"
                                "4,\"delivered\":1}],\"lanes\":4,\"deferred\":4}");
    CU_ASSERT(n < 120);
    /* too small for anything */
    CU_ASSERT_EQUAL(rsql_rmq_throttle_describe(l, 3, false, buf, 10), 0);
    CU_ASSERT_STRING_EQUAL(buf, "");
    rsql_rmq_inflight_destroy(l);
}

static CU_TestInfo throttle_tests[] = {{"inactive_admits_all", test_inactive_admits_all},
                                       {"inflight_cap", test_inflight_cap},
                                       {"token_bucket", test_token_bucket},
                                       {"rate_return_slots", test_rate_return_slots},
                                       {"cap_and_rate", test_cap_and_rate},
                                       {"deferral_growth", test_deferral_growth},
                                       {"valves", test_valves},
                                       {"describe", test_describe},
                                       CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {{"rmq_throttle", NULL, NULL, NULL, NULL, throttle_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"
