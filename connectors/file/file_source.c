/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The filesystem source: a file of lines (JSON lines, CSV records or raw
 * lines), read with a fixed buffer that grows only for a long line, up to
 * 16 MiB. A longer line is still one record, with its error set
 * (rsql_record_t.error, RSQL_ERR_TOO_LARGE "line longer than 16 MiB ...")
 * and its first 64 KiB as raw form: the source skips the rest of it to its
 * line end (memory stays bounded), the runtime dead-letters it or stops at
 * it, and the lines around it are delivered.
 *
 * One partition, named by the path as given. A record's offset is the byte
 * position after its line end, so a restart resumes at the next line; its
 * ident is "file:<path>@<byte offset of the line start>". A final line
 * without '\n' counts when the read is bounded (at EOF); with scan.follow
 * the source waits for its end and for appended data, checking every
 * scan.poll-interval (sleeping on a condition variable: wakeup ends the
 * wait; never spinning).
 *
 * METADATA columns (file_opts.c): path, offset (the line's first byte) and line (its
 * number, from 1) are set only when the statement reads them; line numbers after a resume
 * come from counting the line ends before the resume point once, at open. Every record
 * carries its line number for errors (rsql_record_t.line: "file:in.jsonl@8 line 2"), except
 * after a resume past FILE_COUNT_MAX bytes when the statement does not read the line (then
 * the counting is not worth it, and errors name the byte offset only).
 *
 * A trailing "\r" is dropped (CRLF files). json: blank lines are skipped.
 * csv: a line end inside a quoted field continues the record, so quoted
 * fields may hold line ends (as the csv encoder writes them).
 * csv.header: the record at byte 0 is the header: not emitted, its fields
 * counted against the physical columns (a mismatch fails the poll); it
 * counts in line and offset, and a resume (always after a row) is past it.
 *
 * Threads: poll on the poll thread, wakeup from any thread; offsets are
 * worker-managed (no commit_record).
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/file/file_conf.h"
#include "connectors/formats/rsql_format.h"
#include "base/rsql_mem_int.h"
#include "base/rsql_value.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_BUF_INIT (64 * 1024)
#define FILE_MAX_LINE (16 * 1024 * 1024)
#define FILE_LONG_KEEP FILE_BUF_INIT /* bytes of an over-long line kept as its raw form */
#define FILE_COUNT_MAX (256 * 1024 * 1024) /* resume points up to here count their lines */
#define FILE_SHARE_MAX (1024 * 1024) /* a read buffer up to this size is shared with records */

/*
** The read buffer. A record's line is not copied: its raw bytes are the line in this buffer
** (its line end overwritten by the NUL a record's bytes end with), so the buffer is counted:
** one reference for the source, one for each batch arena that holds lines of it, dropped
** when the batch is freed (rsql_arena_on_free, on whatever thread frees it). The source
** writes over bytes it has handed on (compacting, dropping an over-long line's part) only
** while it holds the only reference; else it moves to a new buffer, copying the part line.
** A line that ends at the end of the data (the last one, without its line end) and the lines
** of a buffer grown past FILE_SHARE_MAX (long lines) are copied as before.
*/
typedef struct fs_chunk {
    atomic_int refs;
    _Alignas(16) uint8_t data[];
} fs_chunk_t;

struct rsql_source {
    char *path;
    char *ident_prefix; /* "file:<path>", every record's ident up to its "@<offset>" */
    size_t prefix_len;
    int fd;
    bool follow, skip_blank;
    char quote;         /* csv: records may span lines inside quotes; 0 otherwise */
    int64_t poll_ms;
    fs_chunk_t *chunk; /* buf is its data */
    rsql_arena_t *pin_arena; /* the batch arena that holds a reference to pin_chunk (this poll) */
    fs_chunk_t *pin_chunk;
    uint8_t *buf;
    size_t cap, start, end;
    size_t scan;        /* bytes of the current record already scanned (from start) */
    bool in_quote;      /* csv: parity at scan */
    int64_t buf_pos;    /* file offset of buf[0] */
    atomic_int_least64_t shown_next; /* the offset of the next record to hand on, for describe */
    int64_t resumed_at;
    /* an over-long line being skipped to its end: its start and first bytes */
    bool skipping;
    int64_t long_off;
    uint8_t *long_head; /* FILE_LONG_KEEP bytes, allocated on the first long line */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool woken;
    /* METADATA columns the statement reads (column index, -1 = not read) */
    int n_columns, col_path, col_off, col_line;
    bool has_meta; /* any of them is read (else no set_meta call per line) */
    rsql_type_t type_path, type_off, type_line;
    int64_t line_no;   /* line ends before buf[start] in the file (when lines_known) */
    bool lines_known;  /* line_no counts from the file's start (false: after a long resume) */
    int64_t long_line; /* line_no at the start of the over-long line being skipped */
    /* csv.header: the record at byte 0 is the header, its fields counted by hdr_dec (made
       for the physical columns, all VARCHAR) and not emitted; NULL when there is none */
    rsql_decoder_t *hdr_dec;
    int hdr_n; /* the physical columns */
};

static fs_chunk_t *chunk_new(size_t cap)
{
    fs_chunk_t *c = rsql_malloc(sizeof *c + cap);
    if (c) {
        atomic_init(&c->refs, 1);
    }
    return c;
}

/* Drop a reference to chunk arg; the last one frees it. @locality any thread */
static void chunk_unref(void *arg)
{
    fs_chunk_t *c = arg;
    if (c && atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1) {
        rsql_free(c);
    }
}

/* Whether a batch still holds lines of c (the source may not write over them). */
static bool chunk_shared(fs_chunk_t *c)
{
    return atomic_load_explicit(&c->refs, memory_order_acquire) > 1;
}

/*
** Move to a new buffer of ncap bytes holding buf[from, from + n) at its start, and drop the
** source's reference to the old one (the batches that hold lines of it keep it).
*/
static rsql_err_t chunk_move(rsql_source_t *s, size_t ncap, size_t from, size_t n,
                             rsql_error_t *err)
{
    fs_chunk_t *c = chunk_new(ncap);
    if (!c) {
        return rsql_error_nomem(err);
    }
    if (n) {
        memcpy(c->data, s->buf + from, n);
    }
    chunk_unref(s->chunk);
    s->chunk = c;
    s->buf = c->data;
    s->cap = ncap;
    return RSQL_OK;
}

/* A failed system call: the code says what errno e means (a missing file is permanent). */
static rsql_err_t io_error(rsql_error_t *err, const char *what, const char *path, int e)
{
    return rsql_error_set(err, rsql_err_from_errno(e), RSQL_NOPOS, "%s %s: %s", what, path,
                          strerror(e));
}

/* Line ends ('\n') in p[0..n). */
static int64_t count_nl(const uint8_t *p, size_t n)
{
    int64_t c = 0;
    for (const uint8_t *e; n > 0 && (e = memchr(p, '\n', n)); c++) {
        n -= (size_t)(e + 1 - p);
        p = e + 1;
    }
    return c;
}

/* The columns of ctx that read metadata key key (the last one), or -1. */
static int meta_col(const rsql_source_ctx_t *ctx, const char *key, rsql_type_t *type)
{
    int c = -1;
    for (int i = 0; ctx->column_meta && i < ctx->n_columns; i++) {
        if (ctx->column_meta[i] && strcmp(ctx->column_meta[i], key) == 0) {
            c = i;
            *type = ctx->column_types[i];
        }
    }
    return c;
}

/* Line ends in the first off bytes of fd (read with pread: the file position stays). */
static rsql_err_t count_lines_before(rsql_source_t *s, int64_t off, rsql_error_t *err)
{
    uint8_t chunk[64 * 1024];
    int64_t at = 0;
    while (at < off) {
        size_t want = off - at < (int64_t)sizeof chunk ? (size_t)(off - at) : sizeof chunk;
        ssize_t r = pread(s->fd, chunk, want, (off_t)at);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return io_error(err, "cannot read", s->path, r < 0 ? errno : EIO);
        }
        s->line_no += count_nl(chunk, (size_t)r);
        at += r;
    }
    return RSQL_OK;
}

/* A value of column type t (BIGINT, or DOUBLE it widens to) holding n. */
static rsql_value_t meta_int(rsql_type_t t, int64_t n)
{
    rsql_value_t v = {.type = t, .is_null = false};
    if (t == RSQL_TYPE_DOUBLE) {
        v.v.d = (double)n;
    } else {
        v.v.i = n;
    }
    return v;
}

/* r->meta for the line that starts at file offset off, line line (from 1). */
static bool set_meta(rsql_source_t *s, rsql_batch_t *batch, rsql_record_t *r, int64_t off,
                     int64_t line)
{
    if (s->col_path < 0 && s->col_off < 0 && s->col_line < 0) {
        return true;
    }
    rsql_value_t *m = rsql_arena_alloc(batch->arena, sizeof(*m) * (size_t)s->n_columns);
    if (!m) {
        return false;
    }
    memset(m, 0, sizeof(*m) * (size_t)s->n_columns);
    if (s->col_path >= 0) {
        m[s->col_path] = (rsql_value_t){.type = s->type_path, .is_null = false};
        m[s->col_path].v.s.p = s->path;
        m[s->col_path].v.s.len = strlen(s->path);
    }
    if (s->col_off >= 0) {
        m[s->col_off] = meta_int(s->type_off, off);
    }
    if (s->col_line >= 0) {
        m[s->col_line] = meta_int(s->type_line, line);
    }
    r->meta = m;
    return true;
}


static void fs_free(rsql_source_t *s)
{
    if (s->fd >= 0) {
        close(s->fd);
    }
    chunk_unref(s->chunk);
    rsql_free(s->long_head);
    rsql_decoder_destroy(s->hdr_dec);
    rsql_free(s->ident_prefix);
    rsql_free(s->path);
    rsql_free(s);
}

/* The decoder that counts the header's fields: the physical columns, read as VARCHAR. */
static rsql_err_t open_header(rsql_source_t *s, const rsql_source_ctx_t *ctx, rsql_error_t *err)
{
    const char **names = rsql_calloc((size_t)ctx->n_columns + 1, sizeof *names);
    rsql_type_t *types = rsql_calloc((size_t)ctx->n_columns + 1, sizeof *types);
    int n = 0;
    for (int i = 0; names && types && i < ctx->n_columns; i++) {
        if (!ctx->column_meta || !ctx->column_meta[i]) {
            names[n] = ctx->column_names[i];
            types[n++] = RSQL_TYPE_VARCHAR;
        }
    }
    if (names && types) {
        s->hdr_dec = rsql_decoder_new("csv", ctx->format_conf, n, names, types, err);
    } else {
        rsql_error_nomem(err);
    }
    s->hdr_n = n;
    rsql_free(names);
    rsql_free(types);
    return s->hdr_dec ? RSQL_OK : err->code;
}

/*
** The header p[0..len): its fields must be as many as the physical columns (names are not
** compared; fields go to columns by position). A mismatch fails the read: the rows after it
** would land in the wrong columns.
*/
static rsql_err_t check_header(rsql_source_t *s, const uint8_t *p, size_t len, rsql_error_t *err)
{
    rsql_arena_t *arena = rsql_arena_new();
    rsql_value_t *row = rsql_calloc((size_t)s->hdr_n + 1, sizeof *row);
    rsql_error_t local;
    rsql_error_clear(&local);
    rsql_err_t rc = !arena || !row ? rsql_error_nomem(&local)
                                   : rsql_decode(s->hdr_dec, p, len, arena, row, &local);
    rsql_free(row);
    rsql_arena_destroy(arena);
    if (rc == RSQL_OK) {
        return RSQL_OK;
    }
    return rsql_error_set(err, rc == RSQL_ERR_NOMEM ? rc : RSQL_ERR_DECODE, RSQL_NOPOS,
                          "%s line 1 (the header, 'csv.header' = 'true'): %s",
                          s->ident_prefix, local.msg);
}

static rsql_err_t fs_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_file_conf_t *conf = ctx->conf;
    const char *path = conf ? conf->path : NULL;
    const char *format = conf ? rsql_file_formats[conf->format] : NULL;
    rsql_source_t *s;
    if (!path || !*path) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "filesystem source: option 'path' is required");
    }
    s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->fd = -1;
    s->path = rsql_strdup(path);
    s->prefix_len = 5 + strlen(path);
    s->ident_prefix = rsql_malloc(s->prefix_len + 1);
    if (s->ident_prefix) {
        memcpy(s->ident_prefix, "file:", 5);
        memcpy(s->ident_prefix + 5, path, s->prefix_len - 5 + 1);
    }
    s->cap = FILE_BUF_INIT;
    s->chunk = chunk_new(s->cap);
    s->buf = s->chunk ? s->chunk->data : NULL;
    if (!s->path || !s->ident_prefix || !s->buf) {
        fs_free(s);
        return rsql_error_nomem(err);
    }
    s->follow = conf->follow;
    s->poll_ms = conf->poll_ms;
    s->skip_blank = strcasecmp(format, "json") == 0 || rsql_format_changelog(format);
    if (strcasecmp(format, "csv") == 0) {
        const rsql_csv_conf_t *csv = ctx->format_conf;
        s->quote = csv ? csv->quote : '"';
        if (conf->header && open_header(s, ctx, err) != RSQL_OK) {
            fs_free(s);
            return err->code;
        }
    }
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        int e = errno;
        fs_free(s);
        return io_error(err, "cannot open", path, e);
    }
    for (int i = 0; i < ctx->n_resume; i++) {
        if (strcmp(ctx->resume_partitions[i], path) == 0 && ctx->resume_offsets[i] > 0) {
            s->buf_pos = ctx->resume_offsets[i];
        }
    }
    if (s->buf_pos > 0 && lseek(s->fd, (off_t)s->buf_pos, SEEK_SET) < 0) {
        int e = errno;
        fs_free(s);
        return io_error(err, "cannot seek in", path, e);
    }
    s->resumed_at = s->buf_pos;
    atomic_init(&s->shown_next, s->buf_pos);
    s->n_columns = ctx->n_columns;
    s->col_path = meta_col(ctx, "path", &s->type_path);
    s->col_off = meta_col(ctx, "offset", &s->type_off);
    s->col_line = meta_col(ctx, "line", &s->type_line);
    s->has_meta = s->col_path >= 0 || s->col_off >= 0 || s->col_line >= 0;
    rsql_err_t rc;
    s->lines_known = s->col_line >= 0 || s->buf_pos <= FILE_COUNT_MAX;
    if (s->lines_known && (rc = count_lines_before(s, s->buf_pos, err)) != RSQL_OK) {
        fs_free(s);
        return rc;
    }
    pthread_mutex_init(&s->mu, NULL);
    rsql_cond_init_monotonic(&s->cv);
    *out = s;
    return RSQL_OK;
}

/* Find the end ('\n') of the record at s->start; true with *nl its index. */
static bool find_record(rsql_source_t *s, size_t *nl)
{
    size_t i = s->start + s->scan;
    if (!s->quote) {
        const uint8_t *e = i < s->end ? memchr(s->buf + i, '\n', s->end - i) : NULL;
        if (e) {
            *nl = (size_t)(e - s->buf);
            return true;
        }
        s->scan = s->end - s->start;
        return false;
    }
    for (; i < s->end; i++) {
        uint8_t c = s->buf[i];
        if (c == (uint8_t)s->quote) {
            s->in_quote = !s->in_quote;
        } else if (c == '\n' && !s->in_quote) {
            *nl = i;
            return true;
        }
    }
    s->scan = s->end - s->start;
    return false;
}

/* "@<off>" into buf (>= 22 bytes) without formatted printing (once per row); its length. */
static size_t ident_at(char *buf, int64_t off)
{
    buf[0] = '@';
    return 1 + rsql_value_format_int(off < 0 ? 0 : off, buf + 1); /* a byte offset */
}

/* Emit buf[s->start, line_end) as a record whose next position is next (a buffer index). */
static rsql_err_t emit(rsql_source_t *s, rsql_batch_t *batch, size_t line_end, size_t next,
                       bool *added, rsql_error_t *err)
{
    uint8_t *p = s->buf + s->start;
    size_t len = line_end - s->start;
    int64_t line_off = s->buf_pos + (int64_t)s->start;
    int64_t line = s->lines_known ? s->line_no + 1 : 0;
    *added = false;
    if (s->lines_known) { /* a record of a line holds one line end (or none, the last) */
        s->line_no += s->quote ? count_nl(p, next - s->start) : next > line_end;
    }
    s->start = next;
    s->scan = 0;
    s->in_quote = false;
    if (len > 0 && p[len - 1] == '\r') {
        len--;
    }
    if (s->hdr_dec && line_off == 0) { /* the header: counted, never a row */
        return check_header(s, p, len, err);
    }
    if (s->skip_blank) {
        size_t k = 0;
        while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r')) {
            k++;
        }
        if (k == len) {
            return RSQL_OK;
        }
    }
    if (batch->n >= batch->cap) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "batch full");
    }
    /* the line, NUL-terminated as rsql_batch_copy makes it: in the read buffer (its line end,
       or the '\r' before it, becomes the NUL) while the batch holds a reference to it, else
       a copy in the batch; then its ident, the prefix made at open and "@<offset>" */
    bool share = line_end < s->end && s->cap <= FILE_SHARE_MAX;
    if (share && (s->pin_arena != batch->arena || s->pin_chunk != s->chunk)) {
        atomic_fetch_add_explicit(&s->chunk->refs, 1, memory_order_relaxed);
        if (rsql_arena_on_free(batch->arena, chunk_unref, s->chunk) == 0) {
            s->pin_arena = batch->arena;
            s->pin_chunk = s->chunk;
        } else {
            chunk_unref(s->chunk);
            share = false;
        }
    }
    size_t pl = s->prefix_len;
    /* room for the longest "@<offset>" (ident_at): written in full up to its NUL */
    char *raw = rsql_arena__alloc(batch->arena, (share ? 0 : len + 1) + pl + 22);
    if (!raw) {
        return rsql_error_nomem(err);
    }
    char *id = raw;
    if (share) {
        raw = (char *)p;
    } else {
        memcpy(raw, p, len);
        id = raw + len + 1;
    }
    raw[len] = '\0';
    memcpy(id, s->ident_prefix, pl);
    ident_at(id + pl, line_off);
    rsql_record_t *r = &batch->recs[batch->n++];
    *r = (rsql_record_t){.partition = 0,
                         .offset = s->buf_pos + (int64_t)next,
                         .raw = (const uint8_t *)raw,
                         .raw_len = len,
                         .ident = id,
                         .line = line};
    if (s->has_meta && !set_meta(s, batch, r, line_off, line)) {
        batch->n--;
        return rsql_error_nomem(err);
    }
    *added = true;
    return RSQL_OK;
}

/*
** Emit the over-long line being skipped, which ends at line_end, as one record whose next
** position is next (buffer indexes): its first bytes as raw form, and its error.
*/
static rsql_err_t emit_long(rsql_source_t *s, rsql_batch_t *batch, size_t line_end, size_t next,
                            rsql_error_t *err)
{
    rsql_record_t *r = rsql_batch_add(batch);
    if (!r) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "batch full");
    }
    rsql_error_t *e = rsql_arena_alloc(batch->arena, sizeof *e);
    char ident[64];
    snprintf(ident, sizeof ident, "@%" PRId64, s->long_off);
    size_t pl = strlen(s->path), il = strlen(ident);
    char *id = rsql_arena_alloc(batch->arena, 5 + pl + il + 1);
    r->raw = rsql_batch_copy(batch, s->long_head, FILE_LONG_KEEP);
    if (!e || !id || !r->raw) {
        batch->n--;
        return rsql_error_nomem(err);
    }
    memcpy(id, "file:", 5);
    memcpy(id + 5, s->path, pl);
    memcpy(id + 5 + pl, ident, il + 1);
    rsql_error_clear(e);
    rsql_error_set(e, RSQL_ERR_TOO_LARGE, RSQL_NOPOS,
                   "line longer than %d MiB (%" PRId64 " bytes; the first %d are kept as its "
                   "raw form)",
                   FILE_MAX_LINE / (1024 * 1024), s->buf_pos + (int64_t)line_end - s->long_off,
                   FILE_LONG_KEEP);
    r->ident = id;
    r->raw_len = FILE_LONG_KEEP;
    r->error = e;
    r->partition = 0;
    r->offset = s->buf_pos + (int64_t)next;
    r->line = s->lines_known ? s->long_line + 1 : 0;
    if (!set_meta(s, batch, r, s->long_off, s->long_line + 1)) {
        batch->n--;
        return rsql_error_nomem(err);
    }
    if (s->lines_known) {
        s->line_no += count_nl(s->buf + s->start, next - s->start);
    }
    s->start = next;
    s->scan = 0;
    s->in_quote = false;
    s->skipping = false;
    return RSQL_OK;
}

/* Make room to read: compact, else grow up to FILE_MAX_LINE, else skip the line's rest. */
static rsql_err_t make_room(rsql_source_t *s, rsql_error_t *err)
{
    rsql_err_t rc;
    if (s->start > 0) {
        if (!chunk_shared(s->chunk)) {
            memmove(s->buf, s->buf + s->start, s->end - s->start);
        } else if ((rc = chunk_move(s, s->cap, s->start, s->end - s->start, err))) {
            return rc;
        }
        s->buf_pos += (int64_t)s->start;
        s->end -= s->start;
        s->start = 0;
    }
    if (s->end < s->cap) {
        return RSQL_OK;
    }
    if (s->cap >= FILE_MAX_LINE) {
        /* over-long: keep its head, drop what was read of it and skip on to its end
           (find_record's scan state, csv quote parity included, carries on) */
        if (!s->skipping) {
            if (!s->long_head && !(s->long_head = rsql_malloc(FILE_LONG_KEEP))) {
                return rsql_error_nomem(err);
            }
            memcpy(s->long_head, s->buf, FILE_LONG_KEEP);
            s->long_off = s->buf_pos;
            s->long_line = s->line_no;
            s->skipping = true;
        }
        if (s->lines_known) { /* csv: quoted line ends inside the dropped part */
            s->line_no += count_nl(s->buf, s->end);
        }
        if (chunk_shared(s->chunk) && (rc = chunk_move(s, s->cap, 0, 0, err))) {
            return rc;
        }
        s->buf_pos += (int64_t)s->end;
        s->start = s->end = s->scan = 0;
        return RSQL_OK;
    }
    size_t ncap = s->cap * 2 > FILE_MAX_LINE ? FILE_MAX_LINE : s->cap * 2;
    if (chunk_shared(s->chunk)) {
        return chunk_move(s, ncap, 0, s->end, err);
    }
    fs_chunk_t *nc = rsql_realloc(s->chunk, sizeof *nc + ncap);
    if (!nc) {
        return rsql_error_nomem(err);
    }
    s->chunk = nc;
    s->buf = nc->data;
    s->cap = ncap;
    return RSQL_OK;
}

/* Wait up to ms or a wakeup; true when woken. */
static bool fs_sleep(rsql_source_t *s, int64_t ms)
{
    return rsql_io_sleep_until(&s->mu, &s->cv, &s->woken, rsql_now_ms() + ms);
}

static rsql_err_t fs_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                          bool *eof, rsql_error_t *err)
{
    int64_t deadline = rsql_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    int added = 0;
    rsql_err_t rc;
    *eof = false;
    s->pin_arena = NULL; /* an arena's address may be a freed batch's: pinned anew */
    if (max > batch->cap - batch->n) {
        max = batch->cap - batch->n;
    }
    while (added < max) {
        size_t nl;
        bool one;
        if (find_record(s, &nl)) {
            if (s->skipping) {
                rc = emit_long(s, batch, nl, nl + 1, err);
                one = rc == RSQL_OK;
            } else {
                rc = emit(s, batch, nl, nl + 1, &one, err);
            }
            if (rc != RSQL_OK) {
                return rc;
            }
            added += one;
            continue;
        }
        if ((rc = make_room(s, err)) != RSQL_OK) {
            return rc;
        }
        ssize_t r = read(s->fd, s->buf + s->end, s->cap - s->end);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error(err, "cannot read", s->path, errno);
        }
        if (r > 0) {
            s->end += (size_t)r;
            continue;
        }
        /* at EOF */
        if (!s->follow) {
            if (s->skipping) {
                if ((rc = emit_long(s, batch, s->end, s->end, err)) != RSQL_OK) {
                    return rc;
                }
                added++;
            } else if (s->end > s->start) {
                if ((rc = emit(s, batch, s->end, s->end, &one, err)) != RSQL_OK) {
                    return rc;
                }
                added += one;
            }
            *eof = true;
            break;
        }
        int64_t now = rsql_now_ms();
        if (added > 0 || now >= deadline) {
            break;
        }
        int64_t wait = deadline - now < s->poll_ms ? deadline - now : s->poll_ms;
        if (fs_sleep(s, wait)) {
            break;
        }
    }
    atomic_store_explicit(&s->shown_next, s->buf_pos + (int64_t)s->start, memory_order_relaxed);
    return RSQL_OK;
}

static int fs_partition_count(rsql_source_t *s)
{
    (void)s;
    return 1;
}

static const char *fs_partition_name(rsql_source_t *s, uint32_t partition)
{
    return partition == 0 ? s->path : NULL;
}

static void fs_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->woken = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void fs_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    fs_free(s);
}

/*
** The bytes of the file after the next record to hand on (its size now, less that offset):
** the backlog (serve's rocketsql_source_backlog, unit bytes). @locality worker thread
*/
static size_t fs_describe(rsql_source_t *s, bool text, char *buf, size_t size)
{
    struct stat st;
    if (s->fd < 0 || fstat(s->fd, &st) != 0 || size == 0) {
        return 0;
    }
    int64_t next = atomic_load_explicit(&s->shown_next, memory_order_relaxed);
    long long left = (int64_t)st.st_size > next ? (long long)((int64_t)st.st_size - next) : 0;
    int n = text ? snprintf(buf, size, "%lld B left", left)
                 : snprintf(buf, size, "{\"backlog_bytes\":%lld}", left);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : 0;
}

/*
** The filesystem source vtable (rsql_io.h). Static.
*/
const rsql_source_ops_t rsql_file_source_ops = {
    .open = fs_open,
    .poll = fs_poll,
    .partition_count = fs_partition_count,
    .partition_name = fs_partition_name,
    .commit_record = NULL,
    .committed = NULL,
    .total = NULL,
    .wakeup = fs_wakeup,
    .close = fs_close,
    .describe = fs_describe,
};
