/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_time: the monotonic clock, deadlines on it, and condition variables that wait for
 * them (base/rsql_time.h). Deadlines are whole milliseconds of rsql_now_ms(), which
 * truncates: a wait that times out at deadline D always finds rsql_now_ms() >= D afterwards,
 * so a caller that loops "until now >= deadline" never spins on a sub-millisecond remainder.
 */
#include "config.h"
#include "base/rsql_time.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* See rsql_time.h. */
int64_t rsql_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* See rsql_time.h. */
int64_t rsql_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* See rsql_time.h. */
int64_t rsql_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* See rsql_time.h. */
int64_t rsql_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* See rsql_time.h. */
int64_t rsql_deadline_in(int64_t timeout_ms)
{
    if (timeout_ms < 0) {
        return RSQL_DEADLINE_NEVER;
    }
    int64_t now = rsql_now_ms();
    if (timeout_ms >= RSQL_DEADLINE_NEVER - now) {
        return RSQL_DEADLINE_NEVER;
    }
    return now + timeout_ms;
}

/* See rsql_time.h. */
int64_t rsql_deadline_left_ms(int64_t deadline_ms)
{
    if (deadline_ms == RSQL_DEADLINE_NEVER) {
        return INT64_MAX;
    }
    int64_t now = rsql_now_ms();
    return deadline_ms > now ? deadline_ms - now : 0;
}

/* See rsql_time.h. */
bool rsql_deadline_passed(int64_t deadline_ms)
{
    return deadline_ms != RSQL_DEADLINE_NEVER && rsql_now_ms() >= deadline_ms;
}

/* See rsql_time.h. */
struct timespec rsql_deadline_timespec(int64_t deadline_ms)
{
    struct timespec ts = {0, 0};
    if (deadline_ms > 0) {
        ts.tv_sec = (time_t)(deadline_ms / 1000);
        ts.tv_nsec = (long)(deadline_ms % 1000) * 1000000L;
    }
    return ts;
}

/* See rsql_time.h. */
int rsql_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (rc != 0) {
        return rc;
    }
    rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0) {
        rc = pthread_cond_init(cv, &ca);
    }
    pthread_condattr_destroy(&ca);
    return rc;
}

/* See rsql_time.h. */
int rsql_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ms)
{
    if (deadline_ms == RSQL_DEADLINE_NEVER) {
        return pthread_cond_wait(cv, mu);
    }
    struct timespec ts = rsql_deadline_timespec(deadline_ms);
    return pthread_cond_timedwait(cv, mu, &ts);
}
