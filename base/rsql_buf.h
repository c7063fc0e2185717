/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_buf: a growable byte/string buffer (always NUL-terminated).  On
 * allocation failure the buffer becomes sticky-failed (oom set) and later
 * appends do nothing, so callers check once at the end.
 */
#ifndef RSQL_BUF_H
#define RSQL_BUF_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

typedef struct rsql_buf {
    char *data; /* owned; NULL until the first append */
    size_t len, cap;
    bool oom;
} rsql_buf_t;

#define RSQL_BUF_INIT {NULL, 0, 0, false}

void rsql_buf_init(rsql_buf_t *b);
void rsql_buf_deinit(rsql_buf_t *b);
void rsql_buf_reset(rsql_buf_t *b); /* len = 0, keeps memory */
void rsql_buf_append(rsql_buf_t *b, const void *p, size_t n);
void rsql_buf_puts(rsql_buf_t *b, const char *s);
void rsql_buf_putc(rsql_buf_t *b, char c);
/*
** Writing in place: rsql_buf_room makes room for n more bytes (and the NUL) and returns where
** they go (NULL when out of memory: oom is set); the caller writes at most n bytes there and
** then says how many with rsql_buf_added, which ends the text after them.
*/
char *rsql_buf_room(rsql_buf_t *b, size_t n);
void rsql_buf_added(rsql_buf_t *b, size_t n);
void rsql_buf_printf(rsql_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* rsql_buf_printf with a va_list (ap is consumed). */
void rsql_buf_vprintf(rsql_buf_t *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The contents as a C string ("" when empty); valid until the next append. */
const char *rsql_buf_str(const rsql_buf_t *b);
/* Hand the heap string to the caller (NULL on oom); the buffer is left empty. */
char *rsql_buf_steal(rsql_buf_t *b);

/*
** SQL identifiers: the one quoting of names in the SQL rocketsql writes (statement dumps,
** EXPLAIN, SHOW, RUN JOB, the SQLite and PostgreSQL connectors' generated statements), in
** the standard form both databases and our own parser read back.
**
** rsql_buf_quote_ident appends name double-quoted with every '"' in it doubled ("a""b");
** rsql_buf_quote_identn does the same for the first len bytes of name (stopping early at a
** NUL, so the text never holds one); rsql_buf_put_ident appends name bare when it is a plain
** word ([A-Za-z_][A-Za-z0-9_]*), quoted otherwise. A NULL name is the empty identifier "".
*/
void rsql_buf_quote_ident(rsql_buf_t *b, const char *name);
void rsql_buf_quote_identn(rsql_buf_t *b, const char *name, size_t len);
void rsql_buf_put_ident(rsql_buf_t *b, const char *name);

#endif
