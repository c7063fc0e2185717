/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The error map's functions: setting errors (first one wins), names, texts
 * and classes from RSQL_ERR_MAP, the retriable predicate, errno to code, and
 * rendering "line:col: message" with a caret.
 */
#include "config.h"
#include "base/rsql_error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define RSQL__CLASS_T true
#define RSQL__CLASS_P false

static const struct {
    rsql_err_t code;
    const char *name;
    bool transient;
    const char *text;
} err_descs[] = {
#define RSQL__ERR_DESC(name, num, cls, text) {RSQL_ERR_##name, #name, RSQL__CLASS_##cls, text},
    RSQL_ERR_MAP(RSQL__ERR_DESC)
#undef RSQL__ERR_DESC
};

void rsql_error_clear(rsql_error_t *err)
{
    if (err) {
        /* not a memset of the whole 1 KB: this runs once per row on the hot path, and an
           empty message is msg[0] == 0 (every reader stops there) */
        err->code = RSQL_OK;
        err->pos = RSQL_NOPOS;
        err->remote_code = 0;
        err->msg[0] = '\0';
    }
}

rsql_err_t rsql_error_setv(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos, const char *fmt,
                           va_list ap)
{
    if (!err || err->code != RSQL_OK) {
        return code;
    }
    err->code = code;
    err->pos = pos;
    err->remote_code = 0;
    if (fmt) {
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    } else {
        snprintf(err->msg, sizeof(err->msg), "%s", rsql_err_str(code));
    }
    return code;
}

rsql_err_t rsql_error_set(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos, const char *fmt,
                          ...)
{
    va_list ap;
    va_start(ap, fmt);
    rsql_error_setv(err, code, pos, fmt, ap);
    va_end(ap);
    return code;
}

/* See rsql_error.h. */
rsql_err_t rsql_error_nomem(rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "%s", rsql_err_str(RSQL_ERR_NOMEM));
}

void rsql_error_copy(rsql_error_t *dst, const rsql_error_t *src)
{
    if (dst && src && dst->code == RSQL_OK) {
        *dst = *src;
    }
}

const char *rsql_err_name(rsql_err_t code)
{
    for (size_t i = 0; i < sizeof(err_descs) / sizeof(err_descs[0]); i++) {
        if (err_descs[i].code == code) {
            return err_descs[i].name;
        }
    }
    return "UNKNOWN";
}

const char *rsql_err_str(rsql_err_t code)
{
    for (size_t i = 0; i < sizeof(err_descs) / sizeof(err_descs[0]); i++) {
        if (err_descs[i].code == code) {
            return err_descs[i].text;
        }
    }
    return "unknown error";
}

bool rsql_err_code_retriable(rsql_err_t code)
{
    for (size_t i = 0; i < sizeof(err_descs) / sizeof(err_descs[0]); i++) {
        if (err_descs[i].code == code) {
            return err_descs[i].transient;
        }
    }
    return false;
}

/*
** The retriable predicate (see the header): the class of err's code.
*/
bool rsql_error_retriable(const rsql_error_t *err)
{
    return err && err->code != RSQL_OK && rsql_err_code_retriable(err->code);
}

/*
** The code that says what an errno means (see the header).
*/
rsql_err_t rsql_err_from_errno(int errnum)
{
    switch (errnum) {
    case ENOMEM: return RSQL_ERR_NOMEM;
    case EACCES:
    case EPERM:
    case EROFS: return RSQL_ERR_PERMISSION;
    case ENOENT:
    case ENOTDIR: return RSQL_ERR_NOT_FOUND;
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return RSQL_ERR_NO_SPACE;
    case EFBIG: return RSQL_ERR_TOO_LARGE;
    case EAGAIN:
#if defined(EWOULDBLOCK) && EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EINTR:
    case EBUSY:
    case ETXTBSY: return RSQL_ERR_BUSY;
    case ETIMEDOUT: return RSQL_ERR_TIMEOUT;
#ifdef ESTALE
    case ESTALE:
#endif
    case ENETDOWN:
    case ENETUNREACH:
    case ECONNRESET:
    case ECONNREFUSED:
    case EHOSTUNREACH: return RSQL_ERR_UNAVAILABLE;
    default: return RSQL_ERR_IO;
    }
}

void rsql_pos_linecol(const char *text, uint32_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (uint32_t i = 0; text && i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            c++; /* UTF-8: continuation bytes do not start a column */
        }
    }
    *line = l;
    *col = c;
}

void rsql_error_format(const rsql_error_t *err, const char *sql, char *buf, size_t size)
{
    if (err->pos.off != RSQL_POS_NONE && sql) {
        int line, col;
        rsql_pos_linecol(sql, err->pos.off, &line, &col);
        snprintf(buf, size, "%d:%d: %s", line, col, err->msg);
    } else {
        snprintf(buf, size, "error: %s", err->msg);
    }
}

/* A UTF-8 continuation byte (10xxxxxx): part of the character before it. */
static bool is_utf8_cont(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

void rsql_error_render(const rsql_error_t *err, const char *sql, FILE *f)
{
    char line_buf[1200];
    rsql_error_format(err, sql, line_buf, sizeof(line_buf));
    fprintf(f, "%s\n", line_buf);
    if (err->pos.off == RSQL_POS_NONE || !sql) {
        return;
    }
    /* the source line holding the error (without a CRLF's '\r'), then a caret under the
       spot: a tab under a tab, one space per character (UTF-8 continuation bytes take no
       column), and '~' under the rest of the span on that line */
    size_t len = strlen(sql);
    size_t off = err->pos.off > len ? len : err->pos.off;
    size_t start = off;
    while (start > 0 && sql[start - 1] != '\n') {
        start--;
    }
    size_t end = off;
    while (end < len && sql[end] != '\n') {
        end++;
    }
    size_t shown_end = end > start && sql[end - 1] == '\r' ? end - 1 : end;
    fprintf(f, "  %.*s\n  ", (int)(shown_end - start), sql + start);
    for (size_t i = start; i < off; i++) {
        if (!is_utf8_cont(sql[i])) {
            fputc(sql[i] == '\t' ? '\t' : ' ', f);
        }
    }
    size_t span_end = off + err->pos.len;
    if (span_end > shown_end) {
        span_end = shown_end;
    }
    fputc('^', f);
    size_t tildes = 0;
    for (size_t i = off + 1; i < span_end && tildes < 79; i++) {
        if (!is_utf8_cont(sql[i])) {
            fputc('~', f);
            tildes++;
        }
    }
    fputc('\n', f);
}

void rsql_error_map_markdown(FILE *f)
{
    fprintf(f, "# rocketsql error codes\n\n"
               "Generated from `RSQL_ERR_MAP` in `base/rsql_error.h` (`make check` fails when "
               "this file is stale). Numbers are stable.\n\n"
               "Every code has a class. A **transient** error may go away if the same operation "
               "is tried again: the pipeline retries it with backoff for `errors.retry.timeout` "
               "(`errors.retry.backoff-max` between attempts) before it gives up. A "
               "**permanent** error fails the same way every time: it is never retried; the "
               "record fails at once (the job stops) or, under `errors.tolerance` = 'all', goes "
               "to the dead-letter table. The message is the underlying one (the database's own "
               "message, the broker's status name, code and message).\n\n"
               "| code | name | class | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(err_descs) / sizeof(err_descs[0]); i++) {
        fprintf(f, "| %d | `%s` | %s | %s |\n", (int)err_descs[i].code, err_descs[i].name,
                err_descs[i].code == RSQL_OK ? "-"
                : err_descs[i].transient     ? "transient"
                                             : "permanent",
                err_descs[i].text);
    }
}
