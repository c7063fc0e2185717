/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_mem: allocation wrappers with a fault-injection hook (fail the Nth
 * allocation, as sqlite3FaultSim does) and a simple arena for per-statement
 * data (the AST, plan strings).  rsql_free(NULL) is a no-op.
 */
#ifndef RSQL_MEM_H
#define RSQL_MEM_H

#include <stddef.h>

void *rsql_malloc(size_t n);
void *rsql_calloc(size_t count, size_t n);
void *rsql_realloc(void *p, size_t n);
void rsql_free(void *p);
/* Copy of s (NULL when s is NULL or out of memory). */
char *rsql_strdup(const char *s);
char *rsql_strndup(const char *s, size_t n);

/*
** Fault injection for out-of-memory sweeps in tests: after `countdown` more
** successful allocations, every allocation fails until reset with 0.
*/
void rsql_mem_fail_after(long countdown);

/* An arena: many small allocations freed at once. */
typedef struct rsql_arena rsql_arena_t;
rsql_arena_t *rsql_arena_new(void);
void rsql_arena_destroy(rsql_arena_t *a);
/* Zeroed, 16-byte aligned memory owned by the arena; NULL when out of memory. */
void *rsql_arena_alloc(rsql_arena_t *a, size_t n);
/* The same, not zeroed: for bytes the caller writes in full at once (copies). */
void *rsql_arena_alloc_raw(rsql_arena_t *a, size_t n);
/*
** Have rsql_arena_destroy call fn(arg) before it frees a's memory (for memory a's pieces point
** into but a does not own: a reference dropped when the arena goes). Calls run last
** registered first. 0, or -1 when out of memory (then fn will not be called).
*/
int rsql_arena_on_free(rsql_arena_t *a, void (*fn)(void *arg), void *arg);
/* The bytes of a's blocks (what it holds from the allocator; 0 for NULL). */
size_t rsql_arena_bytes(const rsql_arena_t *a);
char *rsql_arena_strndup(rsql_arena_t *a, const char *s, size_t n);
char *rsql_arena_strdup(rsql_arena_t *a, const char *s);

#endif
