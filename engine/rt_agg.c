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
#include "engine/rt_key.h"
#include "base/rsql_buf.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

/* A mini-batch: what one record of the batch gives (made when the batch starts). */
typedef struct mb_rec {
    int n;
    const rsql_value_t **rows; /* in the batch's arena */
    uint8_t *kinds;
    rsql_error_t *err; /* its error (in the batch's arena), or NULL */
    bool none;         /* no row could be made: its own transform says why */
} mb_rec_t;

/* A group that a set of rows changed (a record's rows, or a mini-batch's). */
typedef struct mb_key {
    bool used;
    uint32_t len;
    size_t off; /* its key's bytes in rt_agg.mkeys */
    uint64_t hash;
    int last;   /* the last record of the set that changed it: it gives the group's rows */
    const rsql_value_t *before, *after; /* its result before the set (NULL: none), after it
                                           (NULL: the group is gone) */
    int n_out;  /* what it gives (emit) */
    const rsql_value_t *out[2];
    uint8_t kout[2];
} mb_key_t;

struct rt_agg {
    const rsql_plan_t *plan;
    const rsql_plan_agg_t *a;
    rt_state_t *state;
    int w;        /* the aggregate row: the keys' values, then the calls' results */
    rsql_buf_t key, value, before, after;
    uint64_t rows, groups, updates, unchanged, deletes, ignored;
    /* DISTINCT calls: a value's mark (dkey), and the marks of the values the row being added
       took ([u32 length][bytes] each), put into the state once the row is taken */
    rsql_buf_t dkey, marks;
    int64_t now; /* the wall clock when the record's batch came (ms) */
    const rsql_batch_t *clock_batch; /* the batch it is of, and its first record's seq */
    uint64_t clock_seq;
    /* mini-batch (plan->agg->mini_batch): the batch whose records' rows were made */
    const rsql_batch_t *mb_batch;
    uint64_t mb_seq;
    int mb_cap, mk_cap;
    mb_rec_t *mb;
    mb_key_t *mk;        /* the groups a set of rows changed, by key (mk_cap, a power of 2) */
    int *touched;        /* their slots in mk, in the order first changed */
    int n_touched, touched_cap;
    rsql_buf_t mkeys;
    uint64_t batches;
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
    rsql_buf_init(&g->mkeys);
    rsql_buf_init(&g->dkey);
    rsql_buf_init(&g->marks);
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
    rsql_buf_deinit(&g->mkeys);
    rsql_buf_deinit(&g->dkey);
    rsql_buf_deinit(&g->marks);
    rsql_free(g->mb);
    rsql_free(g->mk);
    rsql_free(g->touched);
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

/*
** rsql_agg_seen_cb: whether the group of g->key took v for DISTINCT call `call` before. Its
** mark in the state: 2, the call's index (4 bytes), the group's values (as in g->key), v.
*/
static rsql_err_t seen_before(void *opaque, int call, const rsql_value_t *v, bool *seen,
                              rsql_error_t *err)
{
    rt_agg_t *g = opaque;
    return rsql_rt_agg_mark_seen(g->state, &g->key, call, v, g->now, &g->dkey, &g->marks, seen,
                                 err);
}

/* See rt_agg.h. */
rsql_err_t rsql_rt_agg_mark_seen(rt_state_t *state, const rsql_buf_t *key, int call,
                                 const rsql_value_t *v, int64_t now, rsql_buf_t *dkey,
                                 rsql_buf_t *marks, bool *seen, rsql_error_t *err)
{
    uint8_t idx[4] = {(uint8_t)call, (uint8_t)(call >> 8), (uint8_t)(call >> 16),
                      (uint8_t)(call >> 24)};
    rsql_buf_reset(dkey);
    rsql_buf_putc(dkey, 2);
    rsql_buf_append(dkey, idx, sizeof idx);
    rsql_buf_append(dkey, key->data + 1, key->len - 1);
    rsql_value_pack(v, 1, dkey);
    if (dkey->oom) {
        return rsql_error_nomem(err);
    }
    const uint8_t *old;
    size_t old_len;
    rsql_err_t rc = rsql_rt_state_get(state, dkey->data, dkey->len, now, &old, &old_len, seen,
                                      err);
    if (rc == RSQL_OK && !*seen) {
        uint32_t n = (uint32_t)dkey->len;
        rsql_buf_append(marks, &n, sizeof n);
        rsql_buf_append(marks, dkey->data, dkey->len);
        if (marks->oom) {
            return rsql_error_nomem(err);
        }
    }
    return rc;
}

/* Put the marks of the DISTINCT values the record took (seen_before) into the state. */
static rsql_err_t put_marks(rt_agg_t *g)
{
    for (size_t off = 0; off + sizeof(uint32_t) <= g->marks.len;) {
        uint32_t n;
        memcpy(&n, g->marks.data + off, sizeof n);
        off += sizeof n;
        if (rsql_rt_state_put(g->state, g->marks.data + off, n, NULL, 0, g->now) != RSQL_OK) {
            return RSQL_ERR_NOMEM;
        }
        off += n;
    }
    return RSQL_OK;
}

/*
** Rec's row (in: its source row) into its group's accumulators: *dropped when WHERE drops it;
** else *before is the group's result row before it (NULL for a new group) and *after the new
** one, both in the batch's arena, and g->key holds the group's key.
*/
static rsql_err_t update(rt_agg_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                         rsql_eval_ctx_t *ctx, const rsql_value_t *in, bool adds, bool *dropped,
                         const rsql_value_t **before, const rsql_value_t **after,
                         rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    const rsql_value_t *row;
    *dropped = false;
    *before = NULL;
    *after = NULL;
    rsql_err_t rc = rsql_plan_row(g->plan, in, ctx, &row, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (a->pre) {
        rsql_value_t v;
        if ((rc = rsql_expr_eval(a->pre, row, ctx, &v, err)) != RSQL_OK) {
            return rc;
        }
        if (v.is_null || v.type != RSQL_TYPE_BOOLEAN || !v.v.b) {
            *dropped = true;
            return RSQL_OK;
        }
    }
    rsql_value_t *keys = rsql_arena_alloc(batch->arena,
                                          sizeof *keys * (size_t)(a->n_group ? a->n_group : 1));
    rsql_value_t *acc = rsql_arena_alloc(batch->arena, sizeof *acc * (size_t)a->n_acc);
    if (!keys || !acc) {
        return rsql_error_nomem(err);
    }
    if ((rc = rsql_rt_key_make(&g->key, a->group, a->n_group, row, ctx, keys, batch->arena,
                               err)) != RSQL_OK) {
        return rc;
    }
    if (batch != g->clock_batch || batch->recs[0].seq != g->clock_seq) {
        g->clock_batch = batch; /* the clock once a batch: its rows came together */
        g->clock_seq = batch->recs[0].seq;
        g->now = rsql_wall_ms();
    }
    int64_t now = g->now;
    const uint8_t *old = NULL;
    size_t old_len = 0;
    bool seen;
    if ((rc = rsql_rt_state_get(g->state, g->key.data, g->key.len, now, &old, &old_len, &seen,
                                err)) != RSQL_OK) {
        return rc;
    }
    seen = seen && old_len > 0; /* an empty value: the group's rows were all retracted */
    if (!seen && !adds) {
        g->ignored++; /* the retraction of a row the group never had (Flink ignores it too) */
        *dropped = true;
        return RSQL_OK;
    }
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
        if (!(*before = result_row(g, batch, keys, acc))) {
            return rsql_error_nomem(err);
        }
    } else {
        rsql_plan_agg_init(a, acc);
    }
    rsql_buf_reset(&g->marks);
    rc = adds ? rsql_plan_agg_add(a, acc, row, ctx, batch->arena, seen_before, g, err)
              : rsql_plan_agg_retract(a, acc, row, ctx, err);
    if (rc != RSQL_OK) {
        return rc; /* the state is left as it was: the row fails alone */
    }
    rsql_buf_reset(&g->value);
    bool gone = acc[0].v.i <= 0; /* every row of the group retracted: it is forgotten */
    if (!gone) {
        *after = result_row(g, batch, keys, acc);
        rsql_value_pack(acc, a->n_acc, &g->value);
    }
    if ((!gone && !*after) || g->value.oom ||
        rsql_rt_state_put(g->state, g->key.data, g->key.len, g->value.data, g->value.len,
                          now) != RSQL_OK ||
        put_marks(g) != RSQL_OK) {
        return rsql_error_nomem(err);
    }
    g->rows++;
    return RSQL_OK;
}

/*
** What a group whose result went from before (NULL: a new group) to after (NULL: the group is
** gone) gives: *n rows (0 when the results are the same) into rows and kinds.
*/
static rsql_err_t emit(rt_agg_t *g, const rsql_value_t *before, const rsql_value_t *after,
                       const rsql_value_t **rows, uint8_t *kinds, int *n, rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    *n = 0;
    if (!before && !after) {
        return RSQL_OK; /* a group that came and went */
    }
    if (!after) {
        g->deletes++;
        rows[0] = before;
        kinds[0] = RSQL_ROW_DELETE;
        *n = 1;
        return RSQL_OK;
    }
    if (!before) {
        g->groups++;
        rows[0] = after;
        kinds[0] = RSQL_ROW_INSERT;
        *n = 1;
        return RSQL_OK;
    }
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
        return RSQL_OK;
    }
    g->updates++;
    if (a->emit_before) {
        rows[*n] = before;
        kinds[(*n)++] = RSQL_ROW_UPDATE_BEFORE;
    }
    rows[*n] = after;
    kinds[(*n)++] = RSQL_ROW_UPDATE_AFTER;
    return RSQL_OK;
}

/* See rt_agg.h. */
rsql_err_t rsql_rt_agg_give(rsql_batch_t *batch, rsql_record_t *rec, const rsql_value_t *const *rows,
                       const uint8_t *kinds, int n, const rsql_value_t **in, bool *keep,
                       rsql_error_t *err)
{
    if (n == 0) {
        rec->n_rows = 1; /* done as filtered: its source rows (an update's two) are not ours */
        *keep = false;
        return RSQL_OK;
    }
    const rsql_value_t **r = rsql_arena_alloc(batch->arena, (size_t)n * sizeof *r);
    uint8_t *k = rsql_arena_alloc(batch->arena, (size_t)n);
    if (!r || !k) {
        return rsql_error_nomem(err);
    }
    memcpy(r, rows, (size_t)n * sizeof *r);
    memcpy(k, kinds, (size_t)n);
    rec->n_rows = n;
    rec->rows = (rsql_value_t **)r;
    rec->kinds = k;
    rec->row = rec->rows[0];
    rec->kind = k[0];
    *in = r[0];
    return RSQL_OK;
}

/* ---- the groups a set of rows changed: a record's rows, a mini-batch */

/* The slot of g->key among the set's groups (a free one when it has none). */
static mb_key_t *key_slot(rt_agg_t *g, uint64_t h)
{
    size_t mask = (size_t)g->mk_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        mb_key_t *k = &g->mk[i];
        if (!k->used || (k->hash == h && k->len == g->key.len &&
                         memcmp(g->mkeys.data + k->off, g->key.data, k->len) == 0)) {
            return k;
        }
    }
}

/* Start a set of at most n rows: an empty table of groups twice as large (a power of 2). */
static bool set_begin(rt_agg_t *g, int n)
{
    int want = 16;
    while (want < 2 * n) {
        want *= 2;
    }
    if (want > g->mk_cap) {
        mb_key_t *k = rsql_realloc(g->mk, sizeof *k * (size_t)want);
        int *t = rsql_realloc(g->touched, sizeof *t * (size_t)want);
        if (k) {
            g->mk = k;
        }
        if (t) {
            g->touched = t;
        }
        if (!k || !t) {
            return false;
        }
        memset(g->mk, 0, sizeof *g->mk * (size_t)want);
        g->mk_cap = g->touched_cap = want;
        g->n_touched = 0;
    }
    for (int i = 0; i < g->n_touched; i++) {
        g->mk[g->touched[i]].used = false;
    }
    g->n_touched = 0;
    rsql_buf_reset(&g->mkeys);
    return true;
}

/* Record idx of the set changed g->key's group from before to after. */
static rsql_err_t set_note(rt_agg_t *g, int idx, const rsql_value_t *before,
                           const rsql_value_t *after, rsql_error_t *err)
{
    uint64_t h = rsql_rt_state_hash(g->key.data, g->key.len);
    mb_key_t *k = key_slot(g, h);
    if (k->used) {
        k->last = idx;
        k->after = after;
        return RSQL_OK;
    }
    *k = (mb_key_t){.used = true, .len = (uint32_t)g->key.len, .off = g->mkeys.len, .hash = h,
                    .last = idx, .before = before, .after = after};
    g->touched[g->n_touched++] = (int)(k - g->mk);
    rsql_buf_append(&g->mkeys, g->key.data, g->key.len);
    return g->mkeys.oom ? rsql_error_nomem(err) : RSQL_OK;
}

/* What each group of the set gives (k->n_out, out, kout). */
static rsql_err_t set_emit(rt_agg_t *g, rsql_error_t *err)
{
    for (int t = 0; t < g->n_touched; t++) {
        mb_key_t *k = &g->mk[g->touched[t]];
        rsql_err_t rc = emit(g, k->before, k->after, k->out, k->kout, &k->n_out, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/* The rows of rec (its row k: rows[k] when it has several) and their kinds. */
static int rec_rows(const rsql_record_t *rec)
{
    return rec->n_rows > 1 ? rec->n_rows : 1;
}

static const rsql_value_t *rec_row(const rsql_record_t *rec, int k)
{
    return rec->n_rows > 1 ? rec->rows[k] : rec->row;
}

static int rec_kind(const rsql_record_t *rec, int k)
{
    return rec->n_rows > 1 && rec->kinds ? rec->kinds[k] : rec->kind;
}

/* See rt_agg.h. */
rsql_err_t rsql_rt_agg_batch(rt_agg_t *g, rsql_batch_t *batch, rt_row_of_cb row_of,
                             void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    g->mb_batch = NULL;
    if (batch->n == 0) {
        return RSQL_OK;
    }
    if (batch->n > g->mb_cap) {
        mb_rec_t *m = rsql_realloc(g->mb, sizeof *m * (size_t)batch->n);
        if (!m) {
            return rsql_error_nomem(err);
        }
        g->mb = m;
        g->mb_cap = batch->n;
    }
    memset(g->mb, 0, sizeof *g->mb * (size_t)batch->n);
    int n_rows = 0;
    for (int i = 0; i < batch->n; i++) {
        g->mb[i].none = !row_of(opaque, batch, &batch->recs[i]);
        n_rows += g->mb[i].none ? 0 : rec_rows(&batch->recs[i]);
    }
    if (!set_begin(g, n_rows)) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < batch->n; i++) {
        rsql_record_t *rec = &batch->recs[i];
        if (g->mb[i].none) {
            continue;
        }
        for (int r = 0; r < rec_rows(rec); r++) {
            const rsql_value_t *before, *after;
            bool dropped;
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_err_t rc = update(g, batch, rec, ctx, rec_row(rec, r),
                                   rsql_rowkind_adds(rec_kind(rec, r)), &dropped, &before,
                                   &after, &e);
            if (rc != RSQL_OK) { /* told when its record's turn comes */
                g->mb[i].err = rsql_arena_alloc(batch->arena, sizeof e);
                if (!g->mb[i].err) {
                    return rsql_error_nomem(err);
                }
                *g->mb[i].err = e;
                g->mb[i].err->code = e.code ? e.code : rc;
                break;
            }
            if (!dropped && (rc = set_note(g, i, before, after, err)) != RSQL_OK) {
                return rc;
            }
        }
    }
    rsql_err_t rc = set_emit(g, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    for (int t = 0; t < g->n_touched; t++) { /* the rows each record gives */
        const mb_key_t *k = &g->mk[g->touched[t]];
        g->mb[k->last].n += k->n_out;
    }
    for (int i = 0; i < batch->n; i++) {
        mb_rec_t *m = &g->mb[i];
        if (m->n > 0) {
            m->rows = rsql_arena_alloc(batch->arena, sizeof *m->rows * (size_t)m->n);
            m->kinds = rsql_arena_alloc(batch->arena, (size_t)m->n);
            if (!m->rows || !m->kinds) {
                return rsql_error_nomem(err);
            }
            m->n = 0;
        }
    }
    for (int t = 0; t < g->n_touched; t++) {
        const mb_key_t *k = &g->mk[g->touched[t]];
        mb_rec_t *m = &g->mb[k->last];
        for (int o = 0; o < k->n_out; o++) {
            m->rows[m->n] = k->out[o];
            m->kinds[m->n++] = k->kout[o];
        }
    }
    g->batches++;
    g->mb_batch = batch;
    g->mb_seq = batch->recs[0].seq;
    return RSQL_OK;
}

/* Rec's rows, made when its batch started. */
static rsql_err_t mb_record(rt_agg_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                            const rsql_value_t **in, bool *keep, rsql_error_t *err)
{
    ptrdiff_t i = rec - batch->recs;
    if (batch != g->mb_batch || batch->n == 0 || batch->recs[0].seq != g->mb_seq || i < 0 ||
        i >= batch->n) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "mini-batch: a record of a batch whose rows were not made");
    }
    const mb_rec_t *m = &g->mb[i];
    if (m->err) {
        *err = *m->err;
        return err->code;
    }
    return rsql_rt_agg_give(batch, rec, m->rows, m->kinds, m->n, in, keep, err);
}

/* See rt_agg.h. */
rsql_err_t rsql_rt_agg_record(rt_agg_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                              rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                              rsql_error_t *err)
{
    if (g->a->mini_batch) {
        return mb_record(g, batch, rec, in, keep, err);
    }
    const rsql_value_t *before, *after, *rows[2];
    uint8_t kinds[2];
    bool dropped;
    int n = 0;
    rsql_err_t rc;
    if (rec_rows(rec) == 1) { /* an insert, a delete, an update that gives one row */
        rc = update(g, batch, rec, ctx, *in, rsql_rowkind_adds(rec->kind), &dropped, &before,
                    &after, err);
        if (rc == RSQL_OK && !dropped) {
            rc = emit(g, before, after, rows, kinds, &n, err);
        }
        return rc != RSQL_OK ? rc : rsql_rt_agg_give(batch, rec, rows, kinds, n, in, keep, err);
    }
    /* several rows (an update's -U and +U): each group they changed gives its rows once. A row
       that fails leaves the ones before it applied: the record fails (its position is never
       saved, nor the state's changes with it) */
    if (!set_begin(g, rec->n_rows)) {
        return rsql_error_nomem(err);
    }
    for (int r = 0; r < rec->n_rows; r++) {
        rc = update(g, batch, rec, ctx, rec->rows[r], rsql_rowkind_adds(rec_kind(rec, r)),
                    &dropped, &before, &after, err);
        if (rc == RSQL_OK && !dropped) {
            rc = set_note(g, 0, before, after, err);
        }
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    if ((rc = set_emit(g, err)) != RSQL_OK) {
        return rc;
    }
    const rsql_value_t *all[2 * 16];
    uint8_t all_kinds[2 * 16];
    const rsql_value_t **out = all;
    uint8_t *out_kinds = all_kinds;
    if (g->n_touched > 16) {
        out = rsql_arena_alloc(batch->arena, sizeof *out * 2 * (size_t)g->n_touched);
        out_kinds = rsql_arena_alloc(batch->arena, 2 * (size_t)g->n_touched);
        if (!out || !out_kinds) {
            return rsql_error_nomem(err);
        }
    }
    for (int t = 0; t < g->n_touched; t++) {
        const mb_key_t *k = &g->mk[g->touched[t]];
        for (int o = 0; o < k->n_out; o++) {
            out[n] = k->out[o];
            out_kinds[n++] = k->kout[o];
        }
    }
    return rsql_rt_agg_give(batch, rec, out, out_kinds, n, in, keep, err);
}

/* See rt_agg.h. */
size_t rsql_rt_agg_describe(rt_agg_t *g, char *buf, size_t size)
{
    if (!g || size == 0) {
        return 0;
    }
    int n = snprintf(buf, size,
                     "aggregation: %llu rows gave %llu new groups and %llu updates (%llu left "
                     "a result unchanged)",
                     (unsigned long long)g->rows, (unsigned long long)g->groups,
                     (unsigned long long)g->updates, (unsigned long long)g->unchanged);
    if (n > 0 && (size_t)n < size && g->a->mini_batch) {
        n += snprintf(buf + n, size - (size_t)n, " in %llu mini-batches",
                      (unsigned long long)g->batches);
    }
    if (n > 0 && (size_t)n < size) {
        n += snprintf(buf + n, size - (size_t)n, "; ");
    }
    if (n < 0 || (size_t)n >= size) {
        return n < 0 ? 0 : size - 1;
    }
    return (size_t)n + rsql_rt_state_describe(g->state, buf + n, size - (size_t)n);
}
