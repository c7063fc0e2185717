/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_source: the rocketmq-grpc source (rsql_io.h), a Pop consumer with downstream ack.
 *
 * Simple mode registers a SIMPLE_CONSUMER on `topic` with the tag/SQL92 filter; lite mode
 * registers a LITE_PUSH_CONSUMER bound to the LITE parent `topic` (the 5.5 proxy refuses
 * LITE_SIMPLE_CONSUMER; the client still drives ReceiveMessage itself with auto_renew = false):
 * with a wildcard group every lite topic under the parent arrives, including new ones; with
 * `source.lite-topics` the list is subscribed with SyncLiteSubscription PARTIAL_ADD.
 *
 * Threads
 *   - client thread (rmq_client.c): receive, ack, change-invisible and DLQ-forward completions.
 *     They only take s->mu briefly, move messages and signal; they never block.
 *   - housekeeping thread (one per source): blocks on hk_cv with a deadline (never spins) and
 *     starts what is due: up to `source.fetch-concurrency` long polls while the internal buffer
 *     has room (back-pressure: buffered + polls in flight x batch < 2 x fetch x batch), the
 *     renewals (ChangeInvisibleDuration `source.renewal-ahead` before a held message's
 *     invisibility ends; the NEW receipt handle replaces the old one), and the ack flush
 *     (at most ACK_DELAY_MS after the oldest queued ack).
 *   - poll thread: poll() waits on poll_cv for buffered messages and hands them out as records.
 *   - worker thread: commit_record() turns an outcome into an ack (WRITTEN, FILTERED,
 *     DEAD_LETTERED), a DLQ forward (DEAD_LETTERED with `source.dead-letter` = native) or a
 *     release (FAILED: not acked, the message comes back after its invisible duration). Acks
 *     are batched per topic: one AckMessage for up to ACK_BATCH entries.
 *   Client operations are never started with s->mu held, and nothing is logged with it held:
 *   lines are formatted into a local buffer (rsql_log_defer) and written after unlocking.
 *
 * Held messages: every message received and not yet resolved is "held" (a held_t on s->held):
 * buffered (not yet polled) or polled (outcome unknown). A renewal in flight and an outcome
 * are serialized per message: while `renewing`, commit_record only records the wanted action
 * (pending) and the renewal's completion carries it out with the new handle.
 *
 * Fair throttling (lite mode with throttle.* options; rmq_throttle.c has the policy): recv_cb
 * asks the policy for every message received. A message over its lite topic's share is not
 * held and not handed to the pipeline: it is deferred at once (ChangeInvisibleDuration with
 * its lite topic, suspend = false so the broker counts the attempt, started by recv_cb after
 * s->mu is released), counted as deferred in its lane and freed when the call completes; it
 * takes no buffer room, so the long polls go on fetching for the other lite topics.
 * At log level trace (--log-level trace) one "rmq-throttle: admit|valve|defer ..." line is logged
 * per decision; at debug the source's counters are logged at close.
 *
 * Lanes (rmq_inflight.c): lite mode = one lane per lite topic, FIFO topics one per message
 * group, else one lane for the topic. The lane is the record's partition (so the runtime's
 * offset tracker keys in-flight by lite topic) and carries in-flight/delivered counts. The
 * runtime stores no positions for this source (manages_own_positions): the broker keeps them.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"
#include "connectors/rocketmq/rmq_client.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rocketmq/rmq_int.h"
#include "connectors/rsql_conn_io.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/rsql_log.h"
#include "base/rsql_mem.h"

#define ACK_BATCH 64       /* entries per AckMessage */
#define ACK_DELAY_MS 100   /* longest wait of a queued ack */
#define ACK_ATTEMPTS 5     /* tries of one ack after retriable failures */
#define RECV_BACKOFF_MIN 100
#define RECV_BACKOFF_MAX 30000
#define CLOSE_WAIT_MS 10000 /* close: longest wait for acks and renewals in flight */
#define WARN_MAX 20        /* warnings of one kind printed, then only counted */

enum { P_NONE, P_ACK, P_DLQ, P_RELEASE };

typedef struct held {
    struct held *prev, *next; /* s->held (every held message) */
    struct held *bnext;       /* s->bhead (buffered, not yet polled) */
    rsql_rmq_msg_t *m;        /* owned */
    uint32_t lane;
    int64_t offset;           /* its sequence in the lane (the record's offset) */
    int64_t deadline;         /* monotonic ms when its invisibility ends */
    bool polled, renewing, lost;
    int pending;              /* outcome asked for during a renewal */
    int ack_attempts;
    int64_t defer_ms;         /* throttled: its deferral (never held then) */
    rsql_source_t *src; /* the owner (for completions that get only the message) */
} held_t;

typedef struct ack_batch {
    rsql_source_t *s;
    held_t **items;
    size_t n;
} ack_batch_t;

struct rsql_source {
    rsql_rmq_client_t *cli;
    char *topic;
    bool lite, native_dlq;
    int fetch, batch;
    int64_t invisible_ms, ahead_ms, idle_ms; /* idle_ms < 0: unbounded */
    int max_attempts;

    pthread_mutex_t mu;
    pthread_cond_t poll_cv, hk_cv, done_cv;
    pthread_t hk;
    bool hk_started, closing, stopping;

    held_t held; /* list sentinel */
    int64_t n_held;
    held_t *bhead, *btail;
    int n_buffered;

    int recv_outstanding;
    int64_t recv_not_before, recv_backoff;
    int64_t next_renew_due;
    held_t **ackq;
    size_t n_ack, cap_ack;
    int64_t ack_oldest;
    int ops; /* acks, renewals, forwards in flight */
    int64_t last_msg_ms;
    rsql_error_t fatal; /* a non-retriable receive error: poll reports it */

    rsql_rmq_inflight_t *lanes;
    rsql_rmq_throttle_t *thr; /* lite mode with throttle.* options; else NULL */
    int debug;                /* log level: 1 = debug (summary at close), 2 = trace (decisions) */
    int64_t n_acked, n_ack_invalid, n_renewed, n_renew_failed, n_forwarded;
    int64_t n_deferred, n_defer_failed, n_valve;
    int warned_ack, warned_renew, warned_recv, warned_defer;
};

/* A warning for logq (written after s->mu is released), unless WARN_MAX of its kind were. */
static void warn(rsql_buf_t *logq, int *count, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(rsql_buf_t *logq, int *count, const char *fmt, ...)
{
    if ((*count)++ >= WARN_MAX || !rsql_log_enabled(RSQL_LOG_WARN)) {
        return;
    }
    char msg[RSQL_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rsql_log_defer(logq, RSQL_LOG_WARN, "rocketmq", "rocketmq-grpc source: %s", msg);
}

/* ---- held messages (s->mu held) */

static void held_unlink(rsql_source_t *s, held_t *h)
{
    h->prev->next = h->next;
    h->next->prev = h->prev;
    h->prev = h->next = h;
    s->n_held--;
}

static void held_free(held_t *h)
{
    if (h) {
        rsql_rmq_msg_destroy(h->m);
        rsql_free(h);
    }
}

/* Queue h for an ack (unlinked already). Returns false on OOM (h is then released). */
static bool ackq_push(rsql_source_t *s, held_t *h)
{
    if (s->n_ack == s->cap_ack) {
        size_t nc = s->cap_ack ? s->cap_ack * 2 : ACK_BATCH * 2;
        held_t **nq = rsql_realloc(s->ackq, nc * sizeof *nq);
        if (!nq) {
            rsql_rmq_inflight_done(s->lanes, h->lane, false);
            held_free(h);
            return false;
        }
        s->ackq = nq;
        s->cap_ack = nc;
    }
    if (s->n_ack == 0) {
        s->ack_oldest = rsql_now_ms();
    }
    s->ackq[s->n_ack++] = h;
    return true;
}

/* Take up to ACK_BATCH queued acks into a new batch (NULL when none / OOM). */
static ack_batch_t *ackq_take(rsql_source_t *s)
{
    if (s->n_ack == 0) {
        return NULL;
    }
    size_t n = s->n_ack < ACK_BATCH ? s->n_ack : ACK_BATCH;
    ack_batch_t *b = rsql_calloc(1, sizeof *b);
    held_t **items = rsql_malloc(n * sizeof *items);
    if (!b || !items) {
        rsql_free(b);
        rsql_free(items);
        return NULL;
    }
    memcpy(items, s->ackq, n * sizeof *items);
    memmove(s->ackq, s->ackq + n, (s->n_ack - n) * sizeof *items);
    s->n_ack -= n;
    s->ack_oldest = rsql_now_ms();
    b->s = s;
    b->items = items;
    b->n = n;
    s->ops++;
    return b;
}

static void op_done(rsql_source_t *s)
{
    s->ops--;
    pthread_cond_broadcast(&s->done_cv);
    pthread_cond_signal(&s->hk_cv);
}

/* ---- acks */

static void ack_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                   const rsql_rmq_ack_result_t *results, size_t n, void *opaque);

/*
** Send an ack batch (entries of one topic per RPC). Takes ownership of b.
** @locks s->mu NOT held
*/
static void ack_send(rsql_source_t *s, ack_batch_t *b)
{
    rsql_rmq_ack_entry_t *ents = rsql_calloc(b->n, sizeof *ents);
    rsql_error_t e;
    rsql_error_clear(&e);
    /* every held message of a source has the same topic (the subscribed one or the parent) */
    const char *topic = b->n ? b->items[0]->m->topic : s->topic;
    for (size_t i = 0; ents && i < b->n; i++) {
        ents[i].message_id = b->items[i]->m->message_id;
        ents[i].receipt_handle = b->items[i]->m->receipt_handle;
        ents[i].lite_topic = b->items[i]->m->lite_topic;
    }
    if (ents && rsql_rmq_ack(s->cli, topic ? topic : s->topic, ents, b->n, ack_cb, b, &e) ==
                    RSQL_OK) {
        rsql_free(ents);
        return;
    }
    rsql_free(ents);
    /* could not even start: treat as an RPC failure */
    if (!ents) {
        rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    ack_cb(s->cli, &e, NULL, 0, b);
}

/* The result of item h in results (by message id), or NULL. */
static const rsql_rmq_ack_result_t *find_result(const held_t *h, const rsql_rmq_ack_result_t *r,
                                                size_t n, size_t guess)
{
    if (guess < n && r[guess].message_id && strcmp(r[guess].message_id, h->m->message_id) == 0) {
        return &r[guess];
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].message_id && strcmp(r[i].message_id, h->m->message_id) == 0) {
            return &r[i];
        }
    }
    return NULL;
}

/* Ack completion. @locality client thread (or the caller of ack_send on a start failure) */
static void ack_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                   const rsql_rmq_ack_result_t *results, size_t n, void *opaque)
{
    (void)c;
    ack_batch_t *b = opaque;
    rsql_source_t *s = b->s;
    rsql_buf_t logq = RSQL_BUF_INIT;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < b->n; i++) {
        held_t *h = b->items[i];
        const rsql_rmq_ack_result_t *r = err ? find_result(h, results, n, i) : NULL;
        int32_t code = !err ? RSQL_RMQ_CODE_OK : r ? r->code : 0;
        if (code == RSQL_RMQ_CODE_OK) {
            s->n_acked++;
            rsql_rmq_inflight_done(s->lanes, h->lane, true);
            held_free(h);
            continue;
        }
        bool retry = r ? rsql_rmq__code_retriable(code) : rsql_error_retriable(err);
        if (retry && ++h->ack_attempts < ACK_ATTEMPTS && err->code != RSQL_ERR_INTERRUPTED) {
            ackq_push(s, h);
            continue;
        }
        if (code == 40013) {
            s->n_ack_invalid++;
            warn(&logq, &s->warned_ack,
                 "ack of message %s: INVALID_RECEIPT_HANDLE (its invisible duration ended): it "
                 "will be delivered again",
                 h->m->message_id);
        } else {
            warn(&logq, &s->warned_ack, "ack of message %s failed: %s", h->m->message_id,
                 r && r->status_message ? r->status_message : err->msg);
        }
        rsql_rmq_inflight_done(s->lanes, h->lane, false);
        held_free(h);
    }
    op_done(s);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
    rsql_free(b->items);
    rsql_free(b);
}

/* ---- native DLQ */

static void dlq_cb(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    (void)c;
    held_t *h = opaque;
    rsql_source_t *s = h->src;
    rsql_buf_t logq = RSQL_BUF_INIT;
    pthread_mutex_lock(&s->mu);
    if (err) {
        warn(&logq, &s->warned_ack,
             "forwarding message %s to the dead-letter queue failed: %s (it will be delivered "
             "again)",
             h->m->message_id, err->msg);
        rsql_rmq_inflight_done(s->lanes, h->lane, false);
    } else {
        s->n_forwarded++;
        rsql_rmq_inflight_done(s->lanes, h->lane, true);
    }
    held_free(h);
    op_done(s);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
}

/* Forward h (unlinked, owned) to the group's DLQ. @locks s->mu NOT held */
static void dlq_send(rsql_source_t *s, held_t *h)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_rmq_forward_to_dlq(s->cli, h->m, s->max_attempts, dlq_cb, h, &e) != RSQL_OK) {
        dlq_cb(s->cli, &e, h);
    }
}

/* ---- renewals */

typedef struct renew_ctx {
    rsql_source_t *s;
    held_t *h;
    int64_t sent_ms;
} renew_ctx_t;

static void renew_cb(rsql_rmq_client_t *c, const rsql_error_t *err, const char *new_handle,
                     void *opaque)
{
    (void)c;
    renew_ctx_t *rc = opaque;
    rsql_source_t *s = rc->s;
    held_t *h = rc->h;
    held_t *to_dlq = NULL;
    ack_batch_t *ab = NULL;
    rsql_buf_t logq = RSQL_BUF_INIT;
    pthread_mutex_lock(&s->mu);
    h->renewing = false;
    if (!err && new_handle) {
        char *nh = rsql_strdup(new_handle);
        if (nh) {
            rsql_free(h->m->receipt_handle);
            h->m->receipt_handle = nh;
            h->deadline = rc->sent_ms + s->invisible_ms;
            s->n_renewed++;
        }
    } else if (err && err->remote_code == 40013) {
        h->lost = true; /* expired: it will be delivered again; its ack will say so */
        s->n_renew_failed++;
        warn(&logq, &s->warned_renew, "renewal of message %s: %s", h->m->message_id, err->msg);
    } else if (err && err->code != RSQL_ERR_INTERRUPTED) {
        s->n_renew_failed++;
        warn(&logq, &s->warned_renew, "renewal of message %s failed (will retry): %s",
             h->m->message_id, err->msg);
    }
    int64_t due = h->lost ? INT64_MAX : h->deadline - s->ahead_ms;
    if (err && !h->lost) {
        due = rsql_now_ms() + 1000; /* try again soon */
    }
    switch (h->pending) {
    case P_ACK:
        held_unlink(s, h);
        ackq_push(s, h);
        if (s->n_ack >= ACK_BATCH || s->closing) {
            ab = ackq_take(s);
        }
        break;
    case P_DLQ:
        held_unlink(s, h);
        s->ops++;
        to_dlq = h;
        break;
    case P_RELEASE:
        held_unlink(s, h);
        rsql_rmq_inflight_done(s->lanes, h->lane, false);
        held_free(h);
        break;
    default:
        if (due < s->next_renew_due) {
            s->next_renew_due = due;
        }
    }
    op_done(s);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
    rsql_free(rc);
    if (to_dlq) {
        dlq_send(s, to_dlq);
    }
    if (ab) {
        ack_send(s, ab);
    }
}

/* ---- deferrals (fair throttling, rmq_throttle.c) */

/* Deferral completion: the message is no longer ours either way. @locality client thread */
static void defer_cb(rsql_rmq_client_t *c, const rsql_error_t *err, const char *new_handle,
                     void *opaque)
{
    (void)c;
    (void)new_handle;
    held_t *h = opaque;
    rsql_source_t *s = h->src;
    rsql_buf_t logq = RSQL_BUF_INIT;
    pthread_mutex_lock(&s->mu);
    if (err) {
        s->n_defer_failed++; /* it comes back when its invisible duration ends */
        if (err->code != RSQL_ERR_INTERRUPTED) {
            warn(&logq, &s->warned_defer, "deferral of message %s failed: %s", h->m->message_id,
                 err->msg);
        }
    }
    held_free(h);
    op_done(s);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
}

/*
** Defer the messages on the bnext chain (not held; s->ops counted): ChangeInvisibleDuration
** by h->defer_ms with the lite topic and WITHOUT suspend, so the broker counts the attempt
** (the growth and the max-delivery-attempts valve rely on it). @locks s->mu NOT held
*/
static void defer_send(rsql_source_t *s, held_t *list)
{
    while (list) {
        held_t *h = list;
        list = h->bnext;
        h->bnext = NULL;
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_rmq_msg_t *m = h->m;
        if (rsql_rmq_change_invisible(s->cli, m->topic ? m->topic : s->topic, m->message_id,
                                      m->receipt_handle, m->lite_topic, h->defer_ms, false,
                                      defer_cb, h, &e) != RSQL_OK) {
            defer_cb(s->cli, &e, NULL, h);
        }
    }
}

/* Log level trace: one line per throttling decision (tests parse it), for logq. s->mu held */
static void debug_decision(rsql_buf_t *logq, const rsql_rmq_msg_t *m, const char *what,
                           int64_t defer_ms)
{
    rsql_log_defer(logq, RSQL_LOG_TRACE, "rocketmq",
                   "rmq-throttle: %s lite=%s key=%s id=%s attempt=%" PRId32 " born=%" PRId64
                   " defer_ms=%" PRId64,
                   what, m->lite_topic ? m->lite_topic : "-", m->n_keys > 0 ? m->keys[0] : "-",
                   m->message_id, m->delivery_attempt, m->born_ms, defer_ms);
}

/* ---- receiving */

static void recv_cb(rsql_rmq_client_t *c, const rsql_error_t *err, rsql_rmq_msg_t **msgs,
                    size_t n, void *opaque)
{
    (void)c;
    rsql_source_t *s = opaque;
    int64_t now = rsql_now_ms();
    held_t *to_defer = NULL;
    rsql_buf_t logq = RSQL_BUF_INIT;
    pthread_mutex_lock(&s->mu);
    s->recv_outstanding--;
    if (s->debug >= 2) {
        rsql_log_defer(&logq, RSQL_LOG_TRACE, "rocketmq", "rmq-recv: n=%zu at=%" PRId64 " err=%s",
                       n, now, err ? err->msg : "-");
    }
    if (err) {
        if (err->code != RSQL_ERR_INTERRUPTED && !s->closing) {
            bool retry = rsql_error_retriable(err);
            if (!retry && err->remote_code != 0 && s->fatal.code == RSQL_OK) {
                rsql_error_copy(&s->fatal, err);
            }
            s->recv_backoff = s->recv_backoff ? s->recv_backoff * 2 : RECV_BACKOFF_MIN;
            if (s->recv_backoff > RECV_BACKOFF_MAX) {
                s->recv_backoff = RECV_BACKOFF_MAX;
            }
            s->recv_not_before = now + s->recv_backoff;
            warn(&logq, &s->warned_recv, "receive failed (retrying in %" PRId64 " ms): %s",
                 s->recv_backoff, err->msg);
        }
    } else {
        s->recv_backoff = 0;
    }
    for (size_t i = 0; i < n; i++) {
        rsql_rmq_msg_t *m = msgs[i];
        held_t *h = rsql_calloc(1, sizeof *h);
        const char *key = s->lite ? m->lite_topic : m->message_group;
        uint32_t lane;
        if (!h || rsql_rmq_inflight_lane(s->lanes, key, &lane, NULL) != RSQL_OK) {
            rsql_free(h); /* out of memory: not held, it comes back later */
            rsql_rmq_msg_destroy(m);
            continue;
        }
        h->m = m;
        h->src = s;
        h->lane = lane;
        if (s->thr || s->debug >= 2) {
            rsql_rmq_lane_stats_t st;
            rsql_rmq_inflight_stats(s->lanes, lane, &st);
            int64_t defer_ms = 0;
            rsql_rmq_throttle_action_t act = rsql_rmq_throttle_decide(
                s->thr, lane, st.in_flight, m->delivery_attempt, now, &defer_ms);
            if (s->debug >= 2) {
                debug_decision(&logq, m,
                               act == RSQL_RMQ_DEFER         ? "defer"
                               : act == RSQL_RMQ_ADMIT_VALVE ? "valve"
                                                             : "admit",
                               defer_ms);
            }
            if (act == RSQL_RMQ_DEFER) {
                /* over its lite topic's share: not held, not acked, made invisible again */
                rsql_rmq_inflight_received(s->lanes, lane);
                rsql_rmq_inflight_deferred(s->lanes, lane);
                s->n_deferred++;
                s->ops++;
                h->defer_ms = defer_ms;
                h->bnext = to_defer;
                to_defer = h;
                s->last_msg_ms = now;
                continue;
            }
            s->n_valve += act == RSQL_RMQ_ADMIT_VALVE;
        }
        h->deadline = now - 200 + s->invisible_ms; /* margin for the time since the pop */
        h->offset = rsql_rmq_inflight_received(s->lanes, lane);
        h->next = &s->held;
        h->prev = s->held.prev;
        s->held.prev->next = h;
        s->held.prev = h;
        s->n_held++;
        if (s->btail) {
            s->btail->bnext = h;
        } else {
            s->bhead = h;
        }
        s->btail = h;
        s->n_buffered++;
        if (h->deadline - s->ahead_ms < s->next_renew_due) {
            s->next_renew_due = h->deadline - s->ahead_ms;
        }
        s->last_msg_ms = now;
    }
    pthread_cond_broadcast(&s->poll_cv);
    pthread_cond_signal(&s->hk_cv);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
    defer_send(s, to_defer);
}

/* ---- the housekeeping thread */

static void *hk_main(void *arg)
{
    rsql_source_t *s = arg;
    size_t cap = 64;
    renew_ctx_t **ren = rsql_malloc(cap * sizeof *ren);
    pthread_mutex_lock(&s->mu);
    while (!s->closing) {
        int64_t now = rsql_now_ms();
        int64_t wake = now + 1000;
        /* 1. long polls */
        int buf_cap = 2 * s->fetch * s->batch;
        while (!s->stopping && s->fatal.code == RSQL_OK && s->recv_outstanding < s->fetch &&
               s->n_buffered + s->recv_outstanding * s->batch < buf_cap) {
            if (now < s->recv_not_before) {
                wake = s->recv_not_before < wake ? s->recv_not_before : wake;
                break;
            }
            s->recv_outstanding++;
            pthread_mutex_unlock(&s->mu);
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_err_t rc =
                rsql_rmq_receive(s->cli, NULL, s->batch, s->invisible_ms, recv_cb, s, &e);
            pthread_mutex_lock(&s->mu);
            if (rc != RSQL_OK) {
                s->recv_outstanding--;
                s->recv_backoff = s->recv_backoff ? s->recv_backoff * 2 : RECV_BACKOFF_MIN;
                if (s->recv_backoff > RECV_BACKOFF_MAX) {
                    s->recv_backoff = RECV_BACKOFF_MAX;
                }
                s->recv_not_before = now + s->recv_backoff;
                rsql_buf_t logq = RSQL_BUF_INIT;
                warn(&logq, &s->warned_recv, "cannot start a receive: %s", e.msg);
                if (logq.len) {
                    pthread_mutex_unlock(&s->mu); /* log with s->mu released */
                    rsql_log_flush(&logq);
                    pthread_mutex_lock(&s->mu);
                }
            }
        }
        /* 2. renewals due (within 50 ms) */
        size_t nren = 0;
        if (ren && now + 50 >= s->next_renew_due) {
            int64_t next = INT64_MAX;
            for (held_t *h = s->held.next; h != &s->held; h = h->next) {
                if (h->renewing || h->lost || h->pending != P_NONE) {
                    continue;
                }
                int64_t due = h->deadline - s->ahead_ms;
                if (due > now + 50) {
                    next = due < next ? due : next;
                    continue;
                }
                if (nren == cap) {
                    renew_ctx_t **nr = rsql_realloc(ren, cap * 2 * sizeof *ren);
                    if (!nr) {
                        next = now + 100;
                        break;
                    }
                    ren = nr;
                    cap *= 2;
                }
                renew_ctx_t *rc = rsql_malloc(sizeof *rc);
                if (!rc) {
                    next = now + 100;
                    break;
                }
                rc->s = s;
                rc->h = h;
                rc->sent_ms = now;
                h->renewing = true;
                s->ops++;
                ren[nren++] = rc;
            }
            s->next_renew_due = next;
        }
        if (s->next_renew_due < wake) {
            wake = s->next_renew_due;
        }
        /* 3. ack flush */
        ack_batch_t *ab = NULL;
        if (s->n_ack > 0) {
            if (s->n_ack >= ACK_BATCH || now >= s->ack_oldest + ACK_DELAY_MS) {
                ab = ackq_take(s);
            }
            int64_t t = s->n_ack > 0 ? s->ack_oldest + ACK_DELAY_MS : wake;
            wake = t < wake ? t : wake;
        }
        if (nren > 0 || ab) {
            pthread_mutex_unlock(&s->mu);
            for (size_t i = 0; i < nren; i++) {
                renew_ctx_t *rc = ren[i];
                rsql_error_t e;
                rsql_error_clear(&e);
                rsql_rmq_msg_t *m = rc->h->m; /* stable while renewing */
                if (rsql_rmq_change_invisible(s->cli, m->topic ? m->topic : s->topic,
                                              m->message_id, m->receipt_handle, m->lite_topic,
                                              s->invisible_ms, s->lite, renew_cb, rc,
                                              &e) != RSQL_OK) {
                    renew_cb(s->cli, &e, NULL, rc);
                }
            }
            if (ab) {
                ack_send(s, ab);
            }
            pthread_mutex_lock(&s->mu);
            continue; /* re-evaluate at once */
        }
        if (wake > now) {
            rsql_cond_wait_until(&s->hk_cv, &s->mu, wake);
        }
    }
    pthread_mutex_unlock(&s->mu);
    rsql_free(ren);
    return NULL;
}

/* ---- the vtable */

static void rs_close(rsql_source_t *s);

/* Split "a,b , c" into an array of trimmed strdup'ed items; *n set. NULL on OOM. */
static char **split_csv(const char *v, size_t *n)
{
    *n = 0;
    size_t cap = 1;
    for (const char *p = v; *p; p++) {
        cap += *p == ',';
    }
    char **out = rsql_calloc(cap, sizeof *out);
    if (!out) {
        return NULL;
    }
    const char *p = v;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ') {
            len--;
        }
        if (len) {
            out[*n] = rsql_strndup(p, len);
            if (!out[*n]) {
                break;
            }
            (*n)++;
        }
        if (!e) {
            return out;
        }
        p = e + 1;
    }
    for (size_t i = 0; i < *n; i++) {
        rsql_free(out[i]);
    }
    rsql_free(out);
    return NULL;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; l && i < n; i++) {
        rsql_free(l[i]);
    }
    rsql_free(l);
}

/* "a:1,b:2" → "a:1;b:2" (the client's separator). Caller frees. */
static char *endpoints_arg(const char *v)
{
    char *r = rsql_strdup(v ? v : "");
    for (char *p = r; p && *p; p++) {
        if (*p == ',') {
            *p = ';';
        }
    }
    return r;
}

static rsql_err_t rs_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_rmq_conf_t *c = ctx->conf;
    const char *topic = c ? c->topic : NULL;
    const char *group = c ? c->group : NULL;
    if (!topic || !*topic || !group || !*group) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "rocketmq-grpc source: options 'topic' and "
                              "'source.consumer-group' are required");
    }
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    pthread_mutex_init(&s->mu, NULL);
    rsql_cond_init_monotonic(&s->poll_cv);
    rsql_cond_init_monotonic(&s->hk_cv);
    rsql_cond_init_monotonic(&s->done_cv);
    s->held.next = s->held.prev = &s->held;
    rsql_error_clear(&s->fatal);
    s->next_renew_due = INT64_MAX;
    s->lite = c->mode == RSQL_RMQ_MODE_LITE;
    s->native_dlq = c->dead_letter == RSQL_RMQ_DLQ_NATIVE;
    s->fetch = (int)c->fetch_concurrency;
    s->batch = (int)c->batch_size;
    s->invisible_ms = c->invisible_ms;
    s->ahead_ms = c->renewal_ahead_ms;
    s->max_attempts = (int)c->max_delivery_attempts;
    s->idle_ms = c->idle_timeout_given ? c->idle_timeout_ms : -1;
    s->debug = rsql_log_enabled(RSQL_LOG_TRACE) ? 2 : rsql_log_enabled(RSQL_LOG_DEBUG) ? 1 : 0;
    bool throttle_oom = false;
    if (s->lite && (c->max_inflight_per_lite_given || c->rate_per_lite_given)) {
        rsql_rmq_throttle_conf_t tc = {
            .max_inflight = c->max_inflight_per_lite,
            .rate = c->rate_per_lite, /* 0 when not given: no rate limit */
            .burst = 0,
            .defer_ms = c->defer_ms,
            .max_attempts = s->max_attempts,
            .max_invisible_ms = c->max_invisible_ms,
        };
        s->thr = rsql_rmq_throttle_new(&tc);
        throttle_oom = !s->thr;
    }
    s->topic = rsql_strdup(topic);
    s->lanes = rsql_rmq_inflight_new(topic);
    char *eps = endpoints_arg(c->endpoints);
    if (!s->topic || !s->lanes || !eps || throttle_oom) {
        rsql_free(eps);
        rs_close(s);
        return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    const char *topics[1] = {topic};
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = eps;
    conf.name_space = c->namespace_;
    conf.access_key = c->access_key;
    conf.secret_key = c->secret_key;
    conf.tls = c->tls;
    conf.request_timeout_ms = (int)c->request_timeout_ms;
    conf.client_type = s->lite ? RSQL_RMQ_LITE_PUSH_CONSUMER : RSQL_RMQ_SIMPLE_CONSUMER;
    conf.group = group;
    conf.topics = topics;
    conf.n_topics = 1;
    conf.filter_type = !s->lite && c->filter_type == RSQL_RMQ_FILTER_TYPE_SQL92
                           ? RSQL_RMQ_FILTER_SQL
                           : RSQL_RMQ_FILTER_TAG;
    /* lite mode subscribes the parent topic's wildcard (finalize rejects a filter there) */
    conf.filter_expression = s->lite ? "*" : c->filter_expression;
    conf.long_polling_timeout_ms = (int)c->await_ms;
    s->cli = rsql_rmq_client_new(&conf, err);
    rsql_free(eps);
    if (!s->cli) {
        rs_close(s);
        return err && err->code ? err->code : RSQL_ERR_INTERNAL;
    }
    rsql_err_t rc = rsql_rmq_client_start(s->cli, err);
    if (rc == RSQL_OK && s->lite && c->lite_topics) {
        size_t n = 0;
        char **l = split_csv(c->lite_topics, &n);
        if (!l) {
            rc = rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
        } else if (n > 0) {
            rc = rsql_rmq_sync_lite_sync(s->cli, RSQL_RMQ_LITE_PARTIAL_ADD,
                                         (const char *const *)l, n, err);
        }
        free_list(l, n);
    }
    if (rc != RSQL_OK) {
        rs_close(s);
        return rc;
    }
    s->last_msg_ms = rsql_now_ms();
    if (pthread_create(&s->hk, NULL, hk_main, s) != 0) {
        rs_close(s);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "rocketmq-grpc source: cannot start its thread");
    }
    s->hk_started = true;
    *out = s;
    return RSQL_OK;
}

/*
** Hand out buffered messages as records (body, ident "<topic>[/<lite>]/<id>", lane as the
** partition, the held message as opaque). @locality poll thread
*/
static rsql_err_t rs_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                          bool *eof, rsql_error_t *err)
{
    *eof = false;
    int room = batch->cap - batch->n;
    if (max > room) {
        max = room;
    }
    if (max <= 0) {
        return RSQL_OK;
    }
    held_t *take[64];
    int cap = max < 64 ? max : 64;
    int n = 0;
    int64_t deadline = rsql_now_ms() + timeout_ms;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->fatal.code != RSQL_OK && s->n_buffered == 0) {
            rsql_error_copy(err, &s->fatal);
            pthread_mutex_unlock(&s->mu);
            return err ? err->code : RSQL_ERR_REMOTE;
        }
        if (s->n_buffered > 0 || s->stopping) {
            break;
        }
        int64_t now = rsql_now_ms();
        if (s->idle_ms >= 0 && now - s->last_msg_ms >= s->idle_ms) {
            *eof = true;
            break;
        }
        int64_t until = deadline;
        if (s->idle_ms >= 0 && s->last_msg_ms + s->idle_ms < until) {
            until = s->last_msg_ms + s->idle_ms;
        }
        if (now >= deadline) {
            break;
        }
        rsql_cond_wait_until(&s->poll_cv, &s->mu, until);
    }
    while (n < cap && s->bhead) {
        held_t *h = s->bhead;
        s->bhead = h->bnext;
        if (!s->bhead) {
            s->btail = NULL;
        }
        h->bnext = NULL;
        h->polled = true;
        s->n_buffered--;
        take[n++] = h;
    }
    if (n > 0) {
        pthread_cond_signal(&s->hk_cv); /* room for more long polls */
    }
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < n; i++) {
        held_t *h = take[i];
        rsql_record_t *r = rsql_batch_add(batch);
        if (!r) {
            /* cannot happen (room checked); give the rest back to the buffer front */
            pthread_mutex_lock(&s->mu);
            for (int j = n - 1; j >= i; j--) {
                take[j]->polled = false;
                take[j]->bnext = s->bhead;
                s->bhead = take[j];
                if (!s->btail) {
                    s->btail = take[j];
                }
                s->n_buffered++;
            }
            pthread_mutex_unlock(&s->mu);
            break;
        }
        rsql_rmq_msg_t *m = h->m;
        r->partition = h->lane;
        r->offset = h->offset;
        r->raw = rsql_batch_copy(batch, m->body ? (const void *)m->body : "", m->body_len);
        r->raw_len = m->body_len;
        size_t need = strlen(m->topic ? m->topic : s->topic) + strlen(m->message_id) +
                      (m->lite_topic ? strlen(m->lite_topic) + 1 : 0) + 2;
        char *id = rsql_arena_alloc(batch->arena, need);
        if (id) {
            snprintf(id, need, "%s%s%s/%s", m->topic ? m->topic : s->topic,
                     m->lite_topic ? "/" : "", m->lite_topic ? m->lite_topic : "",
                     m->message_id);
        }
        r->ident = id;
        r->opaque = h;
        if (!r->raw && m->body_len > 0) {
            return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
        }
    }
    return RSQL_OK;
}

static int rs_partition_count(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    int n = (int)rsql_rmq_inflight_count(s->lanes);
    pthread_mutex_unlock(&s->mu);
    return n;
}

static const char *rs_partition_name(rsql_source_t *s, uint32_t partition)
{
    pthread_mutex_lock(&s->mu);
    const char *n = rsql_rmq_inflight_name(s->lanes, partition);
    pthread_mutex_unlock(&s->mu);
    return n;
}

/*
** The outcome of a record: ack, forward to the DLQ, or release. See the file comment.
** @locality worker thread
*/
static void rs_commit_record(rsql_source_t *s, const rsql_record_t *rec,
                             const rsql_outcome_t *outcome)
{
    held_t *h = rec->opaque;
    if (!h) {
        return;
    }
    int action = outcome->kind == RSQL_OUTCOME_FAILED ? P_RELEASE
                 : outcome->kind == RSQL_OUTCOME_DEAD_LETTERED && s->native_dlq ? P_DLQ
                                                                               : P_ACK;
    ack_batch_t *ab = NULL;
    held_t *to_dlq = NULL;
    pthread_mutex_lock(&s->mu);
    if (h->renewing) {
        h->pending = action; /* the renewal's completion acts, with the new handle */
        pthread_mutex_unlock(&s->mu);
        return;
    }
    held_unlink(s, h);
    if (action == P_RELEASE) {
        rsql_rmq_inflight_done(s->lanes, h->lane, false);
        held_free(h);
    } else if (action == P_DLQ) {
        s->ops++;
        to_dlq = h;
    } else {
        ackq_push(s, h);
        if (s->n_ack >= ACK_BATCH) {
            ab = ackq_take(s);
        } else if (s->n_ack == 1) {
            pthread_cond_signal(&s->hk_cv); /* start the flush timer */
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (to_dlq) {
        dlq_send(s, to_dlq);
    }
    if (ab) {
        ack_send(s, ab);
    }
}

static void rs_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->poll_cv);
    pthread_cond_signal(&s->hk_cv);
    pthread_mutex_unlock(&s->mu);
}

/*
** Close: stop the housekeeping thread, send every queued ack and wait (up to CLOSE_WAIT_MS)
** for acks, renewals and forwards in flight, then stop the client. Messages still held (not
** resolved) are released: they come back after their invisible duration.
*/
static void rs_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    s->stopping = true;
    pthread_cond_signal(&s->hk_cv);
    pthread_mutex_unlock(&s->mu);
    if (s->hk_started) {
        pthread_join(s->hk, NULL);
    }
    if (s->cli) {
        int64_t until = rsql_now_ms() + CLOSE_WAIT_MS;
        pthread_mutex_lock(&s->mu);
        for (;;) {
            ack_batch_t *ab = ackq_take(s);
            if (ab) {
                pthread_mutex_unlock(&s->mu);
                ack_send(s, ab);
                pthread_mutex_lock(&s->mu);
                continue;
            }
            int64_t now = rsql_now_ms();
            if ((s->ops == 0 && s->n_ack == 0) || now >= until) {
                break;
            }
            rsql_cond_wait_until(&s->done_cv, &s->mu, until);
        }
        pthread_mutex_unlock(&s->mu);
        rsql_rmq_client_destroy(s->cli); /* completes what is still in flight */
        s->cli = NULL;
    }
    for (size_t i = 0; i < s->n_ack; i++) {
        held_free(s->ackq[i]);
    }
    rsql_free(s->ackq);
    while (s->held.next != &s->held) {
        held_t *h = s->held.next;
        held_unlink(s, h);
        held_free(h);
    }
    if (s->debug) {
        rsql_log(RSQL_LOG_DEBUG, "rocketmq",
                 "rocketmq-grpc source: acked=%" PRId64 " invalid_handle=%" PRId64
                 " renewed=%" PRId64 " renew_failed=%" PRId64 " forwarded=%" PRId64
                 " lanes=%" PRIu32 " deferred=%" PRId64 " defer_failed=%" PRId64
                 " valve=%" PRId64,
                 s->n_acked, s->n_ack_invalid, s->n_renewed, s->n_renew_failed, s->n_forwarded,
                 s->lanes ? rsql_rmq_inflight_count(s->lanes) : 0, s->n_deferred,
                 s->n_defer_failed, s->n_valve);
    }
    rsql_rmq_throttle_destroy(s->thr);
    rsql_rmq_inflight_destroy(s->lanes);
    rsql_free(s->topic);
    pthread_cond_destroy(&s->poll_cv);
    pthread_cond_destroy(&s->hk_cv);
    pthread_cond_destroy(&s->done_cv);
    pthread_mutex_destroy(&s->mu);
    rsql_free(s);
}

/* The busiest lite topics (or message groups) for the status line / SHOW JOB RUNS. */
static size_t rs_describe(rsql_source_t *s, bool text, char *buf, size_t size)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->lite ? rsql_rmq_throttle_describe(s->lanes, text ? 3 : 10, text, buf, size)
                       : 0;
    pthread_mutex_unlock(&s->mu);
    if (!s->lite && size > 0) {
        buf[0] = '\0';
    }
    return n;
}

/*
** The rocketmq-grpc source vtable (rsql_io.h). Static.
*/
const rsql_source_ops_t rsql_rmq_source_ops = {
    .open = rs_open,
    .poll = rs_poll,
    .partition_count = rs_partition_count,
    .partition_name = rs_partition_name,
    .commit_record = rs_commit_record,
    .committed = NULL,
    .total = NULL,
    .wakeup = rs_wakeup,
    .close = rs_close,
    .manages_own_positions = true,
    .describe = rs_describe,
};
