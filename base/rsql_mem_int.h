/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_mem_int: the arena's layout and its allocation inline, for the engine's per-row
 * paths (several arena pieces per row: a record's bytes, its row, its output). Private to
 * rocketsql: not in the connector SDK (sdk/mkheader.sh), whose plugins call the exported
 * rsql_arena_alloc_raw, so the layout is no part of the plugin ABI.
 */
#ifndef RSQL_MEM_INT_H
#define RSQL_MEM_INT_H

#include "base/rsql_mem.h"

/* The free bytes of the arena's current block; the blocks themselves are rsql_mem.c's. */
struct rsql_arena {
    void *blocks;       /* rsql_mem.c */
    unsigned char *cur; /* the current block's next free byte (16-byte aligned) */
    size_t left;        /* bytes free from cur on */
    void *on_free;      /* rsql_arena_on_free's calls, last registered first (rsql_mem.c) */
    size_t bytes;       /* the blocks' bytes (rsql_arena_bytes) */
};

/* rsql_arena__alloc when the current block has no room for n bytes (or n is 0). */
void *rsql_arena__alloc_block(rsql_arena_t *a, size_t n);

/* rsql_arena_alloc_raw (rsql_mem.h), inline: a bump in the current block when n fits. */
static inline void *rsql_arena__alloc(rsql_arena_t *a, size_t n)
{
    size_t r = (n + 15) & ~(size_t)15; /* 0 for n == 0 and for an n this wraps: out of line */
    if (r - 1 < a->left) {
        void *p = a->cur;
        a->cur += r;
        a->left -= r;
        return p;
    }
    return rsql_arena__alloc_block(a, n);
}

#endif
