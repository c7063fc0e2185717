/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_store: the fake RocketMQ proxy's state (API in fake_rmq.h): the topics, the stored
 * messages and their broker-like rules (invisibility, redelivery, receipt handles
 * "fk:<index>:<delivery>:<change>" valid for one delivery and one change), the scripted
 * answers, and the records and counts the tests read. Functions named fk_* run with f->mu
 * held; the fake_rmq_* ones take it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fakes/fake_rmq_int.h"

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ---- scripts ------------------------------------------------------------------------------- */

/* See fake_rmq.h. */
void fake_rmq_script(fake_rmq_t *f, fake_rpc_t rpc, int n, const fake_answer_t *a)
{
    fscript_t *s = calloc(1, sizeof *s);
    if (!s || n <= 0 || (int)rpc < 0 || rpc >= FAKE_RPC__COUNT) {
        free(s);
        return;
    }
    s->a = *a;
    s->n = n;
    pthread_mutex_lock(&f->mu);
    fscript_t **pp = &f->script[rpc];
    while (*pp) {
        pp = &(*pp)->next;
    }
    *pp = s;
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq_int.h. */
fake_answer_t fk_store_next_answer(fake_rmq_t *f, int rpc)
{
    fake_answer_t a;
    memset(&a, 0, sizeof a);
    fscript_t *s = f->script[rpc];
    if (s) {
        a = s->a;
        if (--s->n == 0) {
            f->script[rpc] = s->next;
            free(s);
        }
    }
    return a;
}

/* See fake_rmq.h. */
void fake_rmq_script_broken_stream(fake_rmq_t *f, int grpc_status, int n)
{
    pthread_mutex_lock(&f->mu);
    f->broken_status = grpc_status;
    f->broken_n = n;
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq.h. */
void fake_rmq_set_max_body(fake_rmq_t *f, int32_t max_body_size)
{
    pthread_mutex_lock(&f->mu);
    f->max_body = max_body_size;
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq.h. */
void fake_rmq_refuse_batches(fake_rmq_t *f, int32_t code)
{
    pthread_mutex_lock(&f->mu);
    f->refuse_batch = code;
    pthread_mutex_unlock(&f->mu);
}

/* ---- topics and messages ------------------------------------------------------------------- */

ftopic_t *fk_store_topic(fake_rmq_t *f, const char *name)
{
    for (size_t i = 0; name && i < f->n_topics; i++) {
        if (strcmp(f->topics[i].name, name) == 0) {
            return &f->topics[i];
        }
    }
    return NULL;
}

/* See fake_rmq.h. */
void fake_rmq_topic(fake_rmq_t *f, const char *name, fake_topic_kind_t kind, int n_queues)
{
    pthread_mutex_lock(&f->mu);
    ftopic_t *t = fk_store_topic(f, name);
    if (!t) {
        ftopic_t *nt = realloc(f->topics, (f->n_topics + 1) * sizeof *nt);
        if (nt) {
            f->topics = nt;
            t = &f->topics[f->n_topics++];
            memset(t, 0, sizeof *t);
            t->name = xstrdup(name);
        }
    }
    if (t) {
        t->kind = kind;
        t->n_queues = n_queues > 0 ? n_queues : 8;
    }
    pthread_mutex_unlock(&f->mu);
}

static void msg_free(fmsg_t *m)
{
    if (m) {
        free(m->topic);
        free(m->message_id);
        free(m->recv_client);
        free(m->lite_topic);
        free(m->group);
        free(m->tag);
        free(m->keys);
        free(m->body);
        free(m);
    }
}

/* Store a new READY message (strings copied); SIZE_MAX when out of memory. */
size_t fk_store_add(fake_rmq_t *f, const char *topic, const fake_msg_t *in)
{
    if (f->n_msgs == f->cap_msgs) {
        size_t nc = f->cap_msgs ? f->cap_msgs * 2 : 64;
        fmsg_t **nm = realloc(f->msgs, nc * sizeof *nm);
        if (!nm) {
            return SIZE_MAX;
        }
        f->msgs = nm;
        f->cap_msgs = nc;
    }
    fmsg_t *m = calloc(1, sizeof *m);
    if (!m) {
        return SIZE_MAX;
    }
    char id[32];
    snprintf(id, sizeof id, "FAKE%08" PRId64, ++f->seq);
    m->topic = xstrdup(topic);
    m->message_id = xstrdup(in->message_id ? in->message_id : id);
    m->lite_topic = xstrdup(in->lite_topic);
    m->group = xstrdup(in->message_group);
    m->tag = xstrdup(in->tag);
    m->keys = xstrdup(in->keys);
    m->body = malloc(in->body_len ? in->body_len : 1);
    if (m->body && in->body_len) {
        memcpy(m->body, in->body, in->body_len);
    }
    m->body_len = in->body_len;
    m->encoding = in->encoding;
    m->no_sys = in->no_system_properties;
    m->born_set = in->born_set;
    m->born_s = in->born_seconds;
    m->store_set = in->store_set;
    m->store_s = in->store_seconds;
    m->n_props = in->n_props;
    m->prop_value_len = in->prop_value_len;
    m->state = FAKE_READY;
    ftopic_t *t = fk_store_topic(f, topic);
    m->queue_offset = t ? t->next_offset++ : (int64_t)f->n_msgs;
    if (!m->topic || !m->message_id || !m->body) {
        msg_free(m);
        return SIZE_MAX;
    }
    f->msgs[f->n_msgs] = m;
    return f->n_msgs++;
}

/* See fake_rmq.h. */
size_t fake_rmq_put(fake_rmq_t *f, const char *topic, const fake_msg_t *m)
{
    pthread_mutex_lock(&f->mu);
    size_t idx = fk_store_add(f, topic, m);
    fk_svc_wake_polls(f, topic);
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return idx;
}

/* See fake_rmq.h. */
size_t fake_rmq_put_text(fake_rmq_t *f, const char *topic, const char *body)
{
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = body;
    m.body_len = strlen(body);
    return fake_rmq_put(f, topic, &m);
}

/* See fake_rmq.h. */
void fake_rmq_script_ack_entry(fake_rmq_t *f, size_t idx, int32_t code, int n)
{
    pthread_mutex_lock(&f->mu);
    if (idx < f->n_msgs) {
        f->msgs[idx]->ack_fail_code = code;
        f->msgs[idx]->ack_fail_n = n;
    }
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq_int.h. */
bool fk_store_msg_info(fake_rmq_t *f, size_t idx, fake_msg_info_t *out)
{
    memset(out, 0, sizeof *out);
    fk_store_expire(f, fk_now());
    bool ok = idx < f->n_msgs;
    if (ok) {
        const fmsg_t *m = f->msgs[idx];
        out->state = m->state;
        out->deliveries = m->deliveries;
        out->ack_requests = m->ack_requests;
        out->change_requests = m->change_requests;
        out->acks = m->acks;
        out->stale_acks = m->stale_acks;
        out->invalid_acks = m->invalid_acks;
        out->changes = m->changes;
        out->forwards = m->forwards;
        out->last_invisible_ms = m->last_invisible_ms;
        out->last_suspend = m->last_suspend;
        snprintf(out->topic, sizeof out->topic, "%s", m->topic);
        snprintf(out->message_id, sizeof out->message_id, "%s", m->message_id);
        snprintf(out->client_id, sizeof out->client_id, "%s",
                 m->recv_client ? m->recv_client : "");
        snprintf(out->message_group, sizeof out->message_group, "%s", m->group ? m->group : "");
        snprintf(out->keys, sizeof out->keys, "%s", m->keys ? m->keys : "");
        out->has_group = m->group != NULL;
    }
    return ok;
}

/* See fake_rmq.h. */
bool fake_rmq_msg_info(fake_rmq_t *f, size_t idx, fake_msg_info_t *out)
{
    pthread_mutex_lock(&f->mu);
    bool ok = fk_store_msg_info(f, idx, out);
    pthread_mutex_unlock(&f->mu);
    return ok;
}

/* See fake_rmq.h. */
size_t fake_rmq_find_body(fake_rmq_t *f, const char *topic, const void *body, size_t len)
{
    size_t r = SIZE_MAX;
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->n_msgs && r == SIZE_MAX; i++) {
        const fmsg_t *m = f->msgs[i];
        if (strcmp(m->topic, topic) == 0 && m->body_len == len &&
            (len == 0 || memcmp(m->body, body, len) == 0)) {
            r = i;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return r;
}

/* See fake_rmq.h. */
size_t fake_rmq_find_text(fake_rmq_t *f, const char *topic, const char *text)
{
    size_t r = SIZE_MAX, tl = strlen(text);
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->n_msgs && r == SIZE_MAX; i++) {
        const fmsg_t *m = f->msgs[i];
        for (size_t j = 0; strcmp(m->topic, topic) == 0 && j + tl <= m->body_len; j++) {
            if (memcmp(m->body + j, text, tl) == 0) {
                r = i;
                break;
            }
        }
    }
    pthread_mutex_unlock(&f->mu);
    return r;
}

/* See fake_rmq_int.h. */
void fk_store_record_send(fake_rmq_t *f, const uint8_t *body, size_t len)
{
    if (f->synth_discard) {
        return; /* fake_rmq_synth: nothing kept */
    }
    if (f->n_sends == f->cap_sends) {
        size_t nc = f->cap_sends ? f->cap_sends * 2 : 64;
        fsend_t *ns = realloc(f->sends, nc * sizeof *ns);
        if (!ns) {
            return;
        }
        f->sends = ns;
        f->cap_sends = nc;
    }
    fsend_t *s = &f->sends[f->n_sends];
    s->body = malloc(len ? len : 1);
    if (!s->body) {
        return;
    }
    if (len) {
        memcpy(s->body, body, len);
    }
    s->len = len;
    f->n_sends++;
}

/* See fake_rmq.h. */
int fake_rmq_send_attempts(fake_rmq_t *f, const void *body, size_t len)
{
    int n = 0;
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->n_sends; i++) {
        n += f->sends[i].len == len && (len == 0 || memcmp(f->sends[i].body, body, len) == 0);
    }
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* See fake_rmq.h. */
void fake_rmq_last_reply(fake_rmq_t *f, bool verify, char *out, size_t size)
{
    pthread_mutex_lock(&f->mu);
    snprintf(out, size, "%s", verify ? f->last_verify_nonce : f->last_stack_nonce);
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq_int.h. */
void fk_store_count(fake_rmq_t *f)
{
    fake_stats_t *st = &f->st;
    st->n_msgs = f->n_msgs;
    st->ready = st->inflight = st->acked = st->dead = 0;
    for (size_t i = 0; i < f->n_msgs; i++) {
        switch (f->msgs[i]->state) {
        case FAKE_READY:
            st->ready++;
            break;
        case FAKE_INFLIGHT:
            st->inflight++;
            break;
        case FAKE_ACKED:
            st->acked++;
            break;
        case FAKE_DEAD:
            st->dead++;
            break;
        }
    }
    st->waiting_polls = st->telemetry_open = 0;
    for (fcall_t *k = f->calls; k; k = k->next) {
        st->waiting_polls += k->waiting && !k->closed;
        st->telemetry_open += k->rpc == FAKE_TELEMETRY && !k->closed && !k->status_queued;
    }
}

/* See fake_rmq_int.h. */
int64_t fk_store_expire(fake_rmq_t *f, int64_t now)
{
    int64_t next = 0;
    for (size_t i = 0; i < f->n_msgs; i++) {
        fmsg_t *m = f->msgs[i];
        if (m->state != FAKE_INFLIGHT) {
            continue;
        }
        if (m->invisible_until <= now) {
            m->state = FAKE_READY; /* its invisible duration ended: delivered again */
            fk_svc_wake_polls(f, m->topic);
        } else if (next == 0 || m->invisible_until < next) {
            next = m->invisible_until;
        }
    }
    return next;
}

/* See fake_rmq_int.h. */
void fk_store_free(fake_rmq_t *f)
{
    for (int i = 0; i < FAKE_RPC__COUNT; i++) {
        while (f->script[i]) {
            fscript_t *s = f->script[i];
            f->script[i] = s->next;
            free(s);
        }
    }
    for (size_t i = 0; i < f->n_topics; i++) {
        free(f->topics[i].name);
    }
    free(f->topics);
    for (size_t i = 0; i < f->n_msgs; i++) {
        msg_free(f->msgs[i]);
    }
    free(f->msgs);
    for (size_t i = 0; i < f->n_sends; i++) {
        free(f->sends[i].body);
    }
    free(f->sends);
    for (size_t i = 0; i < f->n_settings_ids; i++) {
        free(f->settings_ids[i]);
    }
    free(f->settings_ids);
    free(f->synth_topic);
}

/* ---- receipt handles ----------------------------------------------------------------------- */

void fk_store_handle_of(size_t idx, const fmsg_t *m, char *out, size_t size)
{
    snprintf(out, size, "fk:%zu:%d:%d", idx, m->deliveries, m->change_gen);
}

/* The message a handle names, with its delivery and change numbers; NULL when unparsable. */
fmsg_t *fk_store_parse_handle(fake_rmq_t *f, const char *h, size_t *idx, int *delivery,
                            int *change)
{
    char tail;
    if (!h || sscanf(h, "fk:%zu:%d:%d%c", idx, delivery, change, &tail) != 3 ||
        *idx >= f->n_msgs) {
        return NULL;
    }
    return f->msgs[*idx];
}

int fk_store_check_handle(fake_rmq_t *f, const char *h, fmsg_t **out)
{
    size_t idx;
    int delivery, change;
    fk_store_expire(f, fk_now());
    fmsg_t *m = fk_store_parse_handle(f, h, &idx, &delivery, &change);
    *out = m;
    if (!m) {
        return H_BAD;
    }
    if ((m->state == FAKE_ACKED || m->state == FAKE_DEAD) && delivery == m->deliveries) {
        return H_DONE;
    }
    if (m->state != FAKE_INFLIGHT || delivery != m->deliveries) {
        return H_EXPIRED;
    }
    return change == m->change_gen ? H_OK : H_STALE;
}
