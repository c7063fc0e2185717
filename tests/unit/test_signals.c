/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The process, not a pipeline, owns SIGINT/SIGTERM (engine/rt_signal.c): several pipelines
 * run at once in one process, each registered for the signals (it used to be refused:
 * "another pipeline already handles the signals"); one SIGINT drains and interrupts every
 * one of them, and the previous disposition is back once the last has ended. Also the
 * published stats of a supervised run (rsql_pipeline_stats_t): its counts, and a stop that
 * drains it; a deduplication's state (its gauges of the run, its counters over runs).
 */
#include "config.h"
#include "catalog/rsql_catalog.h"
#include "tests/lib/cu_state.h"
#include "engine/rsql_pipeline.h"
#include "session/rsql_session.h"
#include "base/rsql_time.h"

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_PIPES 3
#define WAIT_MS 20000

static char cat_path[256];

typedef struct runner {
    int idx;
    int status;
} runner_t;

static void *run_insert(void *arg)
{
    runner_t *r = arg;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(cat_path, &err);
    if (!s) {
        r->status = 99;
        return NULL;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO bh SELECT a FROM gen%d", r->idx);
    FILE *devnull = fopen("/dev/null", "w");
    r->status = rsql_session_run_script(s, sql, RSQL_PRINT_TSV, devnull, devnull);
    fclose(devnull);
    rsql_session_destroy(s);
    return NULL;
}

static bool sigint_handled(void)
{
    struct sigaction sa;
    sigaction(SIGINT, NULL, &sa);
    return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

/* Runs in state "running" that have read something (every pipeline is past its start). */
static int runs_reading(rsql_catalog_t *cat)
{
    rsql_job_run_t **runs = NULL;
    int n = 0, reading = 0;
    if (rsql_catalog_run_list(cat, NULL, 0, &runs, &n, NULL) != RSQL_OK) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        reading += strcmp(runs[i]->status, "running") == 0 && runs[i]->counts.read > 0;
    }
    rsql_job_run_array_free(runs, n);
    return reading;
}

static void setup_catalog(void)
{
    snprintf(cat_path, sizeof cat_path, "/tmp/rsql-signals-%d.db", (int)getpid());
    unlink(cat_path);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(cat_path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    FILE *devnull = fopen("/dev/null", "w");
    CU_ASSERT_EQUAL(rsql_session_run_script(
                        s,
                        "SET 'state.flush-interval' = '20ms';"
                        "CREATE TABLE gen0 (a INT) WITH ('connector'='datagen', "
                        "'rows-per-second'='500');"
                        "CREATE TABLE gen1 (a INT) WITH ('connector'='datagen', "
                        "'rows-per-second'='500');"
                        "CREATE TABLE gen2 (a INT) WITH ('connector'='datagen', "
                        "'rows-per-second'='500');"
                        "CREATE TABLE bh (a INT) WITH ('connector'='blackhole');",
                        RSQL_PRINT_TSV, devnull, devnull),
                    0);
    fclose(devnull);
    rsql_session_destroy(s);
}

static void test_signals_several_pipelines_one_sigint(void)
{
    setup_catalog();
    CU_ASSERT_FALSE_FATAL(sigint_handled());
    rsql_catalog_t *cat = rsql_catalog_open(cat_path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    runner_t r[N_PIPES];
    pthread_t th[N_PIPES];
    for (int i = 0; i < N_PIPES; i++) {
        r[i].idx = i;
        r[i].status = -1;
        pthread_create(&th[i], NULL, run_insert, &r[i]);
    }
    /* the event: every pipeline has begun its run and read rows (so it holds the signals) */
    int64_t deadline = rsql_deadline_in(WAIT_MS);
    while (runs_reading(cat) < N_PIPES && !rsql_deadline_passed(deadline)) {
        usleep(10000);
    }
    CU_ASSERT_EQUAL(runs_reading(cat), N_PIPES);
    if (sigint_handled()) {
        kill(getpid(), SIGINT);
    } else {
        CU_FAIL("no SIGINT handler while the pipelines run");
        _exit(1); /* cannot stop them otherwise */
    }
    for (int i = 0; i < N_PIPES; i++) {
        pthread_join(th[i], NULL);
        CU_ASSERT_EQUAL(r[i].status, 128 + SIGINT); /* interrupted cleanly, not refused */
    }
    rsql_job_run_t **runs = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(rsql_catalog_run_list(cat, NULL, 0, &runs, &n, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(n, N_PIPES);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_STRING_EQUAL(runs[i]->status, "interrupted");
        CU_ASSERT(runs[i]->counts.read > 0);
        CU_ASSERT_EQUAL(runs[i]->counts.read, runs[i]->counts.written);
    }
    rsql_job_run_array_free(runs, n);
    CU_ASSERT_FALSE(sigint_handled()); /* the last one out restored the disposition */
    rsql_catalog_close(cat);
}

/* A supervised job run: counts published while it runs; stats_stop drains it. */
typedef struct served {
    rsql_pipeline_stats_t *st;
    rsql_err_t rc;
    bool started;
} served_t;

static void *serve_one(void *arg)
{
    served_t *sv = arg;
    rsql_session_t *s = rsql_session_new(cat_path, NULL);
    rsql_error_t err;
    rsql_error_clear(&err);
    sv->rc = s ? rsql_session_serve_job(s, "j", sv->st, &sv->started, &err) : RSQL_ERR_INTERNAL;
    rsql_session_destroy(s);
    return NULL;
}

static void test_signals_stats_and_stop(void)
{
    setup_catalog();
    rsql_session_t *s = rsql_session_new(cat_path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    FILE *devnull = fopen("/dev/null", "w");
    CU_ASSERT_EQUAL(rsql_session_run_script(s, "CREATE JOB j AS INSERT INTO bh SELECT a FROM gen0",
                                            RSQL_PRINT_TSV, devnull, devnull),
                    0);
    fclose(devnull);
    rsql_session_destroy(s);
    rsql_pipeline_stats_t st;
    rsql_pipeline_stats_init(&st);
    served_t sv = {&st, RSQL_ERR_INTERNAL, false};
    pthread_t th;
    pthread_create(&th, NULL, serve_one, &sv);
    int64_t deadline = rsql_deadline_in(WAIT_MS);
    while (atomic_load(&st.written) < 50 && !rsql_deadline_passed(deadline)) {
        usleep(10000);
    }
    CU_ASSERT(atomic_load(&st.written) >= 50);
    CU_ASSERT(atomic_load(&st.open));
    CU_ASSERT(atomic_load(&st.run_id) > 0);
    CU_ASSERT_FALSE(sigint_handled()); /* a supervised run leaves the signals alone */
    rsql_pipeline_stats_stop(&st);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(sv.rc, RSQL_OK);
    CU_ASSERT_TRUE(sv.started);
    CU_ASSERT_FALSE(atomic_load(&st.open));
    rsql_catalog_t *cat = rsql_catalog_open(cat_path, NULL);
    rsql_job_run_t *run = NULL;
    CU_ASSERT_EQUAL(cu_run_get(cat, atomic_load(&st.run_id), &run, NULL), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_STRING_EQUAL(run->status, "interrupted");
    CU_ASSERT_EQUAL(run->counts.written, atomic_load(&st.written)); /* the final counts */
    rsql_job_run_free(run);
    rsql_catalog_close(cat);
    rsql_pipeline_stats_deinit(&st);
}

/* Run catalog job name to its end, supervised with st, as rocketsql serve does (its stats reset
   after the run). */
static void serve_to_end(const char *name, rsql_pipeline_stats_t *st)
{
    rsql_session_t *s = rsql_session_new(cat_path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rsql_error_t err;
    rsql_error_clear(&err);
    bool started = false;
    CU_ASSERT_EQUAL(rsql_session_serve_job(s, name, st, &started, &err), RSQL_OK);
    CU_ASSERT_TRUE(started);
    rsql_session_destroy(s);
}

static void run_sql(const char *sql)
{
    rsql_session_t *s = rsql_session_new(cat_path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    FILE *devnull = fopen("/dev/null", "w");
    CU_ASSERT_EQUAL(rsql_session_run_script(s, sql, RSQL_PRINT_TSV, devnull, devnull), 0);
    fclose(devnull);
    rsql_session_destroy(s);
}

static void test_signals_state_stats(void)
{
    setup_catalog();
    run_sql("CREATE TABLE g (a INT, pt AS PROCTIME()) WITH ('connector'='datagen', "
            "'number-of-rows'='1000', 'rows-per-second'='0', 'fields.a.kind'='sequence');"
            "CREATE JOB jd AS INSERT INTO bh SELECT a FROM (SELECT *, ROW_NUMBER() OVER "
            "(PARTITION BY a % 10 ORDER BY pt) AS rn FROM g) WHERE rn = 1;"
            "CREATE JOB js AS INSERT INTO bh SELECT a FROM g");
    rsql_pipeline_stats_t st, plain;
    rsql_pipeline_stats_init(&st);
    rsql_pipeline_stats_init(&plain);
    serve_to_end("js", &plain);
    CU_ASSERT_EQUAL(atomic_load(&plain.written), 1000);
    CU_ASSERT_FALSE(atomic_load(&plain.has_state)); /* no state: no state series */
    CU_ASSERT_EQUAL(atomic_load(&plain.state_checkpoint.count), 0);

    serve_to_end("jd", &st);
    CU_ASSERT_EQUAL(atomic_load(&st.written), 10);
    CU_ASSERT_TRUE(atomic_load(&st.has_state));
    CU_ASSERT_EQUAL(atomic_load(&st.state_keys), 10); /* published at the end of the run */
    CU_ASSERT(atomic_load(&st.state_bytes) > 0);
    CU_ASSERT_EQUAL(atomic_load(&st.state_pending), 0); /* all saved */
    CU_ASSERT_EQUAL(atomic_load(&st.state_reads), 0);
    CU_ASSERT_EQUAL(atomic_load(&st.state_evictions), 0);
    int64_t c1 = atomic_load(&st.state_checkpoints);
    CU_ASSERT(c1 >= 1);
    CU_ASSERT_EQUAL(atomic_load(&st.state_checkpoint.count), c1); /* one duration each */

    /* the next run starts over: its gauges are its own, the counters add up */
    rsql_pipeline_stats_reset(&st, false);
    CU_ASSERT_EQUAL(atomic_load(&st.state_keys), 0);
    CU_ASSERT_EQUAL(atomic_load(&st.state_checkpoints), c1);
    CU_ASSERT_TRUE(atomic_load(&st.has_state));
    run_sql("RESET POSITIONS jd");
    serve_to_end("jd", &st);
    CU_ASSERT_EQUAL(atomic_load(&st.written), 10);
    CU_ASSERT_EQUAL(atomic_load(&st.state_keys), 10);
    int64_t c2 = atomic_load(&st.state_checkpoints);
    CU_ASSERT(c2 > c1);
    CU_ASSERT_EQUAL(atomic_load(&st.state_checkpoint.count), c2);
    rsql_pipeline_stats_deinit(&st);
    rsql_pipeline_stats_deinit(&plain);
}

static int suite_clean(void)
{
    unlink(cat_path);
    char p[300];
    snprintf(p, sizeof p, "%s-wal", cat_path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", cat_path);
    unlink(p);
    return 0;
}

static CU_TestInfo signal_tests[] = {
    {"test_signals_several_pipelines_one_sigint", test_signals_several_pipelines_one_sigint},
    {"test_signals_stats_and_stop", test_signals_stats_and_stop},
    {"test_signals_state_stats", test_signals_state_stats},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"signals", NULL, suite_clean, NULL, NULL, signal_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
