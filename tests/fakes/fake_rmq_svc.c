/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_svc: what the fake RocketMQ proxy answers (API in fake_rmq.h; the gRPC side is
 * fake_rmq.c, the message store fake_rmq_store.c). Requests are decoded and responses encoded
 * with our protobuf-c messages: routes to itself, Settings echoed with the server's values,
 * long polls that wait for a visible message, acks, changes and forwards judged by the store's
 * receipt-handle rules, the scripted answers applied first. Every function runs with f->mu
 * held, on the completion-queue thread or (pushes, resets) on the test's thread.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <grpc/grpc.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "tests/fakes/fake_rmq_int.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x

#define CODE_OK 20000
#define CODE_MULTIPLE_RESULTS 30000
#define CODE_INVALID_RECEIPT_HANDLE 40013
#define CODE_UNRECOGNIZED_CLIENT_TYPE 40015
#define CODE_CLIENT_ID_REQUIRED 40017
#define CODE_MESSAGE_NOT_FOUND 40401
#define CODE_TOPIC_NOT_FOUND 40402
#define CODE_MESSAGE_BODY_TOO_LARGE 41301
#define CODE_MESSAGE_BODY_EMPTY 41302
#define CODE_INTERNAL_SERVER_ERROR 50001

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Pack m into a new buffer of *n bytes (caller frees). */
static uint8_t *pack(const ProtobufCMessage *m, size_t *n)
{
    *n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(*n ? *n : 1);
    if (b) {
        protobuf_c_message_pack(m, b);
    }
    return b;
}

static void out_pb(fcall_t *k, const ProtobufCMessage *m)
{
    size_t n;
    uint8_t *b = pack(m, &n);
    if (b) {
        fk_out_msg(k, b, n);
        free(b);
    }
}

/* Send what is queued now, or after delay_ms. */
static void finish(fcall_t *k, int delay_ms)
{
    if (delay_ms > 0) {
        fk_hold(k, fk_now() + delay_ms);
    } else {
        fk_pump(k);
    }
}

static int64_t wall_s(void)
{
    return (int64_t)time(NULL);
}

/* ---- encoding a stored message ------------------------------------------------------------- */

/* Pack message m with handle as a ReceiveMessageResponse element (caller frees); NULL on OOM. */
static uint8_t *pack_message(const fmsg_t *m, const char *handle, int64_t invisible_ms,
                             size_t *n)
{
    PB(ReceiveMessageResponse) r = PBC(RECEIVE_MESSAGE_RESPONSE__INIT);
    PB(Message) pm = PBC(MESSAGE__INIT);
    PB(Resource) t = PBC(RESOURCE__INIT);
    PB(SystemProperties) sp = PBC(SYSTEM_PROPERTIES__INIT);
    Google__Protobuf__Timestamp born = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    Google__Protobuf__Timestamp stored = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    Google__Protobuf__Duration inv = GOOGLE__PROTOBUF__DURATION__INIT;
    t.name = m->topic;
    pm.topic = &t;
    pm.body.data = m->body;
    pm.body.len = m->body_len;
    born.seconds = m->born_set ? m->born_s : wall_s();
    stored.seconds = m->store_set ? m->store_s : wall_s();
    inv.seconds = invisible_ms / 1000;
    inv.nanos = (int32_t)(invisible_ms % 1000) * 1000000;
    char *tag = m->tag;
    sp.message_id = m->message_id;
    sp.body_encoding = m->encoding == 2 ? PBC(ENCODING__GZIP) : PBC(ENCODING__IDENTITY);
    sp.message_type = m->lite_topic ? PBC(MESSAGE_TYPE__LITE)
                      : m->group    ? PBC(MESSAGE_TYPE__FIFO)
                                    : PBC(MESSAGE_TYPE__NORMAL);
    sp.born_timestamp = &born;
    sp.born_host = (char *)"127.0.0.1";
    sp._store_timestamp_case = PBC(SYSTEM_PROPERTIES___STORE_TIMESTAMP_STORE_TIMESTAMP);
    sp.store_timestamp = &stored;
    sp.store_host = (char *)"127.0.0.1:10911";
    sp._receipt_handle_case = PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE);
    sp.receipt_handle = (char *)handle;
    sp.queue_id = 0;
    sp._queue_offset_case = PBC(SYSTEM_PROPERTIES___QUEUE_OFFSET_QUEUE_OFFSET);
    sp.queue_offset = m->queue_offset;
    sp._invisible_duration_case = PBC(SYSTEM_PROPERTIES___INVISIBLE_DURATION_INVISIBLE_DURATION);
    sp.invisible_duration = &inv;
    sp._delivery_attempt_case = PBC(SYSTEM_PROPERTIES___DELIVERY_ATTEMPT_DELIVERY_ATTEMPT);
    sp.delivery_attempt = m->deliveries;
    if (tag) {
        sp._tag_case = PBC(SYSTEM_PROPERTIES___TAG_TAG);
        sp.tag = tag;
    }
    if (m->group) {
        sp._message_group_case = PBC(SYSTEM_PROPERTIES___MESSAGE_GROUP_MESSAGE_GROUP);
        sp.message_group = m->group;
    }
    if (m->lite_topic) {
        sp._lite_topic_case = PBC(SYSTEM_PROPERTIES___LITE_TOPIC_LITE_TOPIC);
        sp.lite_topic = m->lite_topic;
    }
    pm.system_properties = m->no_sys ? NULL : &sp;
    /* the user properties (a huge map for the hostile-input tests) */
    PB(Message__UserPropertiesEntry) *pe = NULL, **ppe = NULL;
    char *pbuf = NULL;
    size_t np = m->n_props, vlen = m->prop_value_len ? m->prop_value_len : 8;
    size_t slot = 24 + vlen + 1;
    if (np) {
        pe = calloc(np, sizeof *pe);
        ppe = calloc(np, sizeof *ppe);
        pbuf = malloc(np * slot);
        if (!pe || !ppe || !pbuf) {
            free(pe);
            free(ppe);
            free(pbuf);
            return NULL;
        }
        for (size_t i = 0; i < np; i++) {
            PB(Message__UserPropertiesEntry) e = PBC(MESSAGE__USER_PROPERTIES_ENTRY__INIT);
            char *k = pbuf + i * slot, *v = k + 24;
            snprintf(k, 24, "k%zu", i);
            memset(v, 'v', vlen);
            v[vlen] = '\0';
            e.key = k;
            e.value = v;
            pe[i] = e;
            ppe[i] = &pe[i];
        }
        pm.n_user_properties = np;
        pm.user_properties = ppe;
    }
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_MESSAGE);
    r.message = &pm;
    uint8_t *b = pack(&r.base, n);
    free(pe);
    free(ppe);
    free(pbuf);
    return b;
}

/* ---- ReceiveMessage ------------------------------------------------------------------------ */

static void recv_status(fcall_t *k, int32_t code, const char *msg)
{
    PB(ReceiveMessageResponse) r = PBC(RECEIVE_MESSAGE_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    st.code = (PB(Code))code;
    st.message = (char *)msg;
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_STATUS);
    r.status = &st;
    out_pb(k, &r.base);
}

static void recv_end(fcall_t *k)
{
    PB(ReceiveMessageResponse) r = PBC(RECEIVE_MESSAGE_RESPONSE__INIT);
    Google__Protobuf__Timestamp ts = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    ts.seconds = wall_s();
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_DELIVERY_TIMESTAMP);
    r.delivery_timestamp = &ts;
    out_pb(k, &r.base);
    fk_out_status(k, GRPC_STATUS_OK);
}

/* Deliver what is visible on k's topic (up to its batch); false when nothing is. */
static bool try_deliver(fcall_t *k)
{
    fake_rmq_t *f = k->f;
    int64_t now = fk_now();
    size_t take[64];
    int n = 0, cap = k->batch > 0 && k->batch < 64 ? k->batch : 32;
    if (f->deliveries_paused) {
        return false; /* fake_rmq_pause_delivery */
    }
    int synth = fk_synth_ready(f, k->topic, cap); /* fake_rmq_synth: made, never stored */
    for (size_t i = 0; i < f->n_msgs && n < cap && !synth; i++) {
        fmsg_t *m = f->msgs[i];
        if (m->state == FAKE_READY && k->topic && strcmp(m->topic, k->topic) == 0) {
            take[n++] = i;
        }
    }
    if (n == 0 && synth == 0) {
        return false;
    }
    k->waiting = false;
    k->due = 0;
    recv_status(k, CODE_OK, "OK");
    int64_t inv = k->invisible_ms > 0 ? k->invisible_ms : 60000;
    for (int i = 0; i < synth; i++) {
        size_t len;
        uint8_t *b = fk_synth_pack(f, inv, &len, pack_message);
        if (b) {
            fk_out_msg(k, b, len);
            free(b);
        }
    }
    for (int i = 0; i < n; i++) {
        fmsg_t *m = f->msgs[take[i]];
        m->state = FAKE_INFLIGHT;
        m->deliveries++;
        fk_ids_delivered(k, m);
        m->change_gen = 0;
        m->invisible_until = now + inv;
        m->last_invisible_ms = inv;
        size_t len;
        char handle[64];
        fk_store_handle_of(take[i], m, handle, sizeof handle);
        uint8_t *b = pack_message(m, handle, inv, &len);
        if (b) {
            fk_out_msg(k, b, len);
            free(b);
        }
    }
    if (k->broken_status) {
        fk_out_status(k, k->broken_status);
    } else {
        recv_end(k);
    }
    fk_pump(k);
    return true;
}

/* See fake_rmq_int.h. */
void fk_svc_wake_polls(fake_rmq_t *f, const char *topic)
{
    for (fcall_t *k = f->calls; k; k = k->next) {
        if (k->waiting && !k->closed && k->topic && strcmp(k->topic, topic) == 0) {
            try_deliver(k);
        }
    }
}

/* ---- client Settings (fake_rmq_forget_settings) -------------------------------------------- */

static bool has_settings(const fake_rmq_t *f, const char *id)
{
    for (size_t i = 0; i < f->n_settings_ids; i++) {
        if (strcmp(f->settings_ids[i], id) == 0) {
            return true;
        }
    }
    return false;
}

static void add_settings(fake_rmq_t *f, const char *id)
{
    if (has_settings(f, id)) {
        return;
    }
    char **n = realloc(f->settings_ids, (f->n_settings_ids + 1) * sizeof *n);
    if (n) {
        f->settings_ids = n;
        f->settings_ids[f->n_settings_ids] = xstrdup(id);
        f->n_settings_ids += f->settings_ids[f->n_settings_ids] != NULL;
    }
}

/* See fake_rmq.h. */
void fake_rmq_forget_settings(fake_rmq_t *f)
{
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->n_settings_ids; i++) {
        free(f->settings_ids[i]);
    }
    f->n_settings_ids = 0;
    f->settings_enforced = true;
    pthread_mutex_unlock(&f->mu);
}

/* Whether k's client id lacks Settings the fake would need (only once enforced). */
static bool settings_missing(fcall_t *k)
{
    if (!k->f->settings_enforced) {
        return false;
    }
    char id[256];
    fk_header(k, "x-mq-client-id", id, sizeof id);
    if (has_settings(k->f, id)) {
        return false;
    }
    k->f->st.settings_missing++;
    return true;
}

static void on_receive(fcall_t *k, const uint8_t *p, size_t n)
{
    fake_rmq_t *f = k->f;
    PB(ReceiveMessageRequest) *r =
        apache__rocketmq__v2__receive_message_request__unpack(NULL, n, p);
    if (!r) {
        fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
        fk_pump(k);
        return;
    }
    fk_ids_poll(k);
    k->topic = xstrdup(r->message_queue && r->message_queue->topic ? r->message_queue->topic->name
                                                                   : "");
    k->batch = r->batch_size;
    k->invisible_ms = r->invisible_duration ? r->invisible_duration->seconds * 1000 +
                                                  r->invisible_duration->nanos / 1000000
                                            : 0;
    int64_t poll_ms = r->long_polling_timeout ? r->long_polling_timeout->seconds * 1000 +
                                                    r->long_polling_timeout->nanos / 1000000
                                              : 20000;
    apache__rocketmq__v2__receive_message_request__free_unpacked(r, NULL);
    if (f->broken_n > 0) {
        k->broken_status = f->broken_status;
        f->broken_n--;
    }
    if (settings_missing(k)) {
        /* 5.5: ReceiveMessageActivity reads the client's Settings first (a NullPointerException) */
        recv_status(k, CODE_INTERNAL_SERVER_ERROR,
                    "Cannot invoke \"apache.rocketmq.v2.Settings.getClientType()\" because "
                    "\"settings\" is null");
        recv_end(k);
        fk_pump(k);
        return;
    }
    fake_answer_t a = fk_store_next_answer(f, FAKE_RECEIVE);
    if (a.drop) {
        fk_drop0(f);
        return;
    }
    if (a.hang) {
        return; /* neither messages nor an end: the client's deadline ends the call */
    }
    if (a.grpc_status) {
        fk_out_status(k, a.grpc_status);
        finish(k, a.delay_ms);
        return;
    }
    if (a.code && a.code != CODE_OK) {
        recv_status(k, a.code, "fake_rmq: scripted status");
        recv_end(k);
        finish(k, a.delay_ms);
        return;
    }
    /* a long poll: answer when a message is visible, else MESSAGE_NOT_FOUND at its end */
    k->poll_ms = poll_ms;
    if (a.delay_ms > 0) {
        fk_schedule(k, fk_now() + a.delay_ms, FDUE_RECV_START); /* the delay, then the poll */
        return;
    }
    k->waiting = true;
    fk_schedule(k, fk_now() + poll_ms, FDUE_POLL_END);
    fk_store_expire(f, fk_now());
    try_deliver(k);
}

/* See fake_rmq_int.h. */
void fk_svc_due(fcall_t *k)
{
    if (k->rpc != FAKE_RECEIVE) {
        return;
    }
    if (k->due_kind == FDUE_RECV_START) {
        k->waiting = true;
        fk_schedule(k, fk_now() + k->poll_ms, FDUE_POLL_END);
        fk_store_expire(k->f, fk_now());
        try_deliver(k);
        return;
    }
    if (k->waiting) {
        k->waiting = false;
        recv_status(k, CODE_MESSAGE_NOT_FOUND, "no new message");
        recv_end(k);
        fk_pump(k);
    }
}

/* See fake_rmq_int.h. */
void fk_svc_closed(fcall_t *k)
{
    k->waiting = false;
}

/* ---- unary RPCs ---------------------------------------------------------------------------- */

static void status_only(fcall_t *k, int32_t code, const char *msg, int delay_ms)
{
    PB(HeartbeatResponse) r = PBC(HEARTBEAT_RESPONSE__INIT); /* every {1 status} response */
    PB(Status) st = PBC(STATUS__INIT);
    st.code = (PB(Code))(code ? code : CODE_OK);
    st.message = (char *)(msg ? msg : "OK");
    r.status = &st;
    out_pb(k, &r.base);
    fk_out_status(k, GRPC_STATUS_OK);
    finish(k, delay_ms);
}

static void on_query_route(fcall_t *k, const uint8_t *p, size_t n, const fake_answer_t *a)
{
    fake_rmq_t *f = k->f;
    PB(QueryRouteRequest) *q = apache__rocketmq__v2__query_route_request__unpack(NULL, n, p);
    const char *name = q && q->topic ? q->topic->name : "";
    ftopic_t *t = fk_store_topic(f, name);
    PB(QueryRouteResponse) r = PBC(QUERY_ROUTE_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    char msg[300];
    st.code = CODE_OK;
    st.message = (char *)"OK";
    if (a->code) {
        st.code = (PB(Code))a->code;
        st.message = (char *)"fake_rmq: scripted status";
    } else if (!t) {
        snprintf(msg, sizeof msg, "CODE: 17 DESC: No topic route info in name server for the "
                                  "topic: %s", name);
        st.code = CODE_TOPIC_NOT_FOUND;
        st.message = msg;
    }
    r.status = &st;
    int nq = st.code == CODE_OK && t ? t->n_queues : 0;
    PB(MessageQueue) *mq = nq ? calloc((size_t)nq, sizeof *mq) : NULL;
    PB(MessageQueue) **pmq = nq ? calloc((size_t)nq, sizeof *pmq) : NULL;
    PB(Resource) res = PBC(RESOURCE__INIT);
    PB(Broker) br = PBC(BROKER__INIT);
    PB(Endpoints) ep = PBC(ENDPOINTS__INIT);
    PB(Address) ad = PBC(ADDRESS__INIT), *pad[1] = {&ad};
    PB(MessageType) types[1] = {(PB(MessageType))(t ? t->kind : FAKE_NORMAL)};
    res.name = (char *)name;
    ad.host = (char *)"127.0.0.1";
    ad.port = f->port; /* itself: every RPC comes back to the fake */
    ep.scheme = PBC(ADDRESS_SCHEME__IPv4);
    ep.n_addresses = 1;
    ep.addresses = pad;
    br.name = (char *)"fake-broker";
    br.id = 0;
    br.endpoints = &ep;
    if (mq && pmq) {
        for (int i = 0; i < nq; i++) {
            PB(MessageQueue) q0 = PBC(MESSAGE_QUEUE__INIT);
            q0.topic = &res;
            q0.id = i;
            q0.permission = PBC(PERMISSION__READ_WRITE);
            q0.broker = &br;
            q0.n_accept_message_types = 1;
            q0.accept_message_types = types;
            mq[i] = q0;
            pmq[i] = &mq[i];
        }
        r.n_message_queues = (size_t)nq;
        r.message_queues = pmq;
    }
    out_pb(k, &r.base);
    fk_out_status(k, GRPC_STATUS_OK);
    finish(k, a->delay_ms);
    free(mq);
    free(pmq);
    if (q) {
        apache__rocketmq__v2__query_route_request__free_unpacked(q, NULL);
    }
}

static void on_send(fcall_t *k, const uint8_t *p, size_t n, const fake_answer_t *a)
{
    fake_rmq_t *f = k->f;
    PB(SendMessageRequest) *q = apache__rocketmq__v2__send_message_request__unpack(NULL, n, p);
    if (!q) {
        fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
        fk_pump(k);
        return;
    }
    int32_t code = a->code ? a->code : CODE_OK;
    int32_t max = f->max_body > 0 ? f->max_body : 4 * 1024 * 1024;
    if (code == CODE_OK && q->n_messages > 1 && f->refuse_batch) {
        code = f->refuse_batch;
    }
    for (size_t i = 0; code == CODE_OK && i < q->n_messages; i++) {
        if (q->messages[i]->body.len == 0) {
            code = CODE_MESSAGE_BODY_EMPTY;
        } else if (q->messages[i]->body.len > (size_t)max) {
            code = CODE_MESSAGE_BODY_TOO_LARGE;
        }
    }
    char ids[4096];
    ids[0] = '\0';
    int64_t offset = 0;
    for (size_t i = 0; i < q->n_messages; i++) {
        const PB(Message) *m = q->messages[i];
        const PB(SystemProperties) *sp = m->system_properties;
        if (code != CODE_OK) {
            f->st.sent_rejected++;
            continue;
        }
        fake_msg_t in;
        memset(&in, 0, sizeof in);
        in.body = m->body.data;
        in.body_len = m->body.len;
        in.message_id = sp ? sp->message_id : NULL;
        in.lite_topic = sp && sp->_lite_topic_case ? sp->lite_topic : NULL;
        in.message_group = sp && sp->_message_group_case ? sp->message_group : NULL;
        in.tag = sp && sp->_tag_case ? sp->tag : NULL;
        char keys[256] = "";
        for (size_t j = 0; sp && j < sp->n_keys; j++) {
            size_t used = strlen(keys);
            snprintf(keys + used, sizeof keys - used, "%s%s", j ? " " : "", sp->keys[j]);
        }
        in.keys = sp && sp->n_keys ? keys : NULL;
        in.encoding = sp && sp->body_encoding == PBC(ENCODING__GZIP) ? 2 : 0;
        const char *topic = m->topic ? m->topic->name : "";
        size_t idx = f->synth_discard ? (f->st.sent_ok++, SIZE_MAX) : fk_store_add(f, topic, &in);
        if (idx != SIZE_MAX) {
            offset = f->msgs[idx]->queue_offset;
            f->st.sent_ok++;
            fk_svc_wake_polls(f, topic);
        }
        size_t used = strlen(ids);
        snprintf(ids + used, sizeof ids - used, "%s%s", used ? "," : "",
                 in.message_id ? in.message_id : "");
    }
    /* like the proxy: one entry for the batch, its ids joined with ',' */
    PB(SendMessageResponse) r = PBC(SEND_MESSAGE_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    PB(SendResultEntry) e = PBC(SEND_RESULT_ENTRY__INIT), *pe[1] = {&e};
    st.code = (PB(Code))code;
    st.message = (char *)(code == CODE_OK ? "OK" : "fake_rmq: send refused");
    r.status = &st;
    e.status = &st;
    e.message_id = ids;
    e.offset = offset;
    r.n_entries = 1;
    r.entries = pe;
    out_pb(k, &r.base);
    fk_out_status(k, GRPC_STATUS_OK);
    finish(k, a->delay_ms);
    apache__rocketmq__v2__send_message_request__free_unpacked(q, NULL);
}

static void on_ack(fcall_t *k, const uint8_t *p, size_t n, const fake_answer_t *a)
{
    fake_rmq_t *f = k->f;
    PB(AckMessageRequest) *q = apache__rocketmq__v2__ack_message_request__unpack(NULL, n, p);
    if (!q) {
        fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
        fk_pump(k);
        return;
    }
    size_t ne = q->n_entries;
    PB(AckMessageResultEntry) *res = ne ? calloc(ne, sizeof *res) : NULL;
    PB(AckMessageResultEntry) **pres = ne ? calloc(ne, sizeof *pres) : NULL;
    PB(Status) *sts = ne ? calloc(ne, sizeof *sts) : NULL;
    if (ne && (!res || !pres || !sts)) {
        ne = 0;
    }
    int32_t top = 0;
    bool mixed = false;
    for (size_t i = 0; i < ne; i++) {
        const PB(AckMessageEntry) *e = q->entries[i];
        int32_t code = CODE_OK;
        const char *msg = "OK";
        fmsg_t *m = NULL;
        if (a->code) {
            code = a->code;
            msg = "fake_rmq: scripted status";
        } else if (fk_synth_ack(f, e->receipt_handle)) {
            /* a made message: counted, nothing kept */
        } else {
            int h = fk_store_check_handle(f, e->receipt_handle, &m);
            if (h == H_OK && m) {
                fk_ids_check(k, m, true);
            }
            if (m && m->ack_fail_n > 0) {
                m->ack_fail_n--;
                code = m->ack_fail_code;
                msg = "fake_rmq: scripted entry status";
                if (code == CODE_INVALID_RECEIPT_HANDLE) {
                    m->invalid_acks++;
                }
            } else if (h == H_BAD) {
                code = CODE_INTERNAL_SERVER_ERROR;
                msg = "Parse failed, dataList size 1";
                f->st.unknown_acks++;
            } else if (h == H_EXPIRED) {
                code = CODE_INVALID_RECEIPT_HANDLE;
                msg = "receipt handle is expired";
                m->invalid_acks++;
                f->st.invalid_acks++;
            } else if (h == H_DONE) {
                f->st.double_acks++; /* acked again with the same handle: OK, nothing to do */
            } else if (h == H_STALE) {
                m->stale_acks++; /* replaced by a change: OK, but the message is not acked */
                f->st.stale_acks++;
            } else {
                m->state = FAKE_ACKED;
                m->acks++;
            }
        }
        PB(AckMessageResultEntry) r0 = PBC(ACK_MESSAGE_RESULT_ENTRY__INIT);
        PB(Status) s0 = PBC(STATUS__INIT);
        s0.code = (PB(Code))code;
        s0.message = (char *)msg;
        sts[i] = s0;
        r0.message_id = e->message_id;
        r0.receipt_handle = e->receipt_handle;
        r0.status = &sts[i];
        res[i] = r0;
        pres[i] = &res[i];
        mixed |= i > 0 && code != top;
        top = i == 0 ? code : top;
    }
    PB(AckMessageResponse) r = PBC(ACK_MESSAGE_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    st.code = (PB(Code))(mixed ? CODE_MULTIPLE_RESULTS : top ? top : CODE_OK);
    st.message = (char *)(mixed ? "fake_rmq: entries differ" : "OK");
    r.status = &st;
    r.n_entries = ne;
    r.entries = pres;
    out_pb(k, &r.base);
    fk_out_status(k, GRPC_STATUS_OK);
    finish(k, a->delay_ms);
    free(res);
    free(pres);
    free(sts);
    apache__rocketmq__v2__ack_message_request__free_unpacked(q, NULL);
}

static void on_change(fcall_t *k, const uint8_t *p, size_t n, const fake_answer_t *a)
{
    fake_rmq_t *f = k->f;
    PB(ChangeInvisibleDurationRequest) *q =
        apache__rocketmq__v2__change_invisible_duration_request__unpack(NULL, n, p);
    if (!q) {
        fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
        fk_pump(k);
        return;
    }
    PB(ChangeInvisibleDurationResponse) r = PBC(CHANGE_INVISIBLE_DURATION_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    char handle[64] = "";
    st.code = CODE_OK;
    st.message = (char *)"OK";
    f->st.last_change_suspend = q->_suspend_case ? (q->suspend ? 1 : 0) : 0;
    if (a->code) {
        st.code = (PB(Code))a->code;
        st.message = (char *)"fake_rmq: scripted status";
    } else if (fk_synth_is(q->receipt_handle)) {
        snprintf(handle, sizeof handle, "%s", q->receipt_handle); /* a made message: OK */
    } else {
        fmsg_t *m = NULL;
        int h = fk_store_check_handle(f, q->receipt_handle, &m);
        if (h == H_OK && m) {
            fk_ids_check(k, m, false);
        }
        if (h == H_BAD) {
            st.code = CODE_INTERNAL_SERVER_ERROR;
            st.message = (char *)"Parse failed, dataList size 1";
        } else if (h != H_OK) {
            st.code = CODE_INVALID_RECEIPT_HANDLE;
            st.message = (char *)"receipt handle is expired";
        } else {
            int64_t ms = q->invisible_duration ? q->invisible_duration->seconds * 1000 +
                                                     q->invisible_duration->nanos / 1000000
                                               : 0;
            m->change_gen++;
            m->changes++;
            m->last_invisible_ms = ms;
            m->last_suspend = q->_suspend_case && q->suspend;
            m->invisible_until = fk_now() + ms;
            f->st.changes++;
            size_t idx = 0;
            int d, c;
            fk_store_parse_handle(f, q->receipt_handle, &idx, &d, &c);
            fk_store_handle_of(idx, m, handle, sizeof handle);
            if (ms <= 0) {
                m->state = FAKE_READY; /* visible again at once */
                fk_svc_wake_polls(f, m->topic);
            }
        }
    }
    r.status = &st;
    r.receipt_handle = handle;
    out_pb(k, &r.base);
    fk_out_status(k, GRPC_STATUS_OK);
    finish(k, a->delay_ms);
    apache__rocketmq__v2__change_invisible_duration_request__free_unpacked(q, NULL);
}

static void on_forward(fcall_t *k, const uint8_t *p, size_t n, const fake_answer_t *a)
{
    fake_rmq_t *f = k->f;
    PB(ForwardMessageToDeadLetterQueueRequest) *q =
        apache__rocketmq__v2__forward_message_to_dead_letter_queue_request__unpack(NULL, n, p);
    int32_t code = a->code;
    if (!q) {
        fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
        fk_pump(k);
        return;
    }
    if (!code) {
        fmsg_t *m = NULL;
        int h = fk_store_check_handle(f, q->receipt_handle, &m);
        code = h == H_BAD ? CODE_INTERNAL_SERVER_ERROR
               : h == H_OK ? CODE_OK
                           : CODE_INVALID_RECEIPT_HANDLE;
        if (code == CODE_OK) {
            m->state = FAKE_DEAD;
            m->forwards++;
            f->st.forwards++;
        }
    }
    apache__rocketmq__v2__forward_message_to_dead_letter_queue_request__free_unpacked(q, NULL);
    status_only(k, code, code == CODE_OK ? "OK" : "fake_rmq: forward refused", a->delay_ms);
}

/* ---- Telemetry ----------------------------------------------------------------------------- */

static void on_telemetry(fcall_t *k, const uint8_t *p, size_t n)
{
    fake_rmq_t *f = k->f;
    PB(TelemetryCommand) *c = apache__rocketmq__v2__telemetry_command__unpack(NULL, n, p);
    if (!c) {
        fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
        fk_pump(k);
        return;
    }
    if (c->command_case == PBC(TELEMETRY_COMMAND__COMMAND_THREAD_STACK_TRACE)) {
        f->st.stack_replies++;
        snprintf(f->last_stack_nonce, sizeof f->last_stack_nonce, "%s",
                 c->thread_stack_trace->nonce);
    } else if (c->command_case == PBC(TELEMETRY_COMMAND__COMMAND_VERIFY_MESSAGE_RESULT)) {
        f->st.verify_replies++;
        snprintf(f->last_verify_nonce, sizeof f->last_verify_nonce, "%s",
                 c->verify_message_result->nonce);
    } else if (c->command_case == PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS) && c->settings) {
        f->st.calls[FAKE_TELEMETRY]++;
        fake_answer_t a = fk_store_next_answer(f, FAKE_TELEMETRY);
        PB(Settings) *s = c->settings; /* echoed back, with the server's values */
        PB(TelemetryCommand) r = PBC(TELEMETRY_COMMAND__INIT);
        PB(Status) st = PBC(STATUS__INIT);
        PB(RetryPolicy) rp = PBC(RETRY_POLICY__INIT);
        PB(RetryPolicy) *client_rp = s->backoff_policy; /* restored before the free */
        int client_rp_case = (int)s->_backoff_policy_case;
        st.code = CODE_OK;
        st.message = (char *)"OK";
        r._status_case = PBC(TELEMETRY_COMMAND___STATUS_STATUS);
        r.status = &st;
        if (a.drop) {
            fk_drop0(f);
        } else if (a.hang) {
            /* no Settings reply */
        } else if (a.grpc_status) {
            fk_out_status(k, a.grpc_status);
            finish(k, a.delay_ms);
        } else {
            if (a.code) {
                st.code = (PB(Code))a.code;
                st.message = (char *)"fake_rmq: scripted status";
            }
            rp.max_attempts = 17;
            s->_backoff_policy_case = PBC(SETTINGS___BACKOFF_POLICY_BACKOFF_POLICY);
            s->backoff_policy = &rp;
            if (s->pub_sub_case == PBC(SETTINGS__PUB_SUB_PUBLISHING) && s->publishing) {
                rp.max_attempts = 3;
                s->publishing->max_body_size = f->max_body > 0 ? f->max_body : 4 * 1024 * 1024;
                s->publishing->validate_message_type = 1;
            } else if (s->pub_sub_case == PBC(SETTINGS__PUB_SUB_SUBSCRIPTION) && s->subscription) {
                PB(Subscription) *sub = s->subscription;
                const char *t0 = sub->n_subscriptions && sub->subscriptions[0]->topic
                                     ? sub->subscriptions[0]->topic->name
                                     : NULL;
                ftopic_t *t = fk_store_topic(f, t0);
                sub->_fifo_case = PBC(SUBSCRIPTION___FIFO_FIFO);
                sub->fifo = t && t->kind == FAKE_FIFO;
                sub->_receive_batch_size_case =
                    PBC(SUBSCRIPTION___RECEIVE_BATCH_SIZE_RECEIVE_BATCH_SIZE);
                sub->receive_batch_size = 32;
                sub->_lite_subscription_quota_case =
                    PBC(SUBSCRIPTION___LITE_SUBSCRIPTION_QUOTA_LITE_SUBSCRIPTION_QUOTA);
                sub->lite_subscription_quota = 2000;
                sub->_max_lite_topic_size_case =
                    PBC(SUBSCRIPTION___MAX_LITE_TOPIC_SIZE_MAX_LITE_TOPIC_SIZE);
                sub->max_lite_topic_size = 64;
            }
            if (st.code == CODE_OK) {
                r.command_case = PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS);
                r.settings = s;
                char id[256];
                fk_header(k, "x-mq-client-id", id, sizeof id);
                add_settings(f, id);
            }
            out_pb(k, &r.base);
            s->backoff_policy = client_rp; /* rp is ours, not the unpacked message's */
            s->_backoff_policy_case = (PB(Settings__BackoffPolicyCase))client_rp_case;
            finish(k, a.delay_ms);
        }
    }
    apache__rocketmq__v2__telemetry_command__free_unpacked(c, NULL);
}

/* See fake_rmq_int.h. */
void fk_svc_half_close(fcall_t *k)
{
    fk_out_status(k, GRPC_STATUS_OK);
    fk_pump(k);
}

/* See fake_rmq.h. */
void fake_rmq_reset_telemetry(fake_rmq_t *f, int grpc_status)
{
    pthread_mutex_lock(&f->mu);
    for (fcall_t *k = f->calls; k; k = k->next) {
        if (k->rpc == FAKE_TELEMETRY && !k->closed && !k->status_queued) {
            fk_out_status(k, grpc_status);
            fk_pump(k);
        }
    }
    pthread_mutex_unlock(&f->mu);
}

/* See fake_rmq.h. */
void fake_rmq_push(fake_rmq_t *f, fake_cmd_t cmd, const char *arg)
{
    PB(TelemetryCommand) c = PBC(TELEMETRY_COMMAND__INIT);
    PB(PrintThreadStackTraceCommand) ps = PBC(PRINT_THREAD_STACK_TRACE_COMMAND__INIT);
    PB(VerifyMessageCommand) vm = PBC(VERIFY_MESSAGE_COMMAND__INIT);
    PB(Message) m = PBC(MESSAGE__INIT);
    PB(ReconnectEndpointsCommand) rc = PBC(RECONNECT_ENDPOINTS_COMMAND__INIT);
    PB(NotifyUnsubscribeLiteCommand) nu = PBC(NOTIFY_UNSUBSCRIBE_LITE_COMMAND__INIT);
    char *a = (char *)(arg ? arg : "");
    switch (cmd) {
    case FAKE_CMD_PRINT_STACK:
        ps.nonce = a;
        c.command_case = PBC(TELEMETRY_COMMAND__COMMAND_PRINT_THREAD_STACK_TRACE_COMMAND);
        c.print_thread_stack_trace_command = &ps;
        break;
    case FAKE_CMD_VERIFY_MESSAGE:
        vm.nonce = a;
        m.body.data = (uint8_t *)"verify";
        m.body.len = 6;
        vm.message = &m;
        c.command_case = PBC(TELEMETRY_COMMAND__COMMAND_VERIFY_MESSAGE_COMMAND);
        c.verify_message_command = &vm;
        break;
    case FAKE_CMD_RECONNECT:
        rc.nonce = a;
        c.command_case = PBC(TELEMETRY_COMMAND__COMMAND_RECONNECT_ENDPOINTS_COMMAND);
        c.reconnect_endpoints_command = &rc;
        break;
    case FAKE_CMD_UNSUBSCRIBE_LITE:
        nu.lite_topic = a;
        c.command_case = PBC(TELEMETRY_COMMAND__COMMAND_NOTIFY_UNSUBSCRIBE_LITE_COMMAND);
        c.notify_unsubscribe_lite_command = &nu;
        break;
    }
    pthread_mutex_lock(&f->mu);
    for (fcall_t *k = f->calls; k; k = k->next) {
        if (k->rpc == FAKE_TELEMETRY && !k->closed && !k->status_queued) {
            out_pb(k, &c.base);
            fk_pump(k);
        }
    }
    pthread_mutex_unlock(&f->mu);
}

/* ---- dispatch ------------------------------------------------------------------------------ */

/* Count the ack entries or the change a request names, whatever it will be answered. */
static void count_named(fcall_t *k, const uint8_t *p, size_t n)
{
    fake_rmq_t *f = k->f;
    size_t ix;
    int d, c;
    fmsg_t *m;
    if (k->rpc == FAKE_ACK) {
        PB(AckMessageRequest) *q = apache__rocketmq__v2__ack_message_request__unpack(NULL, n, p);
        for (size_t i = 0; q && i < q->n_entries; i++) {
            f->st.ack_entries++;
            if ((m = fk_store_parse_handle(f, q->entries[i]->receipt_handle, &ix, &d, &c))) {
                m->ack_requests++;
            }
        }
        if (q) {
            apache__rocketmq__v2__ack_message_request__free_unpacked(q, NULL);
        }
    } else if (k->rpc == FAKE_SEND) {
        PB(SendMessageRequest) *q = apache__rocketmq__v2__send_message_request__unpack(NULL, n, p);
        for (size_t i = 0; q && i < q->n_messages; i++) {
            fk_store_record_send(f, q->messages[i]->body.data, q->messages[i]->body.len);
        }
        if (q) {
            apache__rocketmq__v2__send_message_request__free_unpacked(q, NULL);
        }
    } else if (k->rpc == FAKE_CHANGE) {
        PB(ChangeInvisibleDurationRequest) *q =
            apache__rocketmq__v2__change_invisible_duration_request__unpack(NULL, n, p);
        if (q && (m = fk_store_parse_handle(f, q->receipt_handle, &ix, &d, &c))) {
            m->change_requests++;
        }
        if (q) {
            apache__rocketmq__v2__change_invisible_duration_request__free_unpacked(q, NULL);
        }
    }
}

/* See fake_rmq_int.h. */
void fk_svc_request(fcall_t *k, const uint8_t *p, size_t n)
{
    fake_rmq_t *f = k->f;
    char id[256];
    fk_header(k, "x-mq-client-id", id, sizeof id);
    if (!id[0]) {
        /* like the proxy: every request needs a client id */
        f->st.missing_client_id++;
        if (k->rpc == FAKE_TELEMETRY) {
            fk_out_status(k, GRPC_STATUS_INVALID_ARGUMENT);
            fk_pump(k);
        } else {
            status_only(k, CODE_CLIENT_ID_REQUIRED, "x-mq-client-id is required", 0);
        }
        return;
    }
    if (k->rpc == FAKE_TELEMETRY) {
        on_telemetry(k, p, n); /* counts and scripts per Settings command */
        return;
    }
    f->st.calls[k->rpc]++;
    if (k->rpc == FAKE_RECEIVE) {
        on_receive(k, p, n);
        return;
    }
    count_named(k, p, n);
    fake_answer_t a = fk_store_next_answer(f, k->rpc);
    if (a.drop) {
        fk_drop0(f);
        return;
    }
    if (a.hang) {
        return; /* the client's deadline ends the call */
    }
    if (a.grpc_status) {
        fk_out_status(k, a.grpc_status);
        finish(k, a.delay_ms);
        return;
    }
    switch (k->rpc) {
    case FAKE_QUERY_ROUTE:
        on_query_route(k, p, n, &a);
        break;
    case FAKE_SEND:
        on_send(k, p, n, &a);
        break;
    case FAKE_ACK:
        on_ack(k, p, n, &a);
        break;
    case FAKE_CHANGE:
        on_change(k, p, n, &a);
        break;
    case FAKE_DLQ:
        on_forward(k, p, n, &a);
        break;
    default: /* Heartbeat, NotifyClientTermination, SyncLiteSubscription */
        if (k->rpc == FAKE_HEARTBEAT && settings_missing(k)) {
            status_only(k, CODE_UNRECOGNIZED_CLIENT_TYPE,
                        "cannot find client settings for this client", a.delay_ms);
            break;
        }
        status_only(k, a.code, a.code ? "fake_rmq: scripted status" : "OK", a.delay_ms);
        break;
    }
}
