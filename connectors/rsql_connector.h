/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_connector: the connector registry.  Each connector declares its name,
 * sides and ONE options table; formats (json, csv, raw) declare theirs.  The
 * registry validates a table's WITH options against the connector's table
 * plus, for connectors with a `format` option, the chosen format's table
 * (keys `json.*`, `csv.*`).  The data-path vtable joins this struct with the
 * runtime.
 */
#ifndef RSQL_CONNECTOR_H
#define RSQL_CONNECTOR_H

#include "base/rsql_opts.h"

#define RSQL_CAP_SOURCE 0x1u
#define RSQL_CAP_SINK 0x2u

typedef struct rsql_format_def {
    const char *name; /* "json" */
    const char *description;
    const rsql_opt_def_t *opts; /* keys start with "<name>." */
    /* Optional cross-option rules, run after the connector's finalize. */
    rsql_err_t (*finalize)(const rsql_optset_t *set, rsql_error_t *err);
} rsql_format_def_t;

typedef struct rsql_connector_def {
    const char *name; /* "rocketmq-grpc" */
    const char *description;
    unsigned caps;              /* RSQL_CAP_SOURCE | RSQL_CAP_SINK */
    const rsql_opt_def_t *opts; /* includes "connector"; side-specific rows are flagged */
    const char *const *formats; /* formats allowed for "format" (NULL-terminated), or NULL */
    /*
    ** Optional cross-option rules, run by rsql_connector_validate after every
    ** single value passed ("options 'sink.lite-topic' and
    ** 'sink.lite-topic-column' cannot be used together"). Reports at the
    ** offending key or value (see rsql_optset_at).
    */
    rsql_err_t (*finalize)(const rsql_optset_t *set, rsql_error_t *err);
} rsql_connector_def_t;

/* All connectors, in a stable order, NULL-terminated. */
const rsql_connector_def_t *const *rsql_connector_list(void);
const rsql_connector_def_t *rsql_connector_find(const char *name); /* case-insensitive */
const rsql_format_def_t *const *rsql_format_list(void);
const rsql_format_def_t *rsql_format_find(const char *name);

/*
** Validate a table's WITH options: 'connector' present and known (else an
** error at the key/value, suggesting the nearest connector name), then every
** option against the connector's table and its format's table. columns are
** the table's column names (for '#' rows like fields.#.kind). what_pos is
** where a missing 'connector' is reported. Returns a new option set (caller
** destroys) and the connector in *conn, or NULL with err set.
*/
rsql_optset_t *rsql_connector_validate(const rsql_opt_kv_t *kvs, int n_kvs,
                                       const char *const *columns, int n_columns,
                                       rsql_pos_t what_pos, const rsql_connector_def_t **conn,
                                       rsql_error_t *err);

/* True when key is a secret option of connector conn (or its formats). */
bool rsql_connector_is_secret(const rsql_connector_def_t *conn, const char *key);

/* docs/CONNECTORS.md, generated from the tables. */
void rsql_connector_docs_markdown(rsql_buf_t *out);

/* ---- additions (after the first API freeze) */

/*
** Check that table table_name (using connector conn with options set) can
** be used on one side (RSQL_SIDE_SOURCE: read, RSQL_SIDE_SINK: written):
** the connector has that capability ("table 'out' cannot be read from:
** connector 'print' is a sink only", RSQL_ERR_SEMANTIC) and the side's
** REQUIRED options are present (rsql_optset_check_side_for). Errors at pos.
*/
rsql_err_t rsql_connector_check_side(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                     int side, const char *table_name, rsql_pos_t pos,
                                     rsql_error_t *err);

/* The format chosen by set (given or the connector's default), or NULL (no format). */
const rsql_format_def_t *rsql_connector_format(const rsql_connector_def_t *conn,
                                               const rsql_optset_t *set);

/* "source, sink" / "source" / "sink" for docs and SHOW CONNECTORS. */
const char *rsql_connector_sides(const rsql_connector_def_t *conn);

#endif
