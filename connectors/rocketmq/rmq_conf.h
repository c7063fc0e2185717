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

#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "connectors/rsql_connector.h"

/* source.mode */
enum { RSQL_RMQ_MODE_SIMPLE, RSQL_RMQ_MODE_LITE };
/* source.filter-type (not the wire values RSQL_RMQ_FILTER_TAG/_SQL of rmq_client.h) */
enum { RSQL_RMQ_FILTER_TYPE_TAG, RSQL_RMQ_FILTER_TYPE_SQL92 };
/* source.dead-letter */
enum { RSQL_RMQ_DLQ_NONE, RSQL_RMQ_DLQ_NATIVE };
/* sink.changelog-order */
enum { RSQL_RMQ_ORDER_PER_KEY, RSQL_RMQ_ORDER_NONE };

/* The enum rows' values, in the order of the constants above (NULL-terminated). */
extern const char *const rsql_rmq_formats[]; /* format: a format name (rsql_format.h) */
extern const char *const rsql_rmq_modes[];
extern const char *const rsql_rmq_filter_types[];
extern const char *const rsql_rmq_dead_letters[];
extern const char *const rsql_rmq_changelog_orders[];

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
    int64_t lite_clients;    /* source.lite-clients: most client identities (lite mode) */
    int64_t lite_clients_min; /* source.lite-clients-min: the fewest identities kept */
    int64_t lite_clients_start; /* source.lite-clients-start: identities at open (clamped to
                                   [min, max] by rsql_rmq_lite_start) */
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
    int changelog_order; /* RSQL_RMQ_ORDER_* (a changelog written to the topic) */
} rsql_rmq_conf_t;

/* The client identities a lite source starts with: source.lite-clients-start within
   [source.lite-clients-min, source.lite-clients] for the wildcard subscription, whose backlog
   the broker hands out in dispatch rounds to the identities registered by then;
   source.lite-clients-min with source.lite-topics (an explicit subscription). */
static inline int64_t rsql_rmq_lite_start(const rsql_rmq_conf_t *c)
{
    int64_t n = c->lite_topics ? c->lite_clients_min : c->lite_clients_start;
    n = n < c->lite_clients_min ? c->lite_clients_min : n;
    return n > c->lite_clients ? c->lite_clients : n;
}

/* Descriptor hooks (rmq_explain.c). */
bool rsql_rmq__bounded(const void *conf, const char **why);
int64_t rsql_rmq__hold(const void *conf, char *key, size_t size);
void rsql_rmq__explain(const rsql_explain_t *x);

/* ---- a changelog written to RocketMQ (rmq_changelog.c) */

/* See rsql_connector_def_t.accept_changes. */
rsql_err_t rsql_rmq__accept_changes(const void *conf, const rsql_optset_t *set, int n_key,
                                    rsql_error_t *err);

/*
** Is the order of one key's changes kept from the sink to a consumer of the topic, for a
** changelog written with conf into a table whose PRIMARY KEY is key[0..n_key) and whose
** statement writes the METADATA keys meta[0..n_meta)? Returns it and appends the reason to
** why. Planning-time only: the topic's own type is checked when the sink starts
** (rsql_rmq__changelog_topic).
*/
bool rsql_rmq__key_order(const rsql_rmq_conf_t *c, int n_key, const char *const *key,
                         int n_meta, const char *const *meta, rsql_buf_t *why);

/*
** May a changelog go out with conf to a topic of this type (rsql_rmq_msg_type_t number as its
** route names it; 0: unknown)? RSQL_OK, or RSQL_ERR_BAD_OPTION naming the topic, its type and
** what to set. Also whether each change's message group is its key (*group_by_key: a FIFO
** topic, or sink.changelog-order = per-key, when no message group is set otherwise).
*/
rsql_err_t rsql_rmq__changelog_topic(const rsql_rmq_conf_t *c, int topic_type,
                                     bool group_given, bool *group_by_key, rsql_error_t *err);

/*
** Append the message key of a row to out: the text of each PRIMARY KEY column (key[0..n_key),
** indexes into values) as rsql_value_format writes it, joined with '|' when there are
** several; a '|' or '\' inside a value is escaped with '\', and a NULL value is written \N,
** so distinct keys give distinct texts.
*/
void rsql_rmq__key_text(const rsql_value_t *values, int n_key, const int *key, rsql_buf_t *out);

#endif
