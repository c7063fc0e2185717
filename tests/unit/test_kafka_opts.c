/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * test_kafka_opts: the kafka connector without a broker: its options (Flink's names, the
 * configuration they make, the cross-option rules with their positions), value.format in
 * place of format, the properties.* family (passed to librdkafka as given, a refused one
 * named without echoing a secret, secrets masked when shown).
 */
#include "config.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "connectors/kafka/kafka_conf.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/lib/cu_opts.h"

/* Validate key, value, ..., NULL for a table of columns id, name (cu_opts.h's offsets). */
static rsql_optset_t *with(const char *const *kv, rsql_error_t *err)
{
    static const char *const cols[] = {"id", "name"};
    return cu_opts_validate(kv, cols, 2, RSQL_OPTSET_RESOLVE, NULL, err);
}

static void expect_fail(const char *const *kv, rsql_err_t code, const char *msg, uint32_t off)
{
    rsql_error_t err;
    rsql_optset_t *set = with(kv, &err);
    cu_opts_failed(set, &err, code, msg, off);
}

#define BASE "connector", "kafka", "properties.bootstrap.servers", "h:9092", "topic", "orders"

/* The sink's gather_rows for set's configuration (0: the runtime's queue, no transactions). */
static int kafka_gather_rows(const rsql_connector_def_t *d, const rsql_optset_t *set)
{
    return d->sink && d->sink->gather_rows
               ? d->sink->gather_rows(rsql_optset_conf(set, RSQL_CONF_CONNECTOR))
               : -1;
}

static void test_kafka_defaults(void)
{
    const char *kv[] = {BASE, NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    const rsql_kafka_conf_t *c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->servers, "h:9092");
    CU_ASSERT_STRING_EQUAL(c->topic, "orders");
    CU_ASSERT_PTR_NULL(c->group_id);
    CU_ASSERT_EQUAL(c->startup_mode, RSQL_KAFKA_START_GROUP);
    CU_ASSERT_EQUAL(c->bounded_mode, RSQL_KAFKA_BOUND_NONE);
    CU_ASSERT_EQUAL(c->partitioner, RSQL_KAFKA_PART_DEFAULT);
    CU_ASSERT_EQUAL(c->guarantee, RSQL_KAFKA_DG_AT_LEAST_ONCE);
    CU_ASSERT_EQUAL(c->timeout_ms, 15000);
    CU_ASSERT_STRING_EQUAL(c->txn_prefix, "rocketsql");
    CU_ASSERT_STRING_EQUAL(c->positions_topic, "rocketsql-positions");
    CU_ASSERT_EQUAL(c->txn_max_rows, 8192);
    CU_ASSERT_STRING_EQUAL(c->format_name, "json");
    const rsql_connector_def_t *d = rsql_connector_find("kafka");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    const char *why = NULL;
    CU_ASSERT_FALSE(d->bounded(c, &why));
    /* at-least-once by default; exactly-once (transactions) when asked */
    CU_ASSERT_FALSE(rsql_connector_exactly_once(d, c));
    const char *kv_eo[] = {BASE, "sink.delivery-guarantee", "exactly-once", NULL};
    rsql_optset_t *eo = with(kv_eo, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(eo);
    CU_ASSERT_TRUE(rsql_connector_exactly_once(d, rsql_optset_conf(eo, RSQL_CONF_CONNECTOR)));
    CU_ASSERT_EQUAL(kafka_gather_rows(d, eo), 8192);
    CU_ASSERT_EQUAL(kafka_gather_rows(d, set), 8192); /* rows in flight while reports come */
    rsql_optset_destroy(eo);
    /* to write, 'topic' is required; to read, it or topic-pattern */
    CU_ASSERT_EQUAL(rsql_connector_check_side(d, set, RSQL_SIDE_SINK, "t", RSQL_NOPOS, &err),
                    RSQL_OK);
    const char *kv_no_topic[] = {"connector", "kafka", "properties.bootstrap.servers", "h:1",
                                 "properties.group.id", "g", NULL};
    rsql_optset_t *nt = with(kv_no_topic, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nt);
    CU_ASSERT_EQUAL(rsql_connector_check_side(d, nt, RSQL_SIDE_SINK, "t", RSQL_NOPOS, &err),
                    RSQL_ERR_MISSING_OPTION);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(d->check_source(rsql_optset_conf(nt, RSQL_CONF_CONNECTOR), &err),
                    RSQL_ERR_MISSING_OPTION);
    CU_ASSERT_STRING_EQUAL(err.msg, "missing required option 'topic' (or 'topic-pattern') for "
                                    "connector 'kafka'");
    rsql_optset_destroy(nt);
    rsql_error_clear(&err);
    /* group-offsets (the default) needs the group before a read runs */
    CU_ASSERT_EQUAL(d->check_source(c, &err), RSQL_ERR_MISSING_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'properties.group.id' is required"));
    rsql_optset_destroy(set);
}

static void test_kafka_flink_names(void)
{
    const char *kv[] = {BASE, "value.format", "csv", "key.format", "json", "key.fields", "id",
                        "properties.group.id", "g1", "scan.startup.mode", "specific-offsets",
                        "scan.startup.specific-offsets", "partition:0,offset:42;partition:1,offset:7",
                        "scan.bounded.mode", "latest-offset", "sink.partitioner", "round-robin",
                        "properties.fetch.max.bytes", "1048576", NULL};
    rsql_error_t err;
    const rsql_connector_def_t *d = NULL;
    static const char *const cols[] = {"id", "name"};
    rsql_optset_t *set = cu_opts_validate(kv, cols, 2, RSQL_OPTSET_RESOLVE, &d, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    const rsql_kafka_conf_t *c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_STRING_EQUAL(c->format_name, "csv");
    CU_ASSERT_PTR_EQUAL(rsql_connector_format(d, set), rsql_format_find("csv"));
    CU_ASSERT_STRING_EQUAL(c->key_fields, "id");
    CU_ASSERT_EQUAL(c->startup_mode, RSQL_KAFKA_START_SPECIFIC);
    CU_ASSERT_EQUAL(c->partitioner, RSQL_KAFKA_PART_ROUND_ROBIN);
    const char *why = NULL;
    CU_ASSERT_TRUE(d->bounded(c, &why));
    CU_ASSERT_EQUAL(d->check_source(c, &err), RSQL_OK);

    /* properties.* reach librdkafka as given; bootstrap.servers and group.id too */
    rsql_kafka_errbox_t box = {.mu = PTHREAD_MUTEX_INITIALIZER};
    const char *extra[] = {"enable.auto.commit", "false"};
    rd_kafka_conf_t *kc = rsql_kafka__conf_new(c, set, extra, 1, &box, &err);
    if (!kc) {
        fprintf(stderr, "\n  %s\n", err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(kc);
    char v[64];
    size_t vlen = sizeof v;
    CU_ASSERT_EQUAL(rd_kafka_conf_get(kc, "fetch.max.bytes", v, &vlen), RD_KAFKA_CONF_OK);
    CU_ASSERT_STRING_EQUAL(v, "1048576");
    vlen = sizeof v;
    CU_ASSERT_EQUAL(rd_kafka_conf_get(kc, "bootstrap.servers", v, &vlen), RD_KAFKA_CONF_OK);
    CU_ASSERT_STRING_EQUAL(v, "h:9092");
    vlen = sizeof v;
    CU_ASSERT_EQUAL(rd_kafka_conf_get(kc, "group.id", v, &vlen), RD_KAFKA_CONF_OK);
    CU_ASSERT_STRING_EQUAL(v, "g1");
    vlen = sizeof v;
    CU_ASSERT_EQUAL(rd_kafka_conf_get(kc, "enable.auto.commit", v, &vlen), RD_KAFKA_CONF_OK);
    CU_ASSERT_STRING_EQUAL(v, "false");
    rd_kafka_conf_destroy(kc);
    rsql_optset_destroy(set);
}

/* A property librdkafka refuses: named, its value echoed unless it is a secret. */
static void test_kafka_refused_property(void)
{
    rsql_error_t err;
    rsql_kafka_errbox_t box = {.mu = PTHREAD_MUTEX_INITIALIZER};
    const char *kv[] = {BASE, "properties.no.such.thing", "1", NULL};
    rsql_optset_t *set = with(kv, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    const rsql_kafka_conf_t *c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_PTR_NULL(rsql_kafka__conf_new(c, set, NULL, 0, &box, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "option 'properties.no.such.thing' = '1' refused by "
                                           "librdkafka: "));
    rsql_optset_destroy(set);

    const char *kv2[] = {BASE, "properties.sasl.password", "hunter2-secret",
                         "properties.security.protocol", "SASL_PLAINTEXT", NULL};
    set = with(kv2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_TRUE(rsql_connector_is_secret(rsql_connector_find("kafka"),
                                            "properties.sasl.password"));
    CU_ASSERT_FALSE(rsql_connector_is_secret(rsql_connector_find("kafka"),
                                             "properties.security.protocol"));
    rsql_buf_t shown;
    rsql_buf_init(&shown);
    rsql_connector_put_shown(&shown, rsql_connector_find("kafka"), "properties.sasl.password",
                             "hunter2-secret");
    CU_ASSERT_STRING_EQUAL(shown.data, "******");
    rsql_buf_deinit(&shown);
    rsql_optset_destroy(set);
}

static void test_kafka_errors(void)
{
    expect_fail((const char *const[]){BASE, "format", "json", "value.format", "csv", NULL},
                RSQL_ERR_BAD_OPTION, "options 'format' and 'value.format' cannot be used together",
                400);
    expect_fail((const char *const[]){BASE, "key.format", "json", NULL}, RSQL_ERR_MISSING_OPTION,
                "option 'key.format' needs 'key.fields'", 300);
    expect_fail((const char *const[]){BASE, "key.format", "json", "key.fields", "id;nope", NULL},
                RSQL_ERR_BAD_OPTION, "option 'key.fields': unknown column 'nope'", 450);
    expect_fail((const char *const[]){BASE, "properties.transactional.id", "x", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'properties.transactional.id' is set by the connector itself (offsets "
                "are committed as the job commits; the producer follows "
                "'sink.delivery-guarantee')",
                300);
    expect_fail((const char *const[]){BASE, "scan.startup.mode", "timestamp", NULL},
                RSQL_ERR_MISSING_OPTION,
                "scan.startup.mode 'timestamp' needs 'scan.startup.timestamp-millis'", 350);
    expect_fail((const char *const[]){BASE, "scan.startup.mode", "earliest-offset",
                                      "scan.startup.timestamp-millis", "1", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'scan.startup.timestamp-millis' requires 'scan.startup.mode' = "
                "'timestamp'",
                400);
    expect_fail((const char *const[]){BASE, "scan.startup.specific-offsets", "0:42", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'scan.startup.specific-offsets' must be a list like "
                "'partition:0,offset:42;partition:1,offset:300', got '0:42'",
                350);
    expect_fail((const char *const[]){BASE, "properties.enable.auto.commit", "true", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'properties.enable.auto.commit' is set by the connector itself (offsets "
                "are committed as the job commits; the producer follows "
                "'sink.delivery-guarantee')",
                300);
    expect_fail((const char *const[]){BASE, "topic-pattern", "orders-.*", NULL},
                RSQL_ERR_BAD_OPTION, "options 'topic' and 'topic-pattern' cannot be used together",
                300);
    expect_fail((const char *const[]){"connector", "kafka", "properties.bootstrap.servers", "h:1",
                                      "topic-pattern", "orders-(", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'topic-pattern': not a regular expression: missing closing parenthesis "
                "at offset 8",
                250);
    expect_fail((const char *const[]){BASE, "sink.partitioner", "sticky", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value 'sticky' for option 'sink.partitioner': expected one of default, "
                "fixed, round-robin",
                350);
}

/* topic-pattern: whole names only, internal topics left out, sorted. */
static void test_kafka_pattern(void)
{
    struct rd_kafka_metadata_topic topics[] = {
        {.topic = (char *)"orders-eu"}, {.topic = (char *)"__consumer_offsets"},
        {.topic = (char *)"orders-us"}, {.topic = (char *)"old-orders-eu"},
        {.topic = (char *)"orders-"},   {.topic = (char *)"orders-asia.dlq"}};
    struct rd_kafka_metadata md = {.topic_cnt = 6, .topics = topics};
    char **names = NULL;
    int n = rsql_kafka__pattern_topics("orders-[a-z]+", &md, &names);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(names[0], "orders-eu");
    CU_ASSERT_STRING_EQUAL(names[1], "orders-us");
    for (int i = 0; i < n; i++) {
        rsql_free(names[i]);
    }
    rsql_free(names);
    CU_ASSERT_EQUAL(rsql_kafka__pattern_topics("_.*", &md, &names), 0);
    rsql_free(names);
    char why[160];
    CU_ASSERT_EQUAL(rsql_kafka__pattern_check("[", why, sizeof why), RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "not a regular expression"));
}

static CU_TestInfo kafka_tests[] = {{"pattern", test_kafka_pattern},
                                    {"defaults", test_kafka_defaults},
                                    {"flink_names", test_kafka_flink_names},
                                    {"refused_property", test_kafka_refused_property},
                                    {"errors", test_kafka_errors},
                                    CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {{"kafka_opts", NULL, NULL, NULL, NULL, kafka_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"
