/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the runtime's credit: the records in flight are bounded in rows (3 x
 * pipeline.queue-capacity) and in bytes (pipeline.memory), over the fake source and sink of
 * tests/lib/cu_pipeline.h. The rest of the pipeline's tests are test_runtime.c.
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

static void test_pipeline_backpressure_slow_sink(void)
{
    harness_reset(3000, 2, DELIVER_THREAD);
    /* the sink's first write stalls until the poller is 64 records ahead: it must get there
       (the credit is 3 x 32 records), and it must not get further than the bound */
    out_store.gate_in_flight = 64;
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.batch_size = 16;
    c.queue_capacity = 32;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.written + k.filtered, 3000);
    CU_ASSERT(src_store.max_in_flight <= 3 * 32 + 16);
    CU_ASSERT(src_store.max_in_flight >= 64);
    assert_one_outcome_each(3000);
}

/* Records of 10 KB under max_in_flight_bytes 200 KB: the poll thread asks for fewer records
   than a batch (the first poll as if records were 64 KB), so no more than the bound's worth
   (and one record) are in flight, where the rows' bound (3 x 128) alone lets the stalled
   sink's gate of 300 be reached; and records larger than the bound pass one at a time. */
static void test_pipeline_bytes_in_flight(void)
{
    harness_reset(3000, 2, DELIVER_THREAD);
    src_store.body_pad = 10000;
    out_store.gate_in_flight = 12; /* the sink's first write waits for 12 in flight */
    rsql_pipeline_conf_t c;
    conf_base(&c);
    c.max_in_flight_bytes = 200000;
    rsql_job_counts_t k;
    rsql_error_t err;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.read, 3000);
    CU_ASSERT_EQUAL(k.written + k.filtered, 3000);
    CU_ASSERT_EQUAL(out_store.rows, k.written);
    assert_one_outcome_each(3000);
    /* the size of a record is not known yet: taken as 64 KB */
    CU_ASSERT_EQUAL(src_store.first_max, 200000 / 65536);
    CU_ASSERT(src_store.max_in_flight >= 12);
    CU_ASSERT(src_store.max_in_flight <= 200000 / 10000 + 1);
    if (src_store.max_in_flight > 200000 / 10000 + 1) {
        fprintf(stderr, "bytes in flight: %" PRId64 " records of 10 KB\n",
                src_store.max_in_flight);
    }

    /* without the bytes' bound: rows only */
    harness_reset(3000, 2, DELIVER_THREAD);
    src_store.body_pad = 10000;
    out_store.gate_in_flight = 300;
    conf_base(&c);
    c.max_in_flight_bytes = 0;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.written + k.filtered, 3000);
    CU_ASSERT_EQUAL(src_store.first_max, 64);
    CU_ASSERT(src_store.max_in_flight >= 300);
    CU_ASSERT(src_store.max_in_flight <= 3 * 128 + 64);

    /* records larger than the bound: one a poll, each still passes */
    harness_reset(40, 1, DELIVER_THREAD);
    src_store.body_pad = 300000;
    conf_base(&c);
    c.max_in_flight_bytes = 200000;
    CU_ASSERT_EQUAL(run(&c, &k, &err), RSQL_OK);
    CU_ASSERT_EQUAL(k.read, 40);
    CU_ASSERT_EQUAL(k.written + k.filtered, 40);
    assert_one_outcome_each(40);
    CU_ASSERT_EQUAL(src_store.first_max, 3);
    CU_ASSERT(src_store.max_in_flight <= 3);
}

static CU_TestInfo credit_tests[] = {
    {"test_runtime_backpressure_slow_sink", test_pipeline_backpressure_slow_sink},
    {"test_runtime_bytes_in_flight", test_pipeline_bytes_in_flight},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"runtime-credit", NULL, NULL, NULL, NULL, credit_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
