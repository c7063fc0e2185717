/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Internals of the connector registry: the format definitions, duration
 * constants for option ranges, and the helpers the built-in connectors'
 * finalize hooks share (conn_registry.c). The option row macros are public
 * (base/rsql_opts.h, connectors/rsql_connector.h): plugins use them too.
 */
#ifndef RSQL_CONN_INT_H
#define RSQL_CONN_INT_H

#include "connectors/rsql_connector.h"

#define RSQL_MS_S INT64_C(1000)
#define RSQL_MS_MIN (60 * RSQL_MS_S)
#define RSQL_MS_H (60 * RSQL_MS_MIN)

/* The doc of sink.exactly-once.retention, shared by the exactly-once sinks (sqlite, postgres). */
#define RSQL_EXACTLY_ONCE_RETENTION_DOC                                                       \
    "From a source that keeps its own positions (`rocketmq-grpc`): the sink records the "      \
    "identity of each applied message (topic, lite topic and message id) in the same "        \
    "transaction as its row, in `rocketsql_applied`, so a redelivered message that was "       \
    "already applied (its ack was lost, or the job was killed before acking) is acked "        \
    "without being written again. An identity is kept this long after it was applied, and "   \
    "pruned only once the job has run this long, so a redelivery after a restart is still "   \
    "recognized. Keep it well above `source.invisible-duration`. The record holds about "      \
    "(message rate x this) entries."

extern const rsql_format_def_t rsql_json_format_def;
extern const rsql_format_def_t rsql_csv_format_def;
extern const rsql_format_def_t rsql_raw_format_def;
extern const rsql_format_def_t rsql_debezium_format_def;
extern const rsql_format_def_t rsql_canal_format_def;
extern const rsql_format_def_t rsql_maxwell_format_def;

/*
** For finalize hooks. When key was given (or, when key ends with '.', any
** key starting with it) and the effective value of other is not value:
** RSQL_ERR_BAD_OPTION at that key, "option 'KEY' requires 'OTHER' = 'VALUE'".
*/
rsql_err_t rsql_conn__requires(const rsql_optset_t *set, const char *key, const char *other,
                               const char *value, rsql_error_t *err);

/*
** When both a and b were given: RSQL_ERR_BAD_OPTION at the later one,
** "options 'A' and 'B' cannot be used together".
*/
rsql_err_t rsql_conn__exclusive(const rsql_optset_t *set, const char *a, const char *b,
                                rsql_error_t *err);

/*
** For check_source hooks: path names a file that can be opened for reading (not a directory).
** Else the error, with the path and the system's message: "cannot open in.jsonl: No such
** file or directory" (its code from the errno: a missing file is permanent).
*/
rsql_err_t rsql_conn__check_readable(const char *path, rsql_error_t *err);

/* Position of a given key (RSQL_NOPOS when not given). */
rsql_pos_t rsql_conn__key_pos(const rsql_optset_t *set, const char *key);
rsql_pos_t rsql_conn__value_pos(const rsql_optset_t *set, const char *key);

#endif
