/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Record batches (connectors/rsql_io.h, the connector API): the unit a source fills on the
 * poll thread and the runtime carries through the pipeline. A batch owns
 * its record array and one arena for every byte its records point at (raw
 * bodies, decoded rows, idents), so freeing a batch is two frees however
 * many records it held.
 */
#include "config.h"
#include "connectors/rsql_io.h"
#include "base/rsql_mem_int.h"

#include <string.h>

/*
** A new empty batch able to hold cap records (cap < 1 is taken as 1), or
** NULL when out of memory. The caller owns it (rsql_batch_destroy).
*/
rsql_batch_t *rsql_batch_new(int cap)
{
    if (cap < 1) {
        cap = 1;
    }
    rsql_batch_t *b = rsql_calloc(1, sizeof(*b));
    if (!b) {
        return NULL;
    }
    /* not zeroed: a slot is zeroed when it is added (rsql_batch_add) or written in full */
    b->recs = rsql_malloc((size_t)cap * sizeof(rsql_record_t));
    b->arena = rsql_arena_new();
    if (!b->recs || !b->arena) {
        rsql_free(b->recs);
        rsql_arena_destroy(b->arena);
        rsql_free(b);
        return NULL;
    }
    b->cap = cap;
    return b;
}

/* Free b, its records and its arena. NULL is a no-op. */
void rsql_batch_destroy(rsql_batch_t *b)
{
    if (!b) {
        return;
    }
    rsql_arena_destroy(b->arena);
    rsql_free(b->recs);
    rsql_free(b);
}

/*
** Append a zeroed record slot and return it (owned by b), or NULL when b is
** full.
*/
rsql_record_t *rsql_batch_add(rsql_batch_t *b)
{
    if (!b || b->n >= b->cap) {
        return NULL;
    }
    rsql_record_t *r = &b->recs[b->n++];
    memset(r, 0, sizeof(*r));
    return r;
}

/*
** Copy n bytes at p into b's arena (plus a NUL byte after them, so text can
** be used as a C string) and return the copy, owned by b; NULL when out of
** memory. n == 0 returns a valid empty string.
*/
const uint8_t *rsql_batch_copy(rsql_batch_t *b, const void *p, size_t n)
{
    uint8_t *dst = rsql_arena__alloc(b->arena, n + 1); /* written in full below */
    if (!dst) {
        return NULL;
    }
    if (n) {
        memcpy(dst, p, n);
    }
    dst[n] = 0;
    return dst;
}
