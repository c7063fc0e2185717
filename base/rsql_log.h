/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_log: the one diagnostic logger of rocketsql (connectors, runtime worker and I/O
 * threads, catalog). A line is
 *
 *     rocketsql: LEVEL: COMPONENT: message
 *
 * (LEVEL one of error, warn, info, debug, trace; COMPONENT e.g. "rocketmq", "runtime",
 * "sqlite"), written to standard error by default. A line is never split by another: it is
 * copied whole into a bounded ring (1 MiB) that one writer thread of the logger's own
 * empties, so a logging thread never waits for the output: when standard error is not read
 * (a full pipe) the ring fills and further lines are dropped and counted (rsql_log_dropped);
 * once there is room again a warning with the count goes out first. At exit (atexit) the
 * ring is written out (rsql_log_sync). Fatal errors that end the process are written to
 * standard error directly, not through here. Lines above the process-wide
 * level are dropped before they are formatted (default RSQL_LOG_WARN); the command line sets
 * the level from `--log-level LEVEL` or $ROCKETSQL_LOG (rsql_log_configure).
 *
 * The logger calls nothing back and never allocates on its immediate path (rsql_log formats
 * into a stack buffer of RSQL_LOG_LINE_MAX bytes; longer messages are cut and end in "...").
 * A caller holding a lock of its own must not log under it: it formats with rsql_log_defer
 * into a local rsql_buf_t while locked and calls rsql_log_flush after unlocking.
 *
 * User-facing output (rendered errors with their caret, the status line, the run summary,
 * result tables) is not log output and does not go through here.
 *
 * Base layer: libc and pthreads only. Every function is thread-safe.
 */
#ifndef RSQL_LOG_H
#define RSQL_LOG_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"

typedef enum rsql_log_level {
    RSQL_LOG_ERROR = 0,
    RSQL_LOG_WARN = 1,
    RSQL_LOG_INFO = 2,
    RSQL_LOG_DEBUG = 3,
    RSQL_LOG_TRACE = 4,
} rsql_log_level_t;

#define RSQL_LOG_DEFAULT RSQL_LOG_WARN
#define RSQL_LOG_LINE_MAX 1024 /* bytes of one line, prefix and newline included */
#define RSQL_LOG_ENV "ROCKETSQL_LOG"

/* "error", "warn", "info", "debug" or "trace" ("?" out of range). Static storage. */
const char *rsql_log_level_name(rsql_log_level_t level);

/*
** Parse a level name (case-insensitive: error, warn, info, debug, trace) into *out.
** RSQL_ERR_USAGE with err set ("invalid log level 'x' (expected ...)") otherwise.
*/
rsql_err_t rsql_log_level_parse(const char *text, rsql_log_level_t *out, rsql_error_t *err);

/*
** Set the process-wide level from the command line: flag (the value of --log-level, NULL when
** not given) wins over env (the value of $ROCKETSQL_LOG, NULL or "" when unset); neither =
** the level stays as it is. RSQL_ERR_USAGE with err naming the source ("--log-level" or
** "ROCKETSQL_LOG") when the value that applies is not a level; the level is unchanged then.
*/
rsql_err_t rsql_log_configure(const char *flag, const char *env, rsql_error_t *err);

void rsql_log_set_level(rsql_log_level_t level);
rsql_log_level_t rsql_log_get_level(void);

/* True when a line at level would be written (cheap: one atomic load). */
bool rsql_log_enabled(rsql_log_level_t level);

/*
** Send log lines to fd instead (the caller keeps it open; -1 = standard error again); the
** lines logged before go to the old fd first (rsql_log_sync). Returns the previous fd (-1 for
** standard error). For tests.
*/
int rsql_log_set_fd(int fd);

/*
** Wait until the lines logged so far are written (not those other threads log meanwhile: they
** may never stop), or until the writer has made no progress for 2 s (nobody reads the
** output): what is left then stays unwritten. Run at exit.
** @locality any thread, no lock of the caller's held
*/
void rsql_log_sync(void);

/*
** As rsql_log_sync, but brief, for a process about to die at once (a second SIGINT/SIGTERM,
** which skips the exit handlers): gives up after 250 ms without progress or 1 s in all, so a
** stalled output cannot hold the exit. Not for a signal handler (it takes a lock).
** @locality any thread, no lock of the caller's held
*/
void rsql_log_sync_brief(void);

/* Lines dropped so far because the output was not read fast enough (a counter). */
uint64_t rsql_log_dropped(void);

/* Line format: the text line above, or one JSON object per line. */
typedef enum rsql_log_format { RSQL_LOG_FORMAT_TEXT = 0, RSQL_LOG_FORMAT_JSON = 1 } rsql_log_format_t;

/*
** Set the format from its name ("text" or "json"; NULL = leave it). RSQL_ERR_USAGE with err
** set otherwise. A JSON line is {"time":"2026-12-01T11:03:15.123Z","level":"warn",
** "component":"runtime","job":"orders","run":3,"msg":"..."} (job and run only with a context).
*/
rsql_err_t rsql_log_set_format(const char *name, rsql_error_t *err);

/*
** The calling thread's context: every line it logs carries job (NULL = none; copied, cut at
** 127 bytes) and run (the job run's id; 0 = none yet, left out). In text lines it follows
** the component: "rocketsql: warn: runtime: job=orders run=3: message". @locality the calling thread
*/
void rsql_log_set_context(const char *job, int64_t run);

/*
** pthread_create(th, NULL, fn, arg) whose new thread starts with the calling thread's context
** (rsql_log_set_context): threads a pipeline's connectors start (a client's I/O thread, a
** source's housekeeping) log with the job and run of the pipeline that opened them. Returns
** pthread_create's result (ENOMEM when out of memory). @locality any thread
*/
int rsql_log_thread_create(pthread_t *th, void *(*fn)(void *), void *arg);

/*
** Write one line at level for component (never NULL; e.g. "rocketmq") when the level is
** enabled. Never allocates; never call it with a lock of your own held (see rsql_log_defer).
** @locality any thread
*/
void rsql_log(rsql_log_level_t level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rsql_logv(rsql_log_level_t level, const char *component, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/*
** Format a line as rsql_log would and append it to pending (caller's buffer, usually a local
** RSQL_BUF_INIT) instead of writing it: for code that holds a lock. Nothing is appended when
** the level is disabled; on out of memory the line is lost (the buffer's oom is set).
** @locality any thread, any locks held
*/
void rsql_log_defer(rsql_buf_t *pending, rsql_log_level_t level, const char *component,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rsql_log_deferv(rsql_buf_t *pending, rsql_log_level_t level, const char *component,
                     const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

/*
** Write the lines of pending (together, none split) and free its memory (the buffer is left
** empty and reusable). A no-op on an empty buffer. @locks none of the caller's held
*/
void rsql_log_flush(rsql_buf_t *pending);

#endif
