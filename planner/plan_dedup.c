/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_dedup: deduplication, Flink's form:
 *
 *   SELECT ... FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY proc_time [ASC | DESC])
 *                    AS rn FROM src [WHERE pre]) [AS] q WHERE rn = 1 [AND post]
 *
 * keeps the first row of each key (ASC: append-only) or the last (DESC: a changelog, the kept
 * row's -U and the new row's +U for each newer row). ORDER BY must name the processing time
 * (a column declared AS PROCTIME()): rows are kept in the order they are read. Any other use
 * of ROW_NUMBER (no rn = 1, a subquery without it, Top-N) is refused here, at its place.
 *
 * The statement is planned as one flat SELECT over src: the outer select list and WHERE have
 * each name of the subquery's output replaced by the expression it stands for (rn by 1), and
 * the plan keeps the key, the direction and the subquery's WHERE (applied before the rows are
 * deduplicated; the outer WHERE after) in plan->dedup.
 */
#include "config.h"
#include "planner/plan_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct flat {
    rsql_arena_t *a;
    const rsql_select_t *inner;
    const rsql_select_item_t *rn; /* the ROW_NUMBER item */
    const char *outer_alias;      /* FROM (...) [AS] q, or NULL */
    const rsql_table_def_t *decl; /* the source's columns as declared */
    rsql_error_t *err;
} flat_t;

/* The name the subquery gives its item it (NULL when it has none: not referable). */
static const char *item_name(const rsql_select_item_t *it)
{
    if (it->alias.name) {
        return it->alias.name;
    }
    return it->expr->kind == RSQL_EX_COLUMN ? it->expr->name : NULL;
}

static rsql_expr_t *copy_node(flat_t *f, const rsql_expr_t *e)
{
    rsql_expr_t *c = rsql_arena_alloc(f->a, sizeof *c);
    if (c) {
        *c = *e;
    }
    return c;
}

/* The literal 1 (what rn is in every row kept). */
static rsql_expr_t *one(flat_t *f, rsql_pos_t pos)
{
    rsql_expr_t *c = rsql_arena_alloc(f->a, sizeof *c);
    if (c) {
        c->kind = RSQL_EX_LITERAL;
        c->pos = pos;
        c->op_pos = pos;
        c->lit.kind = RSQL_LIT_INT;
        c->lit.i = 1;
        c->height = 1;
        c->cast_type.precision = -1;
    }
    return c;
}

/* The name of the subquery's output, when the subquery has one: its expression. */
static const rsql_expr_t *output(flat_t *f, const char *name, rsql_pos_t pos, bool *is_rn)
{
    *is_rn = false;
    for (int i = 0; i < f->inner->n_items; i++) {
        const rsql_select_item_t *it = &f->inner->items[i];
        if (it->expr->kind == RSQL_EX_STAR) {
            for (int c = 0; c < f->decl->n_columns; c++) {
                if (strcasecmp(f->decl->columns[c].name, name) == 0) {
                    rsql_expr_t *col = rsql_arena_alloc(f->a, sizeof *col);
                    if (!col) {
                        return NULL;
                    }
                    col->kind = RSQL_EX_COLUMN;
                    col->pos = pos;
                    col->op_pos = pos;
                    col->name = f->decl->columns[c].name;
                    col->height = 1;
                    col->cast_type.precision = -1;
                    return col;
                }
            }
            continue;
        }
        const char *n = item_name(it);
        if (n && strcasecmp(n, name) == 0) {
            *is_rn = it == f->rn;
            return it->expr;
        }
    }
    return NULL;
}

static rsql_expr_t *subst(flat_t *f, const rsql_expr_t *e);

static bool subst_list(flat_t *f, rsql_expr_list_t *l)
{
    if (l->n == 0) {
        return true;
    }
    rsql_expr_t **items = rsql_arena_alloc(f->a, sizeof *items * (size_t)l->n);
    if (!items) {
        return false;
    }
    for (int i = 0; i < l->n; i++) {
        if (!(items[i] = subst(f, l->items[i]))) {
            return false;
        }
    }
    l->items = items;
    return true;
}

/*
** e of the outer query with each name of the subquery's output replaced by the expression it
** stands for (rn by 1). NULL: f->err says why.
*/
static rsql_expr_t *subst(flat_t *f, const rsql_expr_t *e)
{
    if (!e) {
        return NULL;
    }
    if (e->kind == RSQL_EX_FUNC && e->over) {
        rsql_error_set(f->err, RSQL_ERR_UNSUPPORTED, e->pos,
                       "%s() OVER (...) is supported only in the subquery of a deduplication "
                       "(SELECT ... FROM (SELECT *, ROW_NUMBER() OVER (...) AS rn FROM t) "
                       "WHERE rn = 1)",
                       e->name ? e->name : "");
        return NULL;
    }
    if (e->kind == RSQL_EX_COLUMN) {
        if (e->qualifier &&
            (!f->outer_alias || strcasecmp(e->qualifier, f->outer_alias) != 0)) {
            rsql_error_set(f->err, RSQL_ERR_UNKNOWN_NAME, e->pos,
                           "no such table: %s (the query reads the subquery%s%s)",
                           e->qualifier, f->outer_alias ? " it calls " : "",
                           f->outer_alias ? f->outer_alias : "");
            return NULL;
        }
        bool is_rn;
        const rsql_expr_t *x = output(f, e->name, e->pos, &is_rn);
        if (!x) {
            rsql_error_set(f->err, RSQL_ERR_UNKNOWN_NAME, e->pos,
                           "no such column: %s (not among the subquery's columns)", e->name);
            return NULL;
        }
        return is_rn ? one(f, e->pos) : (rsql_expr_t *)x;
    }
    rsql_expr_t *c = copy_node(f, e);
    if (!c) {
        rsql_error_nomem(f->err);
        return NULL;
    }
    if ((e->left && !(c->left = subst(f, e->left))) ||
        (e->right && !(c->right = subst(f, e->right))) ||
        (e->third && !(c->third = subst(f, e->third))) || !subst_list(f, &c->args)) {
        if (!f->err->code) {
            rsql_error_nomem(f->err);
        }
        return NULL;
    }
    if (e->n_clauses > 0) {
        rsql_json_clause_t *cl = rsql_arena_alloc(f->a, sizeof *cl * (size_t)e->n_clauses);
        if (!cl) {
            rsql_error_nomem(f->err);
            return NULL;
        }
        for (int i = 0; i < e->n_clauses; i++) {
            cl[i] = e->clauses[i];
            if (cl[i].dflt && !(cl[i].dflt = subst(f, e->clauses[i].dflt))) {
                return NULL;
            }
        }
        c->clauses = cl;
    }
    return c;
}

/* Is e rn = 1, 1 = rn, rn <= 1 or rn < 2 (rn the ROW_NUMBER's name, maybe qualified)? */
static bool is_rn_one(const flat_t *f, const rsql_expr_t *e)
{
    if (e->kind != RSQL_EX_BINARY) {
        return false;
    }
    const rsql_expr_t *col = e->left, *lit = e->right;
    rsql_op_t op = e->op;
    if (col->kind == RSQL_EX_LITERAL) {
        const rsql_expr_t *t = col;
        col = lit;
        lit = t;
        op = op == RSQL_OP_GE ? RSQL_OP_LE : op == RSQL_OP_GT ? RSQL_OP_LT : op;
    }
    const char *rn = item_name(f->rn);
    if (col->kind != RSQL_EX_COLUMN || !rn || strcasecmp(col->name, rn) != 0 ||
        (col->qualifier &&
         (!f->outer_alias || strcasecmp(col->qualifier, f->outer_alias) != 0)) ||
        lit->kind != RSQL_EX_LITERAL || lit->lit.kind != RSQL_LIT_INT) {
        return false;
    }
    return ((op == RSQL_OP_EQ || op == RSQL_OP_LE) && lit->lit.i == 1) ||
           (op == RSQL_OP_LT && lit->lit.i == 2);
}

/* The outer WHERE without its rn = 1 conjunct (*found set when there was one); NULL: none. */
static const rsql_expr_t *drop_rn(flat_t *f, const rsql_expr_t *e, bool *found, bool *nomem)
{
    if (!e) {
        return NULL;
    }
    if (!*found && is_rn_one(f, e)) {
        *found = true;
        return NULL;
    }
    if (e->kind == RSQL_EX_BINARY && e->op == RSQL_OP_AND) {
        const rsql_expr_t *l = drop_rn(f, e->left, found, nomem);
        const rsql_expr_t *r = drop_rn(f, e->right, found, nomem);
        if (!l || !r) {
            return l ? l : r;
        }
        if (l == e->left && r == e->right) {
            return e;
        }
        rsql_expr_t *c = copy_node(f, e);
        if (!c) {
            *nomem = true;
            return e;
        }
        c->left = (rsql_expr_t *)l;
        c->right = (rsql_expr_t *)r;
        return c;
    }
    return e;
}

/* The subquery's shape: FROM a table, no join, no LIMIT, one ROW_NUMBER() OVER (...) item. */
static rsql_err_t check_inner(const rsql_select_t *outer, const rsql_select_t *in,
                              const rsql_select_item_t **rn, rsql_error_t *err)
{
    if (in->from_sub) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, in->from.pos,
                              "a subquery in a subquery is not supported yet");
    }
    if (in->join) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, in->join->pos,
                              "a join inside the subquery of a deduplication is not supported "
                              "yet");
    }
    if (in->has_limit) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, in->limit_pos,
                              "LIMIT inside a subquery is not supported");
    }
    if (outer->join) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, outer->join->pos,
                              "a lookup join of a deduplicated subquery is not supported yet");
    }
    *rn = NULL;
    for (int i = 0; i < in->n_items; i++) {
        const rsql_expr_t *e = in->items[i].expr;
        if (e->kind != RSQL_EX_FUNC || !e->over) {
            continue;
        }
        if (*rn) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, e->pos,
                                  "one ROW_NUMBER() OVER (...) per subquery is supported");
        }
        if (!e->name || strcmp(e->name, "ROW_NUMBER") != 0) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, e->pos,
                                  "%s() OVER (...) is not supported: the window function "
                                  "supported is ROW_NUMBER(), for deduplication",
                                  e->name ? e->name : "");
        }
        if (!e->over->order) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, e->over->pos,
                                  "ROW_NUMBER() OVER (...) needs ORDER BY the processing time "
                                  "(a column declared AS PROCTIME()), ASC to keep each key's "
                                  "first row or DESC its last");
        }
        if (!item_name(&in->items[i])) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos,
                                  "name the row number (ROW_NUMBER() OVER (...) AS rn) so that "
                                  "the query can keep rn = 1");
        }
        *rn = &in->items[i];
    }
    if (!*rn) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, outer->from.pos,
                              "a subquery is supported only for deduplication: SELECT ... FROM "
                              "(SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY proc_time) "
                              "AS rn FROM t) WHERE rn = 1");
    }
    return RSQL_OK;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__dedup_flatten(rsql_plan_t *plan, const rsql_select_t *outer,
                                    const rsql_table_def_t *decl, const rsql_select_t **flat,
                                    rsql_error_t *err)
{
    const rsql_select_t *in = outer->from_sub;
    flat_t f = {plan->arena, in, NULL, outer->from_alias.name, decl, err};
    rsql_err_t rc = check_inner(outer, in, &f.rn, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    bool found = false, nomem = false;
    const rsql_expr_t *post = drop_rn(&f, outer->where, &found, &nomem);
    if (nomem) {
        return rsql_error_nomem(err);
    }
    if (!found) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED,
                              outer->where ? outer->where->pos : outer->from.pos,
                              "ROW_NUMBER() is supported for deduplication only: keep the first "
                              "row number with WHERE %s = 1 (Top-N is not supported yet)",
                              item_name(f.rn));
    }
    rsql_select_t *s = rsql_arena_alloc(plan->arena, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    *s = *outer;
    s->from = in->from;
    s->from_alias = in->from_alias;
    s->from_sub = NULL;
    s->where = NULL;
    if (post && !(s->where = subst(&f, post))) {
        return err->code ? err->code : rsql_error_nomem(err);
    }
    /* the select list: * is the subquery's columns (rn as 1), a name what it stands for */
    int n = 0;
    for (int i = 0; i < outer->n_items; i++) {
        n += outer->items[i].expr->kind == RSQL_EX_STAR ? in->n_items : 1;
    }
    rsql_select_item_t *items = rsql_arena_alloc(plan->arena, sizeof *items * (size_t)n);
    if (!items) {
        return rsql_error_nomem(err);
    }
    int k = 0;
    for (int i = 0; i < outer->n_items; i++) {
        const rsql_select_item_t *it = &outer->items[i];
        const rsql_expr_t *e = it->expr;
        if (e->kind == RSQL_EX_STAR) {
            if (e->qualifier &&
                (!f.outer_alias || strcasecmp(e->qualifier, f.outer_alias) != 0)) {
                return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, e->pos, "no such table: %s",
                                      e->qualifier);
            }
            for (int j = 0; j < in->n_items; j++) {
                items[k] = in->items[j];
                if (&in->items[j] == f.rn) {
                    items[k].expr = one(&f, e->pos);
                    items[k].alias.name = item_name(f.rn);
                    if (!items[k].expr) {
                        return rsql_error_nomem(err);
                    }
                } else if (!items[k].alias.name && items[k].expr->kind == RSQL_EX_COLUMN) {
                    items[k].alias.name = items[k].expr->name; /* keep its name */
                }
                k++;
            }
            continue;
        }
        items[k] = *it;
        if (!(items[k].expr = subst(&f, e))) {
            return err->code ? err->code : rsql_error_nomem(err);
        }
        if (!items[k].alias.name && e->kind == RSQL_EX_COLUMN) {
            items[k].alias.name = e->name; /* the outer name, not the expression's text */
        }
        k++;
    }
    s->items = items;
    s->n_items = k;
    plan->dedup = rsql_arena_alloc(plan->arena, sizeof *plan->dedup);
    if (!plan->dedup) {
        return rsql_error_nomem(err);
    }
    plan->dedup->keep_last = f.rn->expr->over->desc;
    plan->dedup->rn = item_name(f.rn);
    plan->dedup->pos = outer->from.pos;
    *flat = s;
    return RSQL_OK;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__dedup_bind(rsql_plan_t *plan, const rsql_select_t *in, rsql_bind_t *b,
                                 rsql_error_t *err)
{
    rsql_plan_dedup_t *d = plan->dedup;
    const rsql_expr_t *rn = NULL;
    for (int i = 0; i < in->n_items && !rn; i++) {
        if (in->items[i].expr->kind == RSQL_EX_FUNC && in->items[i].expr->over) {
            rn = in->items[i].expr;
        }
    }
    const rsql_over_t *o = rn->over;
    d->order = rsql_plan__bind_expr(b, o->order, err);
    if (!d->order) {
        return err->code ? err->code : RSQL_ERR_SEMANTIC;
    }
    const rsql_bexpr_t *f = d->order->kind == RSQL_BX_COMPUTED ? d->order->args[0] : NULL;
    if (!f || f->kind != RSQL_BX_FUNC || !f->name || strcasecmp(f->name, "PROCTIME") != 0) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, o->order->pos,
                              "deduplication orders rows by the processing time: ORDER BY a "
                              "column declared AS PROCTIME() (ordering by an event time is not "
                              "supported yet)");
    }
    d->in_sink = plan->source.conn->own_positions != NULL; /* rsql_plan__dedup_in_sink */
    d->n_key = o->partition.n;
    d->keys = rsql_arena_alloc(plan->arena, sizeof *d->keys * (size_t)(d->n_key + 1));
    if (!d->keys) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < d->n_key; i++) {
        const rsql_expr_t *pe = o->partition.items[i];
        if (!(d->keys[i] = rsql_plan__bind_expr(b, pe, err))) {
            return err->code ? err->code : RSQL_ERR_SEMANTIC;
        }
        if (rsql_type_is_nested(d->keys[i]->type)) {
            return rsql_error_set(err, RSQL_ERR_TYPE, pe->pos,
                                  "PARTITION BY a %s is not supported: a key is made of scalar "
                                  "values",
                                  rsql_type_name(d->keys[i]->type));
        }
    }
    if (in->where) {
        d->pre = rsql_plan__bind_expr(b, in->where, err);
        if (!d->pre) {
            return err->code ? err->code : RSQL_ERR_SEMANTIC;
        }
        if (d->pre->type != RSQL_TYPE_BOOLEAN && d->pre->type != RSQL_TYPE_NULL) {
            return rsql_error_set(err, RSQL_ERR_TYPE, in->where->pos,
                                  "WHERE clause must be BOOLEAN, got %s",
                                  rsql_type_name(d->pre->type));
        }
    }
    return RSQL_OK;
}

/* A column of the source row under the planner's widening casts, or NULL. */
static const rsql_bexpr_t *plain_column(const rsql_bexpr_t *e)
{
    while (e && e->kind == RSQL_BX_CAST && e->implicit && e->n_args == 1) {
        e = e->args[0];
    }
    return e && e->kind == RSQL_BX_COLUMN ? e : NULL;
}

/* A sink that keeps rows by key (rsql_connector_def_t.changes BY_KEY; not a keyed log, which
   cannot tell whether it holds a key). */
static bool keeps_by_key(const rsql_connector_def_t *c)
{
    return (c->caps & RSQL_CAP_SINK) && c->changes == RSQL_CHANGES_BY_KEY && !c->keyed_log;
}

/* "the sink of table 's' (connector 'c')" and what it must be, into err at pos. */
static rsql_err_t refuse_sink(const rsql_plan_t *plan, rsql_pos_t pos, const char *what,
                              rsql_error_t *err)
{
    const rsql_plan_table_t *src = &plan->source;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_plan__connectors_where(keeps_by_key, true, &b);
    rsql_error_set(err, RSQL_ERR_UNSUPPORTED, pos,
                   "deduplication of table '%s': its connector '%s' acknowledges messages "
                   "itself (%s) and spreads them over the processes of a consumer group, so "
                   "the sink table does the deduplication, keyed by the PARTITION BY columns: "
                   "%s; write into a table of connector %s whose PRIMARY KEY (...) NOT "
                   "ENFORCED is the PARTITION BY columns, each written from that column",
                   src->def->name, src->conn->name, src->conn->own_positions, what,
                   b.oom ? "?" : rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return RSQL_ERR_UNSUPPORTED;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__dedup_in_sink(rsql_plan_t *plan, rsql_error_t *err)
{
    rsql_plan_dedup_t *d = plan->dedup;
    if (!d || !d->in_sink) {
        return RSQL_OK;
    }
    const rsql_plan_table_t *k = &plan->sink;
    if (plan->kind != RSQL_PLAN_INSERT || !k->def) {
        return refuse_sink(plan, d->pos, "a preview has no such table", err);
    }
    char what[512];
    if (!keeps_by_key(k->conn)) {
        snprintf(what, sizeof what, "the sink of table '%s' (connector '%s') does not keep rows "
                 "by key", k->def->name, k->conn->name);
        return refuse_sink(plan, k->pos, what, err);
    }
    if (d->n_key == 0) {
        return refuse_sink(plan, d->pos, "PARTITION BY is absent (the whole stream is one key)",
                           err);
    }
    for (int j = 0; j < d->n_key; j++) {
        if (!plain_column(d->keys[j])) {
            return refuse_sink(plan, d->keys[j]->pos, "PARTITION BY must name columns", err);
        }
    }
    uint64_t covered = 0; /* bit j: partition key j is written into a key column of the sink */
    int n_pk = 0;
    for (int i = 0; i < k->def->n_columns; i++) {
        const rsql_col_t *c = &k->def->columns[i];
        if (c->pk_ord <= 0) {
            continue;
        }
        n_pk++;
        const rsql_bexpr_t *from = NULL;
        for (int o = 0; o < plan->n_outputs && !from; o++) {
            if (strcasecmp(plan->outputs[o].name, c->name) == 0) {
                from = plain_column(plan->outputs[o].expr);
            }
        }
        int hit = -1;
        for (int j = 0; from && j < d->n_key && hit < 0; j++) {
            if (plain_column(d->keys[j])->column == from->column) {
                hit = j;
            }
        }
        if (hit < 0) {
            snprintf(what, sizeof what, "key column '%s' of table '%s' is not written from a "
                     "PARTITION BY column", c->name, k->def->name);
            return refuse_sink(plan, k->pos, what, err);
        }
        if (hit < 64) {
            covered |= UINT64_C(1) << hit;
        }
    }
    if (n_pk == 0) {
        snprintf(what, sizeof what, "table '%s' has no PRIMARY KEY", k->def->name);
        return refuse_sink(plan, k->pos, what, err);
    }
    for (int j = 0; j < d->n_key && j < 64; j++) {
        if (!(covered & (UINT64_C(1) << j))) {
            snprintf(what, sizeof what, "PARTITION BY column '%s' is not written into a key "
                     "column of table '%s'", plain_column(d->keys[j])->name, k->def->name);
            return refuse_sink(plan, d->keys[j]->pos, what, err);
        }
    }
    if (plan->filter) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->filter->pos,
                              "a condition after the deduplication of table '%s' is not "
                              "supported: the sink table deduplicates it (its connector '%s' "
                              "acknowledges messages itself), after every condition; move the "
                              "condition into the subquery's WHERE (applied before)",
                              plan->source.def->name, plan->source.conn->name);
    }
    plan->filter = d->pre; /* the rows kept are those the subquery's WHERE passes */
    d->pre = NULL;
    return RSQL_OK;
}
