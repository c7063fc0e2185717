/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The error rules of a run: a transient failure is retried, a permanent
 * one (or one whose retry time is used up) fails the run.
 *
 * Retries back off exponentially with a cap: errors.retry.timeout bounds
 * how long a retriable failure is retried, errors.retry.backoff-max caps
 * the wait between two attempts. The waits are 100 ms, 200 ms, 400 ms, ...
 * up to the cap, and the last one is cut so that the final attempt happens
 * at the deadline, not after it. That arithmetic (rsql_retry_*) uses no
 * clock of its own, so it is deterministic and testable with a fake clock;
 * the pipeline's side of it (logging a retry, sleeping interruptibly,
 * naming a record, failing the run) follows it.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_backoff.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

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

/* ---- the pipeline's side */

/*
** Record the first failure and stop: stop polling, fail what is not yet
** transformed (and, for a sink failure, not yet written). Any thread.
*/
void rsql_pipeline__fail(rsql_pipeline_t *p, const rsql_error_t *e, bool sink_stage)
{
    pthread_mutex_lock(&p->lock);
    rsql_error_copy(&p->err, e); /* copies only into a clear error: the first one stays */
    atomic_store(&p->aborting, true);
    if (sink_stage) {
        atomic_store(&p->abort_sink, true);
    }
    atomic_store(&p->stopping, true);
    pthread_cond_broadcast(&p->credit_cv);
    pthread_cond_broadcast(&p->sleep_cv);
    pthread_mutex_unlock(&p->lock);
    if (p->src && p->conf.src_ops->wakeup) {
        p->conf.src_ops->wakeup(p->src);
    }
}

/* A transient failure about to be retried: see pipeline_int.h. */
void rsql_pipeline__retrying(rsql_pipeline_t *p, const char *what, const rsql_error_t *err,
                             int64_t wait_ms, int attempt)
{
    bool warn = false;
    if (p->conf.stats) {
        atomic_fetch_add(&p->conf.stats->retries, 1);
    }
    if (attempt <= 1) {
        int64_t now = rsql_now_ms();
        int_least64_t last = atomic_load(&p->retry_warned_ms);
        warn = (last == 0 || now - last >= 10000) &&
               atomic_compare_exchange_strong(&p->retry_warned_ms, &last, now);
    }
    rsql_log(warn ? RSQL_LOG_WARN : RSQL_LOG_DEBUG, "runtime",
             "%s: %s failed (%s, transient), retry %d in %" PRId64 " ms: %s",
             p->conf.name ? p->conf.name : p->id, what,
             rsql_err_name(err->code), attempt, wait_ms, err->msg);
}

/*
** Where a record is, for an error: its ident (else "<partition index>@<offset>") and, when the
** source knows it, " line N". Written into buf (cut to size); returns buf.
*/
const char *rsql_pipeline__where(rsql_pipeline_t *p, const rsql_record_t *rec, char *buf,
                                 size_t size)
{
    char ibuf[64];
    const char *ident = rsql_pipeline__ident(p, rec, ibuf, sizeof ibuf);
    if (rec->line > 0) {
        snprintf(buf, size, "%s line %" PRId64, ident, rec->line);
    } else {
        snprintf(buf, size, "%s", ident);
    }
    return buf;
}

/* rec->ident, else "<partition index>@<offset>" in buf. */
const char *rsql_pipeline__ident(rsql_pipeline_t *p, const rsql_record_t *rec, char *buf,
                                 size_t size)
{
    (void)p;
    if (rec->ident && *rec->ident) {
        return rec->ident;
    }
    snprintf(buf, size, "partition %" PRIu32 "@%" PRId64, rec->partition, rec->offset);
    return buf;
}

/* Sleep up to ms on p's sleep condition; returns early when the pipeline aborts (and, with
   wake_on_stop, when it stops or a stop is asked). */
void rsql_pipeline__sleep_interruptible(rsql_pipeline_t *p, int64_t ms, bool wake_on_stop)
{
    int64_t dl = rsql_deadline_in(ms > 0 ? ms : 0);
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->aborting) &&
           !(wake_on_stop && (atomic_load(&p->stopping) || atomic_load(&p->stop_asked)))) {
        if (rsql_cond_wait_until(&p->sleep_cv, &p->lock, dl) == ETIMEDOUT) {
            break;
        }
    }
    pthread_mutex_unlock(&p->lock);
}
