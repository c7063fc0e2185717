/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper shared by the connector unit tests: a list that collects what a sink's
 * stored_positions reports (an rsql_position_cb), up to CU_POSL_MAX positions, the
 * partition names copied (cu_posl_free). Header-only; include it once per test binary,
 * after the connector headers.
 */
#ifndef RSQL_CU_POSITIONS_H
#define RSQL_CU_POSITIONS_H

#include <CUnit/CUnit.h>

#include "base/rsql_mem.h"

#define CU_POSL_MAX 4096

typedef struct posl {
    int n;
    char *parts[CU_POSL_MAX];
    int64_t offs[CU_POSL_MAX];
    char *keys[CU_POSL_MAX]; /* NULL: none */
} posl_t;

static rsql_err_t posl_add(void *opaque, const char *partition, int64_t offset, const char *key)
{
    posl_t *l = opaque;
    CU_ASSERT_FATAL(l->n < CU_POSL_MAX);
    l->parts[l->n] = rsql_strdup(partition);
    l->keys[l->n] = key ? rsql_strdup(key) : NULL;
    l->offs[l->n++] = offset;
    return RSQL_OK;
}

static void posl_free(posl_t *l)
{
    for (int i = 0; i < l->n; i++) {
        rsql_free(l->parts[i]);
        rsql_free(l->keys[i]);
    }
    l->n = 0;
}

#endif
