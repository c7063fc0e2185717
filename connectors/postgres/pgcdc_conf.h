/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_conf: the typed configuration of the postgres-cdc connector (PostgreSQL's logical
 * replication, pgoutput), filled when its options are validated (pgcdc_opts.c) and read by
 * its replication connection (pg_repl.c) and source (pgcdc_source.c).
 */
#ifndef RSQL_PGCDC_CONF_H
#define RSQL_PGCDC_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "connectors/postgres/pg_conf.h"

/* scan.startup.mode */
enum { RSQL_PGCDC_INITIAL = 0, RSQL_PGCDC_LATEST, RSQL_PGCDC_SNAPSHOT };
/* changelog-mode */
enum { RSQL_PGCDC_ALL = 0, RSQL_PGCDC_UPSERT };
/* truncate.mode */
enum { RSQL_PGCDC_TRUNC_FAIL = 0, RSQL_PGCDC_TRUNC_SKIP, RSQL_PGCDC_TRUNC_APPLY };
/* schema-change.mode */
enum { RSQL_PGCDC_SCHEMA_FAIL = 0, RSQL_PGCDC_SCHEMA_FOLLOW };

typedef struct rsql_pgcdc_conf {
    /* the connection, as the postgres connector's: url (given, or made by configure from
       hostname, port and database-name), username, password, sslmode */
    rsql_pg_conf_t pg;
    const char *hostname;
    int64_t port;
    const char *database; /* database-name */
    const char *schema_re; /* schema-name: a regular expression (PostgreSQL's, whole name) */
    const char *table_re;  /* table-name: likewise */
    const char *slot;      /* slot.name */
    int plugin;            /* decoding.plugin.name: 0 = pgoutput, the only one */
    int startup;           /* scan.startup.mode: RSQL_PGCDC_* */
    const char *publication; /* publication.name; configure sets rsql_<slot> when unset */
    int changelog;           /* changelog-mode: RSQL_PGCDC_ALL / _UPSERT */
    int64_t heartbeat_ms;    /* heartbeat.interval.ms */
    int64_t status_ms;       /* status-interval */
    int truncate_mode;       /* truncate.mode: RSQL_PGCDC_TRUNC_* */
    int schema_change;       /* schema-change.mode: RSQL_PGCDC_SCHEMA_* */
    int toast;               /* toast.unchanged: 0 = fail (the only one) */
    int64_t fetch_size;      /* scan.snapshot.fetch.size (the snapshot reader's chunk) */
    bool txn_atomic;         /* transaction.atomic: rows marked RSQL_REC_IN_TXN but a
                                transaction's last */
} rsql_pgcdc_conf_t;

#endif
