/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the RocketMQ client's broker-free parts: request encoding and response
 * decoding (round trips through protobuf-c, which only this test, rmq_codec.c and rmq_decode.c
 * see), status mapping and the table of protocol numbers, the HMAC-SHA1 signature (RFC 2202
 * vector), message/request/client ids, gzip/zlib inflation and the RPC table.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <string.h>
#include <zlib.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "rmqclient/rmq_client.h"
#include "rmqclient/rmq_int.h"
#include "base/rsql_mem.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x
#define MAX_BODY ((size_t)4 << 20)

/* ---- status ---------------------------------------------------------------------------------- */

static void test_rmq_status_map(void)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(RSQL_RMQ_CODE_OK, "OK", &e), RSQL_OK);
    CU_ASSERT_EQUAL(e.code, RSQL_OK);

    CU_ASSERT_EQUAL(rsql_rmq__status_error(40402, "no route", &e), RSQL_ERR_NOT_FOUND);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ TOPIC_NOT_FOUND (40402): no route");
    CU_ASSERT_EQUAL(e.remote_code, 40402);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));

    /* first error wins */
    CU_ASSERT_EQUAL(rsql_rmq__status_error(RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR, "later", &e),
                    RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_EQUAL(e.remote_code, RSQL_RMQ_CODE_TOPIC_NOT_FOUND);

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(41301, "too big", &e), RSQL_ERR_TOO_LARGE);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ MESSAGE_BODY_TOO_LARGE (41301): too big");
    CU_ASSERT_FALSE(rsql_error_retriable(&e));

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(42900, "slow down", &e), RSQL_ERR_BUSY);
    CU_ASSERT_TRUE(rsql_error_retriable(&e));
    CU_ASSERT_EQUAL(e.remote_code, 42900);

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR, "", &e),
                    RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ INTERNAL_SERVER_ERROR (50001): (no message)");
    CU_ASSERT_TRUE(rsql_error_retriable(&e));

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(50400, "slow", &e), RSQL_ERR_TIMEOUT);
    CU_ASSERT_TRUE(rsql_error_retriable(&e));

    /* a long poll that waited for a reconnect reaches the proxy with too little deadline left */
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(RSQL_RMQ_CODE_ILLEGAL_POLLING_TIME, "late", &e),
                    RSQL_ERR_TIMEOUT);
    CU_ASSERT_TRUE(rsql_error_retriable(&e));

    rsql_error_clear(&e);
    rsql_rmq__status_error(RSQL_RMQ_CODE_TOPIC_NOT_FOUND,
                           "CODE: 17  DESC: No route\nFor more, see\n", &e);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ TOPIC_NOT_FOUND (40402): CODE: 17 DESC: No route For "
                                  "more, see");

    rsql_error_clear(&e);
    rsql_rmq__status_error(RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE, "expired", &e);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ INVALID_RECEIPT_HANDLE (40013): expired");
    CU_ASSERT_FALSE(rsql_error_retriable(&e));

    /* the proxy lost our Settings (5.5's texts, docs/ROCKETMQ-NOTES.md §12): transient */
    const char *npe = "Cannot invoke \"apache.rocketmq.v2.Settings.getClientType()\" because "
                      "\"settings\" is null. NullPointerException.";
    CU_ASSERT_TRUE(rsql_rmq_settings_missing(RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR, npe));
    CU_ASSERT_TRUE(rsql_rmq_settings_missing(
        RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR,
        "Cannot invoke \"io.netty.channel.Channel.id()\" because \"this.channel\" is null"));
    CU_ASSERT_TRUE(rsql_rmq_settings_missing(RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE,
                                             "cannot find client settings for this client"));
    CU_ASSERT_FALSE(rsql_rmq_settings_missing(RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE,
                                              "LITE_SIMPLE_CONSUMER"));
    CU_ASSERT_FALSE(rsql_rmq_settings_missing(RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR, "later"));
    CU_ASSERT_FALSE(rsql_rmq_settings_missing(RSQL_RMQ_CODE_TOPIC_NOT_FOUND, npe));
    CU_ASSERT_FALSE(rsql_rmq_settings_missing(RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR, NULL));
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE,
                                           "cannot find client settings for this client", &e),
                    RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_TRUE(rsql_error_retriable(&e));
    CU_ASSERT_EQUAL(e.remote_code, RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE);
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__status_error(RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE, "OTHER", &e),
                    RSQL_ERR_REMOTE);

    CU_ASSERT_STRING_EQUAL(rsql_rmq_code_name(40401), "MESSAGE_NOT_FOUND");
    CU_ASSERT_STRING_EQUAL(rsql_rmq_code_name(42902), "LITE_SUBSCRIPTION_QUOTA_EXCEEDED");
    CU_ASSERT_STRING_EQUAL(rsql_rmq_code_name(12345), "UNKNOWN");
    CU_ASSERT_TRUE(rsql_rmq_code_retriable(42901));
    CU_ASSERT_TRUE(rsql_rmq_code_retriable(40800));
    CU_ASSERT_FALSE(rsql_rmq_code_retriable(40020));
    CU_ASSERT_FALSE(rsql_rmq_code_retriable(60000));
    CU_ASSERT_FALSE(rsql_rmq_code_retriable(20000));

    /* the class of each status family, and the predicate agrees with the code map */
    static const struct {
        int32_t status;
        rsql_err_t code;
    } classes[] = {
        {42900, RSQL_ERR_BUSY},        {42902, RSQL_ERR_BUSY},
        {40800, RSQL_ERR_TIMEOUT},     {50401, RSQL_ERR_TIMEOUT},
        {50000, RSQL_ERR_UNAVAILABLE}, {50002, RSQL_ERR_UNAVAILABLE},
        {50100, RSQL_ERR_UNAVAILABLE}, {50501, RSQL_ERR_UNAVAILABLE},
        {40100, RSQL_ERR_PERMISSION},  {40300, RSQL_ERR_PERMISSION},
        {40402, RSQL_ERR_NOT_FOUND},   {40403, RSQL_ERR_NOT_FOUND},
        {41301, RSQL_ERR_TOO_LARGE},   {43101, RSQL_ERR_TOO_LARGE},
        {40000, RSQL_ERR_REMOTE},      {40013, RSQL_ERR_REMOTE},
        {42800, RSQL_ERR_REMOTE},      {60000, RSQL_ERR_REMOTE},
    };
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        rsql_error_clear(&e);
        CU_ASSERT_EQUAL(rsql_rmq__status_error(classes[i].status, "m", &e), classes[i].code);
        CU_ASSERT_EQUAL(rsql_error_retriable(&e), rsql_rmq_code_retriable(classes[i].status));
        CU_ASSERT_EQUAL(rsql_error_retriable(&e), rsql_err_code_retriable(classes[i].code));
    }
}

/* The one table of protocol numbers (rmq_client.h) agrees with the proto, name for name. */
static void test_rmq_code_map_matches_proto(void)
{
    size_t n = 0;
#define CHECK_CODE(name, number)                                                                 \
    CU_ASSERT_EQUAL(RSQL_RMQ_CODE_##name, PBC(CODE__##name));                                    \
    CU_ASSERT_EQUAL(RSQL_RMQ_CODE_##name, number);                                               \
    CU_ASSERT_STRING_EQUAL(rsql_rmq_code_name(RSQL_RMQ_CODE_##name), #name);                    \
    n++;
    RSQL_RMQ_CODE_MAP(CHECK_CODE)
#undef CHECK_CODE
    /* every Code of the proto but CODE_UNSPECIFIED */
    CU_ASSERT_EQUAL(n, 53);
    CU_ASSERT_EQUAL(RSQL_RMQ_PERM_NONE, PBC(PERMISSION__NONE));
    CU_ASSERT_EQUAL(RSQL_RMQ_PERM_READ, PBC(PERMISSION__READ));
    CU_ASSERT_EQUAL(RSQL_RMQ_PERM_WRITE, PBC(PERMISSION__WRITE));
    CU_ASSERT_EQUAL(RSQL_RMQ_PERM_READ_WRITE, PBC(PERMISSION__READ_WRITE));
}

static void test_rmq_grpc_status_map(void)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(0, NULL, NULL, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(14, "connection refused", "Heartbeat", &e),
                    RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(e.msg, "gRPC UNAVAILABLE (14): connection refused [Heartbeat]");
    CU_ASSERT_TRUE(rsql_error_retriable(&e));
    CU_ASSERT_EQUAL(e.remote_code, 0);

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(4, "Deadline Exceeded", NULL, &e), RSQL_ERR_TIMEOUT);
    CU_ASSERT_STRING_EQUAL(e.msg, "gRPC DEADLINE_EXCEEDED (4): Deadline Exceeded");
    CU_ASSERT_TRUE(rsql_error_retriable(&e));

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(1, "", NULL, &e), RSQL_ERR_INTERRUPTED);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(3, "bad", "Telemetry", &e), RSQL_ERR_REMOTE);
    CU_ASSERT_STRING_EQUAL(e.msg, "gRPC INVALID_ARGUMENT (3): bad [Telemetry]");
    CU_ASSERT_FALSE(rsql_error_retriable(&e));

    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(8, "quota", NULL, &e), RSQL_ERR_BUSY);
    CU_ASSERT_TRUE(rsql_error_retriable(&e));
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(8, "Received message larger than max (5 vs. 4)", NULL,
                                         &e),
                    RSQL_ERR_TOO_LARGE);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(16, "bad signature", NULL, &e), RSQL_ERR_PERMISSION);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__grpc_error(7, "denied", NULL, &e), RSQL_ERR_PERMISSION);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));
}

/* ---- signing and ids --------------------------------------------------------------------------- */

static void test_rmq_sign(void)
{
    char hex[41];
    /* RFC 2202 HMAC-SHA1 test case 2 */
    rsql_rmq__hmac_sha1_hex("Jefe", "what do ya want for nothing?", hex, false);
    CU_ASSERT_STRING_EQUAL(hex, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");

    char auth[256];
    CU_ASSERT_EQUAL(rsql_rmq__sign("ak", "Jefe", "what do ya want for nothing?", auth,
                                   sizeof(auth), NULL),
                    RSQL_OK);
    CU_ASSERT_STRING_EQUAL(auth, "MQv2-HMAC-SHA1 Credential=ak, SignedHeaders=x-mq-date-time, "
                                 "Signature=EFFCDF6AE5EB2FA2D27416D5F184DF9C259A7C79");

    rsql_error_t e;
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__sign("ak", "", "x", auth, sizeof(auth), &e), RSQL_ERR_BAD_OPTION);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ signing needs both an access key and a secret key");

    char dt[17];
    rsql_rmq__datetime(0, dt);
    CU_ASSERT_STRING_EQUAL(dt, "19700101T000000Z");
    rsql_rmq__datetime(1700000000, dt);
    CU_ASSERT_STRING_EQUAL(dt, "20231114T221320Z");
}

static bool all_upper_hex(const char *s)
{
    for (; *s; s++) {
        if (!((*s >= '0' && *s <= '9') || (*s >= 'A' && *s <= 'F'))) {
            return false;
        }
    }
    return true;
}

static void test_rmq_ids(void)
{
    const uint8_t mac[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
    char id[35];
    rsql_rmq__msgid_format(mac, 0x12345, 0x01020304, 0xA0B0C0D0u, id);
    CU_ASSERT_STRING_EQUAL(id, "0100112233445523450102030" "4A0B0C0D0");
    CU_ASSERT_EQUAL(rsql_rmq__msgid_secs(1609459200 + 5), 5);
    CU_ASSERT_EQUAL(rsql_rmq__msgid_secs(100), 0);

    char a[35], b[35];
    rsql_rmq__msgid_new(a);
    rsql_rmq__msgid_new(b);
    CU_ASSERT_EQUAL(strlen(a), 34);
    CU_ASSERT_TRUE(all_upper_hex(a));
    CU_ASSERT_EQUAL(strncmp(a, "01", 2), 0);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    CU_ASSERT_EQUAL(strncmp(a, b, 26), 0); /* same mac, pid and (almost surely) second */

    char u[37];
    rsql_rmq__uuid(u);
    CU_ASSERT_EQUAL(strlen(u), 36);
    CU_ASSERT_EQUAL(u[8], '-');
    CU_ASSERT_EQUAL(u[13], '-');
    CU_ASSERT_EQUAL(u[14], '4');
    CU_ASSERT_EQUAL(u[18], '-');
    CU_ASSERT_EQUAL(u[23], '-');

    char cid[300];
    rsql_rmq__client_id(cid, sizeof(cid));
    int ats = 0;
    for (const char *p = cid; *p; p++) {
        ats += *p == '@';
    }
    CU_ASSERT_EQUAL(ats, 3);
}

/* ---- encoders ---------------------------------------------------------------------------------- */

static void test_rmq_enc_send(void)
{
    const char *keys[2] = {"k1", "k2"};
    rsql_rmq_prop_t props[1] = {{(char *)"color", (char *)"red"}};
    rsql_rmq_out_msg_t m[2];
    memset(m, 0, sizeof(m));
    m[0] = (rsql_rmq_out_msg_t){.topic = "orders", .body = "hello", .body_len = 5, .tag = "TagA",
                                .keys = keys, .n_keys = 2, .message_group = "cust-7",
                                .props = props, .n_props = 1};
    m[1] = (rsql_rmq_out_msg_t){.topic = "orders", .body = "x", .body_len = 1,
                                .lite_topic = "sess-42"};
    const char *ids[2] = {"ID0", "ID1"};
    rmq_bytes_t b;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_send("ns1", m, 2, ids, 1700000000123, "host-a", &b, NULL),
                          RSQL_OK);
    PB(SendMessageRequest) *r = apache__rocketmq__v2__send_message_request__unpack(NULL, b.len,
                                                                                 b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(r->n_messages, 2);
    PB(Message) *x = r->messages[0];
    CU_ASSERT_STRING_EQUAL(x->topic->name, "orders");
    CU_ASSERT_STRING_EQUAL(x->topic->resource_namespace, "ns1");
    CU_ASSERT_EQUAL(x->body.len, 5);
    CU_ASSERT_EQUAL(memcmp(x->body.data, "hello", 5), 0);
    CU_ASSERT_EQUAL(x->system_properties->_tag_case, PBC(SYSTEM_PROPERTIES___TAG_TAG));
    CU_ASSERT_STRING_EQUAL(x->system_properties->tag, "TagA");
    CU_ASSERT_EQUAL_FATAL(x->system_properties->n_keys, 2);
    CU_ASSERT_STRING_EQUAL(x->system_properties->keys[1], "k2");
    CU_ASSERT_STRING_EQUAL(x->system_properties->message_id, "ID0");
    CU_ASSERT_EQUAL(x->system_properties->message_type, PBC(MESSAGE_TYPE__FIFO));
    CU_ASSERT_STRING_EQUAL(x->system_properties->message_group, "cust-7");
    CU_ASSERT_EQUAL(x->system_properties->_lite_topic_case,
                    PBC(SYSTEM_PROPERTIES___LITE_TOPIC__NOT_SET));
    CU_ASSERT_EQUAL(x->system_properties->born_timestamp->seconds, 1700000000);
    CU_ASSERT_EQUAL(x->system_properties->born_timestamp->nanos, 123000000);
    CU_ASSERT_STRING_EQUAL(x->system_properties->born_host, "host-a");
    CU_ASSERT_EQUAL(x->system_properties->body_encoding, PBC(ENCODING__IDENTITY));
    CU_ASSERT_EQUAL_FATAL(x->n_user_properties, 1);
    CU_ASSERT_STRING_EQUAL(x->user_properties[0]->key, "color");
    CU_ASSERT_STRING_EQUAL(x->user_properties[0]->value, "red");
    PB(Message) *y = r->messages[1];
    CU_ASSERT_EQUAL(y->system_properties->message_type, PBC(MESSAGE_TYPE__LITE));
    CU_ASSERT_STRING_EQUAL(y->system_properties->lite_topic, "sess-42");
    CU_ASSERT_EQUAL(y->system_properties->_tag_case, PBC(SYSTEM_PROPERTIES___TAG__NOT_SET));
    CU_ASSERT_EQUAL(y->system_properties->_message_group_case,
                    PBC(SYSTEM_PROPERTIES___MESSAGE_GROUP__NOT_SET));
    apache__rocketmq__v2__send_message_request__free_unpacked(r, NULL);
}

static void test_rmq_enc_receive_ack_change(void)
{
    rmq_addr_t addr = {(char *)"127.0.0.1", 8081};
    int32_t types[1] = {RSQL_RMQ_MSG_NORMAL};
    rmq_queue_t q = {.topic = (char *)"orders", .id = 3, .permission = RSQL_RMQ_PERM_READ_WRITE,
                     .broker_name = (char *)"broker-a", .broker_id = RSQL_RMQ_MASTER_BROKER_ID,
                     .scheme = PBC(ADDRESS_SCHEME__IPv4),
                     .addrs = &addr, .n_addrs = 1, .accept_types = types, .n_accept_types = 1};
    rmq_bytes_t b;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_receive("", "g1", &q, RSQL_RMQ_FILTER_SQL, "a > 1", 16,
                                                30000, 20000, &b, NULL),
                          RSQL_OK);
    PB(ReceiveMessageRequest) *r =
        apache__rocketmq__v2__receive_message_request__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->group->name, "g1");
    CU_ASSERT_STRING_EQUAL(r->message_queue->topic->name, "orders");
    CU_ASSERT_EQUAL(r->message_queue->id, 3);
    CU_ASSERT_STRING_EQUAL(r->message_queue->broker->name, "broker-a");
    CU_ASSERT_EQUAL(r->message_queue->broker->endpoints->addresses[0]->port, 8081);
    CU_ASSERT_EQUAL(r->message_queue->n_accept_message_types, 1);
    CU_ASSERT_EQUAL(r->filter_expression->type, PBC(FILTER_TYPE__SQL));
    CU_ASSERT_STRING_EQUAL(r->filter_expression->expression, "a > 1");
    CU_ASSERT_EQUAL(r->batch_size, 16);
    CU_ASSERT_EQUAL(r->invisible_duration->seconds, 30);
    CU_ASSERT_EQUAL(r->long_polling_timeout->seconds, 20);
    CU_ASSERT_FALSE(r->auto_renew);
    CU_ASSERT_EQUAL(r->_attempt_id_case, PBC(RECEIVE_MESSAGE_REQUEST___ATTEMPT_ID__NOT_SET));
    apache__rocketmq__v2__receive_message_request__free_unpacked(r, NULL);

    rsql_rmq_ack_entry_t ents[2] = {{"m1", "h1", NULL}, {"m2", "h2", "sess-1"}};
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_ack("", "g1", "orders", ents, 2, &b, NULL), RSQL_OK);
    PB(AckMessageRequest) *a = apache__rocketmq__v2__ack_message_request__unpack(NULL, b.len,
                                                                               b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL_FATAL(a->n_entries, 2);
    CU_ASSERT_STRING_EQUAL(a->topic->name, "orders");
    CU_ASSERT_STRING_EQUAL(a->entries[0]->receipt_handle, "h1");
    CU_ASSERT_EQUAL(a->entries[0]->_lite_topic_case, PBC(ACK_MESSAGE_ENTRY___LITE_TOPIC__NOT_SET));
    CU_ASSERT_EQUAL(a->entries[1]->_lite_topic_case, PBC(ACK_MESSAGE_ENTRY___LITE_TOPIC_LITE_TOPIC));
    CU_ASSERT_STRING_EQUAL(a->entries[1]->lite_topic, "sess-1");
    apache__rocketmq__v2__ack_message_request__free_unpacked(a, NULL);

    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_change_invisible("", "g1", "orders", "m1", "h1", "sess-1",
                                                         1500, true, &b, NULL),
                          RSQL_OK);
    PB(ChangeInvisibleDurationRequest) *c =
        apache__rocketmq__v2__change_invisible_duration_request__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->invisible_duration->seconds, 1);
    CU_ASSERT_EQUAL(c->invisible_duration->nanos, 500000000);
    CU_ASSERT_STRING_EQUAL(c->lite_topic, "sess-1");
    CU_ASSERT_EQUAL(c->_suspend_case, PBC(CHANGE_INVISIBLE_DURATION_REQUEST___SUSPEND_SUSPEND));
    CU_ASSERT_TRUE(c->suspend);
    CU_ASSERT_STRING_EQUAL(c->message_id, "m1");
    apache__rocketmq__v2__change_invisible_duration_request__free_unpacked(c, NULL);

    const char *lites[2] = {"a", "b"};
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_sync_lite("", RSQL_RMQ_LITE_COMPLETE_ADD, "parent", "lg",
                                                  lites, 2, &b, NULL),
                          RSQL_OK);
    PB(SyncLiteSubscriptionRequest) *s =
        apache__rocketmq__v2__sync_lite_subscription_request__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(s->action, PBC(LITE_SUBSCRIPTION_ACTION__COMPLETE_ADD));
    CU_ASSERT_STRING_EQUAL(s->topic->name, "parent");
    CU_ASSERT_STRING_EQUAL(s->group->name, "lg");
    CU_ASSERT_EQUAL(s->n_lite_topic_set, 2);
    apache__rocketmq__v2__sync_lite_subscription_request__free_unpacked(s, NULL);
}

static void test_rmq_enc_settings_heartbeat(void)
{
    rmq_addr_t ap[1] = {{(char *)"proxy.local", 8081}};
    const char *topics[1] = {"orders"};
    rmq_settings_out_t s = {.client_type = RSQL_RMQ_SIMPLE_CONSUMER, .access_point = ap,
                            .n_access_point = 1, .request_timeout_ms = 3000, .topics = topics,
                            .n_topics = 1, .group = "g1", .filter_type = RSQL_RMQ_FILTER_TAG,
                            .filter_expression = "TagA||TagB", .long_polling_timeout_ms = 20000,
                            .version = "5.2.1", .hostname = "h"};
    rmq_bytes_t b;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_settings(&s, &b, NULL), RSQL_OK);
    PB(TelemetryCommand) *t = apache__rocketmq__v2__telemetry_command__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->command_case, PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS));
    PB(Settings) *st = t->settings;
    CU_ASSERT_EQUAL(st->client_type, PBC(CLIENT_TYPE__SIMPLE_CONSUMER));
    CU_ASSERT_EQUAL(st->access_point->scheme, PBC(ADDRESS_SCHEME__DOMAIN_NAME));
    CU_ASSERT_STRING_EQUAL(st->access_point->addresses[0]->host, "proxy.local");
    CU_ASSERT_EQUAL(st->request_timeout->seconds, 3);
    CU_ASSERT_EQUAL(st->user_agent->language, PBC(LANGUAGE__CPP));
    CU_ASSERT_EQUAL_FATAL(st->pub_sub_case, PBC(SETTINGS__PUB_SUB_SUBSCRIPTION));
    CU_ASSERT_STRING_EQUAL(st->subscription->group->name, "g1");
    CU_ASSERT_EQUAL_FATAL(st->subscription->n_subscriptions, 1);
    CU_ASSERT_STRING_EQUAL(st->subscription->subscriptions[0]->topic->name, "orders");
    CU_ASSERT_STRING_EQUAL(st->subscription->subscriptions[0]->expression->expression,
                           "TagA||TagB");
    CU_ASSERT_EQUAL(st->subscription->long_polling_timeout->seconds, 20);
    apache__rocketmq__v2__telemetry_command__free_unpacked(t, NULL);

    s.client_type = RSQL_RMQ_PRODUCER;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_settings(&s, &b, NULL), RSQL_OK);
    t = apache__rocketmq__v2__telemetry_command__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->settings->pub_sub_case, PBC(SETTINGS__PUB_SUB_PUBLISHING));
    CU_ASSERT_EQUAL(t->settings->publishing->n_topics, 1);
    apache__rocketmq__v2__telemetry_command__free_unpacked(t, NULL);

    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_heartbeat("", NULL, RSQL_RMQ_PRODUCER, &b, NULL), RSQL_OK);
    PB(HeartbeatRequest) *h = apache__rocketmq__v2__heartbeat_request__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(h->_group_case, PBC(HEARTBEAT_REQUEST___GROUP__NOT_SET));
    CU_ASSERT_EQUAL(h->client_type, PBC(CLIENT_TYPE__PRODUCER));
    apache__rocketmq__v2__heartbeat_request__free_unpacked(h, NULL);

    CU_ASSERT_EQUAL_FATAL(rsql_rmq__enc_telemetry_reply(true, "n-1", RSQL_RMQ_CODE_NOT_IMPLEMENTED, "no", &b,
                                                        NULL),
                          RSQL_OK);
    t = apache__rocketmq__v2__telemetry_command__unpack(NULL, b.len, b.data);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->command_case, PBC(TELEMETRY_COMMAND__COMMAND_VERIFY_MESSAGE_RESULT));
    CU_ASSERT_STRING_EQUAL(t->verify_message_result->nonce, "n-1");
    CU_ASSERT_EQUAL(t->status->code, PBC(CODE__NOT_IMPLEMENTED));
    apache__rocketmq__v2__telemetry_command__free_unpacked(t, NULL);
}

/* ---- decoders ---------------------------------------------------------------------------------- */

static rmq_bytes_t packed(const ProtobufCMessage *m)
{
    rmq_bytes_t b;
    b.len = protobuf_c_message_get_packed_size(m);
    b.data = rsql_malloc(b.len + 1);
    protobuf_c_message_pack(m, b.data);
    return b;
}

static void test_rmq_dec_route_resp(void)
{
    PB(QueryRouteResponse) r = PBC(QUERY_ROUTE_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    PB(MessageQueue) mq = PBC(MESSAGE_QUEUE__INIT), *pmq[1] = {&mq};
    PB(Resource) t = PBC(RESOURCE__INIT);
    PB(Broker) br = PBC(BROKER__INIT);
    PB(Endpoints) ep = PBC(ENDPOINTS__INIT);
    PB(Address) ad = PBC(ADDRESS__INIT), *pad[1] = {&ad};
    PB(MessageType) types[2] = {PBC(MESSAGE_TYPE__NORMAL), PBC(MESSAGE_TYPE__LITE)};
    st.code = PBC(CODE__OK);
    st.message = (char *)"OK";
    t.name = (char *)"orders";
    ad.host = (char *)"127.0.0.1";
    ad.port = 8081;
    ep.scheme = PBC(ADDRESS_SCHEME__IPv4);
    ep.n_addresses = 1;
    ep.addresses = pad;
    br.name = (char *)"broker-a";
    br.endpoints = &ep;
    mq.topic = &t;
    mq.id = 2;
    mq.permission = PBC(PERMISSION__READ_WRITE);
    mq.broker = &br;
    mq.n_accept_message_types = 2;
    mq.accept_message_types = types;
    r.status = &st;
    r.n_message_queues = 1;
    r.message_queues = pmq;
    rmq_bytes_t b = packed(&r.base);
    rmq_route_t route;
    int32_t code = 0;
    char *msg = NULL;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_query_route(b.data, b.len, &code, &msg, &route, NULL),
                          RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(code, RSQL_RMQ_CODE_OK);
    CU_ASSERT_STRING_EQUAL(msg, "OK");
    CU_ASSERT_EQUAL_FATAL(route.n_queues, 1);
    CU_ASSERT_STRING_EQUAL(route.queues[0].topic, "orders");
    CU_ASSERT_STRING_EQUAL(route.queues[0].broker_name, "broker-a");
    CU_ASSERT_EQUAL(route.queues[0].permission, RSQL_RMQ_PERM_READ_WRITE);
    CU_ASSERT_EQUAL(route.queues[0].id, 2);
    CU_ASSERT_EQUAL(route.queues[0].n_addrs, 1);
    CU_ASSERT_EQUAL(route.queues[0].addrs[0].port, 8081);
    CU_ASSERT_EQUAL(route.queues[0].n_accept_types, 2);
    CU_ASSERT_EQUAL(route.queues[0].accept_types[1], 5);
    rsql_rmq__route_deinit(&route);
    rsql_free(msg);

    rsql_error_t e;
    rsql_error_clear(&e);
    const uint8_t junk[3] = {0xff, 0xff, 0xff};
    CU_ASSERT_EQUAL(rsql_rmq__dec_query_route(junk, 3, &code, &msg, &route, &e), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ: cannot decode QueryRouteResponse from the server");

    /* SendMessageResponse with per-entry statuses */
    PB(SendMessageResponse) sr = PBC(SEND_MESSAGE_RESPONSE__INIT);
    PB(SendResultEntry) se[2] = {PBC(SEND_RESULT_ENTRY__INIT), PBC(SEND_RESULT_ENTRY__INIT)};
    PB(SendResultEntry) *pse[2] = {&se[0], &se[1]};
    PB(Status) bad = PBC(STATUS__INIT);
    bad.code = PBC(CODE__MESSAGE_BODY_TOO_LARGE);
    bad.message = (char *)"too big";
    se[0].status = &st;
    se[0].message_id = (char *)"A";
    se[0].offset = 42;
    se[1].status = &bad;
    sr.status = &st;
    sr.n_entries = 2;
    sr.entries = pse;
    b = packed(&sr.base);
    rmq_resp_t resp;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_resp(RMQ_RPC_SEND_MESSAGE, b.data, b.len, &resp, NULL),
                          RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(resp.code, RSQL_RMQ_CODE_OK);
    CU_ASSERT_EQUAL_FATAL(resp.n_send, 2);
    CU_ASSERT_STRING_EQUAL(resp.send[0].message_id, "A");
    CU_ASSERT_EQUAL(resp.send[0].offset, 42);
    CU_ASSERT_EQUAL(resp.send[1].code, RSQL_RMQ_CODE_MESSAGE_BODY_TOO_LARGE);
    CU_ASSERT_STRING_EQUAL(resp.send[1].status_message, "too big");
    rsql_rmq__resp_deinit(&resp);

    PB(ChangeInvisibleDurationResponse) cr = PBC(CHANGE_INVISIBLE_DURATION_RESPONSE__INIT);
    cr.status = &st;
    cr.receipt_handle = (char *)"new-handle";
    b = packed(&cr.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_resp(RMQ_RPC_CHANGE_INVISIBLE, b.data, b.len, &resp, NULL),
                          RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_STRING_EQUAL(resp.receipt_handle, "new-handle");
    rsql_rmq__resp_deinit(&resp);

    PB(AckMessageResponse) ar = PBC(ACK_MESSAGE_RESPONSE__INIT);
    PB(AckMessageResultEntry) ae = PBC(ACK_MESSAGE_RESULT_ENTRY__INIT), *pae[1] = {&ae};
    PB(Status) inv = PBC(STATUS__INIT);
    inv.code = PBC(CODE__INVALID_RECEIPT_HANDLE);
    ae.status = &inv;
    ae.message_id = (char *)"M";
    ae.receipt_handle = (char *)"H";
    ar.status = &inv;
    ar.n_entries = 1;
    ar.entries = pae;
    b = packed(&ar.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_resp(RMQ_RPC_ACK_MESSAGE, b.data, b.len, &resp, NULL),
                          RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(resp.code, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE);
    CU_ASSERT_EQUAL_FATAL(resp.n_ack, 1);
    CU_ASSERT_EQUAL(resp.ack[0].code, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE);
    CU_ASSERT_STRING_EQUAL(resp.ack[0].receipt_handle, "H");
    rsql_rmq__resp_deinit(&resp);
}

static size_t gzip(const char *s, uint8_t *out, size_t cap, int window_bits)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *)s;
    z.avail_in = (uInt)strlen(s);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    size_t n = cap - z.avail_out;
    deflateEnd(&z);
    return n;
}

static void test_rmq_dec_receive(void)
{
    /* the status element */
    PB(ReceiveMessageResponse) r = PBC(RECEIVE_MESSAGE_RESPONSE__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    st.code = PBC(CODE__MESSAGE_NOT_FOUND);
    st.message = (char *)"no new message";
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_STATUS);
    r.status = &st;
    rmq_bytes_t b = packed(&r.base);
    rmq_recv_elem_t el;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_receive(b.data, b.len, "ep", MAX_BODY, &el, NULL), RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(el.kind, RMQ_RECV_STATUS);
    CU_ASSERT_EQUAL(el.code, RSQL_RMQ_CODE_MESSAGE_NOT_FOUND);
    CU_ASSERT_STRING_EQUAL(el.message, "no new message");
    rsql_free(el.message);

    /* a gzip-compressed lite message */
    uint8_t z[256];
    size_t zn = gzip("{\"id\":1}", z, sizeof(z), 15 + 16);
    PB(Message) m = PBC(MESSAGE__INIT);
    PB(SystemProperties) sp = PBC(SYSTEM_PROPERTIES__INIT);
    PB(Resource) t = PBC(RESOURCE__INIT);
    Google__Protobuf__Timestamp born = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    PB(Message__UserPropertiesEntry) pe = PBC(MESSAGE__USER_PROPERTIES_ENTRY__INIT), *ppe[1] = {&pe};
    char *keys[1] = {(char *)"key-1"};
    t.name = (char *)"parent";
    pe.key = (char *)"p";
    pe.value = (char *)"v";
    born.seconds = 1700000000;
    born.nanos = 5000000;
    sp.message_id = (char *)"MID";
    sp.body_encoding = PBC(ENCODING__GZIP);
    sp.born_timestamp = &born;
    sp._receipt_handle_case = PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE);
    sp.receipt_handle = (char *)"RH";
    sp._delivery_attempt_case = PBC(SYSTEM_PROPERTIES___DELIVERY_ATTEMPT_DELIVERY_ATTEMPT);
    sp.delivery_attempt = 3;
    sp._lite_topic_case = PBC(SYSTEM_PROPERTIES___LITE_TOPIC_LITE_TOPIC);
    sp.lite_topic = (char *)"sess-9";
    sp._tag_case = PBC(SYSTEM_PROPERTIES___TAG_TAG);
    sp.tag = (char *)"T";
    sp.n_keys = 1;
    sp.keys = keys;
    m.topic = &t;
    m.system_properties = &sp;
    m.body.data = z;
    m.body.len = zn;
    m.n_user_properties = 1;
    m.user_properties = ppe;
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_MESSAGE);
    r.message = &m;
    b = packed(&r.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_receive(b.data, b.len, "127.0.0.1:8081", MAX_BODY, &el,
                                                NULL),
                          RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL_FATAL(el.kind, RMQ_RECV_MESSAGE);
    rsql_rmq_msg_t *msg = el.msg;
    CU_ASSERT_STRING_EQUAL(msg->topic, "parent");
    CU_ASSERT_STRING_EQUAL(msg->message_id, "MID");
    CU_ASSERT_STRING_EQUAL(msg->receipt_handle, "RH");
    CU_ASSERT_STRING_EQUAL(msg->lite_topic, "sess-9");
    CU_ASSERT_PTR_NULL(msg->message_group);
    CU_ASSERT_STRING_EQUAL(msg->tag, "T");
    CU_ASSERT_EQUAL(msg->n_keys, 1);
    CU_ASSERT_EQUAL(msg->delivery_attempt, 3);
    CU_ASSERT_EQUAL(msg->born_ms, 1700000000005LL);
    CU_ASSERT_EQUAL(msg->body_len, 8);
    CU_ASSERT_STRING_EQUAL((char *)msg->body, "{\"id\":1}");
    CU_ASSERT_EQUAL(msg->bad.code, RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(msg->n_props, 1);
    CU_ASSERT_STRING_EQUAL(msg->props[0].value, "v");
    CU_ASSERT_STRING_EQUAL(msg->endpoint, "127.0.0.1:8081");
    rsql_rmq_msg_destroy(msg);

    /* zlib body, GZIP encoding; then a body that claims GZIP but is not compressed */
    zn = gzip("zlib body", z, sizeof(z), 15);
    m.body.len = zn;
    b = packed(&m.base);
    msg = rsql_rmq__dec_message(b.data, b.len, "", MAX_BODY, NULL);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
    CU_ASSERT_STRING_EQUAL((char *)msg->body, "zlib body");
    rsql_rmq_msg_destroy(msg);
    m.body.data = (uint8_t *)"plain";
    m.body.len = 5;
    b = packed(&m.base);
    msg = rsql_rmq__dec_message(b.data, b.len, "", MAX_BODY, NULL);
    rsql_free(b.data);
    CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
    CU_ASSERT_EQUAL(msg->bad.code, RSQL_ERR_DECODE); /* a decode failure of this message */
    CU_ASSERT_STRING_EQUAL((char *)msg->body, "plain"); /* its raw form */
    rsql_rmq_msg_destroy(msg);

    /* the final delivery timestamp element */
    Google__Protobuf__Timestamp ts = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_DELIVERY_TIMESTAMP);
    r.delivery_timestamp = &ts;
    b = packed(&r.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_receive(b.data, b.len, "", MAX_BODY, &el, NULL), RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(el.kind, RMQ_RECV_DELIVERY_TS);
}

static void test_rmq_dec_telemetry(void)
{
    PB(TelemetryCommand) t = PBC(TELEMETRY_COMMAND__INIT);
    PB(Status) st = PBC(STATUS__INIT);
    PB(Settings) s = PBC(SETTINGS__INIT);
    PB(Subscription) sub = PBC(SUBSCRIPTION__INIT);
    PB(RetryPolicy) rp = PBC(RETRY_POLICY__INIT);
    st.code = PBC(CODE__OK);
    sub._fifo_case = PBC(SUBSCRIPTION___FIFO_FIFO);
    sub.fifo = 1;
    sub._lite_subscription_quota_case = PBC(SUBSCRIPTION___LITE_SUBSCRIPTION_QUOTA_LITE_SUBSCRIPTION_QUOTA);
    sub.lite_subscription_quota = 2000;
    sub._max_lite_topic_size_case = PBC(SUBSCRIPTION___MAX_LITE_TOPIC_SIZE_MAX_LITE_TOPIC_SIZE);
    sub.max_lite_topic_size = 128;
    rp.max_attempts = 17;
    s.pub_sub_case = PBC(SETTINGS__PUB_SUB_SUBSCRIPTION);
    s.subscription = &sub;
    s._backoff_policy_case = PBC(SETTINGS___BACKOFF_POLICY_BACKOFF_POLICY);
    s.backoff_policy = &rp;
    t._status_case = PBC(TELEMETRY_COMMAND___STATUS_STATUS);
    t.status = &st;
    t.command_case = PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS);
    t.settings = &s;
    rmq_bytes_t b = packed(&t.base);
    rmq_tcmd_t cmd;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_telemetry(b.data, b.len, &cmd, NULL), RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(cmd.kind, RMQ_TCMD_SETTINGS);
    CU_ASSERT_TRUE(cmd.has_status);
    CU_ASSERT_EQUAL(cmd.status_code, RSQL_RMQ_CODE_OK);
    CU_ASSERT_TRUE(cmd.settings.fifo);
    CU_ASSERT_EQUAL(cmd.settings.lite_subscription_quota, 2000);
    CU_ASSERT_EQUAL(cmd.settings.max_lite_topic_size, 128);
    CU_ASSERT_EQUAL(cmd.settings.max_attempts, 17);
    rsql_rmq__tcmd_deinit(&cmd);

    PB(NotifyUnsubscribeLiteCommand) nu = PBC(NOTIFY_UNSUBSCRIBE_LITE_COMMAND__INIT);
    nu.lite_topic = (char *)"sess-3";
    t._status_case = PBC(TELEMETRY_COMMAND___STATUS__NOT_SET);
    t.command_case = PBC(TELEMETRY_COMMAND__COMMAND_NOTIFY_UNSUBSCRIBE_LITE_COMMAND);
    t.notify_unsubscribe_lite_command = &nu;
    b = packed(&t.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_telemetry(b.data, b.len, &cmd, NULL), RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(cmd.kind, RMQ_TCMD_UNSUBSCRIBE_LITE);
    CU_ASSERT_FALSE(cmd.has_status);
    CU_ASSERT_STRING_EQUAL(cmd.lite_topic, "sess-3");
    rsql_rmq__tcmd_deinit(&cmd);

    PB(PrintThreadStackTraceCommand) ps = PBC(PRINT_THREAD_STACK_TRACE_COMMAND__INIT);
    ps.nonce = (char *)"nonce-1";
    t.command_case = PBC(TELEMETRY_COMMAND__COMMAND_PRINT_THREAD_STACK_TRACE_COMMAND);
    t.print_thread_stack_trace_command = &ps;
    b = packed(&t.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_telemetry(b.data, b.len, &cmd, NULL), RSQL_OK);
    rsql_free(b.data);
    CU_ASSERT_EQUAL(cmd.kind, RMQ_TCMD_PRINT_STACK);
    CU_ASSERT_STRING_EQUAL(cmd.nonce, "nonce-1");
    rsql_rmq__tcmd_deinit(&cmd);
}

static void test_rmq_inflate_and_rpc_table(void)
{
    uint8_t z[128];
    size_t zn = gzip("abcabcabc", z, sizeof(z), 15 + 16);
    uint8_t *out = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__inflate(z, zn, MAX_BODY, &out, &n, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(n, 9);
    CU_ASSERT_STRING_EQUAL((char *)out, "abcabcabc");
    rsql_free(out);
    CU_ASSERT_EQUAL(rsql_rmq__inflate(z, zn - 4, MAX_BODY, &out, &n, NULL), /* truncated */
                    RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(rsql_rmq__inflate((const uint8_t *)"nope", 4, MAX_BODY, &out, &n, NULL),
                    RSQL_ERR_DECODE);

    const rmq_rpc_t *r = rsql_rmq__rpc(RMQ_RPC_RECEIVE_MESSAGE);
    CU_ASSERT_STRING_EQUAL(r->path, "/apache.rocketmq.v2.MessagingService/ReceiveMessage");
    CU_ASSERT_EQUAL(r->kind, RMQ_SERVER_STREAM);
    CU_ASSERT_TRUE(r->long_poll);
    CU_ASSERT_EQUAL(rsql_rmq__rpc(RMQ_RPC_TELEMETRY)->kind, RMQ_BIDI);
    CU_ASSERT_STRING_EQUAL(rsql_rmq__rpc(RMQ_RPC_FORWARD_DLQ)->path,
                           "/apache.rocketmq.v2.MessagingService/ForwardMessageToDeadLetterQueue");
    for (int i = 0; i < RMQ_RPC__COUNT; i++) {
        CU_ASSERT_EQUAL(rsql_rmq__rpc((rmq_rpc_id_t)i)->id, i);
    }
    CU_ASSERT_PTR_NULL(rsql_rmq__rpc(RMQ_RPC__COUNT));
}

static void test_rmq_client_config(void)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    const char *topics[1] = {"t"};
    rsql_rmq_config_t conf = {.endpoints = "localhost", .client_type = RSQL_RMQ_PRODUCER,
                              .topics = topics, .n_topics = 1};
    CU_ASSERT_PTR_NULL(rsql_rmq_client_new(&conf, &e));
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ endpoints 'localhost': expected host:port");
    rsql_error_clear(&e);
    conf.endpoints = "127.0.0.1:8081";
    conf.client_type = RSQL_RMQ_SIMPLE_CONSUMER;
    CU_ASSERT_PTR_NULL(rsql_rmq_client_new(&conf, &e));
    CU_ASSERT_STRING_EQUAL(e.msg, "a RocketMQ consumer needs a group and at least one topic");
    rsql_error_clear(&e);
    conf.group = "g";
    conf.access_key = "ak";
    CU_ASSERT_PTR_NULL(rsql_rmq_client_new(&conf, &e));
    CU_ASSERT_STRING_EQUAL(e.msg, "RocketMQ access key and secret key go together");
    conf.secret_key = "sk";
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL(strchr(rsql_rmq_client_id(c), '@'));
    rsql_rmq_server_settings_t s;
    rsql_rmq_client_settings(c, &s);
    CU_ASSERT_FALSE(s.received);
    CU_ASSERT_EQUAL(s.max_body_size, 4 * 1024 * 1024);
    rsql_rmq_client_destroy(c); /* never started: no I/O */
}

static CU_TestInfo rmq_tests[] = {
    {"rmq_status_map", test_rmq_status_map},
    {"rmq_code_map_matches_proto", test_rmq_code_map_matches_proto},
    {"rmq_grpc_status_map", test_rmq_grpc_status_map},
    {"rmq_sign", test_rmq_sign},
    {"rmq_ids", test_rmq_ids},
    {"rmq_enc_send", test_rmq_enc_send},
    {"rmq_enc_receive_ack_change", test_rmq_enc_receive_ack_change},
    {"rmq_enc_settings_heartbeat", test_rmq_enc_settings_heartbeat},
    {"rmq_dec_route_resp", test_rmq_dec_route_resp},
    {"rmq_dec_receive", test_rmq_dec_receive},
    {"rmq_dec_telemetry", test_rmq_dec_telemetry},
    {"rmq_inflate_and_rpc_table", test_rmq_inflate_and_rpc_table},
    {"rmq_client_config", test_rmq_client_config},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_codec", NULL, NULL, NULL, NULL, rmq_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
