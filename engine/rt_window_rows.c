/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_window_rows: a window function's rows without an aggregation (plan->window->rows;
 * planner/plan_window.c), Flink's window TVF used alone. Each row of a record is made
 * (rsql_plan_row: its computed columns too), its event time read, and the row is given once
 * per window of that time (TUMBLE: one; HOP: size / slide; CUMULATE: those of its max_size
 * window ending after it), each copy with window_start, window_end and window_time set; the
 * record then holds those rows (+I), which WHERE and the projection take in turn
 * (rsql_plan_apply_row, as after a lookup join). Nothing is kept between records: no state,
 * no watermark, and no row is late.
 * @locality the transform thread
 */
#include "config.h"
#include "engine/rt_window_int.h"
#include "engine/rt_agg.h"
#include "base/rsql_value.h"

#include <string.h>

/* See rt_window_int.h. */
rsql_err_t rsql_rt_window__rows(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                                rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                rsql_error_t *err)
{
    const rsql_plan_t *plan = g->plan;
    const rsql_plan_window_t *w = g->w;
    int width = plan->n_in + plan->n_computed;
    int n = rec->n_rows > 1 ? rec->n_rows : 1;
    g->n_out = 0;
    for (int r = 0; r < n; r++) {
        const rsql_value_t *made;
        rsql_err_t rc = rsql_plan_row(plan, r == 0 ? *in : rec->rows[r], ctx, &made, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        rsql_value_t t;
        if ((rc = rsql_expr_eval_row(w->time, made, ctx, &t, err)) != RSQL_OK) {
            return rc;
        }
        if (t.is_null) {
            return rsql_error_set(err, RSQL_ERR_EVAL, w->time->pos,
                                  "the event time %s is NULL: a row needs one to go into a "
                                  "window",
                                  w->time_name);
        }
        /* the row kept with the batch (the context's strings are gone after this record's
           first row), then one copy per window, its window columns set */
        rsql_value_t *base = rsql_arena_alloc(batch->arena, sizeof *base * (size_t)width);
        if (!base) {
            return rsql_error_nomem(err);
        }
        for (int c = 0; c < width; c++) {
            if (rsql_value_copy(&made[c], batch->arena, &base[c]) != RSQL_OK) {
                return rsql_error_nomem(err);
            }
        }
        int64_t s, e;
        for (win_first(w, t.v.ts, &s, &e); win_more(w, t.v.ts, s, e); win_next(w, &s, &e)) {
            rsql_value_t *row = rsql_arena_alloc(batch->arena, sizeof *row * (size_t)width);
            if (!row) {
                return rsql_error_nomem(err);
            }
            memcpy(row, base, sizeof *row * (size_t)width);
            set_window(row, w->col, s, e);
            if (!rsql_rt_window__out_add(g, row)) {
                return rsql_error_nomem(err);
            }
        }
        g->rows++;
        rsql_eval_ctx_reset(ctx);
    }
    g->results += (uint64_t)g->n_out;
    return rsql_rt_agg_give(batch, rec, g->out, g->kinds, g->n_out, in, keep, err);
}
