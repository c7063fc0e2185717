/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_state: see rt_state.h. The entries are a hash table of key bytes (a word at a time; open
 * addressing, rt_state_table.h), each entry one allocation holding its key and value (with room
 * to change the value in place), in a list by use (a clock's approximation of it); past the
 * bound (state.memory) the least recently used whose changes are on disk leave memory, and a
 * key not in memory is read back from the catalog (on a connection of the transform thread's
 * own) unless the catalog cannot hold it: a filter of the keys it may hold (those there at
 * open, and every one evicted) says it is not there, as it says of nearly every key seen for
 * the first time. The entries changed since the last seal are in an array (each knows its place
 * there); a seal copies their keys and values once, however often they changed, with the
 * positions seen. The seals not yet on disk are a list shared by the transform thread (appends)
 * and the worker (writes and drops a prefix), under a mutex; the table is the transform
 * thread's alone.
 * @locality see rt_state.h
 */
#include "config.h"
#include "engine/rt_state.h"
#include "engine/rt_keyfilter.h"
#include "engine/rt_state_table.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* A change in a seal: key and value at offsets of its bytes. */
typedef struct change {
    size_t key_off, key_len, value_off, value_len;
    int64_t written_ms;
    bool gone;
} change_t;

/* A seal not yet on disk: the changes since the one before, and the positions seen up to it
   (the lanes seen since the one before). */
typedef struct seal {
    struct seal *next;
    uint32_t no;     /* from 1 */
    uint64_t ticks;  /* the transform's ticks made before it */
    int n_lanes;
    uint32_t *lanes;
    int64_t *offs;
    char **keys;     /* owned; NULL: none */
    int n;
    change_t *ch;
    unsigned char *bytes;
    int64_t cost;    /* counted in pending_bytes */
    int n_gone;      /* its changes that are deletions */
} seal_t;

/* What the transform thread saw of a lane since the last seal. */
typedef struct seen {
    int64_t off;
    char *key;  /* owned */
    bool on;    /* seen since the last seal */
} seen_t;

struct rt_state {
    char *pipeline; /* NULL: in memory only */
    int64_t ttl_ms;
    int64_t memory;               /* the bound on bytes held (0: none) */
    rsql_state_reader_t *reader;  /* reads back what was evicted; NULL: everything is held */
    bool store_any;               /* the catalog held state for the pipeline at open */
    bool evicted;                 /* an entry was evicted since */
    rt_keyfilter_t *on_disk;      /* with a reader: the keys the catalog may hold */
    rt_table_t t;                 /* the entries held, by key */
    ent_t *newest, *oldest;
    ent_t *last; /* the entry the last get found: a put of its key (most follow one) is not
                    looked for again */
    /* the transform thread's: the entries changed since the last seal, the lanes seen */
    ent_t **changed;
    uint32_t n_changed, cap_changed;
    int64_t changed_bytes;
    seen_t *seen;
    uint32_t n_seen_cap;
    uint32_t *seen_lanes; /* the lanes seen since the last seal, in the order first seen */
    uint32_t n_seen_lanes;
    uint32_t seals;       /* the last seal's number */
    /* the transform thread's, which the worker reads (rsql_rt_state_stats) while it runs:
       atomics of one writer (cnt_add, cnt) */
    _Atomic int64_t keys, bytes, reads, evictions, dirty;
    _Atomic int64_t peak; /* the most bytes + pending_bytes held after a change */
    _Atomic bool seal_wanted;       /* the worker asked for a seal */
    _Atomic uint32_t committed;     /* the number of the last seal on disk */
    pthread_mutex_t lock; /* the seals */
    pthread_cond_t saved; /* a checkpoint committed (signalled under lock) */
    seal_t *head, **tail; /* the seals not on disk, oldest first */
    seal_t *done;         /* committed seals with deletions, for the transform thread to drop
                             their entries (forget_done) */
    int writing;          /* the first this many are in the transaction of the last checkpoint */
    int64_t pending, checkpoints, last_us, waits;
    int64_t commits; /* checkpoint transactions committed (under lock) */
    _Atomic int64_t pending_bytes; /* of seals not on disk (changed under lock) */
    _Atomic int64_t done_bytes;    /* of the seals in done (changed under lock) */
    bool stalled; /* a wait for a checkpoint timed out: no more until one commits */
    /* the worker's: the positions delivered, per lane (INT64_MIN: none yet), and the cut */
    int64_t *deliv;
    uint32_t n_deliv;
    uint32_t *cut_lanes;
    int64_t *cut_offs;
    const char **cut_keys;
    int cut_cap;
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
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n, w;
    for (; n >= 8; b += 8, n -= 8) { /* a word at a time: one multiply each, not one a byte */
        memcpy(&w, b, sizeof w);
        h = (h ^ w) * UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 31;
    }
    if (n) {
        w = 0;
        for (size_t i = 0; i < n; i++) {
            w |= (uint64_t)b[i] << (8 * i);
        }
        h = (h ^ w) * UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 31;
    }
    h ^= h >> 33; /* a finalizer, so that every bit (the slot's low ones, the tag's high ones)
                     depends on every byte */
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
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
    return (int64_t)(sizeof *e + e->key_len + e->cap + 1);
}

/* The bytes held: entries, seals not on disk, the filter of keys on disk. */
static int64_t held(rt_state_t *s)
{
    return cnt(&s->bytes) + atomic_load(&s->pending_bytes) + atomic_load(&s->done_bytes) +
           rsql_rt_keyfilter_bytes(s->on_disk);
}

/* Is e's last change not on disk yet (so it cannot leave memory)? */
static bool pending(const rt_state_t *s, const ent_t *e)
{
    return e->dirty || e->seal > atomic_load_explicit(&s->committed, memory_order_acquire);
}

/* Take e out of the changed array (its change is forgotten: it leaves the table). */
static void unchange(rt_state_t *s, ent_t *e)
{
    if (!e->dirty) {
        return;
    }
    ent_t *last = s->changed[--s->n_changed];
    s->changed[e->dirty - 1] = last;
    last->dirty = e->dirty;
    e->dirty = 0;
    cnt_add(&s->dirty, -1);
}

/* Drop e from the table (its value stays in the catalog). */
static void drop(rt_state_t *s, ent_t *e)
{
    rt_table_remove(&s->t, rt_table_at(&s->t, e));
    use_unlink(s, e);
    unchange(s, e);
    if (s->last == e) {
        s->last = NULL;
    }
    cnt_add(&s->keys, -1);
    cnt_add(&s->bytes, -(int64_t)ent_bytes(e));
    rsql_free(e);
}

/*
** Past the bound, the least recently used entries whose changes are on disk leave memory
** (read back when asked for); keep stays. The list is in order of entry into memory (a new
** key, a value grown past its room, a key read back); an entry read or changed in place since
** it was last at the end goes to the front instead (a second chance, as a clock does: a read
** or a change in place only sets a bit, and touches no neighbour). An entry with a change not on disk stays until its seal is
** written (it goes to the front too), so the bound may be exceeded by the entries changed
** since the last checkpoint.
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

/* Room for a value of n bytes: a little more, so that a value that grows a little (a count's
   varint, a sum) is changed in place. */
static size_t value_room(size_t n)
{
    return n == 0 ? 0 : (n + 15) & ~(size_t)7;
}

/*
** Set key's value in the table: in place when it has room, else in a new entry that takes the
** old one's places. changed: a change of the run (into the changed array, for the next seal);
** false: a value read from the catalog.
*/
static rsql_err_t table_set(rt_state_t *s, const void *key, size_t key_len, const void *value,
                            size_t value_len, int64_t written_ms, bool gone, bool changed)
{
    if (key_len > UINT32_MAX || value_len > (INT32_MAX >> 1)) {
        return RSQL_ERR_NOMEM; /* no row is that large: its packing would have failed first */
    }
    if (changed && !s->pipeline) {
        changed = false; /* in memory only: nothing to seal */
    }
    if (changed && s->n_changed == s->cap_changed) { /* room first: nothing half done */
        uint32_t cap = s->cap_changed ? 2 * s->cap_changed : 1024;
        ent_t **g = rsql_realloc(s->changed, sizeof *g * cap);
        if (!g) {
            return RSQL_ERR_NOMEM;
        }
        s->changed = g;
        s->cap_changed = cap;
    }
    ent_t *e = s->last;
    size_t at = SIZE_MAX;
    uint64_t h = 0;
    if (!e || e->key_len != key_len || memcmp(e->bytes, key, key_len) != 0) {
        h = rsql_rt_state_hash(key, key_len);
        at = rt_table_find(&s->t, key, key_len, h);
        e = rt_table_ent(&s->t, s->t.slots[at]);
        if (!e) { /* a new key: room for it first (a table that grew has other slots) */
            size_t n = s->t.n;
            if (!rt_table_room(&s->t, (size_t)cnt(&s->keys) + 1)) {
                return RSQL_ERR_NOMEM;
            }
            if (s->t.n != n) {
                at = rt_table_find(&s->t, key, key_len, h);
            }
        }
    }
    if (!e || value_len > e->cap) {
        size_t room = value_room(value_len);
        ent_t *n = rsql_malloc(sizeof *n + key_len + room + 1);
        if (!n) {
            return RSQL_ERR_NOMEM;
        }
        n->hash = (uint32_t)h; /* a new key's (h computed above) */
        n->key_len = (uint32_t)key_len;
        n->cap = (uint32_t)room;
        n->used = 0;
        memcpy(n->bytes, key, key_len);
        if (e) { /* it takes e's places: slot (and tag), changed array, seal */
            if (at == SIZE_MAX) { /* found as the last one got */
                at = rt_table_at(&s->t, e);
            }
            rt_table_replace(&s->t, at, n);
            n->hash = e->hash;
            n->dirty = e->dirty;
            n->seal = e->seal;
            if (e->dirty) {
                s->changed[e->dirty - 1] = n;
            }
            use_unlink(s, e);
            cnt_add(&s->bytes, -(int64_t)ent_bytes(e));
            rsql_free(e);
        } else {
            rt_table_put(&s->t, at, n, h);
            n->dirty = 0;
            n->seal = 0;
            cnt_add(&s->keys, 1);
        }
        cnt_add(&s->bytes, (int64_t)ent_bytes(n));
        use_front(s, n);
        e = n;
    } else {
        e->used = 1; /* changed in place: not moved (its neighbours stay untouched), a second
                        chance when it is the oldest, as a read gives */
    }
    e->value_len = (uint32_t)value_len & (INT32_MAX >> 1);
    if (value_len) {
        memcpy(e->bytes + key_len, value, value_len);
    }
    s->last = e;
    e->gone = gone;
    e->written_ms = written_ms;
    if (changed && !e->dirty) {
        s->changed[s->n_changed++] = e;
        e->dirty = s->n_changed;
        s->changed_bytes += (int64_t)(sizeof(change_t) + key_len + e->cap);
        cnt_add(&s->dirty, 1);
    }
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
    return table_set(s, key, key_len, value, value_len, written_ms, false, false);
}

/* A key read back (rsql_rt_state_get): not scanned again. */
static rsql_err_t on_read(void *opaque, const void *key, size_t key_len, const void *value,
                          size_t value_len, int64_t written_ms)
{
    return table_set(opaque, key, key_len, value, value_len, written_ms, false, false);
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
    s->tail = &s->head;
    bool table = rt_table_init(&s->t, 1024);
    pthread_mutex_init(&s->lock, NULL);
    rsql_cond_init_monotonic(&s->saved);
    if (!table || (cat && pipeline && !(s->pipeline = rsql_strdup(pipeline)))) {
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

static void seal_free(seal_t *z)
{
    for (int i = 0; i < z->n_lanes; i++) {
        rsql_free(z->keys[i]);
    }
    rsql_free(z->lanes);
    rsql_free(z->offs);
    rsql_free(z->keys);
    rsql_free(z->ch);
    rsql_free(z->bytes);
    rsql_free(z);
}

/* See rt_state.h. */
void rsql_rt_state_close(rt_state_t *s)
{
    if (!s) {
        return;
    }
    for (size_t i = 0; s->t.slots && i < s->t.n; i++) {
        rsql_free(rt_table_ent(&s->t, s->t.slots[i]));
    }
    for (seal_t *z = s->head, *next; z; z = next) {
        next = z->next;
        seal_free(z);
    }
    for (seal_t *z = s->done, *next; z; z = next) {
        next = z->next;
        seal_free(z);
    }
    for (uint32_t l = 0; l < s->n_seen_cap; l++) {
        rsql_free(s->seen[l].key);
    }
    rsql_state_reader_close(s->reader);
    rsql_rt_keyfilter_free(s->on_disk);
    pthread_cond_destroy(&s->saved);
    pthread_mutex_destroy(&s->lock);
    rsql_free(s->seen);
    rsql_free(s->seen_lanes);
    rsql_free(s->changed);
    rsql_free(s->deliv);
    rsql_free(s->cut_lanes);
    rsql_free(s->cut_offs);
    rsql_free(s->cut_keys);
    rt_table_free(&s->t);
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
    ent_t *e = rt_table_lookup(&s->t, key, key_len, h);
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
        e = on_disk ? rt_table_lookup(&s->t, key, key_len, h) : NULL;
    }
    if (!e || e->gone || (s->ttl_ms > 0 && now_ms - e->written_ms >= s->ttl_ms)) {
        return RSQL_OK;
    }
    e->used = 1; /* not moved now (that writes to its neighbours too): when it is the oldest */
    s->last = e;
    *value = e->bytes + e->key_len;
    *value_len = e->value_len;
    *found = true;
    return RSQL_OK;
}

/* See rt_state.h. */
void rsql_rt_state_prefetch(const rt_state_t *s, uint64_t h)
{
    rt_table_prefetch(&s->t, h);
}

/* See rt_state.h. */
void rsql_rt_state_prefetch_entry(const rt_state_t *s, uint64_t h)
{
    rt_table_prefetch_entry(&s->t, h);
}

/* See rt_state.h. */
void rsql_rt_state__no_tags(rt_state_t *s)
{
    rt_table_no_tags(&s->t);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_put(rt_state_t *s, const void *key, size_t key_len, const void *value,
                             size_t value_len, int64_t now_ms)
{
    return table_set(s, key, key_len, value, value_len, now_ms, false, true);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_del(rt_state_t *s, const void *key, size_t key_len, int64_t now_ms)
{
    if (!s->pipeline) { /* in memory only: nothing to write, the entry goes now */
        ent_t *e = rt_table_lookup(&s->t, key, key_len, rsql_rt_state_hash(key, key_len));
        if (e) {
            drop(s, e);
        }
        return RSQL_OK;
    }
    return table_set(s, key, key_len, NULL, 0, now_ms, true, true);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_seen(rt_state_t *s, uint32_t lane, int64_t offset, const char *key)
{
    if (!s->pipeline) {
        return RSQL_OK;
    }
    if (lane >= s->n_seen_cap) {
        uint32_t cap = lane < 8 ? 8 : lane + 1 + lane / 2;
        seen_t *g = rsql_realloc(s->seen, sizeof *g * cap);
        uint32_t *gl = g ? rsql_realloc(s->seen_lanes, sizeof *gl * cap) : NULL;
        if (g) {
            memset(g + s->n_seen_cap, 0, sizeof *g * (cap - s->n_seen_cap));
            s->seen = g;
        }
        if (!gl) {
            return RSQL_ERR_NOMEM;
        }
        s->seen_lanes = gl;
        s->n_seen_cap = cap;
    }
    seen_t *v = &s->seen[lane];
    if (key || v->key) { /* the text part of a position (rare: most have none) */
        if (!key) {
            rsql_free(v->key);
            v->key = NULL;
        } else if (!v->key || strcmp(v->key, key) != 0) {
            char *k = rsql_strdup(key);
            if (!k) {
                return RSQL_ERR_NOMEM;
            }
            rsql_free(v->key);
            v->key = k;
        }
    }
    v->off = offset;
    if (!v->on) {
        v->on = true;
        s->seen_lanes[s->n_seen_lanes++] = lane;
    }
    return RSQL_OK;
}

/* See rt_state.h. */
bool rsql_rt_state_seal_due(rt_state_t *s)
{
    return s->pipeline &&
           (atomic_load_explicit(&s->seal_wanted, memory_order_relaxed) ||
            (s->memory > 0 && s->changed_bytes > s->memory / 4));
}

/* See rt_state.h. */
void rsql_rt_state_ask_seal(rt_state_t *s)
{
    atomic_store_explicit(&s->seal_wanted, true, memory_order_relaxed);
}

/*
** The entries deleted by seals now on disk leave memory (the transform thread's table): a
** deletion on disk is what a lookup in the catalog finds, so holding it in memory (as it was
** held until then, lest the value before it be read back) serves no more. An entry changed
** again since, or whose later change is not on disk, stays.
*/
static void forget_done(rt_state_t *s)
{
    pthread_mutex_lock(&s->lock);
    seal_t *done = s->done;
    s->done = NULL;
    pthread_mutex_unlock(&s->lock);
    int64_t freed = 0;
    for (seal_t *z = done, *next; z; z = next) {
        next = z->next;
        for (int i = 0; i < z->n; i++) {
            const change_t *c = &z->ch[i];
            if (!c->gone) {
                continue;
            }
            const unsigned char *key = z->bytes + c->key_off;
            ent_t *e = rt_table_lookup(&s->t, key, c->key_len,
                                       rsql_rt_state_hash(key, c->key_len));
            if (e && e->gone && !pending(s, e)) {
                drop(s, e);
            }
        }
        freed += z->cost;
        seal_free(z);
    }
    atomic_fetch_sub(&s->done_bytes, freed);
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_seal(rt_state_t *s, uint64_t ticks)
{
    forget_done(s);
    if (!s->pipeline || (s->n_changed == 0 && s->n_seen_lanes == 0)) {
        atomic_store_explicit(&s->seal_wanted, false, memory_order_relaxed);
        return RSQL_OK;
    }
    /* everything it needs first: a failure leaves the state as it was */
    size_t nbytes = 0;
    for (uint32_t i = 0; i < s->n_changed; i++) {
        const ent_t *e = s->changed[i];
        nbytes += e->key_len + (e->gone ? 0 : e->value_len);
    }
    seal_t *z = rsql_calloc(1, sizeof *z);
    if (z) {
        z->n_lanes = (int)s->n_seen_lanes;
        z->lanes = rsql_malloc(sizeof *z->lanes * (s->n_seen_lanes + 1));
        z->offs = rsql_malloc(sizeof *z->offs * (s->n_seen_lanes + 1));
        z->keys = rsql_calloc(s->n_seen_lanes + 1, sizeof *z->keys);
        z->ch = rsql_malloc(sizeof *z->ch * (s->n_changed + 1));
        z->bytes = rsql_malloc(nbytes + 1);
    }
    if (!z || !z->lanes || !z->offs || !z->keys || !z->ch || !z->bytes) {
        if (z) {
            z->n_lanes = 0;
            seal_free(z);
        }
        return RSQL_ERR_NOMEM;
    }
    z->no = s->seals + 1;
    z->ticks = ticks;
    for (uint32_t i = 0; i < s->n_seen_lanes; i++) {
        seen_t *v = &s->seen[s->seen_lanes[i]];
        z->lanes[i] = s->seen_lanes[i];
        z->offs[i] = v->off;
        z->keys[i] = v->key; /* taken: the next record of the lane says its own */
        v->key = NULL;
        v->on = false;
    }
    s->n_seen_lanes = 0;
    size_t at = 0;
    for (uint32_t i = 0; i < s->n_changed; i++) {
        ent_t *e = s->changed[i];
        change_t *c = &z->ch[z->n++];
        c->key_off = at;
        c->key_len = e->key_len;
        memcpy(z->bytes + at, e->bytes, e->key_len);
        at += e->key_len;
        c->value_off = at;
        c->value_len = e->gone ? 0 : e->value_len;
        if (c->value_len) {
            memcpy(z->bytes + at, e->bytes + e->key_len, c->value_len);
        }
        at += c->value_len;
        c->written_ms = e->written_ms;
        c->gone = e->gone;
        z->n_gone += e->gone;
        e->dirty = 0;
        e->seal = z->no;
    }
    z->cost = (int64_t)(sizeof *z + nbytes + sizeof *z->ch * (size_t)z->n +
                        (sizeof *z->lanes + sizeof *z->offs + sizeof *z->keys) *
                            (size_t)z->n_lanes);
    if (!s->reader) { /* nothing is read back from disk: a deleted entry can go now */
        for (uint32_t i = 0; i < s->n_changed; i++) {
            if (s->changed[i]->gone) {
                drop(s, s->changed[i]); /* not dirty any more: the array stays as it is */
            }
        }
    }
    cnt_add(&s->dirty, -(int64_t)s->n_changed);
    s->n_changed = 0;
    s->changed_bytes = 0;
    s->seals = z->no;
    atomic_store_explicit(&s->seal_wanted, false, memory_order_relaxed);
    pthread_mutex_lock(&s->lock);
    *s->tail = z;
    s->tail = &z->next;
    s->pending += z->n;
    atomic_fetch_add(&s->pending_bytes, z->cost);
    pthread_mutex_unlock(&s->lock);
    return RSQL_OK;
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

/* The worker's positions delivered: lanes[i] at offs[i] from now on. */
static rsql_err_t note_delivered(rt_state_t *s, int n, const uint32_t *lanes,
                                 const int64_t *offs, rsql_error_t *err)
{
    for (int i = 0; i < n; i++) {
        if (lanes[i] >= s->n_deliv) {
            uint32_t cap = lanes[i] + 1 + lanes[i] / 2;
            int64_t *g = rsql_realloc(s->deliv, sizeof *g * cap);
            if (!g) {
                return rsql_error_nomem(err);
            }
            for (uint32_t l = s->n_deliv; l < cap; l++) {
                g[l] = INT64_MIN;
            }
            s->deliv = g;
            s->n_deliv = cap;
        }
        if (offs[i] > s->deliv[lanes[i]]) {
            s->deliv[lanes[i]] = offs[i];
        }
    }
    return RSQL_OK;
}

/* Whether the deliveries reached seal z's positions and ticks. */
static bool reached(const rt_state_t *s, const seal_t *z, uint64_t ticks_done)
{
    if (ticks_done < z->ticks) {
        return false;
    }
    for (int i = 0; i < z->n_lanes; i++) {
        if (z->lanes[i] >= s->n_deliv || s->deliv[z->lanes[i]] < z->offs[i]) {
            return false;
        }
    }
    return true;
}

/* The cut of seals head..last: each lane's position in the last of them that has it. */
static rsql_err_t make_cut(rt_state_t *s, seal_t *head, int k, rt_state_cut_t *cut,
                           rsql_error_t *err)
{
    int n = 0;
    seal_t *z = head;
    for (int q = 0; q < k; q++, z = q < k ? z->next : NULL) {
        for (int i = 0; i < z->n_lanes; i++) {
            int j = 0;
            while (j < n && s->cut_lanes[j] != z->lanes[i]) {
                j++;
            }
            if (j == n) {
                if (n == s->cut_cap) {
                    int cap = s->cut_cap ? 2 * s->cut_cap : 8;
                    uint32_t *gl = rsql_realloc(s->cut_lanes, sizeof *gl * (size_t)cap);
                    if (gl) {
                        s->cut_lanes = gl;
                    }
                    int64_t *go = rsql_realloc(s->cut_offs, sizeof *go * (size_t)cap);
                    if (go) {
                        s->cut_offs = go;
                    }
                    const char **gk = rsql_realloc(s->cut_keys, sizeof *gk * (size_t)cap);
                    if (gk) {
                        s->cut_keys = gk;
                    }
                    if (!gl || !go || !gk) {
                        return rsql_error_nomem(err);
                    }
                    s->cut_cap = cap;
                }
                s->cut_lanes[n++] = z->lanes[i];
            }
            s->cut_offs[j] = z->offs[i];
            s->cut_keys[j] = z->keys[i];
        }
    }
    cut->n = n;
    cut->lanes = s->cut_lanes;
    cut->offs = s->cut_offs;
    cut->keys = s->cut_keys;
    return RSQL_OK;
}

/* See rt_state.h. */
rsql_err_t rsql_rt_state_checkpoint(rt_state_t *s, rsql_catalog_t *cat, int n,
                                    const uint32_t *lanes, const int64_t *offs,
                                    uint64_t ticks_done, rt_state_cut_t *cut, rsql_error_t *err)
{
    *cut = (rt_state_cut_t){0};
    s->writing = 0;
    if (!s->pipeline) {
        return RSQL_OK;
    }
    rsql_err_t rc = note_delivered(s, n, lanes, offs, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int64_t t0 = rsql_now_ns();
    /* the seals reached, oldest first: the transform thread only appends after them, and
       none is freed before rsql_rt_state_committed (this thread) */
    pthread_mutex_lock(&s->lock);
    seal_t *head = s->head;
    int k = 0, nch = 0;
    for (seal_t *z = head; z && reached(s, z, ticks_done); z = z->next) {
        k++;
        nch += z->n;
    }
    pthread_mutex_unlock(&s->lock);
    if (k == 0) {
        return RSQL_OK;
    }
    rsql_state_change_t *ch = rsql_malloc(sizeof *ch * (size_t)(nch + 1));
    if (!ch) {
        return rsql_error_nomem(err);
    }
    int m = 0;
    seal_t *z = head;
    for (int j = 0; j < k; j++, z = j < k ? z->next : NULL) { /* never the last's next: the
                                                                transform thread sets it */
        for (int i = 0; i < z->n; i++) { /* in order: a later seal's change of a key wins */
            const change_t *c = &z->ch[i];
            ch[m++] = (rsql_state_change_t){z->bytes + c->key_off, c->key_len,
                                             c->gone ? NULL : z->bytes + c->value_off,
                                             c->value_len, c->written_ms};
        }
    }
    rc = rsql_catalog_state_write(cat, s->pipeline, m, ch,
                                  s->ttl_ms > 0 ? rsql_wall_ms() - s->ttl_ms : 0, err);
    rsql_free(ch);
    if (rc == RSQL_OK) {
        rc = make_cut(s, head, k, cut, err);
    }
    if (rc != RSQL_OK) {
        *cut = (rt_state_cut_t){0};
        return rc;
    }
    s->writing = k;
    if (m > 0) {
        s->checkpoints++;
        s->last_us = (rsql_now_ns() - t0) / 1000;
    }
    return RSQL_OK;
}

/* See rt_state.h. */
void rsql_rt_state_committed(rt_state_t *s)
{
    pthread_mutex_lock(&s->lock);
    for (; s->writing > 0 && s->head; s->writing--) {
        seal_t *z = s->head;
        s->head = z->next;
        if (!s->head) {
            s->tail = &s->head;
        }
        atomic_store_explicit(&s->committed, z->no, memory_order_release);
        atomic_fetch_sub(&s->pending_bytes, z->cost);
        s->pending -= z->n;
        if (z->n_gone > 0 && s->reader) { /* its deleted entries can leave memory now */
            z->next = s->done;
            s->done = z;
            atomic_fetch_add(&s->done_bytes, z->cost); /* held, but not waited for */
        } else {
            seal_free(z);
        }
    }
    s->writing = 0;
    s->stalled = false;
    s->commits++;
    pthread_cond_broadcast(&s->saved);
    pthread_mutex_unlock(&s->lock);
}

/* See rt_state.h. */
void rsql_rt_state_stats(rt_state_t *s, rt_state_stats_t *out)
{
    pthread_mutex_lock(&s->lock);
    out->pending = s->pending + cnt(&s->dirty);
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
