/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * kafka_source_int: what the kafka source's two files share. kafka_source.c opens the
 * consumer, reads records and turns them into the engine's records; kafka_group.c is the
 * consumer group side: the commits of the job's positions to the group, and (group mode) the
 * subscription and its rebalances.
 *
 * Two modes. Assign mode (no properties.group.id, a bounded read, or a preview): the source
 * is assigned every partition of its topics and owns them all for the whole run. Group mode
 * (properties.group.id, unbounded, not a preview): the source subscribes to its topics in the
 * group, and the group's assignor (cooperative-sticky unless
 * properties.partition.assignment.strategy says otherwise) gives it a share of the partitions,
 * which changes at each rebalance.
 */
#ifndef RSQL_KAFKA_SOURCE_INT_H
#define RSQL_KAFKA_SOURCE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connectors/kafka/kafka_conf.h"

/*
** One partition of the source's topics: a lane of the engine's tracker (its index in lanes).
** Every partition the topics had at the start is a lane, owned or not; in group mode a
** partition added to a topic while the job runs becomes one when the group assigns it
** (rsql_kafka__lane_add: lanes has room for RSQL_KAFKA_MORE_LANES of them, so lanes never
** moves and other threads may index it up to n_lanes).
*/
typedef struct lane {
    char *topic;
    int32_t partition;
    char *name;      /* "topic/partition" */
    int64_t start;   /* the offset (or RD_KAFKA_OFFSET_*) scan.startup.mode gives it */
    int64_t resume;  /* its position in the sink or the catalog at the start (-1: none) */
    int64_t high;    /* scan.bounded.mode latest-offset: where it stops */
    bool done;       /* read up to high (bounded) */
    atomic_bool owned; /* assigned to this consumer now (always, in assign mode); set on the
                          poll thread, read by describe on the worker */
    int64_t polled;  /* the position after the last record handed on since it was assigned
                        (-1: none) @locality poll thread */
    int64_t next;    /* the lowest offset it may hand on next (-1: any): a record below it
                        was fetched for an earlier assignment, or handed on already
                        @locality poll thread */
    atomic_int_least64_t committed; /* the job's last commit of it (-1: none yet) */
    atomic_bool dirty;              /* committed not yet (or not successfully) sent to the group */
    int64_t acked;                  /* the last offset the group confirmed (-1: none) */
    atomic_int_least64_t shown;     /* the offset after the last record handed on (-1: none
                                       yet), for the backlog describe shows */
} lane_t;

/* The metadata columns a statement reads (-1: not read) and their types. */
enum { M_TOPIC, M_PARTITION, M_OFFSET, M_TIMESTAMP, M_TSTYPE, M_HEADERS, M_LEADER_EPOCH,
       M_COUNT };

/* value.fields-include 'EXCEPT_KEY', upsert-kafka: a record's row from its key and its value
   (kafka_rows.c) */
typedef struct rsql_kafka_rowdec rsql_kafka_rowdec_t;
/* Decoders of the key's columns and of the others, from the table; NULL with err set. */
rsql_kafka_rowdec_t *rsql_kafka__rowdec_new(const rsql_source_ctx_t *ctx,
                                            const rsql_kafka_conf_t *c, rsql_error_t *err);
void rsql_kafka__rowdec_destroy(rsql_kafka_rowdec_t *d); /* NULL-safe */
/*
** r->row (in the batch arena) from key (key_len bytes; NULL: no key, its columns NULL) and
** r->raw, the metadata from r->meta; without r->raw (upsert-kafka's tombstone) the key's
** delete (r->kind), and with neither no row (r->n_rows -1). A key or value that does not
** decode sets r->error instead (RSQL_OK: the record goes on, bad). An error return is out of
** memory only.
** @locality poll thread
*/
rsql_err_t rsql_kafka__rowdec_decode(rsql_kafka_rowdec_t *d, rsql_batch_t *b, rsql_record_t *r,
                                     const void *key, size_t key_len, rsql_error_t *err);

struct rsql_source {
    rsql_kafka_errbox_t box; /* first: the handle's opaque */
    char where[160];         /* "source table 'orders'", for messages */
    char group[256];         /* the consumer group (given, or the source's private one) */
    rd_kafka_t *rk;
    rd_kafka_queue_t *q;
    bool commit;     /* properties.group.id given: commit what the job commits */
    bool group_mode; /* subscribed in the group (else every partition is assigned) */
    bool bounded;
    lane_t *lanes;
    atomic_int n_lanes; /* grows on the poll thread only (group mode), read anywhere */
    int lanes_cap;
    int n_columns;
    int meta_col[M_COUNT];
    rsql_type_t meta_type[M_COUNT];
    bool has_meta;
    rsql_kafka_rowdec_t *rowdec; /* EXCEPT_KEY, upsert-kafka: rows made here, else NULL */
    bool upsert;                 /* upsert-kafka: a tombstone deletes its key */
    rd_kafka_message_t **msgs;
    int msgs_cap;
    int64_t commit_at_ms; /* when the poll thread sends the group its next commit */
    int64_t resend_at_ms; /* when it sends again what the group has not confirmed */
    /* a revoke waits for the job's commits of what it handed on (ks_committed signals) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_bool stopping; /* the run stops (wakeup): a revoke waits no more */
    bool closing;         /* close: the partitions are given up without waiting */
};

/* How often at most the poll thread commits the job's positions to the group, and how often
   it sends again those the group has not confirmed (a commit librdkafka held while it had no
   coordinator may never be answered). */
#define KAFKA_GROUP_COMMIT_MS 200
#define KAFKA_GROUP_RESEND_MS 2000
/* The pause before a synchronous commit the group refused is sent again */
#define KAFKA_COMMIT_RETRY_MS 200
/* How long a revoke waits at most for the records of its partitions still on their way */
#define KAFKA_REVOKE_DRAIN_MS 30000

/* How many partitions added while a group job runs it can take (lanes' room). */
#define RSQL_KAFKA_MORE_LANES 256

/*
** A new lane for (topic, partition) at lanes[n_lanes] (its fields set, then n_lanes grown);
** owned starts as given. Its index, or -1 when lanes has no room or out of memory.
** @locality open, then the poll thread
*/
int rsql_kafka__lane_add(rsql_source_t *s, const char *topic, int32_t partition, bool owned);

/* The lane of (topic, partition), or -1. */
int rsql_kafka__lane_of(const rsql_source_t *s, const char *topic, int32_t partition);

/*
** Send the group what the job committed since the last time, for the partitions the source
** owns (asynchronously, at most every KAFKA_GROUP_COMMIT_MS; what the group has not
** confirmed again every KAFKA_GROUP_RESEND_MS). @locality poll thread
*/
void rsql_kafka__group_commit(rsql_source_t *s);
/* At close: every position the job committed of the partitions it owns, to the group, waiting
   up to timeout_ms. @locality poll thread */
void rsql_kafka__group_commit_last(rsql_source_t *s, int timeout_ms);
/* The outcome of an asynchronous commit (rd_kafka_conf_set_offset_commit_cb). */
void rsql_kafka__commit_cb(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                           rd_kafka_topic_partition_list_t *offsets, void *opaque);
/*
** Group mode: the rebalance callback (rd_kafka_conf_set_rebalance_cb), called on the poll
** thread from inside the consumer's poll. Assign: each partition starts at the later of the
** group's committed offset and the job's own position of it (the sink's or the catalog's at
** the start, or its commit in this run), else where scan.startup.mode says. Revoke: waits
** until the job committed every record of the partitions handed on (at most
** KAFKA_REVOKE_DRAIN_MS, not at all when the run stops), commits that to the group (waiting
** for the answer), then gives them up.
*/
void rsql_kafka__rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                              rd_kafka_topic_partition_list_t *parts, void *opaque);
/*
** The backlog of the partitions the source owns (the messages after what it handed on, from
** the high watermarks librdkafka last heard: no request), and in group mode the group and
** those partitions; for the status line (text: "group g: 2 of 6 partitions; backlog 12
** messages") or SHOW JOB RUNS and serve's rocketsql_source_backlog ({"group":"g","of":6,
** "partitions":["t/0","t/3"],"backlog_messages":12}). At most size bytes, NUL-terminated; the
** length (0: nothing to say). @locality worker thread
*/
size_t rsql_kafka__describe(rsql_source_t *s, bool text, char *buf, size_t size);
/* Group mode: subscribe to the lanes' topics. */
rsql_err_t rsql_kafka__group_subscribe(rsql_source_t *s, rsql_error_t *err);

#endif
