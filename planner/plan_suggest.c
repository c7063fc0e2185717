/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Errors for names that do not resolve, each with the nearest known name
 * ("no such column: nmae (did you mean name?)"): columns of the table,
 * functions of the function table, tables of the catalog. An aggregate
 * function (COUNT, SUM, ...) is not a misspelling: it is not supported yet
 * (RSQL_ERR_UNSUPPORTED). The nearness measure is the options' one
 * (rsql_nearest_name, base/rsql_opts.h).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"

#include <strings.h>

/* " (did you mean X?)" for the nearest of names to key, or "" (into buf). */
static const char *hint(const char *key, const char *const *names, int n, char *buf,
                        size_t size)
{
    const char *near = rsql_nearest_name(key, names, n);
    if (!near) {
        return "";
    }
    snprintf(buf, size, " (did you mean %s?)", near);
    return buf;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__no_such_column(const rsql_table_def_t *t, const char *qualifier,
                                     const char *name, rsql_pos_t pos, rsql_error_t *err)
{
    enum { MAXC = 512 };
    const char *names[MAXC];
    int n = 0;
    for (int i = 0; t && i < t->n_columns && n < MAXC; i++) {
        names[n++] = t->columns[i].name;
    }
    char buf[160];
    const char *h = hint(name, names, n, buf, sizeof buf);
    if (qualifier) {
        return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos, "no such column: %s.%s%s",
                              qualifier, name, h);
    }
    return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos, "no such column: %s%s", name, h);
}

/* See plan_int.h. */
rsql_err_t rsql_plan__no_such_function(const char *name, rsql_pos_t pos, rsql_error_t *err)
{
    static const char *const aggregates[] = {"COUNT", "SUM", "AVG", "MIN", "MAX",
                                             "LISTAGG", "COLLECT", "FIRST_VALUE", "LAST_VALUE"};
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++) {
        if (strcasecmp(name, aggregates[i]) == 0) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, pos,
                                  "%s is an aggregate function: aggregate functions (and GROUP "
                                  "BY) are not supported yet",
                                  aggregates[i]);
        }
    }
    enum { MAXF = 256 };
    const char *names[MAXF];
    int n = 0;
    for (const char *f; n < MAXF && (f = rsql_plan__func_name(n)) != NULL;) {
        names[n++] = f;
    }
    char buf[160];
    return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos, "no such function: %s%s", name,
                          hint(name, names, n, buf, sizeof buf));
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_no_such_table(rsql_catalog_t *cat, const char *name, rsql_pos_t pos,
                                   rsql_error_t *err)
{
    char **names = NULL;
    int n = 0;
    rsql_error_t e;
    rsql_error_clear(&e);
    char buf[320];
    const char *h = "";
    if (cat && rsql_catalog_table_list(cat, &names, &n, &e) == RSQL_OK) {
        h = hint(name, (const char *const *)names, n, buf, sizeof buf);
    }
    rsql_err_t rc = rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos, "no such table: %s%s", name,
                                   h);
    rsql_strv_free(names, n);
    return rc;
}
