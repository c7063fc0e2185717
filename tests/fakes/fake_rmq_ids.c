/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_ids: the client identities the fake sees. A process may run several client
 * identities over one connection (source.lite-clients): each request names its identity in the
 * x-mq-client-id header. The fake records which identities sent long polls and which identity
 * received each message's delivery, and counts acks and changes of invisible duration that a
 * different identity sent with the current handle (a client must settle a message under the
 * identity that received it: the proxy keeps receipt handles per client).
 *
 * It owns fmsg_t.recv_client, fake_rmq_t.poll_ids and the delivery pause; every function but
 * fake_rmq_pause_delivery (which takes it) runs with f->mu held.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fakes/fake_rmq_int.h"

/* See fake_rmq_int.h. */
void fk_ids_poll(fcall_t *k)
{
    fake_rmq_t *f = k->f;
    char id[256];
    fk_header(k, "x-mq-client-id", id, sizeof id);
    int i = 0;
    for (; i < FAKE_MAX_IDS && f->poll_ids[i]; i++) {
        if (strcmp(f->poll_ids[i], id) == 0) {
            return;
        }
    }
    if (i < FAKE_MAX_IDS && (f->poll_ids[i] = strdup(id))) {
        f->st.poll_clients = i + 1;
    }
}

/* See fake_rmq_int.h. */
void fk_ids_delivered(fcall_t *k, fmsg_t *m)
{
    char id[256];
    fk_header(k, "x-mq-client-id", id, sizeof id);
    free(m->recv_client);
    m->recv_client = strdup(id);
}

/* See fake_rmq_int.h. */
void fk_ids_check(fcall_t *k, const fmsg_t *m, bool ack)
{
    char id[256];
    fk_header(k, "x-mq-client-id", id, sizeof id);
    if (m->recv_client && strcmp(m->recv_client, id) != 0) {
        if (ack) {
            k->f->st.foreign_acks++;
        } else {
            k->f->st.foreign_changes++;
        }
    }
}

/* See fake_rmq_int.h. */
void fk_ids_free(fake_rmq_t *f)
{
    for (int i = 0; i < FAKE_MAX_IDS; i++) {
        free(f->poll_ids[i]);
        f->poll_ids[i] = NULL;
    }
}

/* See fake_rmq.h. */
void fake_rmq_pause_delivery(fake_rmq_t *f, bool paused)
{
    pthread_mutex_lock(&f->mu);
    f->deliveries_paused = paused;
    for (size_t i = 0; !paused && i < f->n_topics; i++) {
        fk_svc_wake_polls(f, f->topics[i].name);
    }
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}
