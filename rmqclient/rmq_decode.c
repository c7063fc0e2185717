/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_decode: the decoding half of the codec (rmq_codec.c encodes). It turns wire bytes of
 * responses, ReceiveMessage stream elements, received messages and Telemetry commands into the
 * plain C structs of rmq_int.h, and frees them again (route, response, command, message).
 * Every unpacked protobuf-c object is freed (`__free_unpacked`) before the function returns;
 * nothing protobuf-c leaves this file. A received message is bytes from the network: it is
 * checked (system properties, message id, receipt handle, timestamps, property map, body size
 * and encoding; see rsql_rmq__dec_message in rmq_int.h) and a message that fails a check is
 * still returned, marked bad (rsql_rmq_msg_t.bad), so its source can fail that one record and
 * still ack it. Bodies are inflated with zlib only when body_encoding says GZIP, and never past
 * the caller's max_body.
 *
 * It owns the decoders and the deinit/destroy of what they return; with rmq_codec.c it is the
 * only file that sees protobuf-c. It must not encode requests, keep state between calls, or
 * judge a Status (rmq_status.c maps codes to errors).
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "rmqclient/rmq_int.h"
#include "base/rsql_mem.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x

typedef Google__Protobuf__Duration pb_duration_t;
typedef Google__Protobuf__Timestamp pb_timestamp_t;

static rsql_err_t undecodable(const char *what, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                          "RocketMQ: cannot decode %s from the server", what);
}

/* A Duration in ms; 0 when absent, -1 when negative or too long to be meant (over 100 days). */
static int64_t duration_ms(const pb_duration_t *d)
{
    if (!d) {
        return 0;
    }
    if (d->seconds < 0 || d->seconds > 100 * 86400 || d->nanos < 0 || d->nanos > 999999999) {
        return -1;
    }
    return d->seconds * 1000 + d->nanos / 1000000;
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
        return rsql_error_nomem(err);
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
        return rsql_error_nomem(err);
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
    rsql_free(m->born_host);
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

/*
** Grow buf (capacity *cap output bytes, plus one for the NUL) towards at most limit + 1 output
** bytes. NULL when it cannot (buf is then freed).
*/
static uint8_t *grow_out(uint8_t *buf, size_t *cap, size_t limit)
{
    size_t nc = *cap <= (limit + 1) / 2 ? *cap * 2 : limit + 1;
    uint8_t *nb = rsql_realloc(buf, nc + 1);
    if (!nb) {
        rsql_free(buf);
        return NULL;
    }
    *cap = nc;
    return nb;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__inflate(const uint8_t *p, size_t n, size_t max, uint8_t **out,
                             size_t *out_len, rsql_error_t *err)
{
    *out = NULL;
    *out_len = 0;
    if (max > RMQ_INFLATE_MAX) {
        max = RMQ_INFLATE_MAX;
    }
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 32) != Z_OK) {
        return rsql_error_nomem(err);
    }
    /* output room: a first guess, then doubling; never more than max + 1 bytes (one byte over
       the limit tells "too large"); zlib counts in uInt, so input and output are fed in pieces
       that fit one */
    size_t cap = n < (max + 1) / 4 ? n * 4 + 64 : max + 1;
    if (cap > max + 1) {
        cap = max + 1;
    }
    uint8_t *buf = rsql_malloc(cap + 1);
    size_t len = 0, in_left = n;
    const uint8_t *in = p;
    int zrc = Z_OK;
    while (buf) {
        if (zs.avail_in == 0 && in_left > 0) {
            uInt take = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
            zs.next_in = (Bytef *)in;
            zs.avail_in = take;
            in += take;
            in_left -= take;
        }
        size_t room = cap - len;
        uInt give = room > UINT_MAX ? UINT_MAX : (uInt)room;
        zs.next_out = buf + len;
        zs.avail_out = give;
        zrc = inflate(&zs, Z_NO_FLUSH);
        len += give - zs.avail_out;
        if (zrc == Z_STREAM_END || (zrc != Z_OK && zrc != Z_BUF_ERROR)) {
            break;
        }
        if (len > max) {
            break; /* more output than allowed */
        }
        if (zs.avail_out > 0 && zs.avail_in == 0 && in_left == 0) {
            zrc = Z_DATA_ERROR; /* truncated input */
            break;
        }
        if (len == cap) {
            buf = grow_out(buf, &cap, max);
        }
    }
    inflateEnd(&zs);
    if (!buf) {
        return rsql_error_nomem(err);
    }
    if (len > max) {
        rsql_free(buf);
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "compressed body inflates to more than source.max-body-size "
                              "(%zu bytes)",
                              max);
    }
    if (zrc != Z_STREAM_END) {
        rsql_free(buf);
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "body_encoding is GZIP but the body is not valid gzip or zlib "
                              "data (%s)",
                              zrc == Z_MEM_ERROR ? "out of memory" : zs.msg ? zs.msg : "truncated");
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return RSQL_OK;
}

/* ---- received messages: what is checked (see rmq_int.h) */

/* A Timestamp in epoch ms, or false when it is outside google.protobuf.Timestamp's range. */
static bool ts_ms_checked(const pb_timestamp_t *t, int64_t *ms)
{
    *ms = 0;
    if (!t) {
        return true;
    }
    if (t->seconds < RMQ_TS_MIN_SECONDS || t->seconds > RMQ_TS_MAX_SECONDS || t->nanos < 0 ||
        t->nanos > 999999999) {
        return false;
    }
    *ms = t->seconds * 1000 + t->nanos / 1000000;
    return true;
}

/* A message id is 1..RMQ_MSGID_MAX printable ASCII characters without spaces. */
static bool msgid_ok(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++) {
        unsigned char ch = (unsigned char)id[n];
        if (n >= RMQ_MSGID_MAX || ch < 0x21 || ch > 0x7e) {
            return false;
        }
    }
    return n > 0;
}

static int cmp_entry_key(const void *a, const void *b)
{
    const PB(Message__UserPropertiesEntry) *x = *(const PB(Message__UserPropertiesEntry) *const *)a;
    const PB(Message__UserPropertiesEntry) *y = *(const PB(Message__UserPropertiesEntry) *const *)b;
    return strcmp(x->key, y->key);
}

static size_t slen(const char *s)
{
    return s ? strlen(s) : 0;
}

/*
** Check the user properties, keys, tag and message group of pm: no empty or repeated key, at
** most RMQ_PROPS_MAX bytes together. Sets m->bad and returns false when not.
*/
static bool props_ok(const PB(Message) *pm, const PB(SystemProperties) *sp, rsql_rmq_msg_t *m,
                     bool *oom)
{
    size_t total = slen(sp->message_group) + slen(sp->tag);
    for (size_t i = 0; i < sp->n_keys; i++) {
        total += slen(sp->keys[i]);
    }
    for (size_t i = 0; i < pm->n_user_properties && total <= RMQ_PROPS_MAX; i++) {
        const PB(Message__UserPropertiesEntry) *e = pm->user_properties[i];
        if (!e->key || !*e->key) {
            rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                           "malformed user properties: a property with an empty key");
            return false;
        }
        total += strlen(e->key) + slen(e->value);
    }
    if (total > RMQ_PROPS_MAX) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       "properties, keys and tag over %d bytes (the broker stores at most "
                       "32767 bytes of properties)",
                       RMQ_PROPS_MAX);
        return false;
    }
    if (pm->n_user_properties < 2) {
        return true;
    }
    /* a key twice: a map on the wire may repeat a key, but a relay would lose a value */
    PB(Message__UserPropertiesEntry) **sorted =
        rsql_malloc(pm->n_user_properties * sizeof(*sorted));
    if (!sorted) {
        *oom = true;
        return false;
    }
    memcpy(sorted, pm->user_properties, pm->n_user_properties * sizeof(*sorted));
    qsort(sorted, pm->n_user_properties, sizeof(*sorted), cmp_entry_key);
    bool ok = true;
    for (size_t i = 1; ok && i < pm->n_user_properties; i++) {
        if (strcmp(sorted[i - 1]->key, sorted[i]->key) == 0) {
            rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                           "malformed user properties: key '%.64s' given twice", sorted[i]->key);
            ok = false;
        }
    }
    rsql_free(sorted);
    return ok;
}

/* The system properties of pm into m; problems go to m->bad (the first one wins). */
static void take_system_props(const PB(SystemProperties) *sp, rsql_rmq_msg_t *m, bool *oom)
{
    m->message_id = dup_str(sp->message_id ? sp->message_id : "", oom);
    if (sp->_receipt_handle_case == PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE) &&
        sp->receipt_handle && *sp->receipt_handle) {
        m->receipt_handle = dup_str(sp->receipt_handle, oom);
    }
    if (sp->_lite_topic_case == PBC(SYSTEM_PROPERTIES___LITE_TOPIC_LITE_TOPIC) && sp->lite_topic &&
        *sp->lite_topic) {
        m->lite_topic = dup_str(sp->lite_topic, oom);
    }
    if (sp->_message_group_case == PBC(SYSTEM_PROPERTIES___MESSAGE_GROUP_MESSAGE_GROUP) &&
        sp->message_group && *sp->message_group) {
        m->message_group = dup_str(sp->message_group, oom);
    }
    if (sp->_tag_case == PBC(SYSTEM_PROPERTIES___TAG_TAG) && sp->tag && *sp->tag) {
        m->tag = dup_str(sp->tag, oom);
    }
    if (sp->_delivery_attempt_case == PBC(SYSTEM_PROPERTIES___DELIVERY_ATTEMPT_DELIVERY_ATTEMPT)) {
        m->delivery_attempt = sp->delivery_attempt;
    }
    m->queue_id = sp->queue_id;
    m->message_type = (int32_t)sp->message_type;
    if (sp->born_host && *sp->born_host) {
        m->born_host = dup_str(sp->born_host, oom);
    }
    if (sp->_queue_offset_case == PBC(SYSTEM_PROPERTIES___QUEUE_OFFSET_QUEUE_OFFSET)) {
        m->queue_offset = sp->queue_offset;
    }
    if (*oom) {
        return;
    }
    if (!msgid_ok(m->message_id)) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       *m->message_id ? "malformed message id (not 1 to %d printable characters)"
                                      : "message without a message id",
                       RMQ_MSGID_MAX);
    } else if (!m->receipt_handle) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       "message without a receipt handle (it cannot be acked)");
    }
    if (!ts_ms_checked(sp->born_timestamp, &m->born_ms)) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       "born timestamp out of range (seconds %lld, nanos %d)",
                       (long long)sp->born_timestamp->seconds, (int)sp->born_timestamp->nanos);
    }
    if (sp->_store_timestamp_case == PBC(SYSTEM_PROPERTIES___STORE_TIMESTAMP_STORE_TIMESTAMP) &&
        !ts_ms_checked(sp->store_timestamp, &m->store_ms)) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       "store timestamp out of range (seconds %lld, nanos %d)",
                       (long long)sp->store_timestamp->seconds, (int)sp->store_timestamp->nanos);
    }
    if (sp->_delivery_timestamp_case ==
            PBC(SYSTEM_PROPERTIES___DELIVERY_TIMESTAMP_DELIVERY_TIMESTAMP) &&
        !ts_ms_checked(sp->delivery_timestamp, &m->delivery_ms)) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       "delivery timestamp out of range (seconds %lld, nanos %d)",
                       (long long)sp->delivery_timestamp->seconds,
                       (int)sp->delivery_timestamp->nanos);
    }
    if (m->bad.code == RSQL_OK && sp->n_keys) {
        if ((m->keys = rsql_calloc(sp->n_keys, sizeof(char *)))) {
            for (size_t i = 0; i < sp->n_keys; i++) {
                m->keys[m->n_keys++] = dup_str(sp->keys[i], oom);
            }
        } else {
            *oom = true;
        }
    }
}

/*
** The body of pm into m: inflated when body_encoding says GZIP (and only then: an IDENTITY body
** that happens to start with the gzip magic is the producer's own bytes), never more than
** max_body bytes. A body that cannot be taken sets m->bad and keeps the raw wire body as its
** raw form (at most RMQ_BAD_RAW_MAX bytes of it when it is over max_body).
*/
static void take_body(const PB(Message) *pm, const PB(SystemProperties) *sp, size_t max_body,
                      rsql_rmq_msg_t *m, bool *oom)
{
    const uint8_t *b = pm->body.data;
    size_t bl = pm->body.len;
    int enc = sp ? (int)sp->body_encoding : PBC(ENCODING__IDENTITY);
    if (m->bad.code == RSQL_OK) {
        if (bl > max_body) {
            rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                           "body of %zu bytes exceeds source.max-body-size (%zu bytes)", bl,
                           max_body);
        } else if (enc == PBC(ENCODING__GZIP)) {
            rsql_error_t e;
            rsql_error_clear(&e);
            if (rsql_rmq__inflate(b, bl, max_body, &m->body, &m->body_len, &e) == RSQL_OK) {
                return;
            }
            if (e.code == RSQL_ERR_NOMEM) {
                *oom = true;
                return;
            }
            m->bad = e;
        } else if (enc != PBC(ENCODING__IDENTITY) && enc != PBC(ENCODING__ENCODING_UNSPECIFIED)) {
            rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS, "unsupported body_encoding %d",
                           enc);
        }
    }
    size_t keep = bl;
    if (m->bad.code != RSQL_OK && bl > max_body && keep > RMQ_BAD_RAW_MAX) {
        keep = RMQ_BAD_RAW_MAX;
    }
    m->body = rsql_malloc(keep + 1);
    if (!m->body) {
        *oom = true;
        return;
    }
    if (keep) {
        memcpy(m->body, b, keep);
    }
    m->body[keep] = '\0';
    m->body_len = keep;
}

static rsql_rmq_msg_t *msg_from_pb(const PB(Message) *pm, const char *endpoint, size_t max_body,
                                   rsql_error_t *err)
{
    rsql_rmq_msg_t *m = rsql_calloc(1, sizeof(*m));
    if (!m) {
        rsql_error_nomem(err);
        return NULL;
    }
    rsql_error_clear(&m->bad);
    bool oom = false;
    const PB(SystemProperties) *sp = pm->system_properties;
    m->topic = dup_str(pm->topic && pm->topic->name ? pm->topic->name : "", &oom);
    m->endpoint = dup_str(endpoint ? endpoint : "", &oom);
    if (sp) {
        take_system_props(sp, m, &oom);
    } else {
        m->message_id = dup_str("", &oom);
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                       "message without system properties (no id, no receipt handle)");
    }
    if (!oom && m->bad.code == RSQL_OK && !*m->topic) {
        rsql_error_set(&m->bad, RSQL_ERR_DECODE, RSQL_NOPOS, "message without a topic");
    }
    if (!oom && m->bad.code == RSQL_OK && props_ok(pm, sp, m, &oom) && pm->n_user_properties) {
        if ((m->props = rsql_calloc(pm->n_user_properties, sizeof(rsql_rmq_prop_t)))) {
            for (size_t i = 0; i < pm->n_user_properties; i++) {
                m->props[i].key = dup_str(pm->user_properties[i]->key, &oom);
                m->props[i].value = dup_str(pm->user_properties[i]->value ?
                                            pm->user_properties[i]->value : "", &oom);
                m->n_props++;
            }
        } else {
            oom = true;
        }
    }
    if (!oom) {
        take_body(pm, sp, max_body, m, &oom);
    }
    if (oom) {
        rsql_rmq_msg_destroy(m);
        rsql_error_nomem(err);
        return NULL;
    }
    return m;
}

/* See rmq_int.h. */
rsql_rmq_msg_t *rsql_rmq__dec_message(const uint8_t *p, size_t n, const char *endpoint,
                                      size_t max_body, rsql_error_t *err)
{
    PB(Message) *pm = apache__rocketmq__v2__message__unpack(NULL, n, p);
    if (!pm) {
        undecodable("Message", err);
        return NULL;
    }
    rsql_rmq_msg_t *m = msg_from_pb(pm, endpoint, max_body, err);
    apache__rocketmq__v2__message__free_unpacked(pm, NULL);
    return m;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__dec_receive(const uint8_t *p, size_t n, const char *endpoint,
                                 size_t max_body, rmq_recv_elem_t *out, rsql_error_t *err)
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
            rc = rsql_error_nomem(err);
        }
        break;
    case PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_MESSAGE):
        out->kind = RMQ_RECV_MESSAGE;
        if (!r->message) {
            rc = undecodable("ReceiveMessageResponse (an empty message element)", err);
            break;
        }
        out->msg = msg_from_pb(r->message, endpoint, max_body, err);
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
            int64_t ms = duration_ms(sub->long_polling_timeout);
            o->long_polling_timeout_ms = ms > 0 ? ms : 0; /* ignored when absurd */
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
        return rsql_error_nomem(err);
    }
    return RSQL_OK;
}
