/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_error: the one error map of rocketsql. Every error is a stable code
 * (RSQL_ERR_MAP below, which also drives rsql_err_name(), rsql_err_str() and
 * docs/ERRORS.md), flags (retriable, fatal), an optional position in the SQL
 * text, an optional remote (RocketMQ Status) code, and a message.
 *
 * Convention: functions return rsql_err_t (RSQL_OK == 0) and take a nullable
 * rsql_error_t *err as their last argument; functions returning a pointer
 * return NULL and fill err.  The first error set wins.
 */
#ifndef RSQL_ERROR_H
#define RSQL_ERROR_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* name, stable number, default flags, text */
#define RSQL_ERR_MAP(X)                                                       \
    X(OK, 0, 0, "success")                                                    \
    X(NOMEM, 1, RSQL_EF_FATAL, "out of memory")                               \
    X(INTERNAL, 2, RSQL_EF_FATAL, "internal error")                           \
    X(SYNTAX, 100, 0, "syntax error")                                         \
    X(INCOMPLETE, 101, 0, "incomplete input")                                 \
    X(UNKNOWN_NAME, 200, 0, "unknown name")                                   \
    X(EXISTS, 201, 0, "already exists")                                       \
    X(TYPE, 202, 0, "type mismatch")                                          \
    X(SEMANTIC, 203, 0, "invalid statement")                                  \
    X(BAD_OPTION, 300, 0, "invalid option")                                   \
    X(MISSING_OPTION, 301, 0, "missing required option")                      \
    X(BAD_SETTING, 302, 0, "invalid setting")                                 \
    X(IO, 400, RSQL_EF_RETRY, "I/O error")                                    \
    X(CATALOG, 401, 0, "catalog error")                                       \
    X(BUSY, 402, RSQL_EF_RETRY, "resource busy")                              \
    X(REMOTE, 500, 0, "remote error")                                         \
    X(TIMEOUT, 501, RSQL_EF_RETRY, "timed out")                               \
    X(UNAVAILABLE, 502, RSQL_EF_RETRY, "service unavailable")                 \
    X(USAGE, 600, 0, "bad usage")                                             \
    X(DECODE, 700, 0, "decode error")                                         \
    X(EVAL, 701, 0, "evaluation error")                                       \
    X(SINK, 702, 0, "sink error")                                             \
    X(INTERRUPTED, 800, 0, "interrupted")                                     \
    X(UNSUPPORTED, 900, 0, "not supported")

#define RSQL_EF_RETRY 0x1u /* a retry may succeed */
#define RSQL_EF_FATAL 0x2u /* stop the pipeline */

typedef enum rsql_err {
#define RSQL__ERR_ENUM(name, num, flags, text) RSQL_ERR_##name = num,
    RSQL_ERR_MAP(RSQL__ERR_ENUM)
#undef RSQL__ERR_ENUM
} rsql_err_t;
#define RSQL_OK RSQL_ERR_OK

/* A byte span in the SQL text the statement came from. */
typedef struct rsql_pos {
    uint32_t off, len;
} rsql_pos_t;
#define RSQL_POS_NONE UINT32_MAX
#define RSQL_NOPOS ((rsql_pos_t){RSQL_POS_NONE, 0})

typedef struct rsql_error {
    rsql_err_t code;
    unsigned flags;      /* RSQL_EF_* */
    rsql_pos_t pos;      /* off == RSQL_POS_NONE when not tied to SQL text */
    int32_t remote_code; /* RocketMQ Status.code, else 0 */
    char msg[1024];
} rsql_error_t;

/* Reset err to "no error" (code OK, no position). NULL-safe. */
void rsql_error_clear(rsql_error_t *err);

/*
** Set err (if it is non-NULL and still clear: the first error wins) and return
** code, so callers can write `return rsql_error_set(err, ...)`.
*/
rsql_err_t rsql_error_set(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5)));
rsql_err_t rsql_error_setv(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos, const char *fmt,
                           va_list ap);

/* Copy src into dst when dst is still clear. */
void rsql_error_copy(rsql_error_t *dst, const rsql_error_t *src);

/* Stable name ("SYNTAX") and default text ("syntax error") of a code. */
const char *rsql_err_name(rsql_err_t code);
const char *rsql_err_str(rsql_err_t code);
unsigned rsql_err_flags(rsql_err_t code);

/*
** 1-based line and column of byte offset off in text (columns count UTF-8
** characters, as an editor shows them).
*/
void rsql_pos_linecol(const char *text, uint32_t off, int *line, int *col);

/*
** One-line form: "line:col: message" when err has a position in sql, else
** "error: message". Written into buf (always NUL-terminated).
*/
void rsql_error_format(const rsql_error_t *err, const char *sql, char *buf, size_t size);

/*
** Print err to f: the one-line form, then (when there is a position) the
** source line and a caret under the spot.
*/
void rsql_error_render(const rsql_error_t *err, const char *sql, FILE *f);

/* Write docs/ERRORS.md-style Markdown of the whole map to f. */
void rsql_error_map_markdown(FILE *f);

#endif
