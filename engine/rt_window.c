/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_window: window aggregation's stage of the transform (planner/plan_window.c says what it
 * means). Each record's row is made, its watermark value taken (before WHERE, as the source
 * gives it), passed through WHERE, and put into each window of its event time: the window's
 * group (its GROUP BY values with window_start and window_end) has its accumulators in the
 * state under [3][end][start][the packed GROUP BY values], updated as rt_agg.c does. A window
 * knows its groups (an index in memory, sorted by end, read back from the state at open), so
 * that once the watermark passes its end each group gives its result (+I) and is deleted from
 * the state, with the record that moved the watermark: the result rows travel with that
 * record, and the deletions reach the catalog with its position, so a run killed at any moment
 * resumes with exactly the windows of the rows before its positions.
 *
 * Watermarks: each lane's (rec->partition) is the greatest WATERMARK value of its rows; the
 * statement's is the least of the lanes' not idle, never going back. A lane's watermark is
 * saved in the state ([4][lane]) whenever it moves into another slice (the unit of time the
 * windows' ends fall on): everything this stage decides compares a window's end with the
 * watermark, and within one slice the answer is the same, so a run that resumes decides as
 * the run before would have.
 *
 * Over processing time (plan->window->proctime) a row's time is when its batch is processed
 * and the watermark is the clock: the rows' own times, and the clock's now when a record
 * marked RSQL_REC_TICK comes, which the transform thread makes when no batch came by the
 * earliest open window's end (rsql_rt_window_due); no lane's watermark is kept.
 * @locality the transform thread (checkpoints: the worker, through rt_state)
 */
#include "config.h"
#include "engine/rt_window_int.h"
#include "engine/rt_agg.h"
#include "engine/rt_key.h"
#include "base/rsql_buf.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* The slice a watermark is in: windows' ends all fall on slice boundaries. */
static int64_t slice_of(const rsql_plan_window_t *w, int64_t wm)
{
    if (wm == INT64_MIN) {
        return INT64_MIN;
    }
    int64_t x = wm + 1 - w->offset_ms; /* a window ending at E is done when E - 1 <= wm */
    return x / w->slice_ms - (x % w->slice_ms < 0);
}

/* ---- the open windows */

/* The index of window [start, end) among the open ones, or where it would go (*found false). */
static int win_find(const rt_window_t *g, int64_t start, int64_t end, bool *found)
{
    int lo = 0, hi = g->n_wins;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const win_t *m = &g->wins[mid];
        if (m->end < end || (m->end == end && m->start < start)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *found = lo < g->n_wins && g->wins[lo].end == end && g->wins[lo].start == start;
    return lo;
}

/* Window [start, end), made open when it is not. NULL: out of memory. */
win_t *rsql_rt_window__get(rt_window_t *g, int64_t start, int64_t end)
{
    bool found;
    int i = win_find(g, start, end, &found);
    if (found) {
        return &g->wins[i];
    }
    if (g->n_wins == g->cap_wins) {
        int cap = g->cap_wins ? 2 * g->cap_wins : 16;
        win_t *n = rsql_realloc(g->wins, sizeof *n * (size_t)cap);
        if (!n) {
            return NULL;
        }
        g->wins = n;
        g->cap_wins = cap;
    }
    memmove(&g->wins[i + 1], &g->wins[i], sizeof *g->wins * (size_t)(g->n_wins - i));
    g->n_wins++;
    win_t *x = &g->wins[i];
    memset(x, 0, sizeof *x);
    x->start = start;
    x->end = end;
    rsql_buf_init(&x->keys);
    g->windows++;
    return x;
}

/* Key (len bytes) into window x's keys. */
bool rsql_rt_window__note(win_t *x, const void *key, size_t len)
{
    uint32_t n = (uint32_t)len;
    rsql_buf_append(&x->keys, &n, sizeof n);
    rsql_buf_append(&x->keys, key, len);
    x->groups += ((const unsigned char *)key)[0] == KEY_GROUP;
    return !x->keys.oom;
}

static lane_t *lane_of(rt_window_t *g, uint32_t lane)
{
    if (lane >= g->n_lanes) {
        lane_t *l = rsql_realloc(g->lanes, sizeof *l * ((size_t)lane + 1));
        if (!l) {
            return NULL;
        }
        memset(l + g->n_lanes, 0, sizeof *l * ((size_t)lane + 1 - g->n_lanes));
        g->lanes = l;
        g->n_lanes = lane + 1;
    }
    return &g->lanes[lane];
}

/* rt_state_scan_cb: the state's windows and lanes, as a run left them. */
static rsql_err_t on_scan(void *opaque, const void *key, size_t key_len, const void *value,
                          size_t value_len)
{
    rt_window_t *g = opaque;
    const unsigned char *k = key;
    if (key_len >= HEAD && k[0] == KEY_GROUP) {
        win_t *x = rsql_rt_window__get(g, get_u64(k + 9), get_u64(k + 1));
        if (!x || !rsql_rt_window__note(x, key, key_len)) {
            return RSQL_ERR_NOMEM;
        }
        return g->w->kind == RSQL_WIN_SESSION ? rsql_rt_window__session_scan(g, k, key_len)
                                               : RSQL_OK;
    }
    if (key_len >= 4 + HEAD && k[0] == KEY_MARK) { /* [2][call: 4 bytes][end][start]... */
        win_t *x = rsql_rt_window__get(g, get_u64(k + 13), get_u64(k + 5));
        return x && rsql_rt_window__note(x, key, key_len) ? RSQL_OK : RSQL_ERR_NOMEM;
    }
    if (key_len == 1 && k[0] == KEY_END && value_len == 8) {
        g->end_wm = get_u64(value);
        return RSQL_OK;
    }
    if (key_len == 5 && k[0] == KEY_LANE && value_len == 8) {
        uint32_t lane = (uint32_t)k[1] | (uint32_t)k[2] << 8 | (uint32_t)k[3] << 16 |
                        (uint32_t)k[4] << 24;
        lane_t *l = lane_of(g, lane);
        if (!l) {
            return RSQL_ERR_NOMEM;
        }
        l->has = true;
        l->wm = get_u64(value);
        l->saved = slice_of(g->w, l->wm);
        l->seen_ms = rsql_now_ms();
    }
    return RSQL_OK;
}

/* See rt_window.h. */
rsql_err_t rsql_rt_window_open(const rsql_plan_t *plan, rsql_catalog_t *cat,
                               const char *pipeline, rt_window_t **out, rsql_error_t *err)
{
    rt_window_t *g = rsql_calloc(1, sizeof *g);
    if (!g) {
        return rsql_error_nomem(err);
    }
    g->plan = plan;
    g->a = plan->agg;
    g->w = plan->window;
    g->wm = INT64_MIN;
    g->end_wm = INT64_MIN;
    rsql_buf_init(&g->key);
    rsql_buf_init(&g->value);
    rsql_buf_init(&g->dkey);
    rsql_buf_init(&g->marks);
    rsql_buf_init(&g->pkey);
    if (g->w->rows) { /* the function's rows without an aggregation: nothing kept */
        *out = g;
        return RSQL_OK;
    }
    g->width = g->a->n_group + g->a->n_calls;
    int ng = g->a->n_group;
    g->key_types = rsql_calloc((size_t)ng + 1, sizeof *g->key_types);
    g->key_descs = rsql_calloc((size_t)ng + 1, sizeof *g->key_descs);
    if (!g->key_types || !g->key_descs) {
        rsql_rt_window_close(g);
        return rsql_error_nomem(err);
    }
    for (int k = 0; k < ng; k++) {
        g->key_types[k] = g->a->group[k]->type;
        g->key_descs[k] = g->a->group[k]->desc;
    }
    /* a window's state lives until the window is given: no TTL. None when the sink merges. */
    rsql_err_t rc = g->w->in_sink ? RSQL_OK
                                  : rsql_rt_state_open_scan(cat, pipeline, 0, g->a->memory,
                                                            on_scan, g, &g->state, err);
    if (rc != RSQL_OK) {
        rsql_rt_window_close(g);
        return rc;
    }
    /* the statement's watermark as the lanes left it */
    int64_t least = INT64_MAX;
    for (uint32_t i = 0; i < g->n_lanes; i++) {
        if (g->lanes[i].has && g->lanes[i].wm < least) {
            least = g->lanes[i].wm;
        }
    }
    g->wm = least == INT64_MAX ? INT64_MIN : least;
    if (g->end_wm > g->wm) { /* the windows given at an input's end stay given */
        g->wm = g->end_wm;
    }
    *out = g;
    return RSQL_OK;
}

/* See rt_window.h. */
void rsql_rt_window_close(rt_window_t *g)
{
    if (!g) {
        return;
    }
    rsql_rt_state_close(g->state);
    for (int i = 0; i < g->n_wins; i++) {
        rsql_buf_deinit(&g->wins[i].keys);
    }
    rsql_free(g->wins);
    rsql_free(g->lanes);
    rsql_free(g->key_types);
    rsql_free(g->key_descs);
    rsql_free(g->out);
    rsql_free(g->kinds);
    rsql_buf_deinit(&g->key);
    rsql_buf_deinit(&g->value);
    rsql_buf_deinit(&g->dkey);
    rsql_buf_deinit(&g->marks);
    rsql_rt_window__session_free(g);
    rsql_buf_deinit(&g->pkey);
    rsql_free(g);
}

/* See rt_window.h. */
int64_t rsql_rt_window_due(rt_window_t *g)
{
    return g->w->proctime && g->n_wins > 0 ? g->wins[0].end - 1 : INT64_MAX;
}

/* See rt_window.h. */
rt_state_t *rsql_rt_window_state(rt_window_t *g)
{
    return g->state;
}

/* See rt_window.h. */
int64_t rsql_rt_window_late(rt_window_t *g)
{
    return g ? atomic_load_explicit(&g->late, memory_order_relaxed) : 0;
}

static bool out_add(rt_window_t *g, const rsql_value_t *row);

/* ---- a row into its windows */

/*
** rsql_agg_seen_cb: whether the group of g->key took v for DISTINCT call `call` before. Its
** mark: 2, the call's index (4 bytes), the group's key after its tag, v.
*/
static rsql_err_t seen_before(void *opaque, int call, const rsql_value_t *v, bool *seen,
                              rsql_error_t *err)
{
    rt_window_t *g = opaque;
    return rsql_rt_agg_mark_seen(g->state, &g->key, call, v, g->now, &g->dkey, &g->marks, seen,
                                 err);
}

/* See rt_window_int.h. */
rsql_err_t rsql_rt_window__key(rt_window_t *g, rsql_value_t *row, int64_t start, int64_t end,
                               rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    set_window(row, g->w->col, start, end);
    unsigned char head[HEAD];
    head[0] = KEY_GROUP;
    put_u64(head + 1, end);
    put_u64(head + 9, start);
    rsql_buf_reset(&g->key);
    rsql_buf_append(&g->key, head, sizeof head);
    return rsql_rt_key_append(&g->key, g->a->group, g->a->n_group, row, ctx, NULL, NULL, err);
}

/* The row (window_start, window_end and window_time set to window x's) into x's group. */
static rsql_err_t add_to(rt_window_t *g, win_t *x, rsql_batch_t *batch, rsql_record_t *rec,
                         rsql_value_t *row, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    rsql_err_t rc = rsql_rt_window__key(g, row, x->start, x->end, ctx, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    const uint8_t *old = NULL;
    size_t old_len = 0;
    bool seen;
    if ((rc = rsql_rt_state_get(g->state, g->key.data, g->key.len, g->now, &old, &old_len, &seen,
                                err)) != RSQL_OK) {
        return rc;
    }
    rsql_value_t *acc = rsql_arena_alloc(batch->arena, sizeof *acc * (size_t)a->n_acc);
    if (!acc) {
        return rsql_error_nomem(err);
    }
    if (seen) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rc = rsql_value_unpack(old, old_len, a->n_acc, a->acc_types, a->acc_descs, batch->arena,
                               acc, &e);
        if (rc != RSQL_OK) {
            return rsql_error_set(err, rc, RSQL_NOPOS,
                                  "the aggregates kept for this window cannot be read back (%s): "
                                  "the state was written by a statement with other aggregates; "
                                  "RESET POSITIONS starts over",
                                  e.msg);
        }
    } else {
        rsql_plan_agg_init(a, acc);
    }
    rsql_buf_reset(&g->marks);
    if ((rc = rsql_plan_agg_add(a, acc, row, ctx, batch->arena, seen_before, g, err)) !=
        RSQL_OK) {
        return rc; /* the state is left as it was: the row fails alone */
    }
    rsql_buf_reset(&g->value);
    rsql_value_pack(acc, a->n_acc, &g->value);
    if (g->value.oom || (!seen && !rsql_rt_window__note(x, g->key.data, g->key.len)) ||
        rsql_rt_state_put(g->state, g->key.data, g->key.len, g->value.data, g->value.len,
                          g->now) != RSQL_OK) {
        return rsql_error_nomem(err);
    }
    return rsql_rt_window__put_marks(g, x) ? RSQL_OK : rsql_error_nomem(err);
}

/* See rt_window_int.h. */
bool rsql_rt_window__put_marks(rt_window_t *g, win_t *x)
{
    for (size_t off = 0; off + sizeof(uint32_t) <= g->marks.len;) {
        uint32_t n;
        memcpy(&n, g->marks.data + off, sizeof n);
        off += sizeof n;
        if (!rsql_rt_window__note(x, g->marks.data + off, n) ||
            rsql_rt_state_put(g->state, g->marks.data + off, n, NULL, 0, g->now) != RSQL_OK) {
            return false;
        }
        off += n;
    }
    return true;
}

/*
** In a sink that merges (plan->window->in_sink): the row's own part of its group's result in
** window [start, end), an aggregate row of the keys and the results of this row alone, into
** g->out; the sink adds it to the row of its key.
*/
static rsql_err_t part(rt_window_t *g, int64_t start, int64_t end, rsql_batch_t *batch,
                       rsql_value_t *row, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    set_window(row, g->w->col, start, end);
    rsql_value_t *r = rsql_arena_alloc(batch->arena, sizeof *r * (size_t)(g->width ? g->width : 1));
    rsql_value_t *acc = rsql_arena_alloc(batch->arena, sizeof *acc * (size_t)a->n_acc);
    if (!r || !acc) {
        return rsql_error_nomem(err);
    }
    rsql_err_t rc;
    for (int k = 0; k < a->n_group; k++) {
        rsql_value_t v;
        if ((rc = rsql_expr_eval_row(a->group[k], row, ctx, &v, err)) != RSQL_OK) {
            return rc;
        }
        if (rsql_value_copy(&v, batch->arena, &r[k]) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    rsql_plan_agg_init(a, acc);
    if ((rc = rsql_plan_agg_add(a, acc, row, ctx, batch->arena, NULL, NULL, err)) != RSQL_OK) {
        return rc;
    }
    rsql_plan_agg_results(a, acc, r + a->n_group);
    g->results++;
    return out_add(g, r) ? RSQL_OK : rsql_error_nomem(err);
}

/* Row into window [start, end) unless it was given (the watermark passed its end). */
static rsql_err_t add_open(rt_window_t *g, int64_t start, int64_t end, rsql_batch_t *batch,
                           rsql_record_t *rec, rsql_value_t *row, rsql_eval_ctx_t *ctx,
                           int *added, rsql_error_t *err)
{
    if (g->wm != INT64_MIN && end - 1 <= g->wm) {
        return RSQL_OK;
    }
    if (g->w->in_sink) {
        (*added)++;
        return part(g, start, end, batch, row, ctx, err);
    }
    win_t *x = rsql_rt_window__get(g, start, end);
    if (!x) {
        return rsql_error_nomem(err);
    }
    (*added)++;
    return add_to(g, x, batch, rec, row, ctx, err);
}

/*
** Row (rsql_plan_row's, in ctx) into each of its windows not given yet; *late when every one
** was (its last window ended at or before the watermark): it is dropped.
*/
static rsql_err_t assign(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                         rsql_value_t *row, int64_t t, rsql_eval_ctx_t *ctx, bool *late,
                         rsql_error_t *err)
{
    const rsql_plan_window_t *w = g->w;
    rsql_err_t rc = RSQL_OK;
    int added = 0;
    if (w->kind == RSQL_WIN_SESSION) {
        return rsql_rt_window__session_add(g, batch, rec, row, t, ctx, late, err);
    }
    int64_t s, e;
    for (win_first(w, t, &s, &e); win_more(w, t, s, e) && rc == RSQL_OK; win_next(w, &s, &e)) {
        rc = add_open(g, s, e, batch, rec, row, ctx, &added, err);
    }
    *late = added == 0;
    return rc;
}

/*
** Why the row at t is late, into err (code RSQL_ERR_EVAL, no position): the windows it would
** have gone into, all given already, and the watermark. Its record's dead letter says it
** (table.exec.late-rows = dead-letter); the call succeeded all the same.
*/
static void late_note(const rt_window_t *g, int64_t t, rsql_error_t *err)
{
    const rsql_plan_window_t *w = g->w;
    char a[RSQL_VALUE_TEXT_MAX], b[RSQL_VALUE_TEXT_MAX];
    rsql_buf_t m = RSQL_BUF_INIT;
    rsql_value_format_timestamp(t, a);
    rsql_buf_printf(&m, "late row (%s %s): ", w->time_name, a);
    if (w->kind == RSQL_WIN_SESSION) {
        rsql_value_format_timestamp(t + w->size_ms, b);
        rsql_buf_printf(&m, "its session window [%s, %s) ended at or before the watermark, and "
                            "no session of its partition it would join is still open",
                        a, b);
    } else {
        int n = 0;
        int64_t s, e;
        for (win_first(w, t, &s, &e); win_more(w, t, s, e); win_next(w, &s, &e)) {
            if (n < 4) {
                rsql_value_format_timestamp(s, a);
                rsql_value_format_timestamp(e, b);
                rsql_buf_printf(&m, "%s[%s, %s)", n ? ", " : "its window ", a, b);
            } else if (n == 4) {
                rsql_buf_puts(&m, ", ...");
            }
            n++;
        }
        rsql_buf_printf(&m, n > 1 ? " (%s %d windows) were given already" : " was given already",
                        w->fn, n);
    }
    rsql_value_format_timestamp(g->wm, b);
    rsql_buf_printf(&m, "; the watermark is %s (%s)", b, w->watermark_text);
    rsql_error_clear(err);
    rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "%s",
                   m.oom || !m.data ? "late row: its windows were given already" : m.data);
    rsql_buf_deinit(&m);
}

/* ---- watermarks */

/* The record's lane took watermark value v (NULL: none): its watermark, saved when it moves
   into another slice, then the statement's. */
static rsql_err_t advance(rt_window_t *g, const rsql_record_t *rec, const rsql_value_t *v,
                          rsql_error_t *err)
{
    if (g->w->proctime) { /* processing time: the rows' own, the clock's (no lanes) */
        g->wm = !v->is_null && v->v.ts > g->wm ? v->v.ts : g->wm;
        return RSQL_OK;
    }
    lane_t *l = lane_of(g, rec->partition);
    if (!l) {
        return rsql_error_nomem(err);
    }
    l->seen_ms = g->mono_ms;
    if (!v->is_null && (!l->has || v->v.ts > l->wm)) {
        l->wm = v->v.ts;
        int64_t sl = slice_of(g->w, l->wm);
        if (g->state && (!l->has || sl != l->saved)) {
            unsigned char key[5] = {KEY_LANE, (unsigned char)rec->partition,
                                    (unsigned char)(rec->partition >> 8),
                                    (unsigned char)(rec->partition >> 16),
                                    (unsigned char)(rec->partition >> 24)};
            unsigned char val[8];
            put_u64(val, l->wm);
            if (rsql_rt_state_put(g->state, key, sizeof key, val, sizeof val, g->now) != RSQL_OK) {
                return rsql_error_nomem(err);
            }
            l->saved = sl;
        }
        l->has = true;
    }
    int64_t idle = g->w->idle_timeout_ms, least = INT64_MAX;
    for (uint32_t i = 0; i < g->n_lanes; i++) {
        const lane_t *x = &g->lanes[i];
        if (!(x->has || x->known) || (idle > 0 && g->mono_ms - x->seen_ms >= idle)) {
            continue; /* not a lane of the source yet, or idle */
        }
        if (!x->has) { /* a lane of the source without a row: no watermark yet */
            least = INT64_MIN;
            break;
        }
        least = x->wm < least ? x->wm : least;
    }
    if (least != INT64_MAX && least != INT64_MIN && least > g->wm) {
        g->wm = least;
    }
    return RSQL_OK;
}

/* ---- giving windows */

/* See rt_window_int.h. */
bool rsql_rt_window__out_add(rt_window_t *g, const rsql_value_t *row)
{
    return out_add(g, row);
}

static bool out_add(rt_window_t *g, const rsql_value_t *row)
{
    if (g->n_out == g->cap_out) {
        int cap = g->cap_out ? 2 * g->cap_out : 64;
        const rsql_value_t **o = rsql_realloc(g->out, sizeof *o * (size_t)cap);
        uint8_t *k = rsql_realloc(g->kinds, (size_t)cap);
        if (o) {
            g->out = o;
        }
        if (k) {
            g->kinds = k;
        }
        if (!o || !k) {
            return false;
        }
        g->cap_out = cap;
    }
    g->out[g->n_out] = row;
    g->kinds[g->n_out++] = RSQL_ROW_INSERT;
    return true;
}

/* Window x given: each group's result row into g->out, its keys deleted by rec. */
static rsql_err_t fire(rt_window_t *g, win_t *x, rsql_batch_t *batch, const rsql_record_t *rec,
                       rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    for (size_t off = 0; off + sizeof(uint32_t) <= x->keys.len;) {
        uint32_t n;
        memcpy(&n, x->keys.data + off, sizeof n);
        off += sizeof n;
        const unsigned char *k = (const unsigned char *)x->keys.data + off;
        off += n;
        if (k[0] == KEY_GROUP) {
            const uint8_t *v = NULL;
            size_t v_len = 0;
            bool found;
            rsql_err_t rc = rsql_rt_state_get(g->state, k, n, g->now, &v, &v_len, &found, err);
            if (rc != RSQL_OK) {
                return rc;
            }
            if (!found) {
                continue; /* given before this run resumed: its deletion is on disk */
            }
            rsql_value_t *r = rsql_arena_alloc(batch->arena,
                                               sizeof *r * (size_t)(g->width ? g->width : 1));
            rsql_value_t *acc = rsql_arena_alloc(batch->arena, sizeof *acc * (size_t)a->n_acc);
            if (!r || !acc) {
                return rsql_error_nomem(err);
            }
            rsql_error_t e;
            rsql_error_clear(&e);
            if ((rc = rsql_value_unpack(k + HEAD, n - HEAD, a->n_group, g->key_types,
                                        g->key_descs, batch->arena, r, &e)) != RSQL_OK ||
                (rc = rsql_value_unpack(v, v_len, a->n_acc, a->acc_types, a->acc_descs,
                                        batch->arena, acc, &e)) != RSQL_OK) {
                return rsql_error_set(err, rc, RSQL_NOPOS,
                                      "a window's group kept in the state cannot be read back "
                                      "(%s): the state was written by another statement; "
                                      "RESET POSITIONS starts over",
                                      e.msg);
            }
            rsql_plan_agg_results(a, acc, r + a->n_group);
            if (!out_add(g, r)) {
                return rsql_error_nomem(err);
            }
            g->results++;
        }
        if (rsql_rt_state_del(g->state, k, n, g->now) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}

/* Every open window the watermark passed (all of them at the input's end), in order of end. */
static rsql_err_t fire_due(rt_window_t *g, rsql_batch_t *batch, const rsql_record_t *rec,
                           bool all, rsql_error_t *err)
{
    int done = 0;
    rsql_err_t rc = RSQL_OK;
    while (done < g->n_wins && (all || (g->wm != INT64_MIN && g->wins[done].end - 1 <= g->wm))) {
        if ((rc = fire(g, &g->wins[done], batch, rec, err)) != RSQL_OK) {
            break;
        }
        rsql_buf_deinit(&g->wins[done].keys);
        done++;
    }
    if (done > 0) {
        memmove(g->wins, g->wins + done, sizeof *g->wins * (size_t)(g->n_wins - done));
        g->n_wins -= done;
    }
    return rc;
}

/* See rt_window.h. */
rsql_err_t rsql_rt_window_record(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                                 rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                 rsql_error_t *err)
{
    if (g->w->rows) {
        return rsql_rt_window__rows(g, batch, rec, ctx, in, keep, err);
    }
    if (batch != g->clock_batch || batch->recs[0].seq != g->clock_seq) {
        /* the clocks once a batch: its rows came together */
        g->clock_batch = batch;
        g->clock_seq = batch->recs[0].seq;
        g->now = rsql_wall_ms();
        g->mono_ms = rsql_now_ms();
    }
    g->n_out = 0;
    bool tick = (rec->flags & RSQL_REC_TICK) != 0; /* no row: the clock reached a window's end */
    int n = tick ? 0 : rec->n_rows > 1 ? rec->n_rows : 1;
    if (tick && g->w->proctime && g->now > g->wm) {
        g->wm = g->now;
    }
    int n_late = 0; /* the record's rows found late */
    rsql_error_t why; /* why its first late row is (table.exec.late-rows = dead-letter) */
    for (int r = 0; r < n; r++) {
        const rsql_value_t *src = r == 0 ? *in : rec->rows[r];
        const rsql_value_t *made;
        rsql_err_t rc = rsql_plan_row(g->plan, src, ctx, &made, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        rsql_value_t *row = (rsql_value_t *)made; /* ctx's: its window columns are ours */
        rsql_value_t wm, t;
        if ((rc = rsql_expr_eval_row(g->w->watermark, row, ctx, &wm, err)) != RSQL_OK) {
            return rc;
        }
        bool pass = true;
        if (g->a->pre) {
            rsql_value_t v;
            if ((rc = rsql_expr_eval_row(g->a->pre, row, ctx, &v, err)) != RSQL_OK) {
                return rc;
            }
            pass = !v.is_null && v.type == RSQL_TYPE_BOOLEAN && v.v.b;
        }
        if (pass) {
            if ((rc = rsql_expr_eval_row(g->w->time, row, ctx, &t, err)) != RSQL_OK) {
                return rc;
            }
            if (t.is_null) {
                return rsql_error_set(err, RSQL_ERR_EVAL, g->w->time->pos,
                                      "the event time %s is NULL: a row needs one to go into "
                                      "a window",
                                      g->w->time_name);
            }
            bool late;
            if ((rc = assign(g, batch, rec, row, t.v.ts, ctx, &late, err)) != RSQL_OK) {
                return rc;
            }
            if (late) {
                atomic_fetch_add_explicit(&g->late, 1, memory_order_relaxed);
                if (g->w->late_dead_letter && n_late++ == 0) {
                    late_note(g, t.v.ts, &why);
                }
            } else {
                g->rows++;
            }
        }
        if ((rc = advance(g, rec, &wm, err)) != RSQL_OK) {
            return rc;
        }
    }
    if (n_late > 0) {
        /* the record goes to the dead-letter table too, whatever rows it gives */
        rec->flags |= RSQL_REC_LATE;
        if (n_late > 1) {
            size_t len = strlen(why.msg);
            snprintf(why.msg + len, sizeof why.msg - len, " (and %d more of its record's rows)",
                     n_late - 1);
        }
    }
    bool last = (rec->flags & RSQL_REC_LAST) != 0;
    int64_t end = g->n_wins > 0 ? g->wins[g->n_wins - 1].end : INT64_MIN;
    rsql_err_t rc = fire_due(g, batch, rec, last, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (last && g->state && end != INT64_MIN && end - 1 > g->wm) {
        /* the input's end gave every window: a later run (the input grown) takes them as
           given, so the watermark stays past them, saved with this record */
        g->wm = end - 1;
        unsigned char key[1] = {KEY_END}, val[8];
        put_u64(val, g->wm);
        if (rsql_rt_state_put(g->state, key, sizeof key, val, sizeof val, g->now) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    rc = rsql_rt_agg_give(batch, rec, g->out, g->kinds, g->n_out, in, keep, err);
    if (rc == RSQL_OK && n_late > 0) {
        *err = why; /* RSQL_REC_LATE: the record's dead letter says why (rt_window.h) */
    }
    return rc;
}

/* See rt_window.h. */
rsql_err_t rsql_rt_window_lanes(rt_window_t *g, uint32_t n)
{
    if (g->w->proctime || n == 0 || (n <= g->n_lanes && g->lanes[n - 1].known)) {
        return RSQL_OK;
    }
    if (!lane_of(g, n - 1)) {
        return RSQL_ERR_NOMEM;
    }
    int64_t now = rsql_now_ms();
    for (uint32_t i = 0; i < n; i++) {
        lane_t *l = &g->lanes[i];
        if (!l->known) {
            l->known = true;
            if (!l->has) {
                l->seen_ms = now; /* its idle time counts from now */
            }
        }
    }
    return RSQL_OK;
}

/* See rt_window.h. */
size_t rsql_rt_window_describe(rt_window_t *g, char *buf, size_t size)
{
    if (!g || size == 0) {
        return 0;
    }
    if (g->w->rows) {
        int n = snprintf(buf, size,
                         "window rows: %llu rows in, %llu rows given with their windows; no state",
                         (unsigned long long)g->rows, (unsigned long long)g->results);
        return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
    }
    char wm[40] = "none";
    if (g->wm != INT64_MIN) {
        rsql_value_t v = {.type = RSQL_TYPE_TIMESTAMP, .v.ts = g->wm};
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_value_format(&v, &b);
        snprintf(wm, sizeof wm, "%s", b.oom || !b.data ? "?" : b.data);
        rsql_buf_deinit(&b);
    }
    int n = snprintf(buf, size,
                     "windows: %llu rows into %llu windows, %llu results given, %lld late rows "
                     "%s, %d windows open, watermark %s; ",
                     (unsigned long long)g->rows, (unsigned long long)g->windows,
                     (unsigned long long)g->results, (long long)rsql_rt_window_late(g),
                     g->w->late_dead_letter ? "dropped and dead-lettered" : "dropped",
                     g->n_wins, wm);
    if (n < 0 || (size_t)n >= size) {
        return n < 0 ? 0 : size - 1;
    }
    if (!g->state) {
        n += snprintf(buf + n, size - (size_t)n, "no state: the sink merged each row's part");
        return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
    }
    return (size_t)n + rsql_rt_state_describe(g->state, buf + n, size - (size_t)n);
}
