/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_codec: the only file that sees protobuf-c. It turns the plain C request structs of
 * rmq_int.h into apache.rocketmq.v2 wire bytes, and wire bytes of responses, stream elements
 * and Telemetry commands into plain C structs. Every unpacked protobuf-c object is freed
 * (`__free_unpacked`) before the function returns; nothing protobuf-c leaves this file.
 * Compressed message bodies (body_encoding GZIP, or gzip magic bytes) are inflated with zlib.
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

static char *S(const char *s)
{
    return (char *)(s ? s : "");
}

static rsql_err_t nomem(rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
}

static rsql_err_t pack(const ProtobufCMessage *m, rmq_bytes_t *out, rsql_error_t *err)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    out->data = rsql_malloc(n ? n : 1);
    if (!out->data) {
        out->len = 0;
        return nomem(err);
    }
    out->len = protobuf_c_message_pack(m, out->data);
    return RSQL_OK;
}

static rsql_err_t undecodable(const char *what, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                          "RocketMQ: cannot decode %s from the server", what);
}

static void set_duration(pb_duration_t *d, int64_t ms)
{
    google__protobuf__duration__init(d);
    d->seconds = ms / 1000;
    d->nanos = (int32_t)((ms % 1000) * 1000000);
}

static int64_t duration_ms(const pb_duration_t *d)
{
    return d ? d->seconds * 1000 + d->nanos / 1000000 : 0;
}

static int64_t ts_ms(const pb_timestamp_t *t)
{
    return t ? t->seconds * 1000 + t->nanos / 1000000 : 0;
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
        rc = nomem(err);
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
    pb_timestamp_t born;
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
        rc = nomem(err);
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
                rc = nomem(err);
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
        rc = nomem(err);
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
