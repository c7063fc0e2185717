/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sqlite_err: SQLite result codes to rsql errors for the sqlite connector
 * (sqlite_int.h). The code says what happened, so the one retriable
 * predicate (rsql_error_retriable) decides from it: a busy or locked
 * database is retried, a CHECK constraint or a missing table is not. The
 * message is always SQLite's own.
 */
#include "config.h"
#include "connectors/sqlite/sqlite_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* See sqlite_int.h. */
rsql_err_t rsql_sqlite__code(int rc, const char *msg, int sys_errno)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_SCHEMA:
    case SQLITE_PROTOCOL: return RSQL_ERR_BUSY;
    case SQLITE_NOMEM: return RSQL_ERR_NOMEM;
    case SQLITE_CONSTRAINT: return RSQL_ERR_CONSTRAINT;
    case SQLITE_MISMATCH: return RSQL_ERR_TYPE;
    case SQLITE_TOOBIG: return RSQL_ERR_TOO_LARGE;
    case SQLITE_FULL: return RSQL_ERR_NO_SPACE;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH: return RSQL_ERR_PERMISSION;
    case SQLITE_INTERRUPT: return RSQL_ERR_INTERRUPTED;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR: return sys_errno ? rsql_err_from_errno(sys_errno) : RSQL_ERR_IO;
    case SQLITE_ERROR:
        if (msg && (strncmp(msg, "no such table", 13) == 0 ||
                    strncmp(msg, "no such column", 14) == 0 ||
                    strstr(msg, "has no column named"))) {
            return RSQL_ERR_NOT_FOUND; /* SQLite has no result code of its own for these */
        }
        return RSQL_ERR_IO;
    default: return RSQL_ERR_IO;
    }
}

/* See sqlite_int.h. */
rsql_err_t rsql_sqlite__error(sqlite3 *db, int rc, const char *msg, rsql_error_t *err,
                              const char *fmt, ...)
{
    if (!msg) {
        msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    }
    rsql_err_t code = rsql_sqlite__code(rc, msg, db ? sqlite3_system_errno(db) : 0);
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return rsql_error_set(err, code, RSQL_NOPOS, "%s: %s", prefix, msg);
}
