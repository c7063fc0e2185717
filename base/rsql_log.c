/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_log: levels, line formatting and the one writer of log lines (base/rsql_log.h).
 *
 * The level and the output fd are atomics, read without a lock; writing takes log_mu so
 * that a line is one write(2) (continued on a short write) that no other line can split.
 * Formatting happens before the mutex, in the caller's stack buffer, so the mutex is held
 * only for the write itself, and nothing under it calls out of this file.
 */
#include "config.h"
#include "base/rsql_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static atomic_int log_level = RSQL_LOG_DEFAULT;
static atomic_int log_fd = -1; /* -1: standard error */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};
#define N_LEVELS ((int)(sizeof level_names / sizeof level_names[0]))

/* See rsql_log.h. */
const char *rsql_log_level_name(rsql_log_level_t level)
{
    return (int)level >= 0 && (int)level < N_LEVELS ? level_names[level] : "?";
}

/* Parse text; err names where it came from ("" = nowhere in particular). */
static rsql_err_t parse_level(const char *text, const char *where, rsql_log_level_t *out,
                              rsql_error_t *err)
{
    for (int i = 0; text && i < N_LEVELS; i++) {
        if (strcasecmp(text, level_names[i]) == 0) {
            *out = (rsql_log_level_t)i;
            return RSQL_OK;
        }
    }
    return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                          "invalid log level '%s'%s%s (expected error, warn, info, debug or "
                          "trace)",
                          text ? text : "", *where ? " for " : "", where);
}

/* See rsql_log.h. */
rsql_err_t rsql_log_level_parse(const char *text, rsql_log_level_t *out, rsql_error_t *err)
{
    return parse_level(text, "", out, err);
}

/* See rsql_log.h. */
rsql_err_t rsql_log_configure(const char *flag, const char *env, rsql_error_t *err)
{
    const char *text = flag ? flag : env && *env ? env : NULL;
    if (!text) {
        return RSQL_OK;
    }
    rsql_log_level_t level;
    rsql_err_t rc = parse_level(text, flag ? "--log-level" : RSQL_LOG_ENV, &level, err);
    if (rc == RSQL_OK) {
        rsql_log_set_level(level);
    }
    return rc;
}

/* See rsql_log.h. */
void rsql_log_set_level(rsql_log_level_t level)
{
    if ((int)level < 0) {
        level = RSQL_LOG_ERROR;
    } else if ((int)level >= N_LEVELS) {
        level = RSQL_LOG_TRACE;
    }
    atomic_store(&log_level, (int)level);
}

/* See rsql_log.h. */
rsql_log_level_t rsql_log_get_level(void)
{
    return (rsql_log_level_t)atomic_load(&log_level);
}

/* See rsql_log.h. */
bool rsql_log_enabled(rsql_log_level_t level)
{
    return (int)level <= atomic_load_explicit(&log_level, memory_order_relaxed);
}

/* See rsql_log.h. */
int rsql_log_set_fd(int fd)
{
    return atomic_exchange(&log_fd, fd < 0 ? -1 : fd);
}

/*
** Format one line into buf (RSQL_LOG_LINE_MAX bytes): prefix, message with any CR/LF turned
** into spaces (a line stays one line), cut with "..." when too long, then '\n'. Returns its
** length.
*/
static size_t format_line(char *buf, rsql_log_level_t level, const char *component,
                          const char *fmt, va_list ap)
{
    const size_t size = RSQL_LOG_LINE_MAX; /* the last byte is kept for the '\n' */
    int n = snprintf(buf, size, "rocketsql: %s: %s: ", rsql_log_level_name(level),
                     component && *component ? component : "-");
    size_t pre = n < 0 ? 0 : (size_t)n < size - 1 ? (size_t)n : size - 1;
    int m = vsnprintf(buf + pre, size - pre, fmt, ap);
    size_t len = pre + (m < 0 ? 0 : (size_t)m);
    if (len > size - 1) {
        len = size - 1;
        memcpy(buf + len - 3, "...", 3);
    }
    for (size_t i = pre; i < len; i++) {
        if (buf[i] == '\n' || buf[i] == '\r') {
            buf[i] = ' ';
        }
    }
    buf[len++] = '\n';
    return len;
}

/* Write p[0..n) to the log fd in one write (continued on a short write). */
static void write_lines(const char *p, size_t n)
{
    pthread_mutex_lock(&log_mu);
    int fd = atomic_load(&log_fd);
    if (fd < 0) {
        fd = STDERR_FILENO;
    }
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            break; /* nowhere to report it */
        }
        p += w;
        n -= (size_t)w;
    }
    pthread_mutex_unlock(&log_mu);
}

/* See rsql_log.h. */
void rsql_logv(rsql_log_level_t level, const char *component, const char *fmt, va_list ap)
{
    if (!rsql_log_enabled(level)) {
        return;
    }
    char buf[RSQL_LOG_LINE_MAX];
    int saved = errno;
    size_t n = format_line(buf, level, component, fmt, ap);
    write_lines(buf, n);
    errno = saved;
}

/* See rsql_log.h. */
void rsql_log(rsql_log_level_t level, const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rsql_logv(level, component, fmt, ap);
    va_end(ap);
}

/* See rsql_log.h. */
void rsql_log_deferv(rsql_buf_t *pending, rsql_log_level_t level, const char *component,
                     const char *fmt, va_list ap)
{
    if (!pending || !rsql_log_enabled(level)) {
        return;
    }
    char buf[RSQL_LOG_LINE_MAX];
    size_t n = format_line(buf, level, component, fmt, ap);
    rsql_buf_append(pending, buf, n);
}

/* See rsql_log.h. */
void rsql_log_defer(rsql_buf_t *pending, rsql_log_level_t level, const char *component,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rsql_log_deferv(pending, level, component, fmt, ap);
    va_end(ap);
}

/* See rsql_log.h. */
void rsql_log_flush(rsql_buf_t *pending)
{
    if (!pending) {
        return;
    }
    if (pending->data && pending->len > 0) {
        int saved = errno;
        write_lines(pending->data, pending->len);
        errno = saved;
    }
    rsql_buf_deinit(pending);
}
