/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Internals of the connector registry: the connector and format
 * definitions each <name>_opts.c file exports, the row macros their option
 * tables use, and the helpers their finalize hooks share (conn_registry.c).
 */
#ifndef RSQL_CONN_INT_H
#define RSQL_CONN_INT_H

#include "connectors/rsql_connector.h"

/* One option row (no validate hook) and one with a hook. */
#define RSQL_OPT_ROW(name, type, flags, def, lo, hi, enums, doc) \
    {name, type, flags, def, lo, hi, enums, doc, NULL}
#define RSQL_OPT_ROW_V(name, type, flags, def, lo, hi, enums, doc, validate) \
    {name, type, flags, def, lo, hi, enums, doc, validate}

/* The same, writing the value at a field of the owner's config struct (RSQL_OPT_FIELD),
   optionally also a bool member set when the key was given. */
#define RSQL_OPT_ROW_F(name, type, flags, def, lo, hi, enums, doc, field) \
    {name, type, flags, def, lo, hi, enums, doc, NULL, field, 0}
#define RSQL_OPT_ROW_FG(name, type, flags, def, lo, hi, enums, doc, field, given) \
    {name, type, flags, def, lo, hi, enums, doc, NULL, field, given}
#define RSQL_OPT_ROW_VF(name, type, flags, def, lo, hi, enums, doc, validate, field) \
    {name, type, flags, def, lo, hi, enums, doc, validate, field, 0}

/* The 'connector' row every connector table starts with. */
#define RSQL_CONN_ROW_CONNECTOR(name)                                              \
    RSQL_OPT_ROW("connector", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL, \
                 "Must be `" name "`.")

#define RSQL_MS_S INT64_C(1000)
#define RSQL_MS_MIN (60 * RSQL_MS_S)
#define RSQL_MS_H (60 * RSQL_MS_MIN)

extern const rsql_format_def_t rsql_json_format_def;
extern const rsql_format_def_t rsql_csv_format_def;
extern const rsql_format_def_t rsql_raw_format_def;

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

/* Position of a given key (RSQL_NOPOS when not given). */
rsql_pos_t rsql_conn__key_pos(const rsql_optset_t *set, const char *key);
rsql_pos_t rsql_conn__value_pos(const rsql_optset_t *set, const char *key);

#endif
