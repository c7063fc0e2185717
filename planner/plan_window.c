/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_window: the window table-valued functions of FROM TABLE(...) (Flink's Window TVF:
 * TUMBLE, HOP, CUMULATE) and the rules of an aggregation over them (rsql_plan_window_t says
 * what they mean). The function adds window_start, window_end and window_time to the row the
 * statement is bound against, after the table's columns; the runtime (engine/rt_window.c)
 * fills them for each window a row goes into. The GROUP BY must hold window_start and
 * window_end; the time column must be the table's WATERMARK column, whose expression gives
 * the watermark, or its processing time (a column AS PROCTIME(): the watermark is then the
 * clock); the intervals are constants. Without GROUP BY the function's rows are the
 * statement's (rsql_plan_window_t.rows: each row with each of its windows).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "sql/rsql_sql.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const prop_names[3] = {"window_start", "window_end", "window_time"};

/* See plan_int.h. */
rsql_bexpr_t *rsql_plan__window_column(rsql_bind_t *b, const char *name, rsql_pos_t pos,
                                       rsql_error_t *err)
{
    for (int k = 0; b->win_col > 0 && name && k < 3; k++) {
        if (strcasecmp(name, prop_names[k]) == 0) {
            rsql_bexpr_t *c = rsql_plan__node(b->arena, RSQL_BX_COLUMN, RSQL_TYPE_TIMESTAMP, pos, 0);
            if (!c) {
                rsql_error_nomem(err);
                return NULL;
            }
            c->column = b->win_col + k;
            c->name = prop_names[k];
            return c;
        }
    }
    return NULL;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__window_bind(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                                  rsql_error_t *err)
{
    const rsql_window_tvf_t *f = sel->window;
    if (!f) {
        return RSQL_OK;
    }
    static const struct {
        const char *name;
        rsql_window_kind_t kind;
    } fns[] = {{"TUMBLE", RSQL_WIN_TUMBLE},
               {"HOP", RSQL_WIN_HOP},
               {"CUMULATE", RSQL_WIN_CUMULATE},
               {"SESSION", RSQL_WIN_SESSION}};
    int i = 0;
    while (i < 4 && strcasecmp(f->fn.name, fns[i].name) != 0) {
        i++;
    }
    if (i == 4) {
        return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, f->fn.pos,
                              "no such window function: %s (FROM TABLE(...) takes TUMBLE, HOP, "
                              "CUMULATE or SESSION)",
                              f->fn.name);
    }
    if (f->n_partition > 0 && fns[i].kind != RSQL_WIN_SESSION) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, f->partition[0].pos,
                              "PARTITION BY belongs to SESSION windows; %s takes none (group "
                              "by the column instead)",
                              fns[i].name);
    }
    if (sel->join) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, sel->join->pos,
                              "a lookup join in a window aggregation is not supported yet");
    }
    rsql_plan_window_t *w = rsql_arena_alloc(plan->arena, sizeof *w);
    if (!w) {
        return rsql_error_nomem(err);
    }
    memset(w, 0, sizeof *w);
    w->kind = fns[i].kind;
    w->fn = fns[i].name;
    w->pos = f->pos;
    w->col = plan->source.def->n_columns;
    b->win_col = w->col;
    plan->window = w;
    return RSQL_OK;
}

/* Whether x reads nothing of the row (a constant expression). */
static bool constant(const rsql_bexpr_t *x)
{
    if (x->kind == RSQL_BX_COLUMN || x->kind == RSQL_BX_COMPUTED || x->kind == RSQL_BX_FIELD) {
        return false;
    }
    for (int i = 0; i < x->n_args; i++) {
        if (!constant(x->args[i])) {
            return false;
        }
    }
    return true;
}

/* The what argument of the function (e) as a positive INTERVAL in *ms. */
static rsql_err_t interval_arg(rsql_plan_t *plan, rsql_bind_t *b, const rsql_expr_t *e,
                               const char *what, bool may_be_zero, int64_t *ms,
                               rsql_error_t *err)
{
    rsql_bexpr_t *x = rsql_plan__bind_expr(b, e, err);
    if (!x) {
        return err->code ? err->code : RSQL_ERR_SEMANTIC;
    }
    if (x->type != RSQL_TYPE_INTERVAL || !constant(x)) {
        return rsql_error_set(err, RSQL_ERR_TYPE, e->pos,
                              "%s %s must be a constant INTERVAL (e.g. INTERVAL '1' MINUTE)%s",
                              plan->window->fn, what,
                              x->type == RSQL_TYPE_INTERVAL ? ", not one read from the row" : "");
    }
    rsql_eval_ctx_t ctx;
    rsql_eval_ctx_init(&ctx);
    rsql_value_t v;
    rsql_err_t rc = rsql_expr_eval(x, NULL, &ctx, &v, err);
    rsql_eval_ctx_deinit(&ctx);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (v.is_null || v.v.i < 0 || (v.v.i == 0 && !may_be_zero)) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, e->pos, "%s %s must be %s, got %s",
                              plan->window->fn, what,
                              may_be_zero ? "zero or more" : "greater than zero",
                              v.is_null ? "NULL" : "a negative interval");
    }
    *ms = v.v.i;
    (void)plan;
    return RSQL_OK;
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The function's intervals into w: size (and slide or step), then an optional offset. */
static rsql_err_t intervals(rsql_plan_t *plan, const rsql_window_tvf_t *f, rsql_bind_t *b,
                            rsql_error_t *err)
{
    rsql_plan_window_t *w = plan->window;
    int want = w->kind == RSQL_WIN_TUMBLE || w->kind == RSQL_WIN_SESSION ? 1 : 2;
    static const char *const usage[] = {
        "TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])",
        "HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset])",
        "CUMULATE(TABLE t, DESCRIPTOR(ts), step, max_size [, offset])",
        "SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)"};
    if (w->kind == RSQL_WIN_SESSION && f->args.n != 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC,
                              f->args.n > 1 ? f->args.items[1]->pos : f->pos,
                              "SESSION takes 1 interval after the DESCRIPTOR (the gap), got "
                              "%d: %s",
                              f->args.n, usage[w->kind]);
    }
    if (f->args.n < want || f->args.n > want + 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC,
                              f->args.n > want + 1 ? f->args.items[want + 1]->pos : f->pos,
                              "%s takes %d or %d intervals after the DESCRIPTOR, got %d: %s",
                              w->fn, want, want + 1, f->args.n, usage[w->kind]);
    }
    static const char *const first[] = {"size", "slide", "step", "gap"};
    static const char *const second[] = {"", "size", "max_size", ""};
    rsql_err_t rc = interval_arg(plan, b, f->args.items[0], first[w->kind], false, &w->step_ms,
                                 err);
    if (rc != RSQL_OK) {
        return rc;
    }
    w->size_ms = w->step_ms;
    if (want == 2 && (rc = interval_arg(plan, b, f->args.items[1], second[w->kind], false,
                                        &w->size_ms, err)) != RSQL_OK) {
        return rc;
    }
    if (f->args.n > want && (rc = interval_arg(plan, b, f->args.items[want], "offset", true,
                                               &w->offset_ms, err)) != RSQL_OK) {
        return rc;
    }
    if (w->size_ms % w->step_ms != 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, f->args.items[1]->pos,
                              "%s's %s must be a whole multiple of its %s", w->fn,
                              second[w->kind], first[w->kind]);
    }
    if (w->kind == RSQL_WIN_HOP && w->size_ms / w->step_ms > 10000) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, f->args.items[1]->pos,
                              "HOP's size is more than 10000 slides: each row would go into as "
                              "many windows");
    }
    /* a session ends anywhere: its watermark is saved at each move (slice 1 ms) */
    w->slice_ms = w->kind == RSQL_WIN_HOP       ? gcd(w->size_ms, w->step_ms)
                  : w->kind == RSQL_WIN_SESSION ? 1
                                                : w->step_ms;
    w->offset_ms %= w->kind == RSQL_WIN_CUMULATE ? w->size_ms : w->step_ms;
    return RSQL_OK;
}

/* The table's WATERMARK expression (the column's, as stored), parsed and bound over the row. */
static rsql_err_t watermark(rsql_plan_t *plan, const rsql_col_t *col, rsql_bind_t *b,
                            rsql_error_t *err)
{
    rsql_plan_window_t *w = plan->window;
    rsql_parse_t *p;
    rsql_err_t code;
    const rsql_expr_t *ast = rsql_plan__parse_stored(col->watermark, &p, &code);
    w->parse = p;
    if (!ast) {
        return code == RSQL_ERR_NOMEM
                   ? rsql_error_nomem(err)
                   : rsql_error_set(err, code, w->pos,
                                    "the WATERMARK of table '%s' ('%s') no longer parses (drop "
                                    "and create the table again)",
                                    plan->source.def->name, col->watermark);
    }
    rsql_bind_t sub = *b;
    sub.agg = NULL;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (!(w->watermark = rsql_plan__bind_expr(&sub, ast, &e))) {
        return rsql_error_set(err, e.code, w->pos, "the WATERMARK of table '%s' (%s): %s",
                              plan->source.def->name, col->watermark, e.msg);
    }
    rsql_plan__place(w->watermark, w->pos);
    w->watermark_text = col->watermark;
    return RSQL_OK;
}

/* SESSION: the GROUP BY's keys besides the window's are its PARTITION BY columns (a session is
   per value of them); two sessions' accumulators merge (DISTINCT calls with the values each
   took: rt_window_session.c). */
static rsql_err_t session_keys(rsql_plan_t *plan, const rsql_window_tvf_t *f, rsql_bind_t *b,
                               rsql_error_t *err)
{
    const rsql_plan_window_t *w = plan->window;
    const rsql_plan_agg_t *a = plan->agg;
    int parts = 0;
    for (int p = 0; p < f->n_partition; p++) {
        rsql_expr_t ref = {0};
        ref.kind = RSQL_EX_COLUMN;
        ref.name = f->partition[p].name;
        ref.pos = f->partition[p].pos;
        ref.height = 1;
        rsql_bexpr_t *x = rsql_plan__bind_column(b, &ref, err);
        if (!x) {
            return err->code;
        }
        bool found = false;
        for (int g = 0; g < a->n_group; g++) {
            found |= a->group[g]->kind == x->kind && a->group[g]->column == x->column;
        }
        if (!found) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, ref.pos,
                                  "SESSION's PARTITION BY %s must be among the GROUP BY keys: a "
                                  "session is per value of its partition",
                                  ref.name);
        }
        parts++;
    }
    int keys = 0;
    for (int g = 0; g < a->n_group; g++) {
        const rsql_bexpr_t *x = a->group[g];
        keys += !(x->kind == RSQL_BX_COLUMN && (x->column == w->col || x->column == w->col + 1));
    }
    if (keys != parts) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, a->pos,
                              "a SESSION window's GROUP BY holds window_start, window_end and "
                              "its PARTITION BY columns, no other key (%d here, %d partitioned "
                              "by): a session is per value of its partition",
                              keys, parts);
    }
    return RSQL_OK;
}

/* Whether the GROUP BY of a holds the row's column c. */
static bool grouped(const rsql_plan_agg_t *a, int c)
{
    for (int g = 0; g < a->n_group; g++) {
        if (a->group[g]->kind == RSQL_BX_COLUMN && a->group[g]->column == c) {
            return true;
        }
    }
    return false;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__window_plan(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                                  rsql_error_t *err)
{
    rsql_plan_window_t *w = plan->window;
    if (!w) {
        return RSQL_OK;
    }
    const rsql_window_tvf_t *f = sel->window;
    const rsql_plan_agg_t *a = plan->agg;
    if (a && (!grouped(a, w->col) || !grouped(a, w->col + 1))) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, a->pos,
                              "a window function's rows are aggregated by window: GROUP BY "
                              "window_start, window_end (and any other keys); both must be "
                              "among the keys");
    }
    if (!a && w->kind == RSQL_WIN_SESSION) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, f->fn.pos,
                              "SESSION's rows without an aggregation are not supported yet (a "
                              "row's session ends only when no row of its partition follows "
                              "within the gap): GROUP BY window_start, window_end, ... to "
                              "aggregate its sessions, or use TUMBLE, HOP or CUMULATE");
    }
    w->rows = !a;
    rsql_err_t rc = intervals(plan, f, b, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    /* the time column: the table's event-time column (the one with a WATERMARK) */
    const rsql_table_def_t *decl = plan->source.decl ? plan->source.decl : plan->source.def;
    const rsql_col_t *col = NULL, *wm = NULL;
    for (int i = 0; i < decl->n_columns; i++) {
        if (strcasecmp(decl->columns[i].name, f->time_col.name) == 0) {
            col = &decl->columns[i];
        }
        if (decl->columns[i].watermark) {
            wm = &decl->columns[i];
        }
    }
    if (!col) {
        rsql_plan__no_such_column(decl, NULL, f->time_col.name, f->time_col.pos, err);
        return err->code;
    }
    /* processing time (a column AS PROCTIME(): when the row's batch is processed) serves the
       rows without an aggregation, which need no watermark */
    bool proc = col != wm && col->expr && strncasecmp(col->expr, "PROCTIME", 8) == 0;
    if (col != wm && !proc) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, f->time_col.pos,
                              wm ? "DESCRIPTOR(%s): not the event-time column of table '%s' "
                                   "(its WATERMARK is for %s)"
                                 : "DESCRIPTOR(%s): table '%s' has no event-time column: "
                                   "declare WATERMARK FOR %s AS %s - INTERVAL '5' SECOND",
                              f->time_col.name, plan->source.def->name,
                              wm ? wm->name : f->time_col.name, f->time_col.name);
    }
    if (proc && w->kind == RSQL_WIN_SESSION) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, f->time_col.pos,
                              "DESCRIPTOR(%s): SESSION windows over processing time are not "
                              "supported yet: declare an event-time column with WATERMARK "
                              "FOR ts AS ts - INTERVAL '5' SECOND",
                              f->time_col.name);
    }
    rsql_bind_t tb = *b;
    tb.agg = NULL;
    rsql_expr_t ref = {0};
    ref.kind = RSQL_EX_COLUMN;
    ref.name = f->time_col.name;
    ref.pos = f->time_col.pos;
    ref.height = 1;
    if (!(w->time = rsql_plan__bind_column(&tb, &ref, err))) {
        return err->code;
    }
    w->time_name = col->name;
    w->proctime = proc;
    if (w->kind == RSQL_WIN_SESSION && (rc = session_keys(plan, f, &tb, err)) != RSQL_OK) {
        return rc;
    }
    if (w->rows || proc) {
        /* the rows without an aggregation are given at once: no watermark decides anything;
           over processing time the watermark is the rows' own time, and the clock's */
        w->watermark = proc && !w->rows ? w->time : NULL;
        return RSQL_OK;
    }
    return watermark(plan, col, b, err);
}

/* The aggregate row's slot output expression x reads (through a widening CAST), or -1. */
static int slot_of(const rsql_bexpr_t *x)
{
    if (x && x->kind == RSQL_BX_CAST && x->n_args == 1) {
        x = x->args[0];
    }
    return x && x->kind == RSQL_BX_COLUMN ? x->column : -1;
}

/* See plan_int.h. */
rsql_err_t rsql_plan__window_in_sink(rsql_plan_t *plan, rsql_error_t *err)
{
    rsql_plan_window_t *w = plan->window;
    const rsql_plan_agg_t *a = plan->agg;
    const rsql_table_def_t *sink = plan->sink.def;
    const char *src = plan->source.conn->name;
    int n_key = 0;
    for (int i = 0; sink && i < sink->n_columns; i++) {
        n_key += sink->columns[i].pk_ord > 0;
    }
    if (plan->kind != RSQL_PLAN_INSERT || !sink ||
        plan->sink.conn->changes != RSQL_CHANGES_BY_KEY || n_key == 0) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, w->pos,
                              "a window aggregation over connector '%s' is written by merging "
                              "each row into the sink table's row of its window and keys (the "
                              "processes of a consumer group each read some of the rows): "
                              "INSERT it into a postgres or sqlite table whose PRIMARY KEY (...) "
                              "NOT ENFORCED is the GROUP BY columns%s",
                              src, plan->kind != RSQL_PLAN_INSERT ? " (a preview cannot)" : "");
    }
    if (w->proctime) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, w->pos,
                              "a window aggregation over processing time (%s) over connector "
                              "'%s' is not supported yet: declare an event-time column with "
                              "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND",
                              w->time_name, src);
    }
    if (w->kind == RSQL_WIN_SESSION) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, w->pos,
                              "SESSION windows over connector '%s' are not supported yet: "
                              "sessions that merge need the state of each one, which a "
                              "consumer group's processes cannot keep",
                              src);
    }
    if (plan->filter) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, plan->filter->pos,
                              "HAVING in a window aggregation over connector '%s' is not "
                              "supported: each process merges a part of a window's result into "
                              "the sink, so no process sees the whole result to filter",
                              src);
    }
    for (int c = 0; c < a->n_calls; c++) {
        const rsql_plan_aggcall_t *k = &a->calls[c];
        bool mergeable = !k->distinct && (k->fn == RSQL_AGG_COUNT || k->fn == RSQL_AGG_SUM ||
                                          k->fn == RSQL_AGG_MIN || k->fn == RSQL_AGG_MAX);
        if (!mergeable) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, k->pos,
                                  "%s in a window aggregation over connector '%s' is not "
                                  "supported: each process merges a part of a window's result "
                                  "into the sink, which can add COUNT and SUM and keep MIN and "
                                  "MAX, not %s",
                                  k->text, src,
                                  k->distinct ? "DISTINCT values" : "this one");
        }
    }
    if (!(w->merge = rsql_arena_alloc(plan->arena, (size_t)plan->n_outputs + 1))) {
        return rsql_error_nomem(err);
    }
    /* each output a key or a call's result; which keys the sink's key holds */
    bool keyed[64] = {false};
    for (int i = 0; i < plan->n_outputs; i++) {
        const rsql_plan_output_t *o = &plan->outputs[i];
        int s = slot_of(o->expr);
        const rsql_col_t *col = NULL;
        for (int c = 0; c < sink->n_columns; c++) {
            col = strcasecmp(sink->columns[c].name, o->name) == 0 ? &sink->columns[c] : col;
        }
        w->merge[i] = RSQL_MERGE_REPLACE;
        if (o->expr->kind == RSQL_BX_CONST && o->expr->value.is_null) {
            continue; /* a column the statement does not write */
        }
        if (s < 0) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, o->expr->pos,
                                  "column '%s' of table '%s' is written from neither a GROUP BY "
                                  "key nor an aggregate call: a window aggregation over "
                                  "connector '%s' writes each key and each COUNT, SUM, MIN and "
                                  "MAX as it is (the sink merges them)",
                                  o->name, sink->name, src);
        }
        if (s >= a->n_group) {
            rsql_agg_fn_t fn = a->calls[s - a->n_group].fn;
            w->merge[i] = fn == RSQL_AGG_MIN   ? RSQL_MERGE_MIN
                          : fn == RSQL_AGG_MAX ? RSQL_MERGE_MAX
                                               : RSQL_MERGE_SUM;
            if (col && col->pk_ord > 0) {
                return rsql_error_set(err, RSQL_ERR_SEMANTIC, plan->sink.pos,
                                      "column '%s' of table '%s' is in its PRIMARY KEY but "
                                      "written from an aggregate: the key is the GROUP BY "
                                      "columns",
                                      o->name, sink->name);
            }
        } else if (col && col->pk_ord > 0 && s < 64) {
            keyed[s] = true;
        }
    }
    /* the sink's key is the GROUP BY columns (window_start or window_end stands for both) */
    bool start = false, end = false;
    for (int g = 0; g < a->n_group && g < 64; g++) {
        const rsql_bexpr_t *x = a->group[g];
        bool is_start = x->kind == RSQL_BX_COLUMN && x->column == w->col;
        bool is_end = x->kind == RSQL_BX_COLUMN && x->column == w->col + 1;
        start |= is_start && keyed[g];
        end |= is_end && keyed[g];
        if (!is_start && !is_end && !keyed[g]) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, plan->sink.pos,
                                  "table '%s' must be keyed by the GROUP BY columns: a window "
                                  "aggregation over connector '%s' merges each row into the row "
                                  "of its key, and GROUP BY %s is not written into a PRIMARY "
                                  "KEY column",
                                  sink->name, src, a->group[g]->name ? a->group[g]->name : "key");
        }
    }
    if (!end && (!start || w->kind == RSQL_WIN_CUMULATE)) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, plan->sink.pos,
                              "table '%s' must be keyed by the window too: put the column "
                              "written from window_%s in its PRIMARY KEY",
                              sink->name, w->kind == RSQL_WIN_CUMULATE ? "end" : "start");
    }
    w->in_sink = true;
    return RSQL_OK;
}
