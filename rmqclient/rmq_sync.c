/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_sync: waiting for an asynchronous operation of the RocketMQ client (the client's own
 * start-up, and the rocketmq-grpc source's lite subscriptions): start the operation, wait on a
 * condition variable for its one callback. Never call these on the client thread.
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

/* See rmq_client.h. */
rsql_err_t rsql_rmq_sync_lite_sync(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                                   const char *const *lite_topics, size_t n, rsql_error_t *err)
{
    rmq_sync_t s;
    rsql_rmq__sync_init(&s);
    return rsql_rmq__sync_wait(&s, rsql_rmq_sync_lite(c, action, lite_topics, n, rsql_rmq__sync_status_cb, &s, err),
                     err);
}
