/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of records that hold several rows, of any kind (a changelog message: a
 * canal-json message of many rows, a debezium-json update as -U and +U), through a whole
 * pipeline over the fakes of tests/lib/cu_pipeline.h: every row reaches the sink with its
 * kind and in order, a record is written once all its kept rows are (one outcome, one
 * commit_record), a record of no row is done as filtered, a record one of whose rows fails
 * in the statement sends none of them, and a record one of whose rows the sink refuses is
 * dead-lettered once. A record a window aggregation found late (RSQL_REC_LATE, under
 * table.exec.late-rows = dead-letter) goes to the dead-letter table with stage late under
 * tolerance none too, its rows written all the same: dead-lettered when it has none, else
 * written once its rows and its dead letter are; a dead letter that cannot be written fails it
 * and the run, its position never passed.
 *
 * The transform here stands for a changelog decoder: record v holds
 *   v % 4 == 0: three rows, 10v (-U), 10v + 1 (+U), 10v + 2 (+I);
 *   v % 4 == 1: no row (a tombstone);
 *   otherwise:  one row, 10v (-D).
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "engine/rsql_pipeline.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/cu_pipeline.h"

/* eval error at row k of record v when v == rows_fail_v and k == rows_fail_k */
static int64_t rows_fail_v = -1;
static int rows_fail_k = -1;
/* > 0: record v is late when v % rows_late_mod == 0 (as a window aggregation marks it) */
static int64_t rows_late_mod;

static rsql_err_t rows_xf(void *opaque, rsql_batch_t *b, rsql_record_t *rec, int k,
                          const rsql_value_t **out, bool *keep, const char **stage,
                          rsql_error_t *err)
{
    (void)opaque;
    int64_t v = (intptr_t)rec->opaque;
    if (k == 0) {
        *stage = "decode";
        int n = v % 4 == 0 ? 3 : v % 4 == 1 ? 0 : 1;
        if (rows_late_mod > 0 && v % rows_late_mod == 0) {
            rec->flags |= RSQL_REC_LATE;
            rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "late row %" PRId64, v);
        }
        if (n == 0) {
            rec->n_rows = -1;
            *keep = false;
            return RSQL_OK;
        }
        rec->rows = rsql_arena_alloc(b->arena, (size_t)n * sizeof *rec->rows);
        rec->kinds = rsql_arena_alloc(b->arena, (size_t)n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rec->rows);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rec->kinds);
        static const uint8_t three[] = {RSQL_ROW_UPDATE_BEFORE, RSQL_ROW_UPDATE_AFTER,
                                        RSQL_ROW_INSERT};
        for (int j = 0; j < n; j++) {
            rsql_value_t *x = rsql_arena_alloc(b->arena, sizeof *x);
            CU_ASSERT_PTR_NOT_NULL_FATAL(x);
            *x = (rsql_value_t){.type = RSQL_TYPE_BIGINT, .v.i = v * 10 + j};
            rec->rows[j] = x;
            rec->kinds[j] = n == 3 ? three[j] : RSQL_ROW_DELETE;
        }
        rec->n_rows = n;
        rec->row = rec->rows[0];
        rec->kind = rec->kinds[0];
    }
    *stage = "eval";
    if (v == rows_fail_v && k == rows_fail_k) {
        return rsql_error_set(err, RSQL_ERR_EVAL, RSQL_NOPOS, "1:8: division by zero");
    }
    *keep = true;
    *out = rec->rows[k];
    return RSQL_OK;
}

static void rows_conf(rsql_pipeline_conf_t *c)
{
    conf_base(c);
    c->transform = rows_xf;
    rows_fail_v = -1;
    rows_fail_k = -1;
    rows_late_mod = 0;
}

/* records 0..n-1 of the rule above: how many of each */
static void expect(int64_t n, int64_t *multi, int64_t *none, int64_t *single)
{
    *multi = *none = *single = 0;
    for (int64_t v = 0; v < n; v++) {
        *(v % 4 == 0 ? multi : v % 4 == 1 ? none : single) += 1;
    }
}

static void check_rows_written(int mode)
{
    const int64_t n = 1000;
    harness_reset(n, 3, mode);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(run(&c, &k, &err), RSQL_OK);
    int64_t multi, none, single;
    expect(n, &multi, &none, &single);
    assert_one_outcome_each(n);
    CU_ASSERT_EQUAL(k.read, n);
    CU_ASSERT_EQUAL(k.written, multi + single);
    CU_ASSERT_EQUAL(k.filtered, none);
    counts_add_up(&k);
    /* every row, with its kind, in order per partition */
    CU_ASSERT_EQUAL(out_store.rows, 3 * multi + single);
    CU_ASSERT_EQUAL(out_store.kinds_seen[RSQL_ROW_UPDATE_BEFORE], multi);
    CU_ASSERT_EQUAL(out_store.kinds_seen[RSQL_ROW_UPDATE_AFTER], multi);
    CU_ASSERT_EQUAL(out_store.kinds_seen[RSQL_ROW_INSERT], multi);
    CU_ASSERT_EQUAL(out_store.kinds_seen[RSQL_ROW_DELETE], single);
    CU_ASSERT_EQUAL(out_store.order_violations, 0);
    for (int64_t v = 0; v < n; v++) {
        if (src_store.kinds[v] != (v % 4 == 1 ? RSQL_OUTCOME_FILTERED : RSQL_OUTCOME_WRITTEN)) {
            CU_FAIL("a record's outcome is not the one its rows make");
            break;
        }
    }
    /* positions: every partition complete */
    CU_ASSERT_EQUAL(saved_offset("p0"), (n + 2) / 3);
}

static void test_rows_written_sync(void)
{
    check_rows_written(DELIVER_SYNC);
}

static void test_rows_written_delivery_thread(void)
{
    check_rows_written(DELIVER_THREAD);
}

/* The second row of record 40 fails in the statement: under 'none' the run fails there and
   none of record 40's rows reaches the sink (not even the first, already kept one). */
static void test_rows_eval_failure_sends_none_of_the_record(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    rows_fail_v = 40;
    rows_fail_k = 1;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_NOT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "division by zero"));
    CU_ASSERT_EQUAL(out_store.seen[400], 0);
    CU_ASSERT_EQUAL(out_store.seen[401], 0);
    CU_ASSERT_EQUAL(out_store.seen[402], 0);
    CU_ASSERT_EQUAL(src_store.kinds[40], RSQL_OUTCOME_FAILED);
    CU_ASSERT_EQUAL(src_store.commits[40], 1);
    CU_ASSERT(saved_offset("p0") <= 40); /* never past the failed record */
}

/* Under 'all' the same failure dead-letters record 40 once; the others are written whole. */
static void test_rows_eval_failure_dead_letters_once(void)
{
    harness_reset(100, 1, DELIVER_SYNC);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    with_dlq(&c);
    rows_fail_v = 40;
    rows_fail_k = 2;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(run(&c, &k, &err), RSQL_OK);
    assert_one_outcome_each(100);
    CU_ASSERT_EQUAL(k.dead_lettered, 1);
    CU_ASSERT_EQUAL(dlq_store.dl_total, 1);
    CU_ASSERT_EQUAL(src_store.kinds[40], RSQL_OUTCOME_DEAD_LETTERED);
    CU_ASSERT_EQUAL(out_store.seen[400] + out_store.seen[401] + out_store.seen[402], 0);
    CU_ASSERT_EQUAL(out_store.seen[440] + out_store.seen[441] + out_store.seen[442], 3);
    counts_add_up(&k);
}

/* The sink refuses the middle row of every record of three (10v + 1 with v % 4 == 0, i.e.
   values % 40 == 1): each such record is dead-lettered exactly once, though its other rows
   were written; nothing else is. */
static void test_rows_sink_failure_dead_letters_once(void)
{
    const int64_t n = 400;
    harness_reset(n, 2, DELIVER_THREAD);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    with_dlq(&c);
    out_store.fail_mod = 40;
    out_store.fail_rem = 1;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(run(&c, &k, &err), RSQL_OK);
    int64_t multi, none, single;
    expect(n, &multi, &none, &single);
    assert_one_outcome_each(n);
    CU_ASSERT_EQUAL(k.dead_lettered, multi);
    CU_ASSERT_EQUAL(dlq_store.dl_total, multi);
    CU_ASSERT_EQUAL(k.written, single);
    CU_ASSERT_EQUAL(k.filtered, none);
    counts_add_up(&k);
}

/* Rows past a record's first grow the write batch beyond the records it was made for. */
static void test_rows_grow_the_write_batch(void)
{
    const int64_t n = 4000;
    harness_reset(n, 1, DELIVER_ON_FLUSH);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    c.batch_size = 8; /* 2 records of 3 rows in 8: 12 rows for a batch of 8 */
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(run(&c, &k, &err), RSQL_OK);
    int64_t multi, none, single;
    expect(n, &multi, &none, &single);
    assert_one_outcome_each(n);
    CU_ASSERT_EQUAL(out_store.rows, 3 * multi + single);
    CU_ASSERT_EQUAL(out_store.order_violations, 0);
    CU_ASSERT_EQUAL(saved_offset("p0"), n);
}

/* Every fifth record is late, under tolerance none: each goes to the dead-letter table once
   (stage late, its message), the run does not fail, every row still reaches the sink, and a
   late record is DEAD_LETTERED when it has no row, else WRITTEN (once its rows and its dead
   letter are); every position completes. */
static void check_rows_late(int mode)
{
    const int64_t n = 1000;
    harness_reset(n, 3, mode);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    with_dlq(&c);
    c.tolerate_all = false;
    rows_late_mod = 5;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(run(&c, &k, &err), RSQL_OK);
    int64_t multi, none, single, late = 0, late_none = 0;
    expect(n, &multi, &none, &single);
    for (int64_t v = 0; v < n; v += 5) {
        late++;
        late_none += v % 4 == 1;
    }
    assert_one_outcome_each(n);
    CU_ASSERT_EQUAL(k.read, n);
    CU_ASSERT_EQUAL(k.failed, 0);
    CU_ASSERT_EQUAL(k.dead_lettered, late_none);
    CU_ASSERT_EQUAL(k.written, multi + single);
    CU_ASSERT_EQUAL(k.filtered, none - late_none);
    counts_add_up(&k);
    CU_ASSERT_EQUAL(dlq_store.dl_total, late);
    for (int i = 0; i < dlq_store.n_dl; i++) {
        CU_ASSERT_STRING_EQUAL(dlq_store.dl_stage[i], "late");
        CU_ASSERT_PTR_NOT_NULL(strstr(dlq_store.dl_error[i], "late row "));
    }
    CU_ASSERT_EQUAL(out_store.rows, 3 * multi + single);
    int bad = 0;
    for (int64_t v = 0; v < n; v++) {
        int want = v % 4 != 1                   ? RSQL_OUTCOME_WRITTEN
                   : v % 5 == 0                 ? RSQL_OUTCOME_DEAD_LETTERED
                                                : RSQL_OUTCOME_FILTERED;
        bad += src_store.kinds[v] != want;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(saved_offset("p0"), (n + 2) / 3);
}

static void test_rows_late_sync(void)
{
    check_rows_late(DELIVER_SYNC);
}

static void test_rows_late_delivery_thread(void)
{
    check_rows_late(DELIVER_THREAD);
}

/* The dead letter of late record 0 (three rows, written) cannot be written before the retry
   time runs out: the record fails, and the run with it; no position passes it. */
static void test_rows_late_dead_letter_fails(void)
{
    harness_reset(100, 1, DELIVER_THREAD);
    rsql_pipeline_conf_t c;
    rows_conf(&c);
    with_dlq(&c);
    c.retry_timeout_ms = 100;
    rows_late_mod = 50;
    dlq_store.dl_row_fails = 1000000;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_NOT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(src_store.kinds[0], RSQL_OUTCOME_FAILED);
    CU_ASSERT_EQUAL(dlq_store.dl_total, 0);
    CU_ASSERT(saved_offset("p0") <= 0);
}

static CU_TestInfo rows_tests[] = {
    {"rows_written_sync", test_rows_written_sync},
    {"rows_written_delivery_thread", test_rows_written_delivery_thread},
    {"rows_eval_failure_sends_none_of_the_record",
     test_rows_eval_failure_sends_none_of_the_record},
    {"rows_eval_failure_dead_letters_once", test_rows_eval_failure_dead_letters_once},
    {"rows_sink_failure_dead_letters_once", test_rows_sink_failure_dead_letters_once},
    {"rows_grow_the_write_batch", test_rows_grow_the_write_batch},
    {"rows_late_sync", test_rows_late_sync},
    {"rows_late_delivery_thread", test_rows_late_delivery_thread},
    {"rows_late_dead_letter_fails", test_rows_late_dead_letter_fails},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"runtime_rows", NULL, NULL, NULL, NULL, rows_tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
