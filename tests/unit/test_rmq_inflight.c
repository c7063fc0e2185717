/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of connectors/rocketmq/rmq_inflight.c: the lane map of the rocketmq-grpc data path
 * (lite topic / message group -> lane, names, per-lane counts, growth past the first table), and
 * idle lanes going: only with nothing in flight, after the idle time, when the owner agrees;
 * their numbers reused. A source's bookkeeping through 200,000 lite topics (or message groups)
 * stays within 1.5x the peak RSS of the same through 1,000: the lane map, the throttle's
 * buckets and the runtime's offset tracker (its rings) all follow the live lanes.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"
#include "engine/rsql_pipeline.h"
#include "tests/lib/cu_sanitized.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* may_go of the tests: the lanes whose flag in opaque (a bool array) is set may go */
static bool may_go_flag(void *opaque, uint32_t lane)
{
    return ((const bool *)opaque)[lane];
}

static void test_lanes_go(void)
{
    rsql_rmq_inflight_t *t = rsql_rmq_inflight_new("p");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    bool ok[8] = {true, true, true, true, true, true, true, true};
    uint32_t a, b, c, d;
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "a", &a, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "b", &b, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "c", &c, NULL), RSQL_OK);
    rsql_rmq_inflight_received(t, a); /* a: in flight */
    rsql_rmq_inflight_received(t, b);
    rsql_rmq_inflight_done(t, b, true); /* b: done */
    ok[c] = false;                      /* c: its owner holds it */
    /* the first sweep finds every lane touched: none goes */
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1000, 100, may_go_flag, ok), 0);
    /* within idle_ms / 2 of the last sweep: no sweep */
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1049, 100, may_go_flag, ok), 0);
    /* 50 ms idle: not yet */
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1050, 100, may_go_flag, ok), 0);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_live(t), 3);
    /* 100 ms idle: b goes; a is in flight, c held by its owner */
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1100, 100, may_go_flag, ok), 1);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_live(t), 2);
    CU_ASSERT_FALSE(rsql_rmq_inflight_find(t, "b", &d));
    CU_ASSERT_PTR_NULL(rsql_rmq_inflight_name(t, b));
    CU_ASSERT_TRUE(rsql_rmq_inflight_find(t, "a", &d) && d == a);
    CU_ASSERT_TRUE(rsql_rmq_inflight_find(t, "c", &d) && d == c);
    rsql_rmq_lane_stats_t st;
    rsql_rmq_inflight_gone(t, &st);
    CU_ASSERT_EQUAL(st.received, 1);
    CU_ASSERT_EQUAL(st.delivered, 1);
    /* a new key takes b's number, afresh: offsets from 1 again, no counts */
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "e", &d, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(d, b);
    CU_ASSERT_STRING_EQUAL(rsql_rmq_inflight_name(t, d), "p/e");
    rsql_rmq_inflight_stats(t, d, &st);
    CU_ASSERT_EQUAL(st.received, 0);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_received(t, d), 1);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_count(t), 3);
    /* c let go by its owner: it goes (idle long enough); a's message done: a goes once idle;
       e is in flight */
    rsql_rmq_inflight_done(t, a, false);
    ok[c] = true;
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1200, 100, may_go_flag, ok), 1); /* a touched */
    CU_ASSERT_FALSE(rsql_rmq_inflight_find(t, "c", &d));
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1300, 100, may_go_flag, ok), 1);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_live(t), 1);
    CU_ASSERT_TRUE(rsql_rmq_inflight_find(t, "e", &d));
    /* looking a lane up by its key is activity too */
    rsql_rmq_inflight_done(t, d, true);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1400, 100, NULL, NULL), 0);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_lane(t, "e", &d, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1500, 100, NULL, NULL), 0);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_sweep(t, 1600, 100, NULL, NULL), 1);
    CU_ASSERT_EQUAL(rsql_rmq_inflight_live(t), 0);
    rsql_rmq_inflight_destroy(t);
}

/*
** Many keys come and go in a small table (deletions inside probe runs): every live key is still
** found under its own number, and no key that went is.
*/
static void test_lanes_go_churn(void)
{
    rsql_rmq_inflight_t *t = rsql_rmq_inflight_new("p");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    enum { N = 3000, LIVE = 40 };
    static bool may[N];
    static uint32_t of[N];
    char key[32];
    int bad = 0;
    int64_t now = 0;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "k%d", i * 7919 % 100003);
        uint32_t lane;
        CU_ASSERT_EQUAL_FATAL(rsql_rmq_inflight_lane(t, key, &lane, NULL), RSQL_OK);
        CU_ASSERT_FATAL(lane < N);
        of[i] = lane;
        may[lane] = false;
        if (i >= LIVE) {
            may[of[i - LIVE]] = true; /* the key LIVE back may go now */
        }
        rsql_rmq_inflight_sweep(t, now++, 0, may_go_flag, may);
        for (int j = i; j >= 0 && j > i - LIVE; j--) {
            snprintf(key, sizeof key, "k%d", j * 7919 % 100003);
            uint32_t l;
            bad += !rsql_rmq_inflight_find(t, key, &l) || l != of[j];
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(rsql_rmq_inflight_live(t) <= LIVE + 2);
    CU_ASSERT(rsql_rmq_inflight_count(t) <= LIVE + 3);
    for (int i = 0; i < N - LIVE - 2; i++) {
        snprintf(key, sizeof key, "k%d", i * 7919 % 100003);
        uint32_t l;
        bad += rsql_rmq_inflight_find(t, key, &l);
    }
    CU_ASSERT_EQUAL(bad, 0);
    rsql_rmq_inflight_destroy(t);
}

/* ---- memory through many lanes */

typedef struct flow {
    rsql_rmq_inflight_t *lanes;
    rsql_rmq_throttle_t *thr;
    int64_t now;
} flow_t;

static bool flow_may_go(void *opaque, uint32_t lane)
{
    flow_t *f = opaque;
    return rsql_rmq_throttle_forget(f->thr, lane, f->now);
}

/*
** A source's bookkeeping for n messages, each of its own key (a lite topic with throttling, or a
** message group), at 100 messages per ms of a simulated clock with lanes.idle-timeout 10 ms:
** the lane, the throttle's decision, the runtime's offset tracker; 64 messages in flight (a
** message is done 64 messages after it came). Returns the live lanes at the end.
*/
static uint32_t flow_run(int n, bool lite)
{
    enum { WINDOW = 64 };
    flow_t f = {rsql_rmq_inflight_new("parent"), NULL, 0};
    rsql_rmq_throttle_conf_t tc = {.rate = 1000, .defer_ms = 1000, .max_attempts = 16,
                                   .max_invisible_ms = 60000};
    if (lite) {
        f.thr = rsql_rmq_throttle_new(&tc);
    }
    rsql_offtrack_t *track = rsql_offtrack_new();
    uint32_t lane_of[WINDOW];
    uint64_t ticket_of[WINDOW];
    char key[48];
    for (int i = 0; i < n + WINDOW; i++) {
        f.now = i / 100;
        if (i >= WINDOW) {
            int w = i % WINDOW;
            rsql_offtrack_done(track, lane_of[w], ticket_of[w]);
            rsql_rmq_inflight_done(f.lanes, lane_of[w], true);
        }
        if (i < n) {
            snprintf(key, sizeof key, lite ? "lite-topic-%08d" : "message-group-%08d", i);
            uint32_t lane;
            int64_t defer_ms;
            if (rsql_rmq_inflight_lane(f.lanes, key, &lane, NULL) != RSQL_OK ||
                rsql_rmq_throttle_decide(f.thr, lane, 0, 1, f.now, &defer_ms) != RSQL_RMQ_ADMIT ||
                rsql_offtrack_add(track, lane, rsql_rmq_inflight_received(f.lanes, lane), NULL,
                                  &ticket_of[i % WINDOW]) != RSQL_OK) {
                return UINT32_MAX;
            }
            lane_of[i % WINDOW] = lane;
        }
        rsql_rmq_inflight_sweep(f.lanes, f.now, 10, flow_may_go, &f);
    }
    uint32_t live = rsql_rmq_inflight_live(f.lanes);
    rsql_offtrack_destroy(track);
    rsql_rmq_throttle_destroy(f.thr);
    rsql_rmq_inflight_destroy(f.lanes);
    return live;
}

/* flow_run(n, lite) in a child: its peak RSS in KiB (0 on failure), *live its live lanes. */
static long flow_peak_kib(int n, bool lite, uint32_t *live)
{
    int fds[2];
    if (pipe(fds) != 0) {
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        uint32_t l = flow_run(n, lite);
        _exit(write(fds[1], &l, sizeof l) == (ssize_t)sizeof l ? 0 : 1);
    }
    close(fds[1]);
    *live = UINT32_MAX;
    if (read(fds[0], live, sizeof *live) != (ssize_t)sizeof *live) {
        *live = UINT32_MAX;
    }
    close(fds[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return 0;
    }
    return ru.ru_maxrss;
}

static void check_flow(bool lite)
{
    uint32_t live_small, live_big;
    long small = flow_peak_kib(1000, lite, &live_small);
    long big = flow_peak_kib(200000, lite, &live_big);
    CU_ASSERT_FATAL(small > 0 && big > 0);
    /* the live lanes: those of the last idle time (1,000 keys) and a sweep period */
    CU_ASSERT(live_small <= 1000);
    CU_ASSERT(live_big <= 2000);
    if (getenv("RSQL_TEST_VERBOSE") || big * 2 > small * 3) {
        fprintf(stderr, "\n  %s: peak RSS %ld KiB through 200,000, %ld KiB through 1,000\n",
                lite ? "lite topics" : "message groups", big, small);
    }
    if (RSQL_TEST_SANITIZED) {
        fprintf(stderr, "\n  %s: peak RSS not compared in a sanitizer build (its shadow memory "
                        "and quarantine dominate it); the live lanes were checked\n",
                lite ? "lite topics" : "message groups");
        return;
    }
    CU_ASSERT(big * 2 <= small * 3);
}

static void test_lanes_bounded_lite(void)
{
    check_flow(true);
}

static void test_lanes_bounded_groups(void)
{
    check_flow(false);
}

static CU_TestInfo inflight_tests[] = {
    {"lanes_and_names", test_lanes_and_names},
    {"counts", test_counts},
    {"many_lanes", test_many_lanes},
    {"lanes_go", test_lanes_go},
    {"lanes_go_churn", test_lanes_go_churn},
    {"lanes_bounded_lite", test_lanes_bounded_lite},
    {"lanes_bounded_groups", test_lanes_bounded_groups},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {
    {"rmq_inflight", NULL, NULL, NULL, NULL, inflight_tests},
    CU_SUITE_INFO_NULL,
};
#include "tests/lib/cu_main.h"
