/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_lookup: the lookup join's stage of the transform (rt_lookup.c). For each batch,
 * rsql_rt_lookup_batch before its first record, then rsql_rt_lookup_rows for each record.
 * @locality the transform thread
 */
#ifndef RSQL_RT_LOOKUP_H
#define RSQL_RT_LOOKUP_H

#include "connectors/rsql_io.h"
#include "engine/rsql_pipeline.h"
#include "planner/rsql_plan.h"

typedef struct rt_lookup rt_lookup_t;

/* Open plan->lookup's table for lookups (its connector's lookup data path). */
rsql_err_t rsql_rt_lookup_open(const rsql_plan_t *plan, rt_lookup_t **out, rsql_error_t *err);
void rsql_rt_lookup_close(rt_lookup_t *lk);
/*
** What the lookups did, into buf (size bytes, NUL-terminated): "lookup of customers: 1200
** keys asked in 40 calls, 950 rows found; cache: 18800 hits, 1200 misses, 1000 keys held
** (163840 bytes)"; its length (0 for a NULL lk).
*/
size_t rsql_rt_lookup_describe(const rt_lookup_t *lk, char *buf, size_t size);

/* The source row of rec (decoded when it must be), or NULL when it has none: its own
   transform says why. */
typedef const rsql_value_t *(*rt_row_of_cb)(void *opaque, rsql_batch_t *b, rsql_record_t *rec);

/*
** Batch, next in line to be joined after those prefetched before it (the batch about to be
** joined first of all): its rows and keys made, and its lookup sent when the connector can
** and the ones before it are in flight. Nothing when plan->lookup->in_flight are waiting or it
** fails (the batch is then made again when joined).
*/
void rsql_rt_lookup_prefetch(rt_lookup_t *lk, rsql_batch_t *batch, rt_row_of_cb row_of,
                             void *opaque, rsql_eval_ctx_t *ctx);

/*
** Before the first record of batch: each record's row made and kept (row_of gives its source
** row) with its key, and the keys looked up together (transient failures asked again per
** errors.retry.*; a failure that stays is each record's error, from rsql_rt_lookup_rows).
** An error return is RSQL_ERR_NOMEM only.
*/
rsql_err_t rsql_rt_lookup_batch(rt_lookup_t *lk, rsql_batch_t *batch, rt_row_of_cb row_of,
                                void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err);
/*
** rec's rows (in the batch arena): *n full rows for rsql_plan_apply_row, its row with each row
** found that passes the rest of ON, or its row with NULLs (LEFT join, none kept); *n = 0: none
** (an inner join that found nothing); *n = -1: no row was made for it (the caller makes it and
** fails). An error: the batch's lookup failed, or the condition could not be evaluated.
*/
rsql_err_t rsql_rt_lookup_rows(rt_lookup_t *lk, rsql_batch_t *batch, const rsql_record_t *rec,
                               rsql_eval_ctx_t *ctx, const rsql_value_t ***rows, int *n,
                               rsql_error_t *err);

/*
** rsql_rt_lookup_rows for the transform: rec's rows become the record's rows (n_rows, rows,
** kinds: inserts), *in the first (*in is the source row on entry); *keep false when it has
** none; an error when the batch's lookup failed or the record cannot be joined.
*/
rsql_err_t rsql_rt_lookup_record(rt_lookup_t *lk, rsql_batch_t *batch, rsql_record_t *rec,
                                 rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                 rsql_error_t *err);

#endif
