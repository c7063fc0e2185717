/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * test_rmq_fault_lite: the lite source's client identities (source.lite-clients) against the
 * fake proxy: N identities over one connection, each with its own client id, Settings,
 * heartbeat, lite subscription and long polls; every message acked and renewed by the identity
 * that received it (the fake counts the others: fake_rmq_ids.c); each identity says goodbye at
 * close. Lanes of lite topics with nothing held go after lanes.idle-timeout; one held stays.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fakes/fake_rmq_src.h"

#define N_LITE 10
#define PER_LITE 3
#define N_MSGS (N_LITE * PER_LITE)

static size_t put_lite(fake_rmq_t *f, const char *lite, const char *body)
{
    fake_msg_t m;
    memset(&m, 0, sizeof m);
    m.body = body;
    m.body_len = strlen(body);
    m.lite_topic = lite;
    return fake_rmq_put(f, T, &m);
}

static bool msg_changed(const fake_msg_info_t *mi, void *arg)
{
    return mi->changes >= *(const int *)arg;
}

typedef struct polls_arg {
    int clients, waiting;
} polls_arg_t;

static bool pred_parked(const fake_stats_t *st, void *arg)
{
    const polls_arg_t *a = arg;
    return st->poll_clients >= a->clients && st->waiting_polls >= a->waiting;
}

/* The distinct client ids in ids[0..n-1] (each up to 128 bytes). */
static int distinct(char ids[][128], int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < i && strcmp(ids[j], ids[i]) != 0) {
            j++;
        }
        d += j == i;
    }
    return d;
}

/*
** Three identities, idle, one long poll each (the adaptive receive's start): all three park;
** a burst of 30 messages over 10 lite topics is then spread over them (5 per poll). Every message is held past its renewal time,
** then written: each renewal and each ack goes under the identity that received the message.
*/
static void test_fault_lite_clients(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_LITE, 1);
    fake_rmq_pause_delivery(f, true);
    static const char *const kv[] = {"source.mode",       "lite", "source.lite-clients", "3",
                                     "source.lite-clients-min", "3",
                                     "source.batch-size", "5",    NULL};
    src_t x;
    src_opts(&x, f, kv);
    x.conf->await_ms = 20000; /* the three polls stay parked until the burst */
    CU_ASSERT_EQUAL_FATAL(src_start(&x), RSQL_OK);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SYNC_LITE], 3); /* one COMPLETE_ADD per identity */
    CU_ASSERT(st.calls[FAKE_HEARTBEAT] >= 3);
    CU_ASSERT_EQUAL(st.telemetry_open, 3);         /* a Telemetry stream (Settings) each */
    polls_arg_t parked = {3, 3};
    CU_ASSERT_TRUE_FATAL(fake_rmq_wait(f, pred_parked, &parked, FAULT_WAIT_MS));
    size_t first = SIZE_MAX;
    for (int i = 0; i < N_MSGS; i++) {
        char lite[16], body[32];
        snprintf(lite, sizeof lite, "l%02d", i % N_LITE);
        snprintf(body, sizeof body, "m-%03d", i);
        size_t idx = put_lite(f, lite, body);
        first = i == 0 ? idx : first;
    }
    fake_rmq_pause_delivery(f, false);
    polled_t p[N_MSGS];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, N_MSGS, NULL, NULL, p), N_MSGS);
    char ids[N_MSGS][128];
    int one = 1;
    for (int i = 0; i < N_MSGS; i++) {
        fake_msg_info_t mi = info(f, first + (size_t)i);
        CU_ASSERT_EQUAL(mi.deliveries, 1);
        CU_ASSERT(mi.client_id[0] != '\0');
        memcpy(ids[i], mi.client_id, sizeof ids[i]);
        /* held past renewal-ahead: renewed (by the identity that received it) */
        CU_ASSERT_TRUE(fake_rmq_wait_msg(f, first + (size_t)i, msg_changed, &one, FAULT_WAIT_MS));
    }
    CU_ASSERT_EQUAL(distinct(ids, N_MSGS), 3); /* the burst went to all three identities */
    for (int i = 0; i < N_MSGS; i++) {
        src_commit(&x, &p[i], RSQL_OUTCOME_WRITTEN);
    }
    CU_ASSERT_TRUE(src_wait_acked(&x, N_MSGS));
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.poll_clients, 3);
    CU_ASSERT(st.changes >= N_MSGS);
    CU_ASSERT_EQUAL(st.foreign_changes, 0);
    CU_ASSERT_EQUAL(st.foreign_acks, 0);
    CU_ASSERT_EQUAL(st.connections, 1); /* one shared channel */
    assert_all_acked_once(f, first, N_MSGS);
    src_close(&x);
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_NOTIFY], 3); /* each identity said goodbye */
    fake_rmq_stop(f);
}

/*
** Close with messages held by three identities: the half written just before close is acked at
** close, each under the identity that received it; the other half is not acked (it comes back
** after its invisible duration); each identity says goodbye.
*/
static void test_fault_lite_clients_close(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_LITE, 1);
    fake_rmq_pause_delivery(f, true);
    static const char *const kv[] = {"source.mode",       "lite", "source.lite-clients", "3",
                                     "source.lite-clients-min", "3",
                                     "source.batch-size", "5",    NULL};
    src_t x;
    src_opts(&x, f, kv);
    x.conf->await_ms = 20000;
    CU_ASSERT_EQUAL_FATAL(src_start(&x), RSQL_OK);
    polls_arg_t parked = {3, 3};
    CU_ASSERT_TRUE_FATAL(fake_rmq_wait(f, pred_parked, &parked, FAULT_WAIT_MS));
    size_t first = SIZE_MAX;
    for (int i = 0; i < N_MSGS; i++) {
        char lite[16], body[32];
        snprintf(lite, sizeof lite, "l%02d", i % N_LITE);
        snprintf(body, sizeof body, "c-%03d", i);
        size_t idx = put_lite(f, lite, body);
        first = i == 0 ? idx : first;
    }
    fake_rmq_pause_delivery(f, false);
    polled_t p[N_MSGS];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, N_MSGS, NULL, NULL, p), N_MSGS);
    char ids[N_MSGS][128];
    bool written[N_MSGS];
    for (int i = 0; i < N_MSGS; i++) {
        memcpy(ids[i], info(f, first + (size_t)i).client_id, sizeof ids[i]);
    }
    CU_ASSERT_EQUAL(distinct(ids, N_MSGS), 3);
    memset(written, 0, sizeof written);
    for (int i = 0; i < N_MSGS; i++) {
        int m = atoi(p[i].body + 2); /* "c-NNN": message first + NNN */
        CU_ASSERT_FATAL(m >= 0 && m < N_MSGS);
        if (m % 2 == 0) {
            written[m] = true;
            src_commit(&x, &p[i], RSQL_OUTCOME_WRITTEN); /* queued: the close flushes it */
        }
    }
    src_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_NOTIFY], 3);
    CU_ASSERT_EQUAL(st.foreign_acks, 0);
    CU_ASSERT_EQUAL(st.foreign_changes, 0);
    int acked = 0, wrong = 0;
    for (int i = 0; i < N_MSGS; i++) {
        fake_msg_info_t mi = info(f, first + (size_t)i);
        acked += mi.acks;
        wrong += written[i] ? mi.acks != 1 : mi.acks != 0;
    }
    CU_ASSERT_EQUAL(acked, N_MSGS / 2);
    CU_ASSERT_EQUAL(wrong, 0);
    fk_assert_clean_acks(f);
    fake_rmq_stop(f);
}

/* source.lite-clients = 1: one identity, one COMPLETE_ADD, the polls of one client id. */
static void test_fault_lite_one_client(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_LITE, 1);
    size_t a = put_lite(f, "a", "a1");
    size_t b = put_lite(f, "b", "b1");
    static const char *const kv[] = {"source.mode", "lite", "source.lite-clients", "1", NULL};
    src_t x;
    src_open(&x, f, kv);
    CU_ASSERT_EQUAL(src_take(&x, 2, NULL, NULL, NULL), 2);
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, a, fk_msg_acked, NULL, FAULT_WAIT_MS));
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, b, fk_msg_acked, NULL, FAULT_WAIT_MS));
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SYNC_LITE], 1);
    CU_ASSERT_EQUAL(st.poll_clients, 1);
    src_close(&x);
    assert_all_acked_once(f, a, 2);
    fake_rmq_stop(f);
}

/* Wait (at most FAULT_WAIT_MS) until the source describes n live lanes. */
static bool wait_lanes(src_t *x, int n)
{
    char want[32], buf[4096];
    snprintf(want, sizeof want, "\"lanes\":%d,", n);
    int64_t dl = rsql_now_ms() + FAULT_WAIT_MS;
    for (;;) {
        x->ops->describe(x->s, false, buf, sizeof buf);
        if (strstr(buf, want)) {
            return true;
        }
        if (rsql_now_ms() >= dl) {
            fprintf(stderr, "\n  describe: %s\n", buf);
            return false;
        }
        struct timespec ts = {0, 5 * 1000 * 1000}; /* a bounded poll of the source's state */
        nanosleep(&ts, NULL);
    }
}

/*
** lanes.idle-timeout 100ms (its least): 200 lite topics of one message each, written and
** acked, go; the lite topic whose message is still held stays, under its name. A new lite
** topic then takes a number that was freed, with its own name.
*/
static void test_fault_lite_lanes_go(void)
{
    enum { N = 200 };
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_LITE, 1);
    put_lite(f, "keep", "keep-1");
    for (int i = 0; i < N; i++) {
        char lite[16], body[32];
        snprintf(lite, sizeof lite, "t-%03d", i);
        snprintf(body, sizeof body, "m-%03d", i);
        put_lite(f, lite, body);
    }
    static const char *const kv[] = {"source.mode", "lite", "lanes.idle-timeout", "100ms", NULL};
    src_t x;
    src_open(&x, f, kv);
    static polled_t p[N + 1];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, N + 1, NULL, NULL, p), N + 1);
    polled_t *kept = NULL;
    uint32_t max_part = 0;
    for (int i = 0; i <= N; i++) {
        max_part = p[i].rec.partition > max_part ? p[i].rec.partition : max_part;
        if (strcmp(p[i].body, "keep-1") == 0) {
            kept = &p[i];
        } else {
            src_commit(&x, &p[i], RSQL_OUTCOME_WRITTEN);
        }
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
    CU_ASSERT_EQUAL(max_part, N); /* one lane each */
    CU_ASSERT_TRUE(src_wait_acked(&x, N));
    CU_ASSERT_TRUE(wait_lanes(&x, 1));
    const char *name = x.ops->partition_name(x.s, kept->rec.partition);
    CU_ASSERT_STRING_EQUAL(name ? name : "", T "/keep");
    put_lite(f, "fresh", "fresh-1");
    polled_t q;
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 1, NULL, NULL, &q), 1);
    CU_ASSERT(q.rec.partition < N + 1);
    CU_ASSERT_NOT_EQUAL(q.rec.partition, kept->rec.partition);
    name = x.ops->partition_name(x.s, q.rec.partition);
    CU_ASSERT_STRING_EQUAL(name ? name : "", T "/fresh");
    src_commit(&x, &q, RSQL_OUTCOME_WRITTEN);
    src_commit(&x, kept, RSQL_OUTCOME_WRITTEN);
    CU_ASSERT_TRUE(src_wait_acked(&x, N + 2));
    CU_ASSERT_TRUE(wait_lanes(&x, 0));
    src_close(&x);
    fake_rmq_stop(f);
}

static CU_TestInfo lite_tests[] = {
    {"fault_lite_clients", test_fault_lite_clients},
    {"fault_lite_clients_close", test_fault_lite_clients_close},
    {"fault_lite_one_client", test_fault_lite_one_client},
    {"fault_lite_lanes_go", test_fault_lite_lanes_go},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_lite", NULL, NULL, NULL, NULL, lite_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
