/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * kafka_conf: the typed configuration of the kafka connector, filled when its
 * options are validated (kafka_opts.c) and read by its data path
 * (kafka_source.c, kafka_sink.c) through the source/sink context's conf; and
 * what the three files share (kafka_client.c: librdkafka handles made from it).
 */
#ifndef RSQL_KAFKA_CONF_H
#define RSQL_KAFKA_CONF_H

#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "base/rsql_error.h"
#include "base/rsql_opts.h"
#include "connectors/rsql_io.h"

/* The values of the format rows (format, value.format, key.format), indexed by the fields. */
extern const char *const rsql_kafka_formats[];

/* scan.startup.mode */
enum { RSQL_KAFKA_START_EARLIEST, RSQL_KAFKA_START_LATEST, RSQL_KAFKA_START_GROUP,
       RSQL_KAFKA_START_TIMESTAMP, RSQL_KAFKA_START_SPECIFIC };
/* scan.bounded.mode */
enum { RSQL_KAFKA_BOUND_NONE, RSQL_KAFKA_BOUND_LATEST };
/* sink.partitioner */
enum { RSQL_KAFKA_PART_DEFAULT, RSQL_KAFKA_PART_FIXED, RSQL_KAFKA_PART_ROUND_ROBIN };
/* value.fields-include */
enum { RSQL_KAFKA_FI_ALL, RSQL_KAFKA_FI_EXCEPT_KEY };
/* sink.delivery-guarantee */
enum { RSQL_KAFKA_DG_AT_LEAST_ONCE, RSQL_KAFKA_DG_EXACTLY_ONCE, RSQL_KAFKA_DG_NONE };

typedef struct rsql_kafka_conf {
    const char *servers;  /* properties.bootstrap.servers */
    const char *topic;    /* topic: one name, or several separated by ';' (a source); or NULL */
    const char *topic_pattern; /* topic-pattern (a source), or NULL */
    const char *group_id; /* properties.group.id, or NULL */
    int64_t discovery_ms; /* scan.topic-partition-discovery.interval */
    int startup_mode;
    int64_t startup_ts_ms;        /* scan.startup.timestamp-millis */
    bool startup_ts_given;
    const char *specific_offsets; /* scan.startup.specific-offsets */
    int bounded_mode;
    int format;       /* the row "format" (index in rsql_kafka_formats) */
    int value_format; /* the row "value.format", when given (value_format_given) */
    bool value_format_given;
    int key_format;
    bool key_format_given;
    const char *key_fields; /* key.fields: column names separated by ';' */
    int fields_include;     /* value.fields-include */
    bool upsert;            /* upsert-kafka (set by its configure): the key is the PRIMARY KEY */
    int partitioner;
    int guarantee;
    const char *txn_prefix;      /* sink.transactional-id-prefix */
    const char *positions_topic; /* sink.positions-topic */
    int64_t txn_max_rows;        /* sink.transaction.max-rows */
    int64_t timeout_ms; /* connect.timeout: metadata requests at open */
    /* set by configure: the value format's name */
    const char *format_name;
} rsql_kafka_conf_t;

/*
** Where librdkafka's error callback leaves the last error of a handle (a connection refused,
** a name not resolved), so that a failed start can say why. The handle's opaque
** (rd_kafka_opaque) points at it: it is the first member of the source's and the sink's
** struct.
*/
typedef struct rsql_kafka_errbox {
    pthread_mutex_t mu;
    char msg[256];
} rsql_kafka_errbox_t;

/*
** A librdkafka configuration from the table's options: bootstrap.servers, every
** properties.* option (its key less "properties.", secrets included) and then the pairs
** extra[0..2n) (name, value) the side sets. Its opaque is box, its error callback fills box.
** NULL with err set (the option's name and librdkafka's reason) when librdkafka refuses one.
** Caller destroys it unless rd_kafka_new took it.
*/
rd_kafka_conf_t *rsql_kafka__conf_new(const rsql_kafka_conf_t *c, const rsql_optset_t *opts,
                                      const char *const *extra, int n_extra,
                                      rsql_kafka_errbox_t *box, rsql_error_t *err);

/* The last error in box, into buf ("" when none). Any thread. */
void rsql_kafka__last_error(rsql_kafka_errbox_t *box, char *buf, size_t size);

/*
** The partition count of topic on rk's cluster (where: the table and side, for messages:
** "source table 'orders'"), waiting at most c->timeout_ms. Errors:
** RSQL_ERR_REMOTE (permanent) when no broker answered in time (naming the brokers and
** librdkafka's last error from box), RSQL_ERR_NOT_FOUND for a topic the cluster does not have.
*/
rsql_err_t rsql_kafka__topic_partitions(rd_kafka_t *rk, const rsql_kafka_conf_t *c,
                                        rsql_kafka_errbox_t *box, const char *where,
                                        const char *topic, int *n_partitions, rsql_error_t *err);

/*
** topic-pattern: RSQL_OK when pattern compiles, else why (PCRE2's message and offset) in
** why. rsql_kafka__pattern_topics: the names of the topics of md whose whole name matches
** (internal "__" topics left out), sorted, into *out (caller frees each and the array);
** their count, or -1 when out of memory or the pattern does not compile.
*/
rsql_err_t rsql_kafka__pattern_check(const char *pattern, char *why, size_t size);
int rsql_kafka__pattern_topics(const char *pattern, const struct rd_kafka_metadata *md,
                               char ***out);

/* Why the leader-epoch metadata is NULL (librdkafka gives a record's leader epoch from 2.1) */
#define RSQL_KAFKA_EPOCH_WHY "librdkafka 2.0, Debian 12's, gives no leader epoch"

/* The most key.fields columns */
#define RSQL_KAFKA_MAX_KEY 64

/*
** key.fields as column indexes (of names[0..n_columns)) into cols (RSQL_KAFKA_MAX_KEY of
** them); their count, or -1 with err set (a name that is not a column, too many).
*/
int rsql_kafka__key_columns(const char *key_fields, int n_columns, const char *const *names,
                            int *cols, rsql_error_t *err);

/* The rsql error code for a librdkafka error (transient ones retriable). */
rsql_err_t rsql_kafka__err_code(rd_kafka_resp_err_t e);

extern const rsql_source_ops_t rsql_kafka_source_ops;
extern const rsql_sink_ops_t rsql_kafka_sink_ops;

#endif
