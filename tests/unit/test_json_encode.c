/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit test of the json encoder's text (connectors/formats/fmt_json.c): random rows of the
 * scalar types (strings of every byte, with quotes, backslashes and control characters;
 * integers at their limits; doubles finite and not; timestamps; NULLs; now and then a string
 * long enough that the row is written through the buffer's appends instead of in place, and a
 * BYTES value, which also is) against a reference encoder written here from the rules of JSON
 * and the format's documented forms, row after row into one buffer as the file sink does, and
 * each row alone into exactly the room the in-place writer asks for; and a TIMESTAMP under
 * each json.timestamp-format.
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static uint64_t rx = UINT64_C(0x2545F4914F6CDD1D);
static uint64_t rnd(void)
{
    rx ^= rx << 13;
    rx ^= rx >> 7;
    rx ^= rx << 17;
    return rx;
}

/* ---- the reference */

static void ref_string(rsql_buf_t *o, const char *s, size_t n)
{
    rsql_buf_putc(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': rsql_buf_puts(o, "\\\""); break;
        case '\\': rsql_buf_puts(o, "\\\\"); break;
        case '\n': rsql_buf_puts(o, "\\n"); break;
        case '\r': rsql_buf_puts(o, "\\r"); break;
        case '\t': rsql_buf_puts(o, "\\t"); break;
        case '\b': rsql_buf_puts(o, "\\b"); break;
        case '\f': rsql_buf_puts(o, "\\f"); break;
        default:
            if (c < 0x20) {
                rsql_buf_printf(o, "\\u%04x", c);
            } else {
                rsql_buf_putc(o, (char)c);
            }
        }
    }
    rsql_buf_putc(o, '"');
}

static void ref_value(rsql_buf_t *o, const rsql_value_t *v)
{
    char t[RSQL_VALUE_TEXT_MAX];
    if (v->is_null) {
        rsql_buf_puts(o, "null");
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_VARCHAR: ref_string(o, v->v.s.p, v->v.s.len); break;
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(o, v->v.b ? "true" : "false"); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_printf(o, "%" PRId64, v->v.i); break;
    case RSQL_TYPE_DOUBLE:
        rsql_value_format_double(v->v.d, t); /* the canonical text (test_value, test_dtoa) */
        rsql_buf_printf(o, isfinite(v->v.d) ? "%s" : "\"%s\"", t);
        break;
    case RSQL_TYPE_TIMESTAMP:
        rsql_value_format_timestamp(v->v.ts, t);
        rsql_buf_printf(o, "\"%s\"", t);
        break;
    case RSQL_TYPE_BYTES:
        rsql_buf_putc(o, '"');
        rsql_value_format_bytes((const uint8_t *)v->v.s.p, v->v.s.len, o);
        rsql_buf_putc(o, '"');
        break;
    default: CU_FAIL("a type the test does not make");
    }
}

/* ---- random rows */

static char text[30000];

static void rnd_value(rsql_value_t *v, rsql_type_t t)
{
    memset(v, 0, sizeof *v);
    v->type = t;
    if (rnd() % 10 == 0) {
        v->is_null = true;
        return;
    }
    static const int64_t edges[] = {0, 1, -1, 9, 10, 99, 100, INT32_MAX, INT32_MIN, INT64_MAX,
                                    INT64_MIN, 999999999999LL, -1000000000000LL};
    static const double dedges[] = {0.0, -0.0, 0.1, -2.5, 1e21, 1e-7, 123456.789, 5e-324};
    switch (t) {
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: {
        size_t n = rnd() % 100 == 0 ? 11000 + rnd() % 12000 : rnd() % 40; /* 6n > 65536 */
        size_t at = rnd() % (sizeof text - n);
        v->v.s.p = n ? text + at : NULL;
        v->v.s.len = n;
        break;
    }
    case RSQL_TYPE_BOOLEAN: v->v.b = rnd() & 1; break;
    case RSQL_TYPE_INT: v->v.i = (int32_t)rnd(); break;
    case RSQL_TYPE_BIGINT:
        v->v.i = rnd() % 4 == 0 ? edges[rnd() % (sizeof edges / sizeof edges[0])]
                                : (int64_t)(rnd() >> (rnd() % 64));
        break;
    case RSQL_TYPE_DOUBLE: {
        uint64_t k = rnd() % 8;
        v->v.d = k == 0   ? dedges[rnd() % (sizeof dedges / sizeof dedges[0])]
                 : k == 1 ? (rnd() % 3 == 0 ? NAN : rnd() & 1 ? INFINITY : -INFINITY)
                 : k <= 4 ? (double)(int64_t)(rnd() % 2000000) / 100.0
                          : (double)(int64_t)rnd() / (double)(rnd() | 1);
        break;
    }
    default: v->v.ts = (int64_t)(rnd() % UINT64_C(4102444800000)) - INT64_C(62135596800000);
    }
}

/*
** The row encoded alone into a buffer of exactly the room the in-place writer asks for (the
** keys and braces, 4 for a NULL, 6 a byte and 2 for a string, 50 for another value: the bound
** the encoder documents), with 16 guard bytes after it: its text must be want, written there
** (not in a grown buffer) when the row is flat and the room at most 64 KiB, and the guard
** bytes untouched (an ASan build also sees a write past the block). True when all holds.
*/
static bool in_its_room(rsql_encoder_t *enc, int n, const char *const *names,
                        const rsql_value_t *row, const char *want, size_t want_len)
{
    size_t room = 2;
    bool flat = true;
    for (int i = 0; i < n; i++) {
        rsql_buf_t k = RSQL_BUF_INIT;
        ref_string(&k, names[i], strlen(names[i]));
        room += (i > 0) + k.len + 1;
        rsql_buf_deinit(&k);
        const rsql_value_t *v = &row[i];
        room += v->is_null                    ? 4
                : v->type == RSQL_TYPE_VARCHAR ? 6 * v->v.s.len + 2
                                               : RSQL_VALUE_TEXT_MAX + 2;
        flat = flat && (v->is_null || v->type != RSQL_TYPE_BYTES);
    }
    if (!flat || room > 65536) {
        return true; /* the appends' way: the buffer grows as it must */
    }
    rsql_buf_t b = {rsql_malloc(room + 1 + 16), 0, room + 1, false};
    CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
    char *block = b.data;
    memset(b.data + room + 1, 0xa5, 16);
    rsql_error_t err;
    rsql_error_clear(&err);
    bool ok = rsql_encode(enc, row, &b, &err) == RSQL_OK && b.data == block &&
              b.len == want_len && memcmp(b.data, want, want_len) == 0;
    for (int i = 0; i < 16; i++) {
        ok = ok && (unsigned char)block[room + 1 + i] == 0xa5;
    }
    if (!ok) {
        fprintf(stderr, "\n  a row of room %zu: %s\n", room,
                b.data != block ? "written into a grown buffer" : "text or guard bytes differ");
    }
    rsql_buf_deinit(&b);
    return ok;
}

static void test_json_encode_text(void)
{
    /* every byte: in the first half the special ones often, in the second seldom (long runs
       that go as they are, eight bytes at a time) */
    for (size_t i = 0; i < sizeof text; i++) {
        static const char special[] = "\"\\\n\r\t\b\f\x01\x1f";
        bool often = i < sizeof text / 2;
        text[i] = rnd() % (often ? 4 : 200) == 0 ? special[rnd() % (sizeof special - 1)]
                  : often                          ? (char)rnd()
                                                   : (char)(0x20 + rnd() % 0xe0);
    }
    static const rsql_type_t kinds[] = {RSQL_TYPE_VARCHAR, RSQL_TYPE_BOOLEAN,  RSQL_TYPE_INT,
                                        RSQL_TYPE_BIGINT,  RSQL_TYPE_DOUBLE,   RSQL_TYPE_TIMESTAMP,
                                        RSQL_TYPE_VARCHAR, RSQL_TYPE_BIGINT,   RSQL_TYPE_BYTES};
    static const char *const names[] = {"id", "n\"a\\me", "x", "a b", "\x01", "score", "t", "u"};
    int bad = 0;
    for (int round = 0; round < 200; round++) {
        int n = 1 + (int)(rnd() % 8);
        rsql_type_t types[8];
        for (int i = 0; i < n; i++) {
            types[i] = kinds[rnd() % (round % 3 == 0 ? 9 : 8)]; /* BYTES in a third */
        }
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_encoder_t *enc = rsql_encoder_new("json", NULL, n, names, types, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
        rsql_buf_t got = RSQL_BUF_INIT, want = RSQL_BUF_INIT;
        for (int r = 0; r < 100; r++) {
            rsql_value_t row[8];
            for (int i = 0; i < n; i++) {
                rnd_value(&row[i], types[i]);
            }
            CU_ASSERT_EQUAL(rsql_encode(enc, row, &got, &err), RSQL_OK);
            rsql_buf_putc(&got, '\n');
            size_t from = want.len;
            rsql_buf_putc(&want, '{');
            for (int i = 0; i < n; i++) {
                if (i) {
                    rsql_buf_putc(&want, ',');
                }
                ref_string(&want, names[i], strlen(names[i]));
                rsql_buf_putc(&want, ':');
                ref_value(&want, &row[i]);
            }
            rsql_buf_puts(&want, "}\n");
            bad += !in_its_room(enc, n, names, row, want.data + from, want.len - from - 1);
        }
        CU_ASSERT_FALSE_FATAL(got.oom || want.oom);
        if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0) {
            size_t at = 0;
            while (at < got.len && at < want.len && got.data[at] == want.data[at]) {
                at++;
            }
            if (bad++ == 0) {
                fprintf(stderr, "\n  round %d differs at byte %zu: got %.60s\n  want %.60s\n",
                        round, at, got.data + (at > 20 ? at - 20 : 0),
                        want.data + (at > 20 ? at - 20 : 0));
            }
        }
        rsql_buf_deinit(&got);
        rsql_buf_deinit(&want);
        rsql_encoder_destroy(enc);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* An encoder of json with json.timestamp-format fmt over the columns (names, types). */
static rsql_encoder_t *enc_with(const char *fmt, int n, const char *const *names,
                                const rsql_type_t *types, rsql_optset_t **set)
{
    rsql_opt_kv_t kvs[] = {{"connector", "filesystem", RSQL_NOPOS, RSQL_NOPOS},
                           {"path", "/nonexistent", RSQL_NOPOS, RSQL_NOPOS},
                           {"format", "json", RSQL_NOPOS, RSQL_NOPOS},
                           {"json.timestamp-format", fmt, RSQL_NOPOS, RSQL_NOPOS}};
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_connector_def_t *conn = NULL;
    *set = rsql_connector_validate(kvs, 4, names, n, RSQL_NOPOS, &conn, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*set);
    rsql_encoder_t *enc =
        rsql_encoder_new("json", rsql_optset_conf(*set, RSQL_CONF_FORMAT), n, names, types, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
    return enc;
}

/* A row of flat values with a TIMESTAMP under json.timestamp-format epoch-millis and
   iso-8601: written as those forms say (the in-place writer leaves such a timestamp to the
   appends), and under sql as its text. */
static void test_json_encode_timestamp_formats(void)
{
    static const char *const names[] = {"id", "ts", "name"};
    static const rsql_type_t types[] = {RSQL_TYPE_BIGINT, RSQL_TYPE_TIMESTAMP, RSQL_TYPE_VARCHAR};
    rsql_value_t row[3] = {{.type = RSQL_TYPE_BIGINT, .v.i = 7},
                           {.type = RSQL_TYPE_TIMESTAMP, .v.ts = INT64_C(1714564800250)},
                           {.type = RSQL_TYPE_VARCHAR, .v.s = {"x", 1}}};
    static const struct {
        const char *fmt, *want;
    } cases[] = {
        {"epoch-millis", "{\"id\":7,\"ts\":1714564800250,\"name\":\"x\"}"},
        {"iso-8601", "{\"id\":7,\"ts\":\"2024-05-01T12:00:00.250Z\",\"name\":\"x\"}"},
        {"sql", "{\"id\":7,\"ts\":\"2024-05-01 12:00:00.250\",\"name\":\"x\"}"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rsql_optset_t *set;
        rsql_encoder_t *enc = enc_with(cases[c].fmt, 3, names, types, &set);
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_error_t err;
        rsql_error_clear(&err);
        for (int twice = 0; twice < 2; twice++) { /* the keys are escaped on the first row */
            rsql_buf_reset(&b);
            CU_ASSERT_EQUAL(rsql_encode(enc, row, &b, &err), RSQL_OK);
            CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), cases[c].want);
        }
        rsql_buf_deinit(&b);
        rsql_encoder_destroy(enc);
        rsql_optset_destroy(set);
    }
}

static CU_TestInfo encode_tests[] = {
    {"test_json_encode_text", test_json_encode_text},
    {"test_json_encode_timestamp_formats", test_json_encode_timestamp_formats},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"json-encode", NULL, NULL, NULL, NULL, encode_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
