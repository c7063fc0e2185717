/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_agg: group aggregation (Flink's Group Aggregation): GROUP BY keys, the aggregate calls
 * COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE and LAST_VALUE (COUNT, SUM and AVG also of DISTINCT
 * values) in the select list and HAVING.
 *
 * The binder meets an aggregate call while it binds the select list or HAVING: the call is
 * collected (its argument bound over the source row) and stands in the tree as a placeholder.
 * Then every select item and HAVING is rewritten over the aggregate row (the key values, then
 * the calls' results): a subtree equal to a GROUP BY key reads that key's slot, a placeholder
 * its call's slot, and any other column of the source is an error (it is neither grouped nor
 * aggregated). The runtime (engine/rt_agg.c) computes the aggregate rows; HAVING filters them
 * and the outputs project them like any row.
 */
#include "config.h"
#include "planner/plan_int.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    rsql_agg_fn_t fn;
} agg_names[] = {
    {"COUNT", RSQL_AGG_COUNT},
    {"SUM", RSQL_AGG_SUM},
    {"AVG", RSQL_AGG_AVG},
    {"MIN", RSQL_AGG_MIN},
    {"MAX", RSQL_AGG_MAX},
    {"FIRST_VALUE", RSQL_AGG_FIRST_VALUE},
    {"LAST_VALUE", RSQL_AGG_LAST_VALUE},
};

/* Marks a placeholder: a COLUMN node whose column is the call's index. */
static const char placeholder_mark;

static int agg_index(const char *name)
{
    for (size_t i = 0; name && i < sizeof agg_names / sizeof agg_names[0]; i++) {
        if (strcasecmp(name, agg_names[i].name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* See plan_int.h. */
bool rsql_plan__is_agg(const char *name)
{
    return agg_index(name) >= 0;
}

/* See plan_int.h. */
rsql_plan_agg_t *rsql_plan__agg_new(rsql_plan_t *plan)
{
    rsql_plan_agg_t *a = rsql_arena_alloc(plan->arena, sizeof *a);
    if (a) {
        memset(a, 0, sizeof *a);
        a->pos = RSQL_NOPOS;
        a->emit_before = true;
    }
    return a;
}

/* Whether values a and b are the same constant. */
static bool same_value(const rsql_value_t *a, const rsql_value_t *b)
{
    if (a->is_null || b->is_null) {
        return a->is_null && b->is_null && a->type == b->type;
    }
    if (a->type != b->type || rsql_type_is_nested(a->type)) {
        return false;
    }
    return rsql_plan__compare(a, b) == 0;
}

/* Whether x and y compute the same value from any row: the same tree. */
static bool same_expr(const rsql_bexpr_t *x, const rsql_bexpr_t *y)
{
    if (x == y) {
        return true;
    }
    if (!x || !y || x->kind != y->kind || x->type != y->type || x->op != y->op ||
        x->negated != y->negated || x->has_operand != y->has_operand ||
        x->has_else != y->has_else || x->n_args != y->n_args || x->func != y->func ||
        x->aux != y->aux) {
        return false;
    }
    switch (x->kind) {
    case RSQL_BX_CONST:
        return same_value(&x->value, &y->value);
    case RSQL_BX_COLUMN:
    case RSQL_BX_COMPUTED:
    case RSQL_BX_FIELD:
        if (x->column != y->column) {
            return false;
        }
        break;
    default:
        break;
    }
    for (int i = 0; i < x->n_args; i++) {
        if (!same_expr(x->args[i], y->args[i])) {
            return false;
        }
    }
    return true;
}

/* The result type of fn over arg (NULL: COUNT(*)), or an error at the argument. */
static rsql_err_t result_type(rsql_agg_fn_t fn, const char *name, const rsql_bexpr_t *arg,
                              rsql_plan_aggcall_t *c, rsql_error_t *err)
{
    rsql_type_t t = arg ? arg->type : RSQL_TYPE_BIGINT;
    c->type = t;
    c->desc = arg ? arg->desc : NULL;
    switch (fn) {
    case RSQL_AGG_COUNT:
        c->type = RSQL_TYPE_BIGINT;
        c->desc = NULL;
        return RSQL_OK;
    case RSQL_AGG_SUM:
    case RSQL_AGG_AVG:
        if (t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT || t == RSQL_TYPE_DOUBLE) {
            return RSQL_OK;
        }
        if (t == RSQL_TYPE_DECIMAL) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, arg->pos,
                                  "%s of a DECIMAL is not supported yet: CAST the argument AS "
                                  "DOUBLE or BIGINT",
                                  name);
        }
        return rsql_error_set(err, RSQL_ERR_TYPE, arg->pos,
                              "%s takes a number (INT, BIGINT or DOUBLE), got %s", name,
                              rsql_type_name(t));
    case RSQL_AGG_MIN:
    case RSQL_AGG_MAX:
        if (rsql_type_is_nested(t) || t == RSQL_TYPE_NULL) {
            return rsql_error_set(err, RSQL_ERR_TYPE, arg->pos,
                                  "%s takes a comparable value, got %s", name,
                                  rsql_type_name(t));
        }
        return RSQL_OK;
    case RSQL_AGG_FIRST_VALUE:
    case RSQL_AGG_LAST_VALUE:
        if (t == RSQL_TYPE_NULL) {
            return rsql_error_set(err, RSQL_ERR_TYPE, arg->pos, "%s of a bare NULL has no type",
                                  name);
        }
        return RSQL_OK;
    }
    return RSQL_OK;
}

/* See plan_int.h. */
rsql_bexpr_t *rsql_plan__bind_agg(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    int i = agg_index(e->name);
    const char *name = agg_names[i].name;
    rsql_agg_fn_t fn = agg_names[i].fn;
    if (!b->agg) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos,
                       "%s is an aggregate function: it is allowed in the select list and HAVING, "
                       "not here (a condition on an aggregate goes in HAVING)",
                       name);
        return NULL;
    }
    if (b->in_agg) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos,
                       "an aggregate function cannot take another aggregate as its argument");
        return NULL;
    }
    if (e->distinct && (fn == RSQL_AGG_FIRST_VALUE || fn == RSQL_AGG_LAST_VALUE)) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos,
                       "%s(DISTINCT ...) is not allowed: DISTINCT changes nothing of the first "
                       "or last value",
                       name);
        return NULL;
    }
    if (e->star_arg && fn != RSQL_AGG_COUNT) {
        rsql_error_set(err, RSQL_ERR_SYNTAX, e->pos, "%s(*) is not allowed: only COUNT(*)",
                       name);
        return NULL;
    }
    if (!e->star_arg && e->args.n != 1) {
        rsql_error_set(err, RSQL_ERR_TYPE, e->args.n > 1 ? e->args.items[1]->pos : e->pos,
                       "%s() takes 1 argument, got %d", name, e->args.n);
        return NULL;
    }
    rsql_bexpr_t *arg = NULL;
    if (!e->star_arg) {
        b->in_agg = true;
        arg = rsql_plan__bind_expr(b, e->args.items[0], err);
        b->in_agg = false;
        if (!arg) {
            return NULL;
        }
    }
    /* MIN and MAX of the distinct values are those of all of them */
    bool distinct = e->distinct && fn != RSQL_AGG_MIN && fn != RSQL_AGG_MAX;
    rsql_plan_aggcall_t c = {fn, arg, RSQL_TYPE_NULL, NULL, NULL, e->pos, 0, distinct};
    if (result_type(fn, name, arg, &c, err) != RSQL_OK) {
        return NULL;
    }
    rsql_plan_agg_t *a = b->agg;
    int k = 0;
    while (k < a->n_calls &&
           !(a->calls[k].fn == fn && a->calls[k].distinct == distinct &&
             same_expr(a->calls[k].arg, arg))) {
        k++; /* the same call twice (in the list and HAVING) is computed once */
    }
    if (k == a->n_calls) {
        rsql_plan_aggcall_t *grown =
            rsql_arena_alloc(b->arena, sizeof *grown * (size_t)(a->n_calls + 1));
        c.text = rsql_arena_strndup(b->arena, b->sql + e->pos.off, e->pos.len);
        if (!grown || !c.text) {
            rsql_error_nomem(err);
            return NULL;
        }
        if (a->n_calls) {
            memcpy(grown, a->calls, sizeof *grown * (size_t)a->n_calls);
        }
        grown[a->n_calls++] = c;
        a->calls = grown;
    }
    if (a->pos.off == RSQL_POS_NONE) {
        a->pos = e->pos;
    }
    rsql_bexpr_t *ph = rsql_plan__node(b->arena, RSQL_BX_COLUMN, c.type, e->pos, 0);
    if (!ph) {
        rsql_error_nomem(err);
        return NULL;
    }
    ph->desc = c.desc;
    ph->column = k;
    ph->name = a->calls[k].text;
    ph->aux = &placeholder_mark;
    return ph;
}

/* *px over the aggregate row of a (see the file comment); errors at the offending column. */
static rsql_err_t rewrite(rsql_plan_t *plan, rsql_plan_agg_t *a, rsql_bexpr_t **px,
                          rsql_error_t *err)
{
    rsql_bexpr_t *x = *px;
    if (!x) {
        return RSQL_OK;
    }
    for (int g = 0; g < a->n_group; g++) {
        if (same_expr(x, a->group[g])) {
            rsql_bexpr_t *k = rsql_plan__node(plan->arena, RSQL_BX_COLUMN, x->type, x->pos, 0);
            if (!k) {
                return rsql_error_nomem(err);
            }
            k->desc = x->desc;
            k->column = g;
            k->name = x->kind == RSQL_BX_COLUMN || x->kind == RSQL_BX_COMPUTED
                          ? x->name
                          : rsql_arena_strndup(plan->arena, plan->sql + x->pos.off, x->pos.len);
            *px = k;
            return k->name ? RSQL_OK : rsql_error_nomem(err);
        }
    }
    if (x->kind == RSQL_BX_COLUMN && x->aux == &placeholder_mark) {
        x->column += a->n_group;
        x->aux = NULL;
        return RSQL_OK;
    }
    if (x->kind == RSQL_BX_COLUMN || x->kind == RSQL_BX_COMPUTED) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, x->pos,
                              "column '%s' is neither in GROUP BY nor inside an aggregate "
                              "function: group by it, or aggregate it (for example "
                              "LAST_VALUE(%s))",
                              x->name, x->name);
    }
    for (int i = 0; i < x->n_args; i++) {
        rsql_err_t rc = rewrite(plan, a, &x->args[i], err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__agg_plan(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                               rsql_bexpr_t **items, int n, rsql_error_t *err)
{
    rsql_plan_agg_t *a = b->agg;
    rsql_err_t rc;
    rsql_bexpr_t *having = NULL;
    if (sel->having) { /* its calls are collected with the select list's */
        if (!(having = rsql_plan__bind_expr(b, sel->having, err))) {
            return err->code ? err->code : RSQL_ERR_SEMANTIC;
        }
        if (having->type != RSQL_TYPE_BOOLEAN && having->type != RSQL_TYPE_NULL) {
            return rsql_error_set(err, RSQL_ERR_TYPE, sel->having->pos,
                                  "HAVING must be BOOLEAN, got %s", rsql_type_name(having->type));
        }
    }
    b->agg = NULL;
    if (!a || (a->n_calls == 0 && sel->group_pos.off == RSQL_POS_NONE)) {
        return RSQL_OK;
    }
    if (sel->group_pos.off != RSQL_POS_NONE) {
        a->pos = sel->group_pos;
    }
    if (plan->lookup || plan->dedup) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, a->pos,
                              "GROUP BY over a %s is not supported yet",
                              plan->lookup ? "lookup join" : "deduplication");
    }
    a->n_group = sel->group_by.n;
    a->group = rsql_arena_alloc(plan->arena, sizeof *a->group * (size_t)(a->n_group + 1));
    if (!a->group) {
        return rsql_error_nomem(err);
    }
    for (int g = 0; g < a->n_group; g++) {
        const rsql_expr_t *ge = sel->group_by.items[g];
        if (!(a->group[g] = rsql_plan__bind_expr(b, ge, err))) {
            return err->code ? err->code : RSQL_ERR_SEMANTIC;
        }
        if (rsql_type_is_nested(a->group[g]->type)) {
            return rsql_error_set(err, RSQL_ERR_TYPE, ge->pos,
                                  "GROUP BY takes comparable values, got %s",
                                  rsql_type_name(a->group[g]->type));
        }
    }
    for (int i = 0; i < n; i++) {
        if ((rc = rewrite(plan, a, &items[i], err)) != RSQL_OK) {
            return rc;
        }
    }
    if (having && (rc = rewrite(plan, a, &having, err)) != RSQL_OK) {
        return rc;
    }
    a->pre = plan->filter;
    plan->filter = having;
    plan->agg = a;
    return rsql_plan__agg_layout(plan, a, err);
}
