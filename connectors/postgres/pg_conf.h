/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_conf: the typed configuration of the postgres connector, filled when its options are
 * validated (pg_opts.c) and read by its data path (pg_conn.c, pg_sink.c) through the
 * source/sink context's conf.
 */
#ifndef RSQL_PG_CONF_H
#define RSQL_PG_CONF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rsql_pg_conf {
    const char *url;        /* a libpq URI, postgresql://host:port/db */
    const char *table_name; /* table-name, maybe schema-qualified ("s.t") */
    const char *username;
    const char *password; /* secret */
    int sslmode;          /* index into rsql_pg_sslmodes, when sslmode_set */
    bool sslmode_set;     /* sslmode given: it overrides the url's */
    int64_t max_rows;     /* sink.buffer-flush.max-rows */
    int64_t interval_ms;  /* sink.buffer-flush.interval */
    int64_t max_retries;  /* sink.max-retries */
    int64_t retention_ms; /* sink.exactly-once.retention */
    const char *inc_column;  /* scan.incremental.column */
    int64_t interval_src_ms; /* scan.incremental.interval; 0 = bounded */
} rsql_pg_conf_t;

/* sslmode's values, in libpq's spelling. */
extern const char *const rsql_pg_sslmodes[];

#endif
