/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_int: the SQL front end's private header, shared by the tokenizer, the
 * keyword table, the lemon grammar (sql_parse.y), the AST builders its
 * actions call (sql_ast.c), the push driver and the dump.  Nothing outside
 * sql/ includes it.
 *
 * The parse state (struct rsql_parse) is also lemon's %extra_context: the
 * builders record the first error in it and allocate every node from its
 * arena, so a syntax error at any point leaks nothing (no %destructor is
 * needed: no grammar value owns heap memory).
 */
#ifndef RSQL_SQL_INT_H
#define RSQL_SQL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_mem.h"
#include "sql/rsql_sql.h"
#include "sql/sql_parse.h" /* generated into the build tree: RSQL_TK_* */

/* The parser: the text, its arena, the cursor and the current statement's state. */
struct rsql_parse {
    const char *sql;     /* the caller's text (borrowed) */
    size_t len;          /* its length */
    char *text;          /* NUL-terminated copy of sql[0..len) that the tokenizer reads */
    rsql_arena_t *arena; /* every AST node and string of every statement */
    size_t cursor;       /* where the next statement starts */
    /* the statement being parsed */
    rsql_error_t error; /* first error */
    bool failed;        /* error is set: stop feeding tokens */
    bool at_semi;       /* the end of input fed to lemon is a real ';' */
    rsql_stmt_t *stmt;  /* set by the start rule */
    rsql_token_t cur;   /* the token being fed (for stack overflow errors) */
    /* contextual tokens (rsql_sql__context_token): the last token fed and, for each open
       parenthesis up to RSQL_SQL_CTX_DEPTH deep, whose call it opens */
    rsql_token_t prev;
    rsql_token_t before[2]; /* the two tokens fed before prev, the nearer first */
    int stmt_kw;            /* the type of the statement's first token */
    bool seen_from;         /* a FROM was fed (sql_unsupported.c) */
    int depth;
    struct {
        int n;
        void *items;
    } wms; /* CREATE TABLE's WATERMARK clauses so far (rsql_sql__watermark) */
    unsigned char paren_kind[32]; /* RSQL_SQL_CTX_DEPTH: 0 other, 1 POSITION, 2 POSITION after
                                     its IN, 3 JSON_OBJECT */
};
#define RSQL_SQL_CTX_DEPTH 32
#define RSQL_SQL_CTX_TRY_CAST 4 /* paren_kind of TRY_CAST( (not supported: a clear error) */

/* Set the error of a construct that is not supported yet at tok; false: not one of them. */
bool rsql_sql__unsupported(rsql_parse_t *p, int major, const rsql_token_t *tok);

/* A growable array in the arena (capacity = next power of two of n). */
typedef struct sql_vec {
    int n;
    void *items;
} sql_vec_t;

/* An optional keyword with its position: NOT in NOT LIKE, NOT NULL, IF EXISTS... */
/* PRIMARY KEY (cols) NOT ENFORCED: the column names (rsql_ident_t) and the clause's span. */
typedef struct sql_pkey {
    sql_vec_t cols;
    rsql_pos_t pos;
} sql_pkey_t;

/* A unit of an interval literal's qualifier with its optional precisions: DAY, DAY(3),
   SECOND(2, 3); p1 and p2 are the INTEGER tokens (type 0 when absent), last its last token. */
typedef struct sql_ivunit {
    rsql_token_t unit, p1, p2, last;
} sql_ivunit_t;

typedef struct sql_flag {
    bool on;
    rsql_pos_t pos;
} sql_flag_t;

/* A setting key or value as text (string unescaped, dotted name joined). */
typedef struct sql_text {
    const char *s;
    rsql_pos_t pos;
} sql_text_t;

/* METADATA [FROM 'key'] [VIRTUAL] of a column definition (on false when absent). */
typedef struct sql_meta {
    bool on;
    rsql_pos_t pos; /* the METADATA keyword */
    sql_text_t from; /* s NULL without FROM */
    sql_flag_t virt;
} sql_meta_t;

/* ORDER BY expr [ASC | DESC] inside OVER (e NULL when absent). */
typedef struct sql_order {
    rsql_expr_t *e;
    bool desc;
    rsql_pos_t pos;
} sql_order_t;

/* LIMIT n as written (present false when absent). */
typedef struct sql_limit {
    bool present;
    rsql_token_t tok;
} sql_limit_t;

/* GROUP BY keys [HAVING cond], or HAVING alone, as written (present false when absent). */
typedef struct sql_group {
    bool present;
    rsql_expr_list_t keys;
    rsql_expr_t *having;
    rsql_pos_t pos;
} sql_group_t;

/* A function call's tail: [RETURNING type] [clauses] (grammar values only). */
typedef struct sql_fn_tail {
    bool has_returning;
    rsql_type_spec_t type;
    sql_vec_t clauses; /* rsql_json_clause_t */
    int wrapper;       /* RSQL_JW_* (0: not written) */
    rsql_pos_t wrapper_pos;
} sql_fn_tail_t;

/* JSON_QUERY's WITH/WITHOUT ... WRAPPER as written. */
typedef struct sql_wrapper {
    int n;
    rsql_pos_t pos;
} sql_wrapper_t;

/* JSON_OBJECT's KEY k VALUE v. */
typedef struct sql_pair {
    rsql_expr_t *left, *right;
} sql_pair_t;

/* ---- the generated parser (sql_parse.c, compiled through sql_parse_gen.c) */
void *rsql_sql_parserAlloc(void *(*malloc_fn)(size_t), rsql_parse_t *pctx);
void rsql_sql_parserFree(void *parser, void (*free_fn)(void *));
void rsql_sql_parser(void *parser, int major, rsql_token_t minor);

/* ---- keywords (sql_keywords.c) */

/* The token code of keyword z[0..n) (any case), or RSQL_TK_ID when it is none. */
int rsql_sql__keyword_code(const char *z, size_t n);

/* ---- positions and errors (sql_ast.c) */

rsql_pos_t rsql_sql__tok_pos(const rsql_token_t *t);
/* From the start of a to the end of b. */
rsql_pos_t rsql_sql__span(rsql_pos_t a, rsql_pos_t b);
/* Record the first error of the statement; returns code. */
rsql_err_t rsql_sql__error(rsql_parse_t *p, rsql_err_t code, rsql_pos_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* %syntax_error: `near "TOK": syntax error`, or "incomplete input" at the end of the text. */
void rsql_sql__syntax_error(rsql_parse_t *p, int major, const rsql_token_t *tok);
void rsql_sql__stack_overflow(rsql_parse_t *p);
/* Zeroed arena memory; NULL (and a NOMEM error) when out of memory. */
void *rsql_sql__alloc(rsql_parse_t *p, size_t n);
/* A string literal token unquoted (its length into *len_out when non-NULL), in the parse. */
char *rsql_sql__unquote(rsql_parse_t *p, const rsql_token_t *t, size_t *len_out);
/* An integer token as an unsigned value (up to 2^63 when allow_2p63); false with the error set. */
bool rsql_sql__parse_uint(rsql_parse_t *p, const rsql_token_t *t, bool allow_2p63, uint64_t *out);
/* Append *elem (size bytes) to the array at *items holding *n elements. */
void rsql_sql__push(rsql_parse_t *p, int *n, void *items, const void *elem, size_t size);

/* ---- builders called by the grammar actions (sql_ast.c); NULL/zero after an error */

rsql_ident_t rsql_sql__ident(rsql_parse_t *p, const rsql_token_t *t);
sql_text_t rsql_sql__text_string(rsql_parse_t *p, const rsql_token_t *t);
sql_text_t rsql_sql__text_raw(rsql_parse_t *p, const rsql_token_t *sign, const rsql_token_t *t);
sql_text_t rsql_sql__text_ident(rsql_parse_t *p, const sql_text_t *prefix, const rsql_ident_t *id);

rsql_expr_t *rsql_sql__expr_literal(rsql_parse_t *p, const rsql_token_t *t);
/* INTERVAL 'text' from [TO to] (to NULL when absent): a literal of milliseconds (sql_ast_time.c) */
rsql_expr_t *rsql_sql__expr_interval(rsql_parse_t *p, const rsql_token_t *kw,
                                     const rsql_token_t *text, const sql_ivunit_t *from,
                                     const sql_ivunit_t *to);
/* Keep WATERMARK FOR column AS x (after n_columns column definitions) for the statement. */
void rsql_sql__watermark(rsql_parse_t *p, const rsql_token_t *kw, int n_columns,
                         const rsql_ident_t *column, const rsql_expr_t *x);
/* Hand the WATERMARK clauses kept to CREATE TABLE s (a column after one is an error). */
void rsql_sql__stmt_watermarks(rsql_parse_t *p, rsql_stmt_t *s);
rsql_expr_t *rsql_sql__expr_column(rsql_parse_t *p, const rsql_ident_t *qual,
                                   const rsql_ident_t *name);
rsql_expr_t *rsql_sql__expr_star(rsql_parse_t *p, const rsql_token_t *t);
rsql_expr_t *rsql_sql__expr_paren(rsql_parse_t *p, const rsql_token_t *lp, rsql_expr_t *x,
                                  const rsql_token_t *rp);
rsql_expr_t *rsql_sql__expr_unary(rsql_parse_t *p, rsql_op_t op, const rsql_token_t *optok,
                                  rsql_expr_t *x);
rsql_expr_t *rsql_sql__expr_binary(rsql_parse_t *p, rsql_op_t op, const rsql_token_t *optok,
                                   rsql_expr_t *l, rsql_expr_t *r);
rsql_expr_t *rsql_sql__expr_is_null(rsql_parse_t *p, rsql_expr_t *l, const rsql_token_t *is,
                                    bool negated, const rsql_token_t *null_tok);
rsql_expr_t *rsql_sql__expr_like(rsql_parse_t *p, rsql_expr_t *l, sql_flag_t op, rsql_expr_t *r,
                                 rsql_expr_t *esc);
rsql_expr_t *rsql_sql__expr_in(rsql_parse_t *p, rsql_expr_t *l, sql_flag_t op,
                               const rsql_expr_list_t *list, const rsql_token_t *rp);
rsql_expr_t *rsql_sql__expr_between(rsql_parse_t *p, rsql_expr_t *l, sql_flag_t op,
                                    rsql_expr_t *lo, rsql_expr_t *hi);
rsql_expr_t *rsql_sql__expr_case(rsql_parse_t *p, const rsql_token_t *case_tok,
                                 rsql_expr_t *operand, const rsql_expr_list_t *whens,
                                 rsql_expr_t *else_expr, const rsql_token_t *end_tok);
rsql_expr_t *rsql_sql__expr_cast(rsql_parse_t *p, const rsql_token_t *cast_tok, rsql_expr_t *x,
                                 const rsql_type_spec_t *type, const rsql_token_t *rp);
rsql_expr_t *rsql_sql__expr_func(rsql_parse_t *p, const rsql_token_t *name,
                                 const rsql_expr_list_t *args, const rsql_token_t *rp);
rsql_expr_t *rsql_sql__expr_substring(rsql_parse_t *p, const rsql_token_t *name,
                                      rsql_expr_t *x, const rsql_token_t *from_tok,
                                      rsql_expr_t *start, rsql_expr_t *count,
                                      const rsql_token_t *rp);
/* ---- function calls with special forms (sql_ast_fn.c) */
/* POSITION(x IN y): the FUNC POSITION(x, y). */
rsql_expr_t *rsql_sql__expr_position(rsql_parse_t *p, const rsql_token_t *name, rsql_expr_t *x,
                                     rsql_expr_t *y, const rsql_token_t *rp);
/* name(args [RETURNING t] [clauses]) or name(k VALUE v, ...) when kv. */
rsql_expr_t *rsql_sql__expr_func_ext(rsql_parse_t *p, const rsql_token_t *name,
                                     const rsql_expr_list_t *args, bool kv,
                                     const sql_fn_tail_t *tail, const rsql_token_t *rp);
/* One behavior of a clause (its event is set by the grammar). */
rsql_json_clause_t rsql_sql__json_beh(rsql_json_beh_t beh, const rsql_token_t *t,
                                      rsql_expr_t *dflt);
/* The token type the driver feeds for t: KEY in JSON_OBJECT, INPOS in POSITION (see there). */
int rsql_sql__context_token(rsql_parse_t *p, const rsql_token_t *t);

void rsql_sql__expr_list_push(rsql_parse_t *p, rsql_expr_list_t *l, rsql_expr_t *x);
/* Set e's height from its operands; NULL with an error past RSQL_SQL_MAX_EXPR_DEPTH. */
rsql_expr_t *rsql_sql__expr_height(rsql_parse_t *p, rsql_expr_t *e);

rsql_type_spec_t rsql_sql__type_text(rsql_parse_t *p, rsql_type_t type, const rsql_token_t *first,
                                     const rsql_token_t *last);
rsql_expr_t *rsql_sql__expr_field(rsql_parse_t *p, rsql_expr_t *x, const rsql_ident_t *name);
rsql_expr_t *rsql_sql__expr_index(rsql_parse_t *p, rsql_expr_t *x, rsql_expr_t *i,
                                  const rsql_token_t *rb);
rsql_type_spec_t rsql_sql__type(rsql_parse_t *p, rsql_type_t type, const rsql_token_t *t,
                                const rsql_token_t *precision, const rsql_token_t *rp);
void rsql_sql__column_meta(rsql_parse_t *p, rsql_column_def_t *c, const sql_meta_t *m);
rsql_column_def_t rsql_sql__column(rsql_parse_t *p, const rsql_ident_t *name,
                                   const rsql_type_spec_t *type, sql_flag_t nullability);
rsql_ident_t rsql_sql__alias(rsql_parse_t *p, const rsql_ident_t *id);
rsql_expr_t *rsql_sql__expr_qstar(rsql_parse_t *p, const rsql_expr_t *q, const rsql_token_t *t);
rsql_column_def_t rsql_sql__column_computed(rsql_parse_t *p, const rsql_ident_t *name,
                                            const rsql_expr_t *x);
rsql_option_t rsql_sql__option(rsql_parse_t *p, const rsql_token_t *key,
                               const rsql_token_t *value);
rsql_select_item_t rsql_sql__select_item(rsql_parse_t *p, rsql_expr_t *x,
                                         const rsql_ident_t *alias);

/* name() OVER (PARTITION BY partition ORDER BY order): a window function call. */
rsql_expr_t *rsql_sql__expr_over(rsql_parse_t *p, const rsql_token_t *name,
                                 const rsql_token_t *over_tok, const rsql_expr_list_t *partition,
                                 const sql_order_t *order, const rsql_token_t *rp);
/* sel with FROM (sub) in place of a table: lp and rp are the subquery's parentheses. */
rsql_select_t *rsql_sql__select_from_sub(rsql_parse_t *p, rsql_select_t *sel, rsql_select_t *sub,
                                         const rsql_token_t *lp, const rsql_token_t *rp);
rsql_select_t *rsql_sql__select(rsql_parse_t *p, const rsql_token_t *select_tok,
                                const sql_vec_t *items, const rsql_ident_t *from,
                                const rsql_ident_t *alias, rsql_join_t *join,
                                rsql_expr_t *where, const sql_limit_t *limit);
/* fn(TABLE table [PARTITION BY partition], DESCRIPTOR(time_col), args...) */
rsql_window_tvf_t *rsql_sql__window_tvf(rsql_parse_t *p, const rsql_token_t *fn,
                                        const rsql_ident_t *table,
                                        const sql_vec_t *partition,
                                        const rsql_ident_t *time_col,
                                        const rsql_expr_list_t *args, const rsql_token_t *rp);
/* sel reading window function w (FROM TABLE(w)); table_tok and rp: TABLE and its ')'. */
rsql_select_t *rsql_sql__select_window(rsql_parse_t *p, rsql_select_t *sel, rsql_window_tvf_t *w,
                                       const rsql_token_t *table_tok, const rsql_token_t *rp);
/* sel with its GROUP BY / HAVING (g); sel itself when g is absent. */
rsql_select_t *rsql_sql__select_group(rsql_parse_t *p, rsql_select_t *sel, const sql_group_t *g);
/* An aggregate call written f(*) (star) or f(DISTINCT x): the FUNC node marked. */
rsql_expr_t *rsql_sql__expr_agg(rsql_parse_t *p, const rsql_token_t *name, rsql_expr_t *arg,
                                bool star, const rsql_token_t *rp);
rsql_join_t *rsql_sql__join(rsql_parse_t *p, const sql_flag_t *type, const rsql_token_t *join_tok,
                            const rsql_ident_t *table, rsql_expr_t *as_of,
                            const rsql_ident_t *alias, rsql_expr_t *on);
rsql_insert_t *rsql_sql__insert(rsql_parse_t *p, const rsql_token_t *insert_tok,
                                const rsql_ident_t *target, const sql_vec_t *columns,
                                rsql_select_t *select);

rsql_stmt_t *rsql_sql__stmt(rsql_parse_t *p, rsql_stmt_kind_t kind, const rsql_ident_t *name);
rsql_stmt_t *rsql_sql__stmt_create_table(rsql_parse_t *p, bool if_not_exists,
                                         const rsql_ident_t *name, const sql_vec_t *columns,
                                         const sql_vec_t *options);
/* Attach a parsed PRIMARY KEY clause (may be empty) to a CREATE TABLE statement s (may be NULL). */
void rsql_sql__stmt_primary_key(rsql_parse_t *p, rsql_stmt_t *s, const sql_pkey_t *pk);
rsql_stmt_t *rsql_sql__stmt_drop(rsql_parse_t *p, rsql_stmt_kind_t kind, bool if_exists,
                                 const rsql_ident_t *name);
rsql_stmt_t *rsql_sql__stmt_setting(rsql_parse_t *p, rsql_stmt_kind_t kind,
                                    const sql_text_t *key, const sql_text_t *value);
rsql_stmt_t *rsql_sql__stmt_insert(rsql_parse_t *p, rsql_insert_t *ins);
rsql_stmt_t *rsql_sql__stmt_select(rsql_parse_t *p, rsql_select_t *sel);
rsql_stmt_t *rsql_sql__stmt_wrap(rsql_parse_t *p, rsql_stmt_kind_t kind, bool if_not_exists,
                                 const rsql_ident_t *name, rsql_stmt_t *inner);
/* The start rule's action: keep the statement. */
void rsql_sql__finish(rsql_parse_t *p, rsql_stmt_t *s);
/* After accept: reject literals left out of range (see sql_ast.c). */
rsql_err_t rsql_sql__check(rsql_parse_t *p, rsql_stmt_t *s);

/* ---- numbers (sql_ast.c): locale-independent double conversions */
double rsql_sql__strtod(const char *s, char **end);
void rsql_sql__fmt_double(char *buf, size_t size, double d);

#endif
