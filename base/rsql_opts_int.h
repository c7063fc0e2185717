/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Internals of the options engine shared by base/rsql_opts.c,
 * base/rsql_settings.c and connectors/conn_registry.c: building the
 * "unknown ...; valid options: a, b, c" messages so they fit the fixed-size
 * rsql_error_t message, and the near-name score behind "did you mean".
 */
#ifndef RSQL_OPTS_INT_H
#define RSQL_OPTS_INT_H

#include "base/rsql_opts.h"

/*
** Set err to "<head>; <label>: <list>" (or just head when list is empty),
** cutting the list at a ", " boundary and ending it with ", ..." when the
** whole message would not fit in err->msg. Returns code.
*/
rsql_err_t rsql_opts__set_listed(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos,
                                 const char *head, const char *label, const char *list);

/*
** How near key is to candidate for a "did you mean": a small number (the
** edit distance, case-insensitive, with transpositions) when near, or -1.
** A candidate that starts with key, or that key ends with (after a '.'),
** or that ends with '.' + key, is near too (scored just past the threshold).
*/
int rsql_opts__near(const char *key, const char *candidate);

/* The non-hidden option names of tables, comma-separated, appended to out. */
void rsql_opts__names(const rsql_opt_def_t *const *tables, int n_tables, rsql_buf_t *out);

/* Range bounds of INT/SIZE/DURATION rows: present, and one bound as text. */
bool rsql_opts__has_range(const rsql_opt_def_t *def);
void rsql_opts__range_text(const rsql_opt_def_t *def, int64_t v, char *buf, size_t size);

#endif
