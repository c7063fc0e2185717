/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_result: what a statement hands back to its caller (CLI, shell, slt
 * runner): a result set of text cells (SHOW, DESCRIBE, SELECT previews),
 * plain lines (EXPLAIN, SHOW CREATE TABLE), or a short status message
 * ("created table t").  Cells are owned by the result.
 */
#ifndef RSQL_RESULT_H
#define RSQL_RESULT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/rsql_error.h"

typedef enum rsql_result_kind {
    RSQL_RESULT_NONE,  /* nothing to show */
    RSQL_RESULT_TABLE, /* columns + rows */
    RSQL_RESULT_LINES, /* text lines (one column, printed verbatim) */
    RSQL_RESULT_STATUS /* a status message */
} rsql_result_kind_t;

typedef struct rsql_result {
    rsql_result_kind_t kind;
    int n_cols;
    char **cols; /* column names */
    int n_rows, cap_rows;
    char **cells; /* n_rows * n_cols; NULL cell = SQL NULL */
    char *status;
    bool wrap_last; /* the last column (a description) is word-wrapped to the print width */
} rsql_result_t;

rsql_result_t *rsql_result_new(rsql_result_kind_t kind);
void rsql_result_destroy(rsql_result_t *r);
/* Set the column names (copied). */
rsql_err_t rsql_result_set_cols(rsql_result_t *r, int n, const char *const *names);
/* Append a row of n_cols cells (copied; NULL = SQL NULL). */
rsql_err_t rsql_result_add_row(rsql_result_t *r, const char *const *cells);
/* Append one line (LINES results; splits s on '\n'). */
rsql_err_t rsql_result_add_lines(rsql_result_t *r, const char *s);
rsql_err_t rsql_result_set_status(rsql_result_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *rsql_result_cell(const rsql_result_t *r, int row, int col);

/* Print styles: an aligned table with a header (terminals and scripts), or
   tab-separated rows without a header (slt golden files). */
typedef enum rsql_print_style { RSQL_PRINT_TABLE, RSQL_PRINT_TSV } rsql_print_style_t;
void rsql_result_print(const rsql_result_t *r, rsql_print_style_t style, FILE *f);
/*
** rsql_result_print with the width (characters) a table may take: a wrap_last column is
** word-wrapped so that the table fits when it can (never below 20 characters). TSV and
** lines are never wrapped.
*/
void rsql_result_print_width(const rsql_result_t *r, rsql_print_style_t style, int width,
                             FILE *f);
/*
** The width rsql_result_print uses for f: $COLUMNS when set to a number, else the terminal's
** width when f is a terminal, else RSQL_RESULT_WIDTH.
*/
#define RSQL_RESULT_WIDTH 100
int rsql_result_width(FILE *f);

#endif
