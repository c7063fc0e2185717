/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of a table that is looked up (the joined table of FROM s JOIN t FOR SYSTEM_TIME
 * AS OF s.proc_time), Flink's names: one table of rows shared by every connector whose
 * descriptor has a lookup data path (postgres, sqlite, a plugin's), validated with the
 * connector's own rows, listed by SHOW OPTIONS and in docs/CONNECTORS.md. The runtime reads
 * them with rsql_lookup_conf_get.
 */
#include "config.h"
#include "connectors/conn_int.h"

#include <string.h>
#include <strings.h>

static const char *const cache_kinds[] = {"NONE", "PARTIAL", NULL};

const rsql_opt_def_t rsql_lookup_opts[] = {
    RSQL_OPT_ROW("lookup.cache", RSQL_OPT_ENUM, RSQL_OPT_F_LOOKUP, "NONE", 0, 0, cache_kinds,
                 "`NONE`: every key is asked of the table (the keys of a batch of rows in one "
                 "call). `PARTIAL`: the rows found for a key (and, by default, that none was "
                 "found) are kept in memory and used again for the same key, within "
                 "`lookup.partial-cache.max-rows` and the expiry times; a row changed in the "
                 "table is seen once its key's entry expires or is evicted."),
    RSQL_OPT_ROW("lookup.partial-cache.max-rows", RSQL_OPT_INT, RSQL_OPT_F_LOOKUP, "10000", 1,
                 INT64_C(1000000000), NULL,
                 "With `lookup.cache` `PARTIAL`: most rows kept (a key that found nothing "
                 "counts as one). The least recently used keys are evicted past it, so the "
                 "cache's memory is bounded by it."),
    RSQL_OPT_ROW("lookup.partial-cache.expire-after-write", RSQL_OPT_DURATION, RSQL_OPT_F_LOOKUP,
                 NULL, 1, 365 * 24 * RSQL_MS_H, NULL,
                 "With `lookup.cache` `PARTIAL`: a key's entry is asked again this long after it "
                 "was read from the table. Unset: never for its age."),
    RSQL_OPT_ROW("lookup.partial-cache.expire-after-access", RSQL_OPT_DURATION,
                 RSQL_OPT_F_LOOKUP, NULL, 1, 365 * 24 * RSQL_MS_H, NULL,
                 "With `lookup.cache` `PARTIAL`: a key's entry is dropped when no row used it "
                 "for this long. Unset: never for disuse."),
    RSQL_OPT_ROW("lookup.partial-cache.cache-missing-key", RSQL_OPT_BOOL, RSQL_OPT_F_LOOKUP,
                 "true", 0, 0, NULL,
                 "With `lookup.cache` `PARTIAL`: also keep that a key found no row, so it is "
                 "not asked again until its entry expires (`false`: a missing key is asked "
                 "every time, and a row inserted for it is found at once). Also accepted as "
                 "`lookup.partial-cache.caching-missing-key`."),
    RSQL_OPT_ROW("lookup.partial-cache.caching-missing-key", RSQL_OPT_BOOL,
                 RSQL_OPT_F_LOOKUP | RSQL_OPT_F_HIDDEN, "true", 0, 0, NULL,
                 "The same as `lookup.partial-cache.cache-missing-key`."),
    RSQL_OPT_ROW("lookup.max-retries", RSQL_OPT_INT, RSQL_OPT_F_LOOKUP, "3", 0, 1000, NULL,
                 "Most times a lookup that failed transiently (a lost connection, a server "
                 "that is starting or overloaded) is asked again, with the backoff of "
                 "`errors.retry.*` and within `errors.retry.timeout`; then the rows of the "
                 "batch fail with its error (dead-lettered under `errors.tolerance` `all`). A "
                 "permanent failure is never asked again."),
    RSQL_OPT_END,
};

/* See rsql_connector.h. */
rsql_err_t rsql_lookup_opts_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    static const char *const partial[] = {
        "lookup.partial-cache.max-rows", "lookup.partial-cache.expire-after-write",
        "lookup.partial-cache.expire-after-access", "lookup.partial-cache.cache-missing-key",
        "lookup.partial-cache.caching-missing-key"};
    for (size_t i = 0; i < sizeof partial / sizeof *partial; i++) {
        if (rsql_conn__requires(set, partial[i], "lookup.cache", "PARTIAL", err) != RSQL_OK) {
            return err->code;
        }
    }
    return rsql_conn__exclusive(set, "lookup.partial-cache.cache-missing-key",
                                "lookup.partial-cache.caching-missing-key", err);
}

/* See rsql_connector.h. */
void rsql_lookup_conf_get(const rsql_optset_t *set, rsql_lookup_conf_t *c)
{
    memset(c, 0, sizeof *c);
    const char *kind = rsql_optset_str(set, "lookup.cache");
    c->cache = kind && strcasecmp(kind, "PARTIAL") == 0;
    c->max_rows = rsql_optset_int(set, "lookup.partial-cache.max-rows");
    c->expire_after_write_ms = rsql_optset_has(set, "lookup.partial-cache.expire-after-write")
                                   ? rsql_optset_int(set, "lookup.partial-cache.expire-after-write")
                                   : 0;
    c->expire_after_access_ms =
        rsql_optset_has(set, "lookup.partial-cache.expire-after-access")
            ? rsql_optset_int(set, "lookup.partial-cache.expire-after-access")
            : 0;
    c->cache_missing = rsql_optset_has(set, "lookup.partial-cache.caching-missing-key")
                           ? rsql_optset_bool(set, "lookup.partial-cache.caching-missing-key")
                           : rsql_optset_bool(set, "lookup.partial-cache.cache-missing-key");
    c->max_retries = (int)rsql_optset_int(set, "lookup.max-retries");
}
