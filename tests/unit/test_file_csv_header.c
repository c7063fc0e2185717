/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the filesystem connector's csv.header: the source skips the header (the
 * record at byte 0, even one with a quoted line end or a CRLF), counts it in the `line`
 * and `offset` metadata, does not read it again when it resumes after a committed row, and
 * fails on a header whose field count is not the table's; the sink writes the header when
 * it starts a file (missing or empty) and not when it appends; the option needs
 * 'format' = 'csv' and belongs to the filesystem connector only.
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rsql-csvh-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

/* Validate kv for columns names; NULL with err set when refused. */
static rsql_optset_t *validate(const char *const *kv, int ncols, const char *const *names,
                               rsql_error_t *err)
{
    rsql_opt_kv_t kvs[16];
    int n = 0;
    for (int i = 0; kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    rsql_error_clear(err);
    return rsql_connector_validate(kvs, n, names, ncols, RSQL_NOPOS, NULL, err);
}

/* Columns id, name and the METADATA columns ln (line) and off (offset). */
static const char *const cols[] = {"id", "name", "ln", "off"};
static const rsql_type_t types[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_BIGINT,
                                    RSQL_TYPE_BIGINT};
static const char *const meta[] = {NULL, NULL, "line", "offset"};

typedef struct src {
    rsql_optset_t *opts;
    const rsql_source_ops_t *ops;
    rsql_source_t *s;
    rsql_error_t err;
} src_t;

static rsql_err_t src_open(src_t *x, const char *path, int64_t resume)
{
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "csv",
                        "csv.header", "true", NULL};
    memset(x, 0, sizeof *x);
    x->opts = validate(kv, 4, cols, &x->err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->opts);
    x->ops = rsql_connector_find("filesystem")->source;
    const char *parts[] = {path};
    rsql_source_ctx_t ctx = {.table = "t",
                             .pipeline = "pipe-1",
                             .opts = x->opts,
                             .conf = rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR),
                             .format_conf = rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
                             .n_columns = 4,
                             .column_names = cols,
                             .column_types = types,
                             .n_resume = resume > 0,
                             .resume_partitions = parts,
                             .resume_offsets = &resume,
                             .column_meta = meta};
    return x->ops->open(&ctx, &x->s, &x->err);
}

static void src_close(src_t *x)
{
    if (x->s) {
        x->ops->close(x->s);
    }
    rsql_optset_destroy(x->opts);
}

/* Poll to the end; the poll's result. */
static rsql_err_t poll_all(src_t *x, rsql_batch_t *b)
{
    bool eof = false;
    for (int guard = 0; !eof && guard < 100; guard++) {
        rsql_err_t rc = x->ops->poll(x->s, b, 16, 100, &eof, &x->err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

static bool rec_is(const rsql_record_t *r, const char *raw, int64_t line, int64_t off)
{
    return r->raw_len == strlen(raw) && memcmp(r->raw, raw, r->raw_len) == 0 && r->meta &&
           r->meta[2].v.i == line && r->meta[3].v.i == off && !r->error;
}

static void test_csv_header_source(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/in.csv", tmpdir);
    /* a CRLF header with a quoted line end in a field; a row with one too */
    write_file(path, "id,\"na\nme\"\r\n1,a\n2,\"b\nc\"\n3,d\n");
    src_t x;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, path, 0), RSQL_OK);
    rsql_batch_t *b = rsql_batch_new(16);
    CU_ASSERT_EQUAL_FATAL(poll_all(&x, b), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 3);
    CU_ASSERT_TRUE(rec_is(&b->recs[0], "1,a", 3, 12));
    CU_ASSERT_TRUE(rec_is(&b->recs[1], "2,\"b\nc\"", 4, 16));
    CU_ASSERT_TRUE(rec_is(&b->recs[2], "3,d", 6, 24));
    int64_t after_first = b->recs[0].offset;
    CU_ASSERT_EQUAL(after_first, 16);
    src_close(&x);

    /* resumed after the first row: the header is not read again, lines still count it */
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, path, after_first), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(poll_all(&x, b), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(b->n, 2);
    CU_ASSERT_TRUE(rec_is(&b->recs[0], "2,\"b\nc\"", 4, 16));
    CU_ASSERT_TRUE(rec_is(&b->recs[1], "3,d", 6, 24));
    src_close(&x);

    /* a file of the header alone (no line end): no row */
    write_file(path, "id,name");
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, path, 0), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b), RSQL_OK);
    CU_ASSERT_EQUAL(b->n, 0);
    src_close(&x);

    /* a header of three fields for two columns fails the read, naming file and line */
    write_file(path, "id,name,extra\n1,a\n");
    b->n = 0;
    CU_ASSERT_EQUAL_FATAL(src_open(&x, path, 0), RSQL_OK);
    CU_ASSERT_EQUAL(poll_all(&x, b), RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(b->n, 0);
    char want[256];
    snprintf(want, sizeof want,
             "file:%s line 1 (the header, 'csv.header' = 'true'): line has 3 fields, table has "
             "2 columns",
             path);
    CU_ASSERT_STRING_EQUAL(x.err.msg, want);
    src_close(&x);
    rsql_batch_destroy(b);
}

typedef struct snk {
    rsql_optset_t *opts;
    const rsql_sink_ops_t *ops;
    rsql_sink_t *k;
    int delivered;
    rsql_error_t err;
} snk_t;

static void on_deliver(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *res)
{
    (void)batch_id;
    (void)res;
    ((snk_t *)opaque)->delivered += n;
}

static const char *const scols[] = {"id", "na,me"};
static const rsql_type_t stypes[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR};

/* Open a csv.header sink on path, write rows id first..first+1, flush, close. */
static void sink_two_rows(const char *path, int first)
{
    const char *kv[] = {"connector", "filesystem", "path", path, "format", "csv",
                        "csv.header", "true", NULL};
    snk_t x;
    memset(&x, 0, sizeof x);
    x.opts = validate(kv, 2, scols, &x.err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x.opts);
    x.ops = rsql_connector_find("filesystem")->sink;
    rsql_sink_ctx_t ctx = {.table = "out",
                           .pipeline = "pipe-1",
                           .opts = x.opts,
                           .conf = rsql_optset_conf(x.opts, RSQL_CONF_CONNECTOR),
                           .format_conf = rsql_optset_conf(x.opts, RSQL_CONF_FORMAT),
                           .n_columns = 2,
                           .column_names = scols,
                           .column_types = stypes,
                           .deliver = on_deliver,
                           .deliver_opaque = &x};
    CU_ASSERT_EQUAL_FATAL(x.ops->open(&ctx, &x.k, &x.err), RSQL_OK);
    rsql_value_t v[2][2];
    rsql_record_t rec[2];
    rsql_sink_row_t rows[2];
    memset(v, 0, sizeof v);
    memset(rec, 0, sizeof rec);
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 2; i++) {
        v[i][0].type = RSQL_TYPE_INT;
        v[i][0].v.i = first + i;
        v[i][1].type = RSQL_TYPE_VARCHAR;
        v[i][1].v.s.p = "x";
        v[i][1].v.s.len = 1;
        rows[i].values = v[i];
        rows[i].rec = &rec[i];
        rows[i].partition_name = "p";
    }
    CU_ASSERT_EQUAL(x.ops->write(x.k, 1, 2, rows, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.ops->flush(x.k, 1000, &x.err), RSQL_OK);
    CU_ASSERT_EQUAL(x.delivered, 2);
    x.ops->close(x.k);
    rsql_optset_destroy(x.opts);
}

static void test_csv_header_sink(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/out.csv", tmpdir);
    unlink(path);
    sink_two_rows(path, 1); /* a new file: the header first, names quoted as values are */
    CU_ASSERT_STRING_EQUAL(read_file(path), "id,\"na,me\"\n1,x\n2,x\n");
    sink_two_rows(path, 3); /* appending: no second header */
    CU_ASSERT_STRING_EQUAL(read_file(path), "id,\"na,me\"\n1,x\n2,x\n3,x\n4,x\n");
    write_file(path, ""); /* an empty file is started too */
    sink_two_rows(path, 5);
    CU_ASSERT_STRING_EQUAL(read_file(path), "id,\"na,me\"\n5,x\n6,x\n");
}

static void test_csv_header_options(void)
{
    rsql_error_t err;
    const char *json[] = {"connector", "filesystem", "path", "/tmp/x", "csv.header", "true",
                          NULL};
    CU_ASSERT_PTR_NULL(validate(json, 2, scols, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "option 'csv.header' requires 'format' = 'csv'");
    const char *rmq[] = {"connector", "rocketmq-grpc", "endpoints", "127.0.0.1:1", "topic", "t",
                         "format", "csv", "csv.header", "true", NULL};
    CU_ASSERT_PTR_NULL(validate(rmq, 2, scols, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "csv.header"));
    const char *off[] = {"connector", "filesystem", "path", "/tmp/x", "format", "csv",
                         "csv.header", "false", NULL};
    rsql_optset_t *set = validate(off, 2, scols, &err);
    CU_ASSERT_PTR_NOT_NULL(set);
    rsql_optset_destroy(set);
}

static CU_TestInfo csv_header_tests[] = {
    {"test_csv_header_source", test_csv_header_source},
    {"test_csv_header_sink", test_csv_header_sink},
    {"test_csv_header_options", test_csv_header_options},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"file_csv_header", suite_init, suite_clean, NULL, NULL, csv_header_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
