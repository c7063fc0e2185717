/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The bounded blocking op queue (engine/rsql_queue.h): a singly linked
 * FIFO guarded by one mutex, with one condition variable for consumers
 * (not empty) and one for producers (room); each side counts its waiters, and a push or a
 * pop signals the other side only when someone waits there. Timed waits use
 * CLOCK_MONOTONIC (base/rsql_time.h) so a clock change never stretches a timeout.
 */
#include "config.h"
#include "engine/rsql_queue.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <pthread.h>

struct rsql_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, has_room;
    rsql_qop_t *head, *tail;
    int64_t len, weight, capacity;
    int64_t low_water; /* a pop wakes waiting pushers only at or below it (see the header) */
    int push_waiters;  /* pushers waiting for room */
    int pop_waiters;   /* consumers waiting for an op: a push signals only when there is one */
    bool wake_unlocked; /* wake after unlocking (rsql_queue_set_stage) */
    bool closed;
};

/*
** A new queue of the given capacity (weight units; 0 = unbounded). NULL on
** OOM. The caller destroys it.
*/
rsql_queue_t *rsql_queue_new(int64_t capacity)
{
    rsql_queue_t *q = rsql_calloc(1, sizeof(*q));
    if (!q) {
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    rsql_cond_init_monotonic(&q->not_empty);
    rsql_cond_init_monotonic(&q->has_room);
    q->capacity = capacity < 0 ? 0 : capacity;
    q->low_water = q->capacity;
    return q;
}

/*
** A queue between two stage threads: the low water mark, and wakes after the unlock (see
** the header).
*/
void rsql_queue_set_stage(rsql_queue_t *q, int64_t low)
{
    pthread_mutex_lock(&q->lock);
    q->low_water = low < 0 ? 0 : low > q->capacity ? q->capacity : low;
    q->wake_unlocked = true;
    pthread_mutex_unlock(&q->lock);
}

/*
** Free q and hand each op still queued to free_cb. No thread may be using q.
*/
void rsql_queue_destroy(rsql_queue_t *q, void (*free_cb)(rsql_qop_t *op))
{
    if (!q) {
        return;
    }
    rsql_qop_t *op = q->head;
    while (op) {
        rsql_qop_t *next = op->next;
        if (free_cb) {
            free_cb(op);
        }
        op = next;
    }
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->has_room);
    pthread_mutex_destroy(&q->lock);
    rsql_free(q);
}

/*
** Signal (or broadcast) cv when wake, and unlock q. With wake_unlocked the wake comes after
** the unlock: a thread woken while the lock is still held would only block on it again (a
** second futex wake at the unlock). @locks q->lock held on entry, released
*/
static void signal_unlock(rsql_queue_t *q, pthread_cond_t *cv, bool wake, bool all)
{
    bool after = q->wake_unlocked;
    if (wake && !after) {
        all ? pthread_cond_broadcast(cv) : pthread_cond_signal(cv);
    }
    pthread_mutex_unlock(&q->lock);
    if (wake && after) {
        all ? pthread_cond_broadcast(cv) : pthread_cond_signal(cv);
    }
}

/* True when op may enter now. @locks q->lock held */
static bool fits0(const rsql_queue_t *q, const rsql_qop_t *op)
{
    return q->capacity == 0 || q->len == 0 || q->weight + op->weight <= q->capacity;
}

/*
** Append op at the tail, blocking while there is no room. See the header.
*/
rsql_err_t rsql_queue_push(rsql_queue_t *q, rsql_qop_t *op)
{
    pthread_mutex_lock(&q->lock);
    while (!q->closed && !fits0(q, op)) {
        q->push_waiters++;
        pthread_cond_wait(&q->has_room, &q->lock);
        q->push_waiters--;
    }
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        return RSQL_ERR_INTERRUPTED;
    }
    op->next = NULL;
    if (q->tail) {
        q->tail->next = op;
    } else {
        q->head = op;
    }
    q->tail = op;
    q->len++;
    q->weight += op->weight;
    signal_unlock(q, &q->not_empty, q->pop_waiters > 0, false);
    return RSQL_OK;
}

/*
** Append a linked list of ops at once. See the header.
*/
rsql_err_t rsql_queue_push_list(rsql_queue_t *q, rsql_qop_t *head)
{
    if (!head) {
        return RSQL_OK;
    }
    rsql_qop_t all = {.weight = 0}, *last = head;
    int64_t n = 1;
    all.weight = head->weight;
    while (last->next) {
        last = last->next;
        all.weight += last->weight;
        n++;
    }
    pthread_mutex_lock(&q->lock);
    while (!q->closed && !fits0(q, &all)) {
        q->push_waiters++;
        pthread_cond_wait(&q->has_room, &q->lock);
        q->push_waiters--;
    }
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        return RSQL_ERR_INTERRUPTED;
    }
    if (q->tail) {
        q->tail->next = head;
    } else {
        q->head = head;
    }
    q->tail = last;
    q->len += n;
    q->weight += all.weight;
    signal_unlock(q, &q->not_empty, q->pop_waiters > 0, n > 1 && q->pop_waiters > 1);
    return RSQL_OK;
}

/*
** Put op at the head, ignoring the capacity. See the header.
*/
rsql_err_t rsql_queue_push_urgent(rsql_queue_t *q, rsql_qop_t *op)
{
    pthread_mutex_lock(&q->lock);
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        return RSQL_ERR_INTERRUPTED;
    }
    op->next = q->head;
    q->head = op;
    if (!q->tail) {
        q->tail = op;
    }
    q->len++;
    q->weight += op->weight;
    if (q->pop_waiters > 0) {
        pthread_cond_signal(&q->not_empty);
    }
    pthread_mutex_unlock(&q->lock);
    return RSQL_OK;
}

/*
** Take the head op, waiting up to timeout_ms. See the header.
*/
rsql_err_t rsql_queue_pop(rsql_queue_t *q, int timeout_ms, rsql_qop_t **out)
{
    *out = NULL;
    pthread_mutex_lock(&q->lock);
    if (!q->head && !q->closed && timeout_ms != 0) {
        q->pop_waiters++; /* under the lock: a push after this sees it and signals */
        if (timeout_ms < 0) {
            while (!q->head && !q->closed) {
                pthread_cond_wait(&q->not_empty, &q->lock);
            }
        } else {
            int64_t dl = rsql_deadline_in(timeout_ms);
            while (!q->head && !q->closed) {
                if (rsql_cond_wait_until(&q->not_empty, &q->lock, dl) == ETIMEDOUT) {
                    break;
                }
            }
        }
        q->pop_waiters--;
    }
    rsql_qop_t *op = q->head;
    if (!op) {
        bool closed = q->closed;
        pthread_mutex_unlock(&q->lock);
        return closed ? RSQL_ERR_INTERRUPTED : RSQL_ERR_TIMEOUT;
    }
    q->head = op->next;
    if (!q->head) {
        q->tail = NULL;
    }
    q->len--;
    q->weight -= op->weight;
    op->next = NULL;
    /* Several small pushers may fit now: wake them all (they re-check). With a low water
       mark, only once the queue has drained to it (or is empty, where any op fits), so a
       full queue's pusher wakes once per several pops, not per pop. */
    signal_unlock(q, &q->has_room,
                  q->push_waiters > 0 && (q->weight <= q->low_water || q->len == 0), true);
    *out = op;
    return RSQL_OK;
}

/* Close q: refuse pushes, wake all waiters. */
void rsql_queue_close(rsql_queue_t *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = true;
    pthread_cond_broadcast(&q->not_empty);
    pthread_cond_broadcast(&q->has_room);
    pthread_mutex_unlock(&q->lock);
}

/* Number of queued ops (a snapshot). */
int64_t rsql_queue_len(rsql_queue_t *q)
{
    pthread_mutex_lock(&q->lock);
    int64_t n = q->len;
    pthread_mutex_unlock(&q->lock);
    return n;
}

/* Total weight of the queued ops (a snapshot). */
int64_t rsql_queue_weight(rsql_queue_t *q)
{
    pthread_mutex_lock(&q->lock);
    int64_t w = q->weight;
    pthread_mutex_unlock(&q->lock);
    return w;
}
