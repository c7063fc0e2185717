/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The kafka source: a librdkafka consumer. Without properties.group.id (or for a bounded
 * read) it is assigned every partition of its topics (assign mode); with it, it subscribes in
 * the group and reads the partitions the group gives it (group mode: kafka_group.c, with the
 * commits to the group; kafka_source_int.h). Each partition is a lane of the engine's
 * tracker, named "topic/partition"; a record's position is its offset + 1 (the next one to
 * read, as Kafka commits it). The runtime keeps the positions in the catalog (or an
 * exactly-once sink with its rows) and commits a partition only up to the first record whose
 * outcome is not known; each such commit also goes to the consumer group.
 *
 * Start (assign mode): a resumed partition starts at its position in the sink or the catalog;
 * the others where scan.startup.mode says. Group mode: see kafka_group.c. With
 * scan.bounded.mode 'latest-offset' the end of each partition at the start (its high
 * watermark) is where it stops: the partition is paused there, and the read ends when every
 * partition is there.
 *
 * An unreachable cluster or a missing topic fails open within connect.timeout, naming the
 * brokers or the topic and librdkafka's reason.
 *
 * Threads: open, poll and close on the poll thread (the rebalances too, from inside poll);
 * committed on the worker thread (it only marks the lane, with atomics, and wakes a revoke
 * that waits for it); wakeup from any thread (rd_kafka_queue_yield).
 */
#include "config.h"
#include "connectors/kafka/kafka_source_int.h"
#include "base/rsql_log.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const meta_keys[M_COUNT] = {"topic",          "partition", "offset",
                                               "timestamp",      "timestamp-type",
                                               "headers",        "leader-epoch"};

static void ks_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    if (s->rk) {
        s->closing = true;
        rsql_kafka__group_commit_last(s, 5000);
    }
    if (s->q) {
        rd_kafka_queue_destroy(s->q);
    }
    if (s->rk) {
        rd_kafka_consumer_close(s->rk);
        rd_kafka_destroy(s->rk);
    }
    for (int i = 0; i < s->n_lanes; i++) {
        rsql_free(s->lanes[i].topic);
        rsql_free(s->lanes[i].name);
    }
    rsql_free(s->lanes);
    rsql_free(s->msgs);
    rsql_kafka__rowdec_destroy(s->rowdec);
    pthread_mutex_destroy(&s->box.mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    rsql_free(s);
}

/* See kafka_source_int.h. */
int rsql_kafka__lane_add(rsql_source_t *s, const char *topic, int32_t partition, bool owned)
{
    int n = atomic_load(&s->n_lanes);
    if (n >= s->lanes_cap) {
        return -1;
    }
    lane_t *l = &s->lanes[n];
    memset(l, 0, sizeof *l);
    l->topic = rsql_strdup(topic);
    l->partition = partition;
    size_t len = strlen(topic) + 16;
    l->name = rsql_malloc(len);
    if (!l->topic || !l->name) {
        rsql_free(l->topic);
        rsql_free(l->name);
        return -1;
    }
    snprintf(l->name, len, "%s/%d", topic, (int)partition);
    atomic_init(&l->committed, -1);
    atomic_init(&l->shown, -1);
    atomic_init(&l->dirty, false);
    l->acked = -1;
    l->resume = -1;
    l->polled = -1;
    l->next = -1;
    atomic_init(&l->owned, owned);
    atomic_store(&s->n_lanes, n + 1); /* the lane whole before others may index it */
    return n;
}

/* Add the partitions of topic as lanes (and, in group mode, room for partitions added later). */
static rsql_err_t add_topic(rsql_source_t *s, const rsql_kafka_conf_t *c, const char *topic,
                            rsql_error_t *err)
{
    int n = 0;
    rsql_err_t rc = rsql_kafka__topic_partitions(s->rk, c, &s->box, s->where, topic, &n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int cap = s->n_lanes + n + (s->group_mode ? RSQL_KAFKA_MORE_LANES : 0);
    lane_t *grown = rsql_realloc(s->lanes, sizeof *grown * (size_t)cap);
    if (!grown) {
        return rsql_error_nomem(err);
    }
    s->lanes = grown;
    s->lanes_cap = cap;
    for (int p = 0; p < n; p++) {
        if (rsql_kafka__lane_add(s, topic, p, !s->group_mode) < 0) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}

/* topic-pattern: every topic of the cluster it matches, as lanes; none is an error. */
static rsql_err_t add_pattern(rsql_source_t *s, const rsql_kafka_conf_t *c, rsql_error_t *err)
{
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(s->rk, 1, NULL, &md, (int)c->timeout_ms);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        char last[256];
        rsql_kafka__last_error(&s->box, last, sizeof last);
        return rsql_error_set(err, RSQL_ERR_REMOTE, RSQL_NOPOS,
                              "kafka %s: cannot reach the brokers '%s' (topic-pattern '%s', "
                              "connect.timeout %lld ms): %s%s%s",
                              s->where, c->servers, c->topic_pattern, (long long)c->timeout_ms,
                              rd_kafka_err2str(e), last[0] ? "; librdkafka: " : "", last);
    }
    char **names = NULL;
    int n = rsql_kafka__pattern_topics(c->topic_pattern, md, &names);
    rd_kafka_metadata_destroy(md);
    rsql_err_t rc = RSQL_OK;
    if (n < 0) {
        rc = rsql_error_nomem(err);
    } else if (n == 0) {
        rc = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                            "kafka %s: no topic on '%s' matches topic-pattern '%s'", s->where,
                            c->servers, c->topic_pattern);
    }
    for (int i = 0; i < (n > 0 ? n : 0); i++) {
        if (rc == RSQL_OK) {
            rc = add_topic(s, c, names[i], err);
        }
        rsql_free(names[i]);
    }
    rsql_free(names);
    return rc;
}

/* The offset scan.startup.specific-offsets gives partition p (else RD_KAFKA_OFFSET_STORED). */
static int64_t specific_offset(const char *spec, int32_t p)
{
    const char *at = spec;
    while (at && (at = strstr(at, "partition:")) != NULL) {
        char *end;
        long long part = strtoll(at + 10, &end, 10);
        if (part == p && strncmp(end, ",offset:", 8) == 0) {
            return strtoll(end + 8, NULL, 10);
        }
        at = end;
    }
    return RD_KAFKA_OFFSET_STORED;
}

/* Each lane's start: its resume position, else the startup mode's. */
static rsql_err_t set_starts(rsql_source_t *s, const rsql_source_ctx_t *ctx,
                             const rsql_kafka_conf_t *c, rsql_error_t *err)
{
    bool by_time = false;
    for (int i = 0; i < s->n_lanes; i++) {
        lane_t *l = &s->lanes[i];
        int r = -1;
        for (int k = 0; k < ctx->n_resume && r < 0; k++) {
            r = strcmp(ctx->resume_partitions[k], l->name) == 0 ? k : -1;
        }
        l->resume = r >= 0 ? ctx->resume_offsets[r] : -1;
        if (r >= 0 && !s->group_mode) {
            l->start = ctx->resume_offsets[r];
            continue;
        }
        switch (c->startup_mode) {
        case RSQL_KAFKA_START_EARLIEST:
            l->start = RD_KAFKA_OFFSET_BEGINNING;
            break;
        case RSQL_KAFKA_START_LATEST:
            l->start = RD_KAFKA_OFFSET_END;
            break;
        case RSQL_KAFKA_START_TIMESTAMP:
            l->start = c->startup_ts_ms; /* turned into an offset below */
            by_time = true;
            break;
        case RSQL_KAFKA_START_SPECIFIC:
            l->start = specific_offset(c->specific_offsets, l->partition);
            break;
        default:
            l->start = RD_KAFKA_OFFSET_STORED;
            break;
        }
    }
    if (!by_time) {
        return RSQL_OK;
    }
    /* the first offset at or after the time, per partition (-1: none yet, the end) */
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(s->n_lanes);
    if (!tl) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < s->n_lanes; i++) {
        rd_kafka_topic_partition_list_add(tl, s->lanes[i].topic, s->lanes[i].partition)->offset =
            c->startup_ts_ms;
    }
    rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(s->rk, tl, (int)c->timeout_ms);
    rsql_err_t rc = RSQL_OK;
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rc = rsql_error_set(err, rsql_kafka__err_code(e), RSQL_NOPOS,
                            "kafka: offsets for scan.startup.timestamp-millis %" PRId64 ": %s",
                            c->startup_ts_ms, rd_kafka_err2str(e));
    }
    for (int i = 0; rc == RSQL_OK && i < tl->cnt; i++) {
        int li = rsql_kafka__lane_of(s, tl->elems[i].topic, tl->elems[i].partition);
        if (li >= 0 && (s->group_mode || s->lanes[li].resume < 0)) {
            s->lanes[li].start = tl->elems[i].offset < 0 ? RD_KAFKA_OFFSET_END
                                                         : tl->elems[i].offset;
        }
    }
    rd_kafka_topic_partition_list_destroy(tl);
    return rc;
}

/* scan.bounded.mode latest-offset: each lane's end now; a lane already there is done. */
static rsql_err_t set_ends(rsql_source_t *s, const rsql_kafka_conf_t *c, rsql_error_t *err)
{
    for (int i = 0; i < s->n_lanes; i++) {
        lane_t *l = &s->lanes[i];
        int64_t lo = 0, hi = 0;
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(s->rk, l->topic, l->partition,
                                                                 &lo, &hi, (int)c->timeout_ms);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            return rsql_error_set(err, rsql_kafka__err_code(e), RSQL_NOPOS,
                                  "kafka: the end of partition %s: %s", l->name,
                                  rd_kafka_err2str(e));
        }
        l->high = hi;
        l->done = lo >= hi || l->start == RD_KAFKA_OFFSET_END || (l->start >= 0 && l->start >= hi);
        rsql_log(RSQL_LOG_DEBUG, "kafka", "%s: partition %s from %" PRId64 " to %" PRId64
                 " (first %" PRId64 ")%s", s->where, l->name, l->start, hi, lo,
                 l->done ? ": at its end already" : "");
    }
    return RSQL_OK;
}

static rsql_err_t assign(rsql_source_t *s, rsql_error_t *err)
{
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(s->n_lanes);
    if (!tl) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < s->n_lanes; i++) {
        if (!s->lanes[i].done) {
            rd_kafka_topic_partition_list_add(tl, s->lanes[i].topic, s->lanes[i].partition)
                ->offset = s->lanes[i].start;
        }
    }
    rd_kafka_resp_err_t e = rd_kafka_assign(s->rk, tl);
    rd_kafka_topic_partition_list_destroy(tl);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return rsql_error_set(err, rsql_kafka__err_code(e), RSQL_NOPOS,
                              "kafka: cannot assign the partitions: %s", rd_kafka_err2str(e));
    }
    return RSQL_OK;
}

static rsql_err_t ks_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_kafka_conf_t *c = ctx->conf;
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    pthread_mutex_init(&s->box.mu, NULL);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    atomic_init(&s->stopping, false);
    snprintf(s->where, sizeof s->where, "source table '%.120s'", ctx->table ? ctx->table : "?");
    s->commit = c->group_id != NULL;
    s->bounded = c->bounded_mode == RSQL_KAFKA_BOUND_LATEST;
    s->upsert = c->upsert;
    s->group_mode = c->group_id != NULL && !s->bounded && !ctx->preview;
    s->n_columns = ctx->n_columns;
    for (int m = 0; m < M_COUNT; m++) {
        s->meta_col[m] = -1;
        for (int i = 0; ctx->column_meta && i < ctx->n_columns; i++) {
            if (ctx->column_meta[i] && strcasecmp(ctx->column_meta[i], meta_keys[m]) == 0) {
                s->meta_col[m] = i;
                s->meta_type[m] = ctx->column_types[i];
                s->has_meta = true;
            }
        }
    }

    /* without a group of its own the consumer still needs one to be given a queue: a
       private one, never committed to */
    snprintf(s->group, sizeof s->group, "%s",
             c->group_id ? c->group_id : "");
    if (!c->group_id) {
        snprintf(s->group, sizeof s->group, "rocketsql-%.200s",
                 ctx->pipeline ? ctx->pipeline : "source");
    }
    /* the connector's own settings; then defaults the table's properties.* may override:
       the reset of a partition without a committed offset, and how soon a consumer that is
       assigned its partitions (not subscribed) looks for its group's coordinator again once
       it lost it (a broker restart): librdkafka's default is 10 minutes, in which commits to
       the group wait. Group mode: the cooperative-sticky assignor (Kafka's Java clients'
       choice), and a member that died (kill -9) leaves the group after 10 s, not 45 s, so that
       its partitions move on soon */
    const char *extra[20] = {"enable.auto.commit",       "false",
                             "enable.auto.offset.store", "false",
                             "enable.partition.eof",     s->bounded ? "true" : "false",
                             "group.id",                 s->group};
    int n_extra = 4;
    static const char *const defaults[][2] = {{"auto.offset.reset", "earliest"},
                                              {"coordinator.query.interval.ms", "1000"},
                                              {"partition.assignment.strategy",
                                               "cooperative-sticky"},
                                              {"session.timeout.ms", "10000"}};
    size_t n_defaults = sizeof defaults / sizeof defaults[0] - (s->group_mode ? 0 : 2);
    char discovery[32];
    snprintf(discovery, sizeof discovery, "%lld", (long long)c->discovery_ms);
    if (s->group_mode && c->discovery_ms > 0 &&
        rsql_optset_find(ctx->opts, "properties.topic.metadata.refresh.interval.ms") < 0) {
        extra[2 * n_extra] = "topic.metadata.refresh.interval.ms";
        extra[2 * n_extra + 1] = discovery;
        n_extra++;
    }
    for (size_t i = 0; i < n_defaults; i++) {
        char key[96];
        snprintf(key, sizeof key, "properties.%s", defaults[i][0]);
        if (rsql_optset_find(ctx->opts, key) < 0) {
            extra[2 * n_extra] = defaults[i][0];
            extra[2 * n_extra + 1] = defaults[i][1];
            n_extra++;
        }
    }
    char why[512];
    rd_kafka_conf_t *kc = rsql_kafka__conf_new(c, ctx->opts, extra, n_extra, &s->box, err);
    rsql_err_t rc = kc ? RSQL_OK : err->code;
    if (rc == RSQL_OK) {
        rd_kafka_conf_set_offset_commit_cb(kc, rsql_kafka__commit_cb);
        if (s->group_mode) {
            rd_kafka_conf_set_rebalance_cb(kc, rsql_kafka__rebalance_cb);
        }
    }
    if (rc == RSQL_OK && !(s->rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, why, sizeof why))) {
        rd_kafka_conf_destroy(kc);
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                            "kafka: cannot make the consumer: %s", why);
    }
    if (rc == RSQL_OK) {
        rd_kafka_poll_set_consumer(s->rk);
        s->q = rd_kafka_queue_get_consumer(s->rk);
    }
    /* the topics, ';'-separated, each with its partitions; or those topic-pattern matches */
    if (rc == RSQL_OK && c->topic_pattern) {
        rc = add_pattern(s, c, err);
    }
    const char *p = c->topic;
    while (rc == RSQL_OK && p && *p) {
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len > 0 && (*p == ' ' || *p == '\t')) {
            p++, len--;
        }
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) {
            len--;
        }
        char topic[256];
        if (len > 0 && len < sizeof topic) {
            memcpy(topic, p, len);
            topic[len] = '\0';
            rc = add_topic(s, c, topic, err);
        } else if (len > 0) {
            rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                "kafka: a topic name of %zu bytes (at most 249)", len);
        }
        p = e ? e + 1 : NULL;
    }
    if (rc == RSQL_OK && (c->fields_include == RSQL_KAFKA_FI_EXCEPT_KEY || c->upsert) &&
        !(s->rowdec = rsql_kafka__rowdec_new(ctx, c, err))) {
        rc = err->code;
    }
    if (rc == RSQL_OK && s->n_lanes == 0) {
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                            "kafka %s: no topic with partitions to read", s->where);
    }
    if (rc == RSQL_OK) {
        rc = set_starts(s, ctx, c, err);
    }
    if (rc == RSQL_OK && s->bounded) {
        rc = set_ends(s, c, err);
    }
    if (rc == RSQL_OK) {
        rc = s->group_mode ? rsql_kafka__group_subscribe(s, err) : assign(s, err);
    }
    if (rc != RSQL_OK) {
        ks_close(s);
        return rc;
    }
    *out = s;
    return RSQL_OK;
}

/* An integer metadata value of column type t (INT, BIGINT, or DOUBLE it widens to). */
static rsql_value_t meta_int(rsql_type_t t, int64_t n)
{
    rsql_value_t v = {.type = t, .is_null = false};
    if (t == RSQL_TYPE_DOUBLE) {
        v.v.d = (double)n;
    } else {
        v.v.i = n;
    }
    return v;
}

static rsql_value_t meta_str(rsql_type_t t, const char *p)
{
    rsql_value_t v = {.type = t, .is_null = false};
    v.v.s.p = p;
    v.v.s.len = strlen(p);
    return v;
}

/* The headers of m as a MAP<STRING, BYTES> value into *v (in arena). False when out of memory. */
static bool headers_value(rsql_arena_t *a, const rd_kafka_message_t *m, rsql_value_t *v)
{
    rd_kafka_headers_t *hdrs = NULL;
    size_t n = 0;
    if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
        n = rd_kafka_header_cnt(hdrs);
    }
    const rsql_tdesc_t *desc = rsql_tdesc_map(rsql_tdesc_scalar(RSQL_TYPE_BYTES));
    rsql_composite_t *c = desc ? rsql_arena_alloc(a, sizeof *c + 2 * n * sizeof(rsql_value_t))
                               : NULL;
    if (!c) {
        return false;
    }
    c->desc = desc;
    c->n = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name;
        const void *val;
        size_t size;
        if (rd_kafka_header_get_all(hdrs, i, &name, &val, &size) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            break;
        }
        char *kc = rsql_arena_strdup(a, name);
        void *vc = val ? rsql_arena_alloc(a, size ? size : 1) : NULL;
        if (!kc || (val && !vc)) {
            return false;
        }
        if (val && size) {
            memcpy(vc, val, size);
        }
        rsql_value_t *k = &c->items[2 * c->n], *vv = &c->items[2 * c->n + 1];
        *k = meta_str(RSQL_TYPE_VARCHAR, kc);
        *vv = (rsql_value_t){.type = RSQL_TYPE_BYTES, .is_null = val == NULL};
        vv->v.s.p = vc;
        vv->v.s.len = val ? size : 0;
        c->n++;
    }
    *v = (rsql_value_t){.type = RSQL_TYPE_MAP, .is_null = false};
    v->v.c = c;
    return true;
}

/* r->meta for message m of lane l. False when out of memory. */
static bool set_meta(rsql_source_t *s, rsql_batch_t *b, rsql_record_t *r, const lane_t *l,
                     const rd_kafka_message_t *m)
{
    rsql_value_t *v = rsql_arena_alloc(b->arena, sizeof *v * (size_t)s->n_columns);
    if (!v) {
        return false;
    }
    memset(v, 0, sizeof *v * (size_t)s->n_columns);
    for (int i = 0; i < s->n_columns; i++) {
        v[i].is_null = true;
    }
    rd_kafka_timestamp_type_t tt = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    int64_t ts = rd_kafka_message_timestamp(m, &tt);
    for (int k = 0; k < M_COUNT; k++) {
        int c = s->meta_col[k];
        rsql_type_t t = s->meta_type[k];
        if (c < 0) {
            continue;
        }
        switch (k) {
        case M_TOPIC: {
            char *topic = rsql_arena_strdup(b->arena, l->topic);
            if (!topic) {
                return false;
            }
            v[c] = meta_str(t, topic);
            break;
        }
        case M_PARTITION:
            v[c] = meta_int(t, l->partition);
            break;
        case M_OFFSET:
            v[c] = meta_int(t, m->offset);
            break;
        case M_TIMESTAMP:
            if (tt != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE) {
                v[c] = (rsql_value_t){.type = t, .is_null = false};
                v[c].v.ts = ts;
            }
            break;
        case M_HEADERS:
            if (!headers_value(b->arena, m, &v[c])) {
                return false;
            }
            break;
        case M_LEADER_EPOCH:
            break; /* NULL: librdkafka before 2.1 does not give a record's leader epoch */
        default:
            v[c] = meta_str(t, tt == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? "CreateTime"
                               : tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? "LogAppendTime"
                                                                          : "NoTimestampType");
            break;
        }
    }
    r->meta = v;
    return true;
}

/* Lane li reached its end (bounded): done, and paused so that nothing past it comes. */
static void lane_done(rsql_source_t *s, int li)
{
    lane_t *l = &s->lanes[li];
    if (l->done) {
        return;
    }
    l->done = true;
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(1);
    if (tl) {
        rd_kafka_topic_partition_list_add(tl, l->topic, l->partition);
        rd_kafka_pause_partitions(s->rk, tl);
        rd_kafka_topic_partition_list_destroy(tl);
    }
}

static bool all_done(const rsql_source_t *s)
{
    for (int i = 0; i < s->n_lanes; i++) {
        if (!s->lanes[i].done) {
            return false;
        }
    }
    return true;
}

/* One message into batch (or a lane's end, or an error that ends the read). */
static rsql_err_t take(rsql_source_t *s, rsql_batch_t *b, rd_kafka_message_t *m,
                       rsql_error_t *err)
{
    const char *topic = m->rkt ? rd_kafka_topic_name(m->rkt) : NULL;
    int li = topic ? rsql_kafka__lane_of(s, topic, m->partition) : -1;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        rsql_log(RSQL_LOG_DEBUG, "kafka", "%s: partition %s: at its end, offset %" PRId64,
                 s->where, li >= 0 ? s->lanes[li].name : "?", m->offset);
        if (s->bounded && li >= 0 && m->offset >= s->lanes[li].high) {
            lane_done(s, li);
        }
        return RSQL_OK;
    }
    if (m->err) {
        const char *why = rd_kafka_message_errstr(m);
        switch (m->err) {
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
        case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
        case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
        case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR__FATAL:
        case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
        case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
            return rsql_error_set(err, rsql_kafka__err_code(m->err), RSQL_NOPOS,
                                  "kafka: reading %s%s%s: %s", topic ? topic : "the topics",
                                  li >= 0 ? " partition " : "", li >= 0 ? s->lanes[li].name : "",
                                  why);
        default: /* librdkafka retries by itself (a broker down, a timeout) */
            rsql_log(RSQL_LOG_WARN, "kafka", "consumer: %s", why);
            return RSQL_OK;
        }
    }
    if (li < 0 || !atomic_load(&s->lanes[li].owned)) {
        return RSQL_OK; /* fetched before the partition was given up: its next owner reads it */
    }
    lane_t *l = &s->lanes[li];
    if (l->next >= 0 && m->offset < l->next) {
        return RSQL_OK; /* fetched for an earlier assignment of it, or handed on already */
    }
    if (s->bounded && (l->done || m->offset >= l->high)) {
        lane_done(s, li);
        return RSQL_OK; /* past the end it had at the start */
    }
    rsql_record_t *r = rsql_batch_add(b);
    if (!r) {
        return rsql_error_nomem(err);
    }
    r->partition = (uint32_t)li;
    r->offset = m->offset + 1;
    if (m->payload) {
        r->raw = rsql_batch_copy(b, m->payload, m->len);
        r->raw_len = m->len;
    } else if (!s->upsert) {
        r->n_rows = -1; /* a tombstone: no row, done as filtered */
    }
    char id[320];
    snprintf(id, sizeof id, "kafka:%s@%" PRId64, l->name, m->offset);
    r->ident = rsql_arena_strdup(b->arena, id);
    if ((m->payload && !r->raw) || !r->ident || (s->has_meta && !set_meta(s, b, r, l, m)) ||
        (s->rowdec && (m->payload || s->upsert) &&
         rsql_kafka__rowdec_decode(s->rowdec, b, r, m->key, m->key_len, err) != RSQL_OK)) {
        b->n--;
        return rsql_error_nomem(err);
    }
    l->polled = r->offset;
    l->next = r->offset;
    atomic_store_explicit(&l->shown, r->offset, memory_order_relaxed); /* m->offset + 1 */
    if (s->bounded && r->offset >= l->high) {
        lane_done(s, li);
    }
    return RSQL_OK;
}

static rsql_err_t ks_poll(rsql_source_t *s, rsql_batch_t *b, int max, int timeout_ms, bool *eof,
                          rsql_error_t *err)
{
    *eof = false;
    rsql_kafka__group_commit(s);
    if (s->bounded && all_done(s)) {
        *eof = true;
        return RSQL_OK;
    }
    if (max > b->cap - b->n) {
        max = b->cap - b->n;
    }
    if (max > s->msgs_cap) {
        rd_kafka_message_t **grown = rsql_realloc(s->msgs, sizeof *grown * (size_t)max);
        if (!grown) {
            return rsql_error_nomem(err);
        }
        s->msgs = grown;
        s->msgs_cap = max;
    }
    if (max <= 0) {
        return RSQL_OK;
    }
    /* wait for the first, then take what is there without waiting */
    rd_kafka_message_t *first = rd_kafka_consume_queue(s->q, timeout_ms);
    if (!first) {
        return RSQL_OK;
    }
    s->msgs[0] = first;
    ssize_t n = 1;
    if (max > 1) {
        ssize_t more = rd_kafka_consume_batch_queue(s->q, 0, s->msgs + 1, (size_t)max - 1);
        n += more > 0 ? more : 0;
    }
    rsql_err_t rc = RSQL_OK;
    for (ssize_t i = 0; i < n; i++) {
        if (rc == RSQL_OK) {
            rc = take(s, b, s->msgs[i], err);
        }
        rd_kafka_message_destroy(s->msgs[i]);
    }
    if (rc == RSQL_OK && s->bounded && b->n == 0 && all_done(s)) {
        *eof = true;
    }
    return rc;
}

static int ks_partition_count(rsql_source_t *s)
{
    return s->n_lanes;
}

static const char *ks_partition_name(rsql_source_t *s, uint32_t partition)
{
    return partition < (uint32_t)s->n_lanes ? s->lanes[partition].name : "";
}

/*
** The job committed lane partition up to offset: the poll thread sends it to the consumer
** group at its next poll (rsql_kafka__group_commit), and a revoke waiting for it goes on.
** @locality worker thread
*/
static void ks_committed(rsql_source_t *s, uint32_t partition, int64_t offset)
{
    if (!s->commit || partition >= (uint32_t)s->n_lanes) {
        return;
    }
    atomic_store(&s->lanes[partition].committed, offset);
    atomic_store(&s->lanes[partition].dirty, true);
    if (s->group_mode) { /* a revoke may wait for it */
        pthread_mutex_lock(&s->mu);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
}

/* The run stops: wake a poll, and a revoke that waits. Any thread. */
static void ks_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    atomic_store(&s->stopping, true);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (s->q) {
        rd_kafka_queue_yield(s->q);
    }
}

const rsql_source_ops_t rsql_kafka_source_ops = {
    .open = ks_open,
    .poll = ks_poll,
    .partition_count = ks_partition_count,
    .partition_name = ks_partition_name,
    .committed = ks_committed,
    .wakeup = ks_wakeup,
    .close = ks_close,
    .describe = rsql_kafka__describe,
};
