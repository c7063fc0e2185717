/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * cu_session.h: for unit tests that drive the engine through a session.
 * Include after session/rsql_session.h and sql/rsql_sql.h.
 */
#ifndef RSQL_CU_SESSION_H
#define RSQL_CU_SESSION_H

#include <string.h>

/*
** Run every statement of sql in s, stopping at the first error: RSQL_OK, or
** that error's code with err set (RSQL_ERR_NOMEM when the parser cannot be
** made). Results are discarded.
*/
static inline rsql_err_t cu_exec_all(rsql_session_t *s, const char *sql, rsql_error_t *err)
{
    rsql_error_clear(err);
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_err_t rc = p ? RSQL_OK : rsql_error_nomem(err);
    while (rc == RSQL_OK) {
        rsql_stmt_t *st = NULL;
        rc = rsql_parse_next(p, &st, err);
        if (rc != RSQL_OK || !st) {
            break;
        }
        rsql_result_t *res = NULL;
        rc = rsql_session_exec(s, st, sql, &res, err);
        rsql_result_destroy(res);
    }
    rsql_parse_destroy(p);
    return rc;
}

#endif
