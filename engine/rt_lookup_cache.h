/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_lookup_cache: the lookup join's partial cache (lookup.cache = PARTIAL): the rows a key
 * found, kept by key within a bound on rows, least recently used evicted first, each entry
 * dropped when older than expire-after-write or unused for expire-after-access.
 * @locality the transform thread (one cache per lookup stage)
 */
#ifndef RSQL_RT_LOOKUP_CACHE_H
#define RSQL_RT_LOOKUP_CACHE_H

#include "base/rsql_types.h"
#include "connectors/rsql_connector.h"

typedef struct rt_lkcache rt_lkcache_t;

typedef struct rt_lkcache_stats {
    uint64_t hits, misses; /* gets that found an entry, that did not */
    uint64_t evictions;    /* entries dropped for the bound or for their age */
    int64_t rows;          /* rows held (a key that found none counts one) */
    int64_t entries;       /* keys held */
    int64_t bytes;         /* the memory of the entries */
} rt_lkcache_stats_t;

/* A cache of keys of n_key values, of rows of n_cols values, per conf; NULL: out of memory. */
rt_lkcache_t *rsql_lkcache_new(int n_key, int n_cols, const rsql_lookup_conf_t *conf);
void rsql_lkcache_free(rt_lkcache_t *c);

/*
** The rows cached for key at time now (ms): true with *rows (*n rows of n_cols values; 0
** when the key found none), valid until the next put; false when the key is not held (or its
** entry expired: then it is dropped). A key with a NULL, a NaN or a nested value is never held.
*/
bool rsql_lkcache_get(rt_lkcache_t *c, const rsql_value_t *key, int64_t now,
                      const rsql_value_t *const **rows, int *n);

/*
** Keep rows (n rows of n_cols values, copied) as what key found at time now, replacing what
** the key held, evicting the least recently used past the bound. n == 0 is kept only under
** cache-missing-key; a key that cannot be held is not. RSQL_OK or RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_lkcache_put(rt_lkcache_t *c, const rsql_value_t *key,
                            const rsql_value_t *const *rows, int n, int64_t now);

void rsql_lkcache_stats(const rt_lkcache_t *c, rt_lkcache_stats_t *out);

#endif
