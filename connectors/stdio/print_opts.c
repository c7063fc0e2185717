/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the print sink (rows to standard output or error) and of
 * the blackhole sink (rows discarded; no options but 'connector').
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/stdio/print_conf.h"

const char *const rsql_print_formats[] = {"json", "csv", NULL};

static const rsql_opt_def_t print_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("print"),
    RSQL_OPT_ROW_F("print-identifier", RSQL_OPT_STR, 0, NULL, 0, 0, NULL,
                 "Start every printed line with this text and `> `, to tell several print sinks "
                 "apart.",
                   RSQL_OPT_FIELD(rsql_print_conf_t, identifier, const char *)),
    RSQL_OPT_ROW_F("standard-error", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                 "Print to standard error instead of standard output.",
                   RSQL_OPT_FIELD(rsql_print_conf_t, standard_error, bool)),
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, NULL, 0, 0, rsql_print_formats,
                 "Print each row encoded by this format. Unset: a readable text form of the "
                 "row.",
                   RSQL_OPT_FIELD(rsql_print_conf_t, format, int)),
    RSQL_OPT_END,
};

const rsql_connector_def_t rsql_print_conn_def = {
    .name = "print",
    .description = "Prints each row on its own line, to standard output (or standard error).",
    .caps = RSQL_CAP_SINK,
    .opts = print_opts,
    .formats = rsql_print_formats,
    .finalize = NULL,
    .conf_size = sizeof(rsql_print_conf_t),
    .sink = &rsql_print_sink_ops,
    .changes = RSQL_CHANGES_ALL,
};

static const rsql_opt_def_t blackhole_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("blackhole"),
    RSQL_OPT_END,
};

const rsql_connector_def_t rsql_blackhole_conn_def = {
    .name = "blackhole",
    .description = "Discards every row (and confirms it at once): for benchmarks and tests.",
    .caps = RSQL_CAP_SINK,
    .opts = blackhole_opts,
    .formats = NULL,
    .finalize = NULL,
    .sink = &rsql_blackhole_sink_ops,
    .changes = RSQL_CHANGES_ALL,
};
