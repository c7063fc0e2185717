/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper: an expression evaluated both ways, by the tree walk (rsql_expr_eval) and by its
 * flat program (rsql_prog_run, planner/plan_prog.c), must give the same outcome: the same
 * code, message and place for an error, else the same type, NULL-ness and value (compared as
 * rsql_value_format's text, and a DOUBLE bit for bit). Header-only; used by cu_eval.h (every
 * expression of test_eval and test_funcs) and test_eval's own table of expressions.
 */
#ifndef RSQL_CU_FLAT_H
#define RSQL_CU_FLAT_H

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <CUnit/CUnit.h>

#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "planner/rsql_plan.h"

/* Whether two outcomes are the same; says how they differ on stderr when not. */
__attribute__((unused)) static bool cu_flat_same(const char *expr, rsql_err_t rc1,
                                                 const rsql_value_t *v1, const rsql_error_t *e1,
                                                 rsql_err_t rc2, const rsql_value_t *v2,
                                                 const rsql_error_t *e2)
{
    if (rc1 != rc2) {
        fprintf(stderr, "\n%s: tree rc %d (%s), flat rc %d (%s)\n", expr, rc1,
                rc1 ? e1->msg : "", rc2, rc2 ? e2->msg : "");
        return false;
    }
    if (rc1) {
        bool same = e1->code == e2->code && e1->pos.off == e2->pos.off &&
                    e1->pos.len == e2->pos.len && strcmp(e1->msg, e2->msg) == 0;
        if (!same) {
            fprintf(stderr, "\n%s: tree error '%s' at %u+%u, flat '%s' at %u+%u\n", expr,
                    e1->msg, (unsigned)e1->pos.off, (unsigned)e1->pos.len, e2->msg,
                    (unsigned)e2->pos.off, (unsigned)e2->pos.len);
        }
        return same;
    }
    if (v1->type != v2->type || v1->is_null != v2->is_null) {
        fprintf(stderr, "\n%s: tree type %d null %d, flat type %d null %d\n", expr, v1->type,
                v1->is_null, v2->type, v2->is_null);
        return false;
    }
    if (v1->is_null) {
        return true;
    }
    if (v1->type == RSQL_TYPE_DOUBLE) {
        if (memcmp(&v1->v.d, &v2->v.d, sizeof(double)) != 0) {
            fprintf(stderr, "\n%s: tree %.17g, flat %.17g\n", expr, v1->v.d, v2->v.d);
            return false;
        }
        return true;
    }
    rsql_buf_t b1, b2;
    rsql_buf_init(&b1);
    rsql_buf_init(&b2);
    rsql_value_format(v1, &b1);
    rsql_value_format(v2, &b2);
    bool same = b1.len == b2.len && (b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0);
    if (!same) {
        fprintf(stderr, "\n%s: tree '%.*s', flat '%.*s'\n", expr, (int)b1.len,
                b1.data ? b1.data : "", (int)b2.len, b2.data ? b2.data : "");
    }
    rsql_buf_deinit(&b1);
    rsql_buf_deinit(&b2);
    return same;
}

/*
** Run the flat program of plan's first output over in_row and check it against the tree walk's
** outcome (rc, *v, *err). Expressions that call UUID() differ from call to call: skipped.
*/
__attribute__((unused)) static void cu_flat_check(const char *expr, const rsql_plan_t *plan,
                                                  const rsql_value_t *in_row,
                                                  rsql_eval_ctx_t *ctx, rsql_err_t rc,
                                                  const rsql_value_t *v, const rsql_error_t *err)
{
    if (strcasestr(expr, "UUID")) {
        return;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan->output_progs);
    const rsql_prog_t *p = plan->output_progs[0];
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    rsql_value_t w;
    rsql_error_t e2;
    rsql_error_clear(&e2);
    rsql_err_t rc2 = rsql_prog_run(p, in_row, ctx, &w, &e2);
    CU_ASSERT_TRUE(cu_flat_same(expr, rc, v, err, rc2, &w, &e2));
}

#endif
