/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the filesystem source's shared read buffer (connectors/file/file_source.c):
 * a record's line is the line in the read buffer, not a copy, held by its batch's arena
 * (rsql_arena_on_free). A file of lines of every length up to a few hundred bytes, CRLF ones
 * and a last line without its line end, read into many batches that all stay alive while
 * the source reads on (compacting, moving to new buffers), then freed in another order and
 * partly after the source is closed: every line must be intact, NUL-terminated, with its
 * ident. Run under ASan (scripts/build --asan) this also shows no byte is read after free.
 */
#include "config.h"
#include "base/rsql_mem.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rsql-share-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static int calls[8], n_calls;

static void note_call(void *arg)
{
    if (n_calls < 8) {
        calls[n_calls] = (int)(intptr_t)arg;
    }
    n_calls++;
}

/* rsql_arena_on_free: each call once, at destroy, last registered first. */
static void test_arena_on_free(void)
{
    rsql_arena_t *a = rsql_arena_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    n_calls = 0;
    CU_ASSERT_EQUAL(rsql_arena_on_free(a, note_call, (void *)(intptr_t)1), 0);
    CU_ASSERT_PTR_NOT_NULL(rsql_arena_alloc(a, 100000)); /* a block of its own between */
    CU_ASSERT_EQUAL(rsql_arena_on_free(a, note_call, (void *)(intptr_t)2), 0);
    CU_ASSERT_EQUAL(n_calls, 0);
    rsql_arena_destroy(a);
    CU_ASSERT_EQUAL_FATAL(n_calls, 2);
    CU_ASSERT_EQUAL(calls[0], 2);
    CU_ASSERT_EQUAL(calls[1], 1);
}

#define LINES 20000
#define PER_BATCH 97

/* Line i's text (without its line end) into buf; its length. */
static size_t line_text(int i, char *buf)
{
    size_t n = (size_t)((i * 7919) % 301); /* 0 .. 300 bytes: lines span the 64 KiB reads */
    int k = snprintf(buf, 32, "%d:", i);
    for (size_t j = (size_t)k; j < n; j++) {
        buf[j] = (char)('a' + (i + j) % 26);
    }
    return n > (size_t)k ? n : (size_t)k;
}

static void test_file_source_shared_lines(void)
{
    char path[128], line[512];
    snprintf(path, sizeof path, "%s/lines.txt", tmpdir);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < LINES; i++) {
        size_t n = line_text(i, line);
        fwrite(line, 1, n, f);
        fputs(i == LINES - 1 ? "" : i % 5 == 0 ? "\r\n" : "\n", f); /* the last: no line end */
    }
    fclose(f);

    rsql_opt_kv_t kvs[] = {{"connector", "filesystem", RSQL_NOPOS, RSQL_NOPOS},
                           {"path", path, RSQL_NOPOS, RSQL_NOPOS},
                           {"format", "raw", RSQL_NOPOS, RSQL_NOPOS}};
    const char *names[] = {"line"};
    rsql_type_t types[] = {RSQL_TYPE_VARCHAR};
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_connector_def_t *conn = NULL;
    rsql_optset_t *opts = rsql_connector_validate(kvs, 3, names, 1, RSQL_NOPOS, &conn, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(opts);
    const rsql_source_ops_t *ops = rsql_connector_find("filesystem")->source;
    rsql_source_ctx_t ctx = {"t", "pipe-1", opts, rsql_optset_conf(opts, RSQL_CONF_CONNECTOR),
                             rsql_optset_conf(opts, RSQL_CONF_FORMAT), 1, names, types, 0,
                             NULL, NULL};
    rsql_source_t *s = NULL;
    CU_ASSERT_EQUAL_FATAL(ops->open(&ctx, &s, &err), RSQL_OK);

    int n_batches = LINES / PER_BATCH + 2;
    rsql_batch_t **batches = calloc((size_t)n_batches, sizeof *batches);
    CU_ASSERT_PTR_NOT_NULL_FATAL(batches);
    int got = 0, nb = 0;
    bool eof = false;
    while (!eof && nb < n_batches) {
        rsql_batch_t *b = rsql_batch_new(PER_BATCH);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        batches[nb++] = b;
        CU_ASSERT_EQUAL_FATAL(ops->poll(s, b, PER_BATCH, 100, &eof, &err), RSQL_OK);
        got += b->n;
    }
    CU_ASSERT_TRUE(eof);
    CU_ASSERT_EQUAL(got, LINES);
    /* every line intact while all the batches are alive */
    int i = 0, bad = 0;
    int64_t off = 0;
    for (int k = 0; k < nb; k++) {
        for (int r = 0; r < batches[k]->n; r++, i++) {
            const rsql_record_t *rec = &batches[k]->recs[r];
            size_t n = line_text(i, line);
            char ident[160];
            snprintf(ident, sizeof ident, "file:%s@%" PRId64, path, off);
            if (rec->raw_len != n || memcmp(rec->raw, line, n) != 0 || rec->raw[n] != '\0' ||
                strcmp(rec->ident, ident) != 0) {
                bad++;
            }
            off += (int64_t)n + (i == LINES - 1 ? 0 : i % 5 == 0 ? 2 : 1);
            CU_ASSERT_EQUAL(rec->offset, off);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* the odd batches freed first, the source closed, then the even ones */
    for (int k = 1; k < nb; k += 2) {
        rsql_batch_destroy(batches[k]);
    }
    ops->close(s);
    for (int k = 0; k < nb; k += 2) {
        rsql_batch_destroy(batches[k]);
    }
    free(batches);
    rsql_optset_destroy(opts);
}

static CU_TestInfo share_tests[] = {
    {"test_arena_on_free", test_arena_on_free},
    {"test_file_source_shared_lines", test_file_source_shared_lines},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"file_share", suite_init, suite_clean, NULL, NULL, share_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
