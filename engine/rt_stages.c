/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Two of the pipeline's three stage threads (the poll thread is rt_poll.c): transform
 * (decode, filter, projection, encode) and write (the sink's write and flush). Each loops on
 * its input queue and posts to the next queue or, for outcomes and failures, to the worker
 * queue; none of them resolves a record's outcome or touches the offset tracker (that is
 * rt_outcomes.c, on the worker).
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IDLE_FLUSH_MS 50 /* the write thread flushes after this long without work */
#define FLUSH_TIMEOUT_MS 30000

/* ---- transform thread */

/* Ops a stage hands on together (rsql_queue_push_list): a singly linked list with its tail. */
typedef struct op_list {
    rsql_qop_t *head, **tail;
} op_list_t;

static void op_list_init(op_list_t *l)
{
    l->head = NULL;
    l->tail = &l->head;
}

static void op_list_add(op_list_t *l, rsql_qop_t *op)
{
    op->next = NULL;
    *l->tail = op;
    l->tail = &op->next;
}

static void hold_outcomes(op_list_t *l, rt_outcomes_op_t *oo)
{
    if (oo->n == 0) {
        rsql_free(oo);
        return;
    }
    oo->op.type = RT_OP_OUTCOMES;
    op_list_add(l, &oo->op);
}

/*
** The transform thread hands on the batches it transformed together, up to this many: as
** long as the next batch is already waiting in q1 it goes on, so the worker and the write
** thread wake once per group, not twice per batch; it never waits while it holds any (the
** records in flight stay bounded by the poll thread's credit).
*/
#define XFORM_HAND_ON_MAX 4

/* Append a kept row (record index i of the batch) to wb, growing it when full; false when out
   of memory (wb unchanged). */
static inline bool wb_add(rt_wbatch_t *wb, const rsql_value_t *out, const rsql_record_t *rec,
                          uint8_t kind, int i)
{
    if (wb->n == wb->cap && rsql_pipeline__wbatch_reserve(wb, wb->n + 1) != RSQL_OK) {
        return false;
    }
    rsql_sink_row_t *r = &wb->rows[wb->n];
    r->values = out;
    r->rec = rec;
    r->partition_name = NULL; /* set by the write thread */
    r->kind = kind;
    wb->idx[wb->n++] = i;
    return true;
}

/*
** Hand on what is held: the outcomes ride with the first write batch (the write thread hands
** them to the worker before that batch's report, so the worker wakes once per group), or go to
** the worker at once when no row is written; after this, those batches are not touched here.
*/
static void hand_on(rsql_pipeline_t *p, op_list_t *outs, op_list_t *rows)
{
    if (rows->head) {
        ((rt_wbatch_t *)rows->head)->outcomes = outs->head;
    } else if (outs->head) {
        rsql_queue_push_list(p->wq, outs->head); /* wq is never closed: cannot fail */
    }
    if (rows->head && rsql_queue_push_list(p->q2, rows->head) != RSQL_OK) {
        /* cannot happen: q2 closes only after every record has an outcome */
        abort();
    }
    op_list_init(outs);
    op_list_init(rows);
}

/* Out of memory on the transform thread: the run fails. */
static void fail_nomem(rsql_pipeline_t *p)
{
    rsql_error_t f;
    rsql_error_clear(&f);
    rsql_error_nomem(&f);
    rsql_pipeline__fail(p, &f, false);
}

/*
** Seal the state (conf.state_seal) between two batches: when it wants one and no tick of this
** thread is in flight (a seal after a tick waits for the tick's delivery before it goes to
** disk; most seals need not), or now (force). False when the run failed (out of memory).
*/
static bool seal(rsql_pipeline_t *p, bool force)
{
    if (!p->conf.state_seal) {
        return true;
    }
    uint64_t made = atomic_load(&p->ticks_made);
    if (!force && made != atomic_load(&p->ticks_done)) {
        return true;
    }
    bool sealed = false;
    if (p->conf.state_seal(p->conf.state_opaque, force, made, &sealed) != RSQL_OK) {
        fail_nomem(p);
        return false;
    }
    if (sealed) {
        rsql_pipeline__checkpoint_soon(p); /* saved once its records are delivered */
    }
    return true;
}

/*
** The state holds as many unsaved changes as it may (conf.state_full), and this thread holds
** no rows: ask the worker for a checkpoint as soon as positions can be saved, and wait for
** commits until there is room again, or until the time a checkpoint may take (two flush
** intervals and a second) passed without one: the state then goes on past its bound until the
** next one commits.
*/
static void wait_for_checkpoint(rsql_pipeline_t *p)
{
    if (!seal(p, true)) {
        return;
    }
    int64_t until = rsql_now_ms() + 2 * p->conf.flush_interval_ms + 1000;
    do {
        rsql_pipeline__checkpoint_soon(p);
    } while (!p->conf.state_wait(p->conf.state_opaque, until) && rsql_now_ms() < until &&
             !atomic_load(&p->aborting));
}

/*
** A record of the transform's own (RSQL_REC_TICK) in a batch of one, for the rows a stage
** gives when the clock reaches conf.transform_due: its row all NULL, the lane and offset of
** last (the record transformed last), unregistered, counted in flight like a polled batch
** (its outcome comes back the same way). NULL when out of memory.
*/
static rt_inbatch_t *tick_new(rsql_pipeline_t *p, const rsql_record_t *last, uint64_t seq)
{
    rt_inbatch_t *ib = rsql_pipeline__inbatch_new(1);
    rsql_record_t *rec = ib ? rsql_batch_add(ib->b) : NULL;
    int width = p->conf.src_ctx.n_columns > 0 ? p->conf.src_ctx.n_columns : 1;
    rsql_value_t *row = rec ? rsql_arena_alloc(ib->b->arena, sizeof *row * (size_t)width)
                            : NULL;
    if (!row) {
        rsql_pipeline__free_inbatch(ib);
        return NULL;
    }
    for (int i = 0; i < width; i++) {
        row[i] = (rsql_value_t){.is_null = true};
    }
    rec->row = row;
    rec->flags = RSQL_REC_TICK;
    rec->partition = last->partition;
    rec->offset = last->offset;
    rec->seq = seq;
    ib->pending = 1;
    ib->poll_us = rsql_now_ns() / 1000;
    ib->op.weight = 1;
    atomic_fetch_add(&p->ticks_made, 1);
    pthread_mutex_lock(&p->lock);
    p->in_flight += 1;
    p->live++;
    pthread_mutex_unlock(&p->lock);
    return ib;
}

/* How long the transform thread may wait for a batch: until the time conf.transform_due
   says (ms, at least 0) when it may make a tick, or forever (-1). */
static int transform_wait_ms(rsql_pipeline_t *p, bool may_tick)
{
    int64_t due = may_tick && p->conf.transform_due ? p->conf.transform_due(p->conf.due_opaque)
                                                    : INT64_MAX;
    if (due == INT64_MAX) {
        return -1;
    }
    int64_t wait = due - rsql_wall_ms();
    return wait <= 0 ? 0 : wait > INT32_MAX ? INT32_MAX : (int)wait;
}

void *rsql_pipeline__transform_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    rsql_pipeline__log_context(p);
    int64_t kept_total = 0;
    rsql_qop_t *op;
    op_list_t outs, rows;
    int held = 0;
    op_list_init(&outs);
    op_list_init(&rows);
    /* batches taken from q1 ahead of the one transformed (conf.transform_prefetch), oldest
       first, each prefetched; at most conf.transform_ahead with the one transformed */
    op_list_t ahead;
    int n_ahead = 0;
    op_list_init(&ahead);
    bool prefetching = p->conf.transform_prefetch && p->conf.transform_ahead > 1;
    /* the record transformed last (a tick takes its lane and offset), and the ticks' seq:
       from the top down, never one the poll thread gives */
    rsql_record_t last = {0};
    bool seen = false;
    uint64_t tick_seq = UINT64_MAX;
    /* the input's last record (RSQL_REC_LAST) failed before the statement saw it (a body its
       format refused, under errors.tolerance 'all'): a tick marked last ends the input in
       its place, so that the windows still open are given */
    bool end_due = false;
    int lanes_told = 0; /* conf.transform_lanes was told this many */
    for (;;) {
        op = NULL;
        rsql_err_t prc;
        /* a tick only after a record of the run, not while aborting nor past a LIMIT (its
           rows would not go out, and the window would stay due) */
        bool may_tick = seen && !atomic_load(&p->aborting) &&
                        (p->conf.limit < 0 || kept_total < p->conf.limit);
        if (end_due && may_tick) {
            end_due = false;
            rt_inbatch_t *tick = tick_new(p, &last, tick_seq--);
            if (!tick) {
                fail_nomem(p);
                break;
            }
            tick->b->recs[0].flags |= RSQL_REC_LAST;
            op = &tick->op;
        } else if (n_ahead > 0) {
            op = ahead.head;
            ahead.head = op->next;
            if (!ahead.head) {
                ahead.tail = &ahead.head;
            }
            n_ahead--;
            op->next = NULL;
        } else {
            int wait = held ? 0 : transform_wait_ms(p, may_tick);
            /* with a state, a quiet input still has its changes sealed every flush interval
               (the worker asks for it), so that their positions are saved while it waits */
            bool sealing = !held && p->conf.state_seal &&
                           (wait < 0 || (int64_t)wait > p->conf.flush_interval_ms);
            if (sealing) {
                wait = (int)p->conf.flush_interval_ms;
            }
            if ((prc = rsql_queue_pop(p->q1, wait, &op)) != RSQL_OK) {
                op = NULL;
                if (!held && prc == RSQL_ERR_TIMEOUT && sealing) {
                    if (!seal(p, false)) {
                        break;
                    }
                } else if (!held && prc == RSQL_ERR_TIMEOUT) {
                    /* the time a stage waited for came with no batch: a tick carries its rows */
                    rt_inbatch_t *tick = tick_new(p, &last, tick_seq--);
                    if (!tick) {
                        fail_nomem(p);
                        break;
                    }
                    op = &tick->op;
                } else if (!held) {
                    break;
                }
            } else if (prefetching) {
                p->conf.transform_prefetch(p->conf.transform_opaque, ((rt_inbatch_t *)op)->b);
            }
        }
        /* the batches already waiting behind it: their work starts now */
        rsql_qop_t *next;
        while (op && prefetching && n_ahead + 1 < p->conf.transform_ahead &&
               !atomic_load(&p->aborting) && rsql_queue_pop(p->q1, 0, &next) == RSQL_OK) {
            p->conf.transform_prefetch(p->conf.transform_opaque, ((rt_inbatch_t *)next)->b);
            op_list_add(&ahead, next);
            n_ahead++;
        }
        if (!op || held >= XFORM_HAND_ON_MAX) {
            hand_on(p, &outs, &rows);
            held = 0;
            if (!op) {
                continue;
            }
        }
        if (p->conf.state_full && p->conf.state_full(p->conf.state_opaque)) {
            /* the state's unsaved changes reached its bound: what is held goes on first */
            hand_on(p, &outs, &rows);
            held = 0;
            wait_for_checkpoint(p);
        }
        held++;
        rt_inbatch_t *ib = (rt_inbatch_t *)op;
        int n = ib->b->n;
        if (p->conf.transform_lanes && p->conf.src_ops->partition_count) {
            int nl = p->conf.src_ops->partition_count(p->src); /* lanes only join */
            if (nl > lanes_told) {
                lanes_told = nl;
                if (p->conf.transform_lanes(p->conf.due_opaque, (uint32_t)nl) != RSQL_OK) {
                    fail_nomem(p);
                }
            }
        }
        /* allocated ahead by the poll thread (rsql_pipeline__inbatch_new): no memory is
           needed here to hand the records on or to report their outcomes */
        rt_outcomes_op_t *oo = ib->oo;
        rt_wbatch_t *wb = ib->wb;
        ib->oo = NULL;
        ib->wb = NULL;
        for (int i = 0; i < n; i++) {
            rsql_record_t *rec = &ib->b->recs[i];
            if (!(rec->flags & RSQL_REC_TICK)) {
                last.partition = rec->partition;
                last.offset = rec->offset;
                seen = true;
            }
            if (atomic_load(&p->aborting)) {
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_ABORTED, NULL, NULL, false};
                continue;
            }
            if (p->conf.state_seen && !(rec->flags & RSQL_REC_TICK) &&
                p->conf.state_seen(p->conf.state_opaque, rec) != RSQL_OK) {
                /* cannot note its position: the record is aborted and the run fails */
                rsql_error_t f;
                rsql_error_clear(&f);
                rsql_error_nomem(&f);
                rsql_pipeline__fail(p, &f, false);
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_ABORTED, NULL, NULL, false};
                continue;
            }
            if (p->conf.limit >= 0 && kept_total >= p->conf.limit) {
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_PAST_LIMIT, NULL, NULL, false};
                continue;
            }
            const char *stage = "eval";
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_err_t rc;
            const rsql_value_t *out = NULL;
            bool keep = true;
            int first = wb->n, kept = 0;
            rsql_error_t *late = NULL; /* RSQL_REC_LATE: why, for its dead letter (owned) */
            if (!rec->error) {
                rc = p->conf.transform(p->conf.transform_opaque, ib->b, rec, 0, &out, &keep,
                                       &stage, &e);
                if (rc == RSQL_OK && (rec->flags & RSQL_REC_LATE)) {
                    /* a window found it late: the transform says why in e */
                    if ((late = rsql_malloc(sizeof *late))) {
                        *late = e;
                        rsql_error_clear(&e);
                    } else {
                        stage = "eval";
                        rc = rsql_error_nomem(&e);
                    }
                }
                if (rc == RSQL_OK && rec->n_rows <= 1) {
                    /* one row (most records), or none (n_rows < 0: done as filtered) */
                    if (!keep || rec->n_rows < 0) {
                        if (!late) {
                            oo->items[oo->n++] =
                                (rt_item_t){i, RT_ITEM_FILTERED, NULL, NULL, false};
                            continue;
                        }
                    } else if (wb_add(wb, out, rec, rec->kind, i)) {
                        if (!late) {
                            if (p->conf.limit >= 0 && ++kept_total >= p->conf.limit) {
                                atomic_store(&p->limit_reached, true);
                                rsql_pipeline_stop(p);
                            }
                            continue;
                        }
                        kept = 1;
                    } else {
                        stage = "eval";
                        rc = rsql_error_nomem(&e);
                    }
                } else if (rc == RSQL_OK) {
                    /* a record of several rows: each in turn; the rows kept go to wb from
                       first on, and are taken back if a later row of the record fails */
                    for (int k = 0;;) {
                        if (keep) {
                            if (!wb_add(wb, out, rec, rec->kinds[k], i)) {
                                stage = "eval";
                                rc = rsql_error_nomem(&e);
                                break;
                            }
                            kept++;
                        }
                        if (++k >= rec->n_rows) {
                            break;
                        }
                        keep = true;
                        rc = p->conf.transform(p->conf.transform_opaque, ib->b, rec, k, &out,
                                               &keep, &stage, &e);
                        if (rc != RSQL_OK) {
                            break;
                        }
                    }
                }
            } else {
                /* the source could not make it a row: a decode failure of this record */
                stage = "decode";
                e = *rec->error;
                if (!e.code) {
                    e.code = RSQL_ERR_DECODE;
                }
                rc = e.code;
            }
            if (rc != RSQL_OK) {
                wb->n = first; /* none of its rows travels on */
                rsql_free(late); /* its failure is its outcome */
                if (!e.code) {
                    e.code = rc;
                }
                rsql_error_t *copy = rsql_malloc(sizeof(rsql_error_t));
                if (copy) {
                    *copy = e;
                } else {
                    /* no room for the message: the record is aborted and the run fails */
                    rsql_error_t f;
                    rsql_error_clear(&f);
                    rsql_error_nomem(&f);
                    rsql_pipeline__fail(p, &f, false);
                }
                oo->items[oo->n++] =
                    (rt_item_t){i, copy ? RT_ITEM_ERROR : RT_ITEM_ABORTED, stage, copy, false};
                end_due = end_due || (rec->flags & (RSQL_REC_LAST | RSQL_REC_TICK)) ==
                                         RSQL_REC_LAST;
                if (!p->conf.tolerate_all || e.code == RSQL_ERR_NOMEM) {
                    /* stop at once: nothing after a failure travels on */
                    rsql_error_t f;
                    rsql_error_clear(&f);
                    char wbuf[512];
                    rsql_error_set(&f, e.code ? e.code : rc, RSQL_NOPOS, "%s error at %s: %s%s",
                                   stage, rsql_pipeline__where(p, rec, wbuf, sizeof wbuf),
                                   e.msg,
                                   strcmp(stage, "decode") == 0 ? RSQL_PIPELINE_TOLERANCE_HINT
                                                                : "");
                    rsql_pipeline__fail(p, &f, false);
                }
                continue;
            }
            if (kept == 0 && !late) {
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_FILTERED, NULL, NULL, false};
                continue;
            }
            if (kept + (late && kept > 0) > 1) {
                /* its rows, and its dead letter when it is late, each count as one */
                if (!ib->rows_left && !(ib->rows_left = rsql_calloc((size_t)ib->cap, sizeof(int)))) {
                    /* cannot count its rows: the record is aborted and the run fails */
                    wb->n = first;
                    rsql_error_t f;
                    rsql_error_clear(&f);
                    rsql_error_nomem(&f);
                    rsql_pipeline__fail(p, &f, false);
                    oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_ABORTED, NULL, NULL, false};
                    rsql_free(late);
                    continue;
                }
                ib->rows_left[i] = kept + (late && kept > 0);
            }
            if (late) {
                /* to the dead-letter table (stage late), not a failure: the run goes on */
                oo->items[oo->n++] = (rt_item_t){i, RT_ITEM_LATE, "late", late, kept > 0};
            }
            kept_total += kept;
            if (p->conf.limit >= 0 && kept_total >= p->conf.limit) {
                atomic_store(&p->limit_reached, true);
                rsql_pipeline_stop(p);
            }
        }
        seal(p, false); /* between two batches: a seal's records are whole */
        /* held, handed on above */
        hold_outcomes(&outs, oo);
        if (wb->n > 0) {
            wb->op.weight = wb->n;
            op_list_add(&rows, &wb->op);
        } else {
            rsql_pipeline__free_wbatch(wb);
        }
    }
    seal(p, true); /* every record seen: the last checkpoint can save where it ended */
    atomic_store(&p->xform_done, true);
    return NULL;
}

/* ---- write thread */

_Thread_local rsql_pipeline_t *rsql_pipeline__write_thread_of;

/*
** The write thread holds the delivery reports its sink makes on it (a sink that reports within
** write or flush) and hands them to the worker in one push: when this many are held, and
** before anything that may wait (an empty q2, a flush, a retry's sleep, a failure report, the
** end). So they wait at most for the writes already queued behind them.
*/
#define WRITE_HOLD_MAX 4

static void hand_on_deliveries(rsql_pipeline_t *p)
{
    if (p->held_head) {
        rsql_queue_push_list(p->wq, p->held_head); /* wq is never closed: cannot fail */
    }
    p->held_head = NULL;
    p->held_tail = &p->held_head;
    p->held_n = 0;
}

static void post_write_failed(rsql_pipeline_t *p, rt_wbatch_t *wb, bool aborted,
                              const rsql_error_t *e)
{
    hand_on_deliveries(p); /* the reports made before it go first */
    rt_write_failed_op_t *f = &wb->failed; /* lives in the batch: no allocation */
    memset(&f->op, 0, sizeof f->op);
    f->op.type = RT_OP_WRITE_FAILED;
    f->wb = wb;
    f->aborted = aborted;
    rsql_error_clear(&f->err);
    if (e) {
        f->err = *e;
    }
    rsql_queue_push(p->wq, &f->op);
}

/*
** The rows the sink holds for the end of their source transaction, for the poll thread's
** credit (pipeline_int.h), woken when they make room.
*/
static void note_waiting(rsql_pipeline_t *p)
{
    int64_t w = p->conf.snk_ops->waiting(p->snk);
    if (w == p->sink_waiting) { /* written by this thread only: no lock to read it */
        return;
    }
    pthread_mutex_lock(&p->lock);
    bool more = w > p->sink_waiting;
    p->sink_waiting = w;
    if (more && p->credit_waiting && rsql_pipeline__credit_back(p)) {
        pthread_cond_broadcast(&p->credit_cv);
    }
    pthread_mutex_unlock(&p->lock);
}

/*
** Nothing more comes to the sink (the transform thread ended, q2 is empty): the rows it holds
** for a source transaction that did not end in this run are reported not written
** (rsql_sink_ops_t.release), so the run can end; the next run reads them again.
*/
static void release_waiting(rsql_pipeline_t *p)
{
    int64_t n = p->conf.snk_ops->release(p->snk);
    if (n > 0) {
        rsql_log(RSQL_LOG_INFO, "pipeline",
                 "%lld rows of a source transaction that had not ended when the run stopped: "
                 "not written, not acknowledged (the next run reads them again)",
                 (long long)n);
    }
    hand_on_deliveries(p);
}

static void do_flush(rsql_pipeline_t *p)
{
    if (!p->conf.snk_ops->flush) {
        return;
    }
    hand_on_deliveries(p); /* a flush may wait */
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = p->conf.snk_ops->flush(p->snk, FLUSH_TIMEOUT_MS, &e);
    if (rc != RSQL_OK && !e.code) {
        rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
    }
    if (rc == RSQL_OK) {
        p->flush_retry.attempts = 0;
        return;
    }
    if (rc == RSQL_ERR_TIMEOUT) {
        /* not failed, not finished: the sink still works on the rows, each of which it ends
           by its own policy (a send's attempts, say); waited for again at the next flush,
           with no deadline of ours */
        p->flush_retry.attempts = 0;
        rsql_log(RSQL_LOG_DEBUG, "pipeline", "sink flush: not finished yet: %s", e.msg);
        return;
    }
    if (rsql_error_retriable(&e)) {
        /* tried again at the next flush, within errors.retry.timeout of the first failure;
           past it (or with a timeout of 0) the run fails, as a failed write's does */
        int64_t now = rsql_now_ms();
        if (p->flush_retry.attempts == 0) { /* the first failure in a row */
            rsql_retry_init(&p->flush_retry, p->conf.retry_timeout_ms,
                            p->conf.retry_backoff_max_ms, now);
        }
        if (rsql_retry_next(&p->flush_retry, now) >= 0) {
            rsql_pipeline__retrying(p, "sink flush", &e, IDLE_FLUSH_MS, p->flush_retry.attempts);
            return;
        }
    }
    rsql_error_t f;
    rsql_error_clear(&f);
    rsql_error_set(&f, rc, RSQL_NOPOS, "sink error: flush failed: %s", e.msg);
    rsql_pipeline__fail(p, &f, true);
}

/*
** The last flush, when the writing ends with rows unreported (rows a sink still holds, e.g. at
** an interrupt): a transient failure is tried again per errors.retry.* (the rows are reported,
** and so acknowledged, only once they are durable); one that stays is logged with its error
** ("sink flush failed (...)") and the rows stay unreported: never acknowledged, a later run
** reads them again. A permanent failure fails the run, as any flush's does. Unlike do_flush,
** a flush that is only not finished yet (TIMEOUT) draws on the same budget here: the run is
** ending, and its rows are safe unreported.
*/
static void final_flush(rsql_pipeline_t *p)
{
    if (!p->conf.snk_ops->flush) {
        return;
    }
    rsql_retry_t retry;
    bool has_retry = false;
    for (;;) {
        hand_on_deliveries(p); /* a flush may wait */
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_err_t rc = p->conf.snk_ops->flush(p->snk, FLUSH_TIMEOUT_MS, &e);
        if (rc == RSQL_OK) {
            return;
        }
        if (!e.code) {
            rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
        }
        int64_t now = rsql_now_ms(), wait = -1;
        bool transient = rsql_error_retriable(&e);
        if (transient && !atomic_load(&p->aborting)) {
            if (!has_retry) {
                rsql_retry_init(&retry, p->conf.retry_timeout_ms, p->conf.retry_backoff_max_ms,
                                now);
                has_retry = true;
            }
            wait = rsql_retry_next(&retry, now);
        }
        if (wait >= 0) {
            rsql_pipeline__retrying(p, "sink flush", &e, wait, retry.attempts);
            rsql_pipeline__sleep_interruptible(p, wait, false);
            continue;
        }
        hand_on_deliveries(p);
        rsql_log(RSQL_LOG_ERROR, "pipeline",
                 "sink flush failed (%lld rows not written, not acknowledged: read again by the "
                 "next run): %s",
                 (long long)atomic_load(&p->unreported), e.msg);
        if (!transient) {
            rsql_error_t f;
            rsql_error_clear(&f);
            rsql_error_set(&f, rc, RSQL_NOPOS, "sink error: flush failed: %s", e.msg);
            rsql_pipeline__fail(p, &f, true);
        }
        return;
    }
}

void *rsql_pipeline__write_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    rsql_pipeline__log_context(p);
    const rsql_sink_ops_t *ops = p->conf.snk_ops;
    int64_t last_flush = rsql_now_ms();
    p->held_head = NULL;
    p->held_tail = &p->held_head;
    p->held_n = 0;
    bool released = false; /* release_waiting was called */
    rsql_pipeline__write_thread_of = p;
    for (;;) {
        rsql_qop_t *op;
        rsql_err_t prc = rsql_queue_pop(p->q2, 0, &op);
        if (prc != RSQL_OK) {
            hand_on_deliveries(p); /* before waiting for rows */
            if (prc == RSQL_ERR_TIMEOUT) {
                int64_t unrep = atomic_load(&p->unreported);
                prc = rsql_queue_pop(p->q2, unrep > 0 ? IDLE_FLUSH_MS : 500, &op);
            }
        }
        if (prc == RSQL_ERR_INTERRUPTED) {
            break;
        }
        int64_t now = rsql_now_ms();
        if (prc == RSQL_ERR_TIMEOUT) {
            if (atomic_load(&p->unreported) > 0) {
                do_flush(p);
                last_flush = now;
                if (ops->waiting) {
                    note_waiting(p);
                }
                if (ops->release && !released && atomic_load(&p->xform_done) &&
                    rsql_queue_len(p->q2) == 0) {
                    released = true;
                    release_waiting(p);
                }
            }
            continue;
        }
        rt_wbatch_t *wb = (rt_wbatch_t *)op;
        if (wb->outcomes) {
            /* the transform's outcomes of its group: held like the reports, so they reach
               the worker before this batch's report and never wait behind anything that
               waits (every wait above and below hands on first) */
            rsql_qop_t *o = wb->outcomes;
            wb->outcomes = NULL;
            *p->held_tail = o;
            for (; o; o = o->next) {
                p->held_tail = &o->next; /* not counted in held_n: they ride with reports */
            }
            if (!p->reports_inline) {
                hand_on_deliveries(p); /* the sink reports elsewhere: nothing to ride with */
            }
        }
        if (atomic_load(&p->abort_sink)) {
            post_write_failed(p, wb, true, NULL);
            continue;
        }
        if (wb->not_before_ms > now) {
            hand_on_deliveries(p);
            rsql_pipeline__sleep_interruptible(p, wb->not_before_ms - now, false);
            if (atomic_load(&p->abort_sink)) {
                post_write_failed(p, wb, true, NULL);
                continue;
            }
        }
        for (int i = 0; i < wb->n; i++) {
            wb->rows[i].partition_name = NULL;
        }
        /* partition names: the source's, read here (sinks storing positions need them) */
        if (p->conf.src_ops->partition_name) {
            for (int i = 0; i < wb->n; i++) {
                wb->rows[i].partition_name =
                    p->conf.src_ops->partition_name(p->src, wb->rows[i].rec->partition);
            }
        }
        /* the batch's retry state: one errors.retry.timeout window for its rows, whether
           write refuses them or their delivery fails (rt_outcomes.c goes on with it) */
        bool first = !wb->has_retry;
        for (;;) {
            rsql_error_t e;
            rsql_error_clear(&e);
            int n = wb->n;
            atomic_fetch_add(&p->unreported, n);
            wb->write_us = rsql_now_ns() / 1000;
            int held_before = p->held_n;
            rsql_err_t rc = ops->write(p->snk, (uint64_t)(uintptr_t)wb, n, wb->rows, &e);
            if (rc == RSQL_OK) {
                /* did the sink report within write (held here: blackhole, filesystem)? */
                p->reports_inline = p->held_n > held_before;
                if (!first && p->conf.stats) {
                    atomic_store(&p->conf.stats->sink_down, false);
                }
                break; /* wb now belongs to the sink until its delivery */
            }
            atomic_fetch_sub(&p->unreported, n);
            if (!e.code) {
                rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
            }
            now = rsql_now_ms();
            int64_t wait = -1;
            if (rsql_error_retriable(&e) && !atomic_load(&p->abort_sink)) {
                if (!wb->has_retry) {
                    rsql_retry_init(&wb->retry, p->conf.retry_timeout_ms,
                                    p->conf.retry_backoff_max_ms, now);
                    wb->has_retry = true;
                }
                first = false;
                wait = rsql_retry_next(&wb->retry, now);
            }
            if (wait < 0) {
                post_write_failed(p, wb, atomic_load(&p->abort_sink), &e);
                break;
            }
            if (p->conf.stats) {
                atomic_store(&p->conf.stats->sink_down, true);
            }
            rsql_pipeline__retrying(p, "sink write", &e, wait, wb->retry.attempts);
            hand_on_deliveries(p);
            rsql_pipeline__sleep_interruptible(p, wait, false);
        }
        if (p->held_n >= WRITE_HOLD_MAX) {
            hand_on_deliveries(p);
        }
        now = rsql_now_ms();
        if (atomic_load(&p->unreported) >= p->conf.flush_rows ||
            now - last_flush >= p->conf.flush_interval_ms) {
            do_flush(p);
            last_flush = now;
        }
        if (ops->waiting) {
            note_waiting(p);
        }
    }
    if (atomic_load(&p->unreported) > 0) {
        final_flush(p);
    }
    hand_on_deliveries(p);
    rsql_pipeline__write_thread_of = NULL;
    return NULL;
}
