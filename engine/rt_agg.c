/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_agg: group aggregation's stage of the transform (planner/plan_agg.c says what it means).
 * Each record's row is made (its computed columns evaluated once) and passed through WHERE;
 * its GROUP BY values, packed (rsql_value_pack), are the state's key, and the group's
 * accumulators, packed, its value (planner/plan_agg_eval.c). The row updates them and the
 * record gives the group's new result: an insert for a new group; else, when the result
 * changed, the -U of the one before (when the plan wants it) and the +U of the new one. Each
 * change goes into the state with the record's position (engine/rt_state.c) and reaches the
 * catalog with the positions saved after it, so a run killed at any moment resumes with the
 * accumulators of exactly the rows before its positions.
 * @locality the transform thread (checkpoints: the worker, through rt_state)
 */
#include "config.h"
#include "engine/rt_agg.h"
#include "base/rsql_buf.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

struct rt_agg {
    const rsql_plan_t *plan;
    const rsql_plan_agg_t *a;
    rt_state_t *state;
    int w;        /* the aggregate row: the keys' values, then the calls' results */
    rsql_buf_t key, value, before, after;
    uint64_t rows, groups, updates, unchanged;
};

/* See rt_agg.h. */
rsql_err_t rsql_rt_agg_open(const rsql_plan_t *plan, rsql_catalog_t *cat, const char *pipeline,
                            rt_agg_t **out, rsql_error_t *err)
{
    rt_agg_t *g = rsql_calloc(1, sizeof *g);
    if (!g) {
        return rsql_error_nomem(err);
    }
    g->plan = plan;
    g->a = plan->agg;
    g->w = g->a->n_group + g->a->n_calls;
    rsql_buf_init(&g->key);
    rsql_buf_init(&g->value);
    rsql_buf_init(&g->before);
    rsql_buf_init(&g->after);
    rsql_err_t rc = rsql_rt_state_open(cat, pipeline, g->a->ttl_ms, g->a->memory, &g->state, err);
    if (rc != RSQL_OK) {
        rsql_rt_agg_close(g);
        return rc;
    }
    *out = g;
    return RSQL_OK;
}

/* See rt_agg.h. */
void rsql_rt_agg_close(rt_agg_t *g)
{
    if (!g) {
        return;
    }
    rsql_rt_state_close(g->state);
    rsql_buf_deinit(&g->key);
    rsql_buf_deinit(&g->value);
    rsql_buf_deinit(&g->before);
    rsql_buf_deinit(&g->after);
    rsql_free(g);
}

/* See rt_agg.h. */
rt_state_t *rsql_rt_agg_state(rt_agg_t *g)
{
    return g->state;
}

/* A new aggregate row in the batch's arena: the key values, then the results of acc. */
static rsql_value_t *result_row(rt_agg_t *g, rsql_batch_t *batch, const rsql_value_t *keys,
                                const rsql_value_t *acc)
{
    rsql_value_t *r = rsql_arena_alloc(batch->arena, sizeof *r * (size_t)(g->w ? g->w : 1));
    if (r) {
        memcpy(r, keys, sizeof *r * (size_t)g->a->n_group);
        rsql_plan_agg_results(g->a, acc, r + g->a->n_group);
    }
    return r;
}

/* See rt_agg.h. */
rsql_err_t rsql_rt_agg_record(rt_agg_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                              rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                              rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    const rsql_value_t *row;
    rsql_err_t rc = rsql_plan_row(g->plan, *in, ctx, &row, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (a->pre) {
        rsql_value_t v;
        if ((rc = rsql_expr_eval(a->pre, row, ctx, &v, err)) != RSQL_OK) {
            return rc;
        }
        if (v.is_null || v.type != RSQL_TYPE_BOOLEAN || !v.v.b) {
            *keep = false;
            return RSQL_OK;
        }
    }
    rsql_value_t *keys = rsql_arena_alloc(batch->arena,
                                          sizeof *keys * (size_t)(a->n_group ? a->n_group : 1));
    rsql_value_t *acc = rsql_arena_alloc(batch->arena, sizeof *acc * (size_t)a->n_acc);
    if (!keys || !acc) {
        return rsql_error_nomem(err);
    }
    rsql_buf_reset(&g->key);
    rsql_buf_putc(&g->key, 1); /* the form of the key (never empty) */
    for (int k = 0; k < a->n_group; k++) {
        rsql_value_t v;
        if ((rc = rsql_expr_eval(a->group[k], row, ctx, &v, err)) != RSQL_OK) {
            return rc;
        }
        if (rsql_value_copy(&v, batch->arena, &keys[k]) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
        rsql_value_pack(&v, 1, &g->key);
    }
    if (g->key.oom) {
        return rsql_error_nomem(err);
    }
    int64_t now = rsql_wall_ms();
    const uint8_t *old = NULL;
    size_t old_len = 0;
    bool seen;
    if ((rc = rsql_rt_state_get(g->state, g->key.data, g->key.len, now, &old, &old_len, &seen,
                                err)) != RSQL_OK) {
        return rc;
    }
    const rsql_value_t *before = NULL;
    if (seen) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rc = rsql_value_unpack(old, old_len, a->n_acc, a->acc_types, a->acc_descs, batch->arena,
                               acc, &e);
        if (rc != RSQL_OK) {
            return rsql_error_set(err, rc, RSQL_NOPOS,
                                  "the aggregates kept for this group cannot be read back (%s): "
                                  "the state was written by a statement with other aggregates; "
                                  "RESET POSITIONS starts over",
                                  e.msg);
        }
        if (!(before = result_row(g, batch, keys, acc))) {
            return rsql_error_nomem(err);
        }
    } else {
        rsql_plan_agg_init(a, acc);
    }
    if ((rc = rsql_plan_agg_add(a, acc, row, ctx, batch->arena, err)) != RSQL_OK) {
        return rc; /* the state is left as it was: the record fails alone */
    }
    rsql_value_t *after = result_row(g, batch, keys, acc);
    rsql_buf_reset(&g->value);
    rsql_value_pack(acc, a->n_acc, &g->value);
    if (!after || g->value.oom ||
        rsql_rt_state_put(g->state, g->key.data, g->key.len, g->value.data, g->value.len,
                          rec->partition, rec->offset, now) != RSQL_OK) {
        return rsql_error_nomem(err);
    }
    g->rows++;
    if (before) {
        rsql_buf_reset(&g->before);
        rsql_buf_reset(&g->after);
        rsql_value_pack(before + a->n_group, a->n_calls, &g->before);
        rsql_value_pack(after + a->n_group, a->n_calls, &g->after);
        if (g->before.oom || g->after.oom) {
            return rsql_error_nomem(err);
        }
        if (g->before.len == g->after.len &&
            memcmp(g->before.data, g->after.data, g->before.len) == 0) {
            g->unchanged++; /* the same result again: nothing to tell the sink */
            *keep = false;
            return RSQL_OK;
        }
    }
    const rsql_value_t **rows = rsql_arena_alloc(batch->arena, 2 * sizeof *rows);
    uint8_t *kinds = rsql_arena_alloc(batch->arena, 2);
    if (!rows || !kinds) {
        return rsql_error_nomem(err);
    }
    int n = 0;
    if (!before) {
        g->groups++;
        rows[n] = after;
        kinds[n++] = RSQL_ROW_INSERT;
    } else {
        g->updates++;
        if (a->emit_before) {
            rows[n] = before;
            kinds[n++] = RSQL_ROW_UPDATE_BEFORE;
        }
        rows[n] = after;
        kinds[n++] = RSQL_ROW_UPDATE_AFTER;
    }
    rec->n_rows = n;
    rec->rows = (rsql_value_t **)rows;
    rec->kinds = kinds;
    rec->row = rec->rows[0];
    rec->kind = kinds[0];
    *in = rows[0];
    return RSQL_OK;
}

/* See rt_agg.h. */
size_t rsql_rt_agg_describe(rt_agg_t *g, char *buf, size_t size)
{
    if (!g || size == 0) {
        return 0;
    }
    int n = snprintf(buf, size,
                     "aggregation: %llu rows gave %llu new groups and %llu updates (%llu left "
                     "a result unchanged); ",
                     (unsigned long long)g->rows, (unsigned long long)g->groups,
                     (unsigned long long)g->updates, (unsigned long long)g->unchanged);
    if (n < 0 || (size_t)n >= size) {
        return n < 0 ? 0 : size - 1;
    }
    return (size_t)n + rsql_rt_state_describe(g->state, buf + n, size - (size_t)n);
}
