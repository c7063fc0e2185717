/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_build: INSERT / SELECT -> plan. Loads the FROM and INTO tables from
 * the catalog, re-validates their stored options against their connectors,
 * checks that each can be used on its side (read / written) and that its
 * format fits its columns, binds the select list and WHERE (plan_bind.c),
 * maps the select list onto the sink's columns (by name with a column
 * list, else by position; widening casts only), and reads the session
 * settings the runtime needs (error tolerance and dead-letter table,
 * retries, queue capacity, preview limit).
 *
 * Entry points: rsql_plan_build, rsql_plan_destroy (rsql_plan.h).
 */
#include "config.h"
#include "planner/plan_int.h"

#include "base/rsql_settings.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- tables */

/* Index of the column named name in def, or -1. */
static int column_index(const rsql_table_def_t *def, const char *name)
{
    for (int i = 0; i < def->n_columns; i++) {
        if (strcasecmp(def->columns[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/*
** Re-validate def's stored options against its connector (into t->opts).
** An error is reported at pos (the table's name in the statement) since
** stored options have no place of their own.
*/
static rsql_err_t validate_stored(rsql_plan_table_t *t, rsql_pos_t pos, rsql_error_t *err)
{
    const rsql_table_def_t *def = t->def;
    rsql_opt_kv_t *kvs = rsql_calloc((size_t)(def->n_options + 1), sizeof(*kvs));
    const char **cols = rsql_calloc((size_t)(def->n_columns + 1), sizeof(*cols));
    if (!kvs || !cols) {
        rsql_free(kvs);
        rsql_free(cols);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < def->n_options; i++) {
        kvs[i].key = def->options[i].key;
        kvs[i].value = def->options[i].value;
        kvs[i].key_pos = kvs[i].value_pos = RSQL_NOPOS;
    }
    int n_phys = 0;
    for (int i = 0; i < def->n_columns; i++) {
        if (!def->columns[i].metadata) { /* the connector's options see physical columns */
            cols[n_phys++] = def->columns[i].name;
        }
    }
    rsql_error_t verr;
    rsql_error_clear(&verr);
    /* a plan is what runs: ${env:...} / ${file:...} references are resolved now */
    t->opts = rsql_connector_validate_ex(kvs, def->n_options, cols, n_phys, RSQL_NOPOS,
                                         RSQL_OPTSET_RESOLVE, &t->conn, &verr);
    rsql_free(kvs);
    rsql_free(cols);
    if (!t->opts) {
        if (verr.pos.off == RSQL_POS_NONE && verr.code != RSQL_ERR_NOMEM) {
            verr.pos = pos;
        }
        if (verr.code == RSQL_OK) {
            verr.code = RSQL_ERR_BAD_OPTION;
        }
        rsql_error_copy(err, &verr);
        return verr.code;
    }
    const rsql_format_def_t *fmt = rsql_connector_format(t->conn, t->opts);
    t->format = fmt ? fmt->name : NULL;
    return RSQL_OK;
}

/*
** The table's options fit its columns' types (rsql_connector_def_t.check_columns) and its
** format accepts them (rsql_format_def_t.check_columns).
*/
static rsql_err_t check_columns(const rsql_plan_table_t *t, rsql_pos_t pos, rsql_error_t *err)
{
    const rsql_format_def_t *fmt = rsql_connector_format(t->conn, t->opts);
    const rsql_table_def_t *def = t->def;
    if ((!fmt || !fmt->check_columns) && !t->conn->check_columns) {
        return RSQL_OK;
    }
    int n = 0;
    const char **names = rsql_calloc((size_t)(def->n_columns + 1), sizeof *names);
    rsql_type_t *types = rsql_calloc((size_t)(def->n_columns + 1), sizeof *types);
    rsql_err_t rc;
    if (!names || !types) {
        rc = rsql_error_nomem(err);
    } else {
        for (int i = 0; i < def->n_columns; i++) { /* the body's columns, not METADATA ones */
            if (!def->columns[i].metadata) {
                names[n] = def->columns[i].name;
                types[n++] = def->columns[i].type;
            }
        }
        rc = rsql_connector_check_columns(t->conn, t->opts, def->name, n, names, types, pos,
                                          err);
        if (rc == RSQL_OK && fmt && fmt->check_columns) {
            rc = fmt->check_columns(def->name, n, names, types, pos, err);
        }
    }
    rsql_free(names);
    rsql_free(types);
    return rc;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__bind_table(rsql_catalog_t *cat, const char *name, rsql_pos_t pos, int side,
                                 rsql_plan_table_t *t, rsql_error_t *err)
{
    rsql_error_t cerr;
    rsql_error_clear(&cerr);
    if (rsql_catalog_table_get(cat, name, &t->def, &cerr)) {
        if (cerr.pos.off == RSQL_POS_NONE) {
            cerr.pos = pos;
        }
        rsql_error_copy(err, &cerr);
        return cerr.code;
    }
    if (!t->def) {
        return rsql_plan_no_such_table(cat, name, pos, err);
    }
    t->pos = pos;
    rsql_err_t rc = rsql_plan__split_computed(t, err);
    if (rc == RSQL_OK) {
        rc = validate_stored(t, pos, err);
    }
    if (rc) {
        return rc;
    }
    if ((rc = rsql_connector_check_side(t->conn, t->opts, side, t->def->name, pos, err)) ||
        (rc = rsql_plan__check_meta(t, side, pos, err))) {
        return rc;
    }
    return check_columns(t, pos, err);
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_check_source(const rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_plan_table_t *t = &plan->source;
    if (!t->conn || !t->def) {
        return RSQL_OK;
    }
    return rsql_connector_check_source(t->conn, t->opts, t->def->name, t->pos, err);
}

static void table_deinit(rsql_plan_table_t *t)
{
    rsql_optset_destroy(t->opts);
    if (t->def) {
        rsql_table_def_free(t->def);
    }
    rsql_plan__computed_free(t);
    memset(t, 0, sizeof(*t));
}

/* ---- settings */

typedef struct settings_view {
    const rsql_settings_t *s;
    rsql_settings_t *defaults; /* owned when the caller passed NULL */
} settings_view_t;

/* ---- the dead-letter table of errors.dlq.table */

static rsql_err_t bind_dlq(rsql_catalog_t *cat, const char *name, rsql_plan_table_t *t,
                           rsql_error_t *err)
{
    static const struct {
        const char *name;
        rsql_type_t t1, t2;
        const char *want;
    } need[] = {
        {"raw", RSQL_TYPE_BYTES, RSQL_TYPE_VARCHAR, "BYTES or VARCHAR"},
        {"stage", RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, "VARCHAR"},
        {"error", RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, "VARCHAR"},
        {"source", RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, "VARCHAR"},
        {"ts", RSQL_TYPE_TIMESTAMP, RSQL_TYPE_TIMESTAMP, "TIMESTAMP(3)"},
    };
    rsql_error_t cerr;
    rsql_error_clear(&cerr);
    if (rsql_catalog_table_get(cat, name, &t->def, &cerr)) {
        rsql_error_copy(err, &cerr);
        return cerr.code;
    }
    if (!t->def) {
        return rsql_error_set(err, RSQL_ERR_BAD_SETTING, RSQL_NOPOS,
                              "dead-letter table '%s' does not exist (setting errors.dlq.table)",
                              name);
    }
    rsql_err_t src = rsql_plan__split_computed(t, err);
    if (src != RSQL_OK) {
        return src;
    }
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
        int c = column_index(t->def, need[i].name);
        if (c < 0 || (t->def->columns[c].type != need[i].t1 &&
                      t->def->columns[c].type != need[i].t2)) {
            return rsql_error_set(err, RSQL_ERR_BAD_SETTING, RSQL_NOPOS,
                                  "dead-letter table '%s' must have column '%s' %s (setting "
                                  "errors.dlq.table)",
                                  t->def->name, need[i].name, need[i].want);
        }
    }
    for (int i = 0; i < t->def->n_columns; i++) {
        bool known = false;
        for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++) {
            known |= strcasecmp(t->def->columns[i].name, need[k].name) == 0;
        }
        if (!known && t->def->columns[i].not_null) {
            return rsql_error_set(err, RSQL_ERR_BAD_SETTING, RSQL_NOPOS,
                                  "dead-letter table '%s' has NOT NULL column '%s' that a "
                                  "dead letter cannot fill (setting errors.dlq.table)",
                                  t->def->name, t->def->columns[i].name);
        }
    }
    rsql_error_t verr;
    rsql_error_clear(&verr);
    if (validate_stored(t, RSQL_NOPOS, &verr) ||
        rsql_connector_check_side(t->conn, t->opts, RSQL_SIDE_SINK, t->def->name, RSQL_NOPOS,
                                  &verr) ||
        check_columns(t, RSQL_NOPOS, &verr)) {
        if (verr.code == RSQL_ERR_NOMEM) {
            rsql_error_copy(err, &verr);
        } else {
            rsql_error_set(err, RSQL_ERR_BAD_SETTING, RSQL_NOPOS, "%s (setting errors.dlq.table)",
                           verr.msg);
        }
        return err ? err->code : RSQL_ERR_BAD_SETTING;
    }
    return RSQL_OK;
}

/* ---- the select list */

typedef struct sel_item {
    rsql_bexpr_t *expr;
    rsql_pos_t pos;   /* the item (the '*' for expanded columns) */
    const char *name; /* output name */
} sel_item_t;

static rsql_pos_t span(rsql_pos_t a, rsql_pos_t b)
{
    rsql_pos_t p = a;
    if (b.off != RSQL_POS_NONE && b.off + b.len > a.off + a.len) {
        p.len = b.off + b.len - a.off;
    }
    return p;
}

static rsql_err_t bind_select_list(rsql_bind_t *b, const rsql_select_t *sel, sel_item_t **out,
                                   int *n_out, rsql_error_t *err)
{
    const rsql_table_def_t *t = b->table;
    /* * lists the columns as declared, computed ones included, then a joined table's */
    const rsql_table_def_t *decl = b->from && b->from->decl ? b->from->decl : t;
    int n_dim = b->dim ? b->dim->n_columns : 0;
    int n_win = b->win_col > 0 ? 3 : 0; /* a window function's columns follow the table's */
    int n = 0;
    for (int i = 0; i < sel->n_items; i++) {
        n += sel->items[i].expr->kind == RSQL_EX_STAR ? decl->n_columns + n_dim + n_win : 1;
    }
    sel_item_t *items = rsql_arena_alloc(b->arena, sizeof(sel_item_t) * (size_t)(n ? n : 1));
    if (!items) {
        return rsql_error_nomem(err);
    }
    int k = 0;
    for (int i = 0; i < sel->n_items; i++) {
        const rsql_select_item_t *it = &sel->items[i];
        const rsql_expr_t *e = it->expr;
        if (e->kind == RSQL_EX_STAR) {
            bool dim_only = e->qualifier && b->dim &&
                            strcasecmp(e->qualifier, b->dim_alias ? b->dim_alias
                                                                  : b->dim->name) == 0;
            if (e->qualifier && !dim_only &&
                !rsql_plan__names_table(b, e->qualifier, e->pos, err)) {
                return err ? err->code : RSQL_ERR_UNKNOWN_NAME;
            }
            for (int d = 0; d < n_dim && (dim_only || !e->qualifier); d++) {
                const rsql_col_t *dc = &b->dim->columns[d];
                rsql_bexpr_t *col = rsql_plan__node(b->arena, RSQL_BX_COLUMN, dc->type,
                                                    e->pos, 0);
                if (!col) {
                    return rsql_error_nomem(err);
                }
                col->column = b->dim_offset + d;
                col->name = dc->name;
                col->desc = rsql_type_is_param(col->type) ? dc->desc : NULL;
                items[k + (dim_only ? 0 : decl->n_columns) + d] =
                    (sel_item_t){col, e->pos, dc->name};
            }
            if (dim_only) {
                k += n_dim;
                continue;
            }
            for (int d = 0, c = 0; d < decl->n_columns; d++) {
                rsql_bexpr_t *col;
                if (decl->columns[d].expr) {
                    if (!(col = rsql_plan__bind_computed(b, d, e->pos, err))) {
                        return err ? err->code : RSQL_ERR_SEMANTIC;
                    }
                    items[k].name = decl->columns[d].name;
                } else {
                    col = rsql_plan__node(b->arena, RSQL_BX_COLUMN, t->columns[c].type, e->pos, 0);
                    if (!col) {
                        return rsql_error_nomem(err);
                    }
                    col->column = c;
                    col->name = t->columns[c].name;
                    col->desc = rsql_type_is_param(col->type) ? t->columns[c].desc : NULL;
                    items[k].name = t->columns[c].name;
                    c++;
                }
                items[k].expr = col;
                items[k].pos = e->pos;
                k++;
            }
            static const char *const win_names[3] = {"window_start", "window_end",
                                                     "window_time"};
            for (int w = 0; w < n_win; w++, k++) {
                if (!(items[k].expr = rsql_plan__window_column(b, win_names[w], e->pos, err))) {
                    return err && err->code ? err->code : rsql_error_nomem(err);
                }
                items[k].pos = e->pos;
                items[k].name = win_names[w];
            }
            k += e->qualifier ? 0 : n_dim; /* the joined table's, placed above */
            continue;
        }
        rsql_bexpr_t *x = rsql_plan__bind_expr(b, e, err);
        if (!x) {
            return err ? err->code : RSQL_ERR_SEMANTIC;
        }
        items[k].expr = x;
        items[k].pos = e->pos;
        if (it->alias.name) {
            items[k].name = rsql_arena_strdup(b->arena, it->alias.name);
        } else if (x->kind == RSQL_BX_COLUMN || x->kind == RSQL_BX_COMPUTED) {
            items[k].name = x->name;
        } else {
            items[k].name = rsql_arena_strndup(b->arena, b->sql + e->pos.off, e->pos.len);
        }
        if (!items[k].name) {
            return rsql_error_nomem(err);
        }
        k++;
    }
    *out = items;
    *n_out = k;
    return RSQL_OK;
}

/* GROUP BY: rsql_plan__agg_plan over the items' expressions. */
static rsql_err_t agg_plan(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                           sel_item_t *items, int n, rsql_error_t *err)
{
    rsql_bexpr_t **x = rsql_arena_alloc(plan->arena, sizeof *x * (size_t)(n ? n : 1));
    if (!x) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < n; i++) {
        x[i] = items[i].expr;
    }
    rsql_err_t rc = rsql_plan__agg_plan(plan, sel, b, x, n, err);
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        items[i].expr = x[i];
    }
    return rc;
}

/* One output for sink column col from select item it (widening cast, type check). */
static rsql_err_t map_output(rsql_plan_t *plan, const rsql_col_t *col, const sel_item_t *it,
                             rsql_plan_output_t *o, rsql_error_t *err)
{
    rsql_bexpr_t *x = it->expr;
    o->name = col->name;
    o->type = col->type;
    o->desc = rsql_type_is_param(col->type) ? col->desc : NULL;
    o->not_null = col->not_null;
    if (col->not_null && x->kind == RSQL_BX_CONST && x->value.is_null) {
        return rsql_error_set(err, RSQL_ERR_TYPE, it->pos,
                              "cannot insert NULL into column '%s' which is NOT NULL", col->name);
    }
    if (rsql_type_is_param(col->type) && x->type != RSQL_TYPE_NULL) {
        /* DECIMAL from DECIMAL or an integer (rescaled; overflow is an eval error), a
           nested type from exactly the same nested type */
        const rsql_tdesc_t *cd = rsql_tdesc_of(col->type, col->desc);
        const rsql_tdesc_t *xd = rsql_tdesc_of(x->type, x->desc);
        /* (a DOUBLE literal too: 1.5 is read through its shortest text, exactly as written
           for up to 17 significant digits; it is converted, and checked, at plan time) */
        bool ok = col->type == RSQL_TYPE_DECIMAL
                      ? x->type == RSQL_TYPE_DECIMAL || x->type == RSQL_TYPE_INT ||
                            x->type == RSQL_TYPE_BIGINT ||
                            (x->type == RSQL_TYPE_DOUBLE && x->kind == RSQL_BX_CONST)
                      : cd == xd;
        if (!ok) {
            return rsql_error_set(err, RSQL_ERR_TYPE, it->pos,
                                  "cannot insert %s into column '%s' of type %s",
                                  xd ? xd->text : rsql_type_name(x->type), col->name,
                                  cd ? cd->text : rsql_type_name(col->type));
        }
        if (x->kind == RSQL_BX_CONST && !x->value.is_null && x->type != RSQL_TYPE_DECIMAL &&
            col->type == RSQL_TYPE_DECIMAL) { /* a constant that cannot fit is a plan error */
            rsql_bexpr_t *c = rsql_plan__node(plan->arena, RSQL_BX_CONST, RSQL_TYPE_DECIMAL,
                                              x->pos, 0);
            rsql_error_t cerr;
            rsql_error_clear(&cerr);
            if (!c) {
                return rsql_error_nomem(err);
            }
            if (rsql_plan__cast_value_desc(&x->value, RSQL_TYPE_DECIMAL, cd, NULL, plan->arena,
                                           x->pos, &c->value, &cerr) != RSQL_OK) {
                return rsql_error_set(err, RSQL_ERR_TYPE, it->pos, "%s (column '%s')", cerr.msg,
                                      col->name);
            }
            c->desc = cd;
            o->expr = c;
            return RSQL_OK;
        }
        o->expr = rsql_plan__cast_desc(plan->arena, x, cd, true);
        return o->expr ? RSQL_OK : rsql_error_nomem(err);
    }
    if (!rsql_type_widens(x->type, col->type)) {
        return rsql_error_set(err, RSQL_ERR_TYPE, it->pos,
                              "cannot insert %s into column '%s' of type %s",
                              rsql_type_name(x->type), col->name, rsql_type_name(col->type));
    }
    if (x->type == RSQL_TYPE_NULL) {
        rsql_bexpr_t *c = rsql_plan__node(plan->arena, RSQL_BX_CONST, col->type, x->pos, 0);
        if (!c) {
            return rsql_error_nomem(err);
        }
        c->value.is_null = true;
        o->expr = c;
    } else if (!(o->expr = rsql_plan__cast(plan->arena, x, col->type, true))) {
        return rsql_error_nomem(err);
    }
    return RSQL_OK;
}

/*
** The sink's columns a row writes, in output order (*n of them): the physical columns,
** then the non-VIRTUAL METADATA ones, each in table order; out_of[c] = column c's output
** (-1 for a VIRTUAL column). decl gets the written columns in table order (the positional
** targets of an INSERT without a column list).
*/
static int sink_targets(const rsql_table_def_t *sink, int *out_of, int *decl, int *n_meta)
{
    int n = 0, k = 0;
    *n_meta = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < sink->n_columns; c++) {
            const rsql_col_t *col = &sink->columns[c];
            if (col->metadata != (pass == 1)) {
                continue;
            }
            out_of[c] = col->is_virtual ? -1 : n++;
            *n_meta += pass == 1 && !col->is_virtual;
        }
    }
    for (int c = 0; c < sink->n_columns; c++) {
        if (out_of[c] >= 0) {
            decl[k++] = c;
        }
    }
    return n;
}

static rsql_err_t map_insert(rsql_plan_t *plan, const rsql_insert_t *ins, const sel_item_t *items,
                             int n_items, rsql_pos_t list_pos, rsql_error_t *err)
{
    const rsql_table_def_t *sink = plan->sink.def;
    size_t nc = (size_t)(sink->n_columns + 1);
    int *out_of = rsql_arena_alloc(plan->arena, sizeof(int) * nc);
    int *decl = rsql_arena_alloc(plan->arena, sizeof(int) * nc);
    int *src_of = rsql_arena_alloc(plan->arena, sizeof(int) * nc);
    if (!out_of || !decl || !src_of) {
        return rsql_error_nomem(err);
    }
    int n_targets = sink_targets(sink, out_of, decl, &plan->n_sink_meta);
    plan->n_outputs = n_targets;
    plan->outputs =
        rsql_arena_alloc(plan->arena, sizeof(rsql_plan_output_t) * (size_t)(n_targets + 1));
    if (!plan->outputs) {
        return rsql_error_nomem(err);
    }
    memset(plan->outputs, 0, sizeof(rsql_plan_output_t) * (size_t)(n_targets + 1));
    rsql_err_t rc;
    if (ins->n_columns == 0) {
        if (n_items != n_targets) {
            bool virt = n_targets < sink->n_columns;
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, list_pos,
                                  "table '%s' has %d column%s%s but SELECT produces %d value%s",
                                  sink->name, n_targets, n_targets == 1 ? "" : "s",
                                  virt ? " that are not VIRTUAL" : "", n_items,
                                  n_items == 1 ? "" : "s");
        }
        for (int i = 0; i < n_items; i++) {
            const rsql_col_t *col = &sink->columns[decl[i]];
            rsql_plan_output_t *o = &plan->outputs[out_of[decl[i]]];
            if ((rc = map_output(plan, col, &items[i], o, err))) {
                return rc;
            }
            o->meta_key = rsql_col_meta_key(col);
        }
        return RSQL_OK;
    }
    for (int c = 0; c < sink->n_columns; c++) {
        src_of[c] = -1;
    }
    for (int i = 0; i < ins->n_columns; i++) {
        const rsql_ident_t *id = &ins->columns[i];
        int c = column_index(sink, id->name);
        const rsql_table_def_t *sdecl = plan->sink.decl;
        int dc = c < 0 && sdecl ? column_index(sdecl, id->name) : -1;
        if (dc >= 0) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, id->pos,
                                  "column '%s' of table '%s' is computed (AS %s): it cannot be "
                                  "written",
                                  sdecl->columns[dc].name, sink->name, sdecl->columns[dc].expr);
        }
        if (c < 0) {
            return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, id->pos,
                                  "table '%s' has no column named '%s'", sink->name, id->name);
        }
        if (sink->columns[c].is_virtual) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, id->pos,
                                  "column '%s' of table '%s' is VIRTUAL metadata: it cannot be "
                                  "written",
                                  sink->columns[c].name, sink->name);
        }
        if (src_of[c] >= 0) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, id->pos,
                                  "column '%s' is listed more than once", sink->columns[c].name);
        }
        src_of[c] = i;
    }
    if (n_items != ins->n_columns) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, list_pos,
                              "INSERT has %d target column%s but SELECT produces %d value%s",
                              ins->n_columns, ins->n_columns == 1 ? "" : "s", n_items,
                              n_items == 1 ? "" : "s");
    }
    for (int c = 0; c < sink->n_columns; c++) {
        const rsql_col_t *col = &sink->columns[c];
        if (out_of[c] < 0) {
            continue;
        }
        rsql_plan_output_t *o = &plan->outputs[out_of[c]];
        o->meta_key = rsql_col_meta_key(col);
        if (src_of[c] >= 0) {
            if ((rc = map_output(plan, col, &items[src_of[c]], o, err))) {
                return rc;
            }
            continue;
        }
        if (col->not_null) {
            rsql_pos_t lp = span(ins->columns[0].pos, ins->columns[ins->n_columns - 1].pos);
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, lp,
                                  "column '%s' is NOT NULL but gets no value (it is not in the "
                                  "column list)",
                                  col->name);
        }
        o->name = col->name;
        o->type = col->type;
        o->desc = rsql_type_is_param(col->type) ? col->desc : NULL;
        o->not_null = false;
        o->expr = rsql_plan__node(plan->arena, RSQL_BX_CONST, col->type, RSQL_NOPOS, 0);
        if (!o->expr) {
            return rsql_error_nomem(err);
        }
        o->expr->value.is_null = true;
    }
    return RSQL_OK;
}

/* ---- bounded sources */

/* The source connector decides (rsql_connector_def_t.bounded); no hook = unbounded. */
static void decide_bounded(rsql_plan_t *plan)
{
    const rsql_plan_table_t *t = &plan->source;
    const char *why = "unbounded";
    plan->source_bounded = false;
    if (t->conn->bounded) {
        plan->source_bounded =
            t->conn->bounded(rsql_optset_conf(t->opts, RSQL_CONF_CONNECTOR), &why);
    }
    plan->bounded_why = why;
}

/* ---- the plan */

/* See rsql_plan.h. */
bool rsql_plan_has_state(const rsql_plan_t *plan)
{
    return (plan->agg && !(plan->window && plan->window->in_sink)) ||
           (plan->dedup && !plan->dedup->in_sink);
}

/* Free plan and everything it owns. NULL-safe. */
void rsql_plan_destroy(rsql_plan_t *plan)
{
    if (!plan) {
        return;
    }
    table_deinit(&plan->source);
    table_deinit(&plan->sink);
    if (plan->lookup) {
        table_deinit(&plan->lookup->table);
    }
    table_deinit(&plan->errors.dlq);
    if (plan->window) {
        rsql_parse_destroy(plan->window->parse);
    }
    rsql_arena_destroy(plan->arena);
    rsql_free(plan->sql);
    rsql_free(plan);
}

static rsql_err_t read_settings(rsql_catalog_t *cat, rsql_plan_t *plan,
                                const rsql_settings_t *s, rsql_error_t *err)
{
    const char *tol = rsql_settings_get(s, "errors.tolerance");
    plan->errors.tolerate_all = tol && strcasecmp(tol, "all") == 0;
    plan->errors.retry_timeout_ms = rsql_settings_int(s, "errors.retry.timeout");
    plan->errors.retry_backoff_max_ms = rsql_settings_int(s, "errors.retry.backoff-max");
    plan->queue_capacity = rsql_settings_int(s, "pipeline.queue-capacity");
    plan->batch_size = rsql_settings_int(s, "pipeline.batch-size");
    plan->memory = rsql_settings_int(s, "pipeline.memory");
    plan->flush_interval_ms = rsql_settings_int(s, "state.flush-interval");
    if (plan->lookup) {
        plan->lookup->buffer_capacity =
            rsql_settings_int(s, "table.exec.async-lookup.buffer-capacity");
        plan->lookup->timeout_ms = rsql_settings_int(s, "table.exec.async-lookup.timeout");
        const rsql_lookup_ops_t *ops = plan->lookup->table.conn->lookup;
        int64_t per = plan->batch_size > 0 ? plan->batch_size : 512;
        int64_t n = plan->lookup->buffer_capacity / per;
        n = n > RSQL_LOOKUP_IN_FLIGHT_MAX ? RSQL_LOOKUP_IN_FLIGHT_MAX : n;
        plan->lookup->in_flight = ops && ops->send && n >= 2 ? (int)n : 0;
    }
    if (plan->dedup) {
        plan->dedup->ttl_ms = rsql_settings_int(s, "table.exec.state.ttl");
        plan->dedup->memory = rsql_settings_int(s, "state.memory");
    }
    /* a statement with state saves it with the positions, every state.checkpoint.interval */
    int64_t every = rsql_settings_int(s, "state.checkpoint.interval");
    if (every > 0 && rsql_plan_has_state(plan)) {
        plan->flush_interval_ms = every;
    }
    if (plan->window) { /* a window's state is forgotten when the window is given */
        plan->window->idle_timeout_ms = rsql_settings_int(s, "table.exec.source.idle-timeout");
    }
    if (plan->agg) {
        plan->agg->ttl_ms = plan->window ? 0 : rsql_settings_int(s, "table.exec.state.ttl");
        plan->agg->memory = rsql_settings_int(s, "state.memory");
        const char *mb = rsql_settings_get(s, "table.exec.mini-batch.enabled");
        plan->agg->mini_batch = mb && strcasecmp(mb, "true") == 0;
        int64_t mb_size = rsql_settings_int(s, "table.exec.mini-batch.size");
        if (plan->agg->mini_batch && mb_size > 0 &&
            (plan->batch_size <= 0 || mb_size < plan->batch_size)) {
            plan->batch_size = mb_size;
        }
    }
    const char *dlq = rsql_settings_get(s, "errors.dlq.table");
    const char *late = rsql_settings_get(s, "table.exec.late-rows");
    if (plan->window && !plan->window->rows && !plan->window->proctime &&
        plan->kind != RSQL_PLAN_SELECT && late && strcasecmp(late, "dead-letter") == 0) {
        /* a late row is dead-lettered (a preview only drops it: it writes no dead letter) */
        if (!dlq || !*dlq) {
            return rsql_error_set(err, RSQL_ERR_BAD_SETTING, plan->window->pos,
                                  "table.exec.late-rows = 'dead-letter' sends this window "
                                  "aggregation's late rows to the dead-letter table: set "
                                  "errors.dlq.table too");
        }
        plan->window->late_dead_letter = true;
    }
    if (dlq && *dlq) {
        return bind_dlq(cat, dlq, &plan->errors.dlq, err);
    }
    return RSQL_OK;
}

static rsql_err_t build(rsql_catalog_t *cat, rsql_plan_t *plan, const rsql_stmt_t *stmt,
                        const rsql_settings_t *settings, rsql_error_t *err)
{
    const rsql_insert_t *ins = stmt->kind == RSQL_STMT_INSERT ? stmt->insert : NULL;
    const rsql_select_t *sel = ins ? ins->select : stmt->select;
    const rsql_select_t *inner = sel ? sel->from_sub : NULL; /* FROM (SELECT ...) */
    const rsql_select_t *reads = inner ? inner : sel;
    rsql_err_t rc;
    if (!sel || (ins && !ins->target.name) || !reads->from.name) {
        if (reads && reads->from_sub) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, reads->from.pos,
                                  "a subquery in a subquery is not supported yet");
        }
        return rsql_error_set(err, RSQL_ERR_INTERNAL, stmt->pos, "incomplete statement tree");
    }
    if ((rc = rsql_plan__bind_table(cat, reads->from.name, reads->from.pos, RSQL_SIDE_SOURCE,
                                    &plan->source, err))) {
        return rc;
    }
    if (inner &&
        (rc = rsql_plan__dedup_flatten(plan, sel, plan->source.decl ? plan->source.decl
                                                                    : plan->source.def,
                                       &sel, err))) {
        return rc;
    }
    if (ins) {
        if (strcasecmp(ins->target.name, reads->from.name) == 0) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, ins->target.pos,
                                  "cannot insert into table '%s' while reading from it",
                                  ins->target.name);
        }
        if ((rc = rsql_plan__bind_table(cat, ins->target.name, ins->target.pos, RSQL_SIDE_SINK, &plan->sink,
                             err))) {
            return rc;
        }
    }
    rsql_bind_t b = {plan->arena, plan->sql, plan->source.def, 0, &plan->source, false,
                     sel->from_alias.name};
    if (sel->join && (rc = rsql_plan__lookup_table(cat, plan, sel->join, &b, err))) {
        return rc;
    }
    if ((rc = rsql_plan__window_bind(plan, sel, &b, err))) {
        return rc;
    }
    if (inner && (rc = rsql_plan__dedup_bind(plan, inner, &b, err))) {
        return rc;
    }
    sel_item_t *items = NULL;
    int n_items = 0;
    rsql_plan_agg_t *agg = rsql_plan__agg_new(plan); /* the aggregate calls, if any */
    if (!agg) {
        return rsql_error_nomem(err);
    }
    b.agg = agg;
    rc = bind_select_list(&b, sel, &items, &n_items, err);
    b.agg = NULL;
    if (rc) {
        return rc;
    }
    if (sel->join && (rc = rsql_plan__lookup_on(plan, sel->join, &b, err))) {
        return rc;
    }
    if (sel->where) {
        plan->filter = rsql_plan__bind_expr(&b, sel->where, err);
        if (!plan->filter) {
            return err ? err->code : RSQL_ERR_SEMANTIC;
        }
        if (plan->filter->type != RSQL_TYPE_BOOLEAN && plan->filter->type != RSQL_TYPE_NULL) {
            return rsql_error_set(err, RSQL_ERR_TYPE, sel->where->pos,
                                  "WHERE clause must be BOOLEAN, got %s",
                                  rsql_type_name(plan->filter->type));
        }
    }
    b.agg = agg;
    if ((rc = agg_plan(plan, sel, &b, items, n_items, err)) ||
        (rc = rsql_plan__window_plan(plan, sel, &b, err))) {
        return rc;
    }
    rsql_pos_t list_pos = sel->n_items > 0 ? span(sel->items[0].expr->pos,
                                                  sel->items[sel->n_items - 1].expr->pos)
                                           : sel->pos;
    if (sel->has_limit) {
        if (ins) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, sel->limit_pos,
                                  "LIMIT is only allowed in a SELECT preview");
        }
        if (sel->limit < 0) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, sel->limit_pos,
                                  "LIMIT must not be negative");
        }
    }
    if (ins) {
        plan->kind = RSQL_PLAN_INSERT;
        if ((rc = map_insert(plan, ins, items, n_items, list_pos, err))) {
            return rc;
        }
    } else {
        plan->kind = RSQL_PLAN_SELECT;
        plan->n_outputs = n_items;
        plan->outputs = rsql_arena_alloc(plan->arena, sizeof(rsql_plan_output_t) *
                                                          (size_t)(n_items ? n_items : 1));
        if (!plan->outputs) {
            return rsql_error_nomem(err);
        }
        for (int i = 0; i < n_items; i++) {
            plan->outputs[i].name = items[i].name;
            plan->outputs[i].type = items[i].expr->type;
            plan->outputs[i].desc = items[i].expr->desc;
            plan->outputs[i].expr = items[i].expr;
        }
        if (sel->has_limit) {
            plan->has_limit = true;
            plan->limit = sel->limit;
        } else {
            int64_t lim = rsql_settings_int(settings, "sql.preview-limit");
            plan->has_limit = lim > 0;
            plan->limit = lim;
            plan->limit_from_setting = lim > 0;
        }
    }
    plan->n_in = plan->source.def->n_columns +
                 (plan->lookup ? plan->lookup->table.def->n_columns : plan->window ? 3 : 0);
    plan->n_computed = plan->source.n_slots;
    plan->computed = plan->source.slots;
    if ((rc = rsql_plan__source_meta(plan, err)) || (rc = rsql_plan__dedup_in_sink(plan, err)) ||
        (rc = rsql_plan__changes(plan, err))) {
        return rc;
    }
    if (plan->lookup && plan->mode != RSQL_MODE_APPEND) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->lookup->pos,
                              "a lookup join of a changelog is not supported yet: '%s' gives "
                              "updates and deletes",
                              plan->source.def->name);
    }
    const rsql_plan_table_t *src = &plan->source;
    const char *shares = src->conn->shares_rows
                             ? src->conn->shares_rows(rsql_optset_conf(src->opts,
                                                                       RSQL_CONF_CONNECTOR))
                             : NULL;
    if (shares && rsql_plan_has_state(plan)) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, src->pos,
                              "table '%s' may give this process only some of its rows (%s), "
                              "and the %s keeps its state per key in each process, so a key's "
                              "rows would be split: read it in one process, without that "
                              "setting",
                              src->def->name, shares,
                              plan->window ? "window aggregation"
                              : plan->agg  ? "GROUP BY"
                                           : "deduplication");
    }
    decide_bounded(plan);
    return read_settings(cat, plan, settings, err);
}

/*
** Build the plan of stmt (see rsql_plan.h). The plan copies sql up to the
** end of the statement and keeps every position relative to it.
*/
rsql_plan_t *rsql_plan_build(rsql_catalog_t *cat, const rsql_stmt_t *stmt, const char *sql,
                             const rsql_settings_t *settings, rsql_error_t *err)
{
    if (!stmt || (stmt->kind != RSQL_STMT_INSERT && stmt->kind != RSQL_STMT_SELECT) || !sql) {
        rsql_error_set(err, RSQL_ERR_INTERNAL, stmt ? stmt->pos : RSQL_NOPOS,
                       "only INSERT and SELECT statements can be planned");
        return NULL;
    }
    rsql_plan_t *plan = rsql_calloc(1, sizeof(*plan));
    if (!plan) {
        rsql_error_nomem(err);
        return NULL;
    }
    /* up to the statement's end as the parser saw the text: the positions (and the names
       copied by span, bind_select_list) refer to it, even past a NUL byte before the
       statement (the parser reports a NUL as an error, but resumes after it) */
    size_t end = stmt->pos.off == RSQL_POS_NONE ? strlen(sql)
                                                : (size_t)stmt->pos.off + stmt->pos.len;
    plan->sql = rsql_strndup(sql, end);
    plan->stmt_off = stmt->pos.off == RSQL_POS_NONE || stmt->pos.off > end ? 0 : stmt->pos.off;
    plan->arena = rsql_arena_new();
    rsql_settings_t *defaults = NULL;
    if (!settings) {
        settings = defaults = rsql_settings_new();
    }
    rsql_err_t rc;
    if (!plan->sql || !plan->arena || !settings) {
        rc = rsql_error_nomem(err);
    } else {
        rc = build(cat, plan, stmt, settings, err);
    }
    rsql_settings_destroy(defaults);
    if (rc) {
        rsql_plan_destroy(plan);
        return NULL;
    }
    rsql_plan_compile(plan);
    return plan;
}
