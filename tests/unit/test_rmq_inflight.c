/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of connectors/rocketmq/rmq_inflight.c: the lane map of the rocketmq-grpc data path
 * (lite topic / message group -> lane, names, per-lane counts, growth past the first table).
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

/* The messages in flight over every lane, from the lanes' counts. */
static int64_t total_in_flight(const rsql_rmq_inflight_t *t)
{
    int64_t n = 0;
    rsql_rmq_lane_stats_t st;
    for (uint32_t lane = 0; lane < rsql_rmq_inflight_count(t); lane++) {
        rsql_rmq_inflight_stats(t, lane, &st);
        n += st.in_flight;
    }
    return n;
}

static void test_lanes_and_names(void)
{
    rsql_rmq_inflight_t *t = rsql_rmq_inflight_new("orders");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t a, b, c, again;
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "lt-1", &a, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "lt-2", &b, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, NULL, &c, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(a, 0);
    CU_ASSERT_EQUAL(b, 1);
    CU_ASSERT_EQUAL(c, 2);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "lt-1", &again, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(again, a);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_count(t), 3);
    CU_ASSERT_STRING_EQUAL(rsql_rmq_inflight_name(t, a), "orders/lt-1");
    CU_ASSERT_STRING_EQUAL(rsql_rmq_inflight_key(t, b), "lt-2");
    CU_ASSERT_STRING_EQUAL(rsql_rmq_inflight_name(t, c), "orders");
    CU_ASSERT_PTR_NULL(rsql_rmq_inflight_name(t, 3));
    CU_ASSERT_TRUE(rsql_rmq_inflight_find(t, "lt-2", &again));
    CU_ASSERT_EQUAL(again, b);
    CU_ASSERT_FALSE(rsql_rmq_inflight_find(t, "lt-3", &again));
    rsql_rmq_inflight_destroy(t);

    t = rsql_rmq_inflight_new(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "g1", &a, NULL), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_rmq_inflight_name(t, a), "g1");
    rsql_rmq_inflight_destroy(t);
    rsql_rmq_inflight_destroy(NULL);
}

static void test_counts(void)
{
    rsql_rmq_inflight_t *t = rsql_rmq_inflight_new("p");
    uint32_t hot, cold;
    rsql_rmq_lane_stats_t st;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "hot", &hot, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "cold", &cold, NULL), RSQL_OK);
    for (int i = 1; i <= 5; i++) {
        CU_ASSERT_EQUAL(rsql_rmq_inflight_received(t, hot), i); /* offsets 1, 2, ... per lane */
    }
    CU_ASSERT_EQUAL(rsql_rmq_inflight_received(t, cold), 1);
    rsql_rmq_inflight_done(t, hot, true);
    rsql_rmq_inflight_done(t, hot, true);
    rsql_rmq_inflight_done(t, hot, false);
    rsql_rmq_inflight_deferred(t, hot);
    rsql_rmq_inflight_stats(t, hot, &st);
    CU_ASSERT_EQUAL(st.in_flight, 1);
    CU_ASSERT_EQUAL(st.received, 5);
    CU_ASSERT_EQUAL(st.delivered, 2);
    CU_ASSERT_EQUAL(st.released, 1);
    CU_ASSERT_EQUAL(st.deferred, 1);
    CU_ASSERT_EQUAL(total_in_flight(t), 2);
    /* never below zero */
    rsql_rmq_inflight_done(t, cold, true);
    rsql_rmq_inflight_done(t, cold, true);
    rsql_rmq_inflight_stats(t, cold, &st);
    CU_ASSERT_EQUAL(st.in_flight, 0);
    CU_ASSERT_EQUAL(st.delivered, 2);
    /* unknown lanes are ignored and read as zeros */
    rsql_rmq_inflight_done(t, 99, true);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_received(t, 99), 0);
    rsql_rmq_inflight_stats(t, 99, &st);
    CU_ASSERT_EQUAL(st.received, 0);
    rsql_rmq_inflight_destroy(t);
}

static void test_many_lanes(void)
{
    rsql_rmq_inflight_t *t = rsql_rmq_inflight_new("parent");
    char key[32];
    uint32_t lane;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "lite-%d", i);
        CU_ASSERT_EQUAL_FATAL(rsql_rmq_inflight_lane(t, key, &lane, NULL), RSQL_OK);
        CU_ASSERT_EQUAL_FATAL(lane, (uint32_t)i);
        rsql_rmq_inflight_received(t, lane);
    }
    CU_ASSERT_EQUAL(rsql_rmq_inflight_count(t), 5000);
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "lite-%d", i);
        bad += !rsql_rmq_inflight_find(t, key, &lane) || lane != (uint32_t)i;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_STRING_EQUAL(rsql_rmq_inflight_name(t, 4321), "parent/lite-4321");
    CU_ASSERT_EQUAL(total_in_flight(t), 5000);
    rsql_rmq_inflight_destroy(t);
}

static CU_TestInfo inflight_tests[] = {
    {"lanes_and_names", test_lanes_and_names},
    {"counts", test_counts},
    {"many_lanes", test_many_lanes},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {
    {"rmq_inflight", NULL, NULL, NULL, NULL, inflight_tests},
    CU_SUITE_INFO_NULL,
};
#include "tests/lib/cu_main.h"
