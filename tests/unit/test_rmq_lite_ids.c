/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of rmq_lite_ids.c on a fake clock: a burst of one identity is full when it
 * brings RSQL_RMQ_ROUND_FULL distinct lite topics (repeats, a gap or a burst longer than the
 * span do not add up to one), and the number of identities in use grows to the maximum on a
 * full round and falls back to the minimum only after RSQL_RMQ_IDS_SHRINK_MS without one.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>

#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rocketmq/rmq_conn_int.h"

/* A full round: RSQL_RMQ_ROUND_FULL lite topics popped back to back, each several times. */
static void test_round_full(void)
{
    rsql_rmq_round_t r = {0};
    int64_t t = 5000;
    int fulls = 0;
    for (uint32_t lane = 0; lane < RSQL_RMQ_ROUND_FULL; lane++) {
        for (int k = 0; k < 3; k++) { /* a lite topic's messages: counted once */
            bool full = rsql_rmq_round_seen(&r, lane, t++);
            fulls += full;
            CU_ASSERT_EQUAL(full, lane == RSQL_RMQ_ROUND_FULL - 1 && k == 0);
        }
    }
    CU_ASSERT_EQUAL(fulls, 1);
    CU_ASSERT_EQUAL(r.distinct, RSQL_RMQ_ROUND_FULL);
    /* more lite topics in the same burst: no second report */
    for (uint32_t lane = RSQL_RMQ_ROUND_FULL; lane < 3 * RSQL_RMQ_ROUND_FULL; lane++) {
        CU_ASSERT_FALSE(rsql_rmq_round_seen(&r, lane, t));
    }
    /* the next round, after a gap: full again */
    t += RSQL_RMQ_ROUND_GAP_MS;
    fulls = 0;
    for (uint32_t lane = 0; lane < RSQL_RMQ_ROUND_FULL; lane++) {
        fulls += rsql_rmq_round_seen(&r, lane, t + lane);
    }
    CU_ASSERT_EQUAL(fulls, 1);
    rsql_rmq_round_deinit(&r);
}

/* A round short of the maximum is not full; a gap splits two half rounds. */
static void test_round_not_full(void)
{
    rsql_rmq_round_t r = {0};
    int64_t t = 1000;
    int fulls = 0;
    for (uint32_t lane = 0; lane < RSQL_RMQ_ROUND_FULL - 1; lane++) {
        fulls += rsql_rmq_round_seen(&r, lane, t += 10);
    }
    CU_ASSERT_EQUAL(fulls, 0);
    /* the last one comes after a gap: a new burst of 1 */
    t += RSQL_RMQ_ROUND_GAP_MS;
    CU_ASSERT_FALSE(rsql_rmq_round_seen(&r, RSQL_RMQ_ROUND_FULL - 1, t));
    CU_ASSERT_EQUAL(r.distinct, 1);
    for (uint32_t lane = 0; lane < RSQL_RMQ_ROUND_FULL / 2; lane++) {
        fulls += rsql_rmq_round_seen(&r, lane, t += 10);
    }
    CU_ASSERT_EQUAL(fulls, 0);
    rsql_rmq_round_deinit(&r);
}

/* Live traffic over many lite topics, slow: the span cuts the burst, it never counts to full. */
static void test_round_span(void)
{
    rsql_rmq_round_t r = {0};
    int fulls = 0;
    int64_t step = RSQL_RMQ_ROUND_SPAN_MS / (RSQL_RMQ_ROUND_FULL / 2); /* half a round per span */
    int64_t t = 100;
    for (uint32_t lane = 0; lane < 10 * RSQL_RMQ_ROUND_FULL; lane++) {
        fulls += rsql_rmq_round_seen(&r, lane, t += step);
        CU_ASSERT(r.distinct <= RSQL_RMQ_ROUND_FULL / 2 + 1);
    }
    CU_ASSERT_EQUAL(fulls, 0);
    /* a reset (a new identity in the slot) starts a new burst at once */
    for (uint32_t lane = 0; lane < 10; lane++) {
        rsql_rmq_round_seen(&r, lane, t);
    }
    rsql_rmq_round_reset(&r);
    CU_ASSERT_EQUAL(r.distinct, 0);
    rsql_rmq_round_seen(&r, 3, t);
    CU_ASSERT_EQUAL(r.distinct, 1);
    rsql_rmq_round_deinit(&r);
}

/* Lanes far apart grow the storage; the stamps keep bursts apart after many of them. */
static void test_round_storage(void)
{
    rsql_rmq_round_t r = {0};
    CU_ASSERT_FALSE(rsql_rmq_round_seen(&r, 5000, 10));
    CU_ASSERT(r.cap > 5000);
    CU_ASSERT_FALSE(rsql_rmq_round_seen(&r, 5000, 11)); /* the same lite topic */
    CU_ASSERT_EQUAL(r.distinct, 1);
    r.stamp = UINT32_MAX; /* the next burst wraps the stamp */
    int64_t t = 11 + RSQL_RMQ_ROUND_GAP_MS;
    CU_ASSERT_FALSE(rsql_rmq_round_seen(&r, 5000, t));
    CU_ASSERT_EQUAL(r.stamp, 1);
    CU_ASSERT_EQUAL(r.distinct, 1);
    rsql_rmq_round_deinit(&r);
    CU_ASSERT_PTR_NULL(r.seen);
}

/* Grow to the maximum on a full round; shrink to the minimum after the quiet time only. */
static void test_ids_grow_shrink(void)
{
    rsql_rmq_ids_t d;
    rsql_rmq_ids_init(&d, 1, 8, 1, 0);
    CU_ASSERT_EQUAL(d.target, 1);
    CU_ASSERT_EQUAL(rsql_rmq_ids_next(&d), INT64_MAX);
    CU_ASSERT_FALSE(rsql_rmq_ids_tick(&d, 1000000)); /* never below the minimum */
    CU_ASSERT_TRUE(rsql_rmq_ids_full(&d, 6000));
    CU_ASSERT_EQUAL(d.target, 8);
    CU_ASSERT_EQUAL(rsql_rmq_ids_next(&d), 6000 + RSQL_RMQ_IDS_SHRINK_MS);
    /* another full round: no change, but the quiet time starts again */
    CU_ASSERT_FALSE(rsql_rmq_ids_full(&d, 16000));
    CU_ASSERT_FALSE(rsql_rmq_ids_tick(&d, 16000 + RSQL_RMQ_IDS_SHRINK_MS - 1));
    CU_ASSERT_EQUAL(d.target, 8);
    CU_ASSERT_TRUE(rsql_rmq_ids_tick(&d, 16000 + RSQL_RMQ_IDS_SHRINK_MS));
    CU_ASSERT_EQUAL(d.target, 1);
    CU_ASSERT_FALSE(rsql_rmq_ids_tick(&d, 100000000));
    /* a failed start keeps the target at what runs; the next full round tries again */
    CU_ASSERT_TRUE(rsql_rmq_ids_full(&d, 200000));
    rsql_rmq_ids_failed(&d, 3);
    CU_ASSERT_EQUAL(d.target, 3);
    CU_ASSERT_TRUE(rsql_rmq_ids_full(&d, 210000));
    CU_ASSERT_EQUAL(d.target, 8);
}

/* Several identities at the start (source.lite-clients-start) are kept for the quiet time, as
   after a full round, then go back to the floor; a full round meanwhile grows them to the
   maximum and starts the quiet time again. */
static void test_ids_start(void)
{
    rsql_rmq_ids_t d;
    rsql_rmq_ids_init(&d, 1, 8, 4, 5000);
    CU_ASSERT_EQUAL(d.target, 4);
    CU_ASSERT_EQUAL(rsql_rmq_ids_next(&d), 5000 + RSQL_RMQ_IDS_SHRINK_MS);
    CU_ASSERT_FALSE(rsql_rmq_ids_tick(&d, 5000 + RSQL_RMQ_IDS_SHRINK_MS - 1));
    CU_ASSERT_EQUAL(d.target, 4);
    CU_ASSERT_TRUE(rsql_rmq_ids_tick(&d, 5000 + RSQL_RMQ_IDS_SHRINK_MS));
    CU_ASSERT_EQUAL(d.target, 1);
    CU_ASSERT_EQUAL(rsql_rmq_ids_next(&d), INT64_MAX);
    /* a backlog larger than the start's identities take in a round */
    rsql_rmq_ids_init(&d, 1, 8, 4, 5000);
    CU_ASSERT_TRUE(rsql_rmq_ids_full(&d, 10500));
    CU_ASSERT_EQUAL(d.target, 8);
    CU_ASSERT_FALSE(rsql_rmq_ids_tick(&d, 5000 + RSQL_RMQ_IDS_SHRINK_MS));
    CU_ASSERT_TRUE(rsql_rmq_ids_tick(&d, 10500 + RSQL_RMQ_IDS_SHRINK_MS));
    CU_ASSERT_EQUAL(d.target, 1);
    /* a start above the maximum is the maximum */
    rsql_rmq_ids_init(&d, 1, 2, 4, 0);
    CU_ASSERT_EQUAL(d.target, 2);
}

/* The start of the options: lite-clients-start within [min, max] for the wildcard
   subscription, the floor with explicit lite topics. */
static void test_ids_start_conf(void)
{
    rsql_rmq_conf_t c;
    memset(&c, 0, sizeof c);
    c.lite_clients = 8;
    c.lite_clients_min = 1;
    c.lite_clients_start = 8;
    CU_ASSERT_EQUAL(rsql_rmq_lite_start(&c), 8);
    c.lite_clients = 3;
    CU_ASSERT_EQUAL(rsql_rmq_lite_start(&c), 3);
    c.lite_clients = 8;
    c.lite_clients_min = 2;
    c.lite_clients_start = 1;
    CU_ASSERT_EQUAL(rsql_rmq_lite_start(&c), 2);
    c.lite_clients_start = 8;
    c.lite_topics = "a,b";
    CU_ASSERT_EQUAL(rsql_rmq_lite_start(&c), 2);
}

/* A floor above 1 (source.lite-clients-min) and min = max (a fixed number). */
static void test_ids_bounds(void)
{
    rsql_rmq_ids_t d;
    rsql_rmq_ids_init(&d, 4, 4, 4, 0);
    CU_ASSERT_EQUAL(d.target, 4);
    CU_ASSERT_FALSE(rsql_rmq_ids_full(&d, 1000));
    CU_ASSERT_FALSE(rsql_rmq_ids_tick(&d, 1000000));
    CU_ASSERT_EQUAL(d.target, 4);
    rsql_rmq_ids_init(&d, 2, 6, 1, 0); /* a start under the floor is the floor */
    CU_ASSERT_EQUAL(d.target, 2);
    CU_ASSERT_TRUE(rsql_rmq_ids_full(&d, 1000));
    CU_ASSERT_TRUE(rsql_rmq_ids_tick(&d, 1000 + RSQL_RMQ_IDS_SHRINK_MS));
    CU_ASSERT_EQUAL(d.target, 2);
    rsql_rmq_ids_init(&d, 5, 3, 9, 0); /* a maximum under the minimum is the minimum */
    CU_ASSERT_EQUAL(d.max, 5);
    CU_ASSERT_EQUAL(d.target, 5);
    rsql_rmq_ids_failed(&d, 0);
    CU_ASSERT_EQUAL(d.target, 5);
}

static CU_TestInfo lite_ids_tests[] = {
    {"round_full", test_round_full},
    {"round_not_full", test_round_not_full},
    {"round_span", test_round_span},
    {"round_storage", test_round_storage},
    {"ids_grow_shrink", test_ids_grow_shrink},
    {"ids_start", test_ids_start},
    {"ids_start_conf", test_ids_start_conf},
    {"ids_bounds", test_ids_bounds},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_lite_ids", NULL, NULL, NULL, NULL, lite_ids_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
