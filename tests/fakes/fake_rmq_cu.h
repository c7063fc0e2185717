/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq_cu: what the CUnit fault-injection tests share (header only, static helpers): a
 * fake per test (started in the test, stopped at its end), waits with a safety bound, and
 * predicates over the fake's records.
 */
#ifndef RSQL_FAKE_RMQ_CU_H
#define RSQL_FAKE_RMQ_CU_H

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/fakes/fake_rmq.h"

/* A safety bound on every wait: a broken test fails after it instead of hanging. Waits end
   at the event they wait for, long before it. */
#define FAULT_WAIT_MS 30000

/* Start a fake (the test fails at once when it cannot). */
#define FAKE_START(f)                                                                           \
    fake_rmq_t *f = fake_rmq_start();                                                            \
    CU_ASSERT_PTR_NOT_NULL_FATAL(f)

/* Wait until pred holds; a failed wait is a test failure (with the line). */
#define FAKE_WAIT(f, pred, arg) CU_ASSERT_TRUE(fake_rmq_wait((f), (pred), (arg), FAULT_WAIT_MS))
#define FAKE_WAIT_CALLS(f, rpc, n)                                                              \
    CU_ASSERT_TRUE(fake_rmq_wait_calls((f), (rpc), (n), FAULT_WAIT_MS))

/* Predicates (arg: a pointer to an int threshold). */
static inline bool fk_pred_acked(const fake_stats_t *st, void *arg)
{
    return st->acked >= *(const int *)arg;
}

static inline bool fk_pred_settled(const fake_stats_t *st, void *arg)
{
    return st->acked + st->dead >= *(const int *)arg;
}

static inline bool fk_pred_waiting(const fake_stats_t *st, void *arg)
{
    return st->waiting_polls >= *(const int *)arg;
}

static inline bool fk_pred_no_waiting(const fake_stats_t *st, void *arg)
{
    (void)arg;
    return st->waiting_polls == 0;
}

static inline bool fk_pred_telemetry_open(const fake_stats_t *st, void *arg)
{
    return st->telemetry_open >= *(const int *)arg;
}

static inline bool fk_pred_sent_ok(const fake_stats_t *st, void *arg)
{
    return st->sent_ok >= *(const int *)arg;
}

static inline bool fk_pred_inflight_none(const fake_stats_t *st, void *arg)
{
    (void)arg;
    return st->inflight == 0;
}

/* For fake_rmq_wait_msg: the message is acked. */
static inline bool fk_msg_acked(const fake_msg_info_t *mi, void *arg)
{
    (void)arg;
    return mi->state == FAKE_ACKED;
}

/* Every stored message of the fake, checked: acked at most once with a valid handle, never
   acked with a replaced handle, and no ack named an unknown handle. */
static inline void fk_assert_clean_acks(fake_rmq_t *f)
{
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.stale_acks, 0);
    CU_ASSERT_EQUAL(st.double_acks, 0);
    CU_ASSERT_EQUAL(st.unknown_acks, 0);
    CU_ASSERT_EQUAL(st.missing_client_id, 0);
    CU_ASSERT_EQUAL(st.foreign_acks, 0); /* settled by the identity that received it */
    CU_ASSERT_EQUAL(st.foreign_changes, 0);
    for (size_t i = 0; i < st.n_msgs; i++) {
        fake_msg_info_t mi;
        fake_rmq_msg_info(f, i, &mi);
        CU_ASSERT(mi.acks <= 1);
        CU_ASSERT(mi.acks + mi.forwards <= 1);
    }
}

#endif
