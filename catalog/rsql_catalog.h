/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_catalog: the SQLite catalog and state database: tables (columns,
 * types, options as written), jobs (statement text + settings captured at
 * CREATE JOB), job runs (counts, status, error), and source offsets.
 *
 * Threads: one rsql_catalog_t is one SQLite connection: use it from one
 * thread at a time (each thread that needs the catalog, e.g. a pipeline
 * worker flushing offsets, opens its own with rsql_catalog_open). Never share
 * a connection across fork(): the child opens its own.
 *
 * Processes: WAL mode and a busy timeout (5 s) let several processes and
 * connections share one file; writers take the write lock up front (BEGIN
 * IMMEDIATE) and wait for each other. A lock still held after the timeout
 * is RSQL_ERR_BUSY (retriable).
 *
 * Durability: synchronous=NORMAL in WAL mode. A committed write survives a
 * crash or kill -9 of the process (it is in the WAL file, which the next
 * open replays); only an OS crash or power loss can lose the last commits,
 * never corrupt the file. Offsets are therefore at worst a little behind
 * after a power loss, which at-least-once delivery tolerates.
 *
 * The file (and its -wal/-shm files, which SQLite creates with the same
 * mode) is created with mode 0600. The schema is versioned with PRAGMA
 * user_version (catalog_migrate.c); a catalog written by a newer build is
 * refused. ":memory:" opens a private in-memory catalog (tests).
 * Names (tables, jobs) are case-insensitive, stored as written.
 * Errors carry no position (RSQL_NOPOS): callers re-position them.
 */
#ifndef RSQL_CATALOG_H
#define RSQL_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_error.h"
#include "base/rsql_types.h"

typedef struct rsql_catalog rsql_catalog_t;

typedef struct rsql_kv {
    char *key;
    char *value;
} rsql_kv_t;

typedef struct rsql_col {
    char *name;
    rsql_type_t type;
    bool not_null;
    const rsql_tdesc_t *desc; /* DECIMAL/DATE/ROW/ARRAY/MAP: the interned full type; else NULL */
    /* A METADATA column (CREATE TABLE ... METADATA [FROM 'key'] [VIRTUAL]). */
    bool metadata;
    char *meta_from; /* FROM 'key' as written; NULL = the key is the column's name */
    bool is_virtual;
    int pk_ord; /* position in PRIMARY KEY (...) NOT ENFORCED, from 1; 0 = not in the key */
    /* A computed column (name AS expr): the expression as written, over the table's other
       columns; type is the expression's. NULL for any other column. */
    char *expr;
    /* WATERMARK FOR this column AS expr: the expression as written when the column is the
       table's event-time column (one at most), else NULL. Nothing generates watermarks yet. */
    char *watermark;
} rsql_col_t;

/* The metadata key of a METADATA column (FROM 'key', else its name); NULL for a physical one. */
const char *rsql_col_meta_key(const rsql_col_t *col);

/* A table as stored. All strings owned by the struct (rsql_table_def_free). */
typedef struct rsql_table_def {
    char *name;
    char *connector;
    int n_columns;
    rsql_col_t *columns;
    int n_options;
    rsql_kv_t *options; /* as written, in order, 'connector' included */
    int64_t created_ms;
} rsql_table_def_t;

typedef struct rsql_job_def {
    char *name;
    char *sql; /* the INSERT statement text */
    int n_settings;
    rsql_kv_t *settings; /* session settings captured at CREATE JOB */
    int64_t created_ms;
} rsql_job_def_t;

typedef struct rsql_job_counts {
    int64_t read, written, filtered, dead_lettered, failed;
} rsql_job_counts_t;

typedef struct rsql_job_run {
    int64_t id;
    char *job; /* job name, or NULL for an ad-hoc INSERT */
    char *sql;
    int64_t start_ms, end_ms; /* end 0 while running */
    char *status;             /* running, done, failed, interrupted; stop, start, restart:
                                 an operator action (rsql_catalog_run_action) */
    rsql_job_counts_t counts;
    char *error;  /* NULL when none */
    char *detail; /* JSON with per-connector detail (e.g. busiest lite topics), or NULL */
    char *resumed_from; /* the saved positions the run resumed from, NULL = from the start */
} rsql_job_run_t;

/*
** Open (creating when missing, mode 0600) and migrate the catalog at path.
** NULL with err set (RSQL_ERR_CATALOG / RSQL_ERR_IO) on failure.
*/
rsql_catalog_t *rsql_catalog_open(const char *path, rsql_error_t *err);
void rsql_catalog_close(rsql_catalog_t *cat);
const char *rsql_catalog_path(const rsql_catalog_t *cat);
/* The catalog path from --catalog (may be NULL), else $ROCKETSQL_CATALOG, else ./rocketsql.db. */
const char *rsql_catalog_default_path(const char *flag);

/* ---- tables */
/* Stores def. RSQL_ERR_EXISTS when a table of that name exists (OK if if_not_exists). */
rsql_err_t rsql_catalog_table_create(rsql_catalog_t *cat, const rsql_table_def_t *def,
                                     bool if_not_exists, rsql_error_t *err);
/* *out = new copy (caller frees with rsql_table_def_free), or NULL when not found (still RSQL_OK). */
/*
** Replace the table named def->name by def (one write transaction), keeping what belongs to
** the table as created: the positions saved for it stay its own (DROP TABLE and CREATE TABLE
** make a new table). RSQL_ERR_UNKNOWN_NAME when there is none.
*/
rsql_err_t rsql_catalog_table_replace(rsql_catalog_t *cat, const rsql_table_def_t *def,
                                      rsql_error_t *err);
rsql_err_t rsql_catalog_table_get(rsql_catalog_t *cat, const char *name, rsql_table_def_t **out,
                                  rsql_error_t *err);
/* *dropped = whether it existed. */
rsql_err_t rsql_catalog_table_drop(rsql_catalog_t *cat, const char *name, bool *dropped,
                                   rsql_error_t *err);
/* Names sorted case-insensitively; *names is a heap array of heap strings (rsql_strv_free). */
rsql_err_t rsql_catalog_table_list(rsql_catalog_t *cat, char ***names, int *n, rsql_error_t *err);
void rsql_table_def_free(rsql_table_def_t *def);

/* ---- jobs */
rsql_err_t rsql_catalog_job_create(rsql_catalog_t *cat, const rsql_job_def_t *def,
                                   bool if_not_exists, rsql_error_t *err);
rsql_err_t rsql_catalog_job_get(rsql_catalog_t *cat, const char *name, rsql_job_def_t **out,
                                rsql_error_t *err);
rsql_err_t rsql_catalog_job_drop(rsql_catalog_t *cat, const char *name, bool *dropped,
                                 rsql_error_t *err);
rsql_err_t rsql_catalog_job_list(rsql_catalog_t *cat, rsql_job_def_t ***jobs, int *n,
                                 rsql_error_t *err);
void rsql_job_def_free(rsql_job_def_t *def);

/* ---- job runs */
/* A new run in state "running"; *run_id set. job may be NULL (ad-hoc INSERT). */
rsql_err_t rsql_catalog_run_begin(rsql_catalog_t *cat, const char *job, const char *sql,
                                  int64_t *run_id, rsql_error_t *err);
/* Update counts (and detail JSON, may be NULL) while running. */
rsql_err_t rsql_catalog_run_progress(rsql_catalog_t *cat, int64_t run_id,
                                     const rsql_job_counts_t *counts, const char *detail,
                                     rsql_error_t *err);
/* Final state: status "done" | "failed" | "interrupted"; error may be NULL. (Rows of status
   "stop", "start", "restart" are operator actions: rsql_catalog_run_action.) */
rsql_err_t rsql_catalog_run_end(rsql_catalog_t *cat, int64_t run_id, const char *status,
                                const rsql_job_counts_t *counts, const char *error,
                                const char *detail, rsql_error_t *err);
/*
** Record what an operator did to a served job (action "stop", "start" or "restart", through
** serve's control API) as a row of its runs, ended when begun; detail: JSON of who asked.
*/
rsql_err_t rsql_catalog_run_action(rsql_catalog_t *cat, const char *job, const char *action,
                                   const char *detail, rsql_error_t *err);
/* Where run_id resumed: the saved positions it started from, as text (copied). */
rsql_err_t rsql_catalog_run_resumed(rsql_catalog_t *cat, int64_t run_id, const char *from,
                                    rsql_error_t *err);
/* Runs, newest first; job NULL = all. limit <= 0 = all. */
rsql_err_t rsql_catalog_run_list(rsql_catalog_t *cat, const char *job, int limit,
                                 rsql_job_run_t ***runs, int *n, rsql_error_t *err);
void rsql_job_run_free(rsql_job_run_t *run);

/* ---- source offsets: an opaque text position per (pipeline, partition) */
/* Insert or overwrite, committed on return (unless inside rsql_catalog_begin); NULL deletes. */
rsql_err_t rsql_catalog_offset_put(rsql_catalog_t *cat, const char *pipeline,
                                   const char *partition, const char *value, rsql_error_t *err);

/* Frees a heap array of heap strings. */
void rsql_strv_free(char **v, int n);

/* ---- additions (catalog module) */

/*
** Group several writes in one transaction: begin takes the write lock
** (BEGIN IMMEDIATE, waiting up to the busy timeout); every catalog call made
** before commit/rollback joins it (each call nests as a savepoint, so a
** failed call undoes only its own rows). begin while one is open is
** RSQL_ERR_INTERNAL.
*/
rsql_err_t rsql_catalog_begin(rsql_catalog_t *cat, rsql_error_t *err);
rsql_err_t rsql_catalog_commit(rsql_catalog_t *cat, rsql_error_t *err);
/* Rolls back the open transaction; a no-op (RSQL_OK) when none is open. */
rsql_err_t rsql_catalog_rollback(rsql_catalog_t *cat, rsql_error_t *err);

/* How long a call waits for another connection's lock (default 5000 ms). */
void rsql_catalog_set_busy_timeout(rsql_catalog_t *cat, int timeout_ms);


/*
** All offsets of a pipeline, sorted by partition: *out is a heap array of n
** pairs {key = partition, value} (rsql_kv_array_free); NULL and 0 when none.
*/
rsql_err_t rsql_catalog_offset_list(rsql_catalog_t *cat, const char *pipeline, rsql_kv_t **out,
                                    int *n, rsql_error_t *err);
/*
** Forget offsets: one partition, or every partition of the pipeline when
** partition is NULL. *deleted (may be NULL) = rows removed.
*/
rsql_err_t rsql_catalog_offset_delete(rsql_catalog_t *cat, const char *pipeline,
                                      const char *partition, int *deleted, rsql_error_t *err);

/* ---- state of stateful statements (state_kv.c): bytes by key, per pipeline key */

/* One change of state: key's value (value NULL: the key is forgotten). */
typedef struct rsql_state_change {
    const void *key;
    size_t key_len;
    const void *value;
    size_t value_len;
    int64_t written_ms;
} rsql_state_change_t;
/*
** Write n changes of pipeline's state (inside the caller's rsql_catalog_begin, so that they
** are committed with the positions they go with) and forget the entries written before
** expire_before_ms (0: none).
*/
rsql_err_t rsql_catalog_state_write(rsql_catalog_t *cat, const char *pipeline, int n,
                                    const rsql_state_change_t *changes, int64_t expire_before_ms,
                                    rsql_error_t *err);
/* Every entry of pipeline written at or after since_ms, through cb (a non-OK return stops). */
typedef rsql_err_t (*rsql_state_entry_cb)(void *opaque, const void *key, size_t key_len,
                                          const void *value, size_t value_len,
                                          int64_t written_ms);
rsql_err_t rsql_catalog_state_load(rsql_catalog_t *cat, const char *pipeline, int64_t since_ms,
                                   rsql_state_entry_cb cb, void *opaque, rsql_error_t *err);
/*
** A reader of pipeline's state on a connection of its own (for a thread other than cat's):
** *any says whether pipeline has state at all; *out is NULL (RSQL_OK) for a catalog in memory,
** which no other connection sees.
*/
typedef struct rsql_state_reader rsql_state_reader_t;
rsql_err_t rsql_catalog_state_reader(rsql_catalog_t *cat, const char *pipeline,
                                     rsql_state_reader_t **out, bool *any, rsql_error_t *err);
/* key's entry written at or after since_ms, through cb, *found set; as committed last. */
rsql_err_t rsql_state_reader_get(rsql_state_reader_t *r, const void *key, size_t key_len,
                                 int64_t since_ms, rsql_state_entry_cb cb, void *opaque,
                                 bool *found, rsql_error_t *err);
void rsql_state_reader_close(rsql_state_reader_t *r);

/*
** The key the positions of pipeline base (a job's name, "insert:<source>-><sink>") are kept
** under, in the catalog and in an exactly-once sink: positions belong to the tables as
** created, so the key names the uid of the source and the sink table (given at CREATE
** TABLE; "@<source uid>.<sink uid>", "-" for one created before uids or missing) and how
** often base's positions were forgotten ("~<n>", rsql_catalog_positions_forget). *key is a
** heap string owned by the caller (rsql_free).
** *shared (when not NULL) is the key an exactly-once sink stores its positions and applied
** message ids under: base and "~<n>" without the uids, so that every catalog built from the
** same script (the processes of a fleet, a catalog rebuilt after a loss, a script that drops
** and re-creates its tables) finds what the sink committed and never writes it again; the
** sink's own rows, not the catalog, say what is there.
*/
rsql_err_t rsql_catalog_position_key(rsql_catalog_t *cat, const char *base, const char *source,
                                     const char *sink, char **key, char **shared,
                                     rsql_error_t *err);
/*
** Forget every position of pipeline base (any key of it, its dead-letter sink's included,
** case-insensitively): deleted from the catalog, and base's key changes, so what a sink
** keeps under the old key is not read again. *forgotten = catalog rows removed.
*/
rsql_err_t rsql_catalog_positions_forget(rsql_catalog_t *cat, const char *base, int *forgotten,
                                         rsql_error_t *err);

/*
** What run_id may leave invisible to later runs that share key (a RocketMQ consumer group: its
** held messages come back only after their invisible duration): key (NULL = keep the one
** stored) and the wall-clock time (epoch ms) until which they may stay invisible. Called when
** the run begins, with each progress and at its end.
*/
rsql_err_t rsql_catalog_run_hold(rsql_catalog_t *cat, int64_t run_id, const char *key,
                                 int64_t hold_until_ms, rsql_error_t *err);
/*
** The newest run with hold key key other than exclude_run_id that is not running: *found,
** its id, status (caller frees with rsql_free) and hold-until time. Runs of this host whose
** process died are marked interrupted first. *found = false (RSQL_OK) when there is none.
*/
rsql_err_t rsql_catalog_run_hold_last(rsql_catalog_t *cat, const char *key,
                                      int64_t exclude_run_id, bool *found, int64_t *run_id,
                                      char **status, int64_t *hold_until_ms, rsql_error_t *err);

/* Free the arrays the list calls return (each element, then the array). NULL-safe. */
void rsql_kv_array_free(rsql_kv_t *kv, int n);
void rsql_job_def_array_free(rsql_job_def_t **jobs, int n);
void rsql_job_run_array_free(rsql_job_run_t **runs, int n);

#endif
