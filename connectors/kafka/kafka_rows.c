/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The kafka source's own decoding, for value.fields-include 'EXCEPT_KEY' and for upsert-kafka:
 * a record's row made from its key (the key.fields columns, or upsert-kafka's PRIMARY KEY, in
 * key.format) and its value (every other physical column in the value format; every one
 * under 'ALL', which then wins over the key), with the metadata columns in their places.
 * upsert-kafka: a record with a value is an upsert of its key (+I), one without a value a
 * delete (-D) of its key, the other columns NULL. The source then
 * hands on the row itself (rsql_record_t.row), the record's value kept as its raw form; a key
 * or a value that does not decode makes the record a bad one (rsql_record_t.error), failed at
 * the decode stage like a body its format refuses. With 'ALL' (the default) the source hands
 * on the value alone and the runtime decodes every column from it (kafka_source.c).
 */
#include "config.h"
#include "connectors/kafka/kafka_source_int.h"
#include "connectors/formats/rsql_format.h"

#include <stdio.h>
#include <string.h>

struct rsql_kafka_rowdec {
    int n_columns;
    rsql_type_t *types; /* the columns' types (a NULL key's values) */
    rsql_decoder_t *key_dec;
    int n_key;
    int key_cols[RSQL_KAFKA_MAX_KEY];
    rsql_decoder_t *val_dec;
    int n_val;
    int *val_cols;
    rsql_value_t *scratch; /* one decode's values (the larger of key and value) */
};

void rsql_kafka__rowdec_destroy(rsql_kafka_rowdec_t *d)
{
    if (!d) {
        return;
    }
    rsql_decoder_destroy(d->key_dec);
    rsql_decoder_destroy(d->val_dec);
    rsql_free(d->val_cols);
    rsql_free(d->scratch);
    rsql_free(d->types);
    rsql_free(d);
}

/* A decoder of format over the columns cols[0..n) of the table (their names, types, descs). */
static rsql_decoder_t *decoder_of(const rsql_source_ctx_t *ctx, const char *format,
                                  const void *format_conf, const int *cols, int n,
                                  rsql_error_t *err)
{
    const char **names = rsql_calloc((size_t)n + 1, sizeof *names);
    rsql_type_t *types = rsql_calloc((size_t)n + 1, sizeof *types);
    rsql_decoder_t *dec = NULL;
    if (!names || !types) {
        rsql_error_nomem(err);
    } else {
        for (int i = 0; i < n; i++) {
            names[i] = ctx->column_names[cols[i]];
            types[i] = ctx->column_types[cols[i]];
        }
        dec = rsql_decoder_new(format, format_conf, n, names, types, err);
    }
    for (int i = 0; dec && ctx->column_descs && i < n; i++) {
        if (ctx->column_descs[cols[i]]) {
            rsql_decoder_set_desc(dec, i, ctx->column_descs[cols[i]]);
        }
    }
    rsql_free(names);
    rsql_free(types);
    return dec;
}

rsql_kafka_rowdec_t *rsql_kafka__rowdec_new(const rsql_source_ctx_t *ctx,
                                            const rsql_kafka_conf_t *c, rsql_error_t *err)
{
    rsql_kafka_rowdec_t *d = rsql_calloc(1, sizeof *d);
    if (!d || !(d->val_cols = rsql_calloc((size_t)ctx->n_columns + 1, sizeof *d->val_cols)) ||
        !(d->scratch = rsql_calloc((size_t)ctx->n_columns + RSQL_KAFKA_MAX_KEY,
                                   sizeof *d->scratch)) ||
        !(d->types = rsql_calloc((size_t)ctx->n_columns + 1, sizeof *d->types))) {
        rsql_kafka__rowdec_destroy(d);
        rsql_error_nomem(err);
        return NULL;
    }
    d->n_columns = ctx->n_columns;
    memcpy(d->types, ctx->column_types, sizeof *d->types * (size_t)ctx->n_columns);
    if (c->upsert) {
        d->n_key = ctx->n_key < RSQL_KAFKA_MAX_KEY ? ctx->n_key : RSQL_KAFKA_MAX_KEY;
        for (int k = 0; k < d->n_key; k++) {
            d->key_cols[k] = ctx->key_columns[k];
        }
        if (d->n_key == 0) {
            rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                           "upsert-kafka: the table needs a PRIMARY KEY (...) NOT ENFORCED: "
                           "the record key");
        }
    } else {
        d->n_key = rsql_kafka__key_columns(c->key_fields, ctx->n_columns, ctx->column_names,
                                           d->key_cols, err);
    }
    bool ok = d->n_key > 0;
    for (int i = 0; ok && i < d->n_key; i++) {
        if (ctx->column_meta && ctx->column_meta[d->key_cols[i]]) {
            rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                           "kafka: option 'key.fields': column '%s' is a METADATA column",
                           ctx->column_names[d->key_cols[i]]);
            ok = false;
        }
    }
    for (int i = 0; ok && i < ctx->n_columns; i++) {
        bool in_key = false;
        for (int k = 0; k < d->n_key; k++) {
            in_key |= d->key_cols[k] == i;
        }
        in_key &= c->fields_include == RSQL_KAFKA_FI_EXCEPT_KEY;
        if (!in_key && !(ctx->column_meta && ctx->column_meta[i])) {
            d->val_cols[d->n_val++] = i;
        }
    }
    ok = ok && (d->key_dec = decoder_of(ctx, rsql_kafka_formats[c->key_format], NULL,
                                        d->key_cols, d->n_key, err)) != NULL;
    ok = ok && (d->val_dec = decoder_of(ctx, c->format_name, ctx->format_conf, d->val_cols,
                                        d->n_val, err)) != NULL;
    if (!ok) {
        rsql_kafka__rowdec_destroy(d);
        return NULL;
    }
    return d;
}

/* r becomes a bad record: why (what failed and the decoder's message) in the batch arena. */
static rsql_err_t bad_record(rsql_batch_t *b, rsql_record_t *r, const char *what,
                             const rsql_error_t *why, rsql_error_t *err)
{
    rsql_error_t *e = rsql_arena_alloc(b->arena, sizeof *e);
    if (!e) {
        return rsql_error_nomem(err);
    }
    rsql_error_clear(e);
    rsql_error_set(e, why->code ? why->code : RSQL_ERR_DECODE, RSQL_NOPOS, "%s: %s", what,
                   why->msg);
    r->error = e;
    r->row = NULL;
    return RSQL_OK;
}

rsql_err_t rsql_kafka__rowdec_decode(rsql_kafka_rowdec_t *d, rsql_batch_t *b, rsql_record_t *r,
                                     const void *key, size_t key_len, rsql_error_t *err)
{
    if (!r->raw && !key) {
        r->n_rows = -1; /* neither key nor value: nothing to apply, done as filtered */
        return RSQL_OK;
    }
    rsql_value_t *row = r->meta;
    if (!row) {
        if (!(row = rsql_arena_alloc(b->arena, sizeof *row * (size_t)(d->n_columns + 1)))) {
            return rsql_error_nomem(err);
        }
        for (int i = 0; i < d->n_columns; i++) {
            row[i] = (rsql_value_t){.type = d->types[i], .is_null = true};
        }
    }
    rsql_error_t why;
    rsql_error_clear(&why);
    if (key) {
        if (rsql_decode(d->key_dec, key, key_len, b->arena, d->scratch, &why) != RSQL_OK) {
            return why.code == RSQL_ERR_NOMEM ? rsql_error_nomem(err)
                                              : bad_record(b, r, "key.format", &why, err);
        }
        for (int k = 0; k < d->n_key; k++) {
            row[d->key_cols[k]] = d->scratch[k];
        }
    } else {
        for (int k = 0; k < d->n_key; k++) {
            row[d->key_cols[k]] = (rsql_value_t){.type = d->types[d->key_cols[k]],
                                                 .is_null = true};
        }
    }
    if (!r->raw) { /* upsert-kafka's tombstone: the key's delete */
        r->kind = RSQL_ROW_DELETE;
        r->row = row;
        return RSQL_OK;
    }
    if (rsql_decode(d->val_dec, r->raw, r->raw_len, b->arena, d->scratch, &why) != RSQL_OK) {
        return why.code == RSQL_ERR_NOMEM ? rsql_error_nomem(err)
                                          : bad_record(b, r, "value", &why, err);
    }
    for (int k = 0; k < d->n_val; k++) {
        row[d->val_cols[k]] = d->scratch[k];
    }
    r->kind = RSQL_ROW_INSERT;
    r->row = row;
    return RSQL_OK;
}
