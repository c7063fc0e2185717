/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_conf: the typed configuration of the rocketmq-grpc connector, filled
 * once from the table's options when they are validated (rmq_opts.c rows
 * carry the field of each member; base/rsql_conf.h), and the descriptor
 * hooks rmq_explain.c implements. The data path (rmq_source.c, rmq_sink.c)
 * reads its options only from this struct (rsql_source_ctx_t.conf).
 * Needs no gRPC: it is built with or without the data path.
 */
#ifndef RSQL_RMQ_CONF_H
#define RSQL_RMQ_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connectors/rsql_connector.h"

/* source.mode */
enum { RSQL_RMQ_MODE_SIMPLE, RSQL_RMQ_MODE_LITE };
/* source.filter-type (not the wire values RSQL_RMQ_FILTER_TAG/_SQL of rmq_client.h) */
enum { RSQL_RMQ_FILTER_TYPE_TAG, RSQL_RMQ_FILTER_TYPE_SQL92 };
/* source.dead-letter */
enum { RSQL_RMQ_DLQ_NONE, RSQL_RMQ_DLQ_NATIVE };

/* The enum rows' values, in the order of the constants above (NULL-terminated). */
extern const char *const rsql_rmq_formats[]; /* format: a format name (rsql_format.h) */
extern const char *const rsql_rmq_modes[];
extern const char *const rsql_rmq_filter_types[];
extern const char *const rsql_rmq_dead_letters[];

typedef struct rsql_rmq_conf {
    /* connection */
    const char *endpoints; /* "host:port[,host:port...]" */
    const char *namespace_;
    const char *access_key; /* NULL: no signing */
    const char *secret_key;
    bool tls;
    const char *tls_ca_file;     /* NULL: gRPC's default roots */
    const char *tls_server_name; /* NULL: the endpoint's host */
    const char *tls_cert_file;   /* mutual TLS, with tls_key_file */
    const char *tls_key_file;
    int64_t request_timeout_ms;
    int64_t lane_idle_ms; /* lanes.idle-timeout */
    const char *topic;
    int format; /* index in rsql_rmq_formats */

    /* source */
    int mode;          /* RSQL_RMQ_MODE_* */
    const char *group; /* source.consumer-group */
    int filter_type;   /* RSQL_RMQ_FILTER_TYPE_* */
    const char *filter_expression;
    int64_t fetch_concurrency;
    int64_t batch_size;
    int64_t await_ms;
    int64_t invisible_ms;
    int64_t renewal_ahead_ms;
    int64_t max_delivery_attempts;
    int64_t max_invisible_ms;
    int64_t max_body_bytes;  /* source.max-body-size */
    const char *lite_topics; /* CSV, NULL: every lite topic (wildcard) */
    int64_t lite_clients;    /* source.lite-clients: client identities (lite mode) */
    int dead_letter;         /* RSQL_RMQ_DLQ_* */
    bool dead_letter_given;
    int64_t idle_timeout_ms; /* scan.idle-timeout */
    bool idle_timeout_given;
    int64_t max_inflight_per_lite; /* 0: no limit */
    bool max_inflight_per_lite_given;
    double rate_per_lite;          /* per second */
    bool rate_per_lite_given;
    int64_t defer_ms;
    bool throttled; /* some throttle.* option was given */

    /* sink */
    const char *lite_topic;
    const char *lite_topic_column;
    const char *tag;
    const char *keys_column;
    const char *message_group_column;
    int64_t max_attempts;
    int64_t max_inflight;
    int64_t send_batch_size; /* 1: no batching */
    int64_t linger_ms;
} rsql_rmq_conf_t;

/* Descriptor hooks (rmq_explain.c). */
bool rsql_rmq__bounded(const void *conf, const char **why);
int64_t rsql_rmq__hold(const void *conf, char *key, size_t size);
void rsql_rmq__explain(const rsql_explain_t *x);

#endif
