/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the options engine (base/rsql_opts*.c) and the connector
 * registry with every
 * option table (connectors/): value parsers, '#' rows, suggestions, the
 * exact text and position of every error, defaults, secrets, the
 * well-formedness of every table, and out-of-memory sweeps.
 */
#include "config.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_settings.h" /* its table in the well-formedness check and the OOM sweep */

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tests/lib/cu_opts.h"

/* ---- helpers */

/* True when key was SET explicitly, as SHOW SETTINGS tells (rsql_settings_info). */
static bool setting_is_set(const rsql_settings_t *s, const char *key)
{
    rsql_setting_info_t info;
    for (int i = 0; i < rsql_settings_count(); i++) {
        rsql_settings_info(s, i, &info);
        if (strcmp(info.key, key) == 0) {
            return info.is_set;
        }
    }
    return false;
}

/* Validate WITH options key, value, ..., NULL (cu_opts.h's offsets). */
static rsql_optset_t *with(const char *const *kv, const char *const *cols, int n_cols,
                           rsql_error_t *err, const rsql_connector_def_t **conn)
{
    return cu_opts_validate(kv, cols, n_cols, 0, conn, err);
}

/* The i-th value of set as shown (rsql_optset_put_shown), in a static buffer. */
static const char *shown(const rsql_optset_t *set, int i)
{
    static char out[512];
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_optset_put_shown(set, i, &b);
    snprintf(out, sizeof out, "%s", rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return out;
}

/* Expect validation to fail with code, message and position offset. */
static void expect_fail(const char *const *kv, rsql_err_t code, const char *msg, uint32_t off)
{
    static const char *const cols[] = {"id", "name", "price"};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, cols, 3, &err, NULL);
    cu_opts_failed(set, &err, code, msg, off);
}

#define RMQ "connector", "rocketmq-grpc", "endpoints", "127.0.0.1:8081", "topic", "t"

/* ---- parsers */

static void test_opts_parse_bool_int_double(void)
{
    bool b = false;
    int64_t i = 0;
    double d = 0;
    CU_ASSERT(rsql_opt_parse_bool("TRUE", &b) == RSQL_OK && b);
    CU_ASSERT(rsql_opt_parse_bool("false", &b) == RSQL_OK && !b);
    CU_ASSERT(rsql_opt_parse_bool("yes", &b) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_bool("", &b) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_bool(NULL, &b) != RSQL_OK);

    CU_ASSERT(rsql_opt_parse_int("0", &i) == RSQL_OK && i == 0);
    CU_ASSERT(rsql_opt_parse_int("-5", &i) == RSQL_OK && i == -5);
    CU_ASSERT(rsql_opt_parse_int("+7", &i) == RSQL_OK && i == 7);
    CU_ASSERT(rsql_opt_parse_int("9223372036854775807", &i) == RSQL_OK && i == INT64_MAX);
    CU_ASSERT(rsql_opt_parse_int("-9223372036854775808", &i) == RSQL_OK && i == INT64_MIN);
    CU_ASSERT(rsql_opt_parse_int("9223372036854775808", &i) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_int("12a", &i) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_int(" 1", &i) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_int("1 ", &i) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_int("", &i) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_int("-", &i) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_int("0x10", &i) != RSQL_OK);

    CU_ASSERT(rsql_opt_parse_double("0.5", &d) == RSQL_OK && d == 0.5);
    CU_ASSERT(rsql_opt_parse_double(".5", &d) == RSQL_OK && d == 0.5);
    CU_ASSERT(rsql_opt_parse_double("-1e3", &d) == RSQL_OK && d == -1000);
    CU_ASSERT(rsql_opt_parse_double("nan", &d) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_double("inf", &d) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_double("1e999", &d) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_double("0x10", &d) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_double("1.5x", &d) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_double(" 1", &d) != RSQL_OK);
}

static void test_opts_parse_size_duration_rate(void)
{
    int64_t v = 0;
    double r = 0;
    CU_ASSERT(rsql_opt_parse_size("512", &v) == RSQL_OK && v == 512);
    CU_ASSERT(rsql_opt_parse_size("512B", &v) == RSQL_OK && v == 512);
    CU_ASSERT(rsql_opt_parse_size("64KB", &v) == RSQL_OK && v == 65536);
    CU_ASSERT(rsql_opt_parse_size("4MB", &v) == RSQL_OK && v == 4 * 1024 * 1024);
    CU_ASSERT(rsql_opt_parse_size("1GB", &v) == RSQL_OK && v == INT64_C(1) << 30);
    CU_ASSERT(rsql_opt_parse_size("1gib", &v) == RSQL_OK && v == INT64_C(1) << 30);
    CU_ASSERT(rsql_opt_parse_size("2k", &v) == RSQL_OK && v == 2048);
    CU_ASSERT(rsql_opt_parse_size("4 MB", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_size("1.5MB", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_size("-1", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_size("1XB", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_size("9007199254740992KB", &v) != RSQL_OK); /* 2^53 KB overflows */
    CU_ASSERT(rsql_opt_parse_size("", &v) != RSQL_OK);

    CU_ASSERT(rsql_opt_parse_duration("500ms", &v) == RSQL_OK && v == 500);
    CU_ASSERT(rsql_opt_parse_duration("20s", &v) == RSQL_OK && v == 20000);
    CU_ASSERT(rsql_opt_parse_duration("30min", &v) == RSQL_OK && v == 1800000);
    CU_ASSERT(rsql_opt_parse_duration("1h", &v) == RSQL_OK && v == 3600000);
    CU_ASSERT(rsql_opt_parse_duration("1d", &v) == RSQL_OK && v == 86400000);
    CU_ASSERT(rsql_opt_parse_duration("250", &v) == RSQL_OK && v == 250);
    CU_ASSERT(rsql_opt_parse_duration("20S", &v) == RSQL_OK && v == 20000);
    CU_ASSERT(rsql_opt_parse_duration("30 s", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_duration("1.5s", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_duration("-1s", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_duration("1m", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_duration("s", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_duration("106751991167301d", &v) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_duration("99999999999999999999", &v) != RSQL_OK);

    CU_ASSERT(rsql_opt_parse_rate("200/s", &r) == RSQL_OK && r == 200);
    CU_ASSERT(rsql_opt_parse_rate("12000/min", &r) == RSQL_OK && r == 200);
    CU_ASSERT(rsql_opt_parse_rate("5/h", &r) == RSQL_OK && fabs(r - 5.0 / 3600) < 1e-12);
    CU_ASSERT(rsql_opt_parse_rate("0.5/s", &r) == RSQL_OK && r == 0.5);
    CU_ASSERT(rsql_opt_parse_rate("0/s", &r) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_rate("-1/s", &r) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_rate("200", &r) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_rate("/s", &r) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_rate("200/x", &r) != RSQL_OK);
    CU_ASSERT(rsql_opt_parse_rate("200/ s", &r) != RSQL_OK);
}

static void test_opts_format_units(void)
{
    char b[32];
    int64_t v;
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_duration(500, b, sizeof b), "500ms");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_duration(20000, b, sizeof b), "20s");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_duration(90000, b, sizeof b), "90s");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_duration(1800000, b, sizeof b), "30min");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_duration(43200000, b, sizeof b), "12h");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_duration(0, b, sizeof b), "0ms");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_size(512, b, sizeof b), "512B");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_size(1536 * 1024, b, sizeof b), "1536KB");
    CU_ASSERT_STRING_EQUAL(rsql_opt_format_size(4 * 1024 * 1024, b, sizeof b), "4MB");
    CU_ASSERT(rsql_opt_parse_size(rsql_opt_format_size(1536 * 1024, b, sizeof b), &v) == RSQL_OK &&
              v == 1536 * 1024);
    CU_ASSERT_STRING_EQUAL(rsql_opt_type_name(RSQL_OPT_DURATION), "duration");
}

/* ---- find, suggest */

static void test_opts_find_hash_rows(void)
{
    const rsql_connector_def_t *dg = rsql_connector_find("datagen");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dg);
    const rsql_opt_def_t *d = rsql_opt_find(dg->opts, "fields.id.kind");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(d->name, "fields.#.kind");
    CU_ASSERT_PTR_EQUAL(rsql_opt_find(dg->opts, "FIELDS.Id.KIND"), d);
    CU_ASSERT_PTR_NULL(rsql_opt_find(dg->opts, "fields..kind"));
    CU_ASSERT_PTR_NULL(rsql_opt_find(dg->opts, "fields.id.kinds"));
    CU_ASSERT_PTR_NULL(rsql_opt_find(dg->opts, "field.id.kind"));
    CU_ASSERT_STRING_EQUAL(rsql_opt_find(dg->opts, "ROWS-PER-SECOND")->name, "rows-per-second");
}

static void test_opts_suggest(void)
{
    const rsql_opt_def_t *rmq[1] = {rsql_connector_find("rocketmq-grpc")->opts};
    const rsql_opt_def_t *dg[1] = {rsql_connector_find("datagen")->opts};
    char out[128];
    CU_ASSERT(rsql_opt_suggest_key(rmq, 1, "topik", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "topic");
    CU_ASSERT(rsql_opt_suggest_key(rmq, 1, "source.batchsize", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "source.batch-size");
    CU_ASSERT(rsql_opt_suggest_key(rmq, 1, "source.bacth-size", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "source.batch-size");
    CU_ASSERT(rsql_opt_suggest_key(rmq, 1, "consumer-group", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "source.consumer-group");
    CU_ASSERT(rsql_opt_suggest_key(rmq, 1, "rocketmq.source.consumer-group", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "source.consumer-group");
    CU_ASSERT(rsql_opt_suggest_key(rmq, 1, "ENDPOINT", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "endpoints");
    CU_ASSERT(!rsql_opt_suggest_key(rmq, 1, "zzzzzz", out, sizeof out));
    CU_ASSERT(!rsql_opt_suggest_key(rmq, 1, "", out, sizeof out));
    CU_ASSERT(rsql_opt_suggest_key(dg, 1, "fields.id.kinf", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "fields.id.kind");
    CU_ASSERT(rsql_opt_suggest_key(dg, 1, "rows-per-secnd", out, sizeof out));
    CU_ASSERT_STRING_EQUAL(out, "rows-per-second");
    CU_ASSERT(!rsql_opt_suggest_key(dg, 1, "qqqqqqqq", out, sizeof out));
}

/* ---- exact error messages */

static void test_opts_error_unknown_key(void)
{
    expect_fail((const char *const[]){"connector", "filesystem", "path", "/tmp/x", "pth", "y",
                                      NULL},
                RSQL_ERR_BAD_OPTION,
                "unknown option 'pth' for connector 'filesystem' (did you mean 'path'?); valid "
                "options: connector, path, format, csv.header, scan.follow, scan.poll-interval, "
                "sink.sync, json.fail-on-missing-field, json.timestamp-format",
                200);
    expect_fail((const char *const[]){"connector", "blackhole", "zzz", "1", NULL},
                RSQL_ERR_BAD_OPTION,
                "unknown option 'zzz' for connector 'blackhole'; valid options: connector", 100);
    expect_fail((const char *const[]){"connector", "datagen", "fields.id.kinf", "random", NULL},
                RSQL_ERR_BAD_OPTION,
                "unknown option 'fields.id.kinf' for connector 'datagen' (did you mean "
                "'fields.id.kind'?); valid options: connector, rows-per-second, number-of-rows, "
                "seed, fields.#.kind, fields.#.min, fields.#.max, fields.#.length, "
                "fields.#.start, fields.#.end",
                100);

    /* the long rocketmq-grpc list is cut at a name boundary to fit the message */
    rsql_error_t err;
    rsql_optset_t *set = with((const char *const[]){RMQ, "topik", "x", NULL}, NULL, -1, &err,
                              NULL);
    CU_ASSERT_PTR_NULL(set);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_OPTION);
    CU_ASSERT_EQUAL(err.pos.off, 300);
    const char *head = "unknown option 'topik' for connector 'rocketmq-grpc' (did you mean "
                       "'topic'?); valid options: connector, endpoints, namespace, access-key, "
                       "secret-key, tls, tls.ca-file, tls.server-name, tls.cert-file, "
                       "tls.key-file, request-timeout, topic, format, source.mode, ";
    CU_ASSERT_NSTRING_EQUAL(err.msg, head, strlen(head));
    size_t len = strlen(err.msg);
    CU_ASSERT(len < sizeof err.msg);
    if (len > sizeof err.msg - 8) {
        /* still cut: ends with ", ..." after a whole name */
        CU_ASSERT_STRING_EQUAL(err.msg + len - 5, ", ...");
    } else {
        CU_ASSERT(strstr(err.msg, "sink.batch-size, sink.linger, sink.changelog-order, "
                                  "lanes.idle-timeout, json.fail-on-missing-field") != NULL);
    }
}

static void test_opts_error_values(void)
{
    expect_fail((const char *const[]){RMQ, "source.batch-size", "abc", NULL}, RSQL_ERR_BAD_OPTION,
                "invalid value 'abc' for option 'source.batch-size': expected an integer", 350);
    expect_fail((const char *const[]){RMQ, "source.batch-size", "64", NULL}, RSQL_ERR_BAD_OPTION,
                "option 'source.batch-size' must be between 1 and 32, got '64'", 350);
    expect_fail((const char *const[]){RMQ, "tls", "maybe", NULL}, RSQL_ERR_BAD_OPTION,
                "invalid value 'maybe' for option 'tls': expected true or false", 350);
    expect_fail((const char *const[]){RMQ, "source.mode", "fast", NULL}, RSQL_ERR_BAD_OPTION,
                "invalid value 'fast' for option 'source.mode': expected one of simple, lite",
                350);
    expect_fail((const char *const[]){RMQ, "request-timeout", "3 s", NULL}, RSQL_ERR_BAD_OPTION,
                "invalid value '3 s' for option 'request-timeout': expected a duration such as "
                "500ms, 20s, 30min, 1h",
                350);
    expect_fail((const char *const[]){RMQ, "request-timeout", "10min", NULL}, RSQL_ERR_BAD_OPTION,
                "option 'request-timeout' must be between 100ms and 5min, got '10min'", 350);
    expect_fail((const char *const[]){RMQ, "lanes.idle-timeout", "0ms", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'lanes.idle-timeout' must be between 100ms and 1d, got '0ms'", 350);
    expect_fail((const char *const[]){RMQ, "source.invisible-duration", "5s", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.invisible-duration' must be between 10s and 12h, got '5s'", 350);
    expect_fail((const char *const[]){RMQ, "throttle.rate-per-lite-topic", "200", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value '200' for option 'throttle.rate-per-lite-topic': expected a rate "
                "such as 200/s",
                350);
    expect_fail((const char *const[]){RMQ, "source.lite-topics", "a,,b", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value 'a,,b' for option 'source.lite-topics': expected a "
                "comma-separated list of non-empty names",
                350);
    expect_fail((const char *const[]){RMQ, "secret-key", "", NULL}, RSQL_ERR_BAD_OPTION,
                "option 'secret-key' must not be empty", 350);
    expect_fail((const char *const[]){"connector", "rocketmq-grpc", "endpoints", "localhost",
                                      "topic", "t", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value 'localhost' for option 'endpoints': expected host:port, or "
                "several separated by commas",
                150);
    expect_fail((const char *const[]){"connector", "rocketmq-grpc", "endpoints", "a:1,b:99999",
                                      "topic", "t", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value 'a:1,b:99999' for option 'endpoints': expected host:port, or "
                "several separated by commas",
                150);
    expect_fail((const char *const[]){"connector", "filesystem", "path", "p", "format", "csv",
                                      "csv.field-delimiter", ";;", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value ';;' for option 'csv.field-delimiter': expected a single "
                "character",
                350);
    expect_fail((const char *const[]){"connector", "filesystem", "path", "p", "format", "csv",
                                      "csv.quote-character", ",", NULL},
                RSQL_ERR_BAD_OPTION,
                "options 'csv.field-delimiter' and 'csv.quote-character' must differ", 350);
    {
        rsql_error_t e;
        rsql_optset_t *ok = with((const char *const[]){"connector", "filesystem", "path", "p",
                                                       "format", "csv", "csv.field-delimiter",
                                                       "\\t", "csv.quote-character", "", NULL},
                                 NULL, -1, &e, NULL);
        CU_ASSERT_PTR_NOT_NULL(ok);
        rsql_optset_destroy(ok);
        ok = with((const char *const[]){"connector", "filesystem", "path", "p", "format", "csv",
                                        "csv.field-delimiter", "TAB", NULL},
                  NULL, -1, &e, NULL);
        CU_ASSERT_PTR_NOT_NULL(ok);
        rsql_optset_destroy(ok);
    }
    expect_fail((const char *const[]){"connector", "datagen", "fields.id.min", "low", NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value 'low' for option 'fields.id.min': expected a number", 150);
    expect_fail((const char *const[]){"connector", "datagen", "rows-per-second", "-1", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'rows-per-second' must be between 0 and 1000000000, got '-1'", 150);
    expect_fail((const char *const[]){"connector", "datagen", "number-of-rows", "-1", NULL},
                RSQL_ERR_BAD_OPTION, "option 'number-of-rows' must be at least 0, got '-1'",
                150);
    expect_fail((const char *const[]){"connector", "filesystem", "path", "p", "format", "xml",
                                      NULL},
                RSQL_ERR_BAD_OPTION,
                "invalid value 'xml' for option 'format': expected one of json, csv, raw, "
                "debezium-json, canal-json, maxwell-json",
                250);

    /* SIZE rows: no connector uses one yet, so a table of our own */
    static const rsql_opt_def_t t[] = {
        {"buffer", RSQL_OPT_SIZE, 0, "4MB", 1024, INT64_C(1) << 30, NULL, "b", NULL},
        RSQL_OPT_END,
    };
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_opt_check_value(&t[0], "buffer", "4 MB", (rsql_pos_t){3, 1}, &err),
                    RSQL_ERR_BAD_OPTION);
    CU_ASSERT_STRING_EQUAL(err.msg, "invalid value '4 MB' for option 'buffer': expected a size "
                                    "such as 512, 64KB, 4MB, 1GB");
    CU_ASSERT_EQUAL(err.pos.off, 3);
    rsql_error_clear(&err);
    rsql_opt_check_value(&t[0], "buffer", "2GB", (rsql_pos_t){3, 1}, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "option 'buffer' must be between 1KB and 1GB, got '2GB'");
    CU_ASSERT_EQUAL(rsql_opt_check_value(&t[0], "buffer", "64KB", RSQL_NOPOS, NULL), RSQL_OK);
}

static void test_opts_error_structure(void)
{
    expect_fail((const char *const[]){RMQ, "topic", "u", NULL}, RSQL_ERR_BAD_OPTION,
                "duplicate option 'topic'", 300);
    expect_fail((const char *const[]){RMQ, "TOPIC", "u", NULL}, RSQL_ERR_BAD_OPTION,
                "duplicate option 'TOPIC'", 300);
    expect_fail((const char *const[]){"connector", "rocketmq-grpc", "endpoints", "h:1", NULL},
                RSQL_ERR_MISSING_OPTION,
                "missing required option 'topic' for connector 'rocketmq-grpc'", 7);
    expect_fail((const char *const[]){"connector", "rocketmq", NULL}, RSQL_ERR_BAD_OPTION,
                "unknown connector 'rocketmq' (did you mean 'rocketmq-grpc'?); connectors: "
                "rocketmq-grpc, filesystem, sqlite, datagen, print, blackhole, postgres, "
                "postgres-cdc, kafka, upsert-kafka",
                50);
    expect_fail((const char *const[]){"connector", "pulsar", NULL}, RSQL_ERR_BAD_OPTION,
                "unknown connector 'pulsar'; connectors: rocketmq-grpc, filesystem, sqlite, "
                "datagen, print, blackhole, postgres, postgres-cdc, kafka, upsert-kafka",
                50);
    expect_fail((const char *const[]){"path", "x", NULL}, RSQL_ERR_MISSING_OPTION,
                "missing required option 'connector'", 7);
    expect_fail((const char *const[]){"connector", "filesystem", "path", "p", "format", "csv",
                                      "json.fail-on-missing-field", "true", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'json.fail-on-missing-field' requires 'format' = 'json'", 300);
    expect_fail((const char *const[]){"connector", "filesystem", "path", "p",
                                      "csv.field-delimiter", ";", NULL},
                RSQL_ERR_BAD_OPTION, "option 'csv.field-delimiter' requires 'format' = 'csv'",
                200);
    expect_fail((const char *const[]){"connector", "sqlite", "path", "p", "table", "t",
                                      "json.fail-on-missing-field", "true", NULL},
                RSQL_ERR_BAD_OPTION,
                "unknown option 'json.fail-on-missing-field' for connector 'sqlite'; valid "
                "options: connector, path, table, scan.follow, scan.poll-interval, "
                "sink.batch-size, sink.exactly-once.retention, lookup.cache, "
                "lookup.partial-cache.max-rows, lookup.partial-cache.expire-after-write, "
                "lookup.partial-cache.expire-after-access, "
                "lookup.partial-cache.cache-missing-key, lookup.max-retries",
                300);
    expect_fail((const char *const[]){"connector", "datagen", "fields.x.kind", "random", NULL},
                RSQL_ERR_BAD_OPTION, "unknown column 'x' in option 'fields.x.kind'", 100);
}

static void test_opts_error_finalize(void)
{
    expect_fail((const char *const[]){RMQ, "sink.lite-topic", "a", "sink.lite-topic-column", "c",
                                      NULL},
                RSQL_ERR_BAD_OPTION,
                "options 'sink.lite-topic' and 'sink.lite-topic-column' cannot be used together",
                400);
    expect_fail((const char *const[]){RMQ, "sink.lite-topic-column", "c",
                                      "sink.message-group-column", "g", NULL},
                RSQL_ERR_BAD_OPTION,
                "options 'sink.message-group-column' and 'sink.lite-topic-column' cannot be used "
                "together",
                400);
    expect_fail((const char *const[]){RMQ, "source.lite-topics", "a,b", NULL},
                RSQL_ERR_BAD_OPTION, "option 'source.lite-topics' requires 'source.mode' = 'lite'",
                300);
    expect_fail((const char *const[]){RMQ, "source.lite-clients", "2", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.lite-clients' > 1 requires 'source.mode' = 'lite'", 300);
    expect_fail((const char *const[]){RMQ, "source.mode", "simple", "source.lite-clients", "4",
                                      NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.lite-clients' > 1 requires 'source.mode' = 'lite'", 400);
    expect_fail((const char *const[]){RMQ, "source.lite-clients-min", "2", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.lite-clients-min' > 1 requires 'source.mode' = 'lite'", 300);
    expect_fail((const char *const[]){RMQ, "source.mode", "lite", "source.lite-clients", "2",
                                      "source.lite-clients-min", "3", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.lite-clients-min' (3) must not exceed 'source.lite-clients' (2)",
                500);
    /* the maximum's default (8) bounds the minimum too */
    expect_fail((const char *const[]){RMQ, "source.mode", "lite", "source.lite-clients-min", "9",
                                      NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.lite-clients-min' (9) must not exceed 'source.lite-clients' (8)",
                400);
    expect_fail((const char *const[]){RMQ, "throttle.defer", "2s", NULL}, RSQL_ERR_BAD_OPTION,
                "option 'throttle.defer' requires 'source.mode' = 'lite'", 300);
    expect_fail((const char *const[]){RMQ, "source.mode", "lite", "source.filter-expression",
                                      "TagA", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.filter-expression' requires 'source.mode' = 'simple'", 400);
    expect_fail((const char *const[]){RMQ, "source.renewal-ahead", "30s",
                                      "source.invisible-duration", "20s", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'source.renewal-ahead' (30s) must be shorter than "
                "'source.invisible-duration' (20s)",
                350);
    expect_fail((const char *const[]){RMQ, "source.filter-type", "SQL92", NULL},
                RSQL_ERR_MISSING_OPTION,
                "missing required option 'source.filter-expression' for connector "
                "'rocketmq-grpc' (needed with 'source.filter-type' = 'sql92')",
                350);
    expect_fail((const char *const[]){RMQ, "access-key", "ak", NULL}, RSQL_ERR_MISSING_OPTION,
                "missing required option 'secret-key' for connector 'rocketmq-grpc' (needed "
                "with 'access-key')",
                300);
    expect_fail((const char *const[]){"connector", "filesystem", "path", "p",
                                      "scan.poll-interval", "1s", NULL},
                RSQL_ERR_BAD_OPTION, "option 'scan.poll-interval' requires 'scan.follow' = 'true'",
                200);
    expect_fail((const char *const[]){"connector", "datagen", "fields.id.start", "5", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'fields.id.start' requires 'fields.id.kind' = 'sequence'", 100);
    expect_fail((const char *const[]){"connector", "datagen", "fields.id.kind", "sequence",
                                      "fields.id.length", "5", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'fields.id.length' requires 'fields.id.kind' = 'random'", 200);
    expect_fail((const char *const[]){"connector", "datagen", "fields.price.min", "10",
                                      "fields.price.max", "5", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'fields.price.min' (10) must not be greater than 'fields.price.max' (5)",
                150);
    expect_fail((const char *const[]){"connector", "datagen", "fields.id.kind", "sequence",
                                      "fields.id.end", "0", NULL},
                RSQL_ERR_BAD_OPTION,
                "option 'fields.id.end' (0) must not be less than 'fields.id.start' (1)", 250);

    /* valid combinations pass */
    rsql_error_t err;
    rsql_optset_t *set = with((const char *const[]){RMQ, "source.mode", "LITE",
                                                    "throttle.rate-per-lite-topic", "12000/min",
                                                    "source.lite-topics", "a, b", NULL},
                              NULL, -1, &err, NULL);
    CU_ASSERT_PTR_NOT_NULL(set);
    rsql_optset_destroy(set);
    set = with((const char *const[]){RMQ, "source.filter-type", "sql92",
                                     "source.filter-expression", "a > 1", NULL},
               NULL, -1, &err, NULL);
    CU_ASSERT_PTR_NOT_NULL(set);
    rsql_optset_destroy(set);
}

static void test_opts_side_checks(void)
{
    rsql_error_t err;
    const rsql_connector_def_t *c = NULL;
    rsql_optset_t *set = with((const char *const[]){RMQ, NULL}, NULL, -1, &err, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_PTR_EQUAL(c, rsql_connector_find("rocketmq-grpc"));
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_optset_check_side_for(set, RSQL_SIDE_SOURCE, "orders",
                                               (rsql_pos_t){42, 6}, &err),
                    RSQL_ERR_MISSING_OPTION);
    CU_ASSERT_STRING_EQUAL(err.msg, "missing required option 'source.consumer-group' for "
                                    "connector 'rocketmq-grpc' (needed to read from table "
                                    "'orders')");
    CU_ASSERT_EQUAL(err.pos.off, 42);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_optset_check_side(set, RSQL_SIDE_SOURCE, (rsql_pos_t){1, 1}, &err),
                    RSQL_ERR_MISSING_OPTION);
    CU_ASSERT_STRING_EQUAL(err.msg, "missing required option 'source.consumer-group' for "
                                    "connector 'rocketmq-grpc'");
    CU_ASSERT_EQUAL(rsql_optset_check_side(set, RSQL_SIDE_SINK, RSQL_NOPOS, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_connector_check_side(c, set, RSQL_SIDE_SINK, "out", RSQL_NOPOS, NULL),
                    RSQL_OK);
    rsql_optset_destroy(set);

    set = with((const char *const[]){RMQ, "source.consumer-group", "g", NULL}, NULL, -1, &err,
               &c);
    CU_ASSERT_EQUAL(rsql_connector_check_side(c, set, RSQL_SIDE_SOURCE, "orders", RSQL_NOPOS,
                                              NULL),
                    RSQL_OK);
    rsql_optset_destroy(set);

    set = with((const char *const[]){"connector", "print", NULL}, NULL, -1, &err, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_check_side(c, set, RSQL_SIDE_SOURCE, "out", (rsql_pos_t){9, 3},
                                              &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_STRING_EQUAL(err.msg, "table 'out' cannot be read from: connector 'print' is a "
                                    "sink only");
    CU_ASSERT_EQUAL(err.pos.off, 9);
    CU_ASSERT_PTR_NULL(rsql_connector_format(c, set));
    rsql_optset_destroy(set);

    set = with((const char *const[]){"connector", "datagen", NULL}, NULL, -1, &err, &c);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_connector_check_side(c, set, RSQL_SIDE_SINK, "gen", RSQL_NOPOS, &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_STRING_EQUAL(err.msg, "table 'gen' cannot be written to: connector 'datagen' is a "
                                    "source only");
    rsql_optset_destroy(set);
}

/* ---- values */

static void test_opts_getters_defaults(void)
{
    rsql_error_t err;
    const rsql_connector_def_t *c = NULL;
    rsql_optset_t *set = with((const char *const[]){"CONNECTOR", "RocketMQ-GRPC", "endpoints",
                                                    "h:8081", "Topic", "orders", "source.mode",
                                                    "LITE", "throttle.rate-per-lite-topic",
                                                    "12000/min", "secret-key", "s3cr3t",
                                                    "access-key", "ak", NULL},
                              NULL, -1, &err, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_STRING_EQUAL(c->name, "rocketmq-grpc");
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.batch-size"), 32);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.fetch-concurrency"), 16);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.await-duration"), 20000);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.invisible-duration"), 60000);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.max-invisible-duration"), 1800000);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.max-delivery-attempts"), 16);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "request-timeout"), 3000);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "scan.idle-timeout"), 0);
    CU_ASSERT_FALSE(rsql_optset_has(set, "scan.idle-timeout"));
    CU_ASSERT_PTR_NULL(rsql_optset_str(set, "scan.idle-timeout"));
    CU_ASSERT_FALSE(rsql_optset_bool(set, "tls"));
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "namespace"), "");
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "topic"), "orders");
    CU_ASSERT(rsql_optset_has(set, "TOPIC"));
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "source.mode"), "lite"); /* canonical */
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "format"), "json");
    CU_ASSERT_DOUBLE_EQUAL(rsql_optset_double(set, "throttle.rate-per-lite-topic"), 200.0, 1e-9);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "throttle.max-inflight-per-lite-topic"), 0);
    CU_ASSERT_PTR_EQUAL(rsql_connector_format(c, set), rsql_format_find("json"));
    CU_ASSERT_FALSE(rsql_optset_bool(set, "json.fail-on-missing-field"));

    /* stored in the rows' spelling, secrets masked */
    CU_ASSERT_EQUAL(rsql_optset_count(set), 7);
    CU_ASSERT_STRING_EQUAL(rsql_optset_at(set, 0)->key, "connector");
    CU_ASSERT_STRING_EQUAL(rsql_optset_at(set, 2)->key, "topic");
    CU_ASSERT_EQUAL(rsql_optset_at(set, 2)->key_pos.off, 200);
    CU_ASSERT_STRING_EQUAL(rsql_optset_def_at(set, 2)->name, "topic");
    CU_ASSERT_STRING_EQUAL(rsql_optset_at(set, 5)->value, "s3cr3t");
    CU_ASSERT_STRING_EQUAL(shown(set, 5), "******");
    CU_ASSERT_STRING_EQUAL(shown(set, 6), "ak");
    CU_ASSERT_STRING_EQUAL(shown(set, 7), "");
    CU_ASSERT(rsql_connector_is_secret(c, "secret-key"));
    CU_ASSERT(rsql_connector_is_secret(c, "SECRET-KEY"));
    CU_ASSERT_FALSE(rsql_connector_is_secret(c, "access-key"));
    CU_ASSERT_FALSE(rsql_connector_is_secret(c, "nope"));
    rsql_optset_destroy(set);

    /* '#' rows: per column, default when not given, column kept as written */
    static const char *const cols[] = {"id", "Name"};
    set = with((const char *const[]){"connector", "datagen", "FIELDS.name.LENGTH", "5",
                                     "fields.id.kind", "Sequence", "number-of-rows", "100", NULL},
               cols, 2, &err, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_STRING_EQUAL(rsql_optset_at(set, 1)->key, "fields.name.length");
    CU_ASSERT_EQUAL(rsql_optset_int(set, "fields.name.length"), 5);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "fields.Name.length"), 5);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "fields.other.length"), 10);
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "fields.id.kind"), "sequence");
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "fields.name.kind"), "random");
    CU_ASSERT_EQUAL(rsql_optset_int(set, "fields.id.start"), 1);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "number-of-rows"), 100);
    CU_ASSERT_EQUAL(rsql_optset_int(set, "rows-per-second"), 10000);
    CU_ASSERT_PTR_NULL(rsql_optset_str(set, "seed"));
    CU_ASSERT_STRING_EQUAL(rsql_optset_lookup_def(set, "fields.q.max")->name, "fields.#.max");
    CU_ASSERT_EQUAL(rsql_optset_find(set, "NUMBER-OF-ROWS"), 3);
    CU_ASSERT_EQUAL(rsql_optset_find(set, "seed"), -1);
    rsql_optset_destroy(set);

    /* the engine alone: no 'what', columns unchecked */
    const rsql_opt_def_t *tables[1] = {rsql_connector_find("datagen")->opts};
    rsql_opt_kv_t kv[2] = {{"connector", "datagen", RSQL_NOPOS, RSQL_NOPOS},
                           {"fields.anything.kind", "random", RSQL_NOPOS, RSQL_NOPOS}};
    rsql_error_clear(&err);
    set = rsql_optset_new(tables, 1, NULL, kv, 2, NULL, -1, &err);
    CU_ASSERT_PTR_NOT_NULL(set);
    rsql_optset_destroy(set);
    kv[1].key = "bogus";
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_optset_new(tables, 1, NULL, kv, 2, NULL, -1, &err));
    CU_ASSERT_NSTRING_EQUAL(err.msg, "unknown option 'bogus'; valid options: connector, ", 50);
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_optset_new(tables, 1, NULL, kv + 1, 0, NULL, -1, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "missing required option 'connector'");
    CU_ASSERT_EQUAL(err.pos.off, RSQL_POS_NONE);
}

/* ---- the tables themselves */

static void check_table(const char *owner, const rsql_opt_def_t *t, const rsql_opt_def_t *other,
                        const char *prefix)
{
    for (const rsql_opt_def_t *d = t; d->name; d++) {
        char where[200];
        snprintf(where, sizeof where, "%s: %s", owner, d->name);
        int bad = 0;
        /* names: unique (also against the format table), lower case, at most one '#' */
        for (const rsql_opt_def_t *e = t; e < d; e++) {
            bad += strcasecmp(e->name, d->name) == 0;
        }
        for (const rsql_opt_def_t *e = other; e && e->name; e++) {
            bad += strcasecmp(e->name, d->name) == 0;
        }
        for (const char *p = d->name; *p; p++) {
            bad += (*p >= 'A' && *p <= 'Z') || *p == ' ';
        }
        const char *h = strchr(d->name, '#');
        bad += h && strchr(h + 1, '#') != NULL;
        bad += prefix && strncmp(d->name, prefix, strlen(prefix)) != 0;
        /* docs written */
        bad += !d->doc || strlen(d->doc) < 10 || d->doc[strlen(d->doc) - 1] != '.';
        /* enums have values; defaults parse and pass their own checks */
        bad += d->type == RSQL_OPT_ENUM && (!d->enum_vals || !d->enum_vals[0]);
        bad += d->vmin > d->vmax;
        if (d->def) {
            rsql_error_t err;
            rsql_error_clear(&err);
            if (rsql_opt_check_value(d, d->name, d->def, RSQL_NOPOS, &err) != RSQL_OK) {
                fprintf(stderr, "\n  %s: %s\n", where, err.msg);
                bad++;
            }
        }
        bad += (d->flags & RSQL_OPT_F_REQUIRED) && d->def != NULL;
        bad += (d->flags & RSQL_OPT_F_SOURCE) && (d->flags & RSQL_OPT_F_SINK);
        if (bad) {
            fprintf(stderr, "\n  bad row %s\n", where);
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
}

static void test_opts_tables_well_formed(void)
{
    const rsql_connector_def_t *const *cs = rsql_connector_list();
    int n = 0;
    for (; cs[n]; n++) {
        const rsql_connector_def_t *c = cs[n];
        CU_ASSERT_FATAL(n < 64);
        CU_ASSERT_PTR_EQUAL(rsql_connector_find(c->name), c); /* also: names are unique */
        /* typed configuration: every single-key option reaches the connector's struct, but
           for a pass-through family ("properties.*", its SECRET rows included: read by key) */
        for (const rsql_opt_def_t *d = c->opts + 1; d->name; d++) {
            size_t len = strlen(d->name);
            bool family = len >= 2 && strcmp(d->name + len - 2, ".*") == 0;
            for (const rsql_opt_def_t *f = c->opts + 1; f->name && !family; f++) {
                size_t flen = strlen(f->name);
                family = flen >= 2 && strcmp(f->name + flen - 2, ".*") == 0 &&
                         strncmp(d->name, f->name, flen - 1) == 0 && d->field == 0;
            }
            if (!strchr(d->name, '#') && !family) {
                CU_ASSERT(d->field != 0 && c->conf_size != 0);
                if (d->field == 0) {
                    fprintf(stderr, "\n  %s: option '%s' has no field\n", c->name, d->name);
                }
            }
        }
        CU_ASSERT(c->description && strlen(c->description) > 20);
        CU_ASSERT(c->caps != 0);
        /* the 'connector' row comes first and is required */
        CU_ASSERT_STRING_EQUAL(c->opts[0].name, "connector");
        CU_ASSERT(c->opts[0].flags & RSQL_OPT_F_REQUIRED);
        const rsql_opt_def_t *frow = rsql_opt_find(c->opts, "format");
        CU_ASSERT((frow != NULL) == (c->formats != NULL));
        if (frow) {
            /* the 'format' row's values are exactly the connector's formats */
            CU_ASSERT_EQUAL(frow->type, RSQL_OPT_ENUM);
            CU_ASSERT_PTR_EQUAL(frow->enum_vals, c->formats);
            for (const char *const *f = c->formats; *f; f++) {
                const rsql_format_def_t *fd = rsql_format_find(*f);
                CU_ASSERT_PTR_NOT_NULL_FATAL(fd);
                check_table(c->name, c->opts, fd->opts, NULL);
            }
        } else {
            check_table(c->name, c->opts, NULL, NULL);
        }
        /* sides flags only on connectors that have that side */
        for (const rsql_opt_def_t *d = c->opts; d->name; d++) {
            CU_ASSERT(!(d->flags & RSQL_OPT_F_SOURCE) || (c->caps & RSQL_CAP_SOURCE));
            CU_ASSERT(!(d->flags & RSQL_OPT_F_SINK) || (c->caps & RSQL_CAP_SINK));
        }
        /* the minimal valid set: required non-side rows only */
        rsql_opt_kv_t kvs[8];
        int k = 0;
        for (const rsql_opt_def_t *d = c->opts; d->name; d++) {
            if ((d->flags & RSQL_OPT_F_REQUIRED) && !strchr(d->name, '#')) {
                kvs[k].key = d->name;
                kvs[k].value = strcmp(d->name, "connector") == 0   ? c->name
                               : strcmp(d->name, "endpoints") == 0 ? "h:1"
                                                                   : "x";
                kvs[k].key_pos = kvs[k].value_pos = RSQL_NOPOS;
                k++;
            }
        }
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_optset_t *set = rsql_connector_validate(kvs, k, NULL, 0, RSQL_NOPOS, NULL, &err);
        CU_ASSERT_PTR_NOT_NULL(set);
        if (!set) {
            fprintf(stderr, "\n  %s: %s\n", c->name, err.msg);
        }
        /* every default reads back through the getters without aborting */
        for (const rsql_opt_def_t *d = c->opts; set && d->name; d++) {
            if (!strchr(d->name, '#')) {
                const char *v = rsql_optset_str(set, d->name);
                CU_ASSERT((v == NULL) == (d->def == NULL) || rsql_optset_has(set, d->name));
            }
        }
        rsql_optset_destroy(set);
    }
    CU_ASSERT(n >= 1);
    CU_ASSERT_PTR_NULL(rsql_connector_find("nope"));
    CU_ASSERT_PTR_EQUAL(rsql_connector_find("FileSystem"), rsql_connector_find("filesystem"));

    const rsql_format_def_t *const *fs = rsql_format_list();
    int nf = 0;
    for (; fs[nf]; nf++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%s.", fs[nf]->name);
        CU_ASSERT(fs[nf]->description && strlen(fs[nf]->description) > 20);
        check_table(fs[nf]->name, fs[nf]->opts, NULL, prefix);
        for (const rsql_opt_def_t *d = fs[nf]->opts; d->name; d++) {
            CU_ASSERT(d->field != 0 && fs[nf]->conf_size != 0);
        }
    }
    CU_ASSERT_EQUAL(nf, 6);
    check_table("settings", rsql_settings_defs(), NULL, NULL);
    CU_ASSERT_STRING_EQUAL(rsql_connector_sides(rsql_connector_find("rocketmq-grpc")),
                           "source, sink");
    CU_ASSERT_STRING_EQUAL(rsql_connector_sides(rsql_connector_find("datagen")), "source");
    CU_ASSERT_STRING_EQUAL(rsql_connector_sides(rsql_connector_find("sqlite")),
                           "source, sink, lookup");
    CU_ASSERT_STRING_EQUAL(rsql_connector_sides(rsql_connector_find("print")), "sink");
}

static void test_opts_markdown(void)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_opts_markdown(rsql_connector_find("rocketmq-grpc")->opts, &b);
    const char *s = rsql_buf_str(&b);
    CU_ASSERT_NSTRING_EQUAL(s, "| option | type | default | required | description |\n|---|", 58);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "| `source.batch-size` | int | `32` | no | "));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "From 1 to 32. |\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "| `source.consumer-group` | string |  | to read | "));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "| `topic` | string |  | yes | "));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "One of: `simple`, `lite`."));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "From 10s to 12h."));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "`TagA \\|\\| TagB`")); /* pipes escaped */
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "Secret: shown as `******` (a reference as written)."));
    rsql_buf_reset(&b);

    rsql_connector_docs_markdown(&b);
    s = rsql_buf_str(&b);
    CU_ASSERT_NSTRING_EQUAL(s, "# Connectors, formats and settings\n", 35);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "generated by `rocketsql --list-options=md`"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "`make check`"));
    const char *const heads[] = {"### `rocketmq-grpc`", "### `filesystem`", "### `sqlite`",
                                 "### `datagen`",       "### `print`",      "### `blackhole`",
                                 "## Formats",          "### `json`",       "### `csv`",
                                 "### `raw`",           "## Session settings"};
    const char *prev = s;
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        const char *p = strstr(s, heads[i]);
        CU_ASSERT(p != NULL && p > prev);
        prev = p ? p : prev;
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "| `errors.tolerance` | enum | `none` | no |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "| [`print`](#connector-print) | sink | `json`, `csv` |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "| `fields.#.kind` | enum | `random` |"));
    CU_ASSERT_FALSE(b.oom);
    rsql_buf_deinit(&b);
}

/* ---- out of memory */

static void test_opts_oom_sweep(void)
{
    static const char *const cols[] = {"id"};
    const char *const kv[] = {RMQ, "source.mode", "lite", "throttle.defer", "2s", "sink.tag", "t",
                              NULL};
    const char *const kv2[] = {"connector", "datagen", "fields.id.kind", "sequence", "bogus", "1",
                               NULL};
    int ok = 0;
    for (long n = 1; n < 200 && !ok; n++) {
        rsql_error_t err;
        rsql_mem_fail_after(n);
        rsql_optset_t *set = with(kv, cols, 1, &err, NULL);
        rsql_mem_fail_after(0);
        if (set) {
            ok = 1;
            CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "sink.tag"), "t");
        } else {
            CU_ASSERT_EQUAL(err.code, RSQL_ERR_NOMEM);
        }
        rsql_optset_destroy(set);
    }
    CU_ASSERT(ok);
    for (long n = 1; n < 50; n++) {
        rsql_error_t err;
        rsql_mem_fail_after(n);
        rsql_optset_t *set = with(kv2, cols, 1, &err, NULL);
        rsql_mem_fail_after(0);
        CU_ASSERT_PTR_NULL(set);
        CU_ASSERT(err.code == RSQL_ERR_NOMEM || err.code == RSQL_ERR_BAD_OPTION);
    }
    ok = 0;
    for (long n = 1; n < 50 && !ok; n++) {
        rsql_settings_t *s = rsql_settings_new();
        if (!s) {
            continue;
        }
        rsql_opt_kv_t kvs[2] = {{"errors.tolerance", "all", RSQL_NOPOS, RSQL_NOPOS},
                                {"status.interval", "2s", RSQL_NOPOS, RSQL_NOPOS}};
        rsql_mem_fail_after(n);
        rsql_err_t rc = rsql_settings_import(s, kvs, 2, NULL);
        rsql_mem_fail_after(0);
        CU_ASSERT(rc == RSQL_OK || rc == RSQL_ERR_NOMEM);
        if (rc == RSQL_OK) {
            ok = 1;
            CU_ASSERT_EQUAL(rsql_settings_int(s, "status.interval"), 2000);
        } else {
            CU_ASSERT_FALSE(setting_is_set(s, "errors.tolerance"));
        }
        rsql_settings_destroy(s);
    }
    CU_ASSERT(ok);
}

static CU_TestInfo opts_tests[] = {
    {"test_opts_parse_bool_int_double", test_opts_parse_bool_int_double},
    {"test_opts_parse_size_duration_rate", test_opts_parse_size_duration_rate},
    {"test_opts_format_units", test_opts_format_units},
    {"test_opts_find_hash_rows", test_opts_find_hash_rows},
    {"test_opts_suggest", test_opts_suggest},
    {"test_opts_error_unknown_key", test_opts_error_unknown_key},
    {"test_opts_error_values", test_opts_error_values},
    {"test_opts_error_structure", test_opts_error_structure},
    {"test_opts_error_finalize", test_opts_error_finalize},
    {"test_opts_side_checks", test_opts_side_checks},
    {"test_opts_getters_defaults", test_opts_getters_defaults},
    {"test_opts_tables_well_formed", test_opts_tables_well_formed},
    {"test_opts_markdown", test_opts_markdown},
    {"test_opts_oom_sweep", test_opts_oom_sweep},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"opts", NULL, NULL, NULL, NULL, opts_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
