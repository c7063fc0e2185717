/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_computed: computed columns (CREATE TABLE t (..., name AS expr), Flink's syntax). A
 * computed column is not read or written by the connector: the plan's table def leaves it
 * out, so the runtime's rows hold only the other columns, and a statement's reference to it
 * is an RSQL_BX_COMPUTED node over its expression (as stored in the catalog, parsed and bound
 * once per plan): rsql_plan_apply evaluates each referred-to computed column once per row,
 * before the filter, into a slot after the source row's columns, and every reference reads
 * that slot (UUID() is one value per row, as in Flink). SELECT * lists the columns as
 * declared, computed ones included; a sink never writes one. A computed column refers to no other computed column (checked at CREATE
 * TABLE, where its type, the expression's, is fixed).
 */
#include "config.h"
#include "planner/plan_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct rsql_plan_computed {
    rsql_parse_t *parse;     /* owns ast */
    const rsql_expr_t *ast;  /* the stored expression, parsed; NULL until referred to */
    int slot;                /* its slot (rsql_plan_table_t.slots), -1 until referred to */
};

/* See plan_int.h. */
rsql_err_t rsql_plan__split_computed(rsql_plan_table_t *t, rsql_error_t *err)
{
    rsql_table_def_t *d = t->def;
    int n = 0;
    for (int i = 0; i < d->n_columns; i++) {
        n += d->columns[i].expr != NULL;
    }
    if (n == 0) {
        return RSQL_OK;
    }
    /* def keeps the other columns (moved, not copied); decl the columns as declared */
    rsql_table_def_t *keep = rsql_calloc(1, sizeof *keep);
    rsql_col_t *cols = rsql_calloc((size_t)(d->n_columns - n + 1), sizeof *cols);
    rsql_col_t *all = rsql_calloc((size_t)d->n_columns, sizeof *all);
    t->computed = rsql_calloc((size_t)d->n_columns, sizeof *t->computed);
    t->slots = rsql_calloc((size_t)n, sizeof *t->slots);
    char *name = rsql_strdup(d->name), *conn = rsql_strdup(d->connector);
    rsql_kv_t *opts = rsql_calloc((size_t)d->n_options + 1, sizeof *opts);
    bool ok = keep && cols && all && t->computed && t->slots && name && conn && opts;
    for (int i = 0; ok && i < d->n_options; i++) {
        opts[i].key = rsql_strdup(d->options[i].key);
        opts[i].value = rsql_strdup(d->options[i].value);
        ok = opts[i].key && opts[i].value;
    }
    for (int i = 0; ok && i < d->n_columns; i++) { /* decl's columns: copies of every name */
        all[i] = d->columns[i];
        all[i].meta_from = all[i].expr = all[i].watermark = NULL;
        all[i].name = rsql_strdup(d->columns[i].name);
        all[i].meta_from = d->columns[i].meta_from ? rsql_strdup(d->columns[i].meta_from) : NULL;
        ok = all[i].name && (all[i].meta_from || !d->columns[i].meta_from);
    }
    if (!ok) {
        for (int i = 0; opts && i < d->n_options; i++) {
            rsql_free(opts[i].key);
            rsql_free(opts[i].value);
        }
        for (int i = 0; all && i < d->n_columns; i++) {
            rsql_free(all[i].name);
            rsql_free(all[i].meta_from);
        }
        rsql_free(opts);
        rsql_free(all);
        rsql_free(cols);
        rsql_free(keep);
        rsql_free(name);
        rsql_free(conn);
        rsql_free(t->computed);
        rsql_free(t->slots);
        t->computed = NULL;
        t->slots = NULL;
        return rsql_error_nomem(err);
    }
    int k = 0;
    for (int i = 0; i < d->n_columns; i++) {
        t->computed[i].slot = -1;
        if (d->columns[i].expr) {
            all[i].expr = d->columns[i].expr; /* decl owns the expressions */
            all[i].watermark = d->columns[i].watermark;
            rsql_free(d->columns[i].name);
            rsql_free(d->columns[i].meta_from);
        } else {
            cols[k++] = d->columns[i]; /* def keeps the rest */
        }
    }
    *keep = *d;
    keep->name = name;
    keep->connector = conn;
    keep->options = opts;
    keep->columns = all;
    rsql_free(d->columns);
    d->columns = cols;
    d->n_columns = k;
    t->decl = keep;
    return RSQL_OK;
}

/* See plan_int.h. */
void rsql_plan__computed_free(rsql_plan_table_t *t)
{
    if (t->computed && t->decl) {
        for (int i = 0; i < t->decl->n_columns; i++) {
            rsql_parse_destroy(t->computed[i].parse);
        }
    }
    rsql_free(t->computed);
    rsql_free(t->slots);
    rsql_table_def_free(t->decl);
    t->computed = NULL;
    t->slots = NULL;
    t->n_slots = 0;
    t->decl = NULL;
}

/* See plan_int.h. */
int rsql_plan__computed_index(const rsql_bind_t *b, const char *name)
{
    const rsql_table_def_t *d = b->from ? b->from->decl : NULL;
    for (int i = 0; d && i < d->n_columns; i++) {
        if (d->columns[i].expr && strcasecmp(d->columns[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* See plan_int.h. */
void rsql_plan__place(rsql_bexpr_t *x, rsql_pos_t pos)
{
    if (!x) {
        return;
    }
    x->pos = pos;
    for (int i = 0; i < x->n_args; i++) {
        rsql_plan__place(x->args[i], pos);
    }
}

/* See plan_int.h. */
const rsql_expr_t *rsql_plan__parse_stored(const char *expr, rsql_parse_t **parse,
                                           rsql_err_t *code)
{
    *parse = NULL;
    *code = RSQL_ERR_NOMEM;
    size_t n = strlen(expr) + 32;
    char *text = rsql_malloc(n);
    if (!text) {
        return NULL;
    }
    snprintf(text, n, "SELECT %s FROM t", expr);
    *parse = rsql_parse_new(text, strlen(text));
    rsql_free(text);
    if (!*parse) {
        return NULL;
    }
    rsql_stmt_t *st = NULL;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_parse_next(*parse, &st, &e) != RSQL_OK || !st || st->kind != RSQL_STMT_SELECT ||
        !st->select || st->select->n_items != 1) {
        *code = e.code == RSQL_ERR_NOMEM ? e.code : RSQL_ERR_SEMANTIC;
        return NULL;
    }
    return st->select->items[0].expr;
}

/* The stored expression of decl column i, parsed once. */
static const rsql_expr_t *parsed(rsql_plan_table_t *t, int i, rsql_pos_t pos, rsql_error_t *err)
{
    rsql_plan_computed_t *c = &t->computed[i];
    if (c->ast) {
        return c->ast;
    }
    const rsql_col_t *col = &t->decl->columns[i];
    rsql_parse_destroy(c->parse);
    rsql_err_t code;
    if (!(c->ast = rsql_plan__parse_stored(col->expr, &c->parse, &code))) {
        if (code == RSQL_ERR_NOMEM) {
            rsql_error_nomem(err);
        } else {
            rsql_error_set(err, code, pos,
                           "computed column '%s' of table '%s': its stored expression '%s' no "
                           "longer parses (drop and create the table again)",
                           col->name, t->decl->name, col->expr);
        }
    }
    return c->ast;
}

/* See plan_int.h. */
rsql_bexpr_t *rsql_plan__bind_computed(rsql_bind_t *b, int i, rsql_pos_t pos, rsql_error_t *err)
{
    rsql_plan_table_t *t = b->from;
    const rsql_col_t *col = &t->decl->columns[i];
    if (b->in_computed) {
        rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                       "a computed column cannot refer to computed column '%s'", col->name);
        return NULL;
    }
    rsql_plan_computed_t *c = &t->computed[i];
    const rsql_bexpr_t *first = c->slot >= 0 ? t->slots[c->slot] : NULL;
    rsql_bexpr_t *x = NULL;
    if (!first) { /* the first reference: bind the expression, give it a slot */
        const rsql_expr_t *ast = parsed(t, i, pos, err);
        if (!ast) {
            return NULL;
        }
        rsql_bind_t sub = *b;
        sub.in_computed = true;
        rsql_error_t e;
        rsql_error_clear(&e);
        if (!(x = rsql_plan__bind_expr(&sub, ast, &e))) {
            rsql_error_set(err, e.code, pos, "computed column '%s' (AS %s) of table '%s': %s",
                           col->name, col->expr, t->decl->name, e.msg);
            return NULL;
        }
        rsql_plan__place(x, pos); /* an error evaluating it points at its first reference */
    }
    rsql_bexpr_t *n = rsql_plan__node(b->arena, RSQL_BX_COMPUTED,
                                      first ? first->type : x->type, pos, 1);
    if (!n) {
        rsql_error_nomem(err);
        return NULL;
    }
    n->desc = first ? first->desc : x->desc;
    n->name = col->name; /* the plan owns decl */
    n->args[0] = first ? first->args[0] : x;
    if (!first) {
        c->slot = t->n_slots++;
        t->slots[c->slot] = n;
    }
    /* after the row's columns: the FROM table's, then a looked-up table's or a window's */
    n->column = b->table->n_columns + (b->dim ? b->dim->n_columns : 0) + (b->win_col ? 3 : 0) +
                c->slot;
    return n;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_computed_type(const rsql_table_def_t *def, const rsql_expr_t *x,
                                   const char *sql, rsql_type_t *type,
                                   const rsql_tdesc_t **desc, rsql_error_t *err)
{
    rsql_table_def_t phys = *def;
    rsql_col_t *cols = rsql_calloc((size_t)def->n_columns + 1, sizeof *cols);
    rsql_arena_t *arena = rsql_arena_new();
    if (!cols || !arena) {
        rsql_free(cols);
        rsql_arena_destroy(arena);
        return rsql_error_nomem(err);
    }
    phys.n_columns = 0;
    phys.columns = cols;
    for (int i = 0; i < def->n_columns; i++) {
        if (!def->columns[i].expr) {
            cols[phys.n_columns++] = def->columns[i];
        }
    }
    rsql_plan_table_t from = {0};
    from.decl = (rsql_table_def_t *)def; /* names the computed columns only */
    rsql_bind_t b = {arena, sql, &phys, 0, &from, true, NULL};
    rsql_bexpr_t *bx = rsql_plan__bind_expr(&b, x, err);
    rsql_err_t rc = RSQL_OK;
    if (!bx) {
        rc = err ? err->code : RSQL_ERR_SEMANTIC;
    } else if (bx->type == RSQL_TYPE_NULL) {
        rc = rsql_error_set(err, RSQL_ERR_TYPE, x->pos,
                            "a computed column needs a type: CAST(NULL AS <type>)");
    } else if (bx->type == RSQL_TYPE_INTERVAL) {
        rc = rsql_error_set(err, RSQL_ERR_TYPE, x->pos,
                            "a computed column cannot be an %s (no column holds an interval): "
                            "add it to a TIMESTAMP(3), or CAST it to VARCHAR",
                            rsql_type_name(bx->type));
    } else {
        *type = bx->type;
        *desc = bx->desc;
    }
    rsql_arena_destroy(arena);
    rsql_free(cols);
    return rc;
}
