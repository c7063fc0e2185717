/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_int: private declarations shared by the files of the RocketMQ gRPC client: the plain C
 * request/response structs that rmq_codec.c encodes to and rmq_decode.c decodes from protobuf-c
 * wire bytes (no protobuf-c or gRPC type appears here), the RPC table (rmq_rpc.c), status mapping
 * (rmq_status.c), request signing (rmq_sign.c) and client message ids (rmq_msgid.c).
 * It must not include gRPC or protobuf-c headers, nor declare protocol numbers (they are the one
 * table of rmq_client.h); and only the client's own files include it: the source and the sink
 * use rmq_client.h alone.
 */
#ifndef RSQL_RMQ_INT_H
#define RSQL_RMQ_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "rmqclient/rmq_client.h"
#include "base/rsql_error.h"

/* ---- status codes (rmq_status.c; the codes are RSQL_RMQ_CODE_MAP of rmq_client.h) ---------- */

/*
** Map a RocketMQ Status to err: RSQL_OK for RSQL_RMQ_CODE_OK; else sets err (first error wins) to
** "RocketMQ <NAME> (<code>): <msg>" with remote_code = code, and returns its rsql code, whose
** class says whether it is retriable: BUSY, TIMEOUT, UNAVAILABLE (transient); PERMISSION,
** NOT_FOUND, TOO_LARGE, REMOTE (permanent). See rmq_status.c.
*/
rsql_err_t rsql_rmq__status_error(int32_t code, const char *msg, rsql_error_t *err);
/*
** Map a gRPC status (grpc_status_code numbers) to err: RSQL_OK for 0; "gRPC <NAME> (<n>):
** <details> [<what>]". UNAVAILABLE/DEADLINE_EXCEEDED/RESOURCE_EXHAUSTED/ABORTED/INTERNAL get a
** transient code (a message over gRPC's size limit: TOO_LARGE); CANCELLED is
** RSQL_ERR_INTERRUPTED; the rest are permanent.
*/
rsql_err_t rsql_rmq__grpc_error(int grpc_code, const char *details, const char *what,
                                rsql_error_t *err);

/* ---- signing (rmq_sign.c) ----------------------------------------------------------------- */

/* t as UTC "yyyyMMddTHHmmssZ" into out (at least 17 bytes). */
void rsql_rmq__datetime(time_t t, char out[17]);
/*
** The authorization header value "MQv2-HMAC-SHA1 Credential=<ak>, SignedHeaders=x-mq-date-time,
** Signature=<HEX>" (uppercase hex of HMAC-SHA1(secret_key, datetime)) into out.
*/
rsql_err_t rsql_rmq__sign(const char *access_key, const char *secret_key, const char *datetime,
                          char *out, size_t size, rsql_error_t *err);
/* Lowercase hex HMAC-SHA1 of msg under key into out (41 bytes); for tests and sign. */
void rsql_rmq__hmac_sha1_hex(const char *key, const char *msg, char out[41], bool upper);

/* ---- ids (rmq_msgid.c) --------------------------------------------------------------------- */

/*
** Format a v1 client message id (34 uppercase hex chars): "01", 6 bytes mac, the low 2 bytes
** of pid, 4 bytes seconds since 2021-01-01T00:00:00Z, 4 bytes sequence (big endian).
*/
void rsql_rmq__msgid_format(const uint8_t mac[6], uint32_t pid, uint32_t secs, uint32_t seq,
                            char out[35]);
/* A fresh message id of this process (thread-safe). */
void rsql_rmq__msgid_new(char out[35]);
/* Seconds since 2021-01-01T00:00:00Z of epoch time t. */
uint32_t rsql_rmq__msgid_secs(time_t t);
/* A random UUID string (36 chars + NUL), for x-mq-request-id. */
void rsql_rmq__uuid(char out[37]);
/* A client id "hostname@pid@index@nanotime-base36" into out. */
void rsql_rmq__client_id(char *out, size_t size);

/* ---- plain request structs (rmq_codec.c encodes, rmq_decode.c decodes) -------------------- */

typedef struct rmq_bytes {
    uint8_t *data; /* rsql_malloc'ed */
    size_t len;
} rmq_bytes_t;

typedef struct rmq_addr {
    char *host;
    int32_t port;
} rmq_addr_t;

/* A message queue of a route, as needed to echo it back in ReceiveMessage. */
typedef struct rmq_queue {
    char *topic;
    int32_t id;
    int32_t permission; /* rsql_rmq_permission_t */
    char *broker_name;
    int32_t broker_id;
    int32_t scheme;
    rmq_addr_t *addrs;
    size_t n_addrs;
    int32_t *accept_types;
    size_t n_accept_types;
} rmq_queue_t;

typedef struct rmq_route {
    rmq_queue_t *queues;
    size_t n_queues;
} rmq_route_t;

void rsql_rmq__route_deinit(rmq_route_t *r);

/* Client settings sent on Telemetry (the client side of Settings). */
typedef struct rmq_settings_out {
    int32_t client_type;
    const rmq_addr_t *access_point;
    size_t n_access_point;
    int64_t request_timeout_ms;
    const char *name_space;
    const char *const *topics; /* publishing topics or subscribed topics */
    size_t n_topics;
    const char *group;         /* consumers */
    int32_t filter_type;
    const char *filter_expression;
    int64_t long_polling_timeout_ms;
    const char *version;
    const char *hostname;
} rmq_settings_out_t;

/* A decoded server TelemetryCommand. */
typedef enum rmq_tcmd_kind {
    RMQ_TCMD_NONE = 0,
    RMQ_TCMD_SETTINGS,
    RMQ_TCMD_PRINT_STACK,
    RMQ_TCMD_VERIFY_MESSAGE,
    RMQ_TCMD_RECOVER_TXN,
    RMQ_TCMD_RECONNECT,
    RMQ_TCMD_UNSUBSCRIBE_LITE
} rmq_tcmd_kind_t;

typedef struct rmq_tcmd {
    rmq_tcmd_kind_t kind;
    bool has_status;
    int32_t status_code;
    char *status_message;
    rsql_rmq_server_settings_t settings; /* SETTINGS */
    char *nonce;                         /* PRINT_STACK, VERIFY_MESSAGE, RECONNECT */
    char *lite_topic;                    /* UNSUBSCRIBE_LITE */
} rmq_tcmd_t;

void rsql_rmq__tcmd_deinit(rmq_tcmd_t *t);

/* One decoded ReceiveMessageResponse element. */
typedef enum rmq_recv_kind { RMQ_RECV_STATUS = 1, RMQ_RECV_MESSAGE, RMQ_RECV_DELIVERY_TS } rmq_recv_kind_t;

typedef struct rmq_recv_elem {
    rmq_recv_kind_t kind;
    int32_t code;          /* STATUS */
    char *message;         /* STATUS */
    rsql_rmq_msg_t *msg;   /* MESSAGE (owned until taken) */
} rmq_recv_elem_t;

/* Send result entry, owned strings. */
typedef struct rmq_send_entry {
    int32_t code;
    char *status_message;
    char *message_id;
    int64_t offset;
} rmq_send_entry_t;

typedef struct rmq_ack_entry_res {
    int32_t code;
    char *status_message;
    char *message_id;
    char *receipt_handle;
} rmq_ack_entry_res_t;

/* A generic decoded response: status + optional lists (what the response type has). */
typedef struct rmq_resp {
    int32_t code;
    char *message;
    rmq_send_entry_t *send;  /* SendMessage */
    size_t n_send;
    rmq_ack_entry_res_t *ack; /* AckMessage */
    size_t n_ack;
    char *receipt_handle;     /* ChangeInvisibleDuration */
} rmq_resp_t;

void rsql_rmq__resp_deinit(rmq_resp_t *r);

/* Encoders (rmq_codec.c): fill out (rsql_malloc'ed bytes, caller frees out->data). */
rsql_err_t rsql_rmq__enc_query_route(const char *ns, const char *topic, const rmq_addr_t *ap,
                                     size_t n_ap, rmq_bytes_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__enc_heartbeat(const char *ns, const char *group, int32_t client_type,
                                   rmq_bytes_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__enc_notify_termination(const char *ns, const char *group, rmq_bytes_t *out,
                                            rsql_error_t *err);
rsql_err_t rsql_rmq__enc_settings(const rmq_settings_out_t *s, rmq_bytes_t *out,
                                  rsql_error_t *err);
/* A client reply on Telemetry: ThreadStackTrace (verify=false) or VerifyMessageResult. */
rsql_err_t rsql_rmq__enc_telemetry_reply(bool verify, const char *nonce, int32_t code,
                                         const char *message, rmq_bytes_t *out,
                                         rsql_error_t *err);
/* ids[i] are the client message ids; born_ms / born_host are set on every message. */
rsql_err_t rsql_rmq__enc_send(const char *ns, const rsql_rmq_out_msg_t *msgs, size_t n,
                              const char *const *ids, int64_t born_ms, const char *born_host,
                              rmq_bytes_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__enc_receive(const char *ns, const char *group, const rmq_queue_t *q,
                                 int32_t filter_type, const char *filter_expression,
                                 int32_t batch_size, int64_t invisible_ms,
                                 int64_t long_polling_ms, rmq_bytes_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__enc_ack(const char *ns, const char *group, const char *topic,
                             const rsql_rmq_ack_entry_t *entries, size_t n, rmq_bytes_t *out,
                             rsql_error_t *err);
rsql_err_t rsql_rmq__enc_change_invisible(const char *ns, const char *group, const char *topic,
                                          const char *message_id, const char *receipt_handle,
                                          const char *lite_topic, int64_t invisible_ms,
                                          bool suspend, rmq_bytes_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__enc_forward_dlq(const char *ns, const char *group, const rsql_rmq_msg_t *m,
                                     int32_t max_attempts, rmq_bytes_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__enc_sync_lite(const char *ns, int32_t action, const char *bind_topic,
                                   const char *group, const char *const *lite_topics, size_t n,
                                   rmq_bytes_t *out, rsql_error_t *err);

/* Decoders (rmq_decode.c; RSQL_ERR_DECODE when the bytes do not parse). */
rsql_err_t rsql_rmq__dec_query_route(const uint8_t *p, size_t n, int32_t *code, char **message,
                                     rmq_route_t *route, rsql_error_t *err);
/* Responses that are Status + optional lists; rpc says which message type it is. */
rsql_err_t rsql_rmq__dec_resp(int rpc, const uint8_t *p, size_t n, rmq_resp_t *out,
                              rsql_error_t *err);
/*
** A ReceiveMessage stream element; a message element is decoded by rsql_rmq__dec_message's rules
** (max_body). RSQL_ERR_DECODE when the bytes do not parse (the element is then lost: without
** its receipt handle the message cannot be acked and comes back after its invisible duration).
*/
rsql_err_t rsql_rmq__dec_receive(const uint8_t *p, size_t n, const char *endpoint,
                                 size_t max_body, rmq_recv_elem_t *out, rsql_error_t *err);
rsql_err_t rsql_rmq__dec_telemetry(const uint8_t *p, size_t n, rmq_tcmd_t *out,
                                   rsql_error_t *err);
/* What a received message is checked against (rsql_rmq__dec_message). */
#define RMQ_MSGID_MAX 128              /* message id: 1..128 printable ASCII, no space */
#define RMQ_PROPS_MAX (64 * 1024)      /* user properties + keys + tag + message group, bytes
                                          (the broker stores at most 32767 bytes of them) */
#define RMQ_BAD_RAW_MAX (64 * 1024)    /* raw form kept of a bad message whose body is too big */
#define RMQ_INFLATE_MAX (1024u * 1024 * 1024) /* no inflation past 1 GiB, whatever max says */
#define RMQ_TS_MIN_SECONDS (-62135596800LL) /* google.protobuf.Timestamp: 0001-01-01T00:00:00Z */
#define RMQ_TS_MAX_SECONDS 253402300799LL   /* ... 9999-12-31T23:59:59Z */

/*
** Decode a received message (wire bytes of apache.rocketmq.v2.Message) into a new
** rsql_rmq_msg_t (tests and dec_receive). NULL (err set) only when the bytes do not parse or
** memory runs out. Untrusted input: a message that parses but is unusable is returned with
** m->bad set (code RSQL_ERR_DECODE, the reason) and whatever could be taken of it (topic, id,
** receipt handle, lite topic, the raw body as its raw form): no system properties, no or a
** malformed message id (RMQ_MSGID_MAX), no receipt handle, a born or store timestamp outside
** RMQ_TS_*_SECONDS (or nanos outside 0..999999999), an empty or repeated user property key or
** more than RMQ_PROPS_MAX bytes of properties, a body over max_body bytes on the wire or once
** inflated, a GZIP body that does not inflate, an unknown body_encoding. topic and message_id
** are never NULL ("" when absent). The body is inflated only when body_encoding is GZIP
** (gzip or zlib data, auto-detected), as the official clients do: an IDENTITY body is passed
** on as sent, whatever its first bytes are.
*/
rsql_rmq_msg_t *rsql_rmq__dec_message(const uint8_t *p, size_t n, const char *endpoint,
                                      size_t max_body, rsql_error_t *err);
/*
** Inflate gzip or zlib data (auto-detected) into a new NUL-terminated buffer of at most max
** bytes (capped at RMQ_INFLATE_MAX): RSQL_ERR_DECODE (err says why) for data that is not
** gzip/zlib, truncated, or inflates to more than max; RSQL_ERR_NOMEM. Memory use never exceeds
** max + 2 bytes of output, whatever the input claims; input of any size is fed in pieces zlib's
** 32-bit counters can hold.
*/
rsql_err_t rsql_rmq__inflate(const uint8_t *p, size_t n, size_t max, uint8_t **out,
                             size_t *out_len, rsql_error_t *err);

/* ---- blocking waits (rmq_sync.c) ------------------------------------------------------------ */

/* One operation's completion, waited for by a blocking caller. */
typedef struct rmq_sync {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool done;
    rsql_error_t err;
} rmq_sync_t;

void rsql_rmq__sync_init(rmq_sync_t *s);
/* Record err (may be NULL) and wake the waiter. */
void rsql_rmq__sync_signal(rmq_sync_t *s, const rsql_error_t *err);
/*
** Wait for the callback when start_rc is RSQL_OK (else return start_rc: no callback comes);
** copies the outcome into err; destroys the mutex and condition.
*/
rsql_err_t rsql_rmq__sync_wait(rmq_sync_t *s, rsql_err_t start_rc, rsql_error_t *err);
/* A rsql_rmq_status_cb whose opaque is an rmq_sync_t. */
void rsql_rmq__sync_status_cb(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque);

/* ---- RPC table (rmq_rpc.c) ----------------------------------------------------------------- */

typedef enum rmq_rpc_id {
    RMQ_RPC_QUERY_ROUTE = 0,
    RMQ_RPC_HEARTBEAT,
    RMQ_RPC_SEND_MESSAGE,
    RMQ_RPC_RECEIVE_MESSAGE,
    RMQ_RPC_ACK_MESSAGE,
    RMQ_RPC_FORWARD_DLQ,
    RMQ_RPC_TELEMETRY,
    RMQ_RPC_NOTIFY_TERMINATION,
    RMQ_RPC_CHANGE_INVISIBLE,
    RMQ_RPC_SYNC_LITE,
    RMQ_RPC__COUNT
} rmq_rpc_id_t;

typedef enum rmq_rpc_kind { RMQ_UNARY = 0, RMQ_SERVER_STREAM, RMQ_BIDI } rmq_rpc_kind_t;

typedef struct rmq_rpc {
    rmq_rpc_id_t id;
    const char *path; /* "/apache.rocketmq.v2.MessagingService/QueryRoute" */
    const char *name; /* "QueryRoute" */
    rmq_rpc_kind_t kind;
    bool long_poll;   /* deadline = long polling timeout + request timeout */
} rmq_rpc_t;

const rmq_rpc_t *rsql_rmq__rpc(rmq_rpc_id_t id);

#endif
