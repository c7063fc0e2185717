/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_meta: METADATA columns at planning. Every METADATA column of a bound table is
 * checked again against its connector's key table (the catalog may predate the build:
 * unknown key, type), a table read from has only readable keys, a table written to has
 * only VIRTUAL or writable ones; and the plan records which metadata the source must
 * read: the keys of the METADATA columns the filter and the outputs use, so a source pays
 * nothing for the keys a statement leaves alone.
 *
 * Entry points: rsql_plan__check_meta, rsql_plan__source_meta (plan_int.h).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "connectors/formats/rsql_format.h"

#include <string.h>

/* See plan_int.h. */
rsql_err_t rsql_plan__check_meta(const rsql_plan_table_t *t, int side, rsql_pos_t pos,
                                 rsql_error_t *err)
{
    const rsql_table_def_t *def = t->def;
    for (int i = 0; i < def->n_columns; i++) {
        const rsql_col_t *c = &def->columns[i];
        const char *key = rsql_col_meta_key(c);
        if (!key) {
            continue;
        }
        if (side == RSQL_SIDE_LOOKUP) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                                  "table '%s' cannot be looked up: its column '%s' is METADATA "
                                  "(a lookup reads the rows of the table, by key)",
                                  def->name, c->name);
        }
        rsql_err_t rc = rsql_connector_check_meta_in(t->conn, t->format, c->name, c->type,
                                                     c->desc, key, c->is_virtual, pos, pos, pos,
                                                     err);
        if (rc != RSQL_OK) {
            return rc;
        }
        const rsql_meta_def_t *m = rsql_connector_meta_find(t->conn, key);
        if (!m) { /* the format's ("value.<key>"): read-only */
            if (side == RSQL_SIDE_SINK && !c->is_virtual) {
                return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                                      "table '%s' cannot be written to: metadata key '%s' of "
                                      "its column '%s' is format metadata of '%s', read-only "
                                      "(declare the column VIRTUAL)",
                                      def->name, key, c->name, t->format);
            }
            continue;
        }
        if (side == RSQL_SIDE_SOURCE && !(m->flags & RSQL_META_READ)) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                                  "table '%s' cannot be read from: metadata key '%s' of its "
                                  "column '%s' is not readable by connector '%s'",
                                  def->name, m->key, c->name, t->conn->name);
        }
        if (side == RSQL_SIDE_SINK && !c->is_virtual && !(m->flags & RSQL_META_WRITE)) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                                  "table '%s' cannot be written to: metadata key '%s' of its "
                                  "column '%s' is read-only for connector '%s' (declare the "
                                  "column VIRTUAL)",
                                  def->name, m->key, c->name, t->conn->name);
        }
    }
    return RSQL_OK;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_reads(const rsql_plan_t *plan,
                           rsql_err_t (*visit)(void *opaque, const rsql_bexpr_t *e),
                           void *opaque)
{
    rsql_err_t rc = RSQL_OK;
    const rsql_plan_agg_t *a = plan->agg;
    if (a) {
        if (a->pre) {
            rc = visit(opaque, a->pre);
        }
        for (int g = 0; rc == RSQL_OK && g < a->n_group; g++) {
            rc = visit(opaque, a->group[g]);
        }
        for (int c = 0; rc == RSQL_OK && c < a->n_calls; c++) {
            rc = a->calls[c].arg ? visit(opaque, a->calls[c].arg) : RSQL_OK;
        }
        const rsql_plan_window_t *w = plan->window;
        if (rc == RSQL_OK && w) { /* the event time and the watermark */
            rc = visit(opaque, w->time);
            rc = rc == RSQL_OK ? visit(opaque, w->watermark) : rc;
        }
        return rc; /* HAVING and the outputs read the aggregate row */
    }
    if (plan->filter) {
        rc = visit(opaque, plan->filter);
    }
    for (int i = 0; rc == RSQL_OK && i < plan->n_outputs; i++) {
        rc = visit(opaque, plan->outputs[i].expr);
    }
    if (rc == RSQL_OK && plan->window) { /* a window function's rows: their time */
        rc = visit(opaque, plan->window->time);
    }
    const rsql_plan_lookup_t *l = plan->lookup;
    for (int i = 0; rc == RSQL_OK && l && i < l->n_key; i++) {
        rc = visit(opaque, l->keys[i]);
    }
    if (rc == RSQL_OK && l && l->cond) {
        rc = visit(opaque, l->cond);
    }
    const rsql_plan_dedup_t *d = plan->dedup;
    for (int k = 0; rc == RSQL_OK && d && k < d->n_key; k++) {
        rc = visit(opaque, d->keys[k]);
    }
    if (rc == RSQL_OK && d && d->order) {
        rc = visit(opaque, d->order);
    }
    if (rc == RSQL_OK && d && d->pre) {
        rc = visit(opaque, d->pre);
    }
    return rc;
}

typedef struct used {
    bool *used;
    int n;
} used_t;

/* Mark the source columns e reads in u->used[] (an rsql_plan_reads visitor). */
static rsql_err_t mark_used(void *opaque, const rsql_bexpr_t *e)
{
    used_t *u = opaque;
    if (e->kind == RSQL_BX_COLUMN && e->column >= 0 && e->column < u->n) {
        u->used[e->column] = true;
    }
    for (int i = 0; i < e->n_args; i++) {
        if (e->args[i]) {
            mark_used(u, e->args[i]);
        }
    }
    return RSQL_OK;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__source_meta(rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_table_def_t *def = plan->source.def;
    int n = def->n_columns;
    bool any = false;
    for (int i = 0; i < n; i++) {
        any |= def->columns[i].metadata;
    }
    plan->source_meta = NULL;
    if (!any) {
        return RSQL_OK;
    }
    bool *used = rsql_arena_alloc(plan->arena, sizeof(bool) * (size_t)n);
    const char **keys = rsql_arena_alloc(plan->arena, sizeof(char *) * (size_t)n);
    const char **fkeys = rsql_arena_alloc(plan->arena, sizeof(char *) * (size_t)n);
    if (!used || !keys || !fkeys) {
        return rsql_error_nomem(err);
    }
    bool any_fmeta = false;
    memset(used, 0, sizeof(bool) * (size_t)n);
    used_t u = {used, n};
    rsql_plan_reads(plan, mark_used, &u);
    for (int i = 0; i < n; i++) {
        const char *key = rsql_col_meta_key(&def->columns[i]);
        const rsql_meta_def_t *m = rsql_connector_meta_find(plan->source.conn, key);
        const rsql_format_meta_t *fm =
            m ? NULL : rsql_connector_format_meta(plan->source.format, key);
        keys[i] = NULL;
        fkeys[i] = NULL;
        if (key && (!used[i] || fm)) {
            keys[i] = ""; /* left alone, or the decoder's (a format's metadata) */
            if (fm && used[i]) {
                fkeys[i] = fm->key;
                any_fmeta = true;
            }
        } else if (key) {
            /* the connector's own spelling, so a source may compare with strcmp */
            keys[i] = m ? m->key : key;
        }
    }
    plan->source_meta = keys;
    plan->source_fmeta = any_fmeta ? fkeys : NULL;
    return RSQL_OK;
}
