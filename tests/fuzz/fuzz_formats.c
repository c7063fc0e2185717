/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_formats: a body through the json or csv decoder, then whatever decoded through the
 * encoder, and back: what the encoder writes must decode to the same row (the formats'
 * round-trip promise, rsql_format.h), and encoding that row again must give the same bytes.
 * The json encoder may refuse a row (a per-row error) but never with an internal error; the
 * csv encoder never refuses a row its decoder read (both follow one rule).
 *
 * Input: byte 0 picks the format (bit 0: json / csv), json.timestamp-format (bits 1-2) and
 * json.fail-on-missing-field (bit 3); then, for csv, three option values, each up to a 0xff
 * byte: csv.field-delimiter, csv.quote-character, csv.null-literal (a value of 0xfe alone
 * means "not given"); then the column count (1-8) and one type byte per column; the rest is
 * the body. Columns are named c0..c7. The options go through the format's own validation,
 * so only configurations CREATE TABLE accepts are fuzzed.
 *
 * Type bytes: 0-6 the scalar types, 7 DATE, 8-15 a nested type of nested_texts[] (ROW,
 * ARRAY, MAP, nested in each other, with DECIMAL, DATE, TIMESTAMP, DOUBLE and BYTES inside;
 * json only: csv has no nested form and reads them as NULL), 16 and up DECIMAL(p, s) with p
 * and s from the byte. Nested values compare recursively; DECIMALs by value and scale.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_conf.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_value.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_connector.h"

#include <math.h>

static const rsql_type_t types_of[] = {RSQL_TYPE_BOOLEAN, RSQL_TYPE_INT,       RSQL_TYPE_BIGINT,
                                       RSQL_TYPE_DOUBLE,  RSQL_TYPE_TIMESTAMP, RSQL_TYPE_VARCHAR,
                                       RSQL_TYPE_BYTES};
static const char *const names[] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"};

static const char *const nested_texts[] = {
    "ROW<a INT, b ARRAY<VARCHAR>>",
    "ARRAY<DECIMAL(5, 2)>",
    "MAP<STRING, ROW<x DOUBLE, t TIMESTAMP(3)>>",
    "ARRAY<ARRAY<BIGINT>>",
    "ROW<d DATE, m MAP<STRING, BYTES>, r ROW<s STRING, b BOOLEAN>>",
    "MAP<STRING, ARRAY<DECIMAL(38, 10)>>",
    "ARRAY<ROW<k VARCHAR, v DECIMAL(3, 3)>>",
    "ROW<\"A b\" INT, c DECIMAL(20, 0)>",
};

/* The type (and its descriptor, NULL for a plain scalar) of a type byte (see the header). */
static rsql_type_t type_of(uint8_t b, const rsql_tdesc_t **desc)
{
    *desc = NULL;
    if (b < 7) {
        return types_of[b];
    }
    if (b == 7) {
        return RSQL_TYPE_DATE;
    }
    if (b < 16) {
        const char *t = nested_texts[b - 8];
        FZ_CHECK(rsql_tdesc_parse(t, strlen(t), desc, NULL, NULL) == RSQL_OK, "type %s", t);
        return (*desc)->type;
    }
    int p = 1 + (b - 16) % 38, sc = ((b - 16) / 38) * p / 5;
    *desc = rsql_tdesc_decimal(p, sc > p ? p : sc);
    FZ_CHECK(*desc, "DECIMAL(%d, %d)", p, sc);
    return RSQL_TYPE_DECIMAL;
}

/* The format's validated typed configuration (NULL when the options are refused). */
static const void *format_conf(const rsql_format_def_t *fmt, const rsql_opt_kv_t *kvs, int n,
                               rsql_optset_t **set)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_opt_def_t *tables[1] = {fmt->opts};
    *set = rsql_optset_new(tables, 1, fmt->name, kvs, n, NULL, 0, &err);
    if (!*set || (fmt->finalize && fmt->finalize(*set, &err) != RSQL_OK)) {
        return NULL;
    }
    void *conf = rsql_conf_build(*set, RSQL_CONF_FORMAT, fmt->conf_size, fmt->opts, &err);
    if (conf && fmt->configure && fmt->configure(conf, *set, &err) != RSQL_OK) {
        return NULL;
    }
    return conf;
}

static bool same_value(const rsql_value_t *a, const rsql_value_t *b)
{
    if (a->is_null || b->is_null) {
        return a->is_null == b->is_null;
    }
    switch (a->type) {
    case RSQL_TYPE_BOOLEAN: return a->v.b == b->v.b;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: return a->v.i == b->v.i;
    case RSQL_TYPE_TIMESTAMP: return a->v.ts == b->v.ts;
    case RSQL_TYPE_DOUBLE:
        return (isnan(a->v.d) && isnan(b->v.d)) || memcmp(&a->v.d, &b->v.d, sizeof a->v.d) == 0;
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES:
        return a->v.s.len == b->v.s.len &&
               (a->v.s.len == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
    case RSQL_TYPE_DATE: return a->v.i == b->v.i;
    case RSQL_TYPE_DECIMAL:
        return a->scale == b->scale && rsql_value_decimal_cmp(a, b) == 0;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: {
        const rsql_composite_t *x = a->v.c, *y = b->v.c;
        if (x->desc != y->desc || x->n != y->n) {
            return false;
        }
        uint32_t items = a->type == RSQL_TYPE_MAP ? 2 * x->n : x->n;
        for (uint32_t i = 0; i < items; i++) {
            if (!same_value(&x->items[i], &y->items[i])) {
                return false;
            }
        }
        return true;
    }
    default: return true;
    }
}

/* The value for a message: its text (NULL as NULL). */
static void describe(const rsql_value_t *v, char *buf, size_t size)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    if (v->is_null) {
        rsql_buf_puts(&b, "NULL");
    } else {
        rsql_value_format(v, &b);
    }
    snprintf(buf, size, "%s %.*s", rsql_type_name(v->type), (int)(b.len > 80 ? 80 : b.len),
             b.len ? b.data : "");
    rsql_buf_deinit(&b);
}

static void round_trip(const char *fmt_name, const void *conf, int n, const rsql_type_t *types,
                       const rsql_tdesc_t *const *descs, const uint8_t *body, size_t len)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = rsql_decoder_new(fmt_name, conf, n, names, types, &err);
    rsql_encoder_t *enc = rsql_encoder_new(fmt_name, conf, n, names, types, &err);
    FZ_CHECK(dec && enc, "cannot make a %s codec: %s", fmt_name, err.msg);
    for (int i = 0; i < n; i++) {
        rsql_decoder_set_desc(dec, i, descs[i]);
    }
    rsql_arena_t *arena = rsql_arena_new();
    rsql_value_t row1[8], row2[8];
    rsql_buf_t out1 = RSQL_BUF_INIT, out2 = RSQL_BUF_INIT;
    FZ_CHECK(arena, "out of memory");
    if (rsql_decode(dec, body, len, arena, row1, &err) != RSQL_OK) {
        FZ_CHECK(err.code == RSQL_ERR_DECODE, "decode failed with %s: %s",
                 rsql_err_name(err.code), err.msg);
        goto done;
    }
    for (int i = 0; i < n; i++) {
        FZ_CHECK(row1[i].type == types[i] || row1[i].is_null, "column %d: decoded type %d", i,
                 (int)row1[i].type);
    }
    if (rsql_encode(enc, row1, &out1, &err) != RSQL_OK) {
        FZ_CHECK(err.code != RSQL_ERR_NOMEM && err.code != RSQL_ERR_INTERNAL,
                 "encode failed with %s: %s", rsql_err_name(err.code), err.msg);
        /* csv reads only what it can write (one rule, fmt_csv.c) */
        FZ_CHECK(strcmp(fmt_name, "csv") != 0, "csv: a record the decoder read is refused by "
                 "the encoder: %s", err.msg);
        goto done;
    }
    rsql_error_clear(&err);
    FZ_CHECK(rsql_decode(dec, (const uint8_t *)out1.data, out1.len, arena, row2, &err) ==
                 RSQL_OK,
             "%s: what the encoder wrote does not decode: %s\n  wrote: %.*s", fmt_name, err.msg,
             (int)(out1.len > 200 ? 200 : out1.len), out1.len ? out1.data : "");
    for (int i = 0; i < n; i++) {
        char a[128], b[128];
        describe(&row1[i], a, sizeof a);
        describe(&row2[i], b, sizeof b);
        FZ_CHECK(same_value(&row1[i], &row2[i]),
                 "%s: column c%d does not round-trip: decoded %s, wrote %.*s, read back %s",
                 fmt_name, i, a, (int)(out1.len > 200 ? 200 : out1.len), out1.data, b);
    }
    FZ_CHECK(rsql_encode(enc, row2, &out2, &err) == RSQL_OK, "second encode failed: %s",
             err.msg);
    FZ_CHECK(out1.len == out2.len && memcmp(out1.data, out2.data, out1.len) == 0,
             "%s: encoding is not stable: %.*s vs %.*s", fmt_name, (int)out1.len, out1.data,
             (int)out2.len, out2.data);
done:
    rsql_buf_deinit(&out1);
    rsql_buf_deinit(&out2);
    rsql_arena_destroy(arena);
    rsql_decoder_destroy(dec);
    rsql_encoder_destroy(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    uint8_t head = fz_byte(&r);
    bool csv = head & 1;
    static const char *const ts_formats[] = {"sql", "iso-8601", "epoch-millis", "sql"};
    rsql_opt_kv_t kvs[3];
    char *vals[3] = {NULL, NULL, NULL};
    int nk = 0;
    if (csv) {
        static const char *const keys[] = {"csv.field-delimiter", "csv.quote-character",
                                           "csv.null-literal"};
        for (int i = 0; i < 3; i++) {
            size_t len;
            const uint8_t *p = fz_until(&r, 0xff, &len);
            if ((len == 1 && p[0] == 0xfe) || memchr(p, 0, len)) {
                continue; /* not given (a NUL cannot be in an SQL string) */
            }
            vals[i] = fz_strndup(p, len);
            kvs[nk++] = (rsql_opt_kv_t){keys[i], vals[i], RSQL_NOPOS, RSQL_NOPOS};
        }
    } else {
        kvs[nk++] = (rsql_opt_kv_t){"json.timestamp-format", ts_formats[(head >> 1) & 3],
                                    RSQL_NOPOS, RSQL_NOPOS};
        kvs[nk++] = (rsql_opt_kv_t){"json.fail-on-missing-field", head & 8 ? "true" : "false",
                                    RSQL_NOPOS, RSQL_NOPOS};
    }
    int n = 1 + fz_byte(&r) % 8;
    rsql_type_t types[8];
    const rsql_tdesc_t *descs[8];
    for (int i = 0; i < n; i++) {
        types[i] = type_of(fz_byte(&r), &descs[i]);
        if (csv && rsql_type_is_nested(types[i])) { /* no csv text form: a VARCHAR there */
            types[i] = RSQL_TYPE_VARCHAR;
            descs[i] = NULL;
        }
    }
    const rsql_format_def_t *fmt = rsql_format_find(csv ? "csv" : "json");
    FZ_CHECK(fmt, "no format");
    rsql_optset_t *set = NULL;
    const void *conf = format_conf(fmt, kvs, nk, &set);
    if (conf) {
        round_trip(fmt->name, conf, n, types, descs, r.p, r.n);
    }
    rsql_optset_destroy(set);
    for (int i = 0; i < 3; i++) {
        free(vals[i]);
    }
    return 0;
}
