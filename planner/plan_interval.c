/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_interval: the binding of arithmetic with day-time intervals (RSQL_TYPE_INTERVAL,
 * milliseconds), Flink's rules:
 *
 *   TIMESTAMP(3) + INTERVAL, INTERVAL + TIMESTAMP(3), TIMESTAMP(3) - INTERVAL  TIMESTAMP(3)
 *   INTERVAL + INTERVAL, INTERVAL - INTERVAL                                   INTERVAL
 *   INTERVAL * integer, integer * INTERVAL, INTERVAL / integer                 INTERVAL
 *
 * and the refusals, each with what to write instead: TIMESTAMP - TIMESTAMP (TIMESTAMPDIFF), a
 * DATE with an INTERVAL (CAST the DATE to TIMESTAMP(3)), anything else. The node is a plain
 * RSQL_BX_BINARY: every operand is an int64 (v.i, v.ts), so the evaluator's checked integer
 * arithmetic computes it, overflow an error; a NULL operand gives NULL.
 */
#include "config.h"
#include "planner/plan_int.h"

/* See plan_int.h. */
bool rsql_plan__interval_arith(const rsql_bexpr_t *x, const rsql_bexpr_t *y, rsql_op_t op)
{
    if (x->type == RSQL_TYPE_INTERVAL || y->type == RSQL_TYPE_INTERVAL) {
        return true;
    }
    return op == RSQL_OP_SUB && x->type == RSQL_TYPE_TIMESTAMP && y->type == RSQL_TYPE_TIMESTAMP;
}

static rsql_bexpr_t *refuse(const rsql_bexpr_t *at, const char *op, const rsql_bexpr_t *x,
                            const rsql_bexpr_t *y, const char *hint, rsql_error_t *err)
{
    rsql_error_set(err, RSQL_ERR_TYPE, at->pos, "cannot compute %s %s %s%s%s",
                   rsql_type_name(x->type), op, rsql_type_name(y->type), hint ? ": " : "",
                   hint ? hint : "");
    return NULL;
}

/* See plan_int.h. */
rsql_bexpr_t *rsql_plan__bind_interval_arith(rsql_bind_t *b, const rsql_expr_t *e,
                                             rsql_bexpr_t *x, rsql_bexpr_t *y, rsql_error_t *err)
{
    rsql_type_t xt = x->type, yt = y->type, t;
    bool xi = xt == RSQL_TYPE_INTERVAL, yi = yt == RSQL_TYPE_INTERVAL;
    bool xn = xt == RSQL_TYPE_NULL, yn = yt == RSQL_TYPE_NULL;
    const char *op = rsql_plan__op_text(e->op);
    rsql_bexpr_t whole = {.pos = e->pos};
    switch (e->op) {
    case RSQL_OP_ADD:
    case RSQL_OP_SUB:
        if (xt == RSQL_TYPE_TIMESTAMP && yt == RSQL_TYPE_TIMESTAMP) {
            return refuse(&whole, op, x, y,
                          "use TIMESTAMPDIFF(unit, start, end) for the time between two "
                          "timestamps",
                          err);
        }
        if ((xt == RSQL_TYPE_TIMESTAMP && (yi || yn)) ||
            (e->op == RSQL_OP_ADD && yt == RSQL_TYPE_TIMESTAMP && (xi || xn))) {
            t = RSQL_TYPE_TIMESTAMP;
        } else if ((xi || xn) && (yi || yn)) {
            t = RSQL_TYPE_INTERVAL;
        } else if (xt == RSQL_TYPE_DATE || yt == RSQL_TYPE_DATE) {
            return refuse(&whole, op, x, y, "CAST the DATE to TIMESTAMP(3) first", err);
        } else if (e->op == RSQL_OP_SUB && xi && yt == RSQL_TYPE_TIMESTAMP) {
            return refuse(&whole, op, x, y, "write TIMESTAMP - INTERVAL", err);
        } else {
            return refuse(&whole, op, x, y,
                          "an INTERVAL adds to a TIMESTAMP(3) or another INTERVAL", err);
        }
        break;
    case RSQL_OP_MUL:
        if ((xi && (rsql_type_is_integer(yt) || yn)) ||
            (yi && (rsql_type_is_integer(xt) || xn))) {
            t = RSQL_TYPE_INTERVAL;
            break;
        }
        return refuse(&whole, op, x, y, "an INTERVAL multiplies by an INT or BIGINT", err);
    case RSQL_OP_DIV:
        if (xi && (rsql_type_is_integer(yt) || yn)) {
            if (y->kind == RSQL_BX_CONST && !y->value.is_null && y->value.v.i == 0 &&
                rsql_type_is_integer(yt)) {
                rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos, "division by zero");
                return NULL;
            }
            t = RSQL_TYPE_INTERVAL;
            break;
        }
        return refuse(&whole, op, x, y, "an INTERVAL divides by an INT or BIGINT", err);
    default:
        return refuse(&whole, op, x, y, "an INTERVAL takes +, -, * and / only", err);
    }
    rsql_bexpr_t *n = rsql_plan__node(b->arena, RSQL_BX_BINARY, t, e->pos, 2);
    if (!n) {
        rsql_error_nomem(err);
        return NULL;
    }
    n->op = e->op;
    n->args[0] = x;
    n->args[1] = y;
    return n;
}
