/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_error: the one error map of rocketsql. Every error is a stable code
 * (RSQL_ERR_MAP below, which also drives rsql_err_name(), rsql_err_str() and
 * docs/ERRORS.md), an optional position in the SQL text, an optional remote
 * (RocketMQ Status) code, and a message: the underlying text (the database's
 * own message, the broker's status and message), never a generic one.
 *
 * Each code has a class: transient (a retry of the same operation may
 * succeed: timeouts, unavailability, busy or throttled resources) or
 * permanent (it will fail the same way again: constraint violations, missing
 * tables, permissions, sizes over a limit, bad input, out of memory). Whoever
 * sets an error picks the code that says what happened; whoever decides
 * whether to retry asks rsql_error_retriable(), which reads only the error
 * itself. There are no per-error flags to set, clear or OR back in.
 *
 * Convention: functions return rsql_err_t (RSQL_OK == 0) and take a nullable
 * rsql_error_t *err as their last argument; functions returning a pointer
 * return NULL and fill err.  The first error set wins.
 */
#ifndef RSQL_ERROR_H
#define RSQL_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* name, stable number, class (T = transient, P = permanent; see above), text */
#define RSQL_ERR_MAP(X)                                                       \
    X(OK, 0, P, "success")                                                    \
    X(NOMEM, 1, P, "out of memory")                                           \
    X(INTERNAL, 2, P, "internal error")                                       \
    X(SYNTAX, 100, P, "syntax error")                                         \
    X(INCOMPLETE, 101, P, "incomplete input")                                 \
    X(UNKNOWN_NAME, 200, P, "unknown name")                                   \
    X(EXISTS, 201, P, "already exists")                                       \
    X(TYPE, 202, P, "type mismatch")                                          \
    X(SEMANTIC, 203, P, "invalid statement")                                  \
    X(BAD_OPTION, 300, P, "invalid option")                                   \
    X(MISSING_OPTION, 301, P, "missing required option")                      \
    X(BAD_SETTING, 302, P, "invalid setting")                                 \
    X(IO, 400, P, "I/O error")                                                \
    X(CATALOG, 401, P, "catalog error")                                       \
    X(BUSY, 402, T, "resource busy")                                          \
    X(PERMISSION, 403, P, "permission denied")                                \
    X(NOT_FOUND, 404, P, "not found")                                         \
    X(NO_SPACE, 405, P, "no space left")                                      \
    X(CONSTRAINT, 406, P, "constraint violated")                              \
    X(TOO_LARGE, 407, P, "over the size limit")                               \
    X(REMOTE, 500, P, "remote error")                                         \
    X(TIMEOUT, 501, T, "timed out")                                           \
    X(UNAVAILABLE, 502, T, "service unavailable")                             \
    X(USAGE, 600, P, "bad usage")                                             \
    X(DECODE, 700, P, "decode error")                                         \
    X(EVAL, 701, P, "evaluation error")                                       \
    X(SINK, 702, P, "sink error")                                             \
    X(INTERRUPTED, 800, P, "interrupted")                                     \
    X(UNSUPPORTED, 900, P, "not supported")

typedef enum rsql_err {
#define RSQL__ERR_ENUM(name, num, cls, text) RSQL_ERR_##name = num,
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

/*
** The one out-of-memory error: set err (as rsql_error_set: NULL-safe, the first error wins)
** to RSQL_ERR_NOMEM "out of memory" and return RSQL_ERR_NOMEM, so callers write
** `return rsql_error_nomem(err);`. It formats nothing and allocates nothing.
*/
rsql_err_t rsql_error_nomem(rsql_error_t *err);

/* Copy src into dst when dst is still clear. */
void rsql_error_copy(rsql_error_t *dst, const rsql_error_t *src);

/* Stable name ("SYNTAX") and default text ("syntax error") of a code. */
const char *rsql_err_name(rsql_err_t code);
const char *rsql_err_str(rsql_err_t code);

/*
** The retriable predicate: true when err holds an error whose code is
** transient (RSQL_ERR_MAP), so the same operation may succeed if tried again
** (the runtime retries it per errors.retry.*); false for no error (NULL or
** RSQL_OK) and for every permanent code (fail now, or dead-letter under
** errors.tolerance 'all'). Decides from the error alone.
*/
bool rsql_error_retriable(const rsql_error_t *err);
/* The class of a bare code (as rsql_error_retriable for an error with that code). */
bool rsql_err_code_retriable(rsql_err_t code);

/*
** The code for an errno value: ENOMEM -> NOMEM; EACCES, EPERM, EROFS ->
** PERMISSION; ENOENT, ENOTDIR -> NOT_FOUND; ENOSPC, EDQUOT -> NO_SPACE;
** EFBIG -> TOO_LARGE; EAGAIN, EWOULDBLOCK, EINTR, EBUSY, ETXTBSY -> BUSY;
** ETIMEDOUT -> TIMEOUT; ESTALE, ENETDOWN, ENETUNREACH, ECONNRESET,
** ECONNREFUSED, EHOSTUNREACH -> UNAVAILABLE; anything else (EIO, EISDIR, ...)
** -> IO (permanent).
*/
rsql_err_t rsql_err_from_errno(int errnum);

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
