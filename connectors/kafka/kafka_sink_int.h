/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * kafka_sink_int: the kafka sink's private types, shared by kafka_sink.c (the producer, rows
 * to records, delivery reports) and kafka_txn.c (exactly-once: transactions and positions).
 */
#ifndef RSQL_KAFKA_SINK_INT_H
#define RSQL_KAFKA_SINK_INT_H

#include <stdatomic.h>

#include "base/rsql_buf.h"
#include "connectors/conn_gather.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/kafka/kafka_conf.h"

/* A stored position: a source partition's name, its offset and its text part (or NULL). */
typedef struct rsql_kafka_pos {
    char *partition;
    int64_t offset;
    char *key;
} rsql_kafka_pos_t;

/* One written batch, until its last record is reported. */
typedef struct pending {
    rsql_sink_t *k;
    uint64_t batch_id;
    int n;
    int left; /* records not reported yet (under k->mu) */
    rsql_sink_result_t *results;
    /* a transaction's rows (kafka_txn.c): when the last is reported, done is set and k->cv
       signalled; its writer owns it and the results */
    bool txn, done;
    bool orphan; /* its writer stopped waiting (results NULL): the last report frees it */
} pending_t;

/* A record's place: its batch and row (the delivery report's opaque). */
typedef struct slot {
    pending_t *p;
    int row;
} slot_t;

struct rsql_sink {
    rsql_kafka_errbox_t box; /* first: the handle's opaque */
    char where[160];         /* "sink table 'out'", for messages */
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    char *topic;
    int n_partitions;
    int partitioner;
    uint32_t next_partition; /* round-robin */
    rsql_encoder_t *enc;     /* the value */
    rsql_encoder_t *key_enc; /* key.fields in key.format, or NULL */
    int n_key;
    int *key_cols;
    rsql_value_t *key_row; /* scratch: one row's key values */
    int n_val;             /* EXCEPT_KEY: the value's columns (val_cols), else 0: all */
    int *val_cols;
    rsql_value_t *val_row; /* scratch: one row's value columns (EXCEPT_KEY) */
    bool upsert;           /* upsert-kafka: -D a tombstone, -U not written */
    int ts_meta;           /* index into the row of the 'timestamp' metadata, or -1 */
    int hdr_meta;          /* of the 'headers' metadata, or -1 */
    rsql_buf_t buf, kbuf;
    rsql_delivery_cb deliver;
    void *deliver_opaque;
    pthread_mutex_t mu;
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    bool closing; /* no delivery is reported any more */
    /* sink.delivery-guarantee 'exactly-once' (kafka_txn.c) */
    bool eos;
    pthread_cond_t cv;       /* a transaction's last record reported */
    rsql_gather_t g;         /* the batches of the next transaction */
    bool g_ready;            /* g is set up */
    rd_kafka_topic_t *pos_rkt; /* sink.positions-topic */
    char *pipeline;          /* the job's positions key */
    int64_t timeout_ms;      /* connect.timeout: transaction calls */
    bool tolerate_all;
    rsql_error_t poisoned;   /* a row failed for good under tolerance none: nothing commits */
    rsql_kafka_pos_t *pos;   /* the positions read back at open, for stored_positions */
    int n_pos;
};

/* ---- kafka_sink.c */

/*
** The pending of n rows whose reports go into results, with its n slots after it (one
** allocation; caller frees it, or its last report does); NULL when out of memory.
*/
pending_t *rsql_kafka__pending_new(rsql_sink_t *k, int n, rsql_sink_result_t *results);
/*
** Encode rows[0, p->n) and hand them to librdkafka, row i's report into p (its slot i); a row
** the format refuses, or librdkafka at once, gets its result now. p holds one count more than
** its rows, dropped by rsql_kafka__release. @locality write thread
*/
void rsql_kafka__put_rows(rsql_sink_t *k, pending_t *p, const rsql_sink_row_t *rows);
/* Drop the writer's own hold on p (the +1 of its count). */
void rsql_kafka__release(pending_t *p);

/* ---- kafka_txn.c */

/*
** sink.delivery-guarantee 'exactly-once', at open once the producer exists (made with
** transactional.id): make the positions topic when missing, fence an earlier run's producer
** (init_transactions, which ends its open transaction) and read back the positions stored for
** this pipeline, read_committed.
*/
rsql_err_t rsql_kafka__txn_open(rsql_sink_t *k, const rsql_sink_ctx_t *ctx,
                                const rsql_kafka_conf_t *c, rsql_error_t *err);
/* The transactional.id of a pipeline (caller frees), or NULL when out of memory. */
char *rsql_kafka__txn_id(const rsql_kafka_conf_t *c, const char *pipeline);
/* The stored positions read at open, each through add (rsql_sink_ops_t.stored_positions). */
rsql_err_t rsql_kafka__txn_positions(rsql_sink_t *k, rsql_position_cb add, void *opaque,
                                     rsql_error_t *err);
/* Free what txn_open made. */
void rsql_kafka__txn_close(rsql_sink_t *k);

#endif
