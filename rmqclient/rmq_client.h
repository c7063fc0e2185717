/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_client: a C client of the RocketMQ 5.x gRPC protocol (apache.rocketmq.v2), the transport
 * under the rocketmq-grpc source and sink. It speaks to one access point (a RocketMQ proxy) and
 * implements what the official clients do: QueryRoute per topic, the Telemetry stream with the
 * client Settings (and the server's commands), heartbeats, route refresh, NotifyClientTermination
 * at close, and the data RPCs: SendMessage, ReceiveMessage (long poll), AckMessage,
 * ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue and SyncLiteSubscription.
 *
 * Threading model
 *   - One client = one access point = one gRPC channel (grpc C core) and ONE client thread that
 *     owns a grpc_completion_queue (CQ_NEXT). The thread blocks in grpc_completion_queue_next()
 *     with a deadline equal to its next timer (heartbeat every 10 s, route refresh every 30 s,
 *     settings re-sync every 5 min, Telemetry re-open with backoff); it never spins. There is no
 *     thread per call.
 *   - The operation functions below may be called from any thread: they encode the request and
 *     start the gRPC batch directly (grpc_call_start_batch is thread-safe); only completions run
 *     on the client thread.
 *   - Every operation that returns RSQL_OK gets EXACTLY ONE completion callback, on the client
 *     thread, with err == NULL on success. If the call returns an error, no callback comes.
 *     Callbacks must not block (post the result to your own queue, as the pipeline worker does)
 *     and must not call rsql_rmq_client_destroy(); they may start new operations.
 *   - Pointers handed to a callback (err, results, strings) are valid only during the callback,
 *     except received messages, whose ownership passes to the callback (see rsql_rmq_receive_cb).
 *
 * Errors: a RocketMQ Status that is not OK becomes an rsql_error_t with remote_code = the Status
 * code and the message "RocketMQ <NAME> (<code>): <server message>"; retriable statuses (429xx,
 * 5xxxx, gRPC UNAVAILABLE/DEADLINE_EXCEEDED...) get a transient code, the others a permanent
 * one, so rsql_error_retriable() tells them apart (the one map is rmq_status.c).
 *
 * Connection loss: grpc reconnects the channel by itself (with its own backoff); meanwhile calls
 * fail with UNAVAILABLE (retriable). The client thread re-opens a broken Telemetry stream with
 * backoff (1 s doubling to 30 s) and re-sends the Settings, so the proxy re-registers the client.
 * A server ReconnectEndpointsCommand closes and re-opens the Telemetry stream the same way.
 *
 * TLS: tls = true uses grpc_ssl_credentials_create, i.e. the server certificate IS verified:
 * against tls_ca_file, or gRPC's default roots (GRPC_DEFAULT_SSL_ROOTS_FILE_PATH selects
 * another roots file), and its name against tls_server_name or the endpoint's host. A proxy
 * with its default self-signed certificate therefore fails to connect unless its CA is given.
 * tls_cert_file/tls_key_file add a client certificate. A certificate that is refused is a
 * permanent error that says so (rmq_status.c), not an endless UNAVAILABLE. We never disable
 * verification.
 *
 * With a proxy all route entries point back at the proxy, so every RPC of a client goes over its
 * access point channel; received messages record that endpoint string.
 *
 * This header owns the client's public API and the one table of the protocol's numbers (status
 * codes, permissions, ...): the connector (connectors/rocketmq/) includes it and no other header
 * of rmqclient/, and the client depends on base/ only. It must not expose a gRPC or protobuf-c
 * type, nor anything of the client's implementation (rmq_int.h and the engine's own headers).
 */
#ifndef RSQL_RMQ_CLIENT_H
#define RSQL_RMQ_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_error.h"

typedef struct rsql_rmq_client rsql_rmq_client_t;

/* Values are the protocol's ClientType numbers. */
typedef enum rsql_rmq_client_type {
    RSQL_RMQ_PRODUCER = 1,
    RSQL_RMQ_SIMPLE_CONSUMER = 3,
    RSQL_RMQ_LITE_PUSH_CONSUMER = 5,  /* use this for lite sources: the 5.5.0 proxy refuses 6 on
                                         Telemetry ("Client type is not consumer"); the client
                                         still drives ReceiveMessage itself (auto_renew=false) */
    RSQL_RMQ_LITE_SIMPLE_CONSUMER = 6
} rsql_rmq_client_type_t;

/* Values are the protocol's FilterType numbers. */
typedef enum rsql_rmq_filter_type { RSQL_RMQ_FILTER_TAG = 1, RSQL_RMQ_FILTER_SQL = 2 } rsql_rmq_filter_type_t;

/* Values are the protocol's MessageType numbers. */
typedef enum rsql_rmq_msg_type {
    RSQL_RMQ_MSG_AUTO = 0, /* derive: message_group → FIFO, lite_topic → LITE, else NORMAL */
    RSQL_RMQ_MSG_NORMAL = 1,
    RSQL_RMQ_MSG_FIFO = 2,
    RSQL_RMQ_MSG_DELAY = 3,
    RSQL_RMQ_MSG_TRANSACTION = 4,
    RSQL_RMQ_MSG_LITE = 5
} rsql_rmq_msg_type_t;

/* Values are the protocol's LiteSubscriptionAction numbers. */
typedef enum rsql_rmq_lite_action {
    RSQL_RMQ_LITE_PARTIAL_ADD = 0,
    RSQL_RMQ_LITE_PARTIAL_REMOVE = 1,
    RSQL_RMQ_LITE_COMPLETE_ADD = 2,
    RSQL_RMQ_LITE_COMPLETE_REMOVE = 3
} rsql_rmq_lite_action_t;

/* ---- protocol numbers ------------------------------------------------------------------ */
/*
** The one table of the protocol's numbers: every RocketMQ Status code, permission or other
** wire number the connector compares or sends is named here (the enums above are the others),
** never written as a literal. gRPC status numbers are grpc's (rmq_status.c names them).
*/

/*
** RocketMQ Status codes (apache.rocketmq.v2.Code), declared once as X(NAME, number): the map
** makes the RSQL_RMQ_CODE_<NAME> constants and the name table of rmq_status.c ("RocketMQ
** <NAME> (<number>): ..."). A Status that is not OK reaches the caller as err->remote_code and
** as the code of send and ack entries.
*/
#define RSQL_RMQ_CODE_MAP(X)                       \
    X(OK, 20000)                                   \
    X(MULTIPLE_RESULTS, 30000)                     \
    X(BAD_REQUEST, 40000)                          \
    X(ILLEGAL_ACCESS_POINT, 40001)                 \
    X(ILLEGAL_TOPIC, 40002)                        \
    X(ILLEGAL_CONSUMER_GROUP, 40003)               \
    X(ILLEGAL_MESSAGE_TAG, 40004)                  \
    X(ILLEGAL_MESSAGE_KEY, 40005)                  \
    X(ILLEGAL_MESSAGE_GROUP, 40006)                \
    X(ILLEGAL_MESSAGE_PROPERTY_KEY, 40007)         \
    X(INVALID_TRANSACTION_ID, 40008)               \
    X(ILLEGAL_MESSAGE_ID, 40009)                   \
    X(ILLEGAL_FILTER_EXPRESSION, 40010)            \
    X(ILLEGAL_INVISIBLE_TIME, 40011)               \
    X(ILLEGAL_DELIVERY_TIME, 40012)                \
    X(INVALID_RECEIPT_HANDLE, 40013)               \
    X(MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, 40014)  \
    X(UNRECOGNIZED_CLIENT_TYPE, 40015)             \
    X(MESSAGE_CORRUPTED, 40016)                    \
    X(CLIENT_ID_REQUIRED, 40017)                   \
    X(ILLEGAL_POLLING_TIME, 40018)                 \
    X(ILLEGAL_OFFSET, 40019)                       \
    X(ILLEGAL_LITE_TOPIC, 40020)                   \
    X(INVALID_CLIENT_PROPERTIES, 40021)            \
    X(UNAUTHORIZED, 40100)                         \
    X(PAYMENT_REQUIRED, 40200)                     \
    X(FORBIDDEN, 40300)                            \
    X(NOT_FOUND, 40400)                            \
    X(MESSAGE_NOT_FOUND, 40401)                    \
    X(TOPIC_NOT_FOUND, 40402)                      \
    X(CONSUMER_GROUP_NOT_FOUND, 40403)             \
    X(OFFSET_NOT_FOUND, 40404)                     \
    X(REQUEST_TIMEOUT, 40800)                      \
    X(PAYLOAD_TOO_LARGE, 41300)                    \
    X(MESSAGE_BODY_TOO_LARGE, 41301)               \
    X(MESSAGE_BODY_EMPTY, 41302)                   \
    X(PRECONDITION_FAILED, 42800)                  \
    X(TOO_MANY_REQUESTS, 42900)                    \
    X(LITE_TOPIC_QUOTA_EXCEEDED, 42901)            \
    X(LITE_SUBSCRIPTION_QUOTA_EXCEEDED, 42902)     \
    X(REQUEST_HEADER_FIELDS_TOO_LARGE, 43100)      \
    X(MESSAGE_PROPERTIES_TOO_LARGE, 43101)         \
    X(INTERNAL_ERROR, 50000)                       \
    X(INTERNAL_SERVER_ERROR, 50001)                \
    X(HA_NOT_AVAILABLE, 50002)                     \
    X(NOT_IMPLEMENTED, 50100)                      \
    X(PROXY_TIMEOUT, 50400)                        \
    X(MASTER_PERSISTENCE_TIMEOUT, 50401)           \
    X(SLAVE_PERSISTENCE_TIMEOUT, 50402)            \
    X(UNSUPPORTED, 50500)                          \
    X(VERSION_UNSUPPORTED, 50501)                  \
    X(VERIFY_FIFO_MESSAGE_UNSUPPORTED, 50502)      \
    X(FAILED_TO_CONSUME_MESSAGE, 60000)

typedef enum rsql_rmq_code {
#define RSQL_RMQ_CODE_ENUM_(name, number) RSQL_RMQ_CODE_##name = number,
    RSQL_RMQ_CODE_MAP(RSQL_RMQ_CODE_ENUM_)
#undef RSQL_RMQ_CODE_ENUM_
} rsql_rmq_code_t;

/* Code classes [MIN, END): 429xx the server throttles, 5xxxx the server failed (retriable). */
#define RSQL_RMQ_CODE_THROTTLED_MIN 42900
#define RSQL_RMQ_CODE_THROTTLED_END 43000
#define RSQL_RMQ_CODE_SERVER_MIN 50000
#define RSQL_RMQ_CODE_SERVER_END 60000

/* Values are the protocol's Permission numbers (MessageQueue.permission). */
typedef enum rsql_rmq_permission {
    RSQL_RMQ_PERM_NONE = 1,
    RSQL_RMQ_PERM_READ = 2,
    RSQL_RMQ_PERM_WRITE = 3,
    RSQL_RMQ_PERM_READ_WRITE = 4
} rsql_rmq_permission_t;

/* Broker.id of a master broker (the client receives only from a master's queues). */
#define RSQL_RMQ_MASTER_BROKER_ID 0

/* "TOPIC_NOT_FOUND" for RSQL_RMQ_CODE_TOPIC_NOT_FOUND; "UNKNOWN" for a code not in the map. */
const char *rsql_rmq_code_name(int32_t code);
/* True when a retry of the same request may succeed (429xx, 5xxxx, REQUEST_TIMEOUT). */
bool rsql_rmq_code_retriable(int32_t code);
/*
** True when a status says the proxy has no client Settings for the caller's client id (5.5:
** INTERNAL_SERVER_ERROR whose text holds `"settings" is null`, the NullPointerException of
** ReceiveMessage, or `"this.channel" is null`, the one of ChangeInvisibleDuration/Ack for a
** client id without the channel its Settings register; UNRECOGNIZED_CLIENT_TYPE "cannot find client settings" of Heartbeat and
** NotifyClientTermination). Such a status is transient: the client re-sends its
** Settings at once (at most one every RSQL_RMQ_SETTINGS_RESEND_MS), so a retry after that may
** succeed.
*/
bool rsql_rmq_settings_missing(int32_t code, const char *msg);
#define RSQL_RMQ_SETTINGS_RESEND_MS 1000

/* Things the server tells the client outside of a call (delivered on the client thread). */
typedef enum rsql_rmq_event_kind {
    RSQL_RMQ_EV_SETTINGS = 1,         /* the server's Settings were (re)applied */
    RSQL_RMQ_EV_TELEMETRY_BROKEN,     /* the Telemetry stream ended; err says why */
    RSQL_RMQ_EV_UNSUBSCRIBE_LITE,     /* NotifyUnsubscribeLiteCommand; lite_topic set */
    RSQL_RMQ_EV_RECONNECT             /* ReconnectEndpointsCommand received */
} rsql_rmq_event_kind_t;

typedef struct rsql_rmq_event {
    rsql_rmq_event_kind_t kind;
    const char *lite_topic;   /* UNSUBSCRIBE_LITE */
    const rsql_error_t *err;  /* TELEMETRY_BROKEN */
} rsql_rmq_event_t;

typedef void (*rsql_rmq_event_cb)(rsql_rmq_client_t *c, const rsql_rmq_event_t *ev, void *opaque);

/*
** Client configuration. Strings are borrowed: rsql_rmq_client_new copies what it keeps.
** Zero values mean the documented default.
*/
typedef struct rsql_rmq_config {
    const char *endpoints;        /* required: "host:port" of the proxy, or several separated
                                     by ',' or ';': all dialed (rmq_channel.c), all sent as the
                                     access_point */
    const char *name_space;       /* x-mq-namespace and Resource.resource_namespace; "" */
    const char *access_key;       /* with secret_key: the authorization header */
    const char *secret_key;
    bool tls;                     /* verified TLS (see above); default plaintext */
    const char *tls_ca_file;      /* PEM roots to verify the server with; NULL: gRPC's */
    const char *tls_server_name;  /* the name the certificate must hold; NULL: the host */
    const char *tls_cert_file;    /* with tls_key_file: a client certificate (mutual TLS) */
    const char *tls_key_file;
    int request_timeout_ms;       /* per-RPC deadline; 3000 */
    int route_refresh_ms;         /* QueryRoute of every topic again this often; 30000 */
    rsql_rmq_client_type_t client_type; /* required */
    const char *group;            /* consumers: the consumer group */
    const char *const *topics;    /* producer: topics it publishes to; consumers: subscribed
                                     topics; lite consumers: the one bind (parent) topic */
    size_t n_topics;
    rsql_rmq_filter_type_t filter_type; /* consumers: TAG (default) or SQL */
    const char *filter_expression;      /* consumers: "*" by default */
    int long_polling_timeout_ms;  /* consumers: ReceiveMessage long poll; 20000 */
    size_t max_body_bytes;        /* consumers: largest body taken, on the wire and inflated
                                     (larger: the message is marked bad); 4 MiB. Also sets the
                                     gRPC receive limit (rsql_rmq_recv_limit) */
    rsql_rmq_event_cb event_cb;   /* optional */
    void *opaque;                 /* passed to event_cb */
    rsql_rmq_client_t *share_channel; /* optional: a STARTED client whose gRPC channel this one
                                         uses instead of dialing its own (another identity of
                                         the same process: the client id is per-request metadata,
                                         x-mq-client-id). It must be destroyed after this one. */
} rsql_rmq_config_t;

/* What the server's Settings reply told us (rsql_rmq_client_settings). */
typedef struct rsql_rmq_server_settings {
    bool received;                 /* a Settings reply arrived */
    int32_t max_body_size;         /* producers; 4 MiB until the server says otherwise */
    bool validate_message_type;
    bool fifo;                     /* consumers: the group consumes orderly */
    int32_t receive_batch_size;
    int64_t long_polling_timeout_ms;
    int32_t lite_subscription_quota; /* lite consumers; 0 when not sent */
    int32_t max_lite_topic_size;     /* lite consumers; 64 when not sent */
    int32_t max_attempts;          /* backoff policy max attempts */
} rsql_rmq_server_settings_t;

/* ---- messages -------------------------------------------------------------------------- */

/* A user property (key/value), borrowed or owned as the enclosing struct says. */
typedef struct rsql_rmq_prop {
    char *key, *value;
} rsql_rmq_prop_t;

/* A message to send; everything is borrowed for the duration of the rsql_rmq_send call. */
typedef struct rsql_rmq_out_msg {
    const char *topic;            /* required (the LITE parent for lite messages) */
    const void *body;             /* required, non-empty */
    size_t body_len;
    const char *tag;              /* optional */
    const char *const *keys;      /* optional */
    size_t n_keys;
    const char *message_group;    /* FIFO */
    const char *lite_topic;       /* LITE */
    rsql_rmq_msg_type_t type;     /* AUTO derives it */
    const rsql_rmq_prop_t *props; /* optional user properties */
    size_t n_props;
    int64_t delivery_ms;          /* > 0: a timer message delivered at this epoch ms (DELAY) */
} rsql_rmq_out_msg_t;

/* A received message. Every pointer field is owned by the message. */
typedef struct rsql_rmq_msg {
    char *topic;
    char *message_id;
    char *receipt_handle;
    char *lite_topic;         /* NULL unless a lite message */
    char *message_group;      /* NULL unless FIFO */
    char *tag;                /* NULL when none */
    char **keys;
    size_t n_keys;
    uint8_t *body;            /* inflated when body_encoding was GZIP; NUL-terminated */
    size_t body_len;
    /*
    ** code RSQL_OK, or why this message cannot become a record (RSQL_ERR_DECODE: no system
    ** properties, a malformed id, no receipt handle, a timestamp out of range, a malformed
    ** property map, a body over the maximum body size or that does not inflate). Such a
    ** message is still delivered (with its receipt handle, when it has one, so it can be acked
    ** or forwarded); body then holds its raw wire body (at most 64 KiB of it when too big).
    */
    rsql_error_t bad;
    int32_t delivery_attempt; /* 1 on first delivery */
    int64_t born_ms, store_ms; /* epoch milliseconds (0 when absent) */
    int32_t queue_id;
    int64_t queue_offset;
    rsql_rmq_prop_t *props;
    size_t n_props;
    char *endpoint;           /* the access point it came from ("host:port") */
    char *born_host;          /* NULL when absent */
    int64_t delivery_ms;      /* a timer message's delivery time, epoch ms; 0 = none */
    int32_t message_type;     /* rsql_rmq_msg_type_t number as received (0 = unspecified) */
} rsql_rmq_msg_t;

/*
** The gRPC receive limit of a client whose largest body is max_body_bytes: one gRPC message of
** the ReceiveMessage stream carries ONE message (the up to 32 of a batch arrive as separate
** stream elements, each checked on its own), so the largest legitimate one is a body the broker
** accepts plus its properties and framing: max(max_body_bytes, 4 MiB, the broker's default
** maxMessageSize) + 1 MiB (the broker stores at most 32 KiB of properties). A body between
** max_body_bytes and that limit arrives and becomes a decode failure of its message; an element
** over it fails the long poll with gRPC RESOURCE_EXHAUSTED (retried).
*/
int rsql_rmq_recv_limit(size_t max_body_bytes);

/* Free a received message and everything in it. NULL-safe. */
void rsql_rmq_msg_destroy(rsql_rmq_msg_t *m);

/* ---- results --------------------------------------------------------------------------- */

/* Per-message send result; code is the RocketMQ Status code (RSQL_RMQ_CODE_OK = 20000). */
typedef struct rsql_rmq_send_entry {
    const char *message_id;
    int64_t offset;
    int32_t code;
    const char *status_message;
} rsql_rmq_send_entry_t;

/* Per-entry ack result. */
typedef struct rsql_rmq_ack_result {
    const char *message_id;
    const char *receipt_handle;
    int32_t code;
    const char *status_message;
} rsql_rmq_ack_result_t;

/* An entry to ack; borrowed for the duration of rsql_rmq_ack. */
typedef struct rsql_rmq_ack_entry {
    const char *message_id;
    const char *receipt_handle;
    const char *lite_topic; /* lite messages: the message's lite topic */
} rsql_rmq_ack_entry_t;

/*
** Send completion. entries (n of them, one per message in order) are valid during the call.
** (The proxy answers a batch with one entry whose message_id joins the ids with ','; the client
** splits it, so each entry has its own id and the batch's offset and status.)
** err is NULL only if the RPC and every entry succeeded; otherwise err is the first failure
** (entries still describe each message when the RPC itself completed).
*/
typedef void (*rsql_rmq_send_cb)(rsql_rmq_client_t *c, const rsql_error_t *err,
                                 const rsql_rmq_send_entry_t *entries, size_t n, void *opaque);

/*
** Receive completion. On success msgs holds n messages (n may be 0: nothing arrived within the
** long poll). Ownership of each msgs[i] passes to the callback (keep it or rsql_rmq_msg_destroy
** it); the array itself is freed by the client after the callback returns. On error n == 0.
*/
typedef void (*rsql_rmq_receive_cb)(rsql_rmq_client_t *c, const rsql_error_t *err,
                                    rsql_rmq_msg_t **msgs, size_t n, void *opaque);

/* Ack completion; err NULL only when every entry was acked. */
typedef void (*rsql_rmq_ack_cb)(rsql_rmq_client_t *c, const rsql_error_t *err,
                                const rsql_rmq_ack_result_t *results, size_t n, void *opaque);

/* ChangeInvisibleDuration completion: new_receipt_handle (borrowed) replaces the old one. */
typedef void (*rsql_rmq_change_cb)(rsql_rmq_client_t *c, const rsql_error_t *err,
                                   const char *new_receipt_handle, void *opaque);

/* Completion of RPCs that return only a status (forward to DLQ, lite subscription sync). */
typedef void (*rsql_rmq_status_cb)(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque);

/* ---- lifecycle ------------------------------------------------------------------------- */

/*
** Create a client (no I/O yet). Returns NULL and fills err on a bad configuration.
** The caller owns the client: rsql_rmq_client_destroy.
*/
rsql_rmq_client_t *rsql_rmq_client_new(const rsql_rmq_config_t *conf, rsql_error_t *err);

/*
** Start the client (blocking, at most a few request timeouts): start the client thread,
** QueryRoute every configured topic (3 attempts each), open the Telemetry stream, send the
** Settings and wait for the server's Settings reply, then send a first heartbeat.
** Lite consumers then send SyncLiteSubscription COMPLETE_ADD of their lite set (empty at first:
** with a wildcard group this starts delivery of every lite topic) and again every 30 s.
** On failure the client stays stopped and may be destroyed (or started again).
*/
rsql_err_t rsql_rmq_client_start(rsql_rmq_client_t *c, rsql_error_t *err);

/*
** Stop and free: NotifyClientTermination, half-close Telemetry, cancel calls still in flight
** (their callbacks fire with RSQL_ERR_INTERRUPTED), join the client thread. NULL-safe.
** Must not be called from a callback.
*/
void rsql_rmq_client_destroy(rsql_rmq_client_t *c);

/* The client id sent in x-mq-client-id (borrowed). */
const char *rsql_rmq_client_id(const rsql_rmq_client_t *c);

/* A copy of the settings the server sent (thread-safe). */
void rsql_rmq_client_settings(rsql_rmq_client_t *c, rsql_rmq_server_settings_t *out);

/*
** The message type topic takes, from its route (QueryRoute's accept_message_types; the 5.5
** proxy names exactly one per topic): RSQL_RMQ_MSG_NORMAL, _FIFO, _LITE, ...; 0 when the
** route is not known (not queried yet, or it names no type). Thread-safe.
*/
rsql_rmq_msg_type_t rsql_rmq_topic_type(rsql_rmq_client_t *c, const char *topic);

/* ---- operations (any thread; one callback each when they return RSQL_OK) ----------------- */

/*
** SendMessage of n messages (1..n, one topic; FIFO: one message group). Client message ids are
** generated here; born timestamp/host are filled in. Bodies over the server's max body size are
** rejected locally with RocketMQ MESSAGE_BODY_TOO_LARGE (non-retriable), no callback.
*/
rsql_err_t rsql_rmq_send(rsql_rmq_client_t *c, const rsql_rmq_out_msg_t *msgs, size_t n,
                         rsql_rmq_send_cb cb, void *opaque, rsql_error_t *err);

/*
** One ReceiveMessage long poll on topic (NULL = the next subscribed topic, round-robin) with
** batch_size messages at most, invisible for invisible_ms (>= 10 s per the proxy),
** auto_renew = false. MESSAGE_NOT_FOUND completes with n == 0 and no error.
*/
rsql_err_t rsql_rmq_receive(rsql_rmq_client_t *c, const char *topic, int batch_size,
                            int64_t invisible_ms, rsql_rmq_receive_cb cb, void *opaque,
                            rsql_error_t *err);

/* AckMessage of n entries of one topic in one RPC. */
rsql_err_t rsql_rmq_ack(rsql_rmq_client_t *c, const char *topic,
                        const rsql_rmq_ack_entry_t *entries, size_t n, rsql_rmq_ack_cb cb,
                        void *opaque, rsql_error_t *err);

/*
** ChangeInvisibleDuration: the message becomes visible again invisible_ms from now. lite_topic
** (may be NULL) and suspend (lite: do not count a delivery attempt) are sent when set.
*/
rsql_err_t rsql_rmq_change_invisible(rsql_rmq_client_t *c, const char *topic,
                                     const char *message_id, const char *receipt_handle,
                                     const char *lite_topic, int64_t invisible_ms, bool suspend,
                                     rsql_rmq_change_cb cb, void *opaque, rsql_error_t *err);

/* ForwardMessageToDeadLetterQueue of one received message. */
rsql_err_t rsql_rmq_forward_to_dlq(rsql_rmq_client_t *c, const rsql_rmq_msg_t *m,
                                   int32_t max_delivery_attempts, rsql_rmq_status_cb cb,
                                   void *opaque, rsql_error_t *err);

/* SyncLiteSubscription on the bind topic of this (lite) client's group. */
rsql_err_t rsql_rmq_sync_lite(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                              const char *const *lite_topics, size_t n, rsql_rmq_status_cb cb,
                              void *opaque, rsql_error_t *err);

/* ---- blocking (NOT for the client thread) -------------------------------------------------- */

/* rsql_rmq_sync_lite, waited for. */
rsql_err_t rsql_rmq_sync_lite_sync(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                                   const char *const *lite_topics, size_t n, rsql_error_t *err);

#endif
