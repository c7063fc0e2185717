/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_window_session: SESSION windows (planner/plan_window.c says what they mean). A row at t
 * opens [t, t + gap) in its partition (the values of the PARTITION BY columns, which are the
 * GROUP BY's keys besides the window's), and merges with every open session of the partition
 * that overlaps or touches it (as Flink's sessions do): their accumulators are read from the
 * state, merged in order of start with the row added last (rsql_plan_agg_merge), put under
 * the merged session's key, and theirs deleted. The open sessions never overlap or touch each
 * other, so one pass over them finds all a row merges with. A session is a window of the
 * stage's index (rt_window.c), given as any window once the watermark passes its end; a key it
 * had before it grew stays in the index of its old bounds, and is skipped there (the state no
 * longer holds it). Each partition's list is the sessions it may still have: those given are
 * pruned when the partition is next used. A DISTINCT call's values (marks, as rt_window.c keeps
 * them) merge too: a merged session's are put under the new key, and a value two sessions both
 * took is taken back once from the accumulators that added both (move_marks).
 * @locality the transform thread
 */
#include "config.h"
#include "engine/rt_window_int.h"
#include "engine/rt_agg.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

#include <string.h>

struct sess_part {
    struct sess_part *next; /* in its bucket */
    uint64_t hash;
    int n, cap;
    int64_t (*s)[2]; /* the open sessions: start, end */
    size_t len;
    unsigned char key[]; /* the partition's values, packed */
};

/* The partition of g->pkey, made when missing (NULL: out of memory). */
static sess_part_t *part_get(rt_window_t *g)
{
    uint64_t h = rsql_rt_state_hash(g->pkey.data, g->pkey.len);
    if (g->cap_parts == 0 || g->n_parts >= 2 * g->cap_parts) { /* grow: rehash */
        size_t cap = g->cap_parts ? 4 * g->cap_parts : 256;
        sess_part_t **b = rsql_calloc(cap, sizeof *b);
        if (!b) {
            return NULL;
        }
        for (size_t i = 0; i < g->cap_parts; i++) {
            for (sess_part_t *p = g->parts[i], *next; p; p = next) {
                next = p->next;
                p->next = b[p->hash & (cap - 1)];
                b[p->hash & (cap - 1)] = p;
            }
        }
        rsql_free(g->parts);
        g->parts = b;
        g->cap_parts = cap;
    }
    sess_part_t **slot = &g->parts[h & (g->cap_parts - 1)];
    for (sess_part_t *p = *slot; p; p = p->next) {
        if (p->hash == h && p->len == g->pkey.len &&
            (p->len == 0 || memcmp(p->key, g->pkey.data, p->len) == 0)) {
            return p;
        }
    }
    sess_part_t *p = rsql_calloc(1, sizeof *p + g->pkey.len + 1);
    if (!p) {
        return NULL;
    }
    p->hash = h;
    p->len = g->pkey.len;
    if (p->len) { /* none without PARTITION BY: the whole stream is one partition */
        memcpy(p->key, g->pkey.data, p->len);
    }
    p->next = *slot;
    *slot = p;
    g->n_parts++;
    return p;
}

static bool part_push(sess_part_t *p, int64_t start, int64_t end)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 4;
        int64_t(*s)[2] = rsql_realloc(p->s, sizeof *s * (size_t)cap);
        if (!s) {
            return false;
        }
        p->s = s;
        p->cap = cap;
    }
    p->s[p->n][0] = start;
    p->s[p->n][1] = end;
    p->n++;
    return true;
}

/* See rt_window_int.h. */
void rsql_rt_window__session_free(rt_window_t *g)
{
    for (size_t i = 0; i < g->cap_parts; i++) {
        for (sess_part_t *p = g->parts[i], *next; p; p = next) {
            next = p->next;
            rsql_free(p->s);
            rsql_free(p);
        }
    }
    rsql_free(g->parts);
    g->parts = NULL;
    g->cap_parts = g->n_parts = 0;
}

/* Whether the group key at position k of the GROUP BY is window_start or window_end. */
static bool is_bound(const rt_window_t *g, int k)
{
    const rsql_bexpr_t *x = g->a->group[k];
    return x->kind == RSQL_BX_COLUMN && (x->column == g->w->col || x->column == g->w->col + 1);
}

/* See rt_window_int.h. */
rsql_err_t rsql_rt_window__session_scan(rt_window_t *g, const unsigned char *key, size_t len)
{
    int n = g->a->n_group;
    rsql_arena_t *arena = rsql_arena_new();
    rsql_value_t *vals = rsql_calloc((size_t)n + 1, sizeof *vals);
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = !arena || !vals ? RSQL_ERR_NOMEM
                                    : rsql_value_unpack(key + HEAD, len - HEAD, n, g->key_types,
                                                        g->key_descs, arena, vals, &e);
    if (rc == RSQL_OK) {
        rsql_buf_reset(&g->pkey);
        for (int k = 0; k < n; k++) {
            if (!is_bound(g, k)) {
                rsql_value_pack(&vals[k], 1, &g->pkey);
            }
        }
        sess_part_t *p = g->pkey.oom ? NULL : part_get(g);
        rc = p && part_push(p, get_u64(key + 9), get_u64(key + 1)) ? RSQL_OK : RSQL_ERR_NOMEM;
    } else if (rc != RSQL_ERR_NOMEM) {
        rc = RSQL_OK; /* not a key of this statement's: the run reads it as any other */
    }
    rsql_free(vals);
    rsql_arena_destroy(arena);
    return rc;
}

/* rsql_agg_seen_cb: whether the session of g->key took v for DISTINCT call `call` (its marks
   as rt_window.c's, gathered in g->marks). */
static rsql_err_t seen_in_session(void *opaque, int call, const rsql_value_t *v, bool *seen,
                                  rsql_error_t *err)
{
    rt_window_t *g = opaque;
    return rsql_rt_agg_mark_seen(g->state, &g->key, call, v, g->now, &g->dkey, &g->marks, seen,
                                 err);
}

/*
** The DISTINCT values session `old` took (marks [2][call][okey after its tag][value], noted in
** its window ow) become those of the session it merges into (its key nkey, nlen bytes; window
** nx): each mark is put under nkey unless it is there already, when the value was taken by
** both and so is in acc (which added both sessions') twice: it is taken back once. The old
** marks stay noted in ow and leave the state when it is given, as its group key did.
*/
static rsql_err_t move_marks(rt_window_t *g, const win_t *ow, const uint8_t *okey, size_t olen,
                             const uint8_t *nkey, size_t nlen, win_t *nx, rsql_value_t *acc,
                             rsql_batch_t *batch, const rsql_record_t *rec, rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    for (size_t off = 0; off + sizeof(uint32_t) <= ow->keys.len;) {
        uint32_t n;
        memcpy(&n, ow->keys.data + off, sizeof n);
        off += sizeof n;
        const uint8_t *k = (const uint8_t *)ow->keys.data + off;
        off += n;
        if (n <= 5 + (olen - 1) || k[0] != KEY_MARK || memcmp(k + 5, okey + 1, olen - 1) != 0) {
            continue; /* another group's, or not a mark */
        }
        int call = (int)((uint32_t)k[1] | (uint32_t)k[2] << 8 | (uint32_t)k[3] << 16 |
                         (uint32_t)k[4] << 24);
        if (call < 0 || call >= a->n_calls || !a->calls[call].distinct) {
            continue;
        }
        const uint8_t *val = k + 5 + (olen - 1);
        size_t val_len = n - 5 - (olen - 1);
        rsql_buf_reset(&g->dkey);
        rsql_buf_append(&g->dkey, k, 5);
        rsql_buf_append(&g->dkey, nkey + 1, nlen - 1);
        rsql_buf_append(&g->dkey, val, val_len);
        if (g->dkey.oom) {
            return rsql_error_nomem(err);
        }
        const uint8_t *old;
        size_t old_len;
        bool both;
        rsql_err_t rc = rsql_rt_state_get(g->state, g->dkey.data, g->dkey.len, g->now, &old,
                                          &old_len, &both, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (!both) {
            if (!rsql_rt_window__note(nx, g->dkey.data, g->dkey.len) ||
                rsql_rt_state_put(g->state, g->dkey.data, g->dkey.len, NULL, 0, g->now) !=
                    RSQL_OK) {
                return rsql_error_nomem(err);
            }
            continue;
        }
        const rsql_plan_aggcall_t *c = &a->calls[call];
        rsql_value_t v = {.type = RSQL_TYPE_BIGINT};
        if (c->fn != RSQL_AGG_COUNT) { /* SUM, AVG: the value itself */
            rsql_error_t e;
            rsql_error_clear(&e);
            if ((rc = rsql_value_unpack(val, val_len, 1, &c->arg->type,
                                        c->arg->desc ? &c->arg->desc : NULL, batch->arena, &v,
                                        &e)) != RSQL_OK) {
                return rsql_error_set(err, rc, RSQL_NOPOS,
                                      "a DISTINCT value kept in the state cannot be read back "
                                      "(%s): the state was written by another statement; RESET "
                                      "POSITIONS starts over",
                                      e.msg);
            }
        }
        if ((rc = rsql_plan_agg_take_back(a, acc, call, &v, err)) != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/* See rt_window_int.h. */
rsql_err_t rsql_rt_window__session_add(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                                       rsql_value_t *row, int64_t t, rsql_eval_ctx_t *ctx,
                                       bool *late, rsql_error_t *err)
{
    const rsql_plan_agg_t *a = g->a;
    rsql_err_t rc;
    *late = false;
    rsql_buf_reset(&g->pkey); /* the partition: the keys besides the window's */
    for (int k = 0; k < a->n_group; k++) {
        if (!is_bound(g, k)) {
            rsql_value_t v;
            if ((rc = rsql_expr_eval_row(a->group[k], row, ctx, &v, err)) != RSQL_OK) {
                return rc;
            }
            rsql_value_pack(&v, 1, &g->pkey);
        }
    }
    sess_part_t *p = g->pkey.oom ? NULL : part_get(g);
    if (!p) {
        return rsql_error_nomem(err);
    }
    int64_t start = t, end = t + g->w->size_ms;
    int merged[64], n_merged = 0, kept = 0;
    for (int i = 0; i < p->n; i++) { /* given ones pruned; those it meets merged */
        if (g->wm != INT64_MIN && p->s[i][1] - 1 <= g->wm) {
            continue;
        }
        p->s[kept][0] = p->s[i][0];
        p->s[kept][1] = p->s[i][1];
        if (p->s[kept][0] <= t + g->w->size_ms && p->s[kept][1] >= t && n_merged < 64) {
            merged[n_merged++] = kept;
            start = p->s[kept][0] < start ? p->s[kept][0] : start;
            end = p->s[kept][1] > end ? p->s[kept][1] : end;
        }
        kept++;
    }
    p->n = kept;
    if (n_merged == 0 && g->wm != INT64_MIN && end - 1 <= g->wm) {
        *late = true;
        return RSQL_OK;
    }
    for (int i = 1; i < n_merged; i++) { /* in order of start: FIRST_VALUE is the earliest's */
        for (int j = i; j > 0 && p->s[merged[j]][0] < p->s[merged[j - 1]][0]; j--) {
            int x = merged[j];
            merged[j] = merged[j - 1];
            merged[j - 1] = x;
        }
    }
    rsql_value_t *acc = rsql_arena_alloc(batch->arena, sizeof *acc * (size_t)a->n_acc);
    rsql_value_t *from = rsql_arena_alloc(batch->arena, sizeof *from * (size_t)a->n_acc);
    if (!acc || !from) {
        return rsql_error_nomem(err);
    }
    rsql_plan_agg_init(a, acc);
    bool same = false; /* the row falls inside one session, which keeps its bounds */
    /* DISTINCT calls: the merged session's key and window, for the values each one took */
    bool distinct = false;
    for (int c = 0; c < a->n_calls; c++) {
        distinct |= a->calls[c].distinct;
    }
    uint8_t *nkey = NULL;
    size_t nlen = 0;
    win_t *x = NULL;
    if (distinct) {
        if ((rc = rsql_rt_window__key(g, row, start, end, ctx, err)) != RSQL_OK) {
            return rc;
        }
        nlen = g->key.len;
        if (!(nkey = rsql_arena_alloc(batch->arena, nlen)) ||
            !(x = rsql_rt_window__get(g, start, end))) {
            return rsql_error_nomem(err);
        }
        memcpy(nkey, g->key.data, nlen);
    }
    for (int i = 0; i < n_merged; i++) {
        int64_t s0 = p->s[merged[i]][0], e0 = p->s[merged[i]][1];
        if ((rc = rsql_rt_window__key(g, row, s0, e0, ctx, err)) != RSQL_OK) {
            return rc;
        }
        const uint8_t *v;
        size_t v_len;
        bool found;
        if ((rc = rsql_rt_state_get(g->state, g->key.data, g->key.len, g->now, &v, &v_len, &found,
                                    err)) != RSQL_OK) {
            return rc;
        }
        if (found) {
            rsql_error_t e;
            rsql_error_clear(&e);
            if ((rc = rsql_value_unpack(v, v_len, a->n_acc, a->acc_types, a->acc_descs,
                                        batch->arena, from, &e)) != RSQL_OK) {
                return rsql_error_set(err, rc, RSQL_NOPOS,
                                      "a session kept in the state cannot be read back (%s): "
                                      "the state was written by another statement; RESET "
                                      "POSITIONS starts over",
                                      e.msg);
            }
            if ((rc = rsql_plan_agg_merge(a, acc, from, batch->arena, err)) != RSQL_OK) {
                return rc;
            }
        }
        same = s0 == start && e0 == end;
        if (distinct && !same) {
            /* the old session's window, then the new one's again (made before: found, so the
               index does not move under ow) */
            win_t *ow = rsql_rt_window__get(g, s0, e0);
            if (!ow || !(x = rsql_rt_window__get(g, start, end))) {
                return rsql_error_nomem(err);
            }
            if ((rc = move_marks(g, ow, (const uint8_t *)g->key.data, g->key.len, nkey, nlen, x,
                                 acc, batch, rec, err)) != RSQL_OK) {
                return rc;
            }
        }
        if (!same && rsql_rt_state_del(g->state, g->key.data, g->key.len, g->now) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    rsql_buf_reset(&g->marks);
    if ((rc = rsql_rt_window__key(g, row, start, end, ctx, err)) != RSQL_OK ||
        (rc = rsql_plan_agg_add(a, acc, row, ctx, batch->arena, distinct ? seen_in_session : NULL,
                                g, err)) != RSQL_OK) {
        return rc;
    }
    rsql_buf_reset(&g->value);
    rsql_value_pack(acc, a->n_acc, &g->value);
    if (!x && !same) {
        x = rsql_rt_window__get(g, start, end);
    }
    if (g->value.oom || (!same && (!x || !rsql_rt_window__note(x, g->key.data, g->key.len))) ||
        rsql_rt_state_put(g->state, g->key.data, g->key.len, g->value.data, g->value.len,
                          g->now) != RSQL_OK) {
        return rsql_error_nomem(err);
    }
    if (!rsql_rt_window__put_marks(g, x)) { /* the row's DISTINCT values */
        return rsql_error_nomem(err);
    }
    if (!same) { /* the merged ones leave the partition's list; the new one joins it */
        int left = 0;
        for (int i = 0; i < p->n; i++) {
            bool gone = false;
            for (int j = 0; j < n_merged; j++) {
                gone |= merged[j] == i;
            }
            if (!gone) {
                p->s[left][0] = p->s[i][0];
                p->s[left][1] = p->s[i][1];
                left++;
            }
        }
        p->n = left;
        if (!part_push(p, start, end)) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}
