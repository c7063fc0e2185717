/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * A batch's life, in one place: its allocation ahead of the poll (the
 * records, tickets, outcomes op, write batch and delivery report, see
 * pipeline_int.h), the latency a delivery report observes, and freeing it
 * and its ops, whichever thread or queue holds them last. It decides no
 * outcome (rt_outcomes.c) and runs no stage (rt_stages.c).
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_time.h"

#include <stdlib.h>
#include <string.h>

/* A write batch for cap rows of ib, with room for its delivery report. NULL on OOM. */
static rt_wbatch_t *wbatch_new(rt_inbatch_t *ib, int cap)
{
    rt_wbatch_t *wb = rsql_calloc(1, sizeof(*wb));
    if (!wb) {
        return NULL;
    }
    wb->op.type = RT_OP_WRITE;
    wb->ib = ib;
    wb->cap = cap;
    /* rows and idx are written (up to n) before they are read: not zeroed */
    wb->rows = rsql_malloc((size_t)cap * sizeof(rsql_sink_row_t));
    wb->idx = rsql_malloc((size_t)cap * sizeof(int));
    /* the results (356 bytes a row) are written by the delivery callback before they are
       read: only the header is zeroed, not cap results per batch */
    wb->dop = rsql_malloc(sizeof(rt_delivery_op_t) + (size_t)cap * sizeof(rsql_sink_result_t));
    if (!wb->rows || !wb->idx || !wb->dop) {
        rsql_pipeline__free_wbatch(wb);
        return NULL;
    }
    memset(wb->dop, 0, sizeof(rt_delivery_op_t));
    return wb;
}

/*
** Make room in wb for at least need rows (a record of several rows: more rows than the
** records it was allocated for), with room for their delivery report. RSQL_OK or NOMEM (wb
** unchanged). @locality transform thread, before wb is handed on
*/
rsql_err_t rsql_pipeline__wbatch_reserve(rt_wbatch_t *wb, int need)
{
    if (need <= wb->cap) {
        return RSQL_OK;
    }
    int cap = wb->cap;
    while (cap < need) {
        cap = cap < 64 ? 64 : cap * 2;
    }
    rsql_sink_row_t *rows = rsql_realloc(wb->rows, (size_t)cap * sizeof(*rows));
    if (!rows) {
        return RSQL_ERR_NOMEM;
    }
    wb->rows = rows;
    int *idx = rsql_realloc(wb->idx, (size_t)cap * sizeof(*idx));
    if (!idx) {
        return RSQL_ERR_NOMEM;
    }
    wb->idx = idx;
    rt_delivery_op_t *dop =
        rsql_realloc(wb->dop, sizeof(rt_delivery_op_t) + (size_t)cap * sizeof(rsql_sink_result_t));
    if (!dop) {
        return RSQL_ERR_NOMEM;
    }
    wb->dop = dop;
    wb->cap = cap;
    return RSQL_OK;
}

/*
** A batch for cap records and everything it needs on its way (see pipeline_int.h): the
** records, tickets, the outcomes op and the write batch. NULL when out of memory.
** @locality poll thread
*/
rt_inbatch_t *rsql_pipeline__inbatch_new(int cap)
{
    rt_inbatch_t *ib = rsql_calloc(1, sizeof(*ib));
    if (!ib) {
        return NULL;
    }
    ib->cap = cap;
    ib->b = rsql_batch_new(cap);
    ib->tickets = rsql_malloc((size_t)cap * sizeof(uint64_t)); /* read only if registered */
    ib->registered = rsql_calloc((size_t)cap, 1);
    ib->resolved = rsql_calloc((size_t)cap, 1);
    /* items are written before they are read (up to oo->n): only the header is zeroed */
    ib->oo = rsql_malloc(sizeof(rt_outcomes_op_t) + (size_t)cap * sizeof(rt_item_t));
    if (ib->oo) {
        memset(ib->oo, 0, sizeof(rt_outcomes_op_t));
    }
    ib->wb = wbatch_new(ib, cap);
    if (!ib->b || !ib->tickets || !ib->registered || !ib->resolved || !ib->oo || !ib->wb) {
        rsql_pipeline__free_inbatch(ib);
        return NULL;
    }
    ib->oo->op.type = RT_OP_OUTCOMES;
    ib->oo->ib = ib;
    return ib;
}

/* Free ib and what it still holds of its ahead-allocated parts. NULL-safe. */
void rsql_pipeline__free_inbatch(rt_inbatch_t *ib)
{
    if (ib) {
        rsql_batch_destroy(ib->b);
        rsql_free(ib->tickets);
        rsql_free(ib->registered);
        rsql_free(ib->resolved);
        rsql_free(ib->rows_left);
        if (ib->oo) {
            rsql_pipeline__free_outcomes(ib->oo);
        }
        rsql_pipeline__free_wbatch(ib->wb);
        rsql_free(ib);
    }
}

/* Free wb and its delivery report. NULL-safe. */
void rsql_pipeline__free_wbatch(rt_wbatch_t *wb)
{
    if (wb) {
        for (rsql_qop_t *o = wb->outcomes, *next; o; o = next) { /* not handed on */
            next = o->next;
            rsql_pipeline__free_outcomes((rt_outcomes_op_t *)o);
        }
        rsql_free(wb->rows);
        rsql_free(wb->idx);
        rsql_free(wb->dop);
        rsql_free(wb);
    }
}

void rsql_pipeline__free_outcomes(rt_outcomes_op_t *oo)
{
    for (int i = 0; i < oo->n; i++) {
        rsql_free(oo->items[i].err);
    }
    rsql_free(oo);
}

/*
** A write batch's delivery report d, in the run's stats: the send latency (since the batch
** was handed to the sink), the end-to-end latency of its written rows (since they were
** polled), and the sink is up again once a row was written. @locality worker
*/
void rsql_pipeline__wbatch_observe(rsql_pipeline_t *p, const rt_wbatch_t *wb,
                                   const rt_delivery_op_t *d)
{
    rsql_pipeline_stats_t *st = p->conf.stats;
    if (!st) {
        return;
    }
    int64_t now_us = rsql_now_ns() / 1000;
    int ok = 0;
    for (int i = 0; i < wb->n && i < d->n; i++) {
        ok += rt_delivery_result(d, i)->code == RSQL_OK;
    }
    rsql_latency_observe(&st->send, now_us - wb->write_us, 1);
    rsql_latency_observe(&st->e2e, now_us - wb->ib->poll_us, ok);
    if (ok > 0) {
        atomic_store(&st->sink_down, false);
    }
}

/*
** Free an op nobody will serve (a queue destroyed after a failed start, or the worker
** queue's leftovers): each type by what owns it. Ops that live inside the pipeline or a
** batch are not freed on their own.
*/
void rsql_pipeline__free_op(rsql_pipeline_t *p, rsql_qop_t *op)
{
    (void)p;
    switch (op->type) {
    case RT_OP_WRITE:
        rsql_pipeline__free_wbatch((rt_wbatch_t *)op);
        break;
    case RT_OP_OUTCOMES:
        rsql_pipeline__free_outcomes((rt_outcomes_op_t *)op);
        break;
    case RT_OP_DELIVERY:
        rsql_pipeline__free_wbatch(((rt_delivery_op_t *)op)->batch);
        break;
    case RT_OP_WRITE_FAILED:
        rsql_pipeline__free_wbatch(((rt_write_failed_op_t *)op)->wb);
        break;
    case RT_OP_DLQ_DELIVERY:
        rsql_pipeline__dlq_free_report((rt_delivery_op_t *)op);
        break;
    case RT_OP_POLL_DONE:
    case RT_OP_SIGNAL:
    case RT_OP_CHECKPOINT:
        break; /* inside the pipeline */
    default:
        rsql_free(op);
    }
}
