/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_lookup: a lookup join, Flink's
 *   FROM orders AS o [INNER | LEFT [OUTER]] JOIN customers FOR SYSTEM_TIME AS OF o.proc_time
 *     [AS] c ON c.id = o.customer_id [AND ...]
 * The joined table is read by key as each row is processed (its connector's lookup data
 * path, rsql_io.h): AS OF must name the FROM table's processing time (a column declared AS
 * PROCTIME()). ON's equalities between a column of the joined table and a value of the FROM
 * row make the key (each value typed as its column; a value of a wider type must be CAST);
 * the rest of ON is a condition on each row found. An inner join drops a row that finds
 * nothing (or whose rows all fail the condition), a LEFT join keeps it with NULLs; a row that
 * finds several rows goes on once with each.
 *
 * The row the statement is bound against holds the FROM table's columns, then the joined
 * table's (offset), then the computed columns referred to (plan_names.c).
 */
#include "config.h"
#include "planner/plan_int.h"

#include <string.h>
#include <strings.h>

/* See plan_int.h. */
rsql_err_t rsql_plan__lookup_table(rsql_catalog_t *cat, rsql_plan_t *plan, const rsql_join_t *j,
                                   rsql_bind_t *b, rsql_error_t *err)
{
    rsql_plan_lookup_t *lk = rsql_arena_alloc(plan->arena, sizeof *lk);
    if (!lk) {
        return rsql_error_nomem(err);
    }
    memset(lk, 0, sizeof *lk);
    plan->lookup = lk;
    rsql_err_t rc = rsql_plan__bind_table(cat, j->table.name, j->table.pos, RSQL_SIDE_LOOKUP,
                                          &lk->table, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    const char *src = b->alias ? b->alias : b->table->name;
    const char *dim = j->alias.name ? j->alias.name : lk->table.def->name;
    if (strcasecmp(src, dim) == 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC,
                              j->alias.name ? j->alias.pos : j->table.pos,
                              "both tables of the join are called '%s': give one an alias "
                              "(JOIN %s AS x)",
                              dim, j->table.name);
    }
    lk->alias = j->alias.name ? rsql_arena_strdup(plan->arena, j->alias.name) : NULL;
    if (j->alias.name && !lk->alias) {
        return rsql_error_nomem(err);
    }
    lk->left = j->left;
    lk->pos = j->pos;
    lk->offset = b->table->n_columns;
    b->dim = lk->table.def;
    b->dim_alias = lk->alias;
    b->dim_offset = lk->offset;
    return RSQL_OK;
}

/* e without the implicit casts the binder put around it. */
static rsql_bexpr_t *uncast(rsql_bexpr_t *e)
{
    while (e->kind == RSQL_BX_CAST && e->implicit) {
        e = e->args[0];
    }
    return e;
}

/* The joined table's column e is (a bare column), or -1. */
static int dim_column(const rsql_plan_lookup_t *lk, const rsql_bexpr_t *e)
{
    int n = lk->table.def->n_columns;
    return e->kind == RSQL_BX_COLUMN && e->column >= lk->offset && e->column < lk->offset + n
               ? e->column - lk->offset
               : -1;
}

/* Does e read a column of the joined table? (A computed column is the FROM table's.) */
static bool reads_dim(const rsql_plan_lookup_t *lk, const rsql_bexpr_t *e)
{
    if (e->kind == RSQL_BX_COMPUTED) {
        return false;
    }
    if (e->kind == RSQL_BX_COLUMN) {
        return dim_column(lk, e) >= 0;
    }
    for (int i = 0; i < e->n_args; i++) {
        if (reads_dim(lk, e->args[i])) {
            return true;
        }
    }
    return false;
}

/* a AND b (either may be NULL). */
static rsql_bexpr_t *and_of(rsql_arena_t *a, rsql_bexpr_t *x, rsql_bexpr_t *y)
{
    if (!x || !y) {
        return x ? x : y;
    }
    rsql_bexpr_t *n = rsql_plan__node(a, RSQL_BX_BINARY, RSQL_TYPE_BOOLEAN, x->pos, 2);
    if (n) {
        n->op = RSQL_OP_AND;
        n->args[0] = x;
        n->args[1] = y;
        n->pos.len = y->pos.off + y->pos.len > x->pos.off ? y->pos.off + y->pos.len - x->pos.off
                                                          : x->pos.len;
    }
    return n;
}

/*
** Conjunct c of ON: a key (column = value, the value of the FROM row and of the column's
** type), or a part of the condition (*cond).
*/
static rsql_err_t take_conjunct(rsql_plan_t *plan, rsql_bexpr_t *c, rsql_bexpr_t **cond,
                                const rsql_bind_t *b, rsql_error_t *err)
{
    rsql_plan_lookup_t *lk = plan->lookup;
    const rsql_table_def_t *def = lk->table.def;
    if (c->kind == RSQL_BX_BINARY && c->op == RSQL_OP_EQ) {
        for (int side = 0; side < 2; side++) {
            rsql_bexpr_t *col = c->args[side], *val = c->args[1 - side];
            int k = dim_column(lk, uncast(col));
            bool taken = false;
            for (int i = 0; i < lk->n_key && k >= 0; i++) {
                taken |= lk->key_columns[i] == k;
            }
            if (k < 0 || taken || reads_dim(lk, val)) {
                continue;
            }
            const rsql_col_t *kc = &def->columns[k];
            const rsql_tdesc_t *kd = rsql_tdesc_of(kc->type, kc->desc);
            const rsql_tdesc_t *vd = rsql_tdesc_of(val->type, val->desc);
            bool exact = kd && vd && kd->type == RSQL_TYPE_DECIMAL &&
                         vd->type == RSQL_TYPE_DECIMAL && vd->scale <= kd->scale &&
                         vd->precision - vd->scale <= kd->precision - kd->scale;
            if (uncast(col) == col && val->type != kc->type && kc->type != RSQL_TYPE_DECIMAL &&
                rsql_type_widens(val->type, kc->type)) {
                val = rsql_plan__cast(plan->arena, val, kc->type, true); /* INT into BIGINT */
            } else if (uncast(col) == col && exact && kd != vd) {
                val = rsql_plan__cast_desc(plan->arena, val, kd, true); /* rescaled exactly */
            }
            if (!val) {
                return rsql_error_nomem(err);
            }
            vd = rsql_tdesc_of(val->type, val->desc);
            if (uncast(col) != col || val->type != kc->type || (kd && vd && kd != vd)) {
                const char *q = lk->alias ? lk->alias : def->name;
                return rsql_error_set(err, RSQL_ERR_TYPE, c->pos,
                                      "ON: the key column %s.%s is %s and the value %s: CAST the "
                                      "value AS %s",
                                      q, kc->name, kd ? kd->text : rsql_type_name(kc->type),
                                      vd ? vd->text : rsql_type_name(val->type),
                                      kd ? kd->text : rsql_type_name(kc->type));
            }
            lk->key_columns[lk->n_key] = k;
            lk->keys[lk->n_key++] = val;
            return RSQL_OK;
        }
    }
    (void)b;
    *cond = and_of(plan->arena, *cond, c);
    return *cond ? RSQL_OK : rsql_error_nomem(err);
}

/* Split e (ON, bound) at its ANDs into keys and the condition. */
static rsql_err_t split(rsql_plan_t *plan, rsql_bexpr_t *e, rsql_bexpr_t **cond,
                        const rsql_bind_t *b, rsql_error_t *err)
{
    if (e->kind == RSQL_BX_BINARY && e->op == RSQL_OP_AND) {
        rsql_err_t rc = split(plan, e->args[0], cond, b, err);
        return rc == RSQL_OK ? split(plan, e->args[1], cond, b, err) : rc;
    }
    return take_conjunct(plan, e, cond, b, err);
}

/* See plan_int.h. */
rsql_err_t rsql_plan__lookup_on(rsql_plan_t *plan, const rsql_join_t *j, rsql_bind_t *b,
                                rsql_error_t *err)
{
    rsql_plan_lookup_t *lk = plan->lookup;
    const char *src = b->alias ? b->alias : b->table->name;
    rsql_bexpr_t *t = rsql_plan__bind_expr(b, j->as_of, err);
    if (!t) {
        return err ? err->code : RSQL_ERR_SEMANTIC;
    }
    const rsql_bexpr_t *f = t->kind == RSQL_BX_COMPUTED ? t->args[0] : NULL;
    if (!f || f->kind != RSQL_BX_FUNC || !f->name || strcasecmp(f->name, "PROCTIME") != 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, j->as_of->pos,
                              "FOR SYSTEM_TIME AS OF must name the processing time of '%s', a "
                              "column declared AS PROCTIME() (a lookup join reads the rows of "
                              "'%s' as they are when each row is processed)",
                              src, lk->table.def->name);
    }
    lk->as_of = t;
    rsql_bexpr_t *on = rsql_plan__bind_expr(b, j->on, err);
    if (!on) {
        return err ? err->code : RSQL_ERR_SEMANTIC;
    }
    if (on->type != RSQL_TYPE_BOOLEAN) {
        return rsql_error_set(err, RSQL_ERR_TYPE, j->on->pos, "ON must be BOOLEAN, got %s",
                              rsql_type_name(on->type));
    }
    int n = lk->table.def->n_columns;
    lk->key_columns = rsql_arena_alloc(plan->arena, sizeof(int) * (size_t)n);
    lk->keys = rsql_arena_alloc(plan->arena, sizeof(rsql_bexpr_t *) * (size_t)n);
    if (!lk->key_columns || !lk->keys) {
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = split(plan, on, &lk->cond, b, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (lk->n_key == 0) {
        const char *q = lk->alias ? lk->alias : lk->table.def->name;
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, j->on->pos,
                              "ON must equal a column of '%s' with a value of '%s' (such as "
                              "%s.%s = %s.<column>): the lookup reads the rows of that key",
                              q, src, q, lk->table.def->columns[0].name, src);
    }
    return RSQL_OK;
}
