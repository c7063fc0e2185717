/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the debezium-json format (connectors/formats/fmt_debezium.c): every op of
 * Debezium's PostgreSQL events (tests/fixtures/debezium/), the schema envelope on and off,
 * tombstones, truncates and parse errors both ways, the metadata keys, projection pushdown,
 * nested types, encode -> decode round trips, and updates without their -U
 * (rsql_decoder_skip_before). Options go through the real options
 * engine (a filesystem table with format 'debezium-json').
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RSQL_SRCDIR
#define RSQL_SRCDIR "."
#endif

/* The fixtures' table: public.orders */
/* the bodies the decoder gave no rows for, whatever the cause */
static uint64_t skipped_total(const rsql_decoder_t *dec)
{
    rsql_decode_skips_t k;
    rsql_decoder_skips(dec, &k);
    return k.ddl + k.filtered + k.bad;
}

static const char *const cols[] = {"id", "customer", "amount", "placed", "tags"};
static const rsql_type_t types[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_DOUBLE,
                                    RSQL_TYPE_TIMESTAMP, RSQL_TYPE_ARRAY};
#define NCOLS 5

/* 2026-03-01 10:15:30.250 UTC in epoch milliseconds */
#define PLACED_1 INT64_C(1772360130250)

typedef struct fx {
    rsql_optset_t *opts;
    rsql_decoder_t *dec;
    rsql_encoder_t *enc;
    rsql_arena_t *arena;
    rsql_changes_t ch;
    rsql_error_t err;
} fx_t;

/* A decoder and an encoder of a filesystem table with format debezium-json and options kv. */
static void fx_init(fx_t *f, const char *const *kv)
{
    rsql_opt_kv_t kvs[16];
    int n = 0;
    memset(f, 0, sizeof *f);
    kvs[n++] = (rsql_opt_kv_t){"connector", "filesystem", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"path", "/nonexistent", RSQL_NOPOS, RSQL_NOPOS};
    kvs[n++] = (rsql_opt_kv_t){"format", "debezium-json", RSQL_NOPOS, RSQL_NOPOS};
    for (int i = 0; kv && kv[i]; i += 2) {
        kvs[n++] = (rsql_opt_kv_t){kv[i], kv[i + 1], RSQL_NOPOS, RSQL_NOPOS};
    }
    const rsql_connector_def_t *conn = NULL;
    rsql_error_clear(&f->err);
    f->opts = rsql_connector_validate(kvs, n, cols, NCOLS, RSQL_NOPOS, &conn, &f->err);
    if (!f->opts) {
        fprintf(stderr, "options: %s\n", f->err.msg);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->opts);
    const void *conf = rsql_optset_conf(f->opts, RSQL_CONF_FORMAT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(conf);
    f->dec = rsql_decoder_new("debezium-json", conf, NCOLS, cols, types, &f->err);
    f->enc = rsql_encoder_new("debezium-json", conf, NCOLS, cols, types, &f->err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->dec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->enc);
    const rsql_tdesc_t *tags = rsql_tdesc_array(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR));
    CU_ASSERT_PTR_NOT_NULL_FATAL(tags);
    rsql_decoder_set_desc(f->dec, 4, tags);
    f->arena = rsql_arena_new();
}

static void fx_deinit(fx_t *f)
{
    rsql_decoder_destroy(f->dec);
    rsql_encoder_destroy(f->enc);
    rsql_optset_destroy(f->opts);
    rsql_arena_destroy(f->arena);
}

/* A fixture's text (caller frees). */
static char *fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/debezium/%s", RSQL_SRCDIR, name);
    FILE *fp = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    *len = n;
    char *copy = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, buf, n + 1);
    return copy;
}

static rsql_err_t decode_text(fx_t *f, const char *body)
{
    rsql_error_clear(&f->err);
    return rsql_decode_changes(f->dec, (const uint8_t *)body, strlen(body), f->arena, &f->ch,
                               &f->err);
}

static rsql_err_t decode_fixture(fx_t *f, const char *name)
{
    size_t len;
    char *body = fixture(name, &len);
    rsql_error_clear(&f->err);
    rsql_err_t rc = rsql_decode_changes(f->dec, (const uint8_t *)body, len, f->arena, &f->ch,
                                        &f->err);
    /* values live in the arena, not in the body */
    memset(body, 'x', len);
    free(body);
    return rc;
}

static bool str_is(const rsql_value_t *v, const char *s)
{
    return !v->is_null && v->type == RSQL_TYPE_VARCHAR && v->v.s.len == strlen(s) &&
           memcmp(v->v.s.p, s, v->v.s.len) == 0;
}

/* Every op of the PostgreSQL fixtures: r, c, u (both replica identities), d. */
static void test_dbz_ops(void)
{
    fx_t f;
    fx_init(&f, NULL);
    CU_ASSERT_TRUE(rsql_format_changelog("debezium-json"));
    CU_ASSERT_TRUE(rsql_format_changelog("Debezium-JSON"));
    CU_ASSERT_FALSE(rsql_format_changelog("json"));

    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_read.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_INSERT);
    rsql_value_t *r = f.ch.rows[0];
    CU_ASSERT_EQUAL(r[0].v.i, 1);
    CU_ASSERT_TRUE(str_is(&r[1], "Ada Lovelace"));
    CU_ASSERT_EQUAL(r[2].v.d, 12.5);
    CU_ASSERT_EQUAL(r[3].v.ts, PLACED_1);
    CU_ASSERT_EQUAL_FATAL(r[4].v.c->n, 2);
    CU_ASSERT_TRUE(str_is(&r[4].v.c->items[1], "eu"));

    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_create.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_INSERT);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 2);
    CU_ASSERT_EQUAL(f.ch.rows[0][4].v.c->n, 0);

    /* REPLICA IDENTITY FULL: the old row, then the new */
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_full.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_UPDATE_BEFORE);
    CU_ASSERT_EQUAL(f.ch.kinds[1], RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_EQUAL(f.ch.rows[0][2].v.d, 99.99);
    CU_ASSERT_EQUAL(f.ch.rows[1][2].v.d, 89.99);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 2);
    CU_ASSERT_EQUAL(f.ch.rows[1][0].v.i, 2);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[1][4].v.c->items[0], "sale"));

    /* the default replica identity: before is null, only the new row (+U) */
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_default.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[0][1], "Ada King"));

    /* a delete: the before image (the key only, the rest null) */
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_delete.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_DELETE);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 2);
    CU_ASSERT_TRUE(f.ch.rows[0][1].is_null);
    CU_ASSERT_TRUE(f.ch.rows[0][4].is_null);

    /* keys in another order than Debezium's (op first) read the same */
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, "{\"op\":\"u\",\"after\":{\"id\":5},"
                                          "\"before\":{\"id\":4}}"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 4);
    CU_ASSERT_EQUAL(f.ch.rows[1][0].v.i, 5);
    CU_ASSERT_EQUAL(skipped_total(f.dec), 0);
    fx_deinit(&f);
}

/* debezium-json.schema-include: the envelope read; a mismatch either way says what to set */
static void test_dbz_schema_envelope(void)
{
    static const char *const on[] = {"debezium-json.schema-include", "true", NULL};
    fx_t f;
    fx_init(&f, on);
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_create_schema.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_INSERT);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 3);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[0][1], "Edsger \"EWD\" Dijkstra"));
    CU_ASSERT_EQUAL(f.ch.rows[0][3].v.ts, INT64_C(1772440200500));
    /* an event without the envelope */
    CU_ASSERT_EQUAL(decode_fixture(&f, "pg_create.json"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "debezium-json: missing 'payload': the body is an event "
                                      "without the schema envelope; set "
                                      "'debezium-json.schema-include' = 'false'");
    CU_ASSERT_EQUAL(decode_text(&f, "{\"schema\":{}}"), RSQL_ERR_DECODE);
    CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, "missing 'payload' (with"));
    /* a null payload (the converter's tombstone) has no rows */
    CU_ASSERT_EQUAL(decode_text(&f, "{\"schema\":null,\"payload\":null}"), RSQL_OK);
    CU_ASSERT_EQUAL(f.ch.n, 0);
    CU_ASSERT_EQUAL(decode_text(&f, "{\"schema\":null,\"payload\":[1]}"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "debezium-json: 'payload' must be a JSON object or null, "
                                      "got an array");
    fx_deinit(&f);

    fx_init(&f, NULL); /* off: the envelope is refused, naming the option */
    CU_ASSERT_EQUAL(decode_fixture(&f, "pg_create_schema.json"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "debezium-json: missing 'op': the body has the schema "
                                      "envelope ('schema' and 'payload'); set "
                                      "'debezium-json.schema-include' = 'true'");
    fx_deinit(&f);
}

/* With the envelope, the schema says a timestamp counts microseconds: read as milliseconds */
static void test_dbz_schema_units(void)
{
    static const char *const on[] = {"debezium-json.schema-include", "true", NULL};
    fx_t f;
    fx_init(&f, on);
    for (int round = 0; round < 2; round++) { /* the second reuses the parsed schema */
        CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_schema_micro.json"), RSQL_OK);
        CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
        CU_ASSERT_EQUAL(f.ch.rows[0][3].v.ts, -1); /* -1 us is 1 ms before 1970 (floor) */
        CU_ASSERT_EQUAL(f.ch.rows[1][3].v.ts, PLACED_1);
        CU_ASSERT_TRUE(str_is(&f.ch.rows[1][1], "Edsger W. Dijkstra"));
    }
    /* a ZonedTimestamp schema (a string) in between and after changes the unit back */
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_create_schema.json"), RSQL_OK);
    CU_ASSERT_EQUAL(f.ch.rows[0][3].v.ts, INT64_C(1772440200500));
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, "{\"schema\":{\"type\":\"struct\"},\"payload\":"
                                          "{\"after\":{\"placed\":1772360130250},\"op\":\"c\"}}"),
                          RSQL_OK);
    CU_ASSERT_EQUAL(f.ch.rows[0][3].v.ts, PLACED_1);
    fx_deinit(&f);
    /* without the envelope nothing says so: microseconds are refused, not misread */
    fx_init(&f, NULL);
    CU_ASSERT_EQUAL(decode_text(&f, "{\"after\":{\"placed\":1772360130250999},\"op\":\"c\"}"),
                    RSQL_ERR_DECODE);
    CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, "field 'after.placed': 1772360130250999 is past"));
    fx_deinit(&f);
}

/* With the envelope, a Kafka Connect Decimal (base64 bytes, scale in the schema) into DECIMAL */
static void test_dbz_schema_decimal(void)
{
    static const char *const on[] = {"debezium-json.schema-include", "true", NULL};
    static const char *const dcols[] = {"id", "customer", "amount", "placed", "tags"};
    const rsql_type_t dt[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_DECIMAL,
                              RSQL_TYPE_TIMESTAMP, RSQL_TYPE_ARRAY};
    fx_t f;
    fx_init(&f, on);
    rsql_decoder_t *dec = rsql_decoder_new("debezium-json",
                                           rsql_optset_conf(f.opts, RSQL_CONF_FORMAT), 5, dcols,
                                           dt, &f.err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    rsql_decoder_set_desc(dec, 2, rsql_tdesc_decimal(10, 3));
    rsql_decoder_set_desc(dec, 4, rsql_tdesc_array(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR)));
    size_t len;
    char *body = fixture("pg_update_schema_decimal.json", &len);
    rsql_changes_t ch;
    for (int round = 0; round < 2; round++) {
        rsql_error_clear(&f.err);
        CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(dec, (const uint8_t *)body, len, f.arena, &ch,
                                                  &f.err), RSQL_OK);
        CU_ASSERT_EQUAL_FATAL(ch.n, 2);
        const rsql_value_t *b = &ch.rows[0][2], *a = &ch.rows[1][2];
        CU_ASSERT_EQUAL(a->type, RSQL_TYPE_DECIMAL);
        CU_ASSERT_EQUAL(a->scale, 3); /* 89.99 at the column's scale: 89990 */
        CU_ASSERT_EQUAL(a->v.dec.lo, 89990u);
        CU_ASSERT_EQUAL(a->v.dec.hi, 0);
        CU_ASSERT_EQUAL((int64_t)b->v.dec.lo, -12500); /* -12.50 */
        CU_ASSERT_EQUAL(b->v.dec.hi, -1);
        CU_ASSERT_EQUAL(ch.rows[1][3].v.ts, PLACED_1); /* and the microseconds as before */
    }
    /* the columns' types are the table's again after each event */
    const char *plain =
        "{\"schema\":{},\"payload\":{\"after\":{\"amount\":\"1.5\"},\"op\":\"c\"}}";
    rsql_error_clear(&f.err);
    CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(dec, (const uint8_t *)plain, strlen(plain), f.arena,
                                              &ch, &f.err), RSQL_OK);
    CU_ASSERT_EQUAL(ch.rows[0][2].v.dec.lo, 1500u);
    /* other values in the after image: 0x7fffff, one that does not fit, one not base64 */
    static const struct {
        const char *b64, *msg;
        uint64_t lo;
    } vals[] = {
        {"f///", NULL, 83886070u}, /* 83886.07 */
        {"f////w==", "field 'after.amount': ", 0}, /* 21474836.47: 8 integer digits */
        {"!!!!", "field 'after.amount': expected BYTES", 0},
    };
    char *at = strstr(body, "Iyc=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char alt[1 << 16];
        snprintf(alt, sizeof alt, "%.*s%s%s", (int)(at - body), body, vals[i].b64, at + 4);
        rsql_error_clear(&f.err);
        rsql_err_t rc = rsql_decode_changes(dec, (const uint8_t *)alt, strlen(alt), f.arena, &ch,
                                            &f.err);
        if (!vals[i].msg) {
            CU_ASSERT_EQUAL(rc, RSQL_OK);
            CU_ASSERT_EQUAL(ch.rows[1][2].v.dec.lo, vals[i].lo);
        } else {
            CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
            CU_ASSERT_PTR_NOT_NULL(strstr(f.err.msg, vals[i].msg));
        }
    }
    free(body);
    rsql_decoder_destroy(dec);
    fx_deinit(&f);
}

/* A null or empty body (the tombstone after a delete) has no rows; NULL raw too. */
static void test_dbz_tombstone(void)
{
    fx_t f;
    fx_init(&f, NULL);
    const char *bodies[] = {"", "null", " null\n", "\r\n"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        f.ch.n = 7;
        CU_ASSERT_EQUAL(decode_text(&f, bodies[i]), RSQL_OK);
        CU_ASSERT_EQUAL(f.ch.n, 0);
    }
    CU_ASSERT_EQUAL(rsql_decode_changes(f.dec, NULL, 0, f.arena, &f.ch, &f.err), RSQL_OK);
    CU_ASSERT_EQUAL(f.ch.n, 0);
    CU_ASSERT_EQUAL(skipped_total(f.dec), 0); /* a tombstone is not a skipped body */
    CU_ASSERT_EQUAL(decode_text(&f, "nul"), RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(decode_text(&f, "null x"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "invalid JSON at byte 5: unexpected data after the value");
    CU_ASSERT_EQUAL(decode_text(&f, "[]"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "debezium-json: expected a JSON object, got an array");
    fx_deinit(&f);
}

/* op t: an error naming the option, or skipped and counted with it */
static void test_dbz_truncate(void)
{
    static const char *const skip[] = {"debezium-json.ignore-truncate", "true", NULL};
    fx_t f;
    fx_init(&f, NULL);
    CU_ASSERT_EQUAL(decode_fixture(&f, "pg_truncate.json"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "debezium-json: op 't' (a truncate of the table) has no "
                                      "rows to apply; set 'debezium-json.ignore-truncate' = "
                                      "'true' to skip it");
    fx_deinit(&f);
    fx_init(&f, skip);
    CU_ASSERT_EQUAL(decode_fixture(&f, "pg_truncate.json"), RSQL_OK);
    CU_ASSERT_EQUAL(f.ch.n, 0);
    CU_ASSERT_EQUAL(skipped_total(f.dec), 1);
    CU_ASSERT_EQUAL(decode_fixture(&f, "pg_create.json"), RSQL_OK); /* the rest as before */
    CU_ASSERT_EQUAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(skipped_total(f.dec), 1);
    fx_deinit(&f);
}

/* Bad bodies: exact errors naming the byte or the field; skipped with ignore-parse-errors */
static void test_dbz_parse_errors(void)
{
    static const struct {
        const char *body, *msg;
    } cases[] = {
        {"{\"before\":null,\"after\":{\"id\":1,\"amount\":\"abc\"},\"op\":\"c\"}",
         "field 'after.amount': expected DOUBLE, got string \"abc\""},
        {"{\"before\":{\"id\":\"x\"},\"after\":null,\"op\":\"d\"}",
         "field 'before.id': expected INT, got string \"x\""},
        {"{\"after\":{\"id\":1}}", "debezium-json: missing 'op'"},
        {"{\"after\":{\"id\":1},\"op\":null}", "debezium-json: missing 'op'"},
        {"{\"after\":{\"id\":1},\"op\":\"x\"}",
         "debezium-json: unknown op 'x' (expected c, r, u, d or t)"},
        {"{\"after\":{\"id\":1},\"op\":\"create-it\"}",
         "debezium-json: unknown op 'create-...' (expected c, r, u, d or t)"},
        {"{\"after\":{\"id\":1},\"op\":\"\"}",
         "debezium-json: unknown op '' (expected c, r, u, d or t)"},
        {"{\"after\":{\"id\":1},\"op\":\"\\u0063\"}", NULL}, /* an escaped "c" */
        {"{\"after\":{\"id\":1},\"op\":1}", "debezium-json: 'op' must be a string, got a number"},
        {"{\"after\":null,\"op\":\"c\"}", "debezium-json: op 'c' without 'after'"},
        {"{\"before\":null,\"op\":\"u\"}", "debezium-json: op 'u' without 'after'"},
        {"{\"after\":{\"id\":1},\"op\":\"d\"}", "debezium-json: op 'd' without 'before'"},
        {"{\"after\":[1],\"op\":\"c\"}",
         "debezium-json: 'after' must be a JSON object or null, got an array"},
        {"{\"after\":{\"id\":1},\"op\":\"c\"", "invalid JSON at byte 26: unexpected end of input"},
        {"{\"after\":{\"id\":1,},\"op\":\"c\"}", "invalid JSON at byte 17: expected a string key"},
        {"{\"after\":{\"id\":1},\"op\":\"c\"} {}",
         "invalid JSON at byte 28: unexpected data after the object"},
        {"{\"after\":{\"id\":1},\"op\":\"c\",\"source\":{\"db\":tru}}",
         "invalid JSON at byte 42: unexpected character 't'"},
        {"{\"after\":{\"id\":1},\"op\":\"c\",\"ts_ms\":\"soon\"}", NULL}, /* not read: no error */
        /* a PostgreSQL timestamp in Debezium's default microseconds */
        {"{\"after\":{\"id\":1,\"placed\":1772360130250000},\"op\":\"c\"}",
         "field 'after.placed': 1772360130250000 is past the year 9999 as epoch milliseconds "
         "(microseconds? declare the column BIGINT, or set Debezium's time.precision.mode to "
         "connect)"},
        {"{\"before\":{\"placed\":-1772360130250000},\"op\":\"d\"}",
         "field 'before.placed': -1772360130250000 is past the year 9999 as epoch milliseconds "
         "(microseconds? declare the column BIGINT, or set Debezium's time.precision.mode to "
         "connect)"},
    };
    static const char *const lenient[] = {"debezium-json.ignore-parse-errors", "true", NULL};
    fx_t f, g;
    fx_init(&f, NULL);
    fx_init(&g, lenient);
    uint64_t skipped = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rsql_err_t rc = decode_text(&f, cases[i].body);
        if (!cases[i].msg) {
            CU_ASSERT_EQUAL(rc, RSQL_OK);
            continue;
        }
        CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
        if (strcmp(f.err.msg, cases[i].msg) != 0) {
            fprintf(stderr, "case %zu: got '%s'\n", i, f.err.msg);
        }
        CU_ASSERT_STRING_EQUAL(f.err.msg, cases[i].msg);
        /* lenient: no error, no rows, counted */
        rsql_error_clear(&g.err);
        g.ch.n = 7;
        CU_ASSERT_EQUAL(rsql_decode_changes(g.dec, (const uint8_t *)cases[i].body,
                                            strlen(cases[i].body), g.arena, &g.ch, &g.err),
                        RSQL_OK);
        CU_ASSERT_EQUAL(g.ch.n, 0);
        CU_ASSERT_EQUAL(g.err.code, RSQL_OK);
        CU_ASSERT_EQUAL(skipped_total(g.dec), ++skipped);
    }
    /* a good body after the bad ones reads as ever */
    CU_ASSERT_EQUAL(decode_fixture(&g, "pg_update_full.json"), RSQL_OK);
    CU_ASSERT_EQUAL(g.ch.n, 2);
    CU_ASSERT_EQUAL(skipped_total(g.dec), skipped);
    /* every byte string is bounded: each prefix of a real event is an error or no rows */
    size_t len;
    char *body = fixture("pg_update_full.json", &len);
    while (len && (body[len - 1] == '\n' || body[len - 1] == '\r')) {
        len--;
    }
    for (size_t n = 0; n < len; n++) {
        char *cut = malloc(n ? n : 1);
        memcpy(cut, body, n);
        rsql_error_clear(&f.err);
        rsql_err_t rc = rsql_decode_changes(f.dec, (const uint8_t *)cut, n, f.arena, &f.ch,
                                            &f.err);
        CU_ASSERT_TRUE(rc == RSQL_ERR_DECODE || (rc == RSQL_OK && f.ch.n == 0));
        free(cut);
    }
    free(body);
    fx_deinit(&f);
    fx_deinit(&g);
}

/* The metadata keys, filled after the columns of every row */
static void test_dbz_metadata(void)
{
    static const char *const on[] = {"debezium-json.schema-include", "true", NULL};
    const rsql_format_meta_t *m = rsql_format_metadata("debezium-json");
    const char *keys[] = {"schema",        "ingestion-timestamp", "source.timestamp",
                          "source.database", "source.schema",     "source.table",
                          "source.properties"};
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    for (int i = 0; i < 7; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(m[i].key);
        CU_ASSERT_STRING_EQUAL(m[i].key, keys[i]);
    }
    CU_ASSERT_PTR_NULL(m[7].key);
    CU_ASSERT_EQUAL(m[6].type, RSQL_TYPE_MAP);

    fx_t f;
    fx_init(&f, NULL);
    /* asked in another order than the table's: value n_columns + k is the k-th asked */
    const int order[] = {5, 1, 2, 3, 4, 6, 0};
    for (int k = 0; k < 7; k++) {
        CU_ASSERT_EQUAL(rsql_decoder_want_meta(f.dec, keys[order[k]], &f.err), RSQL_OK);
    }
    CU_ASSERT_EQUAL(rsql_decoder_want_meta(f.dec, "source.lsn", &f.err), RSQL_ERR_SEMANTIC);
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_full.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
    for (int i = 0; i < 2; i++) {
        rsql_value_t *v = f.ch.rows[i] + NCOLS;
        CU_ASSERT_TRUE(str_is(&v[0], "orders"));
        CU_ASSERT_EQUAL(v[1].type, RSQL_TYPE_TIMESTAMP);
        CU_ASSERT_EQUAL(v[1].v.ts, INT64_C(1772362900210));
        CU_ASSERT_EQUAL(v[2].v.ts, INT64_C(1772362900000));
        CU_ASSERT_TRUE(str_is(&v[3], "shopdb"));
        CU_ASSERT_TRUE(str_is(&v[4], "public"));
        CU_ASSERT_EQUAL_FATAL(v[5].type, RSQL_TYPE_MAP);
        CU_ASSERT_FALSE_FATAL(v[5].is_null);
        const rsql_composite_t *p = v[5].v.c;
        CU_ASSERT_EQUAL(p->n, 14);
        bool saw_lsn = false, saw_xmin = false;
        for (uint32_t e = 0; e < p->n; e++) {
            if (str_is(&p->items[2 * e], "lsn")) {
                saw_lsn = str_is(&p->items[2 * e + 1], "23884904");
            }
            if (str_is(&p->items[2 * e], "xmin")) {
                saw_xmin = p->items[2 * e + 1].is_null;
            }
        }
        CU_ASSERT_TRUE(saw_lsn);
        CU_ASSERT_TRUE(saw_xmin);
        CU_ASSERT_TRUE(v[6].is_null); /* schema: none without the envelope */
        CU_ASSERT_EQUAL(v[6].type, RSQL_TYPE_VARCHAR);
    }
    /* a body without source and ts_ms: NULLs of the keys' types */
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, "{\"after\":{\"id\":1},\"op\":\"c\"}"), RSQL_OK);
    for (int k = 0; k < 7; k++) {
        CU_ASSERT_TRUE(f.ch.rows[0][NCOLS + k].is_null);
        CU_ASSERT_EQUAL(f.ch.rows[0][NCOLS + k].type, m[order[k]].type);
    }
    /* a metadata field of the wrong type is an error naming it */
    CU_ASSERT_EQUAL(decode_text(&f, "{\"after\":{\"id\":1},\"op\":\"c\",\"ts_ms\":true}"),
                    RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "field 'ts_ms': expected TIMESTAMP(3), got boolean true");
    CU_ASSERT_EQUAL(decode_text(&f, "{\"after\":{\"id\":1},\"op\":\"c\","
                                    "\"source\":{\"ts_ms\":\"x\"}}"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg,
                           "field 'source.ts_ms': expected TIMESTAMP(3), got string \"x\"");
    fx_deinit(&f);

    /* schema: the envelope's schema as its JSON text */
    fx_init(&f, on);
    CU_ASSERT_EQUAL(rsql_decoder_want_meta(f.dec, "SCHEMA", &f.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_create_schema.json"), RSQL_OK);
    const rsql_value_t *s = &f.ch.rows[0][NCOLS];
    CU_ASSERT_FALSE_FATAL(s->is_null);
    CU_ASSERT_TRUE(s->v.s.len > 100 && memcmp(s->v.s.p, "{\"type\":\"struct\"", 16) == 0);
    const char *tail = "\"name\":\"shop.public.orders.Envelope\",\"version\":2}";
    CU_ASSERT_TRUE(s->v.s.len > strlen(tail) &&
                   memcmp(s->v.s.p + s->v.s.len - strlen(tail), tail, strlen(tail)) == 0);
    fx_deinit(&f);
}

/* Projection pushdown: only the columns the statement reads are built */
static void test_dbz_projection(void)
{
    fx_t f;
    fx_init(&f, NULL);
    CU_ASSERT_EQUAL(rsql_decoder_prune(f.dec, &f.err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_decoder_use(f.dec, 0, NULL, 0, &f.err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_decoder_use(f.dec, 2, NULL, 0, &f.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_full.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(f.ch.rows[i][0].v.i, 2);
        CU_ASSERT_FALSE(f.ch.rows[i][2].is_null);
        CU_ASSERT_TRUE(f.ch.rows[i][1].is_null);
        CU_ASSERT_TRUE(f.ch.rows[i][3].is_null);
        CU_ASSERT_TRUE(f.ch.rows[i][4].is_null);
    }
    /* an unread column of the wrong type is skipped (still valid JSON), a read one is not */
    CU_ASSERT_EQUAL(decode_text(&f, "{\"after\":{\"id\":1,\"customer\":[1,2],\"tags\":7},"
                                    "\"op\":\"c\"}"), RSQL_OK);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 1);
    CU_ASSERT_EQUAL(decode_text(&f, "{\"after\":{\"id\":1,\"customer\":[1,},\"op\":\"c\"}"),
                    RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL(decode_text(&f, "{\"after\":{\"amount\":true},\"op\":\"c\"}"),
                    RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "field 'after.amount': expected DOUBLE, got boolean true");
    fx_deinit(&f);
}

/* DATE: Debezium's (and Kafka Connect's) day count since 1970-01-01, or a date text */
static void test_dbz_date(void)
{
    static const char *const dcols[] = {"id", "d"};
    const rsql_type_t dt[] = {RSQL_TYPE_INT, RSQL_TYPE_DATE};
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = rsql_decoder_new("debezium-json", NULL, 2, dcols, dt, &err);
    rsql_encoder_t *enc = rsql_encoder_new("debezium-json", NULL, 2, dcols, dt, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
    rsql_decoder_set_desc(dec, 1, rsql_tdesc_scalar(RSQL_TYPE_DATE));
    rsql_arena_t *a = rsql_arena_new();
    rsql_changes_t ch;
    const char *body = "{\"before\":{\"id\":1,\"d\":-1},\"after\":{\"id\":1,\"d\":20513},"
                       "\"op\":\"u\"}";
    CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(dec, (const uint8_t *)body, strlen(body), a, &ch,
                                              &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(ch.n, 2);
    CU_ASSERT_EQUAL(ch.rows[0][1].v.i, -1);
    CU_ASSERT_EQUAL(ch.rows[1][1].v.i, 20513); /* 2026-03-01 */
    rsql_buf_t out;
    rsql_buf_init(&out);
    CU_ASSERT_EQUAL(rsql_encode_change(enc, ch.rows[1], RSQL_ROW_INSERT, &out, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(rsql_buf_str(&out), "\"d\":\"2026-03-01\""));
    CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(dec, (const uint8_t *)out.data, out.len, a, &ch,
                                              &err), RSQL_OK);
    CU_ASSERT_EQUAL(ch.rows[0][1].v.i, 20513);
    rsql_buf_deinit(&out);
    const struct {
        const char *body, *msg;
    } bad[] = {
        {"{\"after\":{\"d\":1.5},\"op\":\"c\"}",
         "field 'after.d': number 1.5 is not a count of days since 1970-01-01 (up to the year "
         "9999)"},
        {"{\"after\":{\"d\":2932897},\"op\":\"c\"}",
         "field 'after.d': number 2932897 is not a count of days since 1970-01-01 (up to the "
         "year 9999)"},
        {"{\"after\":{\"d\":true},\"op\":\"c\"}", "field 'after.d': expected DATE, got boolean"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_decode_changes(dec, (const uint8_t *)bad[i].body,
                                            strlen(bad[i].body), a, &ch, &err), RSQL_ERR_DECODE);
        if (strcmp(err.msg, bad[i].msg) != 0) {
            fprintf(stderr, "date case %zu: got '%s'\n", i, err.msg);
        }
        CU_ASSERT_STRING_EQUAL(err.msg, bad[i].msg);
    }
    /* the json format keeps its rule: a number is no DATE */
    rsql_decoder_t *js = rsql_decoder_new("json", NULL, 2, dcols, dt, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(js);
    rsql_decoder_set_desc(js, 1, rsql_tdesc_scalar(RSQL_TYPE_DATE));
    rsql_value_t row[2];
    CU_ASSERT_EQUAL(rsql_decode(js, (const uint8_t *)"{\"d\":20513}", 11, a, row, &err),
                    RSQL_ERR_DECODE);
    rsql_decoder_destroy(js);
    rsql_arena_destroy(a);
    rsql_decoder_destroy(dec);
    rsql_encoder_destroy(enc);
}

/* ROW, ARRAY, MAP and DECIMAL columns in before and after, with paths in errors */
static void test_dbz_nested(void)
{
    static const char *const ncols[] = {"k", "o", "m", "price"};
    const char *ot = "ROW<a INT, tags ARRAY<VARCHAR>>";
    const rsql_tdesc_t *od = NULL, *md = NULL, *pd = rsql_tdesc_decimal(8, 2);
    CU_ASSERT_EQUAL_FATAL(rsql_tdesc_parse(ot, strlen(ot), &od, NULL, NULL), RSQL_OK);
    const char *mt = "MAP<STRING, BIGINT>";
    CU_ASSERT_EQUAL_FATAL(rsql_tdesc_parse(mt, strlen(mt), &md, NULL, NULL), RSQL_OK);
    const rsql_type_t nt[] = {RSQL_TYPE_INT, RSQL_TYPE_ROW, RSQL_TYPE_MAP, RSQL_TYPE_DECIMAL};
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = rsql_decoder_new("debezium-json", NULL, 4, ncols, nt, &err);
    rsql_encoder_t *enc = rsql_encoder_new("debezium-json", NULL, 4, ncols, nt, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
    rsql_decoder_set_desc(dec, 1, od);
    rsql_decoder_set_desc(dec, 2, md);
    rsql_decoder_set_desc(dec, 3, pd);
    rsql_arena_t *a = rsql_arena_new();
    rsql_changes_t ch;
    const char *body = "{\"before\":{\"k\":1,\"o\":{\"a\":2,\"tags\":[\"x\"]},\"m\":{\"p\":3},"
                       "\"price\":\"10.50\"},\"after\":{\"k\":1,\"o\":{\"a\":3,\"tags\":[]},"
                       "\"m\":{\"p\":4,\"q\":5},\"price\":11.25},\"op\":\"u\"}";
    CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(dec, (const uint8_t *)body, strlen(body), a, &ch,
                                              &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(ch.n, 2);
    CU_ASSERT_EQUAL(ch.rows[0][1].v.c->items[0].v.i, 2);
    CU_ASSERT_EQUAL(ch.rows[1][1].v.c->items[0].v.i, 3);
    CU_ASSERT_EQUAL(ch.rows[0][2].v.c->n, 1);
    CU_ASSERT_EQUAL(ch.rows[1][2].v.c->n, 2);
    CU_ASSERT_EQUAL(ch.rows[1][2].v.c->items[3].v.i, 5);
    CU_ASSERT_EQUAL(ch.rows[0][3].v.dec.lo, 1050u);
    CU_ASSERT_EQUAL(ch.rows[1][3].v.dec.lo, 1125u);

    /* round trip of the nested row */
    rsql_buf_t out;
    rsql_buf_init(&out);
    CU_ASSERT_EQUAL(rsql_encode_change(enc, ch.rows[1], RSQL_ROW_UPDATE_AFTER, &out, &err),
                    RSQL_OK);
    rsql_changes_t back;
    CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(dec, (const uint8_t *)out.data, out.len, a, &back,
                                              &err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(back.n, 1);
    CU_ASSERT_EQUAL(back.kinds[0], RSQL_ROW_INSERT);
    CU_ASSERT_EQUAL(back.rows[0][1].v.c->items[0].v.i, 3);
    CU_ASSERT_EQUAL(back.rows[0][2].v.c->items[3].v.i, 5);
    CU_ASSERT_EQUAL(back.rows[0][3].v.dec.lo, 1125u);
    rsql_buf_deinit(&out);

    const struct {
        const char *body, *msg;
    } bad[] = {
        {"{\"after\":{\"o\":{\"a\":\"x\"}},\"op\":\"c\"}",
         "field 'after.o.a': expected INT, got string \"x\""},
        {"{\"after\":{\"o\":{\"a\":[1]}},\"op\":\"c\"}",
         "field 'after.o.a': expected INT, got array"},
        {"{\"before\":{\"m\":{\"z\":1.5}},\"op\":\"d\"}",
         "field 'before.m['z']': expected BIGINT, got number 1.5"},
        {"{\"after\":{\"price\":\"1234567.5\"},\"op\":\"r\"}", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rsql_error_clear(&err);
        CU_ASSERT_EQUAL(rsql_decode_changes(dec, (const uint8_t *)bad[i].body,
                                            strlen(bad[i].body), a, &ch, &err), RSQL_ERR_DECODE);
        if (bad[i].msg) {
            if (strcmp(err.msg, bad[i].msg) != 0) {
                fprintf(stderr, "nested case %zu: got '%s'\n", i, err.msg);
            }
            CU_ASSERT_STRING_EQUAL(err.msg, bad[i].msg);
        } else {
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "field 'after.price'"));
        }
    }
    rsql_arena_destroy(a);
    rsql_decoder_destroy(dec);
    rsql_encoder_destroy(enc);
}

/* Each kind encoded as Flink does, and decoded back to the same change */
static void round_trip(const char *const *kv, bool iso)
{
    fx_t f;
    fx_init(&f, kv);
    rsql_value_t row[NCOLS];
    memset(row, 0, sizeof row);
    row[0] = (rsql_value_t){.type = RSQL_TYPE_INT, .v.i = -7};
    row[1] = (rsql_value_t){.type = RSQL_TYPE_VARCHAR, .v.s = {"q\"u\\o\nte", 9}};
    row[2] = (rsql_value_t){.type = RSQL_TYPE_DOUBLE, .v.d = 0.1};
    row[3] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = PLACED_1};
    row[4] = (rsql_value_t){.type = RSQL_TYPE_ARRAY, .is_null = true};
    static const char *const ops[] = {"\"op\":\"c\"", "\"op\":\"d\"", "\"op\":\"c\"",
                                      "\"op\":\"d\""};
    static const uint8_t back_kind[] = {RSQL_ROW_INSERT, RSQL_ROW_DELETE, RSQL_ROW_INSERT,
                                        RSQL_ROW_DELETE};
    rsql_buf_t out;
    rsql_buf_init(&out);
    for (int kind = RSQL_ROW_INSERT; kind <= RSQL_ROW_DELETE; kind++) {
        rsql_buf_reset(&out);
        CU_ASSERT_EQUAL_FATAL(rsql_encode_change(f.enc, row, kind, &out, &f.err), RSQL_OK);
        const char *text = rsql_buf_str(&out);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, ops[kind]));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, iso ? "\"2026-03-01T10:15:30.250Z\""
                                                : "\"2026-03-01 10:15:30.250\""));
        bool removes = kind == RSQL_ROW_UPDATE_BEFORE || kind == RSQL_ROW_DELETE;
        CU_ASSERT_PTR_NOT_NULL(strstr(text, removes ? "\"after\":null" : "\"before\":null"));
        rsql_error_clear(&f.err);
        CU_ASSERT_EQUAL_FATAL(rsql_decode_changes(f.dec, (const uint8_t *)out.data, out.len,
                                                  f.arena, &f.ch, &f.err), RSQL_OK);
        CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
        CU_ASSERT_EQUAL(f.ch.kinds[0], back_kind[kind]);
        const rsql_value_t *r = f.ch.rows[0];
        CU_ASSERT_EQUAL(r[0].v.i, -7);
        CU_ASSERT_TRUE(r[1].v.s.len == 9 && memcmp(r[1].v.s.p, "q\"u\\o\nte", 9) == 0);
        CU_ASSERT_EQUAL(r[2].v.d, 0.1);
        CU_ASSERT_EQUAL(r[3].v.ts, PLACED_1);
        CU_ASSERT_TRUE(r[4].is_null);
    }
    /* rsql_encode (no kind) writes an insert */
    rsql_buf_reset(&out);
    CU_ASSERT_EQUAL(rsql_encode(f.enc, row, &out, &f.err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(rsql_buf_str(&out), "\"op\":\"c\""));
    /* a changelog body is not one row: rsql_decode refuses it */
    rsql_value_t one[NCOLS];
    rsql_error_clear(&f.err);
    CU_ASSERT_EQUAL(rsql_decode(f.dec, (const uint8_t *)out.data, out.len, f.arena, one, &f.err),
                    RSQL_ERR_UNSUPPORTED);
    rsql_buf_deinit(&out);
    fx_deinit(&f);
}

static void test_dbz_round_trip(void)
{
    static const char *const iso[] = {"debezium-json.timestamp-format.standard", "ISO-8601",
                                      NULL};
    static const char *const env[] = {"debezium-json.schema-include", "true", NULL};
    round_trip(NULL, false);
    round_trip(iso, true);
    round_trip(env, false);
    /* the envelope's schema names each column with its Connect type */
    fx_t f;
    fx_init(&f, env);
    rsql_value_t row[NCOLS];
    for (int i = 0; i < NCOLS; i++) {
        row[i] = (rsql_value_t){.type = types[i], .is_null = true};
    }
    rsql_buf_t out;
    rsql_buf_init(&out);
    CU_ASSERT_EQUAL(rsql_encode_change(f.enc, row, RSQL_ROW_INSERT, &out, &f.err), RSQL_OK);
    const char *text = rsql_buf_str(&out);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"schema\":{\"type\":\"struct\",\"fields\":["));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"type\":\"int32\",\"optional\":true,\"field\":\"id\"}"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(text, "\"type\":\"double\",\"optional\":true,\"field\":\"amount\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"field\":\"after\"}"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(text, "},\"payload\":{\"before\":null,\"after\":{\"id\":null,"));
    rsql_buf_deinit(&out);
    fx_deinit(&f);
}

/* The options: validated by the engine, Flink's names and values */
static void test_dbz_options(void)
{
    const rsql_format_def_t *fd = rsql_format_find("debezium-json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fd);
    CU_ASSERT_PTR_NOT_NULL(rsql_opt_find(fd->opts, "debezium-json.schema-include"));
    CU_ASSERT_PTR_NOT_NULL(rsql_opt_find(fd->opts, "debezium-json.ignore-parse-errors"));
    CU_ASSERT_PTR_NOT_NULL(rsql_opt_find(fd->opts, "debezium-json.ignore-truncate"));
    CU_ASSERT_PTR_NOT_NULL(rsql_opt_find(fd->opts, "debezium-json.timestamp-format.standard"));
    rsql_opt_kv_t kvs[] = {
        {"connector", "filesystem", RSQL_NOPOS, RSQL_NOPOS},
        {"path", "/nonexistent", RSQL_NOPOS, RSQL_NOPOS},
        {"format", "debezium-json", RSQL_NOPOS, RSQL_NOPOS},
        {"debezium-json.timestamp-format.standard", "epoch", RSQL_NOPOS, RSQL_NOPOS},
    };
    const rsql_connector_def_t *conn = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_connector_validate(kvs, 4, cols, NCOLS, RSQL_NOPOS, &conn, &err));
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_OPTION);
    /* a debezium-json option with another format */
    kvs[2].value = "json";
    kvs[3] = (rsql_opt_kv_t){"debezium-json.schema-include", "true", RSQL_NOPOS, RSQL_NOPOS};
    rsql_error_clear(&err);
    CU_ASSERT_PTR_NULL(rsql_connector_validate(kvs, 4, cols, NCOLS, RSQL_NOPOS, &conn, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "requires 'format' = 'debezium-json'"));
}

/* rsql_decoder_skip_before: an update that keeps the key is its +U alone, its before image
   not built (a bad value there is not read); a changed key, a NULL key and a delete as before */
static void test_dbz_skip_before(void)
{
    static const int key[] = {0};
    fx_t f;
    fx_init(&f, NULL);
    CU_ASSERT_EQUAL(rsql_decoder_skip_before(f.dec, key, 0, &f.err), RSQL_ERR_INTERNAL);
    static const int bad[] = {NCOLS};
    CU_ASSERT_EQUAL(rsql_decoder_skip_before(f.dec, bad, 1, &f.err), RSQL_ERR_INTERNAL);
    /* without it a bad value in before is an error */
    static const char bad_before[] = "{\"before\":{\"id\":4,\"amount\":\"abc\"},"
                                     "\"after\":{\"id\":4,\"amount\":2},\"op\":\"u\"}";
    CU_ASSERT_EQUAL(decode_text(&f, bad_before), RSQL_ERR_DECODE);
    CU_ASSERT_EQUAL_FATAL(rsql_decoder_skip_before(f.dec, key, 1, &f.err), RSQL_OK);

    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_full.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 2);
    CU_ASSERT_EQUAL(f.ch.rows[0][2].v.d, 89.99);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[0][4].v.c->items[0], "sale"));
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_default.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, bad_before), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.rows[0][2].v.d, 2);
    /* op first: the same */
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, "{\"op\":\"u\",\"before\":{\"id\":4,"
                                          "\"customer\":\"a\"},\"after\":{\"id\":4,"
                                          "\"customer\":\"b\"}}"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[0][1], "b"));
    /* the key changed: -U of the whole old row (it deletes the old key), then +U */
    static const char *const moved[] = {
        "{\"before\":{\"id\":4,\"customer\":\"a\",\"amount\":1.5},\"after\":{\"id\":5,"
        "\"customer\":\"b\",\"amount\":2.5},\"op\":\"u\"}",
        "{\"op\":\"u\",\"before\":{\"id\":4,\"customer\":\"a\",\"amount\":1.5},"
        "\"after\":{\"id\":5,\"customer\":\"b\",\"amount\":2.5}}",
        "{\"after\":{\"id\":5,\"customer\":\"b\",\"amount\":2.5},\"before\":{\"id\":4,"
        "\"customer\":\"a\",\"amount\":1.5},\"op\":\"u\"}",
    };
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(decode_text(&f, moved[i]), RSQL_OK);
        CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
        CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_UPDATE_BEFORE);
        CU_ASSERT_EQUAL(f.ch.rows[0][0].v.i, 4);
        CU_ASSERT_TRUE(str_is(&f.ch.rows[0][1], "a"));
        CU_ASSERT_EQUAL(f.ch.rows[0][2].v.d, 1.5);
        CU_ASSERT_EQUAL(f.ch.kinds[1], RSQL_ROW_UPDATE_AFTER);
        CU_ASSERT_EQUAL(f.ch.rows[1][0].v.i, 5);
    }
    /* a NULL key: not known to be the same, so both rows */
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, "{\"before\":{\"customer\":\"a\"},\"after\":"
                                          "{\"customer\":\"b\"},\"op\":\"u\"}"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 2);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[0][1], "a"));
    /* a delete reads the whole before image, errors included */
    CU_ASSERT_EQUAL_FATAL(decode_text(&f, "{\"before\":{\"id\":7,\"customer\":\"x\","
                                          "\"amount\":1.5},\"after\":null,\"op\":\"d\"}"),
                          RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_DELETE);
    CU_ASSERT_TRUE(str_is(&f.ch.rows[0][1], "x"));
    CU_ASSERT_EQUAL(f.ch.rows[0][2].v.d, 1.5);
    CU_ASSERT_EQUAL(decode_text(&f, "{\"before\":{\"id\":7,\"amount\":\"abc\"},"
                                    "\"after\":null,\"op\":\"d\"}"), RSQL_ERR_DECODE);
    CU_ASSERT_STRING_EQUAL(f.err.msg, "field 'before.amount': expected DOUBLE, got string \"abc\"");
    fx_deinit(&f);

    /* with the envelope: the key compared as read, the +U's timestamp converted */
    static const char *const on[] = {"debezium-json.schema-include", "true", NULL};
    fx_init(&f, on);
    CU_ASSERT_EQUAL_FATAL(rsql_decoder_skip_before(f.dec, key, 1, &f.err), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(decode_fixture(&f, "pg_update_schema_micro.json"), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(f.ch.n, 1);
    CU_ASSERT_EQUAL(f.ch.kinds[0], RSQL_ROW_UPDATE_AFTER);
    CU_ASSERT_EQUAL(f.ch.rows[0][3].v.ts, PLACED_1);
    fx_deinit(&f);
}

static CU_TestInfo dbz_tests[] = {
    {"test_dbz_ops", test_dbz_ops},
    {"test_dbz_schema_envelope", test_dbz_schema_envelope},
    {"test_dbz_schema_units", test_dbz_schema_units},
    {"test_dbz_schema_decimal", test_dbz_schema_decimal},
    {"test_dbz_tombstone", test_dbz_tombstone},
    {"test_dbz_truncate", test_dbz_truncate},
    {"test_dbz_parse_errors", test_dbz_parse_errors},
    {"test_dbz_metadata", test_dbz_metadata},
    {"test_dbz_projection", test_dbz_projection},
    {"test_dbz_nested", test_dbz_nested},
    {"test_dbz_date", test_dbz_date},
    {"test_dbz_round_trip", test_dbz_round_trip},
    {"test_dbz_options", test_dbz_options},
    {"test_dbz_skip_before", test_dbz_skip_before},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"debezium-json", NULL, NULL, NULL, NULL, dbz_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"
