/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of what the runtime does for bounded reads that must tell the truth,
 * over an in-memory catalog and a fake source: a run records what its source may
 * leave invisible to the next one (rt_hold.c), a run after an interrupted or failed one of the
 * same hold key gets that run's hold-until time as not_before_ms, and the summary line says
 * what the source leaves behind (its leftover hook).
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "engine/rsql_pipeline.h"
#include "catalog/rsql_catalog.h"
#include "connectors/rsql_conn_io.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#define KEY "consumer group g of topic t at 127.0.0.1:8081"

/* ---- a bounded fake source with nothing to read: it notes what open was given */

static struct {
    int64_t not_before_ms;
    int opened;
    bool fail_open;
    const char *leftover;
} g_fake;
static int g_dummy;

static rsql_err_t fk_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    g_fake.not_before_ms = ctx->not_before_ms;
    g_fake.opened++;
    if (g_fake.fail_open) {
        return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS, "proxy unreachable");
    }
    *out = (rsql_source_t *)&g_dummy;
    return RSQL_OK;
}

static rsql_err_t fk_poll(rsql_source_t *s, rsql_batch_t *b, int max, int timeout_ms, bool *eof,
                          rsql_error_t *err)
{
    (void)s;
    (void)b;
    (void)max;
    (void)timeout_ms;
    (void)err;
    *eof = true;
    return RSQL_OK;
}

static size_t fk_leftover(rsql_source_t *s, char *buf, size_t size)
{
    (void)s;
    if (!g_fake.leftover) {
        return 0;
    }
    snprintf(buf, size, "%s", g_fake.leftover);
    return strlen(buf);
}

static void fk_close(rsql_source_t *s)
{
    (void)s;
}

static const rsql_source_ops_t fake_ops = {
    .open = fk_open, .poll = fk_poll, .close = fk_close, .leftover = fk_leftover};

static rsql_err_t xf(void *opaque, rsql_batch_t *batch, rsql_record_t *rec, int k,
                     const rsql_value_t **out, bool *keep, const char **stage, rsql_error_t *err)
{
    (void)k;
    (void)opaque;
    (void)batch;
    (void)stage;
    (void)err;
    *out = rec->row;
    *keep = true;
    return RSQL_OK;
}

static rsql_catalog_t *g_cat;

/* Run one bounded pipeline of job1 with the hold key (NULL: none); its result. */
static rsql_err_t run_job_rc(const char *key, FILE *status_out)
{
    rsql_pipeline_conf_t c;
    rsql_pipeline_conf_init(&c);
    c.id = "job1";
    c.src_ops = &fake_ops;
    c.snk_ops = &rsql_blackhole_sink_ops;
    c.transform = xf;
    c.cat = g_cat;
    c.record_run = true;
    c.job = "job1";
    c.sql = "INSERT INTO out SELECT * FROM src";
    c.hold_key = key;
    c.hold_ms = key ? 60000 : 0;
    c.source_bounded = true;
    c.status_out = status_out;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_pipeline_t *p = rsql_pipeline_new(&c, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    rsql_err_t rc = rsql_pipeline_run(p, &err);
    rsql_pipeline_destroy(p);
    return rc;
}

static void run_job(const char *key, FILE *status_out)
{
    CU_ASSERT_EQUAL(run_job_rc(key, status_out), RSQL_OK);
}

/* A run of KEY that ended with status, holding until until_ms; its id. */
static int64_t fake_run(const char *key, const char *status, int64_t until_ms)
{
    int64_t id = 0;
    CU_ASSERT_EQUAL_FATAL(rsql_catalog_run_begin(g_cat, "job1", "INSERT ...", &id, NULL),
                          RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold(g_cat, id, key, until_ms, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_catalog_run_end(g_cat, id, status, NULL, NULL, NULL, NULL), RSQL_OK);
    return id;
}

static void test_rt_not_before_rule(void)
{
    int64_t now = 1000000;
    CU_ASSERT_EQUAL(rsql_pipeline__not_before("interrupted", now + 5, now), now + 5);
    CU_ASSERT_EQUAL(rsql_pipeline__not_before("failed", now + 5, now), now + 5);
    CU_ASSERT_EQUAL(rsql_pipeline__not_before("done", now + 5, now), 0); /* resolved all */
    CU_ASSERT_EQUAL(rsql_pipeline__not_before("interrupted", now, now), 0); /* visible now */
    CU_ASSERT_EQUAL(rsql_pipeline__not_before("interrupted", 0, now), 0);
    CU_ASSERT_EQUAL(rsql_pipeline__not_before(NULL, now + 5, now), 0);
}

static void test_rt_run_after_interrupted_run(void)
{
    g_cat = rsql_catalog_open(":memory:", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g_cat);
    memset(&g_fake, 0, sizeof g_fake);

    /* the first run: nothing before it; it records its hold (now + 60 s at its end) */
    int64_t t0 = rsql_wall_ms();
    run_job(KEY, NULL);
    CU_ASSERT_EQUAL(g_fake.opened, 1);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, 0);
    bool found = false;
    int64_t id = 0, until = 0;
    char *st = NULL;
    CU_ASSERT_EQUAL(rsql_catalog_run_hold_last(g_cat, KEY, 0, &found, &id, &st, &until, NULL),
                    RSQL_OK);
    CU_ASSERT_TRUE_FATAL(found);
    CU_ASSERT_STRING_EQUAL(st, "done");
    CU_ASSERT(until >= t0 + 60000 && until <= rsql_wall_ms() + 60000);
    rsql_free(st);

    /* after a run that was interrupted (killed, say) while its messages were invisible for
       another 45 s: the next run must not end before then */
    int64_t hold = rsql_wall_ms() + 45000;
    fake_run(KEY, "interrupted", hold);
    run_job(KEY, NULL);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, hold);
    /* ... nor after a failed one; but a run of another consumer group does not count */
    hold = rsql_wall_ms() + 30000;
    fake_run(KEY, "failed", hold);
    fake_run("another group", "interrupted", hold + 99999);
    run_job(KEY, NULL);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, hold);
    /* the run before is done now: nothing to wait for */
    run_job(KEY, NULL);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, 0);
    /* an interrupted run whose messages are visible again already */
    fake_run(KEY, "interrupted", rsql_wall_ms() - 1);
    run_job(KEY, NULL);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, 0);
    /* a source without a hold key is never held back */
    fake_run(KEY, "interrupted", rsql_wall_ms() + 45000);
    run_job(NULL, NULL);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, 0);
    /* a run that failed before its source was open (proxy down) took nothing: it holds
       nothing back, though it failed */
    run_job(KEY, NULL);
    g_fake.fail_open = true;
    CU_ASSERT_EQUAL(run_job_rc(KEY, NULL), RSQL_ERR_UNAVAILABLE);
    g_fake.fail_open = false;
    run_job(KEY, NULL);
    CU_ASSERT_EQUAL(g_fake.not_before_ms, 0);
    CU_ASSERT_EQUAL(rsql_catalog_run_hold_last(g_cat, KEY, 0, &found, &id, &st, &until, NULL),
                    RSQL_OK);
    CU_ASSERT_STRING_EQUAL(st, "done");
    rsql_free(st);
    rsql_catalog_close(g_cat);
    g_cat = NULL;
}

static void test_rt_summary_says_what_is_left(void)
{
    g_cat = rsql_catalog_open(":memory:", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g_cat);
    memset(&g_fake, 0, sizeof g_fake);
    g_fake.leftover = "rocketmq: left 2 held messages, invisible for up to 58s";
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    run_job(KEY, f);
    char line[512] = "";
    rewind(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(line, " rows/s; rocketmq: left 2 held messages, invisible for up to 58s\n"));
    CU_ASSERT_EQUAL(strncmp(line, "read=0 written=0", 16), 0);
    /* nothing left: the summary as before */
    g_fake.leftover = NULL;
    f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    run_job(KEY, f);
    rewind(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    size_t len = strlen(line);
    CU_ASSERT(len > 8 && strcmp(line + len - 8, " rows/s\n") == 0);
    rsql_catalog_close(g_cat);
    g_cat = NULL;
}

static CU_TestInfo bounded_tests[] = {
    {"rt_not_before_rule", test_rt_not_before_rule},
    {"rt_run_after_interrupted_run", test_rt_run_after_interrupted_run},
    {"rt_summary_says_what_is_left", test_rt_summary_says_what_is_left},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"runtime_bounded", NULL, NULL, NULL, NULL, bounded_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
