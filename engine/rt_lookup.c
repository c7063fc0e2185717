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
 * Lookups in flight (table.exec.async-lookup.buffer-capacity): the transform thread hands
 * the batches waiting behind the one it joins to rsql_rt_lookup_prefetch, which makes their
 * rows and keys and sends their lookups (rsql_lookup_ops_t.send: postgres pipelines them on
 * its one connection) before the first one's answer is read; answers come in the order asked,
 * so rows keep input order. Prefetched batches wait in a ring, oldest first, and those whose
 * lookup is sent are always its oldest ones. A lost connection loses what was in flight: the
 * next open sends every prefetched batch's lookup again, in order.
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

/* What the pre-pass made of one batch, kept until its rows are joined. */
typedef struct lk_pend {
    const rsql_batch_t *batch; /* its address and its first record's seq (an address is */
    uint64_t first_seq;        /* reused) */
    lk_rec_t *recs;
    int recs_cap;
    rsql_value_t *keys; /* the batch's distinct keys: n_keys * n_key values */
    int n_keys, keys_cap;
    rsql_value_t *ask; /* the keys asked of the table (not cached): n_ask * n_key values */
    int *ask_of;       /* the index among the batch's keys of each key asked */
    int n_ask, ask_cap, ask_of_cap;
    /* the rows found: found_row[j] (n_dim values, batch arena) of key found_key[j]; the
       first n_cached from the cache */
    int *found_key;
    const rsql_value_t **found_row;
    int n_found, found_cap, n_cached;
    bool sent; /* its lookup is in flight on the connection */
} lk_pend_t;

/* Prefetched batches at most (the ring holds one more: the batch being joined). */
#define LK_AHEAD_MAX RSQL_LOOKUP_IN_FLIGHT_MAX

struct rt_lookup {
    const rsql_plan_t *plan;
    const rsql_lookup_ops_t *ops;
    rsql_lookup_ctx_t ctx;
    const char **names;
    rsql_type_t *types;
    const rsql_tdesc_t **descs;
    rsql_lookup_t *h; /* NULL when closed (after a lost connection) */
    lk_pend_t ring[LK_AHEAD_MAX + 2];
    int head, n;  /* the prefetched batches: ring[head], ... (n of them), oldest first */
    int ahead;    /* how many may be (table.exec.async-lookup.buffer-capacity) */
    lk_pend_t *cur; /* the batch being joined (out of the ring) */
    int *slots; /* a hash table of the keys' indices (-1: empty), n_slots a power of two */
    int n_slots;
    rsql_lookup_conf_t conf;
    rt_lkcache_t *cache;                                /* NULL: lookup.cache NONE */
    uint64_t calls, keys_asked, rows_found;             /* for the log at close */
    int in_flight, most_in_flight;                      /* lookups sent, not received */
    /* the current batch's rows found by key: by_key[first[k] .. first[k + 1]) */
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
    lk->ctx.timeout_ms = pl->timeout_ms;
    rsql_lookup_conf_get(pl->table.opts, &lk->conf);
    lk->ahead = pl->in_flight; /* the planner's count (0: one call at a time) */
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
    for (int i = 0; i < LK_AHEAD_MAX + 2; i++) {
        lk_pend_t *pe = &lk->ring[i];
        rsql_free(pe->recs);
        rsql_free(pe->keys);
        rsql_free(pe->ask);
        rsql_free(pe->ask_of);
        rsql_free(pe->found_key);
        rsql_free(pe->found_row);
    }
    rsql_free(lk->names);
    rsql_free(lk->types);
    rsql_free(lk->descs);
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
    if (lk->most_in_flight > 1 && n > 0 && (size_t)n < size) {
        n += snprintf(buf + n, size - (size_t)n, ", up to %d in flight", lk->most_in_flight);
    }
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
    lk_pend_t *pe;
    rsql_batch_t *batch;
} found_ctx_t;

/* Keep a row found for the batch's key number key, copied into the batch arena. */
static rsql_err_t add_found(rt_lookup_t *lk, lk_pend_t *pe, rsql_batch_t *batch, int key,
                            const rsql_value_t *row)
{
    int n = lk->ctx.n_columns;
    int cap = pe->found_cap;
    if (!grow((void **)&pe->found_key, &cap, pe->n_found + 1, sizeof *pe->found_key)) {
        return RSQL_ERR_NOMEM;
    }
    cap = pe->found_cap;
    if (!grow((void **)&pe->found_row, &cap, pe->n_found + 1, sizeof *pe->found_row)) {
        return RSQL_ERR_NOMEM;
    }
    pe->found_cap = cap;
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
    pe->found_key[pe->n_found] = key;
    pe->found_row[pe->n_found++] = r;
    return RSQL_OK;
}

/* rsql_lookup_row_cb: a row found for the key asked at index key. */
static rsql_err_t on_row(void *opaque, int key, const rsql_value_t *row)
{
    found_ctx_t *f = opaque;
    if (key < 0 || key >= f->pe->n_ask) {
        return RSQL_OK; /* not a key that was asked: nothing to join it to */
    }
    f->lk->rows_found++;
    return add_found(f->lk, f->pe, f->batch, f->pe->ask_of[key], row);
}

/* Sleep ms, or less. */
static void nap(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The connection is closed: what was in flight is lost (sent again at the next open). */
static void drop_connection(rt_lookup_t *lk)
{
    if (lk->h) {
        lk->ops->close(lk->h);
        lk->h = NULL;
    }
    for (int i = 0; i < lk->n; i++) {
        lk->ring[(lk->head + i) % (LK_AHEAD_MAX + 2)].sent = false;
    }
    if (lk->cur) {
        lk->cur->sent = false;
    }
    lk->in_flight = 0;
}

/* Send pe's lookup (nothing when it asks nothing or is in flight). */
static rsql_err_t send_one(rt_lookup_t *lk, lk_pend_t *pe, rsql_error_t *err)
{
    if (pe->sent || pe->n_ask == 0) {
        return RSQL_OK;
    }
    rsql_err_t rc = lk->ops->send(lk->h, pe->n_ask, pe->ask, err);
    if (rc == RSQL_OK) {
        pe->sent = true;
        lk->calls++;
        if (++lk->in_flight > lk->most_in_flight) {
            lk->most_in_flight = lk->in_flight;
        }
    }
    return rc;
}

/*
** pe's lookup answered (pe: the batch being joined, whose prefetched followers wait in the
** ring): with send, what is not in flight is sent first, pe and then the ring in order (after
** an open, all of them), and pe's answer received; without, one lookup call. Asked again
** while it fails transiently, up to lookup.max-retries times within errors.retry.timeout
** (after a new open when the connection was lost). The cached rows stay.
*/
static rsql_err_t ask(rt_lookup_t *lk, lk_pend_t *pe, rsql_batch_t *batch, rsql_error_t *err)
{
    const rsql_plan_t *plan = lk->plan;
    rsql_retry_t retry;
    rsql_retry_init(&retry, plan->errors.retry_timeout_ms, plan->errors.retry_backoff_max_ms,
                    rsql_now_ms());
    found_ctx_t f = {lk, pe, batch};
    uint64_t found_before = lk->rows_found;
    for (int attempt = 0;; attempt++) {
        rsql_error_clear(err);
        rsql_err_t rc = RSQL_OK;
        pe->n_found = pe->n_cached;
        lk->rows_found = found_before;
        if (!lk->h) {
            rc = lk->ops->open(&lk->ctx, &lk->h, err);
            if (rc != RSQL_OK) {
                lk->h = NULL;
            }
        }
        if (rc == RSQL_OK && lk->ops->send) {
            rc = send_one(lk, pe, err);
            for (int i = 0; rc == RSQL_OK && i < lk->n; i++) {
                rc = send_one(lk, &lk->ring[(lk->head + i) % (LK_AHEAD_MAX + 2)], err);
            }
            if (rc == RSQL_OK) {
                pe->sent = false;
                lk->in_flight--;
                rc = lk->ops->receive(lk->h, on_row, &f, err);
            }
        } else if (rc == RSQL_OK) {
            lk->calls++;
            rc = lk->ops->lookup(lk->h, pe->n_ask, pe->ask, on_row, &f, err);
        }
        rsql_error_t why = *err;
        why.code = why.code ? why.code : rc;
        if (rc != RSQL_OK && lk->ops->send && lk->h &&
            (rc == RSQL_ERR_UNAVAILABLE || rc == RSQL_ERR_NOMEM || rc == RSQL_ERR_INTERNAL)) {
            drop_connection(lk); /* what is in flight cannot be trusted */
        }
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
            drop_connection(lk);
        }
        nap(wait);
    }
}

/* Group the current batch's rows found by key: by_key[first[k] .. first[k + 1]). */
static bool group(rt_lookup_t *lk, const lk_pend_t *pe)
{
    rsql_free(lk->first);
    rsql_free(lk->by_key);
    lk->first = rsql_calloc((size_t)pe->n_keys + 2, sizeof *lk->first);
    lk->by_key = rsql_calloc((size_t)pe->n_found + 1, sizeof *lk->by_key);
    if (!lk->first || !lk->by_key) {
        return false;
    }
    for (int j = 0; j < pe->n_found; j++) {
        lk->first[pe->found_key[j] + 1]++;
    }
    for (int k = 0; k < pe->n_keys; k++) {
        lk->first[k + 1] += lk->first[k];
    }
    int *at = rsql_calloc((size_t)pe->n_keys + 1, sizeof *at);
    if (!at) {
        return false;
    }
    for (int j = 0; j < pe->n_found; j++) { /* in the order found, per key */
        int k = pe->found_key[j];
        lk->by_key[lk->first[k] + at[k]++] = pe->found_row[j];
    }
    rsql_free(at);
    return true;
}

/*
** The index among the batch's keys of the key at key (nk values), added when it is new:
** keys that are the same (rsql_value_same_key) share one; a key with a value that is never
** the same as another (NaN, nested) is always new. -1: out of memory.
*/
static int key_index(rt_lookup_t *lk, lk_pend_t *pe, rsql_batch_t *batch,
                     const rsql_value_t *key, int nk)
{
    uint64_t h;
    bool hashable = rsql_value_keys_hash(key, nk, &h);
    int mask = lk->n_slots - 1;
    int at = (int)(h & (uint64_t)mask);
    while (hashable && lk->slots[at] >= 0) {
        const rsql_value_t *other = &pe->keys[lk->slots[at] * nk];
        bool eq = true;
        for (int k = 0; k < nk && eq; k++) {
            eq = rsql_value_same_key(&key[k], &other[k]);
        }
        if (eq) {
            return lk->slots[at];
        }
        at = (at + 1) & mask;
    }
    int d = pe->n_keys++;
    rsql_value_t *to = &pe->keys[d * nk];
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
** The pre-pass of batch into pe: each record's row made and kept with its key, the distinct
** keys, the rows the cache holds for them, and the keys to ask the table. Only NOMEM fails.
*/
static rsql_err_t prepare(rt_lookup_t *lk, lk_pend_t *pe, rsql_batch_t *batch,
                          rt_row_of_cb row_of, void *opaque, rsql_eval_ctx_t *ctx,
                          rsql_error_t *err)
{
    const rsql_plan_t *plan = lk->plan;
    const rsql_plan_lookup_t *pl = plan->lookup;
    int w = plan->n_in + plan->n_computed, nk = pl->n_key;
    pe->batch = batch;
    pe->first_seq = batch->n > 0 ? batch->recs[0].seq : 0;
    pe->n_keys = pe->n_ask = pe->n_found = pe->n_cached = 0;
    pe->sent = false;
    int slots = 16;
    while (slots < 2 * batch->n) {
        slots *= 2;
    }
    if (!grow((void **)&pe->recs, &pe->recs_cap, batch->n, sizeof *pe->recs) ||
        !grow((void **)&pe->keys, &pe->keys_cap, (batch->n + 1) * nk, sizeof *pe->keys) ||
        (slots > lk->n_slots && !grow((void **)&lk->slots, &lk->n_slots, slots, sizeof(int)))) {
        return rsql_error_nomem(err);
    }
    memset(lk->slots, 0xff, (size_t)lk->n_slots * sizeof *lk->slots);
    rsql_value_t *key = rsql_arena_alloc(batch->arena, (size_t)(nk + 1) * sizeof *key);
    if (!key) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < batch->n; i++) {
        lk_rec_t *r = &pe->recs[i];
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
        int d = ok && evaluated && !null_key ? key_index(lk, pe, batch, key, nk) : -2;
        rsql_eval_ctx_reset(ctx);
        if (!ok || d == -1) {
            return rsql_error_nomem(err);
        }
        r->row = evaluated ? kept : NULL;
        r->key = d >= 0 ? d : -1;
    }
    /* the cache's rows now (a key it holds when the batch is joined is not asked again) */
    int64_t now = rsql_now_ms();
    if (!grow((void **)&pe->ask, &pe->ask_cap, pe->n_keys * nk, sizeof *pe->ask) ||
        !grow((void **)&pe->ask_of, &pe->ask_of_cap, pe->n_keys, sizeof *pe->ask_of)) {
        return rsql_error_nomem(err);
    }
    for (int d = 0; d < pe->n_keys; d++) {
        const rsql_value_t *k = &pe->keys[d * nk];
        const rsql_value_t *const *rows;
        int n;
        if (lk->cache && rsql_lkcache_get(lk->cache, k, now, &rows, &n)) {
            for (int j = 0; j < n; j++) {
                if (add_found(lk, pe, batch, d, rows[j]) != RSQL_OK) {
                    return rsql_error_nomem(err);
                }
            }
            continue;
        }
        memcpy(&pe->ask[pe->n_ask * nk], k, (size_t)nk * sizeof *k);
        pe->ask_of[pe->n_ask++] = d;
    }
    pe->n_cached = pe->n_found;
    lk->keys_asked += (uint64_t)pe->n_ask;
    return RSQL_OK;
}

/* See rt_lookup.h. */
void rsql_rt_lookup_prefetch(rt_lookup_t *lk, rsql_batch_t *batch, rt_row_of_cb row_of,
                             void *opaque, rsql_eval_ctx_t *ctx)
{
    if (!lk || lk->n >= lk->ahead || batch->n == 0) {
        return;
    }
    lk_pend_t *pe = &lk->ring[(lk->head + lk->n) % (LK_AHEAD_MAX + 2)];
    rsql_error_t e;
    rsql_error_clear(&e);
    if (prepare(lk, pe, batch, row_of, opaque, ctx, &e) != RSQL_OK) {
        return; /* joined without it: rsql_rt_lookup_batch prepares it again, and says why */
    }
    lk->n++;
    /* sent when every batch before it is in flight (the connection answers in order) */
    bool before_sent = lk->h != NULL;
    for (int i = 0; before_sent && i < lk->n - 1; i++) {
        const lk_pend_t *b = &lk->ring[(lk->head + i) % (LK_AHEAD_MAX + 2)];
        before_sent = b->sent || b->n_ask == 0;
    }
    if (before_sent && send_one(lk, pe, &e) != RSQL_OK) {
        drop_connection(lk); /* sent again, in order, when the batch before it is joined */
    }
}

/* See rt_lookup.h. */
rsql_err_t rsql_rt_lookup_batch(rt_lookup_t *lk, rsql_batch_t *batch, rt_row_of_cb row_of,
                                void *opaque, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    int nk = lk->plan->lookup->n_key;
    rsql_error_clear(&lk->failed);
    lk_pend_t *pe = NULL;
    if (lk->n > 0) {
        lk_pend_t *h = &lk->ring[lk->head];
        if (h->batch == batch && batch->n > 0 && h->first_seq == batch->recs[0].seq) {
            pe = h;
            lk->head = (lk->head + 1) % (LK_AHEAD_MAX + 2);
            lk->n--;
        } else { /* not the batch prefetched first: start over with none in flight */
            drop_connection(lk);
            lk->n = 0;
        }
    }
    if (!pe) {
        /* a slot out of the ring's batches (it holds two more than it may) */
        pe = &lk->ring[(lk->head + lk->n) % (LK_AHEAD_MAX + 2)];
        if (pe == lk->cur) {
            pe = &lk->ring[(lk->head + lk->n + 1) % (LK_AHEAD_MAX + 2)];
        }
        rsql_err_t rc = prepare(lk, pe, batch, row_of, opaque, ctx, err);
        if (rc != RSQL_OK) {
            lk->cur = NULL;
            return rc;
        }
    }
    lk->cur = pe;
    if (pe->n_ask == 0) {
        return group(lk, pe) ? RSQL_OK : rsql_error_nomem(err);
    }
    rsql_err_t rc = ask(lk, pe, batch, &lk->failed);
    if (rc == RSQL_ERR_NOMEM) {
        return rsql_error_nomem(err);
    }
    if (rc != RSQL_OK) {
        if (!lk->failed.code) {
            rsql_error_set(&lk->failed, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
        }
        pe->n_found = 0;
        return group(lk, pe) ? RSQL_OK : rsql_error_nomem(err);
    }
    if (!group(lk, pe)) {
        return rsql_error_nomem(err);
    }
    int64_t now = rsql_now_ms();
    for (int j = 0; lk->cache && j < pe->n_ask; j++) {
        int d = pe->ask_of[j];
        const rsql_value_t *const *rows = lk->by_key + lk->first[d];
        if (rsql_lkcache_put(lk->cache, &pe->ask[j * nk], rows, lk->first[d + 1] - lk->first[d],
                             now) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
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
    const lk_pend_t *pe = lk->cur;
    if (!pe || pe->batch != batch || pe->first_seq != batch->recs[0].seq || i < 0 ||
        i >= batch->n || !pe->recs[i].row) {
        return RSQL_OK; /* no row made: the caller makes it, and fails */
    }
    if (lk->failed.code) {
        return rsql_error_set(err, lk->failed.code, RSQL_NOPOS, "lookup of %s: %s",
                              lk->ctx.table, lk->failed.msg);
    }
    const lk_rec_t *r = &pe->recs[i];
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
