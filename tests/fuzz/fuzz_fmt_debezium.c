/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_fmt_debezium: a body through the debezium-json decoder (rsql_decode_changes), then each
 * change it gave through the encoder (rsql_encode_change) and back. Checks: decoding gives
 * RSQL_OK or a decode error, never another code (and never an error with
 * debezium-json.ignore-parse-errors); at most two rows, an update's as -U then +U; each
 * column of its type or NULL, each metadata value of its key's type or NULL; what the
 * encoder writes decodes to one change of the kind Flink's mapping gives (+I and +U as an
 * insert, -U and -D as a delete) with the same values.
 *
 * Input: byte 0 the options (bit 0 schema-include, 1 ignore-parse-errors, 2 ignore-truncate,
 * 3 timestamp-format.standard ISO-8601, 4 rsql_decoder_skip_before by c0: then an update
 * that gives two rows has a c0 that changed or is NULL); byte 1 which metadata keys are asked for (bit k:
 * the k-th key, in the table's order); byte 2 the projection (0: every column; else bit i:
 * column i is read); the rest is the body. The table is fixed: c0 INT, c1 VARCHAR,
 * c2 DOUBLE, c3 TIMESTAMP(3), c4 DECIMAL(10, 2), c5 ROW<a INT, b ARRAY<VARCHAR>>,
 * c6 MAP<STRING, BIGINT>, c7 BYTES (c3 reads Debezium's microseconds when a schema says so).
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

#define NCOLS 8
static const char *const names[NCOLS] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"};
static const rsql_type_t types[NCOLS] = {RSQL_TYPE_INT,     RSQL_TYPE_VARCHAR, RSQL_TYPE_DOUBLE,
                                         RSQL_TYPE_TIMESTAMP, RSQL_TYPE_DECIMAL, RSQL_TYPE_ROW,
                                         RSQL_TYPE_MAP,     RSQL_TYPE_BYTES};
static const rsql_tdesc_t *descs[NCOLS];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *row = "ROW<a INT, b ARRAY<VARCHAR>>", *map = "MAP<STRING, BIGINT>";
    descs[4] = rsql_tdesc_decimal(10, 2);
    FZ_CHECK(rsql_tdesc_parse(row, strlen(row), &descs[5], NULL, NULL) == RSQL_OK, "%s", row);
    FZ_CHECK(rsql_tdesc_parse(map, strlen(map), &descs[6], NULL, NULL) == RSQL_OK, "%s", map);
    FZ_CHECK(descs[4], "DECIMAL(10, 2)");
    return 0;
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
    case RSQL_TYPE_DECIMAL: return a->scale == b->scale && rsql_value_decimal_cmp(a, b) == 0;
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

/* The format's validated typed configuration from the option bits (NULL: refused). */
static const void *format_conf(uint8_t bits, rsql_optset_t **set)
{
    const rsql_format_def_t *fmt = rsql_format_find("debezium-json");
    FZ_CHECK(fmt, "no debezium-json format");
    rsql_opt_kv_t kvs[] = {
        {"debezium-json.schema-include", bits & 1 ? "true" : "false", RSQL_NOPOS, RSQL_NOPOS},
        {"debezium-json.ignore-parse-errors", bits & 2 ? "true" : "false", RSQL_NOPOS,
         RSQL_NOPOS},
        {"debezium-json.ignore-truncate", bits & 4 ? "true" : "false", RSQL_NOPOS, RSQL_NOPOS},
        {"debezium-json.timestamp-format.standard", bits & 8 ? "ISO-8601" : "SQL", RSQL_NOPOS,
         RSQL_NOPOS},
    };
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_opt_def_t *tables[1] = {fmt->opts};
    *set = rsql_optset_new(tables, 1, fmt->name, kvs, 4, NULL, 0, &err);
    FZ_CHECK(*set, "options refused: %s", err.msg);
    void *conf = rsql_conf_build(*set, RSQL_CONF_FORMAT, fmt->conf_size, fmt->opts, &err);
    FZ_CHECK(conf, "no configuration: %s", err.msg);
    return conf;
}

static rsql_decoder_t *decoder(const void *conf)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = rsql_decoder_new("debezium-json", conf, NCOLS, names, types, &err);
    FZ_CHECK(dec, "cannot make a decoder: %s", err.msg);
    for (int i = 0; i < NCOLS; i++) {
        rsql_decoder_set_desc(dec, i, descs[i]);
    }
    return dec;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    uint8_t bits = fz_byte(&r), meta_bits = fz_byte(&r), used = fz_byte(&r);
    rsql_optset_t *set = NULL;
    const void *conf = format_conf(bits, &set);
    const rsql_format_meta_t *meta = rsql_format_metadata("debezium-json");
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = decoder(conf), *back = decoder(conf);
    rsql_encoder_t *enc = rsql_encoder_new("debezium-json", conf, NCOLS, names, types, &err);
    FZ_CHECK(enc && meta, "cannot make an encoder: %s", err.msg);
    int asked[8], n_asked = 0;
    for (int k = 0; meta[k].key && k < 8; k++) {
        if (meta_bits & (1u << k)) {
            FZ_CHECK(rsql_decoder_want_meta(dec, meta[k].key, &err) == RSQL_OK, "%s", err.msg);
            asked[n_asked++] = k;
        }
    }
    if (used) {
        FZ_CHECK(rsql_decoder_prune(dec, &err) == RSQL_OK, "%s", err.msg);
        for (int i = 0; i < NCOLS; i++) {
            if (used & (1u << i)) {
                FZ_CHECK(rsql_decoder_use(dec, i, NULL, 0, &err) == RSQL_OK, "%s", err.msg);
            }
        }
    }
    static const int key[] = {0};
    if (bits & 16) {
        FZ_CHECK(rsql_decoder_skip_before(dec, key, 1, &err) == RSQL_OK, "%s", err.msg);
    }
    rsql_arena_t *arena = rsql_arena_new();
    rsql_buf_t out = RSQL_BUF_INIT;
    rsql_changes_t ch;
    FZ_CHECK(arena, "out of memory");
    rsql_err_t rc = rsql_decode_changes(dec, r.p, r.n, arena, &ch, &err);
    if (rc != RSQL_OK) {
        FZ_CHECK(rc == RSQL_ERR_DECODE && err.code == RSQL_ERR_DECODE,
                 "decode failed with %s: %s", rsql_err_name(err.code), err.msg);
        FZ_CHECK(!(bits & 2), "a decode error with ignore-parse-errors: %s", err.msg);
        goto done;
    }
    FZ_CHECK(ch.n >= 0 && ch.n <= 2, "%d rows", ch.n);
    FZ_CHECK(ch.n < 2 || (ch.kinds[0] == RSQL_ROW_UPDATE_BEFORE &&
                          ch.kinds[1] == RSQL_ROW_UPDATE_AFTER),
             "two rows of kinds %d, %d", ch.kinds[0], ch.kinds[1]);
    FZ_CHECK(!(bits & 16) || ch.n < 2 || !rsql_value_same_key(&ch.rows[0][0], &ch.rows[1][0]),
             "an update that keeps its key gave its -U");
    for (int j = 0; j < ch.n; j++) {
        const rsql_value_t *row = ch.rows[j];
        int kind = ch.kinds[j];
        FZ_CHECK(kind >= RSQL_ROW_INSERT && kind <= RSQL_ROW_DELETE, "kind %d", kind);
        for (int i = 0; i < NCOLS; i++) {
            FZ_CHECK(row[i].is_null || row[i].type == types[i], "c%d: type %d", i,
                     (int)row[i].type);
            FZ_CHECK(!used || (used & (1u << i)) || row[i].is_null, "unread c%d is not NULL", i);
        }
        for (int k = 0; k < n_asked; k++) {
            const rsql_value_t *v = &row[NCOLS + k];
            FZ_CHECK(v->type == meta[asked[k]].type, "metadata %s: type %d", meta[asked[k]].key,
                     (int)v->type);
        }
        rsql_buf_reset(&out);
        rsql_error_clear(&err);
        FZ_CHECK(rsql_encode_change(enc, row, kind, &out, &err) == RSQL_OK, "encode: %s",
                 err.msg);
        rsql_changes_t again;
        rsql_error_clear(&err);
        FZ_CHECK(rsql_decode_changes(back, (const uint8_t *)out.data, out.len, arena, &again,
                                     &err) == RSQL_OK,
                 "what the encoder wrote does not decode: %s\n  wrote: %.*s", err.msg,
                 (int)(out.len > 300 ? 300 : out.len), out.data);
        bool removes = kind == RSQL_ROW_UPDATE_BEFORE || kind == RSQL_ROW_DELETE;
        FZ_CHECK(again.n == 1 && again.kinds[0] == (removes ? RSQL_ROW_DELETE : RSQL_ROW_INSERT),
                 "kind %d wrote %.*s, read back %d rows", kind, (int)out.len, out.data, again.n);
        for (int i = 0; i < NCOLS; i++) {
            FZ_CHECK(same_value(&row[i], &again.rows[0][i]),
                     "c%d does not round-trip: wrote %.*s", i,
                     (int)(out.len > 300 ? 300 : out.len), out.data);
        }
    }
done:
    rsql_buf_deinit(&out);
    rsql_arena_destroy(arena);
    rsql_decoder_destroy(dec);
    rsql_decoder_destroy(back);
    rsql_encoder_destroy(enc);
    rsql_optset_destroy(set);
    return 0;
}
