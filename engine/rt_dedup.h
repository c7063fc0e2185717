/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_dedup: deduplication's stage of the transform (rt_dedup.c), over a keyed state
 * (rt_state.h) saved with the source positions.
 * @locality the transform thread; checkpoint and committed on the worker
 */
#ifndef RSQL_RT_DEDUP_H
#define RSQL_RT_DEDUP_H

#include "connectors/rsql_io.h"
#include "engine/rsql_pipeline.h"
#include "engine/rt_state.h"
#include "planner/rsql_plan.h"

typedef struct rt_dedup rt_dedup_t;

/*
** The stage of plan->dedup, its state that of pipeline (the key its positions are kept under)
** in cat; cat NULL (a preview): in memory only.
*/
rsql_err_t rsql_rt_dedup_open(const rsql_plan_t *plan, rsql_catalog_t *cat, const char *pipeline,
                              rt_dedup_t **out, rsql_error_t *err);
void rsql_rt_dedup_close(rt_dedup_t *d);

/*
** rec's rows (*in is its source row on entry): *keep false when the subquery's WHERE drops it
** or (keeping the first) its key was seen; else *in is its row (source and computed columns,
** for rsql_plan_apply_row) and, keeping the last, rec holds its rows and kinds (the -U of the
** row kept before, then its +U; or its insert).
*/
rsql_err_t rsql_rt_dedup_record(rt_dedup_t *d, rsql_batch_t *batch, rsql_record_t *rec,
                                rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                rsql_error_t *err);

/* Its state (checkpoints, counts): valid until rsql_rt_dedup_close. */
rt_state_t *rsql_rt_dedup_state(rt_dedup_t *d);

/* "deduplication: N rows kept, M dropped as duplicates; state: K keys (B bytes), C
   checkpoints" into buf; its length. */
size_t rsql_rt_dedup_describe(rt_dedup_t *d, char *buf, size_t size);

#endif
