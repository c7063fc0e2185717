/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_source_int: private to the rocketmq-grpc source: rmq_source.c (the vtable and poll),
 * rmq_held.c (held messages, the ack queue) and rmq_housekeeping.c (long polls, renewals,
 * deferrals). The source's struct, the held message and what those files call of each other;
 * every field of struct rsql_source is guarded by s->mu unless it is set once at open.
 *
 * It sits on the client's public API (rmq_client.h) only and must not include the client's
 * private headers (rmq_int.h, rmq_client_int.h).
 */
#ifndef RSQL_RMQ_SOURCE_INT_H
#define RSQL_RMQ_SOURCE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "rmqclient/rmq_client.h"
#include "connectors/rocketmq/rmq_conn_int.h"
#include "connectors/rsql_conn_io.h"

#define ACK_BATCH 64       /* entries per AckMessage */
#define RMQ_MAX_CLIENTS 16 /* source.lite-clients' upper bound */

enum { P_NONE, P_ACK, P_DLQ, P_RELEASE };

typedef struct held {
    struct held *prev, *next; /* s->held (every held message) */
    struct held *bnext;       /* s->bhead (buffered, not yet polled) */
    rsql_rmq_msg_t *m;        /* owned */
    uint32_t lane;
    uint8_t ci;               /* the client identity that received it (s->clis): its acks,
                                 renewals, deferrals and forward go through that one */
    int64_t offset;           /* its sequence in the lane (the record's offset) */
    int64_t deadline;         /* monotonic ms when its invisibility ends */
    bool polled, renewing, lost;
    int pending;              /* outcome asked for during a renewal */
    int ack_attempts;
    int64_t defer_ms;         /* throttled: its deferral (never held then) */
    rsql_source_t *src; /* the owner (for completions that get only the message) */
} held_t;

typedef struct ack_batch {
    rsql_source_t *s;
    held_t **items;
    size_t n;
    int64_t sent_ns; /* when its ack request went out (the ack latency) */
} ack_batch_t;

/* An identity slot's state (s->ci_state). */
enum { CI_NONE, CI_ACTIVE, CI_RETIRING };

struct rsql_source {
    rsql_rmq_client_t *cli; /* clis[0], the one that owns the gRPC channel */
    /* the client identities (1 in simple mode): clis[i] is set while slot i has a started
       client; clis[1..] share the channel of clis[0] and are destroyed before it. Only the
       housekeeping thread (and open, close) sets or clears a slot (rmq_identity.c), with s->mu
       held; a thread that got an identity number from a held message or a long poll of it may
       use clis[ci] without s->mu (the slot is not cleared while any is left, ci_busy) */
    rsql_rmq_client_t *clis[RMQ_MAX_CLIENTS];
    int n_clis;                           /* slots up to the highest started one + 1 */
    uint8_t ci_state[RMQ_MAX_CLIENTS];    /* CI_*: only CI_ACTIVE ones start long polls */
    int n_active;                         /* slots CI_ACTIVE: the identities in use */
    int ci_busy[RMQ_MAX_CLIENTS];         /* messages an identity received, not yet freed */
    rsql_rmq_round_t rounds[RMQ_MAX_CLIENTS]; /* each identity's burst (a full round?) */
    rsql_rmq_ids_t ids;                   /* how many should be in use (rmq_lite_ids.c) */
    /* what a later identity is started with: a copy of open's client configuration whose
       strings the source owns, and the explicit lite topics (source.lite-topics) */
    rsql_rmq_config_t cconf;
    char *cstr[11];
    const char *ctopics[1];
    char **lt;
    size_t n_lt;
    /* close is destroying the clients (one after the other): completions still coming from
       one of them start no ack or forward, which could name an identity already gone */
    bool clis_closing;
    char *topic;
    bool lite, native_dlq;
    int fetch, batch; /* fetch: source.fetch-concurrency, the most long polls per identity */
    /* long polls kept in flight per identity now (1..fetch): doubled by a poll that comes
       back full, halved by one that comes back empty (rsql_rmq__polls_adapt) */
    int fetch_now;
    int64_t invisible_ms, ahead_ms, idle_ms; /* idle_ms < 0: unbounded */
    int max_attempts;
    /* METADATA columns the statement reads (rmq_meta.c): per column its rmq_meta_id_t; NULL
       when it reads none (a record then gets no meta at all) */
    int n_columns;
    int *meta_ids;
    rsql_type_t *meta_types;

    pthread_mutex_t mu;
    pthread_cond_t poll_cv, hk_cv, done_cv;
    pthread_t hk;
    bool hk_started, closing, stopping;

    held_t held; /* list sentinel */
    int64_t n_held;
    held_t *bhead, *btail;
    int n_buffered;

    int recv_outstanding;              /* long polls in flight, every identity */
    int recv_per[RMQ_MAX_CLIENTS];     /* ... per identity (each keeps `fetch_now` out) */
    int64_t recv_not_before, recv_backoff;
    int64_t next_renew_due;
    held_t **ackq;
    size_t n_ack, cap_ack;
    int64_t ack_oldest;
    int ops; /* acks, renewals, forwards in flight */
    rsql_rmq_idle_t idle; /* scan.idle-timeout: answered idle time (rmq_bounded.c) */
    bool ended;           /* poll reported the end (bounded) or the source was stopped */
    rsql_rmq_later_t released, deferred_later; /* when messages let go are visible again */
    rsql_error_t fatal; /* a non-retriable receive error: poll reports it */

    rsql_rmq_inflight_t *lanes;
    int64_t lane_idle_ms;     /* lanes.idle-timeout: an idle lane goes after it */
    rsql_rmq_throttle_t *thr; /* lite mode with throttle.* options; else NULL */
    int debug;                /* log level: 1 = debug (summary at close), 2 = trace (decisions) */
    int64_t n_acked, n_ack_invalid, n_renewed, n_renew_failed, n_forwarded;
    int64_t n_deferred, n_defer_failed, n_valve;
    int warned_ack, warned_renew, warned_recv, warned_defer;
    rsql_source_counters_t *ctr; /* the runtime's (rsql_source_ctx_t.counters), or NULL */
};

/* Publish n more of a counter to the runtime (any thread; atomics, no lock needed). */
#define RMQ_COUNT(s, field, n)                             \
    do {                                                   \
        if ((s)->ctr) {                                    \
            atomic_fetch_add(&(s)->ctr->field, (n));       \
        }                                                  \
    } while (0)
/* Publish the held gauge (s->n_held). s->mu held */
#define RMQ_HELD(s)                                        \
    do {                                                   \
        if ((s)->ctr) {                                    \
            atomic_store(&(s)->ctr->held, (s)->n_held);    \
        }                                                  \
    } while (0)

/*
** Adaptive receive: the long polls an identity keeps in flight after one came back with n
** messages (polls of batch messages each, at most max in flight): a full poll says the broker
** has more than the polls in flight fetch, so double them; an empty one says it has nothing,
** so halve them; one in between keeps the number. Never below 1 nor above max.
*/
static inline int rsql_rmq__polls_adapt(int now, int max, int batch, size_t n)
{
    if (n >= (size_t)batch && now < max) {
        return now * 2 < max ? now * 2 : max;
    }
    if (n == 0 && now > 1) {
        return now / 2;
    }
    return now < 1 ? 1 : now > max ? max : now;
}

/* ---- rmq_source.c */

/*
** A record's ident "<topic>[/<lite topic>]/<message id>" in arena: the message's topic, else
** topic; "(no message id)" when it has none; bytes that are not printable ASCII shown as '?',
** long names cut ("..."). NULL when out of memory.
*/
const char *rsql_rmq__record_ident(rsql_arena_t *arena, const rsql_rmq_msg_t *m,
                                   const char *topic);

/* ---- rmq_held.c */

/* A warning for logq (written after s->mu is released), unless WARN_MAX of its kind were. */
void rsql_rmq__source_warn(rsql_buf_t *logq, int *count, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
** Hold h (received at now, its m, src and lane set): on s->held and at the end of the buffer,
** with its offset in its lane, its invisibility deadline and the renewal schedule. @locks s->mu
*/
void rsql_rmq__held_buffer(rsql_source_t *s, held_t *h, int64_t now);
/* Unlink h from s->held. @locks s->mu held */
void rsql_rmq__held_unlink(rsql_source_t *s, held_t *h);
/* Let h (unlinked) go without an ack: it is visible again at its deadline (the run's leftovers
   count it until then). Frees h. @locks s->mu held */
void rsql_rmq__held_release(rsql_source_t *s, held_t *h);
/* Free h and its message. NULL-safe. */
void rsql_rmq__held_free(held_t *h);
/* Queue h for an ack (unlinked already). Returns false on OOM (h is then released). s->mu held */
bool rsql_rmq__ackq_push(rsql_source_t *s, held_t *h);
/* Take up to ACK_BATCH queued acks of ONE client identity (the oldest entry's) into a new batch
   (NULL when none / OOM / s->clis_closing). s->mu held */
ack_batch_t *rsql_rmq__ackq_take(rsql_source_t *s);
/*
** An ack, renewal or forward in flight is done: s->ops--, wake close and housekeeping. s->mu held
*/
void rsql_rmq__op_done(rsql_source_t *s);
/* Send an ack batch (entries of one topic per RPC). Takes ownership of b. @locks s->mu NOT held */
void rsql_rmq__ack_send(rsql_source_t *s, ack_batch_t *b);
/* Forward h (unlinked, owned; s->ops counted) to the group's DLQ. @locks s->mu NOT held */
void rsql_rmq__dlq_send(rsql_source_t *s, held_t *h);

/* ---- rmq_identity.c */

/*
** Keep what later identities are started with: conf's strings copied into s->cconf (its
** share_channel and topics set per start), lt (n_lt strings, owned: the source frees them).
** False when out of memory.
*/
bool rsql_rmq__identity_keep(rsql_source_t *s, const rsql_rmq_config_t *conf, char **lt,
                             size_t n_lt);
/*
** Start the identity of slot (CI_NONE, clis[slot] NULL): a new client over clis[0]'s channel
** (slot 0 dials), started, with the explicit lite topics subscribed. On success the slot is
** CI_ACTIVE (s->mu taken for that). @locks s->mu NOT held
*/
rsql_err_t rsql_rmq__identity_start(rsql_source_t *s, int slot, rsql_error_t *err);
/*
** One step towards the wanted number of identities (lite mode, housekeeping thread): start one,
** mark extra ones retiring, or retire one whose long polls came back and whose messages are all
** freed. May release s->mu while it starts or stops a client. True when it did something (the
** caller re-evaluates); *wake lowered to when it is next due. @locks s->mu held
*/
bool rsql_rmq__identities_step(rsql_source_t *s, int64_t now, int64_t *wake);
/* Free what rsql_rmq__identity_keep kept and the bursts. */
void rsql_rmq__identity_forget(rsql_source_t *s);

/* ---- rmq_housekeeping.c */

/* One long poll in flight: the receive callback's opaque. */
typedef struct recv_ctx {
    rsql_source_t *s;
    int64_t started_ms; /* when it was started (the idle clock counts from there) */
    int ci;             /* the identity that polls (s->clis) */
} recv_ctx_t;

/* The housekeeping thread (arg: the source); returns when s->closing. */
void *rsql_rmq__hk_main(void *arg);

#endif
