/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Result sets of text cells and their printing: aligned tables (columns
 * padded to the widest cell, counting UTF-8 characters; a description
 * column word-wrapped to the terminal's width) and TSV.
 */
#include "config.h"
#include "base/rsql_result.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

rsql_result_t *rsql_result_new(rsql_result_kind_t kind)
{
    rsql_result_t *r = rsql_calloc(1, sizeof(*r));
    if (r) {
        r->kind = kind;
        if (kind == RSQL_RESULT_LINES) {
            const char *col = "plan";
            if (rsql_result_set_cols(r, 1, &col) != RSQL_OK) {
                rsql_result_destroy(r);
                return NULL;
            }
        }
    }
    return r;
}

void rsql_result_destroy(rsql_result_t *r)
{
    if (!r) {
        return;
    }
    for (int i = 0; i < r->n_cols; i++) {
        rsql_free(r->cols[i]);
    }
    rsql_free(r->cols);
    for (int i = 0; i < r->n_rows * r->n_cols; i++) {
        rsql_free(r->cells[i]);
    }
    rsql_free(r->cells);
    rsql_free(r->status);
    rsql_free(r);
}

rsql_err_t rsql_result_set_cols(rsql_result_t *r, int n, const char *const *names)
{
    r->cols = rsql_calloc((size_t)n, sizeof(char *));
    if (!r->cols) {
        return RSQL_ERR_NOMEM;
    }
    r->n_cols = n;
    for (int i = 0; i < n; i++) {
        r->cols[i] = rsql_strdup(names[i]);
        if (!r->cols[i]) {
            return RSQL_ERR_NOMEM;
        }
    }
    return RSQL_OK;
}

rsql_err_t rsql_result_add_row(rsql_result_t *r, const char *const *cells)
{
    if (r->n_rows == r->cap_rows) {
        int cap = r->cap_rows ? r->cap_rows * 2 : 16;
        char **p = rsql_realloc(r->cells, (size_t)cap * (size_t)r->n_cols * sizeof(char *));
        if (!p) {
            return RSQL_ERR_NOMEM;
        }
        r->cells = p;
        r->cap_rows = cap;
    }
    char **row = r->cells + (size_t)r->n_rows * (size_t)r->n_cols;
    for (int i = 0; i < r->n_cols; i++) {
        row[i] = NULL;
    }
    r->n_rows++;
    for (int i = 0; i < r->n_cols; i++) {
        if (cells[i]) {
            row[i] = rsql_strdup(cells[i]);
            if (!row[i]) {
                return RSQL_ERR_NOMEM;
            }
        }
    }
    return RSQL_OK;
}

rsql_err_t rsql_result_add_lines(rsql_result_t *r, const char *s)
{
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char *line = rsql_strndup(s, n);
        if (!line) {
            return RSQL_ERR_NOMEM;
        }
        const char *cell = line;
        rsql_err_t rc = rsql_result_add_row(r, &cell);
        rsql_free(line);
        if (rc != RSQL_OK) {
            return rc;
        }
        s += n + (nl ? 1 : 0);
    }
    return RSQL_OK;
}

rsql_err_t rsql_result_set_status(rsql_result_t *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    rsql_free(r->status);
    r->status = rsql_strdup(buf);
    return r->status ? RSQL_OK : RSQL_ERR_NOMEM;
}

const char *rsql_result_cell(const rsql_result_t *r, int row, int col)
{
    return r->cells[(size_t)row * (size_t)r->n_cols + (size_t)col];
}

/* Display width: UTF-8 characters (continuation bytes do not count). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) {
        if (((unsigned char)*s & 0xC0) != 0x80) {
            w++;
        }
    }
    return w;
}

static void pad(FILE *f, size_t n, char c)
{
    while (n--) {
        fputc(c, f);
    }
}

static void print_rule(FILE *f, const size_t *w, int n)
{
    fputc('+', f);
    for (int i = 0; i < n; i++) {
        pad(f, w[i] + 2, '-');
        fputc('+', f);
    }
    fputc('\n', f);
}

/* See rsql_result.h. */
int rsql_result_width(FILE *f)
{
    const char *env = getenv("COLUMNS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (!*end && v > 0 && v < 100000) {
            return (int)v;
        }
    }
    struct winsize ws;
    int fd = fileno(f);
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        return ws.ws_col;
    }
    return RSQL_RESULT_WIDTH;
}

/*
** The next line of *p wrapped at width w: its length in bytes (*len) and characters
** (*chars); *p moves past it and the blank it was broken at. A word longer than w is cut.
*/
static void wrap_piece(const char **p, size_t w, size_t *len, size_t *chars)
{
    const char *s = *p, *brk = NULL;
    size_t n = 0, brk_chars = 0;
    const char *q = s;
    for (; *q && *q != '\n'; q++) {
        if (((unsigned char)*q & 0xC0) == 0x80) {
            continue;
        }
        if (*q == ' ') {
            brk = q;
            brk_chars = n;
        }
        if (n == w) {
            break;
        }
        n++;
    }
    if (*q && *q != '\n' && *q != ' ' && brk) { /* cut at the last blank */
        q = brk;
        n = brk_chars;
    }
    *len = (size_t)(q - s);
    *chars = n;
    while (*q == ' ') {
        q++;
    }
    if (*q == '\n') {
        q++;
    }
    *p = q;
}

void rsql_result_print(const rsql_result_t *r, rsql_print_style_t style, FILE *f)
{
    rsql_result_print_width(r, style, rsql_result_width(f), f);
}

void rsql_result_print_width(const rsql_result_t *r, rsql_print_style_t style, int width,
                             FILE *f)
{
    if (!r) {
        return;
    }
    if (r->kind == RSQL_RESULT_STATUS) {
        if (style == RSQL_PRINT_TABLE && r->status) {
            fprintf(f, "%s\n", r->status);
        }
        return;
    }
    if (r->kind == RSQL_RESULT_LINES || style == RSQL_PRINT_TSV) {
        bool esc = r->kind != RSQL_RESULT_LINES; /* a TSV cell keeps to its cell and line */
        for (int i = 0; i < r->n_rows; i++) {
            for (int c = 0; c < r->n_cols; c++) {
                const char *v = rsql_result_cell(r, i, c);
                if (c) {
                    fputc('\t', f);
                }
                if (!esc || !v) {
                    fputs(v ? v : "NULL", f);
                    continue;
                }
                for (const char *p = v; *p; p++) { /* \t \n \r \\ as two characters */
                    const char *e = *p == '\t'   ? "\\t"
                                    : *p == '\n' ? "\\n"
                                    : *p == '\r' ? "\\r"
                                    : *p == '\\' ? "\\\\"
                                                  : NULL;
                    if (e) {
                        fputs(e, f);
                    } else {
                        fputc(*p, f);
                    }
                }
            }
            fputc('\n', f);
        }
        return;
    }
    if (r->kind != RSQL_RESULT_TABLE || r->n_cols == 0) {
        return;
    }
    size_t *w = rsql_calloc((size_t)r->n_cols, sizeof(size_t));
    if (!w) {
        return;
    }
    for (int c = 0; c < r->n_cols; c++) {
        w[c] = text_width(r->cols[c]);
        for (int i = 0; i < r->n_rows; i++) {
            const char *v = rsql_result_cell(r, i, c);
            size_t cw = text_width(v ? v : "NULL");
            if (cw > w[c]) {
                w[c] = cw;
            }
        }
    }
    int last = r->n_cols - 1;
    if (r->wrap_last) { /* the table is sum(w) + 3 per column + 1 wide */
        size_t rest = 1;
        for (int c = 0; c < last; c++) {
            rest += w[c] + 3;
        }
        size_t room = (size_t)width > rest + 3 ? (size_t)width - rest - 3 : 0;
        room = room < 20 ? 20 : room;
        w[last] = w[last] > room ? room : w[last];
    }
    print_rule(f, w, r->n_cols);
    fputc('|', f);
    for (int c = 0; c < r->n_cols; c++) {
        fprintf(f, " %s", r->cols[c]);
        pad(f, w[c] > text_width(r->cols[c]) ? w[c] - text_width(r->cols[c]) + 1 : 1, ' ');
        fputc('|', f);
    }
    fputc('\n', f);
    print_rule(f, w, r->n_cols);
    for (int i = 0; i < r->n_rows; i++) {
        const char *rest = NULL; /* the wrapped cell's text still to print */
        bool first = true;
        do {
            fputc('|', f);
            for (int c = 0; c < r->n_cols; c++) {
                const char *v = rsql_result_cell(r, i, c);
                v = v ? v : "NULL";
                size_t len = strlen(v), chars = text_width(v);
                if (r->wrap_last && c == last) {
                    v = rest ? rest : v;
                    rest = v;
                    wrap_piece(&rest, w[c], &len, &chars);
                } else if (!first) { /* a continuation line: the other cells are blank */
                    len = chars = 0;
                }
                fprintf(f, " %.*s", (int)len, v);
                pad(f, w[c] - chars + 1, ' ');
                fputc('|', f);
            }
            fputc('\n', f);
            first = false;
        } while (rest && *rest);
    }
    print_rule(f, w, r->n_cols);
    fprintf(f, "%d row%s\n", r->n_rows, r->n_rows == 1 ? "" : "s");
    rsql_free(w);
}
