/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The filesystem sink: appends one encoded row per line (format json by
 * default, csv or raw), creating the file (mode 0644) when missing. Each row
 * is encoded with its kind (rsql_encode_change): a changelog format writes
 * it in its envelope, an append-only one refuses any but +I (that row fails
 * on its own, as a value the format refuses). With
 * csv.header, a batch written to an empty file starts with the header line
 * (the column names), cut back with the batch when its write fails. Each
 * batch is encoded into one buffer and written with write(2) (O_APPEND).
 * With sink.sync (the default) a batch's delivery is reported only at the
 * flush whose fdatasync covers it, so no source position is committed and
 * no message acked before its rows are on disk; a failed fdatasync fails
 * the rows it was to cover (their results carry its error) and the flush.
 * Without sink.sync the delivery is reported right after write(2), and
 * flush does nothing. A failed write is undone (the file is cut
 * back to its length before the batch) and returned, so no half line is
 * left and no callback comes. Its code says what errno meant
 * (rsql_err_from_errno): a full disk (ENOSPC), a read-only file or a
 * missing directory is permanent and fails the run at once; EAGAIN, EBUSY
 * or a timeout is transient and retried by the runtime.
 *
 * Threads: open, write, flush and close on the write thread; the delivery
 * callback runs on it too, inside flush (or write without sink.sync).
 */
#include "config.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/file/file_conf.h"
#include "base/rsql_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int (*rsql_file_fdatasync)(int fd) = fdatasync;

/* A batch written, not yet synced (sink.sync): its id, rows and the rows the format refused. */
typedef struct unsynced {
    uint64_t batch_id;
    int n;
    int n_refused;
    int *refused_idx;
    rsql_sink_result_t *refused; /* their results */
} unsynced_t;

struct rsql_sink {
    char *path;
    int fd;
    bool sync;
    rsql_encoder_t *enc;
    rsql_buf_t header; /* csv.header: the header line, written first into an empty file */
    rsql_buf_t buf;
    rsql_sink_result_t *results;
    int results_cap;
    rsql_delivery_cb deliver;
    void *deliver_opaque;
    unsynced_t *unsynced; /* written since the last fdatasync, in order */
    int n_unsynced, cap_unsynced;
};

static void unsynced_free(unsynced_t *u)
{
    rsql_free(u->refused_idx);
    rsql_free(u->refused);
}

static void fk_close(rsql_sink_t *k)
{
    if (!k) {
        return;
    }
    if (k->fd >= 0) {
        close(k->fd);
    }
    for (int i = 0; i < k->n_unsynced; i++) { /* never flushed: never reported */
        unsynced_free(&k->unsynced[i]);
    }
    rsql_free(k->unsynced);
    rsql_encoder_destroy(k->enc);
    rsql_buf_deinit(&k->buf);
    rsql_buf_deinit(&k->header);
    rsql_free(k->results);
    rsql_free(k->path);
    rsql_free(k);
}

/*
** csv.header: the physical column names as one csv record (quoted as the format quotes a
** VARCHAR value) and its line end, into k->header.
*/
static rsql_err_t make_header(rsql_sink_t *k, const rsql_sink_ctx_t *ctx, const char *format,
                              rsql_error_t *err)
{
    int n = ctx->n_columns;
    rsql_type_t *types = rsql_calloc((size_t)n + 1, sizeof *types);
    rsql_value_t *row = rsql_calloc((size_t)n + 1, sizeof *row);
    rsql_encoder_t *enc = NULL;
    rsql_err_t rc = RSQL_OK;
    if (!types || !row) {
        rc = rsql_error_nomem(err);
    }
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        types[i] = RSQL_TYPE_VARCHAR;
        row[i].type = RSQL_TYPE_VARCHAR;
        row[i].v.s.p = ctx->column_names[i];
        row[i].v.s.len = strlen(ctx->column_names[i]);
    }
    if (rc == RSQL_OK) {
        enc = rsql_encoder_new(format, ctx->format_conf, n, ctx->column_names, types, err);
        rc = enc ? rsql_encode(enc, row, &k->header, err) : err->code;
    }
    if (rc == RSQL_OK) {
        rsql_buf_putc(&k->header, '\n');
        rc = k->header.oom ? rsql_error_nomem(err) : RSQL_OK;
    }
    rsql_encoder_destroy(enc);
    rsql_free(types);
    rsql_free(row);
    return rc;
}

static rsql_err_t fk_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    const rsql_file_conf_t *conf = ctx->conf;
    const char *path = conf ? conf->path : NULL;
    const char *format = conf ? rsql_file_formats[conf->format] : NULL;
    rsql_sink_t *k;
    if (!path || !*path) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "filesystem sink: option 'path' is required");
    }
    k = rsql_calloc(1, sizeof *k);
    if (!k) {
        return rsql_error_nomem(err);
    }
    k->fd = -1;
    rsql_buf_init(&k->buf);
    rsql_buf_init(&k->header);
    k->deliver = ctx->deliver;
    k->deliver_opaque = ctx->deliver_opaque;
    k->sync = conf->sync;
    k->path = rsql_strdup(path);
    if (!k->path) {
        fk_close(k);
        return rsql_error_nomem(err);
    }
    k->enc = rsql_encoder_new(format, ctx->format_conf, ctx->n_columns, ctx->column_names,
                              ctx->column_types, err);
    if (!k->enc) {
        fk_close(k);
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    if (conf->header && make_header(k, ctx, format, err) != RSQL_OK) {
        fk_close(k);
        return err->code;
    }
    rsql_path_mkdir_parents(path); /* a failure shows in open() below */
    k->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (k->fd < 0) {
        int e = errno;
        fk_close(k);
        return rsql_error_set(err, rsql_err_from_errno(e), RSQL_NOPOS, "cannot open %s: %s", path,
                              strerror(e));
    }
    *out = k;
    return RSQL_OK;
}

/*
** Remember batch_id (n rows, their results in k->results) as written and not yet synced;
** *out is its entry, the last. Nothing is kept on failure (out of memory).
*/
static rsql_err_t remember(rsql_sink_t *k, uint64_t batch_id, int n, unsynced_t **out,
                           rsql_error_t *err)
{
    if (k->n_unsynced == k->cap_unsynced) {
        int cap = k->cap_unsynced ? 2 * k->cap_unsynced : 8;
        unsynced_t *nu = rsql_realloc(k->unsynced, (size_t)cap * sizeof *nu);
        if (!nu) {
            return rsql_error_nomem(err);
        }
        k->unsynced = nu;
        k->cap_unsynced = cap;
    }
    unsynced_t *u = &k->unsynced[k->n_unsynced];
    memset(u, 0, sizeof *u);
    u->batch_id = batch_id;
    u->n = n;
    for (int i = 0; i < n; i++) {
        u->n_refused += k->results[i].code != RSQL_OK;
    }
    if (u->n_refused > 0) {
        u->refused_idx = rsql_malloc((size_t)u->n_refused * sizeof *u->refused_idx);
        u->refused = rsql_malloc((size_t)u->n_refused * sizeof *u->refused);
        if (!u->refused_idx || !u->refused) {
            unsynced_free(u);
            return rsql_error_nomem(err);
        }
        for (int i = 0, j = 0; i < n; i++) {
            if (k->results[i].code != RSQL_OK) {
                u->refused_idx[j] = i;
                u->refused[j++] = k->results[i];
            }
        }
    }
    k->n_unsynced++;
    *out = u;
    return RSQL_OK;
}

static rsql_err_t fk_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                           rsql_error_t *err)
{
    rsql_err_t rc = rsql_io_results_reserve(&k->results, &k->results_cap, n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rsql_buf_reset(&k->buf);
    struct stat st;
    off_t before = fstat(k->fd, &st) == 0 ? st.st_size : -1;
    if (k->header.len > 0 && before == 0) { /* a file started: its header first */
        rsql_buf_append(&k->buf, k->header.data, k->header.len);
    }
    for (int i = 0; i < n; i++) {
        /* written, nothing to say: the texts are read up to their NUL (not 352 bytes a row
           zeroed); a refused row's result is set in full by rsql_io_encode_change */
        k->results[i].code = RSQL_OK;
        k->results[i].meta[0] = '\0';
        k->results[i].msg[0] = '\0';
        /* a row the format refuses fails on its own; the others are written */
        rc = rsql_io_encode_change(k->enc, rows[i].values, rows[i].kind, &k->buf, k->buf.len,
                                   &k->results[i], err);
        if (rc == RSQL_ERR_NOMEM) {
            return rc;
        }
        if (rc == RSQL_OK) {
            rsql_buf_putc(&k->buf, '\n');
        }
    }
    if (k->buf.oom) {
        return rsql_error_nomem(err);
    }
    unsynced_t *u = NULL;
    if (k->sync && k->buf.len > 0) {
        /* room to remember the batch until the fdatasync that covers it, before writing */
        if ((rc = remember(k, batch_id, n, &u, err)) != RSQL_OK) {
            return rc;
        }
    }
    size_t done = 0;
    while (done < k->buf.len) {
        ssize_t w = write(k->fd, k->buf.data + done, k->buf.len - done);
        if (w < 0) {
            int e = errno;
            if (e == EINTR) {
                continue;
            }
            if (done > 0 && before >= 0 && ftruncate(k->fd, before) != 0) {
                /* the partial line stays; the retry appends a whole one after it */
            }
            if (u) {
                unsynced_free(u);
                k->n_unsynced--;
            }
            return rsql_error_set(err, rsql_err_from_errno(e), RSQL_NOPOS, "cannot write %s: %s",
                                  k->path, strerror(e));
        }
        done += (size_t)w;
    }
    if (!u && k->deliver) {
        /* not synced (sink.sync false), or nothing written to sync */
        k->deliver(k->deliver_opaque, batch_id, n, k->results);
    }
    return RSQL_OK;
}

static rsql_err_t fk_flush(rsql_sink_t *k, int timeout_ms, rsql_error_t *err)
{
    (void)timeout_ms;
    if (!k->sync) {
        return RSQL_OK;
    }
    rsql_err_t rc = RSQL_OK;
    if (rsql_file_fdatasync(k->fd) != 0) {
        int e = errno;
        rc = rsql_error_set(err, rsql_err_from_errno(e), RSQL_NOPOS, "cannot sync %s: %s",
                            k->path, strerror(e));
    }
    /* report what this fdatasync covered: written, or failed with its error */
    for (int b = 0; b < k->n_unsynced; b++) {
        unsynced_t *u = &k->unsynced[b];
        /* k->results has room for u->n: its write reserved it */
        for (int i = 0; i < u->n; i++) {
            rsql_sink_result_t *r = &k->results[i];
            r->code = rc;
            r->meta[0] = '\0';
            r->msg[0] = '\0';
            if (rc != RSQL_OK) {
                snprintf(r->msg, sizeof r->msg, "%.*s", (int)sizeof r->msg - 1, err->msg);
            }
        }
        for (int j = 0; j < u->n_refused; j++) {
            k->results[u->refused_idx[j]] = u->refused[j];
        }
        if (k->deliver) {
            k->deliver(k->deliver_opaque, u->batch_id, u->n, k->results);
        }
        unsynced_free(u);
    }
    k->n_unsynced = 0;
    return rc;
}

/*
** Rows the sink lets the runtime gather before a flush syncs them (sink.sync): an fdatasync
** costs a journal commit whatever it covers, so one per 4096 rows of ~100 bytes rather than
** per pipeline.queue-capacity (1024) takes most of the kernel's time off a file-to-file job
** (bench/README.md, "json -> json"); the flushes every state.flush-interval and when idle
** still bound how long a row waits. Without sink.sync a row is reported once written.
*/
#define FILE_SYNC_ROWS 4096

static int fk_gather_rows(const void *conf)
{
    const rsql_file_conf_t *c = conf;
    return c && c->sync ? FILE_SYNC_ROWS : 0;
}

/*
** The filesystem sink vtable (rsql_io.h). Static.
*/
const rsql_sink_ops_t rsql_file_sink_ops = {
    .open = fk_open,
    .write = fk_write,
    .flush = fk_flush,
    .stored_positions = NULL,
    .gather_rows = fk_gather_rows,
    .close = fk_close,
};
