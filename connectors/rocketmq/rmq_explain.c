/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_explain: what the rocketmq-grpc connector tells the planner: when a
 * read ends by itself (scan.idle-timeout) and the lines EXPLAIN prints for
 * its source (mode, receive, throttle, valves, acks) and sink (producer),
 * the long polls on the Threads line and the native DLQ on the Errors line
 * (rsql_connector_def_t.bounded / .explain); and what a run may leave
 * invisible to the next one: its consumer group's held messages, for up to
 * source.invisible-duration (.hold). A changelog's sink says whether the order of one key's
 * changes holds (rmq_changelog.c). Planning-time only: it reads the
 * table's typed configuration, never the data path's state.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "base/rsql_buf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *dur(int64_t ms, char *buf, size_t size)
{
    return rsql_opt_format_duration(ms, buf, size);
}

/* See rsql_connector_def_t.bounded. */
bool rsql_rmq__bounded(const void *conf, const char **why)
{
    const rsql_rmq_conf_t *c = conf;
    if (c->idle_timeout_given) {
        *why = "bounded (ends after scan.idle-timeout without messages)";
        return true;
    }
    *why = "unbounded (no scan.idle-timeout)";
    return false;
}

/* See rsql_connector_def_t.hold: the messages a consumer group holds stay invisible for up to
   source.invisible-duration after the last receive or renewal. */
int64_t rsql_rmq__hold(const void *conf, char *key, size_t size)
{
    const rsql_rmq_conf_t *c = conf;
    if (!c || !c->group || !c->topic || size == 0) {
        return 0;
    }
    bool ns = c->namespace_ && *c->namespace_;
    int n = snprintf(key, size, "consumer group %s of topic %s%s%s%s at %s", c->group, c->topic,
                     ns ? " (namespace " : "", ns ? c->namespace_ : "", ns ? ")" : "",
                     c->endpoints ? c->endpoints : "");
    if (n < 0 || (size_t)n >= size) {
        key[0] = '\0';
        return 0;
    }
    return c->invisible_ms;
}

static void source_lines(const rsql_explain_t *x, const rsql_rmq_conf_t *c)
{
    char b1[32], b2[32];
    bool lite = c->mode == RSQL_RMQ_MODE_LITE;
    if (lite && c->lite_topics) {
        x->attr(x, "mode", "lite (lite topics %s under '%s')", c->lite_topics, c->topic);
    } else if (lite) {
        x->attr(x, "mode", "lite (every lite topic under '%s')", c->topic);
    } else {
        x->attr(x, "mode", "simple (topic '%s', %s filter '%s')", c->topic,
                rsql_rmq_filter_types[c->filter_type], c->filter_expression);
    }
    /* what every identity has, whatever their number */
    static const char each[] = "(own client id, Telemetry stream, heartbeat, lite subscription "
                               "and long polls each; one connection)";
    int64_t start = rsql_rmq_lite_start(c);
    if (lite && start == c->lite_clients && c->lite_clients > c->lite_clients_min) {
        x->attr(x, "clients",
                "%" PRId64 " client identities at first, back to %" PRId64 " after 30s without "
                "a full dispatch round %s",
                start, c->lite_clients_min, each);
    } else if (lite && c->lite_clients > c->lite_clients_min) {
        x->attr(x, "clients",
                "%" PRId64 " client identit%s at first, up to %" PRId64 " while the broker's "
                "dispatch rounds come back full (a backlog over many lite topics), back to %" PRId64
                " after 30s without a full round %s",
                start, start == 1 ? "y" : "ies", c->lite_clients, c->lite_clients_min, each);
    } else if (lite) {
        x->attr(x, "clients", "%" PRId64 " client identit%s %s", c->lite_clients,
                c->lite_clients == 1 ? "y" : "ies", each);
    }
    x->attr(x, "receive",
            "1 to %" PRId64 " concurrent long polls%s (adaptive: doubled while they come back "
            "full, halved while empty; ReceiveMessage, up to %" PRId64
            " messages, await %s), invisible duration %s",
            c->fetch_concurrency, lite && c->lite_clients > 1 ? " per identity" : "",
            c->batch_size, dur(c->await_ms, b1, sizeof b1),
            dur(c->invisible_ms, b2, sizeof b2));
    if (lite && c->throttled) {
        rsql_buf_t t = RSQL_BUF_INIT;
        if (c->max_inflight_per_lite > 0) {
            rsql_buf_printf(&t, "max %" PRId64 " in flight per lite topic",
                            c->max_inflight_per_lite);
        } else {
            rsql_buf_puts(&t, "no in-flight limit");
        }
        if (c->rate_per_lite_given) {
            rsql_buf_printf(&t, ", at most %.15g/s per lite topic (token bucket)",
                            c->rate_per_lite);
        }
        rsql_buf_printf(&t,
                        "; a message over its lite topic's share is deferred as it is received "
                        "(ChangeInvisibleDuration with its lite topic, counted as a delivery "
                        "attempt; not held, not acked) by %s, doubling per delivery attempt%s",
                        dur(c->defer_ms, b1, sizeof b1),
                        c->rate_per_lite_given
                            ? " (over the rate: later still, so that a lite topic's deferred "
                              "messages come back spaced at its rate)"
                            : "");
        x->attr(x, "throttle", "%s", rsql_buf_str(&t));
        rsql_buf_deinit(&t);
        x->attr(x, "valves",
                "a message at delivery attempt %" PRId64
                " is processed, never deferred again; no deferral exceeds %s",
                c->max_delivery_attempts, dur(c->max_invisible_ms, b2, sizeof b2));
    }
    if (x->preview) {
        x->attr(x, "acks", "never (a preview does not ack: the messages come back after their "
                           "invisible duration)");
        return;
    }
    x->attr(x, "acks",
            "acked (AckMessage, batched) after the sink confirms each row, or after it is "
            "filtered out/dead-lettered; held messages renewed (ChangeInvisibleDuration) %s "
            "before their invisible duration ends",
            dur(c->renewal_ahead_ms, b1, sizeof b1));
}

static void batching_line(const rsql_explain_t *x, const rsql_rmq_conf_t *c)
{
    x->attr(x, "batching",
            "up to %" PRId64 " messages per SendMessage, linger %" PRId64
            " ms (rows with a message group, lite topic or delivery timestamp: single sends)",
            c->send_batch_size, c->linger_ms);
}

/* A changelog's messages may be batched: NORMAL ones (sink.changelog-order = none). */
static bool batched(const rsql_rmq_conf_t *c)
{
    return c->send_batch_size > 1 && c->changelog_order == RSQL_RMQ_ORDER_NONE &&
           !c->message_group_column && !c->lite_topic && !c->lite_topic_column;
}

/* A changelog: the producer line, and whether the order of one key's changes holds. */
static void changelog_lines(const rsql_explain_t *x, const rsql_rmq_conf_t *c)
{
    rsql_buf_t t = RSQL_BUF_INIT;
    if (c->message_group_column) {
        rsql_buf_printf(&t, "FIFO, message group from column '%s'", c->message_group_column);
    } else if (c->lite_topic || c->lite_topic_column) {
        rsql_buf_puts(&t, "LITE");
    } else if (c->changelog_order == RSQL_RMQ_ORDER_PER_KEY) {
        rsql_buf_puts(&t, "FIFO, message group = primary key");
    } else {
        rsql_buf_puts(&t, "NORMAL (on a FIFO topic: message group = primary key)");
    }
    bool meta_keys = false;
    for (int i = 0; i < x->n_meta; i++) {
        meta_keys |= x->meta[i] && strcmp(x->meta[i], "keys") == 0;
    }
    if (c->keys_column) {
        rsql_buf_printf(&t, ", message key from column '%s'", c->keys_column);
    } else {
        rsql_buf_puts(&t, ", message key = primary key");
    }
    rsql_buf_printf(&t, "%s; one change per message", meta_keys ? " (or the keys METADATA)" : "");
    x->attr(x, "producer", "%s", rsql_buf_str(&t));
    rsql_buf_reset(&t);
    if (batched(c)) {
        batching_line(x, c);
    }
    bool kept = rsql_rmq__key_order(c, x->n_key, x->key, x->n_meta, x->meta, &t);
    x->attr(x, "per-key order", "%s (%s)", kept ? "guaranteed" : "not guaranteed",
            rsql_buf_str(&t));
    rsql_buf_deinit(&t);
}

static void sink_lines(const rsql_explain_t *x, const rsql_rmq_conf_t *c)
{
    if (x->changelog) {
        changelog_lines(x, c);
        return;
    }
    if (c->message_group_column) {
        x->attr(x, "producer", "FIFO, message group from column '%s'", c->message_group_column);
    } else if (c->lite_topic_column) {
        x->attr(x, "producer", "LITE, lite topic from column '%s'", c->lite_topic_column);
    } else if (c->lite_topic) {
        x->attr(x, "producer", "LITE, lite topic '%s'", c->lite_topic);
    } else {
        x->attr(x, "producer", "NORMAL");
        if (c->send_batch_size > 1) {
            batching_line(x, c);
        }
    }
}

/* TLS and failover, when used (file names and the server name only: nothing secret). */
static void connection_line(const rsql_explain_t *x, const rsql_rmq_conf_t *c)
{
    bool several = c->endpoints && strchr(c->endpoints, ',');
    if (!c->tls && !several) {
        return;
    }
    rsql_buf_t t = RSQL_BUF_INIT;
    if (c->tls) {
        rsql_buf_printf(&t, "TLS, certificate verified against %s%s%s, name %s%s%s",
                        c->tls_ca_file ? "'" : "",
                        c->tls_ca_file ? c->tls_ca_file : "gRPC's default roots",
                        c->tls_ca_file ? "'" : "", c->tls_server_name ? "'" : "",
                        c->tls_server_name ? c->tls_server_name : "of the endpoint's host",
                        c->tls_server_name ? "'" : "");
        if (c->tls_cert_file) {
            rsql_buf_printf(&t, ", client certificate '%s'", c->tls_cert_file);
        }
    } else {
        rsql_buf_puts(&t, "plaintext");
    }
    if (several) {
        rsql_buf_puts(&t, "; every endpoint used (the first that answers, the next when it "
                          "fails)");
    }
    x->attr(x, "connection", "%s", rsql_buf_str(&t));
    rsql_buf_deinit(&t);
}

/* See rsql_connector_def_t.explain. */
void rsql_rmq__explain(const rsql_explain_t *x)
{
    const rsql_rmq_conf_t *c = x->conf;
    switch (x->part) {
    case RSQL_EXPLAIN_SOURCE:
        connection_line(x, c);
        source_lines(x, c);
        break;
    case RSQL_EXPLAIN_SINK:
        connection_line(x, c);
        sink_lines(x, c);
        break;
    case RSQL_EXPLAIN_POLL:
        if (c->mode == RSQL_RMQ_MODE_LITE && c->lite_clients > c->lite_clients_min) {
            x->text(x,
                    " (up to %" PRId64 " long polls per client identity, %" PRId64 " to %" PRId64
                    " identities)",
                    c->fetch_concurrency, c->lite_clients_min, c->lite_clients);
        } else if (c->mode == RSQL_RMQ_MODE_LITE && c->lite_clients > 1) {
            x->text(x,
                    " (up to %" PRId64 " long polls: %" PRId64 " client identities x %" PRId64
                    ")",
                    c->fetch_concurrency * c->lite_clients, c->lite_clients,
                    c->fetch_concurrency);
        } else {
            x->text(x, " (up to %" PRId64 " long polls)", c->fetch_concurrency);
        }
        break;
    case RSQL_EXPLAIN_ERRORS:
        if (x->tolerate_all && c->dead_letter_given && c->dead_letter == RSQL_RMQ_DLQ_NATIVE) {
            x->text(x, "; also forwarded to the consumer group's RocketMQ DLQ");
        }
        break;
    }
}
