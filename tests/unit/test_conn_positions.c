/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of rsql_io_positions_each (connectors/conn_io.c), the one grouping of source
 * positions the exactly-once sinks (sqlite, postgres) store with their rows: the last offset
 * of every partition, in groups of at most RSQL_IO_POS_GROUP with no partition twice in a
 * group, skipped rows without a partition, and the first failure stopping the rest.
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#define NPART 80
#define NROWS 2000

/* An upsert table of the groups handed on, as a sink would store them. */
typedef struct store {
    char names[NPART][16];
    int64_t offs[NPART];
    int n, groups, fail_at; /* fail_at: the group (1-based) that fails, 0: none */
} store_t;

static rsql_err_t upsert_group(void *opaque, const char *const *names, const int64_t *offs, int m)
{
    store_t *st = opaque;
    st->groups++;
    CU_ASSERT_TRUE(m >= 1 && m <= RSQL_IO_POS_GROUP);
    for (int a = 0; a < m; a++) {
        for (int b = a + 1; b < m; b++) {
            CU_ASSERT_NOT_EQUAL(strcmp(names[a], names[b]), 0); /* once per group */
        }
    }
    if (st->groups == st->fail_at) {
        return RSQL_ERR_IO;
    }
    for (int a = 0; a < m; a++) {
        int j = 0;
        while (j < st->n && strcmp(st->names[j], names[a]) != 0) {
            j++;
        }
        if (j == st->n) {
            snprintf(st->names[st->n++], sizeof st->names[0], "%s", names[a]);
        }
        st->offs[j] = offs[a];
    }
    return RSQL_OK;
}

static void test_positions_last_offset_per_partition(void)
{
    static rsql_record_t recs[NROWS];
    static rsql_sink_row_t rows[NROWS];
    static char pnames[NPART][16];
    int64_t last[NPART];
    for (int p = 0; p < NPART; p++) {
        snprintf(pnames[p], sizeof pnames[p], "part-%d", p);
        last[p] = -1;
    }
    unsigned x = 7;
    for (int i = 0; i < NROWS; i++) {
        x = x * 1103515245u + 12345u;
        int p = (int)((x >> 16) % NPART);
        memset(&recs[i], 0, sizeof recs[i]);
        recs[i].offset = 1000 + i;
        rows[i].rec = &recs[i];
        rows[i].partition_name = i % 17 == 5 ? NULL : pnames[p]; /* some rows have none */
        if (rows[i].partition_name) {
            last[p] = recs[i].offset;
        }
    }
    rows[3].rec = NULL; /* a row without its record is skipped too */
    store_t st;
    memset(&st, 0, sizeof st);
    CU_ASSERT_EQUAL(rsql_io_positions_each(rows, 0, NROWS, upsert_group, &st), RSQL_OK);
    CU_ASSERT_TRUE(st.groups > 1); /* 80 partitions interleaved: several groups */
    int seen = 0;
    for (int p = 0; p < NPART; p++) {
        if (last[p] < 0) {
            continue;
        }
        seen++;
        int j = 0;
        while (j < st.n && strcmp(st.names[j], pnames[p]) != 0) {
            j++;
        }
        CU_ASSERT_FATAL(j < st.n);
        CU_ASSERT_EQUAL(st.offs[j], last[p]);
    }
    CU_ASSERT_EQUAL(st.n, seen);

    /* a part of the rows: only its partitions, at their last offset within it */
    memset(&st, 0, sizeof st);
    CU_ASSERT_EQUAL(rsql_io_positions_each(rows, 10, 11, upsert_group, &st), RSQL_OK);
    CU_ASSERT_EQUAL(st.n, 1);
    CU_ASSERT_EQUAL(st.offs[0], 1010);
    memset(&st, 0, sizeof st);
    CU_ASSERT_EQUAL(rsql_io_positions_each(rows, 5, 5, upsert_group, &st), RSQL_OK);
    CU_ASSERT_EQUAL(st.groups, 0); /* nothing: nothing handed on */

    /* the first failing group stops the rest and is returned */
    memset(&st, 0, sizeof st);
    st.fail_at = 2;
    CU_ASSERT_EQUAL(rsql_io_positions_each(rows, 0, NROWS, upsert_group, &st), RSQL_ERR_IO);
    CU_ASSERT_EQUAL(st.groups, 2);
}

static CU_TestInfo positions_tests[] = {
    {"test_positions_last_offset_per_partition", test_positions_last_offset_per_partition},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"conn_positions", NULL, NULL, NULL, NULL, positions_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
