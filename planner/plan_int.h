/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_int: what the planner's files share and nobody else sees: the
 * function table row, the binder context, casts and timestamp text, UTF-8
 * helpers, and the evaluator's internal entry points.
 */
#ifndef RSQL_PLAN_INT_H
#define RSQL_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner/rsql_plan.h"

/* ---- binder context (plan_bind.c) */

typedef struct rsql_bind {
    rsql_arena_t *arena;
    const char *sql;               /* the statement text (positions) */
    const rsql_table_def_t *table; /* the FROM table (its columns are the row) */
    int depth;                     /* rsql_plan__bind_expr calls under way */
    rsql_plan_table_t *from;       /* the FROM table's plan table (its computed columns), or NULL */
    bool in_computed;              /* binding a computed column's expression */
    const char *alias;             /* FROM table [AS] alias, or NULL */
    /* a lookup join's table (JOIN dim ... [AS] dim_alias), or NULL: its columns are the
       row's from dim_offset on (after the FROM table's) */
    const rsql_table_def_t *dim;
    const char *dim_alias;
    int dim_offset;
    /* binding a select list or HAVING that may call aggregates (plan_agg.c): they are
       collected here; NULL where an aggregate is not allowed */
    rsql_plan_agg_t *agg;
    bool in_agg; /* binding an aggregate's argument */
    /* FROM TABLE(<window function>): window_start, window_end and window_time are the row's
       columns win_col .. win_col + 2 (after the FROM table's); 0: no window */
    int win_col;
} rsql_bind_t;

/* A stored expression (a computed column's, a WATERMARK's) parsed as "SELECT <expr> FROM t":
   its tree, which *parse owns (destroyed by the caller, even on NULL); NULL with *code
   RSQL_ERR_NOMEM or RSQL_ERR_SEMANTIC (it no longer parses). */
const rsql_expr_t *rsql_plan__parse_stored(const char *expr, rsql_parse_t **parse,
                                           rsql_err_t *code);
/* Every node of x placed at pos (a computed column's nodes at the reference to it). */
void rsql_plan__place(rsql_bexpr_t *x, rsql_pos_t pos);

/* ---- windows (plan_window.c) */

/* FROM TABLE(fn(...)) of sel: window_start, window_end and window_time become columns of the
   row (b->win_col) and plan->window is made; nothing without one. */
rsql_err_t rsql_plan__window_bind(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                                  rsql_error_t *err);
/* With GROUP BY planned (plan->agg): the function's time column and intervals, the table's
   watermark, and the rules of a window aggregation. */
rsql_err_t rsql_plan__window_plan(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                                  rsql_error_t *err);
/* A window aggregation over a source that acknowledges its own messages: the keyed sink
   merges each row's part (plan->window->in_sink, merge); refused, with why, when the sink,
   the aggregates or the outputs cannot (after the outputs are mapped). */
rsql_err_t rsql_plan__window_in_sink(rsql_plan_t *plan, rsql_error_t *err);
/* The column node of window property name (window_start, window_end, window_time) at pos, or
   NULL (err untouched) when b has no window or name is none of them. */
rsql_bexpr_t *rsql_plan__window_column(rsql_bind_t *b, const char *name, rsql_pos_t pos,
                                       rsql_error_t *err);

/* ---- aggregation (plan_agg.c) */

/* Whether name is an aggregate function's. */
bool rsql_plan__is_agg(const char *name);
/* The aggregate call e (b->agg collects it): a placeholder node of its result. */
rsql_bexpr_t *rsql_plan__bind_agg(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err);
/* A new, empty collector in plan's arena for b->agg. */
rsql_plan_agg_t *rsql_plan__agg_new(rsql_plan_t *plan);
/*
** With sel's select list bound into items[] (n of them) with b->agg collecting: when sel
** aggregates (GROUP BY, HAVING or a call), bind GROUP BY and HAVING, rewrite every item over
** the aggregate row, move WHERE (plan->filter) into plan->agg->pre and set HAVING as the
** filter; else leave everything as it is (plan->agg NULL).
*/
/* Lay out a's accumulators (n_acc, acc_types, acc_descs, calls[].acc) in plan's arena. */
rsql_err_t rsql_plan__agg_layout(rsql_plan_t *plan, rsql_plan_agg_t *a, rsql_error_t *err);
rsql_err_t rsql_plan__agg_plan(rsql_plan_t *plan, const rsql_select_t *sel, rsql_bind_t *b,
                               rsql_bexpr_t **items, int n, rsql_error_t *err);

/* A column reference (plan_names.c), q.f of a ROW column included. NULL with err set. */
rsql_bexpr_t *rsql_plan__bind_column(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err);
/* x.name where x is a ROW: the field (name_pos: the name's place); an unknown field is an
   error. */
rsql_bexpr_t *rsql_plan__bind_field(rsql_bind_t *b, rsql_bexpr_t *x, const char *name,
                                    rsql_pos_t pos, rsql_pos_t name_pos, rsql_error_t *err);

/* Does qualifier q name b's table (its alias when it has one, else its name)? When not, and
   err is non-NULL, err says so at pos ("no such table: q"). */
bool rsql_plan__names_table(const rsql_bind_t *b, const char *q, rsql_pos_t pos,
                            rsql_error_t *err);

/* Load table name into t (plan_build.c) and check it can be used on side (RSQL_SIDE_*); errors
   at pos. */
rsql_err_t rsql_plan__bind_table(rsql_catalog_t *cat, const char *name, rsql_pos_t pos, int side,
                                 rsql_plan_table_t *t, rsql_error_t *err);
/* The lookup join of sel (plan_lookup.c): its table bound, b's scope widened to its columns. */
/*
** Deduplication (plan_dedup.c): outer reads FROM a subquery; check that it is Flink's
** deduplication and plan it as *flat, one SELECT over the subquery's table (decl: its columns
** as declared), with plan->dedup made; then, once the table is bound, bind its key, order and
** the subquery's WHERE (in: the subquery).
*/
rsql_err_t rsql_plan__dedup_flatten(rsql_plan_t *plan, const rsql_select_t *outer,
                                    const rsql_table_def_t *decl, const rsql_select_t **flat,
                                    rsql_error_t *err);
rsql_err_t rsql_plan__dedup_bind(rsql_plan_t *plan, const rsql_select_t *in, rsql_bind_t *b,
                                 rsql_error_t *err);
/*
** A deduplication of a source that acknowledges its messages itself (plan->dedup->in_sink,
** set by rsql_plan__dedup_bind) is done by the sink table, once the outputs are mapped: check
** that the sink keeps rows by a key that is the PARTITION BY columns, and move the
** subquery's WHERE into the plan's filter. Nothing for other plans.
*/
rsql_err_t rsql_plan__dedup_in_sink(rsql_plan_t *plan, rsql_error_t *err);
/* The names of the connectors of this build that pass ok, comma-separated (in single quotes
   with quoted), into b ("none in this build" when none does); the count. (plan_changes.c) */
int rsql_plan__connectors_where(bool (*ok)(const rsql_connector_def_t *c), bool quoted,
                                rsql_buf_t *b);
rsql_err_t rsql_plan__lookup_table(rsql_catalog_t *cat, rsql_plan_t *plan, const rsql_join_t *j,
                                   rsql_bind_t *b, rsql_error_t *err);
/* Then, with the statement bound: AS OF checked, ON split into the key and the rest. */
rsql_err_t rsql_plan__lookup_on(rsql_plan_t *plan, const rsql_join_t *j, rsql_bind_t *b,
                                rsql_error_t *err);

/* ---- computed columns (plan_computed.c) */

/* Split t->def (as loaded) into t->def without its computed columns and t->decl. */
rsql_err_t rsql_plan__split_computed(rsql_plan_table_t *t, rsql_error_t *err);
/* b->from's computed column named name (any case): its index in decl, or -1. */
int rsql_plan__computed_index(const rsql_bind_t *b, const char *name);
/* Decl column i of b->from (computed), referred to at pos: its expression bound over b->table,
   every node placed at pos. NULL with err set. */
rsql_bexpr_t *rsql_plan__bind_computed(rsql_bind_t *b, int i, rsql_pos_t pos, rsql_error_t *err);
/* Free t->decl and t->computed. */
void rsql_plan__computed_free(rsql_plan_table_t *t);

/* CAST(v AS the type of desc): rsql_plan__cast_value with DECIMAL's precision and scale. */
rsql_err_t rsql_plan__cast_value_desc(const rsql_value_t *v, rsql_type_t to,
                                      const rsql_tdesc_t *desc, rsql_eval_ctx_t *ctx,
                                      rsql_arena_t *a, rsql_pos_t pos, rsql_value_t *out,
                                      rsql_error_t *err);
/* CAST(child AS desc's type), marked implicit; child itself when it already has that type. */
rsql_bexpr_t *rsql_plan__cast_desc(rsql_arena_t *a, rsql_bexpr_t *child, const rsql_tdesc_t *desc,
                                   bool implicit);

/* The common type of CASE branches / COALESCE arguments, descriptors included (plan_bind.c). */
bool rsql_plan__unify_expr(rsql_type_t *t, const rsql_tdesc_t **d, const rsql_bexpr_t *x);

/* Bind and type-check one AST expression. NULL with err set. */
rsql_bexpr_t *rsql_plan__bind_expr(rsql_bind_t *b, const rsql_expr_t *e, rsql_error_t *err);

/* A new node of the arena with n_args argument slots. NULL when out of memory. */
rsql_bexpr_t *rsql_plan__node(rsql_arena_t *a, rsql_bx_kind_t kind, rsql_type_t type,
                              rsql_pos_t pos, int n_args);
/* CAST(child AS to), marked implicit; child itself when it already has type to. */
rsql_bexpr_t *rsql_plan__cast(rsql_arena_t *a, rsql_bexpr_t *child, rsql_type_t to,
                              bool implicit);
/* The SQL spelling of an operator ("+", "<>", "AND"); static text (plan_explain.c). */
const char *rsql_plan__op_text(rsql_op_t op);
/* True when x op y is arithmetic with an INTERVAL (or TIMESTAMP - TIMESTAMP): plan_interval.c. */
bool rsql_plan__interval_arith(const rsql_bexpr_t *x, const rsql_bexpr_t *y, rsql_op_t op);
/* x op y with an INTERVAL: the node (TIMESTAMP(3) or INTERVAL), else NULL with err set. */
rsql_bexpr_t *rsql_plan__bind_interval_arith(rsql_bind_t *b, const rsql_expr_t *e,
                                             rsql_bexpr_t *x, rsql_bexpr_t *y, rsql_error_t *err);
/* Whether CAST(from AS to) is allowed. */
bool rsql_plan__castable(rsql_type_t from, rsql_type_t to);
/* The common type of two branch types (CASE, COALESCE): the one the other widens to. */
bool rsql_plan__unify(rsql_type_t a, rsql_type_t b, rsql_type_t *out);

/* ---- functions (plan_funcs.c) */

#define RSQL_FN_STRICT 0x1u /* any NULL argument gives NULL without calling eval */
#define RSQL_FN_LAZY 0x2u   /* eval receives no evaluated args (COALESCE): plan_eval.c does it */
#define RSQL_FN_COND 0x4u   /* IF(c, a, b): plan_eval.c evaluates c, then only a or b */
#define RSQL_FN_UNIT 0x8u   /* the first argument is a time unit word (EXTRACT(YEAR FROM x)):
                               bound as the VARCHAR constant of its upper-cased name */
#define RSQL_FN_CLAUSES 0x10u /* takes RETURNING and SQL/JSON ON ... clauses (its binder
                                 reads them from the AST) */
#define RSQL_FN_KV 0x20u    /* takes JSON_OBJECT's [KEY] k VALUE v members */

typedef rsql_err_t (*rsql_func_bind_cb)(rsql_bind_t *b, rsql_bexpr_t *call,
                                        const rsql_expr_t *ast, rsql_error_t *err);
typedef rsql_err_t (*rsql_func_eval_cb)(const rsql_bexpr_t *call, const rsql_value_t *args,
                                        rsql_eval_ctx_t *ctx, rsql_value_t *out,
                                        rsql_error_t *err);
/* Print a call of a special form (POSITION(a IN b), EXTRACT(YEAR FROM x)) as SQL. */
typedef void (*rsql_func_print_cb)(const rsql_bexpr_t *call, rsql_buf_t *out);
struct rsql_func {
    const char *name;
    int min_args, max_args; /* max_args -1: any number */
    unsigned flags;         /* RSQL_FN_* */
    rsql_func_bind_cb bind; /* checks argument types (errors at the argument), sets call->type */
    rsql_func_eval_cb eval;
    rsql_func_print_cb print; /* NULL: NAME(arg, ...) */
};

/* The row for name (case-insensitive), or NULL. */
const rsql_func_t *rsql_plan__func_find(const char *name);
/* The name of function i (0, 1, ...), NULL past the last. */
const char *rsql_plan__func_name(int i);

/* ---- unknown names, with the nearest known one (plan_suggest.c); each returns err's code */
/* "no such column: [qualifier.]name (did you mean ...?)" among t's columns. */
rsql_err_t rsql_plan__no_such_column(const rsql_table_def_t *t, const char *qualifier,
                                     const char *name, rsql_pos_t pos, rsql_error_t *err);
/* "no such function: name (did you mean ...?)"; an aggregate: not supported yet. */
rsql_err_t rsql_plan__no_such_function(const char *name, rsql_pos_t pos, rsql_error_t *err);
/* Free ctx's cached JSON document (fn_json.c); rsql_eval_ctx_reset/deinit call it. */
void rsql_plan__json_doc_drop(rsql_eval_ctx_t *ctx);

/* ---- casts (plan_cast.c; the text forms are base/rsql_value.h's) */

/*
** Convert v (of type v->type) to type to into *out. Strings produced go to
** ctx's scratch (ctx may be NULL at plan time: then into arena a). Errors:
** RSQL_ERR_EVAL "cannot cast 'abc' to INT" at pos.
*/
rsql_err_t rsql_plan__cast_value(const rsql_value_t *v, rsql_type_t to, rsql_eval_ctx_t *ctx,
                                 rsql_arena_t *a, rsql_pos_t pos, rsql_value_t *out,
                                 rsql_error_t *err);

/* ---- UTF-8 (plan_funcs.c) */

/* Decode the code point at s[*i] (< n) and advance *i; invalid bytes decode as themselves. */
uint32_t rsql_plan__utf8_next(const char *s, size_t n, size_t *i);
/* Encode cp into out (4 bytes room); returns the length. */
size_t rsql_plan__utf8_put(uint32_t cp, char *out);

/* ---- evaluation (plan_eval.c) */

/* -1, 0, 1: compare two non-NULL values of comparable types. */
int rsql_plan__compare(const rsql_value_t *a, const rsql_value_t *b);
/* x op y of a BINARY node other than AND/OR, and NOT x / -x of a UNARY node, over evaluated
   operands typed as e's arguments: the one implementation the tree walk and the flat program
   (plan_prog.c) share. */
rsql_err_t rsql_plan__binary_values(const rsql_bexpr_t *e, const rsql_value_t *x,
                                    const rsql_value_t *y, rsql_eval_ctx_t *ctx,
                                    rsql_value_t *out, rsql_error_t *err);
rsql_err_t rsql_plan__unary_values(const rsql_bexpr_t *e, const rsql_value_t *x,
                                   rsql_value_t *out, rsql_error_t *err);
/* LIKE on UTF-8: % any run, _ one code point, esc (0 = none) escapes the next char. */
rsql_err_t rsql_plan__like(const char *s, size_t sn, const char *p, size_t pn, uint32_t esc,
                           bool *match);

/* ---- METADATA columns (plan_meta.c) */

/*
** Check t's METADATA columns against its connector's key table for side (RSQL_SIDE_SOURCE:
** every key readable; RSQL_SIDE_SINK: every non-VIRTUAL key writable). Errors at pos.
*/
rsql_err_t rsql_plan__check_meta(const rsql_plan_table_t *t, int side, rsql_pos_t pos,
                                 rsql_error_t *err);
/* Set plan->source_meta from the METADATA columns the filter and outputs read. */
rsql_err_t rsql_plan__source_meta(rsql_plan_t *plan, rsql_error_t *err);

/* ---- changelogs (plan_changes.c) */

/*
** Set plan->mode and changes_by from the source (its connector's produces_changes, its format)
** and, for an INSERT of changes, check that the sink takes them (rsql_connector_def_t.changes,
** its PRIMARY KEY, its format, accept_changes). Errors at the source's or the sink's name.
** Then whether the -U rows are needed (plan->before_key, before_kept).
*/
rsql_err_t rsql_plan__changes(rsql_plan_t *plan, rsql_error_t *err);
/* The EXPLAIN line "Changelog: ..." of plan (the modes of source, plan and sink). */
void rsql_plan__explain_changes(const rsql_plan_t *plan, rsql_buf_t *out);

#endif
