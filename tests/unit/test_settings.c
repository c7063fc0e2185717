/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the session settings (base/rsql_settings.c): SET/GET/RESET with the exact
 * text and position of every error, the restart-strategy.type alias, and export/import.
 */
#include "config.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_settings.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

/* ---- settings */

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

static void test_settings_set_get_reset(void)
{
    rsql_settings_t *s = rsql_settings_new();
    rsql_error_t err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "errors.tolerance"), "none");
    CU_ASSERT_PTR_NULL(rsql_settings_get(s, "errors.dlq.table"));
    CU_ASSERT_PTR_NULL(rsql_settings_get(s, "nope"));
    CU_ASSERT_EQUAL(rsql_settings_int(s, "pipeline.queue-capacity"), 2048);
    CU_ASSERT_EQUAL(rsql_settings_int(s, "errors.retry.timeout"), 30000);
    CU_ASSERT_EQUAL(rsql_settings_int(s, "state.flush-interval"), 1000);
    CU_ASSERT_EQUAL(rsql_settings_int(s, "sql.preview-limit"), 100);
    CU_ASSERT_DOUBLE_EQUAL(rsql_settings_double(s, "pipeline.batch-size"), 512.0, 1e-9);
    CU_ASSERT_FALSE(setting_is_set(s, "errors.tolerance"));

    CU_ASSERT_EQUAL(rsql_settings_set(s, "ERRORS.TOLERANCE", "ALL", RSQL_NOPOS, RSQL_NOPOS, NULL),
                    RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "errors.tolerance"), "all");
    CU_ASSERT(setting_is_set(s, "errors.tolerance"));
    CU_ASSERT_EQUAL(rsql_settings_set(s, "state.flush-interval", "250ms", RSQL_NOPOS, RSQL_NOPOS,
                                      NULL),
                    RSQL_OK);
    CU_ASSERT_EQUAL(rsql_settings_int(s, "state.flush-interval"), 250);

    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_set(s, "errors.tolerence", "all", (rsql_pos_t){4, 16},
                                      (rsql_pos_t){23, 5}, &err),
                    RSQL_ERR_BAD_SETTING);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown setting 'errors.tolerence' (did you mean "
                                    "'errors.tolerance'?); valid settings: errors.tolerance, "
                                    "errors.dlq.table, errors.retry.timeout, "
                                    "errors.retry.backoff-max, pipeline.queue-capacity, "
                                    "pipeline.batch-size, pipeline.memory, state.flush-interval, "
                                    "sql.preview-limit, status.interval, restart-strategy, "
                                    "restart-strategy.type, "
                                    "restart-strategy.fixed-delay.attempts, "
                                    "restart-strategy.fixed-delay.delay, "
                                    "restart-strategy.exponential-delay.initial-backoff, "
                                    "restart-strategy.exponential-delay.max-backoff, "
                                    "restart-strategy.exponential-delay.backoff-multiplier, "
                                    "restart-strategy.exponential-delay.jitter-factor, "
                                    "restart-strategy.exponential-delay.reset-backoff-threshold, "
                                    "restart-strategy.exponential-delay."
                                    "attempts-before-reset-backoff, http.address, state.memory, table.exec.state.ttl, "
                           "table.exec.source.idle-timeout, table.exec.late-rows, "
                           "table.exec.mini-batch.enabled, table.exec.mini-batch.allow-latency, "
                           "table.exec.mini-batch.size, "
                           "state.checkpoint.interval, table.exec.async-lookup.buffer-capacity, "
                           "...");
    CU_ASSERT_EQUAL(err.pos.off, 4);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_set(s, "errors.tolerance", "some", (rsql_pos_t){4, 16},
                                      (rsql_pos_t){23, 6}, &err),
                    RSQL_ERR_BAD_SETTING);
    CU_ASSERT_STRING_EQUAL(err.msg, "invalid value 'some' for setting 'errors.tolerance': "
                                    "expected one of none, all");
    CU_ASSERT_EQUAL(err.pos.off, 23);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "errors.tolerance"), "all"); /* unchanged */
    rsql_error_clear(&err);
    rsql_settings_set(s, "pipeline.queue-capacity", "5", RSQL_NOPOS, (rsql_pos_t){30, 3}, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "setting 'pipeline.queue-capacity' must be between 16 and "
                                    "1000000, got '5'");
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_SETTING);
    rsql_error_clear(&err);
    rsql_settings_set(s, "errors.dlq.table", "", RSQL_NOPOS, RSQL_NOPOS, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "setting 'errors.dlq.table' must not be empty");
    rsql_error_clear(&err);
    rsql_settings_set(s, "status.interval", "fast", RSQL_NOPOS, RSQL_NOPOS, &err);
    CU_ASSERT_STRING_EQUAL(err.msg, "invalid value 'fast' for setting 'status.interval': "
                                    "expected a duration such as 500ms, 20s, 30min, 1h");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_reset(s, "sttus.interval", (rsql_pos_t){6, 14}, &err),
                    RSQL_ERR_BAD_SETTING);
    CU_ASSERT_NSTRING_EQUAL(err.msg, "unknown setting 'sttus.interval' (did you mean "
                                     "'status.interval'?); ", 67);

    /* SHOW SETTINGS */
    CU_ASSERT_EQUAL(rsql_settings_count(), 32);
    rsql_setting_info_t info;
    rsql_settings_info(s, 0, &info);
    CU_ASSERT_STRING_EQUAL(info.key, "errors.tolerance");
    CU_ASSERT_STRING_EQUAL(info.value, "all");
    CU_ASSERT_STRING_EQUAL(info.def, "none");
    CU_ASSERT(info.is_set && info.job);
    rsql_settings_info(s, 8, &info);
    CU_ASSERT_STRING_EQUAL(info.key, "sql.preview-limit");
    CU_ASSERT(!info.is_set && !info.job);

    /* dup is deep; reset one, then all */
    rsql_settings_t *d = rsql_settings_dup(s);
    CU_ASSERT_EQUAL(rsql_settings_reset(s, "errors.tolerance", RSQL_NOPOS, NULL), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "errors.tolerance"), "none");
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(d, "errors.tolerance"), "all");
    CU_ASSERT_EQUAL(rsql_settings_reset(d, NULL, RSQL_NOPOS, NULL), RSQL_OK);
    CU_ASSERT_FALSE(setting_is_set(d, "errors.tolerance"));
    CU_ASSERT_FALSE(setting_is_set(d, "state.flush-interval"));
    rsql_settings_destroy(d);
    rsql_settings_destroy(s);
    rsql_settings_destroy(NULL);
}

/* restart-strategy.type (Flink's newer key) is restart-strategy under another name. */
static void test_settings_restart_type_alias(void)
{
    rsql_settings_t *s = rsql_settings_new();
    rsql_error_t err;
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "restart-strategy"), "exponential-delay");
    CU_ASSERT_EQUAL(rsql_settings_set(s, "restart-strategy.type", "FIXED-DELAY", RSQL_NOPOS,
                                      RSQL_NOPOS, NULL),
                    RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "restart-strategy"), "fixed-delay");
    /* the same value under the other key is fine; a different one is an error */
    CU_ASSERT_EQUAL(rsql_settings_set(s, "restart-strategy", "fixed-delay", RSQL_NOPOS,
                                      RSQL_NOPOS, NULL),
                    RSQL_OK);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_set(s, "restart-strategy", "none", (rsql_pos_t){1, 5},
                                      (rsql_pos_t){1, 28}, &err),
                    RSQL_ERR_BAD_SETTING);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "conflicts with 'restart-strategy.type'"));
    CU_ASSERT_EQUAL(err.pos.off, 1);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "restart-strategy"), "fixed-delay");
    CU_ASSERT_EQUAL(rsql_settings_reset(s, "restart-strategy.type", RSQL_NOPOS, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_settings_set(s, "restart-strategy", "none", RSQL_NOPOS, RSQL_NOPOS,
                                      NULL),
                    RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(s, "restart-strategy"), "none");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_set(s, "restart-strategy.type", "exponential-delay",
                                      RSQL_NOPOS, RSQL_NOPOS, &err),
                    RSQL_ERR_BAD_SETTING);
    rsql_settings_destroy(s);
}

static void test_settings_export_import(void)
{
    rsql_settings_t *s = rsql_settings_new();
    rsql_settings_set(s, "sql.preview-limit", "5", RSQL_NOPOS, RSQL_NOPOS, NULL);
    rsql_settings_set(s, "errors.dlq.table", "dlq", RSQL_NOPOS, RSQL_NOPOS, NULL);
    rsql_settings_set(s, "errors.tolerance", "all", RSQL_NOPOS, RSQL_NOPOS, NULL);
    rsql_opt_kv_t kv[16];
    CU_ASSERT_EQUAL(rsql_settings_export(s, false, kv, 16), 3);
    CU_ASSERT_EQUAL(rsql_settings_export(s, true, kv, 1), 2); /* count past cap */
    int n = rsql_settings_export(s, true, kv, 16);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(kv[0].key, "errors.tolerance");
    CU_ASSERT_STRING_EQUAL(kv[0].value, "all");
    CU_ASSERT_STRING_EQUAL(kv[1].key, "errors.dlq.table");
    CU_ASSERT_STRING_EQUAL(kv[1].value, "dlq");

    rsql_settings_t *job = rsql_settings_new();
    CU_ASSERT_EQUAL(rsql_settings_import(job, kv, n, NULL), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(job, "errors.dlq.table"), "dlq");
    CU_ASSERT_STRING_EQUAL(rsql_settings_get(job, "errors.tolerance"), "all");
    CU_ASSERT_FALSE(setting_is_set(job, "sql.preview-limit"));

    /* all or nothing */
    rsql_opt_kv_t bad[2] = {{"pipeline.batch-size", "10", RSQL_NOPOS, RSQL_NOPOS},
                            {"pipeline.batch-size", "0", RSQL_NOPOS, RSQL_NOPOS}};
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_settings_import(job, bad, 2, &err), RSQL_ERR_BAD_SETTING);
    CU_ASSERT_STRING_EQUAL(err.msg, "setting 'pipeline.batch-size' must be between 1 and 100000, "
                                    "got '0'");
    CU_ASSERT_FALSE(setting_is_set(job, "pipeline.batch-size"));
    rsql_settings_destroy(job);
    rsql_settings_destroy(s);
}

static CU_TestInfo settings_tests[] = {
    {"test_settings_set_get_reset", test_settings_set_get_reset},
    {"test_settings_export_import", test_settings_export_import},
    {"test_settings_restart_type_alias", test_settings_restart_type_alias},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"settings", NULL, NULL, NULL, NULL, settings_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
