/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Fault injection for the RocketMQ client (rmq_client.h) against the fake proxy
 * (tests/fakes/fake_rmq.h): start-up (routes, Settings, heartbeat) with refused, failing and
 * silent answers, the Telemetry stream reset and the server's commands, sends refused with each
 * class of error, partial ack failures, expired receipt handles, broken and cut long polls.
 * Every wait is for an event the fake records (a condition variable), never for time.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_mem.h"
#include "base/rsql_time.h"
#include "rmqclient/rmq_client.h"
#include "tests/lib/rmq_sync.h"
#include "tests/fakes/fake_rmq_cu.h"

#define T "orders"

/* ---- helpers ------------------------------------------------------------------------------- */

/* What the client's event callback saw (client thread; read after the waits). */
typedef struct events {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int settings, broken, reconnect, unsubscribe;
    char lite[64];
} events_t;

static void on_event(rsql_rmq_client_t *c, const rsql_rmq_event_t *ev, void *opaque)
{
    (void)c;
    events_t *e = opaque;
    pthread_mutex_lock(&e->mu);
    switch (ev->kind) {
    case RSQL_RMQ_EV_SETTINGS:
        e->settings++;
        break;
    case RSQL_RMQ_EV_TELEMETRY_BROKEN:
        e->broken++;
        break;
    case RSQL_RMQ_EV_RECONNECT:
        e->reconnect++;
        break;
    case RSQL_RMQ_EV_UNSUBSCRIBE_LITE:
        e->unsubscribe++;
        snprintf(e->lite, sizeof e->lite, "%s", ev->lite_topic ? ev->lite_topic : "");
        break;
    }
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

/* Wait until *counter (in e) reaches n; false after the safety bound. */
static bool events_wait(events_t *e, const int *counter, int n)
{
    int64_t dl = rsql_deadline_in(FAULT_WAIT_MS);
    pthread_mutex_lock(&e->mu);
    while (*counter < n && rsql_cond_wait_until(&e->cv, &e->mu, dl) == 0) {
    }
    bool ok = *counter >= n;
    pthread_mutex_unlock(&e->mu);
    return ok;
}

static void events_init(events_t *e)
{
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->mu, NULL);
    rsql_cond_init_monotonic(&e->cv);
}

static void events_deinit(events_t *e)
{
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
}

static const char *const topics[1] = {T};

static rsql_rmq_client_t *client_new(fake_rmq_t *f, rsql_rmq_client_type_t type,
                                     int request_timeout_ms, events_t *ev)
{
    rsql_rmq_config_t conf;
    memset(&conf, 0, sizeof conf);
    conf.endpoints = fake_rmq_endpoint(f);
    conf.client_type = type;
    conf.group = type == RSQL_RMQ_PRODUCER ? NULL : "g";
    conf.topics = topics;
    conf.n_topics = 1;
    conf.request_timeout_ms = request_timeout_ms;
    conf.long_polling_timeout_ms = 300;
    conf.event_cb = ev ? on_event : NULL;
    conf.opaque = ev;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, &err);
    CU_ASSERT_PTR_NOT_NULL(c);
    return c;
}

/* A started consumer of T (the test fails when it cannot start). */
static rsql_rmq_client_t *consumer(fake_rmq_t *f, events_t *ev)
{
    rsql_rmq_client_t *c = client_new(f, RSQL_RMQ_SIMPLE_CONSUMER, 1000, ev);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    return c;
}

static void free_msgs(rsql_rmq_msg_t **m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rsql_rmq_msg_destroy(m[i]);
    }
    rsql_free(m);
}

/* ---- start-up ------------------------------------------------------------------------------ */

/* The handshake as the proxy sees it, then an empty long poll, a message, its ack, the end. */
static void test_fault_client_handshake(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 4);
    rsql_rmq_client_t *c = consumer(f, NULL);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 1);
    CU_ASSERT_EQUAL(st.calls[FAKE_TELEMETRY], 1);
    CU_ASSERT_EQUAL(st.calls[FAKE_HEARTBEAT], 1);
    rsql_rmq_server_settings_t ss;
    rsql_rmq_client_settings(c, &ss);
    CU_ASSERT_TRUE(ss.received);
    CU_ASSERT_EQUAL(ss.max_attempts, 17);
    CU_ASSERT_EQUAL(ss.lite_subscription_quota, 2000);

    rsql_rmq_msg_t **msgs = NULL;
    size_t n = 0;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(tsync_receive(c, NULL, 8, 10000, &msgs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 0); /* MESSAGE_NOT_FOUND at the end of the long poll */
    free_msgs(msgs, n);

    size_t idx = fake_rmq_put_text(f, T, "hello");
    CU_ASSERT_EQUAL(tsync_receive(c, NULL, 8, 10000, &msgs, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL((char *)msgs[0]->body, "hello");
    CU_ASSERT_EQUAL(msgs[0]->delivery_attempt, 1);
    rsql_rmq_ack_entry_t e = {msgs[0]->message_id, msgs[0]->receipt_handle, NULL};
    int32_t code = 0;
    CU_ASSERT_EQUAL(tsync_ack(c, T, &e, 1, &code, &err), RSQL_OK);
    CU_ASSERT_EQUAL(code, RSQL_RMQ_CODE_OK);
    free_msgs(msgs, n);
    fake_msg_info_t mi;
    fake_rmq_msg_info(f, idx, &mi);
    CU_ASSERT_EQUAL(mi.state, FAKE_ACKED);
    CU_ASSERT_EQUAL(mi.acks, 1);

    rsql_rmq_client_destroy(c);
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_NOTIFY], 1);
    fk_assert_clean_acks(f);
    fake_rmq_stop(f);
}

static bool fk_pred_replies(const fake_stats_t *st, void *arg)
{
    (void)arg;
    return st->stack_replies >= 1 && st->verify_replies >= 1;
}

/* A client of T that must fail to start; returns the error (the client is destroyed). */
static rsql_error_t start_fails(fake_rmq_t *f, rsql_rmq_client_type_t type, int timeout_ms)
{
    rsql_rmq_client_t *c = client_new(f, type, timeout_ms, NULL);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    CU_ASSERT_NOT_EQUAL(err.code, RSQL_OK);
    rsql_rmq_client_destroy(c);
    return err;
}

/*
** Start-up against refusals: a missing topic fails at once (one QueryRoute), a route that is
** UNAVAILABLE twice succeeds at the third attempt, one that stays UNAVAILABLE fails after
** exactly three; a refused heartbeat, a Settings reply with an error status, a Telemetry stream
** the server ends and a Settings reply that never comes all fail the start with their cause.
*/
static void test_fault_client_start(void)
{
    FAKE_START(f);
    fake_stats_t st;
    rsql_error_t e = start_fails(f, RSQL_RMQ_SIMPLE_CONSUMER, 1000); /* T not declared */
    CU_ASSERT_EQUAL(e.remote_code, RSQL_RMQ_CODE_TOPIC_NOT_FOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "TOPIC_NOT_FOUND"));
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 1); /* permanent: not retried */
    CU_ASSERT_EQUAL(st.calls[FAKE_TELEMETRY], 0);

    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    fake_answer_t unavailable = {.grpc_status = 14};
    fake_rmq_script(f, FAKE_QUERY_ROUTE, 2, &unavailable);
    rsql_rmq_client_t *c = consumer(f, NULL);
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 1 + 3);
    rsql_rmq_client_destroy(c);

    fake_rmq_script(f, FAKE_QUERY_ROUTE, 3, &unavailable); /* as many as the client tries */
    e = start_fails(f, RSQL_RMQ_SIMPLE_CONSUMER, 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "UNAVAILABLE"));
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_QUERY_ROUTE], 1 + 3 + 3); /* bounded: 3 attempts */

    fake_answer_t unrecognized = {.code = RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE};
    fake_rmq_script(f, FAKE_HEARTBEAT, 1, &unrecognized);
    e = start_fails(f, RSQL_RMQ_SIMPLE_CONSUMER, 1000);
    CU_ASSERT_EQUAL(e.remote_code, RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE);

    fake_answer_t bad_group = {.code = RSQL_RMQ_CODE_ILLEGAL_CONSUMER_GROUP};
    fake_rmq_script(f, FAKE_TELEMETRY, 1, &bad_group);
    e = start_fails(f, RSQL_RMQ_SIMPLE_CONSUMER, 1000);
    CU_ASSERT_EQUAL(e.remote_code, RSQL_RMQ_CODE_ILLEGAL_CONSUMER_GROUP);

    /* what the 5.5 proxy does to a client type it refuses: the stream ends with INTERNAL */
    fake_answer_t internal = {.grpc_status = 13};
    fake_rmq_script(f, FAKE_TELEMETRY, 1, &internal);
    e = start_fails(f, RSQL_RMQ_SIMPLE_CONSUMER, 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "INTERNAL"));

    fake_answer_t silent = {.hang = true};
    fake_rmq_script(f, FAKE_TELEMETRY, 1, &silent);
    e = start_fails(f, RSQL_RMQ_PRODUCER, 100); /* waits 3 s + the request timeout */
    CU_ASSERT_EQUAL(e.code, RSQL_ERR_TIMEOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no Settings reply"));

    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.missing_client_id, 0);
    fake_rmq_stop(f);
}

/* ---- Telemetry ----------------------------------------------------------------------------- */

/*
** The server resets the Telemetry stream: the client says so (event), re-opens it after its
** backoff and sends its Settings again; then the server's commands: a stack-trace request and
** a verify request are answered with their nonces, an unsubscribe names its lite topic, and a
** reconnect makes the client re-open the stream (Settings once more).
*/
static void test_fault_client_telemetry(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    events_t ev;
    events_init(&ev);
    rsql_rmq_client_t *c = consumer(f, &ev);
    int one = 1;
    FAKE_WAIT(f, fk_pred_telemetry_open, &one);

    fake_rmq_reset_telemetry(f, 14 /* UNAVAILABLE */);
    CU_ASSERT_TRUE(events_wait(&ev, &ev.broken, 1));
    FAKE_WAIT_CALLS(f, FAKE_TELEMETRY, 2); /* re-opened, Settings sent again */
    CU_ASSERT_TRUE(events_wait(&ev, &ev.settings, 2));
    FAKE_WAIT(f, fk_pred_telemetry_open, &one);

    fake_rmq_push(f, FAKE_CMD_PRINT_STACK, "nonce-stack");
    fake_rmq_push(f, FAKE_CMD_VERIFY_MESSAGE, "nonce-verify");
    fake_rmq_push(f, FAKE_CMD_UNSUBSCRIBE_LITE, "sess-7");
    CU_ASSERT_TRUE(events_wait(&ev, &ev.unsubscribe, 1));
    CU_ASSERT_STRING_EQUAL(ev.lite, "sess-7");
    fake_stats_t st;
    CU_ASSERT_TRUE(fake_rmq_wait(f, fk_pred_replies, NULL, FAULT_WAIT_MS));
    char nonce[64];
    fake_rmq_last_reply(f, false, nonce, sizeof nonce);
    CU_ASSERT_STRING_EQUAL(nonce, "nonce-stack");
    fake_rmq_last_reply(f, true, nonce, sizeof nonce);
    CU_ASSERT_STRING_EQUAL(nonce, "nonce-verify");

    fake_rmq_push(f, FAKE_CMD_RECONNECT, "nonce-reconnect");
    CU_ASSERT_TRUE(events_wait(&ev, &ev.reconnect, 1));
    /* re-opened after its backoff (1 s), not at the next heartbeat (10 s): the bound is the
       regression check of a re-open that waited for the client thread's next timer */
    CU_ASSERT_TRUE(fake_rmq_wait_calls(f, FAKE_TELEMETRY, 3, 5000));
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.missing_client_id, 0);
    rsql_rmq_client_destroy(c);
    events_deinit(&ev);
    fake_rmq_stop(f);
}

/* ---- sends --------------------------------------------------------------------------------- */

static rsql_err_t send_text(rsql_rmq_client_t *c, const char *topic, const char *body,
                            rsql_error_t *err)
{
    rsql_rmq_out_msg_t m;
    memset(&m, 0, sizeof m);
    m.topic = topic;
    m.body = body;
    m.body_len = strlen(body);
    char *id = NULL;
    rsql_error_clear(err);
    rsql_err_t rc = tsync_send(c, &m, 1, &id, err);
    rsql_free(id);
    return rc;
}

/*
** Every class of send refusal reaches the caller with the broker's status (remote_code) and
** text, and stores nothing; the next send goes through. (Which of them the sink retries is
** test_rmq_fault_sink's.) A batch is answered as the proxy does, one entry with the ids joined.
*/
static void test_fault_client_send(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    rsql_rmq_client_t *c = client_new(f, RSQL_RMQ_PRODUCER, 300, NULL);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    static const struct {
        fake_answer_t a;
        int32_t remote;   /* expected err.remote_code */
        const char *text; /* in err.msg */
    } cases[] = {
        {{.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS}, RSQL_RMQ_CODE_TOO_MANY_REQUESTS,
         "TOO_MANY_REQUESTS"},
        {{.code = RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR}, RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR,
         "INTERNAL_SERVER_ERROR"},
        {{.grpc_status = 8 /* RESOURCE_EXHAUSTED: flow control */}, 0, "RESOURCE_EXHAUSTED"},
        {{.grpc_status = 14 /* UNAVAILABLE */}, 0, "UNAVAILABLE"},
        {{.hang = true}, 0, "DEADLINE_EXCEEDED"},
        {{.code = RSQL_RMQ_CODE_ILLEGAL_TOPIC}, RSQL_RMQ_CODE_ILLEGAL_TOPIC, "ILLEGAL_TOPIC"},
        {{.code = RSQL_RMQ_CODE_FORBIDDEN}, RSQL_RMQ_CODE_FORBIDDEN, "FORBIDDEN"},
        {{.code = RSQL_RMQ_CODE_MESSAGE_PROPERTY_CONFLICT_WITH_TYPE},
         RSQL_RMQ_CODE_MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "MESSAGE_PROPERTY_CONFLICT"},
    };
    fake_stats_t st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_rmq_script(f, FAKE_SEND, 1, &cases[i].a);
        CU_ASSERT_NOT_EQUAL(send_text(c, T, "refused", &err), RSQL_OK);
        CU_ASSERT_EQUAL(err.remote_code, cases[i].remote);
        if (!strstr(err.msg, cases[i].text)) {
            fprintf(stderr, "case %zu: %s\n", i, err.msg);
            CU_FAIL("the error names the refusal");
        }
    }
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 0);
    /* a body over the broker's limit (the client believes 4 MiB), and a topic with no route */
    fake_rmq_set_max_body(f, 4);
    CU_ASSERT_NOT_EQUAL(send_text(c, T, "too large", &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.remote_code, RSQL_RMQ_CODE_MESSAGE_BODY_TOO_LARGE);
    fake_rmq_set_max_body(f, 0);
    CU_ASSERT_NOT_EQUAL(send_text(c, "nowhere", "x", &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.remote_code, RSQL_RMQ_CODE_TOPIC_NOT_FOUND);
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 0);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], (int)(sizeof cases / sizeof cases[0]) + 1);

    CU_ASSERT_EQUAL(send_text(c, T, "fine", &err), RSQL_OK);
    rsql_rmq_out_msg_t b[3];
    memset(b, 0, sizeof b);
    const char *bodies[3] = {"b0", "b1", "b2"};
    char *ids[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        b[i].topic = T;
        b[i].body = bodies[i];
        b[i].body_len = 2;
    }
    CU_ASSERT_EQUAL(tsync_send(c, b, 3, ids, &err), RSQL_OK);
    for (int i = 0; i < 3; i++) {
        size_t idx = fake_rmq_find_body(f, T, bodies[i], 2);
        fake_msg_info_t mi;
        CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, idx, &mi));
        CU_ASSERT_PTR_NOT_NULL_FATAL(ids[i]);
        CU_ASSERT_STRING_EQUAL(ids[i], mi.message_id); /* the joined entry, split */
        rsql_free(ids[i]);
    }
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.sent_ok, 4);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(f);
}

/* ---- acks and receipt handles -------------------------------------------------------------- */

/* Receive exactly n messages (several polls when needed). */
static rsql_rmq_msg_t **receive_n(rsql_rmq_client_t *c, size_t n, int64_t invisible_ms)
{
    rsql_rmq_msg_t **all = rsql_calloc(n, sizeof *all);
    size_t got = 0;
    for (int tries = 0; got < n && tries < 20; tries++) {
        rsql_rmq_msg_t **m = NULL;
        size_t k = 0;
        rsql_error_t err;
        rsql_error_clear(&err);
        tsync_receive(c, NULL, (int)(n - got), invisible_ms, &m, &k, &err);
        for (size_t i = 0; i < k; i++) {
            all[got++] = m[i];
        }
        rsql_free(m);
    }
    CU_ASSERT_EQUAL_FATAL(got, n);
    return all;
}

/*
** A batched ack that partly fails: per-entry statuses reach the caller in order (OK, an expired
** handle, a throttled entry), only the OK one is acked, the throttled one succeeds when sent
** again.
*/
static void test_fault_client_ack_partial(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t idx[3];
    idx[0] = fake_rmq_put_text(f, T, "m0");
    idx[1] = fake_rmq_put_text(f, T, "m1");
    idx[2] = fake_rmq_put_text(f, T, "m2");
    rsql_rmq_client_t *c = consumer(f, NULL);
    rsql_rmq_msg_t **m = receive_n(c, 3, 30000);
    fake_rmq_script_ack_entry(f, idx[1], RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE, 1);
    fake_rmq_script_ack_entry(f, idx[2], RSQL_RMQ_CODE_TOO_MANY_REQUESTS, 1);
    rsql_rmq_ack_entry_t e[3];
    for (int i = 0; i < 3; i++) {
        e[i] = (rsql_rmq_ack_entry_t){m[i]->message_id, m[i]->receipt_handle, NULL};
    }
    int32_t codes[3] = {0, 0, 0};
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(tsync_ack(c, T, e, 3, codes, &err), RSQL_OK);
    CU_ASSERT_EQUAL(codes[0], RSQL_RMQ_CODE_OK);
    CU_ASSERT_EQUAL(codes[1], RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE);
    CU_ASSERT_EQUAL(codes[2], RSQL_RMQ_CODE_TOO_MANY_REQUESTS);
    fake_msg_info_t mi;
    fake_rmq_msg_info(f, idx[0], &mi);
    CU_ASSERT_EQUAL(mi.state, FAKE_ACKED);
    fake_rmq_msg_info(f, idx[2], &mi);
    CU_ASSERT_EQUAL(mi.state, FAKE_INFLIGHT);
    CU_ASSERT_EQUAL(tsync_ack(c, T, &e[2], 1, codes, &err), RSQL_OK);
    fake_rmq_msg_info(f, idx[2], &mi);
    CU_ASSERT_EQUAL(mi.state, FAKE_ACKED);
    free_msgs(m, 3);
    rsql_rmq_client_destroy(c);
    fk_assert_clean_acks(f);
    fake_rmq_stop(f);
}

static bool pred_ready(const fake_stats_t *st, void *arg)
{
    return st->ready >= *(const int *)arg;
}

/*
** Receipt handles as the broker treats them: ChangeInvisibleDuration gives a new handle and the
** old one no longer acks (the fake counts the stale ack), the new one does; a delivery whose
** invisible duration ended answers INVALID_RECEIPT_HANDLE to an ack and to a change, and the
** message comes back with delivery_attempt 2.
*/
static void test_fault_client_handles(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t i0 = fake_rmq_put_text(f, T, "renewed");
    rsql_rmq_client_t *c = consumer(f, NULL);
    rsql_rmq_msg_t **m = receive_n(c, 1, 30000);
    rsql_error_t err;
    rsql_error_clear(&err);
    char *nh = NULL;
    CU_ASSERT_EQUAL(tsync_change_invisible(c, T, m[0]->message_id, m[0]->receipt_handle,
                                                   NULL, 30000, false, &nh, &err),
                    RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nh);
    CU_ASSERT_STRING_NOT_EQUAL(nh, m[0]->receipt_handle);
    rsql_rmq_ack_entry_t old = {m[0]->message_id, m[0]->receipt_handle, NULL};
    rsql_rmq_ack_entry_t cur = {m[0]->message_id, nh, NULL};
    CU_ASSERT_EQUAL(tsync_ack(c, T, &old, 1, NULL, &err), RSQL_OK); /* OK, no effect */
    fake_msg_info_t mi;
    fake_rmq_msg_info(f, i0, &mi);
    CU_ASSERT_EQUAL(mi.stale_acks, 1);
    CU_ASSERT_EQUAL(mi.state, FAKE_INFLIGHT);
    CU_ASSERT_EQUAL(tsync_ack(c, T, &cur, 1, NULL, &err), RSQL_OK);
    fake_rmq_msg_info(f, i0, &mi);
    CU_ASSERT_EQUAL(mi.state, FAKE_ACKED);
    rsql_free(nh);
    free_msgs(m, 1);

    /* an expired delivery (the fake takes any invisible duration; the proxy's minimum is 10 s) */
    size_t i1 = fake_rmq_put_text(f, T, "expires");
    m = receive_n(c, 1, 100);
    int one = 1;
    FAKE_WAIT(f, pred_ready, &one); /* its invisible duration ended */
    rsql_rmq_ack_entry_t exp = {m[0]->message_id, m[0]->receipt_handle, NULL};
    int32_t code = 0;
    CU_ASSERT_NOT_EQUAL(tsync_ack(c, T, &exp, 1, &code, &err), RSQL_OK);
    CU_ASSERT_EQUAL(code, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE);
    CU_ASSERT_EQUAL(err.remote_code, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE);
    rsql_error_clear(&err);
    nh = NULL;
    CU_ASSERT_NOT_EQUAL(tsync_change_invisible(c, T, m[0]->message_id,
                                                       m[0]->receipt_handle, NULL, 30000, false,
                                                       &nh, &err),
                        RSQL_OK);
    CU_ASSERT_EQUAL(err.remote_code, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE);
    CU_ASSERT_PTR_NULL(nh);
    free_msgs(m, 1);
    m = receive_n(c, 1, 30000);
    CU_ASSERT_EQUAL(m[0]->delivery_attempt, 2);
    CU_ASSERT_STRING_EQUAL((char *)m[0]->body, "expires");
    free_msgs(m, 1);
    fake_rmq_msg_info(f, i1, &mi);
    CU_ASSERT_EQUAL(mi.deliveries, 2);
    CU_ASSERT_EQUAL(mi.invalid_acks, 1);
    CU_ASSERT_EQUAL(mi.acks, 0);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(f);
}

/* ---- long polls ---------------------------------------------------------------------------- */

/* An asynchronous receive's one callback, waited for. */
typedef struct recv_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;
    rsql_error_t err;
    size_t n;
} recv_wait_t;

static void recv_wait_cb(rsql_rmq_client_t *c, const rsql_error_t *err, rsql_rmq_msg_t **msgs,
                         size_t n, void *opaque)
{
    (void)c;
    recv_wait_t *w = opaque;
    for (size_t i = 0; i < n; i++) {
        rsql_rmq_msg_destroy(msgs[i]);
    }
    pthread_mutex_lock(&w->mu);
    w->calls++;
    w->n = n;
    if (err) {
        rsql_error_copy(&w->err, err);
    }
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void change_wait_cb(rsql_rmq_client_t *c, const rsql_error_t *err, const char *handle,
                           void *opaque)
{
    (void)handle;
    recv_wait_cb(c, err, NULL, 0, opaque);
}

static void recv_wait_init(recv_wait_t *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    rsql_cond_init_monotonic(&w->cv);
    rsql_error_clear(&w->err);
}

static bool recv_wait_done(recv_wait_t *w)
{
    int64_t dl = rsql_deadline_in(FAULT_WAIT_MS);
    pthread_mutex_lock(&w->mu);
    while (w->calls == 0 && rsql_cond_wait_until(&w->cv, &w->mu, dl) == 0) {
    }
    bool ok = w->calls == 1;
    pthread_mutex_unlock(&w->mu);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    return ok;
}

/*
** ReceiveMessage faults: a throttled poll (TOO_MANY_REQUESTS as the stream's status), an
** UNAVAILABLE call, a poll that never ends (its deadline), a stream that breaks after its
** messages (they are still delivered: they are invisible now), and the connection cut in the
** middle of a long poll: the poll fails, the channel reconnects, the next poll gets a message.
*/
static void test_fault_client_receive(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    rsql_rmq_client_t *c = client_new(f, RSQL_RMQ_SIMPLE_CONSUMER, 300, NULL);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    rsql_rmq_msg_t **m = NULL;
    size_t n = 0;
    fake_answer_t throttled = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS};
    fake_rmq_script(f, FAKE_RECEIVE, 1, &throttled);
    CU_ASSERT_NOT_EQUAL(tsync_receive(c, NULL, 4, 30000, &m, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.remote_code, RSQL_RMQ_CODE_TOO_MANY_REQUESTS);
    CU_ASSERT_EQUAL(n, 0);
    fake_answer_t unavailable = {.grpc_status = 14};
    fake_rmq_script(f, FAKE_RECEIVE, 1, &unavailable);
    rsql_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(tsync_receive(c, NULL, 4, 30000, &m, &n, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "UNAVAILABLE"));
    fake_answer_t silent = {.hang = true};
    fake_rmq_script(f, FAKE_RECEIVE, 1, &silent);
    rsql_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(tsync_receive(c, NULL, 4, 30000, &m, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_TIMEOUT);

    fake_rmq_put_text(f, T, "a");
    fake_rmq_put_text(f, T, "b");
    fake_rmq_script_broken_stream(f, 13 /* INTERNAL */, 1);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(tsync_receive(c, NULL, 4, 30000, &m, &n, &err), RSQL_OK);
    CU_ASSERT_EQUAL(n, 2);
    free_msgs(m, n);

    /* the connection cut in the middle of a long poll */
    recv_wait_t w;
    recv_wait_init(&w);
    fake_stats_t st0;
    fake_rmq_stats(f, &st0);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_receive(c, NULL, 4, 30000, recv_wait_cb, &w, &err), RSQL_OK);
    int one = 1;
    FAKE_WAIT(f, fk_pred_waiting, &one);
    fake_rmq_drop(f);
    CU_ASSERT_TRUE(recv_wait_done(&w));
    CU_ASSERT_NOT_EQUAL(w.err.code, RSQL_OK);
    CU_ASSERT_EQUAL(w.n, 0);
    /* the server side has seen the cut too (else the message could go to the dead poll and
       stay invisible for its invisible duration, as on a real broker) */
    FAKE_WAIT(f, fk_pred_no_waiting, NULL);
    fake_rmq_put_text(f, T, "after the cut");
    m = receive_n(c, 1, 30000); /* the long poll waits for the reconnection */
    CU_ASSERT_STRING_EQUAL((char *)m[0]->body, "after the cut");
    free_msgs(m, 1);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.connections > st0.connections);
    rsql_rmq_client_destroy(c);
    fake_rmq_stop(f);
}

/*
** Destroy with calls in flight that the server never answers (a long poll, an ack, a send):
** each gets exactly one callback (interrupted), and nothing leaks (the ASan build checks).
*/
static void test_fault_client_destroy_inflight(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    fake_rmq_put_text(f, T, "held");
    rsql_rmq_client_t *c = client_new(f, RSQL_RMQ_SIMPLE_CONSUMER, 20000, NULL);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_client_start(c, &err), RSQL_OK);
    rsql_rmq_msg_t **m = receive_n(c, 1, 30000);
    fake_answer_t silent = {.hang = true};
    fake_rmq_script(f, FAKE_RECEIVE, 1, &silent);
    fake_rmq_script(f, FAKE_CHANGE, 1, &silent);
    recv_wait_t w;
    recv_wait_init(&w);
    CU_ASSERT_EQUAL_FATAL(rsql_rmq_receive(c, NULL, 4, 30000, recv_wait_cb, &w, &err), RSQL_OK);
    recv_wait_t wc;
    recv_wait_init(&wc);
    FAKE_WAIT_CALLS(f, FAKE_RECEIVE, 2);
    CU_ASSERT_EQUAL(rsql_rmq_change_invisible(c, T, m[0]->message_id, m[0]->receipt_handle, NULL,
                                              30000, false, change_wait_cb, &wc, &err),
                    RSQL_OK);
    FAKE_WAIT_CALLS(f, FAKE_CHANGE, 1);
    rsql_rmq_client_destroy(c);
    CU_ASSERT_TRUE(recv_wait_done(&w));
    CU_ASSERT_EQUAL(w.err.code, RSQL_ERR_INTERRUPTED);
    CU_ASSERT_TRUE(recv_wait_done(&wc));
    CU_ASSERT_EQUAL(wc.err.code, RSQL_ERR_INTERRUPTED);
    free_msgs(m, 1);
    fake_rmq_stop(f);
}

static CU_TestInfo client_tests[] = {
    {"fault_client_handshake", test_fault_client_handshake},
    {"fault_client_start", test_fault_client_start},
    {"fault_client_telemetry", test_fault_client_telemetry},
    {"fault_client_send", test_fault_client_send},
    {"fault_client_ack_partial", test_fault_client_ack_partial},
    {"fault_client_handles", test_fault_client_handles},
    {"fault_client_receive", test_fault_client_receive},
    {"fault_client_destroy_inflight", test_fault_client_destroy_inflight},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_client", NULL, NULL, NULL, NULL, client_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
