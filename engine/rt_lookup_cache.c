/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_lookup_cache: see rt_lookup_cache.h. Each entry is one allocation: its header, its key,
 * its rows and every byte they point at (strings, nested values), so dropping it is one free
 * and its size is known. Entries are chained in a hash table of the key's values
 * (rsql_value_key_hash, rsql_value_same_key) and in a list from the most recently used.
 * @locality the transform thread
 */
#include "config.h"
#include "engine/rt_lookup_cache.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

#include <string.h>

typedef struct ent {
    struct ent *hnext;      /* the next in its bucket */
    struct ent *prev, *next; /* the use list: prev is more recently used */
    uint64_t hash;
    int64_t written, accessed;
    int n;        /* rows */
    size_t bytes; /* the whole allocation */
    rsql_value_t *key;
    const rsql_value_t **rows;
} ent_t;

struct rt_lkcache {
    int n_key, n_cols;
    rsql_lookup_conf_t conf;
    ent_t **buckets;
    size_t n_buckets; /* a power of two */
    ent_t *head, *tail;
    rt_lkcache_stats_t st;
};

/* See rt_lookup_cache.h. */
rt_lkcache_t *rsql_lkcache_new(int n_key, int n_cols, const rsql_lookup_conf_t *conf)
{
    rt_lkcache_t *c = rsql_calloc(1, sizeof *c);
    if (!c) {
        return NULL;
    }
    c->n_key = n_key;
    c->n_cols = n_cols;
    c->conf = *conf;
    c->n_buckets = 64;
    c->buckets = rsql_calloc(c->n_buckets, sizeof *c->buckets);
    if (!c->buckets) {
        rsql_free(c);
        return NULL;
    }
    return c;
}

/* See rt_lookup_cache.h. */
void rsql_lkcache_free(rt_lkcache_t *c)
{
    if (!c) {
        return;
    }
    for (ent_t *e = c->head, *next; e; e = next) {
        next = e->next;
        rsql_free(e);
    }
    rsql_free(c->buckets);
    rsql_free(c);
}

static bool same(const rt_lkcache_t *c, const rsql_value_t *a, const rsql_value_t *b)
{
    for (int i = 0; i < c->n_key; i++) {
        if (!rsql_value_same_key(&a[i], &b[i])) {
            return false;
        }
    }
    return true;
}

static void unlink_use(rt_lkcache_t *c, ent_t *e)
{
    if (e->prev) {
        e->prev->next = e->next;
    } else {
        c->head = e->next;
    }
    if (e->next) {
        e->next->prev = e->prev;
    } else {
        c->tail = e->prev;
    }
    e->prev = e->next = NULL;
}

static void push_front(rt_lkcache_t *c, ent_t *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head) {
        c->head->prev = e;
    } else {
        c->tail = e;
    }
    c->head = e;
}

/* Drop e: out of its bucket and the use list, freed. */
static void drop(rt_lkcache_t *c, ent_t *e)
{
    ent_t **p = &c->buckets[e->hash & (c->n_buckets - 1)];
    while (*p != e) {
        p = &(*p)->hnext;
    }
    *p = e->hnext;
    unlink_use(c, e);
    c->st.rows -= e->n ? e->n : 1;
    c->st.entries--;
    c->st.bytes -= (int64_t)e->bytes;
    rsql_free(e);
}

static bool expired(const rt_lkcache_t *c, const ent_t *e, int64_t now)
{
    return (c->conf.expire_after_write_ms > 0 && now - e->written >= c->conf.expire_after_write_ms) ||
           (c->conf.expire_after_access_ms > 0 &&
            now - e->accessed >= c->conf.expire_after_access_ms);
}

static ent_t *find(const rt_lkcache_t *c, const rsql_value_t *key, uint64_t h)
{
    for (ent_t *e = c->buckets[h & (c->n_buckets - 1)]; e; e = e->hnext) {
        if (e->hash == h && same(c, e->key, key)) {
            return e;
        }
    }
    return NULL;
}

/* See rt_lookup_cache.h. */
bool rsql_lkcache_get(rt_lkcache_t *c, const rsql_value_t *key, int64_t now,
                      const rsql_value_t *const **rows, int *n)
{
    uint64_t h;
    ent_t *e = rsql_value_keys_hash(key, c->n_key, &h) ? find(c, key, h) : NULL;
    if (e && expired(c, e, now)) {
        drop(c, e);
        c->st.evictions++;
        e = NULL;
    }
    if (!e) {
        c->st.misses++;
        return false;
    }
    c->st.hits++;
    e->accessed = now;
    unlink_use(c, e);
    push_front(c, e);
    *rows = e->rows;
    *n = e->n;
    return true;
}

/* ---- one allocation per entry: its values' bytes counted, then copied in */

static size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* The bytes v points at (strings, nested values), each piece rounded to 16. */
static size_t deep_size(const rsql_value_t *v)
{
    if (v->is_null) {
        return 0;
    }
    if (v->type == RSQL_TYPE_VARCHAR || v->type == RSQL_TYPE_BYTES) {
        return round16(v->v.s.len + 1);
    }
    if (!rsql_type_is_nested(v->type) || !v->v.c) {
        return 0;
    }
    const rsql_composite_t *cv = v->v.c;
    size_t n = v->type == RSQL_TYPE_MAP ? 2 * (size_t)cv->n : (size_t)cv->n;
    size_t s = round16(sizeof *cv + n * sizeof cv->items[0]);
    for (size_t i = 0; i < n; i++) {
        s += deep_size(&cv->items[i]);
    }
    return s;
}

/* *out = v with what it points at copied to *at (advanced). */
static void deep_copy(const rsql_value_t *v, unsigned char **at, rsql_value_t *out)
{
    *out = *v;
    if (v->is_null) {
        return;
    }
    if (v->type == RSQL_TYPE_VARCHAR || v->type == RSQL_TYPE_BYTES) {
        char *p = (char *)*at;
        if (v->v.s.len) {
            memcpy(p, v->v.s.p, v->v.s.len);
        }
        p[v->v.s.len] = '\0';
        out->v.s.p = p;
        *at += round16(v->v.s.len + 1);
        return;
    }
    if (!rsql_type_is_nested(v->type) || !v->v.c) {
        return;
    }
    const rsql_composite_t *cv = v->v.c;
    size_t n = v->type == RSQL_TYPE_MAP ? 2 * (size_t)cv->n : (size_t)cv->n;
    rsql_composite_t *d = (rsql_composite_t *)*at;
    *at += round16(sizeof *d + n * sizeof d->items[0]);
    d->desc = cv->desc;
    d->n = cv->n;
    for (size_t i = 0; i < n; i++) {
        deep_copy(&cv->items[i], at, &d->items[i]);
    }
    out->v.c = d;
}

/* Twice the buckets when the entries outnumber them. */
static void grow(rt_lkcache_t *c)
{
    if ((size_t)c->st.entries < c->n_buckets) {
        return;
    }
    size_t nb = c->n_buckets * 2;
    ent_t **b = rsql_calloc(nb, sizeof *b);
    if (!b) {
        return; /* longer chains, still correct */
    }
    for (size_t i = 0; i < c->n_buckets; i++) {
        for (ent_t *e = c->buckets[i], *next; e; e = next) {
            next = e->hnext;
            e->hnext = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    rsql_free(c->buckets);
    c->buckets = b;
    c->n_buckets = nb;
}

/* See rt_lookup_cache.h. */
rsql_err_t rsql_lkcache_put(rt_lkcache_t *c, const rsql_value_t *key,
                            const rsql_value_t *const *rows, int n, int64_t now)
{
    uint64_t h;
    if (!rsql_value_keys_hash(key, c->n_key, &h)) {
        return RSQL_OK;
    }
    ent_t *old = find(c, key, h);
    if (old) {
        drop(c, old);
    }
    if (n == 0 && !c->conf.cache_missing) {
        return RSQL_OK;
    }
    size_t vals = ((size_t)c->n_key + (size_t)n * (size_t)c->n_cols) * sizeof(rsql_value_t);
    size_t size = round16(sizeof(ent_t)) + round16(vals) + round16((size_t)n * sizeof(void *) + 1);
    for (int k = 0; k < c->n_key; k++) {
        size += deep_size(&key[k]);
    }
    for (int r = 0; r < n; r++) {
        for (int i = 0; i < c->n_cols; i++) {
            size += deep_size(&rows[r][i]);
        }
    }
    unsigned char *block = rsql_malloc(size);
    if (!block) {
        return RSQL_ERR_NOMEM;
    }
    ent_t *e = (ent_t *)block;
    memset(e, 0, sizeof *e);
    unsigned char *at = block + round16(sizeof(ent_t));
    rsql_value_t *v = (rsql_value_t *)at;
    at += round16(vals);
    e->rows = (const rsql_value_t **)at;
    at += round16((size_t)n * sizeof(void *) + 1);
    e->key = v;
    for (int k = 0; k < c->n_key; k++) {
        deep_copy(&key[k], &at, &v[k]);
    }
    v += c->n_key;
    for (int r = 0; r < n; r++, v += c->n_cols) {
        for (int i = 0; i < c->n_cols; i++) {
            deep_copy(&rows[r][i], &at, &v[i]);
        }
        e->rows[r] = v;
    }
    e->hash = h;
    e->n = n;
    e->bytes = size;
    e->written = e->accessed = now;
    ent_t **b = &c->buckets[h & (c->n_buckets - 1)];
    e->hnext = *b;
    *b = e;
    push_front(c, e);
    c->st.rows += n ? n : 1;
    c->st.entries++;
    c->st.bytes += (int64_t)size;
    while (c->st.rows > c->conf.max_rows && c->tail && c->tail != e) {
        drop(c, c->tail);
        c->st.evictions++;
    }
    grow(c);
    return RSQL_OK;
}

/* See rt_lookup_cache.h. */
void rsql_lkcache_stats(const rt_lkcache_t *c, rt_lkcache_stats_t *out)
{
    *out = c->st;
}
