/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of conn_gather (connectors/conn_gather.h), the gathering of a sink's batches into
 * larger transactions, driven with a write function of the test's own that records what it was
 * asked to commit: held rows are reported only after the write that committed them returned,
 * in batch order, with the results it set; a write that fails for good fails every held row; a
 * transient failure keeps them held and refuses the batch that met it; rows that cannot be held
 * (out of memory, through rsql_mem_fail_after) are refused, never lost; rows inside a source
 * transaction (RSQL_REC_IN_TXN) are held until the row that ends it.
 */
#include "config.h"
#include "base/rsql_mem.h"
#include "connectors/conn_gather.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#define NREC 256

/* the test's sink: what was committed and what was reported */
typedef struct fake {
    rsql_record_t recs[NREC]; /* row i of the test stands for recs[i] */
    int committed;            /* rows committed so far, in order */
    const rsql_record_t *order[NREC];
    int calls;                /* write function calls */
    rsql_err_t fail;          /* the next write fails with this (RSQL_OK: succeeds) */
    int fail_row;             /* >= 0: that row (of the call) fails for good, the rest commit */
    /* deliveries */
    int n_deliv;
    uint64_t deliv_id[32];
    int deliv_n[32];
    int deliv_committed[32]; /* fake.committed when it was reported */
    rsql_err_t deliv_code[32][NREC];
} fake_t;

static fake_t fk;

static rsql_err_t fake_write(void *opaque, int n, const rsql_sink_row_t *rows,
                             rsql_sink_result_t *results, rsql_error_t *err)
{
    fake_t *f = opaque;
    f->calls++;
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(results[i].code, RSQL_OK); /* zeroed on entry */
    }
    if (f->fail != RSQL_OK) {
        return rsql_error_set(err, f->fail, RSQL_NOPOS, "fake: cannot commit (%s)",
                              rsql_err_str(f->fail));
    }
    for (int i = 0; i < n; i++) {
        if (i == f->fail_row) {
            results[i].code = RSQL_ERR_CONSTRAINT;
            snprintf(results[i].msg, sizeof results[i].msg, "fake: row %d refused", i);
            continue;
        }
        f->order[f->committed++] = rows[i].rec;
    }
    return RSQL_OK;
}

static void fake_deliver(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *r)
{
    fake_t *f = opaque;
    CU_ASSERT_FATAL(f->n_deliv < 32);
    f->deliv_id[f->n_deliv] = batch_id;
    f->deliv_n[f->n_deliv] = n;
    f->deliv_committed[f->n_deliv] = f->committed;
    for (int i = 0; i < n && i < NREC; i++) {
        f->deliv_code[f->n_deliv][i] = r[i].code;
    }
    f->n_deliv++;
}

static rsql_sink_row_t rows[NREC];

static void setup(rsql_gather_t *g, int64_t max_rows)
{
    memset(&fk, 0, sizeof fk);
    fk.fail_row = -1;
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < NREC; i++) {
        fk.recs[i].offset = i;
        rows[i].rec = &fk.recs[i];
    }
    rsql_gather_init(g, max_rows, 0, "test sink", fake_write, &fk, fake_deliver, &fk);
}

/* Held batches are written as one call, in order, and reported only after it, batch by batch. */
static void test_gather_reports_after_commit(void)
{
    rsql_gather_t g;
    rsql_error_t e;
    rsql_error_clear(&e);
    setup(&g, 10);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 3, rows, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 4, rows + 3, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 0); /* held: nothing written, nothing reported */
    CU_ASSERT_EQUAL(fk.n_deliv, 0);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 7);
    /* the third reaches max_rows (10): all three in one write */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 3, rows + 7, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 1);
    CU_ASSERT_EQUAL(fk.committed, 10);
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_PTR_EQUAL(fk.order[i], &fk.recs[i]);
    }
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 3);
    static const int want_n[] = {3, 4, 3};
    for (int d = 0; d < 3; d++) {
        CU_ASSERT_EQUAL(fk.deliv_id[d], (uint64_t)d + 1);
        CU_ASSERT_EQUAL(fk.deliv_n[d], want_n[d]);
        CU_ASSERT_EQUAL(fk.deliv_committed[d], 10); /* after the commit, never before */
    }
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    /* held 6, then 5 more would pass max_rows: the 6 are written first, the 5 held */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 4, 6, rows + 10, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 5, 5, rows + 16, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 2);
    CU_ASSERT_EQUAL(fk.committed, 16);
    CU_ASSERT_EQUAL(fk.n_deliv, 4);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 5);
    /* flush writes and reports the rest; a row the write refused is that row's result */
    fk.fail_row = 2;
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 3);
    CU_ASSERT_EQUAL(fk.committed, 20);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 5);
    CU_ASSERT_EQUAL(fk.deliv_id[4], 5);
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(fk.deliv_code[4][i], i == 2 ? RSQL_ERR_CONSTRAINT : RSQL_OK);
    }
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK); /* nothing held: no write */
    CU_ASSERT_EQUAL(fk.calls, 3);
    rsql_gather_deinit(&g);
}

/* A write that fails for good fails every held row, reported; nothing is committed. */
static void test_gather_failed_commit_fails_all(void)
{
    rsql_gather_t g;
    rsql_error_t e;
    rsql_error_clear(&e);
    setup(&g, 100);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 2, rows, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows + 2, &e), RSQL_OK);
    fk.fail = RSQL_ERR_IO;
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK); /* reported: failed */
    CU_ASSERT_EQUAL(fk.committed, 0);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 2);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(fk.deliv_code[0][i], RSQL_ERR_IO);
    }
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(fk.deliv_code[1][i], RSQL_ERR_IO);
    }
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    /* out of memory in the sink's own write is such a failure too */
    fk.fail = RSQL_ERR_NOMEM;
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 4, rows + 5, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 3);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(fk.deliv_code[2][i], RSQL_ERR_NOMEM);
    }
    CU_ASSERT_EQUAL(fk.committed, 0);
    rsql_gather_deinit(&g);
}

/*
** A transient failure keeps the held rows (unreported) and refuses the batch that met it; once
** the write works again they are committed before any later batch, in order.
*/
static void test_gather_transient_keeps_order(void)
{
    rsql_gather_t g;
    rsql_error_t e;
    rsql_error_clear(&e);
    setup(&g, 5);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 3, rows, &e), RSQL_OK);
    fk.fail = RSQL_ERR_UNAVAILABLE;
    /* 3 + 3 > 5: the held 3 go first, fail: this batch is not accepted */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows + 3, &e), RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "fake: cannot commit"));
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 3);
    CU_ASSERT_EQUAL(fk.n_deliv, 0);
    /* flush before the backoff ends: not tried, a transient answer */
    rsql_error_clear(&e);
    int calls = fk.calls;
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_ERR_BUSY);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "test sink: 3 rows wait"));
    CU_ASSERT_EQUAL(fk.calls, calls);
    /* the batch written again while the held ones fail: tried first, refused again */
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows + 3, &e), RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_EQUAL(fk.calls, calls + 1);
    fk.fail = RSQL_OK;
    g.retry_at_ms = 0; /* the backoff is over (its length is not what this tests) */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows + 3, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.committed, 3); /* the held 3, alone; batch 2 now held */
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 1);
    CU_ASSERT_EQUAL(fk.deliv_id[0], 1);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 2);
    CU_ASSERT_EQUAL(fk.deliv_id[1], 2);
    CU_ASSERT_EQUAL(fk.deliv_committed[1], 6);
    for (int i = 0; i < 6; i++) {
        CU_ASSERT_PTR_EQUAL(fk.order[i], &fk.recs[i]);
    }
    rsql_gather_deinit(&g);
}

/* Rows that cannot be held are refused with RSQL_ERR_NOMEM; what was held stays held. */
static void test_gather_nomem_refuses(void)
{
    rsql_gather_t g;
    rsql_error_t e;
    rsql_error_clear(&e);
    setup(&g, 1000);
    rsql_mem_fail_after(1); /* the next allocation fails */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 3, rows, &e), RSQL_ERR_NOMEM);
    rsql_mem_fail_after(0);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    CU_ASSERT_EQUAL(fk.n_deliv, 0);
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows, &e), RSQL_OK);
    /* a batch that needs the row array to grow, when it cannot */
    rsql_mem_fail_after(1);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 200, rows + 3, &e), RSQL_ERR_NOMEM);
    rsql_mem_fail_after(0);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 3);
    CU_ASSERT_EQUAL(fk.calls, 0);
    /* the results array's growth failing refuses it too (the row array grew) */
    rsql_mem_fail_after(2);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 200, rows + 3, &e), RSQL_ERR_NOMEM);
    rsql_mem_fail_after(0);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 3);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 1);
    CU_ASSERT_EQUAL(fk.deliv_id[0], 2);
    CU_ASSERT_EQUAL(fk.deliv_n[0], 3);
    CU_ASSERT_EQUAL(fk.committed, 3);
    /* and with memory back the batch is taken */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 200, rows + 3, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.committed, 203);
    rsql_gather_deinit(&g);
}

/* Mark rows [from, to) inside a source transaction (a later row ends it). */
static void in_txn(int from, int to)
{
    for (int i = from; i < to; i++) {
        fk.recs[i].flags |= RSQL_REC_IN_TXN;
    }
}

/*
** Rows inside a source transaction (RSQL_REC_IN_TXN) past the last row that ends one stay held
** across flushes and max_rows; a batch cut in two is reported once all its rows committed; they
** are committed and reported once the row that ends their transaction arrives.
*/
static void test_gather_txn_boundaries(void)
{
    rsql_gather_t g;
    rsql_error_t e;
    rsql_error_clear(&e);
    setup(&g, 4);
    /* transaction A: rows 0..2 (row 2 ends it); transaction B: rows 3..9 (row 9 ends it) */
    in_txn(0, 2);
    in_txn(3, 9);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 2, rows, &e), RSQL_OK); /* rows 0, 1 */
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);             /* waiting: no failure */
    CU_ASSERT_EQUAL(fk.calls, 0);
    CU_ASSERT_EQUAL(fk.n_deliv, 0);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 2);
    CU_ASSERT_EQUAL(rsql_gather_waiting(&g), 2);
    /* rows 2 (ends A), 3, 4 (in B): max_rows reached, only A committed; batch 2 is cut */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows + 2, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 1);
    CU_ASSERT_EQUAL(fk.committed, 3);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 1);
    CU_ASSERT_EQUAL(fk.deliv_id[0], 1);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 3); /* batch 2: row 2 committed, 3 and 4 waiting */
    CU_ASSERT_EQUAL(rsql_gather_waiting(&g), 2);
    /* more of B, past max_rows, and flushes: nothing of B is committed */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 3, rows + 5, &e), RSQL_OK); /* rows 5..7 */
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 1);
    CU_ASSERT_EQUAL(fk.committed, 3);
    CU_ASSERT_EQUAL(fk.n_deliv, 1);
    CU_ASSERT_EQUAL(rsql_gather_waiting(&g), 5);
    /* rows 8, 9 (9 ends B), 10 (its own unit), 11 (in C): all but 11 committed and reported */
    in_txn(11, 12);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 4, 4, rows + 8, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.calls, 2);
    CU_ASSERT_EQUAL(fk.committed, 11);
    for (int i = 0; i < 11; i++) {
        CU_ASSERT_PTR_EQUAL(fk.order[i], &fk.recs[i]); /* once each, in order */
    }
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 3);
    CU_ASSERT_EQUAL(fk.deliv_id[1], 2);
    CU_ASSERT_EQUAL(fk.deliv_n[1], 3);
    CU_ASSERT_EQUAL(fk.deliv_committed[1], 11); /* reported after its last rows committed */
    CU_ASSERT_EQUAL(fk.deliv_id[2], 3);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 4); /* batch 4: rows 8..10 committed, 11 waits */
    CU_ASSERT_EQUAL(rsql_gather_waiting(&g), 1);
    /* a failed commit of the cut keeps the waiting row held and unreported */
    in_txn(12, 13);
    fk.fail = RSQL_ERR_CONSTRAINT;
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 5, 2, rows + 12, &e), RSQL_OK); /* 12; 13 ends C */
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 5);
    CU_ASSERT_EQUAL(fk.deliv_id[3], 4);
    CU_ASSERT_EQUAL(fk.deliv_code[3][0], RSQL_OK);
    CU_ASSERT_EQUAL(fk.deliv_code[3][3], RSQL_ERR_CONSTRAINT);
    CU_ASSERT_EQUAL(fk.deliv_id[4], 5);
    CU_ASSERT_EQUAL(fk.deliv_code[4][1], RSQL_ERR_CONSTRAINT);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    /* a run that ends with rows waiting: flush is fine, they are never reported */
    fk.fail = RSQL_OK;
    in_txn(20, 22);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 6, 2, rows + 20, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 2);
    CU_ASSERT_EQUAL(fk.n_deliv, 5);
    rsql_gather_deinit(&g);
}

/*
** The run ends (release): rows up to the cut are committed, the rows that wait are reported
** RSQL_ERR_INTERRUPTED (not written), a batch cut in two with both; later waiting rows at once.
*/
static void test_gather_release(void)
{
    rsql_gather_t g;
    rsql_error_t e;
    rsql_error_clear(&e);
    setup(&g, 100);
    in_txn(2, 6); /* row 1 ends a transaction; rows 2..5 wait for one */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 3, rows, &e), RSQL_OK);     /* rows 0..2 */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 2, 3, rows + 3, &e), RSQL_OK); /* rows 3..5 */
    CU_ASSERT_EQUAL(rsql_gather_waiting(&g), 4);
    CU_ASSERT_EQUAL(rsql_gather_release(&g), 4);
    CU_ASSERT_EQUAL(fk.committed, 2); /* rows 0 and 1 */
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 2);
    CU_ASSERT_EQUAL(fk.deliv_code[0][1], RSQL_OK);
    CU_ASSERT_EQUAL(fk.deliv_code[0][2], RSQL_ERR_INTERRUPTED);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(fk.deliv_code[1][i], RSQL_ERR_INTERRUPTED);
    }
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    /* a batch that comes later (a retry): its waiting rows are reported at once */
    in_txn(10, 12);
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 3, 3, rows + 9, &e), RSQL_OK); /* 9 ends one */
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 3);
    CU_ASSERT_EQUAL(fk.committed, 3);
    CU_ASSERT_EQUAL(fk.deliv_code[2][0], RSQL_OK);
    CU_ASSERT_EQUAL(fk.deliv_code[2][1], RSQL_ERR_INTERRUPTED);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    rsql_gather_deinit(&g);

    /* a commit that fails transiently at release: nothing is released (rows before the cut
       are tried again, as always); the flush that commits them releases the waiting ones */
    setup(&g, 100);
    in_txn(1, 3); /* row 0 ends one, rows 1 and 2 wait */
    CU_ASSERT_EQUAL(rsql_gather_write(&g, 1, 3, rows, &e), RSQL_OK);
    fk.fail = RSQL_ERR_UNAVAILABLE;
    CU_ASSERT_EQUAL(rsql_gather_release(&g), 0);
    CU_ASSERT_EQUAL(fk.n_deliv, 0);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 3);
    fk.fail = RSQL_OK;
    g.retry_at_ms = 0; /* the backoff is over (its length is not what this tests) */
    rsql_error_clear(&e);
    CU_ASSERT_EQUAL(rsql_gather_flush(&g, &e), RSQL_OK);
    CU_ASSERT_EQUAL(fk.committed, 1);
    CU_ASSERT_EQUAL_FATAL(fk.n_deliv, 1);
    CU_ASSERT_EQUAL(fk.deliv_code[0][0], RSQL_OK);
    CU_ASSERT_EQUAL(fk.deliv_code[0][1], RSQL_ERR_INTERRUPTED);
    CU_ASSERT_EQUAL(fk.deliv_code[0][2], RSQL_ERR_INTERRUPTED);
    CU_ASSERT_EQUAL(rsql_gather_held(&g), 0);
    rsql_gather_deinit(&g);
}

static CU_TestInfo gather_tests[] = {
    {"test_gather_reports_after_commit", test_gather_reports_after_commit},
    {"test_gather_failed_commit_fails_all", test_gather_failed_commit_fails_all},
    {"test_gather_transient_keeps_order", test_gather_transient_keeps_order},
    {"test_gather_nomem_refuses", test_gather_nomem_refuses},
    {"test_gather_txn_boundaries", test_gather_txn_boundaries},
    {"test_gather_release", test_gather_release},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"conn_gather", NULL, NULL, NULL, NULL, gather_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
