/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the kafka connector (Apache Kafka through librdkafka), with Flink's names:
 * the one table that drives validation, the typed configuration (kafka_conf.h), SHOW OPTIONS
 * and docs/CONNECTORS.md; the cross-option rules; the metadata keys; the descriptor.
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/kafka/kafka_conf.h"

#include <inttypes.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const rsql_kafka_formats[] = {"json", "csv", "raw", "debezium-json", "canal-json",
                                          "maxwell-json", NULL};
static const char *const startup_modes[] = {"earliest-offset", "latest-offset", "group-offsets",
                                            "timestamp", "specific-offsets", NULL};
static const char *const bounded_modes[] = {"unbounded", "latest-offset", NULL};
static const char *const partitioners[] = {"default", "fixed", "round-robin", NULL};
static const char *const guarantees[] = {"at-least-once", "exactly-once", "none", NULL};
static const char *const fields_includes[] = {"ALL", "EXCEPT_KEY", NULL};

#define F(member, ctype) RSQL_OPT_FIELD(rsql_kafka_conf_t, member, ctype)
#define SRC RSQL_OPT_F_SOURCE
#define SNK RSQL_OPT_F_SINK
#define SECRET_PROP(name, what)                                                              \
    RSQL_OPT_ROW("properties." name, RSQL_OPT_STR, RSQL_OPT_F_SECRET, NULL, 0, 0, NULL,      \
                 "Passed to librdkafka as `" name "` (" what "); masked wherever options are " \
                 "shown. Best given as `${env:NAME}` or `${file:PATH}`.")

/* scan.startup.specific-offsets: "partition:0,offset:42;partition:1,offset:300". */
static rsql_err_t check_specific(const rsql_opt_def_t *def, const char *key, const char *value,
                                 rsql_pos_t pos, rsql_error_t *err)
{
    (void)def;
    const char *p = value;
    while (*p) {
        char *end;
        long long part, off;
        if (strncmp(p, "partition:", 10) != 0) {
            goto bad;
        }
        part = strtoll(p + 10, &end, 10);
        if (end == p + 10 || part < 0 || strncmp(end, ",offset:", 8) != 0) {
            goto bad;
        }
        p = end + 8;
        off = strtoll(p, &end, 10);
        if (end == p || off < 0 || (*end && *end != ';')) {
            goto bad;
        }
        p = *end ? end + 1 : end;
    }
    return RSQL_OK;
bad:
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "option '%s' must be a list like "
                          "'partition:0,offset:42;partition:1,offset:300', got '%s'",
                          key, value);
}

/* topic-pattern: a regular expression PCRE2 compiles. */
static rsql_err_t check_pattern(const rsql_opt_def_t *def, const char *key, const char *value,
                                rsql_pos_t pos, rsql_error_t *err)
{
    (void)def;
    char why[160];
    if (rsql_kafka__pattern_check(value, why, sizeof why) != RSQL_OK) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos, "option '%s': %s", key, why);
    }
    return RSQL_OK;
}

/* The rows kafka and upsert-kafka share. */
#define KAFKA_ROW_SERVERS \
    RSQL_OPT_ROW_F("properties.bootstrap.servers", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, \
                   NULL, \
                   "The brokers to start from, `host:port` separated by commas (librdkafka's " \
                   "`bootstrap.servers`).", \
                   F(servers, const char *))
#define KAFKA_ROW_GROUP \
    RSQL_OPT_ROW_F("properties.group.id", RSQL_OPT_STR, SRC, NULL, 0, 0, NULL, \
                   "The consumer group. An unbounded source subscribes in it: several " \
                   "processes running the same statement share the partitions, and the group " \
                   "rebalances them as members come and go (`cooperative-sticky` unless " \
                   "`properties.partition.assignment.strategy` says otherwise; a member that " \
                   "died leaves after `properties.session.timeout.ms`, 10 s by default). A " \
                   "partition given up is drained first (its records on their way written and " \
                   "committed); one taken starts at the later of the group's committed offset " \
                   "and the job's own position. A bounded source (`scan.bounded.mode`) is " \
                   "assigned every partition instead. Either way the source commits to the " \
                   "group the offsets the job has committed (each partition only up to the " \
                   "first record whose outcome is not known). Needed by `group-offsets`; " \
                   "without it every partition is read by this one job and nothing is " \
                   "committed to Kafka (the job keeps its positions in the catalog either " \
                   "way).", \
                   F(group_id, const char *)), \
    RSQL_OPT_ROW_F("scan.topic-partition-discovery.interval", RSQL_OPT_DURATION, SRC, "5min", \
                   100, 24 * RSQL_MS_H, NULL, \
                   "With `properties.group.id` on an unbounded read: how often the topics' " \
                   "partitions are looked up again (librdkafka's " \
                   "`topic.metadata.refresh.interval.ms`). A partition added to a topic while " \
                   "the job runs is then given to a member of the group, which reads it from " \
                   "its beginning (up to 256 added partitions per run; the next run takes any " \
                   "number).", \
                   F(discovery_ms, int64_t))
#define KAFKA_ROW_BOUNDED \
    RSQL_OPT_ROW_F("scan.bounded.mode", RSQL_OPT_ENUM, SRC, "unbounded", 0, 0, bounded_modes, \
                   "`latest-offset`: the read ends once every partition is read up to the end " \
                   "it had when the job started (a batch job). `unbounded`: it runs until " \
                   "stopped.", \
                   F(bounded_mode, int))
#define KAFKA_ROW_FIELDS_INCLUDE \
    RSQL_OPT_ROW_F("value.fields-include", RSQL_OPT_ENUM, 0, "ALL", 0, 0, fields_includes, \
                   "With a key (`key.fields`; upsert-kafka: the PRIMARY KEY): `ALL`, the value " \
                   "holds every column, the key's too (a source reads every column from the " \
                   "value); `EXCEPT_KEY`, the value holds every column but the key's, and a " \
                   "source reads the key's columns from the record key (in `key.format`; a " \
                   "record without a key gives them NULL) and the others from the value. " \
                   "`EXCEPT_KEY` needs a value format that is not a changelog one (`json`, " \
                   "`csv`, `raw`).", \
                   F(fields_include, int))
#define KAFKA_ROWS_CONNECTION \
    RSQL_OPT_ROW_F("connect.timeout", RSQL_OPT_DURATION, 0, "15s", 100, RSQL_MS_H, NULL, \
                   "How long a job waits at its start for the brokers to answer (the topic's " \
                   "partitions); then it fails, naming the brokers and librdkafka's last error.", \
                   F(timeout_ms, int64_t)), \
    SECRET_PROP("sasl.password", "the SASL password"), \
    SECRET_PROP("ssl.key.password", "the private key's password"), \
    SECRET_PROP("ssl.key.pem", "the private key"), \
    SECRET_PROP("ssl.keystore.password", "the keystore's password"), \
    SECRET_PROP("sasl.oauthbearer.client.secret", "the OAuth client secret"), \
    RSQL_OPT_ROW("properties.*", RSQL_OPT_STR, 0, NULL, 0, 0, NULL, \
                 "Any other librdkafka property, its name after `properties.` " \
                 "(`properties.security.protocol`, `properties.fetch.max.bytes`, ...), passed " \
                 "as given; a name or value librdkafka refuses fails the job's start with its " \
                 "reason. Set by the connector itself and so refused here: " \
                 "`enable.auto.commit`, `enable.auto.offset.store`, `enable.idempotence`.")

static const rsql_opt_def_t kafka_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("kafka"),
    KAFKA_ROW_SERVERS,
    RSQL_OPT_ROW_F("topic", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED | SNK, NULL, 0, 0, NULL,
                   "The topic. A source may read several, separated by `;` (`orders;refunds`); "
                   "a sink writes exactly one. A topic that does not exist is an error when the "
                   "job starts (the connector never creates one). To read, `topic` or "
                   "`topic-pattern` is required.",
                   F(topic, const char *)),
    RSQL_OPT_ROW_VF("topic-pattern", RSQL_OPT_STR, SRC | RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                    "Instead of `topic`, for a source: every topic whose whole name matches this "
                    "regular expression (PCRE2, as a Java `matches()`: `orders-.*`), as the "
                    "cluster lists them when the job starts (internal topics, `__...`, left "
                    "out). None matching is an error; topics made later are read by the next "
                    "run.",
                    check_pattern, F(topic_pattern, const char *)),
    KAFKA_ROW_GROUP,
    RSQL_OPT_ROW_F("scan.startup.mode", RSQL_OPT_ENUM, SRC, "group-offsets", 0, 0, startup_modes,
                   "Where a job that has no position of its own yet starts reading each "
                   "partition: its first offset, its end, the group's committed offset (none "
                   "committed: where `properties.auto.offset.reset` says, `earliest` unless "
                   "given), the first record at or after `scan.startup.timestamp-millis`, or "
                   "`scan.startup.specific-offsets`. A job run again resumes after what it "
                   "committed, whatever the mode (in a group: after what the group or the job "
                   "committed, the later).",
                   F(startup_mode, int)),
    RSQL_OPT_ROW_FG("scan.startup.timestamp-millis", RSQL_OPT_INT, SRC, NULL, 0, INT64_MAX, NULL,
                    "With `scan.startup.mode` = `timestamp`: the time (ms since the epoch).",
                    F(startup_ts_ms, int64_t), F(startup_ts_given, bool)),
    RSQL_OPT_ROW_VF("scan.startup.specific-offsets", RSQL_OPT_STR, SRC, NULL, 0, 0, NULL,
                    "With `scan.startup.mode` = `specific-offsets`: the offset of each partition "
                    "(`partition:0,offset:42;partition:1,offset:300`; one topic). Partitions not "
                    "listed start at the group's committed offset.",
                    check_specific, F(specific_offsets, const char *)),
    KAFKA_ROW_BOUNDED,
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, "json", 0, 0, rsql_kafka_formats,
                   "How a record's value becomes a row, and a row a value. `value.format` is "
                   "the same option in Flink's other spelling (give one of the two).",
                   F(format, int)),
    RSQL_OPT_ROW_FG("value.format", RSQL_OPT_ENUM, 0, NULL, 0, 0, rsql_kafka_formats,
                    "As `format`.", F(value_format, int), F(value_format_given, bool)),
    RSQL_OPT_ROW_FG("key.format", RSQL_OPT_ENUM, 0, NULL, 0, 0, rsql_kafka_formats,
                    "With `key.fields`: the format of the record key. A sink writes those "
                    "columns as the key (the default partitioner then sends equal keys to one "
                    "partition). Whether the value holds them too: `value.fields-include`.",
                    F(key_format, int), F(key_format_given, bool)),
    RSQL_OPT_ROW_F("key.fields", RSQL_OPT_STR, 0, NULL, 0, 0, NULL,
                   "The columns of the record key, separated by `;` (`id` or `region;id`). "
                   "Needs `key.format`. Without it records have no key.",
                   F(key_fields, const char *)),
    KAFKA_ROW_FIELDS_INCLUDE,
    RSQL_OPT_ROW_F("sink.partitioner", RSQL_OPT_ENUM, SNK, "default", 0, 0, partitioners,
                   "Which partition a row goes to: `default`, by the hash of the key (murmur2, "
                   "as Kafka's Java producer; no key: any partition); `fixed`, all to partition "
                   "0 (one writer); `round-robin`, the partitions in turn.",
                   F(partitioner, int)),
    RSQL_OPT_ROW_F("sink.delivery-guarantee", RSQL_OPT_ENUM, SNK, "at-least-once", 0, 0,
                   guarantees,
                   "`at-least-once`: the idempotent producer (no duplicates from its own "
                   "retries, order kept per partition); a row counts as written once every "
                   "in-sync replica has it, so a crash can only write rows again, never lose "
                   "them. `none`: acks from the leader only, no idempotence. `exactly-once`: "
                   "Kafka transactions that carry the source's positions with the rows (in "
                   "`sink.positions-topic`); a row counts as written once its transaction "
                   "committed, a run resumes from the positions committed, so a consumer with "
                   "`isolation.level=read_committed` sees each row once across crashes. For "
                   "sources whose positions rocketsql keeps (files, databases, Kafka), not "
                   "RocketMQ.",
                   F(guarantee, int)),
    RSQL_OPT_ROW_F("sink.transactional-id-prefix", RSQL_OPT_STR, SNK, "rocketsql", 0, 0, NULL,
                   "With `exactly-once`: the producer's `transactional.id` is this, `-`, and "
                   "the job's name, so a new run of the job fences the one before it (its open "
                   "transaction is aborted) and two processes of one job cannot both commit.",
                   F(txn_prefix, const char *)),
    RSQL_OPT_ROW_F("sink.positions-topic", RSQL_OPT_STR, SNK, "rocketsql-positions", 0, 0, NULL,
                   "With `exactly-once`: the topic that holds each job's source positions, "
                   "written in the rows' transactions (key: the job and the source partition, "
                   "value: the offset) and read back, read_committed, when a run starts. Made "
                   "when missing (one partition, `cleanup.policy=compact`).",
                   F(positions_topic, const char *)),
    RSQL_OPT_ROW_F("sink.transaction.max-rows", RSQL_OPT_INT, SNK, "8192", 1, 1000000, NULL,
                   "With `exactly-once`: the most rows one transaction holds; a transaction "
                   "also commits at each flush of the runtime (every `state.flush-interval` "
                   "while rows come, and when none came for a moment).",
                   F(txn_max_rows, int64_t)),
    KAFKA_ROWS_CONNECTION,
    RSQL_OPT_END,
};

static rsql_err_t own_properties(const rsql_optset_t *set, rsql_error_t *err);

/* Cross-option rules; each error names the option to change. */
static rsql_err_t kafka_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    rsql_err_t rc;
    if ((rc = rsql_conn__exclusive(set, "topic", "topic-pattern", err)) ||
        (rc = rsql_conn__exclusive(set, "format", "value.format", err)) ||
        (rc = rsql_conn__requires(set, "scan.startup.timestamp-millis", "scan.startup.mode",
                                  "timestamp", err)) ||
        (rc = rsql_conn__requires(set, "scan.startup.specific-offsets", "scan.startup.mode",
                                  "specific-offsets", err))) {
        return rc;
    }
    const char *mode = rsql_optset_str(set, "scan.startup.mode");
    if (strcasecmp(mode, "timestamp") == 0 &&
        !rsql_optset_has(set, "scan.startup.timestamp-millis")) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION,
                              rsql_conn__value_pos(set, "scan.startup.mode"),
                              "scan.startup.mode 'timestamp' needs "
                              "'scan.startup.timestamp-millis'");
    }
    if (strcasecmp(mode, "specific-offsets") == 0 &&
        !rsql_optset_has(set, "scan.startup.specific-offsets")) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION,
                              rsql_conn__value_pos(set, "scan.startup.mode"),
                              "scan.startup.mode 'specific-offsets' needs "
                              "'scan.startup.specific-offsets'");
    }
    bool kf = rsql_optset_has(set, "key.format"), kl = rsql_optset_has(set, "key.fields");
    if (kf != kl) {
        const char *given = kf ? "key.format" : "key.fields";
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, rsql_conn__key_pos(set, given),
                              "option '%s' needs '%s'", given, kf ? "key.fields" : "key.format");
    }
    if (strcasecmp(rsql_optset_str(set, "value.fields-include"), "EXCEPT_KEY") == 0) {
        if (!kl) {
            return rsql_error_set(err, RSQL_ERR_MISSING_OPTION,
                                  rsql_conn__value_pos(set, "value.fields-include"),
                                  "value.fields-include 'EXCEPT_KEY' needs 'key.fields' (and "
                                  "'key.format')");
        }
        const char *vf = rsql_optset_has(set, "value.format") ? "value.format" : "format";
        if (rsql_format_changelog(rsql_optset_str(set, vf))) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION,
                                  rsql_conn__value_pos(set, "value.fields-include"),
                                  "value.fields-include 'EXCEPT_KEY' needs an insert-only value "
                                  "format (json, csv, raw), not '%s'",
                                  rsql_optset_str(set, vf));
        }
    }
    return own_properties(set, err);
}

/* The librdkafka properties the connector sets itself are refused. */
static rsql_err_t own_properties(const rsql_optset_t *set, rsql_error_t *err)
{
    for (int i = 0; i < rsql_optset_count(set); i++) {
        const rsql_opt_kv_t *kv = rsql_optset_at(set, i);
        static const char *const ours[] = {"properties.enable.auto.commit",
                                           "properties.enable.auto.offset.store",
                                           "properties.enable.idempotence",
                                           "properties.transactional.id", NULL};
        for (int k = 0; ours[k]; k++) {
            if (strcasecmp(kv->key, ours[k]) == 0) {
                return rsql_error_set(err, RSQL_ERR_BAD_OPTION, kv->key_pos,
                                      "option '%s' is set by the connector itself (offsets are "
                                      "committed as the job commits; the producer follows "
                                      "'sink.delivery-guarantee')",
                                      kv->key);
            }
        }
    }
    return RSQL_OK;
}

/* The value format's name; key.fields must name columns of the table. */
static rsql_err_t kafka_configure(void *conf, const rsql_optset_t *set,
                                  const char *const *columns, int n_columns, rsql_arena_t *arena,
                                  rsql_error_t *err)
{
    (void)arena;
    rsql_kafka_conf_t *c = conf;
    c->format_name = rsql_kafka_formats[c->value_format_given ? c->value_format : c->format];
    if (!c->key_fields || n_columns <= 0) {
        return RSQL_OK;
    }
    const char *p = c->key_fields;
    while (*p) {
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        for (int i = 0; i < n_columns && !found; i++) {
            found = strlen(columns[i]) == len && strncasecmp(columns[i], p, len) == 0;
        }
        if (!found) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_conn__value_pos(set, "key.fields"),
                                  "option 'key.fields': unknown column '%.*s'", (int)len, p);
        }
        p = e ? e + 1 : p + len;
    }
    return RSQL_OK;
}

static bool kafka_bounded(const void *conf, const char **why)
{
    const rsql_kafka_conf_t *c = conf;
    bool b = c->bounded_mode == RSQL_KAFKA_BOUND_LATEST;
    *why = b ? "bounded (ends at the partitions' ends as of the start)"
             : "unbounded (scan.bounded.mode 'unbounded')";
    return b;
}

/* rsql_connector_def_t.shares_rows: a group's members share the partitions of an unbounded
   read (kafka_group.c). */
static const char *kafka_shares_rows(const void *conf)
{
    const rsql_kafka_conf_t *c = conf;
    return c && c->group_id && c->bounded_mode != RSQL_KAFKA_BOUND_LATEST
               ? "properties.group.id: the members of its group share its partitions"
               : NULL;
}

/* Before a read runs: a topic or a pattern, and group-offsets needs the group. */
static rsql_err_t kafka_check_source(const void *conf, rsql_error_t *err)
{
    const rsql_kafka_conf_t *c = conf;
    if (c && !c->topic && !c->topic_pattern) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "missing required option 'topic' (or 'topic-pattern') for "
                              "connector 'kafka'");
    }
    if (c && c->startup_mode == RSQL_KAFKA_START_GROUP && !c->group_id) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "option 'properties.group.id' is required to read with "
                              "scan.startup.mode 'group-offsets' (the default); or set "
                              "scan.startup.mode to 'earliest-offset' or 'latest-offset'");
    }
    return RSQL_OK;
}

/* EXPLAIN: what the source commits where, and how the sink writes. */
static void kafka_explain(const rsql_explain_t *x)
{
    const rsql_kafka_conf_t *c = x->conf;
    if (!c) {
        return;
    }
    if (x->part == RSQL_EXPLAIN_SOURCE) {
        if (c->topic_pattern) {
            x->attr(x, "topics", "those matching '%s' when the read starts", c->topic_pattern);
        }
        if (c->group_id && c->bounded_mode != RSQL_KAFKA_BOUND_LATEST && !x->preview) {
            x->attr(x, "partitions", "those group '%s' gives this job (subscribed; shared with "
                    "the group's other members, rebalanced), each a lane", c->group_id);
        } else {
            x->attr(x, "partitions", "all assigned to this job, each a lane (no group "
                    "rebalance)");
        }
        if (x->preview) {
            x->attr(x, "group", "nothing committed (a preview)");
        } else if (c->group_id) {
            x->attr(x, "group", "'%s': the job's committed positions are sent to it",
                    c->group_id);
        } else {
            x->attr(x, "group", "none (properties.group.id not set): positions in the catalog "
                    "only");
        }
    } else if (x->part == RSQL_EXPLAIN_SINK) {
        static const char *const parts[] = {"by the key's hash (murmur2)", "all to partition 0",
                                            "round-robin"};
        x->attr(x, "producer", "%s; partitions %s%s%s",
                c->guarantee == RSQL_KAFKA_DG_NONE
                    ? "acks from the leader, not idempotent"
                : c->guarantee == RSQL_KAFKA_DG_EXACTLY_ONCE
                    ? "transactional (exactly-once for read_committed consumers)"
                    : "idempotent, acks from every in-sync replica (at-least-once)",
                parts[c->partitioner], c->key_fields ? ", key " : "",
                c->key_fields ? c->key_fields : "");
        if (c->guarantee == RSQL_KAFKA_DG_EXACTLY_ONCE) {
            x->attr(x, "transactions",
                    "up to %" PRId64 " rows each, committed with the source positions in '%s'; "
                    "transactional.id '%s-' and the job's name",
                    c->txn_max_rows, c->positions_topic ? c->positions_topic : "",
                    c->txn_prefix ? c->txn_prefix : "");
        }
    }
}

/* sink.delivery-guarantee 'exactly-once': the sink stores the positions (kafka_txn.c). */
static bool kafka_sink_exactly_once(const void *conf)
{
    const rsql_kafka_conf_t *c = conf;
    return c && c->guarantee == RSQL_KAFKA_DG_EXACTLY_ONCE;
}

/* METADATA columns (Flink's names). */
static const rsql_meta_def_t kafka_meta[] = {
    RSQL_META_ROW("topic", "VARCHAR", RSQL_META_READ, "The topic the record was read from."),
    RSQL_META_ROW("partition", "INT", RSQL_META_READ, "Its partition."),
    RSQL_META_ROW("offset", "BIGINT", RSQL_META_READ, "Its offset in the partition."),
    RSQL_META_ROW("timestamp", "TIMESTAMP(3)", RSQL_META_READ | RSQL_META_WRITE,
                  "The record's timestamp. Written: the timestamp of the record sent (NULL: the "
                  "producer's clock)."),
    RSQL_META_ROW("timestamp-type", "VARCHAR", RSQL_META_READ,
                  "`CreateTime`, `LogAppendTime` or `NoTimestampType`."),
    RSQL_META_ROW("headers", "MAP<STRING, BYTES>", RSQL_META_READ | RSQL_META_WRITE,
                  "The record's headers, name to value (an empty map when none; a header "
                  "without a value maps to NULL). Written: the headers of the record sent "
                  "(NULL or an empty map: none)."),
    RSQL_META_ROW("leader-epoch", "INT", RSQL_META_READ,
                  "The leader epoch of the record if available (Flink's `INT NULL`): always "
                  "NULL with the librdkafka this build uses (" RSQL_KAFKA_EPOCH_WHY ")."),
    RSQL_META_END,
};

const rsql_connector_def_t rsql_kafka_conn_def = {
    .name = "kafka",
    .description =
        "Apache Kafka topics through librdkafka. The source reads one or more topics (each "
        "partition a lane, its position committed only up to the first record whose outcome "
        "is not known, to the catalog and to the consumer group; with a group, the processes "
        "of the group share the partitions); the sink writes one topic "
        "with the idempotent producer and reports each row when the brokers have it.",
    .caps = RSQL_CAP_SOURCE | RSQL_CAP_SINK,
    .opts = kafka_opts,
    .formats = rsql_kafka_formats,
    .finalize = kafka_finalize,
    .conf_size = sizeof(rsql_kafka_conf_t),
    .configure = kafka_configure,
    .source = &rsql_kafka_source_ops,
    .sink = &rsql_kafka_sink_ops,
    .bounded = kafka_bounded,
    .shares_rows = kafka_shares_rows,
    .changes = RSQL_CHANGES_BY_FORMAT,
    .metadata = kafka_meta,
    .check_source = kafka_check_source,
    .explain = kafka_explain,
    .sink_exactly_once = kafka_sink_exactly_once,
};

/* ---- upsert-kafka: a topic as a table by its PRIMARY KEY (Flink's upsert-kafka) */

static const rsql_opt_def_t upsert_kafka_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("upsert-kafka"),
    KAFKA_ROW_SERVERS,
    RSQL_OPT_ROW_F("topic", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                   "The topic. A source may read several, separated by `;`; a sink writes "
                   "exactly one. It must exist (the connector never creates one); a compacted "
                   "topic (`cleanup.policy=compact`) keeps the last record of each key.",
                   F(topic, const char *)),
    KAFKA_ROW_GROUP,
    KAFKA_ROW_BOUNDED,
    RSQL_OPT_ROW_FG("key.format", RSQL_OPT_ENUM, 0, "json", 0, 0, rsql_kafka_formats,
                    "The format of the record key: the table's PRIMARY KEY columns, in key "
                    "order. An insert-only format (`json`, `csv`, `raw`).",
                    F(key_format, int), F(key_format_given, bool)),
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, "json", 0, 0, rsql_kafka_formats,
                   "The format of the record value (the row; `value.fields-include`), an "
                   "insert-only one (`json`, `csv`, `raw`). `value.format` is the same option in "
                   "Flink's spelling (give one of the two).",
                   F(format, int)),
    RSQL_OPT_ROW_FG("value.format", RSQL_OPT_ENUM, 0, NULL, 0, 0, rsql_kafka_formats,
                    "As `format`.", F(value_format, int), F(value_format_given, bool)),
    KAFKA_ROW_FIELDS_INCLUDE,
    KAFKA_ROWS_CONNECTION,
    RSQL_OPT_END,
};

/* Cross-option rules of upsert-kafka: insert-only formats, the properties the connector sets. */
static rsql_err_t upsert_kafka_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    rsql_err_t rc = rsql_conn__exclusive(set, "format", "value.format", err);
    if (rc != RSQL_OK) {
        return rc;
    }
    static const char *const fmts[] = {"key.format", "value.format", "format", NULL};
    for (int i = 0; fmts[i]; i++) {
        const char *f = rsql_optset_str(set, fmts[i]);
        if (f && rsql_format_changelog(f)) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_conn__value_pos(set, fmts[i]),
                                  "upsert-kafka: option '%s' must be an insert-only format "
                                  "(json, csv, raw), not '%s': the changes are the records "
                                  "themselves (a value an upsert of its key, none a delete)",
                                  fmts[i], f);
        }
    }
    return own_properties(set, err);
}

static rsql_err_t upsert_kafka_configure(void *conf, const rsql_optset_t *set,
                                         const char *const *columns, int n_columns,
                                         rsql_arena_t *arena, rsql_error_t *err)
{
    rsql_kafka_conf_t *c = conf;
    c->upsert = true;
    c->startup_mode = RSQL_KAFKA_START_EARLIEST; /* the whole topic is the table */
    return kafka_configure(conf, set, columns, n_columns, arena, err);
}

/* An upsert source: +I (an upsert of the key) and -D, by the table's PRIMARY KEY. */
static int upsert_kafka_produces_changes(const void *conf)
{
    (void)conf;
    return RSQL_MODE_UPSERT;
}

static void upsert_kafka_explain(const rsql_explain_t *x)
{
    const rsql_kafka_conf_t *c = x->conf;
    if (c && x->part == RSQL_EXPLAIN_SINK) {
        x->attr(x, "producer", "idempotent, acks from every in-sync replica (at-least-once); "
                "key: the PRIMARY KEY in %s; -D and -U write the key's tombstone",
                rsql_kafka_formats[c->key_format]);
    } else if (c && x->part == RSQL_EXPLAIN_SOURCE) {
        x->attr(x, "changes", "upsert by the PRIMARY KEY: a record with a value +I, a "
                "tombstone -D");
        kafka_explain(x);
    }
}

const rsql_connector_def_t rsql_upsert_kafka_conn_def = {
    .name = "upsert-kafka",
    .description =
        "A Kafka topic as a table keyed by its PRIMARY KEY (Flink's upsert-kafka): the "
        "record key is the key's columns, a record with a value the key's row (an upsert) and "
        "one without a value (a tombstone) its delete. The source reads the topic from its "
        "beginning as an upsert changelog; the sink writes each +I and +U as a record, each "
        "-D and -U as a tombstone.",
    .caps = RSQL_CAP_SOURCE | RSQL_CAP_SINK,
    .opts = upsert_kafka_opts,
    .formats = rsql_kafka_formats,
    .finalize = upsert_kafka_finalize,
    .conf_size = sizeof(rsql_kafka_conf_t),
    .configure = upsert_kafka_configure,
    .source = &rsql_kafka_source_ops,
    .sink = &rsql_kafka_sink_ops,
    .bounded = kafka_bounded,
    .shares_rows = kafka_shares_rows,
    .changes = RSQL_CHANGES_BY_KEY,
    .keyed_log = true,
    .metadata = kafka_meta,
    .check_source = kafka_check_source,
    .produces_changes = upsert_kafka_produces_changes,
    .explain = upsert_kafka_explain,
    .sink_exactly_once = kafka_sink_exactly_once,
};
