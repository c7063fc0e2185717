/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper shared by the WITH-option tests (test_opts.c, test_opts_ref.c,
 * test_pgcdc_opts.c): options written as key, value, ..., NULL and validated with key i at
 * offset 100*i and its value at 100*i + 50, so that a test checks where an error points; and
 * the check of a failed validation's code, message and offset. Header-only; each helper is
 * marked unused: a test binary takes what it needs.
 */
#ifndef RSQL_CU_OPTS_H
#define RSQL_CU_OPTS_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "connectors/rsql_connector.h"

#define CU_OPTS_UNUSED __attribute__((unused))
#define CU_OPTS_MAX 64 /* options one call validates at most */

/*
** Validate kv (key, value, ..., NULL) for a table of columns cols with flags
** (rsql_connector_validate_ex); the table's connector into *conn when conn is not NULL.
*/
static CU_OPTS_UNUSED rsql_optset_t *cu_opts_validate(const char *const *kv,
                                                      const char *const *cols, int n_cols,
                                                      unsigned flags,
                                                      const rsql_connector_def_t **conn,
                                                      rsql_error_t *err)
{
    rsql_opt_kv_t kvs[CU_OPTS_MAX];
    int n = 0;
    for (; kv[2 * n]; n++) {
        CU_ASSERT_FATAL(n < CU_OPTS_MAX);
        kvs[n].key = kv[2 * n];
        kvs[n].value = kv[2 * n + 1];
        kvs[n].key_pos = (rsql_pos_t){(uint32_t)(100 * n), (uint32_t)strlen(kv[2 * n])};
        kvs[n].value_pos = (rsql_pos_t){(uint32_t)(100 * n + 50), 1};
    }
    rsql_error_clear(err);
    return rsql_connector_validate_ex(kvs, n, cols, n_cols, (rsql_pos_t){7, 4}, flags, conn, err);
}

/* A validation that gave set and err failed with code, msg and offset off (set is freed). */
static CU_OPTS_UNUSED void cu_opts_failed(rsql_optset_t *set, const rsql_error_t *err,
                                          rsql_err_t code, const char *msg, uint32_t off)
{
    CU_ASSERT_PTR_NULL(set);
    rsql_optset_destroy(set);
    CU_ASSERT_EQUAL(err->code, code);
    CU_ASSERT_STRING_EQUAL(err->msg, msg);
    CU_ASSERT_EQUAL(err->pos.off, off);
    if (strcmp(err->msg, msg) != 0 || err->pos.off != off) {
        fprintf(stderr, "\n  got:  %u '%s'\n  want: %u '%s'\n", err->pos.off, err->msg, off, msg);
    }
}

#endif
