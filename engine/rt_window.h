/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_window: window aggregation's stage of the transform (rt_window.c; planner/plan_window.c
 * says what it means), over a keyed state (rt_state.h) saved with the source positions.
 * @locality the transform thread
 */
#ifndef RSQL_RT_WINDOW_H
#define RSQL_RT_WINDOW_H

#include "connectors/rsql_io.h"
#include "engine/rt_state.h"
#include "planner/rsql_plan.h"

typedef struct rt_window rt_window_t;

/*
** The stage of plan->window (and plan->agg), its state that of pipeline (the key its positions
** are kept under) in cat; cat NULL (a preview): in memory only. The windows and watermarks
** the state holds are read back: a run resumes with them.
*/
rsql_err_t rsql_rt_window_open(const rsql_plan_t *plan, rsql_catalog_t *cat,
                               const char *pipeline, rt_window_t **out, rsql_error_t *err);
void rsql_rt_window_close(rt_window_t *g);

/*
** rec's rows (*in is its source row on entry) into their windows, then the windows the
** watermark passed since: *keep false when none did; else rec holds their result rows (the
** aggregate rows, one per group of each window, +I) and *in is the first. A record marked
** RSQL_REC_LAST (the input's last) gives every window still open; one marked RSQL_REC_TICK
** has no row: over processing time, the watermark is the clock's now, and the windows it
** passed are given. A row whose windows were all given is late: dropped and counted; under
** table.exec.late-rows = dead-letter (plan->window->late_dead_letter) its record is also
** marked RSQL_REC_LATE and, the call succeeding, err says why (the windows, the watermark)
** for its dead letter.
*/
rsql_err_t rsql_rt_window_record(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                                 rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                 rsql_error_t *err);

/*
** A window aggregation over processing time: when its earliest open window is due (its end
** less 1 ms, wall clock: rsql_wall_ms), else INT64_MAX. A record marked RSQL_REC_TICK then
** gives the windows the clock passed (rsql_rt_window_record).
*/
int64_t rsql_rt_window_due(rt_window_t *g);

/* Its state (checkpoints, counts): valid until rsql_rt_window_close. */
rt_state_t *rsql_rt_window_state(rt_window_t *g);

/* Rows dropped as late so far (any thread). */
int64_t rsql_rt_window_late(rt_window_t *g);

/*
** The source has n lanes (its partitions, numbered 0 .. n-1): each holds the watermark back
** until its first row, or until table.exec.source.idle-timeout without one, as a lane that
** gave rows does until its next (an empty partition of a topic, a partition read late).
** Lanes only ever join: a smaller n than before changes nothing.
*/
rsql_err_t rsql_rt_window_lanes(rt_window_t *g, uint32_t n);
/* "windows: N rows into W windows, G results given, L late rows dropped[ and dead-lettered];
   watermark ...; state: ..." into buf; its length. */
size_t rsql_rt_window_describe(rt_window_t *g, char *buf, size_t size);

#endif
