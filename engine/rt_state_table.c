/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_state_table: see rt_state_table.h.
 * @locality the transform thread
 */
#include "config.h"
#include "engine/rt_state_table.h"
#include "base/rsql_mem.h"

/* See rt_state_table.h. */
bool rt_table_init(rt_table_t *t, size_t n)
{
    t->n = n;
#ifdef RT_TABLE_TAG_SHIFT
    t->addr = ((uintptr_t)1 << RT_TABLE_TAG_SHIFT) - 1;
#else
    t->addr = UINTPTR_MAX;
#endif
    t->slots = rsql_calloc(n, sizeof *t->slots);
    return t->slots != NULL;
}

/* See rt_state_table.h. */
void rt_table_free(rt_table_t *t)
{
    rsql_free(t->slots);
    t->slots = NULL;
    t->n = 0;
}

/* See rt_state_table.h. */
void rt_table_no_tags(rt_table_t *t)
{
    for (size_t i = 0; i < t->n; i++) { /* a key's home is its hash's low bits: none moves */
        t->slots[i] &= t->addr;
    }
    t->addr = UINTPTR_MAX;
}

/* See rt_state_table.h. */
void rt_table_put(rt_table_t *t, size_t i, ent_t *n, uint64_t h)
{
    if ((uintptr_t)n & ~t->addr) { /* never seen on x86-64 or AArch64 Linux */
        rt_table_no_tags(t);
    }
    t->slots[i] = rt_table_slot(t, n, h);
}

/* See rt_state_table.h. */
void rt_table_replace(rt_table_t *t, size_t i, ent_t *n)
{
    if ((uintptr_t)n & ~t->addr) {
        rt_table_no_tags(t);
    }
    t->slots[i] = (t->slots[i] & ~t->addr) | (uintptr_t)n;
}

/* See rt_state_table.h. */
size_t rt_table_at(const rt_table_t *t, const ent_t *e)
{
    size_t mask = t->n - 1, i = e->hash & mask;
    while (rt_table_ent(t, t->slots[i]) != e) {
        i = (i + 1) & mask;
    }
    return i;
}

/* See rt_state_table.h. */
void rt_table_remove(rt_table_t *t, size_t i)
{
    size_t mask = t->n - 1;
    for (size_t j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
        size_t home = rt_table_ent(t, t->slots[j])->hash & mask;
        /* j's entry moves back to i unless its home is in (i, j], cyclically: a probe for it
           starts past i, and would not meet the empty slot */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i] = 0;
}

/* See rt_state_table.h. */
bool rt_table_room(rt_table_t *t, size_t keys)
{
    if (keys <= t->n / 4 * 3) {
        return true;
    }
    size_t n = t->n * 2, mask = n - 1;
    /* at most 2^31 slots: a slot's home is the entry's 32 bits of hash */
    uintptr_t *s = n <= ((size_t)1 << 31) ? rsql_calloc(n, sizeof *s) : NULL;
    if (!s) {
        return keys < t->n; /* fuller, still right */
    }
    for (size_t i = 0; i < t->n; i++) {
        uintptr_t v = t->slots[i];
        if (v) {
            size_t j = rt_table_ent(t, v)->hash & mask;
            while (s[j]) {
                j = (j + 1) & mask;
            }
            s[j] = v;
        }
    }
    rsql_free(t->slots);
    t->slots = s;
    t->n = n;
    return true;
}

/* See rt_state_table.h. */
void rt_table_prefetch(const rt_table_t *t, uint64_t h)
{
    __builtin_prefetch(&t->slots[(size_t)h & (t->n - 1)]);
}

/* See rt_state_table.h. */
void rt_table_prefetch_entry(const rt_table_t *t, uint64_t h)
{
    size_t mask = t->n - 1, i = (size_t)h & mask;
    uintptr_t tag = rt_table_slot(t, NULL, h);
    for (int n = 0; n < 4 && t->slots[i]; n++, i = (i + 1) & mask) {
        if ((t->slots[i] & ~t->addr) == tag) {
            const ent_t *e = rt_table_ent(t, t->slots[i]);
            __builtin_prefetch(e);
            __builtin_prefetch((const char *)e + 64); /* its key and value, past the header */
            return;
        }
    }
}
