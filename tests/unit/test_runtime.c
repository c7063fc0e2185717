/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of whole pipelines over fake in-test sources and sinks
 * (exactly one outcome and one commit_record per record, positions never
 * past an unknown outcome, back-pressure, tolerance none / all with dead
 * letters, sink retries, resume positions, signals, the summary line).
 * The queue, offset tracker and retry backoff are tested in test_queue.c;
 * the fakes and the harness are tests/lib/cu_pipeline.h.
 *
 * Nothing here waits for time to pass instead of an event: a test that needs
 * the pipeline in some state waits for the fakes to signal it (event_t: the
 * source has given all it will give and is holding, the sink has entered a
 * write, the source was woken by a stop), and a fake that must stall blocks on
 * such an event rather than sleeping. The timeouts on those waits only turn a
 * bug into a failure instead of a hang.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "engine/rsql_pipeline.h"
#include "engine/rsql_queue.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/cu_pipeline.h"

static void check_all_written(int mode)
{
    harness_reset(20000, 3, mode);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.read, 20000);
    CU_ASSERT_EQUAL(k.filtered, 2000);
    CU_ASSERT_EQUAL(k.written, 18000);
    CU_ASSERT_EQUAL(out_store.rows, 18000);
    CU_ASSERT_EQUAL(out_store.order_violations, 0);
    counts_add_up(&k);
    assert_one_outcome_each(20000);
    CU_ASSERT_TRUE(src_store.threads_differ);
    /* bounded: never more in flight than 3 x queue capacity (+ one batch of slack) */
    CU_ASSERT(src_store.max_in_flight <= 3 * 128 + 64);
    /* positions of every partition at its last record */
    CU_ASSERT_EQUAL(saved_offset("p0"), 6667);
    CU_ASSERT_EQUAL(saved_offset("p1"), 6667);
    CU_ASSERT_EQUAL(saved_offset("p2"), 6666);
    CU_ASSERT_EQUAL(src_store.committed[0], 6667);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_catalog_run_list(g_cat, "job1", 0, &runs, &n, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "done");
    CU_ASSERT_EQUAL(runs[0]->counts.read, 20000);
    CU_ASSERT_EQUAL(runs[0]->counts.written, 18000);
    CU_ASSERT_EQUAL(runs[0]->counts.filtered, 2000);
    rsql_job_run_array_free(runs, n);
}

static void test_pipeline_all_written_sync(void)
{
    check_all_written(DELIVER_SYNC);
}

static void test_pipeline_all_written_on_flush(void)
{
    check_all_written(DELIVER_ON_FLUSH);
}

static void test_pipeline_all_written_delivery_thread(void)
{
    check_all_written(DELIVER_THREAD);
}

static void test_pipeline_eval_failure_tolerance_none(void)
{
    harness_reset(5000, 2, DELIVER_ON_FLUSH);
    xf_store.fail_at = 1000; /* partition 0, offset 501 */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_EVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "eval error at fake@1000: 1:8: division by zero");
    CU_ASSERT_EQUAL(src_store.kinds[1000], RSQL_OUTCOME_FAILED);
    /* nothing at or after the failure reached the sink or was committed */
    CU_ASSERT(out_store.max_value_written < 1000);
    CU_ASSERT(saved_offset("p0") <= 500);
    CU_ASSERT(src_store.committed[0] <= 500);
    CU_ASSERT(saved_offset("p1") <= 501);
    assert_one_outcome_each(src_store.polled);
    CU_ASSERT(k.failed >= 1);
    counts_add_up(&k);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_catalog_run_list(g_cat, "job1", 0, &runs, &n, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "failed");
    CU_ASSERT_STRING_EQUAL(runs[0]->error, "eval error at fake@1000: 1:8: division by zero");
    rsql_job_run_array_free(runs, n);
}

static void test_pipeline_tolerance_all_dead_letters(void)
{
    harness_reset(10000, 3, DELIVER_THREAD);
    xf_store.fail_mod = 50;
    xf_store.fail_rem = 7; /* 200 eval failures */
    src_store.raw = true;  /* and decode failures: v % 7 == 5 */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    int64_t dec = 0, ev = 0, filt = 0;
    for (int64_t v = 0; v < 10000; v++) {
        if (v % 7 == 5) {
            dec++;
        } else if (v % 50 == 7) {
            ev++;
        } else if (v % 10 == 3) {
            filt++;
        }
    }
    CU_ASSERT_EQUAL(k.dead_lettered, dec + ev);
    CU_ASSERT_EQUAL(dlq_store.dl_total, dec + ev);
    CU_ASSERT_EQUAL(k.filtered, filt);
    CU_ASSERT_EQUAL(k.written, 10000 - dec - ev - filt);
    CU_ASSERT_EQUAL(k.failed, 0);
    counts_add_up(&k);
    assert_one_outcome_each(10000);
    CU_ASSERT_EQUAL(src_store.kinds[5], RSQL_OUTCOME_DEAD_LETTERED);
    CU_ASSERT_EQUAL(src_store.kinds[7], RSQL_OUTCOME_DEAD_LETTERED);
    /* tolerated failures never stall the position */
    CU_ASSERT_EQUAL(saved_offset("p0"), 3334);
    CU_ASSERT_EQUAL(saved_offset("p1"), 3333);
    CU_ASSERT_EQUAL(saved_offset("p2"), 3333);
    /* the first dead letter: record 5 (decode), raw as received */
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[0], "decode");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_raw[0], "5");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_source[0], "fake@5");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_error[0], "decode error at fake@5: invalid JSON at byte 1");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[1], "eval");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_source[1], "fake@7");
}

static void test_pipeline_dlq_row_as_json(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    xf_store.fail_at = 42;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 1);
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_raw[0], "{\"v\":42}");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[0], "eval");
}

/*
** The dead-letter sink refuses its first writes and fails its first rows in the report, all
** transiently: they are written again per errors.retry.*, the run succeeds and every failed
** record is dead-lettered exactly once.
*/
static void test_pipeline_dlq_transient_retried(void)
{
    harness_reset(1000, 2, DELIVER_THREAD);
    xf_store.fail_mod = 100;
    xf_store.fail_rem = 7; /* 10 eval errors */
    dlq_store.write_fails = 3;
    dlq_store.dl_row_fails = 4;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 10);
    CU_ASSERT_EQUAL(k.failed, 0);
    CU_ASSERT_EQUAL(dlq_store.dl_total, 10); /* each once */
    CU_ASSERT(dlq_store.write_calls > 3);
    counts_add_up(&k);
    assert_one_outcome_each(1000);
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(src_store.kinds[i * 100 + 7], RSQL_OUTCOME_DEAD_LETTERED);
    }
    CU_ASSERT_EQUAL(saved_offset("p0"), 500);
    CU_ASSERT_EQUAL(saved_offset("p1"), 500);
}

typedef struct run_arg {
    rsql_pipeline_conf_t *c;
    rsql_job_counts_t k;
    rsql_error_t err;
    rsql_err_t rc;
} run_arg_t;

static void *run_thread(void *arg)
{
    run_arg_t *a = arg;
    a->rc = run(a->c, &a->k, &a->err);
    return NULL;
}

static rsql_err_t g_run_rc;

static void *run_pipeline_thread(void *arg)
{
    g_run_rc = rsql_pipeline_run(arg, NULL);
    return NULL;
}

/*
** A dead-letter batch waiting out its backoff first has the batches written before it
** flushed, so with a sink that reports only at a flush their records do not wait too: X
** (record 7's) is written while Y (record 507's) waits in the queue, Y's first write is
** refused, and a flush comes before Y's next attempt.
*/
static void test_pipeline_dlq_flush_before_backoff(void)
{
    harness_reset(1000, 1, DELIVER_SYNC);
    src_store.pause_at = 100; /* record 507 only once X is being written */
    xf_store.fail_mod = 500;
    xf_store.fail_rem = 7;
    dlq_store.mode = DELIVER_ON_FLUSH;
    dlq_store.stall = true;      /* X's write waits until Y is queued behind it */
    dlq_store.write_fail_at = 2; /* Y's first write */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    run_arg_t a = {.c = &c};
    rsql_error_clear(&a.err);
    rsql_pipeline_t *p = rsql_pipeline_new(&c, &a.err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, run_pipeline_thread, p), 0);
    CU_ASSERT_TRUE(event_wait(&dlq_store.entered, 1, EVENT_TIMEOUT_MS));
    event_signal(&src_store.go);
    int64_t dl = rsql_now_ms() + EVENT_TIMEOUT_MS;
    while (rsql_pipeline__dlq_queued(p) < 1 && rsql_now_ms() < dl) {
        struct timespec ts = {0, 1000 * 1000}; /* a bounded poll of the queue */
        nanosleep(&ts, NULL);
    }
    CU_ASSERT_EQUAL(rsql_pipeline__dlq_queued(p), 1);
    event_signal(&dlq_store.release);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(g_run_rc, RSQL_OK);
    rsql_pipeline_counts(p, &a.k);
    rsql_pipeline_destroy(p);
    CU_ASSERT_EQUAL(a.k.dead_lettered, 2);
    CU_ASSERT_EQUAL(dlq_store.write_calls, 3);
    CU_ASSERT(dlq_store.flushes_at_write[3] > dlq_store.flushes_at_write[2]);
}

/*
** A dead-letter write that does not finish does not hold up the worker: every other record
** gets its outcome meanwhile, and the dead-lettered one is committed only once its
** dead-letter write is reported.
*/
static void test_pipeline_dlq_slow_write(void)
{
    harness_reset(2000, 2, DELIVER_THREAD);
    xf_store.fail_at = 5;
    dlq_store.stall = true;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    run_arg_t a = {&c, {0}, {0}, RSQL_OK};
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, run_thread, &a), 0);
    CU_ASSERT_TRUE(event_wait(&dlq_store.entered, 1, EVENT_TIMEOUT_MS));
    CU_ASSERT_TRUE(event_wait(&src_store.committed_ev, 1999, 20000));
    pthread_mutex_lock(&src_store.lock);
    CU_ASSERT_EQUAL(src_store.commits[5], 0); /* its dead-letter write is not done */
    pthread_mutex_unlock(&src_store.lock);
    event_signal(&dlq_store.release);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(a.rc, RSQL_OK);
    CU_ASSERT_EQUAL(a.k.dead_lettered, 1);
    CU_ASSERT_EQUAL(dlq_store.dl_total, 1);
    CU_ASSERT_EQUAL(src_store.kinds[5], RSQL_OUTCOME_DEAD_LETTERED);
    assert_one_outcome_each(2000);
}

/*
** The dead-letter sink reports its rows in flush, then that flush fails (not retriably): the
** failure is the run's, and the dead-letter thread has ended before the source is closed (it
** must not call into a closed source, nor fail the run after its outcome was taken).
*/
static void test_pipeline_dlq_flush_fails_at_end(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    xf_store.fail_at = 5;
    dlq_store.mode = DELIVER_ON_FLUSH;
    dlq_store.flush_fail_wait_ms = 1500;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_NOT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "dead-letter table: flush failed: commit failed"));
    CU_ASSERT_EQUAL(src_store.closed_in_dlq_flush, 0);
    CU_ASSERT_EQUAL(src_store.kinds[5], RSQL_OUTCOME_DEAD_LETTERED);
    assert_one_outcome_each(100);
}

static void test_pipeline_tolerance_all_without_dlq_counts(void)
{
    harness_reset(1000, 1, DELIVER_SYNC);
    xf_store.fail_mod = 100;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.tolerate_all = true;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 10);
    CU_ASSERT_EQUAL(saved_offset("p0"), 1000);
}

static void test_pipeline_sink_failure_tolerance_none(void)
{
    harness_reset(3000, 1, DELIVER_ON_FLUSH);
    out_store.fail_mod = 100000;
    out_store.fail_rem = 1500;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_SINK);
    CU_ASSERT_STRING_EQUAL(err.msg, "sink error at fake@1500: rejected 1500");
    CU_ASSERT_EQUAL(src_store.kinds[1500], RSQL_OUTCOME_FAILED);
    CU_ASSERT(saved_offset("p0") <= 1500);
    CU_ASSERT(saved_offset("p0") >= 0);
    assert_one_outcome_each(src_store.polled);
    counts_add_up(&k);
}

static void test_pipeline_sink_failure_tolerance_all(void)
{
    harness_reset(3000, 1, DELIVER_SYNC);
    out_store.fail_mod = 1000;
    out_store.fail_rem = 1;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    with_dlq(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.dead_lettered, 3);
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[0], "sink");
    CU_ASSERT_STRING_EQUAL(dlq_store.dl_error[0], "sink error at fake@1: rejected 1");
    CU_ASSERT_EQUAL(saved_offset("p0"), 3000);
}

static void test_pipeline_sink_retries(void)
{
    harness_reset(2000, 2, DELIVER_THREAD);
    out_store.retry_mod = 97; /* these rows fail twice, retriably */
    out_store.write_fails = 3; /* and the first three writes are refused */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.written + k.filtered, 2000);
    CU_ASSERT_EQUAL(k.failed, 0);
    CU_ASSERT_EQUAL(out_store.attempts[97], 3);
    assert_one_outcome_each(2000);
}

static void test_pipeline_retry_timeout_fails(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    out_store.write_fails = 1000000;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.retry_timeout_ms = 300;
    rsql_job_counts_t k;
    rsql_error_t err;
    int64_t t0 = rsql_now_ms();
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_UNAVAILABLE);
    int64_t el = rsql_now_ms() - t0;
    /* it retried, and gave up only once the retry time was used up (a lower bound on the
       monotonic clock is not a race; how much later it ended depends on the machine) */
    CU_ASSERT(out_store.write_calls >= 2);
    CU_ASSERT(el >= 300);
    CU_ASSERT_STRING_EQUAL(err.msg, "sink error at fake@0: try later");
    CU_ASSERT_EQUAL(k.written, 0);
    CU_ASSERT_EQUAL(saved_offset("p0"), -1);
    assert_one_outcome_each(src_store.polled);
}

/*
** A flush that fails transiently (a commit refused: BUSY) is tried again only within
** errors.retry.timeout of its first failure; with a timeout of 0 the first failure ends the
** run. A flush that is only not finished yet (TIMEOUT: the sink still sends, each row under
** its own policy) is no failure: the run waits for it whatever the timeout.
*/
static void check_flush_refused(rsql_err_t code, rsql_err_t want)
{
    harness_reset(500, 1, DELIVER_ON_FLUSH);
    out_store.flush_code = code;
    out_store.flush_code_calls = 5;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.retry_timeout_ms = 0;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), want);
    if (want == RSQL_OK) {
        CU_ASSERT_EQUAL(out_store.flush_code_calls, 0);
        CU_ASSERT_EQUAL(k.written + k.filtered, 500);
        assert_one_outcome_each(500);
    } else {
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "flush failed: database is locked"));
        /* rows a later flush made durable (while the run wound down) are reported */
        CU_ASSERT(out_store.flush_code_calls < 5);
        assert_one_outcome_each(src_store.polled);
    }
}

static void test_pipeline_flush_not_finished_waits(void)
{
    check_flush_refused(RSQL_ERR_TIMEOUT, RSQL_OK);
}

static void test_pipeline_flush_failed_fails(void)
{
    check_flush_refused(RSQL_ERR_BUSY, RSQL_ERR_BUSY);
}

/*
** errors.retry.timeout is the total time a record is retried: write refusals and failed
** deliveries of the same rows draw on one window. The sink refuses the first writes (about
** a third of the window at backoff-max), then accepts the row and fails its delivery,
** transiently, every time. With waits of backoff-max each, one window holds at most
** timeout / backoff-max + 1 attempts: a count, so a slow machine only makes it fewer (and
** the refusals still end within the window on a loaded machine).
*/
static void test_pipeline_retry_timeout_total(void)
{
    harness_reset(1, 1, DELIVER_SYNC);
    out_store.write_fails = 10;
    out_store.retry_mod = 1;
    out_store.retry_forever = true;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.retry_timeout_ms = 1500;
    c.retry_backoff_max_ms = 50;
    rsql_job_counts_t k;
    rsql_error_t err;
    int64_t t0 = rsql_now_ms();
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_UNAVAILABLE);
    int64_t el = rsql_now_ms() - t0;
    CU_ASSERT_STRING_EQUAL(err.msg, "sink error at fake@0: busy");
    /* it got past the refusals and retried the delivery too */
    CU_ASSERT(out_store.attempts[0] >= 1);
    /* every write after the first is a retry, each after a wait of 50 ms at most */
    CU_ASSERT(out_store.write_calls <= 1500 / 50 + 1);
    CU_ASSERT(el >= 1500);
    CU_ASSERT_EQUAL(k.failed, 1);
    CU_ASSERT_EQUAL(saved_offset("p0"), -1);
    assert_one_outcome_each(1);
}

static void test_pipeline_resume_positions(void)
{
    harness_reset(10, 3, DELIVER_SYNC);
    rsql_catalog_offset_put(g_cat, "job1", "p0", "7", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p1", "2", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p2", "9", NULL);
    out_store.stored_n = 2; /* the sink stored p0 = 5 (behind), p1 = 4 (ahead) */
    out_store.stored[0] = 5;
    out_store.stored[1] = 4;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(src_store.n_resume, 3);
    int64_t got[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        got[src_store.resume_names[i][1] - '0'] = src_store.resume_offs[i];
    }
    CU_ASSERT_EQUAL(got[0], 7);
    CU_ASSERT_EQUAL(got[1], 4);
    CU_ASSERT_EQUAL(got[2], 9);
}

/*
** Positions with a text part (rsql_record_t.pos_key): saved in the catalog as "<offset> <key>",
** merged with the sink's (the further offset wins with its own key), and handed to the
** source's open as resume_keys.
*/
static void test_pipeline_resume_keyed_positions(void)
{
    harness_reset(9, 3, DELIVER_SYNC);
    src_store.keyed = true;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    char *v = NULL;
    cu_offset_get(g_cat, "job1", "p0", &v, NULL);
    CU_ASSERT_STRING_EQUAL(v ? v : "", "3 k3"); /* 9 records over 3 partitions */
    rsql_free(v);

    harness_reset(0, 3, DELIVER_SYNC);
    rsql_catalog_offset_put(g_cat, "job1", "p0", "7 key with spaces", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p1", "2 behind", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p2", "9", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "p3", "x9 not a position", NULL);
    out_store.stored_n = 2; /* the sink stored p0 = 5 (behind), p1 = 4 (ahead) */
    out_store.stored[0] = 5;
    out_store.stored_keys[0] = "5:sink0,";
    out_store.stored[1] = 4;
    out_store.stored_keys[1] = "4:sink1,";
    conf_base(&c);
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(src_store.n_resume, 3);
    for (int i = 0; i < 3; i++) {
        int part = src_store.resume_names[i][1] - '0';
        const char *key = src_store.resume_keys[i];
        int64_t off = src_store.resume_offs[i];
        if (part == 0) {
            CU_ASSERT(off == 7 && strcmp(key, "key with spaces") == 0);
        } else if (part == 1) {
            CU_ASSERT(off == 4 && strcmp(key, "4:sink1,") == 0);
        } else {
            CU_ASSERT(part == 2 && off == 9 && key[0] == '\0');
        }
    }
}

/* Every position the sink stored, however many, with the catalog's merged in. */
static void test_pipeline_resume_many_positions(void)
{
    harness_reset(10, 1, DELIVER_SYNC);
    rsql_catalog_offset_put(g_cat, "job1", "p0", "7", NULL);
    rsql_catalog_offset_put(g_cat, "job1", "q100", "250", NULL); /* further than the sink's */
    rsql_catalog_offset_put(g_cat, "job1", "c1", "3", NULL);     /* the catalog's only */
    out_store.stored_n = 3000; /* p0..p7, then q8..q2999 at offset i */
    out_store.stored[0] = 5;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(src_store.n_resume_all, 3001);
    CU_ASSERT_EQUAL(src_store.n_resume_q, 2992 - 1); /* q100 is the catalog's 250 */
}

/*
** A sink that cannot read its stored positions fails the source's open, never resumes from
** the catalog's (older) offsets: transiently, and the open is retried until it reads them all.
*/
static void test_pipeline_stored_positions_transient(void)
{
    harness_reset(10, 1, DELIVER_SYNC);
    rsql_catalog_offset_put(g_cat, "job1", "p0", "2", NULL); /* behind the sink's */
    out_store.stored_n = 2;
    out_store.stored[0] = 8;
    out_store.stored[1] = 4;
    out_store.stored_fails = 2;
    out_store.stored_code = RSQL_ERR_BUSY;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(out_store.stored_calls, 3);
    CU_ASSERT_EQUAL(src_store.opens, 1); /* opened only once they were read */
    CU_ASSERT_EQUAL_FATAL(src_store.n_resume, 2);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(src_store.resume_offs[i], src_store.resume_names[i][1] == '0' ? 8 : 4);
    }
}

/* ... and permanently: the run fails with the sink's message, nothing read or written. */
static void test_pipeline_stored_positions_permanent(void)
{
    harness_reset(10, 1, DELIVER_SYNC);
    out_store.stored_n = 1;
    out_store.stored_fails = 1000;
    out_store.stored_code = RSQL_ERR_PERMISSION;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_ERR_PERMISSION);
    CU_ASSERT_STRING_EQUAL(err.msg, "reading the positions stored with the sink's rows: "
                                    "positions table locked");
    CU_ASSERT_EQUAL(out_store.stored_calls, 1);
    CU_ASSERT_EQUAL(src_store.opens, 0);
    CU_ASSERT_EQUAL(out_store.rows, 0);
}

static void test_pipeline_preview_commits_nothing(void)
{
    harness_reset(1000, 1, DELIVER_SYNC);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.preview = true;
    c.record_run = false;
    c.limit = 10;
    c.batch_size = 4;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(out_store.rows, 10);
    CU_ASSERT_EQUAL(src_store.resolved, 0);
    CU_ASSERT_EQUAL(src_store.committed_calls, 0);
    CU_ASSERT_EQUAL(saved_offset("p0"), -1);
    CU_ASSERT(k.read < 1000); /* stopped after the limit */
    counts_add_up(&k);
}

static void test_pipeline_summary_line(void)
{
    harness_reset(500, 1, DELIVER_SYNC);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    FILE *f = tmpfile();
    c.status_out = f;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    char line[256] = "";
    rewind(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    CU_ASSERT_EQUAL(strncmp(line, "read=500 written=450 filtered=50 dead_lettered=0 failed=0 "
                                  "elapsed=", 66), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "s rate="));
    size_t len = strlen(line);
    CU_ASSERT(len > 9 && strcmp(line + len - 8, " rows/s\n") == 0);
}

/*
** A bounded run whose source waits (its idle timeout) after the last record: the summary's
** rate is over the time records flowed, and the idle wait is reported on its own, not
** spread into the rate.
*/
static void test_pipeline_summary_idle(void)
{
    harness_reset(1000, 1, DELIVER_SYNC);
    src_store.idle_ms = 600;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    FILE *f = tmpfile();
    c.status_out = f;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    char line[256] = "";
    rewind(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    const char *at = strstr(line, " elapsed=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    double elapsed = 0, flowing = -1, idle = -1;
    long rate = 0;
    CU_ASSERT_EQUAL_FATAL(sscanf(at, " elapsed=%lfs flowing=%lfs idle=%lfs rate=%ld rows/s",
                                 &elapsed, &flowing, &idle, &rate), 4);
    CU_ASSERT(idle >= 0.59);                      /* the source's idle wait, on its own */
    CU_ASSERT(flowing + idle <= elapsed + 0.011); /* both within the run */
    CU_ASSERT(flowing < idle);
    /* over the run's whole time the rate would be read / elapsed (under 1,700/s here) */
    CU_ASSERT((double)rate * elapsed > 1.5 * 1000);
    CU_ASSERT(rate >= (long)(1000 / (flowing + 0.01)) - 1);
}

/* True when a handler (not the default action, not ignored) is installed for SIGINT. */
static bool sigint_handled(void)
{
    struct sigaction sa;
    sigaction(SIGINT, NULL, &sa);
    return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

/*
** Send SIGINT once the source has given everything and holds (an event: the pipeline is
** running, so its handler is installed). The handler is checked before the signal is sent:
** if it were missing, the test fails and the run is stopped instead, so a signal can never
** kill the test binary. The source holds until the pipeline stops, so the run cannot end
** before the signal (it used to end "done" on a fast machine, the signal then killing us).
*/
static void *send_sigint(void *arg)
{
    rsql_pipeline_t *p = arg;
    CU_ASSERT_TRUE(event_wait(&src_store.held, 1, EVENT_TIMEOUT_MS));
    if (sigint_handled()) {
        kill(getpid(), SIGINT);
    } else {
        CU_FAIL("the pipeline's SIGINT handler is not installed");
        rsql_pipeline_stop(p);
    }
    return NULL;
}

static void test_pipeline_sigint_drains_and_commits(void)
{
    harness_reset(-1, 2, DELIVER_THREAD);
    src_store.hold = 5000;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.handle_signals = true;
    rsql_pipeline_t *p = rsql_pipeline_new(&c, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    pthread_t th;
    pthread_create(&th, NULL, send_sigint, p);
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_pipeline_run(p, &err), RSQL_OK);
    pthread_join(th, NULL);
    rsql_job_counts_t k;
    rsql_pipeline_counts(p, &k);
    rsql_pipeline_destroy(p);
    CU_ASSERT_EQUAL(k.read, 5000); /* everything polled was drained */
    CU_ASSERT_EQUAL(k.read, k.written + k.filtered);
    assert_one_outcome_each(src_store.polled);
    CU_ASSERT_EQUAL(saved_offset("p0"), 2500);
    CU_ASSERT_EQUAL(saved_offset("p1"), 2500);
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_catalog_run_list(g_cat, "job1", 0, &runs, &n, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(runs[0]->status, "interrupted");
    rsql_job_run_array_free(runs, n);
    /* the old disposition is back */
    CU_ASSERT_FALSE(sigint_handled());
}

/*
** In the child: the first SIGINT once the sink is inside a write (the handler is installed),
** the second once the first was seen (the pipeline stopping woke the source). Standard signals
** do not queue, so the second must wait for that event.
*/
static void *send_two_sigints(void *arg)
{
    (void)arg;
    if (!event_wait(&out_store.entered, 1, EVENT_TIMEOUT_MS) || !sigint_handled()) {
        _exit(3);
    }
    kill(getpid(), SIGINT);
    if (!event_wait(&src_store.woken, 1, EVENT_TIMEOUT_MS)) {
        _exit(4);
    }
    kill(getpid(), SIGINT);
    return NULL;
}

static void test_pipeline_second_signal_exits_at_once(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        harness_reset(-1, 1, DELIVER_SYNC);
        /* a stubborn sink: its write never finishes, so a drain could only end by the
           safety timeout (then _exit(0)); the second signal must not wait for it */
        out_store.stall = true;
        rsql_pipeline_conf_t c;
        conf_base(&c);
        c.handle_signals = true;
        rsql_pipeline_t *p = rsql_pipeline_new(&c, NULL);
        pthread_t th;
        pthread_create(&th, NULL, send_two_sigints, p);
        pthread_detach(th);
        rsql_pipeline_run(p, NULL);
        _exit(0); /* not reached when the second signal works */
    }
    /* dying by SIGINT proves the second signal did not wait for the stalled drain */
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFSIGNALED(st));
    if (WIFSIGNALED(st)) {
        CU_ASSERT_EQUAL(WTERMSIG(st), SIGINT);
    } else {
        fprintf(stderr, "\n  child exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

static int g_told_fd = -1;

/* As send_two_sigints, then tell the parent (one byte on g_told_fd) the second is sent. */
static void *send_two_sigints_and_tell(void *arg)
{
    send_two_sigints(arg);
    char c = 'x';
    if (write(g_told_fd, &c, 1) != 1) {
        _exit(5);
    }
    return NULL;
}

/*
** Log lines still queued when the second signal ends the process are written out: the child
** logs more than its log pipe holds, so the writer is stuck until the parent reads, and the
** parent reads only once the second signal is sent.
*/
static void test_pipeline_second_signal_writes_the_log(void)
{
    int logp[2], told[2];
    CU_ASSERT_EQUAL_FATAL(pipe(logp), 0);
    CU_ASSERT_EQUAL_FATAL(pipe(told), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(logp[0]);
        close(told[0]);
        g_told_fd = told[1];
        rsql_log_set_fd(logp[1]);
        for (int i = 0; i < 4000; i++) { /* about 400 KiB: far more than a pipe holds */
            rsql_log(RSQL_LOG_ERROR, "test", "filler line %d ........................", i);
        }
        rsql_log(RSQL_LOG_ERROR, "test", "the last line before the signals");
        harness_reset(-1, 1, DELIVER_SYNC);
        out_store.stall = true;
        rsql_pipeline_conf_t c;
        conf_base(&c);
        c.handle_signals = true;
        rsql_pipeline_t *p = rsql_pipeline_new(&c, NULL);
        pthread_t th;
        pthread_create(&th, NULL, send_two_sigints_and_tell, p);
        pthread_detach(th);
        rsql_pipeline_run(p, NULL);
        _exit(0);
    }
    close(logp[1]);
    close(told[1]);
    char c;
    (void)!read(told[0], &c, 1); /* the second signal is sent (or the child is gone) */
    close(told[0]);
    size_t cap = 1 << 20, len = 0;
    char *all = rsql_malloc(cap + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    ssize_t n;
    while (len < cap && (n = read(logp[0], all + len, cap - len)) > 0) {
        len += (size_t)n;
    }
    all[len] = '\0';
    close(logp[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "filler line 3999 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "the last line before the signals"));
    rsql_free(all);
}

static int suite_clean(void)
{
    rsql_catalog_close(g_cat);
    g_cat = NULL;
    return 0;
}

/* The run reports the first failure, not whichever one came last. */
static void test_pipeline_first_failure_kept(void)
{
    harness_reset(0, 1, 0);
    rsql_pipeline_conf_t c;
    conf_base(&c);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_pipeline_t *p = rsql_pipeline_new(&c, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    rsql_error_t e1, e2;
    rsql_error_clear(&e1);
    rsql_error_clear(&e2);
    rsql_error_set(&e1, RSQL_ERR_IO, RSQL_NOPOS, "sink error: the first");
    rsql_error_set(&e2, RSQL_ERR_NOMEM, RSQL_NOPOS, "a later one");
    rsql_pipeline__fail(p, &e1, true);
    rsql_pipeline__fail(p, &e2, false);
    CU_ASSERT_EQUAL(p->err.code, RSQL_ERR_IO);
    CU_ASSERT_STRING_EQUAL(p->err.msg, "sink error: the first");
    CU_ASSERT(atomic_load(&p->abort_sink));
    rsql_pipeline_destroy(p);
}

static CU_TestInfo pipeline_tests[] = {
    {"test_runtime_all_written_sync", test_pipeline_all_written_sync},
    {"test_runtime_all_written_on_flush", test_pipeline_all_written_on_flush},
    {"test_runtime_all_written_delivery_thread", test_pipeline_all_written_delivery_thread},
    {"test_runtime_eval_failure_none", test_pipeline_eval_failure_tolerance_none},
    {"test_runtime_tolerance_all_dlq", test_pipeline_tolerance_all_dead_letters},
    {"test_runtime_dlq_row_json", test_pipeline_dlq_row_as_json},
    {"test_runtime_dlq_transient_retried", test_pipeline_dlq_transient_retried},
    {"test_runtime_dlq_slow_write", test_pipeline_dlq_slow_write},
    {"test_runtime_dlq_flush_before_backoff", test_pipeline_dlq_flush_before_backoff},
    {"test_runtime_dlq_flush_fails_at_end", test_pipeline_dlq_flush_fails_at_end},
    {"test_runtime_flush_not_finished_waits", test_pipeline_flush_not_finished_waits},
    {"test_runtime_flush_failed_fails", test_pipeline_flush_failed_fails},
    {"test_runtime_tolerance_all_no_dlq", test_pipeline_tolerance_all_without_dlq_counts},
    {"test_runtime_sink_failure_none", test_pipeline_sink_failure_tolerance_none},
    {"test_runtime_sink_failure_all", test_pipeline_sink_failure_tolerance_all},
    {"test_runtime_sink_retries", test_pipeline_sink_retries},
    {"test_runtime_retry_timeout_fails", test_pipeline_retry_timeout_fails},
    {"test_runtime_retry_timeout_total", test_pipeline_retry_timeout_total},
    {"test_runtime_resume_positions", test_pipeline_resume_positions},
    {"test_runtime_resume_many_positions", test_pipeline_resume_many_positions},
    {"test_runtime_resume_keyed_positions", test_pipeline_resume_keyed_positions},
    {"test_runtime_stored_positions_transient", test_pipeline_stored_positions_transient},
    {"test_runtime_stored_positions_permanent", test_pipeline_stored_positions_permanent},
    {"test_runtime_preview_commits_nothing", test_pipeline_preview_commits_nothing},
    {"test_runtime_summary_line", test_pipeline_summary_line},
    {"test_runtime_summary_idle", test_pipeline_summary_idle},
    {"test_runtime_sigint_drains", test_pipeline_sigint_drains_and_commits},
    {"test_runtime_second_signal", test_pipeline_second_signal_exits_at_once},
    {"test_runtime_second_signal_log", test_pipeline_second_signal_writes_the_log},
    {"test_runtime_first_failure_kept", test_pipeline_first_failure_kept},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"runtime_pipeline", NULL, suite_clean, NULL, NULL, pipeline_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
