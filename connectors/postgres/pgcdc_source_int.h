/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_source_int: private to the postgres-cdc source: its state, shared by its lifecycle
 * (pgcdc_source.c: open, start, poll, status, positions) and the change messages made records
 * (pgcdc_changes.c). Included by those two files only.
 */
#ifndef RSQL_PGCDC_SOURCE_INT_H
#define RSQL_PGCDC_SOURCE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connectors/postgres/pg_int.h"
#include "connectors/postgres/pgcdc_int.h"

struct rsql_source {
    rsql_pgcdc_conf_t conf; /* the strings below are copies */
    char what[200];
    int n;
    char **names;
    rsql_type_t *types;
    char **meta; /* per column: METADATA key, "" not read, NULL physical; NULL = none */
    bool *required; /* per column: NOT NULL or PRIMARY KEY (never read as NULL) */
    rsql_pgcdc_follow_t follow; /* schema-change.mode 'follow': types and required */
    bool preview;
    rsql_pgcdc_tables_t tables;
    bool tables_ready;
    rsql_pg_repl_t repl;
    rsql_pgoutput_t *dec;
    rsql_pgcdc_map_t *maps;
    int n_maps;
    /* positions */
    rsql_lsn_t resume;   /* the stored position (0: none) */
    bool has_resume;
    rsql_lsn_t last_end; /* end of the last transaction delivered: the rows' offset */
    rsql_lsn_t received; /* for the status update's written LSN */
    rsql_lsn_t start_confirmed; /* the slot's confirmed position when started */
    atomic_uint_least64_t confirmed; /* committed by the runtime */
    /* last_end and received as of the end of the last poll, for describe (worker thread) */
    atomic_uint_least64_t shown_read, shown_server;
    int64_t last_status_ms, last_activity_ms;
    rsql_lsn_t idle_lsn; /* the last keepalive's position, outside a transaction */
    /* the transaction being read */
    bool in_txn, skip_txn;
    rsql_lsn_t txn_commit;
    uint32_t txn_xid;
    int64_t txn_time_us;
    int txn_rows;    /* rows of it delivered */
    int txn_last;    /* index in this poll's batch of its last record, -1 none */
    rsql_lsn_t pending_marker; /* a row-less record still to add (no room), 0 none */
    /* transaction.atomic: the change message whose rows a poll ended on inside an open
       transaction, taken back from its batch and read again at the next poll (so the row that
       ends a transaction is always in the batch of its commit); NULL none */
    char *redo_buf;
    const uint8_t *redo_msg;
    size_t redo_len;
    int redo_rows; /* txn_rows before it */
    rsql_error_t pending; /* an error to report at the next poll (rows went first) */
    int wake[2];
    /* the snapshot (scan.startup.mode 'initial' and 'snapshot', pgcdc_snapsrc.c) */
    rsql_pgcdc_snapsrc_t ss;
    bool slot_ready;     /* slot made or found on repl, not started: the snapshot runs */
    rsql_pg_slot_t slot; /* what it is */
    bool snap_over;      /* 'snapshot': read to its end */
};

/* What rsql_pgcdc_map follows: NULL under schema-change.mode 'fail'. */
static inline const rsql_pgcdc_follow_t *rsql_pgcdc__follow_of(const rsql_source_t *s)
{
    return s->conf.schema_change == RSQL_PGCDC_SCHEMA_FOLLOW ? &s->follow : NULL;
}

/* ---- pgcdc_changes.c (poll thread) */

/*
** One pgoutput message of the stream: Begin/Commit move the transaction and the positions,
** Relation maps a table, Insert/Update/Delete/Truncate add their records to batch.
*/
rsql_err_t rsql_pgcdc__on_message(rsql_source_t *s, rsql_batch_t *batch, const uint8_t *msg,
                                  size_t len, rsql_error_t *err);

/*
** One row of table map m as a record of kind (a snapshot row too); a value that does not
** convert, or an unchanged TOASTed value of a read column, is the record's error.
*/
rsql_err_t rsql_pgcdc__add_row(rsql_source_t *s, rsql_batch_t *batch, const rsql_pgcdc_map_t *m,
                               const rsql_pgoutput_rel_t *rel, const rsql_pgoutput_row_t *row,
                               int kind, rsql_error_t *err);

/* A row-less record carrying offset (done as filtered); kept pending when batch is full. */
rsql_err_t rsql_pgcdc__add_marker(rsql_source_t *s, rsql_batch_t *batch, rsql_lsn_t offset,
                                  rsql_error_t *err);

#endif
