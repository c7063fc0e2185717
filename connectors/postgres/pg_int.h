/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_int: private to the postgres connector: connecting with the table's options, what a
 * failed libpq call means as an rsql error (pg_conn.c), a table's rows as rsql values
 * (pg_rows.c), and the vtables of the source, sink and lookup.
 */
#ifndef RSQL_PG_INT_H
#define RSQL_PG_INT_H

#include <libpq-fe.h>

#include "base/rsql_error.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "connectors/postgres/pg_conf.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_io.h"

extern const rsql_sink_ops_t rsql_postgres_sink_ops;
extern const rsql_source_ops_t rsql_postgres_source_ops;
extern const rsql_lookup_ops_t rsql_postgres_lookup_ops;

/*
** Can a PostgreSQL column of type pg (format_type's text, "integer", "character varying(20)")
** take values of t when written (reading = false), or give values of t when read (true)?
*/
bool rsql_pg__type_fits(rsql_type_t t, const char *pg, bool reading);

/*
** The rsql code of a PostgreSQL SQLSTATE (5 characters; NULL or "" when the server sent none,
** e.g. the connection is gone). Permanent: class 23 (integrity constraint: CONSTRAINT), 22
** (data exception: TYPE), 42501 and class 28 (PERMISSION), 42P01/42703 (NOT_FOUND), 53100
** (NO_SPACE). Transient: 40001 serialization failure and 40P01 deadlock (BUSY), class 53
** otherwise (BUSY), class 08 and 57P01-57P03 (UNAVAILABLE); no SQLSTATE on a connection that
** is bad: UNAVAILABLE. Anything else: REMOTE (permanent).
*/
rsql_err_t rsql_pg__code(const char *sqlstate, bool conn_bad);

/*
** Set err (first error wins) from a failed result res (may be NULL) on conn: the code from
** rsql_pg__code and the message "<prefix>: <PostgreSQL's own message> (SQLSTATE xxxxx)".
** Returns the code.
*/
rsql_err_t rsql_pg__error(PGconn *conn, const PGresult *res, rsql_error_t *err, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5)));

/*
** Connect with conf's url (libpq's expand_dbname: the url is a full connection string), and
** username, password and sslmode where set: they override the url's; what the url sets
** overrides our defaults (application_name rocketsql, connect_timeout 10 s). Returns the
** connection, or NULL with err set (UNAVAILABLE when the server cannot be reached,
** PERMISSION when authentication failed), naming what; the passwords are masked in libpq's
** message.
*/
PGconn *rsql_pg__connect(const rsql_pg_conf_t *conf, const char *what, rsql_error_t *err);

/*
** rsql_pg__connect with extra connection keywords (NULL-terminated xkeys, and xvals beside
** them; at most 8) after the user's: `replication` and `options` for a replication
** connection. Such a connection gets no session SET after connecting (its `options` hold
** the session settings).
*/
PGconn *rsql_pg__connect_ex(const rsql_pg_conf_t *conf, const char *what,
                            const char *const *xkeys, const char *const *xvals,
                            rsql_error_t *err);

/* Append name to b as a quoted identifier; "s.t" becomes "s"."t". */
void rsql_pg__quote_table(rsql_buf_t *b, const char *name);

/* ---- reading a table's rows (pg_rows.c) */

/* The columns a reader selects, and how their text becomes values. */
typedef struct rsql_pg_rows {
    int n;
    char **names; /* owned copies */
    rsql_type_t *types;
    rsql_decoder_t *dec; /* ROW/ARRAY/MAP columns: the json decoder of their object */
    int n_nested;
    int *nested; /* nested[j] = the column of the decoder's column j */
    rsql_value_t *nested_row;
} rsql_pg_rows_t;

/*
** Set rr up for n columns (names, types; descs[i] the full type of a ROW/ARRAY/MAP column,
** which must be given for those). what names the reader in messages. On failure rr is empty
** and err set.
*/
rsql_err_t rsql_pg__rows_init(rsql_pg_rows_t *rr, int n, const char *const *names,
                              const rsql_type_t *types, const rsql_tdesc_t *const *descs,
                              const char *what, rsql_error_t *err);
void rsql_pg__rows_deinit(rsql_pg_rows_t *rr);

/*
** Append the select list of rr's columns to b: each column's text expression AS rsql_c<i>,
** then, when there are ROW/ARRAY/MAP columns, their JSON object AS rsql_nested; ", "
** between, none after. Returns the number of result columns it makes.
*/
int rsql_pg__rows_select(const rsql_pg_rows_t *rr, rsql_buf_t *b);

/*
** Row t of r (its first columns those of rsql_pg__rows_select) into row (rr->n values;
** strings and nested values in arena). bad must be clear: a value that does not parse sets
** it (RSQL_ERR_DECODE, naming the column) and is returned; so is RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_pg__rows_convert(rsql_pg_rows_t *rr, const PGresult *r, int t,
                                 rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *bad);

/*
** The table's columns on conn: every one of rr's present, of a type that converts
** (rsql_pg__type_fits, reading), and inc_column (when not NULL) an integer; else NOT_FOUND or
** TYPE naming the column, after what ("<what>: the table has no column 'x'"). With
** base_types, *base_types gets each of rr's columns' type without modifiers (regtype:
** "character varying", "timestamp without time zone"; the caller frees each and the array).
*/
rsql_err_t rsql_pg__check_columns(PGconn *conn, const char *table, const rsql_pg_rows_t *rr,
                                  const char *inc_column, const char *what, char ***base_types,
                                  rsql_error_t *err);

#endif
