/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the embedded connectors' data paths (rsql_io.h): each
 * source and sink opened with options built through the real options
 * engine, poll/write round trips through temporary files and SQLite
 * databases, resume from an offset, follow mode and wakeup, pacing, and
 * the exactly-once positions the sqlite sink stores with its rows.
 *
 * No wall-clock window: a wait is shown by a lower bound on the monotonic
 * clock (a poll cannot return before its timeout or a paced row before it is
 * due: not a race), and a wakeup by the poll returning long before a 60 s
 * timeout (the wakeup is sticky, so when the waker thread runs does not
 * matter).
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_time.h"
#include "tests/lib/cu_positions.h"

#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rsql-conn-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void tmp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *text, const char *mode)
{
    FILE *f = fopen(path, mode);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

/* Options through the real engine: connector + key/value pairs (NULL-terminated). */
static rsql_optset_t *opts_of(const char *const *kv, int ncols, const char *const *names)
{
    rsql_opt_kv_t kvs[24];
    int n = 0;
    for (int i = 0; kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    rsql_error_t err;
    const rsql_connector_def_t *conn = NULL;
    rsql_error_clear(&err);
    rsql_optset_t *set = rsql_connector_validate(kvs, n, names, ncols, RSQL_NOPOS, &conn, &err);
    if (!set) {
        fprintf(stderr, "options: %s\n", err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    return set;
}

typedef struct src {
    rsql_optset_t *opts;
    const rsql_source_ops_t *ops;
    rsql_source_t *s;
    rsql_error_t err;
} src_t;

static rsql_err_t src_open(src_t *x, const char *connector, const char *const *kv, int ncols,
                           const char *const *names, const rsql_type_t *types, int n_resume,
                           const char *const *rparts, const int64_t *roffs)
{
    memset(x, 0, sizeof *x);
    x->opts = opts_of(kv, ncols, names);
    x->ops = rsql_connector_find(connector)->source;
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->ops);
    rsql_source_ctx_t ctx = {"t",
                             "pipe-1",
                             x->opts,
                             rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR),
                             rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
                             ncols,
                             names,
                             types,
                             n_resume,
                             rparts,
                             roffs};
    rsql_error_clear(&x->err);
    return x->ops->open(&ctx, &x->s, &x->err);
}

static void src_close(src_t *x)
{
    if (x->s) {
        x->ops->close(x->s);
    }
    rsql_optset_destroy(x->opts);
}

/* ---- delivery capture */

typedef struct deliv {
    int calls, rows, failed;
    uint64_t last_batch;
} deliv_t;

static void on_deliver(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *res)
{
    deliv_t *d = opaque;
    d->calls++;
    d->rows += n;
    d->last_batch = batch_id;
    for (int i = 0; i < n; i++) {
        d->failed += res[i].code != RSQL_OK;
    }
}

typedef struct snk {
    rsql_optset_t *opts;
    const rsql_sink_ops_t *ops;
    rsql_sink_t *k;
    deliv_t d;
    rsql_error_t err;
} snk_t;

static rsql_err_t snk_open(snk_t *x, const char *connector, const char *const *kv, int ncols,
                           const char *const *names, const rsql_type_t *types)
{
    memset(x, 0, sizeof *x);
    x->opts = opts_of(kv, ncols, names);
    x->ops = rsql_connector_find(connector)->sink;
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->ops);
    rsql_sink_ctx_t ctx = {"out",
                           "pipe-1",
                           x->opts,
                           rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR),
                           rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
                           ncols,
                           names,
                           types,
                           on_deliver,
                           &x->d};
    rsql_error_clear(&x->err);
    return x->ops->open(&ctx, &x->k, &x->err);
}

static void snk_close(snk_t *x)
{
    if (x->k) {
        x->ops->close(x->k);
    }
    rsql_optset_destroy(x->opts);
}

static const char *const c2[] = {"id", "name"};
static const rsql_type_t t2[] = {RSQL_TYPE_BIGINT, RSQL_TYPE_VARCHAR};
static const char *const c1[] = {"line"};
static const rsql_type_t t1[] = {RSQL_TYPE_VARCHAR};

static bool raw_is(const rsql_record_t *r, const char *s)
{
    return r->raw_len == strlen(s) && memcmp(r->raw, s, r->raw_len) == 0;
}

/* Poll everything (bounded) into one batch. */
static int poll_all(src_t *x, rsql_batch_t *b, int max_per_poll)
{
    bool eof = false;
    for (int guard = 0; !eof && guard < 1000; guard++) {
        if (x->ops->poll(x->s, b, max_per_poll, 1000, &eof, &x->err) != RSQL_OK) {
            return -1;
        }
    }
    return b->n;
}

/* The data path is reached through each connector's descriptor. */
static void test_conn_lookup(void)
{
    CU_ASSERT_PTR_EQUAL(rsql_connector_find("FileSystem")->source, &rsql_file_source_ops);
    CU_ASSERT_PTR_EQUAL(rsql_connector_find("filesystem")->sink, &rsql_file_sink_ops);
    CU_ASSERT_PTR_EQUAL(rsql_connector_find("datagen")->source, &rsql_datagen_source_ops);
    CU_ASSERT_PTR_NULL(rsql_connector_find("datagen")->sink);
    CU_ASSERT_PTR_NULL(rsql_connector_find("print")->source);
    CU_ASSERT_PTR_NOT_NULL(rsql_connector_find("blackhole")->sink);
    CU_ASSERT_PTR_NOT_NULL(rsql_connector_find("sqlite")->sink);
    CU_ASSERT_PTR_NULL(rsql_connector_find("nope"));
    CU_ASSERT_PTR_NULL(rsql_connector_find(NULL));
    /* semantics stated by the descriptors agree with their data paths */
    for (const rsql_connector_def_t *const *c = rsql_connector_list(); *c; c++) {
        if ((*c)->source) {
            CU_ASSERT_EQUAL((*c)->source->manages_own_positions, (*c)->own_positions != NULL);
        }
        if ((*c)->sink) {
            CU_ASSERT_EQUAL((*c)->sink->stored_positions != NULL,
                            (*c)->exactly_once || (*c)->sink_exactly_once != NULL);
        }
#ifdef RSQL_HAVE_RMQ
        /* every side a connector declares has its data path (all are compiled in) */
        CU_ASSERT_EQUAL(((*c)->caps & RSQL_CAP_SOURCE) != 0, (*c)->source != NULL);
        CU_ASSERT_EQUAL(((*c)->caps & RSQL_CAP_SINK) != 0, (*c)->sink != NULL);
#endif
    }
}

static void test_conn_file_source(void)
{
    char path[128], ident[160];
    src_t x;
    bool eof = false;
    tmp_path(path, sizeof path, "in.json");
    /* CRLF, a blank line (skipped for json), and a last line without '\n' */
    write_file(path, "{\"id\":1}\n{\"id\":2}\r\n\n{\"id\":3}\n{\"id\":4}", "w");
    const char *kv[] = {"connector", "filesystem", "path", path, NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 2, c2, t2, 0, NULL, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->partition_count(x.s), 1);
    CU_ASSERT_STRING_EQUAL(x.ops->partition_name(x.s, 0), path);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 2, 100, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 2);
    CU_ASSERT_FALSE(eof);
    CU_ASSERT_TRUE(raw_is(&b->recs[0], "{\"id\":1}"));
    CU_ASSERT_EQUAL(b->recs[0].offset, 9);
    snprintf(ident, sizeof ident, "file:%s@0", path);
    CU_ASSERT_STRING_EQUAL(b->recs[0].ident, ident);
    CU_ASSERT_TRUE(raw_is(&b->recs[1], "{\"id\":2}"));
    CU_ASSERT_EQUAL(b->recs[1].offset, 19);
    snprintf(ident, sizeof ident, "file:%s@9", path);
    CU_ASSERT_STRING_EQUAL(b->recs[1].ident, ident);
    CU_ASSERT_PTR_NULL(b->recs[1].row);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 10, 100, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 4);
    CU_ASSERT_TRUE(eof);
    CU_ASSERT_TRUE(raw_is(&b->recs[2], "{\"id\":3}"));
    CU_ASSERT_EQUAL(b->recs[2].offset, 29);
    CU_ASSERT_TRUE(raw_is(&b->recs[3], "{\"id\":4}"));
    CU_ASSERT_EQUAL(b->recs[3].offset, 37); /* EOF */

    /* decode what was read, as the transform stage does */
    rsql_error_t err;
    rsql_decoder_t *dec = rsql_decoder_new("json", rsql_optset_conf(x.opts, RSQL_CONF_FORMAT), 2, c2, t2, &err);
    rsql_value_t row[2];
    CU_ASSERT_EQUAL(rsql_decode(dec, b->recs[3].raw, b->recs[3].raw_len, b->arena, row, &err),
                    RSQL_OK);
    CU_ASSERT_EQUAL(row[0].v.i, 4);
    CU_ASSERT_TRUE(row[1].is_null);
    rsql_decoder_destroy(dec);
    src_close(&x);

    /* resume after the second line */
    const char *rp[] = {path};
    int64_t ro[] = {19};
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 2, c2, t2, 1, rp, ro), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 10, 100, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 2);
    CU_ASSERT_TRUE(raw_is(&b->recs[0], "{\"id\":3}"));
    CU_ASSERT_TRUE(eof);
    src_close(&x);
    rsql_batch_destroy(b);

    /* missing file: permanent, not retriable */
    const char *kv2[] = {"connector", "filesystem", "path", "/nonexistent/x", NULL};
    CU_ASSERT_EQUAL(src_open(&x, "filesystem", kv2, 2, c2, t2, 0, NULL, NULL),
                    RSQL_ERR_NOT_FOUND);
    CU_ASSERT_STRING_EQUAL(x.err.msg, "cannot open /nonexistent/x: No such file or directory");
    CU_ASSERT_FALSE(rsql_error_retriable(&x.err));
    x.s = NULL;
    src_close(&x);
}

static void test_conn_file_source_csv_multiline(void)
{
    char path[128];
    src_t x;
    bool eof;
    tmp_path(path, sizeof path, "in.csv");
    write_file(path, "1,\"two\nlines\"\n2,\"x\"\"\"\n\n3,z\n", "w");
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "csv", NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 2, c2, t2, 0, NULL, NULL), RSQL_OK);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 16, 100, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 4);
    CU_ASSERT_TRUE(raw_is(&b->recs[0], "1,\"two\nlines\""));
    CU_ASSERT_EQUAL(b->recs[0].offset, 14);
    CU_ASSERT_TRUE(raw_is(&b->recs[1], "2,\"x\"\"\""));
    CU_ASSERT_TRUE(raw_is(&b->recs[2], "")); /* csv keeps empty lines */
    CU_ASSERT_TRUE(raw_is(&b->recs[3], "3,z"));
    CU_ASSERT_TRUE(eof);
    src_close(&x);
    rsql_batch_destroy(b);
}

typedef struct waker {
    const rsql_source_ops_t *ops;
    rsql_source_t *s;
} waker_t;

/* Wake the source from another thread, whenever it runs (before or during the poll's wait). */
static void *wake_from_thread(void *arg)
{
    waker_t *w = arg;
    w->ops->wakeup(w->s);
    return NULL;
}

#define LONG_WAIT_MS 60000 /* a poll timeout no test waits out */

static void test_conn_file_source_follow(void)
{
    char path[128];
    src_t x;
    bool eof = true;
    tmp_path(path, sizeof path, "follow.txt");
    write_file(path, "a\nb", "w");
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "raw",
                        "scan.follow", "true", "scan.poll-interval", "20ms", NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 1, c1, t1, 0, NULL, NULL), RSQL_OK);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 16, 100, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(b->n, 1); /* "b" has no line end yet */
    CU_ASSERT_FALSE(eof);
    int64_t t0 = rsql_now_ms();
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 16, 150, &eof, &x.err), RSQL_OK);
    int64_t waited = rsql_now_ms() - t0;
    CU_ASSERT_EQUAL(b->n, 1);
    CU_ASSERT_FALSE(eof);
    CU_ASSERT_TRUE(waited >= 150); /* it waited out its timeout for more data */
    write_file(path, "c\nd\n", "a");
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 16, 1000, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 3);
    CU_ASSERT_TRUE(raw_is(&b->recs[1], "bc"));
    CU_ASSERT_TRUE(raw_is(&b->recs[2], "d"));
    CU_ASSERT_EQUAL(b->recs[2].offset, 7);
    /* a wakeup ends a long wait */
    pthread_t th;
    waker_t w = {x.ops, x.s};
    t0 = rsql_now_ms();
    pthread_create(&th, NULL, wake_from_thread, &w);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 16, LONG_WAIT_MS, &eof, &x.err), RSQL_OK);
    waited = rsql_now_ms() - t0;
    pthread_join(th, NULL);
    CU_ASSERT_TRUE(waited < LONG_WAIT_MS);
    CU_ASSERT_EQUAL(b->n, 3);
    CU_ASSERT_FALSE(eof);
    src_close(&x);
    rsql_batch_destroy(b);
}

/*
** A line over 16 MiB is one record with its error and its first 64 KiB as raw form (the rest
** skipped, memory bounded), between the lines around it, which are delivered. (This test
** used to assert that the whole poll failed.)
*/
static void test_conn_file_source_long_line(void)
{
    char path[128];
    src_t x;
    tmp_path(path, sizeof path, "long.txt");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("short\n", f);
    for (int i = 0; i < 33 * 1024; i++) { /* 33 MiB: two buffers' worth are skipped */
        char kb[1024];
        memset(kb, i == 0 ? 'y' : 'x', sizeof kb);
        fwrite(kb, 1, sizeof kb, f);
    }
    fputs("\nafter\n", f);
    fclose(f);
    const int64_t long_end = 6 + 33 * 1024 * 1024 + 1;
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "raw", NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 1, c1, t1, 0, NULL, NULL), RSQL_OK);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 3);
    CU_ASSERT_TRUE(raw_is(&b->recs[0], "short"));
    CU_ASSERT_PTR_NULL(b->recs[0].error);
    const rsql_record_t *r = &b->recs[1];
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->error);
    CU_ASSERT_EQUAL(r->error->code, RSQL_ERR_TOO_LARGE);
    CU_ASSERT_STRING_EQUAL(r->error->msg, "line longer than 16 MiB (34603008 bytes; the first "
                                          "65536 are kept as its raw form)");
    char ident[200];
    snprintf(ident, sizeof ident, "file:%s@6", path);
    CU_ASSERT_STRING_EQUAL(r->ident, ident);
    CU_ASSERT_EQUAL(r->raw_len, 65536);
    CU_ASSERT_EQUAL(r->raw[0], 'y');
    CU_ASSERT_EQUAL(r->raw[65535], 'x');
    CU_ASSERT_EQUAL(r->offset, long_end);
    CU_ASSERT_TRUE(raw_is(&b->recs[2], "after"));
    CU_ASSERT_PTR_NULL(b->recs[2].error);
    CU_ASSERT_EQUAL(b->recs[2].offset, long_end + 6);
    src_close(&x);

    /* resumed just after the long line: only "after" */
    const char *rp[] = {path};
    int64_t ro[] = {long_end};
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 1, c1, t1, 1, rp, ro), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 1);
    CU_ASSERT_TRUE(raw_is(&b->recs[0], "after"));
    src_close(&x);

    /* the long line is the last one, without a line end: it still ends at EOF */
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < 17 * 1024; i++) {
        char kb[1024];
        memset(kb, 'z', sizeof kb);
        fwrite(kb, 1, sizeof kb, f);
    }
    fclose(f);
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", kv, 1, c1, t1, 0, NULL, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 1);
    CU_ASSERT_PTR_NOT_NULL(b->recs[0].error);
    CU_ASSERT_EQUAL(b->recs[0].offset, 17 * 1024 * 1024);
    src_close(&x);
    rsql_batch_destroy(b);
    unlink(path);
}

/* Rows for a sink: values + records (partition "p", offsets 10, 20, ...). */
typedef struct rows {
    rsql_value_t v[16][2];
    rsql_record_t rec[16];
    rsql_sink_row_t r[16];
} rows_t;

static void make_rows(rows_t *x, int n, int first_id, const char *part, int64_t first_off)
{
    static const char *names[] = {"a", "b,c", "d\"e", NULL};
    memset(x, 0, sizeof *x);
    for (int i = 0; i < n; i++) {
        x->v[i][0].type = RSQL_TYPE_BIGINT;
        x->v[i][0].v.i = first_id + i;
        x->v[i][1].type = RSQL_TYPE_VARCHAR;
        const char *s = names[i % 4];
        if (s) {
            x->v[i][1].v.s.p = s;
            x->v[i][1].v.s.len = strlen(s);
        } else {
            x->v[i][1].is_null = true;
        }
        x->rec[i].offset = first_off + 10 * i;
        x->r[i].values = x->v[i];
        x->r[i].rec = &x->rec[i];
        x->r[i].partition_name = part;
    }
}

static void test_conn_file_sink(void)
{
    char path[128];
    snk_t x;
    rows_t rows;
    tmp_path(path, sizeof path, "out.json");
    unlink(path);
    const char *kv[] = {"connector", "filesystem", "path", path, NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "filesystem", kv, 2, c2, t2), RSQL_OK);
    make_rows(&rows, 4, 1, "p", 10);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 7, 4, rows.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.d.calls, 0); /* sink.sync: delivered only once synced, at flush */
    CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.d.calls, 1);
    CU_ASSERT_EQUAL(x.d.rows, 4);
    CU_ASSERT_EQUAL(x.d.failed, 0);
    CU_ASSERT_EQUAL(x.d.last_batch, 7);
    CU_ASSERT_STRING_EQUAL(read_file(path),
                           "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b,c\"}\n"
                           "{\"id\":3,\"name\":\"d\\\"e\"}\n{\"id\":4,\"name\":null}\n");
    snk_close(&x);

    /* csv appends to an existing file */
    const char *kv2[] = {"connector", "filesystem", "path", path, "format", "csv",
                         "sink.sync", "false", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "filesystem", kv2, 2, c2, t2), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 8, 4, rows.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.d.calls, 1); /* no sync: delivered at once */
    CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(read_file(path), "null}\n1,a\n2,\"b,c\"\n3,\"d\"\"e\"\n4,\n"));
    snk_close(&x);

    /* missing parent directories are created; a path under a file cannot be */
    char nested[600];
    snprintf(nested, sizeof(nested), "%s.d/a/b/out.json", path);
    const char *kv4[] = {"connector", "filesystem", "path", nested, NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "filesystem", kv4, 2, c2, t2), RSQL_OK);
    snk_close(&x);
    CU_ASSERT_EQUAL(access(nested, F_OK), 0);
    const char *kv3[] = {"connector", "filesystem", "path", "/dev/null/dir/x", NULL};
    CU_ASSERT_EQUAL(snk_open(&x, "filesystem", kv3, 2, c2, t2), RSQL_ERR_NOT_FOUND);
    CU_ASSERT_STRING_EQUAL(x.err.msg, "cannot open /dev/null/dir/x: Not a directory");
    x.k = NULL;
    snk_close(&x);
}

/* A deliver callback that keeps the results of the last batch (a per-row refusal's text). */
static rsql_sink_result_t last_results[8];

static void keep_results(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *res)
{
    on_deliver(opaque, batch_id, n, res);
    memcpy(last_results, res, (size_t)(n < 8 ? n : 8) * sizeof *res);
}

/*
** With csv quoting off, a row holding the delimiter cannot be written so that it
** reads back: that row alone fails (its result names the column), the others are written.
*/
static void test_conn_file_sink_refused_row(void)
{
    char path[128];
    snk_t x;
    rows_t rows;
    tmp_path(path, sizeof path, "noquote.csv");
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "csv",
                        "csv.quote-character", "", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "filesystem", kv, 2, c2, t2), RSQL_OK);
    make_rows(&rows, 4, 1, "p", 10); /* names a, "b,c", d"e, NULL */
    rsql_sink_ctx_t ctx = {"out", "pipe-1", x.opts, rsql_optset_conf(x.opts, RSQL_CONF_CONNECTOR),
                           rsql_optset_conf(x.opts, RSQL_CONF_FORMAT), 2, c2, t2, keep_results,
                           &x.d};
    x.ops->close(x.k);
    CU_ASSERT_EQUAL_FATAL(x.ops->open(&ctx, &x.k, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, rows.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK); /* reported once synced */
    CU_ASSERT_EQUAL(x.d.calls, 1);
    CU_ASSERT_EQUAL(x.d.rows, 4);
    CU_ASSERT_EQUAL(x.d.failed, 1);
    CU_ASSERT_EQUAL(last_results[0].code, RSQL_OK);
    CU_ASSERT_NOT_EQUAL(last_results[1].code, RSQL_OK);
    CU_ASSERT_FALSE(rsql_err_code_retriable(last_results[1].code));
    CU_ASSERT_PTR_NOT_NULL(strstr(last_results[1].msg, "column 'name'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(last_results[1].msg, "field delimiter"));
    CU_ASSERT_EQUAL(last_results[2].code, RSQL_OK);
    CU_ASSERT_STRING_EQUAL(read_file(path), "1,a\n3,d\"e\n4,\n");
    snk_close(&x);
}

static const char *const c3[] = {"id", "name", "score"};
static const rsql_type_t t3[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_DOUBLE};

static void test_conn_datagen(void)
{
    src_t x;
    const char *kv[] = {"connector", "datagen", "number-of-rows", "5", "rows-per-second", "0",
                        "seed", "7", "fields.id.kind", "sequence", "fields.id.start", "10",
                        "fields.name.length", "4", "fields.score.min", "2", "fields.score.max",
                        "3", NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "datagen", kv, 3, c3, t3, 0, NULL, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), 5);
    CU_ASSERT_STRING_EQUAL(x.ops->partition_name(x.s, 0), "datagen");
    rsql_batch_t *b = rsql_batch_new(16);
    bool eof;
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 3, 100, &eof, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(b->n, 3);
    CU_ASSERT_FALSE(eof);
    CU_ASSERT_EQUAL(poll_all(&x, b, 3), 5);
    for (int i = 0; i < 5; i++) {
        const rsql_value_t *r = b->recs[i].row;
        CU_ASSERT_EQUAL(r[0].v.i, 10 + i);
        CU_ASSERT_EQUAL(r[1].v.s.len, 4);
        CU_ASSERT_TRUE(r[2].v.d >= 2 && r[2].v.d <= 3);
        CU_ASSERT_EQUAL(b->recs[i].offset, i + 1);
        CU_ASSERT_PTR_NULL(b->recs[i].raw);
    }
    CU_ASSERT_STRING_EQUAL(b->recs[4].ident, "datagen@4");
    src_close(&x);

    /* same seed, resumed at 3: rows 3 and 4 again, identical */
    const char *rp[] = {"datagen"};
    int64_t ro[] = {3};
    rsql_batch_t *b2 = rsql_batch_new(16);
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "datagen", kv, 3, c3, t3, 1, rp, ro), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), 2);
    CU_ASSERT_EQUAL(poll_all(&x, b2, 16), 2);
    CU_ASSERT_EQUAL(b2->recs[0].row[0].v.i, 13);
    CU_ASSERT_EQUAL(b2->recs[0].offset, 4);
    CU_ASSERT_EQUAL(memcmp(b2->recs[0].row[1].v.s.p, b->recs[3].row[1].v.s.p, 4), 0);
    CU_ASSERT_EQUAL(b2->recs[1].row[2].v.d, b->recs[4].row[2].v.d);
    src_close(&x);
    rsql_batch_destroy(b);
    rsql_batch_destroy(b2);

    /* a sequence end bounds the source; random INT within min/max */
    const char *kv2[] = {"connector", "datagen", "rows-per-second", "0", "fields.id.kind",
                         "sequence", "fields.id.start", "1", "fields.id.end", "3",
                         "fields.score.min", "-1", "fields.score.max", "1", NULL};
    static const rsql_type_t t3i[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_BIGINT};
    b = rsql_batch_new(16);
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "datagen", kv2, 3, c3, t3i, 0, NULL, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), 3);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 3);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_TRUE(b->recs[i].row[2].v.i >= -1 && b->recs[i].row[2].v.i <= 1);
        CU_ASSERT_EQUAL(b->recs[i].row[1].v.s.len, 10); /* the default length */
    }
    src_close(&x);
    rsql_batch_destroy(b);
}

/* Open datagen on one column; returns the open's code (message in x->err). */
static rsql_err_t dg_open1(src_t *x, const char *const *kv, rsql_type_t type)
{
    static const char *const col[] = {"a"};
    rsql_type_t t[1] = {type};
    return src_open(x, "datagen", kv, 1, col, t, 0, NULL, NULL);
}

/*
** Options that do not fit the column's type are refused at open (as at CREATE
** and planning; the error used to be formatted after the column array was freed), and no
** sequence or bound overflows its type.
*/
static void test_conn_datagen_types(void)
{
    src_t x;
    const char *seq[] = {"connector", "datagen", "fields.a.kind", "sequence", NULL};
    CU_ASSERT_EQUAL(dg_open1(&x, seq, RSQL_TYPE_BOOLEAN), RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NULL(x.s);
    CU_ASSERT_STRING_EQUAL(x.err.msg, "datagen: column 'a' of type BOOLEAN cannot be a sequence "
                                      "(option 'fields.a.kind'; sequences are INT, BIGINT, "
                                      "DOUBLE, TIMESTAMP(3) or VARCHAR)");
    src_close(&x);
    CU_ASSERT_EQUAL(dg_open1(&x, seq, RSQL_TYPE_BYTES), RSQL_ERR_BAD_OPTION);
    src_close(&x);

    const char *frac[] = {"connector", "datagen", "fields.a.min", "5.5", "fields.a.max", "5.9",
                          NULL};
    CU_ASSERT_EQUAL(dg_open1(&x, frac, RSQL_TYPE_INT), RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "INT column 'a' takes a whole number"));
    src_close(&x);
    const char *huge[] = {"connector", "datagen", "fields.a.max", "1e300", NULL};
    CU_ASSERT_EQUAL(dg_open1(&x, huge, RSQL_TYPE_BIGINT), RSQL_ERR_BAD_OPTION);
    src_close(&x);
    const char *wide[] = {"connector", "datagen", "fields.a.max", "3000000000", NULL};
    CU_ASSERT_EQUAL(dg_open1(&x, wide, RSQL_TYPE_INT), RSQL_ERR_BAD_OPTION);
    src_close(&x);
    CU_ASSERT_EQUAL(dg_open1(&x, wide, RSQL_TYPE_BIGINT), RSQL_OK);
    src_close(&x);

    /* an INT sequence without an end stops at the largest INT; total stays unknown */
    const char *top[] = {"connector", "datagen", "rows-per-second", "0", "fields.a.kind",
                         "sequence", "fields.a.start", "2147483645", NULL};
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL_FATAL(dg_open1(&x, top, RSQL_TYPE_INT), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), -1);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 3);
    CU_ASSERT_EQUAL(b->recs[2].row[0].v.i, INT32_MAX);
    src_close(&x);
    rsql_batch_destroy(b);
    /* a sequence start beyond INT is refused; BIGINT ends at INT64_MAX */
    const char *big[] = {"connector", "datagen", "rows-per-second", "0", "fields.a.kind",
                         "sequence", "fields.a.start", "9223372036854775806", NULL};
    CU_ASSERT_EQUAL(dg_open1(&x, big, RSQL_TYPE_INT), RSQL_ERR_BAD_OPTION);
    src_close(&x);
    b = rsql_batch_new(16);
    CU_ASSERT_EQUAL_FATAL(dg_open1(&x, big, RSQL_TYPE_BIGINT), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 2);
    CU_ASSERT_EQUAL(b->recs[1].row[0].v.i, INT64_MAX);
    src_close(&x);
    rsql_batch_destroy(b);
    /* the whole BIGINT range: its count (2^64) does not overflow, it is "no known total" */
    const char *all[] = {"connector", "datagen", "rows-per-second", "0", "fields.a.kind",
                         "sequence", "fields.a.start", "-9223372036854775808", "fields.a.end",
                         "9223372036854775807", NULL};
    b = rsql_batch_new(4);
    CU_ASSERT_EQUAL_FATAL(dg_open1(&x, all, RSQL_TYPE_BIGINT), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), -1);
    bool eof = true;
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 2, 0, &eof, &x.err), RSQL_OK);
    CU_ASSERT_FALSE(eof);
    CU_ASSERT_EQUAL_FATAL(b->n, 2);
    CU_ASSERT_EQUAL(b->recs[1].row[0].v.i, INT64_MIN + 1);
    src_close(&x);
    rsql_batch_destroy(b);
    /* DOUBLE bounds whose difference overflows still give finite values in range */
    const char *dbl[] = {"connector", "datagen", "rows-per-second", "0", "number-of-rows", "20",
                         "fields.a.min", "-1e308", "fields.a.max", "1e308", NULL};
    b = rsql_batch_new(32);
    CU_ASSERT_EQUAL_FATAL(dg_open1(&x, dbl, RSQL_TYPE_DOUBLE), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b, 32), 20);
    for (int i = 0; i < b->n; i++) {
        double d = b->recs[i].row[0].v.d;
        CU_ASSERT_TRUE(isfinite(d) && d >= -1e308 && d <= 1e308);
    }
    src_close(&x);
    rsql_batch_destroy(b);
}

static void test_conn_datagen_pacing(void)
{
    src_t x;
    const char *kv[] = {"connector", "datagen", "number-of-rows", "10", "rows-per-second", "50",
                        NULL};
    int64_t t0 = rsql_now_ms(); /* before open: the pacing starts there */
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "datagen", kv, 3, c3, t3, 0, NULL, NULL), RSQL_OK);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 10);
    int64_t took = rsql_now_ms() - t0;
    CU_ASSERT_TRUE(took >= 200); /* 10 rows at 50/s: the 10th is due 200 ms after the start */
    src_close(&x);
    rsql_batch_destroy(b);

    /* unbounded, slow: wakeup ends the wait for the next row */
    const char *kv2[] = {"connector", "datagen", "rows-per-second", "1", NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "datagen", kv2, 3, c3, t3, 0, NULL, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), -1);
    b = rsql_batch_new(16);
    bool eof;
    pthread_t th;
    waker_t w = {x.ops, x.s};
    t0 = rsql_now_ms();
    pthread_create(&th, NULL, wake_from_thread, &w);
    CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 16, LONG_WAIT_MS, &eof, &x.err), RSQL_OK);
    CU_ASSERT_TRUE(rsql_now_ms() - t0 < LONG_WAIT_MS);
    CU_ASSERT_TRUE(b->n <= 1); /* at most the row that was due (1/s) */
    CU_ASSERT_FALSE(eof);
    pthread_join(th, NULL);
    src_close(&x);
    rsql_batch_destroy(b);
}

static int count_rows(const char *db_path, const char *sql, int64_t *out)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int rc = sqlite3_open(db_path, &db);
    rc = rc ? rc : sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : SQLITE_ERROR;
        *out = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return rc;
}

static void exec_sql(const char *db_path, const char *sql)
{
    sqlite3 *db;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(db_path, &db), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void test_conn_sqlite_sink_source(void)
{
    char db[128], part[200];
    snk_t k;
    rows_t rows;
    int64_t v;
    tmp_path(db, sizeof db, "out.db");
    const char *kv[] = {"connector", "sqlite", "path", db, "table", "t", "sink.batch-size", "2",
                        NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&k, "sqlite", kv, 2, c2, t2), RSQL_OK);
    make_rows(&rows, 5, 1, "in.json", 100);
    rows.r[4].partition_name = "other";
    CU_ASSERT_EQUAL(k.ops->write(k.k, 1, 5, rows.r, &k.err), RSQL_OK);
    CU_ASSERT_EQUAL(k.d.calls, 1);
    CU_ASSERT_EQUAL(k.d.rows, 5);
    CU_ASSERT_EQUAL(k.d.failed, 0);
    CU_ASSERT_EQUAL(k.ops->flush(k.k, 1000, &k.err), RSQL_OK);
    static posl_t l;
    CU_ASSERT_EQUAL(k.ops->stored_positions(k.k, posl_add, &l, &k.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 2);
    CU_ASSERT_STRING_EQUAL(l.parts[0], "in.json");
    CU_ASSERT_EQUAL(l.offs[0], 130);
    CU_ASSERT_STRING_EQUAL(l.parts[1], "other");
    CU_ASSERT_EQUAL(l.offs[1], 140);
    posl_free(&l);
    snk_close(&k);
    CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM t", &v), SQLITE_OK);
    CU_ASSERT_EQUAL(v, 5);
    CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM t WHERE name IS NULL AND id = 4", &v),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM pragma_table_info('t') WHERE "
                                   "(name = 'id' AND type = 'INTEGER') OR "
                                   "(name = 'name' AND type = 'TEXT')",
                               &v),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(v, 2);

    /* the source reads it back by rowid; resume after rowid 2 */
    src_t x;
    const char *skv[] = {"connector", "sqlite", "path", db, "table", "t", NULL};
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "sqlite", skv, 2, c2, t2, 0, NULL, NULL), RSQL_OK);
    snprintf(part, sizeof part, "%s#t", db);
    CU_ASSERT_STRING_EQUAL(x.ops->partition_name(x.s, 0), part);
    CU_ASSERT_EQUAL(x.ops->total(x.s), 5);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL(poll_all(&x, b, 2), 5);
    CU_ASSERT_EQUAL(b->recs[1].row[0].v.i, 2);
    CU_ASSERT_EQUAL(b->recs[2].row[1].v.s.len, 3);
    CU_ASSERT_EQUAL(memcmp(b->recs[2].row[1].v.s.p, "d\"e", 3), 0);
    CU_ASSERT_TRUE(b->recs[3].row[1].is_null);
    CU_ASSERT_EQUAL(b->recs[4].offset, 5);
    src_close(&x);
    const char *rp[] = {part};
    int64_t ro[] = {2};
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "sqlite", skv, 2, c2, t2, 1, rp, ro), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->total(x.s), 3);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 3);
    CU_ASSERT_EQUAL(b->recs[0].row[0].v.i, 3);
    CU_ASSERT_EQUAL(b->recs[0].offset, 3);
    src_close(&x);

    /* a value that does not fit the column type is a record with its error and raw form,
       between the good rows (this test used to assert that the whole poll failed) */
    exec_sql(db, "INSERT INTO t(id, name) VALUES ('abc', 'x\"y'); "
                 "INSERT INTO t(id, name) VALUES (7, 'after')");
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, "sqlite", skv, 2, c2, t2, 1, rp, ro), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b, 16), 5);
    char want[300];
    const rsql_record_t *bad = &b->recs[3];
    CU_ASSERT_PTR_NULL(b->recs[2].error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad->error);
    CU_ASSERT_EQUAL(bad->error->code, RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(bad->error->msg, "column 'id': expected BIGINT, got TEXT \"abc\"");
    CU_ASSERT_PTR_NULL(bad->row);
    CU_ASSERT_TRUE(raw_is(bad, "{\"id\":\"abc\",\"name\":\"x\\\"y\"}"));
    snprintf(want, sizeof want, "sqlite:%s#t@6", db);
    CU_ASSERT_STRING_EQUAL(bad->ident, want);
    CU_ASSERT_EQUAL(bad->offset, 6);
    CU_ASSERT_PTR_NULL(b->recs[4].error);
    CU_ASSERT_EQUAL(b->recs[4].row[0].v.i, 7);
    src_close(&x);
    rsql_batch_destroy(b);

    /* a missing table */
    const char *skv2[] = {"connector", "sqlite", "path", db, "table", "nope", NULL};
    CU_ASSERT_EQUAL(src_open(&x, "sqlite", skv2, 2, c2, t2, 0, NULL, NULL), RSQL_ERR_NOT_FOUND);
    snprintf(want, sizeof want, "cannot read table %s#nope: no such table: nope", db);
    CU_ASSERT_STRING_EQUAL(x.err.msg, want);
    x.s = NULL;
    src_close(&x);
}

/*
** file -> sqlite, stopped after part of the input with no goodbye (as a
** kill -9 would), then resumed from the positions the sink stored: the
** table equals the input, no row lost or doubled.
*/
static void test_conn_exactly_once_file_to_sqlite(void)
{
    char in[128], db[128];
    tmp_path(in, sizeof in, "eo.json");
    tmp_path(db, sizeof db, "eo.db");
    rsql_buf_t text = RSQL_BUF_INIT;
    for (int i = 1; i <= 25; i++) {
        rsql_buf_printf(&text, "{\"id\":%d,\"name\":\"n%d\"}\n", i, i);
    }
    write_file(in, rsql_buf_str(&text), "w");
    rsql_buf_deinit(&text);
    const char *skv[] = {"connector", "filesystem", "path", in, NULL};
    const char *kkv[] = {"connector", "sqlite", "path", db, "table", "copy", "sink.batch-size",
                         "4", NULL};
    for (int round = 0; round < 4; round++) {
        snk_t k;
        src_t x;
        static posl_t l;
        CU_ASSERT_EQUAL_FATAL(snk_open(&k, "sqlite", kkv, 2, c2, t2), RSQL_OK);
        CU_ASSERT_EQUAL(k.ops->stored_positions(k.k, posl_add, &l, &k.err), RSQL_OK);
        CU_ASSERT_EQUAL(l.n, round == 0 ? 0 : 1);
        CU_ASSERT_EQUAL_FATAL(src_open(&x, "filesystem", skv, 2, c2, t2, l.n,
                                       (const char *const *)l.parts, l.offs),
                              RSQL_OK);
        posl_free(&l);
        rsql_decoder_t *dec = rsql_decoder_new("json", rsql_optset_conf(x.opts, RSQL_CONF_FORMAT), 2, c2, t2, &x.err);
        rsql_batch_t *b = rsql_batch_new(7);
        bool eof = false;
        /* each round copies at most one batch of 7 lines, then "dies" */
        CU_ASSERT_EQUAL(x.ops->poll(x.s, b, 7, 100, &eof, &x.err), RSQL_OK);
        rsql_sink_row_t rows[7];
        for (int i = 0; i < b->n; i++) {
            b->recs[i].row = rsql_arena_alloc(b->arena, 2 * sizeof(rsql_value_t));
            CU_ASSERT_EQUAL(rsql_decode(dec, b->recs[i].raw, b->recs[i].raw_len, b->arena,
                                        b->recs[i].row, &x.err),
                            RSQL_OK);
            rows[i] = (rsql_sink_row_t){b->recs[i].row, &b->recs[i], in};
        }
        if (b->n > 0) {
            CU_ASSERT_EQUAL(k.ops->write(k.k, (uint64_t)round, b->n, rows, &k.err), RSQL_OK);
        }
        rsql_decoder_destroy(dec);
        rsql_batch_destroy(b);
        src_close(&x);
        snk_close(&k);
    }
    int64_t v;
    CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM copy", &v), SQLITE_OK);
    CU_ASSERT_EQUAL(v, 25);
    CU_ASSERT_EQUAL(count_rows(db, "SELECT count(DISTINCT id) FROM copy WHERE name = 'n' || id",
                               &v),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(v, 25);
    CU_ASSERT_EQUAL(count_rows(db, "SELECT \"offset\" FROM rocketsql_positions", &v), SQLITE_OK);
    CU_ASSERT_EQUAL(v, 9 * 21 + 16 * 23); /* the whole file: 9 short lines, 16 long ones */
}

static void test_conn_print_blackhole(void)
{
    char path[128];
    snk_t x;
    rows_t rows;
    tmp_path(path, sizeof path, "stdout.txt");
    fflush(stdout);
    int saved = dup(1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    make_rows(&rows, 4, 1, "p", 10);
    const char *kv[] = {"connector", "print", "print-identifier", "out", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "print", kv, 2, c2, t2), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 4, rows.r, &x.err), RSQL_OK);
    snk_close(&x);
    const char *kv2[] = {"connector", "print", "format", "json", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "print", kv2, 2, c2, t2), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 2, 1, rows.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.d.rows, 1);
    snk_close(&x);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CU_ASSERT_STRING_EQUAL(read_file(path), "out> +I[1, a]\nout> +I[2, b,c]\nout> +I[3, d\"e]\n"
                                            "out> +I[4, null]\n{\"id\":1,\"name\":\"a\"}\n");

    const char *kv3[] = {"connector", "blackhole", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, "blackhole", kv3, 2, c2, t2), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 5, 4, rows.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->write(x.k, 6, 2, rows.r, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.d.calls, 2);
    CU_ASSERT_EQUAL(x.d.rows, 6);
    CU_ASSERT_EQUAL(x.d.failed, 0);
    CU_ASSERT_EQUAL(x.d.last_batch, 6);
    snk_close(&x);
}

static CU_TestInfo io_tests[] = {
    {"test_conn_lookup", test_conn_lookup},
    {"test_conn_file_source", test_conn_file_source},
    {"test_conn_file_source_csv_multiline", test_conn_file_source_csv_multiline},
    {"test_conn_file_source_follow", test_conn_file_source_follow},
    {"test_conn_file_source_long_line", test_conn_file_source_long_line},
    {"test_conn_file_sink", test_conn_file_sink},
    {"test_conn_file_sink_refused_row", test_conn_file_sink_refused_row},
    {"test_conn_datagen", test_conn_datagen},
    {"test_conn_datagen_types", test_conn_datagen_types},
    {"test_conn_datagen_pacing", test_conn_datagen_pacing},
    {"test_conn_sqlite_sink_source", test_conn_sqlite_sink_source},
    {"test_conn_exactly_once_file_to_sqlite", test_conn_exactly_once_file_to_sqlite},
    {"test_conn_print_blackhole", test_conn_print_blackhole},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"connectors_io", suite_init, suite_clean, NULL, NULL, io_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
