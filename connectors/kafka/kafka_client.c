/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * kafka_client: what the kafka source and sink share on librdkafka: a configuration made
 * from the table's options (bootstrap.servers, properties.* passed through), the last error
 * librdkafka reported (for messages at start), the partitions of a topic (which is also how
 * an unreachable cluster or a missing topic is found, fast and with a clear message), and
 * the mapping of librdkafka's error codes to rsql's.
 */
#include "config.h"
#include "connectors/kafka/kafka_conf.h"
#include "base/rsql_log.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* librdkafka's error callback: keep the last message (its own thread). */
static void error_cb(rd_kafka_t *rk, int e, const char *reason, void *opaque)
{
    (void)rk;
    rsql_kafka_errbox_t *box = opaque;
    if (!box) {
        return;
    }
    pthread_mutex_lock(&box->mu);
    snprintf(box->msg, sizeof box->msg, "%s: %s", rd_kafka_err2name((rd_kafka_resp_err_t)e),
             reason);
    pthread_mutex_unlock(&box->mu);
}

/*
** librdkafka's log lines (from its own threads): kept as the handle's last error when they
** are errors or warnings (a refused connection is only logged), and passed to rsql's logger at
** info level, since what matters reaches the job as an error of its own.
*/
static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    rsql_kafka_errbox_t *box = rk ? rd_kafka_opaque(rk) : NULL;
    if (box && level <= 4) {
        pthread_mutex_lock(&box->mu);
        snprintf(box->msg, sizeof box->msg, "%s", buf);
        pthread_mutex_unlock(&box->mu);
    }
    rsql_log(RSQL_LOG_INFO, "kafka", "librdkafka %s: %s", fac, buf);
}

void rsql_kafka__last_error(rsql_kafka_errbox_t *box, char *buf, size_t size)
{
    pthread_mutex_lock(&box->mu);
    snprintf(buf, size, "%s", box->msg);
    pthread_mutex_unlock(&box->mu);
}

static rsql_err_t set1(rd_kafka_conf_t *kc, const char *key, const char *name,
                       const char *value, bool secret, rsql_error_t *err)
{
    char why[256];
    if (rd_kafka_conf_set(kc, name, value, why, sizeof why) != RD_KAFKA_CONF_OK) {
        if (secret && strlen(value) >= RSQL_OPT_MASK_MIN_LEN) {
            rsql_opt_mask_secret(why, sizeof why, value, strlen(value)); /* librdkafka echoes it */
        }
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "kafka: option '%s'%s%s%s refused by librdkafka: %s", key,
                              secret ? "" : " = '", secret ? "" : value, secret ? "" : "'", why);
    }
    return RSQL_OK;
}

rd_kafka_conf_t *rsql_kafka__conf_new(const rsql_kafka_conf_t *c, const rsql_optset_t *opts,
                                      const char *const *extra, int n_extra,
                                      rsql_kafka_errbox_t *box, rsql_error_t *err)
{
    rd_kafka_conf_t *kc = rd_kafka_conf_new();
    if (!kc) {
        rsql_error_nomem(err);
        return NULL;
    }
    rd_kafka_conf_set_opaque(kc, box);
    rd_kafka_conf_set_error_cb(kc, error_cb);
    rd_kafka_conf_set_log_cb(kc, log_cb);
    rsql_err_t rc = set1(kc, "properties.bootstrap.servers", "bootstrap.servers", c->servers,
                         false, err);
    for (int i = 0; rc == RSQL_OK && i < rsql_optset_count(opts); i++) {
        const rsql_opt_kv_t *kv = rsql_optset_at(opts, i);
        if (strncasecmp(kv->key, "properties.", 11) != 0 ||
            strcasecmp(kv->key, "properties.bootstrap.servers") == 0 ||
            strcasecmp(kv->key, "properties.group.id") == 0) {
            continue;
        }
        const rsql_opt_def_t *d = rsql_optset_def_at(opts, i);
        rc = set1(kc, kv->key, kv->key + 11, kv->value, d && (d->flags & RSQL_OPT_F_SECRET), err);
    }
    if (rc == RSQL_OK && c->group_id) {
        rc = set1(kc, "properties.group.id", "group.id", c->group_id, false, err);
    }
    for (int i = 0; rc == RSQL_OK && i < n_extra; i++) {
        rc = set1(kc, extra[2 * i], extra[2 * i], extra[2 * i + 1], false, err);
    }
    if (rc != RSQL_OK) {
        rd_kafka_conf_destroy(kc);
        return NULL;
    }
    return kc;
}

rsql_err_t rsql_kafka__topic_partitions(rd_kafka_t *rk, const rsql_kafka_conf_t *c,
                                        rsql_kafka_errbox_t *box, const char *where,
                                        const char *topic, int *n_partitions, rsql_error_t *err)
{
    rd_kafka_topic_t *t = rd_kafka_topic_new(rk, topic, NULL);
    if (!t) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS, "kafka: bad topic name '%s'",
                              topic);
    }
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t, &md, (int)c->timeout_ms);
    rd_kafka_topic_destroy(t);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        char last[256];
        rsql_kafka__last_error(box, last, sizeof last);
        /* permanent: a job that cannot reach its cluster at its start says so at once */
        return rsql_error_set(err, RSQL_ERR_REMOTE, RSQL_NOPOS,
                              "kafka %s: cannot reach the brokers '%s' (topic '%s', "
                              "connect.timeout %lld ms): %s%s%s",
                              where, c->servers, topic, (long long)c->timeout_ms,
                              rd_kafka_err2str(e), last[0] ? "; librdkafka: " : "", last);
    }
    rsql_err_t rc = RSQL_OK;
    if (md->topic_cnt < 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rd_kafka_resp_err_t te = md->topic_cnt < 1 ? RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
                                                   : md->topics[0].err;
        bool missing = te == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
        rc = rsql_error_set(err, missing ? RSQL_ERR_NOT_FOUND : rsql_kafka__err_code(te),
                            RSQL_NOPOS, "kafka %s: topic '%s' on '%s': %s%s", where, topic,
                            c->servers, rd_kafka_err2str(te),
                            missing ? " (the connector does not create topics)" : "");
    } else {
        *n_partitions = md->topics[0].partition_cnt;
    }
    rd_kafka_metadata_destroy(md);
    return rc;
}

rsql_err_t rsql_kafka__err_code(rd_kafka_resp_err_t e)
{
    switch (e) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
        return RSQL_OK;
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
        return RSQL_ERR_TIMEOUT;
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
        return RSQL_ERR_UNAVAILABLE;
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
        return RSQL_ERR_TOO_LARGE;
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
        return RSQL_ERR_PERMISSION;
    default:
        return RSQL_ERR_REMOTE;
    }
}

int rsql_kafka__key_columns(const char *key_fields, int n_columns, const char *const *names,
                            int *cols, rsql_error_t *err)
{
    int n = 0;
    const char *p = key_fields ? key_fields : "";
    while (*p) {
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int col = -1;
        for (int i = 0; i < n_columns && col < 0; i++) {
            if (strlen(names[i]) == len && strncasecmp(names[i], p, len) == 0) {
                col = i;
            }
        }
        if (col < 0 || n == RSQL_KAFKA_MAX_KEY) {
            rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                           col < 0 ? "kafka: option 'key.fields': unknown column '%.*s'"
                                   : "kafka: option 'key.fields': more than 64 columns at '%.*s'",
                           (int)len, p);
            return -1;
        }
        cols[n++] = col;
        p = e ? e + 1 : p + len;
    }
    return n;
}
