/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_int: private to the fake RocketMQ proxy: fake_rmq.c (the gRPC server, its calls,
 * connections, timers and waits) and fake_rmq_svc.c (what each RPC answers, the message store
 * and the scripts). Everything here is guarded by f->mu unless it says otherwise.
 */
#ifndef RSQL_FAKE_RMQ_INT_H
#define RSQL_FAKE_RMQ_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <grpc/grpc.h>

#include "tests/fakes/fake_rmq.h"

/* A stored message (put by the test or sent by a client). */
typedef struct fmsg {
    char *topic, *message_id, *lite_topic, *group, *tag, *keys;
    uint8_t *body;
    size_t body_len;
    int encoding;
    bool no_sys, born_set, store_set;
    int64_t born_s, store_s;
    size_t n_props, prop_value_len;
    int64_t queue_offset;
    fake_state_t state;
    int deliveries;         /* also the current delivery's number in its handle */
    int change_gen;         /* the current handle's change number */
    int64_t invisible_until; /* INFLIGHT: monotonic ms */
    int ack_requests, change_requests;
    int acks, stale_acks, invalid_acks, changes, forwards;
    int ack_fail_code, ack_fail_n;
    int64_t last_invisible_ms;
    bool last_suspend;
    char *recv_client; /* the client id that got its last delivery (fake_rmq_ids.c), or NULL */
} fmsg_t;

/* One thing to send on a server call: a message and/or the final status. */
typedef struct fout {
    grpc_byte_buffer *bb;
    bool status;
    int gstatus;
    struct fout *next;
} fout_t;

typedef struct fcall fcall_t;

enum { FT_NEW = 1, FT_RECV, FT_CLOSE, FT_SEND };

typedef struct ftag {
    int op;
    fcall_t *k;
} ftag_t;

/* A server call and the state of its batches. */
struct fcall {
    fake_rmq_t *f;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    int rpc;                 /* fake_rpc_t, -1 before the method is known or unknown */
    grpc_byte_buffer *recv_bb;
    int cancelled;           /* RECV_CLOSE_ON_SERVER result */
    int pending;             /* batches started, event not handled */
    bool closed;             /* RECV_CLOSE_ON_SERVER completed */
    bool md_sent, sending, status_queued;
    fout_t *oh, *ot;         /* outbox; one send batch at a time */
    fout_t *held;            /* prepared, sent at `due` (a delayed answer) */
    grpc_byte_buffer *send_bb; /* of the send batch in flight */
    int64_t due;             /* 0: nothing scheduled */
    int due_kind;            /* FDUE_* */
    /* ReceiveMessage */
    bool waiting;
    char *topic;
    int batch;
    int64_t invisible_ms, poll_ms;
    int broken_status;       /* end the stream with this gRPC status after the messages */
    ftag_t t_new, t_recv, t_close, t_send;
    fcall_t *next, *prev;
};

enum { FDUE_SEND_HELD = 1, FDUE_POLL_END, FDUE_RECV_START };

/* A scripted answer queue entry. */
typedef struct fscript {
    fake_answer_t a;
    int n;
    struct fscript *next;
} fscript_t;

typedef struct ftopic {
    char *name;
    fake_topic_kind_t kind;
    int n_queues;
    int64_t next_offset;
} ftopic_t;

struct fake_rmq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    grpc_server *server;
    grpc_server_credentials *creds;
    grpc_completion_queue *cq;
    pthread_t cq_thread, accept_thread;
    bool cq_started, accept_started;
    int lfd, port;
    char endpoint[32];
    bool stopping, shutdown_done;
    ftag_t t_shutdown;
    int requests; /* grpc_server_request_call outstanding */
    int *conn_fds; /* dups of the accepted sockets (to cut them) */
    size_t n_conn_fds;
    fcall_t *calls;
    size_t n_calls;
    int64_t seq;
    /* state seen by the tests */
    fake_stats_t st;
    char last_stack_nonce[64], last_verify_nonce[64];
    /* the service */
    fscript_t *script[FAKE_RPC__COUNT];
    int broken_status, broken_n;
    ftopic_t *topics;
    size_t n_topics;
    fmsg_t **msgs;
    size_t n_msgs, cap_msgs;
    int32_t max_body;
    int32_t refuse_batch; /* a SendMessage of several messages gets this code (0: none) */
    struct fsend *sends; /* every SendMessage attempt's bodies (whatever the answer) */
    size_t n_sends, cap_sends;
    /* client ids whose Settings the fake holds; enforced only after fake_rmq_forget_settings */
    char **settings_ids;
    size_t n_settings_ids;
    bool settings_enforced;
    /* distinct client ids that polled (fake_rmq_ids.c) */
    char *poll_ids[FAKE_MAX_IDS];
    bool deliveries_paused; /* fake_rmq_pause_delivery */
    /* fake_rmq_synth (fake_rmq_synth.c) */
    char *synth_topic;       /* NULL: off */
    fake_topic_kind_t synth_kind;
    uint64_t synth_count, synth_distinct, synth_made;
    bool synth_discard;
};

/* One message of a SendMessage attempt, as recorded. */
typedef struct fsend {
    uint8_t *body;
    size_t len;
} fsend_t;

/* ---- fake_rmq.c: calls (f->mu held) */

/* Append a response message (bytes copied) to k's outbox. */
void fk_out_msg(fcall_t *k, const uint8_t *p, size_t n);
/* Append the final status to k's outbox. */
void fk_out_status(fcall_t *k, int gstatus);
/* Start the next send of k's outbox if none is in flight. */
void fk_pump(fcall_t *k);
/* Move k's outbox aside and send it at due (a delayed answer). */
void fk_hold(fcall_t *k, int64_t due);
/* Schedule a timer of kind on k (FDUE_*). */
void fk_schedule(fcall_t *k, int64_t due, int kind);
/* Cut every accepted connection. */
void fk_drop0(fake_rmq_t *f);
/* The header's value on k ("" when absent; copied into out). */
void fk_header(const fcall_t *k, const char *key, char *out, size_t size);
/* Monotonic ms. */
int64_t fk_now(void);

/* ---- fake_rmq_store.c (f->mu held) */

/* The topic named name, or NULL. */
ftopic_t *fk_store_topic(fake_rmq_t *f, const char *name);
/* Store a new READY message (strings copied); its index, or SIZE_MAX when out of memory. */
size_t fk_store_add(fake_rmq_t *f, const char *topic, const fake_msg_t *in);
/* The current receipt handle of message idx. */
void fk_store_handle_of(size_t idx, const fmsg_t *m, char *out, size_t size);
/* The message a handle names, with its delivery and change numbers; NULL when unparsable. */
fmsg_t *fk_store_parse_handle(fake_rmq_t *f, const char *h, size_t *idx, int *delivery,
                              int *change);
/*
** What handle h is worth now (*out: its message): H_OK current; H_STALE replaced by a change
** (an ack answers OK and does nothing); H_EXPIRED its delivery's invisible duration ended or
** the message was delivered again (INVALID_RECEIPT_HANDLE); H_DONE the message was acked or
** forwarded with it already; H_BAD unparsable (INTERNAL_SERVER_ERROR, as the proxy answers).
*/
enum { H_OK, H_STALE, H_EXPIRED, H_BAD, H_DONE };
int fk_store_check_handle(fake_rmq_t *f, const char *h, fmsg_t **out);
/* Make messages whose invisible duration ended visible again; returns the next expiry (or 0). */
int64_t fk_store_expire(fake_rmq_t *f, int64_t now);
/* Free the store, the topics and the scripts at stop. */
void fk_store_free(fake_rmq_t *f);
/* Record a SendMessage attempt's body (fake_rmq_send_attempts). */
void fk_store_record_send(fake_rmq_t *f, const uint8_t *body, size_t len);
/* fake_rmq_msg_info with f->mu held. */
bool fk_store_msg_info(fake_rmq_t *f, size_t idx, fake_msg_info_t *out);
/* Recompute the per-state counts of f->st. */
void fk_store_count(fake_rmq_t *f);
/* The next scripted answer of rpc (consumed); all zero when none. */
fake_answer_t fk_store_next_answer(fake_rmq_t *f, int rpc);

/* ---- fake_rmq_ids.c: client identities (f->mu held) */

/* ReceiveMessage k arrived: count its client id among the ones that polled. */
void fk_ids_poll(fcall_t *k);
/* Message m is delivered on ReceiveMessage k: remember k's client id as its receiver. */
void fk_ids_delivered(fcall_t *k, fmsg_t *m);
/* An ack (ack = true) or change on k with m's current handle: count it when k's client id is
   not the one that received m. */
void fk_ids_check(fcall_t *k, const fmsg_t *m, bool ack);
/* Free what the identities use (at stop; f->mu not needed). */
void fk_ids_free(fake_rmq_t *f);

/* ---- fake_rmq_synth.c: made messages (f->mu held) */

/* How many made messages (up to cap) a poll of topic gets now: 0 when topic is not the made
   one or all were made. */
int fk_synth_ready(fake_rmq_t *f, const char *topic, int cap);
/* The packer of fake_rmq_svc.c. */
typedef uint8_t *(*fk_pack_fn)(const fmsg_t *m, const char *handle, int64_t invisible_ms,
                               size_t *n);
/* Make the next message and pack it with pack (caller frees); NULL on OOM. */
uint8_t *fk_synth_pack(fake_rmq_t *f, int64_t invisible_ms, size_t *n, fk_pack_fn pack);
/* Whether h is the handle of a made message. */
bool fk_synth_is(const char *h);
/* An ack entry with handle h: true (and counted) when it names a made message. */
bool fk_synth_ack(fake_rmq_t *f, const char *h);

/* ---- fake_rmq_svc.c (f->mu held) */

/* Answer the long polls waiting on topic with what is visible there. */
void fk_svc_wake_polls(fake_rmq_t *f, const char *topic);

/* A request message arrived on k (unary or ReceiveMessage: the request; Telemetry: a command). */
void fk_svc_request(fcall_t *k, const uint8_t *p, size_t n);
/* The client half-closed Telemetry k. */
void fk_svc_half_close(fcall_t *k);
/* k's timer fired. */
void fk_svc_due(fcall_t *k);
/* k ended (closed, maybe cancelled): forget it as a waiting poll. */
void fk_svc_closed(fcall_t *k);

#endif
