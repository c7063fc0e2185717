/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_conn_int: private declarations of the rocketmq-grpc data path (rmq_source.c, rmq_sink.c)
 * on top of the client (rmq_client.h): the lane map of rmq_inflight.c, which gives every lite
 * topic (source), message group (FIFO source and sink) or other string key a small stable lane
 * number and keeps per-lane counts: messages in flight (received, outcome not yet known),
 * delivered (acked), deferred (throttling, issue 6) and a per-lane offset sequence. The source
 * reports lanes as its partitions, so the runtime's offset tracker keys in-flight by lite topic
 * too. Not thread-safe: the owner guards it with its own lock.
 */
#ifndef RSQL_RMQ_CONN_INT_H
#define RSQL_RMQ_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rsql_error.h"

typedef struct rsql_rmq_inflight rsql_rmq_inflight_t;

/* Per-lane counts. */
typedef struct rsql_rmq_lane_stats {
    int64_t in_flight; /* received and held, outcome not yet known */
    int64_t received;  /* every message received on the lane */
    int64_t delivered; /* acked (or forwarded to the DLQ) */
    int64_t released;  /* let go without an ack (failed, or still held at close) */
    int64_t deferred;  /* made invisible again by throttling */
} rsql_rmq_lane_stats_t;

/*
** A new empty lane map; names of lanes are "<prefix>" for the empty key and "<prefix>/<key>"
** otherwise (prefix copied; NULL = ""). NULL when out of memory. Caller destroys.
*/
rsql_rmq_inflight_t *rsql_rmq_inflight_new(const char *prefix);
/* Free the map and its names. NULL-safe. */
void rsql_rmq_inflight_destroy(rsql_rmq_inflight_t *t);
/*
** The lane of key (NULL = ""), created on first use (lanes are numbered 0, 1, 2, ... in order
** of first use and never removed). RSQL_ERR_NOMEM when a new lane cannot be made.
*/
rsql_err_t rsql_rmq_inflight_lane(rsql_rmq_inflight_t *t, const char *key, uint32_t *lane,
                                  rsql_error_t *err);
/* The lane of key if it exists (false otherwise). */
bool rsql_rmq_inflight_find(const rsql_rmq_inflight_t *t, const char *key, uint32_t *lane);
/* Number of lanes. */
uint32_t rsql_rmq_inflight_count(const rsql_rmq_inflight_t *t);
/*
** The lane's name ("<prefix>/<key>") and key (borrowed: stable until the map is destroyed),
** or NULL for a lane that does not exist.
*/
const char *rsql_rmq_inflight_name(const rsql_rmq_inflight_t *t, uint32_t lane);
const char *rsql_rmq_inflight_key(const rsql_rmq_inflight_t *t, uint32_t lane);
/* A message of lane was received (in_flight++, received++); returns the lane's next offset. */
int64_t rsql_rmq_inflight_received(rsql_rmq_inflight_t *t, uint32_t lane);
/*
** A held message of lane is done: acked/forwarded (delivered = true) or let go (false).
** in_flight never goes below 0.
*/
void rsql_rmq_inflight_done(rsql_rmq_inflight_t *t, uint32_t lane, bool delivered);
/* A message of lane was deferred (no longer held: in_flight--, deferred++). */
void rsql_rmq_inflight_deferred(rsql_rmq_inflight_t *t, uint32_t lane);
/* The lane's counts (zeros for a lane that does not exist). */
void rsql_rmq_inflight_stats(const rsql_rmq_inflight_t *t, uint32_t lane,
                             rsql_rmq_lane_stats_t *out);
/* Sum of in_flight over every lane. */
int64_t rsql_rmq_inflight_total(const rsql_rmq_inflight_t *t);

/* The data-path vtables (registered in connectors/conn_io.c). */
#include "connectors/rsql_io.h"
extern const rsql_source_ops_t rsql_rmq_source_ops;
extern const rsql_sink_ops_t rsql_rmq_sink_ops;

#endif
