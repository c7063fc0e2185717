/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_inflight: the lane map of the rocketmq-grpc data path (rmq_conn_int.h). A lane is a small
 * number for a string key: a lite topic (lite source: one lane per lite topic, which becomes
 * the record's partition, so the runtime's offset tracker counts in-flight per lite topic), a
 * message group (FIFO source, FIFO sink) or "" (one lane for a whole simple topic). Lanes keep
 * the counts that fair throttling (rmq_throttle.c) and the status line read: in flight, received,
 * delivered, released, deferred. Keys are found through an open-addressing hash table (FNV-1a,
 * linear probing, grown at 50 % load, backward-shift deletion); lane data lives in an array
 * indexed by lane.
 * Lanes that producers invent (every lite topic, every message group) would grow the map without
 * end, so an idle lane goes (rsql_rmq_inflight_sweep): one with nothing in flight and no
 * activity for the idle time, and only when its owner agrees (nothing of it held or queued
 * there). Its number is then reused for the next new key; the counts of lanes that went are
 * kept summed. Memory follows the lanes active within the idle time, not every key ever seen.
 * Not thread-safe: the source or sink guards it with its lock.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <string.h>

#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

typedef struct lane {
    char *key;  /* owned */
    char *name; /* owned: "<prefix>/<key>" or "<prefix>" */
    int64_t next_offset;
    int64_t idle_since; /* ms: the sweep that last found it touched */
    bool touched;       /* some activity since the last sweep */
    rsql_rmq_lane_stats_t st;
} lane_t;

struct rsql_rmq_inflight {
    char *prefix;
    lane_t *lanes;      /* key NULL: a free number */
    uint32_t n, cap;    /* numbers used so far (live or free), allocated */
    uint32_t *free_ids; /* cap of them: free numbers, reused last-in first-out */
    uint32_t n_free;
    uint32_t *slots; /* lane + 1; 0 = empty */
    uint32_t n_slots; /* power of two */
    int64_t next_sweep_ms;
    rsql_rmq_lane_stats_t gone; /* the counts of the lanes that went, summed */
};

/* See rmq_conn_int.h. */
uint32_t rsql_rmq__hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (uint8_t)*s;
        h *= 16777619u;
    }
    return h;
}

/*
** A new lane map. See rmq_conn_int.h. Caller owns it.
*/
rsql_rmq_inflight_t *rsql_rmq_inflight_new(const char *prefix)
{
    rsql_rmq_inflight_t *t = rsql_calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    t->prefix = rsql_strdup(prefix ? prefix : "");
    t->n_slots = 16;
    t->slots = rsql_calloc(t->n_slots, sizeof *t->slots);
    if (!t->prefix || !t->slots) {
        rsql_rmq_inflight_destroy(t);
        return NULL;
    }
    return t;
}

/*
** Free the map, its keys and names. NULL-safe.
*/
void rsql_rmq_inflight_destroy(rsql_rmq_inflight_t *t)
{
    if (!t) {
        return;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        rsql_free(t->lanes[i].key);
        rsql_free(t->lanes[i].name);
    }
    rsql_free(t->lanes);
    rsql_free(t->free_ids);
    rsql_free(t->slots);
    rsql_free(t->prefix);
    rsql_free(t);
}

/* The slot where key is, or the empty slot where it would go. */
static uint32_t probe(const rsql_rmq_inflight_t *t, const char *key)
{
    uint32_t mask = t->n_slots - 1;
    uint32_t i = rsql_rmq__hash(key) & mask;
    while (t->slots[i] && strcmp(t->lanes[t->slots[i] - 1].key, key) != 0) {
        i = (i + 1) & mask;
    }
    return i;
}

/*
** The lane of key if it exists.
*/
bool rsql_rmq_inflight_find(const rsql_rmq_inflight_t *t, const char *key, uint32_t *lane)
{
    uint32_t i = probe(t, key ? key : "");
    if (!t->slots[i]) {
        return false;
    }
    *lane = t->slots[i] - 1;
    return true;
}

static bool grow_slots(rsql_rmq_inflight_t *t)
{
    uint32_t old_n = t->n_slots;
    uint32_t *old = t->slots;
    uint32_t *ns = rsql_calloc((size_t)old_n * 2, sizeof *ns);
    if (!ns) {
        return false;
    }
    t->slots = ns;
    t->n_slots = old_n * 2;
    for (uint32_t i = 0; i < old_n; i++) {
        if (old[i]) {
            t->slots[probe(t, t->lanes[old[i] - 1].key)] = old[i];
        }
    }
    rsql_free(old);
    return true;
}

/*
** Find or create the lane of key. See rmq_conn_int.h.
*/
rsql_err_t rsql_rmq_inflight_lane(rsql_rmq_inflight_t *t, const char *key, uint32_t *lane,
                                  rsql_error_t *err)
{
    if (!key) {
        key = "";
    }
    if (rsql_rmq_inflight_find(t, key, lane)) {
        t->lanes[*lane].touched = true;
        return RSQL_OK;
    }
    if ((t->n - t->n_free + 1) * 2 > t->n_slots && !grow_slots(t)) {
        return rsql_error_nomem(err);
    }
    if (t->n_free == 0 && t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 8;
        lane_t *nl = rsql_realloc(t->lanes, (size_t)nc * sizeof *nl);
        if (!nl) {
            return rsql_error_nomem(err);
        }
        t->lanes = nl;
        uint32_t *nf = rsql_realloc(t->free_ids, (size_t)nc * sizeof *nf);
        if (!nf) {
            return rsql_error_nomem(err);
        }
        t->free_ids = nf;
        t->cap = nc;
    }
    uint32_t id = t->n_free ? t->free_ids[t->n_free - 1] : t->n;
    lane_t *l = &t->lanes[id];
    memset(l, 0, sizeof *l);
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, t->prefix);
    if (*key) {
        rsql_buf_printf(&b, "%s%s", *t->prefix ? "/" : "", key);
    }
    l->name = rsql_buf_steal(&b);
    l->key = rsql_strdup(key);
    if (!l->name || !l->key) {
        rsql_free(l->name);
        rsql_free(l->key);
        l->name = l->key = NULL;
        return rsql_error_nomem(err);
    }
    l->touched = true;
    t->slots[probe(t, key)] = id + 1;
    if (t->n_free) {
        t->n_free--;
    } else {
        t->n++;
    }
    *lane = id;
    return RSQL_OK;
}

/* Take slot i out of the table, moving later entries of its probe run back into the hole. */
static void slot_remove(rsql_rmq_inflight_t *t, uint32_t i)
{
    uint32_t mask = t->n_slots - 1;
    uint32_t j = i;
    for (;;) {
        t->slots[i] = 0;
        uint32_t h;
        do {
            j = (j + 1) & mask;
            if (!t->slots[j]) {
                return;
            }
            h = rsql_rmq__hash(t->lanes[t->slots[j] - 1].key) & mask;
            /* an entry whose home lies cyclically in (i, j] stays where it is */
        } while (i <= j ? (i < h && h <= j) : (i < h || h <= j));
        t->slots[i] = t->slots[j];
        i = j;
    }
}

/* Lane id goes: out of the table, its counts summed into gone, its number free. */
static void evict(rsql_rmq_inflight_t *t, uint32_t id)
{
    lane_t *l = &t->lanes[id];
    slot_remove(t, probe(t, l->key));
    t->gone.in_flight += l->st.in_flight;
    t->gone.received += l->st.received;
    t->gone.delivered += l->st.delivered;
    t->gone.released += l->st.released;
    t->gone.deferred += l->st.deferred;
    rsql_free(l->key);
    rsql_free(l->name);
    memset(l, 0, sizeof *l);
    t->free_ids[t->n_free++] = id;
}

/*
** Let idle lanes go. See rmq_conn_int.h.
*/
uint32_t rsql_rmq_inflight_sweep(rsql_rmq_inflight_t *t, int64_t now_ms, int64_t idle_ms,
                                 bool (*may_go)(void *opaque, uint32_t lane), void *opaque)
{
    if (now_ms < t->next_sweep_ms) {
        return 0;
    }
    t->next_sweep_ms = now_ms + idle_ms / 2;
    uint32_t gone = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        lane_t *l = &t->lanes[i];
        if (!l->key) {
            continue;
        }
        if (l->touched) {
            l->touched = false;
            l->idle_since = now_ms;
            continue;
        }
        if (l->st.in_flight > 0 || now_ms - l->idle_since < idle_ms ||
            (may_go && !may_go(opaque, i))) {
            continue;
        }
        evict(t, i);
        gone++;
    }
    return gone;
}

/*
** Number of lane numbers in use so far (live or free): every lane is below it.
*/
uint32_t rsql_rmq_inflight_count(const rsql_rmq_inflight_t *t)
{
    return t->n;
}

/*
** Number of live lanes.
*/
uint32_t rsql_rmq_inflight_live(const rsql_rmq_inflight_t *t)
{
    return t->n - t->n_free;
}

/*
** The counts of the lanes that went, summed.
*/
void rsql_rmq_inflight_gone(const rsql_rmq_inflight_t *t, rsql_rmq_lane_stats_t *out)
{
    *out = t->gone;
}

/*
** The lane's name (borrowed, stable until the lane goes) or NULL.
*/
const char *rsql_rmq_inflight_name(const rsql_rmq_inflight_t *t, uint32_t lane)
{
    return lane < t->n ? t->lanes[lane].name : NULL;
}

/*
** The lane's key (borrowed, stable until the lane goes) or NULL.
*/
const char *rsql_rmq_inflight_key(const rsql_rmq_inflight_t *t, uint32_t lane)
{
    return lane < t->n ? t->lanes[lane].key : NULL;
}

/*
** A message of lane was received; returns its offset in the lane (1, 2, 3, ...).
*/
int64_t rsql_rmq_inflight_received(rsql_rmq_inflight_t *t, uint32_t lane)
{
    if (lane >= t->n || !t->lanes[lane].key) {
        return 0;
    }
    lane_t *l = &t->lanes[lane];
    l->touched = true;
    l->st.in_flight++;
    l->st.received++;
    return ++l->next_offset;
}

static void dec_in_flight(lane_t *l)
{
    if (l->st.in_flight > 0) {
        l->st.in_flight--;
    }
}

/*
** A held message is done (delivered = acked or forwarded; else released).
*/
void rsql_rmq_inflight_done(rsql_rmq_inflight_t *t, uint32_t lane, bool delivered)
{
    if (lane >= t->n || !t->lanes[lane].key) {
        return;
    }
    lane_t *l = &t->lanes[lane];
    l->touched = true;
    dec_in_flight(l);
    if (delivered) {
        l->st.delivered++;
    } else {
        l->st.released++;
    }
}

/*
** A held message was deferred by throttling.
*/
void rsql_rmq_inflight_deferred(rsql_rmq_inflight_t *t, uint32_t lane)
{
    if (lane >= t->n || !t->lanes[lane].key) {
        return;
    }
    t->lanes[lane].touched = true;
    dec_in_flight(&t->lanes[lane]);
    t->lanes[lane].st.deferred++;
}

/*
** The lane's counts.
*/
void rsql_rmq_inflight_stats(const rsql_rmq_inflight_t *t, uint32_t lane,
                             rsql_rmq_lane_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (lane < t->n && t->lanes[lane].key) {
        *out = t->lanes[lane].st;
    }
}
