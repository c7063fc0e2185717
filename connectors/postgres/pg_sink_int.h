/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_sink_int: private to the postgres sink: its state, shared by the sink's files, each
 * calling only those after it: pg_sink.c (open, close, gathering pipeline batches into
 * transactions, the vtable), pg_copy.c (writing gathered rows: COPY, upsert, finding a failed
 * row), pg_applied.c (the exactly-once record: rocketsql_positions, rocketsql_applied) and
 * pg_conn.c (the sink's connection: connecting again, the tables, the writer lock).
 */
#ifndef RSQL_PG_SINK_INT_H
#define RSQL_PG_SINK_INT_H

#include "connectors/conn_gather.h"
#include "connectors/postgres/pg_int.h"

struct rsql_sink {
    PGconn *conn;
    const rsql_pg_conf_t *conf; /* points at own */
    rsql_pg_conf_t own;         /* a copy of the table's, its strings ours */
    char *pipeline;
    char *table;
    char *copy_sql;   /* COPY t(cols) FROM STDIN */
    char *insert_sql; /* INSERT INTO t(cols) VALUES ($1, ...) [ON CONFLICT ...] */
    char *stage_sql;  /* upsert: CREATE TEMP TABLE rsql_stage ... */
    char *merge_sql;  /* upsert: INSERT INTO t SELECT ... FROM rsql_stage ON CONFLICT ... */
    /* changes (rsql_sink_ctx_t.changelog, with the key): rsql_stage has rsql_del, the rows
       that remove their key. A chunk that deletes any is copied by copy_del_sql (rsql_del
       set), then DELETE FROM t WHERE (k) IN (those keys), then merge_del_sql (the last
       change of each key, when it is an upsert); one that does not takes copy_sql and
       merge_sql as an append does. DELETE FROM t WHERE k = $1 ... for one row. */
    bool changelog;
    char *copy_del_sql, *merge_del_sql, *stage_delete_sql, *delete_sql;
    char *clear_sql; /* DELETE FROM t: a -T row (RSQL_ROW_CLEAR), a transaction of its own */
    int n_key;
    int *key;       /* upsert: key column indexes */
    bool staged;    /* rsql_stage exists on this connection */
    bool checked;   /* the table was created/checked (the stage can be made) */
    bool tolerate_all;     /* errors.tolerance = all */
    rsql_error_t poisoned; /* under 'none': the permanent failure that stops the run */
    char *table_create; /* CREATE TABLE IF NOT EXISTS t(cols) */
    char *pos_create, *pos_upsert, *pos_get, *pos_list; /* on the positions table */
    char *pos_has_key, *pos_add_key, *pos_name;        /* its resume_key column, added */
    char *pos_head, *pos_tail; /* INSERT INTO positions ... VALUES | ON CONFLICT ... (literal) */
    char *app_create, *app_mark, *app_prune;            /* on rocketsql_applied */
    bool by_ident; /* the source keeps its own positions: record identities, not positions */
    int64_t opened_ms, pruned_ms;
    bool *dup; /* per row of a write: already applied (not written again) */
    int dup_cap;
    int n;
    const rsql_type_t *types;
    rsql_buf_t line;
    rsql_sink_result_t *results; /* during rsql_pg__write_rows: the gatherer's, for its rows */
    char *what;                  /* "postgres sink <table>" (messages of the gatherer) */
    /* gathering (connectors/conn_gather.h): the batches accepted and not yet committed */
    rsql_gather_t gather;
};

/*
** pg_conn.c: connect (again) and make sure the positions (and applied) tables exist (at
** open, before the table was checked, the table and its schema too), then take the writer
** lock. On failure k->conn is NULL (the next use connects again), never a connection that
** lacks the lock.
*/
rsql_err_t rsql_pg__sink_connect(rsql_sink_t *k, rsql_error_t *err);

/* pg_conn.c: run sql (no result rows wanted); RSQL_OK or err set, naming what failed. */
rsql_err_t rsql_pg__exec(rsql_sink_t *k, const char *sql, const char *what, rsql_error_t *err);

/*
** pg_copy.c: write rows[0, n) in transactions of at most sink.buffer-flush.max-rows rows,
** each with its exactly-once record (the gatherer's write function, conn_gather.h; opaque is
** the sink). RSQL_OK: results[0, n) hold every row's result (a row that failed permanently,
** or rows not written after a transient failure, say so). Otherwise nothing was committed,
** no result is set, and err says why.
*/
rsql_err_t rsql_pg__write_rows(void *opaque, int n, const rsql_sink_row_t *rows,
                               rsql_sink_result_t *results, rsql_error_t *err);

/* pg_applied.c: head table tail on the heap (NULL when out of memory). */
char *rsql_pg__sql3(const char *head, const char *table, const char *tail);
/* pg_applied.c: store the last offset of each partition among rows[from, to). */
rsql_err_t rsql_pg__store_positions(rsql_sink_t *k, const rsql_sink_row_t *rows, int from,
                                    int to, rsql_error_t *err);
/*
** pg_applied.c: append to q the statement (text, values as literals, then "; ") that stores
** the last offset of each partition among rows[from, to), or nothing when none has one.
** RSQL_OK, or out of memory (err set).
*/
rsql_err_t rsql_pg__positions_sql(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                                  rsql_buf_t *q, rsql_error_t *err);
/*
** pg_applied.c: after a COMMIT whose answer was lost (the connection broke): was it
** committed? Reads the stored positions back on a new connection.
*/
bool rsql_pg__chunk_committed(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to);
/*
** pg_applied.c, own-position sources, inside the chunk's transaction: record the identities
** of rows[from, to) as applied, and set k->dup[i] for each row whose identity was recorded
** before (or earlier in the same rows).
*/
rsql_err_t rsql_pg__mark_applied(rsql_sink_t *k, const rsql_sink_row_t *rows, int from, int to,
                                 rsql_error_t *err);
/* pg_applied.c: delete the applied identities older than the retention (at most 1/min). */
void rsql_pg__prune_applied(rsql_sink_t *k);

#endif
