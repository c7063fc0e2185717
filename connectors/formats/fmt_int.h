/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fmt_int: what the format files (fmt_json.c, fmt_csv.c, fmt_raw.c) share
 * with the dispatcher (fmt_codec.c): the per-table configuration and the
 * scratch memory of decoders and encoders. Private to connectors/formats/.
 */
#ifndef RSQL_FMT_INT_H
#define RSQL_FMT_INT_H

#include "connectors/formats/rsql_format.h"

typedef enum fmt_kind { FMT_JSON, FMT_CSV, FMT_RAW } fmt_kind_t;

/* The table and options a decoder or encoder was made for (owned copies). */
typedef struct fmt_conf {
    fmt_kind_t kind;
    int n;
    char **names;
    size_t *name_lens;
    rsql_type_t *types;
    const rsql_tdesc_t **descs; /* per column: DECIMAL/ROW/ARRAY/MAP's full type, or NULL */
    bool json_fail_missing; /* json.fail-on-missing-field */
    bool json_ts_millis;    /* json.timestamp-format = epoch-millis (write numbers) */
    bool json_ts_iso;       /* json.timestamp-format = iso-8601 (write ...T...Z) */
    char csv_delim;         /* csv.field-delimiter */
    char csv_quote;         /* csv.quote-character ('\0': quoting disabled) */
    char *csv_null;         /* csv.null-literal, NULL when not set */
    size_t csv_null_len;
} fmt_conf_t;

struct rsql_decoder {
    fmt_conf_t c;
    bool *seen;         /* json: per column, set in this body */
    size_t *fstart;     /* csv: field spans (n + 1 slots) */
    size_t *flen;
    bool *fquoted;
    rsql_buf_t scratch; /* unescaped text */
};

struct rsql_encoder {
    fmt_conf_t c;
    rsql_buf_t scratch;
};

rsql_err_t rsql_fmt__json_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                 rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err);
rsql_err_t rsql_fmt__json_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                 rsql_error_t *err);
rsql_err_t rsql_fmt__csv_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err);
rsql_err_t rsql_fmt__csv_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                rsql_error_t *err);
rsql_err_t rsql_fmt__raw_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err);
rsql_err_t rsql_fmt__raw_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                rsql_error_t *err);

/* A value's text for messages: `string "abc"`, `number 1.5`, quoted and cut at 40 bytes. */
void rsql_fmt__quote_for_msg(const char *s, size_t n, char *buf, size_t size);

#endif
