/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_watermark: CREATE TABLE's check of WATERMARK FOR column AS expr (Flink's clause). At
 * most one per table; the column is one of the table's (physical, METADATA or computed) and
 * a TIMESTAMP(3); the expression binds over the table's columns (computed ones by their
 * types), returns TIMESTAMP(3), and calls nothing whose value is not a function of the row
 * (NOW(), PROCTIME(), UUID(), ... nor a window function), neither itself nor through a
 * computed column it reads. The catalog keeps the expression as written on the column (its
 * watermark); a window aggregation over the table generates watermarks with it
 * (plan_window.c, engine/rt_window.c).
 */
#include "config.h"
#include "planner/plan_int.h"

#include <string.h>
#include <strings.h>

static int find_col(const rsql_table_def_t *def, const char *name)
{
    for (int i = 0; i < def->n_columns; i++) {
        if (strcasecmp(def->columns[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* The first call in x whose value is not a function of the row, or NULL. */
static const rsql_expr_t *nondeterministic(const rsql_expr_t *x, const rsql_column_def_t *cols,
                                           int n_cols, int depth)
{
    static const char *const names[] = {"CURRENT_TIMESTAMP", "NOW", "PROCTIME", "UUID",
                                        "RAND", "RAND_INTEGER", "LOCALTIMESTAMP",
                                        "CURRENT_DATE", "CURRENT_TIME", "CURRENT_ROW_TIMESTAMP"};
    if (!x || depth > RSQL_SQL_MAX_EXPR_DEPTH) {
        return NULL;
    }
    if (x->kind == RSQL_EX_FUNC && x->name) {
        if (x->over) {
            return x;
        }
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (strcasecmp(x->name, names[i]) == 0) {
                return x;
            }
        }
        if (strcasecmp(x->name, "UNIX_TIMESTAMP") == 0 && x->args.n == 0) {
            return x;
        }
    }
    if (x->kind == RSQL_EX_COLUMN && cols) { /* t.pt too: the table is the only one */
        for (int i = 0; i < n_cols; i++) {
            if (cols[i].computed && strcasecmp(cols[i].name.name, x->name) == 0 &&
                nondeterministic(cols[i].computed, NULL, 0, depth + 1)) {
                return x;
            }
        }
    }
    const rsql_expr_t *kids[3] = {x->left, x->right, x->third};
    for (int i = 0; i < 3; i++) {
        const rsql_expr_t *f = nondeterministic(kids[i], cols, n_cols, depth + 1);
        if (f) {
            return f;
        }
    }
    for (int i = 0; i < x->args.n; i++) {
        const rsql_expr_t *f = nondeterministic(x->args.items[i], cols, n_cols, depth + 1);
        if (f) {
            return f;
        }
    }
    return NULL;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_watermark_check(const rsql_table_def_t *def, const rsql_column_def_t *cols,
                                     int n_cols, const rsql_watermark_t *wm, int n_wm,
                                     const char *sql, rsql_error_t *err)
{
    if (n_wm > 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, wm[1].pos,
                              "a second WATERMARK: a table has one event-time column at most");
    }
    if (n_wm == 0) {
        return RSQL_OK;
    }
    const rsql_watermark_t *w = &wm[0];
    int c = find_col(def, w->column.name);
    if (c < 0) {
        return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, w->column.pos,
                              "WATERMARK FOR %s: no such column in table '%s'", w->column.name,
                              def->name);
    }
    if (def->columns[c].type != RSQL_TYPE_TIMESTAMP) {
        return rsql_error_set(err, RSQL_ERR_TYPE, w->column.pos,
                              "WATERMARK FOR %s: the column is %s; the event-time column must be "
                              "TIMESTAMP(3)",
                              w->column.name,
                              rsql_tdesc_of(def->columns[c].type, def->columns[c].desc)->text);
    }
    const rsql_expr_t *bad = nondeterministic(w->expr, cols, n_cols, 0);
    rsql_pos_t at = bad ? bad->pos : w->column.pos;
    if (bad || (c < n_cols && cols[c].computed &&
                nondeterministic(cols[c].computed, NULL, 0, 0))) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, at,
                              "a WATERMARK must be a function of the row: '%.*s' is not "
                              "(no NOW(), PROCTIME(), UUID(), window functions)",
                              (int)at.len, sql ? sql + at.off : "?");
    }
    rsql_arena_t *arena = rsql_arena_new();
    if (!arena) {
        return rsql_error_nomem(err);
    }
    rsql_bind_t b = {arena, sql, def, 0, NULL, false, NULL};
    rsql_bexpr_t *bx = rsql_plan__bind_expr(&b, w->expr, err);
    rsql_err_t rc = RSQL_OK;
    if (!bx) {
        rc = err ? err->code : RSQL_ERR_SEMANTIC;
    } else if (bx->type != RSQL_TYPE_TIMESTAMP) {
        rc = rsql_error_set(err, RSQL_ERR_TYPE, w->expr->pos,
                            "a WATERMARK expression must return TIMESTAMP(3), got %s "
                            "(e.g. %s - INTERVAL '5' SECOND)",
                            rsql_tdesc_of(bx->type, bx->desc)->text, w->column.name);
    }
    rsql_arena_destroy(arena);
    return rc;
}
