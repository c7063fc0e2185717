/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Allocation wrappers with an allocation-failure hook, and the arena.
 */
#include "config.h"
#include "base/rsql_mem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_long fail_countdown = 0; /* 0 = off; N = fail after N-1 more successes */

void rsql_mem_fail_after(long countdown)
{
    atomic_store(&fail_countdown, countdown);
}

static int should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    if (c <= 0) {
        return 0;
    }
    if (c == 1) {
        return 1; /* stays at 1: every later allocation fails too */
    }
    atomic_fetch_sub(&fail_countdown, 1);
    return 0;
}

void *rsql_malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n ? n : 1);
}

void *rsql_calloc(size_t count, size_t n)
{
    return should_fail() ? NULL : calloc(count ? count : 1, n ? n : 1);
}

void *rsql_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n ? n : 1);
}

void rsql_free(void *p)
{
    free(p);
}

char *rsql_strndup(const char *s, size_t n)
{
    if (!s) {
        return NULL;
    }
    char *d = rsql_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *rsql_strdup(const char *s)
{
    return s ? rsql_strndup(s, strlen(s)) : NULL;
}

/* ---- arena: a chain of blocks, bump allocation inside each */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} arena_block_t;

struct rsql_arena {
    arena_block_t *head;
};

#define ARENA_BLOCK 8192

rsql_arena_t *rsql_arena_new(void)
{
    return rsql_calloc(1, sizeof(rsql_arena_t));
}

void rsql_arena_destroy(rsql_arena_t *a)
{
    if (!a) {
        return;
    }
    arena_block_t *b = a->head;
    while (b) {
        arena_block_t *next = b->next;
        rsql_free(b);
        b = next;
    }
    rsql_free(a);
}

void *rsql_arena_alloc_raw(rsql_arena_t *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n == 0) {
        n = 16;
    }
    arena_block_t *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = rsql_malloc(sizeof(arena_block_t) + size);
        if (!b) {
            return NULL;
        }
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void *rsql_arena_alloc(rsql_arena_t *a, size_t n)
{
    void *p = rsql_arena_alloc_raw(a, n);
    if (p) {
        memset(p, 0, (n + 15) & ~(size_t)15);
    }
    return p;
}

char *rsql_arena_strndup(rsql_arena_t *a, const char *s, size_t n)
{
    char *d = rsql_arena_alloc_raw(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *rsql_arena_strdup(rsql_arena_t *a, const char *s)
{
    return s ? rsql_arena_strndup(a, s, strlen(s)) : NULL;
}
