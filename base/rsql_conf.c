/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Typed configuration (see rsql_conf.h): writes each option row's effective
 * value at the row's field in its owner's config struct.
 */
#include "config.h"
#include "base/rsql_conf.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static rsql_err_t bad_field(const rsql_opt_def_t *d, const char *why, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                          "option '%s': cannot fill its configuration field (%s)", d->name, why);
}

/* Write the value text v of row d at p. */
static rsql_err_t put(void *p, const rsql_opt_def_t *d, const char *v, rsql_error_t *err)
{
    int64_t i = 0;
    double x = 0;
    bool b = false;
    rsql_err_t rc = RSQL_OK;
    switch (d->type) {
    case RSQL_OPT_STR:
    case RSQL_OPT_CSV:
        memcpy(p, &v, sizeof v);
        return RSQL_OK;
    case RSQL_OPT_INT: rc = rsql_opt_parse_int(v, &i); break;
    case RSQL_OPT_SIZE: rc = rsql_opt_parse_size(v, &i); break;
    case RSQL_OPT_DURATION: rc = rsql_opt_parse_duration(v, &i); break;
    case RSQL_OPT_BOOL:
        if (rsql_opt_parse_bool(v, &b) != RSQL_OK) {
            return bad_field(d, "not a boolean", err);
        }
        memcpy(p, &b, sizeof b);
        return RSQL_OK;
    case RSQL_OPT_DOUBLE: rc = rsql_opt_parse_double(v, &x); goto dbl;
    case RSQL_OPT_RATE: rc = rsql_opt_parse_rate(v, &x); goto dbl;
    case RSQL_OPT_ENUM: {
        int k = 0;
        for (const char *const *e = d->enum_vals; e && *e; e++, k++) {
            if (strcasecmp(*e, v) == 0) {
                memcpy(p, &k, sizeof k);
                return RSQL_OK;
            }
        }
        return bad_field(d, "not one of its values", err);
    }
    }
    if (rc != RSQL_OK) {
        return bad_field(d, "not a number", err);
    }
    memcpy(p, &i, sizeof i);
    return RSQL_OK;
dbl:
    if (rc != RSQL_OK) {
        return bad_field(d, "not a number", err);
    }
    memcpy(p, &x, sizeof x);
    return RSQL_OK;
}

static size_t field_size(rsql_opt_type_t t)
{
    switch (t) {
    case RSQL_OPT_STR:
    case RSQL_OPT_CSV: return sizeof(const char *);
    case RSQL_OPT_BOOL: return sizeof(bool);
    case RSQL_OPT_DOUBLE:
    case RSQL_OPT_RATE: return sizeof(double);
    case RSQL_OPT_ENUM: return sizeof(int);
    default: return sizeof(int64_t);
    }
}

/* See rsql_conf.h. */
rsql_err_t rsql_conf_fill(void *conf, size_t size, const rsql_opt_def_t *table,
                          const rsql_optset_t *set, rsql_error_t *err)
{
    for (const rsql_opt_def_t *d = table; d && d->name; d++) {
        if (!d->field && !d->given_field) {
            continue;
        }
        if (strchr(d->name, '#')) {
            return bad_field(d, "a '#' row has no single field", err);
        }
        int gi = rsql_optset_find(set, d->name);
        /* the set may hold the key under this row only if the row is in its tables */
        bool given = gi >= 0 && rsql_optset_def_at(set, gi) == d;
        if (d->given_field) {
            if (d->given_field - 1 + sizeof(bool) > size) {
                return bad_field(d, "given-field outside the struct", err);
            }
            memcpy((char *)conf + d->given_field - 1, &given, sizeof given);
        }
        if (!d->field) {
            continue;
        }
        if (d->field - 1 + field_size(d->type) > size) {
            return bad_field(d, "field outside the struct", err);
        }
        const char *v = given ? rsql_optset_at(set, gi)->value : d->def;
        if (given && rsql_optset_pending_at(set, gi) && d->type != RSQL_OPT_STR &&
            d->type != RSQL_OPT_CSV) {
            v = d->def; /* an unresolved reference: not known yet (rsql_optset_new_ex) */
        }
        if (!v && d->type == RSQL_OPT_ENUM) {
            int none = -1;
            memcpy((char *)conf + d->field - 1, &none, sizeof none);
        } else if (v && put((char *)conf + d->field - 1, d, v, err) != RSQL_OK) {
            return RSQL_ERR_INTERNAL;
        }
    }
    return RSQL_OK;
}

/* See rsql_conf.h. */
void *rsql_conf_build(rsql_optset_t *set, int slot, size_t size, const rsql_opt_def_t *table,
                      rsql_error_t *err)
{
    rsql_arena_t *a = rsql_optset_arena(set);
    void *conf = a ? rsql_arena_alloc(a, size ? size : 1) : NULL;
    if (!conf) {
        rsql_error_nomem(err);
        return NULL;
    }
    if (rsql_conf_fill(conf, size, table, set, err) != RSQL_OK) {
        return NULL;
    }
    rsql_optset_set_conf(set, slot, conf);
    return conf;
}
