/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_stateful: the transform's stage with keyed state, whichever the plan has (a
 * deduplication, rt_dedup.h; a group aggregation, rt_agg.h; a window aggregation,
 * rt_window.h), behind one face for the pipeline's transform.
 * @locality the transform thread (describe and late: any thread)
 */
#ifndef RSQL_RT_STATEFUL_H
#define RSQL_RT_STATEFUL_H

#include "connectors/rsql_io.h"
#include "engine/rt_lookup.h" /* rt_row_of_cb */
#include "engine/rt_state.h"
#include "planner/rsql_plan.h"

typedef struct rt_stateful rt_stateful_t;

/*
** The stage of plan's stateful operator, its state that of pipeline (the key its positions
** are kept under) in cat; cat NULL (a preview): in memory only. *out NULL when the plan has
** no such stage (a deduplication done by the sink counts as none); a window aggregation the
** sink merges has a stage without state (rsql_rt_stateful_state NULL).
*/
rsql_err_t rsql_rt_stateful_open(const rsql_plan_t *plan, rsql_catalog_t *cat,
                                 const char *pipeline, rt_stateful_t **out, rsql_error_t *err);
void rsql_rt_stateful_close(rt_stateful_t *s);

/* A batch about to be transformed: a mini-batch of a group aggregation takes it at once; a
   group aggregation or a deduplication without has its keys' entries fetched into the cache. */
rsql_err_t rsql_rt_stateful_batch(rt_stateful_t *s, rsql_batch_t *batch, rt_row_of_cb row_of,
                                  void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err);
/* rec's rows through the operator (as rsql_rt_dedup_record, rsql_rt_agg_record or
   rsql_rt_window_record): *keep false when it gives none, else rec holds them, *in the first. */
rsql_err_t rsql_rt_stateful_record(rt_stateful_t *s, rsql_batch_t *batch, rsql_record_t *rec,
                                   rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                   rsql_error_t *err);

/* The source has n lanes (rsql_rt_window_lanes; nothing for the other operators). */
rsql_err_t rsql_rt_stateful_lanes(rt_stateful_t *s, uint32_t n);

/* rsql_pipeline_conf_t.transform_due, opaque the stage (NULL: none): when a window
   aggregation over processing time has a window to give without a row (its earliest end
   less 1 ms, wall clock), else INT64_MAX. */
int64_t rsql_rt_stateful_due(void *opaque);

rt_state_t *rsql_rt_stateful_state(rt_stateful_t *s);

struct rsql_pipeline_conf;
/* Give conf the stage's state (s has one): its state_* callbacks, state_opaque s. */
void rsql_rt_stateful_conf(rt_stateful_t *s, struct rsql_pipeline_conf *conf);
/* Rows a window aggregation dropped as late (0 for the others). */
int64_t rsql_rt_stateful_late(rt_stateful_t *s);
/* What it did (the summary's line) into buf; its length. */
size_t rsql_rt_stateful_describe(rt_stateful_t *s, char *buf, size_t size);

#endif
