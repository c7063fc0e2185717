/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * RocketMQ as a changelog carrier (connectors/rocketmq/rmq_changelog.c and the changelog path
 * of rmq_sink.c), against the fake proxy (tests/fakes/fake_rmq.h): each change's message key is
 * the row's PRIMARY KEY text and, on a FIFO topic, its message group too (by default), unless a
 * message group is set explicitly; a NORMAL topic is refused when the sink starts unless
 * sink.changelog-order = 'none', before anything is sent; a changelog without a key or into a
 * LITE topic is refused at planning (accept_changes); EXPLAIN's verdict on per-key order.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_time.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_io.h"
#include "tests/fakes/fake_rmq_cu.h"

#define OUT "cl"

/* ---- key text, plan-time checks ----------------------------------------------------------- */

static rsql_value_t vstr(const char *s)
{
    rsql_value_t v;
    memset(&v, 0, sizeof v);
    v.type = RSQL_TYPE_VARCHAR;
    v.v.s.p = s;
    v.v.s.len = strlen(s);
    return v;
}

static rsql_value_t vint(int64_t i)
{
    rsql_value_t v;
    memset(&v, 0, sizeof v);
    v.type = RSQL_TYPE_BIGINT;
    v.v.i = i;
    return v;
}

static void test_key_text(void)
{
    rsql_value_t row[4] = {vstr("a|b\\c"), vint(42), vstr("x"), vstr("")};
    row[2].is_null = true;
    rsql_buf_t b = RSQL_BUF_INIT;
    int one[1] = {1};
    rsql_rmq__key_text(row, 1, one, &b);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "42");
    rsql_buf_reset(&b);
    int several[4] = {1, 0, 2, 3}; /* in key order, not column order */
    rsql_rmq__key_text(row, 4, several, &b);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "42|a\\|b\\\\c|\\N|");
    rsql_buf_deinit(&b);
}

/* The validated options of an OUT table (kv: extra key, value pairs, NULL-ended). */
static rsql_optset_t *opts_of(const char *endpoint, const char *const *kv, const char *const *cols,
                              int n_cols)
{
    rsql_opt_kv_t kvs[16];
    int n = 0;
    kvs[n++] = (rsql_opt_kv_t){"connector", "rocketmq-grpc", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"endpoints", endpoint, RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"topic", OUT, RSQL_NOPOS, RSQL_NOPOS};
    for (int i = 0; kv && kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    const rsql_connector_def_t *conn = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_optset_t *o = rsql_connector_validate(kvs, n, cols, n_cols, RSQL_NOPOS, &conn, &err);
    if (!o) {
        fprintf(stderr, "\n  options refused: %s\n", err.msg);
    }
    return o;
}

static const char *const cols3[3] = {"id", "name", "grp"};
static const rsql_type_t types3[3] = {RSQL_TYPE_BIGINT, RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR};

/* accept_changes of options kv with n_key key columns; its message in msg. */
static rsql_err_t accept(const char *const *kv, int n_key, char *msg, size_t size)
{
    rsql_optset_t *o = opts_of("127.0.0.1:1", kv, cols3, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    const rsql_connector_def_t *def = rsql_connector_find("rocketmq-grpc");
    CU_ASSERT_EQUAL(def->changes, RSQL_CHANGES_BY_FORMAT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(def->accept_changes);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = def->accept_changes(rsql_optset_conf(o, RSQL_CONF_CONNECTOR), o, n_key, &err);
    snprintf(msg, size, "%s", err.msg);
    rsql_optset_destroy(o);
    return rc;
}

static void test_accept_changes(void)
{
    char msg[1024];
    /* no key: refused, saying what to declare */
    CU_ASSERT_NOT_EQUAL(accept(NULL, 0, msg, sizeof msg), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "PRIMARY KEY"));
    /* a key, a plain topic: accepted (its type is checked when the sink starts) */
    CU_ASSERT_EQUAL(accept(NULL, 1, msg, sizeof msg), RSQL_OK);
    /* an explicit message group: accepted (EXPLAIN tells whether the order holds) */
    const char *grp[] = {"sink.message-group-column", "grp", NULL};
    CU_ASSERT_EQUAL(accept(grp, 1, msg, sizeof msg), RSQL_OK);
    /* a LITE target: refused unless the order does not matter */
    const char *lite[] = {"sink.lite-topic", "t1", NULL};
    CU_ASSERT_EQUAL(accept(lite, 1, msg, sizeof msg), RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "option 'sink.lite-topic'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'sink.changelog-order' = 'none'"));
    const char *lite_col[] = {"sink.lite-topic-column", "name", NULL};
    CU_ASSERT_EQUAL(accept(lite_col, 1, msg, sizeof msg), RSQL_ERR_BAD_OPTION);
    const char *lite_none[] = {"sink.lite-topic", "t1", "sink.changelog-order", "none", NULL};
    CU_ASSERT_EQUAL(accept(lite_none, 1, msg, sizeof msg), RSQL_OK);
    /* the option takes only its two values */
    const char *bad[] = {"sink.changelog-order", "any", NULL};
    CU_ASSERT_PTR_NULL(opts_of("127.0.0.1:1", bad, cols3, 3));
}

/* EXPLAIN's verdict for options kv, key key[0..n_key), METADATA meta[0..n_meta). */
static bool order_of(const char *const *kv, int n_key, const char *const *key, int n_meta,
                     const char *const *meta, char *why, size_t size)
{
    rsql_optset_t *o = opts_of("127.0.0.1:1", kv, cols3, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    rsql_buf_t b = RSQL_BUF_INIT;
    bool kept = rsql_rmq__key_order(rsql_optset_conf(o, RSQL_CONF_CONNECTOR), n_key, key, n_meta,
                                    meta, &b);
    snprintf(why, size, "%s", rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    rsql_optset_destroy(o);
    return kept;
}

static void test_key_order(void)
{
    char why[512];
    const char *id[] = {"id"};
    const char *id_grp[] = {"id", "GRP"};
    CU_ASSERT_TRUE(order_of(NULL, 1, id, 0, NULL, why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "message group = primary key; the topic must be FIFO, checked "
                                "when the sink starts");
    const char *none[] = {"sink.changelog-order", "none", NULL};
    CU_ASSERT_FALSE(order_of(none, 1, id, 0, NULL, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "sink.changelog-order = 'none'"));
    const char *grp[] = {"sink.message-group-column", "grp", NULL};
    CU_ASSERT_FALSE(order_of(grp, 1, id, 0, NULL, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "not part of the primary key"));
    CU_ASSERT_TRUE(order_of(grp, 2, id_grp, 0, NULL, why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "message group = column 'grp', part of the primary key");
    const char *mg[] = {"message_group"};
    CU_ASSERT_FALSE(order_of(NULL, 1, id, 1, mg, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "message_group METADATA"));
    CU_ASSERT_FALSE(order_of(NULL, 0, NULL, 0, NULL, why, sizeof why));
    const char *lite_none[] = {"sink.lite-topic", "t1", "sink.changelog-order", "none", NULL};
    CU_ASSERT_FALSE(order_of(lite_none, 1, id, 0, NULL, why, sizeof why));
}

/* ---- the sink against the fake proxy ------------------------------------------------------ */

typedef struct snk {
    rsql_optset_t *opts;
    const rsql_sink_ops_t *ops;
    rsql_sink_t *k;
    rsql_error_t err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int rows, failed;
    rsql_sink_result_t res[16];
} snk_t;

static void on_deliver(void *opaque, uint64_t id, int n, const rsql_sink_result_t *r)
{
    snk_t *x = opaque;
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < n; i++) {
        x->failed += r[i].code != RSQL_OK;
        if (id + (uint64_t)i < 16) {
            x->res[id + (uint64_t)i] = r[i];
        }
    }
    x->rows += n;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

static const int key_id[1] = {0};
static const int key_name[1] = {1};

/*
** Open a changelog sink of OUT (columns id, name, grp; json) at f, PRIMARY KEY (key[0]) (NULL:
** none); returns open's result (x->err holds its error).
*/
static rsql_err_t snk_open(snk_t *x, fake_rmq_t *f, const char *const *kv, const int *key)
{
    memset(x, 0, sizeof *x);
    pthread_mutex_init(&x->mu, NULL);
    rsql_cond_init_monotonic(&x->cv);
    x->opts = opts_of(fake_rmq_endpoint(f), kv, cols3, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->opts);
    x->ops = rsql_connector_find("rocketmq-grpc")->sink;
    rsql_sink_ctx_t ctx = {
        .table = OUT,
        .pipeline = "pipe-1",
        .opts = x->opts,
        .conf = rsql_optset_conf(x->opts, RSQL_CONF_CONNECTOR),
        .format_conf = rsql_optset_conf(x->opts, RSQL_CONF_FORMAT),
        .n_columns = 3,
        .column_names = cols3,
        .column_types = types3,
        .deliver = on_deliver,
        .deliver_opaque = x,
        .n_key = key ? 1 : 0,
        .key_columns = key,
        .changelog = true,
    };
    rsql_error_clear(&x->err);
    return x->ops->open(&ctx, &x->k, &x->err);
}

static void snk_close(snk_t *x)
{
    if (x->k) {
        x->ops->close(x->k);
    }
    rsql_optset_destroy(x->opts);
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
}

/* Write one change as batch id: (id, name, grp) with kind. */
static void snk_change(snk_t *x, uint64_t id, int kind, int64_t key, const char *name,
                       const char *grp)
{
    rsql_value_t v[3] = {vint(key), vstr(name), vstr(grp)};
    rsql_sink_row_t row = {.values = v, .kind = (uint8_t)kind};
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(x->ops->write(x->k, id, 1, &row, &err), RSQL_OK);
}

static bool snk_wait(snk_t *x, int n)
{
    int64_t dl = rsql_deadline_in(FAULT_WAIT_MS);
    pthread_mutex_lock(&x->mu);
    while (x->rows < n && rsql_cond_wait_until(&x->cv, &x->mu, dl) == 0) {
    }
    bool ok = x->rows >= n;
    pthread_mutex_unlock(&x->mu);
    return ok;
}

/* The stored message whose body holds "name":"<name>", its group and keys. */
static void stored(fake_rmq_t *f, const char *name, fake_msg_info_t *mi)
{
    char text[64];
    snprintf(text, sizeof text, "\"name\":\"%s\"", name);
    size_t idx = fake_rmq_find_text(f, OUT, text);
    CU_ASSERT_NOT_EQUAL_FATAL(idx, SIZE_MAX);
    CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, idx, mi));
}

/* FIFO topic, defaults: every change's message group and key are its primary key. */
static void test_sink_fifo_default(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    const char *kv[] = {"request-timeout", "20s", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, f, kv, key_id), RSQL_OK);
    /* the first send is answered late: key 2 goes meanwhile, key 1's next change waits */
    fake_answer_t slow = {.delay_ms = 5000};
    fake_rmq_script(f, FAKE_SEND, 1, &slow);
    snk_change(&x, 0, RSQL_ROW_INSERT, 1, "a1", "g");
    FAKE_WAIT_CALLS(f, FAKE_SEND, 1);
    snk_change(&x, 1, RSQL_ROW_INSERT, 2, "b1", "g");
    snk_change(&x, 2, RSQL_ROW_INSERT, 1, "a2", "h");
    FAKE_WAIT_CALLS(f, FAKE_SEND, 2);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 2); /* a1 and b1; a2 only once a1 is answered */
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 3));
    CU_ASSERT_EQUAL(x.failed, 0);
    CU_ASSERT(fake_rmq_find_text(f, OUT, "\"a1\"") < fake_rmq_find_text(f, OUT, "\"a2\""));
    fake_msg_info_t mi;
    stored(f, "a1", &mi);
    CU_ASSERT_STRING_EQUAL(mi.message_group, "1");
    CU_ASSERT_STRING_EQUAL(mi.keys, "1");
    stored(f, "b1", &mi);
    CU_ASSERT_STRING_EQUAL(mi.message_group, "2");
    CU_ASSERT_STRING_EQUAL(mi.keys, "2");
    stored(f, "a2", &mi);
    CU_ASSERT_STRING_EQUAL(mi.message_group, "1");
    CU_ASSERT_STRING_EQUAL(mi.keys, "1");
    /* a change is encoded with its kind: json (append-only) refuses a delete, on its own */
    snk_change(&x, 3, RSQL_ROW_DELETE, 1, "a3", "h");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 4));
    CU_ASSERT_EQUAL(x.res[3].code, RSQL_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.res[3].msg, "-D"));
    snk_close(&x);
    fake_rmq_stop(f);
}

/*
** debezium-json: each change in its envelope (+I/+U op c with after, -U/-D op d with before),
** every message of one key in its group, in order, keyed by it.
*/
static void test_sink_debezium_kinds(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    const char *kv[] = {"format", "debezium-json", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, f, kv, key_id), RSQL_OK);
    snk_change(&x, 0, RSQL_ROW_INSERT, 5, "k1", "g");
    snk_change(&x, 1, RSQL_ROW_UPDATE_BEFORE, 5, "k2", "g");
    snk_change(&x, 2, RSQL_ROW_UPDATE_AFTER, 5, "k3", "g");
    snk_change(&x, 3, RSQL_ROW_DELETE, 5, "k4", "g");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 4));
    CU_ASSERT_EQUAL(x.failed, 0);
    /* the envelope as Flink's debezium-json writes it, in order */
    const char *bodies[4] = {
        "{\"before\":null,\"after\":{\"id\":5,\"name\":\"k1\",\"grp\":\"g\"},\"op\":\"c\"}",
        "{\"before\":{\"id\":5,\"name\":\"k2\",\"grp\":\"g\"},\"after\":null,\"op\":\"d\"}",
        "{\"before\":null,\"after\":{\"id\":5,\"name\":\"k3\",\"grp\":\"g\"},\"op\":\"c\"}",
        "{\"before\":{\"id\":5,\"name\":\"k4\",\"grp\":\"g\"},\"after\":null,\"op\":\"d\"}",
    };
    size_t prev = 0;
    for (int i = 0; i < 4; i++) {
        size_t idx = fake_rmq_find_body(f, OUT, bodies[i], strlen(bodies[i]));
        CU_ASSERT_NOT_EQUAL_FATAL(idx, SIZE_MAX);
        CU_ASSERT(i == 0 || idx > prev);
        prev = idx;
        fake_msg_info_t mi;
        CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, idx, &mi));
        CU_ASSERT_STRING_EQUAL(mi.message_group, "5");
        CU_ASSERT_STRING_EQUAL(mi.keys, "5");
    }
    snk_close(&x);
    fake_rmq_stop(f);
}

/* NORMAL topic: refused when the sink starts, before any send, saying what to set. */
static void test_sink_normal_refused(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    snk_t x;
    CU_ASSERT_EQUAL(snk_open(&x, f, NULL, key_id), RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "topic 'cl' is a NORMAL topic"));
    CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "'sink.changelog-order' = 'none'"));
    x.k = NULL;
    snk_close(&x);
    fake_stats_t st;
    fake_rmq_stats(f, &st);
    CU_ASSERT_EQUAL(st.calls[FAKE_SEND], 0);
    fake_rmq_stop(f);
}

/* NORMAL topic with sink.changelog-order = 'none': NORMAL messages keyed by the primary key. */
static void test_sink_normal_none(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_NORMAL, 2);
    snk_t x;
    const char *kv[] = {"sink.changelog-order", "none", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, f, kv, key_id), RSQL_OK);
    snk_change(&x, 0, RSQL_ROW_INSERT, 7, "n1", "g");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    CU_ASSERT_EQUAL(x.failed, 0);
    fake_msg_info_t mi;
    stored(f, "n1", &mi);
    CU_ASSERT_FALSE(mi.has_group);
    CU_ASSERT_STRING_EQUAL(mi.keys, "7");
    snk_close(&x);
    fake_rmq_stop(f);
}

/* FIFO topic with 'none': still grouped by key (the topic takes only FIFO messages). */
static void test_sink_fifo_none(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    const char *kv[] = {"sink.changelog-order", "none", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, f, kv, key_id), RSQL_OK);
    snk_change(&x, 0, RSQL_ROW_INSERT, 9, "f1", "g");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    fake_msg_info_t mi;
    stored(f, "f1", &mi);
    CU_ASSERT_STRING_EQUAL(mi.message_group, "9");
    CU_ASSERT_STRING_EQUAL(mi.keys, "9");
    snk_close(&x);
    fake_rmq_stop(f);
}

/* An explicit message group column wins; the keys stay the primary key. */
static void test_sink_explicit_group(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    const char *kv[] = {"sink.message-group-column", "grp", NULL};
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, f, kv, key_id), RSQL_OK);
    snk_change(&x, 0, RSQL_ROW_INSERT, 3, "e1", "tenant-a");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 1));
    CU_ASSERT_EQUAL(x.failed, 0);
    fake_msg_info_t mi;
    stored(f, "e1", &mi);
    CU_ASSERT_STRING_EQUAL(mi.message_group, "tenant-a");
    CU_ASSERT_STRING_EQUAL(mi.keys, "3");
    snk_close(&x);
    fake_rmq_stop(f);
}

/*
** A key text of 64 bytes or more (the proxy's limit for a message group): the group is its
** first 54 bytes (whole UTF-8 characters), '~' and a hash, 63 bytes, the same for every change
** of the key and another for another key; the message key stays the whole text.
*/
static void test_sink_long_key(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    CU_ASSERT_EQUAL_FATAL(snk_open(&x, f, NULL, key_name), RSQL_OK);
    char a[101], b[101];
    memset(a, 'a', 100);
    a[100] = '\0';
    memcpy(b, a, sizeof b);
    b[99] = 'b';
    memcpy(a + 53, "\xc3\xa9", 2); /* an e-acute across the cut at 54 */
    snk_change(&x, 0, RSQL_ROW_INSERT, 1, a, "g");
    snk_change(&x, 1, RSQL_ROW_INSERT, 2, a, "g");
    snk_change(&x, 2, RSQL_ROW_INSERT, 3, b, "g");
    CU_ASSERT_TRUE_FATAL(snk_wait(&x, 3));
    CU_ASSERT_EQUAL(x.failed, 0);
    fake_msg_info_t m0, m1, m2; /* by the id in the body (another key's may come first) */
    CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, fake_rmq_find_text(f, OUT, "{\"id\":1,"), &m0));
    CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, fake_rmq_find_text(f, OUT, "{\"id\":2,"), &m1));
    CU_ASSERT_TRUE_FATAL(fake_rmq_msg_info(f, fake_rmq_find_text(f, OUT, "{\"id\":3,"), &m2));
    CU_ASSERT_EQUAL(strlen(m0.message_group), 53 + 1 + 8); /* the cut moved before the e-acute */
    CU_ASSERT_NSTRING_EQUAL(m0.message_group, a, 53);
    CU_ASSERT_EQUAL(m0.message_group[53], '~');
    CU_ASSERT_STRING_EQUAL(m0.message_group, m1.message_group);
    CU_ASSERT_EQUAL(strlen(m2.message_group), 63);
    CU_ASSERT_STRING_NOT_EQUAL(m0.message_group, m2.message_group);
    CU_ASSERT_STRING_EQUAL(m0.keys, a);
    CU_ASSERT_STRING_EQUAL(m2.keys, b);
    snk_close(&x);
    fake_rmq_stop(f);
}

/* A changelog without a key is refused at open too (the planner refuses it first). */
static void test_sink_no_key(void)
{
    FAKE_START(f);
    fake_rmq_topic(f, OUT, FAKE_FIFO, 2);
    snk_t x;
    CU_ASSERT_NOT_EQUAL(snk_open(&x, f, NULL, NULL), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "PRIMARY KEY"));
    x.k = NULL;
    snk_close(&x);
    fake_rmq_stop(f);
}

static CU_TestInfo tests[] = {
    {"key_text", test_key_text},
    {"accept_changes", test_accept_changes},
    {"key_order", test_key_order},
    {"sink_fifo_default", test_sink_fifo_default},
    {"sink_debezium_kinds", test_sink_debezium_kinds},
    {"sink_normal_refused", test_sink_normal_refused},
    {"sink_normal_none", test_sink_normal_none},
    {"sink_fifo_none", test_sink_fifo_none},
    {"sink_explicit_group", test_sink_explicit_group},
    {"sink_long_key", test_sink_long_key},
    {"sink_no_key", test_sink_no_key},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"rmq_changelog", NULL, NULL, NULL, NULL, tests},
                                CU_SUITE_INFO_NULL};

#include "tests/lib/cu_main.h"
