/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of rmq_meta.c: the METADATA values of a received message (only the columns
 * read, widened to the column's type, keys joined, properties as a JSON object without the
 * broker's __SHARDINGKEY) and the parser of a written properties value (untrusted text:
 * every malformed form is a reason, never a crash; escapes and surrogate pairs decoded).
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "connectors/rocketmq/rmq_conn_int.h"

static void test_rmq_meta_ids(void)
{
    CU_ASSERT_EQUAL(rsql_rmq__meta_id("tag"), RMQ_META_TAG);
    CU_ASSERT_EQUAL(rsql_rmq__meta_id("message_type"), RMQ_META_MESSAGE_TYPE);
    CU_ASSERT_EQUAL(rsql_rmq__meta_id(""), RMQ_META_NONE);
    CU_ASSERT_EQUAL(rsql_rmq__meta_id(NULL), RMQ_META_NONE);
    CU_ASSERT_EQUAL(rsql_rmq__meta_id("TAG"), RMQ_META_NONE); /* the table's spelling only */
}

static void test_rmq_meta_record(void)
{
    char *keys[] = {"k1", "k2"};
    rsql_rmq_prop_t props[] = {{"a", "x\"y"}, {"__SHARDINGKEY", "g1"}, {"b", "\x01"},
                               {"INNER_MULTI_DISPATCH", "%LMQ%$t$l"}};
    rsql_rmq_msg_t m;
    memset(&m, 0, sizeof m);
    m.topic = "orders";
    m.message_id = "ID1";
    m.message_group = "g1";
    m.keys = keys;
    m.n_keys = 2;
    m.props = props;
    m.n_props = 4;
    m.born_ms = 1000;
    m.queue_id = 3;
    m.queue_offset = 42;
    m.delivery_attempt = 2;
    m.message_type = 2;
    int ids[] = {RMQ_META_NONE, RMQ_META_KEYS, RMQ_META_PROPERTIES, RMQ_META_QUEUE_ID,
                 RMQ_META_QUEUE_OFFSET, RMQ_META_BORN_TIMESTAMP, RMQ_META_DELIVERY_TIMESTAMP,
                 RMQ_META_TAG, RMQ_META_MESSAGE_TYPE, RMQ_META_TOPIC, RMQ_META_DELIVERY_ATTEMPT};
    rsql_type_t types[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, RSQL_TYPE_BIGINT,
                           RSQL_TYPE_DOUBLE, RSQL_TYPE_TIMESTAMP, RSQL_TYPE_TIMESTAMP,
                           RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, RSQL_TYPE_BYTES, RSQL_TYPE_INT};
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t *v = rsql_rmq__record_meta(a, &m, "fallback", 11, ids, types);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_TRUE(v[0].is_null);
    CU_ASSERT_FALSE(v[1].is_null);
    CU_ASSERT_EQUAL(v[1].v.s.len, 5);
    CU_ASSERT_EQUAL(memcmp(v[1].v.s.p, "k1 k2", 5), 0);
    CU_ASSERT_STRING_EQUAL(v[2].v.s.p, "{\"a\":\"x\\\"y\",\"b\":\"\\u0001\"}");
    CU_ASSERT_EQUAL(v[3].type, RSQL_TYPE_BIGINT);
    CU_ASSERT_EQUAL(v[3].v.i, 3);
    CU_ASSERT_EQUAL(v[4].type, RSQL_TYPE_DOUBLE);
    CU_ASSERT_DOUBLE_EQUAL(v[4].v.d, 42.0, 1e-9);
    CU_ASSERT_EQUAL(v[5].v.ts, 1000);
    CU_ASSERT_TRUE(v[6].is_null); /* not a timer message */
    CU_ASSERT_TRUE(v[7].is_null); /* no tag */
    CU_ASSERT_STRING_EQUAL(v[8].v.s.p, "FIFO");
    CU_ASSERT_STRING_EQUAL(v[9].v.s.p, "orders");
    CU_ASSERT_EQUAL(v[9].type, RSQL_TYPE_BYTES);
    CU_ASSERT_EQUAL(v[10].v.i, 2);
    /* no keys: NULL; no properties: {} ; no topic in the message: the table's */
    m.n_keys = 0;
    m.n_props = 0;
    m.topic = NULL;
    v = rsql_rmq__record_meta(a, &m, "fallback", 11, ids, types);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_TRUE(v[1].is_null);
    CU_ASSERT_STRING_EQUAL(v[2].v.s.p, "{}");
    CU_ASSERT_STRING_EQUAL(v[9].v.s.p, "fallback");
    rsql_arena_destroy(a);
}

static void test_rmq_meta_props_parse(void)
{
    rsql_rmq_prop_t *p = NULL;
    size_t n = 0;
    char why[200];
    const char *ok = " { \"a\" : \"1\", \"b\":\"x\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\" } ";
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__props_parse(ok, strlen(ok), &p, &n, why, sizeof why), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(p[0].key, "a");
    CU_ASSERT_STRING_EQUAL(p[0].value, "1");
    CU_ASSERT_STRING_EQUAL(p[1].value, "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
    rsql_rmq__props_free(p, n);
    CU_ASSERT_EQUAL(rsql_rmq__props_parse("{}", 2, &p, &n, why, sizeof why), RSQL_OK);
    CU_ASSERT_EQUAL(n, 0);
    rsql_rmq__props_free(p, n);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "it does not start with '{'"},
        {"[]", "it does not start with '{'"},
        {"{\"a\":1}", "a key or value is not a string"},
        {"{\"a\":\"1\"", "it does not end with '}'"},
        {"{\"a\" \"1\"}", "a ':' is missing"},
        {"{\"a\":\"1\" \"b\":\"2\"}", "a ',' or '}' is missing"},
        {"{\"a\":\"1\",\"a\":\"2\"}", "a repeated key"},
        {"{\"\":\"1\"}", "an empty key"},
        {"{\"a\":\"1\"} x", "text after the object"},
        {"{\"a\":\"\\x\"}", "a bad escape"},
        {"{\"a\":\"\\u12\"}", "a bad \\u escape"},
        {"{\"a\":\"\\u1", "a bad escape"},
        {"{\"a\":\"\\ud800\"}", "a lone surrogate"},
        {"{\"a\":\"\x01\"}", "a control character in a string"},
        {"{\"a\":\"1", "an unterminated string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = NULL;
        n = 7;
        rsql_err_t rc =
            rsql_rmq__props_parse(bad[i].text, strlen(bad[i].text), &p, &n, why, sizeof why);
        CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
        CU_ASSERT_PTR_NULL(p);
        CU_ASSERT_EQUAL(n, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
        if (!strstr(why, bad[i].why)) {
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, why, bad[i].why);
        }
    }
    /* bounded: over RMQ_PROPS_MAX bytes is refused before any parsing */
    size_t big = 64 * 1024 + 1;
    char *s = rsql_malloc(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    memset(s, ' ', big);
    CU_ASSERT_EQUAL(rsql_rmq__props_parse(s, big, &p, &n, why, sizeof why), RSQL_ERR_TOO_LARGE);
    rsql_free(s);
}

static CU_TestInfo meta_tests[] = {
    {"rmq_meta_ids", test_rmq_meta_ids},
    {"rmq_meta_record", test_rmq_meta_record},
    {"rmq_meta_props_parse", test_rmq_meta_props_parse},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"rmq_meta", NULL, NULL, NULL, NULL, meta_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"
