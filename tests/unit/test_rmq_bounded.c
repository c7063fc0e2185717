/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of rmq_bounded.c on a fake clock: the idle clock of
 * scan.idle-timeout counts only time the broker answered for (an outage never ends a batch job)
 * and nothing before a not-before time; the long poll of a bounded read; the times at which
 * messages let go are visible again, and the summary text a run's leftovers make.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <string.h>

#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rocketmq/rmq_conn_int.h"

static void test_rmq_idle_counts_answers_only(void)
{
    rsql_rmq_idle_t c;
    rsql_rmq_idle_init(&c, 5000, 0, 0);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    rsql_rmq_idle_answered(&c, 0, 4999);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    rsql_rmq_idle_answered(&c, 4999, 5000);
    CU_ASSERT_TRUE(rsql_rmq_idle_expired(&c));

    /* an outage: a minute of failing long polls (not fed) does not count at all */
    rsql_rmq_idle_init(&c, 5000, 0, 0);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    /* then the broker answers again: only its answers count */
    rsql_rmq_idle_answered(&c, 60000, 62000);
    CU_ASSERT_EQUAL(c.answered_ms, 2000);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    rsql_rmq_idle_answered(&c, 62000, 67000);
    CU_ASSERT_TRUE(rsql_rmq_idle_expired(&c));

    /* concurrent long polls overlap: their union counts, not their sum */
    rsql_rmq_idle_init(&c, 10000, 0, 0);
    rsql_rmq_idle_answered(&c, 0, 5000);
    rsql_rmq_idle_answered(&c, 1000, 6000);
    rsql_rmq_idle_answered(&c, 2000, 7000);
    CU_ASSERT_EQUAL(c.answered_ms, 7000);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    /* a poll that started before the last answer still adds only what is new */
    rsql_rmq_idle_answered(&c, 6500, 10000);
    CU_ASSERT_EQUAL(c.answered_ms, 10000);
    CU_ASSERT_TRUE(rsql_rmq_idle_expired(&c));

    /* a message starts over: a poll that began before it counts only from it */
    rsql_rmq_idle_init(&c, 5000, 0, 0);
    rsql_rmq_idle_answered(&c, 0, 4000);
    rsql_rmq_idle_message(&c, 4500);
    CU_ASSERT_EQUAL(c.answered_ms, 0);
    rsql_rmq_idle_answered(&c, 3000, 5000);
    CU_ASSERT_EQUAL(c.answered_ms, 500);
    rsql_rmq_idle_answered(&c, 5000, 9499);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    rsql_rmq_idle_answered(&c, 9000, 9500);
    CU_ASSERT_TRUE(rsql_rmq_idle_expired(&c));

    /* unbounded: never */
    rsql_rmq_idle_init(&c, -1, 0, 0);
    rsql_rmq_idle_answered(&c, 0, 1000000);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
}

static void test_rmq_idle_not_before(void)
{
    /* the previous run was interrupted: its messages are invisible until 30 s from now, so the
       clock starts only then; answers before it do not count */
    rsql_rmq_idle_t c;
    rsql_rmq_idle_init(&c, 5000, 0, 30000);
    rsql_rmq_idle_answered(&c, 0, 20000);
    CU_ASSERT_EQUAL(c.answered_ms, 0);
    rsql_rmq_idle_answered(&c, 20000, 34999);
    CU_ASSERT_EQUAL(c.answered_ms, 4999);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
    rsql_rmq_idle_answered(&c, 34999, 35000);
    CU_ASSERT_TRUE(rsql_rmq_idle_expired(&c)); /* not before 30 s + the idle timeout */
    /* a not-before time in the past changes nothing */
    rsql_rmq_idle_init(&c, 5000, 100000, 50000);
    rsql_rmq_idle_answered(&c, 100000, 105000);
    CU_ASSERT_TRUE(rsql_rmq_idle_expired(&c));
    /* the killed run's messages come back after the not-before time: the read goes on */
    rsql_rmq_idle_init(&c, 5000, 0, 30000);
    rsql_rmq_idle_answered(&c, 20000, 33000);
    rsql_rmq_idle_message(&c, 33100);
    rsql_rmq_idle_answered(&c, 33100, 38000);
    CU_ASSERT_FALSE(rsql_rmq_idle_expired(&c));
}

static void test_rmq_idle_long_poll(void)
{
    CU_ASSERT_EQUAL(rsql_rmq_idle_long_poll_ms(20000, -1), 20000);    /* unbounded */
    CU_ASSERT_EQUAL(rsql_rmq_idle_long_poll_ms(20000, 8000), 8000);   /* answer in time */
    CU_ASSERT_EQUAL(rsql_rmq_idle_long_poll_ms(20000, 2000), RSQL_RMQ_MIN_LONG_POLL_MS);
    CU_ASSERT_EQUAL(rsql_rmq_idle_long_poll_ms(20000, 60000), 20000); /* several answers */
    CU_ASSERT_EQUAL(rsql_rmq_idle_long_poll_ms(3000, 8000), 3000);    /* never longer */
}

static void test_rmq_later(void)
{
    rsql_rmq_later_t l;
    memset(&l, 0, sizeof l);
    int64_t last = -1;
    CU_ASSERT_EQUAL(rsql_rmq_later_count(&l, 0, &last), 0);
    CU_ASSERT_EQUAL(last, 0);
    int64_t times[] = {500, 100, 900, 300, 700, 200, 800};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        CU_ASSERT_TRUE(rsql_rmq_later_add(&l, times[i]));
    }
    for (int i = 0; i < 200; i++) { /* grow past the first allocation */
        CU_ASSERT_TRUE(rsql_rmq_later_add(&l, 1000 + i));
    }
    CU_ASSERT_EQUAL(rsql_rmq_later_count(&l, 0, &last), 207);
    CU_ASSERT_EQUAL(last, 1199);
    CU_ASSERT_EQUAL(rsql_rmq_later_count(&l, 300, NULL), 204); /* 100, 200, 300 are back */
    CU_ASSERT_EQUAL(rsql_rmq_later_count(&l, 999, &last), 200);
    CU_ASSERT_EQUAL(last, 1199);
    CU_ASSERT_EQUAL(rsql_rmq_later_count(&l, 1199, &last), 0);
    CU_ASSERT_EQUAL(last, 0);
    rsql_rmq_later_deinit(&l);
}

static void test_rmq_leftover_format(void)
{
    char buf[256];
    rsql_rmq_leftover_t lo = {0, 0, 0, 0, 1000000};
    CU_ASSERT_EQUAL(rsql_rmq_leftover_format(&lo, false, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "");
    lo.held = 3;
    lo.held_in_ms = 58000;
    rsql_rmq_leftover_format(&lo, false, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "rocketmq: left 3 held messages, invisible for up to 58s");
    lo.deferred = 12;
    lo.deferred_in_ms = 30 * 60000;
    rsql_rmq_leftover_format(&lo, false, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "rocketmq: left 3 held and 12 deferred messages, invisible for "
                                "up to 30min");
    rsql_rmq_leftover_format(&lo, true, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "{\"held\":3,\"held_visible_by_ms\":1058000,\"deferred\":12,"
                                "\"deferred_visible_by_ms\":2800000}");
    lo.held = 0;
    lo.deferred = 1;
    rsql_rmq_leftover_format(&lo, false, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "rocketmq: left 1 deferred message, invisible for up to 30min");
    CU_ASSERT_EQUAL(rsql_rmq_leftover_format(&lo, false, buf, 10), 0); /* does not fit */
    CU_ASSERT_STRING_EQUAL(buf, "");
}

static void test_rmq_hold_hook(void)
{
    /* what a run of this source may leave invisible: its group's messages, for up to the
       invisible duration after it last worked */
    rsql_rmq_conf_t c;
    memset(&c, 0, sizeof c);
    c.endpoints = "127.0.0.1:8081";
    c.namespace_ = "";
    c.group = "g1";
    c.topic = "orders";
    c.invisible_ms = 60000;
    char key[128];
    CU_ASSERT_EQUAL(rsql_rmq__hold(&c, key, sizeof key), 60000);
    CU_ASSERT_STRING_EQUAL(key, "consumer group g1 of topic orders at 127.0.0.1:8081");
    c.namespace_ = "ns";
    CU_ASSERT_EQUAL(rsql_rmq__hold(&c, key, sizeof key), 60000);
    CU_ASSERT_STRING_EQUAL(key,
                           "consumer group g1 of topic orders (namespace ns) at 127.0.0.1:8081");
    CU_ASSERT_EQUAL(rsql_rmq__hold(&c, key, 10), 0); /* no room: no key, nothing recorded */
    c.group = NULL; /* a table used only as a sink */
    CU_ASSERT_EQUAL(rsql_rmq__hold(&c, key, sizeof key), 0);
}

static CU_TestInfo bounded_tests[] = {
    {"rmq_hold_hook", test_rmq_hold_hook},
    {"rmq_idle_counts_answers_only", test_rmq_idle_counts_answers_only},
    {"rmq_idle_not_before", test_rmq_idle_not_before},
    {"rmq_idle_long_poll", test_rmq_idle_long_poll},
    {"rmq_later", test_rmq_later},
    {"rmq_leftover_format", test_rmq_leftover_format},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_bounded", NULL, NULL, NULL, NULL, bounded_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
