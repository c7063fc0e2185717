/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_identity: starting and retiring the client identities of the rocketmq-grpc source (lite
 * mode; rmq_source.c's file comment says what an identity is). Open starts
 * `source.lite-clients-min` of them; afterwards the housekeeping thread calls
 * rsql_rmq__identities_step, which follows the number rmq_lite_ids.c asks for (it grows on a
 * full dispatch round, which recv_cb reports, and shrinks after a quiet time):
 *   - growing: a retiring identity is taken back first, else a new client is started in a free
 *     slot (its client id, Telemetry stream, Settings, heartbeat, COMPLETE_ADD; the explicit
 *     lite topics subscribed), one per step, with s->mu released while it starts;
 *   - shrinking: the highest extra identities become CI_RETIRING: no new long poll goes to
 *     them. One is stopped (NotifyClientTermination: the broker hands the lite topics it still
 *     had queued for it to the others) only once its long polls have come back and every message
 *     it received is freed (acked, forwarded, released or deferred and done: ci_busy == 0), so no
 *     ack, renewal or deferral ever needs a client that is gone, and nothing in flight is lost.
 * Slot 0 (the channel's owner) is never retired. One info line per change names the count.
 *
 * It must not resolve messages or start receives (rmq_housekeeping.c does), nor call the client
 * with s->mu held.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_source_int.h"

#include <string.h>

#include "base/rsql_log.h"
#include "base/rsql_mem.h"

/* See rmq_source_int.h. */
bool rsql_rmq__identity_keep(rsql_source_t *s, const rsql_rmq_config_t *conf, char **lt,
                             size_t n_lt)
{
    s->cconf = *conf;
    s->lt = lt;
    s->n_lt = n_lt;
    const char **f[] = {&s->cconf.endpoints,       &s->cconf.name_space,
                        &s->cconf.access_key,      &s->cconf.secret_key,
                        &s->cconf.tls_ca_file,     &s->cconf.tls_server_name,
                        &s->cconf.tls_cert_file,   &s->cconf.tls_key_file,
                        &s->cconf.group,           &s->cconf.filter_expression,
                        &s->ctopics[0]};
    _Static_assert(sizeof f / sizeof f[0] == sizeof s->cstr / sizeof s->cstr[0],
                   "one owned string per field");
    s->ctopics[0] = conf->n_topics > 0 ? conf->topics[0] : NULL;
    bool ok = true;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (*f[i]) {
            s->cstr[i] = rsql_strdup(*f[i]);
            ok &= s->cstr[i] != NULL;
            *f[i] = s->cstr[i];
        }
    }
    s->cconf.topics = s->ctopics;
    s->cconf.n_topics = s->ctopics[0] ? 1 : 0;
    s->cconf.share_channel = NULL;
    return ok;
}

/* See rmq_source_int.h. */
void rsql_rmq__identity_forget(rsql_source_t *s)
{
    for (size_t i = 0; i < sizeof s->cstr / sizeof s->cstr[0]; i++) {
        rsql_free(s->cstr[i]);
        s->cstr[i] = NULL;
    }
    for (size_t i = 0; s->lt && i < s->n_lt; i++) {
        rsql_free(s->lt[i]);
    }
    rsql_free(s->lt);
    s->lt = NULL;
    s->n_lt = 0;
    for (int i = 0; i < RMQ_MAX_CLIENTS; i++) {
        rsql_rmq_round_deinit(&s->rounds[i]);
    }
}

/* See rmq_source_int.h. */
rsql_err_t rsql_rmq__identity_start(rsql_source_t *s, int slot, rsql_error_t *err)
{
    rsql_rmq_config_t conf = s->cconf;
    conf.share_channel = slot > 0 ? s->clis[0] : NULL;
    rsql_rmq_client_t *cli = rsql_rmq_client_new(&conf, err);
    if (!cli) {
        return err && err->code ? err->code : RSQL_ERR_INTERNAL;
    }
    rsql_err_t rc = rsql_rmq_client_start(cli, err);
    if (rc == RSQL_OK && s->n_lt > 0) {
        rc = rsql_rmq_sync_lite_sync(cli, RSQL_RMQ_LITE_PARTIAL_ADD,
                                     (const char *const *)s->lt, s->n_lt, err);
    }
    if (rc != RSQL_OK) {
        rsql_rmq_client_destroy(cli);
        return rc;
    }
    pthread_mutex_lock(&s->mu);
    s->clis[slot] = cli;
    s->cli = s->clis[0];
    s->ci_state[slot] = CI_ACTIVE;
    s->ci_busy[slot] = 0;
    s->recv_per[slot] = 0;
    s->n_active++;
    s->n_clis = slot + 1 > s->n_clis ? slot + 1 : s->n_clis;
    rsql_rmq_round_reset(&s->rounds[slot]);
    pthread_mutex_unlock(&s->mu);
    return RSQL_OK;
}

/* A free slot (the lowest), or -1. @locks s->mu held */
static int free_slot(const rsql_source_t *s)
{
    for (int i = 1; i < RMQ_MAX_CLIENTS; i++) {
        if (s->ci_state[i] == CI_NONE && !s->clis[i]) {
            return i;
        }
    }
    return -1;
}

/* Grow by one: a retiring identity back in use, or a new one started. @locks s->mu held */
static void grow_one(rsql_source_t *s)
{
    for (int i = s->n_clis - 1; i > 0; i--) {
        if (s->ci_state[i] == CI_RETIRING) {
            s->ci_state[i] = CI_ACTIVE;
            s->n_active++;
            rsql_rmq_round_reset(&s->rounds[i]);
            int n = s->n_active;
            pthread_mutex_unlock(&s->mu);
            rsql_log(RSQL_LOG_INFO, "rocketmq",
                     "rocketmq-grpc source: client identity %d kept (no longer retiring): %d "
                     "in use",
                     i, n);
            pthread_mutex_lock(&s->mu);
            return;
        }
    }
    int slot = free_slot(s);
    if (slot < 0) {
        rsql_rmq_ids_failed(&s->ids, s->n_active);
        return;
    }
    pthread_mutex_unlock(&s->mu);
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_err_t rc = rsql_rmq__identity_start(s, slot, &e);
    pthread_mutex_lock(&s->mu);
    int n = s->n_active, want = s->ids.target;
    if (rc != RSQL_OK) {
        rsql_rmq_ids_failed(&s->ids, s->n_active); /* the next full round tries again */
    }
    pthread_mutex_unlock(&s->mu);
    if (rc == RSQL_OK) {
        rsql_log(RSQL_LOG_INFO, "rocketmq",
                 "rocketmq-grpc source: client identity %d started (%s): %d in use, %d wanted",
                 slot, rsql_rmq_client_id(s->clis[slot]), n, want);
    } else {
        rsql_log(RSQL_LOG_WARN, "rocketmq",
                 "rocketmq-grpc source: could not start client identity %d (%s): %d in use", slot,
                 e.msg, n);
    }
    pthread_mutex_lock(&s->mu);
}

/* See rmq_source_int.h. */
bool rsql_rmq__identities_step(rsql_source_t *s, int64_t now, int64_t *wake)
{
    if (!s->lite || s->closing || s->stopping) {
        return false;
    }
    if (rsql_rmq_ids_tick(&s->ids, now)) {
        int want = s->ids.target;
        pthread_mutex_unlock(&s->mu);
        rsql_log(RSQL_LOG_INFO, "rocketmq",
                 "rocketmq-grpc source: no dispatch round full for %d s: back to %d client "
                 "identit%s",
                 RSQL_RMQ_IDS_SHRINK_MS / 1000, want, want == 1 ? "y" : "ies");
        pthread_mutex_lock(&s->mu);
    }
    int64_t next = rsql_rmq_ids_next(&s->ids);
    *wake = next < *wake ? next : *wake;
    if (s->n_active < s->ids.target) {
        grow_one(s);
        return true;
    }
    if (s->n_active > s->ids.target) {
        for (int i = s->n_clis - 1; i > 0 && s->n_active > s->ids.target; i--) {
            if (s->ci_state[i] == CI_ACTIVE) {
                s->ci_state[i] = CI_RETIRING; /* no new long poll goes to it */
                s->n_active--;
            }
        }
        return true;
    }
    for (int i = s->n_clis - 1; i > 0; i--) {
        if (s->ci_state[i] != CI_RETIRING || s->recv_per[i] > 0 || s->ci_busy[i] > 0) {
            continue;
        }
        /* nothing of it is left in flight or held: stop it */
        rsql_rmq_client_t *cli = s->clis[i];
        s->clis[i] = NULL;
        s->ci_state[i] = CI_NONE;
        while (s->n_clis > 1 && !s->clis[s->n_clis - 1]) {
            s->n_clis--;
        }
        int n = s->n_active;
        pthread_mutex_unlock(&s->mu);
        rsql_rmq_client_destroy(cli);
        rsql_log(RSQL_LOG_INFO, "rocketmq",
                 "rocketmq-grpc source: client identity %d retired: %d in use", i, n);
        pthread_mutex_lock(&s->mu);
        return true;
    }
    return false;
}
