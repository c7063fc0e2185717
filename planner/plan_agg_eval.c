/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_agg_eval: a group's accumulators and the aggregate calls' results from them.
 *
 * The accumulators are values, so the state keeps them packed (rsql_value_pack) like any row:
 * first the group's row count (BIGINT), then per call:
 *   COUNT                  BIGINT: the rows counted
 *   SUM                    the argument's type: the sum of the non-NULL values (NULL: none yet);
 *                          BIGINT: their count (a retraction of the last one makes it NULL again)
 *   AVG                    BIGINT (an integer argument) or DOUBLE: the sum; BIGINT: the count
 *   MIN, MAX, FIRST_VALUE, LAST_VALUE
 *                          the argument's type: the value kept (NULL: no non-NULL value yet)
 * A SUM that leaves its type's range is an evaluation error ("integer overflow"), as + is.
 * A DISTINCT call takes a value only the first time its group sees it: the caller keeps the
 * values each group took (the engine: in the state, beside the accumulators).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "base/rsql_value.h"

#include <string.h>

/* See plan_int.h. */
rsql_err_t rsql_plan__agg_layout(rsql_plan_t *plan, rsql_plan_agg_t *a, rsql_error_t *err)
{
    int n = 1;
    for (int i = 0; i < a->n_calls; i++) {
        a->calls[i].acc = n;
        n += a->calls[i].fn == RSQL_AGG_AVG || a->calls[i].fn == RSQL_AGG_SUM ? 2 : 1;
    }
    a->n_acc = n;
    a->acc_types = rsql_arena_alloc(plan->arena, sizeof *a->acc_types * (size_t)n);
    a->acc_descs = rsql_arena_alloc(plan->arena, sizeof *a->acc_descs * (size_t)n);
    if (!a->acc_types || !a->acc_descs) {
        return rsql_error_nomem(err);
    }
    a->acc_types[0] = RSQL_TYPE_BIGINT;
    a->acc_descs[0] = NULL;
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        rsql_type_t t = c->type;
        const rsql_tdesc_t *d = c->desc;
        if (c->fn == RSQL_AGG_AVG || c->fn == RSQL_AGG_SUM) {
            if (c->fn == RSQL_AGG_AVG) {
                t = c->type == RSQL_TYPE_DOUBLE ? RSQL_TYPE_DOUBLE : RSQL_TYPE_BIGINT;
            }
            a->acc_types[c->acc + 1] = RSQL_TYPE_BIGINT;
            a->acc_descs[c->acc + 1] = NULL;
            d = NULL;
        }
        a->acc_types[c->acc] = t;
        a->acc_descs[c->acc] = d;
    }
    return RSQL_OK;
}

/* See rsql_plan.h. */
void rsql_plan_agg_init(const rsql_plan_agg_t *a, rsql_value_t *acc)
{
    for (int k = 0; k < a->n_acc; k++) {
        acc[k] = (rsql_value_t){.type = a->acc_types[k], .is_null = true};
    }
    acc[0].is_null = false; /* the row count */
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        if (c->fn == RSQL_AGG_COUNT) {
            acc[c->acc].is_null = false;
        } else if (c->fn == RSQL_AGG_AVG || c->fn == RSQL_AGG_SUM) {
            acc[c->acc + 1].is_null = false;
        }
    }
}

static rsql_err_t overflow(const rsql_plan_aggcall_t *c, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_EVAL, c->pos, "integer overflow in %s", c->text);
}

/* *sum += v, both of type t (INT, BIGINT or DOUBLE; sum not NULL). */
static rsql_err_t add_to(const rsql_plan_aggcall_t *c, rsql_value_t *sum, const rsql_value_t *v,
                         rsql_error_t *err)
{
    if (sum->type == RSQL_TYPE_DOUBLE) {
        sum->v.d += v->type == RSQL_TYPE_DOUBLE ? v->v.d : (double)v->v.i;
        return RSQL_OK;
    }
    int64_t r;
    if (__builtin_add_overflow(sum->v.i, v->v.i, &r) ||
        (sum->type == RSQL_TYPE_INT && (r > INT32_MAX || r < INT32_MIN))) {
        return overflow(c, err);
    }
    sum->v.i = r;
    return RSQL_OK;
}

/* *slot = a copy of v in arena. */
static rsql_err_t keep(rsql_value_t *slot, const rsql_value_t *v, rsql_arena_t *arena,
                       rsql_error_t *err)
{
    return rsql_value_copy(v, arena, slot) == RSQL_OK ? RSQL_OK : rsql_error_nomem(err);
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_agg_add(const rsql_plan_agg_t *a, rsql_value_t *acc,
                             const rsql_value_t *row, rsql_eval_ctx_t *ctx, rsql_arena_t *arena,
                             rsql_agg_seen_cb seen, void *opaque, rsql_error_t *err)
{
    acc[0].v.i++;
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        rsql_value_t *s = &acc[c->acc];
        rsql_value_t v = {.type = RSQL_TYPE_NULL, .is_null = false};
        if (c->arg) {
            rsql_err_t rc = rsql_expr_eval(c->arg, row, ctx, &v, err);
            if (rc != RSQL_OK) {
                return rc;
            }
            if (v.is_null) {
                continue; /* every aggregate skips NULLs */
            }
            bool again = false;
            if (c->distinct && (rc = seen(opaque, i, &v, &again, err)) != RSQL_OK) {
                return rc;
            }
            if (again) {
                continue; /* f(DISTINCT x): a value the group took before */
            }
        }
        rsql_err_t rc = RSQL_OK;
        switch (c->fn) {
        case RSQL_AGG_COUNT:
            s->v.i++;
            break;
        case RSQL_AGG_SUM:
            if (s->is_null) {
                *s = v;
                s->type = c->type;
            } else {
                rc = add_to(c, s, &v, err);
            }
            acc[c->acc + 1].v.i += rc == RSQL_OK;
            break;
        case RSQL_AGG_AVG:
            if (s->is_null) {
                s->is_null = false;
                if (s->type == RSQL_TYPE_DOUBLE) {
                    s->v.d = 0.0;
                } else {
                    s->v.i = 0;
                }
            }
            if ((rc = add_to(c, s, &v, err)) == RSQL_OK) {
                acc[c->acc + 1].v.i++;
            }
            break;
        case RSQL_AGG_MIN:
        case RSQL_AGG_MAX: {
            int cmp = s->is_null ? 0 : rsql_plan__compare(&v, s);
            if (s->is_null || (c->fn == RSQL_AGG_MIN ? cmp < 0 : cmp > 0)) {
                rc = keep(s, &v, arena, err);
            }
            break;
        }
        case RSQL_AGG_FIRST_VALUE:
            if (s->is_null) {
                rc = keep(s, &v, arena, err);
            }
            break;
        case RSQL_AGG_LAST_VALUE:
            rc = keep(s, &v, arena, err);
            break;
        }
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/* See rsql_plan.h. */
bool rsql_plan_agg_retractable(const rsql_plan_agg_t *a, const rsql_plan_aggcall_t **why)
{
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        if (c->distinct || (c->fn != RSQL_AGG_COUNT && c->fn != RSQL_AGG_SUM &&
                            c->fn != RSQL_AGG_AVG)) {
            *why = c;
            return false;
        }
    }
    return true;
}

/* See rsql_plan.h. */
/* Non-NULL value v out of call c's accumulators (COUNT, SUM, AVG): the inverse of adding it. */
static rsql_err_t take_out(const rsql_plan_aggcall_t *c, rsql_value_t *acc, const rsql_value_t *v,
                           rsql_error_t *err)
{
    rsql_value_t *s = &acc[c->acc];
    if (c->fn == RSQL_AGG_COUNT) {
        s->v.i--;
        return RSQL_OK;
    }
    /* SUM and AVG: the value taken out of the sum and the count */
    rsql_value_t neg = *v;
    if (neg.type == RSQL_TYPE_DOUBLE) {
        neg.v.d = -neg.v.d;
    } else if (neg.v.i == INT64_MIN) {
        return overflow(c, err);
    } else {
        neg.v.i = -neg.v.i;
    }
    if (s->is_null) { /* a row it never took: nothing to take out */
        return RSQL_OK;
    }
    rsql_err_t rc = add_to(c, s, &neg, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (--acc[c->acc + 1].v.i <= 0) {
        acc[c->acc + 1].v.i = 0;
        s->is_null = c->fn == RSQL_AGG_SUM; /* AVG keeps 0 with a count of 0: NULL */
        if (c->fn == RSQL_AGG_AVG && s->type == RSQL_TYPE_DOUBLE) {
            s->v.d = 0.0;
        } else if (c->fn == RSQL_AGG_AVG) {
            s->v.i = 0;
        }
    }
    return RSQL_OK;
}

rsql_err_t rsql_plan_agg_retract(const rsql_plan_agg_t *a, rsql_value_t *acc,
                                 const rsql_value_t *row, rsql_eval_ctx_t *ctx, rsql_error_t *err)
{
    acc[0].v.i--;
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        rsql_value_t v = {.type = RSQL_TYPE_NULL, .is_null = false};
        if (c->arg) {
            rsql_err_t rc = rsql_expr_eval(c->arg, row, ctx, &v, err);
            if (rc != RSQL_OK) {
                return rc;
            }
            if (v.is_null) {
                continue;
            }
        }
        rsql_err_t rc = take_out(c, acc, &v, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_agg_take_back(const rsql_plan_agg_t *a, rsql_value_t *acc, int call,
                                   const rsql_value_t *v, rsql_error_t *err)
{
    return take_out(&a->calls[call], acc, v, err);
}

/* See rsql_plan.h. */
void rsql_plan_agg_results(const rsql_plan_agg_t *a, const rsql_value_t *acc, rsql_value_t *out)
{
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        const rsql_value_t *s = &acc[c->acc];
        if (c->fn == RSQL_AGG_SUM) {
            out[i] = *s;
            out[i].type = c->type;
            out[i].is_null = s->is_null || acc[c->acc + 1].v.i == 0;
            continue;
        }
        if (c->fn != RSQL_AGG_AVG) {
            out[i] = *s;
            out[i].type = c->type;
            continue;
        }
        int64_t n = acc[c->acc + 1].v.i;
        out[i] = (rsql_value_t){.type = c->type, .is_null = s->is_null || n == 0};
        if (out[i].is_null) {
            continue;
        }
        if (c->type == RSQL_TYPE_DOUBLE) {
            out[i].v.d = s->v.d / (double)n;
        } else {
            out[i].v.i = s->v.i / n; /* within the argument's type: an average of its values */
        }
    }
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_agg_merge(const rsql_plan_agg_t *a, rsql_value_t *acc,
                               const rsql_value_t *from, rsql_arena_t *arena, rsql_error_t *err)
{
    acc[0].v.i += from[0].v.i;
    for (int i = 0; i < a->n_calls; i++) {
        const rsql_plan_aggcall_t *c = &a->calls[i];
        rsql_value_t *s = &acc[c->acc];
        const rsql_value_t *f = &from[c->acc];
        rsql_err_t rc = RSQL_OK;
        switch (c->fn) {
        case RSQL_AGG_COUNT:
            s->v.i += f->v.i;
            break;
        case RSQL_AGG_SUM:
        case RSQL_AGG_AVG:
            if (!f->is_null) {
                rc = s->is_null ? keep(s, f, arena, err) : add_to(c, s, f, err);
            }
            acc[c->acc + 1].v.i += from[c->acc + 1].v.i;
            break;
        case RSQL_AGG_MIN:
        case RSQL_AGG_MAX:
            if (!f->is_null &&
                (s->is_null || (c->fn == RSQL_AGG_MIN ? rsql_plan__compare(f, s) < 0
                                                      : rsql_plan__compare(f, s) > 0))) {
                rc = keep(s, f, arena, err);
            }
            break;
        case RSQL_AGG_FIRST_VALUE:
            if (s->is_null && !f->is_null) {
                rc = keep(s, f, arena, err);
            }
            break;
        case RSQL_AGG_LAST_VALUE:
            if (!f->is_null) {
                rc = keep(s, f, arena, err);
            }
            break;
        }
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}
