/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_lite_ids: how many client identities a lite source keeps in use (rmq_conn_int.h has the
 * rules). The broker hands each identity at most RSQL_RMQ_ROUND_FULL backlogged lite topics per
 * dispatch round, so an identity that pops that many lite topics in one burst says the backlog
 * is larger than what the identities in use are given per round: the source then runs up to
 * `source.lite-clients` identities, and drops back to `source.lite-clients-min` once no round
 * has been full for RSQL_RMQ_IDS_SHRINK_MS. It starts with `source.lite-clients-start`
 * identities, kept for that quiet time as if a round had been full at the start: the broker's
 * first round serves only the identities registered by then, so a backlog that several of them
 * drain in that round would otherwise wait for the next one. Live traffic over fewer lite
 * topics never fills a round, so it ends up on one identity.
 *
 * Pure state on the caller's clock and storage; the caller (rmq_housekeeping.c) locks, starts
 * and retires the identities.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <stdint.h>
#include <string.h>

#include "base/rsql_mem.h"

/* See rmq_conn_int.h. */
bool rsql_rmq_round_seen(rsql_rmq_round_t *r, uint32_t lane, int64_t now_ms)
{
    if (r->last_ms == 0 || now_ms - r->last_ms >= RSQL_RMQ_ROUND_GAP_MS ||
        now_ms - r->start_ms >= RSQL_RMQ_ROUND_SPAN_MS) {
        r->start_ms = now_ms; /* a new burst */
        r->distinct = 0;
        if (++r->stamp == 0) { /* wrapped: no stale stamp may look current */
            if (r->seen) {
                memset(r->seen, 0, r->cap * sizeof *r->seen);
            }
            r->stamp = 1;
        }
    }
    r->last_ms = now_ms;
    if (lane >= r->cap) {
        uint32_t nc = r->cap ? r->cap : 64;
        while (nc <= lane && nc < UINT32_MAX / 2) {
            nc *= 2;
        }
        if (nc <= lane) {
            return false;
        }
        uint32_t *ns = rsql_realloc(r->seen, (size_t)nc * sizeof *ns);
        if (!ns) {
            return false;
        }
        memset(ns + r->cap, 0, (size_t)(nc - r->cap) * sizeof *ns);
        r->seen = ns;
        r->cap = nc;
    }
    if (r->seen[lane] == r->stamp) {
        return false;
    }
    r->seen[lane] = r->stamp;
    return ++r->distinct == RSQL_RMQ_ROUND_FULL;
}

/* See rmq_conn_int.h. */
void rsql_rmq_round_reset(rsql_rmq_round_t *r)
{
    r->start_ms = r->last_ms = 0;
    r->distinct = 0;
}

/* See rmq_conn_int.h. */
void rsql_rmq_round_deinit(rsql_rmq_round_t *r)
{
    rsql_free(r->seen);
    memset(r, 0, sizeof *r);
}

/* See rmq_conn_int.h. */
void rsql_rmq_ids_init(rsql_rmq_ids_t *d, int min, int max, int start, int64_t now_ms)
{
    d->min = min < 1 ? 1 : min;
    d->max = max < d->min ? d->min : max;
    d->target = start < d->min ? d->min : start > d->max ? d->max : start;
    d->last_full_ms = now_ms; /* the start counts as a full round: kept for the quiet time */
}

/* See rmq_conn_int.h. */
bool rsql_rmq_ids_full(rsql_rmq_ids_t *d, int64_t now_ms)
{
    d->last_full_ms = now_ms;
    if (d->target == d->max) {
        return false;
    }
    d->target = d->max;
    return true;
}

/* See rmq_conn_int.h. */
bool rsql_rmq_ids_tick(rsql_rmq_ids_t *d, int64_t now_ms)
{
    if (d->target == d->min || now_ms < rsql_rmq_ids_next(d)) {
        return false;
    }
    d->target = d->min;
    return true;
}

/* See rmq_conn_int.h. */
int64_t rsql_rmq_ids_next(const rsql_rmq_ids_t *d)
{
    return d->target == d->min ? INT64_MAX : d->last_full_ms + RSQL_RMQ_IDS_SHRINK_MS;
}

/* See rmq_conn_int.h. */
void rsql_rmq_ids_failed(rsql_rmq_ids_t *d, int n)
{
    d->target = n < d->min ? d->min : n > d->max ? d->max : n;
}
