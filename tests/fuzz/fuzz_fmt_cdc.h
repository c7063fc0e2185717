/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The body of the two changelog-format targets (fuzz_fmt_canal.c, fuzz_fmt_maxwell.c; each
 * defines FZ_CDC_FORMAT and includes this): a body through the format's decoder
 * (rsql_decode_changes), then every row it gave through the encoder with its kind and back.
 * Promises checked: no crash, hang or sanitizer report on any bytes; a body decodes or fails
 * with RSQL_ERR_DECODE (never another error); the rows have valid kinds, an update comes as
 * -U then +U, and each wanted metadata value has its key's type or is NULL; a row written
 * with its kind decodes back to one row of the kind Flink's encoders give (+I/+U an insert,
 * -U/-D a delete) and the same values, and writing that row again gives the same bytes.
 *
 * Input: byte 0 chooses the options (bit 0 *.ignore-parse-errors, bit 1
 * *.timestamp-format.standard ISO-8601, bit 2 canal's include options "inv.*" and "p.*",
 * bit 3 projection pushdown: only columns 0, 1 and 4 read, bit 4 every metadata key
 * wanted, bit 5 rsql_decoder_skip_before by column 0: then an update's -U, when there is one,
 * has a column 0 that changed or is NULL); the rest is the body. Options go through the
 * format's own validation.
 */
#ifndef RSQL_FUZZ_FMT_CDC_H
#define RSQL_FUZZ_FMT_CDC_H

#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_conf.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_value.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_connector.h"

#include <math.h>

static const char *const fz_names[] = {"id", "name", "amount", "ok", "ts", "n", "d"};
static const rsql_type_t fz_types[] = {RSQL_TYPE_BIGINT,    RSQL_TYPE_VARCHAR, RSQL_TYPE_DOUBLE,
                                       RSQL_TYPE_BOOLEAN,   RSQL_TYPE_TIMESTAMP,
                                       RSQL_TYPE_INT,       RSQL_TYPE_DECIMAL};
#define FZ_N 7

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static bool same_value(const rsql_value_t *a, const rsql_value_t *b)
{
    if (a->is_null || b->is_null) {
        return a->is_null == b->is_null;
    }
    switch (a->type) {
    case RSQL_TYPE_VARCHAR:
        return a->v.s.len == b->v.s.len && memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0;
    case RSQL_TYPE_DOUBLE:
        return (isnan(a->v.d) && isnan(b->v.d)) || memcmp(&a->v.d, &b->v.d, sizeof a->v.d) == 0;
    case RSQL_TYPE_BOOLEAN: return a->v.b == b->v.b;
    case RSQL_TYPE_DECIMAL:
        return a->scale == b->scale && rsql_value_decimal_cmp(a, b) == 0;
    default: return a->v.i == b->v.i;
    }
}

/* A decoder of the table with conf, pushdown as the input says. */
static rsql_decoder_t *fz_decoder(const void *conf, bool prune)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_decoder_t *dec = rsql_decoder_new(FZ_CDC_FORMAT, conf, FZ_N, fz_names, fz_types, &err);
    FZ_CHECK(dec, "decoder: %s", err.msg);
    rsql_decoder_set_desc(dec, 6, rsql_tdesc_decimal(12, 3));
    if (prune) {
        FZ_CHECK(rsql_decoder_prune(dec, &err) == RSQL_OK, "prune");
        for (int c = 0; c < 5; c += c == 1 ? 3 : 1) {
            FZ_CHECK(rsql_decoder_use(dec, c, NULL, 0, &err) == RSQL_OK, "use");
        }
    }
    return dec;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    uint8_t o = fz_byte(&r);
    size_t len;
    const uint8_t *body = fz_bytes(&r, r.n, &len);
    bool canal = strcmp(FZ_CDC_FORMAT, "canal-json") == 0;
    const rsql_format_def_t *fmt = rsql_format_find(FZ_CDC_FORMAT);
    FZ_CHECK(fmt, "format %s", FZ_CDC_FORMAT);
    char k_ignore[64], k_ts[64];
    snprintf(k_ignore, sizeof k_ignore, "%s.ignore-parse-errors", FZ_CDC_FORMAT);
    snprintf(k_ts, sizeof k_ts, "%s.timestamp-format.standard", FZ_CDC_FORMAT);
    rsql_opt_kv_t kvs[4];
    int nkv = 0;
    kvs[nkv++] = (rsql_opt_kv_t){k_ignore, o & 1 ? "true" : "false", RSQL_NOPOS, RSQL_NOPOS};
    kvs[nkv++] = (rsql_opt_kv_t){k_ts, o & 2 ? "ISO-8601" : "SQL", RSQL_NOPOS, RSQL_NOPOS};
    if (canal && (o & 4)) {
        kvs[nkv++] = (rsql_opt_kv_t){"canal-json.database.include", "inv.*", RSQL_NOPOS,
                                     RSQL_NOPOS};
        kvs[nkv++] = (rsql_opt_kv_t){"canal-json.table.include", "p.*", RSQL_NOPOS,
                                     RSQL_NOPOS};
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_opt_def_t *tables[1] = {fmt->opts};
    rsql_optset_t *set = rsql_optset_new(tables, 1, fmt->name, kvs, nkv, NULL, 0, &err);
    FZ_CHECK(set, "options: %s", err.msg);
    const void *conf = rsql_conf_build(set, RSQL_CONF_FORMAT, fmt->conf_size, fmt->opts, &err);
    FZ_CHECK(conf, "conf: %s", err.msg);
    bool prune = o & 8;
    rsql_decoder_t *dec = fz_decoder(conf, prune);
    rsql_decoder_t *back = fz_decoder(NULL, prune); /* no include filters, no ignoring */
    rsql_encoder_t *enc = rsql_encoder_new(FZ_CDC_FORMAT, conf, FZ_N, fz_names, fz_types, &err);
    FZ_CHECK(enc, "encoder: %s", err.msg);
    const rsql_format_meta_t *meta = rsql_format_metadata(FZ_CDC_FORMAT);
    int n_meta = 0;
    while (meta && meta[n_meta].key) {
        if (o & 16) {
            FZ_CHECK(rsql_decoder_want_meta(dec, meta[n_meta].key, &err) == RSQL_OK, "meta");
        }
        n_meta++;
    }
    static const int key[] = {0};
    if (o & 32) {
        FZ_CHECK(rsql_decoder_skip_before(dec, key, 1, &err) == RSQL_OK, "skip_before");
    }
    rsql_arena_t *arena = rsql_arena_new();
    rsql_changes_t ch;
    rsql_err_t rc = rsql_decode_changes(dec, body, len, arena, &ch, &err);
    FZ_CHECK(rc == RSQL_OK || rc == RSQL_ERR_DECODE || rc == RSQL_ERR_NOMEM, "decode rc %d: %s",
             rc, err.msg);
    FZ_CHECK(rc != RSQL_ERR_DECODE || !(o & 1), "ignore-parse-errors let an error through");
    for (int i = 0; rc == RSQL_OK && i < ch.n; i++) {
        int kind = ch.kinds[i];
        FZ_CHECK(kind >= RSQL_ROW_INSERT && kind <= RSQL_ROW_DELETE, "kind %d", kind);
        if (kind == RSQL_ROW_UPDATE_BEFORE) {
            FZ_CHECK(i + 1 < ch.n && ch.kinds[i + 1] == RSQL_ROW_UPDATE_AFTER, "-U then +U");
            FZ_CHECK(!(o & 32) || !rsql_value_same_key(&ch.rows[i][0], &ch.rows[i + 1][0]),
                     "an update that keeps its key gave its -U");
        }
        const rsql_value_t *row = ch.rows[i];
        for (int k = 0; (o & 16) && k < n_meta; k++) {
            const rsql_value_t *m = &row[FZ_N + k];
            FZ_CHECK(m->is_null || m->type == meta[k].type, "metadata %s type", meta[k].key);
        }
        rsql_buf_t b = RSQL_BUF_INIT, b2 = RSQL_BUF_INIT;
        rsql_error_clear(&err);
        FZ_CHECK(rsql_encode_change(enc, row, kind, &b, &err) == RSQL_OK, "encode: %s", err.msg);
        rsql_changes_t ch2;
        rsql_err_t rc2 = rsql_decode_changes(back, (const uint8_t *)b.data, b.len, arena, &ch2,
                                             &err);
        FZ_CHECK(rc2 == RSQL_OK && ch2.n == 1, "written row reads back: %s (%.*s)", err.msg,
                 (int)b.len, b.data);
        bool del = kind == RSQL_ROW_DELETE || kind == RSQL_ROW_UPDATE_BEFORE;
        FZ_CHECK(ch2.kinds[0] == (del ? RSQL_ROW_DELETE : RSQL_ROW_INSERT), "kind back");
        for (int c = 0; c < FZ_N; c++) {
            FZ_CHECK(same_value(&row[c], &ch2.rows[0][c]), "column %s reads back (%.*s)",
                     fz_names[c], (int)b.len, b.data);
        }
        FZ_CHECK(rsql_encode_change(enc, ch2.rows[0], ch2.kinds[0], &b2, &err) == RSQL_OK,
                 "encode again");
        FZ_CHECK(b2.len == b.len && memcmp(b.data, b2.data, b.len) == 0, "same bytes again");
        rsql_buf_deinit(&b);
        rsql_buf_deinit(&b2);
    }
    rsql_arena_destroy(arena);
    rsql_decoder_destroy(dec);
    rsql_decoder_destroy(back);
    rsql_encoder_destroy(enc);
    rsql_optset_destroy(set);
    return 0;
}

#endif
