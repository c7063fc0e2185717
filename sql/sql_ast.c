/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_ast: the builders the grammar's actions call to make expressions (statements:
 * sql_ast_stmt.c), plus the parse-time error helpers. Every node and string is allocated in the parser's arena and every node gets the byte
 * span of its whole text (first byte of its first token to the end of its last one).
 *
 * Error discipline: the first error of a statement wins and sets p->failed; from then on every
 * builder returns NULL (or a zeroed value) without touching its arguments, and the driver stops
 * feeding tokens. So while p->failed is false, every non-optional child is non-NULL.
 *
 * Folding: a unary minus (or plus) applied to a numeric literal is folded into the literal, so
 * `-5` is the INT literal -5 spanning "-5". The one integer literal beyond INT64_MAX that is
 * allowed, 9223372036854775808, is kept "pending" (lit.b set) until a minus folds it into
 * INT64_MIN; rsql_sql__check() rejects any still pending when the statement ends.
 */
#include "config.h"
#include "sql/sql_int.h"
#include "base/rsql_opts.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- positions, errors */

/* The span of a token. */
rsql_pos_t rsql_sql__tok_pos(const rsql_token_t *t)
{
    return (rsql_pos_t){t->off, t->n};
}

/* From the start of a to the end of b (either may be RSQL_NOPOS). */
rsql_pos_t rsql_sql__span(rsql_pos_t a, rsql_pos_t b)
{
    if (a.off == RSQL_POS_NONE) {
        return b;
    }
    if (b.off == RSQL_POS_NONE || b.off + b.len < a.off) {
        return a;
    }
    return (rsql_pos_t){a.off, b.off + b.len - a.off};
}

/*
** Record the statement's first error (later ones are dropped) and stop the
** parse.  Returns code.
*/
rsql_err_t rsql_sql__error(rsql_parse_t *p, rsql_err_t code, rsql_pos_t pos, const char *fmt, ...)
{
    if (p->failed) {
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    rsql_error_setv(&p->error, code, pos, fmt, ap);
    va_end(ap);
    p->failed = true;
    return code;
}

/*
** lemon's %syntax_error.  major 0 is the end of the statement: at a real
** ';' that is `near ";": syntax error`, at the end of the text the input is
** incomplete (a shell then asks for more).
*/
void rsql_sql__syntax_error(rsql_parse_t *p, int major, const rsql_token_t *tok)
{
    if ((major != 0 || !p->at_semi || p->stmt_kw == RSQL_TK_SELECT) &&
        rsql_sql__unsupported(p, major, tok)) {
        return;
    }
    if (major == 0 && !p->at_semi) {
        rsql_sql__error(p, RSQL_ERR_INCOMPLETE, (rsql_pos_t){(uint32_t)p->len, 0},
                        "incomplete input");
        return;
    }
    if (p->before[0].type == RSQL_TK_WATERMARK && major != RSQL_TK_FOR) { /* a column? */
        rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(tok),
                        "near \"%.*s\": syntax error (WATERMARK here starts WATERMARK FOR col "
                        "AS expr; quote a column called \"watermark\")",
                        (int)tok->n, tok->z);
        return;
    }
    /* a misspelt keyword: the nearest one (words of 4 letters or more) */
    const char *near = NULL;
    char word[64];
    if (tok->type == RSQL_TK_ID && tok->n >= 4 && tok->n < sizeof word) {
        int n = 0;
        const char *const *kw = rsql_sql_keywords(&n);
        memcpy(word, tok->z, tok->n);
        word[tok->n] = '\0';
        near = rsql_nearest_name(word, kw, n);
    }
    rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(tok), "near \"%.*s\": syntax error%s%s%s",
                    (int)tok->n, tok->z, near ? " (did you mean " : "", near ? near : "",
                    near ? "?)" : "");
}

/* lemon's %stack_overflow: nesting deeper than the parser stack. */
void rsql_sql__stack_overflow(rsql_parse_t *p)
{
    rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(&p->cur),
                    "parser stack overflow (parentheses or calls nested too deep)");
}

/* Zeroed memory from the parse arena, or NULL with a NOMEM error. */
void *rsql_sql__alloc(rsql_parse_t *p, size_t n)
{
    if (p->failed) {
        return NULL;
    }
    void *m = rsql_arena_alloc(p->arena, n ? n : 1);
    if (!m) {
        rsql_sql__error(p, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    return m;
}

/*
** Append the size-byte *elem to the arena array whose pointer is at
** items_ptr (a T **) and whose count is *n.  The capacity is implied by n:
** 4, then doubling, so no capacity field is needed.
*/
void rsql_sql__push(rsql_parse_t *p, int *n, void *items_ptr, const void *elem, size_t size)
{
    if (p->failed) {
        return;
    }
    char *items;
    memcpy(&items, items_ptr, sizeof(items));
    int cnt = *n;
    if (cnt == 0 || (cnt >= 4 && (cnt & (cnt - 1)) == 0)) {
        size_t cap = cnt == 0 ? 4 : (size_t)cnt * 2;
        char *grown = rsql_sql__alloc(p, cap * size);
        if (!grown) {
            return;
        }
        if (cnt) {
            memcpy(grown, items, (size_t)cnt * size);
        }
        items = grown;
        memcpy(items_ptr, &items, sizeof(items));
    }
    memcpy(items + (size_t)cnt * size, elem, size);
    *n = cnt + 1;
}

/* ---------------------------------------------------------------- numbers */

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* strtod in the C locale, whatever the process locale is. */
double rsql_sql__strtod(const char *s, char **end)
{
    pthread_once(&c_locale_once, c_locale_init);
    if (c_locale) {
        return strtod_l(s, end, c_locale);
    }
    return strtod(s, end);
}

/* The shortest "%g" text of d that reads back as d, in the C locale. */
void rsql_sql__fmt_double(char *buf, size_t size, double d)
{
    pthread_once(&c_locale_once, c_locale_init);
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (prec == 17 || strtod(buf, NULL) == d) {
            break;
        }
    }
    if (c_locale) {
        uselocale(old);
    }
}

/*
** The value of an all-digits token in *out. Values up to 2^63 are returned
** (2^63 only when allow_2p63); larger ones are an error.
*/
bool rsql_sql__parse_uint(rsql_parse_t *p, const rsql_token_t *t, bool allow_2p63, uint64_t *out)
{
    const uint64_t limit = allow_2p63 ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        unsigned d = (unsigned)(t->z[i] - '0');
        if (v > (limit - d) / 10) {
            rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(t),
                            "integer literal out of range: %.*s", (int)t->n, t->z);
            return false;
        }
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* ---------------------------------------------------------------- names and text */

/* Copy of a quoted literal's body with doubled quotes collapsed. */
char *rsql_sql__unquote(rsql_parse_t *p, const rsql_token_t *t, size_t *len_out)
{
    char q = t->z[0];
    char *s = rsql_sql__alloc(p, t->n);
    if (!s) {
        return NULL;
    }
    size_t j = 0;
    for (uint32_t i = 1; i + 1 < t->n; i++) {
        s[j++] = t->z[i];
        if (t->z[i] == q) {
            i++; /* skip the second quote of a pair */
        }
    }
    s[j] = 0;
    if (len_out) {
        *len_out = j;
    }
    return s;
}

static char *copy_tok(rsql_parse_t *p, const rsql_token_t *t)
{
    char *s = rsql_sql__alloc(p, (size_t)t->n + 1);
    if (s) {
        memcpy(s, t->z, t->n);
    }
    return s;
}

/* An identifier: a bare word as written, or a "quoted" or `quoted` one unquoted. */
rsql_ident_t rsql_sql__ident(rsql_parse_t *p, const rsql_token_t *t)
{
    rsql_ident_t id = {NULL, rsql_sql__tok_pos(t)};
    id.name = t->z[0] == '"' || t->z[0] == '`' ? rsql_sql__unquote(p, t, NULL) : copy_tok(p, t);
    return id;
}

/* A 'string' token as unescaped text. */
sql_text_t rsql_sql__text_string(rsql_parse_t *p, const rsql_token_t *t)
{
    return (sql_text_t){rsql_sql__unquote(p, t, NULL), rsql_sql__tok_pos(t)};
}

/* A token as written, after a '-' sign token when sign is non-NULL. */
sql_text_t rsql_sql__text_raw(rsql_parse_t *p, const rsql_token_t *sign, const rsql_token_t *t)
{
    sql_text_t x = {NULL, rsql_sql__tok_pos(t)};
    char *s = rsql_sql__alloc(p, (size_t)t->n + 2);
    if (!s) {
        return x;
    }
    size_t j = 0;
    if (sign) {
        s[j++] = '-';
        x.pos = rsql_sql__span(rsql_sql__tok_pos(sign), x.pos);
    }
    memcpy(s + j, t->z, t->n);
    x.s = s;
    return x;
}

/* A name, or prefix.name when prefix is non-NULL (dotted setting keys). */
sql_text_t rsql_sql__text_ident(rsql_parse_t *p, const sql_text_t *prefix, const rsql_ident_t *id)
{
    if (!prefix) {
        return (sql_text_t){id->name, id->pos};
    }
    sql_text_t x = {NULL, rsql_sql__span(prefix->pos, id->pos)};
    if (p->failed) {
        return x;
    }
    size_t a = strlen(prefix->s), b = strlen(id->name);
    char *s = rsql_sql__alloc(p, a + b + 2);
    if (s) {
        memcpy(s, prefix->s, a);
        s[a] = '.';
        memcpy(s + a + 1, id->name, b);
        x.s = s;
    }
    return x;
}

/* ---------------------------------------------------------------- expressions */

static rsql_expr_t *expr_new(rsql_parse_t *p, rsql_expr_kind_t kind, rsql_pos_t pos)
{
    rsql_expr_t *e = rsql_sql__alloc(p, sizeof(*e));
    if (e) {
        e->kind = kind;
        e->pos = pos;
        e->op_pos = RSQL_NOPOS;
        e->cast_type.precision = -1;
        e->cast_type.pos = RSQL_NOPOS;
        e->height = 1;
    }
    return e;
}

static int max_height(int h, const rsql_expr_t *x)
{
    return x && x->height > h ? x->height : h;
}

/*
** Set e's height from its operands (built before it) and refuse it, at its operator, when
** it goes past RSQL_SQL_MAX_EXPR_DEPTH. Returns e, or NULL on an error.
*/
rsql_expr_t *rsql_sql__expr_height(rsql_parse_t *p, rsql_expr_t *e)
{
    if (!e || p->failed) {
        return NULL;
    }
    int h = max_height(max_height(max_height(0, e->left), e->right), e->third);
    for (int i = 0; i < e->args.n; i++) {
        h = max_height(h, e->args.items[i]);
    }
    for (int i = 0; i < e->n_clauses; i++) {
        h = max_height(h, e->clauses[i].dflt);
    }
    e->height = h + 1;
    if (e->height > RSQL_SQL_MAX_EXPR_DEPTH) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, e->op_pos.off != RSQL_POS_NONE ? e->op_pos : e->pos,
                        "expression tree is too deep (maximum depth %d)",
                        RSQL_SQL_MAX_EXPR_DEPTH);
        return NULL;
    }
    return e;
}

/* A literal from an INTEGER, FLOAT, STRING, NULL, TRUE or FALSE token. */
rsql_expr_t *rsql_sql__expr_literal(rsql_parse_t *p, const rsql_token_t *t)
{
    rsql_expr_t *e = expr_new(p, RSQL_EX_LITERAL, rsql_sql__tok_pos(t));
    if (!e) {
        return NULL;
    }
    rsql_literal_t *l = &e->lit;
    switch (t->type) {
    case RSQL_TK_INTEGER: {
        uint64_t v;
        if (!rsql_sql__parse_uint(p, t, true, &v)) {
            return NULL;
        }
        l->kind = RSQL_LIT_INT;
        if (v > (uint64_t)INT64_MAX) { /* 2^63: only valid under a minus */
            l->i = INT64_MIN;
            l->b = true;
            l->s = copy_tok(p, t);
            e->op_pos = e->pos;
        } else {
            l->i = (int64_t)v;
        }
        break;
    }
    case RSQL_TK_FLOAT: {
        char *s = copy_tok(p, t);
        if (!s) {
            return NULL;
        }
        l->kind = RSQL_LIT_DOUBLE;
        l->d = rsql_sql__strtod(s, NULL);
        if (isinf(l->d)) {
            rsql_sql__error(p, RSQL_ERR_SYNTAX, e->pos, "floating-point literal out of range: %s",
                            s);
            return NULL;
        }
        break;
    }
    case RSQL_TK_STRING:
        l->kind = RSQL_LIT_STRING;
        l->s = rsql_sql__unquote(p, t, &l->s_len);
        break;
    case RSQL_TK_TRUE:
    case RSQL_TK_FALSE:
        l->kind = RSQL_LIT_BOOL;
        l->b = t->type == RSQL_TK_TRUE;
        break;
    default:
        l->kind = RSQL_LIT_NULL;
        break;
    }
    return p->failed ? NULL : e;
}

/* A column reference, qualified (t.a) when qual is non-NULL. */
rsql_expr_t *rsql_sql__expr_column(rsql_parse_t *p, const rsql_ident_t *qual,
                                   const rsql_ident_t *name)
{
    rsql_expr_t *e = expr_new(p, RSQL_EX_COLUMN, qual ? rsql_sql__span(qual->pos, name->pos)
                                                      : name->pos);
    if (e) {
        e->name = name->name;
        e->qualifier = qual ? qual->name : NULL;
    }
    return e;
}

/* '*' in a select list. */
rsql_expr_t *rsql_sql__expr_star(rsql_parse_t *p, const rsql_token_t *t)
{
    return expr_new(p, RSQL_EX_STAR, rsql_sql__tok_pos(t));
}

/* q.*: every column of the table q names (q must be a bare name). */
rsql_expr_t *rsql_sql__expr_qstar(rsql_parse_t *p, const rsql_expr_t *q, const rsql_token_t *t)
{
    if (p->failed || !q) {
        return NULL;
    }
    if (q->kind != RSQL_EX_COLUMN || q->qualifier) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(t),
                        "near \"*\": only a table's name or alias can come before .*");
        return NULL;
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_STAR, rsql_sql__span(q->pos, rsql_sql__tok_pos(t)));
    if (e) {
        e->qualifier = q->name;
    }
    return e;
}

/* ( x ): x itself, its span widened to the parentheses. */
rsql_expr_t *rsql_sql__expr_paren(rsql_parse_t *p, const rsql_token_t *lp, rsql_expr_t *x,
                                  const rsql_token_t *rp)
{
    if (p->failed) {
        return NULL;
    }
    x->pos = rsql_sql__span(rsql_sql__tok_pos(lp), rsql_sql__tok_pos(rp));
    return x;
}

/* NOT x, -x, +x; a sign on a numeric literal is folded into it. */
rsql_expr_t *rsql_sql__expr_unary(rsql_parse_t *p, rsql_op_t op, const rsql_token_t *optok,
                                  rsql_expr_t *x)
{
    if (p->failed) {
        return NULL;
    }
    rsql_pos_t pos = rsql_sql__span(rsql_sql__tok_pos(optok), x->pos);
    if (x->kind == RSQL_EX_LITERAL && op != RSQL_OP_NOT) {
        rsql_literal_t *l = &x->lit;
        if (l->kind == RSQL_LIT_INT && op == RSQL_OP_NEG && l->b) {
            l->b = false; /* -9223372036854775808 */
            l->s = NULL;
            x->op_pos = RSQL_NOPOS;
            x->pos = pos;
            return x;
        }
        if (l->kind == RSQL_LIT_INT && (op == RSQL_OP_PLUS || l->i != INT64_MIN)) {
            l->i = op == RSQL_OP_NEG ? -l->i : l->i;
            x->pos = pos;
            return x;
        }
        if (l->kind == RSQL_LIT_DOUBLE) {
            l->d = op == RSQL_OP_NEG ? -l->d : l->d;
            x->pos = pos;
            return x;
        }
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_UNARY, pos);
    if (e) {
        e->op = op;
        e->op_pos = rsql_sql__tok_pos(optok);
        e->left = x;
    }
    return rsql_sql__expr_height(p, e);
}

/* l op r; op_pos is the operator token. */
rsql_expr_t *rsql_sql__expr_binary(rsql_parse_t *p, rsql_op_t op, const rsql_token_t *optok,
                                   rsql_expr_t *l, rsql_expr_t *r)
{
    if (p->failed) {
        return NULL;
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_BINARY, rsql_sql__span(l->pos, r->pos));
    if (e) {
        e->op = op;
        e->op_pos = rsql_sql__tok_pos(optok);
        e->left = l;
        e->right = r;
    }
    return rsql_sql__expr_height(p, e);
}

/* l IS [NOT] NULL; op_pos spans IS .. NULL. */
rsql_expr_t *rsql_sql__expr_is_null(rsql_parse_t *p, rsql_expr_t *l, const rsql_token_t *is,
                                    bool negated, const rsql_token_t *null_tok)
{
    if (p->failed) {
        return NULL;
    }
    rsql_pos_t end = rsql_sql__tok_pos(null_tok);
    rsql_expr_t *e = expr_new(p, RSQL_EX_IS_NULL, rsql_sql__span(l->pos, end));
    if (e) {
        e->op_pos = rsql_sql__span(rsql_sql__tok_pos(is), end);
        e->negated = negated;
        e->left = l;
    }
    return rsql_sql__expr_height(p, e);
}

/* l [NOT] LIKE r [ESCAPE esc]: right = pattern, third = escape or NULL. */
rsql_expr_t *rsql_sql__expr_like(rsql_parse_t *p, rsql_expr_t *l, sql_flag_t op, rsql_expr_t *r,
                                 rsql_expr_t *esc)
{
    if (p->failed) {
        return NULL;
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_LIKE, rsql_sql__span(l->pos, esc ? esc->pos : r->pos));
    if (e) {
        e->op_pos = op.pos;
        e->negated = op.on;
        e->left = l;
        e->right = r;
        e->third = esc;
    }
    return rsql_sql__expr_height(p, e);
}

/* l [NOT] IN (list): args = the list. */
rsql_expr_t *rsql_sql__expr_in(rsql_parse_t *p, rsql_expr_t *l, sql_flag_t op,
                               const rsql_expr_list_t *list, const rsql_token_t *rp)
{
    if (p->failed) {
        return NULL;
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_IN, rsql_sql__span(l->pos, rsql_sql__tok_pos(rp)));
    if (e) {
        e->op_pos = op.pos;
        e->negated = op.on;
        e->left = l;
        e->args = *list;
    }
    return rsql_sql__expr_height(p, e);
}

/* l [NOT] BETWEEN lo AND hi: right = lo, third = hi. */
rsql_expr_t *rsql_sql__expr_between(rsql_parse_t *p, rsql_expr_t *l, sql_flag_t op,
                                    rsql_expr_t *lo, rsql_expr_t *hi)
{
    if (p->failed) {
        return NULL;
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_BETWEEN, rsql_sql__span(l->pos, hi->pos));
    if (e) {
        e->op_pos = op.pos;
        e->negated = op.on;
        e->left = l;
        e->right = lo;
        e->third = hi;
    }
    return rsql_sql__expr_height(p, e);
}

/*
** CASE [operand] WHEN c THEN v ... [ELSE e] END: left = operand or NULL,
** args = c1, v1, c2, v2, ..., right = e or NULL.
*/
rsql_expr_t *rsql_sql__expr_case(rsql_parse_t *p, const rsql_token_t *case_tok,
                                 rsql_expr_t *operand, const rsql_expr_list_t *whens,
                                 rsql_expr_t *else_expr, const rsql_token_t *end_tok)
{
    rsql_expr_t *e = expr_new(p, RSQL_EX_CASE, rsql_sql__span(rsql_sql__tok_pos(case_tok),
                                                              rsql_sql__tok_pos(end_tok)));
    if (e) {
        e->op_pos = rsql_sql__tok_pos(case_tok);
        e->left = operand;
        e->args = *whens;
        e->right = else_expr;
    }
    return rsql_sql__expr_height(p, e);
}

/* CAST(x AS type): left = x, cast_type = type. */
rsql_expr_t *rsql_sql__expr_cast(rsql_parse_t *p, const rsql_token_t *cast_tok, rsql_expr_t *x,
                                 const rsql_type_spec_t *type, const rsql_token_t *rp)
{
    rsql_expr_t *e = expr_new(p, RSQL_EX_CAST, rsql_sql__span(rsql_sql__tok_pos(cast_tok),
                                                              rsql_sql__tok_pos(rp)));
    if (e) {
        e->op_pos = rsql_sql__tok_pos(cast_tok);
        e->left = x;
        e->cast_type = *type;
    }
    return rsql_sql__expr_height(p, e);
}

/* The upper-cased (and unquoted) name of a function token. */
static char *func_name(rsql_parse_t *p, const rsql_token_t *t)
{
    char *s = t->z[0] == '"' || t->z[0] == '`' ? rsql_sql__unquote(p, t, NULL) : copy_tok(p, t);
    for (char *c = s; c && *c; c++) {
        if (*c >= 'a' && *c <= 'z') {
            *c = (char)(*c - 'a' + 'A');
        }
    }
    return s;
}

/*
** name(args) (args NULL: none); rp NULL for CURRENT_TIMESTAMP, which has no
** parentheses.
*/
rsql_expr_t *rsql_sql__expr_func(rsql_parse_t *p, const rsql_token_t *name,
                                 const rsql_expr_list_t *args, const rsql_token_t *rp)
{
    rsql_pos_t pos = rsql_sql__tok_pos(name);
    if (rp) {
        pos = rsql_sql__span(pos, rsql_sql__tok_pos(rp));
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_FUNC, pos);
    if (e) {
        e->op_pos = rsql_sql__tok_pos(name);
        e->name = func_name(p, name);
        if (args) {
            e->args = *args;
        }
    }
    return rsql_sql__expr_height(p, e);
}

/* See sql_int.h. */
rsql_expr_t *rsql_sql__expr_over(rsql_parse_t *p, const rsql_token_t *name,
                                 const rsql_token_t *over_tok, const rsql_expr_list_t *partition,
                                 const sql_order_t *order, const rsql_token_t *rp)
{
    rsql_expr_t *e = rsql_sql__expr_func(p, name, NULL, rp);
    rsql_over_t *o = e ? rsql_sql__alloc(p, sizeof *o) : NULL;
    if (!o) {
        return NULL;
    }
    o->partition = *partition;
    o->order = order->e;
    o->desc = order->desc;
    o->order_pos = order->pos;
    o->pos = rsql_sql__span(rsql_sql__tok_pos(over_tok), rsql_sql__tok_pos(rp));
    e->over = o;
    int h = o->order ? o->order->height : 0;
    for (int i = 0; i < partition->n; i++) {
        if (partition->items[i] && partition->items[i]->height > h) {
            h = partition->items[i]->height;
        }
    }
    if (h + 1 > e->height) {
        e->height = h + 1;
    }
    return e;
}

/*
** SUBSTRING(x FROM start [FOR count]): the FUNC SUBSTRING(x, start[, count]).
** Other names do not take FROM: a syntax error at the FROM.
*/
rsql_expr_t *rsql_sql__expr_substring(rsql_parse_t *p, const rsql_token_t *name,
                                      rsql_expr_t *x, const rsql_token_t *from_tok,
                                      rsql_expr_t *start, rsql_expr_t *count,
                                      const rsql_token_t *rp)
{
    rsql_expr_list_t args = {0, NULL};
    rsql_expr_t *e = rsql_sql__expr_func(p, name, NULL, rp);
    if (!e) {
        return NULL;
    }
    bool extract = strcmp(e->name, "EXTRACT") == 0; /* EXTRACT(unit FROM x): EXTRACT(unit, x) */
    if ((strcmp(e->name, "SUBSTRING") != 0 && strcmp(e->name, "SUBSTR") != 0 && !extract) ||
        (extract && count)) {
        rsql_sql__syntax_error(p, from_tok->type, from_tok);
        return NULL;
    }
    rsql_sql__expr_list_push(p, &args, x);
    rsql_sql__expr_list_push(p, &args, start);
    if (count) {
        rsql_sql__expr_list_push(p, &args, count);
    }
    e->args = args;
    return rsql_sql__expr_height(p, e);
}

/* Append x to the expression list l (in the arena). */
void rsql_sql__expr_list_push(rsql_parse_t *p, rsql_expr_list_t *l, rsql_expr_t *x)
{
    rsql_sql__push(p, &l->n, &l->items, &x, sizeof(x));
}

/* ---------------------------------------------------------------- definitions */

/*
** A type: t is its keyword, precision the INTEGER of TIMESTAMP(p) (the n of
** VARCHAR(n) is not passed: it is ignored), rp the closing parenthesis.
*/
rsql_type_spec_t rsql_sql__type(rsql_parse_t *p, rsql_type_t type, const rsql_token_t *t,
                                const rsql_token_t *precision, const rsql_token_t *rp)
{
    rsql_type_spec_t ts = {type, -1, rsql_sql__tok_pos(t)};
    if (rp) {
        ts.pos = rsql_sql__span(ts.pos, rsql_sql__tok_pos(rp));
    }
    uint64_t v;
    if (precision && !p->failed && rsql_sql__parse_uint(p, precision, false, &v)) {
        ts.precision = v > INT_MAX ? INT_MAX : (int)v;
    }
    return ts;
}

/*
** A DECIMAL, DATE, ROW, ARRAY or MAP type spanning first..last: its text is
** parsed into an interned descriptor (errors at their place in the text).
*/
rsql_type_spec_t rsql_sql__type_text(rsql_parse_t *p, rsql_type_t type, const rsql_token_t *first,
                                     const rsql_token_t *last)
{
    rsql_type_spec_t ts = {type, -1, rsql_sql__span(rsql_sql__tok_pos(first),
                                                    rsql_sql__tok_pos(last)), NULL};
    if (p->failed) {
        return ts;
    }
    uint32_t off = 0;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_tdesc_parse(p->text + ts.pos.off, ts.pos.len, &ts.desc, &off, &e) != RSQL_OK) {
        rsql_pos_t at = {ts.pos.off + off, 1};
        rsql_sql__error(p, e.code, e.code == RSQL_ERR_NOMEM ? RSQL_NOPOS : at, "%s", e.msg);
    }
    return ts;
}

/*
** x.name: when x is a bare column a, this is the column name qualified by a
** (t.col, the shape before nested types); else a ROW field access.
*/
rsql_expr_t *rsql_sql__expr_field(rsql_parse_t *p, rsql_expr_t *x, const rsql_ident_t *name)
{
    if (p->failed || !x) {
        return NULL;
    }
    if (x->kind == RSQL_EX_COLUMN && !x->qualifier) {
        rsql_ident_t q = {x->name, x->pos};
        return rsql_sql__expr_column(p, &q, name);
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_FIELD, rsql_sql__span(x->pos, name->pos));
    if (e) {
        e->left = x;
        e->name = name->name;
        e->op_pos = name->pos;
    }
    return rsql_sql__expr_height(p, e);
}

/* x[i]: an ARRAY element or a MAP value. */
rsql_expr_t *rsql_sql__expr_index(rsql_parse_t *p, rsql_expr_t *x, rsql_expr_t *i,
                                  const rsql_token_t *rb)
{
    if (p->failed || !x || !i) {
        return NULL;
    }
    rsql_expr_t *e = expr_new(p, RSQL_EX_INDEX, rsql_sql__span(x->pos, rsql_sql__tok_pos(rb)));
    if (e) {
        e->left = x;
        e->right = i;
        e->op_pos = i->pos;
    }
    return rsql_sql__expr_height(p, e);
}

/* name type [NOT NULL | NULL]; pos spans the whole definition. */
/* ---------------------------------------------------------------- final checks */

static rsql_err_t check_expr(rsql_parse_t *p, const rsql_expr_t *e)
{
    if (!e) {
        return RSQL_OK;
    }
    if (e->kind == RSQL_EX_LITERAL && e->lit.kind == RSQL_LIT_INT && e->lit.b) {
        return rsql_sql__error(p, RSQL_ERR_SYNTAX, e->op_pos, "integer literal out of range: %s",
                               e->lit.s ? e->lit.s : "");
    }
    if (check_expr(p, e->left) || check_expr(p, e->right) || check_expr(p, e->third)) {
        return p->error.code;
    }
    for (int i = 0; i < e->args.n; i++) {
        if (check_expr(p, e->args.items[i])) {
            return p->error.code;
        }
    }
    for (int i = 0; e->over && i < e->over->partition.n; i++) {
        if (check_expr(p, e->over->partition.items[i])) {
            return p->error.code;
        }
    }
    return e->over ? check_expr(p, e->over->order) : RSQL_OK;
}

static rsql_err_t check_select(rsql_parse_t *p, const rsql_select_t *s)
{
    if (!s) {
        return RSQL_OK;
    }
    if (check_select(p, s->from_sub)) {
        return p->error.code;
    }
    for (int i = 0; i < s->n_items; i++) {
        if (check_expr(p, s->items[i].expr)) {
            return p->error.code;
        }
    }
    return check_expr(p, s->where);
}

/*
** After the grammar accepted s: reject an integer literal 9223372036854775808
** that no minus sign folded.  Returns RSQL_OK or the error (also in p).
*/
rsql_err_t rsql_sql__check(rsql_parse_t *p, rsql_stmt_t *s)
{
    for (; s; s = s->inner) {
        if (check_select(p, s->select) || (s->insert && check_select(p, s->insert->select))) {
            return p->error.code;
        }
    }
    return RSQL_OK;
}
