/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the RocketMQ client's decoder on hostile input: messages
 * built by hand with protobuf-c as a broken or malicious server could send them. A message
 * without system properties, with a malformed id, without a receipt handle, with a timestamp
 * that overflows when turned into milliseconds, with a malformed property map or with a body
 * over the limit (on the wire or once inflated: a 2 MB gzip body that inflates to 2 GiB) is
 * returned marked bad, never a crash, undefined behaviour or unbounded memory; a body is
 * inflated only when body_encoding says GZIP. Also the gRPC receive limit, and a long poll
 * flooded with more messages than it asked for.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#include "apache/rocketmq/v2/service.pb-c.h"
#include "rmqclient/rmq_client.h"
#include "rmqclient/rmq_client_int.h"
#include "rmqclient/rmq_int.h"
#include "base/rsql_mem.h"

#define PB(x) Apache__Rocketmq__V2__##x
#define PBC(x) APACHE__ROCKETMQ__V2__##x
#define MIB ((size_t)1 << 20)

/* A good message, parts on the stack, that a test then spoils. */
typedef struct fixture {
    PB(Message) m;
    PB(SystemProperties) sp;
    PB(Resource) topic;
    Google__Protobuf__Timestamp born, store;
    PB(Message__UserPropertiesEntry) pe[3], *ppe[3];
} fixture_t;

static void fixture_init(fixture_t *f)
{
    memset(f, 0, sizeof(*f));
    f->m = (PB(Message))PBC(MESSAGE__INIT);
    f->sp = (PB(SystemProperties))PBC(SYSTEM_PROPERTIES__INIT);
    f->topic = (PB(Resource))PBC(RESOURCE__INIT);
    f->born = (Google__Protobuf__Timestamp)GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    f->store = (Google__Protobuf__Timestamp)GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    f->topic.name = (char *)"orders";
    f->born.seconds = 1700000000;
    f->sp.message_id = (char *)"01020304050607080910111213141516AA";
    f->sp._receipt_handle_case = PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE_RECEIPT_HANDLE);
    f->sp.receipt_handle = (char *)"RH-1";
    f->sp.born_timestamp = &f->born;
    f->sp.body_encoding = PBC(ENCODING__IDENTITY);
    f->m.topic = &f->topic;
    f->m.system_properties = &f->sp;
    f->m.body.data = (uint8_t *)"{\"id\":1}";
    f->m.body.len = 8;
    for (int i = 0; i < 3; i++) {
        f->pe[i] = (PB(Message__UserPropertiesEntry))PBC(MESSAGE__USER_PROPERTIES_ENTRY__INIT);
        f->ppe[i] = &f->pe[i];
    }
}

/* Pack f's message and decode it with max_body. */
static rsql_rmq_msg_t *decode(fixture_t *f, size_t max_body)
{
    size_t n = protobuf_c_message_get_packed_size(&f->m.base);
    uint8_t *p = rsql_malloc(n ? n : 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    protobuf_c_message_pack(&f->m.base, p);
    rsql_rmq_msg_t *m = rsql_rmq__dec_message(p, n, "ep", max_body, NULL);
    rsql_free(p);
    return m;
}

/* Decode and expect a bad message whose reason contains what. */
static void expect_bad(fixture_t *f, size_t max_body, const char *what)
{
    rsql_rmq_msg_t *m = decode(f, max_body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_ERR_DECODE);
    if (!strstr(m->bad.msg, what)) {
        fprintf(stderr, "\nexpected '%s' in '%s'\n", what, m->bad.msg);
        CU_FAIL("unexpected reason");
    }
    CU_ASSERT_PTR_NOT_NULL(m->topic);
    CU_ASSERT_PTR_NOT_NULL(m->message_id);
    CU_ASSERT_PTR_NOT_NULL(m->body);
    rsql_rmq_msg_destroy(m);
}

static void test_rmq_dec_no_system_properties(void)
{
    fixture_t f;
    fixture_init(&f);
    f.m.system_properties = NULL;
    rsql_rmq_msg_t *m = decode(&f, 4 * MIB);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_ERR_DECODE);
    CU_ASSERT_PTR_NOT_NULL(strstr(m->bad.msg, "without system properties"));
    /* what the source's poll reads is never NULL: the fuzz finding passed NULL to strlen */
    CU_ASSERT_PTR_NOT_NULL_FATAL(m->message_id);
    CU_ASSERT_STRING_EQUAL(m->message_id, "");
    CU_ASSERT_STRING_EQUAL(m->topic, "orders");
    CU_ASSERT_PTR_NULL(m->receipt_handle); /* cannot be acked: the source must not try */
    CU_ASSERT_EQUAL(m->body_len, 8);        /* the raw form for the dead-letter table */
    CU_ASSERT_STRING_EQUAL((char *)m->body, "{\"id\":1}");
    rsql_rmq_msg_destroy(m);

    /* the same through a ReceiveMessage stream element */
    PB(ReceiveMessageResponse) r = PBC(RECEIVE_MESSAGE_RESPONSE__INIT);
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_MESSAGE);
    r.message = &f.m;
    size_t n = protobuf_c_message_get_packed_size(&r.base);
    uint8_t *p = rsql_malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    protobuf_c_message_pack(&r.base, p);
    rmq_recv_elem_t el;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_receive(p, n, "ep", 4 * MIB, &el, NULL), RSQL_OK);
    rsql_free(p);
    CU_ASSERT_EQUAL_FATAL(el.kind, RMQ_RECV_MESSAGE);
    CU_ASSERT_EQUAL(el.msg->bad.code, RSQL_ERR_DECODE);
    rsql_rmq_msg_destroy(el.msg);

    /* no topic; no topic name */
    fixture_init(&f);
    f.m.topic = NULL;
    expect_bad(&f, 4 * MIB, "without a topic");
}

/*
** A gzip member whose body is 2 GiB of zeros in about 2 MB, built without compressing 2 GiB:
** after a full flush deflate forgets its history, so every 1 MiB of zeros compresses to the same
** bytes; the trailer carries the true CRC-32 and length. Caller frees *out.
*/
static size_t gzip_bomb(size_t mib, uint8_t **out)
{
    static uint8_t zeros[1 << 20];
    z_stream z;
    memset(&z, 0, sizeof(z));
    CU_ASSERT_EQUAL_FATAL(deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY), Z_OK);
    uint8_t block[8192], fin[64];
    z.next_in = zeros;
    z.avail_in = sizeof(zeros);
    z.next_out = block;
    z.avail_out = sizeof(block);
    CU_ASSERT_EQUAL_FATAL(deflate(&z, Z_FULL_FLUSH), Z_OK);
    CU_ASSERT_EQUAL_FATAL(z.avail_in, 0);
    size_t bn = sizeof(block) - z.avail_out;
    z.next_out = fin;
    z.avail_out = sizeof(fin);
    CU_ASSERT_EQUAL_FATAL(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t fn = sizeof(fin) - z.avail_out;
    deflateEnd(&z);
    uLong crc1 = crc32(0L, zeros, sizeof(zeros)), crc = crc1;
    for (size_t i = 1; i < mib; i++) {
        crc = crc32_combine(crc, crc1, (z_off_t)sizeof(zeros));
    }
    uint64_t isize = (uint64_t)mib * sizeof(zeros);
    size_t total = 10 + bn * mib + fn + 8;
    uint8_t *b = rsql_malloc(total);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    static const uint8_t hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
    memcpy(b, hdr, 10);
    for (size_t i = 0; i < mib; i++) {
        memcpy(b + 10 + i * bn, block, bn);
    }
    uint8_t *t = b + 10 + bn * mib;
    memcpy(t, fin, fn);
    t += fn;
    for (int i = 0; i < 4; i++) {
        t[i] = (uint8_t)(crc >> (8 * i));
        t[4 + i] = (uint8_t)(isize >> (8 * i)); /* ISIZE is the length mod 2^32 */
    }
    *out = b;
    return total;
}

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void test_rmq_dec_gzip_bomb(void)
{
    /* the bomb is right: a small one inflates fully, to its length */
    uint8_t *small = NULL, *out = NULL;
    size_t small_n = gzip_bomb(3, &small), n = 0;
    CU_ASSERT_EQUAL(rsql_rmq__inflate(small, small_n, 3 * MIB, &out, &n, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(n, 3 * MIB);
    rsql_free(out);
    /* exactly the limit inflates; one byte less is too large */
    rsql_error_t e;
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_rmq__inflate(small, small_n, 3 * MIB - 1, &out, &n, &e),
                    RSQL_ERR_DECODE);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "inflates to more than"));
    rsql_free(small);

    /* 2 GiB in about 2 MB: stops at the limit, memory stays near it */
    uint8_t *bomb = NULL;
    size_t bomb_n = gzip_bomb(2048, &bomb);
    CU_ASSERT_TRUE(bomb_n < 3 * MIB);
    long before = max_rss_kb();
    fixture_t f;
    fixture_init(&f);
    f.sp.body_encoding = PBC(ENCODING__GZIP);
    f.m.body.data = bomb;
    f.m.body.len = bomb_n;
    rsql_rmq_msg_t *m = decode(&f, 4 * MIB);
    long grew_kb = max_rss_kb() - before;
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_ERR_DECODE);
    CU_ASSERT_PTR_NOT_NULL(strstr(m->bad.msg, "inflates to more than source.max-body-size"));
    CU_ASSERT_EQUAL(m->body_len, bomb_n); /* the raw (compressed) form, under the limit */
    rsql_rmq_msg_destroy(m);
    if (grew_kb > 256 * 1024) {
        fprintf(stderr, "\npeak RSS grew by %ld KiB decoding a 2 GiB gzip bomb\n", grew_kb);
        CU_FAIL("inflation is not bounded");
    }
    rsql_free(bomb);
}

static void test_rmq_dec_body_encoding(void)
{
    /* a producer's own gzip payload sent as opaque bytes (IDENTITY) passes unchanged: a raw
       relay must forward what was sent */
    uint8_t z[256];
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (Bytef *)"payload";
    zs.avail_in = 7;
    zs.next_out = z;
    zs.avail_out = sizeof(z);
    deflate(&zs, Z_FINISH);
    size_t zn = sizeof(z) - zs.avail_out;
    deflateEnd(&zs);
    CU_ASSERT_TRUE(z[0] == 0x1f && z[1] == 0x8b && z[2] == 0x08);
    fixture_t f;
    fixture_init(&f);
    f.m.body.data = z;
    f.m.body.len = zn;
    int encodings[2] = {PBC(ENCODING__IDENTITY), PBC(ENCODING__ENCODING_UNSPECIFIED)};
    for (int i = 0; i < 2; i++) {
        f.sp.body_encoding = encodings[i];
        rsql_rmq_msg_t *m = decode(&f, 4 * MIB);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
        CU_ASSERT_EQUAL(m->body_len, zn);
        CU_ASSERT_EQUAL(memcmp(m->body, z, zn), 0);
        rsql_rmq_msg_destroy(m);
    }
    /* GZIP: inflated */
    f.sp.body_encoding = PBC(ENCODING__GZIP);
    rsql_rmq_msg_t *m = decode(&f, 4 * MIB);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
    CU_ASSERT_EQUAL(m->body_len, 7);
    CU_ASSERT_STRING_EQUAL((char *)m->body, "payload");
    rsql_rmq_msg_destroy(m);
    /* GZIP but not compressed; an encoding this build does not know */
    f.m.body.data = (uint8_t *)"plain";
    f.m.body.len = 5;
    expect_bad(&f, 4 * MIB, "not valid gzip or zlib data");
    f.sp.body_encoding = 7;
    expect_bad(&f, 4 * MIB, "unsupported body_encoding 7");
}

static void test_rmq_dec_body_size(void)
{
    static uint8_t body[100 * 1024];
    memset(body, 'x', sizeof(body));
    fixture_t f;
    fixture_init(&f);
    f.m.body.data = body;
    f.m.body.len = sizeof(body);
    rsql_rmq_msg_t *m = decode(&f, sizeof(body)); /* exactly the limit */
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
    CU_ASSERT_EQUAL(m->body_len, sizeof(body));
    rsql_rmq_msg_destroy(m);
    m = decode(&f, 1024); /* over it: a decode failure, raw form capped */
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(m->bad.msg,
                           "body of 102400 bytes exceeds source.max-body-size (1024 bytes)");
    CU_ASSERT_EQUAL(m->body_len, RMQ_BAD_RAW_MAX);
    CU_ASSERT_STRING_EQUAL(m->receipt_handle, "RH-1"); /* still ackable */
    rsql_rmq_msg_destroy(m);
}

static void test_rmq_dec_timestamps(void)
{
    fixture_t f;
    fixture_init(&f);
    /* the last second protobuf allows: converts without overflow */
    f.born.seconds = RMQ_TS_MAX_SECONDS;
    f.born.nanos = 999999999;
    rsql_rmq_msg_t *m = decode(&f, 4 * MIB);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
    CU_ASSERT_EQUAL(m->born_ms, RMQ_TS_MAX_SECONDS * 1000 + 999);
    rsql_rmq_msg_destroy(m);
    f.born.seconds = RMQ_TS_MIN_SECONDS;
    f.born.nanos = 0;
    m = decode(&f, 4 * MIB);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
    CU_ASSERT_EQUAL(m->born_ms, RMQ_TS_MIN_SECONDS * 1000);
    rsql_rmq_msg_destroy(m);
    /* seconds * 1000 would overflow int64 (undefined behaviour before the check) */
    f.born.seconds = INT64_MAX;
    expect_bad(&f, 4 * MIB, "born timestamp out of range");
    f.born.seconds = INT64_MIN;
    expect_bad(&f, 4 * MIB, "born timestamp out of range");
    f.born.seconds = RMQ_TS_MAX_SECONDS + 1;
    expect_bad(&f, 4 * MIB, "born timestamp out of range");
    f.born.seconds = 0;
    f.born.nanos = -1;
    expect_bad(&f, 4 * MIB, "born timestamp out of range");
    f.born.nanos = 1000000000;
    expect_bad(&f, 4 * MIB, "born timestamp out of range");
    f.born.nanos = 0;
    f.sp._store_timestamp_case = PBC(SYSTEM_PROPERTIES___STORE_TIMESTAMP_STORE_TIMESTAMP);
    f.sp.store_timestamp = &f.store;
    f.store.seconds = INT64_MAX / 999;
    expect_bad(&f, 4 * MIB, "store timestamp out of range");
}

static void test_rmq_dec_ids_and_handles(void)
{
    fixture_t f;
    fixture_init(&f);
    char id[RMQ_MSGID_MAX + 2];
    memset(id, 'A', sizeof(id));
    id[RMQ_MSGID_MAX] = '\0';
    f.sp.message_id = id;
    rsql_rmq_msg_t *m = decode(&f, 4 * MIB); /* 128 characters: fine */
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
    rsql_rmq_msg_destroy(m);
    id[RMQ_MSGID_MAX] = 'A';
    id[RMQ_MSGID_MAX + 1] = '\0';
    expect_bad(&f, 4 * MIB, "malformed message id");
    f.sp.message_id = (char *)"";
    expect_bad(&f, 4 * MIB, "without a message id");
    f.sp.message_id = (char *)"AB CD";
    expect_bad(&f, 4 * MIB, "malformed message id");
    f.sp.message_id = (char *)"AB\nCD";
    expect_bad(&f, 4 * MIB, "malformed message id");
    f.sp.message_id = (char *)"AB\xc3\xa9";
    expect_bad(&f, 4 * MIB, "malformed message id");
    f.sp.message_id = (char *)"ABCD";
    f.sp._receipt_handle_case = PBC(SYSTEM_PROPERTIES___RECEIPT_HANDLE__NOT_SET);
    expect_bad(&f, 4 * MIB, "without a receipt handle");
}

static void test_rmq_dec_property_maps(void)
{
    fixture_t f;
    fixture_init(&f);
    f.pe[0].key = (char *)"a";
    f.pe[0].value = (char *)"1";
    f.pe[1].key = (char *)"b";
    f.pe[1].value = (char *)"2";
    f.pe[2].key = (char *)"c";
    f.pe[2].value = (char *)"";
    f.m.user_properties = f.ppe;
    f.m.n_user_properties = 3;
    rsql_rmq_msg_t *m = decode(&f, 4 * MIB);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->bad.code, RSQL_OK);
    CU_ASSERT_EQUAL(m->n_props, 3);
    rsql_rmq_msg_destroy(m);
    f.pe[2].key = (char *)"a";
    expect_bad(&f, 4 * MIB, "key 'a' given twice");
    f.pe[2].key = (char *)"";
    expect_bad(&f, 4 * MIB, "a property with an empty key");
    /* more than 64 KiB of properties: the broker stores at most 32767 bytes of them */
    static char big[RMQ_PROPS_MAX];
    memset(big, 'v', sizeof(big) - 1);
    f.pe[2].key = (char *)"c";
    f.pe[2].value = big;
    expect_bad(&f, 4 * MIB, "over 65536 bytes");
    /* keys count too */
    f.pe[2].value = (char *)"";
    char *keys[2] = {big, big};
    f.sp.keys = keys;
    f.sp.n_keys = 2;
    expect_bad(&f, 4 * MIB, "over 65536 bytes");
}

/* A long poll's stream elements past the batch size asked for are dropped, not collected. */
static void test_rmq_recv_more_than_asked(void)
{
    const char *topics[1] = {"orders"};
    rsql_rmq_config_t conf = {.endpoints = "127.0.0.1:8081",
                              .client_type = RSQL_RMQ_SIMPLE_CONSUMER,
                              .group = "g",
                              .topics = topics,
                              .n_topics = 1};
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, NULL); /* never started: no I/O */
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    rmq_call_t *k = rsql_calloc(1, sizeof *k);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    k->c = c;
    k->n_out = 2;
    fixture_t f;
    fixture_init(&f);
    PB(ReceiveMessageResponse) r = PBC(RECEIVE_MESSAGE_RESPONSE__INIT);
    r.content_case = PBC(RECEIVE_MESSAGE_RESPONSE__CONTENT_MESSAGE);
    r.message = &f.m;
    size_t n = protobuf_c_message_get_packed_size(&r.base);
    uint8_t *p = rsql_malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    protobuf_c_message_pack(&r.base, p);
    for (int i = 0; i < 1000; i++) { /* a hostile server floods one long poll */
        grpc_slice sl = grpc_slice_from_copied_buffer((const char *)p, n);
        k->recv_bb = grpc_raw_byte_buffer_create(&sl, 1);
        grpc_slice_unref(sl);
        rsql_rmq__recv_element(k);
    }
    rsql_free(p);
    CU_ASSERT_EQUAL(k->n_msgs, 2);
    CU_ASSERT_EQUAL(k->n_extra, 998);
    for (size_t i = 0; i < k->n_msgs; i++) {
        rsql_rmq_msg_destroy(k->msgs[i]);
    }
    rsql_free(k->msgs);
    rsql_free(k);
    rsql_rmq_client_destroy(c);
}

static void test_rmq_recv_limit(void)
{
    /* one stream element carries one message: a body the broker accepts plus 1 MiB */
    CU_ASSERT_EQUAL(rsql_rmq_recv_limit(0), 5 * MIB);
    CU_ASSERT_EQUAL(rsql_rmq_recv_limit(64 * 1024), 5 * MIB); /* still room for a 4 MiB body */
    CU_ASSERT_EQUAL(rsql_rmq_recv_limit(4 * MIB), 5 * MIB);
    CU_ASSERT_EQUAL(rsql_rmq_recv_limit(16 * MIB), 17 * MIB);
    CU_ASSERT_EQUAL(rsql_rmq_recv_limit((size_t)4 << 30), 1025 * MIB); /* capped, fits an int */
}

static void test_rmq_dec_settings_duration(void)
{
    /* a long-polling timeout that would overflow in ms is ignored, not converted */
    PB(TelemetryCommand) t = PBC(TELEMETRY_COMMAND__INIT);
    PB(Settings) s = PBC(SETTINGS__INIT);
    PB(Subscription) sub = PBC(SUBSCRIPTION__INIT);
    Google__Protobuf__Duration d = GOOGLE__PROTOBUF__DURATION__INIT;
    d.seconds = INT64_MAX;
    sub._long_polling_timeout_case = PBC(SUBSCRIPTION___LONG_POLLING_TIMEOUT_LONG_POLLING_TIMEOUT);
    sub.long_polling_timeout = &d;
    s.pub_sub_case = PBC(SETTINGS__PUB_SUB_SUBSCRIPTION);
    s.subscription = &sub;
    t.command_case = PBC(TELEMETRY_COMMAND__COMMAND_SETTINGS);
    t.settings = &s;
    size_t n = protobuf_c_message_get_packed_size(&t.base);
    uint8_t *p = rsql_malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    protobuf_c_message_pack(&t.base, p);
    rmq_tcmd_t cmd;
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_telemetry(p, n, &cmd, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(cmd.settings.long_polling_timeout_ms, 0);
    rsql_rmq__tcmd_deinit(&cmd);
    d.seconds = 20;
    protobuf_c_message_pack(&t.base, p);
    n = protobuf_c_message_get_packed_size(&t.base);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq__dec_telemetry(p, n, &cmd, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(cmd.settings.long_polling_timeout_ms, 20000);
    rsql_rmq__tcmd_deinit(&cmd);
    rsql_free(p);
}

static CU_TestInfo dec_tests[] = {
    {"rmq_dec_no_system_properties", test_rmq_dec_no_system_properties},
    {"rmq_dec_gzip_bomb", test_rmq_dec_gzip_bomb},
    {"rmq_dec_body_encoding", test_rmq_dec_body_encoding},
    {"rmq_dec_body_size", test_rmq_dec_body_size},
    {"rmq_dec_timestamps", test_rmq_dec_timestamps},
    {"rmq_dec_ids_and_handles", test_rmq_dec_ids_and_handles},
    {"rmq_dec_property_maps", test_rmq_dec_property_maps},
    {"rmq_recv_more_than_asked", test_rmq_recv_more_than_asked},
    {"rmq_recv_limit", test_rmq_recv_limit},
    {"rmq_dec_settings_duration", test_rmq_dec_settings_duration},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_decode", NULL, NULL, NULL, NULL, dec_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
