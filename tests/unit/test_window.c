/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * test_window: the window stage (engine/rt_window.c) fed records by hand, on two lanes (two
 * partitions of a source), for what a file cannot show: the statement's watermark is the least
 * of its lanes', a lane that gave no row for table.exec.source.idle-timeout stops holding it
 * back (and holds it again with its next row), and without the setting a quiet lane holds it
 * for good. Each record's rows are the windows it gave: [window_start, window_end, COUNT(*)].
 * A late row is counted; under table.exec.late-rows = dead-letter its record is also marked
 * RSQL_REC_LATE and the call, succeeding, says why (its window and the watermark). SESSIONs
 * that merge merge their DISTINCT calls' values.
 */
#include "config.h"
#include "engine/rt_window.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <CUnit/CUnit.h>

#include "base/rsql_settings.h"
#include "catalog/rsql_catalog.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_catalog.h"

static rsql_catalog_t *cat;

static int suite_init(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    cat = rsql_catalog_open(":memory:", &err);
    return cat &&
                   cu_catalog_create(cat, "CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK "
                                          "FOR ts AS ts - INTERVAL '1' SECOND) WITH "
                                          "('connector'='datagen', 'number-of-rows'='1')") == 0 &&
                   cu_catalog_create(cat, "CREATE TABLE slow (k STRING, ts TIMESTAMP(3), v INT, "
                                          "WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE) WITH "
                                          "('connector'='datagen', 'number-of-rows'='1')") == 0
               ? 0
               : -1;
}

static int suite_clean(void)
{
    rsql_catalog_close(cat);
    return 0;
}

/* The plan of a TUMBLE of 10 s over ev, with idle (table.exec.source.idle-timeout) or none. */
static rsql_plan_t *plan_of(const char *idle)
{
    static const char sql[] = "SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE("
                              "TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY "
                              "window_start, window_end";
    rsql_settings_t *s = rsql_settings_new();
    rsql_error_t err;
    rsql_error_clear(&err);
    if (idle) {
        rsql_settings_set(s, "table.exec.source.idle-timeout", idle, RSQL_NOPOS, RSQL_NOPOS,
                          &err);
    }
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_plan_t *plan = NULL;
    if (rsql_parse_next(p, &st, &err) == RSQL_OK && st) {
        plan = rsql_plan_build(cat, st, sql, s, &err);
    }
    if (!plan) {
        fprintf(stderr, "plan: %s\n", err.msg);
    }
    rsql_parse_destroy(p);
    rsql_settings_destroy(s);
    return plan;
}

typedef struct feed {
    rt_window_t *g;
    rsql_batch_t *batch;
    rsql_eval_ctx_t ctx;
    int64_t offset;
} feed_t;

/* A row of lane at ts_ms (seconds into the day: k "x"): the windows it gave, as
   "start-end:count" (seconds) joined by spaces, into out. */
static rsql_record_t *give_why(feed_t *f, uint32_t lane, int64_t ts_ms, char *out, size_t size,
                                rsql_error_t *why)
{
    rsql_record_t *rec = rsql_batch_add(f->batch);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
    rsql_value_t *row = rsql_arena_alloc(f->batch->arena, 2 * sizeof *row);
    row[0] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"x", 1}};
    row[1] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = ts_ms};
    rec->row = row;
    rec->partition = lane;
    rec->offset = ++f->offset;
    /* each row as if it came in a batch of its own (the window reads the clocks once a batch,
       by its first record's seq): the sleeps below are between batches */
    rec->seq = (uint64_t)f->offset;
    f->batch->recs[0].seq = rec->seq;
    const rsql_value_t *in = row;
    bool keep = true;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_rt_window_record(f->g, f->batch, rec, &f->ctx, &in, &keep, &err),
                    RSQL_OK);
    out[0] = '\0';
    size_t n = 0;
    for (int i = 0; keep && i < rec->n_rows && n < size; i++) {
        const rsql_value_t *r = rec->rows[i];
        n += (size_t)snprintf(out + n, size - n, "%s%lld-%lld:%lld", i ? " " : "",
                              (long long)(r[0].v.ts / 1000), (long long)(r[1].v.ts / 1000),
                              (long long)r[2].v.i);
    }
    if (why) {
        *why = err;
    }
    return rec;
}

static void give(feed_t *f, uint32_t lane, int64_t ts_ms, char *out, size_t size)
{
    give_why(f, lane, ts_ms, out, size, NULL);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void test_window_lanes(void)
{
    for (int idle = 0; idle < 2; idle++) {
        rsql_plan_t *plan = plan_of(idle ? "100ms" : NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
        feed_t f = {0};
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(rsql_rt_window_open(plan, NULL, "test", &f.g, &err), RSQL_OK);
        f.batch = rsql_batch_new(64);
        rsql_eval_ctx_init(&f.ctx);
        char got[256];
        give(&f, 0, 1000, got, sizeof got);  /* lane 0 at 1 s */
        give(&f, 1, 2000, got, sizeof got);  /* lane 1 at 2 s: its watermark 1 s */
        give(&f, 0, 15000, got, sizeof got); /* lane 0 at 15 s: 14 s; lane 1 holds 1 s */
        CU_ASSERT_STRING_EQUAL(got, "");
        give(&f, 0, 16000, got, sizeof got);
        CU_ASSERT_STRING_EQUAL(got, "");
        sleep_ms(250); /* lane 1 quiet past the idle timeout (lane 0's next row wakes it) */
        give(&f, 0, 17000, got, sizeof got);
        if (idle) { /* lane 1 no longer holds it: [0, 10) is given, with its 2 rows */
            CU_ASSERT_STRING_EQUAL(got, "0-10:2");
        } else { /* a quiet lane holds the watermark for good */
            CU_ASSERT_STRING_EQUAL(got, "");
        }
        give(&f, 1, 18000, got, sizeof got); /* lane 1 again (17 s): the least is lane 0s 16 */
        CU_ASSERT_STRING_EQUAL(got, idle ? "" : "0-10:2");
        give(&f, 1, 31000, got, sizeof got); /* lane 1 ahead: lane 0 (16 s) holds it back */
        CU_ASSERT_STRING_EQUAL(got, "");
        give(&f, 0, 25000, got, sizeof got); /* both past 20 s: [10, 20) given */
        CU_ASSERT_STRING_EQUAL(got, "10-20:4");
        char desc[512];
        rsql_rt_window_describe(f.g, desc, sizeof desc);
        CU_ASSERT_PTR_NOT_NULL(strstr(desc, "0 late rows dropped"));
        rsql_eval_ctx_deinit(&f.ctx);
        rsql_batch_destroy(f.batch);
        rsql_rt_window_close(f.g);
        rsql_plan_destroy(plan);
    }
}

/* The source's lanes (rsql_rt_window_lanes): one that gave no row yet holds the watermark
   back until its first row (a partition read later than the others must not find its windows
   given), or, with table.exec.source.idle-timeout, until it was quiet that long. */
static void test_window_known_lanes(void)
{
    for (int idle = 0; idle < 2; idle++) {
        rsql_plan_t *plan = plan_of(idle ? "100ms" : NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
        feed_t f = {0};
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(rsql_rt_window_open(plan, NULL, "test", &f.g, &err), RSQL_OK);
        f.batch = rsql_batch_new(64);
        rsql_eval_ctx_init(&f.ctx);
        CU_ASSERT_EQUAL(rsql_rt_window_lanes(f.g, 3), RSQL_OK); /* lanes 0, 1, 2: no row yet */
        char got[256];
        give(&f, 0, 1000, got, sizeof got);
        give(&f, 1, 2000, got, sizeof got);
        give(&f, 0, 15000, got, sizeof got);
        CU_ASSERT_STRING_EQUAL(got, ""); /* lane 2 has no watermark: the statement none */
        give(&f, 1, 16000, got, sizeof got);
        CU_ASSERT_STRING_EQUAL(got, "");
        CU_ASSERT_EQUAL(rsql_rt_window_lanes(f.g, 2), RSQL_OK); /* lanes only join */
        if (idle) {
            sleep_ms(250); /* lanes 1 and 2 quiet past the idle timeout */
            give(&f, 0, 17000, got, sizeof got); /* lane 0 alone: 16 s */
            CU_ASSERT_STRING_EQUAL(got, "0-10:2");
        } else {
            give(&f, 0, 17000, got, sizeof got);
            CU_ASSERT_STRING_EQUAL(got, "");
            give(&f, 2, 5000, got, sizeof got); /* lane 2's first row: not late, [0, 10) open */
            CU_ASSERT_STRING_EQUAL(got, "");
            give(&f, 2, 18000, got, sizeof got); /* the least now lane 1's 15 s */
            CU_ASSERT_STRING_EQUAL(got, "0-10:3");
        }
        CU_ASSERT_EQUAL(rsql_rt_window_late(f.g), 0);
        rsql_eval_ctx_deinit(&f.ctx);
        rsql_batch_destroy(f.batch);
        rsql_rt_window_close(f.g);
        rsql_plan_destroy(plan);
    }
}

/* A row for a window given already is late: counted; dead-lettered (its record marked, the
   reason given) only under table.exec.late-rows = dead-letter. */
static void test_window_late(void)
{
    for (int dl = 0; dl < 2; dl++) {
        rsql_plan_t *plan = plan_of(NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
        plan->window->late_dead_letter = dl; /* as the planner sets it for an INSERT */
        feed_t f = {0};
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(rsql_rt_window_open(plan, NULL, "test", &f.g, &err), RSQL_OK);
        f.batch = rsql_batch_new(64);
        rsql_eval_ctx_init(&f.ctx);
        char got[256];
        rsql_error_t why;
        rsql_record_t *rec = give_why(&f, 0, 1000, got, sizeof got, &why);
        CU_ASSERT_EQUAL(rec->flags & RSQL_REC_LATE, 0);
        CU_ASSERT_EQUAL(why.code, RSQL_OK);
        give(&f, 0, 25000, got, sizeof got); /* watermark 24 s: [0, 10) given */
        CU_ASSERT_STRING_EQUAL(got, "0-10:1");
        rec = give_why(&f, 0, 5000, got, sizeof got, &why); /* late for [0, 10) */
        CU_ASSERT_STRING_EQUAL(got, "");
        CU_ASSERT_EQUAL(rsql_rt_window_late(f.g), 1);
        if (dl) {
            CU_ASSERT_NOT_EQUAL(rec->flags & RSQL_REC_LATE, 0);
            CU_ASSERT_STRING_EQUAL(why.msg, "late row (ts 1970-01-01 00:00:05.000): its window "
                                            "[1970-01-01 00:00:00.000, 1970-01-01 "
                                            "00:00:10.000) was given already; the watermark is "
                                            "1970-01-01 00:00:24.000 (ts - INTERVAL '1' "
                                            "SECOND)");
        } else {
            CU_ASSERT_EQUAL(rec->flags & RSQL_REC_LATE, 0);
            CU_ASSERT_EQUAL(why.code, RSQL_OK);
        }
        rec = give_why(&f, 0, 22000, got, sizeof got, &why); /* [20, 30) still open */
        CU_ASSERT_EQUAL(rec->flags & RSQL_REC_LATE, 0);
        CU_ASSERT_EQUAL(why.code, RSQL_OK);
        char desc[512];
        rsql_rt_window_describe(f.g, desc, sizeof desc);
        CU_ASSERT_PTR_NOT_NULL(strstr(desc, dl ? "1 late rows dropped and dead-lettered"
                                               : "1 late rows dropped,"));
        rsql_eval_ctx_deinit(&f.ctx);
        rsql_batch_destroy(f.batch);
        rsql_rt_window_close(f.g);
        rsql_plan_destroy(plan);
    }
}

/* Row (k "x", ts_ms, v) of slow into the window stage: the results it gave, as
   "start-end:COUNT(*),COUNT(DISTINCT v),SUM(DISTINCT v)" (seconds) joined by spaces. */
static void give_v(feed_t *f, int64_t ts_ms, int32_t v, char *out, size_t size)
{
    rsql_record_t *rec = rsql_batch_add(f->batch);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
    rsql_value_t *row = rsql_arena_alloc(f->batch->arena, 3 * sizeof *row);
    row[0] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"x", 1}};
    row[1] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = ts_ms};
    row[2] = (rsql_value_t){.type = RSQL_TYPE_INT, .v.i = v};
    rec->row = row;
    rec->offset = ++f->offset;
    const rsql_value_t *in = row;
    bool keep = true;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_rt_window_record(f->g, f->batch, rec, &f->ctx, &in, &keep, &err),
                    RSQL_OK);
    out[0] = '\0';
    size_t n = 0;
    for (int i = 0; keep && i < rec->n_rows && n < size; i++) {
        const rsql_value_t *r = rec->rows[i];
        n += (size_t)snprintf(out + n, size - n, "%s%lld-%lld:%lld,%lld,%lld", i ? " " : "",
                              (long long)(r[0].v.ts / 1000), (long long)(r[1].v.ts / 1000),
                              (long long)r[2].v.i, (long long)r[3].v.i, (long long)r[4].v.i);
    }
}

/* SESSION with DISTINCT calls: sessions that merge merge the values each took, a value two of
   them took counting once (the accumulators alone would count it twice). */
static void test_window_session_distinct(void)
{
    static const char sql[] = "SELECT window_start, window_end, COUNT(*), COUNT(DISTINCT v), "
                              "SUM(DISTINCT v) FROM TABLE(SESSION(TABLE slow, DESCRIPTOR(ts), "
                              "INTERVAL '10' SECOND)) GROUP BY window_start, window_end";
    rsql_settings_t *s = rsql_settings_new();
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_stmt_t *st = NULL;
    rsql_plan_t *plan = NULL;
    if (rsql_parse_next(p, &st, &err) == RSQL_OK && st) {
        plan = rsql_plan_build(cat, st, sql, s, &err);
    }
    if (!plan) {
        fprintf(stderr, "plan: %s\n", err.msg);
    }
    rsql_parse_destroy(p);
    rsql_settings_destroy(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    feed_t f = {0};
    CU_ASSERT_EQUAL_FATAL(rsql_rt_window_open(plan, NULL, "test", &f.g, &err), RSQL_OK);
    f.batch = rsql_batch_new(64);
    rsql_eval_ctx_init(&f.ctx);
    char got[256];
    give_v(&f, 0, 1, got, sizeof got);      /* A [0, 10): {1} */
    give_v(&f, 25000, 1, got, sizeof got);  /* B [25, 35): {1} */
    give_v(&f, 26000, 2, got, sizeof got);  /* B [25, 36): {1, 2} */
    give_v(&f, 12000, 1, got, sizeof got);  /* C [12, 22): {1} */
    give_v(&f, 9000, 3, got, sizeof got);   /* A + C + the row: [0, 22), {1, 3} */
    give_v(&f, 20000, 2, got, sizeof got);  /* that + B + the row: [0, 36), {1, 2, 3} */
    CU_ASSERT_STRING_EQUAL(got, "");
    give_v(&f, 200000, 5, got, sizeof got); /* the watermark at 140 s: [0, 36) given */
    CU_ASSERT_STRING_EQUAL(got, "0-36:6,3,6");
    give_v(&f, 300000, 5, got, sizeof got); /* [200, 210): {5} */
    CU_ASSERT_STRING_EQUAL(got, "200-210:1,1,5");
    rsql_eval_ctx_deinit(&f.ctx);
    rsql_batch_destroy(f.batch);
    rsql_rt_window_close(f.g);
    rsql_plan_destroy(plan);
}

static CU_TestInfo window_tests[] = {
    {"test_window_lanes", test_window_lanes},
    {"test_window_known_lanes", test_window_known_lanes},
    {"test_window_late", test_window_late},
    {"test_window_session_distinct", test_window_session_distinct},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"window", suite_init, suite_clean, NULL, NULL, window_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
