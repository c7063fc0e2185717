/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_snapshot: the snapshot of the postgres-cdc source (scan.startup.mode 'initial' and
 * 'snapshot'): the rows of its tables as of one snapshot, read on an ordinary connection
 * (not a replication one) in chunks ordered by each table's primary key.
 *
 *   - Open: the connection gets the stream's session settings (DateStyle ISO, TimeZone UTC,
 *     IntervalStyle postgres, extra_float_digits 3, client_encoding UTF8), so a value's text
 *     is the text the walsender sends for it, and begins `BEGIN ISOLATION LEVEL REPEATABLE
 *     READ, READ ONLY`, then `SET TRANSACTION SNAPSHOT '<name>'` when a snapshot name is
 *     given (the one CREATE_REPLICATION_SLOT ... (SNAPSHOT 'export') answered: the caller
 *     keeps that replication connection idle until open returns), else in a fresh snapshot
 *     of its own (a resume: the exported snapshot died with its connection).
 *   - Tables: each is looked up in the snapshot (its columns' type OIDs and type modifiers,
 *     its PRIMARY KEY). A table without a primary key is an error naming it: the snapshot
 *     reads, and resumes, by key.
 *   - Rows: `SELECT cols..., key... FROM t [WHERE (key...) > ($1...)] ORDER BY key... LIMIT
 *     n`, the key's values bound as text with the key columns' type OIDs (keyset
 *     pagination: each chunk starts after the last key read, and a resume after the last
 *     key written, so committed rows are not read again). Each row comes as a pgoutput Insert
 *     would: an rsql_pgoutput_rel_t (the columns asked for) and an rsql_pgoutput_row_t of
 *     kind +I with text datums, so the caller converts it with rsql_pgoutput_value exactly
 *     as the stream's rows, plus the row's key as text.
 *
 * Pull, not push: rsql_pgcdc_snap_next gives one row at a time and runs a query only when
 * the chunk it holds is used up, so a source's poll calls it on its own thread, no thread
 * of its own.
 *
 * Errors: PostgreSQL's, classed by SQLSTATE (rsql_pg__error: a lost connection is
 * UNAVAILABLE, transient), named "postgres-cdc snapshot of <schema>.<table>: <what>". After
 * an error the snapshot's transaction is gone: call rsql_pgcdc_snap_reopen with a new
 * connection (a fresh snapshot, each table resuming after the last key next gave), or
 * close.
 *
 * Threads: one thread at a time per snapshot.
 */
#ifndef RSQL_PGCDC_SNAPSHOT_H
#define RSQL_PGCDC_SNAPSHOT_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "connectors/postgres/pgoutput.h"

/* scan.snapshot.fetch.size's default: rows per chunk (one query each). */
#define RSQL_PGCDC_SNAP_FETCH_DEFAULT 8192

typedef struct rsql_pgcdc_snap rsql_pgcdc_snap_t;

/*
** Open a snapshot on conn, an ordinary connection (the snapshot owns it from here on, and
** closes it on failure too). snapshot_name: the exported snapshot to read, or NULL for a
** fresh REPEATABLE READ one. fetch_size: rows per chunk (>= 1). Returns NULL with err set:
** a snapshot name that does not exist (any more) is PostgreSQL's "invalid snapshot
** identifier" (permanent: the exporting connection ran a command or closed before).
*/
rsql_pgcdc_snap_t *rsql_pgcdc_snap_open(PGconn *conn, const char *snapshot_name,
                                        int64_t fetch_size, rsql_error_t *err);

/*
** Add table schema.name, read after the tables added before it. cols: the n_cols column
** names to read (n_cols 0: every column, in the table's order); each must exist (NOT_FOUND
** naming the table and the column). resume_key: NULL to read the table from its first
** row, or the text of the key of the last row already written (its n_key values in the
** primary key's order, as next gave them in row.key): the table is read after it.
** resume_done: the table was read to its end before; it gives nothing (not even its end).
** Returns the table's index (0, 1, ...), or -1 with err set (no primary key: BAD_OPTION;
** a resume key of the wrong length: BAD_OPTION; PostgreSQL's errors).
*/
int rsql_pgcdc_snap_add_table(rsql_pgcdc_snap_t *s, const char *schema, const char *name,
                              int n_cols, const char *const *cols, int n_key,
                              const char *const *resume_key, bool resume_done,
                              rsql_error_t *err);

/*
** Read table (an index from rsql_pgcdc_snap_add_table, before next reached it) after key
** (n_key texts in the primary key's order), as add_table's resume_key. BAD_OPTION for a key
** of the wrong length.
*/
rsql_err_t rsql_pgcdc_snap_resume_after(rsql_pgcdc_snap_t *s, int table, int n_key,
                                        const char *const *key, rsql_error_t *err);

/* The table's relation (as rsql_pgcdc_snap_row_t.rel); NULL for a bad index. */
const rsql_pgoutput_rel_t *rsql_pgcdc_snap_rel(const rsql_pgcdc_snap_t *s, int table);

/* What next gives: one row, or the end of a table. */
typedef struct rsql_pgcdc_snap_row {
    int table;                      /* its index (rsql_pgcdc_snap_add_table) */
    const rsql_pgoutput_rel_t *rel; /* the table: nspname, relname, the columns asked for
                                       (their type OIDs and modifiers; KEY flag on the
                                       primary key's); oid is the table's */
    bool table_end; /* no row: the table was read to its end (row.cols NULL; key is the
                       last key it gave, n_key 0 when it gave none) */
    rsql_pgoutput_row_t row; /* kind +I, rel->n_cols datums ('t' text or 'n' NULL) */
    int n_key;               /* the primary key's columns */
    const char *const *key;  /* the row's key, as text, in the primary key's order */
} rsql_pgcdc_snap_row_t;

/*
** The next row of the snapshot into *out, or *done (every table read; the transaction is
** committed and the connection stays open, idle). Runs a query when the chunk at hand is
** used up. What *out points at is valid until the next call on s. Errors: see above.
*/
rsql_err_t rsql_pgcdc_snap_next(rsql_pgcdc_snap_t *s, rsql_pgcdc_snap_row_t *out, bool *done,
                                rsql_error_t *err);

/*
** After an error: continue on conn (owned from here on, as in open) in a fresh REPEATABLE
** READ snapshot, each table after the last key next gave (the rows already given are not
** given again). NULL snapshot name: the exported one cannot be imported again.
*/
rsql_err_t rsql_pgcdc_snap_reopen(rsql_pgcdc_snap_t *s, PGconn *conn, rsql_error_t *err);

/* The table's primary key columns (n_key of them, in the key's order); NULL for a bad index. */
const char *const *rsql_pgcdc_snap_key_names(const rsql_pgcdc_snap_t *s, int table, int *n_key);

/*
** Is the table's key one column of type smallint, integer or bigint? Then its text is an
** int64 (rsql_pgcdc_snap_key_int) and can be a record's offset, which the position model
** (int64 offsets) stores: a resume after the last key written. Other keys cannot be
** offsets: the caller resumes such a table from its start or skips it when done.
*/
bool rsql_pgcdc_snap_int_key(const rsql_pgcdc_snap_t *s, int table);

/* The int64 of an integer key's text (as next gives it); false when txt is not one. */
bool rsql_pgcdc_snap_key_int(const char *txt, int64_t *out);

/* Close: the transaction ends with the connection. NULL is fine. */
void rsql_pgcdc_snap_close(rsql_pgcdc_snap_t *s);

/*
** The chunk query of a table (server-free, for tests): SELECT the n_cols columns then the
** n_key key columns FROM "schema"."table", WHERE (key...) > ($1...) when after, ORDER BY
** the key, LIMIT limit. Identifiers quoted (rsql_buf_quote_ident).
*/
void rsql_pgcdc_snap_sql(rsql_buf_t *b, const char *schema, const char *table, int n_cols,
                         const char *const *cols, int n_key, const char *const *key, bool after,
                         int64_t limit);

#endif
