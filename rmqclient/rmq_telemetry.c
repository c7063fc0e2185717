/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_telemetry: the client's Telemetry stream (bidi). It opens the stream and sends the client
 * Settings (again every 5 minutes, from the client thread's timer), serialises writes through the
 * call's write queue, applies the server's Settings, answers its commands (thread stack trace,
 * verify message, reconnect endpoints, unsubscribe lite) and, when the stream ends, records why
 * and schedules its re-open with backoff (1 s doubling to 30 s). When a response says the proxy
 * has no Settings for this client (or the proxy refuses them with a transient status on an open
 * stream) it schedules a re-send at once, at most one a second (rsql_rmq__tele_settings_lost).
 *
 * It owns c->telemetry's writes, c->settings, c->telemetry_err and the re-open backoff; it must
 * not free the call (rmq_call.c releases it) nor re-open the stream itself (the client thread's
 * timer does, rmq_client.c).
 */
#include "config.h"

#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>

#include "rmqclient/rmq_client_int.h"
#include "base/rsql_backoff.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

static void emit(rsql_rmq_client_t *c, rsql_rmq_event_kind_t kind, const char *lite,
                 const rsql_error_t *err)
{
    if (c->event_cb) {
        rsql_rmq_event_t ev = {kind, lite, err};
        c->event_cb(c, &ev, c->opaque);
    }
}

static rsql_err_t settings_bytes(rsql_rmq_client_t *c, rmq_bytes_t *out, rsql_error_t *err)
{
    rmq_settings_out_t s;
    memset(&s, 0, sizeof(s));
    s.client_type = (int32_t)c->type;
    s.access_point = c->ap;
    s.n_access_point = c->n_ap;
    s.request_timeout_ms = c->request_timeout_ms;
    s.name_space = c->name_space;
    s.topics = (const char *const *)c->topics;
    s.n_topics = c->n_topics;
    s.group = c->group;
    s.filter_type = (int32_t)c->filter_type;
    s.filter_expression = c->filter_expression;
    s.long_polling_timeout_ms = c->long_polling_ms;
    s.version = RMQ_CLIENT_VERSION;
    s.hostname = c->hostname;
    return rsql_rmq__enc_settings(&s, out, err);
}

/* Start the next queued write of the Telemetry call if none is in flight. @locks c->mu held */
void rsql_rmq__tele_pump0(rmq_call_t *k)
{
    if (k->write_busy || !k->wq_head) {
        return;
    }
    rmq_write_t *w = k->wq_head;
    k->wq_head = w->next;
    if (!k->wq_head) {
        k->wq_tail = NULL;
    }
    grpc_op op;
    memset(&op, 0, sizeof(op));
    if (w->bb) {
        op.op = GRPC_OP_SEND_MESSAGE;
        op.data.send_message.send_message = w->bb;
    } else {
        op.op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    }
    if (k->send_bb) {
        grpc_byte_buffer_destroy(k->send_bb);
    }
    k->send_bb = w->bb; /* freed when the next write starts or with the call */
    rsql_free(w);
    k->write_busy = true;
    k->pending++;
    if (grpc_call_start_batch(k->gcall, &op, 1, &k->t_write, NULL) != GRPC_CALL_OK) {
        k->pending--;
        k->write_busy = false;
    }
}

/* Queue a Telemetry write (bytes; NULL = half-close). */
void rsql_rmq__tele_write(rsql_rmq_client_t *c, const rmq_bytes_t *b)
{
    pthread_mutex_lock(&c->mu);
    rmq_call_t *k = c->telemetry;
    if (k) {
        rmq_write_t *w = rsql_calloc(1, sizeof(*w));
        if (w) {
            w->bb = b ? rsql_rmq__bb_from(b) : NULL;
            if (k->wq_tail) {
                k->wq_tail->next = w;
            } else {
                k->wq_head = w;
            }
            k->wq_tail = w;
            rsql_rmq__tele_pump0(k);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

/* See rmq_client_int.h. */
void rsql_rmq__tele_send_settings(rsql_rmq_client_t *c)
{
    rmq_bytes_t b;
    if (settings_bytes(c, &b, NULL) == RSQL_OK) {
        rsql_rmq__tele_write(c, &b);
        rsql_free(b.data);
    }
}

/* Open the Telemetry stream and send the Settings. */
rsql_err_t rsql_rmq__tele_open(rsql_rmq_client_t *c, rsql_error_t *err)
{
    rmq_call_t *k = rsql_rmq__call_new(c, RMQ_RPC_TELEMETRY, NULL, 0, err);
    if (!k) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    pthread_mutex_lock(&c->mu);
    c->telemetry = k;
    pthread_mutex_unlock(&c->mu);
    if (rsql_rmq__call_start(k, err) != RSQL_OK) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    pthread_mutex_lock(&c->mu);
    rsql_rmq__call_start_recv(k, true);
    rsql_rmq__call_start_status(k);
    pthread_mutex_unlock(&c->mu);
    rsql_rmq__tele_send_settings(c);
    return RSQL_OK;
}

static void apply_settings(rsql_rmq_client_t *c, const rsql_rmq_server_settings_t *s)
{
    pthread_mutex_lock(&c->mu);
    rsql_rmq_server_settings_t *d = &c->settings;
    d->received = true;
    if (s->max_body_size > 0) {
        d->max_body_size = s->max_body_size;
    }
    d->validate_message_type = s->validate_message_type;
    d->fifo = s->fifo;
    if (s->receive_batch_size > 0) {
        d->receive_batch_size = s->receive_batch_size;
    }
    if (s->long_polling_timeout_ms > 0) {
        d->long_polling_timeout_ms = s->long_polling_timeout_ms;
    }
    if (s->lite_subscription_quota > 0) {
        d->lite_subscription_quota = s->lite_subscription_quota;
    }
    if (s->max_lite_topic_size > 0) {
        d->max_lite_topic_size = s->max_lite_topic_size;
    }
    if (s->max_attempts > 0) {
        d->max_attempts = s->max_attempts;
    }
    c->settings_gen++;
    c->telemetry_backoff_ms = RMQ_TELEMETRY_BACKOFF_MIN_MS;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
}

/* See rmq_client_int.h. */
void rsql_rmq__tele_command(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    rmq_bytes_t b;
    if (!rsql_rmq__call_take_recv(k, &b)) {
        return;
    }
    rmq_tcmd_t cmd;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_rmq__dec_telemetry(b.data, b.len, &cmd, &e) != RSQL_OK) {
        rsql_free(b.data);
        return;
    }
    rsql_free(b.data);
    if (cmd.has_status && cmd.status_code != RSQL_RMQ_CODE_OK) {
        rsql_error_t se;
        rsql_error_clear(&se);
        bool transient = rsql_err_code_retriable(
            rsql_rmq__status_error(cmd.status_code, cmd.status_message, &se));
        pthread_mutex_lock(&c->mu);
        rsql_error_copy(&c->telemetry_err, &se);
        bool started = c->started;
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->mu);
        /* The proxy refused our Settings (flow control, not ready yet after a restart, ...) and
           kept the stream open: without a new Settings command it would know nothing of this
           client until the 5-minute re-sync. Before start this is start's error instead. */
        if (started && transient && cmd.kind != RMQ_TCMD_PRINT_STACK &&
            cmd.kind != RMQ_TCMD_VERIFY_MESSAGE) {
            rsql_rmq__tele_settings_lost(c);
        }
    }
    rmq_bytes_t reply = {NULL, 0};
    switch (cmd.kind) {
    case RMQ_TCMD_SETTINGS:
        if (!cmd.has_status || cmd.status_code == RSQL_RMQ_CODE_OK) {
            apply_settings(c, &cmd.settings);
            emit(c, RSQL_RMQ_EV_SETTINGS, NULL, NULL);
        }
        break;
    case RMQ_TCMD_PRINT_STACK:
        rsql_rmq__enc_telemetry_reply(false, cmd.nonce, RSQL_RMQ_CODE_OK, "OK", &reply, NULL);
        break;
    case RMQ_TCMD_VERIFY_MESSAGE:
        rsql_rmq__enc_telemetry_reply(true, cmd.nonce, RSQL_RMQ_CODE_NOT_IMPLEMENTED,
                                      "rocketsql does not verify messages", &reply, NULL);
        break;
    case RMQ_TCMD_RECONNECT:
        emit(c, RSQL_RMQ_EV_RECONNECT, NULL, NULL);
        grpc_call_cancel(k->gcall, NULL); /* the status completion re-opens the stream */
        break;
    case RMQ_TCMD_UNSUBSCRIBE_LITE:
        pthread_mutex_lock(&c->mu);
        rsql_rmq__lite_remove0(c, cmd.lite_topic ? cmd.lite_topic : "");
        pthread_mutex_unlock(&c->mu);
        emit(c, RSQL_RMQ_EV_UNSUBSCRIBE_LITE, cmd.lite_topic, NULL);
        break;
    default:
        break;
    }
    if (reply.data) {
        rsql_rmq__tele_write(c, &reply);
        rsql_free(reply.data);
    }
    rsql_rmq__tcmd_deinit(&cmd);
}

/* See rmq_client_int.h. */
void rsql_rmq__tele_broken(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_rmq__call_status_err(k, &e) == RSQL_OK) {
        rsql_error_set(&e, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                       "RocketMQ Telemetry stream closed by the server");
    }
    pthread_mutex_lock(&c->mu);
    bool closing = c->closing;
    rsql_error_copy(&c->telemetry_err, &e);
    if (!closing) {
        c->telemetry_reopen_at = rsql_now_ms() + c->telemetry_backoff_ms;
        c->telemetry_backoff_ms = (int)rsql_backoff_next(
            c->telemetry_backoff_ms, RMQ_TELEMETRY_BACKOFF_MIN_MS, RMQ_TELEMETRY_BACKOFF_MAX_MS);
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
    if (!closing) {
        emit(c, RSQL_RMQ_EV_TELEMETRY_BROKEN, NULL, &e);
    }
}

/* See rmq_client_int.h. */
void rsql_rmq__tele_settings_lost(rsql_rmq_client_t *c)
{
    int64_t now = rsql_now_ms();
    pthread_mutex_lock(&c->mu);
    int64_t at = c->settings_resent_at ? c->settings_resent_at + RMQ_SETTINGS_RESEND_MIN_MS : now;
    if (at < now) {
        at = now;
    }
    if (!c->closing && (!c->settings_resend_at || at < c->settings_resend_at)) {
        c->settings_resend_at = at;
    }
    pthread_mutex_unlock(&c->mu);
}
