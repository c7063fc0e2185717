/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_ops: the client's operations and their completions: SendMessage, ReceiveMessage (the server
 * stream's elements and end), AckMessage, ChangeInvisibleDuration,
 * ForwardMessageToDeadLetterQueue, Heartbeat and NotifyClientTermination. Each checks its
 * arguments, encodes the request (rmq_codec.c), starts the call (rmq_call.c) and, when it
 * completes, decodes the response, maps the status (rmq_status.c) and runs the one callback.
 *
 * It owns the API callbacks' contract (exactly one callback per operation that returned RSQL_OK);
 * it must not free calls or start batches except through rmq_call.c, and touches routes only
 * through rmq_route.c.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <grpc/grpc.h>

#include "rmqclient/rmq_client_int.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

/* ---- completion of unary calls ------------------------------------------------------------- */

/* See rmq_client_int.h. */
void rsql_rmq__finish_unary(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    rsql_error_t e;
    rsql_error_clear(&e);
    rmq_bytes_t b = {NULL, 0};
    rmq_resp_t resp;
    memset(&resp, 0, sizeof(resp));
    bool have = rsql_rmq__call_take_recv(k, &b);
    bool decoded = false;
    if (rsql_rmq__call_status_err(k, &e) == RSQL_OK) {
        if (!have) {
            rsql_rmq__grpc_error(GRPC_STATUS_INTERNAL, "no response message", k->rpc->name, &e);
        } else if (k->rpc->id == RMQ_RPC_QUERY_ROUTE) {
            rmq_route_t route;
            int32_t code = 0;
            char *msg = NULL;
            if (rsql_rmq__dec_query_route(b.data, b.len, &code, &msg, &route, &e) == RSQL_OK) {
                if (rsql_rmq__status_error(code, msg, &e) == RSQL_OK) {
                    rsql_rmq__route_store(c, k->topic, &route);
                }
                rsql_rmq__route_deinit(&route);
                rsql_free(msg);
            }
        } else if (rsql_rmq__dec_resp(k->rpc->id, b.data, b.len, &resp, &e) == RSQL_OK) {
            decoded = true;
            /* Per-entry failures first: they say which message failed and why. */
            for (size_t i = 0; i < resp.n_send; i++) {
                rsql_rmq__status_error(resp.send[i].code, resp.send[i].status_message, &e);
            }
            for (size_t i = 0; i < resp.n_ack; i++) {
                rsql_rmq__status_error(resp.ack[i].code, resp.ack[i].status_message, &e);
            }
            rsql_rmq__status_error(resp.code, resp.message, &e);
            if (rsql_rmq_settings_missing(resp.code, resp.message)) {
                rsql_rmq__tele_settings_lost(c);
            }
        }
    }
    rsql_free(b.data);
    const rsql_error_t *err = e.code == RSQL_OK ? NULL : &e;
    switch (k->api) {
    case API_SEND: {
        rsql_rmq_send_entry_t *ents = NULL;
        size_t n = decoded ? resp.n_send : 0;
        /* The proxy answers a batch with ONE entry whose message_id joins the ids with ','
           (one MessageBatch in the broker): give every message its own entry. */
        bool joined = n == 1 && k->n_out > 1 && strchr(resp.send[0].message_id, ',');
        size_t m = joined ? k->n_out : n;
        if (m && (ents = rsql_calloc(m, sizeof(*ents))) != NULL) {
            char *save = NULL, *tok = joined ? strtok_r(resp.send[0].message_id, ",", &save)
                                             : NULL;
            for (size_t i = 0; i < m; i++) {
                const rmq_send_entry_t *src = &resp.send[joined ? 0 : i];
                ents[i].message_id = joined ? (tok ? tok : "") : src->message_id;
                /* the broker stores a batch in one queue, at consecutive offsets from the
                   first message's (the one the answer carries) */
                ents[i].offset = joined ? src->offset + (int64_t)i : src->offset;
                ents[i].code = src->code;
                ents[i].status_message = src->status_message;
                if (joined) {
                    tok = strtok_r(NULL, ",", &save);
                }
            }
        }
        k->cb.send(c, err, ents, ents ? m : 0, k->opaque);
        rsql_free(ents);
        break;
    }
    case API_ACK: {
        rsql_rmq_ack_result_t *res = NULL;
        size_t n = decoded ? resp.n_ack : 0;
        if (n && (res = rsql_calloc(n, sizeof(*res))) != NULL) {
            for (size_t i = 0; i < n; i++) {
                res[i].message_id = resp.ack[i].message_id;
                res[i].receipt_handle = resp.ack[i].receipt_handle;
                res[i].code = resp.ack[i].code;
                res[i].status_message = resp.ack[i].status_message;
            }
        }
        k->cb.ack(c, err, res, res ? n : 0, k->opaque);
        rsql_free(res);
        break;
    }
    case API_CHANGE:
        k->cb.change(c, err, err ? NULL : resp.receipt_handle, k->opaque);
        break;
    case API_STATUS:
        k->cb.status(c, err, k->opaque);
        break;
    case API_ROUTE:
        k->cb.route(c, err, k->opaque);
        break;
    default:
        break;
    }
    rsql_rmq__resp_deinit(&resp);
}

/* ---- ReceiveMessage stream ----------------------------------------------------------------- */

/* See rmq_client_int.h. */
void rsql_rmq__recv_element(rmq_call_t *k)
{
    rmq_bytes_t b;
    if (!rsql_rmq__call_take_recv(k, &b)) {
        return;
    }
    rmq_recv_elem_t el;
    if (rsql_rmq__dec_receive(b.data, b.len, k->c->target, k->c->max_body, &el,
                              &k->decode_err) == RSQL_OK) {
        if (el.kind == RMQ_RECV_STATUS && !k->got_status) {
            k->got_status = true;
            k->rcode = el.code;
            k->rmessage = el.message;
            el.message = NULL;
        } else if (el.kind == RMQ_RECV_MESSAGE && k->n_out > 0 && k->n_msgs >= k->n_out) {
            k->n_extra++; /* more than asked for: memory stays bounded by the batch size */
        } else if (el.kind == RMQ_RECV_MESSAGE) {
            if (k->n_msgs == k->cap_msgs) {
                size_t cap = k->cap_msgs ? k->cap_msgs * 2 : 16;
                rsql_rmq_msg_t **nm = rsql_realloc(k->msgs, cap * sizeof(*nm));
                if (nm) {
                    k->msgs = nm;
                    k->cap_msgs = cap;
                }
            }
            if (k->n_msgs < k->cap_msgs) {
                k->msgs[k->n_msgs++] = el.msg;
                el.msg = NULL;
            } else {
                rsql_error_nomem(&k->decode_err);
            }
        }
        rsql_free(el.message);
        rsql_rmq_msg_destroy(el.msg);
    }
    rsql_free(b.data);
}

/* See rmq_client_int.h. */
void rsql_rmq__finish_receive(rmq_call_t *k)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    if (k->n_msgs == 0) {
        if (rsql_rmq__call_status_err(k, &e) == RSQL_OK) {
            if (k->decode_err.code != RSQL_OK) {
                rsql_error_copy(&e, &k->decode_err);
            } else if (!k->got_status) {
                rsql_rmq__grpc_error(GRPC_STATUS_INTERNAL, "no status in the response stream",
                                     k->rpc->name, &e);
            } else if (k->rcode != RSQL_RMQ_CODE_MESSAGE_NOT_FOUND) {
                rsql_rmq__status_error(k->rcode, k->rmessage, &e);
                if (rsql_rmq_settings_missing(k->rcode, k->rmessage)) {
                    rsql_rmq__tele_settings_lost(k->c);
                }
            }
        }
    }
    if (k->n_extra > 0) {
        rsql_log(RSQL_LOG_WARN, "rocketmq",
                 "ReceiveMessage: the server sent %zu message(s) more than the %zu asked for; "
                 "they were dropped and come back after their invisible duration",
                 k->n_extra, k->n_out);
    }
    /* Messages that did arrive are delivered even when the stream ended badly afterwards:
       they are invisible now and only their receipt handles can ack them. */
    rsql_rmq_msg_t **msgs = k->msgs;
    size_t n = k->n_msgs;
    k->msgs = NULL;
    k->n_msgs = k->cap_msgs = 0;
    k->cb.receive(k->c, e.code == RSQL_OK ? NULL : &e, msgs, n, k->opaque);
    rsql_free(msgs);
}

/* ---- operations ---------------------------------------------------------------------------- */

/* See rmq_client_int.h. */
rsql_err_t rsql_rmq__start_heartbeat(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                                     rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    if (rsql_rmq__enc_heartbeat(c->name_space, c->group, (int32_t)c->type, &b, err) != RSQL_OK ||
        rsql_rmq__start_simple(c, RMQ_RPC_HEARTBEAT, &b, &k, err) != RSQL_OK) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    return rsql_rmq__call_start(k, err);
}

/* Route query before a send finished: start the send or fail it. @locality client thread */
static void send_after_route(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    rmq_call_t *k = opaque;
    rsql_rmq_send_cb cb = k->cb.send;
    void *op = k->opaque;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (err) {
        rsql_error_copy(&e, err);
        rsql_rmq__call_release(k);
        cb(c, &e, NULL, 0, op);
    } else if (rsql_rmq__call_start(k, &e) != RSQL_OK) {
        cb(c, &e, NULL, 0, op);
    }
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_send(rsql_rmq_client_t *c, const rsql_rmq_out_msg_t *msgs, size_t n,
                         rsql_rmq_send_cb cb, void *opaque, rsql_error_t *err)
{
    if (n == 0) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "RocketMQ send of no message");
    }
    rsql_rmq_server_settings_t s;
    rsql_rmq_client_settings(c, &s);
    for (size_t i = 0; i < n; i++) {
        if (!msgs[i].topic || !*msgs[i].topic) {
            return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "RocketMQ message without topic");
        }
        if (msgs[i].body_len == 0) {
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_rmq__status_error(RSQL_RMQ_CODE_MESSAGE_BODY_EMPTY, "message body is empty",
                                   &e);
            rsql_error_copy(err, &e);
            return e.code;
        }
        if (s.max_body_size > 0 && msgs[i].body_len > (size_t)s.max_body_size) {
            char m[128];
            snprintf(m, sizeof(m), "message body of %zu bytes exceeds the maximum of %d bytes",
                     msgs[i].body_len, (int)s.max_body_size);
            rsql_error_t e;
            rsql_error_clear(&e);
            rsql_rmq__status_error(RSQL_RMQ_CODE_MESSAGE_BODY_TOO_LARGE, m, &e);
            rsql_error_copy(err, &e);
            return e.code;
        }
    }
    char (*ids)[35] = rsql_calloc(n, sizeof(*ids));
    const char **pids = rsql_calloc(n, sizeof(char *));
    if (!ids || !pids) {
        rsql_free(ids);
        rsql_free(pids);
        return rsql_error_nomem(err);
    }
    for (size_t i = 0; i < n; i++) {
        rsql_rmq__msgid_new(ids[i]);
        pids[i] = ids[i];
    }
    int64_t born = rsql_wall_ms();
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_send(c->name_space, msgs, n, pids, born, c->hostname, &b, err);
    rsql_free(ids);
    rsql_free(pids);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_SEND_MESSAGE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_SEND;
    k->n_out = n;
    k->cb.send = cb;
    k->opaque = opaque;
    if (rsql_rmq__route_known(c, msgs[0].topic)) {
        return rsql_rmq__call_start(k, err);
    }
    /* Like the official clients: a topic is routed before the first send to it, so a missing
       topic fails with TOPIC_NOT_FOUND (the proxy itself would report a type conflict). */
    rc = rsql_rmq__start_route(c, msgs[0].topic, send_after_route, k, err);
    if (rc != RSQL_OK) {
        rsql_rmq__call_release(k);
    }
    return rc;
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_receive(rsql_rmq_client_t *c, const char *topic, int batch_size,
                            int64_t invisible_ms, rsql_rmq_receive_cb cb, void *opaque,
                            rsql_error_t *err)
{
    if (!c->group) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ receive needs a consumer client");
    }
    rmq_route_t one;
    rsql_err_t rc = rsql_rmq__pick_queue(c, topic, &one, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rc = rsql_rmq__enc_receive(c->name_space, c->group, &one.queues[0], (int32_t)c->filter_type,
                               c->filter_expression, batch_size > 0 ? batch_size : 32,
                               invisible_ms, c->long_polling_ms, &b, err);
    rsql_rmq__route_deinit(&one);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_RECEIVE_MESSAGE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_RECEIVE;
    k->n_out = (size_t)(batch_size > 0 ? batch_size : 32);
    k->cb.receive = cb;
    k->opaque = opaque;
    return rsql_rmq__call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_ack(rsql_rmq_client_t *c, const char *topic,
                        const rsql_rmq_ack_entry_t *entries, size_t n, rsql_rmq_ack_cb cb,
                        void *opaque, rsql_error_t *err)
{
    if (!c->group || n == 0) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ ack needs a consumer client and entries");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_ack(c->name_space, c->group, topic, entries, n, &b, err);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_ACK_MESSAGE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_ACK;
    k->cb.ack = cb;
    k->opaque = opaque;
    return rsql_rmq__call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_change_invisible(rsql_rmq_client_t *c, const char *topic,
                                     const char *message_id, const char *receipt_handle,
                                     const char *lite_topic, int64_t invisible_ms, bool suspend,
                                     rsql_rmq_change_cb cb, void *opaque, rsql_error_t *err)
{
    if (!c->group) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ change-invisible needs a consumer client");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_change_invisible(c->name_space, c->group, topic, message_id,
                                                   receipt_handle, lite_topic, invisible_ms,
                                                   suspend, &b, err);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_CHANGE_INVISIBLE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_CHANGE;
    k->cb.change = cb;
    k->opaque = opaque;
    return rsql_rmq__call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_forward_to_dlq(rsql_rmq_client_t *c, const rsql_rmq_msg_t *m,
                                   int32_t max_delivery_attempts, rsql_rmq_status_cb cb,
                                   void *opaque, rsql_error_t *err)
{
    if (!c->group) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ DLQ forwarding needs a consumer client");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_forward_dlq(c->name_space, c->group, m, max_delivery_attempts,
                                              &b, err);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_FORWARD_DLQ, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    return rsql_rmq__call_start(k, err);
}

/* See rmq_client_int.h. (The first step of rsql_rmq_client_destroy.) */
rsql_err_t rsql_rmq__start_notify_termination(rsql_rmq_client_t *c, rsql_rmq_status_cb cb,
                                              void *opaque, rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_notify_termination(c->name_space, c->group, &b, err);
    if (rc == RSQL_OK) {
        rc = rsql_rmq__start_simple(c, RMQ_RPC_NOTIFY_TERMINATION, &b, &k, err);
    }
    if (rc == RSQL_OK) {
        k->api = API_STATUS;
        k->cb.status = cb;
        k->opaque = opaque;
        rc = rsql_rmq__call_start(k, err);
    }
    return rc;
}
