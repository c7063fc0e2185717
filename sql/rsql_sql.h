/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_sql: the SQL front end's API: the AST every statement parses into,
 * and the push parser driver.  Every node carries its byte span in the SQL
 * text (rsql_pos_t), so later stages (binder, planner, option validation)
 * report errors at the exact spot.
 *
 * Memory: the AST lives in the arena of the rsql_parse_t that produced it
 * and is freed with it (rsql_parse_destroy).  Strings in the AST are
 * NUL-terminated copies in that arena: identifiers unquoted ("a""b" -> a"b),
 * string literals with '' collapsed.
 */
#ifndef RSQL_SQL_H
#define RSQL_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_types.h"

/* ---- tokens */

typedef struct rsql_token {
    int type;      /* RSQL_TK_* from the generated parser header */
    const char *z; /* slice of the SQL text, not NUL-terminated */
    uint32_t n;    /* length in bytes */
    uint32_t off;  /* byte offset in the SQL text */
} rsql_token_t;

/* An identifier with its place. name is unquoted. */
typedef struct rsql_ident {
    const char *name;
    rsql_pos_t pos;
} rsql_ident_t;

/* ---- expressions */

typedef enum rsql_expr_kind {
    RSQL_EX_LITERAL, /* lit */
    RSQL_EX_COLUMN,  /* name (qualifier optional: t.a) */
    RSQL_EX_STAR,    /* '*' in a select list only */
    RSQL_EX_UNARY,   /* op (NOT, NEG, PLUS) left */
    RSQL_EX_BINARY,  /* left op right */
    RSQL_EX_IS_NULL, /* left IS [NOT] NULL */
    RSQL_EX_LIKE,    /* left [NOT] LIKE right [ESCAPE third] */
    RSQL_EX_IN,      /* left [NOT] IN (args) */
    RSQL_EX_BETWEEN, /* left [NOT] BETWEEN right AND third */
    RSQL_EX_CASE,    /* CASE [left] WHEN args[0] THEN args[1] ... [ELSE right] END */
    RSQL_EX_CAST,    /* CAST(left AS cast_type) */
    RSQL_EX_FUNC,    /* name(args); CURRENT_TIMESTAMP is FUNC "CURRENT_TIMESTAMP" with no args */
    RSQL_EX_FIELD,   /* left.name: a ROW field (a.b alone parses as COLUMN b qualified by a) */
    RSQL_EX_INDEX    /* left[right]: an ARRAY element (1-based) or a MAP value */
} rsql_expr_kind_t;

typedef enum rsql_op {
    RSQL_OP_NONE = 0,
    RSQL_OP_ADD, RSQL_OP_SUB, RSQL_OP_MUL, RSQL_OP_DIV, RSQL_OP_MOD,
    RSQL_OP_EQ, RSQL_OP_NE, RSQL_OP_LT, RSQL_OP_LE, RSQL_OP_GT, RSQL_OP_GE,
    RSQL_OP_AND, RSQL_OP_OR, RSQL_OP_CONCAT,
    RSQL_OP_NOT, RSQL_OP_NEG, RSQL_OP_PLUS
} rsql_op_t;

/* Literal kinds as written. */
typedef enum rsql_lit_kind {
    RSQL_LIT_NULL,
    RSQL_LIT_BOOL,
    RSQL_LIT_INT,    /* integer literal that fits int64 */
    RSQL_LIT_DOUBLE, /* 1.5, 1e3 */
    RSQL_LIT_STRING, /* 'text' */
    RSQL_LIT_INTERVAL /* INTERVAL '5' SECOND: i = milliseconds (a day-time interval) */
} rsql_lit_kind_t;

typedef struct rsql_literal {
    rsql_lit_kind_t kind;
    bool b;
    int64_t i;
    double d;
    const char *s; /* STRING: unescaped, NUL-terminated */
    size_t s_len;
} rsql_literal_t;

typedef struct rsql_type_spec {
    rsql_type_t type;
    int precision; /* TIMESTAMP(p): p as written (only 3 accepted by the binder); else -1 */
    rsql_pos_t pos;
    /* DECIMAL, DATE, ROW, ARRAY, MAP: the interned descriptor of the type text (parsed from
       the written span by rsql_tdesc_parse); NULL for the other types */
    const rsql_tdesc_t *desc;
} rsql_type_spec_t;

typedef struct rsql_expr rsql_expr_t;

/* The SQL/JSON clauses of JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_OBJECT, JSON_ARRAY:
 * <behavior> ON <event>, e.g. DEFAULT 0 ON EMPTY, ERROR ON ERROR, ABSENT ON NULL. */
typedef enum rsql_json_beh {
    RSQL_JB_NULL, RSQL_JB_ERROR, RSQL_JB_ABSENT, RSQL_JB_TRUE, RSQL_JB_FALSE,
    RSQL_JB_UNKNOWN, RSQL_JB_DEFAULT, RSQL_JB_EMPTY_ARRAY, RSQL_JB_EMPTY_OBJECT
} rsql_json_beh_t;
/* JSON_QUERY's wrapper clause (0: none written, which is WITHOUT). */
#define RSQL_JW_WITHOUT 1
#define RSQL_JW_CONDITIONAL 2
#define RSQL_JW_UNCONDITIONAL 3
typedef enum rsql_json_event { RSQL_JE_EMPTY, RSQL_JE_ERROR, RSQL_JE_NULL } rsql_json_event_t;
typedef struct rsql_json_clause {
    rsql_json_beh_t beh;
    rsql_json_event_t event;
    rsql_expr_t *dflt; /* DEFAULT's expression, else NULL */
    rsql_pos_t pos;    /* the whole clause */
} rsql_json_clause_t;

/*
** The deepest expression tree a statement may hold (SQLite's SQLITE_MAX_EXPR_DEPTH): a leaf
** has depth 1, an operator or call one more than its deepest operand. The parser refuses a
** deeper expression at the operator that goes past it; the binder and the evaluator, which
** recurse once per level, refuse deeper trees too, so no input can overflow their stacks.
*/
#define RSQL_SQL_MAX_EXPR_DEPTH 1000

typedef struct rsql_expr_list {
    int n;
    rsql_expr_t **items;
} rsql_expr_list_t;

struct rsql_expr {
    rsql_expr_kind_t kind;
    rsql_pos_t pos; /* the whole expression's span */
    rsql_pos_t op_pos; /* the operator token (BINARY/UNARY/LIKE/IN/...), for errors */
    rsql_op_t op;
    bool negated; /* IS NOT NULL, NOT LIKE, NOT IN, NOT BETWEEN */
    rsql_expr_t *left, *right, *third;
    rsql_expr_list_t args;
    rsql_literal_t lit;
    const char *name;      /* COLUMN: column name; FUNC: upper-cased function name */
    const char *qualifier; /* COLUMN: table qualifier or NULL */
    rsql_type_spec_t cast_type; /* CAST; FUNC with has_returning: its RETURNING type */
    /* FUNC: JSON_OBJECT(KEY k VALUE v, ...) has its pairs as args k1, v1, k2, v2 (kv_pairs);
       RETURNING and the SQL/JSON clauses in written order; the binder checks who takes them */
    bool kv_pairs;
    bool has_returning;
    int n_clauses;
    rsql_json_clause_t *clauses;
    int wrapper;            /* JSON_QUERY's RSQL_JW_*, 0 when not written */
    rsql_pos_t wrapper_pos; /* the whole WITH ... WRAPPER */
    int height; /* 1 for a leaf, else 1 + its deepest operand's (<= RSQL_SQL_MAX_EXPR_DEPTH) */
    /* FUNC with OVER (...): a window function call, ROW_NUMBER() OVER (PARTITION BY a, b
       ORDER BY t DESC); NULL for a plain call */
    const struct rsql_over *over;
    /* FUNC: an aggregate's COUNT(*) (no args) or f(DISTINCT x) */
    bool star_arg;
    bool distinct;
};

/* OVER ([PARTITION BY exprs] [ORDER BY expr [ASC | DESC]]) of a window function call. */
typedef struct rsql_over {
    rsql_expr_list_t partition; /* n 0 when absent */
    rsql_expr_t *order;         /* NULL when absent */
    bool desc;                  /* ORDER BY ... DESC */
    rsql_pos_t order_pos;       /* ORDER BY ... [ASC | DESC] */
    rsql_pos_t pos;             /* from OVER to its ')' */
} rsql_over_t;

/* ---- statements */

typedef struct rsql_column_def {
    rsql_ident_t name;
    rsql_type_spec_t type;
    bool not_null;
    rsql_pos_t pos; /* the whole column definition */
    /* METADATA [FROM 'key'] [VIRTUAL] (Flink's syntax): a column the connector fills from
       (or writes into) what surrounds the body, not from the body itself */
    bool metadata;
    const char *meta_from; /* FROM 'key', unescaped; NULL = the key is the column's name */
    rsql_pos_t meta_pos;   /* the METADATA keyword, or the 'key' literal when FROM is given */
    bool is_virtual;       /* VIRTUAL: read only, never written when the table is a sink */
    rsql_pos_t virtual_pos;
    /* name AS expr (Flink's computed column): computed from the other columns of each row
       read, never written, not seen by the connector; type is unset (RSQL_TYPE_NULL): the
       expression's type is the column's */
    const rsql_expr_t *computed;
    const char *computed_text; /* the expression as written */
} rsql_column_def_t;

/* WATERMARK FOR column AS expr (Flink): the event-time column of a table and how its
   watermark is computed from a row; text is expr as written. */
typedef struct rsql_watermark {
    rsql_ident_t column;
    const rsql_expr_t *expr;
    const char *text;
    rsql_pos_t pos;    /* from WATERMARK to the end of expr */
    int after_columns; /* the column definitions written before it */
} rsql_watermark_t;

/* 'key' = 'value' in WITH (...) or SET. Key and value are unescaped. */
typedef struct rsql_option {
    const char *key;
    rsql_pos_t key_pos; /* the key literal, quotes included */
    const char *value;
    rsql_pos_t value_pos;
} rsql_option_t;

typedef struct rsql_select_item {
    rsql_expr_t *expr; /* RSQL_EX_STAR for '*' */
    rsql_ident_t alias; /* name NULL when no AS */
} rsql_select_item_t;

/* [INNER | LEFT [OUTER]] JOIN table FOR SYSTEM_TIME AS OF as_of [[AS] alias] ON on */
typedef struct rsql_join {
    bool left;          /* LEFT [OUTER] JOIN: a row that finds nothing is kept, with NULLs */
    rsql_ident_t table; /* the table looked up */
    rsql_ident_t alias; /* name NULL when absent */
    rsql_expr_t *as_of; /* FOR SYSTEM_TIME AS OF this */
    rsql_expr_t *on;
    rsql_pos_t pos; /* from [INNER | LEFT] JOIN to the end of ON's condition */
} rsql_join_t;

/*
** FROM TABLE(fn(TABLE table [PARTITION BY partition], DESCRIPTOR(time_col), args...)): a window
** table-valued function (TUMBLE, HOP, CUMULATE, SESSION; the planner checks which and its
** arguments). pos spans TABLE( ... ).
*/
typedef struct rsql_window_tvf {
    rsql_ident_t fn;
    rsql_ident_t table;
    int n_partition;            /* SESSION(TABLE t PARTITION BY k, ...); 0 when absent */
    rsql_ident_t *partition;
    rsql_ident_t time_col;
    rsql_expr_list_t args; /* the intervals after DESCRIPTOR(...) */
    rsql_pos_t pos;
} rsql_window_tvf_t;

typedef struct rsql_select {
    rsql_pos_t pos;
    int n_items;
    rsql_select_item_t *items;
    rsql_ident_t from;       /* the table read; name NULL when FROM is a subquery */
    struct rsql_select *from_sub; /* FROM (SELECT ...) [AS] alias, or NULL */
    rsql_ident_t from_alias; /* FROM t [AS] alias; name NULL when absent */
    rsql_join_t *join;       /* a lookup join, or NULL */
    rsql_window_tvf_t *window; /* FROM TABLE(<window function>(TABLE from, ...)), or NULL */
    rsql_expr_t *where; /* NULL when absent */
    /* GROUP BY keys (n 0 when absent) and HAVING; group_pos spans GROUP BY ... (or HAVING
       without GROUP BY), RSQL_NOPOS when neither is written */
    rsql_expr_list_t group_by;
    rsql_pos_t group_pos;
    rsql_expr_t *having;
    bool has_limit;
    int64_t limit;
    rsql_pos_t limit_pos;
} rsql_select_t;

typedef struct rsql_insert {
    rsql_pos_t pos;
    rsql_ident_t target;
    int n_columns; /* 0 = no column list */
    rsql_ident_t *columns;
    rsql_select_t *select;
} rsql_insert_t;

typedef enum rsql_stmt_kind {
    RSQL_STMT_CREATE_TABLE,
    RSQL_STMT_DROP_TABLE,
    RSQL_STMT_SHOW_TABLES,
    RSQL_STMT_DESCRIBE,
    RSQL_STMT_SHOW_CREATE_TABLE,
    RSQL_STMT_SHOW_CONNECTORS,
    RSQL_STMT_SHOW_OPTIONS, /* SHOW OPTIONS FOR CONNECTOR 'name' */
    RSQL_STMT_SET,          /* SET 'k' = 'v' (SET alone = SHOW SETTINGS) */
    RSQL_STMT_RESET,        /* RESET ['k'] */
    RSQL_STMT_SHOW_SETTINGS,
    RSQL_STMT_INSERT,
    RSQL_STMT_SELECT,
    RSQL_STMT_EXPLAIN, /* inner: INSERT or SELECT */
    RSQL_STMT_CREATE_JOB, /* inner: INSERT */
    RSQL_STMT_DROP_JOB,
    RSQL_STMT_SHOW_JOBS,
    RSQL_STMT_RUN_JOB,
    RSQL_STMT_SHOW_JOB_RUNS, /* name optional */
    RSQL_STMT_SHOW_METADATA, /* SHOW METADATA FOR CONNECTOR 'name' (setting.value) */
    RSQL_STMT_RESET_POSITIONS /* RESET POSITIONS name (setting.key): forget saved positions */
} rsql_stmt_kind_t;

typedef struct rsql_stmt rsql_stmt_t;
struct rsql_stmt {
    rsql_stmt_kind_t kind;
    rsql_pos_t pos; /* from the first token to the last one before ';' */
    bool if_not_exists, if_exists;
    rsql_ident_t name; /* table (CREATE/DROP/DESCRIBE/SHOW CREATE), job (JOB stmts); name NULL if absent */
    /* CREATE TABLE */
    int n_columns;
    rsql_column_def_t *columns;
    /* PRIMARY KEY (col, ...) NOT ENFORCED: the key's columns, in order (0 = none) */
    int n_pkey;
    rsql_ident_t *pkey;
    rsql_pos_t pkey_pos; /* the clause */
    /* WATERMARK FOR ... clauses in written order (the planner takes one at most) */
    int n_watermarks;
    rsql_watermark_t *watermarks;
    int n_options;
    rsql_option_t *options; /* WITH options in written order */
    /* SET / RESET: has_setting false for "RESET" alone; SHOW OPTIONS: setting.value = connector */
    bool has_setting;
    rsql_option_t setting;
    /* INSERT / SELECT */
    rsql_insert_t *insert;
    rsql_select_t *select;
    /* EXPLAIN and CREATE JOB: the statement inside (INSERT or SELECT) */
    rsql_stmt_t *inner;
};

/* ---- the parser driver */

typedef struct rsql_parse rsql_parse_t;

/*
** A parser over sql[0..len). The text is borrowed: it must outlive the
** parser and every AST it returns. NULL when out of memory.
*/
rsql_parse_t *rsql_parse_new(const char *sql, size_t len);
void rsql_parse_destroy(rsql_parse_t *p);

/*
** Parse the next statement. Returns RSQL_OK and sets *out (owned by p, valid
** until rsql_parse_destroy) or *out = NULL when only whitespace/comments are
** left. Empty statements (";;") are skipped. On error returns
**   RSQL_ERR_SYNTAX: `near "FORM": syntax error` at the offending token,
**   RSQL_ERR_INCOMPLETE: "incomplete input" (the text ended inside a
**     statement, string or comment; a shell asks for more),
** or another code (bad number, NOMEM), with err->pos set. After an error the
** parser resumes after the next ';' on the following call.
*/
rsql_err_t rsql_parse_next(rsql_parse_t *p, rsql_stmt_t **out, rsql_error_t *err);

/*
** True when text holds at least one complete statement: it ends (ignoring
** trailing whitespace and comments) with a ';' that is outside any string,
** quoted identifier or comment. Used by the shell to decide whether to ask
** for another line (like sqlite3_complete).
*/
bool rsql_sql_complete(const char *text);

/*
** Tokenizer: the length of the token starting at z (never 0 unless *z is
** NUL) and its type in *type (RSQL_TK_* or one of the pseudo types below).
*/
#define RSQL_TK_SPACE_ (-1)   /* whitespace or comment */
#define RSQL_TK_ILLEGAL_ (-2) /* an unexpected character or unterminated token */
#define RSQL_TK_UNTERMINATED_ (-3) /* string/quoted identifier/comment reaching the end */
int rsql_sql_get_token(const char *z, int *type);

/* Keyword list (upper case), for the shell's completion and docs. */
const char *const *rsql_sql_keywords(int *n);
/*
** Append name to b as an identifier of rocketsql's SQL that reads back as the same name:
** bare when it is a plain word and no keyword (any case: reserved or not, a keyword may
** read as itself where a name could stand, `primary INT`), else quoted
** (rsql_buf_put_ident's rule otherwise). For the SQL rocketsql writes to be read again (SHOW
** CREATE TABLE, catalog dumps).
*/
void rsql_sql_put_ident(rsql_buf_t *b, const char *name);

/* Debug dump of an AST (stable text, used by tests). Returns a heap string. */
char *rsql_sql_dump(const rsql_stmt_t *s);

#endif
