/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_throttle: the fair per-lite-topic throttling policy of the rocketmq-grpc lite source
 * (declared in rmq_conn_int.h) and the description of the busiest lanes for the
 * status line and SHOW JOB RUNS.
 *
 * For every message received the source asks the policy, for the message's lane (lite topic):
 *   1. over = the lane already holds `throttle.max-inflight-per-lite-topic` messages, or its
 *      token bucket (`throttle.rate-per-lite-topic` tokens per second, capacity one second of
 *      tokens, at least 1) has less than one token;
 *   2. not over: ADMIT (takes a token);
 *   3. over and the message's delivery attempt >= `source.max-delivery-attempts`: ADMIT_VALVE
 *      (processed anyway; takes a token when there is one; the bucket never goes negative);
 *   4. over otherwise: DEFER by `throttle.defer` x 2^(attempt - 1), at most
 *      `source.max-invisible-duration`. When the lane is over its RATE (not only its cap),
 *      the deferral is also stretched to the lane's next free return slot: returns of the
 *      lane's deferred messages are spaced 1/rate apart (slot = max(now + deferral, next
 *      slot); next slot = slot + 1/rate), so a deferred message mostly comes back when its
 *      lane has a token instead of being popped and deferred again and again (each deferral
 *      costs a ChangeInvisibleDuration and a new pop, the budget the other lite topics need).
 *      The stretched deferral is capped at the maximum too, and the slots never run further
 *      ahead than that.
 * Deferrals are sent WITHOUT suspend, so the broker counts each one as a delivery attempt:
 * the attempt is then how many times the message was deferred (plus other redeliveries),
 * which drives the growth, and the max-attempts valve bounds how often a message can be
 * deferred at all. Time comes from the caller (tests pass a fake clock). Not thread-safe.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

typedef struct bucket {
    double tokens;
    int64_t last_ms;
    int64_t next_slot_ms; /* when the next message deferred for the rate should come back */
    bool seen;
} bucket_t;

struct rsql_rmq_throttle {
    rsql_rmq_throttle_conf_t c;
    bucket_t *b; /* by lane */
    uint32_t n_b;
};

/*
** A new policy. See rmq_conn_int.h. Caller owns it.
*/
rsql_rmq_throttle_t *rsql_rmq_throttle_new(const rsql_rmq_throttle_conf_t *conf)
{
    rsql_rmq_throttle_t *t = rsql_calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    t->c = *conf;
    if (t->c.burst <= 0) {
        t->c.burst = t->c.rate > 1 ? t->c.rate : 1;
    }
    if (t->c.max_attempts < 1) {
        t->c.max_attempts = 1;
    }
    if (t->c.max_invisible_ms < 0) {
        t->c.max_invisible_ms = 0;
    }
    return t;
}

/*
** Free the policy and its per-lane state. NULL-safe.
*/
void rsql_rmq_throttle_destroy(rsql_rmq_throttle_t *t)
{
    if (t) {
        rsql_free(t->b);
        rsql_free(t);
    }
}

/*
** True when a cap or a rate is set.
*/
bool rsql_rmq_throttle_active(const rsql_rmq_throttle_t *t)
{
    return t && (t->c.max_inflight > 0 || t->c.rate > 0);
}

/*
** defer_ms x 2^(attempt - 1), capped at max_invisible_ms.
*/
int64_t rsql_rmq_throttle_defer_ms(const rsql_rmq_throttle_conf_t *conf, int32_t attempt)
{
    int64_t cap = conf->max_invisible_ms > 0 ? conf->max_invisible_ms : 0;
    int64_t d = conf->defer_ms > 0 ? conf->defer_ms : 0;
    for (int32_t i = 1; i < attempt && d < cap; i++) {
        d *= 2; /* d < cap <= 12 h: no overflow */
    }
    return d < cap ? d : cap;
}

/* The bucket of lane, created full on first use; NULL when out of memory. */
static bucket_t *bucket_of(rsql_rmq_throttle_t *t, uint32_t lane, int64_t now_ms)
{
    if (lane >= t->n_b) {
        uint32_t n = t->n_b ? t->n_b : 16;
        while (n <= lane) {
            n *= 2;
        }
        bucket_t *nb = rsql_realloc(t->b, (size_t)n * sizeof *nb);
        if (!nb) {
            return NULL;
        }
        memset(nb + t->n_b, 0, (size_t)(n - t->n_b) * sizeof *nb);
        t->b = nb;
        t->n_b = n;
    }
    bucket_t *b = &t->b[lane];
    if (!b->seen) {
        b->seen = true;
        b->tokens = t->c.burst;
        b->last_ms = now_ms;
    } else if (now_ms > b->last_ms) {
        b->tokens += (double)(now_ms - b->last_ms) * t->c.rate / 1000.0;
        if (b->tokens > t->c.burst) {
            b->tokens = t->c.burst;
        }
        b->last_ms = now_ms;
    }
    return b;
}

/*
** Decide for one received message. See the file comment and rmq_conn_int.h.
*/
rsql_rmq_throttle_action_t rsql_rmq_throttle_decide(rsql_rmq_throttle_t *t, uint32_t lane,
                                                    int64_t in_flight, int32_t attempt,
                                                    int64_t now_ms, int64_t *defer_ms)
{
    *defer_ms = 0;
    if (!rsql_rmq_throttle_active(t)) {
        return RSQL_RMQ_ADMIT;
    }
    if (attempt < 1) {
        attempt = 1;
    }
    bucket_t *b = NULL;
    if (t->c.rate > 0 && !(b = bucket_of(t, lane, now_ms))) {
        return RSQL_RMQ_ADMIT; /* out of memory: never lose or stall a message over it */
    }
    bool over = (t->c.max_inflight > 0 && in_flight >= t->c.max_inflight) ||
                (b && b->tokens < 1.0);
    if (!over) {
        if (b) {
            b->tokens -= 1.0;
        }
        return RSQL_RMQ_ADMIT;
    }
    if (attempt >= t->c.max_attempts) {
        if (b && b->tokens >= 1.0) {
            b->tokens -= 1.0;
        }
        return RSQL_RMQ_ADMIT_VALVE;
    }
    int64_t d = rsql_rmq_throttle_defer_ms(&t->c, attempt);
    if (b && b->tokens < 1.0) {
        int64_t slot = now_ms + d > b->next_slot_ms ? now_ms + d : b->next_slot_ms;
        if (slot - now_ms > t->c.max_invisible_ms) {
            slot = now_ms + t->c.max_invisible_ms;
        }
        d = slot - now_ms;
        b->next_slot_ms = slot + (int64_t)(1000.0 / t->c.rate);
    }
    *defer_ms = d;
    return RSQL_RMQ_DEFER;
}

/*
** Forget lane if its state is back where a new lane starts. See rmq_conn_int.h.
*/
bool rsql_rmq_throttle_forget(rsql_rmq_throttle_t *t, uint32_t lane, int64_t now_ms)
{
    if (!t || lane >= t->n_b || !t->b[lane].seen) {
        return true;
    }
    bucket_t *b = &t->b[lane];
    double tokens = b->tokens;
    if (now_ms > b->last_ms) {
        tokens += (double)(now_ms - b->last_ms) * t->c.rate / 1000.0;
    }
    if (b->next_slot_ms > now_ms || tokens < t->c.burst) {
        return false; /* deferred returns still spaced, or a bucket not yet refilled */
    }
    memset(b, 0, sizeof *b);
    return true;
}

/* ---- description of the busiest lanes */

typedef struct rank {
    uint32_t lane;
    rsql_rmq_lane_stats_t st;
} rank_t;

static int rank_cmp(const void *a, const void *b)
{
    const rank_t *x = a, *y = b;
    if (x->st.received != y->st.received) {
        return x->st.received > y->st.received ? -1 : 1;
    }
    return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* name as a JSON string body (lite topic names are [A-Za-z0-9_-], message groups anything) */
static void put_json_str(rsql_buf_t *b, const char *s)
{
    rsql_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            rsql_buf_putc(b, '\\');
            rsql_buf_putc(b, (char)ch);
        } else if (ch < 0x20) {
            rsql_buf_printf(b, "\\u%04x", ch);
        } else {
            rsql_buf_putc(b, (char)ch);
        }
    }
    rsql_buf_putc(b, '"');
}

/*
** Describe the busiest lanes. See rmq_conn_int.h.
*/
size_t rsql_rmq_throttle_describe(const rsql_rmq_inflight_t *lanes, int top_n, bool text,
                                  char *buf, size_t size)
{
    if (size == 0) {
        return 0;
    }
    buf[0] = '\0';
    uint32_t n = lanes ? rsql_rmq_inflight_count(lanes) : 0;
    if (n == 0 || top_n <= 0) {
        return 0;
    }
    rank_t *r = rsql_malloc((size_t)n * sizeof *r);
    if (!r) {
        return 0;
    }
    rsql_rmq_lane_stats_t gone;
    rsql_rmq_inflight_gone(lanes, &gone);
    int64_t deferred = gone.deferred;
    uint32_t live = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!rsql_rmq_inflight_key(lanes, i)) {
            continue; /* a lane that went */
        }
        r[live].lane = i;
        rsql_rmq_inflight_stats(lanes, i, &r[live].st);
        deferred += r[live].st.deferred;
        live++;
    }
    n = live;
    if (n == 0 && text) {
        rsql_free(r);
        return 0;
    }
    qsort(r, n, sizeof *r, rank_cmp);
    uint32_t k = (uint32_t)top_n < n ? (uint32_t)top_n : n;
    /* the tail that must always fit after the entries */
    char tail[64];
    if (text) {
        snprintf(tail, sizeof tail, n > k ? " (+%" PRIu32 " more)" : "", n - k);
    } else {
        snprintf(tail, sizeof tail, "],\"lanes\":%" PRIu32 ",\"deferred\":%" PRId64 "}", n,
                 deferred);
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, text ? "lite " : "{\"lite_topics\":[");
    size_t kept = b.len;
    for (uint32_t i = 0; i < k; i++) {
        const char *key = rsql_rmq_inflight_key(lanes, r[i].lane);
        if (i > 0) {
            rsql_buf_puts(&b, text ? ", " : ",");
        }
        if (text) {
            rsql_buf_printf(&b, "%s %" PRId64 "/%" PRId64 "/%" PRId64, *key ? key : "-",
                            r[i].st.in_flight, r[i].st.deferred, r[i].st.delivered);
        } else {
            rsql_buf_puts(&b, "{\"name\":");
            put_json_str(&b, key);
            rsql_buf_printf(&b,
                            ",\"in_flight\":%" PRId64 ",\"deferred\":%" PRId64
                            ",\"delivered\":%" PRId64 "}",
                            r[i].st.in_flight, r[i].st.deferred, r[i].st.delivered);
        }
        if (b.len + strlen(tail) >= size) {
            break; /* this entry does not fit: cut before it */
        }
        kept = b.len;
    }
    rsql_free(r);
    const char *s = rsql_buf_str(&b);
    size_t len = !b.oom && kept + strlen(tail) < size ? kept : 0;
    if (s && len > 0) {
        memcpy(buf, s, len);
        snprintf(buf + len, size - len, "%s", tail);
        len += strlen(buf + len);
    } else {
        buf[0] = '\0';
        len = 0;
    }
    rsql_buf_deinit(&b);
    return len;
}
