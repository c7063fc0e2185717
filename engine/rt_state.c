/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_state: see rt_state.h. The entries are a hash table of key bytes (FNV-1a), each entry one
 * allocation holding its key and value, in a list by use (a clock's approximation of it);
 * past the bound (state.memory) the least recently used whose changes are on disk leave
 * memory, and a key not in memory is read
 * back from the catalog (on a connection of the transform thread's own) unless the catalog
 * cannot hold it: a filter of the keys it may hold (those there at open, and every one evicted)
 * says it is not there, as it says of nearly every key seen for the first time. The changes not
 * yet on disk are a log per lane (a
 * source partition) in the order the records were read, each with the record's position, so
 * the changes of the records before a saved position are a prefix of its lane's log. The log
 * is shared by the transform thread (appends) and the worker (writes and drops a prefix),
 * under a mutex; the table is the transform thread's alone.
 * @locality see rt_state.h
 */
#include "config.h"
#include "engine/rt_state.h"
#include "engine/rt_keyfilter.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define NO_LANE UINT32_MAX /* an entry read back from the catalog: nothing pending */

typedef struct ent {           /* 56 bytes and the key and value: one for each key held */
    struct ent *next;          /* in its bucket */
    struct ent *newer, *older; /* the use list */
    uint64_t seq;              /* the number of its last change in its lane */
    int64_t written_ms;
    uint32_t hash;             /* the low half of hash_bytes' */
    uint32_t lane;             /* the lane of its last change, NO_LANE: none pending */
    uint32_t key_len;
    uint32_t value_len : 30;
    uint32_t used : 1; /* read since it last passed the end of the use list (its second chance) */
    uint32_t gone : 1; /* deleted (rsql_rt_state_del): its deletion is not on disk yet, or it
                          stays until it leaves memory so the value on disk is not read back */
    unsigned char bytes[]; /* key, then value */
} ent_t;

/* A change not yet on disk. */
typedef struct change {
    uint64_t seq; /* its number in its lane, from 1 */
    int64_t offset;
    int64_t written_ms;
    size_t key_len, value_len;
    bool gone; /* a deletion */
    unsigned char bytes[];
} change_t;

typedef struct lane {
    change_t **log;
    int head, n, cap; /* log[head .. n) pending */
    int writing;      /* the first this many are in the transaction of the last checkpoint */
    uint64_t seq;     /* the number of its last change */
    _Atomic uint64_t committed; /* the number of its last change on disk */
} lane_t;

struct rt_state {
    char *pipeline; /* NULL: in memory only */
    int64_t ttl_ms;
    int64_t memory;               /* the bound on bytes held (0: none) */
    rsql_state_reader_t *reader;  /* reads back what was evicted; NULL: everything is held */
    bool store_any;               /* the catalog held state for the pipeline at open */
    bool evicted;                 /* an entry was evicted since */
    rt_keyfilter_t *on_disk;      /* with a reader: the keys the catalog may hold */
    ent_t **buckets;
    size_t n_buckets;
    ent_t *newest, *oldest;
    /* the transform thread's, which the worker reads (rsql_rt_state_stats) while it runs:
       atomics of one writer (cnt_add, cnt) */
    _Atomic int64_t keys, bytes, reads, evictions;
    _Atomic int64_t peak; /* the most bytes + pending_bytes held after a change */
    pthread_mutex_t lock; /* the lanes */
    pthread_cond_t saved; /* a checkpoint committed (signalled under lock) */
    lane_t *lanes;
    uint32_t n_lanes;
    int64_t pending, checkpoints, last_us, waits;
    int64_t commits; /* checkpoint transactions committed (under lock) */
    _Atomic int64_t pending_bytes; /* of changes not on disk (changed under lock) */
    bool stalled; /* a wait for a checkpoint timed out: no more until one commits */
    rt_state_scan_cb scan; /* rsql_rt_state_open_scan's, during open */
    void *scan_opaque;
};

/* *v += d by its only writer; others read it with cnt. */
static inline void cnt_add(_Atomic int64_t *v, int64_t d)
{
    atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + d,
                          memory_order_relaxed);
}

static inline int64_t cnt(_Atomic int64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

/* See rt_state.h. */
uint64_t rsql_rt_state_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    }
    h ^= h >> 33; /* a finalizer, so that the low bits (the bucket) depend on every byte */
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return h;
}

static ent_t **slot(rt_state_t *s, const void *key, size_t key_len, uint64_t h)
{
    ent_t **p = &s->buckets[h & (s->n_buckets - 1)];
    while (*p && ((*p)->hash != (uint32_t)h || (*p)->key_len != key_len ||
                  memcmp((*p)->bytes, key, key_len) != 0)) {
        p = &(*p)->next;
    }
    return p;
}

static void grow_table(rt_state_t *s)
{
    if ((size_t)cnt(&s->keys) < s->n_buckets) {
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

static void use_unlink(rt_state_t *s, ent_t *e)
{
    if (e->newer) {
        e->newer->older = e->older;
    } else {
        s->newest = e->older;
    }
    if (e->older) {
        e->older->newer = e->newer;
    } else {
        s->oldest = e->newer;
    }
    e->newer = e->older = NULL;
}

static void use_front(rt_state_t *s, ent_t *e)
{
    e->newer = NULL;
    e->older = s->newest;
    if (s->newest) {
        s->newest->newer = e;
    } else {
        s->oldest = e;
    }
    s->newest = e;
}

static int64_t ent_bytes(const ent_t *e)
{
    return (int64_t)(sizeof *e + e->key_len + e->value_len + 1);
}

/* The bytes held: entries, changes not on disk, the filter of keys on disk. */
static int64_t held(rt_state_t *s)
{
    return cnt(&s->bytes) + atomic_load(&s->pending_bytes) +
           rsql_rt_keyfilter_bytes(s->on_disk);
}

/* Is e's last change not on disk yet (so it cannot leave memory)? */
static bool pending(const rt_state_t *s, const ent_t *e)
{
    return e->lane != NO_LANE && e->lane < s->n_lanes &&
           e->seq > atomic_load_explicit(&s->lanes[e->lane].committed, memory_order_acquire);
}

/* Drop e from the table (its value stays in the catalog). */
static void drop(rt_state_t *s, ent_t *e)
{
    ent_t **p = &s->buckets[e->hash & (s->n_buckets - 1)];
    while (*p != e) {
        p = &(*p)->next;
    }
    *p = e->next;
    use_unlink(s, e);
    cnt_add(&s->keys, -1);
    cnt_add(&s->bytes, -(int64_t)ent_bytes(e));
    rsql_free(e);
}

/*
** Past the bound, the least recently used entries whose changes are on disk leave memory
** (read back when asked for); keep stays. The list is in order of the last write; an entry
** read since it was last at the end goes to the front instead (a second chance, as a clock
** does: a read only sets a bit). An entry with a change pending stays until its checkpoint (it
** goes to the front too), so the bound may be exceeded by the entries changed since the last
** checkpoint.
*/
static void evict(rt_state_t *s, const ent_t *keep)
{
    if (!s->reader || s->memory <= 0) {
        return;
    }
    int passed = 0; /* a few per call: the work of a call stays small */
    while (held(s) > s->memory && s->oldest && passed < 16) {
        ent_t *e = s->oldest;
        if (e->used) { /* each read buys one move: the moves cost no more than the reads */
            e->used = 0;
            use_unlink(s, e);
            use_front(s, e);
        } else if (e == keep || pending(s, e)) { /* not yet: it goes to the front */
            use_unlink(s, e);
            use_front(s, e);
            passed++;
        } else {
            uint64_t h = rsql_rt_state_hash(e->bytes, e->key_len);
            if (!rsql_rt_keyfilter_maybe(s->on_disk, h)) { /* evicted before: it is */
                rsql_rt_keyfilter_add(s->on_disk, h); /* false: "maybe" from now on */
            }
            drop(s, e);
            s->evicted = true;
            cnt_add(&s->evictions, 1);
        }
    }
}

/* Set key's value in the table, its last change lane's number seq (NO_LANE: none). */
static rsql_err_t table_set(rt_state_t *s, const void *key, size_t key_len, const void *value,
                            size_t value_len, int64_t written_ms, uint32_t lane, uint64_t seq,
                            bool gone)
{
    if (key_len > UINT32_MAX || value_len > (INT32_MAX >> 1)) {
        return RSQL_ERR_NOMEM; /* no row is that large: its packing would have failed first */
    }
    uint64_t h = rsql_rt_state_hash(key, key_len);
    ent_t **p = slot(s, key, key_len, h);
    ent_t *e = rsql_malloc(sizeof *e + key_len + value_len + 1);
    if (!e) {
        return RSQL_ERR_NOMEM;
    }
    e->hash = (uint32_t)h;
    e->key_len = (uint32_t)key_len;
    e->value_len = (uint32_t)value_len & (INT32_MAX >> 1);
    e->used = 0;
    e->gone = gone;
    e->written_ms = written_ms;
    e->lane = lane;
    e->seq = seq;
    memcpy(e->bytes, key, key_len);
    if (value_len) {
        memcpy(e->bytes + key_len, value, value_len);
    }
    if (*p) {
        ent_t *old = *p;
        e->next = old->next;
        use_unlink(s, old);
        cnt_add(&s->bytes, -(int64_t)ent_bytes(old));
        rsql_free(old);
        *p = e;
    } else {
        e->next = NULL;
        *p = e;
        cnt_add(&s->keys, 1);
    }
    use_front(s, e);
    cnt_add(&s->bytes, (int64_t)ent_bytes(e));
    grow_table(s);
    evict(s, e);
    int64_t now_held = held(s);
    if (now_held > cnt(&s->peak)) {
        atomic_store_explicit(&s->peak, now_held, memory_order_relaxed);
    }
    return RSQL_OK;
}

static rsql_err_t on_loaded(void *opaque, const void *key, size_t key_len, const void *value,
                            size_t value_len, int64_t written_ms)
{
    rt_state_t *s = opaque;
    if (s->scan) {
        rsql_err_t rc = s->scan(s->scan_opaque, key, key_len, value, value_len);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return table_set(s, key, key_len, value, value_len, written_ms, NO_LANE, 0, false);
}

/* A key read back (rsql_rt_state_get): not scanned again. */
static rsql_err_t on_read(void *opaque, const void *key, size_t key_len, const void *value,
                          size_t value_len, int64_t written_ms)
{
    return table_set(opaque, key, key_len, value, value_len, written_ms, NO_LANE, 0, false);
}

static rsql_err_t on_stored(void *opaque, const void *key, size_t key_len, const void *value,
                            size_t value_len, int64_t written_ms)
{
    rt_state_t *s = opaque;
    (void)written_ms;
    rsql_rt_keyfilter_add(s->on_disk, rsql_rt_state_hash(key, key_len));
    return s->scan ? s->scan(s->scan_opaque, key, key_len, value, value_len) : RSQL_OK;
}

/* Entries of this many bytes (a short key and value) fill the bound: the filter's first size.
   It takes at most this share of the bound (then gives up: every key not held is looked for
   in the catalog, as without it). */
#define KEYFILTER_ENTRY_BYTES 64
#define KEYFILTER_SHARE 4

/* See rt_state.h. */
rsql_err_t rsql_rt_state_open(rsql_catalog_t *cat, const char *pipeline, int64_t ttl_ms,
                              int64_t memory, rt_state_t **out, rsql_error_t *err)
{
    return rsql_rt_state_open_scan(cat, pipeline, ttl_ms, memory, NULL, NULL, out, err);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_open_scan(rsql_catalog_t *cat, const char *pipeline, int64_t ttl_ms,
                                   int64_t memory, rt_state_scan_cb scan, void *opaque,
                                   rt_state_t **out, rsql_error_t *err)
{
    rt_state_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->scan = scan;
    s->scan_opaque = opaque;
    s->ttl_ms = ttl_ms;
    s->memory = memory;
    s->n_buckets = 1024;
    s->buckets = rsql_calloc(s->n_buckets, sizeof *s->buckets);
    pthread_mutex_init(&s->lock, NULL);
    rsql_cond_init_monotonic(&s->saved);
    if (!s->buckets || (cat && pipeline && !(s->pipeline = rsql_strdup(pipeline)))) {
        rsql_rt_state_close(s);
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = RSQL_OK;
    if (s->pipeline && memory > 0) { /* bounded: read back on demand */
        rc = rsql_catalog_state_reader(cat, pipeline, &s->reader, &s->store_any, err);
    }
    if (rc == RSQL_OK && s->reader) { /* the keys on disk, so that new ones are not looked for */
        s->on_disk = rsql_rt_keyfilter_new(memory / KEYFILTER_ENTRY_BYTES,
                                           memory / KEYFILTER_SHARE);
        if (!s->on_disk) {
            rc = rsql_error_nomem(err);
        } else if (s->store_any) {
            int64_t since = ttl_ms > 0 ? rsql_wall_ms() - ttl_ms : 0;
            rc = rsql_catalog_state_load(cat, pipeline, since, on_stored, s, err);
        }
    }
    if (rc == RSQL_OK && s->pipeline && !s->reader) { /* everything in memory */
        int64_t since = ttl_ms > 0 ? rsql_wall_ms() - ttl_ms : 0;
        rc = rsql_catalog_state_load(cat, pipeline, since, on_loaded, s, err);
    }
    if (rc != RSQL_OK) {
        rsql_rt_state_close(s);
        return rc;
    }
    s->scan = NULL;
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
    rsql_state_reader_close(s->reader);
    rsql_rt_keyfilter_free(s->on_disk);
    pthread_cond_destroy(&s->saved);
    pthread_mutex_destroy(&s->lock);
    rsql_free(s->lanes);
    rsql_free(s->buckets);
    rsql_free(s->pipeline);
    rsql_free(s);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_get(rt_state_t *s, const void *key, size_t key_len, int64_t now_ms,
                             const uint8_t **value, size_t *value_len, bool *found,
                             rsql_error_t *err)
{
    *found = false;
    uint64_t h = rsql_rt_state_hash(key, key_len);
    ent_t *e = *slot(s, key, key_len, h);
    if (!e && s->reader && (s->store_any || s->evicted) &&
        rsql_rt_keyfilter_maybe(s->on_disk, h)) { /* it may be on disk only */
        bool on_disk;
        cnt_add(&s->reads, 1);
        rsql_err_t rc = rsql_state_reader_get(s->reader, key, key_len,
                                              s->ttl_ms > 0 ? rsql_wall_ms() - s->ttl_ms : 0,
                                              on_read, s, &on_disk, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        e = on_disk ? *slot(s, key, key_len, h) : NULL;
    }
    if (!e || e->gone || (s->ttl_ms > 0 && now_ms - e->written_ms >= s->ttl_ms)) {
        return RSQL_OK;
    }
    e->used = 1; /* not moved now (that writes to its neighbours too): when it is the oldest */
    *value = e->bytes + e->key_len;
    *value_len = e->value_len;
    *found = true;
    return RSQL_OK;
}

/* Drop key's entry from the table, if it holds one. */
static void table_forget(rt_state_t *s, const void *key, size_t key_len)
{
    ent_t *e = *slot(s, key, key_len, rsql_rt_state_hash(key, key_len));
    if (e) {
        drop(s, e);
    }
}

/* A change of key: its new value, or (gone) its deletion. */
static rsql_err_t change(rt_state_t *s, const void *key, size_t key_len, const void *value,
                         size_t value_len, bool gone, uint32_t lane, int64_t offset,
                         int64_t now_ms)
{
    if (!s->pipeline) { /* in memory only */
        if (gone) {
            table_forget(s, key, key_len);
            return RSQL_OK;
        }
        return table_set(s, key, key_len, value, value_len, now_ms, NO_LANE, 0, false);
    }
    change_t *c = rsql_malloc(sizeof *c + key_len + value_len + 1);
    if (!c) {
        return RSQL_ERR_NOMEM;
    }
    c->offset = offset;
    c->written_ms = now_ms;
    c->key_len = key_len;
    c->value_len = value_len;
    c->gone = gone;
    memcpy(c->bytes, key, key_len);
    if (value_len) {
        memcpy(c->bytes + key_len, value, value_len);
    }
    rsql_err_t rc = RSQL_OK;
    int64_t cost = (int64_t)(sizeof *c + key_len + value_len + 1);
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
        if (l->head > 0 && l->head >= l->cap / 2) { /* drop the freed prefix */
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
    uint64_t seq = 0;
    if (rc == RSQL_OK) {
        seq = c->seq = ++l->seq;
        l->log[l->n++] = c; /* the worker may free it once it is on disk */
        s->pending++;
        atomic_fetch_add(&s->pending_bytes, cost);
    }
    pthread_mutex_unlock(&s->lock);
    if (rc != RSQL_OK) {
        rsql_free(c);
        return rc;
    }
    if (gone && !s->reader) { /* nothing is read back from disk: the entry can go now */
        table_forget(s, key, key_len);
        return RSQL_OK;
    }
    return table_set(s, key, key_len, value, value_len, now_ms, lane, seq, gone);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_put(rt_state_t *s, const void *key, size_t key_len, const void *value,
                             size_t value_len, uint32_t lane, int64_t offset, int64_t now_ms)
{
    return change(s, key, key_len, value, value_len, false, lane, offset, now_ms);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_del(rt_state_t *s, const void *key, size_t key_len, uint32_t lane,
                             int64_t offset, int64_t now_ms)
{
    return change(s, key, key_len, NULL, 0, true, lane, offset, now_ms);
}

/* See rt_state.h. */
bool rsql_rt_state_full(rt_state_t *s)
{
    if (s->memory <= 0 || !s->pipeline ||
        atomic_load_explicit(&s->pending_bytes, memory_order_relaxed) <= s->memory / 2) {
        return false;
    }
    pthread_mutex_lock(&s->lock);
    bool full = !s->stalled;
    pthread_mutex_unlock(&s->lock);
    return full;
}

/* See rt_state.h. */
bool rsql_rt_state_wait(rt_state_t *s, int64_t until_ms)
{
    pthread_mutex_lock(&s->lock);
    s->waits++;
    int64_t seen = s->commits;
    int w = 0;
    while (s->commits == seen && (w = rsql_cond_wait_until(&s->saved, &s->lock, until_ms)) == 0) {
    }
    bool room = s->pending_bytes <= s->memory / 2;
    if (w != 0 && !room) {
        s->stalled = true; /* none came in time: no more waits until one does */
    }
    pthread_mutex_unlock(&s->lock);
    return room;
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
            ch[nch++] = (rsql_state_change_t){c->bytes, c->key_len,
                                              c->gone ? NULL : c->bytes + c->key_len,
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
            const change_t *c = l->log[l->head + j];
            atomic_store_explicit(&l->committed, c->seq, memory_order_release);
            atomic_fetch_sub(&s->pending_bytes,
                             (int64_t)(sizeof *c + c->key_len + c->value_len + 1));
            rsql_free(l->log[l->head + j]);
        }
        l->head += l->writing;
        s->pending -= l->writing;
        l->writing = 0;
        if (l->head == l->n) {
            l->head = l->n = 0;
        }
    }
    s->stalled = false;
    s->commits++;
    pthread_cond_broadcast(&s->saved);
    pthread_mutex_unlock(&s->lock);
}

/* See rt_state.h. */
void rsql_rt_state_stats(rt_state_t *s, rt_state_stats_t *out)
{
    pthread_mutex_lock(&s->lock);
    out->pending = s->pending;
    out->waits = s->waits;
    pthread_mutex_unlock(&s->lock);
    out->keys = cnt(&s->keys);
    out->bytes = cnt(&s->bytes);
    out->checkpoints = s->checkpoints; /* the worker's */
    out->last_checkpoint_us = s->last_us;
    out->reads = cnt(&s->reads);
    out->evictions = cnt(&s->evictions);
    out->peak_bytes = cnt(&s->peak);
}

/* See rt_state.h. */
size_t rsql_rt_state_describe(rt_state_t *s, char *buf, size_t size)
{
    if (size == 0) {
        return 0;
    }
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    int n = snprintf(buf, size, "state: %lld keys in memory (%lld bytes), %lld checkpoints",
                     (long long)st.keys, (long long)st.bytes, (long long)st.checkpoints);
    if (n > 0 && (size_t)n < size && (st.evictions || st.reads || st.waits)) {
        n += snprintf(buf + n, size - (size_t)n,
                      ", %lld evicted, %lld looked up in the catalog, %lld waits for a checkpoint, "
                      "at most %lld bytes held",
                      (long long)st.evictions, (long long)st.reads, (long long)st.waits,
                      (long long)st.peak_bytes);
    }
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
