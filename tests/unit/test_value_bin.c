/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit test of rsql_value_pack's bytes (base/rsql_value_bin.c), which a job's state keeps in
 * the catalog across runs, so they must never change: random rows of every scalar type,
 * NULLs, strings of 0 to 700 bytes (past the packer's 256-byte gather) and ARRAY values,
 * packed by rsql_value_pack and by the reference encoder below, written here from the file
 * comment's description of the form; then read back by rsql_value_unpack and packed again to
 * the same bytes.
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

static uint64_t bx = UINT64_C(0x9E3779B97F4A7C15);
static uint64_t rnd(void)
{
    bx ^= bx << 13;
    bx ^= bx >> 7;
    bx ^= bx << 17;
    return bx;
}

/* ---- the reference: the form as the file comment gives it */

static void ref_varint(rsql_buf_t *o, uint64_t v)
{
    while (v >= 0x80) {
        rsql_buf_putc(o, (char)(0x80 | (v & 0x7f)));
        v >>= 7;
    }
    rsql_buf_putc(o, (char)v);
}

static void ref_le64(rsql_buf_t *o, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        rsql_buf_putc(o, (char)(v >> (8 * i)));
    }
}

static void ref_pack(rsql_buf_t *o, const rsql_value_t *v)
{
    if (v->is_null) {
        rsql_buf_putc(o, (char)(0x80 | v->type));
        return;
    }
    rsql_buf_putc(o, (char)v->type);
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_putc(o, v->v.b ? 1 : 0); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_TIMESTAMP: {
        int64_t i = v->type == RSQL_TYPE_TIMESTAMP ? v->v.ts : v->v.i;
        ref_varint(o, i < 0 ? ((uint64_t)(-(i + 1)) << 1) | 1 : (uint64_t)i << 1); /* zigzag */
        break;
    }
    case RSQL_TYPE_DOUBLE: {
        double d = v->v.d == 0 ? 0.0 : v->v.d; /* -0.0 as 0.0 */
        uint64_t bits;
        memcpy(&bits, &d, 8);
        ref_le64(o, bits);
        break;
    }
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES:
        ref_varint(o, v->v.s.len);
        rsql_buf_append(o, v->v.s.p, v->v.s.len);
        break;
    case RSQL_TYPE_DECIMAL:
        rsql_buf_putc(o, (char)v->prec);
        rsql_buf_putc(o, (char)v->scale);
        ref_le64(o, v->v.dec.lo);
        ref_le64(o, (uint64_t)v->v.dec.hi);
        break;
    case RSQL_TYPE_ARRAY:
        ref_varint(o, v->v.c->n);
        for (uint32_t i = 0; i < v->v.c->n; i++) {
            ref_pack(o, &v->v.c->items[i]);
        }
        break;
    default: CU_FAIL("a type the test does not make"); break;
    }
}

/* ---- random values */

static char text[700];

static void rnd_string(rsql_value_t *v, rsql_type_t t)
{
    uint64_t r = rnd();
    size_t len = r % 4 == 0 ? (size_t)(r >> 8) % sizeof text : (size_t)(r >> 8) % 40;
    v->type = t;
    v->v.s.p = text + (r >> 20) % (sizeof text - len + 1);
    v->v.s.len = len;
}

static void rnd_value(rsql_value_t *v, rsql_arena_t *a, rsql_type_t *t, const rsql_tdesc_t **d)
{
    static const rsql_type_t kinds[] = {RSQL_TYPE_BOOLEAN, RSQL_TYPE_INT,     RSQL_TYPE_BIGINT,
                                        RSQL_TYPE_DATE,    RSQL_TYPE_TIMESTAMP, RSQL_TYPE_DOUBLE,
                                        RSQL_TYPE_VARCHAR, RSQL_TYPE_BYTES,   RSQL_TYPE_DECIMAL,
                                        RSQL_TYPE_ARRAY};
    uint64_t r = rnd();
    memset(v, 0, sizeof *v);
    v->type = *t = kinds[r % (sizeof kinds / sizeof kinds[0])];
    *d = rsql_tdesc_scalar(v->type);
    v->is_null = (r >> 8) % 7 == 0;
    int64_t i = (int64_t)rnd() >> ((r >> 12) % 64); /* all magnitudes, both signs */
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: v->v.b = (r >> 20) & 1; break;
    case RSQL_TYPE_INT: v->v.i = (int32_t)i; break;
    case RSQL_TYPE_BIGINT: v->v.i = i; break;
    case RSQL_TYPE_DATE: v->v.i = i % 2932896; break;
    case RSQL_TYPE_TIMESTAMP: v->v.ts = i; break;
    case RSQL_TYPE_DOUBLE: {
        uint64_t bits = rnd();
        memcpy(&v->v.d, &bits, 8);
        if ((r >> 20) % 5 == 0) {
            v->v.d = (r >> 24) & 1 ? -0.0 : 1.5;
        }
        if (v->v.d != v->v.d) { /* a NaN: its bits read back as they are */
            v->v.d = 2.25;
        }
        break;
    }
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: rnd_string(v, v->type); break;
    case RSQL_TYPE_DECIMAL:
        *d = rsql_tdesc_decimal(38, 4);
        v->prec = 38;
        v->scale = 4;
        v->v.dec.lo = rnd();
        v->v.dec.hi = (int64_t)(rnd() >> 40) - (INT64_C(1) << 23);
        break;
    case RSQL_TYPE_ARRAY: {
        *d = rsql_tdesc_array(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR));
        uint32_t n = (uint32_t)((r >> 20) % 30);
        rsql_composite_t *c =
            rsql_arena_alloc(a, sizeof *c + (size_t)(n ? n : 1) * sizeof(rsql_value_t));
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        c->desc = *d;
        c->n = n;
        for (uint32_t k = 0; k < n; k++) {
            memset(&c->items[k], 0, sizeof c->items[k]);
            rnd_string(&c->items[k], RSQL_TYPE_VARCHAR);
            c->items[k].is_null = rnd() % 9 == 0;
        }
        v->v.c = c;
        break;
    }
    default: break;
    }
}

static void test_value_bin_bytes(void)
{
    for (size_t k = 0; k < sizeof text; k++) {
        text[k] = (char)rnd();
    }
    int mismatched = 0;
    for (int round = 0; round < 20000; round++) {
        rsql_arena_t *a = rsql_arena_new();
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        rsql_value_t row[24], back[24];
        rsql_type_t types[24];
        const rsql_tdesc_t *descs[24];
        int n = (int)(rnd() % 24) + 1;
        for (int i = 0; i < n; i++) {
            rnd_value(&row[i], a, &types[i], &descs[i]);
        }
        rsql_buf_t got = RSQL_BUF_INIT, want = RSQL_BUF_INIT, again = RSQL_BUF_INIT;
        rsql_buf_putc(&got, 'x'); /* packing appends to what the buffer holds */
        rsql_value_pack(row, n, &got);
        rsql_buf_putc(&want, 'x');
        for (int i = 0; i < n; i++) {
            ref_pack(&want, &row[i]);
        }
        CU_ASSERT_FALSE_FATAL(got.oom || want.oom);
        if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0) {
            if (mismatched++ == 0) {
                fprintf(stderr, "\n  round %d: %zu bytes packed, the reference %zu\n", round,
                        got.len, want.len);
            }
        }
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(rsql_value_unpack((const uint8_t *)got.data + 1, got.len - 1, n,
                                                types, descs, a, back, &err),
                              RSQL_OK);
        rsql_value_pack(back, n, &again);
        CU_ASSERT_TRUE(again.len == got.len - 1 &&
                       memcmp(again.data, got.data + 1, again.len) == 0);
        rsql_buf_deinit(&got);
        rsql_buf_deinit(&want);
        rsql_buf_deinit(&again);
        rsql_arena_destroy(a);
    }
    CU_ASSERT_EQUAL(mismatched, 0);
}

/* Unpack n bytes as one value of type t: the return code, the message in msg (of
   sizeof err.msg), the value. */
static rsql_err_t unpack1(const char *bytes, size_t n, rsql_type_t t, char *msg,
                          rsql_value_t *out)
{
    rsql_arena_t *a = rsql_arena_new();
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_value_unpack((const uint8_t *)bytes, n, 1, &t, NULL, a, out, &err);
    snprintf(msg, sizeof err.msg, "%s", rc == RSQL_OK ? "" : err.msg);
    rsql_arena_destroy(a);
    return rc;
}

/* Malformed bytes of the scalar types are refused with what is wrong, well formed ones read:
   the edges of the integer varints (one byte, ten, eleven, cut short), INT's range, a DOUBLE
   cut short, the tag of another type, NULL, and bytes left over. */
static void test_value_bin_malformed(void)
{
    char msg[sizeof(((rsql_error_t *)0)->msg)];
    rsql_value_t v;
    /* BIGINT (tag 3) -64: zigzag 127, one byte */
    CU_ASSERT_EQUAL(unpack1("\x03\x7f", 2, RSQL_TYPE_BIGINT, msg, &v), RSQL_OK);
    CU_ASSERT_TRUE(!v.is_null && v.v.i == -64);
    /* INT64_MIN: zigzag UINT64_MAX, ten bytes */
    CU_ASSERT_EQUAL(unpack1("\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11,
                            RSQL_TYPE_BIGINT, msg, &v),
                    RSQL_OK);
    CU_ASSERT_TRUE(v.v.i == INT64_MIN);
    CU_ASSERT_EQUAL(unpack1("\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11,
                            RSQL_TYPE_BIGINT, msg, &v),
                    RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: an integer is cut short");
    CU_ASSERT_EQUAL(unpack1("\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x00", 12,
                            RSQL_TYPE_BIGINT, msg, &v),
                    RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: an integer is cut short");
    CU_ASSERT_EQUAL(unpack1("\x03\x80", 2, RSQL_TYPE_BIGINT, msg, &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: an integer is cut short");
    CU_ASSERT_EQUAL(unpack1("\x03", 1, RSQL_TYPE_BIGINT, msg, &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: an integer is cut short");
    /* INT: 2^31 - 1 reads, 2^31 is out of range (zigzag 2^32 = 0x80 0x80 0x80 0x80 0x10) */
    CU_ASSERT_EQUAL(unpack1("\x02\xfe\xff\xff\xff\x0f", 6, RSQL_TYPE_INT, msg, &v), RSQL_OK);
    CU_ASSERT_TRUE(v.v.i == INT32_MAX);
    CU_ASSERT_EQUAL(unpack1("\x02\x80\x80\x80\x80\x10", 6, RSQL_TYPE_INT, msg, &v),
                    RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: an INT is out of range");
    /* the tag of another type (BIGINT's for an INT); NULL; bytes left */
    CU_ASSERT_EQUAL(unpack1("\x03\x02", 2, RSQL_TYPE_INT, msg, &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: a value is not of its column's type");
    CU_ASSERT_EQUAL(unpack1("\x83", 1, RSQL_TYPE_BIGINT, msg, &v), RSQL_OK);
    CU_ASSERT_TRUE(v.is_null && v.type == RSQL_TYPE_BIGINT);
    CU_ASSERT_EQUAL(unpack1("\x03\x02\x00", 3, RSQL_TYPE_BIGINT, msg, &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: bytes are left after the last value");
    /* DOUBLE: eight bytes, not seven */
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_t d = {.type = RSQL_TYPE_DOUBLE, .v.d = -2.5};
    rsql_value_pack(&d, 1, &b);
    CU_ASSERT_EQUAL_FATAL(b.len, 9);
    CU_ASSERT_EQUAL(unpack1(b.data, 9, RSQL_TYPE_DOUBLE, msg, &v), RSQL_OK);
    CU_ASSERT_TRUE(v.v.d == -2.5);
    CU_ASSERT_EQUAL(unpack1(b.data, 8, RSQL_TYPE_DOUBLE, msg, &v), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(msg, "state: a DOUBLE is cut short");
    rsql_buf_deinit(&b);
    /* TIMESTAMP into v.ts */
    rsql_value_t ts = {.type = RSQL_TYPE_TIMESTAMP, .v.ts = INT64_C(1767225600123)};
    rsql_value_pack(&ts, 1, &b);
    CU_ASSERT_EQUAL(unpack1(b.data, b.len, RSQL_TYPE_TIMESTAMP, msg, &v), RSQL_OK);
    CU_ASSERT_TRUE(v.type == RSQL_TYPE_TIMESTAMP && v.v.ts == INT64_C(1767225600123));
    rsql_buf_deinit(&b);
}

static CU_TestInfo bin_tests[] = {
    {"test_value_bin_bytes", test_value_bin_bytes},
    {"test_value_bin_malformed", test_value_bin_malformed},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"value-bin", NULL, NULL, NULL, NULL, bin_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
