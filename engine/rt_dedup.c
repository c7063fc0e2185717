/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_dedup: deduplication's stage of the transform (planner/plan_dedup.c says what it means).
 * Each record's row is made (its computed columns evaluated once), passed through the
 * subquery's WHERE, and its key's values packed (rsql_value_pack) as the state's key. Keeping
 * the first row: a key the state has drops the row, a new one is kept and marked. Keeping the
 * last: the state holds the kept row (packed); a newer row gives the -U of that row and its
 * own +U (the first row of a key an insert) and takes its place. Each change goes into the
 * state with the record's position (engine/rt_state.c), and reaches the catalog with the
 * positions saved after it.
 * @locality the transform thread (checkpoint and committed: the worker, through rt_state)
 */
#include "config.h"
#include "engine/rt_dedup.h"
#include "engine/rt_key.h"
#include "base/rsql_buf.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

struct rt_dedup {
    const rsql_plan_t *plan;
    rt_state_t *state;
    int w; /* the row's values: source columns, then computed ones */
    rsql_type_t *types;
    const rsql_tdesc_t **descs;
    rsql_buf_t key, value;
    uint64_t kept, dropped, replaced;
    int64_t now; /* the wall clock when the record's batch came (ms) */
    const rsql_batch_t *clock_batch; /* the batch it is of, and its first record's seq */
    uint64_t clock_seq;
};

/* See rt_dedup.h. */
rsql_err_t rsql_rt_dedup_open(const rsql_plan_t *plan, rsql_catalog_t *cat, const char *pipeline,
                              rt_dedup_t **out, rsql_error_t *err)
{
    rt_dedup_t *d = rsql_calloc(1, sizeof *d);
    if (!d) {
        return rsql_error_nomem(err);
    }
    d->plan = plan;
    d->w = plan->n_in + plan->n_computed;
    d->types = rsql_calloc((size_t)d->w + 1, sizeof *d->types);
    d->descs = rsql_calloc((size_t)d->w + 1, sizeof *d->descs);
    rsql_buf_init(&d->key);
    rsql_buf_init(&d->value);
    if (!d->types || !d->descs) {
        rsql_rt_dedup_close(d);
        return rsql_error_nomem(err);
    }
    const rsql_table_def_t *def = plan->source.def;
    for (int i = 0; i < plan->n_in && i < def->n_columns; i++) {
        d->types[i] = def->columns[i].type;
        d->descs[i] = def->columns[i].desc;
    }
    for (int k = 0; k < plan->n_computed; k++) {
        d->types[plan->n_in + k] = plan->computed[k]->type;
        d->descs[plan->n_in + k] = plan->computed[k]->desc;
    }
    rsql_err_t rc = rsql_rt_state_open(cat, pipeline, plan->dedup->ttl_ms, plan->dedup->memory,
                                       &d->state, err);
    if (rc != RSQL_OK) {
        rsql_rt_dedup_close(d);
        return rc;
    }
    *out = d;
    return RSQL_OK;
}

/* See rt_dedup.h. */
void rsql_rt_dedup_close(rt_dedup_t *d)
{
    if (!d) {
        return;
    }
    rsql_rt_state_close(d->state);
    rsql_buf_deinit(&d->key);
    rsql_buf_deinit(&d->value);
    rsql_free(d->types);
    rsql_free(d->descs);
    rsql_free(d);
}

/* Evaluate b over row: true when it is TRUE (a NULL is not). */
static rsql_err_t passes(const rsql_bexpr_t *b, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                         bool *yes, rsql_error_t *err)
{
    rsql_value_t v;
    rsql_err_t rc = rsql_expr_eval(b, row, ctx, &v, err);
    *yes = rc == RSQL_OK && !v.is_null && v.type == RSQL_TYPE_BOOLEAN && v.v.b;
    return rc;
}

/* See rt_dedup.h. */
rsql_err_t rsql_rt_dedup_record(rt_dedup_t *d, rsql_batch_t *batch, rsql_record_t *rec,
                                rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                rsql_error_t *err)
{
    const rsql_plan_t *plan = d->plan;
    const rsql_plan_dedup_t *dd = plan->dedup;
    const rsql_value_t *row;
    rsql_err_t rc = rsql_plan_row(plan, *in, ctx, &row, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rsql_value_t *kept = rsql_arena_alloc(batch->arena, (size_t)d->w * sizeof *kept);
    if (!kept) {
        return rsql_error_nomem(err);
    }
    for (int c = 0; c < d->w; c++) {
        if (rsql_value_copy(&row[c], batch->arena, &kept[c]) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    bool yes = true;
    if (dd->pre && ((rc = passes(dd->pre, kept, ctx, &yes, err)) != RSQL_OK || !yes)) {
        *keep = false;
        return rc;
    }
    if ((rc = rsql_rt_key_make(&d->key, dd->keys, dd->n_key, kept, ctx, NULL, NULL, err)) !=
        RSQL_OK) {
        return rc;
    }
    if (batch != d->clock_batch || batch->recs[0].seq != d->clock_seq) {
        d->clock_batch = batch; /* the clock once a batch: its rows came together */
        d->clock_seq = batch->recs[0].seq;
        d->now = rsql_wall_ms();
    }
    int64_t now = d->now;
    const uint8_t *old = NULL;
    size_t old_len = 0;
    bool seen;
    if ((rc = rsql_rt_state_get(d->state, d->key.data, d->key.len, now, &old, &old_len, &seen,
                                err)) != RSQL_OK) {
        return rc;
    }
    if (!dd->keep_last) {
        if (seen) {
            d->dropped++;
            *keep = false;
            return RSQL_OK;
        }
        if (rsql_rt_state_put(d->state, d->key.data, d->key.len, NULL, 0, now) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
        d->kept++;
        *in = kept;
        return RSQL_OK;
    }
    /* the last row: the row kept before (if any) goes as -U, this one as +U and is kept */
    int n = 1;
    const rsql_value_t **rows = rsql_arena_alloc(batch->arena, 2 * sizeof *rows);
    uint8_t *kinds = rsql_arena_alloc(batch->arena, 2);
    if (!rows || !kinds) {
        return rsql_error_nomem(err);
    }
    rows[0] = kept;
    kinds[0] = RSQL_ROW_INSERT;
    if (seen) {
        rsql_value_t *before = rsql_arena_alloc(batch->arena, (size_t)d->w * sizeof *before);
        if (!before) {
            return rsql_error_nomem(err);
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        rc = rsql_value_unpack(old, old_len, d->w, d->types, d->descs, batch->arena, before, &e);
        if (rc != RSQL_OK) {
            return rsql_error_set(err, rc, RSQL_NOPOS,
                                  "the row kept for this key cannot be read back (%s): the "
                                  "state was written by a statement with other columns; RESET "
                                  "POSITIONS starts over",
                                  e.msg);
        }
        rows[0] = before;
        rows[1] = kept;
        kinds[0] = RSQL_ROW_UPDATE_BEFORE;
        kinds[1] = RSQL_ROW_UPDATE_AFTER;
        n = 2;
        d->replaced++;
    } else {
        d->kept++;
    }
    rsql_buf_reset(&d->value);
    rsql_value_pack(kept, d->w, &d->value);
    if (d->value.oom || rsql_rt_state_put(d->state, d->key.data, d->key.len, d->value.data,
                                          d->value.len, now) != RSQL_OK) {
        return rsql_error_nomem(err);
    }
    rec->n_rows = n;
    rec->rows = (rsql_value_t **)rows;
    rec->kinds = kinds;
    rec->row = rec->rows[0];
    rec->kind = kinds[0];
    *in = rows[0];
    return RSQL_OK;
}

/* See rt_dedup.h. */
rt_state_t *rsql_rt_dedup_state(rt_dedup_t *d)
{
    return d->state;
}

/* See rt_dedup.h. */
size_t rsql_rt_dedup_describe(rt_dedup_t *d, char *buf, size_t size)
{
    if (!d || size == 0) {
        return 0;
    }
    int n = snprintf(buf, size, "deduplication: %llu rows kept, %llu %s; ",
                     (unsigned long long)d->kept,
                     (unsigned long long)(d->plan->dedup->keep_last ? d->replaced : d->dropped),
                     d->plan->dedup->keep_last ? "replaced a kept row" : "dropped as duplicates");
    if (n < 0 || (size_t)n >= size) {
        return n < 0 ? 0 : size - 1;
    }
    return (size_t)n + rsql_rt_state_describe(d->state, buf + n, size - (size_t)n);
}
