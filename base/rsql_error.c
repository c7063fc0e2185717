/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The error map's functions: setting errors (first one wins), names and
 * texts from RSQL_ERR_MAP, and rendering "line:col: message" with a caret.
 */
#include "config.h"
#include "base/rsql_error.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
    rsql_err_t code;
    const char *name;
    unsigned flags;
    const char *text;
} err_descs[] = {
#define RSQL__ERR_DESC(name, num, flags, text) {RSQL_ERR_##name, #name, flags, text},
    RSQL_ERR_MAP(RSQL__ERR_DESC)
#undef RSQL__ERR_DESC
};

void rsql_error_clear(rsql_error_t *err)
{
    if (err) {
        memset(err, 0, sizeof(*err));
        err->pos = RSQL_NOPOS;
    }
}

rsql_err_t rsql_error_setv(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos, const char *fmt,
                           va_list ap)
{
    if (!err || err->code != RSQL_OK) {
        return code;
    }
    err->code = code;
    err->flags = rsql_err_flags(code);
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

unsigned rsql_err_flags(rsql_err_t code)
{
    for (size_t i = 0; i < sizeof(err_descs) / sizeof(err_descs[0]); i++) {
        if (err_descs[i].code == code) {
            return err_descs[i].flags;
        }
    }
    return 0;
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
               "| code | name | retriable | fatal | meaning |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(err_descs) / sizeof(err_descs[0]); i++) {
        fprintf(f, "| %d | `%s` | %s | %s | %s |\n", (int)err_descs[i].code, err_descs[i].name,
                (err_descs[i].flags & RSQL_EF_RETRY) ? "yes" : "no",
                (err_descs[i].flags & RSQL_EF_FATAL) ? "yes" : "no", err_descs[i].text);
    }
}
