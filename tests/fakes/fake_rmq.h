/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq: a small fake RocketMQ 5 proxy for fault-injection tests. It is a real gRPC
 * server (grpc C core server API, our protobuf-c messages) on 127.0.0.1 with a port the OS
 * chooses, so the real client, source and sink talk to it over the network exactly as they
 * talk to the proxy. It serves the MessagingService RPCs the client uses: QueryRoute (itself
 * as the broker endpoint), Heartbeat, Telemetry (Settings echo with server values, server
 * commands), SendMessage (messages are stored and can be received again), ReceiveMessage
 * (a long poll: it waits until a message is visible or the poll time ends), AckMessage,
 * ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue, NotifyClientTermination and
 * SyncLiteSubscription.
 *
 * It models a broker's message state the way 5.5 behaves (docs/ROCKETMQ-NOTES.md): a received
 * message is invisible until its invisible duration ends, then delivered again with
 * delivery_attempt + 1; a receipt handle is valid for one delivery; ChangeInvisibleDuration
 * gives a new handle, after which an ack with the old one answers OK but does nothing (the
 * fake counts such "stale" acks); an ack or change with the handle of an expired delivery
 * answers INVALID_RECEIPT_HANDLE.
 *
 * Tests script it through this C API (any thread): the answers of the next N calls of an RPC
 * (a RocketMQ status, a gRPC status, a delay, a hang until the client's deadline, a cut of the
 * connection), per-entry ack statuses, hostile messages, a cut of every connection, a reset of
 * the Telemetry stream, server commands. It records what it got (every request, ack, change,
 * forward and send) and signals each arrival on a condition variable: fake_rmq_wait blocks
 * until a predicate over a snapshot of those records holds, so tests wait for events, never
 * for time.
 *
 * Threads: the fake owns an accept thread (it accepts the TCP connections itself and hands
 * them to gRPC, so it can cut them: fake_rmq_drop) and a completion-queue thread that serves
 * the calls. All state is guarded by one mutex.
 */
#ifndef RSQL_FAKE_RMQ_H
#define RSQL_FAKE_RMQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fake_rmq fake_rmq_t;

/* The RPCs, for scripts and counts. */
typedef enum fake_rpc {
    FAKE_QUERY_ROUTE = 0,
    FAKE_HEARTBEAT,
    FAKE_SEND,
    FAKE_RECEIVE,
    FAKE_ACK,
    FAKE_CHANGE,
    FAKE_DLQ,
    FAKE_NOTIFY,
    FAKE_TELEMETRY, /* counts Settings commands received; scripts answer Settings */
    FAKE_SYNC_LITE,
    FAKE_RPC__COUNT
} fake_rpc_t;

/*
** One scripted answer. All zero = the normal answer. Otherwise, in this order: drop cuts every
** connection when the request arrives (nothing is answered); hang answers nothing until the
** client gives up (its deadline: a time-out); grpc_status ends the call with that gRPC status
** (no response message); code answers that RocketMQ Status (for ReceiveMessage: as the status
** element of the stream; for Telemetry: the status of the Settings reply). delay_ms delays the
** answer (any of the above but drop).
*/
typedef struct fake_answer {
    int32_t code;
    int grpc_status;
    int delay_ms;
    bool hang;
    bool drop;
} fake_answer_t;

/* Topic kinds (what QueryRoute returns as accept_message_types). */
typedef enum fake_topic_kind { FAKE_NORMAL = 1, FAKE_FIFO = 2, FAKE_LITE = 5 } fake_topic_kind_t;

/*
** A message to put on a topic. Strings are copied. Besides a normal message, the fields make
** hostile ones: no system properties at all, a given (malformed) message id, timestamps out of
** range, a huge property map, a body with either encoding.
*/
typedef struct fake_msg {
    const void *body;
    size_t body_len;
    const char *message_id;   /* NULL: "FAKE" + a sequence number */
    const char *lite_topic;   /* lite messages */
    const char *message_group; /* FIFO messages */
    const char *tag;
    const char *keys;         /* the message's keys joined with ' ' (NULL: none) */
    int encoding;             /* body_encoding: 0 = IDENTITY, 2 = GZIP (the protocol's numbers) */
    bool no_system_properties;
    bool born_set;            /* born timestamp = born_seconds (else now) */
    int64_t born_seconds;
    bool store_set;           /* store timestamp = store_seconds (else now) */
    int64_t store_seconds;
    size_t n_props;           /* user properties "k<i>" = "v<i>" */
    size_t prop_value_len;    /* length of each value (0: short values) */
} fake_msg_t;

/* Where a stored message is (fake_msg_info). */
typedef enum fake_state { FAKE_READY = 1, FAKE_INFLIGHT, FAKE_ACKED, FAKE_DEAD } fake_state_t;

typedef struct fake_msg_info {
    fake_state_t state;
    int deliveries;    /* times it was received (its delivery_attempt is this) */
    int ack_requests;  /* ack entries that named it (whatever the answer) */
    int change_requests; /* ChangeInvisibleDuration requests that named it (whatever the answer) */
    int acks;          /* acks with the current handle (1 = acked) */
    int stale_acks;    /* acks answered OK that did nothing: a handle replaced by a change */
    int invalid_acks;  /* acks answered INVALID_RECEIPT_HANDLE (expired delivery) */
    int changes;       /* ChangeInvisibleDuration requests that changed it */
    int forwards;      /* ForwardMessageToDeadLetterQueue requests that moved it */
    int64_t last_invisible_ms; /* the last invisible duration it got (receive or change) */
    bool last_suspend;         /* the last change asked suspend = true */
    char topic[128];
    char message_id[128];      /* truncated copy */
    char client_id[128];       /* x-mq-client-id of the ReceiveMessage that got its last
                                  delivery ("" never delivered; truncated copy) */
    char message_group[128];   /* its message group ("" none; truncated copy) */
    char keys[256];            /* its keys joined with ' ' ("" none; truncated copy) */
    bool has_group;            /* it has a message group (even an empty one) */
} fake_msg_info_t;

/* A snapshot of what the fake has seen, for fake_rmq_wait predicates. */
typedef struct fake_stats {
    int calls[FAKE_RPC__COUNT];    /* requests received, per RPC */
    int waiting_polls;             /* ReceiveMessage long polls waiting for a message now */
    int connections;               /* TCP connections accepted so far */
    int telemetry_open;            /* Telemetry streams open now */
    int stack_replies, verify_replies; /* ThreadStackTrace / VerifyMessageResult received */
    int missing_client_id;         /* calls without x-mq-client-id (answered CLIENT_ID_REQUIRED) */
    size_t n_msgs;                 /* messages stored (put or sent) */
    int ready, inflight, acked, dead; /* messages by state */
    int stale_acks, invalid_acks, double_acks, unknown_acks;
    int ack_entries;               /* ack entries received (all acks) */
    int changes, forwards;         /* successful ones */
    int sent_ok, sent_rejected;    /* SendMessage messages stored / answered with an error */
    int last_change_suspend;       /* -1 none, 0/1 the last ChangeInvisibleDuration's suspend */
    int settings_missing;          /* calls answered "no Settings" (fake_rmq_forget_settings) */
    /* client identities (fake_rmq_ids.c) */
    int poll_clients;              /* distinct x-mq-client-id values that sent ReceiveMessage
                                      (counted up to FAKE_MAX_IDS) */
    int foreign_acks;              /* ack entries with a current handle sent under another
                                      client id than the one that received the message */
    int foreign_changes;           /* the same for ChangeInvisibleDuration */
    int synth_made, synth_acked;   /* fake_rmq_synth: messages made / acked */
} fake_stats_t;

#define FAKE_MAX_IDS 32

/* Start a fake on 127.0.0.1, port chosen by the OS. NULL on failure (printed on stderr). */
fake_rmq_t *fake_rmq_start(void);
/*
** The same, serving TLS (grpc's SSL server credentials): cert_file/key_file the server's
** certificate and key (PEM); with client_ca_file, clients must present a certificate signed by
** it (mutual TLS). fake_rmq_endpoint is then the TLS port, whose connections fake_rmq_drop does
** not cut. NULL tls: fake_rmq_start.
*/
typedef struct fake_tls {
    const char *cert_file, *key_file, *client_ca_file;
} fake_tls_t;
fake_rmq_t *fake_rmq_start_tls(const fake_tls_t *tls);
/* Stop it (cancels what is in flight) and free everything. NULL-safe. */
void fake_rmq_stop(fake_rmq_t *f);
/* "127.0.0.1:PORT" (valid until stop). */
const char *fake_rmq_endpoint(const fake_rmq_t *f);

/* Declare a topic (QueryRoute of an undeclared one answers TOPIC_NOT_FOUND). */
void fake_rmq_topic(fake_rmq_t *f, const char *name, fake_topic_kind_t kind, int n_queues);
/* Settings the fake answers: producers' max body size (0: 4 MiB). */
void fake_rmq_set_max_body(fake_rmq_t *f, int32_t max_body_size);
/* A proxy that does not take batches: every SendMessage of more than one message is answered
   with code (0: taken, the default); single sends are not affected. */
void fake_rmq_refuse_batches(fake_rmq_t *f, int32_t code);

/* The next n calls of rpc get answer a (appended after what is scripted already). */
void fake_rmq_script(fake_rmq_t *f, fake_rpc_t rpc, int n, const fake_answer_t *a);
/* The next n ack entries for the message with this index answer code (others OK). */
void fake_rmq_script_ack_entry(fake_rmq_t *f, size_t idx, int32_t code, int n);
/*
** The next n ReceiveMessage streams send their messages and then end with gRPC status
** grpc_status instead of the delivery timestamp and OK (a stream broken after messages).
*/
void fake_rmq_script_broken_stream(fake_rmq_t *f, int grpc_status, int n);

/* Store a message on topic (READY); wakes a waiting long poll. Returns its index. */
size_t fake_rmq_put(fake_rmq_t *f, const char *topic, const fake_msg_t *m);
/* A normal message with this body (a string). Returns its index. */
size_t fake_rmq_put_text(fake_rmq_t *f, const char *topic, const char *body);

/*
** Made messages, for runs too long to store (memory tests): from now on, long polls of topic
** get count messages made on the fly, never stored: message i has body "m-<i>" and, by kind,
** the lite topic (FAKE_LITE) or message group (FAKE_FIFO) "x-<i % distinct>" (FAKE_NORMAL:
** neither). Their handles are "fs:<i>"; an ack of one is counted (synth_acked) and nothing else
** happens (no invisibility, no redelivery: a message not acked is lost to the test, which sees
** synth_acked short); ChangeInvisibleDuration answers OK. With discard_sends, SendMessage
** answers OK and keeps nothing (sent_ok counts). The fake's memory stays flat however many.
*/
typedef struct fake_synth {
    const char *topic;
    fake_topic_kind_t kind;
    int count, distinct;
    bool discard_sends;
} fake_synth_t;
void fake_rmq_synth(fake_rmq_t *f, const fake_synth_t *s);

/*
** Pause (true) or resume (false) deliveries: while paused, long polls wait and messages put
** stay READY; resuming answers the waiting polls at once, in turn, each with up to its batch
** size, so a burst is spread over the polls of several client identities (fake_rmq_ids.c).
*/
void fake_rmq_pause_delivery(fake_rmq_t *f, bool paused);

/* Cut every TCP connection now (the client sees its calls fail and reconnects). */
void fake_rmq_drop(fake_rmq_t *f);
/*
** Forget every client's Settings, as the 5.5 proxy does when it restarts or when its scan drops
** settings it finds unused ("remove unused grpc client settings"); the streams stay open. From
** then on a ReceiveMessage of a client id that has not sent Settings again answers
** INTERNAL_SERVER_ERROR `Cannot invoke "apache.rocketmq.v2.Settings.getClientType()" because
** "settings" is null` and its Heartbeat UNRECOGNIZED_CLIENT_TYPE "cannot find client settings
** for this client", as 5.5 does (counted in settings_missing).
*/
void fake_rmq_forget_settings(fake_rmq_t *f);
/* End every open Telemetry stream with gRPC status grpc_status (e.g. 14 = UNAVAILABLE). */
void fake_rmq_reset_telemetry(fake_rmq_t *f, int grpc_status);

/* Server commands pushed on every open Telemetry stream. */
typedef enum fake_cmd {
    FAKE_CMD_PRINT_STACK = 1,
    FAKE_CMD_VERIFY_MESSAGE,
    FAKE_CMD_RECONNECT,
    FAKE_CMD_UNSUBSCRIBE_LITE
} fake_cmd_t;
/* Push cmd (arg: the nonce, or the lite topic) to every open Telemetry stream. */
void fake_rmq_push(fake_rmq_t *f, fake_cmd_t cmd, const char *arg);

/* ---- records */

void fake_rmq_stats(fake_rmq_t *f, fake_stats_t *out);
/* The state of message idx (false when there is none). */
bool fake_rmq_msg_info(fake_rmq_t *f, size_t idx, fake_msg_info_t *out);
/* The index of the first stored message of topic whose body is body (SIZE_MAX: none). */
size_t fake_rmq_find_body(fake_rmq_t *f, const char *topic, const void *body, size_t len);
/* The index of the first stored message of topic whose body contains text (SIZE_MAX: none). */
size_t fake_rmq_find_text(fake_rmq_t *f, const char *topic, const char *text);
/* SendMessage attempts whose message carried this body (whatever the answer, even none). */
int fake_rmq_send_attempts(fake_rmq_t *f, const void *body, size_t len);
/* The nonce of the last ThreadStackTrace / VerifyMessageResult received (copied; "" none). */
void fake_rmq_last_reply(fake_rmq_t *f, bool verify, char *out, size_t size);

/*
** Block until ok(snapshot, arg) is true (re-checked at every change the fake records) or
** timeout_ms passed (a safety bound so a broken test fails instead of hanging, not a wait for
** time). Returns whether ok became true.
*/
typedef bool (*fake_pred_t)(const fake_stats_t *st, void *arg);
bool fake_rmq_wait(fake_rmq_t *f, fake_pred_t ok, void *arg, int timeout_ms);
/* The same for one stored message: until ok(its state, arg). */
typedef bool (*fake_msg_pred_t)(const fake_msg_info_t *mi, void *arg);
bool fake_rmq_wait_msg(fake_rmq_t *f, size_t idx, fake_msg_pred_t ok, void *arg,
                       int timeout_ms);
/* Shorthand: wait until calls[rpc] >= n. */
bool fake_rmq_wait_calls(fake_rmq_t *f, fake_rpc_t rpc, int n, int timeout_ms);

#endif
