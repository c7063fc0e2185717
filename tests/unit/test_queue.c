/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the runtime's building blocks: the op queue (FIFO, timeouts,
 * back-pressure), the offset tracker (commits never past an unknown
 * outcome, per lane) and the retry backoff. Whole pipelines are tested in
 * test_runtime.c.
 */
#include "config.h"
#include "engine/rsql_pipeline.h"
#include "engine/rsql_queue.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- queue */

typedef struct tq_op {
    rsql_qop_t op;
    int v;
} tq_op_t;

static void test_queue_fifo_and_timeout(void)
{
    rsql_queue_t *q = rsql_queue_new(0);
    tq_op_t a = {{0}, 1}, b = {{0}, 2}, c = {{0}, 3};
    CU_ASSERT_EQUAL(rsql_queue_push(q, &a.op), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_push(q, &b.op), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_push_urgent(q, &c.op), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_len(q), 3);
    rsql_qop_t *op;
    int order[3];
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK);
        order[i] = ((tq_op_t *)op)->v;
    }
    CU_ASSERT_EQUAL(order[0], 3);
    CU_ASSERT_EQUAL(order[1], 1);
    CU_ASSERT_EQUAL(order[2], 2);
    int64_t t0 = rsql_now_ms();
    CU_ASSERT_EQUAL(rsql_queue_pop(q, 50, &op), RSQL_ERR_TIMEOUT);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT(rsql_now_ms() - t0 >= 45);
    rsql_queue_close(q);
    CU_ASSERT_EQUAL(rsql_queue_push(q, &a.op), RSQL_ERR_INTERRUPTED);
    CU_ASSERT_EQUAL(rsql_queue_pop(q, -1, &op), RSQL_ERR_INTERRUPTED);
    rsql_queue_destroy(q, NULL);
}

/* A thread pushing n ops; it says (under mu, on cv) before each push and after each one. */
typedef struct pusher {
    rsql_queue_t *q;
    tq_op_t *ops;
    int n;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int trying; /* pushes started */
    int pushed; /* pushes done */
    rsql_err_t last;
} pusher_t;

static void *pusher_main(void *arg)
{
    pusher_t *ps = arg;
    for (int i = 0; i < ps->n; i++) {
        pthread_mutex_lock(&ps->mu);
        ps->trying++;
        pthread_cond_broadcast(&ps->cv);
        pthread_mutex_unlock(&ps->mu);
        rsql_err_t rc = rsql_queue_push(ps->q, &ps->ops[i].op);
        pthread_mutex_lock(&ps->mu);
        ps->last = rc;
        ps->pushed += rc == RSQL_OK;
        pthread_cond_broadcast(&ps->cv);
        pthread_mutex_unlock(&ps->mu);
        if (rc != RSQL_OK) {
            break;
        }
    }
    return NULL;
}

/* Wait (an event, not a delay) until the pusher started `trying` pushes and finished `pushed`. */
static bool pusher_wait(pusher_t *ps, int trying, int pushed)
{
    int64_t dl = rsql_deadline_in(60000); /* a bug, not the machine, would take this long */
    pthread_mutex_lock(&ps->mu);
    while ((ps->trying < trying || ps->pushed < pushed) &&
           rsql_cond_wait_until(&ps->cv, &ps->mu, dl) == 0) {
    }
    bool ok = ps->trying >= trying && ps->pushed >= pushed;
    pthread_mutex_unlock(&ps->mu);
    return ok;
}

static void test_queue_backpressure(void)
{
    rsql_queue_t *q = rsql_queue_new(10);
    tq_op_t ops[4];
    for (int i = 0; i < 4; i++) {
        ops[i] = (tq_op_t){{NULL, 0, 4}, i};
    }
    pusher_t ps = {.q = q, .ops = ops, .n = 4, .last = RSQL_OK};
    pthread_mutex_init(&ps.mu, NULL);
    rsql_cond_init_monotonic(&ps.cv);
    pthread_t th;
    pthread_create(&th, NULL, pusher_main, &ps);
    /* 4 + 4 fit in 10; once the third push (weight 4) has started, it must not get in */
    CU_ASSERT_TRUE(pusher_wait(&ps, 3, 2));
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 8);
    pthread_mutex_lock(&ps.mu);
    CU_ASSERT_EQUAL(ps.pushed, 2);
    pthread_mutex_unlock(&ps.mu);
    /* a pop makes room: the third gets in (the event), the fourth must wait again */
    rsql_qop_t *op;
    CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK);
    CU_ASSERT_TRUE(pusher_wait(&ps, 4, 3));
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 8);
    /* closing wakes the blocked pusher (or refuses it), which keeps its op */
    rsql_queue_close(q);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(ps.last, RSQL_ERR_INTERRUPTED);
    CU_ASSERT_EQUAL(ps.pushed, 3);
    pthread_mutex_destroy(&ps.mu);
    pthread_cond_destroy(&ps.cv);
    /* what was queued still drains */
    int drained = 0;
    while (rsql_queue_pop(q, 0, &op) == RSQL_OK) {
        drained++;
    }
    CU_ASSERT_EQUAL(drained, 2);
    rsql_queue_destroy(q, NULL);

    /* an op heavier than the capacity passes an empty queue */
    q = rsql_queue_new(2);
    tq_op_t big = {{NULL, 0, 100}, 9};
    CU_ASSERT_EQUAL(rsql_queue_push(q, &big.op), RSQL_OK);
    rsql_queue_destroy(q, NULL);
}

/* With a low water mark, a pusher blocked on a full queue still gets in (no lost wake-up)
   once pops bring the weight down to the mark, and the capacity still bounds the weight. */
static void test_queue_low_water(void)
{
    rsql_queue_t *q = rsql_queue_new(4);
    rsql_queue_set_stage(q, 2);
    tq_op_t ops[6];
    for (int i = 0; i < 6; i++) {
        ops[i] = (tq_op_t){{NULL, 0, 1}, i};
    }
    pusher_t ps = {.q = q, .ops = ops, .n = 6, .last = RSQL_OK};
    pthread_mutex_init(&ps.mu, NULL);
    rsql_cond_init_monotonic(&ps.cv);
    pthread_t th;
    pthread_create(&th, NULL, pusher_main, &ps);
    CU_ASSERT_TRUE(pusher_wait(&ps, 5, 4)); /* four fit, the fifth waits */
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 4);
    rsql_qop_t *op;
    CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK);
    CU_ASSERT_EQUAL(((tq_op_t *)op)->v, 0);
    CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK); /* down to the mark: wakes it */
    CU_ASSERT_EQUAL(((tq_op_t *)op)->v, 1);
    CU_ASSERT_TRUE(pusher_wait(&ps, 6, 6));
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(ps.last, RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 4);
    for (int i = 2; i < 6; i++) { /* FIFO order kept */
        CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK);
        CU_ASSERT_EQUAL(((tq_op_t *)op)->v, i);
    }
    pthread_mutex_destroy(&ps.mu);
    pthread_cond_destroy(&ps.cv);
    rsql_queue_destroy(q, NULL);
}

/* A thread pushing one list (rsql_queue_push_list); it says (under mu, on cv) when done. */
typedef struct list_pusher {
    rsql_queue_t *q;
    rsql_qop_t *head;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    rsql_err_t rc;
} list_pusher_t;

static void *list_pusher_main(void *arg)
{
    list_pusher_t *lp = arg;
    rsql_err_t rc = rsql_queue_push_list(lp->q, lp->head);
    pthread_mutex_lock(&lp->mu);
    lp->rc = rc;
    lp->done = true;
    pthread_cond_broadcast(&lp->cv);
    pthread_mutex_unlock(&lp->mu);
    return NULL;
}

/* Several ops at once: in order after what is queued, weighed together against the capacity
   (waiting for room for all of them, no lost wake-up), refused whole once closed. */
static void test_queue_push_list(void)
{
    rsql_queue_t *q = rsql_queue_new(10);
    rsql_queue_set_stage(q, 5);
    tq_op_t ops[6];
    for (int i = 0; i < 6; i++) {
        ops[i] = (tq_op_t){{NULL, 0, 2}, i};
    }
    CU_ASSERT_EQUAL(rsql_queue_push_list(q, NULL), RSQL_OK); /* nothing: a no-op */
    CU_ASSERT_EQUAL(rsql_queue_push(q, &ops[0].op), RSQL_OK);
    ops[1].op.next = &ops[2].op; /* ops 1..3: weight 6, queued 2 + 6 = 8 */
    ops[2].op.next = &ops[3].op;
    CU_ASSERT_EQUAL(rsql_queue_push_list(q, &ops[1].op), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_len(q), 4);
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 8);
    /* ops 4..5 (weight 4) do not fit in 8 of 10 together: the push waits for both */
    ops[4].op.next = &ops[5].op;
    list_pusher_t lp = {.q = q, .head = &ops[4].op, .rc = RSQL_OK};
    pthread_mutex_init(&lp.mu, NULL);
    rsql_cond_init_monotonic(&lp.cv);
    pthread_t th;
    pthread_create(&th, NULL, list_pusher_main, &lp);
    rsql_qop_t *op;
    for (int i = 0; i < 2; i++) { /* down to 4 <= the low water mark: it gets in */
        CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK);
        CU_ASSERT_EQUAL(((tq_op_t *)op)->v, i);
    }
    int64_t dl = rsql_deadline_in(60000); /* a bug, not the machine, would take this long */
    pthread_mutex_lock(&lp.mu);
    while (!lp.done && rsql_cond_wait_until(&lp.cv, &lp.mu, dl) == 0) {
    }
    CU_ASSERT_TRUE(lp.done);
    pthread_mutex_unlock(&lp.mu);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(lp.rc, RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 8);
    for (int i = 2; i < 6; i++) { /* FIFO order kept */
        CU_ASSERT_EQUAL(rsql_queue_pop(q, 0, &op), RSQL_OK);
        CU_ASSERT_EQUAL(((tq_op_t *)op)->v, i);
    }
    /* a list heavier than the capacity passes an empty queue; a closed queue takes none */
    for (int i = 0; i < 6; i++) {
        ops[i].op.next = i < 5 ? &ops[i + 1].op : NULL;
    }
    CU_ASSERT_EQUAL(rsql_queue_push_list(q, &ops[0].op), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_queue_weight(q), 12);
    while (rsql_queue_pop(q, 0, &op) == RSQL_OK) {
    }
    rsql_queue_close(q);
    ops[0].op.next = &ops[1].op;
    ops[1].op.next = NULL;
    CU_ASSERT_EQUAL(rsql_queue_push_list(q, &ops[0].op), RSQL_ERR_INTERRUPTED);
    CU_ASSERT_EQUAL(rsql_queue_len(q), 0);
    pthread_mutex_destroy(&lp.mu);
    pthread_cond_destroy(&lp.cv);
    rsql_queue_destroy(q, NULL);
}

/* ---- offset tracker */

/*
** The positions that advanced since the last take, as the worker saves them: lane's offset,
** or -1 when that lane did not advance; *n gets how many lanes did.
*/
static int64_t taken(rsql_offtrack_t *t, uint32_t lane, int *n)
{
    uint32_t lanes[8];
    int64_t offs[8];
    int m = rsql_offtrack_take_dirty(t, lanes, offs, NULL, 8);
    int64_t pos = -1;
    for (int i = 0; i < m; i++) {
        if (lanes[i] == lane) {
            pos = offs[i];
        }
    }
    if (n) {
        *n = m;
    }
    return pos;
}

/* A position's text part goes with its offset: the last record popped gives both. */
static void test_offsets_keys(void)
{
    rsql_offtrack_t *t = rsql_offtrack_new();
    uint64_t k[4];
    const char *keys[4] = {"3:abc,", "1:b,", NULL, "2:dd,"};
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(rsql_offtrack_add(t, 1, i + 1, keys[i], &k[i]), RSQL_OK);
    }
    uint32_t lanes[4];
    int64_t offs[4];
    char *got[4];
    CU_ASSERT(!rsql_offtrack_done(t, 1, k[1])); /* 0 still open */
    CU_ASSERT(rsql_offtrack_done(t, 1, k[0]));  /* pops 0 and 1 */
    CU_ASSERT_EQUAL_FATAL(rsql_offtrack_take_dirty(t, lanes, offs, got, 4), 1);
    CU_ASSERT(lanes[0] == 1 && offs[0] == 2);
    CU_ASSERT_STRING_EQUAL(got[0], "1:b,");
    rsql_free(got[0]);
    CU_ASSERT(rsql_offtrack_done(t, 1, k[2])); /* a record without one: the position has none */
    CU_ASSERT_EQUAL_FATAL(rsql_offtrack_take_dirty(t, lanes, offs, got, 4), 1);
    CU_ASSERT(offs[0] == 3 && got[0] == NULL);
    rsql_offtrack_destroy(t); /* k[3] in flight: its key freed with the tracker */
}

static void test_offsets_in_order_and_out_of_order(void)
{
    rsql_offtrack_t *t = rsql_offtrack_new();
    uint64_t k[5];
    int n = -1;
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(rsql_offtrack_add(t, 0, (i + 1) * 10, NULL, &k[i]), RSQL_OK);
    }
    CU_ASSERT_EQUAL(taken(t, 0, &n), -1);
    CU_ASSERT_EQUAL(n, 0);
    /* record 2 and 3 finish first: nothing committable past record 1 */
    CU_ASSERT_FALSE(rsql_offtrack_done(t, 0, k[2]));
    CU_ASSERT_FALSE(rsql_offtrack_done(t, 0, k[1]));
    CU_ASSERT_EQUAL(taken(t, 0, &n), -1);
    CU_ASSERT_TRUE(rsql_offtrack_done(t, 0, k[0]));
    CU_ASSERT_EQUAL(taken(t, 0, &n), 30);
    CU_ASSERT_EQUAL(n, 1);
    /* completing twice is ignored */
    CU_ASSERT_FALSE(rsql_offtrack_done(t, 0, k[0]));
    CU_ASSERT_EQUAL(taken(t, 0, &n), -1);
    CU_ASSERT_EQUAL(n, 0);
    /* a save that failed puts the lane back */
    rsql_offtrack_mark_dirty(t, 0);
    CU_ASSERT_EQUAL(taken(t, 0, NULL), 30);
    CU_ASSERT_TRUE(rsql_offtrack_done(t, 0, k[3]));
    CU_ASSERT_TRUE(rsql_offtrack_done(t, 0, k[4]));
    CU_ASSERT_EQUAL(taken(t, 0, NULL), 50);
    rsql_offtrack_destroy(t);
}

static void test_offsets_failed_record_blocks_its_lane_only(void)
{
    rsql_offtrack_t *t = rsql_offtrack_new();
    uint64_t a[4], b[2];
    for (int i = 0; i < 4; i++) {
        rsql_offtrack_add(t, 1, 100 + i, NULL, &a[i]);
    }
    rsql_offtrack_add(t, 7, 5, NULL, &b[0]);
    rsql_offtrack_add(t, 7, 6, NULL, &b[1]);
    /* a[1] FAILED: never done. A tolerated failure (a[2], dead-lettered) is done. */
    rsql_offtrack_done(t, 1, a[0]);
    rsql_offtrack_done(t, 1, a[2]);
    rsql_offtrack_done(t, 1, a[3]);
    rsql_offtrack_done(t, 7, b[1]);
    rsql_offtrack_done(t, 7, b[0]);
    uint32_t lanes[8];
    int64_t offs[8];
    int n = rsql_offtrack_take_dirty(t, lanes, offs, NULL, 8);
    CU_ASSERT_EQUAL(n, 2); /* lanes 1 and 7, not 3 */
    for (int i = 0; i < n; i++) {
        CU_ASSERT(lanes[i] == 1 || lanes[i] == 7);
        /* lane 1 stops before the failed record */
        CU_ASSERT_EQUAL(offs[i], lanes[i] == 1 ? 100 : 6);
    }
    /* a ring that wraps and grows many times keeps its order */
    uint64_t tk[1000];
    for (int i = 0; i < 1000; i++) {
        rsql_offtrack_add(t, 2, i + 1, NULL, &tk[i]);
        if (i >= 10) {
            rsql_offtrack_done(t, 2, tk[i - 10]);
        }
    }
    CU_ASSERT_EQUAL(taken(t, 2, &n), 990);
    CU_ASSERT_EQUAL(n, 1);
    rsql_offtrack_destroy(t);
}

/* ---- retry */

static void test_retry_backoff(void)
{
    rsql_retry_t r;
    rsql_retry_init(&r, 2000, 500, 0);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 0), 100);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 100), 200);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 300), 400);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 700), 500); /* capped */
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 1200), 500);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 1700), 300); /* cut at the deadline */
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 2000), -1);
    CU_ASSERT_EQUAL(r.attempts, 6);
    rsql_retry_init(&r, 0, 500, 0);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 0), -1); /* timeout 0: no retries */
    rsql_retry_init(&r, 1000, 50, 0);
    CU_ASSERT_EQUAL(rsql_retry_next(&r, 0), 50); /* cap below the first step */
}

static CU_TestInfo queue_tests[] = {
    {"test_runtime_queue_fifo_and_timeout", test_queue_fifo_and_timeout},
    {"test_runtime_queue_backpressure", test_queue_backpressure},
    {"test_runtime_queue_low_water", test_queue_low_water},
    {"test_runtime_queue_push_list", test_queue_push_list},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo offsets_tests[] = {
    {"test_runtime_offsets_out_of_order", test_offsets_in_order_and_out_of_order},
    {"test_runtime_offsets_keys", test_offsets_keys},
    {"test_runtime_offsets_failed_blocks_lane", test_offsets_failed_record_blocks_its_lane_only},
    {"test_runtime_retry_backoff", test_retry_backoff},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"runtime_queue", NULL, NULL, NULL, NULL, queue_tests},
    {"runtime_offsets", NULL, NULL, NULL, NULL, offsets_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
