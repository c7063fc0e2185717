/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_codec: the encoding half of the codec (rmq_decode.c decodes). It turns the plain C
 * request structs of rmq_int.h into apache.rocketmq.v2 wire bytes: the requests of every RPC,
 * the client Settings and the replies on Telemetry. Nothing protobuf-c leaves this file.
 *
 * It owns the encoders; with rmq_decode.c it is the only file that sees protobuf-c. It must not
 * decode responses, keep state between calls, or choose protocol numbers of its own (they are
 * the protobuf-c names or the one table of rmq_client.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "rmqclient/rmq_int.h"
#include "base/rsql_mem.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x

typedef Google__Protobuf__Duration pb_duration_t;
typedef Google__Protobuf__Timestamp pb_timestamp_t;

static char *S(const char *s)
{
    return (char *)(s ? s : "");
}

static rsql_err_t pack(const ProtobufCMessage *m, rmq_bytes_t *out, rsql_error_t *err)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    out->data = rsql_malloc(n ? n : 1);
    if (!out->data) {
        out->len = 0;
        return rsql_error_nomem(err);
    }
    out->len = protobuf_c_message_pack(m, out->data);
    return RSQL_OK;
}

static void set_duration(pb_duration_t *d, int64_t ms)
{
    google__protobuf__duration__init(d);
    d->seconds = ms / 1000;
    d->nanos = (int32_t)((ms % 1000) * 1000000);
}

static void resource(PB(Resource) *r, const char *ns, const char *name)
{
    apache__rocketmq__v2__resource__init(r);
    r->resource_namespace = S(ns);
    r->name = S(name);
}

/* An Endpoints message over caller arrays (n <= 8 addresses). */
typedef struct endpoints_hold {
    PB(Endpoints) ep;
    PB(Address) addr[8];
    PB(Address) *paddr[8];
} endpoints_hold_t;

static void endpoints(endpoints_hold_t *h, int32_t scheme, const rmq_addr_t *a, size_t n)
{
    apache__rocketmq__v2__endpoints__init(&h->ep);
    if (n > 8) {
        n = 8;
    }
    for (size_t i = 0; i < n; i++) {
        apache__rocketmq__v2__address__init(&h->addr[i]);
        h->addr[i].host = S(a[i].host);
        h->addr[i].port = a[i].port;
        h->paddr[i] = &h->addr[i];
    }
    h->ep.scheme = scheme ? (PB(AddressScheme))scheme : PBC(ADDRESS_SCHEME__IPv4);
    if (scheme == 0 && n > 0) {
        /* A host name rather than a dotted IPv4 address. */
        const char *p = a[0].host ? a[0].host : "";
        for (; *p; p++) {
            if ((*p < '0' || *p > '9') && *p != '.') {
                h->ep.scheme = PBC(ADDRESS_SCHEME__DOMAIN_NAME);
                break;
            }
        }
    }
    h->ep.n_addresses = n;
    h->ep.addresses = h->paddr;
}

/* ---- encoders ------------------------------------------------------------------------------ */

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_query_route(const char *ns, const char *topic, const rmq_addr_t *ap,
                                     size_t n_ap, rmq_bytes_t *out, rsql_error_t *err)
{
    PB(QueryRouteRequest) req = PBC(QUERY_ROUTE_REQUEST__INIT);
    PB(Resource) t;
    endpoints_hold_t eh;
    resource(&t, ns, topic);
    endpoints(&eh, 0, ap, n_ap);
    req.topic = &t;
    req.endpoints = &eh.ep;
    return pack(&req.base, out, err);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_heartbeat(const char *ns, const char *group, int32_t client_type,
                                   rmq_bytes_t *out, rsql_error_t *err)
{
    PB(HeartbeatRequest) req = PBC(HEARTBEAT_REQUEST__INIT);
    PB(Resource) g;
    if (group && *group) {
        resource(&g, ns, group);
        req._group_case = PBC(HEARTBEAT_REQUEST___GROUP_GROUP);
        req.group = &g;
    }
    req.client_type = (PB(ClientType))client_type;
    return pack(&req.base, out, err);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_notify_termination(const char *ns, const char *group, rmq_bytes_t *out,
                                            rsql_error_t *err)
{
    PB(NotifyClientTerminationRequest) req = PBC(NOTIFY_CLIENT_TERMINATION_REQUEST__INIT);
    PB(Resource) g;
    if (group && *group) {
        resource(&g, ns, group);
        req._group_case = PBC(NOTIFY_CLIENT_TERMINATION_REQUEST___GROUP_GROUP);
        req.group = &g;
    }
    return pack(&req.base, out, err);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_settings(const rmq_settings_out_t *s, rmq_bytes_t *out,
                                  rsql_error_t *err)
{
    PB(TelemetryCommand) cmd = PBC(TELEMETRY_COMMAND__INIT);
    PB(Settings) st = PBC(SETTINGS__INIT);
    endpoints_hold_t eh;
    pb_duration_t rt, lp;
    PB(UA) ua = PBC(UA__INIT);
    PB(Publishing) pub = PBC(PUBLISHING__INIT);
    PB(Subscription) sub = PBC(SUBSCRIPTION__INIT);
    PB(Resource) group;
    size_t nt = s->n_topics;
    PB(Resource) *res = rsql_calloc(nt ? nt : 1, sizeof(*res));
    PB(Resource) **pres = rsql_calloc(nt ? nt : 1, sizeof(*pres));
    PB(SubscriptionEntry) *se = rsql_calloc(nt ? nt : 1, sizeof(*se));
    PB(SubscriptionEntry) **pse = rsql_calloc(nt ? nt : 1, sizeof(*pse));
    PB(FilterExpression) fe = PBC(FILTER_EXPRESSION__INIT);
    rsql_err_t rc;
    if (!res || !pres || !se || !pse) {
        rc = rsql_error_nomem(err);
        goto out;
    }
    st._client_type_case = PBC(SETTINGS___CLIENT_TYPE_CLIENT_TYPE);
    st.client_type = (PB(ClientType))s->client_type;
    endpoints(&eh, 0, s->access_point, s->n_access_point);
    st._access_point_case = PBC(SETTINGS___ACCESS_POINT_ACCESS_POINT);
    st.access_point = &eh.ep;
    set_duration(&rt, s->request_timeout_ms);
    st._request_timeout_case = PBC(SETTINGS___REQUEST_TIMEOUT_REQUEST_TIMEOUT);
    st.request_timeout = &rt;
    ua.language = PBC(LANGUAGE__CPP);
    ua.version = S(s->version);
    ua.platform = (char *)"linux";
    ua.hostname = S(s->hostname);
    st.user_agent = &ua;
    for (size_t i = 0; i < nt; i++) {
        resource(&res[i], s->name_space, s->topics[i]);
        pres[i] = &res[i];
    }
    if (s->client_type == RSQL_RMQ_PRODUCER) {
        pub.n_topics = nt;
        pub.topics = pres;
        st.pub_sub_case = PBC(SETTINGS__PUB_SUB_PUBLISHING);
        st.publishing = &pub;
    } else {
        fe.type = (PB(FilterType))(s->filter_type ? s->filter_type : RSQL_RMQ_FILTER_TAG);
        fe.expression = S(s->filter_expression && *s->filter_expression ? s->filter_expression
                                                                         : "*");
        for (size_t i = 0; i < nt; i++) {
            apache__rocketmq__v2__subscription_entry__init(&se[i]);
            se[i].topic = &res[i];
            se[i].expression = &fe;
            pse[i] = &se[i];
        }
        resource(&group, s->name_space, s->group);
        sub._group_case = PBC(SUBSCRIPTION___GROUP_GROUP);
        sub.group = &group;
        sub.n_subscriptions = nt;
        sub.subscriptions = pse;
        if (s->long_polling_timeout_ms > 0) {
            set_duration(&lp, s->long_polling_timeout_ms);
            sub._long_polling_timeout_case = PBC(SUBSCRIPTION___LONG_POLLING_TIMEOUT_LONG_POLLING_TIMEOUT);
            sub.long_polling_timeout = &lp;
        }
        st.pub_sub_case = PBC(SETTINGS__PUB_SUB_SUBSCRIPTION);
        st.subscription = &sub;
    }
    cmd.command_case = PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS);
    cmd.settings = &st;
    rc = pack(&cmd.base, out, err);
out:
    rsql_free(res);
    rsql_free(pres);
    rsql_free(se);
    rsql_free(pse);
    return rc;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_telemetry_reply(bool verify, const char *nonce, int32_t code,
                                         const char *message, rmq_bytes_t *out,
                                         rsql_error_t *err)
{
    PB(TelemetryCommand) cmd = PBC(TELEMETRY_COMMAND__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    PB(ThreadStackTrace) tst = PBC(THREAD_STACK_TRACE__INIT);
    PB(VerifyMessageResult) vr = PBC(VERIFY_MESSAGE_RESULT__INIT);
    st.code = (PB(Code))code;
    st.message = S(message);
    cmd._status_case = PBC(TELEMETRY_COMMAND___STATUS_STATUS);
    cmd.status = &st;
    if (verify) {
        vr.nonce = S(nonce);
        cmd.command_case = PBC(TELEMETRY_COMMAND__COMMAND_VERIFY_MESSAGE_RESULT);
        cmd.verify_message_result = &vr;
    } else {
        tst.nonce = S(nonce);
        tst._thread_stack_trace_case = PBC(THREAD_STACK_TRACE___THREAD_STACK_TRACE_THREAD_STACK_TRACE);
        tst.thread_stack_trace = (char *)"rocketsql: thread stack traces are not available";
        cmd.command_case = PBC(TELEMETRY_COMMAND__COMMAND_THREAD_STACK_TRACE);
        cmd.thread_stack_trace = &tst;
    }
    return pack(&cmd.base, out, err);
}

/* The protobuf-c structs of one outgoing message. */
typedef struct out_hold {
    PB(Message) m;
    PB(SystemProperties) sp;
    PB(Resource) topic;
    pb_timestamp_t born, delivery;
    PB(Message__UserPropertiesEntry) *pe;
    PB(Message__UserPropertiesEntry) **ppe;
} out_hold_t;

/* The message type the official clients would derive. */
static int32_t msg_type(const rsql_rmq_out_msg_t *m)
{
    if (m->type != RSQL_RMQ_MSG_AUTO) {
        return (int32_t)m->type;
    }
    if (m->message_group && *m->message_group) {
        return RSQL_RMQ_MSG_FIFO;
    }
    if (m->lite_topic && *m->lite_topic) {
        return RSQL_RMQ_MSG_LITE;
    }
    if (m->delivery_ms > 0) {
        return RSQL_RMQ_MSG_DELAY;
    }
    return RSQL_RMQ_MSG_NORMAL;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_send(const char *ns, const rsql_rmq_out_msg_t *msgs, size_t n,
                              const char *const *ids, int64_t born_ms, const char *born_host,
                              rmq_bytes_t *out, rsql_error_t *err)
{
    PB(SendMessageRequest) req = PBC(SEND_MESSAGE_REQUEST__INIT);
    out_hold_t *h = rsql_calloc(n ? n : 1, sizeof(*h));
    PB(Message) **pm = rsql_calloc(n ? n : 1, sizeof(*pm));
    rsql_err_t rc = RSQL_OK;
    if (!h || !pm) {
        rc = rsql_error_nomem(err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const rsql_rmq_out_msg_t *m = &msgs[i];
        out_hold_t *x = &h[i];
        apache__rocketmq__v2__message__init(&x->m);
        apache__rocketmq__v2__system_properties__init(&x->sp);
        google__protobuf__timestamp__init(&x->born);
        resource(&x->topic, ns, m->topic);
        x->m.topic = &x->topic;
        x->m.body.data = (uint8_t *)m->body;
        x->m.body.len = m->body_len;
        x->m.system_properties = &x->sp;
        if (m->n_props) {
            x->pe = rsql_calloc(m->n_props, sizeof(*x->pe));
            x->ppe = rsql_calloc(m->n_props, sizeof(*x->ppe));
            if (!x->pe || !x->ppe) {
                rc = rsql_error_nomem(err);
                goto out;
            }
            for (size_t k = 0; k < m->n_props; k++) {
                apache__rocketmq__v2__message__user_properties_entry__init(&x->pe[k]);
                x->pe[k].key = S(m->props[k].key);
                x->pe[k].value = S(m->props[k].value);
                x->ppe[k] = &x->pe[k];
            }
            x->m.n_user_properties = m->n_props;
            x->m.user_properties = x->ppe;
        }
        if (m->tag && *m->tag) {
            x->sp._tag_case = PBC(SYSTEM_PROPERTIES___TAG_TAG);
            x->sp.tag = (char *)m->tag;
        }
        x->sp.n_keys = m->n_keys;
        x->sp.keys = (char **)m->keys;
        x->sp.message_id = S(ids[i]);
        x->sp.body_encoding = PBC(ENCODING__IDENTITY);
        x->sp.message_type = (PB(MessageType))msg_type(m);
        x->born.seconds = born_ms / 1000;
        x->born.nanos = (int32_t)(born_ms % 1000) * 1000000;
        x->sp.born_timestamp = &x->born;
        x->sp.born_host = S(born_host);
        if (m->message_group && *m->message_group) {
            x->sp._message_group_case = PBC(SYSTEM_PROPERTIES___MESSAGE_GROUP_MESSAGE_GROUP);
            x->sp.message_group = (char *)m->message_group;
        }
        if (m->lite_topic && *m->lite_topic) {
            x->sp._lite_topic_case = PBC(SYSTEM_PROPERTIES___LITE_TOPIC_LITE_TOPIC);
            x->sp.lite_topic = (char *)m->lite_topic;
        }
        if (m->delivery_ms > 0) { /* a timer message (the official clients' setDeliveryTimestamp) */
            google__protobuf__timestamp__init(&x->delivery);
            x->delivery.seconds = m->delivery_ms / 1000;
            x->delivery.nanos = (int32_t)(m->delivery_ms % 1000) * 1000000;
            x->sp._delivery_timestamp_case =
                PBC(SYSTEM_PROPERTIES___DELIVERY_TIMESTAMP_DELIVERY_TIMESTAMP);
            x->sp.delivery_timestamp = &x->delivery;
        }
        pm[i] = &x->m;
    }
    req.n_messages = n;
    req.messages = pm;
    rc = pack(&req.base, out, err);
out:
    if (h) {
        for (size_t i = 0; i < n; i++) {
            rsql_free(h[i].pe);
            rsql_free(h[i].ppe);
        }
    }
    rsql_free(h);
    rsql_free(pm);
    return rc;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_receive(const char *ns, const char *group, const rmq_queue_t *q,
                                 int32_t filter_type, const char *filter_expression,
                                 int32_t batch_size, int64_t invisible_ms,
                                 int64_t long_polling_ms, rmq_bytes_t *out, rsql_error_t *err)
{
    PB(ReceiveMessageRequest) req = PBC(RECEIVE_MESSAGE_REQUEST__INIT);
    PB(Resource) g, t;
    PB(MessageQueue) mq = PBC(MESSAGE_QUEUE__INIT);
    PB(Broker) br = PBC(BROKER__INIT);
    endpoints_hold_t eh;
    PB(FilterExpression) fe = PBC(FILTER_EXPRESSION__INIT);
    pb_duration_t inv, lp;
    resource(&g, ns, group);
    resource(&t, ns, q->topic);
    endpoints(&eh, q->scheme, q->addrs, q->n_addrs);
    br.name = S(q->broker_name);
    br.id = q->broker_id;
    br.endpoints = &eh.ep;
    mq.topic = &t;
    mq.id = q->id;
    mq.permission = (PB(Permission))q->permission;
    mq.broker = &br;
    mq.n_accept_message_types = q->n_accept_types;
    mq.accept_message_types = (PB(MessageType) *)q->accept_types;
    fe.type = (PB(FilterType))(filter_type ? filter_type : RSQL_RMQ_FILTER_TAG);
    fe.expression = S(filter_expression && *filter_expression ? filter_expression : "*");
    req.group = &g;
    req.message_queue = &mq;
    req.filter_expression = &fe;
    req.batch_size = batch_size;
    set_duration(&inv, invisible_ms);
    req._invisible_duration_case = PBC(RECEIVE_MESSAGE_REQUEST___INVISIBLE_DURATION_INVISIBLE_DURATION);
    req.invisible_duration = &inv;
    req.auto_renew = 0;
    set_duration(&lp, long_polling_ms);
    req._long_polling_timeout_case = PBC(RECEIVE_MESSAGE_REQUEST___LONG_POLLING_TIMEOUT_LONG_POLLING_TIMEOUT);
    req.long_polling_timeout = &lp;
    return pack(&req.base, out, err);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_ack(const char *ns, const char *group, const char *topic,
                             const rsql_rmq_ack_entry_t *entries, size_t n, rmq_bytes_t *out,
                             rsql_error_t *err)
{
    PB(AckMessageRequest) req = PBC(ACK_MESSAGE_REQUEST__INIT);
    PB(Resource) g, t;
    PB(AckMessageEntry) *e = rsql_calloc(n ? n : 1, sizeof(*e));
    PB(AckMessageEntry) **pe = rsql_calloc(n ? n : 1, sizeof(*pe));
    rsql_err_t rc;
    if (!e || !pe) {
        rc = rsql_error_nomem(err);
        goto out;
    }
    resource(&g, ns, group);
    resource(&t, ns, topic);
    for (size_t i = 0; i < n; i++) {
        apache__rocketmq__v2__ack_message_entry__init(&e[i]);
        e[i].message_id = S(entries[i].message_id);
        e[i].receipt_handle = S(entries[i].receipt_handle);
        if (entries[i].lite_topic && *entries[i].lite_topic) {
            e[i]._lite_topic_case = PBC(ACK_MESSAGE_ENTRY___LITE_TOPIC_LITE_TOPIC);
            e[i].lite_topic = (char *)entries[i].lite_topic;
        }
        pe[i] = &e[i];
    }
    req.group = &g;
    req.topic = &t;
    req.n_entries = n;
    req.entries = pe;
    rc = pack(&req.base, out, err);
out:
    rsql_free(e);
    rsql_free(pe);
    return rc;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_change_invisible(const char *ns, const char *group, const char *topic,
                                          const char *message_id, const char *receipt_handle,
                                          const char *lite_topic, int64_t invisible_ms,
                                          bool suspend, rmq_bytes_t *out, rsql_error_t *err)
{
    PB(ChangeInvisibleDurationRequest) req = PBC(CHANGE_INVISIBLE_DURATION_REQUEST__INIT);
    PB(Resource) g, t;
    pb_duration_t d;
    resource(&g, ns, group);
    resource(&t, ns, topic);
    set_duration(&d, invisible_ms);
    req.group = &g;
    req.topic = &t;
    req.receipt_handle = S(receipt_handle);
    req.invisible_duration = &d;
    req.message_id = S(message_id);
    if (lite_topic && *lite_topic) {
        req._lite_topic_case = PBC(CHANGE_INVISIBLE_DURATION_REQUEST___LITE_TOPIC_LITE_TOPIC);
        req.lite_topic = (char *)lite_topic;
    }
    if (suspend) {
        req._suspend_case = PBC(CHANGE_INVISIBLE_DURATION_REQUEST___SUSPEND_SUSPEND);
        req.suspend = 1;
    }
    return pack(&req.base, out, err);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_forward_dlq(const char *ns, const char *group, const rsql_rmq_msg_t *m,
                                     int32_t max_attempts, rmq_bytes_t *out, rsql_error_t *err)
{
    PB(ForwardMessageToDeadLetterQueueRequest) req =
        PBC(FORWARD_MESSAGE_TO_DEAD_LETTER_QUEUE_REQUEST__INIT);
    PB(Resource) g, t;
    resource(&g, ns, group);
    resource(&t, ns, m->topic);
    req.group = &g;
    req.topic = &t;
    req.receipt_handle = S(m->receipt_handle);
    req.message_id = S(m->message_id);
    req.delivery_attempt = m->delivery_attempt;
    req.max_delivery_attempts = max_attempts;
    if (m->lite_topic && *m->lite_topic) {
        req._lite_topic_case = PBC(FORWARD_MESSAGE_TO_DEAD_LETTER_QUEUE_REQUEST___LITE_TOPIC_LITE_TOPIC);
        req.lite_topic = m->lite_topic;
    }
    return pack(&req.base, out, err);
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__enc_sync_lite(const char *ns, int32_t action, const char *bind_topic,
                                   const char *group, const char *const *lite_topics, size_t n,
                                   rmq_bytes_t *out, rsql_error_t *err)
{
    PB(SyncLiteSubscriptionRequest) req = PBC(SYNC_LITE_SUBSCRIPTION_REQUEST__INIT);
    PB(Resource) g, t;
    resource(&t, ns, bind_topic);
    resource(&g, ns, group);
    req.action = (PB(LiteSubscriptionAction))action;
    req.topic = &t;
    req.group = &g;
    req.n_lite_topic_set = n;
    req.lite_topic_set = (char **)lite_topics;
    return pack(&req.base, out, err);
}
