/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Hostile messages from the (fake) broker through the real client, decoder and source: no
 * system properties, timestamps out of range, malformed and repeated message ids, a huge
 * property map, compressed bodies with and without the GZIP body encoding, a gzip bomb, a
 * ReceiveMessage element over the gRPC receive limit. A hostile message becomes a decode
 * failure of its own record (rec->error set, its raw form kept), never undefined behaviour or
 * unbounded memory; its neighbours are good records; each is committed as the pipeline would
 * (a decode failure dead-lettered, i.e. acked) and acked once when it has a receipt handle.
 *
 * (Written against the client before its input limits: then a message
 * without system properties crashed rs_poll, the timestamps overflowed, an IDENTITY gzip body
 * was inflated, the bomb inflated whole and the 16 MiB element was taken. Those cases were kept
 * as inactive reproducers until the limits work landed; they are its regression tests now.)
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rmqclient/rmq_client.h"
#include "tests/lib/rmq_sync.h"
#include "tests/fakes/fake_rmq_src.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* data compressed with zlib (window_bits 15 + 16: gzip, 15: zlib) into a new buffer. */
static uint8_t *compress_buf(const void *data, size_t len, int window_bits, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    CU_ASSERT_EQUAL_FATAL(deflateInit2(&zs, 9, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY),
                          Z_OK);
    size_t cap = deflateBound(&zs, (uLong)len);
    uint8_t *out = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    CU_ASSERT_EQUAL(deflate(&zs, Z_FINISH), Z_STREAM_END);
    *out_len = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

/* A record as the source handed it out: its body (copied) and whether it was a decode failure. */
typedef struct got {
    uint8_t *raw;
    size_t len;
    bool bad;
    char why[1024]; /* the decode failure's message */
} got_t;

/*
** Poll until want records came (or the bound); every record is kept (raw copied, decode failure
** noted) and committed as the pipeline does: WRITTEN, or DEAD_LETTERED when it is a decode
** failure. Returns the number of records handed out.
*/
static int take_all(src_t *x, int want, got_t *out, int cap)
{
    int n = 0;
    int64_t until = rsql_now_ms() + FAULT_WAIT_MS;
    while (n < want && n < cap && rsql_now_ms() < until) {
        rsql_batch_t *b = rsql_batch_new(16);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        bool eof = false;
        rsql_error_t err;
        rsql_error_clear(&err);
        if (x->ops->poll(x->s, b, 16, 200, &eof, &err) != RSQL_OK) {
            rsql_error_copy(&x->err, &err);
            rsql_batch_destroy(b);
            break;
        }
        for (int i = 0; i < b->n && n < cap; i++) {
            rsql_record_t *r = &b->recs[i];
            out[n].len = r->raw_len;
            out[n].raw = malloc(r->raw_len + 1);
            CU_ASSERT_PTR_NOT_NULL_FATAL(out[n].raw);
            if (r->raw_len) {
                memcpy(out[n].raw, r->raw, r->raw_len);
            }
            out[n].raw[r->raw_len] = '\0';
            out[n].bad = r->error != NULL;
            snprintf(out[n].why, sizeof out[n].why, "%s", r->error ? r->error->msg : "");
            rsql_outcome_t o = {r->error ? RSQL_OUTCOME_DEAD_LETTERED : RSQL_OUTCOME_WRITTEN,
                                r->error, NULL};
            x->ops->commit_record(x->s, r, &o);
            n++;
        }
        rsql_batch_destroy(b);
    }
    return n;
}

static void got_free(got_t *g, int n)
{
    for (int i = 0; i < n; i++) {
        free(g[i].raw);
    }
}

/* The record whose raw form is text (NULL when none came). */
static const got_t *got_find(const got_t *g, int n, const char *text)
{
    for (int i = 0; i < n; i++) {
        if (g[i].len == strlen(text) && memcmp(g[i].raw, text, g[i].len) == 0) {
            return &g[i];
        }
    }
    return NULL;
}

static size_t put_body(fake_rmq_t *f, const void *body, size_t len, int encoding)
{
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = body;
    m.body_len = len;
    m.encoding = encoding;
    return fake_rmq_put(f, T, &m);
}

/*
** Three records came: "before" and "after" good, and one decode failure (the hostile one)
** whose error mentions why; the neighbours were acked once.
*/
static void assert_one_bad_between(fake_rmq_t *f, const got_t *g, int n, size_t before,
                                   size_t after, const char *why)
{
    CU_ASSERT_EQUAL(n, 3);
    const got_t *b = got_find(g, n, "before"), *a = got_find(g, n, "after");
    CU_ASSERT(b && !b->bad);
    CU_ASSERT(a && !a->bad);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (g[i].bad) {
            bad++;
            if (!strstr(g[i].why, why)) {
                fprintf(stderr, "decode failure: '%s' (expected '%s')\n", g[i].why, why);
                CU_FAIL("the decode failure says why");
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 1);
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, before, fk_msg_acked, NULL, FAULT_WAIT_MS));
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, after, fk_msg_acked, NULL, FAULT_WAIT_MS));
    assert_all_acked_once(f, before, 1);
    assert_all_acked_once(f, after, 1);
}

/* A hostile message m between two normal ones, through a source; its records in g. */
static int run_between(fake_rmq_t *f, const fake_msg_t *m, got_t *g, int cap, size_t *before,
                       size_t *hostile, size_t *after)
{
    *before = fake_rmq_put_text(f, T, "before");
    *hostile = fake_rmq_put(f, T, m);
    *after = fake_rmq_put_text(f, T, "after");
    src_t x;
    src_open(&x, f, NULL);
    int n = take_all(&x, 3, g, cap);
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, *after, fk_msg_acked, NULL, FAULT_WAIT_MS));
    src_close(&x);
    return n;
}

/* ---- hostile messages ---------------------------------------------------------------------- */

/*
** No system_properties: no id, no receipt handle. A decode failure of its record; it cannot be
** acked (no handle), so it is released and comes back after its invisible duration.
*/
static void test_hostile_no_system_properties(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = "no system properties";
    m.body_len = 20;
    m.no_system_properties = true;
    got_t g[8];
    size_t before, hostile, after;
    int n = run_between(f, &m, g, 8, &before, &hostile, &after);
    assert_one_bad_between(f, g, n, before, after, "system properties");
    fake_msg_info_t mi;
    fake_rmq_msg_info(f, hostile, &mi);
    CU_ASSERT_EQUAL(mi.acks, 0);
    CU_ASSERT_EQUAL(mi.ack_requests, 0);
    got_free(g, n);
    fake_rmq_stop(f);
}

/* Born and store seconds whose milliseconds overflow int64 (UB before the limits work). */
static void test_hostile_timestamps(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = "time";
    m.body_len = 4;
    m.born_set = m.store_set = true;
    m.born_seconds = INT64_MAX;
    m.store_seconds = INT64_MIN;
    got_t g[8];
    size_t before, hostile, after;
    int n = run_between(f, &m, g, 8, &before, &hostile, &after);
    assert_one_bad_between(f, g, n, before, after, "timestamp");
    assert_all_acked_once(f, hostile, 1); /* it has a handle: dead-lettered, so acked */
    got_free(g, n);
    fake_rmq_stop(f);
}

/* A message with 20,000 user properties (about 1.4 MB, over the 64 KiB the client takes). */
static void test_hostile_huge_properties(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = "props";
    m.body_len = 5;
    m.n_props = 20000;
    m.prop_value_len = 64;
    got_t g[8];
    size_t before, hostile, after;
    int n = run_between(f, &m, g, 8, &before, &hostile, &after);
    assert_one_bad_between(f, g, n, before, after, "propert");
    assert_all_acked_once(f, hostile, 1);
    got_free(g, n);
    fake_rmq_stop(f);
}

/*
** Message ids a broker should never send: empty, 1,000 characters, with a control character;
** and a good id twice. The bad ones are decode failures, the repeated one two good records;
** acks go by receipt handle: each is acked exactly once.
*/
static void test_hostile_message_ids(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    static char long_id[1001];
    memset(long_id, 'x', 1000);
    const char *ids[5] = {"", long_id, "a/b\001c", "SAME", "SAME"};
    size_t first = SIZE_MAX;
    for (int i = 0; i < 5; i++) {
        fake_msg_t m;
        memset(&m, 0, sizeof m);
        char body[16];
        snprintf(body, sizeof body, "id-%d", i);
        m.body = body;
        m.body_len = strlen(body);
        m.message_id = ids[i];
        size_t idx = fake_rmq_put(f, T, &m);
        first = i == 0 ? idx : first;
    }
    src_t x;
    src_open(&x, f, NULL);
    got_t g[8];
    int n = take_all(&x, 5, g, 8);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    for (int i = 0; i < 5; i++) {
        char body[16];
        snprintf(body, sizeof body, "id-%d", i);
        const got_t *r = got_find(g, n, body);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(r->bad, i < 3);
    }
    int five = 5;
    CU_ASSERT_TRUE(fake_rmq_wait(f, fk_pred_acked, &five, FAULT_WAIT_MS));
    src_close(&x);
    assert_all_acked_once(f, first, 5);
    got_free(g, n);
    fake_rmq_stop(f);
}

/*
** Compressed bodies marked GZIP: gzip and zlib data are inflated (good records); a body marked
** GZIP that does not inflate is a decode failure with its raw form.
*/
static void test_hostile_gzip_encoded(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    const char *plain = "{\"id\":42,\"text\":\"compressed by the producer\"}";
    size_t gz_len, zl_len;
    uint8_t *gz = compress_buf(plain, strlen(plain), 15 + 16, &gz_len);
    uint8_t *zl = compress_buf(plain, strlen(plain), 15, &zl_len);
    put_body(f, gz, gz_len, 2);
    put_body(f, zl, zl_len, 2);
    put_body(f, "not compressed", 14, 2);
    src_t x;
    src_open(&x, f, NULL);
    got_t g[8];
    int n = take_all(&x, 3, g, 8);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    int inflated = 0;
    for (int i = 0; i < n; i++) {
        inflated +=
            !g[i].bad && g[i].len == strlen(plain) && memcmp(g[i].raw, plain, g[i].len) == 0;
    }
    CU_ASSERT_EQUAL(inflated, 2);
    const got_t *raw = got_find(g, n, "not compressed");
    CU_ASSERT(raw && raw->bad && strstr(raw->why, "not valid gzip"));
    int three = 3;
    CU_ASSERT_TRUE(fake_rmq_wait(f, fk_pred_acked, &three, FAULT_WAIT_MS));
    src_close(&x);
    fk_assert_clean_acks(f);
    got_free(g, n);
    free(gz);
    free(zl);
    fake_rmq_stop(f);
}

/*
** A producer's own gzip payload sent as opaque bytes (body_encoding IDENTITY): a good record
** with exactly the bytes sent (only GZIP-encoded bodies are inflated).
*/
static void test_hostile_gzip_identity(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    const char *plain = "the producer compressed this itself";
    size_t gz_len;
    uint8_t *gz = compress_buf(plain, strlen(plain), 15 + 16, &gz_len);
    put_body(f, gz, gz_len, 0);
    src_t x;
    src_open(&x, f, NULL);
    got_t g[2];
    int n = take_all(&x, 1, g, 1);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_FALSE(g[0].bad);
    CU_ASSERT(g[0].len == gz_len && memcmp(g[0].raw, gz, gz_len) == 0); /* the bytes sent */
    src_close(&x);
    got_free(g, n);
    free(gz);
    fake_rmq_stop(f);
}

/*
** A gzip bomb: 32 KiB that inflate to 32 MiB (GZIP encoding). Inflation stops at
** source.max-body-size (4 MiB): a decode failure whose raw form is bounded (the limits work
** keeps at most 64 KiB of it); the neighbours are good.
*/
static void test_hostile_gzip_bomb(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t big = 32u << 20, gz_len;
    uint8_t *zeros = calloc(1, big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(zeros);
    uint8_t *gz = compress_buf(zeros, big, 15 + 16, &gz_len);
    free(zeros);
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = gz;
    m.body_len = gz_len;
    m.encoding = 2;
    got_t g[8];
    size_t before, hostile, after;
    int n = run_between(f, &m, g, 8, &before, &hostile, &after);
    assert_one_bad_between(f, g, n, before, after, "inflates to more than source.max-body-size");
    for (int i = 0; i < n; i++) {
        CU_ASSERT(g[i].len <= 4u << 20);
    }
    got_free(g, n);
    free(gz);
    fake_rmq_stop(f);
}

/*
** A ReceiveMessage element of 16 MiB: over the client's gRPC receive limit (a 4 MiB body and
** its properties fit), so the poll fails instead of taking it.
*/
static void test_hostile_oversized_response(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t big = 16u << 20;
    uint8_t *body = malloc(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    memset(body, 'b', big);
    put_body(f, body, big, 0);
    free(body);
    const char *const topics[1] = {T};
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = fake_rmq_endpoint(f);
    conf.client_type = RSQL_RMQ_SIMPLE_CONSUMER;
    conf.group = "g";
    conf.topics = topics;
    conf.n_topics = 1;
    conf.long_polling_timeout_ms = 300;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    rsql_rmq_msg_t **m = NULL;
    size_t n = 0;
    CU_ASSERT_NOT_EQUAL(tsync_receive(c, NULL, 1, 30000, &m, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 0);
    for (size_t i = 0; i < n; i++) {
        rsql_rmq_msg_destroy(m[i]);
    }
    rsql_free(m);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(f);
}

static CU_TestInfo hostile_tests[] = {
    {"hostile_no_system_properties", test_hostile_no_system_properties},
    {"hostile_timestamps", test_hostile_timestamps},
    {"hostile_huge_properties", test_hostile_huge_properties},
    {"hostile_message_ids", test_hostile_message_ids},
    {"hostile_gzip_encoded", test_hostile_gzip_encoded},
    {"hostile_gzip_identity", test_hostile_gzip_identity},
    {"hostile_gzip_bomb", test_hostile_gzip_bomb},
    {"hostile_oversized_response", test_hostile_oversized_response},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"rmq_fault_hostile", NULL, NULL, NULL, NULL, hostile_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
