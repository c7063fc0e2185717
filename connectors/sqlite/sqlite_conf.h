/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sqlite_conf: the typed configuration of the sqlite connector, filled when
 * its options are validated (sqlite_opts.c) and read by its data path
 * (sqlite_source.c, sqlite_sink.c) through the source/sink context's conf.
 */
#ifndef RSQL_SQLITE_CONF_H
#define RSQL_SQLITE_CONF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rsql_sqlite_conf {
    const char *path;
    const char *table;
    bool follow; /* scan.follow */
    int64_t poll_ms;
    int64_t batch_size; /* sink.batch-size */
    int64_t retention_ms; /* sink.exactly-once.retention */
} rsql_sqlite_conf_t;

#endif
