/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_key: the state key of a row for a keyed operator (a group aggregation's GROUP BY, a
 * deduplication's PARTITION BY, and the prefetch of a batch's keys, which must make the same
 * bytes): the form byte 1, then the values of the key's expressions, packed
 * (rsql_value_pack); a window's key is its own head and the same values.
 * @locality the transform thread
 */
#ifndef RSQL_RT_KEY_H
#define RSQL_RT_KEY_H

#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "planner/rsql_plan.h"

/*
** The values of the n expressions over row appended to key, packed (rsql_value_pack, eight at
** a time: one append for most keys); vals, when not NULL, get them copied into arena. An
** error: an expression's, or no memory. Also a window's key after its own head (rt_window.c).
*/
static inline rsql_err_t rsql_rt_key_append(rsql_buf_t *key, rsql_bexpr_t *const *exprs, int n,
                                            const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                                            rsql_value_t *vals, rsql_arena_t *arena,
                                            rsql_error_t *err)
{
    rsql_value_t v[8];
    int nv = 0;
    for (int k = 0; k < n; k++) {
        rsql_err_t rc = rsql_expr_eval_row(exprs[k], row, ctx, &v[nv], err);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (vals && rsql_value_copy(&v[nv], arena, &vals[k]) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
        if (++nv == (int)(sizeof v / sizeof v[0]) || k == n - 1) {
            rsql_value_pack(v, nv, key);
            nv = 0;
        }
    }
    return key->oom ? rsql_error_nomem(err) : RSQL_OK;
}

/* The key of row into key (reset first): the form byte, then rsql_rt_key_append's values. */
static inline rsql_err_t rsql_rt_key_make(rsql_buf_t *key, rsql_bexpr_t *const *exprs, int n,
                                          const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                                          rsql_value_t *vals, rsql_arena_t *arena,
                                          rsql_error_t *err)
{
    rsql_buf_reset(key);
    rsql_buf_putc(key, 1); /* the form of the key (never empty) */
    return rsql_rt_key_append(key, exprs, n, row, ctx, vals, arena, err);
}

#endif
