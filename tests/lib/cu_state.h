/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper: look one stored position or one job run up in a catalog, through the lists
 * the engine and the session read (rsql_catalog_offset_list, rsql_catalog_run_list).
 * Header-only; include after catalog/rsql_catalog.h.
 */
#ifndef RSQL_CU_STATE_H
#define RSQL_CU_STATE_H

#include <string.h>

#include "base/rsql_mem.h"

/* The position of (pipeline, partition): *value a heap copy (rsql_free), NULL when none. */
static inline rsql_err_t cu_offset_get(rsql_catalog_t *cat, const char *pipeline,
                                       const char *partition, char **value, rsql_error_t *err)
{
    rsql_kv_t *kv = NULL;
    int n = 0;
    *value = NULL;
    rsql_err_t rc = rsql_catalog_offset_list(cat, pipeline, &kv, &n, err);
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        if (strcmp(kv[i].key, partition) == 0) {
            *value = rsql_strdup(kv[i].value);
        }
    }
    rsql_kv_array_free(kv, n);
    return rc;
}

/* The run run_id: *out (rsql_job_run_free), NULL when there is none. */
static inline rsql_err_t cu_run_get(rsql_catalog_t *cat, int64_t run_id, rsql_job_run_t **out,
                                    rsql_error_t *err)
{
    rsql_job_run_t **runs = NULL;
    int n = 0;
    *out = NULL;
    rsql_err_t rc = rsql_catalog_run_list(cat, NULL, 0, &runs, &n, err);
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        if (runs[i]->id == run_id) {
            *out = runs[i];
            runs[i] = NULL;
        }
    }
    rsql_job_run_array_free(runs, n);
    return rc;
}

#endif
