/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_decode: the decoding half of the codec (rmq_codec.c encodes). It turns wire bytes of
 * responses, ReceiveMessage stream elements, received messages and Telemetry commands into the
 * plain C structs of rmq_int.h, and frees them again (route, response, command, message).
 * Every unpacked protobuf-c object is freed (`__free_unpacked`) before the function returns;
 * nothing protobuf-c leaves this file. Compressed message bodies (body_encoding GZIP, or gzip
 * magic bytes) are inflated with zlib.
 *
 * It owns the decoders and the deinit/destroy of what they return; with rmq_codec.c it is the
 * only file that sees protobuf-c. It must not encode requests, keep state between calls, or
 * judge a Status (rmq_status.c maps codes to errors).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "connectors/rocketmq/rmq_int.h"
#include "base/rsql_mem.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x

typedef Google__Protobuf__Duration pb_duration_t;
typedef Google__Protobuf__Timestamp pb_timestamp_t;

static rsql_err_t nomem(rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
}

static rsql_err_t undecodable(const char *what, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                          "RocketMQ: cannot decode %s from the server", what);
}

static int64_t duration_ms(const pb_duration_t *d)
{
    return d ? d->seconds * 1000 + d->nanos / 1000000 : 0;
}

static int64_t ts_ms(const pb_timestamp_t *t)
{
    return t ? t->seconds * 1000 + t->nanos / 1000000 : 0;
}

/* ---- decoders ------------------------------------------------------------------------------ */

static char *dup_str(const char *s, bool *oom)
{
    if (!s) {
        return NULL;
    }
    char *d = rsql_strdup(s);
    if (!d) {
        *oom = true;
    }
    return d;
}

/* See rmq_int.h. */
void rsql_rmq__route_deinit(rmq_route_t *r)
{
    if (!r) {
        return;
    }
    for (size_t i = 0; i < r->n_queues; i++) {
        rmq_queue_t *q = &r->queues[i];
        rsql_free(q->topic);
        rsql_free(q->broker_name);
        for (size_t k = 0; k < q->n_addrs; k++) {
            rsql_free(q->addrs[k].host);
        }
        rsql_free(q->addrs);
        rsql_free(q->accept_types);
    }
    rsql_free(r->queues);
    r->queues = NULL;
    r->n_queues = 0;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__dec_query_route(const uint8_t *p, size_t n, int32_t *code, char **message,
                                     rmq_route_t *route, rsql_error_t *err)
{
    PB(QueryRouteResponse) *r = apache__rocketmq__v2__query_route_response__unpack(NULL, n, p);
    memset(route, 0, sizeof(*route));
    *message = NULL;
    if (!r) {
        return undecodable("QueryRouteResponse", err);
    }
    bool oom = false;
    *code = r->status ? (int32_t)r->status->code : 0;
    *message = dup_str(r->status ? r->status->message : "", &oom);
    if (r->n_message_queues) {
        route->queues = rsql_calloc(r->n_message_queues, sizeof(rmq_queue_t));
        oom = oom || !route->queues;
    }
    for (size_t i = 0; !oom && i < r->n_message_queues; i++) {
        const PB(MessageQueue) *mq = r->message_queues[i];
        rmq_queue_t *q = &route->queues[i];
        route->n_queues++;
        q->topic = dup_str(mq->topic ? mq->topic->name : "", &oom);
        q->id = mq->id;
        q->permission = (int32_t)mq->permission;
        if (mq->broker) {
            q->broker_name = dup_str(mq->broker->name, &oom);
            q->broker_id = mq->broker->id;
            const PB(Endpoints) *ep = mq->broker->endpoints;
            if (ep && ep->n_addresses) {
                q->scheme = (int32_t)ep->scheme;
                q->addrs = rsql_calloc(ep->n_addresses, sizeof(rmq_addr_t));
                if (!q->addrs) {
                    oom = true;
                    break;
                }
                for (size_t k = 0; k < ep->n_addresses; k++) {
                    q->n_addrs++;
                    q->addrs[k].host = dup_str(ep->addresses[k]->host, &oom);
                    q->addrs[k].port = ep->addresses[k]->port;
                }
            }
        }
        if (mq->n_accept_message_types) {
            q->accept_types = rsql_calloc(mq->n_accept_message_types, sizeof(int32_t));
            if (!q->accept_types) {
                oom = true;
                break;
            }
            for (size_t k = 0; k < mq->n_accept_message_types; k++) {
                q->accept_types[k] = (int32_t)mq->accept_message_types[k];
            }
            q->n_accept_types = mq->n_accept_message_types;
        }
    }
    apache__rocketmq__v2__query_route_response__free_unpacked(r, NULL);
    if (oom) {
        rsql_rmq__route_deinit(route);
        rsql_free(*message);
        *message = NULL;
        return nomem(err);
    }
    return RSQL_OK;
}

/* See rmq_int.h. */
void rsql_rmq__resp_deinit(rmq_resp_t *r)
{
    if (!r) {
        return;
    }
    rsql_free(r->message);
    for (size_t i = 0; i < r->n_send; i++) {
        rsql_free(r->send[i].status_message);
        rsql_free(r->send[i].message_id);
    }
    rsql_free(r->send);
    for (size_t i = 0; i < r->n_ack; i++) {
        rsql_free(r->ack[i].status_message);
        rsql_free(r->ack[i].message_id);
        rsql_free(r->ack[i].receipt_handle);
    }
    rsql_free(r->ack);
    rsql_free(r->receipt_handle);
    memset(r, 0, sizeof(*r));
}

static void take_status(const PB(Status) *st, rmq_resp_t *out, bool *oom)
{
    out->code = st ? (int32_t)st->code : 0;
    out->message = dup_str(st ? st->message : "no status in the response", oom);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__dec_resp(int rpc, const uint8_t *p, size_t n, rmq_resp_t *out,
                              rsql_error_t *err)
{
    bool oom = false;
    memset(out, 0, sizeof(*out));
    if (rpc == RMQ_RPC_SEND_MESSAGE) {
        PB(SendMessageResponse) *r = apache__rocketmq__v2__send_message_response__unpack(NULL, n, p);
        if (!r) {
            return undecodable("SendMessageResponse", err);
        }
        take_status(r->status, out, &oom);
        if (r->n_entries && (out->send = rsql_calloc(r->n_entries, sizeof(*out->send)))) {
            for (size_t i = 0; i < r->n_entries; i++) {
                const PB(SendResultEntry) *e = r->entries[i];
                out->n_send++;
                out->send[i].code = e->status ? (int32_t)e->status->code : out->code;
                out->send[i].status_message =
                    dup_str(e->status ? e->status->message : out->message, &oom);
                out->send[i].message_id = dup_str(e->message_id, &oom);
                out->send[i].offset = e->offset;
            }
        } else if (r->n_entries) {
            oom = true;
        }
        apache__rocketmq__v2__send_message_response__free_unpacked(r, NULL);
    } else if (rpc == RMQ_RPC_ACK_MESSAGE) {
        PB(AckMessageResponse) *r = apache__rocketmq__v2__ack_message_response__unpack(NULL, n, p);
        if (!r) {
            return undecodable("AckMessageResponse", err);
        }
        take_status(r->status, out, &oom);
        if (r->n_entries && (out->ack = rsql_calloc(r->n_entries, sizeof(*out->ack)))) {
            for (size_t i = 0; i < r->n_entries; i++) {
                const PB(AckMessageResultEntry) *e = r->entries[i];
                out->n_ack++;
                out->ack[i].code = e->status ? (int32_t)e->status->code : out->code;
                out->ack[i].status_message =
                    dup_str(e->status ? e->status->message : out->message, &oom);
                out->ack[i].message_id = dup_str(e->message_id, &oom);
                out->ack[i].receipt_handle = dup_str(e->receipt_handle, &oom);
            }
        } else if (r->n_entries) {
            oom = true;
        }
        apache__rocketmq__v2__ack_message_response__free_unpacked(r, NULL);
    } else if (rpc == RMQ_RPC_CHANGE_INVISIBLE) {
        PB(ChangeInvisibleDurationResponse) *r =
            apache__rocketmq__v2__change_invisible_duration_response__unpack(NULL, n, p);
        if (!r) {
            return undecodable("ChangeInvisibleDurationResponse", err);
        }
        take_status(r->status, out, &oom);
        out->receipt_handle = dup_str(r->receipt_handle, &oom);
        apache__rocketmq__v2__change_invisible_duration_response__free_unpacked(r, NULL);
    } else {
        /* Heartbeat, NotifyClientTermination, ForwardToDLQ, SyncLite: { 1 status }. */
        PB(HeartbeatResponse) *r = apache__rocketmq__v2__heartbeat_response__unpack(NULL, n, p);
        if (!r) {
            return undecodable("response", err);
        }
        take_status(r->status, out, &oom);
        apache__rocketmq__v2__heartbeat_response__free_unpacked(r, NULL);
    }
    if (oom) {
        rsql_rmq__resp_deinit(out);
        return nomem(err);
    }
    return RSQL_OK;
}

/* See rmq_client.h. */
void rsql_rmq_msg_destroy(rsql_rmq_msg_t *m)
{
    if (!m) {
        return;
    }
    rsql_free(m->topic);
    rsql_free(m->message_id);
    rsql_free(m->receipt_handle);
    rsql_free(m->lite_topic);
    rsql_free(m->message_group);
    rsql_free(m->tag);
    for (size_t i = 0; i < m->n_keys; i++) {
        rsql_free(m->keys[i]);
    }
    rsql_free(m->keys);
    rsql_free(m->body);
    for (size_t i = 0; i < m->n_props; i++) {
        rsql_free(m->props[i].key);
        rsql_free(m->props[i].value);
    }
    rsql_free(m->props);
    rsql_free(m->endpoint);
    rsql_free(m);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__inflate(const uint8_t *p, size_t n, uint8_t **out, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 32) != Z_OK) {
        return RSQL_ERR_NOMEM;
    }
    size_t cap = n * 4 + 64, len = 0;
    uint8_t *buf = rsql_malloc(cap + 1);
    int zrc = Z_OK;
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    while (buf) {
        zs.next_out = buf + len;
        zs.avail_out = (uInt)(cap - len);
        zrc = inflate(&zs, Z_NO_FLUSH);
        len = cap - zs.avail_out;
        if (zrc == Z_STREAM_END) {
            break;
        }
        if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
            break;
        }
        if (zs.avail_out > 0 && zs.avail_in == 0) {
            zrc = Z_DATA_ERROR; /* truncated input */
            break;
        }
        uint8_t *nb = rsql_realloc(buf, cap * 2 + 1);
        if (!nb) {
            rsql_free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    inflateEnd(&zs);
    if (!buf) {
        return RSQL_ERR_NOMEM;
    }
    if (zrc != Z_STREAM_END) {
        rsql_free(buf);
        return RSQL_ERR_DECODE;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return RSQL_OK;
}

static rsql_rmq_msg_t *msg_from_pb(const PB(Message) *pm, const char *endpoint, rsql_error_t *err)
{
    rsql_rmq_msg_t *m = rsql_calloc(1, sizeof(*m));
    if (!m) {
        nomem(err);
        return NULL;
    }
    bool oom = false;
    const PB(SystemProperties) *sp = pm->system_properties;
    m->topic = dup_str(pm->topic ? pm->topic->name : "", &oom);
    m->endpoint = dup_str(endpoint ? endpoint : "", &oom);
    if (sp) {
        m->message_id = dup_str(sp->message_id, &oom);
        if (sp->_receipt_handle_case == PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE)) {
            m->receipt_handle = dup_str(sp->receipt_handle, &oom);
        }
        if (sp->_lite_topic_case == PBC(SYSTEM_PROPERTIES___LITE_TOPIC_LITE_TOPIC) &&
            sp->lite_topic && *sp->lite_topic) {
            m->lite_topic = dup_str(sp->lite_topic, &oom);
        }
        if (sp->_message_group_case == PBC(SYSTEM_PROPERTIES___MESSAGE_GROUP_MESSAGE_GROUP) &&
            sp->message_group && *sp->message_group) {
            m->message_group = dup_str(sp->message_group, &oom);
        }
        if (sp->_tag_case == PBC(SYSTEM_PROPERTIES___TAG_TAG) && sp->tag && *sp->tag) {
            m->tag = dup_str(sp->tag, &oom);
        }
        if (sp->_delivery_attempt_case == PBC(SYSTEM_PROPERTIES___DELIVERY_ATTEMPT_DELIVERY_ATTEMPT)) {
            m->delivery_attempt = sp->delivery_attempt;
        }
        m->born_ms = ts_ms(sp->born_timestamp);
        if (sp->_store_timestamp_case == PBC(SYSTEM_PROPERTIES___STORE_TIMESTAMP_STORE_TIMESTAMP)) {
            m->store_ms = ts_ms(sp->store_timestamp);
        }
        m->queue_id = sp->queue_id;
        if (sp->_queue_offset_case == PBC(SYSTEM_PROPERTIES___QUEUE_OFFSET_QUEUE_OFFSET)) {
            m->queue_offset = sp->queue_offset;
        }
        if (sp->n_keys && (m->keys = rsql_calloc(sp->n_keys, sizeof(char *)))) {
            for (size_t i = 0; i < sp->n_keys; i++) {
                m->keys[m->n_keys++] = dup_str(sp->keys[i], &oom);
            }
        } else if (sp->n_keys) {
            oom = true;
        }
    }
    if (pm->n_user_properties &&
        (m->props = rsql_calloc(pm->n_user_properties, sizeof(rsql_rmq_prop_t)))) {
        for (size_t i = 0; i < pm->n_user_properties; i++) {
            m->props[i].key = dup_str(pm->user_properties[i]->key, &oom);
            m->props[i].value = dup_str(pm->user_properties[i]->value, &oom);
            m->n_props++;
        }
    } else if (pm->n_user_properties) {
        oom = true;
    }
    const uint8_t *b = pm->body.data;
    size_t bl = pm->body.len;
    bool gz = sp && sp->body_encoding == PBC(ENCODING__GZIP);
    bool magic = bl >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 0x08;
    if (!oom && (gz || magic)) {
        rsql_err_t rc = rsql_rmq__inflate(b, bl, &m->body, &m->body_len);
        if (rc == RSQL_ERR_NOMEM) {
            oom = true;
        } else if (rc != RSQL_OK) {
            m->body_inflate_failed = gz;
        }
    }
    if (!oom && !m->body) {
        m->body = rsql_malloc(bl + 1);
        if (m->body) {
            if (bl) {
                memcpy(m->body, b, bl);
            }
            m->body[bl] = '\0';
            m->body_len = bl;
        } else {
            oom = true;
        }
    }
    if (oom) {
        rsql_rmq_msg_destroy(m);
        nomem(err);
        return NULL;
    }
    return m;
}

/* See rmq_int.h. */
rsql_rmq_msg_t *rsql_rmq__dec_message(const uint8_t *p, size_t n, const char *endpoint,
                                      rsql_error_t *err)
{
    PB(Message) *pm = apache__rocketmq__v2__message__unpack(NULL, n, p);
    if (!pm) {
        undecodable("Message", err);
        return NULL;
    }
    rsql_rmq_msg_t *m = msg_from_pb(pm, endpoint, err);
    apache__rocketmq__v2__message__free_unpacked(pm, NULL);
    return m;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__dec_receive(const uint8_t *p, size_t n, const char *endpoint,
                                 rmq_recv_elem_t *out, rsql_error_t *err)
{
    memset(out, 0, sizeof(*out));
    PB(ReceiveMessageResponse) *r =
        apache__rocketmq__v2__receive_message_response__unpack(NULL, n, p);
    if (!r) {
        return undecodable("ReceiveMessageResponse", err);
    }
    rsql_err_t rc = RSQL_OK;
    bool oom = false;
    switch (r->content_case) {
    case PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_STATUS):
        out->kind = RMQ_RECV_STATUS;
        out->code = r->status ? (int32_t)r->status->code : 0;
        out->message = dup_str(r->status ? r->status->message : "", &oom);
        if (oom) {
            rc = nomem(err);
        }
        break;
    case PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_MESSAGE):
        out->kind = RMQ_RECV_MESSAGE;
        out->msg = msg_from_pb(r->message, endpoint, err);
        if (!out->msg) {
            rc = RSQL_ERR_NOMEM;
        }
        break;
    default:
        out->kind = RMQ_RECV_DELIVERY_TS;
        break;
    }
    apache__rocketmq__v2__receive_message_response__free_unpacked(r, NULL);
    return rc;
}

/* See rmq_int.h. */
void rsql_rmq__tcmd_deinit(rmq_tcmd_t *t)
{
    if (!t) {
        return;
    }
    rsql_free(t->status_message);
    rsql_free(t->nonce);
    rsql_free(t->lite_topic);
    memset(t, 0, sizeof(*t));
}

static void settings_from_pb(const PB(Settings) *s, rsql_rmq_server_settings_t *o)
{
    o->received = true;
    if (s->_backoff_policy_case == PBC(SETTINGS___BACKOFF_POLICY_BACKOFF_POLICY) &&
        s->backoff_policy) {
        o->max_attempts = s->backoff_policy->max_attempts;
    }
    if (s->pub_sub_case == PBC(SETTINGS__PUB_SUB_PUBLISHING) && s->publishing) {
        o->max_body_size = s->publishing->max_body_size;
        o->validate_message_type = s->publishing->validate_message_type;
    } else if (s->pub_sub_case == PBC(SETTINGS__PUB_SUB_SUBSCRIPTION) && s->subscription) {
        const PB(Subscription) *sub = s->subscription;
        if (sub->_fifo_case == PBC(SUBSCRIPTION___FIFO_FIFO)) {
            o->fifo = sub->fifo;
        }
        if (sub->_receive_batch_size_case == PBC(SUBSCRIPTION___RECEIVE_BATCH_SIZE_RECEIVE_BATCH_SIZE)) {
            o->receive_batch_size = sub->receive_batch_size;
        }
        if (sub->_long_polling_timeout_case ==
            PBC(SUBSCRIPTION___LONG_POLLING_TIMEOUT_LONG_POLLING_TIMEOUT)) {
            o->long_polling_timeout_ms = duration_ms(sub->long_polling_timeout);
        }
        if (sub->_lite_subscription_quota_case ==
            PBC(SUBSCRIPTION___LITE_SUBSCRIPTION_QUOTA_LITE_SUBSCRIPTION_QUOTA)) {
            o->lite_subscription_quota = sub->lite_subscription_quota;
        }
        if (sub->_max_lite_topic_size_case ==
            PBC(SUBSCRIPTION___MAX_LITE_TOPIC_SIZE_MAX_LITE_TOPIC_SIZE)) {
            o->max_lite_topic_size = sub->max_lite_topic_size;
        }
    }
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__dec_telemetry(const uint8_t *p, size_t n, rmq_tcmd_t *out,
                                   rsql_error_t *err)
{
    memset(out, 0, sizeof(*out));
    PB(TelemetryCommand) *c = apache__rocketmq__v2__telemetry_command__unpack(NULL, n, p);
    if (!c) {
        return undecodable("TelemetryCommand", err);
    }
    bool oom = false;
    if (c->_status_case == PBC(TELEMETRY_COMMAND___STATUS_STATUS) && c->status) {
        out->has_status = true;
        out->status_code = (int32_t)c->status->code;
        out->status_message = dup_str(c->status->message, &oom);
    }
    switch (c->command_case) {
    case PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS):
        out->kind = RMQ_TCMD_SETTINGS;
        settings_from_pb(c->settings, &out->settings);
        break;
    case PBC(TELEMETRY_COMMAND__COMMAND_PRINT_THREAD_STACK_TRACE_COMMAND):
        out->kind = RMQ_TCMD_PRINT_STACK;
        out->nonce = dup_str(c->print_thread_stack_trace_command->nonce, &oom);
        break;
    case PBC(TELEMETRY_COMMAND__COMMAND_VERIFY_MESSAGE_COMMAND):
        out->kind = RMQ_TCMD_VERIFY_MESSAGE;
        out->nonce = dup_str(c->verify_message_command->nonce, &oom);
        break;
    case PBC(TELEMETRY_COMMAND__COMMAND_RECOVER_ORPHANED_TRANSACTION_COMMAND):
        out->kind = RMQ_TCMD_RECOVER_TXN;
        break;
    case PBC(TELEMETRY_COMMAND__COMMAND_RECONNECT_ENDPOINTS_COMMAND):
        out->kind = RMQ_TCMD_RECONNECT;
        out->nonce = dup_str(c->reconnect_endpoints_command->nonce, &oom);
        break;
    case PBC(TELEMETRY_COMMAND__COMMAND_NOTIFY_UNSUBSCRIBE_LITE_COMMAND):
        out->kind = RMQ_TCMD_UNSUBSCRIBE_LITE;
        out->lite_topic = dup_str(c->notify_unsubscribe_lite_command->lite_topic, &oom);
        break;
    default:
        out->kind = RMQ_TCMD_NONE;
        break;
    }
    apache__rocketmq__v2__telemetry_command__free_unpacked(c, NULL);
    if (oom) {
        rsql_rmq__tcmd_deinit(out);
        return nomem(err);
    }
    return RSQL_OK;
}
