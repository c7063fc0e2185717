/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_bounded: the rules that make a bounded read of the rocketmq-grpc source tell the truth,
 * as pure state machines the source drives with its own clock (tests pass
 * a fake one):
 *
 *   - the idle clock (scan.idle-timeout): it counts only time the broker answered for. Every
 *     long poll that completes without messages and without error vouches that nothing arrived
 *     from its start to its answer; the clock adds up those spans (their union: concurrent polls
 *     overlap) since the last message. A poll that fails (proxy unreachable, reconnecting,
 *     deadline exceeded) vouches for nothing, so an outage never ends a batch job "done". A
 *     not-before time (a previous run was interrupted and its messages are invisible until
 *     then) is a span that never counts: the clock starts only after it.
 *   - the long poll of a bounded read: no longer than the idle timeout, so the answer that
 *     completes it comes in time, but never under the proxy's minimum (5 s; a shorter deadline
 *     is refused with ILLEGAL_POLLING_TIME).
 *   - "later": the times at which messages this source let go become visible again (held ones
 *     released or left at the end, deferred ones), so the run's summary can say how many it
 *     leaves invisible and until when.
 *
 * It owns no thread and no lock (the source calls it under s->mu) and must not call the client.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "base/rsql_opts.h"

/* ---- the idle clock */

/* See rmq_conn_int.h. */
void rsql_rmq_idle_init(rsql_rmq_idle_t *c, int64_t limit_ms, int64_t now_ms,
                        int64_t not_before_ms)
{
    c->limit_ms = limit_ms;
    c->answered_ms = 0;
    c->mark_ms = not_before_ms > now_ms ? not_before_ms : now_ms;
}

/* See rmq_conn_int.h. */
void rsql_rmq_idle_message(rsql_rmq_idle_t *c, int64_t now_ms)
{
    c->answered_ms = 0;
    if (now_ms > c->mark_ms) {
        c->mark_ms = now_ms;
    }
}

/* See rmq_conn_int.h. */
void rsql_rmq_idle_answered(rsql_rmq_idle_t *c, int64_t started_ms, int64_t now_ms)
{
    /* answers come in the order they end: everything counted so far ends at or before mark, so
       the part of [started, now] after mark is exactly what this answer adds to the union */
    int64_t from = started_ms > c->mark_ms ? started_ms : c->mark_ms;
    if (now_ms > from) {
        c->answered_ms += now_ms - from;
        c->mark_ms = now_ms;
    }
}

/* See rmq_conn_int.h. */
bool rsql_rmq_idle_expired(const rsql_rmq_idle_t *c)
{
    return c->limit_ms >= 0 && c->answered_ms >= c->limit_ms;
}

/* See rmq_conn_int.h. */
int64_t rsql_rmq_idle_long_poll_ms(int64_t await_ms, int64_t idle_ms)
{
    if (idle_ms < 0 || idle_ms >= await_ms) {
        return await_ms;
    }
    return idle_ms > RSQL_RMQ_MIN_LONG_POLL_MS ? idle_ms : RSQL_RMQ_MIN_LONG_POLL_MS;
}

/* ---- later: when messages let go are visible again (a binary min-heap of times) */

/* See rmq_conn_int.h. */
bool rsql_rmq_later_add(rsql_rmq_later_t *l, int64_t at_ms)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        int64_t *nt = rsql_realloc(l->t, nc * sizeof *nt);
        if (!nt) {
            return false;
        }
        l->t = nt;
        l->cap = nc;
    }
    size_t i = l->n++;
    while (i > 0 && l->t[(i - 1) / 2] > at_ms) {
        l->t[i] = l->t[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    l->t[i] = at_ms;
    if (l->n == 1 || at_ms > l->last_ms) {
        l->last_ms = at_ms;
    }
    return true;
}

static void later_pop(rsql_rmq_later_t *l)
{
    int64_t x = l->t[--l->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= l->n) {
            break;
        }
        if (c + 1 < l->n && l->t[c + 1] < l->t[c]) {
            c++;
        }
        if (l->t[c] >= x) {
            break;
        }
        l->t[i] = l->t[c];
        i = c;
    }
    if (l->n > 0) {
        l->t[i] = x;
    }
}

/* See rmq_conn_int.h. */
size_t rsql_rmq_later_count(rsql_rmq_later_t *l, int64_t now_ms, int64_t *last_ms)
{
    while (l->n > 0 && l->t[0] <= now_ms) {
        later_pop(l);
    }
    if (last_ms) {
        *last_ms = l->n > 0 ? l->last_ms : 0;
    }
    return l->n;
}

/* See rmq_conn_int.h. */
void rsql_rmq_later_deinit(rsql_rmq_later_t *l)
{
    rsql_free(l->t);
    memset(l, 0, sizeof *l);
}

/* ---- what a run leaves behind */

/* See rmq_conn_int.h. */
size_t rsql_rmq_leftover_format(const rsql_rmq_leftover_t *lo, bool json, char *buf, size_t size)
{
    if (size == 0) {
        return 0;
    }
    buf[0] = '\0';
    if (lo->held <= 0 && lo->deferred <= 0) {
        return 0;
    }
    int n;
    if (json) {
        n = snprintf(buf, size,
                     "{\"held\":%" PRId64 ",\"held_visible_by_ms\":%" PRId64
                     ",\"deferred\":%" PRId64 ",\"deferred_visible_by_ms\":%" PRId64 "}",
                     lo->held, lo->held > 0 ? lo->now_wall_ms + lo->held_in_ms : 0, lo->deferred,
                     lo->deferred > 0 ? lo->now_wall_ms + lo->deferred_in_ms : 0);
    } else {
        char h[32] = "", d[32] = "", t[32];
        if (lo->held > 0) {
            snprintf(h, sizeof h, "%" PRId64 " held", lo->held);
        }
        if (lo->deferred > 0) {
            snprintf(d, sizeof d, "%" PRId64 " deferred", lo->deferred);
        }
        int64_t in = lo->held > 0 ? lo->held_in_ms : 0;
        if (lo->deferred > 0 && lo->deferred_in_ms > in) {
            in = lo->deferred_in_ms;
        }
        in = (in + 999) / 1000 * 1000; /* whole seconds, rounded up */
        n = snprintf(buf, size, "rocketmq: left %s%s%s message%s, invisible for up to %s", h,
                     *h && *d ? " and " : "", d, lo->held + lo->deferred == 1 ? "" : "s",
                     rsql_opt_format_duration(in > 0 ? in : 0, t, sizeof t));
    }
    if (n < 0 || (size_t)n >= size) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)n;
}
