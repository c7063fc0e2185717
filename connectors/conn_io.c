/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Helpers the embedded connectors share (rsql_conn_io.h). A connector's
 * data path is found through its descriptor (rsql_connector_def_t.source,
 * .sink), never by its name.
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/conn_int.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

rsql_err_t rsql_io_results_reserve(rsql_sink_result_t **results, int *cap, int n,
                                   rsql_error_t *err)
{
    if (n <= *cap) {
        return RSQL_OK;
    }
    rsql_sink_result_t *nr = rsql_realloc(*results, (size_t)n * sizeof *nr);
    if (!nr) {
        return rsql_error_nomem(err);
    }
    memset(nr + *cap, 0, (size_t)(n - *cap) * sizeof *nr);
    *results = nr;
    *cap = n;
    return RSQL_OK;
}

rsql_err_t rsql_io_positions_each(const rsql_sink_row_t *rows, int from, int to,
                                  rsql_io_positions_fn each, void *opaque)
{
    const char *names[RSQL_IO_POS_GROUP];
    int64_t offs[RSQL_IO_POS_GROUP];
    const char *keys[RSQL_IO_POS_GROUP];
    int m = 0;
    for (int i = from; i < to; i++) {
        const char *name = rows[i].partition_name;
        if (!name || !rows[i].rec) {
            continue;
        }
        int j = 0;
        while (j < m && strcmp(names[j], name) != 0) {
            j++;
        }
        if (j < m) {
            offs[j] = rows[i].rec->offset; /* later in the same group: its later offset */
            keys[j] = rows[i].rec->pos_key;
            continue;
        }
        if (m == RSQL_IO_POS_GROUP) {
            rsql_err_t rc = each(opaque, names, offs, keys, m);
            if (rc != RSQL_OK) {
                return rc;
            }
            m = 0;
        }
        names[m] = name;
        keys[m] = rows[i].rec->pos_key;
        offs[m++] = rows[i].rec->offset;
    }
    return m > 0 ? each(opaque, names, offs, keys, m) : RSQL_OK;
}

/* See rsql_conn_io.h. */
void rsql_io_position_text(rsql_buf_t *b, int64_t offset, const char *key)
{
    rsql_buf_printf(b, "%" PRId64, offset);
    if (key) {
        rsql_buf_putc(b, ' ');
        rsql_buf_puts(b, key);
    }
}

/* See rsql_conn_io.h. */
bool rsql_io_position_parse(const char *s, size_t len, int64_t *offset, const char **key)
{
    size_t i = 0;
    bool neg = i < len && s[i] == '-';
    i += neg;
    size_t digits = i;
    uint64_t v = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return false;
        }
        v = v * 10 + d;
    }
    if (i == digits || v > (uint64_t)INT64_MAX + neg || (i < len && s[i] != ' ') ||
        (s[digits] == '0' && (i - digits > 1 || neg))) {
        return false; /* not one written by rsql_io_position_text: "007", "-0" */
    }
    *offset = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    *key = i < len ? s + i + 1 : NULL;
    return true;
}

/* See rsql_conn_io.h. */
void rsql_io_key_text(rsql_buf_t *b, int n, const char *const *vals)
{
    for (int k = 0; k < n; k++) {
        size_t len = strlen(vals[k]);
        rsql_buf_printf(b, "%zu:", len);
        rsql_buf_append(b, vals[k], len);
        rsql_buf_putc(b, ',');
    }
}

/* See rsql_conn_io.h. */
int rsql_io_key_parse(const char *s, char *buf, const char **vals, int max)
{
    int n = 0;
    while (*s) {
        size_t len = 0;
        const char *p = s;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (len > SIZE_MAX / 10 - 10) {
                return -1;
            }
            len = len * 10 + (size_t)(*p - '0');
        }
        if (p == s || (*s == '0' && p - s > 1) || *p != ':' || n == max ||
            strnlen(p + 1, len + 1) < len + 1 || p[1 + len] != ',') {
            return -1;
        }
        memcpy(buf, p + 1, len);
        buf[len] = '\0';
        vals[n++] = buf;
        buf += len + 1;
        s = p + 1 + len + 1;
    }
    return n;
}

bool rsql_io_sleep_until(pthread_mutex_t *mu, pthread_cond_t *cv, bool *woken, int64_t until_ms)
{
    pthread_mutex_lock(mu);
    while (!*woken && rsql_now_ms() < until_ms) {
        if (rsql_cond_wait_until(cv, mu, until_ms) == ETIMEDOUT) {
            break;
        }
    }
    bool was = *woken;
    *woken = false;
    pthread_mutex_unlock(mu);
    return was;
}

/* See rsql_conn_io.h. */
rsql_err_t rsql_io_encode_change(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                 rsql_buf_t *buf, size_t mark, rsql_sink_result_t *r,
                                 rsql_error_t *err)
{
    rsql_error_t why;
    rsql_error_clear(&why);
    rsql_err_t rc = rsql_encode_change(enc, row, kind, buf, &why);
    if (rc == RSQL_OK) {
        return RSQL_OK;
    }
    if (rc == RSQL_ERR_NOMEM || buf->oom) {
        return rsql_error_nomem(err);
    }
    buf->len = mark < buf->len ? mark : buf->len;
    if (buf->data) {
        buf->data[buf->len] = '\0';
    }
    memset(r, 0, sizeof *r);
    r->code = rc;
    snprintf(r->msg, sizeof r->msg, "%.*s", (int)sizeof r->msg - 1,
             why.msg[0] ? why.msg : rsql_err_str(rc));
    return rc;
}

/* See rsql_conn_io.h. */
int rsql_io_change_op(const rsql_sink_row_t *rows, int i, int to, int n_key, const int *key)
{
    switch (rows[i].kind) {
    case RSQL_ROW_DELETE: return RSQL_IO_DELETE;
    case RSQL_ROW_CLEAR: return RSQL_IO_CLEAR;
    case RSQL_ROW_UPDATE_BEFORE: break;
    default: return RSQL_IO_UPSERT;
    }
    if (i + 1 >= to || rows[i + 1].kind != RSQL_ROW_UPDATE_AFTER || !rows[i].rec ||
        rows[i + 1].rec != rows[i].rec) {
        return RSQL_IO_DELETE;
    }
    for (int j = 0; j < n_key; j++) {
        if (!rsql_value_same_key(&rows[i].values[key[j]], &rows[i + 1].values[key[j]])) {
            return RSQL_IO_DELETE;
        }
    }
    return n_key > 0 ? RSQL_IO_SKIP : RSQL_IO_DELETE;
}

/* See rsql_conn_io.h. */
int rsql_io_chunk_end(const rsql_sink_row_t *rows, int from, int64_t max, int n)
{
    int to = (int64_t)(n - from) > max ? from + (int)max : n;
    /* nor a source transaction: the row before the end must not be inside one */
    while (to < n && to > from && rows[to - 1].rec &&
           (rows[to].rec == rows[to - 1].rec || (rows[to - 1].rec->flags & RSQL_REC_IN_TXN))) {
        to++;
    }
    return to;
}

/* See conn_int.h. */
rsql_err_t rsql_conn__check_readable(const char *path, rsql_error_t *err)
{
    struct stat st;
    int e = 0;
    if (!path || !*path) {
        return RSQL_OK; /* the open reports a missing option */
    }
    if (stat(path, &st) != 0) {
        e = errno;
    } else if (S_ISDIR(st.st_mode)) {
        e = EISDIR;
    } else if (access(path, R_OK) != 0) {
        e = errno;
    }
    if (e == 0) {
        return RSQL_OK;
    }
    return rsql_error_set(err, rsql_err_from_errno(e), RSQL_NOPOS, "cannot open %s: %s", path,
                          strerror(e));
}
