/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the formats (connectors/formats/): json, csv and raw both
 * ways, with options built through the real options engine (the filesystem
 * connector's table plus the format's) and exact decode error messages.
 * The text forms of the values themselves are tests/unit/test_value.c's.
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The test table: every type. */
static const char *const cols[] = {"id", "name", "amount", "ok", "ts", "b", "n"};
static const rsql_type_t types[] = {RSQL_TYPE_BIGINT,  RSQL_TYPE_VARCHAR,   RSQL_TYPE_DOUBLE,
                                    RSQL_TYPE_BOOLEAN, RSQL_TYPE_TIMESTAMP, RSQL_TYPE_BYTES,
                                    RSQL_TYPE_INT};
#define NCOLS 7

/* Options of a filesystem table with key/value pairs (NULL-terminated list). */
static rsql_optset_t *opts_of(const char *const *kv, int ncols, const char *const *names)
{
    rsql_opt_kv_t kvs[16];
    int n = 0;
    kvs[n++] = (rsql_opt_kv_t){"connector", "filesystem", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"path", "/nonexistent", RSQL_NOPOS, RSQL_NOPOS};
    for (int i = 0; kv && kv[i]; i += 2) {
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

typedef struct fx {
    rsql_optset_t *opts;
    rsql_decoder_t *dec;
    rsql_encoder_t *enc;
    rsql_arena_t *arena;
    rsql_value_t row[NCOLS];
    rsql_error_t err;
} fx_t;

static void fx_init(fx_t *f, const char *format, const char *const *kv)
{
    memset(f, 0, sizeof *f);
    const char *kv2[16];
    int n = 0;
    kv2[n++] = "format";
    kv2[n++] = format;
    for (int i = 0; kv && kv[i]; i++) {
        kv2[n++] = kv[i];
    }
    kv2[n] = NULL;
    f->opts = opts_of(kv2, NCOLS, cols);
    rsql_error_clear(&f->err);
    f->dec = rsql_decoder_new(format, rsql_optset_conf(f->opts, RSQL_CONF_FORMAT), NCOLS, cols, types, &f->err);
    f->enc = rsql_encoder_new(format, rsql_optset_conf(f->opts, RSQL_CONF_FORMAT), NCOLS, cols, types, &f->err);
    f->arena = rsql_arena_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->dec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->enc);
}

static void fx_deinit(fx_t *f)
{
    rsql_decoder_destroy(f->dec);
    rsql_encoder_destroy(f->enc);
    rsql_optset_destroy(f->opts);
    rsql_arena_destroy(f->arena);
}

static rsql_err_t dec(fx_t *f, const char *text)
{
    rsql_error_clear(&f->err);
    return rsql_decode(f->dec, (const uint8_t *)text, strlen(text), f->arena, f->row, &f->err);
}

/* Decode must fail with exactly msg. */
static void dec_fails(fx_t *f, const char *text, const char *msg)
{
    rsql_err_t rc = dec(f, text);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(f->err.code, RSQL_ERR_DECODE);
    if (strcmp(f->err.msg, msg) != 0) {
        fprintf(stderr, "\n  input: %s\n  want:  %s\n  got:   %s\n", text, msg, f->err.msg);
    }
    CU_ASSERT_STRING_EQUAL(f->err.msg, msg);
}

static bool str_is(const rsql_value_t *v, const char *s)
{
    return !v->is_null && v->v.s.len == strlen(s) && memcmp(v->v.s.p, s, v->v.s.len) == 0;
}

static char *enc_str(fx_t *f, const rsql_value_t *row)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_error_clear(&f->err);
    CU_ASSERT_EQUAL(rsql_encode(f->enc, row, &b, &f->err), RSQL_OK);
    return rsql_buf_steal(&b);
}

/* A row with every type set. */
static void sample_row(rsql_value_t *r)
{
    memset(r, 0, NCOLS * sizeof *r);
    for (int i = 0; i < NCOLS; i++) {
        r[i].type = types[i];
    }
    r[0].v.i = INT64_C(9007199254740993);
    r[1].v.s.p = "a,\"b\"\nc";
    r[1].v.s.len = strlen(r[1].v.s.p);
    r[2].v.d = 0.1;
    r[3].v.b = false;
    r[4].v.ts = INT64_C(1714564800250); /* 2024-05-01 12:00:00.250 */
    r[5].v.s.p = "hi";
    r[5].v.s.len = 2;
    r[6].is_null = true;
}

static void test_formats_json_decode(void)
{
    fx_t f;
    fx_init(&f, "json", NULL);
    CU_ASSERT_EQUAL(dec(&f, " {\"id\": 9007199254740993, \"name\":\"a\\\"b\\u00e9\\ud83d\\ude00\","
                            " \"amount\": 1.5e2, \"ok\": true,"
                            " \"ts\": \"2024-05-01T12:00:00.250Z\","
                            " \"b\":\"aGk=\", \"extra\": [1,{\"x\":null}, \"s\"]} \r\n"),
                    RSQL_OK);
    CU_ASSERT_EQUAL(f.row[0].v.i, INT64_C(9007199254740993)); /* exact above 2^53 */
    CU_ASSERT_TRUE(str_is(&f.row[1], "a\"b\xc3\xa9\xf0\x9f\x98\x80"));
    CU_ASSERT_DOUBLE_EQUAL(f.row[2].v.d, 150.0, 0);
    CU_ASSERT_TRUE(f.row[3].v.b);
    CU_ASSERT_EQUAL(f.row[4].v.ts, INT64_C(1714564800250));
    CU_ASSERT_TRUE(str_is(&f.row[5], "hi"));
    CU_ASSERT_TRUE(f.row[6].is_null); /* missing -> NULL */
    CU_ASSERT_EQUAL(f.row[6].type, RSQL_TYPE_INT);

    /* epoch millis, null, VARCHAR from non-strings, case-insensitive key */
    CU_ASSERT_EQUAL(dec(&f, "{\"TS\": -1, \"name\": 12.50, \"id\": null, \"N\": -2147483648}"),
                    RSQL_OK);
    CU_ASSERT_EQUAL(f.row[4].v.ts, -1);
    CU_ASSERT_TRUE(str_is(&f.row[1], "12.50"));
    CU_ASSERT_TRUE(f.row[0].is_null);
    CU_ASSERT_EQUAL(f.row[6].v.i, INT32_MIN);
    CU_ASSERT_EQUAL(dec(&f, "{\"name\": {\"a\": [true, false]}, \"amount\": \"NaN\"}"), RSQL_OK);
    CU_ASSERT_TRUE(str_is(&f.row[1], "{\"a\": [true, false]}"));
    CU_ASSERT_TRUE(isnan(f.row[2].v.d));
    CU_ASSERT_EQUAL(dec(&f, "{}"), RSQL_OK);
    CU_ASSERT_TRUE(f.row[0].is_null && f.row[1].is_null);
    /* an escape, the closing quote or a control character at every offset of a string (the
       scanner skips 8 plain bytes at a time) */
    for (int k = 0; k < 20; k++) {
        char body[96], want[64], msg[80];
        snprintf(body, sizeof body, "{\"name\":\"%.*s\\\\%.*s\"}", k, "xxxxxxxxxxxxxxxxxxxx",
                 19 - k, "yyyyyyyyyyyyyyyyyyyy");
        snprintf(want, sizeof want, "%.*s\\%.*s", k, "xxxxxxxxxxxxxxxxxxxx", 19 - k,
                 "yyyyyyyyyyyyyyyyyyyy");
        CU_ASSERT_EQUAL(dec(&f, body), RSQL_OK);
        CU_ASSERT_TRUE(str_is(&f.row[1], want));
        snprintf(body, sizeof body, "{\"name\":\"%.*s\"}", k, "xxxxxxxxxxxxxxxxxxxx");
        CU_ASSERT_EQUAL(dec(&f, body), RSQL_OK);
        CU_ASSERT_EQUAL(f.row[1].v.s.len, (size_t)k);
        snprintf(body, sizeof body, "{\"name\":\"%.*s\tyyyyyyyyyy\"}", k, "xxxxxxxxxxxxxxxxxxxx");
        snprintf(msg, sizeof msg, "invalid JSON at byte %d: control character in string", 9 + k);
        dec_fails(&f, body, msg);
    }
    fx_deinit(&f);
}

static void test_formats_json_errors(void)
{
    fx_t f;
    fx_init(&f, "json", NULL);
    dec_fails(&f, "{\"id\": 1,}", "invalid JSON at byte 9: expected a string key");
    dec_fails(&f, "", "invalid JSON at byte 0: unexpected end of input");
    dec_fails(&f, "{\"id\" 1}", "invalid JSON at byte 6: expected ':' after an object key");
    dec_fails(&f, "{\"id\":1 \"n\":2}", "invalid JSON at byte 8: expected ',' or '}' in an object");
    dec_fails(&f, "{\"name\":\"a", "invalid JSON at byte 10: unterminated string");
    dec_fails(&f, "{\"name\":\"a\\x\"}", "invalid JSON at byte 10: invalid escape in string");
    dec_fails(&f, "{\"name\":\"\\ud800\"}",
              "invalid JSON at byte 9: invalid \\u escape in string (unpaired surrogate)");
    dec_fails(&f, "{\"id\":01}", "invalid JSON at byte 7: expected ',' or '}' in an object");
    dec_fails(&f, "{\"id\":-}", "invalid JSON at byte 6: invalid number");
    dec_fails(&f, "{\"id\":tru}", "invalid JSON at byte 6: unexpected character 't'");
    dec_fails(&f, "{\"x\":[1,]}", "invalid JSON at byte 8: unexpected character ']'");
    dec_fails(&f, "{\"id\":1} x", "invalid JSON at byte 9: unexpected data after the object");
    dec_fails(&f, "{\"name\":\"a\tb\"}", "invalid JSON at byte 10: control character in string");
    dec_fails(&f, "[1,2]", "expected a JSON object, got array");
    dec_fails(&f, "42", "expected a JSON object, got number");
    /* the type of a non-object is named only when it is valid JSON */
    dec_fails(&f, "not json", "invalid JSON at byte 0: unexpected character 'n'");
    dec_fails(&f, "[1,2", "invalid JSON at byte 4: unexpected end of input");
    dec_fails(&f, "42 x", "invalid JSON at byte 3: unexpected data after the value");
    dec_fails(&f, " null ", "expected a JSON object, got null");
    dec_fails(&f, "{\"amount\": \"abc\"}", "field 'amount': expected DOUBLE, got string \"abc\"");
    dec_fails(&f, "{\"n\": 3000000000}", "field 'n': 3000000000 out of range for INT");
    dec_fails(&f, "{\"id\": 99999999999999999999}",
              "field 'id': 99999999999999999999 out of range for BIGINT");
    dec_fails(&f, "{\"n\": 1.5}", "field 'n': expected INT, got number 1.5");
    dec_fails(&f, "{\"ok\": \"true\"}", "field 'ok': expected BOOLEAN, got string \"true\"");
    dec_fails(&f, "{\"ok\": 1}", "field 'ok': expected BOOLEAN, got number 1");
    dec_fails(&f, "{\"id\": true}", "field 'id': expected BIGINT, got boolean true");
    dec_fails(&f, "{\"id\": [1]}", "field 'id': expected BIGINT, got array");
    dec_fails(&f, "{\"ts\": \"2024-13-01\"}",
              "field 'ts': expected TIMESTAMP(3), got string \"2024-13-01\"");
    dec_fails(&f, "{\"ts\": 1.5}", "field 'ts': expected TIMESTAMP(3), got number 1.5");
    dec_fails(&f, "{\"b\": \"!!\"}", "field 'b': expected BYTES, got string \"!!\" (not base64)");
    dec_fails(&f, "{\"amount\": \"0123456789012345678901234567890123456789xyz\"}",
              "field 'amount': expected DOUBLE, got string "
              "\"0123456789012345678901234567890123456789...\"");
    fx_deinit(&f);

    const char *kv[] = {"json.fail-on-missing-field", "true", NULL};
    fx_init(&f, "json", kv);
    dec_fails(&f, "{\"name\":\"x\"}", "missing field 'id'");
    CU_ASSERT_EQUAL(dec(&f, "{\"id\":1,\"name\":null,\"amount\":1,\"ok\":false,\"ts\":0,\"b\":\"\","
                            "\"n\":2}"),
                    RSQL_OK);
    fx_deinit(&f);
}

/*
** Numbers: the decoder's one-pass fast paths (an integer of at most 18 digits, a decimal of at
** most 15 digits) and the general path must give the same values as strtoll/strtod of the same
** text, bit for bit, at every length and sign, whatever follows the number.
*/
static void test_formats_json_numbers(void)
{
    fx_t f;
    fx_init(&f, "json", NULL);
    static const char *const after[] = {"}", " }", ",\"name\":\"x\"}", "\n}"};
    srand(16);
    for (int k = 0; k < 40000; k++) {
        char digits[40], text[64], body[128];
        int nd = 1 + rand() % 20, fd = rand() % 3 == 0 ? 0 : rand() % 18;
        int lead0 = rand() % 4 == 0; /* 0.xxx */
        size_t w = 0;
        if (rand() % 2) {
            digits[w++] = '-';
        }
        if (lead0) {
            digits[w++] = '0';
        } else {
            digits[w++] = (char)('1' + rand() % 9);
            for (int i = 1; i < nd; i++) {
                digits[w++] = (char)('0' + rand() % 10);
            }
        }
        digits[w] = '\0';
        /* the integer form into id (BIGINT) and n (INT) */
        snprintf(body, sizeof body, "{\"id\":%s,\"n\":%s%s", digits, digits, after[k % 4]);
        errno = 0;
        long long want = strtoll(digits, NULL, 10);
        bool in64 = errno == 0, in32 = in64 && want >= INT32_MIN && want <= INT32_MAX;
        rsql_err_t rc = dec(&f, body);
        if (in32) {
            CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
            CU_ASSERT_EQUAL(f.row[0].v.i, want);
            CU_ASSERT_EQUAL(f.row[6].v.i, want);
        } else {
            CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE); /* the first out of range: n or id */
            char msg[96];
            snprintf(msg, sizeof msg, "field '%s': %s out of range for %s", in64 ? "n" : "id",
                     digits, in64 ? "INT" : "BIGINT");
            CU_ASSERT_STRING_EQUAL(f.err.msg, msg);
        }
        /* a decimal form into amount (DOUBLE) */
        snprintf(text, sizeof text, "%s%s%.*s%s", digits, fd ? "." : "", fd,
                 "83726150493827160594", rand() % 5 == 0 ? "e-3" : "");
        snprintf(body, sizeof body, "{\"amount\":%s%s", text, after[k % 4]);
        CU_ASSERT_EQUAL_FATAL(dec(&f, body), RSQL_OK);
        double d = strtod(text, NULL);
        CU_ASSERT_EQUAL(memcmp(&f.row[2].v.d, &d, sizeof d), 0);
        if (memcmp(&f.row[2].v.d, &d, sizeof d) != 0) {
            fprintf(stderr, "\n  %s: got %.17g, strtod %.17g\n", text, f.row[2].v.d, d);
        }
    }
    /* the edges of the fast paths, and a negative zero */
    CU_ASSERT_EQUAL(dec(&f, "{\"id\":999999999999999999,\"amount\":-0.0}"), RSQL_OK);
    CU_ASSERT_EQUAL(f.row[0].v.i, INT64_C(999999999999999999));
    CU_ASSERT_TRUE(f.row[2].v.d == 0 && signbit(f.row[2].v.d));
    CU_ASSERT_EQUAL(dec(&f, "{\"id\":-9223372036854775808,\"amount\":999999999999999.9}"),
                    RSQL_OK);
    CU_ASSERT_EQUAL(f.row[0].v.i, INT64_MIN);
    CU_ASSERT_EQUAL(f.row[2].v.d, strtod("999999999999999.9", NULL));
    dec_fails(&f, "{\"id\":00}", "invalid JSON at byte 7: expected ',' or '}' in an object");
    dec_fails(&f, "{\"amount\":01.5}",
              "invalid JSON at byte 11: expected ',' or '}' in an object");
    dec_fails(&f, "{\"amount\":1.}", "invalid JSON at byte 10: invalid number");
    dec_fails(&f, "{\"amount\":-}", "invalid JSON at byte 10: invalid number");
    dec_fails(&f, "{\"id\":12", "invalid JSON at byte 8: unexpected end of input");
    fx_deinit(&f);
}

static void test_formats_json_encode(void)
{
    fx_t f;
    rsql_value_t r[NCOLS];
    fx_init(&f, "json", NULL);
    sample_row(r);
    char *s = enc_str(&f, r);
    CU_ASSERT_STRING_EQUAL(s, "{\"id\":9007199254740993,\"name\":\"a,\\\"b\\\"\\nc\","
                              "\"amount\":0.1,"
                              "\"ok\":false,\"ts\":\"2024-05-01 12:00:00.250\",\"b\":\"aGk=\","
                              "\"n\":null}");
    /* round trip */
    CU_ASSERT_EQUAL(dec(&f, s), RSQL_OK);
    CU_ASSERT_EQUAL(f.row[0].v.i, r[0].v.i);
    CU_ASSERT_TRUE(str_is(&f.row[1], "a,\"b\"\nc"));
    CU_ASSERT_EQUAL(f.row[2].v.d, 0.1);
    CU_ASSERT_FALSE(f.row[3].v.b);
    CU_ASSERT_EQUAL(f.row[4].v.ts, r[4].v.ts);
    CU_ASSERT_TRUE(str_is(&f.row[5], "hi"));
    CU_ASSERT_TRUE(f.row[6].is_null);
    rsql_free(s);
    /* control characters and non-finite doubles */
    r[1].v.s.p = "\x01\t\\";
    r[1].v.s.len = 3;
    r[2].v.d = -INFINITY;
    s = enc_str(&f, r);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"name\":\"\\u0001\\t\\\\\",\"amount\":\"-Infinity\""));
    CU_ASSERT_EQUAL(dec(&f, s), RSQL_OK);
    CU_ASSERT_TRUE(isinf(f.row[2].v.d) && f.row[2].v.d < 0);
    rsql_free(s);
    fx_deinit(&f);

    const char *kv[] = {"json.timestamp-format", "epoch-millis", NULL};
    fx_init(&f, "json", kv);
    sample_row(r);
    s = enc_str(&f, r);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"ts\":1714564800250,"));
    rsql_free(s);
    fx_deinit(&f);
}

static void test_formats_csv(void)
{
    fx_t f;
    rsql_value_t r[NCOLS];
    fx_init(&f, "csv", NULL);
    CU_ASSERT_EQUAL(dec(&f, "1,\"a,b \"\"q\"\"\",2.5,TRUE,2024-05-01 12:00:00.25,aGk=,\r"),
                    RSQL_OK);
    CU_ASSERT_EQUAL(f.row[0].v.i, 1);
    CU_ASSERT_TRUE(str_is(&f.row[1], "a,b \"q\""));
    CU_ASSERT_EQUAL(f.row[2].v.d, 2.5);
    CU_ASSERT_TRUE(f.row[3].v.b);
    CU_ASSERT_EQUAL(f.row[4].v.ts, INT64_C(1714564800250));
    CU_ASSERT_TRUE(str_is(&f.row[5], "hi"));
    CU_ASSERT_TRUE(f.row[6].is_null);
    /* empty unquoted = NULL, quoted empty = '' */
    CU_ASSERT_EQUAL(dec(&f, ",\"\",,,,,7"), RSQL_OK);
    CU_ASSERT_TRUE(f.row[0].is_null);
    CU_ASSERT_TRUE(str_is(&f.row[1], ""));
    CU_ASSERT_EQUAL(f.row[6].v.i, 7);
    dec_fails(&f, "1,2", "line has 2 fields, table has 7 columns");
    dec_fails(&f, "1,2,3,4,5,6,7,8", "line has 8 fields, table has 7 columns");
    dec_fails(&f, "x,a,1,true,0,,1", "field 'id': expected BIGINT, got \"x\" (not an integer)");
    dec_fails(&f, "1,a,1,true,0,,3000000000",
              "field 'n': expected INT, got \"3000000000\" (out of range for INT)");
    dec_fails(&f, "1,a,abc,true,0,,1",
              "field 'amount': expected DOUBLE, got \"abc\" (not a number)");
    dec_fails(&f, "1,a,1,yes,0,,1", "field 'ok': expected BOOLEAN, got \"yes\" (not a boolean)");
    dec_fails(&f, "1,a,1,true,2024-02-30,,1",
              "field 'ts': expected TIMESTAMP(3), got \"2024-02-30\" (not a timestamp)");
    dec_fails(&f, "1,\"abc", "unterminated quoted field at byte 2");
    dec_fails(&f, "1,\"a\"b,1,true,0,,1", "unexpected character after a closing quote at byte 5");

    /* encode: quoting, NULL, round trip */
    sample_row(r);
    char *s = enc_str(&f, r);
    CU_ASSERT_STRING_EQUAL(s, "9007199254740993,\"a,\"\"b\"\"\nc\",0.1,false,"
                              "2024-05-01 12:00:00.250,aGk=,");
    CU_ASSERT_EQUAL(dec(&f, s), RSQL_OK);
    CU_ASSERT_TRUE(str_is(&f.row[1], "a,\"b\"\nc"));
    CU_ASSERT_EQUAL(f.row[4].v.ts, r[4].v.ts);
    CU_ASSERT_TRUE(f.row[6].is_null);
    rsql_free(s);
    r[1].v.s.p = "";
    r[1].v.s.len = 0;
    s = enc_str(&f, r);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, ",\"\",0.1,"));
    CU_ASSERT_EQUAL(dec(&f, s), RSQL_OK);
    CU_ASSERT_TRUE(str_is(&f.row[1], ""));
    rsql_free(s);
    fx_deinit(&f);

    /* other delimiter, null literal, no quoting */
    const char *kv[] = {"csv.field-delimiter", "\\t", "csv.null-literal", "\\N", NULL};
    fx_init(&f, "csv", kv);
    CU_ASSERT_EQUAL(dec(&f, "\\N\t\t1e3\tfalse\t0\t\t\\N"), RSQL_OK);
    CU_ASSERT_TRUE(f.row[0].is_null);
    CU_ASSERT_TRUE(str_is(&f.row[1], ""));
    CU_ASSERT_EQUAL(f.row[2].v.d, 1000.0);
    CU_ASSERT_TRUE(str_is(&f.row[5], ""));
    CU_ASSERT_TRUE(f.row[6].is_null);
    sample_row(r);
    r[1].v.s.p = "\\N";
    r[1].v.s.len = 2;
    s = enc_str(&f, r);
    CU_ASSERT_STRING_EQUAL(
        s, "9007199254740993\t\"\\N\"\t0.1\tfalse\t2024-05-01 12:00:00.250\taGk=\t\\N");
    CU_ASSERT_EQUAL(dec(&f, s), RSQL_OK);
    CU_ASSERT_TRUE(str_is(&f.row[1], "\\N"));
    rsql_free(s);
    fx_deinit(&f);

    const char *kv2[] = {"csv.field-delimiter", "|", "csv.quote-character", "", NULL};
    fx_init(&f, "csv", kv2);
    CU_ASSERT_EQUAL(dec(&f, "1|\"x|2|false|0||3"), RSQL_OK);
    CU_ASSERT_TRUE(str_is(&f.row[1], "\"x"));
    fx_deinit(&f);
}

static void test_formats_raw(void)
{
    static const char *const one[] = {"body"};
    static const rsql_type_t vt[] = {RSQL_TYPE_VARCHAR};
    static const rsql_type_t it[] = {RSQL_TYPE_INT};
    rsql_error_t err;
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t v;
    rsql_buf_t b = RSQL_BUF_INIT;

    rsql_decoder_t *d = rsql_decoder_new("RAW", NULL, 1, one, vt, &err);
    rsql_encoder_t *e = rsql_encoder_new("raw", NULL, 1, one, vt, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(rsql_decode(d, (const uint8_t *)"a\0{b", 4, a, &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.v.s.len, 4);
    CU_ASSERT_EQUAL(memcmp(v.v.s.p, "a\0{b", 4), 0);
    CU_ASSERT_EQUAL(rsql_encode(e, &v, &b, &err), RSQL_OK);
    CU_ASSERT_EQUAL(b.len, 4);
    v.is_null = true;
    CU_ASSERT_EQUAL(rsql_encode(e, &v, &b, &err), RSQL_OK);
    CU_ASSERT_EQUAL(b.len, 4);
    rsql_decoder_destroy(d);
    rsql_encoder_destroy(e);

    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_decoder_new("raw", NULL, 1, one, it, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_SEMANTIC);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "format 'raw' needs exactly one VARCHAR or BYTES column, column 'body' "
                           "is INT");
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_encoder_new("raw", NULL, NCOLS, cols, types, &err));
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "format 'raw' needs exactly one VARCHAR or BYTES column, the table has "
                           "7 columns");
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_decoder_new("xml", NULL, 1, one, vt, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_UNSUPPORTED);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown format 'xml' (formats are: canal-json, csv, "
                                    "debezium-json, json, maxwell-json, raw)");
    CU_ASSERT_TRUE(rsql_format_known("Json"));
    CU_ASSERT_FALSE(rsql_format_known("avro"));
    rsql_buf_deinit(&b);
    rsql_arena_destroy(a);
}

/* Encode row, decode it back into f->row; the encoded text in *text (caller frees). */
static void round_trip(fx_t *f, const rsql_value_t *row, char **text)
{
    *text = enc_str(f, row);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*text);
    if (dec(f, *text) != RSQL_OK) {
        fprintf(stderr, "\n  wrote %s, reads back: %s\n", *text, f->err.msg);
    }
    CU_ASSERT_EQUAL(f->err.code, RSQL_OK);
}

/*
** TIMESTAMP values after year 9999 and before year 1 round-trip through json (each
** json.timestamp-format) and csv.
*/
static void test_formats_timestamp_range(void)
{
    static const int64_t ms[] = {
        INT64_C(253402300800000),   /* 10000-01-01 00:00:00.000 */
        INT64_C(-62135596800001),   /* 0000-12-31 23:59:59.999 */
        INT64_C(-62198755200000),   /* -0001-01-01 */
        INT64_C(9223372036854775807), INT64_C(-9223372036854775807) - 1,
    };
    static const char *const opts[][3] = {
        {"format", "json", NULL}, {"json.timestamp-format", "iso-8601", NULL},
        {"json.timestamp-format", "epoch-millis", NULL}, {"csv", NULL, NULL}};
    for (int k = 0; k < 4; k++) {
        fx_t f;
        const char *kv[] = {opts[k][0], opts[k][1], NULL};
        fx_init(&f, k == 3 ? "csv" : "json", k == 0 || k == 3 ? NULL : kv);
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            rsql_value_t row[NCOLS];
            sample_row(row);
            row[4].v.ts = ms[i];
            char *text;
            round_trip(&f, row, &text);
            CU_ASSERT_FALSE(f.row[4].is_null);
            if (f.row[4].v.ts != ms[i]) {
                fprintf(stderr, "\n  %lld wrote %s, read back %lld\n", (long long)ms[i], text,
                        (long long)f.row[4].v.ts);
            }
            CU_ASSERT_EQUAL(f.row[4].v.ts, ms[i]);
            rsql_free(text);
        }
        fx_deinit(&f);
    }
}

/*
** An empty BYTES value (and any value whose text is the null literal) is written
** quoted and reads back as itself, not NULL; with quoting off such a value, or one holding
** the delimiter or a line end, is refused with an error naming its column; a null literal
** that could not be read back is refused at validation.
*/
static void test_formats_csv_round_trip(void)
{
    fx_t f;
    rsql_value_t row[NCOLS];
    char *text;
    fx_init(&f, "csv", NULL);
    sample_row(row);
    row[5].v.s.p = "";
    row[5].v.s.len = 0;
    round_trip(&f, row, &text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",\"\","));
    CU_ASSERT_FALSE(f.row[5].is_null);
    CU_ASSERT_EQUAL(f.row[5].v.s.len, 0);
    rsql_free(text);
    fx_deinit(&f);

    const char *zero[] = {"csv.null-literal", "0", NULL};
    fx_init(&f, "csv", zero);
    sample_row(row);
    row[6].is_null = false;
    row[6].v.i = 0;
    round_trip(&f, row, &text);
    CU_ASSERT_FALSE(f.row[6].is_null);
    CU_ASSERT_EQUAL(f.row[6].v.i, 0);
    rsql_free(text);
    fx_deinit(&f);

    const char *noquote[] = {"csv.quote-character", "", NULL};
    fx_init(&f, "csv", noquote);
    static const char *const refused[] = {"a,b", "a\nb", "a\r"};
    for (int i = 0; i < 3; i++) {
        sample_row(row);
        row[1].v.s.p = refused[i];
        row[1].v.s.len = strlen(refused[i]);
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_error_clear(&f.err);
        CU_ASSERT_EQUAL(rsql_encode(f.enc, row, &b, &f.err), RSQL_ERR_SINK);
        CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, "column 'name'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, "'csv.quote-character' is empty"));
        rsql_buf_deinit(&b);
    }
    sample_row(row);
    row[1].v.s.p = "plain";
    row[1].v.s.len = 5;
    row[5].v.s.len = 0; /* empty BYTES: unquoted it would read back as NULL */
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_error_clear(&f.err);
    CU_ASSERT_EQUAL(rsql_encode(f.enc, row, &b, &f.err), RSQL_ERR_SINK);
    CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, "column 'b'"));
    rsql_buf_deinit(&b);
    sample_row(row);
    row[1].v.s.p = "plain";
    row[1].v.s.len = 5;
    round_trip(&f, row, &text);
    CU_ASSERT_TRUE(str_is(&f.row[1], "plain"));
    rsql_free(text);
    fx_deinit(&f);

    rsql_opt_kv_t kvs[] = {{"connector", "filesystem", RSQL_NOPOS, RSQL_NOPOS},
                           {"path", "/x", RSQL_NOPOS, RSQL_NOPOS},
                           {"format", "csv", RSQL_NOPOS, RSQL_NOPOS},
                           {"csv.null-literal", "a,b", RSQL_NOPOS, {40, 5}}};
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_connector_validate(kvs, 4, cols, NCOLS, RSQL_NOPOS, NULL, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_OPTION);
    CU_ASSERT_EQUAL(err.pos.off, 40);
    CU_ASSERT_STRING_EQUAL(err.msg, "option 'csv.null-literal' must not hold the field "
                                    "delimiter, the quote character or a line end");
}

/* text with its first "from" replaced by "to" (rsql_malloc'd) */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t a = (size_t)(at - text), fn = strlen(from), tn = strlen(to);
    char *r = rsql_malloc(strlen(text) - fn + tn + 1);
    memcpy(r, text, a);
    memcpy(r + a, to, tn);
    strcpy(r + a + tn, at + fn);
    return r;
}

/*
** Without a quote character the csv reader and writer follow one rule: what the writer
** writes reads back and writes again the same, and a field whose value the writer would
** refuse (a line end in a VARCHAR, a BYTES field of blanks: an empty value) is refused by
** the reader, naming the field, so a csv -> csv copy never fails a row it read.
*/
static void test_formats_csv_one_rule(void)
{
    const char *noquote[] = {"csv.quote-character", "", NULL};
    fx_t f;
    rsql_value_t row[NCOLS];
    fx_init(&f, "csv", noquote);
    sample_row(row);
    row[1].v.s.p = "plain";
    row[1].v.s.len = 5;
    char *good = enc_str(&f, row);
    CU_ASSERT_EQUAL(dec(&f, good), RSQL_OK);
    char *again = enc_str(&f, f.row);
    CU_ASSERT_STRING_EQUAL(again, good);
    rsql_free(again);

    static const struct {
        const char *from, *to, *field;
    } bad[] = {{"plain", "a\rb", "name"}, {"plain", "a\nb", "name"}, {"aGk=", "   ", "b"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *text = replaced(good, bad[i].from, bad[i].to);
        char want[160];
        snprintf(want, sizeof want, "field '%s': its value", bad[i].field);
        CU_ASSERT_EQUAL(dec(&f, text), RSQL_ERR_DECODE);
        CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, want));
        CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, "'csv.quote-character' is empty"));
        /* the writer refuses the same value */
        sample_row(row);
        row[1].v.s.p = "plain";
        row[1].v.s.len = 5;
        if (strcmp(bad[i].field, "name") == 0) {
            row[1].v.s.p = bad[i].to;
            row[1].v.s.len = strlen(bad[i].to);
        } else {
            row[5].v.s.len = 0; /* "   " reads as the empty BYTES value */
        }
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_error_clear(&f.err);
        CU_ASSERT_EQUAL(rsql_encode(f.enc, row, &b, &f.err), RSQL_ERR_SINK);
        rsql_buf_deinit(&b);
        rsql_free(text);
    }
    rsql_free(good);
    fx_deinit(&f);
}

/* json into nested and exact columns: values, paths in errors, and the pushdown */
static void test_formats_json_nested(void)
{
    static const char *const ncols[] = {"o", "p", "d"};
    const char *ot = "ROW<a INT, b ARRAY<ROW<q DECIMAL(4, 1)>>, m MAP<STRING, DATE>>";
    const rsql_tdesc_t *od = NULL, *pd = rsql_tdesc_decimal(6, 2);
    CU_ASSERT_EQUAL_FATAL(rsql_tdesc_parse(ot, strlen(ot), &od, NULL, NULL), RSQL_OK);
    const rsql_type_t nt[] = {RSQL_TYPE_ROW, RSQL_TYPE_DECIMAL, RSQL_TYPE_DATE};
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = rsql_decoder_new("json", NULL, 3, ncols, nt, &err);
    rsql_encoder_t *enc = rsql_encoder_new("json", NULL, 3, ncols, nt, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
    rsql_decoder_set_desc(dec, 0, od);
    rsql_decoder_set_desc(dec, 1, pd);
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t row[3];
    const char *body = "{\"o\":{\"A\":1,\"x\":[1,{}],\"b\":[{\"q\":\"2.25\"},null,{}],"
                       "\"m\":{\"k\":\"2024-01-02\",\"k\":null}},"
                       "\"p\":-1.005,\"d\":\"1970-01-02\"}";
    CU_ASSERT_EQUAL_FATAL(rsql_decode(dec, (const uint8_t *)body, strlen(body), a, row, &err),
                          RSQL_OK);
    CU_ASSERT_EQUAL(row[0].type, RSQL_TYPE_ROW);
    const rsql_composite_t *o = row[0].v.c;
    CU_ASSERT_PTR_EQUAL(o->desc, od);
    CU_ASSERT_EQUAL(o->n, 3);
    CU_ASSERT_EQUAL(o->items[0].v.i, 1);
    CU_ASSERT_EQUAL(o->items[1].v.c->n, 3);
    CU_ASSERT_TRUE(o->items[1].v.c->items[1].is_null);
    CU_ASSERT_TRUE(o->items[1].v.c->items[2].v.c->items[0].is_null); /* {} : q missing */
    CU_ASSERT_EQUAL(o->items[2].v.c->n, 1);                          /* k once, last wins */
    CU_ASSERT_TRUE(o->items[2].v.c->items[1].is_null);
    CU_ASSERT_EQUAL(row[1].scale, 2);
    CU_ASSERT_EQUAL(row[2].v.i, 1);
    rsql_buf_t out = RSQL_BUF_INIT;
    CU_ASSERT_EQUAL(rsql_encode(enc, row, &out, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&out),
                           "{\"o\":{\"a\":1,\"b\":[{\"q\":2.3},null,{\"q\":null}],"
                           "\"m\":{\"k\":null}},"
                           "\"p\":-1.01,\"d\":\"1970-01-02\"}");
    rsql_buf_deinit(&out);
    /* errors name the path */
    struct {
        const char *body, *msg;
    } bad[] = {
        {"{\"o\":{\"b\":[{\"q\":1},{\"q\":\"x\"}]}}",
         "field 'o.b[2].q': 'x': not a decimal number"},
        {"{\"o\":{\"b\":[{\"q\":12345}]}}",
         "field 'o.b[1].q': '12345': out of range for DECIMAL(4, 1)"},
        {"{\"o\":{\"m\":{\"z\":5}}}", "field 'o.m['z']': expected DATE, got number"},
        {"{\"o\":{\"b\":{}}}", "field 'o.b': expected ARRAY<ROW<q DECIMAL(4, 1)>>, got object"},
        {"{\"o\":{\"a\":true}}", "field 'o.a': expected INT, got boolean true"},
        {"{\"o\":{\"b\":[1,]}}", "field 'o.b[1]': expected ROW<q DECIMAL(4, 1)>, got number"},
        {"{\"o\":{\"b\":[{},]}}", "invalid JSON at byte 14: unexpected character ']'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_decode(dec, (const uint8_t *)bad[i].body, strlen(bad[i].body), a,
                                    row, &err),
                        RSQL_ERR_DECODE);
        CU_ASSERT_STRING_EQUAL(err.msg, bad[i].msg);
        if (strcmp(err.msg, bad[i].msg) != 0) {
            fprintf(stderr, "%s: got %s\n", bad[i].body, err.msg);
        }
    }
    /* pushdown: only o.a and d are read; a bad o.b and a bad p are skipped, and NULL */
    int path[] = {0};
    CU_ASSERT_EQUAL(rsql_decoder_prune(dec, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_decoder_use(dec, 0, path, 1, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_decoder_use(dec, 2, NULL, 0, &err), RSQL_OK);
    const char *b2 = "{\"o\":{\"a\":7,\"b\":\"nope\"},\"p\":\"bad\",\"d\":\"2000-01-01\"}";
    CU_ASSERT_EQUAL_FATAL(rsql_decode(dec, (const uint8_t *)b2, strlen(b2), a, row, &err), RSQL_OK);
    CU_ASSERT_EQUAL(row[0].v.c->items[0].v.i, 7);
    CU_ASSERT_TRUE(row[0].v.c->items[1].is_null);
    CU_ASSERT_TRUE(row[1].is_null);
    CU_ASSERT_EQUAL(row[2].v.i, 10957);
    const char *b3 = "{\"o\":{\"a\":\"x\"}}"; /* a read field still checks its type */
    CU_ASSERT_EQUAL(rsql_decode(dec, (const uint8_t *)b3, strlen(b3), a, row, &err),
                    RSQL_ERR_DECODE);
    const char *b4 = "{\"o\":{\"a\":1,\"b\":[}}"; /* skipped text is still JSON */
    CU_ASSERT_EQUAL(rsql_decode(dec, (const uint8_t *)b4, strlen(b4), a, row, &err),
                    RSQL_ERR_DECODE);
    rsql_arena_destroy(a);
    rsql_decoder_destroy(dec);
    rsql_encoder_destroy(enc);
}

/* A small random generator of our own (xorshift), so a failure repeats. */
static uint64_t kx_state = UINT64_C(0x9e3779b97f4a7c15);
static unsigned kx_rand(unsigned n)
{
    kx_state ^= kx_state << 13;
    kx_state ^= kx_state >> 7;
    kx_state ^= kx_state << 17;
    return (unsigned)(kx_state % n);
}

/*
** Keys matched to columns against a model of the rules (an exact name first, else a name equal
** but for case; the last of duplicate keys wins; escapes unescaped before matching): random
** objects whose members are the columns' names as they are, in another case, escaped, with
** blanks around ':' and ',', unknown keys, in any order and repeated, each body in a buffer of
** exactly its size (so a key near the end is read without a byte past it). Column names of 1
** to 16 bytes, one with a quote, one with a backslash.
*/
static void test_formats_json_keys(void)
{
    static const char *const kc[] = {"a", "id", "name", "amount_total", "abcdefghijklm",
                                     "abcdefghijklmn", "q\"t", "b\\s", "MixedCase", "x"};
    /* how each name is written in JSON, plainly (the last two escape what they hold) */
    static const char *const kj[] = {"a", "id", "name", "amount_total", "abcdefghijklm",
                                     "abcdefghijklmn", "q\\\"t", "b\\\\s", "MixedCase", "x"};
    enum { KN = 10 };
    rsql_type_t kt[KN];
    for (int i = 0; i < KN; i++) {
        kt[i] = RSQL_TYPE_BIGINT;
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *d = rsql_decoder_new("json", NULL, KN, kc, kt, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t row[KN];
    for (int round = 0; round < 20000; round++) {
        char body[2048];
        size_t o = 0;
        int64_t want[KN];
        bool set[KN] = {false};
        int members = (int)kx_rand(14);
        body[o++] = kx_rand(4) == 0 ? ' ' : '{';
        if (body[0] == ' ') {
            body[o++] = '{';
        }
        for (int m = 0; m < members; m++) {
            int col = (int)kx_rand(KN + 1); /* KN: a key no column has */
            int64_t v = (int64_t)kx_rand(2000000) - 1000000;
            const char *ws = kx_rand(5) == 0 ? " " : "";
            char key[64];
            int how = (int)kx_rand(4);
            if (col == KN) {
                snprintf(key, sizeof key, "zz%u", kx_rand(100));
            } else if (how == 1) { /* another case: matches unless a column has that exact name */
                snprintf(key, sizeof key, "%s", kj[col]);
                for (char *c = key; *c; c++) {
                    *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
                }
            } else if (how == 2 && kj[col][0] != '\\') { /* the first byte as \u00XX */
                snprintf(key, sizeof key, "\\u%04x%s", (unsigned char)kj[col][0], kj[col] + 1);
            } else {
                snprintf(key, sizeof key, "%s", kj[col]);
            }
            o += (size_t)snprintf(body + o, sizeof body - o, "%s%s\"%s\"%s:%s%lld", m ? "," : "",
                                  m ? ws : "", key, ws, ws, (long long)v);
            /* the model: which column the key names */
            int hit = -1;
            if (col < KN) {
                char plain[64];
                snprintf(plain, sizeof plain, "%s", kc[col]);
                if (how == 1) {
                    for (char *c = plain; *c; c++) {
                        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
                    }
                }
                for (int i = 0; i < KN && hit < 0; i++) {
                    hit = strcmp(kc[i], plain) == 0 ? i : -1;
                }
                for (int i = 0; i < KN && hit < 0; i++) {
                    hit = strcasecmp(kc[i], plain) == 0 ? i : -1;
                }
            }
            if (hit >= 0) {
                want[hit] = v;
                set[hit] = true;
            }
        }
        o += (size_t)snprintf(body + o, sizeof body - o, "%s}", kx_rand(5) == 0 ? " " : "");
        char *exact = malloc(o); /* no byte after the body */
        CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
        memcpy(exact, body, o);
        rsql_error_clear(&err);
        rsql_err_t rc = rsql_decode(d, (const uint8_t *)exact, o, a, row, &err);
        free(exact);
        if (rc != RSQL_OK) {
            fprintf(stderr, "\n  body: %.*s\n  error: %s\n", (int)o, body, err.msg);
        }
        CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
        for (int i = 0; i < KN; i++) {
            bool ok = set[i] ? !row[i].is_null && row[i].v.i == want[i] : row[i].is_null;
            if (!ok) {
                fprintf(stderr, "\n  body: %.*s\n  column %s: want %s%lld\n", (int)o, body,
                        kc[i], set[i] ? "" : "NULL ", set[i] ? (long long)want[i] : 0LL);
            }
            CU_ASSERT_TRUE_FATAL(ok);
        }
    }
    /* a name that holds a quote or a backslash is never matched by its bytes as written,
       even where its column is the one expected next: `"q"t":` is a key "q" followed by junk,
       `"b\s"` an invalid escape */
    static const char *const bad[][2] = {
        {"{\"abcdefghijklmn\":1,\"q\"t\":1}",
         "invalid JSON at byte 23: expected ':' after an object key"},
        {"{\"q\\\"t\":1,\"b\\s\":1}", "invalid JSON at byte 12: invalid escape in string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_decode(d, (const uint8_t *)bad[i][0], strlen(bad[i][0]), a, row,
                                    &err),
                        RSQL_ERR_DECODE);
        if (strcmp(err.msg, bad[i][1]) != 0) {
            fprintf(stderr, "\n  body: %s\n  got: %s\n", bad[i][0], err.msg);
        }
        CU_ASSERT_STRING_EQUAL(err.msg, bad[i][1]);
    }
    rsql_arena_destroy(a);
    rsql_decoder_destroy(d);
}

static CU_TestInfo format_tests[] = {
    {"test_formats_json_decode", test_formats_json_decode},
    {"test_formats_json_errors", test_formats_json_errors},
    {"test_formats_json_numbers", test_formats_json_numbers},
    {"test_formats_json_encode", test_formats_json_encode},
    {"test_formats_csv", test_formats_csv},
    {"test_formats_raw", test_formats_raw},
    {"test_formats_timestamp_range", test_formats_timestamp_range},
    {"test_formats_csv_round_trip", test_formats_csv_round_trip},
    {"test_formats_csv_one_rule", test_formats_csv_one_rule},
    {"test_formats_json_nested", test_formats_json_nested},
    {"test_formats_json_keys", test_formats_json_keys},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"formats", NULL, NULL, NULL, NULL, format_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
