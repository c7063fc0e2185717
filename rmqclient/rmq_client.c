/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_client: the RocketMQ gRPC client's engine (API and threading model in rmq_client.h): its
 * lifecycle (new, start, destroy), the channel and the client thread. One grpc C core channel per
 * client (or its owner's, rsql_rmq_config_t.share_channel: another identity of the process) and
 * one client thread that owns the completion queue: it blocks in
 * grpc_completion_queue_next() until a completion or its next timer (heartbeat, route refresh,
 * settings re-sync, lite re-sync, Telemetry re-open), hands each completion to rmq_call.c and
 * runs the timers that are due. The rest of the engine is rmq_call.c (calls and who frees them),
 * rmq_telemetry.c (the Telemetry stream), rmq_route.c (routes, lite subscription sets) and
 * rmq_ops.c (the operations and their completions).
 *
 * This file owns the client struct's configuration, its thread, channel and completion queue and
 * the timers; it must not start gRPC batches itself (rmq_call.c does) or decode responses
 * (rmq_ops.c, rmq_telemetry.c with rmq_codec.c), and it frees calls only by waiting for them
 * (stop_thread).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>

#include "rmqclient/rmq_client_int.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#define RMQ_HEARTBEAT_MS 10000
#define RMQ_ROUTE_REFRESH_MS 30000
#define RMQ_SETTINGS_SYNC_MS 300000
#define RMQ_LITE_SYNC_MS 30000
#define RMQ_DEFAULT_MAX_BODY (4 * 1024 * 1024) /* the broker's default maxMessageSize */
#define RMQ_MAX_BODY_LIMIT (1024u * 1024 * 1024) /* source.max-body-size's upper bound */
#define RMQ_RECV_OVERHEAD (1024 * 1024) /* properties (<= 32 KiB stored) and framing, roomy */

static char *xstrdup(const char *s)
{
    return rsql_strdup(s ? s : "");
}

/* ---- configuration ------------------------------------------------------------------------- */

/* Parse "host:port[;host:port...]" into c->ap. */
static rsql_err_t parse_endpoints(rsql_rmq_client_t *c, const char *s, rsql_error_t *err)
{
    size_t cnt = 1;
    for (const char *p = s; *p; p++) {
        cnt += (*p == ';' || *p == ',');
    }
    c->ap = rsql_calloc(cnt, sizeof(rmq_addr_t));
    if (!c->ap) {
        return rsql_error_nomem(err);
    }
    const char *p = s;
    while (*p) {
        const char *e = p + strcspn(p, ";,");
        const char *colon = NULL;
        for (const char *q = p; q < e; q++) {
            if (*q == ':') {
                colon = q;
            }
        }
        char *end = NULL;
        long port = colon ? strtol(colon + 1, &end, 10) : 0;
        if (!colon || colon == p || end != e || port <= 0 || port > 65535) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                  "RocketMQ endpoints '%s': expected host:port", s);
        }
        c->ap[c->n_ap].host = rsql_strndup(p, (size_t)(colon - p));
        c->ap[c->n_ap].port = (int32_t)port;
        if (!c->ap[c->n_ap].host) {
            return rsql_error_nomem(err);
        }
        c->n_ap++;
        p = *e ? e + 1 : e;
    }
    if (c->n_ap == 0) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "RocketMQ endpoints are empty");
    }
    char target[300];
    snprintf(target, sizeof(target), "%s:%d", c->ap[0].host, (int)c->ap[0].port);
    c->target = rsql_strdup(target);
    return c->target ? RSQL_OK : rsql_error_nomem(err);
}

static void client_free(rsql_rmq_client_t *c)
{
    rsql_free(c->endpoints);
    rsql_free(c->target);
    rsql_rmq__channel_free(c);
    rsql_free(c->name_space);
    rsql_free(c->access_key);
    rsql_free(c->secret_key);
    rsql_free(c->group);
    rsql_free(c->filter_expression);
    for (size_t i = 0; i < c->n_topics; i++) {
        rsql_free(c->topics[i]);
    }
    rsql_free(c->topics);
    for (size_t i = 0; i < c->n_ap; i++) {
        rsql_free(c->ap[i].host);
    }
    rsql_free(c->ap);
    for (size_t i = 0; i < c->n_routes; i++) {
        rsql_free(c->routes[i].topic);
        rsql_rmq__route_deinit(&c->routes[i].route);
    }
    rsql_free(c->routes);
    for (size_t i = 0; i < c->n_lite_set; i++) {
        rsql_free(c->lite_set[i]);
    }
    rsql_free(c->lite_set);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cond);
    rsql_free(c);
}

/* See rmq_client.h. */
rsql_rmq_client_t *rsql_rmq_client_new(const rsql_rmq_config_t *conf, rsql_error_t *err)
{
    if (!conf || !conf->endpoints || !*conf->endpoints) {
        rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                       "RocketMQ client needs endpoints");
        return NULL;
    }
    bool consumer = conf->client_type != RSQL_RMQ_PRODUCER;
    if (conf->client_type != RSQL_RMQ_PRODUCER && conf->client_type != RSQL_RMQ_SIMPLE_CONSUMER &&
        conf->client_type != RSQL_RMQ_LITE_PUSH_CONSUMER &&
        conf->client_type != RSQL_RMQ_LITE_SIMPLE_CONSUMER) {
        rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS, "RocketMQ client type %d unknown",
                       (int)conf->client_type);
        return NULL;
    }
    if (consumer && (!conf->group || !*conf->group || conf->n_topics == 0)) {
        rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                       "a RocketMQ consumer needs a group and at least one topic");
        return NULL;
    }
    if ((conf->access_key && *conf->access_key) != (conf->secret_key && *conf->secret_key)) {
        rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                       "RocketMQ access key and secret key go together");
        return NULL;
    }
    rsql_rmq_client_t *c = rsql_calloc(1, sizeof(*c));
    if (!c) {
        rsql_error_nomem(err);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    rsql_cond_init_monotonic(&c->cond);
    c->endpoints = xstrdup(conf->endpoints);
    c->name_space = xstrdup(conf->name_space);
    c->access_key = conf->access_key && *conf->access_key ? xstrdup(conf->access_key) : NULL;
    c->secret_key = conf->secret_key && *conf->secret_key ? xstrdup(conf->secret_key) : NULL;
    c->group = consumer ? xstrdup(conf->group) : NULL;
    c->filter_expression = xstrdup(conf->filter_expression && *conf->filter_expression
                                       ? conf->filter_expression
                                       : "*");
    c->tls = conf->tls;
    c->request_timeout_ms = conf->request_timeout_ms > 0 ? conf->request_timeout_ms : 3000;
    c->route_refresh_ms =
        conf->route_refresh_ms > 0 ? conf->route_refresh_ms : RMQ_ROUTE_REFRESH_MS;
    c->long_polling_ms = conf->long_polling_timeout_ms > 0 ? conf->long_polling_timeout_ms : 20000;
    c->max_body = conf->max_body_bytes > 0 ? conf->max_body_bytes : RMQ_DEFAULT_MAX_BODY;
    if (c->max_body > RMQ_MAX_BODY_LIMIT) {
        c->max_body = RMQ_MAX_BODY_LIMIT;
    }
    c->type = conf->client_type;
    c->filter_type = conf->filter_type ? conf->filter_type : RSQL_RMQ_FILTER_TAG;
    c->event_cb = conf->event_cb;
    c->opaque = conf->opaque;
    c->chan_owner = conf->share_channel;
    c->settings.max_body_size = RMQ_DEFAULT_MAX_BODY;
    c->settings.max_lite_topic_size = 64;
    c->telemetry_backoff_ms = RMQ_TELEMETRY_BACKOFF_MIN_MS;
    bool oom = !c->endpoints || !c->name_space || !c->filter_expression ||
               (consumer && !c->group) || (conf->access_key && *conf->access_key && !c->access_key) ||
               (conf->secret_key && *conf->secret_key && !c->secret_key);
    if (!oom && conf->n_topics) {
        c->topics = rsql_calloc(conf->n_topics, sizeof(char *));
        oom = !c->topics;
        for (size_t i = 0; !oom && i < conf->n_topics; i++) {
            c->topics[i] = xstrdup(conf->topics[i]);
            oom = !c->topics[i];
            c->n_topics += !oom;
        }
    }
    if (oom) {
        rsql_error_nomem(err);
        client_free(c);
        return NULL;
    }
    if (parse_endpoints(c, c->endpoints, err) != RSQL_OK ||
        rsql_rmq__channel_config(c, conf, err) != RSQL_OK) {
        client_free(c);
        return NULL;
    }
    if (gethostname(c->hostname, sizeof(c->hostname) - 1) != 0) {
        strcpy(c->hostname, "localhost");
    }
    rsql_rmq__client_id(c->client_id, sizeof(c->client_id));
    return c;
}

/* See rmq_client.h. */
const char *rsql_rmq_client_id(const rsql_rmq_client_t *c)
{
    return c->client_id;
}

/* See rmq_client.h. */
void rsql_rmq_client_settings(rsql_rmq_client_t *c, rsql_rmq_server_settings_t *out)
{
    pthread_mutex_lock(&c->mu);
    *out = c->settings;
    pthread_mutex_unlock(&c->mu);
}

/* ---- the client thread --------------------------------------------------------------------- */

static void hb_done(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    (void)c;
    (void)err;
    (void)opaque;
}

/* The periodic route refresh's answer: logged at debug (the failover tests look for it). */
static void route_refresh_done(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    (void)opaque;
    if (err && err->code != RSQL_OK) {
        rsql_log(RSQL_LOG_DEBUG, "rocketmq", "route refresh of client %s failed: %s",
                 c->client_id, err->msg);
    } else {
        rsql_log(RSQL_LOG_DEBUG, "rocketmq", "route refreshed for client %s", c->client_id);
    }
}

/* Run the timers that are due; returns the next deadline (monotonic ms). */
static int64_t run_timers(rsql_rmq_client_t *c)
{
    int64_t now = rsql_now_ms();
    pthread_mutex_lock(&c->mu);
    bool closing = c->closing, started = c->started;
    bool hb = started && now >= c->next_heartbeat;
    bool route = started && now >= c->next_route;
    bool sync = started && now >= c->next_settings;
    bool lite = started && rsql_rmq__is_lite(c) && now >= c->next_lite;
    bool reopen = started && c->telemetry_reopen_at && now >= c->telemetry_reopen_at &&
                  !c->telemetry;
    if (hb) {
        c->next_heartbeat = now + RMQ_HEARTBEAT_MS;
    }
    if (route) {
        c->next_route = now + c->route_refresh_ms;
    }
    if (sync) {
        c->next_settings = now + RMQ_SETTINGS_SYNC_MS;
    }
    if (lite) {
        c->next_lite = now + RMQ_LITE_SYNC_MS;
    }
    /* the proxy lacks our Settings: send them now on the open stream, or open one now */
    bool resend = started && c->settings_resend_at && now >= c->settings_resend_at;
    if (resend) {
        c->settings_resend_at = 0;
        c->settings_resent_at = now;
        c->settings_resends++;
        if (!c->telemetry) {
            reopen = true;
            resend = false; /* tele_open sends them */
        }
    }
    if (reopen) {
        c->telemetry_reopen_at = 0;
    }
    bool lost = resend || (reopen && c->settings_resent_at == now);
    pthread_mutex_unlock(&c->mu);
    if (!closing && lost) {
        rsql_log(RSQL_LOG_INFO, "rocketmq",
                 "the proxy %s has no Settings for client %s: sending them again%s", c->target,
                 c->client_id, resend ? "" : " on a new Telemetry stream");
    }
    if (!closing) {
        if (hb) {
            rsql_rmq__start_heartbeat(c, hb_done, NULL, NULL);
        }
        if (route) {
            for (size_t i = 0; i < c->n_topics; i++) {
                rsql_rmq__start_route(c, c->topics[i], route_refresh_done, NULL, NULL);
            }
        }
        if (sync || resend) {
            rsql_rmq__tele_send_settings(c);
        }
        if (lite) {
            rsql_rmq__lite_resync(c, hb_done, NULL, NULL);
        }
        if (reopen && rsql_rmq__tele_open(c, NULL) != RSQL_OK) {
            pthread_mutex_lock(&c->mu);
            c->telemetry_reopen_at = rsql_now_ms() + c->telemetry_backoff_ms;
            pthread_mutex_unlock(&c->mu);
        }
    }
    pthread_mutex_lock(&c->mu);
    int64_t next = now + 60000;
    if (c->started && !c->closing) {
        next = c->next_heartbeat < next ? c->next_heartbeat : next;
        next = c->next_route < next ? c->next_route : next;
        next = c->next_settings < next ? c->next_settings : next;
        if (rsql_rmq__is_lite(c)) {
            next = c->next_lite < next ? c->next_lite : next;
        }
        if (c->telemetry_reopen_at && c->telemetry_reopen_at < next) {
            next = c->telemetry_reopen_at;
        }
        if (c->settings_resend_at && c->settings_resend_at < next) {
            next = c->settings_resend_at;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return next;
}

/*
** The client thread: block on the completion queue until a completion or the next timer.
** @locality client thread
*/
static void *client_thread(void *arg)
{
    rsql_rmq_client_t *c = arg;
    int64_t next = rsql_now_ms() + 1000;
    for (;;) {
        int64_t wait = next - rsql_now_ms();
        if (wait < 0) {
            wait = 0;
        }
        gpr_timespec dl = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                       gpr_time_from_millis(wait, GPR_TIMESPAN));
        grpc_event ev = grpc_completion_queue_next(c->cq, dl, NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) {
            break;
        }
        if (ev.type == GRPC_OP_COMPLETE) {
            rsql_rmq__call_handle(c, ev.tag, ev.success != 0);
            /* a completion may schedule the Telemetry re-open (rsql_rmq__tele_broken): wake
               for it, not only at the timer computed before (up to a heartbeat away) */
            pthread_mutex_lock(&c->mu);
            if (c->telemetry_reopen_at && c->telemetry_reopen_at < next) {
                next = c->telemetry_reopen_at;
            }
            /* ... and a Settings re-send (rsql_rmq__tele_settings_lost, from a completion) */
            if (c->settings_resend_at && c->settings_resend_at < next) {
                next = c->settings_resend_at;
            }
            pthread_mutex_unlock(&c->mu);
        }
        if (rsql_now_ms() >= next || ev.type == GRPC_QUEUE_TIMEOUT) {
            next = run_timers(c);
        }
    }
    return NULL;
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

/* See rmq_client.h. */
int rsql_rmq_recv_limit(size_t max_body_bytes)
{
    size_t body = max_body_bytes > RMQ_DEFAULT_MAX_BODY ? max_body_bytes : RMQ_DEFAULT_MAX_BODY;
    if (body > RMQ_MAX_BODY_LIMIT) {
        body = RMQ_MAX_BODY_LIMIT;
    }
    return (int)(body + RMQ_RECV_OVERHEAD);
}

static void stop_thread(rsql_rmq_client_t *c)
{
    /* Cancel whatever is still in flight and wait until every call has completed. */
    pthread_mutex_lock(&c->mu);
    c->closing = true;
    for (rmq_call_t *k = c->active; k; k = k->next) {
        grpc_call_cancel(k->gcall, NULL);
    }
    while (c->n_active > 0) {
        pthread_cond_wait(&c->cond, &c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    grpc_completion_queue_shutdown(c->cq);
    pthread_join(c->thread, NULL);
    c->thread_started = false;
    grpc_completion_queue_destroy(c->cq);
    c->cq = NULL;
    if (!c->chan_owner) {
        grpc_channel_destroy(c->channel);
    }
    c->channel = NULL;
    grpc_shutdown();
}

static void start_route_cb(rsql_rmq_client_t *c, const rsql_error_t *err, void *opaque)
{
    rsql_rmq__sync_signal(opaque, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_client_start(rsql_rmq_client_t *c, rsql_error_t *err)
{
    if (c->started || c->thread_started) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "RocketMQ client already started");
    }
    grpc_init();
    c->closing = false;
    if (c->chan_owner && !c->chan_owner->channel) {
        grpc_shutdown();
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ client: the client whose channel it shares is not started");
    }
    /* another identity of this process shares its owner's channel (calls carry the client id) */
    c->channel = c->chan_owner ? c->chan_owner->channel : rsql_rmq__channel_create(c);
    c->cq = grpc_completion_queue_create_for_next(NULL);
    /* its lines carry the job and run of the pipeline that opened the client */
    if (rsql_log_thread_create(&c->thread, client_thread, c) != 0) {
        grpc_completion_queue_shutdown(c->cq);
        grpc_completion_queue_destroy(c->cq);
        if (!c->chan_owner) {
            grpc_channel_destroy(c->channel);
        }
        grpc_shutdown();
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "cannot start the RocketMQ client thread: %s", strerror(errno));
    }
    c->thread_started = true;
    rsql_err_t rc = RSQL_OK;
    /* 1. routes, three attempts each */
    for (size_t i = 0; rc == RSQL_OK && i < c->n_topics; i++) {
        for (int attempt = 1;; attempt++) {
            rsql_error_t e;
            rsql_error_clear(&e);
            rmq_sync_t s;
            rsql_rmq__sync_init(&s);
            rc = rsql_rmq__sync_wait(
                &s, rsql_rmq__start_route(c, c->topics[i], start_route_cb, &s, &e), &e);
            if (rc == RSQL_OK) {
                break;
            }
            if (attempt >= 3 || !rsql_error_retriable(&e)) {
                rsql_error_copy(err, &e);
                break;
            }
            usleep(200000u * (unsigned)attempt);
            rc = RSQL_OK;
        }
    }
    /* 2. Telemetry + Settings, wait for the server's Settings */
    if (rc == RSQL_OK) {
        rsql_error_clear(&c->telemetry_err);
        rc = rsql_rmq__tele_open(c, err);
    }
    if (rc == RSQL_OK) {
        int64_t wait_ms = 3000 + c->request_timeout_ms;
        int64_t dl = rsql_deadline_in(wait_ms);
        pthread_mutex_lock(&c->mu);
        while (!c->settings.received && c->telemetry_err.code == RSQL_OK) {
            if (rsql_cond_wait_until(&c->cond, &c->mu, dl) == ETIMEDOUT) {
                break;
            }
        }
        if (!c->settings.received) {
            if (c->telemetry_err.code != RSQL_OK) {
                rsql_error_copy(err, &c->telemetry_err);
                rc = c->telemetry_err.code;
            } else {
                rc = rsql_error_set(err, RSQL_ERR_TIMEOUT, RSQL_NOPOS,
                                    "RocketMQ: no Settings reply from %s within %lld ms",
                                    c->target, (long long)wait_ms);
            }
        }
        pthread_mutex_unlock(&c->mu);
    }
    /* 3. a first heartbeat (registers consumers; surfaces a refused client type) */
    if (rc == RSQL_OK) {
        rmq_sync_t s;
        rsql_rmq__sync_init(&s);
        rc = rsql_rmq__sync_wait(
            &s, rsql_rmq__start_heartbeat(c, rsql_rmq__sync_status_cb, &s, err), err);
    }
    /* 4. lite consumers: COMPLETE_ADD of the (initially empty) lite set; with a wildcard group
       this is what starts the delivery of every lite topic under the bind topic. */
    if (rc == RSQL_OK && rsql_rmq__is_lite(c)) {
        rmq_sync_t s;
        rsql_rmq__sync_init(&s);
        rc = rsql_rmq__sync_wait(
            &s, rsql_rmq__lite_resync(c, rsql_rmq__sync_status_cb, &s, err), err);
    }
    if (rc != RSQL_OK) {
        stop_thread(c);
        pthread_mutex_lock(&c->mu);
        c->settings.received = false;
        pthread_mutex_unlock(&c->mu);
        return rc;
    }
    int64_t now = rsql_now_ms();
    pthread_mutex_lock(&c->mu);
    c->started = true;
    c->next_heartbeat = now + RMQ_HEARTBEAT_MS;
    c->next_route = now + c->route_refresh_ms;
    c->next_settings = now + RMQ_SETTINGS_SYNC_MS;
    c->next_lite = now + RMQ_LITE_SYNC_MS;
    pthread_mutex_unlock(&c->mu);
    return RSQL_OK;
}

/* See rmq_client.h. */
void rsql_rmq_client_destroy(rsql_rmq_client_t *c)
{
    if (!c) {
        return;
    }
    if (c->thread_started) {
        if (c->started) {
            /* NotifyClientTermination, then half-close Telemetry. */
            rmq_sync_t s;
            rsql_rmq__sync_init(&s);
            rsql_err_t rc =
                rsql_rmq__start_notify_termination(c, rsql_rmq__sync_status_cb, &s, NULL);
            rsql_rmq__sync_wait(&s, rc, NULL);
            pthread_mutex_lock(&c->mu);
            c->closing = true;
            pthread_mutex_unlock(&c->mu);
            rsql_rmq__tele_write(c, NULL);
            /* Give the server a moment to end the stream after our half-close. */
            int64_t dl = rsql_deadline_in(1000);
            pthread_mutex_lock(&c->mu);
            while (c->telemetry) {
                if (rsql_cond_wait_until(&c->cond, &c->mu, dl) == ETIMEDOUT) {
                    break;
                }
            }
            pthread_mutex_unlock(&c->mu);
        }
        stop_thread(c);
    }
    client_free(c);
}
