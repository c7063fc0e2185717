/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_key: the state key of a row for a keyed operator (a group aggregation's GROUP BY, a
 * deduplication's PARTITION BY, and the prefetch of a batch's keys, which must make the same
 * bytes): the form byte 1, then the values of the key's expressions, packed
 * (rsql_value_pack).
 * @locality the transform thread
 */
#ifndef RSQL_RT_KEY_H
#define RSQL_RT_KEY_H

#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "planner/rsql_plan.h"

/* The key of row into key (reset first); vals, when not NULL, get the n values copied into
   arena. An error: an expression's, or no memory. */
static inline rsql_err_t rsql_rt_key_make(rsql_buf_t *key, rsql_bexpr_t *const *exprs, int n,
                                          const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                                          rsql_value_t *vals, rsql_arena_t *arena,
                                          rsql_error_t *err)
{
    rsql_buf_reset(key);
    rsql_buf_putc(key, 1); /* the form of the key (never empty) */
    for (int k = 0; k < n; k++) {
        rsql_value_t v;
        rsql_err_t rc = rsql_expr_eval(exprs[k], row, ctx, &v, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (vals && rsql_value_copy(&v, arena, &vals[k]) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
        rsql_value_pack(&v, 1, key);
    }
    return key->oom ? rsql_error_nomem(err) : RSQL_OK;
}

#endif
