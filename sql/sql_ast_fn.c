/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_ast_fn: the function calls with special forms (Flink's syntax):
 * POSITION(x IN y), name(args RETURNING type <clauses>) and JSON_OBJECT's
 * [KEY] k VALUE v members, plus the driver's contextual tokens that make
 * them parse without new reserved words: KEY is a token only at the start
 * of an argument of JSON_OBJECT(...), and the first IN directly inside
 * POSITION(...) is INPOS.  Everywhere else `key`, `value` and `position`
 * are plain names.  Which function takes RETURNING, which clauses and
 * KEY/VALUE is the planner's business (plan_bind.c); these builders only
 * record what was written.
 */
#include "config.h"
#include "sql/sql_int.h"

#include <string.h>
#include <strings.h>

static bool word_is(const rsql_token_t *t, const char *w)
{
    size_t n = strlen(w);
    return t->type == RSQL_TK_ID && t->n == n && strncasecmp(t->z, w, n) == 0;
}

/*
** The token type to feed for t, given the tokens fed before it (p->prev)
** and the open parentheses; updates that state. Called for every token of
** a statement in order.
*/
int rsql_sql__context_token(rsql_parse_t *p, const rsql_token_t *t)
{
    int type = t->type;
    unsigned char kind = p->depth > 0 && p->depth <= RSQL_SQL_CTX_DEPTH
                             ? p->paren_kind[p->depth - 1]
                             : 0;
    if (type == RSQL_TK_LP) {
        if (p->depth < RSQL_SQL_CTX_DEPTH) {
            p->paren_kind[p->depth] = word_is(&p->prev, "POSITION")      ? 1
                                      : word_is(&p->prev, "JSON_OBJECT") ? 3
                                      : word_is(&p->prev, "TRY_CAST")    ? RSQL_SQL_CTX_TRY_CAST
                                                                         : 0;
        }
        p->depth++;
    } else if (type == RSQL_TK_RP) {
        if (p->depth > 0) {
            p->depth--;
        }
    } else if (type == RSQL_TK_IN && kind == 1) {
        p->paren_kind[p->depth - 1] = 2;
        type = RSQL_TK_INPOS;
    } else if (p->prev.type == RSQL_TK_PRIMARY && word_is(t, "KEY")) {
        type = RSQL_TK_KEY; /* PRIMARY KEY (...) NOT ENFORCED */
    } else if (kind == 3 && word_is(t, "KEY") &&
               (p->prev.type == RSQL_TK_LP || p->prev.type == RSQL_TK_COMMA)) {
        type = RSQL_TK_KEY;
    }
    if (!p->prev.z) {
        p->stmt_kw = type;
    }
    if (type == RSQL_TK_FROM) {
        p->seen_from = true;
    }
    p->before[1] = p->before[0];
    p->before[0] = p->prev;
    p->prev = *t;
    return type;
}

/* See sql_int.h. */
rsql_expr_t *rsql_sql__expr_agg(rsql_parse_t *p, const rsql_token_t *name, rsql_expr_t *arg,
                                bool star, const rsql_token_t *rp)
{
    rsql_expr_list_t args = {0, NULL};
    if (arg) {
        rsql_sql__expr_list_push(p, &args, arg);
    }
    rsql_expr_t *e = p->failed ? NULL : rsql_sql__expr_func(p, name, &args, rp);
    if (e) {
        e->star_arg = star;
        e->distinct = !star;
    }
    return e;
}

rsql_expr_t *rsql_sql__expr_position(rsql_parse_t *p, const rsql_token_t *name, rsql_expr_t *x,
                                     rsql_expr_t *y, const rsql_token_t *rp)
{
    rsql_expr_list_t args = {0, NULL};
    rsql_sql__expr_list_push(p, &args, x);
    rsql_sql__expr_list_push(p, &args, y);
    return p->failed ? NULL : rsql_sql__expr_func(p, name, &args, rp);
}

rsql_expr_t *rsql_sql__expr_func_ext(rsql_parse_t *p, const rsql_token_t *name,
                                     const rsql_expr_list_t *args, bool kv,
                                     const sql_fn_tail_t *tail, const rsql_token_t *rp)
{
    rsql_expr_t *e = rsql_sql__expr_func(p, name, args, rp);
    if (!e) {
        return NULL;
    }
    e->kv_pairs = kv;
    if (tail) {
        e->has_returning = tail->has_returning;
        if (tail->has_returning) {
            e->cast_type = tail->type;
        }
        e->n_clauses = tail->clauses.n;
        e->clauses = tail->clauses.items;
        e->wrapper = tail->wrapper;
        e->wrapper_pos = tail->wrapper_pos;
    }
    return rsql_sql__expr_height(p, e);
}

rsql_json_clause_t rsql_sql__json_beh(rsql_json_beh_t beh, const rsql_token_t *t,
                                      rsql_expr_t *dflt)
{
    rsql_json_clause_t c = {beh, RSQL_JE_EMPTY, dflt, rsql_sql__tok_pos(t)};
    return c;
}
