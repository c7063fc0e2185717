/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of connectors/postgres/pgoutput.c, the decoder of PostgreSQL's logical
 * replication stream. The bytes are built here by a small encoder of the test's own, written
 * from the protocol's description of the messages (big-endian integers, NUL-terminated
 * strings, TupleData as a column count then a kind byte per column and, for text and
 * binary, a 32-bit length and the bytes), not from the decoder:
 *   - Begin, Commit, Origin, Type, Message: every field;
 *   - Relation: the cache by OID, a definition sent again (unchanged, then changed);
 *   - Insert: one +I row; its values by type OID (bool, int2/4/8, float8 NaN, numeric,
 *     text, bytea hex, date, timestamp, timestamptz, uuid, jsonb, NULL);
 *   - Update: +U alone without an old tuple, -U (key only) +U with 'K', -U +U with 'O'
 *     whose old values fill the new tuple's unchanged TOASTed ones; 'u' flagged otherwise;
 *   - Delete ('K', 'O'), Truncate (relations, options);
 *   - errors with their byte offsets; every prefix of every message fails cleanly;
 *   - the CopyBoth framing: XLogData, Primary keepalive, Standby Status Update; LSN text;
 *   - out of memory at each allocation in turn: RSQL_ERR_NOMEM, the relation cache intact;
 *   - and PostgreSQL 15's own bytes, kept in the fuzz corpus, decode to what ran.
 */
#include "config.h"
#include "connectors/postgres/pgoutput.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "base/rsql_value.h"

/* ---- the test's encoder */

typedef struct enc {
    uint8_t b[4096];
    size_t n;
} enc_t;

static void e_be(enc_t *e, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--) {
        e->b[e->n + (size_t)i] = (uint8_t)(v & 0xff);
        v >>= 8;
    }
    e->n += (size_t)k;
}
static void e_u8(enc_t *e, unsigned v) { e_be(e, v, 1); }
static void e_u16(enc_t *e, unsigned v) { e_be(e, v, 2); }
static void e_u32(enc_t *e, uint32_t v) { e_be(e, v, 4); }
static void e_u64(enc_t *e, uint64_t v) { e_be(e, v, 8); }
static void e_str(enc_t *e, const char *s)
{
    size_t k = strlen(s) + 1;
    memcpy(e->b + e->n, s, k);
    e->n += k;
}
/* TupleData column values: 't' + length + text, 'n', 'u'. */
static void e_text(enc_t *e, const char *s)
{
    e_u8(e, 't');
    e_u32(e, (uint32_t)strlen(s));
    memcpy(e->b + e->n, s, strlen(s));
    e->n += strlen(s);
}
static void e_null(enc_t *e) { e_u8(e, 'n'); }
static void e_unchanged(enc_t *e) { e_u8(e, 'u'); }

/* A Relation message: oid, namespace, name, identity, then n (flags, name, type, typmod). */
typedef struct tcol {
    unsigned flags;
    const char *name;
    uint32_t type;
    int32_t typmod;
} tcol_t;

static void e_relation(enc_t *e, uint32_t oid, const char *nsp, const char *name, char ident,
                       const tcol_t *cols, unsigned n)
{
    e_u8(e, 'R');
    e_u32(e, oid);
    e_str(e, nsp);
    e_str(e, name);
    e_u8(e, (unsigned)ident);
    e_u16(e, n);
    for (unsigned i = 0; i < n; i++) {
        e_u8(e, cols[i].flags);
        e_str(e, cols[i].name);
        e_u32(e, cols[i].type);
        e_u32(e, (uint32_t)cols[i].typmod);
    }
}

static rsql_err_t dec(rsql_pgoutput_t *d, const enc_t *e, rsql_pgoutput_event_t *ev,
                      rsql_error_t *err)
{
    rsql_error_clear(err);
    return rsql_pgoutput_decode(d, e->b, e->n, ev, err);
}

/* The table t (oid 16403) with id int4 (the key) and v text. */
static const tcol_t kv_cols[] = {{1, "id", 23, -1}, {0, "v", 25, -1}};

static rsql_pgoutput_t *kv_decoder(char ident)
{
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    enc_t e = {.n = 0};
    e_relation(&e, 16403, "public", "t", ident, kv_cols, 2);
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    return d;
}

/* The text of datum i of row as its column's value ("NULL" for NULL). */
static const char *val(const rsql_pgoutput_event_t *ev, int row, int i, rsql_arena_t *a)
{
    static char out[8][1100];
    static int k;
    char *s = out[k++ % 8];
    rsql_value_t v;
    rsql_error_t err;
    rsql_error_clear(&err);
    if (rsql_pgoutput_value(&ev->rel->cols[i], &ev->rows[row].cols[i], a, &v, &err) != RSQL_OK) {
        snprintf(s, 1100, "ERROR %s", err.msg);
        return s;
    }
    if (v.is_null) {
        return "NULL";
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_format(&v, &b);
    snprintf(s, 1100, "%s", rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return s;
}

/* ---- tests */

static void test_pgoutput_transaction(void)
{
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    enc_t e = {.n = 0};
    e_u8(&e, 'B');
    e_u64(&e, UINT64_C(0x16B374D848));
    e_u64(&e, 1000001); /* 2000-01-01 00:00:01.000001 */
    e_u32(&e, 742);
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.type, 'B');
    CU_ASSERT_EQUAL(ev.final_lsn, UINT64_C(0x16B374D848));
    CU_ASSERT_EQUAL(ev.time_us, 1000001);
    CU_ASSERT_EQUAL(rsql_pgoutput_time_ms(ev.time_us), INT64_C(946684801000));
    CU_ASSERT_EQUAL(ev.xid, 742);

    e.n = 0;
    e_u8(&e, 'C');
    e_u8(&e, 0);
    e_u64(&e, 0x100);
    e_u64(&e, 0x1A8);
    e_u64(&e, UINT64_C(0xFFFFFFFFFFFFFFFF)); /* -1 us: before 2000 */
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.type, 'C');
    CU_ASSERT_EQUAL(ev.lsn, 0x100);
    CU_ASSERT_EQUAL(ev.end_lsn, 0x1A8);
    CU_ASSERT_EQUAL(ev.time_us, -1);
    CU_ASSERT_EQUAL(rsql_pgoutput_time_ms(ev.time_us), INT64_C(946684799999));

    e.n = 0;
    e_u8(&e, 'O');
    e_u64(&e, 0x42);
    e_str(&e, "node_a");
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.lsn, 0x42);
    CU_ASSERT_STRING_EQUAL(ev.name, "node_a");

    e.n = 0;
    e_u8(&e, 'Y');
    e_u32(&e, 16410);
    e_str(&e, "public");
    e_str(&e, "mood");
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.type, 'Y');
    CU_ASSERT_EQUAL(ev.type_oid, 16410);
    CU_ASSERT_STRING_EQUAL(ev.nspname, "public");
    CU_ASSERT_STRING_EQUAL(ev.name, "mood");

    e.n = 0;
    e_u8(&e, 'M');
    e_u8(&e, 1);
    e_u64(&e, 0x77);
    e_str(&e, "app");
    e_u32(&e, 3);
    memcpy(e.b + e.n, "a\0b", 3);
    e.n += 3;
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.flags, 1);
    CU_ASSERT_STRING_EQUAL(ev.name, "app");
    CU_ASSERT_EQUAL(ev.len, 3);
    CU_ASSERT_EQUAL(memcmp(ev.data, "a\0b", 3), 0);
    rsql_pgoutput_destroy(d);
}

static void test_pgoutput_relation(void)
{
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    enc_t e = {.n = 0};
    CU_ASSERT_PTR_NULL(rsql_pgoutput_relation(d, 16403));
    const tcol_t cols[] = {{1, "id", 20, -1}, {0, "price", 1700, (10 << 16 | 2) + 4},
                           {0, "note", 1043, 24}};
    e_relation(&e, 16403, "shop", "orders", 'd', cols, 3);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.type, 'R');
    CU_ASSERT_FALSE(ev.changed);
    const rsql_pgoutput_rel_t *rel = rsql_pgoutput_relation(d, 16403);
    CU_ASSERT_PTR_EQUAL_FATAL(rel, ev.rel);
    CU_ASSERT_STRING_EQUAL(rel->nspname, "shop");
    CU_ASSERT_STRING_EQUAL(rel->relname, "orders");
    CU_ASSERT_EQUAL(rel->replident, 'd');
    CU_ASSERT_EQUAL_FATAL(rel->n_cols, 3);
    CU_ASSERT_STRING_EQUAL(rel->cols[1].name, "price");
    CU_ASSERT_EQUAL(rel->cols[0].flags, RSQL_PGOUTPUT_COL_KEY);
    CU_ASSERT_EQUAL(rel->cols[1].flags, 0);
    CU_ASSERT_EQUAL(rel->cols[1].type_oid, 1700);
    CU_ASSERT_EQUAL(rel->cols[1].typmod, (10 << 16 | 2) + 4);
    CU_ASSERT_EQUAL(rel->cols[0].typmod, -1);
    CU_ASSERT_EQUAL(rsql_pgoutput_type(rel->cols[1].type_oid), RSQL_TYPE_DECIMAL);
    CU_ASSERT_EQUAL(rsql_pgoutput_type(rel->cols[2].type_oid), RSQL_TYPE_VARCHAR);

    /* the same definition again (a new connection): not a change */
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_FALSE(ev.changed);
    /* a second relation, then the first with a column added: a change */
    e.n = 0;
    e_relation(&e, 16500, "", "other", 'f', cols, 1);
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(ev.rel->nspname, "");
    const tcol_t more[] = {cols[0], cols[1], cols[2], {0, "added", 16, -1}};
    e.n = 0;
    e_relation(&e, 16403, "shop", "orders", 'd', more, 4);
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_TRUE(ev.changed);
    CU_ASSERT_EQUAL(rsql_pgoutput_relation(d, 16403)->n_cols, 4);
    CU_ASSERT_EQUAL(rsql_pgoutput_relation(d, 16500)->replident, 'f');
    /* a type changed (typmod only) is a change too */
    const tcol_t wider[] = {cols[0], cols[1], {0, "note", 1043, 54}, {0, "added", 16, -1}};
    e.n = 0;
    e_relation(&e, 16403, "shop", "orders", 'd', wider, 4);
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_TRUE(ev.changed);
    rsql_pgoutput_destroy(d);
}

static void test_pgoutput_insert_values(void)
{
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_arena_t *a = rsql_arena_new();
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    enc_t e = {.n = 0};
    const tcol_t cols[] = {
        {1, "b", 16, -1},     {0, "i2", 21, -1},    {0, "i4", 23, -1},     {0, "i8", 20, -1},
        {0, "f8", 701, -1},   {0, "n", 1700, -1},   {0, "t", 25, -1},      {0, "by", 17, -1},
        {0, "d", 1082, -1},   {0, "ts", 1114, -1},  {0, "tz", 1184, -1},   {0, "u", 2950, -1},
        {0, "j", 3802, -1},   {0, "nul", 23, -1}};
    e_relation(&e, 7, "public", "all_types", 'd', cols, 14);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    e.n = 0;
    e_u8(&e, 'I');
    e_u32(&e, 7);
    e_u8(&e, 'N');
    e_u16(&e, 14);
    e_text(&e, "t");
    e_text(&e, "-32768");
    e_text(&e, "2147483647");
    e_text(&e, "-9223372036854775808");
    e_text(&e, "NaN");
    e_text(&e, "-12345678901234567890.0500");
    e_text(&e, "h\xc3\xa9llo");
    e_text(&e, "\\x00ff41");
    e_text(&e, "2024-02-29");
    e_text(&e, "2024-02-29 13:14:15.123456");
    e_text(&e, "2024-02-29 13:14:15.5+05:30");
    e_text(&e, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    e_text(&e, "{\"k\": [1, 2]}");
    e_null(&e);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.type, 'I');
    CU_ASSERT_EQUAL_FATAL(ev.n_rows, 1);
    CU_ASSERT_EQUAL(ev.rows[0].kind, RSQL_ROW_INSERT);
    CU_ASSERT_FALSE(ev.rows[0].key_only);
    CU_ASSERT_EQUAL(ev.rows[0].n_unchanged, 0);
    const char *want[] = {"true", "-32768", "2147483647", "-9223372036854775808", "NaN",
                          "-12345678901234567890.0500", "h\xc3\xa9llo", "AP9B",
                          "2024-02-29", "2024-02-29 13:14:15.123", "2024-02-29 07:44:15.500",
                          "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{\"k\": [1, 2]}", "NULL"};
    for (int i = 0; i < 14; i++) {
        const char *got = val(&ev, 0, i, a);
        if (strcmp(got, want[i]) != 0) {
            fprintf(stderr, "column %d: got '%s', want '%s'\n", i, got, want[i]);
            CU_FAIL("value");
        }
    }
    rsql_value_t v;
    CU_ASSERT_EQUAL(rsql_pgoutput_value(&ev.rel->cols[5], &ev.rows[0].cols[5], a, &v, &err),
                    RSQL_OK);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_DECIMAL);
    CU_ASSERT_EQUAL(v.scale, 4);
    CU_ASSERT_EQUAL(rsql_pgoutput_value(&ev.rel->cols[4], &ev.rows[0].cols[4], a, &v, &err),
                    RSQL_OK);
    CU_ASSERT_TRUE(isnan(v.v.d));
    CU_ASSERT_EQUAL(rsql_pgoutput_value(&ev.rel->cols[13], &ev.rows[0].cols[13], a, &v, &err),
                    RSQL_OK);
    CU_ASSERT_TRUE(v.is_null);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_INT);
    rsql_arena_destroy(a);
    rsql_pgoutput_destroy(d);
}

static void test_pgoutput_update_delete(void)
{
    rsql_arena_t *a = rsql_arena_new();
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    enc_t e = {.n = 0};

    /* DEFAULT identity, key unchanged: no old tuple, +U alone; a 'u' value is flagged */
    rsql_pgoutput_t *d = kv_decoder('d');
    e_u8(&e, 'U');
    e_u32(&e, 16403);
    e_u8(&e, 'N');
    e_u16(&e, 2);
    e_text(&e, "5");
    e_unchanged(&e);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.old_tag, 0);
    CU_ASSERT_EQUAL_FATAL(ev.n_rows, 1);
    CU_ASSERT_EQUAL(ev.rows[0].kind, RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_EQUAL(ev.rows[0].n_unchanged, 1);
    CU_ASSERT_EQUAL(ev.rows[0].cols[1].kind, 'u');
    CU_ASSERT_STRING_EQUAL(val(&ev, 0, 1, a), "ERROR pgoutput: column 'v' (type OID 25): an "
                           "unchanged TOASTed value, which the server does not send");

    /* the key changed: 'K' (the old key, the rest NULL), -U key only, then +U */
    e.n = 0;
    e_u8(&e, 'U');
    e_u32(&e, 16403);
    e_u8(&e, 'K');
    e_u16(&e, 2);
    e_text(&e, "5");
    e_null(&e);
    e_u8(&e, 'N');
    e_u16(&e, 2);
    e_text(&e, "6");
    e_text(&e, "six");
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.old_tag, 'K');
    CU_ASSERT_EQUAL_FATAL(ev.n_rows, 2);
    CU_ASSERT_EQUAL(ev.rows[0].kind, RSQL_ROW_UPDATE_BEFORE);
    CU_ASSERT_TRUE(ev.rows[0].key_only);
    CU_ASSERT_STRING_EQUAL(val(&ev, 0, 0, a), "5");
    CU_ASSERT_EQUAL(ev.rows[1].kind, RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_FALSE(ev.rows[1].key_only);
    CU_ASSERT_STRING_EQUAL(val(&ev, 1, 0, a), "6");
    CU_ASSERT_STRING_EQUAL(val(&ev, 1, 1, a), "six");

    /* Delete by key */
    e.n = 0;
    e_u8(&e, 'D');
    e_u32(&e, 16403);
    e_u8(&e, 'K');
    e_u16(&e, 2);
    e_text(&e, "6");
    e_null(&e);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(ev.n_rows, 1);
    CU_ASSERT_EQUAL(ev.rows[0].kind, RSQL_ROW_DELETE);
    CU_ASSERT_TRUE(ev.rows[0].key_only);
    CU_ASSERT_STRING_EQUAL(val(&ev, 0, 0, a), "6");
    rsql_pgoutput_destroy(d);

    /* FULL identity: 'O' then 'N'; the new tuple's 'u' takes the old value */
    d = kv_decoder('f');
    e.n = 0;
    e_u8(&e, 'U');
    e_u32(&e, 16403);
    e_u8(&e, 'O');
    e_u16(&e, 2);
    e_text(&e, "7");
    e_text(&e, "big old value");
    e_u8(&e, 'N');
    e_u16(&e, 2);
    e_text(&e, "8");
    e_unchanged(&e);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.old_tag, 'O');
    CU_ASSERT_EQUAL_FATAL(ev.n_rows, 2);
    CU_ASSERT_FALSE(ev.rows[0].key_only);
    CU_ASSERT_EQUAL(ev.rows[0].kind, RSQL_ROW_UPDATE_BEFORE);
    CU_ASSERT_STRING_EQUAL(val(&ev, 0, 0, a), "7");
    CU_ASSERT_STRING_EQUAL(val(&ev, 1, 0, a), "8");
    CU_ASSERT_EQUAL(ev.rows[1].n_unchanged, 0);
    CU_ASSERT_EQUAL(ev.rows[1].n_filled, 1);
    CU_ASSERT_EQUAL(ev.rows[0].n_filled, 0);
    CU_ASSERT_STRING_EQUAL(val(&ev, 1, 1, a), "big old value");

    /* Delete with the old tuple */
    e.n = 0;
    e_u8(&e, 'D');
    e_u32(&e, 16403);
    e_u8(&e, 'O');
    e_u16(&e, 2);
    e_text(&e, "8");
    e_text(&e, "eight");
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.old_tag, 'O');
    CU_ASSERT_FALSE(ev.rows[0].key_only);
    CU_ASSERT_STRING_EQUAL(val(&ev, 0, 1, a), "eight");
    rsql_pgoutput_destroy(d);
    rsql_arena_destroy(a);
}

static void test_pgoutput_truncate(void)
{
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    enc_t e = {.n = 0};
    e_u8(&e, 'T');
    e_u32(&e, 2);
    e_u8(&e, 3);
    e_u32(&e, 16403);
    e_u32(&e, 16500);
    CU_ASSERT_EQUAL_FATAL(dec(d, &e, &ev, &err), RSQL_OK);
    CU_ASSERT_EQUAL(ev.type, 'T');
    CU_ASSERT_EQUAL(ev.flags, 3);
    CU_ASSERT_EQUAL_FATAL(ev.n_relids, 2);
    CU_ASSERT_EQUAL(ev.relids[0], 16403);
    CU_ASSERT_EQUAL(ev.relids[1], 16500);
    /* a count past the message's end is refused before anything is allocated for it */
    e.n = 0;
    e_u8(&e, 'T');
    e_u32(&e, 0xFFFFFFFF);
    e_u8(&e, 0);
    e_u32(&e, 1);
    CU_ASSERT_EQUAL(dec(d, &e, &ev, &err), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(err.msg, "pgoutput: Truncate says 4294967295 relations, the message "
                           "has room for 1 at byte 6");
    rsql_pgoutput_destroy(d);
}

/* msg decodes to a DECODE error with exactly want. */
static void expect_error(rsql_pgoutput_t *d, const enc_t *e, const char *want)
{
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    CU_ASSERT_EQUAL(dec(d, e, &ev, &err), RSQL_ERR_DECODE);
    if (strcmp(err.msg, want) != 0) {
        fprintf(stderr, "got  '%s'\nwant '%s'\n", err.msg, want);
        CU_FAIL("error text");
    }
}

static void test_pgoutput_errors(void)
{
    rsql_pgoutput_t *d = kv_decoder('d');
    enc_t e = {.n = 0};
    e_u8(&e, 'U');
    e_u32(&e, 16404);
    e_u8(&e, 'N');
    expect_error(d, &e, "pgoutput: Update for unknown relation 16404 at byte 1");

    e.n = 0;
    e_u8(&e, 'I');
    e_u32(&e, 16403);
    e_u8(&e, 'N');
    e_u16(&e, 3);
    expect_error(d, &e, "pgoutput: new tuple of Insert has 3 columns, relation public.t has 2 "
                 "at byte 6");

    e.n = 0;
    e_u8(&e, 'I');
    e_u32(&e, 16403);
    e_u8(&e, 'N');
    e_u16(&e, 2);
    e_text(&e, "1");
    e_u8(&e, 'x');
    expect_error(d, &e, "pgoutput: new tuple of Insert: column 2 (v) has kind 0x78, expected "
                 "'n', 'u', 't' or 'b' at byte 14");

    e.n = 0;
    e_u8(&e, 'I');
    e_u32(&e, 16403);
    e_u8(&e, 'N');
    e_u16(&e, 2);
    e_text(&e, "1");
    e_u8(&e, 't');
    e_u32(&e, 0x7FFFFFFF);
    expect_error(d, &e, "pgoutput: Insert message cut short (19 bytes): expected the bytes of a "
                 "value at byte 19");

    e.n = 0;
    e_u8(&e, 'D');
    e_u32(&e, 16403);
    e_u8(&e, 'N');
    expect_error(d, &e, "pgoutput: Delete has tuple tag 0x4e, expected 'K' or 'O' at byte 5");

    e.n = 0;
    e_u8(&e, 'U');
    e_u32(&e, 16403);
    e_u8(&e, 'K');
    e_u16(&e, 2);
    e_text(&e, "1");
    e_null(&e);
    e_u8(&e, 'O');
    expect_error(d, &e, "pgoutput: Update has tuple tag 0x4f after the key tuple, expected 'N' "
                 "at byte 15");

    e.n = 0;
    e_u8(&e, 'B');
    e_u64(&e, 1);
    e_u64(&e, 2);
    e_u32(&e, 3);
    e_u8(&e, 0);
    expect_error(d, &e, "pgoutput: 1 bytes after the end of the Begin message at byte 21");

    e.n = 0;
    e_u8(&e, 'Z');
    expect_error(d, &e, "pgoutput: unknown message type 0x5a at byte 0");

    e.n = 0;
    e_u8(&e, 'O');
    e_u64(&e, 1);
    e_u8(&e, 'a');
    expect_error(d, &e, "pgoutput: Origin message cut short (10 bytes): expected the origin's "
                 "name (a NUL-terminated string) at byte 9");

    e.n = 0;
    e_relation(&e, 9, "s", "r", 'x', kv_cols, 2);
    expect_error(d, &e, "pgoutput: Relation 9 has replica identity 0x78, expected 'd', 'n', 'f' "
                 "or 'i' at byte 9");
    e.n = 0;
    e_relation(&e, 9, "s", "r", 'd', kv_cols, 2);
    e.b[11] = 0xFF; /* the column count's low byte: 255 columns in a short message */
    expect_error(d, &e, "pgoutput: Relation 9 says 255 columns, the message has room for 2 at "
                 "byte 12");
    /* a failed Relation leaves the cache as it was, even one whose only fault is at its end */
    CU_ASSERT_PTR_NULL(rsql_pgoutput_relation(d, 9));
    e.n = 0;
    const tcol_t one[] = {{1, "id", 20, -1}};
    e_relation(&e, 16403, "public", "t", 'f', one, 1);
    e_u8(&e, 0);
    expect_error(d, &e, "pgoutput: 1 bytes after the end of the Relation message at byte 29");
    CU_ASSERT_EQUAL(rsql_pgoutput_relation(d, 16403)->n_cols, 2);
    CU_ASSERT_EQUAL(rsql_pgoutput_relation(d, 16403)->replident, 'd');
    CU_ASSERT_EQUAL(rsql_pgoutput_relation(d, 16403)->n_cols, 2);
    e.n = 0;
    expect_error(d, &e, "pgoutput: pgoutput message cut short (0 bytes): expected a message type "
                 "at byte 0");
    rsql_pgoutput_destroy(d);
}

/* Every proper prefix of every valid message fails with a decode error (never a crash). */
static void test_pgoutput_prefixes(void)
{
    enc_t msgs[8];
    int n = 0;
    memset(msgs, 0, sizeof msgs);
    e_relation(&msgs[n++], 16403, "public", "t", 'f', kv_cols, 2);
    enc_t *e = &msgs[n++];
    e_u8(e, 'U');
    e_u32(e, 16403);
    e_u8(e, 'O');
    e_u16(e, 2);
    e_text(e, "1");
    e_text(e, "one");
    e_u8(e, 'N');
    e_u16(e, 2);
    e_text(e, "2");
    e_unchanged(e);
    e = &msgs[n++];
    e_u8(e, 'T');
    e_u32(e, 1);
    e_u8(e, 0);
    e_u32(e, 16403);
    e = &msgs[n++];
    e_u8(e, 'M');
    e_u8(e, 0);
    e_u64(e, 5);
    e_str(e, "p");
    e_u32(e, 2);
    e_u8(e, 'h');
    e_u8(e, 'i');
    e = &msgs[n++];
    e_u8(e, 'C');
    e_u8(e, 0);
    e_u64(e, 1);
    e_u64(e, 2);
    e_u64(e, 3);
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    for (int m = 0; m < n; m++) {
        for (size_t k = 0; k < msgs[m].n; k++) {
            rsql_pgoutput_event_t ev;
            rsql_error_t err;
            rsql_error_clear(&err);
            /* a heap copy of exactly k bytes, so a read past it is caught by ASan */
            uint8_t *p = malloc(k ? k : 1);
            memcpy(p, msgs[m].b, k);
            CU_ASSERT_EQUAL(rsql_pgoutput_decode(d, p, k, &ev, &err), RSQL_ERR_DECODE);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pgoutput: "));
            free(p);
        }
        rsql_pgoutput_event_t ev;
        rsql_error_t err;
        CU_ASSERT_EQUAL(dec(d, &msgs[m], &ev, &err), RSQL_OK);
    }
    rsql_pgoutput_destroy(d);
}

static void test_pgoutput_copy_framing(void)
{
    rsql_pgoutput_copy_t c;
    rsql_error_t err;
    enc_t e = {.n = 0};
    e_u8(&e, 'w');
    e_u64(&e, UINT64_C(0x100000010));
    e_u64(&e, UINT64_C(0x100000020));
    e_u64(&e, 12345);
    e_u8(&e, 'B');
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_pgoutput_copy_parse(e.b, e.n, &c, &err), RSQL_OK);
    CU_ASSERT_EQUAL(c.kind, 'w');
    CU_ASSERT_EQUAL(c.start_lsn, UINT64_C(0x100000010));
    CU_ASSERT_EQUAL(c.end_lsn, UINT64_C(0x100000020));
    CU_ASSERT_EQUAL(c.time_us, 12345);
    CU_ASSERT_EQUAL(c.len, 1);
    CU_ASSERT_PTR_EQUAL(c.data, e.b + 25);

    e.n = 0;
    e_u8(&e, 'k');
    e_u64(&e, 0xABC);
    e_u64(&e, 99);
    e_u8(&e, 1);
    CU_ASSERT_EQUAL_FATAL(rsql_pgoutput_copy_parse(e.b, e.n, &c, &err), RSQL_OK);
    CU_ASSERT_EQUAL(c.kind, 'k');
    CU_ASSERT_EQUAL(c.end_lsn, 0xABC);
    CU_ASSERT_EQUAL(c.time_us, 99);
    CU_ASSERT_TRUE(c.reply_requested);
    CU_ASSERT_EQUAL(rsql_pgoutput_copy_parse(e.b, e.n - 1, &c, &err), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(err.msg, "pgoutput: Primary keepalive message cut short (17 bytes): "
                           "expected the reply flag at byte 17");
    rsql_error_clear(&err);
    e.b[0] = 'x';
    CU_ASSERT_EQUAL(rsql_pgoutput_copy_parse(e.b, e.n, &c, &err), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(err.msg, "pgoutput: CopyData message of kind 0x78, expected 'w' "
                           "(XLogData) or 'k' (keepalive) at byte 0");
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_pgoutput_copy_parse(e.b, 10, &c, &err), RSQL_ERR_DECODE);

    uint8_t r[RSQL_PGOUTPUT_STATUS_LEN];
    CU_ASSERT_EQUAL(rsql_pgoutput_status_update(r, 0x0102030405060708, 0x10, 0x20, -2, true),
                    34);
    e.n = 0;
    e_u8(&e, 'r');
    e_u64(&e, 0x0102030405060708);
    e_u64(&e, 0x10);
    e_u64(&e, 0x20);
    e_u64(&e, (uint64_t)-2);
    e_u8(&e, 1);
    CU_ASSERT_EQUAL(e.n, 34);
    CU_ASSERT_EQUAL(memcmp(r, e.b, 34), 0);
}

static void test_pgoutput_lsn(void)
{
    rsql_lsn_t l = 0;
    char buf[RSQL_LSN_TEXT_MAX];
    CU_ASSERT_TRUE(rsql_pgoutput_lsn_parse("16/B374D848", 11, &l));
    CU_ASSERT_EQUAL(l, UINT64_C(0x16B374D848));
    CU_ASSERT_EQUAL(rsql_pgoutput_lsn_format(l, buf), 11);
    CU_ASSERT_STRING_EQUAL(buf, "16/B374D848");
    CU_ASSERT_TRUE(rsql_pgoutput_lsn_parse("ffffffff/ffffffff", 17, &l));
    CU_ASSERT_EQUAL(l, UINT64_MAX);
    CU_ASSERT_EQUAL(rsql_pgoutput_lsn_format(l, buf), 17);
    rsql_pgoutput_lsn_format(0, buf);
    CU_ASSERT_STRING_EQUAL(buf, "0/0");
    const char *bad[] = {"", "/", "1/", "/1", "1/2/3", "g/1", "1/123456789", "1 /2", "1/2 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_FALSE(rsql_pgoutput_lsn_parse(bad[i], strlen(bad[i]), &l));
    }
}

static void test_pgoutput_value_errors(void)
{
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t v;
    rsql_error_t err;
    struct {
        uint32_t oid;
        char kind;
        const char *text, *want;
    } cases[] = {
        {23, 't', "abc", "pgoutput: column 'c' (type OID 23): not an integer"},
        {21, 't', "99999999999", "pgoutput: column 'c' (type OID 21): out of range for INT"},
        {16, 't', "true", "pgoutput: column 'c' (type OID 16): not a boolean (t or f)"},
        {17, 't', "\\x0g", "pgoutput: column 'c' (type OID 17): not a hex digit at 3"},
        {17, 't', "abc", "pgoutput: column 'c' (type OID 17): not bytea's hex form (\\x...)"},
        {1082, 't', "infinity", "pgoutput: column 'c' (type OID 1082): not a date"},
        {23, 'b', "\0\0\0\1", "pgoutput: column 'c' (type OID 23): a binary value (only "
                              "bytea's is read; ask for text)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rsql_pgoutput_col_t col = {"c", 0, cases[i].oid, -1};
        rsql_pgoutput_datum_t dt = {cases[i].kind, (const uint8_t *)cases[i].text,
                                    (uint32_t)(cases[i].kind == 'b' ? 4 : strlen(cases[i].text))};
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_pgoutput_value(&col, &dt, a, &v, &err), RSQL_ERR_DECODE);
        if (strcmp(err.msg, cases[i].want) != 0) {
            fprintf(stderr, "case %zu: got '%s'\n", i, err.msg);
            CU_FAIL("value error text");
        }
    }
    /* binary bytea is its bytes */
    rsql_pgoutput_col_t col = {"c", 0, 17, -1};
    rsql_pgoutput_datum_t dt = {'b', (const uint8_t *)"\0\1", 2};
    CU_ASSERT_EQUAL(rsql_pgoutput_value(&col, &dt, a, &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_BYTES);
    CU_ASSERT_EQUAL(v.v.s.len, 2);
    CU_ASSERT_EQUAL(memcmp(v.v.s.p, "\0\1", 2), 0);
    rsql_arena_destroy(a);
}

/* Out of memory at each allocation in turn: NOMEM, never a crash, the cache as it was. */
static void test_pgoutput_oom(void)
{
    const tcol_t more[] = {kv_cols[0], kv_cols[1], {0, "w", 16, -1}};
    enc_t rel2 = {.n = 0}, ins = {.n = 0}, trunc = {.n = 0};
    e_relation(&rel2, 16403, "public", "t", 'f', more, 3);
    e_u8(&ins, 'I');
    e_u32(&ins, 16403);
    e_u8(&ins, 'N');
    e_u16(&ins, 3);
    e_text(&ins, "1");
    e_null(&ins);
    e_text(&ins, "t");
    e_u8(&trunc, 'T');
    e_u32(&trunc, 1);
    e_u8(&trunc, 0);
    e_u32(&trunc, 16403);
    bool done = false;
    for (long k = 1; k < 200 && !done; k++) {
        rsql_pgoutput_t *d = kv_decoder('d');
        rsql_arena_t *a = rsql_arena_new();
        rsql_pgoutput_event_t ev;
        rsql_error_t err;
        rsql_value_t v;
        rsql_mem_fail_after(k);
        rsql_err_t rc = dec(d, &rel2, &ev, &err);
        CU_ASSERT(rc == RSQL_OK || rc == RSQL_ERR_NOMEM);
        /* a Relation that failed leaves the old definition */
        CU_ASSERT_EQUAL(rsql_pgoutput_relation(d, 16403)->n_cols, rc == RSQL_OK ? 3 : 2);
        if (rc == RSQL_OK) {
            rc = dec(d, &ins, &ev, &err);
            CU_ASSERT(rc == RSQL_OK || rc == RSQL_ERR_NOMEM);
        }
        if (rc == RSQL_OK) {
            rc = rsql_pgoutput_value(&ev.rel->cols[1], &ev.rows[0].cols[1], a, &v, &err);
            CU_ASSERT(rc == RSQL_OK);
            rc = dec(d, &trunc, &ev, &err);
            CU_ASSERT(rc == RSQL_OK || rc == RSQL_ERR_NOMEM);
        }
        if (rc == RSQL_ERR_NOMEM) {
            CU_ASSERT_EQUAL(err.code, RSQL_ERR_NOMEM);
        }
        rsql_mem_fail_after(0);
        done = rc == RSQL_OK;
        rsql_arena_destroy(a);
        rsql_pgoutput_destroy(d);
    }
    CU_ASSERT_TRUE(done);
}

/* The rows of ev as text (column 3, a time of the run that made the bytes, left out). */
static void dump_rows(const rsql_pgoutput_event_t *ev, rsql_arena_t *a, rsql_buf_t *out)
{
    for (int k = 0; k < ev->n_rows; k++) {
        const rsql_pgoutput_row_t *row = &ev->rows[k];
        rsql_buf_printf(out, "%s%s %s.%s", rsql_rowkind_short(row->kind),
                        row->key_only ? " key" : "", ev->rel->nspname, ev->rel->relname);
        for (int i = 0; i < ev->rel->n_cols; i++) {
            if (i == 3 || (row->key_only && !(ev->rel->cols[i].flags & RSQL_PGOUTPUT_COL_KEY))) {
                continue;
            }
            rsql_buf_printf(out, " %s=%s", ev->rel->cols[i].name,
                            row->cols[i].kind == 'u' ? "<unchanged>" : val(ev, k, i, a));
        }
        rsql_buf_putc(out, '\n');
    }
}

/*
** PostgreSQL 15's own bytes, kept as the fuzz target's seed (tests/fuzz/corpus/fuzz_pgoutput/
** stream_pg15: a mode byte, then each message behind a 2-byte length): pg_logical_slot_peek_
** binary_changes of a DEFAULT-identity table (an insert, an update leaving a TOASTed value,
** a key changed, a delete), a TRUNCATE of two tables and a logical decoding message.
*/
static void test_pgoutput_server_bytes(void)
{
    FILE *f = fopen(RSQL_SRCDIR "/tests/fuzz/corpus/fuzz_pgoutput/stream_pg15", "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static uint8_t b[4096];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_arena_t *a = rsql_arena_new();
    rsql_buf_t out = RSQL_BUF_INIT;
    char types[32] = "";
    size_t nt = 0;
    for (size_t at = 1; at + 2 <= n && nt + 1 < sizeof types;) {
        size_t len = (size_t)b[at] << 8 | b[at + 1];
        CU_ASSERT_FATAL(at + 2 + len <= n);
        rsql_pgoutput_event_t ev;
        rsql_error_t err;
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(rsql_pgoutput_decode(d, b + at + 2, len, &ev, &err), RSQL_OK);
        types[nt++] = ev.type;
        dump_rows(&ev, a, &out);
        if (ev.type == 'T') {
            rsql_buf_printf(&out, "TRUNCATE");
            for (uint32_t i = 0; i < ev.n_relids; i++) {
                rsql_buf_printf(&out, " %s", rsql_pgoutput_relation(d, ev.relids[i])->relname);
            }
            rsql_buf_printf(&out, " options=%u\n", (unsigned)ev.flags);
        } else if (ev.type == 'M') {
            rsql_buf_printf(&out, "MESSAGE %s %.*s\n", ev.name, (int)ev.len, (const char *)ev.data);
        }
        at += 2 + len;
    }
    types[nt] = '\0';
    CU_ASSERT_STRING_EQUAL(types, "BRIUCBUDCBRRRTCBMC");
    const char *want = "+I seeds.t id=1 v=a n=1.500 b=3q0= big=xxxxxxxxxx\n"
                       "+U seeds.t id=2 v=b n=NULL b=NULL big=<unchanged>\n"
                       "-U key seeds.t id=1\n"
                       "+U seeds.t id=5 v=a n=1.500 b=3q0= big=xxxxxxxxxx\n"
                       "-D key seeds.t id=5\n"
                       "TRUNCATE t f options=0\n"
                       "MESSAGE pfx hello\n";
    if (strcmp(rsql_buf_str(&out), want) != 0) {
        fprintf(stderr, "got:\n%s", rsql_buf_str(&out));
        CU_FAIL("the server's stream");
    }
    rsql_buf_deinit(&out);
    rsql_arena_destroy(a);
    rsql_pgoutput_destroy(d);
}

static CU_TestInfo pgoutput_tests[] = {{"transaction", test_pgoutput_transaction},
                                       {"relation", test_pgoutput_relation},
                                       {"insert_values", test_pgoutput_insert_values},
                                       {"update_delete", test_pgoutput_update_delete},
                                       {"truncate", test_pgoutput_truncate},
                                       {"errors", test_pgoutput_errors},
                                       {"prefixes", test_pgoutput_prefixes},
                                       {"copy_framing", test_pgoutput_copy_framing},
                                       {"lsn", test_pgoutput_lsn},
                                       {"value_errors", test_pgoutput_value_errors},
                                       {"oom", test_pgoutput_oom},
                                       {"server_bytes", test_pgoutput_server_bytes},
                                       CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {{"pgoutput", NULL, NULL, NULL, NULL, pgoutput_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"
