/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_time: the one clock of rocketsql's timeouts, and deadlines on it.
 *
 * Every timeout, deadline, backoff and timed wait in the tree runs on CLOCK_MONOTONIC, so a
 * change of the wall clock never stretches or cuts a wait: rsql_now_ms() / rsql_now_ns() read
 * it, a deadline is an absolute rsql_now_ms() time (int64_t ms; RSQL_DEADLINE_NEVER = no
 * deadline), and condition variables are created on the same clock (rsql_cond_init_monotonic)
 * so that rsql_cond_wait_until() can wait for a deadline directly. rsql_wall_ms() is the wall
 * clock (rsql_wall_ns in nanoseconds), for timestamps that are stored or shown and for
 * seeds (never for timeouts). Nothing else in the tree reads a clock directly.
 *
 * Base layer: libc and pthreads only. Every function is thread-safe.
 */
#ifndef RSQL_TIME_H
#define RSQL_TIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* "No deadline": waits on it are untimed, rsql_deadline_left_ms() is INT64_MAX. */
#define RSQL_DEADLINE_NEVER INT64_MAX

/* Milliseconds on CLOCK_MONOTONIC (arbitrary origin; only differences mean anything). */
int64_t rsql_now_ms(void);

/* Nanoseconds on CLOCK_MONOTONIC (the same clock as rsql_now_ms). */
int64_t rsql_now_ns(void);

/* Milliseconds since the Unix epoch on CLOCK_REALTIME: for timestamps, never for timeouts. */
int64_t rsql_wall_ms(void);

/* Nanoseconds since the Unix epoch on CLOCK_REALTIME (the clock of rsql_wall_ms): for
   timestamps and seeds, never for timeouts. */
int64_t rsql_wall_ns(void);

/*
** The deadline timeout_ms from now: rsql_now_ms() + timeout_ms, RSQL_DEADLINE_NEVER when
** timeout_ms < 0 (wait forever) or when the sum would overflow. timeout_ms = 0 is "now"
** (already passed).
*/
int64_t rsql_deadline_in(int64_t timeout_ms);

/*
** Milliseconds left until deadline_ms: 0 when it has passed, INT64_MAX for
** RSQL_DEADLINE_NEVER.
*/
int64_t rsql_deadline_left_ms(int64_t deadline_ms);

/* True when deadline_ms has passed (never for RSQL_DEADLINE_NEVER). */
bool rsql_deadline_passed(int64_t deadline_ms);

/*
** The absolute CLOCK_MONOTONIC timespec of deadline_ms, for pthread_cond_timedwait on a
** condition variable made by rsql_cond_init_monotonic. A negative deadline gives {0, 0}
** (long passed); RSQL_DEADLINE_NEVER gives the largest representable time.
*/
struct timespec rsql_deadline_timespec(int64_t deadline_ms);

/*
** Initialise cv (caller's storage) to wait on CLOCK_MONOTONIC, the clock of every deadline.
** 0 or the errno of pthread_cond_init; destroy it with pthread_cond_destroy.
*/
int rsql_cond_init_monotonic(pthread_cond_t *cv);

/*
** Wait on cv (made by rsql_cond_init_monotonic) until it is signalled or deadline_ms passes;
** RSQL_DEADLINE_NEVER waits untimed. Returns 0 when woken (possibly spuriously: callers loop
** on their predicate), ETIMEDOUT when the deadline has passed, as pthread_cond_timedwait does.
** @locks mu held (released during the wait, held again on return)
*/
int rsql_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ms);

#endif
