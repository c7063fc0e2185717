/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_synth: messages the fake RocketMQ proxy makes on the fly instead of storing them
 * (fake_rmq_synth in fake_rmq.h), so a run through hundreds of thousands of lite topics or
 * message groups measures the client's memory, not the fake's: a counter makes each message
 * when a long poll takes it, an ack only counts, and nothing is kept.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fakes/fake_rmq_int.h"

#define SYNTH_PREFIX "fs:"

/* See fake_rmq.h. */
void fake_rmq_synth(fake_rmq_t *f, const fake_synth_t *s)
{
    char *t = strdup(s->topic);
    pthread_mutex_lock(&f->mu);
    free(f->synth_topic);
    f->synth_topic = t;
    f->synth_kind = s->kind;
    f->synth_count = s->count > 0 ? (uint64_t)s->count : 0;
    f->synth_distinct = s->distinct > 0 ? (uint64_t)s->distinct : 1;
    f->synth_made = 0;
    f->synth_discard = s->discard_sends;
    f->st.synth_made = f->st.synth_acked = 0;
    if (t) {
        fk_svc_wake_polls(f, t);
    }
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq_int.h. */
int fk_synth_ready(fake_rmq_t *f, const char *topic, int cap)
{
    if (!f->synth_topic || !topic || strcmp(topic, f->synth_topic) != 0) {
        return 0;
    }
    uint64_t left = f->synth_count - f->synth_made;
    return left < (uint64_t)cap ? (int)left : cap;
}

/* See fake_rmq_int.h. */
uint8_t *fk_synth_pack(fake_rmq_t *f, int64_t invisible_ms, size_t *n, fk_pack_fn pack)
{
    uint64_t i = f->synth_made++;
    char body[32], id[32], name[32], handle[32];
    snprintf(body, sizeof body, "m-%" PRIu64, i);
    snprintf(id, sizeof id, "SYNTH%016" PRIu64, i);
    snprintf(name, sizeof name, "x-%" PRIu64, i % f->synth_distinct);
    snprintf(handle, sizeof handle, SYNTH_PREFIX "%" PRIu64, i);
    fmsg_t m;
    memset(&m, 0, sizeof m);
    m.topic = f->synth_topic;
    m.message_id = id;
    m.body = (uint8_t *)body;
    m.body_len = strlen(body);
    m.lite_topic = f->synth_kind == FAKE_LITE ? name : NULL;
    m.group = f->synth_kind == FAKE_FIFO ? name : NULL;
    m.queue_offset = (int64_t)i;
    m.deliveries = 1;
    f->st.synth_made++;
    return pack(&m, handle, invisible_ms, n);
}

/* See fake_rmq_int.h. */
bool fk_synth_is(const char *h)
{
    return h && strncmp(h, SYNTH_PREFIX, strlen(SYNTH_PREFIX)) == 0;
}

/* See fake_rmq_int.h. */
bool fk_synth_ack(fake_rmq_t *f, const char *h)
{
    if (!fk_synth_is(h)) {
        return false;
    }
    f->st.synth_acked++;
    return true;
}
