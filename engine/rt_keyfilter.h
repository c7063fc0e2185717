/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_keyfilter: a membership filter of 64-bit key hashes (a Bloom filter that grows): "maybe
 * present" for every hash added, "absent" for most others (under 2 % false positives). The
 * state puts the keys it may find in the catalog in one, so a key seen for the first time is
 * not looked for there. It grows by layers, each twice the keys of the one before, so it needs
 * no count up front (11 bits a key at first, up to 16 in later layers).
 * @locality one thread (the state's owner)
 */
#ifndef RSQL_RT_KEYFILTER_H
#define RSQL_RT_KEYFILTER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rt_keyfilter rt_keyfilter_t;

/*
** An empty filter, its first layer for about `keys` keys; NULL when out of memory. max_bytes
** > 0: it never holds more; when a layer would pass it, the filter gives up (below).
*/
rt_keyfilter_t *rsql_rt_keyfilter_new(int64_t keys, int64_t max_bytes);
void rsql_rt_keyfilter_free(rt_keyfilter_t *f);
/* Add a hash; false when out of memory or past max_bytes: then it frees its layers and every
   later test says "maybe". */
bool rsql_rt_keyfilter_add(rt_keyfilter_t *f, uint64_t hash);
/* False only when the hash was never added. */
bool rsql_rt_keyfilter_maybe(const rt_keyfilter_t *f, uint64_t hash);
/* The bytes it holds. */
int64_t rsql_rt_keyfilter_bytes(const rt_keyfilter_t *f);

#endif
