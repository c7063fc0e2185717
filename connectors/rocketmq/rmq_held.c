/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_held: the held messages of the rocketmq-grpc source and its ack queue. A held message
 * (held_t on s->held) was received and not yet resolved; it leaves the list for good when it is
 * acked, forwarded to the dead-letter queue or released. Acks are queued (ackq_push) and sent in
 * batches of up to ACK_BATCH entries of one topic and one client identity (receipt handles are
 * per client) per AckMessage (ackq_take, ack_send); a
 * retriable failure re-queues the entry up to ACK_ATTEMPTS tries, anything else lets it go (it is
 * delivered again after its invisible duration). Also the native DLQ forward and the source's
 * rate-limited warnings.
 *
 * It owns held_t's lifetime (held_free) and the ack queue; it must not start receives, renewals
 * or deferrals (rmq_housekeeping.c), decide an outcome (rs_commit_record in rmq_source.c) or call
 * the client with s->mu held.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_source_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#define ACK_ATTEMPTS 5     /* tries of one ack after retriable failures */
#define WARN_MAX 20        /* warnings of one kind printed, then only counted */

/* A warning for logq (written after s->mu is released), unless WARN_MAX of its kind were. */
void rsql_rmq__source_warn(rsql_buf_t *logq, int *count, const char *fmt, ...)
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

/* See rmq_source_int.h. */
void rsql_rmq__held_buffer(rsql_source_t *s, held_t *h, int64_t now)
{
    h->deadline = now - 200 + s->invisible_ms; /* margin for the time since the pop */
    h->lost = !h->m->receipt_handle; /* a bad message without a handle: nothing to renew */
    h->offset = rsql_rmq_inflight_received(s->lanes, h->lane);
    h->next = &s->held;
    h->prev = s->held.prev;
    s->held.prev->next = h;
    s->held.prev = h;
    s->n_held++;
    RMQ_HELD(s);
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
}

/* See rmq_source_int.h. */
void rsql_rmq__held_unlink(rsql_source_t *s, held_t *h)
{
    h->prev->next = h->next;
    h->next->prev = h->prev;
    h->prev = h->next = h;
    s->n_held--;
    RMQ_HELD(s);
}

/* See rmq_source_int.h. */
void rsql_rmq__held_release(rsql_source_t *s, held_t *h)
{
    rsql_rmq_inflight_done(s->lanes, h->lane, false);
    rsql_rmq_later_add(&s->released, h->deadline); /* for the run's leftovers */
    rsql_rmq__held_free(h);
}

/* See rmq_source_int.h. */
void rsql_rmq__held_free(held_t *h)
{
    if (h) {
        if (h->src) {
            h->src->ci_busy[h->ci]--; /* (s->mu held, or the source is closing alone) */
        }
        rsql_rmq_msg_destroy(h->m);
        rsql_free(h);
    }
}

/* Queue h for an ack (unlinked already). Returns false on OOM (h is then released). */
bool rsql_rmq__ackq_push(rsql_source_t *s, held_t *h)
{
    if (s->n_ack == s->cap_ack) {
        size_t nc = s->cap_ack ? s->cap_ack * 2 : ACK_BATCH * 2;
        held_t **nq = rsql_realloc(s->ackq, nc * sizeof *nq);
        if (!nq) {
            rsql_rmq__held_release(s, h);
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
ack_batch_t *rsql_rmq__ackq_take(rsql_source_t *s)
{
    if (s->n_ack == 0 || s->clis_closing) {
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
    /* one identity per batch (receipt handles are per client): the first queued one's; the
       others' entries keep their order and their age (they are flushed next) */
    uint8_t ci = s->ackq[0]->ci;
    size_t k = 0, j = 0;
    bool other = false;
    for (size_t i = 0; i < s->n_ack; i++) {
        held_t *h = s->ackq[i];
        if (k < n && h->ci == ci) {
            items[k++] = h;
        } else {
            other |= h->ci != ci;
            s->ackq[j++] = h;
        }
    }
    n = k;
    s->n_ack = j;
    if (!other) {
        s->ack_oldest = rsql_now_ms();
    }
    b->s = s;
    b->items = items;
    b->n = n;
    s->ops++;
    return b;
}

/* See rmq_source_int.h. */
void rsql_rmq__op_done(rsql_source_t *s)
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
void rsql_rmq__ack_send(rsql_source_t *s, ack_batch_t *b)
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
    b->sent_ns = rsql_now_ns(); /* before: the answer may come before rsql_rmq_ack returns */
    /* the identity that received them (ackq_take makes batches of one) */
    rsql_rmq_client_t *cli = s->clis[b->n ? b->items[0]->ci : 0];
    if (ents && rsql_rmq_ack(cli, topic ? topic : s->topic, ents, b->n, ack_cb, b, &e) ==
                    RSQL_OK) {
        rsql_free(ents);
        return;
    }
    rsql_free(ents);
    /* could not even start: treat as an RPC failure */
    if (!ents) {
        rsql_error_nomem(&e);
    }
    ack_cb(cli, &e, NULL, 0, b);
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
    if (s->ctr && b->sent_ns && (!err || n > 0)) { /* answered (not a failure to send) */
        rsql_latency_observe(&s->ctr->ack, (rsql_now_ns() - b->sent_ns) / 1000, 1);
    }
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < b->n; i++) {
        held_t *h = b->items[i];
        const rsql_rmq_ack_result_t *r = err ? find_result(h, results, n, i) : NULL;
        int32_t code = !err ? RSQL_RMQ_CODE_OK : r ? r->code : 0;
        if (code == RSQL_RMQ_CODE_OK) {
            s->n_acked++;
            RMQ_COUNT(s, acked, 1);
            rsql_rmq_inflight_done(s->lanes, h->lane, true);
            rsql_rmq__held_free(h);
            continue;
        }
        bool retry = r ? rsql_rmq_code_retriable(code) : rsql_error_retriable(err);
        if (retry && ++h->ack_attempts < ACK_ATTEMPTS && err->code != RSQL_ERR_INTERRUPTED) {
            rsql_rmq__ackq_push(s, h);
            continue;
        }
        if (code == RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE) {
            s->n_ack_invalid++;
            rsql_rmq__source_warn(
                &logq, &s->warned_ack,
                "ack of message %s: INVALID_RECEIPT_HANDLE (its invisible duration ended): it "
                "will be delivered again",
                h->m->message_id);
        } else {
            rsql_rmq__source_warn(&logq, &s->warned_ack, "ack of message %s failed: %s",
                                  h->m->message_id,
                                  r && r->status_message ? r->status_message : err->msg);
        }
        rsql_rmq__held_release(s, h);
    }
    rsql_rmq__op_done(s);
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
        rsql_rmq__source_warn(
            &logq, &s->warned_ack,
            "forwarding message %s to the dead-letter queue failed: %s (it will be delivered "
            "again)",
            h->m->message_id, err->msg);
        rsql_rmq__held_release(s, h);
    } else {
        s->n_forwarded++;
        rsql_rmq_inflight_done(s->lanes, h->lane, true);
        rsql_rmq__held_free(h);
    }
    rsql_rmq__op_done(s);
    pthread_mutex_unlock(&s->mu);
    rsql_log_flush(&logq);
}

/* Forward h (unlinked, owned) to the group's DLQ. @locks s->mu NOT held */
void rsql_rmq__dlq_send(rsql_source_t *s, held_t *h)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_rmq_client_t *cli = s->clis[h->ci]; /* the identity that received it */
    if (rsql_rmq_forward_to_dlq(cli, h->m, s->max_attempts, dlq_cb, h, &e) != RSQL_OK) {
        dlq_cb(cli, &e, h);
    }
}
