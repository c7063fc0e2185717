/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The csv format (RFC 4180-ish): one record per body, fields in column
 * order, separated by csv.field-delimiter (default ','), optionally quoted
 * with csv.quote-character (default '"'; a quote inside a quoted field is
 * doubled). A trailing "\r" (CRLF files) is ignored.
 *
 * NULL: an UNQUOTED field equal to csv.null-literal is NULL. Without a
 * null literal, an empty unquoted field is NULL for every column except
 * VARCHAR (where it is ''). A quoted field is never NULL, so the encoder
 * quotes any value whose text is the null literal (an empty string, an
 * empty BYTES value) or holds the delimiter, the quote or a line end, and
 * every value round-trips. With quoting disabled (csv.quote-character '')
 * such a value cannot be written so that it reads back: the encoder
 * refuses the row (RSQL_ERR_SINK naming the column; sinks make that the
 * row's own failure), and by the same rule (csv_unquotable) the decoder
 * refuses a record holding one (a field with a line end, a BYTES field of
 * blanks that is an empty value): what csv reads, csv writes. Values are in
 * their text forms (base/rsql_value.h), read and written by that module.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

/*
** Why the text s[0..n) of a value of type t cannot be written unquoted so that it reads
** back the same (NULL when it can): it would read back as NULL (the null literal; an empty
** non-VARCHAR field without one: an empty BYTES value, say) or split (a delimiter, a quote,
** a line end: a VARCHAR, or any text with an unusual delimiter). The one rule of the
** encoder (which quotes such a value, or refuses it without a quote character) and of the
** decoder without a quote character (which refuses what could not be written back).
*/
static const char *csv_unquotable(const fmt_conf_t *c, rsql_type_t t, const char *s, size_t n)
{
    if (c->csv_null ? (n == c->csv_null_len && memcmp(s, c->csv_null, n) == 0)
                    : (n == 0 && t != RSQL_TYPE_VARCHAR)) {
        return n ? "equals 'csv.null-literal'" : "is empty (it would read back as NULL)";
    }
    for (size_t j = 0; j < n; j++) {
        if (s[j] == c->csv_delim) {
            return "holds the field delimiter";
        } else if (s[j] == '\n' || s[j] == '\r') {
            return "holds a line end";
        } else if (c->csv_quote && s[j] == c->csv_quote) {
            return "holds the quote character";
        }
    }
    return NULL;
}

/*
** Split raw into at most n + 1 fields (spans in dec->fstart/flen/fquoted)
** and return the number found in *count (the real count even when > n).
*/
static rsql_err_t csv_split(rsql_decoder_t *dec, const char *s, size_t len, int *count,
                            rsql_error_t *err)
{
    const fmt_conf_t *c = &dec->c;
    char d = c->csv_delim, q = c->csv_quote;
    size_t i = 0;
    int k = 0;
    if (len > 0 && s[len - 1] == '\r') {
        len--;
    }
    for (;;) {
        size_t start = i, flen;
        bool quoted = false;
        if (q && i < len && s[i] == q) {
            quoted = true;
            size_t open = i++;
            start = i;
            for (;;) {
                const char *e = i < len ? memchr(s + i, q, len - i) : NULL;
                if (!e) {
                    return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                          "unterminated quoted field at byte %zu", open);
                }
                i = (size_t)(e - s) + 1;
                if (i < len && s[i] == q) {
                    i++; /* doubled quote */
                    continue;
                }
                break;
            }
            flen = i - 1 - start;
            if (i < len && s[i] != d) {
                return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                      "unexpected character after a closing quote at byte %zu",
                                      i);
            }
        } else {
            const char *e = i < len ? memchr(s + i, d, len - i) : NULL;
            i = e ? (size_t)(e - s) : len;
            flen = i - start;
        }
        if (k <= c->n) {
            dec->fstart[k] = start;
            dec->flen[k] = flen;
            dec->fquoted[k] = quoted;
        }
        k++;
        if (i >= len) {
            break;
        }
        i++; /* delimiter */
    }
    *count = k;
    return RSQL_OK;
}

/*
** Decode one csv record into row (see the file comment).
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__csv_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err)
{
    const fmt_conf_t *c = &dec->c;
    const char *s = (const char *)raw;
    int count = 0;
    rsql_err_t rc = csv_split(dec, s, len, &count, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (count != c->n) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "line has %d field%s, table has %d column%s", count,
                              count == 1 ? "" : "s", c->n, c->n == 1 ? "" : "s");
    }
    for (int i = 0; i < c->n; i++) {
        const char *f = s + dec->fstart[i];
        size_t n = dec->flen[i];
        rsql_value_t *v = &row[i];
        char q[56];
        if (!dec->fquoted[i] &&
            (c->csv_null ? (n == c->csv_null_len && memcmp(f, c->csv_null, n) == 0)
                         : (n == 0 && c->types[i] != RSQL_TYPE_VARCHAR))) {
            memset(v, 0, sizeof *v);
            v->type = c->types[i];
            v->is_null = true;
            continue;
        }
        if (dec->fquoted[i] && memchr(f, c->csv_quote, n)) {
            /* undouble quotes into scratch */
            rsql_buf_reset(&dec->scratch);
            for (size_t j = 0; j < n; j++) {
                rsql_buf_putc(&dec->scratch, f[j]);
                if (f[j] == c->csv_quote) {
                    j++;
                }
            }
            if (dec->scratch.oom) {
                return rsql_error_nomem(err);
            }
            f = dec->scratch.data;
            n = dec->scratch.len;
        }
        if (rsql_value_parse_as(c->types[i], c->descs[i], f, n, arena, v, NULL) != RSQL_OK) {
            /* again, for the reason (the hot path does not build messages) */
            rsql_error_t why;
            rsql_error_clear(&why);
            rsql_value_parse_as(c->types[i], c->descs[i], f, n, arena, v, &why);
            if (why.code == RSQL_ERR_NOMEM) {
                return rsql_error_nomem(err);
            }
            rsql_fmt__quote_for_msg(f, n, q, sizeof q);
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                  "field '%s': expected %s, got %s (%s)", c->names[i],
                                  rsql_type_name(c->types[i]), q, why.msg);
        }
        if (!c->csv_quote) { /* the value as the encoder would write it */
            const char *w = f;
            size_t wn = n;
            if (c->types[i] != RSQL_TYPE_VARCHAR) {
                rsql_buf_reset(&dec->scratch);
                rsql_value_format(v, &dec->scratch);
                if (dec->scratch.oom) {
                    return rsql_error_nomem(err);
                }
                w = dec->scratch.data ? dec->scratch.data : "";
                wn = dec->scratch.len;
            }
            const char *why = csv_unquotable(c, c->types[i], w, wn);
            if (why) {
                return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                      "field '%s': its value %s, which csv cannot write back "
                                      "without quoting ('csv.quote-character' is empty)",
                                      c->names[i], why);
            }
        }
    }
    return RSQL_OK;
}

/*
** Append row as one csv record (no line end).
** @locality the encoder's thread
*/
rsql_err_t rsql_fmt__csv_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                rsql_error_t *err)
{
    const fmt_conf_t *c = &enc->c;
    char d = c->csv_delim, q = c->csv_quote;
    for (int i = 0; i < c->n; i++) {
        const rsql_value_t *v = &row[i];
        if (i) {
            rsql_buf_putc(out, d);
        }
        if (v->is_null || v->type == RSQL_TYPE_NULL) {
            if (c->csv_null) {
                rsql_buf_append(out, c->csv_null, c->csv_null_len);
            }
            continue;
        }
        const char *s;
        size_t n;
        if (v->type == RSQL_TYPE_VARCHAR) {
            s = v->v.s.p;
            n = v->v.s.len;
        } else {
            rsql_buf_reset(&enc->scratch);
            rsql_value_format(v, &enc->scratch);
            s = rsql_buf_str(&enc->scratch);
            n = enc->scratch.len;
        }
        const char *why = csv_unquotable(c, v->type, s, n);
        if (!why) {
            rsql_buf_append(out, s, n);
            continue;
        }
        if (!q) {
            return rsql_error_set(err, RSQL_ERR_SINK, RSQL_NOPOS,
                                  "csv: the value of column '%s' %s and cannot be written "
                                  "without quoting ('csv.quote-character' is empty), so the row "
                                  "is refused",
                                  c->names[i], why);
        }
        rsql_buf_putc(out, q);
        size_t run = 0;
        for (size_t j = 0; j < n; j++) {
            if (s[j] == q) {
                rsql_buf_append(out, s + run, j + 1 - run);
                rsql_buf_putc(out, q);
                run = j + 1;
            }
        }
        rsql_buf_append(out, s + run, n - run);
        rsql_buf_putc(out, q);
    }
    return RSQL_OK;
}
