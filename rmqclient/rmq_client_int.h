/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_client_int: private to the client engine, the files that see gRPC: rmq_client.c (lifecycle,
 * the client thread, the channel), rmq_call.c (calls on the completion queue and who frees them),
 * rmq_telemetry.c (the Telemetry stream), rmq_route.c (routes and lite subscription sets) and
 * rmq_ops.c (the operations and their completions). It holds the client and call structs and what
 * those files call of each other.
 *
 * It must not be included anywhere else: the codec, status, signing, id and sync files use
 * rmq_int.h (no gRPC type), the source and the sink rmq_client.h only.
 */
#ifndef RSQL_RMQ_CLIENT_INT_H
#define RSQL_RMQ_CLIENT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <grpc/grpc.h>

#include "rmqclient/rmq_client.h"
#include "rmqclient/rmq_int.h"

#define RMQ_CLIENT_VERSION "5.2.1" /* protocol level we implement (proto v2.1.2) */
#define RMQ_TELEMETRY_BACKOFF_MIN_MS 1000
#define RMQ_TELEMETRY_BACKOFF_MAX_MS 30000
#define RMQ_SETTINGS_RESEND_MIN_MS RSQL_RMQ_SETTINGS_RESEND_MS /* Settings re-sends: one a second */
#define RMQ_MAX_MD 9

typedef struct rmq_call rmq_call_t;

enum { OP_MAIN = 1, OP_RECV, OP_STATUS, OP_WRITE };

/* A completion-queue tag: which batch of which call finished. */
typedef struct rmq_tag {
    int op;
    rmq_call_t *call;
} rmq_tag_t;

/* What to do with the response: the API operation that started the call. */
typedef enum rmq_api {
    API_INTERNAL = 0, /* heartbeat, route refresh, termination: handled inside */
    API_SEND,
    API_RECEIVE,
    API_ACK,
    API_CHANGE,
    API_STATUS,
    API_ROUTE
} rmq_api_t;

typedef struct rmq_write {
    grpc_byte_buffer *bb; /* NULL = half-close */
    struct rmq_write *next;
} rmq_write_t;

struct rmq_call {
    rsql_rmq_client_t *c;
    const rmq_rpc_t *rpc;
    grpc_call *gcall;
    rmq_api_t api;
    union {
        rsql_rmq_send_cb send;
        rsql_rmq_receive_cb receive;
        rsql_rmq_ack_cb ack;
        rsql_rmq_change_cb change;
        rsql_rmq_status_cb status;
        void (*route)(rsql_rmq_client_t *, const rsql_error_t *, void *);
    } cb;
    void *opaque;
    char *topic; /* ROUTE: the topic; RECEIVE: unused */
    size_t n_out; /* SEND: messages in the request; RECEIVE: the batch size asked for */
    grpc_metadata md[RMQ_MAX_MD];
    size_t n_md;
    grpc_metadata_array md_init, md_trail;
    grpc_byte_buffer *send_bb, *recv_bb;
    grpc_status_code gstatus;
    grpc_slice gdetails;
    rmq_tag_t t_main, t_recv, t_status, t_write;
    int pending;          /* batches started, event not handled (rmq_call.c) */
    bool status_started;  /* RECV_STATUS started: see the state machine in rmq_call.c */
    /* ReceiveMessage accumulation */
    rsql_rmq_msg_t **msgs;
    size_t n_msgs, cap_msgs;
    size_t n_extra; /* messages past the batch size asked for: dropped (untrusted server) */
    bool got_status;
    int32_t rcode;
    char *rmessage;
    rsql_error_t decode_err;
    /* Telemetry */
    rmq_write_t *wq_head, *wq_tail;
    bool write_busy;
    rmq_call_t *next, *prev; /* client's active list */
};

typedef struct rmq_topic_route {
    char *topic;
    rmq_route_t route;
    unsigned rr;
} rmq_topic_route_t;

struct rsql_rmq_client {
    /* configuration (owned copies) */
    char *endpoints, *target, *name_space, *access_key, *secret_key, *group, *filter_expression;
    char **topics;
    size_t n_topics;
    rmq_addr_t *ap;
    size_t n_ap;
    bool tls;
    char *chan_target;     /* the gRPC target (rmq_channel.c); target is the first endpoint */
    char *tls_server_name; /* tls.server-name, or NULL */
    char *tls_ca_pem, *tls_cert_pem, *tls_key_pem; /* the files' contents, or NULL */
    int request_timeout_ms;
    int route_refresh_ms;
    int long_polling_ms;
    size_t max_body; /* received bodies (rsql_rmq_config_t.max_body_bytes) */
    rsql_rmq_client_type_t type;
    rsql_rmq_filter_type_t filter_type;
    rsql_rmq_event_cb event_cb;
    void *opaque;
    char client_id[320];
    char hostname[256];

    grpc_channel *channel;
    rsql_rmq_client_t *chan_owner; /* rsql_rmq_config_t.share_channel: its channel, not ours */
    grpc_completion_queue *cq;
    pthread_t thread;
    bool thread_started, started;

    pthread_mutex_t mu;
    pthread_cond_t cond;
    rmq_call_t *active;
    size_t n_active;
    bool closing;
    rmq_topic_route_t *routes;
    size_t n_routes;
    unsigned topic_rr;
    rsql_rmq_server_settings_t settings;
    unsigned settings_gen;
    rsql_error_t telemetry_err; /* first error seen on the Telemetry stream at start */
    rmq_call_t *telemetry;
    int64_t next_heartbeat, next_route, next_settings, next_lite, telemetry_reopen_at;
    char **lite_set; /* lite consumers: the explicit lite topics (empty = wildcard group) */
    size_t n_lite_set;
    int telemetry_backoff_ms;
    /* the proxy lacks our Settings (rsql_rmq__tele_settings_lost): re-send at settings_resend_at
       (0 = none due), at most once per RMQ_SETTINGS_RESEND_MIN_MS after settings_resent_at */
    int64_t settings_resend_at, settings_resent_at;
    unsigned settings_resends; /* re-sends done (tests, logs) */
};

/* ---- rmq_call.c ---------------------------------------------------------------------------- */

/*
** Unlink k from c->active and free it (RELEASED in rmq_call.c); wakes a destroy waiting for
** the list to drain.
*/
void rsql_rmq__call_release(rmq_call_t *k);
/* A new gRPC byte buffer with a copy of b's bytes (caller destroys it). */
grpc_byte_buffer *rsql_rmq__bb_from(const rmq_bytes_t *b);
/*
** A NEW call of rpc id with every header (deadline_ms <= 0: none); req (may be NULL)
** becomes its send buffer. NULL with err set (client closing, out of memory).
*/
rmq_call_t *rsql_rmq__call_new(rsql_rmq_client_t *c, rmq_rpc_id_t id, const rmq_bytes_t *req,
                               int64_t deadline_ms, rsql_error_t *err);
/*
** A NEW call of rpc id with the rpc's deadline (request timeout, plus the long polling
** timeout for long polls); req->data is freed either way. Set (*out)->api, cb and opaque,
** then rsql_rmq__call_start it.
*/
rsql_err_t rsql_rmq__start_simple(rsql_rmq_client_t *c, rmq_rpc_id_t id, rmq_bytes_t *req,
                                  rmq_call_t **out, rsql_error_t *err);
/* Start the first batch of k; on failure k is released and err set (no callback). */
rsql_err_t rsql_rmq__call_start(rmq_call_t *k, rsql_error_t *err);
/* Start the RECV_STATUS batch of k (gstatus = INTERNAL if gRPC refuses). @locks c->mu held */
void rsql_rmq__call_start_status(rmq_call_t *k);
/*
** Start one RECV_MESSAGE batch of k (with the initial metadata when with_md).
** @locks c->mu held
*/
void rsql_rmq__call_start_recv(rmq_call_t *k, bool with_md);
/* Take the received message's bytes (rsql_malloc'ed, caller frees); false when none. */
bool rsql_rmq__call_take_recv(rmq_call_t *k, rmq_bytes_t *out);
/* The gRPC status of a finished call as err (RSQL_OK when OK). */
rsql_err_t rsql_rmq__call_status_err(rmq_call_t *k, rsql_error_t *err);
/*
** One completion-queue event of client c: the batch of tag t finished (ok = ev.success).
** @locality client thread
*/
void rsql_rmq__call_handle(rsql_rmq_client_t *c, rmq_tag_t *t, bool ok);

/* ---- rmq_telemetry.c ----------------------------------------------------------------------- */

/* Start the next queued write of the Telemetry call if none is in flight. @locks c->mu held */
void rsql_rmq__tele_pump0(rmq_call_t *k);
/* Queue a Telemetry write (bytes copied; NULL = half-close); dropped when no stream is open. */
void rsql_rmq__tele_write(rsql_rmq_client_t *c, const rmq_bytes_t *b);
/* Send the client Settings on the Telemetry stream. */
void rsql_rmq__tele_send_settings(rsql_rmq_client_t *c);
/* Open the Telemetry stream (c->telemetry) and send the Settings. */
rsql_err_t rsql_rmq__tele_open(rsql_rmq_client_t *c, rsql_error_t *err);
/*
** A server TelemetryCommand arrived on k: apply it and reply when it asks for a reply.
** @locality client thread
*/
void rsql_rmq__tele_command(rmq_call_t *k);
/*
** The Telemetry stream k ended: record why, schedule the re-open unless closing, emit
** RSQL_RMQ_EV_TELEMETRY_BROKEN. @locality client thread
*/
void rsql_rmq__tele_broken(rmq_call_t *k);
/*
** A response said the proxy has no Settings for this client (rsql_rmq_settings_missing), or
** refused them on an open Telemetry stream with a transient status: schedule a re-send at once
** (rate-limited to one a RMQ_SETTINGS_RESEND_MIN_MS; the client thread's timer sends it, or
** re-opens the stream when none is open). @locks takes c->mu
*/
void rsql_rmq__tele_settings_lost(rsql_rmq_client_t *c);

/* ---- rmq_route.c --------------------------------------------------------------------------- */

/* Store route as the route of topic (its contents are taken). @locks c->mu NOT held */
void rsql_rmq__route_store(rsql_rmq_client_t *c, const char *topic, rmq_route_t *route);
/* Start a QueryRoute of topic: its route is stored, then cb gets the status. */
rsql_err_t rsql_rmq__start_route(rsql_rmq_client_t *c, const char *topic,
                                 void (*cb)(rsql_rmq_client_t *, const rsql_error_t *, void *),
                                 void *opaque, rsql_error_t *err);
/* True when a route of topic is stored. */
bool rsql_rmq__route_known(rsql_rmq_client_t *c, const char *topic);
/*
** Copy a readable master queue of topic (NULL: the next subscribed topic, round robin)
** into one (one queue; caller deinits). RSQL_ERR_UNAVAILABLE (retriable) when none is known.
*/
rsql_err_t rsql_rmq__pick_queue(rsql_rmq_client_t *c, const char *topic, rmq_route_t *one,
                                rsql_error_t *err);
/* True for lite consumers. */
bool rsql_rmq__is_lite(const rsql_rmq_client_t *c);
/* Drop t from the local lite set. @locks c->mu held */
void rsql_rmq__lite_remove0(rsql_rmq_client_t *c, const char *t);
/* SyncLiteSubscription COMPLETE_ADD of the whole local lite set (empty for a wildcard group). */
rsql_err_t rsql_rmq__lite_resync(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                                 rsql_error_t *err);

/* ---- rmq_ops.c ----------------------------------------------------------------------------- */

/* The unary call k completed: decode its response, run its callback. @locality client thread */
void rsql_rmq__finish_unary(rmq_call_t *k);
/* One ReceiveMessage stream element arrived on k: keep its status or message. */
void rsql_rmq__recv_element(rmq_call_t *k);
/* The ReceiveMessage stream k ended: run its callback with the messages that arrived. */
void rsql_rmq__finish_receive(rmq_call_t *k);
/* Start a Heartbeat; cb gets its status. */
rsql_err_t rsql_rmq__start_heartbeat(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                                     rsql_error_t *err);
/* Start NotifyClientTermination (allowed while closing); cb gets its status. */
rsql_err_t rsql_rmq__start_notify_termination(rsql_rmq_client_t *c, rsql_rmq_status_cb cb,
                                              void *opaque, rsql_error_t *err);

/* ---- the channel (rmq_channel.c) */

/*
** Read the TLS files of conf and make the gRPC target (c->ap parsed already). Errors name the
** option ("option 'tls.ca-file': cannot read ...").
*/
rsql_err_t rsql_rmq__channel_config(rsql_rmq_client_t *c, const rsql_rmq_config_t *conf,
                                    rsql_error_t *err);
/* The client's channel: target, credentials (verified TLS or plaintext), arguments. */
grpc_channel *rsql_rmq__channel_create(rsql_rmq_client_t *c);
/* Free what rsql_rmq__channel_config made (the key wiped). */
void rsql_rmq__channel_free(rsql_rmq_client_t *c);

#endif
