/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_complete: does a piece of text end a statement? (SQLite's complete.c
 * role).  The shell keeps reading lines until this says yes: the last token
 * that is not whitespace or a comment is a ';' outside any string, quoted
 * identifier or comment.
 */
#include "config.h"
#include "sql/sql_int.h"

/*
** True when text ends (ignoring trailing whitespace and comments) with a ';'
** that is outside strings, quoted identifiers and comments.  An unterminated
** string, identifier or block comment means "not complete".  text is
** borrowed; NULL is not complete.
*/
bool rsql_sql_complete(const char *text)
{
    bool complete = false;
    if (!text) {
        return false;
    }
    while (*text) {
        int type;
        int n = rsql_sql_get_token(text, &type);
        if (type == RSQL_TK_UNTERMINATED_) {
            return false;
        }
        if (type != RSQL_TK_SPACE_) {
            complete = type == RSQL_TK_SEMI;
        }
        text += n;
    }
    return complete;
}
