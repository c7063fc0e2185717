/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Endpoint failover of the RocketMQ client (rmq_channel.c: every endpoint is an address of one
 * channel, pick_first) against two fake proxies: an endpoint that is down from the start is
 * passed over; when the proxy in use stops, sends, the Telemetry stream and the route refresh
 * go to the other one. Every wait is for an event the fakes record.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/rsql_mem.h"
#include "rmqclient/rmq_client.h"
#include "tests/lib/rmq_sync.h"
#include "tests/fakes/fake_rmq_cu.h"

#define T "orders"

static const char *const topics[1] = {T};

/* A loopback port nothing listens on (bound, then closed: connecting to it is refused). */
static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                    getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

static rsql_rmq_client_t *producer(const char *endpoints, int route_refresh_ms)
{
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = endpoints;
    conf.client_type = RSQL_RMQ_PRODUCER;
    conf.topics = topics;
    conf.n_topics = 1;
    conf.request_timeout_ms = 2000;
    conf.route_refresh_ms = route_refresh_ms;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    if (err.code) {
        fprintf(stderr, "\n  start: %s\n", err.msg);
    }
    return c;
}

static rsql_err_t send_text(rsql_rmq_client_t *c, const char *body, rsql_error_t *err)
{
    rsql_rmq_out_msg_t m;
    memset(&m, 0, sizeof m);
    m.topic = T;
    m.body = body;
    m.body_len = strlen(body);
    char *id = NULL;
    rsql_error_clear(err);
    rsql_err_t rc = tsync_send(c, &m, 1, &id, err);
    rsql_free(id);
    return rc;
}

/* The first endpoint refuses connections from the start: the client works through the second. */
static void test_failover_first_down(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    char eps[96];
    snprintf(eps, sizeof eps, "127.0.0.1:%d,%s", dead_port(), fake_rmq_endpoint(f));
    rsql_rmq_client_t *c = producer(eps, 0);
    rsql_error_t err;
    CU_ASSERT_EQUAL(send_text(c, "via the second", &err), RSQL_OK);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(f, T, "via the second"), SIZE_MAX);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 1);
    CU_ASSERT_EQUAL(st.calls[FAKE_TELEMETRY], 1);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(f);
}

/* Several names for one proxy (a name and its address) are one address; bad names are skipped. */
static void test_failover_names(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    const char *port = strrchr(fake_rmq_endpoint(f), ':') + 1;
    char eps[160];
    snprintf(eps, sizeof eps, "no-such-host.invalid:%s,localhost:%s", port, port);
    rsql_rmq_client_t *c = producer(eps, 0);
    rsql_error_t err;
    CU_ASSERT_EQUAL(send_text(c, "by name", &err), RSQL_OK);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(f, T, "by name"), SIZE_MAX);
    rsql_rmq_client_destroy(c);
    /* none resolves: an error when the client is made */
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = "no-such-host.invalid:8081,other.invalid:8081";
    conf.client_type = RSQL_RMQ_PRODUCER;
    conf.topics = topics;
    conf.n_topics = 1;
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_rmq_client_new(&conf, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "RocketMQ endpoints 'no-such-host.invalid:8081,other."
                                    "invalid:8081': none can be resolved");
    fake_rmq_stop(f);
}

/*
** The proxy in use stops mid-run: the next sends go to the other one (one may fail with
** UNAVAILABLE while the connection breaks: the sink retries such a send), the Telemetry stream
** is re-opened there and the route is refreshed there.
*/
static void test_failover_stopped_mid_run(void)
{
    fake_rmq_t *a = fake_rmq_start(), *b = fake_rmq_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    fake_rmq_topic(a, T, FAKE_NORMAL, 2);
    fake_rmq_topic(b, T, FAKE_NORMAL, 2);
    char eps[96];
    snprintf(eps, sizeof eps, "%s,%s", fake_rmq_endpoint(a), fake_rmq_endpoint(b));
    rsql_rmq_client_t *c = producer(eps, 500);
    rsql_error_t err;
    CU_ASSERT_EQUAL(send_text(c, "one", &err), RSQL_OK);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(a, T, "one"), SIZE_MAX); /* pick_first: the first */
    fake_stats_t st;
    fake_rmq_stats(b, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 0);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 0);
    fake_rmq_stop(a);
    int fails = 0;
    while (send_text(c, "two", &err) != RSQL_OK && fails < 3) {
        CU_ASSERT_TRUE(rsql_error_retriable(&err));
        fails++;
    }
    CU_ASSERT(fails < 2);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(b, T, "two"), SIZE_MAX);
    FAKE_WAIT_CALLS(b, FAKE_TELEMETRY, 1);
    FAKE_WAIT_CALLS(b, FAKE_QUERY_ROUTE, 1); /* the refresh, every 500 ms here */
    CU_ASSERT_EQUAL(send_text(c, "three", &err), RSQL_OK);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(b, T, "three"), SIZE_MAX);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(b);
}

static CU_TestInfo failover_tests[] = {
    {"test_failover_first_down", test_failover_first_down},
    {"test_failover_names", test_failover_names},
    {"test_failover_stopped_mid_run", test_failover_stopped_mid_run},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"rmq_fault_failover", NULL, NULL, NULL, NULL, failover_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
