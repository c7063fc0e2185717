/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Syntax errors at a construct the engine does not run yet: where the
 * parser stops at GROUP BY, ORDER BY, a JOIN, DISTINCT, a
 * subquery, UNION, TRY_CAST, COUNT(*) or a SELECT without FROM, the error
 * says which, with code RSQL_ERR_UNSUPPORTED, instead of a bare syntax
 * error. rsql_sql__unsupported is called by the %syntax_error handler with
 * the offending token; the tokens fed before it are in p->prev (the
 * offending one itself) and p->before[].
 */
#include "config.h"
#include "sql/sql_int.h"

#include <string.h>
#include <strings.h>

static bool is_word(const rsql_token_t *t, const char *w)
{
    size_t n = strlen(w);
    return t->z && t->n == n && strncasecmp(t->z, w, n) == 0;
}

/* A word the parser stops at, and what to call the construct it starts. */
static const struct {
    const char *word, *what;
} words[] = {
    {"GROUP", "GROUP BY"},         {"ORDER", "ORDER BY"},
    {"HAVING", "HAVING"},          {"JOIN", "JOIN"},
    {"LEFT", "JOIN"},              {"RIGHT", "JOIN"},
    {"INNER", "JOIN"},             {"FULL", "JOIN"},
    {"CROSS", "JOIN"},             {"NATURAL", "JOIN"},
    {"UNION", "UNION"},            {"INTERSECT", "INTERSECT"},
    {"EXCEPT", "EXCEPT"},          {"DISTINCT", "DISTINCT"},
    {"OVER", "a window (OVER)"},   {"WINDOW", "a window (WINDOW)"},
    {"OFFSET", "OFFSET"},          {"VALUES", "INSERT ... VALUES"},
    {"UPDATE", "UPDATE"},          {"DELETE", "DELETE"},
    {"ALTER", "ALTER"},            {"TUMBLE", "a window (TUMBLE)"},
};

static bool is_name(const rsql_token_t *t)
{
    return t->type == RSQL_TK_ID;
}

/*
** FROM t <word>: a table alias, unless the word starts a construct that is not supported yet
** (FROM t JOIN ..., FROM t GROUP BY ...): that is the statement's error, at the word.
*/
rsql_ident_t rsql_sql__alias(rsql_parse_t *p, const rsql_ident_t *id)
{
    size_t n = id->name ? strlen(id->name) : 0;
    for (size_t i = 0; n && i < sizeof words / sizeof words[0]; i++) {
        if (strlen(words[i].word) == n && strncasecmp(id->name, words[i].word, n) == 0) {
            rsql_sql__error(p, RSQL_ERR_UNSUPPORTED, id->pos, "%s is not supported yet",
                            words[i].what);
            break;
        }
    }
    return *id;
}

/*
** When the syntax error at tok (major its type, 0 at the end of the statement) is at a
** construct that is not supported yet, set that error (RSQL_ERR_UNSUPPORTED) and return true;
** else false (the caller reports a plain syntax error).
*/
bool rsql_sql__unsupported(rsql_parse_t *p, int major, const rsql_token_t *tok)
{
    const rsql_token_t *b0 = &p->before[0], *b1 = &p->before[1];
    rsql_pos_t pos = rsql_sql__tok_pos(tok);
    const char *what = NULL;
    if (major == 0) {
        if (p->stmt_kw == RSQL_TK_SELECT && !p->seen_from && p->prev.type != RSQL_TK_SELECT &&
            p->prev.type != RSQL_TK_COMMA && p->depth == 0) {
            rsql_sql__error(p, RSQL_ERR_UNSUPPORTED, (rsql_pos_t){(uint32_t)p->len, 0},
                            "a SELECT without FROM is not supported yet: a SELECT reads a "
                            "table (SELECT ... FROM name)");
            return true;
        }
        return false;
    }
    if (b1->type == RSQL_TK_JOIN && is_name(b0) && tok->type != RSQL_TK_FOR) {
        rsql_sql__error(p, RSQL_ERR_UNSUPPORTED, pos,
                        "only a lookup join is supported: JOIN %.*s FOR SYSTEM_TIME AS OF "
                        "<the processing time> [AS] alias ON ...",
                        (int)b0->n, b0->z);
        return true;
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if ((tok->type == RSQL_TK_ID || tok->type == RSQL_TK_ORDER ||
             tok->type == RSQL_TK_OVER || tok->type == RSQL_TK_DISTINCT) &&
            is_word(tok, words[i].word)) {
            what = words[i].what;
            break;
        }
    }
    if (!what && is_word(b0, "DISTINCT") &&
        (b0->type == RSQL_TK_ID || b0->type == RSQL_TK_DISTINCT) &&
        b1->type == RSQL_TK_SELECT) {
        what = "DISTINCT";
        pos = rsql_sql__tok_pos(b0);
    } else if (!what && tok->type == RSQL_TK_SELECT && b0->type == RSQL_TK_LP) {
        what = "a subquery";
    } else if (!what && tok->type == RSQL_TK_WITH && !b0->z) {
        what = "WITH (a common table expression)";
    } else if (!what && tok->type == RSQL_TK_STAR && b0->type == RSQL_TK_LP && is_name(b1)) {
        rsql_sql__error(p, RSQL_ERR_UNSUPPORTED, pos,
                        "%.*s(*) is not supported yet: aggregate functions are not supported yet",
                        (int)b1->n, b1->z);
        return true;
    } else if (!what && p->depth > 0 && p->depth <= RSQL_SQL_CTX_DEPTH &&
               p->paren_kind[p->depth - 1] == RSQL_SQL_CTX_TRY_CAST) {
        what = "TRY_CAST";
    }
    if (!what) {
        return false;
    }
    rsql_sql__error(p, RSQL_ERR_UNSUPPORTED, pos, "%s is not supported yet", what);
    return true;
}
