/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The print sink: each row on its own line, to standard output (or
 * standard error with 'standard-error'), prefixed "<print-identifier>> "
 * when that is set. With 'format' (json, csv) a row is printed encoded;
 * else in Flink's print form: +I[1, abc, null] (values in their canonical
 * text, base/rsql_value.h: timestamps "YYYY-MM-DD HH:MM:SS.mmm", bytes
 * base64; NULL as null). A changelog (rsql_sink_ctx_t.changelog) shows each
 * row's kind as Flink does: +I[...], -U[...], +U[...], -D[...]; encoded by a
 * changelog format, a row carries its kind in the format's envelope, and by
 * an append-only one it is printed after its kind and a space ("-D {...}").
 * One fwrite and one fflush per batch, then the
 * delivery (all rows written). A live status line drawn on the same terminal
 * is cleared before the rows and drawn again after them (base/rsql_term.h).
 *
 * Threads: everything on the write thread.
 */
#include "config.h"
#include "base/rsql_term.h"
#include "base/rsql_value.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/stdio/print_conf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct rsql_sink {
    FILE *out;
    char *ident;
    int n;
    rsql_encoder_t *enc; /* NULL: the readable form */
    bool changelog;      /* show each row's kind */
    bool enc_changes;    /* enc is a changelog format: it writes the kind */
    rsql_buf_t buf;
    rsql_sink_result_t *results;
    int results_cap;
    rsql_delivery_cb deliver;
    void *deliver_opaque;
};

static void pr_close(rsql_sink_t *k)
{
    if (!k) {
        return;
    }
    if (k->out) {
        fflush(k->out);
    }
    rsql_encoder_destroy(k->enc);
    rsql_buf_deinit(&k->buf);
    rsql_free(k->results);
    rsql_free(k->ident);
    rsql_free(k);
}

static rsql_err_t pr_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    rsql_sink_t *k = rsql_calloc(1, sizeof *k);
    const rsql_print_conf_t *conf = ctx->conf;
    const char *format = conf && conf->format >= 0 ? rsql_print_formats[conf->format] : NULL;
    const char *ident = conf ? conf->identifier : NULL;
    if (!k) {
        return rsql_error_nomem(err);
    }
    rsql_buf_init(&k->buf);
    k->n = ctx->n_columns;
    k->out = conf && conf->standard_error ? stderr : stdout;
    k->deliver = ctx->deliver;
    k->deliver_opaque = ctx->deliver_opaque;
    k->changelog = ctx->changelog;
    k->enc_changes = format && rsql_format_changelog(format);
    if (ident && *ident && !(k->ident = rsql_strdup(ident))) {
        pr_close(k);
        return rsql_error_nomem(err);
    }
    if (format && *format) {
        k->enc = rsql_encoder_new(format, ctx->format_conf, ctx->n_columns, ctx->column_names,
                                  ctx->column_types, err);
        if (!k->enc) {
            pr_close(k);
            return err ? err->code : RSQL_ERR_INTERNAL;
        }
    }
    *out = k;
    return RSQL_OK;
}

static rsql_err_t pr_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                           rsql_error_t *err)
{
    rsql_err_t rc = rsql_io_results_reserve(&k->results, &k->results_cap, n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    memset(k->results, 0, (size_t)n * sizeof *k->results);
    rsql_buf_reset(&k->buf);
    for (int i = 0; i < n; i++) {
        size_t mark = k->buf.len;
        if (k->ident) {
            rsql_buf_puts(&k->buf, k->ident);
            rsql_buf_puts(&k->buf, "> ");
        }
        int kind = k->changelog ? rows[i].kind : RSQL_ROW_INSERT;
        if (k->enc) {
            if (k->changelog && !k->enc_changes) {
                rsql_buf_puts(&k->buf, rsql_rowkind_short(kind));
                rsql_buf_putc(&k->buf, ' ');
                kind = RSQL_ROW_INSERT; /* the format writes the row, the kind is before it */
            }
            /* a row the format refuses fails on its own; the others are printed */
            rc = rsql_io_encode_change(k->enc, rows[i].values, kind, &k->buf, mark,
                                       &k->results[i], err);
            if (rc == RSQL_ERR_NOMEM) {
                return rc;
            }
            if (rc != RSQL_OK) {
                continue;
            }
        } else {
            rsql_buf_puts(&k->buf, rsql_rowkind_short(kind));
            rsql_buf_putc(&k->buf, '[');
            for (int c = 0; c < k->n; c++) {
                const rsql_value_t *v = &rows[i].values[c];
                if (c) {
                    rsql_buf_puts(&k->buf, ", ");
                }
                if (v->is_null || v->type == RSQL_TYPE_NULL) {
                    rsql_buf_puts(&k->buf, "null");
                } else {
                    rsql_value_format(v, &k->buf);
                }
            }
            rsql_buf_putc(&k->buf, ']');
        }
        rsql_buf_putc(&k->buf, '\n');
    }
    if (k->buf.oom) {
        return rsql_error_nomem(err);
    }
    /* a live status line on the same terminal is cleared first, so no row runs into it */
    int e = 0;
    bool failed = false;
    if (k->buf.len > 0) {
        rsql_term_write_begin(k->out);
        errno = 0;
        failed = fwrite(k->buf.data, 1, k->buf.len, k->out) != k->buf.len || fflush(k->out) != 0;
        e = errno;
        rsql_term_write_end();
    }
    if (failed) {
        clearerr(k->out);
        return rsql_error_set(err, e ? rsql_err_from_errno(e) : RSQL_ERR_IO, RSQL_NOPOS,
                              "cannot write to %s%s%s",
                              k->out == stderr ? "standard error" : "standard output",
                              e ? ": " : "", e ? strerror(e) : "");
    }
    if (k->deliver) {
        k->deliver(k->deliver_opaque, batch_id, n, k->results);
    }
    return RSQL_OK;
}

static rsql_err_t pr_flush(rsql_sink_t *k, int timeout_ms, rsql_error_t *err)
{
    (void)timeout_ms;
    (void)err;
    fflush(k->out);
    return RSQL_OK;
}

/*
** The print sink vtable (rsql_io.h). Static.
*/
const rsql_sink_ops_t rsql_print_sink_ops = {
    .open = pr_open,
    .write = pr_write,
    .flush = pr_flush,
    .stored_positions = NULL,
    .close = pr_close,
};
