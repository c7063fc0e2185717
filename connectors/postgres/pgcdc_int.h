/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_int: private to the postgres-cdc connector: its replication connection (pg_repl.c),
 * the tables it reads (pgcdc_tables.c) and its source's vtable (pgcdc_source.c).
 */
#ifndef RSQL_PGCDC_INT_H
#define RSQL_PGCDC_INT_H

#include <libpq-fe.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "connectors/postgres/pgcdc_conf.h"
#include "connectors/postgres/pgoutput.h"
#include "connectors/rsql_io.h"

extern const rsql_source_ops_t rsql_pgcdc_source_ops;

/* ---- the replication connection (pg_repl.c) */

typedef struct rsql_pg_repl {
    PGconn *conn;
    char what[200]; /* "postgres-cdc source orders": errors start with it */
    /* IDENTIFY_SYSTEM */
    char sysid[32];
    char dbname[128];
    rsql_lsn_t xlogpos;
    bool streaming; /* START_REPLICATION answered: CopyBoth */
} rsql_pg_repl_t;

/* What a slot is (pg_replication_slots), or was made as. */
typedef struct rsql_pg_slot {
    bool exists;         /* found (false: created by rsql_pg_repl_slot) */
    bool created;        /* created now */
    char plugin[64];
    rsql_lsn_t confirmed; /* confirmed_flush_lsn (the consistent point when created) */
    char snapshot[64];    /* created with SNAPSHOT 'export': the snapshot's name */
} rsql_pg_slot_t;

/*
** Connect conf's database as a logical replication connection (replication=database) with
** the session settings the decoder reads (ISO dates, UTC, postgres intervals, 3 extra float
** digits, UTF8), then IDENTIFY_SYSTEM. what names the source in errors.
*/
rsql_err_t rsql_pg_repl_connect(rsql_pg_repl_t *r, const rsql_pg_conf_t *conf, const char *what,
                                rsql_error_t *err);
void rsql_pg_repl_close(rsql_pg_repl_t *r);

/* A simple query (no parameters: a replication connection takes none); NULL with err set. */
PGresult *rsql_pg_repl_query(rsql_pg_repl_t *r, const char *sql, const char *doing,
                             rsql_error_t *err);
/* s as an SQL literal appended to b, escaped by the connection's rules. */
rsql_err_t rsql_pg_repl_literal(rsql_pg_repl_t *r, rsql_buf_t *b, const char *s,
                                rsql_error_t *err);

/*
** Look up slot; when missing and create, CREATE_REPLICATION_SLOT ... [TEMPORARY] LOGICAL
** pgoutput with SNAPSHOT 'export' (export) or 'nothing' (a temporary slot is dropped when
** the connection ends). A slot of another plugin, or of another database, or invalidated, is
** an error naming it.
*/
rsql_err_t rsql_pg_repl_slot(rsql_pg_repl_t *r, const char *slot, bool create, bool temporary,
                             bool export, rsql_pg_slot_t *out, rsql_error_t *err);

/*
** START_REPLICATION SLOT slot LOGICAL from (proto_version 1, publication_names pub). A slot
** active for another connection (its walsender still exiting) is BUSY (transient); a slot
** that is gone or invalidated, WAL removed: permanent errors naming the slot.
*/
rsql_err_t rsql_pg_repl_start(rsql_pg_repl_t *r, const char *slot, const char *pub,
                              rsql_lsn_t from, rsql_error_t *err);

/*
** The next CopyData payload: waits up to timeout_ms (poll on the socket and on wake_fd,
** readable = woken; -1: none). Returns its length with *buf (PQfreemem it), 0 on a timeout or
** wake, -1 with err set when the stream ended or failed.
*/
int rsql_pg_repl_recv(rsql_pg_repl_t *r, int timeout_ms, int wake_fd, char **buf,
                      rsql_error_t *err);

/* A Standby Status Update (written, flushed = applied), flushed to the server. */
rsql_err_t rsql_pg_repl_status(rsql_pg_repl_t *r, rsql_lsn_t written, rsql_lsn_t flushed,
                               rsql_error_t *err);

/* ---- the tables (pgcdc_tables.c) */

typedef struct rsql_pgcdc_table {
    uint32_t oid;
    char *schema, *name;
    char *qname; /* "schema"."name", quoted */
    int n_pk;
    char **pk; /* the primary key's columns, in order (none: n_pk 0) */
    char **pg_types; /* per rocketsql column: format_type of the matched column, or NULL
                        (METADATA; or missing under schema-change.mode 'follow') */
} rsql_pgcdc_table_t;

typedef struct rsql_pgcdc_tables {
    int n;
    rsql_pgcdc_table_t *v;
} rsql_pgcdc_tables_t;

/*
** The tables of schema_re and table_re (whole-name regular expressions, PostgreSQL's), each
** with every physical column of the rocketsql table (names[i] for i with meta[i] NULL) of a
** type that converts (else an error naming the column and the table), and their primary
** keys. None matched is an error naming the expressions. Under schema-change.mode 'follow'
** a missing column that is not required[i] is a warning (its pg_types[i] stays NULL: it
** reads as NULL).
*/
rsql_err_t rsql_pgcdc_tables_find(rsql_pg_repl_t *r, const rsql_pgcdc_conf_t *conf, int n,
                                  const char *const *names, const rsql_type_t *types,
                                  const char *const *meta, const bool *required,
                                  rsql_pgcdc_tables_t *out, rsql_error_t *err);
void rsql_pgcdc_tables_free(rsql_pgcdc_tables_t *t);
/* The table of oid, or NULL. */
const rsql_pgcdc_table_t *rsql_pgcdc_tables_get(const rsql_pgcdc_tables_t *t, uint32_t oid);

/*
** The publication conf->publication: created FOR TABLE the tables when missing (a role that
** may not: PERMISSION naming the statement to run); an existing one must publish every
** table (else an error naming the ALTER PUBLICATION to run).
*/
rsql_err_t rsql_pgcdc_publication(rsql_pg_repl_t *r, const rsql_pgcdc_conf_t *conf,
                                  const rsql_pgcdc_tables_t *t, rsql_error_t *err);

/* ---- rows (pgcdc_rows.c) */

/*
** The value of column col in d as a value of type (the rocketsql column's), into *out: the
** conversion of rsql_pgoutput_value, then an integer widened to BIGINT, DOUBLE or DECIMAL,
** and any column's text as VARCHAR. The stream and the snapshot both use it.
*/
rsql_err_t rsql_pgcdc_value(const rsql_pgoutput_col_t *col, const rsql_pgoutput_datum_t *d,
                            rsql_type_t type, rsql_arena_t *arena, rsql_value_t *out,
                            rsql_error_t *err);

/* Do values of PostgreSQL type type_oid convert to type (rsql_pgcdc_value)? */
bool rsql_pgcdc_converts(uint32_t type_oid, rsql_type_t type);

/* rsql_pgcdc_map_t.col of a read column the relation no longer has (schema-change.mode
   'follow': it reads as NULL). */
#define RSQL_PGCDC_COL_GONE (-2)

/* A relation of the stream mapped to the rocketsql columns. */
typedef struct rsql_pgcdc_map {
    uint32_t oid;
    const rsql_pgcdc_table_t *table;
    int *col;           /* per rocketsql column: its index in the relation, -1 = METADATA,
                           RSQL_PGCDC_COL_GONE = dropped (read as NULL) */
    uint32_t *type_oid; /* per rocketsql column: its type's OID (0 = METADATA or gone) */
    int n_pk;
    int *pk; /* the primary key's columns' indexes in the relation (-1: not in it) */
} rsql_pgcdc_map_t;

/* schema-change.mode 'follow': the rocketsql columns' types, and the columns it cannot go
   without (NOT NULL, PRIMARY KEY; NULL: none). */
typedef struct rsql_pgcdc_follow {
    const rsql_type_t *types;
    const bool *required;
} rsql_pgcdc_follow_t;

/*
** (Re)map m to rel, the Relation message of table t: every physical column (names[i] with
** meta[i] NULL) by name. When m was mapped before (a changed definition), a read column
** that is gone or changed its type is RSQL_ERR_SEMANTIC naming the table and the column
** (m is then unchanged); columns the table does not read come and go freely. With follow
** (schema-change.mode 'follow'), a read column gone is RSQL_PGCDC_COL_GONE (a warning;
** still the error for a required one), on a first mapping too (a run started after the
** drop), and a changed type is taken when it converts to follow->types[i]
** (rsql_pgcdc_converts; else the error).
*/
rsql_err_t rsql_pgcdc_map(rsql_pgcdc_map_t *m, const rsql_pgoutput_rel_t *rel,
                          const rsql_pgcdc_table_t *t, int n, const char *const *names,
                          const char *const *meta, const rsql_pgcdc_follow_t *follow,
                          const char *what, rsql_error_t *err);
void rsql_pgcdc_map_free(rsql_pgcdc_map_t *m);

/* Do the old and new rows of an update differ in the key (the primary key, else the
   replica identity's columns)? */
bool rsql_pgcdc_key_changed(const rsql_pgcdc_map_t *m, const rsql_pgoutput_rel_t *rel,
                            const rsql_pgoutput_row_t *old, const rsql_pgoutput_row_t *new_);

/* ---- the snapshot phase (pgcdc_snapsrc.c) */

/* A table's snapshot partition is named RSQL_PGCDC_SNAP_PREFIX "schema.table". */
#define RSQL_PGCDC_SNAP_PREFIX "snapshot:"
/* A table's offset once its snapshot was read to its end. */
#define RSQL_PGCDC_SNAP_DONE INT64_MAX
/* A row's offset in a table whose key is not one integer column, as earlier versions stored
   it (not a resume point: the table is read again). Such rows now count the table's rows
   read (1, 2, ...), with their key as the position's text part (rsql_io_key_text). */
#define RSQL_PGCDC_SNAP_STARTED INT64_MIN

typedef struct rsql_pgcdc_snap rsql_pgcdc_snap_t;

/* Where a table's snapshot stands in this run: the position after the last row given (or
   where it resumed), its text part in key when the table's key is not one integer. */
typedef struct rsql_pgcdc_given {
    bool has;
    int64_t off;
    rsql_buf_t key;
} rsql_pgcdc_given_t;

typedef struct rsql_pgcdc_snapsrc {
    int n_resume; /* the stored positions of snapshot partitions */
    char **resume_names;
    int64_t *resume_offs;
    char **resume_keys;       /* their text parts (NULL: none) */
    struct rsql_pgcdc_given *given; /* per source table: the position after its last row
                                       given in this run (a reopen resumes there) */
    int n_parts;       /* the source's tables: their partition names */
    char **part_names;
    rsql_pgcdc_snap_t *snap; /* while reading */
    int n_tables;            /* in snap */
    rsql_pgcdc_map_t *maps;  /* per table of snap: its columns to the rocketsql columns */
    int *table_of;           /* per table of snap: its index in the source's tables */
    rsql_pgoutput_row_t row; /* the row next gave */
    bool active;             /* opened, rows to read */
    bool broken;             /* a read failed: the next one reopens (a fresh snapshot) */
    bool finished;           /* read to its end in this run: not needed again */
    const rsql_pg_conf_t *pg; /* the connection's options (the source's) */
    const char *what;        /* the source's name for errors (the source's) */
} rsql_pgcdc_snapsrc_t;

/* A row of the snapshot (row NULL: a table's end), with its partition and offset. */
typedef struct rsql_pgcdc_snaprow {
    const rsql_pgcdc_map_t *map;
    const rsql_pgoutput_rel_t *rel;
    const rsql_pgoutput_row_t *row;
    uint32_t partition;
    int64_t offset;
    const char *pos_key; /* the position's text part (a key not one integer), or NULL */
    int n_key;
    const char *const *key;
} rsql_pgcdc_snaprow_t;

/* Zero ss, keeping the stored positions of ctx's snapshot partitions. */
rsql_err_t rsql_pgcdc_snapsrc_init(rsql_pgcdc_snapsrc_t *ss, const rsql_source_ctx_t *ctx,
                                   rsql_error_t *err);
/*
** Does a table of t lack a stored RSQL_PGCDC_SNAP_DONE (its snapshot is to be read)? Never
** once the snapshot was read to its end in this run (a reconnect of the stream).
*/
rsql_err_t rsql_pgcdc_snapsrc_needed(rsql_pgcdc_snapsrc_t *ss, const rsql_pgcdc_tables_t *t,
                                     bool *needed, rsql_error_t *err);
/* The name of snapshot partition partition (1 + a table's index), NULL for others. */
const char *rsql_pgcdc_snapsrc_part(const rsql_pgcdc_snapsrc_t *ss, uint32_t partition);
/*
** Open the snapshot (snapshot_name: the slot's exported one, NULL: a fresh one) on a new
** ordinary connection of conf, with the tables of t not done (after their stored key: an
** integer offset, or the text part of the position), mapping the physical columns
** (names[i], meta[i] NULL) as the stream does.
*/
rsql_err_t rsql_pgcdc_snapsrc_open(rsql_pgcdc_snapsrc_t *ss, const rsql_pgcdc_conf_t *conf,
                                   const rsql_pgcdc_tables_t *t, const char *snapshot_name,
                                   int n, const char *const *names, const char *const *meta,
                                   const rsql_pgcdc_follow_t *follow, const char *what,
                                   rsql_error_t *err);
/*
** The next row or table end into *out, valid until the next call; *done at the end (closed).
** After an error the next call continues on a new connection in a fresh snapshot, after
** the last key given (rsql_pgcdc_snap_reopen).
*/
rsql_err_t rsql_pgcdc_snapsrc_next(rsql_pgcdc_snapsrc_t *ss, rsql_pgcdc_snaprow_t *out,
                                   bool *done, rsql_error_t *err);
/* Close the snapshot; all: free everything (ss zeroed). */
void rsql_pgcdc_snapsrc_close(rsql_pgcdc_snapsrc_t *ss, bool all);

#endif
