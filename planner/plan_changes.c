/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_changes: changelog modes at planning (docs/CHANGELOGS.md, Flink's "dynamic tables").
 * Every table and plan node is append-only (+I), upsert by a key (+I +U -D) or a full
 * changelog (+I -U +U -D). The source decides: its connector when it makes changes itself
 * (rsql_connector_def_t.produces_changes), else its format (a changelog format such as
 * debezium-json is a full changelog). Filter and projection keep each row's kind, so the
 * plan's mode is the source's and the sink gets it. A sink that cannot take changes is
 * refused here, when the statement is planned (INSERT, CREATE JOB, EXPLAIN), with what to
 * do: its connector only appends, applies them by a key the table lacks or does not write,
 * writes them in a format that is not a changelog format, or its accept_changes hook says no.
 * An upsert changelog (no row before an update) also needs a filter on its key alone and,
 * into a sink that applies by key, that same key. A full changelog from a changelog format into
 * a sink that applies by key needs no -U of an update that keeps the key, when the WHERE cannot
 * tell the two rows apart: the plan then lists the source columns of the sink's key
 * (before_key) and the decoder gives such an update as its +U alone.
 *
 * Entry points: rsql_plan__changes, rsql_plan__explain_changes (plan_int.h).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "connectors/formats/rsql_format.h"

#include <string.h>
#include <strings.h>

static const char *mode_name(int mode)
{
    return mode == RSQL_MODE_FULL ? "full" : mode == RSQL_MODE_UPSERT ? "upsert" : "append-only";
}

static const char *mode_kinds(int mode)
{
    return mode == RSQL_MODE_FULL ? "+I -U +U -D" : mode == RSQL_MODE_UPSERT ? "+I +U -D" : "+I";
}

/* Append def's PRIMARY KEY columns, in key order, "a, b"; returns how many. */
static int put_key(const rsql_table_def_t *def, rsql_buf_t *out)
{
    int n = 0;
    for (bool found = true; found;) {
        found = false;
        for (int i = 0; i < def->n_columns && !found; i++) {
            if (def->columns[i].pk_ord == n + 1) {
                rsql_buf_puts(out, n ? ", " : "");
                rsql_buf_put_ident(out, def->columns[i].name);
                found = true;
                n++;
            }
        }
    }
    return n;
}

static int key_count(const rsql_table_def_t *def)
{
    int n = 0;
    for (int i = 0; i < def->n_columns; i++) {
        n += def->columns[i].pk_ord > 0;
    }
    return n;
}

/* b's text copied into the plan's arena; NULL when out of memory. */
static const char *arena_text(rsql_plan_t *plan, const rsql_buf_t *b)
{
    char *c = b->oom || !b->data ? NULL : rsql_arena_alloc(plan->arena, b->len + 1);
    if (c) {
        memcpy(c, b->data, b->len + 1);
    }
    return c;
}

/* "connector 'x'" / "format 'y'" in the plan's arena. */
static const char *by_text(rsql_plan_t *plan, const char *what, const char *name)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "%s '%s'", what, name);
    const char *s = arena_text(plan, &b);
    rsql_buf_deinit(&b);
    return s;
}

/* The sinks of this build that take changes, for the error of one that does not. */
static void put_takers(rsql_buf_t *out)
{
    int n = 0;
    for (const rsql_connector_def_t *const *c = rsql_connector_list(); *c; c++) {
        if (!((*c)->caps & RSQL_CAP_SINK) || (*c)->changes == RSQL_CHANGES_NONE) {
            continue;
        }
        rsql_buf_printf(out, "%s%s%s", n++ ? ", " : "", (*c)->name,
                        (*c)->changes == RSQL_CHANGES_BY_KEY      ? " (by its PRIMARY KEY)"
                        : (*c)->changes == RSQL_CHANGES_BY_FORMAT ? " (in a changelog format)"
                                                                  : "");
    }
    if (!n) {
        rsql_buf_puts(out, "none in this build");
    }
}

/* The changelog formats conn allows (all of this build's when it does not say), "'a', 'b'". */
static void put_changelog_formats(const rsql_connector_def_t *conn, rsql_buf_t *out)
{
    int n = 0;
    if (conn->formats) {
        for (const char *const *f = conn->formats; *f; f++) {
            if (rsql_format_changelog(*f)) {
                rsql_buf_printf(out, "%s'%s'", n++ ? ", " : "", *f);
            }
        }
    } else {
        for (const rsql_format_def_t *const *f = rsql_format_list(); f && *f; f++) {
            if (rsql_format_changelog((*f)->name)) {
                rsql_buf_printf(out, "%s'%s'", n++ ? ", " : "", (*f)->name);
            }
        }
    }
    if (!n) {
        rsql_buf_printf(out, "(none: connector '%s' has no changelog format in this build)",
                        conn->name);
    }
}

/* The sink's output of table column c (physical columns come first, in table order). */
static const rsql_plan_output_t *output_of(const rsql_plan_t *plan, int c)
{
    const rsql_table_def_t *def = plan->sink.def;
    const rsql_col_t *col = &def->columns[c];
    for (int i = 0; i < plan->n_outputs; i++) {
        if (!plan->outputs[i].meta_key && strcasecmp(plan->outputs[i].name, col->name) == 0) {
            return &plan->outputs[i];
        }
    }
    return NULL;
}

/*
** A group aggregation into a sink that applies changes by a key written from the GROUP BY keys
** (every one of them, nothing else) has one sink row per group, so without HAVING the +U of an
** update replaces the row its -U would delete: the -U is not made (plan->agg->emit_before).
*/
static void agg_before(rsql_plan_t *plan)
{
    rsql_plan_agg_t *a = plan->agg;
    const rsql_table_def_t *dst = plan->sink.def;
    if (!a || !dst || plan->filter || plan->sink.conn->changes != RSQL_CHANGES_BY_KEY ||
        a->n_group == 0 || a->n_group > 64) {
        return;
    }
    uint64_t seen = 0;
    for (int c = 0; c < dst->n_columns; c++) {
        if (!dst->columns[c].pk_ord) {
            continue;
        }
        const rsql_plan_output_t *o = output_of(plan, c);
        const rsql_bexpr_t *e = o ? o->expr : NULL;
        while (e && e->kind == RSQL_BX_CAST && e->implicit) {
            e = e->args[0];
        }
        if (!e || e->kind != RSQL_BX_COLUMN || e->column >= a->n_group) {
            return;
        }
        seen |= UINT64_C(1) << e->column;
    }
    if (seen == (a->n_group == 64 ? UINT64_MAX : (UINT64_C(1) << a->n_group) - 1)) {
        a->emit_before = false;
    }
}

/* Refuse the changes with what to do (why) at the sink's name. */
static rsql_err_t refuse(const rsql_plan_t *plan, rsql_err_t code, const char *why,
                         rsql_error_t *err)
{
    /* a deduplication keeping the last row, or an aggregation, makes the changes itself */
    bool made = plan->agg || (plan->dedup && plan->dedup->keep_last);
    return rsql_error_set(err, code, plan->sink.pos,
                          "%s '%s' %s %s %s changelog (%s: updates and deletes, not only "
                          "inserts) that table '%s' cannot take: %s",
                          made ? "the statement over table" : "table", plan->source.def->name,
                          made ? "makes" : "reads", plan->mode == RSQL_MODE_UPSERT ? "an" : "a",
                          mode_name(plan->mode), plan->changes_by, plan->sink.def->name, why);
}

/* Can the sink take the plan's changes? */
static rsql_err_t check_sink(const rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_plan_table_t *k = &plan->sink;
    const rsql_table_def_t *def = k->def;
    rsql_buf_t why = RSQL_BUF_INIT;
    rsql_err_t rc = RSQL_OK;
    int n_key = key_count(def);
    switch (k->conn->changes) {
    case RSQL_CHANGES_NONE:
        rsql_buf_printf(&why, "connector '%s' only appends rows; write them to a table whose "
                              "connector applies changes: ",
                        k->conn->name);
        put_takers(&why);
        rc = RSQL_ERR_SEMANTIC;
        break;
    case RSQL_CHANGES_BY_KEY:
        if (n_key == 0) {
            rsql_buf_printf(&why, "connector '%s' applies changes by the table's key; declare a "
                                  "PRIMARY KEY (...) NOT ENFORCED on '%s'",
                            k->conn->name, def->name);
            rc = RSQL_ERR_SEMANTIC;
            break;
        }
        for (int c = 0; c < def->n_columns && rc == RSQL_OK; c++) {
            const rsql_plan_output_t *o = def->columns[c].pk_ord ? output_of(plan, c) : NULL;
            if (def->columns[c].pk_ord &&
                (!o || (o->expr->kind == RSQL_BX_CONST && o->expr->pos.off == RSQL_POS_NONE))) {
                rsql_buf_printf(&why, "its key column '%s' gets no value (connector '%s' applies "
                                      "changes by the key: list every key column)",
                                def->columns[c].name, k->conn->name);
                rc = RSQL_ERR_SEMANTIC;
            }
        }
        break;
    case RSQL_CHANGES_BY_FORMAT:
        if (!rsql_format_changelog(k->format)) {
            rsql_buf_printf(&why, "connector '%s' writes changes in a changelog format and '%s' "
                                  "has format '%s'; choose a changelog format such as ",
                            k->conn->name, def->name, k->format ? k->format : "(none)");
            put_changelog_formats(k->conn, &why);
            rc = RSQL_ERR_SEMANTIC;
        }
        break;
    default: break;
    }
    if (rc == RSQL_OK && k->conn->accept_changes) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rc = k->conn->accept_changes(rsql_optset_conf(k->opts, RSQL_CONF_CONNECTOR), k->opts,
                                     n_key, &e);
        if (rc == RSQL_ERR_NOMEM) {
            rsql_buf_deinit(&why);
            return rsql_error_nomem(err);
        }
        if (rc != RSQL_OK) {
            rsql_buf_puts(&why, e.msg);
            rc = e.code ? e.code : RSQL_ERR_SEMANTIC;
        }
    }
    if (rc != RSQL_OK) {
        rc = why.oom ? rsql_error_nomem(err) : refuse(plan, rc, rsql_buf_str(&why), err);
    }
    rsql_buf_deinit(&why);
    return rc;
}

/*
** A source that empties its table (RSQL_ROW_CLEAR rows, plan->clears_by) into a sink that does
** not apply changes by key: refused, naming what makes the clears and the sinks that take them.
*/
static rsql_err_t check_clears(const rsql_plan_t *plan, rsql_error_t *err)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    int n = 0;
    for (const rsql_connector_def_t *const *c = rsql_connector_list(); *c; c++) {
        if (((*c)->caps & RSQL_CAP_SINK) && (*c)->changes == RSQL_CHANGES_BY_KEY &&
            !(*c)->keyed_log) {
            rsql_buf_printf(&b, "%s%s", n++ ? ", " : "", (*c)->name);
        }
    }
    if (!n) {
        rsql_buf_puts(&b, "none in this build");
    }
    rsql_err_t rc = b.oom ? rsql_error_nomem(err)
                          : rsql_error_set(err, RSQL_ERR_SEMANTIC, plan->sink.pos,
                                           "table '%s' passes on a TRUNCATE of what it reads as "
                                           "'delete every row' (%s), and table '%s' "
                                           "(connector '%s') cannot delete every row of its "
                                           "table: write to a "
                                           "table whose connector applies changes by key (%s), "
                                           "or choose another truncate.mode",
                                           plan->source.def->name, plan->clears_by,
                                           plan->sink.def->name, plan->sink.conn->name,
                                           rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return rc;
}

/* The source column e is, through implicit casts, or -1 when it is not a bare column. */
static int bare_column(const rsql_bexpr_t *e)
{
    while (e->kind == RSQL_BX_CAST && e->implicit) {
        e = e->args[0];
    }
    return e->kind == RSQL_BX_COLUMN ? e->column : -1;
}

/* The first column e reads that is not in def's key, or NULL. */
static const rsql_bexpr_t *non_key_column(const rsql_bexpr_t *e, const rsql_table_def_t *def)
{
    if (e->kind == RSQL_BX_COLUMN && e->column >= 0 && e->column < def->n_columns &&
        !def->columns[e->column].pk_ord) {
        return e;
    }
    for (int i = 0; i < e->n_args; i++) {
        const rsql_bexpr_t *r = non_key_column(e->args[i], def);
        if (r) {
            return r;
        }
    }
    return NULL;
}

/*
** An upsert changelog (no row before an update) goes into a sink unchanged only when the
** filter reads the key alone (a row updated out of it would stay in the sink) and a sink that
** applies by key has the same key (its key columns written from the source's).
*/
static rsql_err_t check_upsert(const rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_table_def_t *src = plan->source.def, *dst = plan->sink.def;
    const rsql_bexpr_t *r = plan->filter ? non_key_column(plan->filter, src) : NULL;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_err_t rc = RSQL_OK;
    if (r) {
        put_key(src, &b);
        rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, r->pos,
                            "the WHERE of an INSERT from '%s', an upsert changelog (%s) by key "
                            "(%s), reads its column '%s': an upsert has no row before an "
                            "update, so a row updated out of the filter would stay in '%s'; "
                            "filter on the key's columns only",
                            src->name, plan->changes_by, rsql_buf_str(&b), r->name, dst->name);
        rsql_buf_deinit(&b);
        return rc;
    }
    if (plan->sink.conn->changes != RSQL_CHANGES_BY_KEY) {
        return RSQL_OK;
    }
    bool same = key_count(dst) == key_count(src);
    for (int c = 0; c < dst->n_columns && same; c++) {
        if (dst->columns[c].pk_ord) {
            const rsql_plan_output_t *o = output_of(plan, c);
            int sc = o ? bare_column(o->expr) : -1;
            same = sc >= 0 && sc < src->n_columns && src->columns[sc].pk_ord;
        }
    }
    if (same) {
        return RSQL_OK;
    }
    rsql_buf_puts(&b, "an upsert changelog is applied by the key it is made by: write the key "
                      "of '");
    rsql_buf_puts(&b, dst->name);
    rsql_buf_puts(&b, "' (");
    put_key(dst, &b);
    rsql_buf_puts(&b, ") from the key of '");
    rsql_buf_puts(&b, src->name);
    rsql_buf_puts(&b, "' (");
    put_key(src, &b);
    rsql_buf_puts(&b, "), column for column");
    rc = b.oom ? rsql_error_nomem(err)
               : refuse(plan, RSQL_ERR_SEMANTIC, rsql_buf_str(&b), err);
    rsql_buf_deinit(&b);
    return rc;
}

/* The first physical column of src that e reads and that is not one of cols[0..n), or NULL. */
static const rsql_bexpr_t *other_column(const rsql_bexpr_t *e, const rsql_table_def_t *src,
                                        const int *cols, int n)
{
    if (e->kind == RSQL_BX_COLUMN && e->column >= 0 && e->column < src->n_columns &&
        !src->columns[e->column].metadata) {
        bool in = false;
        for (int k = 0; k < n && !in; k++) {
            in = cols[k] == e->column;
        }
        if (!in) {
            return e;
        }
    }
    for (int i = 0; i < e->n_args; i++) {
        const rsql_bexpr_t *r = other_column(e->args[i], src, cols, n);
        if (r) {
            return r;
        }
    }
    return NULL;
}

/* The first call in e of a function whose value differs from row to row (UUID), or NULL. */
static const rsql_bexpr_t *volatile_call(const rsql_bexpr_t *e)
{
    if (e->kind == RSQL_BX_FUNC && e->name && strcasecmp(e->name, "UUID") == 0) {
        return e;
    }
    for (int i = 0; i < e->n_args; i++) {
        const rsql_bexpr_t *r = volatile_call(e->args[i]);
        if (r) {
            return r;
        }
    }
    return NULL;
}

/*
** A full changelog of a changelog format into a sink that applies it by key: are the -U rows
** needed (plan->before_key, before_kept; see rsql_plan.h)? RSQL_OK or NOMEM.
*/
static rsql_err_t plan_before(rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_table_def_t *src = plan->source.def, *dst = plan->sink.def;
    int n = key_count(dst);
    int *cols = rsql_arena_alloc(plan->arena, (size_t)(n ? n : 1) * sizeof *cols);
    rsql_buf_t b = RSQL_BUF_INIT;
    if (!cols) {
        return rsql_error_nomem(err);
    }
    int k = 0, steps = n * dst->n_columns;
    for (int c = 0; k < n && !b.len && steps-- > 0; c = (c + 1) % dst->n_columns) {
        if (dst->columns[c].pk_ord != k + 1) { /* the key's columns in key order */
            continue;
        }
        const rsql_plan_output_t *o = output_of(plan, c);
        int sc = o ? bare_column(o->expr) : -1;
        if (sc < 0 || sc >= src->n_columns || src->columns[sc].metadata) {
            rsql_buf_printf(&b, "its key column %s is not written from a column of ",
                            dst->columns[c].name);
            rsql_buf_put_ident(&b, src->name);
            rsql_buf_puts(&b, ", so an update's key is not known to stay");
        } else {
            cols[k++] = sc;
        }
    }
    const rsql_bexpr_t *r = NULL;
    if (!b.len && plan->filter && (r = other_column(plan->filter, src, cols, k))) {
        rsql_buf_printf(&b, "the WHERE reads %s, which an update may change: a -U that passes "
                            "the filter whose +U does not deletes its key", r->name);
    } else if (!b.len && plan->filter && (r = volatile_call(plan->filter))) {
        rsql_buf_printf(&b, "the WHERE calls %s(), which differs from row to row", r->name);
    }
    if (!b.len && k < n) {
        rsql_buf_puts(&b, "the sink's key is not known"); /* not reached: keys number from 1 */
    }
    if (b.len) {
        plan->before_kept = arena_text(plan, &b);
        rsql_buf_deinit(&b);
        return plan->before_kept ? RSQL_OK : rsql_error_nomem(err);
    }
    rsql_buf_deinit(&b);
    plan->before_key = cols;
    plan->n_before_key = k;
    return RSQL_OK;
}

/* See plan_int.h. */
int rsql_plan__connectors_where(bool (*ok)(const rsql_connector_def_t *c), bool quoted,
                                rsql_buf_t *b)
{
    int n = 0;
    for (const rsql_connector_def_t *const *c = rsql_connector_list(); *c; c++) {
        if (ok(*c)) {
            rsql_buf_printf(b, quoted ? "%s'%s'" : "%s%s", n++ ? ", " : "", (*c)->name);
        }
    }
    if (n == 0) {
        rsql_buf_puts(b, "none in this build");
    }
    return n;
}

/* A sink data path that keeps source transactions whole (it gathers them: has release). */
static bool keeps_transactions(const rsql_connector_def_t *c)
{
    return (c->caps & RSQL_CAP_SINK) && c->exactly_once && c->sink && c->sink->release;
}

/*
** A source whose option keeps its transactions whole (rsql_connector_def_t.whole_transactions)
** needs a sink that gathers transactions.
*/
static rsql_err_t check_whole_transactions(const rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_plan_table_t *src = &plan->source, *k = &plan->sink;
    if (plan->kind != RSQL_PLAN_INSERT || !k->def || !src->conn->whole_transactions) {
        return RSQL_OK;
    }
    const char *opt =
        src->conn->whole_transactions(rsql_optset_conf(src->opts, RSQL_CONF_CONNECTOR));
    if (!opt || keeps_transactions(k->conn)) {
        return RSQL_OK;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_plan__connectors_where(keeps_transactions, false, &b);
    rsql_error_set(err, RSQL_ERR_SEMANTIC, src->pos,
                   "table '%s' sets option '%s' (connector '%s'), but the sink of table '%s' "
                   "(connector '%s') cannot keep a source transaction whole: only a sink that "
                   "commits transactions with their positions can (%s); set '%s' = 'false' or "
                   "write to such a table",
                   src->def->name, opt, src->conn->name, k->def->name, k->conn->name,
                   b.oom ? "?" : rsql_buf_str(&b), opt);
    rsql_buf_deinit(&b);
    return RSQL_ERR_SEMANTIC;
}

/*
** A sink that stores positions only when its options ask (sink_exactly_once: kafka's
** transactions) stores positions, not applied message ids: a source that keeps its own
** positions (RocketMQ acks) cannot be resumed from them, nor can a job with state (it resumes
** from the catalog's positions, saved with its state).
*/
static rsql_err_t check_exactly_once(const rsql_plan_t *plan, rsql_error_t *err)
{
    const rsql_plan_table_t *src = &plan->source, *k = &plan->sink;
    if (plan->kind != RSQL_PLAN_INSERT || !k->def || !k->conn->sink_exactly_once ||
        k->conn->exactly_once ||
        !rsql_connector_exactly_once(k->conn, rsql_optset_conf(k->opts, RSQL_CONF_CONNECTOR))) {
        return RSQL_OK;
    }
    if (rsql_plan_has_state(plan)) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, k->pos,
                              "table '%s' (connector '%s') is exactly-once by storing the "
                              "source's positions with its rows, which a statement with state "
                              "(a deduplication, GROUP BY or window) does not support yet: "
                              "write it at-least-once",
                              k->def->name, k->conn->name);
    }
    if (!src->conn->own_positions) {
        return RSQL_OK;
    }
    return rsql_error_set(err, RSQL_ERR_SEMANTIC, k->pos,
                          "table '%s' (connector '%s') is exactly-once by storing the source's "
                          "positions with its rows, but table '%s' (connector '%s') keeps its "
                          "own positions (%s): write it at-least-once, or into a sink that "
                          "records applied messages (sqlite, postgres)",
                          k->def->name, k->conn->name, src->def->name, src->conn->name,
                          src->conn->own_positions);
}

/* See plan_int.h. */
rsql_err_t rsql_plan__changes(rsql_plan_t *plan, rsql_error_t *err)
{
    rsql_err_t wrc = check_whole_transactions(plan, err);
    if (wrc == RSQL_OK) {
        wrc = check_exactly_once(plan, err);
    }
    if (wrc != RSQL_OK) {
        return wrc;
    }
    const rsql_plan_table_t *src = &plan->source;
    int mode = RSQL_MODE_APPEND;
    if (src->conn->produces_changes) {
        mode = src->conn->produces_changes(rsql_optset_conf(src->opts, RSQL_CONF_CONNECTOR));
        if (mode != RSQL_MODE_APPEND) {
            plan->changes_by = by_text(plan, "connector", src->conn->name);
        }
    }
    bool by_format = mode == RSQL_MODE_APPEND && rsql_format_changelog(src->format);
    if (by_format) {
        mode = RSQL_MODE_FULL;
        plan->changes_by = by_text(plan, "format", src->format);
    }
    if (mode != RSQL_MODE_APPEND && !plan->changes_by) {
        return rsql_error_nomem(err);
    }
    if (plan->dedup && mode != RSQL_MODE_APPEND) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->dedup->pos,
                              "deduplication of a changelog is not supported yet: '%s' gives "
                              "updates and deletes (%s)",
                              src->def->name, plan->changes_by);
    }
    if (plan->dedup && plan->dedup->keep_last && !plan->dedup->in_sink) {
        mode = RSQL_MODE_FULL; /* each newer row replaces the one kept: -U, +U */
        plan->changes_by = "deduplication keeping the last row of each key (ORDER BY ... DESC)";
    }
    if (plan->window) {
        if (mode != RSQL_MODE_APPEND) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->window->pos,
                                  "a window %s of a changelog is not supported yet: '%s' gives "
                                  "updates and deletes (%s); windows take append-only rows",
                                  plan->window->rows ? "function" : "aggregation",
                                  src->def->name, plan->changes_by);
        }
        rsql_err_t rc;
        if (src->conn->own_positions && !plan->window->rows &&
            (rc = rsql_plan__window_in_sink(plan, err)) != RSQL_OK) {
            return rc; /* no position to save state with: the sink merges */
        }
        by_format = false; /* each window's result once: append-only */
    } else if (plan->agg) {
        const rsql_plan_aggcall_t *why = NULL;
        if (mode == RSQL_MODE_UPSERT) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->agg->pos,
                                  "GROUP BY over an upsert changelog is not supported yet: '%s' "
                                  "(%s) gives no row before an update, so an update cannot be "
                                  "taken out of its group; read it in a full changelog format "
                                  "(debezium-json, canal-json, maxwell-json)",
                                  src->def->name, plan->changes_by);
        }
        if (mode != RSQL_MODE_APPEND && !rsql_plan_agg_retractable(plan->agg, &why)) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, why->pos,
                                  "%s over a changelog is not supported yet: '%s' gives updates "
                                  "and deletes (%s), and %s cannot take a row out again (COUNT, "
                                  "SUM and AVG can)",
                                  why->text, src->def->name, plan->changes_by, why->text);
        }
        if (mode != RSQL_MODE_APPEND && src->conn->produces_clears &&
            src->conn->produces_clears(rsql_optset_conf(src->opts, RSQL_CONF_CONNECTOR))) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->agg->pos,
                                  "GROUP BY over a source that gives a TRUNCATE as a whole "
                                  "(connector '%s') is not supported yet: set its truncate.mode "
                                  "to skip or fail",
                                  src->conn->name);
        }
        if (src->conn->own_positions) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->agg->pos,
                                  "GROUP BY over connector '%s' is not supported yet: its "
                                  "source acknowledges each message itself, so there is no "
                                  "position to save the aggregates' state with",
                                  src->conn->name);
        }
        if (mode == RSQL_MODE_APPEND) {
            plan->changes_by = "GROUP BY: each row updates its group's result";
        } else {
            rsql_buf_t b = RSQL_BUF_INIT;
            rsql_buf_printf(&b, "GROUP BY over %s: each row updates its group's result, a "
                                "group whose rows are all deleted is deleted",
                            plan->changes_by);
            plan->changes_by = arena_text(plan, &b);
            rsql_buf_deinit(&b);
            if (!plan->changes_by) {
                return rsql_error_nomem(err);
            }
        }
        mode = RSQL_MODE_FULL; /* each row updates its group's result: -U, +U, -D */
        by_format = false;     /* the sink's rows are the groups', not the source's */
    }
    plan->mode = mode;
    const char *clears = src->conn->produces_clears
                             ? src->conn->produces_clears(
                                   rsql_optset_conf(src->opts, RSQL_CONF_CONNECTOR))
                             : NULL;
    if (clears) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_buf_printf(&b, "connector '%s', %s", src->conn->name, clears);
        plan->clears_by = arena_text(plan, &b);
        rsql_buf_deinit(&b);
        if (!plan->clears_by) {
            return rsql_error_nomem(err);
        }
    }
    if (mode == RSQL_MODE_UPSERT && key_count(src->def) == 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, src->pos,
                              "table '%s' reads an upsert changelog (%s: rows replaced and "
                              "deleted by their key): declare its PRIMARY KEY (...) NOT ENFORCED",
                              src->def->name, plan->changes_by);
    }
    if (mode == RSQL_MODE_APPEND || plan->kind != RSQL_PLAN_INSERT || !plan->sink.def) {
        return RSQL_OK;
    }
    rsql_err_t rc = check_sink(plan, err);
    if (rc == RSQL_OK && plan->clears_by &&
        (plan->sink.conn->changes != RSQL_CHANGES_BY_KEY || plan->sink.conn->keyed_log)) {
        rc = check_clears(plan, err);
    }
    if (rc == RSQL_OK && mode == RSQL_MODE_UPSERT) {
        rc = check_upsert(plan, err);
    }
    if (rc == RSQL_OK && by_format && mode == RSQL_MODE_FULL &&
        plan->sink.conn->changes == RSQL_CHANGES_BY_KEY) {
        rc = plan_before(plan, err);
    }
    if (rc == RSQL_OK) {
        agg_before(plan);
    }
    return rc;
}

/* See plan_int.h. */
void rsql_plan__explain_changes(const rsql_plan_t *plan, rsql_buf_t *out)
{
    rsql_buf_printf(out, "Changelog: %s (%s)", mode_name(plan->mode), mode_kinds(plan->mode));
    if (plan->mode == RSQL_MODE_UPSERT) {
        rsql_buf_puts(out, " by key (");
        put_key(plan->source.def, out);
        rsql_buf_putc(out, ')');
    }
    rsql_buf_puts(out, " from ");
    rsql_buf_put_ident(out, plan->source.def->name);
    if (plan->mode != RSQL_MODE_APPEND) {
        rsql_buf_printf(out, " (%s), kept row by row through filter and projection",
                        plan->changes_by);
    }
    if (plan->kind != RSQL_PLAN_INSERT || !plan->sink.def) {
        rsql_buf_puts(out, plan->mode == RSQL_MODE_APPEND
                               ? "; the preview prints the rows\n"
                               : "; the preview prints each row with its kind first (op)\n");
        return;
    }
    rsql_buf_puts(out, "; sink ");
    rsql_buf_put_ident(out, plan->sink.def->name);
    if (plan->mode == RSQL_MODE_APPEND && plan->dedup && plan->dedup->in_sink) {
        rsql_buf_printf(out, " keeps the %s row of each key (", plan->dedup->keep_last ? "last"
                                                                                       : "first");
        put_key(plan->sink.def, out);
        rsql_buf_puts(out, "): the deduplication\n");
        return;
    }
    if (plan->mode == RSQL_MODE_APPEND && plan->window && plan->window->in_sink) {
        rsql_buf_puts(out, " merges each row into the row of its key (");
        put_key(plan->sink.def, out);
        rsql_buf_puts(out, "): the window aggregation\n");
        return;
    }
    if (plan->mode == RSQL_MODE_APPEND) {
        rsql_buf_puts(out, " appends the rows\n");
        return;
    }
    switch (plan->sink.conn->changes) {
    case RSQL_CHANGES_BY_KEY:
        rsql_buf_puts(out, " applies it by key (");
        put_key(plan->sink.def, out);
        rsql_buf_putc(out, ')');
        if (plan->clears_by) {
            rsql_buf_printf(out, "; a TRUNCATE (-T, %s) deletes every row of its table, in "
                                 "order with the rows",
                            plan->clears_by);
        }
        if (plan->before_key) {
            rsql_buf_puts(out, "; -U dropped: the sink applies by key, so an update that keeps "
                               "the key (");
            for (int k = 0; k < plan->n_before_key; k++) {
                rsql_buf_puts(out, k ? ", " : "");
                rsql_buf_put_ident(out, plan->source.def->columns[plan->before_key[k]].name);
            }
            rsql_buf_puts(out, ") is decoded as its +U alone (one that changes it keeps its -U)");
        } else if (plan->before_kept) {
            rsql_buf_printf(out, "; -U kept: %s", plan->before_kept);
        }
        rsql_buf_putc(out, '\n');
        break;
    case RSQL_CHANGES_BY_FORMAT:
        rsql_buf_printf(out, " writes it as '%s'\n", plan->sink.format);
        break;
    default: rsql_buf_puts(out, " takes it with each row's kind\n"); break;
    }
}
