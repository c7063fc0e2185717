/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Allocation wrappers with an allocation-failure hook, and the arena.
 */
#include "config.h"
#include "base/rsql_mem.h"
#include "base/rsql_mem_int.h"

#include <stdatomic.h>
#include <stdbool.h>
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

/* ---- arena: a chain of blocks, bump allocation inside the current one (rsql_mem_int.h) */

typedef struct arena_block {
    struct arena_block *next;
    _Alignas(16) unsigned char data[];
} arena_block_t;

#define ARENA_BLOCK 8192

rsql_arena_t *rsql_arena_new(void)
{
    return rsql_calloc(1, sizeof(rsql_arena_t));
}

/* A call rsql_arena_destroy makes (rsql_arena_on_free), in the arena's own memory. */
typedef struct arena_on_free {
    struct arena_on_free *next;
    void (*fn)(void *arg);
    void *arg;
} arena_on_free_t;

int rsql_arena_on_free(rsql_arena_t *a, void (*fn)(void *arg), void *arg)
{
    arena_on_free_t *c = rsql_arena__alloc(a, sizeof *c);
    if (!c) {
        return -1;
    }
    c->next = a->on_free;
    c->fn = fn;
    c->arg = arg;
    a->on_free = c;
    return 0;
}

void rsql_arena_destroy(rsql_arena_t *a)
{
    if (!a) {
        return;
    }
    for (arena_on_free_t *c = a->on_free; c; c = c->next) {
        c->fn(c->arg);
    }
    arena_block_t *b = a->blocks;
    while (b) {
        arena_block_t *next = b->next;
        rsql_free(b);
        b = next;
    }
    rsql_free(a);
}

/*
** n bytes (rounded up to 16; 0 is taken as 16) that do not fit in the current block: a block
** of their own when they are more than a quarter of a block (the current block keeps its free
** bytes), else a new current block. NULL when out of memory or for an impossible n.
*/
void *rsql_arena__alloc_block(rsql_arena_t *a, size_t n)
{
    if (n > SIZE_MAX - sizeof(arena_block_t) - 16) {
        return NULL;
    }
    n = n ? (n + 15) & ~(size_t)15 : 16;
    if (n <= a->left) { /* 0 asked for: it fits after all */
        void *p = a->cur;
        a->cur += n;
        a->left -= n;
        return p;
    }
    bool own = n > ARENA_BLOCK / 4;
    size_t size = own ? n : ARENA_BLOCK;
    arena_block_t *b = rsql_malloc(sizeof(arena_block_t) + size);
    if (!b) {
        return NULL;
    }
    b->next = a->blocks;
    a->blocks = b;
    a->bytes += sizeof(arena_block_t) + size;
    if (!own) {
        a->cur = b->data + n;
        a->left = size - n;
    }
    return b->data;
}

size_t rsql_arena_bytes(const rsql_arena_t *a)
{
    return a ? a->bytes : 0;
}

void *rsql_arena_alloc_raw(rsql_arena_t *a, size_t n)
{
    return rsql_arena__alloc(a, n);
}

void *rsql_arena_alloc(rsql_arena_t *a, size_t n)
{
    void *p = rsql_arena__alloc(a, n);
    if (p) {
        memset(p, 0, n ? (n + 15) & ~(size_t)15 : 16); /* the whole piece, as before */
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
