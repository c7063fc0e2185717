/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * print_conf: the typed configuration of the print sink, filled when its
 * options are validated (print_opts.c) and read by print_sink.c.
 */
#ifndef RSQL_PRINT_CONF_H
#define RSQL_PRINT_CONF_H

#include <stdbool.h>

/* The values of the format row, indexed by rsql_print_conf_t.format. */
extern const char *const rsql_print_formats[];

typedef struct rsql_print_conf {
    const char *identifier; /* print-identifier, or NULL */
    bool standard_error;
    int format; /* index in the format row's values; -1: the readable text form */
} rsql_print_conf_t;

#endif
