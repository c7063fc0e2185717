/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_log: levels, line formatting and the one writer of log lines (base/rsql_log.h).
 *
 * The level and the output fd are atomics, read without a lock. A line is formatted in the
 * caller's stack buffer, then copied under log_mu into a bounded ring (or dropped and counted
 * when the ring is full); a writer thread started on the first line takes chunks out of the
 * ring and writes them with no lock held, so a stalled output stalls the writer alone.
 * Nothing under log_mu calls out of this file but libc.
 */
#include "config.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static atomic_int log_level = RSQL_LOG_DEFAULT;
static atomic_int log_fd = -1; /* -1: standard error */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static atomic_int log_format = RSQL_LOG_FORMAT_TEXT;
static _Thread_local char ctx_job[128];
static _Thread_local int64_t ctx_run;

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
    rsql_log_sync(); /* the lines logged so far go where they were meant to */
    return atomic_exchange(&log_fd, fd < 0 ? -1 : fd);
}

/* See rsql_log.h. */
rsql_err_t rsql_log_set_format(const char *name, rsql_error_t *err)
{
    if (!name) {
        return RSQL_OK;
    }
    if (strcmp(name, "text") == 0) {
        atomic_store(&log_format, RSQL_LOG_FORMAT_TEXT);
    } else if (strcmp(name, "json") == 0) {
        atomic_store(&log_format, RSQL_LOG_FORMAT_JSON);
    } else {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "invalid log format '%s' for --log-format (expected text or json)",
                              name);
    }
    return RSQL_OK;
}

/* See rsql_log.h. */
void rsql_log_set_context(const char *job, int64_t run)
{
    snprintf(ctx_job, sizeof ctx_job, "%s", job ? job : "");
    ctx_run = job ? run : 0;
}

typedef struct log_thread {
    void *(*fn)(void *);
    void *arg;
    char job[sizeof ctx_job];
    int64_t run;
} log_thread_t;

static void *log_thread_main(void *a)
{
    log_thread_t t = *(log_thread_t *)a;
    rsql_free(a);
    if (t.job[0]) {
        rsql_log_set_context(t.job, t.run);
    }
    return t.fn(t.arg);
}

/* See rsql_log.h. */
int rsql_log_thread_create(pthread_t *th, void *(*fn)(void *), void *arg)
{
    log_thread_t *t = rsql_malloc(sizeof *t);
    if (!t) {
        return ENOMEM;
    }
    t->fn = fn;
    t->arg = arg;
    memcpy(t->job, ctx_job, sizeof t->job);
    t->run = ctx_run;
    int rc = pthread_create(th, NULL, log_thread_main, t);
    if (rc != 0) {
        rsql_free(t);
    }
    return rc;
}

/* Append s as the inside of a JSON string to buf[*len..cap), escaped; stops when full. */
static void json_escape(char *buf, size_t *len, size_t cap, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (; *s && *len + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[(*len)++] = '\\';
            buf[(*len)++] = (char)c;
        } else if (c < 0x20) {
            buf[(*len)++] = '\\';
            buf[(*len)++] = 'u';
            buf[(*len)++] = '0';
            buf[(*len)++] = '0';
            buf[(*len)++] = hex[c >> 4];
            buf[(*len)++] = hex[c & 15];
        } else {
            buf[(*len)++] = (char)c;
        }
    }
}

/* Append the literal text t to buf[*len..cap) as far as it fits. */
static void put_lit(char *buf, size_t *len, size_t cap, const char *t)
{
    for (; *t && *len + 1 < cap; t++) {
        buf[(*len)++] = *t;
    }
}

/* One JSON line into buf (RSQL_LOG_LINE_MAX bytes); the message is cut to fit. */
static size_t format_json(char *buf, rsql_log_level_t level, const char *component,
                          const char *fmt, va_list ap)
{
    char msg[RSQL_LOG_LINE_MAX];
    int m = vsnprintf(msg, sizeof msg, fmt, ap);
    if (m < 0) {
        msg[0] = 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    const size_t cap = RSQL_LOG_LINE_MAX - 4; /* room for the closing "}\n */
    int n = snprintf(buf, cap,
                     "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"level\":\"%s\","
                     "\"component\":\"",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
                     rsql_log_level_name(level));
    size_t len = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
    json_escape(buf, &len, cap, component && *component ? component : "-");
    if (ctx_job[0]) {
        put_lit(buf, &len, cap, "\",\"job\":\"");
        json_escape(buf, &len, cap, ctx_job);
        if (ctx_run > 0) {
            char run[40];
            snprintf(run, sizeof run, "\",\"run\":%lld,\"msg\":\"", (long long)ctx_run);
            put_lit(buf, &len, cap, run);
        } else {
            put_lit(buf, &len, cap, "\",\"msg\":\"");
        }
    } else {
        put_lit(buf, &len, cap, "\",\"msg\":\"");
    }
    json_escape(buf, &len, cap, msg);
    buf[len++] = '"';
    buf[len++] = '}';
    buf[len++] = '\n';
    return len;
}

/*
** Format one line into buf (RSQL_LOG_LINE_MAX bytes): prefix, message with any CR/LF turned
** into spaces (a line stays one line), cut with "..." when too long, then '\n'. Returns its
** length.
*/
static size_t format_line(char *buf, rsql_log_level_t level, const char *component,
                          const char *fmt, va_list ap)
{
    if (atomic_load_explicit(&log_format, memory_order_relaxed) == RSQL_LOG_FORMAT_JSON) {
        return format_json(buf, level, component, fmt, ap);
    }
    const size_t size = RSQL_LOG_LINE_MAX; /* the last byte is kept for the '\n' */
    char run[32] = "";
    if (ctx_run > 0) {
        snprintf(run, sizeof run, " run=%lld", (long long)ctx_run);
    }
    int n = ctx_job[0] ? snprintf(buf, size, "rocketsql: %s: %s: job=%s%s: ",
                                  rsql_log_level_name(level),
                                  component && *component ? component : "-", ctx_job, run)
                       : snprintf(buf, size, "rocketsql: %s: %s: ", rsql_log_level_name(level),
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

static size_t format_linef(char *buf, rsql_log_level_t level, const char *component,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t format_linef(char *buf, rsql_log_level_t level, const char *component,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = format_line(buf, level, component, fmt, ap);
    va_end(ap);
    return n;
}

/* The line that says how many lines were dropped (RSQL_LOG_LINE_MAX bytes; no job context:
   the lines lost were anyone's). */
static size_t format_note(char *buf, uint64_t dropped)
{
    char job[sizeof ctx_job];
    int64_t run = ctx_run;
    memcpy(job, ctx_job, sizeof job);
    ctx_job[0] = '\0';
    ctx_run = 0;
    size_t n = format_linef(buf, RSQL_LOG_WARN, "log",
                            "%llu log line(s) dropped: the log output was not read fast enough",
                            (unsigned long long)dropped);
    memcpy(ctx_job, job, sizeof job);
    ctx_run = run;
    return n;
}

/* ---- the writer: a bounded ring of whole lines, emptied by one thread of its own */

#define LOG_RING_SIZE (1024 * 1024) /* bytes of lines waiting for the writer */
#define LOG_CHUNK (32 * 1024)      /* bytes the writer takes per write(2) */
#define LOG_STALL_MS 2000          /* rsql_log_sync gives up after this long without progress */
#define LOG_BRIEF_STALL_MS 250     /* rsql_log_sync_brief: this long without progress, */
#define LOG_BRIEF_TOTAL_MS 1000    /* or this long in all */

static pthread_once_t ring_once = PTHREAD_ONCE_INIT;
static pthread_cond_t ring_more;     /* lines arrived: the writer waits on it */
static pthread_cond_t ring_progress; /* the writer wrote a chunk: rsql_log_sync waits on it */
static char ring[LOG_RING_SIZE];
static size_t ring_head, ring_len;   /* lines are ring[head .. head + len), wrapping; log_mu */
static bool writer_started, writer_busy, writer_failed; /* log_mu */
static uint64_t writer_rounds;       /* chunks written; log_mu */
static uint64_t bytes_queued, bytes_written; /* ever put in the ring / written out; log_mu */
static uint64_t dropped_pending;     /* lines dropped since the last note; log_mu */
static atomic_uint_fast64_t dropped_total;

/* Write p[0..n) to fd, continued on a short write; errors are dropped (nowhere to say). */
static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static int out_fd(void)
{
    int fd = atomic_load(&log_fd);
    return fd < 0 ? STDERR_FILENO : fd;
}

static void *writer_main(void *arg)
{
    (void)arg;
    static char chunk[LOG_CHUNK];
    pthread_mutex_lock(&log_mu);
    for (;;) {
        while (ring_len == 0) {
            pthread_cond_wait(&ring_more, &log_mu);
        }
        /* whole lines only, so that a line is one write(2) that nothing else written to the
           same fd (user-facing output) can split */
        size_t n = ring_len < LOG_CHUNK ? ring_len : LOG_CHUNK;
        size_t first = n < LOG_RING_SIZE - ring_head ? n : LOG_RING_SIZE - ring_head;
        memcpy(chunk, ring + ring_head, first);
        memcpy(chunk + first, ring, n - first);
        while (n > 0 && chunk[n - 1] != '\n') {
            n--; /* (the ring holds whole lines, each shorter than a chunk) */
        }
        if (n == 0) {
            n = ring_len < LOG_CHUNK ? ring_len : LOG_CHUNK; /* cannot happen: no newline */
        }
        ring_head = (ring_head + n) % LOG_RING_SIZE;
        ring_len -= n;
        writer_busy = true;
        int fd = out_fd();
        pthread_mutex_unlock(&log_mu);
        write_all(fd, chunk, n); /* may block as long as the reader likes: no lock held */
        pthread_mutex_lock(&log_mu);
        writer_busy = false;
        writer_rounds++;
        bytes_written += n;
        pthread_cond_broadcast(&ring_progress);
    }
    return NULL;
}


/* fork: the child has no writer thread; it starts its own, without the parent's lines */
static void fork_prepare(void)
{
    pthread_mutex_lock(&log_mu);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&log_mu);
}

static void fork_child(void)
{
    ring_head = ring_len = 0;
    writer_started = writer_busy = false;
    dropped_pending = 0;
    bytes_written = bytes_queued;
    pthread_cond_init(&ring_more, NULL);
    rsql_cond_init_monotonic(&ring_progress);
    pthread_mutex_unlock(&log_mu); /* taken by this thread in fork_prepare */
}

static void log_atexit(void)
{
    rsql_log_sync();
}

/*
** Once, before log_mu is first taken: the fork handlers must be in place before any thread
** can hold log_mu, or a fork while it is held would leave the child's copy locked.
*/
static void ring_init(void)
{
    pthread_cond_init(&ring_more, NULL);
    rsql_cond_init_monotonic(&ring_progress);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    atexit(log_atexit);
}

/*
** Start the writer thread once (with every signal blocked: it must never take one meant for
** the thread that waits for them). False when it cannot start: lines are then written by the
** caller. @locks log_mu held
*/
static bool writer_start0(void)
{
    if (writer_started || writer_failed) {
        return writer_started;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    bool ok = pthread_create(&th, NULL, writer_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ok) {
        writer_failed = true;
        return false;
    }
    pthread_detach(th);
    writer_started = true;
    return true;
}

static void ring_copy0(const char *p, size_t n)
{
    size_t tail = (ring_head + ring_len) % LOG_RING_SIZE;
    size_t first = n < LOG_RING_SIZE - tail ? n : LOG_RING_SIZE - tail;
    memcpy(ring + tail, p, first);
    memcpy(ring, p + first, n - first);
    ring_len += n;
    bytes_queued += n;
}

static size_t format_note(char *buf, uint64_t dropped);

/*
** Queue p[0..n) (lines whole lines) for the writer; when the ring has no room for all of
** them they are dropped and counted, and a note with the count goes before the next lines
** that fit. Never waits for the output. @locks log_mu held
*/
static void ring_put0(const char *p, size_t n, uint64_t lines)
{
    if (dropped_pending > 0) {
        char note[RSQL_LOG_LINE_MAX];
        size_t m = format_note(note, dropped_pending);
        if (m + n > LOG_RING_SIZE - ring_len) {
            dropped_pending += lines;
            atomic_fetch_add(&dropped_total, lines);
            return;
        }
        ring_copy0(note, m);
        dropped_pending = 0;
    }
    if (n > LOG_RING_SIZE - ring_len) {
        dropped_pending += lines;
        atomic_fetch_add(&dropped_total, lines);
        return;
    }
    ring_copy0(p, n);
    pthread_cond_signal(&ring_more);
}

/* Hand p[0..n) to the writer (or write it here when the writer cannot run). */
static void write_lines(const char *p, size_t n)
{
    uint64_t lines = 0;
    for (size_t i = 0; i < n; i++) {
        lines += p[i] == '\n';
    }
    pthread_once(&ring_once, ring_init);
    pthread_mutex_lock(&log_mu);
    if (writer_start0()) {
        ring_put0(p, n, lines ? lines : 1);
        pthread_mutex_unlock(&log_mu);
        return;
    }
    write_all(out_fd(), p, n); /* no thread to write for us: the old way, one write */
    pthread_mutex_unlock(&log_mu);
}

/*
** Wait until the lines queued so far are written, or the writer has made no progress for
** stall_ms, or (total_ms >= 0) total_ms have passed in all.
*/
static void sync_within(int64_t stall_ms, int64_t total_ms)
{
    pthread_once(&ring_once, ring_init);
    pthread_mutex_lock(&log_mu);
    uint64_t seen = writer_rounds;
    uint64_t upto = bytes_queued; /* not the lines others log meanwhile: they may never stop */
    int64_t start = rsql_now_ms();
    int64_t since = start;
    while (writer_started && bytes_written < upto) {
        int64_t now = rsql_now_ms();
        if (writer_rounds != seen) {
            seen = writer_rounds;
            since = now;
        } else if (now - since >= stall_ms) {
            break; /* nobody reads the output: what is left stays unwritten */
        }
        int64_t until = since + stall_ms;
        if (total_ms >= 0) {
            if (now - start >= total_ms) {
                break;
            }
            if (until > start + total_ms) {
                until = start + total_ms;
            }
        }
        rsql_cond_wait_until(&ring_progress, &log_mu, until);
    }
    pthread_mutex_unlock(&log_mu);
}

/* See rsql_log.h. */
void rsql_log_sync(void)
{
    sync_within(LOG_STALL_MS, -1);
}

/* See rsql_log.h. */
void rsql_log_sync_brief(void)
{
    sync_within(LOG_BRIEF_STALL_MS, LOG_BRIEF_TOTAL_MS);
}

/* See rsql_log.h. */
uint64_t rsql_log_dropped(void)
{
    return atomic_load(&dropped_total);
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
