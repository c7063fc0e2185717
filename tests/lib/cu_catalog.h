/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper shared by the planner and evaluator unit tests: store a table
 * in a catalog from its CREATE TABLE text (parsed with sql/, bypassing the
 * session and the options engine), so a test can set up tables in an
 * in-memory catalog in one line each. Header-only; include it once per test
 * binary, after the catalog and sql headers.
 */
#ifndef RSQL_CU_CATALOG_H
#define RSQL_CU_CATALOG_H

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog/rsql_catalog.h"
#include "sql/rsql_sql.h"

/*
** Parse the CREATE TABLE statement sql (at most 16 columns and 16 options)
** and store it in cat. 0 on success; -1 on failure, with the reason on
** stderr. Nothing is kept: the catalog copies what it stores.
*/
static int cu_catalog_create(rsql_catalog_t *cat, const char *sql)
{
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    if (!p || rsql_parse_next(p, &st, &err) != RSQL_OK || !st || st->n_columns > 16 ||
        st->n_options > 16) {
        fprintf(stderr, "create: %s\n", err.code ? err.msg : "not a small CREATE TABLE");
        rsql_parse_destroy(p);
        return -1;
    }
    rsql_col_t cols[16];
    memset(cols, 0, sizeof cols);
    rsql_kv_t opts[16];
    memset(cols, 0, sizeof cols); /* pk_ord and whatever is added later: 0 */
    rsql_table_def_t def = {(char *)st->name.name, NULL, st->n_columns, cols, st->n_options,
                            opts, 0};
    for (int i = 0; i < st->n_columns; i++) {
        cols[i].name = (char *)st->columns[i].name.name;
        cols[i].type = st->columns[i].type.type;
        cols[i].not_null = st->columns[i].not_null;
        cols[i].desc = st->columns[i].type.desc;
        cols[i].metadata = st->columns[i].metadata;
        cols[i].meta_from = (char *)st->columns[i].meta_from;
        cols[i].is_virtual = st->columns[i].is_virtual;
    }
    for (int k = 0; k < st->n_watermarks; k++) { /* WATERMARK FOR col AS expr */
        for (int i = 0; i < st->n_columns; i++) {
            if (strcasecmp(cols[i].name, st->watermarks[k].column.name) == 0) {
                cols[i].watermark = (char *)st->watermarks[k].text;
            }
        }
    }
    for (int k = 0; k < st->n_pkey; k++) { /* PRIMARY KEY (...) NOT ENFORCED */
        for (int i = 0; i < st->n_columns; i++) {
            if (strcasecmp(cols[i].name, st->pkey[k].name) == 0) {
                cols[i].pk_ord = k + 1;
            }
        }
    }
    for (int i = 0; i < st->n_options; i++) {
        opts[i].key = (char *)st->options[i].key;
        opts[i].value = (char *)st->options[i].value;
        if (strcmp(opts[i].key, "connector") == 0) {
            def.connector = opts[i].value;
        }
    }
    rsql_err_t rc = rsql_catalog_table_create(cat, &def, false, &err);
    if (rc) {
        fprintf(stderr, "create: %s\n", err.msg);
    }
    rsql_parse_destroy(p);
    return rc ? -1 : 0;
}

#endif
