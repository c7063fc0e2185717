/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_names: what a column name in a statement refers to. The row a statement is bound
 * against holds the FROM table's columns, then (a lookup join) the looked-up table's, then
 * the computed columns referred to (plan_computed.c). A name is qualified by a table's
 * alias when the statement gives one, else by its name; an unqualified name of both tables
 * is ambiguous; q.f is field f of a ROW column q before q is taken for a table.
 */
#include "config.h"
#include "planner/plan_int.h"

#include <string.h>
#include <strings.h>

/* See plan_int.h. */
bool rsql_plan__names_table(const rsql_bind_t *b, const char *q, rsql_pos_t pos,
                            rsql_error_t *err)
{
    if (strcasecmp(q, b->alias ? b->alias : b->table->name) == 0) {
        return true;
    }
    if (err && b->alias && strcasecmp(q, b->table->name) == 0) {
        rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos,
                       "no such table: %s (FROM %s AS %s: the statement calls it %s)", q,
                       b->table->name, b->alias, b->alias);
    } else if (err) {
        rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos, "no such table: %s", q);
    }
    return false;
}

/* Does q name b's looked-up table (its alias when it has one, else its name)? */
static bool names_dim(const rsql_bind_t *b, const char *q)
{
    return b->dim && strcasecmp(q, b->dim_alias ? b->dim_alias : b->dim->name) == 0;
}

/* The column of t named name (any case), or -1. */
static int find_column(const rsql_table_def_t *t, const char *name)
{
    for (int i = 0; t && i < t->n_columns; i++) {
        if (strcasecmp(t->columns[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* Column i of t, at row index offset + i, referred to at pos. */
static rsql_bexpr_t *column_node(rsql_bind_t *b, const rsql_table_def_t *t, int i, int offset,
                                 rsql_pos_t pos, rsql_error_t *err)
{
    rsql_bexpr_t *c = rsql_plan__node(b->arena, RSQL_BX_COLUMN, t->columns[i].type, pos, 0);
    if (!c) {
        rsql_error_nomem(err);
        return NULL;
    }
    c->column = offset + i;
    c->name = t->columns[i].name; /* the plan owns the table def */
    c->desc = rsql_type_is_param(c->type) ? t->columns[i].desc : NULL;
    return c;
}

/* q.field where q is a ROW column of the FROM table (computed or not) or of the looked-up
   one; NULL with *done false when q is no such column. */
static rsql_bexpr_t *bind_row_qualifier(rsql_bind_t *b, const rsql_expr_t *e, bool *done,
                                        rsql_error_t *err)
{
    rsql_pos_t qp = {e->pos.off, (uint32_t)strlen(e->qualifier)};
    rsql_pos_t np = {e->pos.off + e->pos.len - (uint32_t)strlen(e->name),
                     (uint32_t)strlen(e->name)};
    int i = find_column(b->table, e->qualifier), k = -1, d = -1;
    rsql_bexpr_t *c = NULL;
    *done = true;
    if (i >= 0 && b->table->columns[i].type == RSQL_TYPE_ROW) {
        c = column_node(b, b->table, i, 0, qp, err);
    } else if ((k = rsql_plan__computed_index(b, e->qualifier)) >= 0 &&
               b->from->decl->columns[k].type == RSQL_TYPE_ROW) {
        c = rsql_plan__bind_computed(b, k, qp, err);
    } else if ((d = find_column(b->dim, e->qualifier)) >= 0 &&
               b->dim->columns[d].type == RSQL_TYPE_ROW) {
        c = column_node(b, b->dim, d, b->dim_offset, qp, err);
    } else {
        *done = false;
        return NULL;
    }
    return c ? rsql_plan__bind_field(b, c, e->name, e->pos, np, err) : NULL;
}

/* See plan_int.h. */
rsql_bexpr_t *rsql_plan__bind_column(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err)
{
    const rsql_table_def_t *t = b->table;
    bool src = true, dim = b->dim != NULL; /* the tables the name may be of */
    if (b->win_col && (!e->qualifier || rsql_plan__names_table(b, e->qualifier, e->pos, NULL))) {
        rsql_error_t none;
        rsql_bexpr_t *w = rsql_plan__window_column(b, e->name, e->pos, &none);
        if (w) { /* a window's window_start, window_end or window_time */
            return w;
        }
    }
    if (e->qualifier) { /* q.name: q a ROW column (q.field) unless q names a table */
        bool done;
        rsql_bexpr_t *x = bind_row_qualifier(b, e, &done, err);
        if (done) {
            return x;
        }
        src = rsql_plan__names_table(b, e->qualifier, e->pos, NULL);
        dim = !src && names_dim(b, e->qualifier);
        if (!src && !dim) {
            if (b->alias && strcasecmp(e->qualifier, t->name) == 0) {
                rsql_plan__names_table(b, e->qualifier, e->pos, err);
            } else if (b->dim_alias && strcasecmp(e->qualifier, b->dim->name) == 0) {
                rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, e->pos,
                               "no such table: %s (JOIN %s AS %s: the statement calls it %s)",
                               e->qualifier, b->dim->name, b->dim_alias, b->dim_alias);
            } else {
                rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, e->pos, "no such column: %s.%s",
                               e->qualifier, e->name);
            }
            return NULL;
        }
    }
    int i = src ? find_column(t, e->name) : -1;
    int k = src && i < 0 ? rsql_plan__computed_index(b, e->name) : -1;
    int d = dim ? find_column(b->dim, e->name) : -1;
    if ((i >= 0 || k >= 0) && d >= 0) {
        const char *sq = b->alias ? b->alias : t->name;
        const char *dq = b->dim_alias ? b->dim_alias : b->dim->name;
        rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos,
                       "column name '%s' is ambiguous: %s.%s or %s.%s", e->name, sq, e->name,
                       dq, e->name);
        return NULL;
    }
    if (i >= 0) {
        return column_node(b, t, i, 0, e->pos, err);
    }
    if (k >= 0) {
        return rsql_plan__bind_computed(b, k, e->pos, err);
    }
    if (d >= 0) {
        return column_node(b, b->dim, d, b->dim_offset, e->pos, err);
    }
    rsql_plan__no_such_column(src ? t : b->dim, e->qualifier, e->name, e->pos, err);
    return NULL;
}
