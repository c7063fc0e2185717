/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the datagen source, as in Flink's datagen: a rate, a row
 * count, a seed, and per column `fields.<column>.kind` = random (with
 * .min, .max, .length) or sequence (.start, .end).  The '#' rows match a
 * column of the table; the finalize hook keeps each column's options
 * consistent with its kind.
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/datagen/datagen_conf.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const datagen_kinds[] = {"random", "sequence", NULL};

static const rsql_opt_def_t datagen_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("datagen"),
    RSQL_OPT_ROW_F("rows-per-second", RSQL_OPT_INT, 0, "10000", 0, INT64_C(1000000000), NULL,
                 "Rows generated per second; `0`: as fast as the pipeline takes them.",
                   RSQL_OPT_FIELD(rsql_datagen_conf_t, rows_per_second, int64_t)),
    RSQL_OPT_ROW_FG("number-of-rows", RSQL_OPT_INT, 0, NULL, 0, INT64_MAX, NULL,
                 "Rows to generate; the source ends after them. Unset: unbounded (unless a "
                 "sequence column reaches its end first).",
                  RSQL_OPT_FIELD(rsql_datagen_conf_t, number_of_rows, int64_t), RSQL_OPT_FIELD(rsql_datagen_conf_t, number_of_rows_given, bool)),
    RSQL_OPT_ROW_FG("seed", RSQL_OPT_INT, 0, NULL, 0, 0, NULL,
                 "Seed of the random values: the same seed gives the same rows. Unset: a "
                 "different seed each run.",
                  RSQL_OPT_FIELD(rsql_datagen_conf_t, seed, int64_t), RSQL_OPT_FIELD(rsql_datagen_conf_t, seed_given, bool)),
    RSQL_OPT_ROW("fields.#.kind", RSQL_OPT_ENUM, 0, "random", 0, 0, datagen_kinds,
                 "How column `#` is generated: `random` values, or a `sequence` counting up by "
                 "one from `.start` (INT, BIGINT, DOUBLE, TIMESTAMP(3) and VARCHAR columns; "
                 "not BOOLEAN or BYTES)."),
    RSQL_OPT_ROW("fields.#.min", RSQL_OPT_DOUBLE, 0, NULL, 0, 0, NULL,
                 "Random numeric column: the smallest value; for INT and BIGINT a whole number "
                 "within the type (`5.5` is an error, not rounded), for DOUBLE a finite number. "
                 "Unset: the smallest value of the type (INT, BIGINT), 0 for DOUBLE."),
    RSQL_OPT_ROW("fields.#.max", RSQL_OPT_DOUBLE, 0, NULL, 0, 0, NULL,
                 "Random numeric column: the largest value, as `.min`. Unset: the largest value "
                 "of the type (INT, BIGINT), 1 for DOUBLE."),
    RSQL_OPT_ROW("fields.#.length", RSQL_OPT_INT, 0, "10", 1, 1048576, NULL,
                 "Random VARCHAR or BYTES column: the length of each value."),
    RSQL_OPT_ROW("fields.#.start", RSQL_OPT_INT, 0, "1", 0, 0, NULL,
                 "Sequence column: the first value (within the column's type: an INT column "
                 "takes 32 bits)."),
    RSQL_OPT_ROW("fields.#.end", RSQL_OPT_INT, 0, NULL, 0, 0, NULL,
                 "Sequence column: the last value (within the column's type); the source ends "
                 "after it. Unset: no end, except that the source ends once the sequence "
                 "reaches the largest value of the column's type (INT: 2147483647)."),
    RSQL_OPT_END,
};

/* "fields.<col>.<attr>" -> "fields.<col>.<other>" in buf. */
static void sibling(const char *key, const char *other, char *buf, size_t size)
{
    const char *dot = strrchr(key, '.');
    snprintf(buf, size, "%.*s.%s", (int)(dot - key), key, other);
}

static rsql_err_t check_order(const rsql_optset_t *set, const char *lo_key, const char *hi,
                              rsql_error_t *err)
{
    char hi_key[256];
    sibling(lo_key, hi, hi_key, sizeof hi_key);
    if (!rsql_optset_has(set, hi_key)) {
        return RSQL_OK;
    }
    if (rsql_optset_double(set, lo_key) > rsql_optset_double(set, hi_key)) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_conn__value_pos(set, lo_key),
                              "option '%s' (%s) must not be greater than '%s' (%s)", lo_key,
                              rsql_optset_str(set, lo_key), hi_key, rsql_optset_str(set, hi_key));
    }
    return RSQL_OK;
}

/*
** Per column: options of the other kind are rejected, min <= max, start <= end.
*/
static rsql_err_t datagen_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    for (int i = 0; i < rsql_optset_count(set); i++) {
        const rsql_opt_def_t *d = rsql_optset_def_at(set, i);
        const char *key = rsql_optset_at(set, i)->key;
        if (!strchr(d->name, '#') || strcmp(d->name, "fields.#.kind") == 0) {
            continue;
        }
        const char *attr = strrchr(key, '.') + 1;
        bool seq_attr = strcmp(attr, "start") == 0 || strcmp(attr, "end") == 0;
        char kind_key[256];
        sibling(key, "kind", kind_key, sizeof kind_key);
        rsql_err_t rc =
            rsql_conn__requires(set, key, kind_key, seq_attr ? "sequence" : "random", err);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (strcmp(attr, "min") == 0 && (rc = check_order(set, key, "max", err))) {
            return rc;
        }
        if (strcmp(attr, "start") == 0 && (rc = check_order(set, key, "end", err))) {
            return rc;
        }
        char start_key[256];
        sibling(key, "start", start_key, sizeof start_key);
        if (strcmp(attr, "end") == 0 && !rsql_optset_has(set, start_key) &&
            rsql_optset_int(set, start_key) > rsql_optset_int(set, key)) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_optset_at(set, i)->value_pos,
                                  "option '%s' (%s) must not be less than '%s' (%s)", key,
                                  rsql_optset_str(set, key), start_key,
                                  rsql_optset_str(set, start_key));
        }
    }
    return RSQL_OK;
}

/* Ends after number-of-rows (a sequence's end also ends it, at run time). */
static bool datagen_bounded(const void *conf, const char **why)
{
    const rsql_datagen_conf_t *c = conf;
    *why = c->number_of_rows_given ? "bounded (number-of-rows)" : "unbounded (no number-of-rows)";
    return c->number_of_rows_given;
}

/* The fields.<column>.* options of each column, in column order. */
static rsql_err_t datagen_configure(void *conf, const rsql_optset_t *set,
                                    const char *const *columns, int n_columns, rsql_arena_t *arena,
                                    rsql_error_t *err)
{
    rsql_datagen_conf_t *c = conf;
    char key[320];
    c->n_cols = n_columns > 0 ? n_columns : 0;
    c->cols = rsql_arena_alloc(arena, sizeof *c->cols * (size_t)(c->n_cols ? c->n_cols : 1));
    if (!c->cols) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < c->n_cols; i++) {
        rsql_datagen_col_conf_t *k = &c->cols[i];
        k->name = rsql_arena_strdup(arena, columns[i]);
        if (!k->name) {
            return rsql_error_nomem(err);
        }
#define KEY(attr) (snprintf(key, sizeof key, "fields.%s.%s", columns[i], attr), key)
        k->kind = strcasecmp(rsql_optset_str(set, KEY("kind")), "sequence") == 0
                      ? RSQL_DATAGEN_SEQUENCE
                      : RSQL_DATAGEN_RANDOM;
        k->has_min = rsql_optset_has(set, KEY("min"));
        k->min = k->has_min ? rsql_optset_double(set, key) : 0;
        k->min_is_int =
            k->has_min && rsql_opt_parse_int(rsql_optset_str(set, key), &k->imin) == RSQL_OK;
        k->has_max = rsql_optset_has(set, KEY("max"));
        k->max = k->has_max ? rsql_optset_double(set, key) : 1;
        k->max_is_int =
            k->has_max && rsql_opt_parse_int(rsql_optset_str(set, key), &k->imax) == RSQL_OK;
        k->length = rsql_optset_int(set, KEY("length"));
        k->start = rsql_optset_int(set, KEY("start"));
        k->has_end = rsql_optset_has(set, KEY("end"));
        k->end = k->has_end ? rsql_optset_int(set, key) : INT64_MAX;
#undef KEY
    }
    return RSQL_OK;
}

/* ---- the options against the columns' types */

/* Where fields.<col>.<attr> was written, or no position (none given, or no set). */
static rsql_pos_t attr_pos(const rsql_optset_t *set, const char *col, const char *attr,
                           char *key, size_t size)
{
    snprintf(key, size, "fields.%s.%s", col, attr);
    return set ? rsql_conn__value_pos(set, key) : RSQL_NOPOS;
}

/* A whole number within [lo, hi] for an integer column (attr "min" or "max"). */
static rsql_err_t check_int_bound(const rsql_datagen_col_conf_t *k, rsql_type_t type,
                                  const char *attr, bool is_int, int64_t v, double d,
                                  const rsql_optset_t *set, rsql_error_t *err)
{
    int64_t lo = type == RSQL_TYPE_INT ? INT32_MIN : INT64_MIN;
    int64_t hi = type == RSQL_TYPE_INT ? INT32_MAX : INT64_MAX;
    if (is_int && v >= lo && v <= hi) {
        return RSQL_OK;
    }
    char key[320], text[64];
    rsql_pos_t pos = attr_pos(set, k->name, attr, key, sizeof key);
    snprintf(text, sizeof text, "%.17g", d);
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "%soption '%s' (%s): %s column '%s' takes a whole number from %" PRId64
                          " to %" PRId64,
                          set ? "" : "datagen: ", key,
                          set ? rsql_optset_str(set, key) : text, rsql_type_name(type), k->name,
                          lo, hi);
}

/* A sequence bound (attr "start" or "end") within an INT column. */
static rsql_err_t check_seq_bound(const rsql_datagen_col_conf_t *k, rsql_type_t type,
                                  const char *attr, int64_t v, const rsql_optset_t *set,
                                  rsql_error_t *err)
{
    if (type != RSQL_TYPE_INT || (v >= INT32_MIN && v <= INT32_MAX)) {
        return RSQL_OK;
    }
    char key[320];
    rsql_pos_t pos = attr_pos(set, k->name, attr, key, sizeof key);
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "%soption '%s' (%" PRId64 "): INT column '%s' takes a value from %d to "
                          "%d",
                          set ? "" : "datagen: ", key, v, k->name, INT32_MIN, INT32_MAX);
}

/* An option that the column's type has no use for (given, so it would be ignored). */
static rsql_err_t not_for_type(const rsql_datagen_col_conf_t *k, rsql_type_t type,
                               const char *attr, const char *for_types,
                               const rsql_optset_t *set, rsql_error_t *err)
{
    char key[320];
    rsql_pos_t pos = attr_pos(set, k->name, attr, key, sizeof key);
    if (set && pos.off == RSQL_POS_NONE) {
        pos = rsql_conn__key_pos(set, key);
    }
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "%soption '%s' is for %s columns; column '%s' is %s",
                          set ? "" : "datagen: ", key, for_types, k->name, rsql_type_name(type));
}

/* See datagen_conf.h. */
rsql_err_t rsql_datagen__check_column(const rsql_datagen_col_conf_t *k, rsql_type_t type,
                                      const rsql_optset_t *set, rsql_error_t *err)
{
    char key[320];
    rsql_err_t rc;
    if (k->kind == RSQL_DATAGEN_SEQUENCE) {
        if (type == RSQL_TYPE_BOOLEAN || type == RSQL_TYPE_BYTES) {
            rsql_pos_t pos = attr_pos(set, k->name, "kind", key, sizeof key);
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                                  "%scolumn '%s' of type %s cannot be a sequence (option '%s'; "
                                  "sequences are INT, BIGINT, DOUBLE, TIMESTAMP(3) or VARCHAR)",
                                  set ? "" : "datagen: ", k->name, rsql_type_name(type), key);
        }
        if ((rc = check_seq_bound(k, type, "start", k->start, set, err)) != RSQL_OK) {
            return rc;
        }
        return k->has_end ? check_seq_bound(k, type, "end", k->end, set, err) : RSQL_OK;
    }
    bool integer = type == RSQL_TYPE_INT || type == RSQL_TYPE_BIGINT;
    bool numeric = integer || type == RSQL_TYPE_DOUBLE;
    const char *numeric_types = "INT, BIGINT and DOUBLE";
    if (!numeric && (k->has_min || k->has_max)) {
        return not_for_type(k, type, k->has_min ? "min" : "max", numeric_types, set, err);
    }
    if (set && type != RSQL_TYPE_VARCHAR && type != RSQL_TYPE_BYTES &&
        rsql_optset_has(set, (snprintf(key, sizeof key, "fields.%s.length", k->name), key))) {
        return not_for_type(k, type, "length", "VARCHAR and BYTES", set, err);
    }
    if (integer) {
        if ((k->has_min &&
             (rc = check_int_bound(k, type, "min", k->min_is_int, k->imin, k->min, set, err))) ||
            (k->has_max &&
             (rc = check_int_bound(k, type, "max", k->max_is_int, k->imax, k->max, set, err)))) {
            return rc;
        }
        if (k->has_min && k->has_max && k->imin > k->imax) {
            rsql_pos_t pos = attr_pos(set, k->name, "min", key, sizeof key);
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                                  "%soption '%s' (%" PRId64 ") must not be greater than "
                                  "'fields.%s.max' (%" PRId64 ")",
                                  set ? "" : "datagen: ", key, k->imin, k->name, k->imax);
        }
    }
    if (type == RSQL_TYPE_DOUBLE && (!isfinite(k->min) || !isfinite(k->max))) {
        const char *attr = isfinite(k->min) ? "max" : "min";
        rsql_pos_t pos = attr_pos(set, k->name, attr, key, sizeof key);
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "%soption '%s' must be a finite number (DOUBLE column '%s')",
                              set ? "" : "datagen: ", key, k->name);
    }
    return RSQL_OK;
}

/* Each column's options against its type (rsql_connector_def_t.check_columns). */
static rsql_err_t datagen_check_columns(const void *conf, const rsql_optset_t *set, int n,
                                        const char *const *names, const rsql_type_t *types,
                                        rsql_error_t *err)
{
    const rsql_datagen_conf_t *c = conf;
    (void)names;
    if (!c || c->n_cols != n) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "datagen: configuration does not match the table's columns");
    }
    for (int i = 0; i < n; i++) {
        rsql_err_t rc = rsql_datagen__check_column(&c->cols[i], types[i], set, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

const rsql_connector_def_t rsql_datagen_conn_def = {
    .name = "datagen",
    .description =
        "Generates rows, as Flink's datagen does: random values or sequences per column, at a "
        "given rate, bounded by `number-of-rows` or by a sequence's end. Handy to try a pipeline "
        "without any input.",
    .caps = RSQL_CAP_SOURCE,
    .opts = datagen_opts,
    .formats = NULL,
    .finalize = datagen_finalize,
    .conf_size = sizeof(rsql_datagen_conf_t),
    .configure = datagen_configure,
    .bounded = datagen_bounded,
    .source = &rsql_datagen_source_ops,
    .check_columns = datagen_check_columns,
};
