/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_housekeeping: the rocketmq-grpc source's housekeeping thread and the completions it causes.
 * The thread (rsql_rmq__hk_main, one per source) blocks on hk_cv with a deadline and starts what
 * is due: a client identity started or retired (lite mode, rmq_identity.c), the long polls
 * (ReceiveMessage while the buffer has room: per client identity in use one at first, doubled
 * by each answer that comes back full and halved by each that comes back empty, up to
 * `source.fetch-concurrency`; each answer's messages remember the identity, and count towards
 * its dispatch round, rmq_lite_ids.c), the renewals (ChangeInvisibleDuration
 * `source.renewal-ahead` before a held message's invisibility ends) and the ack flush. recv_cb
 * buffers what arrives or, over a lite topic's share (rmq_throttle.c), defers it at once
 * (ChangeInvisibleDuration without suspend);
 * renew_cb swaps in the new receipt handle and carries out an outcome asked for during the
 * renewal.
 *
 * It owns the receive backoff, the renewal schedule and the deferrals; it must not resolve a
 * message's outcome itself (rmq_source.c asks, rmq_held.c acks and releases) nor call the client
 * with s->mu held.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_source_int.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_backoff.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#define ACK_DELAY_MS 100   /* longest wait of a queued ack */
#define RECV_BACKOFF_MIN 100
#define RECV_BACKOFF_MAX 30000

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
            RMQ_COUNT(s, renewed, 1);
        }
    } else if (err && err->remote_code == RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE) {
        h->lost = true; /* expired: it will be delivered again; its ack will say so */
        s->n_renew_failed++;
        rsql_rmq__source_warn(&logq, &s->warned_renew, "renewal of message %s: %s",
                              h->m->message_id, err->msg);
    } else if (err && err->code != RSQL_ERR_INTERRUPTED) {
        s->n_renew_failed++;
        rsql_rmq__source_warn(&logq, &s->warned_renew,
                              "renewal of message %s failed (will retry): %s", h->m->message_id,
                              err->msg);
    }
    int64_t due = h->lost ? INT64_MAX : h->deadline - s->ahead_ms;
    if (err && !h->lost) {
        due = rsql_now_ms() + 1000; /* try again soon */
    }
    switch (h->pending) {
    case P_ACK:
        rsql_rmq__held_unlink(s, h);
        rsql_rmq__ackq_push(s, h);
        if (s->n_ack >= ACK_BATCH || s->closing) {
            ab = rsql_rmq__ackq_take(s);
        }
        break;
    case P_DLQ:
        rsql_rmq__held_unlink(s, h);
        if (s->clis_closing) {
            rsql_rmq__held_release(s, h); /* too late to forward: it comes back */
            break;
        }
        s->ops++;
        to_dlq = h;
        break;
    case P_RELEASE:
        rsql_rmq__held_unlink(s, h);
        rsql_rmq__held_release(s, h);
        break;
    default:
        if (due < s->next_renew_due) {
            s->next_renew_due = due;
        }
    }
    rsql_rmq__op_done(s);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
    rsql_free(rc);
    if (to_dlq) {
        rsql_rmq__dlq_send(s, to_dlq);
    }
    if (ab) {
        rsql_rmq__ack_send(s, ab);
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
        rsql_rmq_later_add(&s->released, rsql_now_ms() + s->invisible_ms);
        if (err->code != RSQL_ERR_INTERRUPTED) {
            rsql_rmq__source_warn(&logq, &s->warned_defer, "deferral of message %s failed: %s",
                                  h->m->message_id, err->msg);
        }
    } else {
        rsql_rmq_later_add(&s->deferred_later, rsql_now_ms() + h->defer_ms);
    }
    rsql_rmq__held_free(h);
    rsql_rmq__op_done(s);
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
        rsql_rmq_client_t *cli = s->clis[h->ci]; /* the identity that received it */
        if (rsql_rmq_change_invisible(cli, m->topic ? m->topic : s->topic, m->message_id,
                                      m->receipt_handle, m->lite_topic, h->defer_ms, false,
                                      defer_cb, h, &e) != RSQL_OK) {
            defer_cb(cli, &e, NULL, h);
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
    recv_ctx_t *rctx = opaque;
    rsql_source_t *s = rctx->s;
    int64_t started_ms = rctx->started_ms;
    int ci = rctx->ci;
    rsql_free(rctx);
    int64_t now = rsql_now_ms();
    held_t *to_defer = NULL;
    rsql_buf_t logq = RSQL_BUF_INIT;
    pthread_mutex_lock(&s->mu);
    s->recv_outstanding--;
    s->recv_per[ci]--;
    if (s->debug >= 2) {
        rsql_log_defer(&logq, RSQL_LOG_TRACE, "rocketmq",
                       "rmq-recv: n=%zu at=%" PRId64 " client=%d err=%s", n, now, ci,
                       err ? err->msg : "-");
    }
    if (err) {
        if (err->code != RSQL_ERR_INTERRUPTED && !s->closing) {
            bool retry = rsql_error_retriable(err);
            if (!retry && err->remote_code != 0 && s->fatal.code == RSQL_OK) {
                rsql_error_copy(&s->fatal, err);
            }
            s->recv_backoff =
                rsql_backoff_next(s->recv_backoff, RECV_BACKOFF_MIN, RECV_BACKOFF_MAX);
            if (rsql_rmq_settings_missing(err->remote_code, err->msg) &&
                s->recv_backoff > RSQL_RMQ_SETTINGS_RESEND_MS) {
                /* the proxy lost our Settings (its restart) and the client sends them again
                   now: poll again after that, not after a backoff grown during the outage */
                s->recv_backoff = RSQL_RMQ_SETTINGS_RESEND_MS;
            }
            s->recv_not_before = now + s->recv_backoff;
            rsql_rmq__source_warn(&logq, &s->warned_recv,
                                  "receive failed (retrying in %" PRId64 " ms): %s",
                                  s->recv_backoff, err->msg);
        }
    } else {
        s->recv_backoff = 0;
        s->fetch_now = rsql_rmq__polls_adapt(s->fetch_now, s->fetch, s->batch, n);
        if (n == 0) {
            rsql_rmq_idle_answered(&s->idle, started_ms, now); /* the broker vouched: idle */
        }
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
        h->ci = (uint8_t)ci;
        s->ci_busy[ci]++; /* until held_free: the identity stays while it has messages */
        if (s->lite && s->ids.max > s->ids.min &&
            rsql_rmq_round_seen(&s->rounds[ci], lane, now) && rsql_rmq_ids_full(&s->ids, now)) {
            rsql_log_defer(&logq, RSQL_LOG_INFO, "rocketmq",
                           "rocketmq-grpc source: a dispatch round was full (client identity "
                           "%d popped %d lite topics at once): going to %d client identities",
                           ci, RSQL_RMQ_ROUND_FULL, s->ids.target);
        }
        if (m->bad.code == RSQL_OK && (s->thr || s->debug >= 2)) {
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
                RMQ_COUNT(s, deferred, 1);
                s->ops++;
                h->defer_ms = defer_ms;
                h->bnext = to_defer;
                to_defer = h;
                rsql_rmq_idle_message(&s->idle, now);
                continue;
            }
            s->n_valve += act == RSQL_RMQ_ADMIT_VALVE;
        }
        rsql_rmq__held_buffer(s, h, now);
        rsql_rmq_idle_message(&s->idle, now);
    }
    pthread_cond_broadcast(&s->poll_cv);
    pthread_cond_signal(&s->hk_cv);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
    defer_send(s, to_defer);
}

/* ---- the housekeeping thread */

/* A lane with nothing held may go when its throttle state is back to a new lane's. @locks s->mu */
static bool lane_may_go(void *opaque, uint32_t lane)
{
    rsql_source_t *s = opaque;
    return rsql_rmq_throttle_forget(s->thr, lane, rsql_now_ms());
}

/* See rmq_source_int.h. */
void *rsql_rmq__hk_main(void *arg)
{
    rsql_source_t *s = arg;
    size_t cap = 64;
    renew_ctx_t **ren = rsql_malloc(cap * sizeof *ren);
    pthread_mutex_lock(&s->mu);
    while (!s->closing) {
        int64_t now = rsql_now_ms();
        int64_t wake = now + 1000;
        /* 0. lanes idle for lanes.idle-timeout go (a lane with a message held never does) */
        rsql_rmq_inflight_sweep(s->lanes, now, s->lane_idle_ms, lane_may_go, s);
        /* 0b. lite mode: start or retire a client identity when due (rmq_identity.c) */
        if (rsql_rmq__identities_step(s, now, &wake)) {
            continue; /* (s->mu may have been released) re-evaluate at once */
        }
        /* 1. long polls: `fetch_now` per identity in use (adaptive, at most `fetch`), the one
           with the fewest out first (none to a retiring one); the buffer bound is the most
           polls' and grows with the identities in use (each brings its own lite topics per
           round) */
        int buf_cap = 2 * s->fetch * s->batch * s->n_active;
        /* (none once a bounded read's idle clock expired: poll then reports the end) */
        while (!s->stopping && s->fatal.code == RSQL_OK && !rsql_rmq_idle_expired(&s->idle)) {
            int ci = -1, out = 0;
            for (int i = 0; i < s->n_clis; i++) {
                if (s->ci_state[i] != CI_ACTIVE) {
                    continue;
                }
                out += s->recv_per[i];
                if (s->recv_per[i] < s->fetch_now &&
                    (ci < 0 || s->recv_per[i] < s->recv_per[ci])) {
                    ci = i;
                }
            }
            if (ci < 0 || s->n_buffered + out * s->batch >= buf_cap) {
                break;
            }
            if (now < s->recv_not_before) {
                wake = s->recv_not_before < wake ? s->recv_not_before : wake;
                break;
            }
            s->recv_outstanding++;
            s->recv_per[ci]++;
            pthread_mutex_unlock(&s->mu);
            rsql_error_t e;
            rsql_error_clear(&e);
            recv_ctx_t *rctx = rsql_malloc(sizeof *rctx);
            rsql_err_t rc = RSQL_ERR_NOMEM;
            if (rctx) {
                rctx->s = s;
                rctx->started_ms = rsql_now_ms();
                rctx->ci = ci;
                rc = rsql_rmq_receive(s->clis[ci], NULL, s->batch, s->invisible_ms, recv_cb,
                                      rctx, &e);
            } else {
                rsql_error_nomem(&e);
            }
            if (rc != RSQL_OK) {
                rsql_free(rctx); /* no callback comes */
            }
            pthread_mutex_lock(&s->mu);
            if (rc != RSQL_OK) {
                s->recv_outstanding--;
                s->recv_per[ci]--;
                s->recv_backoff =
                    rsql_backoff_next(s->recv_backoff, RECV_BACKOFF_MIN, RECV_BACKOFF_MAX);
                s->recv_not_before = now + s->recv_backoff;
                rsql_buf_t logq = RSQL_BUF_INIT;
                rsql_rmq__source_warn(&logq, &s->warned_recv, "cannot start a receive: %s", e.msg);
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
                ab = rsql_rmq__ackq_take(s);
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
                rsql_rmq_client_t *cli = s->clis[rc->h->ci]; /* the one that received it */
                if (rsql_rmq_change_invisible(cli, m->topic ? m->topic : s->topic,
                                              m->message_id, m->receipt_handle, m->lite_topic,
                                              s->invisible_ms, s->lite, renew_cb, rc,
                                              &e) != RSQL_OK) {
                    renew_cb(cli, &e, NULL, rc);
                }
            }
            if (ab) {
                rsql_rmq__ack_send(s, ab);
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
