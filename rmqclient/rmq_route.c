/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_route: routes and lite subscription sets. QueryRoute of a topic (at start, every 30 s from
 * the client thread's timer, and before the first send to a topic), the store of the routes it
 * returns, the type a topic takes (rsql_rmq_topic_type), and the choice of a readable master
 * queue for ReceiveMessage (round robin). Lite consumers: the local lite set that
 * SyncLiteSubscription changes (rsql_rmq_sync_lite) and the server's
 * NotifyUnsubscribeLiteCommand shrinks, re-sent whole as COMPLETE_ADD every 30 s.
 *
 * It owns c->routes and c->lite_set (always under c->mu); it must not start timers, touch calls
 * other than through rmq_call.c, or free the client's route and lite storage at close
 * (rmq_client.c does).
 */
#include "config.h"

#include <string.h>

#include "rmqclient/rmq_client_int.h"
#include "base/rsql_mem.h"

/* ---- routes -------------------------------------------------------------------------------- */

/* See rmq_client_int.h. */
void rsql_rmq__route_store(rsql_rmq_client_t *c, const char *topic, rmq_route_t *route)
{
    pthread_mutex_lock(&c->mu);
    rmq_topic_route_t *tr = NULL;
    for (size_t i = 0; i < c->n_routes; i++) {
        if (strcmp(c->routes[i].topic, topic) == 0) {
            tr = &c->routes[i];
        }
    }
    if (!tr) {
        rmq_topic_route_t *nr = rsql_realloc(c->routes, (c->n_routes + 1) * sizeof(*nr));
        char *t = rsql_strdup(topic);
        if (nr) {
            c->routes = nr;
        }
        if (!nr || !t) {
            rsql_free(t);
            pthread_mutex_unlock(&c->mu);
            rsql_rmq__route_deinit(route);
            return;
        }
        tr = &c->routes[c->n_routes++];
        memset(tr, 0, sizeof(*tr));
        tr->topic = t;
    }
    rsql_rmq__route_deinit(&tr->route);
    tr->route = *route;
    memset(route, 0, sizeof(*route));
    pthread_mutex_unlock(&c->mu);
}

/* See rmq_client_int.h. */
rsql_err_t rsql_rmq__start_route(rsql_rmq_client_t *c, const char *topic,
                                 void (*cb)(rsql_rmq_client_t *, const rsql_error_t *, void *),
                                 void *opaque, rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    if (rsql_rmq__enc_query_route(c->name_space, topic, c->ap, c->n_ap, &b, err) != RSQL_OK ||
        rsql_rmq__start_simple(c, RMQ_RPC_QUERY_ROUTE, &b, &k, err) != RSQL_OK) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    k->api = API_ROUTE;
    k->cb.route = cb;
    k->opaque = opaque;
    k->topic = rsql_strdup(topic);
    return rsql_rmq__call_start(k, err);
}

/* See rmq_client_int.h. */
bool rsql_rmq__route_known(rsql_rmq_client_t *c, const char *topic)
{
    bool known = false;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n_routes && !known; i++) {
        known = strcmp(c->routes[i].topic, topic) == 0;
    }
    pthread_mutex_unlock(&c->mu);
    return known;
}

/* See rmq_client.h: the type the first queue that names one accepts. */
rsql_rmq_msg_type_t rsql_rmq_topic_type(rsql_rmq_client_t *c, const char *topic)
{
    int32_t t = 0;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n_routes && !t; i++) {
        if (strcmp(c->routes[i].topic, topic) != 0) {
            continue;
        }
        const rmq_route_t *r = &c->routes[i].route;
        for (size_t j = 0; j < r->n_queues && !t; j++) {
            t = r->queues[j].n_accept_types ? r->queues[j].accept_types[0] : 0;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return (rsql_rmq_msg_type_t)t;
}

/* Pick a readable master queue of topic (round-robin); copies it into *q (caller deinit). */
rsql_err_t rsql_rmq__pick_queue(rsql_rmq_client_t *c, const char *topic, rmq_route_t *one,
                                rsql_error_t *err)
{
    memset(one, 0, sizeof(*one));
    pthread_mutex_lock(&c->mu);
    const char *t = topic;
    if (!t) {
        t = c->n_topics ? c->topics[c->topic_rr++ % c->n_topics] : "";
    }
    rmq_topic_route_t *tr = NULL;
    for (size_t i = 0; i < c->n_routes; i++) {
        if (strcmp(c->routes[i].topic, t) == 0) {
            tr = &c->routes[i];
        }
    }
    const rmq_queue_t *sel = NULL;
    for (size_t i = 0; tr && i < tr->route.n_queues && !sel; i++) {
        const rmq_queue_t *q = &tr->route.queues[(tr->rr + i) % tr->route.n_queues];
        if ((q->permission == RSQL_RMQ_PERM_READ || q->permission == RSQL_RMQ_PERM_READ_WRITE) &&
            q->broker_id == RSQL_RMQ_MASTER_BROKER_ID) {
            sel = q;
            tr->rr = (unsigned)((tr->rr + i + 1) % tr->route.n_queues);
        }
    }
    rsql_err_t rc = RSQL_OK;
    if (!sel) {
        rc = rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                            "RocketMQ: no readable queue known for topic '%s'", t);
    } else {
        rmq_queue_t *q = rsql_calloc(1, sizeof(*q));
        bool oom = !q;
        if (q) {
            one->queues = q;
            one->n_queues = 1;
            q->topic = rsql_strdup(sel->topic);
            q->id = sel->id;
            q->permission = sel->permission;
            q->broker_name = rsql_strdup(sel->broker_name ? sel->broker_name : "");
            q->broker_id = sel->broker_id;
            q->scheme = sel->scheme;
            oom = !q->topic || !q->broker_name;
            if (sel->n_addrs && (q->addrs = rsql_calloc(sel->n_addrs, sizeof(rmq_addr_t)))) {
                for (size_t i = 0; i < sel->n_addrs; i++) {
                    q->addrs[i].host = rsql_strdup(sel->addrs[i].host);
                    q->addrs[i].port = sel->addrs[i].port;
                    q->n_addrs++;
                    oom = oom || !q->addrs[i].host;
                }
            } else if (sel->n_addrs) {
                oom = true;
            }
            if (sel->n_accept_types &&
                (q->accept_types = rsql_calloc(sel->n_accept_types, sizeof(int32_t)))) {
                memcpy(q->accept_types, sel->accept_types, sel->n_accept_types * sizeof(int32_t));
                q->n_accept_types = sel->n_accept_types;
            }
        }
        if (oom) {
            rsql_rmq__route_deinit(one);
            rc = rsql_error_nomem(err);
        }
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* ---- lite subscription sets ---------------------------------------------------------------- */

/* See rmq_client_int.h. */
bool rsql_rmq__is_lite(const rsql_rmq_client_t *c)
{
    return c->type == RSQL_RMQ_LITE_PUSH_CONSUMER || c->type == RSQL_RMQ_LITE_SIMPLE_CONSUMER;
}

/* Drop t from the local lite set. @locks c->mu held */
void rsql_rmq__lite_remove0(rsql_rmq_client_t *c, const char *t)
{
    for (size_t i = 0; i < c->n_lite_set; i++) {
        if (strcmp(c->lite_set[i], t) == 0) {
            rsql_free(c->lite_set[i]);
            c->lite_set[i] = c->lite_set[--c->n_lite_set];
            return;
        }
    }
}

/* Apply an action to the local lite set (what the periodic COMPLETE_ADD re-sends). */
static void lite_apply(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                       const char *const *topics, size_t n)
{
    pthread_mutex_lock(&c->mu);
    if (action == RSQL_RMQ_LITE_COMPLETE_ADD || action == RSQL_RMQ_LITE_COMPLETE_REMOVE) {
        while (c->n_lite_set) {
            rsql_free(c->lite_set[--c->n_lite_set]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        rsql_rmq__lite_remove0(c, topics[i]);
        if (action == RSQL_RMQ_LITE_PARTIAL_ADD || action == RSQL_RMQ_LITE_COMPLETE_ADD) {
            char **ns = rsql_realloc(c->lite_set, (c->n_lite_set + 1) * sizeof(char *));
            char *d = rsql_strdup(topics[i]);
            if (ns) {
                c->lite_set = ns;
            }
            if (ns && d) {
                c->lite_set[c->n_lite_set++] = d;
            } else {
                rsql_free(d);
            }
        }
    }
    pthread_mutex_unlock(&c->mu);
}

/* COMPLETE_ADD of the whole local lite set (empty for a wildcard group). */
rsql_err_t rsql_rmq__lite_resync(rsql_rmq_client_t *c, rsql_rmq_status_cb cb, void *opaque,
                                 rsql_error_t *err)
{
    rmq_bytes_t b;
    rmq_call_t *k;
    pthread_mutex_lock(&c->mu);
    rsql_err_t rc = rsql_rmq__enc_sync_lite(c->name_space, RSQL_RMQ_LITE_COMPLETE_ADD,
                                            c->topics[0], c->group,
                                            (const char *const *)c->lite_set, c->n_lite_set, &b,
                                            err);
    pthread_mutex_unlock(&c->mu);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_SYNC_LITE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    return rsql_rmq__call_start(k, err);
}

/* See rmq_client.h. */
rsql_err_t rsql_rmq_sync_lite(rsql_rmq_client_t *c, rsql_rmq_lite_action_t action,
                              const char *const *lite_topics, size_t n, rsql_rmq_status_cb cb,
                              void *opaque, rsql_error_t *err)
{
    if (!c->group || c->n_topics != 1) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "RocketMQ lite subscription needs a consumer with one bind topic");
    }
    rmq_bytes_t b;
    rmq_call_t *k;
    rsql_err_t rc = rsql_rmq__enc_sync_lite(c->name_space, (int32_t)action, c->topics[0],
                                            c->group, lite_topics, n, &b, err);
    if (rc != RSQL_OK ||
        (rc = rsql_rmq__start_simple(c, RMQ_RPC_SYNC_LITE, &b, &k, err)) != RSQL_OK) {
        return rc;
    }
    k->api = API_STATUS;
    k->cb.status = cb;
    k->opaque = opaque;
    rc = rsql_rmq__call_start(k, err);
    if (rc == RSQL_OK) {
        lite_apply(c, action, lite_topics, n);
    }
    return rc;
}
