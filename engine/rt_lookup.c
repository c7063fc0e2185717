/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_lookup: the lookup join's stage of the transform (planner/plan_lookup.c says what it
 * means). Before the first record of a batch, every record's row is made (the source's
 * columns, the computed ones evaluated once) and kept in the batch arena with the value of
 * its key; the keys of the whole batch go to the connector's lookup in one call (the postgres
 * one asks them in one query), so a batch waits for one round trip, not one per row. Then
 * each record's rows are its row with each row found filled in, kept when they pass the rest
 * of ON; a LEFT join keeps a record that keeps none with the joined columns NULL.
 *
 * A key is asked once per batch however many records carry it, and not at all when the
 * partial cache (lookup.cache = PARTIAL, rt_lookup_cache.c) holds it; what the table answers
 * for the keys asked is kept there.
 *
 * A transient lookup failure is asked again up to lookup.max-retries times within
 * errors.retry.timeout (after a new open when the connection was lost), then fails every
 * record of the batch with its error, as a permanent failure does at once (dead-lettered
 * under errors.tolerance 'all').
 *
 * @locality the transform thread
 */
#include "config.h"
#include "engine/rt_lookup.h"
#include "engine/rt_lookup_cache.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <string.h>
#include <time.h>

/* What the batch pre-pass kept of one record. */
typedef struct lk_rec {
    const rsql_value_t *row; /* n_in + n_computed values in the batch arena; NULL: none */
    int key;                 /* its key's index among the batch's keys, -1 when one is NULL */
} lk_rec_t;

struct rt_lookup {
    const rsql_plan_t *plan;
    const rsql_lookup_ops_t *ops;
    rsql_lookup_ctx_t ctx;
    const char **names;
    rsql_type_t *types;
    const rsql_tdesc_t **descs;
    rsql_lookup_t *h; /* NULL when closed (after a lost connection) */
    /* the current batch: its address and its first record's seq (an address is reused) */
    const rsql_batch_t *batch;
    uint64_t first_seq;
    lk_rec_t *recs;
    int recs_cap;
    rsql_value_t *keys; /* the batch's distinct keys: n_keys * n_key values */
    int n_keys, keys_cap;
    int *slots; /* a hash table of the keys' indices (-1: empty), n_slots a power of two */
    int n_slots;
    rsql_value_t *ask; /* the keys asked of the table (not cached): n_ask * n_key values */
    int *ask_of;       /* the index among the batch's keys of each key asked */
    int n_ask, ask_cap, ask_of_cap;
    rsql_lookup_conf_t conf;
    rt_lkcache_t *cache;                                /* NULL: lookup.cache NONE */
    uint64_t calls, keys_asked, rows_found;             /* for the log at close */
    /* the rows found: found_row[j] (n_dim values, arena) of key found_key[j]; by key: the
       rows of key k are by_key[first[k] .. first[k + 1]) */
    int *found_key;
    const rsql_value_t **found_row;
    int n_found, found_cap;
    const rsql_value_t **by_key;
    int *first;
    rsql_error_t failed; /* the batch's lookup failed: every record of it fails with this */
};

/* See rt_lookup.h. */
rsql_err_t rsql_rt_lookup_open(const rsql_plan_t *plan, rt_lookup_t **out, rsql_error_t *err)
{
    const rsql_plan_lookup_t *pl = plan->lookup;
    const rsql_table_def_t *def = pl->table.def;
    rt_lookup_t *lk = rsql_calloc(1, sizeof *lk);
    if (!lk) {
        return rsql_error_nomem(err);
    }
    int n = def->n_columns;
    lk->plan = plan;
    lk->ops = pl->table.conn->lookup;
    lk->names = rsql_calloc((size_t)n + 1, sizeof *lk->names);
    lk->types = rsql_calloc((size_t)n + 1, sizeof *lk->types);
    lk->descs = rsql_calloc((size_t)n + 1, sizeof *lk->descs);
    if (!lk->names || !lk->types || !lk->descs) {
        rsql_rt_lookup_close(lk);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < n; i++) {
        lk->names[i] = def->columns[i].name;
        lk->types[i] = def->columns[i].type;
        lk->descs[i] = def->columns[i].desc;
    }
    lk->ctx.table = def->name;
    lk->ctx.opts = pl->table.opts;
    lk->ctx.conf = rsql_optset_conf(pl->table.opts, RSQL_CONF_CONNECTOR);
    lk->ctx.n_columns = n;
    lk->ctx.column_names = lk->names;
    lk->ctx.column_types = lk->types;
    lk->ctx.column_descs = lk->descs;
    lk->ctx.n_key = pl->n_key;
    lk->ctx.key_columns = pl->key_columns;
    rsql_lookup_conf_get(pl->table.opts, &lk->conf);
    if (lk->conf.cache) {
        lk->cache = rsql_lkcache_new(pl->n_key, n, &lk->conf);
        if (!lk->cache) {
            rsql_rt_lookup_close(lk);
            return rsql_error_nomem(err);
        }
    }
    rsql_error_clear(&lk->failed);
    rsql_err_t rc = lk->ops->open(&lk->ctx, &lk->h, err);
    if (rc != RSQL_OK) {
        lk->h = NULL;
        rsql_rt_lookup_close(lk);
        return rc;
    }
    *out = lk;
    return RSQL_OK;
}

/* See rt_lookup.h. */
void rsql_rt_lookup_close(rt_lookup_t *lk)
{
    if (!lk) {
        return;
    }
    if (lk->h) {
        lk->ops->close(lk->h);
    }
    char what[512];
    if (rsql_rt_lookup_describe(lk, what, sizeof what) > 0) {
        rsql_log(RSQL_LOG_INFO, "lookup", "%s", what);
    }
    rsql_lkcache_free(lk->cache);
    rsql_free(lk->slots);
    rsql_free(lk->ask);
    rsql_free(lk->ask_of);
    rsql_free(lk->names);
    rsql_free(lk->types);
    rsql_free(lk->descs);
    rsql_free(lk->recs);
    rsql_free(lk->keys);
    rsql_free(lk->found_key);
    rsql_free(lk->found_row);
    rsql_free(lk->by_key);
    rsql_free(lk->first);
    rsql_free(lk);
}

/* See rt_lookup.h. */
size_t rsql_rt_lookup_describe(const rt_lookup_t *lk, char *buf, size_t size)
{
    if (!lk || size == 0) {
        return 0;
    }
    int n = snprintf(buf, size, "lookup of %s: %llu keys asked in %llu calls, %llu rows found",
                     lk->ctx.table, (unsigned long long)lk->keys_asked,
                     (unsigned long long)lk->calls, (unsigned long long)lk->rows_found);
    if (lk->cache && n > 0 && (size_t)n < size) {
        rt_lkcache_stats_t st;
        rsql_lkcache_stats(lk->cache, &st);
        n += snprintf(buf + n, size - (size_t)n,
                      "; cache: %llu hits, %llu misses, %lld keys held (%lld bytes)",
                      (unsigned long long)st.hits, (unsigned long long)st.misses,
                      (long long)st.entries, (long long)st.bytes);
    }
    return n > 0 ? strlen(buf) : 0;
}

/* Grow *p (of *cap elements of size sz) to hold at least n. */
static bool grow(void **p, int *cap, int n, size_t sz)
{
    if (n <= *cap) {
        return true;
    }
    int c = *cap ? *cap : 64;
    while (c < n) {
        c *= 2;
    }
    void *q = rsql_realloc(*p, (size_t)c * sz);
    if (!q) {
        return false;
    }
    *p = q;
    *cap = c;
    return true;
}

typedef struct found_ctx {
    rt_lookup_t *lk;
    rsql_batch_t *batch;
} found_ctx_t;

/* Keep a row found for the batch's key number key, copied into the batch arena. */
static rsql_err_t add_found(rt_lookup_t *lk, rsql_batch_t *batch, int key,
                            const rsql_value_t *row)
{
    int n = lk->ctx.n_columns;
    int cap = lk->found_cap;
    if (!grow((void **)&lk->found_key, &cap, lk->n_found + 1, sizeof *lk->found_key)) {
        return RSQL_ERR_NOMEM;
    }
    cap = lk->found_cap;
    if (!grow((void **)&lk->found_row, &cap, lk->n_found + 1, sizeof *lk->found_row)) {
        return RSQL_ERR_NOMEM;
    }
    lk->found_cap = cap;
    rsql_value_t *r = rsql_arena_alloc(batch->arena, (size_t)n * sizeof *r);
    if (!r) {
        return RSQL_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        if (rsql_value_copy(&row[i], batch->arena, &r[i]) != RSQL_OK) {
            return RSQL_ERR_NOMEM;
        }
        r[i].type = lk->types[i];
    }
    lk->found_key[lk->n_found] = key;
    lk->found_row[lk->n_found++] = r;
    return RSQL_OK;
}

/* rsql_lookup_row_cb: a row found for the key asked at index key. */
static rsql_err_t on_row(void *opaque, int key, const rsql_value_t *row)
{
    found_ctx_t *f = opaque;
    rt_lookup_t *lk = f->lk;
    if (key < 0 || key >= lk->n_ask) {
        return RSQL_OK; /* not a key that was asked: nothing to join it to */
    }
    lk->rows_found++;
    return add_found(lk, f->batch, lk->ask_of[key], row);
}

/* Sleep ms, or less. */
static void nap(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/*
** The lookup of the keys asked, asked again while it fails transiently, up to
** lookup.max-retries times within errors.retry.timeout. The rows found before (cached) stay.
*/
static rsql_err_t ask(rt_lookup_t *lk, rsql_batch_t *batch, rsql_error_t *err)
{
    const rsql_plan_t *plan = lk->plan;
    rsql_retry_t retry;
    rsql_retry_init(&retry, plan->errors.retry_timeout_ms, plan->errors.retry_backoff_max_ms,
                    rsql_now_ms());
    found_ctx_t f = {lk, batch};
    int kept = lk->n_found;
    uint64_t found_before = lk->rows_found;
    for (int attempt = 0;; attempt++) {
        rsql_error_clear(err);
        rsql_err_t rc = RSQL_OK;
        lk->n_found = kept;
        lk->rows_found = found_before;
        if (!lk->h) {
            rc = lk->ops->open(&lk->ctx, &lk->h, err);
            if (rc != RSQL_OK) {
                lk->h = NULL;
            }
        }
        if (rc == RSQL_OK) {
            lk->calls++;
            rc = lk->ops->lookup(lk->h, lk->n_ask, lk->ask, on_row, &f, err);
        }
        rsql_error_t why = *err;
        why.code = why.code ? why.code : rc;
        if (rc == RSQL_OK || !rsql_error_retriable(&why) || attempt >= lk->conf.max_retries) {
            return rc;
        }
        int64_t wait = rsql_retry_next(&retry, rsql_now_ms());
        if (wait < 0) {
            return rc;
        }
        rsql_log(RSQL_LOG_WARN, "lookup",
                 "lookup of %s failed (%s), asking again in %lld ms (retry %d of %d)",
                 lk->ctx.table, err && err->code ? err->msg : rsql_err_str(rc),
                 (long long)wait, attempt + 1, lk->conf.max_retries);
        if (rc == RSQL_ERR_UNAVAILABLE && lk->h) {
            lk->ops->close(lk->h);
            lk->h = NULL;
        }
        nap(wait);
    }
}

/* Group the rows found by key: by_key[first[k] .. first[k + 1]). */
static bool group(rt_lookup_t *lk)
{
    rsql_free(lk->first);
    rsql_free(lk->by_key);
    lk->first = rsql_calloc((size_t)lk->n_keys + 2, sizeof *lk->first);
    lk->by_key = rsql_calloc((size_t)lk->n_found + 1, sizeof *lk->by_key);
    if (!lk->first || !lk->by_key) {
        return false;
    }
    for (int j = 0; j < lk->n_found; j++) {
        lk->first[lk->found_key[j] + 1]++;
    }
    for (int k = 0; k < lk->n_keys; k++) {
        lk->first[k + 1] += lk->first[k];
    }
    int *at = rsql_calloc((size_t)lk->n_keys + 1, sizeof *at);
    if (!at) {
        return false;
    }
    for (int j = 0; j < lk->n_found; j++) { /* in the order found, per key */
        int k = lk->found_key[j];
        lk->by_key[lk->first[k] + at[k]++] = lk->found_row[j];
    }
    rsql_free(at);
    return true;
}

/*
** The index among the batch's keys of the key at key (nk values), added when it is new:
** keys that are the same (rsql_value_same_key) share one; a key with a value that is never
** the same as another (NaN, nested) is always new. -1: out of memory.
*/
static int key_index(rt_lookup_t *lk, rsql_batch_t *batch, const rsql_value_t *key, int nk)
{
    uint64_t h;
    bool hashable = rsql_value_keys_hash(key, nk, &h);
    int mask = lk->n_slots - 1;
    int at = (int)(h & (uint64_t)mask);
    while (hashable && lk->slots[at] >= 0) {
        const rsql_value_t *other = &lk->keys[lk->slots[at] * nk];
        bool eq = true;
        for (int k = 0; k < nk && eq; k++) {
            eq = rsql_value_same_key(&key[k], &other[k]);
        }
        if (eq) {
            return lk->slots[at];
        }
        at = (at + 1) & mask;
    }
    int d = lk->n_keys++;
    rsql_value_t *to = &lk->keys[d * nk];
    for (int k = 0; k < nk; k++) {
        if (rsql_value_copy(&key[k], batch->arena, &to[k]) != RSQL_OK) {
            return -1;
        }
    }
    if (hashable) {
        lk->slots[at] = d;
    }
    return d;
}

/*
** The keys of the batch answered: from the cache when it holds them, else asked of the table
** in one call (and what it answers kept in the cache). lk->failed says why when it failed.
*/
static rsql_err_t answer(rt_lookup_t *lk, rsql_batch_t *batch, rsql_error_t *err)
{
    int nk = lk->plan->lookup->n_key;
    int64_t now = rsql_now_ms();
    lk->n_ask = 0;
    if (!grow((void **)&lk->ask, &lk->ask_cap, lk->n_keys * nk, sizeof *lk->ask) ||
        !grow((void **)&lk->ask_of, &lk->ask_of_cap, lk->n_keys, sizeof *lk->ask_of)) {
        return rsql_error_nomem(err);
    }
    for (int d = 0; d < lk->n_keys; d++) {
        const rsql_value_t *key = &lk->keys[d * nk];
        const rsql_value_t *const *rows;
        int n;
        if (lk->cache && rsql_lkcache_get(lk->cache, key, now, &rows, &n)) {
            for (int j = 0; j < n; j++) {
                if (add_found(lk, batch, d, rows[j]) != RSQL_OK) {
                    return rsql_error_nomem(err);
                }
            }
            continue;
        }
        memcpy(&lk->ask[lk->n_ask * nk], key, (size_t)nk * sizeof *key);
        lk->ask_of[lk->n_ask++] = d;
    }
    if (lk->n_ask == 0) {
        return group(lk) ? RSQL_OK : rsql_error_nomem(err);
    }
    lk->keys_asked += (uint64_t)lk->n_ask;
    rsql_err_t rc = ask(lk, batch, &lk->failed);
    if (rc == RSQL_ERR_NOMEM) {
        return rsql_error_nomem(err);
    }
    if (rc != RSQL_OK) {
        if (!lk->failed.code) {
            rsql_error_set(&lk->failed, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
        }
        lk->n_found = 0;
        return group(lk) ? RSQL_OK : rsql_error_nomem(err);
    }
    if (!group(lk)) {
        return rsql_error_nomem(err);
    }
    for (int j = 0; lk->cache && j < lk->n_ask; j++) {
        int d = lk->ask_of[j];
        const rsql_value_t *const *rows = lk->by_key + lk->first[d];
        if (rsql_lkcache_put(lk->cache, &lk->ask[j * nk], rows, lk->first[d + 1] - lk->first[d],
                             now) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}

/* See rt_lookup.h. */
rsql_err_t rsql_rt_lookup_batch(rt_lookup_t *lk, rsql_batch_t *batch, rt_row_of_cb row_of,
                                void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    const rsql_plan_t *plan = lk->plan;
    const rsql_plan_lookup_t *pl = plan->lookup;
    int w = plan->n_in + plan->n_computed, nk = pl->n_key;
    lk->batch = batch;
    lk->first_seq = batch->n > 0 ? batch->recs[0].seq : 0;
    lk->n_keys = 0;
    lk->n_found = 0;
    rsql_error_clear(&lk->failed);
    int slots = 16;
    while (slots < 2 * batch->n) {
        slots *= 2;
    }
    if (!grow((void **)&lk->recs, &lk->recs_cap, batch->n, sizeof *lk->recs) ||
        !grow((void **)&lk->keys, &lk->keys_cap, (batch->n + 1) * nk, sizeof *lk->keys) ||
        (slots > lk->n_slots && !grow((void **)&lk->slots, &lk->n_slots, slots, sizeof(int)))) {
        return rsql_error_nomem(err);
    }
    memset(lk->slots, 0xff, (size_t)lk->n_slots * sizeof *lk->slots);
    rsql_value_t *key = rsql_arena_alloc(batch->arena, (size_t)(nk + 1) * sizeof *key);
    if (!key) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < batch->n; i++) {
        lk_rec_t *r = &lk->recs[i];
        r->row = NULL;
        r->key = -1;
        const rsql_value_t *src = row_of(opaque, batch, &batch->recs[i]);
        const rsql_value_t *row = NULL;
        rsql_error_t e;
        rsql_error_clear(&e);
        if (!src || rsql_plan_row(plan, src, ctx, &row, &e) != RSQL_OK) {
            rsql_eval_ctx_reset(ctx); /* the record's own call says why */
            continue;
        }
        rsql_value_t *kept = rsql_arena_alloc(batch->arena, (size_t)w * sizeof *kept);
        bool ok = kept != NULL;
        for (int c = 0; ok && c < w; c++) {
            ok = rsql_value_copy(&row[c], batch->arena, &kept[c]) == RSQL_OK;
        }
        bool null_key = false, evaluated = true;
        for (int k = 0; ok && k < nk && !null_key; k++) {
            if (rsql_expr_eval(pl->keys[k], kept, ctx, &key[k], &e) != RSQL_OK) {
                evaluated = false; /* the record's own call evaluates it again, and fails */
                break;
            }
            null_key = key[k].is_null;
        }
        int d = ok && evaluated && !null_key ? key_index(lk, batch, key, nk) : -2;
        rsql_eval_ctx_reset(ctx);
        if (!ok || d == -1) {
            return rsql_error_nomem(err);
        }
        r->row = evaluated ? kept : NULL;
        r->key = d >= 0 ? d : -1;
    }
    return answer(lk, batch, err);
}

/* See rt_lookup.h. */
rsql_err_t rsql_rt_lookup_rows(rt_lookup_t *lk, rsql_batch_t *batch, const rsql_record_t *rec,
                               rsql_eval_ctx_t *ctx, const rsql_value_t ***rows, int *n,
                               rsql_error_t *err)
{
    const rsql_plan_t *plan = lk->plan;
    const rsql_plan_lookup_t *pl = plan->lookup;
    *rows = NULL;
    *n = -1;
    int i = (int)(rec - batch->recs);
    if (lk->batch != batch || lk->first_seq != batch->recs[0].seq || i < 0 || i >= batch->n ||
        !lk->recs[i].row) {
        return RSQL_OK; /* no row made: the caller makes it, and fails */
    }
    if (lk->failed.code) {
        return rsql_error_set(err, lk->failed.code, RSQL_NOPOS, "lookup of %s: %s",
                              lk->ctx.table, lk->failed.msg);
    }
    const lk_rec_t *r = &lk->recs[i];
    int from = r->key >= 0 ? lk->first[r->key] : 0, to = r->key >= 0 ? lk->first[r->key + 1] : 0;
    int w = plan->n_in + plan->n_computed, nd = pl->table.def->n_columns;
    const rsql_value_t **out = rsql_arena_alloc(batch->arena,
                                                (size_t)(to - from + 1) * sizeof *out);
    if (!out) {
        return rsql_error_nomem(err);
    }
    int k = 0;
    for (int j = from; j < to; j++) {
        rsql_value_t *joined = rsql_arena_alloc(batch->arena, (size_t)w * sizeof *joined);
        if (!joined) {
            return rsql_error_nomem(err);
        }
        memcpy(joined, r->row, (size_t)w * sizeof *joined);
        memcpy(joined + pl->offset, lk->by_key[j], (size_t)nd * sizeof *joined);
        bool match;
        rsql_err_t rc = rsql_plan_lookup_cond(plan, joined, ctx, &match, err);
        rsql_eval_ctx_reset(ctx);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (match) {
            out[k++] = joined;
        }
    }
    if (k == 0 && pl->left) {
        out[k++] = r->row; /* the joined columns NULL (rsql_plan_row) */
    }
    *rows = out;
    *n = k;
    return RSQL_OK;
}

/* See rt_lookup.h. */
rsql_err_t rsql_rt_lookup_record(rt_lookup_t *lk, rsql_batch_t *batch, rsql_record_t *rec,
                                 rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                 rsql_error_t *err)
{
    const rsql_plan_t *plan = lk->plan;
    const rsql_value_t **rows;
    int n;
    rsql_err_t rc = rsql_rt_lookup_rows(lk, batch, rec, ctx, &rows, &n, err);
    if (rc == RSQL_OK && n < 0) {
        /* the batch's pass made no row for it: make it here, to fail as it must */
        const rsql_value_t *row;
        rc = rsql_plan_row(plan, *in, ctx, &row, err);
        for (int k = 0; rc == RSQL_OK && k < plan->lookup->n_key; k++) {
            rsql_value_t v;
            rc = rsql_expr_eval(plan->lookup->keys[k], row, ctx, &v, err);
        }
        return rc != RSQL_OK ? rc
                             : rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                              "lookup: no row was made for the record");
    }
    if (rc != RSQL_OK) {
        return rc;
    }
    if (n == 0) {
        *keep = false;
        return RSQL_OK;
    }
    uint8_t *kinds = rsql_arena_alloc(batch->arena, (size_t)n);
    if (!kinds) {
        return rsql_error_nomem(err);
    }
    memset(kinds, RSQL_ROW_INSERT, (size_t)n);
    rec->n_rows = n;
    rec->rows = (rsql_value_t **)rows;
    rec->kinds = kinds;
    rec->row = rec->rows[0];
    *in = rows[0];
    return RSQL_OK;
}
