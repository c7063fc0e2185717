/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_client: the RocketMQ gRPC client's engine (API and threading model in rmq_client.h).
 * One grpc C core channel per client and one client thread that owns the completion queue:
 * it blocks in grpc_completion_queue_next() until a completion or its next timer (heartbeat,
 * route refresh, settings re-sync, Telemetry re-open), handles completions (decode via
 * rmq_codec.c, map status via rmq_status.c) and runs the user callbacks. Calls are started from
 * any thread with grpc_call_start_batch (thread-safe); every call carries the x-mq-* headers
 * and, with credentials, the signed authorization header (rmq_sign.c).
 *
 * Call shapes: unary RPCs are one batch (send metadata+message+close, receive metadata+message
 * +status). ReceiveMessage (server stream) reads elements one RECV_MESSAGE batch at a time,
 * then RECV_STATUS. Telemetry (bidi) keeps one receive batch and one status batch pending and
 * serialises its writes through a small queue.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "connectors/rocketmq/rmq_client.h"
#include "connectors/rocketmq/rmq_int.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#define RMQ_CLIENT_VERSION "5.2.1" /* protocol level we implement (proto v2.1.2) */
#define RMQ_HEARTBEAT_MS 10000
#define RMQ_ROUTE_REFRESH_MS 30000
#define RMQ_SETTINGS_SYNC_MS 300000
#define RMQ_LITE_SYNC_MS 30000
#define RMQ_TELEMETRY_BACKOFF_MIN_MS 1000
#define RMQ_TELEMETRY_BACKOFF_MAX_MS 30000
#define RMQ_DEFAULT_MAX_BODY (4 * 1024 * 1024)
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
    size_t n_out; /* SEND: messages in the request */
    grpc_metadata md[RMQ_MAX_MD];
    size_t n_md;
    grpc_metadata_array md_init, md_trail;
    grpc_byte_buffer *send_bb, *recv_bb;
    grpc_status_code gstatus;
    grpc_slice gdetails;
    rmq_tag_t t_main, t_recv, t_status, t_write;
    int pending;
    bool status_started;
    /* ReceiveMessage accumulation */
    rsql_rmq_msg_t **msgs;
    size_t n_msgs, cap_msgs;
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
    int request_timeout_ms;
    int long_polling_ms;
    rsql_rmq_client_type_t type;
    rsql_rmq_filter_type_t filter_type;
    rsql_rmq_event_cb event_cb;
    void *opaque;
    char client_id[320];
    char hostname[256];

    grpc_channel *channel;
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
};

static char *xstrdup(const char *s)
{
    return rsql_strdup(s ? s : "");
}

static rsql_err_t nomem(rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
}

static void emit(rsql_rmq_client_t *c, rsql_rmq_event_kind_t kind, const char *lite,
                 const rsql_error_t *err)
{
    if (c->event_cb) {
        rsql_rmq_event_t ev = {kind, lite, err};
        c->event_cb(c, &ev, c->opaque);
    }
}

/* ---- configuration ------------------------------------------------------------------------- */

/* Parse "host:port[;host:port...]" into c->ap. */
static rsql_err_t parse_endpoints(rsql_rmq_client_t *c, const char *s, rsql_error_t *err)
{
    size_t cnt = 1;
    for (const char *p = s; *p; p++) {
        cnt += (*p == ';' || *p == ',');
    }
    c->ap = rsql_calloc(cnt, sizeof(rmq_addr_t));
    if (!c->ap) {
        return nomem(err);
    }
    const char *p = s;
    while (*p) {
        const char *e = p + strcspn(p, ";,");
        const char *colon = NULL;
        for (const char *q = p; q < e; q++) {
            if (*q == ':') {
                colon = q;
            }
        }
        char *end = NULL;
        long port = colon ? strtol(colon + 1, &end, 10) : 0;
        if (!colon || colon == p || end != e || port <= 0 || port > 65535) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                  "RocketMQ endpoints '%s': expected host:port", s);
        }
        c->ap[c->n_ap].host = rsql_strndup(p, (size_t)(colon - p));
        c->ap[c->n_ap].port = (int32_t)port;
        if (!c->ap[c->n_ap].host) {
            return nomem(err);
        }
        c->n_ap++;
        p = *e ? e + 1 : e;
    }
    if (c->n_ap == 0) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "RocketMQ endpoints are empty");
    }
    char target[300];
    snprintf(target, sizeof(target), "%s:%d", c->ap[0].host, (int)c->ap[0].port);
    c->target = rsql_strdup(target);
    return c->target ? RSQL_OK : nomem(err);
}

static void client_free(rsql_rmq_client_t *c)
{
    rsql_free(c->endpoints);
    rsql_free(c->target);
    rsql_free(c->name_space);
    rsql_free(c->access_key);
    rsql_free(c->secret_key);
    rsql_free(c->group);
    rsql_free(c->filter_expression);
    for (size_t i = 0; i < c->n_topics; i++) {
        rsql_free(c->topics[i]);
    }
    rsql_free(c->topics);
    for (size_t i = 0; i < c->n_ap; i++) {
        rsql_free(c->ap[i].host);
    }
    rsql_free(c->ap);
    for (size_t i = 0; i < c->n_routes; i++) {
        rsql_free(c->routes[i].topic);
        rsql_rmq__route_deinit(&c->routes[i].route);
    }
    rsql_free(c->routes);
    for (size_t i = 0; i < c->n_lite_set; i++) {
        rsql_free(c->lite_set[i]);
    }
    rsql_free(c->lite_set);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cond);
    rsql_free(c);
}

/* See rmq_client.h. */
rsql_rmq_client_t *rsql_rmq_client_new(const rsql_rmq_config_t *conf, rsql_error_t *err)
{
    if (!conf || !conf->endpoints || !*conf->endpoints) {
        rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                       "RocketMQ client needs endpoints");
        return NULL;
    }
    bool consumer = conf->client_type != RSQL_RMQ_PRODUCER;
    if (conf->client_type != RSQL_RMQ_PRODUCER && conf->client_type != RSQL_RMQ_SIMPLE_CONSUMER &&
        conf->client_type != RSQL_RMQ_LITE_PUSH_CONSUMER &&
        conf->client_type != RSQL_RMQ_LITE_SIMPLE_CONSUMER) {
        rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS, "RocketMQ client type %d unknown",
                       (int)conf->client_type);
        return NULL;
    }
    if (consumer && (!conf->group || !*conf->group || conf->n_topics == 0)) {
        rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                       "a RocketMQ consumer needs a group and at least one topic");
        return NULL;
    }
    if ((conf->access_key && *conf->access_key) != (conf->secret_key && *conf->secret_key)) {
        rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                       "RocketMQ access key and secret key go together");
        return NULL;
    }
    rsql_rmq_client_t *c = rsql_calloc(1, sizeof(*c));
    if (!c) {
        nomem(err);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    rsql_cond_init_monotonic(&c->cond);
    c->endpoints = xstrdup(conf->endpoints);
    c->name_space = xstrdup(conf->name_space);
    c->access_key = conf->access_key && *conf->access_key ? xstrdup(conf->access_key) : NULL;
    c->secret_key = conf->secret_key && *conf->secret_key ? xstrdup(conf->secret_key) : NULL;
    c->group = consumer ? xstrdup(conf->group) : NULL;
    c->filter_expression = xstrdup(conf->filter_expression && *conf->filter_expression
                                       ? conf->filter_expression
                                       : "*");
    c->tls = conf->tls;
    c->request_timeout_ms = conf->request_timeout_ms > 0 ? conf->request_timeout_ms : 3000;
    c->long_polling_ms = conf->long_polling_timeout_ms > 0 ? conf->long_polling_timeout_ms : 20000;
    c->type = conf->client_type;
    c->filter_type = conf->filter_type ? conf->filter_type : RSQL_RMQ_FILTER_TAG;
    c->event_cb = conf->event_cb;
    c->opaque = conf->opaque;
    c->settings.max_body_size = RMQ_DEFAULT_MAX_BODY;
    c->settings.max_lite_topic_size = 64;
    c->telemetry_backoff_ms = RMQ_TELEMETRY_BACKOFF_MIN_MS;
    bool oom = !c->endpoints || !c->name_space || !c->filter_expression ||
               (consumer && !c->group) || (conf->access_key && *conf->access_key && !c->access_key) ||
               (conf->secret_key && *conf->secret_key && !c->secret_key);
    if (!oom && conf->n_topics) {
        c->topics = rsql_calloc(conf->n_topics, sizeof(char *));
        oom = !c->topics;
        for (size_t i = 0; !oom && i < conf->n_topics; i++) {
            c->topics[i] = xstrdup(conf->topics[i]);
            oom = !c->topics[i];
            c->n_topics += !oom;
        }
    }
    if (oom) {
        nomem(err);
        client_free(c);
        return NULL;
    }
    if (parse_endpoints(c, c->endpoints, err) != RSQL_OK) {
        client_free(c);
        return NULL;
    }
    if (gethostname(c->hostname, sizeof(c->hostname) - 1) != 0) {
        strcpy(c->hostname, "localhost");
    }
    rsql_rmq__client_id(c->client_id, sizeof(c->client_id));
    return c;
}

/* See rmq_client.h. */
const char *rsql_rmq_client_id(const rsql_rmq_client_t *c)
{
    return c->client_id;
}

/* See rmq_client.h. */
void rsql_rmq_client_settings(rsql_rmq_client_t *c, rsql_rmq_server_settings_t *out)
{
    pthread_mutex_lock(&c->mu);
    *out = c->settings;
    pthread_mutex_unlock(&c->mu);
}

/* ---- calls --------------------------------------------------------------------------------- */

static void md_add(rmq_call_t *k, const char *key, const char *value)
{
    if (k->n_md < RMQ_MAX_MD) {
        k->md[k->n_md].key = grpc_slice_from_static_string(key);
        k->md[k->n_md].value = grpc_slice_from_copied_string(value);
        k->n_md++;
    }
}

static void call_free(rmq_call_t *k)
{
    for (size_t i = 0; i < k->n_md; i++) {
        grpc_slice_unref(k->md[i].value);
    }
    grpc_metadata_array_destroy(&k->md_init);
    grpc_metadata_array_destroy(&k->md_trail);
    if (k->send_bb) {
        grpc_byte_buffer_destroy(k->send_bb);
    }
    if (k->recv_bb) {
        grpc_byte_buffer_destroy(k->recv_bb);
    }
    grpc_slice_unref(k->gdetails);
    for (size_t i = 0; i < k->n_msgs; i++) {
        rsql_rmq_msg_destroy(k->msgs[i]);
    }
    rsql_free(k->msgs);
    rsql_free(k->rmessage);
    rsql_free(k->topic);
    while (k->wq_head) {
        rmq_write_t *w = k->wq_head;
        k->wq_head = w->next;
        if (w->bb) {
            grpc_byte_buffer_destroy(w->bb);
        }
        rsql_free(w);
    }
    if (k->gcall) {
        grpc_call_unref(k->gcall);
    }
    rsql_free(k);
}

/* Unlink k from the active list and free it; wakes a destroy waiting for the list to drain. */
static void call_release(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    pthread_mutex_lock(&c->mu);
    if (k->prev) {
        k->prev->next = k->next;
    } else if (c->active == k) {
        c->active = k->next;
    }
    if (k->next) {
        k->next->prev = k->prev;
    }
    c->n_active--;
    if (c->telemetry == k) {
        c->telemetry = NULL;
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
    call_free(k);
}

static grpc_byte_buffer *bb_from(const rmq_bytes_t *b)
{
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)b->data, b->len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

/*
** Create a call of rpc with all headers; the request bytes become its send buffer. The call is
** linked into the active list. Returns NULL with err set (closing client, out of memory).
*/
static rmq_call_t *call_new(rsql_rmq_client_t *c, rmq_rpc_id_t id, const rmq_bytes_t *req,
                            int64_t deadline_ms, rsql_error_t *err)
{
    rmq_call_t *k = rsql_calloc(1, sizeof(*k));
    if (!k) {
        nomem(err);
        return NULL;
    }
    k->c = c;
    k->rpc = rsql_rmq__rpc(id);
    k->t_main = (rmq_tag_t){OP_MAIN, k};
    k->t_recv = (rmq_tag_t){OP_RECV, k};
    k->t_status = (rmq_tag_t){OP_STATUS, k};
    k->t_write = (rmq_tag_t){OP_WRITE, k};
    k->gdetails = grpc_empty_slice();
    grpc_metadata_array_init(&k->md_init);
    grpc_metadata_array_init(&k->md_trail);
    char reqid[37], dt[17], auth[512];
    rsql_rmq__uuid(reqid);
    rsql_rmq__datetime(time(NULL), dt);
    md_add(k, "x-mq-language", "CPP");
    md_add(k, "x-mq-protocol", "v2");
    md_add(k, "x-mq-client-version", RMQ_CLIENT_VERSION);
    md_add(k, "x-mq-client-id", c->client_id);
    md_add(k, "x-mq-request-id", reqid);
    md_add(k, "x-mq-date-time", dt);
    md_add(k, "x-mq-namespace", c->name_space);
    if (c->access_key && rsql_rmq__sign(c->access_key, c->secret_key, dt, auth, sizeof(auth),
                                        NULL) == RSQL_OK) {
        md_add(k, "authorization", auth);
    }
    if (req) {
        k->send_bb = bb_from(req);
    }
    gpr_timespec deadline =
        deadline_ms > 0 ? gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                       gpr_time_from_millis(deadline_ms, GPR_TIMESPAN))
                        : gpr_inf_future(GPR_CLOCK_MONOTONIC);
    pthread_mutex_lock(&c->mu);
    if (c->closing && id != RMQ_RPC_NOTIFY_TERMINATION) {
        pthread_mutex_unlock(&c->mu);
        call_free(k);
        rsql_error_set(err, RSQL_ERR_INTERRUPTED, RSQL_NOPOS, "RocketMQ client is closing");
        return NULL;
    }
    k->gcall = grpc_channel_create_call(c->channel, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq,
                                        grpc_slice_from_static_string(k->rpc->path), NULL,
                                        deadline, NULL);
    k->next = c->active;
    if (c->active) {
        c->active->prev = k;
    }
    c->active = k;
    c->n_active++;
    pthread_mutex_unlock(&c->mu);
    return k;
}

/* Start the first batch of k; on failure k is released and err set (no callback). */
static rsql_err_t call_start(rmq_call_t *k, rsql_error_t *err)
{
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    size_t n = 0;
    ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[n].data.send_initial_metadata.count = k->n_md;
    ops[n].data.send_initial_metadata.metadata = k->md;
    if (k->rpc->long_poll) {
        /* While the proxy is away (restart), a long poll waits for the channel to reconnect
         * (within its deadline) instead of failing at once: receivers do not escalate their
         * retry backoff during the outage and resume as soon as the channel is back. */
        ops[n].flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY |
                       GRPC_INITIAL_METADATA_WAIT_FOR_READY_EXPLICITLY_SET;
    }
    n++;
    if (k->rpc->kind == RMQ_BIDI) {
        /* Telemetry: metadata goes first; messages go through the write queue. */
        k->pending = 1;
        grpc_call_error e = grpc_call_start_batch(k->gcall, ops, n, &k->t_main, NULL);
        if (e != GRPC_CALL_OK) {
            k->pending = 0;
            call_release(k);
            return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                  "gRPC refused to start %s (%d)", "Telemetry", (int)e);
        }
        return RSQL_OK;
    }
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = k->send_bb;
    n++;
    ops[n].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    n++;
    ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[n].data.recv_initial_metadata.recv_initial_metadata = &k->md_init;
    n++;
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n].data.recv_message.recv_message = &k->recv_bb;
    n++;
    if (k->rpc->kind == RMQ_UNARY) {
        ops[n].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
        ops[n].data.recv_status_on_client.trailing_metadata = &k->md_trail;
        ops[n].data.recv_status_on_client.status = &k->gstatus;
        ops[n].data.recv_status_on_client.status_details = &k->gdetails;
        n++;
        k->status_started = true;
    }
    k->pending = 1;
    grpc_call_error e = grpc_call_start_batch(k->gcall, ops, n, &k->t_main, NULL);
    if (e != GRPC_CALL_OK) {
        k->pending = 0;
        const char *name = k->rpc->name;
        call_release(k);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "gRPC refused to start %s (%d)", name, (int)e);
    }
    return RSQL_OK;
}

static void start_status(rmq_call_t *k)
{
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op.data.recv_status_on_client.trailing_metadata = &k->md_trail;
    op.data.recv_status_on_client.status = &k->gstatus;
    op.data.recv_status_on_client.status_details = &k->gdetails;
    k->status_started = true;
    k->pending++;
    if (grpc_call_start_batch(k->gcall, &op, 1, &k->t_status, NULL) != GRPC_CALL_OK) {
        k->pending--;
        k->gstatus = GRPC_STATUS_INTERNAL;
    }
}

static void start_recv(rmq_call_t *k, bool with_md)
{
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    size_t n = 0;
    if (with_md) {
        ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
        ops[n].data.recv_initial_metadata.recv_initial_metadata = &k->md_init;
        n++;
    }
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n].data.recv_message.recv_message = &k->recv_bb;
    n++;
    k->pending++;
    if (grpc_call_start_batch(k->gcall, ops, n, &k->t_recv, NULL) != GRPC_CALL_OK) {
        k->pending--;
    }
}

/* Take the received buffer's bytes (rsql_malloc'ed) and reset recv_bb. */
static bool take_recv(rmq_call_t *k, rmq_bytes_t *out)
{
    out->data = NULL;
    out->len = 0;
    if (!k->recv_bb) {
        return false;
    }
    grpc_byte_buffer_reader r;
    bool ok = false;
    if (grpc_byte_buffer_reader_init(&r, k->recv_bb)) {
        grpc_slice s = grpc_byte_buffer_reader_readall(&r);
        out->len = GRPC_SLICE_LENGTH(s);
        out->data = rsql_malloc(out->len ? out->len : 1);
        if (out->data) {
            memcpy(out->data, GRPC_SLICE_START_PTR(s), out->len);
            ok = true;
        }
        grpc_slice_unref(s);
        grpc_byte_buffer_reader_destroy(&r);
    }
    grpc_byte_buffer_destroy(k->recv_bb);
    k->recv_bb = NULL;
    return ok;
}

/* The gRPC status of a finished call as an error (RSQL_OK when the status is OK). */
static rsql_err_t grpc_status_err(rmq_call_t *k, rsql_error_t *err)
{
    if (k->gstatus == GRPC_STATUS_OK) {
        return RSQL_OK;
    }
    char *d = grpc_slice_to_c_string(k->gdetails);
    rsql_err_t rc = rsql_rmq__grpc_error((int)k->gstatus, d, k->rpc->name, err);
    gpr_free(d);
    return rc;
}

/* ---- completion of unary calls ------------------------------------------------------------ */

static void route_store(rsql_rmq_client_t *c, const char *topic, rmq_route_t *route)
{
    pthread_mutex_lock(&c->mu);
    rmq_topic_route_t *tr = NULL;
    for (size_t i = 0; i < c->n_routes; i++) {
        if (strcmp(c->routes[i].topic, topic) == 0) {
            tr = &c->routes[i];
        }
    }
    if (!tr) {
        rmq_topic_route_t *nr = rsql_realloc(c->routes, (c->n_routes + 1) * sizeof(*nr));
        char *t = rsql_strdup(topic);
        if (nr) {
            c->routes = nr;
        }
        if (!nr || !t) {
            rsql_free(t);
            pthread_mutex_unlock(&c->mu);
            rsql_rmq__route_deinit(route);
            return;
        }
        tr = &c->routes[c->n_routes++];
        memset(tr, 0, sizeof(*tr));
        tr->topic = t;
    }
    rsql_rmq__route_deinit(&tr->route);
    tr->route = *route;
    memset(route, 0, sizeof(*route));
    pthread_mutex_unlock(&c->mu);
}

static void finish_unary(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    rsql_error_t e;
    rsql_error_clear(&e);
    rmq_bytes_t b = {NULL, 0};
    rmq_resp_t resp;
    memset(&resp, 0, sizeof(resp));
    bool have = take_recv(k, &b);
    bool decoded = false;
    if (grpc_status_err(k, &e) == RSQL_OK) {
        if (!have) {
            rsql_rmq__grpc_error(GRPC_STATUS_INTERNAL, "no response message", k->rpc->name, &e);
        } else if (k->rpc->id == RMQ_RPC_QUERY_ROUTE) {
            rmq_route_t route;
            int32_t code = 0;
            char *msg = NULL;
            if (rsql_rmq__dec_query_route(b.data, b.len, &code, &msg, &route, &e) == RSQL_OK) {
                if (rsql_rmq__status_error(code, msg, &e) == RSQL_OK) {
                    route_store(c, k->topic, &route);
                }
                rsql_rmq__route_deinit(&route);
                rsql_free(msg);
            }
        } else if (rsql_rmq__dec_resp(k->rpc->id, b.data, b.len, &resp, &e) == RSQL_OK) {
            decoded = true;
            /* Per-entry failures first: they say which message failed and why. */
            for (size_t i = 0; i < resp.n_send; i++) {
                rsql_rmq__status_error(resp.send[i].code, resp.send[i].status_message, &e);
            }
            for (size_t i = 0; i < resp.n_ack; i++) {
                rsql_rmq__status_error(resp.ack[i].code, resp.ack[i].status_message, &e);
            }
            rsql_rmq__status_error(resp.code, resp.message, &e);
        }
    }
    rsql_free(b.data);
    const rsql_error_t *err = e.code == RSQL_OK ? NULL : &e;
    switch (k->api) {
    case API_SEND: {
        rsql_rmq_send_entry_t *ents = NULL;
        size_t n = decoded ? resp.n_send : 0;
        /* The proxy answers a batch with ONE entry whose message_id joins the ids with ','
           (one MessageBatch in the broker): give every message its own entry. */
        bool joined = n == 1 && k->n_out > 1 && strchr(resp.send[0].message_id, ',');
        size_t m = joined ? k->n_out : n;
        if (m && (ents = rsql_calloc(m, sizeof(*ents))) != NULL) {
            char *save = NULL, *tok = joined ? strtok_r(resp.send[0].message_id, ",", &save)
                                             : NULL;
            for (size_t i = 0; i < m; i++) {
                const rmq_send_entry_t *src = &resp.send[joined ? 0 : i];
                ents[i].message_id = joined ? (tok ? tok : "") : src->message_id;
                ents[i].offset = src->offset;
                ents[i].code = src->code;
                ents[i].status_message = src->status_message;
                if (joined) {
                    tok = strtok_r(NULL, ",", &save);
                }
            }
        }
        k->cb.send(c, err, ents, ents ? m : 0, k->opaque);
        rsql_free(ents);
        break;
    }
    case API_ACK: {
        rsql_rmq_ack_result_t *res = NULL;
        size_t n = decoded ? resp.n_ack : 0;
        if (n && (res = rsql_calloc(n, sizeof(*res))) != NULL) {
            for (size_t i = 0; i < n; i++) {
                res[i].message_id = resp.ack[i].message_id;
                res[i].receipt_handle = resp.ack[i].receipt_handle;
                res[i].code = resp.ack[i].code;
                res[i].status_message = resp.ack[i].status_message;
            }
        }
        k->cb.ack(c, err, res, res ? n : 0, k->opaque);
        rsql_free(res);
        break;
    }
    case API_CHANGE:
        k->cb.change(c, err, err ? NULL : resp.receipt_handle, k->opaque);
        break;
    case API_STATUS:
        k->cb.status(c, err, k->opaque);
        break;
    case API_ROUTE:
        k->cb.route(c, err, k->opaque);
        break;
    default:
        break;
    }
    rsql_rmq__resp_deinit(&resp);
}

/* ---- ReceiveMessage stream ----------------------------------------------------------------- */

static void recv_element(rmq_call_t *k)
{
    rmq_bytes_t b;
    if (!take_recv(k, &b)) {
        return;
    }
    rmq_recv_elem_t el;
    if (rsql_rmq__dec_receive(b.data, b.len, k->c->target, &el, &k->decode_err) == RSQL_OK) {
        if (el.kind == RMQ_RECV_STATUS && !k->got_status) {
            k->got_status = true;
            k->rcode = el.code;
            k->rmessage = el.message;
            el.message = NULL;
        } else if (el.kind == RMQ_RECV_MESSAGE) {
            if (k->n_msgs == k->cap_msgs) {
                size_t cap = k->cap_msgs ? k->cap_msgs * 2 : 16;
                rsql_rmq_msg_t **nm = rsql_realloc(k->msgs, cap * sizeof(*nm));
                if (nm) {
                    k->msgs = nm;
                    k->cap_msgs = cap;
                }
            }
            if (k->n_msgs < k->cap_msgs) {
                k->msgs[k->n_msgs++] = el.msg;
                el.msg = NULL;
            } else {
                nomem(&k->decode_err);
            }
        }
        rsql_free(el.message);
        rsql_rmq_msg_destroy(el.msg);
    }
    rsql_free(b.data);
}

static void finish_receive(rmq_call_t *k)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    if (k->n_msgs == 0) {
        if (grpc_status_err(k, &e) == RSQL_OK) {
            if (k->decode_err.code != RSQL_OK) {
                rsql_error_copy(&e, &k->decode_err);
            } else if (!k->got_status) {
                rsql_rmq__grpc_error(GRPC_STATUS_INTERNAL, "no status in the response stream",
                                     k->rpc->name, &e);
            } else if (k->rcode != RSQL_RMQ_CODE_MESSAGE_NOT_FOUND) {
                rsql_rmq__status_error(k->rcode, k->rmessage, &e);
            }
        }
    }
    /* Messages that did arrive are delivered even when the stream ended badly afterwards:
       they are invisible now and only their receipt handles can ack them. */
    rsql_rmq_msg_t **msgs = k->msgs;
    size_t n = k->n_msgs;
    k->msgs = NULL;
    k->n_msgs = k->cap_msgs = 0;
    k->cb.receive(k->c, e.code == RSQL_OK ? NULL : &e, msgs, n, k->opaque);
    rsql_free(msgs);
}

/* ---- Telemetry ----------------------------------------------------------------------------- */

static rsql_err_t settings_bytes(rsql_rmq_client_t *c, rmq_bytes_t *out, rsql_error_t *err)
{
    rmq_settings_out_t s;
    memset(&s, 0, sizeof(s));
    s.client_type = (int32_t)c->type;
    s.access_point = c->ap;
    s.n_access_point = c->n_ap;
    s.request_timeout_ms = c->request_timeout_ms;
    s.name_space = c->name_space;
    s.topics = (const char *const *)c->topics;
    s.n_topics = c->n_topics;
    s.group = c->group;
    s.filter_type = (int32_t)c->filter_type;
    s.filter_expression = c->filter_expression;
    s.long_polling_timeout_ms = c->long_polling_ms;
    s.version = RMQ_CLIENT_VERSION;
    s.hostname = c->hostname;
    return rsql_rmq__enc_settings(&s, out, err);
}

/* Start the next queued write of the Telemetry call if none is in flight. @locks c->mu held */
static void tele_pump0(rmq_call_t *k)
{
    if (k->write_busy || !k->wq_head) {
        return;
    }
    rmq_write_t *w = k->wq_head;
    k->wq_head = w->next;
    if (!k->wq_head) {
        k->wq_tail = NULL;
    }
    grpc_op op;
    memset(&op, 0, sizeof(op));
    if (w->bb) {
        op.op = GRPC_OP_SEND_MESSAGE;
        op.data.send_message.send_message = w->bb;
    } else {
        op.op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    }
    if (k->send_bb) {
        grpc_byte_buffer_destroy(k->send_bb);
    }
    k->send_bb = w->bb; /* freed when the next write starts or with the call */
    rsql_free(w);
    k->write_busy = true;
    k->pending++;
    if (grpc_call_start_batch(k->gcall, &op, 1, &k->t_write, NULL) != GRPC_CALL_OK) {
        k->pending--;
        k->write_busy = false;
    }
}

/* Queue a Telemetry write (bytes; NULL = half-close). */
static void tele_write(rsql_rmq_client_t *c, const rmq_bytes_t *b)
{
    pthread_mutex_lock(&c->mu);
    rmq_call_t *k = c->telemetry;
    if (k) {
        rmq_write_t *w = rsql_calloc(1, sizeof(*w));
        if (w) {
            w->bb = b ? bb_from(b) : NULL;
            if (k->wq_tail) {
                k->wq_tail->next = w;
            } else {
                k->wq_head = w;
            }
            k->wq_tail = w;
            tele_pump0(k);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

static void tele_send_settings(rsql_rmq_client_t *c)
{
    rmq_bytes_t b;
    if (settings_bytes(c, &b, NULL) == RSQL_OK) {
        tele_write(c, &b);
        rsql_free(b.data);
    }
}

/* Open the Telemetry stream and send the Settings. */
static rsql_err_t tele_open(rsql_rmq_client_t *c, rsql_error_t *err)
{
    rmq_call_t *k = call_new(c, RMQ_RPC_TELEMETRY, NULL, 0, err);
    if (!k) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    pthread_mutex_lock(&c->mu);
    c->telemetry = k;
    pthread_mutex_unlock(&c->mu);
    if (call_start(k, err) != RSQL_OK) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    pthread_mutex_lock(&c->mu);
    start_recv(k, true);
    start_status(k);
    pthread_mutex_unlock(&c->mu);
    tele_send_settings(c);
    return RSQL_OK;
}

static void lite_remove0(rsql_rmq_client_t *c, const char *t);
static bool is_lite(const rsql_rmq_client_t *c);
static rsql_err_t lite_resync(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                              rsql_error_t *err);

static void apply_settings(rsql_rmq_client_t *c, const rsql_rmq_server_settings_t *s)
{
    pthread_mutex_lock(&c->mu);
    rsql_rmq_server_settings_t *d = &c->settings;
    d->received = true;
    if (s->max_body_size > 0) {
        d->max_body_size = s->max_body_size;
    }
    d->validate_message_type = s->validate_message_type;
    d->fifo = s->fifo;
    if (s->receive_batch_size > 0) {
        d->receive_batch_size = s->receive_batch_size;
    }
    if (s->long_polling_timeout_ms > 0) {
        d->long_polling_timeout_ms = s->long_polling_timeout_ms;
    }
    if (s->lite_subscription_quota > 0) {
        d->lite_subscription_quota = s->lite_subscription_quota;
    }
    if (s->max_lite_topic_size > 0) {
        d->max_lite_topic_size = s->max_lite_topic_size;
    }
    if (s->max_attempts > 0) {
        d->max_attempts = s->max_attempts;
    }
    c->settings_gen++;
    c->telemetry_backoff_ms = RMQ_TELEMETRY_BACKOFF_MIN_MS;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
}

static void tele_command(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    rmq_bytes_t b;
    if (!take_recv(k, &b)) {
        return;
    }
    rmq_tcmd_t cmd;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_rmq__dec_telemetry(b.data, b.len, &cmd, &e) != RSQL_OK) {
        rsql_free(b.data);
        return;
    }
    rsql_free(b.data);
    if (cmd.has_status && cmd.status_code != RSQL_RMQ_CODE_OK) {
        rsql_error_t se;
        rsql_error_clear(&se);
        rsql_rmq__status_error(cmd.status_code, cmd.status_message, &se);
        pthread_mutex_lock(&c->mu);
        rsql_error_copy(&c->telemetry_err, &se);
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->mu);
    }
    rmq_bytes_t reply = {NULL, 0};
    switch (cmd.kind) {
    case RMQ_TCMD_SETTINGS:
        if (!cmd.has_status || cmd.status_code == RSQL_RMQ_CODE_OK) {
            apply_settings(c, &cmd.settings);
            emit(c, RSQL_RMQ_EV_SETTINGS, NULL, NULL);
        }
        break;
    case RMQ_TCMD_PRINT_STACK:
        rsql_rmq__enc_telemetry_reply(false, cmd.nonce, RSQL_RMQ_CODE_OK, "OK", &reply, NULL);
        break;
    case RMQ_TCMD_VERIFY_MESSAGE:
        rsql_rmq__enc_telemetry_reply(true, cmd.nonce, RSQL_RMQ_CODE_NOT_IMPLEMENTED,
                                      "rocketsql does not verify messages", &reply, NULL);
        break;
    case RMQ_TCMD_RECONNECT:
        emit(c, RSQL_RMQ_EV_RECONNECT, NULL, NULL);
        grpc_call_cancel(k->gcall, NULL); /* the status completion re-opens the stream */
        break;
    case RMQ_TCMD_UNSUBSCRIBE_LITE:
        pthread_mutex_lock(&c->mu);
        lite_remove0(c, cmd.lite_topic ? cmd.lite_topic : "");
        pthread_mutex_unlock(&c->mu);
        emit(c, RSQL_RMQ_EV_UNSUBSCRIBE_LITE, cmd.lite_topic, NULL);
        break;
    default:
        break;
    }
    if (reply.data) {
        tele_write(c, &reply);
        rsql_free(reply.data);
    }
    rsql_rmq__tcmd_deinit(&cmd);
}

static void tele_broken(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (grpc_status_err(k, &e) == RSQL_OK) {
        rsql_error_set(&e, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                       "RocketMQ Telemetry stream closed by the server");
    }
    pthread_mutex_lock(&c->mu);
    bool closing = c->closing;
    rsql_error_copy(&c->telemetry_err, &e);
    if (!closing) {
        c->telemetry_reopen_at = rsql_now_ms() + c->telemetry_backoff_ms;
        c->telemetry_backoff_ms *= 2;
        if (c->telemetry_backoff_ms > RMQ_TELEMETRY_BACKOFF_MAX_MS) {
            c->telemetry_backoff_ms = RMQ_TELEMETRY_BACKOFF_MAX_MS;
        }
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
    if (!closing) {
        emit(c, RSQL_RMQ_EV_TELEMETRY_BROKEN, NULL, &e);
    }
}

/* ---- the client thread --------------------------------------------------------------------- */

static void handle(rmq_tag_t *t, bool ok)
{
    rmq_call_t *k = t->call;
    rsql_rmq_client_t *c = k->c;
    pthread_mutex_lock(&c->mu);
    k->pending--;
    pthread_mutex_unlock(&c->mu);
    if (k->rpc->kind == RMQ_UNARY) {
        finish_unary(k);
        call_release(k);
        return;
    }
    if (k->rpc->kind == RMQ_SERVER_STREAM) {
        if (t->op == OP_STATUS) {
            finish_receive(k);
            call_release(k);
            return;
        }
        /* OP_MAIN or OP_RECV: one element (or the end of the stream) */
        if (ok && k->recv_bb) {
            recv_element(k);
            pthread_mutex_lock(&c->mu);
            start_recv(k, false);
            pthread_mutex_unlock(&c->mu);
        } else {
            pthread_mutex_lock(&c->mu);
            start_status(k);
            bool none = k->pending == 0;
            pthread_mutex_unlock(&c->mu);
            if (none) {
                finish_receive(k);
                call_release(k);
            }
        }
        return;
    }
    /* Telemetry */
    switch (t->op) {
    case OP_RECV:
        if (ok && k->recv_bb) {
            tele_command(k);
            pthread_mutex_lock(&c->mu);
            start_recv(k, false);
            pthread_mutex_unlock(&c->mu);
        }
        break;
    case OP_WRITE:
        pthread_mutex_lock(&c->mu);
        k->write_busy = false;
        if (ok) {
            tele_pump0(k);
        }
        pthread_mutex_unlock(&c->mu);
        break;
    case OP_STATUS:
        pthread_mutex_lock(&c->mu);
        if (c->telemetry == k) {
            c->telemetry = NULL;
        }
        pthread_mutex_unlock(&c->mu);
        tele_broken(k);
        break;
    default:
        break;
    }
    pthread_mutex_lock(&c->mu);
    bool done = k->pending == 0 && k->status_started;
    pthread_mutex_unlock(&c->mu);
    if (done) {
        call_release(k);
    }
}

static void hb_done(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    (void)c;
    (void)err;
    (void)opaque;
}

static rsql_err_t start_heartbeat(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                                  rsql_error_t *err);
static rsql_err_t start_route(rsql_rmq_client_t *c, const char *topic,
                              void (*cb)(rsql_rmq_client_t *, const rsql_error_t *, void *),
                              void *opaque, rsql_error_t *err);

/* Run the timers that are due; returns the next deadline (monotonic ms). */
static int64_t run_timers(rsql_rmq_client_t *c)
{
    int64_t now = rsql_now_ms();
    pthread_mutex_lock(&c->mu);
    bool closing = c->closing, started = c->started;
    bool hb = started && now >= c->next_heartbeat;
    bool route = started && now >= c->next_route;
    bool sync = started && now >= c->next_settings;
    bool lite = started && is_lite(c) && now >= c->next_lite;
    bool reopen = started && c->telemetry_reopen_at && now >= c->telemetry_reopen_at &&
                  !c->telemetry;
    if (hb) {
        c->next_heartbeat = now + RMQ_HEARTBEAT_MS;
    }
    if (route) {
        c->next_route = now + RMQ_ROUTE_REFRESH_MS;
    }
    if (sync) {
        c->next_settings = now + RMQ_SETTINGS_SYNC_MS;
    }
    if (lite) {
        c->next_lite = now + RMQ_LITE_SYNC_MS;
    }
    if (reopen) {
        c->telemetry_reopen_at = 0;
    }
    pthread_mutex_unlock(&c->mu);
    if (!closing) {
        if (hb) {
            start_heartbeat(c, hb_done, NULL, NULL);
        }
        if (route) {
            for (size_t i = 0; i < c->n_topics; i++) {
                start_route(c, c->topics[i], hb_done, NULL, NULL);
            }
        }
        if (sync) {
            tele_send_settings(c);
        }
        if (lite) {
            lite_resync(c, hb_done, NULL, NULL);
        }
        if (reopen && tele_open(c, NULL) != RSQL_OK) {
            pthread_mutex_lock(&c->mu);
            c->telemetry_reopen_at = rsql_now_ms() + c->telemetry_backoff_ms;
            pthread_mutex_unlock(&c->mu);
        }
    }
    pthread_mutex_lock(&c->mu);
    int64_t next = now + 60000;
    if (c->started && !c->closing) {
        next = c->next_heartbeat < next ? c->next_heartbeat : next;
        next = c->next_route < next ? c->next_route : next;
        next = c->next_settings < next ? c->next_settings : next;
        if (is_lite(c)) {
            next = c->next_lite < next ? c->next_lite : next;
        }
        if (c->telemetry_reopen_at && c->telemetry_reopen_at < next) {
            next = c->telemetry_reopen_at;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return next;
}

/*
** The client thread: block on the completion queue until a completion or the next timer.
** @locality client thread
*/
static void *client_thread(void *arg)
{
    rsql_rmq_client_t *c = arg;
    int64_t next = rsql_now_ms() + 1000;
    for (;;) {
        int64_t wait = next - rsql_now_ms();
        if (wait < 0) {
            wait = 0;
        }
        gpr_timespec dl = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                       gpr_time_from_millis(wait, GPR_TIMESPAN));
        grpc_event ev = grpc_completion_queue_next(c->cq, dl, NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) {
            break;
        }
        if (ev.type == GRPC_OP_COMPLETE) {
            handle(ev.tag, ev.success != 0);
        }
        if (rsql_now_ms() >= next || ev.type == GRPC_QUEUE_TIMEOUT) {
            next = run_timers(c);
        }
    }
    return NULL;
}

/* ---- operations ---------------------------------------------------------------------------- */

static rsql_err_t start_simple(rsql_rmq_client_t *c, rmq_rpc_id_t id, rmq_bytes_t *req,
                               rmq_call_t **out, rsql_error_t *err)
{
    const rmq_rpc_t *rpc = rsql_rmq__rpc(id);
    int64_t dl = c->request_timeout_ms + (rpc->long_poll ? c->long_polling_ms : 0);
    rmq_call_t *k = call_new(c, id, req, dl, err);
    rsql_free(req->data);
    req->data = NULL;
    if (!k) {
        return err && err->code ? err->code : RSQL_ERR_INTERNAL;
    }
    *out = k;
    return RSQL_OK;
}

static rsql_err_t start_heartbeat(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                                  rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    if (rsql_rmq__enc_heartbeat(c->name_space, c->group, (int32_t)c->type, &b, err) != RSQL_OK ||
        start_simple(c, RMQ_RPC_HEARTBEAT, &b, &k, err) != RSQL_OK) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    return call_start(k, err);
}

static rsql_err_t start_route(rsql_rmq_client_t *c, const char *topic,
                              void (*cb)(rsql_rmq_client_t *, const rsql_error_t *, void *),
                              void *opaque, rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    if (rsql_rmq__enc_query_route(c->name_space, topic, c->ap, c->n_ap, &b, err) != RSQL_OK ||
        start_simple(c, RMQ_RPC_QUERY_ROUTE, &b, &k, err) != RSQL_OK) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    k->api = API_ROUTE;
    k->cb.route = cb;
    k->opaque = opaque;
    k->topic = rsql_strdup(topic);
    return call_start(k, err);
}

static bool route_known(rsql_rmq_client_t *c, const char *topic)
{
    bool known = false;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n_routes && !known; i++) {
        known = strcmp(c->routes[i].topic, topic) == 0;
    }
    pthread_mutex_unlock(&c->mu);
    return known;
}

/* Route query before a send finished: start the send or fail it. @locality client thread */
static void send_after_route(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    rmq_call_t *k = opaque;
    rsql_rmq_send_cb cb = k->cb.send;
    void *op = k->opaque;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (err) {
        rsql_error_copy(&e, err);
        call_release(k);
        cb(c, &e, NULL, 0, op);
    } else if (call_start(k, &e) != RSQL_OK) {
        cb(c, &e, NULL, 0, op);
    }
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_send(rsql_rmq_client_t *c, const rsql_rmq_out_msg_t *msgs, size_t n,
                         rsql_rmq_send_cb cb, void *opaque, rsql_error_t *err)
{
    if (n == 0) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "RocketMQ send of no message");
    }
    rsql_rmq_server_settings_t s;
    rsql_rmq_client_settings(c, &s);
    for (size_t i = 0; i < n; i++) {
        if (!msgs[i].topic || !*msgs[i].topic) {
            return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "RocketMQ message without topic");
        }
        if (msgs[i].body_len == 0) {
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_rmq__status_error(41302, "message body is empty", &e);
            rsql_error_copy(err, &e);
            return e.code;
        }
        if (s.max_body_size > 0 && msgs[i].body_len > (size_t)s.max_body_size) {
            char m[128];
            snprintf(m, sizeof(m), "message body of %zu bytes exceeds the maximum of %d bytes",
                     msgs[i].body_len, (int)s.max_body_size);
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_rmq__status_error(RSQL_RMQ_CODE_MESSAGE_BODY_TOO_LARGE, m, &e);
            rsql_error_copy(err, &e);
            return e.code;
        }
    }
    char (*ids)[35] = rsql_calloc(n, sizeof(*ids));
    const char **pids = rsql_calloc(n, sizeof(char *));
    if (!ids || !pids) {
        rsql_free(ids);
        rsql_free(pids);
        return nomem(err);
    }
    for (size_t i = 0; i < n; i++) {
        rsql_rmq__msgid_new(ids[i]);
        pids[i] = ids[i];
    }
    int64_t born = rsql_wall_ms();
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_send(c->name_space, msgs, n, pids, born, c->hostname, &b, err);
    rsql_free(ids);
    rsql_free(pids);
    if (rc != RSQL_OK || (rc = start_simple(c, RMQ_RPC_SEND_MESSAGE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_SEND;
    k->n_out = n;
    k->cb.send = cb;
    k->opaque = opaque;
    if (route_known(c, msgs[0].topic)) {
        return call_start(k, err);
    }
    /* Like the official clients: a topic is routed before the first send to it, so a missing
       topic fails with TOPIC_NOT_FOUND (the proxy itself would report a type conflict). */
    rc = start_route(c, msgs[0].topic, send_after_route, k, err);
    if (rc != RSQL_OK) {
        call_release(k);
    }
    return rc;
}

/* Pick a readable master queue of topic (round-robin); copies it into *q (caller deinit). */
static rsql_err_t pick_queue(rsql_rmq_client_t *c, const char *topic, rmq_route_t *one,
                             rsql_error_t *err)
{
    memset(one, 0, sizeof(*one));
    pthread_mutex_lock(&c->mu);
    const char *t = topic;
    if (!t) {
        t = c->n_topics ? c->topics[c->topic_rr++ % c->n_topics] : "";
    }
    rmq_topic_route_t *tr = NULL;
    for (size_t i = 0; i < c->n_routes; i++) {
        if (strcmp(c->routes[i].topic, t) == 0) {
            tr = &c->routes[i];
        }
    }
    const rmq_queue_t *sel = NULL;
    for (size_t i = 0; tr && i < tr->route.n_queues && !sel; i++) {
        const rmq_queue_t *q = &tr->route.queues[(tr->rr + i) % tr->route.n_queues];
        if ((q->permission == 2 || q->permission == 4) && q->broker_id == 0) {
            sel = q;
            tr->rr = (unsigned)((tr->rr + i + 1) % tr->route.n_queues);
        }
    }
    rsql_err_t rc = RSQL_OK;
    if (!sel) {
        rc = rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                            "RocketMQ: no readable queue known for topic '%s'", t);
    } else {
        rmq_queue_t *q = rsql_calloc(1, sizeof(*q));
        bool oom = !q;
        if (q) {
            one->queues = q;
            one->n_queues = 1;
            q->topic = rsql_strdup(sel->topic);
            q->id = sel->id;
            q->permission = sel->permission;
            q->broker_name = rsql_strdup(sel->broker_name ? sel->broker_name : "");
            q->broker_id = sel->broker_id;
            q->scheme = sel->scheme;
            oom = !q->topic || !q->broker_name;
            if (sel->n_addrs && (q->addrs = rsql_calloc(sel->n_addrs, sizeof(rmq_addr_t)))) {
                for (size_t i = 0; i < sel->n_addrs; i++) {
                    q->addrs[i].host = rsql_strdup(sel->addrs[i].host);
                    q->addrs[i].port = sel->addrs[i].port;
                    q->n_addrs++;
                    oom = oom || !q->addrs[i].host;
                }
            } else if (sel->n_addrs) {
                oom = true;
            }
            if (sel->n_accept_types &&
                (q->accept_types = rsql_calloc(sel->n_accept_types, sizeof(int32_t)))) {
                memcpy(q->accept_types, sel->accept_types, sel->n_accept_types * sizeof(int32_t));
                q->n_accept_types = sel->n_accept_types;
            }
        }
        if (oom) {
            rsql_rmq__route_deinit(one);
            rc = nomem(err);
        }
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_receive(rsql_rmq_client_t *c, const char *topic, int batch_size,
                            int64_t invisible_ms, rsql_rmq_receive_cb cb, void *opaque,
                            rsql_error_t *err)
{
    if (!c->group) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ receive needs a consumer client");
    }
    rmq_route_t one;
    rsql_err_t rc = pick_queue(c, topic, &one, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rc = rsql_rmq__enc_receive(c->name_space, c->group, &one.queues[0], (int32_t)c->filter_type,
                               c->filter_expression, batch_size > 0 ? batch_size : 32,
                               invisible_ms, c->long_polling_ms, &b, err);
    rsql_rmq__route_deinit(&one);
    if (rc != RSQL_OK || (rc = start_simple(c, RMQ_RPC_RECEIVE_MESSAGE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_RECEIVE;
    k->cb.receive = cb;
    k->opaque = opaque;
    return call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_ack(rsql_rmq_client_t *c, const char *topic,
                        const rsql_rmq_ack_entry_t *entries, size_t n, rsql_rmq_ack_cb cb,
                        void *opaque, rsql_error_t *err)
{
    if (!c->group || n == 0) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ ack needs a consumer client and entries");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_ack(c->name_space, c->group, topic, entries, n, &b, err);
    if (rc != RSQL_OK || (rc = start_simple(c, RMQ_RPC_ACK_MESSAGE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_ACK;
    k->cb.ack = cb;
    k->opaque = opaque;
    return call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_change_invisible(rsql_rmq_client_t *c, const char *topic,
                                     const char *message_id, const char *receipt_handle,
                                     const char *lite_topic, int64_t invisible_ms, bool suspend,
                                     rsql_rmq_change_cb cb, void *opaque, rsql_error_t *err)
{
    if (!c->group) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ change-invisible needs a consumer client");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_change_invisible(c->name_space, c->group, topic, message_id,
                                                   receipt_handle, lite_topic, invisible_ms,
                                                   suspend, &b, err);
    if (rc != RSQL_OK ||
        (rc = start_simple(c, RMQ_RPC_CHANGE_INVISIBLE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_CHANGE;
    k->cb.change = cb;
    k->opaque = opaque;
    return call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_forward_to_dlq(rsql_rmq_client_t *c, const rsql_rmq_msg_t *m,
                                   int32_t max_delivery_attempts, rsql_rmq_status_cb cb,
                                   void *opaque, rsql_error_t *err)
{
    if (!c->group) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ DLQ forwarding needs a consumer client");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_forward_dlq(c->name_space, c->group, m, max_delivery_attempts,
                                              &b, err);
    if (rc != RSQL_OK || (rc = start_simple(c, RMQ_RPC_FORWARD_DLQ, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    return call_start(k, err);
}

static bool is_lite(const rsql_rmq_client_t *c)
{
    return c->type == RSQL_RMQ_LITE_PUSH_CONSUMER || c->type == RSQL_RMQ_LITE_SIMPLE_CONSUMER;
}

/* Drop t from the local lite set. @locks c->mu held */
static void lite_remove0(rsql_rmq_client_t *c, const char *t)
{
    for (size_t i = 0; i < c->n_lite_set; i++) {
        if (strcmp(c->lite_set[i], t) == 0) {
            rsql_free(c->lite_set[i]);
            c->lite_set[i] = c->lite_set[--c->n_lite_set];
            return;
        }
    }
}

/* Apply an action to the local lite set (what the periodic COMPLETE_ADD re-sends). */
static void lite_apply(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                       const char *const *topics, size_t n)
{
    pthread_mutex_lock(&c->mu);
    if (action == RSQL_RMQ_LITE_COMPLETE_ADD || action == RSQL_RMQ_LITE_COMPLETE_REMOVE) {
        while (c->n_lite_set) {
            rsql_free(c->lite_set[--c->n_lite_set]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        lite_remove0(c, topics[i]);
        if (action == RSQL_RMQ_LITE_PARTIAL_ADD || action == RSQL_RMQ_LITE_COMPLETE_ADD) {
            char **ns = rsql_realloc(c->lite_set, (c->n_lite_set + 1) * sizeof(char *));
            char *d = rsql_strdup(topics[i]);
            if (ns) {
                c->lite_set = ns;
            }
            if (ns && d) {
                c->lite_set[c->n_lite_set++] = d;
            } else {
                rsql_free(d);
            }
        }
    }
    pthread_mutex_unlock(&c->mu);
}

/* COMPLETE_ADD of the whole local lite set (empty for a wildcard group). */
static rsql_err_t lite_resync(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                              rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    pthread_mutex_lock(&c->mu);
    rsql_err_t rc = rsql_rmq__enc_sync_lite(c->name_space, RSQL_RMQ_LITE_COMPLETE_ADD,
                                            c->topics[0], c->group,
                                            (const char *const *)c->lite_set, c->n_lite_set, &b,
                                            err);
    pthread_mutex_unlock(&c->mu);
    if (rc != RSQL_OK || (rc = start_simple(c, RMQ_RPC_SYNC_LITE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    return call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_sync_lite(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                              const char *const *lite_topics, size_t n, rsql_rmq_status_cb cb,
                              void *opaque, rsql_error_t *err)
{
    if (!c->group || c->n_topics != 1) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ lite subscription needs a consumer with one bind topic");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_sync_lite(c->name_space, (int32_t)action, c->topics[0],
                                            c->group, lite_topics, n, &b, err);
    if (rc != RSQL_OK || (rc = start_simple(c, RMQ_RPC_SYNC_LITE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    rc = call_start(k, err);
    if (rc == RSQL_OK) {
        lite_apply(c, action, lite_topics, n);
    }
    return rc;
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

static grpc_channel *make_channel(rsql_rmq_client_t *c)
{
    grpc_arg args[5];
    args[0] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_KEEPALIVE_TIME_MS, {.integer = 300000}};
    args[1] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_KEEPALIVE_TIMEOUT_MS, {.integer = 30000}};
    args[2] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
                         {.integer = -1}};
    args[3] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
                         {.integer = 1000}};
    /* at most 5 s between reconnect attempts: a restarted proxy is found again quickly */
    args[4] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
                         {.integer = 5000}};
    grpc_channel_args ca = {5, args};
    grpc_channel_credentials *creds =
        c->tls ? grpc_ssl_credentials_create(NULL, NULL, NULL, NULL)
               : grpc_insecure_credentials_create();
    grpc_channel *ch = grpc_channel_create(c->target, creds, &ca);
    grpc_channel_credentials_release(creds);
    return ch;
}

static void stop_thread(rsql_rmq_client_t *c)
{
    /* Cancel whatever is still in flight and wait until every call has completed. */
    pthread_mutex_lock(&c->mu);
    c->closing = true;
    for (rmq_call_t *k = c->active; k; k = k->next) {
        grpc_call_cancel(k->gcall, NULL);
    }
    while (c->n_active > 0) {
        pthread_cond_wait(&c->cond, &c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    grpc_completion_queue_shutdown(c->cq);
    pthread_join(c->thread, NULL);
    c->thread_started = false;
    grpc_completion_queue_destroy(c->cq);
    c->cq = NULL;
    grpc_channel_destroy(c->channel);
    c->channel = NULL;
    grpc_shutdown();
}

static void start_route_cb(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    rsql_rmq__sync_signal(opaque, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_client_start(rsql_rmq_client_t *c, rsql_error_t *err)
{
    if (c->started || c->thread_started) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "RocketMQ client already started");
    }
    grpc_init();
    c->closing = false;
    c->channel = make_channel(c);
    c->cq = grpc_completion_queue_create_for_next(NULL);
    if (pthread_create(&c->thread, NULL, client_thread, c) != 0) {
        grpc_completion_queue_shutdown(c->cq);
        grpc_completion_queue_destroy(c->cq);
        grpc_channel_destroy(c->channel);
        grpc_shutdown();
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "cannot start the RocketMQ client thread: %s", strerror(errno));
    }
    c->thread_started = true;
    rsql_err_t rc = RSQL_OK;
    /* 1. routes, three attempts each */
    for (size_t i = 0; rc == RSQL_OK && i < c->n_topics; i++) {
        for (int attempt = 1;; attempt++) {
            rsql_error_t e;
            rsql_error_clear(&e);
            rmq_sync_t s;
            rsql_rmq__sync_init(&s);
            rc = rsql_rmq__sync_wait(&s, start_route(c, c->topics[i], start_route_cb, &s, &e), &e);
            if (rc == RSQL_OK) {
                break;
            }
            if (attempt >= 3 || !rsql_error_retriable(&e)) {
                rsql_error_copy(err, &e);
                break;
            }
            usleep(200000u * (unsigned)attempt);
            rc = RSQL_OK;
        }
    }
    /* 2. Telemetry + Settings, wait for the server's Settings */
    if (rc == RSQL_OK) {
        rsql_error_clear(&c->telemetry_err);
        rc = tele_open(c, err);
    }
    if (rc == RSQL_OK) {
        int64_t wait_ms = 3000 + c->request_timeout_ms;
        int64_t dl = rsql_deadline_in(wait_ms);
        pthread_mutex_lock(&c->mu);
        while (!c->settings.received && c->telemetry_err.code == RSQL_OK) {
            if (rsql_cond_wait_until(&c->cond, &c->mu, dl) == ETIMEDOUT) {
                break;
            }
        }
        if (!c->settings.received) {
            if (c->telemetry_err.code != RSQL_OK) {
                rsql_error_copy(err, &c->telemetry_err);
                rc = c->telemetry_err.code;
            } else {
                rc = rsql_error_set(err, RSQL_ERR_TIMEOUT, RSQL_NOPOS,
                                    "RocketMQ: no Settings reply from %s within %lld ms",
                                    c->target, (long long)wait_ms);
            }
        }
        pthread_mutex_unlock(&c->mu);
    }
    /* 3. a first heartbeat (registers consumers; surfaces a refused client type) */
    if (rc == RSQL_OK) {
        rmq_sync_t s;
        rsql_rmq__sync_init(&s);
        rc = rsql_rmq__sync_wait(&s, start_heartbeat(c, rsql_rmq__sync_status_cb, &s, err), err);
    }
    /* 4. lite consumers: COMPLETE_ADD of the (initially empty) lite set; with a wildcard group
       this is what starts the delivery of every lite topic under the bind topic. */
    if (rc == RSQL_OK && is_lite(c)) {
        rmq_sync_t s;
        rsql_rmq__sync_init(&s);
        rc = rsql_rmq__sync_wait(&s, lite_resync(c, rsql_rmq__sync_status_cb, &s, err), err);
    }
    if (rc != RSQL_OK) {
        stop_thread(c);
        pthread_mutex_lock(&c->mu);
        c->settings.received = false;
        pthread_mutex_unlock(&c->mu);
        return rc;
    }
    int64_t now = rsql_now_ms();
    pthread_mutex_lock(&c->mu);
    c->started = true;
    c->next_heartbeat = now + RMQ_HEARTBEAT_MS;
    c->next_route = now + RMQ_ROUTE_REFRESH_MS;
    c->next_settings = now + RMQ_SETTINGS_SYNC_MS;
    c->next_lite = now + RMQ_LITE_SYNC_MS;
    pthread_mutex_unlock(&c->mu);
    return RSQL_OK;
}

/* See rmq_client.h. */
void rsql_rmq_client_destroy(rsql_rmq_client_t *c)
{
    if (!c) {
        return;
    }
    if (c->thread_started) {
        if (c->started) {
            /* NotifyClientTermination, then half-close Telemetry. */
            rmq_bytes_t b;
            rmq_call_t *k;
            rmq_sync_t s;
            rsql_rmq__sync_init(&s);
            rsql_err_t rc = rsql_rmq__enc_notify_termination(c->name_space, c->group, &b, NULL);
            if (rc == RSQL_OK) {
                rc = start_simple(c, RMQ_RPC_NOTIFY_TERMINATION, &b, &k, NULL);
            }
            if (rc == RSQL_OK) {
                k->api = API_STATUS;
                k->cb.status = rsql_rmq__sync_status_cb;
                k->opaque = &s;
                rc = call_start(k, NULL);
            }
            rsql_rmq__sync_wait(&s, rc, NULL);
            pthread_mutex_lock(&c->mu);
            c->closing = true;
            pthread_mutex_unlock(&c->mu);
            tele_write(c, NULL);
            /* Give the server a moment to end the stream after our half-close. */
            int64_t dl = rsql_deadline_in(1000);
            pthread_mutex_lock(&c->mu);
            while (c->telemetry) {
                if (rsql_cond_wait_until(&c->cond, &c->mu, dl) == ETIMEDOUT) {
                    break;
                }
            }
            pthread_mutex_unlock(&c->mu);
        }
        stop_thread(c);
    }
    client_free(c);
}
