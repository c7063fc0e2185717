/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Fault injection for the client's Settings against the fake proxy (tests/fakes/fake_rmq.h):
 * the proxy losing them while the Telemetry stream stays open (as 5.5 does after a restart or
 * when it drops settings it finds unused) and refusing them on a re-opened stream. The client
 * must notice from the answers (ReceiveMessage `"settings" is null`, Heartbeat "cannot find
 * client settings", a Settings reply with a transient status), re-send its Settings at once
 * (not at the 5-minute re-sync) and treat the failed calls as transient. Two clients in one
 * process heal independently. Every wait is for an event the fake records, never for time.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "rmqclient/rmq_client.h"
#include "tests/lib/rmq_sync.h"
#include "tests/fakes/fake_rmq_cu.h"

#define T "orders"

static const char *const topics[1] = {T};

static rsql_rmq_client_t *consumer(fake_rmq_t *f, const char *group)
{
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = fake_rmq_endpoint(f);
    conf.client_type = RSQL_RMQ_SIMPLE_CONSUMER;
    conf.group = group;
    conf.topics = topics;
    conf.n_topics = 1;
    conf.request_timeout_ms = 1000;
    conf.long_polling_timeout_ms = 300;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    return c;
}

static bool pred_telemetry(const fake_stats_t *st, void *arg)
{
    return st->calls[FAKE_TELEMETRY] >= *(const int *)arg;
}

/* One receive: its error code (RSQL_OK with a message), the message freed. */
static rsql_err_t receive_one(rsql_rmq_client_t *c, rsql_error_t *err, size_t *n)
{
    rsql_rmq_msg_t **m = NULL;
    *n = 0;
    rsql_error_clear(err);
    rsql_err_t rc = tsync_receive(c, NULL, 1, 10000, &m, n, err);
    for (size_t i = 0; i < *n; i++) {
        rsql_rmq_msg_destroy(m[i]);
    }
    rsql_free(m);
    return rc;
}

/* Receive until a message comes (transient errors and empty polls are retried). */
static bool receive_message(rsql_rmq_client_t *c)
{
    for (int tries = 0; tries < 40; tries++) {
        rsql_error_t err;
        size_t n = 0;
        rsql_err_t rc = receive_one(c, &err, &n);
        if (n > 0) {
            return true;
        }
        if (rc != RSQL_OK && !rsql_error_retriable(&err)) {
            return false;
        }
    }
    return false;
}

/*
** Two consumers in one process; the proxy forgets every client's Settings (streams open). The
** next poll of each answers `"settings" is null`: a transient error (UNAVAILABLE, remote code
** 50001), and each client re-sends its Settings on its open stream at once; then each gets a
** message again. Without the re-send the proxy would know neither for 5 minutes.
*/
static void test_fault_settings_lost_two_clients(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    rsql_rmq_client_t *a = consumer(f, "ga");
    rsql_rmq_client_t *b = consumer(f, "gb");
    int two = 2;
    FAKE_WAIT(f, pred_telemetry, &two);
    fake_rmq_forget_settings(f);
    rsql_error_t err;
    size_t n = 0;
    CU_ASSERT_NOT_EQUAL(receive_one(a, &err, &n), RSQL_OK);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_EQUAL(err.remote_code, RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR);
    CU_ASSERT_TRUE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "\"settings\" is null"));
    CU_ASSERT_NOT_EQUAL(receive_one(b, &err, &n), RSQL_OK);
    CU_ASSERT_TRUE(rsql_error_retriable(&err));
    int four = 4; /* both clients sent their Settings again */
    FAKE_WAIT(f, pred_telemetry, &four);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_TRUE(st.settings_missing >= 2);
    CU_ASSERT_EQUAL(st.telemetry_open, 2); /* re-sent on the open streams, none re-opened */
    fake_rmq_put_text(f, T, "one");
    CU_ASSERT_TRUE(receive_message(a));
    fake_rmq_put_text(f, T, "two");
    CU_ASSERT_TRUE(receive_message(b));
    int before = st.settings_missing;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.settings_missing, before); /* healed: no poll lacked Settings since */
    rsql_rmq_client_destroy(a);
    rsql_rmq_client_destroy(b);
    fake_rmq_stop(f);
}

/*
** The Telemetry stream breaks and, on the re-opened stream, the proxy answers the Settings with
** a transient status (as it does when not ready or throttling) and keeps the stream open: the
** client sends them again (rate-limited) until they are accepted, and receives again.
*/
static void test_fault_settings_refused_on_reopen(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    rsql_rmq_client_t *c = consumer(f, "g");
    fake_rmq_forget_settings(f);
    fake_answer_t refused = {.code = RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR};
    fake_rmq_script(f, FAKE_TELEMETRY, 2, &refused);
    fake_rmq_reset_telemetry(f, 14);
    int four = 4; /* start, the refused re-open, a refused re-send, the accepted one */
    FAKE_WAIT(f, pred_telemetry, &four);
    fake_rmq_put_text(f, T, "one");
    CU_ASSERT_TRUE(receive_message(c));
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.telemetry_open, 1);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(f);
}

static CU_TestInfo settings_tests[] = {
    {"fault_settings_lost_two_clients", test_fault_settings_lost_two_clients},
    {"fault_settings_refused_on_reopen", test_fault_settings_refused_on_reopen},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_settings", NULL, NULL, NULL, NULL, settings_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
