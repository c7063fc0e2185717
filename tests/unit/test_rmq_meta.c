/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of rmq_meta.c: the METADATA values of a received message (only the columns
 * read, widened to the column's type, keys an ARRAY<STRING>, properties a MAP<STRING, STRING>
 * without the broker's own) and a row's keys and properties values turned back into a
 * message's (NULL and empty keys left out; a NULL property value fails the row); and the
 * client configuration the source and the sink build from the same table options
 * (rsql_rmq__client_config).
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "connectors/rocketmq/rmq_conn_int.h"
#include "connectors/rocketmq/rmq_conf.h"

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
    rsql_rmq_prop_t props[] = {{"a", "x\"y"}, {"__SHARDINGKEY", "g1"}, {"b", ""},
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
    rsql_type_t types[] = {RSQL_TYPE_INT, RSQL_TYPE_ARRAY, RSQL_TYPE_MAP, RSQL_TYPE_BIGINT,
                           RSQL_TYPE_DOUBLE, RSQL_TYPE_TIMESTAMP, RSQL_TYPE_TIMESTAMP,
                           RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR, RSQL_TYPE_BYTES, RSQL_TYPE_INT};
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t *v = rsql_rmq__record_meta(a, &m, "fallback", 11, ids, types);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_TRUE(v[0].is_null);
    /* keys: ARRAY<STRING> */
    CU_ASSERT_EQUAL_FATAL(v[1].type, RSQL_TYPE_ARRAY);
    CU_ASSERT_FALSE(v[1].is_null);
    CU_ASSERT_PTR_EQUAL(v[1].v.c->desc, rsql_tdesc_array(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR)));
    CU_ASSERT_EQUAL_FATAL(v[1].v.c->n, 2);
    CU_ASSERT_STRING_EQUAL(v[1].v.c->items[0].v.s.p, "k1");
    CU_ASSERT_STRING_EQUAL(v[1].v.c->items[1].v.s.p, "k2");
    /* properties: MAP<STRING, STRING>, without the broker's own */
    CU_ASSERT_EQUAL_FATAL(v[2].type, RSQL_TYPE_MAP);
    CU_ASSERT_PTR_EQUAL(v[2].v.c->desc, rsql_tdesc_map(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR)));
    CU_ASSERT_EQUAL_FATAL(v[2].v.c->n, 2);
    CU_ASSERT_STRING_EQUAL(v[2].v.c->items[0].v.s.p, "a");
    CU_ASSERT_STRING_EQUAL(v[2].v.c->items[1].v.s.p, "x\"y");
    CU_ASSERT_STRING_EQUAL(v[2].v.c->items[2].v.s.p, "b");
    CU_ASSERT_FALSE(v[2].v.c->items[3].is_null);
    CU_ASSERT_EQUAL(v[2].v.c->items[3].v.s.len, 0);
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
    /* no keys, no properties: empty (not NULL); no topic in the message: the table's */
    m.n_keys = 0;
    m.n_props = 0;
    m.topic = NULL;
    v = rsql_rmq__record_meta(a, &m, "fallback", 11, ids, types);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_FALSE(v[1].is_null);
    CU_ASSERT_EQUAL(v[1].v.c->n, 0);
    CU_ASSERT_FALSE(v[2].is_null);
    CU_ASSERT_EQUAL(v[2].v.c->n, 0);
    CU_ASSERT_STRING_EQUAL(v[9].v.s.p, "fallback");
    rsql_arena_destroy(a);
}

/* A composite value of desc with n items, in arena. */
static rsql_value_t comp(rsql_arena_t *a, rsql_type_t t, const rsql_tdesc_t *desc, uint32_t n,
                         const rsql_value_t *items)
{
    rsql_composite_t *c = rsql_arena_alloc(a, sizeof(*c) + n * sizeof(rsql_value_t));
    c->desc = desc;
    c->n = t == RSQL_TYPE_MAP ? n / 2 : n;
    memcpy(c->items, items, n * sizeof(rsql_value_t));
    rsql_value_t v = {.type = t, .is_null = false};
    v.v.c = c;
    return v;
}

static rsql_value_t str(const char *s)
{
    rsql_value_t v = {.type = RSQL_TYPE_VARCHAR, .is_null = s == NULL};
    v.v.s.p = s;
    v.v.s.len = s ? strlen(s) : 0;
    return v;
}

static void test_rmq_meta_sink_values(void)
{
    rsql_arena_t *a = rsql_arena_new();
    const rsql_tdesc_t *vc = rsql_tdesc_scalar(RSQL_TYPE_VARCHAR);
    /* keys: NULL and empty elements left out; the rest in order */
    rsql_value_t ks[] = {str("k1"), str(NULL), str(""), str("k2")};
    rsql_value_t kv = comp(a, RSQL_TYPE_ARRAY, rsql_tdesc_array(vc), 4, ks);
    char **keys = NULL;
    size_t n = 9;
    CU_ASSERT_EQUAL(rsql_rmq__keys_of(&kv, &keys, &n), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(keys[0], "k1");
    CU_ASSERT_STRING_EQUAL(keys[1], "k2");
    rsql_rmq__strv_free(keys, n);
    rsql_value_t null = {.type = RSQL_TYPE_ARRAY, .is_null = true};
    CU_ASSERT_EQUAL(rsql_rmq__keys_of(&null, &keys, &n), RSQL_OK);
    CU_ASSERT_PTR_NULL(keys);
    CU_ASSERT_EQUAL(n, 0);

    /* properties: every pair; a NULL value or an empty key fails the row */
    char why[200];
    rsql_value_t ps[] = {str("tenant"), str("acme"), str("n"), str("")};
    rsql_value_t pv = comp(a, RSQL_TYPE_MAP, rsql_tdesc_map(vc), 4, ps);
    rsql_rmq_prop_t *props = NULL;
    CU_ASSERT_EQUAL(rsql_rmq__props_of(&pv, &props, &n, why, sizeof why), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(props[0].key, "tenant");
    CU_ASSERT_STRING_EQUAL(props[0].value, "acme");
    CU_ASSERT_STRING_EQUAL(props[1].key, "n");
    CU_ASSERT_STRING_EQUAL(props[1].value, "");
    rsql_rmq__props_free(props, n);
    rsql_value_t bad[] = {str("a"), str("1"), str("b"), str(NULL)};
    pv = comp(a, RSQL_TYPE_MAP, rsql_tdesc_map(vc), 4, bad);
    CU_ASSERT_EQUAL(rsql_rmq__props_of(&pv, &props, &n, why, sizeof why), RSQL_ERR_SINK);
    CU_ASSERT_STRING_EQUAL(why, "properties: the value of 'b' is NULL");
    CU_ASSERT_PTR_NULL(props);
    rsql_value_t empty_key[] = {str(""), str("1")};
    pv = comp(a, RSQL_TYPE_MAP, rsql_tdesc_map(vc), 2, empty_key);
    CU_ASSERT_EQUAL(rsql_rmq__props_of(&pv, &props, &n, why, sizeof why), RSQL_ERR_SINK);
    CU_ASSERT_STRING_EQUAL(why, "properties: an empty key");
    rsql_arena_destroy(a);
}

/* The connection options reach the client config whole; endpoints in the client's form. */
static void test_rmq_client_config(void)
{
    rsql_rmq_conf_t c;
    memset(&c, 0, sizeof c);
    c.endpoints = "a:8081,b:8081";
    c.namespace_ = "ns";
    c.access_key = "ak";
    c.secret_key = "sk";
    c.tls = true;
    c.tls_ca_file = "ca.pem";
    c.tls_server_name = "proxy";
    c.tls_cert_file = "cert.pem";
    c.tls_key_file = "key.pem";
    c.request_timeout_ms = 1234;
    rsql_rmq_config_t conf;
    memset(&conf, 0xff, sizeof conf); /* zeroed by the call */
    char *eps = rsql_rmq__client_config(&c, RSQL_RMQ_PRODUCER, &conf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(eps);
    CU_ASSERT_STRING_EQUAL(eps, "a:8081;b:8081");
    CU_ASSERT_PTR_EQUAL(conf.endpoints, eps);
    CU_ASSERT_STRING_EQUAL(conf.name_space, "ns");
    CU_ASSERT_STRING_EQUAL(conf.access_key, "ak");
    CU_ASSERT_STRING_EQUAL(conf.secret_key, "sk");
    CU_ASSERT_TRUE(conf.tls);
    CU_ASSERT_STRING_EQUAL(conf.tls_ca_file, "ca.pem");
    CU_ASSERT_STRING_EQUAL(conf.tls_server_name, "proxy");
    CU_ASSERT_STRING_EQUAL(conf.tls_cert_file, "cert.pem");
    CU_ASSERT_STRING_EQUAL(conf.tls_key_file, "key.pem");
    CU_ASSERT_EQUAL(conf.request_timeout_ms, 1234);
    CU_ASSERT_EQUAL(conf.client_type, RSQL_RMQ_PRODUCER);
    CU_ASSERT_PTR_NULL(conf.group); /* the caller's part */
    CU_ASSERT_PTR_NULL(conf.topics);
    CU_ASSERT_EQUAL(conf.n_topics, 0);
    rsql_free(eps);
    rsql_mem_fail_after(1); /* the endpoints copy fails: NULL */
    CU_ASSERT_PTR_NULL(rsql_rmq__client_config(&c, RSQL_RMQ_SIMPLE_CONSUMER, &conf));
    rsql_mem_fail_after(0);
}

static CU_TestInfo meta_tests[] = {
    {"rmq_client_config", test_rmq_client_config},
    {"rmq_meta_ids", test_rmq_meta_ids},
    {"rmq_meta_record", test_rmq_meta_record},
    {"rmq_meta_sink_values", test_rmq_meta_sink_values},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"rmq_meta", NULL, NULL, NULL, NULL, meta_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"
