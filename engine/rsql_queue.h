/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_queue: the bounded blocking queue of ops that the pipeline's threads
 * talk through (STYLE.md B7, like librdkafka's rd_kafka_q_t). Any number of
 * producers and consumers; a mutex and two condition variables, never a
 * spin.
 *
 * Capacity is counted in "weight" units, not ops: each op carries a weight
 * (the pipeline uses the number of records it stands for), and a push waits
 * while the queue's weight plus the op's would exceed the capacity
 * (back-pressure). An op heavier than the whole capacity still passes when
 * the queue is empty, so nothing can wait forever. Capacity 0 = unbounded
 * (the worker's queue: its producers must never block on it).
 *
 * Ops are intrusive: embed rsql_qop_t as the FIRST member of your struct and
 * cast back. The queue never allocates and never frees an op except in
 * rsql_queue_destroy (free_cb for the ops left in it).
 *
 * Closing: rsql_queue_close refuses further pushes (they return
 * RSQL_ERR_INTERRUPTED, the op stays the caller's) and wakes everyone;
 * consumers still pop what is queued, then get RSQL_ERR_INTERRUPTED.
 */
#ifndef RSQL_QUEUE_H
#define RSQL_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_error.h"

typedef struct rsql_qop {
    struct rsql_qop *next; /* owned by the queue while queued */
    int type;             /* the user's op code */
    int64_t weight;       /* capacity units (e.g. records); 0 = free */
} rsql_qop_t;

typedef struct rsql_queue rsql_queue_t;

/* A new empty queue holding up to capacity weight (0 = unbounded); NULL on OOM. */
rsql_queue_t *rsql_queue_new(int64_t capacity);

/*
** Make q a queue between stage threads (fewer wake-ups; the capacity bound is unchanged):
** - hysteresis for pushers: a pusher waiting for room is woken only when a pop leaves the
**   weight at or below low (or the queue empty), not whenever some room frees up (default
**   low = capacity);
** - a push or pop wakes the other side after unlocking, so the woken thread does not block
**   on the lock at once. Only for a queue whose every pusher and popper has returned
**   before rsql_queue_destroy (threads joined first); not for a queue that other threads
**   post to at any time.
** Call before any thread uses q.
*/
void rsql_queue_set_stage(rsql_queue_t *q, int64_t low);

/* Free q; every op still queued is passed to free_cb (may be NULL). NULL-safe. */
void rsql_queue_destroy(rsql_queue_t *q, void (*free_cb)(rsql_qop_t *op));

/*
** Append op at the tail, waiting while the queue is too full. RSQL_OK: the
** queue owns op until it is popped. RSQL_ERR_INTERRUPTED: the queue is (or
** got) closed; op is still the caller's.
** @locality any thread
*/
rsql_err_t rsql_queue_push(rsql_queue_t *q, rsql_qop_t *op);

/*
** Append the ops linked from head through their next pointers (the last one's next NULL),
** in order, as rsql_queue_push would one by one, but under one lock and with one wake-up of
** the other side (a stage hands on several batches at once). Their weights count together:
** the push waits until all of them fit (or the queue is empty). Same return as
** rsql_queue_push; on RSQL_ERR_INTERRUPTED none was queued.
** @locality any thread
*/
rsql_err_t rsql_queue_push_list(rsql_queue_t *q, rsql_qop_t *head);

/*
** Put op at the HEAD without waiting or counting against the capacity
** (retries, control messages). Same return as rsql_queue_push.
*/
rsql_err_t rsql_queue_push_urgent(rsql_queue_t *q, rsql_qop_t *op);

/*
** Take the op at the head, waiting up to timeout_ms (< 0 = forever, 0 = do
** not wait). RSQL_OK with *out set (the caller owns it), RSQL_ERR_TIMEOUT
** when nothing came, RSQL_ERR_INTERRUPTED when the queue is closed and
** empty.
** @locality any thread
*/
rsql_err_t rsql_queue_pop(rsql_queue_t *q, int timeout_ms, rsql_qop_t **out);

/* Refuse further pushes and wake every waiter. Idempotent. */
void rsql_queue_close(rsql_queue_t *q);

/* Snapshot of the number of ops and of their total weight. */
int64_t rsql_queue_len(rsql_queue_t *q);
int64_t rsql_queue_weight(rsql_queue_t *q);

#endif
