/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_state: see rt_state.h. The entries are a hash table of key bytes (FNV-1a), each entry one
 * allocation holding its key and value; the changes not yet on disk are a log per lane (a
 * source partition) in the order the records were read, each with the record's position, so
 * the changes of the records before a saved position are a prefix of its lane's log. The log
 * is shared by the transform thread (appends) and the worker (writes and drops a prefix),
 * under a mutex; the table is the transform thread's alone.
 * @locality see rt_state.h
 */
#include "config.h"
#include "engine/rt_state.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <pthread.h>
#include <string.h>

typedef struct ent {
    struct ent *next;
    uint64_t hash;
    size_t key_len, value_len;
    int64_t written_ms;
    unsigned char bytes[]; /* key, then value */
} ent_t;

/* A change not yet on disk. */
typedef struct change {
    int64_t offset;
    int64_t written_ms;
    size_t key_len, value_len;
    unsigned char bytes[];
} change_t;

typedef struct lane {
    change_t **log;
    int head, n, cap; /* log[head .. n) pending */
    int writing;      /* the first this many are in the transaction of the last checkpoint */
} lane_t;

struct rt_state {
    char *pipeline; /* NULL: in memory only */
    int64_t ttl_ms;
    ent_t **buckets;
    size_t n_buckets;
    int64_t keys, bytes;
    pthread_mutex_t lock; /* the lanes */
    lane_t *lanes;
    uint32_t n_lanes;
    int64_t pending, checkpoints, last_us;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    }
    return h ^ (h >> 31);
}

static ent_t **slot(rt_state_t *s, const void *key, size_t key_len, uint64_t h)
{
    ent_t **p = &s->buckets[h & (s->n_buckets - 1)];
    while (*p && ((*p)->hash != h || (*p)->key_len != key_len ||
                  memcmp((*p)->bytes, key, key_len) != 0)) {
        p = &(*p)->next;
    }
    return p;
}

static void grow_table(rt_state_t *s)
{
    if ((size_t)s->keys < s->n_buckets) {
        return;
    }
    size_t nb = s->n_buckets * 2;
    ent_t **b = rsql_calloc(nb, sizeof *b);
    if (!b) {
        return; /* longer chains, still right */
    }
    for (size_t i = 0; i < s->n_buckets; i++) {
        for (ent_t *e = s->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    rsql_free(s->buckets);
    s->buckets = b;
    s->n_buckets = nb;
}

/* Set key's value in the table (no log). */
static rsql_err_t table_set(rt_state_t *s, const void *key, size_t key_len, const void *value,
                            size_t value_len, int64_t written_ms)
{
    uint64_t h = hash_bytes(key, key_len);
    ent_t **p = slot(s, key, key_len, h);
    ent_t *e = rsql_malloc(sizeof *e + key_len + value_len + 1);
    if (!e) {
        return RSQL_ERR_NOMEM;
    }
    e->hash = h;
    e->key_len = key_len;
    e->value_len = value_len;
    e->written_ms = written_ms;
    memcpy(e->bytes, key, key_len);
    if (value_len) {
        memcpy(e->bytes + key_len, value, value_len);
    }
    if (*p) {
        ent_t *old = *p;
        e->next = old->next;
        s->bytes -= (int64_t)(old->key_len + old->value_len);
        rsql_free(old);
        *p = e;
    } else {
        e->next = NULL;
        *p = e;
        s->keys++;
    }
    s->bytes += (int64_t)(key_len + value_len);
    grow_table(s);
    return RSQL_OK;
}

static rsql_err_t on_loaded(void *opaque, const void *key, size_t key_len, const void *value,
                            size_t value_len, int64_t written_ms)
{
    return table_set(opaque, key, key_len, value, value_len, written_ms);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_open(rsql_catalog_t *cat, const char *pipeline, int64_t ttl_ms,
                              rt_state_t **out, rsql_error_t *err)
{
    rt_state_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->ttl_ms = ttl_ms;
    s->n_buckets = 1024;
    s->buckets = rsql_calloc(s->n_buckets, sizeof *s->buckets);
    pthread_mutex_init(&s->lock, NULL);
    if (!s->buckets || (cat && pipeline && !(s->pipeline = rsql_strdup(pipeline)))) {
        rsql_rt_state_close(s);
        return rsql_error_nomem(err);
    }
    if (s->pipeline) {
        int64_t since = ttl_ms > 0 ? rsql_wall_ms() - ttl_ms : 0;
        rsql_err_t rc = rsql_catalog_state_load(cat, pipeline, since, on_loaded, s, err);
        if (rc != RSQL_OK) {
            rsql_rt_state_close(s);
            return rc;
        }
    }
    *out = s;
    return RSQL_OK;
}

/* See rt_state.h. */
void rsql_rt_state_close(rt_state_t *s)
{
    if (!s) {
        return;
    }
    for (size_t i = 0; s->buckets && i < s->n_buckets; i++) {
        for (ent_t *e = s->buckets[i], *next; e; e = next) {
            next = e->next;
            rsql_free(e);
        }
    }
    for (uint32_t l = 0; l < s->n_lanes; l++) {
        for (int i = s->lanes[l].head; i < s->lanes[l].n; i++) {
            rsql_free(s->lanes[l].log[i]);
        }
        rsql_free(s->lanes[l].log);
    }
    pthread_mutex_destroy(&s->lock);
    rsql_free(s->lanes);
    rsql_free(s->buckets);
    rsql_free(s->pipeline);
    rsql_free(s);
}

/* See rt_state.h. */
bool rsql_rt_state_get(rt_state_t *s, const void *key, size_t key_len, int64_t now_ms,
                       const uint8_t **value, size_t *value_len)
{
    ent_t *e = *slot(s, key, key_len, hash_bytes(key, key_len));
    if (!e || (s->ttl_ms > 0 && now_ms - e->written_ms >= s->ttl_ms)) {
        return false;
    }
    *value = e->bytes + e->key_len;
    *value_len = e->value_len;
    return true;
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_put(rt_state_t *s, const void *key, size_t key_len, const void *value,
                             size_t value_len, uint32_t lane, int64_t offset, int64_t now_ms)
{
    if (table_set(s, key, key_len, value, value_len, now_ms) != RSQL_OK) {
        return RSQL_ERR_NOMEM;
    }
    if (!s->pipeline) {
        return RSQL_OK; /* in memory only */
    }
    change_t *c = rsql_malloc(sizeof *c + key_len + value_len + 1);
    if (!c) {
        return RSQL_ERR_NOMEM;
    }
    c->offset = offset;
    c->written_ms = now_ms;
    c->key_len = key_len;
    c->value_len = value_len;
    memcpy(c->bytes, key, key_len);
    if (value_len) {
        memcpy(c->bytes + key_len, value, value_len);
    }
    rsql_err_t rc = RSQL_OK;
    pthread_mutex_lock(&s->lock);
    if (lane >= s->n_lanes) {
        lane_t *ls = rsql_realloc(s->lanes, sizeof *ls * ((size_t)lane + 1));
        if (!ls) {
            rc = RSQL_ERR_NOMEM;
        } else {
            memset(ls + s->n_lanes, 0, sizeof *ls * ((size_t)lane + 1 - s->n_lanes));
            s->lanes = ls;
            s->n_lanes = lane + 1;
        }
    }
    lane_t *l = rc == RSQL_OK ? &s->lanes[lane] : NULL;
    if (l && l->n == l->cap) {
        if (l->head > l->writing && l->head >= l->cap / 2) { /* drop the freed prefix */
            memmove(l->log, l->log + l->head, sizeof *l->log * (size_t)(l->n - l->head));
            l->n -= l->head;
            l->head = 0;
        } else {
            int cap = l->cap ? 2 * l->cap : 256;
            change_t **g = rsql_realloc(l->log, sizeof *g * (size_t)cap);
            if (!g) {
                rc = RSQL_ERR_NOMEM;
            } else {
                l->log = g;
                l->cap = cap;
            }
        }
    }
    if (rc == RSQL_OK) {
        l->log[l->n++] = c;
        s->pending++;
    }
    pthread_mutex_unlock(&s->lock);
    if (rc != RSQL_OK) {
        rsql_free(c);
    }
    return rc;
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_checkpoint(rt_state_t *s, rsql_catalog_t *cat, int n,
                                    const uint32_t *lanes, const int64_t *offs,
                                    rsql_error_t *err)
{
    if (!s->pipeline) {
        return RSQL_OK;
    }
    int64_t t0 = rsql_now_ns();
    rsql_state_change_t *ch = NULL;
    int nch = 0, cap = 0;
    rsql_err_t rc = RSQL_OK;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < n && rc == RSQL_OK; i++) {
        if (lanes[i] >= s->n_lanes) {
            continue;
        }
        lane_t *l = &s->lanes[lanes[i]];
        int k = l->head;
        while (k < l->n && l->log[k]->offset <= offs[i]) {
            k++;
        }
        l->writing = k - l->head;
        if (nch + l->writing > cap) {
            int c2 = cap ? cap : 256;
            while (c2 < nch + l->writing) {
                c2 *= 2;
            }
            rsql_state_change_t *g = rsql_realloc(ch, sizeof *g * (size_t)c2);
            if (!g) {
                rc = rsql_error_nomem(err);
                break;
            }
            ch = g;
            cap = c2;
        }
        for (int j = l->head; j < k; j++) {
            const change_t *c = l->log[j];
            ch[nch++] = (rsql_state_change_t){c->bytes, c->key_len, c->bytes + c->key_len,
                                              c->value_len, c->written_ms};
        }
    }
    pthread_mutex_unlock(&s->lock);
    /* the changes are not freed before rsql_rt_state_committed (this thread), and the
       transform thread only appends after them */
    if (rc == RSQL_OK && (nch > 0 || s->ttl_ms > 0)) {
        rc = rsql_catalog_state_write(cat, s->pipeline, nch, ch,
                                      s->ttl_ms > 0 ? rsql_wall_ms() - s->ttl_ms : 0, err);
    }
    rsql_free(ch);
    if (nch > 0) {
        s->checkpoints++;
        s->last_us = (rsql_now_ns() - t0) / 1000;
    }
    return rc;
}

/* See rt_state.h. */
void rsql_rt_state_committed(rt_state_t *s)
{
    pthread_mutex_lock(&s->lock);
    for (uint32_t i = 0; i < s->n_lanes; i++) {
        lane_t *l = &s->lanes[i];
        for (int j = 0; j < l->writing; j++) {
            rsql_free(l->log[l->head + j]);
        }
        l->head += l->writing;
        s->pending -= l->writing;
        l->writing = 0;
        if (l->head == l->n) {
            l->head = l->n = 0;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

/* See rt_state.h. */
void rsql_rt_state_stats(rt_state_t *s, rt_state_stats_t *out)
{
    pthread_mutex_lock(&s->lock);
    out->pending = s->pending;
    pthread_mutex_unlock(&s->lock);
    out->keys = s->keys;
    out->bytes = s->bytes;
    out->checkpoints = s->checkpoints;
    out->last_checkpoint_us = s->last_us;
}
