/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Retries with exponential backoff and a cap:
 * errors.retry.timeout bounds how long a retriable failure is retried,
 * errors.retry.backoff-max caps the wait between two attempts. The waits
 * are 100 ms, 200 ms, 400 ms, ... up to the cap, and the last one is cut
 * so that the final attempt happens at the deadline, not after it. The
 * caller sleeps (interruptibly); this file only does the arithmetic, so it
 * is deterministic and testable with a fake clock.
 */
#include "config.h"
#include "engine/rsql_pipeline.h"
#include "base/rsql_backoff.h"

/*
** Start a retry sequence at now_ms (the first failure). Caller's storage.
*/
void rsql_retry_init(rsql_retry_t *r, int64_t timeout_ms, int64_t backoff_max_ms, int64_t now_ms)
{
    r->start_ms = now_ms;
    r->timeout_ms = timeout_ms < 0 ? 0 : timeout_ms;
    r->backoff_max_ms = backoff_max_ms < 1 ? 1 : backoff_max_ms;
    r->next_backoff_ms = rsql_backoff_next(0, RSQL_RETRY_BACKOFF_START_MS, r->backoff_max_ms);
    r->attempts = 0;
}

/*
** The wait before the next attempt after a failure at now_ms, or -1 when
** the retry time is used up.
*/
int64_t rsql_retry_next(rsql_retry_t *r, int64_t now_ms)
{
    int64_t deadline = r->start_ms + r->timeout_ms;
    if (r->timeout_ms == 0 || now_ms >= deadline) {
        return -1;
    }
    int64_t wait = r->next_backoff_ms;
    if (wait > deadline - now_ms) {
        wait = deadline - now_ms;
    }
    r->next_backoff_ms =
        rsql_backoff_next(r->next_backoff_ms, RSQL_RETRY_BACKOFF_START_MS, r->backoff_max_ms);
    r->attempts++;
    return wait;
}
