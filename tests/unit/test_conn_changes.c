/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the sinks that take a changelog (rsql_sink_ctx_t.changelog), driven through
 * their own open / write: the sqlite sink applies each row by its kind and the key, in row
 * order, and its table is compared with what SQLite itself computes from the same changes with
 * plain INSERT OR REPLACE / DELETE statements (an in-memory database of the test's own; a -T
 * row as DELETE FROM t); the
 * print sink shows the kinds as Flink's print sink does; the filesystem sink refuses a change
 * its append-only format cannot carry, that row alone. And the shared helpers that decide what a
 * row does (rsql_io_change_op) and where a transaction may end (rsql_io_chunk_end).
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rsql-chg-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- changes: "SEQ KIND K V" as rows (rows of one SEQ share their record) */

typedef struct chg {
    int seq, kind;
    int64_t k;
    const char *v; /* NULL: NULL */
} chg_t;

#define MAXR 8192
typedef struct rows {
    int n;
    rsql_sink_row_t r[MAXR];
    rsql_value_t v[MAXR][2];
    rsql_record_t rec[MAXR];
    char ident[MAXR][16];
} rows_t;

static void rows_of(rows_t *x, const chg_t *c, int n)
{
    CU_ASSERT_FATAL(n <= MAXR);
    memset(x, 0, sizeof *x);
    x->n = n;
    for (int i = 0; i < n; i++) {
        x->v[i][0] = (rsql_value_t){.type = RSQL_TYPE_BIGINT, .v.i = c[i].k};
        x->v[i][1] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .is_null = !c[i].v};
        x->v[i][1].v.s.p = c[i].v;
        x->v[i][1].v.s.len = c[i].v ? strlen(c[i].v) : 0;
        x->r[i].values = x->v[i];
        x->r[i].kind = (uint8_t)c[i].kind;
        if (i > 0 && c[i].seq == c[i - 1].seq) {
            x->r[i].rec = x->r[i - 1].rec;
        } else {
            snprintf(x->ident[i], sizeof x->ident[i], "m-%d", c[i].seq);
            x->rec[i].offset = c[i].seq;
            x->rec[i].ident = x->ident[i];
            x->r[i].rec = &x->rec[i];
        }
        x->r[i].partition_name = "p0";
    }
}

/* What SQLite computes from the changes with plain statements: "k|v;" ordered by k. */
static void reference(const chg_t *c, int n, char *out, size_t size);
static void table_text(sqlite3 *db, char *out, size_t size)
{
    sqlite3_stmt *st = NULL;
    size_t len = 0;
    out[0] = '\0';
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "SELECT k, coalesce(v, '<null>') FROM t ORDER BY k",
                                             -1, &st, NULL),
                          SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && len < size) {
        len += (size_t)snprintf(out + len, size - len, "%lld|%s;",
                                (long long)sqlite3_column_int64(st, 0),
                                (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
}

static void reference(const chg_t *c, int n, char *out, size_t size)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *up = NULL, *del = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)", NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO t(k, v) VALUES (?1, ?2)", -1, &up, NULL);
    sqlite3_prepare_v2(db, "DELETE FROM t WHERE k = ?1", -1, &del, NULL);
    for (int i = 0; i < n; i++) {
        if (c[i].kind == RSQL_ROW_CLEAR) { /* a TRUNCATE: every row gone */
            CU_ASSERT_EQUAL(sqlite3_exec(db, "DELETE FROM t", NULL, NULL, NULL), SQLITE_OK);
            continue;
        }
        bool adds = c[i].kind == RSQL_ROW_INSERT || c[i].kind == RSQL_ROW_UPDATE_AFTER;
        sqlite3_stmt *st = adds ? up : del;
        sqlite3_bind_int64(st, 1, c[i].k);
        if (adds && c[i].v) {
            sqlite3_bind_text(st, 2, c[i].v, -1, SQLITE_STATIC);
        } else if (adds) {
            sqlite3_bind_null(st, 2);
        }
        CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(up);
    sqlite3_finalize(del);
    table_text(db, out, size);
    sqlite3_close(db);
}

/* ---- a sink of (k BIGINT, v VARCHAR) */

typedef struct snk {
    rsql_optset_t *opts;
    const rsql_sink_ops_t *ops;
    rsql_sink_t *k;
    rsql_error_t err;
    int rows, failed;
    rsql_sink_result_t res[64]; /* the last delivery's first results */
} snk_t;

static void on_deliver(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *res)
{
    snk_t *x = opaque;
    (void)batch_id;
    x->rows += n;
    for (int i = 0; i < n; i++) {
        x->failed += res[i].code != RSQL_OK;
        if (i < 64) {
            x->res[i] = res[i];
        }
    }
}

static const char *const cols[] = {"k", "v"};
static const rsql_type_t types[] = {RSQL_TYPE_BIGINT, RSQL_TYPE_VARCHAR};
static const int key0[] = {0};

static rsql_err_t snk_open(snk_t *x, const char *const *kv, bool changelog, int n_key,
                           bool tolerate_all)
{
    rsql_opt_kv_t kvs[12];
    int n = 0;
    for (int i = 0; kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    memset(x, 0, sizeof *x);
    const rsql_connector_def_t *def = NULL;
    x->opts = rsql_connector_validate(kvs, n, cols, 2, RSQL_NOPOS, &def, &x->err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->opts);
    x->ops = def->sink;
    rsql_sink_ctx_t ctx = {.table = "out",
                           .pipeline = "pipe-1",
                           .opts = x->opts,
                           .conf = rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR),
                           .format_conf = rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
                           .n_columns = 2,
                           .column_names = cols,
                           .column_types = types,
                           .deliver = on_deliver,
                           .deliver_opaque = x,
                           .n_key = n_key,
                           .key_columns = key0,
                           .changelog = changelog,
                           .tolerate_all = tolerate_all};
    return x->ops->open(&ctx, &x->k, &x->err);
}

static void snk_close(snk_t *x)
{
    if (x->k) {
        x->ops->close(x->k);
    }
    rsql_optset_destroy(x->opts);
}

static void db_text(const char *path, char *out, size_t size)
{
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    table_text(db, out, size);
    sqlite3_close(db);
}

enum { I = RSQL_ROW_INSERT, UB = RSQL_ROW_UPDATE_BEFORE, UA = RSQL_ROW_UPDATE_AFTER, D = RSQL_ROW_DELETE,
       CL = RSQL_ROW_CLEAR };

/* ---- the helpers */

static void test_changes_op_and_chunk_end(void)
{
    static rows_t x;
    const chg_t c[] = {{1, UB, 1, "a"}, {1, UA, 1, "b"}, {2, UB, 2, "a"}, {3, UA, 2, "b"},
                       {4, UB, 3, "a"}, {4, UA, 4, "b"}, {5, UB, 5, "a"}, {6, D, 6, "x"},
                       {6, I, 6, "y"},  {6, UA, 6, "z"}, {7, I, 7, "q"}};
    rows_of(&x, c, 11);
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 0, 11, 1, key0), RSQL_IO_SKIP); /* its +U follows */
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 1, 11, 1, key0), RSQL_IO_UPSERT);
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 2, 11, 1, key0), RSQL_IO_DELETE); /* another record */
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 4, 11, 1, key0), RSQL_IO_DELETE); /* another key */
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 6, 11, 1, key0), RSQL_IO_DELETE); /* no +U */
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 0, 1, 1, key0), RSQL_IO_DELETE);  /* +U past to */
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 7, 11, 1, key0), RSQL_IO_DELETE);
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 8, 11, 1, key0), RSQL_IO_UPSERT);
    x.r[10].kind = CL;
    CU_ASSERT_EQUAL(rsql_io_change_op(x.r, 10, 11, 1, key0), RSQL_IO_CLEAR);
    x.r[10].kind = I;
    /* a transaction ends at a record's end: never between rows 0 and 1, nor in 7..9 */
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 0, 1, 11), 2);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 0, 2, 11), 2);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 2, 1, 11), 3);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 5, 3, 11), 10);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 7, 1, 11), 10);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 9, 100, 11), 11);
    /* nor inside a source transaction: records 2..4 (rows 2..5) in one that record 5 (row 6)
       ends (x.rec is indexed by a record's first row) */
    x.rec[2].flags = x.rec[3].flags = x.rec[4].flags = RSQL_REC_IN_TXN;
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 2, 1, 11), 7);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 0, 3, 11), 7);
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 0, 2, 11), 2); /* before it: as before */
    x.rec[7].flags = RSQL_REC_IN_TXN; /* record 6 (rows 7..9) in one that never ends here */
    CU_ASSERT_EQUAL(rsql_io_chunk_end(x.r, 7, 1, 11), 11);
}

/* ---- sqlite: changes applied in order, as SQLite computes them */

static void test_changes_sqlite_cases(void)
{
    char path[128], got[4096], want[4096];
    snprintf(path, sizeof path, "%s/cases.db", tmpdir);
    const char *kv[] = {"connector", "sqlite", "path", path, "table", "t", NULL};
    static snk_t x;
    static rows_t r;
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 1, false), RSQL_OK);
    /* one write each: +I then -D of a key; -D then +I; a -U whose +U was filtered out; a
       delete of a key that is not there; an update; one record changing a key three times */
    static const chg_t c[] = {{1, I, 1, "a"},  {2, D, 1, "a"},  {3, D, 2, "x"},  {4, I, 2, "b"},
                              {5, I, 3, "a"},  {6, UB, 3, "a"}, {7, D, 99, "x"}, {8, I, 4, "a"},
                              {9, UB, 4, "a"}, {9, UA, 4, "b"}, {10, I, 5, "a"}, {10, D, 5, "a"},
                              {10, I, 5, NULL}};
    static const int cuts[] = {0, 2, 4, 6, 7, 10, 13};
    int batch = 0;
    for (int b = 0; b + 1 < (int)(sizeof cuts / sizeof cuts[0]); b++) {
        rows_of(&r, c + cuts[b], cuts[b + 1] - cuts[b]);
        CU_ASSERT_EQUAL(x.ops->write(x.k, (uint64_t)++batch, r.n, r.r, &x.err), RSQL_OK);
        /* the sink holds a batch's rows until it commits them: commit before r is reused */
        CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK);
        CU_ASSERT_EQUAL(x.failed, 0); /* the delete of a missing key too */
    }
    CU_ASSERT_EQUAL(x.rows, 13);
    snk_close(&x);
    db_text(path, got, sizeof got);
    reference(c, 13, want, sizeof want);
    CU_ASSERT_STRING_EQUAL(want, "2|b;4|b;5|<null>;");
    CU_ASSERT_STRING_EQUAL(got, want);
}

/* -T rows (RSQL_ROW_CLEAR): every row deleted, in order with the rows around them, in the
   same transactions, as SQLite computes it with DELETE FROM t */
static void test_changes_sqlite_clear(void)
{
    char path[128], got[4096], want[4096];
    snprintf(path, sizeof path, "%s/clear.db", tmpdir);
    const char *kv[] = {"connector", "sqlite", "path", path, "table", "t", NULL};
    static snk_t x;
    static rows_t r;
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 1, false), RSQL_OK);
    static const chg_t c[] = {{1, I, 1, "a"}, {2, I, 2, "b"}, {3, I, 3, "c"}, {4, CL, 0, NULL},
                              {5, I, 4, "d"}, {6, UB, 4, "d"}, {6, UA, 4, "e"}, {7, I, 5, "f"},
                              {8, CL, 0, NULL}, {9, I, 6, "g"}, {10, CL, 0, NULL}, {11, CL, 0, NULL},
                              {12, I, 7, "h"}};
    static const int cuts[] = {0, 8, 11, 13}; /* a -T within a write, and one ending a write */
    int batch = 0;
    for (int b = 0; b + 1 < (int)(sizeof cuts / sizeof cuts[0]); b++) {
        rows_of(&r, c + cuts[b], cuts[b + 1] - cuts[b]);
        CU_ASSERT_EQUAL(x.ops->write(x.k, (uint64_t)++batch, r.n, r.r, &x.err), RSQL_OK);
        CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK);
        CU_ASSERT_EQUAL(x.failed, 0);
        db_text(path, got, sizeof got);
        reference(c, cuts[b + 1], want, sizeof want);
        CU_ASSERT_STRING_EQUAL(got, want);
    }
    CU_ASSERT_EQUAL(x.rows, 13);
    snk_close(&x);
    db_text(path, got, sizeof got);
    reference(c, 13, want, sizeof want);
    CU_ASSERT_STRING_EQUAL(want, "7|h;");
    CU_ASSERT_STRING_EQUAL(got, want);
}

static void test_changes_sqlite_random(void)
{
    char path[128], bs[8];
    static char got[65536], want[65536];
    static chg_t c[MAXR];
    static char vals[MAXR][12];
    static rows_t r;
    static snk_t x;
    snprintf(path, sizeof path, "%s/random.db", tmpdir);
    unsigned s = 12345;
    int n = 0, seq = 0;
    while (n < MAXR - 8) { /* records of 1 to 4 rows, 60 keys */
        s = s * 1103515245u + 12345u;
        int rows = 1 + (int)((s >> 8) % 4), k0 = (int)((s >> 12) % 60);
        seq++;
        for (int j = 0; j < rows; j++) {
            s = s * 1103515245u + 12345u;
            int kind = (int)((s >> 16) % 4);
            int64_t k = (s >> 20) % 3 == 0 ? (int64_t)((s >> 4) % 60) : k0;
            snprintf(vals[n], sizeof vals[n], "v%u", (s >> 3) % 100000);
            c[n] = (chg_t){seq, kind, k, (s >> 24) % 20 == 0 ? NULL : vals[n]};
            n++;
        }
    }
    rows_of(&r, c, n);
    for (int bsz = 1; bsz <= 7; bsz += 6) { /* transactions of 1 and 7 rows */
        snprintf(bs, sizeof bs, "%d", bsz);
        const char *kv[] = {"connector", "sqlite", "path", path, "table", "t", "sink.batch-size",
                            bs, NULL};
        unlink(path);
        CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 1, false), RSQL_OK);
        int i = 0, b = 0;
        while (i < n) { /* writes of 1 to 50 records */
            int e = i, recs = 1 + (b * 7) % 50;
            for (int m = 0; e < n && (m < recs || r.r[e].rec == r.r[e - 1].rec); e++) {
                m += e == i || r.r[e].rec != r.r[e - 1].rec;
            }
            CU_ASSERT_EQUAL(x.ops->write(x.k, (uint64_t)++b, e - i, r.r + i, &x.err), RSQL_OK);
            i = e;
        }
        CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK); /* the rows it gathered */
        CU_ASSERT_EQUAL(x.rows, n);
        CU_ASSERT_EQUAL(x.failed, 0);
        snk_close(&x);
        db_text(path, got, sizeof got);
        reference(c, n, want, sizeof want);
        CU_ASSERT_TRUE(strlen(want) > 100);
        CU_ASSERT_STRING_EQUAL(got, want);
    }
}

/*
** Under errors.tolerance 'all', a record whose row fails fails with all its rows (none applied),
** and the records after it are written, in transactions of one row or of many.
*/
static void record_fails_whole(const char *batch_size)
{
    char path[128], got[256];
    snprintf(path, sizeof path, "%s/check%s.db", tmpdir, batch_size);
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT CHECK (v <> 'bad'))",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(db);
    const char *kv[] = {"connector", "sqlite", "path", path, "table", "t", "sink.batch-size",
                        batch_size, NULL};
    static snk_t x;
    static rows_t r;
    static const chg_t c[] = {{1, I, 1, "a"}, {2, I, 2, "ok"}, {2, I, 3, "bad"}, {3, D, 1, "a"},
                              {3, I, 4, "d"}};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 1, true), RSQL_OK);
    rows_of(&r, c, 5);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 5, r.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK); /* the rows it gathered */
    CU_ASSERT_EQUAL(x.rows, 5);
    CU_ASSERT_EQUAL(x.res[0].code, RSQL_OK);
    CU_ASSERT_NOT_EQUAL(x.res[1].code, RSQL_OK); /* the good row of the failed record */
    CU_ASSERT_NOT_EQUAL(x.res[2].code, RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.res[2].msg, "CHECK constraint failed"));
    CU_ASSERT_EQUAL(x.res[3].code, RSQL_OK);
    CU_ASSERT_EQUAL(x.res[4].code, RSQL_OK);
    snk_close(&x);
    db_text(path, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "4|d;");
}

static void test_changes_sqlite_record_fails_whole(void)
{
    record_fails_whole("1000");
    record_fails_whole("1"); /* a transaction per row: the rows after it were failed too */
}

static void test_changes_need_a_key(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/nokey.db", tmpdir);
    const char *kv[] = {"connector", "sqlite", "path", path, "table", "t", NULL};
    static snk_t x;
    CU_ASSERT_EQUAL(snk_open(&x, kv, true, 0, false), RSQL_ERR_SEMANTIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "PRIMARY KEY"));
    snk_close(&x);
    CU_ASSERT_EQUAL(rsql_connector_find("sqlite")->changes, RSQL_CHANGES_BY_KEY);
    CU_ASSERT_EQUAL(rsql_connector_find("postgres")->changes, RSQL_CHANGES_BY_KEY);
    CU_ASSERT_EQUAL(rsql_connector_find("print")->changes, RSQL_CHANGES_ALL);
    CU_ASSERT_EQUAL(rsql_connector_find("blackhole")->changes, RSQL_CHANGES_ALL);
    CU_ASSERT_EQUAL(rsql_connector_find("filesystem")->changes, RSQL_CHANGES_BY_FORMAT);
}

/* ---- print: the kinds as Flink's print sink shows them */

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

static void test_changes_print(void)
{
    char path[128];
    static snk_t x;
    static rows_t r;
    static const chg_t c[] = {{1, I, 1, "a"}, {2, UB, 1, "a"}, {2, UA, 1, "b"}, {3, D, 1, NULL}};
    rows_of(&r, c, 4);
    snprintf(path, sizeof path, "%s/print.txt", tmpdir);
    fflush(stdout);
    int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    const char *kv[] = {"connector", "print", NULL};
    const char *kv_id[] = {"connector", "print", "print-identifier", "chg", NULL};
    const char *kv_json[] = {"connector", "print", "format", "json", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 1, false), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, r.r, &x.err), RSQL_OK);
    snk_close(&x);
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv_id, true, 0, false), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, r.r, &x.err), RSQL_OK);
    snk_close(&x);
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv_json, true, 0, false), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, r.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.failed, 0);
    snk_close(&x);
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, false, 0, false), RSQL_OK); /* not a changelog */
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 1, r.r, &x.err), RSQL_OK);
    snk_close(&x);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CU_ASSERT_STRING_EQUAL(slurp(path),
                           "+I[1, a]\n-U[1, a]\n+U[1, b]\n-D[1, null]\n"
                           "chg> +I[1, a]\nchg> -U[1, a]\nchg> +U[1, b]\nchg> -D[1, null]\n"
                           "+I {\"k\":1,\"v\":\"a\"}\n-U {\"k\":1,\"v\":\"a\"}\n"
                           "+U {\"k\":1,\"v\":\"b\"}\n-D {\"k\":1,\"v\":null}\n"
                           "+I[1, a]\n");
}

/* ---- filesystem: an append-only format refuses the changes it cannot carry, row by row */

static void test_changes_file_plain_format(void)
{
    char path[128];
    static snk_t x;
    static rows_t r;
    static const chg_t c[] = {{1, I, 1, "a"}, {2, D, 1, "a"}, {3, I, 2, "b"}, {4, UA, 2, "c"}};
    rows_of(&r, c, 4);
    snprintf(path, sizeof path, "%s/out.jsonl", tmpdir);
    const char *kv[] = {"connector", "filesystem", "path", path, "sink.sync", "false", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 0, true), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, r.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.rows, 4);
    CU_ASSERT_EQUAL(x.res[0].code, RSQL_OK);
    CU_ASSERT_EQUAL(x.res[1].code, RSQL_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.res[1].msg, "-D row cannot be written in an append-only"));
    CU_ASSERT_EQUAL(x.res[2].code, RSQL_OK);
    CU_ASSERT_EQUAL(x.res[3].code, RSQL_ERR_UNSUPPORTED);
    snk_close(&x);
    CU_ASSERT_STRING_EQUAL(slurp(path), "{\"k\":1,\"v\":\"a\"}\n{\"k\":2,\"v\":\"b\"}\n");
}

/* ---- filesystem: a changelog format carries the kinds (Flink's debezium-json encoding: +I and
   +U an op "c" with after, -U and -D an op "d" with before) */

static void test_changes_file_debezium(void)
{
    char path[128];
    static snk_t x;
    static rows_t r;
    static const chg_t c[] = {{1, I, 1, "a"}, {2, UB, 1, "a"}, {2, UA, 1, "b"}, {3, D, 1, "b"}};
    rows_of(&r, c, 4);
    snprintf(path, sizeof path, "%s/out.dbz", tmpdir);
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "debezium-json",
                        "sink.sync", "false", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, kv, true, 0, false), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, r.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.rows, 4);
    CU_ASSERT_EQUAL(x.failed, 0);
    snk_close(&x);
    char *text = slurp(path), *line[5] = {NULL};
    int n = 0;
    for (char *p = strtok(text, "\n"); p && n < 5; p = strtok(NULL, "\n")) {
        line[n++] = p;
    }
    CU_ASSERT_EQUAL_FATAL(n, 4);
    static const char *const op[] = {"\"op\":\"c\"", "\"op\":\"d\"", "\"op\":\"c\"",
                                     "\"op\":\"d\""};
    static const char *const img[] = {"\"after\":{\"k\":1,\"v\":\"a\"}",
                                      "\"before\":{\"k\":1,\"v\":\"a\"}",
                                      "\"after\":{\"k\":1,\"v\":\"b\"}",
                                      "\"before\":{\"k\":1,\"v\":\"b\"}"};
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(line[i], op[i]));
        CU_ASSERT_PTR_NOT_NULL(strstr(line[i], img[i]));
    }
}

static CU_TestInfo changes_tests[] = {
    {"test_changes_sqlite_clear", test_changes_sqlite_clear},
    {"test_changes_op_and_chunk_end", test_changes_op_and_chunk_end},
    {"test_changes_sqlite_cases", test_changes_sqlite_cases},
    {"test_changes_sqlite_random", test_changes_sqlite_random},
    {"test_changes_sqlite_record_fails_whole", test_changes_sqlite_record_fails_whole},
    {"test_changes_need_a_key", test_changes_need_a_key},
    {"test_changes_print", test_changes_print},
    {"test_changes_file_plain_format", test_changes_file_plain_format},
    {"test_changes_file_debezium", test_changes_file_debezium},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"conn_changes", suite_init, suite_clean, NULL, NULL, changes_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
