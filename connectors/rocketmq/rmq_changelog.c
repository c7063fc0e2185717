/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_changelog: RocketMQ as a changelog carrier (docs/CHANGELOGS.md). A changelog written by
 * the rocketmq-grpc sink goes one change per message, in the table's changelog format; each
 * message's keys are the row's PRIMARY KEY (rsql_rmq__key_text) and, so that the changes of one
 * key stay in order from end to end, its message group is that key too: one message group is
 * sent one message at a time (rmq_sink.c) and a FIFO topic stores and delivers it in order.
 *
 * What is decided where:
 *   - at planning (rsql_rmq__accept_changes, no I/O): the table has a PRIMARY KEY, and a
 *     LITE target (sink.lite-topic, sink.lite-topic-column) is refused unless
 *     sink.changelog-order = 'none'. The topic's own type is not in the options: EXPLAIN
 *     (rsql_rmq__key_order) says what order the options give and that the topic must be FIFO;
 *   - when the sink starts (rsql_rmq__changelog_topic): the topic's type, from its route
 *     (QueryRoute), which the client fetches at start: a changelog grouped by key into a topic
 *     that is not FIFO is refused before anything is sent, never sent out of order.
 * Built with or without the data path (no gRPC).
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "connectors/conn_int.h"

#include <string.h>
#include <strings.h>

/* QueryRoute's accept_message_types (the protocol's MessageType numbers). */
enum { TOPIC_UNKNOWN = 0, TOPIC_NORMAL = 1, TOPIC_FIFO = 2, TOPIC_LITE = 5 };

/* What to set when the order of one key's changes cannot be kept. */
#define ORDER_HINT                                                                               \
    "write the changelog to a FIFO topic, or set 'sink.changelog-order' = 'none' if the order "  \
    "of one key's changes does not matter to its consumers"

static bool lite_target(const rsql_rmq_conf_t *c)
{
    return c->lite_topic || c->lite_topic_column;
}

/* See rmq_conf.h. */
rsql_err_t rsql_rmq__accept_changes(const void *conf, const rsql_optset_t *set, int n_key,
                                    rsql_error_t *err)
{
    const rsql_rmq_conf_t *c = conf;
    if (n_key <= 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "a changelog written to RocketMQ needs the table's PRIMARY KEY "
                              "(declare PRIMARY KEY (...) NOT ENFORCED): its values are each "
                              "change's message keys and its message group");
    }
    if (c && c->changelog_order == RSQL_RMQ_ORDER_PER_KEY && lite_target(c)) {
        const char *opt = c->lite_topic ? "sink.lite-topic" : "sink.lite-topic-column";
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_conn__value_pos(set, opt),
                              "option '%s': a LITE topic does not keep the order of one key's "
                              "changes as rocketsql sends them (its messages have no message "
                              "group); " ORDER_HINT,
                              opt);
    }
    return RSQL_OK;
}

/* See rmq_conf.h. */
bool rsql_rmq__key_order(const rsql_rmq_conf_t *c, int n_key, const char *const *key,
                         int n_meta, const char *const *meta, rsql_buf_t *why)
{
    for (int i = 0; i < n_meta; i++) {
        if (meta[i] && strcasecmp(meta[i], "message_group") == 0) {
            rsql_buf_puts(why, "the message group is the message_group METADATA column's "
                               "value, row by row");
            return false;
        }
    }
    if (n_key <= 0) {
        rsql_buf_puts(why, "the table has no PRIMARY KEY");
        return false;
    }
    if (lite_target(c)) {
        rsql_buf_puts(why, "LITE messages have no message group");
        return false;
    }
    if (c->message_group_column) {
        bool in_key = false;
        for (int i = 0; i < n_key && !in_key; i++) {
            in_key = strcasecmp(key[i], c->message_group_column) == 0;
        }
        rsql_buf_printf(why, "message group = column '%s', %s", c->message_group_column,
                        in_key ? "part of the primary key"
                               : "not part of the primary key: an update that changes it moves "
                                 "the key's later changes to another message group");
        return in_key;
    }
    if (c->changelog_order == RSQL_RMQ_ORDER_NONE) {
        rsql_buf_puts(why, "sink.changelog-order = 'none': NORMAL messages, which consumers "
                           "may receive in any order");
        return false;
    }
    rsql_buf_puts(why, "message group = primary key; the topic must be FIFO, checked when the "
                       "sink starts");
    return true;
}

/* See rmq_conf.h. */
rsql_err_t rsql_rmq__changelog_topic(const rsql_rmq_conf_t *c, int topic_type,
                                     bool group_given, bool *group_by_key, rsql_error_t *err)
{
    *group_by_key = false;
    if (lite_target(c)) {
        if (c->changelog_order == RSQL_RMQ_ORDER_PER_KEY) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                  "rocketmq-grpc sink: a changelog to LITE topics of '%s' "
                                  "would not keep the order of one key's changes; " ORDER_HINT,
                                  c->topic);
        }
        return RSQL_OK;
    }
    if (topic_type == TOPIC_FIFO) {
        *group_by_key = !group_given;
        return RSQL_OK;
    }
    if (group_given || c->changelog_order == RSQL_RMQ_ORDER_NONE) {
        return RSQL_OK; /* as the user set it: the proxy checks the messages' type */
    }
    const char *type = topic_type == TOPIC_NORMAL ? "NORMAL"
                       : topic_type == TOPIC_LITE ? "LITE"
                                                  : NULL;
    if (!type) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "rocketmq-grpc sink: the route of topic '%s' names no message "
                              "type, so the order of one key's changes cannot be promised; "
                              "" ORDER_HINT,
                              c->topic);
    }
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                          "rocketmq-grpc sink: topic '%s' is a %s topic (its route accepts %s "
                          "messages), which does not keep the order of one key's changes; "
                          "" ORDER_HINT,
                          c->topic, type, type);
}

/* See rmq_conf.h. */
void rsql_rmq__key_text(const rsql_value_t *values, int n_key, const int *key, rsql_buf_t *out)
{
    rsql_buf_t one = RSQL_BUF_INIT;
    for (int i = 0; i < n_key; i++) {
        const rsql_value_t *v = &values[key[i]];
        rsql_buf_puts(out, i ? "|" : "");
        if (v->is_null || v->type == RSQL_TYPE_NULL) {
            rsql_buf_puts(out, "\\N");
            continue;
        }
        rsql_buf_reset(&one);
        rsql_value_format(v, &one);
        for (size_t j = 0; j < one.len; j++) {
            if (one.data[j] == '|' || one.data[j] == '\\') {
                rsql_buf_putc(out, '\\');
            }
            rsql_buf_putc(out, one.data[j]);
        }
        out->oom |= one.oom;
    }
    rsql_buf_deinit(&one);
}
