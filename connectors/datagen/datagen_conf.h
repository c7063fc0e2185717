/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * datagen_conf: the typed configuration of the datagen connector, filled
 * when its options are validated (datagen_opts.c) and read by its data path
 * (datagen_source.c) through rsql_source_ctx_t.conf.
 */
#ifndef RSQL_DATAGEN_CONF_H
#define RSQL_DATAGEN_CONF_H

#include <stdbool.h>
#include <stdint.h>

/* fields.#.kind */
enum { RSQL_DATAGEN_RANDOM, RSQL_DATAGEN_SEQUENCE };

/* The fields.<column>.* options of one column. */
typedef struct rsql_datagen_col_conf {
    const char *name;
    int kind;               /* RSQL_DATAGEN_* */
    bool has_min, has_max;  /* fields.#.min / .max given */
    double min, max;
    bool min_is_int, max_is_int; /* ... and written as whole numbers (within 64 bits) */
    int64_t imin, imax;     /* ... their values then (INT and BIGINT columns use these) */
    int64_t length;         /* fields.#.length */
    int64_t start;          /* fields.#.start */
    bool has_end;
    int64_t end;            /* fields.#.end */
} rsql_datagen_col_conf_t;

typedef struct rsql_datagen_conf {
    int64_t rows_per_second; /* 0: as fast as taken */
    int64_t number_of_rows;
    bool number_of_rows_given;
    int64_t seed;
    bool seed_given;
    int n_cols; /* the table's columns, in order */
    rsql_datagen_col_conf_t *cols;
} rsql_datagen_conf_t;

#include "base/rsql_error.h"
#include "base/rsql_opts.h"
#include "base/rsql_types.h"

/*
** Do column k's options fit its type? A sequence needs an INT, BIGINT, DOUBLE, TIMESTAMP(3)
** or VARCHAR column whose type holds .start and .end; .min/.max are for numeric columns
** (whole numbers within the type for INT and BIGINT, finite for DOUBLE), .length for
** VARCHAR and BYTES. RSQL_ERR_BAD_OPTION at the offending value when set is given (CREATE
** TABLE, planning), else without a position (the source's open). datagen_opts.c.
*/
rsql_err_t rsql_datagen__check_column(const rsql_datagen_col_conf_t *k, rsql_type_t type,
                                      const rsql_optset_t *set, rsql_error_t *err);

#endif
