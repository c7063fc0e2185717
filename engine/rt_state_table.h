/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_state_table: the table of a keyed state's entries in memory (engine/rt_state.c), by the
 * hash of their key bytes. Open addressing with linear probing: a key's slot is the first, from
 * its home (the hash's low bits), that holds its entry, or the first empty one; the table
 * doubles past 3/4 used, and a removal moves back the entries after it that may not be passed
 * over. A slot holds the entry's address with the hash's top 16 bits above TAG_SHIFT (user
 * addresses of x86-64 and AArch64 Linux fit below), so a probe reads another entry only when
 * its tag matches: a lookup costs the slot's cache line and its own entry, where a chain cost a
 * line per entry passed. Where an address does not fit (or pointers have 32 bits) the tags are
 * dropped and each probe compares the entry. The entries are the state's; the table only
 * points at them.
 * @locality the transform thread
 */
#ifndef RSQL_RT_STATE_TABLE_H
#define RSQL_RT_STATE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ent {           /* 48 bytes and the key and value: one for each key held */
    struct ent *newer, *older; /* the use list */
    int64_t written_ms;
    uint32_t seal;             /* the seal that holds its last change (0: none this run) */
    uint32_t dirty;            /* its place in the changed array, from 1 (0: not changed
                                  since the last seal) */
    uint32_t hash;             /* the low half of rsql_rt_state_hash's */
    uint32_t key_len;
    uint32_t cap;              /* room for the value */
    uint32_t value_len : 30;
    uint32_t used : 1; /* read since it last passed the end of the use list (its second chance) */
    uint32_t gone : 1; /* deleted (rsql_rt_state_del): held until its deletion is on disk, so
                          that the value there is not read back */
    unsigned char bytes[]; /* key, then value */
} ent_t;

typedef struct rt_table {
    uintptr_t *slots; /* 0 empty, else an entry's address and its tag */
    size_t n;         /* a power of 2 */
    uintptr_t addr;   /* the bits of a slot that are the address (the rest: the tag) */
} rt_table_t;

#if UINTPTR_MAX > 0xffffffffu
#define RT_TABLE_TAG_SHIFT 48
#endif

/* An empty table of n slots (a power of 2); false without memory. */
bool rt_table_init(rt_table_t *t, size_t n);
/* Its slots (not the entries). */
void rt_table_free(rt_table_t *t);

static inline ent_t *rt_table_ent(const rt_table_t *t, uintptr_t v)
{
    return (ent_t *)(v & t->addr);
}

/* The slot value of e, whose key's hash is h (e NULL: the tag alone). */
static inline uintptr_t rt_table_slot(const rt_table_t *t, const ent_t *e, uint64_t h)
{
#ifdef RT_TABLE_TAG_SHIFT
    return (uintptr_t)e | ((uintptr_t)(h >> RT_TABLE_TAG_SHIFT) << RT_TABLE_TAG_SHIFT & ~t->addr);
#else
    (void)t;
    (void)h;
    return (uintptr_t)e;
#endif
}

/* The slot of key (hash h): its entry's, else the empty one where it would go. */
static inline size_t rt_table_find(const rt_table_t *t, const void *key, size_t key_len,
                                   uint64_t h)
{
    size_t mask = t->n - 1, i = (size_t)h & mask;
    uintptr_t tag = rt_table_slot(t, NULL, h);
    for (;; i = (i + 1) & mask) {
        uintptr_t v = t->slots[i];
        if (!v) {
            return i;
        }
        const ent_t *e = rt_table_ent(t, v);
        if ((v & ~t->addr) == tag && e->hash == (uint32_t)h && e->key_len == key_len &&
            memcmp(e->bytes, key, key_len) == 0) {
            return i;
        }
    }
}

/* key's entry, or NULL. */
static inline ent_t *rt_table_lookup(const rt_table_t *t, const void *key, size_t key_len,
                                     uint64_t h)
{
    return rt_table_ent(t, t->slots[rt_table_find(t, key, key_len, h)]);
}

/* Put n (a new entry, or one taking another's place) in slot i, found for its key (hash h). */
void rt_table_put(rt_table_t *t, size_t i, ent_t *n, uint64_t h);
/* n takes the place of the entry in slot i (its key's). */
void rt_table_replace(rt_table_t *t, size_t i, ent_t *n);
/* The slot that holds e. */
size_t rt_table_at(const rt_table_t *t, const ent_t *e);
/* Empty slot i (its entry leaves the table). */
void rt_table_remove(rt_table_t *t, size_t i);
/* Room for keys entries (the table grows); false: no memory for it and no free slot would be
   left (a slot found before is no longer valid after a true). */
bool rt_table_room(rt_table_t *t, size_t keys);
/* The table without its tags (as where an address does not fit below them). */
void rt_table_no_tags(rt_table_t *t);

/* See rsql_rt_state_prefetch. */
void rt_table_prefetch(const rt_table_t *t, uint64_t h);
void rt_table_prefetch_entry(const rt_table_t *t, uint64_t h);

#endif
