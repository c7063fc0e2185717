/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Fault injection for the rocketmq-grpc source (rmq_source.c, rmq_held.c,
 * rmq_housekeeping.c) against the fake proxy (tests/fakes/fake_rmq.h). The tests drive the
 * source as the pipeline's worker does (poll, then one outcome per record with commit_record)
 * through the held / renewing / pending / ack-queue states: batched acks that partly fail or
 * time out, renewals (ChangeInvisibleDuration) that succeed, fail or are still in flight when
 * the outcome comes, releases and redelivery, the native dead-letter queue, throttled and
 * refused long polls, a connection cut in the middle of a long poll, close with work in flight,
 * lite throttling (deferrals). After each: every message has exactly one outcome at the broker
 * (acked once, forwarded once, or back to be delivered again), nothing was acked that was not
 * delivered, no ack used a replaced handle, retries were bounded (counted at the fake).
 *
 * Options go through the real options engine; the durations the engine bounds for a real
 * broker (invisible duration >= 10 s, renewal-ahead >= 1 s) are then shortened in the typed
 * configuration, so renewals and redeliveries happen within a test.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "rmqclient/rmq_client.h"
#include "tests/fakes/fake_rmq_src.h"

/* ---- acks ---------------------------------------------------------------------------------- */

/* 40 messages through: all acked once, in batched AckMessage requests. */
static void test_fault_source_acks_batched(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 4);
    size_t first = put_n(f, 40, "m");
    src_t x;
    src_open(&x, f, NULL);
    CU_ASSERT_EQUAL(src_take(&x, 40, NULL, NULL, NULL), 40);
    int n = 40;
    FAKE_WAIT(f, fk_pred_acked, &n);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.calls[FAKE_ACK] < 40); /* batched */
    CU_ASSERT_EQUAL(st.ack_entries, 40);
    src_close(&x); /* waits for the acks' answers */
    /* published to the runtime: 40 acked, one latency observation per answered request */
    CU_ASSERT_EQUAL(atomic_load(&x.ctr.acked), 40);
    CU_ASSERT_EQUAL(atomic_load(&x.ctr.ack.count), st.calls[FAKE_ACK]);
    CU_ASSERT(atomic_load(&x.ctr.ack.count) >= 1);
    CU_ASSERT_EQUAL(atomic_load(&x.ctr.held), 0);
    CU_ASSERT_EQUAL(atomic_load(&x.ctr.renewed), 0);
    assert_all_acked_once(f, first, 40);
    fake_rmq_stop(f);
}

/*
** A batched ack that partly fails: one entry answers INVALID_RECEIPT_HANDLE (not retried: it
** comes back after its invisible duration and is acked then), one is throttled twice (retried,
** then acked), one is throttled on every try (given up after the source's bound, 5 tries, then
** redelivered and acked). Then the ack RPC itself times out once and is UNAVAILABLE once: the
** entries are sent again, and acked at the third request.
*/
static void test_fault_source_ack_partial(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 4, "p");
    fake_rmq_script_ack_entry(f, first + 1, RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE, 1);
    fake_rmq_script_ack_entry(f, first + 2, RSQL_RMQ_CODE_TOO_MANY_REQUESTS, 2);
    fake_rmq_script_ack_entry(f, first + 3, RSQL_RMQ_CODE_TOO_MANY_REQUESTS, 5);
    src_t x;
    src_opts(&x, f, NULL);
    x.conf->request_timeout_ms = 300;
    CU_ASSERT_EQUAL_FATAL(src_start(&x), RSQL_OK);
    CU_ASSERT_EQUAL(src_take(&x, 4, NULL, NULL, NULL), 4);
    int two = 2;
    FAKE_WAIT(f, fk_pred_acked, &two); /* p-000 and p-002 */
    /* p-001 and p-003 come back (their deliveries expire) and are acked the second time */
    CU_ASSERT_EQUAL(src_take(&x, 2, NULL, NULL, NULL), 2);
    int four = 4;
    FAKE_WAIT(f, fk_pred_acked, &four);
    fake_msg_info_t m0 = info(f, first), m1 = info(f, first + 1), m2 = info(f, first + 2),
                    m3 = info(f, first + 3);
    CU_ASSERT_EQUAL(m0.deliveries, 1);
    CU_ASSERT_EQUAL(m0.ack_requests, 1);
    CU_ASSERT_EQUAL(m1.deliveries, 2);
    CU_ASSERT_EQUAL(m1.ack_requests, 1 + 1); /* the invalid entry was not retried */
    CU_ASSERT_EQUAL(m2.deliveries, 1);
    CU_ASSERT_EQUAL(m2.ack_requests, 2 + 1);
    CU_ASSERT_EQUAL(m3.deliveries, 2);
    CU_ASSERT_EQUAL(m3.ack_requests, 5 + 1); /* bounded: 5 tries, then the redelivery's ack */
    assert_all_acked_once(f, first, 4);

    fake_answer_t silent = {.hang = true}, unavailable = {.grpc_status = 14};
    fake_rmq_script(f, FAKE_ACK, 1, &silent);
    fake_rmq_script(f, FAKE_ACK, 1, &unavailable);
    fake_stats_t st0, st;
    fake_rmq_stats(f, &st0);
    size_t more = put_n(f, 2, "q");
    CU_ASSERT_EQUAL(src_take(&x, 2, NULL, NULL, NULL), 2);
    int six = 6;
    FAKE_WAIT(f, fk_pred_acked, &six);
    src_close(&x);
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.calls[FAKE_ACK] - st0.calls[FAKE_ACK] >= 3);
    CU_ASSERT_EQUAL(info(f, more).ack_requests, 3); /* silent, UNAVAILABLE, OK */
    assert_all_acked_once(f, more, 2);
    fake_rmq_stop(f);
}

/* ---- renewals ------------------------------------------------------------------------------ */

static bool pred_changes(const fake_stats_t *st, void *arg)
{
    return st->changes >= *(const int *)arg;
}

/*
** A held message (polled, outcome not known yet) is renewed before its invisible duration ends,
** again and again; the ack then uses the newest handle (no stale ack at the fake).
*/
static void test_fault_source_renewal(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 1, "r");
    src_t x;
    src_open(&x, f, NULL);
    polled_t p[1];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 1, NULL, NULL, p), 1);
    int three = 3;
    FAKE_WAIT(f, pred_changes, &three);
    src_commit(&x, &p[0], RSQL_OUTCOME_WRITTEN);
    int one = 1;
    FAKE_WAIT(f, fk_pred_acked, &one);
    src_close(&x);
    fake_msg_info_t mi = info(f, first);
    CU_ASSERT(mi.changes >= 3);
    CU_ASSERT_EQUAL(mi.deliveries, 1); /* never expired while held */
    CU_ASSERT_EQUAL(mi.last_invisible_ms, 1500);
    CU_ASSERT_FALSE(mi.last_suspend); /* simple mode counts the attempt */
    assert_all_acked_once(f, first, 1);
    fake_rmq_stop(f);
}

/*
** The outcome arrives while a renewal is in flight (the fake answers it late): the source waits
** for the renewal and acks with its new handle.
*/
static void test_fault_source_outcome_during_renewal(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 1, "d");
    fake_answer_t late = {.delay_ms = 400};
    fake_rmq_script(f, FAKE_CHANGE, 1, &late);
    src_t x;
    src_open(&x, f, NULL);
    polled_t p[1];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 1, NULL, NULL, p), 1);
    FAKE_WAIT_CALLS(f, FAKE_CHANGE, 1); /* the renewal is at the fake, its answer delayed */
    src_commit(&x, &p[0], RSQL_OUTCOME_WRITTEN);
    int one = 1;
    FAKE_WAIT(f, fk_pred_acked, &one);
    src_close(&x);
    fake_msg_info_t mi = info(f, first);
    CU_ASSERT(mi.changes >= 1);
    CU_ASSERT_EQUAL(mi.stale_acks, 0); /* acked with the renewal's new handle */
    CU_ASSERT(atomic_load(&x.ctr.renewed) >= 1); /* published: the renewal, then the ack */
    CU_ASSERT_EQUAL(atomic_load(&x.ctr.acked), 1);
    CU_ASSERT_EQUAL(atomic_load(&x.ctr.held), 0);
    assert_all_acked_once(f, first, 1);
    fake_rmq_stop(f);
}

/*
** A renewal answered INVALID_RECEIPT_HANDLE: that message is not renewed again (the other held
** message goes on being renewed); its outcome still acks it, once.
*/
static void test_fault_source_renewal_invalid(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 1, "lost");
    fake_answer_t invalid = {.code = RSQL_RMQ_CODE_INVALID_RECEIPT_HANDLE};
    fake_rmq_script(f, FAKE_CHANGE, 1, &invalid);
    src_t x;
    src_opts(&x, f, NULL);
    /* renewed every 500 ms; "lost" stays invisible at the fake for 3 s (it does not come back
       while the test runs) */
    x.conf->invisible_ms = 3000;
    x.conf->renewal_ahead_ms = 2500;
    CU_ASSERT_EQUAL_FATAL(src_start(&x), RSQL_OK);
    polled_t p[2];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 1, NULL, NULL, p), 1);
    FAKE_WAIT_CALLS(f, FAKE_CHANGE, 1);
    size_t second = put_n(f, 1, "live");
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 1, NULL, NULL, p + 1), 1);
    int two_renewals = 2;
    FAKE_WAIT(f, pred_changes, &two_renewals); /* "live" renewed twice meanwhile */
    CU_ASSERT_EQUAL(info(f, first).change_requests, 1);
    src_commit(&x, &p[0], RSQL_OUTCOME_WRITTEN);
    src_commit(&x, &p[1], RSQL_OUTCOME_WRITTEN);
    int two = 2;
    FAKE_WAIT(f, fk_pred_acked, &two);
    src_close(&x);
    CU_ASSERT_EQUAL(info(f, first).change_requests, 1);
    assert_all_acked_once(f, first, 1);
    assert_all_acked_once(f, second, 1);
    fake_rmq_stop(f);
}

/* ---- releases and dead letters ------------------------------------------------------------- */

static rsql_outcome_kind_t fail_first(const char *body, int attempt, void *arg)
{
    (void)attempt;
    int *n = arg;
    return strcmp(body, "x-000") == 0 && (*n)++ == 0 ? RSQL_OUTCOME_FAILED : RSQL_OUTCOME_WRITTEN;
}

/* A FAILED record is released, not acked: it comes back (attempt 2) and is acked then. */
static void test_fault_source_release(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 3, "x");
    src_t x;
    src_open(&x, f, NULL);
    int failed = 0;
    CU_ASSERT_EQUAL(src_take(&x, 3, fail_first, &failed, NULL), 3);
    int two = 2;
    FAKE_WAIT(f, fk_pred_acked, &two);
    CU_ASSERT_EQUAL(info(f, first).acks, 0);
    CU_ASSERT_EQUAL(src_take(&x, 1, fail_first, &failed, NULL), 1); /* the redelivery */
    int three = 3;
    FAKE_WAIT(f, fk_pred_acked, &three);
    src_close(&x);
    CU_ASSERT_EQUAL(info(f, first).deliveries, 2);
    CU_ASSERT_EQUAL(info(f, first).ack_requests, 1);
    assert_all_acked_once(f, first, 3);
    fake_rmq_stop(f);
}

static rsql_outcome_kind_t dead_letter(const char *body, int attempt, void *arg)
{
    (void)body;
    (void)attempt;
    (void)arg;
    return RSQL_OUTCOME_DEAD_LETTERED;
}

/*
** `source.dead-letter` = native: a dead-lettered record is forwarded to the DLQ instead of
** acked; a forward the broker refuses leaves the message to come back (one attempt, no ack).
*/
static void test_fault_source_native_dlq(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 2, "dl");
    fake_answer_t refused = {.code = RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR};
    fake_answer_t normal = {0};
    fake_rmq_script(f, FAKE_DLQ, 1, &normal);
    fake_rmq_script(f, FAKE_DLQ, 1, &refused);
    static const char *const kv[] = {"source.dead-letter", "native", NULL};
    src_t x;
    src_open(&x, f, kv);
    CU_ASSERT_EQUAL(src_take(&x, 2, dead_letter, NULL, NULL), 2);
    FAKE_WAIT_CALLS(f, FAKE_DLQ, 2);
    int one = 1;
    FAKE_WAIT(f, fk_pred_settled, &one);
    /* the refused one comes back and is forwarded the second time */
    CU_ASSERT_EQUAL(src_take(&x, 1, dead_letter, NULL, NULL), 1);
    int two = 2;
    FAKE_WAIT(f, fk_pred_settled, &two);
    src_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.dead, 2);
    CU_ASSERT_EQUAL(st.acked, 0);
    CU_ASSERT_EQUAL(st.calls[FAKE_DLQ], 3);
    CU_ASSERT_EQUAL(info(f, first).forwards + info(f, first + 1).forwards, 2);
    fk_assert_clean_acks(f);
    fake_rmq_stop(f);
}

/* ---- long polls ---------------------------------------------------------------------------- */

/*
** Long polls throttled by the broker (TOO_MANY_REQUESTS, UNAVAILABLE) are retried with backoff
** and the messages arrive; then a permanent refusal (FORBIDDEN) stops the source: poll reports
** it, with the broker's status, and no receive is started any more.
*/
static void test_fault_source_receive_errors(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    fake_answer_t throttled = {.code = RSQL_RMQ_CODE_TOO_MANY_REQUESTS};
    fake_answer_t unavailable = {.grpc_status = 14};
    fake_rmq_script(f, FAKE_RECEIVE, 2, &throttled);
    fake_rmq_script(f, FAKE_RECEIVE, 1, &unavailable);
    size_t first = put_n(f, 5, "e");
    src_t x;
    src_open(&x, f, NULL);
    CU_ASSERT_EQUAL(src_take(&x, 5, NULL, NULL, NULL), 5);
    int five = 5;
    FAKE_WAIT(f, fk_pred_acked, &five);
    assert_all_acked_once(f, first, 5);

    fake_answer_t forbidden = {.code = RSQL_RMQ_CODE_FORBIDDEN};
    fake_rmq_script(f, FAKE_RECEIVE, 1, &forbidden);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    FAKE_WAIT_CALLS(f, FAKE_RECEIVE, st.calls[FAKE_RECEIVE] + 1);
    CU_ASSERT_EQUAL(src_take(&x, 1, NULL, NULL, NULL), 0);
    CU_ASSERT_EQUAL(x.err.remote_code, RSQL_RMQ_CODE_FORBIDDEN);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "FORBIDDEN"));
    src_close(&x);
    fake_stats_t end;
    fake_rmq_stats(f, &end);
    /* the polls in flight when it came end; none is started after the refusal */
    CU_ASSERT(end.calls[FAKE_RECEIVE] <= st.calls[FAKE_RECEIVE] + 2);
    fake_rmq_stop(f);
}

/*
** The connection is cut while every long poll waits: the source's polls fail, the channel
** reconnects, the polls resume and every message put afterwards is delivered and acked once;
** the Telemetry stream is re-opened with the Settings.
*/
static void test_fault_source_drop_resume(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 2);
    size_t first = put_n(f, 5, "before");
    src_t x;
    src_open(&x, f, NULL);
    CU_ASSERT_EQUAL(src_take(&x, 5, NULL, NULL, NULL), 5);
    int five = 5;
    FAKE_WAIT(f, fk_pred_acked, &five);
    /* the answers too, before the cut: an ack whose answer the cut loses is rightly sent
       again (a double ack, which the broker allows); this test is about resuming */
    CU_ASSERT_FATAL(src_wait_acked(&x, 5));
    int one_poll = 1;
    FAKE_WAIT(f, fk_pred_waiting, &one_poll); /* the long poll (idle: one) waits at the fake */
    fake_stats_t st0;
    fake_rmq_stats(f, &st0);
    fake_rmq_drop(f);
    FAKE_WAIT(f, fk_pred_no_waiting, NULL);
    size_t after = put_n(f, 20, "after");
    CU_ASSERT_EQUAL(src_take(&x, 20, NULL, NULL, NULL), 20);
    int all = 25;
    FAKE_WAIT(f, fk_pred_acked, &all);
    /* the cut ended the Telemetry stream too: it is re-opened and the Settings sent again
       (the proxy needs them for the consumer) */
    FAKE_WAIT_CALLS(f, FAKE_TELEMETRY, st0.calls[FAKE_TELEMETRY] + 1);
    int one = 1;
    FAKE_WAIT(f, fk_pred_telemetry_open, &one);
    src_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT(st.connections > st0.connections);
    assert_all_acked_once(f, first, 5);
    assert_all_acked_once(f, after, 20);
    fake_rmq_stop(f);
}

/*
** Close with work in flight: an ack the broker does not answer in time (retried, then acked
** during close), and held messages that never got an outcome (released: not acked).
*/
static void test_fault_source_close_inflight(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_NORMAL, 1);
    size_t first = put_n(f, 4, "c");
    src_t x;
    src_opts(&x, f, NULL);
    x.conf->request_timeout_ms = 300;
    CU_ASSERT_EQUAL_FATAL(src_start(&x), RSQL_OK);
    fake_answer_t silent = {.hang = true};
    fake_rmq_script(f, FAKE_ACK, 1, &silent);
    polled_t p[4];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 4, NULL, NULL, p), 4);
    src_commit(&x, &p[0], RSQL_OUTCOME_WRITTEN);
    src_commit(&x, &p[1], RSQL_OUTCOME_FILTERED);
    FAKE_WAIT_CALLS(f, FAKE_ACK, 1); /* the silent one */
    src_close(&x);                   /* waits for it, sends it again */
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.acked, 2);
    CU_ASSERT_EQUAL(info(f, first).ack_requests, 2); /* the silent one, then again at close */
    CU_ASSERT_EQUAL(info(f, first + 2).acks, 0); /* released at close */
    CU_ASSERT_EQUAL(info(f, first + 3).acks, 0);
    fk_assert_clean_acks(f);
    fake_rmq_stop(f);
}

/* ---- lite mode: throttling ----------------------------------------------------------------- */

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

/*
** Lite mode with at most one message of a lite topic in the pipeline: the messages over the
** share are deferred (ChangeInvisibleDuration of throttle.defer, suspend = false so the broker
** counts the attempt), neither held nor acked; a held message's renewal asks suspend = true.
** When the admitted one is acked the deferred ones come back and go through one at a time:
** in the end each is acked once.
*/
static void test_fault_source_lite_throttle(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_LITE, 1);
    size_t a1 = put_lite(f, "a", "a1");
    size_t a2 = put_lite(f, "a", "a2");
    size_t b1 = put_lite(f, "b", "b1");
    static const char *const kv[] = {"source.mode",
                                     "lite",
                                     "throttle.max-inflight-per-lite-topic",
                                     "1",
                                     "throttle.defer",
                                     "200ms",
                                     NULL};
    src_t x;
    src_open(&x, f, kv);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    /* COMPLETE_ADD at start (wildcard group), one per identity started at open
       (source.lite-clients-start: 8 at the defaults, all of source.lite-clients) */
    CU_ASSERT_EQUAL(st.calls[FAKE_SYNC_LITE], (int)rsql_rmq_lite_start(x.conf));
    CU_ASSERT_EQUAL(st.calls[FAKE_SYNC_LITE], 8);
    polled_t p[2];
    CU_ASSERT_EQUAL_FATAL(src_take(&x, 2, NULL, NULL, p), 2); /* a1 and b1 */
    CU_ASSERT(strcmp(p[0].body, "a2") != 0 && strcmp(p[1].body, "a2") != 0);
    int one = 1, two = 2;
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, a2, msg_changed, &two, FAULT_WAIT_MS)); /* deferred */
    fake_msg_info_t mi = info(f, a2);
    CU_ASSERT_FALSE(mi.last_suspend);
    CU_ASSERT_EQUAL(mi.acks, 0);
    /* a1 is held: renewed, with suspend = true (lite: the attempt is not counted) */
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, a1, msg_changed, &one, FAULT_WAIT_MS));
    CU_ASSERT_TRUE(info(f, a1).last_suspend);
    src_commit(&x, &p[0], RSQL_OUTCOME_WRITTEN);
    src_commit(&x, &p[1], RSQL_OUTCOME_WRITTEN);
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, a1, fk_msg_acked, NULL, FAULT_WAIT_MS));
    CU_ASSERT_EQUAL(src_take(&x, 1, NULL, NULL, NULL), 1); /* a2, now admitted */
    CU_ASSERT_TRUE(fake_rmq_wait_msg(f, a2, fk_msg_acked, NULL, FAULT_WAIT_MS));
    src_close(&x);
    CU_ASSERT(info(f, a2).deliveries >= 2);
    assert_all_acked_once(f, a1, 1);
    assert_all_acked_once(f, a2, 1);
    assert_all_acked_once(f, b1, 1);
    fake_rmq_stop(f);
}

/*
** Lite mode with source.lite-topics: the broker refuses the PARTIAL_ADD (a bad lite topic):
** open fails with its status, after the client had started (COMPLETE_ADD answered), and
** nothing is left behind (the ASan build checks).
*/
static void test_fault_source_lite_subscribe_refused(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, T, FAKE_LITE, 1);
    fake_answer_t normal = {0}, illegal = {.code = RSQL_RMQ_CODE_ILLEGAL_LITE_TOPIC};
    fake_rmq_script(f, FAKE_SYNC_LITE, 1, &normal);
    fake_rmq_script(f, FAKE_SYNC_LITE, 1, &illegal);
    static const char *const kv[] = {"source.mode", "lite", "source.lite-topics", "a, b", NULL};
    src_t x;
    src_opts(&x, f, kv);
    CU_ASSERT_NOT_EQUAL(src_start(&x), RSQL_OK);
    CU_ASSERT_EQUAL(x.err.remote_code, RSQL_RMQ_CODE_ILLEGAL_LITE_TOPIC);
    CU_ASSERT_PTR_NULL(x.s);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SYNC_LITE], 2);
    CU_ASSERT_EQUAL(st.calls[FAKE_NOTIFY], 1); /* the client said goodbye */
    src_close(&x);
    fake_rmq_stop(f);
}

static CU_TestInfo source_tests[] = {
    {"fault_source_acks_batched", test_fault_source_acks_batched},
    {"fault_source_ack_partial", test_fault_source_ack_partial},
    {"fault_source_renewal", test_fault_source_renewal},
    {"fault_source_outcome_during_renewal", test_fault_source_outcome_during_renewal},
    {"fault_source_renewal_invalid", test_fault_source_renewal_invalid},
    {"fault_source_release", test_fault_source_release},
    {"fault_source_native_dlq", test_fault_source_native_dlq},
    {"fault_source_receive_errors", test_fault_source_receive_errors},
    {"fault_source_drop_resume", test_fault_source_drop_resume},
    {"fault_source_close_inflight", test_fault_source_close_inflight},
    {"fault_source_lite_throttle", test_fault_source_lite_throttle},
    {"fault_source_lite_subscribe_refused", test_fault_source_lite_subscribe_refused},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_source", NULL, NULL, NULL, NULL, source_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
