/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of rsql_io_positions_each (connectors/conn_io.c), the one grouping of source
 * positions the exactly-once sinks (sqlite, postgres) store with their rows: the last offset
 * of every partition, in groups of at most RSQL_IO_POS_GROUP with no partition twice in a
 * group, skipped rows without a partition, and the first failure stopping the rest.
 *
 * And reading them back (stored_positions, rsql_io.h) from the sqlite sink: every one of
 * them (thousands), or an error when SQLite cannot read them, never a part of the list (the
 * runtime would resume the missing partitions from the catalog's older offsets and write
 * committed rows again). The fault comes from a VFS the test puts in front of the default
 * one, as tests/fakes/ stands in front of RocketMQ: while armed it refuses every shared lock
 * of the WAL index (SQLITE_BUSY), as a reader finds them while another process holds the
 * database, and its sleeps return at once so SQLite gives up without waiting.
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"
#include "tests/lib/cu_positions.h"

#include <CUnit/CUnit.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPART 80
#define NROWS 2000

/* An upsert table of the groups handed on, as a sink would store them. */
typedef struct store {
    char names[NPART][16];
    int64_t offs[NPART];
    const char *keys[NPART];
    int n, groups, fail_at; /* fail_at: the group (1-based) that fails, 0: none */
} store_t;

static rsql_err_t upsert_group(void *opaque, const char *const *names, const int64_t *offs,
                               const char *const *keys, int m)
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
        st->keys[j] = keys[a];
    }
    return RSQL_OK;
}

static void test_positions_last_offset_per_partition(void)
{
    static rsql_record_t recs[NROWS];
    static rsql_sink_row_t rows[NROWS];
    static char pnames[NPART][16];
    static char pkeys[NROWS][16];
    int64_t last[NPART];
    const char *last_key[NPART];
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
        if (i % 3 != 0) { /* most positions have a text part, some not */
            snprintf(pkeys[i], sizeof pkeys[i], "k%d", i);
            recs[i].pos_key = pkeys[i];
        }
        rows[i].rec = &recs[i];
        rows[i].partition_name = i % 17 == 5 ? NULL : pnames[p]; /* some rows have none */
        if (rows[i].partition_name) {
            last[p] = recs[i].offset;
            last_key[p] = recs[i].pos_key;
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
        CU_ASSERT_PTR_EQUAL(st.keys[j], last_key[p]); /* the text part of that same record */
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

/* A position as one text, and a key's values as the text part: both ways, and what is not one. */
static void test_positions_text(void)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    int64_t off = 0;
    const char *key = "x";
    rsql_io_position_text(&b, 42, NULL);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "42");
    CU_ASSERT_TRUE(rsql_io_position_parse(b.data, b.len, &off, &key));
    CU_ASSERT(off == 42 && key == NULL);
    rsql_buf_reset(&b);
    rsql_io_position_text(&b, INT64_MIN, "5:a b c,");
    CU_ASSERT_TRUE(rsql_io_position_parse(b.data, b.len, &off, &key));
    CU_ASSERT(off == INT64_MIN && key && strcmp(key, "5:a b c,") == 0);
    CU_ASSERT_TRUE(rsql_io_position_parse("9223372036854775807", 19, &off, &key));
    CU_ASSERT(off == INT64_MAX && key == NULL);
    static const char *const bad[] = {"", "-", " 1", "+1", "1x", "12 ", "9223372036854775808",
                                      "-9223372036854775809", "99999999999999999999", "007", "-0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool ok = rsql_io_position_parse(bad[i], strlen(bad[i]), &off, &key);
        /* "12 " is 12 with an empty text part: a position */
        CU_ASSERT_EQUAL(ok, strcmp(bad[i], "12 ") == 0);
    }
    /* the parse is bounded by len, not by a NUL */
    CU_ASSERT_TRUE(rsql_io_position_parse("17 abc", 2, &off, &key));
    CU_ASSERT(off == 17 && key == NULL);

    /* a key's values: any bytes but NUL, ',' and ':' among them */
    static const char *const vals[] = {"a,b", "", "12:3", "0d1b3c4e-0000-4000-8000-00000000002a"};
    rsql_buf_reset(&b);
    rsql_io_key_text(&b, 4, vals);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "3:a,b,0:,4:12:3,36:0d1b3c4e-0000-4000-8000-00000000002a,");
    char buf[128];
    const char *got[4];
    CU_ASSERT_EQUAL(rsql_io_key_parse(rsql_buf_str(&b), buf, got, 4), 4);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(got[i], vals[i]);
    }
    CU_ASSERT_EQUAL(rsql_io_key_parse(rsql_buf_str(&b), buf, got, 3), -1); /* more than max */
    CU_ASSERT_EQUAL(rsql_io_key_parse("", buf, got, 4), 0);
    static const char *const bad_keys[] = {"3:ab,", "3:abcd", "x:a,", ":a,", "1:a", "2:a",
                                           "99999999999999999999999:a,", "1:a,2", "01:a,"};
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        CU_ASSERT_EQUAL(rsql_io_key_parse(bad_keys[i], buf, got, 4), -1);
    }
    rsql_buf_deinit(&b);
}

/* ---- the sqlite sink's stored positions, read back */

static sqlite3_vfs shim_vfs, *real_vfs;
static sqlite3_io_methods shim_io;
static const sqlite3_io_methods *real_io;
static volatile int shim_busy; /* armed: refuse shared WAL-index locks */

static int shim_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    if (shim_busy && (flags & SQLITE_SHM_LOCK) && (flags & SQLITE_SHM_SHARED)) {
        return SQLITE_BUSY;
    }
    return real_io->xShmLock(f, offset, n, flags);
}

static int shim_sleep(sqlite3_vfs *v, int us)
{
    (void)v;
    return shim_busy ? us : real_vfs->xSleep(real_vfs, us);
}

static int shim_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out)
{
    (void)v;
    int rc = real_vfs->xOpen(real_vfs, name, f, flags, out);
    if (rc == SQLITE_OK && f->pMethods && f->pMethods->iVersion >= 2) {
        if (!real_io) {
            real_io = f->pMethods;
            shim_io = *real_io;
            shim_io.xShmLock = shim_shm_lock;
        }
        if (f->pMethods == real_io) {
            f->pMethods = &shim_io;
        }
    }
    return rc;
}

static void shim_install(void)
{
    real_vfs = sqlite3_vfs_find(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(real_vfs);
    shim_vfs = *real_vfs;
    shim_vfs.zName = "rsql-test-busy";
    shim_vfs.xOpen = shim_open;
    shim_vfs.xSleep = shim_sleep;
    CU_ASSERT_EQUAL_FATAL(sqlite3_vfs_register(&shim_vfs, 1), SQLITE_OK);
}

static void shim_remove(void)
{
    sqlite3_vfs_register(real_vfs, 1);
    sqlite3_vfs_unregister(&shim_vfs);
}

static void sqlite_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void test_positions_sqlite_read(void)
{
    char dir[] = "/tmp/rsql-pos-XXXXXX", path[64], sql[160];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.db", dir);
    /* 3,000 positions of this pipeline (and one of another) */
    sqlite_exec(path, "PRAGMA journal_mode=WAL; CREATE TABLE rocketsql_positions(pipeline TEXT "
                      "NOT NULL, \"partition\" TEXT NOT NULL, \"offset\" INTEGER NOT NULL, "
                      "PRIMARY KEY(pipeline, \"partition\"));");
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999) "
             "INSERT INTO rocketsql_positions SELECT 'pipe-1', 'f' || i, i * 10 FROM n");
    sqlite_exec(path, sql);
    sqlite_exec(path, "INSERT INTO rocketsql_positions VALUES ('pipe-2', 'f0', 1)");

    shim_install();
    static const char *const names[] = {"id"};
    static const rsql_type_t types[] = {RSQL_TYPE_BIGINT};
    rsql_opt_kv_t kv[] = {{"connector", "sqlite", RSQL_NOPOS, RSQL_NOPOS},
                          {"path", path, RSQL_NOPOS, RSQL_NOPOS},
                          {"table", "t", RSQL_NOPOS, RSQL_NOPOS}};
    const rsql_connector_def_t *def = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_optset_t *opts = rsql_connector_validate(kv, 3, names, 1, RSQL_NOPOS, &def, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(opts);
    rsql_sink_ctx_t ctx = {.table = "out",
                           .pipeline = "pipe-1",
                           .opts = opts,
                           .conf = rsql_optset_conf(opts, RSQL_CONF_CONNECTOR),
                           .n_columns = 1,
                           .column_names = names,
                           .column_types = types};
    rsql_sink_t *k = NULL;
    CU_ASSERT_EQUAL_FATAL(def->sink->open(&ctx, &k, &err), RSQL_OK);

    /* the table made before resume_key was has it now; a text part stored there is read */
    sqlite_exec(path, "UPDATE rocketsql_positions SET resume_key = '3:a,b,' WHERE \"partition\" "
                      "= 'f7'");
    /* every one of them */
    static posl_t l;
    CU_ASSERT_EQUAL(def->sink->stored_positions(k, posl_add, &l, &err), RSQL_OK);
    CU_ASSERT_EQUAL(l.n, 3000);
    int right = 0, keyed = 0;
    for (int i = 0; i < l.n; i++) {
        right += atoi(l.parts[i] + 1) * 10 == l.offs[i];
        if (l.keys[i]) {
            keyed++;
            CU_ASSERT_STRING_EQUAL(l.parts[i], "f7");
            CU_ASSERT_STRING_EQUAL(l.keys[i], "3:a,b,");
        }
    }
    CU_ASSERT_EQUAL(right, 3000);
    CU_ASSERT_EQUAL(keyed, 1);
    posl_free(&l);

    /* SQLite cannot read them: an error, transient, naming the table and SQLite's reason */
    shim_busy = 1;
    rsql_error_clear(&err);
    rsql_err_t rc = def->sink->stored_positions(k, posl_add, &l, &err);
    shim_busy = 0;
    CU_ASSERT_EQUAL(rc, RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BUSY);
    CU_ASSERT_TRUE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot read rocketsql_positions: "));
    posl_free(&l);

    /* and once it can, all of them again */
    CU_ASSERT_EQUAL(def->sink->stored_positions(k, posl_add, &l, &err), RSQL_OK);
    CU_ASSERT_EQUAL(l.n, 3000);
    posl_free(&l);
    def->sink->close(k);
    rsql_optset_destroy(opts);
    shim_remove();
    snprintf(sql, sizeof sql, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(sql), 0);
}

static CU_TestInfo positions_tests[] = {
    {"test_positions_last_offset_per_partition", test_positions_last_offset_per_partition},
    {"test_positions_sqlite_read", test_positions_sqlite_read},
    {"test_positions_text", test_positions_text},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"conn_positions", NULL, NULL, NULL, NULL, positions_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
