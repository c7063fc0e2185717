/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_agg: group aggregation's stage of the transform (rt_agg.c), over a keyed state
 * (rt_state.h) saved with the source positions.
 * @locality the transform thread
 */
#ifndef RSQL_RT_AGG_H
#define RSQL_RT_AGG_H

#include "connectors/rsql_io.h"
#include "engine/rt_lookup.h" /* rt_row_of_cb */
#include "engine/rt_state.h"
#include "base/rsql_buf.h"
#include "planner/rsql_plan.h"

typedef struct rt_agg rt_agg_t;

/*
** The stage of plan->agg, its state that of pipeline (the key its positions are kept under)
** in cat; cat NULL (a preview): in memory only.
*/
rsql_err_t rsql_rt_agg_open(const rsql_plan_t *plan, rsql_catalog_t *cat, const char *pipeline,
                            rt_agg_t **out, rsql_error_t *err);
void rsql_rt_agg_close(rt_agg_t *g);

/*
** rec's rows (*in is its source row on entry): *keep false when WHERE drops it or its group's
** result did not change; else rec holds the rows it gives over the aggregate row (an insert
** of a new group, else the -U of the result before, when the plan wants it, and the +U of the
** new one) and *in is the first.
*/
rsql_err_t rsql_rt_agg_record(rt_agg_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                              rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                              rsql_error_t *err);

/*
** A mini-batch (plan->agg->mini_batch): batch, about to be transformed, into the groups'
** accumulators at once, so each group changed gives its rows once, with the last record of
** the batch that changed it (the -U of its result before the batch, when the plan wants it,
** and the +U of the one after; an insert for a new group), and the other records none.
** rsql_rt_agg_record then gives each record what was made for it.
*/
rsql_err_t rsql_rt_agg_batch(rt_agg_t *g, rsql_batch_t *batch, rt_row_of_cb row_of,
                             void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err);

/* Rec's rows: the n of rows and kinds (copied into the batch's arena), *in the first; *keep
   false for none (rec is then done as filtered). */
rsql_err_t rsql_rt_agg_give(rsql_batch_t *batch, rsql_record_t *rec,
                            const rsql_value_t *const *rows, const uint8_t *kinds, int n,
                            const rsql_value_t **in, bool *keep, rsql_error_t *err);

/*
** For a DISTINCT call (index call) and a group's non-NULL value v: *seen when the group whose
** state key is key ([tag][...]) took v before, its mark being [2][call: 4 bytes][key after its
** tag][v] (built in dkey). A value not seen has its mark appended to marks ([u32 length][bytes])
** for the caller to put into the state once the row is taken. Shared by the group and the
** window aggregation.
*/
rsql_err_t rsql_rt_agg_mark_seen(rt_state_t *state, const rsql_buf_t *key, int call,
                                 const rsql_value_t *v, int64_t now, rsql_buf_t *dkey,
                                 rsql_buf_t *marks, bool *seen, rsql_error_t *err);

/* Its state (checkpoints, counts): valid until rsql_rt_agg_close. */
rt_state_t *rsql_rt_agg_state(rt_agg_t *g);

/* "aggregation: N rows into G groups, U updates (S left a result unchanged); state: ..." into
   buf; its length. */
size_t rsql_rt_agg_describe(rt_agg_t *g, char *buf, size_t size);

#endif
