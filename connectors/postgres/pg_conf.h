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

/*
** The option rows of the connection that the postgres and postgres-cdc connectors share
** (one text for each): each takes the owner's field (RSQL_OPT_FIELD of its conf struct, whose
** rsql_pg_conf_t member rsql_pg__connect reads); url also its flags (REQUIRED or not).
*/
#define RSQL_PG_ROW_URL(flags, field)                                                          \
    RSQL_OPT_ROW_F("url", RSQL_OPT_STR, (flags) | RSQL_OPT_F_URL, NULL, 0, 0, NULL,            \
                   "The database, as a libpq connection URI: "                                 \
                   "`postgresql://host:port/dbname` (user, password and parameters such as "   \
                   "`?sslmode=verify-full&sslrootcert=ca.pem` or `?connect_timeout=5` may be " \
                   "in it too; the options `username`, `password` and `sslmode`, when set, "   \
                   "override them). Without `connect_timeout` a connection attempt gives up "  \
                   "after 10 s. Given as a reference (`${env:PG_URL}`, "                       \
                   "`${file:/run/secrets/pg-url}`) the catalog does not keep a password it "   \
                   "holds.",                                                                   \
                   field)
#define RSQL_PG_ROW_USERNAME(field)                                                            \
    RSQL_OPT_ROW_F("username", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,            \
                   "The database user. Unset: the URL's, else libpq's default.", field)
#define RSQL_PG_ROW_PASSWORD(field)                                                            \
    RSQL_OPT_ROW_F("password", RSQL_OPT_STR, RSQL_OPT_F_SECRET, NULL, 0, 0, NULL,              \
                   "The password of `username`. Stored in the catalog as written, so protect " \
                   "the catalog file (it is created with mode 0600).",                         \
                   field)
#define RSQL_PG_ROW_SSLMODE(field, given)                                                      \
    RSQL_OPT_ROW_FG("sslmode", RSQL_OPT_ENUM, 0, NULL, 0, 0, rsql_pg_sslmodes,                 \
                    "libpq's `sslmode`: whether and how TLS is used; it overrides the url's "  \
                    "`?sslmode=`. Unset: the url's, else libpq's default (`prefer`, or the "   \
                    "`PGSSLMODE` environment variable).",                                      \
                    field, given)

#endif
