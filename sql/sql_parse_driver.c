/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_parse_driver: the push loop between the tokenizer and the lemon
 * parser (SQLite's sqlite3RunParser role).  rsql_parse_next() skips blanks
 * and empty statements, feeds one statement's tokens to a fresh lemon
 * parser, then the end-of-input token (0) in place of the ';' or at the end
 * of the text, and returns the statement the start rule built.  Token-level
 * errors (illegal characters, a NUL byte anywhere, unterminated literals and comments, empty
 * quoted identifiers) are raised here; grammar errors come back through
 * %syntax_error.  After an error the cursor moves past the next ';'.
 */
#include "config.h"
#include "sql/sql_int.h"

#include <string.h>

/*
** A parser over sql[0..len), which is borrowed and must outlive the parser
** and its ASTs.  Returns NULL when out of memory.  Free with
** rsql_parse_destroy().
*/
rsql_parse_t *rsql_parse_new(const char *sql, size_t len)
{
    rsql_parse_t *p = rsql_calloc(1, sizeof(*p));
    if (!p) {
        return NULL;
    }
    p->arena = rsql_arena_new();
    p->text = p->arena ? rsql_arena_alloc(p->arena, len + 1) : NULL;
    if (!p->text) {
        rsql_parse_destroy(p);
        return NULL;
    }
    if (len) {
        memcpy(p->text, sql, len);
    }
    p->sql = sql;
    p->len = len;
    rsql_error_clear(&p->error);
    return p;
}

/* Free the parser and every AST it returned. NULL-safe. */
void rsql_parse_destroy(rsql_parse_t *p)
{
    if (p) {
        rsql_arena_destroy(p->arena);
        rsql_free(p);
    }
}

/* The token at p->cursor (type 0 at the end of the text). */
static rsql_token_t peek(const rsql_parse_t *p)
{
    rsql_token_t t = {0, p->text + p->cursor, 0, (uint32_t)p->cursor};
    if (p->cursor >= p->len) {
        return t;
    }
    int type;
    int n = rsql_sql_get_token(t.z, &type);
    if (n == 0) { /* a NUL byte inside the text */
        n = 1;
        type = RSQL_TK_ILLEGAL_;
    } else if (type == RSQL_TK_UNTERMINATED_ && p->cursor + (size_t)n < p->len) {
        /* a string, quoted identifier or comment that a NUL byte cut short: an illegal
           token up to and including the NUL (token_error reports the NUL itself) */
        n++;
        type = RSQL_TK_ILLEGAL_;
    }
    if (p->cursor + (size_t)n > p->len) {
        n = (int)(p->len - p->cursor);
    }
    t.type = type;
    t.n = (uint32_t)n;
    return t;
}

/* Raise the error of a token the tokenizer could not make into a valid one. */
static void token_error(rsql_parse_t *p, const rsql_token_t *t)
{
    rsql_pos_t pos = rsql_sql__tok_pos(t);
    if (t->type == RSQL_TK_UNTERMINATED_) {
        const char *what = t->z[0] == '\'' ? "unterminated string"
                           : t->z[0] == '"' || t->z[0] == '`' ? "unterminated quoted identifier"
                                            : "unterminated comment";
        rsql_sql__error(p, RSQL_ERR_INCOMPLETE, pos, "%s", what);
    } else if (t->type == RSQL_TK_ID) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, pos, "empty quoted identifier");
    } else if (memchr(t->z, 0, t->n)) {
        /* SQL text holds no NUL byte, not even in a string or comment */
        uint32_t at = (uint32_t)((const char *)memchr(t->z, 0, t->n) - t->z);
        rsql_sql__error(p, RSQL_ERR_SYNTAX, (rsql_pos_t){t->off + at, 1},
                        "NUL byte (character 0) in SQL text");
    } else {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, pos, "unrecognized token: \"%.*s\"", (int)t->n, t->z);
    }
}

/* After an error: move the cursor past the next ';' (or to the end). */
static void skip_statement(rsql_parse_t *p)
{
    while (p->cursor < p->len) {
        rsql_token_t t = peek(p);
        p->cursor += t.n;
        if (t.type == RSQL_TK_SEMI) {
            break;
        }
    }
}

/* Feed one statement to lemon; returns the statement or NULL with p->error set. */
static rsql_stmt_t *parse_one(rsql_parse_t *p, void *lemon, uint32_t *first, uint32_t *last_end)
{
    bool started = false;
    for (;;) {
        rsql_token_t t = peek(p);
        if (t.type == RSQL_TK_SPACE_) {
            p->cursor += t.n;
            continue;
        }
        if (t.type == 0 || t.type == RSQL_TK_SEMI) { /* the statement ends */
            p->at_semi = t.type == RSQL_TK_SEMI;
            p->cursor += t.n;
            p->cur = t;
            rsql_sql_parser(lemon, 0, t);
            break;
        }
        if (t.type == RSQL_TK_ILLEGAL_ || t.type == RSQL_TK_UNTERMINATED_ ||
            (t.type == RSQL_TK_ID && t.n == 2 && (t.z[0] == '"' || t.z[0] == '`'))) {
            token_error(p, &t);
            break;
        }
        if (!started) {
            *first = t.off;
            started = true;
        }
        p->cur = t;
        p->cursor += t.n;
        t.type = rsql_sql__context_token(p, &t);
        rsql_sql_parser(lemon, t.type, t);
        if (p->failed) {
            break;
        }
        *last_end = t.off + t.n;
    }
    if (!p->failed && !p->stmt) {
        rsql_sql__error(p, RSQL_ERR_INTERNAL, RSQL_NOPOS, "parser accepted no statement");
    }
    if (p->failed) {
        if (!p->at_semi) {
            skip_statement(p);
        }
        return NULL;
    }
    if (rsql_sql__check(p, p->stmt) != RSQL_OK) {
        return NULL;
    }
    return p->stmt;
}

/*
** Parse the next statement into *out (owned by p; NULL when only blanks,
** comments and empty statements are left).  On error returns its code with
** err filled (SYNTAX, INCOMPLETE, NOMEM) and leaves the cursor after the
** next ';', so the following call parses the statement after it.
*/
rsql_err_t rsql_parse_next(rsql_parse_t *p, rsql_stmt_t **out, rsql_error_t *err)
{
    *out = NULL;
    rsql_error_clear(&p->error);
    p->failed = false;
    p->at_semi = false;
    p->stmt = NULL;
    p->depth = 0;
    p->prev = (rsql_token_t){0, NULL, 0, 0};
    p->before[0] = p->before[1] = p->prev;
    p->stmt_kw = 0;
    p->seen_from = false;
    p->wms.n = 0;
    p->wms.items = NULL;
    /* skip blanks and empty statements */
    for (;;) {
        rsql_token_t t = peek(p);
        if (t.type == 0) {
            return RSQL_OK;
        }
        if (t.type != RSQL_TK_SPACE_ && t.type != RSQL_TK_SEMI) {
            break;
        }
        p->cursor += t.n;
    }
    void *lemon = rsql_sql_parserAlloc(rsql_malloc, p);
    if (!lemon) {
        skip_statement(p);
        return rsql_error_nomem(err);
    }
    uint32_t first = (uint32_t)p->cursor, last_end = (uint32_t)p->cursor;
    rsql_stmt_t *s = parse_one(p, lemon, &first, &last_end);
    rsql_sql_parserFree(lemon, rsql_free);
    if (!s) {
        rsql_error_copy(err, &p->error);
        return p->error.code;
    }
    s->pos = (rsql_pos_t){first, last_end - first};
    *out = s;
    return RSQL_OK;
}
