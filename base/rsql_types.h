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

#include "base/rsql_error.h"

typedef enum rsql_type {
    RSQL_TYPE_NULL = 0, /* the type of a bare NULL literal only */
    RSQL_TYPE_BOOLEAN,
    RSQL_TYPE_INT,    /* 32-bit */
    RSQL_TYPE_BIGINT, /* 64-bit */
    RSQL_TYPE_DOUBLE,
    RSQL_TYPE_VARCHAR, /* VARCHAR and STRING are one type */
    RSQL_TYPE_BYTES,
    RSQL_TYPE_TIMESTAMP, /* TIMESTAMP(p), milliseconds since the epoch, UTC */
    RSQL_TYPE_DECIMAL,   /* DECIMAL(p, s): exact, p <= 38; details in the descriptor */
    RSQL_TYPE_DATE,      /* days since 1970-01-01 */
    RSQL_TYPE_ROW,       /* ROW<name T, ...>: the descriptor names the fields */
    RSQL_TYPE_ARRAY,     /* ARRAY<T> */
    RSQL_TYPE_MAP,       /* MAP<STRING, T> */
    /* INTERVAL DAY TO SECOND(3): a day-time interval, milliseconds (v.i), any sign; the type
       of INTERVAL '5' SECOND and of TIMESTAMP - TIMESTAMP's kin; no column has it */
    RSQL_TYPE_INTERVAL
} rsql_type_t;

/* The largest DECIMAL precision, and the default type of a bare DECIMAL: DECIMAL(10, 0). */
#define RSQL_DECIMAL_MAX_PRECISION 38
#define RSQL_DECIMAL_DEFAULT_PRECISION 10

/*
** A type descriptor: a kind and, for DECIMAL, ROW, ARRAY and MAP, its
** parameters. Descriptors are interned (rsql_tdesc_parse, rsql_tdesc_decimal, ...):
** one immutable descriptor per distinct type for the life of the process,
** so two descriptors are the same type exactly when the pointers are equal,
** they may be shared between threads, and nothing frees them. Columns, bound
** expressions and nested values carry a `const rsql_tdesc_t *`; NULL there
** means the plain scalar type of the kind alone (every kind but DECIMAL,
** ROW, ARRAY, MAP; a NULL DECIMAL descriptor means DECIMAL(10, 0)).
*/
typedef struct rsql_tdesc rsql_tdesc_t;
struct rsql_tdesc {
    rsql_type_t type;
    int precision, scale; /* DECIMAL; 0 otherwise */
    int n;                /* ROW: fields; ARRAY: 1 (element); MAP: 2 (key, value); else 0 */
    const char *const *names;          /* ROW: field names as written (case kept) */
    const rsql_tdesc_t *const *children; /* n children, never NULL */
    const char *text; /* canonical text: "ROW<`a` INT, `b` ARRAY<VARCHAR>>", "DECIMAL(10, 2)" */
};

/* The interned descriptor of a scalar kind (not ROW/ARRAY/MAP; DECIMAL gives DECIMAL(10, 0)). */
const rsql_tdesc_t *rsql_tdesc_scalar(rsql_type_t t);
/* desc when not NULL, else the scalar descriptor of t. */
const rsql_tdesc_t *rsql_tdesc_of(rsql_type_t t, const rsql_tdesc_t *desc);
/* The interned DECIMAL(p, s); NULL when p is not 1..38 or s not 0..p. */
const rsql_tdesc_t *rsql_tdesc_decimal(int p, int s);
/* The interned ARRAY<elem> / MAP<VARCHAR, value>; NULL when out of memory. */
const rsql_tdesc_t *rsql_tdesc_array(const rsql_tdesc_t *elem);
const rsql_tdesc_t *rsql_tdesc_map(const rsql_tdesc_t *value);
/* The index of ROW field name (case-insensitive), or -1. */
int rsql_tdesc_field(const rsql_tdesc_t *row, const char *name);
/* True when the kind needs a descriptor to be complete (DECIMAL, ROW, ARRAY, MAP). */
bool rsql_type_is_param(rsql_type_t t);
/* True for ROW, ARRAY and MAP. */
bool rsql_type_is_nested(rsql_type_t t);

/*
** Parse the type text s[0..n) (a column type as written in CREATE TABLE or
** CAST, or a descriptor's canonical text) into its interned descriptor.
** Names are those of rsql_type_from_name plus DECIMAL[(p[, s])] (also DEC,
** NUMERIC), DATE, ROW<name T, ...> (also ROW(name T, ...)), ARRAY<T>,
** MAP<K, V> (K must be VARCHAR); field names may be `quoted` or "quoted".
** Errors RSQL_ERR_TYPE with *err_off (when not NULL) the byte offset in s of
** the problem: "DECIMAL precision must be between 1 and 38", "DECIMAL scale
** must be between 0 and the precision", "MAP keys must be VARCHAR",
** "duplicate ROW field 'a'", "unknown type 'X'", "expected '>'"... The
** nesting depth is at most 32.
*/
rsql_err_t rsql_tdesc_parse(const char *s, size_t n, const rsql_tdesc_t **out, uint32_t *err_off,
                            struct rsql_error *err);


/*
** The kind of a row in a changelog (a table that changes, not only grows): an insert, the
** old and the new image of an update, a delete. Every append-only source gives INSERT only
** (0, the zero of every record). Written +I, -U, +U, -D (rsql_rowkind_short).
*/
typedef enum rsql_rowkind {
    RSQL_ROW_INSERT = 0,
    RSQL_ROW_UPDATE_BEFORE,
    RSQL_ROW_UPDATE_AFTER,
    RSQL_ROW_DELETE,
    /* Every row of the table gone at once (a TRUNCATE of a CDC source's table): no values.
       Only a sink that applies changes by key takes it (it deletes every row of its table);
       the planner refuses it for the others. */
    RSQL_ROW_CLEAR
} rsql_rowkind_t;
/* "+I", "-U", "+U", "-D", "-T" (RSQL_ROW_CLEAR) ("?" for anything else). */
const char *rsql_rowkind_short(int kind);
/* True for the kinds that add a row (INSERT, UPDATE_AFTER), false for those that retract one. */
bool rsql_rowkind_adds(int kind);

/* "BOOLEAN", "INT", ..., "TIMESTAMP(3)" (precision 3 is the only one kept). */
const char *rsql_type_name(rsql_type_t t);
/* Parse a canonical or alias name ("STRING", "INTEGER", "TIMESTAMP(3)"); -1 if unknown. */
int rsql_type_from_name(const char *name);
/* True when a value of type from converts to type to without loss (implicit cast). */
bool rsql_type_widens(rsql_type_t from, rsql_type_t to);
bool rsql_type_is_numeric(rsql_type_t t);
/* INT or BIGINT. */
bool rsql_type_is_integer(rsql_type_t t);

/*
** A value. Strings and bytes point at memory the value does not own unless
** the owner says so (rows own their strings; see the runtime's row type).
*/
typedef struct rsql_composite rsql_composite_t;
typedef struct rsql_value {
    rsql_type_t type;
    bool is_null;
    uint8_t scale; /* DECIMAL: the number of fraction digits of dec (the type's scale) */
    uint8_t prec;  /* DECIMAL: the type's precision */
    union {
        bool b;
        int64_t i;  /* INT, BIGINT */
        double d;   /* DOUBLE */
        int64_t ts; /* TIMESTAMP: ms since epoch */
        struct {
            const char *p;
            size_t len;
        } s; /* VARCHAR (UTF-8, not NUL-terminated necessarily), BYTES */
        struct {
            uint64_t lo;
            int64_t hi;
        } dec;                     /* DECIMAL: the unscaled value, two's complement 128-bit */
        const rsql_composite_t *c; /* ROW, ARRAY, MAP (never NULL unless is_null) */
    } v;
} rsql_value_t;

/*
** A ROW, ARRAY or MAP value: desc is its type; ROW has desc->n items (the
** fields in order), ARRAY n elements, MAP n entries as 2n items (key,
** value, key, value, ...; keys VARCHAR, never NULL, unique). Composites are
** built in an arena (the decoder's batch arena) and are not modified after.
*/
struct rsql_composite {
    const rsql_tdesc_t *desc;
    uint32_t n;
    rsql_value_t items[];
};


#endif
