/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_stateful: see rt_stateful.h.
 * @locality see rt_stateful.h
 */
#include "config.h"
#include "engine/rt_stateful.h"
#include "engine/rt_agg.h"
#include "engine/rt_dedup.h"
#include "engine/rt_key.h"
#include "engine/rt_window.h"
#include "engine/rsql_pipeline.h"
#include "base/rsql_buf.h"
#include "base/rsql_value.h"

struct rt_stateful {
    const rsql_plan_t *plan;
    rt_dedup_t *dedup;
    rt_agg_t *agg;
    rt_window_t *window;
    rsql_buf_t key; /* prefetch's: a record's key, and the hashes of a batch's keys */
    uint64_t *ph;
    int ph_cap;
};

/* See rt_stateful.h. */
rsql_err_t rsql_rt_stateful_open(const rsql_plan_t *plan, rsql_catalog_t *cat,
                                 const char *pipeline, rt_stateful_t **out, rsql_error_t *err)
{
    *out = NULL;
    if (!rsql_plan_has_state(plan) && !plan->window) { /* a window merged by the sink: none */
        return RSQL_OK;
    }
    rt_stateful_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->plan = plan;
    rsql_buf_init(&s->key);
    rsql_err_t rc = plan->window ? rsql_rt_window_open(plan, cat, pipeline, &s->window, err)
                    : plan->agg  ? rsql_rt_agg_open(plan, cat, pipeline, &s->agg, err)
                                 : rsql_rt_dedup_open(plan, cat, pipeline, &s->dedup, err);
    if (rc != RSQL_OK) {
        rsql_rt_stateful_close(s);
        return rc;
    }
    *out = s;
    return RSQL_OK;
}

/* See rt_stateful.h. */
void rsql_rt_stateful_close(rt_stateful_t *s)
{
    if (!s) {
        return;
    }
    rsql_rt_dedup_close(s->dedup);
    rsql_rt_agg_close(s->agg);
    rsql_rt_window_close(s->window);
    rsql_buf_deinit(&s->key);
    rsql_free(s->ph);
    rsql_free(s);
}

/*
** The state keys of batch's records (rsql_rt_key_make's, as the operator makes them) hinted to the state
** (rsql_rt_state_prefetch), so that a key's entry is in the cache when its record comes
** instead of waited for then. The rows are made by row_of as the records' turns use them; a
** row or key that cannot be made is left to its record's turn, which says why.
*/
static void prefetch(rt_stateful_t *s, rsql_bexpr_t *const *exprs, int n, rsql_batch_t *batch,
                     rt_row_of_cb row_of, void *opaque, rsql_eval_ctx_t *ctx)
{
    rt_state_t *st = rsql_rt_stateful_state(s);
    if (batch->n > s->ph_cap) {
        uint64_t *ph = rsql_realloc(s->ph, sizeof *ph * (size_t)batch->n);
        if (!ph) {
            return; /* only a hint */
        }
        s->ph = ph;
        s->ph_cap = batch->n;
    }
    int m = 0;
    for (int i = 0; i < batch->n; i++) {
        rsql_record_t *rec = &batch->recs[i];
        const rsql_value_t *in, *row;
        rsql_error_t e;
        rsql_error_clear(&e);
        if (rec->n_rows > 1 || !(in = row_of(opaque, batch, rec)) ||
            rsql_plan_row(s->plan, in, ctx, &row, &e) != RSQL_OK) {
            rsql_eval_ctx_reset(ctx);
            continue;
        }
        if (rsql_rt_key_make(&s->key, exprs, n, row, ctx, NULL, NULL, &e) == RSQL_OK) {
            s->ph[m] = rsql_rt_state_hash(s->key.data, s->key.len);
            rsql_rt_state_prefetch(st, s->ph[m++]);
        }
        rsql_eval_ctx_reset(ctx); /* the key is in s->key: the values it was made of can go */
    }
    for (int i = 0; i < m; i++) {
        rsql_rt_state_prefetch_entry(st, s->ph[i]);
    }
}

/* See rt_stateful.h. */
rsql_err_t rsql_rt_stateful_batch(rt_stateful_t *s, rsql_batch_t *batch, rt_row_of_cb row_of,
                                  void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    if (s->agg && s->plan->agg->mini_batch) { /* every record's groups at once */
        return rsql_rt_agg_batch(s->agg, batch, row_of, opaque, ctx, err);
    }
    if (s->agg) { /* the entries of the batch's keys fetched together, not one by one */
        prefetch(s, s->plan->agg->group, s->plan->agg->n_group, batch, row_of, opaque, ctx);
    } else if (s->dedup) {
        prefetch(s, s->plan->dedup->keys, s->plan->dedup->n_key, batch, row_of, opaque, ctx);
    }
    return RSQL_OK;
}

/* See rt_stateful.h. */
rsql_err_t rsql_rt_stateful_record(rt_stateful_t *s, rsql_batch_t *batch, rsql_record_t *rec,
                                   rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                   rsql_error_t *err)
{
    return s->window ? rsql_rt_window_record(s->window, batch, rec, ctx, in, keep, err)
           : s->agg  ? rsql_rt_agg_record(s->agg, batch, rec, ctx, in, keep, err)
                     : rsql_rt_dedup_record(s->dedup, batch, rec, ctx, in, keep, err);
}

/* See rt_stateful.h. */
rsql_err_t rsql_rt_stateful_lanes(rt_stateful_t *s, uint32_t n)
{
    return s->window ? rsql_rt_window_lanes(s->window, n) : RSQL_OK;
}

/* See rt_stateful.h. */
int64_t rsql_rt_stateful_due(void *opaque)
{
    rt_stateful_t *s = opaque;
    return s && s->window ? rsql_rt_window_due(s->window) : INT64_MAX;
}

/* See rt_stateful.h. */
rt_state_t *rsql_rt_stateful_state(rt_stateful_t *s)
{
    return s->window ? rsql_rt_window_state(s->window)
           : s->agg  ? rsql_rt_agg_state(s->agg)
                     : rsql_rt_dedup_state(s->dedup);
}

/* See rt_stateful.h. */
int64_t rsql_rt_stateful_late(rt_stateful_t *s)
{
    return s && s->window ? rsql_rt_window_late(s->window) : 0;
}

/* See rt_stateful.h. */
size_t rsql_rt_stateful_describe(rt_stateful_t *s, char *buf, size_t size)
{
    return s->window ? rsql_rt_window_describe(s->window, buf, size)
           : s->agg  ? rsql_rt_agg_describe(s->agg, buf, size)
                     : rsql_rt_dedup_describe(s->dedup, buf, size);
}

/* rsql_pipeline_conf_t.state_seen, _seal, _checkpoint, _committed, _full, _wait and _stats,
   opaque the stage: its state's. */
static rsql_err_t st_seen(void *opaque, const rsql_record_t *rec)
{
    return rsql_rt_state_seen(rsql_rt_stateful_state(opaque), rec->partition, rec->offset,
                              rec->pos_key);
}

static rsql_err_t st_seal(void *opaque, bool force, uint64_t ticks, bool *sealed)
{
    rt_state_t *st = rsql_rt_stateful_state(opaque);
    *sealed = force || rsql_rt_state_seal_due(st);
    return *sealed ? rsql_rt_state_seal(st, ticks) : RSQL_OK;
}

static void st_ask(void *opaque)
{
    rsql_rt_state_ask_seal(rsql_rt_stateful_state(opaque));
}

static rsql_err_t st_checkpoint(void *opaque, rsql_catalog_t *cat, int n, const uint32_t *lanes,
                                const int64_t *offs, uint64_t ticks_done, rsql_state_cut_t *cut,
                                rsql_error_t *err)
{
    rt_state_cut_t c;
    rsql_err_t rc = rsql_rt_state_checkpoint(rsql_rt_stateful_state(opaque), cat, n, lanes, offs,
                                             ticks_done, &c, err);
    *cut = (rsql_state_cut_t){c.n, c.lanes, c.offs, c.keys};
    return rc;
}

static void st_committed(void *opaque)
{
    rsql_rt_state_committed(rsql_rt_stateful_state(opaque));
}

static bool st_full(void *opaque)
{
    return rsql_rt_state_full(rsql_rt_stateful_state(opaque));
}

static bool st_wait(void *opaque, int64_t until_ms)
{
    return rsql_rt_state_wait(rsql_rt_stateful_state(opaque), until_ms);
}

static void st_stats(void *opaque, rsql_state_counts_t *out)
{
    rt_state_stats_t st;
    rsql_rt_state_stats(rsql_rt_stateful_state(opaque), &st);
    *out = (rsql_state_counts_t){.keys = st.keys,
                                 .bytes = st.bytes,
                                 .pending = st.pending,
                                 .checkpoints = st.checkpoints,
                                 .reads = st.reads,
                                 .evictions = st.evictions,
                                 .waits = st.waits,
                                 .late = rsql_rt_stateful_late(opaque)};
}

/* See rt_stateful.h. */
void rsql_rt_stateful_conf(rt_stateful_t *s, rsql_pipeline_conf_t *conf)
{
    conf->state_opaque = s;
    conf->state_seen = st_seen;
    conf->state_seal = st_seal;
    conf->state_ask = st_ask;
    conf->state_checkpoint = st_checkpoint;
    conf->state_committed = st_committed;
    conf->state_full = st_full;
    conf->state_wait = st_wait;
    conf->state_stats = st_stats;
}
