/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_sync: blocking wrappers over the asynchronous RocketMQ client operations (tests, tools,
 * and the client's own start-up): start the operation, wait on a condition variable for its one
 * callback, copy the results out. Never call these on the client thread.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "rmqclient/rmq_client.h"
#include "rmqclient/rmq_int.h"
#include "base/rsql_mem.h"

/* See rmq_int.h. */
void rsql_rmq__sync_init(rmq_sync_t *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    rsql_error_clear(&s->err);
}

/* See rmq_int.h. */
void rsql_rmq__sync_signal(rmq_sync_t *s, const rsql_error_t *err)
{
    pthread_mutex_lock(&s->mu);
    if (err) {
        rsql_error_copy(&s->err, err);
    }
    s->done = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__sync_wait(rmq_sync_t *s, rsql_err_t start_rc, rsql_error_t *err)
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

/* See rmq_int.h. */
void rsql_rmq__sync_status_cb(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    rsql_rmq__sync_signal(opaque, err);
}

static void sync_send_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                         const rsql_rmq_send_entry_t *entries, size_t n, void *opaque)
{
    rmq_sync_t *s = opaque;
    for (size_t i = 0; s->ids && i < n && i < s->n; i++) {
        s->ids[i] = rsql_strdup(entries[i].message_id);
    }
    rsql_rmq__sync_signal(s, err);
}

static void sync_receive_cb(rsql_rmq_client_t *c, const rsql_error_t *err, rsql_rmq_msg_t **msgs,
                            size_t n, void *opaque)
{
    rmq_sync_t *s = opaque;
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
    rsql_rmq__sync_signal(s, err);
}

static void sync_ack_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                        const rsql_rmq_ack_result_t *results, size_t n, void *opaque)
{
    rmq_sync_t *s = opaque;
    for (size_t i = 0; s->codes && i < n && i < s->n; i++) {
        s->codes[i] = results[i].code;
    }
    rsql_rmq__sync_signal(s, err);
}

static void sync_change_cb(rsql_rmq_client_t *c, const rsql_error_t *err, const char *handle,
                           void *opaque)
{
    rmq_sync_t *s = opaque;
    if (handle) {
        s->handle = rsql_strdup(handle);
    }
    rsql_rmq__sync_signal(s, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_send_sync(rsql_rmq_client_t *c, const rsql_rmq_out_msg_t *msgs, size_t n,
                              char **ids, rsql_error_t *err)
{
    rmq_sync_t s;
    rsql_rmq__sync_init(&s);
    s.ids = ids;
    s.n = n;
    return rsql_rmq__sync_wait(&s, rsql_rmq_send(c, msgs, n, sync_send_cb, &s, err), err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_receive_sync(rsql_rmq_client_t *c, const char *topic, int batch_size,
                                 int64_t invisible_ms, rsql_rmq_msg_t ***msgs, size_t *n,
                                 rsql_error_t *err)
{
    rmq_sync_t s;
    rsql_rmq__sync_init(&s);
    rsql_err_t rc = rsql_rmq__sync_wait(
        &s, rsql_rmq_receive(c, topic, batch_size, invisible_ms, sync_receive_cb, &s, err), err);
    *msgs = s.msgs;
    *n = s.n_msgs;
    return rc;
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_ack_sync(rsql_rmq_client_t *c, const char *topic,
                             const rsql_rmq_ack_entry_t *entries, size_t n, int32_t *codes,
                             rsql_error_t *err)
{
    rmq_sync_t s;
    rsql_rmq__sync_init(&s);
    s.codes = codes;
    s.n = n;
    return rsql_rmq__sync_wait(&s, rsql_rmq_ack(c, topic, entries, n, sync_ack_cb, &s, err), err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_change_invisible_sync(rsql_rmq_client_t *c, const char *topic,
                                          const char *message_id, const char *receipt_handle,
                                          const char *lite_topic, int64_t invisible_ms,
                                          bool suspend, char **new_handle, rsql_error_t *err)
{
    rmq_sync_t s;
    rsql_rmq__sync_init(&s);
    rsql_err_t rc = rsql_rmq__sync_wait(&s,
                              rsql_rmq_change_invisible(c, topic, message_id, receipt_handle,
                                                        lite_topic, invisible_ms, suspend,
                                                        sync_change_cb, &s, err),
                              err);
    if (new_handle) {
        *new_handle = s.handle;
    } else {
        rsql_free(s.handle);
    }
    return rc;
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_sync_lite_sync(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                                   const char *const *lite_topics, size_t n, rsql_error_t *err)
{
    rmq_sync_t s;
    rsql_rmq__sync_init(&s);
    return rsql_rmq__sync_wait(&s, rsql_rmq_sync_lite(c, action, lite_topics, n, rsql_rmq__sync_status_cb, &s, err),
                     err);
}
