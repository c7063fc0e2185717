/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * TLS of the RocketMQ client (rmq_channel.c) against the fake proxy serving TLS
 * (fake_rmq_start_tls) with the certificates of scripts/test-certs (made under
 * $RSQL_BUILDDIR/tests/certs): a trusted certificate for the endpoint's host works, by IP SAN
 * and by tls.server-name; an untrusted one (default roots, or another CA) and a name mismatch
 * fail the start at once with a permanent error that says why; mutual TLS needs the client's
 * certificate; unreadable files are errors naming the option.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "rmqclient/rmq_client.h"
#include "tests/lib/rmq_sync.h"
#include "tests/fakes/fake_rmq_cu.h"

#define T "orders"

static char certs[512];

static const char *cert(const char *name)
{
    static char paths[8][600];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 600, "%s/%s", certs, name);
    return p;
}

static int suite_init(void)
{
    const char *src = getenv("RSQL_SRCDIR"), *bld = getenv("RSQL_BUILDDIR");
    if (!src || !bld) {
        fprintf(stderr, "test_rmq_fault_tls: RSQL_SRCDIR and RSQL_BUILDDIR must be set (make "
                        "check sets them)\n");
        return 1;
    }
    snprintf(certs, sizeof certs, "%s/tests/certs", bld);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "bash '%s/scripts/test-certs' '%s'", src, certs);
    return system(cmd) == 0 ? 0 : 1;
}

static const char *const topics[1] = {T};

typedef struct tls_conf {
    const char *ca, *name, *cert, *key;
} tls_conf_t;

static const char *endpoints_override; /* when set, instead of the fake's endpoint */

static rsql_rmq_client_t *producer(fake_rmq_t *f, const tls_conf_t *t, rsql_error_t *err)
{
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = endpoints_override ? endpoints_override : fake_rmq_endpoint(f);
    conf.client_type = RSQL_RMQ_PRODUCER;
    conf.topics = topics;
    conf.n_topics = 1;
    conf.request_timeout_ms = 2000;
    conf.tls = true;
    conf.tls_ca_file = t->ca;
    conf.tls_server_name = t->name;
    conf.tls_cert_file = t->cert;
    conf.tls_key_file = t->key;
    rsql_error_clear(err);
    return rsql_rmq_client_new(&conf, err);
}

static fake_rmq_t *tls_fake(bool mutual)
{
    fake_tls_t tls = {cert("server.pem"), cert("server.key"), mutual ? cert("ca.pem") : NULL};
    fake_rmq_t *f = fake_rmq_start_tls(&tls);
    if (f) {
        fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    }
    return f;
}

/* A producer that starts and sends one message the fake stores. */
static void expect_works(fake_rmq_t *f, const tls_conf_t *t)
{
    rsql_error_t err;
    rsql_rmq_client_t *c = producer(f, t, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    if (err.code) {
        fprintf(stderr, "\n  start: %s\n", err.msg);
    }
    rsql_rmq_out_msg_t m;
    memset(&m, 0, sizeof m);
    m.topic = T;
    m.body = "over tls";
    m.body_len = 8;
    char *id = NULL;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(tsync_send(c, &m, 1, &id, &err), RSQL_OK);
    rsql_free(id);
    CU_ASSERT_NOT_EQUAL(fake_rmq_find_text(f, T, "over tls"), SIZE_MAX);
    rsql_rmq_client_destroy(c);
}

/*
** A producer whose start fails at once, with a message holding want; no new request reached
** the fake. "At once" is the error's class: a permanent error ends the start at its first route
** attempt (rsql_rmq_client_start retries only retriable ones), so it is asserted, not a time.
*/
static void expect_refused(fake_rmq_t *f, const tls_conf_t *t, const char *want)
{
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    int routes = st.calls[FAKE_QUERY_ROUTE];
    rsql_error_t err;
    rsql_rmq_client_t *c = producer(f, t, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_NOT_EQUAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_PERMISSION);
    CU_ASSERT_FALSE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    if (!strstr(err.msg, want) || rsql_error_retriable(&err)) {
        fprintf(stderr, "\n  got: %s (%s)\n  want: ...%s...\n", err.msg, rsql_err_name(err.code),
                want);
    }
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], routes);
    rsql_rmq_client_destroy(c);
}

/* The CA given: verified by the IP SAN of the endpoint 127.0.0.1, or by tls.server-name. */
static void test_tls_verified(void)
{
    fake_rmq_t *f = tls_fake(false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    tls_conf_t by_ip = {cert("ca.pem"), NULL, NULL, NULL};
    expect_works(f, &by_ip);
    tls_conf_t by_name = {cert("ca.pem"), "localhost", NULL, NULL};
    expect_works(f, &by_name);
    fake_rmq_stop(f);
}

/* gRPC's default roots, and another CA, do not trust the test CA's certificate. */
static void test_tls_untrusted(void)
{
    fake_rmq_t *f = tls_fake(false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    tls_conf_t roots = {NULL, NULL, NULL, NULL};
    expect_refused(f, &roots, "certificate is not trusted");
    tls_conf_t other = {cert("other-ca.pem"), NULL, NULL, NULL};
    expect_refused(f, &other, "certificate is not trusted");
    fake_rmq_stop(f);
}

/* A trusted certificate without the name asked for. */
static void test_tls_name_mismatch(void)
{
    fake_rmq_t *f = tls_fake(false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    tls_conf_t wrong = {cert("ca.pem"), "mq.wrong.example", NULL, NULL};
    expect_refused(f, &wrong, "does not hold the name 'mq.wrong.example'");
    fake_rmq_stop(f);
}

/* Mutual TLS: without a client certificate the server refuses; with the CA's one it works. */
static void test_tls_mutual(void)
{
    fake_rmq_t *f = tls_fake(true);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* TLS 1.3: the client sees its handshake done, then the server closes the connection; a
       closed socket is all it can tell (UNAVAILABLE), so the start fails after its three
       route attempts. (Should the server's alert be read first, the handshake error is the
       same UNAVAILABLE class with the alert's text: either way no request gets through.) */
    tls_conf_t none = {cert("ca.pem"), NULL, NULL, NULL};
    rsql_error_t err;
    rsql_rmq_client_t *c = producer(f, &none, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_NOT_EQUAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_UNAVAILABLE);
    CU_ASSERT(strstr(err.msg, "Socket closed") || strstr(err.msg, "certificate required"));
    rsql_rmq_client_destroy(c);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 0);
    tls_conf_t mine = {cert("ca.pem"), NULL, cert("client.pem"), cert("client.key")};
    expect_works(f, &mine);
    fake_rmq_stop(f);
}

/*
** Several endpoints (one list of addresses, rmq_channel.c): the certificate is checked against
** the first endpoint's host, or tls.server-name, whichever address answers.
*/
static void test_tls_failover(void)
{
    fake_rmq_t *f = tls_fake(false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const char *port = strrchr(fake_rmq_endpoint(f), ':') + 1;
    char eps[128];
    snprintf(eps, sizeof eps, "127.0.0.1:1,127.0.0.1:%s", port); /* port 1: refused */
    endpoints_override = eps;
    tls_conf_t by_ip = {cert("ca.pem"), NULL, NULL, NULL};
    expect_works(f, &by_ip);
    tls_conf_t by_name = {cert("ca.pem"), "localhost", NULL, NULL};
    expect_works(f, &by_name);
    tls_conf_t wrong = {cert("ca.pem"), "mq.wrong.example", NULL, NULL};
    expect_refused(f, &wrong, "does not hold the name 'mq.wrong.example'");
    endpoints_override = NULL;
    fake_rmq_stop(f);
}

/* Files that cannot be used are errors naming the option, when the client is made. */
static void test_tls_bad_files(void)
{
    fake_rmq_t *f = tls_fake(false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rsql_error_t err;
    tls_conf_t missing = {"/nonexistent/ca.pem", NULL, NULL, NULL};
    CU_ASSERT_PTR_NULL(producer(f, &missing, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "option 'tls.ca-file': cannot read '/nonexistent/ca.pem': "
                                    "No such file or directory");
    tls_conf_t not_pem = {"/dev/null", NULL, NULL, NULL};
    CU_ASSERT_PTR_NULL(producer(f, &not_pem, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "option 'tls.ca-file': '/dev/null' is not a PEM file"));
    tls_conf_t half = {cert("ca.pem"), NULL, cert("client.pem"), NULL};
    CU_ASSERT_PTR_NULL(producer(f, &half, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "RocketMQ tls.cert-file and tls.key-file go together");
    fake_rmq_stop(f);
}

static CU_TestInfo tls_tests[] = {
    {"test_tls_verified", test_tls_verified},
    {"test_tls_untrusted", test_tls_untrusted},
    {"test_tls_name_mismatch", test_tls_name_mismatch},
    {"test_tls_mutual", test_tls_mutual},
    {"test_tls_failover", test_tls_failover},
    {"test_tls_bad_files", test_tls_bad_files},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"rmq_fault_tls", suite_init, NULL, NULL, NULL, tls_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
