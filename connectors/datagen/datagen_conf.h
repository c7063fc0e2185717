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

#endif
