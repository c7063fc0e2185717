/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_bind: name binding and type checking. Turns an AST expression
 * (sql/rsql_sql.h) into a bound expression (rsql_bexpr_t, in the plan's
 * arena): column names become row indexes, every node gets its result type,
 * and every type error is reported at the exact span of the operand that
 * is wrong. The type rules are summarised in planner/rsql_plan.h.
 *
 * Entry point: rsql_plan__bind_expr (called by plan_build.c for the select
 * list and WHERE, and by plan_funcs.c binders through the call's args).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A zeroed node in arena a (see plan_int.h); NULL when out of memory. */
rsql_bexpr_t *rsql_plan__node(rsql_arena_t *a, rsql_bx_kind_t kind, rsql_type_t type,
                              rsql_pos_t pos, int n_args)
{
    rsql_bexpr_t *e = rsql_arena_alloc(a, sizeof(*e));
    if (!e) {
        return NULL;
    }
    e->kind = kind;
    e->type = type;
    e->pos = pos;
    e->column = -1;
    e->value.type = type;
    if (n_args > 0) {
        e->args = rsql_arena_alloc(a, sizeof(rsql_bexpr_t *) * (size_t)n_args);
        if (!e->args) {
            return NULL;
        }
        e->n_args = n_args;
    }
    return e;
}

/* Wrap child in CAST(child AS to) unless it already has type to; arena-owned. */
rsql_bexpr_t *rsql_plan__cast(rsql_arena_t *a, rsql_bexpr_t *child, rsql_type_t to, bool implicit)
{
    if (child->type == to) {
        return child;
    }
    rsql_bexpr_t *c = rsql_plan__node(a, RSQL_BX_CAST, to, child->pos, 1);
    if (!c) {
        return NULL;
    }
    c->args[0] = child;
    c->implicit = implicit;
    return c;
}

/* CAST(child AS desc's type) unless child already has it; arena-owned. */
rsql_bexpr_t *rsql_plan__cast_desc(rsql_arena_t *a, rsql_bexpr_t *child, const rsql_tdesc_t *desc,
                                   bool implicit)
{
    if (child->type == desc->type &&
        rsql_tdesc_of(child->type, child->desc) == rsql_tdesc_of(desc->type, desc)) {
        return child;
    }
    rsql_bexpr_t *c = rsql_plan__node(a, RSQL_BX_CAST, desc->type, child->pos, 1);
    if (!c) {
        return NULL;
    }
    c->desc = rsql_type_is_param(desc->type) ? desc : NULL;
    c->args[0] = child;
    c->implicit = implicit;
    return c;
}

/* The common (widest) type of a and b into *out; false when neither widens to the other. */
bool rsql_plan__unify(rsql_type_t a, rsql_type_t b, rsql_type_t *out)
{
    if (rsql_type_widens(a, b)) {
        *out = b;
        return true;
    }
    if (rsql_type_widens(b, a)) {
        *out = a;
        return true;
    }
    return false;
}

/* The DECIMAL an exact operand converts to: itself, INT as DECIMAL(10, 0), BIGINT (19, 0). */
static const rsql_tdesc_t *exact_desc(const rsql_bexpr_t *x)
{
    switch (x->type) {
    case RSQL_TYPE_DECIMAL: return rsql_tdesc_of(RSQL_TYPE_DECIMAL, x->desc);
    case RSQL_TYPE_INT: return rsql_tdesc_decimal(10, 0);
    case RSQL_TYPE_BIGINT: return rsql_tdesc_decimal(19, 0);
    case RSQL_TYPE_NULL: return rsql_tdesc_decimal(1, 0);
    default: return NULL;
    }
}

/*
** Fold x's type into the common type (*t, *d) of CASE branches or COALESCE
** arguments: nested types only with exactly the same type; DECIMAL with
** DECIMAL, INT or BIGINT as a DECIMAL that holds both (the most integer
** digits and the largest scale, at most 38 digits), with DOUBLE as DOUBLE;
** else the widening rules. false when they have no common type.
*/
bool rsql_plan__unify_expr(rsql_type_t *t, const rsql_tdesc_t **d, const rsql_bexpr_t *x)
{
    rsql_type_t xt = x->type;
    if (xt == RSQL_TYPE_NULL) {
        return true;
    }
    if (*t == RSQL_TYPE_NULL) {
        *t = xt;
        *d = rsql_type_is_param(xt) ? rsql_tdesc_of(xt, x->desc) : NULL;
        return true;
    }
    if (rsql_type_is_nested(*t) || rsql_type_is_nested(xt)) {
        return *t == xt && *d == x->desc;
    }
    if (*t == RSQL_TYPE_DECIMAL || xt == RSQL_TYPE_DECIMAL) {
        rsql_bexpr_t cur = {.type = *t, .desc = *d};
        const rsql_tdesc_t *a = exact_desc(&cur), *b = exact_desc(x);
        if (!a || !b) {
            bool dbl = *t == RSQL_TYPE_DOUBLE || xt == RSQL_TYPE_DOUBLE;
            *t = dbl ? RSQL_TYPE_DOUBLE : *t;
            *d = NULL;
            return dbl;
        }
        int sc = a->scale > b->scale ? a->scale : b->scale;
        int ip = a->precision - a->scale > b->precision - b->scale ? a->precision - a->scale
                                                                   : b->precision - b->scale;
        if (ip + sc > RSQL_DECIMAL_MAX_PRECISION) {
            sc = RSQL_DECIMAL_MAX_PRECISION - ip;
        }
        *t = RSQL_TYPE_DECIMAL;
        *d = rsql_tdesc_decimal(ip + sc, sc);
        return *d != NULL;
    }
    *d = NULL;
    return rsql_plan__unify(*t, xt, t);
}

static rsql_bexpr_t *nomem(rsql_error_t *err)
{
    rsql_error_nomem(err);
    return NULL;
}

static bool is_string(rsql_type_t t)
{
    return t == RSQL_TYPE_VARCHAR || t == RSQL_TYPE_BYTES;
}

/* Whether values of types a and b can be compared (=, <, IN, BETWEEN, CASE x WHEN). */
static bool comparable(rsql_type_t a, rsql_type_t b)
{
    if (a == RSQL_TYPE_NULL || b == RSQL_TYPE_NULL || a == b) {
        return true;
    }
    bool an = rsql_type_is_numeric(a) || a == RSQL_TYPE_DECIMAL;
    bool bn = rsql_type_is_numeric(b) || b == RSQL_TYPE_DECIMAL;
    if (an && bn) {
        return true;
    }
    return is_string(a) && is_string(b);
}

/*
** When one side is a TIMESTAMP and the other a VARCHAR literal, convert the
** literal at plan time (an error at the literal when it is not a timestamp).
*/
static rsql_err_t coerce_timestamp(rsql_bind_t *b, rsql_bexpr_t *ts_side, rsql_bexpr_t **lit,
                                   rsql_error_t *err)
{
    rsql_bexpr_t *l = *lit;
    if (ts_side->type != RSQL_TYPE_TIMESTAMP || l->kind != RSQL_BX_CONST ||
        l->type != RSQL_TYPE_VARCHAR || l->value.is_null) {
        return RSQL_OK;
    }
    int64_t ms;
    if (rsql_value_parse_timestamp(l->value.v.s.p, l->value.v.s.len, &ms, NULL) != RSQL_OK) {
        return rsql_error_set(err, RSQL_ERR_TYPE, l->pos, "invalid TIMESTAMP literal '%s'",
                              l->value.v.s.p);
    }
    rsql_bexpr_t *c = rsql_plan__node(b->arena, RSQL_BX_CONST, RSQL_TYPE_TIMESTAMP, l->pos, 0);
    if (!c) {
        return rsql_error_nomem(err);
    }
    c->value.v.ts = ms;
    *lit = c;
    return RSQL_OK;
}

/*
** Make a and b comparable (timestamp literals), else an error at where. ROW,
** ARRAY and MAP values compare only for equality (eq: =, <>, IN, CASE x
** WHEN) and only with a value of exactly the same type (or NULL).
*/
static rsql_err_t check_comparable(rsql_bind_t *b, rsql_bexpr_t **x, rsql_bexpr_t **y,
                                   rsql_pos_t where, bool eq, rsql_error_t *err)
{
    if (coerce_timestamp(b, *x, y, err) || coerce_timestamp(b, *y, x, err)) {
        return err ? err->code : RSQL_ERR_TYPE;
    }
    if (rsql_type_is_nested((*x)->type) || rsql_type_is_nested((*y)->type)) {
        rsql_bexpr_t *bad = rsql_type_is_nested((*x)->type) ? *x : *y;
        if (!eq) {
            return rsql_error_set(err, RSQL_ERR_TYPE, bad->pos,
                                  "%s values compare only with = and <>",
                                  rsql_type_name(bad->type));
        }
        rsql_type_t xt = (*x)->type, yt = (*y)->type;
        if (xt != RSQL_TYPE_NULL && yt != RSQL_TYPE_NULL &&
            (xt != yt || (*x)->desc != (*y)->desc)) {
            return rsql_error_set(err, RSQL_ERR_TYPE, where, "cannot compare %s with %s",
                                  rsql_tdesc_of(xt, (*x)->desc)->text,
                                  rsql_tdesc_of(yt, (*y)->desc)->text);
        }
        return RSQL_OK;
    }
    /* a DATE against a TIMESTAMP: the DATE at midnight, as Flink widens it */
    rsql_bexpr_t **d = (*x)->type == RSQL_TYPE_DATE && (*y)->type == RSQL_TYPE_TIMESTAMP ? x
                       : (*y)->type == RSQL_TYPE_DATE && (*x)->type == RSQL_TYPE_TIMESTAMP ? y
                                                                                         : NULL;
    if (d && !(*d = rsql_plan__cast(b->arena, *d, RSQL_TYPE_TIMESTAMP, true))) {
        return rsql_error_nomem(err);
    }
    if (!comparable((*x)->type, (*y)->type)) {
        return rsql_error_set(err, RSQL_ERR_TYPE, where, "cannot compare %s with %s",
                              rsql_type_name((*x)->type), rsql_type_name((*y)->type));
    }
    return RSQL_OK;
}

static rsql_bexpr_t *bind_literal(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    const rsql_literal_t *lit = &e->lit;
    rsql_type_t t = RSQL_TYPE_NULL;
    switch (lit->kind) {
    case RSQL_LIT_NULL: t = RSQL_TYPE_NULL; break;
    case RSQL_LIT_BOOL: t = RSQL_TYPE_BOOLEAN; break;
    case RSQL_LIT_INT:
        t = lit->i >= INT32_MIN && lit->i <= INT32_MAX ? RSQL_TYPE_INT : RSQL_TYPE_BIGINT;
        break;
    case RSQL_LIT_DOUBLE: t = RSQL_TYPE_DOUBLE; break;
    case RSQL_LIT_STRING: t = RSQL_TYPE_VARCHAR; break;
    case RSQL_LIT_INTERVAL: t = RSQL_TYPE_INTERVAL; break;
    }
    rsql_bexpr_t *c = rsql_plan__node(b->arena, RSQL_BX_CONST, t, e->pos, 0);
    if (!c) {
        return nomem(err);
    }
    switch (lit->kind) {
    case RSQL_LIT_NULL: c->value.is_null = true; break;
    case RSQL_LIT_BOOL: c->value.v.b = lit->b; break;
    case RSQL_LIT_INT:
    case RSQL_LIT_INTERVAL: c->value.v.i = lit->i; break;
    case RSQL_LIT_DOUBLE: c->value.v.d = lit->d; break;
    case RSQL_LIT_STRING: {
        size_t n = lit->s ? (lit->s_len ? lit->s_len : strlen(lit->s)) : 0;
        char *s = rsql_arena_strndup(b->arena, lit->s ? lit->s : "", n);
        if (!s) {
            return nomem(err);
        }
        c->value.v.s.p = s;
        c->value.v.s.len = n;
        break;
    }
    }
    return c;
}

/* x.name where x is a ROW: the field, typed as the ROW says; an unknown field is an error. */
/* See plan_int.h. */
rsql_bexpr_t *rsql_plan__bind_field(rsql_bind_t *b, rsql_bexpr_t *x, const char *name,
                                    rsql_pos_t pos, rsql_pos_t name_pos, rsql_error_t *err)
{
    if (x->type != RSQL_TYPE_ROW || !x->desc) {
        rsql_error_set(err, RSQL_ERR_TYPE, x->pos, "cannot access field '%s' of %s", name,
                       rsql_type_name(x->type));
        return NULL;
    }
    int f = rsql_tdesc_field(x->desc, name);
    if (f < 0) {
        rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, name_pos, "no such field '%s' in %s", name,
                       x->desc->text);
        return NULL;
    }
    const rsql_tdesc_t *fd = x->desc->children[f];
    rsql_bexpr_t *n = rsql_plan__node(b->arena, RSQL_BX_FIELD, fd->type, pos, 1);
    if (!n) {
        return nomem(err);
    }
    n->desc = rsql_type_is_param(fd->type) ? fd : NULL;
    n->column = f;
    n->name = x->desc->names[f];
    n->args[0] = x;
    return n;
}

/* x[i]: an ARRAY element (i an integer, 1-based) or a MAP value (i a VARCHAR key). */
static rsql_bexpr_t *bind_index(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
    rsql_bexpr_t *i = x ? rsql_plan__bind_expr(b, e->right, err) : NULL;
    if (!i) {
        return NULL;
    }
    if ((x->type != RSQL_TYPE_ARRAY && x->type != RSQL_TYPE_MAP) || !x->desc) {
        rsql_error_set(err, RSQL_ERR_TYPE, x->pos, "cannot index %s (only ARRAY and MAP)",
                       rsql_type_name(x->type));
        return NULL;
    }
    bool arr = x->type == RSQL_TYPE_ARRAY;
    if (i->type != RSQL_TYPE_NULL &&
        (arr ? !rsql_type_is_integer(i->type) : i->type != RSQL_TYPE_VARCHAR)) {
        rsql_error_set(err, RSQL_ERR_TYPE, i->pos, "%s index must be %s, got %s",
                       arr ? "an ARRAY" : "a MAP", arr ? "an integer" : "VARCHAR",
                       rsql_type_name(i->type));
        return NULL;
    }
    const rsql_tdesc_t *ed = x->desc->children[arr ? 0 : 1];
    rsql_bexpr_t *n = rsql_plan__node(b->arena, RSQL_BX_INDEX, ed->type, e->pos, 2);
    if (!n) {
        return nomem(err);
    }
    n->desc = rsql_type_is_param(ed->type) ? ed : NULL;
    n->args[0] = x;
    n->args[1] = i;
    return n;
}

static rsql_bexpr_t *bind_unary(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
    if (!x) {
        return NULL;
    }
    if (e->op == RSQL_OP_NOT) {
        if (x->type != RSQL_TYPE_BOOLEAN && x->type != RSQL_TYPE_NULL) {
            rsql_error_set(err, RSQL_ERR_TYPE, x->pos, "NOT needs a BOOLEAN operand, got %s",
                           rsql_type_name(x->type));
            return NULL;
        }
    } else if (!rsql_type_is_numeric(x->type) && x->type != RSQL_TYPE_NULL &&
               x->type != RSQL_TYPE_DECIMAL && x->type != RSQL_TYPE_INTERVAL) {
        rsql_error_set(err, RSQL_ERR_TYPE, x->pos, "operator %s needs a numeric operand, got %s",
                       rsql_plan__op_text(e->op), rsql_type_name(x->type));
        return NULL;
    }
    if (e->op == RSQL_OP_PLUS) {
        return x;
    }
    rsql_type_t t = e->op == RSQL_OP_NOT ? RSQL_TYPE_BOOLEAN
                    : x->type == RSQL_TYPE_NULL ? RSQL_TYPE_INT
                                                : x->type;
    /* -literal folds into a literal, so -2147483648 is an INT */
    if (e->op == RSQL_OP_NEG && x->kind == RSQL_BX_CONST && !x->value.is_null &&
        t != RSQL_TYPE_DECIMAL) {
        rsql_bexpr_t *c = rsql_plan__node(b->arena, RSQL_BX_CONST, t, e->pos, 0);
        if (!c) {
            return nomem(err);
        }
        if (t == RSQL_TYPE_DOUBLE) {
            c->value.v.d = -x->value.v.d;
        } else if (t == RSQL_TYPE_INTERVAL) {
            c->value.v.i = -x->value.v.i; /* literals are at most INT64_MAX */
        } else {
            c->value.v.i = -x->value.v.i; /* literals are at most INT64_MAX */
            if (c->value.v.i >= INT32_MIN && c->value.v.i <= INT32_MAX) {
                c->type = c->value.type = RSQL_TYPE_INT;
            }
        }
        return c;
    }
    rsql_bexpr_t *u = rsql_plan__node(b->arena, RSQL_BX_UNARY, t, e->pos, 1);
    if (u && t == RSQL_TYPE_DECIMAL) {
        u->desc = x->desc;
    }
    if (!u) {
        return nomem(err);
    }
    u->op = e->op;
    u->args[0] = x;
    return u;
}

static bool is_const_zero(const rsql_bexpr_t *x)
{
    if (x->kind != RSQL_BX_CONST || x->value.is_null) {
        return false;
    }
    if (x->type == RSQL_TYPE_DOUBLE) {
        return !(x->value.v.d < 0.0 || x->value.v.d > 0.0);
    }
    return rsql_type_is_integer(x->type) && x->value.v.i == 0;
}

/*
** + - * with a DECIMAL operand: exact, with Flink's result precision and
** scale (rsql_value_decimal_type), / and % too (Flink's division and modulo
** types, the quotient rounded half up); with a DOUBLE the result is DOUBLE
** (% takes exact operands only); a literal zero divisor is an error here.
*/
static rsql_bexpr_t *bind_decimal_arith(rsql_bind_t *b, const rsql_expr_t *e, rsql_bexpr_t *x,
                                        rsql_bexpr_t *y, rsql_error_t *err)
{
    rsql_bexpr_t *ops[2] = {x, y};
    bool dbl = x->type == RSQL_TYPE_DOUBLE || y->type == RSQL_TYPE_DOUBLE;
    if (dbl && e->op == RSQL_OP_MOD) {
        rsql_bexpr_t *bad = x->type == RSQL_TYPE_DOUBLE ? x : y;
        rsql_error_set(err, RSQL_ERR_TYPE, bad->pos,
                       "operator %% needs exact operands (DECIMAL, INT, BIGINT), got DOUBLE");
        return NULL;
    }
    if ((e->op == RSQL_OP_DIV || e->op == RSQL_OP_MOD) &&
        (is_const_zero(y) || (y->kind == RSQL_BX_CONST && !y->value.is_null &&
                              y->type == RSQL_TYPE_DECIMAL && y->value.v.dec.lo == 0 &&
                              y->value.v.dec.hi == 0))) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos, "division by zero");
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (!(dbl && ops[i]->type == RSQL_TYPE_DOUBLE) && !exact_desc(ops[i])) {
            rsql_error_set(err, RSQL_ERR_TYPE, ops[i]->pos,
                           "operator %s needs numeric operands, got %s",
                           rsql_plan__op_text(e->op), rsql_type_name(ops[i]->type));
            return NULL;
        }
    }
    const rsql_tdesc_t *rd = NULL;
    if (dbl) {
        for (int i = 0; i < 2; i++) {
            ops[i] = rsql_plan__cast(b->arena, ops[i], RSQL_TYPE_DOUBLE, true);
        }
    } else {
        const rsql_tdesc_t *dx = exact_desc(x), *dy = exact_desc(y);
        int p, sc;
        char op = e->op == RSQL_OP_MUL   ? '*'
                  : e->op == RSQL_OP_DIV ? '/'
                  : e->op == RSQL_OP_MOD ? '%'
                                         : '+';
        rsql_value_decimal_type(op, dx->precision, dx->scale,
                                dy->precision, dy->scale, &p, &sc);
        rd = rsql_tdesc_decimal(p, sc);
        ops[0] = x->type == RSQL_TYPE_DECIMAL ? x : rsql_plan__cast_desc(b->arena, x, dx, true);
        ops[1] = y->type == RSQL_TYPE_DECIMAL ? y : rsql_plan__cast_desc(b->arena, y, dy, true);
    }
    rsql_bexpr_t *n = rsql_plan__node(b->arena, RSQL_BX_BINARY,
                                      dbl ? RSQL_TYPE_DOUBLE : RSQL_TYPE_DECIMAL, e->pos, 2);
    if (!n || !ops[0] || !ops[1] || (!dbl && !rd)) {
        return nomem(err);
    }
    n->desc = rd;
    n->op = e->op;
    n->args[0] = ops[0];
    n->args[1] = ops[1];
    return n;
}

static rsql_bexpr_t *bind_binary(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
    rsql_bexpr_t *y = x ? rsql_plan__bind_expr(b, e->right, err) : NULL;
    if (!y) {
        return NULL;
    }
    rsql_type_t t = RSQL_TYPE_BOOLEAN;
    rsql_bexpr_t *bad = NULL;
    switch (e->op) {
    case RSQL_OP_ADD:
    case RSQL_OP_SUB:
    case RSQL_OP_MUL:
    case RSQL_OP_DIV:
    case RSQL_OP_MOD: {
        bool mod = e->op == RSQL_OP_MOD;
        if (rsql_plan__interval_arith(x, y, e->op)) {
            return rsql_plan__bind_interval_arith(b, e, x, y, err);
        }
        if (x->type == RSQL_TYPE_DECIMAL || y->type == RSQL_TYPE_DECIMAL) {
            return bind_decimal_arith(b, e, x, y, err);
        }
        rsql_bexpr_t *ops[2] = {x, y};
        t = RSQL_TYPE_INT;
        for (int i = 0; i < 2; i++) {
            rsql_type_t ot = ops[i]->type;
            if (ot == RSQL_TYPE_NULL) {
                continue;
            }
            if (mod ? !rsql_type_is_integer(ot) : !rsql_type_is_numeric(ot)) {
                rsql_error_set(err, RSQL_ERR_TYPE, ops[i]->pos,
                               "operator %s needs %s operands, got %s",
                               rsql_plan__op_text(e->op),
                               mod ? "integer" : "numeric", rsql_type_name(ot));
                return NULL;
            }
            if (ot > t) { /* INT < BIGINT < DOUBLE in the enum */
                t = ot;
            }
        }
        if ((e->op == RSQL_OP_DIV || mod) && is_const_zero(y)) {
            rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos, "division by zero");
            return NULL;
        }
        break;
    }
    case RSQL_OP_CONCAT:
        t = RSQL_TYPE_VARCHAR;
        bad = x->type != RSQL_TYPE_VARCHAR && x->type != RSQL_TYPE_NULL   ? x
              : y->type != RSQL_TYPE_VARCHAR && y->type != RSQL_TYPE_NULL ? y
                                                                          : NULL;
        if (bad) {
            rsql_error_set(err, RSQL_ERR_TYPE, bad->pos,
                           "operator || needs VARCHAR operands, got %s (use CAST)",
                           rsql_type_name(bad->type));
            return NULL;
        }
        break;
    case RSQL_OP_AND:
    case RSQL_OP_OR:
        bad = x->type != RSQL_TYPE_BOOLEAN && x->type != RSQL_TYPE_NULL   ? x
              : y->type != RSQL_TYPE_BOOLEAN && y->type != RSQL_TYPE_NULL ? y
                                                                          : NULL;
        if (bad) {
            rsql_error_set(err, RSQL_ERR_TYPE, bad->pos, "%s needs BOOLEAN operands, got %s",
                           rsql_plan__op_text(e->op), rsql_type_name(bad->type));
            return NULL;
        }
        break;
    default: /* comparisons */
        if (check_comparable(b, &x, &y, e->op_pos.len ? e->op_pos : e->pos,
                             e->op == RSQL_OP_EQ || e->op == RSQL_OP_NE, err)) {
            return NULL;
        }
        break;
    }
    rsql_bexpr_t *n = rsql_plan__node(b->arena, RSQL_BX_BINARY, t, e->pos, 2);
    if (!n) {
        return nomem(err);
    }
    n->op = e->op;
    n->args[0] = x;
    n->args[1] = y;
    return n;
}

static rsql_bexpr_t *bind_like(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    const rsql_expr_t *parts[3] = {e->left, e->right, e->third};
    int n = e->third ? 3 : 2;
    rsql_bexpr_t *node = rsql_plan__node(b->arena, RSQL_BX_LIKE, RSQL_TYPE_BOOLEAN, e->pos, n);
    if (!node) {
        return nomem(err);
    }
    node->negated = e->negated;
    for (int i = 0; i < n; i++) {
        rsql_bexpr_t *x = rsql_plan__bind_expr(b, parts[i], err);
        if (!x) {
            return NULL;
        }
        if (x->type != RSQL_TYPE_VARCHAR && x->type != RSQL_TYPE_NULL) {
            rsql_error_set(err, RSQL_ERR_TYPE, x->pos, "LIKE needs VARCHAR operands, got %s",
                           rsql_type_name(x->type));
            return NULL;
        }
        node->args[i] = x;
    }
    if (n == 3 && node->args[2]->kind == RSQL_BX_CONST && !node->args[2]->value.is_null) {
        const rsql_value_t *v = &node->args[2]->value;
        size_t i = 0;
        if (v->v.s.len > 0) {
            rsql_plan__utf8_next(v->v.s.p, v->v.s.len, &i);
        }
        if (v->v.s.len == 0 || i != v->v.s.len) {
            rsql_error_set(err, RSQL_ERR_TYPE, node->args[2]->pos,
                           "ESCAPE must be a single character");
            return NULL;
        }
    }
    return node;
}

static rsql_bexpr_t *bind_in(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    rsql_bexpr_t *node = rsql_plan__node(b->arena, RSQL_BX_IN, RSQL_TYPE_BOOLEAN, e->pos,
                                         1 + e->args.n);
    if (!node) {
        return nomem(err);
    }
    node->negated = e->negated;
    rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
    if (!x) {
        return NULL;
    }
    node->args[0] = x;
    for (int i = 0; i < e->args.n; i++) {
        rsql_bexpr_t *item = rsql_plan__bind_expr(b, e->args.items[i], err);
        if (!item) {
            return NULL;
        }
        if (check_comparable(b, &node->args[0], &item, item->pos, true, err)) {
            return NULL;
        }
        node->args[1 + i] = item;
    }
    return node;
}

static rsql_bexpr_t *bind_between(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    rsql_bexpr_t *node = rsql_plan__node(b->arena, RSQL_BX_BETWEEN, RSQL_TYPE_BOOLEAN, e->pos, 3);
    if (!node) {
        return nomem(err);
    }
    node->negated = e->negated;
    const rsql_expr_t *parts[3] = {e->left, e->right, e->third};
    for (int i = 0; i < 3; i++) {
        node->args[i] = rsql_plan__bind_expr(b, parts[i], err);
        if (!node->args[i]) {
            return NULL;
        }
    }
    for (int i = 1; i < 3; i++) {
        if (check_comparable(b, &node->args[0], &node->args[i], node->args[i]->pos, false,
                             err)) {
            return NULL;
        }
    }
    return node;
}

static rsql_bexpr_t *bind_case(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    bool has_operand = e->left != NULL, has_else = e->right != NULL;
    int n = (has_operand ? 1 : 0) + e->args.n + (has_else ? 1 : 0);
    rsql_bexpr_t *node = rsql_plan__node(b->arena, RSQL_BX_CASE, RSQL_TYPE_NULL, e->pos, n);
    if (!node) {
        return nomem(err);
    }
    node->has_operand = has_operand;
    node->has_else = has_else;
    int k = 0;
    if (has_operand && !(node->args[k++] = rsql_plan__bind_expr(b, e->left, err))) {
        return NULL;
    }
    for (int i = 0; i < e->args.n; i++) {
        if (!(node->args[k++] = rsql_plan__bind_expr(b, e->args.items[i], err))) {
            return NULL;
        }
    }
    if (has_else && !(node->args[k++] = rsql_plan__bind_expr(b, e->right, err))) {
        return NULL;
    }
    int first = has_operand ? 1 : 0;
    rsql_type_t t = RSQL_TYPE_NULL;
    const rsql_tdesc_t *td = NULL;
    for (int i = first; i < n; i++) {
        bool is_then = (i - first) % 2 == 1 || (has_else && i == n - 1);
        rsql_bexpr_t **x = &node->args[i];
        if (!is_then) { /* a WHEN */
            if (has_operand) {
                if (check_comparable(b, &node->args[0], x, (*x)->pos, true, err)) {
                    return NULL;
                }
            } else if ((*x)->type != RSQL_TYPE_BOOLEAN && (*x)->type != RSQL_TYPE_NULL) {
                rsql_error_set(err, RSQL_ERR_TYPE, (*x)->pos,
                               "CASE WHEN condition must be BOOLEAN, got %s",
                               rsql_type_name((*x)->type));
                return NULL;
            }
        } else {
            rsql_type_t before = t;
            const rsql_tdesc_t *before_d = td;
            if (!rsql_plan__unify_expr(&t, &td, *x)) {
                rsql_error_set(err, RSQL_ERR_TYPE, (*x)->pos,
                               "CASE branches have incompatible types %s and %s",
                               before_d ? before_d->text : rsql_type_name(before),
                               (*x)->desc ? (*x)->desc->text : rsql_type_name((*x)->type));
                return NULL;
            }
        }
    }
    node->type = node->value.type = t;
    node->desc = td;
    for (int i = first; i < n; i++) { /* widen every branch to the common type */
        bool is_then = (i - first) % 2 == 1 || (has_else && i == n - 1);
        if (is_then && node->args[i]->type != RSQL_TYPE_NULL &&
            (node->args[i]->type != t || (td && node->args[i]->desc != td))) {
            node->args[i] = td ? rsql_plan__cast_desc(b->arena, node->args[i], td, true)
                               : rsql_plan__cast(b->arena, node->args[i], t, true);
            if (!node->args[i]) {
                return nomem(err);
            }
        }
    }
    return node;
}

static rsql_bexpr_t *bind_cast(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    const rsql_type_spec_t *ts = &e->cast_type;
    if (ts->type == RSQL_TYPE_TIMESTAMP && ts->precision != -1 && ts->precision != 3) {
        rsql_error_set(err, RSQL_ERR_TYPE, ts->pos, "only TIMESTAMP(3) is supported");
        return NULL;
    }
    rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
    if (!x) {
        return NULL;
    }
    bool same_nested = rsql_type_is_nested(ts->type) && x->desc == ts->desc;
    if (!same_nested && !rsql_plan__castable(x->type, ts->type)) {
        rsql_error_set(err, RSQL_ERR_TYPE, e->pos, "cannot cast %s to %s",
                       x->desc ? x->desc->text : rsql_type_name(x->type),
                       ts->desc ? ts->desc->text : rsql_type_name(ts->type));
        return NULL;
    }
    if (x->kind == RSQL_BX_CONST) { /* a constant that can never convert is a plan error */
        rsql_value_t out;
        rsql_error_t cerr;
        rsql_error_clear(&cerr);
        if (rsql_plan__cast_value_desc(&x->value, ts->type, ts->desc, NULL, b->arena, e->pos,
                                       &out, &cerr)) {
            rsql_error_set(err, cerr.code == RSQL_ERR_EVAL ? RSQL_ERR_TYPE : cerr.code, e->pos,
                           "%s", cerr.msg);
            return NULL;
        }
    }
    rsql_bexpr_t *c = rsql_plan__node(b->arena, RSQL_BX_CAST, ts->type, e->pos, 1);
    if (!c) {
        return nomem(err);
    }
    c->args[0] = x;
    c->desc = rsql_type_is_param(ts->type) ? ts->desc : NULL;
    return c;
}

static rsql_bexpr_t *bind_func(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    const char *name = e->name ? e->name : "";
    const rsql_func_t *f = rsql_plan__func_find(name);
    rsql_pos_t name_pos = {e->pos.off, (uint32_t)strlen(name)};
    if (name_pos.len > e->pos.len) {
        name_pos.len = e->pos.len;
    }
    if (e->over) {
        rsql_error_set(err, RSQL_ERR_UNSUPPORTED, e->pos,
                       "%s() OVER (...) is supported only in the subquery of a deduplication "
                       "(SELECT ... FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY "
                       "proc_time) AS rn FROM t) WHERE rn = 1)",
                       name);
        return NULL;
    }
    if (rsql_plan__is_agg(name)) {
        return rsql_plan__bind_agg(b, e, err);
    }
    if (e->star_arg || e->distinct) {
        rsql_error_set(err, RSQL_ERR_SYNTAX, e->pos,
                       "%s(%s) is only for an aggregate function (COUNT(*), COUNT(DISTINCT x))",
                       name, e->star_arg ? "*" : "DISTINCT ...");
        return NULL;
    }
    if (!f) {
        rsql_plan__no_such_function(name, name_pos, err);
        return NULL;
    }
    if (e->kv_pairs && !(f->flags & RSQL_FN_KV)) {
        rsql_error_set(err, RSQL_ERR_SYNTAX, e->args.items[0]->pos,
                       "%s() takes no KEY ... VALUE members", f->name);
        return NULL;
    }
    if ((e->has_returning || e->n_clauses > 0 || e->wrapper) && !(f->flags & RSQL_FN_CLAUSES)) {
        rsql_error_set(err, RSQL_ERR_SYNTAX,
                       e->has_returning ? e->cast_type.pos
                       : e->wrapper     ? e->wrapper_pos
                                        : e->clauses[0].pos,
                       "%s() takes no %s", f->name,
                       e->has_returning ? "RETURNING"
                       : e->wrapper     ? "WRAPPER clause"
                                        : "ON EMPTY/ERROR/NULL clause");
        return NULL;
    }
    int n = e->args.n;
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
        char want[48];
        if (f->max_args < 0) {
            snprintf(want, sizeof(want), "at least %d argument%s", f->min_args,
                     f->min_args == 1 ? "" : "s");
        } else if (f->min_args == f->max_args) {
            snprintf(want, sizeof(want), "%d argument%s", f->min_args,
                     f->min_args == 1 ? "" : "s");
        } else {
            snprintf(want, sizeof(want), "%d to %d arguments", f->min_args, f->max_args);
        }
        rsql_pos_t where = n > f->max_args && f->max_args >= 0
                               ? e->args.items[f->max_args]->pos
                               : e->pos;
        rsql_error_set(err, RSQL_ERR_TYPE, where, "%s() takes %s, got %d", f->name, want, n);
        return NULL;
    }
    rsql_bexpr_t *call = rsql_plan__node(b->arena, RSQL_BX_FUNC, RSQL_TYPE_NULL, e->pos, n);
    if (!call) {
        return nomem(err);
    }
    call->func = f;
    call->name = f->name;
    for (int i = 0; i < n; i++) {
        const rsql_expr_t *a = e->args.items[i];
        if (i == 0 && (f->flags & RSQL_FN_UNIT)) { /* a time unit word: its name, upper case */
            if (a->kind != RSQL_EX_COLUMN || a->qualifier || !a->name) {
                rsql_error_set(err, RSQL_ERR_TYPE, a->pos,
                               "argument 1 of %s must be a time unit such as DAY", f->name);
                return NULL;
            }
            size_t len = strlen(a->name);
            char *u = rsql_arena_alloc(b->arena, len + 1);
            call->args[0] = u ? rsql_plan__node(b->arena, RSQL_BX_CONST, RSQL_TYPE_VARCHAR,
                                                a->pos, 0)
                              : NULL;
            if (!call->args[0]) {
                return nomem(err);
            }
            for (size_t k = 0; k <= len; k++) {
                char c = a->name[k];
                u[k] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
            }
            call->args[0]->value.v.s.p = u;
            call->args[0]->value.v.s.len = len;
            continue;
        }
        if (!(call->args[i] = rsql_plan__bind_expr(b, a, err))) {
            return NULL;
        }
    }
    if (f->bind(b, call, e, err)) {
        return NULL;
    }
    call->value.type = call->type;
    return call;
}

/*
** Bind e against b->table. Returns a node in b->arena, or NULL with err set
** at the offending span.
*/
static rsql_bexpr_t *bind_expr(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err);

rsql_bexpr_t *rsql_plan__bind_expr(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    if (!e) {
        rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "missing expression");
        return NULL;
    }
    /* one call per level: a tree deeper than the parser allows (built some other way)
       stops here, not at the end of the stack */
    if (b->depth >= RSQL_SQL_MAX_EXPR_DEPTH) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->op_pos.off != RSQL_POS_NONE ? e->op_pos : e->pos,
                       "expression tree is too deep (maximum depth %d)", RSQL_SQL_MAX_EXPR_DEPTH);
        return NULL;
    }
    b->depth++;
    rsql_bexpr_t *x = bind_expr(b, e, err);
    b->depth--;
    /* the whole bound expression: the evaluator's recursion is bounded too */
    if (x && b->depth == 0 && !rsql_expr_depth_ok(x, RSQL_EVAL_MAX_DEPTH)) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos,
                       "expression tree is too deep to evaluate (maximum depth %d)",
                       RSQL_EVAL_MAX_DEPTH);
        return NULL;
    }
    return x;
}

static rsql_bexpr_t *bind_expr(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    switch (e->kind) {
    case RSQL_EX_LITERAL: return bind_literal(b, e, err);
    case RSQL_EX_COLUMN: return rsql_plan__bind_column(b, e, err);
    case RSQL_EX_STAR:
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos, "* is only allowed in the select list");
        return NULL;
    case RSQL_EX_UNARY: return bind_unary(b, e, err);
    case RSQL_EX_BINARY: return bind_binary(b, e, err);
    case RSQL_EX_IS_NULL: {
        rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
        rsql_bexpr_t *n = x ? rsql_plan__node(b->arena, RSQL_BX_IS_NULL, RSQL_TYPE_BOOLEAN,
                                               e->pos, 1)
                            : NULL;
        if (!n) {
            return x ? nomem(err) : NULL;
        }
        n->negated = e->negated;
        n->args[0] = x;
        return n;
    }
    case RSQL_EX_LIKE: return bind_like(b, e, err);
    case RSQL_EX_IN: return bind_in(b, e, err);
    case RSQL_EX_BETWEEN: return bind_between(b, e, err);
    case RSQL_EX_CASE: return bind_case(b, e, err);
    case RSQL_EX_CAST: return bind_cast(b, e, err);
    case RSQL_EX_FUNC: return bind_func(b, e, err);
    case RSQL_EX_FIELD: {
        rsql_bexpr_t *x = rsql_plan__bind_expr(b, e->left, err);
        return x ? rsql_plan__bind_field(b, x, e->name, e->pos, e->op_pos, err) : NULL;
    }
    case RSQL_EX_INDEX: return bind_index(b, e, err);
    }
    rsql_error_set(err, RSQL_ERR_INTERNAL, e->pos, "unknown expression kind %d", (int)e->kind);
    return NULL;
}
