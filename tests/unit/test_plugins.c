/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the registry's plugin side (rsql_plugin.h): the basic
 * checks of a descriptor, registering connectors after the built-ins (all
 * or none, names unique across built-ins and plugins), a registered
 * connector found, validated and configured like a built-in, and the
 * loader's message for a file it cannot load. Loading real plugins is
 * tests/integration/t_plugins.sh.
 */
#include "config.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_plugin.h"

#include <CUnit/CUnit.h>
#include <string.h>

typedef struct t_conf {
    const char *command;
    int64_t timeout_ms;
} t_conf_t;

static const rsql_opt_def_t t_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("t"),
    RSQL_OPT_ROW_F("command", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL, "A command.",
                   RSQL_OPT_FIELD(t_conf_t, command, const char *)),
    RSQL_OPT_ROW_F("timeout", RSQL_OPT_DURATION, 0, "5s", 1, 0, NULL, "A timeout.",
                   RSQL_OPT_FIELD(t_conf_t, timeout_ms, int64_t)),
    RSQL_OPT_END,
};
static const char *const t_formats[] = {"json", "csv", NULL};
static const rsql_opt_def_t t_fmt_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("first"),
    RSQL_OPT_ROW_F("command", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL, "A command.",
                   RSQL_OPT_FIELD(t_conf_t, command, const char *)),
    RSQL_OPT_ROW_F("timeout", RSQL_OPT_DURATION, 0, "5s", 1, 0, NULL, "A timeout.",
                   RSQL_OPT_FIELD(t_conf_t, timeout_ms, int64_t)),
    RSQL_OPT_ROW("format", RSQL_OPT_ENUM, 0, "json", 0, 0, t_formats, "The format."),
    RSQL_OPT_END,
};
static const rsql_opt_def_t no_connector_row[] = {
    RSQL_OPT_ROW("command", RSQL_OPT_STR, 0, NULL, 0, 0, NULL, "A command."),
    RSQL_OPT_END,
};

static rsql_err_t t_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    (void)ctx;
    (void)out;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "not in a unit test");
}

static rsql_err_t t_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                          rsql_error_t *err)
{
    (void)k;
    (void)batch_id;
    (void)n;
    (void)rows;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "not in a unit test");
}

static const rsql_sink_ops_t t_sink = {.open = t_open, .write = t_write};
static const rsql_sink_ops_t half_sink = {.open = t_open};
static const char *const bad_formats[] = {"json", "xml", NULL};

/* A sink descriptor that passes the checks; tests change one member at a time. */
static rsql_connector_def_t t_def(const char *name)
{
    rsql_connector_def_t d = {
        .name = name,
        .description = "A test.",
        .caps = RSQL_CAP_SINK,
        .opts = t_opts,
        .conf_size = sizeof(t_conf_t),
        .sink = &t_sink,
    };
    return d;
}

/* check_def on def fails with a message containing want. */
static void expect_bad(const rsql_connector_def_t *def, const char *want)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_check_def(def, &err), RSQL_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    if (!strstr(err.msg, want)) {
        fprintf(stderr, "\n  got '%s', want '%s'\n", err.msg, want);
    }
}

static void test_plugin_check_def(void)
{
    rsql_error_t err;
    /* every built-in passes the checks a plugin's descriptor must pass (a side whose data
       path is not compiled in, e.g. rocketmq-grpc without gRPC, excepted) */
    for (const rsql_connector_def_t *const *b = rsql_connector_list(); *b; b++) {
        bool compiled = (!((*b)->caps & RSQL_CAP_SOURCE) || (*b)->source) &&
                        (!((*b)->caps & RSQL_CAP_SINK) || (*b)->sink);
        rsql_error_clear(&err);
        if (compiled && rsql_connector_check_def(*b, &err) != RSQL_OK) {
            fprintf(stderr, "\n  built-in %s: %s\n", (*b)->name, err.msg);
            CU_FAIL("a built-in connector fails the descriptor checks");
        }
    }
    rsql_connector_def_t d = t_def("t-1_x");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_check_def(&d, &err), RSQL_OK);

    d = t_def(NULL);
    expect_bad(&d, "a connector has no name");
    d = t_def("");
    expect_bad(&d, "a connector has no name");
    d = t_def("Exec");
    expect_bad(&d, "connector 'Exec': a name has only lower-case letters");
    d = t_def("t");
    d.description = NULL;
    expect_bad(&d, "connector 't' has no description");
    d = t_def("t");
    d.caps = 0;
    expect_bad(&d, "connector 't' has no capabilities");
    d = t_def("t");
    d.sink = NULL;
    expect_bad(&d, "connector 't' is a sink without sink operations");
    d.sink = &half_sink;
    expect_bad(&d, "connector 't' is a sink without sink operations (open, write)");
    d = t_def("t");
    d.caps |= RSQL_CAP_SOURCE;
    expect_bad(&d, "connector 't' is a source without source operations");
    d = t_def("t");
    d.exactly_once = true;
    expect_bad(&d, "connector 't' is exactly_once without stored_positions");
    d = t_def("t");
    d.opts = NULL;
    expect_bad(&d, "its option table does not start with the 'connector' row");
    d.opts = no_connector_row;
    expect_bad(&d, "its option table does not start with the 'connector' row");
    d = t_def("t");
    d.formats = bad_formats;
    expect_bad(&d, "connector 't' lists formats but has no 'format' option");
    d.opts = t_fmt_opts;
    expect_bad(&d, "connector 't': unknown format 'xml'");
}

static rsql_connector_def_t first_def, second_def, bad_def, print_again;

static int list_len(void)
{
    int n = 0;
    for (const rsql_connector_def_t *const *l = rsql_connector_list(); *l; l++) {
        n++;
    }
    return n;
}

static void test_plugin_register(void)
{
    rsql_error_t err;
    first_def = t_def("first");
    first_def.formats = t_formats;
    first_def.opts = t_fmt_opts;
    second_def = t_def("second");
    bad_def = t_def("bad");
    bad_def.caps = 0;
    print_again = t_def("print");
    int builtins = list_len();
    const rsql_connector_def_t *builtin_last = rsql_connector_list()[builtins - 1];

    /* nothing, a bad one, or a clash: refused, nothing registered */
    const rsql_connector_def_t *none[] = {NULL};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_register(none, "/p/none.so", &err), RSQL_ERR_UNSUPPORTED);
    CU_ASSERT_STRING_EQUAL(err.msg, "it has no connectors");
    const rsql_connector_def_t *with_bad[] = {&second_def, &bad_def, NULL};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_register(with_bad, "/p/bad.so", &err), RSQL_ERR_UNSUPPORTED);
    const rsql_connector_def_t *clash[] = {&second_def, &print_again, NULL};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_register(clash, "/p/clash.so", &err), RSQL_ERR_EXISTS);
    CU_ASSERT_STRING_EQUAL(err.msg, "connector 'print' is already defined (built in)");
    const rsql_connector_def_t *twice[] = {&second_def, &second_def, NULL};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_register(twice, "/p/twice.so", &err), RSQL_ERR_EXISTS);
    CU_ASSERT_STRING_EQUAL(err.msg, "connector 'second' is defined twice");
    CU_ASSERT_EQUAL(list_len(), builtins);
    CU_ASSERT_PTR_NULL(rsql_connector_find("second"));

    /* registered after the built-ins, found like them */
    const rsql_connector_def_t *one[] = {&first_def, NULL};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_connector_register(one, "/p/first.so", &err), RSQL_OK);
    const rsql_connector_def_t *two[] = {&second_def, NULL};
    CU_ASSERT_EQUAL_FATAL(rsql_connector_register(two, "/p/second.so", &err), RSQL_OK);
    const rsql_connector_def_t *const *l = rsql_connector_list();
    CU_ASSERT_EQUAL(list_len(), builtins + 2);
    CU_ASSERT_PTR_EQUAL(l[builtins - 1], builtin_last);
    CU_ASSERT_PTR_EQUAL(l[builtins], &first_def);
    CU_ASSERT_PTR_EQUAL(l[builtins + 1], &second_def);
    CU_ASSERT_PTR_NULL(l[builtins + 2]);
    CU_ASSERT_PTR_EQUAL(rsql_connector_find("FIRST"), &first_def);
    CU_ASSERT_PTR_NOT_NULL(rsql_connector_find("print"));

    const rsql_connector_def_t *again[] = {&first_def, NULL};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_register(again, "/p/again.so", &err), RSQL_ERR_EXISTS);
    CU_ASSERT_STRING_EQUAL(err.msg, "connector 'first' is already defined by plugin /p/first.so");
    CU_ASSERT_EQUAL(list_len(), builtins + 2);

    /* validated and configured like a built-in, formats included */
    rsql_opt_kv_t kvs[] = {
        {"connector", "first", RSQL_NOPOS, RSQL_NOPOS},
        {"command", "cat", RSQL_NOPOS, RSQL_NOPOS},
        {"format", "csv", RSQL_NOPOS, RSQL_NOPOS},
        {"csv.field-delimiter", ";", RSQL_NOPOS, RSQL_NOPOS},
    };
    const rsql_connector_def_t *conn = NULL;
    rsql_error_clear(&err);
    rsql_optset_t *set = rsql_connector_validate(kvs, 4, NULL, 0, RSQL_NOPOS, &conn, &err);
    if (!set) {
        fprintf(stderr, "\n  %s\n", err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_PTR_EQUAL(conn, &first_def);
    const t_conf_t *conf = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(conf);
    CU_ASSERT_STRING_EQUAL(conf->command, "cat");
    CU_ASSERT_EQUAL(conf->timeout_ms, 5000);
    CU_ASSERT_PTR_NOT_NULL(rsql_optset_conf(set, RSQL_CONF_FORMAT));
    rsql_optset_destroy(set);

    /* the unknown-connector message lists the plugins' connectors too */
    kvs[0].value = "secnd";
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_connector_validate(kvs, 2, NULL, 0, RSQL_NOPOS, NULL, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(did you mean 'second'?)"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, "blackhole, postgres, postgres-cdc, kafka, upsert-kafka, first, second"));
}

static void test_plugin_load_missing(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_plugin_load("/nonexistent/x.so", &err), RSQL_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot load it: "));
    CU_ASSERT_PTR_NULL(strstr(err.msg, "/nonexistent/x.so")); /* the caller prints the path */
    CU_ASSERT_EQUAL(rsql_plugin_load_path(NULL, stderr), 0);
    CU_ASSERT_EQUAL(rsql_plugin_load_path("::", stderr), 0);
}

static CU_TestInfo plugin_tests[] = {
    {"test_plugin_check_def", test_plugin_check_def},
    {"test_plugin_register", test_plugin_register},
    {"test_plugin_load_missing", test_plugin_load_missing},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"plugins", NULL, NULL, NULL, NULL, plugin_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
