/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_parse.y: the lemon grammar of rocketsql's SQL, one statement at a time.
 * The driver (sql_parse_driver.c) pushes the tokens of one statement, then
 * the end-of-input token (0) in place of its ';' or at the end of the text;
 * the start rule hands the statement to rsql_sql__finish().  Actions only
 * call the builders of sql_ast.c, which allocate in the parse arena, so no
 * value needs a %destructor.
 *
 * Generated at build time into the build tree (sql/sql_parse.[ch]) with
 * `lemon -T$(LEMPAR) -d$(builddir)/sql`, and compiled via sql_parse_gen.c.
 */

%name rsql_sql_parser
%token_prefix RSQL_TK_
%token_type {rsql_token_t}
%extra_context {rsql_parse_t *pctx}
%stack_size 400

%syntax_error {
    rsql_sql__syntax_error(pctx, yymajor, &yyminor);
}
%stack_overflow {
    rsql_sql__stack_overflow(pctx);
}

%include {
#include "config.h"
#include "sql/sql_int.h"

#include <assert.h>
#include <stdbool.h>
}

/* Tokens the tokenizer produces that no rule uses: declared first so their
 * codes exist.  SEMI ends a statement and is never fed to the parser. */
%token SEMI.
%token LB RB.
/* Made by the driver, never by the tokenizer (sql_ast_fn.c): KEY after PRIMARY or at the start of an
 * argument of JSON_OBJECT(...), INPOS for the IN of POSITION(a IN b).  Neither is a keyword,
 * so `key` and `position` stay column names everywhere. */
%token KEY INPOS.

/* ---- keywords that stay usable as names (non-reserved): when a keyword
 * has no action in the current state, the parser retries it as ID. */
%fallback ID
    BIGINT BOOLEAN BYTES CONNECTOR CONNECTORS DESCRIBE DOUBLE DROP ESCAPE EXISTS EXPLAIN
    FOR IF INSERT INT JOB JOBS METADATA OPTIONS POSITIONS RESET RUN RUNS SET SETTINGS SHOW TABLE
    TABLES
    TIMESTAMP VARCHAR VIRTUAL WITH DECIMAL DATE ROW ARRAY MAP
    ABSENT DEFAULT EMPTY ERROR ON RETURNING UNKNOWN VALUE ENFORCED PRIMARY
    CONDITIONAL OBJECT UNCONDITIONAL WITHOUT WRAPPER
    INNER JOIN LEFT OF OUTER SYSTEM_TIME
    ASC BY ORDER OVER PARTITION
    INTERVAL TO WATERMARK DESCRIPTOR.
/* GROUP, HAVING and DISTINCT are reserved (as in Flink): a fallback would let `FROM t GROUP`
 * read GROUP as t's alias. */

/* ---- operator precedence, lowest first */
%left OR.
%left AND.
%right NOT.
%left IS LIKE IN BETWEEN EQ NE LT LE GT GE.
%right ESCAPE.
%left PLUS MINUS CONCAT.
%left STAR SLASH REM.
%right UMINUS.
%left DOT LB.

input ::= cmd(X). { rsql_sql__finish(pctx, X); }

%type cmd {rsql_stmt_t *}

/* ================================================================ names */

%type nm {rsql_ident_t}
nm(A) ::= ID(X). { A = rsql_sql__ident(pctx, &X); }

%type ifnotexists {bool}
ifnotexists(A) ::= . { A = false; }
ifnotexists(A) ::= IF NOT EXISTS. { A = true; }

%type ifexists {bool}
ifexists(A) ::= . { A = false; }
ifexists(A) ::= IF EXISTS. { A = true; }

/* ================================================================ CREATE TABLE */

cmd(A) ::= CREATE TABLE ifnotexists(E) nm(N) LP coldefs(C) pkey(K) RP with_opt(W). {
    A = rsql_sql__stmt_create_table(pctx, E, &N, &C, &W);
    rsql_sql__stmt_primary_key(pctx, A, &K);
    rsql_sql__stmt_watermarks(pctx, A);
}

/* PRIMARY KEY (col, ...) NOT ENFORCED (Flink's syntax): the key of an upsert sink. */
%type pkey {sql_pkey_t}
pkey(A) ::= . { A = (sql_pkey_t){{0, NULL}, RSQL_NOPOS}; }
pkey(A) ::= COMMA PRIMARY(X) KEY LP pkcols(L) RP NOT ENFORCED(Y). {
    A = (sql_pkey_t){L, rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y))};
}
%type pkcols {sql_vec_t}
pkcols(A) ::= nm(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
pkcols(A) ::= pkcols(A) COMMA nm(X). { rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X)); }

%type coldefs {sql_vec_t}
coldefs(A) ::= coldef(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
coldefs(A) ::= coldefs(A) COMMA coldef(X). {
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
/* WATERMARK FOR column AS expr (Flink), after the columns: kept aside for the statement (a
   second one and a column after it are errors) */
coldefs(A) ::= coldefs(A) COMMA WATERMARK(K) FOR nm(N) AS expr(X). {
    rsql_sql__watermark(pctx, &K, A.n, &N, X);
}

%type coldef {rsql_column_def_t}
coldef(A) ::= nm(N) typespec(T) nullability(K) metaopt(M). {
    A = rsql_sql__column(pctx, &N, &T, K);
    rsql_sql__column_meta(pctx, &A, &M);
}
/* name AS expr: a computed column (Flink) */
coldef(A) ::= nm(N) AS expr(X). { A = rsql_sql__column_computed(pctx, &N, X); }

/* METADATA [FROM 'key'] [VIRTUAL] (Flink); present false when absent */
%type metaopt {sql_meta_t}
metaopt(A) ::= . { A = (sql_meta_t){false, RSQL_NOPOS, {NULL, RSQL_NOPOS}, {false, RSQL_NOPOS}}; }
metaopt(A) ::= METADATA(X) metafrom(F) metavirtual(V). {
    A = (sql_meta_t){true, rsql_sql__tok_pos(&X), F, V};
}

%type metafrom {sql_text_t}
metafrom(A) ::= . { A = (sql_text_t){NULL, RSQL_NOPOS}; }
metafrom(A) ::= FROM STRING(K). { A = rsql_sql__text_string(pctx, &K); }

%type metavirtual {sql_flag_t}
metavirtual(A) ::= . { A = (sql_flag_t){false, RSQL_NOPOS}; }
metavirtual(A) ::= VIRTUAL(X). { A = (sql_flag_t){true, rsql_sql__tok_pos(&X)}; }

/* on = NOT NULL; pos = the keywords (off RSQL_POS_NONE when absent) */
%type nullability {sql_flag_t}
nullability(A) ::= . { A = (sql_flag_t){false, RSQL_NOPOS}; }
nullability(A) ::= NOT(X) NULL(Y). {
    A = (sql_flag_t){true, rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y))};
}
nullability(A) ::= NULL(X). { A = (sql_flag_t){false, rsql_sql__tok_pos(&X)}; }

%type typespec {rsql_type_spec_t}
typespec(A) ::= BOOLEAN(X). { A = rsql_sql__type(pctx, RSQL_TYPE_BOOLEAN, &X, NULL, NULL); }
typespec(A) ::= INT(X). { A = rsql_sql__type(pctx, RSQL_TYPE_INT, &X, NULL, NULL); }
typespec(A) ::= BIGINT(X). { A = rsql_sql__type(pctx, RSQL_TYPE_BIGINT, &X, NULL, NULL); }
typespec(A) ::= DOUBLE(X). { A = rsql_sql__type(pctx, RSQL_TYPE_DOUBLE, &X, NULL, NULL); }
typespec(A) ::= VARCHAR(X). { A = rsql_sql__type(pctx, RSQL_TYPE_VARCHAR, &X, NULL, NULL); }
typespec(A) ::= VARCHAR(X) LP INTEGER RP(R). {
    A = rsql_sql__type(pctx, RSQL_TYPE_VARCHAR, &X, NULL, &R);
}
typespec(A) ::= BYTES(X). { A = rsql_sql__type(pctx, RSQL_TYPE_BYTES, &X, NULL, NULL); }
typespec(A) ::= TIMESTAMP(X). { A = rsql_sql__type(pctx, RSQL_TYPE_TIMESTAMP, &X, NULL, NULL); }
typespec(A) ::= TIMESTAMP(X) LP INTEGER(P) RP(R). {
    A = rsql_sql__type(pctx, RSQL_TYPE_TIMESTAMP, &X, &P, &R);
}

/* DECIMAL, DATE and the nested types: the span's text is parsed into a type descriptor */
typespec(A) ::= DECIMAL(X). { A = rsql_sql__type_text(pctx, RSQL_TYPE_DECIMAL, &X, &X); }
typespec(A) ::= DECIMAL(X) LP INTEGER RP(R). {
    A = rsql_sql__type_text(pctx, RSQL_TYPE_DECIMAL, &X, &R);
}
typespec(A) ::= DECIMAL(X) LP INTEGER COMMA INTEGER RP(R). {
    A = rsql_sql__type_text(pctx, RSQL_TYPE_DECIMAL, &X, &R);
}
typespec(A) ::= DATE(X). { A = rsql_sql__type_text(pctx, RSQL_TYPE_DATE, &X, &X); }
typespec(A) ::= ARRAY(X) LT typespec GT(R). {
    A = rsql_sql__type_text(pctx, RSQL_TYPE_ARRAY, &X, &R);
}
typespec(A) ::= MAP(X) LT typespec COMMA typespec GT(R). {
    A = rsql_sql__type_text(pctx, RSQL_TYPE_MAP, &X, &R);
}
typespec(A) ::= ROW(X) LT rowfields GT(R). { A = rsql_sql__type_text(pctx, RSQL_TYPE_ROW, &X, &R); }
typespec(A) ::= ROW(X) LP rowfields RP(R). { A = rsql_sql__type_text(pctx, RSQL_TYPE_ROW, &X, &R); }
rowfields ::= nm typespec.
rowfields ::= rowfields COMMA nm typespec.

%type with_opt {sql_vec_t}
with_opt(A) ::= . { A = (sql_vec_t){0, NULL}; }
with_opt(A) ::= WITH LP options(X) RP. { A = X; }

%type options {sql_vec_t}
options(A) ::= option(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
options(A) ::= options(A) COMMA option(X). {
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}

%type option {rsql_option_t}
option(A) ::= STRING(K) EQ STRING(V). { A = rsql_sql__option(pctx, &K, &V); }

/* ================================================================ DROP, DESCRIBE, SHOW */

cmd(A) ::= DROP TABLE ifexists(E) nm(N). {
    A = rsql_sql__stmt_drop(pctx, RSQL_STMT_DROP_TABLE, E, &N);
}
cmd(A) ::= DESCRIBE nm(N). { A = rsql_sql__stmt(pctx, RSQL_STMT_DESCRIBE, &N); }
cmd(A) ::= SHOW TABLES. { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_TABLES, NULL); }
cmd(A) ::= SHOW CREATE TABLE nm(N). { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_CREATE_TABLE, &N); }
cmd(A) ::= SHOW CONNECTORS. { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_CONNECTORS, NULL); }
cmd(A) ::= SHOW OPTIONS FOR CONNECTOR setkey(V). {
    A = rsql_sql__stmt_setting(pctx, RSQL_STMT_SHOW_OPTIONS, NULL, &V);
}
cmd(A) ::= SHOW METADATA FOR CONNECTOR setkey(V). {
    A = rsql_sql__stmt_setting(pctx, RSQL_STMT_SHOW_METADATA, NULL, &V);
}
cmd(A) ::= SHOW SETTINGS. { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_SETTINGS, NULL); }

/* ================================================================ SET, RESET */

cmd(A) ::= SET. { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_SETTINGS, NULL); }
cmd(A) ::= SET setkey(K) EQ setval(V). {
    A = rsql_sql__stmt_setting(pctx, RSQL_STMT_SET, &K, &V);
}
cmd(A) ::= RESET. { A = rsql_sql__stmt_setting(pctx, RSQL_STMT_RESET, NULL, NULL); }
cmd(A) ::= RESET setkey(K). { A = rsql_sql__stmt_setting(pctx, RSQL_STMT_RESET, &K, NULL); }
/* forget the saved positions of a job or of 'insert:<source>-><sink>' */
cmd(A) ::= RESET POSITIONS setkey(K). {
    A = rsql_sql__stmt_setting(pctx, RSQL_STMT_RESET_POSITIONS, &K, NULL);
}

/* 'key' or a dotted name (errors.tolerance) */
%type setkey {sql_text_t}
setkey(A) ::= STRING(X). { A = rsql_sql__text_string(pctx, &X); }
setkey(A) ::= dotted(X). { A = X; }

%type dotted {sql_text_t}
dotted(A) ::= nm(X). { A = rsql_sql__text_ident(pctx, NULL, &X); }
dotted(A) ::= dotted(B) DOT nm(X). { A = rsql_sql__text_ident(pctx, &B, &X); }

/* 'value', a name, a number or a boolean, kept as text */
%type setval {sql_text_t}
setval(A) ::= setkey(X). { A = X; }
setval(A) ::= INTEGER(X). { A = rsql_sql__text_raw(pctx, NULL, &X); }
setval(A) ::= FLOAT(X). { A = rsql_sql__text_raw(pctx, NULL, &X); }
setval(A) ::= MINUS(S) INTEGER(X). { A = rsql_sql__text_raw(pctx, &S, &X); }
setval(A) ::= MINUS(S) FLOAT(X). { A = rsql_sql__text_raw(pctx, &S, &X); }
setval(A) ::= TRUE(X). { A = rsql_sql__text_raw(pctx, NULL, &X); }
setval(A) ::= FALSE(X). { A = rsql_sql__text_raw(pctx, NULL, &X); }

/* ================================================================ INSERT, SELECT, EXPLAIN */

cmd(A) ::= insert(X). { A = rsql_sql__stmt_insert(pctx, X); }
cmd(A) ::= select(X). { A = rsql_sql__stmt_select(pctx, X); }
cmd(A) ::= EXPLAIN insert(X). {
    A = rsql_sql__stmt_wrap(pctx, RSQL_STMT_EXPLAIN, false, NULL, rsql_sql__stmt_insert(pctx, X));
}
cmd(A) ::= EXPLAIN select(X). {
    A = rsql_sql__stmt_wrap(pctx, RSQL_STMT_EXPLAIN, false, NULL, rsql_sql__stmt_select(pctx, X));
}

%type insert {rsql_insert_t *}
insert(A) ::= INSERT(K) INTO nm(T) collist_opt(C) select(S). {
    A = rsql_sql__insert(pctx, &K, &T, &C, S);
}

%type collist_opt {sql_vec_t}
collist_opt(A) ::= . { A = (sql_vec_t){0, NULL}; }
collist_opt(A) ::= LP idlist(X) RP. { A = X; }

%type idlist {sql_vec_t}
idlist(A) ::= nm(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
idlist(A) ::= idlist(A) COMMA nm(X). { rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X)); }

%type select {rsql_select_t *}
select(A) ::= SELECT(K) selitems(I) FROM nm(F) from_alias(N) join_opt(J) where_opt(W)
              group_opt(G) limit_opt(L). {
    A = rsql_sql__select_group(pctx, rsql_sql__select(pctx, &K, &I, &F, &N, J, W, &L), &G);
}

/* FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size)) [AS] alias ...: a window table-valued
   function over table t (Flink's Window TVF); HOP, CUMULATE and SESSION alike */
select(A) ::= SELECT(K) selitems(I) FROM TABLE(T) LP wintvf(W) RP(R) from_alias(N) where_opt(X)
              group_opt(G) limit_opt(L). {
    A = rsql_sql__select_group(pctx, rsql_sql__select_window(pctx, rsql_sql__select(pctx, &K, &I,
                               W ? &W->table : &N, &N, NULL, X, &L), W, &T, &R), &G);
}
%type wintvf {rsql_window_tvf_t *}
wintvf(A) ::= ID(F) LP TABLE nm(T) winpart(P) COMMA DESCRIPTOR LP nm(C) RP COMMA
              exprlist(L) RP(R). {
    A = rsql_sql__window_tvf(pctx, &F, &T, &P, &C, &L, &R);
}
/* SESSION's PARTITION BY col or PARTITION BY (col, ...) */
%type winpart {sql_vec_t}
winpart(A) ::= . { A = (sql_vec_t){0, NULL}; }
winpart(A) ::= PARTITION BY nm(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
winpart(A) ::= PARTITION BY LP idlist(L) RP. { A = L; }

/* GROUP BY keys [HAVING cond], or HAVING alone (one group: the whole input) */
%type group_opt {sql_group_t}
group_opt(A) ::= . { A.present = false; }
group_opt(A) ::= GROUP(K) BY exprlist(L). {
    A = (sql_group_t){true, L, NULL, rsql_sql__tok_pos(&K)};
}
group_opt(A) ::= GROUP(K) BY exprlist(L) HAVING expr(H). {
    A = (sql_group_t){true, L, H, rsql_sql__tok_pos(&K)};
}
group_opt(A) ::= HAVING(K) expr(H). {
    A = (sql_group_t){true, {0, NULL}, H, rsql_sql__tok_pos(&K)};
}

/* FROM (SELECT ...) [AS] alias: a subquery (the planner says which it runs: deduplication) */
select(A) ::= SELECT(K) selitems(I) FROM LP(P) select(S) RP(Q) from_alias(N) join_opt(J)
              where_opt(W) limit_opt(L). {
    rsql_ident_t none = {NULL, RSQL_NOPOS};
    A = rsql_sql__select_from_sub(pctx, rsql_sql__select(pctx, &K, &I, &none, &N, J, W, &L), S,
                                  &P, &Q);
}

/* [INNER | LEFT [OUTER]] JOIN t FOR SYSTEM_TIME AS OF x [[AS] alias] ON cond: a lookup join */
%type join_opt {rsql_join_t *}
join_opt(A) ::= . { A = NULL; }
join_opt(A) ::= jointype(T) JOIN(K) nm(D) FOR SYSTEM_TIME AS OF expr(X) from_alias(N)
                ON expr(C). {
    A = rsql_sql__join(pctx, &T, &K, &D, X, &N, C);
}
%type jointype {sql_flag_t}
jointype(A) ::= . { A = (sql_flag_t){false, RSQL_NOPOS}; }
jointype(A) ::= INNER(X). { A = (sql_flag_t){false, rsql_sql__tok_pos(&X)}; }
jointype(A) ::= LEFT(X). { A = (sql_flag_t){true, rsql_sql__tok_pos(&X)}; }
jointype(A) ::= LEFT(X) OUTER(Y). {
    A = (sql_flag_t){true, rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y))};
}

/* FROM t [AS] alias: the name the statement calls the table by */
%type from_alias {rsql_ident_t}
from_alias(A) ::= . { A = (rsql_ident_t){NULL, RSQL_NOPOS}; }
from_alias(A) ::= nm(X). { A = rsql_sql__alias(pctx, &X); }
from_alias(A) ::= AS nm(X). { A = X; }

%type selitems {sql_vec_t}
selitems(A) ::= selitem(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
selitems(A) ::= selitems(A) COMMA selitem(X). {
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}

%type selitem {rsql_select_item_t}
selitem(A) ::= STAR(X). { A = rsql_sql__select_item(pctx, rsql_sql__expr_star(pctx, &X), NULL); }
selitem(A) ::= expr(Q) DOT STAR(X). {
    A = rsql_sql__select_item(pctx, rsql_sql__expr_qstar(pctx, Q, &X), NULL);
}
selitem(A) ::= expr(X). { A = rsql_sql__select_item(pctx, X, NULL); }
selitem(A) ::= expr(X) AS nm(N). { A = rsql_sql__select_item(pctx, X, &N); }

%type where_opt {rsql_expr_t *}
where_opt(A) ::= . { A = NULL; }
where_opt(A) ::= WHERE expr(X). { A = X; }

%type limit_opt {sql_limit_t}
limit_opt(A) ::= . { A.present = false; }
limit_opt(A) ::= LIMIT INTEGER(X). { A.present = true; A.tok = X; }

/* ================================================================ jobs */

cmd(A) ::= CREATE JOB ifnotexists(E) nm(N) AS insert(X). {
    A = rsql_sql__stmt_wrap(pctx, RSQL_STMT_CREATE_JOB, E, &N, rsql_sql__stmt_insert(pctx, X));
}
cmd(A) ::= DROP JOB ifexists(E) nm(N). { A = rsql_sql__stmt_drop(pctx, RSQL_STMT_DROP_JOB, E, &N); }
cmd(A) ::= SHOW JOBS. { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_JOBS, NULL); }
cmd(A) ::= RUN JOB nm(N). { A = rsql_sql__stmt(pctx, RSQL_STMT_RUN_JOB, &N); }
cmd(A) ::= SHOW JOB RUNS. { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_JOB_RUNS, NULL); }
cmd(A) ::= SHOW JOB RUNS nm(N). { A = rsql_sql__stmt(pctx, RSQL_STMT_SHOW_JOB_RUNS, &N); }

/* ================================================================ expressions */

%type expr {rsql_expr_t *}
%type exprlist {rsql_expr_list_t}

expr(A) ::= LP(L) expr(X) RP(R). { A = rsql_sql__expr_paren(pctx, &L, X, &R); }
expr(A) ::= nm(X). { A = rsql_sql__expr_column(pctx, NULL, &X); }
expr(A) ::= expr(Q) DOT nm(X). { A = rsql_sql__expr_field(pctx, Q, &X); }
expr(A) ::= expr(X) LB expr(I) RB(R). { A = rsql_sql__expr_index(pctx, X, I, &R); }
expr(A) ::= INTEGER(X). { A = rsql_sql__expr_literal(pctx, &X); }
expr(A) ::= FLOAT(X). { A = rsql_sql__expr_literal(pctx, &X); }
expr(A) ::= STRING(X). { A = rsql_sql__expr_literal(pctx, &X); }
expr(A) ::= NULL(X). { A = rsql_sql__expr_literal(pctx, &X); }
expr(A) ::= TRUE(X). { A = rsql_sql__expr_literal(pctx, &X); }
expr(A) ::= FALSE(X). { A = rsql_sql__expr_literal(pctx, &X); }
expr(A) ::= CURRENT_TIMESTAMP(X). { A = rsql_sql__expr_func(pctx, &X, NULL, NULL); }
/* INTERVAL '5' SECOND, INTERVAL '1 02:03' DAY TO MINUTE: a day-time interval (sql_ast_time.c) */
expr(A) ::= INTERVAL(K) STRING(S) ivunit(U). { A = rsql_sql__expr_interval(pctx, &K, &S, &U, NULL); }
expr(A) ::= INTERVAL(K) STRING(S) ivunit(U) TO ivunit(V). {
    A = rsql_sql__expr_interval(pctx, &K, &S, &U, &V);
}
/* DAY, DAY(3) (the leading field's digits), SECOND(2, 3) (and its fraction's digits) */
%type ivunit {sql_ivunit_t}
ivunit(A) ::= ID(U). { A = (sql_ivunit_t){U, {0, NULL, 0, 0}, {0, NULL, 0, 0}, U}; }
ivunit(A) ::= ID(U) LP INTEGER(P) RP(R). { A = (sql_ivunit_t){U, P, {0, NULL, 0, 0}, R}; }
ivunit(A) ::= ID(U) LP INTEGER(P) COMMA INTEGER(Q) RP(R). { A = (sql_ivunit_t){U, P, Q, R}; }

/* a window function call: ROW_NUMBER() OVER (PARTITION BY k ORDER BY proc_time DESC) */
expr(A) ::= ID(F) LP RP OVER(O) LP partition_opt(P) order_opt(B) RP(R). {
    A = rsql_sql__expr_over(pctx, &F, &O, &P, &B, &R);
}
%type partition_opt {rsql_expr_list_t}
partition_opt(A) ::= . { A = (rsql_expr_list_t){0, NULL}; }
partition_opt(A) ::= PARTITION BY exprlist(L). { A = L; }
%type order_opt {sql_order_t}
order_opt(A) ::= . { A = (sql_order_t){NULL, false, RSQL_NOPOS}; }
order_opt(A) ::= ORDER(K) BY expr(X). {
    A = (sql_order_t){X, false, rsql_sql__span(rsql_sql__tok_pos(&K), X ? X->pos : RSQL_NOPOS)};
}
order_opt(A) ::= ORDER(K) BY expr(X) ASC(D). {
    A = (sql_order_t){X, false, rsql_sql__span(rsql_sql__tok_pos(&K), rsql_sql__tok_pos(&D))};
}
order_opt(A) ::= ORDER(K) BY expr(X) DESCRIBE(D). {
    A = (sql_order_t){X, true, rsql_sql__span(rsql_sql__tok_pos(&K), rsql_sql__tok_pos(&D))};
}

/* function calls: any name, the planner checks it */
expr(A) ::= ID(F) LP RP(R). { A = rsql_sql__expr_func(pctx, &F, NULL, &R); }
/* COUNT(*), COUNT(DISTINCT x): aggregate calls */
expr(A) ::= ID(F) LP STAR RP(R). { A = rsql_sql__expr_agg(pctx, &F, NULL, true, &R); }
expr(A) ::= ID(F) LP DISTINCT expr(X) RP(R). { A = rsql_sql__expr_agg(pctx, &F, X, false, &R); }
expr(A) ::= ID(F) LP exprlist(L) RP(R). { A = rsql_sql__expr_func(pctx, &F, &L, &R); }
expr(A) ::= ID(F) LP expr(X) FROM(K) expr(S) RP(R). {
    A = rsql_sql__expr_substring(pctx, &F, X, &K, S, NULL, &R);
}
expr(A) ::= ID(F) LP expr(X) FROM(K) expr(S) FOR expr(N) RP(R). {
    A = rsql_sql__expr_substring(pctx, &F, X, &K, S, N, &R);
}
expr(A) ::= ID(F) LP expr(X) INPOS expr(Y) RP(R). {
    A = rsql_sql__expr_position(pctx, &F, X, Y, &R);
}
expr(A) ::= ID(F) LP exprlist(L) fn_tail(T) RP(R). {
    A = rsql_sql__expr_func_ext(pctx, &F, &L, false, &T, &R);
}
expr(A) ::= ID(F) LP kvlist(L) RP(R). {
    A = rsql_sql__expr_func_ext(pctx, &F, &L, true, NULL, &R);
}
expr(A) ::= ID(F) LP kvlist(L) jclauses(C) RP(R). {
    sql_fn_tail_t t = {false, {RSQL_TYPE_NULL, -1, RSQL_NOPOS}, C, 0, RSQL_NOPOS};
    A = rsql_sql__expr_func_ext(pctx, &F, &L, true, &t, &R);
}
expr(A) ::= CAST(K) LP expr(X) AS typespec(T) RP(R). {
    A = rsql_sql__expr_cast(pctx, &K, X, &T, &R);
}
expr(A) ::= CASE(K) case_operand(O) case_whens(W) case_else(L) END(E). {
    A = rsql_sql__expr_case(pctx, &K, O, &W, L, &E);
}

%type case_operand {rsql_expr_t *}
case_operand(A) ::= . { A = NULL; }
case_operand(A) ::= expr(X). { A = X; }

%type case_whens {rsql_expr_list_t}
case_whens(A) ::= WHEN expr(X) THEN expr(Y). {
    A = (rsql_expr_list_t){0, NULL};
    rsql_sql__expr_list_push(pctx, &A, X);
    rsql_sql__expr_list_push(pctx, &A, Y);
}
case_whens(A) ::= case_whens(A) WHEN expr(X) THEN expr(Y). {
    rsql_sql__expr_list_push(pctx, &A, X);
    rsql_sql__expr_list_push(pctx, &A, Y);
}

%type case_else {rsql_expr_t *}
case_else(A) ::= . { A = NULL; }
case_else(A) ::= ELSE expr(X). { A = X; }

expr(A) ::= expr(X) OR(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_OR, &O, X, Y); }
expr(A) ::= expr(X) AND(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_AND, &O, X, Y); }
expr(A) ::= expr(X) EQ(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_EQ, &O, X, Y); }
expr(A) ::= expr(X) NE(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_NE, &O, X, Y); }
expr(A) ::= expr(X) LT(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_LT, &O, X, Y); }
expr(A) ::= expr(X) LE(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_LE, &O, X, Y); }
expr(A) ::= expr(X) GT(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_GT, &O, X, Y); }
expr(A) ::= expr(X) GE(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_GE, &O, X, Y); }
expr(A) ::= expr(X) PLUS(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_ADD, &O, X, Y); }
expr(A) ::= expr(X) MINUS(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_SUB, &O, X, Y); }
expr(A) ::= expr(X) CONCAT(O) expr(Y). {
    A = rsql_sql__expr_binary(pctx, RSQL_OP_CONCAT, &O, X, Y);
}
expr(A) ::= expr(X) STAR(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_MUL, &O, X, Y); }
expr(A) ::= expr(X) SLASH(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_DIV, &O, X, Y); }
expr(A) ::= expr(X) REM(O) expr(Y). { A = rsql_sql__expr_binary(pctx, RSQL_OP_MOD, &O, X, Y); }

expr(A) ::= NOT(O) expr(X). { A = rsql_sql__expr_unary(pctx, RSQL_OP_NOT, &O, X); }
expr(A) ::= MINUS(O) expr(X). [UMINUS] { A = rsql_sql__expr_unary(pctx, RSQL_OP_NEG, &O, X); }
expr(A) ::= PLUS(O) expr(X). [UMINUS] { A = rsql_sql__expr_unary(pctx, RSQL_OP_PLUS, &O, X); }

expr(A) ::= expr(X) IS(O) NULL(E). { A = rsql_sql__expr_is_null(pctx, X, &O, false, &E); }
expr(A) ::= expr(X) IS(O) NOT NULL(E). { A = rsql_sql__expr_is_null(pctx, X, &O, true, &E); }

%type likeop {sql_flag_t}
likeop(A) ::= LIKE(X). { A = (sql_flag_t){false, rsql_sql__tok_pos(&X)}; }
likeop(A) ::= NOT(X) LIKE(Y). {
    A = (sql_flag_t){true, rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y))};
}
expr(A) ::= expr(X) likeop(O) expr(Y). [LIKE] { A = rsql_sql__expr_like(pctx, X, O, Y, NULL); }
expr(A) ::= expr(X) likeop(O) expr(Y) ESCAPE expr(Z). [LIKE] {
    A = rsql_sql__expr_like(pctx, X, O, Y, Z);
}

%type in_op {sql_flag_t}
in_op(A) ::= IN(X). { A = (sql_flag_t){false, rsql_sql__tok_pos(&X)}; }
in_op(A) ::= NOT(X) IN(Y). {
    A = (sql_flag_t){true, rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y))};
}
expr(A) ::= expr(X) in_op(O) LP exprlist(L) RP(R). [IN] {
    A = rsql_sql__expr_in(pctx, X, O, &L, &R);
}

%type between_op {sql_flag_t}
between_op(A) ::= BETWEEN(X). { A = (sql_flag_t){false, rsql_sql__tok_pos(&X)}; }
between_op(A) ::= NOT(X) BETWEEN(Y). {
    A = (sql_flag_t){true, rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y))};
}
expr(A) ::= expr(X) between_op(O) expr(Y) AND expr(Z). [BETWEEN] {
    A = rsql_sql__expr_between(pctx, X, O, Y, Z);
}

exprlist(A) ::= expr(X). {
    A = (rsql_expr_list_t){0, NULL};
    rsql_sql__expr_list_push(pctx, &A, X);
}
exprlist(A) ::= exprlist(A) COMMA expr(X). { rsql_sql__expr_list_push(pctx, &A, X); }

/* ---- SQL/JSON function clauses: JSON_VALUE(s, p RETURNING INT DEFAULT 0 ON EMPTY),
 * JSON_OBJECT(KEY k VALUE v ABSENT ON NULL); the binder checks which a function takes */

%type fn_tail {sql_fn_tail_t}
fn_tail(A) ::= RETURNING typespec(T). {
    A = (sql_fn_tail_t){true, T, {0, NULL}, 0, RSQL_NOPOS};
}
fn_tail(A) ::= RETURNING typespec(T) jclauses(C). {
    A = (sql_fn_tail_t){true, T, C, 0, RSQL_NOPOS};
}
fn_tail(A) ::= jclauses(C). {
    A = (sql_fn_tail_t){false, {RSQL_TYPE_NULL, -1, RSQL_NOPOS}, C, 0, RSQL_NOPOS};
}
fn_tail(A) ::= jwrapper(W). {
    A = (sql_fn_tail_t){false, {RSQL_TYPE_NULL, -1, RSQL_NOPOS}, {0, NULL}, W.n, W.pos};
}
fn_tail(A) ::= jwrapper(W) jclauses(C). {
    A = (sql_fn_tail_t){false, {RSQL_TYPE_NULL, -1, RSQL_NOPOS}, C, W.n, W.pos};
}

/* JSON_QUERY's wrapper: n = RSQL_JW_WITHOUT, RSQL_JW_CONDITIONAL, RSQL_JW_UNCONDITIONAL */
%type jwrapper {sql_wrapper_t}
jwrapper(A) ::= WITHOUT(X) array_opt WRAPPER(Y). {
    A.n = RSQL_JW_WITHOUT;
    A.pos = rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y));
}
jwrapper(A) ::= WITH(X) wrapper_kind(K) array_opt WRAPPER(Y). {
    A.n = K;
    A.pos = rsql_sql__span(rsql_sql__tok_pos(&X), rsql_sql__tok_pos(&Y));
}
%type wrapper_kind {int}
wrapper_kind(A) ::= . { A = RSQL_JW_UNCONDITIONAL; }
wrapper_kind(A) ::= CONDITIONAL. { A = RSQL_JW_CONDITIONAL; }
wrapper_kind(A) ::= UNCONDITIONAL. { A = RSQL_JW_UNCONDITIONAL; }
array_opt ::= .
array_opt ::= ARRAY.

%type jclauses {sql_vec_t}
jclauses(A) ::= jclause(X). {
    A = (sql_vec_t){0, NULL};
    rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X));
}
jclauses(A) ::= jclauses(A) jclause(X). { rsql_sql__push(pctx, &A.n, &A.items, &X, sizeof(X)); }

%type jclause {rsql_json_clause_t}
jclause(A) ::= jbeh(B) ON jevent(E). {
    A = B;
    A.event = E.event;
    A.pos = rsql_sql__span(B.pos, E.pos);
}

%type jbeh {rsql_json_clause_t}
jbeh(A) ::= NULL(X). { A = rsql_sql__json_beh(RSQL_JB_NULL, &X, NULL); }
jbeh(A) ::= ERROR(X). { A = rsql_sql__json_beh(RSQL_JB_ERROR, &X, NULL); }
jbeh(A) ::= ABSENT(X). { A = rsql_sql__json_beh(RSQL_JB_ABSENT, &X, NULL); }
jbeh(A) ::= TRUE(X). { A = rsql_sql__json_beh(RSQL_JB_TRUE, &X, NULL); }
jbeh(A) ::= FALSE(X). { A = rsql_sql__json_beh(RSQL_JB_FALSE, &X, NULL); }
jbeh(A) ::= UNKNOWN(X). { A = rsql_sql__json_beh(RSQL_JB_UNKNOWN, &X, NULL); }
jbeh(A) ::= DEFAULT(X) expr(D). { A = rsql_sql__json_beh(RSQL_JB_DEFAULT, &X, D); }
jbeh(A) ::= EMPTY(X) ARRAY(Y). {
    A = rsql_sql__json_beh(RSQL_JB_EMPTY_ARRAY, &X, NULL);
    A.pos = rsql_sql__span(A.pos, rsql_sql__tok_pos(&Y));
}
jbeh(A) ::= EMPTY(X) OBJECT(Y). {
    A = rsql_sql__json_beh(RSQL_JB_EMPTY_OBJECT, &X, NULL);
    A.pos = rsql_sql__span(A.pos, rsql_sql__tok_pos(&Y));
}

%type jevent {rsql_json_clause_t}
jevent(A) ::= EMPTY(X). { A = rsql_sql__json_beh(RSQL_JB_NULL, &X, NULL); A.event = RSQL_JE_EMPTY; }
jevent(A) ::= ERROR(X). { A = rsql_sql__json_beh(RSQL_JB_NULL, &X, NULL); A.event = RSQL_JE_ERROR; }
jevent(A) ::= NULL(X). { A = rsql_sql__json_beh(RSQL_JB_NULL, &X, NULL); A.event = RSQL_JE_NULL; }

/* JSON_OBJECT's members: [KEY] k VALUE v, kept as the arguments k1, v1, k2, v2, ... */
%type kvlist {rsql_expr_list_t}
kvlist(A) ::= kv(X). {
    A = (rsql_expr_list_t){0, NULL};
    rsql_sql__expr_list_push(pctx, &A, X.left);
    rsql_sql__expr_list_push(pctx, &A, X.right);
}
kvlist(A) ::= kvlist(A) COMMA kv(X). {
    rsql_sql__expr_list_push(pctx, &A, X.left);
    rsql_sql__expr_list_push(pctx, &A, X.right);
}

%type kv {sql_pair_t}
kv(A) ::= KEY expr(K) VALUE expr(V). { A = (sql_pair_t){K, V}; }
kv(A) ::= expr(K) VALUE expr(V). { A = (sql_pair_t){K, V}; }
