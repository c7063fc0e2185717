/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_time.c: the monotonic clock, deadline arithmetic (forever,
 * overflow, passed, remaining), the timespec of a deadline, and the condition variable on
 * CLOCK_MONOTONIC: a timed wait returns at its deadline (not before it, not long after),
 * a passed deadline does not wait, and a signal ends a wait early.
 */
#include "config.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

static void test_time_clock(void)
{
    int64_t ms0 = rsql_now_ms();
    int64_t ns = rsql_now_ns();
    int64_t ms1 = rsql_now_ms();
    CU_ASSERT_TRUE(ms0 <= ms1);
    CU_ASSERT_TRUE(ns / 1000000 >= ms0 && ns / 1000000 <= ms1);
    usleep(20000);
    CU_ASSERT_TRUE(rsql_now_ms() - ms1 >= 19);
    int64_t wall = rsql_wall_ms();
    int64_t secs = (int64_t)time(NULL);
    CU_ASSERT_TRUE(wall / 1000 >= secs - 1 && wall / 1000 <= secs + 1);
    int64_t wns = rsql_wall_ns(); /* the same clock, in nanoseconds */
    int64_t wall2 = rsql_wall_ms();
    CU_ASSERT_TRUE(wns / 1000000 >= wall && wns / 1000000 <= wall2);
}

static void test_time_deadline_arithmetic(void)
{
    CU_ASSERT_EQUAL(rsql_deadline_in(-1), RSQL_DEADLINE_NEVER);
    CU_ASSERT_EQUAL(rsql_deadline_in(INT64_MAX), RSQL_DEADLINE_NEVER); /* would overflow */
    CU_ASSERT_EQUAL(rsql_deadline_in(INT64_MAX - 1), RSQL_DEADLINE_NEVER);
    CU_ASSERT_EQUAL(rsql_deadline_left_ms(RSQL_DEADLINE_NEVER), INT64_MAX);
    CU_ASSERT_FALSE(rsql_deadline_passed(RSQL_DEADLINE_NEVER));

    int64_t before = rsql_now_ms();
    int64_t d = rsql_deadline_in(1000);
    int64_t after = rsql_now_ms();
    CU_ASSERT_TRUE(d >= before + 1000 && d <= after + 1000);
    int64_t left = rsql_deadline_left_ms(d);
    CU_ASSERT_TRUE(left > 900 && left <= 1000);
    CU_ASSERT_FALSE(rsql_deadline_passed(d));

    CU_ASSERT_TRUE(rsql_deadline_passed(rsql_deadline_in(0))); /* 0 = now */
    CU_ASSERT_EQUAL(rsql_deadline_left_ms(rsql_deadline_in(0)), 0);
    CU_ASSERT_EQUAL(rsql_deadline_left_ms(rsql_now_ms() - 5), 0); /* never negative */
    CU_ASSERT_TRUE(rsql_deadline_passed(rsql_now_ms() - 5));
}

static void test_time_deadline_timespec(void)
{
    struct timespec ts = rsql_deadline_timespec(12345);
    CU_ASSERT_EQUAL(ts.tv_sec, 12);
    CU_ASSERT_EQUAL(ts.tv_nsec, 345000000L);
    ts = rsql_deadline_timespec(999);
    CU_ASSERT_EQUAL(ts.tv_sec, 0);
    CU_ASSERT_EQUAL(ts.tv_nsec, 999000000L);
    ts = rsql_deadline_timespec(-7); /* long passed */
    CU_ASSERT_EQUAL(ts.tv_sec, 0);
    CU_ASSERT_EQUAL(ts.tv_nsec, 0);
    ts = rsql_deadline_timespec(RSQL_DEADLINE_NEVER);
    CU_ASSERT_TRUE(ts.tv_sec > (time_t)1000000000 * 1000);
    CU_ASSERT_TRUE(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L);
}

static void test_time_wait_until_deadline(void)
{
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv;
    CU_ASSERT_EQUAL_FATAL(rsql_cond_init_monotonic(&cv), 0);
    pthread_mutex_lock(&mu);
    int64_t t0 = rsql_now_ms();
    int64_t d = t0 + 80;
    int rc, waits = 0;
    while ((rc = rsql_cond_wait_until(&cv, &mu, d)) == 0 && waits < 100) {
        waits++; /* spurious wake-ups only: nobody signals */
    }
    int64_t t1 = rsql_now_ms();
    CU_ASSERT_EQUAL(rc, ETIMEDOUT);
    CU_ASSERT_TRUE(t1 >= d);            /* not before the deadline */
    CU_ASSERT_TRUE(t1 - t0 < 80 + 1000); /* and not long after it */
    /* a deadline already passed does not wait */
    t0 = rsql_now_ms();
    CU_ASSERT_EQUAL(rsql_cond_wait_until(&cv, &mu, t0 - 10), ETIMEDOUT);
    CU_ASSERT_EQUAL(rsql_cond_wait_until(&cv, &mu, -1), ETIMEDOUT);
    CU_ASSERT_TRUE(rsql_now_ms() - t0 < 50);
    pthread_mutex_unlock(&mu);
    pthread_cond_destroy(&cv);
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool flag;
} waker_t;

static void *waker_main(void *arg)
{
    waker_t *w = arg;
    usleep(30000);
    pthread_mutex_lock(&w->mu);
    w->flag = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* A signal ends the wait before its deadline; RSQL_DEADLINE_NEVER waits untimed. */
static void test_time_wait_signalled(void)
{
    for (int i = 0; i < 2; i++) {
        waker_t w = {.mu = PTHREAD_MUTEX_INITIALIZER, .flag = false};
        CU_ASSERT_EQUAL_FATAL(rsql_cond_init_monotonic(&w.cv), 0);
        int64_t t0 = rsql_now_ms();
        int64_t d = i == 0 ? rsql_deadline_in(10000) : RSQL_DEADLINE_NEVER;
        pthread_t th;
        pthread_mutex_lock(&w.mu);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, waker_main, &w), 0);
        int rc = 0;
        while (!w.flag && rc == 0) {
            rc = rsql_cond_wait_until(&w.cv, &w.mu, d);
        }
        pthread_mutex_unlock(&w.mu);
        pthread_join(th, NULL);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_TRUE(w.flag);
        CU_ASSERT_TRUE(rsql_now_ms() - t0 < 5000);
        pthread_cond_destroy(&w.cv);
    }
}

static CU_TestInfo time_tests[] = {
    {"test_time_clock", test_time_clock},
    {"test_time_deadline_arithmetic", test_time_deadline_arithmetic},
    {"test_time_deadline_timespec", test_time_deadline_timespec},
    {"test_time_wait_until_deadline", test_time_wait_until_deadline},
    {"test_time_wait_signalled", test_time_wait_signalled},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"time", NULL, NULL, NULL, NULL, time_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
