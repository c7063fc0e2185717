/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sqlite_int: private to the sqlite connector (sqlite_source.c, sqlite_sink.c,
 * sqlite_lookup.c): what a failed SQLite call means as an rsql error (sqlite_err.c), rsql
 * values to and from SQLite's (sqlite_values.c).
 */
#ifndef RSQL_SQLITE_INT_H
#define RSQL_SQLITE_INT_H

#include <sqlite3.h>

#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

/*
** The rsql code of a failed SQLite call: rc (primary or extended result code), with the
** connection's message msg and the OS errno sys_errno (sqlite3_system_errno, 0 when none)
** for the cases they decide. Transient: SQLITE_BUSY, SQLITE_LOCKED, SQLITE_SCHEMA,
** SQLITE_PROTOCOL (BUSY). Permanent: SQLITE_CONSTRAINT (CONSTRAINT), SQLITE_MISMATCH (TYPE),
** SQLITE_TOOBIG (TOO_LARGE), SQLITE_FULL (NO_SPACE), SQLITE_PERM/READONLY/AUTH (PERMISSION),
** SQLITE_NOMEM (NOMEM), SQLITE_INTERRUPT (INTERRUPTED), SQLITE_ERROR for a missing table or
** column (NOT_FOUND); SQLITE_CANTOPEN and SQLITE_IOERR by their errno (rsql_err_from_errno:
** ENOENT -> NOT_FOUND, EACCES -> PERMISSION, ENOSPC -> NO_SPACE, ...); the rest IO.
*/
rsql_err_t rsql_sqlite__code(int rc, const char *msg, int sys_errno);

/*
** Set err (first error wins) from a failed call on db with result rc: the code from
** rsql_sqlite__code and the message "<prefix>: <SQLite's own message>", where the message is
** msg when given (captured before a later call replaced it, e.g. by a ROLLBACK), else
** sqlite3_errmsg(db) (sqlite3_errstr(rc) when db is NULL). Returns the code.
*/
rsql_err_t rsql_sqlite__error(sqlite3 *db, int rc, const char *msg, rsql_error_t *err,
                              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
** Column k (0-based, as sqlite3_column_*) of st's current row as a value v of type t (a
** DECIMAL at the text's own scale: the runtime brings it to the column's), strings copied
** into arena. A SQLite value that does not convert without loss is RSQL_ERR_DECODE, naming
** the column ("column 'x': expected INT, got TEXT \"abc\""); out of memory RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_sqlite__column_value(sqlite3_stmt *st, int k, rsql_type_t t, const char *name,
                                     rsql_arena_t *arena, rsql_value_t *v, rsql_error_t *err);

/*
** Bind v to parameter p (1-based) of st, as the sink stores it: BOOLEAN, INT, BIGINT as
** INTEGER, DOUBLE as REAL, BYTES as a BLOB, the rest as their text (TIMESTAMP
** "YYYY-MM-DD HH:MM:SS.mmm", DECIMAL's exact digits, DATE, ROW/ARRAY/MAP as JSON); NULL as
** NULL. Strings and bytes are bound SQLITE_STATIC: v's must outlive the statement's step.
** Returns SQLite's result code.
*/
int rsql_sqlite__bind_value(sqlite3_stmt *st, int p, const rsql_value_t *v);

#endif
