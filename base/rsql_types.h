/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_types: the SQL column types, their names, and the runtime value that
 * the planner's constants, the evaluator and the formats all share.
 */
#ifndef RSQL_TYPES_H
#define RSQL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rsql_type {
    RSQL_TYPE_NULL = 0, /* the type of a bare NULL literal only */
    RSQL_TYPE_BOOLEAN,
    RSQL_TYPE_INT,    /* 32-bit */
    RSQL_TYPE_BIGINT, /* 64-bit */
    RSQL_TYPE_DOUBLE,
    RSQL_TYPE_VARCHAR, /* VARCHAR and STRING are one type */
    RSQL_TYPE_BYTES,
    RSQL_TYPE_TIMESTAMP /* TIMESTAMP(p), milliseconds since the epoch, UTC */
} rsql_type_t;

/* "BOOLEAN", "INT", ..., "TIMESTAMP(3)" (precision 3 is the only one kept). */
const char *rsql_type_name(rsql_type_t t);
/* Parse a canonical or alias name ("STRING", "INTEGER", "TIMESTAMP(3)"); -1 if unknown. */
int rsql_type_from_name(const char *name);
/* True when a value of type from converts to type to without loss (implicit cast). */
bool rsql_type_widens(rsql_type_t from, rsql_type_t to);
bool rsql_type_is_numeric(rsql_type_t t);

/*
** A value. Strings and bytes point at memory the value does not own unless
** the owner says so (rows own their strings; see the runtime's row type).
*/
typedef struct rsql_value {
    rsql_type_t type;
    bool is_null;
    union {
        bool b;
        int64_t i;  /* INT, BIGINT */
        double d;   /* DOUBLE */
        int64_t ts; /* TIMESTAMP: ms since epoch */
        struct {
            const char *p;
            size_t len;
        } s; /* VARCHAR (UTF-8, not NUL-terminated necessarily), BYTES */
    } v;
} rsql_value_t;

#endif
