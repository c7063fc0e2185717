/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The growable buffer behind EXPLAIN output, option docs and encoders.
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void rsql_buf_init(rsql_buf_t *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void rsql_buf_deinit(rsql_buf_t *b)
{
    rsql_free(b->data);
    rsql_buf_init(b);
}

void rsql_buf_reset(rsql_buf_t *b)
{
    b->len = 0;
    if (b->data) {
        b->data[0] = '\0';
    }
}

static bool reserve(rsql_buf_t *b, size_t extra)
{
    if (b->oom) {
        return false;
    }
    if (extra >= SIZE_MAX - b->len) { /* len + extra + 1 would wrap */
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap) {
        return true;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    }
    char *p = rsql_realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void rsql_buf_append(rsql_buf_t *b, const void *p, size_t n)
{
    /* room already (the common case, per value of every encoded row): no reserve */
    if (!b->oom && n < b->cap - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return;
    }
    if (!reserve(b, n)) {
        return;
    }
    if (n) {
        memcpy(b->data + b->len, p, n);
    }
    b->len += n;
    b->data[b->len] = '\0';
}

char *rsql_buf_room(rsql_buf_t *b, size_t n)
{
    if (b->oom || (n >= b->cap - b->len && !reserve(b, n))) {
        return NULL;
    }
    return b->data + b->len;
}

void rsql_buf_added(rsql_buf_t *b, size_t n)
{
    b->len += n;
    b->data[b->len] = '\0';
}

void rsql_buf_puts(rsql_buf_t *b, const char *s)
{
    rsql_buf_append(b, s, strlen(s));
}

void rsql_buf_putc(rsql_buf_t *b, char c)
{
    if (!b->oom && b->cap - b->len >= 2) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return;
    }
    rsql_buf_append(b, &c, 1);
}

void rsql_buf_vprintf(rsql_buf_t *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n < 0) {
        va_end(again);
        return;
    }
    if ((size_t)n < sizeof(small)) {
        rsql_buf_append(b, small, (size_t)n);
        va_end(again);
        return;
    }
    if (reserve(b, (size_t)n)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void rsql_buf_printf(rsql_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rsql_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *rsql_buf_str(const rsql_buf_t *b)
{
    return b->data ? b->data : "";
}

char *rsql_buf_steal(rsql_buf_t *b)
{
    char *s = b->oom ? NULL : b->data;
    if (!s && !b->oom) {
        s = rsql_strdup("");
    }
    if (b->oom) {
        rsql_free(b->data);
    }
    rsql_buf_init(b);
    return s;
}

/* See rsql_buf.h. */
void rsql_buf_quote_identn(rsql_buf_t *b, const char *name, size_t len)
{
    rsql_buf_putc(b, '"');
    for (size_t i = 0; name && i < len && name[i]; i++) {
        if (name[i] == '"') {
            rsql_buf_putc(b, '"');
        }
        rsql_buf_putc(b, name[i]);
    }
    rsql_buf_putc(b, '"');
}

/* See rsql_buf.h. */
void rsql_buf_quote_ident(rsql_buf_t *b, const char *name)
{
    rsql_buf_quote_identn(b, name, name ? strlen(name) : 0);
}

/* A letter or '_' (first), or also a digit (rest): ASCII only, whatever the locale. */
static bool ident_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* See rsql_buf.h. */
void rsql_buf_put_ident(rsql_buf_t *b, const char *name)
{
    bool plain = name && ident_char(name[0], true);
    for (const char *p = name; plain && *p; p++) {
        plain = ident_char(*p, false);
    }
    if (plain) {
        rsql_buf_puts(b, name);
    } else {
        rsql_buf_quote_ident(b, name);
    }
}
