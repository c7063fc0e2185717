/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Test helper: blocking forms of the RocketMQ client's asynchronous operations
 * (rmqclient/rmq_client.h), for the tests and the probe that drive the client step by step:
 * start the operation, wait on a condition variable for its one callback, copy the results
 * out. Never call these on the client thread. Include after rmqclient/rmq_client.h.
 */
#ifndef RSQL_TESTS_RMQ_SYNC_H
#define RSQL_TESTS_RMQ_SYNC_H

#include <pthread.h>
#include <string.h>

#include "base/rsql_mem.h"

typedef struct tsync {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool done;
    rsql_error_t err;
    char **ids;
    int32_t *codes;
    size_t n;
    rsql_rmq_msg_t **msgs;
    size_t n_msgs;
    char *handle;
} tsync_t;

static inline void tsync_init(tsync_t *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    rsql_error_clear(&s->err);
}

static inline void tsync_signal(tsync_t *s, const rsql_error_t *err)
{
    pthread_mutex_lock(&s->mu);
    if (err) {
        rsql_error_copy(&s->err, err);
    }
    s->done = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

/* Wait for the callback when start_rc is RSQL_OK (else no callback comes); err gets the outcome. */
static inline rsql_err_t tsync_wait(tsync_t *s, rsql_err_t start_rc, rsql_error_t *err)
{
    if (start_rc == RSQL_OK) {
        pthread_mutex_lock(&s->mu);
        while (!s->done) {
            pthread_cond_wait(&s->cond, &s->mu);
        }
        pthread_mutex_unlock(&s->mu);
        rsql_error_copy(err, &s->err);
        start_rc = s->err.code;
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cond);
    return start_rc;
}

static inline void tsync_send_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                                 const rsql_rmq_send_entry_t *entries, size_t n, void *opaque)
{
    (void)c;
    tsync_t *s = opaque;
    for (size_t i = 0; s->ids && i < n && i < s->n; i++) {
        s->ids[i] = rsql_strdup(entries[i].message_id);
    }
    tsync_signal(s, err);
}

static inline void tsync_receive_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                                    rsql_rmq_msg_t **msgs, size_t n, void *opaque)
{
    (void)c;
    tsync_t *s = opaque;
    if (n) {
        s->msgs = rsql_calloc(n, sizeof(*msgs));
        for (size_t i = 0; i < n; i++) {
            if (s->msgs) {
                s->msgs[i] = msgs[i];
            } else {
                rsql_rmq_msg_destroy(msgs[i]);
            }
        }
        s->n_msgs = s->msgs ? n : 0;
    }
    tsync_signal(s, err);
}

static inline void tsync_ack_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                                const rsql_rmq_ack_result_t *results, size_t n, void *opaque)
{
    (void)c;
    tsync_t *s = opaque;
    for (size_t i = 0; s->codes && i < n && i < s->n; i++) {
        s->codes[i] = results[i].code;
    }
    tsync_signal(s, err);
}

static inline void tsync_change_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                                   const char *handle, void *opaque)
{
    (void)c;
    tsync_t *s = opaque;
    if (handle) {
        s->handle = rsql_strdup(handle);
    }
    tsync_signal(s, err);
}

/*
** rsql_rmq_send, waited for: fills ids[i] (caller frees with rsql_free; ids may be NULL).
*/
static inline rsql_err_t tsync_send(rsql_rmq_client_t *c, const rsql_rmq_out_msg_t *msgs,
                                    size_t n, char **ids, rsql_error_t *err)
{
    tsync_t s;
    tsync_init(&s);
    s.ids = ids;
    s.n = n;
    return tsync_wait(&s, rsql_rmq_send(c, msgs, n, tsync_send_cb, &s, err), err);
}

/*
** rsql_rmq_receive, waited for: owned messages in *msgs (free each with rsql_rmq_msg_destroy
** and the array with rsql_free).
*/
static inline rsql_err_t tsync_receive(rsql_rmq_client_t *c, const char *topic, int batch_size,
                                       int64_t invisible_ms, rsql_rmq_msg_t ***msgs, size_t *n,
                                       rsql_error_t *err)
{
    tsync_t s;
    tsync_init(&s);
    rsql_err_t rc = tsync_wait(
        &s, rsql_rmq_receive(c, topic, batch_size, invisible_ms, tsync_receive_cb, &s, err), err);
    *msgs = s.msgs;
    *n = s.n_msgs;
    return rc;
}

/* rsql_rmq_ack, waited for: fills codes[i] (codes may be NULL). */
static inline rsql_err_t tsync_ack(rsql_rmq_client_t *c, const char *topic,
                                   const rsql_rmq_ack_entry_t *entries, size_t n, int32_t *codes,
                                   rsql_error_t *err)
{
    tsync_t s;
    tsync_init(&s);
    s.codes = codes;
    s.n = n;
    return tsync_wait(&s, rsql_rmq_ack(c, topic, entries, n, tsync_ack_cb, &s, err), err);
}

/* rsql_rmq_change_invisible, waited for: the new handle in *new_handle (rsql_free; may be NULL). */
static inline rsql_err_t tsync_change_invisible(rsql_rmq_client_t *c, const char *topic,
                                                const char *message_id,
                                                const char *receipt_handle,
                                                const char *lite_topic, int64_t invisible_ms,
                                                bool suspend, char **new_handle,
                                                rsql_error_t *err)
{
    tsync_t s;
    tsync_init(&s);
    rsql_err_t rc = tsync_wait(&s,
                               rsql_rmq_change_invisible(c, topic, message_id, receipt_handle,
                                                         lite_topic, invisible_ms, suspend,
                                                         tsync_change_cb, &s, err),
                               err);
    if (new_handle) {
        *new_handle = s.handle;
    } else {
        rsql_free(s.handle);
    }
    return rc;
}

#endif
