/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_sink_int: the rocketmq-grpc sink's private types, shared by rmq_sink.c (the rows, the
 * send thread, single sends and their answers) and rmq_sink_batch.c (batch sends, their
 * answers, and whether the proxy takes them).
 */
#ifndef RSQL_RMQ_SINK_INT_H
#define RSQL_RMQ_SINK_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "connectors/formats/rsql_format.h"
#include "connectors/rocketmq/rmq_conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "rmqclient/rmq_client.h"

#define BACKOFF_START_MS 100
#define BACKOFF_MAX_MS 5000
/* The broker stores a batch as one message, refused over its maxMessageSize (4 MiB by
   default) as a whole: batches stay well under it (bodies summed; a bigger body goes alone). */
#define BATCH_MAX_BYTES (1024 * 1024)
/* The longest message group the 5.5 proxy takes (ILLEGAL_MESSAGE_GROUP "message group exceed
   the max size 64" from 64 bytes on). */
#define GROUP_MAX 63

typedef struct sbatch {
    uint64_t id;
    int n, remaining;
    rsql_sink_result_t *results;
    struct sbatch *next; /* ready-to-deliver list */
} sbatch_t;

typedef struct smsg {
    struct smsg *next;
    sbatch_t *b;
    int idx;
    char *body;
    size_t len;
    char *group, *lite, *key; /* owned or NULL */
    char *tag;                /* owned: the row's tag METADATA, NULL = sink.tag */
    char **keys;              /* owned: the keys METADATA (n_keys of them), over key */
    size_t n_keys;
    rsql_rmq_prop_t *props;   /* owned: the properties METADATA */
    size_t n_props;
    int64_t delivery_ms;      /* the delivery_timestamp METADATA (epoch ms, >= 1), else 0 */
    char *meta_why;           /* owned: why the row's METADATA cannot be sent (a permanent
                                 failure of the row), or NULL */
    rsql_err_t why_code;      /* the code of that failure; RSQL_OK: RSQL_ERR_SINK */
    bool empty;               /* a change the format writes as nothing: done, not sent */
    uint32_t glane;
    int attempts;
    int64_t not_before;
    int64_t queued_ms;  /* when it was queued (sink.linger) */
    struct smsg *bnext; /* the next message of its batch (sink.batch-size) */
    int bn;             /* > 0: the head of a batch of bn messages (bnext chains them) */
    bool nobatch;       /* its batch failed permanently: sent on its own */
    bool probe;         /* ... and that refusal is the one the sink is looking into */
    rsql_sink_t *k;
} smsg_t;

typedef struct gstate {
    bool busy;
    smsg_t *head, *tail; /* waiting for the message in flight */
} gstate_t;

struct rsql_sink {
    rsql_rmq_client_t *cli;
    char *topic, *tag, *lite_fixed;
    int group_col, lite_col, keys_col;
    /* a changelog: its PRIMARY KEY's columns (n_key, key), and whether the key's text is each
       message's group */
    bool changelog, group_by_key;
    int n_key;
    int *key;
    /* METADATA the rows carry: the index of each key's value in a row, -1 = none */
    int m_tag, m_keys, m_group, m_lite, m_props, m_delivery;
    int max_inflight, max_attempts;
    int batch_size;    /* 1: one message per SendMessage */
    int64_t linger_ms; /* the longest a batchable message waits for its batch to fill */
    /* whether the proxy takes batches (rmq_sink_batch.c): one accepted says yes; two batches
       refused whole whose messages then all went through alone say no, and batch_size falls
       to 1 for the sink's life */
    bool batch_ok;
    int batch_refused;         /* batches refused whole whose messages all went alone */
    int probe_left;            /* messages of the refused batch still to be answered alone */
    bool probe_bad;            /* one of them was refused alone too: the refusal was its own */
    bool batch_off_log;        /* batching just went off: send_main logs why, unlocked */
    char probe_why[192];       /* the proxy's answer to the refused batch */
    rsql_encoder_t *enc;
    rsql_buf_t buf, tmp;
    rsql_delivery_cb deliver;
    void *deliver_opaque;

    pthread_mutex_t mu;
    pthread_cond_t cv, done_cv;
    pthread_t th;
    bool th_started, closing;
    smsg_t *ready, *ready_tail;
    smsg_t *retry;  /* unsorted; scanned */
    smsg_t *bready; /* batch heads whose backoff ended, sent before k->ready */
    int inflight;
    int64_t outstanding; /* rows accepted, not yet reported */
    rsql_rmq_inflight_t *groups;
    gstate_t *gs;
    uint32_t n_gs;
    int64_t group_idle_ms; /* lanes.idle-timeout: an idle message group's state goes after it */
};

static inline void rsql_rmq__sink_ready_push(rsql_sink_t *k, smsg_t *m)
{
    m->next = NULL;
    if (k->ready_tail) {
        k->ready_tail->next = m;
    } else {
        k->ready = m;
    }
    k->ready_tail = m;
}

/* ---- rmq_sink.c */

/*
** A message is done (success: entry set; failure: err set, retry decided here).
** @locks k->mu held; *done collects completed batches
*/
void rsql_rmq__sink_complete(rsql_sink_t *k, smsg_t *m, const rsql_error_t *err,
                             const rsql_rmq_send_entry_t *entry, sbatch_t **done);
/* Hand the completed batches of list to the runtime and free them. @locks k->mu NOT held */
void rsql_rmq__sink_deliver(rsql_sink_t *k, sbatch_t *list);
/* The message m as rsql_rmq_send takes it; key1 holds its one key. */
void rsql_rmq__sink_out_msg(const rsql_sink_t *k, const smsg_t *m, rsql_rmq_out_msg_t *om,
                            const char **key1);

/* ---- rmq_sink_batch.c */

/* Whether m may go in a batch: NORMAL (no group, lite topic or delivery time), not isolated. */
static inline bool rsql_rmq__sink_batchable(const smsg_t *m)
{
    return !m->nobatch && !m->group && !m->lite && m->delivery_ms == 0;
}
/*
** Take the next batch off k->ready when it is due, else NULL and *wake lowered to when it is.
** @locks k->mu
*/
smsg_t *rsql_rmq__sink_take_batch(rsql_sink_t *k, int64_t now, int64_t *wake);
/* Send the batch headed by h (h->bn messages). @locks k->mu released around the send */
void rsql_rmq__sink_send_batch(rsql_sink_t *k, smsg_t *h);
/* A message of the batch being looked into is done alone (failed or not). @locks k->mu */
void rsql_rmq__sink_probe_done(rsql_sink_t *k, smsg_t *m, bool failed);

#endif
