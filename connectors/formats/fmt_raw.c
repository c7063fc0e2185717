/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The raw format: the body as is, in a table of one VARCHAR or BYTES
 * column (checked when the decoder/encoder is made). NULL encodes as an
 * empty body; an empty body decodes as an empty value, not NULL.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#include <string.h>

/*
** Decode: copy the body into arena as the one column's value.
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__raw_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err)
{
    char *p = rsql_arena_strndup(arena, (const char *)raw, len);
    if (!p) {
        return rsql_error_nomem(err);
    }
    memset(&row[0], 0, sizeof row[0]);
    row[0].type = dec->c.types[0];
    row[0].v.s.p = p;
    row[0].v.s.len = len;
    return RSQL_OK;
}

/*
** Encode: append the one value's bytes (or its text when it is not a
** string, e.g. after a CAST the planner allowed).
** @locality the encoder's thread
*/
rsql_err_t rsql_fmt__raw_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                rsql_error_t *err)
{
    (void)enc;
    (void)err;
    if (row[0].is_null || row[0].type == RSQL_TYPE_NULL) {
        return RSQL_OK;
    }
    if (row[0].type == RSQL_TYPE_VARCHAR || row[0].type == RSQL_TYPE_BYTES) {
        rsql_buf_append(out, row[0].v.s.p, row[0].v.s.len);
    } else {
        rsql_value_format(&row[0], out);
    }
    return RSQL_OK;
}
