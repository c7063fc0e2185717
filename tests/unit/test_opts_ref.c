/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of option values kept outside the catalog (base/rsql_opts_ref.c
 * and its use by the options engine and the connector registry):
 * ${env:NAME} and ${file:PATH} are kept as written until a set is built with
 * RSQL_OPTSET_RESOLVE, then replaced by the variable or file; errors name
 * the variable or file at the value's position and never show a resolved
 * value; display values are the reference or "******".
 */
#include "config.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_conf.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/cu_opts.h"

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

/* Validate key, value, ..., NULL with flags (cu_opts.h's offsets). */
static rsql_optset_t *with(const char *const *kv, unsigned flags, rsql_error_t *err)
{
    static const char *const cols[] = {"id", "name"};
    return cu_opts_validate(kv, cols, 2, flags, NULL, err);
}

static void expect_fail(const char *const *kv, unsigned flags, const char *msg, uint32_t off)
{
    rsql_error_t err;
    rsql_optset_t *set = with(kv, flags, &err);
    cu_opts_failed(set, &err, RSQL_ERR_BAD_OPTION, msg, off);
}

/* A temporary file holding text; its path in path. */
static void temp_file(char *path, size_t size, const char *text, size_t len)
{
    snprintf(path, size, "/tmp/rsql-test-ref-XXXXXX");
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, len) == (ssize_t)len);
    close(fd);
}

#define RMQ "connector", "rocketmq-grpc", "endpoints", "127.0.0.1:8081", "topic", "t"

static void test_ref_parse_forms(void)
{
    rsql_opt_ref_t r;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_opt_ref_parse("k", "plain", false, RSQL_NOPOS, &r, &err), RSQL_OK);
    CU_ASSERT_EQUAL(r.kind, RSQL_OPT_REF_NONE);
    CU_ASSERT_EQUAL(rsql_opt_ref_parse("k", "${env:A_1}", false, RSQL_NOPOS, &r, &err), RSQL_OK);
    CU_ASSERT_EQUAL(r.kind, RSQL_OPT_REF_ENV);
    CU_ASSERT_EQUAL(r.name_len, 3);
    CU_ASSERT_EQUAL(strncmp(r.name, "A_1", 3), 0);
    CU_ASSERT_EQUAL(rsql_opt_ref_parse("k", "${file:/a b/c}", false, RSQL_NOPOS, &r, &err),
                    RSQL_OK);
    CU_ASSERT_EQUAL(r.kind, RSQL_OPT_REF_FILE);
    CU_ASSERT_EQUAL(r.name_len, 6);
    /* not whole values: plain */
    CU_ASSERT_EQUAL(rsql_opt_ref_parse("k", "x${env:A}", false, RSQL_NOPOS, &r, &err), RSQL_OK);
    CU_ASSERT_EQUAL(r.kind, RSQL_OPT_REF_NONE);
    CU_ASSERT_EQUAL(rsql_opt_ref_parse("k", "${env:A}x", false, RSQL_NOPOS, &r, &err), RSQL_OK);
    CU_ASSERT_EQUAL(r.kind, RSQL_OPT_REF_NONE);
    /* malformed: errors, the value not echoed for a secret */
    const char *bad[] = {"${env:}", "${env:1A}", "${env:A-B}", "${file:}", "${vault:x}", "${}",
                         "${file:a}b}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_opt_ref_parse("k", bad[i], false, (rsql_pos_t){5, 1}, &r, &err),
                        RSQL_ERR_BAD_OPTION);
        CU_ASSERT_EQUAL(err.pos.off, 5);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i]));
    }
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_opt_ref_parse("secret-key", "${hunter2}", true, RSQL_NOPOS, &r, &err),
                    RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NULL(strstr(err.msg, "hunter2"));
    CU_ASSERT_STRING_EQUAL(err.msg, "invalid reference '${******}' in option 'secret-key': "
                                    "expected ${env:NAME} (a variable name of letters, digits "
                                    "and '_') or ${file:PATH}");
}

/* CREATE TABLE: kept as written, finalize and conf see no resolved value. */
static void test_ref_kept_unresolved(void)
{
    unsetenv("RSQL_REF_UNSET");
    const char *kv[] = {RMQ, "access-key", "ak", "secret-key", "${env:RSQL_REF_UNSET}",
                        "source.batch-size", "${file:/nonexistent/rsql-ref}", NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, 0, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_TRUE(rsql_optset_pending(set));
    CU_ASSERT_TRUE(rsql_optset_pending_at(set, 4));
    CU_ASSERT_FALSE(rsql_optset_pending_at(set, 3));
    CU_ASSERT_STRING_EQUAL(shown(set, 4), "${env:RSQL_REF_UNSET}"); /* not the secret */
    CU_ASSERT_STRING_EQUAL(shown(set, 5), "${file:/nonexistent/rsql-ref}");
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.batch-size"), 32); /* not known: default */
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "secret-key"), "${env:RSQL_REF_UNSET}");
    rsql_optset_destroy(set);
}

static void test_ref_resolved_env_and_file(void)
{
    char path[64];
    temp_file(path, sizeof path, "s3cr3t-from-file\r\n", 18);
    char ref[96];
    snprintf(ref, sizeof ref, "${file:%s}", path);
    setenv("RSQL_REF_BATCH", "8", 1);
    setenv("RSQL_REF_MODE", "SIMPLE", 1);
    const char *kv[] = {RMQ,
                        "access-key", "ak",
                        "secret-key", ref,
                        "source.batch-size", "${env:RSQL_REF_BATCH}",
                        "source.mode", "${env:RSQL_REF_MODE}",
                        NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, RSQL_OPTSET_RESOLVE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_FALSE(rsql_optset_pending(set));
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "secret-key"), "s3cr3t-from-file");
    CU_ASSERT_EQUAL(rsql_optset_int(set, "source.batch-size"), 8);
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "source.mode"), "simple"); /* canonical */
    /* shown: the reference as written, for a secret too; never the value */
    CU_ASSERT_STRING_EQUAL(shown(set, 4), ref);
    CU_ASSERT_STRING_EQUAL(shown(set, 5), "${env:RSQL_REF_BATCH}");
    rsql_optset_destroy(set);
    unlink(path);
    /* a file without a trailing newline is taken whole */
    temp_file(path, sizeof path, "a\nb", 3);
    snprintf(ref, sizeof ref, "${file:%s}", path);
    const char *kv2[] = {RMQ, "namespace", ref, NULL};
    set = with(kv2, RSQL_OPTSET_RESOLVE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_STRING_EQUAL(rsql_optset_str(set, "namespace"), "a\nb");
    rsql_optset_destroy(set);
    unlink(path);
    unsetenv("RSQL_REF_BATCH");
    unsetenv("RSQL_REF_MODE");
}

static void test_ref_errors(void)
{
    unsetenv("RSQL_REF_UNSET");
    const char *kv1[] = {RMQ, "access-key", "ak", "secret-key", "${env:RSQL_REF_UNSET}", NULL};
    expect_fail(kv1, RSQL_OPTSET_RESOLVE,
                "option 'secret-key': environment variable 'RSQL_REF_UNSET' "
                "(${env:RSQL_REF_UNSET}) is not set",
                450);
    const char *kv2[] = {RMQ, "secret-key", "${file:/nonexistent/rsql-ref}", "access-key", "ak",
                         NULL};
    expect_fail(kv2, RSQL_OPTSET_RESOLVE,
                "option 'secret-key': cannot read file '/nonexistent/rsql-ref' (${file:...}): "
                "No such file or directory",
                350);
    /* a resolved value that does not fit: the message never shows it */
    setenv("RSQL_REF_BATCH", "99-secret", 1);
    const char *kv3[] = {RMQ, "source.batch-size", "${env:RSQL_REF_BATCH}", NULL};
    expect_fail(kv3, RSQL_OPTSET_RESOLVE,
                "invalid value from ${env:RSQL_REF_BATCH} for option 'source.batch-size' (int; "
                "the value is not shown)",
                350);
    unsetenv("RSQL_REF_BATCH");
    /* too big, and a NUL byte */
    char path[64], ref[96];
    static char big[64 * 1024 + 10];
    memset(big, 'x', sizeof big);
    temp_file(path, sizeof path, big, sizeof big);
    snprintf(ref, sizeof ref, "${file:%s}", path);
    const char *kv4[] = {RMQ, "namespace", ref, NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv4, RSQL_OPTSET_RESOLVE, &err);
    CU_ASSERT_PTR_NULL(set);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is larger than 65536 bytes"));
    CU_ASSERT_EQUAL(err.pos.off, 350);
    unlink(path);
    temp_file(path, sizeof path, "a\0b", 3);
    snprintf(ref, sizeof ref, "${file:%s}", path);
    set = with(kv4, RSQL_OPTSET_RESOLVE, &err);
    CU_ASSERT_PTR_NULL(set);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "holds a NUL byte"));
    unlink(path);
    /* the keys that choose the tables are never references */
    const char *kv5[] = {"connector", "${env:HOME}", NULL};
    expect_fail(kv5, 0,
                "option 'connector' cannot be a reference (${env:...} or ${file:...}): it "
                "decides which options the table has",
                50);
    const char *kv6[] = {RMQ, "format", "${env:FMT}", NULL};
    expect_fail(kv6, RSQL_OPTSET_RESOLVE,
                "option 'format' cannot be a reference (${env:...} or ${file:...}): it "
                "decides which options the table has",
                350);
    /* a malformed reference fails at CREATE TABLE already */
    const char *kv7[] = {RMQ, "namespace", "${env:}", NULL};
    expect_fail(kv7, 0,
                "invalid reference '${env:}' in option 'namespace': expected ${env:NAME} (a "
                "variable name of letters, digits and '_') or ${file:PATH}",
                350);
}

/* Cross-option rules wait for the resolved values, then apply. */
static void test_ref_finalize_after_resolve(void)
{
    setenv("RSQL_REF_AK", "ak", 1);
    /* access-key without secret-key: at CREATE TABLE with a pending reference, not checked */
    const char *kv[] = {RMQ, "access-key", "${env:RSQL_REF_AK}", NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, 0, &err);
    CU_ASSERT_PTR_NOT_NULL(set);
    rsql_optset_destroy(set);
    set = with(kv, RSQL_OPTSET_RESOLVE, &err);
    CU_ASSERT_PTR_NULL(set);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_MISSING_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing required option 'secret-key'"));
    unsetenv("RSQL_REF_AK");
}

/* A URL row's value: each password masked, the rest as written; a reference as written. */
static void test_shown_url(void)
{
    static const rsql_opt_def_t url_row =
        RSQL_OPT_ROW("url", RSQL_OPT_STR, RSQL_OPT_F_URL, NULL, 0, 0, NULL, "a url");
    static const rsql_opt_def_t secret_row =
        RSQL_OPT_ROW("pw", RSQL_OPT_STR, RSQL_OPT_F_SECRET, NULL, 0, 0, NULL, "a secret");
    static const char *const cases[][2] = {
        {"postgresql://h:5432/db", "postgresql://h:5432/db"},
        {"postgresql://u@h/db", "postgresql://u@h/db"},
        {"postgresql://u:pw@h/db", "postgresql://u:******@h/db"},
        {"postgresql://u:@h/db", "postgresql://u:@h/db"},
        /* unencoded '@', '?' and '#' in a password: masked whole */
        {"postgresql://u:a@b?c#d@h1:1,h2:2/db", "postgresql://u:******@h1:1,h2:2/db"},
        {"postgres://h/db?sslmode=require&password=x1&sslpassword=k2&user=u",
         "postgres://h/db?sslmode=require&password=******&sslpassword=******&user=u"},
        {"postgresql://u:p@h?PASSWORD=q#frag", "postgresql://u:******@h?PASSWORD=******#frag"},
        {"postgresql://h/db?password=&x=1", "postgresql://h/db?password=&x=1"},
        {"postgresql://h/db?flag&password=z", "postgresql://h/db?flag&password=******"},
        {"https://user:tok@example.com/x?a=1", "https://user:******@example.com/x?a=1"},
        {"host=h password=secret dbname=d", "host=h password=****** dbname=d"},
        {"host=h password = 'se cr\\'et' dbname=d", "host=h password = ****** dbname=d"},
        {"host=h sslpassword=k user=u", "host=h sslpassword=****** user=u"},
        /* "://" inside a key=value string does not make it a URL */
        {"host=h sslrootcert=file://ca.pem password=pw",
         "host=h sslrootcert=file://ca.pem password=******"},
        {"mydb", "mydb"},
        {"${env:PG_URL}", "${env:PG_URL}"},
        {"${file:/run/secrets/pg}", "${file:/run/secrets/pg}"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_opt_put_shown(&b, &url_row, cases[i][0]);
        CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), cases[i][1]);
        if (strcmp(rsql_buf_str(&b), cases[i][1]) != 0) {
            fprintf(stderr, "\n  %s\n  got:  %s\n  want: %s\n", cases[i][0], rsql_buf_str(&b),
                    cases[i][1]);
        }
        rsql_buf_deinit(&b);
    }
    /* a secret: ****** inline, a reference as written (not the secret), a bad one masked */
    static const char *const secrets[][2] = {
        {"hunter2", "******"},
        {"${env:PG_PW}", "${env:PG_PW}"},
        {"${file:/run/pw}", "${file:/run/pw}"},
        {"${hunter2}", "******"},
    };
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_opt_put_shown(&b, &secret_row, secrets[i][0]);
        CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), secrets[i][1]);
        rsql_buf_deinit(&b);
    }
    /* no row known: as written */
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_opt_put_shown(&b, NULL, "postgresql://u:pw@h/db");
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "postgresql://u:pw@h/db");
    rsql_buf_deinit(&b);
}

/* A library's message that echoes a password: masked in place, cut to fit. */
static void test_mask_in_message(void)
{
    char msg[64];
    snprintf(msg, sizeof msg, "invalid percent-encoded token: \"p%%zzword\"");
    rsql_opt_mask_url_secrets(msg, sizeof msg, "postgresql://u:p%zzword@h/db");
    CU_ASSERT_STRING_EQUAL(msg, "invalid percent-encoded token: \"******\"");
    snprintf(msg, sizeof msg, "a xyz b xyz");
    rsql_opt_mask_secret(msg, sizeof msg, "xyz", 3);
    CU_ASSERT_STRING_EQUAL(msg, "a ****** b ******");
    /* longer than the buffer: cut, the secret gone */
    char small[12];
    snprintf(small, sizeof small, "ab cd ab cd");
    rsql_opt_mask_secret(small, sizeof small, "cd ", 3);
    CU_ASSERT_STRING_EQUAL(small, "ab ******ab");
    /* too short to search for */
    snprintf(msg, sizeof msg, "a b");
    rsql_opt_mask_secret(msg, sizeof msg, "a", 1);
    CU_ASSERT_STRING_EQUAL(msg, "a b");
    /* a url without a password: nothing changes */
    snprintf(msg, sizeof msg, "could not connect to h");
    rsql_opt_mask_url_secrets(msg, sizeof msg, "postgresql://u@h/db");
    CU_ASSERT_STRING_EQUAL(msg, "could not connect to h");
}

static CU_TestInfo ref_tests[] = {
    {"test_shown_url", test_shown_url},
    {"test_mask_in_message", test_mask_in_message},
    {"test_ref_parse_forms", test_ref_parse_forms},
    {"test_ref_kept_unresolved", test_ref_kept_unresolved},
    {"test_ref_resolved_env_and_file", test_ref_resolved_env_and_file},
    {"test_ref_errors", test_ref_errors},
    {"test_ref_finalize_after_resolve", test_ref_finalize_after_resolve},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"opts_ref", NULL, NULL, NULL, NULL, ref_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
