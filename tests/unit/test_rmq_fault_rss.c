/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * test_rmq_fault_rss: memory follows the lite topics and message groups in use, not every one
 * ever seen. A pipeline (engine/rsql_pipeline.h) runs in a forked child against a fake proxy
 * that makes its messages on the fly (fake_rmq_synth: the fake keeps nothing, so its own memory
 * stays flat): the rocketmq-grpc source in lite mode (a wildcard subscription) through N
 * distinct lite topics into the blackhole sink, and the source of a FIFO topic through N
 * distinct message groups into the rocketmq-grpc sink with one message group per row. Each run
 * checks its counts (every message read, written and acked; every row sent); the parent reads
 * the child's peak RSS (wait4's ru_maxrss) and asserts the 200,000 run's within 1.5x of the
 * 1,000 run's. The runs use a short lanes.idle-timeout so idle lanes go during the run.
 *
 * Under a sanitizer (ASan's quarantine and shadow memory, TSan's shadow memory) peak RSS says
 * nothing about the program's own memory: the runs and their counts are checked, with fewer
 * messages, and the comparison is not made (the test says so on stderr).
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/rsql_pipeline.h"
#include "tests/lib/cu_sanitized.h"
#include "tests/fakes/fake_rmq_src.h"

#define RSS_SANITIZED RSQL_TEST_SANITIZED

#define OUT "out"
#define SMALL 1000
#define BIG (RSS_SANITIZED ? 20000 : 200000)

/* lanes.idle-timeout of the runs; RSQL_TEST_LANE_IDLE overrides it (e.g. 24h: no eviction,
   which makes the comparison fail). */
static const char *lane_idle(void)
{
    const char *e = getenv("RSQL_TEST_LANE_IDLE");
    return e && *e ? e : "100ms";
}


static rsql_optset_t *opts(const rsql_opt_kv_t *kv, int n)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_connector_def_t *conn = NULL;
    rsql_optset_t *o = rsql_connector_validate(kv, n, cols, 1, RSQL_NOPOS, &conn, &err);
    if (!o) {
        fprintf(stderr, "options: %s\n", err.msg);
    }
    return o;
}

#define KV(k, v) ((rsql_opt_kv_t){(k), (v), RSQL_NOPOS, RSQL_NOPOS})

/*
** The child: a fake making n messages on T (kind: FAKE_LITE, a lite topic each; FAKE_FIFO, a
** message group each), a pipeline from it (lite: into blackhole; FIFO: into the rocketmq-grpc
** sink of OUT, message group = the row's body), run to its idle end. Exit status 0 when every
** message was read, written and acked (and, FIFO, sent).
*/
static int child_run(fake_topic_kind_t kind, int n)
{
    fake_rmq_t *f = fake_rmq_start();
    if (!f) {
        return 2;
    }
    fake_rmq_topic(f, T, kind, 4);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 4);
    const char *idle = lane_idle();
    /* one client identity: the runs compare memory per lite topic, and a burst of 100 lite
       topics would otherwise start up to source.lite-clients more (a bounded cost of its own,
       the same for any number of lite topics, that one run may pay and the other not) */
    rsql_opt_kv_t skv[] = {KV("connector", "rocketmq-grpc"), KV("endpoints", fake_rmq_endpoint(f)),
                           KV("topic", T), KV("format", "raw"),
                           KV("source.consumer-group", "g"), KV("scan.idle-timeout", "1500ms"),
                           KV("lanes.idle-timeout", idle), KV("source.mode", "lite"),
                           KV("source.lite-clients", "1"),
                           /* the lanes alive are those seen within lanes.idle-timeout, so
                              they follow the read rate: the rate the 1.5x was set at (at
                              most 4 long polls; the default lets 16 be in flight) */
                           KV("source.fetch-concurrency", "4")};
    rsql_opt_kv_t bkv[] = {KV("connector", "blackhole")};
    rsql_opt_kv_t okv[] = {KV("connector", "rocketmq-grpc"), KV("endpoints", fake_rmq_endpoint(f)),
                           KV("topic", OUT), KV("format", "raw"),
                           KV("sink.message-group-column", "body"),
                           KV("lanes.idle-timeout", idle)};
    bool lite = kind == FAKE_LITE;
    rsql_optset_t *so = opts(skv, lite ? 10 : 7);
    rsql_optset_t *ko = lite ? opts(bkv, 1) : opts(okv, 6);
    if (!so || !ko) {
        return 3;
    }
    rsql_rmq_conf_t *sc = (rsql_rmq_conf_t *)rsql_optset_conf(so, RSQL_CONF_CONNECTOR);
    sc->await_ms = 300; /* the long poll: the run's idle end comes soon after the last message */
    rsql_pipeline_conf_t c;
    rsql_pipeline_conf_init(&c);
    c.id = "rss";
    c.batch_size = 64;
    c.queue_capacity = 256;
    c.src_ops = rsql_connector_find("rocketmq-grpc")->source;
    c.src_ctx.table = T;
    c.src_ctx.opts = so;
    c.src_ctx.conf = sc;
    c.src_ctx.n_columns = 1;
    c.src_ctx.column_names = cols;
    c.src_ctx.column_types = types;
    c.snk_ops = rsql_connector_find(lite ? "blackhole" : "rocketmq-grpc")->sink;
    c.snk_ctx.table = OUT;
    c.snk_ctx.opts = ko;
    c.snk_ctx.conf = rsql_optset_conf(ko, RSQL_CONF_CONNECTOR);
    c.snk_ctx.format_conf = rsql_optset_conf(ko, RSQL_CONF_FORMAT);
    c.snk_ctx.n_columns = 1;
    c.snk_ctx.column_names = cols;
    c.snk_ctx.column_types = types;
    c.transform = fake_rmq_relay_xf;
    fake_synth_t syn = {T, kind, n, n, true};
    fake_rmq_synth(f, &syn);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_pipeline_t *p = rsql_pipeline_new(&c, &err);
    if (!p) {
        fprintf(stderr, "pipeline: %s\n", err.msg);
        return 4;
    }
    rsql_err_t rc = rsql_pipeline_run(p, &err);
    rsql_job_counts_t k;
    rsql_pipeline_counts(p, &k);
    rsql_pipeline_destroy(p);
    rsql_optset_destroy(so);
    rsql_optset_destroy(ko);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    fake_rmq_stop(f);
    if (rc != RSQL_OK) {
        fprintf(stderr, "run: %s\n", err.msg);
        return 5;
    }
    if (k.read != n || k.written != n || st.synth_made != n || st.synth_acked != n ||
        (!lite && st.sent_ok != n)) {
        fprintf(stderr, "%d messages: read %lld written %lld made %d acked %d sent %d\n", n,
                (long long)k.read, (long long)k.written, st.synth_made, st.synth_acked,
                st.sent_ok);
        return 6;
    }
    return 0;
}

/* Run child_run(kind, n) in a forked child; its peak RSS in kB (-1 when it failed). */
static long peak_rss(fake_topic_kind_t kind, int n)
{
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        _exit(child_run(kind, n));
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    CU_ASSERT_EQUAL_FATAL(wait4(pid, &status, 0, &ru), pid);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) {
        fprintf(stderr, "the %d-message run failed (status %d)\n", n, status);
    }
    CU_ASSERT_TRUE(ok);
    return ok ? ru.ru_maxrss : -1;
}

static void compare(const char *what, fake_topic_kind_t kind)
{
    long small = peak_rss(kind, SMALL);
    long big = peak_rss(kind, BIG);
    fprintf(stderr, "%s: peak RSS %ld kB for %d, %ld kB for %d (lanes.idle-timeout %s)\n", what,
            small, SMALL, big, BIG, lane_idle());
    if (RSS_SANITIZED) {
        fprintf(stderr, "%s: peak RSS not compared in a sanitizer build (its shadow memory and "
                        "quarantine dominate it); the runs and their counts were checked\n",
                what);
        return;
    }
    CU_ASSERT(small > 0 && big > 0);
    if (big * 2 > small * 3) {
        fprintf(stderr, "%s: %ld kB is more than 1.5x %ld kB\n", what, big, small);
        CU_FAIL("peak RSS grows with the lanes seen");
    }
}

/* 200,000 lite topics through a wildcard lite source: within 1.5x of 1,000. */
static void test_fault_rss_lite_topics(void)
{
    compare("lite topics", FAKE_LITE);
}

/* 200,000 message groups through a FIFO source and the rocketmq-grpc sink: within 1.5x. */
static void test_fault_rss_message_groups(void)
{
    compare("message groups", FAKE_FIFO);
}

static CU_TestInfo rss_tests[] = {
    {"fault_rss_lite_topics", test_fault_rss_lite_topics},
    {"fault_rss_message_groups", test_fault_rss_message_groups},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_fault_rss", NULL, NULL, NULL, NULL, rss_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
